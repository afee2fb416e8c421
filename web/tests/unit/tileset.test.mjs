import test from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findBozkir } from '../bozkir-bin.mjs';
import {
  crc32, readZip, writeZip, pickTileset, parseManifest, unpackSplats, openTileset, openDrop, describe,
  fetchTileset,
} from '../../src/tileset.js';

const enc = new TextEncoder();

// A zip built by hand, entries stored or deflated (node's zlib makes the deflate data).
function handZip(entries, comment = '') {
  const parts = [], central = [];
  let offset = 0;
  for (const { name, data, deflate } of entries) {
    const nameBytes = enc.encode(name);
    const packed = deflate ? new Uint8Array(deflateRawSync(data)) : data;
    const local = new Uint8Array(30 + nameBytes.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true); lv.setUint16(4, 20, true); lv.setUint16(8, deflate ? 8 : 0, true);
    lv.setUint32(14, crc32(data), true); lv.setUint32(18, packed.length, true); lv.setUint32(22, data.length, true);
    lv.setUint16(26, nameBytes.length, true);
    local.set(nameBytes, 30);
    const cd = new Uint8Array(46 + nameBytes.length);
    const cv = new DataView(cd.buffer);
    cv.setUint32(0, 0x02014b50, true); cv.setUint16(4, 20, true); cv.setUint16(6, 20, true);
    cv.setUint16(10, deflate ? 8 : 0, true); cv.setUint32(16, crc32(data), true);
    cv.setUint32(20, packed.length, true); cv.setUint32(24, data.length, true);
    cv.setUint16(28, nameBytes.length, true); cv.setUint32(42, offset, true);
    cd.set(nameBytes, 46);
    parts.push(local, packed);
    central.push(cd);
    offset += local.length + packed.length;
  }
  const cdSize = central.reduce((t, c) => t + c.length, 0);
  const commentBytes = enc.encode(comment);
  const end = new Uint8Array(22 + commentBytes.length);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true); ev.setUint16(8, entries.length, true); ev.setUint16(10, entries.length, true);
  ev.setUint32(12, cdSize, true); ev.setUint32(16, offset, true); ev.setUint16(20, commentBytes.length, true);
  end.set(commentBytes, 22);
  const all = [...parts, ...central, end];
  const out = new Uint8Array(all.reduce((t, c) => t + c.length, 0));
  let p = 0;
  for (const c of all) { out.set(c, p); p += c.length; }
  return out;
}

// A two-tile, two-level tileset: 8 + 2 splats for tile 0, 6 + 2 for tile 1.
function smallTileset() {
  const manifest = {
    format_version: 1, size: 0.5, up_axis: 2, colours: [2, 2], set: 'minimal', classes: ['sand', 'scrub'],
    lod: 2, cut: true, sh_degree: 0, total: 18,
    tiles: [
      { code: [0, 0, 0, 0], class: 0, levels: [[0, 8], [8, 2]] },
      { code: [1, 0, 1, 1], class: 1, levels: [[10, 6], [16, 2]] },
    ],
    atlas: { file: 'atlas.png', res: 4, cols: 2, rows: 1, mean_rgb: [[0.5, 0.5, 0.5], [0.2, 0.2, 0.2]] },
  };
  const splat = new Uint8Array(32 * 18);
  const dv = new DataView(splat.buffer);
  for (let k = 0; k < 18; k++) {
    for (let a = 0; a < 3; a++) {
      dv.setFloat32(32 * k + 4 * a, k * 0.01 + a, true);
      dv.setFloat32(32 * k + 12 + 4 * a, 0.001 * (a + 1), true);
    }
    splat.set([k, 2 * k, 3 * k, 200], 32 * k + 24);
    splat.set(k === 0 ? [128, 128, 128, 128] : [255, 128, 128, 128], 32 * k + 28);
  }
  dv.setUint8(32 * 5 + 28, 200); dv.setUint8(32 * 5 + 29, 56);   // an unnormalised rotation
  const atlas = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
  return { manifest, manifestText: JSON.stringify(manifest), splat, atlas };
}

test('CRC-32 of "hello world" is 0x0d4a1185', () => {
  assert.equal(crc32('hello world'), 0x0d4a1185);
  assert.equal(crc32(new Uint8Array(0)), 0);
});

test('zip round trip: stored and deflated entries, nested paths', async () => {
  const big = enc.encode('sand '.repeat(5000));
  const zip = handZip([
    { name: 'ts/tileset.json', data: enc.encode('{"a": 1}'), deflate: true },
    { name: 'ts/tiles.splat', data: big, deflate: true },
    { name: 'ts/readme.txt', data: enc.encode('plain'), deflate: false },
  ]);
  assert.ok(zip.length < big.length / 5, 'the test data really is deflated');
  const files = await readZip(zip.buffer);
  assert.deepEqual([...files.keys()], ['ts/tileset.json', 'ts/tiles.splat', 'ts/readme.txt']);
  assert.deepEqual(files.get('ts/tiles.splat'), big);
  assert.equal(new TextDecoder().decode(files.get('ts/readme.txt')), 'plain');
});

test('writeZip round trip, names in UTF-8, CRC written', async () => {
  const files = new Map([['a.txt', 'hello world'], ['dir/b.bin', new Uint8Array([1, 2, 3])], ['ılık.json', '{}']]);
  const zip = writeZip(files);
  assert.equal(new DataView(zip.buffer).getUint32(14, true), 0x0d4a1185);
  const back = await readZip(zip);
  assert.equal(new TextDecoder().decode(back.get('a.txt')), 'hello world');
  assert.deepEqual(back.get('dir/b.bin'), new Uint8Array([1, 2, 3]));
  assert.ok(back.has('ılık.json'));
});

test('a trailing comment does not hide the end record', async () => {
  const zip = handZip([{ name: 'x.txt', data: enc.encode('x'), deflate: true }], 'PK\u0005\u0006 a comment that looks like a signature');
  const files = await readZip(zip);
  assert.deepEqual([...files.keys()], ['x.txt']);
  const written = await readZip(writeZip({ 'y.txt': 'y' }, { comment: 'made by a test' }));
  assert.deepEqual([...written.keys()], ['y.txt']);
});

test('the empty zip reads as no files', async () => {
  const files = await readZip(writeZip(new Map()));
  assert.equal(files.size, 0);
  assert.equal(writeZip([]).length, 22);
});

test('broken archives are refused with a reason: not a zip, zip64, CRC, method', async () => {
  await assert.rejects(readZip(enc.encode('definitely not an archive, just text that is long enough')), /not a zip/);
  await assert.rejects(readZip(new Uint8Array(0)), /not a zip/);
  const zip = writeZip({ 'a.txt': 'hello world' });
  const bad = zip.slice();
  bad[30 + 5] ^= 0xff;   // one byte of the content
  await assert.rejects(readZip(bad), /CRC-32/);
  const z64 = zip.slice();
  new DataView(z64.buffer).setUint16(z64.length - 22 + 10, 0xffff, true);
  await assert.rejects(readZip(z64), /zip64/);
  const bz = zip.slice();
  new DataView(bz.buffer).setUint16(30 + 5 + 11 + 10, 12, true);   // central dir: method 12 (bzip2)
  await assert.rejects(readZip(bz), /method 12/);
});

test('pickTileset: top-level files win, __MACOSX and .DS_Store are ignored', () => {
  const files = new Map([
    ['__MACOSX/ts/._tileset.json', 1], ['__MACOSX/ts/tiles.splat', 1], ['ts/.DS_Store', 1],
    ['ts/tileset.json', 1], ['ts/tiles.splat', 1], ['ts/atlas.png', 1],
    ['ts/old/tileset.json', 1], ['ts/old/tiles.splat', 1],
  ]);
  assert.deepEqual(pickTileset(files), { manifestName: 'ts/tileset.json', splatName: 'ts/tiles.splat', atlasName: 'ts/atlas.png' });
  const noAtlas = new Map([['tileset.json', 1], ['desert.splat', 1]]);
  assert.deepEqual(pickTileset(noAtlas), { manifestName: 'tileset.json', splatName: 'desert.splat', atlasName: null });
});

test('pickTileset: no manifest or no .splat is refused, saying what was found', () => {
  assert.throws(() => pickTileset(new Map([['tiles.splat', 1]])), /no tileset\.json.*tiles\.splat/);
  assert.throws(() => pickTileset(new Map([['t/tileset.json', 1], ['t/atlas.png', 1], ['__MACOSX/t/tiles.splat', 1]])),
    /no \.splat file next to t\/tileset\.json/);
  assert.throws(() => pickTileset(new Map()), /found: nothing/);
});

test('parseManifest: broken JSON names the file; each field is checked by name', () => {
  const { manifest } = smallTileset();
  assert.throws(() => parseManifest('{"format_version": 1,', 'desert/tileset.json'), /^Error: desert\/tileset\.json: not valid JSON/);
  const bad = (patch, re) => {
    const m = structuredClone(manifest);
    patch(m);
    assert.throws(() => parseManifest(JSON.stringify(m)), re);
  };
  bad((m) => { m.format_version = 2; }, /format_version is 2/);
  bad((m) => { m.size = 0; }, /size must be a number > 0/);
  bad((m) => { m.tiles = []; }, /tiles must be a non-empty list/);
  bad((m) => { m.tiles[1].levels[1] = [16, 3]; }, /tiles\[1\]\.levels\[1\] = \[16, 3\] lies outside total 18/);
  bad((m) => { m.tiles[1].code[1] = 2; }, /tiles\[1\]\.code\[1\] = 2 is outside colours\[1\] = 2/);
  bad((m) => { m.tiles[0].class = 2; }, /tiles\[0\]\.class = 2 is not one of the 2 classes/);
  bad((m) => { m.tiles[0].levels.pop(); }, /tiles\[0\]\.levels has 1 levels, lod is 2/);
  bad((m) => { m.classes = []; }, /classes/);
  assert.equal(parseManifest(JSON.stringify(manifest)).total, 18);
});

test('unpackSplats: the 32-byte layout, rotations normalised, wrong lengths refused', () => {
  const { splat } = smallTileset();
  const s = unpackSplats(splat, 18);
  assert.equal(s.count, 18);
  assert.ok(Math.abs(s.positions[3 * 4 + 1] - (0.04 + 1)) < 1e-6);
  assert.ok(Math.abs(s.scales[3 * 2 + 2] - 0.003) < 1e-9);
  assert.deepEqual([...s.colors.subarray(4 * 3, 4 * 3 + 4)], [3, 6, 9, 200]);
  assert.deepEqual([...s.rotations.subarray(0, 4)], [1, 0, 0, 0]);            // zero → identity
  assert.ok(Math.abs(s.rotations[4] - 1) < 1e-6);                              // (255,128,128,128)
  const q = s.rotations.subarray(20, 24);
  assert.ok(Math.abs(Math.hypot(...q) - 1) < 1e-6);
  assert.ok(Math.abs(q[0] - 72 / Math.hypot(72, 72)) < 1e-6 && q[1] < 0);
  assert.throws(() => unpackSplats(splat.subarray(0, 100), undefined), /100 bytes is not a multiple of 32/);
  assert.throws(() => unpackSplats(splat, 17), /holds 18 splats, the manifest's total is 17/);
  // an unaligned view still reads
  const shifted = new Uint8Array(splat.length + 1);
  shifted.set(splat, 1);
  assert.deepEqual(unpackSplats(shifted.subarray(1), 18).positions, s.positions);
});

test('openTileset from parts and from a Map; describe', async () => {
  const { manifestText, splat, atlas } = smallTileset();
  const t = await openTileset({ manifest: manifestText, splat, atlas });
  assert.equal(t.size, 0.5);
  assert.equal(t.tiles.length, 2);
  assert.equal(t.levels, 2);
  assert.equal(t.splats.count, 18);
  assert.deepEqual(t.atlasPng, atlas);
  assert.equal(describe(t), '2 tiles, 2 classes (sand, scrub), 18 splats, 2 levels, 0.5 m tiles');
  const m = await openTileset(new Map([['x/tileset.json', enc.encode(manifestText)], ['x/tiles.splat', splat]]));
  assert.equal(m.atlasPng, null);
  assert.equal(m.names.splat, 'x/tiles.splat');
  await assert.rejects(openTileset(new Map([['tileset.json', enc.encode(manifestText)], ['tiles.splat', splat.subarray(32)]])),
    /tiles\.splat holds 17 splats, the manifest's total is 18/);
});

test('openDrop: a deflated zip opens whatever its name; a non-zip is refused saying what is expected', async () => {
  const { manifestText, splat, atlas } = smallTileset();
  const zip = handZip([
    { name: '__MACOSX/._tileset.json', data: enc.encode('junk'), deflate: false },
    { name: 'tileset.json', data: enc.encode(manifestText), deflate: true },
    { name: 'tiles.splat', data: splat, deflate: true },
    { name: 'atlas.png', data: atlas, deflate: false },
  ]);
  const t = await openDrop(new Blob([zip]), 'whatever.bin');
  assert.equal(t.splats.count, 18);
  assert.deepEqual(t.atlasPng, atlas);
  await assert.rejects(openDrop(enc.encode(manifestText), 'tileset.json'), /^Error: not a zip: tileset\.json starts with 7b 22 66 6f; expected a \.zip/);
  await assert.rejects(openDrop(zip.buffer.slice(0, 10), 'cut.zip'), /cut\.zip: not a zip/);
});

test('fetchTileset reads a served folder', async () => {
  const { manifestText, splat, atlas } = smallTileset();
  const served = { 'tileset.json': enc.encode(manifestText), 'tiles.splat': splat, 'atlas.png': atlas };
  const fakeFetch = async (url) => {
    const file = served[url.replace('/tilesets/desert/', '')];
    return { ok: !!file, status: file ? 200 : 404, arrayBuffer: async () => file.slice().buffer };
  };
  const t = await fetchTileset('/tilesets/desert', fakeFetch);
  assert.equal(t.splats.count, 18);
  assert.deepEqual(t.atlasPng, atlas);
});

// ---- a tileset made by the Rust CLI ----------------------------------------

const binary = findBozkir();

test('reads a real tileset written by `bozkir tileset --zip`', { timeout: 120000 }, async (t) => {
  if (!binary) {
    if (process.env.CI === 'true') assert.fail('the bozkir binary is missing (build it: cargo build -p bozkir, or set BOZKIR_BIN)');
    t.skip('no bozkir binary (cargo build -p bozkir, or set BOZKIR_BIN): this test needs it');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'bozkir-tileset-'));
  try {
    execFileSync(binary, ['capture', '-q', 'synth', '--out', join(dir, 'capture.ply'), '--side', '3', '--density', '6000'], { stdio: 'pipe' });
    execFileSync(binary, ['tileset', '-q', join(dir, 'capture.ply'), '--out', join(dir, 'ts'), '--zip'], { stdio: 'pipe' });
    const zipPath = [join(dir, 'ts', 'ts.zip'), join(dir, 'ts.zip')].find((p) => existsSync(p));
    assert.ok(zipPath, `no zip written (found ${readdirSync(join(dir, 'ts')).join(', ')})`);
    const fromZip = await openDrop(readFileSync(zipPath), 'ts.zip');
    const folder = new Map(readdirSync(join(dir, 'ts')).map((f) => [`ts/${f}`, new Uint8Array(readFileSync(join(dir, 'ts', f)))]));
    const fromFolder = await openTileset(folder);
    assert.deepEqual(fromZip.splats.positions, fromFolder.splats.positions);
    assert.deepEqual(fromZip.splats.colors, fromFolder.splats.colors);
    const { manifest, splats } = fromZip;
    assert.equal(splats.count, manifest.total);
    assert.ok(fromZip.atlasPng && fromZip.atlasPng[0] === 0x89, 'atlas.png present');
    assert.ok(manifest.tiles.length >= 8);
    assert.match(describe(fromZip), /^\d+ tiles, \d classes? \(.*\), [\d,]+ splats, \d levels?, [\d.]+ m tiles$/);
    // Tiles are cut exactly at the square around the origin.
    const half = manifest.size / 2 + 1e-4;
    for (const tile of manifest.tiles) {
      const [start, count] = tile.levels[0];
      for (let k = start; k < start + count; k++) {
        assert.ok(Math.abs(splats.positions[3 * k]) <= half && Math.abs(splats.positions[3 * k + 1]) <= half);
      }
    }
    for (let k = 0; k < splats.count; k += 97) {
      assert.ok(Math.abs(Math.hypot(...splats.rotations.subarray(4 * k, 4 * k + 4)) - 1) < 1e-5);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

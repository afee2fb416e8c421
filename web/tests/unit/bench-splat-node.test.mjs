// The Dawn-in-Node splat benchmark's own logic (web/tools/bench-splat-node.mjs): its arguments,
// checked and refused with a message before anything loads, and the PNG reading (the tileset's
// atlas, in place of the page's createImageBitmap) and writing (--png). Dawn itself is not a
// dependency of web/ and is not run here.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';
import { decodePng, encodePng, parseArgs, parseGrids, parseWindow } from '../../tools/bench-splat-node.mjs';

const tool = fileURLToPath(new URL('../../tools/bench-splat-node.mjs', import.meta.url));

test('the defaults are the page\'s bench and bench-viewer\'s window', () => {
  assert.deepEqual(parseArgs([]), {
    dawn: null, scene: null, grids: [4, 8, 16, 24, 32], frames: 40, settle: 8, window: { width: 1280, height: 720 }, json: null, png: null, bozkir: null,
  });
  const o = parseArgs(['--dawn', '/d', '--scene=s', '--grids', '4, 8,16,40,256', '--frames', '60', '--settle', '0', '--window', '1920x1080',
    '--json', 'o.json', '--png', 'o.png', '--bozkir', 'b']);
  assert.deepEqual(o, {
    dawn: '/d', scene: 's', grids: [4, 8, 16, 40, 256], frames: 60, settle: 0, window: { width: 1920, height: 1080 }, json: 'o.json', png: 'o.png', bozkir: 'b',
  });
  assert.deepEqual(parseArgs(['--help']), { help: true });
});

test('bad grids, windows, counts and unknown arguments are refused by name', () => {
  for (const g of ['', '4,x', '0', '257', '4,,8', '1.5', '-4']) assert.throws(() => parseGrids(g), /--grids .*1\.\.256/, g);
  assert.deepEqual(parseWindow('320X240'), { width: 320, height: 240 });
  for (const w of ['1920', '10x10', 'axb', '9000x100', '']) assert.throws(() => parseWindow(w), /WIDTHxHEIGHT/, w);
  assert.throws(() => parseArgs(['--frames', '0']), /--frames 0: a whole number 1\.\.10000/);
  assert.throws(() => parseArgs(['--frames', '2.5']), /--frames/);
  assert.throws(() => parseArgs(['--settle', '-1']), /--settle -1: a whole number 0\.\.1000/);
  assert.throws(() => parseArgs(['--bogus']), /unknown argument --bogus/);
  assert.throws(() => parseArgs(['--scene']), /--scene needs a value/);
  assert.throws(() => parseArgs(['--scene', '--grids', '4']), /--scene needs a value/);
});

test('the command exits 1 with a message for a bad argument or a missing scene folder', () => {
  const run = (...args) => spawnSync(process.execPath, [tool, ...args], { encoding: 'utf8', timeout: 30000 });
  for (const [args, msg] of [
    [['--bogus'], /unknown argument --bogus/],
    [['--grids', '4,x'], /--grids 4,x: a comma-separated list/],
    [['--scene', '/nonexistent/scene'], /--scene \/nonexistent\/scene: no such folder/],
    [['--scene', tool], /not a folder/],
  ]) {
    const r = run(...args);
    assert.equal(r.status, 1, args.join(' '));
    assert.match(r.stderr, msg);
  }
});

/** A PNG of `rows` (RGB bytes each) with filter `filters[y]` on row y, filtered as the spec says. */
function filteredPng(width, rows, filters) {
  const bpp = 3, stride = width * bpp;
  const out = [];
  rows.forEach((row, y) => {
    const up = y ? rows[y - 1] : new Uint8Array(stride);
    const f = filters[y];
    out.push(f);
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? row[i - bpp] : 0, b = up[i], c = i >= bpp ? up[i - bpp] : 0;
      const pa = Math.abs(b - c), pb = Math.abs(a - c), pc = Math.abs(a + b - 2 * c);
      const pred = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][f];
      out.push((row[i] - pred) & 0xff);
    }
  });
  const chunk = (type, body) => {
    const b = Buffer.alloc(12 + body.length);
    b.writeUInt32BE(body.length, 0);
    b.write(type, 4, 'latin1');
    Buffer.from(body).copy(b, 8);
    return b; // the reader does not check CRCs
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(rows.length, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.from(out))), chunk('IEND', Buffer.alloc(0))]);
}

test('PNGs read back every filter, and what --png writes reads back exactly', () => {
  const W = 7;
  let s = 7;
  const rnd = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 24);
  const rows = Array.from({ length: 10 }, () => Uint8Array.from({ length: 3 * W }, rnd));
  const img = decodePng(filteredPng(W, rows, [0, 1, 2, 3, 4, 4, 3, 2, 1, 0]));
  assert.equal(img.width, W);
  assert.equal(img.height, 10);
  for (let y = 0; y < 10; y++) for (let x = 0; x < W; x++) {
    assert.deepEqual([...img.data.subarray(4 * (y * W + x), 4 * (y * W + x) + 4)], [...rows[y].subarray(3 * x, 3 * x + 3), 255], `${x},${y}`);
  }
  const rgba = { width: 5, height: 3, data: Uint8Array.from({ length: 60 }, rnd) };
  const back = decodePng(encodePng(rgba));
  assert.deepEqual({ ...back, data: [...back.data] }, { ...rgba, data: [...rgba.data] });
  // An RGB PNG as other tools write them (the splat comparison's fixture) survives the round trip.
  const fixture = decodePng(readFileSync(fileURLToPath(new URL('../browser/fixtures/splat-compare/software.png', import.meta.url))));
  assert.deepEqual([fixture.width, fixture.height], [160, 120]);
  assert.deepEqual(decodePng(encodePng(fixture)).data, fixture.data);
  assert.throws(() => decodePng(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8])), /not a PNG/);
});

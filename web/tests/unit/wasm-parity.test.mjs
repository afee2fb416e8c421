// Parity of the renderer's JS twins with the Rust code, through the WebAssembly build in web/pkg
// (wasm-pack --target web): the terrain height (tilegrid.rs Field::height_at), the survival
// hashes and the blend rule of select.rs / scene.rs as the renderer applies them.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { heightAt, hashU32, latticeValue, cellDraws, spreadHashes, NONE } from '../../src/render-logic.js';

const bz = await import('../../pkg/bozkir_wasm.js');
bz.initSync({ module: readFileSync(new URL('../../pkg/bozkir_wasm_bg.wasm', import.meta.url)) });

// Points inside, at texel and mirror boundaries, far outside (mirrored), negative.
function points(n, count) {
  const out = [];
  let s = 12345;
  const rnd = () => ((s = (Math.imul(s, 1103515245) + 12345) & 0x7fffffff) / 0x7fffffff);
  for (let k = 0; k < count; k++) out.push([(rnd() - 0.5) * 5 * n, (rnd() - 0.5) * 5 * n]);
  for (const f of [0, 0.5, -0.5, 1.5, -1.5, 2.5, 7.25]) out.push([f * n, 0], [0, f * n], [f * n, -f * n]);
  out.push([1e4, -3e4], [0.3, 0.7]);
  return out;
}

const t = bz.generate('canyon', 3, 64);
const sf = new bz.SceneField(t.heights, t.width, t.height, undefined);
const mappings = [
  // n, tile, relief, reliefScale (≤ 0 follows the grid), angle, detail
  [24, 1, 1.2, 0, 0, 0], [24, 1, 1.2, 0, 0, 1], [40, 1, 1.2, 0, 30, 1], [64, 0.5, 2, 100, 12.5, 2.5], [9, 2, 0.7, 7, 45, 3],
];

test('heightAt equals Field::height_at (wasm) bit for bit on the f32 planes, both grain hashes, inside, outside, rotated', () => {
  // The planes are f32 in the library too (as the original viewer holds them), so the twin reads
  // exactly what Field::height_at reads and every operation is the same f64 operation.
  const field = { width: sf.width, height: sf.height, z: sf.z, mask: sf.mask, open: sf.open };
  let count = 0;
  for (const compat of ['original', 'canonical']) {
    for (const [n, tile, relief, rs, ang, det] of mappings) {
      const m = new bz.Mapping(n, tile, relief, rs, ang, det, compat);
      assert.equal(m.compat, compat);
      const scene = { n, tile, amplitude: m.amplitude, reliefScale: m.reliefScale, angleDeg: ang, detail: det, field, compat };
      for (const [x, y] of points(n * tile, 400)) {
        assert.equal(heightAt(scene, x, y), sf.heightAt(m, x, y), `${compat} n ${n} angle ${ang} detail ${det} at (${x}, ${y})`);
        count++;
      }
      m.free();
    }
  }
  assert.ok(count > 4000);
  assert.throws(() => new bz.Mapping(24, 1, 1.2, 0, 0, 1, 'pyworldgen'), /unknown compatibility mode/);
});

test('the two grain hashes: the original viewer dHash and hash_u32 (pinned lattice values)', () => {
  // dHash(1, 0) of the original viewer 5.0 and hash_u32(1, 0, 0) >> 8 / 2^24.
  assert.equal(latticeValue(1, 0), 14462411 / 16777215);
  assert.equal(latticeValue(1, 0, 'canonical'), (0x80f575f2 >>> 8) / 16777216);
  assert.ok(Math.abs(latticeValue(1, 0) - 0.862) < 1e-3 && Math.abs(latticeValue(1, 0, 'canonical') - 0.504) < 1e-3);
});

test('hash3U32 pinned vectors (bozkir_core::hash::HASH3_VECTORS, the WGSL test table) and gradient3', () => {
  const vectors = [
    [[0, 0, 0, 0], 0], [[0, 0, 1, 0], 0x30e6db8a], [[1, 2, 3, 4], 0xb3a38269], [[12345, 67890, 0, 42], 0xe2597a2c],
    [[12345, 67890, 1, 42], 0x09a13ced], [[0xffffffff, 0xfffffffe, 0xfffffffd, 7], 0xa115bae8],
    [[0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff], 0xc988e043], [[100, 0xffffffce, 2000, 0x9e3779b9], 0x193c9305],
  ];
  for (const [[x, y, z, s], want] of vectors) assert.equal(bz.hash3U32(x, y, z, s), want, `hash3(${x},${y},${z},${s})`);
  // The plane z = 0 is the 2-D hash; gradient noise vanishes on the lattice and is not constant.
  assert.equal(bz.hash3U32(12345, 67890, 0, 42), bz.hashU32(12345, 67890, 42));
  assert.equal(bz.gradient3(3, -4, 5, 9), 0);
  // Native gradient3(3.3, -4.2, 5.7, 9), bit for bit (bits 13824173135611752536).
  const bits = new BigUint64Array(new Float64Array([bz.gradient3(3.3, -4.2, 5.7, 9)]).buffer)[0];
  assert.equal(bits, 13824173135611752536n);
  assert.notEqual(bz.gradient3(3.3, -4.2, 5.7, 9), bz.gradient3(3.3, -4.2, 5.7, 10));
});

test('hashU32 pinned vectors (bozkir_core::hash) and splatHashes = splat_priority·2³² (select.rs vectors)', () => {
  assert.equal(hashU32(1, 0, 0), 0x80f575f2);
  assert.equal(hashU32(12345, 67890, 42), 0xe2597a2c);
  assert.equal(hashU32(-1, -1, -1), 0x016bf667);
  const h = bz.splatHashes(2000);
  assert.ok(h instanceof Uint32Array && h.length === 2000);
  assert.deepEqual([h[0], h[1], h[2], h[1000]], [129708002, 2831084092, 2055130248, 2163870295]);
  for (let k = 0; k < 2000; k += 7) assert.equal(h[k], bz.splatPriority(k) * 4294967296);
});

test('blend parity: the draws of sceneCells cells keep exactly the splats select.rs keeps', () => {
  const st = bz.starterTileset();
  const manifestJson = st.manifest;
  const man = JSON.parse(manifestJson);
  const n = 10, width = 0.6;
  const classes = Uint8Array.from({ length: n * n }, (_, c) => ((c * 7) % 5 < 2 ? 1 : 0));
  const runnerUp = classes.map((v) => 1 - v);
  const strength = Float64Array.from({ length: n * n }, (_, c) => ((c * 37) % 101) / 100);
  const sc = bz.sceneCells(manifestJson, n, 7, classes, runnerUp, strength, width);
  const C = { tile: sc.tile, alt: sc.alt, ownT: sc.ownThreshold, altT: sc.altThreshold, mix: sc.mix };
  let total = 0, longest = 0;
  for (const tl of man.tiles) for (const [s0, c] of tl.levels) { total = Math.max(total, s0 + c); longest = Math.max(longest, c); }
  const hashes = spreadHashes(man.tiles, total, bz.splatHashes(longest));
  let blended = 0;
  for (let c = 0; c < n * n; c++) {
    const m = bz.blendMix(strength[c], width);
    const levels = man.tiles[0].levels.map((_, l) => ({ level: l, weight: 1 }));
    for (const { level } of levels) {
      for (const d of cellDraws({ c, levels: [{ level, weight: 1 }] }, C, man.tiles)) {
        // the shader: drawn when hashes[s] <= t (uint compare)
        const keep = (s) => hashes[s] <= d.t;
        // select.rs: own tile splat k when priority(k) <= m, runner-up when priority(k) <= 1 − m
        const p = d.alt ? 1 - m : (C.alt[c] === NONE ? 1 : m);
        for (let k = 0; k < d.count; k++) assert.equal(keep(d.start + k), bz.splatPriority(k) <= p, `cell ${c} ${d.alt ? 'alt' : 'own'} k ${k}`);
      }
    }
    if (C.alt[c] !== NONE) blended++;
  }
  assert.ok(blended > 5, `${blended} blended cells`);
  sc.free(); st.free();
});

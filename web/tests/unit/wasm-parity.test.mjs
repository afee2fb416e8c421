// Parity of the renderer's JS twins with the Rust code, through the WebAssembly build in web/pkg
// (wasm-pack --target web): the terrain height (tilegrid.rs Field::height_at), the survival
// hashes and the blend rule of select.rs / scene.rs as the renderer applies them.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { heightAt, hashU32, cellDraws, spreadHashes, NONE } from '../../src/render-logic.js';

const bz = await import('../../pkg/bozkir_wasm.js');
bz.initSync({ module: readFileSync(new URL('../../pkg/bozkir_wasm_bg.wasm', import.meta.url)) });

// Field::new's planes in f64 (cues::unit, the gradient / p95 / box-residual mask), rebuilt here
// from the same f32 heights: SceneField's z / mask / open getters hand out f32 copies, which is
// all the GPU needs but moves heights by up to ~6e-8 of the amplitude.
function planes64(heights, w, h) {
  const unit = (a) => {
    let lo = Infinity, hi = -Infinity;
    for (const v of a) { if (v < lo) lo = v; if (v > hi) hi = v; }
    return hi - lo > 1e-12 ? a.map((v) => (v - lo) / (hi - lo)) : a.map(() => 0.5);
  };
  const z = unit(Float64Array.from(heights));
  const grad = new Float64Array(w * h);
  for (let r = 0; r < h; r++) for (let c = 0; c < w; c++) {
    const gx = (z[r * w + Math.min(c + 1, w - 1)] - z[r * w + Math.max(c - 1, 0)]) * 0.5;
    const gy = (z[Math.min(r + 1, h - 1) * w + c] - z[Math.max(r - 1, 0) * w + c]) * 0.5;
    grad[r * w + c] = Math.hypot(gx, gy);
  }
  const sorted = Float64Array.from(grad).sort();
  const p95 = Math.max(sorted[Math.min(Math.floor(0.95 * (grad.length - 1) + 0.5), grad.length - 1)], 1e-12);
  const R = Math.max(2, Math.round(Math.max(w, h) / 48));
  const sw = w + 1, s = new Float64Array(sw * (h + 1));
  for (let y = 0; y < h; y++) {
    let row = 0;
    for (let x = 0; x < w; x++) { row += z[y * w + x]; s[(y + 1) * sw + x + 1] = s[y * sw + x + 1] + row; }
  }
  const resid = new Float64Array(w * h);
  for (let y = 0; y < h; y++) {
    const y0 = Math.max(y - R, 0), y1 = Math.min(y + R + 1, h);
    for (let x = 0; x < w; x++) {
      const x0 = Math.max(x - R, 0), x1 = Math.min(x + R + 1, w);
      const sum = s[y1 * sw + x1] - s[y0 * sw + x1] - s[y1 * sw + x0] + s[y0 * sw + x0];
      resid[y * w + x] = z[y * w + x] - sum / ((y1 - y0) * (x1 - x0));
    }
  }
  const open = unit(resid);
  const ss = (e0, e1, x) => { const t = Math.min(1, Math.max(0, (x - e0) / (e1 - e0))); return t * t * (3 - 2 * t); };
  const mask = grad.map((g, i) => Math.max(ss(0.3, 0.75, g / p95), ss(0.6, 0.9, open[i])));
  return { z, mask, open };
}

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

test('heightAt equals Field::height_at (wasm) with the f64 planes: bit-identical, inside, outside, rotated', () => {
  const p = planes64(t.heights, sf.width, sf.height);
  const field = { width: sf.width, height: sf.height, ...p };
  let worst = 0, worstDetail = 0, count = 0;
  for (const [n, tile, relief, rs, ang, det] of mappings) {
    const m = new bz.Mapping(n, tile, relief, rs, ang, det);
    const scene = { n, tile, amplitude: m.amplitude, reliefScale: m.reliefScale, angleDeg: ang, detail: det, field };
    for (const [x, y] of points(n * tile, 800)) {
      const want = sf.heightAt(m, x, y), got = heightAt(scene, x, y);
      const rel = Math.abs(got - want) / Math.max(m.amplitude, Math.abs(want));
      if (det > 0) worstDetail = Math.max(worstDetail, rel); else worst = Math.max(worst, rel);
      assert.ok(rel <= 1e-9, `n ${n} angle ${ang} detail ${det} at (${x}, ${y}): ${got} vs ${want}`);
      count++;
    }
    m.free();
  }
  assert.ok(count > 4000);
  // Without detail the result is bit-identical (same f64 operations in the same order). With
  // detail a few points differ by 1 ulp: not the twin (where the 4 mask texels are exactly 1 it
  // is bit-identical too) but this test's f64 rebuild of the mask plane, whose gradient uses
  // Math.hypot, which V8 and Rust's libm do not round alike. The page passes SceneField's planes.
  assert.equal(worst, 0, 'detail off: bit-identical');
  assert.ok(worstDetail <= 1e-15, `detail on: ${worstDetail}`);
});

test('heightAt with the SceneField f32 planes the page passes: within f32 rounding (≤ 1e-7 of the amplitude)', () => {
  const field = { width: sf.width, height: sf.height, z: sf.z, mask: sf.mask, open: sf.open };
  for (const [n, tile, relief, rs, ang, det] of mappings) {
    const m = new bz.Mapping(n, tile, relief, rs, ang, det);
    const scene = { n, tile, amplitude: m.amplitude, reliefScale: m.reliefScale, angleDeg: ang, detail: det, field };
    for (const [x, y] of points(n * tile, 300)) {
      assert.ok(Math.abs(heightAt(scene, x, y) - sf.heightAt(m, x, y)) <= 1e-7 * m.amplitude);
    }
    m.free();
  }
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

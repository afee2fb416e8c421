// Per-frame CPU cost of the renderer's JS scene logic (visible cells + tile order + merged
// groups: render-logic.js planFrame over order.js / merge.js), in node, on a wasm terrain.
// Development only: node web/dev/logic-bench.mjs
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { heightAt, latticeHeight, planFrame, farStart, cellSlots, NONE } from '../src/render-logic.js';
import { cameraBasis, frustumPlanes } from '../src/camera.js';

const bz = await import('../pkg/bozkir_wasm.js');
bz.initSync({ module: readFileSync(new URL('../pkg/bozkir_wasm_bg.wasm', import.meta.url)) });
const t = bz.generate('canyon', 3, 256);
const sf = new bz.SceneField(t.heights, t.width, t.height, undefined);
const field = { width: sf.width, height: sf.height, z: sf.z, mask: sf.mask, open: sf.open };
const L = 4, lodBase = 8;
const fmt = (v) => v.toFixed(2).padStart(7);
console.log('first = cold frame (fills the height lattice); mean / p95 over 60 frames, camera turning 0.5° a frame');
console.log(`levels ${L}, lodBase ${lodBase}, 16:9, fov 60, canyon 256², detail 1, every 5th cell blended`);
console.log('    n | view     | far | cells scanned | first ms | mean ms |  p95 ms | cells | groups');
for (const n of [24, 40, 64, 128, 256]) {
  const m = new bz.Mapping(n, 1, 1.2, 0, 0, 1);
  const alt = new Uint32Array(n * n).fill(NONE);
  for (let c = 0; c < n * n; c += 5) alt[c] = 1;
  const scene = { n, tile: 1, amplitude: m.amplitude, reliefScale: m.reliefScale, angleDeg: 0, detail: 1, field, cells: { tile: new Uint32Array(n * n), alt } };
  for (const [view, dist, farOn] of [['overview', 1.3 * n, true], ['close', 20, true], ['overview', 1.3 * n, false]]) {
    const height = latticeHeight(scene, (x, y) => heightAt(scene, x, y));
    const times = [];
    let last;
    for (let f = 0; f < 80; f++) {
      const basis = cameraBasis({ target: [0, 0, 0], az: 30 + f * 0.5, el: 35, dist, fov: 60 });
      const t0 = performance.now();
      last = planFrame({ scene, basis, planes: frustumPlanes(basis, 16 / 9), lodBase, levels: L, far: farOn ? farStart(lodBase, L, 1) : null, height, slots: cellSlots(scene.cells) });
      times.push(performance.now() - t0);
    }
    const first = times.shift();
    times.splice(0, 19); // JIT warm-up: the last 60 of 79 moving frames count
    const sorted = [...times].sort((a, b) => a - b);
    const mean = times.reduce((a, b) => a + b, 0) / times.length;
    console.log(`${String(n).padStart(5)} | ${view.padEnd(8)} | ${farOn ? 'on ' : 'off'} | ${String(last.cells.scanned).padStart(13)} | ${fmt(first)}  | ${fmt(mean)} | ${fmt(sorted[Math.floor(0.95 * sorted.length)])} | ${String(last.cells.length).padStart(5)} | ${String(last.groups.length).padStart(6)}`);
  }
  m.free();
}

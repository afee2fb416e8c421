// The erosion page's benchmark (erode.html?bench=1, run by `bozkir bench-viewer --page erode`):
// the page's own kernels and view timed on whatever GPU the browser has, case by case. Three
// kinds of case:
//   droplets:SIZE:DROPS:BATCH:STEPS  STEPS runs of DROPS droplets (seed 001's parameters, each
//                                    droplet to its full lifetime) in batches of BATCH (a number,
//                                    or `auto`: the page's default, one droplet to 64 cells); the
//                                    simulation alone, one wait for the GPU at the end;
//   pipe:SIZE:STEPS                  STEPS pipe-model steps, one submission each, with the rain
//                                    brush on the centre (radius SIZE/8, at most 256 cells);
//   live:SIZE:DROPS:STEPS            the page's frame as a user runs it: DROPS droplets (batch auto), 2 thermal
//                                    iterations, 4 water steps, D8 drainage and the mesh drawn
//                                    into the canvas, the GPU awaited every frame.
// The terrain is `benchTerrain` (sizes past the page's 1024 would take the WebAssembly
// generator minutes), 5.12 km across like the page's.

import { ErosionLab, LabView } from './lab.js';
import { unlessLost } from './device.js';

export const BENCH_EXTENT_M = 5120;
export const BENCH_CASES = 'droplets:2048:131072:auto:60,droplets:2048:131072:1024:10,pipe:4096:240,pipe:2048:240,live:1024:65536:60';

/**
 * A deterministic test terrain of `size`² cells (metres): a tilted plane, two ridge systems and
 * a finer ripple (relief about 1.2 km), so that droplets run long paths and water pools.
 */
export function benchTerrain(size) {
  const h = new Float32Array(size * size);
  const t = 2 * Math.PI;
  for (let y = 0; y < size; y++) {
    const v = y / (size - 1);
    for (let x = 0; x < size; x++) {
      const u = x / (size - 1);
      h[y * size + x] = 500 * (1 - v) + 300 * (0.5 + 0.5 * Math.sin(t * 1.5 * u) * Math.cos(t * 1.2 * v))
        + 120 * Math.sin(t * (3.1 * u + 2.3 * v)) + 40 * Math.sin(t * (7.7 * u - 5.3 * v)) + 8 * Math.sin(t * (23 * u + 19 * v));
    }
  }
  return h;
}

const POS = (s) => Number.isInteger(s) && s > 0;

/** The cases of a `cases=` parameter, checked: a list of `{kind, size, drops, batch, steps}`. */
export function parseBenchCases(text) {
  return text.split(',').map((c) => {
    const [kind, ...rest] = c.trim().split(':');
    // A droplet case's BATCH may be `auto`.
    const auto = kind === 'droplets' && rest[2] === 'auto';
    const n = rest.map((v, i) => (auto && i === 2 ? 1 : Number(v)));
    const bad = (what) => new Error(`bench case "${c}": ${what}`);
    const want = { droplets: 4, pipe: 2, live: 3 }[kind];
    if (!want) throw bad('the kind must be droplets, pipe or live');
    if (n.length !== want || !n.every(POS)) {
      throw bad(`give ${want} positive integers after the kind${kind === 'droplets' ? ' (BATCH may be auto)' : ''}`);
    }
    const [size] = n;
    if (size < 16 || size > 8192) throw bad('the size must be 16…8192 cells');
    if (kind === 'droplets') return { kind, size, drops: n[1], batch: auto ? 'auto' : n[2], steps: n[3] };
    if (kind === 'pipe') return { kind, size, drops: 0, batch: 0, steps: n[1] };
    return { kind, size, drops: n[1], batch: 'auto', steps: n[2] };
  });
}

const idle = (device) => unlessLost(device, device.queue.onSubmittedWorkDone());

/**
 * Runs one case on `device` (drawing into `canvas` for `live`); resolves to its report row:
 * `{case, size, drops, batch, steps, seconds, steps_per_s, ms_per_step, droplets_per_s}`.
 */
export async function benchCase(device, canvas, c) {
  const cell = BENCH_EXTENT_M / c.size;
  const start = { profile: 'bench', seed: 0, size: c.size, heights: benchTerrain(c.size), cell };
  const lab = await ErosionLab.create(device, start, { batch: c.batch || 'auto' });
  let view = null;
  try {
    const mid = c.size >> 1;
    const r = Math.min(256, Math.max(1, c.size >> 3));
    let run;
    if (c.kind === 'droplets') {
      run = (i) => lab.droplets(1 + i, c.drops);
    } else if (c.kind === 'pipe') {
      run = () => lab.rain(mid, mid, r, 0.02, 1);
    } else {
      view = new LabView(device, canvas, lab);
      lab.rain(mid, mid, r, 0.02, 20);
      run = (i) => {
        lab.step(1 + i, c.drops, 35, 0.2, 2, 4);
        view.draw();
      };
    }
    // Warm-up: the pipelines' first use, the buffers' first touch.
    for (let i = 0; i < 2; i++) run(1000 + i);
    await idle(device);
    const t0 = performance.now();
    for (let i = 0; i < c.steps; i++) {
      run(i);
      if (c.kind === 'live') await idle(device);
    }
    await idle(device);
    const seconds = (performance.now() - t0) / 1000;
    return {
      case: c.kind, size: c.size, drops: c.drops, batch: c.kind === 'pipe' ? null : lab.drops.batch, steps: c.steps, seconds,
      steps_per_s: c.steps / seconds, ms_per_step: (1000 * seconds) / c.steps,
      droplets_per_s: c.drops ? (c.drops * c.steps) / seconds : null,
    };
  } finally {
    view?.destroy();
    lab.destroy();
  }
}

/** All the cases in order; `onRow` sees each row as it is measured. */
export async function benchLab(device, canvas, cases, onRow = () => {}) {
  const rows = [];
  for (const c of cases) {
    const row = await benchCase(device, canvas, c);
    rows.push(row);
    onRow(row);
  }
  return rows;
}

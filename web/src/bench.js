// Benchmark bookkeeping: frame and sort times per grid size, a summary
// table, and the few lines that say where the renderer stops keeping up and
// what gives out first (the sort, the draw calls, or the fill rate).
// The page drives the sweep; this file only counts.

/**
 * The p-th percentile (0..100) by linear interpolation between order
 * statistics; NaN for no values.
 * @param {ArrayLike<number>} values
 * @param {number} p 0..100
 * @returns {number}
 */
export function percentile(values, p) {
  const v = Array.from(values).filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return NaN;
  const pos = (Math.min(100, Math.max(0, p)) / 100) * (v.length - 1);
  const lo = Math.floor(pos), hi = Math.ceil(pos);
  return v[lo] + (v[hi] - v[lo]) * (pos - lo);
}

const mean = (v) => (v.length ? v.reduce((t, x) => t + x, 0) / v.length : 0);

/**
 * @typedef {object} BenchRow
 * @property {number} grid cells per side
 * @property {number} fps 1000 / mean frame time
 * @property {number} p50 frame time percentiles, ms
 * @property {number} p95
 * @property {number} p99
 * @property {number} sortMs mean sort time, ms
 * @property {number} drawCalls mean draw calls per frame
 * @property {number} splats mean splats drawn per frame
 */

/**
 * Collects measurements per grid size (several add() calls for one grid
 * pool their samples).
 */
export class BenchRecorder {
  constructor() {
    /** @type {Map<number, {frameMs: number[], sortMs: number[], drawCalls: number[], splats: number[]}>} */
    this.grids = new Map();
  }

  /**
   * Records measurements for one grid size.
   * @param {number} grid cells per side
   * @param {{frameMs?: number[], sortMs?: number[], drawCalls?: number, splats?: number}} sample
   *   frame and sort times (ms; frames of 0 or less are dropped), draw calls and splats of the view
   */
  add(grid, { frameMs = [], sortMs = [], drawCalls = 0, splats = 0 } = {}) {
    let g = this.grids.get(grid);
    if (!g) { g = { frameMs: [], sortMs: [], drawCalls: [], splats: [] }; this.grids.set(grid, g); }
    for (const f of frameMs) if (f > 0 && Number.isFinite(f)) g.frameMs.push(f);
    for (const s of sortMs) if (s >= 0 && Number.isFinite(s)) g.sortMs.push(s);
    g.drawCalls.push(drawCalls);
    g.splats.push(splats);
  }

  /** Forgets everything. */
  clear() { this.grids.clear(); }

  /**
   * One row per grid, smallest grid first; grids without frames are left out.
   * @returns {BenchRow[]}
   */
  summary() {
    return [...this.grids.entries()]
      .filter(([, g]) => g.frameMs.length)
      .sort((a, b) => a[0] - b[0])
      .map(([grid, g]) => ({
        grid,
        fps: 1000 / mean(g.frameMs),
        p50: percentile(g.frameMs, 50),
        p95: percentile(g.frameMs, 95),
        p99: percentile(g.frameMs, 99),
        sortMs: mean(g.sortMs),
        drawCalls: Math.round(mean(g.drawCalls)),
        splats: Math.round(mean(g.splats)),
      }));
  }
}

/**
 * What a summary says, as lines: "60 fps up to grid X" (the largest grid at
 * ≥ 55 fps), "30 fps up to grid Y" (≥ 28 fps), and the limit, judged from the
 * first row to the last: the sort time grew more than 1.3 × as fast as the
 * frame time → "sorting is the limit"; else more than 200 draw calls at the
 * top → "draw calls are the limit"; else "fill rate is the limit".
 * @param {BenchRow[]} summary rows, smallest grid first
 * @returns {string[]} ["nothing measured"] for no rows
 */
export function report(summary) {
  if (!summary || !summary.length) return ['nothing measured'];
  const lines = [];
  const smooth = summary.filter((r) => r.fps >= 55);
  const usable = summary.filter((r) => r.fps >= 28);
  lines.push(smooth.length ? `60 fps up to grid ${smooth[smooth.length - 1].grid}` : 'never 60 fps');
  lines.push(usable.length ? `30 fps up to grid ${usable[usable.length - 1].grid}` : 'never 30 fps');
  const first = summary[0], last = summary[summary.length - 1];
  const sortGrew = last.sortMs / Math.max(first.sortMs, 0.01);
  const frameGrew = (1000 / last.fps) / Math.max(1000 / first.fps, 0.01);
  if (sortGrew > 1.3 * frameGrew) {
    lines.push('the sort grew faster than the frame: sorting is the limit');
  } else if (last.drawCalls > 200) {
    lines.push(`${last.drawCalls} draw calls at grid ${last.grid}: draw calls are the limit`);
  } else {
    lines.push('frame time grew with the splats drawn: fill rate is the limit');
  }
  return lines;
}

/**
 * A deterministic scripted orbit for measuring: `frames` views per grid,
 * azimuth stepping once round, elevation swinging between 12° and 42°,
 * distance scaled with the grid (n tiles per side).
 * @param {number} n grid cells per side
 * @param {number} frames number of views
 * @returns {Array<{az: number, el: number, dist: number}>} degrees, and tiles
 */
export function sweepCameras(n, frames) {
  const out = [];
  for (let k = 0; k < frames; k++) {
    const t = frames > 1 ? k / frames : 0;
    out.push({
      az: 45 + 360 * t,
      el: 27 + 15 * Math.sin(2 * Math.PI * t),
      dist: Math.max(2, 0.75 * n) * (1 + 0.15 * Math.cos(4 * Math.PI * t)),
    });
  }
  return out;
}

// Droplet erosion on the browser's WebGPU with fixed-point i32 atomics (seed 003's scheme): the
// f32 variant of the native kernel, `droplets.wgsl` beside this file, generated from
// crates/gpu/shaders/droplets.wgsl, exact.wgsl and hash.wgsl by bozkir-gpu
// (crates/gpu/src/browser.rs).
//
// Contract: batches of droplets run against frozen heights, each contribution quantised to
// 2^-20 m and summed with i32 atomics, folded between batches; the f32 arithmetic is the f64
// kernel's, operation for operation, correctly rounded. So the result (heights, wear, deposit,
// stats) equals bozkir_gpu::browser::droplets_f32_reference (the CPU) and the native wgpu run of
// the same module bit for bit (web/tests/browser/webgpu.test.mjs, crates/gpu/tests/browser.rs).
// It is not the f64 kernel's run: the droplets start from 24-bit uniforms, and f32 heights
// carry about 7 digits. Past the fixed-point range (one erosion of 1024 m, a batch sum of
// 1024 m in a cell) the run stops with an error.

import { Buffers, bind, checkDevice, groups, pipelines, submitAndRead, upload } from './device.js';

const isU32 = (v) => Number.isInteger(v) && v >= 0 && v <= 0xffffffff;
const OVERFLOW = 'droplets: past the fixed-point range (one erosion of 1024 m, a droplet carrying 2048 m, or a cell\'s batch sum of 1024 m)';

/**
 * The droplet parameters of the native `DropletParams::default()` (seed 001 §4.1's values):
 * lifetime 30 steps, inertia 0.05, capacity 1, min slope 0.01, erode 0.1, deposit 0.3,
 * evaporation 0.01, gravity 1, water and speed 1 at the start, brush radius 3 cells, batches of
 * 1024 droplets.
 */
export const DROPLET_DEFAULTS = Object.freeze({
  lifetime: 30, inertia: 0.05, capacity: 1, minSlope: 0.01, erode: 0.1, deposit: 0.3, evaporation: 0.01,
  gravity: 1, initialWater: 1, initialSpeed: 1, radius: 3, batchSize: 1024,
});

/**
 * The largest batch the kernels take on `cells` cells: one droplet to every 64 cells (the native
 * `effective_batch`'s cap), the erosion page's default batch ("auto").
 */
export function autoBatch(cells) {
  return Math.max(1, Math.floor(cells / 64));
}

/**
 * Droplets a batch for a batch setting (`'auto'`, or a whole number 1…4194304 that the cap of
 * `autoBatch` still bounds) on `cells` cells, as `bozkir lab --batch` reads it.
 */
export function batchFor(setting, cells) {
  if (setting === 'auto') return autoBatch(cells);
  const n = Number(setting);
  if (!(Number.isInteger(n) && n >= 1 && n <= 4194304)) throw new Error(`droplets: batch "${setting}" must be auto or a whole number 1…4194304`);
  return Math.min(n, autoBatch(cells));
}

/**
 * The kernel's inputs besides the heights for a `width × height` grid of `dx × dy` metre cells
 * and parameters `p` (DROPLET_DEFAULTS' names): `{f, brushW, brushO, rx, ry, lifetime, batch}`,
 * computed as the native `DropletsF32::new` does (f64, then rounded to f32).
 */
export function dropletSetup(width, height, dx, dy, p = DROPLET_DEFAULTS) {
  const step = Math.min(dx, dy);
  const f = new Float32Array([p.inertia, 1 - p.inertia, p.capacity, p.minSlope * step, p.erode, p.deposit,
    1 - p.evaporation, p.gravity, p.initialWater, p.initialSpeed, step, step / dx, step / dy, dx, dy,
    width - 1, height - 1, 0]);
  const rx = Math.ceil((p.radius * step) / dx);
  const ry = Math.ceil((p.radius * step) / dy);
  const off = [];
  const wt = [];
  for (let oy = -ry; oy <= ry; oy++) {
    for (let ox = -rx; ox <= rx; ox++) {
      if (ox === 0 && oy === 0) continue;
      const ex = ox * dx;
      const ey = oy * dy;
      const d = Math.sqrt(ex * ex + ey * ey) / step;
      if (d < p.radius) {
        off.push(ox, oy);
        wt.push(p.radius - d);
      }
    }
  }
  off.push(0, 0);
  wt.push(p.radius);
  let total = 0;
  for (const v of wt) total += v;
  const batch = Math.min(p.batchSize, autoBatch(width * height));
  return {
    f, brushW: new Float32Array(wt.map((v) => v / total)), brushO: new Int32Array(off), rx, ry,
    lifetime: p.lifetime, batch,
  };
}

/**
 * The droplet kernel on `device` over a height buffer `heights` (f32, `width × height`,
 * STORAGE | COPY_SRC | COPY_DST) that it erodes in place: buffers made once, runs encoded
 * many times (the live erosion panel) or once (dropletsF32). `setup` is dropletSetup's result.
 */
export class DropletsKernel {
  static async create(device, width, height, heights, setup) {
    checkDevice(device, 'droplets');
    const p = await pipelines(device, 'droplets.wgsl', ['drop', 'next_batch', 'fold']);
    return new DropletsKernel(device, width, height, heights, setup, p);
  }

  constructor(device, width, height, heights, setup, { drop, next_batch: next, fold }) {
    const { f, brushW, brushO, rx, ry, lifetime, batch } = setup;
    const n = width * height;
    if (!(Number.isInteger(width) && Number.isInteger(height) && width >= 2 && height >= 2)) {
      throw new Error(`droplets: bad grid ${width} × ${height} (at least 2 × 2)`);
    }
    if (!(f instanceof Float32Array) || f.length !== 18) throw new Error('droplets: the parameters must be a Float32Array of 18 values');
    if (!isU32(lifetime) || !isU32(batch) || batch < 1) throw new Error('droplets: lifetime must be u32, batch at least 1');
    if (!(brushW instanceof Float32Array) || brushW.length < 1 || !(brushO instanceof Int32Array) || brushO.length !== 2 * brushW.length) {
      throw new Error('droplets: the brush needs weights (Float32Array) and two offsets per weight (Int32Array)');
    }
    if (!(Number.isInteger(rx) && Number.isInteger(ry) && rx >= 0 && ry >= 0)) throw new Error('droplets: bad brush extents');
    Object.assign(this, { device, width, height, n, heights, lifetime, batch, pipes: [drop, next, fold] });
    const S = GPUBufferUsage.STORAGE;
    const SR = S | GPUBufferUsage.COPY_SRC;
    const D = GPUBufferUsage.COPY_DST;
    this.made = new Buffers(device);
    const buf = (size, usage, data) => this.made.make(size, usage, data);
    // Params: 18 f32, then w, h, n, seed, lifetime, total, batch, nbrush (u32), rx, ry (i32),
    // cap, dense (u32); 120 bytes, padded to 128. The fold is dense (every cell, no list).
    this.params = new ArrayBuffer(128);
    new Float32Array(this.params, 0, 18).set(f);
    new Uint32Array(this.params, 72, 8).set([width, height, n, 0, lifetime, 0, batch, brushW.length]);
    new Int32Array(this.params, 104, 2).set([rx, ry]);
    new Uint32Array(this.params, 112, 2).set([1, 1]);
    const st0 = new Uint32Array(16);
    st0[1] = 1;
    this.ub = buf(128, GPUBufferUsage.UNIFORM | D);
    this.h0 = buf(4 * n, S | D);
    this.acc = buf(8 * n, S | D);
    this.epoch = buf(4 * n, S | D);
    this.list = buf(16, S | D);
    this.st = buf(64, SR | D);
    this.st0 = buf(64, GPUBufferUsage.COPY_SRC, st0);
    const bw = buf(4 * brushW.length, S, brushW);
    const bo = buf(4 * brushO.length, S, brushO);
    this.totw = buf(8 * n, SR | D);
    this.totd = buf(8 * n, SR | D);
    this.args = buf(16, S | D);
    this.groups = [
      bind(device, drop, [[0, this.ub], [2, heights], [3, this.acc], [4, this.epoch], [5, this.list], [6, this.st], [7, bw], [8, bo]]),
      bind(device, next, [[0, this.ub], [6, this.st], [10, this.args]]),
      bind(device, fold, [[0, this.ub], [1, this.h0], [2, heights], [3, this.acc], [5, this.list], [6, this.st], [9, this.totw], [11, this.totd]]),
    ];
  }

  /**
   * Writes the uniform of a run of `total` droplets from `seed` and encodes the run into `enc`
   * (submit it before encoding another run: the uniform is written at once). The run starts
   * from the heights as they are when it executes.
   */
  encode(enc, seed, total) {
    if (!isU32(seed) || !isU32(total)) throw new Error('droplets: seed and total must be u32');
    checkDevice(this.device, 'droplets');
    new Uint32Array(this.params, 84, 1)[0] = seed;
    new Uint32Array(this.params, 92, 1)[0] = total;
    this.device.queue.writeBuffer(this.ub, 0, this.params);
    for (const b of [this.acc, this.epoch, this.list, this.totw, this.totd, this.args]) enc.clearBuffer(b);
    enc.copyBufferToBuffer(this.st0, 0, this.st, 0, 64);
    enc.copyBufferToBuffer(this.heights, 0, this.h0, 0, 4 * this.n);
    const [drop, next, fold] = this.pipes;
    const [dgx, dgy] = groups(this.batch);
    const [fgx, fgy] = groups(this.n);
    const pass = enc.beginComputePass();
    for (let b = 0; b < Math.ceil(total / this.batch); b++) {
      pass.setPipeline(drop);
      pass.setBindGroup(0, this.groups[0]);
      pass.dispatchWorkgroups(dgx, dgy);
      pass.setPipeline(next);
      pass.setBindGroup(0, this.groups[1]);
      pass.dispatchWorkgroups(1, 1);
      pass.setPipeline(fold);
      pass.setBindGroup(0, this.groups[2]);
      pass.dispatchWorkgroups(fgx, fgy);
    }
    pass.end();
  }

  /** The stats of the last run from its 64 status bytes (throws on the overflow flag). */
  static stats(bytes) {
    const s = new Uint32Array(bytes);
    if (s[12] & 1) throw new Error(OVERFLOW);
    const u64 = (i) => s[i] + s[i + 1] * 4294967296;
    return { steps: u64(4), eroded: u64(6), deposited: u64(8), lost: u64(10) };
  }

  destroy() {
    this.made.destroy();
  }
}

/**
 * A batched droplet run on `device`. `input`: `width`, `height`, `h0` (Float32Array, row-major),
 * `f` (Float32Array of 18: keep, turn, capacity, min_drop, erode, deposit, dry, gravity, water0,
 * speed0, step, sx, sy, dx, dy, xmax, ymax, 0 — the native `Params`), `seed`, `lifetime`,
 * `total` droplets in batches of `batch`, the brush (`brushW` Float32Array, weights summing to
 * 1 with the centre last; `brushO` Int32Array of (x, y) offsets, `rx`, `ry` its half extents).
 * Returns `{height, wear, deposit, steps, eroded, deposited, lost}` (wear and deposit as
 * BigInt64Array of 2^-20 m units; the stats as numbers of units and steps).
 */
export async function dropletsF32(device, input) {
  const { width, height, h0, seed, total } = input;
  const n = width * height;
  if (!(Number.isInteger(width) && Number.isInteger(height) && width >= 2 && height >= 2)) {
    throw new Error(`droplets: bad grid ${width} × ${height} (at least 2 × 2)`);
  }
  if (!(h0 instanceof Float32Array) || h0.length !== n) throw new Error(`droplets: heights must be a Float32Array of ${n} values`);
  if (!h0.every(Number.isFinite)) throw new Error('droplets: heights must be finite');
  if (![seed, total].every(isU32)) throw new Error('droplets: seed, lifetime and total must be u32, batch at least 1');
  checkDevice(device, 'droplets');
  const hc = upload(device, 4 * n, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST, h0);
  let kernel;
  try {
    kernel = await DropletsKernel.create(device, width, height, hc, input);
    device.pushErrorScope('validation');
    device.pushErrorScope('out-of-memory');
    const enc = device.createCommandEncoder();
    kernel.encode(enc, seed, total);
    const data = await submitAndRead(device, enc, [[hc, 4 * n], [kernel.totw, 8 * n], [kernel.totd, 8 * n], [kernel.st, 64]], 'droplets');
    return {
      height: new Float32Array(data[0]),
      wear: new BigInt64Array(data[1]),
      deposit: new BigInt64Array(data[2]),
      ...DropletsKernel.stats(data[3]),
    };
  } finally {
    kernel?.destroy();
    hc.destroy();
  }
}

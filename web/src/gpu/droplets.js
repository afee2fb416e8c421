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

import { bind as bindOf, checkDevice, groups, pipelines, submitAndRead, upload } from './device.js';

const isU32 = (v) => Number.isInteger(v) && v >= 0 && v <= 0xffffffff;

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
  const { width, height, h0, f, seed, lifetime, total, batch, brushW, brushO, rx, ry } = input;
  const n = width * height;
  if (!(Number.isInteger(width) && Number.isInteger(height) && width >= 2 && height >= 2)) {
    throw new Error(`droplets: bad grid ${width} × ${height} (at least 2 × 2)`);
  }
  if (!(h0 instanceof Float32Array) || h0.length !== n) throw new Error(`droplets: heights must be a Float32Array of ${n} values`);
  if (!h0.every(Number.isFinite)) throw new Error('droplets: heights must be finite');
  if (!(f instanceof Float32Array) || f.length !== 18) throw new Error('droplets: the parameters must be a Float32Array of 18 values');
  if (![seed, lifetime, total].every(isU32) || !isU32(batch) || batch < 1) {
    throw new Error('droplets: seed, lifetime and total must be u32, batch at least 1');
  }
  if (!(brushW instanceof Float32Array) || brushW.length < 1 || !(brushO instanceof Int32Array) || brushO.length !== 2 * brushW.length) {
    throw new Error('droplets: the brush needs weights (Float32Array) and two offsets per weight (Int32Array)');
  }
  if (!(Number.isInteger(rx) && Number.isInteger(ry) && rx >= 0 && ry >= 0)) throw new Error('droplets: bad brush extents');
  checkDevice(device, 'droplets');
  const { drop, next_batch: next, fold } = await pipelines(device, 'droplets.wgsl', ['drop', 'next_batch', 'fold']);
  const S = GPUBufferUsage.STORAGE;
  const SR = S | GPUBufferUsage.COPY_SRC;
  // Params: 18 f32, then w, h, n, seed, lifetime, total, batch, nbrush (u32), rx, ry (i32),
  // cap, dense (u32); 120 bytes, padded to 128. The fold is dense (every cell, no list).
  const pb = new ArrayBuffer(128);
  new Float32Array(pb, 0, 18).set(f);
  new Uint32Array(pb, 72, 8).set([width, height, n, seed, lifetime, total, batch, brushW.length]);
  new Int32Array(pb, 104, 2).set([rx, ry]);
  new Uint32Array(pb, 112, 2).set([1, 1]);
  const st0 = new Uint32Array(16);
  st0[1] = 1;
  const made = [];
  const buf = (size, usage, data) => {
    const b = upload(device, size, usage, data);
    made.push(b);
    return b;
  };
  const ub = buf(128, GPUBufferUsage.UNIFORM, new Uint8Array(pb));
  const bh0 = buf(4 * n, S, h0);
  const hc = buf(4 * n, SR, h0);
  const bacc = buf(8 * n, S);
  const epoch = buf(4 * n, S);
  const list = buf(16, S);
  const st = buf(64, SR, st0);
  const bw = buf(4 * brushW.length, S, brushW);
  const bo = buf(4 * brushO.length, S, brushO);
  const totw = buf(8 * n, SR);
  const totd = buf(8 * n, SR);
  const args = buf(16, S);
  const bind = (pipeline, entries) => bindOf(device, pipeline, entries);
  const bd = bind(drop, [[0, ub], [2, hc], [3, bacc], [4, epoch], [5, list], [6, st], [7, bw], [8, bo]]);
  const bn = bind(next, [[0, ub], [6, st], [10, args]]);
  const bf = bind(fold, [[0, ub], [1, bh0], [2, hc], [3, bacc], [5, list], [6, st], [9, totw], [11, totd]]);
  const batches = Math.ceil(total / batch);
  const [dgx, dgy] = groups(batch);
  const [fgx, fgy] = groups(n);
  device.pushErrorScope('validation');
  device.pushErrorScope('out-of-memory');
  const enc = device.createCommandEncoder();
  const pass = enc.beginComputePass();
  for (let b = 0; b < batches; b++) {
    pass.setPipeline(drop);
    pass.setBindGroup(0, bd);
    pass.dispatchWorkgroups(dgx, dgy);
    pass.setPipeline(next);
    pass.setBindGroup(0, bn);
    pass.dispatchWorkgroups(1, 1);
    pass.setPipeline(fold);
    pass.setBindGroup(0, bf);
    pass.dispatchWorkgroups(fgx, fgy);
  }
  pass.end();
  let data;
  try {
    data = await submitAndRead(device, enc, [[hc, 4 * n], [totw, 8 * n], [totd, 8 * n], [st, 64]], 'droplets');
  } finally {
    for (const b of made) b.destroy();
  }
  const s = new Uint32Array(data[3]);
  if (s[12] & 1) throw new Error('droplets: past the fixed-point range (one erosion of 1024 m, a droplet carrying 2048 m, or a cell\'s batch sum of 1024 m)');
  const u64 = (i) => s[i] + s[i + 1] * 4294967296;
  return {
    height: new Float32Array(data[0]),
    wear: new BigInt64Array(data[1]),
    deposit: new BigInt64Array(data[2]),
    steps: u64(4),
    eroded: u64(6),
    deposited: u64(8),
    lost: u64(10),
  };
}

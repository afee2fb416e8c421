// Thermal erosion (talus relaxation) on the browser's WebGPU: the f32 variant of the native
// kernel, `thermal.wgsl` beside this file, generated from crates/gpu/shaders/thermal.wgsl and
// exact.wgsl by bozkir-gpu (crates/gpu/src/browser.rs).
//
// Contract: the f32 result equals bozkir_gpu::browser::thermal_f32_reference (the CPU) and the
// native wgpu run of the same module bit for bit (web/tests/browser/webgpu.test.mjs,
// crates/gpu/tests/browser.rs). It is not the f64 kernel's result: f32 heights carry about
// 7 digits.

import { bind, checkDevice, groups, pipelines, submitAndRead, upload } from './device.js';

/**
 * The talus table of the kernel: tan(talus)·L then tan(talus + margin)·L over the neighbours
 * NW, N, NE, W, E, SW, S, SE, L the step's length in metres (f64 here, rounded to f32 on upload;
 * Math.tan may differ from the native table in the last bit, so exact comparisons pass the
 * table in).
 */
export function talusTable(talusDeg, marginDeg, dx, dy) {
  const t = Math.tan((talusDeg * Math.PI) / 180);
  const ta = Math.tan(((talusDeg + marginDeg) * Math.PI) / 180);
  const dd = Math.sqrt(dx * dx + dy * dy);
  const dist = [dd, dy, dd, dx, dx, dd, dy, dd];
  return new Float32Array([...dist.map((d) => t * d), ...dist.map((d) => ta * d)]);
}

/**
 * Thermal relaxation of `z` (Float32Array, row-major `width × height`) on `device`:
 * `iterations` Jacobi iterations, each moving `halfRate` of the largest excess over the talus
 * `table` (see talusTable). Returns a new Float32Array; `z` is left as it was.
 */
export async function thermalF32(device, { width, height, z, table, halfRate, iterations }) {
  const n = width * height;
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0)) {
    throw new Error(`thermal: bad grid ${width} × ${height}`);
  }
  if (!(z instanceof Float32Array) || z.length !== n) throw new Error(`thermal: heights must be a Float32Array of ${n} values`);
  if (!(table instanceof Float32Array) || table.length !== 16) throw new Error('thermal: the talus table must be 16 f32 values');
  if (!(halfRate > 0 && halfRate <= 0.5)) throw new Error(`thermal: half the rate must be in (0, 0.5], got ${halfRate}`);
  if (!(Number.isInteger(iterations) && iterations >= 0)) throw new Error(`thermal: bad iteration count ${iterations}`);
  if (iterations === 0) return z.slice();
  checkDevice(device, 'thermal');
  const { weights, relax } = await pipelines(device, 'thermal.wgsl', ['weights', 'relax']);
  const S = GPUBufferUsage.STORAGE;
  const made = [];
  const buf = (size, usage, data) => {
    const b = upload(device, size, usage, data);
    made.push(b);
    return b;
  };
  // Dims: w, h, n, it (u32), half_rate, zero (f32), padded to 32 bytes.
  const dims = new ArrayBuffer(32);
  new Uint32Array(dims, 0, 4).set([width, height, n, 0]);
  new Float32Array(dims, 16, 2).set([halfRate, 0]);
  const uni = buf(32, GPUBufferUsage.UNIFORM, new Uint8Array(dims));
  const tab = buf(64, S, table);
  const za = buf(4 * n, S | GPUBufferUsage.COPY_SRC, z);
  const zb = buf(4 * n, S | GPUBufferUsage.COPY_SRC);
  const wgt = buf(4 * n, S);
  const busy = buf(16, S);
  const bw = [bind(device, weights, [[0, uni], [1, za], [2, wgt], [3, tab], [4, busy]]),
    bind(device, weights, [[0, uni], [1, zb], [2, wgt], [3, tab], [4, busy]])];
  const br = [bind(device, relax, [[0, uni], [1, za], [3, tab], [5, wgt], [6, zb]]),
    bind(device, relax, [[0, uni], [1, zb], [3, tab], [5, wgt], [6, za]])];
  const [gx, gy] = groups(n);
  device.pushErrorScope('validation');
  device.pushErrorScope('out-of-memory');
  const enc = device.createCommandEncoder();
  const pass = enc.beginComputePass();
  for (let it = 0; it < iterations; it++) {
    pass.setPipeline(weights);
    pass.setBindGroup(0, bw[it % 2]);
    pass.dispatchWorkgroups(gx, gy);
    pass.setPipeline(relax);
    pass.setBindGroup(0, br[it % 2]);
    pass.dispatchWorkgroups(gx, gy);
  }
  pass.end();
  const out = iterations % 2 === 1 ? zb : za;
  try {
    const [heights] = await submitAndRead(device, enc, [[out, 4 * n]], 'thermal');
    return new Float32Array(heights);
  } finally {
    for (const b of made) b.destroy();
  }
}

// Thermal erosion (talus relaxation) on the browser's WebGPU: the f32 variant of the native
// kernel, `thermal.wgsl` beside this file, generated from crates/gpu/shaders/thermal.wgsl and
// exact.wgsl by bozkir-gpu (crates/gpu/src/browser.rs).
//
// Contract: the f32 result equals bozkir_gpu::browser::thermal_f32_reference (the CPU) and the
// native wgpu run of the same module bit for bit (web/tests/browser/webgpu.test.mjs,
// crates/gpu/tests/browser.rs). It is not the f64 kernel's result: f32 heights carry about
// 7 digits.

import { Buffers, bind, checkDevice, groups, pipelines, submitAndRead, upload } from './device.js';

/**
 * The talus table of the kernel: tan(talus)·L then tan(talus + margin)·L over the neighbours
 * NW, N, NE, W, E, SW, S, SE, L the step's length in metres (f64 here, rounded to f32: the
 * native `thermal_table` bit for bit at the talus angles the erosion page offers).
 */
export function talusTable(talusDeg, marginDeg, dx, dy) {
  // Degrees to radians as Rust's f64::to_radians (times π/180 rounded once), so the table is
  // the native one bit for bit (web/tests/unit/lab-setup.test.mjs).
  const t = Math.tan(talusDeg * (Math.PI / 180));
  const ta = Math.tan((talusDeg + marginDeg) * (Math.PI / 180));
  const dd = Math.sqrt(dx * dx + dy * dy);
  const dist = [dd, dy, dd, dx, dx, dd, dy, dd];
  return new Float32Array([...dist.map((d) => t * d), ...dist.map((d) => ta * d)]);
}

/**
 * The thermal kernel on `device` over a height buffer `heights` (f32, `width × height`,
 * STORAGE | COPY_SRC | COPY_DST) that it relaxes in place: buffers made once, runs encoded many
 * times (the live erosion panel) or once (thermalF32).
 */
export class ThermalKernel {
  static async create(device, width, height, heights) {
    checkDevice(device, 'thermal');
    const p = await pipelines(device, 'thermal.wgsl', ['weights', 'relax']);
    return new ThermalKernel(device, width, height, heights, p);
  }

  constructor(device, width, height, heights, { weights, relax }) {
    if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0)) {
      throw new Error(`thermal: bad grid ${width} × ${height}`);
    }
    const n = width * height;
    Object.assign(this, { device, n, heights, weights, relax });
    const S = GPUBufferUsage.STORAGE;
    const D = GPUBufferUsage.COPY_DST;
    this.made = new Buffers(device);
    const buf = (size, usage) => this.made.make(size, usage);
    // Dims: w, h, n, it (u32), half_rate, zero (f32), padded to 32 bytes.
    this.dims = new ArrayBuffer(32);
    new Uint32Array(this.dims, 0, 4).set([width, height, n, 0]);
    this.uni = buf(32, GPUBufferUsage.UNIFORM | D);
    this.tab = buf(64, S | D);
    this.zb = buf(4 * n, S | GPUBufferUsage.COPY_SRC);
    const wgt = buf(4 * n, S);
    const busy = buf(16, S);
    const za = heights;
    const zb = this.zb;
    const uni = this.uni;
    const tab = this.tab;
    this.bw = [bind(device, weights, [[0, uni], [1, za], [2, wgt], [3, tab], [4, busy]]),
      bind(device, weights, [[0, uni], [1, zb], [2, wgt], [3, tab], [4, busy]])];
    this.br = [bind(device, relax, [[0, uni], [1, za], [3, tab], [5, wgt], [6, zb]]),
      bind(device, relax, [[0, uni], [1, zb], [3, tab], [5, wgt], [6, za]])];
  }

  /**
   * Writes the uniform and table of a run and encodes `iterations` Jacobi iterations into
   * `enc` (submit it before encoding another run); the result is left in the height buffer.
   */
  encode(enc, table, halfRate, iterations) {
    if (!(table instanceof Float32Array) || table.length !== 16) throw new Error('thermal: the talus table must be 16 f32 values');
    if (!(halfRate > 0 && halfRate <= 0.5)) throw new Error(`thermal: half the rate must be in (0, 0.5], got ${halfRate}`);
    if (!(Number.isInteger(iterations) && iterations >= 0)) throw new Error(`thermal: bad iteration count ${iterations}`);
    checkDevice(this.device, 'thermal');
    if (iterations === 0) return;
    new Float32Array(this.dims, 16, 2).set([halfRate, 0]);
    this.device.queue.writeBuffer(this.uni, 0, this.dims);
    this.device.queue.writeBuffer(this.tab, 0, table);
    const [gx, gy] = groups(this.n);
    const pass = enc.beginComputePass();
    for (let it = 0; it < iterations; it++) {
      pass.setPipeline(this.weights);
      pass.setBindGroup(0, this.bw[it % 2]);
      pass.dispatchWorkgroups(gx, gy);
      pass.setPipeline(this.relax);
      pass.setBindGroup(0, this.br[it % 2]);
      pass.dispatchWorkgroups(gx, gy);
    }
    pass.end();
    if (iterations % 2 === 1) enc.copyBufferToBuffer(this.zb, 0, this.heights, 0, 4 * this.n);
  }

  destroy() {
    this.made.destroy();
  }
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
  const za = upload(device, 4 * n, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST, z);
  let kernel;
  try {
    kernel = await ThermalKernel.create(device, width, height, za);
    device.pushErrorScope('validation');
    device.pushErrorScope('out-of-memory');
    const enc = device.createCommandEncoder();
    kernel.encode(enc, table, halfRate, iterations);
    const [heights] = await submitAndRead(device, enc, [[za, 4 * n]], 'thermal');
    return new Float32Array(heights);
  } finally {
    kernel?.destroy();
    za.destroy();
  }
}

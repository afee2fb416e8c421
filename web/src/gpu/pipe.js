// Pipe-model shallow water with hydraulic erosion on the browser's WebGPU: the f32 variant of
// the native kernel, `pipe.wgsl` beside this file, generated from
// crates/gpu/shaders/shallow_water.wgsl and exact.wgsl by bozkir-gpu (crates/gpu/src/browser.rs).
//
// Contract: the native kernel's operations with the terrain in f32 too, every product rounded
// on its own and every quotient and square root corrected to the correctly rounded value; so a
// run equals bozkir_gpu::browser::PipeF32::step_reference (the CPU) and the native wgpu run of
// the same module bit for bit (web/tests/browser/webgpu.test.mjs, crates/gpu/tests/browser.rs).
// Per-cell water increments (`maps`, the rain brush) may change between runs.

import { Buffers, bind, checkDevice, groups, pipelines, submitAndRead, upload } from './device.js';

/**
 * The erosion page's pipe-model parameters (bozkir_gpu::browser::page_pipe_params): the native
 * defaults with open borders, evaporation 0.02 /s, dissolving and deposition at 0.1 /s, no rain
 * but the brush's.
 */
export const PAGE_PIPE = Object.freeze({
  gravity: 9.81, pipeDepth: 1, fluxDamping: 0, capacity: 0.5, dissolve: 0.1, deposit: 0.1, minSinTilt: 0.01,
  evaporation: 0.02, minDepth: 1e-6, open: true,
});

/**
 * The kernel's 128-byte uniform (PipeUniformF32) for a `width × height` grid of `dx × dy` metre
 * cells and parameters `p` (PAGE_PIPE's names), computed as the native `PipeF32::new` does (f64,
 * then rounded to f32), with the per-cell maps in use (`uni` 0). Returns `{uniform, dt, ks}`:
 * the time step (s) and the dissolving factor Ks·Δt each cell's map pairs with its rain.
 */
export function pipeUniform(width, height, dx, dy, p = PAGE_PIPE) {
  const g = p.gravity;
  const hp = p.pipeDepth;
  const stable = Math.SQRT1_2 / (Math.sqrt(g * hp) * Math.sqrt(1 / (dx * dx) + 1 / (dy * dy)));
  const dt = 0.5 * stable;
  const u = new ArrayBuffer(128);
  const f = new Float32Array(u);
  const i = new Uint32Array(u);
  f[0] = dx;
  f[1] = dy;
  i.set([width, height, width * height, p.open ? 1 : 0], 2);
  f.set([dt * g * hp * dy / dx, dt * g * hp * dx / dy, 1 / (1 + p.fluxDamping * dt), dx * dy / dt, dt / (dx * dy),
    0.5 / dy, 0.5 / dx, p.minDepth, 0.5 / dx, 0.5 / dy, p.capacity, p.minSinTilt * p.minSinTilt, p.deposit * dt,
    1 - p.evaporation * dt, dt / dx, dt / dy, width - 1, height - 1, 0], 6);
  i[25] = 0;
  f[26] = 0;
  f[27] = p.dissolve * dt;
  return { uniform: u, dt, ks: f[27] };
}

/**
 * The pipe kernel on `device` over a terrain buffer `heights` (f32, STORAGE | COPY_SRC |
 * COPY_DST) that it erodes in place, with its water, fluxes, velocity and sediment kept between
 * runs. `uniform` is the 128-byte `Sw` (f32 layout: PipeUniformF32), `maps` a Float32Array of
 * (water increment per step, Ks·hardness·Δt) per cell.
 */
export class PipeKernel {
  static async create(device, width, height, heights, uniform, maps) {
    checkDevice(device, 'pipe model');
    if (device.limits.maxStorageBuffersPerShaderStage < 9) {
      throw new Error(`pipe model: this device binds ${device.limits.maxStorageBuffersPerShaderStage} storage buffers per shader stage; the kernel needs 9`);
    }
    const p = await pipelines(device, 'pipe.wgsl', ['sw_flux', 'sw_depth', 'sw_advect']);
    return new PipeKernel(device, width, height, heights, uniform, maps, p);
  }

  constructor(device, width, height, heights, uniform, maps, { sw_flux: flux, sw_depth: depth, sw_advect: advect }) {
    const n = width * height;
    if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0)) {
      throw new Error(`pipe model: bad grid ${width} × ${height}`);
    }
    if (!(uniform instanceof ArrayBuffer) || uniform.byteLength !== 128) throw new Error('pipe model: the uniform must be 128 bytes');
    if (!(maps instanceof Float32Array) || maps.length !== 2 * n) throw new Error(`pipe model: maps must be a Float32Array of ${2 * n} values`);
    Object.assign(this, { device, width, height, n, heights, pipes: [flux, depth, advect] });
    const S = GPUBufferUsage.STORAGE;
    const SRD = S | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    this.made = new Buffers(device);
    const buf = (size, usage, data) => this.made.make(size, usage, data);
    const ub = buf(128, GPUBufferUsage.UNIFORM, new Uint8Array(uniform));
    this.b1 = buf(4 * n, SRD);
    this.d = buf(4 * n, SRD);
    this.flux = buf(16 * n, SRD);
    this.vel = buf(8 * n, SRD);
    this.sAdv = buf(4 * n, SRD);
    const sSrc = buf(4 * n, S);
    this.erdp = buf(8 * n, SRD);
    this.maps = buf(8 * n, S | GPUBufferUsage.COPY_DST, maps);
    const set = (bi, bo) => [
      bind(device, flux, [[0, ub], [1, bi], [3, this.d], [4, this.flux], [9, this.maps]]),
      bind(device, depth, [[0, ub], [1, bi], [2, bo], [3, this.d], [4, this.flux], [5, this.vel], [6, this.sAdv], [7, sSrc], [8, this.erdp], [9, this.maps]]),
      bind(device, advect, [[0, ub], [5, this.vel], [6, sSrc], [7, this.sAdv]]),
    ];
    this.groups = [set(heights, this.b1), set(this.b1, heights)];
  }

  /**
   * Replaces the per-cell (increment, Ks·hardness·Δt) pairs of cells `from` … `to` − 1 (all by
   * default) from the next run on.
   */
  setMaps(maps, from = 0, to = this.n) {
    if (!(maps instanceof Float32Array) || maps.length !== 2 * this.n) throw new Error(`pipe model: maps must be a Float32Array of ${2 * this.n} values`);
    if (!(Number.isInteger(from) && Number.isInteger(to) && from >= 0 && from <= to && to <= this.n)) throw new Error(`pipe model: bad cell range ${from}…${to}`);
    checkDevice(this.device, 'pipe model');
    this.device.queue.writeBuffer(this.maps, 8 * from, maps, 2 * from, 2 * (to - from));
  }

  /** Encodes `steps` steps into `enc`; the terrain ends in the height buffer. */
  encode(enc, steps) {
    if (!(Number.isInteger(steps) && steps >= 0)) throw new Error(`pipe model: bad step count ${steps}`);
    checkDevice(this.device, 'pipe model');
    if (steps === 0) return;
    const [gx, gy] = groups(this.n);
    const pass = enc.beginComputePass();
    for (let s = 0; s < steps; s++) {
      for (let k = 0; k < 3; k++) {
        pass.setPipeline(this.pipes[k]);
        pass.setBindGroup(0, this.groups[s % 2][k]);
        pass.dispatchWorkgroups(gx, gy);
      }
    }
    pass.end();
    if (steps % 2 === 1) enc.copyBufferToBuffer(this.b1, 0, this.heights, 0, 4 * this.n);
  }

  /** Drops the water, fluxes, velocity and sediment (the terrain stays). */
  clear(enc) {
    for (const b of [this.d, this.flux, this.vel, this.sAdv, this.erdp]) enc.clearBuffer(b);
  }

  destroy() {
    this.made.destroy();
  }
}

/**
 * `rainSteps` steps of the pipe model with `maps`, then `drySteps` with no water added, from a
 * dry, sediment-free start on `b` (Float32Array, row-major). Returns `{b, d, s, erdp}`
 * (Float32Arrays; erdp holds (eroded, deposited) pairs).
 */
export async function pipeF32(device, { width, height, uniform, b, maps, rainSteps, drySteps }) {
  const n = width * height;
  if (!(b instanceof Float32Array) || b.length !== n) throw new Error(`pipe model: heights must be a Float32Array of ${n} values`);
  if (!b.every(Number.isFinite)) throw new Error('pipe model: heights must be finite');
  checkDevice(device, 'pipe model');
  const hb = upload(device, 4 * n, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST, b);
  let kernel;
  try {
    kernel = await PipeKernel.create(device, width, height, hb, uniform, maps);
    device.pushErrorScope('validation');
    device.pushErrorScope('out-of-memory');
    let enc = device.createCommandEncoder();
    kernel.encode(enc, rainSteps);
    device.queue.submit([enc.finish()]);
    const dry = maps.slice();
    for (let i = 0; i < n; i++) dry[2 * i] = 0;
    kernel.setMaps(dry);
    enc = device.createCommandEncoder();
    kernel.encode(enc, drySteps);
    const [hOut, d, s, erdp] = await submitAndRead(device, enc, [[hb, 4 * n], [kernel.d, 4 * n], [kernel.sAdv, 4 * n], [kernel.erdp, 8 * n]], 'pipe model');
    return { b: new Float32Array(hOut), d: new Float32Array(d), s: new Float32Array(s), erdp: new Float32Array(erdp) };
  } finally {
    kernel?.destroy();
    hb.destroy();
  }
}

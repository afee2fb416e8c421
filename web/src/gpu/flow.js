// D8 routing and drainage accumulation on the browser's WebGPU: the f32 variant of the native
// kernels, `flow.wgsl` beside this file, generated from crates/gpu/shaders/flow.wgsl,
// rounds.wgsl and roots.wgsl by bozkir-gpu (crates/gpu/src/browser.rs).
//
// Contract: receivers from f32 slopes (h_i − h_j)·(1/d_k) with the native tie-break, then the
// upstream cell counts by two-level pointer jumping: integer sums, exact in any order. So the
// receivers, distances and counts equal bozkir_gpu::browser::d8_f32_reference and
// accumulate_reference (the CPU) and the native wgpu run bit for bit
// (web/tests/browser/webgpu.test.mjs, crates/gpu/tests/browser.rs).

import { Buffers, bind, checkDevice, groups, pipelines, submitAndRead, upload } from './device.js';

/** Rounds at most (flow.wgsl's `rounds.wgsl` reads this many counters). */
const MAX_ROUNDS = 40;
const ACC = ['acc_tile_local', 'roots_args', 'acc_link', 'acc_jump', 'acc_final', 'acc_tile_final'];

/** The table [1/d_k (8), d_k (8)] of the D8 distances (NW, N, NE, W, E, SW, S, SE), in f32. */
export function d8Table(dx, dy) {
  const dd = Math.sqrt(dx * dx + dy * dy);
  const d = [dd, dy, dd, dx, dx, dd, dy, dd];
  return new Float32Array([...d.map((v) => 1 / v), ...d]);
}

/** The pointer-jumping rounds for `n` cells (the bit length of n, plus one; at most 40). */
export function jumpRounds(n) {
  return Math.min(32 - Math.clz32(n) + 1, MAX_ROUNDS);
}

/**
 * The routing and accumulation on `device` over a height buffer `heights` (f32, STORAGE): each
 * run routes the heights as they are then and leaves receivers (`rcv`), distances (`dist`) and
 * upstream cell counts (`count`) in its buffers.
 */
export class FlowKernel {
  static async create(device, width, height, heights, dx, dy) {
    checkDevice(device, 'flow');
    if (device.limits.maxStorageBuffersPerShaderStage < 9) {
      throw new Error(`flow: this device binds ${device.limits.maxStorageBuffersPerShaderStage} storage buffers per shader stage; the accumulation needs 9`);
    }
    const p = await pipelines(device, 'flow.wgsl', ['d8', ...ACC]);
    return new FlowKernel(device, width, height, heights, dx, dy, p);
  }

  constructor(device, width, height, heights, dx, dy, p) {
    if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0)) {
      throw new Error(`flow: bad grid ${width} × ${height}`);
    }
    if (!(dx > 0 && dy > 0 && Number.isFinite(dx) && Number.isFinite(dy))) throw new Error(`flow: bad cell size ${dx} × ${dy}`);
    const n = width * height;
    Object.assign(this, { device, width, height, n, p });
    const S = GPUBufferUsage.STORAGE;
    const SR = S | GPUBufferUsage.COPY_SRC;
    const D = GPUBufferUsage.COPY_DST;
    this.made = new Buffers(device);
    const buf = (size, usage, data) => this.made.make(size, usage, data);
    this.rounds = jumpRounds(n);
    const dims = Array.from({ length: this.rounds }, (_, r) => buf(16, GPUBufferUsage.UNIFORM, new Uint32Array([width, height, n, r])));
    const tab = buf(64, S, d8Table(dx, dy));
    this.rcv = buf(4 * n, SR);
    this.dist = buf(4 * n, SR);
    this.count = buf(4 * n, SR);
    const count2 = buf(4 * n, S);
    const p0 = buf(4 * n, S);
    const p1 = buf(4 * n, S);
    const slot = buf(4 * n, S);
    const z0 = buf(4 * n, S);
    this.live = buf(4 * MAX_ROUNDS, S | D);
    const xr = buf(4 * n, S);
    const roots = buf(4 * n, S);
    this.nroots = buf(16, S | D);
    this.ind = buf(16, S | GPUBufferUsage.INDIRECT);
    const b = (name, entries) => bind(device, p[name], entries);
    const list = [11, roots];
    const len = [12, this.nroots];
    const sl = [14, slot];
    const z = [z0, this.count];
    this.route = b('d8', [[0, dims[0]], [1, heights], [2, tab], [3, this.rcv], [4, this.dist]]);
    this.local = b('acc_tile_local', [[0, dims[0]], [3, this.rcv], [6, this.count], [10, xr], list, len, sl]);
    this.args = b('roots_args', [len, [13, this.ind]]);
    this.link = b('acc_link', [[3, this.rcv], [5, this.count], [8, p0], [10, xr], list, len, sl, [15, count2], [17, z[0]]]);
    this.jumps = Array.from({ length: this.rounds }, (_, r) => {
      const a = r % 2;
      const [pp, qq] = a === 0 ? [p0, p1] : [p1, p0];
      return b('acc_jump', [[0, dims[r]], [6, z[a]], [7, pp], [8, qq], [9, this.live], len, [15, count2], [16, z[1 - a]]]);
    });
    this.last = b('acc_final', [[9, this.live], len, [15, count2], [16, z[0]], [17, z[1]]]);
    this.fin = b('acc_tile_final', [[0, dims[0]], [3, this.rcv], [5, count2], [6, this.count], sl]);
  }

  /** Encodes a routing of the heights and the accumulation into `enc`. */
  encode(enc) {
    checkDevice(this.device, 'flow');
    enc.clearBuffer(this.live);
    enc.clearBuffer(this.nroots);
    const { p } = this;
    const tiles = [Math.ceil(this.width / 32), Math.ceil(this.height / 32)];
    const pass = enc.beginComputePass();
    const run = (name, group, size) => {
      pass.setPipeline(p[name]);
      pass.setBindGroup(0, group);
      if (size) pass.dispatchWorkgroups(size[0], size[1]);
      else pass.dispatchWorkgroupsIndirect(this.ind, 0);
    };
    run('d8', this.route, groups(this.n));
    run('acc_tile_local', this.local, tiles);
    run('roots_args', this.args, [1, 1]);
    run('acc_link', this.link, null);
    for (const j of this.jumps) run('acc_jump', j, null);
    run('acc_final', this.last, null);
    run('acc_tile_final', this.fin, tiles);
    pass.end();
  }

  destroy() {
    this.made.destroy();
  }
}

/**
 * D8 receivers, distances and upstream cell counts of `z` (Float32Array, row-major
 * `width × height`, `dx × dy` metre cells): `{rcv (Uint32Array), dist (Float32Array), count
 * (Uint32Array)}`.
 */
export async function flowF32(device, { width, height, z, dx, dy }) {
  const n = width * height;
  if (!(z instanceof Float32Array) || z.length !== n) throw new Error(`flow: heights must be a Float32Array of ${n} values`);
  checkDevice(device, 'flow');
  const hb = upload(device, 4 * n, GPUBufferUsage.STORAGE, z);
  let kernel;
  try {
    kernel = await FlowKernel.create(device, width, height, hb, dx, dy);
    device.pushErrorScope('validation');
    device.pushErrorScope('out-of-memory');
    const enc = device.createCommandEncoder();
    kernel.encode(enc);
    const [rcv, dist, count] = await submitAndRead(device, enc, [[kernel.rcv, 4 * n], [kernel.dist, 4 * n], [kernel.count, 4 * n]], 'flow');
    return { rcv: new Uint32Array(rcv), dist: new Float32Array(dist), count: new Uint32Array(count) };
  } finally {
    kernel?.destroy();
    hb.destroy();
  }
}

// Stable radix sort of 16-bit keys on the browser's WebGPU (`sort.wgsl` beside this file): far to
// near, the order of the viewer's CPU counting sort (sort-worker.js: descending key, ascending
// index among equal keys), for the WebGPU splat path. Integer work only, so the order equals the
// CPU's exactly for the same keys (web/tests/browser/webgpu.test.mjs).

import { Buffers, bind, checkDevice, groups, pipelines, submitAndRead, upload } from './device.js';

/**
 * A sorter of up to `capacity` keys on `device`: `encode(enc, keys, n)` sorts the first `n` of
 * the buffer `keys` (u32, low 16 bits used) with their indices 0…n−1 as values; the order is left
 * in `values` (and the sorted keys in `keysOut`).
 */
export class RadixSort {
  static async create(device, capacity) {
    checkDevice(device, 'sort');
    const p = await pipelines(device, 'sort.wgsl', ['hist', 'scan', 'scatter']);
    return new RadixSort(device, capacity, p);
  }

  constructor(device, capacity, p) {
    if (!(Number.isInteger(capacity) && capacity >= 1 && capacity <= 1 << 28)) throw new Error(`sort: bad capacity ${capacity}`);
    Object.assign(this, { device, capacity, p });
    const S = GPUBufferUsage.STORAGE;
    const SRD = S | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    this.made = new Buffers(device);
    const buf = (size, usage, data) => this.made.make(size, usage, data);
    this.nblocksMax = Math.ceil(capacity / 256);
    this.uniforms = [0, 1].map(() => buf(16, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST));
    this.k1 = buf(4 * capacity, SRD);
    this.keysOut = buf(4 * capacity, SRD);
    this.iota = buf(4 * capacity, S, Uint32Array.from({ length: capacity }, (_, i) => i));
    this.v1 = buf(4 * capacity, SRD);
    this.values = buf(4 * capacity, SRD);
    this.table = buf(4 * 256 * this.nblocksMax, S);
    this.groupsCache = new Map();
  }

  #groups(keys) {
    if (!this.groupsCache.has(keys)) {
      const { p, device } = this;
      // Pass 0: keys → k1 (values from iota → v1); pass 1: k1 → keysOut (v1 → values).
      const sets = [[keys, this.iota, this.k1, this.v1], [this.k1, this.v1, this.keysOut, this.values]].map(([ki, vi, ko, vo], s) => ({
        hist: bind(device, p.hist, [[0, this.uniforms[s]], [1, ki], [5, this.table]]),
        scan: bind(device, p.scan, [[0, this.uniforms[s]], [5, this.table]]),
        scatter: bind(device, p.scatter, [[0, this.uniforms[s]], [1, ki], [2, vi], [3, ko], [4, vo], [5, this.table]]),
      }));
      this.groupsCache.set(keys, sets);
    }
    return this.groupsCache.get(keys);
  }

  encode(enc, keys, n) {
    if (!(Number.isInteger(n) && n >= 0 && n <= this.capacity)) throw new Error(`sort: ${n} keys, capacity ${this.capacity}`);
    checkDevice(this.device, 'sort');
    if (n === 0) return;
    const nblocks = Math.ceil(n / 256);
    for (let s = 0; s < 2; s++) this.device.queue.writeBuffer(this.uniforms[s], 0, new Uint32Array([n, nblocks, 8 * s, 0]));
    const [gx, gy] = groups(n);
    this.#passes(enc, keys, (pass) => pass.dispatchWorkgroups(gx, gy));
  }

  /** The two passes (histogram, scan, scatter each), the blocks dispatched by `blocks(pass)`. */
  #passes(enc, keys, blocks) {
    const sets = this.#groups(keys);
    const pass = enc.beginComputePass();
    for (const set of sets) {
      pass.setPipeline(this.p.hist);
      pass.setBindGroup(0, set.hist);
      blocks(pass);
      pass.setPipeline(this.p.scan);
      pass.setBindGroup(0, set.scan);
      pass.dispatchWorkgroups(1, 1);
      pass.setPipeline(this.p.scatter);
      pass.setBindGroup(0, set.scatter);
      blocks(pass);
    }
    pass.end();
  }

  /**
   * As `encode`, with the count decided on the GPU (the WebGPU splat path: no read-back): the
   * two passes' parameters {n, nblocks, shift, 0} (8 u32s) are copied from `params` at
   * `paramsOffset`, and the block dispatch (x, y, 1) is read from the indirect buffer `dispatch`
   * at `dispatchOffset`, both written by an earlier pass of the same encoder (n ≤ capacity).
   */
  encodeIndirect(enc, keys, params, paramsOffset, dispatch, dispatchOffset) {
    checkDevice(this.device, 'sort');
    for (let s = 0; s < 2; s++) enc.copyBufferToBuffer(params, paramsOffset + 16 * s, this.uniforms[s], 0, 16);
    this.#passes(enc, keys, (pass) => pass.dispatchWorkgroupsIndirect(dispatch, dispatchOffset));
  }

  destroy() {
    this.made.destroy();
  }
}

/** The indices of `keys` (Uint16Array or Uint32Array of 16-bit keys) far to near, on `device`. */
export async function sortKeys(device, keys) {
  const n = keys.length;
  if (n === 0) return new Uint32Array(0);
  if (keys.some((k) => k > 65535 || k < 0)) throw new Error('sort: keys must be 16-bit');
  checkDevice(device, 'sort');
  const kb = upload(device, 4 * n, GPUBufferUsage.STORAGE, Uint32Array.from(keys));
  let s;
  try {
    s = await RadixSort.create(device, n);
    device.pushErrorScope('validation');
    device.pushErrorScope('out-of-memory');
    const enc = device.createCommandEncoder();
    s.encode(enc, kb, n);
    const [order] = await submitAndRead(device, enc, [[s.values, 4 * n]], 'sort');
    return new Uint32Array(order);
  } finally {
    s?.destroy();
    kb.destroy();
  }
}

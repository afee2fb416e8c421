// Thermal erosion (talus relaxation) on the browser's WebGPU: the f32 variant of the native
// kernel, `thermal.wgsl` beside this file, generated from crates/gpu/shaders/thermal.wgsl and
// exact.wgsl by bozkir-gpu (crates/gpu/src/browser.rs).
//
// Contract: the f32 result equals bozkir_gpu::browser::thermal_f32_reference (the CPU) and the
// native wgpu run of the same module bit for bit (web/tests/browser/webgpu.test.mjs,
// crates/gpu/tests/browser.rs). It is not the f64 kernel's result: f32 heights carry about
// 7 digits.

/** Why WebGPU cannot run here, or null when it can (a secure context with an adapter). */
export async function webgpuUnavailable() {
  if (typeof navigator === 'undefined' || !navigator.gpu) {
    return 'this browser has no WebGPU (navigator.gpu is missing; it needs a secure context: https or localhost)';
  }
  try {
    const adapter = await navigator.gpu.requestAdapter();
    return adapter ? null : 'WebGPU found no adapter (no GPU, or the GPU is blocked)';
  } catch (e) {
    return `WebGPU failed to give an adapter: ${e.message || e}`;
  }
}

/** A WebGPU device, or an Error saying why there is none. */
export async function webgpuDevice() {
  const why = await webgpuUnavailable();
  if (why) throw new Error(why);
  const adapter = await navigator.gpu.requestAdapter();
  return adapter.requestDevice();
}

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

/** A buffer of `size` bytes (at least 16) for `usage`, holding `data` (a typed array) if given. */
export function upload(device, size, usage, data) {
  const b = device.createBuffer({ size: Math.max(16, Math.ceil(size / 4) * 4), usage, mappedAtCreation: !!data });
  if (data) {
    new Uint8Array(b.getMappedRange()).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    b.unmap();
  }
  return b;
}

let source = null;
/** The generated module's text (fetched once, beside this file). */
async function moduleSource() {
  if (!source) {
    const r = await fetch(new URL('./thermal.wgsl', import.meta.url));
    if (!r.ok) throw new Error(`thermal.wgsl: HTTP ${r.status}`);
    source = await r.text();
  }
  return source;
}

/** Pipelines compiled once per device. */
const pipelines = new WeakMap();
async function pipelinesFor(device) {
  let p = pipelines.get(device);
  if (!p) {
    const module = device.createShaderModule({ label: 'thermal.wgsl (f32)', code: await moduleSource() });
    const info = await module.getCompilationInfo();
    const errors = info.messages.filter((m) => m.type === 'error');
    if (errors.length) {
      throw new Error(`thermal.wgsl does not compile: ${errors.map((m) => `${m.lineNum}:${m.linePos} ${m.message}`).join('; ')}`);
    }
    const make = (entryPoint) => device.createComputePipelineAsync({ layout: 'auto', compute: { module, entryPoint } });
    p = { weights: await make('weights'), relax: await make('relax') };
    pipelines.set(device, p);
  }
  return p;
}

/** Workgroups (x, y) for `n` threads of 256, as the native `dispatch` lays them out. */
export function groups(n) {
  const g = Math.max(1, Math.ceil(n / 256));
  const x = Math.min(g, 65535);
  return [x, Math.ceil(g / x)];
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
  const { weights, relax } = await pipelinesFor(device);
  const S = GPUBufferUsage.STORAGE;
  const buf = (size, usage, data) => upload(device, size, usage, data);
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
  const bind = (pipeline, entries) => device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: entries.map(([binding, buffer]) => ({ binding, resource: { buffer } })),
  });
  const bw = [bind(weights, [[0, uni], [1, za], [2, wgt], [3, tab], [4, busy]]), bind(weights, [[0, uni], [1, zb], [2, wgt], [3, tab], [4, busy]])];
  const br = [bind(relax, [[0, uni], [1, za], [3, tab], [5, wgt], [6, zb]]), bind(relax, [[0, uni], [1, zb], [3, tab], [5, wgt], [6, za]])];
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
  const read = device.createBuffer({ size: 4 * n, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  enc.copyBufferToBuffer(out, 0, read, 0, 4 * n);
  device.queue.submit([enc.finish()]);
  const oom = await device.popErrorScope();
  const invalid = await device.popErrorScope();
  if (oom || invalid) throw new Error(`thermal on WebGPU failed: ${(oom || invalid).message}`);
  await read.mapAsync(GPUMapMode.READ);
  const result = new Float32Array(read.getMappedRange().slice(0));
  read.unmap();
  for (const b of [uni, tab, za, zb, wgt, busy, read]) b.destroy();
  return result;
}

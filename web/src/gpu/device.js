// What the browser's WebGPU kernels (web/src/gpu/) share: the device, buffers, the generated
// modules' pipelines, the workgroup layout of the native `dispatch`.

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

/** Why each device made by webgpuDevice was lost, once it is. */
const lost = new WeakMap();
/** The adapter of each device made by webgpuDevice. */
const adapters = new WeakMap();

/**
 * A WebGPU device, or an Error saying why there is none. A device lost later (driver reset,
 * out of memory, `destroy()`) makes every kernel call on it an Error saying so; make a new one.
 */
export async function webgpuDevice() {
  const why = await webgpuUnavailable();
  if (why) throw new Error(why);
  const adapter = await navigator.gpu.requestAdapter();
  // The pipe model binds 9 storage buffers (the default limit is 8); large grids want the
  // adapter's largest buffers.
  const want = ['maxStorageBuffersPerShaderStage', 'maxStorageBufferBindingSize', 'maxBufferSize'];
  const requiredLimits = Object.fromEntries(want.map((k) => [k, adapter.limits[k]]));
  const device = await adapter.requestDevice({ requiredLimits });
  // Chromium loses a device whose adapter was garbage-collected ("A valid external Instance
  // reference no longer exists"): each device keeps its adapter alive.
  adapters.set(device, adapter);
  device.lost.then((info) => lost.set(device, info.message || info.reason || 'unknown reason'));
  return device;
}

/**
 * `promise`, or a rejection saying why once `device` is lost first. A lost device's pending work
 * need not ever report (Chromium's "A valid external Instance reference no longer exists" left
 * `onSubmittedWorkDone` and `mapAsync` unsettled on a GPU host): every wait on the GPU goes
 * through this, so a lost device ends the wait with its reason instead of hanging the page.
 */
export function unlessLost(device, promise) {
  const gone = device.lost.then((info) => {
    throw new Error(`the WebGPU device was lost (${info.message || info.reason || 'unknown reason'})`);
  });
  return Promise.race([promise, gone]);
}

/** Throws when `device` was lost (`what` names the kernel). */
export function checkDevice(device, what) {
  if (lost.has(device)) throw new Error(`${what}: the WebGPU device was lost (${lost.get(device)}); make a new one`);
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

/** The buffers a kernel makes (`make`, as `upload`), destroyed together (`destroy`). */
export class Buffers {
  constructor(device) {
    this.device = device;
    this.list = [];
  }

  make(size, usage, data) {
    const b = upload(this.device, size, usage, data);
    this.list.push(b);
    return b;
  }

  destroy() {
    for (const b of this.list) b.destroy();
    this.list = [];
  }
}

/** A bind group of `pipeline`'s group 0 from `[binding, buffer]` pairs. */
export function bind(device, pipeline, entries) {
  return device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: entries.map(([binding, buffer]) => ({ binding, resource: { buffer } })),
  });
}

/** Workgroups (x, y) for `n` threads of 256, as the native `dispatch` lays them out. */
export function groups(n) {
  const g = Math.max(1, Math.ceil(n / 256));
  const x = Math.min(g, 65535);
  return [x, Math.ceil(g / x)];
}

const sources = new Map();
const compiled = new WeakMap();

/**
 * The compute pipelines `entries` of the generated module `file` (beside this file), compiled
 * once per device; a module that does not compile is an Error naming its lines.
 */
export async function pipelines(device, file, entries) {
  let perDevice = compiled.get(device);
  if (!perDevice) {
    perDevice = new Map();
    compiled.set(device, perDevice);
  }
  if (!perDevice.has(file)) {
    perDevice.set(file, (async () => {
      if (!sources.has(file)) {
        const r = await fetch(new URL(`./${file}`, import.meta.url));
        if (!r.ok) throw new Error(`${file}: HTTP ${r.status}`);
        sources.set(file, await r.text());
      }
      const module = device.createShaderModule({ label: `${file} (f32)`, code: sources.get(file) });
      const info = await module.getCompilationInfo();
      const errors = info.messages.filter((m) => m.type === 'error');
      if (errors.length) {
        throw new Error(`${file} does not compile: ${errors.map((m) => `${m.lineNum}:${m.linePos} ${m.message}`).join('; ')}`);
      }
      const out = {};
      for (const entryPoint of entries) {
        out[entryPoint] = await device.createComputePipelineAsync({ layout: 'auto', compute: { module, entryPoint } });
      }
      return out;
    })());
  }
  return perDevice.get(file);
}

/**
 * Submits `enc` after copying each `[buffer, bytes]` of `reads` into a mappable buffer, checks
 * the device's validation and out-of-memory errors of the work (`what` names it), and returns
 * the copies' contents as ArrayBuffers.
 */
export async function submitAndRead(device, enc, reads, what) {
  const copies = reads.map(([src, size]) => {
    const r = device.createBuffer({ size, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
    enc.copyBufferToBuffer(src, 0, r, 0, size);
    return r;
  });
  device.queue.submit([enc.finish()]);
  const oom = await unlessLost(device, device.popErrorScope());
  const invalid = await unlessLost(device, device.popErrorScope());
  if (oom || invalid) {
    for (const r of copies) r.destroy();
    throw new Error(`${what} on WebGPU failed: ${(oom || invalid).message}`);
  }
  const out = [];
  try {
    for (const r of copies) {
      await unlessLost(device, r.mapAsync(GPUMapMode.READ));
      out.push(r.getMappedRange().slice(0));
      r.unmap();
    }
  } catch (e) {
    // A device lost during the work: no partial result.
    checkDevice(device, what);
    throw new Error(`${what} on WebGPU failed reading back: ${e.message || e}`);
  } finally {
    for (const r of copies) r.destroy();
  }
  return out;
}

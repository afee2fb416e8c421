// The live erosion panel's engine (web/erode.html): one height buffer on the GPU that the
// droplet and thermal kernels (droplets.js, thermal.js) erode in place, run after run, and a
// WebGPU render pipeline that draws it as a shaded mesh straight from that buffer (no read-back
// per frame). Every run is logged; `recipe()` is the `bozkir lab` command that replays the log
// natively with the same f32 kernels' CPU reference and writes the same height PNG16 codes.

import { checkDevice, submitAndRead, upload } from './device.js';
import { DROPLET_DEFAULTS, DropletsKernel, batchFor, dropletSetup } from './droplets.js';
import { ThermalKernel, talusTable } from './thermal.js';
import { PipeKernel, pipeUniform } from './pipe.js';
import { FlowKernel } from './flow.js';
import { cameraBasis, screenRay, viewProjection } from '../camera.js';
import { crc32 } from '../tileset.js';

/** What a recipe's op looks like in the log and on the command line. */
function opText(op) {
  const times = op.repeat > 1 ? `x${op.repeat}` : '';
  if (op.kind === 'droplets') return `droplets:${op.seed}:${op.count}${times}`;
  if (op.kind === 'thermal') return `thermal:${op.talus}:${op.rate}:${op.iterations}`;
  if (op.kind === 'rain') return `rain:${op.cx}:${op.cy}:${op.r}:${op.inc}:${op.steps}`;
  if (op.kind === 'flow') return `flow:${op.steps}`;
  return `steps:${op.seed}:${op.count}:${op.talus}:${op.rate}:${op.iterations}:${op.water}${times}`;
}

/** Whether `op` follows `last` in the log as one more repeat of it. */
function extends_(last, op) {
  if (!last || last.kind !== op.kind) return false;
  if (op.kind === 'thermal') return last.talus === op.talus && last.rate === op.rate;
  if (op.kind === 'flow') return true;
  if (op.kind === 'rain') return last.cx === op.cx && last.cy === op.cy && last.r === op.r && last.inc === op.inc;
  const same = last.count === op.count && last.seed + last.repeat === op.seed;
  return op.kind === 'droplets' ? same
    : same && last.talus === op.talus && last.rate === op.rate && last.iterations === op.iterations && last.water === op.water;
}

/**
 * Erosion on one height grid. `start`: `{profile, seed, size, heights (Float32Array, metres,
 * row 0 north), cell (metres per cell)}` — the terrain `bozkir terrain --profile P --seed S
 * --size N` makes (the page makes the same in WebAssembly). `options.batch`: droplets a batch,
 * `'auto'` (the default: one droplet to every 64 cells, the most the kernel takes, 1024 at 256²
 * and 65 536 at 2048²) or a whole number (seed 001's is 1024), capped as `autoBatch` says. Each
 * batch runs against the heights the last one left, so the batch changes the heights: the
 * recipe line carries it (`bozkir lab --batch`).
 */
export class ErosionLab {
  static async create(device, start, { batch = 'auto' } = {}) {
    const { size, heights, cell } = start;
    const drops = batchFor(batch, size * size);
    if (!(Number.isInteger(size) && size >= 2) || !(heights instanceof Float32Array) || heights.length !== size * size) {
      throw new Error(`erosion lab: heights must be a Float32Array of ${size} × ${size}`);
    }
    if (!(cell > 0 && Number.isFinite(cell))) throw new Error(`erosion lab: bad cell size ${cell}`);
    checkDevice(device, 'erosion lab');
    // The buffers' allocation errors are caught here and said plainly, instead of surfacing
    // later as invalid buffers.
    device.pushErrorScope('out-of-memory');
    device.pushErrorScope('validation');
    let lab = null;
    let thrown = null;
    try {
      lab = await ErosionLab.#make(device, start, drops);
      lab.batchSetting = batch === 'auto' ? 'auto' : Number(batch);
    } catch (e) {
      thrown = e;
    }
    const invalid = await device.popErrorScope();
    const oom = await device.popErrorScope();
    if (thrown) throw thrown;
    if (oom || invalid) {
      lab.destroy();
      throw new Error(oom ? `erosion lab: the GPU has not enough memory for a ${size}² lab (${oom.message})` : `erosion lab: ${invalid.message}`);
    }
    return lab;
  }

  static async #make(device, start, batch) {
    const { size, heights, cell } = start;
    const n = size * size;
    const h = upload(device, 4 * n, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST, heights);
    try {
      const setup = dropletSetup(size, size, cell, cell, { ...DROPLET_DEFAULTS, batchSize: batch });
      const drops = await DropletsKernel.create(device, size, size, h, setup);
      const thermal = await ThermalKernel.create(device, size, size, h);
      const { uniform, ks } = pipeUniform(size, size, cell, cell);
      const maps = new Float32Array(2 * n);
      for (let i = 0; i < n; i++) maps[2 * i + 1] = ks;
      const pipe = await PipeKernel.create(device, size, size, h, uniform, maps);
      const flow = await FlowKernel.create(device, size, size, h, cell, cell);
      return new ErosionLab(device, start, h, drops, thermal, pipe, maps, flow);
    } catch (e) {
      h.destroy();
      throw e;
    }
  }

  constructor(device, start, h, drops, thermal, pipe, maps, flow) {
    Object.assign(this, { device, start, h, drops, thermal, pipe, maps, flow, log: [], size: start.size, batchSetting: 'auto', brush: null, painted: null, wet: false });
  }

  /** Rains `count` droplets drawn from `seed` (one run: batches of the kernel's size). */
  droplets(seed, count) {
    this.#droplets(seed, count);
    this.#log({ kind: 'droplets', seed, count, repeat: 1 });
  }

  /** `iterations` of talus relaxation at `talus` degrees moving `rate` of the excess. */
  thermalRun(talus, rate, iterations) {
    this.#thermal(talus, rate, iterations);
    this.#log({ kind: 'thermal', talus, rate, iterations, repeat: 1 });
  }

  /**
   * One step of the page: `count` droplets from `seed`, `iterations` of thermal, then `water`
   * pipe-model steps without rain (0 while the map is dry).
   */
  step(seed, count, talus, rate, iterations, water = 0) {
    if (!(count > 0) || !(iterations > 0)) {
      if (count > 0) this.droplets(seed, count);
      if (iterations > 0) this.thermalRun(talus, rate, iterations);
      if (water > 0) this.flow(water);
      return;
    }
    this.#thermalChecks(talus, rate);
    this.#droplets(seed, count);
    this.#thermal(talus, rate, iterations);
    this.#pipe(null, water);
    this.#log({ kind: 'steps', seed, count, talus, rate, iterations, water, repeat: 1 });
  }

  /** `steps` pipe-model steps raining `inc` metres a step on the disc of radius `r` cells at (`cx`, `cy`). */
  rain(cx, cy, r, inc, steps) {
    if (!(Number.isInteger(cx) && Number.isInteger(cy) && cx >= 0 && cy >= 0 && cx < this.size && cy < this.size)) {
      throw new Error(`rain: (${cx}, ${cy}) is outside the grid`);
    }
    if (!(Number.isInteger(r) && r >= 1 && r <= 256)) throw new Error(`rain: radius ${r} outside 1…256 cells`);
    if (!(inc > 0 && inc <= 1)) throw new Error(`rain: ${inc} m a step outside (0, 1]`);
    this.#pipe({ cx, cy, r, inc }, steps);
    this.wet = true;
    this.#log({ kind: 'rain', cx, cy, r, inc, steps, repeat: 1 });
  }

  /** `steps` pipe-model steps with no rain. */
  flow(steps) {
    this.#pipe(null, steps);
    this.#log({ kind: 'flow', steps, repeat: 1 });
  }

  #pipe(brush, steps) {
    if (!(Number.isInteger(steps) && steps >= 0 && steps <= 1000000)) throw new Error(`water: bad step count ${steps}`);
    if (steps === 0) return;
    const key = brush ? `${brush.cx},${brush.cy},${brush.r},${brush.inc}` : null;
    if (key !== this.brush) {
      // Only the rows of the old and the new disc change: clear the old, paint the new, upload
      // those rows (not the whole map, every frame the brush moves).
      const n = this.size;
      let [y0, y1] = [n, -1];
      const disc = (b, v) => {
        const lo = Math.max(0, b.cy - b.r);
        const hi = Math.min(n - 1, b.cy + b.r);
        for (let y = lo; y <= hi; y++) {
          for (let x = Math.max(0, b.cx - b.r); x <= Math.min(n - 1, b.cx + b.r); x++) {
            const dx = x - b.cx;
            const dy = y - b.cy;
            if (dx * dx + dy * dy < b.r * b.r) this.maps[2 * (y * n + x)] = v;
          }
        }
        [y0, y1] = [Math.min(y0, lo), Math.max(y1, hi)];
      };
      if (this.painted) disc(this.painted, 0);
      if (brush) disc(brush, Math.fround(brush.inc));
      if (y1 >= y0) this.pipe.setMaps(this.maps, y0 * n, (y1 + 1) * n);
      this.painted = brush;
      this.brush = key;
    }
    const enc = this.device.createCommandEncoder();
    this.pipe.encode(enc, steps);
    this.device.queue.submit([enc.finish()]);
  }

  #droplets(seed, count) {
    const enc = this.device.createCommandEncoder();
    this.drops.encode(enc, seed, count);
    this.device.queue.submit([enc.finish()]);
  }

  #thermalChecks(talus, rate) {
    if (!(talus >= 0 && talus < 90)) throw new Error(`thermal: talus ${talus}° outside [0, 90)`);
    if (!(rate > 0 && rate <= 1)) throw new Error(`thermal: rate ${rate} outside (0, 1]`);
  }

  #thermal(talus, rate, iterations) {
    this.#thermalChecks(talus, rate);
    const enc = this.device.createCommandEncoder();
    const c = this.start.cell;
    this.thermal.encode(enc, talusTable(talus, 0, c, c), rate / 2, iterations);
    this.device.queue.submit([enc.finish()]);
  }

  #log(op) {
    const last = this.log[this.log.length - 1];
    if (extends_(last, op)) {
      if (op.kind === 'thermal') last.iterations += op.iterations;
      else if (op.kind === 'rain' || op.kind === 'flow') last.steps += op.steps;
      else last.repeat++;
    } else {
      this.log.push(op);
    }
  }

  /**
   * Runs the ops of a log (another lab's `log`, e.g. one whose device was lost) on this lab, in
   * order: the kernels are deterministic, so the heights end as they were.
   */
  replay(log) {
    for (const op of log) {
      for (let r = 0; r < (op.kind === 'droplets' || op.kind === 'steps' ? op.repeat : 1); r++) {
        if (op.kind === 'droplets') this.droplets(op.seed + r, op.count);
        else if (op.kind === 'thermal') this.thermalRun(op.talus, op.rate, op.iterations);
        else if (op.kind === 'steps') this.step(op.seed + r, op.count, op.talus, op.rate, op.iterations, op.water);
        else if (op.kind === 'rain') this.rain(op.cx, op.cy, op.r, op.inc, op.steps);
        else if (op.kind === 'flow') this.flow(op.steps);
      }
    }
  }

  /** Droplets rained so far. */
  dropletCount() {
    return this.log.filter((o) => o.kind === 'droplets' || o.kind === 'steps').reduce((s, o) => s + o.count * o.repeat, 0);
  }

  /** Back to the start heights, dry, with an empty log. */
  reset() {
    this.device.queue.writeBuffer(this.h, 0, this.start.heights);
    const enc = this.device.createCommandEncoder();
    this.pipe.clear(enc);
    this.device.queue.submit([enc.finish()]);
    this.log = [];
    this.wet = false;
  }

  /** The ops so far as `bozkir lab --ops`' value ('' when none). */
  ops() {
    return this.log.map(opText).join(',');
  }

  /** The native command that replays this session into `lab-out/`. */
  recipe() {
    const { profile, seed, size } = this.start;
    const ops = this.ops();
    const batch = this.batchSetting === 'auto' ? '' : ` --batch ${this.batchSetting}`;
    return `bozkir lab --profile ${profile} --seed ${seed} --size ${size} --cell-size ${this.start.cell}${batch}${ops ? ` --ops ${ops}` : ''} --out lab-out`;
  }

  /** The heights now (one read-back), a Float32Array. */
  async read() {
    checkDevice(this.device, 'erosion lab');
    if (this.tainted) throw new Error(`erosion lab: the GPU reported an error earlier (${this.tainted}), so the heights may be wrong`);
    this.device.pushErrorScope('validation');
    this.device.pushErrorScope('out-of-memory');
    const [b] = await submitAndRead(this.device, this.device.createCommandEncoder(), [[this.h, 4 * this.size * this.size]], 'erosion lab');
    return new Float32Array(b);
  }

  destroy() {
    this.drops.destroy();
    this.thermal.destroy();
    this.pipe.destroy();
    this.flow.destroy();
    this.h.destroy();
  }
}

/**
 * The height PNG16 of `bozkir lab` (and `bozkir terrain`): codes round((v − lo) · 65535 / (hi −
 * lo)) over the grid's own lowest and highest values, as a 16-bit greyscale PNG. Returns
 * `{png (Uint8Array), lo, hi, codes}`.
 */
export async function heightPng16(heights, width, height) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of heights) {
    if (!Number.isFinite(v)) throw new Error('height PNG16: the heights hold a non-finite value');
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  const codes = new Uint16Array(width * height);
  if (hi > lo) {
    const scale = 65535 / (hi - lo);
    for (let i = 0; i < codes.length; i++) codes[i] = Math.min(65535, Math.max(0, Math.round((heights[i] - lo) * scale)));
  }
  const raw = new Uint8Array(height * (1 + 2 * width));
  for (let y = 0, o = 0; y < height; y++) {
    raw[o++] = 0; // filter: none
    for (let x = 0; x < width; x++, o += 2) {
      const q = codes[y * width + x];
      raw[o] = q >> 8;
      raw[o + 1] = q & 255;
    }
  }
  const zlib = new Uint8Array(await new Response(new Blob([raw]).stream().pipeThrough(new CompressionStream('deflate'))).arrayBuffer());
  const ihdr = new Uint8Array(13);
  const dv = new DataView(ihdr.buffer);
  dv.setUint32(0, width);
  dv.setUint32(4, height);
  ihdr.set([16, 0, 0, 0, 0], 8);
  const png = concat([new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', zlib), chunk('IEND', new Uint8Array(0))]);
  return { png, lo, hi, codes };
}

function chunk(type, data) {
  const out = new Uint8Array(12 + data.length);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  dv.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

function concat(parts) {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

const MESH_WGSL = /* wgsl */ `
struct U {
  vp: mat4x4<f32>,
  w: u32, stride: u32, quads: u32, streams: u32,
  cell: f32, exag: f32, lo: f32, hi: f32,
  sun: vec4<f32>,
};
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read> z: array<f32>;
@group(0) @binding(2) var<storage, read> water: array<f32>;
@group(0) @binding(3) var<storage, read> acc: array<u32>;

struct VOut {
  @builtin(position) pos: vec4<f32>,
  @location(0) n: vec3<f32>,
  @location(1) t: f32,
  @location(2) d: f32,
  @location(3) a: f32,
};

fn at(x: i32, y: i32) -> f32 {
  let m = i32(u.w) - 1;
  return z[u32(clamp(y, 0, m)) * u.w + u32(clamp(x, 0, m))];
}

@vertex fn vs(@builtin(vertex_index) vi: u32) -> VOut {
  let q = vi / 6u;
  let c = vi % 6u;
  let ox = select(0u, 1u, c == 1u || c == 4u || c == 5u);
  let oy = select(0u, 1u, c == 2u || c == 3u || c == 5u);
  let x = i32(min(((q % u.quads) + ox) * u.stride, u.w - 1u));
  let y = i32(min(((q / u.quads) + oy) * u.stride, u.w - 1u));
  let s = i32(u.stride);
  let hz = at(x, y);
  let wd = water[u32(y) * u.w + u32(x)];
  let gx = (at(x + s, y) - at(x - s, y)) / (2.0 * f32(s) * u.cell);
  let gy = (at(x, y - s) - at(x, y + s)) / (2.0 * f32(s) * u.cell);
  let half = 0.5 * f32(u.w - 1u) * u.cell;
  let p = vec4<f32>(f32(x) * u.cell - half, half - f32(y) * u.cell, (hz - u.lo) * u.exag, 1.0);
  var o: VOut;
  let clip = u.vp * p;
  o.pos = vec4<f32>(clip.x + u.sun.w * clip.w, clip.y, 0.5 * (clip.z + clip.w), clip.w);
  o.n = normalize(vec3<f32>(-gx * u.exag, -gy * u.exag, 1.0));
  o.t = clamp((hz - u.lo) / max(u.hi - u.lo, 1e-6), 0.0, 1.0);
  o.d = wd;
  // Drainage: upstream cells past the threshold, on a log scale over three octaves.
  o.a = 0.0;
  if (u.streams > 0u) {
    o.a = clamp((log2(f32(acc[u32(y) * u.w + u32(x)])) - log2(f32(u.streams))) / 3.0, 0.0, 1.0);
  }
  return o;
}

@fragment fn fs(i: VOut) -> @location(0) vec4<f32> {
  let n = normalize(i.n);
  let steep = 1.0 - n.z;
  var col = mix(vec3<f32>(0.36, 0.42, 0.22), vec3<f32>(0.55, 0.50, 0.36), smoothstep(0.15, 0.55, i.t));
  col = mix(col, vec3<f32>(0.47, 0.44, 0.41), smoothstep(0.12, 0.35, steep));
  col = mix(col, vec3<f32>(0.93, 0.94, 0.96), smoothstep(0.78, 0.9, i.t) * (1.0 - smoothstep(0.25, 0.5, steep)));
  // Water from the pipe model: a film darkens the ground, depth turns it blue.
  col = mix(col, col * 0.7, smoothstep(0.001, 0.02, i.d));
  col = mix(col, vec3<f32>(0.16, 0.36, 0.62), smoothstep(0.02, 0.6, i.d));
  col = mix(col, vec3<f32>(0.20, 0.42, 0.70), 0.85 * i.a);
  let lambert = max(dot(n, normalize(u.sun.xyz)), 0.0);
  let sky = 0.35 + 0.25 * n.z;
  return vec4<f32>(col * (0.85 * lambert + sky * vec3<f32>(0.55, 0.62, 0.75)), 1.0);
}
`;

/**
 * The lab's heights drawn on `canvas` by WebGPU: a mesh of at most `maxSide`² vertices whose
 * vertex shader reads the height buffer, shaded by slope, height and a low sun; an orbit camera
 * (`az`, `el`, `dist` as a share of the terrain's width).
 */
export class LabView {
  constructor(device, canvas, lab, { maxSide = 512 } = {}) {
    this.device = device;
    this.canvas = canvas;
    this.lab = lab;
    this.ctx = canvas.getContext('webgpu');
    if (!this.ctx) throw new Error('this canvas has no WebGPU context');
    this.format = navigator.gpu.getPreferredCanvasFormat();
    this.ctx.configure({ device, format: this.format, alphaMode: 'opaque' });
    const module = device.createShaderModule({ label: 'lab mesh', code: MESH_WGSL });
    this.pipeline = device.createRenderPipeline({
      layout: 'auto',
      vertex: { module, entryPoint: 'vs' },
      fragment: { module, entryPoint: 'fs', targets: [{ format: this.format }] },
      primitive: { topology: 'triangle-list' },
      depthStencil: { format: 'depth24plus', depthWriteEnabled: true, depthCompare: 'less' },
    });
    this.ub = device.createBuffer({ size: 128, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    this.group = device.createBindGroup({
      layout: this.pipeline.getBindGroupLayout(0),
      entries: [{ binding: 0, resource: { buffer: this.ub } }, { binding: 1, resource: { buffer: lab.h } }, { binding: 2, resource: { buffer: lab.pipe.d } },
        { binding: 3, resource: { buffer: lab.flow.count } }],
    });
    const w = lab.size;
    this.stride = Math.max(1, Math.ceil((w - 1) / (maxSide - 1)));
    this.quads = Math.ceil((w - 1) / this.stride);
    this.cam = { az: 30, el: 35, dist: 1.6, fov: 45 };
    this.exag = 1;
    /** Draw the drainage (D8 accumulation, routed on the GPU every frame). */
    this.drainage = true;
    const h = lab.start.heights;
    let lo = Infinity;
    let hi = -Infinity;
    for (const v of h) {
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
    Object.assign(this, { lo, hi, depth: null });
  }

  /** Draws one frame (the erosion runs queued before it are drawn). */
  draw() {
    const { device, canvas, lab } = this;
    const W = canvas.width;
    const H = canvas.height;
    if (!this.depth || this.depth.width !== W || this.depth.height !== H) {
      this.depth?.destroy();
      this.depth = device.createTexture({ size: [W, H], format: 'depth24plus', usage: GPUTextureUsage.RENDER_ATTACHMENT });
    }
    const extent = (lab.size - 1) * lab.start.cell;
    const basis = this.basis();
    const u = new ArrayBuffer(128);
    new Float32Array(u, 0, 16).set(viewProjection(basis, W, H, extent * 0.01, extent * 10));
    const streams = this.drainage ? Math.max(50, Math.round((lab.size * lab.size) / 500)) : 0;
    new Uint32Array(u, 64, 4).set([lab.size, this.stride, this.quads, streams]);
    new Float32Array(u, 80, 4).set([lab.start.cell, this.exag, this.lo, this.hi]);
    // w: the view's shift right in clip units (the panel covers the left of wide views).
    new Float32Array(u, 96, 4).set([-0.55, 0.45, 0.5, this.shift()]);
    device.queue.writeBuffer(this.ub, 0, u);
    const enc = device.createCommandEncoder();
    if (this.drainage) lab.flow.encode(enc);
    const pass = enc.beginRenderPass({
      colorAttachments: [{ view: this.ctx.getCurrentTexture().createView(), loadOp: 'clear', storeOp: 'store', clearValue: { r: 0.62, g: 0.72, b: 0.84, a: 1 } }],
      depthStencilAttachment: { view: this.depth.createView(), depthLoadOp: 'clear', depthStoreOp: 'discard', depthClearValue: 1 },
    });
    pass.setPipeline(this.pipeline);
    pass.setBindGroup(0, this.group);
    pass.draw(6 * this.quads * this.quads);
    pass.end();
    device.queue.submit([enc.finish()]);
  }

  /**
   * The grid cell under the pixel (`px`, `py`) of the canvas (CSS pixels scaled to the canvas),
   * marched against the start heights, or null off the terrain.
   */
  pick(px, py) {
    const { lab, canvas } = this;
    const basis = this.basis();
    const { origin, dir } = screenRay(basis, canvas.width, canvas.height, px - 0.5 * this.shift() * canvas.width, py);
    const n = lab.size;
    const c = lab.start.cell;
    const half = 0.5 * (n - 1) * c;
    const h = lab.start.heights;
    const step = 0.5 * c;
    for (let t = 0; t < 8 * n * c; t += step) {
      const x = origin[0] + dir[0] * t;
      const y = origin[1] + dir[1] * t;
      const gx = Math.round((x + half) / c);
      const gy = Math.round((half - y) / c);
      if (gx < 0 || gy < 0 || gx >= n || gy >= n) continue;
      if (origin[2] + dir[2] * t <= (h[gy * n + gx] - this.lo) * this.exag) return { x: gx, y: gy };
    }
    return null;
  }

  /**
   * How far right the view is shifted, in clip units (half the canvas is 1): the width of the
   * page's panel (about 340 CSS pixels), so the terrain sits in the space beside it.
   */
  shift() {
    const w = this.canvas.clientWidth || this.canvas.width;
    return w > 500 ? Math.min(0.4, 340 / w) : 0;
  }

  basis() {
    const extent = (this.lab.size - 1) * this.lab.start.cell;
    const mid = 0.5 * (this.hi - this.lo) * this.exag;
    return cameraBasis({ target: [0, 0, mid], az: this.cam.az, el: this.cam.el, dist: this.cam.dist * extent, fov: this.cam.fov });
  }

  destroy() {
    this.depth?.destroy();
    this.ub.destroy();
  }
}

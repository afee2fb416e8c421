// The splat renderer on WebGPU (`splat.wgsl` beside this file): the same pictures as renderer.js
// (WebGL2, which stays the fallback), with the frame planned on the GPU. Per frame, one command
// buffer and no read-back: a compute pass selects the visible cells and their levels of detail
// (visibleCells' per-cell test and lodFor, on the CPU's lattice heights) and lists their draws
// (cellDraws); a second runs every splat of those draws through SPLAT_VS's maths (survival hash,
// class edge, placement on the ground, projection, colour), appending the survivors with a 16-bit
// depth key; RadixSort (sort.js) orders them far to near; then the far field and one indirect draw
// of every splat instance, whose count the compute pass wrote.
//
// Same interface as Renderer where the page uses it: setTileset(ts), setScene(scene), heightAt,
// resize(renderScale), render(camera, opts) → stats, readPixels() (a promise here), dispose().
// What differs by design: one global depth order of all splats instead of per-tile orders in a
// topological tile order (so `ordering` and the merge threshold change nothing here), and two
// draw calls a frame. stats.splats counts the splats that survived culling, read back a frame or
// more late (asynchronously: the frame loop never waits for the GPU); `onUpdate`, when set, is
// called when they change, for a page that draws only on demand.

import { cameraBasis, viewMat3, focalPx, frustumPlanes } from '../camera.js';
import {
  heightAt as sceneHeight, farStart, bakeAtlas, edgeField, tileLevels, tileInfo, survivalHashes, fitCanvas,
  memoLattice, beginFrame, NEAR, FAR_PLANE,
  farMesh, heightBound, HORIZON_SCALE, NONE,
} from '../render-logic.js';
import { RadixSort } from './sort.js';
import { unlessLost } from './device.js';

const INST_BYTES = 48;
const MAX_INSTANCES = 1 << 22;
const CTL_HEAD = 32;

let source = null;
/** splat.wgsl split at its `//!` markers: {COMMON, COMPUTE, RENDER}. */
async function wgslParts(text = null) {
  if (!source && !text) {
    const r = await fetch(new URL('./splat.wgsl', import.meta.url));
    if (!r.ok) throw new Error(`splat.wgsl: HTTP ${r.status}`);
    source = await r.text();
  }
  const parts = {};
  for (const chunk of (text ?? source).split(/^\/\/! /m).slice(1)) {
    const nl = chunk.indexOf('\n');
    parts[chunk.slice(0, nl).trim()] = chunk.slice(nl + 1);
  }
  return parts;
}

/** x rounded to the nearest half float (the WebGL2 path keeps the edge field in R16F). */
function toHalf(x) {
  if (!Number.isFinite(x) || x === 0) return x;
  const e = Math.max(-14, Math.floor(Math.log2(Math.abs(x))));
  const q = 2 ** (e - 10);
  return Math.round(x / q) * q;
}

/** RGBA8 pixels of an atlas image (ImageData-like, or anything drawImage takes). */
function atlasPixels(img) {
  if (img.data) return { width: img.width, height: img.height, data: new Uint8Array(img.data.buffer, img.data.byteOffset, img.data.byteLength) };
  const c = new OffscreenCanvas(img.width, img.height);
  const g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  const d = g.getImageData(0, 0, img.width, img.height);
  return { width: d.width, height: d.height, data: new Uint8Array(d.data.buffer) };
}

/** The next mip level by a 2 × 2 box (sizes floor(w/2), as GL's generateMipmap). */
function halve({ width, height, data }) {
  const w = Math.max(1, width >> 1), h = Math.max(1, height >> 1);
  const out = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    for (let k = 0; k < 4; k++) {
      const at = (xx, yy) => data[(Math.min(yy, height - 1) * width + Math.min(xx, width - 1)) * 4 + k];
      out[(y * w + x) * 4 + k] = (at(2 * x, 2 * y) + at(2 * x + 1, 2 * y) + at(2 * x, 2 * y + 1) + at(2 * x + 1, 2 * y + 1) + 2) >> 2;
    }
  }
  return { width: w, height: h, data: out };
}

export class SplatRendererGPU {
  /**
   * A renderer on `canvas` (its own: a canvas holds one kind of context), or an Error saying why
   * WebGPU cannot draw here. `wgsl` replaces splat.wgsl's text (the tests draw deliberately
   * wrong variants to show that the pixel comparison catches them). `present: false` draws
   * off screen only: the canvas gets no WebGPU context and each frame stays in the renderer's
   * own target (readPixels reads it) — for benchmarks on hosts whose browser can compute and
   * draw with WebGPU but cannot present to a canvas (the H200 host's headless Chromium).
   * @param {HTMLCanvasElement} canvas
   * @param {{wgsl?: string, present?: boolean}} [o]
   */
  static async create(canvas, { wgsl = null, present = true } = {}) {
    if (typeof navigator === 'undefined' || !navigator.gpu) throw new Error('this browser has no WebGPU (navigator.gpu is missing)');
    const adapter = await navigator.gpu.requestAdapter();
    if (!adapter) throw new Error('WebGPU found no adapter');
    const want = ['maxStorageBufferBindingSize', 'maxBufferSize', 'maxStorageBuffersPerShaderStage'];
    const device = await adapter.requestDevice({ requiredLimits: Object.fromEntries(want.map((k) => [k, adapter.limits[k]])) });
    const ctx = present ? canvas.getContext('webgpu') : null;
    if (present && !ctx) throw new Error('the canvas gave no WebGPU context');
    const r = new SplatRendererGPU(canvas, adapter, device, ctx);
    await r.compile(wgsl);
    return r;
  }

  constructor(canvas, adapter, device, ctx) {
    Object.assign(this, { canvas, adapter, device, ctx });
    const info = adapter.info || {};
    this.gpuName = `WebGPU: ${[info.vendor, info.architecture, info.description].filter(Boolean).join(' ') || 'adapter'}`;
    this.kind = 'webgpu';
    this.renderScale = 1;
    this.lost = null;
    device.lost.then((i) => { this.lost = i.message || i.reason || 'device lost'; });
    // A copy of the frame into the canvas needs the canvas in the target's format.
    ctx?.configure({ device, format: 'rgba8unorm', alphaMode: 'opaque', usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_DST });
    this.ts = null;
    this.scene = null;
    this.sceneDirty = true;
    this.counts = null;
    this.staging = [];
    this.uniform = device.createBuffer({ size: 512, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    this.args = device.createBuffer({ size: 64, usage: GPUBufferUsage.INDIRECT | GPUBufferUsage.COPY_DST | GPUBufferUsage.STORAGE });
    this.sampler = device.createSampler({ magFilter: 'linear', minFilter: 'linear', mipmapFilter: 'linear', addressModeU: 'clamp-to-edge', addressModeV: 'clamp-to-edge' });
  }

  async compile(wgsl) {
    const d = this.device, P = await wgslParts(wgsl);
    const head = `const HORIZON_SCALE: f32 = ${HORIZON_SCALE.toFixed(1)};\n` + P.COMMON;
    const V = GPUShaderStage.VERTEX, F = GPUShaderStage.FRAGMENT, C = GPUShaderStage.COMPUTE;
    this.g0 = d.createBindGroupLayout({ entries: [
      { binding: 0, visibility: V | F | C, buffer: { type: 'uniform' } },
      { binding: 1, visibility: V | F | C, buffer: { type: 'read-only-storage' } },
    ] });
    this.g1c = d.createBindGroupLayout({ entries: [0, 1, 2, 3, 4].map((b) => ({ binding: b, visibility: C, buffer: { type: b === 2 ? 'read-only-storage' : 'storage' } })) });
    this.g1r = d.createBindGroupLayout({ entries: [
      { binding: 0, visibility: V, buffer: { type: 'read-only-storage' } },
      { binding: 1, visibility: V, buffer: { type: 'read-only-storage' } },
      { binding: 2, visibility: F, sampler: { type: 'filtering' } },
      { binding: 3, visibility: F, texture: { sampleType: 'float' } },
    ] });
    const check = async (m, what) => {
      const errs = (await m.getCompilationInfo()).messages.filter((x) => x.type === 'error');
      if (errs.length) throw new Error(`splat.wgsl (${what}) does not compile: ${errs.map((x) => `${x.lineNum}:${x.linePos} ${x.message}`).join('; ')}`);
      return m;
    };
    const cm = await check(d.createShaderModule({ label: 'splat compute', code: head + P.COMPUTE }), 'compute');
    const rm = await check(d.createShaderModule({ label: 'splat render', code: head + P.RENDER }), 'render');
    const cl = d.createPipelineLayout({ bindGroupLayouts: [this.g0, this.g1c] });
    const rl = d.createPipelineLayout({ bindGroupLayouts: [this.g0, this.g1r] });
    this.pipes = {};
    for (const e of ['select_cells', 'args_draws', 'expand', 'args_inst']) {
      this.pipes[e] = await d.createComputePipelineAsync({ layout: cl, compute: { module: cm, entryPoint: e } });
    }
    const blend = { color: { srcFactor: 'one', dstFactor: 'one-minus-src-alpha' }, alpha: { srcFactor: 'one', dstFactor: 'one-minus-src-alpha' } };
    this.pipes.splat = await d.createRenderPipelineAsync({
      layout: rl,
      vertex: { module: rm, entryPoint: 'splat_vs' },
      fragment: { module: rm, entryPoint: 'splat_fs', targets: [{ format: 'rgba8unorm', blend }] },
      primitive: { topology: 'triangle-strip' },
      depthStencil: { format: 'depth24plus', depthWriteEnabled: false, depthCompare: 'always' },
    });
    this.pipes.far = await d.createRenderPipelineAsync({
      layout: rl,
      vertex: { module: rm, entryPoint: 'far_vs', buffers: [{ arrayStride: 8, attributes: [{ shaderLocation: 0, offset: 0, format: 'float32x2' }] }] },
      fragment: { module: rm, entryPoint: 'far_fs', targets: [{ format: 'rgba8unorm' }] },
      primitive: { topology: 'triangle-list' },
      depthStencil: { format: 'depth24plus', depthWriteEnabled: true, depthCompare: 'less' },
    });
    this.sort = await RadixSort.create(d, 256);
  }

  /** Why this renderer declines the scene with these options (null: it draws it). */
  supports() {
    if (this.lost) return `the WebGPU device was lost (${this.lost})`;
    const lim = this.device.limits.maxStorageBufferBindingSize;
    if (this.ts && this.ts.splats.count * 12 * 4 + 64 > lim) return `the tileset's ${this.ts.splats.count} splats pass the GPU's storage buffer limit (${lim} bytes)`;
    if (this.ts && this.ts.tiles.length > 65535) return 'more than 65,535 tiles';
    return null;
  }

  // ------------------------------------------------------------------ data

  setTileset(ts) {
    const S = ts.splats, n = S.count;
    const hashes = survivalHashes(ts);
    // T: 12 floats a splat (position + opacity, scale, quaternion, as the WebGL2 data texture),
    // then the RGBA8 colours and the survival hashes.
    const words = n * 14;
    const T = new Uint32Array(Math.max(4, words));
    const F = new Float32Array(T.buffer);
    for (let i = 0; i < n; i++) {
      F[i * 12] = S.positions[i * 3]; F[i * 12 + 1] = S.positions[i * 3 + 1]; F[i * 12 + 2] = S.positions[i * 3 + 2];
      F[i * 12 + 3] = S.colors[i * 4 + 3] / 255;
      F[i * 12 + 4] = S.scales[i * 3]; F[i * 12 + 5] = S.scales[i * 3 + 1]; F[i * 12 + 6] = S.scales[i * 3 + 2];
      for (let k = 0; k < 4; k++) F[i * 12 + 8 + k] = S.rotations[i * 4 + k];
    }
    T.set(new Uint32Array(Uint8Array.from(S.colors.subarray(0, 4 * n)).buffer), 12 * n);
    T.set(hashes.subarray(0, n), 13 * n);
    this.tOff = { colours: 12 * n, hashes: 13 * n };
    this.tBuf?.destroy();
    this.tBuf = this.upload(T, GPUBufferUsage.STORAGE);
    this.ts = ts;
    this.levelCount = Math.max(1, ...ts.tiles.map((t) => t.levels.length));
    this.maxCount = Math.max(1, ...ts.tiles.map((t) => t.levels[0][1]));
    this.atlas = null;
    this.sceneDirty = true;
  }

  setScene(scene) {
    this.scene = scene;
    const m = Math.min(512, Math.max(32, 2 * scene.n + 1));
    const { v, idx, gridCount } = farMesh(scene.n, m);
    this.farVbo?.destroy();
    this.farIbo?.destroy();
    this.farVbo = this.upload(v, GPUBufferUsage.VERTEX);
    this.farIbo = this.upload(idx, GPUBufferUsage.INDEX);
    this.farIndexCount = idx.length;
    this.farGridCount = gridCount;
    this.lattice = null;
    this.sceneDirty = true;
  }

  upload(data, usage) {
    const b = this.device.createBuffer({ size: Math.max(16, Math.ceil(data.byteLength / 4) * 4), usage, mappedAtCreation: true });
    new Uint8Array(b.getMappedRange()).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    b.unmap();
    return b;
  }

  /** The memoised height function of the scene logic for this detail setting (as Renderer's). */
  frameHeight(detailOn) {
    return memoLattice(this, detailOn);
  }

  heightAt(x, y) {
    return this.scene ? sceneHeight(this.scene, x, y, this.detailOn !== false) : 0;
  }

  /** The atlas (the tileset's, or one baked here), with its mip chain, and the per-tile colour info. */
  buildAtlas() {
    const ts = this.ts;
    let atlas = ts.atlas;
    if (!atlas || !atlas.image || atlas.cols * atlas.rows < ts.tiles.length) atlas = bakeAtlas(ts);
    let level = atlasPixels(atlas.image);
    const levels = Math.min(Math.max(0, Math.floor(Math.log2(atlas.res)) - 3), Math.floor(Math.log2(Math.max(level.width, level.height)))) + 1;
    this.atlasTex?.destroy();
    this.atlasTex = this.device.createTexture({
      size: [level.width, level.height], format: 'rgba8unorm', mipLevelCount: levels,
      usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST,
    });
    for (let l = 0; l < levels; l++) {
      if (l) level = halve(level);
      this.device.queue.writeTexture({ texture: this.atlasTex, mipLevel: l }, level.data, { bytesPerRow: level.width * 4 }, [level.width, level.height]);
    }
    const info = tileInfo(ts, atlas, tileLevels(ts.tiles, ts.splats.colors));
    this.atlas = { cols: atlas.cols, rows: atlas.rows, res: atlas.res, info };
  }

  /**
   * S, the scene buffer every stage reads: field texels, cell records, strengths, the edge
   * field, the atlas header and tile ranges, the tile info, and the heights of the half-tile
   * lattice (the CPU's frameHeight: the selection tests the same numbers visibleCells does).
   */
  buildScene(detailOn) {
    const ts = this.ts, scene = this.scene, { n } = scene, C = scene.cells, f = scene.field;
    if (!this.atlas) this.buildAtlas();
    const T = ts.tiles.length;
    const R = ts.tiles.reduce((s, t) => s + t.levels.length, 0);
    const fw = f ? f.width : 1, fh = f ? f.height : 1;
    const M = 2 * n + 1;
    const off = {};
    let at = 0;
    off.field = at; at += 4 * fw * fh;
    off.cells = at; at += 4 * n * n;
    off.strength = at; at += n * n;
    off.edge = at; at += n * n;
    at += 4; off.tiles = at; at += 2 * T + 2 * R;
    off.tinfo = at; at += 12 * T;
    off.lattice = at; at += M * M;
    const U = new Uint32Array(at), F = new Float32Array(U.buffer);
    if (f) {
      for (let k = 0; k < fw * fh; k++) {
        F[off.field + k * 4] = f.z[k]; F[off.field + k * 4 + 1] = f.mask ? f.mask[k] : 0;
        F[off.field + k * 4 + 2] = f.open ? f.open[k] : 0.5; F[off.field + k * 4 + 3] = f.water ? f.water[k] : 0;
      }
    } else {
      F.set([0.5, 0, 0.5, 0], off.field);
    }
    for (let c = 0; c < n * n; c++) {
      const s = Math.min(1, Math.max(0, C.strength ? C.strength[c] : 1));
      const sub = C.sub && C.sub[c] ? 1 : 0;
      U[off.cells + 4 * c] = (C.tile[c] & 0xffff) | ((C.cls ? C.cls[c] : 0) << 16) | (sub << 23) | (Math.round(255 * s) << 24);
      U[off.cells + 4 * c + 1] = C.alt ? C.alt[c] >>> 0 : NONE;
      U[off.cells + 4 * c + 2] = C.ownT ? C.ownT[c] >>> 0 : NONE;
      U[off.cells + 4 * c + 3] = C.altT ? C.altT[c] >>> 0 : NONE;
      F[off.strength + c] = C.strength ? C.strength[c] : 1;
    }
    const ef = C.cls ? edgeField(C.cls, C.strength, n) : new Float32Array(n * n).fill(1);
    for (let c = 0; c < n * n; c++) F[off.edge + c] = toHalf(ef[c]);
    F[off.tiles - 4] = this.atlas.res; F[off.tiles - 3] = this.atlas.cols; F[off.tiles - 2] = this.atlas.rows; U[off.tiles - 1] = T;
    let r = 0;
    ts.tiles.forEach((t, k) => {
      U[off.tiles + 2 * k] = r; U[off.tiles + 2 * k + 1] = t.levels.length;
      for (const [start, count] of t.levels) { U[off.tiles + 2 * T + 2 * r] = start; U[off.tiles + 2 * T + 2 * r + 1] = count; r++; }
    });
    F.set(this.atlas.info, off.tinfo);
    const hf = this.frameHeight(detailOn);
    const a = ((scene.angleDeg ?? 0) * Math.PI) / 180, ca = Math.cos(a), sa = Math.sin(a), s = 2 / scene.tile;
    for (let iv = 0; iv < M; iv++) for (let iu = 0; iu < M; iu++) {
      const lx = (iu - n) / s, ly = (n - iv) / s;
      F[off.lattice + iv * M + iu] = hf(ca * lx - sa * ly, sa * lx + ca * ly);
    }
    this.sBuf?.destroy();
    this.sBuf = this.upload(U, GPUBufferUsage.STORAGE);
    this.sOff = off;
    // Instances: at most every splat of two tiles at two levels in every cell, capped by memory.
    const lim = this.device.limits.maxStorageBufferBindingSize;
    const cap = Math.max(256, Math.min(MAX_INSTANCES, Math.floor(lim / INST_BYTES), n * n * 4 * this.maxCount));
    if (!this.instBuf || this.instCap !== cap) {
      this.instBuf?.destroy(); this.keyBuf?.destroy();
      this.instCap = cap;
      this.instBuf = this.device.createBuffer({ size: cap * INST_BYTES, usage: GPUBufferUsage.STORAGE });
      this.keyBuf = this.device.createBuffer({ size: cap * 4, usage: GPUBufferUsage.STORAGE });
      this.sort.destroy();
      this.sort = new RadixSort(this.device, cap, this.sort.p);
    }
    this.drawCap = 4 * n * n;
    this.drawBuf?.destroy(); this.ctlBuf?.destroy();
    this.drawBuf = this.device.createBuffer({ size: this.drawCap * 32, usage: GPUBufferUsage.STORAGE });
    this.ctlBuf = this.device.createBuffer({ size: (CTL_HEAD + n * n) * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
    const d = this.device;
    this.bg0 = d.createBindGroup({ layout: this.g0, entries: [{ binding: 0, resource: { buffer: this.uniform } }, { binding: 1, resource: { buffer: this.sBuf } }] });
    this.bg1c = d.createBindGroup({ layout: this.g1c, entries: [this.drawBuf, this.ctlBuf, this.tBuf, this.instBuf, this.keyBuf].map((buffer, binding) => ({ binding, resource: { buffer } })) });
    this.bg1r = d.createBindGroup({ layout: this.g1r, entries: [
      { binding: 0, resource: { buffer: this.instBuf } }, { binding: 1, resource: { buffer: this.sort.values } },
      { binding: 2, resource: this.sampler }, { binding: 3, resource: this.atlasTex.createView() },
    ] });
    this.sceneDirty = false;
    this.builtDetail = detailOn;
  }

  // ------------------------------------------------------------------ frame

  resize(renderScale = this.renderScale) {
    this.renderScale = renderScale;
    fitCanvas(this.canvas, renderScale);
  }

  targets(W, H) {
    if (this.target && this.target.width === W && this.target.height === H) return;
    this.target?.destroy(); this.depth?.destroy();
    const U = GPUTextureUsage;
    this.target = this.device.createTexture({ size: [W, H], format: 'rgba8unorm', usage: U.RENDER_ATTACHMENT | U.COPY_SRC });
    this.depth = this.device.createTexture({ size: [W, H], format: 'depth24plus', usage: U.RENDER_ATTACHMENT });
  }

  render(camera, opts = {}) {
    const { t0, o, W, H } = beginFrame(this, opts);
    const d = this.device;
    this.targets(W, H);
    const bg = o.background;
    const stats = { renderer: 'webgpu', drawCalls: 0, splats: 0, cells: 0, scanned: 0, sortMs: 0, cpuMs: 0, logicMs: 0, cycles: 0, farCells: 0, lodCounts: [], merged: 0, groups: 0 };
    const enc = d.createCommandEncoder();
    const ready = this.ts && this.scene;
    if (ready && (this.sceneDirty || this.builtDetail !== !!o.detail)) this.buildScene(!!o.detail);
    const pass = (loadColour) => enc.beginRenderPass({
      colorAttachments: [{ view: this.target.createView(), loadOp: loadColour ? 'load' : 'clear', storeOp: 'store', clearValue: { r: bg[0], g: bg[1], b: bg[2], a: 1 } }],
      depthStencilAttachment: { view: this.depth.createView(), depthLoadOp: loadColour ? 'load' : 'clear', depthStoreOp: 'store', depthClearValue: 1 },
    });
    if (!ready) {
      pass(false).end();
      this.present(enc);
      stats.cpuMs = performance.now() - t0;
      return (this.lastStats = stats);
    }
    const scene = this.scene, n = scene.n, L = this.levelCount;
    const basis = cameraBasis(camera);
    const planes = frustumPlanes(basis, W / H);
    const focal = focalPx(basis.fov, H);
    const farOn = !!o.farField;
    const far = farStart(o.lodBase, L, scene.tile);
    const angleDeg = scene.angleDeg ?? 0;
    const ang = (angleDeg * Math.PI) / 180, ca = Math.cos(ang), sa = Math.sin(ang);
    const fw = basis.forward;
    const spread = (scene.tile / 2) * (Math.abs(ca * fw[0] + sa * fw[1]) + Math.abs(-sa * fw[0] + ca * fw[1]));
    // the depth range of the 16-bit sort keys: to the far start, or past the whole grid
    const reach = Math.hypot(...basis.eye) + Math.SQRT2 * n * scene.tile + heightBound(scene);
    const depthRange = farOn ? far.start : reach;
    const v = viewMat3(basis);
    const u = new Float32Array(128), uu = new Uint32Array(u.buffer);
    u.set([v[0], v[1], v[2], 0, v[3], v[4], v[5], 0, v[6], v[7], v[8], 0], 0);
    u.set([...basis.eye, scene.tile], 12);
    u.set([focal, focal, W, H], 16);
    u.set([scene.field ? scene.field.width : 1, scene.field ? scene.field.height : 1, scene.field ? 1 : 0, scene.amplitude ?? 0], 20);
    u.set([Math.max(1e-6, (scene.reliefScale ?? n) * scene.tile), o.detail && scene.field ? scene.detail ?? 0 : 0, scene.compat === 'canonical' ? 1 : 0, n], 24);
    u.set([ca, sa, o.macro, o.level], 28);
    u.set([scene.field && scene.field.open ? o.shade : 0, o.exposure, o.saturation, o.overlay], 32);
    u.set([bg[0], bg[1], bg[2], (o.fog * 0.03) / scene.tile], 36);
    u.set([farOn ? 1 : 0, far.start, far.band, o.water && scene.field && scene.field.water ? 1 : 0], 40);
    u.set([scene.waterRange ?? 0, o.horizon ? 1 : 0, o.underlay ? 1 : 0, depthRange], 44);
    u.set([NEAR, FAR_PLANE, o.lodBase * scene.tile, spread], 48);
    u.set([fw[0], fw[1], fw[2], L], 52);
    planes.forEach((p, k) => u.set([p.n[0], p.n[1], p.n[2], p.d], 56 + 4 * k));
    const so = this.sOff;
    uu.set([so.field, so.cells, so.strength, so.edge], 76);
    uu.set([so.tiles, so.tinfo, so.lattice, this.tOff.colours], 80);
    uu.set([n * n, this.instCap, this.drawCap, this.tOff.hashes], 84);
    d.queue.writeBuffer(this.uniform, 0, u);
    d.queue.writeBuffer(this.ctlBuf, 0, new Uint32Array(CTL_HEAD));

    // compute: select cells → draws → instances with keys → sort
    let cp = enc.beginComputePass();
    cp.setBindGroup(0, this.bg0);
    cp.setBindGroup(1, this.bg1c);
    cp.setPipeline(this.pipes.select_cells);
    const g = Math.ceil((n * n) / 64), gx = Math.min(g, 65535);
    cp.dispatchWorkgroups(gx, Math.ceil(g / gx));
    cp.setPipeline(this.pipes.args_draws);
    cp.dispatchWorkgroups(1);
    cp.end();
    enc.copyBufferToBuffer(this.ctlBuf, 12 * 4, this.args, 0, 12);
    cp = enc.beginComputePass();
    cp.setBindGroup(0, this.bg0);
    cp.setBindGroup(1, this.bg1c);
    cp.setPipeline(this.pipes.expand);
    cp.dispatchWorkgroupsIndirect(this.args, 0);
    cp.setPipeline(this.pipes.args_inst);
    cp.dispatchWorkgroups(1);
    cp.end();
    enc.copyBufferToBuffer(this.ctlBuf, 8 * 4, this.args, 16, 16);
    enc.copyBufferToBuffer(this.ctlBuf, 16 * 4, this.args, 32, 12);
    this.sort.encodeIndirect(enc, this.keyBuf, this.ctlBuf, 20 * 4, this.args, 32);

    // far field (opaque, depth-tested), then every splat instance far to near, premultiplied
    const rp = pass(false);
    rp.setBindGroup(0, this.bg0);
    rp.setBindGroup(1, this.bg1r);
    if (farOn) {
      rp.setPipeline(this.pipes.far);
      rp.setVertexBuffer(0, this.farVbo);
      rp.setIndexBuffer(this.farIbo, 'uint32');
      rp.drawIndexed(o.horizon ? this.farIndexCount : this.farGridCount);
      stats.drawCalls++;
    }
    rp.setPipeline(this.pipes.splat);
    rp.drawIndirect(this.args, 16);
    stats.drawCalls++;
    rp.end();
    this.readCounts(enc);
    this.present(enc);
    if (this.counts) Object.assign(stats, { splats: this.counts.splats, cells: this.counts.cells, farCells: this.counts.farCells, dropped: this.counts.dropped });
    stats.cpuMs = performance.now() - t0;
    return (this.lastStats = stats);
  }

  /** Copies the frame into the canvas (unless drawing off screen) and submits. */
  present(enc) {
    if (this.ctx) {
      const tex = this.ctx.getCurrentTexture();
      enc.copyTextureToTexture({ texture: this.target }, { texture: tex }, [this.target.width, this.target.height]);
    }
    this.device.queue.submit([enc.finish()]);
    this.pendingMap?.();
    this.pendingMap = null;
  }

  /** The frame's counters into a free staging buffer, mapped once the GPU is done (never awaited here). */
  readCounts(enc) {
    let s = this.staging.find((b) => !b.busy);
    if (!s) {
      if (this.staging.length >= 3) return;
      s = { buf: this.device.createBuffer({ size: 32, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ }), busy: false };
      this.staging.push(s);
    }
    s.busy = true;
    enc.copyBufferToBuffer(this.ctlBuf, 0, s.buf, 0, 32);
    this.pendingMap = () => s.buf.mapAsync(GPUMapMode.READ).then(() => {
      const c = new Uint32Array(s.buf.getMappedRange().slice(0));
      s.buf.unmap();
      s.busy = false;
      const prev = this.counts;
      this.counts = { draws: c[0], splats: Math.min(c[1], this.instCap), cells: c[2], farCells: c[3], dropped: c[4] };
      // The counters arrive after their frame: a page that draws on demand (a still camera) is
      // told once they change, so its status line does not keep the previous frame's (or zeros).
      if (!prev || prev.splats !== this.counts.splats || prev.cells !== this.counts.cells) this.onUpdate?.();
      if (c[4] && !this.warnedDrop) { this.warnedDrop = true; console.warn(`WebGPU splats: ${c[4]} splats past the instance capacity (${this.instCap}) were not drawn`); }
    }, () => { s.busy = false; });
  }

  /** Waits for the GPU's work so far (the benchmark's frame end). */
  finish() {
    return unlessLost(this.device, this.device.queue.onSubmittedWorkDone());
  }

  /** The cells the GPU selected in the last frame: 0 none, else level + 1 (| 0x100 cross-fading). */
  async selection() {
    const n = this.scene.n;
    const b = this.device.createBuffer({ size: n * n * 4, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
    const enc = this.device.createCommandEncoder();
    enc.copyBufferToBuffer(this.ctlBuf, CTL_HEAD * 4, b, 0, n * n * 4);
    this.device.queue.submit([enc.finish()]);
    await unlessLost(this.device, b.mapAsync(GPUMapMode.READ));
    const out = new Uint32Array(b.getMappedRange().slice(0));
    b.destroy();
    return out;
  }

  /** Pixels of the last frame, rows top to bottom (a promise: WebGPU reads back asynchronously). */
  async readPixels() {
    const W = this.target.width, H = this.target.height, row = Math.ceil((W * 4) / 256) * 256;
    const b = this.device.createBuffer({ size: row * H, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
    const enc = this.device.createCommandEncoder();
    enc.copyTextureToBuffer({ texture: this.target }, { buffer: b, bytesPerRow: row }, [W, H]);
    this.device.queue.submit([enc.finish()]);
    await unlessLost(this.device, b.mapAsync(GPUMapMode.READ));
    const raw = new Uint8Array(b.getMappedRange());
    const data = new Uint8Array(W * H * 4);
    for (let y = 0; y < H; y++) data.set(raw.subarray(y * row, y * row + W * 4), y * W * 4);
    b.unmap();
    b.destroy();
    return { width: W, height: H, data };
  }

  dispose() {
    for (const b of [this.tBuf, this.sBuf, this.instBuf, this.keyBuf, this.drawBuf, this.ctlBuf, this.farVbo, this.farIbo, this.uniform, this.args]) b?.destroy();
    for (const s of this.staging) s.buf.destroy();
    this.atlasTex?.destroy(); this.target?.destroy(); this.depth?.destroy();
    this.sort?.destroy();
    this.ts = this.scene = null;
    this.device.destroy();
  }
}

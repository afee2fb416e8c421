// WebGL2 renderer of Gaussian-splat Wang tiles laid over a height field.
//
// The page calls: new Renderer(canvas, {sorter, onUpdate}), setTileset(ts), setScene(scene),
// heightAt(x, y), render(camera, opts) -> stats, readPixels(), resize(), dispose().
// GL calls live in this file (the Renderer and its texture helpers) and gl-util.js (shaders,
// programs, read-back, shared with mesh mode); the scene logic
// (visible cells, LOD, what each cell draws, atlas bake) is pure, in render-logic.js, over
// order.js (tile order) and merge.js (selective merging); sorting is sorter.js / sort-worker.js;
// the camera maths is camera.js, so a WebGPU back end can reuse all of it.
//
// setTileset(ts): ts = {size, tiles: [{levels: [[start, count], ...], ...}], splats: {count,
//   positions, scales, rotations, colors}, hashes: Uint32Array(count) (survival hash of each
//   splat, that of its index within its level range: spreadHashes(ts.tiles, count,
//   wasm.splatHashes(longest range))), atlas?: {image, res, cols, rows, meanRgb?}}.
// setScene(scene): scene = {n, tile, angleDeg, amplitude, reliefScale (both from the wasm
//   Mapping: mapping.amplitude, mapping.reliefScale), detail, field: {width, height, z, mask,
//   open} | null (SceneField planes, row 0 north), cells: {tile: Uint32Array, alt: Uint32Array
//   (0xFFFFFFFF none), ownT: Uint32Array, altT: Uint32Array, mix?: Float32Array (display only),
//   cls: Uint8Array, strength: Float32Array, sub?: Uint8Array}} (c = j·n + i, i east, j south).
//   A splat k of the own tile is drawn when hash ≤ ownT[c], of the alt tile when hash ≤ altT[c]
//   (select.rs). Blend off: alt all NONE, ownT all 0xFFFFFFFF. sub[c] = 1 (subTileEdges): the
//   cell draws both classes' tiles in full and each splat keeps to its class's side of the edge
//   field (shaders.js EDGE_GLSL); the far field picks the tile per pixel the same way.

import { cameraBasis, viewMat3, focalPx, frustumPlanes } from './camera.js';
import {
  heightAt as sceneHeight, planFrame, farStart, cellDraws, cellSlots, groupSlots,
  toTileFrame, key2, bakeAtlas, edgeField, tileLevels, farMesh, NONE,
  tileInfo, survivalHashes, fitCanvas, memoLattice, beginFrame, NEAR, FAR_PLANE,
} from './render-logic.js';
import { SPLAT_VS, SPLAT_FS, FAR_VS, FAR_FS } from './shaders.js';
import { createSorter, SyncSorter } from './sorter.js';
import { depthSort } from './sort-worker.js';
import { program, readPixelsTopDown } from './gl-util.js';

const TEX_W = 2048;

// ===================================================================== gl-util

/** A NEAREST texture from typed data (internal format, format, type), rows of `width`. */
function dataTexture(gl, tex, internal, format, type, width, height, data) {
  tex = tex || gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, tex);
  gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
  gl.texImage2D(gl.TEXTURE_2D, 0, internal, width, height, 0, format, type, data);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
  return tex;
}

/** Pad a per-element array (k components each) to TEX_W-wide rows. */
function padRows(Ctor, src, k, count, texelsPer = 1) {
  const texels = count * texelsPer;
  const rows = Math.max(1, Math.ceil(texels / TEX_W));
  const out = new Ctor(TEX_W * rows * k);
  out.set(src.subarray(0, Math.min(src.length, out.length)));
  return { data: out, rows };
}

// ===================================================================== renderer


export class Renderer {
  /**
   * @param {HTMLCanvasElement} canvas
   * @param {object} [o]
   * @param {import('./sorter.js').Sorter|import('./sorter.js').SyncSorter} [o.sorter] default createSorter();
   *   one that throws or rejects is replaced by a SyncSorter
   * @param {() => void} [o.onUpdate] called when a sort or merged stream lands (ask for a frame)
   */
  constructor(canvas, { sorter = null, onUpdate = null, preserveDrawingBuffer = true } = {}) {
    this.canvas = canvas;
    const gl = canvas.getContext('webgl2', { antialias: false, alpha: false, depth: true, premultipliedAlpha: true, preserveDrawingBuffer });
    if (!gl) throw new Error('WebGL2 is not available');
    this.gl = gl;
    const dbg = gl.getExtension('WEBGL_debug_renderer_info');
    this.gpuName = String((dbg && gl.getParameter(dbg.UNMASKED_RENDERER_WEBGL)) || gl.getParameter(gl.RENDERER));
    this.splatProg = program(gl, SPLAT_VS, SPLAT_FS);
    this.farProg = program(gl, FAR_VS, FAR_FS);
    this.ownSorter = !sorter;
    this.sorter = sorter || createSorter();
    this.onUpdate = onUpdate;
    this.renderScale = 1;

    // splat VAO: a 4-corner strip + per-instance index
    this.quad = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, this.quad);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([-2, -2, 2, -2, -2, 2, 2, 2]), gl.STATIC_DRAW);
    this.splatVao = gl.createVertexArray();
    gl.bindVertexArray(this.splatVao);
    this.locCorner = gl.getAttribLocation(this.splatProg.p, 'aCorner');
    this.locIndex = gl.getAttribLocation(this.splatProg.p, 'aIndex');
    gl.enableVertexAttribArray(this.locCorner);
    gl.vertexAttribPointer(this.locCorner, 2, gl.FLOAT, false, 0, 0);
    gl.enableVertexAttribArray(this.locIndex);
    gl.vertexAttribDivisor(this.locIndex, 1);
    gl.bindVertexArray(null);

    this.orderBuf = gl.createBuffer();
    this.farVao = null;
    this.tex = {};
    this.ts = null;
    this.scene = null;
    this.sortKey = null;
    this.sortPending = false;
    this.sortMs = 0;
    this.streams = new Map(); // group key -> {buf, count} | {pending}
    this.streamDir = null;
    this.mergePending = false;
  }

  // ------------------------------------------------------------------ sorter

  /** Replace a failing sorter by a SyncSorter (same API, in-thread) and hand it the splats. */
  sorterFailed(what, e) {
    if (this.sorter instanceof SyncSorter) { console.warn(`sorter.${what} failed`, e); return; }
    console.warn(`sorter.${what} failed; sorting in-thread (SyncSorter) from now on`, e);
    if (this.ownSorter && this.sorter && typeof this.sorter.terminate === 'function') {
      try { this.sorter.terminate(); } catch { /* already gone */ }
    }
    this.sorter = new SyncSorter();
    this.ownSorter = true;
    if (this.ts) this.sorter.init(this.ts.splats.positions, this.ranges.map(([start, count]) => ({ start, count })));
  }

  /** sorter[what](...args) as a promise; a throw or rejection switches to a SyncSorter and gives null. */
  callSorter(what, ...args) {
    try {
      return Promise.resolve(this.sorter[what](...args)).catch((e) => { this.sorterFailed(what, e); return null; });
    } catch (e) {
      this.sorterFailed(what, e);
      return Promise.resolve(null);
    }
  }

  // ------------------------------------------------------------------ tileset

  setTileset(ts) {
    const gl = this.gl;
    this.ts = ts;
    const S = ts.splats, n = S.count;
    this.levelCount = Math.max(1, ...ts.tiles.map((t) => t.levels.length));
    // data texture: 3 RGBA32F texels per splat
    const d = new Float32Array(n * 12);
    for (let i = 0; i < n; i++) {
      d[i * 12] = S.positions[i * 3]; d[i * 12 + 1] = S.positions[i * 3 + 1]; d[i * 12 + 2] = S.positions[i * 3 + 2];
      d[i * 12 + 3] = S.colors[i * 4 + 3] / 255;
      d[i * 12 + 4] = S.scales[i * 3]; d[i * 12 + 5] = S.scales[i * 3 + 1]; d[i * 12 + 6] = S.scales[i * 3 + 2];
      for (let k = 0; k < 4; k++) d[i * 12 + 8 + k] = S.rotations[i * 4 + k];
    }
    let p = padRows(Float32Array, d, 4, n, 3);
    this.tex.data = dataTexture(gl, this.tex.data, gl.RGBA32F, gl.RGBA, gl.FLOAT, TEX_W, p.rows, p.data);
    p = padRows(Uint8Array, S.colors, 4, n);
    this.tex.colour = dataTexture(gl, this.tex.colour, gl.RGBA8, gl.RGBA, gl.UNSIGNED_BYTE, TEX_W, p.rows, p.data);
    // survival hashes (u32 per splat, compared as uints with the cells' thresholds)
    p = padRows(Uint32Array, survivalHashes(ts), 1, n);
    this.tex.hash = dataTexture(gl, this.tex.hash, gl.R32UI, gl.RED_INTEGER, gl.UNSIGNED_INT, TEX_W, p.rows, p.data);

    // order buffer starts as identity (unsorted) until the first sort
    const ident = new Uint32Array(n);
    for (let i = 0; i < n; i++) ident[i] = i;
    gl.bindBuffer(gl.ARRAY_BUFFER, this.orderBuf);
    gl.bufferData(gl.ARRAY_BUFFER, ident, gl.DYNAMIC_DRAW);
    // ranges: every level of every tile, tile-major; rangeBase[tile] + level indexes them
    this.ranges = [];
    this.rangeBase = [];
    for (const t of ts.tiles) {
      this.rangeBase.push(this.ranges.length);
      for (const r of t.levels) this.ranges.push(r);
    }
    this.callSorter('init', S.positions, this.ranges.map(([start, count]) => ({ start, count })));
    this.sortKey = null;
    this.sortPending = false;
    this.sorted = false;
    this.clearStreams();
    this.atlasReady = false; // built lazily on first far-field frame
  }

  /** Atlas + per-tile info (gain, splat mean); bakes an atlas when the tileset has none. */
  buildAtlas() {
    const gl = this.gl, ts = this.ts;
    let atlas = ts.atlas;
    if (!atlas || !atlas.image || atlas.cols * atlas.rows < ts.tiles.length) atlas = bakeAtlas(ts);
    this.atlas = atlas;
    const tex = this.tex.atlas || gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, tex);
    gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
    gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
    gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
    const img = atlas.image;
    if (img.data) gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, img.width, img.height, 0, gl.RGBA, gl.UNSIGNED_BYTE, img.data);
    else gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, gl.RGBA, gl.UNSIGNED_BYTE, img);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAX_LEVEL, Math.max(0, Math.floor(Math.log2(atlas.res)) - 3));
    gl.generateMipmap(gl.TEXTURE_2D);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR_MIPMAP_LINEAR);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
    this.tex.atlas = tex;
    const T = ts.tiles.length;
    const info = tileInfo(ts, atlas, this.levels());
    this.tex.tileInfo = dataTexture(gl, this.tex.tileInfo, gl.RGBA32F, gl.RGBA, gl.FLOAT, T, 3, info);
    this.atlasReady = true;
  }

  // ------------------------------------------------------------------ scene

  setScene(scene) {
    const gl = this.gl;
    this.scene = scene;
    const { n } = scene;
    const f = scene.field;
    if (f) {
      const d = new Float32Array(f.width * f.height * 4);
      for (let k = 0; k < f.width * f.height; k++) {
        d[k * 4] = f.z[k]; d[k * 4 + 1] = f.mask ? f.mask[k] : 0; d[k * 4 + 2] = f.open ? f.open[k] : 0.5;
        d[k * 4 + 3] = f.water ? f.water[k] : 0; // surface water depth, unit heights (waterField)
      }
      this.tex.field = dataTexture(gl, this.tex.field, gl.RGBA32F, gl.RGBA, gl.FLOAT, f.width, f.height, d);
    } else {
      this.tex.field = dataTexture(gl, this.tex.field, gl.RGBA32F, gl.RGBA, gl.FLOAT, 1, 1, new Float32Array([0.5, 0, 0.5, 0]));
    }
    // cell texture: tile index (16 bit), rule class, strength
    const cd = new Uint8Array(n * n * 4);
    for (let c = 0; c < n * n; c++) {
      const t = scene.cells.tile[c];
      cd[c * 4] = t & 255; cd[c * 4 + 1] = (t >> 8) & 255;
      cd[c * 4 + 2] = scene.cells.cls ? scene.cells.cls[c] : 0;
      cd[c * 4 + 3] = Math.round(255 * Math.min(1, Math.max(0, scene.cells.strength ? scene.cells.strength[c] : 1)));
    }
    this.tex.cells = dataTexture(gl, this.tex.cells, gl.RGBA8, gl.RGBA, gl.UNSIGNED_BYTE, n, n, cd);
    // class edges inside tiles: the other tile of an edge cell, and the signed class field
    // (LINEAR: read between cell centres)
    const C = scene.cells;
    const ad = new Uint8Array(n * n * 4);
    if (C.sub) {
      for (let c = 0; c < n * n; c++) {
        if (!C.sub[c]) continue;
        const a = C.alt[c] >>> 0;
        ad[c * 4] = a & 255; ad[c * 4 + 1] = (a >> 8) & 255; ad[c * 4 + 2] = 255;
      }
    }
    this.tex.altCells = dataTexture(gl, this.tex.altCells, gl.RGBA8, gl.RGBA, gl.UNSIGNED_BYTE, n, n, ad);
    const ef = C.cls ? edgeField(C.cls, C.strength, n) : new Float32Array(n * n).fill(1);
    this.tex.edge = dataTexture(gl, this.tex.edge, gl.R16F, gl.RED, gl.FLOAT, n, n, ef);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR);
    // far mesh: m×m vertices over the grid, in tiles from the grid centre (y north), and the
    // horizon skirt around it (farMesh)
    const m = Math.min(512, Math.max(32, 2 * n + 1));
    const { v, idx, gridCount } = farMesh(n, m);
    if (!this.farVao) {
      this.farVao = gl.createVertexArray();
      this.farVbo = gl.createBuffer();
      this.farIbo = gl.createBuffer();
    }
    gl.bindVertexArray(this.farVao);
    gl.bindBuffer(gl.ARRAY_BUFFER, this.farVbo);
    gl.bufferData(gl.ARRAY_BUFFER, v, gl.STATIC_DRAW);
    const loc = gl.getAttribLocation(this.farProg.p, 'aGrid');
    gl.enableVertexAttribArray(loc);
    gl.vertexAttribPointer(loc, 2, gl.FLOAT, false, 0, 0);
    gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, this.farIbo);
    gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, idx, gl.STATIC_DRAW);
    gl.bindVertexArray(null);
    this.farIndexCount = idx.length;
    this.farGridCount = gridCount;
    this.lattice = null; // heights memoised on the cell lattice, per detail on/off (frameHeight)
    this.clearStreams();
  }

  /** The memoised height function of the scene logic for this detail setting. */
  frameHeight(detailOn) {
    return memoLattice(this, detailOn);
  }

  /** JS twin of the shaders' terrain height (with detail relief). */
  heightAt(x, y) {
    return this.scene ? sceneHeight(this.scene, x, y, this.detailOn !== false) : 0;
  }

  // ------------------------------------------------------------------ frame

  resize(renderScale = this.renderScale) {
    this.renderScale = renderScale;
    fitCanvas(this.canvas, renderScale);
  }

  clearStreams() {
    if (!this.streams) return;
    for (const s of this.streams.values()) if (s.buf) this.gl.deleteBuffer(s.buf);
    this.streams.clear();
  }

  /**
   * Ask for per-tile orders along dirT (tile frame) when it changed at 2 decimals and no sort is
   * in flight. The very first order of a tileset is computed here, synchronously (depthSort of
   * sort-worker.js, the same function the worker runs), so no frame draws unsorted.
   */
  requestSort(dirT, eyeT) {
    const key = key2(dirT);
    if (key === this.sortKey || this.sortPending) return;
    this.sortKey = key;
    const gl = this.gl, ts = this.ts;
    if (!this.sorted) {
      const t0 = performance.now();
      const order = new Uint32Array(ts.splats.count);
      for (const [start, count] of this.ranges) depthSort(ts.splats.positions, start, count, dirT, eyeT, order.subarray(start, start + count));
      gl.bindBuffer(gl.ARRAY_BUFFER, this.orderBuf);
      gl.bufferSubData(gl.ARRAY_BUFFER, 0, order);
      this.sortMs = performance.now() - t0;
      this.sorted = true;
      return;
    }
    this.sortPending = true;
    this.callSorter('sort', dirT, eyeT).then((r) => {
      this.sortPending = false;
      if (this.ts !== ts) return;
      if (!r || !r.orders) { this.sortKey = null; return; } // stale or failed: ask again next frame
      gl.bindBuffer(gl.ARRAY_BUFFER, this.orderBuf);
      r.orders.forEach((o, k) => { if (o) gl.bufferSubData(gl.ARRAY_BUFFER, this.ranges[k][0] * 4, o); });
      this.sortMs = r.ms ?? 0;
      if (this.onUpdate) this.onUpdate();
    });
  }

  /** The tileset's tile levelling gains (tileLevels), computed once per tileset. */
  levels() {
    if (!this.tileLevel || this.tileLevelOf !== this.ts) {
      this.tileLevel = tileLevels(this.ts.tiles, this.ts.splats.colors);
      this.tileLevelOf = this.ts;
    }
    return this.tileLevel;
  }

  render(camera, opts = {}) {
    const { t0, o, W, H } = beginFrame(this, opts);
    const gl = this.gl;
    gl.viewport(0, 0, W, H);
    const bg = o.background;
    gl.clearColor(bg[0], bg[1], bg[2], 1);
    gl.clearDepth(1);
    gl.depthMask(true);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    const stats = { drawCalls: 0, splats: 0, cells: 0, scanned: 0, sortMs: this.sortMs, cpuMs: 0, logicMs: 0, cycles: 0, farCells: 0, lodCounts: [], merged: 0, groups: 0 };
    if (!this.ts || !this.scene) { stats.cpuMs = performance.now() - t0; return (this.lastStats = stats); }
    const ts = this.ts, scene = this.scene, L = this.levelCount, C = scene.cells;
    stats.lodCounts = new Array(L).fill(0);
    const basis = cameraBasis(camera);
    const planes = frustumPlanes(basis, W / H);
    const focal = focalPx(basis.fov, H);
    const farOn = !!o.farField;
    const far = farStart(o.lodBase, L, scene.tile);
    const angleDeg = scene.angleDeg ?? 0;

    // sorting along the view direction, in the tile frame
    const dirT = toTileFrame(basis.forward, angleDeg), eyeT = toTileFrame(basis.eye, angleDeg);
    this.requestSort(dirT, eyeT);

    // scene logic: visible cells, tile order (order.js), merged groups (merge.js)
    const tl = performance.now();
    const plan = planFrame({
      scene, basis, planes, lodBase: o.lodBase, levels: L, far: farOn ? far : null, height: this.frameHeight(!!o.detail),
      ordering: o.ordering, mergeThreshold: o.mergeThreshold, slots: cellSlots(C),
    });
    stats.logicMs = performance.now() - tl;
    const { cells, order } = plan;
    stats.farCells = cells.farCells || 0;
    stats.scanned = cells.scanned || 0;
    stats.cycles = plan.cycles;
    stats.cells = cells.length;

    // shared uniforms
    const ang = (angleDeg * Math.PI) / 180;
    const view = viewMat3(basis);
    const setCommon = (u) => {
      gl.uniformMatrix3fv(u.uView, false, view);
      gl.uniform3fv(u.uEye, basis.eye);
      gl.uniform2f(u.uFocal, focal, focal);
      gl.uniform2f(u.uViewport, W, H);
      gl.uniform2f(u.uFieldSize, scene.field ? scene.field.width : 1, scene.field ? scene.field.height : 1);
      gl.uniform1i(u.uHasField, scene.field ? 1 : 0);
      gl.uniform1f(u.uAmp, scene.amplitude ?? 0);
      gl.uniform1f(u.uReliefExt, Math.max(1e-6, (scene.reliefScale ?? scene.n) * scene.tile));
      gl.uniform1i(u.uCompat, scene.compat === 'canonical' ? 1 : 0);
      gl.uniform1f(u.uDetail, o.detail && scene.field ? scene.detail ?? 0 : 0);
      gl.uniform1f(u.uTile, scene.tile);
      gl.uniform2f(u.uGridRot, Math.cos(ang), Math.sin(ang));
      gl.uniform1f(u.uMacro, o.macro);
      gl.uniform1f(u.uLevel, o.level);
      gl.uniform1f(u.uShade, scene.field && scene.field.open ? o.shade : 0);
      gl.uniform1f(u.uExposure, o.exposure);
      gl.uniform1f(u.uSaturation, o.saturation);
      gl.uniform1f(u.uOverlay, o.overlay);
      gl.uniform1f(u.uFogDensity, (o.fog * 0.03) / scene.tile);
      gl.uniform3fv(u.uFogColour, bg);
      gl.uniform3f(u.uClassColour0, 0.95, 0.62, 0.15);
      gl.uniform3f(u.uClassColour1, 0.15, 0.55, 0.95);
      gl.uniform1f(u.uWaterOn, o.water && scene.field && scene.field.water ? 1 : 0);
      gl.uniform1f(u.uWaterRange, scene.waterRange ?? 0);
      gl.uniform1f(u.uFarOn, farOn ? 1 : 0);
      gl.uniform1f(u.uFarStart, far.start);
      gl.uniform1f(u.uFarBand, far.band);
      gl.activeTexture(gl.TEXTURE0);
      gl.bindTexture(gl.TEXTURE_2D, this.tex.field);
      gl.uniform1i(u.uField, 0);
      gl.uniform1f(u.uGridN, scene.n);
      gl.activeTexture(gl.TEXTURE4);
      gl.bindTexture(gl.TEXTURE_2D, this.tex.edge);
      gl.uniform1i(u.uEdge, 4);
    };

    // ---- far field first, opaque, with depth
    if (farOn) {
      if (!this.atlasReady) this.buildAtlas();
      const { p, u } = this.farProg;
      gl.useProgram(p);
      setCommon(u);
      gl.uniform1f(u.uNear, NEAR);
      gl.uniform1f(u.uFarPlane, FAR_PLANE);
      gl.uniform2f(u.uAtlasGrid, this.atlas.cols, this.atlas.rows);
      gl.uniform1f(u.uAtlasRes, this.atlas.res);
      gl.activeTexture(gl.TEXTURE1); gl.bindTexture(gl.TEXTURE_2D, this.tex.atlas); gl.uniform1i(u.uAtlas, 1);
      gl.activeTexture(gl.TEXTURE2); gl.bindTexture(gl.TEXTURE_2D, this.tex.cells); gl.uniform1i(u.uCells, 2);
      gl.activeTexture(gl.TEXTURE3); gl.bindTexture(gl.TEXTURE_2D, this.tex.tileInfo); gl.uniform1i(u.uTileInfo, 3);
      gl.activeTexture(gl.TEXTURE5); gl.bindTexture(gl.TEXTURE_2D, this.tex.altCells); gl.uniform1i(u.uAltCells, 5);
      gl.enable(gl.DEPTH_TEST);
      gl.depthFunc(gl.LESS);
      gl.disable(gl.BLEND);
      gl.bindVertexArray(this.farVao);
      gl.uniform1f(u.uHorizon, o.horizon ? 1 : 0);
      gl.uniform1f(u.uUnderlay, o.underlay ? 1 : 0);
      gl.drawElements(gl.TRIANGLES, o.horizon ? this.farIndexCount : this.farGridCount, gl.UNSIGNED_INT, 0);
      stats.drawCalls++;
    }

    // ---- splats: no depth test, premultiplied, far -> near
    const { p, u } = this.splatProg;
    gl.useProgram(p);
    setCommon(u);
    gl.activeTexture(gl.TEXTURE1); gl.bindTexture(gl.TEXTURE_2D, this.tex.data); gl.uniform1i(u.uData, 1);
    gl.activeTexture(gl.TEXTURE2); gl.bindTexture(gl.TEXTURE_2D, this.tex.colour); gl.uniform1i(u.uColour, 2);
    gl.activeTexture(gl.TEXTURE3); gl.bindTexture(gl.TEXTURE_2D, this.tex.hash); gl.uniform1i(u.uHash, 3);
    gl.disable(gl.DEPTH_TEST);
    gl.depthMask(false);
    gl.enable(gl.BLEND);
    gl.blendFunc(gl.ONE, gl.ONE_MINUS_SRC_ALPHA);
    gl.bindVertexArray(this.splatVao);
    gl.bindBuffer(gl.ARRAY_BUFFER, this.quad);
    gl.vertexAttribPointer(this.locCorner, 2, gl.FLOAT, false, 0, 0);

    // merged groups whose streams are ready (the others draw cell by cell meanwhile)
    const groupOf = plan.groups.length ? this.prepareGroups(plan.groups, cells, dirT, eyeT) : new Map();
    stats.groups = plan.groups.length;

    const cellXY = new Float32Array(16), slotCls = new Float32Array(16), slotT = new Uint32Array(8);
    const slotSub = new Float32Array(8), slotGain = new Float32Array(24);
    const lv = this.levels();
    const gainOf = (slot, tile) => slotGain.set(lv.subarray(tile * 3, tile * 3 + 3), slot * 3);
    const pushSlots = (n) => {
      gl.uniform3fv(u.uSlotGain, slotGain, 0, 3 * n);
      gl.uniform2fv(u.uCellXY, cellXY, 0, 2 * n);
      gl.uniform2fv(u.uSlotCls, slotCls, 0, 2 * n);
      gl.uniform1uiv(u.uSlotT, slotT, 0, n);
      gl.uniform1fv(u.uSlotSub, slotSub, 0, n);
    };
    // The tile class a slot draws where its cell has a class edge inside it, else -1.
    const subOf = (c, alt) => (C.sub && C.sub[c] ? (alt ? 1 - C.cls[c] : C.cls[c]) : -1);
    const drawRun = (buf, startIdx, count) => {
      if (count <= 0) return;
      gl.bindBuffer(gl.ARRAY_BUFFER, buf);
      gl.vertexAttribIPointer(this.locIndex, 1, gl.UNSIGNED_INT, 0, startIdx * 4);
      gl.drawArraysInstanced(gl.TRIANGLE_STRIP, 0, 4, count);
      stats.drawCalls++;
      stats.splats += count;
    };
    const drawnGroups = new Set();
    for (const k of order) {
      const cell = cells[k];
      const g = groupOf.get(k);
      if (g) {
        // the group's merged stream, drawn once at its first member in the order
        if (drawnGroups.has(g)) continue;
        drawnGroups.add(g);
        g.slots.forEach((s, slot) => {
          const cl = cells[s.k];
          cellXY[slot * 2] = cl.x; cellXY[slot * 2 + 1] = cl.y;
          slotCls[slot * 2] = C.cls ? (s.alt ? 1 - C.cls[s.c] : C.cls[s.c]) : 0;
          slotCls[slot * 2 + 1] = C.strength ? C.strength[s.c] : 1;
          slotT[slot] = s.t;
          slotSub[slot] = subOf(s.c, s.alt);
          gainOf(slot, s.tile);
        });
        pushSlots(g.slots.length);
        gl.uniform2f(u.uDoor, 0, 2);
        drawRun(g.buf, 0, g.count);
        stats.merged += g.members.length;
        stats.lodCounts[0] += g.members.length;
        continue;
      }
      const c = cell.c;
      cellXY[0] = cell.x; cellXY[1] = cell.y;
      slotCls[0] = C.cls ? C.cls[c] : 0; slotCls[1] = C.strength ? C.strength[c] : 1;
      for (const d of cellDraws(cell, C, ts.tiles)) {
        if (!d.alt) stats.lodCounts[d.level]++;
        slotT[0] = d.t;
        slotCls[0] = C.cls ? (d.alt ? 1 - C.cls[c] : C.cls[c]) : 0;
        slotSub[0] = subOf(c, d.alt);
        gainOf(0, d.tile);
        pushSlots(1);
        gl.uniform2f(u.uDoor, d.door[0], d.door[1]);
        drawRun(this.orderBuf, d.start, d.count);
      }
    }
    gl.bindVertexArray(null);
    gl.depthMask(true);
    stats.cpuMs = performance.now() - t0;
    return (this.lastStats = stats);
  }

  /**
   * Merged streams for the frame's groups: returns Map(cell position -> group) for the groups
   * whose stream is ready ({members, slots, buf, count}); the missing ones are asked for in one
   * sorter.merge call (one in flight at a time: a newer call would make an older one stale).
   */
  prepareGroups(groups, cells, dirT, eyeT) {
    const ts = this.ts, C = this.scene.cells;
    const dkey = key2(dirT);
    if (dkey !== this.streamDir) {
      this.streamDir = dkey;
      for (const [k, s] of this.streams) if (s.dir !== dkey && !s.pending) { if (s.buf) this.gl.deleteBuffer(s.buf); this.streams.delete(k); }
    }
    const out = new Map();
    const ask = [];
    for (const g of groups) {
      const slots = groupSlots(g, cells, C, ts.tiles);
      const key = slots.map((s) => `${s.c}:${s.tile}`).join('|') + '@' + dkey;
      const st = this.streams.get(key);
      if (st && st.buf) {
        const grp = { members: g, slots, buf: st.buf, count: st.count };
        for (const k of g) out.set(k, grp);
      } else if (!st && !this.mergePending) {
        ask.push({ key, slots });
      }
    }
    if (ask.length) {
      const h = this.lattice.f;
      const batch = ask.map(({ key, slots }) => {
        this.streams.set(key, { pending: true, dir: dkey });
        // members in the tile frame: the cell's world offset (centre, ground height) rotated back
        return slots.map((s) => {
          const cl = cells[s.k];
          return { range: this.rangeBase[s.tile], offset: toTileFrame([cl.x, cl.y, h(cl.x, cl.y)], this.scene.angleDeg ?? 0) };
        });
      });
      this.mergePending = true;
      const tsNow = this.ts;
      this.callSorter('merge', dirT, eyeT, batch).then((r) => {
        this.mergePending = false;
        for (const [q, { key }] of ask.entries()) {
          const st = this.streams.get(key);
          if (!st || !st.pending) continue;
          if (this.ts !== tsNow || !r || !r.streams || !r.streams[q]) { this.streams.delete(key); continue; }
          const gl = this.gl;
          st.buf = gl.createBuffer();
          gl.bindBuffer(gl.ARRAY_BUFFER, st.buf);
          gl.bufferData(gl.ARRAY_BUFFER, r.streams[q], gl.STATIC_DRAW);
          st.count = r.streams[q].length;
          st.pending = false;
        }
        if (r && r.ms) this.sortMs = Math.max(this.sortMs, r.ms);
        if (r && this.onUpdate) this.onUpdate();
      });
    }
    return out;
  }

  /** Pixels of the last frame, rows top to bottom (needs preserveDrawingBuffer or the same task). */
  readPixels() {
    return readPixelsTopDown(this.gl, this.canvas.width, this.canvas.height);
  }

  dispose() {
    const gl = this.gl;
    this.clearStreams();
    for (const t of Object.values(this.tex)) if (t) gl.deleteTexture(t);
    this.tex = {};
    for (const b of [this.quad, this.orderBuf, this.farVbo, this.farIbo]) if (b) gl.deleteBuffer(b);
    if (this.splatVao) gl.deleteVertexArray(this.splatVao);
    if (this.farVao) gl.deleteVertexArray(this.farVao);
    gl.deleteProgram(this.splatProg.p);
    gl.deleteProgram(this.farProg.p);
    if (this.ownSorter && this.sorter && typeof this.sorter.terminate === 'function') this.sorter.terminate();
    this.ts = this.scene = null;
  }
}

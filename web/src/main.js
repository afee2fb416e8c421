// The viewer page: loads the WebAssembly core, the catalogue, a tileset and a terrain; runs the
// rule and the layout in WebAssembly; hands the scene to the renderer; keeps the whole state in
// the URL. Everything that decides anything (terrain generation, the rule, the grid mapping,
// the Wang layout, the blend thresholds, the survival hashes) is the Rust code compiled to
// WebAssembly; this file only moves data between it, the renderer and the panel.

import init, * as bz from '../pkg/bozkir_wasm.js';
import { Renderer } from './renderer.js';
import { SplatRendererGPU } from './gpu/splat-renderer.js';
import { subTileEdges, waterField } from './render-logic.js';
import { openDrop, fetchTileset, openTileset, readZip, describe, attachSplatHashes } from './tileset.js';
import { AutoQuality } from './quality.js';
import { BenchRecorder, report as benchReport, sweepCameras } from './bench.js';
import {
  CONTROLS, BY_ID, defaults, coerce, changed, encodeState, decodeState, parseParams,
} from './controls.js';
import { Panel } from './ui.js';
import { loadGenerated } from './terrain-cache.js';
import { standAt, walkStep } from './walk.js';
import { figureName, settingsText } from './figure.js';
import { captureSweep, PopMeter } from './capture.js';
import { attachMeshMode, DETAIL_MODES } from './mesh.js';
import { parseWorldParams, generateWorld, attachWorld, detachWorld, worldQuery } from './world.js';
import { openVoxelWorld, attachVoxelWorld } from './voxels.js';

const DEFAULT_GEN = { gen: 'rolling', seed: 0, size: 256 };

/** Everything the page knows, in one place (also `window.bozkir` for tests and the console). */
const app = {
  state: defaults(),
  reliefFollows: true, // relief scale follows the grid until the user moves it
  cam: { target: [0, 0, 0], az: 45, el: 25, dist: 20, fov: 60 },
  params: {},
  catalogue: { tilesets: [], terrains: [], default: {} },
  sceneName: 'starter',
  terrainName: null, // catalogue terrain, or null = generated
  gen: { ...DEFAULT_GEN },
  tileset: null,
  field: null, // bz.SceneField
  decision: null,
  cells: null,
  stats: null,
  quality: new AutoQuality(),
  messages: [],
  renderer: null,
  // The WebGPU splat path (gpu/splat-renderer.js) on a canvas of its own over #view, or null;
  // `gpuWhy` says why the splats are drawn by WebGL2 (null while WebGPU draws them).
  gpu: null,
  gpuWhy: null,
  panel: null,
  ready: null,
  frames: 0,
  benchRunning: false,
  mode: 'explore',
  walk: null,
  figure: false,
  popMeter: new PopMeter(),
};
window.bozkir = app;

function message(text, kind = 'error') {
  app.messages.push({ text, kind });
  if (kind === 'error') console.warn(`bozkir: ${text}`);
  return app.panel?.showMessage(text, kind);
}

// ------------------------------------------------------------------ loading

async function loadCatalogue() {
  try {
    const res = await fetch('catalogue.json', { cache: 'no-cache' });
    if (!res.ok) return;
    const c = await res.json();
    if (c && Array.isArray(c.tilesets) && Array.isArray(c.terrains)) app.catalogue = c;
  } catch {
    // a page opened without a server (or a site without data): the starter scene only
  }
}

/** The starter tileset, built by the Rust code in the page. */
async function starterTileset() {
  const s = bz.starterTileset();
  const ts = await openTileset({ manifest: s.manifest, splat: s.splats });
  const a = ts.manifest.atlas;
  ts.atlas = {
    image: { width: s.atlasWidth, height: s.atlasHeight, data: s.atlas },
    res: a.res, cols: a.cols, rows: a.rows, meanRgb: a.mean_rgb,
  };
  return ts;
}

async function decodeAtlas(ts) {
  const a = ts.manifest.atlas;
  if (!ts.atlasPng || !a) {
    ts.atlas = null;
    return ts;
  }
  try {
    const image = await createImageBitmap(new Blob([ts.atlasPng], { type: 'image/png' }), { imageOrientation: 'none' });
    ts.atlas = { image, res: a.res, cols: a.cols, rows: a.rows, meanRgb: a.mean_rgb };
  } catch (e) {
    message(`the tileset's atlas could not be decoded (${e.message}); the far field is baked in the page instead`, 'warn');
    ts.atlas = null;
  }
  return ts;
}

/** Per-splat survival hashes from the Rust function (tileset.js, attachSplatHashes). */
const attachHashes = (ts) => attachSplatHashes(ts, bz.splatHashes);

async function loadTileset(name) {
  if (name === 'starter') return attachHashes(await starterTileset());
  const entry = app.catalogue.tilesets.find((t) => t.name === name);
  if (!entry) throw new Error(`unknown scene "${name}" (have starter${app.catalogue.tilesets.map((t) => `, ${t.name}`).join('')})`);
  let ts;
  if (entry.zip) {
    const res = await fetch(`${entry.path}tileset.zip`);
    if (!res.ok) throw new Error(`${entry.path}tileset.zip: HTTP ${res.status}`);
    ts = await openTileset(await readZip(new Uint8Array(await res.arrayBuffer())));
  } else {
    ts = await fetchTileset(entry.path);
  }
  return attachHashes(await decodeAtlas(ts));
}

async function fetchF32(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  const buf = await res.arrayBuffer();
  if (buf.byteLength % 4) throw new Error(`${url}: ${buf.byteLength} bytes is not a whole number of f32 values`);
  return new Float32Array(buf);
}

/** Heights (metres, row 0 north) and optional sediment: `{width, height, heights, sediment, label}`. */
async function loadTerrain() {
  if (app.terrainName) {
    const entry = app.catalogue.terrains.find((t) => t.name === app.terrainName);
    if (!entry) throw new Error(`unknown terrain "${app.terrainName}"`);
    const meta = await (await fetch(`${entry.path}terrain.json`)).json();
    const heights = await fetchF32(`${entry.path}heights.f32`);
    if (heights.length !== meta.width * meta.height) {
      throw new Error(`${entry.path}heights.f32: ${heights.length} values for ${meta.width} × ${meta.height}`);
    }
    const sediment = entry.sediment ? await fetchF32(`${entry.path}sediment.f32`) : null;
    const water = entry.water ? await fetchF32(`${entry.path}water.f32`) : null;
    if (water && water.length !== heights.length) throw new Error(`${entry.path}water.f32: ${water.length} values for ${meta.width} × ${meta.height}`);
    return { width: meta.width, height: meta.height, heights, sediment, water, seaLevel: entry.sea_level_m ?? null, label: entry.name };
  }
  const { gen, seed, size } = app.gen;
  const t = await loadGenerated(bz, gen, seed, size, (text, fraction) => app.panel?.status(text, { fraction }));
  return { ...t, label: `${gen} · seed ${seed} · ${size}²` };
}

async function setTerrain() {
  const t = await loadTerrain();
  app.field?.free?.();
  // A generated terrain hands the rule its unit heights (the original viewer's plane, bit for bit).
  app.field = new bz.SceneField(t.unit ?? t.heights, t.width, t.height, t.sediment ?? undefined);
  app.terrainInfo = { width: t.width, height: t.height, label: t.label };
  app.terrainHeights = t.heights;
  // Lakes, rivers and the sea as the splat view draws them (unit depths over the field).
  app.water = waterField(t.heights, t.water ?? null, t.seaLevel ?? null);
}

async function setTileset(ts, name) {
  app.tileset = ts;
  app.sceneName = name;
  app.renderer.setTileset(ts);
  app.gpu?.setTileset(ts);
  app.panel?.setTilesetInfo(`${name}: ${describe(ts)}`);
}

// ------------------------------------------------------------------ the scene

/** Rule, layout and blend thresholds for the current controls; hands them to the renderer. */
function rebuildScene() {
  const s = app.state;
  const ts = app.tileset;
  if (!ts || !app.field) return;
  const n = Math.round(s.grid);
  if (app.reliefFollows) s.reliefscale = Math.min(256, Math.max(4, n));
  const detail = s.detailon ? s.detailamt : 0;
  const mapping = new bz.Mapping(n, ts.size, s.relief, app.reliefFollows ? 0 : s.reliefscale, s.gridangle, detail, s.compat);
  const classes = ts.manifest.classes.length;
  let decision = null;
  if (s.classrule && classes >= 2) {
    decision = app.field.classify(mapping, s.classbalance, s.classaltitude, Math.round(s.classcoherence), s.classsharp);
  }
  const width = s.classblend ? s.blendwidth : 0;
  const cells = bz.sceneCells(
    ts.manifestJson, n, 1,
    decision ? decision.classes : undefined,
    decision ? decision.runnerUp : undefined,
    decision ? decision.strength : undefined,
    decision ? width : 0,
  );
  if (cells.unmatched > 0) message(`${cells.unmatched} cells had no tile of their class for their code`, 'warn');
  app.decision = decision;
  const strength = decision ? Float32Array.from(decision.strength) : new Float32Array(n * n).fill(1);
  const cls = decision ? decision.classes : new Uint8Array(n * n);
  let draws = { alt: cells.alt, ownT: cells.ownThreshold, altT: cells.altThreshold, sub: null };
  if (decision && s.classedges && classes === 2) {
    draws = subTileEdges({ tile: cells.tile, alt: draws.alt, ownT: draws.ownT, altT: draws.altT, cls }, n, ts.manifest.tiles);
  }
  app.cells = cells;
  app.scene = {
    n,
    tile: ts.size,
    amplitude: mapping.amplitude,
    reliefScale: mapping.reliefScale,
    angleDeg: s.gridangle,
    detail,
    compat: mapping.compat,
    field: { width: app.field.width, height: app.field.height, z: app.field.z, mask: app.field.mask, open: app.field.open, water: app.water?.depth ?? null },
    waterRange: app.water?.range ?? 0,
    cells: {
      tile: cells.tile, alt: draws.alt, ownT: draws.ownT, altT: draws.altT, mix: cells.mix, cls, strength, sub: draws.sub,
    },
  };
  app.mapping?.free?.();
  app.mapping = mapping;
  app.renderer.setScene(app.scene);
  app.gpu?.setScene(app.scene);
  app.panel?.setReliefFlag(app.reliefFollows ? null
    : s.reliefscale < n ? `relief scale ${s.reliefscale} < grid ${n}: the terrain repeats (mirrored); drag it back to ${n} to follow the grid`
      : `relief scale ${s.reliefscale} set by hand (grid ${n})`);
  app.panel?.setRuleInfo(decision ? `collected ${(100 * decision.shares[0]).toFixed(1)} % · drive: ${decision.source}` : 'rule off');
  clampCamera();
  app.dirty = true;
}

/** Height of the drawn terrain (the Rust function through WebAssembly). */
function heightAt(x, y) {
  return app.field && app.mapping ? app.field.heightAt(app.mapping, x, y) : 0;
}

function clampCamera() {
  const c = app.cam;
  const half = (app.state.grid * (app.tileset?.size ?? 1)) / 2;
  c.target[0] = Math.max(-half, Math.min(half, c.target[0]));
  c.target[1] = Math.max(-half, Math.min(half, c.target[1]));
  c.target[2] = heightAt(c.target[0], c.target[1]);
  c.el = Math.max(1, Math.min(89, c.el));
  c.dist = Math.max(0.05, Math.min(4000, c.dist));
}

// ------------------------------------------------------------------ controls and URL

/** Set a control as a hand on the panel would: checked, stored, panel and scene updated. */
function set(id, value, { fromPanel = false } = {}) {
  const r = coerce(id, value);
  if (r.error) {
    message(r.error);
    return false;
  }
  app.state[id] = r.value;
  if (id === 'reliefscale' && fromPanel) {
    // Moving the relief scale detaches it from the grid; dragging it back onto the grid
    // makes it follow again.
    app.reliefFollows = Math.round(r.value) === Math.round(app.state.grid);
  }
  if (id === 'grid' && app.reliefFollows) {
    // The relief scale follows the grid from the panel too, and its box shows the new value.
    app.state.reliefscale = Math.min(256, Math.max(4, r.value));
    app.panel?.refresh('reliefscale');
  }
  if (!fromPanel) app.panel?.refresh(id);
  if (id === 'lodbase') app.quality.setUserLodBase(r.value);
  if (id === 'autoquality') {
    app.quality.enabled = r.value;
    if (!r.value) app.quality.reset();
  }
  if (BY_ID.get(id).scene) app.sceneDirty = true;
  app.dirty = true;
  scheduleUrl();
  return true;
}

let urlTimer = null;
function scheduleUrl() {
  if (app.benchRunning) return;
  clearTimeout(urlTimer);
  urlTimer = setTimeout(writeUrl, 150);
}

function viewLink() {
  const c = app.cam;
  const round = (v, k = 1000) => Math.round(v * k) / k;
  const v = { c: changed(app.state), cam: { t: c.target.map((x) => round(x)), az: round(c.az, 100), el: round(c.el, 100), d: round(c.dist), fov: c.fov } };
  if (!app.reliefFollows) v.c.reliefscale = app.state.reliefscale;
  else delete v.c.reliefscale;
  if (app.walk) v.cam.walk = app.walk.eye.slice(0, 2).map((x) => round(x));
  if (app.mesh?.enabled) {
    // Mesh mode has its own camera (metres, terrain centred): a shared link restores it too.
    const m = app.mesh.cam;
    v.mesh = { t: m.target.map((x) => round(x)), az: round(m.az, 100), el: round(m.el, 100), d: round(m.dist) };
    if (app.mesh.opts.detail !== 'hex-vp') v.mesh.detail = app.mesh.opts.detail;
  }
  return v;
}

function writeUrl() {
  const q = new URLSearchParams(app.world ? worldQuery(app.world.spec) : '');
  if (app.sceneName !== 'dropped') q.set('scene', app.sceneName);
  if (app.terrainName) q.set('terrain', app.terrainName);
  else if (!app.world) {
    q.set('gen', app.gen.gen);
    q.set('seed', String(app.gen.seed));
    q.set('size', String(app.gen.size));
  }
  q.set('v', encodeState(viewLink()));
  if (app.mode === 'research') q.set('mode', 'research');
  if (app.mesh?.enabled) q.set('look', 'mesh');
  history.replaceState(null, '', `${location.pathname}?${q}`);
}

function applyViewLink(text) {
  let v;
  try {
    v = decodeState(text);
  } catch (e) {
    message(`${e.message}; the default view is kept`);
    return;
  }
  if (v.c && typeof v.c === 'object') {
    for (const [id, value] of Object.entries(v.c)) {
      if (!BY_ID.has(id)) {
        message(`the view link names an unknown control "${id}"; ignored`);
        continue;
      }
      if (set(id, value) && id === 'reliefscale') app.reliefFollows = false;
    }
  }
  const cam = v.cam;
  if (cam && typeof cam === 'object') {
    const num = (x) => typeof x === 'number' && Number.isFinite(x);
    if (Array.isArray(cam.t) && cam.t.length === 3 && cam.t.every(num)) app.cam.target = cam.t.slice();
    if (num(cam.az)) app.cam.az = cam.az;
    if (num(cam.el)) app.cam.el = cam.el;
    if (num(cam.d) && cam.d > 0) app.cam.dist = cam.d;
    if (num(cam.fov) && cam.fov >= 20 && cam.fov <= 100) app.cam.fov = cam.fov;
    if (Array.isArray(cam.walk) && cam.walk.length === 2 && cam.walk.every(num)) {
      app.pendingWalk = { x: cam.walk[0], y: cam.walk[1], az: app.cam.az, el: app.cam.el };
    }
  }
  const m = v.mesh;
  if (m && typeof m === 'object') {
    const num = (x) => typeof x === 'number' && Number.isFinite(x);
    const ok = Array.isArray(m.t) && m.t.length === 3 && m.t.every(num) && num(m.az) && num(m.el) && num(m.d) && m.d > 0;
    if (ok) app.pendingMeshCam = { target: m.t.slice(), az: m.az, el: m.el, dist: m.d };
    else message('the view link\'s mesh camera is malformed; the framed view is used');
    if (typeof m.detail === 'string') app.pendingDetail = m.detail;
  }
}

/** The mesh camera and ground-photo mode a view link carried, once mesh mode is on. */
function applyPendingMesh() {
  if (!app.mesh?.enabled) return;
  if (app.pendingMeshCam) {
    Object.assign(app.mesh.cam, app.pendingMeshCam);
    app.pendingMeshCam = null;
  }
  if (app.pendingDetail) {
    const modes = ['off', ...DETAIL_MODES];
    if (modes.includes(app.pendingDetail)) {
      app.mesh.opts.detail = app.pendingDetail;
      app.panel?.setDetail?.(app.pendingDetail);
    } else message(`the view link's ground photo tiling "${app.pendingDetail}" is not one of ${modes.join(', ')}`);
    app.pendingDetail = null;
  }
  app.dirty = true;
}

/** views.json, read once. */
async function views() {
  if (!app.views) {
    try {
      app.views = await (await fetch('views.json')).json();
    } catch {
      app.views = { presets: {}, story: [] };
      message('views.json could not be read; no presets or story');
    }
  }
  return app.views;
}

/** Apply a named view (preset or chapter) as a hand on the panel would; unknown keys are named. */
function applyView(label, p) {
  for (const [id, value] of Object.entries(p.controls || {})) {
    if (id === 'reliefscale' && value === 'grid') {
      app.reliefFollows = true;
      continue;
    }
    if (!BY_ID.has(id)) {
      message(`${label} names an unknown control "${id}"; ignored`);
      continue;
    }
    if (set(id, value) && id === 'reliefscale') app.reliefFollows = false;
  }
  if (app.reliefFollows) app.state.reliefscale = Math.min(256, Math.max(4, Math.round(app.state.grid)));
  app.panel?.refreshAll();
  if (p.view) viewButton(p.view);
  if (p.camera) {
    const tile = app.tileset?.size ?? 1;
    if (typeof p.camera.az === 'number') app.cam.az = p.camera.az;
    if (typeof p.camera.el === 'number') app.cam.el = p.camera.el;
    if (typeof p.camera.d === 'number') app.cam.dist = p.camera.d * tile;
  }
  if (app.walk) setWalk(false);
  app.cam.target = [0, 0, 0];
  clampCamera();
  app.dirty = true;
  scheduleUrl();
}

async function applyPreset(name) {
  const v = await views();
  const p = v.presets?.[name];
  if (!p) {
    message(`unknown preset "${name}" (have ${Object.keys(v.presets || {}).join(', ')})`);
    return false;
  }
  applyView(`preset "${name}"`, p);
  app.preset = name;
  return true;
}

/** Story chapter `n` (1-based): its controls and camera, and its caption with the placeholders filled. */
async function applyChapter(n) {
  const v = await views();
  const ch = v.story?.[n - 1];
  if (!ch) {
    message(`no chapter ${n} (the story has ${v.story?.length ?? 0})`);
    return false;
  }
  applyView(`chapter ${n}`, ch);
  app.chapter = n;
  const ts = app.tileset;
  const names = ts?.manifest.classes ?? [];
  const fill = {
    scene: app.sceneName,
    size: ts ? ts.size.toFixed(2) : '?',
    tiles: ts ? ts.tiles.length : '?',
    world: ts ? Math.round(app.state.grid * ts.size) : '?',
    source: app.terrainInfo?.label ?? '',
    collects: names[0] ?? 'class 0',
    exposed: names[1] ?? 'class 1',
  };
  const caption = ch.caption.replace(/\{(\w+)\}/g, (m, k) => (k in fill ? String(fill[k]) : m));
  app.panel?.setCaption(`${ch.label}`, caption, n, v.story.length);
  return true;
}

/** Camera presets, distances in tiles. */
const VIEWS = {
  ground: { el: 3, d: 8 },
  survey: { el: 32, d: 14 },
  top: { el: 85, d: 18 },
};
function viewButton(name) {
  const v = VIEWS[name];
  const tile = app.tileset?.size ?? 1;
  app.cam.el = v.el;
  app.cam.dist = v.d * tile;
  clampCamera();
  app.dirty = true;
  scheduleUrl();
}

// ------------------------------------------------------------------ rendering

function renderOptions() {
  const s = app.state;
  return {
    exposure: s.exposure,
    saturation: s.saturation,
    shade: s.shade,
    macro: s.macro,
    level: s.tilelevel,
    fog: s.fog,
    lodBase: app.quality.enabled ? Math.min(s.lodbase, app.quality.lodBase) : s.lodbase,
    farField: s.farfield,
    underlay: s.underlay,
    horizon: s.horizon,
    water: s.water,
    detail: s.detailon,
    overlay: s.classview,
    renderScale: app.quality.enabled ? app.quality.renderScale : 1,
    ordering: s.ordering,
    mergeThreshold: s.mergethr,
    background: [0.62, 0.70, 0.78],
  };
}

function renderFrame() {
  if (app.sceneDirty) {
    app.sceneDirty = false;
    rebuildScene();
  }
  if (app.pendingWalk && app.mapping) {
    const w = app.pendingWalk;
    app.pendingWalk = null;
    app.walk = standAt(w.x, w.y, w.az, w.el, app.state.fov, heightAt);
    app.panel?.setWalk(true);
  }
  if (app.mesh?.enabled) {
    showCanvas(false);
    app.renderer.resize(app.quality.enabled ? app.quality.renderScale : 1);
    const ms = app.mesh.render({ ...app.mesh.cam, fov: app.state.fov });
    app.stats = { splats: 0, cells: 0, sortMs: 0, ...ms, mesh: true };
    app.frames += 1;
    return app.stats;
  }
  const cam = app.walk ? { ...app.walk, fov: app.state.fov } : { ...app.cam, fov: app.state.fov };
  let r = splatRenderer();
  let stats;
  try {
    stats = r.render(cam, renderOptions());
  } catch (e) {
    if (r !== app.gpu) throw e;
    // WebGPU failed mid-frame (a device lost before its promise said so, a canvas it cannot
    // present to): WebGL2 draws the splats from now on, and this frame too.
    app.gpu.lost = app.gpu.lost || e.message || String(e);
    message(`WebGPU failed drawing the splats (${app.gpu.lost}); splats drawn with WebGL2`);
    showGpu();
    r = splatRenderer();
    stats = r.render(cam, renderOptions());
  }
  app.stats = stats;
  app.frames += 1;
  if (app.mode === 'research' && !app.benchRunning && r === app.renderer) {
    stats.pop = app.popMeter.sample(app.renderer.gl, cam.az);
  }
  return stats;
}

/**
 * The renderer that draws the splat view this frame: the WebGPU one unless it was not made or
 * declines the scene (then WebGL2, the reason in the console once and in `app.gpuWhy`). The
 * canvas that is not drawn is hidden; mesh mode and worlds draw on WebGL2's canvas.
 */
function splatRenderer() {
  let r = app.renderer;
  if (app.gpu) {
    const why = app.gpu.supports();
    if (why) {
      if (why !== app.gpuWhy) console.warn(`bozkir: splats drawn with WebGL2: ${why}`);
      app.gpuWhy = why;
    } else {
      app.gpuWhy = null;
      r = app.gpu;
    }
  }
  showCanvas(r === app.gpu);
  return r;
}

/** Whether the WebGPU path drew the last splat frame (splatRenderer's choice). */
const gpuDraws = () => Boolean(app.gpu && !app.gpuWhy);

/** The panel's GPU line: the WebGPU adapter while it draws the splats, else WebGL2's. */
function showGpu() {
  const gpu = app.gpu && !app.gpu.lost;
  app.panel?.setGpu(gpu ? `${app.gpu.gpuName} (splats; WebGL2: ${app.renderer.gpuName})` : app.renderer.gpuName);
}

/** Shows the WebGPU canvas (true) or WebGL2's (false). */
function showCanvas(gpu) {
  if (!app.gpu) return;
  app.gpu.canvas.style.visibility = gpu ? 'visible' : 'hidden';
  app.renderer.canvas.style.visibility = gpu ? 'hidden' : 'visible';
}

/**
 * `?renderer=webgpu|webgl2|auto` (default auto): WebGPU draws the splats where navigator.gpu
 * gives a device, else WebGL2, with the reason in the console and on the page for an explicit
 * `webgpu`. The WebGPU canvas lies over #view and lets the pointer through to it. `?present=0`
 * keeps WebGPU's frames off screen (no canvas context; for benchmarks where the browser cannot
 * present a WebGPU canvas).
 */
async function chooseRenderer(canvas) {
  const want = app.params.renderer ?? 'auto';
  if (!['auto', 'webgpu', 'webgl2'].includes(want)) {
    message(`renderer "${want}" must be webgpu, webgl2 or auto; using auto`);
  }
  if (want === 'webgl2') { app.gpuWhy = 'renderer=webgl2'; return; }
  const c = document.createElement('canvas');
  c.id = 'view-gpu';
  c.setAttribute('aria-hidden', 'true');
  c.style.cssText = 'position:fixed;inset:0;width:100vw;height:100vh;display:block;pointer-events:none;visibility:hidden';
  canvas.after(c);
  try {
    app.gpu = await SplatRendererGPU.create(c, { present: app.params.present !== '0' });
    app.gpu.onUpdate = () => {
      app.dirty = true;
    };
    app.gpu.device.lost.then((i) => {
      message(`the WebGPU device was lost (${i.message || i.reason}); splats drawn with WebGL2`);
      app.gpu.lost = app.gpu.lost || i.message || i.reason || 'device lost';
      showGpu();
      app.dirty = true;
    });
  } catch (e) {
    c.remove();
    app.gpuWhy = `WebGPU unavailable: ${e.message || e}`;
    if (want === 'webgpu') message(`renderer=webgpu: ${app.gpuWhy}; drawing with WebGL2`);
    else console.warn(`bozkir: splats drawn with WebGL2 (${app.gpuWhy})`);
  }
}

let lastRendered = 0;
function loop(now) {
  requestAnimationFrame(loop);
  if (app.benchRunning || document.hidden) return;
  if (!app.dirty) {
    lastRendered = 0;
    return;
  }
  // Frame time between two consecutive drawn frames feeds auto quality; an idle gap does not.
  const dt = lastRendered ? now - lastRendered : 0;
  if (dt > 0 && dt < 1000 && app.state.autoquality) app.quality.frame(dt, now);
  app.dirty = false;
  const stats = renderFrame();
  lastRendered = now;
  app.panel?.setStats(stats, dt);
  if (app.moving) app.dirty = true;
}

// ------------------------------------------------------------------ camera input

/** The orbit camera input moves: the mesh mode's (metres) or the splat view's. */
function activeCam() {
  if (app.world?.walking) return app.world.cam;
  return app.mesh?.enabled ? app.mesh.cam : app.cam;
}

function settleCam() {
  if (app.world?.walking) {
    const c = app.world.cam;
    c.el = Math.max(-85, Math.min(85, c.el));
  } else if (app.mesh?.enabled) {
    const c = app.mesh.cam;
    c.el = Math.max(1, Math.min(89, c.el));
    c.dist = Math.max(1, c.dist);
  } else clampCamera();
}

/** Generate a world (issue 21) in the page and show it in the mesh look; errors go to the messages. */
async function openWorld(spec) {
  try {
    const t0 = performance.now();
    if (spec.solid) {
      attachVoxelWorld(app, openVoxelWorld(bz, spec), spec);
    } else {
      const w = generateWorld(bz, spec);
      if (app.world?.voxel) detachWorld(app);
      attachWorld(app, w, spec);
    }
    const ms = performance.now() - t0;
    app.world.generateMs = ms;
    app.panel?.setWorld(app.world.label);
    app.world.note = message(`${app.world.label}: generated in ${ms.toFixed(0)} ms`, 'info');
  } catch (e) {
    message(`world "${spec.generator}" seed "${spec.seed}": ${e.message}`);
    return false;
  }
  return setMeshMode(true);
}

/** Mesh mode (the terrain alone with the seed-001 look) on or off. */
async function setMeshMode(on) {
  if (!app.mesh) return false;
  try {
    if (on) await app.mesh.enable();
    else await app.mesh.disable();
  } catch (e) {
    message(`mesh mode: ${e.message}`);
    return false;
  }
  if (on && app.walk) setWalk(false);
  app.panel?.setMesh(on);
  app.dirty = true;
  scheduleUrl();
  return true;
}

function installCamera(canvas) {
  let drag = null;
  canvas.addEventListener('pointerdown', (e) => {
    drag = { x: e.clientX, y: e.clientY, pan: e.button === 2 || e.shiftKey };
    canvas.setPointerCapture(e.pointerId);
    canvas.focus();
  });
  canvas.addEventListener('pointerup', () => {
    drag = null;
    scheduleUrl();
  });
  canvas.addEventListener('contextmenu', (e) => e.preventDefault());
  canvas.addEventListener('pointermove', (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    drag.x = e.clientX;
    drag.y = e.clientY;
    const c = activeCam();
    if (drag.pan && !c.target) return;
    if (drag.pan) {
      const k = c.dist / canvas.clientHeight;
      const a = (c.az * Math.PI) / 180;
      // screen right = (cos az, −sin az), screen up (forward on the ground) = (sin az, cos az)
      c.target[0] += (-dx * Math.cos(a) + dy * Math.sin(a)) * k;
      c.target[1] += (dx * Math.sin(a) + dy * Math.cos(a)) * k;
    } else {
      c.az = (c.az + dx * 0.3 + 360) % 360;
      c.el += dy * 0.25;
    }
    settleCam();
    app.dirty = true;
  });
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    if (!activeCam().target) return;
    activeCam().dist *= Math.exp(e.deltaY * 0.001);
    settleCam();
    app.dirty = true;
    scheduleUrl();
  }, { passive: false });
}

const MOVE_KEYS = ['w', 'a', 's', 'd', 'q', 'e', 'z', 'x', '+', '=', '-', 'arrowup', 'arrowdown', 'arrowleft', 'arrowright', 'shift', ' '];

/** Orbit step for held keys: WASD / arrows pan, Q/E turn, Z/X tilt, +/- zoom. */
function orbitStep(held) {
  const c = activeCam();
  const a = (c.az * Math.PI) / 180;
  const k = c.dist * 0.01;
  const fwd = (held.has('w') || held.has('arrowup') ? 1 : 0) - (held.has('s') || held.has('arrowdown') ? 1 : 0);
  const right = (held.has('d') || held.has('arrowright') ? 1 : 0) - (held.has('a') || held.has('arrowleft') ? 1 : 0);
  c.target[0] += (fwd * Math.sin(a) + right * Math.cos(a)) * k;
  c.target[1] += (fwd * Math.cos(a) - right * Math.sin(a)) * k;
  if (held.has('q')) c.az = (c.az + 359) % 360;
  if (held.has('e')) c.az = (c.az + 1) % 360;
  if (held.has('z')) c.el += 0.5;
  if (held.has('x')) c.el -= 0.5;
  if (held.has('+') || held.has('=')) c.dist *= 0.98;
  if (held.has('-')) c.dist *= 1.02;
  settleCam();
}

/** Enter or leave the walk: the walker stands where the orbit camera looks. */
function setWalk(on) {
  if (on === Boolean(app.walk)) return;
  if (on) {
    const t = app.cam.target;
    app.walk = standAt(t[0], t[1], app.cam.az, 0, app.state.fov, heightAt);
  } else {
    const e = app.walk.eye;
    app.cam.target = [e[0], e[1], heightAt(e[0], e[1])];
    app.walk = null;
    clampCamera();
  }
  app.panel?.setWalk(Boolean(app.walk));
  app.dirty = true;
  scheduleUrl();
}

/** One walk step of `dt` seconds with the held keys (also the test hook). */
function walkStep_(held, dt) {
  const half = (app.state.grid * (app.tileset?.size ?? 1)) / 2;
  app.walk = walkStep(app.walk, held, dt, heightAt, { bounds: half });
  app.dirty = true;
  return app.walk;
}

function installKeys(canvas) {
  const held = new Set();
  app.held = held; // the voxel world's walker reads them each frame
  let lastT = 0;
  const step = (now) => {
    if (!held.size || [...held].every((k) => k === 'shift')) {
      app.moving = false;
      lastT = 0;
      return;
    }
    const dt = lastT ? Math.min(0.1, (now - lastT) / 1000) : 1 / 60;
    lastT = now;
    if (app.world?.walking) app.dirty = true; // the voxel world's render steps its walker
    else if (app.walk) walkStep_(held, dt);
    else orbitStep(held);
    app.dirty = true;
    requestAnimationFrame(step);
  };
  const onDown = (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    const key = e.key.toLowerCase();
    if (e.repeat && !MOVE_KEYS.includes(key)) return;
    if (key === 'm') return app.panel?.setMode(app.mode === 'research' ? 'explore' : 'research');
    if (key === 'g' && app.world?.voxel) return app.world.toggleWalk();
    if (key === 'g' && !app.mesh?.enabled) return setWalk(!app.walk);
    if (key === 'f' && !e.ctrlKey && !e.metaKey) return setFigureMode(!app.figure);
    if (key === 'p' && !e.ctrlKey && !e.metaKey) {
      e.preventDefault();
      savePng();
      return;
    }
    if (key === 'i') return app.panel?.showHoveredNote();
    if (!MOVE_KEYS.includes(key)) return;
    e.preventDefault();
    const was = held.size;
    held.add(key);
    if (!was) {
      app.moving = true;
      requestAnimationFrame(step);
    }
  };
  window.addEventListener('keydown', onDown);
  window.addEventListener('keyup', (e) => {
    held.delete(e.key.toLowerCase());
    if (!held.size) scheduleUrl();
  });
  window.addEventListener('blur', () => held.clear());
}

/** Figure mode hides the panel and every overlay; the canvas alone stays. */
function setFigureMode(on) {
  app.figure = on;
  document.body.classList.toggle('figure', on);
  app.dirty = true;
}

/** The current view as a PNG at the canvas's full resolution (render scale 1), downloaded. */
async function savePng() {
  const r = app.renderer;
  const keep = app.quality.renderScale;
  app.quality.renderScale = 1;
  renderFrame();
  const canvas = !app.mesh?.enabled && gpuDraws() ? app.gpu.canvas : r.canvas;
  const name = figureName({
    scene: app.sceneName, grid: app.state.grid, rule: app.state.classrule, cam: app.walk || app.cam,
    tile: app.tileset?.size ?? 1, width: canvas.width, height: canvas.height,
  });
  const blob = await new Promise((res) => canvas.toBlob(res, 'image/png'));
  app.quality.renderScale = keep;
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  app.lastFigure = { name, width: canvas.width, height: canvas.height };
  return app.lastFigure;
}

function installDrop() {
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('drop', async (e) => {
    e.preventDefault();
    const file = e.dataTransfer?.files?.[0];
    if (file) await dropFile(file);
  });
}

/** Open a dropped tileset; on failure say why and keep the current scene. */
async function dropFile(file) {
  try {
    const ts = attachHashes(await decodeAtlas(await openDrop(file)));
    await setTileset(ts, 'dropped');
    app.sceneDirty = true;
    app.dirty = true;
    message(`opened ${file.name || 'the dropped file'}: ${describe(ts)}`, 'info');
    return true;
  } catch (e) {
    message(`could not open ${file.name || 'the dropped file'}: ${e.message}`);
    return false;
  }
}

// ------------------------------------------------------------------ benchmark mode

async function runBench() {
  const grids = (app.params.grids || '4,8,16,24,32').split(',').map(Number).filter((g) => Number.isInteger(g) && g >= 1 && g <= 256);
  const frames = Math.max(4, Math.min(400, Number(app.params.frames) || 40));
  app.benchRunning = true;
  app.quality.enabled = false;
  const rec = new BenchRecorder();
  const gl = app.renderer.gl;
  const px = new Uint8Array(4);
  const rows = [];
  for (const g of grids) {
    set('grid', g);
    rebuildScene();
    app.sceneDirty = false;
    const cams = sweepCameras(g, frames);
    const tile = app.tileset.size;
    const frameMs = [], sortMs = [];
    let drawCalls = 0, splats = 0;
    for (let k = -8; k < frames; k++) {
      const v = cams[Math.max(0, k)];
      Object.assign(app.cam, { az: v.az, el: v.el, dist: v.dist * tile, target: [0, 0, heightAt(0, 0)] });
      const t0 = performance.now();
      const st = renderFrame();
      if (st.renderer === 'webgpu') await app.gpu.finish(); // wait for the GPU
      else gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px);
      const ms = performance.now() - t0;
      if (k >= 0) {
        frameMs.push(ms);
        sortMs.push(st.sortMs || 0);
        drawCalls = Math.max(drawCalls, st.drawCalls);
        splats = Math.max(splats, st.splats);
      }
      await new Promise((r) => setTimeout(r, 0)); // let the sort worker answer
    }
    rec.add(g, { frameMs, sortMs, drawCalls, splats });
    rows.push({ grid: g, tiles: g * g });
  }
  const summary = rec.summary();
  const lines = benchReport(summary);
  const body = {
    renderer: gpuDraws() ? 'webgpu' : 'webgl2',
    gpu: gpuDraws() ? app.gpu.gpuName : app.renderer.gpuName,
    rows: summary.map((r) => ({
      grid: r.grid, tiles: r.grid * r.grid, splats: r.splats, fps: r.fps, p50: r.p50, p95: r.p95, p99: r.p99,
      sort_ms: r.sortMs, draw_calls: r.drawCalls,
    })),
    report: lines,
  };
  app.benchResult = body;
  app.panel?.showBench(body);
  if (app.params.report === '1') {
    try {
      await fetch('api/bench-report', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    } catch (e) {
      message(`could not post the benchmark: ${e.message}`);
    }
  }
  app.benchRunning = false;
  return body;
}

// ------------------------------------------------------------------ start

async function start() {
  // A tiled world (`bozkir tiled`) has its own page: ?store=NAME goes there.
  if (new URLSearchParams(location.search).has('store')) {
    location.replace(`store.html${location.search}`);
    return;
  }
  await init();
  const profiles = bz.profiles();
  // A world link (?world=composite&seed=atlas) owns `seed` and `size`; the rest is the page's.
  const worldLink = parseWorldParams(location.search);
  const { params, errors } = parseParams(worldLink.rest, profiles);
  errors.unshift(...worldLink.errors);
  app.params = params;
  const canvas = document.getElementById('view');
  app.renderer = new Renderer(canvas, {
    onUpdate: () => {
      app.dirty = true;
    },
  });
  app.panel = new Panel(app, {
    set: (id, v) => set(id, v, { fromPanel: true }),
    view: viewButton,
    preset: (name) => applyPreset(name),
    chapter: (n) => applyChapter(n),
    walk: () => (app.world?.voxel ? app.world.toggleWalk() : setWalk(!app.walk)),
    figure: () => setFigureMode(!app.figure),
    png: () => savePng(),
    capture: () => runCapture(),
    settingsText: () => settingsAsText(),
    modeChanged: () => scheduleUrl(),
    mesh: () => setMeshMode(!app.mesh?.enabled),
    detail: (mode) => {
      if (!app.mesh) return;
      app.mesh.opts.detail = mode;
      app.dirty = true;
      scheduleUrl();
    },
    detailCompare: (mode) => {
      if (!app.mesh) return;
      app.mesh.opts.detailCompare = mode;
      app.dirty = true;
    },
    chooseScene: (name) => switchScene(name),
    chooseTerrain: (t) => switchTerrain(t),
    profiles,
    terrainPreview: (p, seed) => bz.generate(p, seed, 64),
    drop: dropFile,
  });
  for (const e of errors) message(e);
  await chooseRenderer(canvas);
  showGpu();
  await loadCatalogue();
  app.panel.setCatalogue(app.catalogue);
  for (const st of app.catalogue.stores ?? []) {
    const p = message(`tiled world ${st.name} (${st.size}² cells): `, 'info');
    const a = document.createElement('a');
    a.href = `store.html?store=${encodeURIComponent(st.name)}`;
    a.textContent = 'open it';
    p?.insertBefore(a, p.lastChild);
  }

  // Scene: ?scene=, else the catalogue's default, else the starter.
  const wantScene = params.scene ?? app.catalogue.default?.tileset ?? 'starter';
  let ts;
  try {
    ts = await loadTileset(wantScene);
  } catch (e) {
    message(`${e.message}; showing the starter scene`);
    ts = await loadTileset('starter');
  }
  await setTileset(ts, app.tileset === null && ts.manifest.settings?.starter && wantScene !== 'starter' ? 'starter' : wantScene);
  if (ts.manifest.settings?.starter) app.sceneName = 'starter';

  // Terrain: ?gen= (generated in the page), ?terrain= (catalogue), else the catalogue's
  // default for a catalogue scene, else rolling, seed 0.
  if (params.gen !== undefined || params.seed !== undefined || params.size !== undefined) {
    app.gen = { gen: params.gen ?? DEFAULT_GEN.gen, seed: params.seed ?? DEFAULT_GEN.seed, size: params.size ?? DEFAULT_GEN.size };
  } else if (params.terrain) {
    if (app.catalogue.terrains.some((t) => t.name === params.terrain)) app.terrainName = params.terrain;
    else message(`unknown terrain "${params.terrain}" (have ${app.catalogue.terrains.map((t) => t.name).join(', ') || 'none'}); generating one instead`);
  } else if (app.catalogue.default?.terrain) {
    app.terrainName = app.catalogue.default.terrain;
  }
  try {
    await setTerrain();
  } catch (e) {
    message(`${e.message}; generating ${DEFAULT_GEN.gen} instead`);
    app.terrainName = null;
    app.gen = { ...DEFAULT_GEN };
    await setTerrain();
  }
  app.panel.setTerrainInfo(app.terrainInfo.label, app.terrainName, app.gen);
  attachMeshMode(app);
  if (worldLink.world) await openWorld(worldLink.world);

  // Default camera for the grid, then the preset and the view link on top.
  app.cam.dist = Math.min(app.state.grid, 24) * 0.9 * ts.size;
  if (params.preset) await applyPreset(params.preset);
  if (params.chapter !== undefined) {
    const n = Number(params.chapter);
    if (Number.isInteger(n) && n >= 1) await applyChapter(n);
    else message(`chapter "${params.chapter}" must be a whole number from 1`);
  }
  if (params.v) applyViewLink(params.v);
  if (params.mode !== undefined) {
    if (params.mode === 'research' || params.mode === 'explore') app.panel.setMode(params.mode);
    else message(`mode "${params.mode}" must be explore or research`);
  }
  app.panel.setPresets(Object.keys((await views()).presets || {}));
  if (params.look !== undefined) {
    if (params.look === 'mesh') {
      await setMeshMode(true);
      applyPendingMesh();
    }
    else if (params.look !== 'splats') message(`look "${params.look}" must be splats or mesh`);
  }
  app.panel.refreshAll();
  rebuildScene();
  app.sceneDirty = false;
  installCamera(canvas);
  installKeys(canvas);
  installDrop();
  window.addEventListener('resize', () => {
    app.dirty = true;
  });
  renderFrame();
  if (params.bench === '1') {
    try {
      await runBench();
    } catch (e) {
      // A benchmark that cannot finish (a lost WebGPU device, a failed draw) reports why.
      app.benchRunning = false;
      const body = { error: `the benchmark stopped: ${e.message || e}` };
      app.benchResult = body;
      message(body.error);
      if (app.params.report === '1') {
        await fetch('api/bench-report', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
          .catch(() => {});
      }
    }
  }
  requestAnimationFrame(loop);
  writeUrl();
}

async function switchScene(name) {
  try {
    await setTileset(await loadTileset(name), name);
    app.sceneDirty = true;
    app.dirty = true;
    scheduleUrl();
  } catch (e) {
    message(e.message);
  }
}

async function switchTerrain(t) {
  // Choosing a terrain leaves a world: the mesh look follows the page's terrain again.
  if (app.world) {
    app.world.note?.remove(); // its "generated in" message is about a world no longer shown
    detachWorld(app);
    app.panel?.setWorld(null);
  }
  const before = { terrainName: app.terrainName, gen: { ...app.gen } };
  if (t.terrain) app.terrainName = t.terrain;
  else {
    app.terrainName = null;
    app.gen = { gen: t.gen ?? app.gen.gen, seed: t.seed ?? app.gen.seed, size: t.size ?? app.gen.size };
  }
  try {
    await setTerrain();
  } catch (e) {
    message(e.message);
    Object.assign(app, before);
    return;
  }
  app.panel.setTerrainInfo(app.terrainInfo.label, app.terrainName, app.gen);
  if (app.mesh) await app.mesh.sync().catch((e) => message(`mesh mode: ${e.message}`));
  app.sceneDirty = true;
  app.dirty = true;
  scheduleUrl();
}

/** Run the capture sweep with the Measure controls and download the zip of frames. */
async function runCapture() {
  const frames = Math.round(app.state.capframes);
  const zip = await captureSweep(app, {
    arc: app.state.caparc,
    frames,
    onProgress: (k, n) => app.panel?.status(`capturing frame ${k} of ${n}…`, { busy: false }),
  });
  app.panel?.status('');
  const name = `capture_${app.sceneName}_g${app.state.grid}_${app.state.ordering}_${frames}f.zip`;
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([zip], { type: 'application/zip' }));
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  app.lastCapture = { name, bytes: zip.length, frames };
  return app.lastCapture;
}

function settingsAsText() {
  return settingsText({
    state: app.state, controls: CONTROLS, cam: app.walk ? { ...app.walk, fov: app.state.fov } : { ...app.cam, fov: app.state.fov },
    scene: app.sceneName, terrain: app.terrainInfo?.label ?? '',
  });
}

Object.assign(app, {
  set,
  applyPreset,
  applyChapter,
  setWalk,
  setMeshMode,
  openWorld,
  walkStep: walkStep_,
  setFigureMode,
  savePng,
  runCapture,
  settingsAsText,
  writeUrl,
  heightAt,
  renderFrame,
  frameOptions: renderOptions,
  runBench,
  dropFile,
  viewLink,
  switchScene,
  switchTerrain,
  controls: CONTROLS,
  wasm: bz,
});

app.ready = start().then(() => true, (e) => {
  app.failed = e;
  message(`the viewer could not start: ${e.message}`);
  return false;
});

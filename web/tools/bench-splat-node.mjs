// The viewer's WebGPU splat path (web/src/gpu/splat-renderer.js, SplatRendererGPU) timed under
// Dawn in Node, for hosts whose headless Chromium cannot give WebGPU (issue 28: the GPU hosts'
// Chromium loses its device). The page's own modules — the WebAssembly core for the rule and the
// layout, tileset.js, render-logic.js, the renderer with `present: false` (its own off-screen
// target, no canvas context) — on the scene and the camera path of the page's benchmark
// (`index.html?bench=1`, which `bozkir bench-viewer` drives): the catalogue's default tileset and
// terrain, every control at its default (far field on), auto quality off, per grid the scene the
// page's rebuildScene makes, `--settle` frames then `--frames` timed frames along
// bench.js's sweepCameras orbit, each frame waited for on the GPU (`finish()`: the queue's
// onSubmittedWorkDone), as runBench in main.js does.
//
// Usage: node web/tools/bench-splat-node.mjs [--dawn DIR] [--scene DIR] [--grids LIST]
//          [--frames N] [--settle N] [--window WxH] [--json OUT] [--png OUT] [--bozkir BIN]
//   --dawn DIR     the npm `webgpu` package's folder (default: `import('webgpu')`); it is not a
//                  dependency of web/: `npm install --prefix /tmp/dawn webgpu@0.6.2`
//   --scene DIR    a folder as `bozkir serve` / `bench-viewer` read it (e.g. `bozkir demo --no-serve
//                  --out DIR`), converted to the served layout by `bozkir site --data DIR` into a
//                  temporary folder; or a folder `bozkir site` wrote (catalogue.json and data/),
//                  read as it is. Default: the demo scene (`bozkir site`'s default, the scene
//                  `bench-viewer` serves without a folder)
//   --grids LIST   tiles per side, comma-separated, each 1..256 (default 4,8,16,24,32, the page's)
//   --frames N     timed frames per grid (default 40; the page clamps its own to 4..400)
//   --settle N     untimed frames first, at the path's first view (default 8, the page's)
//   --window WxH   the frame in pixels (default 1280x720, bench-viewer's window; device pixel
//                  ratio 1, as headless Chromium)
//   --json OUT     the adapter, the rows (the page's report keys) and the report lines as JSON
//   --png OUT      the last timed frame of the first grid as a PNG
//   --bozkir BIN   the bozkir binary that converts a scene folder (default target/release/bozkir)
// Exits 1 on a bad argument, a scene that cannot be read, or a GPU error. Without a Vulkan GPU,
// Dawn takes SwiftShader's: VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json (slow:
// e.g. --grids 4 --frames 3 --window 320x240).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { installDawn } from './dawn.mjs';
import { crc32 } from '../src/tileset.js';
import { deflateSync, inflateSync } from 'node:zlib';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const USAGE = 'usage: node web/tools/bench-splat-node.mjs [--dawn DIR] [--scene DIR] [--grids LIST] [--frames N] '
  + '[--settle N] [--window WxH] [--json OUT] [--png OUT] [--bozkir BIN]';

// ------------------------------------------------------------------ arguments (pure)

/** `--grids`' value: tiles per side, each 1..256 (the page's bench drops others silently). */
export function parseGrids(s) {
  const parts = String(s).split(',').map((x) => x.trim());
  const v = parts.map((x) => (/^\d+$/.test(x) ? Number(x) : NaN));
  if (!parts.length || v.some((g) => !(Number.isInteger(g) && g >= 1 && g <= 256))) {
    throw new Error(`--grids ${s}: a comma-separated list of tiles per side, each 1..256 (e.g. 4,8,16,40,256)`);
  }
  return v;
}

/** `--window`'s WIDTHxHEIGHT, each 64..8192 (bench-viewer's rule). */
export function parseWindow(s) {
  const m = /^\s*(\d+)\s*[xX]\s*(\d+)\s*$/.exec(String(s));
  const w = m ? Number(m[1]) : 0, h = m ? Number(m[2]) : 0;
  if (!(w >= 64 && w <= 8192 && h >= 64 && h <= 8192)) throw new Error(`--window ${s}: WIDTHxHEIGHT in pixels, each 64..8192 (e.g. 1920x1080)`);
  return { width: w, height: h };
}

function count(name, s, min, max) {
  const v = /^\d+$/.test(String(s).trim()) ? Number(s) : NaN;
  if (!(Number.isInteger(v) && v >= min && v <= max)) throw new Error(`${name} ${s}: a whole number ${min}..${max}`);
  return v;
}

/** The command line as options; throws with a message naming the bad argument. */
export function parseArgs(argv) {
  const valued = new Set(['--dawn', '--scene', '--grids', '--frames', '--settle', '--window', '--json', '--png', '--bozkir']);
  const o = { dawn: null, scene: null, grids: '4,8,16,24,32', frames: '40', settle: '8', window: '1280x720', json: null, png: null, bozkir: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') return { help: true };
    const eq = a.indexOf('=');
    const name = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a;
    if (!valued.has(name)) throw new Error(`unknown argument ${a} (${USAGE})`);
    let value;
    if (name !== a) value = a.slice(eq + 1);
    else {
      if (i + 1 >= argv.length || argv[i + 1].startsWith('--')) throw new Error(`${a} needs a value`);
      value = argv[++i];
    }
    o[name.slice(2)] = value;
  }
  return {
    dawn: o.dawn,
    scene: o.scene,
    grids: parseGrids(o.grids),
    frames: count('--frames', o.frames, 1, 10000),
    settle: count('--settle', o.settle, 0, 1000),
    window: parseWindow(o.window),
    json: o.json,
    png: o.png,
    bozkir: o.bozkir,
  };
}

// ------------------------------------------------------------------ PNG (pure)

/** RGBA8 pixels (rows top to bottom) as PNG bytes. */
export function encodePng({ width, height, data }) {
  const raw = new Uint8Array(height * (4 * width + 1));
  for (let y = 0; y < height; y++) raw.set(data.subarray(y * 4 * width, (y + 1) * 4 * width), y * (4 * width + 1) + 1);
  const chunk = (type, body) => {
    const out = Buffer.alloc(12 + body.length);
    out.writeUInt32BE(body.length, 0);
    out.write(type, 4, 'latin1');
    Buffer.from(body).copy(out, 8);
    out.writeUInt32BE(crc32(out.subarray(4, 8 + body.length)), 8 + body.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/**
 * A PNG's pixels as `{width, height, data}` RGBA8 (what splat-renderer.js's atlasPixels takes in
 * place of an ImageBitmap): 8-bit grey, grey + alpha, RGB, RGBA or palette, not interlaced.
 */
export function decodePng(bytes) {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length < 8 || b.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let at = 8, w = 0, h = 0, depth = 0, type = 0, interlace = 0, palette = null, trns = null;
  const idat = [];
  while (at + 8 <= b.length) {
    const len = b.readUInt32BE(at), tag = b.toString('latin1', at + 4, at + 8), body = b.subarray(at + 8, at + 8 + len);
    if (tag === 'IHDR') { w = body.readUInt32BE(0); h = body.readUInt32BE(4); depth = body[8]; type = body[9]; interlace = body[12]; }
    else if (tag === 'PLTE') palette = body;
    else if (tag === 'tRNS') trns = body;
    else if (tag === 'IDAT') idat.push(body);
    else if (tag === 'IEND') break;
    at += 12 + len;
  }
  const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[type];
  if (!w || !h || depth !== 8 || !channels || interlace) throw new Error(`PNG of bit depth ${depth}, colour type ${type}${interlace ? ', interlaced' : ''}: only 8-bit, not interlaced is read here`);
  if (type === 3 && !palette) throw new Error('palette PNG without a PLTE chunk');
  const raw = inflateSync(Buffer.concat(idat));
  const stride = w * channels;
  if (raw.length < h * (stride + 1)) throw new Error('PNG data shorter than its size');
  const px = new Uint8Array(h * stride);
  for (let y = 0; y < h; y++) {
    const f = raw[y * (stride + 1)], src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const row = px.subarray(y * stride, (y + 1) * stride), up = y ? px.subarray((y - 1) * stride, y * stride) : null;
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? row[i - channels] : 0, u = up ? up[i] : 0, c = up && i >= channels ? up[i - channels] : 0;
      let p;
      if (f === 0) p = 0;
      else if (f === 1) p = a;
      else if (f === 2) p = u;
      else if (f === 3) p = (a + u) >> 1;
      else if (f === 4) {
        const pa = Math.abs(u - c), pb = Math.abs(a - c), pc = Math.abs(a + u - 2 * c);
        p = pa <= pb && pa <= pc ? a : pb <= pc ? u : c;
      } else throw new Error(`PNG row ${y}: unknown filter ${f}`);
      row[i] = (src[i] + p) & 0xff;
    }
  }
  const data = new Uint8Array(w * h * 4);
  for (let k = 0; k < w * h; k++) {
    const s = k * channels;
    let r, g, bl, al = 255;
    if (type === 0) r = g = bl = px[s];
    else if (type === 4) { r = g = bl = px[s]; al = px[s + 1]; }
    else if (type === 2) { r = px[s]; g = px[s + 1]; bl = px[s + 2]; }
    else if (type === 6) { r = px[s]; g = px[s + 1]; bl = px[s + 2]; al = px[s + 3]; }
    else { const i = px[s]; r = palette[3 * i]; g = palette[3 * i + 1]; bl = palette[3 * i + 2]; al = trns && i < trns.length ? trns[i] : 255; }
    data.set([r, g, bl, al], 4 * k);
  }
  return { width: w, height: h, data };
}

// ------------------------------------------------------------------ the run

/** What to remove however the run ends (the converted scene). */
const cleanup = [];
function exit(code) {
  for (const f of cleanup.splice(0)) f();
  process.exit(code);
}
function fail(message) {
  console.error(`bench-splat-node: ${message}`);
  exit(1);
}

/** The folder the page's files are read from: SCENE itself (a site), or `bozkir site` of it. */
function siteRoot(opts) {
  const scene = opts.scene && resolve(opts.scene);
  if (scene) {
    if (!existsSync(scene)) throw new Error(`--scene ${opts.scene}: no such folder`);
    if (!statSync(scene).isDirectory()) throw new Error(`--scene ${opts.scene}: not a folder`);
    if (existsSync(join(scene, 'catalogue.json'))) return scene;
  }
  const bin = resolve(opts.bozkir || join(REPO, 'target/release/bozkir'));
  if (!existsSync(bin)) {
    throw new Error(`${bin}: no bozkir binary to convert the scene (build it with \`cargo build --release -p bozkir\`, `
      + 'give it with --bozkir, or pass --scene a folder `bozkir site --out` wrote)');
  }
  const out = mkdtempSync(join(tmpdir(), 'bozkir-splat-bench-'));
  cleanup.push(() => rmSync(out, { recursive: true, force: true }));
  const args = ['--quiet', 'site', '--out', out, ...(scene ? ['--data', scene] : [])];
  const run = spawnSync(bin, args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (run.error || run.status !== 0) {
    throw new Error(`\`${bin} ${args.join(' ')}\` failed: ${(run.stderr || run.error?.message || `exit ${run.status}`).trim()}`);
  }
  for (const l of run.stderr.split('\n').filter((x) => /^(warning|error)/.test(x))) console.warn(`bozkir site: ${l}`);
  if (!existsSync(join(out, 'catalogue.json'))) throw new Error(`bozkir site wrote no catalogue.json into ${out}`);
  return out;
}

async function main(opts) {
  let root;
  try {
    root = siteRoot(opts);
  } catch (e) {
    fail(e.message);
  }
  const rootUrl = pathToFileURL(root.endsWith('/') ? root : `${root}/`);
  const catalogue = JSON.parse(readFileSync(join(root, 'catalogue.json'), 'utf8'));
  if (!Array.isArray(catalogue.tilesets) || !Array.isArray(catalogue.terrains)) fail(`${join(root, 'catalogue.json')}: no tilesets and terrains lists`);

  // The page's modules fetch beside themselves (splat.wgsl) and the served files.
  const gpu = await installDawn(opts.dawn, rootUrl).catch((e) => fail(e.message));

  const src = new URL('../src/', import.meta.url);
  const mod = (name) => import(new URL(name, src).href);
  const wasm = await mod('../pkg/bozkir_wasm.js');
  await wasm.default({ module_or_path: readFileSync(fileURLToPath(new URL('../pkg/bozkir_wasm_bg.wasm', src))) });
  const bz = wasm;
  const { SplatRendererGPU } = await mod('gpu/splat-renderer.js');
  const { subTileEdges, waterField } = await mod('render-logic.js');
  const { fetchTileset, openTileset, readZip, describe, attachSplatHashes } = await mod('tileset.js');
  const { BenchRecorder, report: benchReport, sweepCameras } = await mod('bench.js');
  const { defaults } = await mod('controls.js');

  // --- main.js's loading, for the catalogue's defaults (loadTileset, decodeAtlas, attachHashes,
  // loadTerrain, setTerrain).
  const attachHashes = (ts) => attachSplatHashes(ts, bz.splatHashes);
  const decodeAtlas = (ts) => {
    const a = ts.manifest.atlas;
    ts.atlas = null;
    if (!ts.atlasPng || !a) return ts;
    try {
      ts.atlas = { image: decodePng(ts.atlasPng), res: a.res, cols: a.cols, rows: a.rows, meanRgb: a.mean_rgb };
    } catch (e) {
      console.warn(`the tileset's atlas could not be decoded (${e.message}); the far field is baked instead (as the page does)`);
    }
    return ts;
  };
  const tsName = catalogue.default?.tileset ?? 'starter';
  let ts;
  if (tsName === 'starter') {
    const s = bz.starterTileset();
    ts = await openTileset({ manifest: s.manifest, splat: s.splats });
    const a = ts.manifest.atlas;
    ts.atlas = { image: { width: s.atlasWidth, height: s.atlasHeight, data: s.atlas }, res: a.res, cols: a.cols, rows: a.rows, meanRgb: a.mean_rgb };
  } else {
    const entry = catalogue.tilesets.find((t) => t.name === tsName);
    if (!entry) fail(`catalogue.json: default tileset "${tsName}" is not among its tilesets`);
    const base = new URL(entry.path, rootUrl).href;
    ts = decodeAtlas(entry.zip
      ? await openTileset(await readZip(new Uint8Array(await (await fetch(`${base}tileset.zip`)).arrayBuffer())))
      : await fetchTileset(base));
  }
  attachHashes(ts);
  const fetchF32 = async (url) => {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
    const buf = await res.arrayBuffer();
    if (buf.byteLength % 4) throw new Error(`${url}: ${buf.byteLength} bytes is not a whole number of f32 values`);
    return new Float32Array(buf);
  };
  let terrain;
  const trName = catalogue.default?.terrain;
  if (trName) {
    const entry = catalogue.terrains.find((t) => t.name === trName);
    if (!entry) fail(`catalogue.json: default terrain "${trName}" is not among its terrains`);
    const base = new URL(entry.path, rootUrl).href;
    const meta = await (await fetch(`${base}terrain.json`)).json();
    const heights = await fetchF32(`${base}heights.f32`);
    if (heights.length !== meta.width * meta.height) fail(`${base}heights.f32: ${heights.length} values for ${meta.width} × ${meta.height}`);
    terrain = {
      width: meta.width, height: meta.height, heights,
      sediment: entry.sediment ? await fetchF32(`${base}sediment.f32`) : null,
      water: entry.water ? await fetchF32(`${base}water.f32`) : null,
      seaLevel: entry.sea_level_m ?? null, label: entry.name,
    };
  } else {
    // No terrain served: the page generates rolling, seed 0, 256² (terrain-cache.js, in a worker
    // and IndexedDB, neither in Node; the same WebAssembly call as its fallback).
    const g = bz.generate('rolling', 0, 256);
    terrain = { width: g.width, height: g.height, heights: g.heights, unit: g.unitHeights, sediment: g.sediment, label: 'rolling · seed 0 · 256²' };
  }
  const field = new bz.SceneField(terrain.unit ?? terrain.heights, terrain.width, terrain.height, terrain.sediment ?? undefined);
  const water = waterField(terrain.heights, terrain.water ?? null, terrain.seaLevel ?? null);
  console.log(`scene: ${tsName} (${describe(ts)}) on ${terrain.label} (${terrain.width}×${terrain.height}), from ${opts.scene ? `${opts.scene}${root === resolve(opts.scene) ? "" : " (converted by bozkir site)"}` : "the demo scene (bozkir site)"}`);

  // --- the renderer, off screen, on a stand-in canvas of the window's size (dpr 1).
  const { width: W, height: H } = opts.window;
  const canvas = { width: W, height: H, clientWidth: W, clientHeight: H };
  let r;
  try {
    r = await SplatRendererGPU.create(canvas, { present: false });
  } catch (e) {
    fail(`the WebGPU splat renderer cannot start: ${e.message}${/no adapter/.test(e.message)
      ? ' (no Vulkan driver Dawn takes; without a GPU: VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json)' : ''}`);
  }
  let gpuError = null;
  r.device.onuncapturederror = (e) => { gpuError = gpuError || e.error.message; };
  const info = r.adapter.info || {};
  console.log(`adapter: ${[info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(' / ')}`);
  r.setTileset(ts);
  const why = r.supports();
  if (why) fail(`the WebGPU path declines this scene (the page would draw it with WebGL2): ${why}`);

  // --- main.js's state and rebuildScene, for the bench: every control at its default, the
  // relief scale following the grid, auto quality off (renderOptions at render scale 1).
  const s = defaults();
  let mapping = null;
  const rebuild = (n) => {
    s.grid = n;
    s.reliefscale = Math.min(256, Math.max(4, n));
    const detail = s.detailon ? s.detailamt : 0;
    const m = new bz.Mapping(n, ts.size, s.relief, 0, s.gridangle, detail, s.compat);
    const classes = ts.manifest.classes.length;
    const decision = s.classrule && classes >= 2
      ? field.classify(m, s.classbalance, s.classaltitude, Math.round(s.classcoherence), s.classsharp) : null;
    const width = s.classblend ? s.blendwidth : 0;
    const cells = bz.sceneCells(ts.manifestJson, n, 1, decision ? decision.classes : undefined, decision ? decision.runnerUp : undefined,
      decision ? decision.strength : undefined, decision ? width : 0);
    if (cells.unmatched > 0) console.warn(`${cells.unmatched} cells had no tile of their class for their code`);
    const strength = decision ? Float32Array.from(decision.strength) : new Float32Array(n * n).fill(1);
    const cls = decision ? decision.classes : new Uint8Array(n * n);
    let draws = { alt: cells.alt, ownT: cells.ownThreshold, altT: cells.altThreshold, sub: null };
    if (decision && s.classedges && classes === 2) {
      draws = subTileEdges({ tile: cells.tile, alt: draws.alt, ownT: draws.ownT, altT: draws.altT, cls }, n, ts.manifest.tiles);
    }
    mapping?.free?.();
    mapping = m;
    r.setScene({
      n, tile: ts.size, amplitude: m.amplitude, reliefScale: m.reliefScale, angleDeg: s.gridangle, detail, compat: m.compat,
      field: { width: field.width, height: field.height, z: field.z, mask: field.mask, open: field.open, water: water?.depth ?? null },
      waterRange: water?.range ?? 0,
      cells: { tile: cells.tile, alt: draws.alt, ownT: draws.ownT, altT: draws.altT, mix: cells.mix, cls, strength, sub: draws.sub },
    });
  };
  const renderOptions = () => ({
    exposure: s.exposure, saturation: s.saturation, shade: s.shade, macro: s.macro, level: s.tilelevel, fog: s.fog,
    lodBase: s.lodbase, farField: s.farfield, underlay: s.underlay, horizon: s.horizon, water: s.water, detail: s.detailon,
    overlay: s.classview, renderScale: 1, ordering: s.ordering, mergeThreshold: s.mergethr, background: [0.62, 0.70, 0.78],
  });
  const tick = () => new Promise((res) => setTimeout(res, 0));

  // --- runBench: per grid the scene, settle frames at the first view, then the timed orbit.
  const rec = new BenchRecorder();
  const extra = new Map();
  let failed = false;
  for (const [gi, g] of opts.grids.entries()) {
    try {
      const tb = performance.now();
      rebuild(g);
      const cams = sweepCameras(g, opts.frames);
      const tile = ts.size;
      const frameMs = [];
      let drawCalls = 0, splats = 0, cells = 0, dropped = 0, firstMs = 0;
      for (let k = -opts.settle; k < opts.frames; k++) {
        const v = cams[Math.max(0, k)];
        const cam = { target: [0, 0, field.heightAt(mapping, 0, 0)], az: v.az, el: v.el, dist: v.dist * tile, fov: s.fov };
        const t0 = performance.now();
        const st = r.render(cam, renderOptions());
        await r.finish(); // wait for the GPU
        const ms = performance.now() - t0;
        if (k === -opts.settle) firstMs = performance.now() - tb;
        await tick(); // the frame's counters, mapped once the GPU was done
        if (gpuError) throw new Error(`the GPU reported an error: ${gpuError}`);
        if (r.lost) throw new Error(`the WebGPU device was lost (${r.lost})`);
        if (k >= 0) {
          frameMs.push(ms);
          drawCalls = Math.max(drawCalls, st.drawCalls);
          const c = r.counts;
          splats = Math.max(splats, c ? c.splats : st.splats);
          cells = Math.max(cells, c ? c.cells : st.cells);
          dropped = Math.max(dropped, c ? c.dropped : 0);
        }
      }
      rec.add(g, { frameMs, sortMs: [], drawCalls, splats });
      extra.set(g, { cells, dropped, first_frame_ms: firstMs });
      if (gi === 0 && opts.png) {
        writeFileSync(opts.png, encodePng(await r.readPixels()));
        console.log(`wrote the last frame of grid ${g} to ${opts.png}`);
      }
      const row = rec.summary().find((x) => x.grid === g);
      console.log(`grid ${String(g).padStart(3)} (${String(g * g).padStart(5)} tiles): ${row.fps.toFixed(1).padStart(7)} fps  `
        + `p50 ${row.p50.toFixed(2).padStart(8)} ms  p95 ${row.p95.toFixed(2).padStart(8)} ms  `
        + `${String(row.splats).padStart(9)} splats  ${row.drawCalls} draw calls${dropped ? `  (${dropped} splats past the instance capacity)` : ''}`);
    } catch (e) {
      console.error(`grid ${g}: ${e.message || e}`);
      failed = true;
      if (r.lost) break;
    }
  }
  const summary = rec.summary();
  const lines = benchReport(summary);
  for (const l of lines) console.log(l);
  if (opts.json) {
    const body = {
      tool: 'web/tools/bench-splat-node.mjs',
      renderer: 'webgpu',
      gpu: r.gpuName,
      adapter: { vendor: info.vendor, architecture: info.architecture, device: info.device, description: info.description },
      window: { width: W, height: H },
      frames: opts.frames,
      settle: opts.settle,
      scene: { tileset: tsName, terrain: terrain.label, splats: ts.splats.count, tiles: ts.tiles.length },
      rows: summary.map((x) => ({
        grid: x.grid, tiles: x.grid * x.grid, splats: x.splats, fps: x.fps, p50: x.p50, p95: x.p95, p99: x.p99,
        sort_ms: x.sortMs, draw_calls: x.drawCalls, ...extra.get(x.grid),
      })),
      report: lines,
    };
    writeFileSync(opts.json, `${JSON.stringify(body, null, 1)}\n`);
    console.log(`wrote the report to ${opts.json}`);
  }
  r.dispose();
  exit(failed ? 1 : 0);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    fail(e.message);
  }
  if (opts.help) {
    console.log(USAGE);
    process.exit(0);
  }
  process.on('SIGINT', () => exit(130));
  await main(opts).catch((e) => fail(e.stack || e.message || String(e)));
}

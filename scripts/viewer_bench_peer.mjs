#!/usr/bin/env node
// Frame times of our viewer (web/) and the original bozkir viewer, side by side, measured the
// same way in the same headless Chromium (issue 6).
//
// This script only drives pages; it contains none of the original viewer's code. The original's
// web/ modules are assembled by hand into a scratch folder outside this repository (default
// /tmp/orig-viewer/web, see docs/benchmarks.md) and served from there.
//
// Method, identical for both pages:
//   * both pages keep their own requestAnimationFrame loop (ours: `loop`, the original: `frame`);
//     an init script wraps requestAnimationFrame so that, for that one callback, the driver
//     (a) sets the camera pose for step k through the page's own camera object, (b) times the
//     callback plus a 1-pixel gl.readPixels (waits for the GPU to finish the frame);
//   * the same camera path (an orbit sweep: az 45+360t, el 27+15 sin 2πt, distance
//     max(2, 0.75·grid)·(1+0.15 cos 4πt) tiles, target over the terrain at the centre);
//   * same viewport, same grid sizes, auto quality off in both, `settle` frames after the grid
//     is rebuilt and before measuring;
//   * per frame the page's own counters are read: splats drawn, draw calls, sort time.
// Usage:
//   node scripts/viewer_bench_peer.mjs [--grids 4,8,16,24,32,40] [--frames 24] [--settle 8]
//        [--orig /tmp/orig-viewer/web] [--json out.json] [--only ours|orig] [--gpu]
//        [--width 1280 --height 720] [--cap-s 120]
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = path.dirname(fileURLToPath(import.meta.url));
const OURS = path.resolve(here, '../web');
const require = createRequire(path.join(OURS, 'package.json'));
const { chromium } = require('playwright-core');

function arg(name, dflt) {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return dflt;
  const v = process.argv[i + 1];
  return v === undefined || v.startsWith('--') ? true : v;
}
const grids = String(arg('grids', '4,8,16,24,32,40')).split(',').map(Number).filter((g) => g > 0);
const FRAMES = Number(arg('frames', 24));
const SETTLE = Number(arg('settle', 8));
const ORIG = path.resolve(arg('orig', '/tmp/orig-viewer/web'));
const JSON_OUT = arg('json', null);
const ONLY = arg('only', null);
const WIDTH = Number(arg('width', 1280)), HEIGHT = Number(arg('height', 720));
const CAP_S = Number(arg('cap-s', 120));
const GPU = !!arg('gpu', false);

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json', '.wasm': 'application/wasm', '.css': 'text/css', '.png': 'image/png', '.svg': 'image/svg+xml',
};

// Read-only hook appended to the original's viewer.js when it is served: exposes its module-scope
// camera and counters (it has no window handle of its own). Nothing in its logic changes.
const ORIG_HOOK = `
;window.__peer = {
  cam,
  height: (x, y) => height(x, y),
  get tileSize() { return tileSize; },
  get stats() { return { cells: cells.length, splats: drawnSplats, drawCalls, sortMs, gridN,
    blended: blendedCells, merged: mergeStats.groups, canvas: [canvas.width, canvas.height] }; },
};
`;

function serve(root, { extra = {}, hook = null } = {}) {
  const server = http.createServer((req, res) => {
    let p = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    let file = null;
    for (const [prefix, dir] of Object.entries(extra)) {
      if (p.startsWith(prefix)) file = path.join(dir, p.slice(prefix.length));
    }
    if (!file) file = path.join(root, p === '/' ? 'index.html' : p);
    fs.readFile(file, (err, body) => {
      if (err) { res.writeHead(404); res.end('not found'); return; }
      if (hook && p === hook.path) body = Buffer.concat([body, Buffer.from(hook.text)]);
      res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream', 'Cache-Control': 'no-store' });
      res.end(body);
    });
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

// Runs in both pages before their scripts.
const INIT = () => {
  const raf = window.requestAnimationFrame.bind(window);
  const P = (window.__drv = { target: null, gl: null, before: null, after: null, px: new Uint8Array(4) });
  const getContext = HTMLCanvasElement.prototype.getContext;
  HTMLCanvasElement.prototype.getContext = function (type, opts) {
    const c = getContext.call(this, type, opts);
    if (type === 'webgl2' && c && !P.gl) P.gl = c;
    return c;
  };
  window.requestAnimationFrame = (cb) => raf((ts) => {
    if (P.target && cb.name === P.target && P.before) {
      P.before();
      const t0 = performance.now();
      cb(ts);
      P.gl.readPixels(0, 0, 1, 1, P.gl.RGBA, P.gl.UNSIGNED_BYTE, P.px);
      P.after(performance.now() - t0);
    } else cb(ts);
  });
};

// Page-side measurement of one grid size (serialised into the page).
async function measure({ kind, grid, frames, settle, capMs }) {
  const P = window.__drv;
  const path = [];
  for (let k = 0; k < frames; k++) {
    const t = k / frames;
    path.push({ az: 45 + 360 * t, el: 27 + 15 * Math.sin(2 * Math.PI * t),
                dist: Math.max(2, 0.75 * grid) * (1 + 0.15 * Math.cos(4 * Math.PI * t)) });
  }
  const app = window.bozkir, peer = window.__peer;
  const tile = kind === 'ours' ? app.tileset.size : peer.tileSize;
  const centreZ = () => (kind === 'ours' ? app.heightAt(0, 0) : peer.height(0, 0));
  const setPose = (v) => {
    if (kind === 'ours') {
      Object.assign(app.cam, { az: v.az, el: v.el, dist: v.dist * tile, target: [0, 0, centreZ()] });
      app.dirty = true;
    } else {
      peer.cam.azimuth = v.az; peer.cam.elevation = v.el; peer.cam.distance = v.dist * tile;
      peer.cam.target = [0, 0, centreZ()];
    }
  };
  const read = () => {
    if (kind === 'ours') {
      const s = app.stats || {};
      return { splats: s.splats, drawCalls: s.drawCalls, sortMs: s.sortMs || 0, cells: s.cells };
    }
    const s = peer.stats;
    return { splats: s.splats, drawCalls: s.drawCalls, sortMs: s.sortMs || 0, cells: s.cells };
  };
  // Grid change through each page's own control path.
  const t0 = performance.now();
  if (kind === 'ours') {
    app.set('grid', grid);
    app.dirty = true;
  } else {
    const el = document.getElementById('grid');
    el.max = String(Math.max(+el.max, grid));
    el.value = String(grid);
    el.dispatchEvent(new Event('input'));
  }
  const nextFrame = () => new Promise((r) => requestAnimationFrame(r));
  // Wait for the rebuild.
  for (;;) {
    await nextFrame();
    if (kind === 'ours' ? !app.sceneDirty : peer.stats.gridN === grid && peer.stats.cells === grid * grid) break;
    if (performance.now() - t0 > capMs) return { grid, error: 'rebuild did not finish in time' };
  }
  const rebuildMs = performance.now() - t0;
  const samples = [];
  let k = -settle;
  return await new Promise((resolve) => {
    P.before = () => setPose(path[Math.max(0, k)]);
    P.after = (ms) => {
      if (k >= 0) samples.push({ ms, ...read() });
      k++;
      const late = performance.now() - t0 > capMs;
      if (k >= frames || late) {
        P.before = null; P.after = null;
        resolve({ grid, samples, rebuildMs, truncated: late && k < frames,
                  canvas: kind === 'ours' ? [app.renderer.gl.canvas.width, app.renderer.gl.canvas.height] : peer.stats.canvas });
      }
      if (kind === 'ours') app.dirty = true;
    };
    if (kind === 'ours') app.dirty = true;
  });
}

function summarise(r) {
  if (!r.samples || !r.samples.length) return { grid: r.grid, error: r.error || 'no samples' };
  const ms = r.samples.map((s) => s.ms).sort((a, b) => a - b);
  const q = (p) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))];
  const mean = ms.reduce((a, b) => a + b, 0) / ms.length;
  const avg = (k) => r.samples.reduce((t, s) => t + (s[k] || 0), 0) / r.samples.length;
  return {
    grid: r.grid, tiles: r.grid * r.grid, frames: ms.length, truncated: !!r.truncated,
    splats: Math.round(avg('splats')), splats_max: Math.max(...r.samples.map((s) => s.splats || 0)),
    draw_calls: Math.round(avg('drawCalls')), sort_ms: +avg('sortMs').toFixed(2),
    mean_ms: +mean.toFixed(2), fps: +(1000 / mean).toFixed(2), p50: +q(0.5).toFixed(2), p95: +q(0.95).toFixed(2),
    rebuild_ms: Math.round(r.rebuildMs), canvas: r.canvas,
  };
}

async function runPage(browser, kind, url) {
  const page = await browser.newPage({ viewport: { width: WIDTH, height: HEIGHT } });
  const logs = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') logs.push(`${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => logs.push(`pageerror: ${e.message}`));
  await page.addInitScript(INIT);
  await page.goto(url);
  if (kind === 'ours') {
    await page.waitForFunction(() => window.bozkir && window.bozkir.ready, null, { timeout: 120000 });
    const ok = await page.evaluate(() => window.bozkir.ready);
    if (!ok) throw new Error(`our viewer failed: ${logs.join('\n')}`);
    await page.evaluate(() => {
      const app = window.bozkir;
      app.set('autoquality', false);
      app.quality.enabled = false;
      window.__drv.gl = app.renderer.gl;
      window.__drv.target = 'loop';
    });
  } else {
    await page.waitForFunction(() => window.__peer && window.__presetApplied === 'readme'
      && window.__peer.stats.cells > 1, null, { timeout: 120000 });
    await page.evaluate(() => {
      const el = document.getElementById('autoquality');
      el.checked = false;
      el.dispatchEvent(new Event('change'));
      window.__drv.target = 'frame';
    });
  }
  const gpu = await page.evaluate(() => {
    const gl = window.__drv.gl;
    const d = gl.getExtension('WEBGL_debug_renderer_info');
    return d ? gl.getParameter(d.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER);
  });
  const rows = [];
  for (const grid of grids) {
    const t0 = Date.now();
    const r = await page.evaluate(measure, { kind, grid, frames: FRAMES, settle: SETTLE, capMs: CAP_S * 1000 });
    const s = summarise(r);
    rows.push(s);
    process.stderr.write(`${kind} grid ${grid}: ${s.error || `${s.mean_ms} ms mean, ${s.splats} splats, ${s.draw_calls} calls`} (${((Date.now() - t0) / 1000).toFixed(0)} s)\n`);
    if (s.error || s.truncated) { process.stderr.write(`${kind}: stopping at grid ${grid} (time cap)\n`); break; }
  }
  await page.close();
  return { gpu, rows, logs: logs.slice(0, 20) };
}

const args = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
  '--disable-background-timer-throttling', '--disable-renderer-backgrounding'];
if (GPU) args.push('--enable-gpu', '--ignore-gpu-blocklist', '--use-angle=default');
else args.push('--use-angle=swiftshader', '--enable-unsafe-swiftshader');

const oursServer = await serve(OURS);
const origServer = await serve(ORIG, { extra: { '/ourpkg/': path.join(OURS, 'pkg') }, hook: { path: '/viewer.js', text: ORIG_HOOK } });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args });
const out = { browser: browser.version(), viewport: [WIDTH, HEIGHT], frames: FRAMES, settle: SETTLE, grids, mode: GPU ? 'gpu' : 'swiftshader' };
try {
  if (ONLY !== 'orig') out.ours = await runPage(browser, 'ours', `http://127.0.0.1:${oursServer.address().port}/index.html?scene=starter&gen=rolling&seed=0&size=256`);
  if (ONLY !== 'ours') out.orig = await runPage(browser, 'orig', `http://127.0.0.1:${origServer.address().port}/index.html?scene=starter`);
} finally {
  await browser.close();
  oursServer.close();
  origServer.close();
}

const f = (v, d = 1) => (v === undefined || v === null ? '–' : Number(v).toFixed(d));
const lines = [];
lines.push(`Chromium ${out.browser}, ${out.mode}; GPU string: ours "${out.ours?.gpu ?? '–'}", original "${out.orig?.gpu ?? '–'}"; viewport ${WIDTH}×${HEIGHT}; ${SETTLE} settle + ${FRAMES} measured frames per size`);
lines.push('');
lines.push('| grid | tiles | splats ours | splats orig | calls ours | calls orig | sort ms ours | sort ms orig | fps ours | fps orig | p50 ours | p50 orig | p95 ours | p95 orig | orig/ours time |');
lines.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const g of grids) {
  const a = out.ours?.rows.find((r) => r.grid === g) || {};
  const b = out.orig?.rows.find((r) => r.grid === g) || {};
  const ratio = a.mean_ms && b.mean_ms ? (b.mean_ms / a.mean_ms).toFixed(2) : '–';
  lines.push(`| ${g} | ${g * g} | ${a.splats ?? '–'} | ${b.splats ?? '–'} | ${a.draw_calls ?? '–'} | ${b.draw_calls ?? '–'} | ${f(a.sort_ms)} | ${f(b.sort_ms)} | ${f(a.fps, 2)} | ${f(b.fps, 2)} | ${f(a.p50)} | ${f(b.p50)} | ${f(a.p95)} | ${f(b.p95)} | ${ratio} |`);
}
console.log(lines.join('\n'));
out.table = lines;
if (JSON_OUT && JSON_OUT !== true) fs.writeFileSync(JSON_OUT, JSON.stringify(out, null, 2));

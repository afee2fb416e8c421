// The WebGPU splat path (web/src/gpu/splat-renderer.js, splat.wgsl) against the WebGL2 renderer
// in one headless Chromium: WebGPU on SwiftShader's Vulkan, WebGL2 on SwiftShader through ANGLE
// (the page's canvases: #view for WebGL2, #view-gpu for WebGPU). The default scene (the starter
// tileset over a 64² canyon), 320 × 240. Under CI=true a browser without WebGPU fails the tests.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skip, bin, serve, launchWebGPU, outDir, withoutWebGPU } from './setup.mjs';

const W = 320, H = 240;
let ctx = null;

before(async () => {
  if (skip) return;
  const dir = mkdtempSync(join(tmpdir(), 'bozkir-splat-webgpu-'));
  execFileSync(bin, ['--quiet', 'terrain', '--profile', 'canyon', '--seed', '3', '--size', '64', '--out', join(dir, 'canyon64')], { stdio: 'ignore' });
  const s = await serve(dir);
  // launchWebGPU's flags with ANGLE back on SwiftShader's GL (a later switch wins): WebGL2 is
  // missing with ANGLE on Vulkan here, and the WebGPU canvas presents fine this way.
  const browser = await launchWebGPU(['--use-angle=swiftshader', '--enable-unsafe-swiftshader']);
  ctx = { dir, server: s.child, browser, base: s.url };
  ctx.open = async (query) => {
    const page = await browser.newPage({ viewport: { width: W, height: H } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.setDefaultTimeout(120000);
    await page.goto(`${s.url}${query}`, { waitUntil: 'domcontentloaded' });
    await page.waitForFunction(() => window.bozkir && window.bozkir.ready);
    return { page, errors };
  };
  const { page, errors } = await ctx.open('?renderer=webgpu&nointro=1');
  ctx.page = page;
  ctx.errors = errors;
  ctx.why = await page.evaluate(() => (window.bozkir.gpu ? null : window.bozkir.gpuWhy || 'no WebGPU renderer'));
});

after(async () => {
  if (!ctx) return;
  await ctx.browser.close();
  ctx.server.kill();
  rmSync(ctx.dir, { recursive: true, force: true });
});

/** Skip (or, under CI=true, fail) when there is no browser or no WebGPU in it. */
const unavailable = (t) => withoutWebGPU(t, ctx?.why);

// The fixed views: the page's default camera, a closer, higher one from the other side, and a
// grazing one (where the draw order matters most).
const VIEWS = [{ name: 'default', az: 45, el: 25, dist: 1 }, { name: 'near', az: 200, el: 40, dist: 0.6 }, { name: 'grazing', az: 200, el: 8, dist: 0.4 }];

/**
 * Each view drawn by WebGL2 and by a WebGPU renderer (the page's, or one made from `wgsl`, a
 * changed splat.wgsl) with the page's options: per view the mean absolute difference per channel
 * (levels of 255), the share of pixels with a channel more than 16 levels off, and both pictures
 * as PNG data URLs when `png`.
 */
function compare(page, { mutate = null, png = false, views = VIEWS } = {}) {
  return page.evaluate(async ({ views, mutate, png }) => {
    const app = window.bozkir;
    let gpu = app.gpu, made = null;
    if (mutate) {
      const { SplatRendererGPU } = await import('/src/gpu/splat-renderer.js');
      let text = await (await fetch('/src/gpu/splat.wgsl')).text();
      for (const [from, to] of mutate) {
        if (!text.includes(from)) throw new Error(`mutation not found: ${from}`);
        text = text.replace(from, to);
      }
      const c = document.createElement('canvas');
      c.style.cssText = 'position:fixed;inset:0;width:100vw;height:100vh;visibility:hidden';
      document.body.appendChild(c);
      gpu = made = await SplatRendererGPU.create(c, { wgsl: text });
      gpu.setTileset(app.tileset);
      gpu.setScene(app.scene);
    }
    const toPng = (img) => {
      const c = document.createElement('canvas');
      c.width = img.width; c.height = img.height;
      c.getContext('2d').putImageData(new ImageData(new Uint8ClampedArray(img.data), img.width, img.height), 0, 0);
      return c.toDataURL('image/png');
    };
    const out = [];
    for (const v of views) {
      const cam = { ...app.cam, fov: app.state.fov, az: v.az, el: v.el, dist: app.cam.dist * v.dist };
      const o = app.frameOptions();
      // WebGL2's order comes from its sort worker (per-tile orders, merged streams) a frame or
      // more late: draw until nothing is pending, so both pictures are of this camera's order.
      // The WebGL2 picture of a view is drawn once and kept: the wrong ports compare with it too.
      const r = app.renderer;
      const key = JSON.stringify([v, o]);
      window.__glPictures ??= new Map();
      let a = window.__glPictures.get(key);
      if (!a) {
        for (let k = 0; k < 6; k++) {
          r.render(cam, o);
          if (!r.sortPending && !r.mergePending) break;
          for (let w = 0; w < 400 && (r.sortPending || r.mergePending); w++) await new Promise((res) => setTimeout(res, 25));
        }
        r.render(cam, o);
        a = r.readPixels();
        window.__glPictures.set(key, a);
      }
      gpu.render(cam, o);
      const b = await gpu.readPixels();
      if (a.width !== b.width || a.height !== b.height) throw new Error(`sizes differ: ${a.width}×${a.height} and ${b.width}×${b.height}`);
      const sum = [0, 0, 0];
      let over = 0, max = 0;
      const N = a.width * a.height;
      for (let k = 0; k < N; k++) {
        let m = 0;
        for (let ch = 0; ch < 3; ch++) {
          const d = Math.abs(a.data[k * 4 + ch] - b.data[k * 4 + ch]);
          sum[ch] += d;
          m = Math.max(m, d);
        }
        if (m > 16) over++;
        max = Math.max(max, m);
      }
      out.push({ name: v.name, width: a.width, height: a.height, mean: sum.map((x) => x / N), over: over / N, max,
        ...(png ? { gl: toPng(a), gpu: toPng(b) } : {}) });
    }
    made?.dispose();
    return out;
  }, { views, mutate, png });
}

// Thresholds, from measurement (SwiftShader both ways, Chromium 156, 320 × 240; mean absolute
// difference per channel R, G, B in levels of 255, share of pixels with a channel over 16 off):
//   the port:            0.39–0.85, 0.29–0.66, 0.27–0.60; 0.6–1.5 % over 16 (over four views);
//   no depth sort:       1.54–1.63, 1.10–1.21, 0.81–0.95; 0.9–1.7 %; in one CI run 1.12–1.18 in
//                        red (the append order varies between runs);
//   covariance swapped:  1.6–2.5 in red (measured against a stale WebGL2 order, before the
//                        comparison waited for the sort worker; the port measured 0.6–2.7 then).
// What remains for the port is the draw order (one global depth sort of every splat here,
// per-tile orders in a topological tile order with merged groups in WebGL2: translucent splats
// that overlap blend in another order) and a few pixels of the screen doors and far-field edge
// (largest differences near 100 levels, on isolated pixels). A mean under 1.0 level in every
// channel, midway between the port's 0.85 and the unsorted variant's lowest 1.12–1.18, separates
// the port from both wrong variants; the share over 16 levels does not (the differences are
// spread thin), so it is held loosely, under 3 %, against gross failures.
const MEAN_MAX = 1.0, OVER_MAX = 0.03;
const fails = (r) => r.mean.some((m) => m >= MEAN_MAX) || r.over >= OVER_MAX;

test('WebGPU draws the WebGL2 picture on three fixed views of the default scene', async (t) => {
  if (unavailable(t)) return;
  const res = await compare(ctx.page, { png: true });
  mkdirSync(outDir, { recursive: true });
  for (const r of res) {
    for (const k of ['gl', 'gpu']) writeFileSync(join(outDir, `splat-webgpu-${r.name}-${k}.png`), Buffer.from(r[k].split(',')[1], 'base64'));
    t.diagnostic(`${r.name}: mean ${r.mean.map((m) => m.toFixed(2)).join(', ')}, ${(100 * r.over).toFixed(2)} % over 16, largest ${r.max}`);
    assert.equal(r.width, W);
    assert.equal(r.height, H);
    for (const m of r.mean) assert.ok(m < MEAN_MAX, `${r.name}: mean difference ${m.toFixed(2)} ≥ ${MEAN_MAX}`);
    assert.ok(r.over < OVER_MAX, `${r.name}: ${(100 * r.over).toFixed(2)} % of pixels over 16 levels off`);
  }
  assert.deepEqual(ctx.errors, []);
});

const MUTANTS = {
  'no depth sort (instances in append order)': [['let s = inst[order[ii]];', 'let s = inst[ii];']],
  'covariance axes swapped': [['let major = min(sqrt(2.0 * l1), 1024.0) * dir;', 'let major = min(sqrt(2.0 * l2), 1024.0) * dir;'],
    ['let minor = min(sqrt(2.0 * l2), 1024.0);', 'let minor = min(sqrt(2.0 * l1), 1024.0);']],
};

test('the pixel comparison catches a wrong WebGPU port', async (t) => {
  if (unavailable(t)) return;
  // The near and grazing views: the default one is too far for either fault to show (above).
  for (const [name, mutate] of Object.entries(MUTANTS)) {
    const res = await compare(ctx.page, { mutate, views: VIEWS.slice(1) });
    t.diagnostic(`${name}: ${res.map((r) => `${r.name} mean ${r.mean.map((m) => m.toFixed(2)).join(', ')}, ${(100 * r.over).toFixed(2)} % over 16`).join('; ')}`);
    assert.ok(res.some(fails), `${name} passes the thresholds`);
  }
});

test('the GPU selects the cells and levels of detail visibleCells selects', async (t) => {
  if (unavailable(t)) return;
  const cams = [
    { az: 45, el: 25, dist: 1 }, { az: 200, el: 40, dist: 0.6 }, { az: 300, el: 12, dist: 1.4 }, { az: 120, el: 60, dist: 0.3 },
    { az: 10, el: 5, dist: 0.5 },
  ];
  const res = await ctx.page.evaluate(async (cams) => {
    const app = window.bozkir, gpu = app.gpu;
    const rl = await import('/src/render-logic.js');
    const cm = await import('/src/camera.js');
    const out = [];
    for (const v of cams) {
      const cam = { ...app.cam, fov: app.state.fov, az: v.az, el: v.el, dist: app.cam.dist * v.dist };
      const o = app.frameOptions();
      gpu.render(cam, o);
      const sel = await gpu.selection();
      const basis = cm.cameraBasis(cam);
      const W = gpu.canvas.width, H = gpu.canvas.height;
      const L = gpu.levelCount;
      const cells = rl.visibleCells({
        scene: app.scene, basis, planes: cm.frustumPlanes(basis, W / H), lodBase: o.lodBase ?? 8, levels: L,
        far: o.farField ? rl.farStart(o.lodBase ?? 8, L, app.scene.tile) : null, height: gpu.frameHeight(!!o.detail),
      });
      const want = new Uint32Array(sel.length);
      for (const c of cells) want[c.c] = (c.levels[0].level + 1) | (c.levels.length > 1 ? 0x100 : 0);
      const diff = [];
      for (let c = 0; c < sel.length; c++) if (sel[c] !== want[c]) diff.push({ c, gpu: sel[c], cpu: want[c] });
      const levels = new Set([...want].filter((x) => x));
      out.push({ n: app.scene.n, cells: cells.length, drawn: [...sel].filter((x) => x).length, levels: [...levels], diff: diff.slice(0, 8), ndiff: diff.length });
    }
    return out;
  }, cams);
  for (const r of res) t.diagnostic(JSON.stringify(r));
  for (const r of res) assert.equal(r.ndiff, 0, `GPU and CPU selections differ: ${JSON.stringify(r.diff)}`);
  // Every camera selects some of the 24² cells and culls others (123–272 drawn on Chromium 156),
  // one with the far field taking all but 7.
  for (const r of res) assert.ok(r.cells > 0 && r.cells < r.n * r.n, `a camera selects ${r.cells} of ${r.n * r.n} cells`);
  assert.ok(res.some((r) => r.levels.length > 1 || r.levels.some((x) => x & 0x100)), 'no view has more than one level of detail');
});

test('the status line shows the WebGPU frame\'s splats and cells once the GPU has counted them', async (t) => {
  if (unavailable(t)) return;
  // A still camera: the page draws on demand, and the counters arrive after their frame.
  const { page, errors } = await ctx.open('?renderer=webgpu&nointro=1');
  await page.waitForFunction(() => /[1-9][\d,]* splats · 2 draws · [1-9]\d* cells · sort on the GPU/.test(document.getElementById('stats').textContent), null, { timeout: 60000 });
  const text = await page.evaluate(() => document.getElementById('stats').textContent);
  t.diagnostic(text);
  assert.deepEqual(errors, []);
  await page.close();
});

test('benchmark mode with renderer=webgpu reports the renderer, frame times, splats and draw calls', async (t) => {
  if (unavailable(t)) return;
  const { page, errors } = await ctx.open('?renderer=webgpu&bench=1&grids=4&frames=4&nointro=1');
  await page.waitForFunction(() => window.bozkir.benchResult, null, { timeout: 120000 });
  const body = await page.evaluate(() => window.bozkir.benchResult);
  t.diagnostic(JSON.stringify(body));
  assert.equal(body.renderer, 'webgpu');
  assert.match(body.gpu, /WebGPU/);
  assert.equal(body.rows.length, 1);
  for (const r of body.rows) {
    assert.ok(r.p50 > 0 && Number.isFinite(r.fps), `frame time of grid ${r.grid}`);
    assert.ok(r.splats > 0, `splats of grid ${r.grid}`);
    assert.ok(r.draw_calls >= 1 && r.draw_calls <= 2, `draw calls of grid ${r.grid}: ${r.draw_calls}`);
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('present=0 draws off screen: no canvas context, the on-screen picture in the renderer\'s target, a benchmark', async (t) => {
  if (unavailable(t)) return;
  const bench = await ctx.open('?renderer=webgpu&present=0&bench=1&grids=4&frames=4&nointro=1');
  await bench.page.waitForFunction(() => window.bozkir.benchResult, null, { timeout: 120000 });
  const body = await bench.page.evaluate(() => window.bozkir.benchResult);
  assert.equal(body.renderer, 'webgpu');
  assert.ok(body.rows[0].p50 > 0 && body.rows[0].splats > 0, JSON.stringify(body.rows));
  assert.deepEqual(bench.errors, []);
  await bench.page.close();
  // The default view drawn off screen and on screen (the first page): the same picture, but
  // for the order of splats whose 16-bit depth keys tie (appended by atomics), so compared as
  // WebGPU against WebGL2 is, by the mean difference per channel.
  const { page, errors } = await ctx.open('?renderer=webgpu&present=0&nointro=1');
  assert.equal(await page.evaluate(() => window.bozkir.gpu.ctx), null, 'no WebGPU context on the canvas');
  const shot = (p) => p.evaluate(async () => {
    const app = window.bozkir;
    app.gpu.render({ ...app.cam, fov: app.state.fov }, app.frameOptions());
    const px = await app.gpu.readPixels();
    return { width: px.width, height: px.height, data: Array.from(px.data) };
  });
  const [off, on] = [await shot(page), await shot(ctx.page)];
  assert.equal(off.width, W);
  assert.equal(off.height, H);
  assert.equal(on.width, W);
  const sum = [0, 0, 0];
  let lit = 0;
  for (let k = 0; k < W * H; k++) {
    for (let ch = 0; ch < 3; ch++) sum[ch] += Math.abs(off.data[4 * k + ch] - on.data[4 * k + ch]);
    if (off.data[4 * k] + off.data[4 * k + 1] + off.data[4 * k + 2] > 0) lit++;
  }
  const mean = sum.map((x) => x / (W * H));
  t.diagnostic(`off screen against on screen: mean ${mean.map((m) => m.toFixed(3)).join(', ')}; ${lit} pixels not black`);
  assert.ok(lit > (W * H) / 2, 'the off-screen frame is drawn');
  for (const m of mean) assert.ok(m < MEAN_MAX / 4, `mean difference ${m.toFixed(3)}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a WebGPU failure mid-frame hands the splats to WebGL2 and says so', async (t) => {
  if (unavailable(t)) return;
  // On the H200 host's headless Chromium the WebGPU canvas could not present and the device was
  // lost during the first frames, which stopped the viewer's start: now the page goes on.
  const { page } = await ctx.open('?renderer=webgpu&nointro=1');
  const got = await page.evaluate(async () => {
    const app = window.bozkir;
    const before = app.gpuWhy;
    app.gpu.render = () => { throw new Error('a valid external Instance reference no longer exists'); };
    const stats = app.renderFrame();
    const webgl = app.renderer.canvas.style.visibility, webgpu = app.gpu.canvas.style.visibility;
    // The next frames stay on WebGL2 without another attempt.
    const again = app.renderFrame();
    return { before, why: app.gpuWhy, splats: stats.splats, again: again.splats, webgl, webgpu, messages: app.messages.map((m) => m.text), gpuLine: app.panel.fields.gpu };
  });
  t.diagnostic(JSON.stringify(got));
  assert.equal(got.before, null, 'WebGPU drew before the failure');
  assert.match(got.why, /WebGPU device was lost \(a valid external Instance/);
  assert.ok(got.splats > 0 && got.again > 0, 'WebGL2 drew the splats');
  assert.equal(got.webgl, 'visible');
  assert.equal(got.webgpu, 'hidden');
  assert.equal(got.messages.filter((m) => /WebGPU failed drawing the splats/.test(m)).length, 1);
  // The panel's GPU line names the WebGL2 adapter now, not the lost WebGPU one.
  assert.doesNotMatch(got.gpuLine, /splats; WebGL2/);
  await page.close();
});

// Mesh mode in headless Chromium (SwiftShader), served by the real `bozkir serve`: every
// built-in recipe (`bozkir recipes`), run small (`--size 128`; ds2 upsamples to 255²) and baked
// (`bozkir bake`), drawn by web/src/mesh.js through the development page web/dev/mesh.html,
// must give a non-blank picture with no console errors. The dev page is not embedded in the
// binary (build.rs leaves dev/ out), so the browser is handed it from disk at /dev/mesh.html;
// everything else (the modules under /src/, catalogue, heights, textures) comes from the
// server. Screenshots: web/test-output/mesh-<recipe>.png.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, availableParallelism } from 'node:os';
import { join } from 'node:path';
import { bin, skip, serve, launch, outDir, root } from './setup.mjs';

const SIZE = 128;

/** Built-in recipe names, from `bozkir recipes` (name, size², stages, description). */
function recipeNames() {
  const out = execFileSync(bin, ['--quiet', 'recipes'], { encoding: 'utf8' });
  return out.split('\n').map((l) => /^(\S+)\s+\d+²/.exec(l)?.[1]).filter(Boolean);
}

const run = (args) => new Promise((resolve, reject) => {
  execFile(bin, ['--quiet', ...args], { maxBuffer: 1 << 24 }, (err, stdout, stderr) => {
    if (err) reject(new Error(`bozkir ${args.join(' ')}: ${stderr || err.message}`));
    else resolve(stdout);
  });
});

/** Run `jobs` (async functions) at most `n` at a time. */
async function pool(jobs, n) {
  const queue = jobs.slice();
  await Promise.all(Array.from({ length: n }, async () => {
    while (queue.length) await queue.shift()();
  }));
}

const recipes = skip ? [] : recipeNames();
let ctx = null;

before(async () => {
  if (skip) return;
  mkdirSync(outDir, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'bozkir-mesh-'));
  const t0 = Date.now();
  // One bozkir process per recipe, a few at a time; each is run then baked.
  await pool(recipes.map((r) => async () => {
    await run(['terrain', '--recipe', r, '--size', String(SIZE), '--out', join(dir, r)]);
    await run(['bake', join(dir, r), '--scale', '2']);
  }), Math.max(2, Math.min(4, availableParallelism())));
  // A terrain without a bake: the palette fallback.
  await run(['terrain', '--profile', 'rolling', '--seed', '1', '--size', '64', '--cell-size', '40', '--out', join(dir, 'unbaked')]);
  const prepSeconds = (Date.now() - t0) / 1000;
  const s = await serve(dir);
  const browser = await launch();
  const page = readFileSync(join(root, 'web/dev/mesh.html'));
  ctx = { dir, base: s.url, server: s.child, browser, page, prepSeconds };
  console.log(`# mesh: ${recipes.length} recipes generated and baked in ${prepSeconds.toFixed(1)} s`);
});

after(async () => {
  if (!ctx) return;
  await ctx.browser.close();
  ctx.server.kill();
  rmSync(ctx.dir, { recursive: true, force: true });
});

/** Open the dev page on one catalogue terrain; returns {page, errors, ok, error}. */
async function open(terrain, { width = 640, height = 360 } = {}) {
  const page = await ctx.browser.newPage({ viewport: { width, height } });
  await page.route('**/dev/mesh.html*', (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: ctx.page }));
  const errors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${ctx.base}dev/mesh.html?terrain=${encodeURIComponent(terrain)}&hud=0`);
  const ok = await page.evaluate(() => window.meshDev.ready);
  const error = await page.evaluate(() => window.meshDev.error);
  return { page, errors, ok, error };
}

/** Draw a frame and measure the canvas: luminance spread, colours, sky (top rows) vs centre. */
function meshStats(page) {
  return page.evaluate(() => {
    const d = window.meshDev;
    const stats = d.render();
    const { width: W, height: H, data } = d.view.readPixels();
    let n = 0, sum = 0, sum2 = 0;
    const hist = new Set();
    for (let k = 0; k < data.length; k += 16) {
      const l = 0.2126 * data[k] + 0.7152 * data[k + 1] + 0.0722 * data[k + 2];
      n += 1;
      sum += l;
      sum2 += l * l;
      hist.add((data[k] >> 3) << 10 | (data[k + 1] >> 3) << 5 | (data[k + 2] >> 3));
    }
    const mean = (x0, y0, x1, y1) => {
      const m = [0, 0, 0];
      let c = 0;
      for (let y = Math.floor(y0 * H); y < Math.floor(y1 * H); y++) {
        for (let x = Math.floor(x0 * W); x < Math.floor(x1 * W); x++) {
          for (let q = 0; q < 3; q++) m[q] += data[4 * (y * W + x) + q];
          c += 1;
        }
      }
      return m.map((v) => v / c);
    };
    const sky = mean(0, 0, 1, 0.05), centre = mean(0.4, 0.55, 0.6, 0.75);
    const mu = sum / n;
    return {
      width: W, height: H, mean: mu, std: Math.sqrt(Math.max(0, sum2 / n - mu * mu)), colours: hist.size, sky, centre,
      skyVsTerrain: Math.hypot(sky[0] - centre[0], sky[1] - centre[1], sky[2] - centre[2]),
      triangles: stats.triangles, drawCalls: stats.drawCalls, albedo: d.entry.albedo, normal: d.entry.normal, recipe: d.entry.recipe,
    };
  });
}

test('the catalogue flags the baked textures and the recipe of every recipe terrain', { skip }, async () => {
  const cat = await (await fetch(`${ctx.base}catalogue.json`)).json();
  for (const r of recipes) {
    const t = cat.terrains.find((x) => x.name === r);
    assert.ok(t, `${r} is in the catalogue`);
    assert.equal(t.albedo, true, `${r} albedo`);
    assert.equal(t.normal, true, `${r} normal`);
    assert.equal(t.recipe, r);
  }
  const u = cat.terrains.find((x) => x.name === 'unbaked');
  assert.equal(u.albedo, false);
  assert.equal(u.normal, false);
});

for (const r of recipes) {
  test(`mesh mode renders the ${r} recipe non-blank`, { skip }, async () => {
    const { page, errors, ok, error } = await open(r);
    assert.equal(ok, true, `the page loaded: ${error}`);
    const s = await meshStats(page);
    await page.screenshot({ path: join(outDir, `mesh-${r}.png`) });
    assert.deepEqual(errors, []);
    assert.equal(s.recipe, r);
    assert.ok(s.albedo && s.normal, 'drawn with the baked textures');
    assert.ok(s.triangles > 10000 && s.drawCalls >= 4, JSON.stringify(s));
    assert.ok(s.std > 8, `luminance spread ${s.std.toFixed(1)}`);
    assert.ok(s.colours > 30, `${s.colours} distinct colours`);
    assert.ok(s.skyVsTerrain > 15, `terrain ${s.centre.map(Math.round)} vs sky ${s.sky.map(Math.round)}`);
    await page.close();
  });
}

test('without a bake, mesh mode draws the palette and leaves the shared context as it was', { skip }, async () => {
  const { page, errors, ok, error } = await open('unbaked');
  assert.equal(ok, true, `the page loaded: ${error}`);
  const s = await meshStats(page);
  await page.screenshot({ path: join(outDir, 'mesh-unbaked.png') });
  assert.equal(s.albedo, false);
  assert.ok(s.std > 5 && s.skyVsTerrain > 15, JSON.stringify(s));
  // State set by "another renderer" before a frame is there after it.
  const same = await page.evaluate(() => {
    const { gl, view, cam, opts } = window.meshDev;
    gl.enable(gl.BLEND);
    gl.blendFunc(gl.ONE, gl.ONE_MINUS_SRC_ALPHA);
    gl.disable(gl.DEPTH_TEST);
    gl.depthMask(false);
    gl.viewport(1, 2, 30, 40);
    const prog = gl.createProgram();
    gl.activeTexture(gl.TEXTURE2);
    const tex = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, tex);
    view.render(cam, opts);
    const vp = gl.getParameter(gl.VIEWPORT);
    return gl.isEnabled(gl.BLEND) && !gl.isEnabled(gl.DEPTH_TEST) && gl.getParameter(gl.DEPTH_WRITEMASK) === false
      && vp[0] === 1 && vp[3] === 40 && gl.getParameter(gl.ACTIVE_TEXTURE) === gl.TEXTURE2
      && gl.getParameter(gl.TEXTURE_BINDING_2D) === tex && gl.getParameter(gl.CURRENT_PROGRAM) === null && !!prog;
  });
  assert.equal(same, true, 'GL state restored');
  assert.deepEqual(errors, []);
  await page.close();
});

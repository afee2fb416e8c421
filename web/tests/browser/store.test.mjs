// The tiled-world page (store.html) in headless Chromium (SwiftShader), served by the real
// `bozkir serve` on a folder holding a store written by `bozkir tiled`: the quadtree loads from
// the root down to the deepest level where the camera is close, nodes come from the server with
// no error, and the picture is terrain, not sky. Screenshots: web/test-output/store-*.png.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, skip, serve, launch, outDir } from './setup.mjs';

let ctx = null;

before(async () => {
  if (skip) return;
  mkdirSync(outDir, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'bozkir-store-'));
  // highlands from a 257² coarse pass: 1025² cells of 30 m, 16 tiles of 256².
  execFileSync(bin, ['--quiet', 'tiled', '--recipe', 'highlands', '--size', '1025', '--coarse', '257', '--tile', '256',
    '--seed', '4', '--out', join(dir, 'world.zarr')], { stdio: 'ignore' });
  const s = await serve(dir);
  ctx = { dir, base: s.url, server: s.child, browser: await launch() };
});

after(async () => {
  if (!ctx) return;
  await ctx.browser.close();
  ctx.server.kill();
  rmSync(ctx.dir, { recursive: true, force: true });
});

/** Share of sampled pixels that are the sky's colour, and how many distinct colours. */
function picture(page) {
  return page.evaluate(() => {
    const gl = window.storeView.view.gl;
    const w = gl.drawingBufferWidth, h = gl.drawingBufferHeight;
    const px = new Uint8Array(w * h * 4);
    gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
    let sky = 0, n = 0;
    const colours = new Set();
    for (let k = 0; k < px.length; k += 4 * 7) {
      const [r, g, b] = [px[k], px[k + 1], px[k + 2]];
      n += 1;
      if (Math.abs(r - 205) < 4 && Math.abs(g - 223) < 4 && Math.abs(b - 241) < 4) sky += 1;
      colours.add((r >> 3) << 10 | (g >> 3) << 5 | (b >> 3));
    }
    return { sky: sky / n, colours: colours.size };
  });
}

test('a tiled world streams from the root to the deepest level', { skip }, async () => {
  const page = await ctx.browser.newPage({ viewport: { width: 640, height: 420 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.setDefaultTimeout(120000);
  await page.goto(`${ctx.base}store.html?store=world.zarr`, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => window.storeView && window.storeView.ready);
  const meta = await page.evaluate(() => window.storeView.ready);
  assert.equal(meta.size, 1025);
  assert.equal(meta.levels, 4);
  assert.equal(meta.world.recipe, 'highlands');
  // The whole world from afar: coarse nodes only.
  const far = await page.evaluate(() => window.storeView.settle());
  assert.equal(far.failed, 0);
  assert.ok(far.drawn >= 1 && far.maxLevel <= 2, JSON.stringify(far));
  await page.screenshot({ path: join(outDir, 'store-far.png') });
  const p1 = await picture(page);
  assert.ok(p1.sky < 0.6 && p1.colours > 12, `far view: ${JSON.stringify(p1)}`);
  // Close to the ground over the north-west quarter: the deepest level appears there.
  await page.evaluate((m) => window.storeView.setCamera({ target: [-7000, 7000, (m.low_m + m.high_m) / 2], dist: 2500, el: 30, az: 135 }), meta);
  const near = await page.evaluate(() => window.storeView.settle());
  assert.equal(near.failed, 0);
  assert.equal(near.maxLevel, 3, JSON.stringify(near));
  assert.ok(near.fetched > far.fetched, 'new nodes were fetched');
  await page.screenshot({ path: join(outDir, 'store-near.png') });
  const p2 = await picture(page);
  assert.ok(p2.sky < 0.6 && p2.colours > 12, `near view: ${JSON.stringify(p2)}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('an unknown store says so on the page', { skip }, async () => {
  const page = await ctx.browser.newPage({ viewport: { width: 320, height: 200 } });
  await page.goto(`${ctx.base}store.html?store=nope`, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => !!window.storeView?.ready);
  const err = await page.evaluate(() => window.storeView.ready.then(() => null, (e) => e.message));
  assert.match(err, /no tiled world "nope" here \(have world\.zarr\)/);
  assert.match(await page.textContent('#info'), /cannot open the tiled world/);
  await page.close();
});

test('the main page sends ?store= to the tiled-world page and links the stores it lists', { skip }, async () => {
  const page = await ctx.browser.newPage({ viewport: { width: 320, height: 200 } });
  await page.goto(`${ctx.base}?store=world.zarr`, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => !!window.storeView?.ready);
  assert.match(page.url(), /\/store\.html\?store=world\.zarr$/);
  const meta = await page.evaluate(() => window.storeView.ready);
  assert.equal(meta.name, 'world.zarr');
  await page.goto(`${ctx.base}`, { waitUntil: 'domcontentloaded' });
  const link = await page.waitForSelector('a[href="store.html?store=world.zarr"]', { timeout: 120000 });
  assert.equal(await link.textContent(), 'open it');
  await page.close();
});

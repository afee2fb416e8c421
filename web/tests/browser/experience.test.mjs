// The viewer as a tool (issue 8) in headless Chromium, served by the real `bozkir serve`:
// presets, share links, the walk, figure mode and its PNG, modes, notes, the story, the capture
// sweep. Same setup and skip rules as viewer.test.mjs.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { startViewer, stopViewer, pixelStats, skip, outDir } from './setup.mjs';

let ctx = null;
before(async () => {
  ctx = await startViewer();
});
after(async () => {
  await stopViewer(ctx);
});

const QUERY = '?scene=starter&gen=rolling&seed=0&size=64';

test('every preset applies and the controls read back its values', { skip }, async () => {
  const views = JSON.parse(readFileSync(new URL('../../views.json', import.meta.url)));
  const { page, ok } = await ctx.open(QUERY, { width: 900, height: 600 });
  assert.equal(ok, true);
  await page.evaluate(() => window.bozkir.panel.setMode('research')); // research presets name research controls
  for (const [name, p] of Object.entries(views.presets)) {
    assert.equal(await page.evaluate((n) => window.bozkir.applyPreset(n), name), true, name);
    const read = await page.evaluate((ids) => Object.fromEntries(ids.map((id) => {
      const el = document.getElementById(id);
      return [id, el.type === 'checkbox' ? el.checked : el.value];
    })), Object.keys(p.controls));
    for (const [id, want] of Object.entries(p.controls)) {
      if (id === 'reliefscale' && want === 'grid') {
        assert.equal(Number(read.reliefscale), Number(read.grid ?? await page.evaluate(() => window.bozkir.state.grid)), `${name}: relief scale follows the grid`);
        continue;
      }
      if (typeof want === 'boolean') assert.equal(read[id], want, `${name}: ${id}`);
      else assert.equal(Number(read[id]), want, `${name}: ${id} reads ${read[id]}`);
    }
  }
  const s = await pixelStats(page);
  assert.ok(s.std > 5);
  await page.close();
});

test('a share link reopens the same view, pixel for pixel within a small tolerance', { skip }, async () => {
  const a = await ctx.open(QUERY, { width: 480, height: 320 });
  const url = await a.page.evaluate(async () => {
    const b = window.bozkir;
    await b.applyPreset('proof-on');
    b.set('autoquality', false); // the same render scale in both pages (the link carries it)
    b.set('grid', 8);
    Object.assign(b.cam, { az: 70, el: 35 });
    b.renderFrame();
    b.writeUrl();
    return location.href;
  });
  const pa = await a.page.evaluate(async () => {
    await new Promise((r) => setTimeout(r, 500));
    window.bozkir.renderFrame();
    return Array.from(window.bozkir.renderer.readPixels().data);
  });
  const b = await ctx.open(url.slice(ctx.base.length), { width: 480, height: 320 });
  const pb = await b.page.evaluate(async () => {
    await new Promise((r) => setTimeout(r, 500));
    window.bozkir.renderFrame();
    return Array.from(window.bozkir.renderer.readPixels().data);
  });
  assert.equal(pa.length, pb.length);
  let diff = 0;
  for (let k = 0; k < pa.length; k++) diff += Math.abs(pa[k] - pb[k]);
  const mean = diff / pa.length;
  assert.ok(mean < 2, `mean channel difference ${mean}`);
  await a.page.close();
  await b.page.close();
});

test('the walk keeps the camera at eye height above the terrain along a scripted path', { skip }, async () => {
  const { page, ok } = await ctx.open('?scene=starter&gen=canyon&seed=3&size=64');
  assert.equal(ok, true);
  const r = await page.evaluate(() => {
    const b = window.bozkir;
    b.set('grid', 12);
    b.renderFrame();
    b.setWalk(true);
    const worst = [];
    const script = [[['w'], 40], [['w', 'd'], 20], [['e'], 30], [['w', 'shift'], 20], [['s', 'a'], 20]];
    for (const [keys, frames] of script) {
      for (let k = 0; k < frames; k++) {
        const cam = b.walkStep(new Set(keys), 1 / 30);
        worst.push(Math.abs(cam.eye[2] - b.heightAt(cam.eye[0], cam.eye[1]) - 1.7));
      }
      b.renderFrame();
    }
    const eye = b.walk.eye.slice();
    // look back toward the middle of the world for the picture
    b.walk.az = ((Math.atan2(-eye[0], -eye[1]) * 180) / Math.PI + 360) % 360;
    b.walk.el = -10;
    return { worst: Math.max(...worst), eye, start: b.cam.target };
  });
  assert.ok(r.worst < 1e-9, `eye height off by ${r.worst}`);
  assert.ok(Math.hypot(r.eye[0], r.eye[1]) > 2, `the walker moved: ${r.eye}`);
  const s = await pixelStats(page);
  assert.ok(s.std > 5, 'the ground view draws');
  await ctx.shot(page, 'walk');
  await page.close();
});

test('figure mode hides the panel and P saves the full-resolution PNG with the documented name', { skip }, async () => {
  const { page, ok } = await ctx.open(QUERY, { width: 640, height: 400 });
  assert.equal(ok, true);
  await page.click('#view');
  await page.keyboard.press('f');
  assert.equal(await page.isVisible('#panel'), false);
  assert.equal(await page.isVisible('#info'), false);
  await ctx.shot(page, 'figure-mode');
  const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('p')]);
  const name = download.suggestedFilename();
  const size = await page.evaluate(() => [window.bozkir.renderer.canvas.width, window.bozkir.renderer.canvas.height]);
  assert.match(name, new RegExp(`^bozkir_starter_g24_rule-on_az45_el25_d\\d+\\.\\d_${size[0]}x${size[1]}\\.png$`));
  const path = join(outDir, name);
  await download.saveAs(path);
  const png = readFileSync(path);
  assert.equal(png.readUInt32BE(16), size[0]);
  assert.equal(png.readUInt32BE(20), size[1]);
  assert.ok(size[0] >= 640, 'full resolution (render scale 1)');
  await page.keyboard.press('f');
  assert.equal(await page.isVisible('#panel'), true);
  await page.close();
});

test('M switches to Research mode, which shows the renderer controls; ⓘ opens a note', { skip }, async () => {
  const { page, ok } = await ctx.open(QUERY, { width: 1000, height: 700 });
  assert.equal(ok, true);
  assert.equal(await page.isVisible('#ordering'), false);
  await page.click('#view');
  await page.keyboard.press('m');
  assert.equal(await page.evaluate(() => window.bozkir.mode), 'research');
  assert.equal(await page.isVisible('#ordering'), true);
  await page.waitForSelector('[data-control="classbalance"] .note-btn', { state: 'attached' });
  await page.click('[data-control="classbalance"] .note-btn');
  assert.match(await page.textContent('#note'), /Share of cells given the collected class/);
  await ctx.shot(page, 'research-note');
  await page.keyboard.press('m');
  assert.equal(await page.isVisible('#ordering'), false);
  await page.close();
});

test('the story applies its chapters with their captions', { skip }, async () => {
  const { page, ok } = await ctx.open(`${QUERY}&chapter=2`);
  assert.equal(ok, true);
  assert.equal(await page.evaluate(() => window.bozkir.state.grid), 5);
  assert.match(await page.textContent('#caption'), /32 tiles whose edges agree/);
  await page.evaluate(() => window.bozkir.applyChapter(4));
  assert.equal(await page.evaluate(() => window.bozkir.state.classrule), true);
  assert.match(await page.textContent('#caption'), /sand where water and sediment collect/);
  await page.close();
});

test('the capture sweep writes a zip of settled frames', { skip }, async () => {
  const { page, ok } = await ctx.open(QUERY, { width: 320, height: 200 });
  assert.equal(ok, true);
  await page.evaluate(() => {
    window.bozkir.set('capframes', 12);
    window.bozkir.set('grid', 4);
  });
  const [download] = await Promise.all([page.waitForEvent('download'), page.evaluate(() => window.bozkir.runCapture())]);
  const path = join(outDir, download.suggestedFilename());
  await download.saveAs(path);
  const zip = readFileSync(path);
  // central directory: count the entries named fNNNN.png
  const names = [];
  for (let k = 0; k + 46 < zip.length; k++) {
    if (zip.readUInt32LE(k) === 0x02014b50) {
      const n = zip.readUInt16LE(k + 28);
      names.push(zip.subarray(k + 46, k + 46 + n).toString());
    }
  }
  assert.deepEqual(names, Array.from({ length: 12 }, (_, i) => `f${String(i).padStart(4, '0')}.png`));
  assert.ok(inflateSync || true);
  await page.close();
});

test('the relief scale follows the grid until moved, flags repeats below it, and follows again when dragged back', { skip }, async () => {
  const { page, ok } = await ctx.open(QUERY);
  assert.equal(ok, true);
  const state = () => page.evaluate(() => ({ follows: window.bozkir.reliefFollows, rs: window.bozkir.state.reliefscale, flag: window.bozkir.panel.reliefFlag }));
  const type = async (id, v) => {
    await page.fill(`#${id}`, String(v));
    await page.press(`#${id}`, 'Enter');
    await page.evaluate(() => window.bozkir.renderFrame());
  };
  await type('grid', 30);
  assert.deepEqual(await state(), { follows: true, rs: 30, flag: null });
  // The box shows it too (it kept showing the old value once).
  assert.equal(await page.evaluate(() => document.querySelector('#reliefscale').value), '30');
  await type('reliefscale', 12);
  let s = await state();
  assert.equal(s.follows, false);
  assert.match(s.flag, /relief scale 12 < grid 30: the terrain repeats/);
  assert.equal(await page.evaluate(() => document.querySelector('[data-control="reliefscale"]').classList.contains('flagged')), true);
  await type('grid', 40);
  assert.equal((await state()).rs, 12, 'a moved relief scale stays put');
  await type('reliefscale', 40);
  s = await state();
  assert.equal(s.follows, true);
  assert.equal(s.flag, null);
  await type('grid', 50);
  assert.equal((await state()).rs, 50, 'following the grid again');
  await page.close();
});

test('a missing ground photo leaves the mesh look working without photos, and says why', { skip }, async () => {
  const page = await ctx.browser.newPage({ viewport: { width: 640, height: 420 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.route('**/textures/grass.png', (r) => r.fulfill({ status: 404, body: 'not found' }));
  await page.goto(`${ctx.base}${QUERY}&look=mesh`, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => window.bozkir?.ready && window.bozkir.mesh?.enabled, null, { timeout: 120000 });
  await page.waitForFunction(() => window.bozkir.mesh.status.detailError !== null, null, { timeout: 60000 });
  const r = await page.evaluate(() => {
    const b = window.bozkir;
    const st = b.renderFrame();
    const { data } = b.renderer.readPixels();
    let lum = 0, lum2 = 0, n = 0;
    for (let k = 0; k < data.length; k += 16) {
      const l = 0.2126 * data[k] + 0.7152 * data[k + 1] + 0.0722 * data[k + 2];
      lum += l; lum2 += l * l; n += 1;
    }
    return { status: b.mesh.status, stats: st ?? b.stats, sd: Math.sqrt(lum2 / n - (lum / n) ** 2) };
  });
  assert.deepEqual(errors, []);
  assert.match(r.status.detailError, /ground photos/);
  assert.equal(r.status.detail, false);
  assert.equal(r.stats.detailFetches ?? 0, 0, JSON.stringify(r.stats));
  assert.ok(r.sd > 5, `the terrain is drawn (luminance spread ${r.sd})`);
  await page.close();
});

test('a shared link restores the mesh look\'s camera and ground-photo mode', { skip }, async () => {
  const { page, ok } = await ctx.open(`${QUERY}&look=mesh`);
  assert.equal(ok, true);
  await page.waitForFunction(() => window.bozkir.mesh?.enabled);
  const cam = { target: [3.5, -2.25, 1.5], az: 123.5, el: 21.25, dist: 77 };
  await page.evaluate((c) => {
    Object.assign(window.bozkir.mesh.cam, c);
    window.bozkir.panel.detailCtrl.setValue('two-sample');
  }, cam);
  // The URL is written a moment after a change (later still on a slow software renderer):
  // wait for the link itself to carry the camera and the mode.
  await page.waitForFunction(() => {
    const b64 = (new URLSearchParams(location.search).get('v') || '').replace(/-/g, '+').replace(/_/g, '/');
    const v = atob(b64);
    return /look=mesh/.test(location.search) && v.includes('two-sample') && v.includes('123.5');
  }, null, { timeout: 30000 });
  const link = await page.evaluate(() => location.search);
  await page.close();
  const again = await ctx.open(link);
  assert.equal(again.ok, true);
  await again.page.waitForFunction(() => window.bozkir.mesh?.enabled);
  const got = await again.page.evaluate(() => ({ cam: window.bozkir.mesh.cam, detail: window.bozkir.mesh.opts.detail }));
  assert.deepEqual(got.cam.target, cam.target);
  assert.deepEqual([got.cam.az, got.cam.el, got.cam.dist], [cam.az, cam.el, cam.dist]);
  assert.equal(got.detail, 'two-sample');
  assert.equal(await again.page.evaluate(() => document.querySelector('#detail').value), 'two-sample');
  // The splat view's sections and info lines are not shown in the mesh look.
  const shown = await again.page.evaluate(() => ({
    rule: window.bozkir.panel.folders.get('Rule')._hidden, world: window.bozkir.panel.folders.get('World')._hidden,
    info: document.getElementById('info').textContent,
  }));
  assert.equal(shown.rule, true);
  assert.equal(shown.world, true);
  assert.ok(!/tileset|rule/i.test(shown.info), shown.info);
  await again.page.close();
});

test('a catalogue terrain hides the generator\'s profile, seed and size; "generated" brings them back', { skip }, async () => {
  const { page, ok } = await ctx.open('?scene=starter&terrain=canyon64');
  assert.equal(ok, true);
  const visible = () => page.evaluate(() => ['gen', 'seed', 'size'].map((id) => document.getElementById(id).offsetParent !== null));
  assert.equal(await page.evaluate(() => window.bozkir.terrainName), 'canyon64');
  assert.deepEqual(await visible(), [false, false, false]);
  await page.selectOption('#terrain', 'generated');
  // The controls come back when the generated terrain is in (it is made in a worker).
  await page.waitForFunction(() => !window.bozkir.terrainName && document.getElementById('gen').offsetParent !== null, null, { timeout: 60000 });
  assert.deepEqual(await visible(), [true, true, true]);
  await page.close();
});

test('a terrain generating in the page shows a progress bar with the fraction done and the seconds elapsed, gone when done', { skip }, async () => {
  const { page, ok } = await ctx.open(QUERY);
  assert.equal(ok, true);
  assert.equal(await page.isHidden('#busy'), true);
  // Record what the indicator showed (a small terrain generates in well under a second).
  await page.evaluate(() => {
    const el = document.getElementById('busy');
    window.busySeen = [];
    window.busyValues = [];
    new MutationObserver(() => {
      if (el.hidden) return;
      window.busySeen.push(el.textContent);
      const v = el.getAttribute('aria-valuenow');
      if (v && window.busyValues.at(-1) !== Number(v)) window.busyValues.push(Number(v));
    }).observe(el, { attributes: true, childList: true, subtree: true, characterData: true });
  });
  // A size and seed not generated before (the cache is per profile, seed and size).
  await page.evaluate(() => window.bozkir.panel.cb.chooseTerrain({ gen: 'canyon', seed: 4711, size: 128 }));
  await page.waitForFunction(() => window.bozkir.gen?.seed === 4711 && document.getElementById('busy').hidden, null, { timeout: 120000 });
  const seen = await page.evaluate(() => window.busySeen);
  assert.ok(seen.some((t) => /generating canyon, seed 4711/.test(t) && /\d+\.\d s/.test(t)), JSON.stringify(seen));
  // The bar follows the worker's reports of the erosion's iterations: a real fraction, never
  // going back, ending full.
  const values = await page.evaluate(() => window.busyValues);
  assert.ok(values.length >= 2, JSON.stringify(values));
  assert.ok(values.every((v, k) => k === 0 || v >= values[k - 1]), JSON.stringify(values));
  assert.equal(values.at(-1), 100, JSON.stringify(values));
  assert.ok(seen.some((t) => /\d+ % · \d+\.\d s/.test(t)), JSON.stringify(seen));
  await page.close();
});

// A world link (issue 21, item 7) in headless Chromium, served by the real `bozkir serve`: the
// composed world opens in the mesh look with coloured ground, water, road ribbons and trees,
// nothing is reported as an error, and the picture is a picture (not the background). Same
// setup and skip rules as viewer.test.mjs; the screenshot goes to web/test-output/world-*.png.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startViewer, stopViewer, pixelStats, skip } from './setup.mjs';

let ctx = null;
before(async () => {
  ctx = await startViewer();
});
after(async () => {
  await stopViewer(ctx);
});

test('?world=composite&seed=atlas opens the composed world in the mesh look', { skip }, async () => {
  const { page, errors, ok } = await ctx.open('?world=composite&seed=atlas&size=110', { width: 900, height: 560 });
  assert.equal(ok, true);
  await page.waitForFunction(() => window.bozkir.world && window.bozkir.mesh?.enabled);
  const w = await page.evaluate(() => {
    const b = window.bozkir;
    return { label: b.world.label, counts: b.world.counts, messages: b.messages.filter((m) => m.kind === 'error').map((m) => m.text) };
  });
  assert.match(w.label, /world composite seed atlas · 110×110/);
  assert.deepEqual(w.messages, []);
  assert.deepEqual(errors, []);
  const c = w.counts;
  assert.ok(c.cells === 110 * 110 && c.waterCells > 0 && c.roadTriangles > 0 && c.trees > 0, `counts: ${JSON.stringify(c)}`);
  await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
  const s = await pixelStats(page);
  assert.ok(s.background < 0.9 && s.std > 8 && s.colours > 40, `a picture: ${JSON.stringify(s)}`);
  await ctx.shot(page, 'world-composite-atlas');
  await page.close();
});

test('the panel follows the world, messages clear the info box, and choosing a terrain leaves the world', { skip }, async () => {
  const { page, ok } = await ctx.open('?world=composite&seed=atlas&size=64', { width: 900, height: 560 });
  assert.equal(ok, true);
  await page.waitForFunction(() => window.bozkir.world && window.bozkir.mesh?.enabled);
  assert.equal(await page.inputValue('#terrain'), 'world');
  for (const id of ['#gen', '#size']) assert.equal(await page.isDisabled(id), true, `${id} disabled while a world is shown`);
  const info0 = await page.textContent('#info');
  assert.match(info0, /terrain: world composite seed atlas/);
  assert.doesNotMatch(info0, /tiles|collected/, 'the tileset and rule lines are not the world\'s');
  // The "generated in … ms" message sits below the info box, not over it.
  const [info, msg] = await page.evaluate(() => ['#info', '#messages .msg'].map((q) => {
    const r = document.querySelector(q).getBoundingClientRect();
    return { top: r.top, bottom: r.bottom };
  }));
  assert.ok(msg.top >= info.bottom, `message ${JSON.stringify(msg)} below the info ${JSON.stringify(info)}`);
  await ctx.shot(page, 'world-panel');
  await page.selectOption('#terrain', 'generated');
  await page.waitForFunction(() => window.bozkir.world === null);
  assert.equal(await page.isDisabled('#gen'), false);
  await page.waitForFunction(() => /terrain: generated|terrain: \w+ · /.test(document.querySelector('#info').textContent)
    && !/world composite/.test(document.querySelector('#info').textContent)
    && /tiles/.test(document.querySelector('#info').textContent));
  await page.waitForFunction(() => !/world/.test(window.bozkir.mesh?.status?.terrain ?? 'world'));
  await page.waitForFunction(() => !location.search.includes('world='));
  assert.equal(await page.locator('#messages .msg').count(), 0, "the world's message leaves with it");
  await page.evaluate(() => new Promise((r) => setTimeout(r, 500)));
  await ctx.shot(page, 'world-left');
  await page.close();
});

test('a bad world link is a message, and the page still works', { skip }, async () => {
  const { page, ok } = await ctx.open('?world=atlantis&seed=1', { width: 480, height: 320 });
  assert.equal(ok, true);
  const m = await page.evaluate(() => window.bozkir.messages.map((x) => x.text).join(' | '));
  assert.match(m, /unknown world "atlantis"/);
  await ctx.shot(page, 'world-bad-link');
  assert.equal(await page.evaluate(() => window.bozkir.world ?? null), null);
  await page.close();
});

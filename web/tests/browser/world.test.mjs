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

test('a bad world link is a message, and the page still works', { skip }, async () => {
  const { page, ok } = await ctx.open('?world=atlantis&seed=1', { width: 480, height: 320 });
  assert.equal(ok, true);
  const m = await page.evaluate(() => window.bozkir.messages.map((x) => x.text).join(' | '));
  assert.match(m, /unknown world "atlantis"/);
  assert.equal(await page.evaluate(() => window.bozkir.world ?? null), null);
  await page.close();
});

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
  // The page stays in the mesh look, which shows no tileset or rule lines (they do not make it).
  await page.waitForFunction(() => /terrain: generated|terrain: \w+ · /.test(document.querySelector('#info').textContent)
    && !/world composite/.test(document.querySelector('#info').textContent)
    && /tiles/.test(document.querySelector('#info').textContent) !== window.bozkir.mesh.enabled);
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

/** Waits until the 3-D world has nothing left to load or mesh around the camera. */
async function settled(page, timeout = 60000) {
  await page.waitForFunction(() => {
    const w = window.bozkir.world;
    window.bozkir.dirty = true;
    return w?.voxel && w.counts.loaded > 0 && w.counts.pending === 0 && !w.counts.loading && w.counts.meshed > 0;
  }, null, { timeout, polling: 200 });
}

test('?world=voxels streams chunks around the camera, and the walker stands on them', { skip }, async () => {
  const { page, errors, ok } = await ctx.open('?world=voxels&seed=12345&radius=3', { width: 900, height: 560 });
  assert.equal(ok, true);
  await page.waitForFunction(() => window.bozkir.world?.voxel && window.bozkir.mesh?.enabled);
  await settled(page);
  const c = await page.evaluate(() => ({ ...window.bozkir.world.counts, label: window.bozkir.world.label,
    errs: window.bozkir.messages.filter((m) => m.kind === 'error').map((m) => m.text) }));
  assert.deepEqual(c.errs, []);
  assert.deepEqual(errors, []);
  assert.match(c.label, /world voxels seed 12345 · voxel world, 1 m blocks, chunks of 32/);
  // The stream cylinder: 29 columns of radius 3 × 5 layers.
  assert.equal(c.loaded, 145, JSON.stringify(c));
  assert.ok(c.triangles > 10000, JSON.stringify(c));
  await page.waitForFunction(() => location.search.includes('radius=3'));
  await page.evaluate(() => new Promise((r) => setTimeout(r, 200)));
  const s = await pixelStats(page);
  assert.ok(s.background < 0.9 && s.std > 8 && s.colours > 40, `a picture: ${JSON.stringify(s)}`);
  await ctx.shot(page, 'world-voxels-orbit');
  // Walk: g places the walker on the ground; held w walks it; it never sinks into a block.
  await page.keyboard.press('g');
  const w0 = await page.evaluate(() => ({ walking: window.bozkir.world.walking, eye: window.bozkir.world.cam.eye }));
  assert.equal(w0.walking, true);
  await page.keyboard.down('w');
  await page.evaluate(() => new Promise((r) => setTimeout(r, 1500)));
  await page.keyboard.up('w');
  await page.evaluate(() => new Promise((r) => setTimeout(r, 600)));
  const w1 = await page.evaluate(() => {
    const b = window.bozkir, vw = b.world.view.vw, e = b.world.cam.eye;
    const bs = vw.blockSize;
    // The walker's box (0.6 m wide, feet 1.62 m under the eye) against the blocks.
    const feet = [e[0] / bs, (e[2] - 1.62) / bs, -e[1] / bs];
    let inside = 0;
    for (let x = Math.floor(feet[0] - 0.3); x <= Math.floor(feet[0] + 0.3 - 1e-9); x++) {
      for (let y = Math.floor(feet[1] + 1e-9); y <= Math.floor(feet[1] + 1.8 - 1e-9); y++) {
        for (let z = Math.floor(feet[2] - 0.3); z <= Math.floor(feet[2] + 0.3 - 1e-9); z++) inside += vw.isSolid(x, y, z) ? 1 : 0;
      }
    }
    const below = vw.isSolid(Math.floor(feet[0]), Math.round(feet[1]) - 1, Math.floor(feet[2]));
    return { eye: e, onGround: vw.onGround, inside, below, feetY: feet[1] };
  });
  assert.equal(w1.inside, 0, `the walker overlaps no block: ${JSON.stringify(w1)}`);
  assert.equal(w1.onGround, true, JSON.stringify(w1));
  assert.ok(Math.abs(w1.feetY - Math.round(w1.feetY)) < 1e-6, `feet on a block top: ${JSON.stringify(w1)}`);
  assert.ok(Math.hypot(w1.eye[0] - w0.eye[0], w1.eye[1] - w0.eye[1]) > 2, `it walked: ${JSON.stringify([w0, w1])}`);
  await settled(page);
  await ctx.shot(page, 'world-voxels-walk');
  await page.close();
});

test('?world=implicit_cave shows the cave, and the walker starts inside its corridor', { skip }, async () => {
  const { page, errors, ok } = await ctx.open('?world=implicit_cave&seed=cave', { width: 900, height: 560 });
  assert.equal(ok, true);
  await page.waitForFunction(() => window.bozkir.world?.voxel && window.bozkir.mesh?.enabled);
  await settled(page);
  assert.deepEqual(errors, []);
  const s = await pixelStats(page);
  assert.ok(s.background < 0.95 && s.std > 6, `a picture: ${JSON.stringify(s)}`);
  await ctx.shot(page, 'world-cave-orbit');
  await page.keyboard.press('g');
  await settled(page);
  const w = await page.evaluate(() => {
    const b = window.bozkir, vw = b.world.view.vw, e = b.world.cam.eye, bs = vw.blockSize;
    const box = vw.bounds;
    return { eye: e, box, onGround: vw.onGround, headFree: !vw.isSolid(Math.floor(e[0] / bs), Math.floor(e[2] / bs), Math.floor(-e[1] / bs)) };
  });
  assert.ok(w.headFree, JSON.stringify(w));
  assert.ok(w.eye[0] > w.box[0] && w.eye[0] < w.box[3] && w.eye[1] > w.box[1] && w.eye[1] < w.box[4] && w.eye[2] > w.box[2] && w.eye[2] < w.box[5], `inside the cave's box: ${JSON.stringify(w)}`);
  // Look down the tunnel (south).
  await page.evaluate(() => { window.bozkir.world.cam.az = 180; window.bozkir.dirty = true; });
  await page.evaluate(() => new Promise((r) => setTimeout(r, 400)));
  const inside = await pixelStats(page);
  assert.ok(inside.std > 6 && inside.colours > 20, `the tunnel is drawn: ${JSON.stringify(inside)}`);
  await ctx.shot(page, 'world-cave-walk');
  await page.close();
});

test('?world=forest draws every tree as its branch graph: bark tubes and leaf clusters', { skip }, async () => {
  const { page, errors, ok } = await ctx.open('?world=forest&seed=atlas&size=80', { width: 900, height: 560 });
  assert.equal(ok, true);
  await page.waitForFunction(() => window.bozkir.world && window.bozkir.mesh?.enabled, null, { timeout: 60000 });
  const c = await page.evaluate(() => window.bozkir.world.counts);
  assert.deepEqual(errors, []);
  assert.ok(c.branchTriangles > 10000 && c.trees === 0, `meshed trees replace the crowns: ${JSON.stringify(c)}`);
  await page.evaluate(() => new Promise((r) => setTimeout(r, 400)));
  const s = await pixelStats(page);
  assert.ok(s.background < 0.9 && s.std > 8 && s.colours > 40, `a picture: ${JSON.stringify(s)}`);
  await ctx.shot(page, 'world-forest');
  await page.close();
});

// The viewer in headless Chromium (Debian's chromium, driven by playwright-core), served by the
// real `bozkir serve`. WebGL2 runs on SwiftShader; scenes are kept small. Screenshots go to
// web/test-output/. Setup and skip rules: setup.mjs.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { startViewer, stopViewer, pixelStats, skip, bin } from './setup.mjs';

let ctx = null;
before(async () => {
  // Beside the canyon: a 64² island (its sea level in terrain.json) for the splat view's water.
  ctx = await startViewer((dir) => {
    execFileSync(bin, ['--quiet', 'terrain', '--recipe', 'island', '--size', '64', '--out', join(dir, 'island64')], { stdio: 'ignore' });
  });
});
after(async () => {
  await stopViewer(ctx);
});
const open = (...a) => ctx.open(...a);
const shot = (...a) => ctx.shot(...a);

test('the starter scene loads with no console errors and draws a non-blank picture', { skip }, async () => {
  const { page, errors, ok } = await open('?scene=starter&gen=rolling&seed=0&size=64');
  assert.equal(ok, true);
  const s = await pixelStats(page);
  await shot(page, 'starter');
  assert.deepEqual(errors, []);
  assert.ok(s.std > 8, `luminance spread ${s.std}`);
  assert.ok(s.colours > 40, `${s.colours} distinct colours`);
  assert.ok(s.background < 0.9, `background covers ${s.background}`);
  const st = await page.evaluate(() => window.bozkir.stats);
  assert.ok(st.splats > 1000 && st.drawCalls > 0, JSON.stringify(st));
  const gpu = await page.evaluate(() => window.bozkir.renderer.gpuName);
  assert.ok(gpu.length > 0);
  assert.match(await page.textContent('#info'), /GPU: /);
  await page.close();
});

test('?gen= makes the same terrain in the page as `bozkir terrain`', { skip }, async () => {
  const { page, ok } = await open('?scene=starter&gen=canyon&seed=3&size=64');
  assert.equal(ok, true);
  const same = await page.evaluate(async () => {
    const cat = await (await fetch('catalogue.json')).json();
    const t = cat.terrains.find((x) => x.name === 'canyon64');
    const want = new Float32Array(await (await fetch(`${t.path}heights.f32`)).arrayBuffer());
    const got = window.bozkir.terrainHeights;
    let diff = 0;
    for (let i = 0; i < want.length; i++) if (want[i] !== got[i]) diff += 1;
    return { n: want.length, m: got.length, diff };
  });
  assert.equal(same.n, 64 * 64);
  assert.equal(same.m, same.n);
  assert.equal(same.diff, 0, 'every height identical');
  await page.close();
});

test('moving the share control grows the collected class in the overlay', { skip }, async () => {
  const { page, ok } = await open('?scene=starter&gen=canyon&seed=3&size=64');
  assert.equal(ok, true);
  await page.evaluate(() => {
    const b = window.bozkir;
    b.set('classview', 1);
    b.set('classblend', false);
    b.cam.el = 85;
    b.cam.dist = 40;
    b.cam.target = [0, 0, 0];
  });
  const at = async (share) => {
    // As a hand would: type into the panel's share input.
    await page.fill('#classbalance', String(share));
    await page.press('#classbalance', 'Enter');
    const px = await pixelStats(page); // draws a frame, which rebuilds the scene first
    const shares = await page.evaluate(() => window.bozkir.decision.shares[0]);
    return { shares, px };
  };
  const low = await at(0.2);
  await shot(page, 'overlay-share-0.2');
  const high = await at(0.6);
  await shot(page, 'overlay-share-0.6');
  assert.ok(Math.abs(low.shares - 0.2) < 0.01 && Math.abs(high.shares - 0.6) < 0.01, `${low.shares} ${high.shares}`);
  // class 0 (collected) is amber in the overlay, class 1 blue
  assert.ok(high.px.amber > low.px.amber + 0.1, `amber ${low.px.amber} → ${high.px.amber}`);
  assert.ok(high.px.blue < low.px.blue - 0.1, `blue ${low.px.blue} → ${high.px.blue}`);
  await page.close();
});

/**
 * Set controls (id → value) and the orbit camera's fields in one go, then draw frames until the
 * sorter and merged streams have settled, so the next read-back sees this view's own depth order
 * (an order still in flight for the previous view made picture measurements flaky).
 */
function stage(page, controls, cam) {
  return page.evaluate(async ([controls, cam]) => {
    const b = window.bozkir;
    for (const [k, v] of Object.entries(controls)) b.set(k, v);
    Object.assign(b.cam, cam);
    const r = b.renderer;
    const busy = () => r.sortPending || [...(r.streams?.values?.() ?? [])].some((s) => s.pending);
    b.renderFrame();
    for (let k = 0; k < 300 && busy(); k++) {
      await new Promise((res) => requestAnimationFrame(() => res()));
      b.renderFrame();
    }
    b.renderFrame();
  }, [controls, cam]);
}

/** Straight down over the grid's centre, 30 m up. */
const TOP = { el: 89, az: 0, dist: 30, target: [0, 0, 0] };

test('class edges inside tiles move the boundary off the tile grid without holes or a change of share', { skip }, async () => {
  const { page, ok } = await open('?scene=starter&gen=canyon&seed=3&size=64');
  assert.equal(ok, true);
  await stage(page, { classview: 1, classblend: false, farfield: false, macro: 0 }, TOP);
  // Per sampled pixel: 1 amber (class 0), 2 blue (class 1), 0 else; and the overall stats.
  const frame = async (edges) => {
    await page.evaluate((e) => window.bozkir.set('classedges', e), edges);
    const px = await pixelStats(page);
    const labels = await page.evaluate(() => {
      window.bozkir.renderFrame();
      const { data } = window.bozkir.renderer.readPixels();
      const out = [];
      for (let k = 0; k < data.length; k += 16) out.push(data[k] > data[k + 2] + 40 ? 1 : data[k + 2] > data[k] + 40 ? 2 : 0);
      return out;
    });
    const edgesCount = await page.evaluate(() => (window.bozkir.scene.cells.sub ?? []).reduce((a, v) => a + v, 0));
    return { px, labels, edgesCount };
  };
  const off = await frame(false);
  await shot(page, 'class-edges-off');
  const on = await frame(true);
  await shot(page, 'class-edges-on');
  assert.equal(off.edgesCount, 0);
  assert.ok(on.edgesCount > 10, `${on.edgesCount} edge cells`);
  // The boundary moved: some pixels changed class ...
  let moved = 0, both = 0;
  for (let k = 0; k < on.labels.length; k++) {
    if (on.labels[k] && off.labels[k]) {
      both += 1;
      if (on.labels[k] !== off.labels[k]) moved += 1;
    }
  }
  assert.ok(moved / both > 0.004, `${moved} of ${both} pixels changed class`);
  // ... but each class keeps its share of the picture, and no gap opened to the background.
  assert.ok(Math.abs(on.px.amber - off.px.amber) < 0.03, `amber ${off.px.amber} → ${on.px.amber}`);
  assert.ok(Math.abs(on.px.blue - off.px.blue) < 0.03, `blue ${off.px.blue} → ${on.px.blue}`);
  assert.ok(on.px.background <= off.px.background + 0.005, `background ${off.px.background} → ${on.px.background}`);
  await page.close();
});

test('tile levelling evens out tile-sized light and dark squares, keeping the mean', { skip }, async () => {
  const { page, ok } = await open('?scene=starter&gen=canyon&seed=3&size=64');
  assert.equal(ok, true);
  await stage(page, { macro: 0, shade: 0, farfield: false, classrule: true, classblend: false, classedges: false }, TOP);
  // Mean luminance of 12 × 12 px blocks fully on the ground (the starter's 1.5 m tiles are about
  // 18 px here), split at the overall mean into the two classes; within-class spread of blocks.
  const blocks = (level) => page.evaluate((lv) => {
    window.bozkir.set('tilelevel', lv);
    window.bozkir.renderFrame();
    const { width, height, data } = window.bozkir.renderer.readPixels();
    const B = 12, means = [];
    for (let y = 0; y + B <= height; y += B) {
      for (let x = 0; x + B <= Math.min(width, 370); x += B) {
        let s = 0, bg = false;
        for (let j = 0; j < B; j++) for (let i = 0; i < B; i++) {
          const k = ((y + j) * width + x + i) * 4;
          if (Math.abs(data[k] - 158) < 6 && Math.abs(data[k + 1] - 179) < 6 && Math.abs(data[k + 2] - 199) < 6) bg = true;
          s += 0.2126 * data[k] + 0.7152 * data[k + 1] + 0.0722 * data[k + 2];
        }
        if (!bg) means.push(s / (B * B));
      }
    }
    const all = means.reduce((a, v) => a + v, 0) / means.length;
    const spread = (g) => {
      const m = g.reduce((a, v) => a + v, 0) / g.length;
      return Math.sqrt(g.reduce((a, v) => a + (v - m) ** 2, 0) / g.length);
    };
    const hi = means.filter((v) => v > all), lo = means.filter((v) => v <= all);
    return { all, n: means.length, spread: (spread(hi) * hi.length + spread(lo) * lo.length) / means.length };
  }, level);
  const raw = await blocks(0);
  await shot(page, 'tile-level-0');
  const even = await blocks(1);
  await shot(page, 'tile-level-1');
  assert.ok(raw.n > 200, `${raw.n} blocks`);
  // The starter's tiles differ little in mean (measured 4.98 → 4.48); a capture's differ more.
  assert.ok(even.spread < 0.95 * raw.spread, `block spread ${raw.spread.toFixed(2)} → ${even.spread.toFixed(2)}`);
  assert.ok(Math.abs(even.all - raw.all) < 0.05 * raw.all, `mean ${raw.all.toFixed(1)} → ${even.all.toFixed(1)}`);
  await page.close();
});

test('the land goes on to the horizon past the grid, fading into the sky', { skip }, async () => {
  const { page, ok, errors } = await open('?scene=starter&gen=canyon&seed=3&size=64');
  assert.equal(ok, true);
  await stage(page, { grid: 12 }, { el: 10, az: 30, dist: 14, target: [0, 0, 0] });
  const frame = async (on) => {
    await page.evaluate((v) => window.bozkir.set('horizon', v), on);
    return pixelStats(page);
  };
  const off = await frame(false);
  await shot(page, 'horizon-off');
  const on = await frame(true);
  await shot(page, 'horizon-on');
  // Off: the plate floats with sky all round it; on: land fills the lower picture, the sky
  // (the background colour) stays above the horizon.
  assert.ok(off.background > 0.3, `off: background ${off.background}`);
  assert.ok(on.background < off.background - 0.15, `background ${off.background} → ${on.background}`);
  assert.ok(on.background > 0.02, `on: background ${on.background} (the sky is still there)`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a URL reopens the same view', { skip }, async () => {
  const first = await open('?scene=starter&gen=canyon&seed=3&size=64');
  const url = await first.page.evaluate(async () => {
    const b = window.bozkir;
    b.set('grid', 12);
    b.set('exposure', 1.3);
    b.set('classbalance', 0.45);
    Object.assign(b.cam, { az: 120, el: 40, dist: 14 });
    b.renderFrame();
    await new Promise((r) => setTimeout(r, 400));
    return location.href;
  });
  const a = await pixelStats(first.page);
  await shot(first.page, 'url-first');
  const second = await open(url.slice(ctx.base.length));
  const state = await second.page.evaluate(() => ({ s: window.bozkir.state, c: window.bozkir.cam }));
  assert.equal(state.s.grid, 12);
  assert.equal(state.s.exposure, 1.3);
  assert.equal(state.s.classbalance, 0.45);
  assert.equal(state.c.az, 120);
  assert.equal(state.c.el, 40);
  const b = await pixelStats(second.page);
  await shot(second.page, 'url-second');
  assert.ok(Math.abs(a.mean - b.mean) < 2, `mean luminance ${a.mean} vs ${b.mean}`);
  assert.deepEqual(second.errors, []);
  await first.page.close();
  await second.page.close();
});

test('a dropped corrupt file gives a message and the viewer keeps working', { skip }, async () => {
  const { page, ok } = await open('?scene=starter&gen=rolling&seed=0&size=64');
  assert.equal(ok, true);
  const framesBefore = await page.evaluate(() => window.bozkir.frames);
  await page.setInputFiles('#tileset-file', { name: 'broken.zip', mimeType: 'application/zip', buffer: Buffer.from('this is not a zip at all') });
  await page.waitForSelector('.msg.error');
  const text = await page.textContent('#messages');
  assert.match(text, /not a zip: broken\.zip/);
  // a zip without a tileset inside
  const { writeZip } = await import('../../src/tileset.js');
  const empty = writeZip(new Map([['readme.txt', new TextEncoder().encode('hello')]]));
  await page.setInputFiles('#tileset-file', { name: 'other.zip', mimeType: 'application/zip', buffer: Buffer.from(empty) });
  await page.waitForFunction(() => document.querySelectorAll('.msg.error').length >= 2);
  assert.match(await page.textContent('#messages'), /other\.zip/);
  await page.evaluate(() => window.bozkir.set('grid', 6));
  const s = await pixelStats(page);
  assert.ok(s.std > 5);
  assert.ok((await page.evaluate(() => window.bozkir.frames)) > framesBefore);
  assert.equal(await page.evaluate(() => window.bozkir.sceneName), 'starter');
  await shot(page, 'dropped-corrupt');
  await page.close();
});

test('bad URL parameters are named and the defaults kept', { skip }, async () => {
  const { page, ok } = await open('?scene=starter&gen=nope&size=100000&seed=-3&bogus=1&preset=nothing&v=%%%');
  assert.equal(ok, true);
  const msgs = await page.evaluate(() => window.bozkir.messages.map((m) => m.text).join('\n'));
  assert.match(msgs, /unknown terrain profile "nope"/);
  assert.match(msgs, /terrain size "100000"/);
  assert.match(msgs, /seed "-3"/);
  assert.match(msgs, /unknown URL parameter "bogus"/);
  assert.match(msgs, /unknown preset "nothing"/);
  assert.match(msgs, /view link/);
  const s = await pixelStats(page);
  assert.ok(s.std > 5, 'still draws');
  await page.close();
});

test('auto quality lowers the render scale on slow frames and raises it on fast ones', { skip }, async () => {
  const { page, ok } = await open('?scene=starter&gen=rolling&seed=0&size=64');
  assert.equal(ok, true);
  const r = await page.evaluate(() => {
    const b = window.bozkir;
    const q = b.quality;
    const w0 = b.renderer.canvas.width;
    let t = 0;
    for (let k = 0; k < 60; k++) q.frame(80, (t += 80));
    b.renderFrame();
    const slow = { scale: q.renderScale, width: b.renderer.canvas.width };
    for (let k = 0; k < 400; k++) q.frame(8, (t += 8));
    b.renderFrame();
    return { w0, slow, fast: { scale: q.renderScale, width: b.renderer.canvas.width } };
  });
  assert.ok(r.slow.scale < 0.9, JSON.stringify(r));
  assert.ok(r.slow.width < r.w0, JSON.stringify(r));
  assert.equal(r.fast.scale, 1);
  assert.equal(r.fast.width, r.w0);
  await page.close();
});

test('the terrain window previews every profile once', { skip }, async () => {
  const { page, ok } = await open('?scene=starter&gen=rolling&seed=0&size=64', { width: 1000, height: 700 });
  assert.equal(ok, true);
  const profiles = await page.evaluate(() => window.bozkir.wasm.profiles());
  await page.evaluate(() => window.bozkir.panel.openTerrainWindow());
  await page.waitForFunction((n) => document.querySelectorAll('#terrains figure[data-ready="1"]').length === n, profiles.length, { timeout: 60000 });
  const shown = await page.evaluate(() => [...document.querySelectorAll('#terrains figure')].map((f) => f.dataset.profile));
  assert.deepEqual(shown.slice().sort(), profiles.slice().sort());
  await shot(page, 'terrain-window');
  await page.click('#terrains figure[data-profile="mesa"]');
  await page.waitForFunction(() => window.bozkir.gen.gen === 'mesa' && window.bozkir.terrainInfo.label.startsWith('mesa'));
  await page.close();
});

test('benchmark mode reports frame times per grid', { skip }, async () => {
  const { page, ok } = await open('?scene=starter&gen=rolling&seed=0&size=64&bench=1&grids=2,4&frames=4');
  assert.equal(ok, true);
  const body = await page.evaluate(() => window.bozkir.benchResult);
  assert.equal(body.rows.length, 2);
  for (const r of body.rows) {
    assert.ok(r.fps > 0 && r.p50 > 0 && r.draw_calls > 0 && r.splats > 0, JSON.stringify(r));
  }
  assert.ok(body.report.length >= 1);
  await page.close();
});

test('the splat view draws the sea as water: level, blue by depth, and off with its control', { skip }, async () => {
  const { page, errors, ok } = await open('?scene=starter&terrain=island64');
  assert.equal(ok, true);
  const look = (water) => page.evaluate((on) => {
    const b = window.bozkir;
    b.set('water', on);
    b.cam.el = 60;
    b.cam.dist = 22 * b.tileset.size;
    b.cam.target = [0, 0, 0];
    b.renderFrame();
    const { data } = b.renderer.readPixels();
    let blue = 0, n = 0;
    for (let k = 0; k < data.length; k += 16) {
      n += 1;
      if (data[k + 2] > data[k] + 30 && data[k + 2] > data[k + 1]) blue += 1;
    }
    return { blue: blue / n, wet: b.water.wet, range: b.water.range, splats: b.stats.splats };
  }, water);
  const on = await look(true);
  await shot(page, 'water-island');
  const off = await look(false);
  await shot(page, 'water-island-off');
  assert.deepEqual(errors, []);
  // About half the island's cells lie under its sea (0 m); the sea is blue, the dry ground is not.
  assert.ok(on.wet > 0.3 && on.wet < 0.8, `wet share ${on.wet}`);
  assert.ok(on.splats > 0, 'splats drawn');
  assert.ok(on.blue > off.blue + 0.2, `blue share ${off.blue} → ${on.blue}`);
  await page.close();
});

test('the far field lies under the splats: the sky no longer shows through their gaps', { skip }, async () => {
  const { page, errors, ok } = await open('?scene=starter&gen=canyon&seed=3&size=64');
  assert.equal(ok, true);
  // A low view close over the ground; per setting, the mean of blue minus red over the lower
  // half of the picture (the ground): the background sky (158, 179, 199) is blue, the ground not.
  const blueness = async (under) => {
    await stage(page, { underlay: under, macro: 0 }, { el: 25, az: 30, dist: 6 * 1.5, target: [0, 0, 0] });
    return page.evaluate(() => {
      window.bozkir.renderFrame();
      const { width: W, height: H, data } = window.bozkir.renderer.readPixels();
      let s = 0, n = 0;
      for (let y = Math.floor(H / 2); y < H; y++) {
        for (let x = 0; x < W; x++) {
          const k = 4 * (y * W + x);
          s += data[k + 2] - data[k];
          n += 1;
        }
      }
      return s / n;
    });
  };
  const off = await blueness(false);
  await shot(page, 'underlay-off');
  const on = await blueness(true);
  await shot(page, 'underlay-on');
  assert.deepEqual(errors, []);
  console.log(`# underlay: blue − red over the ground ${off.toFixed(1)} without, ${on.toFixed(1)} with`);
  assert.ok(on < off - 5, `blue − red ${off} → ${on}`);
  await page.close();
});

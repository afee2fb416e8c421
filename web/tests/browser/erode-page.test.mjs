// The live erosion page (erode.html) in headless Chromium on SwiftShader's Vulkan: the terrain
// made in the page, eroded by the WebGPU kernels step by step, drawn from the GPU buffer, and
// exported as a height PNG16 whose codes equal those of the recipe line run natively
// (`bozkir lab`). Also: reset, the message without WebGPU, and a lost device. Under CI=true a
// browser without WebGPU fails the tests.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { bin, launchWebGPU, outDir, serve, skip } from './setup.mjs';

const CI = process.env.CI === 'true';
let ctx = null;

/** Decodes a PNG (8 or 16 bits, any colour type without palette) to its samples, row-major. */
function decodePng(buf) {
  const u8 = new Uint8Array(buf);
  const dv = new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
  let o = 8;
  let w = 0, h = 0, depth = 0, channels = 0;
  const idat = [];
  while (o < u8.length) {
    const len = dv.getUint32(o);
    const type = String.fromCharCode(...u8.subarray(o + 4, o + 8));
    const data = u8.subarray(o + 8, o + 8 + len);
    if (type === 'IHDR') {
      w = dv.getUint32(o + 8);
      h = dv.getUint32(o + 12);
      depth = data[8];
      channels = { 0: 1, 2: 3, 4: 2, 6: 4 }[data[9]];
    } else if (type === 'IDAT') {
      idat.push(data);
    }
    o += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const bpp = (channels * depth) / 8;
  const stride = w * bpp;
  const out = new Uint8Array(h * stride);
  for (let y = 0; y < h; y++) {
    const f = raw[y * (stride + 1)];
    for (let x = 0; x < stride; x++) {
      const v = raw[y * (stride + 1) + 1 + x];
      const a = x >= bpp ? out[y * stride + x - bpp] : 0;
      const b = y > 0 ? out[(y - 1) * stride + x] : 0;
      const c = x >= bpp && y > 0 ? out[(y - 1) * stride + x - bpp] : 0;
      const p = a + b - c;
      const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
      const pred = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][f];
      out[y * stride + x] = (v + pred) & 255;
    }
  }
  const samples = depth === 16 ? Array.from({ length: out.length / 2 }, (_, i) => (out[2 * i] << 8) | out[2 * i + 1]) : [...out];
  return { width: w, height: h, channels, depth, samples };
}

before(async () => {
  if (skip) return;
  const dir = mkdtempSync(join(tmpdir(), 'bozkir-erode-page-'));
  const s = await serve(dir);
  const browser = await launchWebGPU();
  const page = await browser.newPage({ viewport: { width: 900, height: 600 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${s.url}erode.html?profile=canyon&seed=3&size=64&drops=512&thermal=3&talus=33&radius=5&inc=0.05&water=6`);
  const ready = await page.evaluate(() => window.bozkirLab.ready);
  ctx = { dir, server: s, browser, page, ready, errors };
});

after(async () => {
  if (!ctx) return;
  await ctx.browser.close();
  ctx.server.child.kill();
  rmSync(ctx.dir, { recursive: true, force: true });
});

function unavailable(t) {
  if (skip) {
    t.skip(skip);
    return true;
  }
  if (ctx.ready.error) {
    if (CI) assert.fail(`CI=true and the erosion page has no WebGPU: ${ctx.ready.error}`);
    t.skip(ctx.ready.error);
    return true;
  }
  return false;
}

test('the page erodes on WebGPU and its export equals the recipe line run natively', async (t) => {
  if (unavailable(t)) return;
  const { page } = ctx;
  const before0 = await page.evaluate(() => window.bozkirLab.codes());
  for (let i = 0; i < 3; i++) await page.evaluate(() => window.bozkirLab.step());
  // The rain brush held on one cell for two frames, then moved, then steps with the water
  // flowing on.
  await page.evaluate(async () => {
    await window.bozkirLab.rainAt(30, 34);
    await window.bozkirLab.rainAt(30, 34);
    await window.bozkirLab.rainAt(12, 40);
  });
  const water = await page.evaluate(async () => {
    const s = window.bozkirLab.state;
    const d = (await (await import('/src/gpu/device.js')).submitAndRead(s.device, (() => {
      s.device.pushErrorScope('validation');
      s.device.pushErrorScope('out-of-memory');
      return s.device.createCommandEncoder();
    })(), [[s.lab.pipe.d, 4 * 64 * 64]], 'water'))[0];
    const v = new Float32Array(d);
    return { wet: v.filter((x) => x > 1e-3).length, max: Math.max(...v) };
  });
  assert.ok(water.wet > 40 && water.max > 0.05, `water after the brush: ${JSON.stringify(water)}`);
  for (let i = 0; i < 3; i++) await page.evaluate(() => window.bozkirLab.step());
  const got = await page.evaluate(async () => {
    const lab = window.bozkirLab;
    const c = await lab.codes();
    // The downloaded file itself: exportPng's bytes.
    const out = await lab.exportPng();
    return { ...c, recipe: lab.state.lab.recipe(), png: [...out.png], status: document.getElementById('lab-status').textContent };
  });
  assert.deepEqual(ctx.errors, []);
  assert.equal(got.recipe, 'bozkir lab --profile canyon --seed 3 --size 64 --cell-size 80 --ops '
    + 'steps:1:512:33:0.2:3:0x3,rain:30:34:5:0.05:12,rain:12:40:5:0.05:6,steps:4:512:33:0.2:3:6x3 --out lab-out');
  assert.match(got.status, /steps 6, droplets 3,072/);
  const moved = got.codes.filter((q, i) => q !== before0.codes[i]).length;
  assert.ok(moved > got.codes.length / 4, `the steps changed only ${moved} cells`);
  // The exported PNG decodes to the codes.
  const png = decodePng(Buffer.from(got.png));
  assert.deepEqual([png.width, png.height, png.channels, png.depth], [64, 64, 1, 16]);
  assert.deepEqual(png.samples, got.codes);
  // The recipe run natively writes the same codes and range.
  const out = join(ctx.dir, 'lab-out');
  const args = got.recipe.split(' ').slice(1);
  args[args.length - 1] = out;
  execFileSync(bin, ['--quiet', ...args]);
  const native = decodePng(readFileSync(join(out, 'height.png')));
  const side = JSON.parse(readFileSync(join(out, 'terrain.json'), 'utf8'));
  assert.equal(side.low_m, got.lo);
  assert.equal(side.high_m, got.hi);
  const differ = native.samples.filter((q, i) => q !== got.codes[i]).length;
  assert.equal(differ, 0, `${differ} of ${native.samples.length} codes differ from bozkir lab's`);
});

test('a batch other than auto is carried by the recipe line and replayed natively code for code', async (t) => {
  if (unavailable(t)) return;
  const got = await ctx.page.evaluate(async () => {
    const { ErosionLab, heightPng16 } = await import('/src/gpu/lab.js');
    const s = window.bozkirLab.state;
    const run = async (batch) => {
      const lab = await ErosionLab.create(s.device, s.lab.start, { batch });
      try {
        lab.droplets(9, 512);
        lab.droplets(10, 512);
        const out = await heightPng16(await lab.read(), lab.size, lab.size);
        return { codes: [...out.codes], lo: out.lo, hi: out.hi, recipe: lab.recipe(), batch: lab.drops.batch };
      } finally {
        lab.destroy();
      }
    };
    return { small: await run(16), auto: await run('auto') };
  });
  assert.deepEqual(ctx.errors, []);
  assert.equal(got.small.batch, 16);
  assert.equal(got.auto.batch, 64, 'auto at 64² is one droplet to 64 cells');
  assert.equal(got.small.recipe, 'bozkir lab --profile canyon --seed 3 --size 64 --cell-size 80 --batch 16 --ops droplets:9:512x2 --out lab-out');
  assert.equal(got.auto.recipe, 'bozkir lab --profile canyon --seed 3 --size 64 --cell-size 80 --ops droplets:9:512x2 --out lab-out');
  const differ = got.small.codes.filter((q, i) => q !== got.auto.codes[i]).length;
  assert.ok(differ > 100, `batches of 16 and 64 differ in only ${differ} codes`);
  const out = join(ctx.dir, 'lab-batch');
  const args = got.small.recipe.split(' ').slice(1);
  args[args.length - 1] = out;
  execFileSync(bin, ['--quiet', ...args]);
  const native = decodePng(readFileSync(join(out, 'height.png')));
  const side = JSON.parse(readFileSync(join(out, 'terrain.json'), 'utf8'));
  assert.deepEqual([side.low_m, side.high_m, side.settings.batch], [got.small.lo, got.small.hi, 16]);
  const off = native.samples.filter((q, i) => q !== got.small.codes[i]).length;
  assert.equal(off, 0, `${off} codes differ from bozkir lab --batch 16`);
});

test('the mesh is drawn from the GPU buffer, and reset brings the start back', async (t) => {
  if (unavailable(t)) return;
  const { page } = ctx;
  const shot = decodePng(await page.screenshot());
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'erode-page.png'), await page.screenshot());
  // Terrain colours (green, brown, grey) cover a good part of the view, beside the sky.
  let sky = 0, ground = 0;
  for (let i = 0; i < shot.samples.length; i += shot.channels * 7) {
    const [r, g, b] = shot.samples.slice(i, i + 3);
    if (Math.abs(r - 158) < 8 && Math.abs(g - 184) < 8 && Math.abs(b - 214) < 8) sky++;
    else if (g >= b && r >= b - 10) ground++;
  }
  const n = shot.samples.length / (shot.channels * 7);
  assert.ok(ground / n > 0.2 && sky / n > 0.05, `sky ${sky / n}, ground ${ground / n}`);
  const start = await page.evaluate(async () => {
    const lab = window.bozkirLab;
    const heights = lab.state.lab.start.heights;
    await lab.reset();
    const h = await lab.state.lab.read();
    return { same: h.every((v, i) => Object.is(v, heights[i])), recipe: lab.state.lab.recipe() };
  });
  assert.ok(start.same, 'reset did not bring the start heights back');
  assert.equal(start.recipe, 'bozkir lab --profile canyon --seed 3 --size 64 --cell-size 80 --out lab-out');
});

test('a lost device stops the page with a message, no export, and restore replays the session', async (t) => {
  if (unavailable(t)) return;
  const r = await ctx.page.evaluate(async () => {
    const lab = window.bozkirLab;
    await lab.step();
    await lab.rainAt(20, 20);
    await lab.step();
    const before = await lab.codes();
    lab.state.device.destroy();
    await new Promise((res) => setTimeout(res, 100));
    await lab.step();
    let exported = 'yes';
    try {
      await lab.exportPng();
    } catch (e) {
      exported = e.message;
    }
    const message = document.getElementById('lab-message').textContent;
    const offered = !document.getElementById('lab-restore').hidden;
    await lab.restore();
    const after = await lab.codes();
    return {
      message, exported, offered, same: after.codes.every((q, i) => q === before.codes[i]) && after.lo === before.lo,
      recipe: lab.state.lab.recipe(), restored: document.getElementById('lab-message').textContent,
    };
  });
  assert.match(r.message, /device was lost/);
  assert.match(r.exported, /device was lost/);
  assert.ok(r.offered, 'no restore button');
  assert.ok(r.same, 'the restored heights differ from those before the loss');
  assert.match(r.restored, /restored: 3 logged runs replayed/);
  assert.match(r.recipe, /--ops steps:1:512:33:0\.2:3:0,rain:20:20:5:0\.05:6,steps:2:512:33:0\.2:3:6 /);
});

test('without WebGPU the page says so and disables its controls', async (t) => {
  if (skip) return t.skip(skip);
  const page = await ctx.browser.newPage();
  await page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined }));
  await page.goto(`${ctx.server.url}erode.html?size=64`);
  const r = await page.evaluate(async () => {
    const ready = await window.bozkirLab.ready;
    return { ready, message: document.getElementById('lab-message').textContent, disabled: document.getElementById('lab-run').disabled };
  });
  await page.close();
  assert.match(r.ready.error, /no WebGPU/);
  assert.match(r.message, /Live erosion needs WebGPU/);
  assert.ok(r.disabled);
});

test('the benchmark mode (bench=1) times each case on the page\'s kernels and refuses bad cases', async (t) => {
  if (unavailable(t)) return;
  const page = await ctx.browser.newPage();
  await page.goto(`${ctx.server.url}erode.html?bench=1&cases=droplets:64:256:1024:2,pipe:64:4,live:64:256:2`);
  const r = await page.evaluate(async () => {
    await window.bozkirLab.ready;
    return window.bozkirLab.benchResult;
  });
  await page.goto(`${ctx.server.url}erode.html?bench=1&cases=pipe:64:4,rain:64:2`);
  const bad = await page.evaluate(async () => {
    await window.bozkirLab.ready;
    return { result: window.bozkirLab.benchResult, message: document.getElementById('lab-message').textContent };
  });
  await page.close();
  assert.equal(r.error, undefined, r.error);
  assert.deepEqual(r.rows.map((x) => [x.case, x.size, x.drops, x.batch, x.steps]),
    // 64² caps the batch at one droplet per 64 cells: 64; the live case's batch is the page's.
    [['droplets', 64, 256, 64, 2], ['pipe', 64, 0, null, 4], ['live', 64, 256, 64, 2]]);
  for (const x of r.rows) {
    assert.ok(x.seconds > 0 && Number.isFinite(x.steps_per_s), JSON.stringify(x));
    assert.ok(Math.abs(x.steps_per_s * x.seconds - x.steps) < 1e-6 * x.steps);
  }
  assert.match(r.gpu, /\S/);
  assert.equal(r.report.length, 3);
  assert.match(bad.result.error, /bench case "rain:64:2": the kind must be droplets, pipe or live/);
  assert.match(bad.message, /rain:64:2/);
});

test('a GPU error outside the kernels stops the page, refuses the export, and restore replays the session', async (t) => {
  if (unavailable(t)) return;
  const page = await ctx.browser.newPage();
  await page.goto(`${ctx.server.url}erode.html?profile=canyon&seed=3&size=64&drops=512&thermal=2`);
  const r = await page.evaluate(async () => {
    const lab = window.bozkirLab;
    await lab.ready;
    await lab.step();
    await lab.step();
    const before = await lab.codes();
    // A buffer WebGPU refuses (MAP_READ with STORAGE), made outside any error scope: the device
    // reports it as an uncaptured error, as it would an out-of-memory in the middle of a run.
    lab.state.device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.STORAGE });
    // Dawn delivers the error at its next tick, which queued work gives it (a running page always has some).
    await lab.state.device.queue.onSubmittedWorkDone();
    const t0 = performance.now();
    while (document.getElementById('lab-restore').hidden && performance.now() - t0 < 10000) {
      await new Promise((res) => setTimeout(res, 50));
    }
    const message = document.getElementById('lab-message').textContent;
    let exportError = null;
    try {
      await lab.exportPng();
    } catch (e) {
      exportError = e.message;
    }
    await lab.restore();
    const after = await lab.codes();
    return {
      message, exportError, same: JSON.stringify(before.codes) === JSON.stringify(after.codes),
      restoreHidden: document.getElementById('lab-restore').hidden, recipe: lab.state.lab.recipe(),
    };
  });
  await page.close();
  assert.match(r.message, /The GPU reported an error \(.+\), so the heights may be wrong and the export is refused\. Press "restore"/s);
  assert.match(r.exportError, /the GPU reported an error earlier/);
  assert.ok(r.same, 'restore brings back the heights of the two steps');
  assert.ok(r.restoreHidden);
  assert.match(r.recipe, /--ops steps:1:512:35:0\.2:2:0x2 /);
});

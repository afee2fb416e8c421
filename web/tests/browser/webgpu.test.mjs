// The browser's WebGPU kernels (web/src/gpu/) in headless Chromium on SwiftShader's Vulkan,
// served by the real `bozkir serve` (the modules and the generated WGSL come from the binary's
// embedded copy of web/). Each is held bit for bit to the CPU reference of its f32 contract,
// pinned in tests/browser/fixtures/ by crates/gpu/tests/browser.rs (which also holds the native
// wgpu run of the same WGSL to it). Under CI=true a browser without WebGPU fails the test.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { skip, serve, launchWebGPU, withoutWebGPU } from './setup.mjs';

const load = (name) => JSON.parse(readFileSync(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)), 'utf8'));
const fixture = load('thermal-f32.json');
const drops = load('droplets-f32.json');
const pipeFx = load('pipe-f32.json');
const flowFx = load('flow-f32.json');
let ctx = null;

before(async () => {
  if (skip) return;
  const dir = mkdtempSync(join(tmpdir(), 'bozkir-webgpu-'));
  const s = await serve(dir);
  const browser = await launchWebGPU();
  const page = await browser.newPage();
  // Any page of the served origin: localhost is a secure context, so navigator.gpu exists.
  await page.goto(`${s.url}src/gpu/thermal.wgsl`);
  const why = await page.evaluate(async () => (await import('/src/gpu/device.js')).webgpuUnavailable());
  ctx = { dir, server: s.child, browser, page, why };
});

after(async () => {
  if (!ctx) return;
  await ctx.browser.close();
  ctx.server.kill();
  rmSync(ctx.dir, { recursive: true, force: true });
});

/** Skip (or, under CI=true, fail) when there is no browser or no WebGPU in it. */
const unavailable = (t) => withoutWebGPU(t, ctx?.why);

test('thermal on WebGPU is the f32 CPU reference bit for bit', async (t) => {
  if (unavailable(t)) return;
  const got = await ctx.page.evaluate(async (f) => {
    const m = await import('/src/gpu/thermal.js');
    const f32 = (bits) => new Float32Array(new Uint32Array(bits).buffer);
    const device = await (await import('/src/gpu/device.js')).webgpuDevice();
    const out = await m.thermalF32(device, {
      width: f.width, height: f.height, z: f32(f.z), table: f32(f.table),
      halfRate: f32([f.half_rate])[0], iterations: f.iterations,
    });
    // A second run on the same device (pipelines cached) gives the same bits.
    const again = await m.thermalF32(device, {
      width: f.width, height: f.height, z: f32(f.z), table: f32(f.table),
      halfRate: f32([f.half_rate])[0], iterations: f.iterations,
    });
    return { bits: [...new Uint32Array(out.buffer)], same: out.every((v, i) => Object.is(v, again[i])) };
  }, fixture);
  assert.equal(got.bits.length, fixture.expected.length);
  const wrong = got.bits.map((b, i) => [i, b]).filter(([i, b]) => b !== fixture.expected[i]);
  const f32 = (b) => new Float32Array(new Uint32Array([b]).buffer)[0];
  assert.equal(wrong.length, 0, `${wrong.length} cells differ, first: ${wrong.slice(0, 3).map(([i, b]) =>
    `(${i % fixture.width}, ${Math.floor(i / fixture.width)}) got ${f32(b)} want ${f32(fixture.expected[i])}`).join('; ')}`);
  assert.ok(got.same, 'a second run differs');
  // The kernel moved material (the comparison is not of an untouched input).
  assert.ok(fixture.z.filter((b, i) => b !== fixture.expected[i]).length > fixture.z.length / 2);
});

test('thermal on WebGPU refuses bad input with a message', async (t) => {
  if (unavailable(t)) return;
  const errors = await ctx.page.evaluate(async () => {
    const m = await import('/src/gpu/thermal.js');
    const device = await (await import('/src/gpu/device.js')).webgpuDevice();
    const table = m.talusTable(35, 0, 1, 1);
    const cases = [
      { width: 4, height: 4, z: new Float32Array(15), table, halfRate: 0.1, iterations: 1 },
      { width: 4, height: 4, z: new Float32Array(16), table: new Float32Array(8), halfRate: 0.1, iterations: 1 },
      { width: 4, height: 4, z: new Float32Array(16), table, halfRate: 0.9, iterations: 1 },
      { width: 0, height: 4, z: new Float32Array(0), table, halfRate: 0.1, iterations: 1 },
      { width: 4, height: 4, z: new Float32Array(16), table, halfRate: 0.1, iterations: -1 },
    ];
    const out = [];
    for (const c of cases) {
      try {
        await m.thermalF32(device, c);
        out.push('accepted');
      } catch (e) {
        out.push(e.message);
      }
    }
    return out;
  });
  assert.match(errors[0], /Float32Array of 16/);
  assert.match(errors[1], /talus table/);
  assert.match(errors[2], /half the rate/);
  assert.match(errors[3], /bad grid/);
  assert.match(errors[4], /iteration/);
});

test('droplets on WebGPU are the f32 CPU reference bit for bit', async (t) => {
  if (unavailable(t)) return;
  const got = await ctx.page.evaluate(async (f) => {
    const m = await import('/src/gpu/droplets.js');
    const { webgpuDevice } = await import('/src/gpu/device.js');
    const f32 = (bits) => new Float32Array(new Uint32Array(bits).buffer);
    const device = await webgpuDevice();
    const out = await m.dropletsF32(device, {
      width: f.width, height: f.height, h0: f32(f.h0), f: f32(f.f), seed: f.seed, lifetime: f.lifetime,
      total: f.total, batch: f.batch, brushW: f32(f.brush_w), brushO: new Int32Array(f.brush_o), rx: f.rx, ry: f.ry,
    });
    return {
      height: [...new Uint32Array(out.height.buffer)],
      wear: [...out.wear].map(Number),
      deposit: [...out.deposit].map(Number),
      stats: [out.steps, out.eroded, out.deposited, out.lost],
    };
  }, drops);
  const want = drops.expected;
  const wrong = got.height.map((b, i) => [i, b]).filter(([i, b]) => b !== want.height[i]);
  assert.equal(wrong.length, 0, `${wrong.length} heights differ, first at ${wrong.slice(0, 3).map(([i]) => `(${i % drops.width}, ${Math.floor(i / drops.width)})`).join(', ')}`);
  assert.deepEqual(got.wear, want.wear);
  assert.deepEqual(got.deposit, want.deposit);
  assert.deepEqual(got.stats, [want.steps, want.eroded, want.deposited, want.lost]);
  assert.ok(want.eroded > 1e6 && want.steps > 1e4, 'the fixture ran droplets');
});

test('droplets on WebGPU refuse bad input with a message', async (t) => {
  if (unavailable(t)) return;
  const errors = await ctx.page.evaluate(async (f) => {
    const m = await import('/src/gpu/droplets.js');
    const { webgpuDevice } = await import('/src/gpu/device.js');
    const f32 = (bits) => new Float32Array(new Uint32Array(bits).buffer);
    const device = await webgpuDevice();
    const good = {
      width: f.width, height: f.height, h0: f32(f.h0), f: f32(f.f), seed: f.seed, lifetime: f.lifetime,
      total: f.total, batch: f.batch, brushW: f32(f.brush_w), brushO: new Int32Array(f.brush_o), rx: f.rx, ry: f.ry,
    };
    const nan = f32(f.h0);
    nan[5] = NaN;
    const cases = [
      { ...good, width: 1 },
      { ...good, h0: nan },
      { ...good, f: new Float32Array(17) },
      { ...good, batch: 0 },
      { ...good, brushO: new Int32Array(3) },
    ];
    const out = [];
    for (const c of cases) {
      try {
        await m.dropletsF32(device, c);
        out.push('accepted');
      } catch (e) {
        out.push(e.message);
      }
    }
    return out;
  }, drops);
  assert.match(errors[0], /bad grid/);
  assert.match(errors[1], /finite/);
  assert.match(errors[2], /18 values/);
  assert.match(errors[3], /batch at least 1/);
  assert.match(errors[4], /brush/);
});

test('a lost WebGPU device gives a message, and a new device works again', async (t) => {
  if (unavailable(t)) return;
  const got = await ctx.page.evaluate(async (f) => {
    const m = await import('/src/gpu/thermal.js');
    const d = await import('/src/gpu/device.js');
    const f32 = (bits) => new Float32Array(new Uint32Array(bits).buffer);
    const input = { width: f.width, height: f.height, z: f32(f.z), table: f32(f.table), halfRate: f32([f.half_rate])[0], iterations: 3 };
    const device = await d.webgpuDevice();
    device.destroy();
    await device.lost;
    let message = 'accepted';
    try {
      await m.thermalF32(device, input);
    } catch (e) {
      message = e.message;
    }
    const again = await m.thermalF32(await d.webgpuDevice(), input);
    return { message, again: again.length };
  }, fixture);
  assert.match(got.message, /device was lost/);
  assert.equal(got.again, fixture.width * fixture.height);
});

test('the pipe model on WebGPU is the f32 CPU reference bit for bit (rain brush, then dry)', async (t) => {
  if (unavailable(t)) return;
  const got = await ctx.page.evaluate(async (f) => {
    const m = await import('/src/gpu/pipe.js');
    const f32 = (bits) => new Float32Array(new Uint32Array(bits).buffer);
    const device = await (await import('/src/gpu/device.js')).webgpuDevice();
    const out = await m.pipeF32(device, {
      width: f.width, height: f.height, uniform: new Uint32Array(f.uniform).buffer, b: f32(f.b), maps: f32(f.maps),
      rainSteps: f.rain_steps, drySteps: f.dry_steps,
    });
    const bits = (a) => [...new Uint32Array(a.buffer)];
    return { b: bits(out.b), d: bits(out.d), s: bits(out.s), erdp: bits(out.erdp) };
  }, pipeFx);
  for (const k of ['b', 'd', 's', 'erdp']) {
    const want = pipeFx.expected[k];
    const wrong = got[k].filter((b, i) => b !== want[i]).length;
    assert.equal(got[k].length, want.length, k);
    assert.equal(wrong, 0, `${k}: ${wrong} of ${want.length} values differ`);
  }
  // Water ran and carved: the comparison is not of an untouched input.
  assert.ok(pipeFx.b.filter((b, i) => b !== pipeFx.expected.b[i]).length > pipeFx.b.length / 4);
});

test('D8 routing and accumulation on WebGPU are the f32 CPU reference bit for bit', async (t) => {
  if (unavailable(t)) return;
  const got = await ctx.page.evaluate(async (f) => {
    const m = await import('/src/gpu/flow.js');
    const device = await (await import('/src/gpu/device.js')).webgpuDevice();
    const z = new Float32Array(new Uint32Array(f.z).buffer);
    const out = await m.flowF32(device, { width: f.width, height: f.height, z, dx: f.dx, dy: f.dy });
    return { rcv: [...out.rcv], dist: [...new Uint32Array(out.dist.buffer)], count: [...out.count] };
  }, flowFx);
  for (const k of ['rcv', 'dist', 'count']) {
    const want = flowFx.expected[k];
    assert.equal(got[k].length, want.length, k);
    const wrong = got[k].filter((v, i) => v !== want[i]).length;
    assert.equal(wrong, 0, `${k}: ${wrong} of ${want.length} values differ`);
  }
  assert.ok(Math.max(...flowFx.expected.count) > 100);
});

test('the GPU radix sort gives the CPU counting sort order (far to near, stable)', async (t) => {
  if (unavailable(t)) return;
  const got = await ctx.page.evaluate(async () => {
    const m = await import('/src/gpu/sort.js');
    const device = await (await import('/src/gpu/device.js')).webgpuDevice();
    // Keys with many repeats (the stability matters) and the extremes, over several blocks and
    // a partial last block.
    let s = 12345;
    const rnd = () => {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      return s >>> 8;
    };
    const out = [];
    for (const n of [1, 255, 256, 4099, 70000]) {
      const keys = Uint32Array.from({ length: n }, (_, i) => (i % 97 === 0 ? 65535 * (i % 2) : rnd() % (n < 300 ? 7 : 4000)));
      const gpu = await m.sortKeys(device, keys);
      const cpu = Array.from({ length: n }, (_, i) => i).sort((a, b) => keys[b] - keys[a] || a - b);
      out.push({ n, same: gpu.length === n && cpu.every((v, i) => v === gpu[i]), first: [...gpu.slice(0, 5)], want: cpu.slice(0, 5) });
    }
    return out;
  });
  for (const r of got) assert.ok(r.same, `n = ${r.n}: GPU ${r.first}… against CPU ${r.want}…`);
});

test('the GPU radix sort matches sort-worker.js on quantised depths', async (t) => {
  if (unavailable(t)) return;
  const got = await ctx.page.evaluate(async () => {
    const m = await import('/src/gpu/sort.js');
    const w = await import('/src/sort-worker.js');
    const device = await (await import('/src/gpu/device.js')).webgpuDevice();
    const n = 20000;
    const pos = new Float32Array(3 * n);
    for (let i = 0; i < 3 * n; i++) pos[i] = Math.sin(i * 12.9898) * 43758.5453 % 50;
    const forward = [0.3, 0.8, -0.52];
    const eye = [5, -40, 30];
    const cpu = w.depthSort(pos, 0, n, forward, eye);
    // The same keys, quantised as the worker does (f64 depth across the range present).
    const d = Array.from({ length: n }, (_, k) => (pos[3 * k] - eye[0]) * forward[0] + (pos[3 * k + 1] - eye[1]) * forward[1] + (pos[3 * k + 2] - eye[2]) * forward[2]);
    const min = Math.min(...d);
    const max = Math.max(...d);
    const keys = Uint32Array.from(d, (v) => Math.min(65535, Math.floor((v - min) * (65535 / (max - min)))));
    const gpu = await m.sortKeys(device, keys);
    return { same: cpu.length === n && [...cpu].every((v, i) => v === gpu[i]), n: cpu.length };
  });
  assert.ok(got.same, `order differs from sort-worker.js (${got.n} splats)`);
});

// The browser's WebGPU kernels (web/src/gpu/) under Dawn in Node, for hosts whose Chromium cannot
// give WebGPU (issue 28's fallback: the H200 host's headless Chromium loses its device on the
// canvas swap chain). The same JavaScript modules and the same generated WGSL the page runs, on
// the adapter Dawn finds (Vulkan), with no page, no canvas and no server:
//   1. checks: thermal, droplets, the pipe model and D8 flow held bit for bit to the f32 CPU
//      reference fixtures (web/tests/browser/fixtures/, as webgpu.test.mjs does in Chromium), and
//      the radix sort to the CPU counting sort's order;
//   2. the erosion page's benchmark cases (gpu/lab-bench.js: droplets:SIZE:DROPS:BATCH:STEPS,
//      pipe:SIZE:STEPS; `live` draws into a canvas and is not run here) and sort:KEYS:REPS, the
//      WebGPU splat path's depth sort of KEYS 16-bit keys, REPS times, one wait at the end.
//
// Usage: node web/tools/bench-lab-node.mjs [--dawn DIR] [--cases LIST] [--json OUT] [--no-check]
//   --dawn DIR    the npm `webgpu` package's folder (default: `import('webgpu')`); it is not a
//                 dependency of web/ (21 MB a platform): `npm install --prefix /tmp/dawn webgpu@0.6.2`
//   --cases LIST  comma-separated cases (default: the page's droplets and pipe cases, and sorts
//                 of 0.82 M and 5.5 M keys: the viewer's grid 40 and the seed's scene)
//   --json OUT    the adapter, the checks and the rows as JSON
// Exits 1 when a check fails or a case cannot run. On a machine without a Vulkan GPU, Dawn takes
// SwiftShader's Vulkan: VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json (Mesa's
// lavapipe lacks a feature Dawn requires).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installDawn } from './dawn.mjs';

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  if (i < 0) return null;
  if (i + 1 >= args.length) throw new Error(`${name} needs a value`);
  return args[i + 1];
};
const known = new Set(['--dawn', '--cases', '--json', '--no-check']);
for (let i = 0; i < args.length; i++) {
  if (!known.has(args[i])) throw new Error(`unknown argument ${args[i]} (see the usage at the top of ${fileURLToPath(import.meta.url)})`);
  if (args[i] !== '--no-check') i++;
}
const dawnDir = opt('--dawn');
const jsonOut = opt('--json');
const DEFAULT_CASES = 'droplets:2048:131072:auto:60,droplets:2048:131072:1024:10,pipe:4096:240,pipe:2048:240,sort:823076:60,sort:5500000:30';
const cases = opt('--cases') || DEFAULT_CASES;

const gpu = await installDawn(dawnDir);

const src = new URL('../src/gpu/', import.meta.url);
const mod = (name) => import(new URL(name, src).href);
const { webgpuDevice } = await mod('device.js');
const { parseBenchCases, benchCase } = await mod('lab-bench.js');
const { RadixSort, sortKeys } = await mod('sort.js');

const adapter = await gpu.requestAdapter();
if (!adapter) throw new Error('Dawn found no WebGPU adapter (no Vulkan driver, or one Dawn refuses)');
const info = adapter.info || {};
const adapterText = [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(' / ');
console.log(`adapter: ${adapterText}`);
const device = await webgpuDevice();
let gpuError = null;
device.onuncapturederror = (e) => { gpuError = gpuError || e.error.message; };
const report = { adapter: info && { vendor: info.vendor, architecture: info.architecture, device: info.device, description: info.description }, checks: [], rows: [] };
let failed = false;

// 1. The contracts, on this adapter.
const fixtures = fileURLToPath(new URL('../tests/browser/fixtures/', import.meta.url));
const load = (name) => JSON.parse(readFileSync(join(fixtures, name), 'utf8'));
const f32 = (bits) => new Float32Array(new Uint32Array(bits).buffer);
const bits = (a) => [...new Uint32Array(a.buffer, a.byteOffset, a.length)];
const differ = (got, want) => (got.length !== want.length ? Math.max(got.length, want.length) : got.filter((v, i) => v !== want[i]).length);

async function checks() {
  const out = [];
  const th = load('thermal-f32.json');
  const t = await (await mod('thermal.js')).thermalF32(device, {
    width: th.width, height: th.height, z: f32(th.z), table: f32(th.table), halfRate: f32([th.half_rate])[0], iterations: th.iterations,
  });
  out.push(['thermal', th.width, differ(bits(t), th.expected)]);
  const dr = load('droplets-f32.json');
  const d = await (await mod('droplets.js')).dropletsF32(device, {
    width: dr.width, height: dr.height, h0: f32(dr.h0), f: f32(dr.f), seed: dr.seed, lifetime: dr.lifetime,
    total: dr.total, batch: dr.batch, brushW: f32(dr.brush_w), brushO: new Int32Array(dr.brush_o), rx: dr.rx, ry: dr.ry,
  });
  const e = dr.expected;
  out.push(['droplets', dr.width, differ(bits(d.height), e.height) + differ([...d.wear].map(Number), e.wear)
    + differ([...d.deposit].map(Number), e.deposit) + differ([d.steps, d.eroded, d.deposited, d.lost], [e.steps, e.eroded, e.deposited, e.lost])]);
  const pf = load('pipe-f32.json');
  const p = await (await mod('pipe.js')).pipeF32(device, {
    width: pf.width, height: pf.height, uniform: new Uint32Array(pf.uniform).buffer, b: f32(pf.b), maps: f32(pf.maps),
    rainSteps: pf.rain_steps, drySteps: pf.dry_steps,
  });
  out.push(['pipe', pf.width, ['b', 'd', 's', 'erdp'].reduce((n, k) => n + differ(bits(p[k]), pf.expected[k]), 0)]);
  const ff = load('flow-f32.json');
  const fl = await (await mod('flow.js')).flowF32(device, { width: ff.width, height: ff.height, z: f32(ff.z), dx: ff.dx, dy: ff.dy });
  out.push(['flow', ff.width, differ([...fl.rcv], ff.expected.rcv) + differ(bits(fl.dist), ff.expected.dist) + differ([...fl.count], ff.expected.count)]);
  let s = 12345;
  const rnd = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 8);
  const n = 70000;
  const keys = Uint32Array.from({ length: n }, (_, i) => (i % 97 === 0 ? 65535 * (i % 2) : rnd() % 4000));
  const got = await sortKeys(device, keys);
  const want = Array.from({ length: n }, (_, i) => i).sort((a, b) => keys[b] - keys[a] || a - b);
  out.push(['sort', n, differ([...got], want)]);
  return out.map(([kernel, size, wrong]) => ({ kernel, size, differing: wrong, ok: wrong === 0 }));
}

if (!args.includes('--no-check')) {
  report.checks = await checks();
  for (const c of report.checks) {
    console.log(`check ${c.kernel.padEnd(8)} ${String(c.size).padStart(6)}: ${c.ok ? 'bit for bit' : `${c.differing} values differ`}`);
    failed ||= !c.ok;
  }
}

// 2. The timings.
async function benchSort(n, reps) {
  let s = 987654321;
  const keys = Uint32Array.from({ length: n }, () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) >>> 16));
  const kb = device.createBuffer({ size: 4 * n, usage: GPUBufferUsage.STORAGE, mappedAtCreation: true });
  new Uint32Array(kb.getMappedRange()).set(keys);
  kb.unmap();
  const sorter = await RadixSort.create(device, n);
  try {
    const run = () => {
      const enc = device.createCommandEncoder();
      sorter.encode(enc, kb, n);
      device.queue.submit([enc.finish()]);
    };
    for (let i = 0; i < 2; i++) run();
    await device.queue.onSubmittedWorkDone();
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) run();
    await device.queue.onSubmittedWorkDone();
    const seconds = (performance.now() - t0) / 1000;
    return { case: 'sort', size: n, drops: null, batch: null, steps: reps, seconds, steps_per_s: reps / seconds, ms_per_step: (1000 * seconds) / reps, keys_per_s: (n * reps) / seconds };
  } finally {
    sorter.destroy();
    kb.destroy();
  }
}

for (const text of cases.split(',')) {
  const [kind, ...rest] = text.trim().split(':');
  let row;
  try {
    if (kind === 'sort') {
      const [n, reps] = rest.map(Number);
      if (!(Number.isInteger(n) && n > 0 && n <= 1 << 28 && Number.isInteger(reps) && reps > 0)) throw new Error(`bench case "${text}": give sort:KEYS:REPS (positive integers, KEYS ≤ 2^28)`);
      row = await benchSort(n, reps);
    } else if (kind === 'live') {
      throw new Error(`bench case "${text}": live draws into a canvas; run it in the page (bozkir bench-viewer --page erode)`);
    } else {
      row = await benchCase(device, null, parseBenchCases(text)[0]);
    }
    if (gpuError) throw new Error(`the GPU reported an error: ${gpuError}`);
  } catch (e) {
    console.error(`case ${text}: ${e.message}`);
    failed = true;
    continue;
  }
  report.rows.push(row);
  const extra = row.droplets_per_s ? `, ${(row.droplets_per_s / 1e6).toFixed(1)} M droplets/s` : row.keys_per_s ? `, ${(row.keys_per_s / 1e9).toFixed(2)} G keys/s` : '';
  console.log(`${text.padEnd(34)} ${row.steps_per_s.toFixed(1).padStart(8)} steps/s  ${row.ms_per_step.toFixed(3).padStart(9)} ms/step${extra}`);
}
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(report, null, 1));
device.destroy();
process.exit(failed ? 1 : 0);

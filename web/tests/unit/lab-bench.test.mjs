// The erosion page's benchmark inputs (web/src/gpu/lab-bench.js): the cases string is parsed and
// refused as `bozkir bench-viewer --cases` documents it, and the test terrain is deterministic,
// finite and has the relief the cases rely on.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BENCH_CASES, benchTerrain, parseBenchCases } from '../../src/gpu/lab-bench.js';

test('the default cases parse, each with its kind, size and counts', () => {
  const c = parseBenchCases(BENCH_CASES);
  assert.ok(c.length >= 4);
  assert.deepEqual(c[0], { kind: 'droplets', size: 2048, drops: 131072, batch: 'auto', steps: 60 });
  assert.ok(c.some((x) => x.kind === 'droplets' && x.batch === 1024), 'seed 001\'s batch is timed too');
  assert.ok(c.some((x) => x.kind === 'pipe' && x.size === 4096));
  assert.ok(c.some((x) => x.kind === 'live'));
  assert.deepEqual(parseBenchCases('pipe:64:5, live:128:256:3'), [
    { kind: 'pipe', size: 64, drops: 0, batch: 0, steps: 5 },
    { kind: 'live', size: 128, drops: 256, batch: 'auto', steps: 3 },
  ]);
  assert.deepEqual(parseBenchCases('droplets:64:100:auto:2,droplets:64:100:16:2').map((x) => x.batch), ['auto', 16]);
});

test('bad cases are refused with the case named', () => {
  for (const [text, why] of [
    ['rain:64:5', /kind must be droplets, pipe or live/],
    ['pipe:64', /give 2 positive integers/],
    ['droplets:64:100:1024', /give 4 positive integers/],
    ['droplets:64:0:1024:5', /positive integers/],
    ['pipe:64:-3', /positive integers/],
    ['pipe:64:1.5', /positive integers/],
    ['pipe:8:5', /size must be 16…8192/],
    ['pipe:16384:5', /size must be 16…8192/],
    ['live:64:x:3', /positive integers/],
    ['pipe:auto:3', /positive integers/],
    ['droplets:auto:100:16:2', /positive integers/],
    ['droplets:64:auto:16:2', /positive integers/],
    ['live:64:100:auto', /positive integers/],
  ]) {
    assert.throws(() => parseBenchCases(text), (e) => e.message.includes(`"${text}"`) && why.test(e.message), text);
  }
});

test('the test terrain is deterministic, finite and about 1.2 km of relief, falling north to south', () => {
  const a = benchTerrain(64);
  assert.deepEqual(a, benchTerrain(64));
  assert.ok(a.every(Number.isFinite));
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of a) {
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  assert.ok(hi - lo > 900 && hi - lo < 1500, `relief ${hi - lo}`);
  const row = (y) => a.subarray(64 * y, 64 * y + 64).reduce((s, v) => s + v, 0) / 64;
  assert.ok(row(0) > row(63) + 300, `north ${row(0)}, south ${row(63)}`);
  // Pinned: a change to the terrain changes every benchmark figure.
  assert.equal(a[0], Math.fround(500 + 300 * 0.5));
  const b = benchTerrain(16);
  assert.deepEqual([b[17], b[100], b[255]], [812.554931640625, 218.328125, 244.04563903808594]);
});

test('the Dawn-in-Node bench refuses bad arguments and a missing Dawn with a message', async () => {
  const { spawnSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const tool = fileURLToPath(new URL('../../tools/bench-lab-node.mjs', import.meta.url));
  const run = (...args) => spawnSync(process.execPath, [tool, ...args], { encoding: 'utf8', timeout: 30000 });
  const bad = run('--bogus');
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /unknown argument --bogus/);
  const noValue = run('--cases');
  assert.notEqual(noValue.status, 0);
  assert.match(noValue.stderr, /--cases needs a value/);
  const noDawn = run('--dawn', '/nonexistent/webgpu');
  assert.notEqual(noDawn.status, 0);
  assert.match(noDawn.stderr, /cannot load Dawn's Node binding/);
});

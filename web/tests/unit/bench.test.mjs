import test from 'node:test';
import assert from 'node:assert/strict';
import { BenchRecorder, percentile, report, sweepCameras } from '../../src/bench.js';

const frames = (ms, n = 40) => Array.from({ length: n }, (_, k) => ms * (1 + 0.02 * Math.sin(k)));

test('percentile interpolates; empty is NaN', () => {
  assert.equal(percentile([5, 1, 3], 50), 3);
  assert.equal(percentile([1, 2, 3, 4], 50), 2.5);
  assert.equal(percentile([1, 2, 3, 4, 5], 100), 5);
  assert.equal(percentile([7], 95), 7);
  assert.ok(Number.isNaN(percentile([], 50)));
});

test('summary rows per grid: fps from the mean frame, percentiles, means', () => {
  const b = new BenchRecorder();
  b.add(8, { frameMs: [10, 10, 10, 50], sortMs: [2, 4], drawCalls: 64, splats: 1000 });
  b.add(4, { frameMs: [5, 5], sortMs: [1], drawCalls: 16, splats: 200 });
  const rows = b.summary();
  assert.deepEqual(rows.map((r) => r.grid), [4, 8]);
  assert.equal(rows[1].fps, 1000 / 20);
  assert.equal(rows[1].p50, 10);
  assert.ok(rows[1].p99 > 45 && rows[1].p95 > rows[1].p50);
  assert.equal(rows[1].sortMs, 3);
  assert.equal(rows[1].drawCalls, 64);
  assert.equal(rows[1].splats, 1000);
});

test('report: 60 and 30 fps limits, and the sort identified as the limit', () => {
  const b = new BenchRecorder();
  b.add(4, { frameMs: frames(10), sortMs: [1], drawCalls: 16, splats: 1e5 });
  b.add(8, { frameMs: frames(17), sortMs: [4], drawCalls: 64, splats: 4e5 });
  b.add(12, { frameMs: frames(25), sortMs: [9], drawCalls: 144, splats: 9e5 });
  b.add(16, { frameMs: frames(34), sortMs: [20], drawCalls: 256, splats: 1.6e6 });
  b.add(20, { frameMs: frames(60), sortMs: [40], drawCalls: 400, splats: 2.5e6 });
  const lines = report(b.summary());
  assert.equal(lines[0], '60 fps up to grid 8');
  assert.equal(lines[1], '30 fps up to grid 16');
  assert.match(lines[2], /sorting is the limit/);
});

test('report: draw calls when the sort keeps pace, fill rate otherwise', () => {
  const calls = report([
    { grid: 4, fps: 100, sortMs: 2, drawCalls: 16 },
    { grid: 40, fps: 20, sortMs: 8, drawCalls: 1600 },
  ]);
  assert.equal(calls[0], '60 fps up to grid 4');
  assert.equal(calls[1], '30 fps up to grid 4');
  assert.match(calls[2], /draw calls/);
  const fill = report([
    { grid: 4, fps: 50, sortMs: 2, drawCalls: 16 },
    { grid: 8, fps: 20, sortMs: 3, drawCalls: 64 },
  ]);
  assert.equal(fill[0], 'never 60 fps');
  assert.match(fill[2], /fill rate/);
});

test('empty → "nothing measured"', () => {
  assert.deepEqual(report([]), ['nothing measured']);
  assert.deepEqual(report(new BenchRecorder().summary()), ['nothing measured']);
});

test('sweepCameras is deterministic, goes once round, keeps sane angles', () => {
  const a = sweepCameras(16, 24), b = sweepCameras(16, 24);
  assert.deepEqual(a, b);
  assert.equal(a.length, 24);
  const az = a.map((c) => c.az);
  assert.ok(az.every((v, k) => k === 0 || v > az[k - 1]));
  assert.ok(az[23] - az[0] < 360 && az[23] - az[0] > 330);
  assert.ok(a.every((c) => c.el >= 12 && c.el <= 42 && c.dist > 0));
  assert.ok(sweepCameras(32, 8)[0].dist > sweepCameras(8, 8)[0].dist);
  assert.deepEqual(sweepCameras(8, 0), []);
});

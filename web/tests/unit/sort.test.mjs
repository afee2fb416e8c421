import test from 'node:test';
import assert from 'node:assert/strict';
import {
  depthSort, mergeSort, handleSortMessage, createSortState, SLOT_BITS as WORKER_SLOT_BITS,
  INDEX_BITS as WORKER_INDEX_BITS,
} from '../../src/sort-worker.js';
import { Sorter, SyncSorter } from '../../src/sorter.js';
import { SLOT_BITS, INDEX_BITS, MAX_GROUP, kwayMerge, unpack } from '../../src/merge.js';
import { rng } from './helpers.mjs';

function randomPositions(count, seed = 1, span = 1) {
  const r = rng(seed);
  const p = new Float32Array(3 * count);
  for (let k = 0; k < p.length; k++) p[k] = (r() - 0.5) * span;
  return p;
}
const depthOf = (p, k, f, e, o = [0, 0, 0]) =>
  (p[3 * k] + o[0] - e[0]) * f[0] + (p[3 * k + 1] + o[1] - e[1]) * f[1] + (p[3 * k + 2] + o[2] - e[2]) * f[2];

function range(p, start, count, f, e) {
  let min = Infinity, max = -Infinity;
  for (let k = start; k < start + count; k++) {
    const d = depthOf(p, k, f, e);
    min = Math.min(min, d); max = Math.max(max, d);
  }
  return { min, max, bucket: (max - min) / 65535 };
}

// What the 16-bit counting sort must produce: bucket descending, index ascending.
function reference(p, start, count, f, e) {
  const { min, max } = range(p, start, count, f, e);
  const scale = max > min ? 65535 / (max - min) : 0;
  const idx = Array.from({ length: count }, (_, k) => start + k);
  const q = (k) => Math.min(65535, Math.floor((depthOf(p, k, f, e) - min) * scale));
  return idx.sort((a, b) => q(b) - q(a) || a - b);
}

const F = [0.3, 0.8, -0.52];
const FN = (() => { const l = Math.hypot(...F); return F.map((v) => v / l); })();
const EYE = [0.2, -3, 1.5];

test('slot and index bits agree between the worker and merge.js', () => {
  assert.equal(WORKER_SLOT_BITS, SLOT_BITS);
  assert.equal(WORKER_INDEX_BITS, INDEX_BITS);
  assert.equal(1 << SLOT_BITS, MAX_GROUP);
});

test('depthSort: far → near, absolute indices, exactly the 16-bit bucket order (both paths)', () => {
  const p = randomPositions(9000, 3);
  for (const [start, count] of [[100, 1500], [1000, 8000], [0, 1], [5, 0]]) {
    const out = depthSort(p, start, count, FN, EYE);
    assert.equal(out.length, count);
    assert.deepEqual([...out], reference(p, start, count, FN, EYE), `start ${start} count ${count}`);
    const { bucket } = range(p, start, count, FN, EYE);
    for (let r = 1; r < count; r++) {
      assert.ok(depthOf(p, out[r - 1], FN, EYE) >= depthOf(p, out[r], FN, EYE) - bucket * 1.0001);
    }
  }
});

test('depthSort agrees with an exact float sort within one bucket, and reuses `out`', () => {
  const p = randomPositions(50000, 7, 20);
  const exact = Array.from({ length: 50000 }, (_, k) => k)
    .sort((a, b) => depthOf(p, b, FN, EYE) - depthOf(p, a, FN, EYE));
  const buf = new Uint32Array(60000);
  const out = depthSort(p, 0, 50000, FN, EYE, buf);
  assert.equal(out.buffer, buf.buffer);
  const { bucket } = range(p, 0, 50000, FN, EYE);
  let worst = 0;
  for (let r = 0; r < 50000; r++) {
    worst = Math.max(worst, Math.abs(depthOf(p, out[r], FN, EYE) - depthOf(p, exact[r], FN, EYE)));
  }
  assert.ok(worst <= bucket * 1.0001, `worst ${worst} vs bucket ${bucket}`);
});

test('depthSort is stable by index within a bucket (a plane facing the camera)', () => {
  const p = randomPositions(3000, 5);
  for (let k = 0; k < 3000; k++) p[3 * k + 1] = 2;  // all at y = 2, looking along +y
  const out = depthSort(p, 0, 3000, [0, 1, 0], [0, 0, 0]);
  assert.deepEqual([...out], Array.from({ length: 3000 }, (_, k) => k));
});

// Two cells side by side across the view: the same depths, interleaved.
function twoCells(seed = 11) {
  const p = randomPositions(6000, seed);
  const entries = [
    { start: 0, count: 3000, offset: [-0.5, 0, 0] },
    { start: 3000, count: 3000, offset: [0.5, 0, 0] },
  ];
  return { p, entries };
}

test('mergeSort: one far → near stream, cells interleaved, slots right', () => {
  const { p, entries } = twoCells();
  const f = [0, 1, 0], e = [0, -4, 0];
  const s = mergeSort(entries, p, f, e);
  assert.equal(s.length, 6000);
  const depths = [...s].map((v) => {
    const [slot, index] = unpack(v);
    const g = entries[slot];
    assert.ok(index >= g.start && index < g.start + g.count, `slot ${slot} index ${index}`);
    return depthOf(p, index, f, e, g.offset);
  });
  const span = Math.max(...depths) - Math.min(...depths);
  for (let r = 1; r < depths.length; r++) assert.ok(depths[r - 1] >= depths[r] - span / 65535 * 1.0001);
  let alternations = 0;
  for (let r = 1; r < s.length; r++) if ((s[r] >>> INDEX_BITS) !== (s[r - 1] >>> INDEX_BITS)) alternations++;
  assert.ok(alternations > 0.1 * s.length, `${alternations} alternations`);
  assert.equal(new Set(s).size, 6000);
});

test('mergeSort lies within 3 buckets of the exact kwayMerge', () => {
  const { p, entries } = twoCells(13);
  const f = FN, e = EYE;
  const streams = entries.map((g, slot) => {
    const order = Array.from({ length: g.count }, (_, k) => g.start + k)
      .map((k) => [k, depthOf(p, k, f, e, g.offset)])
      .sort((a, b) => b[1] - a[1]);
    return { slot, order: order.map(([k]) => k), depth: order.map(([, d]) => d) };
  });
  const exact = kwayMerge(streams);
  const fast = mergeSort(entries, p, f, e);
  const d = (v) => { const [slot, k] = unpack(v); return depthOf(p, k, f, e, entries[slot].offset); };
  const all = [...exact].map(d);
  const bucket = (Math.max(...all) - Math.min(...all)) / 65535;
  for (let r = 0; r < exact.length; r++) assert.ok(Math.abs(d(exact[r]) - d(fast[r])) <= 3 * bucket);
});

test('mergeSort: an 8-cell group uses slots 0..7, a 9th cell is refused, empty groups are empty', () => {
  const p = randomPositions(800, 17);
  const entries = Array.from({ length: 8 }, (_, k) => ({ start: 100 * k, count: 100, offset: [k, 0, 0] }));
  const s = mergeSort(entries, p, FN, EYE);
  assert.equal(s.length, 800);
  const slots = new Set([...s].map((v) => unpack(v)[0]));
  assert.deepEqual([...slots].sort(), [0, 1, 2, 3, 4, 5, 6, 7]);
  for (const v of s) assert.equal(Math.floor(unpack(v)[1] / 100), unpack(v)[0]);
  assert.throws(() => mergeSort([...entries, entries[0]], p, FN, EYE), /at most 8/);
  assert.equal(mergeSort([], p, FN, EYE).length, 0);
  assert.equal(mergeSort([{ start: 3, count: 0, offset: [0, 0, 0] }], p, FN, EYE).length, 0);
});

test('worker messages: init, sort and merge echo seq; groups come back in order; errors', () => {
  const state = createSortState();
  const p = randomPositions(1000, 19);
  assert.equal(handleSortMessage(state, { type: 'sort', forward: FN, eye: EYE, seq: 1 }).reply.type, 'error');
  const ready = handleSortMessage(state, { type: 'init', positions: p.buffer.slice(0), ranges: [{ start: 0, count: 600 }, { start: 600, count: 400 }], seq: 2 });
  assert.deepEqual(ready.reply, { type: 'ready', count: 1000, ranges: 2, seq: 2 });
  const sorted = handleSortMessage(state, { type: 'sort', forward: FN, eye: EYE, seq: 3 });
  assert.equal(sorted.reply.type, 'sorted');
  assert.equal(sorted.reply.seq, 3);
  assert.deepEqual(sorted.reply.orders.map((o) => o.length), [600, 400]);
  assert.ok(sorted.reply.orders[1].every((k) => k >= 600));   // absolute indices
  assert.equal(sorted.transfer.length, 2);
  const merged = handleSortMessage(state, {
    type: 'merge', forward: FN, eye: EYE, seq: 4,
    groups: [[{ range: 1, offset: [0, 0, 0] }], [], [{ range: 0, offset: [1, 0, 0] }, { range: 1, offset: [0, 0, 0] }]],
  });
  assert.equal(merged.reply.type, 'merged');
  assert.equal(merged.reply.seq, 4);
  assert.deepEqual(merged.reply.streams.map((s) => s.length), [400, 0, 1000]);
  assert.ok(merged.reply.streams[0].every((v) => unpack(v)[0] === 0 && unpack(v)[1] >= 600));
  const bad = handleSortMessage(state, { type: 'init', positions: p, ranges: [{ start: 900, count: 200 }], seq: 5 });
  assert.match(bad.reply.message, /outside/);
  assert.equal(bad.reply.seq, 5);
});

test('SyncSorter: same API, promises of orders and streams', async () => {
  const s = new SyncSorter();
  const p = randomPositions(500, 23);
  await s.init(p, [{ start: 0, count: 200 }, { start: 200, count: 300 }]);
  assert.equal(s.busy, false);
  const { orders, ms } = await s.sort(FN, EYE);
  assert.equal(orders.length, 2);
  assert.deepEqual([...orders[0]], reference(p, 0, 200, FN, EYE));
  assert.ok(ms >= 0);
  const { streams } = await s.merge(FN, EYE, [[{ range: 0, offset: [0, 0, 0] }, { range: 1, offset: [1, 0, 0] }]]);
  assert.equal(streams[0].length, 500);
  await assert.rejects(s.merge(FN, EYE, [[{ range: 9, offset: [0, 0, 0] }]]), /no range 9/);
});

// A stand-in for a module Worker: runs the worker's handler asynchronously.
class FakeWorker {
  constructor() { this.state = createSortState(); this.queue = []; this.terminated = false; }
  postMessage(msg) {
    const copy = structuredClone(msg);
    setTimeout(() => {
      if (this.terminated) return;
      const { reply } = handleSortMessage(this.state, copy);
      this.onmessage({ data: reply });
    }, 1);
  }
  terminate() { this.terminated = true; }
}

test('Sorter: replies matched by seq, superseded results resolve to null, busy, terminate', async () => {
  let made = null;
  const s = new Sorter('unused.js', { createWorker: (url) => { made = url; return new FakeWorker(); } });
  assert.equal(made, 'unused.js');
  const p = randomPositions(300, 29);
  const ready = await s.init(p, [{ start: 0, count: 300 }]);
  assert.equal(ready.count, 300);
  const first = s.sort(FN, EYE);
  const second = s.sort([0, 1, 0], EYE);
  assert.equal(s.busy, true);
  assert.equal(await first, null);
  const r = await second;
  assert.equal(r.seq, 3);
  assert.deepEqual([...r.orders[0]], reference(p, 0, 300, [0, 1, 0], EYE));
  assert.equal(s.busy, false);
  const m = await s.merge(FN, EYE, [[{ range: 0, offset: [0, 0, 0] }], []]);
  assert.deepEqual(m.streams.map((x) => x.length), [300, 0]);
  await assert.rejects(s.merge(FN, EYE, [[{ range: 4, offset: [0, 0, 0] }]]), /no range 4/);
  const pending = s.sort(FN, EYE);
  s.terminate();
  assert.equal(await pending, null);
});

test('600k splats in 150 ranges sort in well under a second', () => {
  const p = randomPositions(600000, 31, 2);
  const t0 = performance.now();
  for (let r = 0; r < 150; r++) depthSort(p, r * 4000, 4000, FN, EYE);
  const ms = performance.now() - t0;
  assert.ok(ms < 1500, `${ms.toFixed(1)} ms`);
});

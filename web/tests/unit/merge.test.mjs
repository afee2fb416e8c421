import test from 'node:test';
import assert from 'node:assert/strict';
import {
  MAX_GROUP, INDEX_BITS, SLOT_BITS, INDEX_MASK, pack, unpack, mergeScore, mergeGroups, kwayMerge,
} from '../../src/merge.js';
import { neighbourPairs } from '../../src/grid.js';
import { topoOrder } from '../../src/order.js';
import { allCells, orbit } from './helpers.mjs';

const flat = (n, tile = 1, angleDeg = 0) => ({ n, tile, angleDeg, heightAt: () => 0 });
const merged = (cells, groups) => cells.length - groups.length;

test('constants: 8 cells a group, 29 index bits', () => {
  assert.equal(MAX_GROUP, 8);
  assert.equal(INDEX_BITS, 29);
  assert.equal(SLOT_BITS, 3);
  assert.equal(INDEX_MASK, 2 ** 29 - 1);
});

test('pack/unpack round trip, unsigned at slot 7', () => {
  for (const [slot, index] of [[0, 0], [1, 7], [3, 123456], [7, 2 ** 29 - 1], [7, 0]]) {
    const v = pack(slot, index);
    assert.ok(v >= 0 && v < 2 ** 32);
    assert.deepEqual(unpack(v), [slot, index]);
  }
  assert.equal(pack(7, 5), 7 * 2 ** 29 + 5);
  const arr = new Uint32Array([pack(7, 9)]);
  assert.deepEqual(unpack(arr[0]), [7, 9]);
});

test('score is the perpendicular distance to the boundary, whatever the range', () => {
  const g = flat(3);
  assert.ok(Math.abs(mergeScore(g, 3, 4, [1, 0, 5]) - 1.5) < 1e-12);
  assert.ok(Math.abs(mergeScore(g, 3, 4, [1, -500, 5]) - 1.5) < 1e-12);
  assert.ok(Math.abs(mergeScore(g, 4, 3, [1, 0, 5]) - 1.5) < 1e-12);
});

test('pairs are counted once: 3×3 → 12 and 9×9 → 144 candidate pairs', () => {
  assert.equal(neighbourPairs(allCells(3), 3).length, 12);
  assert.equal(neighbourPairs(allCells(9), 9).length, 144);
  // an infinite threshold unites every pair it can; 9 cells exceed the cap of 8
  const groups = mergeGroups(allCells(3), null, flat(3), [0.1, 0.2, 1], Infinity);
  assert.equal(groups.length, 2);            // 9 cells cannot fit one group of 8
});

test('3×3 with eye (6, 0, 1.2), threshold 0.75 → three columns of three, 6 pairs merged', () => {
  const g = flat(3);
  const eye = [6, 0, 1.2];
  const { order } = topoOrder(allCells(3), g, eye);
  const groups = mergeGroups(allCells(3), order, g, eye, 0.75);
  assert.equal(groups.length, 3);
  assert.equal(merged(allCells(3), groups), 6);
  const cols = groups.map((grp) => [...grp].sort((a, b) => a - b));
  assert.deepEqual(cols.map((c) => c[0] % 3).sort(), [0, 1, 2]);
  for (const c of cols) assert.deepEqual(c.map((x) => x % 3), [c[0] % 3, c[0] % 3, c[0] % 3]);
  // eye to the east: the west column is farthest and drawn first
  assert.deepEqual(cols[0], [0, 3, 6]);
});

test('threshold 0 merges nothing; the default is half a tile', () => {
  const g = flat(3, 2);
  const groups = mergeGroups(allCells(3), null, g, [0.5, 1, 2], 0);
  assert.equal(groups.length, 9);
  // tile 2, default threshold 1: the eye is 0.9 from the x = −1 column boundary (merged) and
  // 1.1 from x = +1 (not), far from the row boundaries
  const def = mergeGroups(allCells(3), null, g, [-0.1, 50, 3]);
  assert.equal(merged(allCells(3), def), 3);
});

test('gaps: missing cells neither merge nor appear', () => {
  const g = flat(3);
  const cells = [0, 1, 2, 6, 7, 8];               // middle row missing
  const groups = mergeGroups(cells, null, g, [6, 0, 1.2], 5);
  assert.ok(groups.every((grp) => grp.every((c) => cells.includes(c))));
  assert.equal(groups.flat().length, 6);
  assert.ok(groups.every((grp) => grp.every((c) => Math.floor(c / 3) === Math.floor(grp[0] / 3))));
});

test('the cap is respected and the groups partition the cells', () => {
  const g = flat(9);
  const eye = [0.01, -0.02, 3];
  const groups = mergeGroups(allCells(9), null, g, eye, 100);
  assert.ok(groups.every((grp) => grp.length <= MAX_GROUP));
  const flatList = groups.flat();
  assert.equal(flatList.length, 81);
  assert.equal(new Set(flatList).size, 81);
});

test('the cheapest pairs survive the cap', () => {
  // one row of 10 cells, eye at the west end: the 8 westmost merge, then the last two
  const g = { n: 10, tile: 1, angleDeg: 0 };
  const cells = allCells(10).slice(0, 10);
  const groups = mergeGroups(cells, null, g, [-4.6, 4.5, 1], 100);
  const sorted = groups.map((grp) => [...grp].sort((a, b) => a - b));
  assert.deepEqual(sorted, [[0, 1, 2, 3, 4, 5, 6, 7], [8, 9]]);
});

test('groups come in draw order, members in order order', () => {
  const g = flat(3);
  const order = [8, 5, 2, 7, 4, 1, 6, 3, 0];
  const groups = mergeGroups(allCells(3), order, g, [6, 0, 1.2], 0.75);
  assert.deepEqual(groups, [[8, 5, 2], [7, 4, 1], [6, 3, 0]]);
});

test('kwayMerge interleaves two streams by depth', () => {
  const out = kwayMerge([
    { slot: 0, order: [0, 1, 2], depth: [10, 8, 6] },
    { slot: 1, order: [7, 8], depth: [9, 7] },
  ]);
  assert.deepEqual([...out].map(unpack), [[0, 0], [1, 7], [0, 1], [1, 8], [0, 2]]);
});

test('kwayMerge output depth is non-increasing', () => {
  const streams = [0, 1, 2, 3].map((slot) => {
    const depth = Array.from({ length: 50 }, (_, k) => Math.sin(slot * 10 + k) * 5 + 10).sort((a, b) => b - a);
    return { slot, order: depth.map((_, k) => slot * 100 + k), depth };
  });
  const out = kwayMerge(streams);
  const depthOf = (v) => { const [slot, k] = unpack(v); return streams[slot].depth[k - slot * 100]; };
  for (let r = 1; r < out.length; r++) assert.ok(depthOf(out[r - 1]) >= depthOf(out[r]));
  assert.equal(out.length, 200);
});

test('kwayMerge: single and empty streams', () => {
  assert.deepEqual([...kwayMerge([{ slot: 7, order: [4, 5], depth: [2, 1] }])].map(unpack), [[7, 4], [7, 5]]);
  assert.equal(kwayMerge([]).length, 0);
  assert.equal(kwayMerge([{ slot: 0, order: [], depth: [] }]).length, 0);
});

test('orbit views: merged groups never exceed the cap on a rotated grid', () => {
  const g = { n: 8, tile: 1.5, angleDeg: 20, heightAt: (x, y) => 0.3 * Math.sin(x) * Math.cos(y) };
  for (const az of [0, 45, 90, 180]) {
    const { eye } = orbit(az, 20, 9);
    const { order } = topoOrder(allCells(8), g, eye);
    const groups = mergeGroups(allCells(8), order, g, eye);
    assert.ok(groups.every((grp) => grp.length <= 8));
    assert.equal(groups.flat().length, 64);
  }
});

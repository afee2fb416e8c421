import test from 'node:test';
import assert from 'node:assert/strict';
import {
  cellCentre, cellCorners, neighbourPairs, boundary, boundarySign,
} from '../../src/grid.js';
import {
  topoOrder, kahnOrder, projectedKey, cornerKey, violations, constraints,
} from '../../src/order.js';
import { mergeScore, mergeGroups } from '../../src/merge.js';
import { allCells, orbit } from './helpers.mjs';

const flat = (n, tile = 1, angleDeg = 0) => ({ n, tile, angleDeg, heightAt: () => 0 });
const hilly = (n, tile = 1, angleDeg = 0) => ({
  n, tile, angleDeg, heightAt: (x, y) => 0.6 * Math.sin(0.9 * x) * Math.cos(0.7 * y) + 0.2 * x,
});

function neighbourFlips(orderA, orderB, n) {
  const ra = new Map(orderA.map((c, k) => [c, k]));
  const rb = new Map(orderB.map((c, k) => [c, k]));
  let flips = 0;
  for (const [a, b] of neighbourPairs(orderA, n)) {
    if ((ra.get(a) < ra.get(b)) !== (rb.get(a) < rb.get(b))) flips++;
  }
  return flips;
}

test('cellCentre: row 0 is north, i runs east, the angle turns counter-clockwise', () => {
  const g = flat(3, 2);
  assert.deepEqual(cellCentre(g, 0), [-2, 2]);   // north-west
  assert.deepEqual(cellCentre(g, 2), [2, 2]);    // north-east
  assert.deepEqual(cellCentre(g, 6), [-2, -2]);  // south-west
  assert.deepEqual(cellCentre(g, 4), [0, 0]);
  const [x, y] = cellCentre(flat(3, 2, 90), 2);  // north-east turned 90° → north-west
  assert.ok(Math.abs(x + 2) < 1e-12 && Math.abs(y - 2) < 1e-12);
  const corners = cellCorners(g, 4);
  assert.equal(corners.length, 4);
  assert.deepEqual(corners[0], [-1, 1, 0]);
});

test('neighbourPairs: each pair once, 3×3 → 12, 9×9 → 144, gaps make no pairs', () => {
  assert.equal(neighbourPairs(allCells(3), 3).length, 12);
  assert.equal(neighbourPairs(allCells(9), 9).length, 144);
  const seen = new Set(neighbourPairs(allCells(9), 9).map(([a, b]) => `${Math.min(a, b)},${Math.max(a, b)}`));
  assert.equal(seen.size, 144);
  // no wrap-around from the east edge to the next row
  assert.ok(!neighbourPairs(allCells(3), 3).some(([a, b]) => a === 2 && b === 3));
  // the centre of 3×3 missing: 12 − 4 pairs
  assert.equal(neighbourPairs([0, 1, 2, 3, 5, 6, 7, 8], 3).length, 8);
});

test('boundarySign: sides, exact antisymmetry, perpendicular distance', () => {
  const g = flat(3);
  // cells 3 (west) and 4 (centre): boundary plane x = −0.5, normal +x
  assert.ok(boundarySign(g, 3, 4, [5, 0, 1]) > 0);
  assert.ok(boundarySign(g, 3, 4, [-5, 0, 1]) < 0);
  assert.ok(Math.abs(boundarySign(g, 3, 4, [2, 7, 3]) - 2.5) < 1e-12);
  const h = hilly(5, 1.3, 17);
  for (const [a, b] of neighbourPairs(allCells(5), 5)) {
    const eye = [0.7, -4.1, 2.2];
    assert.equal(boundarySign(h, a, b, eye), -boundarySign(h, b, a, eye));
  }
});

test('|boundarySign| equals mergeScore and ignores range', () => {
  const h = hilly(4);
  for (const [a, b] of neighbourPairs(allCells(4), 4)) {
    const eye = [1.1, -3, 2];
    assert.equal(mergeScore(h, a, b, eye), Math.abs(boundarySign(h, a, b, eye)));
  }
  const g = flat(3);
  // eye in the plane of the 3|4 boundary, near and far: both zero
  assert.equal(mergeScore(g, 3, 4, [-0.5, -1, 1]), 0);
  assert.equal(mergeScore(g, 3, 4, [-0.5, -1000, 1]), 0);
});

test('boundary: unit normal from a to b, horizontal on flat ground, tilted by relief', () => {
  const { mid, normal } = boundary(flat(3), 3, 4);
  assert.deepEqual(mid, [-0.5, 0, 0]);
  assert.deepEqual(normal, [1, 0, 0]);
  const slope = { n: 3, tile: 1, angleDeg: 0, heightAt: (x) => 0.5 * x };
  const b = boundary(slope, 3, 4);
  assert.ok(Math.abs(Math.hypot(...b.normal) - 1) < 1e-12);
  assert.ok(b.normal[2] > 0.4, `normal tilts up the slope: ${b.normal}`);
  assert.ok(Math.abs(b.mid[2] - slope.heightAt(-0.5)) < 1e-12);
  // an edge running uphill: the normal stays perpendicular to the lifted edge
  const along = { n: 3, tile: 1, angleDeg: 0, heightAt: (x, y) => 0.5 * y };
  const c = boundary(along, 3, 4);
  assert.ok(Math.abs(c.normal[1] * 1 + c.normal[2] * 0.5) < 1e-12);
});

test('9×9 at az 0: the projected near key collapses to 9 values, at az 23 it has 81', () => {
  const g = flat(9);
  const distinct = (az) => {
    const { eye, forward } = orbit(az, 30, 14);
    return new Set(allCells(9).map((c) => projectedKey(g, c, eye, forward))).size;
  };
  assert.equal(distinct(0), 9);
  assert.equal(distinct(23), 81);
});

test('flat grids: no cycles and no violated constraints at many views', () => {
  for (const angle of [0, 17, 45]) {
    const g = flat(9, 1.5, angle);
    for (const az of [0, 10, 23, 45, 67, 90, 135, 180, 222, 270, 333]) {
      for (const el of [5, 30, 80]) {
        const { eye } = orbit(az, el, 11);
        const r = topoOrder(allCells(9), g, eye);
        assert.equal(r.cycles, 0, `angle ${angle} az ${az} el ${el}`);
        assert.equal(violations(allCells(9), g, eye, r.order), 0);
      }
    }
  }
});

test('each cell appears exactly once, with holes and with relief', () => {
  const cells = allCells(12).filter((c) => (c * 7) % 5 !== 0);
  for (const g of [flat(12), hilly(12, 1, 30)]) {
    const { order } = topoOrder(cells, g, orbit(37, 20, 9).eye);
    assert.equal(order.length, cells.length);
    assert.deepEqual([...order].sort((a, b) => a - b), [...cells].sort((a, b) => a - b));
  }
});

test('zero neighbour flips across ±1.5° of az 0, where the depth-key order flips rows', () => {
  const g = flat(9);
  const left = orbit(-1.5, 25, 12), right = orbit(1.5, 25, 12);
  const topoL = topoOrder(allCells(9), g, left.eye).order;
  const topoR = topoOrder(allCells(9), g, right.eye).order;
  assert.equal(neighbourFlips(topoL, topoR, 9), 0);
  const byKey = ({ eye, forward }) => allCells(9)
    .map((c) => [c, projectedKey(g, c, eye, forward)])
    .sort((p, q) => q[1] - p[1] || Math.abs(q[0] % 9 - 4) - Math.abs(p[0] % 9 - 4))
    .map(([c]) => c);
  const keyFlips = neighbourFlips(byKey(left), byKey(right), 9);
  assert.ok(keyFlips > 0, `depth-key order should flip, got ${keyFlips}`);
});

test('epsilon moves pairs into weak: eye on y = 0.5 leaves 3 pairs unconstrained', () => {
  const g = flat(3);
  const eye = [0.2, 0.5, 2];
  const r = topoOrder(allCells(3), g, eye);
  assert.equal(r.weak.length, 3);
  for (const [a, b] of r.weak) assert.equal(b - a, 3);  // the row 0 | row 1 boundary
  assert.equal(r.constrained, 9);
  const near = [0.2, 0.51, 2];
  assert.equal(topoOrder(allCells(3), g, near, { epsilon: 0 }).weak.length, 0);
  assert.equal(topoOrder(allCells(3), g, near, { epsilon: 0.05 }).weak.length, 3);
  assert.equal(constraints(allCells(3), g, near, 0.05).edges.length, 9);
});

test('weak pairs are merged', () => {
  const g = flat(3);
  const eye = [0.2, 0.5, 2];
  const r = topoOrder(allCells(3), g, eye);
  const groups = mergeGroups(allCells(3), r.order, g, eye, 0.3);
  const groupOf = new Map();
  groups.forEach((grp, k) => grp.forEach((c) => groupOf.set(c, k)));
  for (const [a, b] of r.weak) assert.equal(groupOf.get(a), groupOf.get(b));
});

test('cycles are survived: released farthest first and counted', () => {
  // 0 → 1 → 2 → 0 plus 3 free; keys: 2 is farthest of the cycle
  const { order, cycles } = kahnOrder(4, [[0, 1], [1, 2], [2, 0]], [5, 4, 9, 1]);
  assert.equal(cycles, 1);
  assert.deepEqual(order, [3, 2, 0, 1]);
  // rough relief on a rotated grid: whatever cycles appear, every cell once
  const rough = { n: 10, tile: 1, angleDeg: 33, heightAt: (x, y) => 3 * Math.sin(2.1 * x + 1.3 * y) * Math.cos(1.7 * y) };
  let total = 0;
  for (const az of [0, 60, 120, 200, 300]) {
    const r = topoOrder(allCells(10), rough, orbit(az, 8, 7, [0, 0, 1]).eye);
    assert.equal(r.order.length, 100);
    assert.equal(new Set(r.order).size, 100);
    total += r.cycles;
  }
  assert.ok(total > 0, 'this relief does produce cycles');
});

test('the depth key decides among unconstrained cells (function or array)', () => {
  // a checkerboard has no neighbour pairs at all
  const cells = allCells(4).filter((c) => ((c % 4) + Math.floor(c / 4)) % 2 === 0);
  const g = flat(4);
  const eye = [0, -9, 3];
  const byFn = topoOrder(cells, g, eye, { depthKey: (c) => c }).order;
  assert.deepEqual(byFn, [...cells].sort((a, b) => b - a));
  const arr = allCells(4).map((c) => -c);
  assert.deepEqual(topoOrder(cells, g, eye, { depthKey: arr }).order, cells);
  // default key: farthest corner distance, so the north row (far from a southern eye) first
  const def = topoOrder(allCells(4), g, eye).order;
  assert.ok(def.indexOf(0) < def.indexOf(12));
  assert.ok(cornerKey(g, 0, eye) > cornerKey(g, 12, eye));
});

test('empty and single', () => {
  assert.deepEqual(topoOrder([], flat(3), [0, 0, 1]), { order: [], cycles: 0, weak: [], constrained: 0 });
  const one = topoOrder([4], flat(3), [0, 0, 1]);
  assert.deepEqual(one.order, [4]);
  assert.equal(one.cycles, 0);
});

test('a 128 × 128 grid orders quickly', () => {
  const g = hilly(128, 1, 10);
  const t0 = performance.now();
  const r = topoOrder(allCells(128), g, orbit(30, 20, 40).eye);
  const ms = performance.now() - t0;
  assert.equal(r.order.length, 128 * 128);
  assert.ok(ms < 3000, `${ms} ms`);
});

// node --test web/tests/unit/store-lod.test.mjs — the tiled world's quadtree selection.
import test from 'node:test';
import assert from 'node:assert/strict';
import { nodeBounds, nodeDistance, selectNodes } from '../../src/store-lod.js';

const meta = { size: 16385, cell_m: 2, levels: 8, low_m: 0, high_m: 1000 };

test('node bounds tile the world, north-west first', () => {
  const half = 16384;
  assert.deepEqual(nodeBounds(meta, 0, 0, 0), { x0: -half, x1: half, y0: half, y1: -half, span: 2 * half });
  const b = nodeBounds(meta, 2, 1, 3);
  assert.equal(b.span, 8192);
  assert.deepEqual([b.x0, b.x1, b.y0, b.y1], [-half + 8192, 0, half - 3 * 8192, -half]);
  // Inside the box: distance 0; above it: the height difference.
  assert.equal(nodeDistance(meta, b, [-1000, -10000, 500]), 0);
  assert.equal(nodeDistance(meta, b, [-1000, -10000, 1500]), 500);
  assert.equal(nodeDistance(meta, b, [1000, -10000, 500]), 1000);
});

test('nothing loaded: only the root is wanted', () => {
  const s = selectNodes(meta, [0, 0, 2000]);
  assert.deepEqual(s.draw, []);
  assert.deepEqual(s.want.map((w) => w.key), ['0/0/0']);
});

test('a split node draws itself until its four children are loaded, then them', () => {
  const loaded = new Set(['0/0/0']);
  let s = selectNodes(meta, [0, 0, 2000], { loaded: (k) => loaded.has(k) });
  assert.deepEqual(s.draw.map((d) => d.key), ['0/0/0']);
  assert.deepEqual(s.want.map((w) => w.key).sort(), ['1/0/0', '1/0/1', '1/1/0', '1/1/1']);
  for (const k of ['1/0/0', '1/1/0', '1/0/1']) loaded.add(k);
  s = selectNodes(meta, [0, 0, 2000], { loaded: (k) => loaded.has(k) });
  assert.deepEqual(s.draw.map((d) => d.key), ['0/0/0'], 'three of four children are not enough');
  loaded.add('1/1/1');
  s = selectNodes(meta, [0, 0, 2000], { loaded: (k) => loaded.has(k) });
  assert.deepEqual(s.draw.map((d) => d.key).sort(), ['1/0/0', '1/0/1', '1/1/0', '1/1/1']);
});

test('with everything loaded, the drawn nodes cover the world once and are finer near the eye', () => {
  const eye = [-16000, 16000, 1100]; // 100 m over the north-west corner
  const s = selectNodes(meta, eye, { loaded: () => true });
  let area = 0;
  for (const d of s.draw) area += nodeBounds(meta, d.level, d.x, d.y).span ** 2;
  assert.equal(area, (16384 * 2) ** 2, 'the nodes cover the world exactly');
  const near = s.draw.find((d) => d.x === 0 && d.y === 0);
  const far = s.draw.find((d) => nodeBounds(meta, d.level, d.x, d.y).x1 === 16384 && nodeBounds(meta, d.level, d.x, d.y).y1 === -16384);
  assert.equal(near.level, meta.levels - 1, 'the deepest level under the eye');
  assert.ok(far.level <= 2, `far corner at level ${far.level}`);
  assert.deepEqual(s.want, []);
  // Neighbouring drawn nodes differ by at most a few levels; a higher lod draws more nodes.
  assert.ok(selectNodes(meta, eye, { loaded: () => true, lod: 3 }).draw.length > s.draw.length);
});

test('culled nodes are neither drawn nor wanted, coarse and near first', () => {
  const loaded = new Set(['0/0/0']);
  const east = (b) => b.x1 > 0; // only the eastern half is visible
  const s = selectNodes(meta, [0, 0, 100], { loaded: (k) => loaded.has(k), visible: east });
  assert.deepEqual(s.want.map((w) => w.key).sort(), ['1/1/0', '1/1/1']);
  const t = selectNodes(meta, [8000, 8000, 100], { loaded: (k) => k.startsWith('0/') || k.startsWith('1/') });
  assert.ok(t.want.every((w, i) => i === 0 || t.want[i - 1].level < w.level || t.want[i - 1].dist <= w.dist));
});

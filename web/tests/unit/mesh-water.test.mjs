// The mesh look's water levels (mesh.js waterLevels): the shoreline crosses each wet–dry edge
// half-way, so the water covers the wet cells' area with straight cuts, not staircases.
import test from 'node:test';
import assert from 'node:assert/strict';
import { waterLevels, NO_LEVEL } from '../../src/mesh.js';

test('wet cells hold their surface, dry neighbours their ground minus the water beside them, others nothing', () => {
  // 5 × 3: a lake in the middle column of a valley (ground 10, 4, 2, 4, 10 across), 3 m deep.
  const ground = Float32Array.from([10, 4, 2, 4, 10, 10, 4, 2, 4, 10, 10, 4, 2, 4, 10]);
  const depth = new Float32Array(15);
  for (const k of [2, 7, 12]) depth[k] = 3;
  const lv = waterLevels(5, 3, ground, depth);
  for (const k of [2, 7, 12]) assert.equal(lv[k], 5);
  for (const k of [1, 3, 6, 8, 11, 13]) assert.equal(lv[k], 1);
  for (const k of [0, 4, 5, 9, 10, 14]) assert.equal(lv[k], NO_LEVEL);
  assert.equal(waterLevels(5, 3, ground, new Float32Array(15)), null);
  assert.equal(waterLevels(5, 3, ground, null), null);
});

test('the shoreline crosses the wet–dry edges half-way, whatever the bank\'s slope', () => {
  for (const bank of [0.5, 3, 40]) {
    const ground = Float32Array.from([0, 0, bank, 2 * bank]);
    const depth = Float32Array.from([1.5, 0.7, 0, 0]);
    const lv = waterLevels(4, 1, ground, depth);
    // level − ground, interpolated along the row as the shader does between vertices.
    const d = Array.from(lv, (v, k) => v - ground[k]);
    assert.ok(Math.abs(d[1] - 0.7) < 1e-6 && Math.abs(d[2] + 0.7) < 1e-6, `${d}`);
    // Between cells 1 and 2 the crossing is half-way; cell 3 has no wet neighbour.
    assert.ok(Math.abs(d[1] / (d[1] - d[2]) - 0.5) < 1e-5, `${d}`);
    assert.equal(lv[3], NO_LEVEL);
  }
  // Two wet neighbours: the deeper one sets the dry side, so the shallower edge's crossing falls
  // on its wet cell's side of half-way (0.5 / (0.5 + 2) of the way).
  const lv = waterLevels(3, 1, Float32Array.from([5, 9, 5]), Float32Array.from([2, 0, 0.5]));
  assert.equal(lv[1] - 9, -2);
});

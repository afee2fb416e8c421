// The 3-D world view's pure parts (web/src/voxels.js) and world links to 3-D worlds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitUpdate, walkIntent, chunkKey, VOXEL_GENERATORS } from '../../src/voxels.js';
import { parseWorldParams, worldQuery } from '../../src/world.js';

test('an update splits into loaded and unloaded chunks, and a malformed one is refused', () => {
  const u = splitUpdate(Int32Array.from([2, 1, 0, 0, 0, 1, 0, -1, -5, 2, 3]));
  assert.deepEqual(u, { loaded: [[0, 0, 0], [1, 0, -1]], unloaded: [[-5, 2, 3]] });
  assert.deepEqual(splitUpdate([0, 0]), { loaded: [], unloaded: [] });
  assert.throws(() => splitUpdate([1, 0, 1, 2]), /4 values for 1 loaded/);
  assert.throws(() => splitUpdate([-1, 0]), /loaded/);
  assert.equal(chunkKey(1, -2, 3), '1,-2,3');
});

test('walking: w goes where the view looks, a and d sideways, diagonals no faster, q/e turn', () => {
  const near = (a, b) => assert.ok(Math.abs(a - b) < 1e-9, `${a} vs ${b}`);
  const north = walkIntent(new Set(['w']), 0, 0, 0.1);
  near(north.vx, 0);
  near(north.vy, 4.3);
  const east = walkIntent(new Set(['w']), 90, 0, 0.1);
  near(east.vx, 4.3);
  near(east.vy, 0);
  const right = walkIntent(new Set(['d']), 0, 0, 0.1);
  near(right.vx, 4.3);
  const diag = walkIntent(new Set(['w', 'd']), 0, 0, 0.1);
  near(Math.hypot(diag.vx, diag.vy), 4.3);
  near(Math.hypot(...Object.values(walkIntent(new Set(['w', 'shift']), 30, 0, 0.1)).slice(0, 2)), 4.3 * 2.5);
  near(walkIntent(new Set(['e']), 350, 0, 0.5).az, 35);
  near(walkIntent(new Set(['q']), 10, 0, 0.5).az, 325);
  near(walkIntent(new Set(['z']), 0, 80, 1).el, 85);
  assert.equal(walkIntent(new Set([' ']), 0, 0, 0.1).jump, true);
  assert.equal(walkIntent(new Set(), 0, 0, 0.1).vx, 0);
});

test('world links open 3-D worlds, refuse a size for them, and round-trip', () => {
  assert.deepEqual(VOXEL_GENERATORS, ['implicit_cave', 'voxels']);
  for (const g of VOXEL_GENERATORS) {
    const r = parseWorldParams(`?world=${g}&seed=cave`);
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.world, { generator: g, seed: 'cave', size: null, compat: 'pyworldgen', solid: true });
    assert.equal(worldQuery(r.world), `world=${g}&seed=cave`);
  }
  const bad = parseWorldParams('?world=voxels&size=64');
  assert.equal(bad.world, null);
  assert.match(bad.errors[0], /3-D world \(voxels\) streams around the camera/);
  assert.match(parseWorldParams('?world=atlantis').errors[0], /worlds: composite, flat, forest, implicit_cave, landscape, roads, voxels/);
  assert.equal(parseWorldParams('?world=flat').world.solid, false);
  const r3 = parseWorldParams('?world=voxels&seed=1&radius=3');
  assert.equal(r3.world.radius, 3);
  assert.equal(worldQuery(r3.world), 'world=voxels&seed=1&radius=3');
  assert.match(parseWorldParams('?world=voxels&radius=40').errors[0], /radius "40" must be a whole number of chunks 1\.\.12/);
  assert.match(parseWorldParams('?world=flat&radius=2').errors[0], /only a 3-D world streams chunks/);
});

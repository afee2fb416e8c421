// The world view's geometry builders and URL parsing (web/src/world.js), without GL: the water
// only where there is water, road ribbons (bridges lifted, tunnel interiors left out, portals at
// the tunnel mouths), the tree instance buffer, the bounds and the north-up ground.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseWorldParams, worldQuery, checkWorld, worldBounds, worldOffset, northUpHeights, groundAlbedo, waterGeometry,
  waterColour, roadGeometry, tunnelPortals, portalGeometry, treeInstances, treeMesh, TREE_STRIDE, WORLD_COLOURS,
} from '../../src/world.js';

/** A world of nx × ny cells with heights h(i, j) and depths d(i, j) (row 0 south). */
function world(nx, ny, h = () => 0, d = () => 0, extra = {}) {
  const height = new Float32Array(nx * ny), water = new Float32Array(nx * ny), color = new Uint8Array(3 * nx * ny);
  for (let j = 0; j < ny; j++) {
    for (let i = 0; i < nx; i++) {
      height[j * nx + i] = h(i, j);
      water[j * nx + i] = d(i, j);
      color.set([i, j, 7], 3 * (j * nx + i));
    }
  }
  return { generator: 'test', seed: 's', nx, ny, dx: 2, dy: 3, height, water, color, roads: null, trees: new Float32Array(0), ...extra };
}

/**
 * A straight ribbon along x at y = 6 in the world frame: cross-sections at x = 2, 4, .., 2·n,
 * vertices 2k (south edge, y = 5) and 2k+1 (north edge, y = 7), two triangles per segment.
 */
function ribbon(n, { z = () => 1, bridge = () => 0, tunnel = () => 0 } = {}) {
  const positions = new Float32Array(6 * n), colors = new Uint8Array(6 * n).fill(0);
  const b = new Uint8Array(2 * n), t = new Uint8Array(2 * n), idx = [];
  for (let k = 0; k < n; k++) {
    positions.set([2 * (k + 1), 5, z(k), 2 * (k + 1), 7, z(k)], 6 * k);
    b[2 * k] = b[2 * k + 1] = bridge(k);
    t[2 * k] = t[2 * k + 1] = tunnel(k);
    if (k < n - 1) idx.push(2 * k, 2 * k + 2, 2 * k + 1, 2 * k + 1, 2 * k + 2, 2 * k + 3);
  }
  return { positions, colors, indices: Uint32Array.from(idx), bridge: b, tunnel: t };
}

test('a world link is split off the query; its seed and size leave the rest', () => {
  const r = parseWorldParams('?world=composite&seed=atlas&size=128&look=mesh&compat=canonical');
  assert.deepEqual(r.world, { generator: 'composite', seed: 'atlas', size: 128, compat: 'canonical', solid: false });
  assert.deepEqual(r.errors, []);
  assert.equal(r.rest, 'look=mesh');
  const d = parseWorldParams('?world=flat');
  assert.deepEqual(d.world, { generator: 'flat', seed: '0', size: null, compat: 'pyworldgen', solid: false });
  // Without a world, the query is the splat terrain's, seed included.
  assert.deepEqual(parseWorldParams('?gen=canyon&seed=3'), { world: null, errors: [], rest: 'gen=canyon&seed=3' });
  assert.equal(worldQuery(r.world), 'world=composite&seed=atlas&size=128&compat=canonical');
  assert.deepEqual(parseWorldParams(`?${worldQuery(r.world)}`).world, r.world);
});

test('unknown world names and bad sizes are messages, not a world', () => {
  const u = parseWorldParams('?world=atlantis&seed=1');
  assert.equal(u.world, null);
  assert.match(u.errors[0], /unknown world "atlantis".*composite, flat, forest, implicit_cave, landscape, roads, voxels/);
  assert.deepEqual(parseWorldParams('?world=forest').errors, []);
  assert.match(parseWorldParams('?world=flat&size=0').errors[0], /size "0" must be a whole number of cells 2\.\.1024/);
  assert.match(parseWorldParams('?world=flat&size=12.5').errors[0], /size "12.5"/);
  assert.match(parseWorldParams('?world=flat&compat=numpy').errors[0], /compat "numpy" must be pyworldgen or canonical/);
});

test('a world off the contract is refused with its numbers', () => {
  assert.doesNotThrow(() => checkWorld(world(3, 2)));
  assert.throws(() => checkWorld({ ...world(3, 2), height: new Float32Array(5) }), /height must be a Float32Array of 6 values \(3 × 2\), has 5/);
  assert.throws(() => checkWorld({ ...world(3, 2), color: new Uint8Array(6) }), /color .* 18 values/);
  assert.throws(() => checkWorld({ ...world(3, 2), trees: new Float32Array(7) }), /5 values per tree, has 7/);
  assert.throws(() => checkWorld(world(3, 2, () => NaN)), /height NaN/);
  const r = ribbon(3);
  r.indices[4] = 99;
  assert.throws(() => checkWorld({ ...world(8, 4), roads: r }), /index 99 ≥ 6 vertices/);
  assert.throws(() => checkWorld({ ...world(8, 4), roads: { ...ribbon(3), tunnel: new Uint8Array(2) } }), /tunnel .* 6 values \(6 vertices\), has 2/);
});

test('ground heights and colours are handed to the mesh look north-up', () => {
  const w = world(3, 2, (i, j) => 10 * j + i);
  assert.deepEqual([...northUpHeights(w)], [10, 11, 12, 0, 1, 2]);
  const a = groundAlbedo(w);
  assert.equal(a.width, 3);
  assert.equal(a.height, 2);
  assert.deepEqual([...a.data.subarray(0, 3)], [0, 1, 7]); // top-left texel = north-west cell (0, 1)
  assert.deepEqual([...a.data.subarray(9, 12)], [0, 0, 7]);
  const plain = groundAlbedo({ ...w, color: null });
  assert.equal(plain.data.length, 18);
  assert.ok(plain.data.some((c) => c > 0));
});

test('water only over cells deeper than zero, at the surface, corners shared', () => {
  // 5 × 4 cells; a pond of 3 cells in a row at j = 1 (i = 1..3) and one lone cell at (0, 3).
  const wet = (i, j) => (j === 1 && i >= 1 && i <= 3 ? 2 : i === 0 && j === 3 ? 0.5 : 0);
  const w = world(5, 4, (i) => i, wet);
  const g = waterGeometry(w);
  assert.equal(g.cells, 4);
  assert.equal(g.vertices, 8 + 4); // a 3-cell strip has 2·4 corners; the lone cell 4
  assert.equal(g.indices.length, 6 * 4);
  assert.ok(g.indices.every((i) => i < g.vertices));
  assert.equal(g.positions.length, 3 * g.vertices);
  assert.equal(g.colors.length, 4 * g.vertices);
  const [ox, oy] = worldOffset(w);
  for (let t = 0; t < g.indices.length; t += 3) {
    // each triangle's centroid lies in a wet cell
    const c = [0, 1].map((q) => [0, 1, 2].reduce((s, k) => s + g.positions[3 * g.indices[t + k] + q], 0) / 3);
    const i = Math.floor((c[0] + ox) / w.dx), j = Math.floor((c[1] + oy) / w.dy);
    assert.ok(wet(i, j) > 0, `triangle ${t / 3} over dry cell (${i}, ${j})`);
    // counter-clockwise seen from above
    const p = (k, q) => g.positions[3 * g.indices[t + k] + q];
    const cross = (p(1, 0) - p(0, 0)) * (p(2, 1) - p(0, 1)) - (p(1, 1) - p(0, 1)) * (p(2, 0) - p(0, 0));
    assert.ok(cross > 0);
  }
  // The corner shared by pond cells i = 1 and 2 (x = 2 dx) sits at their mean surface (1+2, 2+2) / 2.
  const zs = [];
  for (let v = 0; v < g.vertices; v++) if (Math.abs(g.positions[3 * v] + ox - 2 * w.dx) < 1e-6) zs.push(g.positions[3 * v + 2]);
  assert.deepEqual(zs, [3.5, 3.5]);
  // The lone cell stands alone at 0 + 0.5.
  assert.equal(g.positions[3 * (g.vertices - 1) + 2], 0.5);
  assert.equal(waterGeometry(world(4, 4)).indices.length, 0);
  const [sh, dp] = [waterColour(0.1), waterColour(20)];
  assert.ok(dp[3] > sh[3] && dp[2] < sh[2], 'deeper water is darker and more opaque');
});

test('road ribbons: tunnel interiors hidden, bridges lifted over the water, asphalt by default', () => {
  // 8 cross-sections; 2..4 in a tunnel; 6 on a bridge over 3 m of water at z = 0.
  const r = ribbon(8, { z: (k) => (k === 6 ? 0.1 : 1), tunnel: (k) => +(k >= 2 && k <= 4), bridge: (k) => +(k === 6) });
  const w = world(20, 6, () => 0, (i, j) => (i >= 6 ? 3 : 0), { roads: r });
  const g = roadGeometry(w, { lift: 0.1, clearance: 0.5 });
  assert.equal(g.vertices, 16);
  // 7 segments, 14 triangles; segments 2-3 and 3-4 wholly in the tunnel: 4 hidden.
  assert.equal(g.hidden, 4);
  assert.equal(g.triangles, 10);
  assert.ok(g.indices.every((i) => i < 16));
  for (let t = 0; t < g.indices.length; t += 3) {
    assert.ok(![0, 1, 2].every((k) => r.tunnel[g.indices[t + k]]), 'a tunnel-interior triangle is drawn');
  }
  const [ox, oy] = worldOffset(w);
  assert.equal(g.positions[0], 2 - ox);
  assert.equal(g.positions[1], 5 - oy);
  assert.ok(Math.abs(g.positions[2] - 1.1) < 1e-6, 'lifted by 0.1');
  assert.equal(g.bridgeVertices, 2);
  assert.ok(Math.abs(g.positions[3 * 12 + 2] - 3.5) < 1e-6, 'bridge deck at the water surface + clearance');
  assert.deepEqual([...g.colors.subarray(0, 4)], [...WORLD_COLOURS.asphalt, 255]);
  assert.deepEqual([...g.colors.subarray(48, 52)], [...WORLD_COLOURS.bridge, 255]);
  assert.ok(Math.abs(g.normals[2] - 1) < 1e-6, 'a level ribbon faces up');
  assert.equal(roadGeometry(world(3, 3)), null);
});

test('a tunnel has a portal at each mouth, facing out along the road', () => {
  const r = ribbon(8, { tunnel: (k) => +(k >= 2 && k <= 4) });
  const p = tunnelPortals(r, { minHalfWidth: 0.5 });
  assert.equal(p.length, 2);
  const [west, east] = p[0].centre[0] < p[1].centre[0] ? p : [p[1], p[0]];
  assert.deepEqual(west.centre, [6, 6, 1]); // cross-section k = 2 at x = 6
  assert.deepEqual(east.centre, [10, 6, 1]);
  assert.deepEqual(west.dir, [-1, 0]);
  assert.deepEqual(east.dir, [1, 0]);
  assert.equal(west.halfWidth, 1);
  assert.equal(tunnelPortals(ribbon(4)).length, 0);
  assert.equal(tunnelPortals(null).length, 0);
  const g = portalGeometry(p, [1, 2], 10);
  // per portal: headwall centre + 5 outline, arch centre + 1 + 11 + 2 outline
  assert.equal(g.positions.length / 3, 2 * (6 + 15));
  assert.equal(g.indices.length / 3, 2 * (4 + 13));
  assert.ok(g.indices.every((i) => i < g.positions.length / 3));
  // Both are vertical planes across the road (x constant per portal), facing along ±x.
  for (let v = 0; v < g.positions.length / 3; v++) assert.equal(Math.abs(g.normals[3 * v]), 1);
});

test('tree instances: 5 floats each, moved into the view frame, bad ones dropped', () => {
  const trees = Float32Array.from([10, 20, 3, 2, 9, 1, 1, 0, 0, 5, 4, 4, NaN, 1, 1, 30, 6, 2, 1.5, 6]);
  const w = world(20, 10, () => 0, () => 0, { trees });
  const inst = treeInstances(w);
  assert.equal(TREE_STRIDE, 5);
  assert.equal(inst.count, 2);
  assert.equal(inst.data.length, 10);
  const [ox, oy] = worldOffset(w);
  assert.deepEqual([...inst.data.subarray(0, 5)], [10 - ox, 20 - oy, 3, 2, 9]);
  assert.deepEqual([...inst.data.subarray(5, 10)], [30 - ox, 6 - oy, 2, 1.5, 6]);
  const m = treeMesh(7, 4);
  const nv = m.positions.length / 3;
  assert.equal(m.part.length, nv);
  assert.equal(m.part.filter((x) => x === 0).length, 2 * 8); // trunk: 8 columns of 2
  assert.equal(nv - 16, 5 * 8); // crown: 5 parallels of 8
  assert.equal(m.indices.length, 3 * (2 * 7 + 2 * 7 * 4));
  assert.ok(m.indices.every((i) => i < nv));
  for (let v = 16; v < nv; v++) assert.ok(Math.abs(Math.hypot(...m.positions.subarray(3 * v, 3 * v + 3)) - 1) < 1e-6);
});

test('bounds reach the lowest ground and the highest water, road or tree top', () => {
  const w = world(4, 4, (i, j) => i + j, (i) => (i === 0 ? 5 : 0), { trees: Float32Array.from([1, 1, 2, 1, 10]) });
  assert.deepEqual(worldBounds(w), { halfX: 4, halfY: 6, lo: 0, hi: 12 });
  const r = ribbon(2, { z: () => 40 });
  assert.equal(worldBounds({ ...w, roads: r }).hi, 40);
});

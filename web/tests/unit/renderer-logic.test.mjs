// node --test web/tests/unit/renderer-logic.test.mjs
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  hashU32, valueNoise, heightAt, mirror, tileCentre, lodFor, farStart, visibleCells, toTileFrame, colourGain,
  bakeAtlas, gradStep, latticeHeight, gridGeometry, tileOrder, drawGroups, planFrame, lodDoors, cellDraws,
  cellSlots, groupSlots, spreadHashes, subTileEdges, edgeField, tileLevels, farMesh, HORIZON_RINGS, HORIZON_SCALE, NONE,
} from '../../src/render-logic.js';
import { cameraBasis, frustumPlanes, frustumDistance } from '../../src/camera.js';
import { topoOrder } from '../../src/order.js';
import { MAX_GROUP } from '../../src/merge.js';

const close = (a, b, eps = 1e-9) => assert.ok(Math.abs(a - b) < eps, `${a} vs ${b}`);

test('hash_u32 pinned vectors (bozkir_core::hash)', () => {
  assert.equal(hashU32(0, 0, 0), 0);
  assert.equal(hashU32(1, 0, 0), 0x80f575f2);
  assert.equal(hashU32(0, 1, 0), 0x0c5c9f25);
  assert.equal(hashU32(0, 0, 1), 0x8acb841f);
  assert.equal(hashU32(12345, 67890, 42), 0xe2597a2c);
  assert.equal(hashU32(0xffffffff, 0xffffffff, 0xffffffff), 0x016bf667);
  assert.equal(hashU32(-1, -1, -1), 0x016bf667);
});

test('value noise: lattice values at integers (both grain hashes), in 0..1, continuous', () => {
  close(valueNoise(0, 0), 0); // dHash(0, 0) = 0
  close(valueNoise(1, 0), 14462411 / 16777215); // the original viewer's dHash(1, 0)
  close(valueNoise(0, 0, 'canonical'), 0); // hash(0,0,0) = 0
  close(valueNoise(1, 0, 'canonical'), (0x80f575f2 >>> 8) / 16777216);
  for (const compat of ['original', 'canonical']) {
    close(valueNoise(-3.5, 2.25, compat), valueNoise(-3.5 + 1e-9, 2.25, compat), 1e-6);
    for (let k = 0; k < 100; k++) {
      const v = valueNoise(k * 0.37 - 20, k * 0.91 - 7, compat);
      assert.ok(v >= 0 && v <= 1);
    }
  }
});

// tilegrid.rs test field_spans_the_relief_scale_and_mirrors_beyond
test('height: ramp field spans the relief scale and mirrors beyond (tilegrid.rs vectors)', () => {
  const w = 33, h = 17;
  const z = new Float32Array(w * h).map((_, i) => (i % w) / (w - 1));
  const scene = { n: 8, tile: 1, amplitude: 1, reliefScale: 8, angleDeg: 0, detail: 0, field: { width: w, height: h, z, mask: new Float32Array(w * h), open: null } };
  close(heightAt(scene, 0, 0), 0, 1e-7);
  close(heightAt(scene, 4, 0), 1, 1e-7);
  close(heightAt(scene, -4, 0), -1, 1e-7);
  close(heightAt(scene, 12, 0), -1, 1e-6);
  close(heightAt(scene, 8, 0), 0, 1e-6);
  close(heightAt(scene, 4 - 1e-6, 0), heightAt(scene, 4 + 1e-6, 0), 1e-5);
  close(mirror(-1, 5), 1); close(mirror(9, 5), 1); close(mirror(4, 5), 4);
});

test('height: north row first; detail only where the mask allows, bounded', () => {
  const w = 21;
  const z = new Float32Array(w * w).map((_, i) => 1 - Math.floor(i / w) / (w - 1)); // row 0 north, highest
  const mask = new Float32Array(w * w).fill(1);
  const scene = { n: 5, tile: 1, amplitude: 1.2, reliefScale: 5, angleDeg: 0, detail: 0, field: { width: w, height: w, z, mask } };
  assert.ok(heightAt(scene, 0, 2) > heightAt(scene, 0, -2), 'north is higher');
  const flat = heightAt(scene, 0.3, 0.1);
  scene.detail = 3;
  const d = heightAt(scene, 0.3, 0.1) - flat;
  assert.ok(Math.abs(d) <= 0.05 * 3 * 0.5 + 1e-12 && Math.abs(d) > 0);
  assert.equal(heightAt(scene, 0.3, 0.1, false), flat, 'detail off');
  scene.field.mask.fill(0);
  close(heightAt(scene, 0.3, 0.1), flat, 1e-12);
  assert.ok(gradStep(scene) <= 0.15 * 0.7 + 1e-12);
});

test('height without a field: the analytic fallback', () => {
  const scene = { n: 10, tile: 2, amplitude: 1.5, reliefScale: 10, field: null };
  const f = 1 / 20, x = 3, y = -4;
  close(heightAt(scene, x, y), 1.5 * (Math.sin(f * x) * Math.cos(f * y) + 0.5 * Math.sin(2.3 * f * x + 1.7) * Math.cos(1.9 * f * y + 0.4)));
});

test('tile centres (tilegrid.rs tile_centre)', () => {
  assert.deepEqual(tileCentre(5, 1, 0, 0, 0), [-2, 2]);
  assert.deepEqual(tileCentre(5, 1, 0, 4, 4), [2, -2]);
  const [x, y] = tileCentre(2, 1, 90, 1, 0); // (0.5, 0.5) turned 90°
  close(x, -0.5); close(y, 0.5);
});

test('lodFor: levels start at lodBase·2^i tiles, 20 % cross-fade band', () => {
  const L = 4, base = 8, tile = 1;
  assert.deepEqual(lodFor(3, base, tile, L), [{ level: 0, weight: 1 }]);
  assert.deepEqual(lodFor(12, base, tile, L), [{ level: 0, weight: 1 }]);
  assert.deepEqual(lodFor(16, base, tile, L), [{ level: 1, weight: 1 }]);
  assert.deepEqual(lodFor(32, base, tile, L), [{ level: 2, weight: 1 }]);
  assert.deepEqual(lodFor(1000, base, tile, L), [{ level: 3, weight: 1 }]);
  // fade band: f in (0.8, 1) of the octave [8, 16)
  const mid = 8 * 2 ** 0.9;
  const r = lodFor(mid, base, tile, L);
  assert.equal(r.length, 2);
  assert.equal(r[0].level, 0); assert.equal(r[1].level, 1);
  close(r[0].weight + r[1].weight, 1);
  close(r[1].weight, 0.5, 1e-9);
  // continuity at the band edges
  close(lodFor(8 * 2 ** 0.8 + 1e-9, base, tile, L)[1].weight, 0, 1e-6);
  const e = lodFor(16 - 1e-9, base, tile, L);
  close(e[1].weight, 1, 1e-6);
  // no fade below lodBase, none past the last level
  assert.equal(lodFor(8 * 2 ** -0.1, base, tile, L).length, 1);
  assert.equal(lodFor(8 * 2 ** 3.9, base, tile, L).length, 1);
  assert.deepEqual(lodFor(50, base, tile, 1), [{ level: 0, weight: 1 }]);
  const fs = farStart(8, 4, 1);
  close(fs.start, 32); close(fs.band, 32 * (1 - 2 ** -0.2));
});

const flatScene = (n) => ({
  n, tile: 1, amplitude: 0, reliefScale: n, angleDeg: 0, detail: 0, field: null,
  cells: { tile: new Uint32Array(n * n) },
});

test('visible cells: frustum culling with padding, far start', () => {
  const scene = flatScene(16);
  const basis = cameraBasis({ target: [0, 0, 0], az: 0, el: 30, dist: 6, fov: 40 });
  const planes = frustumPlanes(basis, 1);
  const all = visibleCells({ scene, basis, planes: null, lodBase: 8, levels: 3 });
  const vis = visibleCells({ scene, basis, planes, lodBase: 8, levels: 3 });
  assert.ok(vis.length < all.length && vis.length > 0);
  // every culled cell is far outside the padded frustum: none of its corners could show
  const near = visibleCells({ scene, basis, planes, lodBase: 8, levels: 3, far: { start: 5 } });
  assert.ok(near.length < vis.length);
  assert.ok(near.every((c) => c.key <= 5));
  assert.ok(near.farCells >= vis.length - near.length); // whole far blocks count by their size
  assert.ok(vis.every((c) => c.levels.length >= 1));
});

// The per-cell scan visibleCells stood for before the block pre-cull (reference).
function bruteVisible({ scene, basis, planes, far, height }) {
  const { n, tile } = scene;
  const ang = ((scene.angleDeg ?? 0) * Math.PI) / 180, ca = Math.cos(ang), sa = Math.sin(ang);
  const mg = 0.75 * tile, ht = tile / 2;
  const { eye, forward: fw } = basis;
  const out = [];
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
    const [x, y] = tileCentre(n, tile, scene.angleDeg ?? 0, i, j);
    const h = height(x, y);
    const corners = [[-ht, -ht], [ht, -ht], [ht, ht], [-ht, ht]].map(([u, v]) => {
      const px = x + ca * u - sa * v, py = y + sa * u + ca * v;
      return [px, py, height(px, py)];
    });
    // outside when some plane has every lifted corner (± mg in z) more than mg outside
    if (planes && planes.some(({ n: pn, d }) => corners.every((p) => frustumDistance([{ n: pn, d }], p) + Math.abs(pn[2]) * mg < -mg))) continue;
    let key = Infinity, maxKey = -Infinity;
    for (const [u, v] of [[-ht, -ht], [ht, -ht], [ht, ht], [-ht, ht]]) {
      const d = (x + ca * u - sa * v - eye[0]) * fw[0] + (y + sa * u + ca * v - eye[1]) * fw[1] + (h - eye[2]) * fw[2];
      key = Math.min(key, d); maxKey = Math.max(maxKey, d);
    }
    if (maxKey < -2 * tile) continue;
    if (far && key > far.start) continue;
    out.push({ c: j * n + i, key });
  }
  return out;
}

const hillScene = (n, angleDeg = 0) => {
  const W = 41;
  const z = new Float32Array(W * W).map((_, k) => 0.5 + 0.5 * Math.sin((k % W) * 0.3) * Math.cos(Math.floor(k / W) * 0.2));
  return {
    n, tile: 1, amplitude: 1.2 * Math.max(1, n / 24), reliefScale: n, angleDeg, detail: 1,
    field: { width: W, height: W, z, mask: new Float32Array(W * W).fill(1), open: null },
    cells: { tile: new Uint32Array(n * n) },
  };
};

test('visible cells: the block pre-cull gives exactly the full per-cell scan, and scans less', () => {
  for (const [n, angle] of [[13, 0], [64, 30], [100, 17]]) {
    const scene = hillScene(n, angle);
    const height = latticeHeight(scene, (x, y) => heightAt(scene, x, y));
    const cams = [
      { target: [0, 0, 0], az: 30, el: 35, dist: n * 1.3, fov: 60 },
      { target: [n / 5, -n / 7, 0], az: 200, el: 20, dist: 12, fov: 60 },
      { target: [0, 0, 0], az: 0, el: 89.9, dist: n, fov: 50 },
      { eye: [n / 3, 0, 3], az: 95, el: -5, fov: 70 },
    ];
    for (const cam of cams) {
      const basis = cameraBasis(cam);
      const planes = frustumPlanes(basis, 4 / 3);
      for (const far of [null, { start: 16 }]) {
        const got = visibleCells({ scene, basis, planes, lodBase: 8, levels: 4, far, height });
        const want = bruteVisible({ scene, basis, planes, far, height });
        assert.deepEqual(got.map((c) => c.c), want.map((c) => c.c), `n ${n} cam ${JSON.stringify(cam)} far ${!!far}`);
        got.forEach((c, k) => close(c.key, want[k].key, 1e-9));
      }
    }
  }
  // n = 256, close oblique view with the far field: most blocks are never opened
  const scene = hillScene(256, 20);
  const basis = cameraBasis({ target: [10, -20, 0], az: 30, el: 30, dist: 20, fov: 60 });
  const vis = visibleCells({ scene, basis, planes: frustumPlanes(basis, 16 / 9), lodBase: 8, levels: 4, far: farStart(8, 4, 1), height: latticeHeight(scene, (x, y) => heightAt(scene, x, y)) });
  assert.ok(vis.length > 50 && vis.scanned < 256 * 256 / 5 && vis.scanned < 3 * vis.length, `${vis.length} visible, ${vis.scanned} scanned`);
});

test('latticeHeight: equals heightAt on cell centres and corners, passes other points through', () => {
  const scene = hillScene(9, 25);
  const hf = (x, y) => heightAt(scene, x, y);
  let calls = 0;
  const h = latticeHeight(scene, (x, y) => { calls++; return hf(x, y); });
  for (let j = 0; j < 9; j++) for (let i = 0; i < 9; i++) {
    const [x, y] = tileCentre(9, 1, 25, i, j);
    close(h(x, y), hf(x, y), 1e-9);
  }
  const before = calls;
  const [x, y] = tileCentre(9, 1, 25, 3, 4);
  h(x, y); h(x, y);
  assert.equal(calls, before, 'cached');
  const a = (25 * Math.PI) / 180;
  const [cx, cy] = [x + 0.5 * Math.cos(a) - 0.5 * Math.sin(a), y + 0.5 * Math.sin(a) + 0.5 * Math.cos(a)]; // a corner
  close(h(cx, cy), hf(cx, cy), 1e-9);
  assert.equal(h(0.123, 0.456), hf(0.123, 0.456));
});

test('tileOrder: order.js topoOrder over the cells, as positions; depth mode sorts by key', () => {
  const n = 12;
  const scene = hillScene(n, 10);
  const height = latticeHeight(scene, (x, y) => heightAt(scene, x, y));
  const basis = cameraBasis({ target: [0.3, 0.2, 0], az: 40, el: 30, dist: 9, fov: 60 });
  const cells = visibleCells({ scene, basis, planes: frustumPlanes(basis, 1.5), height });
  const geom = gridGeometry(scene, height);
  const r = tileOrder(cells, geom, basis.eye);
  const ref = topoOrder(cells.map((c) => c.c), geom, basis.eye);
  assert.deepEqual(r.order.map((k) => cells[k].c), ref.order);
  assert.equal(r.cycles, ref.cycles);
  const d = tileOrder(cells, geom, basis.eye, 'depth').order;
  for (let q = 1; q < d.length; q++) assert.ok(cells[d[q - 1]].key >= cells[d[q]].key);
});

test('drawGroups / planFrame: blended cells take two slots, groups never pass MAX_GROUP slots; only level-0 cells merge', () => {
  const n = 9;
  const scene = hillScene(n);
  scene.amplitude = 0; scene.field = null; scene.detail = 0;
  const alt = new Uint32Array(n * n).fill(NONE);
  for (let c = 0; c < n * n; c += 2) alt[c] = 1;
  const C = { tile: new Uint32Array(n * n), alt, ownT: new Uint32Array(n * n).fill(NONE), altT: new Uint32Array(n * n) };
  const basis = cameraBasis({ eye: [0.5, -3, 2], az: 0, el: -20, fov: 60 });
  const plan = planFrame({ scene, basis, planes: null, lodBase: 100, levels: 1, mergeThreshold: 100, slots: cellSlots(C) });
  assert.ok(plan.groups.length > 0);
  const slotsOf = cellSlots(C);
  const seen = new Set();
  for (const g of plan.groups) {
    assert.ok(g.length >= 2);
    assert.ok(g.reduce((t, k) => t + slotsOf(plan.cells[k]), 0) <= MAX_GROUP);
    for (const k of g) { assert.ok(!seen.has(k)); seen.add(k); }
    // members in draw order
    const rank = new Map(plan.order.map((k, r) => [k, r]));
    for (let q = 1; q < g.length; q++) assert.ok(rank.get(g[q - 1]) < rank.get(g[q]));
  }
  // cells in a cross-fade or above level 0 never merge
  const fading = planFrame({ scene, basis, planes: null, lodBase: 0.5, levels: 3, mergeThreshold: 100 });
  for (const g of fading.groups) for (const k of g) assert.deepEqual(fading.cells[k].levels, [{ level: 0, weight: 1 }]);
  assert.equal(planFrame({ scene, basis, planes: null, ordering: 'depth', mergeThreshold: 100 }).groups.length, 0);
  // drawGroups with a threshold of 0 merges nothing
  const geom = gridGeometry(scene);
  assert.equal(drawGroups(plan.cells, plan.order, geom, basis.eye, { threshold: 0 }).length, 0);
});

test('LOD cross-fade: the two levels partition the doorway range, one level covers it all', () => {
  assert.deepEqual(lodDoors([{ level: 2, weight: 1 }]), [[0, 2]]);
  for (const w of [0, 0.1, 0.5, 0.93, 1]) {
    const [a, b] = lodDoors([{ level: 0, weight: 1 - w }, { level: 1, weight: w }]);
    assert.equal(a[0], 0); assert.equal(a[1], b[0]); assert.equal(b[1], 2);
    close(b[1] > 1 ? 1 - b[0] : NaN, w, 1e-12); // share of pixels showing level l+1 is w
  }
});

test('what a cell draws: own range at ownT, runner-up range at altT, per level; hashes laid per level', () => {
  const tiles = [{ levels: [[0, 5], [5, 2]] }, { levels: [[7, 4], [11, 1]] }];
  const table = Uint32Array.from([10, 20, 30, 40, 50]);
  assert.deepEqual([...spreadHashes(tiles, 12, table)], [10, 20, 30, 40, 50, 10, 20, 10, 20, 30, 40, 10]);
  const C = { tile: Uint32Array.from([0, 1]), alt: Uint32Array.from([1, NONE]), ownT: Uint32Array.from([25, NONE]), altT: Uint32Array.from([35, 0]) };
  const blended = cellDraws({ c: 0, levels: [{ level: 0, weight: 0.7 }, { level: 1, weight: 0.3 }] }, C, tiles);
  assert.deepEqual(blended.map((d) => [d.tile, d.start, d.count, d.t, d.alt]), [
    [0, 0, 5, 25, false], [1, 7, 4, 35, true], [0, 5, 2, 25, false], [1, 11, 1, 35, true],
  ]);
  close(blended[0].door[1], 0.7, 1e-12);
  assert.deepEqual(blended[0].door, blended[1].door);
  const hard = cellDraws({ c: 1, levels: [{ level: 3, weight: 1 }] }, C, tiles);
  assert.deepEqual(hard.map((d) => [d.tile, d.start, d.count, d.t >>> 0]), [[1, 11, 1, NONE]]);
  // merged-group slots: the alt range right after its cell
  const cells = [{ c: 0, x: 0, y: 0, levels: [] }, { c: 1, x: 1, y: 0, levels: [] }];
  assert.deepEqual(groupSlots([1, 0], cells, C, tiles).map((s) => [s.c, s.tile, s.t >>> 0, s.alt]), [[1, 1, NONE, false], [0, 0, 25, false], [0, 1, 35, true]]);
  const t = toTileFrame([1, 0, 0], 90);
  close(t[0], 0, 1e-12); close(t[1], -1, 1e-12);
});

test('far field gain and atlas bake', () => {
  assert.deepEqual(colourGain([0.5, 0.1, 0.9], [0.25, 0.5, 0.9]), [2, 0.5, 1]);
  const ts = {
    size: 1,
    tiles: [{ levels: [[0, 1]] }, { levels: [[1, 1]] }, { levels: [[2, 1]] }],
    splats: {
      positions: new Float32Array([0, 0.3, 0, 0, 0, 0, 0, 0, 0]),
      scales: new Float32Array([0.1, 0.1, 0.01, 0.1, 0.1, 0.01, 0.1, 0.1, 0.01]),
      rotations: new Float32Array([1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]),
      colors: new Uint8Array([255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255]),
    },
  };
  const a = bakeAtlas(ts, 16);
  assert.equal(a.cols, 2); assert.equal(a.rows, 2);
  assert.equal(a.image.width, 32); assert.equal(a.image.height, 32);
  // tile 0: red splat north of centre → brightest red in the upper half of its cell
  const px = (x, y) => a.image.data.subarray((y * 32 + x) * 4, (y * 32 + x) * 4 + 4);
  assert.ok(px(8, 3)[0] > 200 && px(8, 3)[1] < 50);
  assert.ok(px(16 + 8, 8)[1] > 200, 'tile 1 (green) right of tile 0');
  assert.ok(px(8, 16 + 8)[2] > 200, 'tile 2 (blue) below tile 0');
  assert.equal(a.meanRgb.length, 3);
});

test('class edges inside tiles: cells beside the other class draw both classes\' tiles for their code', () => {
  // Two classes, two codes each; tile index = 2·class + code index, plus a class-0 duplicate of
  // code A after them (the first tile of a (class, code) pair is the one used, as scene.rs).
  const A = [0, 1, 0, 1], B = [1, 0, 1, 0];
  const tiles = [{ class: 0, code: A }, { class: 0, code: B }, { class: 1, code: A }, { class: 1, code: B }, { class: 0, code: A }];
  const n = 4;
  // class 1 in the east column, class 0 elsewhere; codes alternate by column
  const cls = new Uint8Array(n * n), tile = new Uint32Array(n * n);
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
    const c = j * n + i;
    cls[c] = i === 3 ? 1 : 0;
    tile[c] = 2 * cls[c] + (i % 2);
  }
  const alt = new Uint32Array(n * n).fill(NONE), ownT = new Uint32Array(n * n).fill(NONE), altT = new Uint32Array(n * n);
  // a blend already on one cell away from the edge stays as it was
  alt[0] = 2; ownT[0] = 1000; altT[0] = 7;
  const e = subTileEdges({ tile, alt, ownT, altT, cls }, n, tiles);
  assert.equal(e.edges, 2 * n, 'columns 2 and 3 border each other');
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      const c = j * n + i;
      if (i >= 2) {
        assert.equal(e.sub[c], 1, `cell ${i},${j}`);
        const want = tiles.findIndex((t) => t.class === 1 - cls[c] && t.code.join() === tiles[tile[c]].code.join());
        assert.equal(e.alt[c], want, `cell ${i},${j}`);
        assert.equal(e.ownT[c], NONE);
        assert.equal(e.altT[c], NONE);
      } else {
        assert.equal(e.sub[c], 0, `cell ${i},${j}`);
      }
    }
  }
  assert.deepEqual([e.alt[0], e.ownT[0], e.altT[0]], [2, 1000, 7]);
  assert.equal(alt[8 + 2], NONE, 'the input is not changed');
  // a code with no tile of the other class keeps its draws
  const lone = subTileEdges({ tile, alt, ownT, altT, cls }, n, tiles.slice(0, 2).concat([{ class: 1, code: [9, 9, 9, 9] }, { class: 1, code: [8, 8, 8, 8] }]));
  assert.equal(lone.edges, 0);
  // diagonal neighbours count: one class-1 cell in a corner marks its three neighbours and itself
  const one = new Uint8Array(n * n); one[0] = 1;
  const t1 = Uint32Array.from(one, (k, c) => 2 * k + ((c % n) % 2));
  assert.equal(subTileEdges({ tile: t1, cls: one }, n, tiles).edges, 4);
});

test('the edge field is ±(0.25 + 0.75·strength), + for class 0', () => {
  const f = edgeField(Uint8Array.from([0, 1, 0, 1]), Float32Array.from([0.8, 0.2, 0, 2]), 2);
  assert.deepEqual(Array.from(f, (v) => Math.round(v * 1000) / 1000), [0.85, -0.4, 0.25, -1]);
  // bilinear between two cell centres (class 0 at 0.85, class 1 at -0.4): the edge lies at
  // 0.85 / 1.25 of the way, nearer the less certain cell
  const [s0, s1] = [f[0], -f[1]];
  close(s0 / (s0 + s1), 0.68, 1e-6);
});

test('tile levelling brings each tile\'s mean to its class\'s mean, per channel, within 0.6..1.6', () => {
  // four tiles of one splat each (opaque): class 0 at grey 100 and 150, class 1 at 60 and at
  // (250, 20, 60); the levelled means are the class means except where the gain is clamped.
  const colors = Uint8Array.from([100, 100, 100, 255, 150, 150, 150, 255, 60, 60, 60, 255, 250, 20, 60, 255]);
  const tiles = [0, 0, 1, 1].map((cls, k) => ({ class: cls, levels: [[k, 1]] }));
  const g = tileLevels(tiles, colors);
  close(g[0], 1.25, 1e-6);
  close(g[3], 125 / 150, 1e-6);
  close(100 * g[0], 150 * g[3], 1e-4);
  // class 1, red: mean 155; 60 → 2.58 clamped to 1.6, 250 → 0.62; green: mean 40, 20 → 2 → 1.6
  close(g[6], 1.6, 1e-6);
  close(g[9], 155 / 250, 1e-6);
  close(g[10], 1.6, 1e-6);
  close(g[11], 1, 1e-6);
});

test('the far mesh: the grid, then horizon rings stitched to its perimeter out to 8 × its half-size', () => {
  const n = 6, m = 13;
  const { v, idx, gridCount } = farMesh(n, m);
  const P = 4 * (m - 1);
  assert.equal(v.length, 2 * (m * m + HORIZON_RINGS * P));
  assert.equal(gridCount, (m - 1) * (m - 1) * 6);
  assert.equal(idx.length, gridCount + HORIZON_RINGS * P * 6);
  const at = (i) => [v[2 * i], v[2 * i + 1]];
  // the grid spans -n/2..n/2, y north
  assert.deepEqual(at(0), [-3, 3]);
  assert.deepEqual(at(m * m - 1), [3, -3]);
  // every index in range; no triangle degenerate
  for (const i of idx) assert.ok(i < v.length / 2);
  for (let k = 0; k < idx.length; k += 3) {
    const [a, b, c] = [at(idx[k]), at(idx[k + 1]), at(idx[k + 2])];
    const area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    assert.ok(Math.abs(area) > 1e-9, `triangle ${k / 3}`);
  }
  // the skirt's first ring of triangles uses the grid's own perimeter vertices (no crack) ...
  const rimUsed = new Set();
  for (let k = gridCount; k < gridCount + P * 6; k++) if (idx[k] < m * m) rimUsed.add(idx[k]);
  assert.equal(rimUsed.size, P);
  for (const i of rimUsed) {
    const [x, y] = at(i);
    close(Math.max(Math.abs(x), Math.abs(y)), n / 2);
  }
  // ... and the outermost ring lies on the square of half-size HORIZON_SCALE · n/2
  for (let i = m * m + (HORIZON_RINGS - 1) * P; i < v.length / 2; i++) {
    const [x, y] = at(i);
    close(Math.max(Math.abs(x), Math.abs(y)), HORIZON_SCALE * n / 2, 1e-4);
  }
});

test('waterField: lakes and rivers over the ground, the sea over ground below it, in unit heights', async () => {
  const { waterField } = await import('../../src/render-logic.js');
  // Heights -10 … 30 (range 40): a sea at 0 covers the two cells below it; a lake 2 m deep on the
  // 10 m cell; a river 0.5 m on the 30 m cell; one dry cell.
  const heights = new Float32Array([-10, -2, 10, 30, 20]);
  const water = new Float32Array([0, 1, 2, 0.5, 0]);
  const f = waterField(heights, water, 0);
  assert.equal(f.range, 40);
  const want = [10 / 40, 2 / 40, 2 / 40, 0.5 / 40, 0];
  for (let k = 0; k < 5; k++) assert.ok(Math.abs(f.depth[k] - want[k]) < 1e-7, `cell ${k}: ${f.depth[k]} vs ${want[k]}`);
  assert.equal(f.wet, 4 / 5);
  // The depth in unit heights times the range is metres; the surface (unit) is z + depth.
  const z = Array.from(heights, (h) => (h + 10) / 40);
  assert.ok(Math.abs((z[0] + f.depth[0]) * 40 - 10 - 0) < 1e-5, 'the sea surface at 0 m');
  // No water, no sea (or a sea below everything): nothing to draw.
  assert.equal(waterField(heights, null, null).depth, null);
  assert.equal(waterField(heights, null, -50).depth, null);
  assert.equal(waterField(heights, new Float32Array(5), null).depth, null);
  // A flat terrain has no unit heights to speak of.
  assert.equal(waterField(new Float32Array([3, 3]), new Float32Array([1, 1]), null).depth, null);
  assert.throws(() => waterField(heights, new Float32Array(3), null), /3 depths for 5 heights/);
});

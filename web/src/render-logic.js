// Pure scene logic of the splat renderer (no DOM, no GL; node-testable): the terrain height
// (JS twin of the shaders and of crates/material/src/tilegrid.rs Field::height_at, checked
// against the WebAssembly build), tile centres, LOD with a screen-door cross-fade, visible cells
// with a block pre-cull, the far-field start, thin adapters over order.js (topoOrder) and
// merge.js (mergeGroups) for the renderer's cells, what each cell draws (own / runner-up ranges
// with their u32 hash thresholds) and the in-browser atlas bake. Sorting lives in
// sort-worker.js / sorter.js only.

import { frustumDistance } from './camera.js';
import { topoOrder } from './order.js';
import { mergeGroups, MAX_GROUP } from './merge.js';

// ------------------------------------------------------------------ terrain (tilegrid.rs twin)

/** bozkir_core::hash::hash_u32 (32-bit wrapping arithmetic). */
export function hashU32(x, y, s) {
  let h = Math.imul(x, 0x27d4eb2d) ^ Math.imul(y, 0x165667b1) ^ Math.imul(s, 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Lattice value in 0..1 at integer point (a, b) (tilegrid.rs Compat::lattice): `original` is the
 * original viewer 5.0's dHash, `canonical` bozkir's hash_u32(a, b, 0) >> 8 / 2^24.
 */
export function latticeValue(a, b, compat = 'original') {
  if (compat === 'canonical') return (hashU32(a, b, 0) >>> 8) / 16777216;
  let h = (Math.imul(a, 0x27d4eb2d) ^ Math.imul(b, 0x165667b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b) >>> 0;
  h = (h ^ (h >>> 13)) >>> 0;
  return (h & 0xffffff) / 16777215;
}

/** tilegrid.rs value_noise: smoothstep weights, a + (b − a)·s interpolation. */
export function valueNoise(x, y, compat = 'original') {
  const ix = Math.floor(x), iy = Math.floor(y);
  const fx = x - ix, fy = y - iy;
  const sx = fx * fx * (3 - 2 * fx), sy = fy * fy * (3 - 2 * fy);
  const v = (p, q) => latticeValue(p | 0, q | 0, compat);
  const a = v(ix, iy), b = v(ix + 1, iy), d = v(ix, iy + 1), e = v(ix + 1, iy + 1);
  return (a + (b - a) * sx) * (1 - sy) + (d + (e - d) * sx) * sy;
}

/** tilegrid.rs detail_grain: the unmasked ridged grain (r1² + 0.5 r2²)/1.5 − 0.5. */
export function detailGrain(tile, x, y, compat = 'original') {
  const f = 1 / (0.7 * tile);
  const r1 = 1 - Math.abs(2 * valueNoise(x * f, y * f, compat) - 1);
  const r2 = 1 - Math.abs(2 * valueNoise(x * f * 2.03 + 17.3, y * f * 2.03 + 5.1, compat) - 1);
  return (r1 * r1 + 0.5 * r2 * r2) / 1.5 - 0.5;
}

/** tilegrid.rs mirror: reflect t into 0..n with period 2n. */
export function mirror(t, n) {
  const p = 2 * n;
  let m = t % p;
  if (m < 0) m += p;
  return m <= n ? m : p - m;
}

/**
 * Bilinear read of `plane` at world (x, y), mirrored past the edges (tilegrid.rs
 * Field::bilinear, the original viewer's HeightField._bilinear): the field spans
 * extent = max(1e-6, reliefScale·tile) across its long edge, rows run south.
 */
export function fieldSample(field, plane, reliefScale, tile, x, y) {
  const w = field.width, h = field.height;
  const scale = (Math.max(w, h) - 1) / Math.max(1e-6, reliefScale * tile);
  const u = mirror(x * scale + (w - 1) * 0.5, w - 1);
  const v = mirror((h - 1) * 0.5 - y * scale, h - 1);
  const x0 = u | 0, y0 = v | 0;
  const x1 = Math.min(x0 + 1, w - 1), y1 = Math.min(y0 + 1, h - 1);
  const fx = u - x0, fy = v - y0;
  return (plane[y0 * w + x0] * (1 - fx) + plane[y0 * w + x1] * fx) * (1 - fy)
    + (plane[y1 * w + x0] * (1 - fx) + plane[y1 * w + x1] * fx) * fy;
}

/**
 * The drawn height at world (x, y) for a scene (what both vertex shaders compute).
 * With a field: Field::height_at (0 when the amplitude is 0); without: the analytic fallback
 * amp·(sin(fx)cos(fy) + 0.5 sin(2.3fx+1.7) cos(1.9fy+0.4)), f = 1/(reliefScale·tile), no detail.
 * `detailOn = false` drops the detail relief (the renderer's `detail` option). `scene.compat`
 * picks the grain's lattice hash (default `original`).
 */
export function heightAt(scene, x, y, detailOn = true) {
  const amp = scene.amplitude ?? 0;
  const tile = scene.tile, rs = scene.reliefScale ?? scene.n;
  const f = scene.field;
  if (!(amp > 0)) return 0;
  if (!f) {
    const k = 1 / (rs * tile);
    return amp * (Math.sin(k * x) * Math.cos(k * y) + 0.5 * Math.sin(2.3 * k * x + 1.7) * Math.cos(1.9 * k * y + 0.4));
  }
  const base = amp * (fieldSample(f, f.z, rs, tile, x, y) - 0.5) * 2;
  const damp = 0.05 * (detailOn ? scene.detail ?? 0 : 0) * tile;
  if (!(damp > 0)) return base;
  return base + damp * fieldSample(f, f.mask, rs, tile, x, y) * detailGrain(tile, x, y, scene.compat);
}

/** Openness 0..1 at world (x, y) (0.5 without a field). */
export function opennessAt(scene, x, y) {
  const f = scene.field;
  if (!f || !f.open) return 0.5;
  return fieldSample(f, f.open, scene.reliefScale ?? scene.n, scene.tile, x, y);
}

/** Central-difference step of the frame gradient (the shaders use the same). */
export function gradStep(scene, detailOn = true) {
  const rs = scene.reliefScale ?? scene.n;
  let e = scene.field
    ? (rs * scene.tile) / Math.max(scene.field.width, scene.field.height, 2)
    : Math.max(rs * scene.tile, 0.01) * 0.01;
  if (detailOn && scene.field && (scene.detail ?? 0) > 0) e = Math.min(e, 0.15 * 0.7 * scene.tile);
  return e;
}

/** tilegrid.rs tile_centre: cell (i east, j south) of an n×n grid rotated by angleDeg. */
export function tileCentre(n, tile, angleDeg, i, j) {
  const half = (n - 1) / 2;
  const lx = (i - half) * tile, ly = (half - j) * tile;
  const a = (angleDeg * Math.PI) / 180;
  return [Math.cos(a) * lx - Math.sin(a) * ly, Math.sin(a) * lx + Math.cos(a) * ly];
}

// ------------------------------------------------------------------ LOD

/**
 * Levels to draw at eye distance `dist`: level i ≥ 1 takes over at lodBase·2^i tiles; in the
 * last 20 % of each octave (log2 scale) the next level fades in: [{level, weight}] (weights sum to 1).
 */
export function lodFor(dist, lodBase, tile, levels) {
  const L = Math.max(1, levels);
  const f = Math.log2(Math.max(dist, 1e-9) / (lodBase * tile));
  const fl = Math.floor(f);
  const lvl = Math.min(Math.max(fl, 0), L - 1);
  const frac = f - fl;
  if (fl >= 0 && fl < L - 1 && frac > 0.8) {
    const w = (frac - 0.8) / 0.2;
    return [{ level: lvl, weight: 1 - w }, { level: lvl + 1, weight: w }];
  }
  return [{ level: lvl, weight: 1 }];
}

/** Depth where the far field takes over: lodBase·2^max(0, L−2)·tile; band = start·(1 − 2^−0.2). */
export function farStart(lodBase, levels, tile) {
  const start = lodBase * 2 ** Math.max(0, levels - 2) * tile;
  return { start, band: start * (1 - 2 ** -0.2) };
}

// ------------------------------------------------------------------ heights on the lattice

/**
 * Surface water for the splat view, in the field's unit heights: `depth[k]` = (water surface −
 * ground) / (hi − lo) at each cell (0 where dry), the surface being the higher of the ground plus
 * `water[k]` metres (lakes, rivers; may be null) and `seaLevel` (metres; null for no sea) over
 * ground below it; `range` = hi − lo in metres (the field stretches heights to 0..1 by lo and hi,
 * tilegrid.rs Field::new), so a unit depth times `range` is metres. `depth` is null when no cell
 * is wet.
 * @returns {{depth: Float32Array|null, range: number, wet: number}} wet: the wet cells' share
 */
export function waterField(heights, water, seaLevel) {
  let lo = Infinity, hi = -Infinity;
  for (const v of heights) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  const range = hi > lo ? hi - lo : 0;
  if (water && water.length !== heights.length) throw new Error(`water: ${water.length} depths for ${heights.length} heights`);
  const sea = Number.isFinite(seaLevel) ? seaLevel : -Infinity;
  if (!(range > 0) || (!water && !(sea > lo))) return { depth: null, range, wet: 0 };
  const depth = new Float32Array(heights.length);
  let wet = 0;
  for (let k = 0; k < heights.length; k++) {
    const h = heights[k];
    const w = water ? water[k] : 0;
    const surface = Math.max(h + (w > 0 ? w : 0), sea);
    if (surface > h) {
      depth[k] = (surface - h) / range;
      wet += 1;
    }
  }
  return { depth: wet ? depth : null, range, wet: wet / heights.length };
}

/**
 * Upper bound of |drawn height| for a scene: |amp| (1.5·|amp| for the analytic fallback) plus
 * half the detail amplitude. Used by the block pre-cull.
 */
export function heightBound(scene) {
  const amp = Math.abs(scene.amplitude ?? 0);
  return (scene.field ? amp : 1.5 * amp) + 0.025 * (scene.detail ?? 0) * scene.tile + 1e-9;
}

/**
 * `hf` memoised on the half-tile lattice of the grid, the (2n+1)² cell centres and corners
 * (lattice index u = 2·lx/tile + n, v = n − 2·ly/tile in the grid frame): the only points the
 * scene logic asks for (visibleCells, and grid.js corners / boundary ends through order.js and
 * merge.js). Other points go straight to `hf`. Lattice values are computed at the exact
 * lattice point. Build one per (scene, detail on/off); after the first frame heights cost a
 * lookup.
 */
export function latticeHeight(scene, hf) {
  const { n, tile } = scene;
  const a = ((scene.angleDeg ?? 0) * Math.PI) / 180, ca = Math.cos(a), sa = Math.sin(a);
  const m = 2 * n + 1, s = 2 / tile;
  const cache = new Float64Array(m * m).fill(NaN);
  return (x, y) => {
    const u = (ca * x + sa * y) * s + n, v = n - (-sa * x + ca * y) * s;
    const iu = Math.round(u), iv = Math.round(v);
    if (iu < 0 || iv < 0 || iu >= m || iv >= m || Math.abs(u - iu) > 1e-6 || Math.abs(v - iv) > 1e-6) return hf(x, y);
    const k = iv * m + iu;
    let h = cache[k];
    if (h !== h) {
      const lx = (iu - n) / s, ly = (n - iv) / s;
      h = cache[k] = hf(ca * lx - sa * ly, sa * lx + ca * ly);
    }
    return h;
  };
}

/** The geometry object of grid.js / order.js / merge.js for a scene and a height function. */
export function gridGeometry(scene, height) {
  return { n: scene.n, tile: scene.tile, angleDeg: scene.angleDeg ?? 0, heightAt: height || ((x, y) => heightAt(scene, x, y)) };
}

// ------------------------------------------------------------------ visible cells

/**
 * Cells to draw as splats. basis: camera basis (camera.js); planes: frustum planes.
 * Returns [{c, i, j, x, y, h, dist, key, levels}] sorted by c, where key = min view depth of the
 * 4 corners (at the centre's height) and levels = lodFor(dist). Skips a cell when, for some
 * frustum plane, its 4 corners lifted onto the ground (plus `margin`·tile up and down) all lie
 * more than `margin`·tile outside (splats reach a little past their tile; margin 0.75), cells
 * whose farthest corner lies over 2 tiles behind the eye, and with `far` ({start}) cells whose
 * key is beyond the far-field start (counted in out.farCells).
 *
 * Scales to large grids by a block pre-cull: blocks of `block`² cells are tested as boxes (their
 * corners' rectangle × the scene's height bound) with the same three tests, and only the cells
 * of blocks that may hold a visible cell are scanned. Each block test is implied by the per-cell
 * test it stands for, so the result equals the full scan; out.farCells counts whole blocks
 * beyond the far start by their cell count (an upper bound for those blocks), and out.scanned
 * says how many cells were looked at.
 */
const BLOCK_RANGES = new WeakMap(); // height function -> `${n}:${B}` -> block -> [zmin, zmax]

/** [min, max] of hf over a block's half-tile lattice (centres and corners), cached in `blocks`. */
function blockRange(hf, blocks, id, i0, i1, j0, j1, cx, cy, ca, sa, tile, half) {
  let r = blocks && blocks.get(id);
  if (r) return r;
  let lo = Infinity, hi = -Infinity;
  for (let v = 2 * j0; v <= 2 * j1 + 2; v++) {
    for (let u = 2 * i0; u <= 2 * i1 + 2; u++) {
      const lx = ((u - 1) / 2 - half) * tile, ly = (half - (v - 1) / 2) * tile;
      const z = hf(ca * lx - sa * ly, sa * lx + ca * ly);
      if (z < lo) lo = z;
      if (z > hi) hi = z;
    }
  }
  r = [lo, hi];
  if (blocks) blocks.set(id, r);
  return r;
}

export function visibleCells({ scene, basis, planes, lodBase = 8, levels = 1, far = null, height = null, block = 8, margin = 0.75 }) {
  const { n, tile } = scene;
  const ang = ((scene.angleDeg ?? 0) * Math.PI) / 180;
  const ca = Math.cos(ang), sa = Math.sin(ang);
  const mg = margin * tile;
  const hf = height || ((x, y) => heightAt(scene, x, y));
  const zb = heightBound(scene);
  const { eye, forward: fw } = basis;
  const ht = tile / 2, half = (n - 1) / 2;
  // corner offsets (world) and the half spread of the corner depths about the centre depth
  const cor = [[-ht, -ht], [ht, -ht], [ht, ht], [-ht, ht]].map(([u, v]) => [ca * u - sa * v, sa * u + ca * v]);
  const spread = ht * (Math.abs(ca * fw[0] + sa * fw[1]) + Math.abs(-sa * fw[0] + ca * fw[1]));
  const P = planes || [];
  const out = [];
  out.farCells = 0;
  out.scanned = 0;
  const cz = new Float64Array(4);
  const B = Math.max(1, block | 0), nb = Math.ceil(n / B);
  let blocks = null;
  if (height) {
    let byFn = BLOCK_RANGES.get(height);
    if (!byFn) BLOCK_RANGES.set(height, (byFn = new Map()));
    const key = `${n}:${B}`;
    if (!byFn.has(key)) byFn.set(key, new Map());
    blocks = byFn.get(key);
  }
  for (let bj = 0; bj < nb; bj++) {
    const j0 = bj * B, j1 = Math.min(n, j0 + B) - 1;
    for (let bi = 0; bi < nb; bi++) {
      const i0 = bi * B, i1 = Math.min(n, i0 + B) - 1;
      // the block's corner rectangle: world centre, world-axis half extents; height bound
      const lcx = ((i0 + i1) / 2 - half) * tile, lcy = (half - (j0 + j1) / 2) * tile;
      const cx = ca * lcx - sa * lcy, cy = sa * lcx + ca * lcy;
      const hx = ((i1 - i0) / 2) * tile, hy = ((j1 - j0) / 2) * tile;
      const rx = Math.abs(ca) * (hx + ht) + Math.abs(sa) * (hy + ht), ry = Math.abs(sa) * (hx + ht) + Math.abs(ca) * (hy + ht);
      // first against the scene's height bound, then (cached per height function) against the
      // block's own range of lattice heights
      let zm = 0, zh = zb, culled = false;
      for (let pass = 0; pass < 2 && !culled; pass++) {
        if (pass === 1) {
          const r = blockRange(hf, blocks, bj * nb + bi, i0, i1, j0, j1, cx, cy, ca, sa, tile, half);
          zm = (r[0] + r[1]) / 2; zh = (r[1] - r[0]) / 2;
        }
        for (const { n: pn, d } of P) {
          if (pn[0] * cx + pn[1] * cy + pn[2] * zm + d + Math.abs(pn[0]) * rx + Math.abs(pn[1]) * ry + Math.abs(pn[2]) * (zh + mg) < -mg) { culled = true; break; }
        }
        if (!P.length) break;
      }
      if (culled) continue;
      const dc = (cx - eye[0]) * fw[0] + (cy - eye[1]) * fw[1] + (zm - eye[2]) * fw[2];
      const dr = Math.abs(fw[0]) * rx + Math.abs(fw[1]) * ry + Math.abs(fw[2]) * zh;
      if (dc + dr < -2 * tile) continue;
      if (far && dc - dr > far.start) { out.farCells += (i1 - i0 + 1) * (j1 - j0 + 1); continue; }
      for (let j = j0; j <= j1; j++) {
        for (let i = i0; i <= i1; i++) {
          out.scanned++;
          const lx = (i - half) * tile, ly = (half - j) * tile;
          const x = ca * lx - sa * ly, y = sa * lx + ca * ly;
          const h = hf(x, y);
          if (P.length) {
            for (let q = 0; q < 4; q++) cz[q] = hf(x + cor[q][0], y + cor[q][1]);
            let out_ = false;
            for (const { n: pn, d } of P) {
              let mx = -Infinity;
              for (let q = 0; q < 4; q++) mx = Math.max(mx, pn[0] * (x + cor[q][0]) + pn[1] * (y + cor[q][1]) + pn[2] * cz[q] + d);
              if (mx + Math.abs(pn[2]) * mg < -mg) { out_ = true; break; }
            }
            if (out_) continue;
          }
          const d0 = (x - eye[0]) * fw[0] + (y - eye[1]) * fw[1] + (h - eye[2]) * fw[2];
          const key = d0 - spread;
          if (d0 + spread < -2 * tile) continue;
          if (far && key > far.start) { out.farCells++; continue; }
          const dist = Math.hypot(x - eye[0], y - eye[1], h - eye[2]);
          out.push({ c: j * n + i, i, j, x, y, h, dist, key, levels: lodFor(dist, lodBase, tile, levels) });
        }
      }
    }
  }
  out.sort((a, b) => a.c - b.c);
  return out;
}

// ------------------------------------------------------------------ order and merging

/**
 * Far-to-near tile order of `cells` (visibleCells output) as positions into `cells`.
 * 'topological': order.js topoOrder over the cell ids (boundary-plane constraints, its default
 * corner-distance key); 'depth': by the cells' key, far first (ties by position).
 */
export function tileOrder(cells, geom, eye, mode = 'topological') {
  if (mode === 'depth') {
    const order = [...cells.keys()].sort((a, b) => cells[b].key - cells[a].key || a - b);
    return { order, cycles: 0, weak: [] };
  }
  const pos = new Map();
  const ids = cells.map((c, k) => { pos.set(c.c, k); return c.c; });
  const r = topoOrder(ids, geom, eye);
  return { order: r.order.map((c) => pos.get(c)), cycles: r.cycles, weak: r.weak };
}

/**
 * Merged groups to draw (adapter over merge.js mergeGroups): only cells passing `eligible` take
 * part; each group is then cut, in draw order, wherever its slot count (`slots(cell)`: a blended
 * cell draws two ranges, so two slots) would pass MAX_GROUP, the slot field of a packed index.
 * Returns groups of ≥ 2 positions into `cells`, in draw order, members in draw order.
 */
export function drawGroups(cells, order, geom, eye, { threshold = 0.5 * geom.tile, eligible = () => true, slots = () => 1 } = {}) {
  const pos = new Map();
  const ids = [];
  cells.forEach((c, k) => { pos.set(c.c, k); if (eligible(c)) ids.push(c.c); });
  const ordIds = [];
  for (const k of order) if (eligible(cells[k])) ordIds.push(cells[k].c);
  const out = [];
  for (const g of mergeGroups(ids, ordIds, geom, eye, threshold)) {
    if (g.length < 2) continue;
    let cur = [], used = 0;
    const flush = () => { if (cur.length > 1) out.push(cur); cur = []; used = 0; };
    for (const c of g) {
      const k = pos.get(c), w = slots(cells[k]);
      if (used + w > MAX_GROUP) flush();
      cur.push(k);
      used += w;
    }
    flush();
  }
  return out;
}

/**
 * The scene logic of one frame: visible cells, their order and the merged groups (topological
 * ordering only; level-0 cells out of any cross-fade). `slots(cell)` as in drawGroups.
 */
export function planFrame({ scene, basis, planes, lodBase = 8, levels = 1, far = null, height = null, ordering = 'topological', mergeThreshold = 0.5, merge = true, slots = () => 1 }) {
  const cells = visibleCells({ scene, basis, planes, lodBase, levels, far, height });
  const geom = gridGeometry(scene, height);
  const { order, cycles, weak } = tileOrder(cells, geom, basis.eye, ordering === 'depth' ? 'depth' : 'topological');
  const groups = merge && ordering !== 'depth' && mergeThreshold > 0
    ? drawGroups(cells, order, geom, basis.eye, {
      threshold: mergeThreshold * scene.tile, slots,
      eligible: (c) => c.levels.length === 1 && c.levels[0].level === 0,
    })
    : [];
  return { cells, order, cycles, weak, groups };
}

// ------------------------------------------------------------------ what a cell draws

export const NONE = 0xffffffff;

/**
 * Screen-door partition of a LOD cross-fade: [lo, hi) of doorway() (shaders.js, in [0, 1)) per
 * level of lodFor's list. One level: [0, 2) (every pixel). Two (weights 1−w, w): level l keeps
 * doorway < 1−w, level l+1 doorway ≥ 1−w, so each pixel shows exactly one level at full
 * opacity and coverage in the band is that of one level (the far field hand-over uses the same
 * doorway function).
 */
export function lodDoors(levels) {
  if (levels.length < 2) return [[0, 2]];
  const cut = 1 - levels[1].weight;
  return [[0, cut], [cut, 2]];
}

/**
 * Per-splat survival table laid over a tileset: out[start + k] = table[k] for every level range
 * [start, count] (the hash of a splat is that of its index k within its level). `table` is the
 * WebAssembly splatHashes(maxCount) (Uint32Array, at least the longest range).
 */
export function spreadHashes(tiles, total, table) {
  const out = new Uint32Array(total);
  for (const t of tiles) for (const [start, count] of t.levels) out.set(table.subarray(0, count), start);
  return out;
}

/**
 * The draws of one unmerged cell (position k of visibleCells output `cells`), given the scene
 * cells C and the tileset: per level of the cell's LOD list, its own tile's range with threshold
 * ownT[c] and, when alt[c] ≠ NONE, the runner-up tile's range with altT[c]. A splat s of a draw
 * is drawn when hashes[s] ≤ t (select.rs / scene.rs: hash of the index within its level).
 * Returns [{level, tile, start, count, t, door: [lo, hi], alt}].
 */
export function cellDraws(cell, C, tiles) {
  const c = cell.c;
  const ownT = C.ownT ? C.ownT[c] >>> 0 : NONE;
  const alt = C.alt ? C.alt[c] >>> 0 : NONE;
  const doors = lodDoors(cell.levels);
  const out = [];
  cell.levels.forEach(({ level }, q) => {
    const own = tiles[C.tile[c]];
    const lv = Math.min(level, own.levels.length - 1);
    out.push({ level, tile: C.tile[c], start: own.levels[lv][0], count: own.levels[lv][1], t: ownT, door: doors[q], alt: false });
    if (alt !== NONE) {
      const at = tiles[alt];
      const la = Math.min(level, at.levels.length - 1);
      out.push({ level, tile: alt, start: at.levels[la][0], count: at.levels[la][1], t: C.altT[c] >>> 0, door: doors[q], alt: true });
    }
  });
  return out;
}

/**
 * Class edges inside tiles: every cell with a neighbour (of 8) of the other class gets the
 * other class's tile for its own edge code as `alt` (the first such tile in manifest order, as
 * scene.rs picks tiles), both drawn in full (ownT = altT = NONE), and `sub[c] = 1`; the splat
 * shader then keeps each splat on its class's side of the continuous edge field (edgeField).
 * Two classes only; cells without a tile of the other class for their code keep their draws.
 * C = {tile, alt, ownT, altT, cls}, n the grid side, tiles the manifest's [{code, class}].
 * Returns {alt, ownT, altT, sub, edges} (new arrays; edges = cells given a sub-tile edge).
 */
export function subTileEdges(C, n, tiles) {
  const nn = n * n;
  const alt = Uint32Array.from(C.alt ?? new Uint32Array(nn).fill(NONE));
  const ownT = Uint32Array.from(C.ownT ?? new Uint32Array(nn).fill(NONE));
  const altT = Uint32Array.from(C.altT ?? new Uint32Array(nn));
  const sub = new Uint8Array(nn);
  const byKey = new Map();
  tiles.forEach((t, i) => {
    const key = `${t.class}:${t.code.join(',')}`;
    if (!byKey.has(key)) byKey.set(key, i);
  });
  let edges = 0;
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      const c = j * n + i;
      const k = C.cls[c];
      let edge = false;
      for (let dj = -1; dj <= 1 && !edge; dj++) {
        for (let di = -1; di <= 1; di++) {
          const ii = i + di, jj = j + dj;
          if ((di || dj) && ii >= 0 && jj >= 0 && ii < n && jj < n && C.cls[jj * n + ii] !== k) { edge = true; break; }
        }
      }
      if (!edge) continue;
      const own = tiles[C.tile[c]];
      const other = byKey.get(`${1 - k}:${own.code.join(',')}`);
      if (other === undefined) continue;
      alt[c] = other;
      ownT[c] = NONE;
      altT[c] = NONE;
      sub[c] = 1;
      edges++;
    }
  }
  return { alt, ownT, altT, sub, edges };
}

/**
 * The signed class field the edge decision reads, one value per cell (c = j·n + i):
 * ±(0.25 + 0.75·strength), + for class 0 (strength clamped to 0..1, so a weak cell still holds
 * its side against the noise warp of ±EDGE_WARP). Sampled bilinearly between cell centres, its
 * zero line is the class edge inside the tiles, nearer the less certain cell.
 */
export function edgeField(cls, strength, n) {
  const out = new Float32Array(n * n);
  for (let c = 0; c < n * n; c++) {
    const s = 0.25 + 0.75 * Math.max(0, Math.min(1, strength ? strength[c] : 1));
    out[c] = cls[c] === 0 ? s : -s;
  }
  return out;
}

/** Slots a cell needs in a merged group: 2 when it blends (own + alt range), else 1. */
export const cellSlots = (C) => (cell) => (C.alt && (C.alt[cell.c] >>> 0) !== NONE ? 2 : 1);

/**
 * Slots of a merged group (positions into `cells`, level 0 only): one per drawn range, in the
 * group's order, the alt range right after its cell: [{k, c, tile, range: [start, count], t, alt}].
 * Slot s of the merged stream (packed s << INDEX_BITS | index) is entry s.
 */
export function groupSlots(group, cells, C, tiles) {
  const slots = [];
  for (const k of group) for (const d of cellDraws({ ...cells[k], levels: [{ level: 0, weight: 1 }] }, C, tiles)) {
    slots.push({ k, c: cells[k].c, tile: d.tile, range: [d.start, d.count], t: d.t, alt: d.alt });
  }
  return slots;
}

/** Rotate a world direction into the tile frame of a grid turned by angleDeg (spinᵀ·v). */
export function toTileFrame(v, angleDeg) {
  const a = (angleDeg * Math.PI) / 180, c = Math.cos(a), s = Math.sin(a);
  return [c * v[0] + s * v[1], -s * v[0] + c * v[1], v[2]];
}

/** Quantise a vector to 2 decimals into a cache key. */
export const key2 = (v) => v.map((x) => (Math.round(x * 100) / 100).toFixed(2)).join(',');

// ------------------------------------------------------------------ far field helpers

/** Opacity-weighted mean colour (0..1) of splats start..start+count. */
export function meanColour(colors, start, count) {
  let r = 0, g = 0, b = 0, w = 0;
  for (let k = start; k < start + count; k++) {
    const a = colors[k * 4 + 3] / 255;
    r += a * colors[k * 4]; g += a * colors[k * 4 + 1]; b += a * colors[k * 4 + 2]; w += a;
  }
  return w > 0 ? [r / w / 255, g / w / 255, b / w / 255] : [0.5, 0.5, 0.5];
}

/**
 * Tile levelling: per tile, per channel, the gain that brings its level-0 mean colour to the
 * mean of its class's tiles, clamp(classMean / tileMean, 0.6, 1.6) — tiles cut from lighter and
 * darker parts of a capture no longer show the grid as light and dark squares; the texture
 * inside each tile is kept. tiles [{class, levels}], colors RGBA8 per splat. Float32Array(T·3).
 */
export function tileLevels(tiles, colors) {
  const means = tiles.map((t) => meanColour(colors, t.levels[0][0], t.levels[0][1]));
  const sums = new Map();
  tiles.forEach((t, k) => {
    const s = sums.get(t.class ?? 0) ?? [0, 0, 0, 0];
    for (let q = 0; q < 3; q++) s[q] += means[k][q];
    s[3] += 1;
    sums.set(t.class ?? 0, s);
  });
  const out = new Float32Array(tiles.length * 3);
  tiles.forEach((t, k) => {
    const s = sums.get(t.class ?? 0);
    for (let q = 0; q < 3; q++) out[k * 3 + q] = Math.min(1.6, Math.max(0.6, s[q] / s[3] / Math.max(means[k][q], 1e-4)));
  });
  return out;
}

/** The splat renderers' clip planes (view depth, in the scene's units). */
export const NEAR = 0.05, FAR_PLANE = 50000;

/** Both splat renderers' frame options where the page gives none (WebGPU ignores the last two). */
export const RENDER_DEFAULTS = {
  exposure: 1, saturation: 1, shade: 0.4, macro: 0.5, level: 1, fog: 0, lodBase: 8, farField: true, horizon: true, water: true, underlay: true, detail: true,
  overlay: 0, renderScale: 1, background: [0.62, 0.7, 0.8], ordering: 'topological', mergeThreshold: 0.5,
};

/**
 * The start of a splat renderer's frame: its start time, the options over RENDER_DEFAULTS, the
 * detail setting kept on the renderer and its canvas sized for the render scale; returns
 * `{t0, o, W, H}` (the drawing buffer's size).
 */
export function beginFrame(renderer, opts) {
  const t0 = performance.now();
  const o = { ...RENDER_DEFAULTS, ...opts };
  renderer.detailOn = o.detail;
  renderer.resize(o.renderScale);
  return { t0, o, W: renderer.canvas.width, H: renderer.canvas.height };
}

/**
 * The per-tile colour info both renderers upload (T rows of RGBA each, three blocks): the gain
 * from the splats' mean colour to the atlas's (colourGain), the splats' mean, and the tile
 * levelling gains `lv` (tileLevels). Float32Array(T·3·4).
 */
export function tileInfo(ts, atlas, lv) {
  const T = ts.tiles.length;
  const info = new Float32Array(T * 3 * 4);
  ts.tiles.forEach((t, k) => {
    const mean = meanColour(ts.splats.colors, t.levels[0][0], t.levels[0][1]);
    const am = (atlas.meanRgb && atlas.meanRgb[k]) || mean;
    const g = colourGain(mean, am);
    info.set([g[0], g[1], g[2], 1], k * 4);
    info.set([mean[0], mean[1], mean[2], 1], (T + k) * 4);
    info.set([lv[k * 3], lv[k * 3 + 1], lv[k * 3 + 2], 1], (2 * T + k) * 4);
  });
  return info;
}

/** The tileset's survival hashes (a Uint32Array per splat), or zeros with a warning: then every splat survives every threshold. */
export function survivalHashes(ts) {
  const n = ts.splats.count;
  if (ts.hashes instanceof Uint32Array && ts.hashes.length >= n) return ts.hashes;
  console.warn('tileset without hashes (Uint32Array per splat): every splat survives every threshold');
  return new Uint32Array(n);
}

/** Sizes `canvas`'s drawing buffer to its CSS size × the device pixel ratio (at most 2) × `renderScale`. */
export function fitCanvas(canvas, renderScale) {
  const dpr = Math.min(2, (typeof window !== 'undefined' && window.devicePixelRatio) || 1);
  const w = Math.max(1, Math.round((canvas.clientWidth || canvas.width) * dpr * renderScale));
  const h = Math.max(1, Math.round((canvas.clientHeight || canvas.height) * dpr * renderScale));
  if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
}

/**
 * The memoised lattice height function of `holder.scene` for this detail setting, kept in
 * `holder.lattice` (both renderers; they reset it with a new scene).
 */
export function memoLattice(holder, detailOn) {
  if (!holder.lattice || holder.lattice.detail !== detailOn) {
    const scene = holder.scene;
    holder.lattice = { detail: detailOn, f: latticeHeight(scene, (x, y) => heightAt(scene, x, y, detailOn)) };
  }
  return holder.lattice.f;
}

/** The horizon skirt: rings around the grid, the outermost at HORIZON_SCALE × the grid's half-size. */
export const HORIZON_RINGS = 16, HORIZON_SCALE = 8;

/**
 * The far-field mesh: m × m vertices over the n × n grid (in tiles from its centre, y north),
 * then, for the horizon, HORIZON_RINGS square rings outside it, each the grid's perimeter
 * scaled by a constant ratio up to HORIZON_SCALE × its half-size; the first ring is stitched to
 * the grid's own perimeter vertices, so no crack opens. Returns {v: Float32Array (x, y),
 * idx: Uint32Array (triangles: the grid's first), gridCount (indices of the grid part)}.
 */
export function farMesh(n, m) {
  const P = 4 * (m - 1);
  const v = new Float32Array((m * m + HORIZON_RINGS * P) * 2);
  for (let r = 0; r < m; r++) for (let c = 0; c < m; c++) {
    v[(r * m + c) * 2] = -n / 2 + (n * c) / (m - 1);
    v[(r * m + c) * 2 + 1] = n / 2 - (n * r) / (m - 1);
  }
  const idx = [];
  for (let r = 0; r < m - 1; r++) for (let c = 0; c < m - 1; c++) {
    const a = r * m + c, b = a + 1, d2 = a + m, e = d2 + 1;
    idx.push(a, d2, b, b, d2, e);
  }
  const gridCount = idx.length;
  // The grid's perimeter, clockwise from the north-west corner.
  const rim = [];
  for (let c = 0; c < m - 1; c++) rim.push(c);
  for (let r = 0; r < m - 1; r++) rim.push(r * m + m - 1);
  for (let c = m - 1; c > 0; c--) rim.push((m - 1) * m + c);
  for (let r = m - 1; r > 0; r--) rim.push(r * m);
  const g = Math.pow(HORIZON_SCALE, 1 / HORIZON_RINGS);
  let prev = rim;
  for (let q = 1; q <= HORIZON_RINGS; q++) {
    const k = Math.pow(g, q), base = m * m + (q - 1) * P;
    const ring = rim.map((vi, i) => {
      v[(base + i) * 2] = v[vi * 2] * k;
      v[(base + i) * 2 + 1] = v[vi * 2 + 1] * k;
      return base + i;
    });
    for (let i = 0; i < P; i++) {
      const j = (i + 1) % P;
      idx.push(prev[i], ring[i], prev[j], prev[j], ring[i], ring[j]);
    }
    prev = ring;
  }
  return { v, idx: Uint32Array.from(idx), gridCount };
}

/** Far-field colour gain per channel: clamp(splatMean / atlasMean, 0.5, 2). */
export function colourGain(splatMean, atlasMean) {
  return splatMean.map((s, k) => Math.min(2, Math.max(0.5, s / Math.max(atlasMean[k], 1e-4))));
}

/**
 * Bake a top-down atlas in the browser when the tileset has none: per tile the coarsest level
 * with ≥ 3000 splats (else level 0), `res` px, each splat's xy Gaussian footprint (covariance
 * from scale and rotation) accumulated as an opacity-weighted average, uncovered pixels filled
 * with the tile's mean colour. Image rows run north → south, tiles left to right then top to
 * bottom in tile order. Returns {image:{width,height,data}, res, cols, rows, meanRgb}.
 */
export function bakeAtlas(ts, res = 48) {
  const tiles = ts.tiles, size = ts.size, S = ts.splats;
  const cols = Math.ceil(Math.sqrt(tiles.length)), rows = Math.ceil(tiles.length / cols);
  const W = cols * res, H = rows * res;
  const data = new Uint8Array(W * H * 4);
  const meanRgb = [];
  const acc = new Float32Array(res * res * 4);
  tiles.forEach((t, ti) => {
    let lv = 0;
    for (let l = t.levels.length - 1; l >= 0; l--) if (t.levels[l][1] >= 3000) { lv = l; break; }
    const [start, count] = t.levels[lv];
    acc.fill(0);
    const px = res / size;
    for (let k = start; k < start + count; k++) {
      const x = S.positions[k * 3], y = S.positions[k * 3 + 1];
      const [w, qx, qy, qz] = [S.rotations[k * 4], S.rotations[k * 4 + 1], S.rotations[k * 4 + 2], S.rotations[k * 4 + 3]];
      const ql = Math.hypot(w, qx, qy, qz) || 1;
      const [qw, a, b, c] = [w / ql, qx / ql, qy / ql, qz / ql];
      const R = [
        [1 - 2 * (b * b + c * c), 2 * (a * b - qw * c), 2 * (a * c + qw * b)],
        [2 * (a * b + qw * c), 1 - 2 * (a * a + c * c), 2 * (b * c - qw * a)],
      ];
      const s = [S.scales[k * 3], S.scales[k * 3 + 1], S.scales[k * 3 + 2]];
      // 2×2 xy covariance in pixels² (plus a half-pixel dilation)
      let sxx = 0.25, sxy = 0, syy = 0.25;
      for (let m = 0; m < 3; m++) {
        const u = R[0][m] * s[m] * px, v = R[1][m] * s[m] * px;
        sxx += u * u; sxy += u * v; syy += v * v;
      }
      const det = sxx * syy - sxy * sxy;
      const ixx = syy / det, ixy = -sxy / det, iyy = sxx / det;
      const cx = (x / size + 0.5) * res, cy = (0.5 - y / size) * res; // row 0 north
      const r = Math.ceil(3 * Math.sqrt(Math.max(sxx, syy)));
      const op = S.colors[k * 4 + 3] / 255;
      for (let py = Math.max(0, Math.floor(cy - r)); py <= Math.min(res - 1, Math.ceil(cy + r)); py++) {
        for (let pxl = Math.max(0, Math.floor(cx - r)); pxl <= Math.min(res - 1, Math.ceil(cx + r)); pxl++) {
          const dx = pxl + 0.5 - cx, dy = py + 0.5 - cy; // dy in image rows (south positive)
          const e = dx * dx * ixx - 2 * dx * dy * ixy + dy * dy * iyy; // y flipped: off-diagonal sign flips
          if (e > 9) continue;
          const g = op * Math.exp(-0.5 * e);
          const o = (py * res + pxl) * 4;
          acc[o] += g * S.colors[k * 4]; acc[o + 1] += g * S.colors[k * 4 + 1]; acc[o + 2] += g * S.colors[k * 4 + 2]; acc[o + 3] += g;
        }
      }
    }
    const mean = meanColour(S.colors, start, count);
    const col = ti % cols, row = Math.floor(ti / cols);
    let mr = 0, mg = 0, mb = 0, mn = 0;
    for (let py = 0; py < res; py++) for (let pxl = 0; pxl < res; pxl++) {
      const o = (py * res + pxl) * 4;
      const cover = Math.min(1, acc[o + 3] * 2);
      const wsum = acc[o + 3] || 1;
      const rgb = [0, 1, 2].map((ch) => (acc[o + 3] > 0 ? acc[o + ch] / wsum / 255 : 0) * cover + mean[ch] * (1 - cover));
      const d = ((row * res + py) * W + col * res + pxl) * 4;
      data[d] = Math.round(rgb[0] * 255); data[d + 1] = Math.round(rgb[1] * 255); data[d + 2] = Math.round(rgb[2] * 255); data[d + 3] = 255;
      mr += rgb[0]; mg += rgb[1]; mb += rgb[2]; mn++;
    }
    meanRgb.push([mr / mn, mg / mn, mb / mn]);
  });
  return { image: { width: W, height: H, data }, res, cols, rows, meanRgb, baked: true };
}

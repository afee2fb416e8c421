// Worlds (issue 21) in the mesh look: a generated height-field world drawn as its coloured
// ground, water surfaces at their depth, road ribbons (bridges lifted, tunnel portals as dark
// arches) and trees as instanced crowns.
//
// A world is a plain object (what `generateWorld` of the WebAssembly module returns, turned
// into typed arrays by `worldFromWasm`):
//   { generator, seed, nx, ny, dx, dy,
//     height: Float32Array ny·nx (metres; row 0 = the SOUTH edge, y north, column 0 west),
//     water:  Float32Array ny·nx (water depth above the ground, metres; 0 = dry),
//     color:  Uint8Array ny·nx·3 (sRGB ground colour per cell),
//     roads:  { positions: Float32Array xyz, colors: Uint8Array rgb, indices: Uint32Array,
//               bridge: Uint8Array per vertex, tunnel: Uint8Array per vertex } | null,
//     trees:  Float32Array [x, y, z, crownRadius, height]*,
//     branches: { positions: Float32Array xyz, normals: Float32Array xyz, colors: Uint8Array rgb,
//                 indices: Uint32Array } | null   (the forest's trees meshed: bark and leaves) }
// Positions (roads, trees) are in the world frame: metres, x east from the west edge, y north
// from the south edge, z up; cell (i, j) has its centre at ((i + ½)·dx, (j + ½)·dy).
//
// The ground is the mesh look's own terrain pass (mesh.js MeshView: lighting, cast shadows,
// ambient occlusion, skirt, vista rings, fog, AgX), with the world's colour as its albedo, one
// texel per grid vertex: the texture's bilinear filter is the vertex colours' interpolation.
// Everything else is built here as plain geometry (the builders below need no GL and are
// unit-tested) and drawn over it in the same frame with the same camera and light.
// View frame: the world centred on the origin, x = (i + ½)·dx − nx·dx/2, as mesh.js places the
// ground's vertices.

import { MeshView, MESH_DEFAULTS, sunDirection } from './mesh.js';
import { cameraBasis, viewProjection } from './camera.js';
import { program as link, uploadBatch } from './gl-util.js';
import { OVERLAY_VS, OVERLAY_FS, TREE_VS } from './world-shaders.js';
import { VOXEL_GENERATORS } from './voxels.js';

/** Height-field worlds the viewer opens (pyworldgen's names); the other pyworldgen generators are not height fields. */
export const WORLD_GENERATORS = ['composite', 'flat', 'forest', 'landscape', 'roads'];
/** Randomness choices (`compat`): pyworldgen's worlds, or ours. */
export const WORLD_COMPATS = ['pyworldgen', 'canonical'];
/** URL parameters of a world link. */
export const WORLD_URL_KEYS = ['world', 'seed', 'size', 'compat', 'radius'];
/** Largest `size` (cells per side) the page generates. */
export const MAX_WORLD_SIZE = 1024;

/** sRGB colours of the overlays. */
export const WORLD_COLOURS = {
  asphalt: [62, 62, 64],
  bridge: [156, 152, 144],
  portal: [14, 12, 11],
  headwall: [128, 124, 116],
  shallow: [70, 128, 140],
  deep: [12, 40, 78],
};

const clamp = (x, a, b) => Math.min(b, Math.max(a, x));

// ===================================================================== URL

/**
 * Split a world link off a query string: `?world=composite&seed=atlas&size=128&compat=canonical`.
 * Returns {world: {generator, seed, size, compat} | null, errors: [text], rest: the query without
 * the world's keys (what the rest of the page parses)}. Without `world` the query is returned
 * unchanged (its `seed` and `size` then belong to the generated splat terrain).
 */
export function parseWorldParams(search) {
  const q = new URLSearchParams(search);
  if (!q.has('world')) return { world: null, errors: [], rest: q.toString() };
  const errors = [];
  const generator = q.get('world');
  const seed = q.get('seed') ?? '0';
  const sizeText = q.get('size');
  const compat = q.get('compat') ?? 'pyworldgen';
  const radiusText = q.get('radius');
  for (const k of WORLD_URL_KEYS) q.delete(k);
  const rest = q.toString();
  const solid = VOXEL_GENERATORS.includes(generator);
  if (!WORLD_GENERATORS.includes(generator) && !solid) {
    errors.push(`unknown world "${generator}"; worlds: ${[...WORLD_GENERATORS, ...VOXEL_GENERATORS].sort().join(', ')}`);
  }
  if (!WORLD_COMPATS.includes(compat)) errors.push(`compat "${compat}" must be ${WORLD_COMPATS.join(' or ')}`);
  let size = null;
  if (sizeText !== null) {
    size = Number(sizeText);
    if (solid) errors.push(`world size: a 3-D world (${generator}) streams around the camera and has no size`);
    else if (!Number.isInteger(size) || size < 2 || size > MAX_WORLD_SIZE) {
      errors.push(`world size "${sizeText}" must be a whole number of cells 2..${MAX_WORLD_SIZE}`);
    }
  }
  if (seed === '') errors.push('world seed is empty (an integer or a word: seed=atlas)');
  let radius = null;
  if (radiusText !== null) {
    radius = Number(radiusText);
    if (!solid) errors.push(`world radius: only a 3-D world streams chunks (${generator} is a height field)`);
    else if (!Number.isInteger(radius) || radius < 1 || radius > 12) errors.push(`world radius "${radiusText}" must be a whole number of chunks 1..12`);
  }
  if (errors.length) return { world: null, errors, rest };
  const world = { generator, seed, size, compat, solid };
  if (radius !== null) world.radius = radius;
  return { world, errors, rest };
}

/** The query of a world link (the inverse of `parseWorldParams` for its keys). */
export function worldQuery(spec) {
  const q = new URLSearchParams({ world: spec.generator, seed: String(spec.seed) });
  if (spec.size != null) q.set('size', String(spec.size));
  if (spec.compat && spec.compat !== 'pyworldgen') q.set('compat', spec.compat);
  if (spec.radius != null) q.set('radius', String(spec.radius));
  return q.toString();
}

// ===================================================================== the contract

/** Check a world object against the contract; throws an Error naming the field and its numbers. */
export function checkWorld(w) {
  const { nx, ny, dx, dy } = w ?? {};
  if (!(Number.isInteger(nx) && Number.isInteger(ny) && nx >= 2 && ny >= 2)) throw new Error(`world: grid ${nx} × ${ny} (needs at least 2 × 2)`);
  if (!(dx > 0 && dy > 0 && Number.isFinite(dx) && Number.isFinite(dy))) throw new Error(`world: cell size ${dx} × ${dy} m`);
  const n = nx * ny;
  const need = (name, arr, len, Type) => {
    if (!(arr instanceof Type) || arr.length !== len) {
      throw new Error(`world: ${name} must be a ${Type.name} of ${len} values (${nx} × ${ny}), has ${arr?.length}`);
    }
  };
  need('height', w.height, n, Float32Array);
  need('water', w.water, n, Float32Array);
  if (w.color != null) need('color', w.color, 3 * n, Uint8Array);
  for (let k = 0; k < n; k++) {
    if (!Number.isFinite(w.height[k]) || !Number.isFinite(w.water[k])) throw new Error(`world: height ${w.height[k]} / water ${w.water[k]} at cell ${k}`);
  }
  if (w.trees != null && (!(w.trees instanceof Float32Array) || w.trees.length % 5 !== 0)) {
    throw new Error(`world: trees must be a Float32Array of 5 values per tree, has ${w.trees?.length}`);
  }
  if (w.roads != null) checkRoads(w.roads);
  if (w.branches != null) checkBranches(w.branches);
  return w;
}

function checkBranches(b) {
  const nv = b.positions?.length / 3;
  if (!(b.positions instanceof Float32Array) || !Number.isInteger(nv)) throw new Error(`world branches: positions must be xyz triples, has ${b.positions?.length}`);
  if (!(b.normals instanceof Float32Array) || b.normals.length !== 3 * nv) throw new Error(`world branches: normals must be a Float32Array of ${3 * nv} values, has ${b.normals?.length}`);
  if (!(b.colors instanceof Uint8Array) || b.colors.length !== 3 * nv) throw new Error(`world branches: colors must be a Uint8Array of ${3 * nv} values, has ${b.colors?.length}`);
  if (!(b.indices instanceof Uint32Array) || b.indices.length % 3 !== 0) throw new Error(`world branches: indices must be triangles, has ${b.indices?.length}`);
  for (const i of b.indices) if (i >= nv) throw new Error(`world branches: index ${i} ≥ ${nv} vertices`);
}

/**
 * The forest's branch mesh in the view frame (x − nx·dx/2, y − ny·dy/2), colours with alpha:
 * {positions, colors (rgba), normals, indices, triangles}, or null without branches.
 */
export function branchGeometry(w) {
  const b = w.branches;
  if (!b || !b.indices.length) return null;
  const [ox, oy] = worldOffset(w);
  const nv = b.positions.length / 3;
  const positions = new Float32Array(b.positions.length), colors = new Uint8Array(4 * nv);
  for (let v = 0; v < nv; v++) {
    positions[3 * v] = b.positions[3 * v] - ox;
    positions[3 * v + 1] = b.positions[3 * v + 1] - oy;
    positions[3 * v + 2] = b.positions[3 * v + 2];
    colors.set([b.colors[3 * v], b.colors[3 * v + 1], b.colors[3 * v + 2], 255], 4 * v);
  }
  return { positions, colors, normals: b.normals, indices: b.indices, triangles: b.indices.length / 3 };
}

function checkRoads(r) {
  const nv = r.positions?.length / 3;
  if (!(r.positions instanceof Float32Array) || !Number.isInteger(nv)) throw new Error(`world roads: positions must be xyz triples, has ${r.positions?.length}`);
  const per = [['colors', r.colors, 3 * nv, Uint8Array], ['bridge', r.bridge, nv, Uint8Array], ['tunnel', r.tunnel, nv, Uint8Array]];
  for (const [name, a, len, T] of per) {
    if (!(a instanceof T) || a.length !== len) throw new Error(`world roads: ${name} must be a ${T.name} of ${len} values (${nv} vertices), has ${a?.length}`);
  }
  if (!(r.indices instanceof Uint32Array) || r.indices.length % 3 !== 0) throw new Error(`world roads: indices must be triangles, has ${r.indices?.length}`);
  for (const i of r.indices) if (i >= nv) throw new Error(`world roads: index ${i} ≥ ${nv} vertices`);
}

/** The view frame's offset: world (x, y) − offset = drawn (x, y). */
export function worldOffset(w) {
  return [0.5 * w.nx * w.dx, 0.5 * w.ny * w.dy];
}

/** Cell index of world point (x, y) (clamped to the grid). */
function cellAt(w, x, y) {
  const i = clamp(Math.floor(x / w.dx), 0, w.nx - 1), j = clamp(Math.floor(y / w.dy), 0, w.ny - 1);
  return j * w.nx + i;
}

/**
 * Bounds in the view frame: {halfX, halfY, lo, hi} with lo the lowest ground and hi the highest
 * of ground, water surface, road and tree top (metres, before exaggeration).
 */
export function worldBounds(w) {
  let lo = Infinity, hi = -Infinity;
  for (let k = 0; k < w.height.length; k++) {
    lo = Math.min(lo, w.height[k]);
    hi = Math.max(hi, w.height[k] + Math.max(w.water[k], 0));
  }
  const p = w.roads?.positions;
  if (p) for (let k = 2; k < p.length; k += 3) hi = Math.max(hi, p[k]);
  const t = w.trees;
  if (t) for (let k = 0; k < t.length; k += 5) hi = Math.max(hi, t[k + 2] + t[k + 4]);
  return { halfX: 0.5 * w.nx * w.dx, halfY: 0.5 * w.ny * w.dy, lo, hi };
}

// ===================================================================== ground

/** Heights north-up (row 0 north), as mesh.js takes them. */
export function northUpHeights(w) {
  const out = new Float32Array(w.nx * w.ny);
  for (let j = 0; j < w.ny; j++) out.set(w.height.subarray(j * w.nx, (j + 1) * w.nx), (w.ny - 1 - j) * w.nx);
  return out;
}

/**
 * The ground colour as a north-up RGB image {width, height, data} (mesh.js albedo); without a
 * `color` field, a plain palette by height (green lowland, brown slopes, grey heights).
 */
export function groundAlbedo(w) {
  const { nx, ny } = w;
  const data = new Uint8Array(nx * ny * 3);
  const b = w.color ? null : worldBounds(w);
  for (let j = 0; j < ny; j++) {
    const dst = (ny - 1 - j) * nx * 3;
    if (w.color) {
      data.set(w.color.subarray(j * nx * 3, (j + 1) * nx * 3), dst);
      continue;
    }
    for (let i = 0; i < nx; i++) {
      const t = (w.height[j * nx + i] - b.lo) / Math.max(b.hi - b.lo, 1e-6);
      const c = t < 0.5 ? mix3([92, 112, 58], [120, 100, 70], t / 0.5) : mix3([120, 100, 70], [150, 146, 140], (t - 0.5) / 0.5);
      data.set(c, dst + 3 * i);
    }
  }
  return { width: nx, height: ny, data };
}

function mix3(a, b, t) {
  return [0, 1, 2].map((q) => Math.round(a[q] + (b[q] - a[q]) * t));
}

// ===================================================================== water

/** sRGB colour and alpha (0..255) of water `d` metres deep: shallow green-blue, clear → deep navy, opaque. */
export function waterColour(d) {
  const t = 1 - Math.exp(-Math.max(d, 0) / 2.5);
  const [s, e] = [WORLD_COLOURS.shallow, WORLD_COLOURS.deep];
  return [...mix3(s, e, t), Math.round(255 * (0.45 + 0.47 * t))];
}

/**
 * Water surfaces: one quad per cell with depth > 0, its corners shared with the neighbouring wet
 * cells, at the mean water surface (height + depth) of the wet cells around each corner, so a
 * river's surface is continuous along its bed. Corner (i, j) lies at (i·dx, j·dy) in the world
 * frame. Returns {positions: Float32Array xyz (view frame), colors: Uint8Array rgba,
 * indices: Uint32Array, cells: wet cells, vertices}; triangles counter-clockwise from above.
 */
export function waterGeometry(w) {
  const { nx, ny, dx, dy } = w;
  const cx = nx + 1;
  const sum = new Float64Array(cx * (ny + 1)), depth = new Float64Array(cx * (ny + 1)), cnt = new Uint8Array(cx * (ny + 1));
  let cells = 0;
  for (let j = 0; j < ny; j++) {
    for (let i = 0; i < nx; i++) {
      const k = j * nx + i, d = w.water[k];
      if (!(d > 0)) continue;
      cells += 1;
      for (const c of [j * cx + i, j * cx + i + 1, (j + 1) * cx + i, (j + 1) * cx + i + 1]) {
        sum[c] += w.height[k] + d;
        depth[c] += d;
        cnt[c] += 1;
      }
    }
  }
  const id = new Int32Array(cx * (ny + 1)).fill(-1);
  let nv = 0;
  for (let c = 0; c < id.length; c++) if (cnt[c]) id[c] = nv++;
  const [ox, oy] = worldOffset(w);
  const positions = new Float32Array(3 * nv), colors = new Uint8Array(4 * nv);
  for (let c = 0; c < id.length; c++) {
    const v = id[c];
    if (v < 0) continue;
    const i = c % cx, j = (c - i) / cx;
    positions.set([i * dx - ox, j * dy - oy, sum[c] / cnt[c]], 3 * v);
    colors.set(waterColour(depth[c] / cnt[c]), 4 * v);
  }
  const indices = new Uint32Array(6 * cells);
  let o = 0;
  for (let j = 0; j < ny; j++) {
    for (let i = 0; i < nx; i++) {
      if (!(w.water[j * nx + i] > 0)) continue;
      const a = id[j * cx + i], b = id[j * cx + i + 1], c = id[(j + 1) * cx + i], d = id[(j + 1) * cx + i + 1];
      indices.set([a, b, d, a, d, c], o);
      o += 6;
    }
  }
  return { positions, colors, indices, cells, vertices: nv };
}

// ===================================================================== roads

/** Area-weighted vertex normals of a triangle list (up where a vertex has no triangle). */
export function vertexNormals(positions, indices) {
  const n = new Float32Array(positions.length);
  const p = (k, q) => positions[3 * k + q];
  for (let t = 0; t < indices.length; t += 3) {
    const [a, b, c] = [indices[t], indices[t + 1], indices[t + 2]];
    const u = [p(b, 0) - p(a, 0), p(b, 1) - p(a, 1), p(b, 2) - p(a, 2)];
    const v = [p(c, 0) - p(a, 0), p(c, 1) - p(a, 1), p(c, 2) - p(a, 2)];
    let f = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
    if (f[2] < 0) f = f.map((x) => -x); // ribbons face up whatever their winding
    for (const k of [a, b, c]) for (let q = 0; q < 3; q++) n[3 * k + q] += f[q];
  }
  for (let k = 0; k < n.length; k += 3) {
    const l = Math.hypot(n[k], n[k + 1], n[k + 2]);
    if (l > 0) for (let q = 0; q < 3; q++) n[k + q] /= l;
    else n[k + 2] = 1;
  }
  return n;
}

/**
 * Road ribbons in the view frame. Every vertex is lifted by `lift` metres above its given height
 * (no z-fighting with the ground it was graded into); a bridge vertex stands at least
 * `clearance` metres above the water surface of its cell and is drawn in the bridge tone; the
 * others keep their colour (asphalt when the colours are all zero). Triangles whose three
 * vertices are all in a tunnel are left out: the tunnel's interior stays hidden under the ground.
 * Returns {positions, colors (rgba), normals, indices, vertices, triangles, hidden, bridgeVertices, tunnelVertices}.
 */
export function roadGeometry(w, { lift = 0.05 * Math.min(w.dx, w.dy), clearance = 0.6 } = {}) {
  const r = w.roads;
  if (!r) return null;
  const nv = r.positions.length / 3;
  const [ox, oy] = worldOffset(w);
  const positions = new Float32Array(3 * nv), colors = new Uint8Array(4 * nv);
  const grey = !r.colors.some((c) => c !== 0);
  let bridgeVertices = 0, tunnelVertices = 0;
  for (let v = 0; v < nv; v++) {
    const x = r.positions[3 * v], y = r.positions[3 * v + 1];
    let z = r.positions[3 * v + 2] + lift;
    let rgb = grey ? WORLD_COLOURS.asphalt : [r.colors[3 * v], r.colors[3 * v + 1], r.colors[3 * v + 2]];
    if (r.bridge[v]) {
      const k = cellAt(w, x, y);
      z = Math.max(z, w.height[k] + Math.max(w.water[k], 0) + clearance);
      rgb = WORLD_COLOURS.bridge;
      bridgeVertices += 1;
    }
    if (r.tunnel[v]) tunnelVertices += 1;
    positions.set([x - ox, y - oy, z], 3 * v);
    colors.set([...rgb, 255], 4 * v);
  }
  const kept = [];
  for (let t = 0; t < r.indices.length; t += 3) {
    const [a, b, c] = [r.indices[t], r.indices[t + 1], r.indices[t + 2]];
    if (r.tunnel[a] && r.tunnel[b] && r.tunnel[c]) continue;
    kept.push(a, b, c);
  }
  const indices = Uint32Array.from(kept);
  return {
    positions, colors, normals: vertexNormals(positions, indices), indices, vertices: nv,
    triangles: indices.length / 3, hidden: r.indices.length / 3 - indices.length / 3, bridgeVertices, tunnelVertices,
  };
}

/** Vertex adjacency of a triangle list: a Map from vertex to the Set of vertices it shares a triangle with. */
function adjacency(indices) {
  const adj = new Map();
  const link2 = (a, b) => {
    if (!adj.has(a)) adj.set(a, new Set());
    adj.get(a).add(b);
  };
  for (let t = 0; t < indices.length; t += 3) {
    const tri = [indices[t], indices[t + 1], indices[t + 2]];
    for (const a of tri) for (const b of tri) if (a !== b) link2(a, b);
  }
  return adj;
}

/**
 * Tunnel portals: where a ribbon passes from open road into a tunnel. The tunnel vertices that
 * share a triangle with an open vertex are grouped by shared triangles; each group is one mouth.
 * Its direction points from the group toward its open neighbours (out of the hill), its centre is
 * the group's mean, its half width the group's spread across that direction (at least
 * `minHalfWidth`). Positions in the world frame. Returns [{centre: [x, y, z], dir: [dx, dy], halfWidth}].
 */
export function tunnelPortals(roads, { minHalfWidth = 3 } = {}) {
  if (!roads) return [];
  const { positions: p, tunnel } = roads;
  const adj = adjacency(roads.indices);
  const mouth = new Set();
  for (const [v, ns] of adj) if (tunnel[v] && [...ns].some((u) => !tunnel[u])) mouth.add(v);
  const seen = new Set(), portals = [];
  for (const start of mouth) {
    if (seen.has(start)) continue;
    const group = [start], open = new Set();
    seen.add(start);
    for (let g = 0; g < group.length; g++) {
      for (const u of adj.get(group[g])) {
        if (!tunnel[u]) open.add(u);
        else if (mouth.has(u) && !seen.has(u)) {
          seen.add(u);
          group.push(u);
        }
      }
    }
    portals.push(portalOf(p, group, [...open], minHalfWidth));
  }
  return portals;
}

function portalOf(p, group, open, minHalfWidth) {
  const mean = (vs) => [0, 1, 2].map((q) => vs.reduce((s, v) => s + p[3 * v + q], 0) / vs.length);
  const c = mean(group), o = mean(open);
  let dir = [o[0] - c[0], o[1] - c[1]];
  const l = Math.hypot(dir[0], dir[1]);
  dir = l > 0 ? [dir[0] / l, dir[1] / l] : [1, 0];
  let lo = 0, hi = 0;
  for (const v of group) {
    const s = (p[3 * v] - c[0]) * -dir[1] + (p[3 * v + 1] - c[1]) * dir[0];
    lo = Math.min(lo, s);
    hi = Math.max(hi, s);
  }
  return { centre: c, dir, halfWidth: Math.max(0.5 * (hi - lo), minHalfWidth) };
}

/**
 * Portal geometry in the view frame: per portal a headwall (a light concrete rectangle 1.5 half
 * widths each side, standing 0.3 m into the hill) and in front of it the dark arch (walls
 * 0.8 half widths high under a half circle of the half width), both vertical, facing out along
 * the road. Returns {positions, colors (rgba), normals, indices}.
 */
export function portalGeometry(portals, offset = [0, 0], segments = 10) {
  const pos = [], col = [], nor = [], idx = [];
  for (const pt of portals) {
    const hw = pt.halfWidth, [fx, fy] = pt.dir;
    const across = [-fy, fx];
    const at = (u, v, back) => [pt.centre[0] - offset[0] + across[0] * u - fx * back, pt.centre[1] - offset[1] + across[1] * u - fy * back, pt.centre[2] + v];
    const add = (outline, centre, rgb, back) => {
      const base = pos.length / 3;
      for (const [u, v] of [centre, ...outline]) {
        pos.push(...at(u, v, back));
        col.push(...rgb, 255);
        nor.push(fx, fy, 0);
      }
      for (let k = 1; k < outline.length; k++) idx.push(base, base + k, base + k + 1);
    };
    const wallH = 0.8 * hw;
    const top = hw * 1.9 + wallH * 0.3;
    add([[-1.5 * hw, -0.5], [1.5 * hw, -0.5], [1.5 * hw, top], [-1.5 * hw, top], [-1.5 * hw, -0.5]], [0, 0.5 * top], WORLD_COLOURS.headwall, 0.3);
    const arch = [[hw, 0]];
    for (let s = 0; s <= segments; s++) {
      const a = (Math.PI * s) / segments;
      arch.push([hw * Math.cos(a), wallH + hw * Math.sin(a)]);
    }
    arch.push([-hw, 0], [hw, 0]);
    add(arch, [0, 0.5 * wallH], WORLD_COLOURS.portal, 0.25);
  }
  return { positions: new Float32Array(pos), colors: new Uint8Array(col), normals: new Float32Array(nor), indices: new Uint32Array(idx) };
}

// ===================================================================== trees

/** Floats per tree instance: x, y, z, crown radius, height. */
export const TREE_STRIDE = 5;

/**
 * The instance buffer: the world's trees moved into the view frame (x − nx·dx/2, y − ny·dy/2),
 * z, crown radius and height kept; TREE_STRIDE floats (20 bytes) per tree. Trees with a
 * non-finite value or a non-positive radius or height are dropped.
 */
export function treeInstances(w) {
  const t = w.trees ?? new Float32Array(0);
  const [ox, oy] = worldOffset(w);
  const out = new Float32Array(t.length);
  let n = 0;
  for (let k = 0; k < t.length; k += TREE_STRIDE) {
    const v = t.subarray(k, k + TREE_STRIDE);
    if (!v.every(Number.isFinite) || !(v[3] > 0 && v[4] > 0)) continue;
    out.set([v[0] - ox, v[1] - oy, v[2], v[3], v[4]], TREE_STRIDE * n);
    n += 1;
  }
  return { data: out.subarray(0, TREE_STRIDE * n), count: n };
}

/**
 * The unit tree mesh drawn once per instance: a trunk (an open cylinder of `sides` faces,
 * radius 1, z 0..1, part 0) and a crown (a sphere of radius 1 with `sides` meridians and
 * `rings` parallels, part 1). Returns {positions, normals, part: Float32Array, indices}.
 */
export function treeMesh(sides = 7, rings = 4) {
  const pos = [], nor = [], part = [], idx = [];
  for (let s = 0; s <= sides; s++) {
    const a = (2 * Math.PI * s) / sides, c = Math.cos(a), n = Math.sin(a);
    pos.push(c, n, 0, c, n, 1);
    nor.push(c, n, 0, c, n, 0);
    part.push(0, 0);
    if (s < sides) idx.push(2 * s, 2 * s + 2, 2 * s + 1, 2 * s + 1, 2 * s + 2, 2 * s + 3);
  }
  const base = pos.length / 3;
  for (let r = 0; r <= rings; r++) {
    const phi = Math.PI * (r / rings - 0.5), cz = Math.sin(phi), cr = Math.cos(phi);
    for (let s = 0; s <= sides; s++) {
      const a = (2 * Math.PI * s) / sides;
      const v = [cr * Math.cos(a), cr * Math.sin(a), cz];
      pos.push(...v);
      nor.push(...v);
      part.push(1);
    }
  }
  const row = sides + 1;
  for (let r = 0; r < rings; r++) {
    for (let s = 0; s < sides; s++) {
      const a = base + r * row + s, b = a + 1, c = a + row, d = c + 1;
      idx.push(a, b, d, a, d, c);
    }
  }
  return { positions: new Float32Array(pos), normals: new Float32Array(nor), part: new Float32Array(part), indices: new Uint16Array(idx) };
}

// ===================================================================== the view

/** The WebAssembly `WorldView` (its getters) as the plain world object above; frees it. */
export function worldFromWasm(v) {
  try {
    const hasRoads = v.hasRoads;
    const color = v.color;
    const out = {
      generator: v.generator, seed: v.seed, compat: v.compat, nx: v.nx, ny: v.ny, dx: v.dx, dy: v.dy,
      // An empty colour array: the generator has none (a flat world); the page colours by height.
      height: v.height, water: v.water, color: color.length ? color : null, trees: v.trees,
      roads: hasRoads ? { positions: v.roadPositions, colors: v.roadColors, indices: v.roadIndices, bridge: v.roadBridge, tunnel: v.roadTunnel } : null,
      branches: null,
    };
    const bi = v.branchIndices;
    if (bi.length) out.branches = { positions: v.branchPositions, normals: v.branchNormals, colors: v.branchColors, indices: bi };
    return out;
  } finally {
    v.free?.();
  }
}

/** Generate a world in the page: `bz` the WebAssembly module, `spec` from `parseWorldParams`. */
export function generateWorld(bz, spec) {
  const params = spec.size != null ? { size: spec.size } : {};
  if (spec.compat) params.compat = spec.compat;
  return checkWorld(worldFromWasm(bz.generateWorld(spec.generator, String(spec.seed), JSON.stringify(params))));
}

function uploadTrees(gl, inst) {
  const m = treeMesh();
  const vao = gl.createVertexArray(), bufs = [];
  gl.bindVertexArray(vao);
  const attr = (loc, data, size, stride = 0, offset = 0, divisor = 0, buf = null) => {
    const b = buf ?? gl.createBuffer();
    if (!buf) {
      bufs.push(b);
      gl.bindBuffer(gl.ARRAY_BUFFER, b);
      gl.bufferData(gl.ARRAY_BUFFER, data, gl.STATIC_DRAW);
    } else gl.bindBuffer(gl.ARRAY_BUFFER, b);
    gl.enableVertexAttribArray(loc);
    gl.vertexAttribPointer(loc, size, gl.FLOAT, false, stride, offset);
    gl.vertexAttribDivisor(loc, divisor);
    return b;
  };
  attr(0, m.positions, 3);
  attr(1, m.normals, 3);
  attr(2, m.part, 1);
  const ib = attr(3, inst.data, 4, 4 * TREE_STRIDE, 0, 1);
  attr(4, null, 1, 4 * TREE_STRIDE, 16, 1, ib);
  const eb = gl.createBuffer();
  bufs.push(eb);
  gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, eb);
  gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, m.indices, gl.STATIC_DRAW);
  gl.bindVertexArray(null);
  return { vao, bufs, count: m.indices.length, instances: inst.count };
}

export class WorldView {
  /** @param {WebGL2RenderingContext} gl the page's context */
  constructor(gl) {
    this.gl = gl;
    this.mesh = new MeshView(gl);
    this.overlay = link(gl, OVERLAY_VS, OVERLAY_FS, 'world');
    this.treeProg = link(gl, TREE_VS, OVERLAY_FS, 'world');
    this.batches = {};
    this.world = null;
    this.counts = null;
  }

  /** Show a world (the contract object above; checked first). */
  setWorld(w) {
    checkWorld(w);
    const b = worldBounds(w);
    this.mesh.setTerrain({ width: w.nx, height: w.ny, heights: northUpHeights(w), cellSize: [w.dx, w.dy], albedo: groundAlbedo(w), seed: 7 });
    this.freeBatches();
    const gl = this.gl;
    const water = waterGeometry(w), roads = roadGeometry(w), branches = branchGeometry(w);
    // Meshed trees replace the instanced crowns.
    const trees = branches ? { data: new Float32Array(0), count: 0 } : treeInstances(w);
    const portals = tunnelPortals(w.roads);
    this.batches.water = water.cells ? uploadBatch(gl, water, [0, 0, 1]) : null;
    this.batches.roads = roads?.triangles ? uploadBatch(gl, roads) : null;
    this.batches.portals = portals.length ? uploadBatch(gl, portalGeometry(portals, worldOffset(w))) : null;
    this.batches.trees = trees.count ? uploadTrees(gl, trees) : null;
    this.batches.branches = branches ? uploadBatch(gl, branches) : null;
    this.world = w;
    this.bounds = b;
    this.counts = {
      cells: w.nx * w.ny, waterCells: water.cells, roadTriangles: roads?.triangles ?? 0, hiddenTunnelTriangles: roads?.hidden ?? 0,
      bridgeVertices: roads?.bridgeVertices ?? 0, portals: portals.length, trees: trees.count,
      branchTriangles: branches?.triangles ?? 0,
    };
    return this.counts;
  }

  /** The mesh look's orbit camera framing the world's ground (mesh.js frameCamera). */
  frameCamera(exag = 1, fov = 50) {
    return this.mesh.frameCamera(exag, fov);
  }

  /**
   * Draw one frame: the ground with the mesh look (sky, vista, terrain), then the roads, portals
   * and trees (opaque), then the water (blended, no depth write), with the same camera.
   */
  render(camera, opts = {}) {
    const stats = this.mesh.render(camera, opts);
    if (!this.world || !this.mesh.t) return stats;
    const o = { ...MESH_DEFAULTS, ...opts };
    const gl = this.gl;
    this.mesh.saveState();
    const blendSrc = gl.getParameter(gl.BLEND_SRC_RGB), blendDst = gl.getParameter(gl.BLEND_DST_RGB);
    const blendSrcA = gl.getParameter(gl.BLEND_SRC_ALPHA), blendDstA = gl.getParameter(gl.BLEND_DST_ALPHA);
    const offsetFill = gl.isEnabled(gl.POLYGON_OFFSET_FILL);
    try {
      this.drawOverlays(camera, o, stats);
    } finally {
      gl.blendFuncSeparate(blendSrc, blendDst, blendSrcA, blendDstA);
      if (offsetFill) gl.enable(gl.POLYGON_OFFSET_FILL);
      else gl.disable(gl.POLYGON_OFFSET_FILL);
      gl.bindVertexArray(null);
      this.mesh.restoreState();
    }
    return stats;
  }

  /** The mesh look's projection (mesh.js render: the same near and far planes). */
  projection(camera) {
    const gl = this.gl, m = this.mesh;
    const basis = cameraBasis(camera);
    const W = Math.max(1, gl.drawingBufferWidth), H = Math.max(1, gl.drawingBufferHeight);
    const L = m.t.extent, eye = basis.eye;
    const near = clamp(0.02 * Math.max(eye[2] - m.baseZ, 1), 0.05, 0.05 * L);
    return { basis, vp: viewProjection(basis, W, H, near, 1.5 * m.discR + Math.hypot(eye[0], eye[1])), L };
  }

  setUniforms(p, camera, o) {
    const gl = this.gl, u = p.u;
    const { basis, vp, L } = this.projection(camera);
    gl.useProgram(p.p);
    this.mesh.atmosphere(u, o, sunDirection(o.sunEl, o.sunAz));
    gl.uniformMatrix4fv(u.uViewProj, false, vp);
    gl.uniform1f(u.uExag, o.exaggeration);
    gl.uniform3fv(u.uEye, basis.eye);
    gl.uniform2f(u.uFog, 0.17 * L, (0.2 / L) * Math.max(0, o.fog));
    gl.uniform1f(u.uFogAmount, o.fog > 0 ? 1 : 0);
    gl.uniform3fv(u.uSkyAmbient, [0.2, 0.26, 0.38]);
    gl.uniform3fv(u.uBounce, [0.16, 0.13, 0.1]);
    gl.uniform1i(u.uWater, 0);
  }

  drawOverlays(camera, o, stats) {
    const gl = this.gl, B = this.batches;
    gl.bindFramebuffer(gl.FRAMEBUFFER, null);
    gl.viewport(0, 0, Math.max(1, gl.drawingBufferWidth), Math.max(1, gl.drawingBufferHeight));
    gl.enable(gl.DEPTH_TEST);
    gl.depthFunc(gl.LEQUAL);
    gl.depthMask(true);
    gl.disable(gl.BLEND);
    gl.disable(gl.CULL_FACE);
    const draw = (b) => {
      gl.bindVertexArray(b.vao);
      if (b.normalDefault) {
        gl.disableVertexAttribArray(2);
        gl.vertexAttrib3fv(2, b.normalDefault);
      }
      gl.drawElements(gl.TRIANGLES, b.count, gl.UNSIGNED_INT, 0);
      stats.drawCalls += 1;
      stats.triangles += b.count / 3;
    };
    this.setUniforms(this.overlay, camera, o);
    gl.enable(gl.POLYGON_OFFSET_FILL);
    gl.polygonOffset(-1, -2);
    if (B.roads) draw(B.roads);
    gl.disable(gl.POLYGON_OFFSET_FILL);
    if (B.portals) draw(B.portals);
    if (B.branches) draw(B.branches);
    if (B.trees) {
      this.setUniforms(this.treeProg, camera, o);
      gl.bindVertexArray(B.trees.vao);
      gl.drawElementsInstanced(gl.TRIANGLES, B.trees.count, gl.UNSIGNED_SHORT, 0, B.trees.instances);
      stats.drawCalls += 1;
      stats.triangles += (B.trees.count / 3) * B.trees.instances;
    }
    if (B.water) {
      this.setUniforms(this.overlay, camera, o);
      gl.uniform1i(this.overlay.u.uWater, 1);
      gl.enable(gl.BLEND);
      gl.blendFuncSeparate(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA, gl.ZERO, gl.ONE);
      gl.depthMask(false);
      draw(B.water);
      gl.depthMask(true);
      gl.disable(gl.BLEND);
    }
  }

  freeBatches() {
    const gl = this.gl;
    for (const b of Object.values(this.batches)) {
      if (!b) continue;
      gl.deleteVertexArray(b.vao);
      for (const buf of b.bufs) gl.deleteBuffer(buf);
    }
    this.batches = {};
  }

  readPixels() {
    return this.mesh.readPixels();
  }

  dispose() {
    this.freeBatches();
    this.gl.deleteProgram(this.overlay.p);
    this.gl.deleteProgram(this.treeProg.p);
    this.mesh.dispose();
    this.world = null;
  }
}

// ===================================================================== page hook

/**
 * Show `world` in the page's mesh look (`app.mesh` from mesh.js attachMeshMode): the mesh
 * mode's camera, input and options stay; its terrain is replaced by the world, and `sync` no
 * longer reloads the page's splat terrain while the world is shown. Sets `app.world` =
 * {spec, view, counts}. Call `app.setMeshMode(true)` (main.js) to switch the look on.
 */
export function attachWorld(app, world, spec) {
  const mesh = app.mesh;
  if (!mesh) throw new Error('world: the mesh look is not attached');
  const view = app.world?.view ?? new WorldView(mesh.view.gl);
  // The mesh mode's own hooks, put back by detachWorld.
  const own = app.world?.own ?? { sync: mesh.sync, frame: mesh.frame, render: mesh.render, status: mesh.status };
  const counts = view.setWorld(world);
  const label = `world ${world.generator} seed ${world.seed} · ${world.nx}×${world.ny} × ${world.dx} m`;
  mesh.sync = async () => {};
  mesh.frame = () => {
    mesh.cam = view.frameCamera(mesh.opts.exaggeration, app.state?.fov ?? 50);
    app.dirty = true;
  };
  mesh.render = (cam = mesh.cam) => {
    const o = { ...mesh.opts };
    if (app.state && Number.isFinite(app.state.exposure)) o.exposure = app.state.exposure * mesh.opts.exposure;
    return view.render(cam, o);
  };
  mesh.cam = view.frameCamera(mesh.opts.exaggeration, app.state?.fov ?? 50);
  mesh.status = { terrain: label, albedo: true, normal: false, error: null };
  app.world = { spec, view, counts, label, own };
  app.dirty = true;
  return app.world;
}

/**
 * Leave the world: the mesh mode gets its own hooks back (its terrain follows the page's again:
 * call `app.mesh.sync()` next), the world's GPU objects are freed and `app.world` is null.
 * Nothing happens when no world is shown.
 */
export function detachWorld(app) {
  const w = app.world;
  if (!w) return;
  if (app.mesh) Object.assign(app.mesh, w.own);
  w.view.dispose();
  app.world = null;
  app.dirty = true;
}

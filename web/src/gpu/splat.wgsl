// The WebGPU splat path (splat-renderer.js): the WGSL twin of shaders.js (SPLAT_VS/SPLAT_FS,
// FAR_VS/FAR_FS and the TERRAIN/EDGE/COLOUR snippets), written for the browser, with the frame
// planning of render-logic.js (visibleCells' per-cell test, lodFor, cellDraws) moved into compute.
// One file, three parts split by the `//!` markers below: COMMON (prepended to both modules),
// COMPUTE (select → args_draws → expand → args_inst) and RENDER (splats and far field).
// The maths follows the GLSL line by line, in the same order of operations, so both paths draw
// the same picture; the differences are the WebGPU conventions (framebuffer y down, so the screen
// door reads `glFrag`, depth in 0..1) and the draw order (one global depth sort of every splat
// instead of per-tile orders in a topological tile order).

//! COMMON
struct U {
  v0: vec4f, v1: vec4f, v2: vec4f,   // uView columns (world → camera: rows right, down, forward)
  eye: vec4f,                        // xyz; w: tile
  fv: vec4f,                         // focal x, y; viewport w, h
  fld: vec4f,                        // field size w, h; has field (0/1); amplitude
  rel: vec4f,                        // relief extent; detail; compat (0/1); grid n
  rot: vec4f,                        // grid rotation cos, sin; macro; level
  col: vec4f,                        // shade; exposure; saturation; overlay
  fog: vec4f,                        // fog colour rgb; fog density
  far: vec4f,                        // far on; far start; far band; water on
  misc: vec4f,                       // water range; horizon; underlay; sort depth range
  lod: vec4f,                        // near; far plane; lodBase·tile; spread (visibleCells)
  fwd: vec4f,                        // camera forward xyz; splat levels
  planes: array<vec4f, 5>,           // frustum planes (n, d)
  off: vec4u,                        // S offsets (u32s): field, cells, strength, edge
  off2: vec4u,                       // S offsets: tiles, tile info, lattice; T offset of colours
  cnt: vec4u,                        // n·n; instance capacity; draw capacity; T offset of hashes
}

@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read> S: array<u32>;

const DILATION: f32 = 0.3;
const EDGE_WARP: f32 = 0.35;
const EDGE_DITHER: f32 = 0.4;
const NONE: u32 = 0xffffffffu;

fn sf(i: u32) -> f32 { return bitcast<f32>(S[i]); }
fn view() -> mat3x3f { return mat3x3f(u.v0.xyz, u.v1.xyz, u.v2.xyz); }
fn tileW() -> f32 { return u.eye.w; }
fn gridRot() -> vec2f { return u.rot.xy; }
fn gridN() -> f32 { return u.rel.w; }

// GLSL mod (floor-based; WGSL's % truncates).
fn modf_(a: f32, b: f32) -> f32 { return a - b * floor(a / b); }
fn mirrorT(t: f32, n: f32) -> f32 {
  let p = modf_(t, 2.0 * n);
  return select(p, 2.0 * n - p, p > n);
}
fn fieldCoords(w: vec2f) -> vec2f {
  let fs = u.fld.xy;
  let scale = (max(fs.x, fs.y) - 1.0) / u.rel.x;
  return vec2f(mirrorT(w.x * scale + (fs.x - 1.0) * 0.5, fs.x - 1.0),
               mirrorT((fs.y - 1.0) * 0.5 - w.y * scale, fs.y - 1.0));
}
fn fieldAt(p: vec2i) -> vec4f {
  let k = u.off.x + 4u * (u32(p.y) * u32(u.fld.x) + u32(p.x));
  return vec4f(sf(k), sf(k + 1u), sf(k + 2u), sf(k + 3u));
}
fn fieldTexel(fc: vec2f) -> vec4f {
  let x0 = floor(fc.x);
  let y0 = floor(fc.y);
  let p0 = vec2i(i32(x0), i32(y0));
  let p1 = min(p0 + 1, vec2i(u.fld.xy) - 1);
  let tx = fc.x - x0;
  let ty = fc.y - y0;
  let a = fieldAt(p0) * (1.0 - tx) + fieldAt(vec2i(p1.x, p0.y)) * tx;
  let b = fieldAt(vec2i(p0.x, p1.y)) * (1.0 - tx) + fieldAt(p1) * tx;
  return a * (1.0 - ty) + b * ty;
}
fn latticeV(x: u32, y: u32) -> f32 {
  if (u.rel.z < 0.5) {
    var h = (x * 0x27D4EB2Du) ^ (y * 0x165667B1u);
    h = (h ^ (h >> 15u)) * 0x85EBCA6Bu;
    h = h ^ (h >> 13u);
    return f32(h & 0xFFFFFFu) / 16777215.0;
  }
  var h = (x * 0x27D4EB2Du) ^ (y * 0x165667B1u);
  h = (h ^ (h >> 15u)) * 0x85EBCA6Bu;
  h = (h ^ (h >> 13u)) * 0xC2B2AE35u;
  return f32((h ^ (h >> 16u)) >> 8u) / 16777216.0;
}
fn valueNoise(p: vec2f) -> f32 {
  let f = floor(p);
  let ix = bitcast<u32>(i32(f.x));
  let iy = bitcast<u32>(i32(f.y));
  let tx = p.x - f.x;
  let ty = p.y - f.y;
  let sx = tx * tx * (3.0 - 2.0 * tx);
  let sy = ty * ty * (3.0 - 2.0 * ty);
  let a = latticeV(ix, iy);
  let b = latticeV(ix + 1u, iy);
  let d = latticeV(ix, iy + 1u);
  let e = latticeV(ix + 1u, iy + 1u);
  return (a + (b - a) * sx) * (1.0 - sy) + (d + (e - d) * sx) * sy;
}
fn detailGrain(w: vec2f) -> f32 {
  let q = w * (1.0 / (0.7 * tileW()));
  let r1 = 1.0 - abs(2.0 * valueNoise(q) - 1.0);
  let r2 = 1.0 - abs(2.0 * valueNoise(q * 2.03 + vec2f(17.3, 5.1)) - 1.0);
  return (r1 * r1 + 0.5 * r2 * r2) / 1.5 - 0.5;
}
fn terrainHeight(w: vec2f) -> f32 {
  let amp0 = u.fld.w;
  if (amp0 <= 0.0) { return 0.0; }
  if (u.fld.z < 0.5) {
    let k = 1.0 / u.rel.x;
    return amp0 * (sin(k * w.x) * cos(k * w.y) + 0.5 * sin(2.3 * k * w.x + 1.7) * cos(1.9 * k * w.y + 0.4));
  }
  let s = fieldTexel(fieldCoords(w));
  let base = amp0 * (s.r - 0.5) * 2.0;
  let amp = 0.05 * u.rel.y * tileW();
  if (amp <= 0.0) { return base; }
  return base + amp * s.g * detailGrain(w);
}
fn opennessAt(w: vec2f) -> f32 {
  if (u.fld.z < 0.5) { return 0.5; }
  return fieldTexel(fieldCoords(w)).b;
}
fn terrainGrad(w: vec2f) -> vec2f {
  if (u.fld.w <= 0.0) { return vec2f(0.0); }
  var e: f32;
  if (u.fld.z > 0.5) {
    e = u.rel.x / max(max(u.fld.x, u.fld.y), 2.0);
    if (u.rel.y > 0.0) { e = min(e, 0.15 * 0.7 * tileW()); }
  } else {
    e = max(u.rel.x, 0.01) * 0.01;
  }
  return vec2f(terrainHeight(w + vec2f(e, 0.0)) - terrainHeight(w - vec2f(e, 0.0)),
               terrainHeight(w + vec2f(0.0, e)) - terrainHeight(w - vec2f(0.0, e))) / (2.0 * e);
}
fn waterAt(w: vec2f) -> vec3f {
  if (u.far.w < 0.5 || u.fld.z < 0.5 || u.fld.w <= 0.0) { return vec3f(-1e30, 0.0, 0.0); }
  let s = fieldTexel(fieldCoords(w));
  if (s.a <= 0.0) { return vec3f(-1e30, 0.0, 0.0); }
  let metres = s.a * u.misc.x;
  let wet = clamp(metres / 0.05, 0.0, 1.0);
  return vec3f(u.fld.w * (s.r - 0.5) * 2.0 + 2.0 * u.fld.w * s.a + 0.04 * tileW() * wet, metres, wet);
}
fn macroGain(w: vec2f) -> f32 {
  let q = w / tileW();
  let m = 0.6 * valueNoise(q / 11.0 + 3.7) + 0.4 * valueNoise(q / 4.3 + 17.1);
  return 1.0 + u.rot.z * 0.36 * (m - 0.5);
}
fn doorway(p: vec2f) -> f32 { return fract(52.9829189 * fract(dot(p, vec2f(0.06711056, 0.00583715)))); }

// The class edge field: GL's LINEAR, CLAMP_TO_EDGE fetch of the n×n R16F texture, by hand.
fn edgeTexel(x: i32, y: i32) -> f32 {
  let n = i32(gridN());
  let cx = clamp(x, 0, n - 1);
  let cy = clamp(y, 0, n - 1);
  return sf(u.off.w + u32(cy * n + cx));
}
fn edgeAtCells(cc: vec2f, w: vec2f) -> f32 {
  let t = cc - 0.5;
  let f0 = floor(t);
  let fr = t - f0;
  let x = i32(f0.x);
  let y = i32(f0.y);
  let a = mix(edgeTexel(x, y), edgeTexel(x + 1, y), fr.x);
  let b = mix(edgeTexel(x, y + 1), edgeTexel(x + 1, y + 1), fr.x);
  let f = mix(a, b, fr.y);
  let q = w / tileW();
  let warp = 0.67 * valueNoise(q / 0.6 + vec2f(41.3, 7.9)) + 0.33 * valueNoise(q / 0.25 + vec2f(3.7, 29.1));
  return f + EDGE_WARP * (warp - 0.5) * 2.0;
}
fn edgeAt(w: vec2f) -> f32 {
  let r = gridRot();
  let l = vec2f(r.x * w.x + r.y * w.y, -r.y * w.x + r.x * w.y) / tileW();
  return edgeAtCells(vec2f(l.x + 0.5 * gridN(), 0.5 * gridN() - l.y), w);
}
fn grade(rgb0: vec3f, w: vec2f, depth: f32, cls: f32, strength: f32) -> vec3f {
  var rgb = rgb0;
  let shade = u.col.x;
  if (shade > 0.0) { rgb *= mix(1.0, 0.45 + 0.55 * opennessAt(w), shade); }
  if (u.rot.z > 0.0) { rgb *= macroGain(w); }
  rgb = clamp(rgb * u.col.y, vec3f(0.0), vec3f(1.0));
  let lum = dot(rgb, vec3f(0.299, 0.587, 0.114));
  rgb = clamp(mix(vec3f(lum), rgb, u.col.z), vec3f(0.0), vec3f(1.0));
  if (u.col.w > 0.0) {
    let c = select(vec3f(0.15, 0.55, 0.95), vec3f(0.95, 0.62, 0.15), cls < 0.5) * (0.35 + 0.65 * clamp(strength, 0.0, 1.0));
    rgb = mix(rgb, c, u.col.w);
  }
  let fog = 1.0 - exp(-u.fog.w * max(depth, 0.0));
  return mix(rgb, u.fog.xyz, fog);
}
fn waterOver(rgb: vec3f, metres: f32, wet: f32, world: vec3f, depth: f32) -> vec3f {
  let wc = mix(vec3f(0.337, 0.588, 0.651), vec3f(0.078, 0.204, 0.369), 1.0 - exp(-metres / 40.0));
  let v = normalize(u.eye.xyz - world);
  let fres = 0.02 + 0.98 * pow(1.0 - clamp(v.z, 0.0, 1.0), 5.0);
  var c = mix(wc, u.fog.xyz, fres);
  let sun = vec3f(-0.509, -0.701, 0.5);
  c += vec3f(1.0, 0.95, 0.85) * 0.6 * pow(max(normalize(v + sun).z, 0.0), 300.0);
  c = mix(c, rgb * vec3f(0.75, 0.9, 0.95), 0.7 * exp(-metres / 1.5));
  c = mix(c, vec3f(0.85, 0.9, 0.9), 0.35 * (1.0 - smoothstep(0.0, 0.3, metres)));
  c = clamp(c * u.col.y, vec3f(0.0), vec3f(1.0));
  c = mix(c, u.fog.xyz, 1.0 - exp(-u.fog.w * max(depth, 0.0)));
  return mix(rgb, c, wet);
}
// Cell record (S at off.y, 4 u32 a cell): tile | cls << 16 | sub << 23 | strength byte << 24,
// alt tile (NONE), own threshold, alt threshold.
fn cellWord(c: u32, k: u32) -> u32 { return S[u.off.y + 4u * c + k]; }
// Tile info (S at off2.y, vec4 per entry, rows of T tiles): gain, splat mean, levelling.
fn tinfo(row: u32, t: u32, ntiles: u32) -> vec3f {
  let k = u.off2.y + 4u * (row * ntiles + t);
  return vec3f(sf(k), sf(k + 1u), sf(k + 2u));
}

//! COMPUTE
// A draw: the splats [start, start + count) of a tile in a cell, with their survival threshold.
struct Draw { cell: u32, start: u32, count: u32, t: u32, tile: u32, flags: u32, lo: f32, hi: f32 }
// An instance: what the vertex shader needs (pixel centre, major axis, minor half-length, the
// far hand-over, the LOD screen door) and the graded colour with its opacity.
struct Inst { px: vec2f, major: vec2f, minor: f32, vfar: f32, lo: f32, hi: f32, rgba: vec4f }

@group(1) @binding(0) var<storage, read_write> draws: array<Draw>;
// ctl: 0 draws, 1 instances (uncapped), 2 cells drawn, 3 far cells, 4 instances dropped;
// 8..11 drawIndirect, 12..14 expand dispatch, 16..18 sort dispatch, 20..27 sort parameters;
// 32.. the selection per cell (0 none, else level + 1, | 0x100 cross-fade to level + 2).
@group(1) @binding(1) var<storage, read_write> ctl: array<atomic<u32>>;
@group(1) @binding(2) var<storage, read> T: array<u32>;
@group(1) @binding(3) var<storage, read_write> inst: array<Inst>;
@group(1) @binding(4) var<storage, read_write> keys: array<u32>;

fn latticeH(iu: u32, iv: u32) -> f32 {
  let m = 2u * u32(gridN()) + 1u;
  return sf(u.off2.z + iv * m + iu);
}

// Tiles (S at off2.x, after a header of atlas res, cols, rows and the tile count): per tile its
// first range and level count, then the ranges (start, count).
fn pushDraw(c: u32, tile: u32, level: u32, t: u32, flags: u32, lo: f32, hi: f32) {
  let base = u.off2.x + 2u * tile;
  let rb = S[base];
  let nl = S[base + 1u];
  let lv = min(level, nl - 1u);
  let ranges = u.off2.x + 2u * S[u.off2.x - 1u];
  let start = S[ranges + 2u * (rb + lv)];
  let count = S[ranges + 2u * (rb + lv) + 1u];
  let k = atomicAdd(&ctl[0], 1u);
  if (k >= u.cnt.z) { return; }
  draws[k] = Draw(c, start, count, t, tile, flags, lo, hi);
}

// One cell a thread: visibleCells' per-cell test (frustum planes against the four corners
// lifted onto the ground, behind the eye, beyond the far start) on the CPU's lattice heights,
// then lodFor and cellDraws.
@compute @workgroup_size(64)
fn select_cells(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let c = gid.y * nwg.x * 64u + gid.x;
  if (c >= u.cnt.x) { return; }
  let n = u32(gridN());
  let i = c % n;
  let j = c / n;
  let tile = tileW();
  let half = (f32(n) - 1.0) * 0.5;
  let r = gridRot();
  let lx = (f32(i) - half) * tile;
  let ly = (half - f32(j)) * tile;
  let x = r.x * lx - r.y * ly;
  let y = r.y * lx + r.x * ly;
  let h = latticeH(2u * i + 1u, 2u * j + 1u);
  let mg = 0.75 * tile;
  let ht = 0.5 * tile;
  // corners (-ht, -ht), (ht, -ht), (ht, ht), (-ht, ht) in the grid frame, y north
  var cu = array<vec2f, 4>(vec2f(-ht, -ht), vec2f(ht, -ht), vec2f(ht, ht), vec2f(-ht, ht));
  var cz: array<f32, 4>;
  var cw: array<vec2f, 4>;
  for (var q = 0u; q < 4u; q++) {
    let o = cu[q];
    cw[q] = vec2f(x + (r.x * o.x - r.y * o.y), y + (r.y * o.x + r.x * o.y));
    let du = select(-1, 1, o.x > 0.0);
    let dv = select(1, -1, o.y > 0.0);
    cz[q] = latticeH(u32(i32(2u * i + 1u) + du), u32(i32(2u * j + 1u) + dv));
  }
  for (var p = 0u; p < 5u; p++) {
    let pl = u.planes[p];
    var mx = -3.0e38;
    for (var q = 0u; q < 4u; q++) {
      mx = max(mx, pl.x * cw[q].x + pl.y * cw[q].y + pl.z * cz[q] + pl.w);
    }
    if (mx + abs(pl.z) * mg < -mg) { atomicStore(&ctl[32u + c], 0u); return; }
  }
  let e = u.eye.xyz;
  let fw = u.fwd.xyz;
  let d0 = (x - e.x) * fw.x + (y - e.y) * fw.y + (h - e.z) * fw.z;
  let spread = u.lod.w;
  let key = d0 - spread;
  if (d0 + spread < -2.0 * tile) { atomicStore(&ctl[32u + c], 0u); return; }
  if (u.far.x > 0.5 && key > u.far.y) { atomicStore(&ctl[32u + c], 0u); atomicAdd(&ctl[3], 1u); return; }
  let dv3 = vec3f(x, y, h) - e;
  let dist = sqrt(dot(dv3, dv3));
  // lodFor
  let L = max(1u, u32(u.fwd.w));
  let f = log2(max(dist, 1e-9) / u.lod.z);
  let fl = floor(f);
  let lvl = u32(clamp(fl, 0.0, f32(L - 1u)));
  let frac = f - fl;
  var two = false;
  var w = 0.0;
  if (fl >= 0.0 && fl < f32(L - 1u) && frac > 0.8) { two = true; w = (frac - 0.8) / 0.2; }
  atomicStore(&ctl[32u + c], (lvl + 1u) | select(0u, 0x100u, two));
  atomicAdd(&ctl[2], 1u);
  // cellDraws, lodDoors
  let w0 = cellWord(c, 0u);
  let ownTile = w0 & 0xFFFFu;
  let sub = (w0 >> 23u) & 1u;
  let alt = cellWord(c, 1u);
  let ownT = cellWord(c, 2u);
  let altT = cellWord(c, 3u);
  let nlev = select(1u, 2u, two);
  for (var q = 0u; q < nlev; q++) {
    var lo = 0.0;
    var hi = 2.0;
    if (two) {
      let cut = 1.0 - w;
      if (q == 0u) { hi = cut; } else { lo = cut; }
    }
    pushDraw(c, ownTile, lvl + q, ownT, sub << 1u, lo, hi);
    if (alt != NONE) { pushDraw(c, alt, lvl + q, altT, 1u | (sub << 1u), lo, hi); }
  }
}

fn dispatchFor(n: u32, per: u32, at: u32) {
  let g = max(1u, (n + per - 1u) / per);
  let x = min(g, 65535u);
  atomicStore(&ctl[at], x);
  atomicStore(&ctl[at + 1u], (g + x - 1u) / x);
  atomicStore(&ctl[at + 2u], 1u);
}

@compute @workgroup_size(1)
fn args_draws() {
  dispatchFor(min(atomicLoad(&ctl[0]), u.cnt.z), 1u, 12u);
}

// One draw a workgroup: every splat of its range through SPLAT_VS (survival hash, class edge,
// placement on the ground, projection), the survivors appended as instances with a 16-bit depth
// key (far to near: larger first, as RadixSort orders).
@compute @workgroup_size(64)
fn expand(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let di = wid.y * nwg.x + wid.x;
  if (di >= min(atomicLoad(&ctl[0]), u.cnt.z)) { return; }
  let d = draws[di];
  let c = d.cell;
  let n = u32(gridN());
  let tile = tileW();
  let half = (f32(n) - 1.0) * 0.5;
  let r = gridRot();
  let lx = (f32(c % n) - half) * tile;
  let ly = (half - f32(c / n)) * tile;
  let cellXY = vec2f(r.x * lx - r.y * ly, r.y * lx + r.x * ly);
  let w0 = cellWord(c, 0u);
  let isAlt = (d.flags & 1u) == 1u;
  let cls0 = f32((w0 >> 16u) & 0x7Fu);
  let cls = select(cls0, 1.0 - cls0, isAlt);
  let sub = select(-1.0, cls, (d.flags & 2u) == 2u);
  let strength = sf(u.off.z + c);
  let ntiles = S[u.off2.x - 1u];
  let gain = mix(vec3f(1.0), tinfo(2u, d.tile, ntiles), u.rot.w);
  let spin = mat3x3f(r.x, r.y, 0.0, -r.y, r.x, 0.0, 0.0, 0.0, 1.0);
  let V = view();
  let eye = u.eye.xyz;
  let focal = u.fv.xy;
  let vp = u.fv.zw;
  for (var k = lid; k < d.count; k += 64u) {
    let sid = d.start + k;
    let hash = T[u.cnt.w + sid];
    if (hash > d.t) { continue; }
    let b0 = 12u * sid;
    let a = vec4f(bitcast<f32>(T[b0]), bitcast<f32>(T[b0 + 1u]), bitcast<f32>(T[b0 + 2u]), bitcast<f32>(T[b0 + 3u]));
    let b = vec3f(bitcast<f32>(T[b0 + 4u]), bitcast<f32>(T[b0 + 5u]), bitcast<f32>(T[b0 + 6u]));
    let q = vec4f(bitcast<f32>(T[b0 + 8u]), bitcast<f32>(T[b0 + 9u]), bitcast<f32>(T[b0 + 10u]), bitcast<f32>(T[b0 + 11u]));
    let local = spin * a.xyz;
    let anchor = cellXY + local.xy;
    if (sub >= 0.0) {
      let e = edgeAt(anchor) + EDGE_DITHER * (f32(hash) / 4294967296.0 - 0.5);
      if ((e > 0.0) != (sub < 0.5)) { continue; }
    }
    let g = terrainGrad(anchor);
    let ju = vec3f(1.0, 0.0, g.x);
    let jv = vec3f(0.0, 1.0, g.y);
    let nrm = normalize(cross(ju, jv));
    var world = vec3f(anchor, terrainHeight(anchor)) + local.z * nrm;
    let water = waterAt(anchor);
    let under = water.z > 0.0 && world.z < water.x;
    if (under) { world.z = water.x; }
    let cam = V * (world - eye);
    var vfar = 0.0;
    if (u.far.x > 0.5) { vfar = smoothstep(u.far.y - u.far.z, u.far.y, cam.z); }
    if (cam.z < 0.02 || vfar >= 1.0) { continue; }
    let ql = length(q);
    let qw = q.x / ql;
    let qx = q.y / ql;
    let qy = q.z / ql;
    let qz = q.w / ql;
    let R = mat3x3f(1.0 - 2.0 * (qy * qy + qz * qz), 2.0 * (qx * qy + qw * qz), 2.0 * (qx * qz - qw * qy),
                    2.0 * (qx * qy - qw * qz), 1.0 - 2.0 * (qx * qx + qz * qz), 2.0 * (qy * qz + qw * qx),
                    2.0 * (qx * qz + qw * qy), 2.0 * (qy * qz - qw * qx), 1.0 - 2.0 * (qx * qx + qy * qy));
    let M = mat3x3f(ju, jv, nrm) * spin * R * mat3x3f(b.x, 0.0, 0.0, 0.0, b.y, 0.0, 0.0, 0.0, b.z);
    let sigma = M * transpose(M);
    let iz = 1.0 / cam.z;
    let limx = 1.3 * 0.5 * vp.x / focal.x;
    let limy = 1.3 * 0.5 * vp.y / focal.y;
    let cx = clamp(cam.x * iz, -limx, limx) * cam.z;
    let cy = clamp(cam.y * iz, -limy, limy) * cam.z;
    let J = mat3x3f(focal.x * iz, 0.0, 0.0, 0.0, focal.y * iz, 0.0,
                    -focal.x * cx * iz * iz, -focal.y * cy * iz * iz, 0.0);
    let Tm = J * V;
    let c2 = Tm * sigma * transpose(Tm);
    let ca = c2[0][0] + DILATION;
    let cb = c2[0][1];
    let cc = c2[1][1] + DILATION;
    let mid = 0.5 * (ca + cc);
    let rad = sqrt(max(mid * mid - (ca * cc - cb * cb), 0.1));
    let l1 = mid + rad;
    let l2 = max(mid - rad, 0.1);
    if (l1 < 0.15) { continue; }
    var dir: vec2f;
    if (abs(cb) > 1e-9) { dir = normalize(vec2f(cb, l1 - ca)); } else { dir = select(vec2f(0.0, 1.0), vec2f(1.0, 0.0), ca >= cc); }
    let major = min(sqrt(2.0 * l1), 1024.0) * dir;
    let minor = min(sqrt(2.0 * l2), 1024.0);
    let px = focal * cam.xy * iz;
    let colw = T[u.off2.w + sid];
    let colour = vec3f(f32(colw & 255u), f32((colw >> 8u) & 255u), f32((colw >> 16u) & 255u)) / 255.0;
    var rgb = grade(colour * gain, anchor, cam.z, cls, strength);
    if (under) { rgb = waterOver(rgb, water.y, water.z, world, cam.z); }
    let slot = atomicAdd(&ctl[1], 1u);
    if (slot >= u.cnt.y) { atomicAdd(&ctl[4], 1u); continue; }
    inst[slot] = Inst(px, major, minor, vfar, d.lo, d.hi, vec4f(rgb, a.w));
    keys[slot] = u32(clamp(cam.z / u.misc.w, 0.0, 1.0) * 65535.0);
  }
}

// The instance count as drawIndirect's, and as RadixSort's parameters and dispatch.
@compute @workgroup_size(1)
fn args_inst() {
  let n = min(atomicLoad(&ctl[1]), u.cnt.y);
  atomicStore(&ctl[8], 4u);
  atomicStore(&ctl[9], n);
  atomicStore(&ctl[10], 0u);
  atomicStore(&ctl[11], 0u);
  dispatchFor(n, 256u, 16u);
  let nblocks = (n + 255u) / 256u;
  for (var s = 0u; s < 2u; s++) {
    atomicStore(&ctl[20u + 4u * s], n);
    atomicStore(&ctl[21u + 4u * s], nblocks);
    atomicStore(&ctl[22u + 4u * s], 8u * s);
    atomicStore(&ctl[23u + 4u * s], 0u);
  }
}

//! RENDER
struct Inst { px: vec2f, major: vec2f, minor: f32, vfar: f32, lo: f32, hi: f32, rgba: vec4f }
@group(1) @binding(0) var<storage, read> inst: array<Inst>;
@group(1) @binding(1) var<storage, read> order: array<u32>;
@group(1) @binding(2) var atlasSampler: sampler;
@group(1) @binding(3) var atlas: texture_2d<f32>;

// GL's gl_FragCoord (origin bottom-left) from WebGPU's position (origin top-left): the screen
// door must fall on the same pixels as the WebGL2 path's.
fn glFrag(p: vec4f) -> vec2f { return vec2f(p.x, u.fv.w - p.y); }

struct SplatOut {
  @builtin(position) pos: vec4f,
  @location(0) corner: vec2f,
  @location(1) colour: vec4f,
  @location(2) @interpolate(flat) vfar: f32,
  @location(3) @interpolate(flat) door: vec2f,
}

@vertex
fn splat_vs(@builtin(vertex_index) vi: u32, @builtin(instance_index) ii: u32) -> SplatOut {
  let corner = vec2f(select(-2.0, 2.0, (vi & 1u) == 1u), select(-2.0, 2.0, vi >= 2u));
  let s = inst[order[ii]];
  let minorDir = vec2f(-s.major.y, s.major.x) / max(length(s.major), 1e-30);
  let px = s.px + corner.x * s.major + corner.y * s.minor * minorDir;
  var o: SplatOut;
  o.pos = vec4f(2.0 * px.x / u.fv.z, -2.0 * px.y / u.fv.w, 0.0, 1.0);
  o.corner = corner;
  o.colour = s.rgba;
  o.vfar = s.vfar;
  o.door = vec2f(s.lo, s.hi);
  return o;
}

@fragment
fn splat_fs(i: SplatOut) -> @location(0) vec4f {
  let r2 = dot(i.corner, i.corner);
  if (r2 > 4.0) { discard; }
  let alpha = exp(-r2) * i.colour.a;
  if (alpha < 0.004) { discard; }
  let dw = doorway(glFrag(i.pos));
  if (dw < i.door.x || dw >= i.door.y) { discard; }
  if (u.far.x > 0.5 && i.vfar >= dw) { discard; }
  return vec4f(i.colour.rgb * alpha, alpha);
}

struct FarOut {
  @builtin(position) pos: vec4f,
  @location(0) grid: vec2f,
  @location(1) world: vec2f,
  @location(2) depth: f32,
}

@vertex
fn far_vs(@location(0) aGrid: vec2f) -> FarOut {
  let l = aGrid * tileW();
  let r = gridRot();
  let w = vec2f(r.x * l.x - r.y * l.y, r.y * l.x + r.x * l.y);
  let cam = view() * (vec3f(w, max(terrainHeight(w), waterAt(w).x)) - u.eye.xyz);
  let nr = u.lod.x;
  let fp = u.lod.y;
  let A = (fp + nr) / (fp - nr);
  let B = -2.0 * fp * nr / (fp - nr);
  var o: FarOut;
  // GL's clip z (−w..w) mapped to WebGPU's 0..w: the same depth order.
  o.pos = vec4f(2.0 * u.fv.x * cam.x / u.fv.z, -2.0 * u.fv.y * cam.y / u.fv.w, 0.5 * (A * cam.z + B + cam.z), cam.z);
  o.grid = aGrid;
  o.world = w;
  o.depth = cam.z;
  return o;
}

@fragment
fn far_fs(i: FarOut) -> @location(0) vec4f {
  let N = gridN();
  let cc0 = vec2f(i.grid.x + 0.5 * N, 0.5 * N - i.grid.y);
  // derivatives first, in uniform control flow
  let ddx = dpdx(cc0);
  let ddy = dpdy(cc0);
  let frag = glFrag(i.pos);
  let out_ = max(abs(i.grid.x), abs(i.grid.y)) - 0.5 * N;
  let inside = out_ <= 0.0;
  var a = 1.0;
  if (u.far.x > 0.5 && inside) { a = smoothstep(u.far.y - u.far.z, u.far.y, i.depth); }
  if (u.misc.z < 0.5 && a < doorway(frag)) { discard; }
  let cc = vec2f(mirrorT(cc0.x, N), mirrorT(cc0.y, N));
  let cell = clamp(vec2i(floor(cc)), vec2i(0), vec2i(i32(N) - 1));
  let c = u32(cell.y) * u32(N) + u32(cell.x);
  let w0 = cellWord(c, 0u);
  var t = w0 & 0xFFFFu;
  let ctb = f32((w0 >> 16u) & 0x7Fu);
  if (((w0 >> 23u) & 1u) == 1u) {
    let e = edgeAtCells(cc, i.world) + EDGE_DITHER * (doorway(frag.yx + 17.0) - 0.5);
    if ((e > 0.0) != (ctb < 0.5)) { t = cellWord(c, 1u) & 0xFFFFu; }
  }
  let ntiles = S[u.off2.x - 1u];
  let ag = vec2f(sf(u.off2.x - 3u), sf(u.off2.x - 2u)); // atlas cols, rows
  let ares = sf(u.off2.x - 4u);
  let lc = clamp(cc - vec2f(cell), vec2f(0.5 / ares), vec2f(1.0 - 0.5 / ares));
  let cols = u32(ag.x);
  let uv = (vec2f(f32(t % cols), f32(t / cols)) + lc) / ag;
  var rgb = textureSampleGrad(atlas, atlasSampler, uv, ddx / ag, ddy / ag).rgb;
  let gain = tinfo(0u, t, ntiles);
  let mean = tinfo(1u, t, ntiles);
  let level = mix(vec3f(1.0), tinfo(2u, t, ntiles), u.rot.w);
  rgb *= gain * level;
  rgb = mix(rgb, mean * level, 0.75 * smoothstep(1.5 * u.far.y, 5.0 * u.far.y, i.depth));
  let strength = f32(w0 >> 24u) / 255.0;
  var graded = grade(rgb, i.world, i.depth, ctb, strength);
  let water = waterAt(i.world);
  if (water.z > 0.0 && water.x > terrainHeight(i.world)) { graded = waterOver(graded, water.y, water.z, vec3f(i.world, water.x), i.depth); }
  let reach = (HORIZON_SCALE - 1.0) * 0.5 * N;
  graded = mix(graded, u.fog.xyz, u.misc.y * smoothstep(0.25 * reach, reach, out_));
  return vec4f(graded, 1.0);
}

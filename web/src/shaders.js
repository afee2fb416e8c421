// GLSL ES 3.00 sources of the splat renderer (renderer.js).
// Conventions: world x east, y north, z up; camera x right, y down, z forward (uView rows).

import { INDEX_BITS } from './merge.js';
import { HORIZON_SCALE } from './render-logic.js';

export const DILATION = 0.3;
const INDEX_MASK_HEX = '0x' + ((2 ** INDEX_BITS) - 1).toString(16).toUpperCase() + 'u';

// The ground as both vertex shaders see it, after crates/material/src/tilegrid.rs
// (Field::height_at, Field::bilinear, mirror, value_noise, detail_grain). uField: RGBA32F (z, mask, open, 0),
// row 0 north; fetched with texelFetch and blended by hand, in tilegrid.rs' order of operations.
export const TERRAIN_GLSL = `
uniform highp sampler2D uField;
uniform vec2 uFieldSize;     // texels (w, h)
uniform int uHasField;
uniform float uAmp;          // amplitude (world units)
uniform float uReliefExt;    // reliefScale · tile: the field's long edge in world units
uniform float uDetail;       // detail strength (0 = off)
uniform float uTile;
uniform vec2 uGridRot;       // cos, sin of the grid angle
uniform int uCompat;         // detail grain lattice: 0 = the original viewer's dHash, 1 = canonical

// Reflect t into 0..n with period 2n (tilegrid.rs mirror).
float mirrorT(float t, float n) {
  float p = mod(t, 2.0 * n);
  return p > n ? 2.0 * n - p : p;
}
// Texel coordinates of world point w (tilegrid.rs Field::bilinear: rows run south).
vec2 fieldCoords(vec2 w) {
  float scale = (max(uFieldSize.x, uFieldSize.y) - 1.0) / uReliefExt;
  return vec2(mirrorT(w.x * scale + (uFieldSize.x - 1.0) * 0.5, uFieldSize.x - 1.0),
              mirrorT((uFieldSize.y - 1.0) * 0.5 - w.y * scale, uFieldSize.y - 1.0));
}
// Bilinear sample of all channels at (mirrored) texel coordinates.
vec4 fieldTexel(vec2 fc) {
  float x0 = floor(fc.x), y0 = floor(fc.y);
  ivec2 p0 = ivec2(x0, y0);
  ivec2 p1 = min(p0 + 1, ivec2(uFieldSize) - 1);
  float tx = fc.x - x0, ty = fc.y - y0;
  vec4 a = texelFetch(uField, p0, 0) * (1.0 - tx) + texelFetch(uField, ivec2(p1.x, p0.y), 0) * tx;
  vec4 b = texelFetch(uField, ivec2(p0.x, p1.y), 0) * (1.0 - tx) + texelFetch(uField, p1, 0) * tx;
  return a * (1.0 - ty) + b * ty;
}
// Lattice value in 0..1 (tilegrid.rs Compat::lattice).
float latticeV(uint x, uint y) {
  if (uCompat == 0) {
    uint h = (x * 0x27D4EB2Du) ^ (y * 0x165667B1u);
    h = (h ^ (h >> 15u)) * 0x85EBCA6Bu;
    h = h ^ (h >> 13u);
    return float(h & 0xFFFFFFu) / 16777215.0;
  }
  uint h = (x * 0x27D4EB2Du) ^ (y * 0x165667B1u);
  h = (h ^ (h >> 15u)) * 0x85EBCA6Bu;
  h = (h ^ (h >> 13u)) * 0xC2B2AE35u;
  return float((h ^ (h >> 16u)) >> 8u) / 16777216.0;
}
float valueNoise(vec2 p) {
  vec2 f = floor(p);
  uint ix = uint(int(f.x)), iy = uint(int(f.y));
  float tx = p.x - f.x, ty = p.y - f.y;
  float sx = tx * tx * (3.0 - 2.0 * tx), sy = ty * ty * (3.0 - 2.0 * ty);
  float a = latticeV(ix, iy), b = latticeV(ix + 1u, iy);
  float d = latticeV(ix, iy + 1u), e = latticeV(ix + 1u, iy + 1u);
  return (a + (b - a) * sx) * (1.0 - sy) + (d + (e - d) * sx) * sy;
}
// The unmasked ridged grain (tilegrid.rs detail_grain).
float detailGrain(vec2 w) {
  vec2 q = w * (1.0 / (0.7 * uTile));
  float r1 = 1.0 - abs(2.0 * valueNoise(q) - 1.0);
  float r2 = 1.0 - abs(2.0 * valueNoise(q * 2.03 + vec2(17.3, 5.1)) - 1.0);
  return (r1 * r1 + 0.5 * r2 * r2) / 1.5 - 0.5;
}
float terrainHeight(vec2 w) {
  if (uAmp <= 0.0) return 0.0;
  if (uHasField == 0) {
    float k = 1.0 / uReliefExt;
    return uAmp * (sin(k * w.x) * cos(k * w.y) + 0.5 * sin(2.3 * k * w.x + 1.7) * cos(1.9 * k * w.y + 0.4));
  }
  vec4 s = fieldTexel(fieldCoords(w));
  float base = uAmp * (s.r - 0.5) * 2.0;
  float amp = 0.05 * uDetail * uTile;
  if (amp <= 0.0) return base;
  return base + amp * s.g * detailGrain(w);
}
float opennessAt(vec2 w) {
  if (uHasField == 0) return 0.5;
  return fieldTexel(fieldCoords(w)).b;
}
// Central differences; step one field texel (1 % of the wavelength without a field), finer
// than the detail's creases when detail is on.
vec2 terrainGrad(vec2 w) {
  if (uAmp <= 0.0) return vec2(0.0);
  float e;
  if (uHasField == 1) {
    e = uReliefExt / max(max(uFieldSize.x, uFieldSize.y), 2.0);
    if (uDetail > 0.0) e = min(e, 0.15 * 0.7 * uTile);
  } else {
    e = max(uReliefExt, 0.01) * 0.01;
  }
  return vec2(terrainHeight(w + vec2(e, 0.0)) - terrainHeight(w - vec2(e, 0.0)),
              terrainHeight(w + vec2(0.0, e)) - terrainHeight(w - vec2(0.0, e))) / (2.0 * e);
}
// Surface water (lakes, rivers, the sea: render-logic.js waterField) in the field's alpha
// channel, its depth over the ground in unit heights. x: the water surface's height (world
// units; the level ground under it plus the depth, and at least 0.04 tile over the ground so
// that shallow water stands above the captured ground's own relief), y: the depth in metres,
// z: 1 where wet, fading in over the first 5 cm of depth (the shoreline).
uniform float uWaterOn;      // 1: drawn
uniform float uWaterRange;   // metres per unit height (the terrain's hi − lo)
vec3 waterAt(vec2 w) {
  if (uWaterOn < 0.5 || uHasField == 0 || uAmp <= 0.0) return vec3(-1e30, 0.0, 0.0);
  vec4 s = fieldTexel(fieldCoords(w));
  if (s.a <= 0.0) return vec3(-1e30, 0.0, 0.0);
  float metres = s.a * uWaterRange;
  float wet = clamp(metres / 0.05, 0.0, 1.0);
  return vec3(uAmp * (s.r - 0.5) * 2.0 + 2.0 * uAmp * s.a + 0.04 * uTile * wet, metres, wet);
}
// Slow brightness variation over several tiles (splats and far field alike).
uniform float uMacro;
float macroGain(vec2 w) {
  vec2 q = w / uTile;
  float m = 0.6 * valueNoise(q / 11.0 + 3.7) + 0.4 * valueNoise(q / 4.3 + 17.1);
  return 1.0 + uMacro * 0.36 * (m - 0.5);
}
`;

// Screen-door pattern (interleaved gradient noise) in [0, 1): the splat / far-field hand-over
// and the LOD cross-fade partition (render-logic.js lodDoors) use this one function.
export const DOORWAY_GLSL = `
float doorway(vec2 p) { return fract(52.9829189 * fract(dot(p, vec2(0.06711056, 0.00583715)))); }
`;

// The class edge inside tiles (render-logic.js subTileEdges, edgeField): the signed class field
// sampled between cell centres, warped by value noise (periods 0.6 and 0.25 tile), is > 0 on
// class 0's side. A splat of a cell marked for an edge is drawn on its class's side only, with
// its survival hash dithering the decision over a band of EDGE_DITHER field units.
export const EDGE_WARP = 0.35, EDGE_DITHER = 0.4;
export const EDGE_GLSL = `
uniform sampler2D uEdge;     // R16F n×n, LINEAR: edgeField
uniform float uGridN;
// The edge at cell coordinates cc (x east, y south, from the grid's north-west corner) of world
// point w (the warp's position).
float edgeAtCells(vec2 cc, vec2 w) {
  float f = texture(uEdge, cc / uGridN).r;
  vec2 q = w / uTile;
  float warp = 0.67 * valueNoise(q / 0.6 + vec2(41.3, 7.9)) + 0.33 * valueNoise(q / 0.25 + vec2(3.7, 29.1));
  return f + ${EDGE_WARP.toFixed(3)} * (warp - 0.5) * 2.0;
}
float edgeAt(vec2 w) {
  vec2 l = vec2(uGridRot.x * w.x + uGridRot.y * w.y, -uGridRot.y * w.x + uGridRot.x * w.y) / uTile;
  return edgeAtCells(vec2(l.x + 0.5 * uGridN, 0.5 * uGridN - l.y), w);
}
`;

// Colour pipeline shared by both programs: shading (only darkens), macro, exposure, saturation,
// class overlay, fog.
export const COLOUR_GLSL = `
uniform float uShade, uExposure, uSaturation, uOverlay, uFogDensity;
uniform vec3 uFogColour, uClassColour0, uClassColour1;
vec3 grade(vec3 rgb, vec2 w, float depth, float cls, float strength) {
  if (uShade > 0.0) rgb *= mix(1.0, 0.45 + 0.55 * opennessAt(w), uShade);
  if (uMacro > 0.0) rgb *= macroGain(w);
  rgb = clamp(rgb * uExposure, 0.0, 1.0);
  float lum = dot(rgb, vec3(0.299, 0.587, 0.114));
  rgb = clamp(mix(vec3(lum), rgb, uSaturation), 0.0, 1.0);
  if (uOverlay > 0.0) {
    vec3 c = (cls < 0.5 ? uClassColour0 : uClassColour1) * (0.35 + 0.65 * clamp(strength, 0.0, 1.0));
    rgb = mix(rgb, c, uOverlay);
  }
  float fog = 1.0 - exp(-uFogDensity * max(depth, 0.0));
  return mix(rgb, uFogColour, fog);
}
// Water over graded ground colour \`rgb\` at \`world\` (on the surface), \`metres\` deep, \`wet\`
// 0..1 (waterAt), \`depth\` from the eye: coloured by depth as preview.png and the mesh look are
// (shore (86, 150, 166) to deep (20, 52, 94) sRGB, 1 − 1/e of the way at 40 m), the bed showing
// through the first metres, the sky (the background) reflected by Schlick's Fresnel, a glint of
// the mesh look's default sun (bearing 216°, 30° up; captured ground has no sun of its own) and
// a pale fringe where it is shallower than 30 cm; then exposure and fog as the ground takes them.
vec3 waterOver(vec3 rgb, float metres, float wet, vec3 world, float depth) {
  vec3 wc = mix(vec3(0.337, 0.588, 0.651), vec3(0.078, 0.204, 0.369), 1.0 - exp(-metres / 40.0));
  vec3 v = normalize(uEye - world);
  float fres = 0.02 + 0.98 * pow(1.0 - clamp(v.z, 0.0, 1.0), 5.0);
  vec3 c = mix(wc, uFogColour, fres);
  vec3 sun = vec3(-0.509, -0.701, 0.5);
  c += vec3(1.0, 0.95, 0.85) * 0.6 * pow(max(normalize(v + sun).z, 0.0), 300.0);
  c = mix(c, rgb * vec3(0.75, 0.9, 0.95), 0.7 * exp(-metres / 1.5));
  c = mix(c, vec3(0.85, 0.9, 0.9), 0.35 * (1.0 - smoothstep(0.0, 0.3, metres)));
  c = clamp(c * uExposure, 0.0, 1.0);
  c = mix(c, uFogColour, 1.0 - exp(-uFogDensity * max(depth, 0.0)));
  return mix(rgb, c, wet);
}
${DOORWAY_GLSL}
`;

export const SPLAT_VS = `#version 300 es
precision highp float;
precision highp int;
precision highp sampler2D;
precision highp usampler2D;
const float DILATION = ${DILATION.toFixed(4)};
uniform sampler2D uData;     // RGBA32F, 3 texels per splat: pos+opacity, scale, quat (w,x,y,z)
uniform sampler2D uColour;   // RGBA8, 1 texel per splat
uniform usampler2D uHash;    // R32UI, survival hash per splat (of its index within its level)
uniform mat3 uView;          // world -> camera (rows right, down, forward)
uniform vec3 uEye;
uniform vec2 uFocal, uViewport;
uniform vec2 uCellXY[8];     // cell centre per slot
uniform uint uSlotT[8];      // survival threshold per slot: drawn when hash <= T (select.rs)
uniform vec2 uSlotCls[8];    // rule class, strength (overlay)
uniform float uSlotSub[8];   // the slot's tile class where its cell draws a class edge, else -1
uniform vec3 uSlotGain[8];   // the slot's tile levelling gain (tileLevels), mixed in by uLevel
uniform float uLevel;
uniform float uFarOn, uFarStart, uFarBand;
${TERRAIN_GLSL}
${EDGE_GLSL}
${COLOUR_GLSL}
in vec2 aCorner;             // quad corner, ±2
in uint aIndex;              // slot << INDEX_BITS | splat index (merge.js pack)
out vec2 vCorner;
out vec4 vColour;
out float vFar;

vec4 dataAt(int i, int k) { int t = i * 3 + k; return texelFetch(uData, ivec2(t & 2047, t >> 11), 0); }
void cull() { gl_Position = vec4(0.0, 0.0, 2.0, 1.0); vColour = vec4(0.0); vCorner = vec2(0.0); vFar = 1.0; }

void main() {
  int slot = int(aIndex >> ${INDEX_BITS}u);
  int sid = int(aIndex & ${INDEX_MASK_HEX});
  uint hash = texelFetch(uHash, ivec2(sid & 2047, sid >> 11), 0).r;
  if (hash > uSlotT[slot]) { cull(); return; }
  vec4 a = dataAt(sid, 0), b = dataAt(sid, 1), q = dataAt(sid, 2);
  mat3 spin = mat3(uGridRot.x, uGridRot.y, 0.0, -uGridRot.y, uGridRot.x, 0.0, 0.0, 0.0, 1.0);
  vec3 local = spin * a.xyz;
  // smooth placement: each splat anchored at its own xy
  vec2 anchor = uCellXY[slot] + local.xy;
  float sub = uSlotSub[slot];
  if (sub >= 0.0) {
    // class edge: drawn only on its class's side, the hash dithering the band
    float e = edgeAt(anchor) + ${EDGE_DITHER.toFixed(3)} * (float(hash) / 4294967296.0 - 0.5);
    if ((e > 0.0) != (sub < 0.5)) { cull(); return; }
  }
  vec2 g = terrainGrad(anchor);
  vec3 ju = vec3(1.0, 0.0, g.x), jv = vec3(0.0, 1.0, g.y);
  vec3 nrm = normalize(cross(ju, jv));
  vec3 world = vec3(anchor, terrainHeight(anchor)) + local.z * nrm; // frame·(0,0,z): xy offset is 0 at the anchor
  // Under water a splat rises to the water's surface and takes its colour (below).
  vec3 water = waterAt(anchor);
  bool under = water.z > 0.0 && world.z < water.x;
  if (under) world.z = water.x;
  vec3 cam = uView * (world - uEye);
  vFar = uFarOn > 0.5 ? smoothstep(uFarStart - uFarBand, uFarStart, cam.z) : 0.0;
  if (cam.z < 0.02 || vFar >= 1.0) { cull(); return; }

  float ql = length(q);
  float w = q.x / ql, x = q.y / ql, y = q.z / ql, z = q.w / ql;
  mat3 R = mat3(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + w * z), 2.0 * (x * z - w * y),
                2.0 * (x * y - w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + w * x),
                2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y));
  // Σ' = (J·spin·R·S)(J·spin·R·S)ᵀ with the true (unnormalised) surface Jacobian
  mat3 M = mat3(ju, jv, nrm) * spin * R * mat3(b.x, 0.0, 0.0, 0.0, b.y, 0.0, 0.0, 0.0, b.z);
  mat3 sigma = M * transpose(M);

  float iz = 1.0 / cam.z;
  float limx = 1.3 * 0.5 * uViewport.x / uFocal.x, limy = 1.3 * 0.5 * uViewport.y / uFocal.y;
  float cx = clamp(cam.x * iz, -limx, limx) * cam.z, cy = clamp(cam.y * iz, -limy, limy) * cam.z;
  mat3 J = mat3(uFocal.x * iz, 0.0, 0.0, 0.0, uFocal.y * iz, 0.0,
                -uFocal.x * cx * iz * iz, -uFocal.y * cy * iz * iz, 0.0);
  mat3 T = J * uView;
  mat3 c2 = T * sigma * transpose(T);
  float ca = c2[0][0] + DILATION, cb = c2[0][1], cc = c2[1][1] + DILATION;
  float mid = 0.5 * (ca + cc);
  float rad = sqrt(max(mid * mid - (ca * cc - cb * cb), 0.1));
  float l1 = mid + rad, l2 = max(mid - rad, 0.1);
  if (l1 < 0.15) { cull(); return; }
  vec2 dir = abs(cb) > 1e-9 ? normalize(vec2(cb, l1 - ca)) : (ca >= cc ? vec2(1.0, 0.0) : vec2(0.0, 1.0));
  vec2 major = min(sqrt(2.0 * l1), 1024.0) * dir;
  vec2 minor = min(sqrt(2.0 * l2), 1024.0) * vec2(-dir.y, dir.x);
  vec2 px = uFocal * cam.xy * iz + aCorner.x * major + aCorner.y * minor;
  gl_Position = vec4(2.0 * px.x / uViewport.x, -2.0 * px.y / uViewport.y, 0.0, 1.0);
  vCorner = aCorner;

  vec4 col = texelFetch(uColour, ivec2(sid & 2047, sid >> 11), 0);
  vec2 cls = uSlotCls[slot];
  vec3 rgb = grade(col.rgb * mix(vec3(1.0), uSlotGain[slot], uLevel), anchor, cam.z, cls.x, cls.y);
  if (under) rgb = waterOver(rgb, water.y, water.z, world, cam.z);
  vColour = vec4(rgb, a.w);
}
`;

export const SPLAT_FS = `#version 300 es
precision highp float;
in vec2 vCorner;
in vec4 vColour;
in float vFar;
uniform float uFarOn;
uniform vec2 uDoor;          // LOD cross-fade: keep lo <= doorway < hi (lodDoors; [0, 2) = all)
out vec4 outColour;
${DOORWAY_GLSL}
void main() {
  float r2 = dot(vCorner, vCorner);
  if (r2 > 4.0) discard;
  float alpha = exp(-r2) * vColour.a;
  if (alpha < 0.004) discard;
  float dw = doorway(gl_FragCoord.xy);
  if (dw < uDoor.x || dw >= uDoor.y) discard;
  if (uFarOn > 0.5 && vFar >= dw) discard;
  outColour = vec4(vColour.rgb * alpha, alpha);
}
`;

// Far field: one mesh over the grid, same height function, textured from the atlas.
export const FAR_VS = `#version 300 es
precision highp float;
precision highp int;
precision highp sampler2D;
uniform mat3 uView;
uniform vec3 uEye;
uniform vec2 uFocal, uViewport;
uniform float uNear, uFarPlane;
${TERRAIN_GLSL}
in vec2 aGrid;               // grid-local position in tiles, origin at the grid centre, y north
out vec2 vGrid;
out vec2 vWorld;
out float vDepth;
void main() {
  vec2 l = aGrid * uTile;
  vec2 w = vec2(uGridRot.x * l.x - uGridRot.y * l.y, uGridRot.y * l.x + uGridRot.x * l.y);
  vec3 cam = uView * (vec3(w, max(terrainHeight(w), waterAt(w).x)) - uEye);
  float A = (uFarPlane + uNear) / (uFarPlane - uNear), B = -2.0 * uFarPlane * uNear / (uFarPlane - uNear);
  gl_Position = vec4(2.0 * uFocal.x * cam.x / uViewport.x, -2.0 * uFocal.y * cam.y / uViewport.y, A * cam.z + B, cam.z);
  vGrid = aGrid;
  vWorld = w;
  vDepth = cam.z;
}
`;

export const FAR_FS = `#version 300 es
precision highp float;
precision highp int;
precision highp sampler2D;
uniform sampler2D uAtlas;
uniform sampler2D uCells;    // RGBA8 n×n: tile index lo, hi, class, strength
uniform sampler2D uTileInfo; // RGBA32F count×3: row 0 gain, row 1 splat mean colour, row 2 levelling
uniform float uLevel;
uniform vec2 uAtlasGrid;     // cols, rows
uniform float uAtlasRes;     // pixels per tile
uniform sampler2D uAltCells; // RGBA8 n×n: the edge's other tile index lo, hi, edge flag
uniform float uHorizon;      // 1: the skirt beyond the grid is drawn (farMesh), fading out
uniform float uUnderlay;     // 1: drawn under the splats' region too (no discard before the hand-over)
uniform vec3 uEye;
uniform float uFarOn, uFarStart, uFarBand;
${TERRAIN_GLSL}
${EDGE_GLSL}
${COLOUR_GLSL}
in vec2 vGrid;
in vec2 vWorld;
in float vDepth;
out vec4 outColour;
void main() {
  // Beyond the grid (the horizon skirt) no splats stand in: always drawn; the cells are
  // mirrored at the grid's edges as the terrain is (mirrorT), each tile's picture with them.
  float out_ = max(abs(vGrid.x), abs(vGrid.y)) - 0.5 * uGridN;
  bool inside = out_ <= 0.0;
  float a = uFarOn > 0.5 && inside ? smoothstep(uFarStart - uFarBand, uFarStart, vDepth) : 1.0;
  // Under the splats the far field is drawn too (the underlay): the gaps between splats show the
  // ground's own colour, not the sky; the hand-over is the splats' screen door alone.
  if (uUnderlay < 0.5 && a < doorway(gl_FragCoord.xy)) discard;
  vec2 cc0 = vec2(vGrid.x + 0.5 * uGridN, 0.5 * uGridN - vGrid.y);   // cells, x east, y south
  vec2 cc = vec2(mirrorT(cc0.x, uGridN), mirrorT(cc0.y, uGridN));
  ivec2 cell = clamp(ivec2(floor(cc)), ivec2(0), ivec2(int(uGridN) - 1));
  vec4 ct = texelFetch(uCells, cell, 0);
  int t = int(ct.r * 255.0 + 0.5) + 256 * int(ct.g * 255.0 + 0.5);
  vec4 ac = texelFetch(uAltCells, cell, 0);
  if (ac.b > 0.5) {
    // the same class edge as the splats', dithered over the band by a screen pattern
    float e = edgeAtCells(cc, vWorld) + ${EDGE_DITHER.toFixed(3)} * (doorway(gl_FragCoord.yx + 17.0) - 0.5);
    if ((e > 0.0) != (ct.b * 255.0 < 0.5)) t = int(ac.r * 255.0 + 0.5) + 256 * int(ac.g * 255.0 + 0.5);
  }
  vec2 lc = clamp(cc - vec2(cell), 0.5 / uAtlasRes, 1.0 - 0.5 / uAtlasRes); // no bleeding from atlas neighbours
  int cols = int(uAtlasGrid.x);
  vec2 uv = (vec2(float(t % cols), float(t / cols)) + lc) / uAtlasGrid;
  vec3 rgb = textureGrad(uAtlas, uv, dFdx(cc0) / uAtlasGrid, dFdy(cc0) / uAtlasGrid).rgb;
  vec3 gain = texelFetch(uTileInfo, ivec2(t, 0), 0).rgb;
  vec3 mean = texelFetch(uTileInfo, ivec2(t, 1), 0).rgb;
  vec3 level = mix(vec3(1.0), texelFetch(uTileInfo, ivec2(t, 2), 0).rgb, uLevel);
  rgb *= gain * level;
  rgb = mix(rgb, mean * level, 0.75 * smoothstep(1.5 * uFarStart, 5.0 * uFarStart, vDepth));
  vec3 graded = grade(rgb, vWorld, vDepth, ct.b * 255.0, ct.a);
  vec3 water = waterAt(vWorld);
  if (water.z > 0.0 && water.x > terrainHeight(vWorld)) graded = waterOver(graded, water.y, water.z, vec3(vWorld, water.x), vDepth);
  // the skirt fades into the sky towards its outer edge
  float reach = ${(HORIZON_SCALE - 1).toFixed(1)} * 0.5 * uGridN;
  graded = mix(graded, uFogColour, uHorizon * smoothstep(0.25 * reach, reach, out_));
  outColour = vec4(graded, 1.0);
}
`;

// GLSL ES 3.00 sources of the mesh mode (mesh.js): the sky, the vista rings and ground disc,
// and the terrain. Every pass ends in the same output stage: exposure, AgX tone mapping, the
// sRGB transfer function and a ±½-step dither (the canvas is an 8-bit, non-sRGB framebuffer).
//
// World: x east, y north, z up, metres (camera.js). The camera is passed as a column-major mat4
// view-projection (camera.js viewProjection) plus, for the sky, the eye basis.

/** Shared output stage. `outColour(linear)` → display-encoded vec4 with dither. */
export const OUTPUT = /* glsl */ `
uniform float uExposure;

// AgX (Troy Sobotka's "AgX" display transform), from its published description: an inset
// matrix that pulls the primaries toward the achromatic axis, a log2 encoding of
// [-12.47393, +4.026069] stops around middle grey 0.18 into 0..1, the default-contrast
// sigmoid (the usual 6th-order polynomial fit), the inverse (outset) matrix, and the 2.2 power
// back to linear display light.
const mat3 AGX_INSET = mat3(
  0.842479062253094, 0.0423282422610123, 0.0423756549057051,
  0.0784335999999992, 0.878468636469772, 0.0784336,
  0.0792237451477643, 0.0791661274605434, 0.879142973793104);
const mat3 AGX_OUTSET = mat3(
  1.19687900512017, -0.0528968517574562, -0.0529716355144438,
  -0.0980208811401368, 1.15190312990417, -0.0980434501171241,
  -0.0990297440797205, -0.0989611768448433, 1.15107367264116);
const float AGX_MIN_EV = -12.47393;
const float AGX_MAX_EV = 4.026069;

vec3 agxSigmoid(vec3 x) {
  vec3 x2 = x * x;
  vec3 x4 = x2 * x2;
  return 15.5 * x4 * x2 - 40.14 * x4 * x + 31.96 * x4 - 6.868 * x2 * x + 0.4298 * x2 + 0.1191 * x - 0.00232;
}

vec3 agx(vec3 c) {
  c = AGX_INSET * max(c, vec3(1e-10));
  c = clamp(log2(c), AGX_MIN_EV, AGX_MAX_EV);
  c = (c - AGX_MIN_EV) / (AGX_MAX_EV - AGX_MIN_EV);
  c = agxSigmoid(c);
  c = AGX_OUTSET * c;
  return pow(max(c, vec3(0.0)), vec3(2.2));
}

vec3 srgbEncode(vec3 c) {
  c = clamp(c, 0.0, 1.0);
  return mix(12.92 * c, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c));
}

float hash12(vec2 p) {
  vec3 p3 = fract(vec3(p.xyx) * 0.1031);
  p3 += dot(p3, p3.yzx + 33.33);
  return fract((p3.x + p3.y) * p3.z);
}

vec4 outColour(vec3 linear) {
  vec3 c = srgbEncode(agx(linear * uExposure));
  c += (hash12(gl_FragCoord.xy) - 0.5) / 255.0;
  return vec4(c, 1.0);
}
`;

/** Shared atmosphere: sky gradient and the fog colour toward a direction. */
export const ATMOSPHERE = /* glsl */ `
uniform vec3 uSunDir;      // unit, toward the sun
uniform vec3 uSunColour;   // linear radiance of the sun
uniform vec3 uZenith;      // linear sky colours
uniform vec3 uHorizon;
uniform vec3 uGroundHaze;  // below the horizon

// Sky radiance along unit direction d: zenith→horizon gradient, a haze band at the horizon
// and a broad glow around the sun. No sun disc (restraint: §8.5).
vec3 skyColour(vec3 d) {
  float up = d.z;
  float t = pow(clamp(up, 0.0, 1.0), 0.38);
  vec3 c = mix(uHorizon, uZenith, t);
  c = mix(c, uGroundHaze, smoothstep(0.0, -0.12, up));
  float mu = max(dot(d, uSunDir), 0.0);
  c += uSunColour * (0.018 * pow(mu, 6.0) + 0.05 * pow(mu, 64.0)) * (1.0 - 0.6 * clamp(up, 0.0, 1.0));
  return c;
}

// Fog colour along unit direction d: the sky just above the horizon in that direction, so
// aerial perspective fades the ground into the sky it stands against.
vec3 fogColour(vec3 d) {
  vec3 h = normalize(vec3(d.xy, 0.03 + 0.25 * max(d.z, 0.0)) + vec3(0.0, 0.0, 1e-4));
  return skyColour(h);
}
`;

/**
 * Detail textures with anti-tiling (seed 003's study; the CPU twin is
 * `bozkir_render::antitile`, same lattice, same hash, same blends). Modes (uDetailMode):
 * 0 plain (1 fetch), 1 hex-linear (3), 2 hex-vp (3: variance-preserving, the texture's mean in
 * linear light from the CPU), 3 hex-mikkelsen (3), 4 two-sample (2, Quilez's technique 3).
 * Offsets come from the canonical integer hash of the lattice vertex (hashU, 32-bit unsigned
 * arithmetic as in bozkir_core::hash::hash_u32). Every fetch uses textureGrad with the gradients
 * of the unperturbed coordinates, so the offsets' jumps along lattice edges make no mip seam.
 */
export const DETAIL = /* glsl */ `
uniform int uDetailMode;      // -1 off, else the mode above
uniform int uDetailModeB;     // A/B view: the mode right of uSplit (-2: no comparison)
uniform float uSplit;         // A/B view: the split's x in framebuffer pixels
uniform float uHexSize;       // triangle side in texture repeats
uniform uint uDetailSeed;
uniform float uDetailRelief;  // strength of the photos' normal maps (0: not fetched)
int detailMode = -1;          // this fragment's mode (set by the terrain shader's main)

uint hashU(uint x, uint y, uint s) {
  uint h = (x * 0x27D4EB2Du) ^ (y * 0x165667B1u) ^ (s * 0x9E3779B1u);
  h = (h ^ (h >> 15u)) * 0x85EBCA6Bu;
  h = (h ^ (h >> 13u)) * 0xC2B2AE35u;
  return h ^ (h >> 16u);
}

float hashUnit(uint x, uint y, uint s) {
  return float(hashU(x, y, s)) * (1.0 / 4294967296.0);
}

// The texture offset of lattice vertex v, in repeats.
vec2 vertexOffset(ivec2 v, uint seed) {
  uint a = uint(v.x), b = uint(v.y);
  return vec2(hashUnit(a, b, seed), hashUnit(a, b, seed ^ 0x5BD1E995u));
}

// Value noise of period p (smoothstep between lattice values hashUnit), in [0, 1).
float valueNoise(vec2 q, float p, uint seed) {
  vec2 f = q / p;
  vec2 i = floor(f);
  vec2 t = f - i;
  vec2 sm = t * t * (3.0 - 2.0 * t);
  uint ix = uint(int(i.x)), iy = uint(int(i.y));
  float a = hashUnit(ix, iy, seed), b = hashUnit(ix + 1u, iy, seed);
  float c = hashUnit(ix, iy + 1u, seed), d = hashUnit(ix + 1u, iy + 1u, seed);
  float top = a + (b - a) * sm.x, bot = c + (d - c) * sm.x;
  return top + (bot - top) * sm.y;
}

float detailLum(vec3 c) { return dot(c, vec3(0.2126, 0.7152, 0.0722)); }

// The photo's normal map at one offset sample (flat, no fetch, when the relief is off).
vec4 normalFetch(sampler2D tn, vec2 uv, vec2 gx, vec2 gy) {
  return uDetailRelief > 0.0 ? textureGrad(tn, uv, gx, gy) : vec4(0.5, 0.5, 1.0, 1.0);
}

// One plane of a detail texture at uv (repeats) under detailMode; mean: its linear mean colour.
// tn: the photo's normal map (photoNormalMap: RGBA8, normal ·0.5+0.5 and cavity occlusion), read
// at the same offsets with the same weights (steered by the colour, so relief and colour stay
// together) into nOut; nmean: its mean, about which hex-vp blends it too.
vec3 tiledSample(sampler2D t, vec3 mean, vec2 uv, vec2 gx, vec2 gy, uint seed, sampler2D tn, vec4 nmean, out vec4 nOut) {
  if (detailMode == 0) {
    nOut = normalFetch(tn, uv, gx, gy);
    return textureGrad(t, uv, gx, gy).rgb;
  }
  if (detailMode == 4) {
    float k = valueNoise(uv, 1.0, seed ^ 0x2545F491u) * 8.0;
    float ia = floor(k);
    float f = k - ia;
    vec2 oa = vertexOffset(ivec2(int(ia), -1), seed), ob = vertexOffset(ivec2(int(ia) + 1, -1), seed);
    vec3 ca = textureGrad(t, uv + oa, gx, gy).rgb, cb = textureGrad(t, uv + ob, gx, gy).rgb;
    float d = (ca.r - cb.r) + (ca.g - cb.g) + (ca.b - cb.b);
    float s = smoothstep(0.2, 0.8, f - 0.1 * d);
    nOut = mix(normalFetch(tn, uv + oa, gx, gy), normalFetch(tn, uv + ob, gx, gy), s);
    return mix(ca, cb, s);
  }
  const float S3 = 1.7320508075688772;
  float s = max(uHexSize, 1e-6);
  vec2 ab = vec2(uv.x - uv.y / S3, 2.0 * uv.y / S3) / s;
  vec2 fl = floor(ab), fr = ab - fl;
  ivec2 b = ivec2(fl);
  ivec2 v0, v1 = b + ivec2(1, 0), v2 = b + ivec2(0, 1);
  vec3 w;
  if (fr.x + fr.y < 1.0) { v0 = b; w = vec3(1.0 - fr.x - fr.y, fr.x, fr.y); }
  else { v0 = b + ivec2(1, 1); w = vec3(fr.x + fr.y - 1.0, 1.0 - fr.y, 1.0 - fr.x); }
  vec2 o0 = vertexOffset(v0, seed), o1 = vertexOffset(v1, seed), o2 = vertexOffset(v2, seed);
  vec3 c0 = textureGrad(t, uv + o0, gx, gy).rgb;
  vec3 c1 = textureGrad(t, uv + o1, gx, gy).rgb;
  vec3 c2 = textureGrad(t, uv + o2, gx, gy).rgb;
  vec4 n0 = normalFetch(tn, uv + o0, gx, gy), n1 = normalFetch(tn, uv + o1, gx, gy), n2 = normalFetch(tn, uv + o2, gx, gy);
  if (detailMode == 2) {
    float lw = length(w);
    nOut = nmean + (w.x * (n0 - nmean) + w.y * (n1 - nmean) + w.z * (n2 - nmean)) / lw;
    return mean + (w.x * (c0 - mean) + w.y * (c1 - mean) + w.z * (c2 - mean)) / lw;
  }
  if (detailMode == 3) {
    vec3 steer = max(vec3(1.0) + (vec3(detailLum(c0), detailLum(c1), detailLum(c2)) - 1.0) * 0.6, 0.0);
    vec3 ww = steer * pow(max(w, 0.0), vec3(7.0));
    float sum = ww.x + ww.y + ww.z;
    if (sum > 0.0) w = ww / sum;
  }
  nOut = w.x * n0 + w.y * n1 + w.z * n2;
  return w.x * c0 + w.y * c1 + w.z * c2;
}
`;

export const SKY_VS = /* glsl */ `#version 300 es
// A full-screen triangle; the fragment shader turns each pixel into a view ray.
out vec2 vNdc;
void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2)) * 2.0 - 1.0;
  vNdc = p;
  gl_Position = vec4(p, 1.0, 1.0);
}
`;

export const SKY_FS = /* glsl */ `#version 300 es
precision highp float;
in vec2 vNdc;
uniform vec3 uRight, uDown, uForward; // camera basis (camera.js)
uniform vec2 uTan;                     // tan(half fov) · (aspect, 1)
${OUTPUT}
${ATMOSPHERE}
out vec4 fragColor;
void main() {
  vec3 d = normalize(uForward + uRight * (vNdc.x * uTan.x) - uDown * (vNdc.y * uTan.y));
  fragColor = outColour(skyColour(d));
}
`;

export const FLAT_VS = /* glsl */ `#version 300 es
// Vista rings and the ground disc: positions in metres, a per-vertex tone index in w.
layout(location = 0) in vec4 aPos;
uniform mat4 uViewProj;
out vec3 vWorld;
out float vTone;
void main() {
  vWorld = aPos.xyz;
  vTone = aPos.w;
  gl_Position = uViewProj * vec4(aPos.xyz, 1.0);
}
`;

export const FLAT_FS = /* glsl */ `#version 300 es
precision highp float;
in vec3 vWorld;
in float vTone;
uniform vec3 uEye;
uniform vec3 uTones[6];   // ring tones (index 0..4), ground disc (5): flat haze colours
uniform vec2 uDisc;       // ground disc: radius where it reaches the far haze tone; fog density
uniform vec3 uNearGround; // the ground disc's tone at the terrain's edge
${OUTPUT}
${ATMOSPHERE}
out vec4 fragColor;
void main() {
  vec3 c;
  if (vTone < 4.5) {
    // Fog-exempt flat haze tone of ring k; a faint darkening toward the ring's foot keeps the
    // silhouette crisp at the top and soft below.
    int k = int(vTone + 0.5);
    c = uTones[k];
  } else {
    // Ground disc: from the terrain's mean ground tone at its edge to the far haze tone.
    float r = length(vWorld.xy);
    vec3 d = normalize(vWorld - uEye);
    float f = 1.0 - exp(-length(vWorld - uEye) * uDisc.y);
    c = mix(uNearGround, uTones[5], smoothstep(0.0, uDisc.x, r));
    c = mix(c, fogColour(d), 0.5 * f);
  }
  fragColor = outColour(c);
}
`;

export const TERRAIN_VS = /* glsl */ `#version 300 es
// A grid of (uCount.x + 2) × (uCount.y + 2) vertices from gl_VertexID (no vertex buffer):
// vertex (i, j), i, j in -1..count, samples the height texture at the cell its position maps to;
// the outer ring (i or j = -1 or count) is the skirt, pulled down to uBaseZ so the terrain
// stands on the ground disc as a solid block.
precision highp float;
precision highp sampler2D;
uniform sampler2D uHeight;   // R32F metres, row 0 north (texel (c, r))
uniform ivec2 uCount;        // mesh vertices per side (without the skirt)
uniform ivec2 uCells;        // height texture size
uniform vec2 uCellM;         // metres per texel (x east, y north)
uniform float uExag;         // vertical exaggeration
uniform float uBaseZ;        // skirt bottom (metres, already exaggerated)
uniform float uSeaZ;         // the sea's surface (exaggerated metres); very low without a sea
uniform sampler2D uWater;    // R32F water surface level in metres (lakes, rivers; mesh.js waterLevels), uCells texels
uniform int uHasWater;
uniform sampler2D uFold;     // RG32F lateral fold, metres east and south (a recipe's fold stage), uCells texels
uniform int uHasFold;
uniform mat4 uViewProj;
out vec3 vWorld;
out vec2 vUv;
out float vSkirt;
out float vDepth;            // water surface − ground (exaggerated metres): > 0 under water, < 0 on the shore's dry side
void main() {
  int cols = uCount.x + 2;
  int i = gl_VertexID % cols - 1;
  int j = gl_VertexID / cols - 1;
  bool skirt = i < 0 || j < 0 || i >= uCount.x || j >= uCount.y;
  int ci = clamp(i, 0, uCount.x - 1), cj = clamp(j, 0, uCount.y - 1);
  // Exact texels for the decimated grid: first and last vertices on the first and last cells.
  int c = (ci * (uCells.x - 1) + (uCount.x - 1) / 2) / max(uCount.x - 1, 1);
  int r = (cj * (uCells.y - 1) + (uCount.y - 1) / 2) / max(uCount.y - 1, 1);
  float h = texelFetch(uHeight, ivec2(c, r), 0).r * uExag;
  vec2 half_ = 0.5 * vec2(uCells - 1) * uCellM;
  vec2 xy = vec2(float(c) * uCellM.x - half_.x, half_.y - float(r) * uCellM.y);
  // The lateral fold moves the vertex sideways (south is −y); the heights stay.
  if (uHasFold == 1) {
    vec2 fo = texelFetch(uFold, ivec2(c, r), 0).rg;
    xy += vec2(fo.x, -fo.y);
  }
  // The sea is a level surface over its floor, lakes and rivers stand at their level: the mesh
  // stands at the water's height there. A dry vertex carries a negative level − ground (its
  // ground minus the water beside it: mesh.js waterLevels; the sea's level under its ground), so
  // the shoreline crosses the shore's triangles instead of following the cells' edges.
  float lv = uHasWater == 1 ? texelFetch(uWater, ivec2(c, r), 0).r * uExag : -1e30;
  float level = max(lv, uSeaZ);
  float z = skirt ? uBaseZ : max(h, level);
  vDepth = skirt ? 0.0 : level - h;
  vWorld = vec3(xy, z);
  vUv = (vec2(c, r) + 0.5) / vec2(uCells);
  vSkirt = skirt ? 1.0 : 0.0;
  gl_Position = uViewProj * vec4(vWorld, 1.0);
}
`;

export const TERRAIN_FS = /* glsl */ `#version 300 es
precision highp float;
in vec3 vWorld;
in vec2 vUv;
in float vSkirt;
in float vDepth;
uniform sampler2D uShape;    // RGBA8: macro normal x, y (·0.5+0.5), ambient occlusion, sun visibility
uniform sampler2D uAlbedo;   // sRGB albedo (baked, or 1×1 when none)
uniform sampler2D uMicro;    // micro-normal, tangent space x east, y north (·0.5+0.5)
uniform sampler2D uRivers;   // bake's rivers.png: red coverage, green depth / 3 m (laid as the albedo)
uniform int uHasRivers;
uniform int uHasAlbedo;
uniform int uHasMicro;
uniform float uMicroStrength;
uniform float uAlbedoGain;
uniform vec3 uSkirt;         // the skirt's flat albedo
uniform vec3 uEye;
uniform vec2 uFog;           // start (metres), density (1/metres)
uniform float uFogAmount;    // 0..1 scale of the fog
uniform vec3 uSkyAmbient;    // linear, from the sky hemisphere
uniform vec3 uBounce;        // linear, from the ground below
uniform vec2 uRelief;        // lowest height, 1 / height range (exaggerated metres)
uniform sampler2D uDetail0;  // ground photo (sRGB, repeating, mipmapped): gentle ground, top projection
uniform sampler2D uDetail1;  // rock photo: steep ground, triplanar
uniform vec3 uDetailMean0;   // their linear mean colours
uniform vec3 uDetailMean1;
uniform float uDetailScale;  // metres per repeat
uniform float uDetailStrength; // share of the photos' contrast kept (0..1)
uniform sampler2D uDetailN0; // their normal maps with cavity occlusion (photoNormalMap), linear
uniform sampler2D uDetailN1;
uniform vec4 uDetailNMean0;  // the normal maps' mean texels
uniform vec4 uDetailNMean1;
uniform sampler2D uDetail2;  // the generated sets (mesh.js snowTexture, sandTexture, soilTexture), sRGB
uniform sampler2D uDetail3;
uniform sampler2D uDetail4;
uniform sampler2D uDetailN2;
uniform sampler2D uDetailN3;
uniform sampler2D uDetailN4;
uniform vec3 uDetailMean2;
uniform vec3 uDetailMean3;
uniform vec3 uDetailMean4;
uniform vec4 uDetailNMean2;
uniform vec4 uDetailNMean3;
uniform vec4 uDetailNMean4;
uniform sampler2D uMaterials; // bake's materials as weights (mesh.js materialWeights): r rock, g scree, b grass, a snow
uniform sampler2D uMaterials2; // r sand, g soil
uniform int uHasMaterials;
${OUTPUT}
${ATMOSPHERE}
${DETAIL}
out vec4 fragColor;

// Fallback albedo without a bake: a reduced, low-saturation palette by slope and height
// (§8.1): warm dry floor, olive-grey slopes, grey-brown rock on steep faces, paler heights.
vec3 paletteAlbedo(float slope, float hn) {
  vec3 floor_ = vec3(0.30, 0.25, 0.17);
  vec3 grass = vec3(0.17, 0.18, 0.11);
  vec3 rock = vec3(0.24, 0.21, 0.18);
  vec3 high = vec3(0.34, 0.32, 0.28);
  vec3 c = mix(floor_, grass, smoothstep(0.05, 0.25, hn));
  c = mix(c, high, smoothstep(0.65, 0.95, hn));
  c = mix(c, rock, smoothstep(0.35, 0.75, slope));
  return c * 0.85;
}

// The slope (tangent x, y over z) of a detail normal map's texel (·0.5+0.5 encoded).
vec2 detailSlope(vec4 t) {
  return (t.xy * 2.0 - 1.0) / max(t.z * 2.0 - 1.0, 0.2);
}

// One detail set seen from above, weight w (skipped below 0.01): its grain as a ratio to its
// mean into g, its normal map's slope into bump, its cavity into ao, the weight into ws.
void topSet(float w, sampler2D t, vec3 mean, sampler2D tn, vec4 nmean, uint seed, vec2 uv, vec2 gx, vec2 gy,
            inout vec3 g, inout vec3 bump, inout float ao, inout float ws) {
  if (w <= 0.01) return;
  vec4 nt;
  g += w * tiledSample(t, mean, uv, gx, gy, seed, tn, nmean, nt) / max(mean, vec3(1e-4));
  bump += w * vec3(detailSlope(nt), 0.0);
  ao += w * nt.a;
  ws += w;
}
// Water \`depth\` metres deep seen along \`toP\` (eye to point, \`dist\` long) over ground of
// \`albedo\`: level (normal up), coloured by depth as preview.png is (shore (86, 150, 166) to deep
// (20, 52, 94) sRGB, 1 - 1/e of the way at 40 m), lit like the ground, plus the sky reflected by
// Schlick's Fresnel and the sun's glint; the ground showing through where it is shallow.
vec3 waterLit(float depth, vec3 toP, float dist, vec3 albedo) {
  vec3 shallow = vec3(0.093, 0.305, 0.381), deep = vec3(0.007, 0.034, 0.111);
  vec3 wc = mix(shallow, deep, 1.0 - exp(-depth / 40.0));
  vec3 v = -toP / max(dist, 1e-3);
  vec3 up = vec3(0.0, 0.0, 1.0);
  float cosv = max(v.z, 0.0);
  float fres = 0.02 + 0.98 * pow(1.0 - cosv, 5.0);
  vec3 body = wc * (uSunColour * max(uSunDir.z, 0.0) * 0.6 + uSkyAmbient);
  vec3 refl = skyColour(reflect(-v, up));
  float glint = pow(max(dot(normalize(v + uSunDir), up), 0.0), 400.0);
  vec3 lit = mix(body, refl, fres) + uSunColour * glint * 0.8;
  return mix(lit, albedo * (uSunColour * max(uSunDir.z, 0.0) + uSkyAmbient), 1.0 - smoothstep(0.0, 0.5, depth));
}

void main() {
  vec4 shape = texture(uShape, vUv);
  vec2 nxy = shape.xy * 2.0 - 1.0;
  vec3 n = normalize(vec3(nxy, sqrt(max(1.0 - dot(nxy, nxy), 0.0))));
  // The skirt's faces (triangles with a skirt vertex whose face is vertical): a cut through
  // the ground, facing outward, drawn in one flat earth tone.
  vec3 face = normalize(cross(dFdx(vWorld), dFdy(vWorld)));
  bool skirt = vSkirt > 0.0 && abs(face.z) < 0.02;
  if (skirt) {
    n = dot(face, uEye - vWorld) < 0.0 ? -face : face;
  }
  float slope = 1.0 - n.z;
  // Detail coordinates and their gradients, in uniform control flow (the planes of triplanar:
  // top (x, -y), east (y, -z), north (x, -z); metres over the repeat).
  vec3 dp = vWorld / max(uDetailScale, 1e-3);
  vec2 uvz = vec2(dp.x, -dp.y), uvx = vec2(dp.y, -dp.z), uvy = vec2(dp.x, -dp.z);
  vec2 gzx = dFdx(uvz), gzy = dFdy(uvz), gxx = dFdx(uvx), gxy = dFdy(uvx), gyx = dFdx(uvy), gyy = dFdy(uvy);
  vec3 albedo;
  float detailAo = 1.0;
  if (uHasAlbedo == 1) {
    albedo = texture(uAlbedo, vUv).rgb * uAlbedoGain;
  } else {
    float hn = clamp((vWorld.z - uRelief.x) * uRelief.y, 0.0, 1.0);
    albedo = paletteAlbedo(clamp(slope * 3.0, 0.0, 1.0), hn);
  }
  if (skirt) albedo = uSkirt;
  // The A/B view: the same geometry and light, only the sampling differs across the split.
  detailMode = uDetailModeB > -2 && gl_FragCoord.x >= uSplit ? uDetailModeB : uDetailMode;
  if (detailMode >= 0 && !skirt) {
    // Detail sets, each as a ratio to its mean (the albedo keeps its colour and gains the grain),
    // with its normal map's slope (carried to world axes by each plane's frame) and cavity.
    // Without the bake's materials: the ground photo from above, the rock photo triplanar
    // (weights |n|^6) on steep ground (seed 001 §11.5). With them (materials.png): each
    // material its own set — rock the rock photo triplanar, scree the rock photo from above,
    // grass the ground photo, snow, sand and soil their generated sets — weighted by the
    // filtered material weights; none under water.
    vec4 wm;
    vec2 wm2 = vec2(0.0);
    if (uHasMaterials == 1) {
      wm = texture(uMaterials, vUv);
      wm2 = texture(uMaterials2, vUv).rg;
      float sum = wm.r + wm.g + wm.b + wm.a + wm2.x + wm2.y;
      wm = sum > 0.02 ? wm / sum : vec4(0.0);
      wm2 = sum > 0.02 ? wm2 / sum : vec2(0.0);
    } else {
      float rockW = smoothstep(0.22, 0.5, slope);
      wm = vec4(rockW, 0.0, 1.0 - rockW, 0.0);
    }
    vec3 g = vec3(0.0), bump = vec3(0.0);
    float ws = 0.0;
    detailAo = 0.0;
    vec4 nt;
    // The sets seen from above (grass, scree, snow, sand, soil), each under its own seed.
    topSet(wm.b, uDetail0, uDetailMean0, uDetailN0, uDetailNMean0, uDetailSeed, uvz, gzx, gzy, g, bump, detailAo, ws);
    topSet(wm.g, uDetail1, uDetailMean1, uDetailN1, uDetailNMean1, uDetailSeed, uvz, gzx, gzy, g, bump, detailAo, ws);
    topSet(wm.a, uDetail2, uDetailMean2, uDetailN2, uDetailNMean2, uDetailSeed ^ 0x68E31DA4u, uvz, gzx, gzy, g, bump, detailAo, ws);
    topSet(wm2.x, uDetail3, uDetailMean3, uDetailN3, uDetailNMean3, uDetailSeed ^ 0xB5297A4Du, uvz, gzx, gzy, g, bump, detailAo, ws);
    topSet(wm2.y, uDetail4, uDetailMean4, uDetailN4, uDetailNMean4, uDetailSeed ^ 0x1B56C4E9u, uvz, gzx, gzy, g, bump, detailAo, ws);
    if (wm.r > 0.01) {
      vec3 tw = pow(abs(n), vec3(6.0));
      tw /= max(tw.x + tw.y + tw.z, 1e-6);
      vec3 r = vec3(0.0), rb = vec3(0.0);
      float ra = 0.0;
      if (tw.x > 1e-4) {
        r += tw.x * tiledSample(uDetail1, uDetailMean1, uvx, gxx, gxy, uDetailSeed ^ 0x1B873593u, uDetailN1, uDetailNMean1, nt);
        vec2 s = detailSlope(nt);
        rb += tw.x * vec3(0.0, s.x, s.y);
        ra += tw.x * nt.a;
      }
      if (tw.y > 1e-4) {
        r += tw.y * tiledSample(uDetail1, uDetailMean1, uvy, gyx, gyy, uDetailSeed ^ 0xCC9E2D51u, uDetailN1, uDetailNMean1, nt);
        vec2 s = detailSlope(nt);
        rb += tw.y * vec3(s.x, 0.0, s.y);
        ra += tw.y * nt.a;
      }
      if (tw.z > 1e-4) {
        r += tw.z * tiledSample(uDetail1, uDetailMean1, uvz, gzx, gzy, uDetailSeed, uDetailN1, uDetailNMean1, nt);
        rb += tw.z * vec3(detailSlope(nt), 0.0);
        ra += tw.z * nt.a;
      }
      g += wm.r * r / max(uDetailMean1, vec3(1e-4));
      bump += wm.r * rb;
      detailAo += wm.r * ra;
      ws += wm.r;
    }
    if (ws > 0.0) {
      g /= ws;
      bump /= ws;
      detailAo /= ws;
    } else {
      g = vec3(1.0);
      detailAo = 1.0;
    }
    albedo *= max(vec3(1.0) + uDetailStrength * (g - 1.0), vec3(0.0));
    if (uDetailRelief > 0.0) {
      n = normalize(n + uDetailRelief * bump);
      detailAo = mix(1.0, detailAo, min(uDetailRelief, 1.0));
    } else {
      detailAo = 1.0;
    }
  }
  // Micro-normal: tangent-space grain on top of the macro normal (frame: east, north, up
  // carried onto the surface).
  if (uHasMicro == 1 && !skirt) {
    vec3 m = texture(uMicro, vUv).xyz * 2.0 - 1.0;
    m.xy *= uMicroStrength;
    vec3 t = normalize(vec3(n.z, 0.0, -n.x));
    vec3 b = normalize(cross(n, t));
    n = normalize(t * m.x + b * m.y + n * max(m.z, 0.05));
  }
  float ao = skirt ? 0.7 : shape.z * detailAo;
  float vis = skirt ? 1.0 : shape.w;
  // Matte Lambert: no specular term at all (§7.4).
  float ndl = max(dot(n, uSunDir), 0.0);
  vec3 sky = mix(uBounce, uSkyAmbient, 0.5 + 0.5 * n.z);
  vec3 lit = albedo * (uSunColour * ndl * vis + sky * ao);
  vec3 toP = vWorld - uEye;
  float dist = length(toP);
  if (vDepth > 0.0 && !skirt) {
    lit = waterLit(vDepth, toP, dist, albedo);
  } else if (uHasRivers == 1 && !skirt) {
    // Rivers as lines of their own width (the bake's rivers.png), on the ground's surface.
    vec2 rv = texture(uRivers, vUv).rg;
    if (rv.r > 0.0) lit = mix(lit, waterLit(max(rv.g * 3.0, 0.05), toP, dist, albedo), rv.r);
  }
  // Aerial perspective: exponential fog by distance, coloured as the sky behind.
  float f = uFogAmount * (1.0 - exp(-max(dist - uFog.x, 0.0) * uFog.y));
  vec3 c = mix(lit, fogColour(toP / max(dist, 1e-3)), f);
  if (uDetailModeB > -2 && abs(gl_FragCoord.x - uSplit) < 1.0) c = vec3(1.0);
  fragColor = outColour(c);
}
`;

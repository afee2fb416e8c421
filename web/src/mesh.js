// Mesh mode: any terrain drawn as a lit mesh, with the seed-001 look (§7–8) and no splats, so
// the erosion stack can be seen and compared stage by stage.
//
//   * a grid mesh fetched from a height texture in the vertex shader (≤ 1024² vertices; larger
//     terrains are box-filtered down), with a skirt down to the ground disc;
//   * the baked albedo and micro-normal of `bozkir bake` (albedo.png, normal.png), or a
//     slope/height palette when there is no bake; the macro normal, ambient occlusion (local
//     relief at two radii) and cast sun shadows (a height-field march toward the sun) baked into
//     one RGBA8 texture when the terrain is set;
//   * matte Lambert (no specular), a sun and a sky/bounce ambient;
//   * exponential fog by distance, coloured as the sky behind;
//   * a gradient sky (a full-screen pass drawn first, no depth write), 3–5 vista ridge rings
//     (open cylinders with noise-displaced tops in flat haze tones stepping toward the sky,
//     fog-exempt, facing inward so they never hide the terrain from outside) and a ground disc
//     to the horizon;
//   * exposure and AgX tone mapping (mesh-shaders.js).
//
// Shares the page's WebGL2 context: MeshView uses its own programs, buffers, textures and
// vertex arrays, sets every state it needs each frame and puts back the state it changed
// (see `render`). World: x east, y north, z up, metres, the terrain centred on the origin;
// the camera is camera.js's {target, az, el, dist, fov} or {eye, az, el, fov}.

import { cameraBasis, viewProjection, DEG } from './camera.js';
import { SKY_VS, SKY_FS, FLAT_VS, FLAT_FS, TERRAIN_VS, TERRAIN_FS } from './mesh-shaders.js';
import { program as link, readPixelsTopDown } from './gl-util.js';
import { hashU32 } from './render-logic.js';

/** Largest mesh side in vertices (seed 001 §7.2: a 1024² grid is the budget). */
export const MAX_MESH = 1024;

/** Defaults of `render`'s options. */
export const MESH_DEFAULTS = {
  exposure: 1,
  exaggeration: 1,
  sunEl: 30, // degrees above the horizon (§9)
  sunAz: 216, // bearing toward the sun
  fog: 1, // 0 = none; scales the density
  rings: 4, // vista ridge rings, 0 or 3..5
  micro: 1, // micro-normal strength
  shadows: true,
  albedoGain: 0.85,
  detail: 'hex-vp', // ground photos' anti-tiling mode (DETAIL_MODES), or 'off'
  detailCompare: '', // A/B view: another mode (or 'off') for the right half; '' for none
  detailScale: 6, // metres per photo repeat
  detailStrength: 0.6, // share of the photos' contrast kept
  detailRelief: 1, // strength of the photos' normal maps and cavity occlusion (0: none)
  detailSets: true, // with a bake's materials.png, each material its own detail set
  fold: true, // with a recipe's lateral fold (fold.f32), the vertices move sideways by it
  hexSize: 0.5, // lattice triangle side in repeats (hex modes)
};

/** The anti-tiling modes of the detail photos, in the shader's order (mesh-shaders.js DETAIL). */
export const DETAIL_MODES = ['plain', 'hex-linear', 'hex-vp', 'hex-mikkelsen', 'two-sample'];
/** Texture fetches per plane and photo of each mode. */
export const DETAIL_FETCHES = { plain: 1, 'hex-linear': 3, 'hex-vp': 3, 'hex-mikkelsen': 3, 'two-sample': 2 };
/** The bundled ground photos (CC0; web/textures/README.md): ground from above, rock triplanar. */
export const DETAIL_PHOTOS = { ground: 'textures/grass.png', rock: 'textures/gravel.png' };

const SKY = {
  zenith: [0.1, 0.2, 0.46],
  horizon: [0.7, 0.76, 0.86],
  groundHaze: [0.5, 0.5, 0.5],
  sun: [1.0, 0.9, 0.76],
  sunPower: 2.9,
  ambient: [0.2, 0.26, 0.38],
  bounce: [0.16, 0.13, 0.1],
};

// ===================================================================== helpers

const clamp = (x, a, b) => Math.min(b, Math.max(a, x));
const lerp3 = (a, b, t) => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
const srgbToLinear = (c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);

/** Unit vector toward the sun for an elevation and a bearing in degrees. */
export function sunDirection(elDeg, azDeg) {
  const e = elDeg * DEG, a = azDeg * DEG;
  return [Math.cos(e) * Math.sin(a), Math.cos(e) * Math.cos(a), Math.sin(e)];
}

// ===================================================================== CPU preparation

/**
 * The working grid: the heights as given when both sides are ≤ MAX_MESH, else box-filtered by an
 * integer factor. Returns {width, height, heights: Float32Array, cellX, cellY, step}.
 */
export function workingGrid(width, height, heights, cellX, cellY = cellX) {
  const step = Math.max(1, Math.ceil(Math.max(width, height) / MAX_MESH));
  if (step === 1) return { width, height, heights: Float32Array.from(heights), cellX, cellY, step };
  const w = Math.floor(width / step), h = Math.floor(height / step);
  const out = new Float32Array(w * h);
  for (let j = 0; j < h; j++) {
    for (let i = 0; i < w; i++) {
      let s = 0;
      for (let b = 0; b < step; b++) {
        const row = (j * step + b) * width + i * step;
        for (let a = 0; a < step; a++) s += heights[row + a];
      }
      out[j * w + i] = s / (step * step);
    }
  }
  return { width: w, height: h, heights: out, cellX: cellX * step, cellY: cellY * step, step };
}

/** The level a dry cell's water texel holds when no wet cell touches it (far below any ground). */
export const NO_LEVEL = Math.fround(-1e20);

/**
 * Water surface levels for the mesh look's shorelines, from the ground `heights` and the surface
 * water `depth` (metres, 0 where dry) of a `width × height` grid: a wet cell holds its surface
 * (ground + depth); a dry cell next to wet cells (8-neighbourhood) holds its ground minus the
 * deepest of their depths, and any other dry cell NO_LEVEL. The vertex shader interpolates
 * level − ground over each triangle (+d at the wet vertex, −d at the dry one), so the shoreline
 * crosses each wet–dry edge half-way: the water covers the wet cells' area, as `lakes.png` and
 * `preview.png` count it, with an outline cut straight across the triangles (as marching squares
 * would) instead of the cells' staircase or the whole fan of triangles around a wet vertex. (A
 * shoreline where the level meets the interpolated ground would shrink a lake of a few coarse
 * cells to slivers: on a 234 m DEM the banks rise tens of metres within a cell.) The sea, a true
 * level, meets the ground along its contour in the shader. Null when no cell is wet.
 */
export function waterLevels(width, height, heights, depth) {
  if (!depth || !depth.some((d) => d > 0)) return null;
  const out = new Float32Array(width * height);
  for (let j = 0; j < height; j++) {
    for (let i = 0; i < width; i++) {
      const k = j * width + i;
      if (depth[k] > 0) {
        out[k] = heights[k] + depth[k];
        continue;
      }
      let deepest = 0;
      for (let dj = -1; dj <= 1; dj++) {
        for (let di = -1; di <= 1; di++) {
          const x = i + di, y = j + dj;
          if (x < 0 || y < 0 || x >= width || y >= height) continue;
          deepest = Math.max(deepest, depth[y * width + x]);
        }
      }
      out[k] = deepest > 0 ? heights[k] - deepest : NO_LEVEL;
    }
  }
  return out;
}

/** Summed-area table (Float64, (w+1)·(h+1)) of a grid. */
function summedArea(w, h, v) {
  const s = new Float64Array((w + 1) * (h + 1));
  for (let j = 0; j < h; j++) {
    let row = 0;
    for (let i = 0; i < w; i++) {
      row += v[j * w + i];
      s[(j + 1) * (w + 1) + i + 1] = s[j * (w + 1) + i + 1] + row;
    }
  }
  return s;
}

function boxMean(s, w, h, i, j, r) {
  const x0 = Math.max(0, i - r), x1 = Math.min(w, i + r + 1), y0 = Math.max(0, j - r), y1 = Math.min(h, j + r + 1);
  const W = w + 1;
  const sum = s[y1 * W + x1] - s[y0 * W + x1] - s[y1 * W + x0] + s[y0 * W + x0];
  return sum / ((x1 - x0) * (y1 - y0));
}

/**
 * The shape texture of a working grid, RGBA8 row 0 north: macro normal x (east) and y (north)
 * as ·0.5+0.5, ambient occlusion from local relief (how far a cell sits below the mean of its
 * neighbourhood at two radii, as an angle), and sun visibility from a march toward the sun over
 * the height field with a soft penumbra. Heights are multiplied by `exag` first.
 */
export function shapeTexture(g, exag, sun, shadows = true) {
  const { width: w, height: h, cellX: dx, cellY: dy } = g;
  const z = new Float32Array(w * h);
  for (let k = 0; k < z.length; k++) z[k] = g.heights[k] * exag;
  const out = new Uint8Array(w * h * 4);
  const at = (i, j) => z[clamp(j, 0, h - 1) * w + clamp(i, 0, w - 1)];
  const sat = summedArea(w, h, z);
  const r1 = 3, r2 = 12;
  // Sun march: unit horizontal step in cells toward the sun, rise per metre.
  const hlen = Math.hypot(sun[0], sun[1]);
  const tanEl = sun[2] / Math.max(hlen, 1e-6);
  const sx = hlen > 1e-6 ? sun[0] / hlen : 0, sy = hlen > 1e-6 ? sun[1] / hlen : 0;
  const stepM = Math.min(dx, dy);
  const maxM = Math.hypot(w * dx, h * dy);
  const ts = [];
  for (let t = stepM; t < maxM; t = t < 8 * stepM ? t + stepM : t * 1.12) ts.push(t);
  const sampleZ = (x, y) => {
    // bilinear in cell coordinates (x east, y south)
    if (x < 0 || y < 0 || x > w - 1 || y > h - 1) return -Infinity;
    const i = Math.min(Math.floor(x), w - 2), j = Math.min(Math.floor(y), h - 2);
    const fx = x - i, fy = y - j;
    const a = z[j * w + i], b = z[j * w + i + 1], c = z[(j + 1) * w + i], d = z[(j + 1) * w + i + 1];
    return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy;
  };
  const doShadow = shadows && sun[2] < 0.999 && w >= 2 && h >= 2;
  for (let j = 0; j < h; j++) {
    for (let i = 0; i < w; i++) {
      const k = j * w + i;
      const dzdx = (at(i + 1, j) - at(i - 1, j)) / (2 * dx);
      const dzdn = (at(i, j - 1) - at(i, j + 1)) / (2 * dy); // d/d(north): row 0 is north
      const l = Math.hypot(dzdx, dzdn, 1);
      const nx = -dzdx / l, ny = -dzdn / l;
      const h0 = z[k];
      const a1 = Math.max(0, boxMean(sat, w, h, i, j, r1) - h0) / (r1 * Math.min(dx, dy));
      const a2 = Math.max(0, boxMean(sat, w, h, i, j, r2) - h0) / (r2 * Math.min(dx, dy));
      const ao = clamp(1 - 0.9 * a1 - 0.7 * a2, 0.3, 1);
      let vis = 1;
      if (doShadow) {
        for (const t of ts) {
          const zt = sampleZ(i + (sx * t) / dx, j - (sy * t) / dy);
          if (zt === -Infinity) break;
          const margin = h0 + t * tanEl - zt;
          const v = clamp(0.5 + margin / (0.09 * t + 0.5 * stepM * tanEl), 0, 1);
          if (v < vis) {
            vis = v;
            if (vis <= 0) break;
          }
        }
      }
      out[4 * k] = Math.round((nx * 0.5 + 0.5) * 255);
      out[4 * k + 1] = Math.round((ny * 0.5 + 0.5) * 255);
      out[4 * k + 2] = Math.round(ao * 255);
      out[4 * k + 3] = Math.round(vis * 255);
    }
  }
  return out;
}

/** 1D value noise on a circle (period `n` lattice points), smooth, 0..1. */
function circleNoise(seed, n) {
  const v = new Float32Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    v[i] = s / 4294967296;
  }
  return (u) => {
    const x = (((u % 1) + 1) % 1) * n;
    const i = Math.floor(x), f = x - i;
    const t = f * f * (3 - 2 * f);
    return v[i % n] * (1 - t) + v[(i + 1) % n] * t;
  };
}

/**
 * Vista rings and ground disc as one vertex array (x, y, z, tone) for TRIANGLES: ring k (tone
 * k) is an open cylinder of radius radii[k] from baseZ up to a ridged-noise top, wound so its
 * front faces look inward; the disc (tone 5) is a fan of radius `discR` at baseZ.
 * Returns {data: Float32Array, rings: vertex count of the rings, disc: vertex count of the disc}.
 */
export function vistaGeometry({ radii, tops, baseZ, discR, seed = 1, segments = 384 }) {
  const v = [];
  radii.forEach((R, k) => {
    const octaves = [circleNoise(seed * 7919 + k * 104729 + 1, 9 + 4 * k), circleNoise(seed * 31 + k * 613 + 2, 23 + 7 * k),
      circleNoise(seed * 131 + k * 37 + 3, 61 + 11 * k)];
    const top = (u) => {
      const a = octaves[0](u), b = octaves[1](u), c = octaves[2](u);
      const ridged = 1 - Math.abs(2 * b - 1);
      return 0.25 + 0.5 * a + 0.2 * ridged + 0.1 * c;
    };
    const z0 = baseZ - 0.02 * tops[k];
    for (let s = 0; s < segments; s++) {
      const u0 = s / segments, u1 = (s + 1) / segments;
      const a0 = u0 * 2 * Math.PI, a1 = u1 * 2 * Math.PI;
      const p0 = [R * Math.cos(a0), R * Math.sin(a0)], p1 = [R * Math.cos(a1), R * Math.sin(a1)];
      const t0 = baseZ + tops[k] * top(u0), t1 = baseZ + tops[k] * top(u1);
      // Counter-clockwise seen from inside (angle grows counter-clockwise seen from above).
      v.push(p0[0], p0[1], z0, k, p0[0], p0[1], t0, k, p1[0], p1[1], z0, k);
      v.push(p1[0], p1[1], z0, k, p0[0], p0[1], t0, k, p1[0], p1[1], t1, k);
    }
  });
  const rings = v.length / 4;
  const n = 96;
  for (let s = 0; s < n; s++) {
    const a0 = (s / n) * 2 * Math.PI, a1 = ((s + 1) / n) * 2 * Math.PI;
    v.push(0, 0, baseZ, 5, discR * Math.cos(a0), discR * Math.sin(a0), baseZ, 5, discR * Math.cos(a1), discR * Math.sin(a1), baseZ, 5);
  }
  return { data: new Float32Array(v), rings, disc: v.length / 4 - rings };
}

/** Pixels of an image source as {width, height, data, ch}, drawn at `size × height` ({width,
 * height, data} as it is). */
function imagePixels(src, size = 32, height = size) {
  if (src.data) {
    const ch = src.data.length / (src.width * src.height);
    return { ...src, ch };
  }
  const c = typeof OffscreenCanvas !== 'undefined' ? new OffscreenCanvas(size, height) : Object.assign(document.createElement('canvas'), { width: size, height });
  const x = c.getContext('2d');
  x.drawImage(src, 0, 0, size, height);
  return { width: size, height, data: x.getImageData(0, 0, size, height).data, ch: 4 };
}

/**
 * A tangent-space normal map and ambient occlusion derived from a ground photo (image source or
 * {width, height, data}), for the mesh look's photo relief: the photo's luminance (sRGB-encoded,
 * perceptually even) is taken as height (light stones stand up, dark gaps sink), box-blurred
 * 3×3, differentiated by central differences that wrap (the photo repeats, so does its normal
 * map) and scaled so that the RMS slope is `rmsSlope`. OpenGL convention: x (red) toward the image's right, y (green)
 * toward its top, z out of the surface, each ·0.5+0.5. Alpha is the cavity occlusion: 1 where a
 * pixel stands at or above the mean of its 9×9 neighbourhood, down to 0.5 in the deepest gaps
 * (−4 standard deviations). An image source is read at its width (at most `maxSize`) squared;
 * {width, height, data} at its own size.
 * @returns {{width, height, data: Uint8Array, mean: number[]}} RGBA8; mean: the four channels'
 *   means in 0..1 (hex-vp blends normals about it)
 */
export function photoNormalMap(src, { maxSize = 512, rmsSlope = 0.35 } = {}) {
  const size = Math.max(2, Math.min(maxSize, src.width || maxSize));
  const { width: W, height: H, data, ch } = imagePixels(src, size);
  const n = W * H;
  const lum = new Float32Array(n);
  for (let k = 0; k < n; k++) {
    lum[k] = ch >= 3 ? (0.2126 * data[k * ch] + 0.7152 * data[k * ch + 1] + 0.0722 * data[k * ch + 2]) / 255 : data[k * ch] / 255;
  }
  const at = (a, x, y) => a[((y + H) % H) * W + ((x + W) % W)];
  const box = (a, r) => {
    // Separable wrapping box mean of radius r.
    const t = new Float32Array(n), o = new Float32Array(n), k = 2 * r + 1;
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) {
      let s = 0;
      for (let d = -r; d <= r; d++) s += at(a, x + d, y);
      t[y * W + x] = s / k;
    }
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) {
      let s = 0;
      for (let d = -r; d <= r; d++) s += at(t, x, y + d);
      o[y * W + x] = s / k;
    }
    return o;
  };
  const h = box(lum, 1);
  const gx = new Float32Array(n), gy = new Float32Array(n);
  let g2 = 0;
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) {
    const k = y * W + x;
    gx[k] = 0.5 * (at(h, x + 1, y) - at(h, x - 1, y));
    gy[k] = 0.5 * (at(h, x, y - 1) - at(h, x, y + 1)); // toward the image's top
    g2 += gx[k] * gx[k] + gy[k] * gy[k];
  }
  const scale = g2 > 0 ? rmsSlope / Math.sqrt(g2 / n) : 0;
  const local = box(h, 4);
  let v2 = 0;
  for (let k = 0; k < n; k++) v2 += (h[k] - local[k]) ** 2;
  const sd = Math.sqrt(v2 / n) || 1;
  const out = new Uint8Array(4 * n);
  const mean = [0, 0, 0, 0];
  for (let k = 0; k < n; k++) {
    const x = -gx[k] * scale, y = -gy[k] * scale;
    const l = Math.hypot(x, y, 1);
    const ao = clamp(1 + 0.125 * Math.min(0, (h[k] - local[k]) / sd), 0.5, 1);
    const px = [x / l, y / l, 1 / l].map((c) => Math.round((c * 0.5 + 0.5) * 255));
    px.push(Math.round(ao * 255));
    for (let q = 0; q < 4; q++) {
      out[4 * k + q] = px[q];
      mean[q] += px[q] / 255;
    }
  }
  return { width: W, height: H, data: out, mean: mean.map((m) => m / n) };
}

/**
 * A generated detail set: a `size`² tileable value-noise fBm (octaves of `cells` lattice cells a
 * side, amplitude halving each octave), grey `base ± contrast` (sRGB). The lattice wraps at the
 * period, so the texture repeats without a seam; the values come from the canonical hash.
 * @returns {{width, height, data: Uint8Array}} RGB8
 */
function noiseSet(size, seed, cells, base, contrast) {
  const n = size * size;
  const v = new Float32Array(n);
  let amp = 1, total = 0;
  for (const c of cells) {
    const step = size / c;
    const at = (i, j) => hashUnit(((i % c) + c) % c, ((j % c) + c) % c, seed + c);
    for (let y = 0; y < size; y++) {
      const fy = y / step, j = Math.floor(fy), ty = fy - j, sy = ty * ty * (3 - 2 * ty);
      for (let x = 0; x < size; x++) {
        const fx = x / step, i = Math.floor(fx), tx = fx - i, sx = tx * tx * (3 - 2 * tx);
        const top = at(i, j) + (at(i + 1, j) - at(i, j)) * sx, bot = at(i, j + 1) + (at(i + 1, j + 1) - at(i, j + 1)) * sx;
        v[y * size + x] += amp * (top + (bot - top) * sy - 0.5);
      }
    }
    total += amp;
    amp *= 0.5;
  }
  const data = new Uint8Array(3 * n);
  for (let k = 0; k < n; k++) data.fill(Math.round(clamp(base + 2 * contrast * (v[k] / total), 0, 255)), 3 * k, 3 * k + 3);
  return { width: size, height: size, data };
}

/**
 * The snow detail set, generated (no photo of snow ships with the page): noiseSet with four
 * octaves of 8, 16, 32 and 64 cells a side, bright (sRGB 232 ± 20) and soft, as wind-packed snow
 * reads from a few metres.
 */
export function snowTexture(size = 256, seed = 7) {
  return noiseSet(size, seed, [8, 16, 32, 64], 232, 20);
}

/**
 * The sand detail set, generated: fine and even (octaves of 32, 64 and 128 cells a side over the
 * repeat, sRGB 190 ± 28): grains and faint ripples rather than clumps.
 */
export function sandTexture(size = 256, seed = 11) {
  return noiseSet(size, seed, [32, 64, 128], 190, 28);
}

/**
 * The soil detail set, generated: clumpy and contrasted (octaves of 4 … 128 cells a side, sRGB
 * 118 ± 70), clods and dark hollows, as bare damp ground on a channel floor reads.
 */
export function soilTexture(size = 256, seed = 13) {
  return noiseSet(size, seed, [4, 8, 16, 32, 64, 128], 118, 70);
}

/** bozkir_core::hash::hash_u32 in 0..1 (the detail offsets' hash; mesh-shaders.js hashU). */
const hashUnit = (x, y, s) => hashU32(x, y, s) / 4294967296;

/** `bozkir bake`'s materials.png codes (BakeDetail::MATERIAL_CODES): rock, scree, grass, snow, sand, soil. */
export const MATERIAL_CODES = [50, 100, 150, 200, 250, 25];

/**
 * `bozkir bake`'s materials.png (grey MATERIAL_CODES: rock 50, scree 100, grass 150, snow 200,
 * sand 250, soil 25; 0 water) as one-hot weights in two RGBA images, which the texture filter
 * then blends between texels: `data` red rock, green scree, blue grass, alpha snow; `data2` red
 * sand, green soil. Water and unknown codes weigh nothing.
 * @param {{width, height, data}|ImageBitmap} src
 * @returns {{width, height, data: Uint8Array, data2: Uint8Array}}
 */
export function materialWeights(src) {
  const { width, height, data, ch } = imagePixels(src, src.width, src.height);
  const out = new Uint8Array(4 * width * height), out2 = new Uint8Array(4 * width * height);
  for (let k = 0; k < width * height; k++) {
    const m = MATERIAL_CODES.indexOf(data[k * ch]);
    if (m >= 0 && m < 4) out[4 * k + m] = 255;
    else if (m >= 4) out2[4 * k + m - 4] = 255;
  }
  return { width, height, data: out, data2: out2 };
}

/** Mean linear colour of an sRGB image source (ImageBitmap, canvas, or {width, height, data}). */
export function meanLinear(src) {
  const { width, height, data, ch } = imagePixels(src);
  const n = width * height, stride = Math.max(1, Math.floor(n / 4096));
  const m = [0, 0, 0];
  let c = 0;
  for (let k = 0; k < n; k += stride) {
    for (let q = 0; q < 3; q++) m[q] += srgbToLinear(data[k * ch + q] / 255);
    c += 1;
  }
  return m.map((x) => x / c);
}

// ===================================================================== the view

export class MeshView {
  /** @param {WebGL2RenderingContext} gl the page's context (shared with the splat Renderer) */
  constructor(gl) {
    if (!gl || typeof gl.createVertexArray !== 'function') throw new Error('MeshView needs a WebGL2 context');
    this.gl = gl;
    this.sky = link(gl, SKY_VS, SKY_FS, 'mesh');
    this.flat = link(gl, FLAT_VS, FLAT_FS, 'mesh');
    this.terrain = link(gl, TERRAIN_VS, TERRAIN_FS, 'mesh');
    this.emptyVao = gl.createVertexArray();
    this.flatVao = gl.createVertexArray();
    this.flatBuf = gl.createBuffer();
    gl.bindVertexArray(this.flatVao);
    gl.bindBuffer(gl.ARRAY_BUFFER, this.flatBuf);
    gl.enableVertexAttribArray(0);
    gl.vertexAttribPointer(0, 4, gl.FLOAT, false, 0, 0);
    gl.bindVertexArray(null);
    this.indexBuf = gl.createBuffer();
    this.tex = { height: null, shape: null, albedo: null, micro: null, rivers: null, materials: null, materials2: null, fold: null, detail0: null, detail1: null, detail2: null, detail3: null, detail4: null, detailN0: null, detailN1: null, detailN2: null, detailN3: null, detailN4: null };
    this.detailMeans = null;
    this.aniso = gl.getExtension('EXT_texture_filter_anisotropic');
    this.t = null;
    this.shapeKey = '';
    this.vistaKey = '';
  }

  /**
   * @param {{width: number, height: number, heights: Float32Array, cellSize: number|[number, number],
   *   albedo?: ImageBitmap|{width, height, data}, normal?: ImageBitmap|{width, height, data}, seed?: number,
   *   water?: Float32Array, seaLevel?: number, rivers?: ImageBitmap|{width, height, data},
   *   materials?: ImageBitmap|{width, height, data}}} t
   *   heights in metres, row 0 north, column 0 west; cellSize metres per cell (or [dx, dy]); water:
   *   surface water depth per cell in metres (lakes, rivers; 0 where dry), drawn as a water surface
   *   that far above the ground; seaLevel: the sea's surface; rivers: `bozkir bake`'s rivers.png
   *   (red: coverage, green: depth / 3 m, laid as the albedo is), drawn as water lines;
   *   materials: its materials.png (materialWeights), each material taking its own detail set.
   */
  setTerrain(t) {
    const { width, height, heights } = t;
    if (!(width >= 2 && height >= 2) || !heights || heights.length !== width * height) {
      throw new Error(`mesh terrain: ${heights?.length} heights for ${width} × ${height}`);
    }
    const [cx, cy] = Array.isArray(t.cellSize) ? t.cellSize : [t.cellSize || 10, t.cellSize || 10];
    let lo = Infinity, hi = -Infinity;
    for (let k = 0; k < heights.length; k++) {
      const v = heights[k];
      if (!Number.isFinite(v)) throw new Error(`mesh terrain: height ${v} at cell ${k}`);
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    const g = workingGrid(width, height, heights, cx, cy);
    // Surface water (lakes, rivers: metres deep, 0 where dry), averaged over the same blocks.
    if (t.water && t.water.length !== width * height) throw new Error(`mesh terrain: ${t.water.length} water depths for ${width} × ${height}`);
    const wg = t.water ? workingGrid(width, height, t.water, cx, cy) : null;
    const levels = wg ? waterLevels(g.width, g.height, g.heights, wg.heights) : null;
    const hasWater = !!levels;
    // The lateral fold (a recipe's `fold` stage: metres east and south per cell), averaged over
    // the same blocks; the vertices move by it.
    if (t.fold && t.fold.length !== 2 * width * height) throw new Error(`mesh terrain: ${t.fold.length} fold values for ${width} × ${height} (two per cell)`);
    const fold = t.fold ? [0, 1].map((q) => workingGrid(width, height, t.fold.filter((_, k) => k % 2 === q), cx, cy).heights) : null;
    const gl = this.gl;
    this.saveState();
    try {
      this.tex.height = this.tex.height || gl.createTexture();
      gl.bindTexture(gl.TEXTURE_2D, this.tex.height);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.R32F, g.width, g.height, 0, gl.RED, gl.FLOAT, g.heights);
      this.params(gl.NEAREST, gl.NEAREST);
      this.tex.water = this.tex.water || gl.createTexture();
      gl.bindTexture(gl.TEXTURE_2D, this.tex.water);
      if (hasWater) gl.texImage2D(gl.TEXTURE_2D, 0, gl.R32F, g.width, g.height, 0, gl.RED, gl.FLOAT, levels);
      else gl.texImage2D(gl.TEXTURE_2D, 0, gl.R32F, 1, 1, 0, gl.RED, gl.FLOAT, new Float32Array(1));
      this.params(gl.NEAREST, gl.NEAREST);
      this.tex.fold = this.tex.fold || gl.createTexture();
      gl.bindTexture(gl.TEXTURE_2D, this.tex.fold);
      if (fold) {
        const rg = new Float32Array(2 * g.width * g.height);
        for (let k = 0; k < g.width * g.height; k++) [rg[2 * k], rg[2 * k + 1]] = [fold[0][k], fold[1][k]];
        gl.texImage2D(gl.TEXTURE_2D, 0, gl.RG32F, g.width, g.height, 0, gl.RG, gl.FLOAT, rg);
      } else gl.texImage2D(gl.TEXTURE_2D, 0, gl.RG32F, 1, 1, 0, gl.RG, gl.FLOAT, new Float32Array(2));
      this.params(gl.NEAREST, gl.NEAREST);
      // Indices of the (count + 2)² grid with its skirt; Uint32 (WebGL2 core).
      const nx = g.width + 2, ny = g.height + 2;
      const idx = new Uint32Array((nx - 1) * (ny - 1) * 6);
      let o = 0;
      for (let j = 0; j < ny - 1; j++) {
        for (let i = 0; i < nx - 1; i++) {
          const a = j * nx + i, b = a + 1, c = a + nx, d = c + 1;
          idx[o++] = a; idx[o++] = c; idx[o++] = b;
          idx[o++] = b; idx[o++] = c; idx[o++] = d;
        }
      }
      gl.bindVertexArray(this.emptyVao);
      gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, this.indexBuf);
      gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, idx, gl.STATIC_DRAW);
      gl.bindVertexArray(null);
      this.indexCount = idx.length;
      this.tex.albedo = this.imageTexture(this.tex.albedo, t.albedo, true);
      this.tex.micro = this.imageTexture(this.tex.micro, t.normal, false);
      this.tex.rivers = this.imageTexture(this.tex.rivers, t.rivers, false);
      const mw = t.materials ? materialWeights(t.materials) : null;
      this.tex.materials = this.imageTexture(this.tex.materials, mw, false);
      this.tex.materials2 = this.imageTexture(this.tex.materials2, mw && { width: mw.width, height: mw.height, data: mw.data2 }, false);
    } finally {
      this.restoreState();
    }
    this.albedoMean = t.albedo ? meanLinear(t.albedo) : [0.3, 0.27, 0.21];
    this.t = {
      width, height, lo, hi, g, cellX: cx, cellY: cy, hasAlbedo: !!t.albedo, hasMicro: !!t.normal, seed: t.seed ?? 1,
      seaLevel: Number.isFinite(t.seaLevel) && t.seaLevel > lo ? t.seaLevel : null, hasWater, hasRivers: !!t.rivers, hasMaterials: !!t.materials, hasFold: !!fold,
      extent: Math.max((width - 1) * cx, (height - 1) * cy),
    };
    this.shapeKey = '';
    this.vistaKey = '';
  }

  /**
   * The detail photos (image sources, sRGB): `ground` over gentle ground from above, `rock`
   * triplanar on steep ground; `null` removes them (the look falls back to the albedo alone).
   */
  setDetail(ground, rock = ground) {
    const gl = this.gl;
    this.saveState();
    try {
      this.tex.detail0 = this.imageTexture(this.tex.detail0, ground, true, gl.REPEAT);
      this.tex.detail1 = this.imageTexture(this.tex.detail1, ground ? rock : null, true, gl.REPEAT);
      // Their normal maps and cavity occlusion (photoNormalMap), linear RGBA8, same wrapping.
      const nm = ground ? [photoNormalMap(ground), rock === ground ? null : photoNormalMap(rock)] : [null, null];
      if (nm[0] && !nm[1]) nm[1] = nm[0];
      this.tex.detailN0 = this.imageTexture(this.tex.detailN0, nm[0], false, gl.REPEAT);
      this.tex.detailN1 = this.imageTexture(this.tex.detailN1, nm[1], false, gl.REPEAT);
      // The generated sets beside them (snowTexture, sandTexture, soilTexture), laid where the
      // bake says snow, sand, soil; their relief as their grain suggests (soft snow, fine sand,
      // clumpy soil).
      const gen = ground ? [[snowTexture(), 0.15], [sandTexture(), 0.2], [soilTexture(), 0.3]] : [];
      const gn = gen.map(([img, rms]) => photoNormalMap(img, { rmsSlope: rms }));
      for (const [k, slot] of [2, 3, 4].entries()) {
        this.tex[`detail${slot}`] = this.imageTexture(this.tex[`detail${slot}`], gen[k]?.[0] ?? null, true, gl.REPEAT);
        this.tex[`detailN${slot}`] = this.imageTexture(this.tex[`detailN${slot}`], gn[k] ?? null, false, gl.REPEAT);
      }
      this.detailNMeans = ground ? [nm[0].mean, nm[1].mean, ...gn.map((m) => m.mean)] : null;
      this.detailMeans = ground ? [meanLinear(ground), meanLinear(rock), ...gen.map(([img]) => meanLinear(img))] : null;
    } finally {
      this.restoreState();
    }
  }

  params(min, mag, wrap = this.gl.CLAMP_TO_EDGE) {
    const gl = this.gl;
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, min);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, mag);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, wrap);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, wrap);
  }

  /** A mipmapped, anisotropic texture from an image source, or a deleted one when there is none. */
  imageTexture(tex, src, srgb, wrap = this.gl.CLAMP_TO_EDGE) {
    const gl = this.gl;
    if (!src) {
      if (tex) gl.deleteTexture(tex);
      return null;
    }
    tex = tex || gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, tex);
    gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
    gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
    gl.pixelStorei(gl.UNPACK_COLORSPACE_CONVERSION_WEBGL, gl.NONE);
    gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
    const internal = srgb ? gl.SRGB8_ALPHA8 : gl.RGBA8;
    if (src.data) {
      const ch = src.data.length / (src.width * src.height);
      let rgba = src.data;
      if (ch === 3) {
        rgba = new Uint8Array(src.width * src.height * 4);
        for (let k = 0, n = src.width * src.height; k < n; k++) {
          rgba[4 * k] = src.data[3 * k]; rgba[4 * k + 1] = src.data[3 * k + 1]; rgba[4 * k + 2] = src.data[3 * k + 2]; rgba[4 * k + 3] = 255;
        }
      }
      gl.texImage2D(gl.TEXTURE_2D, 0, internal, src.width, src.height, 0, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(rgba.buffer, rgba.byteOffset, rgba.length));
    } else {
      gl.texImage2D(gl.TEXTURE_2D, 0, internal, gl.RGBA, gl.UNSIGNED_BYTE, src);
    }
    gl.generateMipmap(gl.TEXTURE_2D);
    this.params(gl.LINEAR_MIPMAP_LINEAR, gl.LINEAR, wrap);
    if (this.aniso) gl.texParameterf(gl.TEXTURE_2D, this.aniso.TEXTURE_MAX_ANISOTROPY_EXT, Math.min(8, gl.getParameter(this.aniso.MAX_TEXTURE_MAX_ANISOTROPY_EXT)));
    return tex;
  }

  /** The terrain's bounds in world metres: {halfX, halfY, lo, hi, extent} (heights exaggerated by `exag`). */
  bounds(exag = 1) {
    const t = this.t;
    if (!t) return null;
    return { halfX: 0.5 * (t.width - 1) * t.cellX, halfY: 0.5 * (t.height - 1) * t.cellY, lo: t.lo * exag, hi: t.hi * exag, extent: t.extent };
  }

  /** An orbit camera that shows the whole terrain from the south-east, looking north-west. */
  frameCamera(exag = 1, fov = 50) {
    const b = this.bounds(exag);
    if (!b) return { target: [0, 0, 0], az: 320, el: 28, dist: 1000, fov };
    const mid = b.lo + 0.35 * (b.hi - b.lo);
    return { target: [0, 0, mid], az: 320, el: 13, dist: 0.95 * b.extent + 0.8 * (b.hi - b.lo), fov };
  }

  /** Rebuild what depends on the options: the shape texture (exaggeration, sun) and the vista. */
  prepare(o) {
    const t = this.t, gl = this.gl;
    const sun = sunDirection(o.sunEl, o.sunAz);
    const key = `${o.exaggeration}|${o.sunEl}|${o.sunAz}|${o.shadows}`;
    if (key !== this.shapeKey) {
      const data = shapeTexture(t.g, o.exaggeration, sun, o.shadows);
      this.tex.shape = this.tex.shape || gl.createTexture();
      gl.bindTexture(gl.TEXTURE_2D, this.tex.shape);
      gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
      gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
      gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, t.g.width, t.g.height, 0, gl.RGBA, gl.UNSIGNED_BYTE, data);
      this.params(gl.LINEAR, gl.LINEAR);
      this.shapeKey = key;
    }
    const rings = o.rings > 0 ? clamp(Math.round(o.rings), 3, 5) : 0;
    const vkey = `${o.exaggeration}|${rings}`;
    if (vkey !== this.vistaKey) {
      const L = t.extent, relief = Math.max((t.hi - t.lo) * o.exaggeration, 0.02 * L);
      this.baseZ = t.lo * o.exaggeration - 0.01 * relief;
      // Radii grow by ~1.55× per ring; heights grow a little slower, so each ring stands at a
      // lower angle than the one before it as seen from the terrain, but peeks over it.
      // Tops rise to a few degrees above the terrain's foot as seen from its centre.
      const radii = [1.2, 1.85, 2.85, 4.4, 6.8].slice(0, rings).map((r) => r * L);
      const tops = [2.6, 3.4, 4.2, 5.0, 5.8].slice(0, rings).map((deg, k) => Math.min(0.5 * relief, 0.15 * L) + radii[k] * Math.tan(deg * DEG));
      this.discR = 60 * L;
      const geo = vistaGeometry({ radii, tops, baseZ: this.baseZ, discR: this.discR, seed: t.seed });
      gl.bindBuffer(gl.ARRAY_BUFFER, this.flatBuf);
      gl.bufferData(gl.ARRAY_BUFFER, geo.data, gl.STATIC_DRAW);
      this.vista = { rings: geo.rings, disc: geo.disc, count: rings };
      this.vistaKey = vkey;
    }
    return sun;
  }

  /** Atmosphere uniforms shared by the three programs. */
  atmosphere(u, o, sun) {
    const gl = this.gl;
    const s = SKY.sunPower;
    gl.uniform1f(u.uExposure, o.exposure);
    gl.uniform3fv(u.uSunDir, sun);
    gl.uniform3f(u.uSunColour, SKY.sun[0] * s, SKY.sun[1] * s, SKY.sun[2] * s);
    gl.uniform3fv(u.uZenith, SKY.zenith);
    gl.uniform3fv(u.uHorizon, SKY.horizon);
    gl.uniform3fv(u.uGroundHaze, SKY.groundHaze);
  }

  /**
   * Draw one frame into the default framebuffer over the whole drawing buffer.
   * @param {object} camera camera.js {target, az, el, dist, fov} or {eye, az, el, fov} in metres
   * @param {object} [opts] MESH_DEFAULTS keys
   * @returns {{vertices, triangles, drawCalls, ms, width, height}}
   */
  render(camera, opts = {}) {
    const t0 = performance.now();
    const gl = this.gl;
    const o = { ...MESH_DEFAULTS, ...opts };
    const W = Math.max(1, gl.drawingBufferWidth), H = Math.max(1, gl.drawingBufferHeight);
    const stats = { vertices: 0, triangles: 0, drawCalls: 0, ms: 0, width: W, height: H };
    this.saveState();
    try {
      gl.bindFramebuffer(gl.FRAMEBUFFER, null);
      gl.viewport(0, 0, W, H);
      gl.disable(gl.SCISSOR_TEST);
      gl.disable(gl.BLEND);
      gl.colorMask(true, true, true, true);
      gl.depthMask(true);
      gl.clearColor(SKY.horizon[0], SKY.horizon[1], SKY.horizon[2], 1);
      gl.clearDepth(1);
      gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
      const basis = cameraBasis(camera);
      const sun = this.t ? this.prepare(o) : sunDirection(o.sunEl, o.sunAz);

      // 1. Sky: full screen, no depth test or write.
      gl.disable(gl.DEPTH_TEST);
      gl.depthMask(false);
      gl.disable(gl.CULL_FACE);
      gl.useProgram(this.sky.p);
      this.atmosphere(this.sky.u, o, sun);
      const ty = Math.tan(0.5 * basis.fov * DEG);
      gl.uniform3fv(this.sky.u.uRight, basis.right);
      gl.uniform3fv(this.sky.u.uDown, basis.down);
      gl.uniform3fv(this.sky.u.uForward, basis.forward);
      gl.uniform2f(this.sky.u.uTan, (ty * W) / H, ty);
      gl.bindVertexArray(this.emptyVao);
      gl.drawArrays(gl.TRIANGLES, 0, 3);
      stats.drawCalls += 1;
      if (!this.t) return stats;

      const t = this.t;
      const L = t.extent;
      const eye = basis.eye;
      const above = Math.max(eye[2] - this.baseZ, 1);
      const near = clamp(0.02 * above, 0.05, 0.05 * L);
      const vp = viewProjection(basis, W, H, near, 1.5 * this.discR + Math.hypot(eye[0], eye[1]));
      gl.enable(gl.DEPTH_TEST);
      gl.depthFunc(gl.LEQUAL);
      gl.depthMask(true);

      // 2. Terrain.
      const p = this.terrain, u = p.u;
      gl.useProgram(p.p);
      this.atmosphere(u, o, sun);
      gl.uniformMatrix4fv(u.uViewProj, false, vp);
      gl.uniform2i(u.uCount, t.g.width, t.g.height);
      gl.uniform2i(u.uCells, t.g.width, t.g.height);
      gl.uniform2f(u.uCellM, t.g.cellX * ((t.width - 1) / t.g.step / Math.max(t.g.width - 1, 1)), t.g.cellY * ((t.height - 1) / t.g.step / Math.max(t.g.height - 1, 1)));
      gl.uniform1f(u.uExag, o.exaggeration);
      gl.uniform1f(u.uBaseZ, this.baseZ - 0.01 * L);
      gl.uniform1f(u.uSeaZ, t.seaLevel !== null ? t.seaLevel * o.exaggeration : -1e30);
      stats.water = t.seaLevel !== null || t.hasWater || t.hasRivers;
      gl.uniform1i(u.uHasWater, t.hasWater ? 1 : 0);
      gl.uniform1i(u.uHasRivers, t.hasRivers ? 1 : 0);
      gl.uniform3fv(u.uEye, eye);
      gl.uniform3fv(u.uSkirt, this.albedoMean.map((c) => c * 0.6));
      // Aerial perspective tuned so the terrain keeps its contrast: at the default framing (the
      // middle about one extent L away) the fog takes ~8 % there and ~15 % at the far edge.
      const fogStart = 0.3 * L, density = (0.12 / L) * Math.max(0, o.fog);
      gl.uniform2f(u.uFog, fogStart, density);
      gl.uniform1f(u.uFogAmount, o.fog > 0 ? 1 : 0);
      gl.uniform3fv(u.uSkyAmbient, SKY.ambient);
      gl.uniform3fv(u.uBounce, SKY.bounce);
      gl.uniform2f(u.uRelief, t.lo * o.exaggeration, 1 / Math.max((t.hi - t.lo) * o.exaggeration, 1e-6));
      gl.uniform1f(u.uMicroStrength, o.micro);
      gl.uniform1f(u.uAlbedoGain, o.albedoGain);
      gl.uniform1i(u.uHasAlbedo, t.hasAlbedo ? 1 : 0);
      gl.uniform1i(u.uHasMicro, t.hasMicro && o.micro > 0 ? 1 : 0);
      const bind = (unit, tex, loc) => {
        gl.activeTexture(gl.TEXTURE0 + unit);
        gl.bindTexture(gl.TEXTURE_2D, tex);
        gl.uniform1i(loc, unit);
      };
      bind(0, this.tex.height, u.uHeight);
      bind(1, this.tex.shape, u.uShape);
      bind(6, this.tex.water, u.uWater);
      bind(18, this.tex.fold, u.uFold);
      gl.uniform1i(u.uHasFold, t.hasFold && o.fold ? 1 : 0);
      bind(9, this.tex.rivers || this.tex.shape, u.uRivers);
      // Unused samplers still point at a complete texture (the shape texture).
      bind(2, this.tex.albedo || this.tex.shape, u.uAlbedo);
      bind(3, this.tex.micro || this.tex.shape, u.uMicro);
      const mode = this.detailMeans ? DETAIL_MODES.indexOf(o.detail) : -1;
      gl.uniform1i(u.uDetailMode, mode);
      const modeB = !o.detailCompare ? -2 : this.detailMeans ? DETAIL_MODES.indexOf(o.detailCompare) : -1;
      gl.uniform1i(u.uDetailModeB, modeB);
      gl.uniform1f(u.uSplit, Math.floor(W / 2) + 0.5);
      stats.detailFetchesB = modeB >= 0 ? DETAIL_FETCHES[o.detailCompare] : 0;
      gl.uniform1f(u.uHexSize, o.hexSize);
      gl.uniform1ui(u.uDetailSeed, (t.seed >>> 0) || 0);
      gl.uniform1f(u.uDetailScale, o.detailScale);
      gl.uniform1f(u.uDetailStrength, o.detailStrength);
      // The five detail sets (ground photo, rock photo, snow, sand, soil: units 4, 5, 10, 14, 16)
      // and their normal maps (7, 8, 11, 15, 17); with the two material-weight textures, 16
      // samplers in the fragment shader, WebGL2's guaranteed minimum.
      const means = this.detailMeans || Array(5).fill([0.2, 0.2, 0.2]);
      const nmeans = this.detailNMeans || Array(5).fill([0.5, 0.5, 1, 1]);
      for (const [k, [unit, nunit]] of [[4, 7], [5, 8], [10, 11], [14, 15], [16, 17]].entries()) {
        gl.uniform3fv(u[`uDetailMean${k}`], means[k]);
        gl.uniform4fv(u[`uDetailNMean${k}`], nmeans[k]);
        bind(unit, this.tex[`detail${k}`] || this.tex.shape, u[`uDetail${k}`]);
        bind(nunit, this.tex[`detailN${k}`] || this.tex.shape, u[`uDetailN${k}`]);
      }
      bind(12, this.tex.materials || this.tex.shape, u.uMaterials);
      bind(13, this.tex.materials2 || this.tex.shape, u.uMaterials2);
      const useMaterials = !!(t.hasMaterials && this.detailMeans && o.detailSets);
      gl.uniform1i(u.uHasMaterials, useMaterials ? 1 : 0);
      stats.detailSets = useMaterials ? 6 : this.detailMeans ? 2 : 0;
      const relief = this.detailNMeans ? Math.max(0, o.detailRelief) : 0;
      gl.uniform1f(u.uDetailRelief, relief);
      stats.detailFetches = mode >= 0 ? DETAIL_FETCHES[o.detail] : 0;
      stats.detailNormalFetches = mode >= 0 && relief > 0 ? DETAIL_FETCHES[o.detail] : 0;
      gl.bindVertexArray(this.emptyVao);
      gl.drawElements(gl.TRIANGLES, this.indexCount, gl.UNSIGNED_INT, 0);
      stats.drawCalls += 1;
      stats.vertices = (t.g.width + 2) * (t.g.height + 2);
      stats.triangles = this.indexCount / 3;

      // 3. Vista rings (inward faces only) and the ground disc, behind the terrain.
      const f = this.flat, fu = f.u;
      gl.useProgram(f.p);
      this.atmosphere(fu, o, sun);
      gl.uniformMatrix4fv(fu.uViewProj, false, vp);
      gl.uniform3fv(fu.uEye, eye);
      const a = this.albedoMean;
      const sunIn = SKY.sunPower * Math.max(sun[2], 0);
      const lit = [0, 1, 2].map((q) => a[q] * (SKY.sun[q] * sunIn * 0.85 + SKY.ambient[q] * 0.9));
      // Ridges: the ground in shade, cooled, stepping toward the horizon colour.
      const shade = [0, 1, 2].map((q) => a[q] * SKY.ambient[q] * 1.4 + 0.04 * SKY.zenith[q]);
      const steps = [0.3, 0.44, 0.56, 0.66, 0.75];
      const n = this.vista.count;
      const tones = [];
      for (let k = 0; k < 5; k++) tones.push(...lerp3(shade, SKY.horizon, steps[Math.min(k + (5 - Math.max(n, 3)), 4)]));
      tones.push(...lerp3(shade, SKY.horizon, 0.6));
      gl.uniform3fv(fu.uTones, new Float32Array(tones));
      gl.uniform2f(fu.uDisc, 1.8 * L, density);
      gl.uniform3fv(fu.uNearGround, lit);
      gl.bindVertexArray(this.flatVao);
      if (this.vista.rings > 0) {
        gl.enable(gl.CULL_FACE);
        gl.cullFace(gl.BACK);
        gl.frontFace(gl.CCW);
        gl.drawArrays(gl.TRIANGLES, 0, this.vista.rings);
        gl.disable(gl.CULL_FACE);
        stats.drawCalls += 1;
      }
      gl.drawArrays(gl.TRIANGLES, this.vista.rings, this.vista.disc);
      stats.drawCalls += 1;
      return stats;
    } finally {
      this.restoreState();
      stats.ms = performance.now() - t0;
    }
  }

  /** The state MeshView changes, saved so `render` and `setTerrain` leave the context as found. */
  saveState() {
    const gl = this.gl;
    this.saved = {
      depthTest: gl.isEnabled(gl.DEPTH_TEST),
      blend: gl.isEnabled(gl.BLEND),
      cull: gl.isEnabled(gl.CULL_FACE),
      scissor: gl.isEnabled(gl.SCISSOR_TEST),
      depthMask: gl.getParameter(gl.DEPTH_WRITEMASK),
      depthFunc: gl.getParameter(gl.DEPTH_FUNC),
      colorMask: gl.getParameter(gl.COLOR_WRITEMASK),
      cullFace: gl.getParameter(gl.CULL_FACE_MODE),
      frontFace: gl.getParameter(gl.FRONT_FACE),
      clearColor: gl.getParameter(gl.COLOR_CLEAR_VALUE),
      viewport: gl.getParameter(gl.VIEWPORT),
      program: gl.getParameter(gl.CURRENT_PROGRAM),
      vao: gl.getParameter(gl.VERTEX_ARRAY_BINDING),
      arrayBuffer: gl.getParameter(gl.ARRAY_BUFFER_BINDING),
      framebuffer: gl.getParameter(gl.FRAMEBUFFER_BINDING),
      activeTexture: gl.getParameter(gl.ACTIVE_TEXTURE),
      textures: [0, 1, 2, 3, 4, 5].map((k) => {
        gl.activeTexture(gl.TEXTURE0 + k);
        return gl.getParameter(gl.TEXTURE_BINDING_2D);
      }),
      unpack: [gl.UNPACK_ALIGNMENT, gl.UNPACK_FLIP_Y_WEBGL, gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, gl.UNPACK_COLORSPACE_CONVERSION_WEBGL]
        .map((p) => [p, gl.getParameter(p)]),
    };
  }

  restoreState() {
    const gl = this.gl, s = this.saved;
    if (!s) return;
    const on = (cap, v) => (v ? gl.enable(cap) : gl.disable(cap));
    on(gl.DEPTH_TEST, s.depthTest);
    on(gl.BLEND, s.blend);
    on(gl.CULL_FACE, s.cull);
    on(gl.SCISSOR_TEST, s.scissor);
    gl.depthMask(s.depthMask);
    gl.depthFunc(s.depthFunc);
    gl.colorMask(...s.colorMask);
    gl.cullFace(s.cullFace);
    gl.frontFace(s.frontFace);
    gl.clearColor(...s.clearColor);
    gl.viewport(...s.viewport);
    gl.useProgram(s.program);
    gl.bindVertexArray(s.vao);
    gl.bindBuffer(gl.ARRAY_BUFFER, s.arrayBuffer);
    gl.bindFramebuffer(gl.FRAMEBUFFER, s.framebuffer);
    s.textures.forEach((tex, k) => {
      gl.activeTexture(gl.TEXTURE0 + k);
      gl.bindTexture(gl.TEXTURE_2D, tex);
    });
    gl.activeTexture(s.activeTexture);
    for (const [p, v] of s.unpack) gl.pixelStorei(p, v);
    this.saved = null;
  }

  /** The drawing buffer, rows top first: {width, height, data: Uint8Array RGBA}. */
  readPixels() {
    return readPixelsTopDown(this.gl, this.gl.drawingBufferWidth, this.gl.drawingBufferHeight);
  }

  dispose() {
    const gl = this.gl;
    for (const tex of Object.values(this.tex)) if (tex) gl.deleteTexture(tex);
    this.tex = {};
    for (const b of [this.flatBuf, this.indexBuf]) gl.deleteBuffer(b);
    for (const v of [this.emptyVao, this.flatVao]) gl.deleteVertexArray(v);
    for (const p of [this.sky, this.flat, this.terrain]) gl.deleteProgram(p.p);
    this.t = null;
  }
}

// ===================================================================== loading

/** A little-endian float32 array from the server. */
async function fetchF32(url) {
  return new Float32Array(await (await fetchOk(url)).arrayBuffer());
}

async function fetchOk(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return res;
}

/** An image from the server as an ImageBitmap with no colour conversion or premultiplication. */
export async function fetchImage(url) {
  const blob = await (await fetchOk(url)).blob();
  return createImageBitmap(blob, { imageOrientation: 'none', premultiplyAlpha: 'none', colorSpaceConversion: 'none' });
}

/**
 * The layers a catalogue entry says it carries, fetched at once (null where it has none): the
 * bake's `albedo`, `normal` and `materials` images, the `fold` (`fold.f32`: east, south metres per
 * cell) and the water. With the bake's river lines (`rivers.png`) the lakes (`lakes.f32`, or none)
 * stand as water surfaces and the rivers are drawn as lines; an older bake's `water.f32` (lakes
 * and rivers cell by cell) otherwise. `root` is the entry's folder URL.
 */
async function entryLayers(entry, root) {
  const water = async () => {
    if (entry.rivers) {
      const [lakes, rivers] = await Promise.all([entry.lakes ? fetchF32(`${root}lakes.f32`) : null, fetchImage(`${root}rivers.png`)]);
      return { water: lakes, rivers };
    }
    return { water: entry.water ? await fetchF32(`${root}water.f32`) : null, rivers: null };
  };
  const [albedo, normal, { water: w, rivers }, materials, fold] = await Promise.all([
    entry.albedo ? fetchImage(`${root}albedo.png`) : null,
    entry.normal ? fetchImage(`${root}normal.png`) : null,
    water(),
    entry.materials ? fetchImage(`${root}materials.png`) : null,
    entry.fold ? fetchF32(`${root}fold.f32`) : null,
  ]);
  return { albedo, normal, water: w, rivers, materials, fold };
}

/**
 * A catalogue terrain entry (`catalogue.json`'s `terrains[i]`: path, width, height, cell_size_m
 * and the layer flags) → the object `MeshView.setTerrain` takes, with the layers the entry says
 * are there. `base` is the URL the entry's path is relative to.
 */
export async function loadCatalogueTerrain(entry, base = '') {
  const root = `${base}${entry.path}`;
  const meta = await (await fetchOk(`${root}terrain.json`)).json();
  const heights = await fetchF32(`${root}heights.f32`);
  if (heights.length !== meta.width * meta.height) {
    throw new Error(`${root}heights.f32: ${heights.length} values for ${meta.width} × ${meta.height}`);
  }
  return {
    width: meta.width, height: meta.height, heights, cellSize: meta.cell_size_xy_m || meta.cell_size_m,
    ...(await entryLayers(entry, root)), name: entry.name, recipe: entry.recipe ?? null, seaLevel: entry.sea_level_m ?? null,
  };
}

// ===================================================================== page hook

/**
 * Add mesh mode to the viewer page's `app` (main.js) without touching the splat renderer.
 *
 * Needs from `app`:
 *   app.renderer.gl     the page's WebGL2 context (MeshView draws into the same canvas)
 *   app.terrainHeights  Float32Array, metres, row 0 north; with app.terrainInfo {width, height}
 *   app.terrainName     the catalogue terrain's name, or null for a generated terrain
 *   app.catalogue       {terrains: [{name, path, cell_size_m, albedo, normal}]}: where the baked
 *                       textures are (entry.path + 'albedo.png' / 'normal.png')
 *   app.state           optional: `exposure` and `fov` are used when present
 *   app.dirty           set to true when mesh mode wants a frame
 * Adds `app.mesh`:
 *   enabled             false until `enable()`; the page draws `app.mesh.render()` instead of the
 *                       splat renderer while true
 *   view                the MeshView
 *   cam                 the mesh camera, {target, az, el, dist, fov} in metres (terrain centred on
 *                       the origin), framed on each new terrain
 *   opts                render options (MESH_DEFAULTS: exposure, exaggeration, sunEl, sunAz, fog,
 *                       rings, micro, shadows, albedoGain); edit and set app.dirty
 *   enable(), disable() toggle; enable() syncs first; both return a Promise
 *   sync()              (re)load the current terrain and its textures when it changed; Promise
 *   frame()             reset `cam` to show the whole terrain
 *   render(cam?)        draw one frame (default `cam`); returns MeshView stats
 *   status              {terrain, albedo, normal, error, detail, detailError} of the last sync
 *                       (detail: whether the ground photos, DETAIL_PHOTOS, loaded; opts.detail
 *                       picks their anti-tiling mode, 'off' for none)
 *   dispose()
 */
export function attachMeshMode(app, { cellSize = 10, photos = DETAIL_PHOTOS } = {}) {
  const view = new MeshView(app.renderer.gl);
  let loadedKey = null;
  let detail = null; // the photos' loading: a Promise, once
  /** Load the detail photos once; a failure leaves the look without them and says why. */
  const loadDetail = () => {
    detail = detail || Promise.all([fetchImage(photos.ground), fetchImage(photos.rock)])
      .then(([g, r]) => {
        view.setDetail(g, r);
        mesh.status.detail = true;
      })
      .catch((e) => {
        mesh.status.detail = false;
        mesh.status.detailError = `ground photos: ${e?.message || e}`;
      });
    return detail;
  };
  const mesh = {
    enabled: false,
    view,
    cam: view.frameCamera(),
    opts: { ...MESH_DEFAULTS },
    status: { terrain: null, albedo: false, normal: false, error: null, detail: false, detailError: null },
    async sync() {
      const heights = app.terrainHeights, info = app.terrainInfo;
      if (!heights || !info) return;
      const entry = app.terrainName ? app.catalogue?.terrains?.find((t) => t.name === app.terrainName) : null;
      const key = entry ? `catalogue:${entry.name}` : heights;
      await loadDetail();
      if (key === loadedKey) return;
      try {
        const none = { albedo: null, normal: null, water: null, rivers: null, materials: null, fold: null };
        const layers = entry ? await entryLayers(entry, entry.path) : none;
        view.setTerrain({
          width: info.width, height: info.height, heights, ...layers,
          cellSize: entry?.cell_size_m ?? cellSize, seaLevel: entry?.sea_level_m ?? null,
        });
        loadedKey = key;
        mesh.cam = view.frameCamera(mesh.opts.exaggeration, app.state?.fov ?? 50);
        mesh.status = { ...mesh.status, terrain: entry?.name ?? info.label ?? 'generated', albedo: !!layers.albedo, normal: !!layers.normal, error: null };
      } catch (e) {
        mesh.status = { ...mesh.status, error: String(e?.message || e) };
        throw e;
      } finally {
        app.dirty = true;
      }
    },
    async enable() {
      await mesh.sync();
      mesh.enabled = true;
      app.dirty = true;
    },
    async disable() {
      mesh.enabled = false;
      app.dirty = true;
    },
    frame() {
      mesh.cam = view.frameCamera(mesh.opts.exaggeration, app.state?.fov ?? 50);
      app.dirty = true;
    },
    render(cam = mesh.cam) {
      const o = { ...mesh.opts };
      if (app.state && Number.isFinite(app.state.exposure)) o.exposure = app.state.exposure * mesh.opts.exposure;
      return view.render(cam, o);
    },
    dispose() {
      view.dispose();
      mesh.enabled = false;
    },
  };
  app.mesh = mesh;
  return mesh;
}

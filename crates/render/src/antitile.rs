//! Breaking texture repetition (seed 003's anti-tiling study, "Spike 55"; seed 001 §11.5): the CPU
//! twin of the mesh look's texture sampling.
//!
//! A photo of ground repeated over a landscape shows its period at once. Each [`Tiling`] mode
//! samples one texture so that the period disappears, at a cost in texture fetches:
//!
//! * [`Tiling::Plain`]: one fetch at `(u, v)`. The reference; repeats plainly.
//! * [`Tiling::HexLinear`]: Heitz & Neyret's triangle lattice (HPG 2018): the plane is cut into
//!   equilateral triangles `hex_size` texture repeats on a side; every lattice vertex owns a random
//!   offset of the texture, and a point blends the three offset copies of its triangle's vertices
//!   with its barycentric weights. Around each vertex its copy dominates over a hexagon, so the
//!   texture is shown in randomly shifted hexagonal pieces. A linear blend of three independent
//!   samples keeps the mean but not the contrast: the variance falls to `Σ wᵢ²` of the texture's
//!   (⅓ at a triangle's centroid), a visible pattern of washed-out triangles.
//! * [`Tiling::HexVariance`]: the same lattice with the variance-preserving blend of the same paper
//!   (§3.3): `μ + Σ wᵢ (cᵢ − μ) / √(Σ wᵢ²)`, `μ` the texture's mean colour in linear light (the
//!   1 × 1 mip level, what the GPU reads back once at load). Contrast stays constant across the
//!   blend; values may leave `[0, 1]` and are clamped when encoded. The default.
//! * [`Tiling::HexMikkelsen`]: the lattice with Mikkelsen's blend ("Practical real-time
//!   hex-tiling", JCGT 11(3), 2022): weights sharpened to `wᵢ^e` (e = 7) and steered by each
//!   sample's luminance, `mix(1, L(cᵢ), contrast)` (contrast 0.6), so brighter features win the
//!   transition instead of being averaged away. No random rotation here (the textures it is made
//!   for, ground photos from above, have no preferred direction to hide).
//! * [`Tiling::TwoSample`]: Quilez's technique 3 ("texture repetition"): a low-frequency value
//!   noise `k ∈ [0, 1)` picks, per region, one of 8 random offsets (`⌊8k⌋` and the next one)
//!   and two fetches are blended by `smoothstep(0.2, 0.8, f − 0.1·Σ(cₐ − c_b))`, `f` the fraction
//!   of `8k`: the colour difference steers where the transition falls. No lattice at all; the
//!   cheapest non-plain mode.
//!
//! [`triplanar`] projects a world point on the three axis planes, samples each with the chosen
//! mode (the planes get different seeds) and blends them with weights `|nᵢ|^k` (k 4–8), so cliffs
//! are not stretched by a top-down projection.
//!
//! **Offsets** come from the canonical integer hash ([`bozkir_core::hash::hash_u32`]) of the
//! vertex's integer lattice coordinates, so a shader holding the same hash (32-bit unsigned
//! multiplies and shifts, which GLSL ES 3.0 and WGSL have) places the same offsets:
//! [`vertex_offset`] is pinned by a test. **Level of detail**: all fetches of one point take the
//! level of the *unperturbed* coordinates (the GPU's `textureGrad` with the gradients of `(u, v)`),
//! so no mip seam appears along lattice edges where the offsets jump; the CPU twin gets that level
//! from its caller ([`DetailTexture::lod_for`]).
//!
//! Colours are linear RGB in `[0, 1]` (`f64`). Pure and deterministic.

use crate::raster::shade::srgb_decode;
use bozkir_core::hash::hash_unit;
use bozkir_core::noise::value_noise_at;
use std::fmt;

/// How a texture is sampled over a surface (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Tiling {
    /// One fetch; the texture repeats.
    Plain,
    /// Triangle lattice, three offset fetches, barycentric (linear) blend.
    HexLinear,
    /// Triangle lattice, three offset fetches, variance-preserving blend (the default).
    #[default]
    HexVariance,
    /// Triangle lattice, three offset fetches, Mikkelsen's sharpened luminance-steered blend.
    HexMikkelsen,
    /// Quilez's two offset fetches steered by a low-frequency noise.
    TwoSample,
}

impl Tiling {
    /// Every mode, plain first.
    pub const ALL: [Tiling; 5] =
        [Tiling::Plain, Tiling::HexLinear, Tiling::HexVariance, Tiling::HexMikkelsen, Tiling::TwoSample];

    /// The name used on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            Tiling::Plain => "plain",
            Tiling::HexLinear => "hex-linear",
            Tiling::HexVariance => "hex-vp",
            Tiling::HexMikkelsen => "hex-mikkelsen",
            Tiling::TwoSample => "two-sample",
        }
    }

    /// The mode of a name ([`name`](Self::name), or seed 003's `iq-untiled` for two-sample).
    pub fn parse(s: &str) -> Option<Tiling> {
        match s {
            "iq-untiled" => Some(Tiling::TwoSample),
            _ => Tiling::ALL.into_iter().find(|t| t.name() == s),
        }
    }

    /// The list of names, for messages.
    pub fn names() -> String {
        Tiling::ALL.map(|t| t.name()).join(", ")
    }

    /// Texture fetches per sample of one plane (the variance-preserving mean is read once per
    /// texture, not per sample; the two-sample mode's variation is arithmetic noise, no fetch).
    pub fn fetches(self) -> usize {
        match self {
            Tiling::Plain => 1,
            Tiling::TwoSample => 2,
            Tiling::HexLinear | Tiling::HexVariance | Tiling::HexMikkelsen => 3,
        }
    }
}

impl fmt::Display for Tiling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Parameters of [`sample`] and [`triplanar`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TilingParams {
    /// The mode. Default [`Tiling::HexVariance`].
    pub mode: Tiling,
    /// Side of the lattice's triangles in texture repeats. Default 0.5.
    pub hex_size: f64,
    /// Seed of the offsets. Default 0.
    pub seed: u32,
    /// Two-sample mode: period of the variation noise in texture repeats. Default 1 (Quilez's
    /// noise lookup at 0.005 of the coordinate, on a 256-texel noise texture, varies over ~0.8
    /// repeats; at 4 the offsets stayed put for several repeats and half the period showed).
    pub variation_period: f64,
    /// Mikkelsen's blend: the power of the barycentric weights. Default 7.
    pub sharpness: f64,
    /// Mikkelsen's blend: how far each sample's luminance steers its weight (0 none, 1 all).
    /// Default 0.6.
    pub contrast: f64,
}

impl Default for TilingParams {
    fn default() -> Self {
        Self { mode: Tiling::HexVariance, hex_size: 0.5, seed: 0, variation_period: 1.0, sharpness: 7.0, contrast: 0.6 }
    }
}

/// Salt of the offsets' second coordinate.
const V_SALT: u32 = 0x5BD1_E995;
/// Salt of the two-sample mode's variation noise.
const VARIATION_SALT: u32 = 0x2545_F491;
/// Salts of the three triplanar planes (x, y, z).
const PLANE_SALT: [u32; 3] = [0x1B87_3593, 0xCC9E_2D51, 0];
/// Offsets the two-sample mode chooses from.
const TWO_SAMPLE_LEVELS: f64 = 8.0;

/// `√3`.
const SQRT3: f64 = 1.732_050_807_568_877_2;

/// The texture offset (in repeats, each coordinate in `[0, 1)`) of lattice vertex `(i, j)`:
/// `(hash_unit(i, j, seed), hash_unit(i, j, seed ^ 0x5BD1E995))`, coordinates as two's
/// complement.
#[inline]
pub fn vertex_offset(i: i64, j: i64, seed: u32) -> (f64, f64) {
    let (a, b) = (i as u32, j as u32);
    (hash_unit(a, b, seed), hash_unit(a, b, seed ^ V_SALT))
}

/// The triangle of the lattice holding a point: its three vertices (integer lattice coordinates)
/// and the point's barycentric weights (non-negative, summing to 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatticeTriangle {
    /// The vertices in skewed lattice coordinates.
    pub vertices: [(i64, i64); 3],
    /// The barycentric weights of the point.
    pub weights: [f64; 3],
}

/// The lattice triangle holding `(u, v)` (texture repeats) for triangles of side `hex_size`
/// repeats. The lattice is the skewed square grid `s = ((u − v/√3), 2v/√3) / hex_size`, each
/// unit square cut along its anti-diagonal into two equilateral triangles.
pub fn lattice(u: f64, v: f64, hex_size: f64) -> LatticeTriangle {
    let s = hex_size.max(1e-9);
    let (a, b) = ((u - v / SQRT3) / s, (2.0 * v / SQRT3) / s);
    let (fa, fb) = (a.floor(), b.floor());
    let (x, y) = (a - fa, b - fb);
    let (i, j) = (fa as i64, fb as i64);
    if x + y < 1.0 {
        LatticeTriangle { vertices: [(i, j), (i + 1, j), (i, j + 1)], weights: [1.0 - x - y, x, y] }
    } else {
        LatticeTriangle { vertices: [(i + 1, j + 1), (i + 1, j), (i, j + 1)], weights: [x + y - 1.0, 1.0 - y, 1.0 - x] }
    }
}

/// Why a photo cannot be used as a detail texture.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TextureError {
    /// Zero pixels.
    #[error("the texture is empty ({0}×{1} pixels)")]
    Empty(usize, usize),
    /// Larger than [`DetailTexture::MAX_SIDE`].
    #[error("the texture is {0}×{1} pixels; at most {max} a side", max = DetailTexture::MAX_SIDE)]
    TooLarge(usize, usize),
    /// A pixel count that does not match the size.
    #[error("{got} pixels for a {w}×{h} texture")]
    Shape {
        /// Width.
        w: usize,
        /// Height.
        h: usize,
        /// Pixels given.
        got: usize,
    },
    /// A value outside `[0, 1]` or not finite.
    #[error("pixel {index} holds {value}, outside [0, 1]")]
    Value {
        /// Index of the pixel.
        index: usize,
        /// The value.
        value: f64,
    },
}

/// A detail texture: a photo in linear light, resampled to powers of two on each side (wrapping
/// bilinear), with its box-filtered mip chain down to 1 × 1 (the last level is the mean colour).
#[derive(Debug, Clone, PartialEq)]
pub struct DetailTexture {
    /// `(width, height, texels)` per level, level 0 first.
    levels: Vec<(usize, usize, Vec<[f32; 3]>)>,
    /// The source's size before resampling.
    source: (usize, usize),
}

impl DetailTexture {
    /// Largest side accepted.
    pub const MAX_SIDE: usize = 8192;

    /// A texture from `w × h` sRGB-encoded colours in `[0, 1]` (row 0 at the top). Sides that are
    /// not powers of two are resampled (wrapping bilinear) to the next power of two.
    pub fn from_srgb(w: usize, h: usize, px: &[[f64; 3]]) -> Result<Self, TextureError> {
        if w == 0 || h == 0 {
            return Err(TextureError::Empty(w, h));
        }
        if w > Self::MAX_SIDE || h > Self::MAX_SIDE {
            return Err(TextureError::TooLarge(w, h));
        }
        if px.len() != w * h {
            return Err(TextureError::Shape { w, h, got: px.len() });
        }
        let mut lin = Vec::with_capacity(px.len());
        for (index, c) in px.iter().enumerate() {
            if let Some(&value) = c.iter().find(|v| !(0.0..=1.0).contains(*v)) {
                return Err(TextureError::Value { index, value });
            }
            lin.push(c.map(|v| srgb_decode(v) as f32));
        }
        let (pw, ph) = (w.next_power_of_two(), h.next_power_of_two());
        let base = if (pw, ph) == (w, h) { lin } else { resample_wrapping(&lin, w, h, pw, ph) };
        let mut levels = vec![(pw, ph, base)];
        loop {
            let (lw, lh, ref t) = *levels.last().expect("one level");
            if lw == 1 && lh == 1 {
                break;
            }
            let (nw, nh) = ((lw / 2).max(1), (lh / 2).max(1));
            let (sx, sy) = (lw / nw, lh / nh);
            let mut next = Vec::with_capacity(nw * nh);
            for y in 0..nh {
                for x in 0..nw {
                    let mut acc = [0.0f64; 3];
                    for yy in 0..sy {
                        for xx in 0..sx {
                            let c = t[(y * sy + yy) * lw + x * sx + xx];
                            (0..3).for_each(|k| acc[k] += f64::from(c[k]));
                        }
                    }
                    let n = (sx * sy) as f64;
                    next.push(acc.map(|a| (a / n) as f32));
                }
            }
            levels.push((nw, nh, next));
        }
        Ok(Self { levels, source: (w, h) })
    }

    /// Size of level 0 (powers of two).
    pub fn size(&self) -> (usize, usize) {
        (self.levels[0].0, self.levels[0].1)
    }

    /// The source's size before resampling.
    pub fn source_size(&self) -> (usize, usize) {
        self.source
    }

    /// Number of mip levels (level 0 to the 1 × 1 mean).
    pub fn level_count(&self) -> usize {
        self.levels.len()
    }

    /// The mean colour (linear), the 1 × 1 level.
    pub fn mean(&self) -> [f64; 3] {
        self.levels.last().expect("one level").2[0].map(f64::from)
    }

    /// The level of detail for a footprint of `repeats_per_pixel` texture repeats per output
    /// pixel (the larger of the two axes'): `log₂(texels per pixel)`, at least 0.
    pub fn lod_for(&self, repeats_per_pixel: f64) -> f64 {
        let (w, h) = self.size();
        let t = repeats_per_pixel.abs() * w.max(h) as f64;
        if t > 1.0 {
            t.log2() // +∞ for an unbounded footprint: the mean (fetch clamps to the last level)
        } else {
            0.0
        }
    }

    /// Bilinear fetch at `(u, v)` repeats (wrapping; `v` grows downwards, row 0 at `v = 0`) on
    /// integer level `l`.
    fn bilinear(&self, l: usize, u: f64, v: f64) -> [f64; 3] {
        let (w, h, ref t) = self.levels[l.min(self.levels.len() - 1)];
        wrapping_bilinear(t, w, h, u * w as f64 - 0.5, v * h as f64 - 0.5)
    }

    /// Trilinear fetch at `(u, v)` repeats and level of detail `lod` (0 = full resolution;
    /// clamped to the chain).
    pub fn fetch(&self, u: f64, v: f64, lod: f64) -> [f64; 3] {
        let top = (self.levels.len() - 1) as f64;
        let lod = if lod.is_nan() { 0.0 } else { lod.clamp(0.0, top) };
        let l0 = lod.floor();
        let t = lod - l0;
        let a = self.bilinear(l0 as usize, u, v);
        if t == 0.0 {
            return a;
        }
        let b = self.bilinear(l0 as usize + 1, u, v);
        std::array::from_fn(|k| a[k] + (b[k] - a[k]) * t)
    }
}

/// The texel index below `s` (texel coordinates, centres at integers) and the next one, both
/// wrapped into `0..n`, and the fraction between them.
#[inline]
fn wrap_axis(s: f64, n: usize) -> (usize, usize, f64) {
    let s0 = s.floor();
    let i = (s0 as i64).rem_euclid(n as i64) as usize;
    (i, (i + 1) % n, s - s0)
}

/// Bilinear interpolation of a wrapping `w × h` image at texel coordinates `(x, y)`.
#[inline]
fn wrapping_bilinear(t: &[[f32; 3]], w: usize, h: usize, x: f64, y: f64) -> [f64; 3] {
    let (xa, xb, fx) = wrap_axis(x, w);
    let (ya, yb, fy) = wrap_axis(y, h);
    let at = |xx: usize, yy: usize| t[yy * w + xx].map(f64::from);
    let (a, b, c, d) = (at(xa, ya), at(xb, ya), at(xa, yb), at(xb, yb));
    std::array::from_fn(|k| {
        let top = a[k] + (b[k] - a[k]) * fx;
        let bot = c[k] + (d[k] - c[k]) * fx;
        top + (bot - top) * fy
    })
}

/// Wrapping bilinear resampling of a `w × h` image to `nw × nh` (texel centres mapped to texel
/// centres of the same period).
fn resample_wrapping(src: &[[f32; 3]], w: usize, h: usize, nw: usize, nh: usize) -> Vec<[f32; 3]> {
    let mut out = Vec::with_capacity(nw * nh);
    for y in 0..nh {
        let sy = (y as f64 + 0.5) * h as f64 / nh as f64 - 0.5;
        for x in 0..nw {
            let sx = (x as f64 + 0.5) * w as f64 / nw as f64 - 0.5;
            out.push(wrapping_bilinear(src, w, h, sx, sy).map(|v| v as f32));
        }
    }
    out
}

/// Rec. 709 luminance of a linear colour.
#[inline]
pub fn luminance(c: [f64; 3]) -> f64 {
    0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
}

#[inline]
fn smoothstep(e0: f64, e1: f64, x: f64) -> f64 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// The texture at `(u, v)` repeats under `p.mode`, every fetch at level `lod`; linear colour
/// (the variance-preserving mode may leave `[0, 1]`; clamp when encoding).
pub fn sample(tex: &DetailTexture, p: &TilingParams, u: f64, v: f64, lod: f64) -> [f64; 3] {
    match p.mode {
        Tiling::Plain => tex.fetch(u, v, lod),
        Tiling::HexLinear | Tiling::HexVariance | Tiling::HexMikkelsen => {
            let tri = lattice(u, v, p.hex_size);
            let c: [[f64; 3]; 3] = std::array::from_fn(|k| {
                let (i, j) = tri.vertices[k];
                let (ou, ov) = vertex_offset(i, j, p.seed);
                tex.fetch(u + ou, v + ov, lod)
            });
            let w = tri.weights;
            match p.mode {
                Tiling::HexLinear => std::array::from_fn(|k| w[0] * c[0][k] + w[1] * c[1][k] + w[2] * c[2][k]),
                Tiling::HexVariance => {
                    let mu = tex.mean();
                    let norm = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt();
                    std::array::from_fn(|k| {
                        mu[k] + (w[0] * (c[0][k] - mu[k]) + w[1] * (c[1][k] - mu[k]) + w[2] * (c[2][k] - mu[k])) / norm
                    })
                }
                _ => {
                    let ww: [f64; 3] = std::array::from_fn(|k| {
                        let steer = 1.0 + (luminance(c[k]) - 1.0) * p.contrast;
                        steer.max(0.0) * w[k].max(0.0).powf(p.sharpness)
                    });
                    let sum = ww[0] + ww[1] + ww[2];
                    if sum <= 0.0 {
                        // Every steered weight vanished (black samples at full contrast): linear.
                        return std::array::from_fn(|k| w[0] * c[0][k] + w[1] * c[1][k] + w[2] * c[2][k]);
                    }
                    std::array::from_fn(|k| (ww[0] * c[0][k] + ww[1] * c[1][k] + ww[2] * c[2][k]) / sum)
                }
            }
        }
        Tiling::TwoSample => {
            let period = p.variation_period.max(1e-9);
            let k = value_noise_at(u, v, period, p.seed ^ VARIATION_SALT) * TWO_SAMPLE_LEVELS;
            let ia = k.floor();
            let f = k - ia;
            let ia = ia as i64;
            let (oa, ob) = (vertex_offset(ia, -1, p.seed), vertex_offset(ia + 1, -1, p.seed));
            let ca = tex.fetch(u + oa.0, v + oa.1, lod);
            let cb = tex.fetch(u + ob.0, v + ob.1, lod);
            let diff = (ca[0] - cb[0]) + (ca[1] - cb[1]) + (ca[2] - cb[2]);
            let t = smoothstep(0.2, 0.8, f - 0.1 * diff);
            std::array::from_fn(|k| ca[k] + (cb[k] - ca[k]) * t)
        }
    }
}

/// Triplanar sampling at world point `pos` (metres) with unit-length surface normal `n`: the
/// three axis-plane projections `(y, z)`, `(x, z)`, `(x, y)` divided by `scale_m` (metres per
/// texture repeat), each sampled with [`sample`] under its own seed, blended with weights
/// `|nᵢ|^k / Σ|nⱼ|^k` (seed 001 §11.5 and seed 003 use k between 4 and 8). Planes whose weight is
/// below 10⁻⁴ are skipped (and their weight given to the others), so flat ground costs one plane.
pub fn triplanar(
    tex: &DetailTexture,
    p: &TilingParams,
    pos: [f64; 3],
    n: [f64; 3],
    scale_m: f64,
    k: f64,
    lod: f64,
) -> [f64; 3] {
    let w = triplanar_weights(n, k);
    let s = scale_m.max(1e-12);
    let uv = [(pos[1] / s, -pos[2] / s), (pos[0] / s, -pos[2] / s), (pos[0] / s, -pos[1] / s)];
    let mut out = [0.0; 3];
    for plane in 0..3 {
        if w[plane] == 0.0 {
            continue;
        }
        let q = TilingParams { seed: p.seed ^ PLANE_SALT[plane], ..*p };
        let c = sample(tex, &q, uv[plane].0, uv[plane].1, lod);
        (0..3).for_each(|ch| out[ch] += w[plane] * c[ch]);
    }
    out
}

/// The triplanar weights of normal `n` for exponent `k`: `|nᵢ|^k` normalised, those below 10⁻⁴
/// set to 0 and the rest renormalised. A zero or non-finite normal counts as straight up.
pub fn triplanar_weights(n: [f64; 3], k: f64) -> [f64; 3] {
    let a = n.map(|c| if c.is_finite() { c.abs() } else { 0.0 });
    let mut w = a.map(|c| c.powf(k));
    let sum: f64 = w.iter().sum();
    if sum <= 0.0 || !sum.is_finite() {
        return [0.0, 0.0, 1.0];
    }
    w = w.map(|c| c / sum);
    w = w.map(|c| if c < 1e-4 { 0.0 } else { c });
    let sum: f64 = w.iter().sum();
    w.map(|c| c / sum)
}

/// The texture under `p` over a flat square seen from straight above: `size × size` pixels
/// covering `repeats × repeats` texture repeats, every pixel at its centre, every fetch at the
/// level of one pixel's footprint. Linear colour, row-major (rows in parallel; the same for any
/// thread count).
pub fn render_plane(tex: &DetailTexture, p: &TilingParams, size: usize, repeats: f64) -> Vec<[f64; 3]> {
    use rayon::prelude::*;
    let step = repeats / size.max(1) as f64;
    let lod = tex.lod_for(step);
    let mut out = vec![[0.0; 3]; size * size];
    out.par_chunks_mut(size.max(1)).enumerate().for_each(|(y, row)| {
        let v = (y as f64 + 0.5) * step;
        for (x, px) in row.iter_mut().enumerate() {
            *px = sample(tex, p, (x as f64 + 0.5) * step, v, lod);
        }
    });
    out
}

/// The sRGB bytes of a linear colour (clamped to `[0, 1]`).
pub fn encode_srgb8(c: [f64; 3]) -> [u8; 3] {
    c.map(crate::raster::shade::to_srgb8)
}

/// The linear value of an sRGB-encoded one in `[0, 1]` (IEC 61966-2-1), as the photos are read.
pub fn decode_srgb(c: f64) -> f64 {
    srgb_decode(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bozkir_core::hash::hash_u32;
    use bozkir_core::rng::Rng;

    /// A random-phase texture of `n × n` texels: a sum of cosines whose periods divide `n` (so it
    /// tiles), each with a random phase; smooth enough that bilinear fetches keep its variance.
    fn random_phase(n: usize, seed: u32) -> DetailTexture {
        let mut r = Rng::new(seed);
        let waves: Vec<(f64, f64, f64)> = (0..48)
            .map(|_| {
                let kx = (r.range(-4.0, 4.0)).round();
                let ky = (r.range(-4.0, 4.0)).round();
                (kx, if kx == 0.0 && ky == 0.0 { 1.0 } else { ky }, r.range(0.0, std::f64::consts::TAU))
            })
            .collect();
        let px: Vec<[f64; 3]> = (0..n * n)
            .map(|i| {
                let (x, y) = ((i % n) as f64 / n as f64, (i / n) as f64 / n as f64);
                let s: f64 = waves
                    .iter()
                    .map(|&(kx, ky, ph)| (std::f64::consts::TAU * (kx * x + ky * y) + ph).cos())
                    .sum::<f64>()
                    / 48.0;
                let v = (0.5 + 0.35 * s / 0.2).clamp(0.0, 1.0);
                [v, v, v]
            })
            .collect();
        DetailTexture::from_srgb(n, n, &px).unwrap()
    }

    #[test]
    fn names_round_trip_and_fetch_counts() {
        for t in Tiling::ALL {
            assert_eq!(Tiling::parse(t.name()), Some(t));
        }
        assert_eq!(Tiling::parse("iq-untiled"), Some(Tiling::TwoSample));
        assert_eq!(Tiling::parse("hex"), None);
        assert_eq!(Tiling::ALL.map(|t| t.fetches()), [1, 3, 3, 3, 2]);
        assert_eq!(Tiling::default(), Tiling::HexVariance);
    }

    #[test]
    fn offsets_are_pinned_to_the_canonical_hash() {
        // The values a shader must reproduce (hash_u32 / 2³²).
        let (u, v) = vertex_offset(3, -2, 7);
        assert_eq!(u, hash_u32(3, (-2i64) as u32, 7) as f64 / 4_294_967_296.0);
        assert_eq!(v, hash_u32(3, (-2i64) as u32, 7 ^ 0x5BD1_E995) as f64 / 4_294_967_296.0);
        assert_eq!(hash_u32(3, (-2i64) as u32, 7), PIN_HASH);
    }
    // Computed independently in Python (big-integer arithmetic masked to 32 bits).
    const PIN_HASH: u32 = 628_504_207;

    #[test]
    fn lattice_weights_are_barycentric_and_continuous() {
        let mut r = Rng::new(4);
        for _ in 0..2000 {
            let (u, v, s) = (r.range(-9.0, 9.0), r.range(-9.0, 9.0), r.range(0.2, 2.0));
            let t = lattice(u, v, s);
            let sum: f64 = t.weights.iter().sum();
            assert!((sum - 1.0).abs() < 1e-12 && t.weights.iter().all(|&w| w >= -1e-12));
            // The point is the weighted sum of its vertices (back in uv).
            let to_uv = |(i, j): (i64, i64)| {
                let (a, b) = (i as f64 * s, j as f64 * s);
                (a + b / 2.0, b * SQRT3 / 2.0)
            };
            let (mut pu, mut pv) = (0.0, 0.0);
            for k in 0..3 {
                let (vu, vv) = to_uv(t.vertices[k]);
                pu += t.weights[k] * vu;
                pv += t.weights[k] * vv;
            }
            assert!((pu - u).abs() < 1e-9 && (pv - v).abs() < 1e-9, "({u},{v}) → ({pu},{pv})");
            // Edges are equilateral: every side has length s.
            let p: Vec<(f64, f64)> = t.vertices.iter().map(|&q| to_uv(q)).collect();
            for (a, b) in [(0, 1), (1, 2), (2, 0)] {
                let d = ((p[a].0 - p[b].0).powi(2) + (p[a].1 - p[b].1).powi(2)).sqrt();
                assert!((d - s).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn every_mode_is_continuous_across_lattice_edges() {
        let tex = random_phase(64, 1);
        for mode in Tiling::ALL {
            let p = TilingParams { mode, seed: 9, ..Default::default() };
            // Walk a line in steps of 1e-5 repeats; no jump larger than a smooth texture allows.
            let mut prev = sample(&tex, &p, 0.1, 0.37, 0.0)[0];
            let mut worst: f64 = 0.0;
            for k in 1..40_000 {
                let u = 0.1 + k as f64 * 1e-5 * 1.3;
                let v = 0.37 + k as f64 * 1e-5 * 0.7;
                let c = sample(&tex, &p, u, v, 0.0)[0];
                worst = worst.max((c - prev).abs());
                prev = c;
            }
            assert!(worst < 5e-3, "{mode}: jump of {worst}");
        }
    }

    #[test]
    fn variance_per_lattice_position() {
        // The colour at a fixed barycentric position across many triangles: its variance over the
        // texture's. Linear: Σwᵢ² (⅓ at the centroid); variance-preserving: 1 everywhere.
        let tex = random_phase(64, 2);
        let base: Vec<f64> = {
            let mut r = Rng::new(5);
            (0..4000).map(|_| tex.fetch(r.range(0.0, 1.0), r.range(0.0, 1.0), 0.0)[0]).collect()
        };
        let var = |xs: &[f64]| {
            let m = xs.iter().sum::<f64>() / xs.len() as f64;
            xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / xs.len() as f64
        };
        let v0 = var(&base);
        let s = 0.5;
        for (wa, wb) in [(1.0 / 3.0, 1.0 / 3.0), (0.5, 0.25), (0.1, 0.1), (0.8, 0.1), (0.0, 0.0), (0.45, 0.45)] {
            let mut lin = Vec::new();
            let mut vp = Vec::new();
            for i in 0..60i64 {
                for j in 0..60i64 {
                    // The point with weights (1 − wa − wb, wa, wb) in the lower triangle of (i, j).
                    let (a, b) = (i as f64 + wa, j as f64 + wb);
                    let (u, v) = ((a + b / 2.0) * s, b * SQRT3 / 2.0 * s);
                    lin.push(
                        sample(&tex, &TilingParams { mode: Tiling::HexLinear, ..Default::default() }, u, v, 0.0)[0],
                    );
                    vp.push(
                        sample(&tex, &TilingParams { mode: Tiling::HexVariance, ..Default::default() }, u, v, 0.0)[0],
                    );
                }
            }
            let w = [1.0 - wa - wb, wa, wb];
            let expect = w.iter().map(|x| x * x).sum::<f64>();
            let (rl, rv) = (var(&lin) / v0, var(&vp) / v0);
            assert!((rl - expect).abs() < 0.08 * expect.max(0.3), "linear at {w:?}: {rl} vs {expect}");
            assert!((0.9..1.12).contains(&rv), "variance-preserving at {w:?}: {rv}");
        }
    }

    #[test]
    fn hex_vp_keeps_the_mean_and_modes_agree_at_vertices() {
        let tex = random_phase(32, 3);
        let mu = tex.mean();
        for mode in [Tiling::HexLinear, Tiling::HexVariance, Tiling::HexMikkelsen] {
            // At a lattice vertex every mode shows the vertex's offset copy alone.
            let p = TilingParams { mode, seed: 4, ..Default::default() };
            let (i, j) = (3i64, 5i64);
            let (u, v) = ((i as f64 + j as f64 / 2.0) * p.hex_size, j as f64 * SQRT3 / 2.0 * p.hex_size);
            let (ou, ov) = vertex_offset(i, j, 4);
            let want = tex.fetch(u + ou, v + ov, 0.0);
            let got = sample(&tex, &p, u, v, 0.0);
            assert!((got[0] - want[0]).abs() < 1e-9, "{mode}: {got:?} vs {want:?}");
        }
        let mut r = Rng::new(8);
        let n = 20_000;
        let mean = (0..n)
            .map(|_| sample(&tex, &TilingParams::default(), r.range(0.0, 50.0), r.range(0.0, 50.0), 0.0)[0])
            .sum::<f64>()
            / n as f64;
        assert!((mean - mu[0]).abs() < 0.01, "{mean} vs {}", mu[0]);
    }

    #[test]
    fn mip_chain_ends_at_the_mean_and_resamples_non_powers_of_two() {
        let px: Vec<[f64; 3]> = (0..6 * 3).map(|i| [(i % 6) as f64 / 5.0, 0.5, 1.0]).collect();
        let t = DetailTexture::from_srgb(6, 3, &px).unwrap();
        assert_eq!(t.size(), (8, 4));
        assert_eq!(t.source_size(), (6, 3));
        assert_eq!(t.level_count(), 4); // 8×4, 4×2, 2×1, 1×1
        let m = t.mean();
        assert!((m[2] - 1.0).abs() < 1e-6 && (m[1] - srgb_decode(0.5)).abs() < 1e-6);
        // A level past the chain is the mean; lod for one texel per pixel is 0, for 4 is 2.
        assert_eq!(t.fetch(0.3, 0.7, 99.0)[1] as f32, m[1] as f32);
        assert_eq!(t.lod_for(1.0 / 8.0), 0.0);
        assert_eq!(t.fetch(0.3, 0.7, t.lod_for(f64::INFINITY))[1] as f32, m[1] as f32);
        assert!((t.lod_for(4.0 / 8.0) - 2.0).abs() < 1e-12);
        assert_eq!(DetailTexture::from_srgb(0, 3, &[]), Err(TextureError::Empty(0, 3)));
        assert!(matches!(DetailTexture::from_srgb(2, 2, &[[0.0; 3]; 3]), Err(TextureError::Shape { .. })));
        assert!(matches!(
            DetailTexture::from_srgb(1, 1, &[[f64::NAN, 0.0, 0.0]]),
            Err(TextureError::Value { index: 0, .. })
        ));
    }

    #[test]
    fn triplanar_weights_follow_the_normal() {
        assert_eq!(triplanar_weights([0.0, 0.0, 1.0], 4.0), [0.0, 0.0, 1.0]);
        assert_eq!(triplanar_weights([0.0, 0.0, 0.0], 4.0), [0.0, 0.0, 1.0]);
        let w = triplanar_weights([0.6, 0.0, 0.8], 4.0);
        assert!((w[0] - 0.1296 / (0.1296 + 0.4096)).abs() < 1e-12 && w[1] == 0.0);
        // A flat surface's triplanar sample is the z plane's sample at (x, −y).
        let tex = random_phase(32, 5);
        let p = TilingParams { mode: Tiling::Plain, ..Default::default() };
        let a = triplanar(&tex, &p, [3.0, 5.0, 7.0], [0.0, 0.0, 1.0], 2.0, 6.0, 0.0);
        assert_eq!(a, sample(&tex, &p, 1.5, -2.5, 0.0));
    }
}

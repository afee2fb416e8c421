//! Baked terrain textures: albedo from a reduced palette and a micro-normal map of fine grain
//! (seed 001 §5, §7.3, §8.1, §9).
//!
//! Both textures are sampled at an output resolution of 2–4× the height grid ("bake, don't paint
//! vertices", §7.3). Output pixel `(ox, oy)` of an `out_w × out_h` texture sits at fractional grid
//! coordinates `fx = (ox + ½)·(w − 1)/out_w`, `fy = (oy + ½)·(h − 1)/out_h`: the texel centres of a
//! texture mapped with the mesh UVs `u = col/(w − 1)`, `v = row/(h − 1)` (see
//! `bozkir_io::export::mesh`). Inputs (slope, height, masks) are sampled bilinearly there; noise is
//! evaluated at the point in metres (`fx·dx`, `fy·dy`).
//!
//! **Albedo.** Each texel gets one of six low-saturation materials — rock, scree, grass, snow,
//! sand, soil (§8.1: flat albedo, let lighting do the work; §11.5's detail sets) — from slope,
//! relative height and the erosion masks (§5: wear lowers the rock threshold and lightens rock;
//! steep ground below the rock slope is scree; on gentler ground the deposit mask lays sand
//! (fans, bars, beaches) and high flow lays soil (the damp alluvium of channel floors); flow
//! darkens damp gullies). Every threshold is
//! moved by a dither `j ∈ [−1, 1]`: half a low-frequency fBM (a few cells across, so boundaries
//! wander) and half a per-texel canonical hash (so they break up into grains instead of lines),
//! scaled by a per-threshold band. Then luminance grain (§9): three octaves of gradient noise at
//! ±2.2 % / ±1.6 % / ±1.2 %, wavelengths halving from 2 cells, scaled by slope.
//!
//! **Micro-normal.** The normals of a small fBM detail field only — never the terrain's own
//! shape, which comes from the mesh normals (§7.3) — three octaves with amplitude halving as
//! frequency doubles (§6.1), stronger on steep ground. Tangent space with +X east (right), +Y
//! north (image up, the glTF/OpenGL convention), +Z up; encoded `round((n·0.5 + 0.5)·255)`, so a
//! flat texel is `(128, 128, 255)`.
//!
//! Pure and deterministic: rows are computed in parallel with rayon, every texel independently,
//! so the output is identical for any thread count.

use crate::antitile::{triplanar, DetailTexture, TilingParams};
use crate::raster::shade::{to_linear, to_srgb8};
use bozkir_core::noise::{fbm, gradient, FbmParams};
use bozkir_core::{hash::hash_unit, Grid};
use bozkir_terrain::landform::slope::slope;
use bozkir_terrain::sculpt::warp::sample_bilinear;
use rayon::prelude::*;

/// The erosion masks that steer the albedo, each in `[0, 1]` (normalised with
/// `bozkir_terrain::sculpt::masks::normalise_mask`) on the height grid's shape. Missing masks
/// count as 0 everywhere.
#[derive(Debug, Clone, Copy, Default)]
pub struct BakeMasks<'a> {
    /// Rock removed (fresh rock): lowers the rock slope threshold, lightens rock.
    pub wear: Option<&'a Grid<f64>>,
    /// Sediment dropped: sand where it exceeds [`BakeParams::deposit_threshold`] (scree on steep ground).
    pub deposit: Option<&'a Grid<f64>>,
    /// Drainage (log-scaled area): darkens, and lays soil on gentle channel floors.
    pub flow: Option<&'a Grid<f64>>,
    /// Water depth in metres (sea, lakes; 0 or less on land): water texels take the colour of
    /// their depth ([`BakeParams::water`]) instead of a material.
    pub water: Option<&'a Grid<f64>>,
}

/// Parameters of [`bake_albedo`] and [`bake_micro_normal`]. Slopes are rise over run (m/m);
/// heights are relative, 0 at the field's lowest point and 1 at its highest.
#[derive(Debug, Clone, PartialEq)]
pub struct BakeParams {
    /// Seed of the dither and grain noise. Default 0.
    pub seed: u32,
    /// sRGB colours of rock, scree, grass, snow, sand and soil. Default a low-saturation set:
    /// `(116, 111, 104)`, `(152, 141, 121)`, `(101, 108, 78)`, `(226, 228, 231)`,
    /// `(168, 153, 124)`, `(118, 104, 84)`.
    pub rock: [u8; 3],
    pub scree: [u8; 3],
    pub grass: [u8; 3],
    pub snow: [u8; 3],
    pub sand: [u8; 3],
    pub soil: [u8; 3],
    /// Rock above this slope. Default 0.7 (35°).
    pub rock_slope: f64,
    /// Fraction by which full wear lowers [`rock_slope`](Self::rock_slope). Default 0.3.
    pub wear_rock_shift: f64,
    /// Scree above this slope (below the rock slope). Default 0.45 (24°).
    pub scree_slope: f64,
    /// Snow above this relative height… Default 0.82.
    pub snow_line: f64,
    /// …on slopes below this. Default 1.0 (45°).
    pub snow_max_slope: f64,
    /// Sand where the deposit mask exceeds this (0.6: about 0.7× the mean deposit) on ground
    /// gentler than the scree slope. Default 0.6.
    pub deposit_threshold: f64,
    /// Soil where the flow mask exceeds this on ground gentler than the scree slope (and no
    /// sand). Default 0.85.
    pub flow_sediment: f64,
    /// Dither strength: multiplies every band below; 0 gives hard thresholds. Default 1.
    pub dither: f64,
    /// Half-width of the dither on slope thresholds. Default 0.12.
    pub slope_band: f64,
    /// Half-width of the dither on the snow line (relative height). Default 0.04.
    pub height_band: f64,
    /// Half-width of the dither on mask thresholds. Default 0.15.
    pub mask_band: f64,
    /// Wavelength of the low-frequency part of the dither, in grid cells. Default 6.
    pub dither_wavelength_cells: f64,
    /// Full wear lightens rock by this fraction. Default 0.06.
    pub wear_lighten: f64,
    /// Full flow darkens (damp streaks) by this fraction. Default 0.10.
    pub flow_darken: f64,
    /// Luminance grain amplitudes of the three octaves (fractions). Default ±2.2 %, ±1.6 %,
    /// ±1.2 % (§9).
    pub grain: [f64; 3],
    /// Wavelength of the first grain and micro-normal octave in grid cells; each next octave
    /// halves it. Default 2.
    pub grain_wavelength_cells: f64,
    /// Fraction of the grain (and micro-normal strength) kept on flat ground; it rises smoothly to
    /// 1 at [`grain_slope_full`](Self::grain_slope_full). Default 0.4.
    pub grain_flat: f64,
    /// Slope at which grain reaches full amplitude. Default 1.0 (45°).
    pub grain_slope_full: f64,
    /// Micro-normal detail amplitudes of the three octaves, in grid cells (metres ÷ cell size).
    /// Default 0.03, 0.015, 0.0075: halving as frequency doubles, a tilt of roughly 0.1 per octave.
    pub normal_amplitude: [f64; 3],
    /// Water colours (sRGB) at the shore and in deep water, and the depth (m) at which the
    /// colour is `1 − 1/e` of the way to the deep one. Default those of the preview:
    /// `(86, 150, 166)`, `(20, 52, 94)`, 40 m.
    pub water: ([u8; 3], [u8; 3], f64),
}

impl Default for BakeParams {
    fn default() -> Self {
        Self {
            seed: 0,
            rock: [116, 111, 104],
            scree: [152, 141, 121],
            grass: [101, 108, 78],
            snow: [226, 228, 231],
            sand: [168, 153, 124],
            soil: [118, 104, 84],
            rock_slope: 0.7,
            wear_rock_shift: 0.3,
            scree_slope: 0.45,
            snow_line: 0.82,
            snow_max_slope: 1.0,
            deposit_threshold: 0.6,
            flow_sediment: 0.85,
            dither: 1.0,
            slope_band: 0.12,
            height_band: 0.04,
            mask_band: 0.15,
            dither_wavelength_cells: 6.0,
            wear_lighten: 0.06,
            flow_darken: 0.10,
            grain: [0.022, 0.016, 0.012],
            grain_wavelength_cells: 2.0,
            grain_flat: 0.4,
            grain_slope_full: 1.0,
            normal_amplitude: [0.03, 0.015, 0.0075],
            water: crate::preview::WATER,
        }
    }
}

/// The six materials of the palette, in the order of [`BakeDetail::MATERIALS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Material {
    Rock,
    Scree,
    Grass,
    Snow,
    Sand,
    Soil,
}

/// Seeds of the noise layers, derived from [`BakeParams::seed`].
const DITHER_SALT: u32 = 0x0D17_4E55;
const GRAIN_SALT: u32 = 0x06A1_0000;
const NORMAL_SALT: u32 = 0x0A0E_0000;

/// Sampling geometry shared by both bakes.
struct Frame {
    w: usize,
    h: usize,
    out_w: usize,
    out_h: usize,
    dx: f64,
    dy: f64,
    /// Mean cell size in metres (the unit of the `*_cells` parameters).
    cell: f64,
    slope: Grid<f64>,
}

impl Frame {
    fn new(height: &Grid<f64>, out_w: usize, out_h: usize) -> Self {
        assert!(height.width() > 0 && height.height() > 0, "bake: empty height grid");
        assert!(out_w > 0 && out_h > 0, "bake: empty output size {out_w}×{out_h}");
        let (dx, dy) = (height.dx, height.dy);
        let cell = 0.5 * (dx.abs() + dy.abs());
        let cell = if cell > 0.0 && cell.is_finite() { cell } else { 1.0 };
        Self { w: height.width(), h: height.height(), out_w, out_h, dx, dy, cell, slope: slope(height) }
    }

    /// Fractional grid coordinates of output texel `(ox, oy)`.
    #[inline]
    fn grid_xy(&self, ox: usize, oy: usize) -> (f64, f64) {
        (
            (ox as f64 + 0.5) * (self.w - 1) as f64 / self.out_w as f64,
            (oy as f64 + 0.5) * (self.h - 1) as f64 / self.out_h as f64,
        )
    }

    /// Output texel size in metres along x and y.
    fn texel_m(&self) -> (f64, f64) {
        (
            self.dx * (self.w - 1).max(1) as f64 / self.out_w as f64,
            self.dy * (self.h - 1).max(1) as f64 / self.out_h as f64,
        )
    }

    /// Frequency (cycles per metre) of octave `k` of the grain.
    #[inline]
    fn grain_freq(&self, p: &BakeParams, k: usize) -> f64 {
        (1u32 << k) as f64 / (p.grain_wavelength_cells.max(1e-6) * self.cell)
    }
}

/// `smoothstep(0, edge, x)`; a step at 0 when `edge ≤ 0`.
#[inline]
fn smooth(edge: f64, x: f64) -> f64 {
    if edge <= 0.0 {
        return if x > 0.0 { 1.0 } else { 0.0 };
    }
    let t = (x / edge).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Slope factor of grain and micro-normal strength.
#[inline]
fn grain_scale(p: &BakeParams, s: f64) -> f64 {
    let s = if s.is_finite() { s } else { 0.0 };
    p.grain_flat + (1.0 - p.grain_flat) * smooth(p.grain_slope_full, s)
}

/// Inputs of the material rules at one texel.
#[derive(Debug, Clone, Copy)]
struct Sample {
    slope: f64,
    rel_height: f64,
    wear: f64,
    deposit: f64,
    flow: f64,
}

/// The material under the rules of [`BakeParams`], thresholds moved by `j · dither · band`.
fn classify(p: &BakeParams, s: &Sample, j: f64) -> Material {
    let j = j * p.dither;
    let slope_off = j * p.slope_band;
    let snow = s.rel_height > p.snow_line + j * p.height_band && s.slope < p.snow_max_slope + slope_off;
    if snow {
        return Material::Snow;
    }
    let rock_t = p.rock_slope * (1.0 - p.wear_rock_shift * s.wear) + slope_off;
    if s.slope > rock_t {
        return Material::Rock;
    }
    if s.slope > p.scree_slope + slope_off {
        return Material::Scree;
    }
    let mask_off = j * p.mask_band;
    if s.deposit > p.deposit_threshold + mask_off {
        return Material::Sand;
    }
    if s.flow > p.flow_sediment + mask_off {
        return Material::Soil;
    }
    Material::Grass
}

/// The dither at texel `(ox, oy)`, grid position `(fx, fy)`: in `[−1, 1]`.
#[inline]
fn dither(p: &BakeParams, fr: &Frame, fbm_p: &FbmParams, ox: usize, oy: usize, fx: f64, fy: f64) -> f64 {
    let low = fbm(fbm_p, fx * fr.dx, fy * fr.dy);
    let hash = 2.0 * hash_unit(ox as u32, oy as u32, p.seed ^ DITHER_SALT) - 1.0;
    0.5 * low + 0.5 * hash
}

/// Luminance grain (a fraction, about ±5 % at most) at `(x, y)` metres, before slope scaling.
#[inline]
fn grain(p: &BakeParams, fr: &Frame, x: f64, y: f64) -> f64 {
    let mut g = 0.0;
    for (k, &a) in p.grain.iter().enumerate() {
        if a != 0.0 {
            let f = fr.grain_freq(p, k);
            g += a * gradient(x * f, y * f, p.seed.wrapping_add(GRAIN_SALT).wrapping_add(k as u32));
        }
    }
    g
}

/// Micro-normal detail height (metres) at `(x, y)` metres.
#[inline]
fn detail(p: &BakeParams, fr: &Frame, x: f64, y: f64) -> f64 {
    let mut d = 0.0;
    for (k, &a) in p.normal_amplitude.iter().enumerate() {
        if a != 0.0 {
            let f = fr.grain_freq(p, k);
            d += a * fr.cell * gradient(x * f, y * f, p.seed.wrapping_add(NORMAL_SALT).wrapping_add(k as u32));
        }
    }
    d
}

fn check_mask(name: &str, m: Option<&Grid<f64>>, height: &Grid<f64>) {
    if let Some(m) = m {
        assert_eq!(
            (m.width(), m.height()),
            (height.width(), height.height()),
            "bake: the {name} mask's shape differs from the height grid's"
        );
    }
}

#[inline]
fn sample_opt(m: Option<&Grid<f64>>, fx: f64, fy: f64) -> f64 {
    match m {
        Some(g) => {
            let v = sample_bilinear(g, fx, fy);
            if v.is_finite() {
                v.clamp(0.0, 1.0)
            } else {
                0.0
            }
        }
        None => 0.0,
    }
}

/// Albedo texture of `height` (metres, with its cell size) at `out_w × out_h` texels (sRGB, row 0
/// north): the palette material chosen by dithered thresholds on slope, relative height and the
/// masks, with wear/flow luminance shifts and slope-scaled luminance grain. See the
/// [module docs](self). Panics on an empty grid or output, or a mask of another shape.
pub fn bake_albedo(height: &Grid<f64>, masks: &BakeMasks, p: &BakeParams, out_w: usize, out_h: usize) -> Grid<[u8; 3]> {
    bake_albedo_with(height, masks, p, None, out_w, out_h)
}

/// Photos laid over the materials of the albedo: the CPU twin of the mesh look's detail sets.
///
/// Where a texel's material has a texture, its colour is the palette colour in linear light times
/// `1 + strength·(c/μ − 1)` per channel, `c` the texture sampled with [`triplanar`] (weights
/// `|n|^k` of the terrain normal there, each plane sampled under [`TilingParams`]) at the texel's
/// point in metres, `μ` the texture's mean colour: the palette keeps the mean, the photo gives
/// the grain and, for a colour photo, its tint. Every fetch takes the level of detail of the
/// texel's footprint (texel size × √(1 + slope²) over the repeat), as `textureGrad` would.
#[derive(Debug, Clone, Copy)]
pub struct BakeDetail<'a> {
    /// Texture of each material of [`MATERIALS`](Self::MATERIALS), in that order; `None` keeps
    /// the plain palette colour (and its grain) for that material.
    pub textures: [Option<&'a DetailTexture>; 6],
    /// How each plane is sampled (mode, lattice, seed).
    pub tiling: TilingParams,
    /// Metres per texture repeat.
    pub scale_m: f64,
    /// Triplanar exponent k (4–8).
    pub triplanar_k: f64,
    /// How much of the photo's contrast reaches the albedo (0 none, 1 all).
    pub strength: f64,
}

impl BakeDetail<'_> {
    /// The material names in the order of [`textures`](Self::textures).
    pub const MATERIALS: [&'static str; 6] = ["rock", "scree", "grass", "snow", "sand", "soil"];
    /// The grey level `bozkir bake`'s `materials.png` gives each material (same order): 50 per
    /// step for the first five (rock 50, scree 100, grass 150, snow 200, sand 250) as before
    /// sand and soil were told apart, and soil 25, so an older bake's file reads the same; water 0.
    pub const MATERIAL_CODES: [u8; 6] = [50, 100, 150, 200, 250, 25];
}

/// [`bake_albedo`] with photos over some materials ([`BakeDetail`]); `None` is `bake_albedo`.
pub fn bake_albedo_with(
    height: &Grid<f64>,
    masks: &BakeMasks,
    p: &BakeParams,
    detail: Option<&BakeDetail>,
    out_w: usize,
    out_h: usize,
) -> Grid<[u8; 3]> {
    bake_albedo_materials(height, masks, p, detail, out_w, out_h).0
}

/// What [`bake_albedo_materials`] gives a texel under water (the materials are the indices of
/// [`BakeDetail::MATERIALS`]: rock 0, scree 1, grass 2, snow 3, sand 4, soil 5).
pub const WATER_TEXEL: u8 = 255;

/// [`bake_albedo_with`], and the material each texel took: the index in
/// [`BakeDetail::MATERIALS`], or [`WATER_TEXEL`] under water. The viewer's mesh look lays each
/// material's own detail photo by it.
pub fn bake_albedo_materials(
    height: &Grid<f64>,
    masks: &BakeMasks,
    p: &BakeParams,
    detail: Option<&BakeDetail>,
    out_w: usize,
    out_h: usize,
) -> (Grid<[u8; 3]>, Grid<u8>) {
    check_mask("wear", masks.wear, height);
    check_mask("deposit", masks.deposit, height);
    check_mask("flow", masks.flow, height);
    check_mask("water", masks.water, height);
    let fr = Frame::new(height, out_w, out_h);
    let (lo, hi) = height.min_max().unwrap_or((0.0, 0.0));
    let range = hi - lo;
    let fbm_p = FbmParams {
        octaves: 3,
        frequency: 1.0 / (p.dither_wavelength_cells.max(1e-6) * fr.cell),
        seed: p.seed ^ DITHER_SALT,
        ..FbmParams::default()
    };
    let mut data = vec![([0u8; 3], WATER_TEXEL); out_w * out_h];
    data.par_chunks_mut(out_w).enumerate().for_each(|(oy, row)| {
        for (ox, (px, mat)) in row.iter_mut().enumerate() {
            let (fx, fy) = fr.grid_xy(ox, oy);
            if let Some(d) = masks.water.map(|g| sample_bilinear(g, fx, fy)).filter(|d| *d > 0.0) {
                *px = crate::preview::water_colour(p.water, d);
                continue;
            }
            let z = sample_bilinear(height, fx, fy);
            let s = sample_bilinear(&fr.slope, fx, fy);
            let sample = Sample {
                slope: if s.is_finite() { s } else { 0.0 },
                rel_height: if range > 0.0 && z.is_finite() { (z - lo) / range } else { 0.0 },
                wear: sample_opt(masks.wear, fx, fy),
                deposit: sample_opt(masks.deposit, fx, fy),
                flow: sample_opt(masks.flow, fx, fy),
            };
            let j = dither(p, &fr, &fbm_p, ox, oy, fx, fy);
            let m = classify(p, &sample, j);
            *mat = m as u8;
            let base = match m {
                Material::Rock => p.rock,
                Material::Scree => p.scree,
                Material::Grass => p.grass,
                Material::Snow => p.snow,
                Material::Sand => p.sand,
                Material::Soil => p.soil,
            };
            let (x, y) = (fx * fr.dx, fy * fr.dy);
            let mut lum = 1.0 + grain(p, &fr, x, y) * grain_scale(p, sample.slope);
            if m == Material::Rock {
                lum *= 1.0 + p.wear_lighten * sample.wear;
            }
            if m != Material::Snow {
                lum *= 1.0 - p.flow_darken * sample.flow;
            }
            let tex = detail.and_then(|d| d.textures[m as usize].map(|t| (d, t)));
            *px = match tex {
                None => base.map(|c| (f64::from(c) * lum).round().clamp(0.0, 255.0) as u8),
                Some((d, t)) => {
                    let c = detail_sample(d, t, height, &fr, fx, fy, z, sample.slope);
                    let mu = t.mean();
                    std::array::from_fn(|k| {
                        let ratio = if mu[k] > 1e-4 { c[k] / mu[k] } else { 1.0 };
                        let f = (1.0 + d.strength * (ratio - 1.0)).max(0.0);
                        to_srgb8(to_linear(base[k]) * lum * f)
                    })
                }
            };
        }
    });
    let (albedo, materials): (Vec<[u8; 3]>, Vec<u8>) = data.into_iter().unzip();
    (Grid::from_vec(out_w, out_h, albedo), Grid::from_vec(out_w, out_h, materials))
}

/// The texture of `d` at the texel at grid position `(fx, fy)` with height `z` and slope `slope`.
#[allow(clippy::too_many_arguments)]
fn detail_sample(
    d: &BakeDetail,
    t: &DetailTexture,
    height: &Grid<f64>,
    fr: &Frame,
    fx: f64,
    fy: f64,
    z: f64,
    slope: f64,
) -> [f64; 3] {
    // The normal from central differences over one cell.
    let (w1, h1) = ((fr.w - 1) as f64, (fr.h - 1) as f64);
    let (xa, xb) = ((fx - 0.5).max(0.0), (fx + 0.5).min(w1));
    let (ya, yb) = ((fy - 0.5).max(0.0), (fy + 0.5).min(h1));
    let gx = if xb > xa {
        (sample_bilinear(height, xb, fy) - sample_bilinear(height, xa, fy)) / ((xb - xa) * fr.dx)
    } else {
        0.0
    };
    let gy = if yb > ya {
        (sample_bilinear(height, fx, yb) - sample_bilinear(height, fx, ya)) / ((yb - ya) * fr.dy)
    } else {
        0.0
    };
    let (gx, gy) = (if gx.is_finite() { gx } else { 0.0 }, if gy.is_finite() { gy } else { 0.0 });
    let len = (gx * gx + gy * gy + 1.0).sqrt();
    let n = [-gx / len, -gy / len, 1.0 / len];
    let (tx, ty) = fr.texel_m();
    let footprint = tx.abs().max(ty.abs()) * (1.0 + slope * slope).sqrt() / d.scale_m.max(1e-12);
    let lod = t.lod_for(footprint);
    let z = if z.is_finite() { z } else { 0.0 };
    triplanar(t, &d.tiling, [fx * fr.dx, fy * fr.dy, z], n, d.scale_m, d.triplanar_k, lod)
}

/// Tangent-space micro-normal texture at `out_w × out_h` texels: the normals of the fine detail
/// field only (not of `height`, whose slope only scales the detail's strength), +X east, +Y north,
/// +Z up, encoded `round((n·0.5 + 0.5)·255)`. See the [module docs](self). Panics on an empty grid
/// or output.
pub fn bake_micro_normal(height: &Grid<f64>, p: &BakeParams, out_w: usize, out_h: usize) -> Grid<[u8; 3]> {
    let fr = Frame::new(height, out_w, out_h);
    // Central differences over one texel: half a texel either side of its centre.
    let (tx, ty) = fr.texel_m();
    let (ex, ey) = (0.5 * tx.abs().max(1e-9), 0.5 * ty.abs().max(1e-9));
    let mut data = vec![[0u8; 3]; out_w * out_h];
    data.par_chunks_mut(out_w).enumerate().for_each(|(oy, row)| {
        for (ox, px) in row.iter_mut().enumerate() {
            let (fx, fy) = fr.grid_xy(ox, oy);
            let (x, y) = (fx * fr.dx, fy * fr.dy);
            let gs = grain_scale(p, sample_bilinear(&fr.slope, fx, fy));
            let d_east = gs * (detail(p, &fr, x + ex, y) - detail(p, &fr, x - ex, y)) / (2.0 * ex);
            // y grows southwards (with the row), so d/d(north) = −d/dy.
            let d_north = -gs * (detail(p, &fr, x, y + ey) - detail(p, &fr, x, y - ey)) / (2.0 * ey);
            let (nx, ny, nz) = (-d_east, -d_north, 1.0);
            let len = (nx * nx + ny * ny + nz * nz).sqrt();
            let enc = |c: f64| ((c / len * 0.5 + 0.5) * 255.0).round().clamp(0.0, 255.0) as u8;
            *px = [enc(nx), enc(ny), enc(nz)];
        }
    });
    Grid::from_vec(out_w, out_h, data)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(c: [u8; 3]) -> [f64; 3] {
        c.map(|v| f64::from(v) / 255.0 * 2.0 - 1.0)
    }

    fn close(c: [u8; 3], target: [u8; 3], frac: f64) -> bool {
        c.iter().zip(target).all(|(&a, b)| (f64::from(a) - f64::from(b)).abs() <= f64::from(b) * frac + 1.0)
    }

    /// 41×41 at 1 m: a flat low floor (columns < 14), a 45° ramp (14..27), a high flat top (≥ 27).
    fn landscape() -> Grid<f64> {
        Grid::from_fn(41, 41, |x, _| {
            let x = x as f64;
            if x < 14.0 {
                0.0
            } else if x < 27.0 {
                (x - 14.0) * 1.0
            } else {
                13.0
            }
        })
    }

    #[test]
    fn materials_are_the_palette_entry_each_texel_took() {
        // Without grain, damp streaks or wear every texel is its material's palette colour: the
        // landscape's floor grass, sand where sediment lies and soil on a wet channel floor, its
        // ramp rock and scree, its top snow; a pond on the floor is water.
        let p = BakeParams { grain: [0.0; 3], flow_darken: 0.0, wear_lighten: 0.0, ..BakeParams::default() };
        let h = landscape();
        let pond = Grid::from_fn(41, 41, |x, y| if x < 5 && y < 5 { 1.0 } else { 0.0 });
        let deposit = Grid::from_fn(41, 41, |x, y| if x < 12 && (10..20).contains(&y) { 1.0 } else { 0.0 });
        let flow = Grid::from_fn(41, 41, |x, y| if x < 12 && y > 30 { 1.0 } else { 0.0 });
        let masks =
            BakeMasks { water: Some(&pond), deposit: Some(&deposit), flow: Some(&flow), ..BakeMasks::default() };
        let (albedo, mats) = bake_albedo_materials(&h, &masks, &p, None, 82, 82);
        assert_eq!(albedo, bake_albedo(&h, &masks, &p, 82, 82));
        let palette = [p.rock, p.scree, p.grass, p.snow, p.sand, p.soil];
        let mut seen = [0usize; 7];
        for (c, &m) in albedo.data().iter().zip(mats.data()) {
            if m == WATER_TEXEL {
                seen[6] += 1;
                assert!(!palette.contains(c), "water texel coloured {c:?}");
            } else {
                seen[m as usize] += 1;
                assert_eq!(*c, palette[m as usize], "material {m}");
            }
        }
        assert!(seen.iter().all(|&n| n > 0), "every material and water: {seen:?}");
    }

    #[test]
    fn a_photo_over_grass_keeps_the_palette_mean_and_adds_its_grain() {
        use crate::antitile::{Tiling, TilingParams};
        let h = Grid::from_fn(65, 65, |_, _| 0.0);
        let p = BakeParams { grain: [0.0; 3], ..BakeParams::default() };
        // Stripes of 0.4 and 0.6 (sRGB), 8 texels each, in a 16-texel photo (mild enough that the
        // variance-preserving blend rarely leaves [0, 1], where clamping would move the mean).
        let px: Vec<[f64; 3]> = (0..16 * 16).map(|i| [if (i % 16) < 8 { 0.4 } else { 0.6 }; 3]).collect();
        let t = DetailTexture::from_srgb(16, 16, &px).unwrap();
        let none = BakeDetail {
            textures: [None; 6],
            tiling: TilingParams::default(),
            scale_m: 8.0,
            triplanar_k: 6.0,
            strength: 1.0,
        };
        let plain = bake_albedo(&h, &BakeMasks::default(), &p, 128, 128);
        assert_eq!(bake_albedo_with(&h, &BakeMasks::default(), &p, Some(&none), 128, 128), plain);
        for mode in Tiling::ALL {
            let d = BakeDetail {
                textures: [None, None, Some(&t), None, None, None],
                tiling: TilingParams { mode, ..none.tiling },
                ..none
            };
            let img = bake_albedo_with(&h, &BakeMasks::default(), &p, Some(&d), 128, 128);
            let lin = |g: &Grid<[u8; 3]>| g.data().iter().map(|c| to_linear(c[1])).collect::<Vec<f64>>();
            let (a, b) = (lin(&img), lin(&plain));
            let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
            let sd = |v: &[f64]| (v.iter().map(|x| (x - mean(v)).powi(2)).sum::<f64>() / v.len() as f64).sqrt();
            assert!((mean(&a) / mean(&b) - 1.0).abs() < 0.06, "{mode}: mean {} vs {}", mean(&a), mean(&b));
            assert!(sd(&b) < 1e-3 && sd(&a) > 0.2 * mean(&b), "{mode}: sd {} (plain palette {})", sd(&a), sd(&b));
        }
    }

    #[test]
    fn palette_follows_slope_and_height() {
        let h = landscape();
        let p = BakeParams::default();
        let img = bake_albedo(&h, &BakeMasks::default(), &p, 80, 80);
        // Texel 10 ↔ grid x ≈ 5.1: flat and low. Texel 40 ↔ x ≈ 20.2: on the 45° ramp.
        // Texel 72 ↔ x ≈ 36.2: the high top.
        let tol = 0.06; // grain (≤ 5 %) plus rounding
        for y in [5, 30, 70] {
            assert!(close(*img.get(10, y), p.grass, tol), "grass at y {y}: {:?}", img.get(10, y));
            assert!(close(*img.get(40, y), p.rock, tol), "rock at y {y}: {:?}", img.get(40, y));
            assert!(close(*img.get(72, y), p.snow, tol), "snow at y {y}: {:?}", img.get(72, y));
        }
        // The palette is low-saturation: max − min channel small for every texel.
        assert!(img.data().iter().all(|c| c.iter().max().unwrap() - c.iter().min().unwrap() < 50));
    }

    #[test]
    fn masks_steer_materials() {
        let h = Grid::new(21, 21, 0.0);
        let deposit = Grid::new(21, 21, 1.0);
        let p = BakeParams { grain: [0.0; 3], ..BakeParams::default() };
        let img = bake_albedo(&h, &BakeMasks { deposit: Some(&deposit), ..BakeMasks::default() }, &p, 40, 40);
        assert!(img.data().iter().all(|&c| c == p.sand));
        let flow = Grid::new(21, 21, 1.0);
        let img = bake_albedo(&h, &BakeMasks { flow: Some(&flow), ..BakeMasks::default() }, &p, 40, 40);
        let dark = p.soil.map(|c| (f64::from(c) * (1.0 - p.flow_darken)).round() as u8);
        assert!(img.data().iter().all(|&c| c == dark));
        // Deposit wins over flow; on a slope steeper than the scree slope both give scree.
        let img = bake_albedo(
            &h,
            &BakeMasks { deposit: Some(&deposit), flow: Some(&flow), ..BakeMasks::default() },
            &p,
            40,
            40,
        );
        let dark_sand = p.sand.map(|c| (f64::from(c) * (1.0 - p.flow_darken)).round() as u8);
        assert!(img.data().iter().all(|&c| c == dark_sand));
        let steep = Grid::from_fn(21, 21, |x, _| 0.6 * x as f64);
        let hard = BakeParams { dither: 0.0, snow_line: 2.0, ..p.clone() };
        let (_, mats) = bake_albedo_materials(
            &steep,
            &BakeMasks { deposit: Some(&deposit), flow: Some(&flow), ..BakeMasks::default() },
            &hard,
            None,
            40,
            40,
        );
        // (The slope field's one-sided differences at the grid's edge make the first texel gentler.)
        let odd: Vec<(usize, u8)> = mats
            .data()
            .iter()
            .enumerate()
            .filter(|&(i, &m)| (2..38).contains(&(i % 40)) && m != Material::Scree as u8)
            .map(|(i, &m)| (i, m))
            .collect();
        assert!(odd.is_empty(), "{odd:?}");
    }

    /// First snow column of each row on a gentle linear ramp (relative height = x / (w − 1)).
    fn snow_edges(img: &Grid<[u8; 3]>, p: &BakeParams) -> Vec<usize> {
        (0..img.height()).map(|y| (0..img.width()).find(|&x| *img.get(x, y) == p.snow).unwrap_or(img.width())).collect()
    }

    #[test]
    fn dither_breaks_boundaries_deterministically() {
        let h = Grid::from_fn(65, 65, |x, _| x as f64 * 0.1);
        let hard = BakeParams { grain: [0.0; 3], dither: 0.0, ..BakeParams::default() };
        let edges = snow_edges(&bake_albedo(&h, &BakeMasks::default(), &hard, 128, 128), &hard);
        assert!(edges.iter().all(|&e| e == edges[0]), "no dither: a straight line");
        assert!(edges[0] > 0 && edges[0] < 128);
        let soft = BakeParams { grain: [0.0; 3], ..BakeParams::default() };
        let a = bake_albedo(&h, &BakeMasks::default(), &soft, 128, 128);
        let edges = snow_edges(&a, &soft);
        let distinct: std::collections::BTreeSet<_> = edges.iter().collect();
        assert!(distinct.len() >= 4, "dithered boundary should wander: {edges:?}");
        assert_eq!(a, bake_albedo(&h, &BakeMasks::default(), &soft, 128, 128));
        let other = BakeParams { seed: 7, ..soft.clone() };
        assert_ne!(a, bake_albedo(&h, &BakeMasks::default(), &other, 128, 128));
    }

    #[test]
    fn grain_is_bounded_and_slope_scaled() {
        let flat = Grid::new(33, 33, 0.0);
        let p = BakeParams::default();
        let img = bake_albedo(&flat, &BakeMasks::default(), &p, 64, 64);
        let g = f64::from(p.grass[1]);
        let bound = p.grain.iter().sum::<f64>() * p.grain_flat * g + 0.5;
        let dev: Vec<f64> = img.data().iter().map(|c| f64::from(c[1]) - g).collect();
        assert!(dev.iter().all(|d| d.abs() <= bound), "flat grain within ±{bound}");
        assert!(dev.iter().any(|&d| d != 0.0), "grain present");
    }

    #[test]
    fn flat_zero_amplitude_normal_is_up() {
        let flat = Grid::new(17, 17, 5.0);
        let p = BakeParams { normal_amplitude: [0.0; 3], ..BakeParams::default() };
        let n = bake_micro_normal(&flat, &p, 34, 34);
        assert!(n.data().iter().all(|&c| c == [128, 128, 255]));
        // Zero amplitude ignores the macro shape too: a steep ramp is still flat grain.
        let ramp = Grid::from_fn(17, 17, |x, y| 3.0 * x as f64 + y as f64);
        let n = bake_micro_normal(&ramp, &p, 34, 34);
        assert!(n.data().iter().all(|&c| c == [128, 128, 255]));
    }

    #[test]
    fn normals_are_unit_and_carry_grain() {
        let h = landscape();
        let n = bake_micro_normal(&h, &BakeParams::default(), 120, 120);
        let mut tilted = 0;
        for &c in n.data() {
            let v = decode(c);
            let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            assert!((len - 1.0).abs() < 0.015, "{c:?} has length {len}");
            assert!(v[2] > 0.5, "grain only: mostly up, {c:?}");
            if c != [128, 128, 255] {
                tilted += 1;
            }
        }
        assert!(tilted > n.len() / 2);
    }

    #[test]
    fn identical_for_any_thread_count() {
        let h = landscape();
        let wear = Grid::from_fn(41, 41, |x, y| ((x + y) % 7) as f64 / 7.0);
        let masks = BakeMasks { wear: Some(&wear), ..BakeMasks::default() };
        let p = BakeParams::default();
        let run = |n: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
                .install(|| (bake_albedo(&h, &masks, &p, 100, 90), bake_micro_normal(&h, &p, 100, 90)))
        };
        let one = run(1);
        assert_eq!(one, run(3));
        assert_eq!(one, run(8));
    }
}

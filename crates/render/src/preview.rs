//! Shaded-relief preview: hypsometric colour × hillshade × ambient occlusion.
//!
//! The look follows the project's art direction (seed 001 §7–8: flat, low-saturation albedo; the
//! richness comes from sun, sky and ambient occlusion) and the relief-shading literature
//! (hillshade: Horn 1981; sky-view factor as ambient light: Zakšek et al. 2011). **Ground shading
//! only darkens**: each pixel is the ramp colour of its height multiplied by two factors in
//! `[0, 1]`, so no pixel is ever brighter than its albedo, and level, unoccluded ground shows the
//! ramp colour exactly.
//!
//! * sun factor `1 − s_h·(1 − min(1, hs / sin h))`, where `hs` is the hillshade and `sin h` its
//!   value on level ground: slopes turned towards the sun are not brightened past the albedo,
//!   slopes turned away darken;
//! * ambient factor `1 − s_a·(1 − a)`, with `a` the caller's ambient term in `[0, 1]` — normally
//!   the sky-view factor from `bozkir_terrain::landform::openness` (or positive openness divided
//!   by π/2, clamped) — or 1 when none is given.
//!
//! Heights that are not finite paint black.

use crate::hillshade::{HillshadeParams, MultiHillshadeParams, Shader};
use crate::ramp::Ramp;
use crate::Rgb8Image;
use bozkir_core::round::round_u8;
use bozkir_core::stats::finite_range;
use bozkir_core::Grid;
use bozkir_terrain::landform::void_rows;
use rayon::prelude::*;

/// Which sun(s) light the preview.
#[derive(Debug, Clone, PartialEq)]
pub enum Shading {
    /// One sun.
    Single(HillshadeParams),
    /// Several suns, weighted.
    Multi(MultiHillshadeParams),
}

/// Parameters of [`shaded_relief`].
#[derive(Debug, Clone, PartialEq)]
pub struct PreviewParams {
    /// Hypsometric ramp for height. Default [`Ramp::terrain`].
    pub ramp: Ramp,
    /// Heights mapped to the ends of the ramp, metres. Default `None`: the grid's min and max.
    pub height_range: Option<(f64, f64)>,
    /// The sun(s). Default a single sun at azimuth 315°, altitude 45°, z-factor 1.
    pub shading: Shading,
    /// Strength `s_h ∈ [0, 1]` of the sun term. Default 0.8.
    pub hillshade_strength: f64,
    /// Strength `s_a ∈ [0, 1]` of the ambient term. Default 0.6.
    pub ambient_strength: f64,
    /// Water colours (sRGB) at the shore and in deep water, and the depth in metres at which
    /// the colour is `1 − 1/e` of the way to the deep one ([`shaded_relief_water`]). Default
    /// [`WATER`]: `(86, 150, 166)`, `(20, 52, 94)`, 40 m.
    pub water: ([u8; 3], [u8; 3], f64),
}

impl Default for PreviewParams {
    fn default() -> Self {
        Self {
            ramp: Ramp::terrain(),
            height_range: None,
            shading: Shading::Single(HillshadeParams::default()),
            hillshade_strength: 0.8,
            ambient_strength: 0.6,
            water: WATER,
        }
    }
}

/// Shaded-relief RGB preview of `z` (one pixel per cell, row 0 at the top). `ambient`, when
/// given, must have the same shape as `z` and hold values in `[0, 1]` (1 = fully open sky);
/// non-finite ambient values count as 1.
///
/// # Examples
///
/// ```
/// use bozkir_core::Grid;
/// use bozkir_render::{shaded_relief, PreviewParams};
///
/// let z = Grid::from_fn(16, 12, |x, y| ((x * x + y * y) as f64).sqrt() * 10.0).with_cell_size(30.0, 30.0);
/// let im = shaded_relief(&z, None, &PreviewParams::default());
/// assert_eq!((im.width, im.height, im.data.len()), (16, 12, 16 * 12 * 3));
/// // Deterministic: the same heights give the same pixels.
/// assert_eq!(im, shaded_relief(&z, None, &PreviewParams::default()));
/// ```
pub fn shaded_relief(z: &Grid<f64>, ambient: Option<&Grid<f64>>, p: &PreviewParams) -> Rgb8Image {
    shaded_relief_water(z, ambient, p, None)
}

/// Water colours (sRGB) at the shore and in deep water, and the depth in metres at which the
/// colour is `1 − 1/e` of the way to the deep one: the preview's and the bake's default.
pub const WATER: ([u8; 3], [u8; 3], f64) = ([86, 150, 166], [20, 52, 94], 40.0);

/// The colour of water `d > 0` metres deep under `water` ([`WATER`]'s layout).
pub fn water_colour(water: ([u8; 3], [u8; 3], f64), d: f64) -> [u8; 3] {
    let (shallow, deep, scale) = water;
    let t = 1.0 - (-d.max(0.0) / scale.max(1e-9)).exp();
    std::array::from_fn(|k| (f64::from(shallow[k]) + (f64::from(deep[k]) - f64::from(shallow[k])) * t).round() as u8)
}

/// [`shaded_relief`] with water: where `water` (depth in metres, same shape as `z`) is above
/// zero the pixel is [`water_colour`] of that depth, flat (water is level: no sun term), dimmed
/// by the ambient term only; the ground elsewhere as in `shaded_relief`, its ramp spanning the
/// heights above the water (so a sea floor does not take the ramp's low end from the land).
pub fn shaded_relief_water(
    z: &Grid<f64>,
    ambient: Option<&Grid<f64>>,
    p: &PreviewParams,
    water: Option<&Grid<f64>>,
) -> Rgb8Image {
    let (w, h) = (z.width(), z.height());
    for (name, g) in [("water", water), ("ambient", ambient)] {
        if let Some(g) = g {
            assert!(
                g.width() == w && g.height() == h,
                "shaded_relief: {name} grid is {}x{}, heights {w}x{h}",
                g.width(),
                g.height()
            );
        }
    }
    let (shader, altitude) = match &p.shading {
        Shading::Single(s) => (Shader::single(s), s.altitude_deg),
        Shading::Multi(m) => (Shader::multi(m), m.altitude_deg),
    };
    let level = libm::sin(altitude.to_radians()).max(1e-6);
    let wet = |i: usize| water.is_some_and(|wd| wd.data()[i] > 0.0);
    let range = if water.is_some() {
        finite_range(z.data(), wet).or_else(|| finite_range(z.data(), |_| false))
    } else {
        finite_range(z.data(), |_| false)
    };
    let (lo, hi) = p.height_range.or(range).unwrap_or((0.0, 1.0));
    let mut img = Rgb8Image::new(w, h);
    if w == 0 || h == 0 {
        return img;
    }
    let rows = PreviewRows {
        z,
        voids: void_rows(z),
        shader,
        ambient,
        water,
        params: p,
        level,
        lo,
        span: hi - lo,
        sh: p.hillshade_strength.clamp(0.0, 1.0),
        sa: p.ambient_strength.clamp(0.0, 1.0),
    };
    let avx2 = bozkir_core::simd::avx2();
    img.data.par_chunks_mut(w * 3).enumerate().for_each_init(
        || vec![0.0; w],
        |shade, (y, row)| {
            #[cfg(target_arch = "x86_64")]
            if avx2 {
                // SAFETY: the CPU has AVX2 (checked above).
                unsafe { rows.row_avx2(y, shade, row) };
                return;
            }
            let _ = avx2;
            rows.row(y, shade, row);
        },
    );
    img
}

/// What [`shaded_relief_water`] colours a row of pixels with.
struct PreviewRows<'a> {
    z: &'a Grid<f64>,
    voids: Vec<bool>,
    shader: Shader,
    ambient: Option<&'a Grid<f64>>,
    water: Option<&'a Grid<f64>>,
    params: &'a PreviewParams,
    /// The shade of level ground, the ramp's lowest height and its span, the strengths.
    level: f64,
    lo: f64,
    span: f64,
    sh: f64,
    sa: f64,
}

impl PreviewRows<'_> {
    /// Row `y` of the image into `row` (RGB), its shade first into `shade` (one row, scratch):
    /// the shade is made a row at a time, so no grid of it is kept.
    #[inline(always)]
    fn row(&self, y: usize, shade: &mut [f64], row: &mut [u8]) {
        let Self { z, ref voids, ref shader, ambient, water, params: p, level, lo, span, sh, sa } = *self;
        shader.row(z, voids, y, shade);
        let zr = z.row(y);
        let ar = ambient.map(|a| a.row(y));
        let wr = water.map(|g| g.row(y));
        for (x, px) in row.chunks_exact_mut(3).enumerate() {
            let v = zr[x];
            if let Some(d) = wr.map(|r| r[x]).filter(|d| *d > 0.0) {
                let a = ar.map_or(1.0, |r| if r[x].is_finite() { r[x].clamp(0.0, 1.0) } else { 1.0 });
                let k = 1.0 - 0.5 * sa * (1.0 - a);
                let c = water_colour(p.water, d);
                for q in 0..3 {
                    px[q] = round_u8(f64::from(c[q]) * k);
                }
                continue;
            }
            if !v.is_finite() {
                px.copy_from_slice(&[0, 0, 0]);
                continue;
            }
            let albedo = p.ramp.sample(if span > 0.0 { (v - lo) / span } else { 0.0 });
            let light = if shade[x].is_finite() { (shade[x] / level).min(1.0) } else { 1.0 };
            let sun = 1.0 - sh * (1.0 - light);
            let a = ar.map_or(1.0, |r| if r[x].is_finite() { r[x].clamp(0.0, 1.0) } else { 1.0 });
            let amb = 1.0 - sa * (1.0 - a);
            let k = (sun * amb).clamp(0.0, 1.0);
            for c in 0..3 {
                px[c] = round_u8(albedo[c] as f64 * k);
            }
        }
    }

    /// [`Self::row`] compiled for AVX2 (the same operations, so the same pixels:
    /// [`bozkir_core::simd`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    fn row_avx2(&self, y: usize, shade: &mut [f64], row: &mut [u8]) {
        self.row(y, shade, row);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hills() -> Grid<f64> {
        Grid::from_fn(48, 32, |x, y| {
            let (xf, yf) = (x as f64, y as f64);
            30.0 * (xf * 0.2).sin() * (yf * 0.3).cos() + 0.5 * xf
        })
        .with_cell_size(2.0, 1.0)
    }

    #[test]
    fn water_is_flat_and_coloured_by_depth_and_the_ramp_spans_the_dry_cells() {
        // A ramp from −50 m (west) to +50 m (east); the sea below 0 m.
        let z = Grid::from_fn(20, 4, |x, _| x as f64 * 100.0 / 19.0 - 50.0).with_cell_size(10.0, 10.0);
        let depth = z.map(|&v| if v < 0.0 { -v } else { 0.0 });
        let p = PreviewParams { hillshade_strength: 0.0, ambient_strength: 0.0, ..PreviewParams::default() };
        let im = shaded_relief_water(&z, None, &p, Some(&depth));
        for x in 0..20 {
            let v = *z.get(x, 1);
            if v < 0.0 {
                assert_eq!(im.pixel(x, 1), water_colour(p.water, -v), "x {x}");
            }
        }
        // Deeper is darker; the first dry cell takes the ramp's low end, not its middle.
        assert!(water_colour(p.water, 40.0)[2] < water_colour(p.water, 1.0)[2]);
        assert_eq!(im.pixel(10, 1), p.ramp.sample(0.0));
        // Without water the same heights are all ground.
        let dry = shaded_relief(&z, None, &p);
        assert_ne!(dry.pixel(0, 1), im.pixel(0, 1));
    }

    #[test]
    fn dimensions_and_only_darkens() {
        let z = hills();
        let ao = z.map(|&v| ((v + 40.0) / 100.0).clamp(0.0, 1.0));
        let p = PreviewParams::default();
        let img = shaded_relief(&z, Some(&ao), &p);
        assert_eq!((img.width, img.height, img.data.len()), (48, 32, 48 * 32 * 3));
        let (lo, hi) = z.min_max().unwrap();
        let mut darker = 0;
        for y in 0..32 {
            for x in 0..48 {
                let albedo = p.ramp.sample((z.get(x, y) - lo) / (hi - lo));
                let px = img.pixel(x, y);
                assert!((0..3).all(|c| px[c] <= albedo[c]), "pixel brighter than albedo at ({x},{y})");
                darker += (px != albedo) as usize;
            }
        }
        assert!(darker > 100, "shading should darken many pixels");
        let multi =
            PreviewParams { shading: Shading::Multi(MultiHillshadeParams::default()), ..PreviewParams::default() };
        assert_eq!(shaded_relief(&z, None, &multi).data.len(), img.data.len());
    }

    #[test]
    fn level_open_ground_is_the_albedo_and_occlusion_darkens() {
        let z = Grid::new(8, 8, 10.0);
        let p = PreviewParams { height_range: Some((0.0, 20.0)), ..PreviewParams::default() };
        let albedo = p.ramp.sample(0.5);
        let img = shaded_relief(&z, Some(&z.map(|_| 1.0)), &p);
        assert!((0..8).all(|x| img.pixel(x, 3) == albedo));
        let dark = shaded_relief(&z, Some(&z.map(|_| 0.5)), &p);
        assert!((0..3).all(|c| dark.pixel(2, 2)[c] < albedo[c]));
        let nan = shaded_relief(&Grid::new(2, 2, f64::NAN), None, &p);
        assert!(nan.data.iter().all(|&b| b == 0));
    }

    /// The AVX2 build of the rows gives the portable build's pixels, with ambient, water and
    /// voids, both shadings.
    #[test]
    fn avx2_rows_give_the_portable_pixels() {
        let mut z = hills();
        z.data_mut()[77] = f64::NAN;
        let (w, h) = (z.width(), z.height());
        let amb = Grid::from_fn(w, h, |x, y| ((x * 7 + y * 3) % 11) as f64 / 10.0);
        let water = Grid::from_fn(w, h, |x, y| if x < 6 && y < 5 { 3.0 } else { 0.0 });
        let multi = PreviewParams { shading: Shading::Multi(MultiHillshadeParams::default()), ..Default::default() };
        for p in [PreviewParams::default(), multi] {
            let simd = shaded_relief_water(&z, Some(&amb), &p, Some(&water));
            bozkir_core::simd::FORCE_PORTABLE.store(true, std::sync::atomic::Ordering::Relaxed);
            let portable = shaded_relief_water(&z, Some(&amb), &p, Some(&water));
            bozkir_core::simd::FORCE_PORTABLE.store(false, std::sync::atomic::Ordering::Relaxed);
            assert_eq!(simd, portable);
        }
    }

    #[test]
    fn same_bytes_for_any_thread_count() {
        let z = hills();
        let p = PreviewParams { shading: Shading::Multi(MultiHillshadeParams::default()), ..PreviewParams::default() };
        let run = |n: usize| {
            rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap().install(|| shaded_relief(&z, None, &p))
        };
        let one = run(1);
        assert_eq!(one, run(3));
        assert_eq!(one, run(4));
    }
}

//! Captures to work on: no real 3DGS capture of open ground ships in any package registry, so
//! bozkir makes its own — a synthetic ground capture with one or two materials, and real
//! ground turned into splats (a coloured point cloud, or a photo draped over a height field).
//!
//! Every capture is z-up, metres, centred on the origin, SH degree 0, and deterministic in its
//! seed. Splats are flat discs lying on the ground (`σ_z = flatness · σ_xy`), turned about the
//! vertical by a random angle, so screening (`crate::capture::screen`) sees ground.
//!
//! * [`synth`]: a square of ground sampled on a jittered lattice; material from a low-frequency
//!   noise field (two materials of roughly equal area, or one); each material has its own base
//!   colour, grain (multi-octave colour noise), splat size, anisotropy and micro-relief, so a
//!   patch search can tell them apart by appearance alone. Optional floaters (large, faint
//!   splats above the ground), a background wall far outside the ground, a tilt and an
//!   upside-down flip exercise the preparation steps.
//! * [`from_points`]: one splat per point; its in-plane size from the local point spacing
//!   (distance to the k-th neighbour), colour from the point's RGB.
//! * [`from_texture`]: a grey or colour image draped over a height field (or flat ground), one
//!   splat per texel.

pub mod lod;
pub mod patches;
pub mod plane_index;
pub mod prepare;
pub mod screen;

use crate::model::Splats;
use crate::quat;
use crate::sh::SH_C0;
use bozkir_core::noise::{fbm01, FbmParams};
use bozkir_core::rng::Rng;

/// Colour `[0, 1]` → SH degree-0 coefficient.
pub fn rgb_to_dc(c: [f64; 3]) -> [f32; 3] {
    c.map(|v| ((v - 0.5) / SH_C0) as f32)
}

/// A rotation about +z by `angle` radians as `(w, x, y, z)`.
fn about_z(angle: f64) -> [f32; 4] {
    quat::from_axis_angle([0.0, 0.0, 1.0], angle).map(|v| v as f32)
}

/// Appearance of one synthetic material.
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    pub name: String,
    /// Base colour, linear 0..1.
    pub rgb: [f64; 3],
    /// Colour variation amplitude (± around the base).
    pub grain: f64,
    /// Grain feature size in metres.
    pub grain_m: f64,
    /// Splat in-plane σ as a multiple of the lattice spacing.
    pub size: f64,
    /// In-plane anisotropy: σ_x / σ_y (≥ 1).
    pub anisotropy: f64,
    /// Micro-relief amplitude in metres.
    pub relief_m: f64,
}

impl Material {
    /// Pale sand: fine grain, small round splats, little relief.
    pub fn sand() -> Material {
        Material {
            name: "sand".into(),
            rgb: [0.52, 0.47, 0.43],
            grain: 0.06,
            grain_m: 0.04,
            size: 0.7,
            anisotropy: 1.2,
            relief_m: 0.01,
        }
    }

    /// Dark scrub: coarse clumps, elongated splats, more relief.
    pub fn scrub() -> Material {
        Material {
            name: "scrub".into(),
            rgb: [0.19, 0.21, 0.15],
            grain: 0.09,
            grain_m: 0.12,
            size: 0.9,
            anisotropy: 2.5,
            relief_m: 0.04,
        }
    }
}

/// Settings of [`synth`].
#[derive(Debug, Clone, PartialEq)]
pub struct SynthParams {
    /// Side of the square of ground, metres.
    pub side_m: f64,
    /// Splats per square metre.
    pub density: f64,
    /// One or two materials (`materials[0]` alone, or both).
    pub materials: Vec<Material>,
    /// Feature size of the material map in metres (two materials).
    pub patch_m: f64,
    /// Broad relief amplitude in metres (gentle undulation across the capture).
    pub relief_m: f64,
    /// Large faint splats floating above the ground (count).
    pub floaters: usize,
    /// A vertical background wall this far outside the ground edge, metres (0 = none).
    pub background_m: f64,
    /// Tilt of the whole capture about the x axis, degrees (a capture's camera frame).
    pub tilt_deg: f64,
    /// Turn the capture upside down (z → −z).
    pub upside_down: bool,
    /// Splat thickness: σ_z = flatness · σ_xy.
    pub flatness: f64,
    pub seed: u32,
}

impl Default for SynthParams {
    fn default() -> Self {
        SynthParams {
            side_m: 4.0,
            density: 8000.0,
            materials: vec![Material::sand(), Material::scrub()],
            patch_m: 1.2,
            relief_m: 0.05,
            floaters: 0,
            background_m: 0.0,
            tilt_deg: 0.0,
            upside_down: false,
            flatness: 0.15,
            seed: 0,
        }
    }
}

/// A synthesized capture and, per splat, the material it was drawn from (`u8::MAX` for
/// floaters and background).
#[derive(Debug, Clone)]
pub struct Capture {
    pub splats: Splats,
    pub material: Vec<u8>,
}

/// Largest number of splats [`synth`] makes.
pub const MAX_SYNTH_SPLATS: f64 = 50_000_000.0;

/// Farthest background wall [`synth`] places outside the ground, metres (positions stay exact
/// enough in `f32` and every reader accepts them).
pub const MAX_BACKGROUND_M: f64 = 100_000.0;

/// Why a capture could not be made ([`check_synth`], [`synth`], [`from_points`],
/// [`from_texture`]); each message is the one the command line prints.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CaptureError {
    /// A setting that must be a positive finite number is not.
    #[error("{name} {value} must be positive")]
    NotPositive { name: &'static str, value: f64 },
    /// Relief or background distance is negative or not finite.
    #[error("relief and background distance must be non-negative")]
    Negative,
    /// A setting outside its range (e.g. a background wall beyond [`MAX_BACKGROUND_M`], a tilt
    /// that is not a finite angle).
    #[error("{name} {value:?} must be {range}")]
    OutOfRange { name: &'static str, value: f64, range: &'static str },
    /// Synth was given other than one or two materials.
    #[error("{0} materials: synth makes one or two")]
    Materials(usize),
    /// side² × density, with the floaters and the background wall, exceeds [`MAX_SYNTH_SPLATS`].
    #[error("{0:.0} splats (side² × density, floaters and background) exceeds {max:.0}", max = MAX_SYNTH_SPLATS)]
    TooMany(f64),
    /// side² × density is below 16.
    #[error("{0:.0} splats is too few for a capture")]
    TooFew(f64),
    /// Fewer than 16 points.
    #[error("{0} points: too few for a capture")]
    TooFewPoints(usize),
    /// The colour list does not match the point list.
    #[error("{colours} colours for {points} points")]
    ColourCount { colours: usize, points: usize },
    /// A point has a NaN or infinite coordinate.
    #[error("point {0} is not finite")]
    NonFinitePoint(usize),
    /// The image is smaller than 4×4 or its pixel count is not `w × h`.
    #[error("image {w}×{h} with {pixels} pixels")]
    Image { w: usize, h: usize, pixels: usize },
    /// The height field is smaller than 2×2, the wrong length, or not finite.
    #[error("height field must be at least 2×2 and finite")]
    HeightField,
}

/// Problems with capture settings.
pub fn check_synth(p: &SynthParams) -> Result<(), CaptureError> {
    let pos = |name: &'static str, value: f64| {
        if value > 0.0 && value.is_finite() {
            Ok(())
        } else {
            Err(CaptureError::NotPositive { name, value })
        }
    };
    pos("side", p.side_m)?;
    pos("density", p.density)?;
    pos("patch size", p.patch_m)?;
    pos("flatness", p.flatness)?;
    let non_negative = |v: f64| v >= 0.0 && v.is_finite();
    if !non_negative(p.relief_m) || !non_negative(p.background_m) {
        return Err(CaptureError::Negative);
    }
    if !(1e-4..=MAX_BACKGROUND_M).contains(&p.patch_m) {
        return Err(CaptureError::OutOfRange { name: "patch size", value: p.patch_m, range: "within 1e-4..=100000 m" });
    }
    if p.background_m > MAX_BACKGROUND_M {
        return Err(CaptureError::OutOfRange {
            name: "background",
            value: p.background_m,
            range: "within 0..=100000 m",
        });
    }
    if !p.tilt_deg.is_finite() {
        return Err(CaptureError::OutOfRange { name: "tilt", value: p.tilt_deg, range: "a finite angle in degrees" });
    }
    if !(1..=2).contains(&p.materials.len()) {
        return Err(CaptureError::Materials(p.materials.len()));
    }
    let n = p.side_m * p.side_m * p.density;
    if n < 16.0 {
        return Err(CaptureError::TooFew(n));
    }
    let total = synth_splats(p);
    if total > MAX_SYNTH_SPLATS {
        return Err(CaptureError::TooMany(total));
    }
    Ok(())
}

/// How many splats [`synth`] makes for `p` (ground, floaters and background wall), as `f64` so
/// that absurd settings give a large number rather than an overflow; callers check it against
/// their memory budget before calling [`synth`].
pub fn synth_splats(p: &SynthParams) -> f64 {
    let spacing = 1.0 / p.density.sqrt();
    let cells = (p.side_m / spacing).round().max(4.0);
    let wall = if p.background_m > 0.0 { (p.side_m * 4.0 / spacing / 8.0).ceil() * 8.0 } else { 0.0 };
    cells * cells + p.floaters as f64 + wall
}

/// A synthetic ground capture. See the module documentation.
pub fn synth(p: &SynthParams) -> Result<Capture, CaptureError> {
    check_synth(p)?;
    let spacing = 1.0 / p.density.sqrt();
    let cells = (p.side_m / spacing).round().max(4.0) as usize;
    let half = p.side_m / 2.0;
    let mut rng = Rng::new(p.seed);
    let mut s = Splats::with_capacity(cells * cells + p.floaters, 0);
    let mut material = Vec::with_capacity(cells * cells + p.floaters);
    let patch =
        FbmParams { octaves: 3, frequency: 1.0 / p.patch_m, seed: p.seed.wrapping_add(11), ..FbmParams::default() };
    let broad =
        FbmParams { octaves: 2, frequency: 1.0 / p.side_m, seed: p.seed.wrapping_add(17), ..FbmParams::default() };
    let two = p.materials.len() == 2;
    for j in 0..cells {
        for i in 0..cells {
            let x = -half + (i as f64 + rng.next_f64()) * spacing;
            let y = -half + (j as f64 + rng.next_f64()) * spacing;
            let k = if two && fbm01(&patch, x, y) > 0.5 { 1 } else { 0 };
            let m = &p.materials[k];
            let grain = FbmParams {
                octaves: 4,
                frequency: 1.0 / m.grain_m,
                seed: p.seed.wrapping_add(31 + k as u32),
                ..FbmParams::default()
            };
            let micro = FbmParams {
                octaves: 3,
                frequency: 1.0 / (4.0 * m.grain_m),
                seed: p.seed.wrapping_add(41 + k as u32),
                ..FbmParams::default()
            };
            let g = fbm01(&grain, x, y) - 0.5;
            let jitter = rng.normal(0.0, 0.25 * m.grain);
            let rgb = m.rgb.map(|c| (c + 2.0 * m.grain * g + jitter).clamp(0.0, 1.0));
            // Micro-relief sticks up (pebbles, clumps: a positive skew), as real ground does; the
            // up-side test of preparation relies on that asymmetry.
            let bump = fbm01(&micro, x, y);
            let z = p.relief_m * (fbm01(&broad, x, y) - 0.5) * 2.0 + m.relief_m * 2.0 * bump * bump * bump;
            let sxy = m.size * spacing;
            let sx = sxy * m.anisotropy.sqrt();
            let sy = sxy / m.anisotropy.sqrt();
            let angle = rng.next_f64() * std::f64::consts::TAU;
            let opacity = 0.85 + 0.1 * rng.next_f64();
            s.push_decoded(
                [x as f32, y as f32, z as f32],
                [sx as f32, sy as f32, (p.flatness * sxy) as f32],
                about_z(angle),
                opacity as f32,
                rgb_to_dc(rgb),
                &[],
            );
            material.push(k as u8);
        }
    }
    for _ in 0..p.floaters {
        let x = rng.range(-half, half);
        let y = rng.range(-half, half);
        let z = rng.range(0.3, 1.5) * p.side_m * 0.3;
        let r = rng.range(0.05, 0.2) * p.side_m * 0.1;
        s.push_decoded(
            [x as f32, y as f32, z as f32],
            [r as f32; 3],
            [1.0, 0.0, 0.0, 0.0],
            0.3,
            rgb_to_dc([0.7, 0.7, 0.75]),
            &[],
        );
        material.push(u8::MAX);
    }
    if p.background_m > 0.0 {
        // A wall on the north side, far outside the ground: upright discs facing south.
        let d = half + p.background_m;
        let n = (p.side_m * 4.0 / spacing / 8.0).ceil() as usize;
        let stand = quat::from_axis_angle([1.0, 0.0, 0.0], std::f64::consts::FRAC_PI_2).map(|v| v as f32);
        for i in 0..n {
            for h in 0..8 {
                let x = -2.0 * half + (i as f64 + 0.5) / n as f64 * 4.0 * half;
                let z = h as f64 * p.side_m * 0.1;
                s.push_decoded(
                    [x as f32, d as f32, z as f32],
                    [(spacing * 4.0) as f32, (spacing * 4.0) as f32, (spacing * 0.5) as f32],
                    stand,
                    0.9,
                    rgb_to_dc([0.55, 0.6, 0.7]),
                    &[],
                );
                material.push(u8::MAX);
            }
        }
    }
    if p.tilt_deg != 0.0 || p.upside_down {
        let mut q = quat::from_axis_angle([1.0, 0.0, 0.0], p.tilt_deg.to_radians());
        if p.upside_down {
            q = quat::mul(quat::from_axis_angle([0.0, 1.0, 0.0], std::f64::consts::PI), q);
        }
        s.transform(&crate::model::Rigid::rotation(q));
    }
    Ok(Capture { splats: s, material })
}

/// Splats from a coloured point cloud (metres; `rgb` 0..1). In-plane σ is `size ×` the local
/// point spacing `√(area / count)` of the point's cell on a grid holding about 16 points per
/// occupied cell (robust to duplicates and clumps, unlike a nearest-neighbour distance);
/// `σ_z = flatness · σ_xy`. Points are recentred on their centroid (x, y) and 1st percentile (z).
pub fn from_points(xyz: &[[f64; 3]], rgb: &[[f64; 3]], size: f64, flatness: f64) -> Result<Splats, CaptureError> {
    if xyz.len() < 16 {
        return Err(CaptureError::TooFewPoints(xyz.len()));
    }
    if rgb.len() != xyz.len() {
        return Err(CaptureError::ColourCount { colours: rgb.len(), points: xyz.len() });
    }
    if let Some(i) = xyz.iter().position(|p| p.iter().any(|v| !v.is_finite())) {
        return Err(CaptureError::NonFinitePoint(i));
    }
    let n = xyz.len() as f64;
    let cx = xyz.iter().map(|p| p[0]).sum::<f64>() / n;
    let cy = xyz.iter().map(|p| p[1]).sum::<f64>() / n;
    let mut zs: Vec<f64> = xyz.iter().map(|p| p[2]).collect();
    zs.sort_by(f64::total_cmp);
    let cz = zs[zs.len() / 100];
    let pts: Vec<[f64; 3]> = xyz.iter().map(|p| [p[0] - cx, p[1] - cy, p[2] - cz]).collect();
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for p in &pts {
        for a in 0..2 {
            lo[a] = lo[a].min(p[a]);
            hi[a] = hi[a].max(p[a]);
        }
    }
    let area = ((hi[0] - lo[0]) * (hi[1] - lo[1])).max(1e-12);
    let cell = (area * 16.0 / n).sqrt().max(1e-6);
    let (gw, gh) = (((hi[0] - lo[0]) / cell) as usize + 1, ((hi[1] - lo[1]) / cell) as usize + 1);
    let idx = |p: &[f64; 3]| {
        let gx = (((p[0] - lo[0]) / cell) as usize).min(gw - 1);
        let gy = (((p[1] - lo[1]) / cell) as usize).min(gh - 1);
        gy * gw + gx
    };
    let mut count = vec![0u32; gw * gh];
    for p in &pts {
        count[idx(p)] += 1;
    }
    let mut s = Splats::with_capacity(pts.len(), 0);
    for (i, p) in pts.iter().enumerate() {
        let spacing = (cell * cell / f64::from(count[idx(p)])).sqrt();
        let sxy = size * spacing;
        s.push_decoded(
            [p[0] as f32, p[1] as f32, p[2] as f32],
            [sxy as f32, sxy as f32, (flatness * sxy) as f32],
            about_z(hash01(i as u32) * std::f64::consts::TAU),
            0.95,
            rgb_to_dc(rgb[i]),
            &[],
        );
    }
    Ok(s)
}

fn hash01(i: u32) -> f64 {
    f64::from(bozkir_core::hash::hash_u32(i, 0x5EED, 7)) / 4_294_967_296.0
}

/// An image (`w × h`, RGB 0..1, row 0 north) draped over a height field in metres (`heights`
/// `hw × hh`, row 0 north; `None` = flat), spanning `side_m` across its long edge: one splat per
/// texel, σ = `size ×` texel spacing.
pub fn from_texture(
    rgb: &[[f64; 3]],
    w: usize,
    h: usize,
    heights: Option<(&[f64], usize, usize)>,
    side_m: f64,
    size: f64,
    flatness: f64,
) -> Result<Splats, CaptureError> {
    if w < 4 || h < 4 || rgb.len() != w * h {
        return Err(CaptureError::Image { w, h, pixels: rgb.len() });
    }
    if !(side_m > 0.0 && side_m.is_finite()) {
        return Err(CaptureError::NotPositive { name: "side", value: side_m });
    }
    if let Some((z, hw, hh)) = heights {
        if hw < 2 || hh < 2 || z.len() != hw * hh || z.iter().any(|v| !v.is_finite()) {
            return Err(CaptureError::HeightField);
        }
    }
    let step = side_m / (w.max(h) as f64 - 1.0);
    let (x0, y0) = ((w as f64 - 1.0) * step / 2.0, (h as f64 - 1.0) * step / 2.0);
    let mut s = Splats::with_capacity(w * h, 0);
    for r in 0..h {
        for c in 0..w {
            let (u, v) = (c as f64 / (w - 1) as f64, r as f64 / (h - 1) as f64);
            let z = match heights {
                Some((z, hw, hh)) => bilinear(z, hw, hh, u * (hw - 1) as f64, v * (hh - 1) as f64),
                None => 0.0,
            };
            let x = c as f64 * step - x0;
            let y = y0 - r as f64 * step;
            let i = (r * w + c) as u32;
            let sxy = size * step;
            s.push_decoded(
                [x as f32, y as f32, z as f32],
                [sxy as f32, sxy as f32, (flatness * sxy) as f32],
                about_z(hash01(i) * std::f64::consts::TAU),
                0.95,
                rgb_to_dc(rgb[r * w + c]),
                &[],
            );
        }
    }
    Ok(s)
}

fn bilinear(z: &[f64], w: usize, h: usize, x: f64, y: f64) -> f64 {
    let (x0, y0) = (x.floor().clamp(0.0, (w - 1) as f64) as usize, y.floor().clamp(0.0, (h - 1) as f64) as usize);
    let (x1, y1) = ((x0 + 1).min(w - 1), (y0 + 1).min(h - 1));
    let (tx, ty) = (x - x0 as f64, y - y0 as f64);
    let a = z[y0 * w + x0] * (1.0 - tx) + z[y0 * w + x1] * tx;
    let b = z[y1 * w + x0] * (1.0 - tx) + z[y1 * w + x1] * tx;
    a * (1.0 - ty) + b * ty
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> SynthParams {
        SynthParams { side_m: 2.0, density: 2000.0, ..SynthParams::default() }
    }

    #[test]
    fn synth_two_materials_are_distinct_and_balanced() {
        let c = synth(&small()).unwrap();
        assert_eq!(c.splats.len(), c.material.len());
        assert!((c.splats.len() as f64 - 8000.0).abs() < 200.0, "{}", c.splats.len());
        let share = c.material.iter().filter(|&&m| m == 1).count() as f64 / c.material.len() as f64;
        assert!((0.2..0.8).contains(&share), "scrub share {share}");
        // Mean brightness separates the materials.
        let mean = |k: u8| {
            let v: Vec<f32> = (0..c.splats.len())
                .filter(|&i| c.material[i] == k)
                .map(|i| c.splats.base_rgb(i).iter().sum::<f32>() / 3.0)
                .collect();
            v.iter().sum::<f32>() / v.len() as f32
        };
        assert!(mean(0) - mean(1) > 0.2, "{} vs {}", mean(0), mean(1));
        // Flat discs near z = 0 inside the square.
        let b = c.splats.bounds().unwrap();
        assert!(b.min[0] >= -1.0 && b.max[0] <= 1.0);
        assert!(b.extent()[2] < 0.3);
    }

    #[test]
    fn synth_is_deterministic_and_seeded() {
        let a = synth(&small()).unwrap();
        let b = synth(&small()).unwrap();
        assert_eq!(a.splats, b.splats);
        let c = synth(&SynthParams { seed: 1, ..small() }).unwrap();
        assert_ne!(a.splats.positions(), c.splats.positions());
    }

    #[test]
    fn synth_extras_and_bad_settings() {
        let one = synth(&SynthParams { materials: vec![Material::sand()], ..small() }).unwrap();
        assert!(one.material.iter().all(|&m| m == 0));
        let extras = SynthParams { floaters: 50, background_m: 2.0, ..small() };
        let f = synth(&extras).unwrap();
        assert!(f.material.iter().filter(|&&m| m == u8::MAX).count() > 50);
        assert_eq!(f.splats.len() as f64, synth_splats(&extras));
        // Issue 20, findings 7 and 10: floaters count towards the cap; no wall at 1e308 m, no NaN tilt.
        for bad in [
            SynthParams { floaters: 1_000_000_000_000, ..small() },
            SynthParams { floaters: 100_000_000, ..small() },
            SynthParams { background_m: 1e308, ..small() },
            SynthParams { tilt_deg: f64::NAN, ..small() },
            SynthParams { tilt_deg: f64::INFINITY, ..small() },
        ] {
            assert!(check_synth(&bad).is_err(), "{bad:?}");
        }
        let up = synth(&SynthParams { upside_down: true, ..small() }).unwrap();
        // Upside down: the disc normals (local z) point down.
        let q = up.splats.rotations()[0];
        let m = quat::to_matrix(q.map(f64::from));
        assert!(m[2][2] < -0.9);
        assert!(synth(&SynthParams { side_m: -1.0, ..small() }).unwrap_err().to_string().contains("side"));
        assert!(synth(&SynthParams { density: 1e9, side_m: 100.0, ..small() })
            .unwrap_err()
            .to_string()
            .contains("exceeds"));
        assert!(synth(&SynthParams { materials: vec![], ..small() }).unwrap_err().to_string().contains("materials"));
    }

    #[test]
    fn points_and_texture_become_splats() {
        let xyz: Vec<[f64; 3]> =
            (0..400).map(|i| [(i % 20) as f64 * 0.1 + 100.0, (i / 20) as f64 * 0.1, 50.0]).collect();
        let rgb = vec![[0.2, 0.3, 0.4]; 400];
        let s = from_points(&xyz, &rgb, 0.6, 0.2).unwrap();
        assert_eq!(s.len(), 400);
        let b = s.bounds().unwrap();
        assert!(b.min[0].abs() < 1.1 && b.max[2].abs() < 1e-6, "recentred");
        // Lattice spacing 0.1: σ ≈ 0.6 × 0.1.
        let sx = s.scales()[210][0];
        assert!((0.045..0.08).contains(&sx), "{sx}");
        let c = s.base_rgb(0);
        assert!((c[0] - 0.2).abs() < 1e-5 && (c[2] - 0.4).abs() < 1e-5);
        assert!(from_points(&xyz[..5], &rgb[..5], 0.6, 0.2).is_err());

        let img = vec![[0.5, 0.5, 0.5]; 16 * 8];
        let z: Vec<f64> = (0..9).map(|i| i as f64).collect();
        let t = from_texture(&img, 16, 8, Some((&z, 3, 3)), 3.0, 0.7, 0.2).unwrap();
        assert_eq!(t.len(), 128);
        let b = t.bounds().unwrap();
        assert!((b.extent()[0] - 3.0).abs() < 1e-5);
        assert!((b.max[2] - 8.0).abs() < 1e-5 && b.min[2].abs() < 1e-6);
        assert!(from_texture(&img, 16, 8, None, 0.0, 0.7, 0.2).is_err());
    }
}

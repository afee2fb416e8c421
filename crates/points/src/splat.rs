//! Point clouds as 3D Gaussian splats (Kerbl et al. 2023), so a sampled world opens in any
//! splat viewer and in the project's splat pipeline as a synthetic capture.
//!
//! # One splat per point
//!
//! * **Position**: the point, as `f32`.
//! * **Scale**: a flat disc. The point's spacing `ℓᵢ` is its mean distance to its
//!   `k_neighbours` nearest other points (k-d tree, [`bozkir_spatial::KdTree`]; ties by index).
//!   Where duplicates make it tiny, it is raised to a floor: `0.1 ×` the median spacing of the
//!   cloud (or, if that is 0, `1e-6 ×` the bounding-box diagonal, or `1e-6` for a single
//!   position). In-plane `σ = size·ℓᵢ` on the splat's local x and y axes, `flatness·σ` on its
//!   local z axis (the thin axis).
//! * **Rotation**: the unit quaternion `(w, x, y, z)` that turns local +z onto the point's
//!   unit normal `n`. For `n_z ≥ 0` it is the half-way rotation about `ẑ × n`,
//!   `normalize(1 + n_z, −n_y, n_x, 0)`; for `n_z < 0` (where `1 + n_z` would cancel) a half
//!   turn about x followed by the half-way rotation from −z to `n`, which multiplies out to
//!   `normalize(−n_y, 1 − n_z, 0, n_x)`. The in-plane orientation is irrelevant (the disc is
//!   round).
//! * **Colour**: SH degree 0 from an sRGB byte triple `c`: `f_dc = (c/255 − 0.5)/C0` with
//!   `C0 = 1/(2√π)`, the inverse of 3DGS's `colour = 0.5 + C0·f_dc` (no linearisation: 3DGS
//!   colours live in the images' sRGB space).
//! * **Opacity**: stored as its logit `ln(p/(1 − p))`, `p` clipped to `[1e-6, 1 − 1e-6]`.
//!
//! Logarithms come from `libm`, so the records are the same on every platform.
//!
//! # File
//!
//! [`checked_splat_ply`] encodes the standard 3DGS binary PLY (`binary_little_endian 1.0`, one
//! `vertex` element, all `float`): `x y z nx ny nz f_dc_0 f_dc_1 f_dc_2 opacity scale_0
//! scale_1 scale_2 rot_0 rot_1 rot_2 rot_3`, with the raw values above (`scale_*` = `ln σ`,
//! `opacity` = logit, `rot_*` = `w x y z`) and the point's normal in `nx ny nz` (3DGS files
//! usually hold zeros there; readers ignore it). It is byte for byte the file
//! `bozkir_splat::formats::ply::write_ply` writes for the same splats at SH degree 0, except
//! that the normals are kept; that reader reads it back exactly.
//!
//! # Errors
//!
//! An invalid cloud ([`PointCloud::validate`]); `k_neighbours` outside `1..=`[`MAX_NEIGHBOURS`]
//! or not below the number of points; `size`, `flatness`, `opacity` out of range; colours not
//! one per point; a position outside `f32`'s range; writing an empty set or an I/O failure
//! (the file is written to a temporary name and renamed, so a failure leaves nothing).

use crate::cloud::{bounds, PointCloud};
use crate::error::{PointsError, Result};
use bozkir_spatial::KdTree;
use rayon::prelude::*;
use std::io::Write;

/// Most neighbours the spacing may average over.
pub const MAX_NEIGHBOURS: usize = 64;

/// The degree-0 spherical-harmonic constant `Y₀₀ = 1/(2√π)`.
pub const SH_C0: f64 = 0.282_094_791_773_878_14;

/// Property names of one record, in file order.
pub const PLY_PROPERTIES: [&str; 17] = [
    "x", "y", "z", "nx", "ny", "nz", "f_dc_0", "f_dc_1", "f_dc_2", "opacity", "scale_0", "scale_1", "scale_2", "rot_0",
    "rot_1", "rot_2", "rot_3",
];

/// One Gaussian splat in raw (3DGS file) form; see the module doc.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Splat {
    /// Centre.
    pub position: [f32; 3],
    /// The source point's unit normal (written to `nx ny nz`).
    pub normal: [f32; 3],
    /// `ln σ` per local axis (x, y in the tangent plane; z along the normal).
    pub log_scale: [f32; 3],
    /// Unit quaternion `(w, x, y, z)` turning local +z onto the normal.
    pub rotation: [f32; 4],
    /// SH degree-0 colour coefficients (RGB).
    pub sh_dc: [f32; 3],
    /// `logit(opacity)`.
    pub opacity_logit: f32,
}

impl Splat {
    /// Linear standard deviations `exp(log_scale)`.
    pub fn scale(&self) -> [f64; 3] {
        self.log_scale.map(|v| libm::exp(f64::from(v)))
    }

    /// Opacity `sigmoid(opacity_logit)` in `[0, 1]`.
    pub fn opacity(&self) -> f64 {
        1.0 / (1.0 + libm::exp(-f64::from(self.opacity_logit)))
    }
}

/// How splats look: size and thickness relative to the spacing, opacity, colour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SplatStyle {
    /// In-plane σ as a multiple of the local spacing (finite, > 0; default 1).
    pub size: f64,
    /// Thin-axis σ as a fraction of the in-plane σ (in `(0, 1]`; default 0.1).
    pub flatness: f64,
    /// Opacity (in `(0, 1]`; default 0.95).
    pub opacity: f64,
    /// sRGB colour of every splat when no per-point colours are given (default light grey).
    pub colour: [u8; 3],
}

impl Default for SplatStyle {
    fn default() -> Self {
        SplatStyle { size: 1.0, flatness: 0.1, opacity: 0.95, colour: [200, 200, 200] }
    }
}

/// SH degree-0 coefficients of an sRGB colour (see the module doc).
pub fn srgb_to_sh_dc(c: [u8; 3]) -> [f32; 3] {
    c.map(|v| ((f64::from(v) / 255.0 - 0.5) / SH_C0) as f32)
}

/// The unit quaternion `(w, x, y, z)` turning +z onto the direction of `n` (see the module doc);
/// the identity for a zero or non-finite `n`.
pub fn normal_to_rotation(n: [f32; 3]) -> [f32; 4] {
    let n = n.map(f64::from);
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    if !(len > 0.0 && len.is_finite()) {
        return [1.0, 0.0, 0.0, 0.0];
    }
    let n = n.map(|v| v / len);
    let q = if n[2] >= 0.0 { [1.0 + n[2], -n[1], n[0], 0.0] } else { [-n[1], 1.0 - n[2], 0.0, n[0]] };
    let l = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    q.map(|v| (v / l) as f32)
}

fn logit(p: f64) -> f32 {
    let p = p.clamp(1e-6, 1.0 - 1e-6);
    libm::log(p / (1.0 - p)) as f32
}

/// One splat per point of `cloud`, all of `style.colour` (see the module doc).
pub fn splats_from_cloud(cloud: &PointCloud, k_neighbours: usize, style: &SplatStyle) -> Result<Vec<Splat>> {
    splats_impl("splats_from_cloud", cloud, None, k_neighbours, style)
}

/// One splat per point of `cloud`, point `i` coloured `colours[i]` (sRGB); see the module doc.
pub fn splats_from_cloud_coloured(
    cloud: &PointCloud,
    colours: &[[u8; 3]],
    k_neighbours: usize,
    style: &SplatStyle,
) -> Result<Vec<Splat>> {
    splats_impl("splats_from_cloud_coloured", cloud, Some(colours), k_neighbours, style)
}

fn splats_impl(
    what: &'static str,
    cloud: &PointCloud,
    colours: Option<&[[u8; 3]]>,
    k: usize,
    style: &SplatStyle,
) -> Result<Vec<Splat>> {
    cloud.validate()?;
    let n = cloud.len();
    if n == 0 {
        return Err(PointsError::Empty { what, detail: "no points" });
    }
    if k == 0 || k > MAX_NEIGHBOURS || k >= n {
        return Err(PointsError::param(
            what,
            "k_neighbours",
            k as f64,
            format!("1..={} and below the {n} points", MAX_NEIGHBOURS),
        ));
    }
    if !(style.size.is_finite() && style.size > 0.0) {
        return Err(PointsError::param(what, "size", style.size, "finite and > 0"));
    }
    if !(style.flatness > 0.0 && style.flatness <= 1.0) {
        return Err(PointsError::param(what, "flatness", style.flatness, "in (0, 1]"));
    }
    if !(style.opacity > 0.0 && style.opacity <= 1.0) {
        return Err(PointsError::param(what, "opacity", style.opacity, "in (0, 1]"));
    }
    if let Some(c) = colours {
        if c.len() != n {
            return Err(PointsError::Shape { what, detail: format!("{} colours for {n} points", c.len()) });
        }
    }
    for (i, p) in cloud.positions.iter().enumerate() {
        if let Some(&v) = p.iter().find(|v| v.abs() > f64::from(f32::MAX)) {
            return Err(PointsError::param(what, "position", v, format!("point {i} must fit in f32")));
        }
    }
    let tree =
        KdTree::<f64, 3>::try_new(&cloud.positions).map_err(|e| PointsError::Shape { what, detail: e.to_string() })?;
    let spacing: Vec<f64> = (0..n)
        .into_par_iter()
        .map(|i| {
            let nb = tree.knn(cloud.positions[i], k, i);
            nb.iter().map(|&(_, d)| d).sum::<f64>() / nb.len() as f64
        })
        .collect();
    let mut sorted = spacing.clone();
    sorted.sort_by(f64::total_cmp);
    let mut floor = 0.1 * sorted[n / 2];
    if floor == 0.0 {
        let (lo, hi) = bounds(&cloud.positions);
        let diag = (0..3).map(|a| (hi[a] - lo[a]).powi(2)).sum::<f64>().sqrt();
        floor = if diag > 0.0 { 1e-6 * diag } else { 1e-6 };
    }
    let opacity_logit = logit(style.opacity);
    let uniform = srgb_to_sh_dc(style.colour);
    Ok((0..n)
        .map(|i| {
            let sigma = style.size * spacing[i].max(floor);
            let (ls, lz) = (libm::log(sigma) as f32, libm::log(style.flatness * sigma) as f32);
            Splat {
                position: cloud.positions[i].map(|v| v as f32),
                normal: cloud.normals[i],
                log_scale: [ls, ls, lz],
                rotation: normal_to_rotation(cloud.normals[i]),
                sh_dc: colours.map_or(uniform, |c| srgb_to_sh_dc(c[i])),
                opacity_logit,
            }
        })
        .collect())
}

/// The PLY header of [`write_splat_ply_to`] for `n` splats.
pub fn splat_ply_header(n: usize) -> String {
    let mut h = format!("ply\nformat binary_little_endian 1.0\nelement vertex {n}\n");
    for p in PLY_PROPERTIES {
        h.push_str("property float ");
        h.push_str(p);
        h.push('\n');
    }
    h.push_str("end_header\n");
    h
}

/// Writes `splats` as a 3DGS binary PLY (see the module doc) to `w`.
pub fn write_splat_ply_to(w: &mut impl Write, splats: &[Splat]) -> std::io::Result<()> {
    w.write_all(splat_ply_header(splats.len()).as_bytes())?;
    let mut buf: Vec<u8> = Vec::with_capacity(68 * 4096);
    for s in splats {
        let rec = [
            s.position[0],
            s.position[1],
            s.position[2],
            s.normal[0],
            s.normal[1],
            s.normal[2],
            s.sh_dc[0],
            s.sh_dc[1],
            s.sh_dc[2],
            s.opacity_logit,
            s.log_scale[0],
            s.log_scale[1],
            s.log_scale[2],
            s.rotation[0],
            s.rotation[1],
            s.rotation[2],
            s.rotation[3],
        ];
        rec.iter().for_each(|v| buf.extend_from_slice(&v.to_le_bytes()));
        if buf.len() >= 68 * 4096 {
            w.write_all(&buf)?;
            buf.clear();
        }
    }
    w.write_all(&buf)
}

/// The bytes of `splats` as a 3DGS binary PLY.
pub fn encode_splat_ply(splats: &[Splat]) -> Vec<u8> {
    let mut out = Vec::with_capacity(splat_ply_header(splats.len()).len() + 68 * splats.len());
    write_splat_ply_to(&mut out, splats).expect("writing to memory cannot fail");
    out
}

/// The bytes of `splats` as a 3DGS binary PLY, after checking them: refuses an empty set and
/// non-finite values (naming the splat). Writing the bytes to a file is the io layer's job.
pub fn checked_splat_ply(splats: &[Splat]) -> Result<Vec<u8>> {
    const WHAT: &str = "checked_splat_ply";
    if splats.is_empty() {
        return Err(PointsError::Empty { what: WHAT, detail: "no splats to write" });
    }
    for (i, s) in splats.iter().enumerate() {
        let vals = s.position.iter().chain(&s.log_scale).chain(&s.rotation).chain(&s.sh_dc).chain([&s.opacity_logit]);
        if let Some(&v) = vals.into_iter().find(|v| !v.is_finite()) {
            return Err(PointsError::NonFinite { what: WHAT, item: "splat", index: i, value: f64::from(v) });
        }
    }
    Ok(encode_splat_ply(splats))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heightfield_points;

    fn rot_z(q: [f32; 4]) -> [f64; 3] {
        // Third column of the rotation matrix of (w, x, y, z): the image of +z.
        let [w, x, y, z] = q.map(f64::from);
        [2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y)]
    }

    #[test]
    fn rotation_turns_z_onto_the_normal() {
        let mut r = bozkir_core::rng::Rng::new(3);
        let mut normals: Vec<[f32; 3]> = vec![[0.0, 0.0, 1.0], [0.0, 0.0, -1.0], [1.0, 0.0, 0.0], [0.0, -1.0, 0.0]];
        for _ in 0..200 {
            let (a, b) = r.normal_pair();
            let c = r.standard_normal();
            let l = (a * a + b * b + c * c).sqrt();
            normals.push([(a / l) as f32, (b / l) as f32, (c / l) as f32]);
        }
        normals.extend([[1e-4, 0.0, -1.0], [1e-7, -1e-7, -1.0], [1e-4, 2e-4, 1.0], [0.6, 0.0, -0.8], [0.0, 0.6, 0.8]]);
        for n in normals {
            let q = normal_to_rotation(n);
            let len: f64 = q.iter().map(|&v| f64::from(v).powi(2)).sum::<f64>().sqrt();
            assert!((len - 1.0).abs() < 1e-6, "{q:?}");
            let z = rot_z(q);
            let err = (0..3).map(|a| (z[a] - f64::from(n[a])).abs()).fold(0.0, f64::max);
            assert!(err < 1e-5, "normal {n:?} → {z:?}");
        }
    }

    #[test]
    fn colour_and_opacity_decode() {
        let dc = srgb_to_sh_dc([255, 0, 128]);
        let back = dc.map(|v| 0.5 + SH_C0 * f64::from(v));
        assert!((back[0] - 1.0).abs() < 1e-6 && back[1].abs() < 1e-6 && (back[2] - 128.0 / 255.0).abs() < 1e-6);
        let cloud = PointCloud {
            positions: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            normals: vec![[0.0, 0.0, 1.0]; 3],
            triangle: vec![],
        };
        let s = splats_from_cloud(&cloud, 1, &SplatStyle { opacity: 0.5, ..SplatStyle::default() }).unwrap();
        assert_eq!(s[0].opacity_logit, 0.0);
        assert!((s[1].opacity() - 0.5).abs() < 1e-12);
        // Point 0's nearest neighbour is at distance 1: σ = 1, thin σ = 0.1.
        let sc = s[0].scale();
        assert!((sc[0] - 1.0).abs() < 1e-6 && (sc[2] - 0.1).abs() < 1e-6, "{sc:?}");
    }

    #[test]
    fn scale_follows_the_spacing_and_thin_axis_the_normal() {
        // A flat grid with spacing 0.5 and a denser one with spacing 0.1, normals +y.
        let mut pos = Vec::new();
        for i in 0..20 {
            for j in 0..20 {
                pos.push([i as f64 * 0.5, 0.0, j as f64 * 0.5]);
                pos.push([100.0 + i as f64 * 0.1, 0.0, j as f64 * 0.1]);
            }
        }
        let n = pos.len();
        let cloud = PointCloud { positions: pos, normals: vec![[0.0, 1.0, 0.0]; n], triangle: vec![] };
        let s = splats_from_cloud(&cloud, 4, &SplatStyle::default()).unwrap();
        // An interior point of each grid: its 4 nearest are at exactly the spacing.
        let i_coarse = 2 * (10 * 20 + 10);
        let (a, b) = (s[i_coarse].scale(), s[i_coarse + 1].scale());
        assert!((a[0] - 0.5).abs() < 1e-6 && (b[0] - 0.1).abs() < 1e-6, "{a:?} {b:?}");
        assert!((a[2] - 0.05).abs() < 1e-7);
        let z = rot_z(s[i_coarse].rotation);
        assert!((z[1] - 1.0).abs() < 1e-6, "thin axis {z:?}");
    }

    #[test]
    fn duplicates_get_the_floor() {
        let mut pos = vec![[0.0, 0.0, 0.0]; 3];
        pos.extend((0..50).map(|i| [i as f64, 0.0, 0.0]));
        let n = pos.len();
        let cloud = PointCloud { positions: pos, normals: vec![[0.0, 0.0, 1.0]; n], triangle: vec![] };
        let s = splats_from_cloud(&cloud, 2, &SplatStyle::default()).unwrap();
        // Points 0..3 are triplicates: their mean distance to 2 neighbours is 0 → floor 0.1 ×
        // median spacing (1.0) = 0.1.
        assert!((s[0].scale()[0] - 0.1).abs() < 1e-6, "{:?}", s[0].scale());
        assert!(s.iter().all(|x| x.log_scale.iter().all(|v| v.is_finite())));
        let same = PointCloud { positions: vec![[3.0; 3]; 4], normals: vec![[0.0, 0.0, 1.0]; 4], triangle: vec![] };
        let s = splats_from_cloud(&same, 3, &SplatStyle::default()).unwrap();
        assert!((s[0].scale()[0] / 1e-6 - 1.0).abs() < 1e-5, "{:?}", s[0].scale());
    }

    #[test]
    fn writer_layout_and_atomic_file() {
        let h = vec![0.0, 1.0, 0.5, 2.0, 0.0, 1.0, 1.5, 0.5, 0.0];
        let cloud = heightfield_points(&h, 3, 3, 1.0, 1.0, 200, 3).unwrap();
        let s = splats_from_cloud(&cloud, 6, &SplatStyle::default()).unwrap();
        let bytes = encode_splat_ply(&s);
        let header = splat_ply_header(200);
        assert!(bytes.starts_with(header.as_bytes()));
        assert_eq!(bytes.len(), header.len() + 200 * 17 * 4);
        let rec = &bytes[header.len() + 17 * 4 * 7..][..68];
        let f = |j: usize| f32::from_le_bytes(rec[4 * j..4 * j + 4].try_into().unwrap());
        assert_eq!([f(0), f(1), f(2)], s[7].position);
        assert_eq!([f(3), f(4), f(5)], s[7].normal);
        assert_eq!(f(9), s[7].opacity_logit);
        assert_eq!([f(13), f(14), f(15), f(16)], s[7].rotation);

        assert_eq!(checked_splat_ply(&s).unwrap(), bytes);
        let e = checked_splat_ply(&[]).unwrap_err().to_string();
        assert!(e.contains("no splats"), "{e}");
        let mut bad = s.clone();
        bad[3].log_scale[1] = f32::NAN;
        let e = checked_splat_ply(&bad).unwrap_err().to_string();
        assert!(e.contains("splat 3 is not finite (NaN)"), "{e}");
    }

    #[test]
    fn bad_input_is_refused_with_the_value() {
        let cloud = PointCloud {
            positions: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            normals: vec![[0.0, 0.0, 1.0]; 3],
            triangle: vec![],
        };
        let st = SplatStyle::default();
        let err = |r: Result<Vec<Splat>>| r.unwrap_err().to_string();
        assert!(err(splats_from_cloud(&cloud, 0, &st)).contains("k_neighbours = 0"));
        assert!(err(splats_from_cloud(&cloud, 3, &st)).contains("k_neighbours = 3"));
        assert!(err(splats_from_cloud(&cloud, 1, &SplatStyle { size: -1.0, ..st })).contains("size = -1"));
        assert!(err(splats_from_cloud(&cloud, 1, &SplatStyle { flatness: 2.0, ..st })).contains("flatness = 2"));
        assert!(err(splats_from_cloud(&cloud, 1, &SplatStyle { opacity: 0.0, ..st })).contains("opacity = 0"));
        assert!(err(splats_from_cloud_coloured(&cloud, &[[0; 3]; 2], 1, &st)).contains("2 colours for 3 points"));
        assert!(err(splats_from_cloud(&PointCloud::default(), 1, &st)).contains("no points"));
        let mut far = cloud.clone();
        far.positions[1][0] = 1e39;
        assert!(err(splats_from_cloud(&far, 1, &st)).contains("point 1 must fit in f32"));
    }
}

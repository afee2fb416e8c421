//! The splat model: a struct of arrays of 3D Gaussians (Kerbl et al. 2023).
//!
//! # Storage
//!
//! Every attribute is kept twice where training uses an activation:
//!
//! * **raw** — the values exactly as 3DGS PLY stores them: natural-log scale `ln σ`, opacity
//!   logit, rotation quaternion `(w, x, y, z)` *not* normalised. Writers of PLY use these, so
//!   load → save is bit-for-bit exact.
//! * **decoded** — what algorithms want: linear scale `σ = exp(ln σ)` (standard deviation along
//!   the splat's local axes, scene units), opacity `sigmoid(logit)` in `[0, 1]`, unit rotation
//!   `q / |q|` (a zero quaternion decodes to the identity, as in the original's loader).
//!
//! The two are kept in step by every method; fields are private so they cannot drift apart.
//! `exp` and the sigmoid come from `libm`, so decoded values are the same on every platform.
//!
//! Colour is spherical harmonics: `sh_dc` (degree 0, RGB) and, for degree `d ≥ 1`, the
//! `(d+1)² − 1` higher coefficients stored as **planes**: `sh_rest()[k]` holds the RGB triple of
//! coefficient `k + 1` (3DGS order, see [`crate::sh`]) for every splat. Truncating the degree
//! therefore drops whole planes without touching the others.

use crate::quat::{self, Quat};
use crate::sh::{self, ShRotation, SH_C0};

/// Largest SH degree the model holds.
pub const MAX_SH_DEGREE: u8 = 3;

/// Axis-aligned bounds of the splat centres.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Bounds {
    pub min: [f32; 3],
    pub max: [f32; 3],
}

impl Bounds {
    /// `max − min` per axis.
    pub fn extent(&self) -> [f32; 3] {
        [self.max[0] - self.min[0], self.max[1] - self.min[1], self.max[2] - self.min[2]]
    }
}

/// A rigid transform: rotate by the unit quaternion `rotation` (w, x, y, z; normalised on use),
/// then translate by `translation`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rigid {
    pub rotation: Quat,
    pub translation: [f64; 3],
}

impl Rigid {
    /// A pure rotation.
    pub fn rotation(q: Quat) -> Rigid {
        Rigid { rotation: q, translation: [0.0; 3] }
    }
    /// A pure translation.
    pub fn translation(t: [f64; 3]) -> Rigid {
        Rigid { rotation: quat::IDENTITY, translation: t }
    }
}

/// One splat in raw (on-disk) form, as handed to [`Splats::push_raw`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RawSplat<'a> {
    pub position: [f32; 3],
    /// `ln σ` per local axis.
    pub log_scale: [f32; 3],
    /// `(w, x, y, z)`, any length.
    pub rotation: [f32; 4],
    /// `logit(opacity)`.
    pub opacity_logit: f32,
    pub sh_dc: [f32; 3],
    /// Higher coefficients `1 ..= (d+1)² − 1`, RGB each; its length must match the model's degree.
    pub sh_rest: &'a [[f32; 3]],
}

/// A set of Gaussian splats, struct of arrays. See the module documentation for the storage.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Splats {
    positions: Vec<[f32; 3]>,
    log_scales: Vec<[f32; 3]>,
    scales: Vec<[f32; 3]>,
    rotations_raw: Vec<[f32; 4]>,
    rotations: Vec<[f32; 4]>,
    opacity_logits: Vec<f32>,
    opacities: Vec<f32>,
    sh_dc: Vec<[f32; 3]>,
    sh_rest: Vec<Vec<[f32; 3]>>,
}

/// `1 / (1 + e^−x)`, in f64 with `libm`.
pub fn sigmoid(x: f32) -> f32 {
    (1.0 / (1.0 + libm::exp(-f64::from(x)))) as f32
}

/// `ln(p / (1 − p))` with `p` clipped to `[1e-6, 1 − 1e-6]` (the original's `save_ply`).
pub fn logit(p: f32) -> f32 {
    let p = f64::from(p).clamp(1e-6, 1.0 - 1e-6);
    libm::log(p / (1.0 - p)) as f32
}

/// `ln(max(s, 1e-20))` (the original's `save_ply`).
pub fn log_scale(s: f32) -> f32 {
    libm::log(f64::from(s).max(1e-20)) as f32
}

fn decode_scale(l: [f32; 3]) -> [f32; 3] {
    l.map(|v| libm::exp(f64::from(v)) as f32)
}

fn decode_rotation(q: [f32; 4]) -> [f32; 4] {
    quat::normalize(q.map(f64::from)).map(|v| v as f32)
}

impl Splats {
    /// An empty set of SH degree `sh_degree` (clamped to [`MAX_SH_DEGREE`]).
    pub fn new(sh_degree: u8) -> Splats {
        Splats::with_capacity(0, sh_degree)
    }

    /// An empty set with room for `n` splats.
    pub fn with_capacity(n: usize, sh_degree: u8) -> Splats {
        let k = sh::rest_count(sh_degree.min(MAX_SH_DEGREE));
        Splats {
            positions: Vec::with_capacity(n),
            log_scales: Vec::with_capacity(n),
            scales: Vec::with_capacity(n),
            rotations_raw: Vec::with_capacity(n),
            rotations: Vec::with_capacity(n),
            opacity_logits: Vec::with_capacity(n),
            opacities: Vec::with_capacity(n),
            sh_dc: Vec::with_capacity(n),
            sh_rest: (0..k).map(|_| Vec::with_capacity(n)).collect(),
        }
    }

    /// Append one splat given in raw (on-disk) form; decoded values are computed here.
    ///
    /// # Panics
    /// If `s.sh_rest.len()` is not `(d+1)² − 1` for this set's degree `d`.
    pub fn push_raw(&mut self, s: RawSplat<'_>) {
        assert_eq!(s.sh_rest.len(), self.sh_rest.len(), "push_raw: SH coefficient count does not match the degree");
        self.positions.push(s.position);
        self.log_scales.push(s.log_scale);
        self.scales.push(decode_scale(s.log_scale));
        self.rotations_raw.push(s.rotation);
        self.rotations.push(decode_rotation(s.rotation));
        self.opacity_logits.push(s.opacity_logit);
        self.opacities.push(sigmoid(s.opacity_logit));
        self.sh_dc.push(s.sh_dc);
        for (plane, c) in self.sh_rest.iter_mut().zip(s.sh_rest) {
            plane.push(*c);
        }
    }

    /// Append one splat given in decoded form: linear `scale` σ, any-length `rotation`
    /// (stored raw as given), `opacity` in `[0, 1]`. Raw values are `ln(max(σ, 1e-20))` and
    /// `logit(clip(opacity, 1e-6, 1 − 1e-6))`.
    pub fn push_decoded(
        &mut self,
        position: [f32; 3],
        scale: [f32; 3],
        rotation: [f32; 4],
        opacity: f32,
        sh_dc: [f32; 3],
        sh_rest: &[[f32; 3]],
    ) {
        self.push_raw(RawSplat {
            position,
            log_scale: scale.map(log_scale),
            rotation,
            opacity_logit: logit(opacity),
            sh_dc,
            sh_rest,
        });
    }

    /// Number of splats.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// No splats.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// SH degree `d` (0–3): `sh_rest().len() == (d+1)² − 1`.
    pub fn sh_degree(&self) -> u8 {
        match self.sh_rest.len() {
            0 => 0,
            3 => 1,
            8 => 2,
            _ => 3,
        }
    }

    /// Splat centres.
    pub fn positions(&self) -> &[[f32; 3]] {
        &self.positions
    }
    /// `ln σ` as stored.
    pub fn log_scales(&self) -> &[[f32; 3]] {
        &self.log_scales
    }
    /// Linear σ (standard deviations along the local axes).
    pub fn scales(&self) -> &[[f32; 3]] {
        &self.scales
    }
    /// Rotations `(w, x, y, z)` as stored (not normalised).
    pub fn rotations_raw(&self) -> &[[f32; 4]] {
        &self.rotations_raw
    }
    /// Unit rotations `(w, x, y, z)`.
    pub fn rotations(&self) -> &[[f32; 4]] {
        &self.rotations
    }
    /// Opacity logits as stored.
    pub fn opacity_logits(&self) -> &[f32] {
        &self.opacity_logits
    }
    /// Opacity in `[0, 1]`.
    pub fn opacities(&self) -> &[f32] {
        &self.opacities
    }
    /// Degree-0 SH coefficients (RGB).
    pub fn sh_dc(&self) -> &[[f32; 3]] {
        &self.sh_dc
    }
    /// Higher SH coefficients as planes: `sh_rest()[k][i]` is coefficient `k + 1` of splat `i`.
    pub fn sh_rest(&self) -> &[Vec<[f32; 3]>] {
        &self.sh_rest
    }

    /// The higher SH coefficients of splat `i`, in coefficient order.
    pub fn sh_rest_of(&self, i: usize) -> Vec<[f32; 3]> {
        self.sh_rest.iter().map(|p| p[i]).collect()
    }

    /// View-independent base colour `clip(0.5 + C0·dc, 0, 1)`.
    pub fn base_rgb(&self, i: usize) -> [f32; 3] {
        self.sh_dc[i].map(|c| (0.5 + SH_C0 * f64::from(c)).clamp(0.0, 1.0) as f32)
    }

    /// Colour of splat `i` seen along the unit direction `dir` (camera → splat), all bands
    /// present, clipped to `[0, 1]`.
    pub fn rgb(&self, i: usize, dir: [f64; 3]) -> [f32; 3] {
        let y = sh::basis(dir);
        let mut out = [0.0f64; 3];
        for (c, o) in out.iter_mut().enumerate() {
            *o = 0.5 + SH_C0 * f64::from(self.sh_dc[i][c]);
            for (k, plane) in self.sh_rest.iter().enumerate() {
                *o += y[k] * f64::from(plane[i][c]);
            }
        }
        out.map(|v| v.clamp(0.0, 1.0) as f32)
    }

    /// Bounds of the centres, or `None` when empty. NaN coordinates are ignored.
    pub fn bounds(&self) -> Option<Bounds> {
        if self.is_empty() {
            return None;
        }
        let mut b = Bounds { min: [f32::INFINITY; 3], max: [f32::NEG_INFINITY; 3] };
        for p in &self.positions {
            for ((lo, hi), v) in b.min.iter_mut().zip(b.max.iter_mut()).zip(p) {
                *lo = lo.min(*v);
                *hi = hi.max(*v);
            }
        }
        Some(b)
    }

    /// Drop SH coefficients above `degree`. Never raises the degree (a larger `degree` is a
    /// no-op, as in the original's `truncate_sh`).
    pub fn truncate_sh(&mut self, degree: u8) {
        let k = sh::rest_count(degree.min(MAX_SH_DEGREE));
        self.sh_rest.truncate(k);
    }

    /// The splats at `indices`, in that order (repeats allowed); every attribute is carried.
    ///
    /// # Panics
    /// If an index is out of range.
    pub fn subset(&self, indices: &[usize]) -> Splats {
        fn pick<T: Copy>(v: &[T], idx: &[usize]) -> Vec<T> {
            idx.iter().map(|&i| v[i]).collect()
        }
        Splats {
            positions: pick(&self.positions, indices),
            log_scales: pick(&self.log_scales, indices),
            scales: pick(&self.scales, indices),
            rotations_raw: pick(&self.rotations_raw, indices),
            rotations: pick(&self.rotations, indices),
            opacity_logits: pick(&self.opacity_logits, indices),
            opacities: pick(&self.opacities, indices),
            sh_dc: pick(&self.sh_dc, indices),
            sh_rest: self.sh_rest.iter().map(|p| pick(p, indices)).collect(),
        }
    }

    /// The splats where `mask` is true.
    ///
    /// # Panics
    /// If `mask.len() != self.len()`.
    pub fn subset_mask(&self, mask: &[bool]) -> Splats {
        assert_eq!(mask.len(), self.len(), "subset_mask: mask length");
        let idx: Vec<usize> = mask.iter().enumerate().filter(|(_, &m)| m).map(|(i, _)| i).collect();
        self.subset(&idx)
    }

    /// Apply a rigid transform: centres `p' = R p + t`; orientations `q' = q_R ⊗ q` (both the
    /// raw and the unit quaternion; `q_R` is unit, so the raw length is kept); scales and
    /// opacity unchanged; SH degree 0 unchanged (it is rotation-invariant); **higher SH bands
    /// are rotated exactly** ([`ShRotation`]), so the colour seen along `R d` afterwards equals
    /// the colour seen along `d` before.
    pub fn transform(&mut self, t: &Rigid) {
        let q = quat::normalize(t.rotation);
        let r = quat::to_matrix(q);
        for p in &mut self.positions {
            let v = quat::mat_vec(&r, p.map(f64::from));
            *p = [(v[0] + t.translation[0]) as f32, (v[1] + t.translation[1]) as f32, (v[2] + t.translation[2]) as f32];
        }
        for (raw, unit) in self.rotations_raw.iter_mut().zip(&mut self.rotations) {
            *raw = quat::mul(q, raw.map(f64::from)).map(|v| v as f32);
            *unit = quat::mul(q, unit.map(f64::from)).map(|v| v as f32);
        }
        if !self.sh_rest.is_empty() && q != quat::IDENTITY {
            let rot = ShRotation::new(&r);
            let mut buf = vec![[0.0f32; 3]; self.sh_rest.len()];
            for i in 0..self.len() {
                for (b, plane) in buf.iter_mut().zip(&self.sh_rest) {
                    *b = plane[i];
                }
                rot.apply(&mut buf);
                for (b, plane) in buf.iter().zip(&mut self.sh_rest) {
                    plane[i] = *b;
                }
            }
        }
    }

    /// Covariance `Σ = R S Sᵀ Rᵀ` of splat `i` (row-major, f64).
    pub fn covariance(&self, i: usize) -> [[f64; 3]; 3] {
        let r = quat::to_matrix(self.rotations[i].map(f64::from));
        let s = self.scales[i].map(f64::from);
        let mut c = [[0.0; 3]; 3];
        for (a, row) in c.iter_mut().enumerate() {
            for (b, v) in row.iter_mut().enumerate() {
                *v = (0..3).map(|k| r[a][k] * s[k] * s[k] * r[b][k]).sum();
            }
        }
        c
    }

    /// Append all splats of `other`; the result has the lower of the two SH degrees.
    pub fn append(&mut self, other: &Splats) {
        let k = self.sh_rest.len().min(other.sh_rest.len());
        self.sh_rest.truncate(k);
        self.positions.extend_from_slice(&other.positions);
        self.log_scales.extend_from_slice(&other.log_scales);
        self.scales.extend_from_slice(&other.scales);
        self.rotations_raw.extend_from_slice(&other.rotations_raw);
        self.rotations.extend_from_slice(&other.rotations);
        self.opacity_logits.extend_from_slice(&other.opacity_logits);
        self.opacities.extend_from_slice(&other.opacities);
        self.sh_dc.extend_from_slice(&other.sh_dc);
        for (a, b) in self.sh_rest.iter_mut().zip(&other.sh_rest) {
            a.extend_from_slice(b);
        }
    }
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)]
mod tests {
    use super::*;

    fn sample(n: usize, degree: u8) -> Splats {
        let k = sh::rest_count(degree);
        let mut s = Splats::with_capacity(n, degree);
        for i in 0..n {
            let f = i as f32;
            let rest: Vec<[f32; 3]> = (0..k).map(|j| [0.01 * (f + j as f32), -0.02 * j as f32, 0.005 * f]).collect();
            s.push_raw(RawSplat {
                position: [f, 2.0 * f - 1.0, -0.5 * f],
                log_scale: [-3.0 + 0.1 * f, -4.0, -2.5],
                rotation: [1.0 + f, 0.2, -0.3 * f, 0.1],
                opacity_logit: f - 2.0,
                sh_dc: [0.1 * f, -0.3, 0.7],
                sh_rest: &rest,
            });
        }
        s
    }

    #[test]
    fn decoding_applies_the_activations() {
        let s = sample(3, 0);
        assert!((s.opacities()[2] - 0.5).abs() < 1e-7);
        assert!((s.scales()[0][1] - (-4.0f32).exp()).abs() < 1e-9);
        let q = s.rotations()[1];
        assert!(((q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) - 1.0).abs() < 1e-6);
        assert_eq!(s.rotations_raw()[1], [2.0, 0.2, -0.3, 0.1]);
        assert_eq!(s.bounds().unwrap(), Bounds { min: [0.0, -1.0, -1.0], max: [2.0, 3.0, 0.0] });
    }

    #[test]
    fn covariance_eigenvalues_are_squared_scales() {
        let s = sample(4, 0);
        let c = s.covariance(3);
        let sc = s.scales()[3].map(f64::from);
        let trace = c[0][0] + c[1][1] + c[2][2];
        assert!((trace - sc.iter().map(|v| v * v).sum::<f64>()).abs() < 1e-9);
        for a in 0..3 {
            for b in 0..3 {
                assert!((c[a][b] - c[b][a]).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn truncate_sh_keeps_lower_bands_and_never_raises() {
        let mut s = sample(5, 3);
        assert_eq!(s.sh_degree(), 3);
        let band1: Vec<_> = s.sh_rest()[..3].to_vec();
        s.truncate_sh(1);
        assert_eq!(s.sh_degree(), 1);
        assert_eq!(s.sh_rest(), &band1[..]);
        s.truncate_sh(3);
        assert_eq!(s.sh_degree(), 1);
        s.truncate_sh(0);
        assert!(s.sh_rest().is_empty());
    }

    #[test]
    fn subset_carries_every_attribute() {
        let s = sample(6, 2);
        let t = s.subset(&[4, 1, 4]);
        assert_eq!(t.len(), 3);
        for (j, &i) in [4usize, 1, 4].iter().enumerate() {
            assert_eq!(t.positions()[j], s.positions()[i]);
            assert_eq!(t.log_scales()[j], s.log_scales()[i]);
            assert_eq!(t.scales()[j], s.scales()[i]);
            assert_eq!(t.rotations_raw()[j], s.rotations_raw()[i]);
            assert_eq!(t.rotations()[j], s.rotations()[i]);
            assert_eq!(t.opacity_logits()[j], s.opacity_logits()[i]);
            assert_eq!(t.opacities()[j], s.opacities()[i]);
            assert_eq!(t.sh_dc()[j], s.sh_dc()[i]);
            assert_eq!(t.sh_rest_of(j), s.sh_rest_of(i));
        }
        let m = s.subset_mask(&[false, true, false, false, true, false]);
        assert_eq!(m.positions(), &[s.positions()[1], s.positions()[4]]);
    }

    #[test]
    fn transform_rotates_shape_and_view_dependent_colour() {
        let s = sample(5, 3);
        let q = quat::from_axis_angle([1.0, 2.0, -0.5], 0.9);
        let rig = Rigid { rotation: q, translation: [10.0, -3.0, 0.5] };
        let mut t = s.clone();
        t.transform(&rig);
        let r = quat::to_matrix(q);
        for i in 0..s.len() {
            // Centre.
            let p = quat::mat_vec(&r, s.positions()[i].map(f64::from));
            for a in 0..3 {
                assert!((f64::from(t.positions()[i][a]) - (p[a] + rig.translation[a])).abs() < 1e-5);
            }
            // Shape: Σ' = R Σ Rᵀ, scales unchanged.
            assert_eq!(t.scales()[i], s.scales()[i]);
            let (c, c2) = (s.covariance(i), t.covariance(i));
            for a in 0..3 {
                for b in 0..3 {
                    let want: f64 = (0..3)
                        .flat_map(|k| (0..3).map(move |l| (k, l)))
                        .map(|(k, l)| r[a][k] * c[k][l] * r[b][l])
                        .sum();
                    assert!((c2[a][b] - want).abs() < 1e-6 * (1.0 + want.abs()), "{a}{b}: {} vs {want}", c2[a][b]);
                }
            }
            // Forgetting the orientation would be detectably wrong.
            assert!((s.covariance(i)[0][1] - c2[0][1]).abs() > 1e-9 || (c[0][0] - c2[0][0]).abs() > 1e-9);
            // Colour seen along R d equals colour seen along d before.
            let d = [0.6, -0.48, 0.64];
            let rd = quat::mat_vec(&r, d);
            let (a, b) = (s.rgb(i, d), t.rgb(i, rd));
            for ch in 0..3 {
                assert!((a[ch] - b[ch]).abs() < 1e-5, "colour {a:?} vs {b:?}");
            }
            // Raw quaternion keeps its length.
            let len = |q: [f32; 4]| q.iter().map(|v| v * v).sum::<f32>().sqrt();
            assert!((len(t.rotations_raw()[i]) - len(s.rotations_raw()[i])).abs() < 1e-5);
        }
    }

    #[test]
    fn push_decoded_inverts_the_activations() {
        let mut s = Splats::new(0);
        s.push_decoded([0.0; 3], [0.01, 0.02, 0.5], [1.0, 0.0, 0.0, 0.0], 0.25, [0.0; 3], &[]);
        assert!((s.opacities()[0] - 0.25).abs() < 1e-6);
        assert!((s.scales()[0][2] - 0.5).abs() < 1e-6);
        s.push_decoded([0.0; 3], [0.0; 3], [0.0; 4], 1.0, [0.0; 3], &[]);
        assert!(s.log_scales()[1][0].is_finite() && s.opacity_logits()[1].is_finite());
        assert_eq!(s.rotations()[1], [1.0, 0.0, 0.0, 0.0]);
    }
}

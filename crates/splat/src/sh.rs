//! Real spherical harmonics as 3D Gaussian Splatting uses them (Kerbl et al. 2023, the
//! `eval_sh` of the reference implementation; constants as in inventory §1.1), and their
//! rotation.
//!
//! Coefficient `k` (1-based after the DC term) follows the 3DGS order: band 1 is `k = 1..3`
//! (`m = −1, 0, 1`), band 2 `k = 4..8`, band 3 `k = 9..15`. The colour of a splat seen along
//! the unit direction `d` (from the camera to the splat) is
//! `0.5 + C0·dc + Σₖ Yₖ(d)·restₖ`, clipped to `[0, 1]`.

use crate::quat::{mat_vec, transpose, Mat3};

/// The degree-0 constant `Y₀₀ = 1 / (2√π)`.
pub const SH_C0: f64 = 0.282_094_791_773_878_14;
const C1: f64 = 0.488_602_511_902_919_9;
const C2: [f64; 5] = [
    1.092_548_430_592_079_2,
    -1.092_548_430_592_079_2,
    0.315_391_565_252_520_05,
    -1.092_548_430_592_079_2,
    0.546_274_215_296_039_6,
];
const C3: [f64; 7] = [
    -0.590_043_589_926_643_5,
    2.890_611_442_640_554,
    -0.457_045_799_464_465_8,
    0.373_176_332_590_115_4,
    -0.457_045_799_464_465_8,
    1.445_305_721_320_277,
    -0.590_043_589_926_643_5,
];

/// Number of coefficients after the DC term for `degree`: `(degree + 1)² − 1`.
pub const fn rest_count(degree: u8) -> usize {
    let d = degree as usize;
    (d + 1) * (d + 1) - 1
}

/// The 15 basis values `Y₁ … Y₁₅` at the unit direction `d` (3DGS signs and constants).
pub fn basis(d: [f64; 3]) -> [f64; 15] {
    let [x, y, z] = d;
    let (xx, yy, zz) = (x * x, y * y, z * z);
    [
        -C1 * y,
        C1 * z,
        -C1 * x,
        C2[0] * x * y,
        C2[1] * y * z,
        C2[2] * (2.0 * zz - xx - yy),
        C2[3] * x * z,
        C2[4] * (xx - yy),
        C3[0] * y * (3.0 * xx - yy),
        C3[1] * x * y * z,
        C3[2] * y * (4.0 * zz - xx - yy),
        C3[3] * z * (2.0 * zz - 3.0 * xx - 3.0 * yy),
        C3[4] * x * (4.0 * zz - xx - yy),
        C3[5] * z * (xx - yy),
        C3[6] * x * (xx - 3.0 * yy),
    ]
}

/// Per-band matrices that rotate SH coefficients: after rotating a scene by `R`, the new
/// coefficients `c' = M c` give in direction `R d` the colour the old ones gave in direction `d`.
///
/// Bands are invariant under rotation, so each band `l` has its own `(2l+1)²` matrix. It is
/// found numerically and exactly (up to rounding): on 64 well-spread directions `dⱼ`, the
/// rotated function satisfies `Σ c'ₘ Yₘ(dⱼ) = Σ cₘ Yₘ(Rᵀ dⱼ)`; the least-squares solution of
/// that over-determined system is the band's rotation (the residual is zero because the band
/// is closed under rotation).
pub struct ShRotation {
    /// `bands[l − 1]` is the `(2l+1) × (2l+1)` matrix of band `l`, row-major.
    bands: [Vec<f64>; 3],
}

impl ShRotation {
    /// The SH rotation of the rotation matrix `r`.
    pub fn new(r: &Mat3) -> ShRotation {
        let rt = transpose(r);
        let dirs = fibonacci_sphere(64);
        let a: Vec<[f64; 15]> = dirs.iter().map(|&d| basis(d)).collect();
        let b: Vec<[f64; 15]> = dirs.iter().map(|&d| basis(mat_vec(&rt, d))).collect();
        let mut bands: [Vec<f64>; 3] = Default::default();
        for (l, band) in bands.iter_mut().enumerate() {
            let (k0, n) = ([0, 3, 8][l], 2 * l + 3);
            // Normal equations: (AᵀA) M = AᵀB.
            let mut ata = vec![0.0; n * n];
            let mut atb = vec![0.0; n * n];
            for (ra, rb) in a.iter().zip(&b) {
                for i in 0..n {
                    for j in 0..n {
                        ata[i * n + j] += ra[k0 + i] * ra[k0 + j];
                        atb[i * n + j] += ra[k0 + i] * rb[k0 + j];
                    }
                }
            }
            *band = solve(n, ata, atb);
        }
        ShRotation { bands }
    }

    /// Rotate one splat's coefficients `rest[k − 1]` (RGB per coefficient), for the bands present.
    pub fn apply(&self, rest: &mut [[f32; 3]]) {
        for (l, m) in self.bands.iter().enumerate() {
            let (k0, n) = ([0, 3, 8][l], 2 * l + 3);
            if rest.len() < k0 + n {
                break;
            }
            let old: Vec<[f32; 3]> = rest[k0..k0 + n].to_vec();
            for i in 0..n {
                let mut acc = [0.0f64; 3];
                for (j, o) in old.iter().enumerate() {
                    for c in 0..3 {
                        acc[c] += m[i * n + j] * f64::from(o[c]);
                    }
                }
                rest[k0 + i] = [acc[0] as f32, acc[1] as f32, acc[2] as f32];
            }
        }
    }
}

/// `n` nearly uniform unit directions on the sphere (golden-angle spiral), deterministic.
fn fibonacci_sphere(n: usize) -> Vec<[f64; 3]> {
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    (0..n)
        .map(|i| {
            let z = 1.0 - (2.0 * i as f64 + 1.0) / n as f64;
            let r = (1.0 - z * z).sqrt();
            let (s, c) = (golden * i as f64).sin_cos();
            [r * c, r * s, z]
        })
        .collect()
}

/// Solve `A X = B` for `n × n` matrices (Gauss–Jordan with partial pivoting); returns `X`.
fn solve(n: usize, mut a: Vec<f64>, mut b: Vec<f64>) -> Vec<f64> {
    for col in 0..n {
        let piv = (col..n).max_by(|&i, &j| a[i * n + col].abs().total_cmp(&a[j * n + col].abs())).unwrap();
        if piv != col {
            for k in 0..n {
                a.swap(piv * n + k, col * n + k);
                b.swap(piv * n + k, col * n + k);
            }
        }
        let p = a[col * n + col];
        for k in 0..n {
            a[col * n + k] /= p;
            b[col * n + k] /= p;
        }
        for row in 0..n {
            if row != col {
                let f = a[row * n + col];
                if f != 0.0 {
                    for k in 0..n {
                        a[row * n + k] -= f * a[col * n + k];
                        b[row * n + k] -= f * b[col * n + k];
                    }
                }
            }
        }
    }
    b
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)]
mod tests {
    use super::*;
    use crate::quat::{from_axis_angle, to_matrix};

    #[test]
    fn identity_rotation_leaves_coefficients_alone() {
        let rot = ShRotation::new(&to_matrix(crate::quat::IDENTITY));
        let mut c: Vec<[f32; 3]> = (0..15).map(|k| [k as f32 * 0.1, -0.2, 0.05 * k as f32]).collect();
        let before = c.clone();
        rot.apply(&mut c);
        for (a, b) in c.iter().zip(&before) {
            for ch in 0..3 {
                assert!((a[ch] - b[ch]).abs() < 1e-6);
            }
        }
    }

    #[test]
    fn band_one_along_z_is_c1_times_coefficient() {
        // Inventory §5.1: SH along +z = DC + C1·rest[1] (0-based: the m = 0 coefficient).
        let y = basis([0.0, 0.0, 1.0]);
        assert!((y[1] - C1).abs() < 1e-15);
        assert!(y.iter().enumerate().filter(|&(k, _)| k != 1 && k != 5 && k != 11).all(|(_, v)| v.abs() < 1e-15));
    }

    #[test]
    fn rotated_coefficients_give_the_same_colour_in_the_rotated_direction() {
        let q = from_axis_angle([0.3, -1.0, 0.5], 1.234);
        let r = to_matrix(q);
        let rot = ShRotation::new(&r);
        let c: Vec<[f32; 3]> = (0..15)
            .map(|k| [((k * 7 % 11) as f32 - 5.0) * 0.1, ((k * 3 % 5) as f32 - 2.0) * 0.2, 0.03 * k as f32])
            .collect();
        let mut c2 = c.clone();
        rot.apply(&mut c2);
        for d in fibonacci_sphere(40) {
            let rd = mat_vec(&r, d);
            let (y, yr) = (basis(d), basis(rd));
            for ch in 0..3 {
                let before: f64 = (0..15).map(|k| y[k] * f64::from(c[k][ch])).sum();
                let after: f64 = (0..15).map(|k| yr[k] * f64::from(c2[k][ch])).sum();
                assert!((before - after).abs() < 1e-5, "{before} vs {after}");
            }
        }
    }
}

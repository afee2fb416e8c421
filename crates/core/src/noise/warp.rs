//! Domain warping: sample a function at coordinates displaced by fBM.
//!
//! Quilez, "Domain warping" (iquilezles.org/articles/warp, 2002–2012); seed 001 §3.4. One level
//! displaces `p` by `strength·(fbm(p + a), fbm(p + b))`, where the two offsets `a`, `b`
//! decorrelate the x and y displacements. More levels feed the displaced point back in, as
//! Quilez's `f(p + 4·g(p + 4·h(p)))`: with `q₀ = p`,
//!
//! ```text
//! qₗ = p + strength · ( fbm_l(qₗ₋₁ + a), fbm_l(qₗ₋₁ + b) ),    l = 1..levels
//! ```
//!
//! where level `l` uses the fBM parameters with seed `fbm.seed + (l − 1)` (wrapping), so every
//! level is a different field. Ridgelines meander and the lattice disappears. `strength = 0`
//! or `levels = 0` is the identity exactly.

use super::fbm::{fbm, FbmParams};

/// Parameters of [`warp_point`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WarpParams {
    /// Largest displacement, in input units (fBM is in `[−1, 1]`). Default 1.0.
    pub strength: f64,
    /// The displacement field. Default: [`FbmParams::default`] with 4 octaves.
    pub fbm: FbmParams,
    /// Offset added before sampling the x displacement. Default (0, 0).
    pub offset_a: [f64; 2],
    /// Offset added before sampling the y displacement. Default (5.2, 1.3), Quilez's.
    pub offset_b: [f64; 2],
    /// Number of nested warps. Default 1.
    pub levels: u32,
}

impl Default for WarpParams {
    fn default() -> Self {
        Self {
            strength: 1.0,
            fbm: FbmParams { octaves: 4, ..FbmParams::default() },
            offset_a: [0.0, 0.0],
            offset_b: [5.2, 1.3],
            levels: 1,
        }
    }
}

/// The warped position of `(x, y)`.
#[inline]
pub fn warp_point(p: &WarpParams, x: f64, y: f64) -> (f64, f64) {
    let (mut qx, mut qy) = (x, y);
    for l in 0..p.levels {
        let f = FbmParams { seed: p.fbm.seed.wrapping_add(l), ..p.fbm };
        let wx = fbm(&f, qx + p.offset_a[0], qy + p.offset_a[1]);
        let wy = fbm(&f, qx + p.offset_b[0], qy + p.offset_b[1]);
        qx = x + p.strength * wx;
        qy = y + p.strength * wy;
    }
    (qx, qy)
}

/// `base` fBM sampled at the warped position: `fbm(base, warp_point(warp, x, y))`.
#[inline]
pub fn warped_fbm(warp: &WarpParams, base: &FbmParams, x: f64, y: f64) -> f64 {
    let (qx, qy) = warp_point(warp, x, y);
    fbm(base, qx, qy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn zero_strength_or_levels_is_identity() {
        let base = FbmParams { frequency: 0.3, ..Default::default() };
        let still = WarpParams { strength: 0.0, ..Default::default() };
        let none = WarpParams { levels: 0, ..Default::default() };
        let mut r = Rng::new(6);
        for _ in 0..1000 {
            let (x, y) = (r.range(-100.0, 100.0), r.range(-100.0, 100.0));
            assert_eq!(warp_point(&still, x, y), (x, y));
            assert_eq!(warp_point(&none, x, y), (x, y));
            assert_eq!(warped_fbm(&still, &base, x, y), fbm(&base, x, y));
        }
    }

    #[test]
    fn displacement_bounded_by_strength_and_matches_definition() {
        let w = WarpParams { strength: 2.5, levels: 2, ..Default::default() };
        let mut r = Rng::new(7);
        let mut moved = 0.0;
        for _ in 0..2000 {
            let (x, y) = (r.range(-100.0, 100.0), r.range(-100.0, 100.0));
            let (qx, qy) = warp_point(&w, x, y);
            assert!((qx - x).abs() <= 2.5 && (qy - y).abs() <= 2.5);
            moved += ((qx - x).abs() + (qy - y).abs()) / 2000.0;
        }
        assert!(moved > 0.1, "mean displacement {moved}");
        // Level one by hand.
        let one = WarpParams { strength: 0.7, ..Default::default() };
        let (x, y) = (1.9, -0.4);
        let wx = fbm(&one.fbm, x, y);
        let wy = fbm(&one.fbm, x + 5.2, y + 1.3);
        assert_eq!(warp_point(&one, x, y), (x + 0.7 * wx, y + 0.7 * wy));
    }

    #[test]
    fn warped_field_is_continuous() {
        let w = WarpParams { strength: 0.8, levels: 2, ..Default::default() };
        let base = FbmParams::default();
        let e = 1e-7;
        let mut r = Rng::new(9);
        for _ in 0..2000 {
            let (x, y) = (r.range(-20.0, 20.0), r.range(-20.0, 20.0));
            let d = (warped_fbm(&w, &base, x + e, y) - warped_fbm(&w, &base, x, y)).abs();
            assert!(d < 1e-3, "jump {d}");
        }
    }
}

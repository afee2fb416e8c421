//! `pow` shaping: redistribute heights so most ground flattens toward plains while peaks
//! survive (seed 001 §3.3).
//!
//! `h ← clamp(h, 0, 1)^k` after an optional unit normalisation. With `k > 1` low ground is
//! pressed down and the histogram piles up near 0; with `k < 1` the surface bulges up into
//! plateaus. The clamp is the seed's lesson: noise in "0..1" dips fractionally below 0, and
//! `pow(negative, fractional)` is NaN. The power is `libm::pow`, identical on every platform.
//! Because the map `t ↦ tᵏ` is monotone on `[0, 1]`, the order of heights is preserved and the
//! output stays in `[0, 1]`.

use super::normalise::unit_normalise;
use bozkir_core::Grid;
use rayon::prelude::*;

/// Parameters of [`pow_shape`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PowShapeParams {
    /// Exponent `k` (dimensionless, > 0). Default 1.5.
    pub exponent: f64,
    /// Unit-normalise the input first (otherwise values outside `[0, 1]` are clamped).
    /// Default true.
    pub normalise: bool,
}

impl Default for PowShapeParams {
    fn default() -> Self {
        Self { exponent: 1.5, normalise: true }
    }
}

/// `clamp(h, 0, 1)^k` over the grid, after unit normalisation when `p.normalise`.
pub fn pow_shape(grid: &Grid<f64>, p: &PowShapeParams) -> Grid<f64> {
    let mut out = if p.normalise { unit_normalise(grid) } else { grid.clone() };
    let k = p.exponent;
    out.data_mut().par_iter_mut().for_each(|v| *v = libm::pow(v.clamp(0.0, 1.0), k));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sculpt::test_support::bumpy;

    #[test]
    fn preserves_unit_range_and_order() {
        let g = bumpy(40, 30);
        for k in [0.5, 1.0, 1.35, 3.0] {
            let s = pow_shape(&g, &PowShapeParams { exponent: k, normalise: true });
            let (lo, hi) = s.min_max().unwrap();
            assert_eq!((lo, hi), (0.0, 1.0), "k = {k}");
            // Monotone: sorting cells by input sorts them by output.
            let mut idx: Vec<usize> = (0..g.len()).collect();
            idx.sort_by(|&a, &b| g.data()[a].total_cmp(&g.data()[b]));
            for w in idx.windows(2) {
                assert!(s.data()[w[0]] <= s.data()[w[1]]);
            }
        }
    }

    #[test]
    fn exponent_above_one_flattens_lowlands_and_clamps() {
        let g = bumpy(40, 30);
        let mean = |x: &Grid<f64>| x.data().iter().sum::<f64>() / x.len() as f64;
        let lin = pow_shape(&g, &PowShapeParams { exponent: 1.0, normalise: true });
        let sq = pow_shape(&g, &PowShapeParams { exponent: 2.0, normalise: true });
        assert!(mean(&sq) < mean(&lin) - 0.1);
        for (a, b) in lin.data().iter().zip(sq.data()) {
            assert_eq!(*b, a * a);
        }
        let raw = Grid::from_vec(3, 1, vec![-0.01, 0.25, 1.2]);
        let p = PowShapeParams { exponent: 0.5, normalise: false };
        assert_eq!(pow_shape(&raw, &p).data(), &[0.0, 0.5, 1.0]);
    }
}

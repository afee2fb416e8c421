//! Unit normalisation: rescale a grid linearly onto `[0, 1]`.
//!
//! `(z − min)/(max − min)`, the original bozkır generator's `_unit` (inventory §2.1) in its
//! order of operations. A flat grid (`max − min ≤ 1e-12`) becomes all zeros. Minimum and
//! maximum are taken over finite values; non-finite cells stay non-finite.

use bozkir_core::Grid;
use rayon::prelude::*;

/// Spread below which a grid counts as flat.
const FLAT: f64 = 1e-12;

/// `grid` rescaled onto `[0, 1]`; all zeros when flat or without finite values.
pub fn unit_normalise(grid: &Grid<f64>) -> Grid<f64> {
    let mut out = grid.clone();
    unit_normalise_in_place(out.data_mut());
    out
}

/// [`unit_normalise`] of the values of `a`, in place (in parallel; the same values).
pub fn unit_normalise_in_place(a: &mut [f64]) {
    match bozkir_core::stats::finite_range(a, |_| false) {
        Some((lo, hi)) if hi - lo > FLAT => {
            let span = hi - lo;
            a.par_iter_mut().for_each(|v| *v = (*v - lo) / span);
        }
        _ => a.par_iter_mut().for_each(|v| *v = 0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_extremes_to_zero_and_one() {
        let g = Grid::from_vec(4, 1, vec![2.0, 4.0, 3.0, 6.0]).with_cell_size(5.0, 5.0);
        let u = unit_normalise(&g);
        assert_eq!(u.data(), &[0.0, 0.5, 0.25, 1.0]);
        assert_eq!((u.dx, u.dy), (5.0, 5.0));
        let flat = Grid::new(3, 3, 7.0);
        assert!(unit_normalise(&flat).data().iter().all(|&v| v == 0.0));
    }
}

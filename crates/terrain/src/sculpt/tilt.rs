//! Tilt: lower a field toward one side, so every valley drains the same way.
//!
//! The original bozkır generator's `tilt` (inventory §2.1, "piedmont"): a linear ramp
//! `1 − r/(n − 1)` down the rows, mixed in as `unit(z·(1 − amount) + ramp·amount)` — parallel
//! drainage, unlike the branching networks of untilted ground. Generalised to any direction:
//! the ramp is `1 − t`, where `t ∈ [0, 1]` is the position of the cell (in metres) projected
//! on `direction`, rescaled so the grid's extreme corners map to 0 and 1. `direction` points
//! downhill in map axes (x east along columns, y along rows); the default `(0, 1)` is the
//! original's ramp (bit for bit when `dy = 1`). A zero direction gives a flat ramp.

use super::normalise::unit_normalise;
use bozkir_core::Grid;
use rayon::prelude::*;

/// Parameters of [`tilt`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TiltParams {
    /// Downhill direction in map axes (any length). Default `[0, 1]` (toward the last row).
    pub direction: [f64; 2],
    /// Weight of the ramp against the input, 0..1. Default 0.5.
    pub amount: f64,
}

impl Default for TiltParams {
    fn default() -> Self {
        Self { direction: [0.0, 1.0], amount: 0.5 }
    }
}

/// `unit(z·(1 − amount) + ramp·amount)` with the ramp of the module docs.
pub fn tilt(grid: &Grid<f64>, p: &TiltParams) -> Grid<f64> {
    let (w, h) = (grid.width(), grid.height());
    let mut out = grid.clone();
    if w == 0 || h == 0 {
        return out;
    }
    let (dx, dy) = (grid.dx, grid.dy);
    let [ux, uy] = p.direction;
    let proj = |x: f64, y: f64| x * dx * ux + y * dy * uy;
    let (xe, ye) = ((w - 1) as f64, (h - 1) as f64);
    let corners = [proj(0.0, 0.0), proj(xe, 0.0), proj(0.0, ye), proj(xe, ye)];
    let lo = corners.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = corners.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let span = hi - lo;
    let a = p.amount;
    out.data_mut().par_chunks_mut(w).enumerate().for_each(|(y, row)| {
        for (x, z) in row.iter_mut().enumerate() {
            let ramp = if span > 0.0 { 1.0 - (proj(x as f64, y as f64) - lo) / span } else { 0.0 };
            *z = *z * (1.0 - a) + ramp * a;
        }
    });
    unit_normalise(&out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sculpt::test_support::{bumpy, bytes, with_threads};

    #[test]
    fn default_is_the_original_row_ramp() {
        let g = crate::sculpt::normalise::unit_normalise(&bumpy(20, 17));
        let p = TiltParams { amount: 0.55, ..Default::default() };
        let t = tilt(&g, &p);
        // The original: unit(z·(1 − tilt) + (1 − r/(n − 1))·tilt).
        let want =
            unit_normalise(&Grid::from_fn(20, 17, |x, y| g.get(x, y) * (1.0 - 0.55) + (1.0 - y as f64 / 16.0) * 0.55));
        assert_eq!(bytes(&t), bytes(&want));
    }

    #[test]
    fn full_tilt_is_a_plane_in_the_direction() {
        let g = bumpy(16, 16).with_cell_size(2.0, 2.0);
        let t = tilt(&g, &TiltParams { direction: [1.0, 1.0], amount: 1.0 });
        assert_eq!(*t.get(0, 0), 1.0);
        assert_eq!(*t.get(15, 15), 0.0);
        assert!((t.get(3, 9) - t.get(9, 3)).abs() < 1e-15);
        assert!(t.get(4, 4) > t.get(5, 4));
        let west = tilt(&g, &TiltParams { direction: [-1.0, 0.0], amount: 1.0 });
        assert_eq!((*west.get(15, 3), *west.get(0, 3)), (1.0, 0.0));
        let a = with_threads(1, || tilt(&g, &TiltParams::default()));
        let b = with_threads(3, || tilt(&g, &TiltParams::default()));
        assert_eq!(bytes(&a), bytes(&b));
    }
}

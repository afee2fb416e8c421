//! Noise functions on the canonical hash.
//!
//! Pure per-point functions of continuous `f64` coordinates, deterministic and free of
//! trigonometry and platform maths:
//! [`gradient`](fn@gradient) (Perlin gradient noise with the original bozkır generator's eight
//! gradients), [`fbm`](fn@fbm), [`ridged`](fn@ridged) (Musgrave's ridged multifractal),
//! [`warp_point`] (Quilez domain warping), [`cellular`](fn@cellular) (Worley F1/F2 and cell
//! ids) and, in 3-D on [`hash3_u32`](crate::hash::hash3_u32), [`value3`], [`gradient3`] and
//! [`fbm3`] ([`noise3`]). Each algorithm lives in its own file with its parameter struct.
//!
//! Nothing here runs threads. [`fill_grid`] samples a function over a [`Grid`] on one thread;
//! callers that want parallelism (the terrain crate, with rayon) sample rows themselves — each
//! value depends only on its coordinates, so any split gives the same bits. [`FbmRow`] and
//! [`RidgedRow`] ([`rows`]) evaluate fBM and ridged noise a row at a time with the per-column
//! terms computed once, the per-point functions' bits.

pub mod cellular;
pub mod fbm;
pub mod gradient;
pub mod noise3;
pub mod ridged;
pub mod rows;
pub mod value;
pub mod warp;

pub use cellular::{cell_id, cellular, feature_point, CellSample, CellularParams};
pub use fbm::{fbm, fbm01, octave_seed, FbmParams};
pub use gradient::{fade, gradient, gradient01, GX, GY};
pub use noise3::{fbm3, gradient3, value3, G3};
pub use ridged::{ridged, ridged_octave_seed, RidgedParams};
pub use rows::{FbmRow, RidgedRow};
pub use value::{value_noise_at, value_noise_sum};
pub use warp::{warp_point, warped_fbm, WarpParams};

use crate::grid::Grid;

/// A `width × height` grid with cell size `(dx, dy)` whose cell `(i, j)` is `f(i·dx, j·dy)`:
/// the function sampled at cell origins in metres (or whatever unit `dx`, `dy` are in).
/// Single-threaded; row-major order.
pub fn fill_grid(width: usize, height: usize, dx: f64, dy: f64, mut f: impl FnMut(f64, f64) -> f64) -> Grid<f64> {
    Grid::from_fn(width, height, |i, j| f(i as f64 * dx, j as f64 * dy)).with_cell_size(dx, dy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_grid_samples_cell_origins() {
        let p = FbmParams { frequency: 0.1, seed: 4, ..Default::default() };
        let g = fill_grid(5, 3, 2.0, 0.5, |x, y| fbm(&p, x, y));
        assert_eq!((g.width(), g.height(), g.dx, g.dy), (5, 3, 2.0, 0.5));
        assert_eq!(*g.get(4, 2), fbm(&p, 8.0, 1.0));
        assert_eq!(*g.get(0, 0), 0.0); // gradient noise vanishes at the lattice origin
    }

    #[test]
    fn same_seed_same_bytes_different_seed_differs() {
        let bytes = |seed: u32| -> Vec<u8> {
            let f = FbmParams { frequency: 1.0 / 16.0, seed, ..Default::default() };
            let r = RidgedParams { frequency: 1.0 / 16.0, seed, ..Default::default() };
            let c = CellularParams { frequency: 1.0 / 8.0, seed, ..Default::default() };
            let g = fill_grid(32, 32, 1.0, 1.0, |x, y| fbm(&f, x, y) + ridged(&r, x, y) + cellular(&c, x, y).f1);
            g.data().iter().flat_map(|v| v.to_le_bytes()).collect()
        };
        assert_eq!(bytes(1), bytes(1));
        assert_ne!(bytes(1), bytes(2));
    }
}

//! A per-point function sampled over a grid, rows in parallel.
//!
//! The parallel counterpart of [`bozkir_core::noise::fill_grid`]: cell `(x, y)` is
//! `f(x·dx, y·dy)`, the function at the cell origin in metres. Each value depends only on its
//! coordinates, so the result is identical to `fill_grid`'s for any thread count.

use bozkir_core::Grid;
use rayon::prelude::*;

/// A `width × height` grid with cell size `(dx, dy)` metres holding `f(x·dx, y·dy)`.
pub fn sample_grid(width: usize, height: usize, dx: f64, dy: f64, f: impl Fn(f64, f64) -> f64 + Sync) -> Grid<f64> {
    sample_window(width, height, [0, 0], dx, dy, f)
}

/// [`sample_grid`] of the `width × height` window whose first cell is cell `origin` of a larger
/// grid: cell `(x, y)` is sampled at `((origin[0] + x)·dx, (origin[1] + y)·dy)`, so a window
/// holds exactly the bits the whole grid holds there.
pub fn sample_window(
    width: usize,
    height: usize,
    origin: [usize; 2],
    dx: f64,
    dy: f64,
    f: impl Fn(f64, f64) -> f64 + Sync,
) -> Grid<f64> {
    let mut data = vec![0.0; width * height];
    let [ox, oy] = origin;
    if width > 0 {
        data.par_chunks_mut(width).enumerate().for_each(|(y, row)| {
            let wy = (oy + y) as f64 * dy;
            for (x, v) in row.iter_mut().enumerate() {
                *v = f((ox + x) as f64 * dx, wy);
            }
        });
    }
    Grid::from_vec(width, height, data).with_cell_size(dx, dy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sculpt::test_support::{bytes, with_threads};
    use bozkir_core::noise::{fbm, fill_grid, FbmParams};

    #[test]
    fn equals_single_threaded_fill_for_any_thread_count() {
        let p = FbmParams { frequency: 0.05, seed: 3, ..Default::default() };
        let want = fill_grid(37, 23, 2.0, 3.0, |x, y| fbm(&p, x, y));
        for t in [1, 2, 5] {
            let got = with_threads(t, || sample_grid(37, 23, 2.0, 3.0, |x, y| fbm(&p, x, y)));
            assert_eq!(bytes(&got), bytes(&want));
            assert_eq!((got.dx, got.dy), (2.0, 3.0));
        }
        assert!(sample_grid(0, 5, 1.0, 1.0, |_, _| 1.0).is_empty());
    }
}

//! Small synthetic DEMs for the hydrology unit tests.

use bozkir_core::grid::Grid;
use bozkir_core::hash::hash_unit;

/// Bilinear value noise (lattice spacing `cell` cells) over two octaves, plus white noise of
/// amplitude `rough` and a gentle tilt: lots of depressions of all sizes, with flats nowhere.
pub(crate) fn value_noise(w: usize, h: usize, seed: u32, cell: usize, rough: f64) -> Grid<f64> {
    let lattice = |x: usize, y: usize, c: usize, s: u32| -> f64 {
        let (gx, gy) = (x / c, y / c);
        let (fx, fy) = ((x % c) as f64 / c as f64, (y % c) as f64 / c as f64);
        let v = |i: usize, j: usize| hash_unit(i as u32, j as u32, s);
        let a = v(gx, gy) * (1.0 - fx) + v(gx + 1, gy) * fx;
        let b = v(gx, gy + 1) * (1.0 - fx) + v(gx + 1, gy + 1) * fx;
        a * (1.0 - fy) + b * fy
    };
    Grid::from_fn(w, h, |x, y| {
        100.0 * lattice(x, y, cell, seed)
            + 30.0 * lattice(x, y, (cell / 3).max(1), seed.wrapping_add(1))
            + rough * hash_unit(x as u32, y as u32, seed.wrapping_add(2))
            + 0.05 * x as f64
    })
}

/// White noise plus a tilt: a pit at nearly every other cell.
pub(crate) fn noise(w: usize, h: usize, seed: u32) -> Grid<f64> {
    Grid::from_fn(w, h, |x, y| 10.0 * hash_unit(x as u32, y as u32, seed) + (x + y) as f64 * 0.3)
}

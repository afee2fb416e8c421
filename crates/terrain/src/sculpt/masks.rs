//! Erosion-driven masks: wear, deposit and flow turned into soft `[0, 1]` masks (seed 001 §5).
//!
//! Erosion records where rock was removed (wear), where sediment was dropped (deposit) and how
//! much water passed (flow, the drainage area of stream power). Materials that follow these
//! records look inevitable rather than painted (§5, §8.2). Each record is normalised the same
//! way, as the seed prescribes: blur, then `tanh(x / (k·mean))`, where `mean` is the mean of the
//! blurred positive values. `k` sets the knee: a cell at `k` times the mean maps to
//! `tanh(1) ≈ 0.76`. Negative values count as 0, so the mask lies in `[0, 1)`.
//!
//! The mean is a sequential sum in row-major order and the blur is [`gaussian_blur`]: the mask is
//! identical for any thread count.

use super::blur::{gaussian_blur, BlurParams};
use bozkir_core::Grid;
use rayon::prelude::*;

/// `tanh(max(blur(grid), 0) / (k·mean))` with `blur` a Gaussian of `blur_sigma_m` metres and
/// `mean` the mean of the blurred positive values over all cells. All zero when that mean is 0
/// (or not finite) or `k ≤ 0`. Default choices in the pipeline: `blur_sigma_m` = 1–2 cells,
/// `k` = 1–2.
pub fn normalise_mask(grid: &Grid<f64>, blur_sigma_m: f64, k: f64) -> Grid<f64> {
    let b = gaussian_blur(grid, &BlurParams { sigma: blur_sigma_m });
    let n = b.len().max(1) as f64;
    let mean = b.data().iter().map(|&v| if v > 0.0 { v } else { 0.0 }).sum::<f64>() / n;
    let scale = k * mean;
    let mut out = b;
    if !(scale > 0.0 && scale.is_finite()) {
        out.data_mut().fill(0.0);
        return out;
    }
    out.data_mut().par_iter_mut().for_each(|v| {
        *v = if *v > 0.0 { libm::tanh(*v / scale) } else { 0.0 };
    });
    out
}

/// Wear mask from a record of rock removed per cell (m or m³; positive = removed).
pub fn wear_mask(wear: &Grid<f64>, blur_sigma_m: f64, k: f64) -> Grid<f64> {
    normalise_mask(wear, blur_sigma_m, k)
}

/// Deposit mask from a record of sediment dropped per cell (positive = deposited).
pub fn deposit_mask(deposit: &Grid<f64>, blur_sigma_m: f64, k: f64) -> Grid<f64> {
    normalise_mask(deposit, blur_sigma_m, k)
}

/// Flow mask from drainage area (cells or m²): log-scaled as `ln(1 + A)` first (§5: "A
/// (log-scaled)"), then normalised.
pub fn flow_mask(area: &Grid<f64>, blur_sigma_m: f64, k: f64) -> Grid<f64> {
    let mut logged = area.same_shape(0.0);
    logged
        .data_mut()
        .par_iter_mut()
        .zip(area.data())
        .for_each(|(l, &a)| *l = if a > 0.0 { libm::log1p(a) } else { 0.0 });
    normalise_mask(&logged, blur_sigma_m, k)
}

/// The difference of two surfaces split into a wear record (`before − after` where positive) and
/// a deposit record (`after − before` where positive), for erosion passes that keep no records.
pub fn wear_and_deposit(before: &Grid<f64>, after: &Grid<f64>) -> (Grid<f64>, Grid<f64>) {
    assert_eq!((before.width(), before.height()), (after.width(), after.height()), "wear_and_deposit: shapes");
    let d: Vec<f64> = before.data().iter().zip(after.data()).map(|(a, b)| a - b).collect();
    let diff = Grid::from_vec(before.width(), before.height(), d).with_cell_size(before.dx, before.dy);
    (diff.map(|&v| v.max(0.0)), diff.map(|&v| (-v).max(0.0)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sculpt::test_support::{bumpy, bytes, with_threads};

    #[test]
    fn masks_lie_in_unit_interval_and_keep_order() {
        let b = bumpy(64, 48);
        let rec = b.map(|v| (v * 10.0).powi(3));
        for &(s, k) in &[(0.0, 1.0), (2.0, 1.5), (5.0, 0.5)] {
            let m = normalise_mask(&rec, s, k);
            assert!(m.data().iter().all(|v| (0.0..=1.0).contains(v)));
            assert!(m.data().iter().any(|&v| v > 0.3));
        }
        // Without blur the map is monotone in the input.
        let m = normalise_mask(&rec, 0.0, 1.0);
        for (i, j) in [(0usize, 5usize), (100, 900), (33, 2000)] {
            let (a, b2) = (rec.data()[i].max(0.0), rec.data()[j].max(0.0));
            if a < b2 {
                assert!(m.data()[i] <= m.data()[j]);
            }
        }
        let z = normalise_mask(&Grid::new(10, 10, 0.0), 1.0, 1.0);
        assert!(z.data().iter().all(|&v| v == 0.0));
        let f = flow_mask(&Grid::from_fn(20, 20, |x, _| (x * x) as f64), 1.0, 1.0);
        assert!(f.data().iter().all(|v| (0.0..=1.0).contains(v)));
        let (wr, dp) = wear_and_deposit(&b, &b.map(|v| v * 0.5));
        assert!(wear_mask(&wr, 1.0, 1.0).data().iter().all(|v| (0.0..=1.0).contains(v)));
        assert!(deposit_mask(&dp, 1.0, 1.0).data().iter().all(|v| (0.0..=1.0).contains(v)));
    }

    #[test]
    fn same_bits_for_any_thread_count() {
        let rec = bumpy(70, 50).map(|v| v.abs() * 3.0);
        let a = with_threads(1, || normalise_mask(&rec, 2.0, 1.2));
        let b = with_threads(2, || normalise_mask(&rec, 2.0, 1.2));
        assert_eq!(bytes(&a), bytes(&b));
    }
}

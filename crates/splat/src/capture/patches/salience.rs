//! Per-cell statistics of a patch: luminance, the cell grid, the robust salience that flags
//! landmarks (see the module documentation of `capture::patches`).

use super::*;

/// Luminance weights (Rec. 601).
pub(super) const LUMA: [f64; 3] = [0.299, 0.587, 0.114];

pub(super) fn luma(c: [f32; 3]) -> f64 {
    LUMA[0] * f64::from(c[0]) + LUMA[1] * f64::from(c[1]) + LUMA[2] * f64::from(c[2])
}

/// Robust salience of per-cell values (see the module documentation); 0 with fewer than 16
/// cells.
pub(super) fn robust_salience(vals: &[f64]) -> f64 {
    if vals.len() < 16 {
        return 0.0;
    }
    let mut v = vals.to_vec();
    let med = percentiles(&mut v, &[50.0])[0];
    let mut dev: Vec<f64> = vals.iter().map(|x| (x - med).abs()).collect();
    let mad = percentiles(&mut dev, &[50.0])[0].max(1e-4);
    let mut z: Vec<f64> = vals.iter().map(|x| (x - med).abs() / (1.4826 * mad)).collect();
    z.sort_by(|a, b| b.total_cmp(a));
    let k = ((0.03 * z.len() as f64).round() as usize).max(2);
    let top = z[..k].iter().sum::<f64>() / k as f64;
    let share = z.iter().filter(|&&x| x > 4.0).count() as f64 / z.len() as f64;
    top * ((0.12 - share) / 0.08).clamp(0.0, 1.0)
}

/// Per-cell sums over a `g × g` grid of the square `[c − h, c + h]²`.
pub(super) struct CellGrid {
    pub(super) g: usize,
    pub(super) n: Vec<usize>,
    pub(super) luma: Vec<f64>,
    pub(super) height: Vec<f64>,
}

impl CellGrid {
    pub(super) fn new(g: usize) -> CellGrid {
        CellGrid { g, n: vec![0; g * g], luma: vec![0.0; g * g], height: vec![0.0; g * g] }
    }
    pub(super) fn cell(&self, d: [f64; 2], h: f64) -> usize {
        let f = |v: f64| (((v + h) / (2.0 * h) * self.g as f64).floor().max(0.0) as usize).min(self.g - 1);
        f(d[1]) * self.g + f(d[0])
    }
}

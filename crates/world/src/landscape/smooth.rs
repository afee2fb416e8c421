//! Gaussian smoothing of a south-first field, scipy's `gaussian_filter` semantics (reflect
//! boundary `d c b a | a b c d | d c b a`, kernel radius `⌊4σ + ½⌋`, weights
//! `exp(−x² / 2σ²)` normalised, axis 0 (rows, y) first, then axis 1 (x)).
//!
//! Interim: used until `compat::ndimage` (branch w21-rng) lands, then this delegates to it.

use rayon::prelude::*;

/// The normalised 1-D kernel of scipy's `_gaussian_kernel1d` (order 0, truncate 4).
fn kernel(sigma: f64) -> Vec<f64> {
    let radius = (4.0 * sigma + 0.5) as usize;
    let s2 = sigma * sigma;
    let mut w: Vec<f64> = (-(radius as i64)..=radius as i64).map(|x| (-0.5 / s2 * (x * x) as f64).exp()).collect();
    let sum: f64 = w.iter().sum();
    w.iter_mut().for_each(|v| *v /= sum);
    w
}

/// Reflect an index into `[0, n)` (half-sample symmetric, period `2n`).
#[inline]
fn reflect(i: i64, n: i64) -> usize {
    let p = 2 * n;
    let mut m = i.rem_euclid(p);
    if m >= n {
        m = p - 1 - m;
    }
    m as usize
}

/// `gaussian_filter(values, sigma)` over an `nx × ny` row-major field; `sigma ≤ 0` copies.
pub(crate) fn gaussian(values: &[f64], nx: usize, ny: usize, sigma: f64) -> Vec<f64> {
    if sigma <= 0.0 {
        return values.to_vec();
    }
    let w = kernel(sigma);
    let r = (w.len() / 2) as i64;
    // Axis 0: along columns (y).
    let mut tmp = vec![0.0; nx * ny];
    tmp.par_chunks_mut(nx).enumerate().for_each(|(j, row)| {
        for (k, &wk) in w.iter().enumerate() {
            let jj = reflect(j as i64 + k as i64 - r, ny as i64);
            let src = &values[jj * nx..(jj + 1) * nx];
            row.iter_mut().zip(src).for_each(|(o, &v)| *o += wk * v);
        }
    });
    // Axis 1: along rows (x).
    let mut out = vec![0.0; nx * ny];
    out.par_chunks_mut(nx).zip(tmp.par_chunks(nx)).for_each(|(o, src)| {
        for (i, oi) in o.iter_mut().enumerate() {
            let mut acc = 0.0;
            for (k, &wk) in w.iter().enumerate() {
                acc += wk * src[reflect(i as i64 + k as i64 - r, nx as i64)];
            }
            *oi = acc;
        }
    });
    out
}

//! scipy's `ndimage.gaussian_filter(a, sigma)` with its defaults (mode `reflect`, truncate 4),
//! for a row-major `ny × nx` array (`a[j][i]` at `j·nx + i`, axis 0 = rows j, axis 1 = columns i).
//!
//! The filter is separable: a 1-D correlation along axis 0, then along axis 1, with the kernel
//! `w_k = exp(−k²/(2σ²)) / Σ_m exp(−m²/(2σ²))`, k ∈ [−r, r], r = ⌊4σ + ½⌋. Out-of-range samples
//! come from the half-sample-symmetric extension (`d c b a | a b c d | d c b a`), repeated as
//! often as the radius needs. As scipy's `NI_Correlate1D` does, each output is
//! `x₀·w₀ + Σ_{k=r..1} (x₋ₖ + xₖ)·wₖ` in f64, accumulated from the outermost pair inwards; the
//! kernel sum is numpy's pairwise sum. Each pass stores into the input's element type, so a
//! float32 array is rounded to f32 after the first pass and again after the second.

use crate::error::{Result, WorldError};
use rayon::prelude::*;

/// scipy's `truncate` default: the kernel reaches 4σ.
pub const TRUNCATE: f64 = 4.0;
/// scipy skips an axis whose σ is at most this.
pub const SIGMA_SKIP: f64 = 1e-15;
/// The largest kernel radius accepted (σ up to ~250 000), so bad input cannot exhaust memory.
pub const MAX_RADIUS: usize = 1_000_000;

/// An element type the filter reads into f64 and stores back (f64 exactly, f32 rounded to
/// nearest, as C's conversion does).
pub trait Sample: Copy + Send + Sync {
    /// The value as f64.
    fn to_f64(self) -> f64;
    /// An f64 stored in this type.
    fn from_f64(v: f64) -> Self;
}

impl Sample for f64 {
    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline]
    fn from_f64(v: f64) -> Self {
        v
    }
}

impl Sample for f32 {
    #[inline]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline]
    fn from_f64(v: f64) -> Self {
        v as f32
    }
}

/// `int(truncate·σ + 0.5)`, the kernel radius scipy uses.
pub fn kernel_radius(sigma: f64) -> usize {
    (TRUNCATE * sigma + 0.5) as usize
}

/// The half kernel `[w₀, w₁, …, w_r]` of `scipy.ndimage._gaussian_kernel1d(σ, 0, r)`:
/// `φ_k = exp((−0.5/σ²)·k²)` over k ∈ [−r, r], divided by their numpy pairwise sum.
pub fn gaussian_kernel_half(sigma: f64, radius: usize) -> Vec<f64> {
    let c = -0.5 / (sigma * sigma);
    let r = radius as i64;
    let phi: Vec<f64> = (-r..=r).map(|x| libm::exp(c * (x * x) as f64)).collect();
    let sum = pairwise_sum(&phi);
    phi[radius..].iter().map(|p| p / sum).collect()
}

/// numpy's pairwise summation (`add.reduce` of a contiguous float64 or float32 array, in its own
/// precision): fewer than 8 values
/// summed in order; up to 128 in eight interleaved partial sums combined as
/// `((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))` plus the remainder in order; longer arrays split in
/// two at a multiple of 8 near the middle.
pub fn pairwise_sum<T: Copy + Default + std::ops::Add<Output = T>>(a: &[T]) -> T {
    let n = a.len();
    if n < 8 {
        a.iter().fold(T::default(), |s, &v| s + v)
    } else if n <= 128 {
        let mut r = [a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]];
        let full = n - n % 8;
        for chunk in a[8..full].chunks_exact(8) {
            for (rj, &v) in r.iter_mut().zip(chunk) {
                *rj = *rj + v;
            }
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for &v in &a[full..] {
            res = res + v;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise_sum(&a[..n2]) + pairwise_sum(&a[n2..])
    }
}

/// The index that position `p` (any integer) reads under the half-sample-symmetric extension of
/// a line of length `n` ≥ 1: period 2n, mirrored in its second half.
#[inline]
pub fn reflect_index(p: i64, n: usize) -> usize {
    let m = p.rem_euclid(2 * n as i64) as usize;
    if m >= n {
        2 * n - 1 - m
    } else {
        m
    }
}

/// `scipy.ndimage.gaussian_filter(a, σ)` for a float64 `ny × nx` array.
pub fn gaussian_filter(data: &[f64], nx: usize, ny: usize, sigma: f64) -> Result<Vec<f64>> {
    gaussian_filter_typed(data, nx, ny, sigma)
}

/// `scipy.ndimage.gaussian_filter(a, σ)` for a float32 array: f64 arithmetic, f32 after each pass.
pub fn gaussian_filter_f32(data: &[f32], nx: usize, ny: usize, sigma: f64) -> Result<Vec<f32>> {
    gaussian_filter_typed(data, nx, ny, sigma)
}

/// [`gaussian_filter`] for any [`Sample`] type. Errors: `data.len() ≠ nx·ny`, σ negative or not
/// finite, or a radius above [`MAX_RADIUS`]. σ ≤ 1e-15 returns a copy, as scipy does.
pub fn gaussian_filter_typed<T: Sample>(data: &[T], nx: usize, ny: usize, sigma: f64) -> Result<Vec<T>> {
    check(data.len(), nx, ny, sigma)?;
    if sigma <= SIGMA_SKIP || data.is_empty() {
        return Ok(data.to_vec());
    }
    let w = gaussian_kernel_half(sigma, kernel_radius(sigma));
    let mut tmp = vec![T::from_f64(0.0); data.len()];
    correlate_axis0(data, &mut tmp, nx, ny, &w);
    let mut out = vec![T::from_f64(0.0); data.len()];
    correlate_axis1(&tmp, &mut out, nx, &w);
    Ok(out)
}

fn check(len: usize, nx: usize, ny: usize, sigma: f64) -> Result<()> {
    if nx.checked_mul(ny) != Some(len) {
        return Err(WorldError::Param {
            name: "data".into(),
            value: format!("{len} values"),
            allowed: format!("nx·ny = {nx}·{ny} values"),
        });
    }
    if !(sigma.is_finite() && sigma >= 0.0) || kernel_radius(sigma) > MAX_RADIUS {
        return Err(WorldError::Param {
            name: "sigma".into(),
            value: format!("{sigma}"),
            allowed: format!("finite, ≥ 0, with radius ⌊4σ+½⌋ ≤ {MAX_RADIUS}"),
        });
    }
    Ok(())
}

/// One 1-D pass along axis 0 (down the columns), a whole output row at a time: the same
/// per-element operation order as scipy's line loop, on contiguous rows.
fn correlate_axis0<T: Sample>(src: &[T], dst: &mut [T], nx: usize, ny: usize, w: &[f64]) {
    let r = w.len() - 1;
    dst.par_chunks_mut(nx).enumerate().for_each_init(
        || vec![0.0f64; nx],
        |acc, (j, out)| {
            let row = |jj: i64| &src[reflect_index(jj, ny) * nx..][..nx];
            for (a, x) in acc.iter_mut().zip(row(j as i64)) {
                *a = x.to_f64() * w[0];
            }
            for k in (1..=r).rev() {
                let (lo, hi) = (row(j as i64 - k as i64), row(j as i64 + k as i64));
                for ((a, l), h) in acc.iter_mut().zip(lo).zip(hi) {
                    *a += (l.to_f64() + h.to_f64()) * w[k];
                }
            }
            for (o, a) in out.iter_mut().zip(acc.iter()) {
                *o = T::from_f64(*a);
            }
        },
    );
}

/// One 1-D pass along axis 1 (along each row), through a reflected line buffer of n + 2r values.
fn correlate_axis1<T: Sample>(src: &[T], dst: &mut [T], nx: usize, w: &[f64]) {
    let r = w.len() - 1;
    dst.par_chunks_mut(nx).zip(src.par_chunks(nx)).for_each_init(
        || vec![0.0f64; nx + 2 * r],
        |line, (out, row)| {
            for (p, v) in line.iter_mut().enumerate() {
                *v = row[reflect_index(p as i64 - r as i64, nx)].to_f64();
            }
            for (i, o) in out.iter_mut().enumerate() {
                let c = i + r;
                let mut a = line[c] * w[0];
                for k in (1..=r).rev() {
                    a += (line[c - k] + line[c + k]) * w[k];
                }
                *o = T::from_f64(a);
            }
        },
    );
}

#[cfg(test)]
mod tests;

//! Rows of [`fbm`](fn@super::fbm) and [`ridged`](fn@super::ridged) noise, bit for bit.
//!
//! Sampling a grid calls the per-point functions once per cell, and each call recomputes, for
//! every octave, the lattice column, the fraction and the fade of its `x` — the same numbers for
//! every row. [`FbmRow`] and [`RidgedRow`] compute those per-column terms once, for the columns
//! `xs` they are built on, and then evaluate whole rows: the same operations on the same
//! operands in the same order as the per-point functions (no reassociation, no fused
//! multiply-adds), so every value has the per-point function's bits. On x86-64 with AVX2 the row
//! loop is compiled for it as well (chosen at run time; the same bits).

use super::fbm::{octave_seed, FbmParams};
use super::gradient::{corner, fade};
use super::ridged::{ridged_octave_seed, RidgedParams};

/// One column's terms in one octave: lattice index, fraction, fade of the fraction.
#[derive(Debug, Clone, Copy)]
struct Col {
    i: u32,
    t: f64,
    u: f64,
}

/// One octave: frequency, amplitude, seed, and the terms of every column.
#[derive(Debug, Clone)]
struct Octave {
    f: f64,
    amp: f64,
    seed: u32,
    cols: Vec<Col>,
}

/// The lattice index (modulo 2³²), fraction and fade of coordinate `v` (lattice units), as
/// [`gradient`](fn@super::gradient) takes them.
#[inline(always)]
fn axis(v: f64) -> (u32, f64, f64) {
    let v0 = v.floor();
    let t = v - v0;
    (v0 as i64 as u32, t, fade(t))
}

/// The octaves of a sum on columns `xs`, with the recurrences of the per-point functions, and
/// the sum of the amplitudes' magnitudes.
fn octaves(
    n: u32,
    frequency: f64,
    lacunarity: f64,
    gain: f64,
    seed: impl Fn(u32) -> u32,
    xs: &[f64],
) -> (Vec<Octave>, f64) {
    let (mut amp, mut f, mut norm) = (1.0f64, frequency, 0.0f64);
    let mut out = Vec::with_capacity(n.max(1) as usize);
    for k in 0..n.max(1) {
        let cols = xs
            .iter()
            .map(|&x| {
                let (i, t, u) = axis(x * f);
                Col { i, t, u }
            })
            .collect();
        out.push(Octave { f, amp, seed: seed(k), cols });
        norm += f64::abs(amp);
        amp *= gain;
        f *= lacunarity;
    }
    (out, norm)
}

/// Gradient noise at column `c` of a row with lattice index `iy`, fraction `fy` and fade `uy`:
/// [`gradient`](fn@super::gradient)'s arithmetic in its order.
#[inline(always)]
fn gradient_at(c: Col, iy: u32, fy: f64, uy: f64, seed: u32) -> f64 {
    let ix1 = c.i.wrapping_add(1);
    let iy1 = iy.wrapping_add(1);
    let a = corner(c.i, iy, seed, c.t, fy);
    let b = corner(ix1, iy, seed, c.t - 1.0, fy);
    let cc = corner(c.i, iy1, seed, c.t, fy - 1.0);
    let d = corner(ix1, iy1, seed, c.t - 1.0, fy - 1.0);
    let top = a + (b - a) * c.u;
    let bot = cc + (d - cc) * c.u;
    top + (bot - top) * uy
}

/// Whether the AVX2 builds of the row loops may run.
#[cfg(target_arch = "x86_64")]
fn avx2() -> bool {
    std::is_x86_feature_detected!("avx2")
}

/// Rows of [`fbm`](fn@super::fbm) on fixed columns.
///
/// # Examples
///
/// ```
/// use bozkir_core::noise::{fbm, FbmParams, FbmRow};
///
/// let p = FbmParams { octaves: 5, frequency: 1.0 / 40.0, seed: 3, ..FbmParams::default() };
/// let xs: Vec<f64> = (0..64).map(|i| i as f64 * 2.5).collect();
/// let row = FbmRow::new(&p, &xs);
/// let mut out = vec![0.0; xs.len()];
/// row.row(7.5, &mut out);
/// assert!(out.iter().zip(&xs).all(|(v, &x)| v.to_bits() == fbm(&p, x, 7.5).to_bits()));
/// ```
#[derive(Debug, Clone)]
pub struct FbmRow {
    octaves: Vec<Octave>,
    norm: f64,
}

impl FbmRow {
    /// The row evaluator of `p` on the columns `xs` (input units).
    pub fn new(p: &FbmParams, xs: &[f64]) -> Self {
        let seed = p.seed;
        let (octaves, norm) = octaves(p.octaves, p.frequency, p.lacunarity, p.gain, |k| octave_seed(seed, k), xs);
        Self { octaves, norm }
    }

    /// `out[i] = fbm(p, xs[i], y)` for every column (`out` as long as `xs`).
    pub fn row(&self, y: f64, out: &mut [f64]) {
        assert_eq!(out.len(), self.octaves[0].cols.len(), "FbmRow::row: one output per column");
        #[cfg(target_arch = "x86_64")]
        if avx2() {
            // SAFETY: the CPU supports AVX2 (checked).
            unsafe { self.row_avx2(y, out) };
            return;
        }
        self.row_portable(y, out);
    }

    /// `out[i] = fbm01(p, xs[i], y)`: [`FbmRow::row`] mapped to `[0, 1]` as
    /// [`fbm01`](fn@super::fbm01) does (`v·0.5 + 0.5`).
    pub fn row01(&self, y: f64, out: &mut [f64]) {
        self.row(y, out);
        out.iter_mut().for_each(|v| *v = *v * 0.5 + 0.5);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn row_avx2(&self, y: f64, out: &mut [f64]) {
        self.row_portable(y, out)
    }

    #[inline(always)]
    fn row_portable(&self, y: f64, out: &mut [f64]) {
        out.fill(0.0);
        for o in &self.octaves {
            let (iy, fy, uy) = axis(y * o.f);
            for (s, &c) in out.iter_mut().zip(&o.cols) {
                *s += o.amp * gradient_at(c, iy, fy, uy, o.seed);
            }
        }
        let norm = self.norm;
        out.iter_mut().for_each(|s| *s /= norm);
    }
}

/// Rows of [`ridged`](fn@super::ridged) on fixed columns.
///
/// # Examples
///
/// ```
/// use bozkir_core::noise::{ridged, RidgedParams, RidgedRow};
///
/// let p = RidgedParams { octaves: 4, frequency: 1.0 / 30.0, seed: 9, ..RidgedParams::default() };
/// let xs: Vec<f64> = (0..50).map(|i| i as f64 - 20.0).collect();
/// let mut out = vec![0.0; xs.len()];
/// RidgedRow::new(&p, &xs).row(-3.0, &mut out);
/// assert!(out.iter().zip(&xs).all(|(v, &x)| v.to_bits() == ridged(&p, x, -3.0).to_bits()));
/// ```
#[derive(Debug, Clone)]
pub struct RidgedRow {
    octaves: Vec<Octave>,
    norm: f64,
    offset: f64,
    weight_gain: f64,
    weighted: bool,
}

impl RidgedRow {
    /// The row evaluator of `p` on the columns `xs` (input units).
    pub fn new(p: &RidgedParams, xs: &[f64]) -> Self {
        let seed = p.seed;
        let (octaves, norm) =
            octaves(p.octaves, p.frequency, p.lacunarity, p.gain, |k| ridged_octave_seed(seed, k), xs);
        Self { octaves, norm, offset: p.offset, weight_gain: p.weight_gain, weighted: p.weighted }
    }

    /// `out[i] = ridged(p, xs[i], y)` for every column (`out` as long as `xs`).
    pub fn row(&self, y: f64, out: &mut [f64]) {
        assert_eq!(out.len(), self.octaves[0].cols.len(), "RidgedRow::row: one output per column");
        let mut weight = if self.weighted { vec![1.0; out.len()] } else { Vec::new() };
        #[cfg(target_arch = "x86_64")]
        if avx2() {
            // SAFETY: the CPU supports AVX2 (checked).
            unsafe { self.row_avx2(y, out, &mut weight) };
            return;
        }
        self.row_portable(y, out, &mut weight);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn row_avx2(&self, y: f64, out: &mut [f64], weight: &mut [f64]) {
        self.row_portable(y, out, weight)
    }

    #[inline(always)]
    fn row_portable(&self, y: f64, out: &mut [f64], weight: &mut [f64]) {
        out.fill(0.0);
        for o in &self.octaves {
            let (iy, fy, uy) = axis(y * o.f);
            if self.weighted {
                for ((s, w), &c) in out.iter_mut().zip(weight.iter_mut()).zip(&o.cols) {
                    let n = gradient_at(c, iy, fy, uy, o.seed);
                    let mut signal = self.offset - n.abs();
                    signal *= signal;
                    signal *= *w;
                    *w = (signal * self.weight_gain).clamp(0.0, 1.0);
                    *s += o.amp * signal;
                }
            } else {
                for (s, &c) in out.iter_mut().zip(&o.cols) {
                    let n = gradient_at(c, iy, fy, uy, o.seed);
                    let mut signal = self.offset - n.abs();
                    signal *= signal;
                    *s += o.amp * signal;
                }
            }
        }
        let norm = self.norm;
        out.iter_mut().for_each(|s| *s /= norm);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::{fbm, fbm01, ridged};
    use crate::rng::Rng;

    /// Every value of a row has the per-point function's bits: random parameters (octaves 0–9,
    /// odd lacunarities and gains, negative gains, offsets, weighting on and off), columns and
    /// rows over negative, fractional and large coordinates (past 2³² lattice cells).
    #[test]
    fn rows_equal_the_per_point_functions_bit_for_bit() {
        let mut r = Rng::new(17);
        for case in 0..60 {
            let scale = [1e-3, 0.7, 40.0, 3e9][case % 4];
            let xs: Vec<f64> = (0..37).map(|_| r.range(-1.0, 1.0) * scale).collect();
            let fp = FbmParams {
                octaves: (case % 10) as u32,
                frequency: r.range(0.01, 3.0),
                lacunarity: r.range(1.5, 2.7),
                gain: r.range(-0.9, 0.9),
                seed: (case as u32).wrapping_mul(2_654_435_761),
            };
            let rp = RidgedParams {
                octaves: (case % 7) as u32,
                frequency: r.range(0.01, 3.0),
                lacunarity: r.range(1.5, 2.7),
                gain: r.range(0.2, 0.9),
                offset: r.range(0.5, 1.2),
                weight_gain: r.range(0.5, 3.0),
                weighted: case % 2 == 0,
                seed: case as u32 ^ 0xABCD,
            };
            let (fr, rr) = (FbmRow::new(&fp, &xs), RidgedRow::new(&rp, &xs));
            let mut out = vec![0.0; xs.len()];
            for _ in 0..5 {
                let y = r.range(-1.0, 1.0) * scale;
                fr.row(y, &mut out);
                for (v, &x) in out.iter().zip(&xs) {
                    assert_eq!(v.to_bits(), fbm(&fp, x, y).to_bits(), "fbm case {case} at ({x}, {y})");
                }
                fr.row01(y, &mut out);
                for (v, &x) in out.iter().zip(&xs) {
                    assert_eq!(v.to_bits(), fbm01(&fp, x, y).to_bits(), "fbm01 case {case} at ({x}, {y})");
                }
                rr.row(y, &mut out);
                for (v, &x) in out.iter().zip(&xs) {
                    assert_eq!(v.to_bits(), ridged(&rp, x, y).to_bits(), "ridged case {case} at ({x}, {y})");
                }
            }
        }
    }
}

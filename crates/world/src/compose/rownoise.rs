//! The [`Noise`] trait's fBM evaluated along a row of cells, bit for bit the per-point
//! `Noise::fbm2` (same products, same order of sums), but hashing each lattice corner once per
//! row and octave instead of four times per sample: along a row `y` is fixed, so consecutive
//! samples in the same lattice column share their corners, and moving one column east reuses
//! the two eastern corners as the new western ones.
//!
//! It relies on the trait's default `value_noise2` and `fbm2` (every [`Noise`] in this crate
//! keeps them); the test below pins the equality.

use crate::random::{smooth, Noise};

/// Add `amp · value_noise2(xin[i]·freq, yy, seed)` to `out[i]` for every i (`yy` is the row's
/// `y·freq`).
fn add_value_noise_row(noise: &dyn Noise, xin: &[f64], freq: f64, yy: f64, seed: i64, amp: f64, out: &mut [f64]) {
    let yf = yy.floor();
    let yi = yf as i64;
    let v = smooth(yy - yf);
    let mut last: Option<i64> = None;
    let (mut c00, mut c10, mut c01, mut c11) = (0.0, 0.0, 0.0, 0.0);
    for (o, &x0) in out.iter_mut().zip(xin) {
        let x = x0 * freq;
        let xf = x.floor();
        let xi = xf as i64;
        if last != Some(xi) {
            if last == Some(xi.wrapping_sub(1)) {
                (c00, c01) = (c10, c11);
            } else {
                c00 = noise.hashf2(xi, yi, seed);
                c01 = noise.hashf2(xi, yi.wrapping_add(1), seed);
            }
            c10 = noise.hashf2(xi.wrapping_add(1), yi, seed);
            c11 = noise.hashf2(xi.wrapping_add(1), yi.wrapping_add(1), seed);
            last = Some(xi);
        }
        let u = smooth(x - xf);
        let a = c00 + (c10 - c00) * u;
        let b = c01 + (c11 - c01) * u;
        *o += amp * (a + (b - a) * v);
    }
}

/// `out[i] = fbm2(xin[i], y, octaves, seed)` (in [0, 1]): octave `o` at frequency 2^o,
/// amplitude 0.5^(o+1), seed `seed + 1013·o`, divided by the amplitude sum.
pub fn fbm2_row(noise: &dyn Noise, xin: &[f64], y: f64, octaves: u32, seed: i64, out: &mut [f64]) {
    out.fill(0.0);
    let (mut amp, mut freq, mut norm) = (0.5, 1.0, 0.0);
    for o in 0..i64::from(octaves) {
        add_value_noise_row(noise, xin, freq, y * freq, seed.wrapping_add(o * 1013), amp, out);
        norm += amp;
        freq *= 2.0;
        amp *= 0.5;
    }
    let norm = f64::max(norm, 1e-9);
    for v in out.iter_mut() {
        *v /= norm;
    }
}

/// `out[i] = signed_fbm2(xin[i], y, octaves, seed) = 2·fbm2 − 1`.
pub fn signed_fbm2_row(noise: &dyn Noise, xin: &[f64], y: f64, octaves: u32, seed: i64, out: &mut [f64]) {
    fbm2_row(noise, xin, y, octaves, seed, out);
    for v in out.iter_mut() {
        *v = *v * 2.0 - 1.0;
    }
}

/// `out[i] = ridged_fbm2(xin[i], y, octaves, seed) = |signed_fbm2|`.
pub fn ridged_fbm2_row(noise: &dyn Noise, xin: &[f64], y: f64, octaves: u32, seed: i64, out: &mut [f64]) {
    signed_fbm2_row(noise, xin, y, octaves, seed, out);
    for v in out.iter_mut() {
        *v = v.abs();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::for_compat;
    use crate::Compat;

    #[test]
    fn rows_equal_the_pointwise_fbm_bit_for_bit() {
        for compat in [Compat::Pyworldgen, Compat::Canonical] {
            let noise = for_compat(compat).noise();
            // Steps below and above one lattice cell, negative coordinates, big offsets.
            for (step, x0, y) in [(0.016, -3.3, 0.7), (0.37, 100.25, -50.5), (1.7, -12.0, 3.0)] {
                let xin: Vec<f64> = (0..300).map(|i| x0 + step * (i as f64 + 0.5)).collect();
                let mut out = vec![0.0; xin.len()];
                for oct in [1, 3, 5] {
                    signed_fbm2_row(noise, &xin, y, oct, 77, &mut out);
                    for (&x, &o) in xin.iter().zip(&out) {
                        assert_eq!(o.to_bits(), noise.signed_fbm2(x, y, oct, 77).to_bits());
                    }
                    ridged_fbm2_row(noise, &xin, y, oct, -5, &mut out);
                    for (&x, &o) in xin.iter().zip(&out) {
                        assert_eq!(o.to_bits(), noise.ridged_fbm2(x, y, oct, -5).to_bits());
                    }
                }
            }
        }
    }
}

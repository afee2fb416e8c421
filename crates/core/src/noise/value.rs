//! Lattice value noise summed over octaves, on the canonical hash: octave `o` has period
//! `base_period / 2^o` cells, amplitude `scale · 2^-o`, lattice values `hash_unit(ix, iy, o)`
//! and smoothstep interpolation. Only `+ − × ÷` and `floor`, so other languages reproduce the
//! bits (`scripts/bench_fastscapelib.py` does, for the stream-power comparison). The benchmark
//! DEM and the droplet tests read it.

use crate::hash::hash_unit;

/// One octave at the point `(x, y)`: lattice period `period`, lattice values
/// `hash_unit(ix, iy, seed)` (coordinates in two's complement, so negative points work),
/// smoothstep interpolation; in `[0, 1)`.
pub fn value_noise_at(x: f64, y: f64, period: f64, seed: u32) -> f64 {
    let (fx, fy) = (x / period, y / period);
    let (ix, iy) = (fx.floor(), fy.floor());
    let (tx, ty) = (fx - ix, fy - iy);
    let (sx, sy) = (tx * tx * (3.0 - 2.0 * tx), ty * ty * (3.0 - 2.0 * ty));
    let (ix, iy) = (ix as i64 as u32, iy as i64 as u32);
    let (a, b) = (hash_unit(ix, iy, seed), hash_unit(ix.wrapping_add(1), iy, seed));
    let (c, d) = (hash_unit(ix, iy.wrapping_add(1), seed), hash_unit(ix.wrapping_add(1), iy.wrapping_add(1), seed));
    let top = a + (b - a) * sx;
    let bot = c + (d - c) * sx;
    top + (bot - top) * sy
}

/// The octave sum over an `n × n` grid (row-major) and the total amplitude `Σ scale · 2^-o`.
pub fn value_noise_sum(n: usize, octaves: u32, base_period: f64, scale: f64) -> (Vec<f64>, f64) {
    let mut v = vec![0.0f64; n * n];
    let (mut amp, mut tot) = (1.0f64, 0.0f64);
    for o in 0..octaves {
        let period = base_period / (1u32 << o) as f64;
        let a_o = scale * amp;
        for y in 0..n {
            for x in 0..n {
                v[y * n + x] += a_o * value_noise_at(x as f64, y as f64, period, o);
            }
        }
        tot += a_o;
        amp *= 0.5;
    }
    (v, tot)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_multiplies_every_value_and_the_total() {
        let (a, ta) = value_noise_sum(17, 3, 8.0, 1.0);
        let (b, tb) = value_noise_sum(17, 3, 8.0, 4.0);
        assert_eq!(ta, 1.75);
        assert_eq!(tb, 7.0);
        for (x, y) in a.iter().zip(&b) {
            assert!((4.0 * x - y).abs() < 1e-12);
            assert!((0.0..=1.75).contains(x));
        }
        // Lattice corners take the hash value of the first octave plus the finer octaves.
        assert_ne!(a[0], a[1]);
    }
}

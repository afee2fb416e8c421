//! 2-D gradient (Perlin) noise on the canonical hash, continuous coordinates.
//!
//! Perlin, "Improving Noise" (SIGGRAPH 2002): pseudo-random gradients on the integer lattice,
//! dot products with the offsets to the four corners of the cell, blended with the quintic fade
//! `6t⁵ − 15t⁴ + 10t³`. The gradient of corner `(i, j)` is entry `hash_u32(i, j, seed) & 7` of
//! the eight fixed vectors [`GX`], [`GY`] (four diagonals of length √2, four axis vectors), the
//! set the original bozkır generator uses (`bozkir/erosion.py::_gradient_noise`, inventory §2.1).
//! Fixed vectors instead of angles: no trigonometry, so every language rounds identically.
//!
//! The arithmetic is the original's, in its order, so `gradient(x, y, s) * 0.5 + 0.5` is
//! bit-identical to one octave of the original at the same `(x, y)` (the original computes
//! `x = i·(f·stretch)/w`, `y = j·f/h` per pixel; callers that need compatibility form the
//! coordinates the same way). Lattice coordinates are `floor(x)` taken modulo 2³², as the
//! original's `int64 & 0xFFFFFFFF`.
//!
//! Range: exactly `[−1, 1]` (the maximum, 1, is reached at cell centres when all four corner
//! gradients point at the centre). The value is 0 at every lattice point.

use crate::hash::hash_u32;

/// x components of the eight gradient vectors.
pub const GX: [f64; 8] = [1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 0.0, 0.0];
/// y components of the eight gradient vectors.
pub const GY: [f64; 8] = [1.0, 1.0, -1.0, -1.0, 0.0, 0.0, 1.0, -1.0];

/// Perlin's quintic fade `t³(t(6t − 15) + 10)`: 0 at 0, 1 at 1, zero first and second
/// derivatives at both ends.
#[inline(always)]
pub fn fade(t: f64) -> f64 {
    t * t * t * (t * (t * 6.0 - 15.0) + 10.0)
}

/// Dot product of corner `(ix, iy)`'s gradient with the offset `(ox, oy)` to the sample.
#[inline(always)]
pub(crate) fn corner(ix: u32, iy: u32, seed: u32, ox: f64, oy: f64) -> f64 {
    let g = (hash_u32(ix, iy, seed) & 7) as usize;
    GX[g] * ox + GY[g] * oy
}

/// Gradient noise at `(x, y)` (lattice units: one cell per unit) under `seed`; in `[−1, 1]`.
#[inline]
pub fn gradient(x: f64, y: f64, seed: u32) -> f64 {
    let x0 = x.floor();
    let y0 = y.floor();
    let fx = x - x0;
    let fy = y - y0;
    // `as i64 as u32`: the integer part modulo 2³², like the original's int64 & 0xFFFFFFFF.
    let ix = x0 as i64 as u32;
    let iy = y0 as i64 as u32;
    let ix1 = ix.wrapping_add(1);
    let iy1 = iy.wrapping_add(1);
    let ux = fade(fx);
    let uy = fade(fy);
    let a = corner(ix, iy, seed, fx, fy);
    let b = corner(ix1, iy, seed, fx - 1.0, fy);
    let c = corner(ix, iy1, seed, fx, fy - 1.0);
    let d = corner(ix1, iy1, seed, fx - 1.0, fy - 1.0);
    let top = a + (b - a) * ux;
    let bot = c + (d - c) * ux;
    top + (bot - top) * uy
}

/// The original's octave value: `gradient(x, y, seed)·0.5 + 0.5`, in `[0, 1]`.
#[inline]
pub fn gradient01(x: f64, y: f64, seed: u32) -> f64 {
    gradient(x, y, seed) * 0.5 + 0.5
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Values computed independently in Python (big-integer hash, float64 arithmetic in the
    /// order above), i.e. the original `_gradient_noise` formula without the 0.5 shift.
    #[test]
    fn pinned_values() {
        let cases: [(f64, f64, u32, f64); 5] = [
            (0.5, 0.5, 0, PIN[0]),
            (1.25, 2.75, 7, PIN[1]),
            (-3.3, 0.1, 42, PIN[2]),
            (100.9, -57.45, 1013, PIN[3]),
            (0.123, 0.987, 0xFFFF_FFFF, PIN[4]),
        ];
        for (x, y, s, want) in cases {
            assert_eq!(gradient(x, y, s).to_bits(), want.to_bits(), "gradient({x},{y},{s})");
        }
    }
    const PIN: [f64; 5] = [0.0, -0.10099411010742188, -0.14323519295999992, -0.04360753478249757, -0.12089256984156305];

    #[test]
    fn zero_at_lattice_points() {
        for s in [0u32, 1, 99, 0xDEAD_BEEF] {
            for i in -20..20 {
                for j in -20..20 {
                    assert_eq!(gradient(i as f64, j as f64, s), 0.0);
                }
            }
        }
    }

    #[test]
    fn bounded_and_spread() {
        let mut r = Rng::new(3);
        let (mut lo, mut hi) = (f64::MAX, f64::MIN);
        let mut sum = 0.0;
        let n = 100_000;
        for _ in 0..n {
            let x = r.range(-1000.0, 1000.0);
            let y = r.range(-1000.0, 1000.0);
            let v = gradient(x, y, 11);
            assert!((-1.0..=1.0).contains(&v), "{v} at ({x},{y})");
            lo = lo.min(v);
            hi = hi.max(v);
            sum += v;
        }
        assert!(lo < -0.6 && hi > 0.6, "range [{lo}, {hi}] too narrow");
        assert!((sum / n as f64).abs() < 0.01, "mean {}", sum / n as f64);
        assert_eq!(gradient01(0.0, 0.0, 5), 0.5);
    }

    #[test]
    fn continuous_across_cell_edges() {
        // Lipschitz: the gradient of 2-D Perlin noise with these vectors is bounded (< 4).
        let mut r = Rng::new(8);
        let e = 1e-7;
        for _ in 0..10_000 {
            let x = r.range(-50.0, 50.0).round() + r.range(-1e-6, 1e-6);
            let y = r.range(-50.0, 50.0);
            let v = gradient(x, y, 2);
            assert!((gradient(x + e, y, 2) - v).abs() < 4.0 * e);
            assert!((gradient(x, y + e, 2) - v).abs() < 4.0 * e);
            assert!((gradient(y, x + e, 2) - gradient(y, x, 2)).abs() < 4.0 * e);
        }
    }

    #[test]
    fn seeds_decorrelate_and_fade_endpoints() {
        let differ = (0..1000)
            .filter(|k| {
                let x = *k as f64 * 0.37 + 0.5;
                gradient(x, 0.3, 1) != gradient(x, 0.3, 2)
            })
            .count();
        assert!(differ > 900);
        assert_eq!((fade(0.0), fade(1.0), fade(0.5)), (0.0, 1.0, 0.5));
    }
}

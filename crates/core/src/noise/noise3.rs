//! 3-D lattice noise on the canonical 3-D hash ([`hash3_u32`]): value noise, gradient (Perlin)
//! noise and their fractal sums, for solid fields (caves, overhangs, voxel terrain).
//!
//! * [`value3`]: the hash of the eight corners of the unit cell mapped to `[0, 1)` (`h / 2³²`),
//!   blended trilinearly with Perlin's quintic [`fade`]. Range `[0, 1)`; at a lattice point it
//!   is that point's hash value.
//! * [`gradient3`]: Perlin, "Improving Noise" (SIGGRAPH 2002): corner gradients drawn from the
//!   twelve cube-edge directions `(±1, ±1, 0)`, `(±1, 0, ±1)`, `(0, ±1, ±1)` by
//!   `hash3_u32(i, j, k, seed) % 12`, dotted with the offsets to the sample and blended with the
//!   quintic fade. Fixed vectors, no trigonometry: every language rounds identically. Zero at
//!   every lattice point; it reaches 1 at a cell centre whose eight gradients all point at it,
//!   and stays within about ±1.04 elsewhere (the tests hold it to `|n| ≤ 1.1`).
//! * [`fbm3`]: octaves of [`gradient3`] with lacunarity 2 and gain ½, octave `o` under seed
//!   [`octave_seed`]`(seed, o)`, normalised by the sum of the amplitudes (so within the range of one octave).
//!
//! Lattice coordinates are `floor(x)` taken modulo 2³² (`as i64 as u32`), so negative
//! coordinates and far positions wrap instead of overflowing. The blend order is fixed (x, then
//! y, then z), so the bits are the same in every build and on every thread.

use super::fbm::octave_seed;
use super::gradient::fade;
use crate::hash::{hash3_u32, hash3_unit};

/// The twelve gradient directions (cube edges), indexed by `hash % 12`.
pub const G3: [[f64; 3]; 12] = [
    [1.0, 1.0, 0.0],
    [-1.0, 1.0, 0.0],
    [1.0, -1.0, 0.0],
    [-1.0, -1.0, 0.0],
    [1.0, 0.0, 1.0],
    [-1.0, 0.0, 1.0],
    [1.0, 0.0, -1.0],
    [-1.0, 0.0, -1.0],
    [0.0, 1.0, 1.0],
    [0.0, -1.0, 1.0],
    [0.0, 1.0, -1.0],
    [0.0, -1.0, -1.0],
];

/// The cell of `x`: `(floor(x) mod 2³², x − floor(x))`.
#[inline(always)]
fn cell(x: f64) -> (u32, f64) {
    let f = x.floor();
    (f as i64 as u32, x - f)
}

#[inline(always)]
fn lerp(a: f64, b: f64, t: f64) -> f64 {
    a + (b - a) * t
}

/// Trilinear blend of the eight corner values `c[dz][dy][dx]` with weights `(u, v, w)`.
#[inline(always)]
fn blend(c: [[[f64; 2]; 2]; 2], u: f64, v: f64, w: f64) -> f64 {
    let y0 = lerp(lerp(c[0][0][0], c[0][0][1], u), lerp(c[0][1][0], c[0][1][1], u), v);
    let y1 = lerp(lerp(c[1][0][0], c[1][0][1], u), lerp(c[1][1][0], c[1][1][1], u), v);
    lerp(y0, y1, w)
}

/// The eight corners of the unit cell around `(x, y, z)`, each valued by `corner(i, j, k, o)`
/// (`(i, j, k)` its lattice point modulo 2³², `o` the offset from it to the sample), blended
/// with the quintic fade.
#[inline(always)]
fn cell_blend(x: f64, y: f64, z: f64, corner: impl Fn(u32, u32, u32, [f64; 3]) -> f64) -> f64 {
    let (ix, fx) = cell(x);
    let (iy, fy) = cell(y);
    let (iz, fz) = cell(z);
    let mut c = [[[0.0; 2]; 2]; 2];
    for (dz, plane) in c.iter_mut().enumerate() {
        for (dy, row) in plane.iter_mut().enumerate() {
            for (dx, v) in row.iter_mut().enumerate() {
                let (i, j, k) = (ix.wrapping_add(dx as u32), iy.wrapping_add(dy as u32), iz.wrapping_add(dz as u32));
                *v = corner(i, j, k, [fx - dx as f64, fy - dy as f64, fz - dz as f64]);
            }
        }
    }
    blend(c, fade(fx), fade(fy), fade(fz))
}

/// Value noise at `(x, y, z)` (one lattice cell per unit) under `seed`; in `[0, 1)`.
#[inline]
pub fn value3(x: f64, y: f64, z: f64, seed: u32) -> f64 {
    cell_blend(x, y, z, |i, j, k, _| hash3_unit(i, j, k, seed))
}

/// Gradient noise at `(x, y, z)` under `seed`; 0 at lattice points, within about ±1.04.
#[inline]
pub fn gradient3(x: f64, y: f64, z: f64, seed: u32) -> f64 {
    cell_blend(x, y, z, |i, j, k, o| {
        let g = G3[(hash3_u32(i, j, k, seed) % 12) as usize];
        g[0] * o[0] + g[1] * o[1] + g[2] * o[2]
    })
}

/// Fractal sum of [`gradient3`]: `octaves` octaves (at least 1) at `frequency` (lattice cells
/// per unit of `x`), lacunarity 2, gain ½, normalised by the sum of the amplitudes.
pub fn fbm3(x: f64, y: f64, z: f64, frequency: f64, octaves: u32, seed: u32) -> f64 {
    let octaves = octaves.max(1);
    let (mut f, mut a, mut sum, mut norm) = (frequency, 1.0, 0.0, 0.0);
    for o in 0..octaves {
        sum += a * gradient3(x * f, y * f, z * f, octave_seed(seed, o));
        norm += a;
        f *= 2.0;
        a *= 0.5;
    }
    sum / norm
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value3_is_the_hash_at_lattice_points_and_bounded() {
        for (i, j, k) in [(0i64, 0i64, 0i64), (3, -7, 11), (-1, -1, -1), (1 << 33, 5, -9)] {
            let want = hash3_unit(i as u32, j as u32, k as u32, 9);
            assert_eq!(value3(i as f64, j as f64, k as f64, 9), want, "({i},{j},{k})");
        }
        let mut s = crate::rng::Rng::new(4);
        for _ in 0..5000 {
            let p = [s.next_f64() * 40.0 - 20.0, s.next_f64() * 40.0 - 20.0, s.next_f64() * 40.0 - 20.0];
            let v = value3(p[0], p[1], p[2], 3);
            assert!((0.0..1.0).contains(&v), "{v} at {p:?}");
        }
    }

    #[test]
    fn gradient3_vanishes_on_the_lattice_is_bounded_and_continuous() {
        let mut s = crate::rng::Rng::new(8);
        for _ in 0..200 {
            let (i, j, k) = ((s.below(200) as i64) - 100, (s.below(200) as i64) - 100, (s.below(200) as i64) - 100);
            assert_eq!(gradient3(i as f64, j as f64, k as f64, 5), 0.0);
        }
        let mut max = 0.0f64;
        for _ in 0..20_000 {
            let p = [s.next_f64() * 30.0 - 15.0, s.next_f64() * 30.0 - 15.0, s.next_f64() * 30.0 - 15.0];
            let v = gradient3(p[0], p[1], p[2], 5);
            assert!(v.abs() <= 1.1, "{v}");
            max = max.max(v.abs());
            // Lipschitz: the blend of linear corner terms has slope below 4 per unit.
            let e = 1e-6;
            let d = (gradient3(p[0] + e, p[1], p[2], 5) - v).abs();
            assert!(d < 4.0 * e, "jump {d} at {p:?}");
        }
        // Not degenerate: the noise reaches a sizeable fraction of its range.
        assert!(max > 0.5, "max {max}");
    }

    #[test]
    fn gradient3_on_a_plane_differs_from_the_seed_next_door() {
        let a: Vec<f64> = (0..100).map(|i| gradient3(i as f64 * 0.37, 1.3, 2.1, 1)).collect();
        let b: Vec<f64> = (0..100).map(|i| gradient3(i as f64 * 0.37, 1.3, 2.1, 2)).collect();
        assert!(a.iter().zip(&b).filter(|(x, y)| x != y).count() > 90);
    }

    #[test]
    fn fbm3_is_normalised_and_pinned() {
        let mut s = crate::rng::Rng::new(2);
        for _ in 0..2000 {
            let v = fbm3(s.next_f64() * 100.0, s.next_f64() * 100.0, s.next_f64() * 100.0, 0.05, 5, 7);
            assert!(v.abs() <= 1.1);
        }
        // Pinned (also in web/tests/unit/wasm-parity.test.mjs: the WebAssembly build's bits).
        assert_eq!(gradient3(3.3, -4.2, 5.7, 9).to_bits(), 13_824_173_135_611_752_536);
        // One octave is gradient3 at the scaled point under octave 0's seed.
        assert_eq!(fbm3(3.3, 4.4, 5.5, 0.5, 1, 7), gradient3(1.65, 2.2, 2.75, octave_seed(7, 0)));
    }
}

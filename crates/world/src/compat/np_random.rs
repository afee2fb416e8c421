//! numpy's `default_rng(seed)` as the world's [`Draws`]: a thin wrapper over
//! [`bozkir_core::numpy_rng::Generator`], which holds the whole port (`SeedSequence`, PCG64 with
//! its buffered 32-bit half-word, Lemire bounded integers, the 256-layer ziggurat; its module
//! doc gives the algorithm).
//!
//! Why a wrapper and not the core type itself: numpy's `Generator.integers(low, high, size)` is
//! an inherent method of the core type, and an inherent method would shadow [`Draws::integers`]
//! (`integers(n)`) in method calls. The wrapper also carries the world's seed convention: a
//! negative `i64` seed is taken as its two's complement (numpy refuses negative seeds; the
//! [`Randomness`](crate::random::Randomness) trait is infallible), and the degenerate bounds
//! of [`Draws`] (`integers(n < 1)`, `choice(0)`) return 0 without drawing where numpy raises.
//! Every other draw is the core generator's, bit for bit.

use crate::random::Draws;

/// numpy's `Generator` over PCG64, seen through [`Draws`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generator(pub bozkir_core::numpy_rng::Generator);

impl Generator {
    /// `numpy.random.default_rng(seed)`. numpy refuses negative seeds; here a negative seed is
    /// taken as its two's complement, `seed mod 2⁶⁴` (so −1 gives `default_rng(2**64 - 1)`),
    /// which keeps the trait infallible. pyworldgen only passes non-negative seeds.
    pub fn default_rng(seed: i64) -> Self {
        Self::from_u64(seed as u64)
    }

    /// `numpy.random.default_rng(seed)` for any `seed` in [0, 2⁶⁴).
    pub fn from_u64(seed: u64) -> Self {
        Generator(bozkir_core::numpy_rng::Generator::default_rng(u128::from(seed)))
    }

    /// The next raw 64-bit output of the bit generator (`random_raw()`).
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0.bit_generator_mut().next_u64()
    }

    /// The next 32-bit output: the buffered upper half of the last word drawn for 32 bits, else
    /// the lower half of a fresh word.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        self.0.bit_generator_mut().next_u32()
    }

    /// `Generator.integers(low, high)` (int64, `high` exclusive), one draw. An empty range
    /// returns `low` without drawing, which numpy would refuse.
    pub fn integers_range(&mut self, low: i64, high: i64) -> i64 {
        if high <= low {
            return low;
        }
        let range = (i128::from(high) - i128::from(low) - 1) as u64;
        (low as u64).wrapping_add(self.0.bounded_u64(range)) as i64
    }
}

impl Draws for Generator {
    fn random(&mut self) -> f64 {
        self.0.random()
    }
    /// `lo + (hi − lo)·random()`, as numpy's `random_uniform` computes it.
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.0.uniform(lo, hi)
    }
    /// `integers(n)` = `integers(0, n)`; `n < 1` returns 0 without drawing (numpy raises).
    fn integers(&mut self, n: i64) -> i64 {
        self.integers_range(0, n)
    }
    fn normal(&mut self) -> f64 {
        self.0.standard_normal()
    }
    /// `choice(list)` draws `integers(0, len)`; an empty list returns 0 without drawing.
    fn choice(&mut self, n: usize) -> usize {
        self.integers_range(0, n.min(i64::MAX as usize) as i64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_seed_is_twos_complement() {
        let mut a = Generator::default_rng(-1);
        let mut b = Generator::from_u64(u64::MAX);
        assert_eq!(a.next_u64(), b.next_u64());
        // And it is the core generator seeded with 2⁶⁴ − 1.
        let mut c = bozkir_core::numpy_rng::Generator::default_rng(u128::from(u64::MAX));
        c.bit_generator_mut().next_u64();
        assert_eq!(a.next_u64(), c.bit_generator_mut().next_u64());
    }

    /// The wrapper draws exactly what the core generator draws, method for method.
    #[test]
    fn draws_are_the_core_generators() {
        let mut w = Generator::from_u64(2024);
        let mut c = bozkir_core::numpy_rng::Generator::default_rng(2024);
        for i in 0..500 {
            match i % 5 {
                0 => assert_eq!(w.random().to_bits(), c.random().to_bits()),
                1 => assert_eq!(w.uniform(-1.0, 7.0).to_bits(), c.uniform(-1.0, 7.0).to_bits()),
                2 => assert_eq!(w.integers(1000), c.integers(0, 1000, 1).unwrap()[0]),
                3 => assert_eq!(w.choice(7) as i64, c.integers(0, 7, 1).unwrap()[0]),
                _ => assert_eq!(w.normal().to_bits(), c.standard_normal().to_bits()),
            }
        }
        assert_eq!(w.0, c);
    }

    #[test]
    fn values_in_range_and_degenerate_bounds() {
        let mut g = Generator::default_rng(9);
        for n in [1i64, 2, 7, 1 << 31, (1 << 32) + 3, i64::MAX] {
            for _ in 0..200 {
                let k = g.integers(n);
                assert!((0..n).contains(&k), "integers({n}) = {k}");
            }
        }
        for _ in 0..1000 {
            let u = g.random();
            assert!((0.0..1.0).contains(&u));
            let v = g.uniform(-2.0, 3.0);
            assert!((-2.0..3.0).contains(&v));
            assert!(g.choice(3) < 3);
            assert!(g.normal().is_finite());
        }
        let before = g.clone().next_u64();
        assert_eq!((g.integers(0), g.integers(-4), g.choice(0), g.integers(1)), (0, 0, 0, 0));
        assert_eq!(g.next_u64(), before, "degenerate bounds draw nothing");
        assert!(g.integers_range(i64::MIN, i64::MAX) < i64::MAX);
    }

    /// Both sources of draws (canonical and numpy) keep every method in its documented range.
    #[test]
    fn both_draws_in_range() {
        for compat in [crate::Compat::Canonical, crate::Compat::Pyworldgen] {
            let mut d = crate::random::for_compat(compat).draws(12_345);
            for i in 0..2000 {
                let n = [1i64, 3, 1000, (1 << 32) + 7][i % 4];
                assert!((0..n).contains(&d.integers(n)), "{compat:?}");
                assert!((0.0..1.0).contains(&d.random()), "{compat:?}");
                assert!((5.0..7.5).contains(&d.uniform(5.0, 7.5)), "{compat:?}");
                assert!(d.choice(5) < 5, "{compat:?}");
                assert!(d.normal().abs() < 10.0, "{compat:?}");
            }
        }
    }
}

//! Seeded generators on the canonical hash.
//!
//! [`Rng`] is *counter based*: draw `k` of stream `st` under seed `s` is
//! `hash_u32(k, st, s)` ([`crate::hash::hash_u32`]), and the generator's whole state is
//! `(seed, stream, counter)`. Any draw can therefore be recomputed without replaying the ones
//! before it, every language that has the canonical hash has the generator (JavaScript needs
//! nothing but `Math.imul`), and a parallel computation gets independent, reproducible
//! randomness by giving each chunk its own stream or its own [`Rng::split`] child, never by
//! sharing one generator between threads.
//!
//! The construction follows the counter-based generators of Salmon et al., "Parallel random
//! numbers: as easy as 1, 2, 3" (SC 2011), with the canonical hash as the bijection-free mixing
//! function. Floats in `[0, 1)` take 53 bits from two draws, as `genrand_res53` in Matsumoto and
//! Nishimura's reference Mersenne Twister: `((a >> 5)·2²⁶ + (b >> 6)) / 2⁵³`. Normal deviates use
//! the Box–Muller transform (Box and Muller, Ann. Math. Statist. 1958) with `libm`'s `log`,
//! `sqrt`, `cos` and `sin`, so they are the same on every platform and in WebAssembly.
//!
//! Draw accounting, which a reimplementation has to follow to stay in step:
//! [`Rng::next_u32`] uses one counter value; [`Rng::next_u64`] and [`Rng::next_f64`] use two
//! (high word first); [`Rng::range`] one `next_f64`; [`Rng::below`] one or more `next_u32`
//! (rejection); [`Rng::normal_pair`] and [`Rng::standard_normal`] two `next_f64`.
//! The counter is 32 bits and wraps: a stream repeats after 2³² draws.

use crate::hash::hash_u32;

/// Salt of the first hash that derives a child seed in [`Rng::split`].
const SPLIT_SALT: u32 = 0x5EED_C41D;

/// 2π as the nearest `f64`.
const TAU: f64 = core::f64::consts::TAU;

/// A deterministic counter-based generator on the canonical hash. See the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rng {
    seed: u32,
    stream: u32,
    counter: u32,
}

impl Rng {
    /// Stream 0 of `seed`, at counter 0.
    pub const fn new(seed: u32) -> Self {
        Self { seed, stream: 0, counter: 0 }
    }

    /// Stream `stream` of `seed`, at counter 0. Streams of one seed are independent sequences.
    pub const fn with_stream(seed: u32, stream: u32) -> Self {
        Self { seed, stream, counter: 0 }
    }

    /// The seed this generator was built with.
    pub const fn seed(&self) -> u32 {
        self.seed
    }

    /// The stream this generator draws from.
    pub const fn stream(&self) -> u32 {
        self.stream
    }

    /// Number of 32-bit draws made so far (modulo 2³²): the index of the next draw.
    pub const fn counter(&self) -> u32 {
        self.counter
    }

    /// Jump to draw `counter` of the stream (random access).
    pub fn set_counter(&mut self, counter: u32) {
        self.counter = counter;
    }

    /// A child generator for chunk or task `index`.
    ///
    /// The child's seed is `hash_u32(hash_u32(index, stream, seed ^ SPLIT_SALT), index, seed)`
    /// with `SPLIT_SALT = 0x5EEDC41D`; it draws from stream 0 at counter 0. It depends only on
    /// the parent's seed and stream and on `index`, never on how many draws the parent has
    /// made, so per-chunk seeds are the same whatever order chunks are processed in.
    pub const fn split(&self, index: u32) -> Rng {
        let a = hash_u32(index, self.stream, self.seed ^ SPLIT_SALT);
        Rng::new(hash_u32(a, index, self.seed))
    }

    /// The next 32 bits: `hash_u32(counter, stream, seed)`, then the counter advances.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        let v = hash_u32(self.counter, self.stream, self.seed);
        self.counter = self.counter.wrapping_add(1);
        v
    }

    /// 64 bits from two draws, the first being the high word.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let hi = self.next_u32() as u64;
        let lo = self.next_u32() as u64;
        (hi << 32) | lo
    }

    /// Uniform in `[0, 1)` with 53 bits: `((a >> 5)·2²⁶ + (b >> 6)) / 2⁵³` from two draws `a, b`.
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        let a = (self.next_u32() >> 5) as u64;
        let b = (self.next_u32() >> 6) as u64;
        ((a << 26) | b) as f64 * (1.0 / 9_007_199_254_740_992.0)
    }

    /// Uniform in `[lo, hi)`: `lo + (hi − lo)·next_f64()`. With `lo > hi` the interval is
    /// `(hi, lo]`; with `lo == hi` the result is `lo`.
    #[inline]
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next_f64()
    }

    /// Uniform integer in `[0, n)` without modulo bias; `n == 0` returns 0 without drawing.
    ///
    /// Draws `r` until `r ≥ (2³² − n) mod n`, then returns `r mod n` (rejection of the short
    /// final interval; the loop runs more than once with probability below `n / 2³²`).
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        if n == 0 {
            return 0;
        }
        let threshold = n.wrapping_neg() % n;
        loop {
            let r = self.next_u32();
            if r >= threshold {
                return r % n;
            }
        }
    }

    /// Uniform integer in `[lo, hi)`; returns `lo` when `hi ≤ lo` (without drawing).
    #[inline]
    pub fn range_u32(&mut self, lo: u32, hi: u32) -> u32 {
        if hi <= lo {
            return lo;
        }
        lo + self.below(hi - lo)
    }

    /// True with probability `p` (`next_f64() < p`).
    #[inline]
    pub fn chance(&mut self, p: f64) -> bool {
        self.next_f64() < p
    }

    /// Two independent standard normal deviates by Box–Muller.
    ///
    /// `u1 = 1 − next_f64()` (in `(0, 1]`, so the logarithm is finite), `u2 = next_f64()`,
    /// `r = sqrt(−2·ln u1)`, `θ = 2π·u2`; returns `(r·cos θ, r·sin θ)`, all through `libm`.
    #[inline]
    pub fn normal_pair(&mut self) -> (f64, f64) {
        let u1 = 1.0 - self.next_f64();
        let u2 = self.next_f64();
        let r = libm::sqrt(-2.0 * libm::log(u1));
        let theta = TAU * u2;
        (r * libm::cos(theta), r * libm::sin(theta))
    }

    /// One standard normal deviate: the first of [`Rng::normal_pair`] (the second is discarded,
    /// so every call uses exactly four 32-bit draws).
    #[inline]
    pub fn standard_normal(&mut self) -> f64 {
        self.normal_pair().0
    }

    /// Normal deviate with mean `mean` and standard deviation `std_dev`:
    /// `mean + std_dev·standard_normal()`.
    #[inline]
    pub fn normal(&mut self, mean: f64, std_dev: f64) -> f64 {
        mean + std_dev * self.standard_normal()
    }

    /// Fisher–Yates shuffle in place: for `i` from `len − 1` down to 1, swap `i` with
    /// `below(i + 1)`. Panics if the slice has more than 2³² elements.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        assert!(items.len() as u64 <= 1 << 32, "Rng::shuffle: slice longer than 2^32");
        for i in (1..items.len()).rev() {
            let j = self.below((i + 1) as u32) as usize;
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected values computed independently with Python big integers: the canonical hash with
    // `& 0xFFFFFFFF` after every multiply, the formulas in the doc comments, and Python's
    // `math` module for Box–Muller (correctly rounded on the checked platform, compared here
    // to 1e-15 relative because libm and CPython may differ in the last ulp).

    #[test]
    fn pinned_u32_stream() {
        let mut r = Rng::new(42);
        let got: Vec<u32> = (0..5).map(|_| r.next_u32()).collect();
        assert_eq!(got, [0xba0d_c547, 0x409f_b9aa, 0x70f4_2544, 0x45c4_5dfa, 0x475f_a3d2]);
        let mut s = Rng::with_stream(42, 7);
        assert_eq!(s.next_u32(), 0x27ab_61d2);
        assert_eq!(s.counter(), 1);
    }

    #[test]
    fn pinned_u64_f64_and_split() {
        let mut r = Rng::new(42);
        assert_eq!(r.next_u64(), 0xba0d_c547_409f_b9aa);
        let mut r = Rng::new(42);
        let f = r.next_f64();
        assert_eq!(f, 0x0017_41b8_a902_7ee6_u64 as f64 / 9_007_199_254_740_992.0);
        assert_eq!(f.to_bits(), 0.726_772_623_154_798_2_f64.to_bits());
        let child = Rng::with_stream(42, 3).split(5);
        assert_eq!(child.seed(), 0x2a49_0dda);
        assert_eq!((child.stream(), child.counter()), (0, 0));
    }

    #[test]
    fn pinned_normal() {
        let mut r = Rng::new(1);
        let (a, b) = r.normal_pair();
        let want = (-0.468_512_926_271_687_6, 1.158_879_270_530_367);
        assert!((a - want.0).abs() <= 1e-15 * want.0.abs(), "{a}");
        assert!((b - want.1).abs() <= 1e-15 * want.1.abs(), "{b}");
        assert_eq!(r.counter(), 4);
    }

    #[test]
    fn pinned_shuffle_and_below() {
        let mut r = Rng::new(9);
        let mut v: Vec<u32> = (0..10).collect();
        r.shuffle(&mut v);
        assert_eq!(v, [6, 5, 7, 9, 4, 0, 2, 3, 8, 1]);
        let mut r = Rng::new(9);
        let got: Vec<u32> = (0..6).map(|_| r.below(6)).collect();
        assert_eq!(got, [1, 2, 5, 4, 0, 4]);
    }

    #[test]
    fn counter_is_random_access_and_streams_differ() {
        let mut a = Rng::new(123);
        for _ in 0..17 {
            a.next_u32();
        }
        let mut b = Rng::new(123);
        b.set_counter(17);
        assert_eq!(a.next_u32(), b.next_u32());
        let mut s0 = Rng::with_stream(123, 0);
        let mut s1 = Rng::with_stream(123, 1);
        let same = (0..1000).filter(|_| s0.next_u32() == s1.next_u32()).count();
        assert!(same <= 1);
    }

    #[test]
    fn split_ignores_parent_progress_and_children_differ() {
        let a = Rng::new(77);
        let mut b = Rng::new(77);
        b.next_f64();
        assert_eq!(a.split(3), b.split(3));
        let seeds: std::collections::HashSet<u32> = (0..4096).map(|i| a.split(i).seed()).collect();
        assert_eq!(seeds.len(), 4096);
        assert_ne!(Rng::with_stream(77, 1).split(3), a.split(3));
    }

    #[test]
    fn uniform_moments_and_bounds() {
        let mut r = Rng::new(2024);
        let n = 200_000;
        let mut sum = 0.0;
        let mut sum2 = 0.0;
        for _ in 0..n {
            let u = r.next_f64();
            assert!((0.0..1.0).contains(&u));
            sum += u;
            sum2 += u * u;
        }
        let mean = sum / n as f64;
        let var = sum2 / n as f64 - mean * mean;
        assert!((mean - 0.5).abs() < 0.003, "mean {mean}");
        assert!((var - 1.0 / 12.0).abs() < 0.002, "var {var}");
        for _ in 0..1000 {
            let x = r.range(-3.0, 5.0);
            assert!((-3.0..5.0).contains(&x));
            let k = r.range_u32(10, 13);
            assert!((10..13).contains(&k));
        }
        assert_eq!(r.range_u32(5, 5), 5);
        assert_eq!(r.below(0), 0);
    }

    #[test]
    fn below_is_unbiased() {
        let mut r = Rng::new(5);
        let mut counts = [0u32; 7];
        let n = 70_000;
        for _ in 0..n {
            counts[r.below(7) as usize] += 1;
        }
        // Chi-squared with 6 degrees of freedom; 22.5 is the 0.999 quantile.
        let e = n as f64 / 7.0;
        let chi2: f64 = counts.iter().map(|&c| (c as f64 - e).powi(2) / e).sum();
        assert!(chi2 < 22.5, "chi2 {chi2} counts {counts:?}");
    }

    #[test]
    fn normal_moments() {
        let mut r = Rng::new(31337);
        let n = 100_000;
        let xs: Vec<f64> = (0..n).map(|_| r.normal(2.0, 3.0)).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        let within = xs.iter().filter(|x| (*x - 2.0).abs() < 3.0).count() as f64 / n as f64;
        assert!((mean - 2.0).abs() < 0.04, "mean {mean}");
        assert!((var.sqrt() - 3.0).abs() < 0.04, "sd {}", var.sqrt());
        assert!((within - 0.6827).abs() < 0.006, "within one sd {within}");
    }

    #[test]
    fn shuffle_is_a_permutation_and_seed_dependent() {
        let mut v: Vec<u32> = (0..100).collect();
        Rng::new(1).shuffle(&mut v);
        let mut sorted = v.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..100).collect::<Vec<_>>());
        let mut w: Vec<u32> = (0..100).collect();
        Rng::new(2).shuffle(&mut w);
        assert_ne!(v, w);
        let mut e: [u8; 0] = [];
        Rng::new(1).shuffle(&mut e);
    }
}

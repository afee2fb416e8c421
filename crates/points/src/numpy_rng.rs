//! numpy's `np.random.default_rng(seed)` in pure Rust, bit for bit (numpy 2.x, checked against
//! numpy 2.4.6 by the goldens of `tests/pyworldgen.rs`): the draws pyworldgen 0.1.8's point
//! functions make.
//!
//! # Algorithm
//!
//! 1. **`SeedSequence`** ([`SeedSequence`]). A non-negative integer seed is split into 32-bit
//!    little-endian words (0 → `[0]`). Each of the first 4 words (0 for missing ones) is
//!    hashed into a 4-word pool by `hashmix` (`v ← (w ⊕ h)·h'`, `h' = h·0x931e8875` kept as the
//!    next `h`, then `v ⊕ (v ≫ 16)`, from `h = 0x43b0d7e5`); then every pool word is mixed with
//!    the hash of every other (`mix(x, y) = (0xca01f9dd·x − 0x4973f715·y) ⊕ (… ≫ 16)`), and
//!    any words past the 4th are mixed into all of them. `generate_state(n)` cycles the pool:
//!    word `i` is `(pool[i mod 4] ⊕ h)·h'` with `h' = h·0x58f38ded` (from `h = 0x8b51f9dd`),
//!    then `⊕ ≫ 16`; a `uint64` state is two such words, low word first. All arithmetic wraps
//!    at 32 bits.
//! 2. **PCG64** ([`Pcg64`]). `generate_state(4, uint64)` gives `s0 s1 s2 s3`; the LCG's seed is
//!    `s0·2⁶⁴ + s1` and its stream `s2·2⁶⁴ + s3`. Seeding: `inc = 2·stream + 1`, `state = 0`,
//!    one step, `state += seed`, one step. A step is `state ← state·M + inc` (mod 2¹²⁸,
//!    `M = 0x2360ED051FC65DA44385DF649FCCF645`); an output is a step followed by XSL-RR:
//!    `rotr64(hi ⊕ lo, state ≫ 122)`. A 32-bit draw returns the low half of a fresh 64-bit
//!    output and keeps the high half for the next 32-bit draw (numpy's buffered word; 64-bit
//!    draws neither use nor clear it).
//! 3. **`Generator`** ([`Generator`]). `random()` is `(u64 ≫ 11)·2⁻⁵³`. `choice(n, size, p)`
//!    with replacement ([`Generator::choice_p`]): numpy checks `p` (no NaN, no negative entry,
//!    Kahan sum within `√ε` of 1), takes `cdf = cumsum(p)` (sequential additions), divides it by
//!    its last entry, draws `size` doubles with `random()` and returns for each `u` the number
//!    of `cdf` entries `≤ u` (`searchsorted(side='right')`). `integers(low, high, size)` (int64,
//!    high excluded; [`Generator::integers`]) draws `off + bounded(high − low − 1)` with
//!    Lemire's method: ranges below `2³² − 1` on 32-bit draws, exactly `2³² − 1` a raw 32-bit
//!    draw, `2⁶⁴ − 1` a raw 64-bit draw, others Lemire on 64-bit draws.
//!
//! [`pairwise_sum`] is numpy's `add.reduce` of a contiguous `f64` array (its pairwise
//! summation), which pyworldgen's area total goes through; [`kahan_sum`] is the sum `choice`
//! checks.
//!
//! # Errors
//!
//! [`Generator::choice_p`] refuses what numpy refuses (empty `p`, NaN or negative entries, a sum
//! off 1 by more than `√ε`), naming the value; [`Generator::integers`] refuses `high ≤ low`.
//! Nothing panics.

use crate::error::{PointsError, Result};

const INIT_A: u32 = 0x43b0_d7e5;
const MULT_A: u32 = 0x931e_8875;
const INIT_B: u32 = 0x8b51_f9dd;
const MULT_B: u32 = 0x58f3_8ded;
const MIX_MULT_L: u32 = 0xca01_f9dd;
const MIX_MULT_R: u32 = 0x4973_f715;

/// Words in a `SeedSequence` pool.
pub const POOL_WORDS: usize = 4;

/// PCG64's LCG multiplier (numpy's `PCG_DEFAULT_MULTIPLIER_128`).
pub const PCG64_MULTIPLIER: u128 = 0x2360_ED05_1FC6_5DA4_4385_DF64_9FCC_F645;

/// `2⁻⁵³`.
const TWO_POW_M53: f64 = 1.0 / 9_007_199_254_740_992.0;

/// numpy's `SeedSequence` without spawn keys: the hashed 4-word pool (module doc, step 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeedSequence {
    /// The pool (`SeedSequence(entropy).pool`).
    pub pool: [u32; POOL_WORDS],
}

impl SeedSequence {
    /// `SeedSequence(entropy)` for an entropy given as 32-bit words (numpy's coercion of a list
    /// of 32-bit integers, or of one integer split low word first).
    pub fn from_words(entropy: &[u32]) -> SeedSequence {
        let mut h = INIT_A;
        let mut hashmix = |v: u32| {
            let mut v = v ^ h;
            h = h.wrapping_mul(MULT_A);
            v = v.wrapping_mul(h);
            v ^ (v >> 16)
        };
        let mix = |x: u32, y: u32| {
            let r = MIX_MULT_L.wrapping_mul(x).wrapping_sub(MIX_MULT_R.wrapping_mul(y));
            r ^ (r >> 16)
        };
        let mut pool = [0u32; POOL_WORDS];
        for (i, p) in pool.iter_mut().enumerate() {
            *p = hashmix(entropy.get(i).copied().unwrap_or(0));
        }
        for src in 0..POOL_WORDS {
            for dst in 0..POOL_WORDS {
                if src != dst {
                    let hashed = hashmix(pool[src]);
                    pool[dst] = mix(pool[dst], hashed);
                }
            }
        }
        for &w in entropy.iter().skip(POOL_WORDS) {
            for p in pool.iter_mut() {
                let hashed = hashmix(w);
                *p = mix(*p, hashed);
            }
        }
        SeedSequence { pool }
    }

    /// `SeedSequence(seed)` for a non-negative integer seed.
    pub fn new(seed: u128) -> SeedSequence {
        SeedSequence::from_words(&seed_words(seed))
    }

    /// `generate_state(n, uint32)`.
    pub fn generate_state_u32(&self, n: usize) -> Vec<u32> {
        let mut h = INIT_B;
        (0..n)
            .map(|i| {
                let mut v = self.pool[i % POOL_WORDS] ^ h;
                h = h.wrapping_mul(MULT_B);
                v = v.wrapping_mul(h);
                v ^ (v >> 16)
            })
            .collect()
    }

    /// `generate_state(n, uint64)`: pairs of 32-bit words, low word first.
    pub fn generate_state_u64(&self, n: usize) -> Vec<u64> {
        self.generate_state_u32(2 * n).chunks_exact(2).map(|w| u64::from(w[0]) | u64::from(w[1]) << 32).collect()
    }
}

/// The 32-bit words numpy splits a non-negative integer into, low word first (0 → `[0]`).
pub fn seed_words(seed: u128) -> Vec<u32> {
    let mut words = vec![seed as u32];
    let mut rest = seed >> 32;
    while rest != 0 {
        words.push(rest as u32);
        rest >>= 32;
    }
    words
}

/// numpy's PCG64 bit generator (module doc, step 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pcg64 {
    state: u128,
    inc: u128,
    /// The high half of the last 64-bit output drawn for a 32-bit draw, not yet used.
    half: Option<u32>,
}

impl Pcg64 {
    /// `PCG64(SeedSequence)`: seed and stream from `generate_state(4, uint64)`.
    pub fn from_seed_sequence(seq: &SeedSequence) -> Pcg64 {
        let s = seq.generate_state_u64(4);
        let seed = u128::from(s[0]) << 64 | u128::from(s[1]);
        let stream = u128::from(s[2]) << 64 | u128::from(s[3]);
        Pcg64::from_seed_and_stream(seed, stream)
    }

    /// PCG's `srandom(seed, stream)`.
    pub fn from_seed_and_stream(seed: u128, stream: u128) -> Pcg64 {
        let mut g = Pcg64 { state: 0, inc: stream << 1 | 1, half: None };
        g.step();
        g.state = g.state.wrapping_add(seed);
        g.step();
        g
    }

    /// The LCG state (numpy's `bit_generator.state['state']['state']`).
    pub fn state(&self) -> u128 {
        self.state
    }

    /// The LCG increment (numpy's `bit_generator.state['state']['inc']`).
    pub fn increment(&self) -> u128 {
        self.inc
    }

    #[inline]
    fn step(&mut self) {
        self.state = self.state.wrapping_mul(PCG64_MULTIPLIER).wrapping_add(self.inc);
    }

    /// One 64-bit output (`random_raw()`).
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.step();
        let s = self.state;
        ((s >> 64) as u64 ^ s as u64).rotate_right((s >> 122) as u32)
    }

    /// One 32-bit output: the kept high half if there is one, else the low half of a fresh
    /// 64-bit output (whose high half is kept).
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        if let Some(h) = self.half.take() {
            return h;
        }
        let v = self.next_u64();
        self.half = Some((v >> 32) as u32);
        v as u32
    }
}

/// numpy's `Generator` over [`Pcg64`] (module doc, step 3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generator {
    bits: Pcg64,
}

impl Generator {
    /// `np.random.default_rng(seed)` for a non-negative integer seed.
    pub fn default_rng(seed: u128) -> Generator {
        Generator { bits: Pcg64::from_seed_sequence(&SeedSequence::new(seed)) }
    }

    /// A generator over a given bit generator.
    pub fn from_bit_generator(bits: Pcg64) -> Generator {
        Generator { bits }
    }

    /// The bit generator (its state).
    pub fn bit_generator(&self) -> &Pcg64 {
        &self.bits
    }

    /// The bit generator, to draw raw words.
    pub fn bit_generator_mut(&mut self) -> &mut Pcg64 {
        &mut self.bits
    }

    /// `random()`: a double in `[0, 1)`, `(u64 ≫ 11)·2⁻⁵³`.
    #[inline]
    pub fn random(&mut self) -> f64 {
        (self.bits.next_u64() >> 11) as f64 * TWO_POW_M53
    }

    /// `random(size)`.
    pub fn random_vec(&mut self, size: usize) -> Vec<f64> {
        (0..size).map(|_| self.random()).collect()
    }

    /// `choice(p.len(), size, replace=True, p=p)`: indices drawn with probabilities `p`, by
    /// numpy's inverse-CDF search (module doc, step 3). Refuses what numpy refuses.
    pub fn choice_p(&mut self, p: &[f64], size: usize) -> Result<Vec<usize>> {
        let cdf = choice_cdf(p)?;
        Ok((0..size).map(|_| search_right(&cdf, self.random())).collect())
    }

    /// `integers(low, high, size)` with numpy's defaults (int64, `high` excluded); refuses
    /// `high ≤ low`.
    pub fn integers(&mut self, low: i64, high: i64, size: usize) -> Result<Vec<i64>> {
        if high <= low {
            return Err(PointsError::param(
                "Generator::integers",
                "high",
                high as f64,
                format!("above low = {low} (numpy: low >= high)"),
            ));
        }
        let range = (i128::from(high) - i128::from(low) - 1) as u64;
        Ok((0..size).map(|_| (low as u64).wrapping_add(self.bounded(range)) as i64).collect())
    }

    /// A uniform integer in `0..=range` the way numpy's `random_bounded_uint64_fill` draws it
    /// (no masking).
    fn bounded(&mut self, range: u64) -> u64 {
        const U32: u64 = u32::MAX as u64;
        match range {
            0 => 0,
            U32 => u64::from(self.bits.next_u32()),
            r if r < U32 => {
                let excl = r + 1;
                let mut m = u64::from(self.bits.next_u32()) * excl;
                if (m & U32) < excl {
                    let threshold = (U32 - r) % excl;
                    while (m & U32) < threshold {
                        m = u64::from(self.bits.next_u32()) * excl;
                    }
                }
                m >> 32
            }
            u64::MAX => self.bits.next_u64(),
            r => {
                let excl = r + 1;
                let mut m = u128::from(self.bits.next_u64()) * u128::from(excl);
                if (m as u64) < excl {
                    let threshold = (u64::MAX - r) % excl;
                    while (m as u64) < threshold {
                        m = u128::from(self.bits.next_u64()) * u128::from(excl);
                    }
                }
                (m >> 64) as u64
            }
        }
    }
}

/// numpy's checks on `choice`'s `p` and its normalised running sum `cumsum(p) / cumsum(p)[-1]`.
pub(crate) fn choice_cdf(p: &[f64]) -> Result<Vec<f64>> {
    const WHAT: &str = "Generator::choice_p";
    if p.is_empty() {
        return Err(PointsError::Empty { what: WHAT, detail: "no probabilities (a cannot be empty)" });
    }
    if let Some((index, &value)) = p.iter().enumerate().find(|(_, v)| v.is_nan()) {
        return Err(PointsError::NonFinite { what: WHAT, item: "probability", index, value });
    }
    if let Some((i, &v)) = p.iter().enumerate().find(|(_, &v)| v < 0.0) {
        return Err(PointsError::param(WHAT, "probability", v, format!("entry {i} must be non-negative")));
    }
    let sum = kahan_sum(p);
    // numpy: `abs(kahan_sum(p) - 1.) > atol` with `atol = sqrt(finfo(float64).eps)`.
    let atol = f64::EPSILON.sqrt();
    if (sum - 1.0).abs() > atol || sum.is_nan() {
        return Err(PointsError::param(WHAT, "sum of probabilities", sum, format!("within {atol:e} of 1")));
    }
    let mut cdf = Vec::with_capacity(p.len());
    let mut run = 0.0f64;
    for (i, &v) in p.iter().enumerate() {
        // numpy's cumsum starts from the first entry (no `0 + p[0]`, which only differs for −0).
        run = if i == 0 { v } else { run + v };
        cdf.push(run);
    }
    let last = run;
    for c in &mut cdf {
        *c /= last;
    }
    Ok(cdf)
}

/// `searchsorted(cdf, u, side='right')`: the number of entries `≤ u` (`cdf` is non-decreasing).
#[inline]
pub(crate) fn search_right(cdf: &[f64], u: f64) -> usize {
    cdf.partition_point(|&c| c <= u)
}

/// numpy's `kahan_sum` (the check in `choice`): compensated summation from the first entry;
/// 0 for an empty slice.
pub fn kahan_sum(a: &[f64]) -> f64 {
    let Some((&first, rest)) = a.split_first() else { return 0.0 };
    let (mut sum, mut c) = (first, 0.0f64);
    for &v in rest {
        let y = v - c;
        let t = sum + y;
        c = (t - sum) - y;
        sum = t;
    }
    sum
}

/// numpy's `add.reduce` of a contiguous `f64` array (`a.sum()`): the identity 0 plus the
/// pairwise sum of all entries. The pairwise sum adds fewer than 8 entries one by one; up to
/// 128 entries it keeps 8 running sums `r[j]` (entries `j, j + 8, …`), combines them as
/// `((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))` and adds the leftover entries one by one;
/// above 128 it splits at `n/2` rounded down to a multiple of 8 and adds the two halves' sums.
pub fn pairwise_sum(a: &[f64]) -> f64 {
    0.0 + pairwise(a)
}

fn pairwise(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        let mut res = 0.0;
        for &v in a {
            res += v;
        }
        res
    } else if n <= 128 {
        let mut r = [0.0f64; 8];
        r.copy_from_slice(&a[..8]);
        let whole = n - n % 8;
        for chunk in a[8..whole].chunks_exact(8) {
            for (rj, &v) in r.iter_mut().zip(chunk) {
                *rj += v;
            }
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for &v in &a[whole..] {
            res += v;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise(&a[..n2]) + pairwise(&a[n2..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_words_split_low_first() {
        assert_eq!(seed_words(0), vec![0]);
        assert_eq!(seed_words(5), vec![5]);
        assert_eq!(seed_words((1 << 32) + 7), vec![7, 1]);
        assert_eq!(seed_words(u128::MAX), vec![u32::MAX; 4]);
    }

    #[test]
    fn pairwise_sum_equals_a_plain_sum_on_exact_values() {
        // Small integers add exactly in any order, so every blocking must give the plain sum.
        for n in [0usize, 1, 7, 8, 9, 127, 128, 129, 1000, 4099] {
            let a: Vec<f64> = (0..n).map(|i| ((i * 37) % 101) as f64).collect();
            let want: f64 = (0..n).map(|i| ((i * 37) % 101) as f64).sum();
            assert_eq!(pairwise_sum(&a), want, "n {n}");
        }
        // And it is not the sequential sum when rounding matters: 1 followed by 16 × 2⁻⁵³.
        let mut a = vec![1.0];
        a.extend([f64::EPSILON / 2.0; 16]);
        let seq: f64 = a.iter().fold(0.0, |s, v| s + v);
        assert_eq!(seq, 1.0);
        assert!(pairwise_sum(&a) > 1.0);
    }

    #[test]
    fn kahan_and_choice_checks() {
        assert_eq!(kahan_sum(&[]), 0.0);
        assert_eq!(kahan_sum(&[0.1; 10]), 1.0);
        let mut g = Generator::default_rng(3);
        let e = g.choice_p(&[0.5, 0.6], 3).unwrap_err().to_string();
        assert!(e.contains("sum of probabilities = 1.1"), "{e}");
        let e = g.choice_p(&[0.5, f64::NAN], 3).unwrap_err().to_string();
        assert!(e.contains("probability 1 is not finite"), "{e}");
        let e = g.choice_p(&[1.5, -0.5], 3).unwrap_err().to_string();
        assert!(e.contains("probability = -0.5") && e.contains("entry 1"), "{e}");
        assert!(g.choice_p(&[], 3).is_err());
        let e = g.integers(4, 4, 1).unwrap_err().to_string();
        assert!(e.contains("high = 4"), "{e}");
        // Zero-probability entries are never drawn, the last one included.
        let picks = g.choice_p(&[0.0, 0.25, 0.0, 0.75, 0.0], 10_000).unwrap();
        assert!(picks.iter().all(|&i| i == 1 || i == 3));
        let ones = picks.iter().filter(|&&i| i == 1).count();
        assert!((2_300..2_700).contains(&ones), "{ones}");
    }

    #[test]
    fn integers_stay_in_range_and_the_half_word_is_kept() {
        let mut g = Generator::default_rng(11);
        for (lo, hi) in [(0i64, 1i64), (-3, 4), (0, 1 << 32), (5, (1 << 40) + 3), (i64::MIN, i64::MAX)] {
            for v in g.integers(lo, hi, 500).unwrap() {
                assert!((lo..hi).contains(&v), "{v} not in {lo}..{hi}");
            }
        }
        let mut a = Pcg64::from_seed_and_stream(1, 2);
        let mut b = a.clone();
        let w = b.next_u64();
        assert_eq!((a.next_u32(), a.next_u32()), (w as u32, (w >> 32) as u32));
    }
}

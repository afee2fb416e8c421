//! numpy's `np.random.default_rng(seed)` in pure Rust, bit for bit (numpy 2.x): the one port of
//! numpy's generator in bozkir. `bozkir-world` draws its pyworldgen-compatible streams from it
//! (checked against numpy by `crates/world/tests/np_random_golden.rs`) and `bozkir-points` its
//! pyworldgen point samples (checked against numpy 2.4.6 by `crates/points/tests/pyworldgen.rs`).
//!
//! # Algorithm
//!
//! 1. **`SeedSequence`** ([`SeedSequence`]). A non-negative integer seed is split into 32-bit
//!    little-endian words (0 → `[0]`, [`seed_words`]). Each of the first 4 words (0 for missing
//!    ones) is hashed into a 4-word pool by `hashmix` (`v ← (w ⊕ h)·h'`, `h' = h·0x931e8875` kept
//!    as the next `h`, then `v ⊕ (v ≫ 16)`, from `h = 0x43b0d7e5`); then every pool word is mixed
//!    with the hash of every other (`mix(x, y) = (0xca01f9dd·x − 0x4973f715·y) ⊕ (… ≫ 16)`), and
//!    any words past the 4th are mixed into all of them. `generate_state(n)` cycles the pool:
//!    word `i` is `(pool[i mod 4] ⊕ h)·h'` with `h' = h·0x58f38ded` (from `h = 0x8b51f9dd`),
//!    then `⊕ ≫ 16`; a `uint64` state is two such words, low word first. All arithmetic wraps
//!    at 32 bits.
//! 2. **PCG64** ([`Pcg64`]). `generate_state(4, uint64)` gives `s0 s1 s2 s3`; the LCG's seed is
//!    `s0·2⁶⁴ + s1` and its stream `s2·2⁶⁴ + s3`. Seeding (`pcg_setseq_128_srandom`):
//!    `inc = 2·stream + 1`, `state = 0`, one step, `state += seed`, one step. A step is
//!    `state ← state·M + inc` (mod 2¹²⁸, `M = 0x2360ED051FC65DA44385DF649FCCF645`); an output is
//!    a step followed by XSL-RR: `rotr64(hi ⊕ lo, state ≫ 122)`. A 32-bit draw returns the low
//!    half of a fresh 64-bit output and keeps the high half for the next 32-bit draw (numpy's
//!    `has_uint32`/`uinteger` buffer); 64-bit draws neither use nor clear it, and it persists
//!    between [`Generator`] method calls.
//! 3. **`Generator`** ([`Generator`]).
//!    * `random()` is `(u64 ≫ 11)·2⁻⁵³`; `uniform(lo, hi)` is `lo + (hi − lo)·random()`.
//!    * `integers(low, high, size)` (int64, high excluded; [`Generator::integers`]) draws
//!      `low + bounded(high − low − 1)` ([`Generator::bounded_u64`], numpy's
//!      `random_bounded_uint64`, unmasked): ranges below `2³² − 1` by Lemire's multiply-shift on
//!      32-bit draws (`m = u·(r+1)`, rejected while `m mod 2³² < (2³² − r − 1) mod (r+1)`),
//!      exactly `2³² − 1` a raw 32-bit draw, `2⁶⁴ − 1` a raw 64-bit draw, others Lemire on
//!      64-bit draws with a 128-bit product.
//!    * `choice(n, size, p)` with replacement ([`Generator::choice_p`]): numpy checks `p` (no
//!      NaN, no negative entry, Kahan sum within `√ε` of 1), takes `cdf = cumsum(p)` (sequential
//!      additions), divides it by its last entry, draws `size` doubles with `random()` and
//!      returns for each `u` the number of `cdf` entries `≤ u` (`searchsorted(side='right')`).
//!    * `standard_normal()` ([`Generator::standard_normal`], numpy's 256-layer ziggurat): a
//!      64-bit word gives the layer `idx` (low 8 bits), then a sign bit and a 52-bit magnitude;
//!      `x = ±rabs·w[idx]` is accepted when `rabs < k[idx]`; otherwise the base layer samples the
//!      tail beyond r = 3.6541528853610088 (Marsaglia's exponential method with `log1p(−u)`), and
//!      the other layers accept when `f[idx] + (f[idx−1] − f[idx])·u < exp(−x²/2)`. The tables
//!      are numpy's own values (`numpy_rng/ziggurat.rs`).
//!
//! [`pairwise_sum`] is numpy's `add.reduce` of a contiguous `f64` array (its pairwise
//! summation); [`kahan_sum`] is the compensated sum `choice` checks `p` with.
//!
//! # Errors
//!
//! [`Generator::choice_p`] refuses what numpy refuses (empty `p`, NaN or negative entries, a sum
//! off 1 by more than `√ε`) and [`Generator::integers`] refuses `high ≤ low`, each with a
//! [`NumpyRngError`] naming the offending value. Nothing panics; everything is pure and
//! deterministic (`libm` for `exp` and `log1p`).

mod ziggurat;

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

/// The ziggurat's rightmost layer edge r.
pub const ZIGGURAT_R: f64 = 3.654_152_885_361_009;
/// `1/r`, as numpy writes it.
const ZIGGURAT_INV_R: f64 = 0.273_661_237_329_758_3;

/// Why a [`Generator`] method refused its arguments (what numpy raises `ValueError` for).
#[derive(Debug, Clone, PartialEq)]
pub enum NumpyRngError {
    /// `choice` got no probabilities (numpy: "a cannot be empty").
    EmptyProbabilities,
    /// Probability `index` is NaN.
    NanProbability {
        /// Its index in `p`.
        index: usize,
        /// The value (NaN).
        value: f64,
    },
    /// Probability `index` is negative.
    NegativeProbability {
        /// Its index in `p`.
        index: usize,
        /// The value.
        value: f64,
    },
    /// The Kahan sum of `p` is off 1 by more than `tolerance` (or NaN).
    ProbabilitySum {
        /// The Kahan sum.
        sum: f64,
        /// numpy's tolerance `√ε`.
        tolerance: f64,
    },
    /// `integers(low, high, …)` with `high ≤ low` (numpy: "low >= high").
    EmptyRange {
        /// The lower bound.
        low: i64,
        /// The excluded upper bound.
        high: i64,
    },
}

impl core::fmt::Display for NumpyRngError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            NumpyRngError::EmptyProbabilities => {
                write!(f, "Generator::choice_p: no probabilities (a cannot be empty)")
            }
            NumpyRngError::NanProbability { index, value } => {
                write!(f, "Generator::choice_p: probability {index} is not finite ({value})")
            }
            NumpyRngError::NegativeProbability { index, value } => {
                write!(f, "Generator::choice_p: probability = {value}: entry {index} must be non-negative")
            }
            NumpyRngError::ProbabilitySum { sum, tolerance } => {
                write!(f, "Generator::choice_p: sum of probabilities = {sum} is not within {tolerance:e} of 1")
            }
            NumpyRngError::EmptyRange { low, high } => {
                write!(f, "Generator::integers: high = {high} is not above low = {low} (numpy: low >= high)")
            }
        }
    }
}

impl std::error::Error for NumpyRngError {}

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

    /// PCG's `srandom(seed, stream)`: `inc = 2·stream + 1`, state 0, one step, add `seed`, one
    /// step.
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

    /// One 64-bit output (`random_raw()`): a step, then XSL-RR.
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

    /// `uniform(lo, hi)`: `lo + (hi − lo)·random()`, as numpy's `random_uniform` computes it
    /// (no check of the bounds, as numpy's own only refuses non-finite spans).
    #[inline]
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.random()
    }

    /// `choice(p.len(), size, replace=True, p=p)`: indices drawn with probabilities `p`, by
    /// numpy's inverse-CDF search (module doc, step 3). Refuses what numpy refuses.
    pub fn choice_p(&mut self, p: &[f64], size: usize) -> Result<Vec<usize>, NumpyRngError> {
        let cdf = choice_cdf(p)?;
        Ok((0..size).map(|_| search_right(&cdf, self.random())).collect())
    }

    /// `integers(low, high, size)` with numpy's defaults (int64, `high` excluded); refuses
    /// `high ≤ low`.
    pub fn integers(&mut self, low: i64, high: i64, size: usize) -> Result<Vec<i64>, NumpyRngError> {
        if high <= low {
            return Err(NumpyRngError::EmptyRange { low, high });
        }
        let range = (i128::from(high) - i128::from(low) - 1) as u64;
        Ok((0..size).map(|_| (low as u64).wrapping_add(self.bounded_u64(range)) as i64).collect())
    }

    /// A uniform integer in `0..=range` the way numpy's `random_bounded_uint64` draws it
    /// (unmasked; module doc, step 3). `range = 0` draws nothing.
    pub fn bounded_u64(&mut self, range: u64) -> u64 {
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

    /// `standard_normal()`: numpy's `random_standard_normal` ziggurat (module doc, step 3).
    pub fn standard_normal(&mut self) -> f64 {
        use ziggurat::{FI, KI, WI};
        loop {
            let r = self.bits.next_u64();
            let idx = (r & 0xff) as usize;
            let r = r >> 8;
            let rabs = (r >> 1) & 0x000f_ffff_ffff_ffff;
            let mut x = rabs as f64 * WI[idx];
            if r & 1 == 1 {
                x = -x;
            }
            if rabs < KI[idx] {
                return x;
            }
            if idx == 0 {
                return self.normal_tail(rabs);
            }
            if (FI[idx - 1] - FI[idx]) * self.random() + FI[idx] < libm::exp(-0.5 * x * x) {
                return x;
            }
        }
    }

    /// The tail beyond r: `xx = −ln(1−u₁)/r`, `yy = −ln(1−u₂)` until `2yy > xx²`; `±(r + xx)`
    /// with the sign from bit 8 of the magnitude.
    fn normal_tail(&mut self, rabs: u64) -> f64 {
        loop {
            let xx = -ZIGGURAT_INV_R * libm::log1p(-self.random());
            let yy = -libm::log1p(-self.random());
            if yy + yy > xx * xx {
                return if (rabs >> 8) & 1 == 1 { -(ZIGGURAT_R + xx) } else { ZIGGURAT_R + xx };
            }
        }
    }
}

/// numpy's checks on `choice`'s `p` and its normalised running sum `cumsum(p) / cumsum(p)[-1]`.
fn choice_cdf(p: &[f64]) -> Result<Vec<f64>, NumpyRngError> {
    if p.is_empty() {
        return Err(NumpyRngError::EmptyProbabilities);
    }
    if let Some((index, &value)) = p.iter().enumerate().find(|(_, v)| v.is_nan()) {
        return Err(NumpyRngError::NanProbability { index, value });
    }
    if let Some((index, &value)) = p.iter().enumerate().find(|(_, &v)| v < 0.0) {
        return Err(NumpyRngError::NegativeProbability { index, value });
    }
    let sum = kahan_sum(p);
    // numpy: `abs(kahan_sum(p) - 1.) > atol` with `atol = sqrt(finfo(float64).eps)`.
    let tolerance = f64::EPSILON.sqrt();
    if (sum - 1.0).abs() > tolerance || sum.is_nan() {
        return Err(NumpyRngError::ProbabilitySum { sum, tolerance });
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
fn search_right(cdf: &[f64], u: f64) -> usize {
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
mod tests;

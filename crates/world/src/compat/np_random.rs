//! numpy's `default_rng(seed)` (numpy 2.x, bit for bit): `SeedSequence(seed)` hashes the seed's
//! 32-bit words into a 4-word pool, `generate_state(4, uint64)` draws the 128-bit state and
//! increment of a PCG64 (128-bit LCG, XSL-RR output), and [`Generator`] turns its 64-bit outputs
//! into doubles, bounded integers (Lemire's method, with numpy's 32-bit path and the bit
//! generator's buffered upper half-word) and standard normals (numpy's 256-layer ziggurat).

mod ziggurat;

/// `SeedSequence` hash constants (numpy `bit_generator.pyx`).
const INIT_A: u32 = 0x43b0_d7e5;
const MULT_A: u32 = 0x931e_8875;
const INIT_B: u32 = 0x8b51_f9dd;
const MULT_B: u32 = 0x58f3_8ded;
const MIX_MULT_L: u32 = 0xca01_f9dd;
const MIX_MULT_R: u32 = 0x4973_f715;
const XSHIFT: u32 = 16;
/// The entropy pool size in 32-bit words.
const POOL_SIZE: usize = 4;

/// PCG64's 128-bit LCG multiplier.
pub const PCG_MULT: u128 = 0x2360_ED05_1FC6_5DA4_4385_DF64_9FCC_F645;

/// The ziggurat's rightmost layer edge r and 1/r.
const ZIG_R: f64 = 3.654_152_885_361_009;
const ZIG_INV_R: f64 = 0.273_661_237_329_758_3;

/// One step of the pool hash: `v = (value ^ h)·(h·A)`, `h ← h·A`, then `v ^ (v >> 16)`.
fn hashmix(value: u32, hash_const: &mut u32) -> u32 {
    let mut v = value ^ *hash_const;
    *hash_const = hash_const.wrapping_mul(MULT_A);
    v = v.wrapping_mul(*hash_const);
    v ^ (v >> XSHIFT)
}

/// Combine two pool words: `(L·x − R·y) ^ (… >> 16)`.
fn mix(x: u32, y: u32) -> u32 {
    let r = MIX_MULT_L.wrapping_mul(x).wrapping_sub(MIX_MULT_R.wrapping_mul(y));
    r ^ (r >> XSHIFT)
}

/// The 32-bit little-endian words of a non-negative integer, as numpy splits it (0 → `[0]`).
fn entropy_words(seed: u64) -> Vec<u32> {
    if seed >> 32 == 0 {
        vec![seed as u32]
    } else {
        vec![seed as u32, (seed >> 32) as u32]
    }
}

/// `SeedSequence(entropy).pool`: each word hashed into the pool, then every pool word mixed
/// with the hash of every other one, then any words beyond the pool mixed into all of them.
pub fn seed_sequence_pool(entropy: &[u32]) -> [u32; POOL_SIZE] {
    let mut h = INIT_A;
    let mut pool = [0u32; POOL_SIZE];
    for (i, p) in pool.iter_mut().enumerate() {
        *p = hashmix(entropy.get(i).copied().unwrap_or(0), &mut h);
    }
    for src in 0..POOL_SIZE {
        for dst in 0..POOL_SIZE {
            if src != dst {
                pool[dst] = mix(pool[dst], hashmix(pool[src], &mut h));
            }
        }
    }
    for &word in entropy.iter().skip(POOL_SIZE) {
        for p in pool.iter_mut() {
            *p = mix(*p, hashmix(word, &mut h));
        }
    }
    pool
}

/// `SeedSequence.generate_state(n, uint64)`: 2n words `w = (pool[i mod 4] ^ h)·(h·B)`,
/// `h ← h·B`, `w ^= w >> 16`, paired little-endian into 64-bit words.
pub fn generate_state_u64(pool: &[u32; POOL_SIZE], n: usize) -> Vec<u64> {
    let mut h = INIT_B;
    let words: Vec<u32> = (0..2 * n)
        .map(|i| {
            let mut v = pool[i % POOL_SIZE] ^ h;
            h = h.wrapping_mul(MULT_B);
            v = v.wrapping_mul(h);
            v ^ (v >> XSHIFT)
        })
        .collect();
    words.chunks(2).map(|w| w[0] as u64 | (w[1] as u64) << 32).collect()
}

/// numpy's `Generator` over a PCG64 bit generator, with the bit generator's one-word buffer
/// for 32-bit draws (`has_uint32`/`uinteger`), which persists between method calls.
#[derive(Debug, Clone)]
pub struct Generator {
    state: u128,
    inc: u128,
    buffered: Option<u32>,
}

impl Generator {
    /// `numpy.random.default_rng(seed)`. numpy refuses negative seeds; here a negative seed is
    /// taken as its two's complement, `seed mod 2⁶⁴` (so −1 gives `default_rng(2**64 - 1)`),
    /// which keeps the trait infallible. pyworldgen only passes non-negative seeds.
    pub fn default_rng(seed: i64) -> Self {
        Self::from_u64(seed as u64)
    }

    /// `numpy.random.default_rng(seed)` for any `seed` in [0, 2⁶⁴).
    pub fn from_u64(seed: u64) -> Self {
        let pool = seed_sequence_pool(&entropy_words(seed));
        let s = generate_state_u64(&pool, 4);
        Self::from_pcg_seed((s[0] as u128) << 64 | s[1] as u128, (s[2] as u128) << 64 | s[3] as u128)
    }

    /// PCG64 seeded as `pcg_setseq_128_srandom`: `inc = 2·initseq + 1`, state 0, one step,
    /// add `initstate`, one step.
    pub fn from_pcg_seed(initstate: u128, initseq: u128) -> Self {
        let mut g = Generator { state: 0, inc: initseq << 1 | 1, buffered: None };
        g.step();
        g.state = g.state.wrapping_add(initstate);
        g.step();
        g
    }

    #[inline]
    fn step(&mut self) {
        self.state = self.state.wrapping_mul(PCG_MULT).wrapping_add(self.inc);
    }

    /// The next 64-bit output: step the LCG, then XSL-RR: `rotr(hi ^ lo, state >> 122)`.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.step();
        let s = self.state;
        ((s >> 64) as u64 ^ s as u64).rotate_right((s >> 122) as u32)
    }

    /// The next 32-bit output: the buffered upper half of the last 64-bit word drawn for 32 bits,
    /// else the lower half of a fresh word (whose upper half is buffered).
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        if let Some(u) = self.buffered.take() {
            return u;
        }
        let n = self.next_u64();
        self.buffered = Some((n >> 32) as u32);
        n as u32
    }

    /// Uniform double in [0, 1): `(next_u64 >> 11) · 2⁻⁵³`.
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `Generator.integers(low, high)` (int64, `high` exclusive): `low + bounded(high − low − 1)`.
    /// An empty range returns `low` without drawing, which numpy would refuse.
    pub fn integers_range(&mut self, low: i64, high: i64) -> i64 {
        if high <= low {
            return low;
        }
        let rng = (high as i128 - low as i128 - 1) as u64;
        (low as u64).wrapping_add(self.bounded_u64(rng)) as i64
    }

    /// A uniform integer in [0, rng] as numpy's `random_bounded_uint64_fill` draws one: ranges
    /// that fit 32 bits use 32-bit draws (Lemire's multiply-shift with rejection, or the raw
    /// word when rng = 2³² − 1), wider ones 64-bit Lemire.
    pub fn bounded_u64(&mut self, rng: u64) -> u64 {
        if rng == 0 {
            0
        } else if rng < u32::MAX as u64 {
            self.lemire_u32(rng as u32) as u64
        } else if rng == u32::MAX as u64 {
            self.next_u32() as u64
        } else if rng == u64::MAX {
            self.next_u64()
        } else {
            self.lemire_u64(rng)
        }
    }

    /// Lemire's method on 32 bits: `m = u·(rng+1)`; reject while `m mod 2³² < 2³² mod (rng+1)`.
    fn lemire_u32(&mut self, rng: u32) -> u32 {
        let excl = rng + 1;
        let mut m = self.next_u32() as u64 * excl as u64;
        if (m as u32) < excl {
            let threshold = (u32::MAX - rng) % excl;
            while (m as u32) < threshold {
                m = self.next_u32() as u64 * excl as u64;
            }
        }
        (m >> 32) as u32
    }

    /// Lemire's method on 64 bits with a 128-bit product.
    fn lemire_u64(&mut self, rng: u64) -> u64 {
        let excl = rng + 1;
        let mut m = self.next_u64() as u128 * excl as u128;
        if (m as u64) < excl {
            let threshold = (u64::MAX - rng) % excl;
            while (m as u64) < threshold {
                m = self.next_u64() as u128 * excl as u128;
            }
        }
        (m >> 64) as u64
    }

    /// numpy's `random_standard_normal`: a 64-bit word gives layer `idx` (8 bits), a sign bit and
    /// a 52-bit magnitude; `x = ±rabs·w[idx]` is accepted when `rabs < k[idx]`; otherwise the base
    /// layer samples the tail beyond r (Marsaglia's exponential method, with `log1p(−u)`), and the
    /// other layers accept when `f[idx] + (f[idx−1] − f[idx])·u < exp(−x²/2)`.
    pub fn standard_normal(&mut self) -> f64 {
        use ziggurat::{FI, KI, WI};
        loop {
            let r = self.next_u64();
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
            if (FI[idx - 1] - FI[idx]) * self.next_f64() + FI[idx] < libm::exp(-0.5 * x * x) {
                return x;
            }
        }
    }

    /// The tail beyond r: `xx = −ln(1−u₁)/r`, `yy = −ln(1−u₂)` until `2yy > xx²`; `±(r + xx)`
    /// with the sign from bit 8 of the magnitude.
    fn normal_tail(&mut self, rabs: u64) -> f64 {
        loop {
            let xx = -ZIG_INV_R * libm::log1p(-self.next_f64());
            let yy = -libm::log1p(-self.next_f64());
            if yy + yy > xx * xx {
                return if (rabs >> 8) & 1 == 1 { -(ZIG_R + xx) } else { ZIG_R + xx };
            }
        }
    }
}

impl crate::random::Draws for Generator {
    fn random(&mut self) -> f64 {
        self.next_f64()
    }
    /// `lo + (hi − lo)·random()`, as numpy's `random_uniform` computes it.
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next_f64()
    }
    /// `integers(n)` = `integers(0, n)`; `n < 1` returns 0 without drawing (numpy raises).
    fn integers(&mut self, n: i64) -> i64 {
        self.integers_range(0, n)
    }
    fn normal(&mut self) -> f64 {
        self.standard_normal()
    }
    /// `choice(list)` draws `integers(0, len)`; an empty list returns 0 without drawing.
    fn choice(&mut self, n: usize) -> usize {
        self.integers_range(0, n.min(i64::MAX as usize) as i64) as usize
    }
}

#[cfg(test)]
mod tests;

//! Python's `random.Random` (CPython 3.11), the stream pyworldgen's chunk passes draw from
//! (`core/rng.py`: `make_rng(world seed, chunk coordinate, pass name)`).
//!
//! * The generator is MT19937 (Matsumoto & Nishimura 1998) seeded by `init_by_array` with the
//!   seed's absolute value cut into 32-bit words, least significant first (one word for 0).
//! * `getrandbits(k)`, `k ≤ 32`: the next output shifted right by `32 − k`.
//! * `randrange(n)`: `k = bit_length(n)`, draw `getrandbits(k)` until it is below `n`.
//! * `random()`: `(a >> 5, b >> 6)` of two outputs as `(a·2²⁶ + b) / 2⁵³`.
//! * [`derive_seed`]: pyworldgen's `derive_seed(*values)`: each value's `repr` hashed by its
//!   FNV-1a (`% 100000`), then the high word `hashi(*ints, seed=0x9E3779B9)` and the low word
//!   `hashi(*ints, seed=0x85EBCA6B)` of its integer hash.

use super::pwg_hash;

const N: usize = 624;
const M: usize = 397;

/// CPython's `random.Random`.
#[derive(Clone)]
pub struct PyRandom {
    mt: [u32; N],
    i: usize,
}

impl std::fmt::Debug for PyRandom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PyRandom").field("i", &self.i).finish_non_exhaustive()
    }
}

impl PyRandom {
    /// `random.Random(seed)` for an integer seed (its absolute value is used, as CPython does).
    pub fn new(seed: i128) -> Self {
        let mut n = seed.unsigned_abs();
        let mut key = Vec::new();
        loop {
            key.push(n as u32);
            n >>= 32;
            if n == 0 {
                break;
            }
        }
        Self::from_key(&key)
    }

    fn from_key(key: &[u32]) -> Self {
        let mut mt = [0u32; N];
        mt[0] = 19_650_218;
        for i in 1..N {
            mt[i] = 1_812_433_253u32.wrapping_mul(mt[i - 1] ^ (mt[i - 1] >> 30)).wrapping_add(i as u32);
        }
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            mt[i] = (mt[i] ^ (mt[i - 1] ^ (mt[i - 1] >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            mt[i] = (mt[i] ^ (mt[i - 1] ^ (mt[i - 1] >> 30)).wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
        }
        mt[0] = 0x8000_0000;
        Self { mt, i: N }
    }

    fn twist(&mut self) {
        for k in 0..N {
            let y = (self.mt[k] & 0x8000_0000) | (self.mt[(k + 1) % N] & 0x7fff_ffff);
            let mag = if y & 1 == 1 { 0x9908_b0df } else { 0 };
            self.mt[k] = self.mt[(k + M) % N] ^ (y >> 1) ^ mag;
        }
        self.i = 0;
    }

    /// The next 32-bit output (`genrand_uint32`).
    pub fn next_u32(&mut self) -> u32 {
        if self.i >= N {
            self.twist();
        }
        let mut y = self.mt[self.i];
        self.i += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `getrandbits(k)` for `1 ≤ k ≤ 32`.
    pub fn getrandbits(&mut self, k: u32) -> u32 {
        assert!((1..=32).contains(&k), "getrandbits({k})");
        self.next_u32() >> (32 - k)
    }

    /// `randrange(n)` for `1 ≤ n ≤ 2³²`: uniform in `0..n` by rejection.
    pub fn randrange(&mut self, n: u64) -> u64 {
        assert!((1..=1u64 << 32).contains(&n), "randrange({n})");
        let k = 64 - n.leading_zeros();
        loop {
            let r = if k > 32 { u64::from(self.next_u32()) } else { u64::from(self.getrandbits(k)) };
            if r < n {
                return r;
            }
        }
    }

    /// `random()`: a double in `[0, 1)` with 53 random bits.
    pub fn random(&mut self) -> f64 {
        let a = self.next_u32() >> 5;
        let b = self.next_u32() >> 6;
        (f64::from(a) * 67_108_864.0 + f64::from(b)) * (1.0 / 9_007_199_254_740_992.0)
    }
}

/// One value of pyworldgen's `derive_seed`, by its Python `repr`.
#[derive(Debug, Clone, Copy)]
pub enum Repr<'a> {
    /// An integer (`repr` is its decimal digits).
    Int(i64),
    /// A tuple of three integers (`"(x, y, z)"`).
    Triple(i64, i64, i64),
    /// A string (`repr` is `'…'`; the names used here hold no quote or backslash).
    Str(&'a str),
}

/// pyworldgen's `derive_seed(*values)`, a 64-bit seed.
pub fn derive_seed(values: &[Repr]) -> u64 {
    let ints: Vec<i64> = values
        .iter()
        .map(|v| {
            let r = match v {
                Repr::Int(i) => i.to_string(),
                Repr::Triple(x, y, z) => format!("({x}, {y}, {z})"),
                Repr::Str(s) => format!("'{s}'"),
            };
            i64::from(crate::seed::pyworldgen_fnv1a(&r))
        })
        .collect();
    let hi = pwg_hash::hash_u32(&ints, 0x9E37_79B9);
    let lo = pwg_hash::hash_u32(&ints, 0x85EB_CA6B);
    (u64::from(hi) << 32) | u64::from(lo)
}

/// pyworldgen's `make_rng(world_seed, (cx, cy, cz), pass_name)`: the stream of one pass in one
/// chunk.
pub fn chunk_pass_rng(world_seed: i64, chunk: (i64, i64, i64), pass: &str) -> PyRandom {
    let s = derive_seed(&[Repr::Int(world_seed), Repr::Triple(chunk.0, chunk.1, chunk.2), Repr::Str(pass)]);
    PyRandom::new(i128::from(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Printed by CPython 3.11 with pyworldgen 0.1.8 installed: `derive_seed(...)`, and per seed
    /// three `getrandbits(32)`, five `randrange(16)`, one `randrange(1000003)`, `random().hex()`.
    #[test]
    fn pinned_against_cpython() {
        assert_eq!(
            derive_seed(&[Repr::Int(12345), Repr::Triple(0, 0, 0), Repr::Str("features")]),
            2_529_542_383_430_838_734
        );
        assert_eq!(
            derive_seed(&[Repr::Int(7), Repr::Triple(-1, 2, -3), Repr::Str("features")]),
            11_303_345_823_696_530_601
        );
        let cases: [(i128, [u32; 3], [u64; 5], u64); 7] = [
            (0, [3626764237, 1654615998, 3255389356], [13, 1, 8, 15, 12], 962838),
            (1, [577090037, 2444712010, 3639700191], [2, 8, 3, 15, 14], 495185),
            (5489, [3382763572, 956215839, 417760592], [1, 11, 2, 12, 0], 908585),
            (4294967295, [2728839433, 2661025012, 872737089], [6, 9, 10, 12, 8], 372333),
            (4294967296, [485306839, 1508871100, 1794561286], [0, 0, 10, 14, 0], 144792),
            (9223372036854788153, [1308997459, 1668775168, 912389232], [4, 9, 7, 0, 10], 741316),
            (2529542383430838734, [3727673553, 2623149306, 3749465336], [2, 13, 13, 13, 9], 518956),
        ];
        let hexes = [
            "0x1.914e0c751c4f5p-1",
            "0x1.4d9d98184b9dap-1",
            "0x1.354f90464076ap-2",
            "0x1.cb7caa5fd2890p-1",
            "0x1.365e85a30d0a8p-4",
            "0x1.a1315629c28c6p-1",
            "0x1.acd35ddfac90bp-1",
        ];
        for ((seed, bits, ranges, big), hex) in cases.into_iter().zip(hexes) {
            let mut r = PyRandom::new(seed);
            assert_eq!([r.getrandbits(32), r.getrandbits(32), r.getrandbits(32)], bits, "seed {seed}");
            let got: Vec<u64> = (0..5).map(|_| r.randrange(16)).collect();
            assert_eq!(got, ranges, "seed {seed}");
            assert_eq!(r.randrange(1_000_003), big, "seed {seed}");
            assert_eq!(r.random(), parse_hex(hex), "seed {seed}");
        }
        assert_eq!(PyRandom::new(-5).next_u32(), PyRandom::new(5).next_u32());
    }

    /// A Python float hex literal `0x1.<13 hex digits>p<exp>`.
    fn parse_hex(s: &str) -> f64 {
        let (mant, exp) = s.trim_start_matches("0x1.").split_once('p').unwrap();
        let m = u64::from_str_radix(mant, 16).unwrap();
        let e: i32 = exp.parse().unwrap();
        (1.0 + m as f64 / (1u64 << 52) as f64) * 2f64.powi(e)
    }
}

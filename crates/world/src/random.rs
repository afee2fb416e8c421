//! Randomness behind one interface, so each generator is written once and draws either from
//! pyworldgen's sources (the same world as the peer) or from our canonical hash.
//!
//! * [`Noise`] — hashed value noise on integer lattices and its fBM.
//! * [`Draws`] — a sequential generator (numpy's `Generator` in the compatibility path).
//! * [`Randomness`] — a factory for both, picked by [`Compat`](crate::Compat).

/// Lattice value noise and its fractal sums, as pyworldgen's `core/hash.py` defines them:
/// `fbm2` in [0, 1], `signed_fbm2 = 2·fbm2 − 1`, `ridged_fbm2 = |signed_fbm2|`.
pub trait Noise: Sync {
    /// Hash of integer coordinates to [0, 1).
    fn hashf2(&self, i: i64, j: i64, seed: i64) -> f64;
    /// Hash of three integer coordinates to [0, 1).
    fn hashf3(&self, i: i64, j: i64, k: i64, seed: i64) -> f64;

    /// Bilinear value noise with smoothstep weights, in [0, 1].
    fn value_noise2(&self, x: f64, y: f64, seed: i64) -> f64 {
        let (xf, yf) = (x.floor(), y.floor());
        let (xi, yi) = (xf as i64, yf as i64);
        let (u, v) = (smooth(x - xf), smooth(y - yf));
        let c00 = self.hashf2(xi, yi, seed);
        let c10 = self.hashf2(xi.wrapping_add(1), yi, seed);
        let c01 = self.hashf2(xi, yi.wrapping_add(1), seed);
        let c11 = self.hashf2(xi.wrapping_add(1), yi.wrapping_add(1), seed);
        let x0 = c00 + (c10 - c00) * u;
        let x1 = c01 + (c11 - c01) * u;
        x0 + (x1 - x0) * v
    }

    /// fBM of [`Noise::value_noise2`] in [0, 1]: octave `o` at frequency 2^o, amplitude
    /// 0.5^(o+1), seed `seed + 1013·o`, normalised by the amplitude sum.
    fn fbm2(&self, x: f64, y: f64, octaves: u32, seed: i64) -> f64 {
        let (mut total, mut amp, mut freq, mut norm) = (0.0, 0.5, 1.0, 0.0);
        for o in 0..octaves as i64 {
            total += amp * self.value_noise2(x * freq, y * freq, seed.wrapping_add(o * 1013));
            norm += amp;
            freq *= 2.0;
            amp *= 0.5;
        }
        total / f64::max(norm, 1e-9)
    }

    /// `2·fbm2 − 1`, in [−1, 1].
    fn signed_fbm2(&self, x: f64, y: f64, octaves: u32, seed: i64) -> f64 {
        self.fbm2(x, y, octaves, seed) * 2.0 - 1.0
    }

    /// `|signed_fbm2|`: values near 0 are ridge centres.
    fn ridged_fbm2(&self, x: f64, y: f64, octaves: u32, seed: i64) -> f64 {
        self.signed_fbm2(x, y, octaves, seed).abs()
    }

    /// Trilinear value noise with smoothstep weights, in [0, 1]: x first, then y, then z, in
    /// pyworldgen's order of operations.
    fn value_noise3(&self, x: f64, y: f64, z: f64, seed: i64) -> f64 {
        let (xf, yf, zf) = (x.floor(), y.floor(), z.floor());
        let (xi, yi, zi) = (xf as i64, yf as i64, zf as i64);
        let (u, v, w) = (smooth(x - xf), smooth(y - yf), smooth(z - zf));
        let c = |dx: i64, dy: i64, dz: i64| {
            self.hashf3(xi.wrapping_add(dx), yi.wrapping_add(dy), zi.wrapping_add(dz), seed)
        };
        let lerp_x = |dy: i64, dz: i64| {
            let c0 = c(0, dy, dz);
            c0 + (c(1, dy, dz) - c0) * u
        };
        let (x00, x10, x01, x11) = (lerp_x(0, 0), lerp_x(1, 0), lerp_x(0, 1), lerp_x(1, 1));
        let y0 = x00 + (x10 - x00) * v;
        let y1 = x01 + (x11 - x01) * v;
        y0 + (y1 - y0) * w
    }

    /// fBM of [`Noise::value_noise3`] in [0, 1], octaves as [`Noise::fbm2`].
    fn fbm3(&self, x: f64, y: f64, z: f64, octaves: u32, seed: i64) -> f64 {
        let (mut total, mut amp, mut freq, mut norm) = (0.0, 0.5, 1.0, 0.0);
        for o in 0..octaves as i64 {
            total += amp * self.value_noise3(x * freq, y * freq, z * freq, seed.wrapping_add(o * 1013));
            norm += amp;
            freq *= 2.0;
            amp *= 0.5;
        }
        total / f64::max(norm, 1e-9)
    }

    /// `2·fbm3 − 1`, in [−1, 1].
    fn signed_fbm3(&self, x: f64, y: f64, z: f64, octaves: u32, seed: i64) -> f64 {
        self.fbm3(x, y, z, octaves, seed) * 2.0 - 1.0
    }

    /// `|signed_fbm3|`.
    fn ridged_fbm3(&self, x: f64, y: f64, z: f64, octaves: u32, seed: i64) -> f64 {
        self.signed_fbm3(x, y, z, octaves, seed).abs()
    }
}

/// The smoothstep weight `t²(3 − 2t)`.
#[inline]
pub fn smooth(t: f64) -> f64 {
    t * t * (3.0 - 2.0 * t)
}

/// A sequential generator with numpy `Generator`'s vocabulary. In the compatibility path every
/// method consumes the underlying stream exactly as numpy 1.x/2.x does.
pub trait Draws {
    /// Uniform in [0, 1) (`Generator.random()`).
    fn random(&mut self) -> f64;
    /// Uniform in [lo, hi) (`Generator.uniform(lo, hi)`).
    fn uniform(&mut self, lo: f64, hi: f64) -> f64;
    /// Uniform integer in [0, n) (`Generator.integers(n)`, int64). `n` ≥ 1.
    fn integers(&mut self, n: i64) -> i64;
    /// Standard normal (`Generator.normal()` / `standard_normal()`).
    fn normal(&mut self) -> f64;
    /// Index of a uniformly chosen element of a list of `n` (`Generator.choice(list)`).
    fn choice(&mut self, n: usize) -> usize;

    /// Standard gamma of `shape` > 1 (`Generator.standard_gamma`): Marsaglia and Tsang's method
    /// as numpy writes it — `b = shape − ⅓`, `c = 1/√(9b)`; draw normals x until `v = 1 + c·x`
    /// is positive, cube it, draw u; accept `b·v` when `u < 1 − 0.0331·x⁴` or
    /// `ln u < x²/2 + b·(1 − v + ln v)`. Shapes ≤ 1 return NaN (not needed here).
    fn standard_gamma(&mut self, shape: f64) -> f64 {
        if shape.is_nan() || shape <= 1.0 {
            return f64::NAN;
        }
        let b = shape - 1.0 / 3.0;
        let c = 1.0 / (9.0 * b).sqrt();
        loop {
            let (mut x, mut v);
            loop {
                x = self.normal();
                v = 1.0 + c * x;
                if v > 0.0 {
                    break;
                }
            }
            v = v * v * v;
            let u = self.random();
            if u < 1.0 - 0.0331 * (x * x) * (x * x) {
                return b * v;
            }
            if libm::log(u) < 0.5 * x * x + b * (1.0 - v + libm::log(v)) {
                return b * v;
            }
        }
    }

    /// Beta(a, b) for a or b above 1 (`Generator.beta`): `Ga / (Ga + Gb)` with two standard
    /// gammas, a's first.
    fn beta(&mut self, a: f64, b: f64) -> f64 {
        let ga = self.standard_gamma(a);
        let gb = self.standard_gamma(b);
        ga / (ga + gb)
    }
}

/// A source of [`Noise`] and [`Draws`], chosen by [`Compat`](crate::Compat).
pub trait Randomness: Sync {
    /// The lattice noise.
    fn noise(&self) -> &dyn Noise;
    /// A fresh generator for the integer seed `seed` (numpy's `default_rng(seed)` in the
    /// compatibility path).
    fn draws(&self, seed: i64) -> Box<dyn Draws>;
}

/// Our canonical randomness: `core::hash` lattice values and `core::rng` streams.
#[derive(Debug, Clone, Copy, Default)]
pub struct Canonical;

/// Fold a 64-bit seed into the canonical hash's 32-bit seed word.
fn fold(seed: i64) -> u32 {
    let s = seed as u64;
    (s ^ (s >> 32)) as u32
}

impl Noise for Canonical {
    fn hashf2(&self, i: i64, j: i64, seed: i64) -> f64 {
        bozkir_core::hash::hash_unit(i as u32, j as u32, fold(seed))
    }
    fn hashf3(&self, i: i64, j: i64, k: i64, seed: i64) -> f64 {
        bozkir_core::hash::hash3_unit(i as u32, j as u32, k as u32, fold(seed))
    }
}

/// [`Draws`] over `core::rng::Rng`.
#[derive(Debug, Clone)]
pub struct CanonicalDraws(bozkir_core::rng::Rng);

impl Draws for CanonicalDraws {
    fn random(&mut self) -> f64 {
        self.0.next_f64()
    }
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.0.next_f64()
    }
    fn integers(&mut self, n: i64) -> i64 {
        assert!(n >= 1, "integers({n})");
        if n <= u32::MAX as i64 {
            self.0.below(n as u32) as i64
        } else {
            (self.0.next_u64() % n as u64) as i64
        }
    }
    fn normal(&mut self) -> f64 {
        self.0.standard_normal()
    }
    fn choice(&mut self, n: usize) -> usize {
        self.integers(n as i64) as usize
    }
}

impl Randomness for Canonical {
    fn noise(&self) -> &dyn Noise {
        self
    }
    fn draws(&self, seed: i64) -> Box<dyn Draws> {
        let s = seed as u64;
        Box::new(CanonicalDraws(bozkir_core::rng::Rng::with_stream(fold(seed), (s >> 32) as u32 ^ 0xD7A5)))
    }
}

/// The randomness for a [`Compat`](crate::Compat) choice.
pub fn for_compat(compat: crate::Compat) -> &'static dyn Randomness {
    match compat {
        crate::Compat::Pyworldgen => &crate::compat::Pyworldgen,
        crate::Compat::Canonical => &Canonical,
    }
}

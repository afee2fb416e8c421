//! Ridged multifractal noise: creased crests and connected ridge systems.
//!
//! Musgrave's ridged multifractal (Musgrave, "Procedural fractal terrains", in Ebert et al.,
//! *Texturing and Modeling*, 3rd ed. 2003, ch. 16, `RidgedMultifractal`); seed 001 §3.2.
//! Each octave folds gradient noise `n` into a ridge, `signal = (offset − |n|)²`: where `n`
//! crosses zero the fold makes a sharp crest. With `weighted` on, every octave after the first
//! is multiplied by a *weight* taken from the previous octave,
//! `weight = clamp(previous_signal · weight_gain, 0, 1)` (the previous signal already includes
//! its own weight). Detail therefore accumulates on the crests, where the previous signal is
//! high, and dies out in the valleys, where it is low — the heterogeneity that makes ranges read
//! as ranges rather than as a field of mounds.
//!
//! Amplitude of octave `k` is `gainᵏ` (Musgrave writes it `lacunarity^(−k·H)`; the defaults
//! `gain = 0.5`, `lacunarity = 2` are his `H = 1`). The sum is divided by `Σ|gainᵏ|`, so for
//! `offset ≥ 0` the result lies in `[0, max(offset, 1 − offset)²]`: `[0, 1]` at the default
//! offset 1. Octave `k` uses seed `seed·1013 + 7919 + k` (wrapping), as the original bozkır
//! generator's `ridged`; with `weighted = false` and `offset = 1` this is that simplified
//! ridged fractal (up to the original computing `|n|` as `|2v − 1|` from `v = n·0.5 + 0.5`).

use super::gradient::gradient;

/// Parameters of [`ridged`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RidgedParams {
    /// Number of octaves; 0 is treated as 1. Default 6.
    pub octaves: u32,
    /// Frequency of the first octave in lattice cells per input unit. Default 1.0.
    pub frequency: f64,
    /// Frequency ratio between successive octaves. Default 2.0.
    pub lacunarity: f64,
    /// Amplitude ratio between successive octaves. Default 0.5.
    pub gain: f64,
    /// Ridge offset: `signal = (offset − |n|)²`. 1 puts the crest at `n = 0` with height 1.
    /// Default 1.0.
    pub offset: f64,
    /// Musgrave's "gain": multiplier from the previous octave's signal to this octave's weight.
    /// Larger values let detail spread further down the flanks. Default 2.0.
    pub weight_gain: f64,
    /// Apply the weight feedback. `false` gives the plain (unweighted) ridged fractal.
    /// Default true.
    pub weighted: bool,
    /// Seed; octave `k` uses `seed·1013 + 7919 + k`. Default 0.
    pub seed: u32,
}

impl Default for RidgedParams {
    fn default() -> Self {
        Self {
            octaves: 6,
            frequency: 1.0,
            lacunarity: 2.0,
            gain: 0.5,
            offset: 1.0,
            weight_gain: 2.0,
            weighted: true,
            seed: 0,
        }
    }
}

/// Seed of ridged octave `k` under `seed`: `seed·1013 + 7919 + k`, wrapping.
#[inline(always)]
pub const fn ridged_octave_seed(seed: u32, k: u32) -> u32 {
    seed.wrapping_mul(1013).wrapping_add(7919).wrapping_add(k)
}

/// Ridged multifractal at `(x, y)` (input units); in `[0, 1]` at the default offset.
#[inline]
pub fn ridged(p: &RidgedParams, x: f64, y: f64) -> f64 {
    let mut sum = 0.0;
    let mut norm = 0.0;
    let mut amp = 1.0;
    let mut f = p.frequency;
    let mut weight = 1.0;
    for k in 0..p.octaves.max(1) {
        let n = gradient(x * f, y * f, ridged_octave_seed(p.seed, k));
        let mut signal = p.offset - n.abs();
        signal *= signal;
        if p.weighted {
            signal *= weight;
            weight = (signal * p.weight_gain).clamp(0.0, 1.0);
        }
        sum += amp * signal;
        norm += f64::abs(amp);
        amp *= p.gain;
        f *= p.lacunarity;
    }
    sum / norm
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn pinned_value() {
        // Python big-integer hash + float64, same order of operations.
        let p = RidgedParams { octaves: 5, frequency: 0.25, seed: 3, ..Default::default() };
        assert_eq!(ridged(&p, 10.3, 4.4).to_bits(), PINNED.to_bits());
        let q = RidgedParams { weighted: false, ..p };
        assert_eq!(ridged(&q, 10.3, 4.4).to_bits(), PINNED_UNWEIGHTED.to_bits());
    }
    const PINNED: f64 = 0.747048329245419;
    const PINNED_UNWEIGHTED: f64 = 0.752572101616851;

    #[test]
    fn crest_on_zero_crossings_and_bounds() {
        // One octave at a lattice point: n = 0, so the signal is offset² = 1, the maximum.
        let one = RidgedParams { octaves: 1, ..Default::default() };
        assert_eq!(ridged(&one, 3.0, -7.0), 1.0);
        let p = RidgedParams::default();
        let mut r = Rng::new(4);
        let mut mean = 0.0;
        for _ in 0..20_000 {
            let v = ridged(&p, r.range(-300.0, 300.0), r.range(-300.0, 300.0));
            assert!((0.0..=1.0).contains(&v), "{v}");
            mean += v / 20_000.0;
        }
        assert!(mean > 0.1 && mean < 0.9, "mean {mean}");
        let wide = RidgedParams { offset: 1.5, weighted: false, ..p };
        for k in 0..1000 {
            let v = ridged(&wide, k as f64 * 0.77, k as f64 * 0.13);
            assert!((0.25..=2.25).contains(&v));
        }
    }

    #[test]
    fn weights_only_remove_detail() {
        // Weights are in [0, 1], so the weighted sum never exceeds the unweighted one.
        let w = RidgedParams::default();
        let u = RidgedParams { weighted: false, ..w };
        let mut r = Rng::new(12);
        let mut strictly_less = 0;
        for _ in 0..5000 {
            let (x, y) = (r.range(-50.0, 50.0), r.range(-50.0, 50.0));
            let (a, b) = (ridged(&w, x, y), ridged(&u, x, y));
            assert!(a <= b + 1e-15);
            if a < b - 1e-9 {
                strictly_less += 1;
            }
        }
        assert!(strictly_less > 2500);
    }
}

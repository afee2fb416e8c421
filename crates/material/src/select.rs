//! Hybrid Gaussian Wang Tiles selection with the coverage computed from the terrain.
//!
//! Hybrid GSWT picks a class per splat with `P̃_c(x, u) = P_c(u)^(1/α_c(x))`,
//! `c* = argmax_c P̃_c`, where `P_c(u)` is a per-splat priority in (0, 1) and `α_c(x)` a
//! target-coverage field that people normally paint. For independent uniform priorities this
//! picks class `c` with probability `α_c / Σα` (the maximum of `U_c^(1/α_c)` is a weighted
//! draw). bozkir computes `α` from the ground ([`coverage`]).
//!
//! The viewer's hard decision ([`crate::classify()`]) adds a per-splat dissolve at undecided
//! cells: a cell with blend mix `m` (see [`crate::classify::blend_mix`]) draws the splats of its
//! own tile whose priority is `≤ m` and the splats of the runner-up tile whose priority is
//! `≤ 1 − m`. The priority is [`splat_priority`], a pure function of the splat's index in its
//! tile, written in 32-bit wrapping integer arithmetic so a GPU shader, JavaScript
//! (`Math.imul`) and Rust compute the same bits; the pinned vectors below are the contract.

use crate::classify::{scores, CueMaps};
use crate::rule::{Rule, RuleError};
use bozkir_core::hash::hash_u32;

/// Per-splat priority in `[0, 1)`: the PCG-style output permutation of the index, in `u32`
/// wrapping arithmetic:
/// `h = i·747796405 + 2891336453; h = ((h >> ((h >> 28) + 4)) ^ h)·277803737; (h >> 22) ^ h`,
/// divided by 2³².
pub fn splat_priority(index: u32) -> f64 {
    let h = index.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
    let h = ((h >> ((h >> 28) + 4)) ^ h).wrapping_mul(277_803_737);
    f64::from((h >> 22) ^ h) / 4_294_967_296.0
}

/// Whether splat `index` of a tile is drawn at `threshold` (its own tile: the cell's blend mix;
/// the runner-up's tile: `1 − mix`).
pub fn splat_drawn(index: u32, threshold: f64) -> bool {
    splat_priority(index) <= threshold
}

/// Hybrid GSWT's soft target coverage α per class and cell: `max(0, score_c)^sharpness`,
/// normalised to sum to 1 in each cell (equal shares where every score is 0).
pub fn coverage(
    maps: &CueMaps,
    rule: &Rule,
    classes: usize,
    altitude: f64,
    sharpness: f64,
) -> Result<Vec<Vec<f64>>, RuleError> {
    let s = scores(maps, rule, classes, altitude)?;
    let nn = maps.slope.len();
    let mut a: Vec<Vec<f64>> = s.iter().map(|c| c.iter().map(|&v| v.max(0.0).powf(sharpness)).collect()).collect();
    for i in 0..nn {
        let sum: f64 = a.iter().map(|c| c[i]).sum();
        for c in a.iter_mut() {
            c[i] = if sum > 0.0 { c[i] / sum } else { 1.0 / classes as f64 };
        }
    }
    Ok(a)
}

/// Priority of splat `index` for class `class` under `seed`, in (0, 1): independent across
/// classes, from the canonical hash.
pub fn class_priority(index: u32, class: u32, seed: u32) -> f64 {
    (f64::from(hash_u32(index, class, seed)) + 0.5) / 4_294_967_296.0
}

/// Hybrid GSWT's pick for one splat: `argmax_c P_c^(1/α_c)` (compared as `ln P_c / α_c`; a class
/// with `α_c = 0` never wins unless all are 0, then class 0). Ties go to the lower class.
pub fn hybrid_select(alpha: &[f64], index: u32, seed: u32) -> usize {
    let mut best = 0;
    let mut best_v = f64::NEG_INFINITY;
    for (c, &a) in alpha.iter().enumerate() {
        if a <= 0.0 {
            continue;
        }
        let v = class_priority(index, c as u32, seed).ln() / a;
        if v > best_v {
            best_v = v;
            best = c;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splat_priority_pinned_vectors() {
        // Computed independently with Python integers masked to 32 bits after every operation.
        let want = [
            (0u32, 129_708_002u32),
            (1, 2_831_084_092),
            (2, 2_055_130_248),
            (1000, 2_163_870_295),
            (123_456, 2_257_990_255),
            (4_294_967_295, 3_861_530_882),
        ];
        for (i, h) in want {
            assert_eq!(splat_priority(i), f64::from(h) / 4_294_967_296.0, "index {i}");
        }
    }

    #[test]
    fn splat_priority_is_uniform_enough() {
        let n = 100_000u32;
        let below: usize = (0..n).filter(|&i| splat_drawn(i, 0.3)).count();
        let share = below as f64 / f64::from(n);
        assert!((share - 0.3).abs() < 0.01, "{share}");
        // Own tile at mix m and runner-up at 1 − m draw complementary expected shares.
        for m in [0.5, 0.7, 0.95] {
            let own = (0..n).filter(|&i| splat_drawn(i, m)).count() as f64 / f64::from(n);
            let other = (0..n).filter(|&i| splat_drawn(i, 1.0 - m)).count() as f64 / f64::from(n);
            assert!((own + other - 1.0).abs() < 0.01);
        }
    }

    #[test]
    fn hybrid_select_samples_in_proportion_to_alpha() {
        let alpha = [0.2, 0.5, 0.3];
        let n = 60_000u32;
        let mut count = [0usize; 3];
        for i in 0..n {
            count[hybrid_select(&alpha, i, 7)] += 1;
        }
        for c in 0..3 {
            let f = count[c] as f64 / f64::from(n);
            assert!((f - alpha[c]).abs() < 0.012, "class {c}: {f} vs {}", alpha[c]);
        }
        // A class with no coverage is never drawn; all-zero falls back to class 0.
        assert!((0..1000).all(|i| hybrid_select(&[0.0, 1.0], i, 1) == 1));
        assert_eq!(hybrid_select(&[0.0, 0.0], 5, 1), 0);
    }
}

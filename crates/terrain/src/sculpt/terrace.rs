//! Terracing: pull heights toward evenly spaced levels — flats separated by risers, the look of
//! a stack of resistant beds (seed 001 §3.7).
//!
//! The original bozkır generator's `terrace` (inventory §2.1), in its order of operations: with
//! `k = z·steps`, `base = ⌊k⌋`, `frac = k − base` and `snap = [frac ≥ 0.5]` (round half up,
//! explicitly),
//!
//! ```text
//! terrace(z) = clamp((base + frac²(3 − 2·frac)·(1 − sharpness) + sharpness·snap) / steps, 0, 1)
//! ```
//!
//! `sharpness` 0 keeps a smoothstep riser inside every step (seed 001's
//! `(⌊h/s⌋ + smoothstep(frac))·s`), 1 makes every level flat. Heights are normalised, `[0, 1]`.
//!
//! Two extensions, both off by default so the default is the original exactly:
//! * *Noise-varied levels*: real beds are not perfectly level. With `level_jitter = j`, the
//!   levels at cell `(x, y)` are shifted by `o = j·fbm(x·dx, y·dy)/steps` (a fraction `j` of a
//!   step): `clamp(terrace(z + o) − o, 0, 1)`, computed without the inner clamp.
//! * *Mask blending*: with a mask `m`, `z + m·(terraced − z)`, so terraces appear only where
//!   the mask says (seed 001 §3.7, "blend by a mask").

use bozkir_core::noise::{fbm, FbmParams};
use bozkir_core::Grid;
use rayon::prelude::*;

/// Parameters of [`terrace`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TerraceParams {
    /// Number of levels across `[0, 1]`; 0 is treated as 1. Default 5.
    pub steps: u32,
    /// 0: smoothstep risers, 1: flat levels and vertical risers (dimensionless). Default 0.5.
    pub sharpness: f64,
    /// Amplitude of the per-cell level shift, as a fraction of one step (0: level beds).
    /// Default 0.0.
    pub level_jitter: f64,
    /// Noise for the level shift, sampled in metres. Default: 3 octaves at 1/128 cycles per
    /// metre.
    pub level_noise: FbmParams,
}

impl Default for TerraceParams {
    fn default() -> Self {
        Self {
            steps: 5,
            sharpness: 0.5,
            level_jitter: 0.0,
            level_noise: FbmParams { octaves: 3, frequency: 1.0 / 128.0, ..FbmParams::default() },
        }
    }
}

/// Terraced height before clamping, divided by `steps`.
#[inline]
fn shaped(z: f64, steps: f64, sharpness: f64) -> f64 {
    let k = z * steps;
    let base = k.floor();
    let frac = k - base;
    let snap = if frac >= 0.5 { 1.0 } else { 0.0 };
    (base + frac * frac * (3.0 - 2.0 * frac) * (1.0 - sharpness) + sharpness * snap) / steps
}

/// The original's terrace of one normalised height (see the module docs).
#[inline]
pub fn terrace_value(z: f64, steps: u32, sharpness: f64) -> f64 {
    shaped(z, steps.max(1) as f64, sharpness).clamp(0.0, 1.0)
}

/// `grid` (normalised heights) terraced; blended by `mask` when given (same shape, panics
/// otherwise).
pub fn terrace(grid: &Grid<f64>, p: &TerraceParams, mask: Option<&Grid<f64>>) -> Grid<f64> {
    if let Some(m) = mask {
        assert_eq!((m.width(), m.height()), (grid.width(), grid.height()), "terrace: mask shape");
    }
    let mut out = grid.clone();
    let w = grid.width();
    if w == 0 {
        return out;
    }
    let steps = p.steps.max(1) as f64;
    let (dx, dy) = (grid.dx, grid.dy);
    out.data_mut().par_chunks_mut(w).enumerate().for_each(|(y, row)| {
        for (x, v) in row.iter_mut().enumerate() {
            let z = *v;
            let t = if p.level_jitter != 0.0 {
                let o = p.level_jitter * fbm(&p.level_noise, x as f64 * dx, y as f64 * dy) / steps;
                (shaped(z + o, steps, p.sharpness) - o).clamp(0.0, 1.0)
            } else {
                shaped(z, steps, p.sharpness).clamp(0.0, 1.0)
            };
            *v = match mask {
                Some(m) => z + m.data()[y * w + x] * (t - z),
                None => t,
            };
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sculpt::normalise::unit_normalise;
    use crate::sculpt::test_support::{bumpy, bytes, with_threads};

    #[test]
    fn pinned_against_the_original_formula() {
        // numpy: terrace(np.array([...]), 7, 0.5) with the original's expression.
        let z = [0.0, 0.1, 0.33, 0.5, 0.72, 0.999, 1.0];
        let want = [0.0, PIN[0], PIN[1], PIN[2], PIN[3], PIN[4], 1.0];
        for (z, w) in z.iter().zip(want) {
            assert_eq!(terrace_value(*z, 7, 0.5).to_bits(), w.to_bits(), "z = {z}");
        }
    }
    const PIN: [f64; 5] =
        [0.12742857142857145, 0.3020512857142857, 0.5357142857142857, 0.7146194285714286, 0.999989549];

    #[test]
    fn sharpness_one_gives_only_levels() {
        let g = unit_normalise(&bumpy(40, 40));
        let p = TerraceParams { steps: 4, sharpness: 1.0, ..Default::default() };
        let t = terrace(&g, &p, None);
        let levels = [0.0, 0.25, 0.5, 0.75, 1.0];
        assert!(t.data().iter().all(|v| levels.contains(v)));
        // Each value is its input rounded half up to the nearest level.
        for (z, v) in g.data().iter().zip(t.data()) {
            assert_eq!(*v, ((z * 4.0 + 0.5).floor() / 4.0).min(1.0));
        }
        let used: std::collections::BTreeSet<u64> = t.data().iter().map(|v| v.to_bits()).collect();
        assert!(used.len() >= 4);
    }

    #[test]
    fn soft_terraces_are_monotone_with_flat_treads() {
        let zs: Vec<f64> = (0..=1000).map(|i| i as f64 / 1000.0).collect();
        let ts: Vec<f64> = zs.iter().map(|&z| terrace_value(z, 5, 0.0)).collect();
        assert!(ts.windows(2).all(|w| w[0] <= w[1]));
        // Smoothstep treads: the slope at a level is ~0 (3·(5·0.001)²·2/5/0.002 = 0.015 over a
        // ±0.001 difference), mid-riser it is 1.5× the identity's.
        let d_level = (terrace_value(0.401, 5, 0.0) - terrace_value(0.399, 5, 0.0)) / 0.002;
        let d_mid = (terrace_value(0.501, 5, 0.0) - terrace_value(0.499, 5, 0.0)) / 0.002;
        assert!(d_level < 0.02 && (d_mid - 1.5).abs() < 0.01, "{d_level} {d_mid}");
        assert_eq!(terrace_value(0.3, 0, 0.0), terrace_value(0.3, 1, 0.0));
    }

    #[test]
    fn noise_varied_levels_and_mask() {
        let g = unit_normalise(&bumpy(48, 48));
        let base = TerraceParams { steps: 5, sharpness: 1.0, ..Default::default() };
        let jit = TerraceParams {
            level_jitter: 0.4,
            level_noise: FbmParams { frequency: 1.0 / 16.0, ..base.level_noise },
            ..base
        };
        let t = terrace(&g, &jit, None);
        // Each output sits exactly on a shifted level: (v + o)·steps is an integer.
        let mut off_grid = 0;
        for y in 0..48 {
            for x in 0..48 {
                let o = 0.4 * fbm(&jit.level_noise, x as f64, y as f64) / 5.0;
                let v = *t.get(x, y);
                if v > 0.0 && v < 1.0 {
                    let k = (v + o) * 5.0;
                    assert!((k - k.round()).abs() < 1e-9, "{k}");
                }
                if v > 0.0 && v < 1.0 && (v * 5.0 - (v * 5.0).round()).abs() > 1e-6 {
                    off_grid += 1;
                }
            }
        }
        assert!(off_grid > 100, "levels did not vary ({off_grid})");
        let a = with_threads(1, || terrace(&g, &jit, None));
        let b = with_threads(4, || terrace(&g, &jit, None));
        assert_eq!(bytes(&a), bytes(&b));
        // Zero mask leaves the input, unit mask is the plain terrace.
        let zero = g.same_shape(0.0);
        let one = g.same_shape(1.0);
        assert_eq!(terrace(&g, &base, Some(&zero)), g);
        assert_eq!(terrace(&g, &base, Some(&one)), terrace(&g, &base, None));
    }
}

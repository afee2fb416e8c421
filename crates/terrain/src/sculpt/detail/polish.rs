//! Flatness-weighted polish: a noise-varied blur that only acts on gentle ground
//! (seed 001 §6.3, §4.6, §9 "Polish").
//!
//! The explicit inverse of the steepness ramp: detail lives on the peaks, and gentle ground is
//! actively polished, so the eye reads one law — glassy wash, soft hills, textured slopes,
//! carved rock. The blur is [`perlin_gaussian`] (a radius that wanders with noise, seed §4.6),
//! blended in with the weight `strength · (1 − smoothstep(tan flat, tan steep, slope))` — the
//! seed's `smooth(27°→7°)·0.75` — raised to at least `wash_strength · wash` where a wash mask is
//! given (the seed polishes wash ≥ 0.92 regardless of slope).

use super::{map_cells, slope_gate};
use crate::sculpt::reverse::{perlin_gaussian, PerlinGaussianParams};
use bozkir_core::noise::FbmParams;
use bozkir_core::Grid;

/// Parameters of [`polish`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PolishParams {
    /// Largest blend weight (on flat ground), `[0, 1]`. Default 0.75.
    pub strength: f64,
    /// Slope angle (degrees) at and below which the weight is full. Default 7.
    pub flat_deg: f64,
    /// Slope angle (degrees) at and above which the weight is 0. Default 27.
    pub steep_deg: f64,
    /// Weight of the wash mask, when one is given. Default 0.92.
    pub wash_strength: f64,
    /// The noise-varied blur. Default: σ from 1 to 2 m (the seed's 1–2 px at 1 m cells),
    /// 3 octaves at 1/48 cycles per metre.
    pub blur: PerlinGaussianParams,
}

impl Default for PolishParams {
    fn default() -> Self {
        Self {
            strength: 0.75,
            flat_deg: 7.0,
            steep_deg: 27.0,
            wash_strength: 0.92,
            blur: PerlinGaussianParams {
                sigma_min_m: 1.0,
                sigma_max_m: 2.0,
                noise: FbmParams { octaves: 3, frequency: 1.0 / 48.0, seed: 53, ..FbmParams::default() },
                levels: 4,
            },
        }
    }
}

/// `z` polished where flat (and under `wash`, a `[0, 1]` mask of `z`'s shape).
pub fn polish(z: &Grid<f64>, p: &PolishParams, wash: Option<&Grid<f64>>) -> Grid<f64> {
    let flat = slope_gate(z, p.steep_deg, p.flat_deg);
    let blurred = perlin_gaussian(z, &p.blur);
    let w = z.width();
    if let Some(m) = wash {
        assert_eq!((m.width(), m.height()), (z.width(), z.height()), "polish: wash mask shape");
    }
    map_cells(z, |x, y, v| {
        let i = y * w + x;
        let mut wt = p.strength * flat.data()[i];
        if let Some(m) = wash {
            wt = wt.max(p.wash_strength * m.data()[i].clamp(0.0, 1.0));
        }
        let wt = wt.clamp(0.0, 1.0);
        if wt <= 0.0 {
            v
        } else {
            v + wt * (blurred.data()[i] - v)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_util::flat_and_steep;
    use super::*;
    use crate::sculpt::test_support::{bytes, with_threads};

    /// Mean |Laplacian| over columns `x0..x1` (interior rows).
    fn roughness(z: &Grid<f64>, x0: usize, x1: usize) -> f64 {
        let mut s = 0.0;
        let mut n = 0.0;
        for y in 2..z.height() - 2 {
            for x in x0..x1 {
                let c = *z.get(x, y);
                let l = z.get(x - 1, y) + z.get(x + 1, y) + z.get(x, y - 1) + z.get(x, y + 1) - 4.0 * c;
                s += l.abs();
                n += 1.0;
            }
        }
        s / n
    }

    #[test]
    fn polishes_flats_more_than_steep_ground() {
        let base = flat_and_steep(64, 48);
        let z =
            Grid::from_fn(64, 48, |x, y| base.get(x, y) + 0.2 * bozkir_core::hash::hash_unit(x as u32, y as u32, 3));
        let out = polish(&z, &PolishParams::default(), None);
        let flat = roughness(&out, 4, 28) / roughness(&z, 4, 28);
        let steep = roughness(&out, 38, 60) / roughness(&z, 38, 60);
        assert!(flat < 0.6 && flat < steep - 0.2, "flat {flat} steep {steep}");
        // A wash mask polishes steep ground too.
        let wash = Grid::new(64, 48, 1.0);
        let out = polish(&z, &PolishParams::default(), Some(&wash));
        assert!(roughness(&out, 38, 60) / roughness(&z, 38, 60) < steep);
    }

    #[test]
    fn same_bits_for_any_thread_count() {
        let z = flat_and_steep(50, 40);
        let a = with_threads(1, || polish(&z, &PolishParams::default(), None));
        let b = with_threads(2, || polish(&z, &PolishParams::default(), None));
        assert_eq!(bytes(&a), bytes(&b));
    }
}

//! Lateral fold: horizontal displacement of steep vertices for pseudo-overhangs on a heightmap
//! mesh (seed 001 §6.5, §9 "Overhang fold").
//!
//! A heightmap cannot hold an overhang, but its mesh can be bent: after height displacement,
//! steep vertices are pushed a few metres along the downhill horizontal, modulated by noise.
//! Cliff bands bulge over their talus, and where the steepness changes sharply the surface
//! passes vertical. The seed uses an amplitude of at most ~4 units gated `smooth(45°→69°)`.
//!
//! The fold does not change heights; it returns the displacement field for the mesher:
//! `d = amplitude_m · gate(slope) · clamp(1 + variation·fbm, 0, 2) · downhill`, split into an
//! `east` (+x, increasing column) and a `south` (+y, increasing row) component in metres. A
//! vertex of cell `(x, y)` goes to `(x·dx + east, y·dy + south, z)`. Since it is horizontal,
//! `|d| ≤ 2·amplitude_m`.

use super::{downhill, slope_gate};
use bozkir_core::noise::{fbm, FbmParams};
use bozkir_core::Grid;
use rayon::prelude::*;

/// Parameters of [`lateral_fold`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FoldParams {
    /// Displacement at full gate and zero noise, metres. Default 4.
    pub amplitude_m: f64,
    /// Slope angle (degrees) where folding starts. Default 45.
    pub gate_lo_deg: f64,
    /// Slope angle (degrees) of full folding. Default 69.
    pub gate_hi_deg: f64,
    /// Relative noise modulation of the amplitude. Default 0.5.
    pub variation: f64,
    /// Modulating noise, sampled in metres. Default: 3 octaves at 1/30 cycles per metre, seed 71.
    pub noise: FbmParams,
    /// Blur of the surface (metres) before taking the downhill direction. Default 2.
    pub direction_blur_m: f64,
}

impl Default for FoldParams {
    fn default() -> Self {
        Self {
            amplitude_m: 4.0,
            gate_lo_deg: 45.0,
            gate_hi_deg: 69.0,
            variation: 0.5,
            noise: FbmParams { octaves: 3, frequency: 1.0 / 30.0, seed: 71, ..FbmParams::default() },
            direction_blur_m: 2.0,
        }
    }
}

/// Horizontal displacement of each vertex, metres.
#[derive(Debug, Clone, PartialEq)]
pub struct Fold {
    /// Displacement towards increasing column (east), metres.
    pub east: Grid<f64>,
    /// Displacement towards increasing row (south), metres.
    pub south: Grid<f64>,
}

/// The lateral-fold displacement of `z` (see the module docs).
pub fn lateral_fold(z: &Grid<f64>, p: &FoldParams) -> Fold {
    let gate = slope_gate(z, p.gate_lo_deg, p.gate_hi_deg);
    let (de, dn) = downhill(z, p.direction_blur_m);
    let (w, dx, dy) = (z.width(), z.dx, z.dy);
    let mut east = z.same_shape(0.0);
    let mut south = z.same_shape(0.0);
    if w == 0 {
        return Fold { east, south };
    }
    east.data_mut().par_chunks_mut(w).zip(south.data_mut().par_chunks_mut(w)).enumerate().for_each(|(y, (er, sr))| {
        for (x, (e, s)) in er.iter_mut().zip(sr.iter_mut()).enumerate() {
            let i = y * w + x;
            let g = gate.data()[i];
            if g <= 0.0 {
                continue;
            }
            let m = (1.0 + p.variation * fbm(&p.noise, x as f64 * dx, y as f64 * dy)).clamp(0.0, 2.0);
            let a = p.amplitude_m * g * m;
            *e = a * de.data()[i];
            *s = -a * dn.data()[i];
        }
    });
    Fold { east, south }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sculpt::test_support::{bytes, with_threads};

    #[test]
    fn pushes_steep_cells_downhill_only() {
        // A cliff rising eastwards (slope 3 ≈ 72°) between flats: fold points west.
        let z = Grid::from_fn(48, 20, |x, _| (3.0 * (x as f64 - 16.0)).clamp(0.0, 48.0));
        let p = FoldParams { variation: 0.0, direction_blur_m: 0.0, ..Default::default() };
        let f = lateral_fold(&z, &p);
        let gate = slope_gate(&z, p.gate_lo_deg, p.gate_hi_deg);
        for i in 0..z.len() {
            let (e, s) = (f.east.data()[i], f.south.data()[i]);
            assert!(e.hypot(s) <= 2.0 * p.amplitude_m + 1e-12);
            if gate.data()[i] == 0.0 {
                assert_eq!((e, s), (0.0, 0.0));
            } else {
                assert!(e < 0.0 && s.abs() < 1e-12);
            }
        }
        assert!((f.east.get(24, 10) + p.amplitude_m).abs() < 1e-9);
    }

    #[test]
    fn same_bits_for_any_thread_count() {
        let z = super::super::test_util::flat_and_steep(50, 40).map(|v| 3.0 * v);
        let a = with_threads(1, || lateral_fold(&z, &FoldParams::default()));
        let b = with_threads(2, || lateral_fold(&z, &FoldParams::default()));
        assert_eq!(bytes(&a.east), bytes(&b.east));
        assert_eq!(bytes(&a.south), bytes(&b.south));
    }
}

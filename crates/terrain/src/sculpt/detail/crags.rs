//! Voronoi crags: ridged noise plus cellular `F2 − F1` ridges, gated to steep faces
//! (seed 001 §3.5, §6.4, §9 "Crags").
//!
//! Smooth noise cannot fracture rock; cellular noise can (§3.5). `F2 − F1` is zero on the border
//! between two Voronoi cells and grows towards their interiors, so adding it raises faceted
//! blocks separated by creases; ridged multifractal noise (§3.2) adds connected crests. The sum
//! is centred and gated by slope (the seed's `smooth(35°→50°)`) and, per §6.4, this runs after
//! every smoothing pass. The seed's cheat sheet uses `ridged·4.5` on a 1400-unit world.
//!
//! `out = z + gate(slope) · (ridged_m·(ridged − 0.5) + voronoi_m·(min(F2 − F1, 1) − 0.5))`.

use super::add_gated;
use bozkir_core::noise::{cellular, ridged, CellularParams, RidgedParams};
use bozkir_core::Grid;

/// Parameters of [`crags`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CragParams {
    /// Amplitude of the ridged noise, metres. Default 3.0.
    pub ridged_m: f64,
    /// Ridged noise, sampled in metres. Default: 4 octaves at 1/40 cycles per metre, seed 31.
    pub ridged: RidgedParams,
    /// Amplitude of the `F2 − F1` ridges, metres. Default 2.0.
    pub voronoi_m: f64,
    /// Cellular noise, sampled in metres. Default: 1/14 cells per metre, seed 37.
    pub cells: CellularParams,
    /// Slope angle (degrees) where crags start. Default 35.
    pub gate_lo_deg: f64,
    /// Slope angle (degrees) of full-strength crags. Default 50.
    pub gate_hi_deg: f64,
    /// Index of this grid's first cell in a larger world (a tile's window): noise is sampled
    /// at the world position, so a window of the world gets the world's crags. Default `[0, 0]`.
    pub origin: [usize; 2],
}

impl Default for CragParams {
    fn default() -> Self {
        Self {
            ridged_m: 3.0,
            ridged: RidgedParams { octaves: 4, frequency: 1.0 / 40.0, seed: 31, ..RidgedParams::default() },
            voronoi_m: 2.0,
            cells: CellularParams { frequency: 1.0 / 14.0, jitter: 1.0, seed: 37 },
            gate_lo_deg: 35.0,
            gate_hi_deg: 50.0,
            origin: [0, 0],
        }
    }
}

/// `z` with crags added on steep faces (see the module docs).
pub fn crags(z: &Grid<f64>, p: &CragParams) -> Grid<f64> {
    add_gated(z, p.gate_lo_deg, p.gate_hi_deg, p.origin, |px, py| {
        let r = ridged(&p.ridged, px, py) - 0.5;
        let c = cellular(&p.cells, px, py).border().min(1.0) - 0.5;
        p.ridged_m * r + p.voronoi_m * c
    })
}

#[cfg(test)]
mod tests {
    use super::super::slope_gate;
    use super::super::test_util::{changed_where_gated, flat_and_steep};
    use super::*;
    use crate::sculpt::test_support::{bytes, with_threads};

    #[test]
    fn changes_only_where_gated() {
        let z = flat_and_steep(64, 48);
        let p = CragParams::default();
        let out = crags(&z, &p);
        let gate = slope_gate(&z, p.gate_lo_deg, p.gate_hi_deg);
        assert!(changed_where_gated(&z, &out, &gate) > 200);
        let bound = 0.5 * (p.ridged_m + p.voronoi_m) + 1e-9;
        assert!(z.data().iter().zip(out.data()).all(|(a, b)| (b - a).abs() <= bound));
    }

    #[test]
    fn same_bits_for_any_thread_count() {
        let z = flat_and_steep(50, 40);
        let a = with_threads(1, || crags(&z, &CragParams::default()));
        let b = with_threads(2, || crags(&z, &CragParams::default()));
        assert_eq!(bytes(&a), bytes(&b));
    }
}

//! Voronoi plates and cracks, gated by slope (seed 001 §3.5, §9 "Crags").
//!
//! Two of the three uses of cellular noise in §3.5: a per-cell random offset raises or lowers
//! each Voronoi cell as a whole (blocky displaced plates: faceted rock faces), and `F2 − F1 → 0`
//! marks cell borders, carved as crack seams (joint lines). The seed's cheat sheet uses plates
//! `±1.6` and cracks `2.4` units, gated `smooth(35°→50°)`.
//!
//! `out = z + gate(slope)·(plate_m·(2u − 1) − crack_m·(1 − smoothstep(0, crack_width, F2 − F1)))`
//! with `u = hash_unit(id, 0, seed)` the cell's uniform random value.

use super::add_gated;
use crate::sculpt::mask::smoothstep;
use bozkir_core::hash::hash_unit;
use bozkir_core::noise::{cellular, CellularParams};
use bozkir_core::Grid;

/// Parameters of [`plates`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlatesParams {
    /// Half-range of the per-plate offset, metres. Default 1.6.
    pub plate_m: f64,
    /// Depth of the cracks, metres. Default 2.4.
    pub crack_m: f64,
    /// Width of a crack in `F2 − F1` (lattice units; 0.1 ≈ a tenth of a plate). Default 0.08.
    pub crack_width: f64,
    /// Cellular noise, sampled in metres. Default: 1/10 cells per metre, seed 41.
    pub cells: CellularParams,
    /// Slope angle (degrees) where plates start. Default 35.
    pub gate_lo_deg: f64,
    /// Slope angle (degrees) of full-strength plates. Default 50.
    pub gate_hi_deg: f64,
    /// Index of this grid's first cell in a larger world (a tile's window); see
    /// [`super::CragParams::origin`]. Default `[0, 0]`.
    pub origin: [usize; 2],
}

impl Default for PlatesParams {
    fn default() -> Self {
        Self {
            plate_m: 1.6,
            crack_m: 2.4,
            crack_width: 0.08,
            cells: CellularParams { frequency: 1.0 / 10.0, jitter: 1.0, seed: 41 },
            gate_lo_deg: 35.0,
            gate_hi_deg: 50.0,
            origin: [0, 0],
        }
    }
}

/// `z` with plates and cracks on steep faces (see the module docs).
pub fn plates(z: &Grid<f64>, p: &PlatesParams) -> Grid<f64> {
    add_gated(z, p.gate_lo_deg, p.gate_hi_deg, p.origin, |px, py| {
        let s = cellular(&p.cells, px, py);
        let u = hash_unit(s.id, 0, p.cells.seed ^ 0x9E37_79B9);
        let crack = 1.0 - smoothstep(0.0, p.crack_width, s.border());
        p.plate_m * (2.0 * u - 1.0) - p.crack_m * crack
    })
}

#[cfg(test)]
mod tests {
    use super::super::slope_gate;
    use super::super::test_util::{changed_where_gated, flat_and_steep};
    use super::*;
    use crate::sculpt::test_support::{bytes, with_threads};

    #[test]
    fn changes_only_where_gated_and_cracks_cut_down() {
        let z = Grid::from_fn(64, 48, |x, _| if x >= 32 { 2.0 * x as f64 } else { 0.0 });
        let p = PlatesParams { plate_m: 0.0, ..Default::default() };
        let out = plates(&z, &p);
        let gate = slope_gate(&z, p.gate_lo_deg, p.gate_hi_deg);
        assert!(z.data().iter().zip(out.data()).all(|(a, b)| b <= a), "cracks only cut down");
        assert!(changed_where_gated(&z, &out, &gate) > 20);
    }

    #[test]
    fn same_bits_for_any_thread_count() {
        let z = flat_and_steep(50, 40);
        let a = with_threads(1, || plates(&z, &PlatesParams::default()));
        let b = with_threads(2, || plates(&z, &PlatesParams::default()));
        assert_eq!(bytes(&a), bytes(&b));
    }
}

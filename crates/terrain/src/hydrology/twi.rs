//! Topographic wetness index, `TWI = ln(a / tan β)`.
//!
//! Source: K. J. Beven & M. J. Kirkby (1979), "A physically based, variable contributing area
//! model of basin hydrology", *Hydrological Sciences Bulletin* 24(1), 43–69 (the TOPMODEL index).
//!
//! * `a` is the **specific catchment area** in metres: the contributing area in m² divided by
//!   the width of contour it drains across. The area is `area_cells · dx · dy` (cells from any
//!   accumulation: [`super::dinf::dinf_accumulation`], [`super::mfd::mfd_accumulation`] or D8's
//!   [`super::flow_graph::accumulate_cells`]); the width is the mean cell side `(dx + dy) / 2`,
//!   which is what whitebox's `sca` output divides by (measured with whitebox-workflows 2.0.6 on
//!   10 m × 30 m cells: `sca = ca / 20`), and the cell width `dx` for square cells, as in
//!   whitebox and SAGA.
//! * `tan β` is the local slope, rise over run, from Horn's 3×3 gradient
//!   ([`crate::landform::slope`]; border cells replicate their edge).
//! * Flat cells: `tan β` is raised to `min_tan_slope`. With `min_tan_slope = 0` a cell of zero
//!   slope gets NaN, as whitebox's `WetnessIndex` gives NoData there; [`TWI_MIN_TAN_SLOPE`]
//!   (0.001, a 0.06° slope) is a floor that keeps such cells finite and very wet.

use super::{check_cell_size, check_len, HydroError};
use crate::landform::slope;
use bozkir_core::Grid;
use rayon::prelude::*;

/// A floor for `tan β` that keeps flat cells finite: 0.001 (0.057°).
pub const TWI_MIN_TAN_SLOPE: f64 = 1e-3;

/// TWI from contributing area in cells and the heights `h` (Horn slope of `h`): see the
/// [module docs](self). The result has the shape and cell size of `h`; NaN where the area or the
/// height is NaN, or where `tan β = 0` and `min_tan_slope = 0`; `−∞` where the area is 0 (only
/// with zero weights).
///
/// # Errors
///
/// [`HydroError::CellSize`], [`HydroError::LengthMismatch`] when `area_cells` does not have one
/// value per cell, [`HydroError::Parameter`] when `min_tan_slope` is negative or not finite.
///
/// # Examples
///
/// ```
/// use bozkir_core::Grid;
/// use bozkir_terrain::hydrology::twi::{twi, TWI_MIN_TAN_SLOPE};
///
/// // A plane rising 0.1 m/m to the west on 10 m cells; a cell that drains 5 cells:
/// // a = 5·100 m² / 10 m = 50 m, TWI = ln(50 / 0.1).
/// let h = Grid::from_fn(6, 6, |x, _| -(x as f64)).with_cell_size(10.0, 10.0);
/// let t = twi(&vec![5.0; 36], &h, TWI_MIN_TAN_SLOPE).unwrap();
/// assert!((t.get(2, 2) - (500.0f64).ln()).abs() < 1e-12);
/// ```
pub fn twi(area_cells: &[f64], h: &Grid<f64>, min_tan_slope: f64) -> Result<Grid<f64>, HydroError> {
    check_cell_size(h.dx, h.dy)?;
    check_len("twi area", h.len(), area_cells.len())?;
    twi_from_slope(area_cells, &slope(h), min_tan_slope)
}

/// [`twi`] with the slope given: `tan_slope` is rise over run per cell (any method), and its
/// cell size gives the contour width.
///
/// # Errors
///
/// As [`twi`].
///
/// # Examples
///
/// ```
/// use bozkir_core::Grid;
/// use bozkir_terrain::hydrology::twi::twi_from_slope;
///
/// let s = Grid::from_vec(2, 1, vec![0.5, 0.0]).with_cell_size(2.0, 2.0);
/// let t = twi_from_slope(&[3.0, 3.0], &s, 0.0).unwrap();
/// assert!((t.data()[0] - (6.0f64 / 0.5).ln()).abs() < 1e-15);
/// assert!(t.data()[1].is_nan()); // zero slope, no floor: NaN, as whitebox's NoData
/// ```
pub fn twi_from_slope(area_cells: &[f64], tan_slope: &Grid<f64>, min_tan_slope: f64) -> Result<Grid<f64>, HydroError> {
    check_cell_size(tan_slope.dx, tan_slope.dy)?;
    check_len("twi area", tan_slope.len(), area_cells.len())?;
    if !(min_tan_slope.is_finite() && min_tan_slope >= 0.0) {
        return Err(HydroError::Parameter {
            name: "min_tan_slope",
            value: min_tan_slope,
            why: "must be finite and ≥ 0",
        });
    }
    let (dx, dy) = (tan_slope.dx, tan_slope.dy);
    let per_cell = dx * dy / (0.5 * (dx + dy));
    let out: Vec<f64> = area_cells
        .par_iter()
        .zip(tan_slope.data().par_iter())
        .map(|(&a, &s)| {
            let t = s.max(min_tan_slope);
            if t > 0.0 {
                libm::log(a * per_cell / t)
            } else {
                f64::NAN
            }
        })
        .collect();
    Ok(Grid::from_vec(tan_slope.width(), tan_slope.height(), out).with_cell_size(dx, dy))
}

#[cfg(test)]
mod tests {
    use super::super::dinf::{dinf_accumulation, dinf_directions};
    use super::*;

    #[test]
    fn a_plane_gives_ln_a_over_tan_beta_by_hand() {
        // Plane falling along aspect 30° at tan β = 0.2 on 10 m × 25 m cells.
        let (dx, dy) = (10.0, 25.0);
        let (a, tb) = (30f64.to_radians(), 0.2);
        let (gx, gy) = (-tb * a.cos(), -tb * a.sin());
        let h = Grid::from_fn(12, 9, |x, y| gx * x as f64 * dx - gy * y as f64 * dy).with_cell_size(dx, dy);
        let acc = dinf_accumulation(&dinf_directions(&h).unwrap(), None).unwrap();
        let t = twi(acc.data(), &h, 0.0).unwrap();
        for y in 1..8 {
            for x in 1..11 {
                let sca = acc.get(x, y) * dx * dy / ((dx + dy) / 2.0);
                let want = (sca / tb).ln();
                assert!((t.get(x, y) - want).abs() < 1e-12, "({x},{y})");
            }
        }
        // One interior cell by hand: (1, 7) on the plane is a source? It takes its share from
        // nobody upslope inside the grid except border cells, which pass nothing: a = 1 cell.
        assert_eq!(*acc.get(1, 7), 1.0);
        assert!((t.get(1, 7) - (250.0 / 17.5 / 0.2f64).ln()).abs() < 1e-12);
    }

    #[test]
    fn flats_get_the_floor_or_nan() {
        let h = Grid::new(5, 5, 7.0).with_cell_size(2.0, 2.0);
        let ones = vec![1.0; 25];
        assert!(twi(&ones, &h, 0.0).unwrap().data().iter().all(|v| v.is_nan()));
        let t = twi(&ones, &h, TWI_MIN_TAN_SLOPE).unwrap();
        assert!(t.data().iter().all(|&v| (v - (2.0 / 1e-3f64).ln()).abs() < 1e-12));
        assert!(matches!(twi(&ones, &h, -1.0), Err(HydroError::Parameter { .. })));
        assert!(matches!(twi(&ones[..3], &h, 0.0), Err(HydroError::LengthMismatch { .. })));
    }
}

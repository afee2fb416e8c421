//! Depression (lake) depth: how much a depression-filling step raised each cell.
//!
//! The depth of water a filled depression would hold, `filled − original`, as used for lake maps
//! after Priority-Flood filling (Barnes, Lehman & Mulla 2014, *Computers & Geosciences* 62: the
//! difference of the filled and the original DEM marks the depressions).
//!
//! Nodata (NaN) in either input gives NaN. Values are clamped at 0 so a caller's surface that is
//! lower than the original somewhere (not the output of a fill) yields no negative depth.

use bozkir_core::grid::Grid;

/// Parameters of [`fill_depth_with`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FillDepthParams {
    /// Depths at or below this (metres) are reported as 0, e.g. to drop the ulp-scale rises of an
    /// ε fill. Default 0: every raised cell has a positive depth.
    pub min_depth: f64,
}

impl Default for FillDepthParams {
    fn default() -> Self {
        Self { min_depth: 0.0 }
    }
}

/// `filled − orig` per cell (metres, ≥ 0; NaN where either is NaN). Panics on a shape mismatch.
pub fn fill_depth(orig: &Grid<f64>, filled: &Grid<f64>) -> Grid<f64> {
    fill_depth_with(orig, filled, &FillDepthParams::default())
}

/// [`fill_depth`] with explicit parameters.
pub fn fill_depth_with(orig: &Grid<f64>, filled: &Grid<f64>, params: &FillDepthParams) -> Grid<f64> {
    assert!(
        orig.width() == filled.width() && orig.height() == filled.height(),
        "fill_depth: shapes differ ({}x{} vs {}x{})",
        orig.width(),
        orig.height(),
        filled.width(),
        filled.height()
    );
    let data = orig
        .data()
        .iter()
        .zip(filled.data())
        .map(|(&o, &f)| {
            if o.is_nan() || f.is_nan() {
                f64::NAN
            } else {
                let d = f - o;
                if d > params.min_depth {
                    d
                } else {
                    0.0
                }
            }
        })
        .collect();
    Grid::from_vec(orig.width(), orig.height(), data).with_cell_size(orig.dx, orig.dy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_is_difference_clamped_and_nan_aware() {
        let o = Grid::from_vec(3, 1, vec![1.0, 2.0, f64::NAN]);
        let f = Grid::from_vec(3, 1, vec![1.5, 1.0, 3.0]);
        let d = fill_depth(&o, &f);
        assert_eq!(d.data()[0], 0.5);
        assert_eq!(d.data()[1], 0.0);
        assert!(d.data()[2].is_nan());
        let d = fill_depth_with(&o, &f, &FillDepthParams { min_depth: 0.6 });
        assert_eq!(d.data()[0], 0.0);
    }
}

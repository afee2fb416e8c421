//! Hydrology: depression filling, flow routing, accumulation, networks, watersheds, and the
//! products hydrologists expect beside D8: D∞ and MFD accumulation, HAND, the topographic
//! wetness index and stream vectors.
//!
//! Heights are `f64` metres. Nodata is NaN throughout: filling treats cells beside nodata as
//! outlets (water leaves the grid there), like border cells.
pub mod dinf;
pub mod fill_depth;
pub mod flow_graph;
pub mod hand;
pub mod mfd;
pub mod planchon_darboux;
pub mod priority_flood;
pub mod streams;
pub mod twi;
pub mod vectors;
pub mod watersheds;

#[cfg(test)]
pub(crate) mod test_dems;

/// Why a hydrology function refused its inputs (the functions that take several inputs or
/// parameters check them and return this instead of panicking).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HydroError {
    /// A per-cell input does not have one value per cell.
    #[error("{what}: expected {expected} values (one per cell), got {got}")]
    LengthMismatch {
        /// Which input.
        what: &'static str,
        /// Cells of the grid.
        expected: usize,
        /// Values given.
        got: usize,
    },
    /// Two grids (or a grid and a flow graph) have different shapes.
    #[error("{what}: {got_w}×{got_h} cells, expected {w}×{h}")]
    ShapeMismatch {
        /// Which input.
        what: &'static str,
        /// Expected width.
        w: usize,
        /// Expected height.
        h: usize,
        /// Width given.
        got_w: usize,
        /// Height given.
        got_h: usize,
    },
    /// The grid's cell size is not finite and positive.
    #[error("cell size {dx} × {dy} m: both must be finite and > 0")]
    CellSize {
        /// Column spacing.
        dx: f64,
        /// Row spacing.
        dy: f64,
    },
    /// A parameter is out of its range.
    #[error("{name} = {value}: {why}")]
    Parameter {
        /// Parameter name.
        name: &'static str,
        /// Value given.
        value: f64,
        /// The allowed range.
        why: &'static str,
    },
    /// A D∞ direction is neither an angle in `[0, 2π)` nor a no-direction value.
    #[error("cell {cell}: D∞ direction {value} is neither an angle in [0, 2π) nor negative/NaN (no direction)")]
    Direction {
        /// Row-major cell index.
        cell: usize,
        /// Value found.
        value: f64,
    },
    /// Directions that send water round a loop (they were not taken from one surface).
    #[error("flow directions form a cycle through cell {cell}: they were not taken from one surface")]
    Cycle {
        /// A row-major cell index on (or downstream of) the cycle.
        cell: usize,
    },
    /// The grid has more cells than `u32` indices can address.
    #[error("grid of {cells} cells exceeds u32 indices")]
    TooLarge {
        /// Cells of the grid.
        cells: usize,
    },
}

/// Checks that `dx` and `dy` are finite and positive.
pub(crate) fn check_cell_size(dx: f64, dy: f64) -> Result<(), HydroError> {
    if dx.is_finite() && dy.is_finite() && dx > 0.0 && dy > 0.0 {
        Ok(())
    } else {
        Err(HydroError::CellSize { dx, dy })
    }
}

/// Checks a per-cell input's length.
pub(crate) fn check_len(what: &'static str, expected: usize, got: usize) -> Result<(), HydroError> {
    if expected == got {
        Ok(())
    } else {
        Err(HydroError::LengthMismatch { what, expected, got })
    }
}

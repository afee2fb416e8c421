//! Size limits checked before any allocation.
//!
//! Every reader checks the width, height and counts found in a header against these limits
//! before it allocates, so a corrupt or hostile header cannot make it allocate gigabytes.
//! Writers check them too, so that everything written can be read back.

use crate::error::{IoError, Result};
use std::path::Path;

/// Largest width or height of a raster, in cells.
pub const MAX_SIDE: u64 = 65_536;
/// Largest number of cells of a raster (2^30, i.e. 8 GiB as `f64`).
pub const MAX_CELLS: u64 = 1 << 30;
/// Largest number of points read from a point cloud (PLY, LAS): 2^28.
pub const MAX_POINTS: u64 = 1 << 28;
/// Largest decompressed size of one NPZ entry, in bytes (8 GiB, the size of `MAX_CELLS` f64).
pub const MAX_NPY_BYTES: u64 = MAX_CELLS * 8;

/// Refuse a `width × height` raster that is empty or exceeds [`MAX_SIDE`] / [`MAX_CELLS`].
pub fn check_raster_size(path: &Path, width: u64, height: u64) -> Result<(usize, usize)> {
    if width == 0 || height == 0 {
        return Err(IoError::Empty { path: path.to_path_buf(), what: format!("{width}×{height} raster") });
    }
    if width > MAX_SIDE || height > MAX_SIDE || width.saturating_mul(height) > MAX_CELLS {
        return Err(IoError::TooLarge { path: path.to_path_buf(), width, height });
    }
    Ok((width as usize, height as usize))
}

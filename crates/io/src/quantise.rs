//! 16-bit quantisation of heights, shared by PNG16, rg16 and r16.
//!
//! `q = round((v − lo) / (hi − lo) · 65535)`, clamped to `0..=65535`, rounding half away from
//! zero; when `hi == lo` (a flat field) every code is 0. The inverse is
//! `v = lo + q / 65535 · (hi − lo)`, exact to half a step, `(hi − lo) / 131070`.

use crate::error::{IoError, Result};
use bozkir_core::Grid;
use std::path::Path;

/// Largest 16-bit code.
pub const Q16_MAX: f64 = 65535.0;

/// Refuse a grid with NaN or infinite values, naming the first one.
pub(crate) fn check_finite(path: &Path, grid: &Grid<f64>) -> Result<()> {
    // Counted in blocks (a loop the compiler vectorises); `position_first` over single values
    // took 9-10 ms for 1024² cells where the count takes under 1 ms.
    let count = grid.len() - bozkir_core::stats::count_finite(grid.data());
    if count == 0 {
        return Ok(());
    }
    let i = grid.data().iter().position(|v| !v.is_finite()).unwrap_or(0);
    Err(IoError::NanHeights { path: path.to_path_buf(), count, x: i % grid.width(), y: i / grid.width() })
}

/// Quantise `grid` to 16-bit codes over `[lo, hi]` (see the module documentation).
///
/// Errors (naming `path`, the file about to be written) when `lo` or `hi` is not finite, when
/// `hi < lo`, or when the grid holds NaN or infinite heights.
pub fn quantise_u16(path: &Path, grid: &Grid<f64>, lo: f64, hi: f64) -> Result<Vec<u16>> {
    if !lo.is_finite() || !hi.is_finite() || hi < lo {
        return Err(IoError::invalid(path, format!("height range lo={lo}, hi={hi} must be finite with lo <= hi")));
    }
    check_finite(path, grid)?;
    let range = hi - lo;
    if range <= 0.0 {
        return Ok(vec![0; grid.len()]);
    }
    let scale = Q16_MAX / range;
    use rayon::prelude::*;
    Ok(grid.data().par_iter().map(|&v| bozkir_core::round::round_u16((v - lo) * scale)).collect())
}

/// Inverse of [`quantise_u16`]: heights `lo + q / 65535 · (hi − lo)`, keeping the cell size.
pub fn dequantise_u16(codes: &Grid<u16>, lo: f64, hi: f64) -> Grid<f64> {
    let range = hi - lo;
    codes.map(|&q| lo + f64::from(q) / Q16_MAX * range)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_flat_and_clamp() {
        let p = Path::new("x.png");
        let g = Grid::from_vec(4, 1, vec![0.0, 10.0, 5.0, 12.0]);
        assert_eq!(quantise_u16(p, &g, 0.0, 10.0).unwrap(), vec![0, 65535, 32768, 65535]);
        assert_eq!(quantise_u16(p, &g, 3.0, 3.0).unwrap(), vec![0; 4]);
        assert!(quantise_u16(p, &g, 1.0, 0.0).is_err());
        let n = Grid::from_vec(2, 1, vec![0.0, f64::NAN]);
        let e = quantise_u16(p, &n, 0.0, 1.0).unwrap_err().to_string();
        assert!(e.contains("x.png") && e.contains("NaN") && e.contains("column 1"), "{e}");
    }

    #[test]
    fn non_finite_heights_are_counted_and_the_first_named() {
        // 300 × 200 cells (several of the count's blocks), three bad values, the first at
        // column 7 of row 150, the others after it (one an infinity, one in the last cell).
        let mut g = Grid::from_fn(300, 200, |x, y| (x + y) as f64);
        g.data_mut()[150 * 300 + 7] = f64::NAN;
        g.data_mut()[170 * 300 + 2] = f64::NEG_INFINITY;
        g.data_mut()[300 * 200 - 1] = f64::NAN;
        match check_finite(Path::new("y.png"), &g) {
            Err(IoError::NanHeights { count, x, y, .. }) => assert_eq!((count, x, y), (3, 7, 150)),
            other => panic!("{other:?}"),
        }
        g.data_mut().iter_mut().for_each(|v| *v = if v.is_finite() { *v } else { 0.0 });
        assert!(check_finite(Path::new("y.png"), &g).is_ok());
    }
}

//! 16-bit greyscale PNG height maps.
//!
//! Layout: a standard PNG, colour type 0 (greyscale), bit depth 16, one sample per pixel,
//! big-endian as PNG requires, row 0 at the top. Codes are
//! `q = round((v − lo) / (hi − lo) · 65535)` (flat → 0); `lo` and `hi` belong in the sidecar.

use crate::error::{IoError, Result};
use crate::png_common::{decode, describe, encode_rows};
use crate::quantise::quantise_u16;
use bozkir_core::Grid;
use std::path::Path;

/// Write `grid` as a 16-bit greyscale PNG, quantised over `[lo, hi]` metres.
///
/// # Examples
///
/// A round trip through a temporary folder: the codes come back exactly, the heights to within
/// half a code.
///
/// ```
/// use bozkir_core::Grid;
/// use bozkir_io::{dequantise_u16, read_png16, write_png16};
///
/// let dir = std::env::temp_dir().join(format!("bozkir-doc-png16-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let h = Grid::from_fn(5, 4, |x, y| 100.0 + 7.5 * x as f64 - 2.0 * y as f64);
/// let (lo, hi) = h.min_max().unwrap();
/// let path = dir.join("height.png");
/// write_png16(&path, &h, lo, hi).unwrap();
///
/// let codes = read_png16(&path).unwrap();
/// assert_eq!((codes.width(), codes.height()), (5, 4));
/// assert_eq!((*codes.get(0, 3), *codes.get(4, 0)), (0, 65535)); // lowest and highest cell
/// let back = dequantise_u16(&codes, lo, hi);
/// let step = (hi - lo) / 65535.0;
/// assert!(h.data().iter().zip(back.data()).all(|(a, b)| (a - b).abs() <= 0.5 * step + 1e-9));
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn write_png16(path: impl AsRef<Path>, grid: &Grid<f64>, lo: f64, hi: f64) -> Result<()> {
    let path = path.as_ref();
    let codes = quantise_u16(path, grid, lo, hi)?;
    write_png16_codes(path, &Grid::from_vec(grid.width(), grid.height(), codes))
}

/// Write 16-bit codes as they are to a greyscale PNG.
pub fn write_png16_codes(path: impl AsRef<Path>, codes: &Grid<u16>) -> Result<()> {
    crate::write_times::encoding();
    let path = path.as_ref();
    let w = codes.width();
    encode_rows(path, w, codes.height(), png::ColorType::Grayscale, png::BitDepth::Sixteen, |y, row| {
        for (o, q) in row.chunks_exact_mut(2).zip(&codes.data()[y * w..(y + 1) * w]) {
            o.copy_from_slice(&q.to_be_bytes());
        }
    })
}

/// Read a 16-bit greyscale PNG as its codes (cell size 1; the sidecar gives the real one).
/// Any other colour type or bit depth is refused as an unsupported sample format.
pub fn read_png16(path: impl AsRef<Path>) -> Result<Grid<u16>> {
    let path = path.as_ref();
    let png = decode(path)?;
    if png.color != png::ColorType::Grayscale || png.depth != png::BitDepth::Sixteen {
        return Err(IoError::unsupported(
            path,
            format!("{} (expected 16-bit greyscale)", describe(png.color, png.depth)),
        ));
    }
    let codes = png.data.chunks_exact(2).map(|b| u16::from_be_bytes([b[0], b[1]])).collect();
    Ok(Grid::from_vec(png.width, png.height, codes))
}

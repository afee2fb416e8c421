//! `.r16` raw height maps (Unity, Unreal).
//!
//! Layout: no header; `width × height` unsigned 16-bit little-endian codes, row-major, row 0
//! first (Unity's "Byte order: Windows", no flip). Codes are
//! `q = round((v − lo) / (hi − lo) · 65535)` (flat → 0). The size is not stored: the sidecar
//! records it, and square files can be read without it.

use crate::error::{IoError, Result};
use crate::fsio::{atomic_write, open_nonempty, write_all};
use crate::limits::check_raster_size;
use crate::quantise::quantise_u16;
use bozkir_core::Grid;
use std::io::Read;
use std::path::Path;

/// Write `grid` as `.r16`, quantised over `[lo, hi]` metres.
pub fn write_r16(path: impl AsRef<Path>, grid: &Grid<f64>, lo: f64, hi: f64) -> Result<()> {
    let path = path.as_ref();
    check_raster_size(path, grid.width() as u64, grid.height() as u64)?;
    let codes = quantise_u16(path, grid, lo, hi)?;
    write_r16_codes(path, &Grid::from_vec(grid.width(), grid.height(), codes))
}

/// Write 16-bit codes (already quantised) as `.r16`.
pub fn write_r16_codes(path: impl AsRef<Path>, codes: &Grid<u16>) -> Result<()> {
    crate::write_times::encoding();
    let path = path.as_ref();
    check_raster_size(path, codes.width() as u64, codes.height() as u64)?;
    let bytes: Vec<u8> = codes.data().iter().flat_map(|q| q.to_le_bytes()).collect();
    atomic_write(path, |w| write_all(path, w, &bytes))
}

/// Read a `.r16` file of `size = (width, height)`, or, with `None`, a square one whose side
/// is `sqrt(bytes / 2)`. The file length must match exactly.
pub fn read_r16(path: impl AsRef<Path>, size: Option<(usize, usize)>) -> Result<Grid<u16>> {
    let path = path.as_ref();
    let (mut reader, len) = open_nonempty(path)?;
    if len % 2 != 0 {
        return Err(IoError::malformed(path, "r16", format!("odd length {len} bytes; samples are 2 bytes")));
    }
    let cells = len / 2;
    let (w, h) = match size {
        Some((w, h)) => (w as u64, h as u64),
        None => {
            let side = (cells as f64).sqrt().round() as u64;
            if side * side != cells {
                return Err(IoError::malformed(
                    path,
                    "r16",
                    format!("{cells} samples is not a square; give width and height"),
                ));
            }
            (side, side)
        }
    };
    let (width, height) = check_raster_size(path, w, h)?;
    let need = (width * height) as u64;
    if cells < need {
        return Err(IoError::truncated(path, format!("{cells} samples, {width}×{height} needs {need}")));
    }
    if cells > need {
        return Err(IoError::malformed(path, "r16", format!("{cells} samples, more than {width}×{height}")));
    }
    let mut bytes = vec![0u8; len as usize];
    reader.read_exact(&mut bytes).map_err(|e| IoError::io(path, e))?;
    let codes = bytes.chunks_exact(2).map(|b| u16::from_le_bytes([b[0], b[1]])).collect();
    Ok(Grid::from_vec(width, height, codes))
}

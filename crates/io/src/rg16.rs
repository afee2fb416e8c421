//! The browser's `rg16` height PNG, and the general height-PNG reader.
//!
//! Layout (bozkır inventory §2.3): an 8-bit RGB PNG where each pixel stores the 16-bit code
//! `q = round((v − lo) / (hi − lo) · 65535)` (flat → 0) as `R = q >> 8`, `G = q & 0xFF`,
//! `B = q >> 8` (blue repeats the high byte, so the file still looks like terrain). The
//! sidecar's `encoding` is `"rg16"`. Decoding: `q = R · 256 + G`.

use crate::error::{IoError, Result};
use crate::png_common::{decode, describe, encode_rows};
use crate::quantise::quantise_u16;
use bozkir_core::Grid;
use std::path::Path;

/// Write `grid` as an `rg16` PNG, quantised over `[lo, hi]` metres.
pub fn write_rg16(path: impl AsRef<Path>, grid: &Grid<f64>, lo: f64, hi: f64) -> Result<()> {
    let path = path.as_ref();
    let codes = quantise_u16(path, grid, lo, hi)?;
    write_rg16_codes(path, &Grid::from_vec(grid.width(), grid.height(), codes))
}

/// Write 16-bit codes (already quantised) as an `rg16` PNG.
pub fn write_rg16_codes(path: impl AsRef<Path>, codes: &Grid<u16>) -> Result<()> {
    crate::write_times::encoding();
    let w = codes.width();
    encode_rows(path.as_ref(), w, codes.height(), png::ColorType::Rgb, png::BitDepth::Eight, |y, row| {
        for (o, &q) in row.chunks_exact_mut(3).zip(&codes.data()[y * w..(y + 1) * w]) {
            let hi8 = (q >> 8) as u8;
            o.copy_from_slice(&[hi8, (q & 0xFF) as u8, hi8]);
        }
    })
}

/// Read an `rg16` PNG (8-bit RGB or RGBA; blue and alpha are ignored) as 16-bit codes.
pub fn read_rg16(path: impl AsRef<Path>) -> Result<Grid<u16>> {
    let path = path.as_ref();
    let png = decode(path)?;
    let stride = match (png.color, png.depth) {
        (png::ColorType::Rgb, png::BitDepth::Eight) => 3,
        (png::ColorType::Rgba, png::BitDepth::Eight) => 4,
        (c, d) => {
            return Err(IoError::unsupported(path, format!("{} (rg16 needs 8-bit RGB)", describe(c, d))));
        }
    };
    let codes = png.data.chunks_exact(stride).map(|p| u16::from(p[0]) << 8 | u16::from(p[1])).collect();
    Ok(Grid::from_vec(png.width, png.height, codes))
}

/// Read any height PNG as normalised heights in `0..=1`: `rg16` (8-bit RGB/RGBA) as
/// `(R · 256 + G) / 65535`, 16-bit greyscale as `q / 65535`, 8-bit greyscale as `q / 255`.
/// Multiply by the sidecar's range to get metres. Other PNG types are refused.
pub fn read_height_png(path: impl AsRef<Path>) -> Result<Grid<f64>> {
    let path = path.as_ref();
    let png = decode(path)?;
    let data: Vec<f64> = match (png.color, png.depth) {
        (png::ColorType::Rgb, png::BitDepth::Eight) => {
            png.data.chunks_exact(3).map(|p| f64::from(u16::from(p[0]) << 8 | u16::from(p[1])) / 65535.0).collect()
        }
        (png::ColorType::Rgba, png::BitDepth::Eight) => {
            png.data.chunks_exact(4).map(|p| f64::from(u16::from(p[0]) << 8 | u16::from(p[1])) / 65535.0).collect()
        }
        (png::ColorType::Grayscale, png::BitDepth::Sixteen) => {
            png.data.chunks_exact(2).map(|b| f64::from(u16::from_be_bytes([b[0], b[1]])) / 65535.0).collect()
        }
        (png::ColorType::Grayscale, png::BitDepth::Eight) => png.data.iter().map(|&b| f64::from(b) / 255.0).collect(),
        (c, d) => {
            return Err(IoError::unsupported(
                path,
                format!("{} for a height map (use 8/16-bit grey or rg16)", describe(c, d)),
            ));
        }
    };
    Ok(Grid::from_vec(png.width, png.height, data))
}

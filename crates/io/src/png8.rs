//! 8-bit PNGs: greyscale masks and RGB previews.
//!
//! Masks: colour type 0, bit depth 8, one byte per pixel, row 0 at the top.
//! Previews: colour type 2, bit depth 8, bytes R, G, B per pixel.

use crate::error::{IoError, Result};
use crate::png_common::{decode, describe, encode};
use bozkir_core::Grid;
use std::path::Path;

/// Write an 8-bit greyscale PNG (masks: flow, sediment, slope, class, …).
pub fn write_png8(path: impl AsRef<Path>, grid: &Grid<u8>) -> Result<()> {
    let path = path.as_ref();
    encode(path, grid.width(), grid.height(), png::ColorType::Grayscale, png::BitDepth::Eight, grid.data())
}

/// Write an 8-bit RGB PNG (shaded previews).
pub fn write_rgb8(path: impl AsRef<Path>, grid: &Grid<[u8; 3]>) -> Result<()> {
    let path = path.as_ref();
    let bytes: Vec<u8> = grid.data().iter().flatten().copied().collect();
    encode(path, grid.width(), grid.height(), png::ColorType::Rgb, png::BitDepth::Eight, &bytes)
}

/// Read an 8-bit greyscale PNG; other types are refused as unsupported.
pub fn read_png8(path: impl AsRef<Path>) -> Result<Grid<u8>> {
    let path = path.as_ref();
    let png = decode(path)?;
    if png.color != png::ColorType::Grayscale || png.depth != png::BitDepth::Eight {
        return Err(IoError::unsupported(
            path,
            format!("{} (expected 8-bit greyscale)", describe(png.color, png.depth)),
        ));
    }
    Ok(Grid::from_vec(png.width, png.height, png.data))
}

/// Read an 8-bit RGB PNG (RGBA is accepted and its alpha dropped).
pub fn read_rgb8(path: impl AsRef<Path>) -> Result<Grid<[u8; 3]>> {
    let path = path.as_ref();
    let png = decode(path)?;
    let stride = match (png.color, png.depth) {
        (png::ColorType::Rgb, png::BitDepth::Eight) => 3,
        (png::ColorType::Rgba, png::BitDepth::Eight) => 4,
        (c, d) => return Err(IoError::unsupported(path, format!("{} (expected 8-bit RGB)", describe(c, d)))),
    };
    let px = png.data.chunks_exact(stride).map(|p| [p[0], p[1], p[2]]).collect();
    Ok(Grid::from_vec(png.width, png.height, px))
}

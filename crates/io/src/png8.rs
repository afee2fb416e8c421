//! 8-bit PNGs: greyscale masks and RGB previews.
//!
//! Masks: colour type 0, bit depth 8, one byte per pixel, row 0 at the top.
//! Previews: colour type 2, bit depth 8, bytes R, G, B per pixel.

use crate::error::{IoError, Result};
use crate::png_common::{decode, describe, encode, encode_rows};
use bozkir_core::Grid;
use std::path::Path;

/// Write an 8-bit greyscale PNG (masks: flow, sediment, slope, class, …).
pub fn write_png8(path: impl AsRef<Path>, grid: &Grid<u8>) -> Result<()> {
    crate::write_times::encoding();
    let path = path.as_ref();
    encode(path, grid.width(), grid.height(), png::ColorType::Grayscale, png::BitDepth::Eight, grid.data())
}

/// Write an 8-bit RGB PNG (shaded previews).
pub fn write_rgb8(path: impl AsRef<Path>, grid: &Grid<[u8; 3]>) -> Result<()> {
    crate::write_times::encoding();
    let path = path.as_ref();
    let (w, h) = (grid.width(), grid.height());
    encode_rows(path, w, h, png::ColorType::Rgb, png::BitDepth::Eight, |y, row| {
        row.copy_from_slice(grid.data()[y * w..(y + 1) * w].as_flattened())
    })
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

/// Read a photo: a PNG in greyscale, greyscale with alpha, RGB or RGBA, at 8 or 16 bits per
/// sample, as colours in `[0, 1]` (still sRGB-encoded; alpha dropped, grey spread to three
/// channels). Palette images and 1/2/4-bit greys are refused as unsupported, naming the file.
///
/// # Examples
///
/// ```
/// let dir = std::env::temp_dir().join(format!("bozkir-doc-photo-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("grey.png");
/// bozkir_io::write_png8(&path, &bozkir_core::Grid::from_vec(2, 1, vec![0u8, 255])).unwrap();
/// let photo = bozkir_io::read_photo(&path).unwrap();
/// assert_eq!(photo.data(), &[[0.0; 3], [1.0; 3]]);
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn read_photo(path: impl AsRef<Path>) -> Result<Grid<[f64; 3]>> {
    let path = path.as_ref();
    let png = decode(path)?;
    let channels = match png.color {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Indexed => {
            return Err(IoError::unsupported(path, "a palette (indexed) PNG; save the photo as RGB or greyscale"))
        }
    };
    let sample: Vec<f64> = match png.depth {
        png::BitDepth::Eight => png.data.iter().map(|&b| f64::from(b) / 255.0).collect(),
        png::BitDepth::Sixteen => {
            png.data.chunks_exact(2).map(|b| f64::from(u16::from_be_bytes([b[0], b[1]])) / 65535.0).collect()
        }
        d => {
            return Err(IoError::unsupported(
                path,
                format!("{} (a photo needs 8 or 16 bits per sample)", describe(png.color, d)),
            ))
        }
    };
    let px = sample.chunks_exact(channels).map(|p| if channels < 3 { [p[0]; 3] } else { [p[0], p[1], p[2]] }).collect();
    Ok(Grid::from_vec(png.width, png.height, px))
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

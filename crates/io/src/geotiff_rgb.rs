//! RGB(A) GeoTIFF orthophotos.
//!
//! Reads the first image of a TIFF whose photometric interpretation gives RGB or RGBA, 8 or 16
//! bits per sample (unsigned), or 32-bit float, interleaved (PlanarConfiguration 1), with any
//! compression the `tiff` crate decodes (none, LZW, Deflate, PackBits). The georeference is
//! read exactly as for DEMs ([`crate::geotiff`]): the same [`GeoTransform`] and [`CrsKind`].
//!
//! Colours are returned in 0..1: 8-bit samples divided by 255; 16-bit samples by 65 535, or by
//! 255 when no valid sample exceeds 255 (8-bit values stored in 16-bit fields, common in
//! exports); float samples as they are, or divided by 255 when some valid sample exceeds 1.5
//! (the original's rule). A pixel is invalid when its alpha is 0, when all three colour samples
//! equal the GDAL_NODATA value (GDAL's dataset mask), or when a float sample is not finite.

use crate::dem::{CrsKind, GeoTransform};
use crate::error::{IoError, Result};
use crate::geotiff::{geo_info, GeoInfo};
use crate::tiff_common::{map_tiff, open_any, read_image, sample_name};
use bozkir_core::Grid;
use std::path::{Path, PathBuf};
use tiff::decoder::DecodingResult;
use tiff::ColorType;

/// An orthophoto: colour per pixel in 0..1, a validity mask, and where it lies.
#[derive(Debug, Clone, PartialEq)]
pub struct Ortho {
    /// Red, green, blue in 0..1 (0 where invalid); `dx, dy` are the pixel size in metres.
    pub rgb: Grid<[f32; 3]>,
    /// `true` where the pixel holds data.
    pub valid: Grid<bool>,
    pub crs_kind: CrsKind,
    /// Pixel-to-CRS transform; `None` when the file has no (north-up) georeference.
    pub georef: Option<GeoTransform>,
    /// The file the image came from.
    pub source: PathBuf,
}

impl Ortho {
    /// Number of valid pixels.
    pub fn valid_count(&self) -> usize {
        self.valid.data().iter().filter(|&&v| v).count()
    }
}

/// Read an RGB or RGBA GeoTIFF (see the module documentation).
pub fn read_geotiff_rgb(path: impl AsRef<Path>) -> Result<Ortho> {
    let path = path.as_ref();
    let (mut dec, w, h, spp) = open_any(path)?;
    let colour = dec.colortype().map_err(|e| map_tiff(path, e))?;
    let alpha = match colour {
        ColorType::RGB(_) => false,
        ColorType::RGBA(_) => true,
        other => {
            return Err(IoError::unsupported(
                path,
                format!("TIFF colour type {other:?} with {spp} samples per pixel (need RGB or RGBA)"),
            ))
        }
    };
    let GeoInfo { crs_kind, cell: (dx, dy), transform, nodata, .. } = geo_info(path, &mut dec, w, h)?;
    let decoded = read_image(path, &mut dec)?;
    let ch = if alpha { 4 } else { 3 };
    // Samples as f64 with their full-scale value.
    let (samples, full): (Vec<f64>, f64) = match decoded {
        DecodingResult::U8(v) => (v.into_iter().map(f64::from).collect(), 255.0),
        DecodingResult::U16(v) => (v.into_iter().map(f64::from).collect(), 65_535.0),
        DecodingResult::F32(v) => (v.into_iter().map(f64::from).collect(), 1.0),
        other => {
            return Err(IoError::unsupported(
                path,
                format!("{} samples for an RGB image (need uint8, uint16 or float32)", sample_name(&other)),
            ))
        }
    };
    if samples.len() != w * h * ch {
        return Err(IoError::truncated(path, format!("{} samples decoded, {w}×{h}×{ch} expected", samples.len())));
    }
    let valid: Vec<bool> = samples
        .chunks_exact(ch)
        .map(|p| {
            let finite = p.iter().all(|v| v.is_finite());
            let nd = nodata.is_some_and(|nd| p[..3].iter().all(|&v| v == nd));
            let transparent = alpha && p[3] == 0.0;
            finite && !nd && !transparent
        })
        .collect();
    if !valid.iter().any(|&v| v) {
        return Err(IoError::AllNodata { path: path.to_path_buf(), cells: w * h });
    }
    let max = samples
        .chunks_exact(ch)
        .zip(&valid)
        .filter(|(_, &ok)| ok)
        .flat_map(|(p, _)| p[..3].iter().copied())
        .fold(0.0f64, f64::max);
    let scale = match full {
        65_535.0 if max <= 255.0 => 255.0,
        1.0 if max > 1.5 => 255.0,
        f => f,
    };
    let rgb: Vec<[f32; 3]> = samples
        .chunks_exact(ch)
        .zip(&valid)
        .map(|(p, &ok)| if ok { [0, 1, 2].map(|k| (p[k] / scale).clamp(0.0, 1.0) as f32) } else { [0.0; 3] })
        .collect();
    Ok(Ortho {
        rgb: Grid::from_vec(w, h, rgb).with_cell_size(dx, dy),
        valid: Grid::from_vec(w, h, valid),
        crs_kind,
        georef: transform,
        source: path.to_path_buf(),
    })
}

//! Single-channel float32 TIFF height maps (bit-exact storage).
//!
//! Layout: baseline little-endian TIFF, one image, `SamplesPerPixel = 1`,
//! `BitsPerSample = 32`, `SampleFormat = 3` (IEEE float), uncompressed strips, row 0 at the
//! top. The cell size is stored in `ModelPixelScaleTag` (33550) as `(dx, dy, 0)` metres with a
//! zero `ModelTiepointTag` (33922) and no GeoKeyDirectory, i.e. a local metric frame. NaN
//! samples are allowed and mean "no data".

use crate::error::{IoError, Result};
use crate::fsio::atomic_write;
use crate::limits::check_raster_size;
use crate::tiff_common::{f64_tag, map_tiff, open, read_image, sample_name};
use bozkir_core::Grid;
use std::path::Path;
use tiff::decoder::DecodingResult;
use tiff::encoder::{colortype::Gray32Float, TiffEncoder};
use tiff::tags::Tag;

/// Write `grid` as a float32 TIFF, bit for bit, with its cell size.
///
/// # Examples
///
/// A round trip through a temporary folder, read back as a float TIFF and as a GeoTIFF DEM:
///
/// ```
/// use bozkir_core::Grid;
/// use bozkir_io::{read_geotiff, read_tiff_f32, write_tiff_f32, CrsKind};
///
/// let dir = std::env::temp_dir().join(format!("bozkir-doc-tiff-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let h = Grid::from_fn(6, 3, |x, y| (x * y) as f32 + 0.25).with_cell_size(30.0, 20.0);
/// let path = dir.join("height.tif");
/// write_tiff_f32(&path, &h).unwrap();
///
/// let back = read_tiff_f32(&path).unwrap();
/// assert_eq!(back, h); // bit for bit, cell size included
/// let dem = read_geotiff(&path).unwrap();
/// assert_eq!(dem.crs_kind, CrsKind::Unknown); // no CRS: the pixel scale is taken as metres
/// assert_eq!((dem.heights.dx, dem.heights.dy), (30.0, 20.0));
/// assert_eq!(*dem.heights.get(5, 2), 10.25);
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn write_tiff_f32(path: impl AsRef<Path>, grid: &Grid<f32>) -> Result<()> {
    let path = path.as_ref();
    let (w, h) = check_raster_size(path, grid.width() as u64, grid.height() as u64)?;
    if !(grid.dx.is_finite() && grid.dy.is_finite()) {
        return Err(IoError::invalid(path, format!("cell size ({}, {}) must be finite", grid.dx, grid.dy)));
    }
    atomic_write(path, |wr| {
        let m = |e| map_tiff(path, e);
        let mut enc = TiffEncoder::new(wr).map_err(m)?;
        let mut img = enc.new_image::<Gray32Float>(w as u32, h as u32).map_err(m)?;
        img.encoder().write_tag(Tag::ModelPixelScaleTag, &[grid.dx, grid.dy, 0.0][..]).map_err(m)?;
        img.encoder().write_tag(Tag::ModelTiepointTag, &[0.0f64; 6][..]).map_err(m)?;
        img.write_data(grid.data()).map_err(m)
    })
}

/// Read a single-channel float32 TIFF. Cell size from `ModelPixelScaleTag` when present,
/// otherwise 1 m. Other sample formats are refused (use [`crate::read_geotiff`] for DEMs).
pub fn read_tiff_f32(path: impl AsRef<Path>) -> Result<Grid<f32>> {
    let path = path.as_ref();
    let (mut dec, w, h) = open(path)?;
    let scale = f64_tag(path, &mut dec, Tag::ModelPixelScaleTag)?;
    let data = match read_image(path, &mut dec)? {
        DecodingResult::F32(v) => v,
        other => {
            return Err(IoError::unsupported(
                path,
                format!("sample format {} (expected float32)", sample_name(&other)),
            ));
        }
    };
    if data.len() != w * h {
        return Err(IoError::truncated(path, format!("{} samples decoded, {w}×{h} expected", data.len())));
    }
    let (dx, dy) = match scale.as_deref() {
        Some([sx, sy, ..]) if sx.is_finite() && sy.is_finite() && *sx > 0.0 && *sy > 0.0 => (*sx, *sy),
        _ => (1.0, 1.0),
    };
    Ok(Grid::from_vec(w, h, data).with_cell_size(dx, dy))
}

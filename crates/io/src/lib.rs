//! File formats of bozkir: the only crate that knows them.
//!
//! Rasters: 16-bit greyscale PNG ([`write_png16`]), the browser's `rg16` PNG
//! ([`write_rg16`]), `.r16` raw ([`write_r16`]), float32 TIFF ([`write_tiff_f32`]), 8-bit
//! masks and RGB previews ([`write_png8`], [`write_rgb8`]), each with its reader; georeferenced
//! float32 GeoTIFF ([`write_geotiff_f32`], and Cloud-Optimised or compressed through
//! [`write_geotiff_f32_opts`] with [`TiffOptions`]); RGB(A)
//! GeoTIFF orthophotos ([`read_geotiff_rgb`]). DEMs:
//! GeoTIFF ([`read_geotiff`], with its [`GeoTransform`]) and NumPy NPZ ([`read_npz_dem`]), with cell sizes always in
//! metres. Point clouds: PLY ([`read_ply_points`]) and LAS/LAZ ([`read_las`]) (turned into height
//! fields by `bozkir_terrain::points`). Sidecars: [`Sidecar`]. Chunked voxel worlds: region files
//! ([`region`]: many chunks' payloads in one file, random access, checksummed) and MagicaVoxel
//! `.vox` ([`export::vox`]). Exact layouts are in
//! `docs/formats.md`.
//!
//! Contracts:
//! * every error is an [`IoError`] whose message names the file and what is wrong;
//! * sizes and counts from headers are checked against [`limits`] before allocation;
//! * writers write a temporary file in the target's directory and rename it when complete,
//!   so a failed write leaves nothing behind (and an existing target unchanged).

mod coords;
pub mod crop;
mod deflate_rle;
pub mod dem;
pub mod error;
pub mod export;
pub mod frames;
mod fsio;
pub mod georef;
pub mod geotiff;
pub mod geotiff_rgb;
pub mod geotiff_write;
#[cfg(not(target_arch = "wasm32"))]
pub mod gridded;
pub mod json;
pub mod las;
pub mod limits;
pub mod npy;
pub mod npz;
pub mod ply;
pub mod plyfmt;
pub mod png16;
pub mod png8;
mod png_common;
mod png_encode;
pub mod quantise;
pub mod r16;
pub mod region;
pub mod rg16;
pub mod scene;
pub mod sidecar;
mod tiff_common;
pub mod tiff_f32;
mod tiff_write;
pub mod write_times;
#[cfg(not(target_arch = "wasm32"))]
mod zarr;
#[cfg(not(target_arch = "wasm32"))]
pub mod zarr_store;

pub use crop::crop_largest_valid;
pub use dem::{metres_per_degree, CrsKind, Dem, GeoTransform};
pub use error::{IoError, Result};
pub use fsio::{defer_sync_under, end_deferred_sync, write_atomic};
pub use georef::{write_geotiff_f32, Crs, GeoKeySet, GeoKeyValue, GeoRef};
pub use geotiff::read_geotiff;
pub use geotiff_rgb::{read_geotiff_rgb, Ortho};
pub use geotiff_write::{write_geotiff_f32_opts, TiffCompression, TiffLayout, TiffOptions, TiffPredictor};
pub use las::{read_las, write_las, LasLayout, LasPoints};
pub use npz::{read_npz, read_npz_dem};
pub use ply::{read_ply_points, write_ply_points};
pub use png16::{read_png16, write_png16, write_png16_codes};
pub use png8::{read_photo, read_png8, read_rgb8, write_png8, write_rgb8};
pub use quantise::{dequantise_u16, quantise_u16};
pub use r16::{read_r16, write_r16, write_r16_codes};
pub use region::{write_region, RegionReader};
pub use rg16::{read_height_png, read_rg16, write_rg16, write_rg16_codes};
pub use sidecar::{read_sidecar, write_sidecar, Encoding, Sidecar, SidecarFile, SidecarGeo, SIDECAR_FORMAT_VERSION};
pub use tiff_f32::{read_tiff_f32, write_tiff_f32};

use std::path::Path;

/// Whether `path` is a Zarr store: a directory named `*.zarr` or holding `zarr.json`,
/// `.zgroup` or `.zarray`.
pub fn is_zarr_store(path: &Path) -> bool {
    path.is_dir()
        && (path.extension().is_some_and(|e| e.eq_ignore_ascii_case("zarr"))
            || ["zarr.json", ".zgroup", ".zarray"].iter().any(|f| path.join(f).is_file()))
}

/// Read a DEM by extension: `.tif`/`.tiff` (GeoTIFF), `.npz`, `.nc`/`.nc4`/`.cdf`/`.netcdf`
/// (NetCDF), a Zarr store (a directory, see [`is_zarr_store`]), or a height PNG (`.png`,
/// normalised 0–1 heights, cell size 1). Anything else is refused naming the file.
pub fn read_dem(path: impl AsRef<Path>) -> Result<Dem> {
    let path = path.as_ref();
    let ext = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    #[cfg(not(target_arch = "wasm32"))]
    if is_zarr_store(path) {
        return gridded::read_zarr_dem(path);
    }
    match ext.as_str() {
        "tif" | "tiff" => read_geotiff(path),
        "npz" => read_npz_dem(path),
        #[cfg(not(target_arch = "wasm32"))]
        "nc" | "nc4" | "cdf" | "netcdf" => gridded::read_netcdf_dem(path),
        #[cfg(not(target_arch = "wasm32"))]
        "zarr" => gridded::read_zarr_dem(path),
        "png" => Ok(Dem {
            heights: read_height_png(path)?,
            crs_kind: CrsKind::Unknown,
            georef: None,
            nodata: None,
            source: path.to_path_buf(),
            geokeys: None,
        }),
        other => Err(IoError::unsupported(
            path,
            format!("DEM file extension {other:?} (use .tif, .npz, .nc, a .zarr store or .png)"),
        )),
    }
}

//! One module per subcommand.

pub mod analyze;
pub mod bake;
pub mod bench_viewer;
pub mod capture;
pub mod classify;
pub mod demo;
pub mod erode;
pub mod export;
pub mod figures;
pub mod heightmap;
pub mod inspect;
pub mod patches;
pub mod pop_metric;
pub mod prepare;
pub mod profiles;
pub mod recipes;
pub mod serve;
pub mod site;
pub mod terrain;
pub mod tileset;
pub mod validate_rule;

use anyhow::{bail, Result};
use bozkir_core::Grid;
use std::path::Path;

/// Largest side `bozkir terrain` accepts: 8192² (about 14 GB of working memory) fits in 24 GB.
pub const MAX_TERRAIN_SIZE: usize = 8192;

/// A finite, positive option value, or an error naming the option.
pub fn positive(name: &str, v: f64) -> Result<f64> {
    if !v.is_finite() || v <= 0.0 {
        bail!("--{name} must be a finite number above 0, got {v}");
    }
    Ok(v)
}

/// A finite, non-negative option value, or an error naming the option.
pub fn non_negative(name: &str, v: f64) -> Result<f64> {
    if !v.is_finite() || v < 0.0 {
        bail!("--{name} must be a finite number ≥ 0, got {v}");
    }
    Ok(v)
}

/// Load a DEM by extension and crop it to its largest all-valid rectangle.
pub fn load_dem(path: &Path) -> Result<(Grid<f64>, String)> {
    if matches!(path.try_exists(), Ok(false)) {
        bail!("{}: no such file", path.display());
    }
    let dem = bozkir_io::read_dem(path)?;
    let (w, h) = (dem.heights.width(), dem.heights.height());
    let cropped = dem.crop_valid()?;
    let note = if cropped.width() != w || cropped.height() != h {
        format!("cropped {w}×{h} to the largest all-valid rectangle {}×{}", cropped.width(), cropped.height())
    } else {
        String::new()
    };
    Ok((cropped, note))
}

/// The file name of `path` (a sidecar's `source`), empty when it has none.
pub fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// A terrain folder written by `bozkir terrain`/`analyze`/`erode`/`heightmap`: its sidecar and
/// its heights in metres (see `bozkir_pipeline::folder::read_terrain_folder`); `what` names the
/// command in messages.
pub fn read_terrain_folder(dir: &Path, what: &str) -> Result<(bozkir_io::Sidecar, Grid<f64>)> {
    Ok(bozkir_pipeline::folder::read_terrain_folder(dir, what)?)
}

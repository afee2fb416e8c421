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
pub mod recipe;
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
    if !path.exists() {
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

/// A terrain folder written by `bozkir terrain`/`analyze`/`erode`/`heightmap`: its sidecar and
/// its heights in metres with the sidecar's cell size. Refuses (naming the file) a missing or
/// corrupt sidecar or `height.tif`, a size mismatch, fewer than 2×2 cells, a non-finite height,
/// or a non-positive cell size; `what` names the command in messages.
pub fn read_terrain_folder(dir: &Path, what: &str) -> Result<(bozkir_io::Sidecar, Grid<f64>)> {
    use anyhow::Context;
    if !dir.is_dir() {
        bail!("{}: not a terrain directory", dir.display());
    }
    let side = dir.join("terrain.json");
    let tif = dir.join("height.tif");
    for p in [&side, &tif] {
        if !p.exists() {
            bail!("{}: no such file", p.display());
        }
    }
    let sc = bozkir_io::read_sidecar(&side).with_context(|| format!("{}: cannot read", side.display()))?;
    let h32 = bozkir_io::read_tiff_f32(&tif).with_context(|| format!("{}: cannot read", tif.display()))?;
    let (w, h) = (h32.width(), h32.height());
    if (w, h) != (sc.width, sc.height) {
        bail!("{}: {w}×{h} cells, but {} says {}×{}", tif.display(), side.display(), sc.width, sc.height);
    }
    if w < 2 || h < 2 {
        bail!("{}: {w}×{h} cells; {what} needs at least 2×2", tif.display());
    }
    if let Some(i) = h32.data().iter().position(|v| !v.is_finite()) {
        bail!("{}: NaN or infinite height at column {}, row {}", tif.display(), i % w, i / w);
    }
    if !(sc.dx_m > 0.0 && sc.dy_m > 0.0 && sc.dx_m.is_finite() && sc.dy_m.is_finite()) {
        bail!("{}: cell size {} × {} m is not positive", side.display(), sc.dx_m, sc.dy_m);
    }
    let height = h32.map(|&v| f64::from(v)).with_cell_size(sc.dx_m, sc.dy_m);
    Ok((sc, height))
}

/// An optional f32 TIFF layer beside a terrain's `height.tif` (`None` when the file is absent);
/// refuses, naming the file, one that cannot be read or whose size is not `w × h`.
pub fn read_optional_layer(path: &Path, w: usize, h: usize) -> Result<Option<Grid<f32>>> {
    use anyhow::Context;
    if !path.exists() {
        return Ok(None);
    }
    let g = bozkir_io::read_tiff_f32(path).with_context(|| format!("{}: cannot read", path.display()))?;
    if (g.width(), g.height()) != (w, h) {
        bail!("{}: {}×{} cells, but height.tif is {w}×{h}", path.display(), g.width(), g.height());
    }
    Ok(Some(g))
}

//! One module per subcommand.

pub mod analyze;
pub mod antitile;
pub mod bake;
pub mod bench_viewer;
pub mod capture;
pub mod classify;
pub mod demo;
pub mod erode;
pub mod export;
pub mod figures;
pub mod gallery;
pub mod heightmap;
pub mod inspect;
pub mod lab;
pub mod mesh;
pub mod patches;
pub mod points;
pub mod pop_metric;
pub mod prepare;
pub mod profiles;
pub mod recipes;
pub mod render;
pub mod serve;
pub mod site;
pub mod terrain;
pub mod tiled;
pub mod tileset;
pub mod validate_rule;
pub mod world;

use crate::args::Voids;
use anyhow::{bail, Result};
use bozkir_core::Grid;
use bozkir_pipeline::folder::Placement;
use std::path::Path;

/// Largest side `bozkir terrain` accepts: 8192² (about 14 GB of working memory) fits in 24 GB.
pub const MAX_TERRAIN_SIZE: usize = 8192;

/// Largest side of `bozkir terrain --profile`: 16384², whose field with its margin (21 300²)
/// the GPU runs with its buffers split in two bindings (docs/gpu.md); on a machine with the
/// memory for it (about [`PROFILE_BYTES_PER_CELL`] a cell, checked before anything runs).
pub const MAX_PROFILE_SIZE: usize = 16384;

/// Peak host memory of `terrain --profile` per output cell: 164 B measured at 8192² on the
/// CPU, 168 B with `--gpu` (docs/benchmarks.md), rounded up.
pub const PROFILE_BYTES_PER_CELL: u64 = 172;

/// The kernel's `MemAvailable` in bytes (Linux), or `None` where it cannot be read.
pub fn memory_available() -> Option<u64> {
    // Hosts whose memory grows as it is used (some virtual machines report a small MemTotal at
    // first) can turn the check off.
    if std::env::var("BOZKIR_MEMORY_CHECK").is_ok_and(|v| v == "off") {
        return None;
    }
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// An error when `need` bytes of working memory (for `what`) exceed what the machine has
/// available: a run that would be killed for memory an hour in is refused at once.
pub fn check_memory(what: &str, need: u64, available: Option<u64>) -> Result<()> {
    if let Some(have) = available {
        if need > have {
            let gb = |b: u64| b as f64 / 1e9;
            bail!(
                "{what} needs about {:.1} GB of memory and this machine has {:.1} GB available; use a smaller \
                 --size or a machine with more memory",
                gb(need),
                gb(have)
            );
        }
    }
    Ok(())
}

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

/// The process's resource budget from `--max-memory` (GiB) and `--max-work` (steps); see
/// `bozkir_pipeline::budget`.
pub fn set_budget(max_memory_gib: f64, max_work: f64) -> Result<()> {
    let gib = positive("max-memory", max_memory_gib)?;
    let bytes = gib * (1u64 << 30) as f64;
    if bytes >= u64::MAX as f64 {
        bail!("--max-memory must be below 2^34 GiB, got {gib}");
    }
    let max_work = positive("max-work", max_work)?;
    bozkir_pipeline::budget::set_limits(bozkir_pipeline::budget::Budget { max_memory: bytes as u64, max_work });
    Ok(())
}

/// `cost` against the process's budget (`--max-memory`, `--max-work`).
pub fn check_budget(cost: &bozkir_pipeline::budget::Cost) -> Result<()> {
    Ok(bozkir_pipeline::budget::limits().check(cost)?)
}

/// `v` with `decimals` decimals, or in scientific notation when that would print a non-zero
/// value as zero (a 1e-18 m cell is not "0.00 m").
pub fn num(v: f64, decimals: usize) -> String {
    if v != 0.0 && v.is_finite() && v.abs() < 0.5 * 10f64.powi(-(decimals as i32)) {
        format!("{v:.2e}")
    } else {
        format!("{v:.decimals$}")
    }
}

/// Load a DEM by extension, its voids (no-data cells, `NaN`) kept, filled or cropped away as
/// `voids` says; also where it is (its georeference, moved to the kept window when cropped, and
/// the window's offset) for the outputs. The note says what became of the voids.
pub fn load_dem(path: &Path, voids: Voids) -> Result<(Grid<f64>, String, Placement)> {
    if matches!(path.try_exists(), Ok(false)) {
        bail!("{}: no such file", path.display());
    }
    let dem = bozkir_io::read_dem(path)?;
    let (w, h) = (dem.heights.width(), dem.heights.height());
    let n_voids = bozkir_terrain::voids::count_voids(&dem.heights);
    if voids != Voids::Crop {
        let placement = Placement { georef: dem.output_georef(), crop_offset: None };
        let share = 100.0 * n_voids as f64 / (w * h).max(1) as f64;
        let (grid, note) = match voids {
            _ if n_voids == 0 => (dem.heights, String::new()),
            Voids::Fill => {
                let filled = bozkir_terrain::voids::fill_voids(&dem.heights)
                    .ok_or_else(|| anyhow::anyhow!("{}: no valid height (every cell is no data)", path.display()))?;
                (filled, format!("filled {n_voids} void cells ({share:.2} %) by harmonic interpolation"))
            }
            _ => {
                if n_voids == w * h {
                    bail!("{}: no valid height (every cell is no data)", path.display());
                }
                (dem.heights, format!("kept {n_voids} void cells ({share:.2} %) as no data"))
            }
        };
        return Ok((grid, note, placement));
    }
    let (cropped, (c0, r0)) = dem.crop_valid_at()?;
    let was_cropped = cropped.width() != w || cropped.height() != h;
    let note = if was_cropped {
        format!(
            "cropped {w}×{h} to the largest all-valid rectangle {}×{} at column {c0}, row {r0}",
            cropped.width(),
            cropped.height()
        )
    } else {
        String::new()
    };
    let placement = Placement {
        georef: dem.output_georef().map(|g| g.window(c0, r0)),
        crop_offset: was_cropped.then_some((c0, r0)),
    };
    Ok((cropped, note, placement))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_size_past_the_memory_is_refused_with_both_figures() {
        let need = (16384u64 * 16384) * PROFILE_BYTES_PER_CELL;
        let e = check_memory("--size 16384", need, Some(24_000_000_000)).unwrap_err().to_string();
        assert!(e.contains("--size 16384 needs about 46.2 GB") && e.contains("24.0 GB available"), "{e}");
        assert!(check_memory("--size 16384", need, Some(128_000_000_000)).is_ok());
        // Where the figure cannot be read, nothing is refused.
        assert!(check_memory("--size 16384", need, None).is_ok());
        assert!(memory_available().is_some_and(|b| b > 0), "Linux has /proc/meminfo");
    }
}

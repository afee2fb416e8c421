//! `bozkir analyze`: hydrology and landform maps for any DEM the readers accept.

use crate::analysis::{analyse, print_stats, stats, timed, Options};
use crate::outputs::{finish, write_analysis, write_height, Staging};
use crate::progress::Bar;
use anyhow::Result;
use bozkir_io::{Encoding, Sidecar};
use bozkir_terrain::hydrology::fill_depth::fill_depth;
use bozkir_terrain::hydrology::priority_flood::fill_epsilon;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// DEM: GeoTIFF (.tif), NumPy archive (.npz) or height PNG (.png).
    pub dem: PathBuf,
    /// Output directory (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub scale: Scale,
    /// TPI radius in cells.
    #[arg(long, default_value_t = 8)]
    pub tpi_radius: usize,
    /// Stream threshold in cells (default: max(12, cells / 2000)).
    #[arg(long)]
    pub stream_threshold: Option<u32>,
    #[command(flatten)]
    pub gpu: crate::gpu::GpuArgs,
}

/// Metric scale for inputs that carry none (height PNGs are 0..1 with unit cells).
#[derive(clap::Args, Clone, Copy)]
pub struct Scale {
    /// Metres per cell, replacing the file's own spacing.
    #[arg(long)]
    pub cell_size: Option<f64>,
    /// Multiply heights by this many metres (for 0..1 height PNGs).
    #[arg(long)]
    pub height_range: Option<f64>,
}

impl Scale {
    pub fn apply(&self, mut h: bozkir_core::Grid<f64>) -> Result<bozkir_core::Grid<f64>> {
        if let Some(c) = self.cell_size {
            let c = super::positive("cell-size", c)?;
            h = h.with_cell_size(c, c);
        }
        if let Some(r) = self.height_range {
            let r = super::positive("height-range", r)?;
            let (dx, dy) = (h.dx, h.dy);
            h = h.map(|&v| v * r).with_cell_size(dx, dy);
        }
        Ok(h)
    }
}

pub fn run(a: Args, quiet: bool) -> Result<()> {
    let kernels = a.gpu.kernels()?;
    let bar = Bar::new(quiet);
    let mut timings = Vec::new();
    let (dem, note) = timed(&mut timings, "read", &bar, || super::load_dem(&a.dem))?;
    let dem = a.scale.apply(dem)?;
    if a.tpi_radius == 0 || a.tpi_radius > dem.width().max(dem.height()) {
        anyhow::bail!("--tpi-radius must be 1..={}, got {}", dem.width().max(dem.height()), a.tpi_radius);
    }
    let mut st = Staging::new(&a.out)?;
    let filled = timed(&mut timings, "fill", &bar, || -> Result<_> {
        use bozkir_terrain::kernels::Kernels;
        Ok(match kernels.fill(&dem)? {
            Some(f) => f,
            None => fill_epsilon(&dem),
        })
    })?;
    let lakes = fill_depth(&dem, &filled);
    let opts = Options { tpi_radius: a.tpi_radius, stream_threshold: a.stream_threshold, ..Options::default() };
    let an = analyse(&filled, &opts, &bar);
    timings.extend(an.timings.iter().copied());
    let (lo, hi) = timed(&mut timings, "write", &bar, || -> Result<(f64, f64)> {
        write_height(&mut st, "dem", "height", &dem)?;
        let r = write_height(&mut st, "filled", "filled", &filled)?;
        bozkir_io::write_tiff_f32(
            st.file("lake_depth.tif", "fill_depth_m", Encoding::TiffF32),
            &lakes.map(|&v| v as f32),
        )?;
        crate::outputs::write_unit_mask(&mut st, "lakes.png", "mask/lake_depth", &lakes)?;
        write_analysis(&mut st, &filled, &an)?;
        Ok(r)
    })?;
    bar.finish();
    let mut sc = Sidecar::new(dem.width(), dem.height(), (dem.dx, dem.dy), (lo, hi), Encoding::Png16);
    sc.generator = "bozkir analyze".into();
    sc.generator_version = env!("CARGO_PKG_VERSION").into();
    sc.source = a.dem.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    sc.settings.insert("tpi_radius".into(), a.tpi_radius.into());
    sc.backend = kernels.backend();
    sc.settings.insert("backends".into(), kernels.stages().into());
    let s = stats(&an);
    let lake_cells = lakes.data().iter().filter(|&&d| d > 0.0).count();
    finish(st, sc)?;
    {
        println!(
            "{}: {}×{} cells of {:.2} × {:.2} m, {:.1}–{:.1} m",
            a.dem.display(),
            dem.width(),
            dem.height(),
            dem.dx,
            dem.dy,
            lo,
            hi
        );
        if !note.is_empty() {
            println!("{note}");
        }
        println!("filled depressions     {:.2} % of cells raised", 100.0 * lake_cells as f64 / dem.len() as f64);
        print_stats(&s, &timings);
    }
    Ok(())
}

//! `bozkir heightmap`: import a DTM or a point cloud into the project's height format.

use crate::outputs::{finish, write_height, Staging};
use crate::progress::timed;
use crate::progress::Bar;
use anyhow::{bail, Result};
use bozkir_core::Grid;
use bozkir_io::{Encoding, Sidecar};
use bozkir_terrain::sculpt::warp::sample_bilinear;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// A DTM (.tif, .npz, .png) or a point cloud (.ply, .las, .laz) in its own frame with z up.
    pub input: PathBuf,
    /// Output directory (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// Longest side of the output in cells; larger inputs are resampled (bilinear).
    #[arg(long, default_value_t = 512)]
    pub size: usize,
    /// Passes of a light 3×3 smoothing, (N+S+W+E + 4·centre)/8.
    #[arg(long, default_value_t = 0)]
    pub smooth: usize,
    #[command(flatten)]
    pub scale: super::analyze::Scale,
}

/// Resample to `w × h` by bilinear interpolation (cell centres aligned at the corners).
fn resample(g: &Grid<f64>, w: usize, h: usize) -> Grid<f64> {
    let sx = if w > 1 { (g.width() - 1) as f64 / (w - 1) as f64 } else { 0.0 };
    let sy = if h > 1 { (g.height() - 1) as f64 / (h - 1) as f64 } else { 0.0 };
    Grid::from_fn(w, h, |x, y| sample_bilinear(g, x as f64 * sx, y as f64 * sy)).with_cell_size(g.dx * sx, g.dy * sy)
}

fn smooth(g: &Grid<f64>) -> Grid<f64> {
    let (w, h) = (g.width(), g.height());
    let at = |x: isize, y: isize| *g.get(x.clamp(0, w as isize - 1) as usize, y.clamp(0, h as isize - 1) as usize);
    Grid::from_fn(w, h, |x, y| {
        let (x, y) = (x as isize, y as isize);
        (at(x, y - 1) + at(x, y + 1) + at(x - 1, y) + at(x + 1, y) + 4.0 * at(x, y)) / 8.0
    })
    .with_cell_size(g.dx, g.dy)
}

pub fn run(a: Args, quiet: bool) -> Result<()> {
    if a.size < 8 || a.size > super::MAX_TERRAIN_SIZE * 2 {
        bail!("--size must be 8..={}, got {}", super::MAX_TERRAIN_SIZE * 2, a.size);
    }
    if !a.input.exists() {
        bail!("{}: no such file", a.input.display());
    }
    let bar = Bar::new(quiet);
    let mut timings = Vec::new();
    let ext = a.input.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    let (mut h, kind) = timed(&mut timings, "read", &bar, || -> Result<(Grid<f64>, &str)> {
        Ok(match ext.as_str() {
            "ply" => (bozkir_io::read_ply_height(&a.input, a.size)?, "point cloud (15th percentile per cell)"),
            "las" | "laz" => {
                let pts = bozkir_io::read_las(&a.input)?;
                if pts.xyz.is_empty() {
                    bail!("{}: no points", a.input.display());
                }
                (bozkir_io::height_from_points(&pts.xyz, a.size, 15.0, true), "point cloud (15th percentile per cell)")
            }
            _ => (super::load_dem(&a.input)?.0, "DTM"),
        })
    })?;
    h = a.scale.apply(h)?;
    let long = h.width().max(h.height());
    if long > a.size {
        let f = a.size as f64 / long as f64;
        let (w, hh) =
            (((h.width() as f64 * f).round() as usize).max(2), ((h.height() as f64 * f).round() as usize).max(2));
        h = timed(&mut timings, "resample", &bar, || resample(&h, w, hh));
    }
    for _ in 0..a.smooth {
        h = smooth(&h);
    }
    let mut st = Staging::new(&a.out)?;
    let (lo, hi) = write_height(&mut st, "height", "height", &h)?;
    bar.finish();
    let mut sc = Sidecar::new(h.width(), h.height(), (h.dx, h.dy), (lo, hi), Encoding::Png16);
    sc.generator = "bozkir heightmap".into();
    sc.generator_version = env!("CARGO_PKG_VERSION").into();
    sc.source = a.input.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    sc.settings.insert("smooth".into(), a.smooth.into());
    sc.settings.insert("input_kind".into(), kind.into());
    finish(st, sc)?;
    {
        println!(
            "{} ({kind}) → {}×{} cells of {:.3} × {:.3} m, {:.2}–{:.2} m",
            a.input.display(),
            h.width(),
            h.height(),
            h.dx,
            h.dy,
            lo,
            hi
        );
    }
    Ok(())
}

//! `bozkir heightmap`: import a DTM or a point cloud into the project's height format
//! (the workflow is `bozkir_pipeline::heightmap`).

use crate::outputs::{finish, write_height, Staging};
use crate::progress::Bar;
use anyhow::Result;
use bozkir_core::{Observer, Progress};
use bozkir_io::{Encoding, Sidecar};
use bozkir_pipeline::heightmap::{heightmap, CellChoice, HeightmapRequest, Rescale};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// A DTM (.tif, .npz, .png) or a point cloud (.ply, .las, .laz) in its own frame with z up.
    pub input: PathBuf,
    /// Output directory (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// Longest side of the output in cells (8..=16384). DEMs: larger ones are resampled
    /// (default 512). Point clouds: N × N cells over the p1–p99 square instead of cells sized
    /// from the point spacing; not with --cell-size.
    #[arg(long)]
    pub size: Option<usize>,
    /// Passes of a light 3×3 smoothing, (N+S+W+E + 4·centre)/8.
    #[arg(long, default_value_t = 0)]
    pub smooth: usize,
    /// DEMs: metres per cell, replacing the file's own spacing. Point clouds: the side of the
    /// cells in metres (LAS in feet is converted; a PLY's own units) (default: the mean point
    /// spacing, rounded up to a tidy value).
    #[arg(long)]
    pub cell_size: Option<f64>,
    /// Multiply heights by this many metres (for 0..1 height PNGs).
    #[arg(long)]
    pub height_range: Option<f64>,
    /// LAS/LAZ only: grid the points of these ASPRS classes, a comma list (e.g. 2 for ground,
    /// 2,9 for ground and water; default: every point).
    #[arg(long, value_delimiter = ',', value_name = "C,..")]
    pub classes: Option<Vec<u8>>,
}

/// The pipeline's steps on the progress bar.
struct Steps<'a>(&'a Bar);

impl Progress for Steps<'_> {
    fn report(&self, stage: &str, done: u64, total: u64) {
        self.0.report(stage, done, total);
    }
}

impl Observer for Steps<'_> {
    fn step(&self, name: &str) {
        self.0.stage(name);
    }

    fn note(&self, text: &str) {
        self.0.note(text);
    }
}

pub fn run(a: Args, quiet: bool) -> Result<()> {
    let req = HeightmapRequest {
        input: a.input.clone(),
        size: a.size,
        smooth: a.smooth,
        rescale: Rescale { cell_size: a.cell_size, height_range: a.height_range },
        classes: a.classes.clone(),
    };
    let bar = Bar::new(quiet);
    let out = heightmap(&req, &Steps(&bar))?;
    let h = out.heights;
    let kind = out.kind;
    let cloud = out.cloud;
    let mut st = Staging::new(&a.out)?;
    let (lo, hi) = write_height(&mut st, "height", "height", &h)?;
    bar.finish();
    let mut sc = Sidecar::new(h.width(), h.height(), (h.dx, h.dy), (lo, hi), Encoding::Png16);
    sc.generator = "bozkir heightmap".into();
    sc.generator_version = env!("CARGO_PKG_VERSION").into();
    sc.source = a.input.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    sc.settings.insert("smooth".into(), a.smooth.into());
    sc.settings.insert("input_kind".into(), kind.into());
    if let Some(c) = &cloud {
        sc.settings.insert("cell_size_from".into(), choice(c.choice).into());
        sc.settings.insert("occupied_share".into(), c.occupied_share().into());
        if let Some(spacing) = c.spacing {
            sc.settings.insert("point_spacing_m".into(), spacing.into());
        }
        if let Some(classes) = &a.classes {
            sc.settings.insert("classes".into(), classes.clone().into());
        }
    }
    finish(st, sc)?;
    println!(
        "{} ({kind}) → {}×{} cells of {} × {} m, {:.2}–{:.2} m",
        a.input.display(),
        h.width(),
        h.height(),
        super::num(h.dx, 3),
        super::num(h.dy, 3),
        lo,
        hi
    );
    if let Some(c) = &cloud {
        let spacing = c.spacing.map_or(String::new(), |s| format!(", mean spacing {} m", super::num(s, 3)));
        println!(
            "{} of {} points{spacing}; cells of {} m ({}); {:.1} % of {} cells hold a point, the rest filled by \
             inverse-distance weighting (8 nearest, power 2)",
            c.kept,
            c.points,
            super::num(c.cell_size, 3),
            choice(c.choice),
            c.occupied_share() * 100.0,
            c.cells
        );
    }
    Ok(())
}

/// How a point cloud's cell size was chosen, as printed and in the sidecar.
fn choice(c: CellChoice) -> &'static str {
    match c {
        CellChoice::Spacing => "from the point spacing",
        CellChoice::CellSize => "--cell-size",
        CellChoice::Size => "--size",
    }
}

//! `bozkir heightmap`: import a DTM or a point cloud into the project's height format
//! (the workflow is `bozkir_pipeline::heightmap`).

use crate::outputs::{finish, write_height, Staging};
use crate::progress::Bar;
use anyhow::Result;
use bozkir_core::{Observer, Progress};
use bozkir_io::{Encoding, Sidecar};
use bozkir_pipeline::heightmap::{heightmap, HeightmapRequest, Rescale};
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
    pub scale: crate::args::Scale,
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
}

pub fn run(a: Args, quiet: bool) -> Result<()> {
    let req = HeightmapRequest {
        input: a.input.clone(),
        size: a.size,
        smooth: a.smooth,
        rescale: Rescale { cell_size: a.scale.cell_size, height_range: a.scale.height_range },
    };
    let bar = Bar::new(quiet);
    let out = heightmap(&req, &Steps(&bar))?;
    let h = out.heights;
    let kind = out.kind;
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
    Ok(())
}

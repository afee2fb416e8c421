//! `bozkir tiled`: a world larger than memory, generated in tiles into a Zarr store (the coarse
//! pass once, then every tile on this machine's threads; `bozkir.tiled.generate` in Python runs
//! the same tiles on a Dask cluster).

use crate::progress::Bar;
use anyhow::{Context, Result};
use bozkir_pipeline::recipe::load_recipe;
use bozkir_pipeline::tiled::generate;
use bozkir_recipe::tiled::TiledPlan;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// A recipe with one `upsample` stage: a built-in name (`highlands`) or a TOML file.
    #[arg(long, default_value = "highlands")]
    pub recipe: String,
    /// World side in cells: (coarse − 1)·k + 1, e.g. 4097, 8193 or 16385 for highlands' 1025.
    #[arg(long, default_value_t = 4097)]
    pub size: usize,
    /// Tile (and Zarr chunk) side in cells.
    #[arg(long, default_value_t = 2048)]
    pub tile: usize,
    /// Halo in cells around each tile. Default: the stages' reach (exact), plus 64 cells where a
    /// stream-power stage runs after the upsample.
    #[arg(long)]
    pub halo: Option<usize>,
    /// Coarse pass size in cells (default: the recipe's size; the extent is kept).
    #[arg(long)]
    pub coarse: Option<usize>,
    /// Seed (default: the recipe's).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Keep the chunks already in the store (a store is reopened only when its metadata is this
    /// run's exactly) and compute the rest.
    #[arg(long)]
    pub resume: bool,
    /// The Zarr store to write (a folder; refused when it exists and is not this world's store).
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub gpu: crate::gpu::GpuArgs,
}

pub fn run(a: Args, quiet: bool) -> Result<()> {
    let recipe = load_recipe(&a.recipe)?;
    let seed = a.seed.unwrap_or(recipe.seed);
    let plan = TiledPlan::new(&recipe, a.size, a.tile, a.halo, a.coarse, None, seed)?;
    let kernels = a.gpu.kernels()?;
    let (nx, ny) = plan.tiles();
    if !quiet {
        eprintln!(
            "{}: {n}² cells of {:.4} m ({:.1} km a side), {} tiles of {}² with a {}-cell halo ({}), coarse pass {}² ×{}",
            recipe.name,
            plan.cell,
            plan.cell * (plan.size - 1) as f64 / 1000.0,
            nx * ny,
            plan.tile,
            plan.halo,
            if plan.exact() { "bit for bit the untiled run" } else { "drainage crosses tiles: not bit for bit" },
            plan.coarse,
            plan.factor,
            n = plan.size,
        );
    }
    crate::outputs::set_interrupt_note(format!(
        "the tiles written so far are kept in {}; the same command with --resume finishes the rest",
        a.out.display()
    ));
    let bar = Bar::new(quiet);
    let t0 = Instant::now();
    let report = generate(&plan, &a.out, a.resume, &kernels, &bar)
        .with_context(|| format!("tiled world into {}", a.out.display()))?;
    let timings = bar.timings();
    bar.finish();
    let secs = t0.elapsed().as_secs_f64();
    let cells = (plan.size * plan.size) as f64;
    println!(
        "{} tiles ({} written, {} kept) → {}: {}² cells in {:.1} s ({:.3} µs per cell, {} threads)",
        report.tiles,
        report.written,
        report.skipped,
        a.out.display(),
        plan.size,
        secs,
        secs * 1e6 / cells,
        rayon::current_num_threads()
    );
    for (name, d) in timings {
        println!("  {name:<12} {:>8.2} s", d.as_secs_f64());
    }
    Ok(())
}

//! `bozkir bake`: a terrain directory → `albedo.png` and `normal.png` textures at 1–4× the grid.

use crate::outputs::Staging;
use anyhow::{bail, Result};
use bozkir_core::NoProgress;
use bozkir_pipeline::bake::{bake, BakeInputs, BakeRequest};
use std::path::{Path, PathBuf};

/// Largest texture side `bozkir bake` writes.
pub const MAX_BAKE_SIZE: usize = 16_384;

#[derive(clap::Args)]
pub struct Args {
    /// A terrain directory (terrain.json and height.tif; wear.tif, deposit.tif or sediment.tif
    /// and accumulation.tif, when present, steer the materials).
    pub dir: PathBuf,
    /// Texels per grid cell along each side (1..=4): the textures are scale·width × scale·height.
    #[arg(long, default_value_t = 2)]
    pub scale: usize,
    /// Output directory (default: the terrain directory, whose terrain.json then lists the
    /// textures).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

pub fn run(a: Args, _quiet: bool) -> Result<()> {
    if !(1..=4).contains(&a.scale) {
        bail!("--scale {}: must be 1..=4 texels per cell", a.scale);
    }
    let inputs = BakeInputs::read(&a.dir)?;
    let (w, h) = (inputs.height.width(), inputs.height.height());
    let (out_w, out_h) = (w * a.scale, h * a.scale);
    if out_w > MAX_BAKE_SIZE || out_h > MAX_BAKE_SIZE {
        bail!("--scale {}: {out_w}×{out_h} texels exceeds the {MAX_BAKE_SIZE}-texel limit per side", a.scale);
    }
    // The budget before a folder is made.
    super::check_budget(&bozkir_pipeline::budget::bake_cost(w, h, a.scale))?;
    let out = a.out.clone().unwrap_or_else(|| a.dir.clone());
    let into_terrain = same_dir(&out, &a.dir);
    // A bake into the terrain folder adds its textures to the terrain's files; elsewhere its
    // outputs replace the previous run's.
    let st = if into_terrain { Staging::adding(&out)? } else { Staging::new(&out)? };
    bake(&BakeRequest { inputs: &inputs, scale: a.scale, into_terrain }, st.path(), &NoProgress)?;
    let moved = st.commit()?;
    println!("baked {out_w}×{out_h} albedo and micro-normal ({}× the {w}×{h} grid)", a.scale);
    println!("wrote {} files to {}", moved.len(), out.display());
    Ok(())
}

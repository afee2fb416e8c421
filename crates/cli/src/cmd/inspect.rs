//! `bozkir inspect FILE`: screen a Gaussian-splat capture (any format `bozkir-splat` reads)
//! before turning it into Wang tiles (`bozkir_pipeline::inspect`): count, bounds, SH degree,
//! plane fit, anisotropy, size against spacing, occupied columns, opacity, and a verdict with a
//! line explaining each number.

use anyhow::Result;
use bozkir_pipeline::inspect::inspect;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Splat file: .ply (3DGS), .splat, .glb (KHR_gaussian_splatting) or .spz.
    file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<()> {
    let r = inspect(&a.file, &bozkir_core::NoProgress)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&r.json())?);
    } else {
        print!("{}", r.text());
    }
    Ok(())
}

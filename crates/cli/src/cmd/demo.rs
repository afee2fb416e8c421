//! `bozkir demo`: the default terrain with every output, on built-in defaults.

use anyhow::Result;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Output directory.
    #[arg(long, default_value = "bozkir-demo")]
    out: PathBuf,
    /// Side in cells.
    #[arg(long, default_value_t = 512)]
    size: usize,
}

pub fn run(a: Args, quiet: bool) -> Result<()> {
    let t = super::terrain::Args {
        profile: "canyon".into(),
        recipe: None,
        seed: Some(3),
        size: Some(a.size),
        out: a.out.clone(),
        cell_size: Some(10.0),
        height_range: 1000.0,
        tpi_radius: None,
        octaves: None,
        freq: None,
        ridge: None,
        relief: None,
        iterations: None,
        incision: None,
        diffusion: None,
        uplift: None,
        terraces: None,
        dome: None,
        tilt: None,
        stretch: None,
    };
    super::terrain::run(t, quiet)?;
    {
        println!("open {} for the shaded relief", a.out.join("preview.png").display());
    }
    Ok(())
}

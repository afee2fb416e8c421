//! `bozkir antitile`: a photo over a plane under every anti-tiling mode, side by side, with the
//! repetition each leaves and the contrast each keeps.

use crate::outputs::Staging;
use anyhow::{bail, Result};
use bozkir_core::NoProgress;
use bozkir_pipeline::antitile::{antitile, AntitileRequest};
use bozkir_render::antitile::{Tiling, TilingParams};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The photo (PNG: grey or colour, 8 or 16 bits; sides that are not powers of two are
    /// resampled to the next power of two).
    pub photo: PathBuf,
    /// Output directory: <mode>.png per mode, sheet.png (all modes side by side), antitile.json.
    #[arg(long)]
    pub out: PathBuf,
    /// Modes, comma-separated, or `all`: plain, hex-linear, hex-vp, hex-mikkelsen, two-sample.
    #[arg(long, default_value = "all")]
    pub modes: String,
    /// Side of each rendering in pixels (a multiple of --repeats, at most 4096).
    #[arg(long, default_value_t = 512)]
    pub size: usize,
    /// Texture repeats across each rendering.
    #[arg(long, default_value_t = 8)]
    pub repeats: usize,
    /// Side of the hex lattice's triangles in texture repeats.
    #[arg(long, default_value_t = 0.5)]
    pub hex_size: f64,
    /// Seed of the offsets.
    #[arg(long, default_value_t = 0)]
    pub seed: u32,
}

pub fn run(a: Args, _quiet: bool) -> Result<()> {
    let modes: Vec<Tiling> = if a.modes == "all" {
        Tiling::ALL.to_vec()
    } else {
        a.modes
            .split(',')
            .map(|m| match Tiling::parse(m.trim()) {
                Some(t) => Ok(t),
                None => bail!("--modes: \"{m}\" is not a mode (one of {}, or all)", Tiling::names()),
            })
            .collect::<Result<_>>()?
    };
    if !(2..=64).contains(&a.repeats) {
        bail!("--repeats {}: must be 2..=64", a.repeats);
    }
    if a.size == 0 || a.size > 4096 || !a.size.is_multiple_of(a.repeats) || a.size / a.repeats < 4 {
        bail!(
            "--size {}: must be at most 4096 and a multiple of --repeats {} (4 pixels or more per repeat)",
            a.size,
            a.repeats
        );
    }
    if !(a.hex_size.is_finite() && (0.05..=16.0).contains(&a.hex_size)) {
        bail!("--hex-size {}: must be in [0.05, 16] texture repeats", a.hex_size);
    }
    if !a.photo.is_file() {
        bail!("{}: no such file", a.photo.display());
    }
    let st = Staging::new(&a.out)?;
    let req = AntitileRequest {
        photo: a.photo.clone(),
        modes,
        size: a.size,
        repeats: a.repeats,
        tiling: TilingParams { hex_size: a.hex_size, seed: a.seed, ..TilingParams::default() },
    };
    let reports = antitile(&req, st.path(), &NoProgress)?;
    let moved = st.commit()?;
    println!("{:<14} {:>8} {:>11} {:>9}", "mode", "fetches", "repetition", "contrast");
    for r in &reports {
        println!("{:<14} {:>8} {:>11.3} {:>9.3}", r.mode.name(), r.fetches, r.repetition, r.contrast);
    }
    println!("(repetition: lattice excess at the texture's period, 1 periodic, 0 none; contrast: luminance sd over the photo's at random points)");
    println!("wrote {} files to {}", moved.len(), a.out.display());
    Ok(())
}

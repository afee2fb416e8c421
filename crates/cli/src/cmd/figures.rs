//! `bozkir figures --out DIR`: the README's figures from the command line, with the software
//! renderer (no GPU, no browser). The workflow is `bozkir_pipeline::figures` (what each figure
//! shows is documented there); this command parses, finds the default validation rasters,
//! prints and writes through its staging.

use crate::outputs::{rgb_grid, Staging};
use anyhow::{bail, Context, Result};
use bozkir_pipeline::figures::{check, figures, FiguresRequest, ValidationSource};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Output directory for the figures and figures.json.
    #[arg(long)]
    pub out: PathBuf,
    /// A tileset made by `bozkir tileset` (folder or zip); default: the built-in starter tileset.
    #[arg(long)]
    pub tileset: Option<PathBuf>,
    /// A terrain folder made by `bozkir terrain` (terrain.json + height.tif); default: a
    /// generated profile (--profile, --seed, --size), as the viewer generates it.
    #[arg(long)]
    pub terrain: Option<PathBuf>,
    /// Profile of the generated terrain of the rule on/off figures.
    #[arg(long, default_value = "canyon")]
    pub profile: String,
    /// Seed of the generated terrains.
    #[arg(long, default_value_t = 3)]
    pub seed: u32,
    /// Side of the generated terrains in cells.
    #[arg(long, default_value_t = 128)]
    pub size: u32,
    /// The three (or more) profiles of rule-three-terrains.png.
    #[arg(long, value_delimiter = ',', default_values_t = ["canyon".to_string(), "hills".to_string(), "mesa".to_string()])]
    pub profiles: Vec<String>,
    /// Tiles per side of the grid.
    #[arg(long, default_value_t = 24)]
    pub grid: u32,
    /// Pixels per tile in the mosaics.
    #[arg(long, default_value_t = 32)]
    pub res: usize,
    /// Wang layout seed (the viewer's is 1).
    #[arg(long, default_value_t = 1)]
    pub layout_seed: u32,
    /// Share of the collecting class (the viewer's default 0.3); 0 = each cell takes its best class.
    #[arg(long, default_value_t = 0.3)]
    pub share: f64,
    /// "Follows height" (the viewer's default 0.4).
    #[arg(long, default_value_t = 0.4)]
    pub altitude: f64,
    /// Coherence (the viewer's default 3).
    #[arg(long, default_value_t = 3)]
    pub coherence: u32,
    /// Decisiveness (the viewer's default 3).
    #[arg(long, default_value_t = 3.0)]
    pub sharpness: f64,
    /// Relief of the drawn terrain (the viewer's default 1.2).
    #[arg(long, default_value_t = 1.2)]
    pub relief: f64,
    /// Detail relief (the viewer's default 1; 0 = off).
    #[arg(long, default_value_t = 1.0)]
    pub detail: f64,
    /// Vertical exaggeration of the hillshade (shading only).
    #[arg(long, default_value_t = 3.0)]
    pub exaggeration: f64,
    /// A validation.json written by `bozkir validate-rule`; default: run the validation on
    /// data/dem/rmnp-dem.tif + rmnp-rgb.tif (one grid, --validation-grid).
    #[arg(long)]
    pub validation: Option<PathBuf>,
    /// Grid of the validation plot (taken from the file; the one run when there is no file).
    #[arg(long, default_value_t = 24)]
    pub validation_grid: usize,
    /// Skip the validation plot.
    #[arg(long)]
    pub no_validation: bool,
}

/// Default rasters of the validation: `data/dem/…` under the working directory, else under the
/// repository this binary was built from.
fn default_rasters() -> Option<(PathBuf, PathBuf)> {
    let roots = [PathBuf::from("."), PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))];
    roots.iter().find_map(|r| {
        let (d, o) = (r.join("data/dem/rmnp-dem.tif"), r.join("data/dem/rmnp-rgb.tif"));
        (d.is_file() && o.is_file()).then_some((d, o))
    })
}

/// The request of these options; the validation's source resolved (`--no-validation`, a file,
/// or the repository's rasters when they are here).
fn request(a: &Args) -> FiguresRequest {
    let validation = if a.no_validation {
        ValidationSource::Skip
    } else if let Some(p) = &a.validation {
        ValidationSource::File(p.clone())
    } else {
        match default_rasters() {
            Some((dtm, ortho)) => ValidationSource::Rasters { dtm, ortho },
            None => ValidationSource::Unavailable,
        }
    };
    FiguresRequest {
        tileset: a.tileset.clone(),
        terrain: a.terrain.clone(),
        profile: a.profile.clone(),
        seed: a.seed,
        size: a.size,
        profiles: a.profiles.clone(),
        grid: a.grid,
        res: a.res,
        layout_seed: a.layout_seed,
        share: a.share,
        altitude: a.altitude,
        coherence: a.coherence,
        sharpness: a.sharpness,
        relief: a.relief,
        detail: a.detail,
        exaggeration: a.exaggeration,
        validation,
        validation_grid: a.validation_grid,
    }
}

pub fn run(a: Args, quiet: bool) -> Result<()> {
    let req = request(&a);
    check(&req)?;
    if let (true, Some(v)) = (a.no_validation, &a.validation) {
        if !v.is_file() {
            bail!("{}: no such validation.json", v.display());
        }
    }
    let out = figures(&req, &bozkir_core::NoProgress)?;
    if !quiet {
        let (label, shares, drive) = &out.rule_on;
        let shares = shares.iter().map(|s| format!("{:.3}", s)).collect::<Vec<_>>().join(" / ");
        println!("rule on {label}: shares {shares} (drive: {drive})");
    }
    if let Some(v) = &out.validation {
        for line in v.summary() {
            println!("{line}");
        }
    }
    if req.validation == ValidationSource::Unavailable {
        println!("validation-kappa.png: skipped (no --validation and no data/dem/rmnp-dem.tif + rmnp-rgb.tif here)");
    }
    let st = Staging::new(&a.out)?;
    for (name, im) in &out.images {
        bozkir_io::write_rgb8(st.unlisted(name), &rgb_grid(im)).with_context(|| format!("{name}: cannot write"))?;
    }
    std::fs::write(st.unlisted("figures.json"), serde_json::to_string_pretty(&out.report)? + "\n")
        .context("cannot write figures.json")?;
    let moved = st.commit()?;
    println!("wrote {} files to {}", moved.len(), a.out.display());
    Ok(())
}

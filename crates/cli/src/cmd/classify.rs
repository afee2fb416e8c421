//! `bozkir classify`: the bozkir material rule on a tile grid laid over a terrain directory.
//!
//! The terrain is laid under an `N × N` grid of tiles exactly as the viewer lays it
//! (`bozkir_material::tilegrid`), sampled at the viewer's oversampling, and classified with the
//! rule (`bozkir_material::classify`). Outputs: the class map, the decision with its confidence
//! (the viewer's overlay), per-class weight maps (what the viewer draws with its blend band) and
//! the soft Hybrid GSWT coverage α, plus `classify.json` with every setting and the shares.

use crate::args::RuleOpts;
use crate::outputs::Staging;
use anyhow::{Context, Result};
use bozkir_material::tilegrid::{Compat, GridMapping};
use bozkir_material::Rule;
use bozkir_pipeline::classify::{classify, ClassifyRequest};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// A terrain directory (terrain.json and height.tif; sediment.tif or deposit.tif, when
    /// present, is the erosion's sediment record and drives the collecting class).
    pub dir: PathBuf,
    /// Output directory (default: DIR/classes).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Number of classes (2–4 with the built-in rule).
    #[arg(long, default_value_t = 2)]
    pub classes: usize,
    /// Target share of class 0 for 2 classes (`0.3`), or one share per class (`0.2,0.5,0.3`).
    /// Without it each cell takes its best-scoring class.
    #[arg(long, value_delimiter = ',')]
    pub share: Vec<f64>,
    /// Tiles per side of the grid.
    #[arg(long, default_value_t = 24)]
    pub grid: usize,
    /// Tile side in world units.
    #[arg(long, default_value_t = 1.0)]
    pub tile: f64,
    /// Relief (the viewer's control, 0..2 typical).
    #[arg(long, default_value_t = 1.2)]
    pub relief: f64,
    /// Tiles the terrain spans across its long edge (default: the grid; the terrain is mirrored
    /// beyond its edges when the grid is larger).
    #[arg(long)]
    pub relief_scale: Option<f64>,
    /// Height samples per tile side (default: 4 up to 64 tiles, 2 up to 160, else 1).
    #[arg(long)]
    pub over: Option<usize>,
    /// Grid rotation in degrees (0..45).
    #[arg(long, default_value_t = 0.0)]
    pub angle: f64,
    /// Detail relief strength (0 = off, up to 3).
    #[arg(long, default_value_t = 1.0)]
    pub detail: f64,
    /// Which lattice hash the detail relief grain reads: `original` (the original viewer 5.0's;
    /// the classes equal the original's on any terrain) or `canonical` (bozkir's own hash)
    #[arg(long, default_value = "original", value_parser = parse_compat)]
    pub compat: Compat,
    #[command(flatten)]
    pub rule_opts: RuleOpts,
    /// Blend band width (0..1): cells with strength below it mix with their runner-up class in
    /// the weight maps (0 = hard maps).
    #[arg(long, default_value_t = 0.35)]
    pub blend: f64,
    /// A rule file (JSON, the shape of crates/material/rule.json) instead of the built-in rule.
    #[arg(long)]
    pub rule: Option<PathBuf>,
    /// Ignore the sediment record even when the terrain has one (drainage drives instead).
    #[arg(long)]
    pub no_sediment: bool,
    /// Pixels per tile in the preview images (decision.png, classes_rgb.png).
    #[arg(long, default_value_t = 8)]
    pub px: usize,
}

/// The request of a run: the rule read, the settings as the pipeline takes them.
fn request(a: &Args) -> Result<ClassifyRequest> {
    let rule = match &a.rule {
        Some(p) => {
            let text = std::fs::read_to_string(p).with_context(|| format!("{}: cannot read", p.display()))?;
            Rule::from_json(&text).with_context(|| format!("{}: not a usable rule file", p.display()))?
        }
        None => Rule::builtin(),
    };
    Ok(ClassifyRequest {
        terrain: a.dir.clone(),
        rule,
        rule_label: a.rule.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| "built-in".into()),
        classes: a.classes,
        share: a.share.clone(),
        mapping: GridMapping {
            n: a.grid,
            tile: a.tile,
            relief: a.relief,
            relief_scale: a.relief_scale,
            over: a.over,
            angle_deg: a.angle,
            detail: a.detail,
            compat: a.compat,
        },
        altitude: a.rule_opts.altitude,
        coherence: a.rule_opts.coherence,
        sharpness: a.rule_opts.sharpness,
        blend: a.blend,
        use_sediment: !a.no_sediment,
        px: a.px,
    })
}

pub fn run(a: Args, quiet: bool) -> Result<()> {
    let req = request(&a)?;
    req.validate()?;
    // The budget before the terrain is read or a folder made.
    let m = &req.mapping;
    super::check_budget(&bozkir_pipeline::budget::classify_cost(m.n, m.over(), req.px, req.classes))?;
    let (_sc, height) = super::read_terrain_folder(&a.dir, "classify")?;
    let out = a.out.clone().unwrap_or_else(|| a.dir.join("classes"));
    let st = Staging::new(&out)?;
    let c = classify(&req, &height, &st.unlisted(""), &bozkir_core::NoProgress)?;
    let moved = st.commit()?;
    if !quiet {
        let n = a.grid;
        let share_txt: Vec<String> =
            c.positions.iter().zip(&c.shares).map(|(p, s)| format!("{p} {:.1} %", s * 100.0)).collect();
        println!(
            "classified a {n}×{n} grid ({} samples per tile, drive: {}): {}",
            c.over,
            c.decision.source.name(),
            share_txt.join(", ")
        );
        println!("mean strength {:.3}; {:.1} % of tiles inside the blend band", c.mean_strength, c.undecided * 100.0);
    }
    println!("wrote {} files to {}", moved.len(), out.display());
    Ok(())
}

fn parse_compat(s: &str) -> Result<Compat, String> {
    Compat::from_name(s).map_err(|e| e.to_string())
}

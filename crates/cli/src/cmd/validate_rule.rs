//! `bozkir validate-rule`: the bozkir rule scored against real ground (inventory §3.6). The
//! workflow is `bozkir_pipeline::validation::validate_rule`, the protocol
//! `bozkir_material::validation`; this command parses, prints and writes.
//!
//! Two inputs:
//!
//! * rasters — `--dtm` and `--ortho` (and optionally `--dsm`) GeoTIFFs in the same CRS. The
//!   window is the largest square (in metres, on the DTM grid) whose DTM cells are valid and
//!   whose centres fall on valid orthophoto (and DSM) pixels: the largest all-valid rectangle,
//!   then the centred square inside it. Truths: **colour** — per grid cell, the fraction of the
//!   orthophoto pixels (centres inside the cell) nearer the vegetation colour than the bare
//!   one; **height** (with a DSM) — the fraction of DSM pixels standing more than `--veg-height`
//!   above the DTM (bilinear at the pixel centre).
//! * a point cloud — `--las` (LAS or LAZ), coordinates converted to metres by its GeoKeys. The
//!   window is the centred square of the ground points' (class 2) extent; the DTM is the 15th
//!   percentile of ground z on a `k × k` raster over it (`k = ⌊√(ground/4)⌋`, about four ground
//!   points a cell, clamped to 8..1024), empty cells filled from their neighbours. Truths:
//!   **class** — share of points classed vegetation (3, 4, 5); **height** — share of the
//!   `4 × 4` sub-cells whose highest point (buildings, class 6, left out) stands more than
//!   `--veg-height` above the DTM;
//!   **colour** when the points carry RGB. Noise (classes 7, 18) is left out everywhere.
//!
//! For each grid `n`, heights are sampled bilinearly at the centres of a `(4n)²` grid over the
//! window, and `bozkir_material::validate::evaluate` scores the rule, its variants and single
//! cues against each truth, with the torus-shift chance level. Truths with no vegetation at all
//! (share 0 or 1) are reported and skipped.

use crate::outputs::Staging;
use anyhow::{bail, Context, Result};
use bozkir_material::validation::{Settings, SAND_RGB, SCRUB_RGB};
use bozkir_material::Rule;
use bozkir_pipeline::validation::{validate_rule, ValidationInput, ValidationRequest};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Bare-earth DTM (GeoTIFF with a georeference).
    #[arg(long)]
    pub dtm: Option<PathBuf>,
    /// Orthophoto (RGB or RGBA GeoTIFF, 8 or 16 bit) in the DTM's CRS.
    #[arg(long)]
    pub ortho: Option<PathBuf>,
    /// Surface model (GeoTIFF) in the DTM's CRS: adds the vegetation-height truth.
    #[arg(long)]
    pub dsm: Option<PathBuf>,
    /// A classified point cloud (.las or .laz) instead of rasters.
    #[arg(long)]
    pub las: Option<PathBuf>,
    /// Grid sizes (cells per side) to score.
    #[arg(long, value_delimiter = ',', default_values_t = [16usize, 24, 32])]
    pub grids: Vec<usize>,
    /// Reference colour of vegetation, r,g,b in 0..1 (default: the original's scrub).
    #[arg(long, value_parser = parse_rgb)]
    pub veg_rgb: Option<[f64; 3]>,
    /// Reference colour of bare ground, r,g,b in 0..1 (default: the original's sand).
    #[arg(long, value_parser = parse_rgb)]
    pub bare_rgb: Option<[f64; 3]>,
    /// Height above the DTM (metres) from which a surface counts as vegetation.
    #[arg(long, default_value_t = 0.25)]
    pub veg_height: f64,
    /// A rule file (JSON, the shape of crates/material/rule.json) instead of the built-in rule.
    #[arg(long)]
    pub rule: Option<PathBuf>,
    #[command(flatten)]
    pub rule_opts: crate::args::RuleOpts,
    /// Output directory for validation.json and one figure per grid (nothing is written
    /// without it).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

fn parse_rgb(s: &str) -> std::result::Result<[f64; 3], String> {
    let v: Vec<f64> = s
        .split(',')
        .map(|t| t.trim().parse::<f64>().map_err(|_| format!("{t:?} is not a number")))
        .collect::<std::result::Result<_, _>>()?;
    if v.len() != 3 || v.iter().any(|x| !(0.0..=1.0).contains(x)) {
        return Err(format!("{s:?}: give three numbers r,g,b in 0..1"));
    }
    Ok([v[0], v[1], v[2]])
}

/// The input mode from the options: `--las`, or `--dtm` and `--ortho` (and `--dsm`).
fn input(a: &Args) -> Result<ValidationInput> {
    let rasters = a.dtm.is_some() || a.ortho.is_some() || a.dsm.is_some();
    Ok(match (&a.las, rasters) {
        (Some(_), true) => bail!("give either --las or --dtm/--ortho(/--dsm), not both"),
        (None, false) => {
            bail!("nothing to validate against: give --dtm DTM.tif --ortho RGB.tif [--dsm DSM.tif], or --las FILE")
        }
        (Some(las), false) => ValidationInput::Points { las: las.clone() },
        (None, true) => match (&a.dtm, &a.ortho) {
            (Some(dtm), Some(ortho)) => {
                ValidationInput::Rasters { dtm: dtm.clone(), ortho: ortho.clone(), dsm: a.dsm.clone() }
            }
            _ => bail!("the raster mode needs both --dtm and --ortho"),
        },
    })
}

/// The built-in rule, or the rule file of `--rule`.
fn rule(a: &Args) -> Result<(Rule, String)> {
    Ok(match &a.rule {
        Some(p) => {
            if !p.exists() {
                bail!("{}: no such file", p.display());
            }
            let text = std::fs::read_to_string(p).with_context(|| format!("{}: cannot read", p.display()))?;
            let rule = Rule::from_json(&text).with_context(|| format!("{}: not a usable rule file", p.display()))?;
            (rule, p.display().to_string())
        }
        None => (Rule::builtin(), "built-in".into()),
    })
}

pub fn run(a: Args, quiet: bool) -> Result<()> {
    // Options first: nothing is read or written before they are known to be usable.
    let input = input(&a)?;
    let settings = Settings {
        grids: a.grids.clone(),
        veg_rgb: a.veg_rgb.unwrap_or(SCRUB_RGB),
        bare_rgb: a.bare_rgb.unwrap_or(SAND_RGB),
        veg_height: a.veg_height,
        altitude: a.rule_opts.altitude,
        coherence: a.rule_opts.coherence,
        sharpness: a.rule_opts.sharpness,
    };
    settings.check()?;
    let (rule, rule_name) = rule(&a)?;
    Settings::check_rule(&rule)?;
    if let Some(out) = &a.out {
        if out.exists() && !out.is_dir() {
            bail!("{}: exists and is not a directory", out.display());
        }
    }
    let req = ValidationRequest { input, settings, rule, rule_name };
    let outcome = validate_rule(&req, &bozkir_core::NoProgress)?;
    for line in outcome.summary() {
        println!("{line}");
    }
    let Some(out) = &a.out else {
        return Ok(());
    };
    let st = Staging::new(out)?;
    for (n, im) in &outcome.figures {
        bozkir_io::write_rgb8(st.unlisted(&format!("figure_{n}.png")), im)?;
    }
    let text = serde_json::to_string_pretty(&outcome.report)?;
    std::fs::write(st.unlisted("validation.json"), text + "\n").context("cannot write validation.json")?;
    let moved = st.commit()?;
    if !quiet {
        println!("figures: per truth, fraction | truth labels (top share) | rule decision; green = vegetation");
    }
    println!("wrote {} files to {}", moved.len(), out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rgb_option_parses_and_refuses() {
        assert_eq!(parse_rgb("0.1, 0.2,0.3").unwrap(), [0.1, 0.2, 0.3]);
        assert!(parse_rgb("0.1,0.2").is_err());
        assert!(parse_rgb("0.1,0.2,1.5").is_err());
        assert!(parse_rgb("a,b,c").is_err());
    }
}

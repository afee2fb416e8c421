//! `bozkir prepare CAPTURE --out FILE`: bring a splat capture into the tile pipeline's frame —
//! ground plane to `xy` with `+z` up (upside-down test), recentred on the ground — and
//! optionally clean it (crop cylinder, large splats, floaters); see `bozkir_pipeline::prepare`.

use anyhow::{bail, Context, Result};
use bozkir_pipeline::prepare::{prepare_capture, report_json, report_text};
use bozkir_splat::capture::prepare::PrepareConfig;
use bozkir_splat::formats::Format;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Splat capture: .ply (3DGS), .splat, .glb (KHR_gaussian_splatting) or .spz.
    capture: PathBuf,
    /// Output splat file (.ply, .splat, .glb or .spz); written only when everything succeeded.
    #[arg(long)]
    out: PathBuf,
    /// Keep the capture's orientation (no ground-plane alignment).
    #[arg(long)]
    no_align: bool,
    /// Keep the capture's position (no recentring on the ground).
    #[arg(long)]
    no_recentre: bool,
    /// Turn the aligned capture over (when the up-side test got it wrong).
    #[arg(long)]
    flip: bool,
    /// Remove the background (crop cylinder), oversized splats and floaters.
    #[arg(long)]
    clean: bool,
    /// With --clean: crop radius, percentile of horizontal distance to the median centre.
    #[arg(long, default_value_t = 60.0)]
    radius_pct: f64,
    /// With --clean: floater threshold in standard deviations of the 8-neighbour mean distance (0 = off).
    #[arg(long, default_value_t = 2.0)]
    floater_std: f64,
    /// With --clean: drop splats whose largest axis is above this percentile.
    #[arg(long, default_value_t = 99.0)]
    max_extent_pct: f64,
    /// Truncate spherical harmonics to this degree (0–3).
    #[arg(long)]
    sh: Option<u8>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<()> {
    if Format::from_path(&a.out).is_none() {
        bail!("{}: the output must end in .ply, .splat, .glb or .spz", a.out.display());
    }
    if a.flip && a.no_align {
        bail!("--flip turns the aligned capture over; it cannot be combined with --no-align");
    }
    let cfg = PrepareConfig {
        align: !a.no_align,
        recentre: !a.no_recentre,
        flip: a.flip,
        clean: a.clean,
        radius_pct: a.radius_pct,
        floater_std: a.floater_std,
        max_extent_pct: a.max_extent_pct,
        sh_degree: a.sh,
        ..PrepareConfig::default()
    };
    if let Err(e) = cfg.check() {
        bail!("bad option: {e}");
    }
    let out = prepare_capture(&a.capture, &cfg, &bozkir_core::NoProgress)?;
    if let Some(dir) = a.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    }
    bozkir_splat::formats::save(&a.out, &out.splats)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report_json(&a.capture, &a.out, &out.report))?);
    } else {
        print!("{}", report_text(&a.capture, &a.out, &out.report, &cfg));
    }
    Ok(())
}

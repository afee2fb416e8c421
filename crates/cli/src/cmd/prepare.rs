//! `bozkir prepare CAPTURE --out FILE`: bring a splat capture into the tile pipeline's frame —
//! ground plane to `xy` with `+z` up (upside-down test), recentred on the ground — and
//! optionally clean it (crop cylinder, large splats, floaters); see `bozkir_splat::capture::prepare`.

use anyhow::{bail, Context, Result};
use bozkir_splat::capture::prepare::{prepare, PrepareConfig, PrepareReport, UpTest, UPSIDE_DOWN_BELOW};
use bozkir_splat::formats::Format;
use std::path::{Path, PathBuf};

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
    if !a.capture.exists() {
        bail!("{}: no such file", a.capture.display());
    }
    let input = bozkir_splat::formats::load(&a.capture)?;
    let out = prepare(&input, &cfg).map_err(|e| anyhow::anyhow!("{}: {e}", a.capture.display()))?;
    if let Some(dir) = a.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    }
    bozkir_splat::formats::save(&a.out, &out.splats)?;
    if a.json {
        let mut v = serde_json::to_value(&out.report)?;
        let o = v.as_object_mut().expect("a struct serialises to an object");
        o.insert("input".into(), a.capture.display().to_string().into());
        o.insert("output".into(), a.out.display().to_string().into());
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print!("{}", report(&a.capture, &a.out, &out.report, &cfg));
    }
    Ok(())
}

fn vec3(v: [f64; 3]) -> String {
    format!("({:.4}, {:.4}, {:.4})", v[0], v[1], v[2])
}

fn num(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.2}")
    } else {
        "∞".into()
    }
}

/// The text report.
fn report(input: &Path, output: &Path, r: &PrepareReport, cfg: &PrepareConfig) -> String {
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    line(format!("{}: {} splats, SH degree {}", input.display(), r.count_in, r.sh_degree_in));
    match &r.align {
        Some(al) => {
            line(format!(
                "  align      tilt {:.2}° → {:.3}°, normal {} → {}",
                al.tilt_before_deg,
                al.tilt_after_deg,
                vec3(al.normal_before),
                vec3(al.normal_after)
            ));
            let test = match al.up_test {
                UpTest::Skew => format!("height skew {:+.3}", al.skew),
                UpTest::Mass => format!("mass test (height skew {:+.3} too small)", al.skew),
            };
            line(format!(
                "             planarity {:.4} → {:.4} ({} fit, {} splats); up side by {test}",
                al.planarity_before, al.planarity_after, al.fit, al.fit_splats
            ));
            if al.flipped {
                line("             turned over as asked (--flip)".into());
            }
            if al.turned_over {
                line("             the capture was upside down: turned over".into());
            }
        }
        None => line("  align      skipped (--no-align)".into()),
    }
    line(format!(
        "  upness     {} (input as given: {}); (p97 − p50) / (p50 − p3) of heights, below {UPSIDE_DOWN_BELOW} reads upside down",
        num(r.upness),
        num(r.upness_before)
    ));
    match r.recentre {
        Some(t) => {
            line(format!("  recentre   moved by {} (ground: median x, median y, 5th-percentile z to 0)", vec3(t)))
        }
        None => line("  recentre   skipped (--no-recentre)".into()),
    }
    match &r.clean {
        Some(c) => {
            line(format!(
                "  clean      crop cylinder (radius {:.4}, p{} of horizontal distance): removed {}",
                c.cylinder_radius, cfg.radius_pct, c.removed_cylinder
            ));
            line(format!(
                "             large splats (largest σ above {:.4}, p{}): removed {}",
                c.large_threshold, cfg.max_extent_pct, c.removed_large
            ));
            if cfg.floater_std > 0.0 {
                line(format!(
                    "             floaters ({}-neighbour mean distance above {:.4}, mean + {}·std): removed {}, {} kept for opacity > {}",
                    cfg.floater_k, c.floater_threshold, cfg.floater_std, c.removed_floaters, c.kept_opaque, cfg.keep_opacity
                ));
            } else {
                line("             floaters: off (--floater-std 0)".into());
            }
        }
        None => line("  clean      off (--clean to remove background, large splats and floaters)".into()),
    }
    if r.sh_degree_out != r.sh_degree_in {
        line(format!("  SH         degree {} → {}", r.sh_degree_in, r.sh_degree_out));
    }
    line(format!("wrote {} splats to {}", r.count_out, output.display()));
    for w in &r.warnings {
        line(format!("warning: {w}"));
    }
    out
}

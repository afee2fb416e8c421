//! The `prepare` workflow: bring a splat capture into the tile pipeline's frame — ground plane
//! to `xy` with `+z` up (upside-down test), recentred on the ground — and optionally clean it
//! (crop cylinder, large splats, floaters); see [`bozkir_splat::capture::prepare`]. The report
//! comes as text or JSON for the face to print.

use crate::PipelineError;
use bozkir_core::Observer;
use bozkir_splat::capture::prepare::{prepare, PrepareConfig, PrepareReport, Prepared, UpTest, UPSIDE_DOWN_BELOW};
use std::path::Path;

/// Loads the capture at `path` and prepares it with `cfg` (checked by the caller with
/// [`PrepareConfig::check`]); the face writes [`Prepared::splats`] where it wants them.
///
/// # Examples
///
/// ```
/// use bozkir_splat::capture::prepare::PrepareConfig;
/// use bozkir_splat::capture::{synth, SynthParams};
/// let dir = std::env::temp_dir().join(format!("bozkir-doc-prepare-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("ground.splat");
/// let p = SynthParams { side_m: 2.0, density: 2000.0, tilt_deg: 20.0, ..SynthParams::default() };
/// bozkir_splat::formats::save(&path, &synth(&p).unwrap().splats).unwrap();
/// let cfg = PrepareConfig::default();
/// let out = bozkir_pipeline::prepare::prepare_capture(&path, &cfg, &bozkir_core::NoProgress).unwrap();
/// assert!(out.report.align.as_ref().unwrap().tilt_after_deg < 1.0);
/// let text = bozkir_pipeline::prepare::report_text(&path, &dir.join("out.ply"), &out.report, &cfg);
/// assert!(text.contains("recentre"));
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn prepare_capture(path: &Path, cfg: &PrepareConfig, obs: &dyn Observer) -> Result<Prepared, PipelineError> {
    if !path.exists() {
        return Err(PipelineError::NoSuchFile(path.to_path_buf()));
    }
    obs.step("load");
    let input = bozkir_splat::formats::load(path)?;
    obs.step("prepare");
    prepare(&input, cfg).map_err(|e| PipelineError::Step { context: path.display().to_string(), source: Box::new(e) })
}

/// The report as JSON, with the input and output paths added.
pub fn report_json(input: &Path, output: &Path, r: &PrepareReport) -> serde_json::Value {
    let mut v = serde_json::to_value(r).expect("a report serialises");
    let o = v.as_object_mut().expect("a struct serialises to an object");
    o.insert("input".into(), input.display().to_string().into());
    o.insert("output".into(), output.display().to_string().into());
    v
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

/// The text report of a run with `cfg` from `input` to `output`: one line per step (align, the
/// up-side test, recentre, clean, SH), the count written, then the warnings.
pub fn report_text(input: &Path, output: &Path, r: &PrepareReport, cfg: &PrepareConfig) -> String {
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

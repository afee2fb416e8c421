//! The `inspect` workflow: screen a Gaussian-splat capture (any format `bozkir-splat` reads)
//! before turning it into Wang tiles — count, bounds, SH degree, plane fit, anisotropy, size
//! against spacing, occupied columns, opacity, and a verdict — with the report as text (a line
//! explaining each number) or JSON.

use crate::PipelineError;
use bozkir_core::Observer;
use bozkir_splat::capture::screen::{screen, ScreenParams, Screening};
use bozkir_splat::formats::Format;
use std::path::{Path, PathBuf};

/// A screened capture.
#[derive(Debug, Clone)]
pub struct Inspection {
    /// The capture's file.
    pub file: PathBuf,
    /// Its format (from the extension).
    pub format: Format,
    /// The thresholds it was screened against.
    pub params: ScreenParams,
    /// The measurements and the verdict.
    pub screening: Screening,
}

/// Loads the capture at `path` and screens it with the default [`ScreenParams`].
///
/// # Examples
///
/// ```
/// use bozkir_splat::capture::{synth, SynthParams};
/// let dir = std::env::temp_dir().join(format!("bozkir-doc-inspect-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("ground.splat");
/// let p = SynthParams { side_m: 2.0, density: 2000.0, ..SynthParams::default() };
/// bozkir_splat::formats::save(&path, &synth(&p).unwrap().splats).unwrap();
/// let r = bozkir_pipeline::inspect::inspect(&path, &bozkir_core::NoProgress).unwrap();
/// assert!(r.screening.count > 1000);
/// assert!(r.text().contains(".splat (antimatter15)"));
/// assert_eq!(r.json()["format"], "splat");
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn inspect(path: &Path, obs: &dyn Observer) -> Result<Inspection, PipelineError> {
    if matches!(path.try_exists(), Ok(false)) {
        return Err(PipelineError::NoSuchFile(path.to_path_buf()));
    }
    obs.step("load");
    let splats = bozkir_splat::formats::load(path)?;
    let format = Format::from_path(path).expect("load accepted the extension");
    obs.step("screen");
    let params = ScreenParams::default();
    let screening = screen(&splats, &params);
    Ok(Inspection { file: path.to_path_buf(), format, params, screening })
}

impl Inspection {
    /// The screening as JSON, with the file and the format's short name added.
    pub fn json(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(&self.screening).expect("a screening serialises");
        let o = v.as_object_mut().expect("a struct serialises to an object");
        o.insert("file".into(), self.file.display().to_string().into());
        o.insert("format".into(), self.format.name().into());
        v
    }

    /// The text report: one line per measurement, each followed by what it means, then the
    /// verdict and its reasons.
    pub fn text(&self) -> String {
        report(&self.file.display().to_string(), format_name(self.format), &self.screening, &self.params)
    }
}

fn format_name(f: Format) -> &'static str {
    match f {
        Format::Ply => "3DGS PLY",
        Format::Splat => ".splat (antimatter15)",
        Format::Glb => "glTF binary, KHR_gaussian_splatting",
        Format::Spz => "SPZ (Niantic)",
    }
}

/// Text explaining the line above, indented under its value.
fn why(s: &str) -> String {
    format!("{:15}→ {s}", "")
}

/// Lines, each ending in a newline.
fn lines(l: Vec<String>) -> String {
    l.into_iter().map(|s| s + "\n").collect()
}

fn pct(v: f64) -> String {
    format!("{:.1} %", 100.0 * v)
}

fn ratio(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.2}")
    } else {
        "∞".into()
    }
}

/// The text report: the header, bounds, plane and anisotropy here, the rest by [`report_spread`].
fn report(file: &str, format: &str, r: &Screening, p: &ScreenParams) -> String {
    let mut l = Vec::new();
    l.push(format!("{file}: {format}, {} splats, SH degree {}", r.count, r.sh_degree));
    let (b, e) = (r.bounds, r.bounds.extent());
    l.push(format!(
        "  bounds       x {:.3} … {:.3}, y {:.3} … {:.3}, z {:.3} … {:.3} (extent {:.3} × {:.3} × {:.3})",
        b.min[0], b.max[0], b.min[1], b.max[1], b.min[2], b.max[2], e[0], e[1], e[2]
    ));
    l.push(why("axis-aligned box of the splat centres, in the file's units"));
    let pl = &r.plane;
    l.push(format!(
        "  plane        normal ({:.3}, {:.3}, {:.3}), up {}, tilt {:.1}°, planarity {:.4} ({} fit, {} splats)",
        pl.normal[0],
        pl.normal[1],
        pl.normal[2],
        ["+x", "+y", "+z"][pl.up_axis],
        pl.tilt_deg,
        pl.planarity,
        pl.fit,
        pl.splats
    ));
    l.push(why(&format!(
        "smallest / largest PCA eigenvalue of the centres (best of the 90 % core and its lowest and highest 30 % bands); \
         0 is a perfect plane, ≥ {} is not ground; tilt is the angle between the normal and the nearest axis",
        p.max_planarity
    )));
    let an = &r.anisotropy;
    l.push(format!(
        "  anisotropy   median {:.2}, p99 {:.2}, max {:.2}, {} above 1000",
        an.median,
        an.p99,
        an.max,
        pct(an.share_over_1000)
    ));
    l.push(why(&format!(
        "longest / shortest axis of each splat; needles (median > {} or p99 > {}) are not ground material",
        p.max_anisotropy_median, p.max_anisotropy_p99
    )));
    lines(l) + &report_spread(r, p)
}

/// The report's lines on size against spacing, columns, opacity and the verdict.
fn report_spread(r: &Screening, p: &ScreenParams) -> String {
    let mut l = Vec::new();
    let ss = &r.size_spacing;
    l.push(format!(
        "  size/spacing {:.4} / {:.4} = {} ({} splats sampled, {} sitting on another splat)",
        ss.median_size,
        ss.median_spacing,
        ratio(ss.ratio),
        ss.sampled,
        pct(ss.duplicate_share)
    ));
    l.push(why(&format!(
        "median long axis (σ) over median distance to the nearest other centre; below {} the surface has holes",
        p.min_size_spacing
    )));
    let c = &r.columns;
    l.push(format!(
        "  columns      {g} × {g} grid over the plane, {} occupied, {:.0}/{:.0}/{:.0} splats per column (p50/p90/p99), thickness {:.3}",
        pct(c.occupied_share),
        c.per_column[0],
        c.per_column[1],
        c.per_column[2],
        c.thickness,
        g = c.grid
    ));
    l.push(why(&format!(
        "share of grid cells (p1–p99 of the plot) holding splats, below {} too sparse; thickness = median height range of a \
         column / plot width, above {} several layers (an object, not ground)",
        pct(p.min_occupied),
        p.max_thickness
    )));
    let o = &r.opacity;
    l.push(format!(
        "  opacity      median {:.2}, mean {:.2}; {} below 0.1, {} in 0.1–0.9, {} above 0.9",
        o.median,
        o.mean,
        pct(o.below_0_1),
        pct(o.between),
        pct(o.above_0_9)
    ));
    l.push(why(
        "after the sigmoid; many faint splats (below 0.1) mean haze or floaters, many mid values a soft capture",
    ));
    l.push(format!("verdict: {}", r.verdict.text()));
    for reason in &r.reasons {
        l.push(format!("  - {reason}"));
    }
    lines(l)
}

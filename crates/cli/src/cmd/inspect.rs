//! `bozkir inspect FILE`: screen a Gaussian-splat capture (any format `bozkir-splat` reads)
//! before turning it into Wang tiles: count, bounds, SH degree, plane fit, anisotropy, size
//! against spacing, occupied columns, opacity, and a verdict with a line explaining each number.

use anyhow::{bail, Result};
use bozkir_splat::capture::screen::{screen, ScreenParams, Screening};
use bozkir_splat::formats::Format;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Splat file: .ply (3DGS), .splat, .glb (KHR_gaussian_splatting) or .spz.
    file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

fn format_name(f: Format) -> &'static str {
    match f {
        Format::Ply => "3DGS PLY",
        Format::Splat => ".splat (antimatter15)",
        Format::Glb => "glTF binary, KHR_gaussian_splatting",
        Format::Spz => "SPZ (Niantic)",
    }
}

pub fn run(a: Args) -> Result<()> {
    if matches!(a.file.try_exists(), Ok(false)) {
        bail!("{}: no such file", a.file.display());
    }
    let splats = bozkir_splat::formats::load(&a.file)?;
    let format = Format::from_path(&a.file).expect("load accepted the extension");
    let params = ScreenParams::default();
    let r = screen(&splats, &params);
    if a.json {
        let mut v = serde_json::to_value(&r)?;
        let o = v.as_object_mut().expect("a struct serialises to an object");
        o.insert("file".into(), a.file.display().to_string().into());
        o.insert("format".into(), format.name().into());
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    print!("{}", report(&a.file.display().to_string(), format_name(format), &r, &params));
    Ok(())
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

/// The text report.
fn report(file: &str, format: &str, r: &Screening, p: &ScreenParams) -> String {
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    let why = |s: &str| format!("{:15}→ {s}", "");
    line(format!("{file}: {format}, {} splats, SH degree {}", r.count, r.sh_degree));
    let (b, e) = (r.bounds, r.bounds.extent());
    line(format!(
        "  bounds       x {:.3} … {:.3}, y {:.3} … {:.3}, z {:.3} … {:.3} (extent {:.3} × {:.3} × {:.3})",
        b.min[0], b.max[0], b.min[1], b.max[1], b.min[2], b.max[2], e[0], e[1], e[2]
    ));
    line(why("axis-aligned box of the splat centres, in the file's units"));
    let pl = &r.plane;
    line(format!(
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
    line(why(&format!(
        "smallest / largest PCA eigenvalue of the centres (best of the 90 % core and its lowest and highest 30 % bands); \
         0 is a perfect plane, ≥ {} is not ground; tilt is the angle between the normal and the nearest axis",
        p.max_planarity
    )));
    let an = &r.anisotropy;
    line(format!(
        "  anisotropy   median {:.2}, p99 {:.2}, max {:.2}, {} above 1000",
        an.median,
        an.p99,
        an.max,
        pct(an.share_over_1000)
    ));
    line(why(&format!(
        "longest / shortest axis of each splat; needles (median > {} or p99 > {}) are not ground material",
        p.max_anisotropy_median, p.max_anisotropy_p99
    )));
    let ss = &r.size_spacing;
    line(format!(
        "  size/spacing {:.4} / {:.4} = {} ({} splats sampled, {} sitting on another splat)",
        ss.median_size,
        ss.median_spacing,
        ratio(ss.ratio),
        ss.sampled,
        pct(ss.duplicate_share)
    ));
    line(why(&format!(
        "median long axis (σ) over median distance to the nearest other centre; below {} the surface has holes",
        p.min_size_spacing
    )));
    let c = &r.columns;
    line(format!(
        "  columns      {g} × {g} grid over the plane, {} occupied, {:.0}/{:.0}/{:.0} splats per column (p50/p90/p99), thickness {:.3}",
        pct(c.occupied_share),
        c.per_column[0],
        c.per_column[1],
        c.per_column[2],
        c.thickness,
        g = c.grid
    ));
    line(why(&format!(
        "share of grid cells (p1–p99 of the plot) holding splats, below {} too sparse; thickness = median height range of a \
         column / plot width, above {} several layers (an object, not ground)",
        pct(p.min_occupied),
        p.max_thickness
    )));
    let o = &r.opacity;
    line(format!(
        "  opacity      median {:.2}, mean {:.2}; {} below 0.1, {} in 0.1–0.9, {} above 0.9",
        o.median,
        o.mean,
        pct(o.below_0_1),
        pct(o.between),
        pct(o.above_0_9)
    ));
    line(why("after the sigmoid; many faint splats (below 0.1) mean haze or floaters, many mid values a soft capture"));
    line(format!("verdict: {}", r.verdict.text()));
    for reason in &r.reasons {
        line(format!("  - {reason}"));
    }
    out
}

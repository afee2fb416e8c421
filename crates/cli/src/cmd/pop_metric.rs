//! `bozkir pop-metric`: the popping metric (`bozkir_render::popping`) over a captured sweep of
//! frames: a folder of PNGs (`f0000.png`, `f0001.png`, … in name order) or a `.zip` of them
//! (the viewer's capture sweep; stored or deflate entries). Prints one line per consecutive
//! pair and a summary; `--json` writes the scores, `--out` the residual heat map of the worst
//! pair. `--against` scores a second sweep (another ordering of the same path) pair by pair.

use anyhow::{Context, Result};
use bozkir_pipeline::pop_metric::{pop_metric, Frames, PopMetric, PopMetricRequest};
use bozkir_render::popping::{PopParams, Sweep};
use bozkir_render::Rgb8Image;
use serde_json::json;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// Frames: a folder of PNGs (f0000.png, f0001.png, … in name order) or a .zip of them.
    pub frames: PathBuf,
    /// A second sweep of the same camera path (e.g. the other ordering), compared pair by pair.
    #[arg(long)]
    pub against: Option<PathBuf>,
    /// Block side in pixels for the motion search.
    #[arg(long, default_value_t = 32)]
    pub block: usize,
    /// Search radius around the global shift (at least 4 + block/8 is used).
    #[arg(long, default_value_t = 12)]
    pub search: usize,
    /// Residual (0..1 luma) above which a pixel counts as popped.
    #[arg(long, default_value_t = 0.02)]
    pub threshold: f64,
    /// Write the scores as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write residual heat maps of the worst pair (and its two frames) into this folder.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

fn print_sweep(label: &str, s: &Sweep, names: &[String]) {
    println!("{label}: {} frames, {} pairs", names.len(), s.pairs.len());
    println!(
        "{:>5}  {:<24} {:>8} {:>8}  {:>8} {:>8} {:>8} {:>8}",
        "pair", "frames", "dx", "dy", "raw", "mean", "p99", "popped%"
    );
    for p in &s.pairs {
        println!(
            "{:>5}  {:<24} {:>8.2} {:>8.2}  {:>8.5} {:>8.5} {:>8.4} {:>8.3}",
            p.index,
            format!("{}→{}", names[p.index], names[p.index + 1]),
            p.dx,
            p.dy,
            p.raw_mean,
            p.mean,
            p.p99,
            100.0 * p.popped
        );
    }
    println!(
        "{label}: mean residual {:.5}, peak {:.5} at pair {} ({}→{}), peak/mean {:.2}; popped {:.3} % mean, {:.3} % peak",
        s.mean,
        s.peak,
        s.worst,
        names[s.worst],
        names[s.worst + 1],
        if s.mean > 0.0 { s.peak / s.mean } else { 0.0 },
        100.0 * s.popped_mean,
        100.0 * s.popped_peak
    );
}

/// The comparison of the two sweeps, pair by pair and in sum.
fn print_comparison(r: &PopMetric, other: &Frames) {
    let Some(c) = &r.against else { return };
    print_sweep("against", &c.sweep, &other.names);
    println!("{:>5}  {:>10} {:>10} {:>8}", "pair", "mean", "against", "ratio");
    for x in &c.pairs {
        println!("{:>5}  {:>10.5} {:>10.5} {:>8.3}", x.index, x.mean, x.against, x.ratio);
    }
    println!(
        "comparison: mean residual {:.5} vs {:.5} (ratio {:.3}); the first sweep is lower on {} of {} pairs",
        r.sweep.mean,
        c.sweep.mean,
        c.ratio,
        c.lower,
        r.sweep.pairs.len()
    );
}

/// Writes the worst pair's figures into `out`; returns the paths written.
fn write_figures(r: &PopMetric, out: &Path) -> Result<Vec<PathBuf>> {
    let Some(f) = &r.figures else { return Ok(Vec::new()) };
    std::fs::create_dir_all(out).with_context(|| format!("{}: cannot create", out.display()))?;
    let write = |name: &str, im: &Rgb8Image| -> Result<PathBuf> {
        let path = out.join(name);
        bozkir_io::write_rgb8(&path, &crate::outputs::rgb_grid(im))
            .with_context(|| format!("{}: cannot write", path.display()))?;
        Ok(path)
    };
    let mut wrote =
        vec![write("worst-residual.png", &f.residual)?, write("worst-a.png", &f.a)?, write("worst-b.png", &f.b)?];
    if let Some(im) = &f.against_residual {
        // The same pair of the other sweep, for a side-by-side look.
        wrote.push(write("against-residual.png", im)?);
    }
    Ok(wrote)
}

pub fn run(a: Args) -> Result<()> {
    let params = PopParams { block: a.block, search: a.search, threshold: a.threshold };
    // Parameters are checked before any frame is read.
    params.validate().map_err(|e| anyhow::anyhow!("--{e}"))?;
    let frames = Frames::read(&a.frames)?;
    let against = a.against.as_deref().map(Frames::read).transpose()?;
    let req = PopMetricRequest { params, frames, against, figures: a.out.is_some() };
    let mut r = pop_metric(&req, &bozkir_core::NoProgress)?;
    let p = &req.params;
    println!("popping metric: block {} px, search radius {} px, threshold {}", p.block, p.radius(), p.threshold);
    print_sweep("sweep", &r.sweep, &req.frames.names);
    if let Some(other) = &req.against {
        print_comparison(&r, other);
    }
    if let Some(out) = &a.out {
        let wrote = write_figures(&r, out)?;
        r.report["figures"] = json!(wrote.iter().map(|p| p.display().to_string()).collect::<Vec<_>>());
        println!(
            "wrote {} (worst pair {}: black → red → yellow → white over 0..{} luma; grey = not measured)",
            wrote.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "),
            r.sweep.worst,
            4.0 * p.threshold
        );
    }
    if let Some(j) = &a.json {
        if let Some(dir) = j.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
        }
        crate::outputs::write_json(j, &r.report)?;
        println!("wrote {}", j.display());
    }
    Ok(())
}

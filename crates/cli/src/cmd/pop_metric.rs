//! `bozkir pop-metric`: the popping metric (`bozkir_render::popping`) over a captured sweep of
//! frames: a folder of PNGs (`f0000.png`, `f0001.png`, … in name order) or a `.zip` of them
//! (the viewer's capture sweep; stored or deflate entries). Prints one line per consecutive
//! pair and a summary; `--json` writes the scores, `--out` the residual heat map of the worst
//! pair. `--against` scores a second sweep (another ordering of the same path) pair by pair.

use anyhow::{bail, Context, Result};
use bozkir_pipeline::pop_metric::{pop_metric, Frames, PopMetric, PopMetricRequest};
use bozkir_render::popping::{Luma, PopParams, Sweep};
use bozkir_render::Rgb8Image;
use serde_json::json;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Most frames read from one sweep.
const MAX_FRAMES: usize = 10_000;
/// Largest frame side accepted.
const MAX_SIDE: u32 = 8192;

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

/// Decode one PNG (any colour type or depth the png crate expands to 8 bits) to luma.
fn decode_png(bytes: &[u8], name: &str) -> Result<Luma> {
    let mut dec = png::Decoder::new(bytes);
    dec.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = dec.read_info().with_context(|| format!("{name}: not a PNG"))?;
    let (w, h) = (reader.info().width, reader.info().height);
    if w > MAX_SIDE || h > MAX_SIDE {
        bail!("{name}: {w}×{h} pixels, larger than {MAX_SIDE} on a side");
    }
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).with_context(|| format!("{name}: cannot decode"))?;
    let ch = info.color_type.samples();
    let px = &buf[..info.width as usize * info.height as usize * ch];
    // Rows may be padded to `line_size`; repack when they are.
    let line = info.line_size;
    let packed: Vec<u8> = if line == info.width as usize * ch {
        px.to_vec()
    } else {
        buf.chunks(line).take(info.height as usize).flat_map(|r| r[..info.width as usize * ch].to_vec()).collect()
    };
    Luma::from_u8(info.width as usize, info.height as usize, ch, &packed)
        .with_context(|| format!("{name}: unexpected pixel layout"))
}

fn is_png(name: &str) -> bool {
    name.to_ascii_lowercase().ends_with(".png")
}

/// Frames of a sweep and their names, in name order.
pub fn read_frames(path: &Path) -> Result<Vec<(String, Luma)>> {
    if !path.exists() {
        bail!("{}: no such folder or zip", path.display());
    }
    let mut out = Vec::new();
    if path.is_dir() {
        let mut names: Vec<PathBuf> = std::fs::read_dir(path)
            .with_context(|| format!("{}: cannot list", path.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && p.file_name().and_then(|n| n.to_str()).is_some_and(is_png))
            .collect();
        names.sort();
        if names.len() > MAX_FRAMES {
            bail!("{}: {} frames, more than {MAX_FRAMES}", path.display(), names.len());
        }
        for p in names {
            let bytes = std::fs::read(&p).with_context(|| format!("{}: cannot read", p.display()))?;
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
            out.push((name.clone(), decode_png(&bytes, &p.display().to_string())?));
        }
    } else {
        let f = std::fs::File::open(path).with_context(|| format!("{}: cannot open", path.display()))?;
        let mut z = zip::ZipArchive::new(f)
            .with_context(|| format!("{}: not a folder or a zip of PNG frames", path.display()))?;
        let mut names: Vec<String> =
            z.file_names().filter(|n| is_png(n) && !n.ends_with('/')).map(String::from).collect();
        names.sort();
        if names.len() > MAX_FRAMES {
            bail!("{}: {} frames, more than {MAX_FRAMES}", path.display(), names.len());
        }
        for n in names {
            let mut e = z.by_name(&n).with_context(|| format!("{}: {n}: cannot open", path.display()))?;
            if e.size() > 256 << 20 {
                bail!("{}: {n}: larger than 256 MiB", path.display());
            }
            let mut bytes = Vec::with_capacity(e.size() as usize);
            e.read_to_end(&mut bytes).with_context(|| format!("{}: {n}: cannot read", path.display()))?;
            let label = format!("{}: {n}", path.display());
            out.push((n.clone(), decode_png(&bytes, &label)?));
        }
    }
    if out.len() < 2 {
        bail!("{}: {} PNG frame(s); a sweep needs at least 2", path.display(), out.len());
    }
    Ok(out)
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

/// A sweep read and decoded, labelled by its path.
fn frames_of(path: &Path) -> Result<Frames> {
    let (names, lumas) = read_frames(path)?.into_iter().unzip();
    Ok(Frames { label: path.display().to_string(), names, lumas })
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
    let frames = frames_of(&a.frames)?;
    let against = a.against.as_deref().map(frames_of).transpose()?;
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
        std::fs::write(j, serde_json::to_string_pretty(&r.report)? + "\n")
            .with_context(|| format!("{}: cannot write", j.display()))?;
        println!("wrote {}", j.display());
    }
    Ok(())
}

//! `bozkir pop-metric`: the popping metric (`bozkir_render::popping`) over a captured sweep of
//! frames: a folder of PNGs (`f0000.png`, `f0001.png`, … in name order) or a `.zip` of them
//! (the viewer's capture sweep; stored or deflate entries). Prints one line per consecutive
//! pair and a summary; `--json` writes the scores, `--out` the residual heat map of the worst
//! pair. `--against` scores a second sweep (another ordering of the same path) pair by pair.

use anyhow::{bail, Context, Result};
use bozkir_render::popping::{compare, sweep, Luma, PopParams, Sweep};
use bozkir_render::Rgb8Image;
use serde_json::{json, Value};
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

fn sweep_json(s: &Sweep, names: &[String]) -> Value {
    json!({
        "frames": names,
        "pairs": s.pairs.iter().map(|p| json!({
            "index": p.index, "a": names[p.index], "b": names[p.index + 1],
            "dx": p.dx, "dy": p.dy, "raw_mean": p.raw_mean, "mean": p.mean, "p99": p.p99, "popped": p.popped,
        })).collect::<Vec<_>>(),
        "mean": s.mean, "peak": s.peak, "worst": s.worst,
        "popped_mean": s.popped_mean, "popped_peak": s.popped_peak,
    })
}

/// Residual heat map: black → red → yellow → white over `0..4·threshold`; grey where not
/// measured.
pub fn heat_map(res: &[f32], valid: &[bool], w: usize, h: usize, threshold: f64) -> Rgb8Image {
    let mut im = Rgb8Image::new(w, h);
    for (i, (&r, &v)) in res.iter().zip(valid).enumerate() {
        let rgb = if !v {
            [64, 64, 64]
        } else {
            let t = (f64::from(r) / (4.0 * threshold)).clamp(0.0, 1.0) * 3.0;
            let c = |x: f64| (x.clamp(0.0, 1.0) * 255.0).round() as u8;
            [c(t), c(t - 1.0), c(t - 2.0)]
        };
        im.set_pixel(i % w, i / w, rgb);
    }
    im
}

fn grey(l: &Luma) -> Rgb8Image {
    let mut im = Rgb8Image::new(l.width, l.height);
    for (i, &v) in l.data.iter().enumerate() {
        let g = (v * 255.0).round().clamp(0.0, 255.0) as u8;
        im.set_pixel(i % l.width, i / l.width, [g, g, g]);
    }
    im
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

pub fn run(a: Args) -> Result<()> {
    let p = PopParams { block: a.block, search: a.search, threshold: a.threshold };
    // Parameters are checked before any frame is read.
    if !(4..=1024).contains(&p.block) {
        bail!("--block {} outside 4..1024 pixels", p.block);
    }
    if p.search > 256 {
        bail!("--search {} above 256 pixels", p.search);
    }
    if !(p.threshold.is_finite() && p.threshold > 0.0 && p.threshold < 1.0) {
        bail!("--threshold {} outside (0, 1)", p.threshold);
    }
    let frames = read_frames(&a.frames)?;
    let names: Vec<String> = frames.iter().map(|f| f.0.clone()).collect();
    let lumas: Vec<Luma> = frames.into_iter().map(|f| f.1).collect();
    let s = sweep(&lumas, &p).map_err(|e| anyhow::anyhow!("{}: {e}", a.frames.display()))?;
    println!("popping metric: block {} px, search radius {} px, threshold {}", p.block, p.radius(), p.threshold);
    print_sweep("sweep", &s, &names);
    let mut report = json!({
        "format_version": 1,
        "generator": format!("bozkir pop-metric {}", env!("CARGO_PKG_VERSION")),
        "input": a.frames.display().to_string(),
        "params": {"block": p.block, "search": p.search, "radius": p.radius(), "threshold": p.threshold},
        "width": lumas[0].width, "height": lumas[0].height,
        "sweep": sweep_json(&s, &names),
    });
    if let Some(other) = &a.against {
        let f2 = read_frames(other)?;
        let n2: Vec<String> = f2.iter().map(|f| f.0.clone()).collect();
        let l2: Vec<Luma> = f2.into_iter().map(|f| f.1).collect();
        if l2.len() != lumas.len() {
            bail!("{}: {} frames, but {} has {}", other.display(), l2.len(), a.frames.display(), lumas.len());
        }
        if (l2[0].width, l2[0].height) != (lumas[0].width, lumas[0].height) {
            bail!(
                "{}: frames are {}×{}, but {} has {}×{}",
                other.display(),
                l2[0].width,
                l2[0].height,
                a.frames.display(),
                lumas[0].width,
                lumas[0].height
            );
        }
        let s2 = sweep(&l2, &p).map_err(|e| anyhow::anyhow!("{}: {e}", other.display()))?;
        print_sweep("against", &s2, &n2);
        println!("{:>5}  {:>10} {:>10} {:>8}", "pair", "mean", "against", "ratio");
        let mut rows = Vec::new();
        let mut lower = 0;
        for (x, y) in s.pairs.iter().zip(&s2.pairs) {
            let ratio = if y.mean > 0.0 { x.mean / y.mean } else { f64::INFINITY };
            lower += usize::from(x.mean < y.mean);
            println!("{:>5}  {:>10.5} {:>10.5} {:>8.3}", x.index, x.mean, y.mean, ratio);
            rows.push(json!({"index": x.index, "mean": x.mean, "against": y.mean, "popped": x.popped, "against_popped": y.popped}));
        }
        let ratio = if s2.mean > 0.0 { s.mean / s2.mean } else { f64::INFINITY };
        println!(
            "comparison: mean residual {:.5} vs {:.5} (ratio {:.3}); the first sweep is lower on {lower} of {} pairs",
            s.mean,
            s2.mean,
            ratio,
            s.pairs.len()
        );
        report["against"] = json!({
            "input": other.display().to_string(),
            "sweep": sweep_json(&s2, &n2),
            "pairs": rows,
            "mean_ratio": if ratio.is_finite() { json!(ratio) } else { Value::Null },
            "first_lower_pairs": lower,
        });
    }
    if let Some(out) = &a.out {
        std::fs::create_dir_all(out).with_context(|| format!("{}: cannot create", out.display()))?;
        let w = s.worst;
        let r = compare(&lumas[w], &lumas[w + 1], &p, None).map_err(|e| anyhow::anyhow!("{e}"))?;
        let heat = heat_map(&r.residual, &r.valid, r.width, r.height, p.threshold);
        let write = |name: &str, im: &Rgb8Image| -> Result<PathBuf> {
            let path = out.join(name);
            bozkir_io::write_rgb8(&path, &crate::outputs::rgb_grid(im))
                .with_context(|| format!("{}: cannot write", path.display()))?;
            Ok(path)
        };
        let mut wrote = vec![
            write("worst-residual.png", &heat)?,
            write("worst-a.png", &grey(&lumas[w]))?,
            write("worst-b.png", &grey(&lumas[w + 1]))?,
        ];
        if let Some(other) = &a.against {
            // The same pair of the other sweep, for a side-by-side look.
            let f2 = read_frames(other)?;
            let r2 = compare(&f2[w].1, &f2[w + 1].1, &p, None).map_err(|e| anyhow::anyhow!("{e}"))?;
            wrote.push(write(
                "against-residual.png",
                &heat_map(&r2.residual, &r2.valid, r2.width, r2.height, p.threshold),
            )?);
        }
        report["figures"] = json!(wrote.iter().map(|p| p.display().to_string()).collect::<Vec<_>>());
        println!(
            "wrote {} (worst pair {w}: black → red → yellow → white over 0..{} luma; grey = not measured)",
            wrote.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "),
            4.0 * p.threshold
        );
    }
    if let Some(j) = &a.json {
        if let Some(dir) = j.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
        }
        std::fs::write(j, serde_json::to_string_pretty(&report)? + "\n")
            .with_context(|| format!("{}: cannot write", j.display()))?;
        println!("wrote {}", j.display());
    }
    Ok(())
}

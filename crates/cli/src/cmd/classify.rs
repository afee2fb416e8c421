//! `bozkir classify`: the bozkir material rule on a tile grid laid over a terrain directory.
//!
//! The terrain is laid under an `N × N` grid of tiles exactly as the viewer lays it
//! (`bozkir_material::tilegrid`), sampled at the viewer's oversampling, and classified with the
//! rule (`bozkir_material::classify`). Outputs: the class map, the decision with its confidence
//! (the viewer's overlay), per-class weight maps (what the viewer draws with its blend band) and
//! the soft Hybrid GSWT coverage α, plus `classify.json` with every setting and the shares.

use crate::outputs::Staging;
use anyhow::{bail, Context, Result};
use bozkir_core::Grid;
use bozkir_io::Encoding;
use bozkir_material::classify::blend_mix;
use bozkir_material::select::coverage;
use bozkir_material::tilegrid::{classify_on_grid, oversampling, Field, GridMapping};
use bozkir_material::{Balance, ClassifyOptions, Decision, Rule};
use std::path::{Path, PathBuf};

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

/// The rule's three controls, shared by `classify` and `validate-rule`.
#[derive(clap::Args, Clone, Debug)]
pub struct RuleOpts {
    /// "Follows height": weight of the height term (0..1).
    #[arg(long, default_value_t = 0.4)]
    pub altitude: f64,
    /// Patch size: median radius on the decision, in grid cells (0..16).
    #[arg(long, default_value_t = 2)]
    pub coherence: usize,
    /// Decisiveness (0.5..6): sets the width of the undecided band, never the boundary.
    #[arg(long, default_value_t = 2.0)]
    pub sharpness: f64,
}

/// Preview colours per class position (collected, bench, face, exposed, then greys).
fn class_colour(name: &str, k: usize) -> [f64; 3] {
    match name {
        "collected" => [0.19, 0.21, 0.15],
        "exposed" => [0.52, 0.47, 0.43],
        "bench" => [0.42, 0.40, 0.27],
        "face" => [0.33, 0.30, 0.30],
        _ => {
            let g = 0.2 + 0.15 * (k % 5) as f64;
            [g, g, g]
        }
    }
}

fn balance_of(share: &[f64], classes: usize) -> Result<Balance> {
    Ok(match share.len() {
        0 => Balance::Free,
        1 if classes == 2 => Balance::Share(share[0]),
        n if n == classes => Balance::Shares(share.to_vec()),
        n => bail!("--share: {n} values for {classes} classes (give one value for 2 classes, or one per class)"),
    })
}

/// An optional layer that must be finite everywhere (the sediment record).
fn read_optional(path: &Path, w: usize, h: usize) -> Result<Option<Vec<f64>>> {
    let Some(g) = super::read_optional_layer(path, w, h)? else { return Ok(None) };
    if let Some(i) = g.data().iter().position(|v| !v.is_finite()) {
        bail!("{}: NaN or infinite value at column {}, row {}", path.display(), i % w, i / w);
    }
    Ok(Some(g.data().iter().map(|&v| f64::from(v)).collect()))
}

fn to_grid<T: Clone>(n: usize, v: Vec<T>) -> Grid<T> {
    Grid::from_vec(n, n, v)
}

/// The decision image: each tile the blend of its class colours, darker where undecided.
fn decision_image(d: &Decision, colours: &[[f64; 3]], blend: f64, px: usize) -> Grid<[u8; 3]> {
    let n = d.n;
    Grid::from_fn(n * px, n * px, |x, y| {
        let i = (y / px) * n + x / px;
        let mix = blend_mix(d.strength[i], blend);
        let (a, b) = (colours[d.class[i] as usize], colours[d.runner_up[i] as usize]);
        let shade = 0.55 + 0.45 * d.strength[i];
        let c = |k: usize| ((a[k] * mix + b[k] * (1.0 - mix)) * shade * 255.0).round().clamp(0.0, 255.0) as u8;
        [c(0), c(1), c(2)]
    })
}

pub fn run(a: Args, quiet: bool) -> Result<()> {
    let rule = match &a.rule {
        Some(p) => {
            let text = std::fs::read_to_string(p).with_context(|| format!("{}: cannot read", p.display()))?;
            Rule::from_json(&text).with_context(|| format!("{}: not a usable rule file", p.display()))?
        }
        None => Rule::builtin(),
    };
    let positions: Vec<String> = rule.positions_for(a.classes).map(|v| v.iter().map(|p| p.name.clone()).collect())?;
    let balance = balance_of(&a.share, a.classes)?;
    if !(0.0..=1.0).contains(&a.blend) {
        bail!("--blend {}: must be within 0..1", a.blend);
    }
    if !(1..=64).contains(&a.px) {
        bail!("--px {}: must be 1..64 pixels per tile", a.px);
    }
    let map = GridMapping {
        n: a.grid,
        tile: a.tile,
        relief: a.relief,
        relief_scale: a.relief_scale,
        over: a.over,
        angle_deg: a.angle,
        detail: a.detail,
    };
    map.check().map_err(|e| anyhow::anyhow!("{e}"))?;
    if a.grid < 2 {
        bail!("--grid {}: the rule needs at least 2 tiles per side", a.grid);
    }
    if a.grid * a.px > 16_384 {
        bail!("--grid {} × --px {}: preview wider than 16384 pixels; lower --px", a.grid, a.px);
    }

    let (_sc, height) = super::read_terrain_folder(&a.dir, "classify")?;
    let (w, h) = (height.width(), height.height());
    let field = Field::new(w, h, height.data()).map_err(|e| anyhow::anyhow!("{}: {e}", a.dir.display()))?;
    let sediment = if a.no_sediment {
        None
    } else {
        let mut s = None;
        for name in ["sediment.tif", "deposit.tif"] {
            if let Some(v) = read_optional(&a.dir.join(name), w, h)? {
                s = Some((name, v));
                break;
            }
        }
        s
    };
    let sed_field = match &sediment {
        Some((_, v)) => Some(Field::new(w, h, v).map_err(|e| anyhow::anyhow!("{e}"))?),
        None => None,
    };
    let opts = ClassifyOptions {
        classes: a.classes,
        spacing: a.tile,
        radius: None,
        sharpness: a.rule_opts.sharpness,
        altitude: a.rule_opts.altitude,
        coherence: a.rule_opts.coherence,
        balance: balance.clone(),
    };
    let d = classify_on_grid(&field, sed_field.as_ref(), &map, &rule, &opts)?;
    let alpha = coverage(&d.maps, &rule, a.classes, a.rule_opts.altitude, a.rule_opts.sharpness)?;
    let weights = d.blend_weights(a.blend);

    let out = a.out.clone().unwrap_or_else(|| a.dir.join("classes"));
    let n = a.grid;
    let colours: Vec<[f64; 3]> = positions.iter().enumerate().map(|(k, p)| class_colour(p, k)).collect();
    let mut st = Staging::new(&out)?;
    bozkir_io::write_png8(st.file("classes.png", "class_ids", Encoding::Png8), &to_grid(n, d.class.clone()))?;
    bozkir_io::write_png8(st.file("runner_up.png", "runner_up_ids", Encoding::Png8), &to_grid(n, d.runner_up.clone()))?;
    let f32g = |v: &[f64]| to_grid(n, v.iter().map(|&x| x as f32).collect());
    bozkir_io::write_tiff_f32(st.file("strength.tif", "strength", Encoding::TiffF32), &f32g(&d.strength))?;
    bozkir_io::write_tiff_f32(st.file("margin.tif", "margin", Encoding::TiffF32), &f32g(&d.margin))?;
    bozkir_io::write_tiff_f32(st.file("lead.tif", "lead_class0", Encoding::TiffF32), &f32g(&d.lead))?;
    let rgb = Grid::from_fn(n * a.px, n * a.px, |x, y| {
        let c = colours[d.class[(y / a.px) * n + x / a.px] as usize];
        [(c[0] * 255.0) as u8, (c[1] * 255.0) as u8, (c[2] * 255.0) as u8]
    });
    bozkir_io::write_rgb8(st.file("classes_rgb.png", "class_colour", Encoding::Rgb8), &rgb)?;
    bozkir_io::write_rgb8(
        st.file("decision.png", "decision_overlay", Encoding::Rgb8),
        &decision_image(&d, &colours, a.blend, a.px),
    )?;
    let tmp = st.unlisted("");
    let wl: Vec<Grid<f64>> = weights.iter().map(|v| to_grid(n, v.clone())).collect();
    let weight_files = bozkir_io::export::weights::write_weight_maps(
        &tmp,
        "weights",
        &bozkir_io::export::weights::soft_layers(&wl),
        &positions,
    )?;
    let al: Vec<Grid<f64>> = alpha.iter().map(|v| to_grid(n, v.clone())).collect();
    let alpha_files = bozkir_io::export::weights::write_weight_maps(
        &tmp,
        "alpha",
        &bozkir_io::export::weights::soft_layers(&al),
        &positions,
    )?;

    let shares = d.shares();
    let mean_strength = d.strength.iter().sum::<f64>() / d.strength.len() as f64;
    let undecided = d.strength.iter().filter(|&&s| s < a.blend).count() as f64 / d.strength.len() as f64;
    let name_of = |p: &PathBuf| p.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let mut files: Vec<String> = st.files.iter().map(|f| f.path.clone()).collect();
    for p in
        weight_files.layers.iter().chain(&weight_files.splats).chain(&alpha_files.layers).chain(&alpha_files.splats)
    {
        files.push(name_of(p));
    }
    files.push(name_of(&weight_files.note));
    files.push(name_of(&alpha_files.note));
    let report = serde_json::json!({
        "format_version": 1,
        "terrain": a.dir.display().to_string(),
        "rule": a.rule.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| "built-in".into()),
        "classes": positions,
        "grid": n,
        "mapping": {
            "tile": a.tile, "relief": a.relief, "relief_scale": map.relief_scale(),
            "over": map.over(), "over_default": oversampling(n), "angle_deg": a.angle, "detail": a.detail,
            "amplitude": map.amplitude(),
        },
        "options": {
            "altitude": a.rule_opts.altitude, "coherence": a.rule_opts.coherence, "sharpness": a.rule_opts.sharpness, "blend": a.blend,
            "share": match &balance { Balance::Free => serde_json::Value::Null, Balance::Share(s) => (*s).into(), Balance::Shares(v) => v.clone().into() },
        },
        "source": d.source.name(),
        "sediment_file": sediment.as_ref().map(|s| s.0),
        "shares": shares,
        "mean_strength": mean_strength,
        "undecided_share": undecided,
        "cue_weights": d.cue_weights.iter().map(|(k, v)| serde_json::json!({"cue": k, "weight": v})).collect::<Vec<_>>(),
        "files": files,
    });
    let text = serde_json::to_string_pretty(&report)?;
    std::fs::write(st.unlisted("classify.json"), text + "\n").context("cannot write classify.json")?;
    let moved = st.commit()?;
    if !quiet {
        let share_txt: Vec<String> =
            positions.iter().zip(&shares).map(|(p, s)| format!("{p} {:.1} %", s * 100.0)).collect();
        println!(
            "classified a {n}×{n} grid ({} samples per tile, drive: {}): {}",
            map.over(),
            d.source.name(),
            share_txt.join(", ")
        );
        println!("mean strength {mean_strength:.3}; {:.1} % of tiles inside the blend band", undecided * 100.0);
    }
    println!("wrote {} files to {}", moved.len(), out.display());
    Ok(())
}

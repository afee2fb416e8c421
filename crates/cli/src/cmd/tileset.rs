//! `bozkir tileset CAPTURE --out DIR`: from a ground capture to a seamless Wang tileset in one
//! command — prepare, search patches (one material or two), build the tiles with graph-cut
//! diagonals and merged levels of detail, render the atlas, measure, and give a verdict. With
//! `--rotations r` quarter turns of fewer real patches stand in for the missing colours.
//! `bozkir atlas TILESET` and `bozkir metrics TILESET` redo the last two steps on any tileset.

use crate::outputs::Staging;
use anyhow::{bail, Result};
use bozkir_core::Grid;
use bozkir_splat::capture::patches::{find_patches, FailureKind, SearchSettings};
use bozkir_splat::capture::plane_index::rotate_patch;
use bozkir_splat::capture::prepare::{prepare, PrepareConfig};
use bozkir_splat::formats::tileset;
use bozkir_splat::tiling::assess::{assess, Assessment};
use bozkir_splat::tiling::tiles::{build_tiles, ClassPatches, TileParams};
use bozkir_splat::tiling::tileset::Tileset;
use bozkir_splat::tiling::wang::{Colours, WangSet};
use bozkir_splat::Splats;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// A ground capture: .ply (3DGS), .splat, .glb or .spz.
    pub capture: PathBuf,
    /// Output directory (tileset.json, tiles.splat, tiles.ply, atlas.png, report.json).
    #[arg(long)]
    pub out: PathBuf,
    /// Tile side in metres (default: from the capture's splat scale, clamped to 0.5..2).
    #[arg(long)]
    pub size: Option<f64>,
    /// Materials: `auto` (two when the capture holds two, else one), 1 or 2.
    #[arg(long, default_value = "auto")]
    pub classes: String,
    /// Edge colours per family (2..4); the minimal set has 2·k² tiles per class.
    #[arg(long, default_value_t = 2)]
    pub colours: u8,
    /// Quarter turns used as extra colours (1..4): with r > 1 only ⌈2·colours / r⌉ patches per
    /// class are searched and each also serves turned by 90°, 180°, … about +z, for captures
    /// with too little ground for 2·colours distinct patches.
    #[arg(long, default_value_t = 1)]
    pub rotations: u8,
    /// The complete set (k⁴ tiles per class) instead of the minimal one.
    #[arg(long)]
    pub complete: bool,
    /// Plain diagonals instead of graph-cut seams.
    #[arg(long)]
    pub no_cut: bool,
    /// Levels of detail per tile (1..8).
    #[arg(long, default_value_t = 4)]
    pub lod: u32,
    /// Most splats per tile at level 0.
    #[arg(long, default_value_t = 60_000)]
    pub max_per_tile: usize,
    /// Also clean the capture (crop, large splats, floaters) before searching.
    #[arg(long)]
    pub clean: bool,
    /// Atlas pixels per tile.
    #[arg(long, default_value_t = 64)]
    pub atlas_res: usize,
    /// Also write the tileset as one zip file inside the directory (DIR/NAME.zip, NAME the
    /// directory's name), ready to drop on the viewer.
    #[arg(long)]
    pub zip: bool,
    /// Seed of the layouts used for measuring.
    #[arg(long, default_value_t = 1)]
    pub seed: u32,
    /// Every control of the patch search (the same flags and presets as `bozkir patches`).
    #[command(flatten)]
    pub search: super::patches::SearchArgs,
}

#[derive(clap::Args)]
pub struct AtlasArgs {
    /// A tileset directory or zip.
    pub tileset: PathBuf,
    /// Pixels per tile.
    #[arg(long, default_value_t = 64)]
    pub res: usize,
    /// Output PNG (default: TILESET/atlas.png for a directory).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct MetricsArgs {
    /// A tileset directory or zip.
    pub tileset: PathBuf,
    /// Layout size (tiles per side) measured.
    #[arg(long, default_value_t = 8)]
    pub grid: usize,
    /// Pixels per tile.
    #[arg(long, default_value_t = 48)]
    pub res: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u32,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Median of the splats' largest σ.
fn median_max_scale(s: &Splats) -> f64 {
    let mut v: Vec<f64> = s.scales().iter().map(|c| f64::from(c[0].max(c[1]).max(c[2]))).collect();
    if v.is_empty() {
        return 0.0;
    }
    let k = v.len() / 2;
    v.select_nth_unstable_by(k, f64::total_cmp);
    v[k]
}

/// A patch cut from the capture: splats with |xy − centre| ≤ size/2, moved so the centre is the
/// origin and the ground level is z = 0.
fn cut_patch(s: &Splats, centre: [f64; 2], ground: f64, size: f64) -> Splats {
    let h = size / 2.0;
    let keep: Vec<usize> = (0..s.len())
        .filter(|&i| {
            let q = s.positions()[i];
            (f64::from(q[0]) - centre[0]).abs() <= h && (f64::from(q[1]) - centre[1]).abs() <= h
        })
        .collect();
    let mut p = s.subset(&keep);
    p.transform(&bozkir_splat::Rigid::translation([-centre[0], -centre[1], -ground]));
    p
}

/// Share of the area two squares of side `size` at these centres have in common.
fn overlap(a: [f64; 2], b: [f64; 2], size: f64) -> f64 {
    let ox = (size - (a[0] - b[0]).abs()).max(0.0);
    let oy = (size - (a[1] - b[1]).abs()).max(0.0);
    ox * oy / (size * size)
}

fn rgb_grid(w: usize, h: usize, px: Vec<[u8; 3]>) -> Grid<[u8; 3]> {
    Grid::from_vec(w, h, px)
}

fn print_assessment(a: &Assessment) {
    for c in &a.classes {
        println!(
            "  {:<8} {:>3} tiles  repetition {:.3} (landmarks {:.3})  busyness {:.3} ± {:.3}  seam error {:.4}",
            c.class,
            c.tiles,
            c.repetition_texture,
            c.repetition_landmarks,
            c.busyness_mean,
            c.busyness_sd,
            c.seam_error
        );
    }
    println!(
        "  edges: {} shared-colour edges checked, {} differ; a 40×40 layout has {} mismatched edges",
        a.edges_checked, a.edge_mismatches, a.layout_mismatches
    );
}

/// Good / marginal / no, with reasons.
fn verdict(a: &Assessment, warnings: &[String]) -> (&'static str, Vec<String>) {
    let mut no = Vec::new();
    let mut marginal = Vec::new();
    if a.edge_mismatches > 0 || a.layout_mismatches > 0 {
        no.push(format!(
            "{} edges differ and {} layout edges mismatch: the tiles do not join",
            a.edge_mismatches, a.layout_mismatches
        ));
    }
    for c in &a.classes {
        if c.repetition_texture > 0.6 {
            marginal.push(format!(
                "{}: repetition {:.2} — the lattice will show; use more colours (--colours 3)",
                c.class, c.repetition_texture
            ));
        }
        if c.busyness_mean > 0.35 {
            marginal.push(format!(
                "{}: busyness {:.2} — the four triangles differ in tone; choose more similar patches or a smaller --size",
                c.class, c.busyness_mean
            ));
        }
    }
    marginal.extend(warnings.iter().cloned());
    if !no.is_empty() {
        ("no", no)
    } else if !marginal.is_empty() {
        ("marginal", marginal)
    } else {
        ("good", vec!["edges join exactly, repetition and busyness are low, no warnings".into()])
    }
}

fn no_verdict(reason: &str, fix: &str) -> anyhow::Error {
    println!("verdict: no — {reason}");
    anyhow::anyhow!("no tileset: {reason}; {fix}")
}

pub fn run(a: Args, quiet: bool) -> Result<()> {
    if !(2..=4).contains(&a.colours) {
        bail!("--colours {}: 2, 3 or 4", a.colours);
    }
    let classes_wanted: Option<usize> = match a.classes.as_str() {
        "auto" => None,
        "1" => Some(1),
        "2" => Some(2),
        other => bail!("--classes {other}: auto, 1 or 2"),
    };
    if !(1..=4).contains(&a.rotations) {
        bail!("--rotations {}: 1, 2, 3 or 4 (quarter turns used as extra colours)", a.rotations);
    }
    if !(1..=8).contains(&a.lod) {
        bail!("--lod {}: 1..8", a.lod);
    }
    if !(8..=512).contains(&a.atlas_res) {
        bail!("--atlas-res {}: 8..512", a.atlas_res);
    }
    if !a.capture.exists() {
        bail!("{}: no such file", a.capture.display());
    }
    let raw = bozkir_splat::formats::load(&a.capture)?;
    println!("1. loaded {} splats (SH degree {}) from {}", raw.len(), raw.sh_degree(), a.capture.display());
    let screen = bozkir_splat::capture::screen::screen(&raw, &bozkir_splat::capture::screen::ScreenParams::default());
    if screen.verdict != bozkir_splat::capture::screen::Verdict::LooksLikeGround {
        return Err(no_verdict(
            &format!("the capture {} ({})", screen.verdict.text(), screen.reasons.join("; ")),
            "see `bozkir inspect` for what each number means",
        ));
    }
    let cfg = PrepareConfig { clean: a.clean, ..PrepareConfig::default() };
    let prep = prepare(&raw, &cfg).map_err(|e| anyhow::anyhow!("{}: {e}", a.capture.display()))?;
    let mut warnings: Vec<String> = prep.report.warnings.clone();
    if let Some(al) = &prep.report.align {
        println!(
            "2. aligned the ground to +z (tilt {:.1}° → {:.1}°), upness {:.2}{}",
            al.tilt_before_deg,
            al.tilt_after_deg,
            prep.report.upness,
            if a.clean { format!(", cleaned to {} splats", prep.splats.len()) } else { String::new() }
        );
    }
    let s = prep.splats;

    // Tile size against the capture's own scale.
    let med = median_max_scale(&s);
    let suggested = (55.0 * med).clamp(0.5, 2.0);
    let size = a.size.unwrap_or(suggested);
    if !(size > 0.0 && size.is_finite()) {
        bail!("--size {size}: must be positive");
    }
    let ratio = size / med.max(1e-12);
    if !(12.0..=400.0).contains(&ratio) {
        warnings.push(format!(
            "tile size {size:.2} m is {ratio:.0}× the median splat size ({med:.4} m): far from the capture's scale; try --size {:.2}",
            55.0 * med
        ));
    }
    println!("3. tile size {size:.2} m ({ratio:.0}× the median splat size)");

    // Patches per class: 2·colours; with rotations only ⌈2·colours / r⌉ real ones are searched.
    let (used, turns) = (2 * a.colours as usize, a.rotations as usize);
    let need = used.div_ceil(turns);
    let base = super::patches::resolve_search(&a.search)?;
    let st_for = |classes: usize| SearchSettings { size, count: need, classes, ..base.clone() };
    st_for(1).check().map_err(|e| anyhow::anyhow!("bad search settings: {e}"))?;
    let search = |classes: usize| find_patches(&s, &st_for(classes));
    let found = match classes_wanted {
        Some(k) => search(k),
        None => match search(2) {
            Err(f) if f.kind == FailureKind::OneMaterial => {
                println!("   the capture holds one material ({}); building one class", f.reason);
                search(1)
            }
            Err(f) if f.kind == FailureKind::NotATilingExemplar => {
                println!("   two materials: {}; trying one class", f.reason);
                search(1)
            }
            other => other,
        },
    };
    let found = match found {
        Ok(f) => f,
        Err(f) => {
            for line in bozkir_splat::capture::patches::describe_trail(&f.trail) {
                println!("   {line}");
            }
            return Err(no_verdict(&f.reason, "see the steps above"));
        }
    };
    let k = found.chosen.len();
    println!(
        "4. patch search: {} candidates, {} per class chosen for {} class(es){}{}{}",
        found.candidates.len(),
        need,
        k,
        if turns > 1 { format!(" (× {turns} quarter turns → {used} patches per class)") } else { String::new() },
        found.class_separation.map(|v| format!(", class separation {v:.1}")).unwrap_or_default(),
        if found.trail.len() > 1 {
            format!(", after {} loosening steps", found.trail.len() - 1)
        } else {
            String::new()
        }
    );
    let names: Vec<String> = if k == 2 {
        // Darker material first: the rule's class 0 is the collecting one (scrub, vegetation).
        let l = |c: &[f64; 3]| 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2];
        let dark = usize::from(l(&found.class_rgb[1]) < l(&found.class_rgb[0]));
        vec![format!("material{dark}"), format!("material{}", 1 - dark)]
    } else {
        vec!["ground".into()]
    };
    let mut class_patches = Vec::new();
    // Per class, where each patch came from: h colours first, then v, as (candidate, quarter turns).
    let mut sources: Vec<Vec<serde_json::Value>> = Vec::new();
    for (c, chosen) in found.chosen.iter().enumerate() {
        if chosen.len() < need {
            return Err(no_verdict(
                &format!("class {c} has {} patches, {need} needed", chosen.len()),
                "use a larger capture, a smaller --size or fewer --colours",
            ));
        }
        let (mut pairs, mut worst) = (0, 0.0f64);
        for (i, &x) in chosen[..need].iter().enumerate() {
            for &y in &chosen[i + 1..need] {
                let o = overlap(found.candidates[x].centre, found.candidates[y].centre, size);
                if o > 0.01 {
                    pairs += 1;
                    worst = worst.max(o);
                }
            }
        }
        if pairs > 0 {
            warnings.push(format!(
                "{}: {pairs} pair(s) of patches share ground (up to {:.0} %) — that material will repeat; use a larger \
                 capture or a smaller --size (e.g. {:.2})",
                names[c],
                worst * 100.0,
                size * 0.8
            ));
        }
        let real: Vec<Splats> = chosen[..need]
            .iter()
            .map(|&i| cut_patch(&s, found.candidates[i].centre, found.candidates[i].ground, size))
            .collect();
        // Every real patch unturned, then every one turned once, and so on: `used` in all.
        let slots: Vec<(usize, usize)> = (0..turns).flat_map(|t| (0..need).map(move |j| (j, t))).take(used).collect();
        let ps: Vec<Splats> = slots
            .iter()
            .map(|&(j, t)| if t == 0 { real[j].clone() } else { rotate_patch(&real[j], t as i32) })
            .collect();
        sources.push(
            slots.iter().map(|&(j, t)| serde_json::json!({"candidate": chosen[j], "quarter_turns": t})).collect(),
        );
        let n = a.colours as usize;
        class_patches.push(ClassPatches { h: ps[..n].to_vec(), v: ps[n..2 * n].to_vec() });
    }
    let colours = Colours::square(a.colours).map_err(|e| anyhow::anyhow!("{e}"))?;
    let set = if a.complete {
        WangSet::complete(colours)
    } else {
        WangSet::minimal(colours).map_err(|e| anyhow::anyhow!("{e}"))?
    };
    let p = TileParams { size, cut: !a.no_cut, lod: a.lod, max_per_tile: a.max_per_tile, ..TileParams::default() };
    let tiles = build_tiles(&class_patches, &set, &p).map_err(|e| anyhow::anyhow!("{e}"))?;
    let (seam, straight): (f64, f64) =
        tiles.iter().fold((0.0, 0.0), |(x, y), t| (x + t.seam_cost, y + t.straight_cost));
    println!(
        "5. built {} tiles ({} per class, {} set{}), {} levels of detail",
        tiles.len(),
        set.len(),
        if a.complete { "complete" } else { "minimal" },
        if a.no_cut {
            String::new()
        } else {
            format!(", graph-cut diagonals cost {:.0}% of straight ones", 100.0 * seam / straight.max(1e-9))
        },
        a.lod
    );
    let mut ts = Tileset::from_tiles(
        &tiles,
        size,
        [a.colours, a.colours],
        if a.complete { "complete" } else { "minimal" },
        names,
        !a.no_cut,
    );
    let (w, h, px) = ts.render_atlas(a.atlas_res);
    let assessment = assess(&ts, 8, 48, a.seed).map_err(|e| anyhow::anyhow!("{e}"))?;
    println!("6. measured on 8×8 layouts:");
    print_assessment(&assessment);
    for w in &warnings {
        println!("warning: {w}");
    }
    let (v, reasons) = verdict(&assessment, &warnings);
    ts.manifest.warnings = warnings.clone();
    ts.manifest.verdict = Some(serde_json::json!({"verdict": v, "reasons": reasons}));
    let settings = serde_json::json!({
        "capture": a.capture.display().to_string(), "size": size, "colours": a.colours, "complete": a.complete,
        "rotations": a.rotations, "cut": !a.no_cut, "lod": a.lod, "max_per_tile": a.max_per_tile, "clean": a.clean,
        "atlas_res": a.atlas_res,
        "search": found.settings,
    });
    if let serde_json::Value::Object(m) = settings {
        ts.manifest.settings = m;
    }

    let st = Staging::new(&a.out)?;
    // The staging folder itself (`unlisted("")`): the tileset's files are not in a sidecar.
    let all = tileset::write_folder(&st.unlisted(""), &ts, w, h, px)?;
    let patches = serde_json::json!({
        "rotations": turns, "searched_per_class": need, "used_per_class": used, "sources": sources,
    });
    let report = serde_json::json!({
        "prepare": prep.report, "search": found, "patches": patches, "assessment": assessment, "verdict": v,
        "reasons": reasons,
    });
    std::fs::write(st.unlisted("report.json"), serde_json::to_string_pretty(&report)? + "\n")?;
    let mut zipped = None;
    if a.zip {
        let z = tileset::zip_bytes(&all).map_err(|e| anyhow::anyhow!("{e}"))?;
        let name =
            format!("{}.zip", a.out.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or("tileset".into()));
        std::fs::write(st.unlisted(&name), z)?;
        zipped = Some(a.out.join(name));
    }
    let moved = st.commit()?;
    let _ = quiet;
    println!("verdict: {v} — {}", reasons.join("; "));
    println!(
        "wrote {} files to {}{}",
        moved.len(),
        a.out.display(),
        zipped.map(|z| format!(" (single file: {})", z.display())).unwrap_or_default()
    );
    Ok(())
}

fn read_tileset(p: &Path) -> Result<Tileset> {
    if !p.exists() {
        bail!("{}: no such tileset", p.display());
    }
    tileset::read(p).map_err(|e| anyhow::anyhow!("{e}"))
}

pub fn atlas(a: AtlasArgs) -> Result<()> {
    if !(8..=512).contains(&a.res) {
        bail!("--res {}: 8..512", a.res);
    }
    let mut ts = read_tileset(&a.tileset)?;
    let out = match (&a.out, a.tileset.is_dir()) {
        (Some(o), _) => o.clone(),
        (None, true) => a.tileset.join("atlas.png"),
        (None, false) => bail!("{}: give --out for a zipped tileset", a.tileset.display()),
    };
    let (w, h, px) = ts.render_atlas(a.res);
    let tmp = out.with_extension("png.part");
    bozkir_io::write_rgb8(&tmp, &rgb_grid(w, h, px))?;
    std::fs::rename(&tmp, &out)?;
    if a.tileset.is_dir() && a.out.is_none() {
        let json = serde_json::to_vec_pretty(&ts.manifest)?;
        let m = a.tileset.join("tileset.json");
        let part = a.tileset.join("tileset.json.part");
        std::fs::write(&part, json)?;
        std::fs::rename(&part, &m)?;
    }
    println!("atlas of {} tiles ({w}×{h} px) written to {}", ts.manifest.tiles.len(), out.display());
    Ok(())
}

pub fn metrics(a: MetricsArgs) -> Result<()> {
    let ts = read_tileset(&a.tileset)?;
    let r = assess(&ts, a.grid, a.res, a.seed).map_err(|e| anyhow::anyhow!("{e}"))?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        println!("{}: {} tiles, {:.2} m", a.tileset.display(), ts.manifest.tiles.len(), ts.manifest.size);
        print_assessment(&r);
    }
    Ok(())
}

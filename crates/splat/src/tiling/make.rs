//! The whole way from a ground capture to a seamless Wang tileset ([`make_tileset`]), what
//! `bozkir tileset` runs: screen → prepare → tile size → patch search (with the one-class
//! fallback) → rotations → Wang set → tiles → atlas → assessment → verdict.

use crate::capture::patches::{describe_trail, find_patches, FailureKind, SearchSettings};
use crate::capture::plane_index::rotate_patch;
use crate::capture::prepare::{prepare, PrepareConfig};
use crate::capture::screen::{screen, ScreenParams, Verdict};
use crate::model::{Rigid, Splats};
use crate::tiling::assess::{assess, assessment_lines, Assessment};
use crate::tiling::tiles::{build_tiles, ClassPatches, TileParams};
use crate::tiling::tileset::Tileset;
use crate::tiling::wang::{Colours, WangSet};
use crate::SplatError;
use bozkir_core::Observer;

/// What to build: every control of `bozkir tileset` (its flags, checked by the caller).
#[derive(Clone, Debug)]
pub struct TilesetRequest {
    /// How the capture is named in messages and in the manifest's settings (its path).
    pub capture: String,
    /// Tile side in metres; `None` = from the capture's splat scale, clamped to 0.5..2.
    pub size: Option<f64>,
    /// Materials: `None` = two when the capture holds two, else one; or 1 or 2.
    pub classes: Option<usize>,
    /// Edge colours per family (2..4).
    pub colours: u8,
    /// Quarter turns used as extra colours (1..4).
    pub rotations: u8,
    /// The complete set (k⁴ tiles per class) instead of the minimal one.
    pub complete: bool,
    /// Graph-cut seams (`false` = plain diagonals).
    pub cut: bool,
    /// Levels of detail per tile (1..8).
    pub lod: u32,
    /// Most splats per tile at level 0.
    pub max_per_tile: usize,
    /// Also clean the capture (crop, large splats, floaters) before searching.
    pub clean: bool,
    /// Atlas pixels per tile (8..512).
    pub atlas_res: usize,
    /// Seed of the layouts used for measuring.
    pub seed: u32,
    /// The patch search's controls; size, count and classes are set here.
    pub search: SearchSettings,
    /// Names of the classes, darker first (the rule's class 0, the collecting one); empty (or
    /// of another length than the classes found) = `material0`, `material1` (`ground` for one).
    pub class_names: Vec<String>,
}

/// A built tileset with its atlas, verdict and report.
#[derive(Clone, Debug)]
pub struct TilesetOutcome {
    /// The tileset, its manifest holding the settings, warnings and verdict.
    pub tileset: Tileset,
    /// Atlas width in pixels.
    pub atlas_width: usize,
    /// Atlas height in pixels.
    pub atlas_height: usize,
    /// Atlas RGB pixels, row-major ([`Tileset::render_atlas`]).
    pub atlas: Vec<[u8; 3]>,
    /// `"good"` or `"marginal"`.
    pub verdict: &'static str,
    /// Why.
    pub reasons: Vec<String>,
    /// `report.json`: preparation, search, patches, assessment, verdict and reasons.
    pub report: serde_json::Value,
}

/// Why no tileset was made.
#[derive(Debug, thiserror::Error)]
pub enum TilesetError {
    /// The capture cannot make a tileset (verdict "no"); `fix` says what to try.
    #[error("no tileset: {reason}; {fix}")]
    No {
        /// What is wrong.
        reason: String,
        /// What to try.
        fix: String,
    },
    /// Preparation failed.
    #[error("{capture}: {detail}")]
    Prepare {
        /// The capture's name.
        capture: String,
        /// Preparation's message.
        detail: String,
    },
    /// The tile side is not a positive number.
    #[error("--size {0}: must be positive")]
    Size(f64),
    /// The patch search's settings are out of range.
    #[error("bad search settings: {0}")]
    Search(String),
    /// The Wang set, the tiles or the assessment failed (their own message).
    #[error("{0}")]
    Build(String),
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
    p.transform(&Rigid::translation([-centre[0], -centre[1], -ground]));
    p
}

/// Share of the area two squares of side `size` at these centres have in common.
fn overlap(a: [f64; 2], b: [f64; 2], size: f64) -> f64 {
    let ox = (size - (a[0] - b[0]).abs()).max(0.0);
    let oy = (size - (a[1] - b[1]).abs()).max(0.0);
    ox * oy / (size * size)
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

/// The verdict "no": noted as `verdict: no — reason`, returned as [`TilesetError::No`].
fn no_verdict(obs: &dyn Observer, reason: &str, fix: &str) -> SplatError {
    obs.note(&format!("verdict: no — {reason}"));
    TilesetError::No { reason: reason.to_string(), fix: fix.to_string() }.into()
}

fn build(e: impl std::fmt::Display) -> SplatError {
    TilesetError::Build(e.to_string()).into()
}

/// The patches of each class: `2·colours` per class, of which only `⌈2·colours / rotations⌉`
/// are searched, each also serving turned. Returns them with their sources (for the report)
/// and pushes a warning per class whose patches share ground.
struct ClassSet {
    patches: Vec<ClassPatches>,
    sources: Vec<Vec<serde_json::Value>>,
}

/// Build a Wang tileset from a ground capture (`s`, as loaded), telling `obs` each numbered step
/// and warning as `bozkir tileset` prints them (`2. aligned …` to `6. measured …`, then
/// `warning: …`; on a "no" verdict the search's steps and `verdict: no — …`).
///
/// ```
/// use bozkir_core::NoProgress;
/// use bozkir_splat::capture::patches::SearchSettings;
/// use bozkir_splat::capture::{synth, Material, SynthParams};
/// use bozkir_splat::tiling::{make_tileset, TilesetRequest};
///
/// let one = vec![Material::sand()];
/// let cap = synth(&SynthParams { side_m: 4.0, density: 4000.0, materials: one, ..Default::default() }).unwrap();
/// let req = TilesetRequest {
///     capture: "synth".into(),
///     size: Some(0.8),
///     classes: Some(1),
///     colours: 2,
///     rotations: 1,
///     complete: false,
///     cut: false,
///     lod: 1,
///     max_per_tile: 60_000,
///     clean: false,
///     atlas_res: 16,
///     seed: 1,
///     search: SearchSettings::default(),
///     class_names: Vec::new(),
/// };
/// let out = make_tileset(&cap.splats, &req, &NoProgress).unwrap();
/// assert_eq!(out.tileset.manifest.tiles.len(), 8);
/// assert_eq!(out.atlas.len(), out.atlas_width * out.atlas_height);
/// ```
pub fn make_tileset(raw: &Splats, req: &TilesetRequest, obs: &dyn Observer) -> Result<TilesetOutcome, SplatError> {
    obs.step("screen");
    let screening = screen(raw, &ScreenParams::default());
    if screening.verdict != Verdict::LooksLikeGround {
        return Err(no_verdict(
            obs,
            &format!("the capture {} ({})", screening.verdict.text(), screening.reasons.join("; ")),
            "see `bozkir inspect` for what each number means",
        ));
    }
    obs.step("prepare");
    let cfg = PrepareConfig { clean: req.clean, ..PrepareConfig::default() };
    let prep = prepare(raw, &cfg)
        .map_err(|e| TilesetError::Prepare { capture: req.capture.clone(), detail: e.to_string() })?;
    let mut warnings: Vec<String> = prep.report.warnings.clone();
    if let Some(al) = &prep.report.align {
        obs.note(&format!(
            "2. aligned the ground to +z (tilt {:.1}° → {:.1}°), upness {:.2}{}",
            al.tilt_before_deg,
            al.tilt_after_deg,
            prep.report.upness,
            if req.clean { format!(", cleaned to {} splats", prep.splats.len()) } else { String::new() }
        ));
    }
    let s = &prep.splats;

    // Tile size against the capture's own scale.
    let med = median_max_scale(s);
    let suggested = (55.0 * med).clamp(0.5, 2.0);
    let size = req.size.unwrap_or(suggested);
    if !(size > 0.0 && size.is_finite()) {
        return Err(TilesetError::Size(size).into());
    }
    let ratio = size / med.max(1e-12);
    if !(12.0..=400.0).contains(&ratio) {
        warnings.push(format!(
            "tile size {size:.2} m is {ratio:.0}× the median splat size ({med:.4} m): far from the capture's scale; try --size {:.2}",
            55.0 * med
        ));
    }
    obs.note(&format!("3. tile size {size:.2} m ({ratio:.0}× the median splat size)"));

    // Patches per class: 2·colours; with rotations only ⌈2·colours / r⌉ real ones are searched.
    obs.step("patch search");
    let (used, turns) = (2 * req.colours as usize, req.rotations as usize);
    let need = used.div_ceil(turns);
    let st_for = |classes: usize| SearchSettings { size, count: need, classes, ..req.search.clone() };
    st_for(1).check().map_err(|e| TilesetError::Search(e.to_string()))?;
    let search = |classes: usize| find_patches(s, &st_for(classes));
    let found = match req.classes {
        Some(k) => search(k),
        None => match search(2) {
            Err(f) if f.kind == FailureKind::OneMaterial => {
                obs.note(&format!("   the capture holds one material ({}); building one class", f.reason));
                search(1)
            }
            Err(f) if f.kind == FailureKind::NotATilingExemplar => {
                obs.note(&format!("   two materials: {}; trying one class", f.reason));
                search(1)
            }
            other => other,
        },
    };
    let found = match found {
        Ok(f) => f,
        Err(f) => {
            for line in describe_trail(&f.trail) {
                obs.note(&format!("   {line}"));
            }
            return Err(no_verdict(obs, &f.reason, "see the steps above"));
        }
    };
    let k = found.chosen.len();
    obs.note(&format!(
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
    ));
    let names: Vec<String> = if req.class_names.len() == k {
        req.class_names.clone()
    } else if k == 2 {
        // Darker material first: the rule's class 0 is the collecting one (scrub, vegetation).
        let l = |c: &[f64; 3]| 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2];
        let dark = usize::from(l(&found.class_rgb[1]) < l(&found.class_rgb[0]));
        vec![format!("material{dark}"), format!("material{}", 1 - dark)]
    } else {
        vec!["ground".into()]
    };
    let mut set_of = ClassSet { patches: Vec::new(), sources: Vec::new() };
    // Per class, where each patch came from: h colours first, then v, as (candidate, quarter turns).
    for (c, chosen) in found.chosen.iter().enumerate() {
        if chosen.len() < need {
            return Err(no_verdict(
                obs,
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
            .map(|&i| cut_patch(s, found.candidates[i].centre, found.candidates[i].ground, size))
            .collect();
        // Every real patch unturned, then every one turned once, and so on: `used` in all.
        let slots: Vec<(usize, usize)> = (0..turns).flat_map(|t| (0..need).map(move |j| (j, t))).take(used).collect();
        let ps: Vec<Splats> = slots
            .iter()
            .map(|&(j, t)| if t == 0 { real[j].clone() } else { rotate_patch(&real[j], t as i32) })
            .collect();
        set_of.sources.push(
            slots.iter().map(|&(j, t)| serde_json::json!({"candidate": chosen[j], "quarter_turns": t})).collect(),
        );
        let n = req.colours as usize;
        set_of.patches.push(ClassPatches { h: ps[..n].to_vec(), v: ps[n..2 * n].to_vec() });
    }
    obs.step("tiles");
    let colours = Colours::square(req.colours).map_err(build)?;
    let set = if req.complete { WangSet::complete(colours) } else { WangSet::minimal(colours).map_err(build)? };
    let p = TileParams { size, cut: req.cut, lod: req.lod, max_per_tile: req.max_per_tile, ..TileParams::default() };
    let tiles = build_tiles(&set_of.patches, &set, &p).map_err(build)?;
    let (seam, straight): (f64, f64) =
        tiles.iter().fold((0.0, 0.0), |(x, y), t| (x + t.seam_cost, y + t.straight_cost));
    let set_name = if req.complete { "complete" } else { "minimal" };
    obs.note(&format!(
        "5. built {} tiles ({} per class, {} set{}), {} levels of detail",
        tiles.len(),
        set.len(),
        set_name,
        if !req.cut {
            String::new()
        } else {
            format!(", graph-cut diagonals cost {:.0}% of straight ones", 100.0 * seam / straight.max(1e-9))
        },
        req.lod
    ));
    let mut ts = Tileset::from_tiles(&tiles, size, [req.colours, req.colours], set_name, names, req.cut);
    obs.step("atlas");
    let (w, h, px) = ts.render_atlas(req.atlas_res);
    obs.step("assess");
    let assessment = assess(&ts, 8, 48, req.seed).map_err(build)?;
    obs.note("6. measured on 8×8 layouts:");
    for line in assessment_lines(&assessment) {
        obs.note(&line);
    }
    for w in &warnings {
        obs.note(&format!("warning: {w}"));
    }
    let (v, reasons) = verdict(&assessment, &warnings);
    ts.manifest.warnings = warnings.clone();
    ts.manifest.verdict = Some(serde_json::json!({"verdict": v, "reasons": reasons}));
    let settings = serde_json::json!({
        "capture": req.capture, "size": size, "colours": req.colours, "complete": req.complete,
        "rotations": req.rotations, "cut": req.cut, "lod": req.lod, "max_per_tile": req.max_per_tile, "clean": req.clean,
        "atlas_res": req.atlas_res,
        "search": found.settings,
    });
    if let serde_json::Value::Object(m) = settings {
        ts.manifest.settings = m;
    }
    let patches = serde_json::json!({
        "rotations": turns, "searched_per_class": need, "used_per_class": used, "sources": set_of.sources,
    });
    let report = serde_json::json!({
        "prepare": prep.report, "search": found, "patches": patches, "assessment": assessment, "verdict": v,
        "reasons": reasons,
    });
    Ok(TilesetOutcome { tileset: ts, atlas_width: w, atlas_height: h, atlas: px, verdict: v, reasons, report })
}

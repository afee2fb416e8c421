//! `figures`: the README's figures with the software renderer (no GPU, no browser) — the
//! workflow of `bozkir figures`.
//!
//! * `rule-on.png` / `rule-off.png` / `rule-onoff.png` — the rule's decision drawn with the real
//!   tiles seen from above: the terrain is laid under an `n × n` grid exactly as the viewer lays
//!   it (`bozkir_material::tilegrid`, the viewer's defaults), the rule decides a class per cell
//!   (`SceneFieldData::classify`, the viewer's call), the Wang layout picks each cell's tile of
//!   that class (`bozkir_splat::tiling::scene::scene_cells`, the viewer's call, layout seed 1),
//!   and each tile's level 0 is rendered from above (`raster::render_top`, north up, holes in the
//!   tile's mean colour as in the far-field atlas) into a mosaic multiplied by a hillshade of the
//!   drawn terrain (`Field::height_at` under every pixel). Rule off: a hashed class per cell, as
//!   the viewer's rule switch draws it.
//! * `rule-three-terrains.png` — the same rule and tileset on three profiles.
//! * `validation-kappa.png` — κ of each rule variant against real ground with the torus-shift
//!   chance band (null mean to null p95), from a `validation.json` or a fresh one-grid run of
//!   [`crate::validation::validate_rule`] on rasters the face names.
//! * `figures.json` — every figure with its inputs, so each can be reproduced.
//!
//! Same inputs, same bytes: every step is deterministic and nothing records time or temporary
//! paths. Nothing is written here: the outcome holds the images and the report.

use crate::error::{PipelineError, Result};
use crate::validation::{validate_rule, ValidationInput, ValidationOutcome, ValidationRequest};
use bozkir_core::{Grid, Observer};
use bozkir_io::IoError;
use bozkir_material::tilegrid::{Compat, Field, GridMapping};
use bozkir_material::validation::Settings;
use bozkir_material::{ClassifyOptions, Rule};
use bozkir_render::draw::{draw_text, fill_rect, hstack, text_width, with_label};
use bozkir_render::{multi_hillshade, MultiHillshadeParams, Rgb8Image};
use bozkir_splat::raster::render_top;
use bozkir_splat::tiling::scene::{scene_cells, MappingArgs, SceneFieldData};
use bozkir_splat::tiling::starter::{starter, StarterParams};
use bozkir_splat::tiling::tileset::{match_mean, mean_rgb, Tileset};
use rayon::prelude::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

const WHITE: [u8; 3] = [255, 255, 255];
const INK: [u8; 3] = [30, 30, 30];

fn err(msg: String) -> PipelineError {
    PipelineError::Invalid(msg)
}

/// Where the κ plot's validation comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum ValidationSource {
    /// No κ plot.
    Skip,
    /// A `validation.json` written by `bozkir validate-rule`.
    File(PathBuf),
    /// A fresh validation on these rasters (one grid, `validation_grid`).
    Rasters {
        /// The DTM GeoTIFF.
        dtm: PathBuf,
        /// The orthophoto GeoTIFF.
        ortho: PathBuf,
    },
    /// Asked for, but the face found no rasters: the plot is skipped with a note.
    Unavailable,
}

/// The figures to draw (the defaults are the viewer's).
#[derive(Debug, Clone, PartialEq)]
pub struct FiguresRequest {
    /// A tileset folder or zip; `None`: the built-in starter tileset.
    pub tileset: Option<PathBuf>,
    /// A terrain folder (terrain.json + height.tif); `None`: the generated `profile`.
    pub terrain: Option<PathBuf>,
    /// Profile of the generated terrain of the rule on/off figures.
    pub profile: String,
    /// Seed of the generated terrains.
    pub seed: u32,
    /// Side of the generated terrains in cells (4..=4096).
    pub size: u32,
    /// The profiles of rule-three-terrains.png.
    pub profiles: Vec<String>,
    /// Tiles per side of the grid (2..=256).
    pub grid: u32,
    /// Pixels per tile in the mosaics (4..=256).
    pub res: usize,
    /// Wang layout seed (the viewer's is 1).
    pub layout_seed: u32,
    /// Share of the collecting class; 0 = each cell takes its best class.
    pub share: f64,
    /// "Follows height".
    pub altitude: f64,
    /// Coherence.
    pub coherence: u32,
    /// Decisiveness.
    pub sharpness: f64,
    /// Relief of the drawn terrain.
    pub relief: f64,
    /// Detail relief (0 = off).
    pub detail: f64,
    /// Vertical exaggeration of the hillshade (shading only).
    pub exaggeration: f64,
    /// The κ plot's validation.
    pub validation: ValidationSource,
    /// Grid of the κ plot (taken from the file when it has it; the one run otherwise).
    pub validation_grid: usize,
}

/// The drawn figures.
#[derive(Debug, Clone)]
pub struct FiguresOutcome {
    /// `(file name, image)` in the order of `figures.json`.
    pub images: Vec<(&'static str, Rgb8Image)>,
    /// The content of `figures.json`.
    pub report: Value,
    /// The main terrain's label, the rule's shares and what drove it (for a face's line).
    pub rule_on: (String, Vec<f64>, String),
    /// The fresh validation run for the κ plot, if one was run.
    pub validation: Option<ValidationOutcome>,
}

/// A terrain ready for the scene functions, with how it was made.
struct Scene {
    data: SceneFieldData,
    label: String,
    input: Value,
}

fn generated(profile: &str, seed: u32, size: u32) -> Result<Scene> {
    // The viewer's terrain: the profile generator's field at the default 1000 m height range,
    // in f32 as the page holds it, sides 4..=2048 as the page allows.
    let prof = bozkir_terrain::profiles::profile(profile).map_err(|e| err(format!("terrain: {e}")))?;
    if !(4..=2048).contains(&size) {
        return Err(err(format!("terrain: terrain size {size} outside 4..=2048")));
    }
    let t = bozkir_terrain::profiles::generate(size as usize, u64::from(seed), &prof.params, &bozkir_core::NoProgress);
    let heights: Vec<f32> = t.height.data().iter().map(|&v| (v * 1000.0) as f32).collect();
    let sediment: Vec<f32> = t.sediment.data().iter().map(|&v| v as f32).collect();
    let (w, h) = (t.height.width() as u32, t.height.height() as u32);
    let data =
        SceneFieldData::new(&heights, w, h, Some(&sediment)).map_err(|e| err(format!("terrain {profile}: {e}")))?;
    Ok(Scene {
        data,
        label: profile.to_string(),
        input: json!({"source": "generated", "profile": profile, "seed": seed, "size": size}),
    })
}

fn terrain_folder(dir: &Path) -> Result<Scene> {
    let (_, height) = crate::folder::read_terrain_folder(dir, "figures")?;
    let (w, h) = (height.width(), height.height());
    let field = Field::new(w, h, height.data()).map_err(|e| err(format!("{}: {e}", dir.display())))?;
    let mut sediment = None;
    let mut sed_name = Value::Null;
    for name in ["sediment.tif", "deposit.tif"] {
        if let Some(g) = crate::folder::read_optional_layer(&dir.join(name), w, h)? {
            let v: Vec<f64> = g.data().iter().map(|&x| f64::from(x)).collect();
            if v.iter().all(|x| x.is_finite()) {
                sediment = Some(Field::new(w, h, &v).map_err(|e| err(format!("{}: {e}", dir.join(name).display())))?);
                sed_name = json!(name);
                break;
            }
        }
    }
    let label = dir.file_name().and_then(|n| n.to_str()).unwrap_or("terrain").to_string();
    Ok(Scene {
        data: SceneFieldData { field, sediment },
        label,
        input: json!({"source": "folder", "path": dir.display().to_string(), "sediment": sed_name}),
    })
}

fn load_tileset(path: Option<&Path>) -> Result<(Tileset, Value)> {
    match path {
        None => {
            let (ts, ..) = starter(&StarterParams::default());
            Ok((ts, json!({"source": "starter", "params": "StarterParams::default()"})))
        }
        Some(p) => {
            if !p.exists() {
                return Err(err(format!("{}: no such tileset folder or zip", p.display())));
            }
            let ts = bozkir_splat::formats::tileset::read_with(p, crate::budget::zip_limits())
                .map_err(|e| err(format!("tileset {e}")))?;
            Ok((ts, json!({"source": "path", "path": p.display().to_string()})))
        }
    }
}

/// Every tile's level 0 from above at `res²` pixels (row 0 north), holes in its mean colour.
fn tile_images(ts: &Tileset, res: usize) -> Vec<Vec<[u8; 3]>> {
    (0..ts.manifest.tiles.len())
        .into_par_iter()
        .map(|t| {
            let s = ts.level(t, 0);
            let mean = mean_rgb(&s);
            let mut im = render_top(&s, [0.0, 0.0], ts.manifest.size, res);
            match_mean(&mut im, mean);
            im.to_rgb8(mean)
        })
        .collect()
}

/// The mapping of the viewer for this tileset and these options.
fn mapping_args(a: &FiguresRequest, tile: f64) -> MappingArgs {
    MappingArgs {
        n: a.grid,
        tile,
        relief: a.relief,
        relief_scale: None,
        angle_deg: 0.0,
        detail: a.detail,
        compat: Compat::Original,
    }
}

/// Shading factor per mosaic pixel: a multi-directional hillshade of the drawn terrain
/// (`Field::height_at` under each pixel centre), 1 on level ground.
fn shading(field: &Field, map: &GridMapping, res: usize, exaggeration: f64) -> Vec<f64> {
    let n = map.n;
    let side = n * res;
    let half = n as f64 * map.tile / 2.0;
    let px = map.tile / res as f64;
    let mut z = vec![0.0; side * side];
    z.par_chunks_mut(side).enumerate().for_each(|(r, row)| {
        let y = half - (r as f64 + 0.5) * px;
        for (c, v) in row.iter_mut().enumerate() {
            *v = field.height_at(map, -half + (c as f64 + 0.5) * px, y);
        }
    });
    let g = Grid::from_vec(side, side, z).with_cell_size(px, px);
    let p = MultiHillshadeParams { z_factor: exaggeration, ..Default::default() };
    let level = p.altitude_deg.to_radians().sin();
    multi_hillshade(&g, &p).data().iter().map(|&s| (0.25 + 0.75 * s / level).clamp(0.0, 1.35)).collect()
}

/// The tiles `cells` (`c = j·n + i`, `i` east, `j` south) pasted north up and shaded.
fn mosaic(cells: &[u32], n: usize, tiles: &[Vec<[u8; 3]>], res: usize, shade: &[f64]) -> Rgb8Image {
    let side = n * res;
    let mut im = Rgb8Image::new(side, side);
    im.data.par_chunks_mut(side * 3).enumerate().for_each(|(r, row)| {
        let j = r / res;
        let ty = r % res;
        for c in 0..side {
            let i = c / res;
            let tile = &tiles[cells[j * n + i] as usize];
            let p = tile[ty * res + c % res];
            let f = shade[r * side + c];
            for k in 0..3 {
                row[c * 3 + k] = (f64::from(p[k]) * f).round().clamp(0.0, 255.0) as u8;
            }
        }
    });
    im
}

/// Rows of per-cell classes as strings of digits (row 0 north), for figures.json.
fn class_rows(classes: &[u8], n: usize) -> Vec<String> {
    classes.chunks(n).map(|r| r.iter().map(|c| char::from(b'0' + c.min(&9))).collect()).collect()
}

struct RuleFigure {
    on: Rgb8Image,
    off: Rgb8Image,
    on_classes: Vec<u8>,
    off_classes: Vec<u8>,
    shares: Vec<f64>,
    source: String,
}

fn rule_figure(scene: &Scene, ts: &Tileset, tiles: &[Vec<[u8; 3]>], a: &FiguresRequest) -> Result<RuleFigure> {
    let m = mapping_args(a, ts.manifest.size);
    let map = m.mapping().map_err(|e| err(format!("{e}")))?;
    let share = (a.share > 0.0).then_some(a.share);
    let d = scene
        .data
        .classify(&m, share, a.altitude, a.coherence, a.sharpness)
        .map_err(|e| err(format!("rule on {}: {e}", scene.label)))?;
    let n = a.grid as usize;
    let on = scene_cells(&ts.manifest, a.grid, a.layout_seed, Some(d.class.as_slice()), None, None, 0.0)
        .map_err(|e| err(format!("{e}")))?;
    let off =
        scene_cells(&ts.manifest, a.grid, a.layout_seed, None, None, None, 0.0).map_err(|e| err(format!("{e}")))?;
    let shade = shading(&scene.data.field, &map, a.res, a.exaggeration);
    let cls = |cells: &[u32]| cells.iter().map(|&t| ts.manifest.tiles[t as usize].class).collect::<Vec<u8>>();
    Ok(RuleFigure {
        on: mosaic(&on.tile, n, tiles, a.res, &shade),
        off: mosaic(&off.tile, n, tiles, a.res, &shade),
        on_classes: cls(&on.tile),
        off_classes: cls(&off.tile),
        shares: d.shares(),
        source: d.source.name().to_string(),
    })
}

/// One bar of the κ plot.
#[derive(Debug, Clone, PartialEq)]
pub struct KappaBar {
    pub name: String,
    pub kappa: f64,
    pub null_mean: f64,
    pub null_p95: f64,
    pub p: f64,
}

/// The variants of one grid and truth of a validation.json, in the report's order (rule,
/// its variants, then single cues). Errors name what is missing.
pub fn kappa_bars(v: &Value, grid: usize, what: &str) -> Result<(usize, String, Vec<KappaBar>)> {
    let grids = v
        .get("grids")
        .and_then(Value::as_object)
        .ok_or_else(|| err(format!("{what}: not a validation.json of `bozkir validate-rule` (no \"grids\" object)")))?;
    let mut keys: Vec<usize> = grids.keys().filter_map(|k| k.parse().ok()).collect();
    keys.sort_unstable();
    let Some(&first) = keys.first() else { return Err(err(format!("{what}: \"grids\" holds no grid"))) };
    let n = if keys.contains(&grid) { grid } else { first };
    let truths = grids[&n.to_string()]
        .get("truths")
        .and_then(Value::as_object)
        .ok_or_else(|| err(format!("{what}: grids.{n} has no \"truths\" object")))?;
    let mut names: Vec<&String> = truths.keys().collect();
    names.sort_by_key(|t| (t.as_str() != "colour", t.as_str() != "class", (*t).clone()));
    let Some((truth, comps)) = names
        .iter()
        .find_map(|t| truths[t.as_str()].get("comparisons").and_then(Value::as_object).map(|c| ((*t).clone(), c)))
    else {
        return Err(err(format!("{what}: grids.{n}: no truth with \"comparisons\" (every truth unscored)")));
    };
    const ORDER: [&str; 7] =
        ["rule", "rule, no altitude", "rule, flipped", "low ground", "drainage", "hollows (low TPI)", "gentle slope"];
    let mut vars: Vec<&String> = comps.keys().collect();
    vars.sort_by_key(|k| (ORDER.iter().position(|o| *o == k.as_str()).unwrap_or(ORDER.len()), (*k).clone()));
    let mut bars = Vec::new();
    for k in vars {
        let c = &comps[k.as_str()];
        let f = |field: &str| {
            c.get(field).and_then(Value::as_f64).ok_or_else(|| {
                err(format!("{what}: grids.{n}.truths.{truth}.comparisons.{k:?}: no number \"{field}\""))
            })
        };
        bars.push(KappaBar {
            name: k.clone(),
            kappa: f("kappa")?,
            null_mean: f("null_mean")?,
            null_p95: f("null_p95")?,
            p: f("p")?,
        });
    }
    if bars.is_empty() {
        return Err(err(format!("{what}: grids.{n}.truths.{truth}: no comparisons")));
    }
    Ok((n, truth, bars))
}

/// Horizontal bar chart of κ per variant over the chance band (grey: null mean to null p95,
/// dark tick at p95). Bars beyond their p95 are green, others grey-brown.
pub fn kappa_plot(bars: &[KappaBar], title: &str) -> Rgb8Image {
    let s = 2; // font scale
    let label_w = bars.iter().map(|b| text_width(&b.name, s)).max().unwrap_or(0) + 16;
    let plot_w = 440usize;
    let value_w = text_width("-0.00  P=0.000", s) + 16;
    let row = 34usize;
    let top = 44usize;
    let bottom = 40usize;
    let w = label_w + plot_w + value_w + 16;
    let h = top + row * bars.len() + bottom;
    let mut im = Rgb8Image::new(w, h);
    fill_rect(&mut im, 0, 0, w as i64, h as i64, WHITE);
    draw_text(&mut im, 8, 10, title, s, INK);
    let lo = bars.iter().map(|b| b.kappa.min(b.null_mean)).fold(-0.2f64, f64::min);
    let hi = bars.iter().map(|b| b.kappa.max(b.null_p95)).fold(0.6f64, f64::max);
    let (lo, hi) = ((lo / 0.2).floor() * 0.2, (hi / 0.2).ceil() * 0.2);
    let x0 = label_w as i64;
    let xof = |v: f64| x0 + ((v - lo) / (hi - lo) * plot_w as f64).round() as i64;
    let plot_top = top as i64;
    let plot_bot = (top + row * bars.len()) as i64;
    // Grid lines and ticks every 0.2.
    let mut t = lo;
    while t <= hi + 1e-9 {
        let x = xof(t);
        fill_rect(&mut im, x, plot_top, 1, plot_bot - plot_top, [225, 225, 225]);
        let lab = format!("{:.1}", if t.abs() < 1e-9 { 0.0 } else { t });
        draw_text(&mut im, x - text_width(&lab, s) as i64 / 2, plot_bot + 8, &lab, s, INK);
        t += 0.2;
    }
    for (k, b) in bars.iter().enumerate() {
        let y = plot_top + (k * row) as i64;
        let (bl, bh) = (y + 6, row as i64 - 12);
        // Chance band and its p95 tick.
        let (a, c) = (xof(b.null_mean.min(b.null_p95)), xof(b.null_mean.max(b.null_p95)));
        fill_rect(&mut im, a, y + 2, (c - a).max(1), row as i64 - 4, [205, 205, 215]);
        let zero = xof(0.0);
        let kx = xof(b.kappa);
        let colour = if b.kappa > b.null_p95 { [70, 140, 70] } else { [160, 130, 100] };
        let (l, r) = (zero.min(kx), zero.max(kx));
        fill_rect(&mut im, l, bl, (r - l).max(1), bh, colour);
        fill_rect(&mut im, c - 1, y + 2, 3, row as i64 - 4, [60, 60, 90]);
        draw_text(&mut im, x0 - 8 - text_width(&b.name, s) as i64, y + (row as i64 - 10) / 2, &b.name, s, INK);
        let val = format!("{:.2}  P={:.3}", b.kappa, b.p);
        draw_text(&mut im, x0 + plot_w as i64 + 10, y + (row as i64 - 10) / 2, &val, s, INK);
    }
    // Zero axis.
    fill_rect(&mut im, xof(0.0), plot_top, 1, plot_bot - plot_top, INK);
    im
}

/// Refuse a request out of range, naming the option as `bozkir figures` spells it.
pub fn check(a: &FiguresRequest) -> Result<()> {
    if !(2..=256).contains(&a.grid) {
        return Err(err(format!("--grid {} outside 2..256 tiles", a.grid)));
    }
    if !(4..=256).contains(&a.res) {
        return Err(err(format!("--res {} outside 4..256 pixels per tile", a.res)));
    }
    if a.grid as usize * a.res > 8192 {
        return Err(err(format!("--grid {} × --res {} is wider than 8192 pixels", a.grid, a.res)));
    }
    if !(4..=4096).contains(&a.size) {
        return Err(err(format!("--size {} outside 4..4096 cells", a.size)));
    }
    if !(a.share == 0.0 || (a.share > 0.0 && a.share < 1.0)) {
        return Err(err(format!("--share {} outside (0, 1) (0 = free)", a.share)));
    }
    // The rule's ranges are ClassifyOptions'; the message names the option.
    let flag = |e: bozkir_material::ParamError| err(format!("--{e}"));
    ClassifyOptions::check_altitude(a.altitude).map_err(flag)?;
    ClassifyOptions::check_sharpness(a.sharpness).map_err(flag)?;
    if !(a.exaggeration.is_finite() && a.exaggeration > 0.0) {
        return Err(err(format!("--exaggeration {} must be above 0", a.exaggeration)));
    }
    if !(2..=256).contains(&a.validation_grid) {
        return Err(err(format!("--validation-grid {}: 2..=256 cells per side", a.validation_grid)));
    }
    if a.profiles.is_empty() {
        return Err(err("--profiles needs at least one profile".into()));
    }
    if let ValidationSource::File(v) = &a.validation {
        if !v.is_file() {
            return Err(err(format!("{}: no such validation.json", v.display())));
        }
    }
    Ok(())
}

/// The validation report of the κ plot and how it was obtained: read from a file, or a fresh
/// one-grid run on the rasters (returned too, for the face to print).
fn validation_report(a: &FiguresRequest) -> Result<Option<(Value, Value, Option<ValidationOutcome>)>> {
    Ok(match &a.validation {
        ValidationSource::Skip | ValidationSource::Unavailable => None,
        ValidationSource::File(p) => {
            let v: Value = bozkir_io::json::read_json(p).map_err(|e| match e {
                IoError::Io { error: source, .. } => {
                    PipelineError::step(format!("{}: cannot read", p.display()), source)
                }
                IoError::NotJson { error: source, .. } => {
                    PipelineError::step(format!("{}: not JSON", p.display()), source)
                }
                e => PipelineError::Io(e),
            })?;
            let what = p.display().to_string();
            kappa_bars(&v, a.validation_grid, &what)?;
            Some((v, json!({"source": "file", "path": what}), None))
        }
        ValidationSource::Rasters { .. } => None,
    })
}

/// Run the validation of the κ plot on the rasters (one grid, the validation defaults).
fn run_validation(dtm: &Path, ortho: &Path, grid: usize, obs: &dyn Observer) -> Result<ValidationOutcome> {
    let req = ValidationRequest {
        input: ValidationInput::Rasters { dtm: dtm.to_path_buf(), ortho: ortho.to_path_buf(), dsm: None },
        settings: Settings { grids: vec![grid], ..Settings::default() },
        rule: Rule::builtin(),
        rule_name: "built-in".into(),
    };
    validate_rule(&req, obs)
}

/// Draw the figures (see the module documentation). Inputs are read (and refused) before
/// anything is drawn.
///
/// # Examples
///
/// ```
/// use bozkir_pipeline::figures::{figures, FiguresRequest, ValidationSource};
///
/// // A validation.json as `bozkir validate-rule` writes it, cut to what the κ plot reads.
/// let dir = tempfile::tempdir().unwrap();
/// let report = dir.path().join("validation.json");
/// let text = serde_json::json!({"grids": {"8": {"truths": {"colour": {"comparisons": {
///     "rule": {"kappa": 0.4, "null_mean": 0.01, "null_p95": 0.15, "p": 0.01},
///     "gentle slope": {"kappa": 0.1, "null_mean": 0.0, "null_p95": 0.2, "p": 0.3},
/// }}}}}});
/// std::fs::write(&report, text.to_string()).unwrap();
///
/// let req = FiguresRequest {
///     tileset: None, terrain: None, profile: "canyon".into(), seed: 3, size: 24,
///     profiles: vec!["hills".into()], grid: 4, res: 8, layout_seed: 1, share: 0.3,
///     altitude: 0.4, coherence: 3, sharpness: 3.0, relief: 1.2, detail: 1.0,
///     exaggeration: 3.0, validation: ValidationSource::File(report), validation_grid: 8,
/// };
/// let out = figures(&req, &bozkir_core::NoProgress).unwrap();
/// assert_eq!(out.images[0].0, "rule-on.png");
/// assert!(out.images.iter().any(|(name, _)| *name == "validation-kappa.png"));
/// ```
pub fn figures(a: &FiguresRequest, obs: &dyn Observer) -> Result<FiguresOutcome> {
    check(a)?;
    obs.step("read");
    let (ts, ts_input) = load_tileset(a.tileset.as_deref())?;
    if ts.manifest.classes.len() < 2 {
        return Err(err(format!("the tileset has {} class(es); the rule figures need two", ts.manifest.classes.len())));
    }
    let file_validation = validation_report(a)?;
    let scene = match &a.terrain {
        Some(d) => terrain_folder(d)?,
        None => generated(&a.profile, a.seed, a.size)?,
    };
    let others: Vec<Scene> = a.profiles.iter().map(|p| generated(p, a.seed, a.size)).collect::<Result<_>>()?;
    obs.step("draw");
    let tiles = tile_images(&ts, a.res);
    let n = a.grid as usize;

    let mut images = Vec::new();
    let mut figs = Vec::new();
    let rf = rule_figure(&scene, &ts, &tiles, a)?;
    let on_l = with_label(&rf.on, "RULE ON", 3, WHITE, INK);
    let off_l = with_label(&rf.off, "RULE OFF (HASHED CLASSES)", 3, WHITE, INK);
    let onoff = hstack(&[&on_l, &off_l], 8, WHITE);
    figs.push(json!({
        "file": "rule-on.png",
        "shows": "the rule's class per cell, real tiles from above (level 0, north up), times a hillshade of the drawn terrain",
        "terrain": scene.input, "shares": rf.shares, "drive": rf.source,
        "tile_classes": class_rows(&rf.on_classes, n),
    }));
    figs.push(json!({
        "file": "rule-off.png",
        "shows": "the same grid with a hashed class per cell (the viewer's rule switched off)",
        "terrain": scene.input, "tile_classes": class_rows(&rf.off_classes, n),
    }));
    figs.push(
        json!({"file": "rule-onoff.png", "shows": "rule-on.png and rule-off.png side by side", "terrain": scene.input}),
    );
    let rule_on = (scene.label.clone(), rf.shares.clone(), rf.source.clone());
    images.push(("rule-on.png", rf.on));
    images.push(("rule-off.png", rf.off));
    images.push(("rule-onoff.png", onoff));

    let mut panels = Vec::new();
    let mut three = Vec::new();
    for s in &others {
        let f = rule_figure(s, &ts, &tiles, a)?;
        panels.push(with_label(&f.on, &s.label, 3, WHITE, INK));
        three.push(json!({"terrain": s.input, "shares": f.shares, "drive": f.source, "tile_classes": class_rows(&f.on_classes, n)}));
    }
    let refs: Vec<&Rgb8Image> = panels.iter().collect();
    images.push(("rule-three-terrains.png", hstack(&refs, 8, WHITE)));
    figs.push(json!({
        "file": "rule-three-terrains.png",
        "shows": "one rule and one tileset on several terrains (same grid and options)",
        "panels": three,
    }));

    // The validation plot: from the file, else a fresh run on the face's rasters.
    let mut fresh = None;
    let validation = match (&a.validation, file_validation) {
        (_, Some((v, input, _))) => Some((v, input)),
        (ValidationSource::Rasters { dtm, ortho }, None) => {
            obs.step("validation");
            let out = run_validation(dtm, ortho, a.validation_grid, obs)?;
            let input = json!({"source": "validate-rule", "dtm": dtm.display().to_string(),
                "ortho": ortho.display().to_string(), "grids": [a.validation_grid]});
            let v = out.report.clone();
            fresh = Some(out);
            Some((v, input))
        }
        _ => None,
    };
    if let Some((v, input)) = validation {
        let (gn, truth, bars) = kappa_bars(&v, a.validation_grid, "validation")?;
        let title = format!("KAPPA PER VARIANT, GRID {gn}, TRUTH {truth}. BAND: CHANCE (NULL MEAN TO P95)");
        images.push(("validation-kappa.png", kappa_plot(&bars, &title)));
        figs.push(json!({
            "file": "validation-kappa.png",
            "shows": "Cohen's kappa of each rule variant against real ground, over the torus-shift chance band",
            "validation": input, "grid": gn, "truth": truth,
            "bars": bars.iter().map(|b| json!({"name": b.name, "kappa": b.kappa, "null_mean": b.null_mean, "null_p95": b.null_p95, "p": b.p})).collect::<Vec<_>>(),
        }));
    }

    let report = json!({
        "format_version": 1,
        "generator": format!("bozkir figures {}", env!("CARGO_PKG_VERSION")),
        "tileset": ts_input,
        "tileset_tiles": ts.manifest.tiles.len(),
        "tileset_classes": ts.manifest.classes,
        "grid": a.grid, "res": a.res, "layout_seed": a.layout_seed,
        "mapping": {"tile": ts.manifest.size, "relief": a.relief, "relief_scale": "follows the grid", "angle_deg": 0.0, "detail": a.detail},
        "rule": {"rule": "built-in", "share": if a.share > 0.0 { json!(a.share) } else { Value::Null },
            "altitude": a.altitude, "coherence": a.coherence, "sharpness": a.sharpness, "blend": 0.0},
        "shading": {"hillshade": "multi-directional 225/270/315/360°, altitude 45°", "exaggeration": a.exaggeration},
        "figures": figs,
    });
    Ok(FiguresOutcome { images, report, rule_on, validation: fresh })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kappa_bars_read_the_report_and_name_what_is_missing() {
        let v = json!({"grids": {"8": {"truths": {"colour": {"comparisons": {
            "gentle slope": {"kappa": 0.1, "null_mean": 0.0, "null_p95": 0.2, "p": 0.3},
            "rule": {"kappa": 0.4, "null_mean": 0.01, "null_p95": 0.15, "p": 0.01},
        }}}}}});
        let (n, truth, bars) = kappa_bars(&v, 24, "v").unwrap();
        assert_eq!((n, truth.as_str()), (8, "colour"));
        assert_eq!(bars.iter().map(|b| b.name.as_str()).collect::<Vec<_>>(), ["rule", "gentle slope"]);
        let e = kappa_bars(&json!({"grid": 1}), 24, "v.json").unwrap_err().to_string();
        assert!(e.contains("v.json") && e.contains("\"grids\""), "{e}");
        let bad = json!({"grids": {"8": {"truths": {"colour": {"comparisons": {"rule": {"kappa": "x"}}}}}}});
        let e = kappa_bars(&bad, 8, "v").unwrap_err().to_string();
        assert!(e.contains("\"kappa\""), "{e}");
        let im = kappa_plot(&bars, "T");
        assert!(im.data.iter().any(|&b| b < 200));
    }

    #[test]
    fn mosaic_puts_tiles_north_up() {
        let tiles = vec![vec![[10u8, 20, 30]; 4], vec![[200u8, 100, 50]; 4]];
        let shade = vec![1.0; 16];
        let im = mosaic(&[0, 1, 1, 0], 2, &tiles, 2, &shade);
        assert_eq!(im.pixel(0, 0), [10, 20, 30]);
        assert_eq!(im.pixel(3, 0), [200, 100, 50]);
        assert_eq!(im.pixel(0, 3), [200, 100, 50]);
        assert_eq!(class_rows(&[0, 1, 1, 0], 2), ["01", "10"]);
    }
}

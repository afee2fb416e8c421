//! The gallery (`bozkir gallery`): every generator bozkir has — the 19 profiles, the built-in
//! recipes, and the worlds (flat, landscape, roads, composite, forest, implicit cave, voxels) —
//! generated small, rendered with the software renderer through [`crate::views`], and laid out
//! as one contact sheet, with turntable GIFs of a chosen few. `docs/gallery.md` shows its output.
//!
//! Layout of the folder it writes:
//!
//! | path | what |
//! |---|---|
//! | `scenes/<kind>-<name>/` | the generated terrain or world folder |
//! | `stills/<kind>-<name>.png` | the still of each |
//! | `turntables/<kind>-<name>.gif` | a turntable of the chosen items |
//! | `contact_sheet.png` | every still, labelled, in rows |
//! | `gallery.json` | the items: name, kind, folder, still, turntable |
//!
//! Profiles and recipes are drawn at `size`² cells of `5000/size` m (a 5 km square, 1000 m of
//! relief for the profiles); 2-D worlds at `world_size`² cells; 3-D worlds at their defaults.
//! Seeds are fixed (profiles and recipes 3, worlds 0), so the gallery is the same every run.

use crate::compute::Compute;
use crate::recipe::{run_recipe, RecipeRequest};
use crate::terrain::{terrain, TerrainRequest};
use crate::views::{load_scene, render_scene, write_images, RenderRequest, UpAxis};
use crate::world::{generate_world, WorldRequest};
use crate::{PipelineError, Result};
use bozkir_core::Observer;
use bozkir_render::draw::{fill_rect, paste, with_label};
use bozkir_render::Rgb8Image;
use bozkir_world::product::{WorldSpec, GENERATORS};
use bozkir_world::{Compat, Seed};
use serde_json::{json, Map, Value};
use std::path::Path;

/// What the gallery draws.
#[derive(Debug, Clone, PartialEq)]
pub struct GalleryRequest {
    /// Cells per side of the profiles and recipes. Default 192.
    pub size: usize,
    /// Cells per side of the 2-D worlds. Default 128.
    pub world_size: usize,
    /// Still size. Default 320×200.
    pub still: (usize, usize),
    /// Items (`kind-name`, e.g. `profile-canyon`, `world-forest`) that also get a turntable.
    pub turntables: Vec<String>,
    /// Turntable frames. Default 24.
    pub turntable_frames: usize,
    /// Turntable size. Default 256×160.
    pub turntable_size: (usize, usize),
    /// Only the items whose `kind-name` contains one of these (all when empty).
    pub only: Vec<String>,
}

impl Default for GalleryRequest {
    fn default() -> Self {
        Self {
            size: 192,
            world_size: 128,
            still: (320, 200),
            turntables: [
                "profile-alpine",
                "recipe-ds2",
                "world-composite",
                "world-forest",
                "world-implicit_cave",
                "world-voxels",
            ]
            .map(String::from)
            .to_vec(),
            turntable_frames: 24,
            turntable_size: (256, 160),
            only: Vec::new(),
        }
    }
}

/// One item of the gallery.
#[derive(Debug, Clone, PartialEq)]
pub struct GalleryItem {
    /// `kind-name`.
    pub id: String,
    /// `profile`, `recipe` or `world`.
    pub kind: &'static str,
    /// Files written for it, relative to the gallery folder.
    pub files: Vec<String>,
}

/// Sheet background and label ink.
const SHEET_BG: [u8; 3] = [30, 32, 36];
const SHEET_INK: [u8; 3] = [230, 230, 230];
/// Stills per row of the contact sheet.
const PER_ROW: usize = 5;

fn create(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| PipelineError::Io(bozkir_io::IoError::io(dir, e)))
}

/// Every item id the gallery knows, in order.
pub fn item_ids() -> Vec<(String, &'static str, String)> {
    let mut out = Vec::new();
    for p in bozkir_terrain::profiles::profile_names() {
        out.push((format!("profile-{p}"), "profile", p.to_string()));
    }
    for r in bozkir_recipe::builtin::names() {
        out.push((format!("recipe-{r}"), "recipe", r));
    }
    for g in GENERATORS.iter().filter(|g| g.available) {
        out.push((format!("world-{}", g.name), "world", g.name.to_string()));
    }
    out
}

/// Generates, renders and lays out the gallery into `dir` (see the module docs).
pub fn gallery(req: &GalleryRequest, dir: &Path, obs: &dyn Observer) -> Result<Vec<GalleryItem>> {
    let (sw, sh) = req.still;
    if !(32..=4096).contains(&sw) || !(32..=4096).contains(&sh) {
        return Err(PipelineError::Invalid(format!("gallery still {sw}×{sh} outside 32..=4096 pixels a side")));
    }
    if !(16..=2048).contains(&req.size) || !(16..=2048).contains(&req.world_size) {
        return Err(PipelineError::Invalid(format!(
            "gallery sizes {} and {} must be 16..=2048 cells",
            req.size, req.world_size
        )));
    }
    let ids: Vec<_> = item_ids()
        .into_iter()
        .filter(|(id, _, _)| req.only.is_empty() || req.only.iter().any(|o| id.contains(o.as_str())))
        .collect();
    if ids.is_empty() {
        return Err(PipelineError::Invalid(format!("no gallery item matches {:?}", req.only)));
    }
    for d in ["scenes", "stills", "turntables"] {
        create(&dir.join(d))?;
    }
    let mut items = Vec::new();
    let mut labelled = Vec::new();
    for (id, kind, name) in &ids {
        obs.step(id);
        let folder = dir.join("scenes").join(id);
        create(&folder)?;
        match *kind {
            "profile" => {
                let mut t = TerrainRequest::profile(name, req.size, 3)?;
                t.cell_size = 5000.0 / req.size as f64;
                terrain(&t, &folder, obs)?;
            }
            "recipe" => {
                let recipe = bozkir_recipe::builtin::builtin(name)?;
                let r = RecipeRequest {
                    recipe: &recipe,
                    size: req.size,
                    cell_size: 5000.0 / req.size as f64,
                    seed: 3,
                    until: None,
                    placement: Default::default(),
                    outputs: Default::default(),
                };
                run_recipe(&r, Compute::cpu(), &folder, obs)?;
            }
            _ => {
                let mut o = Map::new();
                if !bozkir_world::product::is_volume(name) && name != "forest" {
                    let side = 2.0 * req.world_size as f64;
                    o.insert("domain_size".into(), json!([side, side]));
                }
                let spec = WorldSpec::resolve(name, Seed::Int(0), Compat::Pyworldgen, &o)
                    .map_err(|e| PipelineError::Invalid(format!("world {name}: {e}")))?;
                generate_world(&WorldRequest { spec, base: None }, &folder, obs)?;
            }
        }
        let scene = load_scene(&folder, UpAxis::Auto)?;
        let (w, h) = req.still;
        let still = RenderRequest { width: w, height: h, ..RenderRequest::default() };
        let frames = render_scene(&scene, &still, obs)?;
        let still_file = format!("stills/{id}.png");
        write_images(&dir.join(&still_file), &frames, 1.0)?;
        let mut files = vec![format!("scenes/{id}"), still_file];
        if req.turntables.iter().any(|t| t == id) {
            let (tw, th) = req.turntable_size;
            let r = RenderRequest { width: tw, height: th, frames: req.turntable_frames, ..RenderRequest::default() };
            let spin = render_scene(&scene, &r, obs)?;
            let f = format!("turntables/{id}.gif");
            write_images(&dir.join(&f), &spin, 12.0)?;
            files.push(f);
        }
        let scale = if w >= 240 { 2 } else { 1 };
        labelled.push(with_label(&frames[0], &id.replace('_', " "), scale, SHEET_BG, SHEET_INK));
        items.push(GalleryItem { id: id.clone(), kind, files });
    }
    obs.step("contact sheet");
    let sheet = contact_sheet(&labelled);
    write_images(&dir.join("contact_sheet.png"), std::slice::from_ref(&sheet), 1.0)?;
    let index: Vec<Value> = items.iter().map(|i| json!({"id": i.id, "kind": i.kind, "files": i.files})).collect();
    let text = serde_json::to_string_pretty(&json!({"items": index, "contact_sheet": "contact_sheet.png"}))
        .map_err(|e| PipelineError::Invalid(e.to_string()))?;
    crate::world::write_text(&dir.join("gallery.json"), &text)?;
    Ok(items)
}

/// Images in rows of [`PER_ROW`] with a gap of 6 pixels.
fn contact_sheet(images: &[Rgb8Image]) -> Rgb8Image {
    const GAP: usize = 6;
    let cw = images.iter().map(|i| i.width).max().unwrap_or(1);
    let ch = images.iter().map(|i| i.height).max().unwrap_or(1);
    let cols = images.len().clamp(1, PER_ROW);
    let rows = images.len().div_ceil(PER_ROW).max(1);
    let (w, h) = (cols * (cw + GAP) + GAP, rows * (ch + GAP) + GAP);
    let mut out = Rgb8Image::new(w, h);
    fill_rect(&mut out, 0, 0, w as i64, h as i64, SHEET_BG);
    for (k, im) in images.iter().enumerate() {
        paste(&mut out, im, GAP + (k % PER_ROW) * (cw + GAP), GAP + (k / PER_ROW) * (ch + GAP));
    }
    out
}

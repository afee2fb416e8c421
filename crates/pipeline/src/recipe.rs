//! A recipe run to a terrain folder (`bozkir terrain --recipe`): the stages, then the
//! erosion-driven masks, biome maps and the analysis bundle.
//!
//! Steps: each stage's op name as it starts (`noise`, `stream_power`, …; a name may repeat),
//! the analysis's (see [`crate::analysis`]), `write`.

use crate::analysis::{analyse_with, map_jobs, stats, AnalysisOptions, Outputs, Stats};
use crate::compute::Compute;
use crate::folder::{height_jobs, run_jobs, Folder, Job, Placement};
use crate::{PipelineError, Result};
use bozkir_core::{Grid, Observer};
use bozkir_io::{Encoding, Sidecar};
use bozkir_recipe::{run_with, Recipe, StageEvent, StageReport};
use bozkir_terrain::sculpt::masks::{flow_mask, normalise_mask};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

/// A built-in recipe by name (`bozkir_recipe::builtin::names`), else the TOML file at `spec`.
///
/// # Examples
///
/// ```
/// let r = bozkir_pipeline::recipe::load_recipe("island").unwrap();
/// assert_eq!(r.name, "island");
/// assert!(bozkir_pipeline::recipe::load_recipe("no-such-recipe").is_err());
/// ```
pub fn load_recipe(spec: &str) -> Result<Recipe> {
    if bozkir_recipe::builtin::source(spec).is_some() {
        return Ok(bozkir_recipe::builtin::builtin(spec)?);
    }
    let path = Path::new(spec);
    if !path.exists() {
        let names = bozkir_recipe::builtin::names().join(", ");
        return Err(PipelineError::invalid(format!(
            "recipe {spec:?}: neither a built-in recipe ({names}) nor an existing file"
        )));
    }
    let text = std::fs::read_to_string(path).map_err(|e| PipelineError::Step {
        context: format!("{}: cannot read the recipe", path.display()),
        source: Box::new(e),
    })?;
    Ok(bozkir_recipe::parse(&text, &path.display().to_string())?)
}

/// A recipe run.
#[derive(Debug, Clone)]
pub struct RecipeRequest<'a> {
    /// The recipe (already cut to its first stages when asked).
    pub recipe: &'a Recipe,
    /// Side of the square output in cells.
    pub size: usize,
    /// Metres per cell.
    pub cell_size: f64,
    /// Seed.
    pub seed: u64,
    /// The stage count the recipe was cut to, recorded in the sidecar's `until`.
    pub until: Option<usize>,
    /// Where the terrain is placed (default: the local metre frame).
    pub placement: Placement,
    /// The analysis maps to write (the heights and the recipe's masks always are).
    pub outputs: Outputs,
}

/// What a recipe run produced besides its files.
#[derive(Debug, Clone)]
pub struct RecipeOutcome {
    /// One report per stage run, in order.
    pub stages: Vec<StageReport>,
    /// Lowest and highest height in metres.
    pub range_m: (f64, f64),
    /// The analysis's summary numbers.
    pub stats: Stats,
}

/// Run `req.recipe` (its erosion stages offered to `compute`'s kernels first) and write the
/// terrain folder into `dir`: heights in every format, each recorded mask (8-bit normalised and
/// f32 raw), biome ids, colours and soft weights, the flow mask, the analysis maps and the
/// sidecar.
///
/// # Examples
///
/// ```
/// use bozkir_core::NoProgress;
/// use bozkir_pipeline::compute::Compute;
/// use bozkir_pipeline::recipe::{run_recipe, RecipeRequest};
///
/// let recipe = bozkir_recipe::builtin::builtin("hills").unwrap();
/// let dir = tempfile::tempdir().unwrap();
/// let req = RecipeRequest { recipe: &recipe, size: 16, cell_size: 10.0, seed: 1, until: None, placement: Default::default(), outputs: Default::default() };
/// let out = run_recipe(&req, Compute::cpu(), dir.path(), &NoProgress).unwrap();
/// assert_eq!(out.stages.len(), recipe.stages.len());
/// assert!(dir.path().join("height.tif").is_file());
/// ```
pub fn run_recipe(req: &RecipeRequest, compute: Compute, dir: &Path, obs: &dyn Observer) -> Result<RecipeOutcome> {
    let mut stages = Vec::new();
    let state = run_with(req.recipe, req.size, req.cell_size, req.seed, obs, compute.kernels, |e| match e {
        StageEvent::Start { op, .. } => obs.step(op),
        StageEvent::Done(report) => stages.push(report),
    })?;
    let h = state.height.clone();
    let options = AnalysisOptions { outputs: req.outputs, ..AnalysisOptions::default() };
    crate::analysis::check_analysis(h.width(), h.height(), h.dx, h.dy, &options)?;
    let mut an = analyse_with(&h, &options, compute.kernels, obs)?;
    // The sea below the level a stage declared, and the `water_depth` mask world stages record.
    an.water = crate::analysis::water_depth(&h, state.sea_level, state.masks.get("water_depth"));
    obs.step("write");
    let mut f = Folder::new(dir);
    f.place(&req.placement);
    f.set_cog(req.outputs.cog);
    // Every file computed and encoded at once, one per thread.
    let (range_m, mut jobs) = height_jobs(&mut f, "height", "height", &h)?;
    // Erosion-driven masks (seed 001 §5): blur + tanh(x / (k·mean)) into 0..1, as 8-bit PNGs;
    // the raw layers in metres (or their own units) as f32 TIFFs.
    let sigma = 2.0 * h.dx.max(h.dy);
    soft_biome_jobs(&mut f, &state.masks, &mut jobs);
    mask_jobs(&mut f, &state.masks, sigma, &mut jobs);
    if let Some(d) = &an.drainage {
        let p = f.file("flow_mask.png", "mask/flow", Encoding::Png8);
        let (w, ht, dx, dy) = (h.width(), h.height(), h.dx, h.dy);
        jobs.push(Box::new(move || {
            let area = Grid::from_vec(w, ht, d.acc.par_iter().map(|&c| c as f64).collect()).with_cell_size(dx, dy);
            Ok(bozkir_io::write_png8(p, &to_u8(&flow_mask(&area, sigma, 1.0)))?)
        }));
    }
    jobs.extend(map_jobs(&mut f, &h, &an)?);
    run_jobs(jobs)?;
    let mut sc = sidecar(req, &h, range_m, compute);
    if let Some(level) = state.sea_level {
        sc.settings.insert("sea_level_m".into(), level.into());
    }
    f.write_sidecar(sc)?;
    Ok(RecipeOutcome { stages, range_m, stats: stats(&an) })
}

fn sidecar(req: &RecipeRequest, h: &Grid<f64>, range_m: (f64, f64), compute: Compute) -> Sidecar {
    let (recipe, seed) = (req.recipe, req.seed);
    let mut sc = Sidecar::new(h.width(), h.height(), (h.dx, h.dy), range_m, Encoding::Png16);
    sc.generator = format!("bozkir terrain --recipe {}", recipe.name);
    sc.generator_version = env!("CARGO_PKG_VERSION").into();
    sc.seed = Some(seed);
    sc.source = format!("recipe {} seed {seed}", recipe.name);
    sc.settings.insert("recipe".into(), recipe.name.clone().into());
    let backend = (compute.report)();
    sc.backend = backend.backend;
    if let Some(stages) = backend.stages {
        sc.settings.insert("backends".into(), stages.into());
    }
    sc.settings.insert("stages".into(), recipe.stages.iter().map(|s| s.op.name()).collect::<Vec<_>>().into());
    sc.settings.insert("size".into(), req.size.into());
    sc.settings.insert("cell_size_m".into(), req.cell_size.into());
    if let Some(n) = req.until {
        sc.settings.insert("until".into(), n.into());
    }
    sc
}

/// The recorded masks except the soft biome weights: `biome` as ids and palette colours, every
/// other as `NAME_mask.png` (normalised) and `NAME.tif` (raw).
fn mask_jobs<'a>(f: &mut Folder, masks: &'a BTreeMap<String, Grid<f64>>, sigma: f64, jobs: &mut Vec<Job<'a>>) {
    for (name, m) in masks {
        if name.starts_with(bozkir_recipe::SOFT_BIOME_PREFIX) {
            continue;
        }
        if name == "biome" {
            // A class map, not a mask: ids as 8-bit codes, and the palette's colours.
            let (ids_path, rgb_path) = (
                f.file("biomes.png", "biome_ids", Encoding::Png8),
                f.file("biomes_rgb.png", "biome_colour", Encoding::Rgb8),
            );
            jobs.push(Box::new(move || {
                let ids = m.map(|&v| v as u8);
                let pal = bozkir_material::biomes::Palette::default_biomes();
                let rgb = Grid::from_vec(ids.width(), ids.height(), bozkir_material::biomes::to_rgb(&ids, &pal));
                bozkir_io::write_png8(ids_path, &ids)?;
                Ok(bozkir_io::write_rgb8(rgb_path, &rgb)?)
            }));
            continue;
        }
        let p = f.file(&format!("{name}_mask.png"), &format!("mask/{name}"), Encoding::Png8);
        jobs.push(Box::new(move || Ok(bozkir_io::write_png8(p, &to_u8(&normalise_mask(m, sigma, 1.0)))?)));
        jobs.push(f.tiff_job_f64(&format!("{name}.tif"), name, m));
    }
}

/// The soft biome weights a `biomes` stage recorded, as 8-bit maps summing to 255 per pixel
/// (largest remainder): `biome_weights_<palette name>.png`, one per biome present.
fn soft_biome_jobs<'a>(f: &mut Folder, masks: &'a BTreeMap<String, Grid<f64>>, jobs: &mut Vec<Job<'a>>) {
    let soft = bozkir_recipe::soft_biome_masks(masks);
    if soft.is_empty() {
        return;
    }
    let pal = bozkir_material::biomes::Palette::default_biomes();
    let paths: Vec<_> = soft
        .iter()
        .map(|(id, _)| {
            let name = pal.entries.get(*id as usize).map_or_else(|| format!("biome{id}"), |e| e.name.clone());
            let file = bozkir_material::biomes::soft_biome_file(&name);
            f.file(&file, &format!("biome_weight/{name}"), Encoding::Png8)
        })
        .collect();
    // The layers share one largest-remainder pass: computed together, then written.
    jobs.push(Box::new(move || {
        let grids: Vec<Grid<f64>> = soft.iter().map(|(_, g)| (*g).clone()).collect();
        for (p, layer) in paths.into_iter().zip(bozkir_io::export::weights::soft_layers(&grids)) {
            bozkir_io::write_png8(p, &layer)?;
        }
        Ok(())
    }));
}

fn to_u8(m: &Grid<f64>) -> Grid<u8> {
    m.map(|&v| if v.is_finite() { (v.clamp(0.0, 1.0) * 255.0).round() as u8 } else { 0 })
}

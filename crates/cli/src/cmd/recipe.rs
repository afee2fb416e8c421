//! `bozkir terrain --recipe NAME|FILE` and `bozkir recipes`: run and list recipes.

use super::terrain::Args as TerrainArgs;
use super::{positive, MAX_TERRAIN_SIZE};
use crate::analysis::{analyse, print_stats, stats, timed, Options};
use crate::outputs::{finish, write_analysis, write_height, Staging};
use crate::progress::Bar;
use anyhow::{bail, Context, Result};
use bozkir_core::Grid;
use bozkir_core::Progress;
use bozkir_gpu::{Gpu, GpuError, GpuMode, Kernel};
use bozkir_io::{Encoding, Sidecar};
use bozkir_recipe::{builtin, parse, run_with, Kernels, Recipe, StageEvent};
use bozkir_terrain::erosion::droplets::{DropletOutput, DropletParams};
use bozkir_terrain::erosion::shallow_water::{ShallowWaterOutput, ShallowWaterParams};
use bozkir_terrain::erosion::stream_power::{StreamPowerOutput, StreamPowerParams};
use bozkir_terrain::erosion::thermal::ThermalParams;
use bozkir_terrain::sculpt::masks::{flow_mask, normalise_mask};
use std::cell::RefCell;
use std::path::Path;
use std::time::Instant;

/// Load a built-in recipe by name, or a TOML file.
pub fn load(spec: &str) -> Result<Recipe> {
    if let Some(_text) = builtin::source(spec) {
        return Ok(builtin::builtin(spec)?);
    }
    let path = Path::new(spec);
    if !path.exists() {
        bail!("recipe {spec:?}: neither a built-in recipe ({}) nor an existing file", builtin::names().join(", "));
    }
    let text = std::fs::read_to_string(path).with_context(|| format!("{}: cannot read the recipe", path.display()))?;
    Ok(parse(&text, &path.display().to_string())?)
}

pub fn run_recipe(spec: &str, a: &TerrainArgs, quiet: bool) -> Result<()> {
    let mut recipe = load(spec)?;
    if let Some(n) = a.until {
        let all = recipe.stages.len();
        if !(1..=all).contains(&n) {
            bail!("--until {n}: recipe {} has {all} stages (1..={all})", recipe.name);
        }
        recipe.stages.truncate(n);
    }
    let size = a.size.unwrap_or(recipe.size);
    if !(8..=MAX_TERRAIN_SIZE).contains(&size) {
        bail!("--size must be 8..={MAX_TERRAIN_SIZE}, got {size}");
    }
    // A recipe run at another size keeps its extent unless --cell-size says otherwise.
    let keep_extent = recipe.cell_size * recipe.size as f64 / size as f64;
    let cell = positive("cell-size", a.cell_size.unwrap_or(keep_extent))?;
    let seed = a.seed.unwrap_or(recipe.seed);
    let mut st = Staging::new(&a.out)?;
    let bar = Bar::new(quiet);
    let mut rows = Vec::new();
    let total = Instant::now();
    let mut t = Instant::now();
    let kernels = GpuKernels::new(a.gpu_mode()?)?;
    kernels.warm(recipe.stages.iter().map(|s| s.op.name()));
    let state = run_with(&recipe, size, cell, seed, &bar, &kernels, |e| match e {
        StageEvent::Start { op, .. } => {
            bar.stage(op);
            t = Instant::now();
        }
        StageEvent::Done(report) => rows.push((report, t.elapsed().as_secs_f64())),
    })?;
    let gen_secs = total.elapsed().as_secs_f64();
    let h = state.height.clone();
    let mut timings = vec![("recipe", std::time::Duration::from_secs_f64(gen_secs))];
    let an = analyse(&h, &Options::default(), &bar);
    timings.extend(an.timings.iter().copied());
    let (lo, hi) = timed(&mut timings, "write", &bar, || -> Result<(f64, f64)> {
        let r = write_height(&mut st, "height", "height", &h)?;
        // Erosion-driven masks (seed 001 §5): blur + tanh(x / (k·mean)) into 0..1, as 8-bit PNGs;
        // the raw layers in metres (or their own units) as f32 TIFFs.
        let sigma = 2.0 * h.dx.max(h.dy);
        write_soft_biomes(&mut st, &state.masks)?;
        for (name, m) in &state.masks {
            if name.starts_with(bozkir_recipe::erosion::SOFT_BIOME_PREFIX) {
                continue;
            }
            if name == "biome" {
                // A class map, not a mask: ids as 8-bit codes, and the palette's colours.
                let ids = m.map(|&v| v as u8);
                let pal = bozkir_material::biomes::Palette::default_biomes();
                let rgb = Grid::from_vec(ids.width(), ids.height(), bozkir_material::biomes::to_rgb(&ids, &pal));
                bozkir_io::write_png8(st.file("biomes.png", "biome_ids", Encoding::Png8), &ids)?;
                bozkir_io::write_rgb8(st.file("biomes_rgb.png", "biome_colour", Encoding::Rgb8), &rgb)?;
                continue;
            }
            let norm = normalise_mask(m, sigma, 1.0);
            bozkir_io::write_png8(
                st.file(&format!("{name}_mask.png"), &format!("mask/{name}"), Encoding::Png8),
                &to_u8(&norm),
            )?;
            bozkir_io::write_tiff_f32(st.file(&format!("{name}.tif"), name, Encoding::TiffF32), &m.map(|&v| v as f32))?;
        }
        let area = Grid::from_vec(h.width(), h.height(), an.acc.iter().map(|&c| c as f64).collect())
            .with_cell_size(h.dx, h.dy);
        bozkir_io::write_png8(
            st.file("flow_mask.png", "mask/flow", Encoding::Png8),
            &to_u8(&flow_mask(&area, sigma, 1.0)),
        )?;
        write_analysis(&mut st, &h, &an)?;
        Ok(r)
    })?;
    bar.finish();
    let mut sc = Sidecar::new(h.width(), h.height(), (h.dx, h.dy), (lo, hi), Encoding::Png16);
    sc.generator = format!("bozkir terrain --recipe {}", recipe.name);
    sc.generator_version = env!("CARGO_PKG_VERSION").into();
    sc.seed = Some(seed);
    sc.source = format!("recipe {} seed {seed}", recipe.name);
    sc.settings.insert("recipe".into(), recipe.name.clone().into());
    sc.backend = kernels.backend();
    sc.settings.insert("backends".into(), kernels.stages().into());
    sc.settings.insert("stages".into(), recipe.stages.iter().map(|s| s.op.name()).collect::<Vec<_>>().into());
    sc.settings.insert("size".into(), size.into());
    sc.settings.insert("cell_size_m".into(), cell.into());
    if let Some(n) = a.until {
        sc.settings.insert("until".into(), n.into());
    }
    let s = stats(&an);
    finish(st, sc)?;
    println!("recipe {} seed {seed}: {} stages", recipe.name, recipe.stages.len());
    println!(
        "{:>3}  {:<14} {:>11} {:>11} {:>11} {:>11} {:>9}",
        "#", "stage", "size", "min m", "max m", "mean m", "seconds"
    );
    for (r, secs) in &rows {
        println!(
            "{:>3}  {:<14} {:>11} {:>11.2} {:>11.2} {:>11.2} {:>9.3}",
            r.index,
            r.op,
            format!("{}×{}", r.width, r.height),
            r.min,
            r.max,
            r.mean,
            secs
        );
    }
    print_stats(&s, &timings);
    Ok(())
}

#[derive(clap::Args)]
pub struct ListArgs {
    /// Print the TOML of this built-in recipe.
    #[arg(long)]
    show: Option<String>,
}

/// `bozkir recipes`: list the built-in recipes, or print one.
pub fn list(a: ListArgs) -> Result<()> {
    if let Some(name) = a.show {
        let text = builtin::source(&name)
            .with_context(|| format!("no built-in recipe {name:?}; have {}", builtin::names().join(", ")))?;
        print!("{text}");
        return Ok(());
    }
    for name in builtin::names() {
        let r = builtin::builtin(&name)?;
        println!("{:<10} {:>5}²  {:>2} stages  {}", name, r.size, r.stages.len(), r.description);
    }
    println!("\nRun one: bozkir terrain --recipe ds2 --out DIR; see one: bozkir recipes --show ds2");
    Ok(())
}

/// The soft biome weights a `biomes` stage recorded, as 8-bit maps summing to 255 per pixel
/// (largest remainder): `biome_weights_<palette name>.png`, one per biome present.
fn write_soft_biomes(st: &mut Staging, masks: &std::collections::BTreeMap<String, Grid<f64>>) -> Result<()> {
    let soft = bozkir_recipe::erosion::soft_biome_masks(masks);
    if soft.is_empty() {
        return Ok(());
    }
    let grids: Vec<Grid<f64>> = soft.iter().map(|(_, g)| (*g).clone()).collect();
    let layers = bozkir_io::export::weights::soft_layers(&grids);
    let pal = bozkir_material::biomes::Palette::default_biomes();
    for ((id, _), layer) in soft.iter().zip(&layers) {
        let name = pal.entries.get(*id as usize).map_or_else(|| format!("biome{id}"), |e| e.name.clone());
        let file = bozkir_material::biomes::soft_biome_file(&name);
        bozkir_io::write_png8(st.file(&file, &format!("biome_weight/{name}"), Encoding::Png8), layer)?;
    }
    Ok(())
}

fn to_u8(m: &Grid<f64>) -> Grid<u8> {
    m.map(|&v| if v.is_finite() { (v.clamp(0.0, 1.0) * 255.0).round() as u8 } else { 0 })
}

/// The `bozkir-gpu` kernels behind `--gpu`, for recipe runs and `bozkir erode`: the GPU when one
/// works, else the CPU with a message on stderr saying which ran and why; `require` turns every
/// such fallback into an error.
pub(crate) struct GpuKernels {
    mode: GpuMode,
    gpu: Option<std::sync::Arc<Gpu>>,
    /// "stage: backend" per erosion stage run, in order.
    ran: RefCell<Vec<String>>,
}

impl GpuKernels {
    pub(crate) fn new(mode: GpuMode) -> Result<Self> {
        let gpu = match mode {
            GpuMode::Off => None,
            _ => match Gpu::new() {
                Ok(g) => {
                    eprintln!("gpu: using {}", g.adapter_name());
                    Some(std::sync::Arc::new(g))
                }
                Err(e) if mode == GpuMode::Require => bail!("--gpu=require: {e}"),
                Err(e) => {
                    eprintln!("gpu: {e}; running on the CPU instead (--gpu=off to silence, --gpu=require to fail)");
                    None
                }
            },
        };
        Ok(Self { mode, gpu, ran: RefCell::new(Vec::new()) })
    }

    /// Compiles the GPU pipelines of the erosion stages among `ops` on a background thread, so
    /// that the CPU stages before them hide the driver's compile time (the first stage needing
    /// a pipeline still being compiled waits for that one only).
    pub(crate) fn warm<'a>(&self, ops: impl Iterator<Item = &'a str>) {
        let Some(gpu) = &self.gpu else { return };
        let mut kernels: Vec<Kernel> = Vec::new();
        for k in ops.filter_map(Kernel::for_stage) {
            if !kernels.contains(&k) {
                kernels.push(k);
            }
        }
        if !kernels.is_empty() {
            drop(gpu.warm_in_background(&kernels));
        }
    }

    /// The sidecar's `backend`: `cpu`, `gpu (adapter)` or `mixed (adapter)` when some erosion
    /// stage fell back to the CPU.
    pub(crate) fn backend(&self) -> String {
        let ran = self.ran.borrow();
        let on_gpu = ran.iter().filter(|s| !s.ends_with(": cpu")).count();
        match &self.gpu {
            Some(g) if on_gpu > 0 && on_gpu == ran.len() => format!("gpu ({})", g.adapter_name()),
            Some(g) if on_gpu > 0 => format!("mixed ({}; CPU for the rest)", g.adapter_name()),
            _ => "cpu".into(),
        }
    }

    /// Which backend each erosion stage ran on.
    pub(crate) fn stages(&self) -> Vec<String> {
        self.ran.borrow().clone()
    }

    fn go<T>(&self, stage: &str, f: impl FnOnce(&Gpu) -> Result<T, GpuError>) -> Result<Option<T>, String> {
        let Some(gpu) = &self.gpu else {
            self.ran.borrow_mut().push(format!("{stage}: cpu"));
            return Ok(None);
        };
        match f(gpu) {
            Ok(v) => {
                self.ran.borrow_mut().push(format!("{stage}: gpu"));
                Ok(Some(v))
            }
            Err(e) if self.mode == GpuMode::Require => Err(format!("--gpu=require: {stage} on the GPU failed: {e}")),
            Err(e) => {
                eprintln!("gpu: {stage} ran on the CPU: {e}");
                self.ran.borrow_mut().push(format!("{stage}: cpu"));
                Ok(None)
            }
        }
    }
}

impl Kernels for GpuKernels {
    fn stream_power(
        &self,
        h: &Grid<f64>,
        p: &StreamPowerParams,
        _: &dyn Progress,
    ) -> Result<Option<StreamPowerOutput>, String> {
        self.go("stream_power", |g| bozkir_gpu::stream_power::stream_power(g, h, p))
    }
    fn droplets(&self, h: &Grid<f64>, p: &DropletParams, _: &dyn Progress) -> Result<Option<DropletOutput>, String> {
        let t = Instant::now();
        let out = self.go("droplets", |g| bozkir_gpu::droplets::erode_droplets(g, h, p))?;
        if let Some(o) = &out {
            // The device's rate on this run, transfers included (the target is droplet-steps/s).
            let secs = t.elapsed().as_secs_f64();
            eprintln!(
                "gpu: droplets: {} droplets, {} steps in {secs:.2} s ({:.2e} droplet-steps/s, batches of {})",
                o.stats.droplets,
                o.stats.steps_total,
                o.stats.steps_total as f64 / secs,
                bozkir_terrain::erosion::droplets::effective_batch(p.batch_size, h.len())
            );
        }
        Ok(out)
    }
    fn shallow_water(
        &self,
        h: &Grid<f64>,
        p: &ShallowWaterParams,
        _: &dyn Progress,
    ) -> Result<Option<ShallowWaterOutput>, String> {
        self.go("shallow_water", |g| bozkir_gpu::shallow_water::shallow_water(g, h, p))
    }
    fn fill(&self, h: &Grid<f64>) -> Result<Option<Grid<f64>>, String> {
        self.go("fill", |g| bozkir_gpu::fill::fill_epsilon(g, h))
    }
    fn thermal(&self, h: &Grid<f64>, p: &ThermalParams, _: &dyn Progress) -> Result<Option<Grid<f64>>, String> {
        self.go("thermal", |g| bozkir_gpu::thermal::thermal(g, h, p).map(|(h, _)| h))
    }
}

//! `bozkir terrain`: a named profile and a seed to eroded terrain with every output, or a recipe
//! (`--recipe NAME|FILE`: a built-in recipe or a TOML file) run stage by stage.

use super::{check_memory, memory_available, non_negative, MAX_PROFILE_SIZE, MAX_TERRAIN_SIZE, PROFILE_BYTES_PER_CELL};
use crate::outputs::{commit, print_stats, Staging};
use crate::progress::Bar;
use anyhow::{bail, Result};
use bozkir_pipeline::analysis::Outputs;
use bozkir_pipeline::compute::{Backend, Compute};
use bozkir_pipeline::heightmap::scale_in_range;
use bozkir_pipeline::recipe::{load_recipe, RecipeRequest};
use bozkir_pipeline::terrain::{terrain_with, TerrainRequest};
use bozkir_recipe::StageReport;
use bozkir_terrain::profiles::profile;
use bozkir_terrain::profiles::table::PARAM_NAMES;
use std::path::PathBuf;
use std::time::Duration;

#[derive(clap::Args, Clone)]
pub struct Args {
    /// Profile name (see `bozkir profiles`).
    #[arg(long, default_value = "canyon", conflicts_with = "recipe")]
    pub profile: String,
    /// Run a recipe instead of a profile: a built-in name (`bozkir recipes`) or a TOML file.
    #[arg(long)]
    pub recipe: Option<String>,
    /// Seed: the same seed, profile (or recipe), size and overrides give the same bytes.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Side of the square output in cells: 4..=16384 for a profile (checked against the memory
    /// available, about 172 bytes a cell), 8..=8192 for a recipe. Default 512, or the recipe's own size.
    #[arg(long)]
    pub size: Option<usize>,
    /// Output directory (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// Metres per cell. Default 10, or the recipe's own.
    #[arg(long)]
    pub cell_size: Option<f64>,
    /// Metres from the lowest to the highest point (profiles only).
    #[arg(long, default_value_t = 1000.0)]
    pub height_range: f64,
    /// TPI radius in cells (default 8, or half the size for tiny grids).
    #[arg(long)]
    pub tpi_radius: Option<usize>,
    /// Profile overrides: fBM/ridged octaves.
    #[arg(long)]
    pub octaves: Option<f64>,
    /// Override: lattice cells across for the first octave.
    #[arg(long)]
    pub freq: Option<f64>,
    /// Override: ridged-noise mix 0..1.
    #[arg(long)]
    pub ridge: Option<f64>,
    /// Override: height multiplier before erosion.
    #[arg(long)]
    pub relief: Option<f64>,
    /// Override: stream-power iterations.
    #[arg(long)]
    pub iterations: Option<f64>,
    /// Override: incision coefficient K.
    #[arg(long)]
    pub incision: Option<f64>,
    /// Override: hillslope diffusion D (≤ 0.25 for stability).
    #[arg(long)]
    pub diffusion: Option<f64>,
    /// Override: uplift per step.
    #[arg(long)]
    pub uplift: Option<f64>,
    /// Override: terrace levels (0 = none).
    #[arg(long)]
    pub terraces: Option<f64>,
    /// Override: dome 0..1.
    #[arg(long)]
    pub dome: Option<f64>,
    /// Override: tilt 0..1.
    #[arg(long)]
    pub tilt: Option<f64>,
    /// Override: horizontal stretch of the noise.
    #[arg(long)]
    pub stretch: Option<f64>,
    #[command(flatten)]
    pub gpu: crate::gpu::GpuArgs,
    #[command(flatten)]
    pub place: crate::args::PlaceArgs,
    #[command(flatten)]
    pub outputs: crate::args::OutputsArg,
    /// With --recipe: run only its first N stages (write each prefix to its own folder to
    /// compare the erosion stack stage by stage, e.g. in the viewer's mesh mode).
    #[arg(long, requires = "recipe")]
    pub until: Option<usize>,
}

impl Args {
    fn overrides(&self) -> [(&'static str, Option<f64>); 12] {
        let o = [
            self.octaves,
            self.freq,
            self.ridge,
            self.relief,
            self.iterations,
            self.incision,
            self.diffusion,
            self.uplift,
            self.terraces,
            self.dome,
            self.tilt,
            self.stretch,
        ];
        let mut out = [("", None); 12];
        for (i, n) in PARAM_NAMES.iter().enumerate() {
            out[i] = (n, o[i]);
        }
        out
    }
}

pub fn run(a: Args, quiet: bool) -> Result<()> {
    if let Some(r) = a.recipe.clone() {
        return run_recipe(&r, &a, quiet);
    }
    // Everything is validated before any work or any file.
    let req = request(&a)?;
    let st = Staging::new(&a.out)?.expecting(crate::outputs::TERRAIN_OUTPUTS)?;
    // With --gpu the erosion walk runs as the GPU's stream power (the walk to rounding, not bit
    // for bit); without, the original's walk on the CPU.
    let kernels = a.gpu.kernels()?;
    let bar = Bar::new(quiet);
    let out = terrain_with(&req, st.path(), &kernels, &|| kernels.backend(), &bar)?;
    let timings = bar.timings();
    bar.finish();
    commit(st)?;
    let (size, seed, cell, range) = (req.size, req.seed, req.cell_size, req.height_range);
    let on = match kernels.backend().as_str() {
        "cpu" => String::new(),
        b => format!(", erosion on {b}"),
    };
    println!("profile {} seed {seed} size {size}² ({cell} m cells, {range} m relief{on})", a.profile);
    print_stats(&out.stats, &timings);
    Ok(())
}

/// The request of a profile run, every argument checked.
fn request(a: &Args) -> Result<TerrainRequest> {
    let prof = profile(&a.profile).map_err(anyhow::Error::msg)?;
    let size = a.size.unwrap_or(512);
    let seed = a.seed.unwrap_or(0);
    if !(4..=MAX_PROFILE_SIZE).contains(&size) {
        bail!("--size must be 4..={MAX_PROFILE_SIZE}, got {size}");
    }
    let need = (size * size) as u64 * PROFILE_BYTES_PER_CELL;
    check_memory(&format!("--size {size}"), need, memory_available())?;
    let cell_size = scale_in_range("cell-size", a.cell_size.unwrap_or(10.0))?;
    let height_range = match non_negative("height-range", a.height_range)? {
        0.0 => 0.0,
        r => scale_in_range("height-range", r)?,
    };
    let tpi_radius = a.tpi_radius.unwrap_or((size / 2).clamp(1, 8));
    if tpi_radius == 0 || tpi_radius > size {
        bail!("--tpi-radius must be 1..={size}, got {tpi_radius}");
    }
    let mut params = prof.params;
    for (name, v) in a.overrides() {
        if let Some(v) = v {
            params.set(name, v).map_err(|e| anyhow::anyhow!("--{e}"))?;
        }
    }
    let placement = a.place.placement(size, cell_size)?;
    Ok(TerrainRequest {
        profile: a.profile.clone(),
        params,
        size,
        seed,
        cell_size,
        height_range,
        tpi_radius,
        placement,
        outputs: a.outputs.resolve(Outputs::STANDARD, false)?,
    })
}

pub fn run_recipe(spec: &str, a: &Args, quiet: bool) -> Result<()> {
    let mut recipe = load_recipe(spec)?;
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
    let cell_size = scale_in_range("cell-size", a.cell_size.unwrap_or(keep_extent))?;
    let seed = a.seed.unwrap_or(recipe.seed);
    let placement = a.place.placement(size, cell_size)?;
    let outputs = a.outputs.resolve(Outputs::STANDARD, false)?;
    let st = Staging::new(&a.out)?.expecting(crate::outputs::TERRAIN_OUTPUTS)?;
    let bar = Bar::new(quiet);
    let kernels = a.gpu.kernels()?;
    let req = RecipeRequest { recipe: &recipe, size, cell_size, seed, until: a.until, placement, outputs };
    let report = || Backend { backend: kernels.backend(), stages: Some(kernels.stages()) };
    let out =
        bozkir_pipeline::recipe::run_recipe(&req, Compute { kernels: &kernels, report: &report }, st.path(), &bar)?;
    let steps = bar.timings();
    bar.finish();
    commit(st)?;
    // The first steps are the stages; the rest are the analysis's and the write.
    let (stages, rest) = steps.split_at(out.stages.len().min(steps.len()));
    let mut timings = vec![("recipe".to_string(), stages.iter().map(|(_, d)| *d).sum::<Duration>())];
    timings.extend(rest.iter().cloned());
    println!("recipe {} seed {seed}: {} stages", recipe.name, recipe.stages.len());
    print_stage_table(&out.stages, stages);
    print_stats(&out.stats, &timings);
    Ok(())
}

/// One row per stage: its size, height range and mean, and its seconds.
fn print_stage_table(reports: &[StageReport], steps: &[(String, Duration)]) {
    println!(
        "{:>3}  {:<14} {:>11} {:>11} {:>11} {:>11} {:>9}",
        "#", "stage", "size", "min m", "max m", "mean m", "seconds"
    );
    for (r, (_, d)) in reports.iter().zip(steps) {
        println!(
            "{:>3}  {:<14} {:>11} {:>11.2} {:>11.2} {:>11.2} {:>9.3}",
            r.index,
            r.op,
            format!("{}×{}", r.width, r.height),
            r.min,
            r.max,
            r.mean,
            d.as_secs_f64()
        );
    }
}

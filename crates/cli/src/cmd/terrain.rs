//! `bozkir terrain`: a named profile and a seed to eroded terrain with every output.

use super::{non_negative, positive, MAX_TERRAIN_SIZE};
use crate::analysis::{analyse, print_stats, stats, timed, Options};
use crate::outputs::{finish, write_analysis, write_height, write_unit_mask, Staging};
use crate::progress::Bar;
use anyhow::{bail, Result};
use bozkir_io::{Encoding, Sidecar};
use bozkir_terrain::profiles::table::PARAM_NAMES;
use bozkir_terrain::profiles::{generate, profile, GENERATOR_VERSION};
use std::path::PathBuf;

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
    /// Side of the square output in cells (4..=8192). Default 512, or the recipe's own size.
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
        return super::recipe::run_recipe(&r, &a, quiet);
    }
    // Everything is validated before any work or any file.
    let prof = profile(&a.profile).map_err(anyhow::Error::msg)?;
    match a.gpu.mode {
        crate::gpu::GpuMode::Off => {}
        crate::gpu::GpuMode::Auto => {
            eprintln!(
                "gpu: the profile generator has no GPU kernel (only recipe erosion stages do); running on the CPU"
            )
        }
        crate::gpu::GpuMode::Require => {
            bail!("--gpu=require: the profile generator has no GPU kernel; use --recipe for GPU erosion stages")
        }
    }
    let size = a.size.unwrap_or(512);
    let seed = a.seed.unwrap_or(0);
    if !(4..=MAX_TERRAIN_SIZE).contains(&size) {
        bail!("--size must be 4..={MAX_TERRAIN_SIZE}, got {size}");
    }
    let cell = positive("cell-size", a.cell_size.unwrap_or(10.0))?;
    let range = non_negative("height-range", a.height_range)?;
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
    let mut st = Staging::new(&a.out)?;
    let bar = Bar::new(quiet);
    let mut timings = Vec::new();
    let t = timed(&mut timings, "generate", &bar, || generate(size, seed, &params, &bar));
    let h = t.height.map(|&v| v * range).with_cell_size(cell, cell);
    let an = analyse(&h, &Options { tpi_radius, ..Options::default() }, &bar);
    timings.extend(an.timings.iter().copied());
    let (lo, hi) = timed(&mut timings, "write", &bar, || -> Result<(f64, f64)> {
        let lohi = write_height(&mut st, "height", "height", &h)?;
        write_height(&mut st, "sediment", "sediment", &t.sediment.clone().with_cell_size(cell, cell))?;
        write_unit_mask(&mut st, "sediment_mask.png", "mask/sediment", &t.sediment)?;
        write_analysis(&mut st, &h, &an)?;
        Ok(lohi)
    })?;
    bar.finish();
    let mut sc = Sidecar::new(size, size, (cell, cell), (lo, hi), Encoding::Png16);
    sc.generator = "bozkir terrain (original bozkir generator)".into();
    sc.generator_version = GENERATOR_VERSION.to_string();
    sc.seed = Some(seed);
    sc.source = format!("generated {} seed {seed}", a.profile);
    let s = &mut sc.settings;
    s.insert("profile".into(), a.profile.clone().into());
    s.insert("size".into(), size.into());
    s.insert("seed".into(), seed.into());
    s.insert("cell_size_m".into(), cell.into());
    s.insert("height_range_m".into(), range.into());
    for n in PARAM_NAMES {
        s.insert(n.into(), params.get(n).unwrap().into());
    }
    let st_stats = stats(&an);
    finish(st, sc)?;
    {
        println!("profile {} seed {seed} size {size}² ({cell} m cells, {range} m relief)", a.profile);
        print_stats(&st_stats, &timings);
    }
    Ok(())
}

//! `bozkir erode`: stream-power erosion (Braun & Willett 2013) on an existing DEM.

use crate::args::Voids;
use crate::outputs::{commit, print_stats, Staging};
use crate::progress::Bar;
use anyhow::{bail, Result};
use bozkir_core::Observer;
use bozkir_pipeline::analysis::Outputs;
use bozkir_pipeline::compute::{Backend, Compute};
use bozkir_pipeline::erode::{erode, ErodeRequest};
use bozkir_terrain::erosion::stream_power::StreamPowerParams;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// DEM: GeoTIFF (.tif), NumPy archive (.npz), NetCDF (.nc), Zarr store (a .zarr folder) or height PNG (.png).
    pub dem: PathBuf,
    /// Output directory (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// Number of steps.
    #[arg(long, default_value_t = 100)]
    pub steps: usize,
    /// Incision coefficient K (1/yr for m = 0.5).
    #[arg(long, default_value_t = 1e-5)]
    pub k: f64,
    /// Drainage-area exponent m (slope exponent n = 1).
    #[arg(long, default_value_t = 0.5)]
    pub m: f64,
    /// Uplift rate of interior cells, m/yr.
    #[arg(long, default_value_t = 0.0)]
    pub uplift: f64,
    /// Hillslope diffusivity, m²/yr.
    #[arg(long, default_value_t = 0.01)]
    pub diffusion: f64,
    /// Time step, years (implicit incision: any value is stable).
    #[arg(long, default_value_t = 1000.0)]
    pub dt: f64,
    /// Cap on drainage area in m² (detail passes on part of a larger basin).
    #[arg(long)]
    pub area_cap: Option<f64>,
    /// Floor on drainage area in m²: one cell at the resolution the parameters were tuned at, so
    /// a finer DEM's hilltops steepen no further than at that resolution (applied before the cap).
    #[arg(long)]
    pub area_floor: Option<f64>,
    #[command(flatten)]
    pub scale: crate::args::Scale,
    #[command(flatten)]
    pub outputs: crate::args::OutputsArg,
    #[command(flatten)]
    pub voids: crate::args::VoidArgs,
    #[command(flatten)]
    pub gpu: crate::gpu::GpuArgs,
}

pub fn run(a: Args, quiet: bool) -> Result<()> {
    let params = params(&a)?;
    let outputs = a.outputs.resolve(Outputs::MINIMAL, false)?;
    let kernels = a.gpu.kernels()?;
    let bar = Bar::new(quiet);
    bar.step("read");
    let (dem, note, placement) = super::load_dem(&a.dem, a.voids.policy())?;
    if a.voids.policy() == Voids::Keep && dem.data().iter().any(|v| v.is_nan()) {
        bail!(
            "{}: {note}; erosion needs a complete surface: give --fill-voids or --crop largest-valid",
            a.dem.display()
        );
    }
    let dem = a.scale.apply(dem)?;
    let st = Staging::new(&a.out)?.expecting(crate::outputs::TERRAIN_OUTPUTS)?;
    let req = ErodeRequest { dem: &dem, source: super::file_name(&a.dem), params, placement, outputs };
    let report = || Backend { backend: kernels.backend(), stages: None };
    let out = erode(&req, Compute { kernels: &kernels, report: &report }, st.path(), &bar)?;
    let timings = bar.timings();
    bar.finish();
    let (elo, ehi) = dem.min_max().unwrap_or((0.0, 0.0));
    commit(st)?;
    if !note.is_empty() {
        println!("{note}");
    }
    let (lo, hi) = out.range_m;
    println!(
        "{} steps of {} yr: relief {:.1} m → {:.1} m, mean incision {:.3} m",
        out.steps_run,
        a.dt,
        ehi - elo,
        hi - lo,
        out.mean_cut_m
    );
    print_stats(&out.stats, &timings);
    Ok(())
}

/// Largest incision coefficient `--k` (per year; real rivers: 1e-7..1e-3).
pub const MAX_K: f64 = 1.0;

/// Largest `--uplift`, m/yr (the fastest orogens rise about 0.01 m/yr).
pub const MAX_UPLIFT: f64 = 1.0;

/// The erosion's parameters, every option checked: the CLI's cap on `--steps`, then
/// [`StreamPowerParams::validate`] with its message naming the option.
fn params(a: &Args) -> Result<StreamPowerParams> {
    if a.steps == 0 || a.steps > 1_000_000 {
        bail!("--steps must be 1..=1000000, got {}", a.steps);
    }
    if a.k > MAX_K {
        bail!("--k must be at most {MAX_K} per year, got {}", a.k);
    }
    if a.uplift > MAX_UPLIFT {
        bail!("--uplift must be at most {MAX_UPLIFT} m/yr, got {}", a.uplift);
    }
    let p = StreamPowerParams {
        k: a.k,
        m: a.m,
        dt: a.dt,
        steps: a.steps,
        uplift: a.uplift,
        uplift_map: None,
        kappa: a.diffusion,
        area_cap: a.area_cap,
        area_floor: a.area_floor,
        guards: true,
    };
    p.validate().map_err(|e| {
        let flag = match e.param.as_str() {
            "kappa" => "diffusion",
            "area_cap" => "area-cap",
            "area_floor" => "area-floor",
            other => other,
        };
        let rest = e.message.strip_prefix(e.param.as_str()).unwrap_or(&e.message);
        anyhow::anyhow!("--{flag}{rest}")
    })?;
    Ok(p)
}

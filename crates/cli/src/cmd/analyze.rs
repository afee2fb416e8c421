//! `bozkir analyze`: hydrology and landform maps for any DEM the readers accept.

use crate::args::Scale;
use crate::outputs::{commit, print_stats, Staging};
use crate::progress::Bar;
use anyhow::Result;
use bozkir_core::Observer;
use bozkir_pipeline::analysis::{AnalysisOptions, Outputs, Sea};
use bozkir_pipeline::analyze::{analyze, AnalyzeRequest};
use bozkir_pipeline::compute::{Backend, Compute};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// DEM: GeoTIFF (.tif), NumPy archive (.npz), NetCDF (.nc), Zarr store (a .zarr folder) or height PNG (.png).
    pub dem: PathBuf,
    /// Output directory (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub scale: Scale,
    /// TPI radius in cells.
    #[arg(long, default_value_t = 8)]
    pub tpi_radius: usize,
    /// Stream threshold in cells (default: max(12, cells / 2000)).
    #[arg(long)]
    pub stream_threshold: Option<u32>,
    /// Sea level in metres: cells below it are sea, outlets the land drains into; the sea floor
    /// is not filled (the fill then runs on the CPU).
    #[arg(long, allow_hyphen_values = true)]
    pub sea_level: Option<f64>,
    /// The sea from the input's coordinates and heights: `auto` takes sea level as 0 m and the
    /// ocean as the cells below it 4-connected to the grid's border (through cells below 0 m or
    /// voids); cells below 0 m cut off from the border stay land and are filled. Needs a
    /// georeferenced input with an EPSG CRS. `none`: no sea.
    #[arg(long, value_enum, default_value_t = Ocean::None, conflicts_with = "sea_level")]
    pub ocean: Ocean,
    #[command(flatten)]
    pub outputs: crate::args::OutputsArg,
    #[command(flatten)]
    pub voids: crate::args::VoidArgs,
    #[command(flatten)]
    pub gpu: crate::gpu::GpuArgs,
}

/// `--ocean`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Ocean {
    /// No ocean (the default).
    None,
    /// Below 0 m and connected to the border.
    Auto,
}

pub fn run(a: Args, quiet: bool) -> Result<()> {
    let outputs = a.outputs.resolve(Outputs::STANDARD, true)?;
    let kernels = a.gpu.kernels()?;
    let bar = Bar::new(quiet);
    bar.step("read");
    let (dem, note, placement) = super::load_dem(&a.dem, a.voids.policy())?;
    let dem = a.scale.apply(dem)?;
    if a.tpi_radius == 0 || a.tpi_radius > dem.width().max(dem.height()) {
        anyhow::bail!("--tpi-radius must be 1..={}, got {}", dem.width().max(dem.height()), a.tpi_radius);
    }
    let options = AnalysisOptions {
        tpi_radius: a.tpi_radius,
        stream_threshold: a.stream_threshold,
        sea: match (a.ocean, a.sea_level) {
            (Ocean::Auto, _) => Sea::Auto,
            (Ocean::None, Some(level)) => Sea::Level(level),
            (Ocean::None, None) => Sea::None,
        },
        outputs,
        ..Default::default()
    };
    // Refused before any output is staged.
    options.sea_mask(&dem, &placement)?;
    let st = Staging::new(&a.out)?.expecting(crate::outputs::TERRAIN_OUTPUTS)?;
    let req = AnalyzeRequest { dem: &dem, source: super::file_name(&a.dem), options, placement };
    let report = || Backend { backend: kernels.backend(), stages: Some(kernels.stages()) };
    let out = analyze(&req, Compute { kernels: &kernels, report: &report }, st.path(), &bar)?;
    let timings = bar.timings();
    bar.finish();
    commit(st)?;
    let (lo, hi) = out.range_m;
    println!(
        "{}: {}×{} cells of {} × {} m, {:.1}–{:.1} m",
        a.dem.display(),
        dem.width(),
        dem.height(),
        super::num(dem.dx, 2),
        super::num(dem.dy, 2),
        lo,
        hi
    );
    if !note.is_empty() {
        println!("{note}");
    }
    let share = |n: usize| 100.0 * n as f64 / dem.len() as f64;
    if let Some(level) = a.sea_level {
        println!("sea                    {:.2} % of cells below {level} m (outlets, not filled)", share(out.sea_cells));
    }
    if a.ocean == Ocean::Auto && out.sea_cells > 0 {
        println!(
            "ocean                  {:.2} % of cells ({} cells below 0 m connected to the border: outlets, not filled)",
            share(out.sea_cells),
            out.sea_cells
        );
    }
    println!(
        "filled depressions     {:.2} % of cells raised by more than 1 µm; {:.2} % on flats raised by less (ε slope)",
        share(out.raised_cells),
        share(out.flat_cells)
    );
    print_stats(&out.stats, &timings);
    Ok(())
}

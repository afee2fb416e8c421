//! Stream-power erosion (Braun & Willett 2013) of a DEM with the analysis of the result
//! (`bozkir erode`).
//!
//! Steps: `erode`, the analysis's (see [`crate::analysis`]), `write`.

use crate::analysis::{analyse_with, check_analysis, map_jobs, stats, AnalysisOptions, Outputs, Stats};
use crate::compute::Compute;
use crate::folder::{height_jobs, run_jobs, unit_mask_job, Folder, Placement};
use crate::{PipelineError, Result};
use bozkir_core::{Grid, Observer};
use bozkir_io::{Encoding, Sidecar};
use bozkir_terrain::erosion::stream_power::{stream_power, StreamPowerParams};
use std::path::Path;

/// A DEM to erode.
#[derive(Debug, Clone)]
pub struct ErodeRequest<'a> {
    /// Heights in metres with their cell size (all finite).
    pub dem: &'a Grid<f64>,
    /// Where the DEM came from (the sidecar's `source`: the input's file name).
    pub source: String,
    /// The erosion's parameters (valid: the face checks them).
    pub params: StreamPowerParams,
    /// Where the DEM is (its georeference and crop offset), carried into every output.
    pub placement: Placement,
    /// The analysis maps to write besides the heights, eroded depth and sediment (the CLI's
    /// default: [`Outputs::MINIMAL`]).
    pub outputs: Outputs,
}

/// What an erosion run produced besides its files.
#[derive(Debug, Clone, Copy)]
pub struct ErodeOutcome {
    /// Steps run (fewer than asked when cancelled).
    pub steps_run: usize,
    /// Lowest and highest height of the eroded surface in metres.
    pub range_m: (f64, f64),
    /// Mean incision over the cells in metres.
    pub mean_cut_m: f64,
    /// The analysis's summary numbers.
    pub stats: Stats,
}

/// Erode `req.dem` (through `compute`'s stream power when it takes it), analyse the result and
/// write into `dir`: heights in every format, eroded depth and sediment (f32 TIFFs and masks),
/// the analysis maps and the sidecar.
pub fn erode(req: &ErodeRequest, compute: Compute, dir: &Path, obs: &dyn Observer) -> Result<ErodeOutcome> {
    let (dem, params) = (req.dem, &req.params);
    let (w, h, dx, dy) = (dem.width(), dem.height(), dem.dx, dem.dy);
    crate::budget::check(&crate::budget::erosion_cost(w, h, dx, dy, params.steps, params.kappa, params.dt))?;
    let options = AnalysisOptions { outputs: req.outputs, ..AnalysisOptions::default() };
    check_analysis(w, h, dx, dy, &options)?;
    obs.step("erode");
    let out = match compute.kernels.stream_power(dem, params, obs).map_err(PipelineError::Kernel)? {
        Some(o) => o,
        None => stream_power(dem, params, obs),
    };
    let an = analyse_with(&out.height, &options, compute.kernels, obs)?;
    obs.step("write");
    let mut f = Folder::new(dir);
    f.place(&req.placement);
    f.set_cog(req.outputs.cog);
    // Every file encoded at once, one per thread.
    let ((lo, hi), mut jobs) = height_jobs(&mut f, "height", "height", &out.height)?;
    jobs.push(f.tiff_job_f64("eroded.tif", "eroded_m", &out.eroded));
    jobs.push(f.tiff_job_f64("sediment.tif", "sediment_m", &out.sediment));
    jobs.push(unit_mask_job(&mut f, "wear.png", "mask/wear", &out.eroded));
    jobs.push(unit_mask_job(&mut f, "sediment_mask.png", "mask/sediment", &out.sediment));
    jobs.extend(map_jobs(&mut f, &out.height, &an)?);
    run_jobs(jobs)?;
    let mut sc = Sidecar::new(dem.width(), dem.height(), (dem.dx, dem.dy), (lo, hi), Encoding::Png16);
    sc.generator = "bozkir erode (stream power, Braun & Willett 2013)".into();
    sc.generator_version = env!("CARGO_PKG_VERSION").into();
    let backend = (compute.report)();
    sc.backend = backend.backend;
    sc.source = req.source.clone();
    let p = params;
    for (k, v) in
        [("k", p.k), ("m", p.m), ("uplift_m_per_yr", p.uplift), ("diffusion_m2_per_yr", p.kappa), ("dt_yr", p.dt)]
    {
        sc.settings.insert(k.into(), v.into());
    }
    sc.settings.insert("steps".into(), out.steps_run.into());
    if let Some(c) = p.area_cap {
        sc.settings.insert("area_cap_m2".into(), c.into());
    }
    if let Some(c) = p.area_floor {
        sc.settings.insert("area_floor_m2".into(), c.into());
    }
    f.write_sidecar(sc)?;
    let mean_cut_m = out.eroded.data().iter().sum::<f64>() / out.eroded.len() as f64;
    Ok(ErodeOutcome { steps_run: out.steps_run, range_m: (lo, hi), mean_cut_m, stats: stats(&an) })
}

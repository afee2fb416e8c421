//! A named profile and a seed to an eroded terrain folder with every output (`bozkir terrain`).
//!
//! Steps: `generate`, the analysis's (see [`crate::analysis`]), `write`.

use crate::analysis::{analyse_with, map_jobs, stats, AnalysisOptions, Outputs, Stats};
use crate::folder::{height_jobs, run_jobs, unit_mask_job, Folder, Placement};
use crate::Result;
use bozkir_core::Observer;
use bozkir_io::{Encoding, Sidecar};
use bozkir_terrain::kernels::Kernels;
use bozkir_terrain::profiles::table::PARAM_NAMES;
use bozkir_terrain::profiles::{generate_with, ProfileParams, GENERATOR_VERSION};
use std::path::Path;

/// What to generate. The values are taken as valid (the face checks its input first).
#[derive(Debug, Clone)]
pub struct TerrainRequest {
    /// Profile name, as recorded in the sidecar.
    pub profile: String,
    /// The profile's parameters with any overrides.
    pub params: ProfileParams,
    /// Side of the square output in cells.
    pub size: usize,
    /// Seed.
    pub seed: u64,
    /// Metres per cell.
    pub cell_size: f64,
    /// Metres from the lowest to the highest point.
    pub height_range: f64,
    /// TPI radius in cells.
    pub tpi_radius: usize,
    /// Where the terrain is placed (default: the local metre frame).
    pub placement: Placement,
    /// The analysis maps to write (the heights and sediment always are).
    pub outputs: Outputs,
}

impl TerrainRequest {
    /// The named profile with its own parameters, `size`² cells and `seed`, with the CLI's
    /// defaults: 10 m cells, 1000 m of relief, TPI radius `size / 2` clamped to 1..=8.
    /// Fails on an unknown profile name.
    pub fn profile(name: &str, size: usize, seed: u64) -> Result<Self> {
        let prof = bozkir_terrain::profiles::profile(name).map_err(crate::PipelineError::Invalid)?;
        Ok(Self {
            profile: name.to_string(),
            params: prof.params,
            size,
            seed,
            cell_size: 10.0,
            height_range: 1000.0,
            tpi_radius: (size / 2).clamp(1, 8),
            placement: Placement::default(),
            outputs: Outputs::STANDARD,
        })
    }
}

/// What a terrain run produced besides its files.
#[derive(Debug, Clone, Copy)]
pub struct TerrainOutcome {
    /// Lowest and highest height in metres.
    pub range_m: (f64, f64),
    /// The analysis's summary numbers.
    pub stats: Stats,
}

/// Generate the terrain of `req` and write the terrain folder into `dir` (which must exist):
/// heights and sediment in every format, the sediment mask, the analysis maps and the
/// `terrain.json` sidecar.
///
/// # Examples
///
/// ```
/// use bozkir_core::NoProgress;
/// use bozkir_pipeline::terrain::{terrain, TerrainRequest};
///
/// let dir = tempfile::tempdir().unwrap();
/// let req = TerrainRequest::profile("canyon", 16, 3).unwrap();
/// let out = terrain(&req, dir.path(), &NoProgress).unwrap();
/// assert!(out.range_m.1 - out.range_m.0 <= 1000.0 + 1e-9);
/// assert!(dir.path().join("terrain.json").is_file() && dir.path().join("preview.png").is_file());
/// ```
pub fn terrain(req: &TerrainRequest, dir: &Path, obs: &dyn Observer) -> Result<TerrainOutcome> {
    terrain_with(req, dir, &bozkir_terrain::kernels::Cpu, &|| "cpu".to_string(), obs)
}

/// [`terrain`] with the profile's erosion walk offered to `kernels` (a GPU's: stream power with
/// its guards off, the walk to rounding but not bit for bit; see
/// `bozkir_terrain::profiles::generate_with`). `backend()` names what ran, after the run (the
/// sidecar's `backend`: `cpu`, `gpu (adapter)`).
pub fn terrain_with(
    req: &TerrainRequest,
    dir: &Path,
    kernels: &dyn Kernels,
    backend: &dyn Fn() -> String,
    obs: &dyn Observer,
) -> Result<TerrainOutcome> {
    let (size, seed, cell, range) = (req.size, req.seed, req.cell_size, req.height_range);
    let options = AnalysisOptions { tpi_radius: req.tpi_radius, outputs: req.outputs, ..AnalysisOptions::default() };
    crate::analysis::check_analysis(size, size, cell, cell, &options)?;
    // Steps `generate`, `erosion`, `fill`.
    let t = generate_with(size, seed, &req.params, kernels, obs)
        .map_err(|e| crate::PipelineError::Invalid(format!("profile {}: {e}", req.profile)))?;
    let h = t.height.par_map(|&v| v * range).with_cell_size(cell, cell);
    let an = analyse_with(&h, &options, kernels, obs)?;
    obs.step("write");
    let mut f = Folder::new(dir);
    f.place(&req.placement);
    f.set_cog(req.outputs.cog);
    // Every file prepared and encoded at once, one per thread (and each PNG in strips).
    let sediment = t.sediment.with_cell_size(cell, cell);
    let ((lo, hi), mut jobs) = height_jobs(&mut f, "height", "height", &h)?;
    jobs.extend(height_jobs(&mut f, "sediment", "sediment", &sediment)?.1);
    jobs.push(unit_mask_job(&mut f, "sediment_mask.png", "mask/sediment", &sediment));
    jobs.extend(map_jobs(&mut f, &h, &an)?);
    run_jobs(jobs)?;
    let mut sc = sidecar(req, (lo, hi));
    sc.backend = backend();
    f.write_sidecar(sc)?;
    Ok(TerrainOutcome { range_m: (lo, hi), stats: stats(&an) })
}

fn sidecar(req: &TerrainRequest, range_m: (f64, f64)) -> Sidecar {
    let (size, seed, cell) = (req.size, req.seed, req.cell_size);
    let mut sc = Sidecar::new(size, size, (cell, cell), range_m, Encoding::Png16);
    sc.generator = "bozkir terrain (original bozkir generator)".into();
    sc.generator_version = GENERATOR_VERSION.to_string();
    sc.seed = Some(seed);
    sc.source = format!("generated {} seed {seed}", req.profile);
    let s = &mut sc.settings;
    s.insert("profile".into(), req.profile.clone().into());
    s.insert("size".into(), size.into());
    s.insert("seed".into(), seed.into());
    s.insert("cell_size_m".into(), cell.into());
    s.insert("height_range_m".into(), req.height_range.into());
    for n in PARAM_NAMES {
        s.insert(n.into(), req.params.get(n).expect("PARAM_NAMES are parameters").into());
    }
    sc
}

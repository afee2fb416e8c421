//! Hydrology and landform maps of a DEM (`bozkir analyze`): the ε fill, lake depths, and the
//! analysis bundle on the filled surface.
//!
//! Steps: `fill`, the analysis's (see [`crate::analysis`]), `write`.

use crate::analysis::{analyse_with, check_analysis, map_jobs, stats, AnalysisOptions, Output, Sea, Stats};
use crate::compute::Compute;
use crate::folder::{height_jobs, run_jobs, unit_mask_job, Folder, Placement};
use crate::{PipelineError, Result};
use bozkir_core::{Grid, Observer};
use bozkir_io::{Encoding, Sidecar};
use bozkir_terrain::hydrology::fill_depth::fill_depth;
use bozkir_terrain::hydrology::priority_flood::fill_epsilon;
use std::path::Path;

/// A DEM to analyse.
#[derive(Debug, Clone)]
pub struct AnalyzeRequest<'a> {
    /// Heights in metres with their cell size; `NaN` cells are voids (no data), kept as voids.
    pub dem: &'a Grid<f64>,
    /// Where the DEM came from (the sidecar's `source`: the input's file name).
    pub source: String,
    /// TPI radius and stream threshold of the analysis.
    pub options: AnalysisOptions,
    /// Where the DEM is (its georeference and crop offset), carried into every output.
    pub placement: Placement,
}

/// The largest raise, in metres, counted as the ε fill's slope across a flat rather than as a
/// filled depression (the ε fill raises a flat cell by one ulp per cell of distance to its
/// outlet: far below a micrometre for any real DEM).
pub const FLAT_RAISE_M: f64 = 1e-6;

/// What an analysis produced besides its files.
#[derive(Debug, Clone, Copy)]
pub struct AnalyzeOutcome {
    /// Lowest and highest height of the filled surface in metres.
    pub range_m: (f64, f64),
    /// Cells the fill raised by more than [`FLAT_RAISE_M`] (depressions filled).
    pub raised_cells: usize,
    /// Cells the fill raised by [`FLAT_RAISE_M`] or less: flats given a drainage slope of a few
    /// ulps by the ε fill, not depressions.
    pub flat_cells: usize,
    /// Sea cells: below the sea level, or the ocean of [`Sea::Auto`] (0 without a sea).
    pub sea_cells: usize,
    /// The analysis's summary numbers.
    pub stats: Stats,
}

/// Lakes this deep or deeper (metres of fill) are drawn as water in the preview; shallower fill
/// (the ε-raised flats, puddles of a few centimetres) stays ground.
pub const LAKE_MIN_DEPTH_M: f64 = 0.5;

/// The water the preview draws: the sea (its depth below the sea level, 0 m for `--ocean auto`)
/// and lakes at least [`LAKE_MIN_DEPTH_M`] deep; `None` when there is neither.
fn water_depth(dem: &Grid<f64>, lakes: &Grid<f64>, sea: Option<&[bool]>, rule: &Sea) -> Option<Grid<f64>> {
    let level = match rule {
        Sea::Level(l) => *l,
        _ => 0.0,
    };
    let depth: Vec<f64> = (0..dem.len())
        .map(|i| {
            if sea.is_some_and(|s| s[i]) {
                (level - dem.data()[i]).max(1e-3)
            } else if lakes.data()[i] >= LAKE_MIN_DEPTH_M {
                lakes.data()[i]
            } else {
                0.0
            }
        })
        .collect();
    depth
        .iter()
        .any(|&d| d > 0.0)
        .then(|| Grid::from_vec(dem.width(), dem.height(), depth).with_cell_size(dem.dx, dem.dy))
}

/// Fill `req.dem`'s depressions (through `compute`'s fill when it takes it), analyse the filled
/// surface and write into `dir`: the DEM and the filled surface in every format, lake depths,
/// the analysis maps and the sidecar.
///
/// # Examples
///
/// ```
/// use bozkir_core::{Grid, NoProgress};
/// use bozkir_pipeline::analysis::AnalysisOptions;
/// use bozkir_pipeline::analyze::{analyze, AnalyzeRequest};
/// use bozkir_pipeline::compute::Compute;
///
/// // A plane rising to the south-east with a pit at column 3, row 3.
/// let mut v: Vec<f64> = (0..64).map(|i| (i % 8 + i / 8) as f64).collect();
/// v[27] = -1.0;
/// let dem = Grid::from_vec(8, 8, v).with_cell_size(5.0, 5.0);
/// let dir = tempfile::tempdir().unwrap();
/// let options = AnalysisOptions { tpi_radius: 2, ..AnalysisOptions::default() };
/// let req = AnalyzeRequest { dem: &dem, source: "pit".into(), options, placement: Default::default() };
/// let out = analyze(&req, Compute::cpu(), dir.path(), &NoProgress).unwrap();
/// assert_eq!(out.raised_cells, 1);
/// assert!(dir.path().join("lake_depth.tif").is_file());
/// ```
pub fn analyze(req: &AnalyzeRequest, compute: Compute, dir: &Path, obs: &dyn Observer) -> Result<AnalyzeOutcome> {
    let dem = req.dem;
    check_analysis(dem.width(), dem.height(), dem.dx, dem.dy, &req.options)?;
    let sea = req.options.sea_mask(dem, &req.placement)?;
    if req.options.sea == Sea::Auto && sea.is_none() {
        obs.note("--ocean auto: no ocean found (no cell below 0 m connected to the border)");
    }
    obs.step("fill");
    let has_voids = dem.data().iter().any(|v| v.is_nan());
    let filled = match &sea {
        // Sea cells are left out of the fill (as no-data, so the land beside them drains into
        // them) and keep their heights: the sea floor is not filled. On the CPU.
        Some(sea) => {
            let land = Grid::from_vec(
                dem.width(),
                dem.height(),
                dem.data().iter().zip(sea).map(|(&v, &s)| if s { f64::NAN } else { v }).collect(),
            )
            .with_cell_size(dem.dx, dem.dy);
            let f = fill_epsilon(&land);
            let data = f.data().iter().zip(dem.data()).zip(sea).map(|((&w, &z), &s)| if s { z } else { w }).collect();
            Grid::from_vec(dem.width(), dem.height(), data).with_cell_size(dem.dx, dem.dy)
        }
        // Voids are no-data to the CPU fill: the cells beside them drain into them, and they
        // stay voids.
        None if has_voids => fill_epsilon(dem),
        None => match compute.kernels.fill(dem).map_err(PipelineError::Kernel)? {
            Some(f) => f,
            None => fill_epsilon(dem),
        },
    };
    let lakes = fill_depth(dem, &filled);
    let mut an = analyse_with(&filled, &req.options, compute.kernels, obs)?;
    an.water = water_depth(dem, &lakes, sea.as_deref(), &req.options.sea);
    obs.step("write");
    let mut f = Folder::new(dir);
    f.place(&req.placement);
    f.set_cog(req.options.outputs.cog);
    // Every file prepared and encoded at once, one per thread (and each PNG in strips).
    let mut jobs = height_jobs(&mut f, "dem", "height", dem)?.1;
    let (lo, hi) = filled.min_max().unwrap_or((0.0, 0.0));
    if req.options.outputs.has(Output::Filled) {
        jobs.extend(height_jobs(&mut f, "filled", "filled", &filled)?.1);
        jobs.push(f.tiff_job_f64("lake_depth.tif", "fill_depth_m", &lakes));
        jobs.push(unit_mask_job(&mut f, "lakes.png", "mask/lake_depth", &lakes));
    }
    jobs.extend(map_jobs(&mut f, &filled, &an)?);
    run_jobs(jobs)?;
    let mut sc = Sidecar::new(dem.width(), dem.height(), (dem.dx, dem.dy), (lo, hi), Encoding::Png16);
    sc.generator = "bozkir analyze".into();
    sc.generator_version = env!("CARGO_PKG_VERSION").into();
    sc.source = req.source.clone();
    sc.settings.insert("tpi_radius".into(), req.options.tpi_radius.into());
    let sea_cells = sea.as_ref().map_or(0, |s| s.iter().filter(|&&b| b).count());
    match req.options.sea {
        Sea::None => {}
        Sea::Level(level) => {
            sc.settings.insert("sea_level_m".into(), level.into());
        }
        Sea::Auto => {
            sc.settings.insert("ocean".into(), "auto".into());
            sc.settings.insert("ocean_cells".into(), sea_cells.into());
            sc.settings.insert("ocean_share".into(), (sea_cells as f64 / dem.len().max(1) as f64).into());
        }
    }
    let backend = (compute.report)();
    sc.backend = backend.backend;
    if let Some(stages) = backend.stages {
        sc.settings.insert("backends".into(), stages.into());
    }
    f.write_sidecar(sc)?;
    let raised_cells = lakes.data().iter().filter(|&&d| d > FLAT_RAISE_M).count();
    let flat_cells = lakes.data().iter().filter(|&&d| d > 0.0 && d <= FLAT_RAISE_M).count();
    Ok(AnalyzeOutcome { range_m: (lo, hi), raised_cells, flat_cells, sea_cells, stats: stats(&an) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bozkir_core::NoProgress;

    /// A pit is counted as filled; a flat terrace the ε fill only tilts is counted apart.
    #[test]
    fn filled_depressions_are_counted_apart_from_tilted_flats() {
        // A plane falling to the west edge, with a 4-cell flat terrace and a 1 m pit.
        let mut v: Vec<f64> = (0..144).map(|i| (i % 12) as f64).collect();
        for x in 4..8 {
            v[5 * 12 + x] = 4.0;
        }
        v[9 * 12 + 6] = 2.0;
        let dem = Grid::from_vec(12, 12, v).with_cell_size(10.0, 10.0);
        let dir = tempfile::tempdir().unwrap();
        let options = AnalysisOptions { tpi_radius: 2, ..AnalysisOptions::default() };
        let req = AnalyzeRequest { dem: &dem, source: "t".into(), options, placement: Placement::default() };
        let out = analyze(&req, Compute::cpu(), dir.path(), &NoProgress).unwrap();
        assert_eq!(out.raised_cells, 1, "only the pit is a depression");
        assert!((1..=3).contains(&out.flat_cells), "the terrace's cells away from its outlet: {}", out.flat_cells);
    }

    /// With a sea level the sea floor is not filled and the land drains into the sea; without
    /// one the same floor's hollows are filled up to the border.
    #[test]
    fn sea_cells_are_outlets_and_stay_unfilled() {
        // Land rising to the east (columns 6..16); a sea (columns 0..6) with a hollow floor.
        let (w, h) = (16usize, 12usize);
        let z: Vec<f64> = (0..w * h)
            .map(|i| {
                let (x, y) = (i % w, i / w);
                if x < 6 {
                    -20.0 - 5.0 * ((x as f64 - 2.5).powi(2) + (y as f64 - 5.5).powi(2) < 6.0) as u8 as f64
                } else {
                    (x - 5) as f64 * 3.0 + (y % 3) as f64 * 0.5
                }
            })
            .collect();
        let dem = Grid::from_vec(w, h, z.clone()).with_cell_size(10.0, 10.0);
        let run = |sea: Sea| {
            let dir = tempfile::tempdir().unwrap();
            let options = AnalysisOptions { tpi_radius: 2, sea, ..AnalysisOptions::default() };
            let req = AnalyzeRequest { dem: &dem, source: "s".into(), options, placement: Placement::default() };
            let out = analyze(&req, Compute::cpu(), dir.path(), &NoProgress).unwrap();
            let filled = bozkir_io::read_tiff_f32(dir.path().join("filled.tif")).unwrap();
            (out, filled)
        };
        let (with_sea, filled) = run(Sea::Level(0.0));
        assert_eq!(with_sea.sea_cells, 6 * h);
        for (i, (&f, &o)) in filled.data().iter().zip(&z).enumerate() {
            if o < 0.0 {
                assert_eq!(f as f64, o, "sea cell {i} changed");
            }
        }
        assert_eq!(with_sea.raised_cells, 0, "nothing on land needs filling");
        // Without a sea level the hollow in the floor is a depression and gets filled.
        let (no_sea, filled) = run(Sea::None);
        assert!(no_sea.raised_cells > 0);
        assert!(filled.data().iter().zip(&z).any(|(&f, &o)| f as f64 > o + 1.0));
        // Sea cells are outlets in the analysis's graph: land drains into the first sea cell.
        let land_sea = {
            let options = AnalysisOptions { tpi_radius: 2, sea: Sea::Level(0.0), ..AnalysisOptions::default() };
            crate::analysis::analyse(&dem, &options, &NoProgress)
        };
        for (i, &zi) in z.iter().enumerate() {
            if zi < 0.0 {
                assert_eq!(
                    land_sea.drainage.as_ref().unwrap().graph.receivers[i] as usize,
                    i,
                    "sea cell {i} is its own outlet"
                );
            }
        }
        // A sea level above every cell, or not finite, is refused.
        for bad in [1e6, f64::NAN, f64::INFINITY] {
            let options = AnalysisOptions { sea: Sea::Level(bad), ..AnalysisOptions::default() };
            assert!(options.sea_mask(&dem, &Placement::default()).is_err(), "{bad}");
        }
    }
}

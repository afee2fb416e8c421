//! The analysis bundle every terrain workflow runs on a height field in metres: drainage (D8
//! directions, accumulation, streams, watersheds), slope, TPI, landform, sky view, and the
//! shaded preview; the maps each workflow writes and the statistics the faces print.
//!
//! Steps reported to the observer, in order: `flow routing`, `accumulation`, `streams`,
//! `watersheds`, `slope`, `tpi`, `landform`, `sky view`.

use crate::folder::{mask, rgb_grid, Folder};
use crate::Result;
use bozkir_core::{Grid, Observer};
use bozkir_io::Encoding;
use bozkir_render::{colourise_classes, shaded_relief, PreviewParams};
use bozkir_terrain::hydrology::flow_graph::{
    accumulate_cells, build_stack, d8_direction_codes, d8_receivers, FlowGraph,
};
use bozkir_terrain::hydrology::streams::{stream_network, StreamNetwork, StreamParams, Threshold};
use bozkir_terrain::hydrology::watersheds::{watersheds, Watersheds};
use bozkir_terrain::landform::openness::{sky_view_with_progress, OpennessParams};
use bozkir_terrain::landform::slope::{slope, slope_to_degrees};
use bozkir_terrain::landform::tpi::{tpi, TpiParams};
use bozkir_terrain::landform::weiss::{weiss_landform, WeissParams};

/// Options of the analysis.
#[derive(Debug, Clone)]
pub struct AnalysisOptions {
    /// TPI radius in cells.
    pub tpi_radius: usize,
    /// Stream threshold in cells; `None`: max(12, cells / 2000).
    pub stream_threshold: Option<u32>,
    /// Sky-view search radius in cells.
    pub sky_radius_cells: f64,
    /// Sea level in metres: cells strictly below it are sea, each its own outlet (land drains
    /// into the first sea cell it reaches; `analyze` leaves the sea floor unfilled). `None`: no
    /// sea, the grid's border is the outlet.
    pub sea_level: Option<f64>,
}

impl Default for AnalysisOptions {
    fn default() -> Self {
        Self { tpi_radius: 8, stream_threshold: None, sky_radius_cells: 16.0, sea_level: None }
    }
}

impl AnalysisOptions {
    /// Which cells of `h` are sea (strictly below [`Self::sea_level`]); `None` without a sea
    /// level. Refuses a sea level that is not finite or lies above every cell.
    pub fn sea_mask(&self, h: &Grid<f64>) -> Result<Option<Vec<bool>>> {
        let Some(level) = self.sea_level else { return Ok(None) };
        if !level.is_finite() {
            return Err(crate::PipelineError::Invalid(format!(
                "--sea-level {level} must be a finite height in metres"
            )));
        }
        let sea: Vec<bool> = h.data().iter().map(|&v| v < level).collect();
        if sea.iter().all(|&s| s) {
            let top = h.min_max().map_or(f64::NAN, |(_, hi)| hi);
            return Err(crate::PipelineError::Invalid(format!(
                "--sea-level {level} m is above every cell (the highest is {top} m): nothing is land"
            )));
        }
        Ok(Some(sea))
    }
}

/// The analysed maps of one height field.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// D8 receivers (fixed tie-break).
    pub graph: FlowGraph,
    /// Drained cells per cell, itself included.
    pub acc: Vec<u32>,
    /// Stream cells and their Strahler orders.
    pub streams: StreamNetwork,
    /// Watershed labels by outlet.
    pub watersheds: Watersheds,
    /// Slope, rise over run.
    pub slope: Grid<f64>,
    /// Topographic position index in metres.
    pub tpi: Grid<f64>,
    /// Weiss landform class codes.
    pub landform: Grid<u8>,
    /// Sky-view factor in 0..1.
    pub sky_view: Grid<f64>,
}

/// Analyse `h` (metres, with its cell size). `h` should drain (filled) for the drainage maps to
/// be meaningful; pits are routed to themselves.
///
/// # Examples
///
/// ```
/// use bozkir_core::{Grid, NoProgress};
/// use bozkir_pipeline::analysis::{analyse, stats, AnalysisOptions};
///
/// // A plane tilted to the east, 10 m cells.
/// let h = Grid::from_vec(16, 16, (0..256).map(|i| (16 - i % 16) as f64).collect()).with_cell_size(10.0, 10.0);
/// let a = analyse(&h, &AnalysisOptions { tpi_radius: 2, ..AnalysisOptions::default() }, &NoProgress);
/// // Border cells are outlets: each inner row drains east, 14 inner cells into its border cell.
/// assert_eq!(a.acc.iter().copied().max(), Some(15));
/// assert!((stats(&a).slope_median_deg - 0.1f64.atan().to_degrees()).abs() < 1e-9);
/// ```
pub fn analyse(h: &Grid<f64>, opts: &AnalysisOptions, obs: &dyn Observer) -> Analysis {
    obs.step("flow routing");
    let mut graph = d8_receivers(h);
    if let Some(level) = opts.sea_level {
        // Sea cells are outlets: each drains to itself, and the stack is rebuilt for it.
        let mut changed = false;
        for (i, &v) in h.data().iter().enumerate() {
            if v < level && graph.receivers[i] as usize != i {
                graph.receivers[i] = i as u32;
                graph.dist[i] = 0.0;
                changed = true;
            }
        }
        if changed {
            graph.stack = build_stack(&graph.receivers);
        }
    }
    obs.step("accumulation");
    let acc = accumulate_cells(&graph);
    let n = h.len() as u32;
    let threshold = opts.stream_threshold.unwrap_or_else(|| (n / 2000).max(12));
    obs.step("streams");
    let streams = stream_network(
        &graph,
        &acc,
        &StreamParams { threshold: Threshold::Cells(threshold), cell_area: h.dx * h.dy, strahler: true },
    );
    obs.step("watersheds");
    let watersheds = watersheds(&graph);
    obs.step("slope");
    let slope = slope(h);
    obs.step("tpi");
    let tpi = tpi(h, &TpiParams::box_cells(opts.tpi_radius));
    obs.step("landform");
    let landform = weiss_landform(h, &WeissParams::default());
    obs.step("sky view");
    let radius = opts.sky_radius_cells * h.dx.max(h.dy);
    let sky_view = sky_view_with_progress(h, &OpennessParams { radius, ..OpennessParams::default() }, obs);
    Analysis { graph, acc, streams, watersheds, slope, tpi, landform, sky_view }
}

/// The budget check of [`analyse`] on a `w × h` grid of `dx × dy` cells (the sky view's ray
/// table and samples grow with `max(dx, dy) / min(dx, dy)`): call it before the work that leads
/// to the analysis.
pub fn check_analysis(w: usize, h: usize, dx: f64, dy: f64, opts: &AnalysisOptions) -> Result<()> {
    crate::budget::check(&crate::budget::analysis_cost(w, h, dx, dy, opts.sky_radius_cells))
}

/// Summary numbers a face prints after a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    /// Share of cells with `ln(1 + drained cells) > 2.5` (the original's channel-network share).
    pub channel_share: f64,
    /// Median slope in degrees.
    pub slope_median_deg: f64,
    /// Steepest slope in degrees.
    pub slope_max_deg: f64,
    /// Largest outlet's drained share of the grid.
    pub outlet_share: f64,
}

/// The summary numbers of an analysis.
pub fn stats(a: &Analysis) -> Stats {
    let n = a.acc.len().max(1) as f64;
    let channel = a.acc.iter().filter(|&&c| (c as f64).ln_1p() > 2.5).count() as f64 / n;
    let mut s: Vec<f64> = a.slope.data().iter().copied().filter(|v| v.is_finite()).collect();
    s.sort_by(f64::total_cmp);
    let median = s.get(s.len() / 2).copied().unwrap_or(0.0);
    let max = s.last().copied().unwrap_or(0.0);
    let outlet = a
        .graph
        .receivers
        .iter()
        .enumerate()
        .filter(|&(i, &r)| r as usize == i)
        .map(|(i, _)| a.acc[i])
        .max()
        .unwrap_or(0);
    Stats {
        channel_share: channel,
        slope_median_deg: slope_to_degrees(median),
        slope_max_deg: slope_to_degrees(max),
        outlet_share: outlet as f64 / n,
    }
}

/// Write the analysis maps of `h` into `f`: drainage, accumulation, streams, D8 codes, slope,
/// TPI, landform, watersheds, sky view and the shaded preview.
pub fn write_maps(f: &mut Folder, h: &Grid<f64>, a: &Analysis) -> Result<()> {
    write_drainage(f, h, a)?;
    bozkir_io::write_png8(
        f.file("slope.png", "mask/slope", Encoding::Png8),
        &mask(&a.slope, |s| s.atan().to_degrees() / 90.0),
    )?;
    f.write_tiff("slope.tif", "slope_rise_over_run", &a.slope.map(|&v| v as f32))?;
    let sd = std_dev(&a.tpi).max(1e-12);
    bozkir_io::write_png8(f.file("tpi.png", "mask/tpi", Encoding::Png8), &mask(&a.tpi, |t| 0.5 + t / (6.0 * sd)))?;
    f.write_tiff("tpi.tif", "tpi_m", &a.tpi.map(|&v| v as f32))?;
    bozkir_io::write_png8(f.file("landform.png", "landform_weiss_codes", Encoding::Png8), &a.landform)?;
    bozkir_io::write_rgb8(
        f.file("landform_rgb.png", "landform_weiss_colour", Encoding::Rgb8),
        &rgb_grid(&colourise_classes(&a.landform)),
    )?;
    let labels = Grid::from_vec(h.width(), h.height(), a.watersheds.labels.iter().map(|&l| l as f32).collect())
        .with_cell_size(h.dx, h.dy);
    f.write_tiff("watersheds.tif", "watershed_labels", &labels)?;
    let ws8 = a.watersheds.labels.iter().map(|&l| (l % 250) as u8 + 1).collect();
    bozkir_io::write_rgb8(
        f.file("watersheds.png", "watershed_colour", Encoding::Rgb8),
        &rgb_grid(&colourise_classes(&Grid::from_vec(h.width(), h.height(), ws8))),
    )?;
    bozkir_io::write_png8(f.file("sky_view.png", "mask/sky_view", Encoding::Png8), &mask(&a.sky_view, |v| v))?;
    let preview = shaded_relief(h, Some(&a.sky_view), &PreviewParams::default());
    bozkir_io::write_rgb8(f.file("preview.png", "preview", Encoding::Rgb8), &rgb_grid(&preview))?;
    Ok(())
}

/// Drainage (log-scaled), accumulation, streams and D8 codes.
fn write_drainage(f: &mut Folder, h: &Grid<f64>, a: &Analysis) -> Result<()> {
    let n = a.acc.len() as f64;
    let acc =
        Grid::from_vec(h.width(), h.height(), a.acc.iter().map(|&c| c as f64).collect()).with_cell_size(h.dx, h.dy);
    let ln_n = n.ln_1p();
    bozkir_io::write_png8(f.file("drainage.png", "mask/drainage", Encoding::Png8), &mask(&acc, |v| v.ln_1p() / ln_n))?;
    f.write_tiff("accumulation.tif", "accumulation_cells", &acc.map(|&v| v as f32))?;
    let streams =
        Grid::from_vec(h.width(), h.height(), a.streams.mask.iter().map(|&s| if s { 255u8 } else { 0 }).collect());
    bozkir_io::write_png8(f.file("streams.png", "mask/streams", Encoding::Png8), &streams)?;
    let codes = d8_direction_codes(&a.graph);
    bozkir_io::write_png8(
        f.file("d8.png", "d8_esri_codes", Encoding::Png8),
        &Grid::from_vec(h.width(), h.height(), codes),
    )?;
    Ok(())
}

fn std_dev(g: &Grid<f64>) -> f64 {
    let v: Vec<f64> = g.data().iter().copied().filter(|v| v.is_finite()).collect();
    if v.is_empty() {
        return 0.0;
    }
    let m = v.iter().sum::<f64>() / v.len() as f64;
    (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / v.len() as f64).sqrt()
}

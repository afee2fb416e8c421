//! The analysis every command runs on a height field in metres: drainage, slope, TPI, landform,
//! sky view. One place, so `terrain`, `analyze`, `erode` and `heightmap` report the same maps.

use crate::progress::Bar;
use bozkir_core::Grid;
use bozkir_terrain::hydrology::flow_graph::{accumulate_cells, d8_receivers, FlowGraph};
use bozkir_terrain::hydrology::streams::{stream_network, StreamNetwork, StreamParams, Threshold};
use bozkir_terrain::hydrology::watersheds::{watersheds, Watersheds};
use bozkir_terrain::landform::openness::{openness_with_progress, OpennessParams};
use bozkir_terrain::landform::slope::{slope, slope_to_degrees};
use bozkir_terrain::landform::tpi::{tpi, TpiParams};
use bozkir_terrain::landform::weiss::{weiss_landform, WeissParams};
use std::time::{Duration, Instant};

/// Options shared by the commands.
#[derive(Debug, Clone)]
pub struct Options {
    /// TPI radius in cells.
    pub tpi_radius: usize,
    /// Stream threshold in cells; `None`: max(12, cells / 2000).
    pub stream_threshold: Option<u32>,
    /// Sky-view search radius in cells.
    pub sky_radius_cells: f64,
}

impl Default for Options {
    fn default() -> Self {
        Self { tpi_radius: 8, stream_threshold: None, sky_radius_cells: 16.0 }
    }
}

pub struct Analysis {
    pub graph: FlowGraph,
    pub acc: Vec<u32>,
    pub streams: StreamNetwork,
    pub watersheds: Watersheds,
    /// Slope, rise over run.
    pub slope: Grid<f64>,
    pub tpi: Grid<f64>,
    pub landform: Grid<u8>,
    pub sky_view: Grid<f64>,
    pub timings: Vec<(&'static str, Duration)>,
}

/// Timing helper: runs `f`, records its wall time under `name`.
pub fn timed<T>(
    timings: &mut Vec<(&'static str, Duration)>,
    name: &'static str,
    bar: &Bar,
    f: impl FnOnce() -> T,
) -> T {
    bar.stage(name);
    let t = Instant::now();
    let v = f();
    timings.push((name, t.elapsed()));
    v
}

/// Analyse `h` (metres, with its cell size). `h` should drain (filled) for the drainage maps to
/// be meaningful; pits are routed to themselves.
pub fn analyse(h: &Grid<f64>, opts: &Options, bar: &Bar) -> Analysis {
    let mut timings = Vec::new();
    let graph = timed(&mut timings, "flow routing", bar, || d8_receivers(h));
    let acc = timed(&mut timings, "accumulation", bar, || accumulate_cells(&graph));
    let n = h.len() as u32;
    let threshold = opts.stream_threshold.unwrap_or_else(|| (n / 2000).max(12));
    let streams = timed(&mut timings, "streams", bar, || {
        stream_network(
            &graph,
            &acc,
            &StreamParams { threshold: Threshold::Cells(threshold), cell_area: h.dx * h.dy, strahler: true },
        )
    });
    let watersheds = timed(&mut timings, "watersheds", bar, || watersheds(&graph));
    let slope = timed(&mut timings, "slope", bar, || slope(h));
    let tpi = timed(&mut timings, "tpi", bar, || tpi(h, &TpiParams::box_cells(opts.tpi_radius)));
    let landform = timed(&mut timings, "landform", bar, || weiss_landform(h, &WeissParams::default()));
    let sky_view = timed(&mut timings, "sky view", bar, || {
        let radius = opts.sky_radius_cells * h.dx.max(h.dy);
        openness_with_progress(h, &OpennessParams { radius, ..OpennessParams::default() }, bar).sky_view
    });
    Analysis { graph, acc, streams, watersheds, slope, tpi, landform, sky_view, timings }
}

/// Summary numbers printed after a run.
pub struct Stats {
    /// Share of cells with `ln(1 + drained cells) > 2.5` (the original's channel-network share).
    pub channel_share: f64,
    pub slope_median_deg: f64,
    pub slope_max_deg: f64,
    /// Largest outlet's drained share of the grid.
    pub outlet_share: f64,
}

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

pub fn print_stats(s: &Stats, timings: &[(&'static str, Duration)]) {
    println!("channel-network share  {:.1} %  (cells with ln(1 + drained cells) > 2.5)", 100.0 * s.channel_share);
    println!("slope                  median {:.1}°, max {:.1}°", s.slope_median_deg, s.slope_max_deg);
    println!("largest outlet drains  {:.1} % of the grid", 100.0 * s.outlet_share);
    let parts: Vec<String> = timings.iter().map(|(n, d)| format!("{n} {:.2} s", d.as_secs_f64())).collect();
    println!("timings                {}", parts.join(", "));
}

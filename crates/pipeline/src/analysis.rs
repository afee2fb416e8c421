//! The analysis bundle every terrain workflow runs on a height field in metres: drainage (D8
//! directions, accumulation, streams, watersheds), slope, TPI, landform, sky view, and the
//! shaded preview; the maps each workflow writes and the statistics the faces print.
//!
//! Steps reported to the observer, in order, for the maps asked for ([`Outputs`]): `flow
//! routing`, `accumulation`, `streams`, `watersheds`, `slope`, `tpi`, `landform`, `sky view`.
//! When drainage maps and window maps (slope, TPI, landform, sky view) are both asked for, they
//! are computed at once and reported as the single step `analysis`.
//!
//! **Voids.** A `NaN` height is a void (no data) and stays one in every map: the valid cells
//! beside it are outlets, as the grid's border cells are (water leaves the DEM there), its
//! slope, TPI and sky view are `NaN` (class 0 in the landform map), and the statistics count
//! only the valid cells.

use crate::folder::{mask, mask_code, rgb_grid, Folder, Job, Placement};
use crate::Result;
use bozkir_core::{Grid, NoProgress, Observer, Progress};
use bozkir_io::{Crs, Encoding};
use bozkir_render::{colourise_classes, shaded_relief_water, PreviewParams};
use bozkir_terrain::hydrology::flow_graph::{
    accumulate_cells, build_stack, d8_direction_codes, d8_receivers, D8Dist, FlowGraph,
};
use bozkir_terrain::hydrology::streams::{stream_network, stream_network_of, StreamNetwork, StreamParams, Threshold};
use bozkir_terrain::hydrology::watersheds::{watersheds, watersheds_from_outlets, Watersheds};
use bozkir_terrain::kernels::{D8Drainage, KernelError, KernelKind, Kernels, LandformMaps};
use bozkir_terrain::landform::openness::{sky_view_with_progress, OpennessParams};
use bozkir_terrain::landform::slope::{slope, slope_to_degrees};
use bozkir_terrain::landform::tpi::{tpi_many, TpiParams};
use bozkir_terrain::landform::weiss::{weiss_landform_parts, WeissParams};
use rayon::prelude::*;

/// One map (or set of files) a terrain workflow can write: a name of `--outputs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// The heights in every format (always written: a terrain folder needs them).
    Height,
    /// `analyze`: the filled surface, lake depths and lakes mask.
    Filled,
    /// D8 directions as ESRI codes (`d8.png`).
    D8,
    /// Drained cells (`accumulation.tif`, `drainage.png`).
    Acc,
    /// The stream mask (`streams.png`).
    Streams,
    /// Watershed labels (`watersheds.tif`, `watersheds.png`).
    Watersheds,
    /// Slope (`slope.tif`, `slope.png`).
    Slope,
    /// Topographic position index (`tpi.tif`, `tpi.png`).
    Tpi,
    /// Weiss landform classes (`landform.png`, `landform_rgb.png`).
    Landform,
    /// Sky-view factor (`sky_view.png`; also shades the preview).
    Skyview,
    /// The shaded preview (`preview.png`).
    Preview,
    /// Height above nearest drainage over the D8 streams (`hand.tif`).
    Hand,
    /// Topographic wetness index from the D8 area (`twi.tif`).
    Twi,
    /// D∞ flow angles and accumulation (`dinf_angle.tif`, `dinf_acc.tif`).
    Dinf,
    /// MFD accumulation, Freeman's p = 1.1 (`mfd_acc.tif`).
    Mfd,
    /// Stream segments with Strahler order as GeoJSON (`streams.geojson`).
    Vectors,
}

/// The names of [`Output`] on the command line, in writing order.
pub const OUTPUT_NAMES: [(&str, Output); 16] = [
    ("height", Output::Height),
    ("filled", Output::Filled),
    ("d8", Output::D8),
    ("acc", Output::Acc),
    ("streams", Output::Streams),
    ("watersheds", Output::Watersheds),
    ("slope", Output::Slope),
    ("tpi", Output::Tpi),
    ("landform", Output::Landform),
    ("skyview", Output::Skyview),
    ("preview", Output::Preview),
    ("hand", Output::Hand),
    ("twi", Output::Twi),
    ("dinf", Output::Dinf),
    ("mfd", Output::Mfd),
    ("vectors", Output::Vectors),
];

/// A set of [`Output`]s: what a workflow writes and so which analysis stages it runs.
///
/// # Examples
///
/// ```
/// use bozkir_pipeline::analysis::{Output, Outputs};
/// let o = Outputs::parse("slope, preview").unwrap();
/// assert!(o.has(Output::Height) && o.has(Output::Slope) && !o.has(Output::Skyview));
/// assert_eq!(o.names(), ["height", "slope", "preview"]);
/// assert!(Outputs::parse("all").unwrap().has(Output::Skyview));
/// assert!(Outputs::parse("slope,hillshade").unwrap_err().to_string().contains("hillshade"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outputs {
    maps: u32,
    /// Write the GeoTIFFs as Cloud-Optimised GeoTIFFs (`--cog`: tiled, overviews, DEFLATE with
    /// the floating-point predictor) instead of plain strips.
    pub cog: bool,
}

impl Outputs {
    /// Every map.
    pub const ALL: Outputs = Outputs { maps: (1 << OUTPUT_NAMES.len()) - 1, cog: false };
    /// The maps `terrain` and `analyze` write by default: all but the hydrologist's extras
    /// (`hand`, `twi`, `dinf`, `mfd`, `vectors`).
    pub const STANDARD: Outputs = Outputs { maps: (1 << (Output::Preview as u32 + 1)) - 1, cog: false };
    /// The heights and the preview: `erode`'s default.
    pub const MINIMAL: Outputs = Outputs { maps: 1 << Output::Height as u32 | 1 << Output::Preview as u32, cog: false };

    /// Whether `o` is in the set (the heights always are).
    pub fn has(self, o: Output) -> bool {
        o == Output::Height || self.maps & (1 << o as u32) != 0
    }

    /// `self` with [`Outputs::cog`] set to `cog`.
    pub fn with_cog(self, cog: bool) -> Outputs {
        Outputs { cog, ..self }
    }

    /// `self` less `o` (the heights stay).
    pub fn without(self, o: Output) -> Outputs {
        Outputs { maps: self.maps & !(1 << o as u32), ..self }
    }

    /// The names in the set, in writing order.
    pub fn names(self) -> Vec<&'static str> {
        OUTPUT_NAMES.iter().filter(|(_, o)| self.has(*o)).map(|(n, _)| *n).collect()
    }

    /// A comma-separated list of names of [`OUTPUT_NAMES`], or `all`; the heights are always
    /// included. Refuses an empty list or an unknown name, naming it and the known ones.
    pub fn parse(list: &str) -> Result<Outputs> {
        let mut bits = 1 << Output::Height as u32;
        let mut any = false;
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            any = true;
            if name == "all" {
                bits = Outputs::ALL.maps;
                continue;
            }
            match OUTPUT_NAMES.iter().find(|(n, _)| *n == name) {
                Some((_, o)) => bits |= 1 << *o as u32,
                None => {
                    let known: Vec<&str> = OUTPUT_NAMES.iter().map(|(n, _)| *n).collect();
                    return Err(crate::PipelineError::Invalid(format!(
                        "--outputs: unknown output '{name}' (known: {}, all)",
                        known.join(", ")
                    )));
                }
            }
        }
        if !any {
            return Err(crate::PipelineError::Invalid("--outputs: the list is empty".into()));
        }
        Ok(Outputs { maps: bits, cog: false })
    }

    /// Whether the D8 graph is needed (drainage maps).
    fn drainage(self) -> bool {
        [Output::D8, Output::Acc, Output::Streams, Output::Watersheds, Output::Hand, Output::Twi, Output::Vectors]
            .iter()
            .any(|&o| self.has(o))
    }
}

impl Default for Outputs {
    /// [`Outputs::STANDARD`].
    fn default() -> Self {
        Outputs::STANDARD
    }
}

/// Where the sea is: its cells are outlets the land drains into, each its own receiver in the
/// D8 graph, and `analyze` leaves them out of the fill (the sea floor keeps its heights).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Sea {
    /// No sea: the grid's border (and the cells beside voids) are the outlets.
    #[default]
    None,
    /// `--sea-level H`: every cell strictly below `H` metres is sea.
    Level(f64),
    /// `--ocean auto`: sea level 0 m of the input's vertical datum; the sea is the cells below
    /// 0 m 4-connected to the grid's border through cells below 0 m or voids. Cells below 0 m
    /// cut off from the border (a Dead Sea, a polder) stay land and are filled as depressions.
    /// Needs a georeferenced input with an EPSG CRS ([`AnalysisOptions::sea_mask`]).
    Auto,
}

impl Sea {
    /// The sea cells of `h` by this rule, unchecked; `None` for [`Sea::None`]. On a surface the
    /// ε fill raised around the sea (as `analyze` fills it) the rule gives the same cells as on
    /// the input: the fill keeps the sea's heights and only raises the land.
    pub fn cells(&self, h: &Grid<f64>) -> Option<Vec<bool>> {
        match *self {
            Sea::None => None,
            Sea::Level(level) => Some(h.data().iter().map(|&v| v < level).collect()),
            Sea::Auto => Some(ocean_cells(h)),
        }
    }
}

/// The cells below 0 m that are 4-connected to the grid's border through cells below 0 m or
/// voids (`NaN`): the ocean of [`Sea::Auto`]. Voids are crossed but never part of it.
pub fn ocean_cells(h: &Grid<f64>) -> Vec<bool> {
    let (w, ht) = (h.width(), h.height());
    let z = h.data();
    if z.is_empty() {
        return Vec::new();
    }
    let open = |i: usize| z[i] < 0.0 || z[i].is_nan();
    let mut seen = vec![false; z.len()];
    let mut stack: Vec<usize> = Vec::new();
    let visit = |i: usize, seen: &mut Vec<bool>, stack: &mut Vec<usize>| {
        if !seen[i] && open(i) {
            seen[i] = true;
            stack.push(i);
        }
    };
    for x in 0..w {
        visit(x, &mut seen, &mut stack);
        visit((ht - 1) * w + x, &mut seen, &mut stack);
    }
    for y in 0..ht {
        visit(y * w, &mut seen, &mut stack);
        visit(y * w + w - 1, &mut seen, &mut stack);
    }
    while let Some(i) = stack.pop() {
        let (x, y) = (i % w, i / w);
        if x > 0 {
            visit(i - 1, &mut seen, &mut stack);
        }
        if x + 1 < w {
            visit(i + 1, &mut seen, &mut stack);
        }
        if y > 0 {
            visit(i - w, &mut seen, &mut stack);
        }
        if y + 1 < ht {
            visit(i + w, &mut seen, &mut stack);
        }
    }
    seen.iter().zip(z).map(|(&s, v)| s && !v.is_nan()).collect()
}

/// Options of the analysis.
#[derive(Debug, Clone)]
pub struct AnalysisOptions {
    /// TPI radius in cells.
    pub tpi_radius: usize,
    /// Stream threshold in cells; `None`: max(12, cells / 2000).
    pub stream_threshold: Option<u32>,
    /// Sky-view search radius in cells.
    pub sky_radius_cells: f64,
    /// The sea, if any ([`Sea`]).
    pub sea: Sea,
    /// The maps to compute and write (default: [`Outputs::STANDARD`]).
    pub outputs: Outputs,
}

impl Default for AnalysisOptions {
    fn default() -> Self {
        Self {
            tpi_radius: 8,
            stream_threshold: None,
            sky_radius_cells: 16.0,
            sea: Sea::None,
            outputs: Outputs::STANDARD,
        }
    }
}

impl AnalysisOptions {
    /// Which cells of `h` are sea by [`Self::sea`]; `None` without a sea, or when
    /// [`Sea::Auto`] finds no ocean (no cell below 0 m connected to the border: land only).
    /// Refuses a sea level that is not finite, a sea that covers every valid cell, and
    /// [`Sea::Auto`] on an input without an EPSG CRS (`placement`: where `h` is).
    pub fn sea_mask(&self, h: &Grid<f64>, placement: &Placement) -> Result<Option<Vec<bool>>> {
        let what = match self.sea {
            Sea::None => return Ok(None),
            Sea::Level(level) if !level.is_finite() => {
                return Err(crate::PipelineError::Invalid(format!(
                    "--sea-level {level} must be a finite height in metres"
                )));
            }
            Sea::Level(level) => format!("--sea-level {level} m is above every cell"),
            Sea::Auto => {
                if !placement.georef.as_ref().is_some_and(|g| matches!(g.crs, Crs::Epsg { .. } | Crs::Keys(_))) {
                    return Err(crate::PipelineError::Invalid(
                        "--ocean auto needs a georeferenced input with a known CRS (an EPSG code or GeoTIFF keys): \
                         0 m is sea level only on a real-world DEM; give --sea-level H instead"
                            .into(),
                    ));
                }
                "--ocean auto: every valid cell is below 0 m and connected to the border".into()
            }
        };
        let Some(sea) = self.sea.cells(h) else { return Ok(None) };
        if h.data().iter().zip(&sea).all(|(v, &s)| s || v.is_nan()) {
            let top = h.min_max().map_or(f64::NAN, |(_, hi)| hi);
            return Err(crate::PipelineError::Invalid(format!("{what} (the highest is {top} m): nothing is land")));
        }
        if self.sea == Sea::Auto && !sea.contains(&true) {
            return Ok(None);
        }
        Ok(Some(sea))
    }
}

/// Drainage maps of one height field.
#[derive(Debug, Clone)]
pub struct Drainage {
    /// D8 receivers (fixed tie-break). Its stack is empty when the routing ran on a device
    /// ([`Kernels::d8_drainage`]) and no map asked for walks it (HAND does; it is built then).
    pub graph: FlowGraph,
    /// Drained cells per cell, itself included.
    pub acc: Vec<u32>,
    /// Stream cells and their Strahler orders.
    pub streams: StreamNetwork,
    /// Watershed labels by outlet.
    pub watersheds: Watersheds,
}

/// The analysed maps of one height field; a map is `None` when the outputs asked for did not
/// need it.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// Cells of the grid.
    pub cells: usize,
    /// Valid (non-void) cells.
    pub valid_cells: usize,
    /// D8 graph, accumulation, streams and watersheds.
    pub drainage: Option<Drainage>,
    /// Slope, rise over run.
    pub slope: Option<Grid<f64>>,
    /// Topographic position index in metres.
    pub tpi: Option<Grid<f64>>,
    /// Weiss landform class codes.
    pub landform: Option<Grid<u8>>,
    /// Sky-view factor in 0..1.
    pub sky_view: Option<Grid<f64>>,
    /// The maps asked for.
    pub outputs: Outputs,
    /// Water depth in metres (sea, lakes, rivers; 0 or less on land), set by the caller when it
    /// knows where water is: the preview draws it as water. `None` from [`analyse`].
    pub water: Option<Grid<f64>>,
}

/// Water depth in metres over `h`: below the sea level `sea` (when there is one) and the depths
/// of `extra` (lakes and rivers a world stage recorded), the larger where both hold; `None`
/// when there is neither or no cell is wet. What the preview and the bake draw as water.
pub fn water_depth(h: &Grid<f64>, sea: Option<f64>, extra: Option<&Grid<f64>>) -> Option<Grid<f64>> {
    if sea.is_none() && extra.is_none() {
        return None;
    }
    let level = sea.unwrap_or(f64::NEG_INFINITY);
    let depth: Vec<f64> = (0..h.len())
        .map(|i| {
            let z = h.data()[i];
            let s = if z < level { level - z } else { 0.0 };
            s.max(extra.map_or(0.0, |g| g.data()[i]))
        })
        .collect();
    depth.iter().any(|&d| d > 0.0).then(|| Grid::from_vec(h.width(), h.height(), depth).with_cell_size(h.dx, h.dy))
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
/// assert_eq!(a.drainage.as_ref().unwrap().acc.iter().copied().max(), Some(15));
/// assert!((stats(&a).slope_median_deg.unwrap() - 0.1f64.atan().to_degrees()).abs() < 1e-9);
/// ```
pub fn analyse(h: &Grid<f64>, opts: &AnalysisOptions, obs: &dyn Observer) -> Analysis {
    analyse_with(h, opts, &bozkir_terrain::kernels::Cpu, obs).expect("the CPU kernels decline, never fail")
}

/// [`analyse`] with the kernels `kernels` may take over (the sky view, on the GPU under
/// `--gpu`: the same bits as the CPU's). Fails only where the kernels do (`--gpu=require`).
pub fn analyse_with(
    h: &Grid<f64>,
    opts: &AnalysisOptions,
    kernels: &dyn Kernels,
    obs: &dyn Observer,
) -> std::result::Result<Analysis, KernelError> {
    let o = opts.outputs;
    // The device's sky view first, on its own (a fraction of the CPU's time); where the kernels
    // decline or fall back, the CPU computes it with the other window maps below.
    let sky_first = if o.has(Output::Skyview) && kernels.offers(KernelKind::SkyView) {
        obs.step("sky view");
        kernels.sky_view(h, &sky_params(h, opts))?.map(|s| without_voids(s, h))
    } else {
        None
    };
    // Then the device's slope and TPIs (the analysis's and the landform classes' two), one table
    // for all; the classes are made from them on the CPU below.
    let want_slope = slope_needed(opts);
    let windows = window_list(opts);
    let parts = if (want_slope || !windows.is_empty()) && kernels.offers(KernelKind::Landform) {
        obs.step("slope, tpi");
        kernels.landform_maps(h, want_slope, &windows)?
    } else {
        None
    };
    // And the device's D8 routing, accumulation and outlets (the CPU makes the rest from them).
    let outlets = if o.drainage() { outlet_cells(h, opts) } else { None };
    let routed = if o.drainage() && kernels.offers(KernelKind::Drainage) {
        obs.step("flow routing");
        kernels.d8_drainage(h, outlets.as_deref())?
    } else {
        None
    };
    let done = Done { sky: sky_first, parts };
    let valid_cells = h.data().iter().filter(|v| !v.is_nan()).count();
    let maps_wanted =
        [Output::Slope, Output::Twi, Output::Tpi, Output::Landform, Output::Skyview].iter().any(|&m| o.has(m));
    let (drainage, maps) = if o.drainage() && maps_wanted {
        // The drainage maps are mostly sequential work (the stack, the accumulation, the
        // watersheds): they run alongside the window maps, which take the threads they leave
        // idle. The steps overlap, so they are timed as one.
        obs.step("analysis");
        rayon::join(
            || Some(drainage(h, opts, outlets.as_deref(), routed, &NoProgress)),
            || window_maps(h, opts, done, &Quiet(obs)),
        )
    } else {
        (o.drainage().then(|| drainage(h, opts, outlets.as_deref(), routed, obs)), window_maps(h, opts, done, obs))
    };
    let (slope, tpi, landform, sky_view) = maps;
    Ok(Analysis { cells: h.len(), valid_cells, drainage, slope, tpi, landform, sky_view, outputs: o, water: None })
}

/// The sky view's rays for the analysis: `sky_radius_cells` of the larger cell side.
fn sky_params(h: &Grid<f64>, opts: &AnalysisOptions) -> OpennessParams {
    OpennessParams { radius: opts.sky_radius_cells * h.dx.max(h.dy), ..OpennessParams::default() }
}

/// `sky` with the voids of `h` made voids (`NaN`), in place: voids have no sky.
fn without_voids(mut sky: Grid<f64>, h: &Grid<f64>) -> Grid<f64> {
    sky.data_mut().par_iter_mut().zip(h.data()).for_each(|(s, z)| {
        if z.is_nan() {
            *s = f64::NAN;
        }
    });
    sky.with_cell_size(h.dx, h.dy)
}

/// An observer that passes progress on but not steps (for work timed as part of a larger step).
struct Quiet<'a>(&'a dyn Observer);

impl Progress for Quiet<'_> {
    fn report(&self, stage: &str, done: u64, total: u64) {
        self.0.report(stage, done, total)
    }
    fn cancelled(&self) -> bool {
        self.0.cancelled()
    }
}

impl Observer for Quiet<'_> {
    fn note(&self, text: &str) {
        self.0.note(text)
    }
}

/// Slope, TPI, landform classes and sky view, as the outputs ask.
type WindowMaps = (Option<Grid<f64>>, Option<Grid<f64>>, Option<Grid<u8>>, Option<Grid<f64>>);

/// The TPI windows the outputs need, in order: the analysis's box (`tpi`), then the Weiss
/// classes' small and large windows (`landform`).
fn window_list(opts: &AnalysisOptions) -> Vec<TpiParams> {
    let o = opts.outputs;
    let mut w = Vec::new();
    if o.has(Output::Tpi) {
        w.push(TpiParams::box_cells(opts.tpi_radius));
    }
    if o.has(Output::Landform) {
        let p = WeissParams::default();
        w.extend([TpiParams { window: p.small }, TpiParams { window: p.large }]);
    }
    w
}

/// Whether the outputs need the slope: as a map, for TWI's tan β, or for the Weiss classes.
fn slope_needed(opts: &AnalysisOptions) -> bool {
    let o = opts.outputs;
    o.has(Output::Slope) || o.has(Output::Twi) || o.has(Output::Landform)
}

/// Window maps computed before [`window_maps`] (on the GPU): the sky view, and the slope and
/// TPIs of [`window_list`].
struct Done {
    sky: Option<Grid<f64>>,
    parts: Option<LandformMaps>,
}

/// The window maps the outputs ask for, from `done` where it holds them, else computed here: the
/// slope and the TPIs of [`window_list`] (one table for all), then the Weiss classes from them,
/// the same way whichever computed the parts.
fn window_maps(h: &Grid<f64>, opts: &AnalysisOptions, done: Done, obs: &dyn Observer) -> WindowMaps {
    let o = opts.outputs;
    // Slope also gives the printed slope figures and TWI's tan β.
    let slope_out = o.has(Output::Slope) || o.has(Output::Twi);
    let LandformMaps { slope: s, tpi: t } = done.parts.unwrap_or_else(|| {
        let windows = window_list(opts);
        LandformMaps {
            slope: slope_needed(opts).then(|| {
                obs.step("slope");
                slope(h)
            }),
            tpi: if windows.is_empty() {
                Vec::new()
            } else {
                obs.step("tpi");
                tpi_many(h, &windows)
            },
        }
    });
    let mut t = t.into_iter();
    let tpi = if o.has(Output::Tpi) { t.next() } else { None };
    let landform = match (o.has(Output::Landform), &s, t.next(), t.next()) {
        (true, Some(s), Some(small), Some(large)) => {
            obs.step("landform");
            Some(weiss_landform_parts(s, &small, &large, &WeissParams::default()))
        }
        _ => None,
    };
    let sky_view = done.sky.or_else(|| {
        o.has(Output::Skyview).then(|| {
            obs.step("sky view");
            without_voids(sky_view_with_progress(h, &sky_params(h, opts), obs), h)
        })
    });
    (s.filter(|_| slope_out), tpi, landform, sky_view)
}

/// The cells made outlets besides the grid's border, each its own receiver: sea cells, voids and
/// the valid cells beside a void (water leaves the DEM there, as at the border); `None` when
/// there are none.
fn outlet_cells(h: &Grid<f64>, opts: &AnalysisOptions) -> Option<Vec<bool>> {
    let sea = opts.sea.cells(h);
    let beside_void = void_neighbours(h);
    if sea.is_none() && beside_void.is_none() {
        return None;
    }
    Some(
        (0..h.len())
            .into_par_iter()
            .map(|i| {
                sea.as_ref().is_some_and(|s| s[i]) || beside_void.as_ref().is_some_and(|b| b[i]) || h.data()[i].is_nan()
            })
            .collect(),
    )
}

/// D8 routing (the cells of `outlets` made outlets), accumulation, streams and watersheds. With
/// `routed` (receivers, counts and outlets from [`Kernels::d8_drainage`], the CPU's integers) the
/// rest is made from those in parallel without a stack; else all on the CPU. The same maps
/// either way.
fn drainage(
    h: &Grid<f64>,
    opts: &AnalysisOptions,
    outlets: Option<&[bool]>,
    routed: Option<D8Drainage>,
    obs: &dyn Observer,
) -> Drainage {
    let n = h.len() as u32;
    let threshold = opts.stream_threshold.unwrap_or_else(|| (n / 2000).max(12));
    let stream_params = StreamParams { threshold: Threshold::Cells(threshold), cell_area: h.dx * h.dy, strahler: true };
    if let Some(D8Drainage { receivers, acc, outlet }) = routed {
        obs.step("streams");
        let streams = stream_network_of(&receivers, &acc, &stream_params);
        obs.step("watersheds");
        let watersheds = watersheds_from_outlets(&receivers, &outlet, &acc);
        drop(outlet);
        let dd = D8Dist::new(h.width(), h.dx, h.dy);
        let dist = receivers.par_iter().enumerate().map(|(i, &r)| dd.of(i, r as usize)).collect();
        // The stack only for the maps that walk it (HAND).
        let stack = if opts.outputs.has(Output::Hand) { build_stack(&receivers) } else { Vec::new() };
        let graph = FlowGraph { width: h.width(), height: h.height(), receivers, dist, stack };
        return Drainage { graph, acc, streams, watersheds };
    }
    obs.step("flow routing");
    let mut graph = d8_receivers(h);
    if let Some(out) = outlets {
        let changed = graph
            .receivers
            .par_iter_mut()
            .zip(graph.dist.par_iter_mut())
            .zip(out.par_iter())
            .enumerate()
            .map(|(i, ((r, d), &o))| {
                let c = o && *r as usize != i;
                if c {
                    *r = i as u32;
                    *d = 0.0;
                }
                c
            })
            .reduce(|| false, |a, b| a || b);
        if changed {
            graph.stack = build_stack(&graph.receivers);
        }
    }
    obs.step("accumulation");
    let acc = accumulate_cells(&graph);
    obs.step("streams");
    let streams = stream_network(&graph, &acc, &stream_params);
    obs.step("watersheds");
    let watersheds = watersheds(&graph);
    Drainage { graph, acc, streams, watersheds }
}

/// Which valid cells have a void (`NaN`) among their 8 neighbours; `None` without voids.
fn void_neighbours(h: &Grid<f64>) -> Option<Vec<bool>> {
    if !bozkir_core::stats::any_nan(h.data()) {
        return None;
    }
    let (w, ht) = (h.width() as isize, h.height() as isize);
    Some(
        (0..h.len())
            .into_par_iter()
            .map(|i| {
                let (x, y) = ((i as isize) % w, (i as isize) / w);
                !h.data()[i].is_nan()
                    && (-1..=1).any(|dy| {
                        (-1..=1).any(|dx| {
                            let (nx, ny) = (x + dx, y + dy);
                            (0..w).contains(&nx) && (0..ht).contains(&ny) && h.data()[(ny * w + nx) as usize].is_nan()
                        })
                    })
            })
            .collect(),
    )
}

/// The budget check of [`analyse`] on a `w × h` grid of `dx × dy` cells (the sky view's ray
/// table and samples grow with `max(dx, dy) / min(dx, dy)`): call it before the work that leads
/// to the analysis.
pub fn check_analysis(w: usize, h: usize, dx: f64, dy: f64, opts: &AnalysisOptions) -> Result<()> {
    crate::budget::check(&crate::budget::analysis_cost(w, h, dx, dy, opts.sky_radius_cells))
}

/// Summary numbers a face prints after a run, over the valid cells; `None` where the maps
/// asked for did not include the stage behind it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    /// Share of cells with `ln(1 + drained cells) > 2.5` (the original's channel-network share).
    pub channel_share: Option<f64>,
    /// Median slope in degrees.
    pub slope_median_deg: Option<f64>,
    /// Steepest slope in degrees.
    pub slope_max_deg: Option<f64>,
    /// Largest outlet's drained share of the grid.
    pub outlet_share: Option<f64>,
    /// Share of the cells that are voids (no data).
    pub void_share: f64,
}

/// The summary numbers of an analysis.
pub fn stats(a: &Analysis) -> Stats {
    let (mut channel_share, mut outlet_share) = (None, None);
    let total = a.cells;
    let n = a.valid_cells.max(1) as f64;
    if let Some(d) = &a.drainage {
        // A void is its own receiver with 1 drained cell: never a channel, never the largest outlet
        // unless nothing drains anywhere.
        // Counted in parallel (exact integers; the same for any thread count).
        let channel = d.acc.par_iter().filter(|&&c| (c as f64).ln_1p() > 2.5).count() as f64;
        channel_share = Some(channel / n);
        let outlet = d
            .graph
            .receivers
            .par_iter()
            .enumerate()
            .filter(|&(i, &r)| r as usize == i)
            .map(|(i, _)| d.acc[i])
            .max()
            .unwrap_or(0);
        outlet_share = Some(outlet as f64 / n);
    }
    let (mut slope_median_deg, mut slope_max_deg) = (None, None);
    if let Some(slope) = &a.slope {
        // The upper median (the value a full sort puts at len / 2) and the maximum of the finite
        // slopes, selected in parallel without copying the map.
        let finite = bozkir_core::stats::count_finite(slope.data());
        let median = bozkir_core::stats::select_finite(slope.data(), finite / 2).unwrap_or(0.0);
        let max = slope.min_max().map_or(0.0, |(_, hi)| hi);
        slope_median_deg = Some(slope_to_degrees(median));
        slope_max_deg = Some(slope_to_degrees(max));
    }
    let void_share = if total == 0 { 0.0 } else { (total - a.valid_cells) as f64 / total as f64 };
    Stats { channel_share, slope_median_deg, slope_max_deg, outlet_share, void_share }
}

/// The jobs that write the analysis maps of `h` that `a` holds into `f` (the outputs asked
/// for): drainage, accumulation, streams, D8 codes, slope, TPI, landform, watersheds, sky view
/// and the shaded preview, to run with the command's other files ([`crate::folder::run_jobs`]). Voids are
/// `NaN` in the TIFFs and 0 in the 8-bit maps.
pub(crate) fn map_jobs<'a>(f: &mut Folder, h: &'a Grid<f64>, a: &'a Analysis) -> Result<Vec<Job<'a>>> {
    let o = a.outputs;
    let mut jobs: Vec<Job> = Vec::new();
    let (w, ht, dx, dy) = (h.width(), h.height(), h.dx, h.dy);
    let void = |i: usize| h.data()[i].is_nan();
    if let Some(d) = &a.drainage {
        let n = d.acc.len() as f64;
        if o.has(Output::Acc) {
            let ln_n = n.ln_1p();
            let p = f.file("drainage.png", "mask/drainage", Encoding::Png8);
            jobs.push(Box::new(move || {
                // `mask` of ln(1 + drained cells) / ln(1 + cells), voids 0: the codes of the small
                // counts most cells have from a table of the same expression.
                let code = |c: u32| mask_code((c as f64).ln_1p() / ln_n);
                let table: Vec<u8> = (0..1u32 << 16).map(code).collect();
                let data = d.acc.par_iter().zip(h.data()).map(|(&c, z)| {
                    if z.is_nan() {
                        0
                    } else {
                        table.get(c as usize).copied().unwrap_or_else(|| code(c))
                    }
                });
                Ok(bozkir_io::write_png8(p, &Grid::from_vec(w, ht, data.collect()))?)
            }));
            jobs.push(f.tiff_job_with("accumulation.tif", "accumulation_cells", (w, ht, dx, dy), move || {
                // Drained cells as float32, voids NaN.
                let data =
                    d.acc.par_iter().zip(h.data()).map(|(&c, z)| if z.is_nan() { f32::NAN } else { c as f64 as f32 });
                Grid::from_vec(w, ht, data.collect()).with_cell_size(dx, dy)
            }));
        }
        if o.has(Output::Streams) {
            let p = f.file("streams.png", "mask/streams", Encoding::Png8);
            jobs.push(Box::new(move || {
                let g = Grid::from_vec(w, ht, d.streams.mask.par_iter().map(|&s| if s { 255u8 } else { 0 }).collect());
                Ok(bozkir_io::write_png8(p, &g)?)
            }));
        }
        if o.has(Output::D8) {
            let p = f.file("d8.png", "d8_esri_codes", Encoding::Png8);
            jobs.push(Box::new(move || {
                Ok(bozkir_io::write_png8(p, &Grid::from_vec(w, ht, d8_direction_codes(&d.graph)))?)
            }));
        }
    }
    if let (Some(s), true) = (&a.slope, o.has(Output::Slope)) {
        let p = f.file("slope.png", "mask/slope", Encoding::Png8);
        jobs.push(Box::new(move || Ok(bozkir_io::write_png8(p, &mask(s, |s| s.atan().to_degrees() / 90.0))?)));
        jobs.push(f.tiff_job_f64("slope.tif", "slope_rise_over_run", s));
    }
    if let Some(t) = &a.tpi {
        let p = f.file("tpi.png", "mask/tpi", Encoding::Png8);
        jobs.push(Box::new(move || {
            let sd = std_dev(t).max(1e-12);
            Ok(bozkir_io::write_png8(p, &mask(t, |t| 0.5 + t / (6.0 * sd)))?)
        }));
        jobs.push(f.tiff_job_f64("tpi.tif", "tpi_m", t));
    }
    if let Some(l) = &a.landform {
        let p = f.file("landform.png", "landform_weiss_codes", Encoding::Png8);
        jobs.push(Box::new(move || Ok(bozkir_io::write_png8(p, l)?)));
        let p = f.file("landform_rgb.png", "landform_weiss_colour", Encoding::Rgb8);
        jobs.push(Box::new(move || Ok(bozkir_io::write_rgb8(p, &rgb_grid(&colourise_classes(l)))?)));
    }
    if let (Some(d), true) = (&a.drainage, o.has(Output::Watersheds)) {
        jobs.push(f.tiff_job_with("watersheds.tif", "watershed_labels", (w, ht, dx, dy), move || {
            let data = d.watersheds.labels.par_iter().zip(h.data());
            let labels = data.map(|(&l, z)| if z.is_nan() { f32::NAN } else { l as f32 }).collect();
            Grid::from_vec(w, ht, labels).with_cell_size(dx, dy)
        }));
        let p = f.file("watersheds.png", "watershed_colour", Encoding::Rgb8);
        jobs.push(Box::new(move || {
            let ws8 = d
                .watersheds
                .labels
                .par_iter()
                .enumerate()
                .map(|(i, &l)| if void(i) { 0 } else { (l % 250) as u8 + 1 })
                .collect();
            Ok(bozkir_io::write_rgb8(p, &rgb_grid(&colourise_classes(&Grid::from_vec(w, ht, ws8))))?)
        }));
    }
    if let Some(sv) = &a.sky_view {
        let p = f.file("sky_view.png", "mask/sky_view", Encoding::Png8);
        jobs.push(Box::new(move || Ok(bozkir_io::write_png8(p, &mask(sv, |v| v))?)));
    }
    write_extras(f, h, a, &mut jobs)?;
    if o.has(Output::Preview) {
        let p = f.file("preview.png", "preview", Encoding::Rgb8);
        let sky = a.sky_view.as_ref();
        let water = a.water.as_ref();
        jobs.push(Box::new(move || {
            let preview = shaded_relief_water(h, sky, &PreviewParams::default(), water);
            Ok(bozkir_io::write_rgb8(p, &rgb_grid(&preview))?)
        }));
    }
    Ok(jobs)
}

/// The hydrologist's extras asked for: HAND, TWI, D∞, MFD and the stream vectors.
fn write_extras<'a>(f: &mut Folder, h: &'a Grid<f64>, a: &'a Analysis, jobs: &mut Vec<Job<'a>>) -> Result<()> {
    use bozkir_terrain::hydrology::{dinf, hand, mfd, twi, vectors};
    let o = a.outputs;
    let hydro = |e: bozkir_terrain::hydrology::HydroError| crate::PipelineError::Invalid(e.to_string());
    let f32s = |g: &Grid<f64>| g.map(|&v| v as f32);
    if let Some(d) = &a.drainage {
        if o.has(Output::Hand) {
            let g = hand::hand(h, &d.graph, &d.streams.mask).map_err(hydro)?;
            jobs.push(f.tiff_job("hand.tif", "hand_m", f32s(&g)));
        }
        if o.has(Output::Twi) {
            let area: Vec<f64> = d.acc.iter().map(|&c| f64::from(c)).collect();
            let slope = a.slope.as_ref().expect("TWI asks for the slope");
            let g = twi::twi_from_slope(&area, slope, twi::TWI_MIN_TAN_SLOPE).map_err(hydro)?;
            jobs.push(f.tiff_job("twi.tif", "twi", f32s(&g)));
        }
        if o.has(Output::Vectors) {
            let segments = vectors::stream_segments(&d.graph, &d.streams, &d.acc).map_err(hydro)?;
            let (geo, crs) = f.georef_and_crs(h.height(), h.dx, h.dy);
            let mut json = vectors::segments_geojson(&segments, |c, r| geo.transform.pixel_centre(c, r));
            if let Some(code) = crs {
                // The CRS member GDAL and QGIS read (RFC 7946 has none: its coordinates are WGS 84).
                let head = r#"{"type":"FeatureCollection","#;
                json = json.replacen(
                    head,
                    &format!(
                        r#"{head}"crs":{{"type":"name","properties":{{"name":"urn:ogc:def:crs:EPSG::{code}"}}}},"#
                    ),
                    1,
                );
            }
            let p = f.file("streams.geojson", "stream_vectors", Encoding::GeoJson);
            jobs.push(Box::new(move || {
                use std::io::Write;
                bozkir_io::write_atomic(&p, 1 << 16, |w| w.write_all(json.as_bytes()))
                    .map_err(|e| crate::PipelineError::Invalid(format!("{}: cannot write: {e}", p.display())))
            }));
        }
    }
    if o.has(Output::Dinf) {
        let angle = dinf::dinf_directions(h).map_err(hydro)?;
        let acc = dinf::dinf_accumulation(&angle, None).map_err(hydro)?;
        jobs.push(f.tiff_job("dinf_angle.tif", "dinf_angle_rad", f32s(&angle)));
        jobs.push(f.tiff_job("dinf_acc.tif", "dinf_accumulation_cells", f32s(&acc)));
    }
    if o.has(Output::Mfd) {
        let acc = mfd::mfd_accumulation(h, &mfd::MfdParams::default(), None).map_err(hydro)?;
        jobs.push(f.tiff_job("mfd_acc.tif", "mfd_accumulation_cells", f32s(&acc)));
    }
    Ok(())
}

/// The population standard deviation of the finite values of `g` (0 when there are none), its
/// sums taken in parallel over fixed blocks added in order: the same for any thread count.
fn std_dev(g: &Grid<f64>) -> f64 {
    const BLOCK: usize = 1 << 16;
    let sum = |f: &(dyn Fn(f64) -> f64 + Sync)| -> (f64, usize) {
        let parts: Vec<(f64, usize)> = g
            .data()
            .par_chunks(BLOCK)
            .map(|c| c.iter().filter(|v| v.is_finite()).fold((0.0, 0), |(s, n), &v| (s + f(v), n + 1)))
            .collect();
        parts.into_iter().fold((0.0, 0), |(s, n), (a, b)| (s + a, n + b))
    };
    let (total, n) = sum(&|v| v);
    if n == 0 {
        return 0.0;
    }
    let m = total / n as f64;
    (sum(&|x| (x - m) * (x - m)).0 / n as f64).sqrt()
}

#[cfg(test)]
mod sky_tests {
    use super::*;

    /// Voids have no sky, on the CPU path and on the path a kernel's sky view takes
    /// (`without_voids`); every other cell keeps the CPU's value.
    #[test]
    fn the_sky_view_is_void_exactly_at_voids() {
        let mut h = Grid::from_fn(40, 30, |x, y| ((x * 7 + y * 13) % 11) as f64).with_cell_size(2.0, 2.0);
        for (x, y) in [(5, 5), (20, 10), (0, 29)] {
            *h.get_mut(x, y) = f64::NAN;
        }
        let opts = AnalysisOptions { outputs: Outputs::parse("skyview").unwrap(), ..AnalysisOptions::default() };
        let sky = analyse(&h, &opts, &NoProgress).sky_view.unwrap();
        let raw = sky_view_with_progress(&h, &sky_params(&h, &opts), &NoProgress);
        for (i, (&s, &z)) in sky.data().iter().zip(h.data()).enumerate() {
            if z.is_nan() {
                assert!(s.is_nan(), "cell {i} is a void");
            } else {
                assert_eq!(s.to_bits(), raw.data()[i].to_bits(), "cell {i}");
            }
        }
        assert_eq!(without_voids(raw.clone(), &h).data().iter().filter(|v| v.is_nan()).count(), 3);
    }
}

#[cfg(test)]
mod drainage_tests {
    use super::*;
    use bozkir_terrain::hydrology::flow_graph::outlet_of;

    /// Kernels that offer the D8 drainage and compute it with the CPU's own functions (what the
    /// GPU's must equal), declining the rest.
    struct Routed;

    impl Kernels for Routed {
        fn offers(&self, kind: KernelKind) -> bool {
            kind == KernelKind::Drainage
        }
        fn d8_drainage(
            &self,
            h: &Grid<f64>,
            outlets: Option<&[bool]>,
        ) -> std::result::Result<Option<D8Drainage>, KernelError> {
            let mut g = d8_receivers(h);
            if let Some(o) = outlets {
                for (i, r) in g.receivers.iter_mut().enumerate() {
                    if o[i] {
                        *r = i as u32;
                    }
                }
                g.stack = build_stack(&g.receivers);
            }
            Ok(Some(D8Drainage { acc: accumulate_cells(&g), outlet: outlet_of(&g), receivers: g.receivers }))
        }
    }

    /// The drainage maps made from a device's routing (streams without a stack, watersheds from
    /// the outlets, distances from the receivers) equal the CPU's, with voids and a sea; the
    /// stack is built when HAND asks for it.
    #[test]
    fn drainage_from_a_devices_routing_equals_the_cpu() {
        let mut h = Grid::from_fn(90, 70, |x, y| {
            let (fx, fy) = (x as f64, y as f64);
            20.0 + 6.0 * (fx * 0.21).sin() * (fy * 0.17).cos()
                + 0.15 * fx
                + 0.05 * fy
                + ((x * 31 + y * 17) % 7) as f64 * 0.3
        })
        .with_cell_size(5.0, 7.0);
        for (x, y) in [(30, 30), (31, 30), (30, 31), (60, 12), (0, 50)] {
            *h.get_mut(x, y) = f64::NAN;
        }
        for (outputs, sea) in [("streams,watersheds,d8,acc", Sea::Level(17.0)), ("all", Sea::None)] {
            let opts = AnalysisOptions { outputs: Outputs::parse(outputs).unwrap(), sea, ..AnalysisOptions::default() };
            let cpu = analyse(&h, &opts, &NoProgress).drainage.unwrap();
            let dev = analyse_with(&h, &opts, &Routed, &NoProgress).unwrap().drainage.unwrap();
            assert_eq!(dev.graph.receivers, cpu.graph.receivers, "{outputs}");
            assert_eq!(dev.graph.dist, cpu.graph.dist, "{outputs}");
            assert_eq!(dev.acc, cpu.acc, "{outputs}");
            assert_eq!(dev.streams, cpu.streams, "{outputs}");
            assert_eq!(dev.watersheds, cpu.watersheds, "{outputs}");
            assert!(cpu.streams.order.iter().any(|&o| o >= 2) && cpu.watersheds.count() > 10);
            // HAND walks the stack: built for "all", not otherwise.
            assert_eq!(dev.graph.stack.is_empty(), outputs != "all", "{outputs}");
        }
    }
}

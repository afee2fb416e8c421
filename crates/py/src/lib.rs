//! Python bindings of bozkir: the `bozkir._bozkir` extension module behind the `bozkir`
//! package (`crates/py/python/bozkir`). Thin glue over the library crates:
//!
//! * height fields travel as 2-D `float64` numpy arrays (row 0 = north for terrains and DEMs,
//!   row 0 = south for pyworldgen's worlds, as pyworldgen lays them out) with a cell size
//!   `(dx, dy)` in metres; results are handed to numpy without a copy (the Rust vector becomes
//!   the array's buffer), inputs are copied once into the engine's grid;
//! * every run releases the GIL; a `progress(stage, done, total)` callable, when given, is
//!   called with the GIL taken back, and Ctrl-C (any pending Python signal) cancels the run and
//!   raises `KeyboardInterrupt`;
//! * errors are `ValueError` (bad input or a malformed file: the CLI's own messages) or
//!   `OSError` (the system refused a read or write).

use bozkir_core::{Grid, Observer, Progress};
use numpy::{IntoPyArray, PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// A progress callback and Ctrl-C, seen by the engine as its `Progress`/`Observer`.
struct PyProgress {
    callback: Option<Py<PyAny>>,
    cancelled: AtomicBool,
    /// The first Python error raised by the callback or a signal handler.
    error: Mutex<Option<PyErr>>,
}

impl PyProgress {
    fn new(callback: Option<Bound<'_, PyAny>>) -> Self {
        Self { callback: callback.map(Bound::unbind), cancelled: AtomicBool::new(false), error: Mutex::new(None) }
    }

    /// The error that stopped the run, if any (a raised callback or Ctrl-C).
    fn take_error(&self) -> Option<PyErr> {
        self.error.lock().unwrap().take()
    }

    fn fail(&self, e: PyErr) {
        self.cancelled.store(true, Ordering::SeqCst);
        let mut slot = self.error.lock().unwrap();
        if slot.is_none() {
            *slot = Some(e);
        }
    }
}

impl Progress for PyProgress {
    fn report(&self, stage: &str, done: u64, total: u64) {
        if self.cancelled.load(Ordering::Relaxed) {
            return;
        }
        Python::attach(|py| {
            if let Err(e) = py.check_signals() {
                return self.fail(e);
            }
            if let Some(cb) = &self.callback {
                if let Err(e) = cb.call1(py, (stage, done, total)) {
                    self.fail(e);
                }
            }
        });
    }
    fn cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }
}

impl Observer for PyProgress {
    fn step(&self, name: &str) {
        self.report(name, 0, 1);
    }
}

/// Runs `f` without the GIL with `progress`; a Python error raised meanwhile (Ctrl-C, the
/// callback) wins over the result.
fn run<T: Send>(
    py: Python<'_>,
    progress: Option<Bound<'_, PyAny>>,
    f: impl FnOnce(&PyProgress) -> PyResult<T> + Send,
) -> PyResult<T> {
    let p = PyProgress::new(progress);
    let out = py.detach(|| f(&p));
    if let Some(e) = p.take_error() {
        return Err(e);
    }
    if p.cancelled() {
        return Err(PyKeyboardInterrupt::new_err("cancelled"));
    }
    out
}

fn value_err(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A file error: `OSError` when the system refused the read or write, else `ValueError` (a
/// malformed file, an unsupported format), with the CLI's message either way.
fn io_err(e: bozkir_io::IoError) -> PyErr {
    match &e {
        bozkir_io::IoError::Io { .. } => PyOSError::new_err(e.to_string()),
        _ => value_err(e),
    }
}

/// `(dx, dy)` from a number or a pair (1 m when absent); refused unless finite and above 0.
fn cell_size(v: Option<&Bound<'_, PyAny>>) -> PyResult<(f64, f64)> {
    let (dx, dy) = match v {
        None => (1.0, 1.0),
        Some(v) => match v.extract::<f64>() {
            Ok(d) => (d, d),
            Err(_) => {
                v.extract::<(f64, f64)>().map_err(|_| value_err("cell_size must be a number or a (dx, dy) pair"))?
            }
        },
    };
    if !(dx.is_finite() && dy.is_finite() && dx > 0.0 && dy > 0.0) {
        return Err(value_err(format!("cell_size ({dx}, {dy}): both must be finite numbers above 0")));
    }
    Ok((dx, dy))
}

/// A 2-D float64 array as a grid (one copy); refused when empty, too large, or (unless
/// `voids`) holding NaN or infinite values.
/// The array's values in row-major order. numpy allows arrays whose buffer is not aligned to
/// 8 bytes (an array unpickled from an out-of-band buffer at an odd offset, as Dask delivers
/// scattered data, or `np.frombuffer` at an offset); those are read element by element through
/// their byte strides, never as a Rust slice (which must be aligned).
fn values_of(a: &PyReadonlyArray2<'_, f64>) -> Vec<f64> {
    let ptr = a.data();
    if ptr.is_aligned() {
        return match a.as_slice() {
            Ok(s) => s.to_vec(),
            Err(_) => a.as_array().iter().copied().collect(),
        };
    }
    let (shape, strides) = (a.shape(), a.strides());
    let base = ptr as *const u8;
    let mut out = Vec::with_capacity(shape[0] * shape[1]);
    for y in 0..shape[0] as isize {
        for x in 0..shape[1] as isize {
            // SAFETY: (y, x) is inside the array's shape, so the byte offset from its strides
            // stays inside the buffer numpy holds alive (and read-only borrowed) for `a`'s life.
            out.push(unsafe { std::ptr::read_unaligned(base.offset(y * strides[0] + x * strides[1]) as *const f64) });
        }
    }
    out
}

fn grid_of(a: &PyReadonlyArray2<'_, f64>, (dx, dy): (f64, f64), voids: bool) -> PyResult<Grid<f64>> {
    let shape = a.shape();
    let (h, w) = (shape[0], shape[1]);
    // The same limits as every raster the engine reads (MAX_SIDE per side, MAX_CELLS in all).
    bozkir_io::limits::check_raster_size(std::path::Path::new("height field"), w as u64, h as u64)
        .map_err(value_err)?;
    let data = values_of(a);
    if !voids {
        if let Some(i) = data.iter().position(|v| !v.is_finite()) {
            return Err(value_err(format!(
                "height field: value {} at row {}, column {} is not finite",
                data[i],
                i / w,
                i % w
            )));
        }
    }
    Ok(Grid::from_vec(w, h, data).with_cell_size(dx, dy))
}

/// A grid as a 2-D numpy array, its buffer moved, not copied.
fn array_of<'py, T: numpy::Element>(
    py: Python<'py>,
    w: usize,
    h: usize,
    data: Vec<T>,
) -> PyResult<Bound<'py, PyArray2<T>>> {
    numpy::ndarray::Array2::from_shape_vec((h, w), data).map(|a| a.into_pyarray(py)).map_err(value_err)
}

fn grid_array<'py>(py: Python<'py>, g: Grid<f64>) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let (w, h) = (g.width(), g.height());
    array_of(py, w, h, g.into_vec())
}

/// The recipe text of a built-in name or the text itself (TOML with `[[stage]]` tables).
fn recipe_of(spec: &str) -> PyResult<bozkir_recipe::Recipe> {
    if spec.contains("[[stage]]") {
        bozkir_recipe::parse(spec, "python").map_err(value_err)
    } else {
        bozkir_recipe::builtin::builtin(spec).map_err(value_err)
    }
}

/// The state's heights and masks as `{"height": …, "masks": {…}, "dx", "dy", "sea_level"}`.
fn state_dict<'py>(py: Python<'py>, s: bozkir_recipe::State) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("dx", s.height.dx)?;
    d.set_item("dy", s.height.dy)?;
    d.set_item("sea_level", s.sea_level)?;
    d.set_item("seed", s.seed)?;
    let masks = PyDict::new(py);
    for (name, m) in s.masks {
        masks.set_item(name, grid_array(py, m)?)?;
    }
    d.set_item("masks", masks)?;
    d.set_item("height", grid_array(py, s.height)?)?;
    Ok(d)
}

/// Names of the built-in recipes (`ds2`, `ds2-rivers`, `island`) and of the 19 profiles.
#[pyfunction]
fn list_recipes() -> Vec<String> {
    bozkir_recipe::builtin::names()
}

/// Names of the 19 profiles of the original generator (`alpine`, `canyon`, …).
#[pyfunction]
fn list_profiles() -> Vec<&'static str> {
    bozkir_terrain::profiles::profile_names()
}

/// Run a recipe: a built-in name (`list_recipes()`) or the TOML text of one. `size`,
/// `cell_size` and `seed` replace the recipe's own (a smaller or larger size keeps its
/// extent unless `cell_size` is given, as `bozkir terrain --recipe` does). Returns
/// `{"height": (size, size) float64 array, row 0 north, "masks": {name: array}, "dx", "dy",
/// "sea_level", "seed"}`; the same heights as `bozkir terrain --recipe NAME --size … --seed …`.
#[pyfunction]
#[pyo3(signature = (recipe, size=None, cell_size=None, seed=None, until=None, progress=None))]
fn run_recipe<'py>(
    py: Python<'py>,
    recipe: &str,
    size: Option<usize>,
    cell_size: Option<f64>,
    seed: Option<u64>,
    until: Option<usize>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut r = recipe_of(recipe)?;
    if let Some(n) = until {
        let all = r.stages.len();
        if !(1..=all).contains(&n) {
            return Err(value_err(format!("until={n}: recipe {} has {all} stages (1..={all})", r.name)));
        }
        r.stages.truncate(n);
    }
    let size = size.unwrap_or(r.size);
    if !(8..=8192).contains(&size) {
        return Err(value_err(format!("size must be 8..=8192, got {size}")));
    }
    let cell = cell_size.unwrap_or(r.cell_size * r.size as f64 / size as f64);
    if !(cell.is_finite() && cell > 0.0) {
        return Err(value_err(format!("cell_size {cell}: must be a finite number above 0")));
    }
    let seed = seed.unwrap_or(r.seed);
    let state = run(py, progress, |p| bozkir_recipe::run(&r, size, cell, seed, p, |_| {}).map_err(value_err))?;
    state_dict(py, state)
}

/// What names a tiled world: recipe (a built-in name or TOML text), size, tile, halo, coarse
/// size, seed — the tuple ``bozkir.tiled`` hands every binding below.
type TiledSpec = (String, usize, usize, Option<usize>, Option<usize>, Option<u64>);

/// The tiled plan of a [`TiledSpec`].
fn plan_of(spec: &TiledSpec) -> PyResult<bozkir_recipe::tiled::TiledPlan> {
    let (recipe, size, tile, halo, coarse, seed) = spec;
    let r = recipe_of(recipe)?;
    let seed = seed.unwrap_or(r.seed);
    bozkir_recipe::tiled::TiledPlan::new(&r, *size, *tile, *halo, *coarse, None, seed).map_err(value_err)
}

/// Runs `f` (engine work without the GIL) on a pool of `threads` threads, or on the process's
/// pool when None: a Dask worker gives its own thread count, so tiles on a node's workers do
/// not each spread over every core.
fn on_threads<T: Send>(threads: Option<usize>, f: impl FnOnce() -> PyResult<T> + Send) -> PyResult<T> {
    match threads {
        None => f(),
        Some(0) => Err(value_err("threads must be at least 1")),
        Some(n) => rayon::ThreadPoolBuilder::new().num_threads(n).build().map_err(value_err)?.install(f),
    }
}

/// The plan of a tiled world (see ``bozkir.tiled``): a dict with ``recipe``, ``size``, ``tile``,
/// ``halo``, ``reach``, ``exact``, ``coarse``, ``coarse_cell``, ``factor``, ``cell``, ``tiles``
/// (columns, rows) and ``seed``. Refused with the reason: a recipe without exactly one
/// ``upsample`` stage, a stage after it that needs the whole field, a size that is not
/// ``(coarse − 1)·k + 1``.
#[pyfunction]
fn tiled_plan<'py>(py: Python<'py>, spec: TiledSpec) -> PyResult<Bound<'py, PyDict>> {
    let p = plan_of(&spec)?;
    let d = PyDict::new(py);
    d.set_item("recipe", &p.recipe.name)?;
    d.set_item("size", p.size)?;
    d.set_item("tile", p.tile)?;
    d.set_item("halo", p.halo)?;
    d.set_item("reach", p.reach)?;
    d.set_item("exact", p.exact())?;
    d.set_item("coarse", p.coarse)?;
    d.set_item("coarse_cell", p.coarse_cell)?;
    d.set_item("factor", p.factor)?;
    d.set_item("cell", p.cell)?;
    d.set_item("tiles", p.tiles())?;
    d.set_item("seed", p.seed)?;
    Ok(d)
}

/// The coarse pass of a tiled world: ``(coarse, coarse)`` float64 heights, row 0 north, on
/// ``threads`` threads (None: all).
#[pyfunction]
#[pyo3(signature = (spec, threads=None, progress=None))]
fn tiled_coarse<'py>(
    py: Python<'py>,
    spec: TiledSpec,
    threads: Option<usize>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let p = plan_of(&spec)?;
    let g = run(py, progress, |pr| {
        on_threads(threads, || p.coarse_pass(pr, &bozkir_terrain::kernels::Cpu).map_err(value_err))
    })?;
    grid_array(py, g)
}

/// Create the Zarr store of a tiled world at ``store``, or reopen it when it holds exactly this
/// world's metadata (a resumed run); any other existing path is refused (``ValueError``).
/// Returns the tiles whose chunks are already there. With ``resume``, the temporary files a
/// killed writer left beside the chunks are removed first (call it so only while nothing else
/// writes the store).
#[pyfunction]
#[pyo3(signature = (store, spec, resume=false))]
fn tiled_open(store: std::path::PathBuf, spec: TiledSpec, resume: bool) -> PyResult<Vec<(usize, usize)>> {
    let p = plan_of(&spec)?;
    let w = bozkir_pipeline::tiled::open_store(&p, &store).map_err(value_err)?;
    if resume {
        w.remove_temporaries().map_err(value_err)?;
    }
    let (nx, ny) = p.tiles();
    Ok((0..ny).flat_map(|ty| (0..nx).map(move |tx| (tx, ty))).filter(|&(x, y)| w.has_chunk(x, y)).collect())
}

/// Compute tile ``(tx, ty)`` of a tiled world from its coarse pass and write its chunk into the
/// store (opened with ``tiled_open``), on ``threads`` threads (None: all). The chunk's bytes
/// depend only on the plan, the coarse grid and the tile: writing it again (a retried task)
/// writes the same bytes, whatever the thread count.
#[pyfunction]
#[pyo3(signature = (store, coarse_heights, tx, ty, spec, threads=None))]
fn tiled_tile(
    py: Python<'_>,
    store: std::path::PathBuf,
    coarse_heights: PyReadonlyArray2<'_, f64>,
    tx: usize,
    ty: usize,
    spec: TiledSpec,
    threads: Option<usize>,
) -> PyResult<()> {
    let p = plan_of(&spec)?;
    let g = grid_of(&coarse_heights, (p.coarse_cell, p.coarse_cell), false)?;
    let w = bozkir_pipeline::tiled::open_store(&p, &store).map_err(value_err)?;
    run(py, None, |pr| {
        on_threads(threads, || {
            bozkir_pipeline::tiled::write_tile(&p, &g, &w, (tx, ty), &bozkir_terrain::kernels::Cpu, pr)
                .map_err(value_err)
        })
    })
}

/// A TOML value for a Python keyword argument (number, bool, string, or a list of them).
fn toml_value(v: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(b) = v.extract::<bool>() {
        return Ok(b.to_string());
    }
    if let Ok(i) = v.extract::<i64>() {
        return Ok(i.to_string());
    }
    if let Ok(f) = v.extract::<f64>() {
        if !f.is_finite() {
            return Err(value_err(format!("{f} is not a finite number")));
        }
        return Ok(format!("{f:?}"));
    }
    if let Ok(s) = v.extract::<String>() {
        return Ok(serde_json::Value::String(s).to_string());
    }
    if let Ok(l) = v.cast::<PyList>() {
        let items: PyResult<Vec<String>> = l.iter().map(|x| toml_value(&x)).collect();
        return Ok(format!("[{}]", items?.join(", ")));
    }
    Err(value_err(format!("a parameter value must be a number, bool, string or list, not {}", v.get_type().name()?)))
}

/// Apply one recipe stage (`op`: `stream_power`, `droplets`, `thermal`, `shallow_water`,
/// `noise`, `terrace`, … with its parameters as keyword arguments, exactly as in a recipe's
/// `[[stage]]` table) to a height field. Returns the same dictionary as `run_recipe`: the new
/// heights and the masks the stage recorded (sediment, wear, deposit, …). The input is not
/// changed.
#[pyfunction]
#[pyo3(signature = (height, op, cell_size=None, seed=0, progress=None, **params))]
fn apply<'py>(
    py: Python<'py>,
    height: PyReadonlyArray2<'py, f64>,
    op: &str,
    cell_size: Option<Bound<'py, PyAny>>,
    seed: u64,
    progress: Option<Bound<'py, PyAny>>,
    params: Option<Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let (dx, dy) = self::cell_size(cell_size.as_ref())?;
    let grid = grid_of(&height, (dx, dy), false)?;
    let mut text = format!(
        "format = 1\nname = \"python\"\nsize = {}\ncell_size = {dx:?}\nseed = {seed}\n\n[[stage]]\nop = {}\n",
        grid.width().max(grid.height()),
        serde_json::Value::String(op.to_string())
    );
    if let Some(p) = params {
        for (k, v) in p.iter() {
            let key: String = k.extract()?;
            if !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(value_err(format!("parameter name {key:?}: letters, digits and _ only")));
            }
            text.push_str(&format!("{key} = {}\n", toml_value(&v)?));
        }
    }
    let recipe = bozkir_recipe::parse(&text, "python").map_err(value_err)?;
    let stage = recipe.stages.into_iter().next().ok_or_else(|| value_err("no stage"))?;
    let mut state = bozkir_recipe::State::new(1, dx, seed);
    state.height = grid;
    let state = run(py, progress, move |p| {
        bozkir_recipe::apply(&stage.op, 1, &mut state, p).map_err(|e| value_err(format!("stage {op}: {e}")))?;
        Ok(state)
    })?;
    state_dict(py, state)
}

/// Stream-power erosion of a height field as `bozkir erode` runs it (Braun & Willett 2013,
/// implicit; the field is ε-filled once first): `steps` steps of `dt` years with incision
/// coefficient `k`, area exponent `m`, uplift `uplift` m/yr on interior cells and hillslope
/// diffusion `diffusion` m²/yr; borders fixed. Returns `{"height", "eroded" (cumulative
/// incision, m), "sediment" (deposited-sediment proxy, m), "steps_run"}`; the heights are those
/// of `bozkir erode … --steps S --k K …`'s `height.tif`. Parameters out of range are refused
/// with `erode`'s messages (`--steps must be 1..=1000000`, …).
#[pyfunction]
#[pyo3(signature = (height, cell_size=None, steps=100, k=1e-5, m=0.5, uplift=0.0, diffusion=0.01, dt=1000.0, area_cap=None, area_floor=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn erode<'py>(
    py: Python<'py>,
    height: PyReadonlyArray2<'py, f64>,
    cell_size: Option<Bound<'py, PyAny>>,
    steps: usize,
    k: f64,
    m: f64,
    uplift: f64,
    diffusion: f64,
    dt: f64,
    area_cap: Option<f64>,
    area_floor: Option<f64>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    use bozkir_terrain::erosion::stream_power::{stream_power, StreamPowerParams};
    if steps == 0 || steps > 1_000_000 {
        return Err(value_err(format!("--steps must be 1..=1000000, got {steps}")));
    }
    let p = StreamPowerParams {
        k,
        m,
        dt,
        steps,
        uplift,
        uplift_map: None,
        kappa: diffusion,
        area_cap,
        area_floor,
        guards: true,
    };
    p.validate().map_err(|e| value_err(e.message))?;
    let g = grid_of(&height, self::cell_size(cell_size.as_ref())?, false)?;
    let out = run(py, progress, |pr| Ok(stream_power(&g, &p, pr)))?;
    let d = PyDict::new(py);
    d.set_item("steps_run", out.steps_run)?;
    d.set_item("eroded", grid_array(py, out.eroded)?)?;
    d.set_item("sediment", grid_array(py, out.sediment)?)?;
    d.set_item("height", grid_array(py, out.height)?)?;
    Ok(d)
}

/// Hydrology and landform maps of a height field, as `bozkir analyze` makes them (the ε-fill
/// first; NaN cells are voids and act as outlets): `{"filled": ε-filled heights,
/// "lake_depth": filled minus original, "receivers": D8 receiver index per cell (itself at outlets),
/// "accumulation": drained cells, "streams": 0/1, "strahler": order, "watersheds": basin id,
/// "slope": rise over run, "tpi": metres, "landform": Weiss class codes, "sky_view": 0..1}`, each
/// only when `outputs` asks for it (names as `bozkir analyze --outputs`; default all).
#[pyfunction]
#[pyo3(signature = (height, cell_size=None, outputs="all", progress=None))]
fn analyze<'py>(
    py: Python<'py>,
    height: PyReadonlyArray2<'py, f64>,
    cell_size: Option<Bound<'py, PyAny>>,
    outputs: &str,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    use bozkir_pipeline::analysis::{analyse, check_analysis, AnalysisOptions, Output, Outputs};
    let cs = self::cell_size(cell_size.as_ref())?;
    let g = grid_of(&height, cs, true)?;
    if !g.data().iter().any(|v| v.is_finite()) {
        return Err(value_err("height field: no finite value"));
    }
    let outs = Outputs::parse(outputs).map_err(value_err)?;
    let options = AnalysisOptions { outputs: outs, ..AnalysisOptions::default() };
    check_analysis(g.width(), g.height(), g.dx, g.dy, &options).map_err(value_err)?;
    let (w, h) = (g.width(), g.height());
    // As `bozkir analyze` does: the ε-fill first (voids stay voids and act as outlets), then
    // every map of the filled surface.
    let (an, filled, lakes) = run(py, progress, |p| {
        p.step("fill");
        let filled = bozkir_terrain::hydrology::priority_flood::fill_epsilon(&g);
        let lakes = bozkir_terrain::hydrology::fill_depth::fill_depth(&g, &filled);
        Ok((analyse(&filled, &options, p), filled, lakes))
    })?;
    let d = PyDict::new(py);
    if outs.has(Output::Filled) {
        d.set_item("filled", grid_array(py, filled)?)?;
        d.set_item("lake_depth", grid_array(py, lakes)?)?;
    }
    if let Some(dr) = an.drainage {
        d.set_item("receivers", array_of(py, w, h, dr.graph.receivers)?)?;
        d.set_item("accumulation", array_of(py, w, h, dr.acc)?)?;
        d.set_item("streams", array_of(py, w, h, dr.streams.mask.iter().map(|&b| u8::from(b)).collect())?)?;
        if dr.streams.order.len() == w * h {
            d.set_item("strahler", array_of(py, w, h, dr.streams.order)?)?;
        }
        d.set_item("watersheds", array_of(py, w, h, dr.watersheds.labels)?)?;
    }
    for (name, m) in [("slope", an.slope), ("tpi", an.tpi), ("sky_view", an.sky_view)] {
        if let Some(m) = m {
            d.set_item(name, grid_array(py, m)?)?;
        }
    }
    if let Some(l) = an.landform {
        d.set_item("landform", array_of(py, w, h, l.into_vec())?)?;
    }
    Ok(d)
}

/// Read a DEM (GeoTIFF, NPZ, NetCDF, a Zarr store or a height PNG) as `{"height": float64
/// array (NaN at voids, row 0 north), "dx", "dy" (metres), "crs" (e.g. "EPSG:4326" or None),
/// "transform": (x0, sx, 0, y0, 0, -sy) GDAL-style or None, "nodata"}`.
#[pyfunction]
fn read_dem<'py>(py: Python<'py>, path: std::path::PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let dem = py.detach(|| bozkir_io::read_dem(&path)).map_err(io_err)?;
    let d = PyDict::new(py);
    d.set_item("dx", dem.heights.dx)?;
    d.set_item("dy", dem.heights.dy)?;
    let geo = dem.output_georef();
    let crs = geo.as_ref().and_then(|g| match &g.crs {
        bozkir_io::Crs::Epsg { code, .. } => Some(format!("EPSG:{code}")),
        bozkir_io::Crs::Unknown => None,
        other => Some(other.name()),
    });
    d.set_item("crs", crs)?;
    d.set_item("transform", geo.map(|g| (g.transform.x0, g.transform.sx, 0.0, g.transform.y0, 0.0, -g.transform.sy)))?;
    d.set_item("nodata", dem.nodata)?;
    d.set_item("height", grid_array(py, dem.heights)?)?;
    Ok(d)
}

/// Write a float32 GeoTIFF of a height field (NaN stays the no-data value), placed in `crs`
/// (`"EPSG:n"`, or None for bozkir's local metre frame) with its south-west corner at
/// `origin`; the same file `bozkir terrain` writes as `height.tif`. Written atomically.
#[pyfunction]
#[pyo3(signature = (path, height, cell_size=None, crs=None, origin=(0.0, 0.0)))]
fn write_geotiff<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    height: PyReadonlyArray2<'py, f64>,
    cell_size: Option<Bound<'py, PyAny>>,
    crs: Option<&str>,
    origin: (f64, f64),
) -> PyResult<()> {
    let g = grid_of(&height, self::cell_size(cell_size.as_ref())?, true)?;
    geotiff_of_grid(py, &path, &g, crs, origin)
}

/// [`write_geotiff`] of a grid already taken from Python.
fn geotiff_of_grid(
    py: Python<'_>,
    path: &std::path::Path,
    g: &Grid<f64>,
    crs: Option<&str>,
    origin: (f64, f64),
) -> PyResult<()> {
    let crs = match crs {
        Some(c) => bozkir_io::Crs::parse(c).map_err(value_err)?,
        None => bozkir_io::Crs::Local,
    };
    let place =
        bozkir_pipeline::folder::Placement::generated(crs, origin, g.height(), g.dx, g.dy).map_err(value_err)?;
    let geo = place.georef.expect("a generated placement has a georeference");
    let f32s = g.map(|&v| v as f32);
    py.detach(|| bozkir_io::write_geotiff_f32(path, &f32s, &geo)).map_err(io_err)
}

/// Write a height field by the file's extension: `.tif`/`.tiff` (float32 GeoTIFF, as
/// `write_geotiff`), `.rg16.png` (the viewer's two-channel 16-bit PNG), `.png` (16-bit
/// greyscale) or `.r16` (raw little-endian 16-bit, Unity's layout), the 16-bit ones quantised
/// over `lo..hi` (default: the field's own range), as `bozkir terrain` writes them. Returns
/// `(lo, hi)`, the heights codes 0 and 65535 stand for. Written atomically.
#[pyfunction]
#[pyo3(signature = (path, height, cell_size=None, lo=None, hi=None, crs=None, origin=(0.0, 0.0)))]
#[allow(clippy::too_many_arguments)]
fn write_height<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    height: PyReadonlyArray2<'py, f64>,
    cell_size: Option<Bound<'py, PyAny>>,
    lo: Option<f64>,
    hi: Option<f64>,
    crs: Option<&str>,
    origin: (f64, f64),
) -> PyResult<(f64, f64)> {
    let name = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    let tiff = name.ends_with(".tif") || name.ends_with(".tiff");
    // Voids are allowed only in the GeoTIFF (the 16-bit formats have no code for them).
    let g = grid_of(&height, self::cell_size(cell_size.as_ref())?, tiff)?;
    let (a, b) = g.min_max().ok_or_else(|| value_err("height field: no finite value"))?;
    if tiff {
        geotiff_of_grid(py, &path, &g, crs, origin)?;
        return Ok((a, b));
    }
    let (lo, hi) = (lo.unwrap_or(a), hi.unwrap_or(b));
    py.detach(|| {
        if name.ends_with(".rg16.png") {
            bozkir_io::write_rg16(&path, &g, lo, hi)
        } else if name.ends_with(".png") {
            bozkir_io::write_png16(&path, &g, lo, hi)
        } else if name.ends_with(".r16") {
            bozkir_io::write_r16(&path, &g, lo, hi)
        } else {
            Err(bozkir_io::IoError::unsupported(&path, "height file extension (use .tif, .png, .rg16.png or .r16)"))
        }
    })
    .map_err(io_err)?;
    Ok((lo, hi))
}

/// Read a point cloud (LAS, LAZ or PLY) as `{"xyz": (N, 3) float64, "classification": (N,)
/// uint8 or None, "rgb": (N, 3) uint16 or None}` (coordinates as stored, in the file's units).
#[pyfunction]
fn read_points<'py>(py: Python<'py>, path: std::path::PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let ext = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    let d = PyDict::new(py);
    let (xyz, class, rgb) = match ext.as_str() {
        "las" | "laz" => {
            let p = py.detach(|| bozkir_io::read_las(&path)).map_err(io_err)?;
            (p.xyz, Some(p.classification), p.rgb)
        }
        "ply" => (py.detach(|| bozkir_io::read_ply_points(&path)).map_err(io_err)?, None, None),
        other => {
            return Err(value_err(format!(
                "{}: point cloud extension {other:?} (use .las, .laz or .ply)",
                path.display()
            )))
        }
    };
    let n = xyz.len();
    let flat: Vec<f64> = xyz.into_iter().flatten().collect();
    d.set_item("xyz", array_of(py, 3, n, flat)?)?;
    match class {
        Some(c) => d.set_item("classification", numpy::PyArray1::from_vec(py, c))?,
        None => d.set_item("classification", py.None())?,
    }
    match rgb {
        Some(c) => d.set_item("rgb", array_of(py, 3, n, c.into_iter().flatten().collect())?)?,
        None => d.set_item("rgb", py.None())?,
    }
    Ok(d)
}

/// pyworldgen's generator names and whether this build has each: `[(name, available,
/// description)]` (the package's `list_generators()` and `get_info()` read it).
#[pyfunction]
fn generator_table() -> Vec<(&'static str, bool, &'static str)> {
    bozkir_world::product::GENERATORS.iter().map(|g| (g.name, g.available, g.description)).collect()
}

/// A world by pyworldgen's generator name and call shape (the package's `generate()` wraps it
/// in a `World`): `generate("landscape", seed="rhine", domain_size=[200, 150],
/// resolution=1.0)`. Returns `{"height", "water_depth"}` as (ny, nx)
/// float64 arrays with row 0 at the south edge (pyworldgen's layout), `"dx"`, `"dy"`, the
/// counts of `"roads"`, `"rivers"` and `"trees"`, and `"colour"` (ny, nx, 3) uint8 when the
/// generator colours its ground. Height-field generators only (not `voxels`/`implicit_cave`).
#[pyfunction]
#[pyo3(signature = (name, seed="0", progress=None, **params))]
fn generate<'py>(
    py: Python<'py>,
    name: &str,
    seed: &str,
    progress: Option<Bound<'py, PyAny>>,
    params: Option<Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    use bozkir_world::product::WorldSpec;
    use bozkir_world::{Compat, Seed};
    let mut overrides = serde_json::Map::new();
    if let Some(p) = params {
        let json = py.import("json")?;
        for (k, v) in p.iter() {
            let text: String = json.call_method1("dumps", (v,))?.extract()?;
            let value: serde_json::Value = serde_json::from_str(&text).map_err(value_err)?;
            overrides.insert(k.extract::<String>()?, value);
        }
    }
    if bozkir_world::product::is_volume(name) {
        return Err(value_err(format!("generate({name:?}): a voxel world; use the CLI (`bozkir world {name}`)")));
    }
    let spec = WorldSpec::resolve(name, Seed::parse(seed), Compat::Pyworldgen, &overrides).map_err(value_err)?;
    let req = bozkir_pipeline::world::WorldRequest { spec: spec.clone(), base: None };
    let (nx, ny) = bozkir_pipeline::world::check_request(&req).map_err(value_err)?;
    let product = run(py, progress, |_| {
        let res = spec.parameters.get("resolution").and_then(serde_json::Value::as_f64).unwrap_or(1.0);
        let seed_text = spec.seed.to_string();
        let p = spec
            .generate_with(&mut |n| bozkir_pipeline::world::palette_terrain(n, (nx, ny), res, &seed_text))
            .map_err(value_err)?;
        p.check().map_err(value_err)?;
        Ok(p)
    })?;
    let g = product.grid;
    let d = PyDict::new(py);
    d.set_item("dx", g.dx)?;
    d.set_item("dy", g.dy)?;
    d.set_item("roads", product.roads.len())?;
    d.set_item("rivers", product.rivers.len())?;
    d.set_item("trees", product.trees.len())?;
    if let Some(c) = product.colour {
        let flat: Vec<u8> = c.iter().flatten().copied().collect();
        let a = numpy::ndarray::Array3::from_shape_vec((g.ny, g.nx, 3), flat).map_err(value_err)?;
        d.set_item("colour", a.into_pyarray(py))?;
    }
    d.set_item("height", array_of(py, g.nx, g.ny, g.height)?)?;
    d.set_item("water_depth", array_of(py, g.nx, g.ny, g.water_depth)?)?;
    Ok(d)
}

/// The `bozkir._bozkir` module.
#[pymodule]
fn _bozkir(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(list_recipes, m)?)?;
    m.add_function(wrap_pyfunction!(list_profiles, m)?)?;
    m.add_function(wrap_pyfunction!(run_recipe, m)?)?;
    m.add_function(wrap_pyfunction!(apply, m)?)?;
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    m.add_function(wrap_pyfunction!(erode, m)?)?;
    m.add_function(wrap_pyfunction!(read_dem, m)?)?;
    m.add_function(wrap_pyfunction!(write_geotiff, m)?)?;
    m.add_function(wrap_pyfunction!(write_height, m)?)?;
    m.add_function(wrap_pyfunction!(read_points, m)?)?;
    m.add_function(wrap_pyfunction!(generator_table, m)?)?;
    m.add_function(wrap_pyfunction!(generate, m)?)?;
    m.add_function(wrap_pyfunction!(tiled_plan, m)?)?;
    m.add_function(wrap_pyfunction!(tiled_coarse, m)?)?;
    m.add_function(wrap_pyfunction!(tiled_open, m)?)?;
    m.add_function(wrap_pyfunction!(tiled_tile, m)?)?;
    Ok(())
}

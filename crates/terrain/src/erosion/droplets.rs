//! Droplet (particle) hydraulic erosion with a defined, thread-count-independent parallel semantics.
//!
//! Sources: H. T. Beyer (2015), "Implementation of a method for hydraulic erosion", bachelor's
//! thesis, TU München; S. Lague's formulation of the same loop (Coding Adventure: Hydraulic
//! Erosion, 2019). Seed 001 §4.1 lists the loop, the parameters and the pitfalls followed here.
//!
//! # One droplet
//!
//! A droplet starts at a uniformly random position (cell units, `x ∈ [0, w−1)`, `y ∈ [0, h−1)`)
//! with zero direction, `initial_water` and `initial_speed` and no sediment. Droplet `k` draws
//! its start from `Rng::new(seed).split(k)` (`x = range(0, w−1)`, then `y = range(0, h−1)`), so
//! a seed names the result. Each step, at position `p` (cell units):
//!
//! 1. Bilinear height `h(p)` and gradient `g = (∂h/∂x / dx, ∂h/∂y / dy)` in m/m (so non-square
//!    cells are honoured).
//! 2. `dir ← dir·inertia − g·(1 − inertia)` (a direction in metre space), normalised; a zero
//!    direction ends the droplet.
//! 3. The droplet moves `ℓ = min(dx, dy)` metres along `dir`: `p' = p + (dir_x·ℓ/dx, dir_y·ℓ/dy)`
//!    (one cell per step on square cells). Leaving `[0, w−1) × [0, h−1)` ends the droplet.
//! 4. `Δh = h(p') − h(p)` (m, bilinear). Capacity (m) `C = max(−Δh, min_slope·ℓ)·speed·water·capacity`
//!    — Beyer's formula with the slope floor turned into a height drop over the step.
//! 5. If `sediment > C` or `Δh > 0`: deposit `d = min(Δh, sediment)` uphill, else
//!    `(sediment − C)·deposit`, bilinearly onto the four corners of the cell holding `p`.
//!    Otherwise erode `e = min((C − sediment)·erode, −Δh)` — never more than the drop to the next
//!    position — with a radius brush centred on the node nearest to `p`: weights `∝ r − d` for
//!    cells at distance `d < r` (`d` in metres divided by `ℓ`, so `radius` is in cells of the
//!    shorter side), normalised over the cells inside the grid.
//! 6. `speed ← sqrt(max(0, speed² − gravity·Δh/ℓ))`, `water ← water·(1 − evaporation)`.
//!
//! The droplet lives at most `lifetime` steps; sediment it still carries when it dies or leaves
//! the map is *lost* (counted in [`DropletStats::carried_lost`], not put back).
//!
//! All lengths in the update are relative to `ℓ`, so scaling heights *and* cell size by the same
//! factor scales the result by that factor; with `dx = dy = 1` it is Beyer's loop verbatim (with
//! the speed update's sign as in the thesis: speed grows going downhill).
//!
//! # Fixed point
//!
//! Every height change is quantised to integer units of [`FIXED_UNIT`] `= 2⁻²⁰ m` (≈ 0.95 µm)
//! *per individual contribution*: an erosion total `E = floor(e·2²⁰)` is split over the brush as
//! `round(E·wᵢ)` per cell with the remainder going to the centre node, so the cells receive exactly
//! `E`; a deposit `D = min(floor(d·2²⁰), sediment units)` is split over the four corners likewise
//! (remainder to the corner of largest weight). The droplet carries its sediment as an integer
//! count of units, so per droplet `Σ eroded = Σ deposited + carried at death` holds *exactly*, and
//! so does the whole run's mass balance. Sums of integers are exact in any order, which is what
//! makes the parallel result independent of scheduling. The CPU accumulates in `i64` (cumulative
//! range ±2⁴³ m); a GPU port accumulates the same contributions with `i32` atomics per batch
//! ([`FIXED_SCALE_I32`] is the same scale), which holds while no cell changes by more than
//! ±2048 m within one batch. Heights are `h = h₀ + (Σ deposit − Σ erosion)·2⁻²⁰` with the integer
//! sums taken over the whole run (one rounding per cell, exact while `|Σ| < 2⁵³` units).
//!
//! # Modes and determinism
//!
//! * [`DropletMode::Batched`] (default): droplets run in batches of `batch_size` (in index order:
//!   batch `b` holds droplets `b·B .. (b+1)·B`) against a *frozen* snapshot of the heights; a
//!   droplet does not see the changes of the others in its batch, nor its own. After the batch
//!   the integer deltas are applied and the next batch runs. Droplets of a batch run in parallel
//!   with rayon; their integer contributions are summed after the batch, so the output is
//!   bit-identical for any thread count (and equal to what a GPU kernel with
//!   `i32` atomics computes, up to its `f32` heights).
//! * [`DropletMode::Sequential`]: the classic loop, single-threaded; each droplet sees all
//!   changes made before it, its own included (the same fixed-point contributions, applied at
//!   once).
//!
//! Batch size and stability: droplets of a batch do not see each other, so `n` droplets crossing
//! one valley cell in a batch each take up to the drop the snapshot shows, and together can
//! over-dig (or over-fill a pit) by up to `n` times; strong parameters then feed back into
//! runaway holes and spikes. Keep `batch_size` small against the number of cells (the default
//! 1024 is 0.4 % of 512²) and the per-droplet strength moderate (the defaults); the sequential
//! mode has no such effect. The batch actually used is capped at 1/64 of the cell count
//! ([`effective_batch`]), so a small grid is never swamped by one batch.
//!
//! Implementation: in the batched mode a droplet only reads the snapshot, so the droplets of a
//! batch (split into contiguous chunks run by rayon) just record their erosions (brush centre,
//! total) and deposits (corner, four amounts), a few droplets of a chunk stepped in lockstep so
//! their dependent chains overlap (the records' order is then mixed, which nothing depends on),
//! filed by buckets of about 8k cells' rows; after the batch, one rayon task per band of rows
//! applies every recorded contribution that falls in its band to the run totals, bucket by
//! bucket (so the cells it adds to stay in cache), the brush row by row without tests, and
//! recomputes the height of each cell reached once, from the run totals, as soon as no later
//! bucket can reach it. Integer sums are order-free, so neither split changes a bit. (Recomputing
//! a height once per batch instead of at each contribution, and over whole row spans, gives the
//! same bits because `h₀ + 0.0` is `h₀`; for a grid holding `−0.0` or a signalling NaN, where it
//! is not, the batched mode recomputes at each contribution instead.) Memory: besides the three
//! `i64` run totals, the contribution lists of one batch (about 16–40 bytes per step) and no
//! per-thread grids.

use bozkir_core::rng::Rng;
use bozkir_core::{Grid, Progress};
use rayon::prelude::*;

/// Fractional bits of the fixed-point height unit.
pub const FIXED_FRAC_BITS: u32 = 20;
/// Fixed-point units per metre (`2²⁰`), used by the CPU (`i64` sums).
pub const FIXED_SCALE: f64 = (1u64 << FIXED_FRAC_BITS) as f64;
/// Fixed-point units per metre of the GPU path's `i32` atomics: the same quantisation as the CPU.
pub const FIXED_SCALE_I32: f64 = FIXED_SCALE;
/// One fixed-point unit in metres (`2⁻²⁰ m`).
pub const FIXED_UNIT: f64 = 1.0 / FIXED_SCALE;

/// How many droplets to run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DropletCount {
    /// Exactly this many.
    Total(u32),
    /// `round(per_cell · width · height)`.
    PerCell(f64),
}

/// How droplets see each other's changes; see the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DropletMode {
    /// Batches against a frozen snapshot, parallel, thread-count independent.
    #[default]
    Batched,
    /// One droplet after another, each seeing all earlier changes; single-threaded.
    Sequential,
}

/// Parameters of [`erode_droplets`] (Beyer's names in brackets).
#[derive(Debug, Clone, PartialEq)]
pub struct DropletParams {
    /// Number of droplets. Default `PerCell(0.5)` (≈ 131k on 512², within seed 001's 30k–150k).
    pub droplets: DropletCount,
    /// Maximum steps per droplet (`maxPath`). Default `30`.
    pub lifetime: u32,
    /// Inertia, 0..1: 0 follows the gradient exactly, near 1 keeps the direction (`pInertia`).
    /// Default `0.05`.
    pub inertia: f64,
    /// Sediment capacity factor, dimensionless (capacity in metres is the drop per step times
    /// speed, water and this) (`pCapacity`). Default `1` (see [`DropletParams::default`]).
    pub capacity: f64,
    /// Capacity floor as a slope, m/m: the drop per step used in the capacity is at least
    /// `min_slope·ℓ` (`pMinSlope`). Default `0.01`.
    pub min_slope: f64,
    /// Fraction of the free capacity eroded per step, 0..1 (`pErosion`). Default `0.1`.
    pub erode: f64,
    /// Fraction of the surplus sediment deposited per step, 0..1 (`pDeposition`). Default `0.3`.
    pub deposit: f64,
    /// Fraction of water evaporated per step, 0..1 (`pEvaporation`). Default `0.01`.
    pub evaporation: f64,
    /// Gravity: `speed² ← speed² − gravity·Δh/ℓ` (speed in arbitrary units) (`pGravity`). Default `1`.
    pub gravity: f64,
    /// Initial water volume, arbitrary units. Default `1`.
    pub initial_water: f64,
    /// Initial speed. Default `1`.
    pub initial_speed: f64,
    /// Erosion brush radius in cells (of the shorter side), `> 0`; `≤ 1` erodes the centre node
    /// only (`pRadius`). Default `3`.
    pub radius: f64,
    /// Seed of the droplet starts.
    pub seed: u32,
    /// Droplets per batch in [`DropletMode::Batched`] (part of the result's definition, not a
    /// tuning knob for the thread count). Capped at 1/64 of the cell count (see
    /// [`effective_batch`]). Default `1024`.
    pub batch_size: u32,
    /// Batched (default) or sequential.
    pub mode: DropletMode,
    /// Sea level (m): ground below it is under the sea. A droplet starting there does nothing;
    /// one stepping into it ends there, its sediment lost to the sea as when it leaves the map.
    /// `None` (default): no sea. The GPU path declines a run with a sea level (the CPU runs it).
    pub sea_level: Option<f64>,
}

/// The most droplets per cell [`DropletParams::validate`] allows (a thousand droplets on every
/// cell is far past where more changes the ground; it bounds the run time).
pub const MAX_PER_CELL: f64 = 1000.0;

/// Beyer's values except `capacity`, `erode` and `gravity` (his 4, 0.3 and 4 were tuned for
/// heights normalised to `[0, 1]`, i.e. slopes of a few thousandths; on metre heights with slopes
/// of 0.1–1 they dig runaway holes and spikes, sequentially and much more so in batches).
impl Default for DropletParams {
    fn default() -> Self {
        Self {
            droplets: DropletCount::PerCell(0.5),
            lifetime: 30,
            inertia: 0.05,
            capacity: 1.0,
            min_slope: 0.01,
            erode: 0.1,
            deposit: 0.3,
            evaporation: 0.01,
            gravity: 1.0,
            initial_water: 1.0,
            initial_speed: 1.0,
            radius: 3.0,
            seed: 0,
            batch_size: 1024,
            mode: DropletMode::Batched,
            sea_level: None,
        }
    }
}

impl DropletParams {
    /// Checks ranges; `Err` names the first bad parameter, its value and its range:
    /// `inertia`, `erode`, `deposit` and `evaporation` in `[0, 1]`; `capacity`, `min_slope`,
    /// `gravity`, `initial_water` and `initial_speed` finite and ≥ 0; `radius` in `(0, 64]`
    /// cells; `batch_size` at least 1; droplets per cell (`per_cell`) in
    /// `[0, `[`MAX_PER_CELL`]`]`. The recipe's `droplets` stage checks through this.
    pub fn validate(&self) -> Result<(), crate::ParamError> {
        use crate::ParamError as E;
        let unit = |name: &'static str, v: f64| {
            if (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                Err(E::new(name, format!("droplets: {name} must be in [0, 1], got {v}")))
            }
        };
        let nonneg = |name: &'static str, v: f64| {
            if v >= 0.0 && v.is_finite() {
                Ok(())
            } else {
                Err(E::new(name, format!("droplets: {name} must be finite and >= 0, got {v}")))
            }
        };
        unit("inertia", self.inertia)?;
        unit("erode", self.erode)?;
        unit("deposit", self.deposit)?;
        unit("evaporation", self.evaporation)?;
        nonneg("capacity", self.capacity)?;
        nonneg("min_slope", self.min_slope)?;
        nonneg("gravity", self.gravity)?;
        nonneg("initial_water", self.initial_water)?;
        nonneg("initial_speed", self.initial_speed)?;
        if !(self.radius > 0.0 && self.radius <= 64.0) {
            return Err(E::new("radius", format!("droplets: radius must be in (0, 64] cells, got {}", self.radius)));
        }
        if self.batch_size == 0 {
            return Err(E::new("batch_size", "droplets: batch_size must be >= 1"));
        }
        if let Some(sea) = self.sea_level {
            if !sea.is_finite() {
                return Err(E::new("sea_level", format!("droplets: sea_level must be finite, got {sea}")));
            }
        }
        if let DropletCount::PerCell(p) = self.droplets {
            if !(0.0..=MAX_PER_CELL).contains(&p) {
                return Err(E::new(
                    "per_cell",
                    format!("droplets: per_cell (droplets per cell) must be in [0, {MAX_PER_CELL}], got {p}"),
                ));
            }
        }
        Ok(())
    }

    /// The number of droplets on a `w × h` grid (saturating at `u32::MAX`).
    pub fn droplet_count(&self, w: usize, h: usize) -> u32 {
        match self.droplets {
            DropletCount::Total(n) => n,
            DropletCount::PerCell(p) => (p * (w * h) as f64).round().min(u32::MAX as f64) as u32,
        }
    }
}

/// Run totals of [`erode_droplets`]. The `*_units` are the exact fixed-point sums
/// (`eroded_units == deposited_units + lost_units` always); the metre figures are them times
/// [`FIXED_UNIT`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DropletStats {
    /// Droplets run (fewer than asked when cancelled).
    pub droplets: u64,
    /// Steps (moves) made by all droplets.
    pub steps_total: u64,
    /// Total eroded, m (summed over cells; multiply by `dx·dy` for m³).
    pub eroded_total: f64,
    /// Total deposited, m.
    pub deposited_total: f64,
    /// Sediment still carried when droplets died or left the map, m.
    pub carried_lost: f64,
    /// `eroded_total` in fixed-point units.
    pub eroded_units: i64,
    /// `deposited_total` in fixed-point units.
    pub deposited_units: i64,
    /// `carried_lost` in fixed-point units.
    pub lost_units: i64,
}

/// Result of [`erode_droplets`].
#[derive(Debug, Clone, PartialEq)]
pub struct DropletOutput {
    /// Final heights, m.
    pub height: Grid<f64>,
    /// Total erosion per cell, m (≥ 0).
    pub wear: Grid<f64>,
    /// Total deposition per cell, m (≥ 0).
    pub deposit: Grid<f64>,
    /// Run totals.
    pub stats: DropletStats,
}

/// One step of a traced droplet ([`trace_droplet`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DropletStep {
    /// Position before the step, cell units (x, y).
    pub from: (f64, f64),
    /// Position after the step.
    pub to: (f64, f64),
    /// Bilinear height at `from`, m.
    pub h_from: f64,
    /// Bilinear height at `to`, m.
    pub h_to: f64,
    /// Capacity of this step, m.
    pub capacity: f64,
    /// Sediment carried before the step, m.
    pub sediment_before: f64,
    /// Sediment carried after the step, m.
    pub sediment_after: f64,
    /// Eroded this step, m (quantised; ≤ `h_from − h_to`).
    pub eroded: f64,
    /// Deposited this step, m (quantised).
    pub deposited: f64,
    /// Speed after the step.
    pub speed: f64,
    /// Water after the step.
    pub water: f64,
}

/// Where a droplet reads heights and sends its fixed-point contributions.
trait Sink {
    /// The heights do not change while the droplet runs (the batched mode's snapshot).
    const FROZEN: bool;
    fn height(&self, i: usize) -> f64;
    /// Erodes `total > 0` units with the brush centred on node (cx, cy).
    fn erode(&mut self, ctx: &Ctx, cx: usize, cy: usize, total: i64);
    /// Deposits the four corner amounts `q` on the cell whose lower corner is `i`.
    fn deposit(&mut self, ctx: &Ctx, i: usize, q: [i64; 4]);
}

/// Precomputed grid geometry and brush shared by all droplets.
struct Ctx<'a> {
    p: &'a DropletParams,
    w: usize,
    h: usize,
    dx: f64,
    dy: f64,
    /// Step length ℓ = min(dx, dy), m.
    step: f64,
    /// Brush half-extent in cells, x and y.
    rx: isize,
    ry: isize,
    /// Brush cells (offset x, offset y, linear offset, normalised weight); the centre is last.
    brush: Vec<(isize, isize, isize, f64)>,
    /// Linear offsets and weights of the brush cells but the centre (interior path with the
    /// `q ≠ 0` test, for grids that are not [`plain`]).
    brush_off: Vec<isize>,
    brush_wt: Vec<f64>,
    /// The brush but the centre as rows of contiguous cells (interior branch-free path): each
    /// row's weights are `row_wt[start .. start + len]` for `ox = ox0 ..`; cells of the bounding
    /// interval outside the brush, and the centre, have weight 0 (so get `q = 0`).
    rows: Vec<BrushRow>,
    row_wt: Vec<f64>,
    /// The batched mode files its records by buckets of `2^shift` rows (`y >> shift`), about
    /// [`BUCKET_CELLS`] cells each, and applies them bucket by bucket (cache locality).
    shift: u32,
    buckets: usize,
}

/// Cells per bucket of rows in [`Ctx::shift`] (about 64 KiB of each `i64` total).
const BUCKET_CELLS: usize = 8192;

/// One row of [`Ctx::rows`].
struct BrushRow {
    oy: isize,
    ox0: isize,
    start: usize,
    len: usize,
}

impl<'a> Ctx<'a> {
    fn new(grid: &Grid<f64>, p: &'a DropletParams) -> Self {
        let (w, h) = (grid.width(), grid.height());
        let (dx, dy) = (grid.dx, grid.dy);
        let step = dx.min(dy);
        let rx = (p.radius * step / dx).ceil() as isize;
        let ry = (p.radius * step / dy).ceil() as isize;
        let mut brush = Vec::new();
        for oy in -ry..=ry {
            for ox in -rx..=rx {
                if ox == 0 && oy == 0 {
                    continue;
                }
                let d = ((ox as f64 * dx).powi(2) + (oy as f64 * dy).powi(2)).sqrt() / step;
                if d < p.radius {
                    brush.push((ox, oy, oy * w as isize + ox, p.radius - d));
                }
            }
        }
        brush.push((0, 0, 0, p.radius));
        let total: f64 = brush.iter().map(|b| b.3).sum();
        for b in &mut brush {
            b.3 /= total;
        }
        let n = brush.len() - 1;
        let brush_off = brush[..n].iter().map(|b| b.2).collect();
        let brush_wt = brush[..n].iter().map(|b| b.3).collect();
        let (mut rows, mut row_wt) = (Vec::new(), Vec::new());
        for oy in -ry..=ry {
            let cells = || brush[..n].iter().filter(|b| b.1 == oy);
            let (Some(ox0), Some(ox1)) = (cells().map(|b| b.0).min(), cells().map(|b| b.0).max()) else {
                continue;
            };
            let start = row_wt.len();
            row_wt.resize(start + (ox1 - ox0 + 1) as usize, 0.0);
            for b in cells() {
                row_wt[start + (b.0 - ox0) as usize] = b.3;
            }
            rows.push(BrushRow { oy, ox0, start, len: (ox1 - ox0 + 1) as usize });
        }
        let shift = (BUCKET_CELLS / w).max(1).ilog2().min(16);
        let buckets = ((h - 1) >> shift) + 1;
        Self { p, w, h, dx, dy, step, rx, ry, brush, brush_off, brush_wt, rows, row_wt, shift, buckets }
    }

    /// Start of droplet `k`.
    fn start(&self, k: u32) -> (f64, f64) {
        let mut rng = Rng::new(self.p.seed).split(k);
        let x = rng.range(0.0, (self.w - 1) as f64);
        let y = rng.range(0.0, (self.h - 1) as f64);
        (x, y)
    }

    /// Bilinear height and gradient (m/m) at (x, y), `0 ≤ x < w−1`, `0 ≤ y < h−1`.
    #[inline(always)]
    fn height_grad<S: Sink>(&self, s: &S, x: f64, y: f64) -> (f64, f64, f64) {
        let (x0, y0) = (x as usize, y as usize);
        let (tx, ty) = (x - x0 as f64, y - y0 as f64);
        let i = y0 * self.w + x0;
        let (a, b, c, e) = (s.height(i), s.height(i + 1), s.height(i + self.w), s.height(i + self.w + 1));
        let gx = ((b - a) * (1.0 - ty) + (e - c) * ty) / self.dx;
        let gy = ((c - a) * (1.0 - tx) + (e - b) * tx) / self.dy;
        let top = a + (b - a) * tx;
        let bot = c + (e - c) * tx;
        (top + (bot - top) * ty, gx, gy)
    }

    /// Splits `total` units bilinearly over the corners of the cell holding (x, y); the
    /// remainder of rounding goes to the corner of largest weight. Returns the lower corner.
    #[inline(always)]
    fn deposit_split(&self, x: f64, y: f64, total: i64) -> (usize, [i64; 4]) {
        let (x0, y0) = (x as usize, y as usize);
        let (tx, ty) = (x - x0 as f64, y - y0 as f64);
        let i = y0 * self.w + x0;
        let wts = [(1.0 - tx) * (1.0 - ty), tx * (1.0 - ty), (1.0 - tx) * ty, tx * ty];
        let tf = total as f64;
        let mut q = [0i64; 4];
        let mut best = 0;
        for j in 0..4 {
            q[j] = (tf * wts[j] + 0.5) as i64; // ≥ 0: truncation is floor
            if wts[j] > wts[best] {
                best = j;
            }
        }
        q[best] += total - (q[0] + q[1] + q[2] + q[3]);
        (i, q)
    }

    /// Calls `f(i, q)` for each non-zero corner amount of a deposit at lower corner `i`.
    #[inline(always)]
    fn deposit_cells(&self, i: usize, q: [i64; 4], mut f: impl FnMut(usize, i64)) {
        let idx = [i, i + 1, i + self.w, i + self.w + 1];
        for j in 0..4 {
            if q[j] != 0 {
                f(idx[j], q[j]);
            }
        }
    }

    /// Splits `total` units over the brush centred on node (cx, cy): calls `f(i, q)` for every
    /// non-centre cell with `q ≠ 0`, then for the centre with the remainder (even when 0).
    #[inline(always)]
    fn erode_cells(&self, cx: usize, cy: usize, total: i64, mut f: impl FnMut(usize, i64)) {
        let (cx, cy) = (cx as isize, cy as isize);
        let c = cy as usize * self.w + cx as usize;
        let tf = total as f64;
        let inside = cx >= self.rx && cy >= self.ry && cx + self.rx < self.w as isize && cy + self.ry < self.h as isize;
        let mut sum = 0i64;
        if inside {
            for (&off, &wt) in self.brush_off.iter().zip(&self.brush_wt) {
                let q = (tf * wt + 0.5) as i64; // ≥ 0: truncation is floor
                if q != 0 {
                    f((c as isize + off) as usize, q);
                    sum += q;
                }
            }
        } else {
            // Renormalise over the cells inside the grid (the centre always is).
            let n = self.brush.len() - 1;
            let (w, h) = (self.w as isize, self.h as isize);
            let ok = |ox: isize, oy: isize| cx + ox >= 0 && cy + oy >= 0 && cx + ox < w && cy + oy < h;
            let wsum: f64 = self.brush.iter().filter(|b| ok(b.0, b.1)).map(|b| b.3).sum();
            for &(ox, oy, off, wt) in &self.brush[..n] {
                if ok(ox, oy) {
                    let q = (tf * (wt / wsum) + 0.5) as i64;
                    if q != 0 {
                        f((c as isize + off) as usize, q);
                        sum += q;
                    }
                }
            }
        }
        f(c, total - sum);
    }

    /// Whether the brush centred on node (cx, cy) lies wholly inside the grid (no renormalising).
    #[inline(always)]
    fn brush_inside(&self, cx: usize, cy: usize) -> bool {
        let (cx, cy) = (cx as isize, cy as isize);
        cx >= self.rx && cy >= self.ry && cx + self.rx < self.w as isize && cy + self.ry < self.h as isize
    }

    /// The split of [`Ctx::erode_cells`] for a brush wholly inside the grid ([`Ctx::brush_inside`]),
    /// row by row and without tests: calls `row(y, x0, wt)` for each brush row, which is to add
    /// [`share`]`(total, wtᵢ)` to cell `(x0 + i, y)` for every `i` (zero for the centre and for
    /// cells outside the brush) and return the sum it added ([`add_row`] / [`sum_row`]); returns
    /// the centre's remainder. The cells get exactly what `erode_cells` gives them, plus zeros.
    #[inline(always)]
    fn erode_rows(&self, cx: usize, cy: usize, total: i64, mut row: impl FnMut(usize, usize, &[f64]) -> i64) -> i64 {
        let mut sum = 0;
        for r in &self.rows {
            let (y, x0) = ((cy as isize + r.oy) as usize, (cx as isize + r.ox0) as usize);
            sum += row(y, x0, &self.row_wt[r.start..r.start + r.len]);
        }
        total - sum
    }

    /// Runs droplet `k` on `s`; returns (steps, eroded units, deposited units, lost units).
    #[inline(always)]
    fn run<S: Sink, T: FnMut(&DropletStep)>(&self, s: &mut S, k: u32, mut trace: T) -> (u64, i64, i64, i64) {
        let p = self.p;
        let (mut x, mut y) = self.start(k);
        let (mut dirx, mut diry) = (0.0f64, 0.0f64);
        let (mut speed, mut water) = (p.initial_speed, p.initial_water);
        let mut sed: i64 = 0;
        let (mut steps, mut eroded, mut deposited) = (0u64, 0i64, 0i64);
        let (xmax, ymax) = ((self.w - 1) as f64, (self.h - 1) as f64);
        let (sx, sy) = (self.step / self.dx, self.step / self.dy);
        let min_drop = p.min_slope * self.step;
        let (keep, turn) = (p.inertia, 1.0 - p.inertia);
        let dry = 1.0 - p.evaporation;
        // Height and gradient at (x, y); carried from the previous step on a frozen snapshot.
        let mut here = self.height_grad(s, x, y);
        let sea = p.sea_level.unwrap_or(f64::NEG_INFINITY);
        if here.0 < sea {
            return (0, 0, 0, 0);
        }
        for _ in 0..p.lifetime {
            let (h0, gx, gy) = here;
            dirx = dirx * keep - gx * turn;
            diry = diry * keep - gy * turn;
            let len = (dirx * dirx + diry * diry).sqrt();
            if len == 0.0 || !len.is_finite() {
                break;
            }
            dirx /= len;
            diry /= len;
            let (nx, ny) = (x + dirx * sx, y + diry * sy);
            if !(nx >= 0.0 && ny >= 0.0 && nx < xmax && ny < ymax) {
                break;
            }
            let next = self.height_grad(s, nx, ny);
            let h1 = next.0;
            if h1 < sea {
                break;
            }
            let dh = h1 - h0;
            let sed_m = sed as f64 * FIXED_UNIT;
            let cap = (-dh).max(min_drop) * speed * water * p.capacity;
            let (mut e_q, mut d_q) = (0i64, 0i64);
            if sed_m > cap || dh > 0.0 {
                let d = if dh > 0.0 { dh.min(sed_m) } else { (sed_m - cap) * p.deposit };
                d_q = ((d.max(0.0) * FIXED_SCALE) as i64).min(sed); // truncation of a value ≥ 0 is floor
                if d_q > 0 {
                    let (i, q) = self.deposit_split(x, y, d_q);
                    s.deposit(self, i, q);
                    sed -= d_q;
                    deposited += d_q;
                }
            } else {
                let e = ((cap - sed_m) * p.erode).min(-dh);
                e_q = (e.max(0.0) * FIXED_SCALE) as i64;
                if e_q > 0 {
                    s.erode(self, (x + 0.5) as usize, (y + 0.5) as usize, e_q);
                    sed += e_q;
                    eroded += e_q;
                }
            }
            speed = (speed * speed - p.gravity * dh / self.step).max(0.0).sqrt();
            water *= dry;
            trace(&DropletStep {
                from: (x, y),
                to: (nx, ny),
                h_from: h0,
                h_to: h1,
                capacity: cap,
                sediment_before: sed_m,
                sediment_after: sed as f64 * FIXED_UNIT,
                eroded: e_q as f64 * FIXED_UNIT,
                deposited: d_q as f64 * FIXED_UNIT,
                speed,
                water,
            });
            x = nx;
            y = ny;
            steps += 1;
            here = if S::FROZEN || (e_q == 0 && d_q == 0) { next } else { self.height_grad(s, x, y) };
        }
        (steps, eroded, deposited, sed)
    }
}

/// The share of a brush cell of weight `wt` in an erosion of `tf` units: `round(tf·wt)`, as in
/// [`Ctx::erode_cells`] (`tf·wt + 0.5 ≥ 0`, so truncation is floor). Callers keep
/// `tf ≤ `[`MAX_FAST_TOTAL`].
#[inline(always)]
fn share(tf: f64, wt: f64) -> i64 {
    debug_assert!((0.0..=MAX_FAST_TOTAL as f64).contains(&tf) && (0.0..=1.0).contains(&wt));
    // SAFETY: 0 ≤ tf ≤ 2⁵² and 0 ≤ wt ≤ 1 (normalised brush weights), so tf·wt + 0.5 is finite
    // and in [0, 2⁵² + 1), where `as i64` would not saturate: the same value without its checks.
    unsafe { (tf * wt + 0.5).to_int_unchecked::<i64>() }
}

/// The largest erosion total (units) that the row-wise paths take ([`share`]'s range); larger
/// ones (over 4·10⁹ m) go the way of [`Ctx::erode_cells`].
const MAX_FAST_TOTAL: i64 = 1 << 52;

/// Adds the shares of `tf` units with the weights `wt` to `dst` cell by cell; returns their sum.
#[inline(always)]
fn add_row(dst: &mut [i64], wt: &[f64], tf: f64) -> i64 {
    let mut sum = 0;
    for (d, &w) in dst.iter_mut().zip(wt) {
        let q = share(tf, w);
        *d += q;
        sum += q;
    }
    sum
}

/// The sum of the shares of `tf` units with the weights `wt`.
#[inline(always)]
fn sum_row(wt: &[f64], tf: f64) -> i64 {
    wt.iter().map(|&w| share(tf, w)).sum()
}

/// Hints the CPU to bring `v[i]`'s cache line in (no effect on results; none off x86-64).
#[inline(always)]
fn prefetch(v: &[f64], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(x) = v.get(i) {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: SSE is part of the x86-64 baseline, and a prefetch of a valid address has no
        // effect but on the caches.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((x as *const f64).cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (v, i);
}

/// State of one droplet in flight in [`Ctx::run_chunk`].
#[derive(Clone, Copy)]
struct Lane {
    x: f64,
    y: f64,
    dirx: f64,
    diry: f64,
    speed: f64,
    water: f64,
    /// Height and gradient at (x, y).
    here: (f64, f64, f64),
    sed: i64,
    /// Steps left before the lifetime ends.
    left: u32,
}

/// Droplets run in lockstep by [`Ctx::run_chunk`]: their dependency chains (heights → gradient
/// → direction → next position → heights) are independent, so the CPU overlaps them.
const LANES: usize = 4;

impl Ctx<'_> {
    /// A fresh droplet starting at (x, y) ([`Ctx::start`]) on the snapshot `snap`.
    #[inline(always)]
    fn lane(&self, snap: &[f64], (x, y): (f64, f64)) -> Lane {
        let p = self.p;
        let here = self.height_grad(&Snap(snap), x, y);
        // A droplet starting under the sea ends at its first step, having done nothing.
        let wet = p.sea_level.is_some_and(|sea| here.0 < sea);
        Lane {
            x,
            y,
            dirx: 0.0,
            diry: 0.0,
            speed: p.initial_speed,
            water: p.initial_water,
            here,
            sed: 0,
            left: if wet { 0 } else { p.lifetime },
        }
    }

    /// One step of `l` on the frozen `snap`, exactly the step of [`Ctx::run`]; records its
    /// contributions and step/erosion/deposit totals in `out`. Returns `false` (having added the
    /// carried sediment to the lost total) when the droplet ends instead of stepping.
    #[inline(always)]
    fn lane_step(&self, snap: &[f64], l: &mut Lane, out: &mut ChunkOut) -> bool {
        let p = self.p;
        let s = Snap(snap);
        let (xmax, ymax) = ((self.w - 1) as f64, (self.h - 1) as f64);
        let (sx, sy) = (self.step / self.dx, self.step / self.dy);
        let min_drop = p.min_slope * self.step;
        let (keep, turn) = (p.inertia, 1.0 - p.inertia);
        let dry = 1.0 - p.evaporation;
        let end = |l: &mut Lane, out: &mut ChunkOut| {
            out.totals[3] += l.sed;
            false
        };
        if l.left == 0 {
            return end(l, out);
        }
        let (h0, gx, gy) = l.here;
        let mut dirx = l.dirx * keep - gx * turn;
        let mut diry = l.diry * keep - gy * turn;
        let len = (dirx * dirx + diry * diry).sqrt();
        if len == 0.0 || !len.is_finite() {
            return end(l, out);
        }
        dirx /= len;
        diry /= len;
        let (x, y) = (l.x, l.y);
        let (nx, ny) = (x + dirx * sx, y + diry * sy);
        if !(nx >= 0.0 && ny >= 0.0 && nx < xmax && ny < ymax) {
            return end(l, out);
        }
        let next = self.height_grad(&s, nx, ny);
        let h1 = next.0;
        if p.sea_level.is_some_and(|sea| h1 < sea) {
            return end(l, out);
        }
        let dh = h1 - h0;
        let sed = l.sed;
        let sed_m = sed as f64 * FIXED_UNIT;
        let speed = l.speed;
        let cap = (-dh).max(min_drop) * speed * l.water * p.capacity;
        if sed_m > cap || dh > 0.0 {
            let d = if dh > 0.0 { dh.min(sed_m) } else { (sed_m - cap) * p.deposit };
            let d_q = ((d.max(0.0) * FIXED_SCALE) as i64).min(sed); // truncation of a value ≥ 0 is floor
            if d_q > 0 {
                let (i, q) = self.deposit_split(x, y, d_q);
                let _ = i;
                let (x0, y0) = (x as usize, y as usize);
                out.deposits[y0 >> self.shift].push((x0 as u32, y0 as u32, q));
                l.sed = sed - d_q;
                out.totals[2] += d_q;
            }
        } else {
            let e = ((cap - sed_m) * p.erode).min(-dh);
            let e_q = (e.max(0.0) * FIXED_SCALE) as i64;
            if e_q > 0 {
                let (cx, cy) = ((x + 0.5) as usize, (y + 0.5) as usize);
                out.erosions[cy >> self.shift].push((cx as u32, cy as u32, e_q));
                l.sed = sed + e_q;
                out.totals[1] += e_q;
            }
        }
        l.speed = (speed * speed - p.gravity * dh / self.step).max(0.0).sqrt();
        l.water *= dry;
        l.dirx = dirx;
        l.diry = diry;
        l.x = nx;
        l.y = ny;
        l.here = next;
        l.left -= 1;
        out.totals[0] += 1;
        // The next step reads about one more step along the same direction: fetch those two rows
        // now, while the other lanes step.
        let (gx, gy) = ((nx + dirx * sx).clamp(0.0, xmax), (ny + diry * sy).clamp(0.0, ymax));
        prefetch(snap, gy as usize * self.w + gx as usize);
        prefetch(snap, (gy as usize + 1) * self.w + gx as usize);
        true
    }

    /// Runs droplets `a .. b` on the frozen `snap` ([`Ctx::run`] with a recording sink for each),
    /// [`LANES`] at a time in lockstep, recording into `out`. The records come in another order
    /// than one droplet after another; they are only ever summed as integers.
    fn run_chunk(&self, snap: &[f64], a: u32, b: u32, out: &mut ChunkOut) {
        let mut next = a;
        let mut lanes: [Option<Lane>; LANES] = [None; LANES];
        for l in &mut lanes {
            if next < b {
                *l = Some(self.lane(snap, self.start(next)));
                next += 1;
            }
        }
        // The starts of droplets `next .. next + LANES` (those below `b`) at `ahead[k % LANES]`,
        // their cells fetched early: a start is a random cell, far from what the lanes read.
        let start_ahead = |k: u32| {
            let (x, y) = self.start(k);
            let i = y as usize * self.w + x as usize;
            prefetch(snap, i);
            prefetch(snap, i + self.w);
            (x, y)
        };
        let mut ahead = [(0.0, 0.0); LANES];
        for k in next..b.min(next.saturating_add(LANES as u32)) {
            ahead[k as usize % LANES] = start_ahead(k);
        }
        loop {
            let mut live = false;
            for slot in &mut lanes {
                if let Some(l) = slot {
                    live = true;
                    if !self.lane_step(snap, l, out) {
                        *slot = if next < b {
                            let at = ahead[next as usize % LANES];
                            if let Some(k) = next.checked_add(LANES as u32).filter(|&k| k < b) {
                                ahead[k as usize % LANES] = start_ahead(k);
                            }
                            next += 1;
                            Some(self.lane(snap, at))
                        } else {
                            None
                        };
                    }
                }
            }
            if !live {
                break;
            }
        }
    }
}

/// A frozen snapshot read by [`Ctx::height_grad`]; as a [`Sink`] ([`trace_droplet`]) it drops
/// the contributions.
struct Snap<'s>(&'s [f64]);

impl Sink for Snap<'_> {
    const FROZEN: bool = true;
    #[inline(always)]
    fn height(&self, i: usize) -> f64 {
        self.0[i]
    }
    fn erode(&mut self, _: &Ctx, _: usize, _: usize, _: i64) {}
    fn deposit(&mut self, _: &Ctx, _: usize, _: [i64; 4]) {}
}

/// One chunk of a batch in the batched mode: the contributions its droplets made (applied
/// after the batch), filed by bucket of rows ([`Ctx::shift`]), and its run totals.
struct ChunkOut {
    /// Erosions by bucket of the centre row: brush centre (x, y) and total units.
    erosions: Vec<Vec<(u32, u32, i64)>>,
    /// Deposits by bucket of the lower row: lower corner (x, y) and the four corner amounts.
    deposits: Vec<Vec<(u32, u32, [i64; 4])>>,
    totals: [i64; 4],
}

impl ChunkOut {
    fn new(ctx: &Ctx) -> Self {
        Self { erosions: vec![Vec::new(); ctx.buckets], deposits: vec![Vec::new(); ctx.buckets], totals: [0; 4] }
    }

    /// Forgets the records (keeps the totals).
    fn clear(&mut self) {
        self.erosions.iter_mut().for_each(Vec::clear);
        self.deposits.iter_mut().for_each(Vec::clear);
    }
}

/// Sequential sink: applies every contribution at once to the live heights.
struct LiveSink<'s> {
    h0: &'s [f64],
    h: &'s mut [f64],
    wear: &'s mut [i64],
    dep: &'s mut [i64],
    /// [`plain`] heights: the brush may recompute cells it gives nothing.
    plain: bool,
}

impl Sink for LiveSink<'_> {
    const FROZEN: bool = false;
    #[inline(always)]
    fn height(&self, i: usize) -> f64 {
        self.h[i]
    }
    #[inline(always)]
    fn erode(&mut self, ctx: &Ctx, cx: usize, cy: usize, total: i64) {
        let (h0, h, wear, dep) = (self.h0, &mut *self.h, &mut *self.wear, &*self.dep);
        if self.plain && total <= MAX_FAST_TOTAL && ctx.brush_inside(cx, cy) {
            let tf = total as f64;
            let centre = ctx.erode_rows(cx, cy, total, |y, x0, wt| {
                let a = y * ctx.w + x0;
                let n = wt.len();
                let cells = h[a..a + n].iter_mut().zip(&h0[a..a + n]).zip(&mut wear[a..a + n]).zip(&dep[a..a + n]);
                let mut sum = 0;
                for ((((h, &h0), wv), &dv), &wt) in cells.zip(wt) {
                    let q = share(tf, wt);
                    *wv += q;
                    *h = h0 + (dv - *wv) as f64 * FIXED_UNIT;
                    sum += q;
                }
                sum
            });
            let c = cy * ctx.w + cx;
            wear[c] += centre;
            h[c] = h0[c] + (dep[c] - wear[c]) as f64 * FIXED_UNIT;
            return;
        }
        ctx.erode_cells(cx, cy, total, |i, q| {
            wear[i] += q;
            h[i] = h0[i] + (dep[i] - wear[i]) as f64 * FIXED_UNIT;
        });
    }
    #[inline(always)]
    fn deposit(&mut self, ctx: &Ctx, i: usize, q: [i64; 4]) {
        let (h0, h, wear, dep) = (self.h0, &mut *self.h, &*self.wear, &mut *self.dep);
        ctx.deposit_cells(i, q, |i, q| {
            dep[i] += q;
            h[i] = h0[i] + (dep[i] - wear[i]) as f64 * FIXED_UNIT;
        });
    }
}

/// A row's span of cells whose heights are to be recomputed after the batch (`lo > hi`: none).
type Span = (u32, u32);
const NO_SPAN: Span = (u32::MAX, 0);

#[inline(always)]
fn widen(s: &mut Span, a: usize, b: usize) {
    s.0 = s.0.min(a as u32);
    s.1 = s.1.max(b as u32);
}

/// Applies the recorded contributions of `chunks` that fall on the rows `row_lo .. row_lo +
/// spans.len()` (a band; `h`, `wear` and `dep` are its cells) to the run totals, bucket by bucket
/// of rows, and recomputes the heights `h0 + (dep − wear)·2⁻²⁰` of the cells they reached once
/// each, as soon as no later bucket can reach them. Only for [`plain`] grids: the row spans
/// recomputed can hold cells no contribution reached (or only zeros did), whose recomputed
/// height is then their current one.
#[allow(clippy::too_many_arguments)]
fn apply_band(
    ctx: &Ctx,
    chunks: &[ChunkOut],
    h0: &[f64],
    row_lo: usize,
    h: &mut [f64],
    wear: &mut [i64],
    dep: &mut [i64],
    spans: &mut [Span],
) {
    let (w, ry) = (ctx.w, ctx.ry as usize);
    let row_hi = row_lo + spans.len();
    let (lo, hi) = (row_lo * w, row_hi * w);
    let h0 = &h0[lo..hi];
    // Recomputes the spans of the band's rows `a .. b` (band-relative).
    let recompute = |h: &mut [f64], wear: &[i64], dep: &[i64], spans: &mut [Span], a: usize, b: usize| {
        for (r, s) in spans.iter_mut().enumerate().take(b).skip(a) {
            if s.0 <= s.1 {
                let (a, b) = (r * w + s.0 as usize, r * w + s.1 as usize + 1);
                for (((h, &h0), &wv), &dv) in h[a..b].iter_mut().zip(&h0[a..b]).zip(&wear[a..b]).zip(&dep[a..b]) {
                    *h = h0 + (dv - wv) as f64 * FIXED_UNIT;
                }
                *s = NO_SPAN;
            }
        }
    };
    // Buckets whose records can reach the band (erosions reach ry rows up and down, deposits one
    // row down).
    let k0 = row_lo.saturating_sub(ry.max(1)) >> ctx.shift;
    let k1 = ((row_hi - 1 + ry) >> ctx.shift).min(ctx.buckets - 1);
    let mut fresh = 0; // band rows below this one are recomputed
    for k in k0..=k1 {
        for ch in chunks {
            for &(cx, cy, total) in &ch.erosions[k] {
                let (cx, cy) = (cx as usize, cy as usize);
                if cy + ry < row_lo || cy >= row_hi + ry {
                    continue;
                }
                if total <= MAX_FAST_TOTAL && ctx.brush_inside(cx, cy) {
                    let tf = total as f64;
                    let centre = ctx.erode_rows(cx, cy, total, |y, x0, wt| {
                        if y >= row_lo && y < row_hi {
                            let (r, n) = (y - row_lo, wt.len());
                            widen(&mut spans[r], x0, x0 + n - 1);
                            add_row(&mut wear[r * w + x0..r * w + x0 + n], wt, tf)
                        } else {
                            sum_row(wt, tf)
                        }
                    });
                    if cy >= row_lo && cy < row_hi {
                        let r = cy - row_lo;
                        wear[r * w + cx] += centre;
                        widen(&mut spans[r], cx, cx);
                    }
                } else {
                    ctx.erode_cells(cx, cy, total, |i, q| {
                        if i >= lo && i < hi {
                            wear[i - lo] += q;
                            widen(&mut spans[(i - lo) / w], i % w, i % w);
                        }
                    });
                }
            }
            for &(x, y, q) in &ch.deposits[k] {
                let (x, y) = (x as usize, y as usize);
                for (k, q) in [(y, [q[0], q[1]]), (y + 1, [q[2], q[3]])] {
                    if k >= row_lo && k < row_hi {
                        let (r, a) = (k - row_lo, (k - row_lo) * w + x);
                        let d = &mut dep[a..a + 2];
                        d[0] += q[0];
                        d[1] += q[1];
                        widen(&mut spans[r], x, x + 1);
                    }
                }
            }
        }
        // Later buckets start at row (k + 1)·2^shift and reach ry rows above it.
        let done = (((k + 1) << ctx.shift).saturating_sub(ry)).clamp(row_lo, row_hi) - row_lo;
        if done > fresh {
            recompute(h, wear, dep, spans, fresh, done);
            fresh = done;
        }
    }
    recompute(h, wear, dep, spans, fresh, spans.len());
}

/// [`apply_band`] for grids that are not [`plain`]: recomputes a cell's height at each non-zero
/// contribution (and at each brush centre), as the sequential mode does, so that a cell no
/// contribution reached keeps its initial bits.
fn apply_band_live(
    ctx: &Ctx,
    chunks: &[ChunkOut],
    h0: &[f64],
    lo: usize,
    h: &mut [f64],
    wear: &mut [i64],
    dep: &mut [i64],
) {
    let hi = lo + h.len();
    let w = ctx.w;
    for ch in chunks {
        for &(cx, cy, total) in ch.erosions.iter().flatten() {
            ctx.erode_cells(cx as usize, cy as usize, total, |i, q| {
                if i >= lo && i < hi {
                    let j = i - lo;
                    wear[j] += q;
                    h[j] = h0[i] + (dep[j] - wear[j]) as f64 * FIXED_UNIT;
                }
            });
        }
        for &(x, y, q) in ch.deposits.iter().flatten() {
            ctx.deposit_cells(y as usize * w + x as usize, q, |i, q| {
                if i >= lo && i < hi {
                    let j = i - lo;
                    dep[j] += q;
                    h[j] = h0[i] + (dep[j] - wear[j]) as f64 * FIXED_UNIT;
                }
            });
        }
    }
}

/// Whether every height `v` of `g` has `v + 0.0` bit-identical to `v` (true but for `−0.0` and
/// signalling NaNs). Then recomputing `h0 + (dep − wear)·2⁻²⁰` for a cell no contribution reached
/// gives back its height, and the batched and sequential modes may do so.
fn plain(g: &[f64]) -> bool {
    g.iter().all(|&v| (v + 0.0).to_bits() == v.to_bits())
}

/// Runs droplet erosion on `initial` (heights in m; `dx`, `dy` honoured). See the module docs for
/// the loop, the fixed-point accounting and the parallel semantics.
///
/// The batch size used on a grid of `cells` cells: `batch_size`, capped at `cells / 64` (at
/// least 1). Part of the result's definition, like `batch_size` itself.
pub fn effective_batch(batch_size: u32, cells: usize) -> u32 {
    batch_size.min(((cells / 64).max(1)).min(u32::MAX as usize) as u32)
}

/// Reports `("droplets", done, total)` after each batch (every `batch_size` droplets in the
/// sequential mode too) and stops, with the state after the last complete batch, when
/// `progress.cancelled()`. Grids narrower or shorter than 2 cells are returned unchanged.
///
/// # Panics
/// When `params.validate()` fails.
pub fn erode_droplets(initial: &Grid<f64>, params: &DropletParams, progress: &dyn Progress) -> DropletOutput {
    if let Err(e) = params.validate() {
        panic!("{e}");
    }
    let (w, h) = (initial.width(), initial.height());
    let n = w * h;
    let mut height = initial.clone();
    let mut wear = vec![0i64; n];
    let mut dep = vec![0i64; n];
    let mut stats = DropletStats::default();
    if w >= 2 && h >= 2 {
        let total = params.droplet_count(w, h);
        let ctx = Ctx::new(initial, params);
        let batch = effective_batch(params.batch_size, n);
        let h0 = initial.data();
        let plain = plain(h0);
        let mut done = 0u32;
        let mut totals = [0i64; 4];
        match params.mode {
            DropletMode::Sequential => {
                let mut sink = LiveSink { h0, h: height.data_mut(), wear: &mut wear, dep: &mut dep, plain };
                while done < total && !progress.cancelled() {
                    let end = done.saturating_add(batch).min(total);
                    for k in done..end {
                        let r = ctx.run(&mut sink, k, |_| {});
                        totals[0] += r.0 as i64;
                        totals[1] += r.1;
                        totals[2] += r.2;
                        totals[3] += r.3;
                    }
                    done = end;
                    progress.report("droplets", done as u64, total as u64);
                }
            }
            DropletMode::Batched => {
                let threads = rayon::current_num_threads().max(1);
                // Contiguous chunks of a batch (more than threads, for balance) and row bands of
                // the grid for applying them; any split gives the same integer sums.
                let nchunks = if threads == 1 { 1 } else { 4 * threads };
                let band_rows = h.div_ceil(threads).max(1);
                let mut chunks: Vec<ChunkOut> = (0..nchunks).map(|_| ChunkOut::new(&ctx)).collect();
                let mut spans = vec![NO_SPAN; h];
                while done < total && !progress.cancelled() {
                    let end = done.saturating_add(batch).min(total);
                    let len = (end - done) as usize;
                    {
                        let snap = height.data();
                        let ctx = &ctx;
                        chunks.par_iter_mut().enumerate().for_each(|(c, out)| {
                            out.clear();
                            let (a, b) = (done + (len * c / nchunks) as u32, done + (len * (c + 1) / nchunks) as u32);
                            ctx.run_chunk(snap, a, b, out);
                        });
                    }
                    let band = band_rows * w;
                    let (ctx, chunks) = (&ctx, &chunks);
                    let bands = height.data_mut().par_chunks_mut(band).zip(wear.par_chunks_mut(band));
                    let bands = bands.zip(dep.par_chunks_mut(band)).zip(spans.par_chunks_mut(band_rows)).enumerate();
                    bands.for_each(|(b, (((hb, wb), db), sb))| {
                        if plain {
                            apply_band(ctx, chunks, h0, b * band_rows, hb, wb, db, sb)
                        } else {
                            apply_band_live(ctx, chunks, h0, b * band, hb, wb, db)
                        }
                    });
                    done = end;
                    progress.report("droplets", done as u64, total as u64);
                }
                for ch in &chunks {
                    for (t, v) in totals.iter_mut().zip(ch.totals) {
                        *t += v;
                    }
                }
            }
        }
        stats = DropletStats {
            droplets: done as u64,
            steps_total: totals[0] as u64,
            eroded_total: totals[1] as f64 * FIXED_UNIT,
            deposited_total: totals[2] as f64 * FIXED_UNIT,
            carried_lost: totals[3] as f64 * FIXED_UNIT,
            eroded_units: totals[1],
            deposited_units: totals[2],
            lost_units: totals[3],
        };
    }
    let to_grid = |v: Vec<i64>| {
        Grid::from_vec(w, h, v.into_iter().map(|q| q as f64 * FIXED_UNIT).collect())
            .with_cell_size(initial.dx, initial.dy)
    };
    DropletOutput { height, wear: to_grid(wear), deposit: to_grid(dep), stats }
}

/// The exact per-cell fixed-point sums behind a [`DropletOutput::wear`] or
/// [`DropletOutput::deposit`] grid, recovered from metres (exact, since each value is an integer
/// times 2⁻²⁰ well inside `f64`'s range).
pub fn fixed_units(g: &Grid<f64>) -> Vec<i64> {
    g.data().iter().map(|v| (v * FIXED_SCALE).round() as i64).collect()
}

/// Runs droplet `k` of `params.seed` alone on `height` (as the frozen snapshot of the batched
/// mode: the droplet does not see its own changes) and returns its steps. The droplet's path and
/// amounts are exactly those it has in [`erode_droplets`] when it is in the first batch.
pub fn trace_droplet(height: &Grid<f64>, params: &DropletParams, k: u32) -> Vec<DropletStep> {
    if let Err(e) = params.validate() {
        panic!("{e}");
    }
    let mut out = Vec::new();
    if height.width() < 2 || height.height() < 2 {
        return out;
    }
    let ctx = Ctx::new(height, params);
    ctx.run(&mut Snap(height.data()), k, |s| out.push(*s));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use bozkir_core::NoProgress;

    fn noise(n: usize, dx: f64) -> Grid<f64> {
        let (v, _) = bozkir_core::noise::value_noise_sum(n, 4, 16.0, 200.0);
        Grid::from_vec(n, n, v).with_cell_size(dx, dx)
    }

    fn params(count: u32, seed: u32) -> DropletParams {
        DropletParams { droplets: DropletCount::Total(count), seed, batch_size: 256, ..Default::default() }
    }

    fn bytes(o: &DropletOutput) -> Vec<u64> {
        [o.height.data(), o.wear.data(), o.deposit.data()].iter().flat_map(|d| d.iter().map(|v| v.to_bits())).collect()
    }

    /// FNV-1a over the output's height, wear and deposit bits and its stats.
    fn fnv(o: &DropletOutput) -> u64 {
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        let s = o.stats;
        let extra = [s.droplets, s.steps_total, s.eroded_units as u64, s.deposited_units as u64, s.lost_units as u64];
        for v in bytes(o).into_iter().chain(extra) {
            for b in v.to_le_bytes() {
                h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
            }
        }
        h
    }

    #[test]
    fn the_sea_is_left_alone_and_droplets_end_at_its_shore() {
        // A cone island in a sea: land above 0 m in the middle, the sea floor falling to the
        // border (like the island recipe's falloff, where droplets once gullied a comb).
        let n = 96;
        let c = (n - 1) as f64 / 2.0;
        let g = Grid::from_fn(n, n, |x, y| {
            let r = ((x as f64 - c).powi(2) + (y as f64 - c).powi(2)).sqrt();
            120.0 - 4.0 * r + 3.0 * ((x as f64 * 0.7).sin() + (y as f64 * 0.9).cos())
        })
        .with_cell_size(10.0, 10.0);
        let with = DropletParams { droplets: DropletCount::PerCell(2.0), sea_level: Some(0.0), ..Default::default() };
        let without = DropletParams { sea_level: None, ..with };
        let (a, b) = (erode_droplets(&g, &with, &NoProgress), erode_droplets(&g, &without, &NoProgress));
        // Cells farther under the sea than the brush reaches from any land cell do not change.
        let land: Vec<(usize, usize)> = (0..n * n).filter(|&i| g.data()[i] >= 0.0).map(|i| (i % n, i / n)).collect();
        let reach = with.radius.ceil() as usize + 2;
        let mut far_changed = (0, 0);
        for i in 0..n * n {
            let (x, y) = (i % n, i / n);
            let near = land.iter().any(|&(lx, ly)| lx.abs_diff(x) <= reach && ly.abs_diff(y) <= reach);
            if g.data()[i] < 0.0 && !near {
                far_changed.0 += usize::from(a.height.data()[i] != g.data()[i]);
                far_changed.1 += usize::from(b.height.data()[i] != g.data()[i]);
            }
        }
        assert_eq!(far_changed.0, 0, "the sea floor changed under a sea level");
        assert!(far_changed.1 > 500, "without a sea the sea floor erodes ({} cells)", far_changed.1);
        // Land still erodes, and the mass balance holds (sediment reaching the sea is lost).
        assert!(a.stats.eroded_units > 0 && a.stats.lost_units > 0);
        assert_eq!(a.stats.eroded_units, a.stats.deposited_units + a.stats.lost_units);
        // A grid wholly under the sea: nothing happens, in both step paths.
        let deep = g.map(|v| v - 1000.0);
        for mode in [DropletMode::Batched, DropletMode::Sequential] {
            let o = erode_droplets(&deep, &DropletParams { mode, ..with }, &NoProgress);
            assert_eq!(o.height.data(), deep.data(), "{mode:?}");
            assert_eq!(o.stats.steps_total, 0);
        }
        assert!(DropletParams { sea_level: Some(f64::NAN), ..with }.validate().is_err());
    }

    #[test]
    fn droplets_pinned_output_hashes() {
        let sq = noise(128, 10.0);
        let rect = Grid::from_vec(96, 80, noise(96, 1.0).data()[..96 * 80].to_vec()).with_cell_size(10.0, 20.0);
        let cases: [(&Grid<f64>, DropletParams); 6] = [
            (&sq, params(20_000, 1)),
            (&sq, DropletParams { mode: DropletMode::Sequential, ..params(20_000, 1) }),
            (&sq, DropletParams { radius: 1.0, inertia: 0.3, ..params(20_000, 2) }),
            (&rect, DropletParams { radius: 2.5, batch_size: 1024, ..params(8_000, 3) }),
            (&rect, DropletParams { mode: DropletMode::Sequential, radius: 4.0, ..params(8_000, 4) }),
            (&sq, DropletParams { capacity: 4.0, erode: 0.3, gravity: 4.0, ..params(10_000, 5) }),
        ];
        let got: Vec<u64> = cases
            .iter()
            .map(|(g, p)| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
                fnv(&pool.install(|| erode_droplets(g, p, &NoProgress)))
            })
            .collect();
        let want: [u64; 6] = [
            0x2c92_209f_c8be_b509,
            0x4d85_5f7e_198d_defd,
            0x4c93_3fdf_b16a_9fd1,
            0xf9b0_a1bc_3aae_1d07,
            0x725b_051f_376d_f5cd,
            0xf37e_eafb_b496_de96,
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn droplets_mass_balance_exact() {
        let g = noise(64, 10.0);
        for mode in [DropletMode::Batched, DropletMode::Sequential] {
            let p = DropletParams { mode, ..params(3000, 7) };
            let o = erode_droplets(&g, &p, &NoProgress);
            let s = o.stats;
            assert!(s.eroded_units > 0 && s.deposited_units > 0);
            assert_eq!(s.eroded_units, s.deposited_units + s.lost_units);
            assert_eq!(fixed_units(&o.wear).iter().sum::<i64>(), s.eroded_units);
            assert_eq!(fixed_units(&o.deposit).iter().sum::<i64>(), s.deposited_units);
            // Heights are exactly h0 + (deposit − wear).
            let (wu, du) = (fixed_units(&o.wear), fixed_units(&o.deposit));
            for i in 0..g.len() {
                assert_eq!(o.height.data()[i], g.data()[i] + (du[i] - wu[i]) as f64 * FIXED_UNIT);
            }
            assert_eq!(s.droplets, 3000);
        }
    }

    #[test]
    fn droplets_trace_never_erodes_more_than_the_drop() {
        let g = noise(64, 5.0);
        let p = params(1, 3);
        let mut eroding_steps = 0;
        let mut sed = 0i64;
        for k in 0..200 {
            let tr = trace_droplet(&g, &p, k);
            assert!(tr.len() <= p.lifetime as usize);
            for s in &tr {
                assert!(s.eroded <= (s.h_from - s.h_to).max(0.0), "{s:?}");
                assert!(s.eroded == 0.0 || s.deposited == 0.0);
                if s.h_to > s.h_from {
                    assert_eq!(s.eroded, 0.0);
                    assert!(s.deposited <= s.h_to - s.h_from);
                }
                assert!(s.deposited <= s.sediment_before);
                eroding_steps += (s.eroded > 0.0) as usize;
                sed += ((s.eroded - s.deposited) * FIXED_SCALE).round() as i64;
            }
        }
        assert!(eroding_steps > 100);
        assert!(sed > 0);
    }

    #[test]
    fn droplets_same_seed_same_bytes_any_thread_count() {
        let g = noise(48, 10.0);
        let p = params(2000, 11);
        let run = |t: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap();
            pool.install(|| erode_droplets(&g, &p, &NoProgress))
        };
        let (a, b) = (run(1), run(2));
        assert_eq!(bytes(&a), bytes(&b));
        assert_eq!(a.stats, b.stats);
        assert_eq!(bytes(&run(3)), bytes(&a));
        let c = erode_droplets(&g, &params(2000, 12), &NoProgress);
        assert_ne!(bytes(&a), bytes(&c));
    }

    #[test]
    fn droplets_flow_downhill_on_a_plane() {
        // Falls towards +x (slope 0.2) and a little towards −y (slope 0.05), non-square cells.
        let (dx, dy) = (10.0, 20.0);
        let g = Grid::from_fn(64, 64, |x, y| 500.0 - 0.2 * dx * x as f64 + 0.05 * dy * y as f64).with_cell_size(dx, dy);
        let p = params(1, 5);
        let (mut mx, mut my, mut n) = (0.0, 0.0, 0);
        for k in 0..200 {
            let tr = trace_droplet(&g, &p, k);
            if let (Some(a), Some(b)) = (tr.first(), tr.last()) {
                mx += (b.to.0 - a.from.0) * dx;
                my += (b.to.1 - a.from.1) * dy;
                n += 1;
                for s in &tr {
                    assert!(s.h_to < s.h_from);
                }
            }
        }
        assert!(n > 150);
        let (mx, my) = (mx / n as f64, my / n as f64);
        // Mean displacement points along −gradient = (0.2, −0.05)/|·|.
        assert!(mx > 0.0 && my < 0.0, "{mx} {my}");
        let cos = (mx * 0.2 - my * 0.05) / ((mx * mx + my * my).sqrt() * (0.2f64.hypot(0.05)));
        assert!(cos > 0.999, "{cos}");
    }

    #[test]
    fn droplets_lower_peaks_fill_pits_wear_in_valleys() {
        let g = noise(96, 10.0);
        let p = DropletParams { droplets: DropletCount::PerCell(1.0), seed: 1, batch_size: 64, ..Default::default() };
        let o = erode_droplets(&g, &p, &NoProgress);
        let (w, h) = (g.width(), g.height());
        let mut order: Vec<usize> = (0..g.len()).collect();
        order.sort_by(|&a, &b| g.data()[b].total_cmp(&g.data()[a]));
        let top = &order[..g.len() / 50];
        let mean =
            |grid: &Grid<f64>, idx: &[usize]| idx.iter().map(|&i| grid.data()[i]).sum::<f64>() / idx.len() as f64;
        assert!(mean(&o.height, top) < mean(&g, top), "peaks not lowered");
        // Interior local minima (pits) gain height.
        let mut pits = Vec::new();
        for y in 1..h - 1 {
            for x in 1..w - 1 {
                let c = *g.get(x, y);
                let lower = (-1i32..=1)
                    .any(|oy| (-1i32..=1).any(|ox| *g.get((x as i32 + ox) as usize, (y as i32 + oy) as usize) < c));
                if !lower {
                    pits.push(y * w + x);
                }
            }
        }
        assert!(!pits.is_empty());
        assert!(mean(&o.height, &pits) > mean(&g, &pits), "pits not filled");
        // Wear concentrates where flow converges (high D8 drainage area).
        let fg = crate::hydrology::flow_graph::d8_receivers(&g);
        let acc = crate::hydrology::flow_graph::accumulate_cells(&fg);
        let conv: Vec<usize> = (0..g.len()).filter(|&i| acc[i] >= 8).collect();
        let all: Vec<usize> = (0..g.len()).collect();
        assert!(mean(&o.wear, &conv) > 1.2 * mean(&o.wear, &all), "{} {}", mean(&o.wear, &conv), mean(&o.wear, &all));
    }

    #[test]
    fn droplets_negative_zero_heights_take_the_exact_path() {
        // A −0.0 height makes the grid not `plain`, so the batched mode recomputes cells per
        // contribution instead of per row span; both must give the same result (the droplets
        // cannot tell 0.0 from −0.0).
        let g = noise(64, 10.0);
        let c = 40 * 64 + 23;
        let base = g.data()[c];
        let pos = Grid::from_vec(64, 64, g.data().iter().map(|v| v - base).collect()).with_cell_size(10.0, 10.0);
        assert_eq!(pos.data()[c].to_bits(), 0.0f64.to_bits());
        let mut neg = pos.clone();
        neg.data_mut()[c] = -0.0;
        assert!(plain(pos.data()) && !plain(neg.data()));
        for mode in [DropletMode::Batched, DropletMode::Sequential] {
            let p = DropletParams { mode, ..params(4000, 9) };
            let (a, b) = (erode_droplets(&pos, &p, &NoProgress), erode_droplets(&neg, &p, &NoProgress));
            assert_eq!(a.stats, b.stats);
            assert_eq!((&a.wear, &a.deposit), (&b.wear, &b.deposit));
            for i in 0..g.len() {
                let (x, y) = (a.height.data()[i], b.height.data()[i]);
                assert!(x.to_bits() == y.to_bits() || (i == c && x == y), "{i}: {x} {y}");
            }
        }
    }

    #[test]
    fn droplets_cancel_and_tiny_grids() {
        struct Stop;
        impl Progress for Stop {
            fn cancelled(&self) -> bool {
                true
            }
        }
        let g = noise(16, 1.0);
        let o = erode_droplets(&g, &params(100, 1), &Stop);
        assert_eq!(o.stats.droplets, 0);
        assert_eq!(o.height, g);
        let one = Grid::new(1, 5, 3.0);
        assert_eq!(erode_droplets(&one, &params(10, 1), &NoProgress).height, one);
        assert!(DropletParams { radius: 0.0, ..Default::default() }.validate().is_err());
    }
}

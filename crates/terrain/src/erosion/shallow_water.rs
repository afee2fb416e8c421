//! Pipe-model shallow water with hydraulic erosion (seed 001 §4.2).
//!
//! Sources: X. Mei, P. Decaudin & B.-G. Hu (2007), "Fast hydraulic erosion simulation and
//! visualization on GPU", *Pacific Graphics*; O. Št'ava, B. Beneš, M. Brisbin & J. Křivánek (2008),
//! "Interactive terrain modeling using hydraulic erosion", *SCA*.
//!
//! # State and units
//!
//! Per cell: terrain height `b` (m, f64), water depth `d` (m), four outflow fluxes `f_L, f_R, f_T,
//! f_B` (m³/s, towards the left/right/top/bottom neighbour), velocity `(vx, vy)` (m/s; `+x` is
//! towards higher columns, `+y` towards higher rows, i.e. south/down) and suspended sediment `s`
//! (m of terrain-equivalent thickness). The cell is a column of base `lx · ly = dx · dy`.
//!
//! **Precision.** The terrain height is f64 (erosion increments are far below an f32 ulp of a
//! height of hundreds of metres). Water depth, fluxes, velocity, sediment and the cumulative
//! erosion/deposition maps are stored as **f32**, and the arithmetic of a cell update is f32 too
//! (so the passes vectorise): terrain differences (`b − b_n` in `ΔH` and in the tilt) are taken in
//! f64 and then rounded to f32, and the erosion/deposition increment (f32) is added to `b` in f64.
//! The outflow a cell stores is exactly the inflow its neighbour reads, so water volume is
//! conserved to f32 round-off (relative ~1e-6 over thousands of steps).
//!
//! # Virtual pipes
//!
//! A pipe joins each cell to its 4 neighbours. A pipe along `x` has length `l_x = dx` and
//! cross-section `A_x = pipe_depth · dy` (the face between two cells is `dy` wide); along `y`,
//! `l_y = dy` and `A_y = pipe_depth · dx`. With constant cross-sections the linearised model is a
//! wave equation with speed `c = √(g · pipe_depth)` in both directions, independent of `dx`, `dy`.
//!
//! # One step (Mei et al. 2007, §3)
//!
//! 1. **Water increment:** `d₁ = d + Δt · r` with `r` the rain rate (uniform, or a rain map) plus
//!    point sources (`Q / (dx·dy)` at their cell), m/s.
//! 2. **Outflow flux:** `f ← max(0, f / (1 + κΔt) + Δt · A · g · ΔH / l)` per pipe, with
//!    `ΔH = (b + d₁) − (b_n + d₁_n)` and `κ` an optional linear damping (1/s; 0 is Mei's model).
//!    Then the limiter `K = min(1, d₁ · lx · ly / (Σf · Δt))` scales all four fluxes so a cell never
//!    sends out more water than it holds.
//! 3. **Depth:** `d₂ = d₁ + Δt · (Σf_in − Σf_out) / (lx · ly)`.
//! 4. **Velocity** from the flux differences through the cell: `ΔW_x = (f_R(left) − f_L + f_R −
//!    f_L(right)) / 2`, `vx = ΔW_x / (ly · d̄)`, `d̄ = (d₁ + d₂)/2`, likewise `vy` with `lx`; zero
//!    where `d̄ ≤ min_depth`.
//! 5. **Erosion/deposition:** capacity `C = Kc · max(sin α, sin_min) · |v|`, `α` the local tilt from
//!    central differences of `b` (`sin α = |∇b| / √(1 + |∇b|²)`). If `C > s` the bed is dissolved:
//!    `Δ = Ks · hardness · (C − s) · Δt`, `b −= Δ`, `s += Δ`; otherwise sediment settles:
//!    `Δ = min(Kd · (s − C) · Δt, s)`, `b += Δ`, `s −= Δ`. `hardness` is a per-cell multiplier of
//!    `Ks` (rock strata: 0 never erodes, 1 is soil); see [`banded_hardness`].
//! 6. **Evaporation:** `d ← d₂ · (1 − Ke · Δt)`. (It touches only `d`, and the advection in step 7
//!    reads only `s` and `v`, so it is done in the same pass as steps 3–5.)
//! 7. **Sediment advection**, semi-Lagrangian: `s(x) ← s₁(x − v · Δt)` read with bilinear
//!    interpolation (clamped to the grid), optionally MacCormack-corrected (one backward trace and
//!    a clamp to the four values of the forward stencil, Selle et al. 2008). Neither is mass
//!    conservative for sediment; the semi-Lagrangian step is unconditionally stable.
//!
//! # Stability
//!
//! The flux/depth update is symplectic Euler on the wave equation above, whose linear stability
//! bound is `Δt ≤ 1 / (c · √(1/dx² + 1/dy²))`, `c = √(g · pipe_depth)`. The pipes are one-way
//! (`f ≥ 0` in each direction): when a flow reverses, the clamp at zero can add up to one extra
//! step's increment to the net flux, i.e. up to twice the linear `ω²`, so the documented bound is
//! `1/√2` of the linear one:
//!
//! ```text
//! Δt ≤ Δt_max = 1 / ( √2 · √(g · pipe_depth) · √(1/dx² + 1/dy²) )
//! ```
//!
//! ([`stable_dt`]; e.g. 0.160 s at dx = dy = 1 m with g = 9.81 and pipe_depth = 1 m, 4.79 s at
//! 30 m). Measured: an undamped closed box stays bounded for thousands of steps at `0.95 Δt_max`,
//! and blows up at `0.98 ×` the linear bound. The limiter `K` keeps depths non-negative at any
//! `Δt`, but above `Δt_max` the surface can oscillate and grow. Erosion needs
//! `Ks · max(hardness) · Δt ≤ 1` and `Kd · Δt ≤ 1`, and evaporation `Ke · Δt ≤ 1` (checked by
//! [`ShallowWater::new`]). The default `dt` (`None`) is `0.5 · Δt_max`.
//!
//! # Boundary
//!
//! [`Boundary::Closed`] (default): reflecting walls, no flux leaves the grid. [`Boundary::Open`]:
//! each edge cell has a pipe to an outside cell at its own terrain height and with no water, so
//! water spills out freely (and is lost).
//!
//! # Determinism
//!
//! Each cell's new value is a pure function of the previous state, so rows run in parallel with
//! rayon and the result is bit identical at any thread count. There are no reductions inside a
//! step. Stages 1–6 run as one pass over bands of rows, in place: a band walks its rows once
//! (rain-adjusted depth of the row below into a 3-row ring, flux of a row, then the depth update of
//! the row above it, so fresh fluxes are reused from cache), overwriting a row's old `d` and `b`
//! only once no later row of the band reads them. The first and last row of every band get their
//! new fluxes (and a copy of their old terrain) in a small pass before, from which the neighbouring
//! bands read, so the band split changes no bit either. Stage 7 (the sediment advection, which
//! gathers from anywhere in the field and so reads a ping-pong buffer) is deferred: it is done row
//! by row at the start of the next step's band pass, just before the row's depth update, and by
//! [`ShallowWater::into_output`]; the operations are the same, so are the bits. Interior rows run a
//! branch-free kernel, and the advection a bilinear kernel with clamped coordinates and
//! i32 indexing (vectorised stencil computation, scalar reads), each compiled for AVX2 when the CPU
//! has it (runtime detection); they perform the
//! same IEEE operations as the edge-cell code and the baseline build (no FMA contraction), so the
//! result does not depend on which version runs either.

use bozkir_core::{Grid, Progress};
use rayon::prelude::*;

/// What happens to water at the grid's edges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Boundary {
    /// Reflecting walls: nothing flows out.
    #[default]
    Closed,
    /// Free outflow to an outside at the edge cell's terrain height, with no water.
    Open,
}

/// A point source of water.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointSource {
    /// Column of the cell.
    pub x: usize,
    /// Row of the cell.
    pub y: usize,
    /// Discharge in m³/s (added as a depth rate `rate / (dx·dy)` at that cell).
    pub rate: f64,
}

/// Parameters of [`ShallowWater`].
#[derive(Debug, Clone, PartialEq)]
pub struct ShallowWaterParams {
    /// Time step in seconds. `None` (default): `0.5 ·` [`stable_dt`].
    pub dt: Option<f64>,
    /// Number of steps [`shallow_water`] runs. Default 500.
    pub steps: usize,
    /// Gravity in m/s². Default 9.81.
    pub gravity: f64,
    /// Depth of the virtual pipes in metres: the cross-sections are `pipe_depth · dy` (x pipes) and
    /// `pipe_depth · dx` (y pipes). Sets the wave speed `√(g · pipe_depth)`. Default 1.0.
    pub pipe_depth: f64,
    /// Linear damping of the fluxes, 1/s (implicit: `f / (1 + κΔt)`). 0 is Mei et al.'s model, in
    /// which the water sloshes for a long time. Default 0.0.
    pub flux_damping: f64,
    /// Uniform rain rate in m/s (depth per second). Ignored when `rain_map` is set. Default 0.0.
    pub rain_rate: f64,
    /// Per-cell rain rate in m/s; same shape as the terrain. Default `None`.
    pub rain_map: Option<Grid<f64>>,
    /// Point sources. Default none.
    pub sources: Vec<PointSource>,
    /// Sediment capacity constant `Kc` in seconds (`C[m] = Kc · sin α · |v|`). Default 0.5.
    pub capacity: f64,
    /// Dissolving (erosion) rate `Ks` in 1/s. Default 0.3.
    pub dissolve: f64,
    /// Deposition rate `Kd` in 1/s. Default 0.3.
    pub deposit: f64,
    /// Floor of `sin α` in the capacity so flat beds still carry sediment. Default 0.01.
    pub min_sin_tilt: f64,
    /// Evaporation rate `Ke` in 1/s. Default 0.0.
    pub evaporation: f64,
    /// Depth (m) below which the velocity is taken as zero. Default 1e-6.
    pub min_depth: f64,
    /// Per-cell multiplier of `Ks` (0 = unerodable rock, 1 = soil); same shape as the terrain.
    /// Default `None` (1 everywhere).
    pub hardness: Option<Grid<f64>>,
    /// Edge condition. Default [`Boundary::Closed`].
    pub boundary: Boundary,
    /// MacCormack correction of the sediment advection. Default false (plain semi-Lagrangian).
    pub maccormack: bool,
}

impl Default for ShallowWaterParams {
    fn default() -> Self {
        Self {
            dt: None,
            steps: 500,
            gravity: 9.81,
            pipe_depth: 1.0,
            flux_damping: 0.0,
            rain_rate: 0.0,
            rain_map: None,
            sources: Vec::new(),
            capacity: 0.5,
            dissolve: 0.3,
            deposit: 0.3,
            min_sin_tilt: 0.01,
            evaporation: 0.0,
            min_depth: 1e-6,
            hardness: None,
            boundary: Boundary::Closed,
            maccormack: false,
        }
    }
}

/// The largest stable time step (s) of the flux/depth update for cell size `dx × dy` (m), gravity
/// `g` (m/s²) and pipe depth `pipe_depth` (m): `1 / (√2 · √(g·pipe_depth) · √(1/dx² + 1/dy²))`
/// (see the module documentation's "Stability").
pub fn stable_dt(dx: f64, dy: f64, g: f64, pipe_depth: f64) -> f64 {
    std::f64::consts::FRAC_1_SQRT_2 / ((g * pipe_depth).sqrt() * (1.0 / (dx * dx) + 1.0 / (dy * dy)).sqrt())
}

/// A strata hardness map: heights in bands of `thickness` metres, the lowest `hard_fraction` of
/// each band is rock with hardness `hard`, the rest soil with hardness `soft`. Band edges are
/// sharp, so layered cliffs and benches emerge as the soft layers wash out.
pub fn banded_hardness(terrain: &Grid<f64>, thickness: f64, hard_fraction: f64, hard: f64, soft: f64) -> Grid<f64> {
    assert!(thickness > 0.0, "banded_hardness: thickness must be positive");
    terrain.map(|&h| {
        let t = h / thickness;
        if t - t.floor() < hard_fraction {
            hard
        } else {
            soft
        }
    })
}

/// What [`ShallowWater::into_output`] / [`shallow_water`] return. All grids have the terrain's
/// shape and cell size.
#[derive(Debug, Clone, PartialEq)]
pub struct ShallowWaterOutput {
    /// Terrain height, m.
    pub height: Grid<f64>,
    /// Water depth, m.
    pub water: Grid<f64>,
    /// Velocity along +x (columns), m/s.
    pub vx: Grid<f64>,
    /// Velocity along +y (rows, southwards), m/s.
    pub vy: Grid<f64>,
    /// Suspended sediment, m.
    pub sediment: Grid<f64>,
    /// Cumulative depth dissolved from the bed, m (≥ 0).
    pub eroded: Grid<f64>,
    /// Cumulative depth deposited on the bed, m (≥ 0).
    pub deposited: Grid<f64>,
}

/// A running pipe-model simulation. See the module documentation.
#[derive(Debug, Clone)]
pub struct ShallowWater {
    w: usize,
    h: usize,
    dx: f64,
    dy: f64,
    dt: f64,
    p: ShallowWaterParams,
    /// Uniform water increment per step `Δt · r` (m) when `inc_map` is `None`.
    inc: f32,
    /// Per-cell water increment per step `Δt · (rain map + sources)`, m.
    inc_map: Option<Vec<f32>>,
    /// `Ks · hardness · Δt` per cell (dimensionless).
    ks_dt_map: Option<Vec<f32>>,
    /// Terrain height, updated in place.
    b: Vec<f64>,
    /// Water depth, updated in place.
    d: Vec<f32>,
    /// Outflow fluxes, one array per direction (L, R, T, B), updated in place.
    flux: [Vec<f32>; 4],
    vx: Vec<f32>,
    vy: Vec<f32>,
    /// Sediment after stage 6 of the last step, *before* its advection (stage 7): the advection is
    /// done at the start of the next step's band pass, row by row (and by [`Self::into_output`]).
    sed_src: Vec<f32>,
    /// Where the band pass writes the next `sed_src` (ping-pong: the advection gathers from
    /// anywhere in `sed_src`).
    sed_new: Vec<f32>,
    /// MacCormack only: the forward trace `ŝ` of `sed_src`.
    sed_fwd: Vec<f32>,
    eroded: Vec<f32>,
    deposited: Vec<f32>,
    /// Per band: the new fluxes (L, R, T, B) of its first and of its last row (8 rows of `w`).
    halo_f: Vec<f32>,
    /// Per band: the old terrain of its first and of its last row (2 rows of `w`).
    halo_b: Vec<f64>,
    steps_done: usize,
}

/// The per-step water increment: uniform or per cell.
#[derive(Clone, Copy)]
enum Inc<'a> {
    Uniform(f32),
    Map(&'a [f32]),
}

impl<'a> Inc<'a> {
    fn of(map: &'a Option<Vec<f32>>, uniform: f32) -> Self {
        match map {
            Some(m) => Inc::Map(m),
            None => Inc::Uniform(uniform),
        }
    }

    /// `out[x] = d[x] + inc` for the row `d` that starts at flat index `start`.
    fn row(self, out: &mut [f32], d: &[f32], start: usize) {
        let d = &d[..out.len()];
        match self {
            Inc::Uniform(v) => out.iter_mut().zip(d).for_each(|(o, &d)| *o = d + v),
            Inc::Map(m) => {
                let m = &m[start..start + out.len()];
                out.iter_mut().zip(d.iter().zip(m)).for_each(|(o, (&d, &m))| *o = d + m);
            }
        }
    }
}

/// Constants of the flux pass (f32, precomputed once per step).
#[derive(Clone, Copy)]
struct FluxK {
    /// `Δt · A_x · g / l_x` and `Δt · A_y · g / l_y`.
    ax: f32,
    ay: f32,
    /// `1 / (1 + κΔt)`.
    damp: f32,
    /// `lx · ly / Δt`.
    area_dt: f32,
    open: bool,
}

/// Constants of the depth/erosion pass (f32).
#[derive(Clone, Copy)]
struct DepthK {
    /// `Δt / (lx · ly)`.
    dt_area: f32,
    /// `1 / (2 ly)`, `1 / (2 lx)`: the velocity is `ΔW_x · hx / d̄`.
    hx: f32,
    hy: f32,
    min_depth: f32,
    /// `1 / (2 dx)`, `1 / (2 dy)` for the central differences.
    inv_2dx: f32,
    inv_2dy: f32,
    kc: f32,
    min_sin2: f32,
    kd_dt: f32,
    evap: f32,
}

/// One pipe's new flux: `max(0, f · damp + a · ΔH)`.
#[inline(always)]
fn pipe(f: f32, damp: f32, a: f32, dh: f32) -> f32 {
    (f * damp + a * dh).max(0.0)
}

/// Limiter: scale the four outflows so the cell never sends more than `d1 · lx · ly / Δt`.
#[inline(always)]
fn limit(fl: f32, fr: f32, ft: f32, fb: f32, d1: f32, area_dt: f32) -> [f32; 4] {
    let sum = fl + fr + ft + fb;
    let k = if sum > 0.0 { (d1 * area_dt / sum).min(1.0) } else { 0.0 };
    [fl * k, fr * k, ft * k, fb * k]
}

/// The cell update of stages 3–6 once the four inflows, four outflows and tilt are known.
/// Returns `(d_out, vx, vy, s, Δb, eroded, deposited)`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn cell_update(
    k: &DepthK,
    d1: f32,
    inflow: [f32; 4],
    out: [f32; 4],
    gx: f32,
    gy: f32,
    s: f32,
    ks_dt: f32,
) -> (f32, f32, f32, f32, f32, f32, f32) {
    let [in_l, in_r, in_t, in_b] = inflow;
    let [fl, fr, ft, fb] = out;
    let d2 = (d1 + ((in_l + in_r + in_t + in_b) - (fl + fr + ft + fb)) * k.dt_area).max(0.0);
    let dbar = 0.5 * (d1 + d2);
    let inv = if dbar > k.min_depth { 1.0 / dbar } else { 0.0 };
    let vx = ((in_l - fl) + (fr - in_r)) * k.hx * inv;
    let vy = ((in_t - ft) + (fb - in_b)) * k.hy * inv;
    // C = Kc · max(sin α, sin_min) · |v| with sin²α = g² / (1 + g²), one square root.
    let g2 = gx * gx + gy * gy;
    let sin2 = (g2 / (1.0 + g2)).max(k.min_sin2);
    let cap = k.kc * (sin2 * (vx * vx + vy * vy)).sqrt();
    let diff = cap - s;
    let (er, dp) = if diff > 0.0 { (ks_dt * diff, 0.0) } else { (0.0, (-diff * k.kd_dt).min(s)) };
    (d2 * k.evap, vx, vy, s + er - dp, dp - er, er, dp)
}

/// Mutable output rows of the depth/erosion pass.
struct DepthRows<'a> {
    b: &'a mut [f64],
    d: &'a mut [f32],
    vx: &'a mut [f32],
    vy: &'a mut [f32],
    s: &'a mut [f32],
    er: &'a mut [f32],
    dp: &'a mut [f32],
}

impl DepthRows<'_> {
    #[inline(always)]
    #[allow(clippy::type_complexity)]
    fn put(&mut self, x: usize, b: f64, r: (f32, f32, f32, f32, f32, f32, f32)) {
        self.d[x] = r.0;
        self.vx[x] = r.1;
        self.vy[x] = r.2;
        self.s[x] = r.3;
        self.b[x] = b + r.4 as f64;
        self.er[x] += r.5;
        self.dp[x] += r.6;
    }
}

impl ShallowWaterParams {
    /// Checks the scalar ranges; `Err` names the first bad parameter by field name: `steps` at
    /// least 1; `dt` (when given), `gravity` and `pipe_depth` finite and above 0; `flux_damping`,
    /// `rain_rate`, `capacity`, `dissolve`, `deposit`, `min_sin_tilt`, `evaporation` and
    /// `min_depth` finite and ≥ 0. The maps are checked against the terrain when the run starts
    /// ([`ShallowWaterParams::check_hardness`]); callers may add tighter caps of their own.
    ///
    /// # Examples
    ///
    /// ```
    /// use bozkir_terrain::erosion::shallow_water::ShallowWaterParams;
    ///
    /// assert!(ShallowWaterParams::default().validate().is_ok());
    /// let bad = ShallowWaterParams { rain_rate: -1.0, ..ShallowWaterParams::default() };
    /// assert_eq!(bad.validate().unwrap_err().param, "rain_rate");
    /// ```
    pub fn validate(&self) -> Result<(), crate::ParamError> {
        use crate::ParamError as E;
        let non_negative = |name: &'static str, v: f64| {
            if !v.is_finite() || v < 0.0 {
                return Err(E::new(name, format!("shallow_water: {name} must be a finite number ≥ 0, got {v}")));
            }
            Ok(())
        };
        let positive = |name: &'static str, v: f64| {
            if !v.is_finite() || v <= 0.0 {
                return Err(E::new(name, format!("shallow_water: {name} must be a finite number above 0, got {v}")));
            }
            Ok(())
        };
        if self.steps == 0 {
            return Err(E::new("steps", "shallow_water: steps must be at least 1, got 0"));
        }
        if let Some(dt) = self.dt {
            positive("dt", dt)?;
        }
        positive("gravity", self.gravity)?;
        positive("pipe_depth", self.pipe_depth)?;
        non_negative("flux_damping", self.flux_damping)?;
        non_negative("rain_rate", self.rain_rate)?;
        non_negative("capacity", self.capacity)?;
        non_negative("dissolve", self.dissolve)?;
        non_negative("deposit", self.deposit)?;
        non_negative("min_sin_tilt", self.min_sin_tilt)?;
        non_negative("evaporation", self.evaporation)?;
        non_negative("min_depth", self.min_depth)
    }

    /// Check the hardness map (shape `w × h`, no negative value) and the dissolving bound
    /// `0 ≤ dissolve·max(hardness)·dt ≤ 1`; panics naming the problem. Shared with the GPU kernel.
    pub fn check_hardness(&self, w: usize, h: usize, dt: f64) {
        let max_hard = match &self.hardness {
            Some(g) => {
                assert!(g.width() == w && g.height() == h, "ShallowWater: hardness map shape differs from the terrain");
                assert!(g.data().iter().all(|v| *v >= 0.0), "ShallowWater: negative hardness");
                g.data().iter().copied().fold(0.0, f64::max)
            }
            None => 1.0,
        };
        assert!(
            self.dissolve >= 0.0 && self.dissolve * max_hard * dt <= 1.0,
            "ShallowWater: need 0 <= dissolve*hardness*dt <= 1"
        );
    }
}

impl ShallowWater {
    /// Start a simulation on `terrain` (metres, with its `dx`, `dy`), dry and sediment-free.
    /// Panics on an empty grid, non-positive cell size or time step, maps of the wrong shape,
    /// sources outside the grid, or rates that break the bounds in the module documentation.
    pub fn new(terrain: &Grid<f64>, params: &ShallowWaterParams) -> Self {
        let (w, h) = (terrain.width(), terrain.height());
        assert!(w > 0 && h > 0, "ShallowWater: empty terrain");
        let (dx, dy) = (terrain.dx, terrain.dy);
        assert!(dx > 0.0 && dy > 0.0, "ShallowWater: cell size must be positive");
        let p = params.clone();
        assert!(p.gravity > 0.0 && p.pipe_depth > 0.0, "ShallowWater: gravity and pipe_depth must be positive");
        let dt = p.dt.unwrap_or(0.5 * stable_dt(dx, dy, p.gravity, p.pipe_depth));
        assert!(dt > 0.0 && dt.is_finite(), "ShallowWater: dt must be positive");
        assert!(p.flux_damping >= 0.0 && p.capacity >= 0.0 && p.min_sin_tilt >= 0.0, "ShallowWater: negative rate");
        assert!(p.deposit >= 0.0 && p.deposit * dt <= 1.0, "ShallowWater: need 0 <= deposit*dt <= 1");
        assert!(p.evaporation >= 0.0 && p.evaporation * dt <= 1.0, "ShallowWater: need 0 <= evaporation*dt <= 1");
        let same = |g: &Grid<f64>| g.width() == w && g.height() == h;
        let n = w * h;
        p.check_hardness(w, h, dt);
        let ks_dt_map = p.hardness.as_ref().map(|g| g.data().iter().map(|&v| (p.dissolve * v * dt) as f32).collect());
        let inc_map = if p.rain_map.is_some() || !p.sources.is_empty() {
            let mut v: Vec<f64> = match &p.rain_map {
                Some(g) => {
                    assert!(same(g), "ShallowWater: rain map shape differs from the terrain");
                    g.data().to_vec()
                }
                None => vec![p.rain_rate; n],
            };
            for s in &p.sources {
                assert!(s.x < w && s.y < h, "ShallowWater: point source outside the grid");
                v[s.y * w + s.x] += s.rate / (dx * dy);
            }
            Some(v.into_iter().map(|r| (r * dt) as f32).collect())
        } else {
            None
        };
        let z = || vec![0.0f32; n];
        Self {
            w,
            h,
            dx,
            dy,
            dt,
            inc: (p.rain_rate * dt) as f32,
            inc_map,
            ks_dt_map,
            b: terrain.data().to_vec(),
            d: z(),
            flux: [z(), z(), z(), z()],
            vx: z(),
            vy: z(),
            // Zero advected by a zero velocity is zero: the initial sediment-free state.
            sed_src: z(),
            sed_new: z(),
            sed_fwd: if p.maccormack { z() } else { Vec::new() },
            eroded: z(),
            deposited: z(),
            halo_f: vec![0.0; h.div_ceil(BAND) * 8 * w],
            halo_b: vec![0.0; h.div_ceil(BAND) * 2 * w],
            steps_done: 0,
            p,
        }
    }

    /// The time step in use, s.
    pub fn dt(&self) -> f64 {
        self.dt
    }

    /// Steps run so far.
    pub fn steps_done(&self) -> usize {
        self.steps_done
    }

    /// Replace the water depth (m; negative values are taken as 0). Panics on a shape mismatch.
    pub fn set_water(&mut self, water: &Grid<f64>) {
        assert!(water.width() == self.w && water.height() == self.h, "set_water: shape differs");
        for (d, &v) in self.d.iter_mut().zip(water.data()) {
            *d = v.max(0.0) as f32;
        }
    }

    /// Total water volume in m³ (summed in index order, f64).
    pub fn water_volume(&self) -> f64 {
        self.d.iter().map(|&v| v as f64).sum::<f64>() * self.dx * self.dy
    }

    /// Terrain height, m.
    pub fn height(&self) -> Grid<f64> {
        self.grid(self.b.clone())
    }

    /// Water depth, m.
    pub fn water(&self) -> Grid<f64> {
        self.grid(self.d.iter().map(|&v| v as f64).collect())
    }

    /// Water surface `b + d`, m.
    pub fn surface(&self) -> Grid<f64> {
        self.grid(self.b.iter().zip(&self.d).map(|(&b, &d)| b + d as f64).collect())
    }

    fn grid(&self, v: Vec<f64>) -> Grid<f64> {
        Grid::from_vec(self.w, self.h, v).with_cell_size(self.dx, self.dy)
    }

    /// Run `steps` steps, reporting to `progress` (stage `"shallow water"`) every 1/64 of the run
    /// and stopping early when it is cancelled.
    pub fn run(&mut self, steps: usize, progress: &dyn Progress) {
        let every = (steps / 64).max(1);
        for k in 0..steps {
            if progress.cancelled() {
                return;
            }
            self.step();
            if (k + 1) % every == 0 || k + 1 == steps {
                progress.report("shallow water", (k + 1) as u64, steps as u64);
            }
        }
    }

    /// The suspended sediment: the pending advection (stage 7) of the last step applied.
    fn sediment(&self) -> Vec<f32> {
        let (w, adv) = (self.w, self.adv());
        let mut fwd = vec![0.0f32; if self.p.maccormack { w * self.h } else { 0 }];
        if self.p.maccormack {
            forward_trace(&adv, &self.sed_src, &self.vx, &self.vy, &mut fwd);
        }
        let mut out = vec![0.0f32; w * self.h];
        out.par_chunks_mut(w).enumerate().for_each(|(y, o)| {
            let r = y * w..(y + 1) * w;
            adv.row(&self.sed_src, &fwd, &self.vx[r.clone()], &self.vy[r], y, o);
        });
        out
    }

    /// The state as grids.
    pub fn into_output(self) -> ShallowWaterOutput {
        let f = |v: &[f32]| {
            Grid::from_vec(self.w, self.h, v.iter().map(|&v| v as f64).collect()).with_cell_size(self.dx, self.dy)
        };
        ShallowWaterOutput {
            height: self.grid(self.b.clone()),
            water: f(&self.d),
            vx: f(&self.vx),
            vy: f(&self.vy),
            sediment: f(&self.sediment()),
            eroded: f(&self.eroded),
            deposited: f(&self.deposited),
        }
    }

    fn adv(&self) -> Adv {
        Adv {
            k: AdvK::new(self.w, self.h),
            sx: (self.dt / self.dx) as f32,
            sy: (self.dt / self.dy) as f32,
            maccormack: self.p.maccormack,
        }
    }

    fn flux_k(&self) -> FluxK {
        let (dt, dx, dy, p) = (self.dt, self.dx, self.dy, &self.p);
        let (g, hp) = (p.gravity, p.pipe_depth);
        FluxK {
            ax: (dt * g * hp * dy / dx) as f32,
            ay: (dt * g * hp * dx / dy) as f32,
            damp: (1.0 / (1.0 + p.flux_damping * dt)) as f32,
            area_dt: (dx * dy / dt) as f32,
            open: p.boundary == Boundary::Open,
        }
    }

    /// One time step (all seven stages of the module documentation). The previous step's sediment
    /// advection (stage 7) is done here, fused into the band pass (see the module documentation, "Determinism").
    pub fn step(&mut self) {
        let adv = self.adv();
        if adv.maccormack {
            forward_trace(&adv, &self.sed_src, &self.vx, &self.vy, &mut self.sed_fwd);
        }
        self.halo_pass();
        self.band_pass(&adv);
        std::mem::swap(&mut self.sed_src, &mut self.sed_new);
        self.steps_done += 1;
    }

    /// The new fluxes of the first and last row of every band (into `halo_f`), and a copy of those
    /// rows' old terrain (into `halo_b`), from the previous state. The band pass then updates the
    /// planes in place: a band reads its neighbours' edge rows only from here.
    fn halo_pass(&mut self) {
        let (w, h) = (self.w, self.h);
        let fk = self.flux_k();
        let inc = Inc::of(&self.inc_map, self.inc);
        let (b, d, fo) = (&self.b, &self.d, &self.flux);
        self.halo_f.par_chunks_mut(8 * w).zip(self.halo_b.par_chunks_mut(2 * w)).enumerate().for_each_init(
            || vec![0.0f32; 3 * w],
            |scr, (bi, (hf, hb))| {
                let y0 = bi * BAND;
                let y1 = (y0 + BAND).min(h);
                for (slot, y) in [(0, y0), (1, y1 - 1)] {
                    let i0 = y * w;
                    hb[slot * w..(slot + 1) * w].copy_from_slice(&b[i0..i0 + w]);
                    let (fl, rest) = hf[slot * 4 * w..(slot + 1) * 4 * w].split_at_mut(w);
                    let (fr, rest) = rest.split_at_mut(w);
                    let (ft, fb) = rest.split_at_mut(w);
                    for (o, f) in [&mut *fl, &mut *fr, &mut *ft, &mut *fb].into_iter().zip(fo) {
                        o.copy_from_slice(&f[i0..i0 + w]);
                    }
                    let (du, rest) = scr.split_at_mut(w);
                    let (dc, dd) = rest.split_at_mut(w);
                    inc.row(dc, &d[i0..], i0);
                    let up = if y > 0 {
                        inc.row(du, &d[i0 - w..], i0 - w);
                        Some((&b[i0 - w..i0], &*du))
                    } else {
                        None
                    };
                    let dn = if y + 1 < h {
                        inc.row(dd, &d[i0 + w..], i0 + w);
                        Some((&b[i0 + w..i0 + 2 * w], &*dd))
                    } else {
                        None
                    };
                    flux_row(&fk, up, &b[i0..i0 + w], dc, dn, fl, fr, ft, fb);
                }
            },
        );
    }

    /// Stages 1–6, plus stage 7 of the previous step, fused over bands of [`BAND`] rows and done in
    /// place. A band walks its rows once: the rain-adjusted depth `d₁` of the row below enters a
    /// ring of three rows, the row's new fluxes are computed (its first and last row's were computed
    /// by [`Self::halo_pass`]), and, one row behind, the sediment of the row above is advected and
    /// its depth/velocity/erosion update is written, reading the fresh fluxes back from cache.
    /// Every value read is from the previous state: a row's old `d` and `b` are overwritten only
    /// once no later row of the band needs them (the old `b` of the row above is kept in a ring of
    /// two rows; the tilt needs it), and neighbouring bands' edge rows are read from the halo.
    fn band_pass(&mut self, adv: &Adv) {
        let (w, h) = (self.w, self.h);
        let (dt, dx, dy, p) = (self.dt, self.dx, self.dy, &self.p);
        let fk = self.flux_k();
        let dk = DepthK {
            dt_area: (dt / (dx * dy)) as f32,
            hx: (0.5 / dy) as f32,
            hy: (0.5 / dx) as f32,
            min_depth: p.min_depth as f32,
            inv_2dx: (0.5 / dx) as f32,
            inv_2dy: (0.5 / dy) as f32,
            kc: p.capacity as f32,
            min_sin2: (p.min_sin_tilt * p.min_sin_tilt) as f32,
            kd_dt: (p.deposit * dt) as f32,
            evap: (1.0 - p.evaporation * dt) as f32,
        };
        let ks_dt = (p.dissolve * dt) as f32;
        let inc = Inc::of(&self.inc_map, self.inc);
        let ks_map = self.ks_dt_map.as_deref();
        let (halo_f, halo_b) = (&self.halo_f, &self.halo_b);
        let (sed_src, sed_fwd) = (&self.sed_src, &self.sed_fwd);
        let c = w * BAND;
        let [fl, fr, ft, fb] = &mut self.flux;
        (
            (fl.par_chunks_mut(c), fr.par_chunks_mut(c), ft.par_chunks_mut(c), fb.par_chunks_mut(c)),
            self.b.par_chunks_mut(c),
            self.d.par_chunks_mut(c),
            self.vx.par_chunks_mut(c),
            self.vy.par_chunks_mut(c),
            self.sed_new.par_chunks_mut(c),
            self.eroded.par_chunks_mut(c),
            self.deposited.par_chunks_mut(c),
        )
            .into_par_iter()
            .enumerate()
            .for_each_init(
                || (vec![0.0f32; 5 * w], vec![0.0f64; 2 * w]),
                |(scr, bring), (bi, ((fl, fr, ft, fb), bo, dio, vxo, vyo, so, ero, dpo))| {
                    let y0 = bi * BAND;
                    let rows = bo.len() / w;
                    let y1 = y0 + rows;
                    let own = &halo_f[bi * 8 * w..(bi + 1) * 8 * w];
                    // f_B and old b of the row above the band, f_T and old b of the row below.
                    let above = (bi > 0).then(|| {
                        let (f, b) = (&halo_f[(bi - 1) * 8 * w..bi * 8 * w], &halo_b[(bi - 1) * 2 * w..bi * 2 * w]);
                        (&f[7 * w..], &b[w..])
                    });
                    let below = (y1 < h).then(|| {
                        let (f, b) = (&halo_f[(bi + 1) * 8 * w..(bi + 2) * 8 * w], &halo_b[(bi + 1) * 2 * w..]);
                        (&f[2 * w..3 * w], &b[..w])
                    });
                    let (ring, rest) = scr.split_at_mut(3 * w);
                    let (srow, ksr) = rest.split_at_mut(w);
                    if ks_map.is_none() {
                        ksr.fill(ks_dt);
                    }
                    let slot = |j: usize| (j % 3) * w..(j % 3 + 1) * w;
                    let rw = |j: usize| j * w..(j + 1) * w;
                    inc.row(&mut ring[slot(0)], dio, y0 * w);
                    for r in 0..=rows {
                        if r < rows {
                            if r + 1 < rows {
                                inc.row(&mut ring[slot(r + 1)], &dio[rw(r + 1)], (y0 + r + 1) * w);
                            }
                            if r == 0 || r + 1 == rows {
                                let s = if r == 0 { 0 } else { 4 * w };
                                for (k, o) in [&mut *fl, &mut *fr, &mut *ft, &mut *fb].into_iter().enumerate() {
                                    o[rw(r)].copy_from_slice(&own[s + k * w..s + (k + 1) * w]);
                                }
                            } else {
                                let (up, dn) = (r - 1, r + 1);
                                flux_row(
                                    &fk,
                                    Some((&bo[rw(up)], &ring[slot(up)])),
                                    &bo[rw(r)],
                                    &ring[slot(r)],
                                    Some((&bo[rw(dn)], &ring[slot(dn)])),
                                    &mut fl[rw(r)],
                                    &mut fr[rw(r)],
                                    &mut ft[rw(r)],
                                    &mut fb[rw(r)],
                                );
                            }
                        }
                        if r == 0 {
                            continue;
                        }
                        // The depth/erosion update of band row `q` (the fluxes of rows q-1..q+1 are new).
                        let q = r - 1;
                        let y = y0 + q;
                        // Stage 7 of the previous step for this row (reads the row's old vx, vy).
                        adv.row(sed_src, sed_fwd, &vxo[rw(q)], &vyo[rw(q)], y, srow);
                        let (bprev, bcur) = bring.split_at_mut(w);
                        let (bprev, bcur) = if q % 2 == 0 { (bcur, bprev) } else { (bprev, bcur) };
                        bcur.copy_from_slice(&bo[rw(q)]);
                        let (bup, bdn) = bo.split_at_mut((q + 1) * w);
                        let nbh = FluxNbh {
                            l: &fl[rw(q)],
                            r: &fr[rw(q)],
                            t: &ft[rw(q)],
                            b: &fb[rw(q)],
                            b_up: if q == 0 { above.map(|a| a.0) } else { Some(&fb[rw(q - 1)]) },
                            t_dn: if q + 1 == rows { below.map(|a| a.0) } else { Some(&ft[rw(q + 1)]) },
                        };
                        let rows_in = DepthRowsIn {
                            bu: if q == 0 { above.map(|a| a.1) } else { Some(&*bprev) },
                            bc: bcur,
                            bd: if q + 1 == rows { below.map(|a| a.1) } else { Some(&bdn[..w]) },
                            d1: &ring[slot(q)],
                            s: srow,
                            ks: match ks_map {
                                Some(m) => &m[y * w..(y + 1) * w],
                                None => ksr,
                            },
                        };
                        let out = DepthRows {
                            b: &mut bup[q * w..],
                            d: &mut dio[rw(q)],
                            vx: &mut vxo[rw(q)],
                            vy: &mut vyo[rw(q)],
                            s: &mut so[rw(q)],
                            er: &mut ero[rw(q)],
                            dp: &mut dpo[rw(q)],
                        };
                        depth_row(&dk, dx, dy, &rows_in, &nbh, out);
                    }
                },
            );
    }
}

/// Rows per band of the fused pass (the unit of parallel work). The first and last row of each
/// band get their fluxes from [`ShallowWater::halo_pass`] (the same work, done beforehand).
const BAND: usize = 32;

/// New outflow fluxes of one row. `up`/`dn`: the terrain and rain-adjusted depth `d₁` of the rows
/// above and below (`None` past the grid's edge); `bc`, `dc`: the row's own. `fl, fr, ft, fb` hold
/// the row's old fluxes on entry and its new ones on return.
#[allow(clippy::too_many_arguments)]
fn flux_row(
    k: &FluxK,
    up: Option<(&[f64], &[f32])>,
    bc: &[f64],
    dc: &[f32],
    dn: Option<(&[f64], &[f32])>,
    fl: &mut [f32],
    fr: &mut [f32],
    ft: &mut [f32],
    fb: &mut [f32],
) {
    let w = bc.len();
    let interior = match (up, dn) {
        (Some((bu, du)), Some((bd, dd))) if w >= 3 => {
            flux_row_interior(k, &FluxRows { bu, bc, bd, du, dc, dd }, fl, fr, ft, fb);
            true
        }
        _ => false,
    };
    // Any cell, with the boundary cases (the edge columns, and all of the top and bottom rows).
    let edge = |x: usize| {
        let (hb, di) = (bc[x], dc[x]);
        let one = |f: f32, a: f32, n: Option<(f64, f32)>| match n {
            Some((bn, dn)) => pipe(f, k.damp, a, (hb - bn) as f32 + (di - dn)),
            None if k.open => pipe(f, k.damp, a, di),
            None => 0.0,
        };
        let [a, b, c, e] = limit(
            one(fl[x], k.ax, (x > 0).then(|| (bc[x - 1], dc[x - 1]))),
            one(fr[x], k.ax, (x + 1 < w).then(|| (bc[x + 1], dc[x + 1]))),
            one(ft[x], k.ay, up.map(|(b, d)| (b[x], d[x]))),
            one(fb[x], k.ay, dn.map(|(b, d)| (b[x], d[x]))),
            di,
            k.area_dt,
        );
        (fl[x], fr[x], ft[x], fb[x]) = (a, b, c, e);
    };
    edge_columns(interior, w, edge);
}

/// Run the scalar `edge` update where the vectorised interior kernel did not: on the first and
/// last columns when it ran (`interior`), else on every column of the row.
fn edge_columns(interior: bool, w: usize, mut edge: impl FnMut(usize)) {
    if interior {
        edge(0);
        edge(w - 1);
    } else {
        (0..w).for_each(edge);
    }
}

/// The new fluxes a row's depth update reads: its own four, `f_B` of the row above and `f_T` of
/// the row below (`None` at the grid's top/bottom edge).
struct FluxNbh<'a> {
    l: &'a [f32],
    r: &'a [f32],
    t: &'a [f32],
    b: &'a [f32],
    b_up: Option<&'a [f32]>,
    t_dn: Option<&'a [f32]>,
}

/// The other inputs of a row's depth update: old terrain of the row and of the rows above and
/// below (`None` past the grid's edge), `d₁`, the advected sediment and `Ks · hardness · Δt`.
struct DepthRowsIn<'a> {
    bu: Option<&'a [f64]>,
    bc: &'a [f64],
    bd: Option<&'a [f64]>,
    d1: &'a [f32],
    s: &'a [f32],
    ks: &'a [f32],
}

/// Depth, velocity, erosion/deposition and evaporation of one row.
fn depth_row(k: &DepthK, dx: f64, dy: f64, i: &DepthRowsIn, f: &FluxNbh, mut out: DepthRows) {
    let DepthRowsIn { bu, bc, bd, d1, s, ks } = *i;
    let w = bc.len();
    let interior = match (f.b_up, f.t_dn, bu, bd) {
        (Some(fb_up), Some(ft_dn), Some(bu), Some(bd)) if w >= 3 => {
            let rows = DepthIn { bu, bc, bd, d1, fl: f.l, fr: f.r, ft: f.t, fb: f.b, fb_up, ft_dn, s, ks };
            let o = &mut out;
            depth_row_interior(k, &rows, o.b, o.d, o.vx, o.vy, o.s, o.er, o.dp);
            true
        }
        _ => false,
    };
    // One-sided differences at the edges: the row itself stands in for a missing neighbour row.
    let (ru, nu) = bu.map_or((bc, 0), |r| (r, 1));
    let (rd, nd) = bd.map_or((bc, 0), |r| (r, 1));
    let edge = |x: usize| {
        let inflow = [
            if x > 0 { f.r[x - 1] } else { 0.0 },
            if x + 1 < w { f.l[x + 1] } else { 0.0 },
            f.b_up.map_or(0.0, |r| r[x]),
            f.t_dn.map_or(0.0, |r| r[x]),
        ];
        let outf = [f.l[x], f.r[x], f.t[x], f.b[x]];
        // Tilt from central differences (one-sided at the edges).
        let (xl, xr) = (x.saturating_sub(1), (x + 1).min(w - 1));
        let gx = if xr > xl { ((bc[xr] - bc[xl]) / ((xr - xl) as f64 * dx)) as f32 } else { 0.0 };
        let gy = if nu + nd > 0 { ((rd[x] - ru[x]) / ((nu + nd) as f64 * dy)) as f32 } else { 0.0 };
        let r = cell_update(k, d1[x], inflow, outf, gx, gy, s[x], ks[x]);
        out.put(x, bc[x], r);
    };
    edge_columns(interior, w, edge);
}

/// Input rows of the flux pass for one interior row (`d*`: the rain-adjusted depth `d₁`).
struct FluxRows<'a> {
    bu: &'a [f64],
    bc: &'a [f64],
    bd: &'a [f64],
    du: &'a [f32],
    dc: &'a [f32],
    dd: &'a [f32],
}

/// Flux update of columns `1..w-1` of an interior row, in place (`ol..ob` hold the old fluxes on
/// entry): no boundary branches, no bounds checks in the loop (every slice is re-sliced to `w`), so
/// it vectorises. `ΔH` is `(b − b_n)` (f64, rounded to f32) plus `(d₁ − d₁_n)` (f32).
#[inline(always)]
fn flux_row_kernel(k: &FluxK, r: &FluxRows, ol: &mut [f32], or: &mut [f32], ot: &mut [f32], ob: &mut [f32]) {
    let w = r.bc.len();
    let (bu, bc, bd) = (&r.bu[..w], &r.bc[..w], &r.bd[..w]);
    let (du, dc, dd) = (&r.du[..w], &r.dc[..w], &r.dd[..w]);
    let (ol, or, ot, ob) = (&mut ol[..w], &mut or[..w], &mut ot[..w], &mut ob[..w]);
    let FluxK { ax, ay, damp, area_dt, .. } = *k;
    for x in 1..w - 1 {
        let (hb, di) = (bc[x], dc[x]);
        let dl = (hb - bc[x - 1]) as f32 + (di - dc[x - 1]);
        let dr = (hb - bc[x + 1]) as f32 + (di - dc[x + 1]);
        let dt_ = (hb - bu[x]) as f32 + (di - du[x]);
        let db = (hb - bd[x]) as f32 + (di - dd[x]);
        let [a, b, c, e] = limit(
            pipe(ol[x], damp, ax, dl),
            pipe(or[x], damp, ax, dr),
            pipe(ot[x], damp, ay, dt_),
            pipe(ob[x], damp, ay, db),
            di,
            area_dt,
        );
        ol[x] = a;
        or[x] = b;
        ot[x] = c;
        ob[x] = e;
    }
}

/// [`flux_row_kernel`] compiled for AVX2 (8 f32 lanes; the baseline x86-64 build only has SSE2,
/// whose cost model also declines to vectorise the depth/erosion kernel). No FMA is enabled and
/// Rust never contracts `a * b + c`, so every operation is the same IEEE operation as in the
/// baseline build: the results are bit identical whichever version runs.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn flux_row_avx2(k: &FluxK, r: &FluxRows, ol: &mut [f32], or: &mut [f32], ot: &mut [f32], ob: &mut [f32]) {
    flux_row_kernel(k, r, ol, or, ot, ob);
}

#[inline(never)]
fn flux_row_interior(k: &FluxK, r: &FluxRows, ol: &mut [f32], or: &mut [f32], ot: &mut [f32], ob: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe { flux_row_avx2(k, r, ol, or, ot, ob) };
        return;
    }
    flux_row_kernel(k, r, ol, or, ot, ob);
}

/// Input rows of the depth/erosion pass for one interior row.
struct DepthIn<'a> {
    bu: &'a [f64],
    bc: &'a [f64],
    bd: &'a [f64],
    d1: &'a [f32],
    fl: &'a [f32],
    fr: &'a [f32],
    ft: &'a [f32],
    fb: &'a [f32],
    /// `f_B` of the row above and `f_T` of the row below (inflows from there).
    fb_up: &'a [f32],
    ft_dn: &'a [f32],
    s: &'a [f32],
    ks: &'a [f32],
}

/// Stages 3–6 on columns `1..w-1` of an interior row (branch-free, vectorisable).
///
/// The outputs are separate `&mut` arguments (not fields of a struct) so the compiler knows they
/// do not alias the inputs and vectorises without run-time overlap checks.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn depth_row_kernel(
    k: &DepthK,
    r: &DepthIn,
    ob: &mut [f64],
    od: &mut [f32],
    ovx: &mut [f32],
    ovy: &mut [f32],
    os: &mut [f32],
    oer: &mut [f32],
    odp: &mut [f32],
) {
    let w = r.bc.len();
    let (bu, bc, bd, d1) = (&r.bu[..w], &r.bc[..w], &r.bd[..w], &r.d1[..w]);
    let (fl, fr, ft, fb) = (&r.fl[..w], &r.fr[..w], &r.ft[..w], &r.fb[..w]);
    let (fb_up, ft_dn, s, ks) = (&r.fb_up[..w], &r.ft_dn[..w], &r.s[..w], &r.ks[..w]);
    let (ob, od, ovx, ovy) = (&mut ob[..w], &mut od[..w], &mut ovx[..w], &mut ovy[..w]);
    let (os, oer, odp) = (&mut os[..w], &mut oer[..w], &mut odp[..w]);
    for x in 1..w - 1 {
        let gx = (bc[x + 1] - bc[x - 1]) as f32 * k.inv_2dx;
        let gy = (bd[x] - bu[x]) as f32 * k.inv_2dy;
        let r = cell_update(
            k,
            d1[x],
            [fr[x - 1], fl[x + 1], fb_up[x], ft_dn[x]],
            [fl[x], fr[x], ft[x], fb[x]],
            gx,
            gy,
            s[x],
            ks[x],
        );
        od[x] = r.0;
        ovx[x] = r.1;
        ovy[x] = r.2;
        os[x] = r.3;
        ob[x] = bc[x] + r.4 as f64;
        oer[x] += r.5;
        odp[x] += r.6;
    }
}

/// [`depth_row_kernel`] compiled for AVX2 (see [`flux_row_avx2`]; bit identical results).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)]
fn depth_row_avx2(
    k: &DepthK,
    r: &DepthIn,
    ob: &mut [f64],
    od: &mut [f32],
    ovx: &mut [f32],
    ovy: &mut [f32],
    os: &mut [f32],
    oer: &mut [f32],
    odp: &mut [f32],
) {
    depth_row_kernel(k, r, ob, od, ovx, ovy, os, oer, odp);
}

#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn depth_row_interior(
    k: &DepthK,
    r: &DepthIn,
    ob: &mut [f64],
    od: &mut [f32],
    ovx: &mut [f32],
    ovy: &mut [f32],
    os: &mut [f32],
    oer: &mut [f32],
    odp: &mut [f32],
) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe { depth_row_avx2(k, r, ob, od, ovx, ovy, os, oer, odp) };
        return;
    }
    depth_row_kernel(k, r, ob, od, ovx, ovy, os, oer, odp);
}

/// Shape of the advected field, for the back-trace kernels.
#[derive(Clone, Copy)]
struct AdvK {
    w: usize,
    h: usize,
    /// `w − 1`, `h − 1` as f32: the clamp of the traced coordinates.
    xmax: f32,
    ymax: f32,
    /// `w · h ≤ i32::MAX` and `w, h ≤ 2²⁴` (so `xmax`, `ymax` are exact): the kernels may index
    /// in i32 and truncate the clamped coordinates without range checks.
    small: bool,
}

impl AdvK {
    fn new(w: usize, h: usize) -> Self {
        Self {
            w,
            h,
            xmax: (w - 1) as f32,
            ymax: (h - 1) as f32,
            small: w.saturating_mul(h) <= i32::MAX as usize && w.max(h) <= 1 << 24,
        }
    }
}

/// Bilinear sample of a row-major `w × h` f32 field at fractional cell coordinates
/// `(fx, fy) ∈ [0, w−1] × [0, h−1]`, with the minimum and maximum of the four stencil values.
/// Checked indexing; used for grids too large for [`bilinear_i32`].
#[inline(always)]
fn bilinear(v: &[f32], w: usize, h: usize, fx: f32, fy: f32) -> (f32, f32, f32) {
    // fx, fy >= 0, so truncation is floor (no libm call).
    let (x0, y0) = (fx as usize, fy as usize);
    let (tx, ty) = (fx - x0 as f32, fy - y0 as f32);
    let x1 = (x0 + 1).min(w - 1);
    let y1 = (y0 + 1).min(h - 1);
    let a = v[y0 * w + x0];
    let b = v[y0 * w + x1];
    let c = v[y1 * w + x0];
    let e = v[y1 * w + x1];
    lerp4(a, b, c, e, tx, ty)
}

/// The bilinear blend of the stencil `a b / c e` and its minimum and maximum.
#[inline(always)]
fn lerp4(a: f32, b: f32, c: f32, e: f32, tx: f32, ty: f32) -> (f32, f32, f32) {
    let top = a + (b - a) * tx;
    let bot = c + (e - c) * tx;
    (top + (bot - top) * ty, a.min(b).min(c).min(e), a.max(b).max(c).max(e))
}

/// [`bilinear`] with i32 index arithmetic and unchecked reads, so a loop over it vectorises.
/// For `(fx, fy)` in the documented range the result is bit identical to [`bilinear`] (the
/// truncation of a non-negative value is its floor either way, and the blend is [`lerp4`]).
///
/// # Safety
///
/// `k.small` (i.e. `k.w · k.h ≤ i32::MAX`) and `v.len() ≥ k.w · k.h`. Whatever `fx`, `fy` are
/// (negative, too large, NaN), the indices are in bounds: `as i32` saturates (NaN gives 0) and the
/// clamps put `x0, x1 ∈ [0, w−1]` and `y0, y1 ∈ [0, h−1]`, so every index `y·w + x` is in
/// `[0, w·h − 1]`, which fits an i32 without overflow and is below `v.len()`.
#[inline(always)]
unsafe fn bilinear_i32(v: &[f32], k: &AdvK, fx: f32, fy: f32) -> (f32, f32, f32) {
    let (wi, hi) = (k.w as i32, k.h as i32);
    let x0 = (fx as i32).clamp(0, wi - 1);
    let y0 = (fy as i32).clamp(0, hi - 1);
    let (tx, ty) = (fx - x0 as f32, fy - y0 as f32);
    let x1 = (x0 + 1).min(wi - 1);
    let r0 = y0 * wi;
    let r1 = (y0 + 1).min(hi - 1) * wi;
    // SAFETY: in bounds by the argument in the function's documentation.
    let (a, b, c, e) = unsafe {
        (
            *v.get_unchecked((r0 + x0) as usize),
            *v.get_unchecked((r0 + x1) as usize),
            *v.get_unchecked((r1 + x0) as usize),
            *v.get_unchecked((r1 + x1) as usize),
        )
    };
    lerp4(a, b, c, e, tx, ty)
}

/// Columns per chunk of [`trace_kernel`]'s stencil scratch (on the stack).
const TRACE_CHUNK: usize = 128;

/// Semi-Lagrangian trace of row `y`: `out[x] = src(clamp(x + u·cx), clamp(y + v·cy))` (bilinear),
/// `cx = ∓Δt/dx`, `cy = ∓Δt/dy` (negative for the usual backward trace).
///
/// On grids indexable in i32 this runs in chunks: a vectorised loop computes each cell's stencil
/// (flat index of its top-left value, offsets to the right and lower values, weights), then a scalar
/// loop reads the four values and blends them. Vectorised gathers of four scattered values per lane
/// are slower than plain loads here. The operations and their order are those of [`bilinear_i32`].
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn trace_kernel(k: &AdvK, src: &[f32], y: usize, vx: &[f32], vy: &[f32], cx: f32, cy: f32, out: &mut [f32]) {
    let w = out.len();
    let (vx, vy) = (&vx[..w], &vy[..w]);
    let yf = y as f32;
    if k.small && src.len() >= k.w * k.h {
        let (wi, hi) = (k.w as i32, k.h as i32);
        let mut idx = [0i32; TRACE_CHUNK];
        let mut ox = [0i32; TRACE_CHUNK];
        let mut oy = [0i32; TRACE_CHUNK];
        let mut tx = [0.0f32; TRACE_CHUNK];
        let mut ty = [0.0f32; TRACE_CHUNK];
        for ((vx, vy), (c, out)) in
            vx.chunks(TRACE_CHUNK).zip(vy.chunks(TRACE_CHUNK)).zip(out.chunks_mut(TRACE_CHUNK).enumerate())
        {
            let n = out.len();
            let x0 = c * TRACE_CHUNK;
            let (idx, ox, oy, tx, ty) = (&mut idx[..n], &mut ox[..n], &mut oy[..n], &mut tx[..n], &mut ty[..n]);
            let (vx, vy) = (&vx[..n], &vy[..n]);
            for j in 0..n {
                let fx = ((x0 + j) as f32 + vx[j] * cx).clamp(0.0, k.xmax);
                let fy = (yf + vy[j] * cy).clamp(0.0, k.ymax);
                // `as i32` of [`bilinear_i32`], NaN to 0 included, without its scalar NaN fix-up:
                // the value truncated is in [0, w−1] (a NaN fails `>= 0` and becomes 0).
                let (cxf, cyf) =
                    (if fx >= 0.0 { fx.min(k.xmax) } else { 0.0 }, if fy >= 0.0 { fy.min(k.ymax) } else { 0.0 });
                // SAFETY: `cxf`, `cyf` are finite and in [0, i32::MAX] (just above; `k.small`).
                let (xi, yi) = unsafe { (cxf.to_int_unchecked::<i32>(), cyf.to_int_unchecked::<i32>()) };
                let (xi, yi) = (xi.clamp(0, wi - 1), yi.clamp(0, hi - 1));
                tx[j] = fx - xi as f32;
                ty[j] = fy - yi as f32;
                idx[j] = yi * wi + xi;
                ox[j] = (xi + 1).min(wi - 1) - xi;
                oy[j] = ((yi + 1).min(hi - 1) - yi) * wi;
            }
            // SAFETY: `k.small` and `src.len() >= w·h` were checked above; the clamps put
            // `xi, xi + ox ∈ [0, w−1]` and `yi, yi + oy/w ∈ [0, h−1]`, so all four indices are in
            // `[0, w·h − 1]` (no i32 overflow, as `w·h ≤ i32::MAX`).
            unsafe { gather_blend(src, idx, ox, oy, tx, ty, out) };
        }
    } else {
        for (x, (o, (&u, &v))) in out.iter_mut().zip(vx.iter().zip(vy)).enumerate() {
            let fx = (x as f32 + u * cx).clamp(0.0, k.xmax);
            let fy = (yf + v * cy).clamp(0.0, k.ymax);
            *o = bilinear(src, k.w, k.h, fx, fy).0;
        }
    }
}

/// `out[j]` = the bilinear blend ([`lerp4`]) of `src` at `idx[j]`, `+ ox[j]`, `+ oy[j]`,
/// `+ ox[j] + oy[j]` with weights `tx[j]`, `ty[j]`; scalar loads.
///
/// # Safety
///
/// All slices have `out`'s length, and every `idx[j] + ox[j] + oy[j]` (each term ≥ 0) is below
/// `src.len()`.
#[inline(always)]
unsafe fn gather_blend(src: &[f32], idx: &[i32], ox: &[i32], oy: &[i32], tx: &[f32], ty: &[f32], out: &mut [f32]) {
    let n = out.len();
    let (idx, ox, oy, tx, ty) = (&idx[..n], &ox[..n], &oy[..n], &tx[..n], &ty[..n]);
    for j in 0..n {
        let (i, o1, o2) = (idx[j] as usize, ox[j] as usize, oy[j] as usize);
        // SAFETY: in bounds by the function's contract.
        let (a, b, c, e) = unsafe {
            (
                *src.get_unchecked(i),
                *src.get_unchecked(i + o1),
                *src.get_unchecked(i + o2),
                *src.get_unchecked(i + o2 + o1),
            )
        };
        out[j] = lerp4(a, b, c, e, tx[j], ty[j]).0;
    }
}

/// [`trace_kernel`] compiled for AVX2 (see [`flux_row_avx2`]; bit identical results).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)]
fn trace_avx2(k: &AdvK, src: &[f32], y: usize, vx: &[f32], vy: &[f32], cx: f32, cy: f32, out: &mut [f32]) {
    trace_kernel(k, src, y, vx, vy, cx, cy, out);
}

#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn trace_row(k: &AdvK, src: &[f32], y: usize, vx: &[f32], vy: &[f32], cx: f32, cy: f32, out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe { trace_avx2(k, src, y, vx, vy, cx, cy, out) };
        return;
    }
    trace_kernel(k, src, y, vx, vy, cx, cy, out);
}

/// The sediment advection (stage 7) of one step: shape, `Δt/dx`, `Δt/dy` and the scheme.
#[derive(Clone, Copy)]
struct Adv {
    k: AdvK,
    sx: f32,
    sy: f32,
    maccormack: bool,
}

impl Adv {
    /// Row `y` of the advected `src` into `out`, given that row's velocities (and, with MacCormack,
    /// the whole forward trace `fwd` of `src`; see [`forward_trace`]).
    #[allow(clippy::too_many_arguments)]
    fn row(&self, src: &[f32], fwd: &[f32], vx: &[f32], vy: &[f32], y: usize, out: &mut [f32]) {
        let (k, sx, sy) = (&self.k, self.sx, self.sy);
        if !self.maccormack {
            trace_row(k, src, y, vx, vy, -sx, -sy, out);
            return;
        }
        // s = ŝ + (s − s̃)/2 with s̃ = SL(ŝ, −v), clamped to the forward stencil.
        let w = k.w;
        let r = y * w..(y + 1) * w;
        let rows = MacRow { vx, vy, src_c: &src[r.clone()], fwd_c: &fwd[r] };
        maccormack_row(k, src, fwd, y, &rows, sx, sy, out);
    }
}

/// The forward semi-Lagrangian trace `ŝ = SL(s, v)` of the whole field (MacCormack's first half).
fn forward_trace(a: &Adv, src: &[f32], vx: &[f32], vy: &[f32], fwd: &mut [f32]) {
    let w = a.k.w;
    fwd.par_chunks_mut(w).enumerate().for_each(|(y, out)| {
        let r = y * w..(y + 1) * w;
        trace_row(&a.k, src, y, &vx[r.clone()], &vy[r], -a.sx, -a.sy, out);
    });
}

/// Row `y` inputs of the MacCormack correction.
struct MacRow<'a> {
    vx: &'a [f32],
    vy: &'a [f32],
    /// Row `y` of the advected field and of its forward trace `ŝ`.
    src_c: &'a [f32],
    fwd_c: &'a [f32],
}

/// MacCormack correction of row `y`: `s = ŝ + (s − s̃)/2` with `s̃` the trace of `ŝ` along `+v`,
/// clamped to the four values of the forward stencil.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn maccormack_kernel(k: &AdvK, src: &[f32], fwd: &[f32], y: usize, r: &MacRow, sx: f32, sy: f32, out: &mut [f32]) {
    let w = out.len();
    let (vx, vy, sc, fc) = (&r.vx[..w], &r.vy[..w], &r.src_c[..w], &r.fwd_c[..w]);
    let yf = y as f32;
    let n = k.w * k.h;
    let small = k.small && src.len() >= n && fwd.len() >= n;
    for x in 0..w {
        let (u, v) = (vx[x], vy[x]);
        let fx = (x as f32 - u * sx).clamp(0.0, k.xmax);
        let fy = (yf - v * sy).clamp(0.0, k.ymax);
        let bx = (x as f32 + u * sx).clamp(0.0, k.xmax);
        let by = (yf + v * sy).clamp(0.0, k.ymax);
        let ((_, lo, hi), back) = if small {
            // SAFETY: `k.small` and both lengths `>= w·h` were checked before the loop.
            unsafe { (bilinear_i32(src, k, fx, fy), bilinear_i32(fwd, k, bx, by).0) }
        } else {
            (bilinear(src, k.w, k.h, fx, fy), bilinear(fwd, k.w, k.h, bx, by).0)
        };
        let s = fc[x] + 0.5 * (sc[x] - back);
        out[x] = s.clamp(lo, hi);
    }
}

/// [`maccormack_kernel`] compiled for AVX2 (see [`flux_row_avx2`]; bit identical results).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)]
fn maccormack_avx2(k: &AdvK, src: &[f32], fwd: &[f32], y: usize, r: &MacRow, sx: f32, sy: f32, out: &mut [f32]) {
    maccormack_kernel(k, src, fwd, y, r, sx, sy, out);
}

#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn maccormack_row(k: &AdvK, src: &[f32], fwd: &[f32], y: usize, r: &MacRow, sx: f32, sy: f32, out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe { maccormack_avx2(k, src, fwd, y, r, sx, sy, out) };
        return;
    }
    maccormack_kernel(k, src, fwd, y, r, sx, sy, out);
}

/// Run `params.steps` steps on a dry, sediment-free `terrain` and return the final state.
pub fn shallow_water(terrain: &Grid<f64>, params: &ShallowWaterParams, progress: &dyn Progress) -> ShallowWaterOutput {
    let mut sim = ShallowWater::new(terrain, params);
    sim.run(params.steps, progress);
    sim.into_output()
}

#[cfg(test)]
mod tests {
    use super::*;
    use bozkir_core::hash::hash_unit;
    use bozkir_core::NoProgress;

    /// Value-noise terrain in metres (two octaves from the canonical hash).
    fn noise_terrain(n: usize, amp: f64, cell: f64) -> Grid<f64> {
        Grid::from_fn(n, n, |x, y| {
            let a = hash_unit(x as u32 / 4, y as u32 / 4, 7);
            let b = hash_unit(x as u32, y as u32, 8);
            amp * (0.8 * a + 0.2 * b)
        })
        .with_cell_size(cell, cell)
    }

    fn variance(v: &[f64]) -> f64 {
        let m = v.iter().sum::<f64>() / v.len() as f64;
        v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / v.len() as f64
    }

    #[test]
    fn stable_dt_formula() {
        let dt = stable_dt(1.0, 1.0, 9.81, 1.0);
        assert!((dt - 1.0 / (9.81f64.sqrt() * 2.0)).abs() < 1e-15);
        assert!((stable_dt(30.0, 30.0, 9.81, 1.0) / dt - 30.0).abs() < 1e-12);
    }

    #[test]
    fn closed_box_conserves_water() {
        let t = noise_terrain(48, 5.0, 1.0);
        let p = ShallowWaterParams { dissolve: 0.0, deposit: 0.0, ..Default::default() };
        let mut sim = ShallowWater::new(&t, &p);
        sim.set_water(&t.map(|&h| 0.5 + 0.1 * h));
        let v0 = sim.water_volume();
        sim.run(1000, &NoProgress);
        let v1 = sim.water_volume();
        assert!(((v1 - v0) / v0).abs() < 2e-6, "volume {v0} -> {v1}");
        // And with erosion on (water does not depend on the bed's mass, but it does on its shape).
        let mut sim = ShallowWater::new(&t, &ShallowWaterParams::default());
        sim.set_water(&t.map(|_| 0.3));
        let v0 = sim.water_volume();
        sim.run(500, &NoProgress);
        assert!(((sim.water_volume() - v0) / v0).abs() < 2e-6);
    }

    #[test]
    fn stable_on_noise_with_rain_at_default_dt() {
        let t = noise_terrain(64, 20.0, 2.0);
        let p = ShallowWaterParams {
            rain_rate: 1e-3,
            evaporation: 0.01,
            sources: vec![PointSource { x: 10, y: 10, rate: 2.0 }],
            ..Default::default()
        };
        let mut sim = ShallowWater::new(&t, &p);
        assert!((sim.dt() - 0.5 * stable_dt(2.0, 2.0, 9.81, 1.0)).abs() < 1e-15);
        sim.run(2000, &NoProgress);
        let out = sim.into_output();
        for g in [&out.height, &out.water, &out.vx, &out.vy, &out.sediment, &out.eroded, &out.deposited] {
            assert!(g.data().iter().all(|v| v.is_finite()));
        }
        assert!(out.water.data().iter().all(|&v| v >= 0.0));
        assert!(out.sediment.data().iter().all(|&v| v >= 0.0));
        assert!(out.eroded.data().iter().any(|&v| v > 0.0), "something eroded");
        let vmax = out.vx.data().iter().chain(out.vy.data()).fold(0.0f64, |m, v| m.max(v.abs()));
        assert!(vmax < 50.0, "velocity {vmax}");
    }

    #[test]
    fn bounded_at_the_stable_dt_bound() {
        // Just below the documented Δt_max on an anisotropic grid the undamped surface stays bounded.
        let t = noise_terrain(32, 1.0, 1.0).with_cell_size(1.0, 2.0);
        let dt = 0.95 * stable_dt(1.0, 2.0, 9.81, 1.0);
        let p = ShallowWaterParams { dt: Some(dt), dissolve: 0.0, deposit: 0.0, ..Default::default() };
        let mut sim = ShallowWater::new(&t, &p);
        // A flat surface at 3 m with a 1 m high block on it: waves, reversals, round-off noise.
        sim.set_water(&Grid::from_fn(32, 32, |x, y| 3.0 - t.get(x, y) + if x < 8 && y < 8 { 1.0 } else { 0.0 }));
        let v0 = sim.water_volume();
        sim.run(3000, &NoProgress);
        let s = sim.surface();
        let (lo, hi) = s.min_max().unwrap();
        assert!(hi - lo < 2.0 && lo > 2.0, "surface range {lo}..{hi}");
        assert!(((sim.water_volume() - v0) / v0).abs() < 5e-6);
    }

    #[test]
    fn dam_break_relaxes_to_flat_surface() {
        let n = 40;
        let t = Grid::new(n, n, 10.0).with_cell_size(1.5, 1.0);
        let p = ShallowWaterParams { flux_damping: 0.5, dissolve: 0.0, deposit: 0.0, ..Default::default() };
        let mut sim = ShallowWater::new(&t, &p);
        sim.set_water(&Grid::from_fn(
            n,
            n,
            |x, y| if (14..26).contains(&x) && (14..26).contains(&y) { 2.0 } else { 0.1 },
        ));
        let v0 = variance(sim.surface().data());
        let mut vars = vec![v0];
        for _ in 0..30 {
            sim.run(20, &NoProgress);
            vars.push(variance(sim.surface().data()));
        }
        let last = *vars.last().unwrap();
        assert!(last < 1e-4 * v0, "variance {v0} -> {last}");
        // Monotone-ish: every checkpoint below the one two before it, until round-off level.
        for k in 2..vars.len() {
            assert!(vars[k] < vars[k - 2] || vars[k] < 1e-9, "not relaxing at {k}: {vars:?}");
        }
        assert!(sim.water().data().iter().all(|&v| v >= 0.0));
    }

    #[test]
    fn zero_hardness_erodes_nothing() {
        let t = noise_terrain(32, 10.0, 1.0);
        let p = ShallowWaterParams { rain_rate: 1e-3, hardness: Some(t.map(|_| 0.0)), ..Default::default() };
        let out = shallow_water(&t, &ShallowWaterParams { steps: 300, ..p.clone() }, &NoProgress);
        assert_eq!(out.height, t);
        assert!(out.eroded.data().iter().all(|&v| v == 0.0));
        // Control: soil does erode.
        let out = shallow_water(&t, &ShallowWaterParams { steps: 300, hardness: None, ..p }, &NoProgress);
        assert!(out.eroded.data().iter().any(|&v| v > 0.0));
    }

    #[test]
    fn banded_hardness_bands() {
        let t = Grid::from_fn(1, 4, |_, y| y as f64 * 2.5);
        let g = banded_hardness(&t, 10.0, 0.5, 0.1, 1.0);
        assert_eq!(g.data(), &[0.1, 0.1, 1.0, 1.0]);
    }

    #[test]
    fn open_boundary_drains() {
        let t = Grid::new(16, 16, 0.0);
        let p = ShallowWaterParams { boundary: Boundary::Open, ..Default::default() };
        let mut sim = ShallowWater::new(&t, &p);
        sim.set_water(&t.map(|_| 1.0));
        let v0 = sim.water_volume();
        sim.run(400, &NoProgress);
        assert!(sim.water_volume() < 0.5 * v0);
    }

    #[test]
    fn thread_count_determinism() {
        let t = noise_terrain(64, 15.0, 1.0);
        for maccormack in [false, true] {
            let p = ShallowWaterParams {
                rain_rate: 5e-4,
                evaporation: 0.001,
                maccormack,
                steps: 200,
                hardness: Some(banded_hardness(&t, 3.0, 0.4, 0.2, 1.0)),
                ..Default::default()
            };
            let run = |n: usize| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .unwrap()
                    .install(|| shallow_water(&t, &p, &NoProgress))
            };
            let (a, b) = (run(1), run(2));
            assert_eq!(a, b);
            assert!(a.sediment.data().iter().all(|v| v.is_finite() && *v >= 0.0));
        }
    }
}

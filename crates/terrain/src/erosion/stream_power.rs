//! Implicit stream-power fluvial incision with uplift and hillslope diffusion, in physical units.
//!
//! Source: J. Braun & S. D. Willett (2013), "A very efficient O(n), implicit and parallel method to
//! solve the stream power equation governing fluvial incision and landscape evolution",
//! *Geomorphology* 180–181, 170–179. The equation is
//!
//! ```text
//! ∂h/∂t = U(x) − K · A^m · S^n + κ ∇²h,        n = 1
//! ```
//!
//! with `h` the elevation (m), `U` the rock uplift rate (m/yr), `A` the drainage area (m²), `S` the
//! slope towards the D8 receiver (m/m), `K` the incision coefficient (1/yr · m^(1−2m)) and `κ` the
//! hillslope diffusivity (m²/yr). For `n = 1`, B&W's implicit update of a cell `i` with receiver
//! `r`, visited after `r` has its new height, is the closed form
//!
//! ```text
//! h_i ← (h_i + F·h_r) / (1 + F),     F = K · dt · A_i^m / dist_ir.
//! ```
//!
//! The sediment proxy and the order of operations follow the original bozkír generator
//! (`reference/bozkir-inventory.md` §2.1), here in metres and years instead of normalised units.
//!
//! # One step
//!
//! 1. **Routing:** D8 receivers on the current heights ([`flow_graph`]), stack order, drainage area
//!    `A = (upstream cell count, exact integer) · dx·dy`, raised to `area_floor` and capped at
//!    `area_cap`.
//! 2. **Uplift:** interior cells `h += U · u(x) · dt` (`u` = the optional uplift map, 1 without).
//! 3. **Incision:** receivers first (stack order), the closed form above, evaluated as
//!    `h_r + (h_i − h_r)·G` with `G = 1/(1 + F) = dist/(dist + K·dt·A^m)` computed per cell in
//!    parallel beforehand (algebraically identical; it keeps the division off the sequential
//!    dependency chain).
//! 4. **Sediment proxy:** `qs_i` = this step's incision depth at `i` (m); donors first (reverse
//!    stack order) each cell keeps `dep = qs_i · settle_i` with `settle = 0.5 · s0 / (s0 + S_i)`,
//!    `s0 = 0.02`, `S_i` the post-incision slope to its receiver (evaluated as
//!    `0.5·s0·dist/(s0·dist + h_i − h_r)`), adds `dep` to its sediment record
//!    and passes `qs_i − dep` to its receiver; outlets keep all they receive. It is a *proxy* for
//!    deposition (where eroded material would settle: flats and gentle reaches), not a transport
//!    model; per step it redistributes exactly the incised depth, so Σ sediment = Σ eroded.
//! 5. **Diffusion** (`kappa > 0`): explicit FTCS 5-point Laplacian `κ·(∂²h/∂x² + ∂²h/∂y²)` on the
//!    interior, split into `ceil(2·κ·dt·(1/dx² + 1/dy²))` sub-steps so each satisfies the stability
//!    bound `κ·dt_sub·(1/dx² + 1/dy²) ≤ 1/2`. (Explicit, so a very large `κ·dt` costs many
//!    sub-steps; an implicit ADI solver would not, and is not implemented yet.)
//! 6. **Limiter** (only after diffusion, the one process that can undo step 3's guarantee): any
//!    interior cell at or below its receiver is raised to `f64::next_up(h_r)`, receivers first.
//!
//! # Boundary and depressions
//!
//! Border cells are fixed base level: they keep their initial heights and are outlets. Depressions
//! are removed **once**, at the start, with ε priority flood
//! ([`priority_flood::fill_epsilon`]), after which every interior cell has a strictly downhill D8
//! path to the border. No step creates a pit, so that one fill suffices:
//!
//! *Claim: after every step each interior cell `i` is strictly higher than the receiver `r(i)` it
//! had during that step, so the next routing finds a strictly lower neighbour for it and it is not
//! a pit.*
//!
//! *Proof.* During incision cells are visited in stack order, so `h_r` is already final when `i`
//! is updated. If `h_i > h_r` (before incision) and `F ≥ 0`, then in exact arithmetic
//! `(h_i + F h_r)/(1 + F) − h_r = (h_i − h_r)/(1 + F) > 0`: the new height is a convex combination
//! of `h_i` and `h_r` strictly above `h_r`. Rounding can spoil the strict inequality when `F` is
//! huge (`h_i − h_r` is below an ulp of `h_r` after division), and a non-uniform uplift map can make
//! `h_i ≤ h_r` before incision; therefore the update is
//! `h_i ← max(min(formula, h_i), f64::next_up(h_r))` — `next_up` being the next representable `f64`
//! above `h_r`, a step that never vanishes at high altitude (the `min` only undoes rounding above
//! `h_i` when `F` is tiny; the same clamps hold for the `h_r + (h_i − h_r)·G` evaluation). This
//! gives `h_i > h_r` after incision in floating point too. Without diffusion nothing else changes
//! `h` in the step. With diffusion, the limiter re-establishes `h_i > h_r`
//! in stack order: raising `i` can only break its donors' inequality, and they are visited after
//! `i`. Border cells are never moved, and an interior cell's receiver is a neighbour, so in the
//! next routing `i` has a strictly lower neighbour. ∎
//!
//! The clamp never lowers a cell, so with `U = 0` and `κ = 0` every height is non-increasing.
//! Raising (the clamp, the limiter) is not counted as erosion.
//!
//! # Determinism
//!
//! Routing and all per-cell passes (uplift, `G`, settling shares, diffusion, the limiter's check)
//! are pure per cell and run in parallel; the passes along the flow graph (stack with the area
//! count, incision, sediment flux, limiter fix) are sequential in the stack order of
//! [`flow_graph`], which is a function of the receivers only. The drainage area is an exact
//! integer count, so it does not depend on any order. `A^m` is `sqrt` (correctly rounded) when `m = 0.5`
//! and `libm::pow` otherwise. The result is bit-identical for any rayon thread count. The per-cell passes
//! (routing, factors, shares) also run as AVX2 builds where the CPU has them, with the same bits
//! (`bozkir_core::simd`; a test compares them with the portable loops).
//!
//! Passes that touch disjoint arrays overlap: without diffusion, a step's sediment flux pass runs
//! beside the next step's incision (or when the output is taken), and the next routing's stack is
//! peeled beside the per-cell sediment shares; with diffusion, the flux pass runs beside
//! diffusion, the limiter and the next routing. The outcome is that of the sequence above.
//!
//! The peel keeps each cell's receiver and drainage count on one 8-byte record and its
//! in-degree in a byte, so the walk down the drainage trees reads one cache line of records per
//! cell instead of three arrays' (`flow_graph::d8_peel_walk`).
//!
//! Heights must be finite; `NaN` cells are not supported (they would become pits).

use bozkir_core::memory::{prefault_zeroed, prefetch_at, zeroed_f64, zeroed_u32, zeroed_u64, zeroed_u8};
use bozkir_core::{Grid, Progress};
use rayon::prelude::*;

use crate::hydrology::flow_graph::{self, d8_fill_receivers, d8_peel_prepare, d8_peel_walk, D8Dist};
use crate::hydrology::priority_flood;

/// Settling-slope scale `s0` of the sediment proxy (m/m): `settle = 0.5·s0/(s0 + S)`.
pub const SETTLE_S0: f64 = 0.02;

/// Parameters of [`stream_power`]. Units are metres and years.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamPowerParams {
    /// Incision coefficient `K`, 1/yr · m^(1−2m) (for `m = 0.5`, 1/yr). Default `1e-5`.
    pub k: f64,
    /// Drainage-area exponent `m` (the slope exponent is `n = 1`). Default `0.5`.
    pub m: f64,
    /// Time step in years. The incision is implicit, so any `dt` is stable. Default `1000`.
    pub dt: f64,
    /// Number of steps. Default `100`.
    pub steps: usize,
    /// Rock uplift rate of interior cells, m/yr. Default `1e-3`.
    pub uplift: f64,
    /// Optional per-cell multiplier of `uplift` (same shape as the input). Default `None` (1).
    pub uplift_map: Option<Grid<f64>>,
    /// Hillslope diffusivity `κ`, m²/yr; `0` disables diffusion. Default `0.01`.
    pub kappa: f64,
    /// Optional cap on the drainage area in m² (for detail passes on a window of a larger basin).
    /// Default `None`.
    pub area_cap: Option<f64>,
    /// Optional floor on the drainage area in m², applied before the cap: `A = min(max(A, floor),
    /// cap)`. The fluvial law is calibrated at some cell size; on a finer grid a hilltop cell
    /// drains only its own small area, so with `kappa = 0` its equilibrium slope `U/(K·A^m)`
    /// grows without bound as the cells shrink. A floor of one cell at the calibrated size bounds
    /// that slope by the calibrated size's (slopes still steepen somewhat where resolved valleys
    /// are) and changes nothing at (or coarser than) that size. Default `None`.
    pub area_floor: Option<f64>,
    /// The incision clamps and the post-diffusion limiter (below, "Boundary and depressions").
    /// Default `true`. `false` runs the bare scheme the original bozkír profile generator runs:
    /// no clamp, no limiter, so diffusion may leave pits, which the next routing makes outlets.
    /// With `false` and cells of 1 × 1, this is the profile generator's walk (`profiles`),
    /// the same to rounding (about 1e-15 of the relief); the GPU takes it for
    /// `terrain --profile … --gpu`.
    pub guards: bool,
}

impl Default for StreamPowerParams {
    fn default() -> Self {
        Self {
            k: 1e-5,
            m: 0.5,
            dt: 1000.0,
            steps: 100,
            uplift: 1e-3,
            uplift_map: None,
            kappa: 0.01,
            area_cap: None,
            area_floor: None,
            guards: true,
        }
    }
}

/// Result of [`stream_power`].
#[derive(Debug, Clone, PartialEq)]
pub struct StreamPowerOutput {
    /// Final heights, m.
    pub height: Grid<f64>,
    /// Cumulative fluvial incision depth per cell, m (diffusion not included).
    pub eroded: Grid<f64>,
    /// Cumulative deposited-sediment proxy per cell, m (see the module docs).
    pub sediment: Grid<f64>,
    /// Steps completed (less than `params.steps` when cancelled).
    pub steps_run: usize,
}

/// Runs `params.steps` steps of stream-power erosion on `initial` (filled once with ε priority
/// flood first). Reports `("stream_power", step, steps)` after each step and stops early, with
/// the state after the last complete step, when `progress.cancelled()`.
pub fn stream_power(initial: &Grid<f64>, params: &StreamPowerParams, progress: &dyn Progress) -> StreamPowerOutput {
    let mut e = StreamPowerEroder::new(initial, params);
    for s in 0..params.steps {
        if progress.cancelled() {
            break;
        }
        e.step_impl(s + 1 < params.steps);
        progress.report("stream_power", (s + 1) as u64, params.steps as u64);
    }
    e.into_output()
}

/// Step-by-step stream-power erosion; [`stream_power`] drives it. Holds the state and reusable
/// work buffers, so a step allocates nothing.
#[derive(Debug, Clone)]
pub struct StreamPowerEroder {
    params: StreamPowerParams,
    w: usize,
    ht: usize,
    dx: f64,
    dy: f64,
    h: Vec<f64>,
    eroded: Vec<f64>,
    sediment: Vec<f64>,
    /// Routing of the current heights (valid when `routed`).
    cur: Routing,
    /// Buffers for routing ahead.
    next: Routing,
    routed: bool,
    /// `G = 1/(1 + F)` per cell.
    work: Vec<f64>,
    /// The settling share of the sediment proxy.
    settle: Vec<f64>,
    /// Incision depth of the step, then the sediment flux.
    qs: Vec<f64>,
    /// The last step's sediment flux pass (along its stack) has not run yet: it runs beside the
    /// next step's incision, or in [`Self::into_output`]. Its stack is `next`'s when `routed`,
    /// else `cur`'s.
    flux_pending: bool,
    /// Heights before incision; scratch heights for diffusion.
    scratch: Vec<f64>,
    steps_run: usize,
    raised: u64,
}

impl StreamPowerParams {
    /// Checks the ranges every caller shares; `Err` names the first bad parameter (by field
    /// name) in the order `steps`, `k`, `m`, `dt`, `uplift`, `kappa`, `area_cap`, `area_floor`.
    ///
    /// `steps` is at least 1; `k`, `uplift` and `kappa` are finite and ≥ 0; `m` is finite in
    /// `0..=2`; `dt` and a given `area_cap` / `area_floor` are finite and above 0. Each message
    /// starts with the field's name, so a caller may swap in its own name for the parameter.
    /// Callers may add tighter caps of their own (the CLI and the recipe bound `steps`).
    ///
    /// # Examples
    ///
    /// ```
    /// use bozkir_terrain::erosion::stream_power::StreamPowerParams;
    ///
    /// assert!(StreamPowerParams::default().validate().is_ok());
    /// let bad = StreamPowerParams { m: 3.0, ..StreamPowerParams::default() };
    /// let e = bad.validate().unwrap_err();
    /// assert_eq!(e.param, "m");
    /// assert_eq!(e.to_string(), "m must be in 0..=2, got 3");
    /// ```
    pub fn validate(&self) -> Result<(), crate::ParamError> {
        use crate::ParamError as E;
        let non_negative = |name: &'static str, v: f64| {
            if !v.is_finite() || v < 0.0 {
                return Err(E::new(name, format!("{name} must be a finite number ≥ 0, got {v}")));
            }
            Ok(())
        };
        let positive = |name: &'static str, v: f64| {
            if !v.is_finite() || v <= 0.0 {
                return Err(E::new(name, format!("{name} must be a finite number above 0, got {v}")));
            }
            Ok(())
        };
        if self.steps == 0 {
            return Err(E::new("steps", "steps must be at least 1, got 0"));
        }
        non_negative("k", self.k)?;
        non_negative("m", self.m)?;
        if self.m > 2.0 {
            return Err(E::new("m", format!("m must be in 0..=2, got {}", self.m)));
        }
        positive("dt", self.dt)?;
        non_negative("uplift", self.uplift)?;
        non_negative("kappa", self.kappa)?;
        if let Some(c) = self.area_cap {
            positive("area_cap", c)?;
        }
        if let Some(c) = self.area_floor {
            positive("area_floor", c)?;
        }
        Ok(())
    }

    /// Panics unless the uplift map (if any) is `w × ht`; shared with the GPU step.
    pub fn check_uplift_shape(&self, w: usize, ht: usize) {
        if let Some(u) = &self.uplift_map {
            assert!(
                u.width() == w && u.height() == ht,
                "stream_power: uplift map is {}x{}, DEM {w}x{ht}",
                u.width(),
                u.height()
            );
        }
    }
}

impl StreamPowerEroder {
    /// Fills `initial` once (ε priority flood) and prepares the buffers. Panics if an uplift map
    /// does not have the shape of `initial`.
    pub fn new(initial: &Grid<f64>, params: &StreamPowerParams) -> Self {
        let (w, ht) = (initial.width(), initial.height());
        params.check_uplift_shape(w, ht);
        let n = w * ht;
        // The fill runs on one thread; the buffers are allocated and their pages mapped beside
        // it (on a second thread where there is one), not in the first step.
        let (h, (bufs, (cur, next))) = rayon::join(
            || priority_flood::fill_epsilon(initial).into_vec(),
            || {
                let bufs: [Vec<f64>; 6] = std::array::from_fn(|_| {
                    let mut v = zeroed_f64(n);
                    prefault_zeroed(&mut v);
                    v
                });
                (bufs, (Routing::prefaulted(n), Routing::prefaulted(n)))
            },
        );
        let [eroded, sediment, work, settle, qs, scratch] = bufs;
        Self {
            params: params.clone(),
            w,
            ht,
            dx: initial.dx,
            dy: initial.dy,
            h,
            eroded,
            sediment,
            cur,
            next,
            routed: false,
            work,
            settle,
            qs,
            flux_pending: false,
            scratch,
            steps_run: 0,
            raised: 0,
        }
    }

    /// Current heights (row-major, the input's shape).
    pub fn height(&self) -> &[f64] {
        &self.h
    }

    /// Current heights as a grid (a copy).
    pub fn height_grid(&self) -> Grid<f64> {
        self.grid(self.h.clone())
    }

    /// Uncapped drainage area (m²) of the *current* heights (routes them anew).
    pub fn drainage_area(&self) -> Vec<f64> {
        let g = flow_graph::d8_receivers(&self.height_grid());
        flow_graph::accumulate(&g, &vec![self.dx * self.dy; self.h.len()])
    }

    /// Steps done so far.
    pub fn steps_run(&self) -> usize {
        self.steps_run
    }

    /// How many times, over all steps, a cell was raised to `f64::next_up(h_r)` by the incision clamp
    /// or the post-diffusion limiter (fastscapelib calls its counterpart `n_corr`).
    pub fn raised_cells(&self) -> u64 {
        self.raised
    }

    fn grid(&self, v: Vec<f64>) -> Grid<f64> {
        Grid::from_vec(self.w, self.ht, v).with_cell_size(self.dx, self.dy)
    }

    /// The state as an output.
    pub fn into_output(mut self) -> StreamPowerOutput {
        self.flush_flux();
        let (w, ht, dx, dy) = (self.w, self.ht, self.dx, self.dy);
        let grid = |v: Vec<f64>| Grid::from_vec(w, ht, v).with_cell_size(dx, dy);
        StreamPowerOutput {
            height: grid(self.h),
            eroded: grid(self.eroded),
            sediment: grid(self.sediment),
            steps_run: self.steps_run,
        }
    }

    /// One step: routing, uplift, incision, sediment proxy, diffusion, limiter. It also routes
    /// the resulting surface ahead for the next step, overlapping that with the sediment pass.
    pub fn step(&mut self) {
        self.step_impl(true);
    }

    /// Runs the pending sediment flux pass, if any.
    fn flush_flux(&mut self) {
        if self.flux_pending {
            let pairs = if self.routed { &self.next.pairs } else { &self.cur.pairs };
            sediment_flux(pairs, &mut self.qs, &self.settle, &mut self.sediment);
            self.flux_pending = false;
        }
    }

    /// [`Self::step`]; `route_ahead = false` skips routing the result (for the last step).
    fn step_impl(&mut self, route_ahead: bool) {
        let (w, ht) = (self.w, self.ht);
        if w * ht == 0 {
            self.steps_run += 1;
            return;
        }
        let (dx, dy) = (self.dx, self.dy);

        // 1. Routing, stack and drainage area as an exact cell count (times the cell area below),
        //    accumulated while the stack is built. Usually done ahead, at the end of the last step.
        if !self.routed {
            self.flush_flux();
            self.cur.route(&self.h, w, ht, dx, dy);
        }
        let pending = std::mem::take(&mut self.flux_pending);
        let Self { params: p, h, eroded, sediment, cur, next, work, settle, qs, scratch, .. } = self;
        let cell_area = dx * dy;

        // 2. Uplift, and G = 1/(1 + F) with F = K dt A^m / dist (pure per cell; borders untouched);
        //    computed as G = dist/(dist + K dt A^m).
        //    The uplifted heights are also kept in `scratch` to measure the incision afterwards.
        let (rcv, records) = (&cur.receivers, &cur.records);
        let dist = D8Dist::new(w, dx, dy);
        let factors = Factors {
            w,
            ht,
            kdt: p.k * p.dt,
            udt: p.uplift * p.dt,
            cap: p.area_cap.unwrap_or(f64::INFINITY),
            a_floor: p.area_floor.unwrap_or(0.0),
            m: p.m,
            cell_area,
            umap: p.uplift_map.as_ref().map(|u| u.data()),
            dist,
            records,
        };
        #[cfg(target_arch = "x86_64")]
        let avx2 = bozkir_core::simd::avx2();
        h.par_chunks_mut(w).zip(work.par_chunks_mut(w)).zip(scratch.par_chunks_mut(w)).enumerate().for_each(
            |(y, ((hrow, grow), brow))| {
                #[cfg(target_arch = "x86_64")]
                if avx2 {
                    // SAFETY: the CPU has AVX2 (checked above).
                    unsafe { factors.row_avx2(y, hrow, grow, brow) };
                    return;
                }
                factors.row(y, hrow, grow, brow);
            },
        );

        // 3. Implicit incision, receivers first: (h_i + F h_r)/(1 + F) = h_r + (h_i − h_r)·G, the
        //    second form keeping the division off the dependency chain along the stack.
        //    The previous step's sediment flux pass (if pending) runs beside it: it reads only that
        //    step's stack, fluxes and shares, and writes the fluxes and the sediment record.
        let pairs = &cur.pairs;
        let guards = p.guards;
        let (raised, ()) = rayon::join(
            || {
                let mut raised = 0u64;
                for (k, &pr) in pairs.iter().enumerate() {
                    if let Some(&a) = pairs.get(k + AHEAD) {
                        let (a, _) = unpair(a);
                        prefetch_at(h.as_ptr(), a);
                        prefetch_at(work.as_ptr(), a);
                    }
                    let (i, r) = unpair(pr);
                    if r == i {
                        continue;
                    }
                    let (hi, hr) = (h[i], h[r]);
                    let mut new = hr + (hi - hr) * work[i];
                    if !guards {
                        h[i] = new;
                        continue;
                    }
                    if new > hi {
                        // Rounding only (the exact value is at most h_i): never raise a cell here.
                        new = hi;
                    }
                    let floor = f64::next_up(hr);
                    if !above_or_at(new, floor) {
                        new = floor;
                        raised += 1;
                    }
                    h[i] = new;
                }
                raised
            },
            || {
                if pending {
                    sediment_flux(&next.pairs, qs, settle, sediment);
                }
            },
        );

        // 4. Sediment proxy. Per cell (parallel): incision depth e = max(before − after, 0) into
        //    `eroded` and `qs`, and the settling share into `settle` (1 at outlets). Then donors
        //    first (the flux pass): qs_r += qs_i − qs_i·settle_i, and (parallel) sediment +=
        //    qs·settle. With diffusion the shares read the heights before diffusion changes them
        //    and the flux pass runs beside diffusion, the limiter and the next routing. Without it
        //    the heights are final here: the next routing's receivers are found on every thread,
        //    its stack is peeled beside the shares, and the flux pass waits for the next step's
        //    incision (or the output). Each pair of concurrent passes touches disjoint data, so
        //    the outcome is that of running everything in sequence.
        let diffusing = p.kappa > 0.0 && w > 2 && ht > 2;
        let limiter_raised = if diffusing {
            sediment_shares(h, scratch, rcv, dist, qs, eroded, settle, w);
            rayon::join(
                || sediment_flux(pairs, qs, settle, sediment),
                || {
                    let raised = diffuse_and_limit(h, scratch, rcv, pairs, p, w, ht, dx, dy);
                    if route_ahead {
                        next.route(h, w, ht, dx, dy);
                    }
                    raised
                },
            )
            .1
        } else {
            let (h, scratch) = (&*h, &*scratch);
            if route_ahead {
                next.receivers_of(h, w, ht, dx, dy);
            }
            rayon::join(
                || sediment_shares(h, scratch, rcv, dist, qs, eroded, settle, w),
                || {
                    if route_ahead {
                        next.stack();
                    }
                },
            );
            0
        };
        self.flux_pending = !diffusing;
        self.raised += raised + limiter_raised;
        if route_ahead {
            std::mem::swap(&mut self.cur, &mut self.next);
        }
        self.routed = route_ahead;
        self.steps_run += 1;
    }
}

/// Per cell (parallel): this step's incision depth `e = max(before − after, 0)` into `qs` and
/// added to `eroded`, and the settling share `0.5·s0/(s0 + S)` (1 at outlets) into `settle`, with
/// `S` the cell's slope to its receiver after incision.
#[allow(clippy::too_many_arguments)]
fn sediment_shares(
    h: &[f64],
    before: &[f64],
    rcv: &[u32],
    dist: D8Dist,
    qs: &mut [f64],
    eroded: &mut [f64],
    settle: &mut [f64],
    w: usize,
) {
    let shares = Shares { h, before, rcv, dist, w };
    #[cfg(target_arch = "x86_64")]
    let avx2 = bozkir_core::simd::avx2();
    qs.par_chunks_mut(w).zip(eroded.par_chunks_mut(w)).zip(settle.par_chunks_mut(w)).enumerate().for_each(
        |(y, ((qrow, erow), srow))| {
            #[cfg(target_arch = "x86_64")]
            if avx2 {
                // SAFETY: the CPU has AVX2 (checked above).
                unsafe { shares.row_avx2(y, qrow, erow, srow) };
                return;
            }
            shares.row(y, qrow, erow, srow);
        },
    );
}

/// [`sediment_shares`] a row at a time: the heights after and before incision, the receivers.
struct Shares<'a> {
    h: &'a [f64],
    before: &'a [f64],
    rcv: &'a [u32],
    dist: D8Dist,
    w: usize,
}

impl Shares<'_> {
    /// Row `y`: the incision depth into `qrow` and added to `erow`, the settling share into
    /// `srow`.
    #[inline(always)]
    fn row(&self, y: usize, qrow: &mut [f64], erow: &mut [f64], srow: &mut [f64]) {
        let Self { h, before, rcv, dist, w } = *self;
        let row0 = y * w;
        for x in 0..w {
            let i = row0 + x;
            let e = if before[i] > h[i] { before[i] - h[i] } else { 0.0 };
            qrow[x] = e;
            erow[x] += e;
            let r = rcv[i] as usize;
            srow[x] = if r == i {
                1.0
            } else {
                // 0.5·s0/(s0 + S) with S = max(h_i − h_r, 0)/dist, one division. (With the
                // guards on h_i > h_r, so the max matters only without them.)
                let d = dist.of(i, r);
                0.5 * SETTLE_S0 * d / (SETTLE_S0 * d + (h[i] - h[r]).max(0.0))
            };
        }
    }

    /// [`Self::row`] compiled for AVX2 ([`bozkir_core::simd`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    fn row_avx2(&self, y: usize, qrow: &mut [f64], erow: &mut [f64], srow: &mut [f64]) {
        self.row(y, qrow, erow, srow);
    }
}

/// Step 2 of a step, a row at a time: uplift, and `G = dist/(dist + K·dt·A^m)` per cell.
struct Factors<'a> {
    w: usize,
    ht: usize,
    kdt: f64,
    udt: f64,
    cap: f64,
    a_floor: f64,
    m: f64,
    cell_area: f64,
    umap: Option<&'a [f64]>,
    dist: D8Dist,
    /// The routing's records (receiver, drainage count).
    records: &'a [u64],
}

impl Factors<'_> {
    /// Row `y`: `grow` gets G (0 at outlets), `hrow` the uplift (interior cells), `brow` the
    /// uplifted heights.
    #[inline(always)]
    fn row(&self, y: usize, hrow: &mut [f64], grow: &mut [f64], brow: &mut [f64]) {
        let Self { w, ht, kdt, udt, cap, a_floor, m, cell_area, umap, dist, records } = *self;
        let row0 = y * w;
        let rec = &records[row0..row0 + w];
        // G, one loop per exponent rule so the square root's vectorises; outlets (their own
        // receiver, distance 0) get 0 by a select after the same arithmetic as the others.
        let g = |x: usize, p: u64, am: f64| {
            let (r, i) = ((p & 0xFFFF_FFFF) as usize, row0 + x);
            let d = dist.of(i, r);
            let g = d / (d + kdt * am);
            if r == i {
                0.0
            } else {
                g
            }
        };
        let area = |p: u64| ((p >> 32) as u32 as f64 * cell_area).max(a_floor).min(cap);
        if m == 0.5 {
            for (x, (o, &p)) in grow.iter_mut().zip(rec).enumerate() {
                *o = g(x, p, area(p).sqrt());
            }
        } else {
            for (x, (o, &p)) in grow.iter_mut().zip(rec).enumerate() {
                *o = g(x, p, libm::pow(area(p), m));
            }
        }
        if y > 0 && y + 1 < ht && w > 2 {
            let inner = &mut hrow[1..w - 1];
            match umap {
                Some(u) => {
                    for (v, &u) in inner.iter_mut().zip(&u[row0 + 1..row0 + w - 1]) {
                        *v += udt * u;
                    }
                }
                None => {
                    for v in inner {
                        *v += udt;
                    }
                }
            }
        }
        brow.copy_from_slice(hrow);
    }

    /// [`Self::row`] compiled for AVX2 ([`bozkir_core::simd`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    fn row_avx2(&self, y: usize, hrow: &mut [f64], grow: &mut [f64], brow: &mut [f64]) {
        self.row(y, hrow, grow, brow);
    }
}

/// How many pairs of the stack ahead the incision and the flux pass ask the cache for the
/// cells they will reach (the stack jumps about the grid). A hint only: no value changes.
const AHEAD: usize = 128;

/// Donors first (reverse stack order): `qs_r += qs_i − qs_i·settle_i`; then (parallel) each cell
/// keeps `qs·settle` in its sediment record.
fn sediment_flux(pairs: &[u64], qs: &mut [f64], settle: &[f64], sediment: &mut [f64]) {
    for (k, &pr) in pairs.iter().enumerate().rev() {
        if let Some(&a) = k.checked_sub(AHEAD).map(|j| &pairs[j]) {
            let (a, b) = unpair(a);
            prefetch_at(qs.as_ptr(), a);
            prefetch_at(settle.as_ptr(), a);
            prefetch_at(qs.as_ptr(), b);
        }
        let (i, r) = unpair(pr);
        if r != i {
            let q = qs[i];
            qs[r] += q - q * settle[i];
        }
    }
    sediment.par_iter_mut().zip(qs.par_iter()).zip(settle.par_iter()).for_each(|((s, &q), &f)| {
        *s += q * f;
    });
}

/// Diffusion sub-steps, then the limiter; returns the number of cells the limiter raised.
#[allow(clippy::too_many_arguments)]
fn diffuse_and_limit(
    h: &mut Vec<f64>,
    scratch: &mut Vec<f64>,
    rcv: &[u32],
    pairs: &[u64],
    p: &StreamPowerParams,
    w: usize,
    ht: usize,
    dx: f64,
    dy: f64,
) -> u64 {
    let c = p.kappa * p.dt * (1.0 / (dx * dx) + 1.0 / (dy * dy));
    let sub = (2.0 * c).ceil().max(1.0);
    let tx = p.kappa * p.dt / sub / (dx * dx);
    let ty = p.kappa * p.dt / sub / (dy * dy);
    for _ in 0..sub as usize {
        diffuse(h, scratch, w, ht, tx, ty);
        std::mem::swap(h, scratch);
    }
    if !p.guards {
        return 0;
    }
    // The limiter: a parallel check first (most steps need no correction), then the sequential
    // fix in stack order only when some cell is at or below its receiver.
    let hh = &*h;
    let any = hh
        .par_iter()
        .zip(rcv.par_iter())
        .enumerate()
        .any(|(i, (&hi, &r))| r as usize != i && !strictly_above(hi, hh[r as usize]));
    let mut raised = 0u64;
    if any {
        for &pr in pairs {
            let (i, r) = unpair(pr);
            if r != i && !strictly_above(h[i], h[r]) {
                h[i] = f64::next_up(h[r]);
                raised += 1;
            }
        }
    }
    raised
}

/// Receivers, stack (as `cell | receiver << 32` pairs) and drainage count of one
/// routing; the eroder keeps two so the next step can be routed while this one finishes.
#[derive(Debug, Clone, Default)]
struct Routing {
    receivers: Vec<u32>,
    /// Per cell `receiver | count << 32`: the drainage count (cells, itself included) once the
    /// stack is peeled (see `d8_peel_walk`).
    records: Vec<u64>,
    pairs: Vec<u64>,
    /// The peel's scratch: in-degrees, and the leaves (the first `nleaves`).
    indeg: Vec<u8>,
    leaves: Vec<u32>,
    nleaves: usize,
}

impl Routing {
    fn new(n: usize) -> Self {
        Self {
            receivers: zeroed_u32(n),
            records: zeroed_u64(n),
            pairs: zeroed_u64(n),
            indeg: zeroed_u8(n),
            leaves: zeroed_u32(n),
            nleaves: 0,
        }
    }

    /// [`Self::new`] with every buffer's pages mapped ([`prefault_zeroed`]).
    fn prefaulted(n: usize) -> Self {
        let mut r = Self::new(n);
        prefault_zeroed(&mut r.receivers);
        prefault_zeroed(&mut r.records);
        prefault_zeroed(&mut r.pairs);
        prefault_zeroed(&mut r.indeg);
        prefault_zeroed(&mut r.leaves);
        r
    }

    fn route(&mut self, h: &[f64], w: usize, ht: usize, dx: f64, dy: f64) {
        self.receivers_of(h, w, ht, dx, dy);
        self.stack();
    }

    /// The parallel half: D8 receivers of `h`, the records (counts 1), the in-degrees and
    /// leaves of the stack's peel.
    fn receivers_of(&mut self, h: &[f64], w: usize, ht: usize, dx: f64, dy: f64) {
        d8_fill_receivers(h, w, ht, dx, dy, &mut self.receivers);
        self.nleaves = d8_peel_prepare(&self.receivers, w, &mut self.records, &mut self.indeg, &mut self.leaves);
    }

    /// The sequential half: stack pairs and drainage counts.
    fn stack(&mut self) {
        d8_peel_walk(&mut self.records, &mut self.indeg, &self.leaves[..self.nleaves], &mut self.pairs);
    }
}

/// `a > b`, false when either is NaN.
#[inline(always)]
fn strictly_above(a: f64, b: f64) -> bool {
    matches!(a.partial_cmp(&b), Some(std::cmp::Ordering::Greater))
}

/// `a >= b`, false when either is NaN.
#[inline(always)]
fn above_or_at(a: f64, b: f64) -> bool {
    matches!(a.partial_cmp(&b), Some(std::cmp::Ordering::Greater | std::cmp::Ordering::Equal))
}

#[inline(always)]
fn unpair(p: u64) -> (usize, usize) {
    ((p & 0xFFFF_FFFF) as usize, (p >> 32) as usize)
}

/// One explicit FTCS diffusion sub-step from `src` into `dst`; border rows and columns copied.
/// Per interior cell: `h + tx·((h_W + h_E) − 2h) + ty·((h_N + h_S) − 2h)`, in that order.
fn diffuse(src: &[f64], dst: &mut [f64], w: usize, ht: usize, tx: f64, ty: f64) {
    dst.par_chunks_mut(w).enumerate().for_each(|(y, d)| {
        let row = &src[y * w..(y + 1) * w];
        if y == 0 || y + 1 == ht {
            d.copy_from_slice(row);
            return;
        }
        let up = &src[(y - 1) * w..y * w];
        let dn = &src[(y + 1) * w..(y + 2) * w];
        d[0] = row[0];
        d[w - 1] = row[w - 1];
        for x in 1..w - 1 {
            let c = row[x];
            d[x] = c + tx * ((row[x - 1] + row[x + 1]) - 2.0 * c) + ty * ((up[x] + dn[x]) - 2.0 * c);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hydrology::flow_graph::{count_pits, d8_receivers};
    use bozkir_core::hash::hash_unit;
    use bozkir_core::NoProgress;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// The ranges and their messages (the CLI puts `--` and its flag name in front), first bad
    /// parameter first.
    #[test]
    fn validate_names_the_first_bad_parameter() {
        let d = StreamPowerParams::default();
        let msg = |p: StreamPowerParams| {
            let e = p.validate().unwrap_err();
            (e.param.clone(), e.to_string())
        };
        assert_eq!(msg(StreamPowerParams { steps: 0, ..d.clone() }).0, "steps");
        assert_eq!(
            msg(StreamPowerParams { k: -1.0, m: 3.0, ..d.clone() }),
            ("k".into(), "k must be a finite number ≥ 0, got -1".into())
        );
        assert_eq!(
            msg(StreamPowerParams { m: f64::NAN, ..d.clone() }),
            ("m".into(), "m must be a finite number ≥ 0, got NaN".into())
        );
        assert_eq!(msg(StreamPowerParams { m: 2.5, ..d.clone() }).1, "m must be in 0..=2, got 2.5");
        assert_eq!(msg(StreamPowerParams { dt: 0.0, ..d.clone() }).1, "dt must be a finite number above 0, got 0");
        assert_eq!(msg(StreamPowerParams { uplift: f64::INFINITY, ..d.clone() }).0, "uplift");
        assert_eq!(msg(StreamPowerParams { kappa: -0.5, ..d.clone() }).0, "kappa");
        assert_eq!(msg(StreamPowerParams { area_cap: Some(0.0), ..d.clone() }).0, "area_cap");
        assert_eq!(msg(StreamPowerParams { area_floor: Some(-1.0), ..d.clone() }).0, "area_floor");
        let edges = StreamPowerParams { k: 0.0, m: 2.0, uplift: 0.0, kappa: 0.0, area_cap: Some(1.0), ..d };
        assert!(edges.validate().is_ok());
    }

    fn noise(w: usize, h: usize, seed: u32, relief: f64) -> Grid<f64> {
        Grid::from_fn(w, h, |x, y| relief * hash_unit(x as u32, y as u32, seed))
    }

    fn params(steps: usize) -> StreamPowerParams {
        StreamPowerParams { steps, ..StreamPowerParams::default() }
    }

    /// Max relative deviation of the slope to the receiver from `(U/K)·A^−m`, over interior cells,
    /// with `A` the area the model itself routes on the final heights (capped like the model).
    fn steady_state_error(h: &Grid<f64>, p: &StreamPowerParams) -> f64 {
        let g = d8_receivers(h);
        let area = flow_graph::accumulate(&g, &vec![h.dx * h.dy; h.len()]);
        let mut worst = 0.0f64;
        for (i, &r) in g.receivers.iter().enumerate() {
            let r = r as usize;
            if r == i {
                continue;
            }
            let s = (h.data()[i] - h.data()[r]) / g.dist[i];
            let a = area[i].max(p.area_floor.unwrap_or(0.0)).min(p.area_cap.unwrap_or(f64::INFINITY));
            let want = p.uplift / p.k * a.powf(-p.m);
            worst = worst.max((s / want - 1.0).abs());
        }
        worst
    }

    #[test]
    fn single_cell_matches_hand_computed_implicit_step() {
        // 3×3, border 0, centre 50 m; one step without uplift or diffusion:
        // A = dx·dy, dist to the N neighbour (first of the equal drops... all cardinals tie; N wins).
        let (dx, dy) = (20.0, 30.0);
        let mut z = Grid::new(3, 3, 0.0).with_cell_size(dx, dy);
        *z.get_mut(1, 1) = 50.0;
        let p =
            StreamPowerParams { k: 2e-4, m: 0.4, dt: 500.0, steps: 1, uplift: 0.0, kappa: 0.0, ..Default::default() };
        let out = stream_power(&z, &p, &NoProgress);
        // Steepest drop is along x (dist 20 < 30): W (index 3) beats E (index 5).
        let f = 2e-4 * 500.0 * libm::pow(dx * dy, 0.4) / dx;
        let want = 50.0 / (1.0 + f);
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-13 * b.abs();
        assert!(close(*out.height.get(1, 1), want), "{} vs {want}", out.height.get(1, 1));
        assert!(close(*out.eroded.get(1, 1), 50.0 - want));
        // Sediment: the centre keeps qs·settle, the outlet W the rest.
        let s = want / dx;
        let dep = (50.0 - want) * 0.5 * SETTLE_S0 / (SETTLE_S0 + s);
        assert!(close(*out.sediment.get(1, 1), dep));
        assert!(close(*out.sediment.get(0, 1), 50.0 - want - dep));
        assert_eq!(out.sediment.data().iter().filter(|&&v| v != 0.0).count(), 2);
        assert_eq!(out.steps_run, 1);
    }

    #[test]
    fn channel_reaches_analytical_steady_state_slope() {
        // A 1-cell-wide valley (x = 1) between fixed high walls, draining south to a base level
        // of 0 m on the bottom row: a 1-D river whose drainage area grows by one cell per cell.
        let (w, l) = (3, 60);
        let (dx, dy) = (100.0, 80.0);
        let z = Grid::from_fn(w, l, |x, y| {
            if y == l - 1 {
                0.0
            } else if x == 1 && y > 0 {
                (l - 1 - y) as f64 * 0.01
            } else {
                1.0e5
            }
        })
        .with_cell_size(dx, dy);
        // The cap flattens the lower reach, the floor steepens nothing but the upper reach's
        // headwater cells (area below 20 cells there).
        for (cap, floor) in [(None, None), (Some(12.0 * dx * dy), None), (None, Some(20.0 * dx * dy))] {
            let p = StreamPowerParams {
                k: 1e-5,
                m: 0.5,
                dt: 2e5,
                steps: 0,
                uplift: 1e-3,
                kappa: 0.0,
                area_cap: cap,
                area_floor: floor,
                ..Default::default()
            };
            let mut e = StreamPowerEroder::new(&z, &p);
            let mut prev = e.height().to_vec();
            for _ in 0..400 {
                e.step();
                let change = prev.iter().zip(e.height()).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
                prev.copy_from_slice(e.height());
                if change == 0.0 {
                    break;
                }
            }
            let h = e.height_grid();
            // Every channel cell drains south, area = cells upstream incl. itself.
            let g = d8_receivers(&h);
            for y in 1..l - 1 {
                assert_eq!(g.receivers[y * w + 1] as usize, (y + 1) * w + 1);
            }
            let err = steady_state_error(&h, &p);
            assert!(err < 1e-9, "cap {cap:?} floor {floor:?}: slope off the analytical S = (U/K) A^-m by {err:e}");
            // Spot checks against the closed form without the model's area: S = (U/K)/sqrt(A),
            // A = y·dx·dy raised to the floor and capped.
            for y in [5, 30] {
                let s = (h.get(1, y) - h.get(1, y + 1)) / dy;
                let a = ((y as f64) * dx * dy).max(floor.unwrap_or(0.0)).min(cap.unwrap_or(f64::INFINITY));
                assert!((s / (100.0 / a.sqrt()) - 1.0).abs() < 1e-9, "y {y} cap {cap:?} floor {floor:?}");
            }
        }
        // A floor of one cell or less changes no bit: every cell drains at least itself.
        let run = |floor: Option<f64>| {
            let p = StreamPowerParams { steps: 3, area_floor: floor, ..params(3) };
            stream_power(&noise(40, 30, 2, 80.0).with_cell_size(dx, dy), &p, &NoProgress).height
        };
        assert_eq!(run(None).data(), run(Some(dx * dy)).data());
        assert_ne!(run(None).data(), run(Some(4.0 * dx * dy)).data());
    }

    #[test]
    fn noise_landscape_reaches_steady_state_in_2d() {
        let z = noise(24, 20, 5, 50.0).with_cell_size(30.0, 40.0);
        let p =
            StreamPowerParams { k: 4e-5, m: 0.45, dt: 5e4, steps: 0, uplift: 2e-3, kappa: 0.0, ..Default::default() };
        let mut e = StreamPowerEroder::new(&z, &p);
        let mut prev = e.height().to_vec();
        let mut converged = false;
        for _ in 0..2000 {
            e.step();
            let change = prev.iter().zip(e.height()).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            prev.copy_from_slice(e.height());
            if change == 0.0 {
                converged = true;
                break;
            }
        }
        assert!(converged, "did not reach a fixed point");
        let err = steady_state_error(&e.height_grid(), &p);
        assert!(err < 1e-9, "2-D steady state off the analytical slope by {err:e}");
    }

    #[test]
    fn no_step_creates_a_pit() {
        // Raw noise is full of pits; aggressive diffusion and a patchy uplift map make the
        // clamp and the limiter fire. Checked near sea level and at Everest altitude.
        for (offset, seed) in [(0.0, 1u32), (8000.0, 2)] {
            let (w, h) = (48, 40);
            let z = noise(w, h, seed, 30.0).map(|v| v + offset).with_cell_size(25.0, 15.0);
            let umap = Grid::from_fn(w, h, |x, y| if (x / 5 + y / 7) % 2 == 0 { 1.0 } else { 0.0 });
            let p = StreamPowerParams {
                k: 5e-5,
                dt: 2000.0,
                uplift: 5e-3,
                uplift_map: Some(umap),
                kappa: 2.0,
                ..Default::default()
            };
            assert!(count_pits(&d8_receivers(&z)) > 10, "fixture should have pits before filling");
            let mut e = StreamPowerEroder::new(&z, &p);
            assert_eq!(count_pits(&d8_receivers(&e.height_grid())), 0, "fill left pits");
            for s in 0..60 {
                e.step();
                let g = d8_receivers(&e.height_grid());
                assert_eq!(count_pits(&g), 0, "offset {offset}: step {s} created a pit");
            }
            assert!(e.raised_cells() > 0, "limiter never fired: the test would not catch a missing one");
        }
    }

    #[test]
    fn without_uplift_heights_only_fall_and_relief_decays() {
        // Border (fixed base level) at 0 so the relief is the interior's.
        let z = noise(40, 30, 9, 200.0);
        let z =
            Grid::from_fn(40, 30, |x, y| if z.is_border(x, y) { 0.0 } else { *z.get(x, y) }).with_cell_size(20.0, 20.0);
        for kappa in [0.0, 0.5] {
            let p = StreamPowerParams { uplift: 0.0, kappa, dt: 5e4, ..Default::default() };
            let mut e = StreamPowerEroder::new(&z, &p);
            let relief =
                |h: &[f64]| h.iter().cloned().fold(f64::MIN, f64::max) - h.iter().cloned().fold(f64::MAX, f64::min);
            let mut prev = e.height().to_vec();
            let first = relief(&prev);
            for _ in 0..30 {
                e.step();
                let now = e.height();
                assert!(relief(now) <= relief(&prev), "relief grew");
                if kappa == 0.0 {
                    assert!(now.iter().zip(&prev).all(|(a, b)| a <= b), "a height rose without uplift");
                }
                prev.copy_from_slice(now);
            }
            assert!(relief(&prev) < 0.9 * first, "relief barely decayed: {} -> {}", first, relief(&prev));
        }
    }

    #[test]
    fn sediment_record_balances_incision() {
        // With and without diffusion: without it the last step's flux pass is deferred to the
        // output, so a missing flush would show here.
        let z = noise(50, 40, 3, 100.0).with_cell_size(30.0, 30.0);
        for (kappa, steps) in [(0.0, 20), (0.05, 20), (0.0, 1)] {
            let out = stream_power(&z, &StreamPowerParams { kappa, ..params(steps) }, &NoProgress);
            let eroded: f64 = out.eroded.data().iter().sum();
            let sediment: f64 = out.sediment.data().iter().sum();
            assert!(eroded > 0.0);
            assert!((sediment / eroded - 1.0).abs() < 1e-12, "κ {kappa}: {sediment} vs {eroded}");
            assert!(out.sediment.data().iter().all(|&v| v >= 0.0));
        }
    }

    #[test]
    fn stepping_by_hand_equals_the_whole_run() {
        // `step()` always routes ahead and defers the flux pass; `stream_power` skips the last
        // routing. Same bytes either way, with and without diffusion.
        let z = noise(70, 50, 9, 200.0).with_cell_size(30.0, 30.0);
        for kappa in [0.0, 0.05] {
            let p = StreamPowerParams { kappa, ..params(7) };
            let whole = stream_power(&z, &p, &NoProgress);
            let mut e = StreamPowerEroder::new(&z, &p);
            for _ in 0..7 {
                e.step();
            }
            let by_hand = e.into_output();
            assert_eq!(whole.height.data(), by_hand.height.data(), "κ {kappa}");
            assert_eq!(whole.eroded.data(), by_hand.eroded.data(), "κ {kappa}");
            assert_eq!(whole.sediment.data(), by_hand.sediment.data(), "κ {kappa}");
        }
    }

    #[test]
    fn identical_for_any_thread_count() {
        let z = noise(160, 120, 4, 300.0).with_cell_size(30.0, 25.0);
        let p = StreamPowerParams { steps: 8, kappa: 1.0, m: 0.45, ..Default::default() };
        let run = |t: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap()
                .install(|| stream_power(&z, &p, &NoProgress))
        };
        let (a, b) = (run(1), run(2));
        let bits = |g: &Grid<f64>| g.data().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&a.height), bits(&b.height));
        assert_eq!(bits(&a.eroded), bits(&b.eroded));
        assert_eq!(bits(&a.sediment), bits(&b.sediment));
    }

    /// The AVX2 builds of the per-cell passes (routing, factors, shares, the peel's gathers) give
    /// the portable loops' bits: square-root and general `m`, an uplift map, area floor and cap,
    /// with and without diffusion, a rectangle with unequal cells.
    #[test]
    fn simd_builds_equal_the_portable_loops() {
        let z = noise(131, 97, 6, 400.0).with_cell_size(30.0, 25.0);
        let umap = Grid::from_fn(131, 97, |x, y| 0.5 + hash_unit(x as u32, y as u32, 9));
        let cases = [
            StreamPowerParams { steps: 6, kappa: 0.0, uplift: 2e-3, ..Default::default() },
            StreamPowerParams { steps: 6, kappa: 0.5, m: 0.45, ..Default::default() },
            StreamPowerParams {
                steps: 5,
                kappa: 0.0,
                uplift_map: Some(umap),
                area_floor: Some(2000.0),
                area_cap: Some(4.0e5),
                ..Default::default()
            },
        ];
        let bits = |g: &Grid<f64>| g.data().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        for (k, p) in cases.iter().enumerate() {
            let simd = stream_power(&z, p, &NoProgress);
            bozkir_core::simd::FORCE_PORTABLE.store(true, Ordering::Relaxed);
            let portable = stream_power(&z, p, &NoProgress);
            bozkir_core::simd::FORCE_PORTABLE.store(false, Ordering::Relaxed);
            assert_eq!(bits(&simd.height), bits(&portable.height), "case {k} height");
            assert_eq!(bits(&simd.eroded), bits(&portable.eroded), "case {k} eroded");
            assert_eq!(bits(&simd.sediment), bits(&portable.sediment), "case {k} sediment");
        }
    }

    struct CancelAfter(AtomicU64, u64);
    impl Progress for CancelAfter {
        fn report(&self, stage: &str, done: u64, total: u64) {
            assert_eq!(stage, "stream_power");
            assert_eq!(total, 50);
            assert_eq!(done, self.0.fetch_add(1, Ordering::SeqCst) + 1);
        }
        fn cancelled(&self) -> bool {
            self.0.load(Ordering::SeqCst) >= self.1
        }
    }

    #[test]
    fn reports_each_step_and_stops_when_cancelled() {
        let z = noise(20, 20, 8, 10.0);
        let sink = CancelAfter(AtomicU64::new(0), 3);
        let out = stream_power(&z, &params(50), &sink);
        assert_eq!(out.steps_run, 3);
        let mut e = StreamPowerEroder::new(&z, &params(50));
        (0..3).for_each(|_| e.step());
        assert_eq!(out.height.data(), e.height());
    }
}

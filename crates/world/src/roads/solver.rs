//! The least-cost route between two cells over path segment masks (Galin et al. §5).
//!
//! Best-first search (A*) with the straight-line heuristic `h = base·res·|p − goal|` and
//! pyworldgen's exact order: a binary heap of `(g + h, insertion counter)`, a state re-pushed
//! whenever its cost strictly improves, the goal accepted when popped. With
//! `curvature_weight > 0` the state is (cell, incoming mask direction) — the oriented grid of
//! §5.2 — and every turn by θ adds `curvature_weight·θ²`. Extra moves (tunnels, annulus bridges)
//! join the same search as jumps whose cost is given by the caller.

use std::collections::BinaryHeap;

use super::cost::{Blocked, CostField, RoadCost, SegmentMask};
use super::np::ihypot;

/// What a step of a route is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    /// A mask segment on the ground (or fording, or a level bridge over deep water).
    Surface,
    /// A tunnel bore between its two portals.
    Tunnel,
    /// An annulus bridge span.
    Bridge,
}

/// A jump move offered by [`Jumps`]: target cell index, its cost, its kind.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Jump {
    /// Target cell (row-major index).
    pub to: usize,
    /// Cost of the move (finite, ≥ 0).
    pub cost: f64,
    /// Tunnel or bridge.
    pub kind: StepKind,
}

/// A source of extra moves from a cell (tunnels and bridges by annulus masks). Moves with a
/// negative or non-finite cost, or off the grid, are ignored by the search.
pub trait Jumps {
    /// Append the jumps leaving cell `(cx, cy)` to `out`.
    fn jumps(&self, cx: usize, cy: usize, out: &mut Vec<Jump>);
}

/// Options of one search beyond the cost model.
#[derive(Clone, Copy, Default)]
pub struct SearchOptions<'a> {
    /// Cost multiplier per destination cell (corridor reuse).
    pub reuse: Option<&'a [f64]>,
    /// Cells the search may visit (`None`: all).
    pub corridor: Option<&'a [bool]>,
    /// Extra moves.
    pub jumps: Option<&'a dyn Jumps>,
    /// [`level_multipliers`](super::cost::level_multipliers) of this field and cost, computed
    /// once for many searches (`None`: computed per search).
    pub level: Option<&'a [f64]>,
}

/// A routed path: the cells visited (mask endpoints) and what each step is.
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    /// Waypoints (ix, iy), start first.
    pub cells: Vec<(usize, usize)>,
    /// `kinds[s]` is the step from `cells[s]` to `cells[s + 1]`.
    pub kinds: Vec<StepKind>,
    /// Total cost.
    pub cost: f64,
    /// States expanded by the search.
    pub expanded: usize,
}

/// Why no route was found.
#[derive(Debug, Clone, PartialEq)]
pub struct NoRoute {
    /// Segments refused for a grade above `max_grade`.
    pub steep: usize,
    /// Segments refused for water deeper than `max_water_depth` (bridges off).
    pub deep: usize,
    /// Segments refused for tree density above `max_tree_density`.
    pub dense: usize,
    /// Whether the start or goal was outside the grid or the corridor.
    pub outside: bool,
}

impl NoRoute {
    /// The thresholds that blocked the search, in words with their values.
    pub fn blocked_by(&self, cost: &RoadCost) -> String {
        let mut why = Vec::new();
        if self.outside {
            why.push("the grid or corridor bounds (an endpoint lies outside)".to_string());
        }
        if self.steep > 0 {
            why.push(format!("max_grade = {} ({} segments too steep)", cost.max_grade, self.steep));
        }
        if self.deep > 0 {
            why.push(format!(
                "max_water_depth = {} with allow_bridges = false ({} segments through deeper water)",
                cost.max_water_depth, self.deep
            ));
        }
        if self.dense > 0 {
            why.push(format!(
                "max_tree_density = {:?} ({} segments through denser trees)",
                cost.max_tree_density, self.dense
            ));
        }
        if why.is_empty() {
            why.push("the grid edge".to_string());
        }
        why.join(" and ")
    }
}

/// A heap entry: (f as its bit pattern, insertion counter, state), reversed so the max-heap
/// pops the least (f, counter) first, as `heapq` does. f ≥ 0 is finite, and for non-negative
/// floats the bit patterns order as the values.
type Entry = std::cmp::Reverse<(u64, u64, u32)>;

#[inline]
fn entry(f: f64, counter: u64, state: usize) -> Entry {
    debug_assert!(f >= 0.0 && f.is_finite());
    std::cmp::Reverse(((f + 0.0).to_bits(), counter, state as u32))
}

/// Each cell's row of segment costs (∞ where forbidden). With the oriented grid every cell is
/// expanded once per incoming direction and a segment's cost does not depend on it, so rows are
/// kept (while cells × m stays under 32 M entries); otherwise one row is recomputed each time.
struct Rows {
    keep: bool,
    m: usize,
    data: Vec<f64>,
    filled: Vec<bool>,
}

impl Rows {
    fn new(oriented: bool, cells: usize, m: usize) -> Self {
        let keep = oriented && cells * m <= 32 << 20;
        Self {
            keep,
            m,
            data: vec![0.0; if keep { cells * m } else { m }],
            filled: vec![false; if keep { cells } else { 0 }],
        }
    }

    /// The row of compact cell `k`, filled by `fill` unless kept from an earlier expansion.
    fn get(&mut self, k: usize, fill: impl FnOnce(&mut [f64])) -> &[f64] {
        let m = self.m;
        if !self.keep {
            fill(&mut self.data[..m]);
            return &self.data[..m];
        }
        let row = &mut self.data[k * m..(k + 1) * m];
        if !self.filled[k] {
            fill(row);
            self.filled[k] = true;
        }
        row
    }
}

/// The costs of every mask segment from `(cx, cy)` into `row` (∞ where forbidden, counting why).
#[allow(clippy::too_many_arguments)]
fn segment_row(
    field: &CostField<'_>,
    cost: &RoadCost,
    mask: &SegmentMask,
    strided: &super::cost::Strided,
    level: &[f64],
    (cx, cy): (usize, usize),
    row: &mut [f64],
    fail: &mut NoRoute,
) {
    for (o, slot) in row.iter_mut().enumerate() {
        *slot = match field.segment_cost_fast(cost, mask, strided, level, cx, cy, o) {
            Ok(c) => c,
            Err(b) => {
                match b {
                    Blocked::Steep => fail.steep += 1,
                    Blocked::Deep => fail.deep += 1,
                    Blocked::Dense => fail.dense += 1,
                    Blocked::Outside => {}
                }
                f64::INFINITY
            }
        };
    }
}

/// `curvature_weight·θ²` for every (incoming direction, outgoing offset) pair; row 0 is "no
/// incoming direction" (all zero), as pyworldgen's `acos` of the clamped normalised dot.
fn turn_table(mask: &SegmentMask, w: f64) -> Vec<f64> {
    let m = mask.offsets.len();
    let mut t = vec![0.0; (m + 1) * m];
    for (a, &(ux, uy)) in mask.offsets.iter().enumerate() {
        let nu = ihypot(ux as i64, uy as i64);
        for (b, &(di, dj)) in mask.offsets.iter().enumerate() {
            let dot = (ux * di + uy * dj) as f64 / (nu * ihypot(di as i64, dj as i64));
            let theta = dot.clamp(-1.0, 1.0).acos();
            t[(a + 1) * m + b] = w * theta * theta;
        }
    }
    t
}

/// Dense per-state bookkeeping over the cells a search may visit.
struct States {
    dirs: usize,
    /// Cell → compact index (u32::MAX outside the corridor), or identity.
    compact: Option<Vec<u32>>,
    g: Vec<f64>,
    came: Vec<u32>,
    last: Vec<u64>,
    kind: Vec<StepKind>,
}

impl States {
    fn new(ncells: usize, dirs: usize, corridor: Option<&[bool]>) -> Self {
        let (compact, n) = match corridor {
            Some(c) => {
                let mut ids = vec![u32::MAX; ncells];
                let mut k = 0u32;
                for (i, &inside) in c.iter().enumerate() {
                    if inside {
                        ids[i] = k;
                        k += 1;
                    }
                }
                (Some(ids), k as usize)
            }
            None => (None, ncells),
        };
        let ns = n * dirs;
        Self {
            dirs,
            compact,
            g: vec![f64::INFINITY; ns],
            came: vec![u32::MAX; ns],
            last: vec![0; ns],
            kind: vec![StepKind::Surface; ns],
        }
    }
    #[inline]
    fn id(&self, cell: usize, dir: usize) -> Option<usize> {
        match &self.compact {
            Some(ids) => match ids[cell] {
                u32::MAX => None,
                k => Some(k as usize * self.dirs + dir),
            },
            None => Some(cell * self.dirs + dir),
        }
    }
}

/// The search's fixed inputs.
struct Ctx<'a> {
    field: &'a CostField<'a>,
    offsets: &'a [(i32, i32)],
    opts: SearchOptions<'a>,
    turns: Vec<f64>,
    goal: (usize, usize),
    hscale: f64,
}

impl Ctx<'_> {
    #[inline]
    fn h(&self, ix: usize, iy: usize) -> f64 {
        self.hscale * ihypot(ix as i64 - self.goal.0 as i64, iy as i64 - self.goal.1 as i64)
    }
}

/// The least-cost route from `start` to `goal` (cells (ix, iy)), or why none exists. Searches
/// are bounded: each state is pushed only on a strict cost improvement, and the total work is
/// capped at 64 pushes per state.
pub fn least_cost_path(
    field: &CostField<'_>,
    cost: &RoadCost,
    mask: &SegmentMask,
    start: (usize, usize),
    goal: (usize, usize),
    opts: SearchOptions<'_>,
) -> Result<Route, NoRoute> {
    let (nx, ny) = (field.nx, field.ny);
    let mut fail = NoRoute { steep: 0, deep: 0, dense: 0, outside: false };
    if start.0 >= nx || start.1 >= ny || goal.0 >= nx || goal.1 >= ny {
        fail.outside = true;
        return Err(fail);
    }
    let oriented = cost.curvature_weight > 0.0;
    let m = mask.offsets.len();
    let dirs = if oriented { m + 1 } else { 1 };
    let mut st = States::new(nx * ny, dirs, opts.corridor);
    let ctx = Ctx {
        field,
        offsets: &mask.offsets,
        opts,
        turns: if oriented { turn_table(mask, cost.curvature_weight) } else { Vec::new() },
        goal,
        hscale: cost.base * field.res,
    };
    let s0 = match st.id(start.1 * nx + start.0, 0) {
        Some(s) => s,
        None => {
            fail.outside = true;
            return Err(fail);
        }
    };
    if st.id(goal.1 * nx + goal.0, 0).is_none() {
        fail.outside = true;
        return Err(fail);
    }
    st.g[s0] = 0.0;
    let mut heap = BinaryHeap::new();
    heap.push(entry(0.0, 0, s0));
    let mut counter = 0u64;
    let budget = 64 * st.g.len() as u64 + 1024;
    let mut expanded = 0usize;
    let mut jumps = Vec::new();
    let strided = mask.strided(nx);
    let mut rows = Rows::new(oriented, st.g.len() / dirs, m);
    let own_level;
    let level = match opts.level {
        Some(l) if l.len() == nx * ny => l,
        _ => {
            own_level = super::cost::level_multipliers(field, cost);
            &own_level
        }
    };
    // Cell of each state (compact ids need the reverse map).
    let cell_of = cell_index(&st, nx * ny);
    while let Some(std::cmp::Reverse((_, ecounter, estate))) = heap.pop() {
        let s = estate as usize;
        if ecounter != st.last[s] {
            continue; // stale: re-expanding it would push nothing (pyworldgen does, to no effect)
        }
        let cell = cell_of[s / dirs] as usize;
        let (cx, cy) = (cell % nx, cell / nx);
        if (cx, cy) == goal {
            return Ok(trace(&st, &cell_of, s, nx, expanded));
        }
        expanded += 1;
        let base = st.g[s];
        let row = rows.get(s / dirs, |row| segment_row(field, cost, mask, &strided, level, (cx, cy), row, &mut fail));
        relax_row(&ctx, &mut st, &mut heap, &mut counter, s, (cx, cy), row);
        if let Some(j) = ctx.opts.jumps {
            jumps.clear();
            j.jumps(cx, cy, &mut jumps);
            for jp in jumps.iter().filter(|jp| jp.cost >= 0.0 && jp.cost.is_finite() && jp.to < nx * ny) {
                relax(&ctx, &mut st, &mut heap, &mut counter, s, jp.to, 0, base + jp.cost, jp.kind);
            }
        }
        if counter > budget {
            break;
        }
    }
    Err(fail)
}

fn cell_index(st: &States, ncells: usize) -> Vec<u32> {
    match &st.compact {
        Some(ids) => {
            let mut rev = vec![0u32; st.g.len() / st.dirs];
            for (c, &k) in ids.iter().enumerate() {
                if k != u32::MAX {
                    rev[k as usize] = c as u32;
                }
            }
            rev
        }
        None => (0..ncells as u32).collect(),
    }
}

/// Relax every finite segment of `row` out of state `s` at cell `(cx, cy)`: step cost × reuse
/// at the destination, plus the turn from the incoming direction on the oriented grid.
fn relax_row(
    ctx: &Ctx<'_>,
    st: &mut States,
    heap: &mut BinaryHeap<Entry>,
    counter: &mut u64,
    s: usize,
    (cx, cy): (usize, usize),
    row: &[f64],
) {
    let (nx, m) = (ctx.field.nx, row.len());
    let oriented = st.dirs > 1;
    let (base, din) = (st.g[s], s % st.dirs);
    for (o, &sc) in row.iter().enumerate() {
        if sc == f64::INFINITY {
            continue;
        }
        let (di, dj) = ctx.offsets[o];
        let nxt = ((cy as i64 + dj as i64) as usize) * nx + (cx as i64 + di as i64) as usize;
        let mut step = match ctx.opts.reuse {
            Some(r) => sc * r[nxt],
            None => sc,
        };
        if oriented && din > 0 {
            step += ctx.turns[din * m + o];
        }
        if !(step >= 0.0 && step.is_finite()) {
            continue; // a negative or non-finite cost (bad reuse or density input) is refused
        }
        let dout = if oriented { o + 1 } else { 0 };
        relax(ctx, st, heap, counter, s, nxt, dout, base + step, StepKind::Surface);
    }
}

#[allow(clippy::too_many_arguments)]
#[inline]
fn relax(
    ctx: &Ctx<'_>,
    st: &mut States,
    heap: &mut BinaryHeap<Entry>,
    counter: &mut u64,
    from: usize,
    nxt: usize,
    dout: usize,
    ncost: f64,
    kind: StepKind,
) {
    let Some(ns) = st.id(nxt, dout) else { return };
    if ncost < st.g[ns] {
        st.g[ns] = ncost;
        *counter += 1;
        st.last[ns] = *counter;
        st.came[ns] = from as u32;
        st.kind[ns] = kind;
        let nx = ctx.field.nx;
        heap.push(entry(ncost + ctx.h(nxt % nx, nxt / nx), *counter, ns));
    }
}

fn trace(st: &States, cell_of: &[u32], goal_state: usize, nx: usize, expanded: usize) -> Route {
    let mut cells = Vec::new();
    let mut kinds = Vec::new();
    let mut s = goal_state;
    loop {
        let c = cell_of[s / st.dirs] as usize;
        cells.push((c % nx, c / nx));
        let p = st.came[s];
        if p == u32::MAX {
            break;
        }
        kinds.push(st.kind[s]);
        s = p as usize;
    }
    cells.reverse();
    kinds.reverse();
    Route { cells, kinds, cost: st.g[goal_state], expanded }
}

//! The least-cost route between two cells over path segment masks (Galin et al. §5).
//!
//! Best-first search (A*) with the straight-line heuristic `h = base·res·|p − goal|` and
//! pyworldgen's exact order: states popped by `(g + h, insertion counter)`, a state's key
//! renewed whenever its cost strictly improves, the goal accepted when popped. With
//! `curvature_weight > 0` the state is (cell, incoming mask direction) — the oriented grid of
//! §5.2 — and every turn by θ adds `curvature_weight·θ²`. Extra moves (tunnels, annulus bridges)
//! join the same search as jumps whose cost is given by the caller.

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
    /// [`segment_floor`] of this field, cost and mask, computed once for many searches
    /// (`None`: computed per search).
    pub floor: Option<&'a [f64]>,
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
    /// Count one segment refused for `b` (a segment off the grid is not counted).
    fn count(&mut self, b: Blocked) {
        match b {
            Blocked::Steep => self.steep += 1,
            Blocked::Deep => self.deep += 1,
            Blocked::Dense => self.dense += 1,
            Blocked::Outside => {}
        }
    }

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

/// A heap key: (f as its bit pattern, insertion counter). f ≥ 0 is finite, and for
/// non-negative floats the bit patterns order as the values, so keys order as `heapq` orders
/// its `(f, counter)` tuples.
type Key = (u64, u64);

#[inline]
fn key(f: f64, counter: u64) -> Key {
    debug_assert!(f >= 0.0 && f.is_finite());
    ((f + 0.0).to_bits(), counter)
}

/// The open set: an indexed 4-ary min-heap of states by [`Key`], each state at most once (its
/// position kept in its [`Rec`]). pyworldgen pushes a new `(f, counter)` tuple at each strict
/// improvement and skips the stale ones when popped; replacing the state's key in place pops
/// the same live entries in the same order, from a heap the size of the frontier instead of
/// every push.
struct Open {
    heap: Vec<(Key, u32)>,
}

const NOWHERE: u32 = u32::MAX;

impl Open {
    fn new() -> Self {
        Self { heap: Vec::new() }
    }

    /// Insert state `s` with key `k`, or replace its key.
    #[inline]
    fn set(&mut self, rec: &mut [Rec], s: usize, k: Key) {
        let p = pos_of(&rec[s]);
        if p == NOWHERE {
            self.heap.push((k, s as u32));
            let i = self.heap.len() - 1;
            set_pos(&mut rec[s], i as u32);
            self.up(rec, i);
        } else {
            let i = p as usize;
            let old = self.heap[i].0;
            self.heap[i].0 = k;
            if k < old {
                self.up(rec, i);
            } else {
                self.down(rec, i);
            }
        }
    }

    /// Remove and return the state of least key.
    #[inline]
    fn pop(&mut self, rec: &mut [Rec]) -> Option<usize> {
        let top = *self.heap.first()?;
        let last = self.heap.pop().expect("non-empty");
        set_pos(&mut rec[top.1 as usize], NOWHERE);
        if !self.heap.is_empty() {
            self.place(rec, 0, last);
            self.down(rec, 0);
        }
        Some(top.1 as usize)
    }

    fn up(&mut self, rec: &mut [Rec], mut i: usize) {
        let item = self.heap[i];
        while i > 0 {
            let parent = (i - 1) / 4;
            if self.heap[parent].0 <= item.0 {
                break;
            }
            self.place(rec, i, self.heap[parent]);
            i = parent;
        }
        self.place(rec, i, item);
    }

    /// Put `item` at slot `i` and record the slot in its state.
    #[inline]
    fn place(&mut self, rec: &mut [Rec], i: usize, item: (Key, u32)) {
        self.heap[i] = item;
        set_pos(&mut rec[item.1 as usize], i as u32);
    }

    fn down(&mut self, rec: &mut [Rec], mut i: usize) {
        let n = self.heap.len();
        let item = self.heap[i];
        loop {
            let first = 4 * i + 1;
            if first >= n {
                break;
            }
            let mut best = first;
            for c in first + 1..(first + 4).min(n) {
                if self.heap[c].0 < self.heap[best].0 {
                    best = c;
                }
            }
            if self.heap[best].0 >= item.0 {
                break;
            }
            self.place(rec, i, self.heap[best]);
            i = best;
        }
        self.place(rec, i, item);
    }
}

/// Sentinels of a segment-cost row: why a segment is forbidden (negative, so never a cost), or
/// `+∞` when it leaves the grid.
const STEEP: f64 = -1.0;
const DEEP: f64 = -2.0;
const DENSE: f64 = -3.0;

/// Each cell's row of segment costs (a sentinel where forbidden), kept once computed: on the
/// oriented grid every cell is expanded once per incoming direction and a segment's cost does
/// not depend on it. Rows are kept until `cap` rows are held (256 MiB); cells beyond that are
/// recomputed at each expansion.
struct RowStore {
    m: usize,
    /// Cell → row slot (`u32::MAX`: none yet).
    slot: Vec<u32>,
    data: Vec<f64>,
    cap: usize,
    /// Scratch row for cells past the cap.
    scratch: Vec<f64>,
}

/// Most memory the oriented search's rows take.
const ROW_BYTES: usize = 256 << 20;

impl RowStore {
    fn new(cells: usize, m: usize) -> Self {
        let cap = (ROW_BYTES / (8 * m.max(1))).min(cells);
        Self { m, slot: vec![u32::MAX; cells], data: Vec::new(), cap, scratch: vec![0.0; m] }
    }

    /// The row of `cell`, filled by `fill` unless held, and whether it was filled now.
    fn row(&mut self, cell: usize, fill: impl FnOnce(&mut [f64])) -> (&[f64], bool) {
        let m = self.m;
        let k = self.slot[cell];
        if k != u32::MAX {
            let k = k as usize;
            return (&self.data[k * m..(k + 1) * m], false);
        }
        if self.data.len() / m < self.cap {
            let k = self.data.len() / m;
            self.data.resize((k + 1) * m, 0.0);
            fill(&mut self.data[k * m..(k + 1) * m]);
            self.slot[cell] = k as u32;
            return (&self.data[k * m..(k + 1) * m], true);
        }
        fill(&mut self.scratch);
        (&self.scratch, true)
    }
}

/// Count the forbidden segments of a row into `fail`.
fn count_blocked(row: &[f64], fail: &mut NoRoute) {
    for &c in row.iter().filter(|&&c| c < 0.0) {
        fail.count(if c == STEEP {
            Blocked::Steep
        } else if c == DEEP {
            Blocked::Deep
        } else {
            Blocked::Dense
        });
    }
}

/// The costs of every mask segment from `(cx, cy)` into `row` (a sentinel where forbidden).
fn segment_row(
    field: &CostField<'_>,
    cost: &RoadCost,
    mask: &SegmentMask,
    strided: &super::cost::Strided,
    level: &[f64],
    (cx, cy): (usize, usize),
    row: &mut [f64],
) {
    for (o, slot) in row.iter_mut().enumerate() {
        *slot = match field.segment_cost_fast(cost, mask, strided, level, cx, cy, o) {
            Ok(c) => c,
            Err(Blocked::Steep) => STEEP,
            Err(Blocked::Deep) => DEEP,
            Err(Blocked::Dense) => DENSE,
            Err(Blocked::Outside) => f64::INFINITY,
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

/// One search state's bookkeeping in 16 bytes, all zero while blank, so the memory of states a
/// search never reaches is never written (the vector is allocated zeroed): word 0 is the best
/// cost's bits XOR those of +∞ (0: not reached), word 1 holds the predecessor + 1 (low half)
/// and the open-set position + 1 (high half), 0 meaning none.
type Rec = [u64; 2];

const INF_BITS: u64 = 0x7ff0_0000_0000_0000;

#[inline]
fn g_of(r: &Rec) -> f64 {
    f64::from_bits(r[0] ^ INF_BITS)
}

#[inline]
fn set_g(r: &mut Rec, g: f64) {
    r[0] = g.to_bits() ^ INF_BITS;
}

#[inline]
fn came_of(r: &Rec) -> u32 {
    (r[1] as u32).wrapping_sub(1)
}

#[inline]
fn set_came(r: &mut Rec, c: u32) {
    r[1] = (r[1] & !0xffff_ffff) | u64::from(c.wrapping_add(1));
}

#[inline]
fn pos_of(r: &Rec) -> u32 {
    ((r[1] >> 32) as u32).wrapping_sub(1)
}

#[inline]
fn set_pos(r: &mut Rec, p: u32) {
    r[1] = (r[1] & 0xffff_ffff) | (u64::from(p.wrapping_add(1)) << 32);
}

fn kind_code(k: StepKind) -> u8 {
    match k {
        StepKind::Surface => 0,
        StepKind::Tunnel => 1,
        StepKind::Bridge => 2,
    }
}

fn kind_of(c: u8) -> StepKind {
    match c {
        1 => StepKind::Tunnel,
        2 => StepKind::Bridge,
        _ => StepKind::Surface,
    }
}

/// Dense per-state bookkeeping over the cells a search may visit.
struct States {
    dirs: usize,
    /// Cell → compact index (u32::MAX outside the corridor), or identity.
    compact: Option<Vec<u32>>,
    rec: Vec<Rec>,
    /// The step that reached each state ([`kind_code`]; zeroed like `rec`).
    kind: Vec<u8>,
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
        Self { dirs, compact, rec: vec![[0u64; 2]; n * dirs], kind: vec![0u8; n * dirs] }
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
    fn len(&self) -> usize {
        self.rec.len()
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
    set_g(&mut st.rec[s0], 0.0);
    let mut heap = Open::new();
    heap.set(&mut st.rec, s0, key(0.0, 0));
    let mut counter = 0u64;
    let budget = 64 * st.len() as u64 + 1024;
    let mut expanded = 0usize;
    let mut jumps = Vec::new();
    let strided = mask.strided(nx);
    let own_level;
    let level = match opts.level {
        Some(l) if l.len() == nx * ny => l,
        _ => {
            own_level = super::cost::level_multipliers(field, cost);
            &own_level
        }
    };
    // The oriented grid keeps each cell's row (a cell is expanded once per incoming direction);
    // the plain search evaluates a segment only when its bound says it could improve.
    let mut store = RowStore::new(if oriented { nx * ny } else { 0 }, m);
    let own_floor;
    let floor = match opts.floor {
        Some(f) if f.len() == nx * ny => f,
        _ if oriented => &[][..],
        _ => {
            own_floor = segment_floor(field, cost, mask, level);
            &own_floor
        }
    };
    let bounds = Bounds { length: mask.length.iter().map(|l| l * (1.0 - 1e-9)).collect(), floor };
    // Cell of each state (compact ids need the reverse map).
    let cell_of = cell_index(&st, nx * ny);
    while let Some(s) = heap.pop(&mut st.rec) {
        let cell = cell_of[s / dirs] as usize;
        let (cx, cy) = (cell % nx, cell / nx);
        if (cx, cy) == goal {
            return Ok(trace(&st, &cell_of, s, nx, expanded));
        }
        expanded += 1;
        let base = g_of(&st.rec[s]);
        // Forbidden segments are counted at each expansion (once per cell on the oriented grid).
        if oriented {
            let (row, filled) = store.row(cell, |row| segment_row(field, cost, mask, &strided, level, (cx, cy), row));
            if filled {
                count_blocked(row, &mut fail);
            }
            relax_row(&ctx, &mut st, &mut heap, &mut counter, s, (cx, cy), row);
        } else {
            let lazy = Lazy { cost, mask, strided: &strided, level, bounds: &bounds };
            expand_plain(&ctx, &lazy, &mut st, &mut heap, &mut counter, s, (cx, cy), &mut fail);
        }
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
            let mut rev = vec![0u32; st.len() / st.dirs];
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

/// Per cell, the least cost per metre a mask segment starting there can have: the least level
/// multiplier ([`level_multipliers`](super::cost::level_multipliers), given as `level`) over the
/// cells within the mask radius (every sample of every segment from the cell lies there;
/// forbidden cells count as +∞). A sub-step's multiplier is never below its start cell's level
/// multiplier when no weight is negative; with a negative weight the floor is 0.
pub fn segment_floor(field: &CostField<'_>, cost: &RoadCost, mask: &SegmentMask, level: &[f64]) -> Vec<f64> {
    let weights = [cost.base, cost.slope_weight, cost.water_weight, cost.bridge_cost, cost.vegetation_weight];
    let (nx, ny) = (field.nx, field.ny);
    if !weights.iter().all(|w| w.is_finite() && *w >= 0.0) || level.len() != nx * ny {
        return vec![0.0; nx * ny];
    }
    let k = mask.offsets.iter().map(|&(i, j)| i.unsigned_abs().max(j.unsigned_abs())).max().unwrap_or(1) as usize;
    let value: Vec<f64> = level.iter().map(|&m| if m.is_nan() { f64::INFINITY } else { m }).collect();
    // Separable: the window minimum along rows, then along columns.
    let mut rows = vec![0.0; nx * ny];
    for (src, dst) in value.chunks_exact(nx).zip(rows.chunks_exact_mut(nx)) {
        for (i, d) in dst.iter_mut().enumerate() {
            *d = src[i.saturating_sub(k)..=(i + k).min(nx - 1)].iter().copied().fold(f64::INFINITY, f64::min);
        }
    }
    let mut out = vec![f64::INFINITY; nx * ny];
    for j in 0..ny {
        let dst = &mut out[j * nx..(j + 1) * nx];
        for jj in j.saturating_sub(k)..=(j + k).min(ny - 1) {
            for (d, &v) in dst.iter_mut().zip(&rows[jj * nx..(jj + 1) * nx]) {
                *d = d.min(v);
            }
        }
    }
    out
}

/// Lower bounds of segment costs: `length[o] · floor[c]` never exceeds the computed cost of
/// segment `o` from cell `c` ([`segment_floor`]); `length[o]` is the segment's length shrunk by
/// 1e-9 relative, far more than the rounding of the ≤ 20 sums and products that cost a segment.
struct Bounds<'a> {
    length: Vec<f64>,
    floor: &'a [f64],
}

/// What the plain search needs to cost a segment on demand.
struct Lazy<'a> {
    cost: &'a RoadCost,
    mask: &'a SegmentMask,
    strided: &'a super::cost::Strided,
    level: &'a [f64],
    bounds: &'a Bounds<'a>,
}

/// Expand state `s` at `(cx, cy)` of the plain (unoriented) search: for each mask segment whose
/// destination could improve (`g + bound·reuse < g(destination)`), cost the segment and relax.
/// The relaxations made are exactly those of costing every segment first; a segment skipped is
/// not counted in the blocked diagnostics.
#[allow(clippy::too_many_arguments)]
fn expand_plain(
    ctx: &Ctx<'_>,
    lz: &Lazy<'_>,
    st: &mut States,
    heap: &mut Open,
    counter: &mut u64,
    s: usize,
    (cx, cy): (usize, usize),
    fail: &mut NoRoute,
) {
    let (nx, ny) = (ctx.field.nx, ctx.field.ny);
    let base = g_of(&st.rec[s]);
    let floor = lz.bounds.floor[cy * nx + cx];
    for (o, &(di, dj)) in ctx.offsets.iter().enumerate() {
        let tx = cx.wrapping_add_signed(di as isize);
        let ty = cy.wrapping_add_signed(dj as isize);
        if tx >= nx || ty >= ny {
            continue;
        }
        let nxt = ty * nx + tx;
        let Some(ns) = st.id(nxt, 0) else { continue };
        let r = ctx.opts.reuse.map(|r| r[nxt]);
        let bound = match r {
            Some(r) => lz.bounds.length[o] * floor * r,
            None => lz.bounds.length[o] * floor,
        };
        if (base + bound).partial_cmp(&g_of(&st.rec[ns])) != Some(std::cmp::Ordering::Less) {
            continue; // cannot improve (a bad reuse value would be refused below anyway)
        }
        let sc = match ctx.field.segment_cost_fast(lz.cost, lz.mask, lz.strided, lz.level, cx, cy, o) {
            Ok(c) => c,
            Err(b) => {
                fail.count(b);
                continue;
            }
        };
        let step = match r {
            Some(r) => sc * r,
            None => sc,
        };
        if !(step >= 0.0 && step.is_finite()) {
            continue; // a negative or non-finite cost (bad reuse or density input) is refused
        }
        relax(ctx, st, heap, counter, s, nxt, 0, base + step, StepKind::Surface);
    }
}

/// Relax every finite segment of `row` out of state `s` at cell `(cx, cy)`: step cost × reuse
/// at the destination, plus the turn from the incoming direction on the oriented grid.
fn relax_row(
    ctx: &Ctx<'_>,
    st: &mut States,
    heap: &mut Open,
    counter: &mut u64,
    s: usize,
    (cx, cy): (usize, usize),
    row: &[f64],
) {
    let (nx, m) = (ctx.field.nx, row.len());
    let oriented = st.dirs > 1;
    let (base, din) = (g_of(&st.rec[s]), s % st.dirs);
    for (o, &sc) in row.iter().enumerate() {
        if !(0.0..f64::INFINITY).contains(&sc) {
            continue; // forbidden (a sentinel) or off the grid
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
    heap: &mut Open,
    counter: &mut u64,
    from: usize,
    nxt: usize,
    dout: usize,
    ncost: f64,
    kind: StepKind,
) {
    let Some(ns) = st.id(nxt, dout) else { return };
    let r = &mut st.rec[ns];
    if ncost < g_of(r) {
        *counter += 1;
        set_g(r, ncost);
        set_came(r, from as u32);
        st.kind[ns] = kind_code(kind);
        let nx = ctx.field.nx;
        heap.set(&mut st.rec, ns, key(ncost + ctx.h(nxt % nx, nxt / nx), *counter));
    }
}

fn trace(st: &States, cell_of: &[u32], goal_state: usize, nx: usize, expanded: usize) -> Route {
    let mut cells = Vec::new();
    let mut kinds = Vec::new();
    let mut s = goal_state;
    loop {
        let c = cell_of[s / st.dirs] as usize;
        cells.push((c % nx, c / nx));
        let p = came_of(&st.rec[s]);
        if p == u32::MAX {
            break;
        }
        kinds.push(kind_of(st.kind[s]));
        s = p as usize;
    }
    cells.reverse();
    kinds.reverse();
    Route { cells, kinds, cost: g_of(&st.rec[goal_state]), expanded }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// pyworldgen's search as it is written: every segment costed, a binary heap of
    /// `(f, counter, state)` tuples with a new tuple per strict improvement, stale tuples skipped
    /// when popped. The solver (indexed heap, segments costed on demand) must give the same route,
    /// cost bits and expansion count.
    fn reference(
        field: &CostField<'_>,
        cost: &RoadCost,
        mask: &SegmentMask,
        start: usize,
        goal: usize,
        reuse: &[f64],
    ) -> (Vec<usize>, u64, usize) {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let n = field.nx * field.ny;
        let (mut g, mut came, mut last) = (vec![f64::INFINITY; n], vec![usize::MAX; n], vec![0u64; n]);
        let h = |c: usize| {
            cost.base
                * field.res
                * ihypot(
                    (c % field.nx) as i64 - (goal % field.nx) as i64,
                    (c / field.nx) as i64 - (goal / field.nx) as i64,
                )
        };
        let mut heap = BinaryHeap::new();
        g[start] = 0.0;
        heap.push(Reverse((0f64.to_bits(), 0u64, start)));
        let (mut counter, mut expanded) = (0u64, 0usize);
        while let Some(Reverse((_, k, c))) = heap.pop() {
            if k != last[c] {
                continue;
            }
            if c == goal {
                let mut path = vec![c];
                while came[*path.last().unwrap()] != usize::MAX {
                    path.push(came[*path.last().unwrap()]);
                }
                path.reverse();
                return (path, g[c].to_bits(), expanded);
            }
            expanded += 1;
            let (cx, cy) = (c % field.nx, c / field.nx);
            for (o, &(di, dj)) in mask.offsets.iter().enumerate() {
                let Ok(sc) = field.segment_cost(cost, mask, cx, cy, o) else { continue };
                let nxt = (cy as i64 + dj as i64) as usize * field.nx + (cx as i64 + di as i64) as usize;
                let ncost = g[c] + sc * reuse[nxt];
                if ncost < g[nxt] {
                    g[nxt] = ncost;
                    came[nxt] = c;
                    counter += 1;
                    last[nxt] = counter;
                    heap.push(Reverse(((ncost + h(nxt)).to_bits(), counter, nxt)));
                }
            }
        }
        (Vec::new(), 0, expanded)
    }

    #[test]
    fn same_routes_as_the_plain_heap_search() {
        let (nx, ny, res) = (64usize, 48usize, 2.0);
        let height: Vec<f64> = (0..nx * ny)
            .map(|c| {
                let (x, y) = ((c % nx) as f64, (c / nx) as f64);
                4.0 * (x * 0.21).sin() * (y * 0.17).cos() + 0.8 * (x * 0.9 + y * 0.4).sin()
            })
            .collect();
        let water: Vec<f64> = (0..nx * ny)
            .map(|c| if (20..30).contains(&(c % nx)) && c / nx > 10 { 0.1 * ((c / nx) % 7) as f64 } else { 0.0 })
            .collect();
        // Reuse along a band, as an earlier road leaves it; one flat run of exact ties too.
        let reuse: Vec<f64> = (0..nx * ny).map(|c| if c / nx == 24 { 0.6 } else { 1.0 }).collect();
        let flat = vec![8.0; nx * ny];
        let dry = vec![0.0; nx * ny];
        let hilly = CostField { nx, ny, res, height: &height, water: &water, trees: None };
        // Flat, dry ground: exact ties everywhere, so the counter order decides.
        let level = CostField { nx, ny, res, height: &flat, water: &dry, trees: None };
        for (field, k) in [(hilly, 1), (hilly, 3), (hilly, 5), (level, 1), (level, 3)] {
            let mask = SegmentMask::new(k, res);
            for cost in [RoadCost::default(), RoadCost { water_weight: 40.0, max_grade: 0.9, ..RoadCost::default() }] {
                for (a, b) in [((2, 3), (60, 44)), ((5, 40), (58, 6)), ((1, 24), (62, 24))] {
                    let opts = SearchOptions { reuse: Some(&reuse), ..Default::default() };
                    let got = least_cost_path(&field, &cost, &mask, a, b, opts).expect("a route");
                    let (path, bits, expanded) =
                        reference(&field, &cost, &mask, a.1 * nx + a.0, b.1 * nx + b.0, &reuse);
                    let cells: Vec<usize> = got.cells.iter().map(|&(x, y)| y * nx + x).collect();
                    assert_eq!(cells, path, "k={k} {a:?}→{b:?}");
                    assert_eq!(got.cost.to_bits(), bits, "k={k} {a:?}→{b:?}");
                    assert_eq!(got.expanded, expanded, "k={k} {a:?}→{b:?}");
                }
            }
        }
    }
}

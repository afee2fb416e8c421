//! Priority-Flood depression filling (Barnes, Lehman & Mulla 2014).
//!
//! Follows R. Barnes, C. Lehman, D. Mulla (2014), "Priority-Flood: An optimal depression-filling and
//! watershed-labeling algorithm for digital elevation models", *Computers & Geosciences* 62,
//! 117–127: Algorithm 2 (improved Priority-Flood: a FIFO "pit" queue takes the cells at or below
//! the current spill level so they skip the heap) and Algorithm 3 (the ε variant). It adds the
//! slope-tracing idea of G. Zhou, Z. Sun, S. Fu (2016), "An efficient variant of the Priority-Flood
//! algorithm for filling depressions in raster digital elevation models", *Computers &
//! Geosciences* 90, 87–96: a cell discovered above the spill level whose unvisited neighbours are
//! all strictly higher is expanded at once instead of going through the heap, because each of those
//! neighbours keeps its own elevation whatever order it is reached in. Most cells of a real or
//! noise DEM never touch the heap.
//!
//! # Semantics
//!
//! * **Seeds.** Every border cell, and every cell next to a nodata (NaN) cell, is a seed: it keeps
//!   its elevation and water leaves the grid through it. NaN cells stay NaN and are never entered;
//!   a cell beside nodata therefore drains *out* (into the nodata), like a border cell.
//! * **Plain fill** ([`fill`]): the unique minimal surface `W ≥ Z` in which every cell is joined to
//!   a seed by a path whose heights never exceed its own. Depressions become exactly flat at their
//!   spill level; the result does not depend on the processing order.
//! * **ε fill** ([`fill_epsilon`]): the unique solution of `W = Z` on seeds and
//!   `W(c) = max(Z(c), next_up(min over the 8 neighbours n of W(n)))` elsewhere: a cell that would
//!   be raised gets the next representable `f64` above its lowest neighbour ([`f64::next_up`]), so the
//!   step is one ulp at any elevation (≈1.8e-12 m at 8000 m, never zero), and every interior cell
//!   has a strictly downhill D8 path to a seed. The equation has one solution (each cell is
//!   strictly above the neighbour it depends on, as in a shortest-path problem with positive
//!   weights), so the result does not depend on the processing order either, and any algorithm
//!   that solves it, such as the GPU's parallel relaxation, gives the same bits. The sequential
//!   pass computes it by settling cells strictly in order of value: a raised cell in the FIFO pit
//!   queue waits while the heap holds a lower cell (`RadixHeap::has_below`).
//!
//! Determinism: single-threaded, no floating-point arithmetic other than comparisons and `next_up`;
//! the output is a pure function of the input bits.

use std::collections::VecDeque;

use bozkir_core::grid::Grid;
use bozkir_core::progress::{NoProgress, Progress};

/// How raised cells are set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FillMode {
    /// Raised cells take the spill level exactly; filled depressions are flat.
    #[default]
    Flat,
    /// Raised cells take one ulp above the cell they were reached from (see [`f64::next_up`]).
    NextUp,
}

/// Parameters of [`priority_flood`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PriorityFloodParams {
    /// Flat or ε (next-representable-value) filling. Default: [`FillMode::Flat`].
    pub mode: FillMode,
}

/// Plain Priority-Flood fill: depressions become flat at their spill level.
pub fn fill(h: &Grid<f64>) -> Grid<f64> {
    priority_flood(h, &PriorityFloodParams { mode: FillMode::Flat })
}

/// ε Priority-Flood fill: every interior cell gets a strictly downhill path to the border (or to
/// nodata), with ε = one ulp at the cell's elevation.
///
/// # Examples
///
/// Fill a DEM with a pit, then route it: after the ε fill no interior cell is a pit and the
/// accumulated area sums to the cell count.
///
/// ```
/// use bozkir_core::Grid;
/// use bozkir_terrain::hydrology::flow_graph::{accumulate_cells, count_pits, d8_receivers};
/// use bozkir_terrain::hydrology::priority_flood::fill_epsilon;
///
/// // A bowl 8 × 8 with 30 m cells: the centre lies lower than the rim.
/// let dem = Grid::from_fn(8, 8, |x, y| {
///     let (dx, dy) = (x as f64 - 3.5, y as f64 - 3.5);
///     100.0 + 10.0 * (dx * dx + dy * dy).sqrt()
/// })
/// .with_cell_size(30.0, 30.0);
/// assert!(count_pits(&d8_receivers(&dem)) > 0);
///
/// let filled = fill_epsilon(&dem);
/// let g = d8_receivers(&filled);
/// assert_eq!(count_pits(&g), 0);
/// // Cells drained, each counting itself: the outlets' areas add up to the whole grid.
/// let area = accumulate_cells(&g);
/// let outlets: u32 = (0..64).filter(|&i| g.receivers[i] as usize == i).map(|i| area[i]).sum();
/// assert_eq!(outlets, 64);
/// assert_eq!(g.stack.len(), 64); // every cell once, receivers before donors
/// ```
pub fn fill_epsilon(h: &Grid<f64>) -> Grid<f64> {
    priority_flood(h, &PriorityFloodParams { mode: FillMode::NextUp })
}

/// Priority-Flood with explicit parameters.
pub fn priority_flood(h: &Grid<f64>, params: &PriorityFloodParams) -> Grid<f64> {
    match priority_flood_with(h, params, &NoProgress) {
        Some(g) => g,
        None => unreachable!("NoProgress never cancels"),
    }
}

/// Priority-Flood reporting progress (stage `"priority_flood"`, cells settled of all cells) and
/// honouring cancellation: `None` when `progress` asked to stop.
pub fn priority_flood_with(h: &Grid<f64>, params: &PriorityFloodParams, progress: &dyn Progress) -> Option<Grid<f64>> {
    let mut out = h.clone();
    let (w, ht) = (h.width(), h.height());
    if w == 0 || ht == 0 {
        return Some(out);
    }
    let eps = params.mode == FillMode::NextUp;
    let z = out.data_mut();
    let mut state = init_state(z, w, ht);
    let n = z.len();

    // Seeds go straight to the heap.
    let mut heap = RadixHeap::new();
    for i in 0..n {
        if state[i] & SEED != 0 {
            heap.push(key(z[i], i));
        }
    }

    let offs = offsets(w);
    let mut pit: VecDeque<u32> = VecDeque::new();
    let mut trace: VecDeque<u32> = VecDeque::new();
    let total = n as u64;
    let mut settled: u64 = 0;
    let mut next_report: u64 = 1 << 20;

    loop {
        // Cells to trace upslope: when no unvisited neighbour is lower (in ε mode: lower or equal,
        // since an equal one must be raised), each neighbour keeps its own elevation, so the cell
        // is expanded now; otherwise it waits in the heap at its own elevation.
        if let Some(c) = trace.pop_front() {
            let c = c as usize;
            let zc = z[c];
            settled += 1;
            if state[c] & EDGE != 0 {
                let (x, y) = (c % w, c / w);
                let mut lower = false;
                for_each_neighbour(x, y, w, ht, |k| {
                    if state[k] & CLOSED == 0 && (z[k] < zc || (eps && z[k] == zc)) {
                        lower = true;
                    }
                });
                if lower {
                    settled -= 1;
                    heap.push(key(zc, c));
                    continue;
                }
                for_each_neighbour(x, y, w, ht, |k| {
                    if state[k] & CLOSED == 0 {
                        state[k] |= CLOSED;
                        trace.push_back(k as u32);
                    }
                });
            } else {
                let mut lower = false;
                for &o in &offs {
                    let k = c.wrapping_add(o);
                    lower |= state[k] & CLOSED == 0 && (z[k] < zc || (eps && z[k] == zc));
                }
                if lower {
                    settled -= 1;
                    heap.push(key(zc, c));
                    continue;
                }
                for &o in &offs {
                    let k = c.wrapping_add(o);
                    if state[k] & CLOSED == 0 {
                        state[k] |= CLOSED;
                        trace.push_back(k as u32);
                    }
                }
            }
        } else {
            // A cell at the current spill level: from the pit queue first, else the heap.
            // Cells are settled strictly in order of value, so each is reached first from its
            // lowest neighbour. The pit queue's values never decrease; in flat mode they are the
            // spill level, below every heap cell, but in ε mode a raised cell can lie above a
            // heap cell (a seed at the same level, or a cell a few ulps above it), which then
            // goes first.
            let from_pit = match pit.front() {
                Some(&p) => !eps || !heap.has_below(key(z[p as usize], p as usize)),
                None => false,
            };
            let c =
                if from_pit { pit.pop_front().map(|c| c as usize) } else { heap.pop().map(|k| (k as u32) as usize) };
            let Some(c) = c else { break };
            settled += 1;
            let zc = z[c];
            let raise = if eps { f64::next_up(zc) } else { zc };
            let mut visit = |k: usize, z: &mut [f64], state: &mut [u8]| {
                if state[k] & CLOSED == 0 {
                    state[k] |= CLOSED;
                    if z[k] <= zc {
                        z[k] = raise;
                        pit.push_back(k as u32);
                    } else {
                        trace.push_back(k as u32);
                    }
                }
            };
            if state[c] & EDGE != 0 {
                let (x, y) = (c % w, c / w);
                for_each_neighbour(x, y, w, ht, |k| visit(k, z, &mut state));
            } else {
                for &o in &offs {
                    visit(c.wrapping_add(o), z, &mut state);
                }
            }
        }
        if settled >= next_report {
            next_report = settled + (1 << 20);
            progress.report("priority_flood", settled, total);
            if progress.cancelled() {
                return None;
            }
        }
    }
    progress.report("priority_flood", total, total);
    Some(out)
}

// ---- shared helpers (also used by planchon_darboux) -------------------------------------------

/// Cell is closed (seeded, discovered or nodata).
pub(crate) const CLOSED: u8 = 1;
/// Cell is on the grid's outer ring: neighbour loops need bounds checks.
pub(crate) const EDGE: u8 = 2;
/// Cell is a seed (border or next to nodata, itself not nodata).
pub(crate) const SEED: u8 = 4;
/// Cell is nodata (NaN).
pub(crate) const NODATA: u8 = 8;

/// Flags per cell: nodata cells are closed; seeds (border cells and cells beside nodata) are closed
/// and marked `SEED`; outer-ring cells are marked `EDGE`.
pub(crate) fn init_state(z: &[f64], w: usize, h: usize) -> Vec<u8> {
    let mut state = vec![0u8; z.len()];
    let mut any_nan = false;
    for (s, v) in state.iter_mut().zip(z) {
        if v.is_nan() {
            *s = NODATA | CLOSED;
            any_nan = true;
        }
    }
    for y in 0..h {
        for x in 0..w {
            if x == 0 || y == 0 || x + 1 == w || y + 1 == h {
                let i = y * w + x;
                state[i] |= EDGE;
                if state[i] & NODATA == 0 {
                    state[i] |= SEED | CLOSED;
                }
            }
        }
    }
    if any_nan {
        for y in 1..h.saturating_sub(1) {
            for x in 1..w - 1 {
                let i = y * w + x;
                if state[i] & NODATA != 0 {
                    continue;
                }
                let mut beside = false;
                for_each_neighbour(x, y, w, h, |k| beside |= state[k] & NODATA != 0);
                if beside {
                    state[i] |= SEED | CLOSED;
                }
            }
        }
    }
    state
}

/// Index offsets of the 8 neighbours of an interior cell, in the fixed order
/// E, SE, S, SW, W, NW, N, NE (the ESRI D8 code order).
#[inline]
pub(crate) fn offsets(w: usize) -> [usize; 8] {
    let w = w as isize;
    [1, w + 1, w, w - 1, -1, -w - 1, -w, -w + 1].map(|o| o as usize)
}

/// Calls `f` on every in-grid neighbour of `(x, y)`, in the order of [`offsets`].
#[inline]
pub(crate) fn for_each_neighbour(x: usize, y: usize, w: usize, h: usize, mut f: impl FnMut(usize)) {
    const D: [(isize, isize); 8] = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)];
    for (ox, oy) in D {
        let nx = x as isize + ox;
        let ny = y as isize + oy;
        if nx >= 0 && ny >= 0 && (nx as usize) < w && (ny as usize) < h {
            f(ny as usize * w + nx as usize);
        }
    }
}

/// Heap key ordering by (elevation, index); the elevation is mapped to an integer whose unsigned
/// order is the IEEE total order of non-NaN values.
#[inline]
fn key(v: f64, i: usize) -> u128 {
    let b = v.to_bits();
    let ord = if b >> 63 == 1 { !b } else { b | (1 << 63) };
    ((ord as u128) << 32) | i as u128
}

/// Monotone priority queue over distinct `u128` keys (a radix heap: R. K. Ahuja, K. Mehlhorn,
/// J. B. Orlin, R. E. Tarjan (1990), "Faster algorithms for the shortest path problem", *JACM*
/// 37(2)). Valid because Priority-Flood never pushes a key below the last one popped. Bucket `b`
/// holds the keys whose highest bit differing from `last` is bit `b − 1`; bucket 0 holds `last`.
/// Pops come out in increasing key order, i.e. by (elevation, index).
struct RadixHeap {
    last: u128,
    buckets: Vec<Vec<u128>>,
    /// Bit `b` set when bucket `b` (1..=128) may be non-empty; bucket 128 uses `top`.
    mask: u128,
    top: bool,
    spare: Vec<u128>,
    /// The minimum of one bucket, as `(bucket, key)`, kept for [`Self::has_below`].
    low_min: Option<(usize, u128)>,
    /// A lower bound of every key held, for [`Self::has_below`]'s fast answer.
    floor: u128,
}

impl RadixHeap {
    fn new() -> Self {
        Self {
            last: 0,
            buckets: (0..129).map(|_| Vec::new()).collect(),
            mask: 0,
            top: false,
            spare: Vec::new(),
            low_min: None,
            floor: 0,
        }
    }

    #[inline]
    fn bucket(&self, k: u128) -> usize {
        128 - (k ^ self.last).leading_zeros() as usize
    }

    #[inline]
    fn push(&mut self, k: u128) {
        debug_assert!(k >= self.last, "radix heap: key below the last popped");
        let b = self.bucket(k);
        self.buckets[b].push(k);
        self.floor = self.floor.min(k);
        if let Some((cb, v)) = self.low_min {
            if cb == b && k < v {
                self.low_min = Some((b, k));
            }
        }
        if b == 128 {
            self.top = true;
        } else {
            self.mask |= 1 << b;
        }
    }

    /// Whether the heap holds a key below `k` (`k` above the last key popped), without popping:
    /// keys in a lower bucket are all smaller than those in a higher one, so only a tie of
    /// buckets needs the lowest bucket's minimum, which is kept until that bucket changes.
    #[inline]
    fn has_below(&mut self, k: u128) -> bool {
        if k <= self.floor {
            return false;
        }
        if !self.buckets[0].is_empty() {
            return self.last < k;
        }
        let mut m = self.mask & !1;
        let b = loop {
            if m != 0 {
                let b = m.trailing_zeros() as usize;
                if !self.buckets[b].is_empty() {
                    break b;
                }
                m &= !(1 << b);
            } else if self.top && !self.buckets[128].is_empty() {
                break 128;
            } else {
                self.floor = u128::MAX;
                return false;
            }
        };
        // Keys in bucket b agree with `last` above bit b − 1 and have that bit set.
        self.floor = self.floor.max(((self.last >> (b - 1)) << (b - 1)) | (1 << (b - 1)));
        if k <= self.floor {
            return false;
        }
        let bk = self.bucket(k);
        if bk != b {
            return bk > b;
        }
        let min = match self.low_min {
            Some((cb, v)) if cb == b => v,
            _ => {
                let v = self.buckets[b].iter().copied().min().unwrap_or(u128::MAX);
                self.low_min = Some((b, v));
                v
            }
        };
        min < k
    }

    #[inline]
    fn pop(&mut self) -> Option<u128> {
        if let Some(k) = self.buckets[0].pop() {
            return Some(k);
        }
        // The buckets are re-indexed against a new last key.
        self.low_min = None;
        let m = self.mask & !1;
        let b = if m != 0 {
            m.trailing_zeros() as usize
        } else if self.top {
            self.top = false;
            128
        } else {
            return None;
        };
        if b < 128 {
            self.mask &= !(1 << b);
        }
        let mut items = std::mem::replace(&mut self.buckets[b], std::mem::take(&mut self.spare));
        let min = items.iter().copied().min()?;
        self.last = min;
        // Every key held is at least the new last one.
        self.floor = min;
        for &k in &items {
            let nb = self.bucket(k);
            self.buckets[nb].push(k);
            self.mask |= 1 << nb;
        }
        items.clear();
        self.spare = items;
        self.buckets[0].pop()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::flow_graph::d8_receivers;
    use super::super::test_dems::{noise, value_noise};

    /// Every non-seed cell of `f` has a strictly lower D8 receiver, and following receivers from
    /// any cell ends at a seed (border or beside nodata). Returns the number of cells checked.
    fn assert_drained(f: &Grid<f64>) -> usize {
        let (w, h) = (f.width(), f.height());
        let state = init_state(f.data(), w, h);
        let g = d8_receivers(f);
        let z = f.data();
        let mut checked = 0;
        for i in 0..z.len() {
            if state[i] & (SEED | NODATA) != 0 {
                continue;
            }
            let r = g.receivers[i] as usize;
            assert!(r != i, "interior pit at ({}, {}) h = {}", i % w, i / w, z[i]);
            assert!(z[r] < z[i]);
            checked += 1;
        }
        // Walk every chain to its end (strict descent makes each walk finite).
        for (start, &st) in state.iter().enumerate() {
            if st & NODATA != 0 {
                continue;
            }
            let mut i = start;
            while g.receivers[i] as usize != i {
                i = g.receivers[i] as usize;
            }
            assert!(state[i] & SEED != 0, "chain ends off the border at ({}, {})", i % w, i / w);
        }
        checked
    }

    fn assert_above(f: &Grid<f64>, h: &Grid<f64>) {
        for (a, b) in f.data().iter().zip(h.data()) {
            assert!(a >= b || (a.is_nan() && b.is_nan()), "{a} < {b}");
        }
    }

    fn dems() -> Vec<Grid<f64>> {
        let mut v = vec![
            value_noise(97, 83, 1, 16, 3.0),
            value_noise(64, 64, 2, 9, 0.0).with_cell_size(30.0, 22.0),
            noise(50, 41, 3),
            Grid::new(20, 17, 5.0), // one big flat
        ];
        // Integer-valued noise: lots of exact ties and flats.
        v.push(value_noise(61, 47, 4, 7, 4.0).map(|x| x.round()));
        v
    }

    #[test]
    fn epsilon_fill_drains_every_interior_cell() {
        for h in dems() {
            let f = fill_epsilon(&h);
            assert_above(&f, &h);
            let n = assert_drained(&f);
            assert_eq!(n, (h.width() - 2) * (h.height() - 2));
            assert_eq!((f.dx, f.dy), (h.dx, h.dy));
        }
    }

    #[test]
    fn plain_fill_is_minimal_and_has_no_depression() {
        for h in dems() {
            let f = fill(&h);
            assert_above(&f, &h);
            // Brute-force reference: Jacobi iteration of W = max(Z, min over neighbours W) from +∞
            // with the border fixed, until nothing changes.
            let (w, ht) = (h.width(), h.height());
            let mut wv: Vec<f64> =
                (0..h.len()).map(|i| if h.is_border(i % w, i / w) { h.data()[i] } else { f64::INFINITY }).collect();
            loop {
                let prev = wv.clone();
                for y in 1..ht - 1 {
                    for x in 1..w - 1 {
                        let mut m = f64::INFINITY;
                        for_each_neighbour(x, y, w, ht, |k| m = m.min(prev[k]));
                        wv[y * w + x] = h.data()[y * w + x].max(m);
                    }
                }
                if wv == prev {
                    break;
                }
            }
            assert_eq!(f.data(), &wv[..]);
            // ε fill lies above it, by a few ulps at most.
            let e = fill_epsilon(&h);
            for (a, b) in e.data().iter().zip(f.data()) {
                assert!(a >= b && a - b <= 1e-9 * b.abs().max(1.0), "{a} vs {b}");
            }
        }
    }

    #[test]
    fn drained_surfaces_are_unchanged_and_fills_are_idempotent() {
        let plane = Grid::from_fn(40, 30, |x, y| 3.0 * x as f64 + 0.7 * y as f64 + 100.0);
        let cone = Grid::from_fn(41, 41, |x, y| {
            let (dx, dy) = (x as f64 - 20.0, y as f64 - 20.0);
            500.0 - (dx * dx + dy * dy).sqrt()
        });
        for h in [plane, cone] {
            assert_eq!(fill(&h), h);
            assert_eq!(fill_epsilon(&h), h);
        }
        for h in dems() {
            let f = fill(&h);
            assert_eq!(fill(&f), f);
            let e = fill_epsilon(&h);
            assert_eq!(fill_epsilon(&e), e);
            assert_eq!(fill(&e), e);
        }
    }

    #[test]
    fn bowl_fills_to_its_spill_level_at_any_altitude() {
        for base in [0.0, -400.0, 8000.0, 1.0e6] {
            // Paraboloid bowl: the rim's lowest cells are the border midpoints at r² = 100.
            let h = Grid::from_fn(21, 21, |x, y| {
                let (dx, dy) = (x as f64 - 10.0, y as f64 - 10.0);
                base + dx * dx + dy * dy
            });
            let spill = base + 100.0;
            let f = fill(&h);
            for (a, b) in f.data().iter().zip(h.data()) {
                assert_eq!(*a, b.max(spill));
            }
            let e = fill_epsilon(&h);
            assert_drained(&e);
            for (a, b) in e.data().iter().zip(h.data()) {
                let want = b.max(spill);
                // 300 cells below the rim at most: within a few hundred ulps of the spill level.
                assert!(*a >= want && *a - want <= 400.0 * (spill.abs() * f64::EPSILON).max(1e-300));
            }
            // Lake cells are distinct heights above the spill: none ties with its receiver.
            let lake = e.data().iter().filter(|&&v| v > spill && v < spill + 1e-6).count();
            assert!(lake > 250, "{lake}");
        }
    }

    #[test]
    fn plateau_at_8000_m_is_resolved() {
        // A flat 8000 m plateau with a walled pit in the middle; a fixed ε of 1e-13 would vanish here.
        let h =
            Grid::from_fn(33, 29, |x, y| if (14..19).contains(&x) && (12..17).contains(&y) { 7990.0 } else { 8000.0 });
        assert_eq!(8000.0 + 1e-13, 8000.0);
        let e = fill_epsilon(&h);
        assert_drained(&e);
        assert!(e.data().iter().all(|&v| (8000.0..8000.0 + 1e-9).contains(&v)));
    }

    #[test]
    fn nodata_cells_stay_nan_and_their_neighbours_drain_out() {
        let mut h = value_noise(48, 40, 9, 10, 2.0);
        for y in 15..22 {
            for x in 20..27 {
                *h.get_mut(x, y) = f64::NAN;
            }
        }
        *h.get_mut(5, 5) = f64::NAN;
        for f in [fill(&h), fill_epsilon(&h)] {
            assert_above(&f, &h);
            for (a, b) in f.data().iter().zip(h.data()) {
                assert_eq!(a.is_nan(), b.is_nan());
            }
        }
        let e = fill_epsilon(&h);
        assert_drained(&e);
        // Cells beside nodata keep their elevation (they are outlets).
        let state = init_state(h.data(), 48, 40);
        for (i, &st) in state.iter().enumerate() {
            if st & SEED != 0 {
                assert_eq!(e.data()[i], h.data()[i]);
            }
        }
    }

    #[test]
    fn degenerate_shapes() {
        for (w, h) in [(0, 0), (1, 1), (1, 5), (5, 1), (2, 2), (3, 3)] {
            let g = Grid::from_fn(w, h, |x, y| (x * 7 + y * 3) as f64 % 5.0);
            assert_eq!(fill(&g), g, "{w}x{h}");
            if w < 3 || h < 3 {
                // No interior: every cell is a seed.
                assert_eq!(fill_epsilon(&g), g.clone(), "{w}x{h}");
            }
        }
        let pit = Grid::from_vec(3, 3, vec![5.0, 5.0, 5.0, 5.0, 1.0, 5.0, 5.0, 5.0, 5.0]);
        assert_eq!(fill(&pit).data()[4], 5.0);
        assert_eq!(fill_epsilon(&pit).data()[4], f64::next_up(5.0));
    }

    #[test]
    fn progress_cancel_returns_none() {
        struct Stop;
        impl Progress for Stop {
            fn cancelled(&self) -> bool {
                true
            }
        }
        let h = value_noise(1100, 1000, 1, 30, 1.0);
        assert!(priority_flood_with(&h, &PriorityFloodParams::default(), &Stop).is_none());
    }

    #[test]
    fn radix_heap_pops_in_key_order() {
        let mut h = RadixHeap::new();
        let mut r = 12345u64;
        let mut keys = Vec::new();
        for i in 0..2000u32 {
            r = r.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            keys.push(key((r >> 40) as f64 * 0.01 - 50.0, i as usize));
        }
        let mut popped = Vec::new();
        // Interleave pushes and pops, pushing only keys at or above the last popped.
        let mut pending = keys.clone();
        pending.sort_unstable_by(|a, b| b.cmp(a));
        while let Some(k) = pending.pop() {
            h.push(k);
            if k % 3 == 0 {
                if let Some(p) = h.pop() {
                    popped.push(p);
                }
            }
        }
        while let Some(p) = h.pop() {
            popped.push(p);
        }
        keys.sort_unstable();
        assert_eq!(popped, keys);
        // Keys pushed above an already-popped minimum, out of order.
        let mut h = RadixHeap::new();
        for k in [50u128, 7, 1 << 100, 9, u128::MAX, 8] {
            h.push(k);
        }
        assert_eq!(h.pop(), Some(7));
        for k in [7u128, 1000, 8] {
            h.push(k);
        }
        let rest: Vec<u128> = std::iter::from_fn(|| h.pop()).collect();
        assert_eq!(rest, vec![7, 8, 8, 9, 50, 1000, 1 << 100, u128::MAX]);
    }

    #[test]
    fn key_orders_by_value_then_index() {
        let vals = [-5.0, -0.5, 0.0, 0.25, 3.0, 8000.0];
        for a in vals {
            for b in vals {
                assert_eq!(key(a, 7) < key(b, 7), a < b, "{a} {b}");
            }
        }
        assert!(key(1.0, 3) < key(1.0, 4));
    }
}

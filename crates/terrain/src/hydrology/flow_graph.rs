//! D8 single-flow-direction routing graph: receivers, receiver distances and a topological
//! ("stack") order, plus drainage accumulation over it.
//!
//! Sources:
//! * O'Callaghan, J. F. & Mark, D. M. (1984), "The extraction of drainage networks from digital
//!   elevation data", *Computer Vision, Graphics, and Image Processing* 28(3): steepest-descent
//!   D8 receivers.
//! * Braun, J. & Willett, S. D. (2013), "A very efficient O(n), implicit and parallel method to
//!   solve the stream power equation governing fluvial incision and landscape evolution",
//!   *Geomorphology* 180–181: receivers, the stack (every node after its receiver) and
//!   accumulation in reverse stack order.
//! * Kahn, A. B. (1962), "Topological sorting of large networks", *CACM* 5(11): the stack is built
//!   by peeling the flow forest from its leaves (in-degree counting), which is O(N) and needs no
//!   donor lists.
//!
//! This is the one D8 router of bozkir: the analysis path (`priority_flood`, `streams`,
//! `watersheds`) and the erosion path (`erosion::stream_power`) both use it, so a drainage map and
//! an erosion run on the same surface route water identically.
//!
//! # Conventions
//!
//! * **Boundary:** every border cell (`x == 0`, `y == 0`, `x == w-1`, `y == h-1`) is an outlet and
//!   its own receiver. Water leaves the grid there.
//! * **Receivers:** an interior cell drains to the neighbour with the steepest strictly positive
//!   drop `(h_i − h_j) · (1/dist_ij)`, with `dist = dx` (east/west), `dy` (north/south) or
//!   `sqrt(dx² + dy²)` (diagonals); the reciprocal distances are computed once per grid. An
//!   interior cell with no strictly lower neighbour is a **pit** and its own receiver. `NaN`
//!   heights never receive water, and a `NaN` cell is a pit.
//! * **Tie-break:** neighbours are tried in increasing row-major index order — NW, N, NE, W, E, SW,
//!   S, SE (row 0 is north) — and a later neighbour replaces the current choice only if its slope
//!   is *strictly* larger. So on equal slopes the neighbour with the lowest index wins. This is the
//!   order of the original bozkír generator (`(b, a)` over `b, a ∈ {−1, 0, 1}`) and the rule of
//!   `reference/erosion-anchors.md` §5.3. A drop that is positive but whose slope underflows to 0
//!   (subnormal differences near sea level) still counts as a receiver: "strictly lower" is tested
//!   on the heights, not on the slope.
//! * **Stack:** every cell exactly once, each cell after its receiver (receivers before donors).
//!   It is a topological order of the flow forest; unlike Braun & Willett's recursive stack,
//!   subtrees are *not* guaranteed to be contiguous. It depends only on `receivers`, so it is the
//!   same for any thread count.
//!
//! Everything here is deterministic and independent of the rayon thread count: receivers are a
//! pure per-cell function (computed in parallel over rows), the stack and the accumulations are
//! sequential with a documented order.

use bozkir_core::Grid;
use rayon::prelude::*;

/// A D8 flow graph over a `width × height` grid (row-major, index `y * width + x`).
#[derive(Debug, Clone, PartialEq)]
pub struct FlowGraph {
    /// Grid width (columns).
    pub width: usize,
    /// Grid height (rows).
    pub height: usize,
    /// Receiver of each cell; `receivers[i] == i` for outlets (all border cells) and pits.
    pub receivers: Vec<u32>,
    /// Distance in metres from each cell to its receiver; `0.0` where the cell is its own receiver.
    pub dist: Vec<f64>,
    /// Every cell once, receivers before donors. Iterate it forwards for anything that needs the
    /// receiver's value first (incision, basin labels), backwards for accumulation.
    pub stack: Vec<u32>,
}

/// Neighbour offsets `(dx, dy)` in the fixed tie-break order: increasing row-major index.
const OFFSETS: [(isize, isize); 8] = [
    (-1, -1), // NW
    (0, -1),  // N
    (1, -1),  // NE
    (-1, 0),  // W
    (1, 0),   // E
    (-1, 1),  // SW
    (0, 1),   // S
    (1, 1),   // SE
];

/// D8 steepest-descent receivers of `h` and the stack order. See the module docs for the boundary,
/// pit and tie-break conventions.
///
/// Runs in O(N): the receivers and the stack's in-degrees in parallel over rows, then the stack's
/// peel sequentially.
pub fn d8_receivers(h: &Grid<f64>) -> FlowGraph {
    let (w, ht) = (h.width(), h.height());
    let n = w * ht;
    assert!(n <= u32::MAX as usize, "d8_receivers: grid of {n} cells exceeds u32 indices");
    let mut receivers = vec![0u32; n];
    let mut dist = vec![0.0f64; n];
    if n > 0 {
        d8_fill(h.data(), w, ht, h.dx, h.dy, &mut receivers, &mut dist);
    }
    let mut stack = vec![0u32; n];
    peel::<false, u32>(&receivers, Some(w), &mut Vec::new(), &mut [], &mut stack);
    FlowGraph { width: w, height: ht, receivers, dist, stack }
}

/// Fills receivers and distances of an already allocated graph (reused by erosion).
pub(crate) fn d8_fill(z: &[f64], w: usize, ht: usize, dx: f64, dy: f64, receivers: &mut [u32], dist: &mut [f64]) {
    d8_fill_with(z, w, ht, dx, dy, receivers, Some(dist));
}

/// Fills receivers only; the distance to a receiver is [`D8Dist::of`] (erosion, which saves the
/// distances' memory traffic).
pub(crate) fn d8_fill_receivers(z: &[f64], w: usize, ht: usize, dx: f64, dy: f64, receivers: &mut [u32]) {
    d8_fill_with(z, w, ht, dx, dy, receivers, None);
}

/// The distance from a cell to its D8 receiver from the two indices: `dx` east–west, `dy`
/// north–south, `√(dx² + dy²)` diagonally (the same values [`d8_fill`] stores), 0 to itself.
#[derive(Debug, Clone, Copy)]
pub struct D8Dist {
    w: usize,
    dx: f64,
    dy: f64,
    dd: f64,
}

impl D8Dist {
    /// The distances of a grid `w` cells wide with cells `dx × dy`.
    pub fn new(w: usize, dx: f64, dy: f64) -> Self {
        Self { w, dx, dy, dd: (dx * dx + dy * dy).sqrt() }
    }

    /// The distance from cell `i` to its D8 receiver `r` (a neighbour or `i` itself; grids at
    /// least 3 cells wide, as every grid with a cell that is not its own receiver is).
    #[inline(always)]
    pub fn of(&self, i: usize, r: usize) -> f64 {
        let o = r.abs_diff(i);
        // Selected on the bits, without branches: which of the four applies is the data's
        // choice (a 1024² erosion step took 21.6–24.4 ms this way against 23.5–25.6 ms with
        // the branch, alternating rounds; docs/benchmarks.md).
        let mut d = self.dd.to_bits();
        d = if o == self.w { self.dy.to_bits() } else { d };
        d = if o == 1 { self.dx.to_bits() } else { d };
        d = if o == 0 { 0 } else { d };
        f64::from_bits(d)
    }
}

fn d8_fill_with(z: &[f64], w: usize, ht: usize, dx: f64, dy: f64, receivers: &mut [u32], dist: Option<&mut [f64]>) {
    let dd = (dx * dx + dy * dy).sqrt();
    let d = [dd, dy, dd, dx, dx, dd, dy, dd];
    let rows = D8Rows { z, w, ht, d, inv: d.map(|v| 1.0 / v), off: OFFSETS.map(|(ox, oy)| oy * w as isize + ox) };
    #[cfg(target_arch = "x86_64")]
    let avx2 = bozkir_core::simd::avx2();
    let run = |c: usize, rr: &mut [u32], dr: Option<&mut [f64]>| {
        #[cfg(target_arch = "x86_64")]
        if avx2 {
            // SAFETY: the CPU has AVX2 (checked above).
            unsafe { rows.chunk_avx2(c, rr, dr) };
            return;
        }
        rows.chunk(c, rr, dr);
    };
    match dist {
        Some(dist) => receivers
            .par_chunks_mut(w * D8Rows::ROWS)
            .zip(dist.par_chunks_mut(w * D8Rows::ROWS))
            .enumerate()
            .for_each(|(c, (rr, dr))| run(c, rr, Some(dr))),
        None => receivers.par_chunks_mut(w * D8Rows::ROWS).enumerate().for_each(|(c, rr)| run(c, rr, None)),
    }
}

/// The D8 receivers of a grid, a chunk of rows at a time ([`d8_fill_with`]'s parallel work).
struct D8Rows<'a> {
    z: &'a [f64],
    w: usize,
    ht: usize,
    /// The distance to each neighbour of [`OFFSETS`], its reciprocal and its index offset.
    d: [f64; 8],
    inv: [f64; 8],
    off: [isize; 8],
}

impl D8Rows<'_> {
    /// Rows per parallel chunk.
    const ROWS: usize = 8;

    /// [`Self::chunk`] compiled for AVX2 (four cells a lane-wide step instead of two; the same
    /// operations, so the same receivers: [`bozkir_core::simd`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    fn chunk_avx2(&self, c: usize, rr: &mut [u32], dr: Option<&mut [f64]>) {
        self.chunk(c, rr, dr);
    }

    /// Receivers (and distances, when `dr` is given) of chunk `c`: the rows `c·ROWS..` that `rr`
    /// holds. Within a row the 8 directions are swept one at a time over the whole row so the
    /// compare-and-select vectorises; the per-cell semantics are exactly "try the neighbours in
    /// OFFSETS order, replace only on a strictly larger slope".
    #[inline(always)]
    fn chunk(&self, c: usize, rr: &mut [u32], mut dr: Option<&mut [f64]>) {
        let Self { z, w, ht, d, inv, off } = *self;
        // Two buffers each for the best slope and its direction, read from one and written to
        // the other in turn: a store of the selected value to the buffer read from becomes a
        // masked store under AVX2, which is slow on some CPUs (AMD's Zen).
        let (mut best_a, mut best_b) = (vec![0.0f64; w], vec![0.0f64; w]);
        let (mut bk_a, mut bk_b) = (vec![0u64; w], vec![0u64; w]);
        for (ry, rrow) in rr.chunks_mut(w).enumerate() {
            let y = c * Self::ROWS + ry;
            let row0 = y * w;
            let mut drow = dr.as_deref_mut().map(|d| &mut d[ry * w..(ry + 1) * w]);
            for (x, r) in rrow.iter_mut().enumerate() {
                *r = (row0 + x) as u32;
            }
            if let Some(drow) = drow.as_deref_mut() {
                drow.fill(0.0);
            }
            if y == 0 || y + 1 == ht || w < 3 {
                continue;
            }
            let m = w - 2;
            let hc = &z[row0 + 1..row0 + 1 + m];
            let (mut best, mut best_next) = (&mut best_a[..m], &mut best_b[..m]);
            let (mut bk, mut bk_next) = (&mut bk_a[..m], &mut bk_b[..m]);
            best.fill(-1.0);
            bk.fill(8);
            for k in 0..8 {
                let start = (row0 as isize + 1 + off[k]) as usize;
                let hn = &z[start..start + m];
                let ik = inv[k];
                let kk = k as u64;
                let next = best_next.iter_mut().zip(bk_next.iter_mut());
                for ((((bn, kn), &b), &kb), (&hi, &hj)) in next.zip(best.iter()).zip(bk.iter()).zip(hc.iter().zip(hn)) {
                    let s = (hi - hj) * ik;
                    // Branch-free select (baseline SSE2 has no blend): all-ones mask when taken.
                    let mask = ((hj < hi) & (s > b)) as u64;
                    let mask = mask.wrapping_neg();
                    *bn = f64::from_bits((s.to_bits() & mask) | (b.to_bits() & !mask));
                    *kn = (kk & mask) | (kb & !mask);
                }
                std::mem::swap(&mut best, &mut best_next);
                std::mem::swap(&mut bk, &mut bk_next);
            }
            for x in 0..m {
                let k = bk[x] as usize;
                if k < 8 {
                    let i = row0 + 1 + x;
                    rrow[x + 1] = (i as isize + off[k]) as u32;
                    if let Some(drow) = drow.as_deref_mut() {
                        drow[x + 1] = d[k];
                    }
                }
            }
        }
    }
}

/// Stack order (receivers before donors) of a receiver array, in O(N).
///
/// Leaves-first peeling: count donors per cell; scan cells in index order and, from each cell
/// with no donors, walk down its receiver chain emitting cells for as long as the next cell has
/// just lost its last unemitted donor. The emitted sequence has every donor before its receiver;
/// the stack is that sequence reversed. Panics if `receivers` has a cycle longer than one (not a
/// forest), which a D8 graph never has.
pub fn build_stack(receivers: &[u32]) -> Vec<u32> {
    let mut indeg = Vec::new();
    let mut stack = vec![0u32; receivers.len()];
    build_stack_into(receivers, &mut indeg, &mut stack);
    stack
}

/// [`build_stack`] into caller-owned buffers (`indeg` is scratch, resized to `2·N` as needed;
/// `stack` must have one slot per cell).
pub(crate) fn build_stack_into(receivers: &[u32], indeg: &mut Vec<u32>, stack: &mut [u32]) {
    peel::<false, u32>(receivers, None, indeg, &mut [], stack);
}

/// [`build_stack_into`] writing `pairs[k] = stack[k] | receiver(stack[k]) << 32` instead of the
/// stack and accumulating `count` (weights on entry, e.g. all 1; totals on return) while it
/// peels, in the emission order — exactly the reverse stack order of [`accumulate_cells`]. The
/// reference that the erosion loop's [`d8_peel_prepare`] and [`d8_peel_walk`] are tested against.
///
/// `d8_width`: when the receivers are D8 receivers (each a cell's own index or one of its eight
/// neighbours) of a grid this wide, the in-degrees and the leaf list are gathered in parallel
/// over rows instead of counted sequentially; the stack is the same.
#[cfg(test)]
pub(crate) fn build_stack_pairs_and_count_into(
    receivers: &[u32],
    d8_width: Option<usize>,
    indeg: &mut Vec<u32>,
    count: &mut [u32],
    pairs: &mut [u64],
) {
    assert_eq!(count.len(), receivers.len(), "build_stack: count length");
    peel::<true, u64>(receivers, d8_width, indeg, count, pairs);
}

/// Where [`peel`] writes a cell `j` with receiver `r`.
trait StackSlot: Copy {
    fn make(j: usize, r: usize) -> Self;
}
impl StackSlot for u32 {
    #[inline(always)]
    fn make(j: usize, _r: usize) -> Self {
        j as u32
    }
}
impl StackSlot for u64 {
    #[inline(always)]
    fn make(j: usize, r: usize) -> Self {
        j as u64 | (r as u64) << 32
    }
}

fn peel<const COUNT: bool, S: StackSlot>(
    receivers: &[u32],
    d8_width: Option<usize>,
    scratch: &mut Vec<u32>,
    count: &mut [u32],
    stack: &mut [S],
) {
    let nleaves = peel_prepare(receivers, d8_width, scratch);
    peel_walk::<COUNT, S>(receivers, scratch, nleaves, count, stack);
}

/// The peel's first half: in-degrees into `scratch[..n]` and the leaves (cells without donors) in
/// increasing index into `scratch[n..]`; returns the number of leaves. `d8_width` as in
/// [`build_stack_pairs_and_count_into`].
fn peel_prepare(receivers: &[u32], d8_width: Option<usize>, scratch: &mut Vec<u32>) -> usize {
    let n = receivers.len();
    // Sized once (a caller may reuse it); only the counted in-degrees need zeros first: the
    // gather writes every in-degree, and leaves are written before they are read.
    scratch.resize(2 * n, 0);
    let (indeg, leaves) = scratch.split_at_mut(n);
    match d8_width {
        Some(w) if w > 0 && n.is_multiple_of(w) => d8_indegree_and_leaves(receivers, w, indeg, leaves),
        _ => {
            indeg.fill(0);
            for (i, &r) in receivers.iter().enumerate() {
                if r as usize != i {
                    indeg[r as usize] += 1;
                }
            }
            // Compacted without branches.
            let mut nleaves = 0usize;
            for (i, &d) in indeg.iter().enumerate() {
                leaves[nleaves] = i as u32;
                nleaves += (d == 0) as usize;
            }
            nleaves
        }
    }
}

/// Sequential: from each leaf in increasing index, walk down the receivers emitting cells while
/// the next cell has just lost its last unemitted donor.
fn peel_walk<const COUNT: bool, S: StackSlot>(
    receivers: &[u32],
    scratch: &mut [u32],
    nleaves: usize,
    count: &mut [u32],
    stack: &mut [S],
) {
    let n = receivers.len();
    assert_eq!(stack.len(), n, "build_stack: stack length");
    assert!(scratch.len() >= n + nleaves, "build_stack: scratch length");
    let (indeg, leaves) = scratch.split_at_mut(n);
    let mut pos = n;
    for &leaf in &leaves[..nleaves] {
        let mut j = leaf as usize;
        loop {
            pos -= 1;
            let r = receivers[j] as usize;
            stack[pos] = S::make(j, r);
            if r == j {
                break;
            }
            if COUNT {
                count[r] += count[j];
            }
            indeg[r] -= 1;
            if indeg[r] != 0 {
                break;
            }
            j = r;
        }
    }
    assert_eq!(pos, 0, "build_stack: receivers contain a cycle");
}

/// In-degrees of D8 receivers gathered per cell (how many of its eight neighbours name it as
/// receiver), rows in parallel, and the cells without donors in increasing index written to
/// `leaves`; returns their number. The same values as counting `indeg[r] += 1` over the cells.
fn d8_indegree_and_leaves(receivers: &[u32], w: usize, indeg: &mut [u32], leaves: &mut [u32]) -> usize {
    let per_chunk: Vec<Vec<u32>> = indeg
        .par_chunks_mut(w * GATHER_ROWS)
        .enumerate()
        .map(|(c, chunk)| d8_gather_rows(receivers, w, c * GATHER_ROWS, chunk))
        .collect();
    concat_leaves(per_chunk, leaves)
}

/// The peel of the erosion loop, for the D8 `receivers` of a grid `w` cells wide, first half
/// (rows in parallel): each cell's record `records[i] = receivers[i] | 1 << 32` (its receiver
/// and a drainage count of 1; see [`d8_peel_walk`]), its in-degree (at most 8, so a byte) and
/// the cells without donors in increasing index written to `leaves`; returns their number. The
/// same in-degrees and leaves as [`d8_indegree_and_leaves`].
pub(crate) fn d8_peel_prepare(
    receivers: &[u32],
    w: usize,
    records: &mut [u64],
    indeg: &mut [u8],
    leaves: &mut [u32],
) -> usize {
    let n = receivers.len();
    assert!(w > 0 && n.is_multiple_of(w), "d8_peel_prepare: {n} cells are not rows of {w}");
    assert!(records.len() == n && indeg.len() == n && leaves.len() == n, "d8_peel_prepare: lengths");
    #[cfg(target_arch = "x86_64")]
    let avx2 = bozkir_core::simd::avx2();
    let per_chunk: Vec<Vec<u32>> = indeg
        .par_chunks_mut(w * GATHER_ROWS)
        .zip(records.par_chunks_mut(w * GATHER_ROWS))
        .enumerate()
        .map(|(c, (chunk, rec))| {
            #[cfg(target_arch = "x86_64")]
            if avx2 {
                // SAFETY: the CPU has AVX2 (checked above).
                return unsafe { peel_prepare_rows_avx2(receivers, w, c * GATHER_ROWS, chunk, rec) };
            }
            peel_prepare_rows(receivers, w, c * GATHER_ROWS, chunk, rec)
        })
        .collect();
    concat_leaves(per_chunk, leaves)
}

/// [`d8_peel_prepare`]'s work on the rows `y0..` that `chunk` and `rec` hold: their records
/// (receiver, count 1), in-degrees and leaves.
#[inline(always)]
fn peel_prepare_rows(receivers: &[u32], w: usize, y0: usize, chunk: &mut [u8], rec: &mut [u64]) -> Vec<u32> {
    for (r, &v) in rec.iter_mut().zip(&receivers[y0 * w..]) {
        *r = v as u64 | 1 << 32;
    }
    d8_gather_rows(receivers, w, y0, chunk)
}

/// [`peel_prepare_rows`] compiled for AVX2 ([`bozkir_core::simd`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
fn peel_prepare_rows_avx2(receivers: &[u32], w: usize, y0: usize, chunk: &mut [u8], rec: &mut [u64]) -> Vec<u32> {
    peel_prepare_rows(receivers, w, y0, chunk, rec)
}

/// The peel of the erosion loop, second half (sequential): from each leaf in increasing index,
/// walk down the receivers emitting cells while the next cell has just lost its last unemitted
/// donor, as [`build_stack_pairs_and_count_into`] does: `pairs` gets the same pairs, and each
/// record's upper half (see [`d8_peel_prepare`]) the same drainage count (`records[i] >> 32`).
///
/// Why records: the walk goes down drainage trees, about the grid, and at each cell reads its
/// receiver and count and updates its receiver's count and in-degree. With the receiver and the
/// count on one 8-byte record and the in-degrees in bytes, that is one cache line of records
/// per cell instead of three arrays' (a scratch benchmark of both walks on one 1024² routing,
/// one thread, the same process: 6.1–6.8 ms against 9.3–10.1 ms with separate `u32` arrays).
pub(crate) fn d8_peel_walk(records: &mut [u64], indeg: &mut [u8], leaves: &[u32], pairs: &mut [u64]) {
    const LOW: u64 = 0xFFFF_FFFF;
    let n = records.len();
    assert!(indeg.len() == n && pairs.len() == n, "d8_peel_walk: lengths");
    let mut pos = n;
    for &leaf in leaves {
        let mut j = leaf as usize;
        let mut rj = records[j];
        loop {
            pos -= 1;
            let r = (rj & LOW) as usize;
            pairs[pos] = u64::make(j, r);
            if r == j {
                break;
            }
            // The receiver's count plus this cell's (counts never exceed the cell count, so
            // the sum stays in the upper half).
            let rr = records[r] + (rj & !LOW);
            records[r] = rr;
            indeg[r] -= 1;
            if indeg[r] != 0 {
                break;
            }
            j = r;
            rj = rr;
        }
    }
    assert_eq!(pos, 0, "build_stack: receivers contain a cycle");
}

/// Rows per parallel chunk of the in-degree gathers.
const GATHER_ROWS: usize = 16;

/// An in-degree: a `u32`, or a `u8` where only D8 donors count (at most 8).
trait Degree: Copy + Default + PartialEq + std::ops::AddAssign + From<bool> {}
impl Degree for u8 {}
impl Degree for u32 {}

/// The in-degrees of the rows `y0..` that `chunk` holds (whole rows of a grid `w` wide, D8
/// `receivers`), and the cells among them without donors in increasing index.
#[inline(always)]
fn d8_gather_rows<D: Degree>(receivers: &[u32], w: usize, y0: usize, chunk: &mut [D]) -> Vec<u32> {
    let ht = receivers.len() / w;
    let mut found = Vec::new();
    for (ry, row) in chunk.chunks_mut(w).enumerate() {
        let y = y0 + ry;
        let row0 = y * w;
        // Every cell, bounds-checked, on border rows; interior rows: the two end cells
        // checked, the rest one direction at a time over the row (vectorises).
        let checked = |x: usize| -> D {
            let i = row0 + x;
            let mut d = D::default();
            for &(ox, oy) in &OFFSETS {
                let (nx, ny) = (x as isize + ox, y as isize + oy);
                if nx >= 0 && ny >= 0 && (nx as usize) < w && (ny as usize) < ht {
                    d += D::from(receivers[ny as usize * w + nx as usize] as usize == i);
                }
            }
            d
        };
        if y == 0 || y + 1 == ht || w < 3 {
            for (x, d) in row.iter_mut().enumerate() {
                *d = checked(x);
            }
        } else {
            row[0] = checked(0);
            row[w - 1] = checked(w - 1);
            let m = w - 2;
            let inner = &mut row[1..w - 1];
            inner.fill(D::default());
            for &(ox, oy) in &OFFSETS {
                let start = ((row0 + 1) as isize + oy * w as isize + ox) as usize;
                let nb = &receivers[start..start + m];
                let first = (row0 + 1) as u32;
                for (x, (d, &r)) in inner.iter_mut().zip(nb).enumerate() {
                    *d += D::from(r == first + x as u32);
                }
            }
        }
        let base = found.len();
        found.resize(base + w, 0);
        let mut k = base;
        let zero = D::default();
        for (x, &d) in row.iter().enumerate() {
            found[k] = (row0 + x) as u32;
            k += (d == zero) as usize;
        }
        found.truncate(k);
    }
    found
}

/// The chunks' leaves, in order, into `leaves`; returns their number.
fn concat_leaves(per_chunk: Vec<Vec<u32>>, leaves: &mut [u32]) -> usize {
    let mut k = 0;
    for part in per_chunk {
        leaves[k..k + part.len()].copy_from_slice(&part);
        k += part.len();
    }
    k
}

/// ESRI D8 direction codes: 1 = E, 2 = SE, 4 = S, 8 = SW, 16 = W, 32 = NW, 64 = N, 128 = NE
/// (row 0 is north), 0 for outlets and pits.
pub fn d8_direction_codes(g: &FlowGraph) -> Vec<u8> {
    let w = g.width as isize;
    g.receivers
        .par_iter()
        .enumerate()
        .map(|(i, &r)| {
            let d = r as isize - i as isize;
            match d {
                0 => 0,
                1 => 1,
                _ if d == w + 1 => 2,
                _ if d == w => 4,
                _ if d == w - 1 => 8,
                -1 => 16,
                _ if d == -w - 1 => 32,
                _ if d == -w => 64,
                _ if d == -w + 1 => 128,
                _ => panic!("d8_direction_codes: receiver {r} of cell {i} is not a neighbour"),
            }
        })
        .collect()
}

/// Number of cells draining through each cell, itself included (exact integers). Summed over the
/// outlets (and pits) it equals the cell count.
pub fn accumulate_cells(g: &FlowGraph) -> Vec<u32> {
    let mut acc = vec![1u32; g.receivers.len()];
    accumulate_cells_in_place(g, &mut acc);
    acc
}

/// Integer accumulation over `acc` (weights on entry, totals on return), reverse stack order.
pub(crate) fn accumulate_cells_in_place(g: &FlowGraph, acc: &mut [u32]) {
    assert_eq!(acc.len(), g.receivers.len(), "accumulate_cells: length");
    let rcv = &g.receivers;
    for &i in g.stack.iter().rev() {
        let r = rcv[i as usize];
        if r != i {
            acc[r as usize] += acc[i as usize];
        }
    }
}

/// Weighted accumulation: `out[i] = weights[i] + Σ out[d]` over the donors `d` of `i`.
///
/// Summation order (so the f64 result is reproducible bit for bit): cells are visited in reverse
/// stack order and each adds its finished total to its receiver; a receiver therefore starts from
/// its own weight and adds its donors in the order they appear in the reversed stack. The order
/// depends only on `receivers`. Drainage area in m² is `accumulate(g, &vec![dx * dy; n])`.
pub fn accumulate(g: &FlowGraph, weights: &[f64]) -> Vec<f64> {
    assert_eq!(weights.len(), g.receivers.len(), "accumulate: weights length");
    let mut acc = weights.to_vec();
    accumulate_in_place(g, &mut acc);
    acc
}

/// [`accumulate`] over `acc`, which holds the weights on entry and the totals on return.
pub fn accumulate_in_place(g: &FlowGraph, acc: &mut [f64]) {
    assert_eq!(acc.len(), g.receivers.len(), "accumulate: weights length");
    let rcv = &g.receivers;
    for &i in g.stack.iter().rev() {
        let r = rcv[i as usize];
        if r != i {
            acc[r as usize] += acc[i as usize];
        }
    }
}

/// Outlet (or pit) that each cell finally drains to.
pub fn outlet_of(g: &FlowGraph) -> Vec<u32> {
    let mut out = vec![0u32; g.receivers.len()];
    for &i in &g.stack {
        let r = g.receivers[i as usize];
        out[i as usize] = if r == i { i } else { out[r as usize] };
    }
    out
}

/// Basin label of each cell: outlets and pits numbered `0, 1, …` in increasing cell index, every
/// cell labelled with its outlet's number. Returns `(labels, number_of_basins)`.
pub fn basin_labels(g: &FlowGraph) -> (Vec<u32>, usize) {
    let n = g.receivers.len();
    let mut label = vec![u32::MAX; n];
    let mut count = 0u32;
    for (i, l) in label.iter_mut().enumerate() {
        if g.receivers[i] as usize == i {
            *l = count;
            count += 1;
        }
    }
    for &i in &g.stack {
        let r = g.receivers[i as usize];
        if r != i {
            label[i as usize] = label[r as usize];
        }
    }
    (label, count as usize)
}

/// True when `i` is an interior cell that is its own receiver (a pit).
pub fn is_pit(g: &FlowGraph, i: usize) -> bool {
    let (x, y) = (i % g.width, i / g.width);
    g.receivers[i] as usize == i && x > 0 && y > 0 && x + 1 < g.width && y + 1 < g.height
}

/// Number of interior pits.
pub fn count_pits(g: &FlowGraph) -> usize {
    (0..g.receivers.len()).filter(|&i| is_pit(g, i)).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use bozkir_core::hash::hash_unit;

    fn noise(w: usize, h: usize, seed: u32) -> Grid<f64> {
        Grid::from_fn(w, h, |x, y| 100.0 * hash_unit(x as u32, y as u32, seed))
    }

    /// Stack is a permutation with every cell after its receiver.
    fn check_stack(g: &FlowGraph) {
        let n = g.receivers.len();
        assert_eq!(g.stack.len(), n);
        let mut pos = vec![usize::MAX; n];
        for (k, &i) in g.stack.iter().enumerate() {
            assert_eq!(pos[i as usize], usize::MAX, "cell {i} twice in the stack");
            pos[i as usize] = k;
        }
        for i in 0..n {
            let r = g.receivers[i] as usize;
            if r != i {
                assert!(pos[r] < pos[i], "receiver {r} after donor {i}");
            }
        }
    }

    #[test]
    fn tilted_planes_drain_downhill_with_anisotropic_cells() {
        let (w, h) = (9, 7);
        let (dx, dy) = (10.0, 25.0);
        // Falls to the east: E beats NE/SE because the diagonals are longer.
        let east = Grid::from_fn(w, h, |x, _| -0.1 * x as f64 * dx).with_cell_size(dx, dy);
        // Falls to the south.
        let south = Grid::from_fn(w, h, |_, y| -0.1 * y as f64 * dy).with_cell_size(dx, dy);
        // Same gradient along both axes in metres: the diagonal is steepest.
        let se = Grid::from_fn(w, h, |x, y| -0.1 * (x as f64 * dx + y as f64 * dy)).with_cell_size(dx, dy);
        // Same drop per cell along both axes: with dy = 3 dx, E (slope 1/dx) beats SE.
        let per_cell = Grid::from_fn(w, h, |x, y| -((x + y) as f64)).with_cell_size(1.0, 3.0);
        let per_cell_sq = per_cell.clone().with_cell_size(1.0, 1.0);
        for (grid, code, d) in [
            (&east, 1u8, dx),
            (&south, 4, dy),
            (&se, 2, (dx * dx + dy * dy).sqrt()),
            (&per_cell, 1, 1.0),
            (&per_cell_sq, 2, 2f64.sqrt()),
        ] {
            let g = d8_receivers(grid);
            check_stack(&g);
            let codes = d8_direction_codes(&g);
            for y in 0..h {
                for x in 0..w {
                    let i = y * w + x;
                    if grid.is_border(x, y) {
                        assert_eq!(g.receivers[i] as usize, i);
                        assert_eq!(codes[i], 0);
                        assert_eq!(g.dist[i], 0.0);
                    } else {
                        assert_eq!(codes[i], code, "cell ({x},{y})");
                        assert_eq!(g.dist[i], d);
                    }
                }
            }
        }
    }

    #[test]
    fn codes_match_receivers_on_noise() {
        let (w, h) = (37, 23);
        let dem = noise(w, h, 7).with_cell_size(2.0, 3.0);
        let g = d8_receivers(&dem);
        let codes = d8_direction_codes(&g);
        let table: [(u8, isize, isize); 8] =
            [(1, 1, 0), (2, 1, 1), (4, 0, 1), (8, -1, 1), (16, -1, 0), (32, -1, -1), (64, 0, -1), (128, 1, -1)];
        for (i, &code) in codes.iter().enumerate() {
            let (x, y) = ((i % w) as isize, (i / w) as isize);
            let r = g.receivers[i] as usize;
            if code == 0 {
                assert_eq!(r, i);
                continue;
            }
            let &(_, ox, oy) = table.iter().find(|t| t.0 == code).expect("valid code");
            assert_eq!(r as isize, (y + oy) * w as isize + x + ox);
            // Steepest strictly lower neighbour, ties to the lowest index.
            let hi = *dem.get(x as usize, y as usize);
            assert!(dem.data()[r] < hi);
            let s_r = (hi - dem.data()[r]) / g.dist[i];
            for (ox, oy) in OFFSETS {
                let j = ((y + oy) * w as isize + x + ox) as usize;
                let dd = ((ox as f64 * 2.0).powi(2) + (oy as f64 * 3.0).powi(2)).sqrt();
                let s_j = (hi - dem.data()[j]) / dd;
                assert!(s_j <= s_r * (1.0 + 1e-12), "cell {i}: neighbour {j} steeper");
            }
        }
    }

    #[test]
    fn ties_go_to_the_lowest_index_and_subnormal_drops_count() {
        // Centre 1.0; N (index 1) and W (index 3) both 0.0 at the same distance: N wins.
        let mut z = vec![2.0; 9];
        z[4] = 1.0;
        z[1] = 0.0;
        z[3] = 0.0;
        let g = d8_receivers(&Grid::from_vec(3, 3, z.clone()));
        assert_eq!(g.receivers[4], 1);
        // E and S equal: E (index 5) beats S (index 7).
        z[1] = 2.0;
        z[3] = 2.0;
        z[5] = 0.0;
        z[7] = 0.0;
        assert_eq!(d8_receivers(&Grid::from_vec(3, 3, z.clone())).receivers[4], 5);
        // A one-ulp drop above zero is a receiver although its slope underflows.
        let mut z = vec![1.0; 9];
        z[4] = f64::from_bits(1);
        z[8] = 0.0;
        let g = d8_receivers(&Grid::from_vec(3, 3, z).with_cell_size(30.0, 30.0));
        assert_eq!(g.receivers[4], 8);
        // A flat centre is a pit; NaN never receives and is a pit.
        let mut z = vec![1.0; 9];
        z[0] = f64::NAN;
        let g = d8_receivers(&Grid::from_vec(3, 3, z.clone()));
        assert!(is_pit(&g, 4));
        z[4] = f64::NAN;
        assert!(is_pit(&d8_receivers(&Grid::from_vec(3, 3, z)), 4));
    }

    #[test]
    fn accumulation_conserves_cells_and_area() {
        for (w, h, seed) in [(1, 1, 0), (2, 5, 1), (64, 48, 2), (101, 3, 3)] {
            let dem = noise(w, h, seed).with_cell_size(2.5, 4.0);
            let g = d8_receivers(&dem);
            check_stack(&g);
            let cells = accumulate_cells(&g);
            let roots: Vec<usize> = (0..w * h).filter(|&i| g.receivers[i] as usize == i).collect();
            let total: u64 = roots.iter().map(|&i| cells[i] as u64).sum();
            assert_eq!(total, (w * h) as u64);
            let area = accumulate(&g, &vec![2.5 * 4.0; w * h]);
            for i in 0..w * h {
                assert_eq!(area[i], cells[i] as f64 * 10.0, "cell {i}");
            }
            let out = outlet_of(&g);
            let (labels, nb) = basin_labels(&g);
            assert_eq!(nb, roots.len());
            let mut per_outlet = vec![0u32; w * h];
            for i in 0..w * h {
                assert_eq!(g.receivers[out[i] as usize], out[i]);
                assert_eq!(labels[i], labels[out[i] as usize]);
                per_outlet[out[i] as usize] += 1;
            }
            for &r in &roots {
                assert_eq!(per_outlet[r], cells[r], "basin of {r}");
            }
        }
    }

    #[test]
    fn stack_paths_agree() {
        let dem = noise(61, 47, 21);
        let g = d8_receivers(&dem);
        assert_eq!(build_stack(&g.receivers), g.stack);
        let mut count = vec![1u32; g.receivers.len()];
        let mut pairs = vec![0u64; g.receivers.len()];
        build_stack_pairs_and_count_into(&g.receivers, None, &mut Vec::new(), &mut count, &mut pairs);
        for (k, &p) in pairs.iter().enumerate() {
            let i = g.stack[k];
            assert_eq!(p, i as u64 | (g.receivers[i as usize] as u64) << 32);
        }
        assert_eq!(count, accumulate_cells(&g));
        // The in-degrees gathered per row (D8 receivers) give the same stack and counts as the
        // sequential count, on grids of 1, 2 and 3 columns or rows too.
        for (w, h) in [(61, 47), (1, 9), (9, 1), (2, 5), (3, 3), (40, 2)] {
            let g = d8_receivers(&noise(w, h, 7));
            assert_eq!(build_stack(&g.receivers), g.stack, "{w}x{h}");
            let mut gathered = (vec![1u32; w * h], vec![0u64; w * h]);
            let mut counted = gathered.clone();
            build_stack_pairs_and_count_into(&g.receivers, Some(w), &mut Vec::new(), &mut gathered.0, &mut gathered.1);
            build_stack_pairs_and_count_into(&g.receivers, None, &mut Vec::new(), &mut counted.0, &mut counted.1);
            assert_eq!(gathered, counted, "{w}x{h}");
            // The erosion loop's peel on records: the same pairs and counts.
            let n = w * h;
            let (mut records, mut indeg, mut leaves, mut pairs) =
                (vec![0u64; n], vec![0u8; n], vec![0u32; n], vec![0u64; n]);
            let nleaves = d8_peel_prepare(&g.receivers, w, &mut records, &mut indeg, &mut leaves);
            assert!(records.iter().zip(&g.receivers).all(|(&r, &v)| r == v as u64 | 1 << 32), "{w}x{h}");
            d8_peel_walk(&mut records, &mut indeg, &leaves[..nleaves], &mut pairs);
            assert_eq!(pairs, counted.1, "{w}x{h}");
            let counts: Vec<u32> = records.iter().map(|&r| (r >> 32) as u32).collect();
            assert_eq!(counts, counted.0, "{w}x{h}");
            assert!(records.iter().zip(&g.receivers).all(|(&r, &v)| r as u32 == v), "{w}x{h}");
        }
    }

    #[test]
    fn single_channel_counts_and_stack_order() {
        // A 1-cell-wide valley draining west inside a high frame; every interior cell of row 1
        // drains to its west neighbour, the one outlet (0,1) collects all of them.
        let w = 12;
        let dem = Grid::from_fn(w, 3, |x, y| if y == 1 { x as f64 } else { 100.0 });
        let g = d8_receivers(&dem);
        check_stack(&g);
        let c = accumulate_cells(&g);
        for x in 1..w - 1 {
            assert_eq!(g.receivers[w + x] as usize, w + x - 1);
            assert_eq!(c[w + x] as usize, w - 1 - x);
        }
        assert_eq!(c[w] as usize, w - 1);
        assert_eq!(count_pits(&g), 0);
    }

    #[test]
    fn thread_count_does_not_change_the_graph() {
        let dem = noise(200, 150, 11);
        let run = |t: usize| {
            rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap().install(|| {
                let g = d8_receivers(&dem);
                let a = accumulate(&g, &vec![1.0; dem.len()]);
                (g, a, d8_direction_codes(&d8_receivers(&dem)))
            })
        };
        assert_eq!(run(1), run(2));
    }
}

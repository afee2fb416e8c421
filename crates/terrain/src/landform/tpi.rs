//! Topographic position index (TPI) over a square window or square annulus, O(1) per cell.
//!
//! Source: A. D. Weiss, "Topographic Position and Landforms Analysis", poster, ESRI User
//! Conference, San Diego, 2001: `TPI = z₀ − mean(z over a neighbourhood)`, the neighbourhood being
//! a circle, rectangle or annulus. Here it is a rectangle of half-widths `(rx, ry)` cells,
//! optionally with a rectangular core removed (a square annulus, Weiss's "annulus" with the
//! Chebyshev metric so that a summed-area table answers it). Summed-area tables: F. C. Crow,
//! "Summed-area tables for texture mapping", SIGGRAPH 1984.
//!
//! **Edges.** The window is clamped to the grid: the mean is over the in-grid cells of the window
//! only (no padding values are invented). Near a border the window is therefore one-sided, and
//! on a tilted plane a border cell gets a nonzero TPI, while every cell whose whole window lies in
//! the grid gets 0 (up to rounding).
//!
//! **Accuracy.** Two passes: the grid mean `m` (Neumaier-compensated, row-major order) is taken
//! first and the table holds prefix sums of `z − m`, so its entries stay near the relief rather
//! than `cells × altitude`. The table itself is accumulated and differenced in double-double
//! arithmetic (Knuth's TwoSum), so a window sum is exact to about one rounding of the final
//! `f64`: TPI matches a brute-force mean to ~1e-12 m even at thousands of metres of altitude.
//! The table is built in two parallel sweeps (row prefixes, then rows top to bottom, each row's columns in parallel) that
//! perform the same additions as a row-major sweep; queries run in parallel over rows, each cell
//! independently, so the result does not depend on the thread count.

use super::compensated_sum;
use bozkir_core::Grid;
use rayon::prelude::*;

/// The neighbourhood whose mean is compared with the centre height.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TpiWindow {
    /// Half-widths in cells on both axes: the window is every cell with `|Δx| ≤ outer` and
    /// `|Δy| ≤ outer` (`(2·outer+1)²` cells), less the core `|Δx| < inner && |Δy| < inner`.
    /// `inner = 0` removes nothing (the centre is included, as in the plain box TPI);
    /// `inner = 1` removes only the centre.
    Cells { outer: usize, inner: usize },
    /// Distances in metres, converted per axis so that the window covers the same ground when
    /// `dx ≠ dy`: `rx = ⌊outer/dx⌋`, `ry = ⌊outer/dy⌋`; the core removed is the cells closer than
    /// `inner` metres on both axes (`|Δx|·dx < inner && |Δy|·dy < inner`).
    Metres { outer: f64, inner: f64 },
}

/// Parameters of [`tpi`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TpiParams {
    /// The neighbourhood. Default `Cells { outer: 8, inner: 0 }`: the 17×17 box of the original
    /// bozkir analysis (`tpi(z, radius=8)`).
    pub window: TpiWindow,
}

impl Default for TpiParams {
    fn default() -> Self {
        Self { window: TpiWindow::Cells { outer: 8, inner: 0 } }
    }
}

impl TpiParams {
    /// A `(2r+1)²` box window of half-width `r` cells.
    pub fn box_cells(r: usize) -> Self {
        Self { window: TpiWindow::Cells { outer: r, inner: 0 } }
    }
}

/// Window half-widths resolved to cells: outer `(rx, ry)` inclusive, inner `(ix, iy)` exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resolved {
    pub rx: usize,
    pub ry: usize,
    pub ix: usize,
    pub iy: usize,
}

/// The offset [`tpi`]'s summed-area table subtracts from every height: the grid's mean over its
/// valid cells (Neumaier-compensated in row-major order; 0 when there is none), so that the
/// table's entries stay near the relief. Other implementations of [`tpi`] (the GPU's) use it.
pub fn tpi_offset(z: &Grid<f64>) -> f64 {
    let (sum, n) = compensated_sum(z.data().iter().copied());
    if n > 0 {
        sum / n as f64
    } else {
        0.0
    }
}

/// `win` in cells for cells of `dx × dy` metres.
pub fn resolve_window(win: TpiWindow, dx: f64, dy: f64) -> Resolved {
    match win {
        TpiWindow::Cells { outer, inner } => Resolved { rx: outer, ry: outer, ix: inner, iy: inner },
        TpiWindow::Metres { outer, inner } => {
            // A hair of tolerance so that a radius of exactly k cells is not lost to rounding.
            let cells = |m: f64, d: f64| {
                if m > 0.0 && d > 0.0 {
                    (m / d * (1.0 + 1e-12)).floor() as usize
                } else {
                    0
                }
            };
            let core = |m: f64, d: f64| {
                if m > 0.0 && d > 0.0 {
                    (m / d * (1.0 - 1e-12)).ceil() as usize
                } else {
                    0
                }
            };
            Resolved { rx: cells(outer, dx), ry: cells(outer, dy), ix: core(inner, dx), iy: core(inner, dy) }
        }
    }
}

/// Knuth's TwoSum: `a + b = s + e` exactly.
#[inline(always)]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// Double-double addition (hi, lo) + (hi, lo).
#[inline(always)]
fn dd_add(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    let (s, e) = two_sum(a.0, b.0);
    let e = e + (a.1 + b.1);
    let hi = s + e;
    (hi, e - (hi - s))
}

#[inline(always)]
fn dd_neg(a: (f64, f64)) -> (f64, f64) {
    (-a.0, -a.1)
}

/// Summed-area table of `z − offset` in double-double, `(w+1) × (h+1)` with a zero first row
/// and column.
struct Sat {
    stride: usize,
    hi: Vec<f64>,
    lo: Vec<f64>,
}

impl Sat {
    fn new(z: &Grid<f64>, offset: f64) -> Self {
        let (w, h) = (z.width(), z.height());
        let stride = w + 1;
        let mut hi = vec![0.0; stride * (h + 1)];
        let mut lo = vec![0.0; stride * (h + 1)];
        // Row prefixes first, every row on its own (rows 1..=h of the table) ...
        hi[stride..].par_chunks_mut(stride).zip(lo[stride..].par_chunks_mut(stride)).enumerate().for_each(
            |(y, (hr, lr))| {
                let mut acc = (0.0, 0.0);
                for (x, &v) in z.row(y).iter().enumerate() {
                    // A void adds nothing (its count is in the void table).
                    let v = if v.is_nan() { 0.0 } else { v - offset };
                    acc = dd_add(acc, (v, 0.0));
                    hr[x + 1] = acc.0;
                    lr[x + 1] = acc.1;
                }
            },
        );
        // ... then each row adds the row above, top to bottom, its columns in parallel: every
        // entry is `dd_add(above, row prefix)` as in a row-major sweep, so the table has the same
        // bits for any thread count.
        const BAND: usize = 1024;
        for y in 1..=h {
            let (above_hi, row_hi) = hi[(y - 1) * stride..(y + 1) * stride].split_at_mut(stride);
            let (above_lo, row_lo) = lo[(y - 1) * stride..(y + 1) * stride].split_at_mut(stride);
            row_hi.par_chunks_mut(BAND).zip(row_lo.par_chunks_mut(BAND)).enumerate().for_each(|(b, (rh, rl))| {
                let (ah, al) = (&above_hi[b * BAND..], &above_lo[b * BAND..]);
                for x in 0..rh.len() {
                    let s = dd_add((ah[x], al[x]), (rh[x], rl[x]));
                    rh[x] = s.0;
                    rl[x] = s.1;
                }
            });
        }
        Self { stride, hi, lo }
    }

    #[inline(always)]
    fn at(&self, x: usize, y: usize) -> (f64, f64) {
        let i = y * self.stride + x;
        (self.hi[i], self.lo[i])
    }

    /// Sum over columns `[x0, x1)` and rows `[y0, y1)`, as a double-double.
    #[inline(always)]
    fn rect(&self, x0: usize, x1: usize, y0: usize, y1: usize) -> (f64, f64) {
        let a = dd_add(self.at(x1, y1), dd_neg(self.at(x1, y0)));
        let b = dd_add(self.at(x0, y0), dd_neg(self.at(x0, y1)));
        dd_add(a, b)
    }
}

/// Summed-area table of the void (NaN) cells; empty (every count 0) when the grid has none.
struct VoidTable {
    stride: usize,
    n: Vec<u64>,
}

impl VoidTable {
    fn new(z: &Grid<f64>) -> Self {
        let (w, h) = (z.width(), z.height());
        if !z.data().iter().any(|v| v.is_nan()) {
            return Self { stride: 0, n: Vec::new() };
        }
        let stride = w + 1;
        let mut n = vec![0u64; stride * (h + 1)];
        for y in 0..h {
            let mut acc = 0u64;
            for (x, v) in z.row(y).iter().enumerate() {
                acc += u64::from(v.is_nan());
                n[(y + 1) * stride + x + 1] = n[y * stride + x + 1] + acc;
            }
        }
        Self { stride, n }
    }

    /// Voids in columns `[x0, x1)` and rows `[y0, y1)`.
    #[inline(always)]
    fn rect(&self, x0: usize, x1: usize, y0: usize, y1: usize) -> usize {
        if self.n.is_empty() {
            return 0;
        }
        let at = |x: usize, y: usize| self.n[y * self.stride + x] as usize;
        at(x1, y1) + at(x0, y0) - at(x1, y0) - at(x0, y1)
    }
}

/// Topographic position index `z − mean(window)` in metres; positive on crests, negative in
/// hollows. See the module docs for windows, edges and accuracy.
///
/// A cell whose window (after clamping and removing the core) holds no valid cell gets 0; a
/// void (NaN) cell gets NaN, and voids are left out of every window's mean.
///
/// # Examples
///
/// ```
/// use bozkir_core::Grid;
/// use bozkir_terrain::landform::{tpi, TpiParams};
///
/// // A single 9 m spike on flat ground: a crest (positive TPI) at the spike, hollows next to it.
/// let z = Grid::from_fn(9, 9, |x, y| if (x, y) == (4, 4) { 9.0 } else { 0.0 });
/// let t = tpi(&z, &TpiParams::box_cells(1));
/// assert_eq!(*t.get(4, 4), 8.0); // 9 − mean of the 3 × 3 box (centre included: 1)
/// assert!(*t.get(3, 4) < 0.0);
/// assert_eq!(*t.get(0, 0), 0.0); // far from the spike: flat
/// ```
pub fn tpi(z: &Grid<f64>, p: &TpiParams) -> Grid<f64> {
    tpi_many(z, std::slice::from_ref(p)).pop().expect("one window, one grid")
}

/// [`tpi`] for each of `windows`, in order, from one summed-area table (the table does not
/// depend on the window): the same grids as one [`tpi`] call per window, bit for bit, for the
/// cost of one table. The analysis asks for three (its box and the Weiss classes' two).
pub fn tpi_many(z: &Grid<f64>, windows: &[TpiParams]) -> Vec<Grid<f64>> {
    let (w, h) = (z.width(), z.height());
    if w == 0 || h == 0 || windows.is_empty() {
        return windows.iter().map(|_| z.same_shape(0.0)).collect();
    }
    let offset = tpi_offset(z);
    let (sat, voids) = rayon::join(|| Sat::new(z, offset), || VoidTable::new(z));
    windows.iter().map(|p| query(z, &sat, &voids, resolve_window(p.window, z.dx, z.dy), offset)).collect()
}

/// Every cell's TPI for the window `r` from the tables.
fn query(z: &Grid<f64>, sat: &Sat, voids: &VoidTable, r: Resolved, offset: f64) -> Grid<f64> {
    let (w, h) = (z.width(), z.height());
    let mut out = z.same_shape(0.0);
    out.data_mut().par_chunks_mut(w).enumerate().for_each(|(y, row)| {
        let y0 = y.saturating_sub(r.ry);
        let y1 = (y + r.ry + 1).min(h);
        let zrow = z.row(y);
        for (x, o) in row.iter_mut().enumerate() {
            let x0 = x.saturating_sub(r.rx);
            let x1 = (x + r.rx + 1).min(w);
            if zrow[x].is_nan() {
                *o = f64::NAN;
                continue;
            }
            let mut s = sat.rect(x0, x1, y0, y1);
            let mut count = (x1 - x0) * (y1 - y0) - voids.rect(x0, x1, y0, y1);
            if r.ix > 0 && r.iy > 0 {
                let cx0 = x + 1 - r.ix.min(x + 1);
                let cx1 = (x + r.ix).min(w);
                let cy0 = y + 1 - r.iy.min(y + 1);
                let cy1 = (y + r.iy).min(h);
                s = dd_add(s, dd_neg(sat.rect(cx0, cx1, cy0, cy1)));
                count -= (cx1 - cx0) * (cy1 - cy0) - voids.rect(cx0, cx1, cy0, cy1);
            }
            *o = if count == 0 { 0.0 } else { (zrow[x] - offset) - (s.0 + s.1) / count as f64 };
        }
    });
    out
}

/// Divides a TPI grid by its population standard deviation over all finite cells (about the
/// grid mean; both sums Neumaier-compensated in row-major order). The mean is not subtracted:
/// TPI is already centred on zero by construction, as in the original bozkir analysis (Weiss's
/// poster subtracts it; the difference is the small edge bias). A grid with zero spread maps
/// to all zeros.
pub fn standardise(t: &Grid<f64>) -> Grid<f64> {
    let (sum, n) = compensated_sum(t.data().iter().copied());
    if n == 0 {
        return t.same_shape(0.0);
    }
    let mean = sum / n as f64;
    let (ss, _) = compensated_sum(t.data().iter().map(|&v| (v - mean) * (v - mean)));
    let sd = (ss / n as f64).sqrt();
    if sd.is_nan() || sd <= 0.0 || sd.is_infinite() {
        return t.same_shape(0.0);
    }
    let mut out = t.same_shape(0.0);
    out.data_mut().par_iter_mut().zip(t.data()).for_each(|(o, &v)| *o = v / sd);
    out
}

/// [`tpi`] followed by [`standardise`]: TPI in units of its standard deviation over the grid.
pub fn standardised_tpi(z: &Grid<f64>, p: &TpiParams) -> Grid<f64> {
    standardise(&tpi(z, p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bozkir_core::hash::hash_unit;
    use bozkir_core::hash_u32;

    fn brute(z: &Grid<f64>, x: usize, y: usize, r: Resolved) -> f64 {
        let (mut s, mut n) = (0.0, 0usize);
        for yy in y.saturating_sub(r.ry)..(y + r.ry + 1).min(z.height()) {
            for xx in x.saturating_sub(r.rx)..(x + r.rx + 1).min(z.width()) {
                // The core, and voids, are out of the mean.
                if (xx.abs_diff(x) < r.ix && yy.abs_diff(y) < r.iy) || z.get(xx, yy).is_nan() {
                    continue;
                }
                s += z.get(xx, yy);
                n += 1;
            }
        }
        if n == 0 {
            0.0
        } else {
            z.get(x, y) - s / n as f64
        }
    }

    fn rough(w: usize, h: usize, base: f64) -> Grid<f64> {
        Grid::from_fn(w, h, |x, y| {
            let u = hash_unit(x as u32, y as u32, 11);
            base + 40.0 * u + 0.7 * x as f64 - 0.2 * y as f64
        })
    }

    /// The two parallel sweeps build the table a row-major sweep builds, bit for bit.
    #[test]
    fn parallel_table_has_the_bits_of_a_row_major_sweep() {
        let z = Grid::from_fn(2100, 7, |x, y| {
            if (x + 3 * y) % 97 == 5 {
                f64::NAN
            } else {
                3000.0 + 40.0 * hash_unit(x as u32, y as u32, 3) + 1e-7 * x as f64
            }
        });
        let offset = 3012.345;
        let sat = Sat::new(&z, offset);
        let stride = z.width() + 1;
        let (mut hi, mut lo) = (vec![0.0; stride * 8], vec![0.0; stride * 8]);
        for y in 0..z.height() {
            let mut acc = (0.0, 0.0);
            for (x, &v) in z.row(y).iter().enumerate() {
                acc = dd_add(acc, (if v.is_nan() { 0.0 } else { v - offset }, 0.0));
                let up = y * stride + x + 1;
                let s = dd_add((hi[up], lo[up]), acc);
                hi[up + stride] = s.0;
                lo[up + stride] = s.1;
            }
        }
        let bits = |v: &[f64]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&sat.hi), bits(&hi));
        assert_eq!(bits(&sat.lo), bits(&lo));
    }

    #[test]
    fn many_windows_from_one_table_are_each_windows_own_bits() {
        let mut z = rough(37, 29, 1500.0);
        *z.get_mut(3, 4) = f64::NAN;
        let windows: Vec<TpiParams> = [
            TpiWindow::Cells { outer: 4, inner: 0 },
            TpiWindow::Cells { outer: 16, inner: 0 },
            TpiWindow::Cells { outer: 5, inner: 2 },
            TpiWindow::Metres { outer: 7.0, inner: 2.5 },
        ]
        .into_iter()
        .map(|window| TpiParams { window })
        .collect();
        let many = tpi_many(&z, &windows);
        assert_eq!(many.len(), windows.len());
        let bits = |g: &Grid<f64>| {
            g.data().iter().map(|v| if v.is_nan() { u64::MAX } else { v.to_bits() }).collect::<Vec<_>>()
        };
        // In any company and any order, each window's grid is its own, and its own is the mean.
        let reversed: Vec<TpiParams> = windows.iter().rev().copied().collect();
        let back = tpi_many(&z, &reversed);
        for (k, (g, p)) in many.iter().zip(&windows).enumerate() {
            assert_eq!(bits(g), bits(&tpi(&z, p)), "{:?}", p.window);
            assert_eq!(bits(g), bits(&back[windows.len() - 1 - k]), "{:?}", p.window);
            let r = resolve_window(p.window, z.dx, z.dy);
            for (x, y) in [(0, 0), (18, 14), (36, 28), (4, 4)] {
                assert!((g.get(x, y) - brute(&z, x, y, r)).abs() < 1e-9, "{:?} at ({x},{y})", p.window);
            }
            assert!(g.get(3, 4).is_nan());
        }
        assert!(tpi_many(&z, &[]).is_empty());
    }

    #[test]
    fn sat_equals_brute_force_at_random_cells() {
        let z = rough(37, 29, 4321.0).with_cell_size(2.0, 3.0);
        let windows = [
            TpiWindow::Cells { outer: 0, inner: 0 },
            TpiWindow::Cells { outer: 1, inner: 0 },
            TpiWindow::Cells { outer: 5, inner: 0 },
            TpiWindow::Cells { outer: 6, inner: 3 },
            TpiWindow::Cells { outer: 4, inner: 1 },
            TpiWindow::Cells { outer: 60, inner: 0 },
            TpiWindow::Metres { outer: 12.0, inner: 4.5 },
            TpiWindow::Metres { outer: 9.0, inner: 0.0 },
        ];
        for (k, &win) in windows.iter().enumerate() {
            let p = TpiParams { window: win };
            let t = tpi(&z, &p);
            let r = resolve_window(win, z.dx, z.dy);
            for i in 0..60u32 {
                let hsh = hash_u32(i, k as u32, 3);
                let x = (hsh % 37) as usize;
                let y = ((hsh >> 12) % 29) as usize;
                let b = brute(&z, x, y, r);
                assert!((t.get(x, y) - b).abs() < 1e-9, "{win:?} at ({x},{y}): {} vs {b}", t.get(x, y));
            }
        }
        // Metres windows resolve per axis.
        let r = resolve_window(TpiWindow::Metres { outer: 12.0, inner: 4.5 }, 2.0, 3.0);
        assert_eq!((r.rx, r.ry, r.ix, r.iy), (6, 4, 3, 2));
    }

    #[test]
    fn bowl_is_negative_dome_positive_plane_zero() {
        let n = 41;
        let c = 20.0;
        let bowl = Grid::from_fn(n, n, |x, y| (x as f64 - c).powi(2) + (y as f64 - c).powi(2));
        let dome = bowl.map(|v| 1000.0 - v);
        let p = TpiParams::box_cells(4);
        assert!(*tpi(&bowl, &p).get(20, 20) < -1.0);
        assert!(*tpi(&dome, &p).get(20, 20) > 1.0);
        let plane = Grid::from_fn(n, n, |x, y| 2500.0 + 0.37 * x as f64 - 1.3 * y as f64);
        let t = tpi(&plane, &p);
        for y in 4..n - 4 {
            for x in 4..n - 4 {
                assert!(t.get(x, y).abs() < 1e-10);
            }
        }
        // Clamped windows are one-sided at the border: the lower side of the plane is below its mean.
        assert!(*t.get(0, 20) < -0.1);
    }

    #[test]
    fn standardised_has_unit_spread() {
        let z = rough(30, 30, 0.0);
        let s = standardised_tpi(&z, &TpiParams::box_cells(3));
        let n = s.len() as f64;
        let mean = s.data().iter().sum::<f64>() / n;
        let var = s.data().iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
        assert!((var - 1.0).abs() < 1e-9);
        assert!(standardise(&Grid::new(4, 4, 3.0)).data().iter().all(|&v| v == 0.0));
    }
}

//! Landform analysis: slope, aspect, TPI, curvature, Weiss classes, openness.
//!
//! Every function here takes a height field `Grid<f64>` in metres with its cell size `(dx, dy)`
//! in metres (they may differ) and returns a new grid of the same shape and cell size.
//!
//! Conventions shared by the whole module:
//!
//! * **Axes.** Column `x` grows east, row `y` grows south: row 0 is the north (top) edge, as in
//!   [`Grid`]. Gradients are reported as `dz/d(east)` and `dz/d(north)`.
//! * **Slopes** are rise over run (m/m); angles are stated where used and are in degrees unless a
//!   function says radians.
//! * **Edges.** 3×3 operators ([`slope()`], [`aspect()`], [`curvature()`]) pad by replication: a
//!   neighbour outside the grid takes the value of the nearest cell inside it. On a border cell a
//!   plane therefore shows half its true gradient across the border (the centred difference
//!   becomes a one-sided one over twice the distance). Window operators ([`tpi()`]) clamp their
//!   window to the grid and average only in-grid cells. Ray operators ([`openness()`]) stop their
//!   rays at the grid edge.
//! * **Determinism.** Work is split over rows with rayon; each output cell is computed by the
//!   same sequential arithmetic whatever the thread count, and every reduction (means, standard
//!   deviations, summed-area tables) runs in a fixed sequential order, so results are bit-identical
//!   for any number of threads. Transcendental functions come from `libm`.
//!
//! **No data.** A `NaN` height is a void (no data). A void cell's output is `NaN` (class 0 for
//! [`weiss_landform()`]); its neighbours are still computed: a 3×3 operator reads a void
//! neighbour as the centre cell's own height (as the replicate padding does at the grid edge),
//! and a window operator averages only the valid cells of its window. Infinite heights are not
//! supported and propagate.

pub mod aspect;
pub mod curvature;
pub mod openness;
pub mod slope;
pub mod tpi;
pub mod weiss;

pub use aspect::{aspect, AspectParams};
pub use curvature::{curvature, laplacian, Curvature};
pub use openness::{openness, openness_with_progress, sky_view, sky_view_with_progress, Openness, OpennessParams};
pub use slope::{gradient, slope, slope_degrees, slope_to_degrees, Gradient};
pub use tpi::{standardise, standardised_tpi, tpi, tpi_many, tpi_offset, TpiParams, TpiWindow};
pub use weiss::{
    weiss_class, weiss_landform, weiss_landform_from, weiss_landform_parts, WeissParams, WEISS_CLASS_NAMES,
};

use bozkir_core::Grid;
use rayon::prelude::*;

/// The 3×3 neighbourhood of a cell with replicate padding, in reading order:
/// `[NW, N, NE, W, C, E, SW, S, SE]` (row 0 is north).
pub type Window3 = [f64; 9];

/// Apply `f` to the replicate-padded 3×3 window of every cell, in parallel over rows (a void
/// neighbour read as the centre's height, a void centre's window all void).
///
/// Each cell's value depends only on its window, so the result does not depend on the number of
/// threads.
pub fn map_window3<T, F>(z: &Grid<f64>, fill: T, f: F) -> Grid<T>
where
    T: Clone + Send + Sync,
    F: Fn(&Window3) -> T + Sync,
{
    let (w, h) = (z.width(), z.height());
    let mut out = z.same_shape(fill);
    if w == 0 || h == 0 {
        return out;
    }
    let voids = void_rows(z);
    out.data_mut().par_chunks_mut(w).enumerate().for_each(|(y, row)| window3_row(z, &voids, y, &f, row));
    out
}

/// Which rows of `z` hold a void (NaN): only windows touching one need [`map_window3`]'s
/// no-data rule. Computed in parallel.
pub fn void_rows(z: &Grid<f64>) -> Vec<bool> {
    z.data().par_chunks(z.width().max(1)).map(|r| r.iter().any(|v| v.is_nan())).collect()
}

/// Row `y` of [`map_window3`] into `out` (one value per column), `voids` from [`void_rows`]:
/// for a caller that uses each row at once (a preview shading its pixels) instead of keeping
/// the grid. The same values as `map_window3`'s row.
#[inline(always)]
pub fn window3_row<T, F>(z: &Grid<f64>, voids: &[bool], y: usize, f: F, out: &mut [T])
where
    F: Fn(&Window3) -> T,
{
    let (w, h) = (z.width(), z.height());
    let (yn, ys) = (y.saturating_sub(1), (y + 1).min(h - 1));
    let (rn, rc, rs) = (z.row(yn), z.row(y), z.row(ys));
    let voids = voids[yn] || voids[y] || voids[ys];
    for (x, o) in out[..w].iter_mut().enumerate() {
        let xw = x.saturating_sub(1);
        let xe = (x + 1).min(w - 1);
        let mut win = [rn[xw], rn[x], rn[xe], rc[xw], rc[x], rc[xe], rs[xw], rs[x], rs[xe]];
        if voids {
            let c = win[4];
            // A void centre: every value void, so a float output is NaN. A void neighbour:
            // the centre's height.
            for v in &mut win {
                if v.is_nan() || c.is_nan() {
                    *v = if c.is_nan() { f64::NAN } else { c };
                }
            }
        }
        *o = f(&win);
    }
}

/// Horn (1981) gradient of a 3×3 window: `(dz/d(east), dz/d(north))` in m/m.
///
/// `dz/dx = ((NE + 2E + SE) − (NW + 2W + SW)) / (8·dx)`, and the same along columns over `8·dy`,
/// with the sign flipped because rows grow southwards.
#[inline(always)]
pub fn horn(win: &Window3, dx: f64, dy: f64) -> (f64, f64) {
    let [nw, n, ne, w, _c, e, sw, s, se] = *win;
    let east = ((ne + 2.0 * e + se) - (nw + 2.0 * w + sw)) / (8.0 * dx);
    let south = ((sw + 2.0 * s + se) - (nw + 2.0 * n + ne)) / (8.0 * dy);
    (east, -south)
}

/// Neumaier-compensated sum of the finite values of `v`, in index order, with their count.
pub(crate) fn compensated_sum(v: impl Iterator<Item = f64>) -> (f64, usize) {
    let (mut s, mut c, mut n) = (0.0f64, 0.0f64, 0usize);
    for x in v.filter(|x| x.is_finite()) {
        let t = s + x;
        if s.abs() >= x.abs() {
            c += (s - t) + x;
        } else {
            c += (x - t) + s;
        }
        s = t;
        n += 1;
    }
    (s + c, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every analysis gives the same bits on 1, 2, 3 and 7 threads.
    #[test]
    fn thread_count_does_not_change_any_result() {
        let z = Grid::from_fn(57, 43, |x, y| {
            let (xf, yf) = (x as f64, y as f64);
            1200.0 + 25.0 * (xf * 0.21).sin() * (yf * 0.13).cos() + 0.3 * xf - 0.1 * yf * yf / 10.0
        })
        .with_cell_size(3.0, 2.0);
        let all = || {
            let g = gradient(&z);
            let c = curvature(&z);
            let o = openness(&z, &OpennessParams { radius: 12.0, ..Default::default() });
            let w = weiss_landform(&z, &WeissParams::default());
            let mut v = vec![slope(&z), aspect(&z, &AspectParams::default()), g.east, g.north];
            v.extend([c.profile, c.plan, c.total, laplacian(&z), tpi(&z, &TpiParams::box_cells(6))]);
            v.extend([standardised_tpi(&z, &TpiParams { window: TpiWindow::Metres { outer: 20.0, inner: 5.0 } })]);
            v.extend([o.positive, o.negative, o.sky_view]);
            let bits: Vec<Vec<u64>> = v.iter().map(|g| g.data().iter().map(|x| x.to_bits()).collect()).collect();
            (bits, w)
        };
        let run = |n: usize| rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap().install(all);
        let one = run(1);
        for n in [2, 3, 7] {
            assert!(one == run(n), "results differ on {n} threads");
        }
    }
}

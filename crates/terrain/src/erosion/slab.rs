//! The slab filter: slopes capped at a window's implied talus angle (seed 001 §4.5).
//!
//! Source: Procedural Pixels, "Terrain hack: the fastest erosion algorithm ever" (Hatchling's
//! slab filter), as summarised in seed 001 §4.5. The shader stacks threshold slabs and, per
//! texel and layer, compares the window distance to the nearest above- and below-threshold
//! samples; summed over layers its effect is to cap slopes at the angle implied by the window —
//! soil creep. Here that end effect is computed directly as a grey-scale erosion by a cone:
//!
//! ```text
//! g_i = min over j in the window of ( h_j + tan(θ) · dist(i, j) )
//! ```
//!
//! so no cell stands more than `tan θ · dist` above any cell of its window.
//!
//! # The monotone-envelope optimisation
//!
//! The seed's CPU trick walks the window once in increasing-distance order keeping monotone
//! running-min envelopes. For a cone the same idea becomes exact and O(N): with the *Manhattan*
//! distance `|a|·dx + |b|·dy` over a square window `|a|, |b| ≤ r` the minimum separates into a
//! pass along rows followed by a pass along columns, and each 1-D pass
//! `g_i = min_{|k| ≤ r} (h_{i+k} + t·|k|·d)` splits into a left half (`k ≤ 0`) and a right half
//! (`k ≥ 0`). On one half the difference between two candidates does not depend on `i`, so a
//! monotone deque (candidates in position order with increasing cone value; van Herk 1992 / Gil
//! and Werman 1993 style sliding-window minimum) yields every `g_i` in amortised O(1): each
//! index is pushed and popped once. Values are evaluated as `h_j + t·(|i − j|·d)` and the row
//! result then gets `+ t·(|b|·dy)`, the same arithmetic a brute-force evaluation uses.
//!
//! With [`SlabParams::diagonals`] two more passes run along the diagonals (step `hypot(dx, dy)`),
//! which makes the effective metric octagonal (closer to Euclidean: diagonal slopes are capped
//! too). With an unbounded window (`window_m = ∞`) the passes are repeated until nothing changes
//! (at most [`MAX_SWEEPS`] times), so the result is the largest surface below the input whose
//! every 4- (or 8-) neighbour difference is at most `tan θ` times the step: the slope cap holds
//! exactly. A finite window only bounds how far a low cell reaches in one pass; several passes at
//! partial opacity (the seed: "look better than one full pass") converge towards the cap.
//!
//! The filter only lowers ground (`g ≤ h`). It is a smoothing operator — soft, aged hills — and
//! fights craggy cliffs (seed 001 §4.5, §6.4: run it before sharp detail). Rows, columns and
//! diagonals are processed in parallel, each independently: identical for any thread count.

use bozkir_core::Grid;
use rayon::prelude::*;
use std::collections::VecDeque;

/// Most sweeps of the unbounded-window fixpoint iteration.
pub const MAX_SWEEPS: usize = 16;

/// Parameters of [`slab_filter`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlabParams {
    /// Implied talus angle θ in degrees from horizontal, clamped to `[0, 89.9]`. Default 35.
    pub angle_deg: f64,
    /// Window radius in metres (the window is `±ceil(window_m/d)` cells along each pass of step
    /// `d`); `f64::INFINITY` (or anything larger than the grid) is unbounded. Default 8.0.
    pub window_m: f64,
    /// Number of passes, each blended in at `opacity`. Default 1.
    pub passes: u32,
    /// Blend weight of each pass, `h ← h + opacity·(g − h)`, clamped to `[0, 1]`. Default 1.0.
    pub opacity: f64,
    /// Also run passes along the two diagonals (octagonal metric). Default true.
    pub diagonals: bool,
}

impl Default for SlabParams {
    fn default() -> Self {
        Self { angle_deg: 35.0, window_m: 8.0, passes: 1, opacity: 1.0, diagonals: true }
    }
}

/// A straight line of cells: start `(x, y)`, step `(sx, sy)`, `len` cells.
#[derive(Clone, Copy)]
struct Line {
    x: isize,
    y: isize,
    sx: isize,
    sy: isize,
    len: usize,
}

/// One monotone-deque sweep over the indices in `order` (consecutive, ascending or descending):
/// for each index `i`, the minimum of `cost(j, i)` over the last `r + 1` visited `j`, handed to
/// `put(i, c)`.
fn cone_sweep(
    v: &[f64],
    t: f64,
    d: f64,
    r: usize,
    order: impl Iterator<Item = usize>,
    dq: &mut VecDeque<usize>,
    mut put: impl FnMut(usize, f64),
) {
    let cost = |j: usize, i: usize| v[j] + t * ((i.abs_diff(j)) as f64 * d);
    dq.clear();
    for i in order {
        while let Some(&b) = dq.back() {
            if cost(b, i) >= v[i] {
                dq.pop_back();
            } else {
                break;
            }
        }
        dq.push_back(i);
        while let Some(&f) = dq.front() {
            if i.abs_diff(f) > r {
                dq.pop_front();
            } else {
                break;
            }
        }
        put(i, cost(dq[0], i));
    }
}

/// 1-D windowed cone minimum of `v` (step `d` metres, slope `t`, radius `r` cells) into `out`:
/// the left half `j ∈ [i − r, i]` sweeping forward, then the right half `j ∈ [i, i + r]`
/// sweeping back.
fn cone_min_1d(v: &[f64], t: f64, d: f64, r: usize, out: &mut [f64], dq: &mut VecDeque<usize>) {
    let n = v.len();
    cone_sweep(v, t, d, r, 0..n, dq, |i, c| out[i] = c);
    cone_sweep(v, t, d, r, (0..n).rev(), dq, |i, c| {
        if c < out[i] {
            out[i] = c;
        }
    });
}

/// Runs the 1-D cone minimum over every line, in parallel, and scatters the results.
fn pass(z: &mut Grid<f64>, lines: &[Line], t: f64, d: f64, radius_m: f64) {
    let w = z.width();
    let r = if radius_m.is_finite() { (radius_m / d).ceil().max(0.0) as usize } else { usize::MAX };
    let src = z.data();
    let results: Vec<Vec<f64>> = lines
        .par_iter()
        .map_init(VecDeque::new, |dq, l| {
            let v: Vec<f64> =
                (0..l.len as isize).map(|k| src[((l.y + k * l.sy) as usize) * w + (l.x + k * l.sx) as usize]).collect();
            let mut out = vec![0.0; v.len()];
            cone_min_1d(&v, t, d, r.min(v.len()), &mut out, dq);
            out
        })
        .collect();
    let data = z.data_mut();
    for (l, res) in lines.iter().zip(results) {
        for (k, v) in res.into_iter().enumerate() {
            let k = k as isize;
            data[((l.y + k * l.sy) as usize) * w + (l.x + k * l.sx) as usize] = v;
        }
    }
}

/// Rows (`sx = 1`), columns and, optionally, the two diagonal families of a `w × h` grid.
fn lines(w: usize, h: usize) -> [Vec<Line>; 4] {
    let (wi, hi) = (w as isize, h as isize);
    let rows = (0..hi).map(|y| Line { x: 0, y, sx: 1, sy: 0, len: w }).collect();
    let cols = (0..wi).map(|x| Line { x, y: 0, sx: 0, sy: 1, len: h }).collect();
    // Down-right diagonals: start on the top row or the left column.
    let mut dr = Vec::new();
    let mut dl = Vec::new();
    for x in 0..wi {
        dr.push(Line { x, y: 0, sx: 1, sy: 1, len: (wi - x).min(hi) as usize });
        dl.push(Line { x, y: 0, sx: -1, sy: 1, len: (x + 1).min(hi) as usize });
    }
    for y in 1..hi {
        dr.push(Line { x: 0, y, sx: 1, sy: 1, len: (hi - y).min(wi) as usize });
        dl.push(Line { x: wi - 1, y, sx: -1, sy: 1, len: (hi - y).min(wi) as usize });
    }
    [rows, cols, dr, dl]
}

/// One full cone erosion (row, column and optional diagonal passes) of `z`.
fn envelope(z: &Grid<f64>, ls: &[Vec<Line>; 4], t: f64, window_m: f64, diagonals: bool) -> Grid<f64> {
    let mut g = z.clone();
    pass(&mut g, &ls[0], t, z.dx, window_m);
    pass(&mut g, &ls[1], t, z.dy, window_m);
    if diagonals {
        let dd = z.dx.hypot(z.dy);
        pass(&mut g, &ls[2], t, dd, window_m);
        pass(&mut g, &ls[3], t, dd, window_m);
    }
    g
}

/// `grid` with slopes capped at `p.angle_deg` over windows of `p.window_m` (see module docs).
///
/// Never raises a cell. `NaN` cells should be filled beforehand (they poison their window).
pub fn slab_filter(grid: &Grid<f64>, p: &SlabParams) -> Grid<f64> {
    let (w, h) = (grid.width(), grid.height());
    if w == 0 || h == 0 {
        return grid.clone();
    }
    let t = libm::tan(p.angle_deg.clamp(0.0, 89.9).to_radians());
    let opacity = if p.opacity.is_nan() { 0.0 } else { p.opacity.clamp(0.0, 1.0) };
    let extent = (w as f64 * grid.dx).max(h as f64 * grid.dy) * 2.0;
    let unbounded = p.window_m.is_nan() || p.window_m >= extent;
    let window = if unbounded { f64::INFINITY } else { p.window_m.max(0.0) };
    let ls = lines(w, h);
    let mut z = grid.clone();
    for _ in 0..p.passes {
        let mut g = envelope(&z, &ls, t, window, p.diagonals);
        if unbounded {
            for _ in 1..MAX_SWEEPS {
                let next = envelope(&g, &ls, t, window, p.diagonals);
                let same = next.data() == g.data();
                g = next;
                if same {
                    break;
                }
            }
        }
        if opacity >= 1.0 {
            z = g;
        } else {
            z.data_mut().par_iter_mut().zip(g.data().par_iter()).for_each(|(a, &b)| *a += opacity * (b - *a));
        }
    }
    z
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sculpt::test_support::{bumpy, bytes, with_threads};

    fn rough(w: usize, h: usize, dx: f64, dy: f64) -> Grid<f64> {
        let b = bumpy(w, h);
        Grid::from_fn(w, h, |x, y| {
            let v = bozkir_core::hash::hash_unit(x as u32, y as u32, 5);
            b.get(x, y) * 40.0 + v * 12.0
        })
        .with_cell_size(dx, dy)
    }

    /// Brute force of the Manhattan, square-window filter (one pass, no diagonals).
    fn brute(z: &Grid<f64>, t: f64, r: isize) -> Grid<f64> {
        let (w, h) = (z.width() as isize, z.height() as isize);
        let mut out = z.clone();
        for y in 0..h {
            for x in 0..w {
                let mut m = f64::INFINITY;
                for b in -r..=r {
                    for a in -r..=r {
                        let (xx, yy) = (x + a, y + b);
                        if xx < 0 || yy < 0 || xx >= w || yy >= h {
                            continue;
                        }
                        let v = (z.get(xx as usize, yy as usize) + t * (a.unsigned_abs() as f64 * z.dx))
                            + t * (b.unsigned_abs() as f64 * z.dy);
                        m = m.min(v);
                    }
                }
                *out.get_mut(x as usize, y as usize) = m;
            }
        }
        out
    }

    #[test]
    fn equals_brute_force_on_small_grids() {
        for &(w, h, dx, dy, r_m, ang) in
            &[(13, 9, 1.0, 1.0, 3.0, 30.0), (17, 11, 2.0, 0.5, 4.0, 45.0), (8, 8, 1.5, 1.5, 100.0, 20.0)]
        {
            let z = rough(w, h, dx, dy);
            let p = SlabParams { angle_deg: ang, window_m: r_m, diagonals: false, ..Default::default() };
            let t = libm::tan(f64::to_radians(ang));
            let got = slab_filter(&z, &p);
            // Rows use ceil(r/dx), columns ceil(r/dy); use the square brute force when equal.
            let rx = (r_m / dx).ceil() as isize;
            let ry = (r_m / dy).ceil() as isize;
            if rx == ry || r_m >= 100.0 {
                let want = brute(&z, t, rx.max(ry).min(64));
                for (a, b) in got.data().iter().zip(want.data()) {
                    assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()), "{a} vs {b}");
                }
            } else {
                // Rectangular window: brute force inline.
                let mut want = z.clone();
                for y in 0..h as isize {
                    for x in 0..w as isize {
                        let mut m = f64::INFINITY;
                        for b in -ry..=ry {
                            for a in -rx..=rx {
                                let (xx, yy) = (x + a, y + b);
                                if xx < 0 || yy < 0 || xx >= w as isize || yy >= h as isize {
                                    continue;
                                }
                                let v = (z.get(xx as usize, yy as usize) + t * (a.unsigned_abs() as f64 * dx))
                                    + t * (b.unsigned_abs() as f64 * dy);
                                m = m.min(v);
                            }
                        }
                        *want.get_mut(x as usize, y as usize) = m;
                    }
                }
                for (a, b) in got.data().iter().zip(want.data()) {
                    assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()), "{a} vs {b}");
                }
            }
        }
    }

    #[test]
    fn unbounded_window_caps_every_neighbour_slope() {
        for &(dx, dy, diag) in &[(1.0, 1.0, true), (2.0, 1.0, true), (1.0, 1.0, false)] {
            let z = rough(40, 33, dx, dy);
            let ang = 30.0;
            let p = SlabParams { angle_deg: ang, window_m: f64::INFINITY, diagonals: diag, ..Default::default() };
            let g = slab_filter(&z, &p);
            let t = libm::tan(f64::to_radians(ang));
            let dd = dx.hypot(dy);
            let (w, h) = (g.width(), g.height());
            let mut steps: Vec<(isize, isize, f64)> = vec![(1, 0, dx), (0, 1, dy)];
            if diag {
                steps.push((1, 1, dd));
                steps.push((1, -1, dd));
            }
            for y in 0..h as isize {
                for x in 0..w as isize {
                    for &(sx, sy, d) in &steps {
                        let (xx, yy) = (x + sx, y + sy);
                        if xx < 0 || yy < 0 || xx >= w as isize || yy >= h as isize {
                            continue;
                        }
                        let a = *g.get(x as usize, y as usize);
                        let b = *g.get(xx as usize, yy as usize);
                        assert!((a - b).abs() <= t * d * (1.0 + 1e-9) + 1e-9, "slope {} > {t}", (a - b).abs() / d);
                    }
                }
            }
            // Never raises.
            assert!(g.data().iter().zip(z.data()).all(|(a, b)| a <= b));
        }
    }

    #[test]
    fn gentle_ground_is_untouched_and_passes_converge() {
        let z = Grid::from_fn(20, 20, |x, y| 0.1 * x as f64 + 0.05 * y as f64);
        let g = slab_filter(&z, &SlabParams { angle_deg: 45.0, ..Default::default() });
        assert_eq!(g, z);
        let r = rough(24, 24, 1.0, 1.0);
        let one = slab_filter(&r, &SlabParams { window_m: 2.0, passes: 1, opacity: 0.5, ..Default::default() });
        let many = slab_filter(&r, &SlabParams { window_m: 2.0, passes: 6, opacity: 0.5, ..Default::default() });
        let full = slab_filter(&r, &SlabParams { window_m: f64::INFINITY, ..Default::default() });
        let dist = |a: &Grid<f64>| a.data().iter().zip(full.data()).map(|(p, q)| (p - q).abs()).sum::<f64>();
        assert!(dist(&many) < dist(&one));
    }

    #[test]
    fn same_bits_for_any_thread_count() {
        let z = rough(61, 47, 1.0, 1.0);
        let p = SlabParams { passes: 2, opacity: 0.7, ..Default::default() };
        let a = with_threads(1, || slab_filter(&z, &p));
        let b = with_threads(2, || slab_filter(&z, &p));
        assert_eq!(bytes(&a), bytes(&b));
    }
}

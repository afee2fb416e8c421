//! Topographic openness (positive and negative) and the sky-view factor, along `N` rays.
//!
//! Sources: R. Yokoyama, M. Shirasawa and R. J. Pike, "Visualizing topography by openness: a new
//! application of image processing to digital elevation models", *Photogrammetric Engineering &
//! Remote Sensing* 68(3), 2002 (openness); K. Zakšek, K. Oštir and Ž. Kokalj, "Sky-view factor as
//! a relief visualization technique", *Remote Sensing* 3(2), 2011 (sky-view factor).
//!
//! For each cell and each of `N` azimuths `θᵢ = i·360°/N` (clockwise from north = row 0), the
//! ray is sampled at ground distances `d = k·step`, `k = 1, 2, …` up to `radius` metres. With
//! `dx ≠ dy` the ray moves `d·sin θ / dx` columns and `−d·cos θ / dy` rows, so distances and angles
//! are true metres. Heights between cells are interpolated bilinearly. With `βᵢ` the largest
//! and `γᵢ` the smallest elevation angle `atan((z_s − z₀)/d)` over the ray's samples:
//!
//! * positive openness `φ = mean(π/2 − βᵢ)`, radians — the mean zenith angle of the skyline;
//!   large on convex ground (ridges), `π/2` on a plane;
//! * negative openness `ψ = mean(π/2 + γᵢ)`, radians — the mean nadir angle of the "ground line";
//!   large in concave ground (valleys), `π/2` on a plane;
//! * sky-view factor `SVF = 1 − mean(sin max(βᵢ, 0))`, in `[0, 1]`; 1 on a plane or a peak.
//!
//! **Edges.** Rays stop at the grid edge (the rectangle `[0, w−1] × [0, h−1]` of cell centres);
//! a direction with no in-grid sample counts as a level horizon (`β = γ = 0`).
//!
//! **Sky view alone.** [`sky_view`] returns the same grid as `openness(..).sky_view`, bit for
//! bit, about 8× faster (1024², 16 rays of 16 samples; `docs/benchmarks.md`). It tracks only
//! the largest tangent `(z_s − z₀)/d` per ray (one square root per ray and cell, no `atan`) and
//! runs direction-major over whole rows: for a fixed ray and sample the bilinear weights are the
//! same for every cell, so a row's samples are a weighted sum of shifted slices of one or two grid
//! rows, which vectorises (AVX2 when the CPU has it). The in-grid samples of a row form a
//! contiguous column range, so border cells need no separate code; weights that are exactly zero
//! (samples on grid lines, e.g. the axis rays when `dx = dy`) drop their terms. Rows whose rays
//! could read a height that is not finite or exceeds 1e300 in magnitude use the per-cell loop,
//! which keeps the reference's NaN and overflow behaviour.
//!
//! **Determinism.** Rows run in parallel; every cell uses the same sample offsets (computed once,
//! with `libm` trigonometry, offsets within 1e-9 of an integer snapped to it) and the same
//! sequential loop over directions and samples, so results are identical for any thread count.

use bozkir_core::{Grid, NoProgress, Progress};
use rayon::prelude::*;
use std::f64::consts::FRAC_PI_2;
use std::sync::atomic::{AtomicU64, Ordering};

/// Parameters of [`openness`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OpennessParams {
    /// Number of ray azimuths, evenly spaced from north. Default 16 (at least 1 is used).
    pub directions: usize,
    /// Maximum ray length in metres (Yokoyama's `L`). Default 100 m.
    pub radius: f64,
    /// Distance between samples along a ray, metres. `None` (default) uses `min(dx, dy)`.
    pub step: Option<f64>,
}

impl Default for OpennessParams {
    fn default() -> Self {
        Self { directions: 16, radius: 100.0, step: None }
    }
}

/// Openness and sky-view factor grids (same shape and cell size as the input).
#[derive(Debug, Clone, PartialEq)]
pub struct Openness {
    /// Positive openness, radians in `[0, π]`.
    pub positive: Grid<f64>,
    /// Negative openness, radians in `[0, π]`.
    pub negative: Grid<f64>,
    /// Sky-view factor in `[0, 1]`.
    pub sky_view: Grid<f64>,
}

/// One precomputed sample of a ray: integer offset of the top-left corner of its bilinear cell,
/// fractional position within it (exact zeros on grid lines) and `1/d`.
#[derive(Debug, Clone, Copy)]
struct Sample {
    /// `oy·width + ox`: the flat offset of the corner, for the unchecked interior path.
    off: isize,
    ox: isize,
    oy: isize,
    fx: f64,
    fy: f64,
    inv_d: f64,
}

/// All rays, and how far (in cells) any sample or its bilinear neighbours reaches on each side.
struct Rays {
    rays: Vec<Vec<Sample>>,
    left: usize,
    right: usize,
    up: usize,
    down: usize,
}

fn snap(o: f64) -> f64 {
    let r = o.round();
    if (o - r).abs() < 1e-9 {
        r
    } else {
        o
    }
}

fn rays(dx: f64, dy: f64, width: usize, p: &OpennessParams) -> Rays {
    let n = p.directions.max(1);
    let step = p.step.filter(|s| *s > 0.0 && s.is_finite()).unwrap_or(dx.min(dy));
    let count = if step > 0.0 && p.radius.is_finite() && p.radius > 0.0 {
        (p.radius / step * (1.0 + 1e-12)).floor() as usize
    } else {
        0
    };
    let rays: Vec<Vec<Sample>> = (0..n)
        .map(|i| {
            let th = (i as f64) * (2.0 * std::f64::consts::PI / n as f64);
            let (s, c) = (libm::sin(th), libm::cos(th));
            (1..=count)
                .map(|k| {
                    let d = k as f64 * step;
                    let (px, py) = (snap(d * s / dx), snap(-d * c / dy));
                    let (bx, by) = (px.floor(), py.floor());
                    let (fx, fy) = (px - bx, py - by);
                    Sample {
                        off: by as isize * width as isize + bx as isize,
                        ox: bx as isize,
                        oy: by as isize,
                        fx,
                        fy,
                        inv_d: 1.0 / d,
                    }
                })
                .collect()
        })
        .collect();
    let all = || rays.iter().flatten();
    Rays {
        left: all().map(|s| (-s.ox).max(0) as usize).max().unwrap_or(0),
        right: all().map(|s| (s.ox + 1).max(0) as usize).max().unwrap_or(0),
        up: all().map(|s| (-s.oy).max(0) as usize).max().unwrap_or(0),
        down: all().map(|s| (s.oy + 1).max(0) as usize).max().unwrap_or(0),
        rays,
    }
}

/// One sample of a ray as [`openness`] and [`sky_view`] read it, for a cell at `(x, y)`: the
/// top-left corner of its bilinear cell at `(x + ox, y + oy)`, the fractional position within
/// it (`fx`, `fy`; exact zeros on grid lines, whose zero-weight neighbour is clamped to the grid)
/// and `1/d`, the inverse of its distance in metres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RaySample {
    pub ox: i64,
    pub oy: i64,
    pub fx: f64,
    pub fy: f64,
    pub inv_d: f64,
}

/// The rays of [`openness`] and [`sky_view`] for cells of `dx × dy` metres, in ray order (from
/// north, clockwise), each with its samples from the cell outwards; every ray has the same
/// number of samples. A cell's samples are used up to the first that leaves the rectangle of
/// cell centres (an exact hit on the last row or column is inside). For implementations of the
/// same arithmetic elsewhere (the GPU's `sky_view.wgsl`).
pub fn ray_samples(dx: f64, dy: f64, p: &OpennessParams) -> Vec<Vec<RaySample>> {
    rays(dx, dy, 1, p)
        .rays
        .iter()
        .map(|r| {
            r.iter()
                .map(|s| RaySample { ox: s.ox as i64, oy: s.oy as i64, fx: s.fx, fy: s.fy, inv_d: s.inv_d })
                .collect()
        })
        .collect()
}

/// Openness and sky-view factor of `z` (see the module docs).
pub fn openness(z: &Grid<f64>, p: &OpennessParams) -> Openness {
    openness_with_progress(z, p, &NoProgress)
}

/// [`openness`] reporting progress per row (stage `"openness"`, rows done of rows). If the sink
/// asks to cancel, rows not yet started are left `NaN` in all three grids.
pub fn openness_with_progress(z: &Grid<f64>, p: &OpennessParams, progress: &dyn Progress) -> Openness {
    let (w, h) = (z.width(), z.height());
    let rays = rays(z.dx, z.dy, w, p);
    let mut all = z.same_shape((f64::NAN, f64::NAN, f64::NAN));
    let done = AtomicU64::new(0);
    if w > 0 && h > 0 {
        all.data_mut().par_chunks_mut(w).enumerate().for_each(|(y, row)| {
            if progress.cancelled() {
                return;
            }
            let rows_ok = y >= rays.up && y + rays.down < h;
            for (x, o) in row.iter_mut().enumerate() {
                let inside = rows_ok && x >= rays.left && x + rays.right < w;
                *o = if inside { cell::<false>(z, x, y, &rays.rays) } else { cell::<true>(z, x, y, &rays.rays) };
            }
            let d = done.fetch_add(1, Ordering::Relaxed) + 1;
            progress.report("openness", d, h as u64);
        });
    }
    Openness { positive: all.map(|v| v.0), negative: all.map(|v| v.1), sky_view: all.map(|v| v.2) }
}

/// Sky-view factor alone: the `sky_view` grid of [`openness`], bit for bit, computed by the fast
/// row path described in the module docs.
pub fn sky_view(z: &Grid<f64>, p: &OpennessParams) -> Grid<f64> {
    sky_view_with_progress(z, p, &NoProgress)
}

/// [`sky_view`] reporting progress per row (stage `"sky view"`, rows done of rows). If the sink
/// asks to cancel, rows not yet started are left `NaN`.
pub fn sky_view_with_progress(z: &Grid<f64>, p: &OpennessParams, progress: &dyn Progress) -> Grid<f64> {
    let (w, h) = (z.width(), z.height());
    let rays = rays(z.dx, z.dy, w, p);
    let mut out = z.same_shape(f64::NAN);
    if w == 0 || h == 0 {
        return out;
    }
    // Dropping a zero-weight bilinear term (`a + 0·(b − a)` → `a`) changes nothing for heights of
    // magnitude ≤ 1e300 (no overflow to ±∞, no NaN). A row takes the fast path when every grid
    // row its rays can read holds only such heights; the others (near voids) take the per-cell path.
    let mut bad_before = Vec::with_capacity(h + 1);
    bad_before.push(0usize);
    for y in 0..h {
        let bad = !z.row(y).iter().all(|v| v.abs() <= FAST_LIMIT);
        bad_before.push(bad_before[y] + usize::from(bad));
    }
    let fast = |y: usize| {
        let (a, b) = (y.saturating_sub(rays.up), (y + rays.down + 1).min(h));
        bad_before[b] == bad_before[a]
    };
    let n = rays.rays.len() as f64;
    let done = AtomicU64::new(0);
    out.data_mut().par_chunks_mut(w).enumerate().for_each_init(
        || vec![0.0; w],
        |hi, (y, row)| {
            if progress.cancelled() {
                return;
            }
            if fast(y) {
                sky_row(z, y, &rays.rays, hi, row);
                for v in row.iter_mut() {
                    *v /= n;
                }
            } else {
                for (x, o) in row.iter_mut().enumerate() {
                    *o = cell::<true>(z, x, y, &rays.rays).2;
                }
            }
            let d = done.fetch_add(1, Ordering::Relaxed) + 1;
            progress.report("sky view", d, h as u64);
        },
    );
    out
}

/// Largest height magnitude the fast sky-view path accepts (see [`sky_view_with_progress`]).
const FAST_LIMIT: f64 = 1e300;

/// Sum over the rays, in ray order, of `1 − sin max(β, 0)` for every cell of row `y`, into `acc`
/// (`hi` is scratch of the row's width). Uses AVX2 where the CPU has it: no FMA is enabled and
/// Rust never contracts `a * b + c`, so both builds run the same IEEE operations.
fn sky_row(z: &Grid<f64>, y: usize, rays: &[Vec<Sample>], hi: &mut [f64], acc: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe { sky_row_avx2(z, y, rays, hi, acc) };
        return;
    }
    sky_row_kernel(z, y, rays, hi, acc);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn sky_row_avx2(z: &Grid<f64>, y: usize, rays: &[Vec<Sample>], hi: &mut [f64], acc: &mut [f64]) {
    sky_row_kernel(z, y, rays, hi, acc);
}

/// Direction-major row kernel. For a fixed ray and sample the bilinear weights are the same for
/// every cell, so the samples of a row are a weighted sum of shifted slices of one or two grid
/// rows. A sample is in the grid exactly when its point lies in the rectangle of cell centres;
/// for a row this is a contiguous range of columns, and since a ray's points move monotonically
/// away from their cell, the in-grid samples of every cell are a prefix of its ray — the same
/// samples the per-cell loop visits before its `break`.
#[inline(always)]
fn sky_row_kernel(z: &Grid<f64>, y: usize, rays: &[Vec<Sample>], hi: &mut [f64], acc: &mut [f64]) {
    let (w, h) = (z.width() as isize, z.height() as isize);
    let wu = z.width();
    let data = z.data();
    let z0 = z.row(y);
    acc.fill(0.0);
    for ray in rays {
        hi.fill(f64::NEG_INFINITY);
        for s in ray {
            let (fx, fy) = (s.fx > 0.0, s.fy > 0.0);
            let by = y as isize + s.oy;
            // Last allowed corner row / column: an exact hit on the last one is in the grid.
            if by < 0 || by > if fy { h - 2 } else { h - 1 } {
                break;
            }
            let xa = (-s.ox).max(0);
            let xb = ((if fx { w - 2 } else { w - 1 }) - s.ox + 1).min(w);
            if xa >= xb {
                break;
            }
            let (xa, xb) = (xa as usize, xb as usize);
            let c0 = by as usize * wu + (xa as isize + s.ox) as usize;
            let r0 = &data[c0..];
            let r1 = if fy { &data[c0 + wu..] } else { r0 };
            let (hr, zr) = (&mut hi[xa..xb], &z0[xa..xb]);
            match (fx, fy) {
                (true, true) => lerp_max::<true, true>(hr, zr, r0, r1, s),
                (true, false) => lerp_max::<true, false>(hr, zr, r0, r1, s),
                (false, true) => lerp_max::<false, true>(hr, zr, r0, r1, s),
                (false, false) => lerp_max::<false, false>(hr, zr, r0, r1, s),
            }
        }
        for (a, &t) in acc.iter_mut().zip(hi.iter()) {
            // As in `cell`: a ray without samples (t = −∞) is a level horizon, and
            // sin(atan(t)) = t / sqrt(1 + t²) for the positive part only.
            *a += if t > 0.0 { 1.0 - t / (1.0 + t * t).sqrt() } else { 1.0 };
        }
    }
}

/// `hi[i] = max(hi[i], (zs − z0[i]) / d)` for the bilinear sample `zs` at corner `r0[i]` (row
/// below: `r1[i]`), with the terms of zero weight left out (`FX`/`FY`: the weight is non-zero).
#[inline(always)]
fn lerp_max<const FX: bool, const FY: bool>(hi: &mut [f64], z0: &[f64], r0: &[f64], r1: &[f64], s: &Sample) {
    let n = hi.len();
    let m = if FX { n + 1 } else { n };
    let (z0, r0, r1) = (&z0[..n], &r0[..m], &r1[..m]);
    let (fx, fy, inv_d) = (s.fx, s.fy, s.inv_d);
    for i in 0..n {
        let top = if FX { r0[i] + fx * (r0[i + 1] - r0[i]) } else { r0[i] };
        let zs = if FY {
            let bot = if FX { r1[i] + fx * (r1[i + 1] - r1[i]) } else { r1[i] };
            top + fy * (bot - top)
        } else {
            top
        };
        let t = (zs - z0[i]) * inv_d;
        // `cell`'s `if t > hi` (a NaN never wins), stored unconditionally so that it compiles to a
        // packed compare and blend rather than a masked store.
        let m = hi[i];
        hi[i] = if t > m { t } else { m };
    }
}

/// One cell. `CHECKED = false` is only used where every sample and its bilinear neighbours are
/// inside the grid; both variants evaluate the same arithmetic, so they agree bit for bit.
#[inline(always)]
fn cell<const CHECKED: bool>(z: &Grid<f64>, x: usize, y: usize, rays: &[Vec<Sample>]) -> (f64, f64, f64) {
    let (w, h) = (z.width() as isize, z.height() as isize);
    let data = z.data();
    let wu = z.width();
    let base = (y * wu + x) as isize;
    let z0 = data[y * wu + x];
    let (mut pos, mut neg, mut svf) = (0.0, 0.0, 0.0);
    for ray in rays {
        let (mut hi, mut lo) = (f64::NEG_INFINITY, f64::INFINITY);
        for s in ray {
            let (z00, z10, z01, z11) = if CHECKED {
                let bx = x as isize + s.ox;
                let by = y as isize + s.oy;
                // Inside the rectangle of cell centres; an exact hit on the last column/row is
                // allowed (its missing neighbour has weight 0 and is clamped).
                if bx < 0 || by < 0 || bx >= w || by >= h || (bx == w - 1 && s.fx > 0.0) || (by == h - 1 && s.fy > 0.0)
                {
                    break;
                }
                let (bx1, by1) = ((bx + 1).min(w - 1), (by + 1).min(h - 1));
                let (r0, r1) = ((by * w) as usize, (by1 * w) as usize);
                let (c0, c1) = (bx as usize, bx1 as usize);
                (data[r0 + c0], data[r0 + c1], data[r1 + c0], data[r1 + c1])
            } else {
                let i = (base + s.off) as usize;
                let q = &data[i..i + wu + 2];
                (q[0], q[1], q[wu], q[wu + 1])
            };
            // Lerp form: exact on level ground (a constant interpolates to itself).
            let top = z00 + s.fx * (z10 - z00);
            let bot = z01 + s.fx * (z11 - z01);
            let zs = top + s.fy * (bot - top);
            let t = (zs - z0) * s.inv_d;
            if t > hi {
                hi = t;
            }
            if t < lo {
                lo = t;
            }
        }
        if hi == f64::NEG_INFINITY {
            // No in-grid sample (or only NaN ones): a level horizon.
            hi = 0.0;
            lo = 0.0;
        }
        pos += FRAC_PI_2 - libm::atan(hi);
        neg += FRAC_PI_2 + libm::atan(lo);
        // sin(atan(t)) = t / sqrt(1 + t²), for the positive part of the horizon only.
        if hi > 0.0 {
            svf += 1.0 - hi / libm::sqrt(1.0 + hi * hi);
        } else {
            svf += 1.0;
        }
    }
    let n = rays.len() as f64;
    (pos / n, neg / n, svf / n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_plane_is_fully_open() {
        let z = Grid::new(24, 17, 321.0).with_cell_size(2.0, 3.0);
        let o = openness(&z, &OpennessParams { radius: 20.0, ..Default::default() });
        assert!(o.sky_view.data().iter().all(|&v| v == 1.0));
        assert!(o.positive.data().iter().all(|&v| (v - FRAC_PI_2).abs() < 1e-15));
        assert!(o.negative.data().iter().all(|&v| (v - FRAC_PI_2).abs() < 1e-15));
    }

    #[test]
    fn pit_is_less_open_and_peak_more() {
        let mut z = Grid::new(31, 31, 50.0);
        *z.get_mut(15, 15) = 40.0;
        let o = openness(&z, &OpennessParams { radius: 8.0, ..Default::default() });
        assert!(*o.sky_view.get(15, 15) < 0.5);
        assert!(*o.positive.get(15, 15) < FRAC_PI_2 - 0.5);
        assert!(*o.negative.get(15, 15) > FRAC_PI_2 + 0.5);
        // A neighbour sees the pit below it: unchanged sky, lower ground line.
        assert_eq!(*o.sky_view.get(18, 15), 1.0);
        let mut peak = Grid::new(31, 31, 50.0);
        *peak.get_mut(15, 15) = 60.0;
        let q = openness(&peak, &OpennessParams { radius: 8.0, ..Default::default() });
        assert_eq!(*q.sky_view.get(15, 15), 1.0);
        assert!(*q.positive.get(15, 15) > FRAC_PI_2 + 0.5);
        assert!(*q.sky_view.get(17, 15) < 1.0);
    }

    #[test]
    fn tilted_plane_matches_geometry_with_anisotropic_cells() {
        // z = a·E + b·N in metres, on cells 2 m × 0.5 m. Along azimuth θ the ray climbs at
        // tan β = a·sin θ + b·cos θ; opposite rays cancel in the positive openness.
        let (dx, dy, a, b) = (2.0, 0.5, 0.3, -0.2);
        let z = Grid::from_fn(21, 61, |x, y| a * x as f64 * dx + b * (60 - y) as f64 * dy).with_cell_size(dx, dy);
        let p = OpennessParams { directions: 16, radius: 6.0, step: None };
        let o = openness(&z, &p);
        let mut svf = 0.0;
        for i in 0..16 {
            let th = i as f64 * std::f64::consts::PI / 8.0;
            let t = a * th.sin() + b * th.cos();
            svf += 1.0 - t.max(0.0).atan().sin();
        }
        svf /= 16.0;
        for &(x, y) in &[(10, 30), (5, 20), (15, 45)] {
            assert!((o.positive.get(x, y) - FRAC_PI_2).abs() < 1e-12);
            assert!((o.negative.get(x, y) - FRAC_PI_2).abs() < 1e-12);
            assert!((o.sky_view.get(x, y) - svf).abs() < 1e-12, "{} vs {svf}", o.sky_view.get(x, y));
        }
        // Border cells still get values (rays stop at the edge).
        assert!(o.sky_view.data().iter().all(|v| v.is_finite() && (0.0..=1.0).contains(v)));
    }

    #[test]
    fn same_bits_for_any_thread_count() {
        let z = Grid::from_fn(40, 33, |x, y| {
            let (xf, yf) = (x as f64, y as f64);
            10.0 * (xf * 0.31).sin() * (yf * 0.17).cos() + 0.05 * xf * yf
        })
        .with_cell_size(1.0, 1.5);
        let p = OpennessParams { radius: 10.0, ..Default::default() };
        let run =
            |n: usize| rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap().install(|| openness(&z, &p));
        let one = run(1);
        for n in [2, 3, 5] {
            let other = run(n);
            for (g1, g2) in
                [(&one.positive, &other.positive), (&one.negative, &other.negative), (&one.sky_view, &other.sky_view)]
            {
                assert!(g1.data().iter().zip(g2.data()).all(|(a, b)| a.to_bits() == b.to_bits()));
            }
        }
    }

    /// The row kernel, in the baseline build and through the AVX2 dispatch, gives the per-cell
    /// loop's bits on every row (interior and border) of grids with dx ≠ dy.
    #[test]
    fn row_kernel_matches_cell_loop() {
        let z = Grid::from_fn(45, 38, |x, y| ((x * 7 + y * 13) % 11) as f64 * 0.7 + 0.01 * (x * y) as f64)
            .with_cell_size(1.0, 1.3);
        for p in [
            OpennessParams { directions: 16, radius: 16.0 * 1.3, step: None },
            OpennessParams { directions: 11, radius: 60.0, step: Some(0.9) },
        ] {
            let r = rays(z.dx, z.dy, z.width(), &p);
            let n = r.rays.len() as f64;
            let (mut hi, mut a, mut b) = (vec![0.0; 45], vec![0.0; 45], vec![0.0; 45]);
            for y in 0..38 {
                sky_row_kernel(&z, y, &r.rays, &mut hi, &mut a);
                sky_row(&z, y, &r.rays, &mut hi, &mut b);
                for x in 0..45 {
                    let want = cell::<true>(&z, x, y, &r.rays).2.to_bits();
                    assert_eq!(((a[x] / n).to_bits(), (b[x] / n).to_bits()), (want, want), "({x}, {y})");
                }
            }
        }
    }

    #[test]
    fn checked_and_unchecked_paths_agree() {
        let z = Grid::from_fn(30, 30, |x, y| ((x * 7 + y * 13) % 11) as f64 * 0.7 + 0.01 * (x * y) as f64)
            .with_cell_size(1.0, 1.3);
        let r = rays(z.dx, z.dy, z.width(), &OpennessParams { directions: 12, radius: 5.0, step: None });
        assert!(r.left > 0 && r.up > 0);
        for y in r.up..30 - r.down {
            for x in r.left..30 - r.right {
                let (a, b) = (cell::<true>(&z, x, y, &r.rays), cell::<false>(&z, x, y, &r.rays));
                assert_eq!(
                    (a.0.to_bits(), a.1.to_bits(), a.2.to_bits()),
                    (b.0.to_bits(), b.1.to_bits(), b.2.to_bits())
                );
            }
        }
    }
}

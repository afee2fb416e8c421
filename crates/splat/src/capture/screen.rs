//! Capture screening: is this splat capture usable as a ground exemplar for Wang tiles?
//!
//! A restatement of the original's `inspect_ply.py` probes (inventory §1.10, §1.3) that decide
//! the verdict, in one pass over a [`Splats`]:
//!
//! 1. **Plane fit** (inventory §1.3 `ground_normal`): centre = per-axis median; core = splats
//!    within the `core_pct` percentile of distance to it; PCA of the core; normal = eigenvector
//!    of the smallest eigenvalue, planarity = `λmin / λmax`. Then the splats of the core in the
//!    lowest and the highest `band_pct` % along the normal's dominant axis are fitted again (if
//!    more than 100); the flattest of the three fits is kept. Tilt = angle between the normal
//!    and that axis.
//! 2. **Anisotropy** per splat `max σ / min σ`: median, p99, max, share above 1000 (the
//!    StopThePop clamp on `S⁻¹`).
//! 3. **Size against spacing**: median long axis (`max σ`) over all splats / median distance
//!    to the nearest other centre over an evenly strided sample of `nn_sample` splats (k-d tree).
//! 4. **Occupied columns**: a `g × g` grid over the fitted plane (its two in-plane PCA axes),
//!    spanning the p1–p99 range of each in-plane coordinate, with `g = min(grid, ⌊√(N/8)⌋)`
//!    (at least 4) so that evenly spread splats average at least 8 per cell whatever their
//!    number; share of cells holding at least one centre, p50/p90/p99 of splats per
//!    occupied column (depth complexity), and **thickness**: the median, over columns with at
//!    least 3 splats, of the column's height range along the normal, divided by the plot's width
//!    (the mean of the two p1–p99 in-plane ranges). Ground is one surface layer (thin columns);
//!    an object seen from above has a front and a back in each column.
//! 5. **Opacity**: median, mean, shares below 0.1, in 0.1–0.9, above 0.9, 10-bin histogram.
//!
//! Percentiles interpolate linearly between order statistics (NumPy's default).
//!
//! **Verdict** (thresholds in [`ScreenParams`]): *too sparse* when there are fewer than
//! `min_splats`, the occupied share is below `min_occupied`, or size/spacing is below
//! `min_size_spacing`; otherwise *probably not ground* when planarity ≥ `max_planarity`,
//! thickness > `max_thickness`, median anisotropy > `max_anisotropy_median`, or p99
//! anisotropy > `max_anisotropy_p99`; otherwise *looks like ground*. (The original calls a
//! capture plane-like below 0.05 but screened ground captures measuring 0.013–0.168, so the
//! planarity limit here is 0.2; a thin slice of any object is flat, which is why the band
//! refit alone cannot tell ground from a figurine and thickness is checked too.)

use crate::model::{Bounds, Splats};
use bozkir_spatial::KdTree;
use serde::Serialize;

/// Parameters of [`screen`], with the defaults of [`ScreenParams::default`].
#[derive(Clone, Debug, PartialEq)]
pub struct ScreenParams {
    /// Percentile of distance to the median centre that makes the plane-fit core (90).
    pub core_pct: f64,
    /// Share (percent) of the core in each height band refitted (30).
    pub band_pct: f64,
    /// Splats sampled for nearest-neighbour spacing (20 000).
    pub nn_sample: usize,
    /// Most cells per side of the column grid (128; fewer for small captures, see step 4).
    pub grid: usize,
    /// Fewer splats than this is too sparse (2000, the original's patch scoring minimum).
    pub min_splats: usize,
    /// Occupied column share below this is too sparse (0.3).
    pub min_occupied: f64,
    /// Size/spacing below this leaves holes: too sparse (0.25).
    pub min_size_spacing: f64,
    /// Planarity at or above this is not ground (0.2; ground captures in the original's notes
    /// measure 0.013–0.168).
    pub max_planarity: f64,
    /// Column thickness above this is not ground (0.05 of the plot's width; bumpy synthetic
    /// ground measures 0.02, the `luigi.ply` figurine 0.10).
    pub max_thickness: f64,
    /// Median anisotropy above this means needle-like splats (50; ground captures measure
    /// 4.5–13 in the original's notes).
    pub max_anisotropy_median: f64,
    /// p99 anisotropy above this means needle-like splats (400; a rejected capture measured 484).
    pub max_anisotropy_p99: f64,
}

impl Default for ScreenParams {
    fn default() -> Self {
        ScreenParams {
            core_pct: 90.0,
            band_pct: 30.0,
            nn_sample: 20_000,
            grid: 128,
            min_splats: 2000,
            min_occupied: 0.3,
            min_size_spacing: 0.25,
            max_planarity: 0.2,
            max_thickness: 0.05,
            max_anisotropy_median: 50.0,
            max_anisotropy_p99: 400.0,
        }
    }
}

/// The plane fit.
#[derive(Clone, Debug, Serialize)]
pub struct PlaneFit {
    /// Unit normal, its dominant component made positive.
    pub normal: [f64; 3],
    /// `λmin / λmax` of the kept fit.
    pub planarity: f64,
    /// Eigenvalues of the kept fit, ascending.
    pub eigenvalues: [f64; 3],
    /// Axis (0 x, 1 y, 2 z) the normal is closest to.
    pub up_axis: usize,
    /// Angle between the normal and `up_axis`, degrees.
    pub tilt_deg: f64,
    /// Which fit was kept: "core", "low band" or "high band".
    pub fit: &'static str,
    /// Splats in the fit.
    pub splats: usize,
}

/// Anisotropy `max σ / min σ`.
#[derive(Clone, Debug, Serialize)]
pub struct Anisotropy {
    pub median: f64,
    pub p99: f64,
    pub max: f64,
    /// Share of splats above 1000.
    pub share_over_1000: f64,
}

/// Splat size against spacing.
#[derive(Clone, Debug, Serialize)]
pub struct SizeSpacing {
    /// Median of `max σ` over all splats (scene units).
    pub median_size: f64,
    /// Median nearest-neighbour distance over the sample (scene units).
    pub median_spacing: f64,
    /// `median_size / median_spacing` (infinite when the spacing is 0: duplicate centres).
    pub ratio: f64,
    /// Splats sampled.
    pub sampled: usize,
    /// Share of the sample whose nearest other centre is at distance 0 (duplicated splats).
    pub duplicate_share: f64,
}

/// Occupied columns over the fitted plane.
#[derive(Clone, Debug, Serialize)]
pub struct Columns {
    /// Cells per side.
    pub grid: usize,
    /// Cell size along the two in-plane axes (scene units).
    pub cell: [f64; 2],
    /// Share of cells holding at least one splat.
    pub occupied_share: f64,
    /// Splats per occupied column: p50, p90, p99.
    pub per_column: [f64; 3],
    /// Median height range of columns with ≥ 3 splats / plot width (0 when there are none).
    pub thickness: f64,
}

/// Opacity distribution.
#[derive(Clone, Debug, Serialize)]
pub struct OpacityStats {
    pub median: f64,
    pub mean: f64,
    pub below_0_1: f64,
    pub between: f64,
    pub above_0_9: f64,
    /// Counts in `[0, 0.1), [0.1, 0.2), …, [0.9, 1]`.
    pub histogram: [u64; 10],
}

/// The verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    LooksLikeGround,
    ProbablyNotGround,
    TooSparse,
}

impl Verdict {
    /// Words for people.
    pub fn text(self) -> &'static str {
        match self {
            Verdict::LooksLikeGround => "looks like ground",
            Verdict::ProbablyNotGround => "probably not ground",
            Verdict::TooSparse => "too sparse",
        }
    }
}

/// Everything [`screen`] measures.
#[derive(Clone, Debug, Serialize)]
pub struct Screening {
    pub count: usize,
    pub sh_degree: u8,
    pub bounds: Bounds,
    pub plane: PlaneFit,
    pub anisotropy: Anisotropy,
    pub size_spacing: SizeSpacing,
    pub columns: Columns,
    pub opacity: OpacityStats,
    pub verdict: Verdict,
    /// One sentence per check that failed (empty for ground).
    pub reasons: Vec<String>,
}

/// Linear-interpolation percentiles (`p` in 0..=100) of `v`, which is sorted here: the
/// project's one percentile, [`bozkir_core::stats::percentiles`].
pub fn percentiles(v: &mut [f64], ps: &[f64]) -> Vec<f64> {
    bozkir_core::stats::percentiles(v, ps)
}

/// Eigenvalues (ascending) and unit eigenvectors (`vecs[k]` for `vals[k]`) of a symmetric 3 × 3
/// matrix, by cyclic Jacobi rotations.
pub fn eigen_sym3(m: [[f64; 3]; 3]) -> ([f64; 3], [[f64; 3]; 3]) {
    let mut a = m;
    let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for _ in 0..64 {
        let off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
        let scale = a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2];
        if off <= 1e-30 * scale.max(1e-300) {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if a[p][q] == 0.0 {
                continue;
            }
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let t = if theta == 0.0 { 1.0 } else { t };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            for row in a.iter_mut() {
                let (x, y) = (row[p], row[q]);
                row[p] = c * x - s * y;
                row[q] = s * x + c * y;
            }
            let (rp, rq) = (a[p], a[q]);
            a[p] = std::array::from_fn(|k| c * rp[k] - s * rq[k]);
            a[q] = std::array::from_fn(|k| s * rp[k] + c * rq[k]);
            for row in v.iter_mut() {
                let (vp, vq) = (row[p], row[q]);
                row[p] = c * vp - s * vq;
                row[q] = s * vp + c * vq;
            }
        }
    }
    let mut order = [0usize, 1, 2];
    order.sort_by(|&i, &j| a[i][i].total_cmp(&a[j][j]));
    let vals = order.map(|i| a[i][i]);
    let vecs = order.map(|i| [v[0][i], v[1][i], v[2][i]]);
    (vals, vecs)
}

/// PCA of the given points: (eigenvalues ascending, eigenvectors).
pub(crate) fn pca(pts: &[[f64; 3]]) -> ([f64; 3], [[f64; 3]; 3]) {
    let n = pts.len().max(1) as f64;
    let mut mean = [0.0; 3];
    for p in pts {
        for a in 0..3 {
            mean[a] += p[a] / n;
        }
    }
    let mut c = [[0.0; 3]; 3];
    for p in pts {
        let d = [p[0] - mean[0], p[1] - mean[1], p[2] - mean[2]];
        for i in 0..3 {
            for j in 0..3 {
                c[i][j] += d[i] * d[j] / n;
            }
        }
    }
    eigen_sym3(c)
}

struct Fit {
    vals: [f64; 3],
    vecs: [[f64; 3]; 3],
    planarity: f64,
    name: &'static str,
    n: usize,
}

fn fit(pts: &[[f64; 3]], name: &'static str) -> Fit {
    let (vals, vecs) = pca(pts);
    let planarity = if vals[2] > 0.0 { (vals[0] / vals[2]).max(0.0) } else { 0.0 };
    Fit { vals, vecs, planarity, name, n: pts.len() }
}

fn plane_fit(s: &Splats, p: &ScreenParams) -> Fit {
    let pos: Vec<[f64; 3]> = s.positions().iter().map(|q| q.map(f64::from)).collect();
    let centre: Vec<f64> =
        (0..3).map(|a| percentiles(&mut pos.iter().map(|q| q[a]).collect::<Vec<_>>(), &[50.0])[0]).collect();
    let dist: Vec<f64> = pos
        .iter()
        .map(|q| ((q[0] - centre[0]).powi(2) + (q[1] - centre[1]).powi(2) + (q[2] - centre[2]).powi(2)).sqrt())
        .collect();
    let r = percentiles(&mut dist.clone(), &[p.core_pct])[0];
    let core: Vec<[f64; 3]> = pos.iter().zip(&dist).filter(|(_, &d)| d <= r).map(|(q, _)| *q).collect();
    let mut best = fit(&core, "core");
    let n = best.vecs[0];
    let axis = (0..3).fold(0, |b, a| if n[a].abs() > n[b].abs() { a } else { b });
    let mut h: Vec<f64> = core.iter().map(|q| q[axis]).collect();
    let cut = percentiles(&mut h, &[p.band_pct, 100.0 - p.band_pct]);
    for (name, keep) in [("low band", 0), ("high band", 1)] {
        let band: Vec<[f64; 3]> =
            core.iter().filter(|q| if keep == 0 { q[axis] <= cut[0] } else { q[axis] >= cut[1] }).copied().collect();
        if band.len() > 100 {
            let f = fit(&band, name);
            if f.planarity < best.planarity {
                best = f;
            }
        }
    }
    best
}

/// Screen a capture (see the module documentation). Never fails; a set of fewer than 3 splats
/// gets zero measurements and the verdict *too sparse*.
pub fn screen(s: &Splats, p: &ScreenParams) -> Screening {
    let n = s.len();
    let bounds = s.bounds().unwrap_or(Bounds { min: [0.0; 3], max: [0.0; 3] });
    let mut reasons = Vec::new();
    if n < 3 {
        reasons.push(format!("only {n} splats"));
        return Screening {
            count: n,
            sh_degree: s.sh_degree(),
            bounds,
            plane: PlaneFit {
                normal: [0.0, 0.0, 1.0],
                planarity: 0.0,
                eigenvalues: [0.0; 3],
                up_axis: 2,
                tilt_deg: 0.0,
                fit: "core",
                splats: n,
            },
            anisotropy: Anisotropy { median: 0.0, p99: 0.0, max: 0.0, share_over_1000: 0.0 },
            size_spacing: SizeSpacing {
                median_size: 0.0,
                median_spacing: 0.0,
                ratio: 0.0,
                sampled: 0,
                duplicate_share: 0.0,
            },
            columns: Columns {
                grid: p.grid,
                cell: [0.0; 2],
                occupied_share: 0.0,
                per_column: [0.0; 3],
                thickness: 0.0,
            },
            opacity: opacity_stats(s),
            verdict: Verdict::TooSparse,
            reasons,
        };
    }

    // 1. Plane.
    let f = plane_fit(s, p);
    let mut normal = f.vecs[0];
    let up_axis = (0..3).fold(0, |b, a| if normal[a].abs() > normal[b].abs() { a } else { b });
    if normal[up_axis] < 0.0 {
        normal = normal.map(|v| -v);
    }
    let tilt_deg = normal[up_axis].clamp(-1.0, 1.0).acos().to_degrees();
    let plane =
        PlaneFit { normal, planarity: f.planarity, eigenvalues: f.vals, up_axis, tilt_deg, fit: f.name, splats: f.n };

    // 2. Anisotropy.
    let mut aniso: Vec<f64> = s
        .scales()
        .iter()
        .map(|sc| {
            let (mx, mn) = (sc.iter().fold(0.0f32, |m, v| m.max(*v)), sc.iter().fold(f32::INFINITY, |m, v| m.min(*v)));
            if mn > 0.0 {
                f64::from(mx) / f64::from(mn)
            } else {
                f64::INFINITY
            }
        })
        .collect();
    let over = aniso.iter().filter(|&&a| a > 1000.0).count() as f64 / n as f64;
    let ap = percentiles(&mut aniso, &[50.0, 99.0, 100.0]);
    let anisotropy = Anisotropy { median: ap[0], p99: ap[1], max: ap[2], share_over_1000: over };

    // 3. Size against spacing.
    let mut sizes: Vec<f64> = s.scales().iter().map(|sc| f64::from(sc.iter().fold(0.0f32, |m, v| m.max(*v)))).collect();
    let median_size = percentiles(&mut sizes, &[50.0])[0];
    let tree = KdTree::new(s.positions());
    let step = n.div_ceil(p.nn_sample.max(1));
    let mut nn: Vec<f64> =
        (0..n).step_by(step).filter_map(|i| tree.nearest(s.positions()[i], i).map(|(_, d)| d)).collect();
    let sampled = nn.len();
    let duplicate_share = nn.iter().filter(|&&d| d == 0.0).count() as f64 / sampled.max(1) as f64;
    let median_spacing = percentiles(&mut nn, &[50.0])[0];
    let ratio = if median_spacing > 0.0 { median_size / median_spacing } else { f64::INFINITY };
    let size_spacing = SizeSpacing { median_size, median_spacing, ratio, sampled, duplicate_share };

    // 4. Occupied columns over the plane.
    let (u, v) = (f.vecs[2], f.vecs[1]);
    let proj = |q: &[f32; 3], d: [f64; 3]| f64::from(q[0]) * d[0] + f64::from(q[1]) * d[1] + f64::from(q[2]) * d[2];
    let us: Vec<f64> = s.positions().iter().map(|q| proj(q, u)).collect();
    let vs: Vec<f64> = s.positions().iter().map(|q| proj(q, v)).collect();
    let ur = percentiles(&mut us.clone(), &[1.0, 99.0]);
    let vr = percentiles(&mut vs.clone(), &[1.0, 99.0]);
    let g = p.grid.min(((n / 8) as f64).sqrt() as usize).max(4);
    let cell = [(ur[1] - ur[0]) / g as f64, (vr[1] - vr[0]) / g as f64];
    let mut counts = vec![0u32; g * g];
    let mut lo = vec![f64::INFINITY; g * g];
    let mut hi = vec![f64::NEG_INFINITY; g * g];
    for ((a, b), q) in us.iter().zip(&vs).zip(s.positions()) {
        if *a < ur[0] || *a > ur[1] || *b < vr[0] || *b > vr[1] {
            continue;
        }
        let cx = if cell[0] > 0.0 { (((a - ur[0]) / cell[0]) as usize).min(g - 1) } else { 0 };
        let cy = if cell[1] > 0.0 { (((b - vr[0]) / cell[1]) as usize).min(g - 1) } else { 0 };
        let c = cy * g + cx;
        counts[c] += 1;
        let h = proj(q, normal);
        lo[c] = lo[c].min(h);
        hi[c] = hi[c].max(h);
    }
    let width = 0.5 * ((ur[1] - ur[0]) + (vr[1] - vr[0]));
    let mut ranges: Vec<f64> = (0..g * g).filter(|&c| counts[c] >= 3).map(|c| hi[c] - lo[c]).collect();
    let thickness = if ranges.is_empty() || width <= 0.0 { 0.0 } else { percentiles(&mut ranges, &[50.0])[0] / width };
    let mut occ: Vec<f64> = counts.iter().filter(|&&c| c > 0).map(|&c| f64::from(c)).collect();
    let occupied_share = occ.len() as f64 / (g * g) as f64;
    let pc = percentiles(&mut occ, &[50.0, 90.0, 99.0]);
    let columns = Columns { grid: g, cell, occupied_share, per_column: [pc[0], pc[1], pc[2]], thickness };

    // Verdict.
    let mut sparse = Vec::new();
    if n < p.min_splats {
        sparse.push(format!("{n} splats, fewer than {}", p.min_splats));
    }
    if occupied_share < p.min_occupied {
        sparse.push(format!(
            "only {:.0} % of the plane's columns hold splats (need {:.0} %)",
            100.0 * occupied_share,
            100.0 * p.min_occupied
        ));
    }
    if ratio < p.min_size_spacing {
        sparse.push(format!(
            "splats are {ratio:.2}× their spacing (below {}): the surface has holes",
            p.min_size_spacing
        ));
    }
    let mut not_ground = Vec::new();
    if plane.planarity >= p.max_planarity {
        not_ground.push(format!("planarity {:.3} ≥ {}: not a flat patch of ground", plane.planarity, p.max_planarity));
    }
    if columns.thickness > p.max_thickness {
        not_ground.push(format!(
            "columns are {:.2} of the plot's width deep (above {}): several layers, an object rather than ground",
            columns.thickness, p.max_thickness
        ));
    }
    if anisotropy.median > p.max_anisotropy_median {
        not_ground.push(format!(
            "median anisotropy {:.1} > {}: needle-like splats",
            anisotropy.median, p.max_anisotropy_median
        ));
    }
    if anisotropy.p99 > p.max_anisotropy_p99 {
        not_ground.push(format!("p99 anisotropy {:.1} > {}: needle-like splats", anisotropy.p99, p.max_anisotropy_p99));
    }
    let verdict = if !sparse.is_empty() {
        Verdict::TooSparse
    } else if !not_ground.is_empty() {
        Verdict::ProbablyNotGround
    } else {
        Verdict::LooksLikeGround
    };
    reasons.extend(sparse);
    reasons.extend(not_ground);
    Screening {
        count: n,
        sh_degree: s.sh_degree(),
        bounds,
        plane,
        anisotropy,
        size_spacing,
        columns,
        opacity: opacity_stats(s),
        verdict,
        reasons,
    }
}

fn opacity_stats(s: &Splats) -> OpacityStats {
    let n = s.len().max(1) as f64;
    let mut hist = [0u64; 10];
    let (mut lo, mut mid, mut hi, mut sum) = (0usize, 0usize, 0usize, 0.0f64);
    for &o in s.opacities() {
        let o = f64::from(o);
        hist[((o * 10.0) as usize).min(9)] += 1;
        sum += o;
        if o < 0.1 {
            lo += 1;
        } else if o > 0.9 {
            hi += 1;
        } else {
            mid += 1;
        }
    }
    let mut v: Vec<f64> = s.opacities().iter().map(|&o| f64::from(o)).collect();
    let median = if v.is_empty() { 0.0 } else { percentiles(&mut v, &[50.0])[0] };
    OpacityStats {
        median,
        mean: sum / n,
        below_0_1: lo as f64 / n,
        between: mid as f64 / n,
        above_0_9: hi as f64 / n,
        histogram: hist,
    }
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)]
mod tests {
    use super::*;

    #[test]
    fn eigen_of_a_rotated_diagonal_matrix() {
        let r = crate::quat::to_matrix(crate::quat::from_axis_angle([1.0, 1.0, 0.3], 0.8));
        let d = [0.01, 2.0, 5.0];
        let mut m = [[0.0; 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                m[i][j] = (0..3).map(|k| r[i][k] * d[k] * r[j][k]).sum();
            }
        }
        let (vals, vecs) = eigen_sym3(m);
        for k in 0..3 {
            assert!((vals[k] - d[k]).abs() < 1e-10, "{vals:?}");
            let col = [r[0][k], r[1][k], r[2][k]];
            let dot: f64 = (0..3).map(|a| col[a] * vecs[k][a]).sum();
            assert!((dot.abs() - 1.0).abs() < 1e-9);
        }
    }

    #[test]
    fn percentiles_interpolate_like_numpy() {
        let mut v = vec![4.0, 1.0, 3.0, 2.0];
        let p = percentiles(&mut v, &[0.0, 50.0, 25.0, 100.0]);
        assert_eq!(p, vec![1.0, 2.5, 1.75, 4.0]);
    }
}

//! Scene preparation: bring a capture into the frame the tile pipeline expects (ground in the
//! `xy` plane, `+z` up, centred on the origin) and optionally clean it. A restatement of the
//! original's `transform.py` / `scene.py` / `select.py` (inventory §1.3, §1.4).
//!
//! [`prepare`] runs, in order:
//!
//! 1. **Align** ([`ground_normal`], then a rotation taking the normal to `+z`):
//!    * centre = per-axis median of the centres; core = splats within the `core_pct` (90)
//!      percentile of distance to it; PCA of the core (`crate::capture::screen`'s PCA), normal =
//!      eigenvector of the smallest eigenvalue, planarity = `λmin / λmax`;
//!    * the core's lowest and highest `band_pct` (30) % of heights along that normal are
//!      fitted again (each when it holds more than 100 splats) and the flattest of the three fits
//!      (smallest planarity) is kept — objects standing on the ground bend the core fit, the
//!      lowest band is then the ground alone. (The original bands along the normal's dominant
//!      axis; that is the same below 45° of tilt, and a band along the normal is a height band
//!      whatever the tilt.)
//!    * **Which side is up**: heights `t = p·n` of all centres (evenly strided to at most
//!      400 000), trimmed to their p1–p99 range; skew = `(mean − median) / std`. When
//!      `|skew| > 0.05` the normal points down iff the skew is negative (what stands on ground
//!      — plants, stones, floaters — makes a long tail *above* it). Otherwise the **mass test**:
//!      down iff `n·(mean(core) − mean(kept band)) < 0` (the core's mass lies above the
//!      ground band). A down normal is negated.
//!    * an optional `up_hint` negates the normal when `n·hint < 0`; `flip` then negates it
//!      whatever was decided (the original's `--flip`, for a capture the tests get wrong);
//!    * the shortest-arc rotation [`quat_between`] `n → +z` is applied with
//!      [`Splats::transform`] (positions, orientations and higher SH bands).
//! 2. **Upness** ([`upness`]) `(p97 − p50) / (p50 − p3)` of the heights `z`: ground with things
//!    on it reads above 1, the same capture upside down below 1; under [`UPSIDE_DOWN_BELOW`]
//!    (0.7) a warning says the capture may be upside down. Measured after alignment and
//!    before cleaning, as in the original.
//! 3. **Recentre** (`'ground'`): subtract (median x, median y, 5th-percentile z).
//! 4. **Clean** (off by default):
//!    * [`crop_cylinder`]: keep splats whose horizontal distance to the median `(x, y)` is at
//!      most the `radius_pct` (60) percentile of those distances — a centred disc that drops the
//!      capture's ragged edges and anything far outside it (background walls, sky);
//!    * [`large_mask`]: drop splats whose largest σ is above the `max_extent_pct` (99)
//!      percentile (the background shell of huge splats);
//!    * [`floater_mask`] (when `floater_std > 0`): mean distance to the `k` = 8 nearest other
//!      centres (k-d tree); drop a splat when it is above `mean + floater_std · std` of those
//!      distances, **unless its opacity is above 0.9** (opaque splats are surface, however
//!      alone).
//! 5. Optional SH truncation to `sh_degree`.
//!
//! Percentiles interpolate linearly between order statistics (NumPy's default, as in
//! `crate::capture::screen`). Everything is deterministic. Only `+z` is supported as the target axis (the
//! original's `up_axis` 0/1 variants are not carried over; the tile pipeline works in `xy`).

use crate::capture::screen::{pca, percentiles};
use crate::model::{Rigid, Splats};
use crate::quat::{self, Quat};
use bozkir_spatial::KdTree;
use serde::Serialize;

/// Upness below this prints the upside-down warning (the original's `UPSIDE_DOWN_BELOW`).
pub const UPSIDE_DOWN_BELOW: f64 = 0.7;

/// Planarity at or above this gets a warning (not a flat patch of ground; `crate::capture::screen`'s
/// limit).
pub const NOT_FLAT_FROM: f64 = 0.2;

/// Most heights sampled by [`upness`] and the up-side test.
const MAX_HEIGHT_SAMPLE: usize = 400_000;

/// Settings of [`prepare`]; the defaults are the original's `SceneConfig`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PrepareConfig {
    /// Rotate the ground plane to `xy` with `+z` up (true).
    pub align: bool,
    /// Subtract (median x, median y, p5 z) (true).
    pub recentre: bool,
    /// Turn the aligned capture over: negate the decided normal (false).
    pub flip: bool,
    /// A direction that is known to be up, in the input's frame (none).
    pub up_hint: Option<[f64; 3]>,
    /// Run the three cleaning filters (false).
    pub clean: bool,
    /// Crop cylinder radius, percentile of horizontal distance (60).
    pub radius_pct: f64,
    /// Drop splats whose largest σ is above this percentile (99).
    pub max_extent_pct: f64,
    /// Floater threshold in standard deviations of the k-NN mean distance; 0 = no floater
    /// filter (2.0).
    pub floater_std: f64,
    /// Neighbours of the floater filter (8).
    pub floater_k: usize,
    /// Splats more opaque than this are never floaters (0.9).
    pub keep_opacity: f64,
    /// Truncate SH to this degree (none).
    pub sh_degree: Option<u8>,
    /// Core of the plane fit, percentile of distance to the median centre (90).
    pub core_pct: f64,
    /// Height bands refitted, percent of the core each (30).
    pub band_pct: f64,
}

impl Default for PrepareConfig {
    fn default() -> Self {
        PrepareConfig {
            align: true,
            recentre: true,
            flip: false,
            up_hint: None,
            clean: false,
            radius_pct: 60.0,
            max_extent_pct: 99.0,
            floater_std: 2.0,
            floater_k: 8,
            keep_opacity: 0.9,
            sh_degree: None,
            core_pct: 90.0,
            band_pct: 30.0,
        }
    }
}

/// Why a capture could not be prepared ([`PrepareConfig::check`], [`align`], [`prepare`]);
/// each message is the sentence the command line prints.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PrepareError {
    /// A percentile setting outside (0, 100].
    #[error("{name} {value} must be a percentile above 0 and at most 100")]
    Percentile { name: &'static str, value: f64 },
    /// The band share is outside (0, 50].
    #[error("band share {0} must be above 0 and at most 50 %")]
    BandShare(f64),
    /// The floater threshold is negative or not finite.
    #[error("floater threshold {0} must be a finite number ≥ 0")]
    FloaterThreshold(f64),
    /// Zero floater neighbours.
    #[error("floater neighbours must be at least 1")]
    FloaterNeighbours,
    /// The opacity to keep is outside 0..=1.
    #[error("keep opacity {0} must be in 0..1")]
    KeepOpacity(f64),
    /// The SH degree asked for exceeds [`crate::model::MAX_SH_DEGREE`].
    #[error("SH degree {0} must be 0..{max}", max = crate::model::MAX_SH_DEGREE)]
    ShDegree(u8),
    /// The up hint is zero or not finite.
    #[error("up hint {0:?} must be a finite, non-zero direction")]
    UpHint([f64; 3]),
    /// Fewer than 3 splats to fit the ground plane.
    #[error("{0} splats: too few to fit a ground plane (need 3)")]
    TooFewToAlign(usize),
    /// The capture holds no splats.
    #[error("the capture holds no splats")]
    Empty,
    /// Some splat positions are NaN or infinite.
    #[error("{count} splats have a NaN or infinite position (first: splat {first})")]
    NonFinite { count: usize, first: usize },
}

impl PrepareConfig {
    /// Problems with the settings, as a sentence naming the setting.
    pub fn check(&self) -> Result<(), PrepareError> {
        let pct = |name: &'static str, value: f64| {
            if value > 0.0 && value <= 100.0 {
                Ok(())
            } else {
                Err(PrepareError::Percentile { name, value })
            }
        };
        pct("radius percentile", self.radius_pct)?;
        pct("max extent percentile", self.max_extent_pct)?;
        pct("core percentile", self.core_pct)?;
        if !(self.band_pct > 0.0 && self.band_pct <= 50.0) {
            return Err(PrepareError::BandShare(self.band_pct));
        }
        if !(self.floater_std >= 0.0 && self.floater_std.is_finite()) {
            return Err(PrepareError::FloaterThreshold(self.floater_std));
        }
        if self.floater_k == 0 {
            return Err(PrepareError::FloaterNeighbours);
        }
        if !(0.0..=1.0).contains(&self.keep_opacity) {
            return Err(PrepareError::KeepOpacity(self.keep_opacity));
        }
        if let Some(d) = self.sh_degree {
            if d > crate::model::MAX_SH_DEGREE {
                return Err(PrepareError::ShDegree(d));
            }
        }
        if let Some(h) = self.up_hint {
            if h.iter().any(|v| !v.is_finite()) || h.iter().all(|&v| v == 0.0) {
                return Err(PrepareError::UpHint(h));
            }
        }
        Ok(())
    }
}

/// How the up side was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UpTest {
    /// Skew of the heights (`|skew| > 0.05`).
    Skew,
    /// Mass test: the core's mean against the kept band's mean.
    Mass,
}

/// The ground plane of a capture.
#[derive(Clone, Debug, Serialize)]
pub struct GroundFit {
    /// Unit normal pointing up (see the module documentation for how up is decided).
    pub normal: [f64; 3],
    /// `λmin / λmax` of the kept fit.
    pub planarity: f64,
    /// Which fit was kept: "core", "low band" or "high band".
    pub fit: &'static str,
    /// Splats in the kept fit.
    pub splats: usize,
    /// Which test decided the side.
    pub up_test: UpTest,
    /// Skew `(mean − median) / std` of the trimmed heights along the normal before the sign
    /// was decided (so its sign says nothing about the returned normal).
    pub skew: f64,
}

/// What alignment did.
#[derive(Clone, Debug, Serialize)]
pub struct AlignReport {
    /// The fitted up normal in the input's frame.
    pub normal_before: [f64; 3],
    /// The plane refitted after the rotation (oriented to `+z`); ≈ `(0, 0, 1)`.
    pub normal_after: [f64; 3],
    /// Angle between `normal_before` and `+z`, degrees (above 90: the input was upside down).
    pub tilt_before_deg: f64,
    /// Angle between `normal_after` and `+z`, degrees.
    pub tilt_after_deg: f64,
    pub planarity_before: f64,
    pub planarity_after: f64,
    /// The kept fit ("core", "low band", "high band").
    pub fit: &'static str,
    pub fit_splats: usize,
    pub up_test: UpTest,
    pub skew: f64,
    /// The up hint reversed the tests' decision.
    pub hint_reversed: bool,
    /// `flip` was asked for.
    pub flipped: bool,
    /// The input's up side pointed down (tilt before above 90°): it was turned over.
    pub turned_over: bool,
    /// The rotation applied, `(w, x, y, z)`.
    pub rotation: Quat,
}

/// What cleaning removed, filter by filter (counts in the order the filters ran).
#[derive(Clone, Debug, Serialize)]
pub struct CleanReport {
    /// Radius of the crop cylinder (scene units).
    pub cylinder_radius: f64,
    pub removed_cylinder: usize,
    /// Largest σ kept.
    pub large_threshold: f64,
    pub removed_large: usize,
    /// Mean k-NN distance above which a splat is a floater (infinite when the filter is off).
    pub floater_threshold: f64,
    pub removed_floaters: usize,
    /// Splats above the floater threshold kept for being opaque.
    pub kept_opaque: usize,
}

/// Everything [`prepare`] did and measured.
#[derive(Clone, Debug, Serialize)]
pub struct PrepareReport {
    pub count_in: usize,
    pub count_out: usize,
    pub sh_degree_in: u8,
    pub sh_degree_out: u8,
    /// Present when aligning.
    pub align: Option<AlignReport>,
    /// [`upness`] of the input as given (along its `+z`).
    pub upness_before: f64,
    /// [`upness`] after alignment (before cleaning): below 0.7 warns.
    pub upness: f64,
    /// The translation added by recentring (present when recentring).
    pub recentre: Option<[f64; 3]>,
    /// Present when cleaning.
    pub clean: Option<CleanReport>,
    /// Sentences for people (upside down, not flat).
    pub warnings: Vec<String>,
}

/// A prepared capture.
#[derive(Clone, Debug)]
pub struct Prepared {
    pub splats: Splats,
    /// For each output splat, its index in the input.
    pub kept: Vec<usize>,
    pub report: PrepareReport,
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

fn unit(v: [f64; 3]) -> [f64; 3] {
    let n = dot(v, v).sqrt();
    if n > 0.0 {
        v.map(|c| c / n)
    } else {
        v
    }
}

/// The shortest-arc rotation taking the direction `a` to the direction `b` (neither need be
/// unit). Parallel → identity; antiparallel → 180° about an axis perpendicular to `a` (built
/// from `x`, or `y` when `|a.x| > 0.9`).
pub fn quat_between(a: [f64; 3], b: [f64; 3]) -> Quat {
    let (a, b) = (unit(a), unit(b));
    let d = dot(a, b);
    if d >= 1.0 - 1e-15 {
        return quat::IDENTITY;
    }
    if d <= -1.0 + 1e-12 {
        let seed = if a[0].abs() > 0.9 { [0.0, 1.0, 0.0] } else { [1.0, 0.0, 0.0] };
        let ax = unit(cross(a, seed));
        return [0.0, ax[0], ax[1], ax[2]];
    }
    let c = cross(a, b);
    quat::normalize([1.0 + d, c[0], c[1], c[2]])
}

/// Every `step`-th element so that at most `max` remain.
fn strided<T: Copy>(v: &[T], max: usize) -> impl Iterator<Item = T> + '_ {
    v.iter().step_by(v.len().div_ceil(max.max(1)).max(1)).copied()
}

/// `(p97 − p50) / (p50 − p3)` of the heights `z` (evenly strided to at most 400 000 splats).
/// Infinite when `p50 = p3` and `p97 > p50`; 1 for a set with no height spread; NaN when empty.
pub fn upness(s: &Splats) -> f64 {
    if s.is_empty() {
        return f64::NAN;
    }
    let mut z: Vec<f64> = strided(s.positions(), MAX_HEIGHT_SAMPLE).map(|p| f64::from(p[2])).collect();
    let p = percentiles(&mut z, &[3.0, 50.0, 97.0]);
    let (below, above) = (p[1] - p[0], p[2] - p[1]);
    if below > 0.0 {
        above / below
    } else if above > 0.0 {
        f64::INFINITY
    } else {
        1.0
    }
}

struct Fit {
    normal: [f64; 3],
    planarity: f64,
    mean: [f64; 3],
    name: &'static str,
    n: usize,
}

fn fit(pts: &[[f64; 3]], name: &'static str) -> Fit {
    let (vals, vecs) = pca(pts);
    let planarity = if vals[2] > 0.0 { (vals[0] / vals[2]).max(0.0) } else { 0.0 };
    let k = pts.len().max(1) as f64;
    let mut mean = [0.0; 3];
    for p in pts {
        for a in 0..3 {
            mean[a] += p[a] / k;
        }
    }
    Fit { normal: unit(vecs[0]), planarity, mean, name, n: pts.len() }
}

/// The flattest of the core fit and its two height-band refits, and the core's mean.
fn best_fit(pos: &[[f64; 3]], core_pct: f64, band_pct: f64) -> (Fit, [f64; 3]) {
    let centre: Vec<f64> =
        (0..3).map(|a| percentiles(&mut pos.iter().map(|q| q[a]).collect::<Vec<_>>(), &[50.0])[0]).collect();
    let centre = [centre[0], centre[1], centre[2]];
    let dist: Vec<f64> = pos
        .iter()
        .map(|q| {
            let d = [q[0] - centre[0], q[1] - centre[1], q[2] - centre[2]];
            dot(d, d).sqrt()
        })
        .collect();
    let r = percentiles(&mut dist.clone(), &[core_pct])[0];
    let core: Vec<[f64; 3]> = pos.iter().zip(&dist).filter(|(_, &d)| d <= r).map(|(q, _)| *q).collect();
    let mut best = fit(&core, "core");
    let core_mean = best.mean;
    let n = best.normal;
    let h: Vec<f64> = core.iter().map(|q| dot(*q, n)).collect();
    let cut = percentiles(&mut h.clone(), &[band_pct, 100.0 - band_pct]);
    for (name, low) in [("low band", true), ("high band", false)] {
        let band: Vec<[f64; 3]> = core
            .iter()
            .zip(&h)
            .filter(|(_, &t)| if low { t <= cut[0] } else { t >= cut[1] })
            .map(|(q, _)| *q)
            .collect();
        if band.len() > 100 {
            let f = fit(&band, name);
            if f.planarity < best.planarity {
                best = f;
            }
        }
    }
    (best, core_mean)
}

fn positions_f64(s: &Splats) -> Vec<[f64; 3]> {
    s.positions().iter().map(|p| p.map(f64::from)).collect()
}

/// Fit the ground plane of `s` and decide which side is up (module documentation, step 1).
/// `None` for fewer than 3 splats.
pub fn ground_normal(s: &Splats, core_pct: f64, band_pct: f64) -> Option<GroundFit> {
    if s.len() < 3 {
        return None;
    }
    let pos = positions_f64(s);
    let (best, core_mean) = best_fit(&pos, core_pct, band_pct);
    let mut n = best.normal;
    let mut t: Vec<f64> = strided(&pos, MAX_HEIGHT_SAMPLE).map(|p| dot(p, n)).collect();
    let lim = percentiles(&mut t, &[1.0, 99.0]);
    let trimmed: Vec<f64> = t.iter().copied().filter(|&v| v >= lim[0] && v <= lim[1]).collect();
    let k = trimmed.len().max(1) as f64;
    let mean = trimmed.iter().sum::<f64>() / k;
    let std = (trimmed.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / k).sqrt();
    let median = percentiles(&mut trimmed.clone(), &[50.0])[0];
    let skew = if std > 0.0 { (mean - median) / std } else { 0.0 };
    let (down, up_test) = if skew.abs() > 0.05 {
        (skew < 0.0, UpTest::Skew)
    } else {
        let d = [core_mean[0] - best.mean[0], core_mean[1] - best.mean[1], core_mean[2] - best.mean[2]];
        (dot(n, d) < 0.0, UpTest::Mass)
    };
    if down {
        n = n.map(|v| -v);
    }
    Some(GroundFit { normal: n, planarity: best.planarity, fit: best.name, splats: best.n, up_test, skew })
}

fn tilt_deg(n: [f64; 3]) -> f64 {
    n[2].clamp(-1.0, 1.0).acos().to_degrees()
}

/// Rotate `s` so its ground normal points to `+z` (module documentation, step 1).
pub fn align(s: &mut Splats, cfg: &PrepareConfig) -> Result<AlignReport, PrepareError> {
    let g = ground_normal(s, cfg.core_pct, cfg.band_pct).ok_or(PrepareError::TooFewToAlign(s.len()))?;
    let mut n = g.normal;
    let mut hint_reversed = false;
    if let Some(h) = cfg.up_hint {
        if dot(n, h) < 0.0 {
            n = n.map(|v| -v);
            hint_reversed = true;
        }
    }
    if cfg.flip {
        n = n.map(|v| -v);
    }
    let q = quat_between(n, [0.0, 0.0, 1.0]);
    s.transform(&Rigid::rotation(q));
    let (after, _) = best_fit(&positions_f64(s), cfg.core_pct, cfg.band_pct);
    let mut na = after.normal;
    if na[2] < 0.0 {
        na = na.map(|v| -v);
    }
    Ok(AlignReport {
        normal_before: n,
        normal_after: na,
        tilt_before_deg: tilt_deg(n),
        tilt_after_deg: tilt_deg(na),
        planarity_before: g.planarity,
        planarity_after: after.planarity,
        fit: g.fit,
        fit_splats: g.splats,
        up_test: g.up_test,
        skew: g.skew,
        hint_reversed,
        flipped: cfg.flip,
        turned_over: n[2] < 0.0,
        rotation: q,
    })
}

/// The translation that recentres on the ground: `−(median x, median y, p5 z)`.
pub fn ground_offset(s: &Splats) -> [f64; 3] {
    let mut out = [0.0; 3];
    for (a, pct) in [(0, 50.0), (1, 50.0), (2, 5.0)] {
        let mut v: Vec<f64> = s.positions().iter().map(|p| f64::from(p[a])).collect();
        out[a] = -percentiles(&mut v, &[pct])[0];
    }
    out
}

/// Keep mask of the crop cylinder: horizontal distance to the median `(x, y)` at most the
/// `radius_pct` percentile of those distances; also returns the radius.
pub fn crop_cylinder(s: &Splats, radius_pct: f64) -> (Vec<bool>, f64) {
    if s.is_empty() {
        return (Vec::new(), 0.0);
    }
    let med =
        |a: usize| percentiles(&mut s.positions().iter().map(|p| f64::from(p[a])).collect::<Vec<_>>(), &[50.0])[0];
    let (cx, cy) = (med(0), med(1));
    let d: Vec<f64> = s.positions().iter().map(|p| (f64::from(p[0]) - cx).hypot(f64::from(p[1]) - cy)).collect();
    let r = percentiles(&mut d.clone(), &[radius_pct])[0];
    (d.iter().map(|&v| v <= r).collect(), r)
}

/// Keep mask dropping splats whose largest σ is above the `pct` percentile; also returns that
/// threshold.
pub fn large_mask(s: &Splats, pct: f64) -> (Vec<bool>, f64) {
    if s.is_empty() {
        return (Vec::new(), 0.0);
    }
    let m: Vec<f64> = s.scales().iter().map(|v| f64::from(v[0].max(v[1]).max(v[2]))).collect();
    let thr = percentiles(&mut m.clone(), &[pct])[0];
    (m.iter().map(|&v| v <= thr).collect(), thr)
}

/// Keep mask of the floater filter: a splat whose mean distance to its `k` nearest other
/// centres exceeds `mean + std_ratio · std` (over all splats) is dropped unless its opacity is
/// above `keep_opacity`. Returns the mask, the threshold (infinite when there are at most `k`
/// splats: nothing is dropped) and how many were kept for their opacity.
pub fn floater_mask(s: &Splats, k: usize, std_ratio: f64, keep_opacity: f64) -> (Vec<bool>, f64, usize) {
    let n = s.len();
    if n <= k || k == 0 {
        return (vec![true; n], f64::INFINITY, 0);
    }
    let tree = KdTree::new(s.positions());
    let md: Vec<f64> = (0..n)
        .map(|i| {
            let nn = tree.knn(s.positions()[i], k, i);
            nn.iter().map(|(_, d)| d).sum::<f64>() / nn.len() as f64
        })
        .collect();
    let mean = md.iter().sum::<f64>() / n as f64;
    let std = (md.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n as f64).sqrt();
    let thr = mean + std_ratio * std;
    let mut kept_opaque = 0;
    let mask = md
        .iter()
        .zip(s.opacities())
        .map(|(&d, &o)| {
            if d <= thr {
                true
            } else if f64::from(o) > keep_opacity {
                kept_opaque += 1;
                true
            } else {
                false
            }
        })
        .collect();
    (mask, thr, kept_opaque)
}

fn apply(s: &mut Splats, kept: &mut Vec<usize>, mask: &[bool]) -> usize {
    let removed = mask.iter().filter(|&&m| !m).count();
    if removed > 0 {
        *s = s.subset_mask(mask);
        *kept = kept.iter().zip(mask).filter(|(_, &m)| m).map(|(&i, _)| i).collect();
    }
    removed
}

/// Prepare a capture (module documentation). Errors, as a sentence: bad settings, no splats, a
/// non-finite position, fewer than 3 splats to align.
pub fn prepare(input: &Splats, cfg: &PrepareConfig) -> Result<Prepared, PrepareError> {
    cfg.check()?;
    if input.is_empty() {
        return Err(PrepareError::Empty);
    }
    let bad: Vec<usize> = input
        .positions()
        .iter()
        .enumerate()
        .filter(|(_, p)| p.iter().any(|v| !v.is_finite()))
        .map(|(i, _)| i)
        .collect();
    if let Some(&first) = bad.first() {
        return Err(PrepareError::NonFinite { count: bad.len(), first });
    }
    let mut s = input.clone();
    let mut kept: Vec<usize> = (0..s.len()).collect();
    let mut warnings = Vec::new();
    let upness_before = upness(&s);
    let align = if cfg.align {
        let r = align(&mut s, cfg)?;
        if r.planarity_before >= NOT_FLAT_FROM {
            warnings.push(format!(
                "planarity {:.3} ≥ {NOT_FLAT_FROM}: the capture is not a flat patch of ground, the alignment may be meaningless",
                r.planarity_before
            ));
        }
        Some(r)
    } else {
        None
    };
    let up = upness(&s);
    if up < UPSIDE_DOWN_BELOW {
        warnings.push(format!(
            "upness {up:.2} < {UPSIDE_DOWN_BELOW}: the capture may be upside down (prepare again with the flip option)"
        ));
    }
    let recentre = if cfg.recentre {
        let t = ground_offset(&s);
        s.transform(&Rigid::translation(t));
        Some(t)
    } else {
        None
    };
    let clean = if cfg.clean {
        let (m, cylinder_radius) = crop_cylinder(&s, cfg.radius_pct);
        let removed_cylinder = apply(&mut s, &mut kept, &m);
        let (m, large_threshold) = large_mask(&s, cfg.max_extent_pct);
        let removed_large = apply(&mut s, &mut kept, &m);
        let (removed_floaters, floater_threshold, kept_opaque) = if cfg.floater_std > 0.0 {
            let (m, thr, ko) = floater_mask(&s, cfg.floater_k, cfg.floater_std, cfg.keep_opacity);
            (apply(&mut s, &mut kept, &m), thr, ko)
        } else {
            (0, f64::INFINITY, 0)
        };
        Some(CleanReport {
            cylinder_radius,
            removed_cylinder,
            large_threshold,
            removed_large,
            floater_threshold,
            removed_floaters,
            kept_opaque,
        })
    } else {
        None
    };
    if let Some(d) = cfg.sh_degree {
        s.truncate_sh(d);
    }
    let report = PrepareReport {
        count_in: input.len(),
        count_out: s.len(),
        sh_degree_in: input.sh_degree(),
        sh_degree_out: s.sh_degree(),
        align,
        upness_before,
        upness: up,
        recentre,
        clean,
        warnings,
    };
    Ok(Prepared { splats: s, kept, report })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::{synth, Capture, SynthParams};

    fn params() -> SynthParams {
        SynthParams { side_m: 2.0, density: 2000.0, ..SynthParams::default() }
    }

    fn capture(p: SynthParams, azimuth_deg: f64) -> Capture {
        let mut c = synth(&p).unwrap();
        if azimuth_deg != 0.0 {
            c.splats.transform(&Rigid::rotation(quat::from_axis_angle([0.0, 0.0, 1.0], azimuth_deg.to_radians())));
        }
        c
    }

    /// Up normal (z ≥ 0) of the ground splats alone, and the median heights of ground and of
    /// the rest.
    fn truth(out: &Prepared, material: &[u8]) -> ([f64; 3], f64, f64) {
        let (mut ground, mut other) = (Vec::new(), Vec::new());
        for (j, &i) in out.kept.iter().enumerate() {
            let p = out.splats.positions()[j].map(f64::from);
            if material[i] == u8::MAX {
                other.push(p);
            } else {
                ground.push(p);
            }
        }
        let (_, vecs) = pca(&ground);
        let n = if vecs[0][2] < 0.0 { vecs[0].map(|v| -v) } else { vecs[0] };
        let med = |v: &[[f64; 3]]| percentiles(&mut v.iter().map(|p| p[2]).collect::<Vec<_>>(), &[50.0])[0];
        (n, med(&ground), if other.is_empty() { f64::NAN } else { med(&other) })
    }

    #[test]
    fn tilted_ground_is_levelled_right_side_up() {
        for tilt in [5.0, 25.0, 65.0] {
            for azimuth in [0.0, 210.0] {
                let c = capture(SynthParams { tilt_deg: tilt, floaters: 400, ..params() }, azimuth);
                let out = prepare(&c.splats, &PrepareConfig::default()).unwrap();
                let a = out.report.align.as_ref().unwrap();
                assert!(
                    (a.tilt_before_deg - tilt).abs() < 1.0,
                    "tilt {tilt} az {azimuth}: before {}",
                    a.tilt_before_deg
                );
                assert!(a.tilt_after_deg < 0.5, "tilt {tilt} az {azimuth}: after {}", a.tilt_after_deg);
                assert!(!a.turned_over);
                let (n, g, f) = truth(&out, &c.material);
                assert!(tilt_deg(n) < 1.0, "tilt {tilt} az {azimuth}: ground normal {n:?}");
                assert!(f > g + 0.1, "floaters at {f} above ground at {g}");
                assert!(out.report.upness > 1.5, "upness {}", out.report.upness);
                assert!(out.report.warnings.is_empty(), "{:?}", out.report.warnings);
            }
        }
    }

    #[test]
    fn upside_down_capture_is_detected_and_turned_over() {
        let c = capture(SynthParams { upside_down: true, floaters: 400, tilt_deg: 10.0, ..params() }, 0.0);
        let out = prepare(&c.splats, &PrepareConfig::default()).unwrap();
        let r = &out.report;
        assert!(r.upness_before < UPSIDE_DOWN_BELOW, "before {}", r.upness_before);
        let a = r.align.as_ref().unwrap();
        assert!(a.turned_over && a.tilt_before_deg > 160.0, "{a:?}");
        assert_eq!(a.up_test, UpTest::Skew);
        assert!(r.upness > 1.5, "after {}", r.upness);
        let (n, g, f) = truth(&out, &c.material);
        assert!(tilt_deg(n) < 1.0 && f > g + 0.1);
        // Without alignment the warning fires.
        let raw = prepare(&c.splats, &PrepareConfig { align: false, ..PrepareConfig::default() }).unwrap();
        assert!(raw.report.warnings.iter().any(|w| w.contains("upside down")), "{:?}", raw.report.warnings);
    }

    #[test]
    fn flip_and_up_hint_override_the_tests() {
        let c = capture(SynthParams { floaters: 400, tilt_deg: 20.0, ..params() }, 0.0);
        let flipped = prepare(&c.splats, &PrepareConfig { flip: true, ..PrepareConfig::default() }).unwrap();
        let (_, g, f) = truth(&flipped, &c.material);
        assert!(f < g - 0.1);
        assert!(flipped.report.upness < UPSIDE_DOWN_BELOW);
        assert!(flipped.report.warnings.iter().any(|w| w.contains("upside down")));
        // A hint pointing down the true up reverses the decision; one along it changes nothing.
        let t = 20f64.to_radians();
        let true_up = [0.0, -t.sin(), t.cos()];
        let down =
            prepare(&c.splats, &PrepareConfig { up_hint: Some(true_up.map(|v| -v)), ..PrepareConfig::default() })
                .unwrap();
        assert!(down.report.align.as_ref().unwrap().hint_reversed);
        assert_eq!(down.splats, flipped.splats);
        let up = prepare(&c.splats, &PrepareConfig { up_hint: Some(true_up), ..PrepareConfig::default() }).unwrap();
        assert!(!up.report.align.as_ref().unwrap().hint_reversed);
        assert_eq!(up.splats, prepare(&c.splats, &PrepareConfig::default()).unwrap().splats);
    }

    #[test]
    fn recentre_puts_the_ground_at_the_origin() {
        let c = capture(SynthParams { tilt_deg: 30.0, ..params() }, 0.0);
        let mut moved = c.splats.clone();
        moved.transform(&Rigid::translation([5.0, -3.0, 2.0]));
        let out = prepare(&moved, &PrepareConfig::default()).unwrap();
        let mut v: Vec<[f64; 3]> = out.splats.positions().iter().map(|p| p.map(f64::from)).collect();
        let pc = |a: usize, p: f64, v: &mut Vec<[f64; 3]>| {
            percentiles(&mut v.iter().map(|q| q[a]).collect::<Vec<_>>(), &[p])[0]
        };
        assert!(
            pc(0, 50.0, &mut v).abs() < 1e-5 && pc(1, 50.0, &mut v).abs() < 1e-5 && pc(2, 5.0, &mut v).abs() < 1e-5
        );
        let no = prepare(&moved, &PrepareConfig { recentre: false, ..PrepareConfig::default() }).unwrap();
        assert!(no.report.recentre.is_none());
        assert!(f64::from(no.splats.bounds().unwrap().max[0]) > 4.0);
    }

    #[test]
    fn clean_removes_floaters_and_background_but_not_ground() {
        let c = capture(SynthParams { floaters: 100, background_m: 2.0, tilt_deg: 15.0, ..params() }, 0.0);
        let cfg = PrepareConfig { clean: true, ..PrepareConfig::default() };
        let out = prepare(&c.splats, &cfg).unwrap();
        let r = out.report.clean.as_ref().unwrap();
        assert!(out.kept.iter().all(|&i| c.material[i] != u8::MAX), "a floater or wall splat survived: {r:?}");
        // The crop cylinder is a deliberate centred disc: of the ground splats inside it, at
        // least 98 % survive the other two filters.
        let aligned = prepare(&c.splats, &PrepareConfig::default()).unwrap();
        let (inside, _) = crop_cylinder(&aligned.splats, cfg.radius_pct);
        let ground_inside = aligned.kept.iter().zip(&inside).filter(|(&i, &m)| m && c.material[i] != u8::MAX).count();
        let ground_kept = out.kept.iter().filter(|&&i| c.material[i] != u8::MAX).count();
        assert!(ground_kept as f64 >= 0.98 * ground_inside as f64, "{ground_kept} of {ground_inside}: {r:?}");
        assert_eq!(r.removed_cylinder + r.removed_large + r.removed_floaters, c.splats.len() - out.splats.len());
        // kept maps every output splat to its input.
        for (j, &i) in out.kept.iter().enumerate().step_by(97) {
            assert_eq!(out.splats.sh_dc()[j], c.splats.sh_dc()[i]);
        }

        // With the cylinder wide open, the floater filter alone finds the floaters and keeps
        // at least 98 % of the ground.
        let c = capture(SynthParams { floaters: 100, ..params() }, 0.0);
        let out = prepare(&c.splats, &PrepareConfig { radius_pct: 100.0, ..cfg.clone() }).unwrap();
        let r = out.report.clean.as_ref().unwrap();
        let ground = c.material.iter().filter(|&&m| m != u8::MAX).count();
        let ground_kept = out.kept.iter().filter(|&&i| c.material[i] != u8::MAX).count();
        let floaters_kept = out.kept.len() - ground_kept;
        assert_eq!(r.removed_cylinder, 0);
        assert_eq!(floaters_kept, 0, "{r:?}");
        assert!(ground_kept as f64 >= 0.98 * ground as f64, "{ground_kept} of {ground}: {r:?}");
    }

    #[test]
    fn clean_keeps_dense_ground() {
        // The default 4 m capture at 8000 splats/m²: the large filter takes the floaters first
        // (they are bigger than any ground splat), so the floater filter sees ground alone and
        // its mean + 2·std cut meets the ground's own tail (half of it kept for opacity > 0.9).
        let c = synth(&SynthParams { floaters: 1000, background_m: 2.0, tilt_deg: 25.0, ..SynthParams::default() })
            .unwrap();
        let cfg = PrepareConfig { clean: true, ..PrepareConfig::default() };
        let out = prepare(&c.splats, &cfg).unwrap();
        let aligned = prepare(&c.splats, &PrepareConfig::default()).unwrap();
        let (inside, _) = crop_cylinder(&aligned.splats, cfg.radius_pct);
        let ground_inside = aligned.kept.iter().zip(&inside).filter(|(&i, &m)| m && c.material[i] != u8::MAX).count();
        let ground_kept = out.kept.iter().filter(|&&i| c.material[i] != u8::MAX).count();
        let r = out.report.clean.as_ref().unwrap();
        assert_eq!(out.kept.len(), ground_kept, "a floater or wall splat survived: {r:?}");
        assert!(ground_kept as f64 >= 0.98 * ground_inside as f64, "{ground_kept} of {ground_inside}: {r:?}");
        assert!(r.kept_opaque > 0);
    }

    #[test]
    fn filters_do_what_they_say() {
        // Crop: the 50th percentile keeps the nearer half.
        let mut s = Splats::new(0);
        for i in 0..100 {
            let r = i as f32 * 0.1;
            s.push_decoded([r, 0.0, 0.0], [0.01 * (1 + i) as f32; 3], [1.0, 0.0, 0.0, 0.0], 0.5, [0.0; 3], &[]);
        }
        let (m, _) = crop_cylinder(&s, 100.0);
        assert!(m.iter().all(|&k| k));
        // Large: the 99th percentile drops exactly the one giant.
        let (m, thr) = large_mask(&s, 99.0);
        assert_eq!(m.iter().filter(|&&k| !k).count(), 1);
        assert!(!m[99] && thr < 1.0);
        // Floaters: a lone splat far away is dropped, unless opaque.
        let mut t = Splats::new(0);
        for i in 0..400 {
            let (x, y) = ((i % 20) as f32 * 0.05, (i / 20) as f32 * 0.05);
            t.push_decoded([x, y, 0.0], [0.03; 3], [1.0, 0.0, 0.0, 0.0], 0.5, [0.0; 3], &[]);
        }
        t.push_decoded([0.5, 0.5, 3.0], [0.03; 3], [1.0, 0.0, 0.0, 0.0], 0.5, [0.0; 3], &[]);
        t.push_decoded([0.5, 0.5, -3.0], [0.03; 3], [1.0, 0.0, 0.0, 0.0], 0.95, [0.0; 3], &[]);
        let (m, thr, ko) = floater_mask(&t, 8, 2.0, 0.9);
        assert!(!m[400] && m[401] && ko == 1, "threshold {thr}");
        assert_eq!(m.iter().filter(|&&k| !k).count(), 1);
        let (m, thr, _) = floater_mask(&t.subset(&[0, 1, 2]), 8, 2.0, 0.9);
        assert!(m.iter().all(|&k| k) && thr.is_infinite());
    }

    #[test]
    fn quat_between_lands_on_the_target() {
        let dirs = [
            [0.0, 0.0, 1.0],
            [0.0, 0.0, -1.0],
            [1.0, 0.0, 0.0],
            [-1.0, 0.0, 0.0],
            [0.3, -0.8, 0.2],
            [1e-9, 0.0, -1.0],
            [-0.5, 0.5, -0.7],
        ];
        for a in dirs {
            for b in dirs {
                let q = quat_between(a, b);
                let r = quat::mat_vec(&quat::to_matrix(q), unit(a));
                let (b, d) = (unit(b), dot(r, unit(b)));
                assert!(d > 1.0 - 1e-12, "{a:?} → {b:?}: {r:?}");
            }
        }
        assert_eq!(quat_between([0.0, 0.0, 2.0], [0.0, 0.0, 1.0]), quat::IDENTITY);
    }

    #[test]
    fn upness_reads_the_tail() {
        let mut s = Splats::new(0);
        // Heights 0..1 uniform plus a tail above: upness above 1; negated: below 1.
        for i in 0..1000 {
            let z = if i < 900 { i as f32 / 900.0 } else { 1.0 + (i - 900) as f32 * 0.05 };
            s.push_decoded([0.0, 0.0, z], [0.01; 3], [1.0, 0.0, 0.0, 0.0], 0.5, [0.0; 3], &[]);
        }
        let u = upness(&s);
        let mut t = s.clone();
        t.transform(&Rigid::rotation(quat::from_axis_angle([1.0, 0.0, 0.0], std::f64::consts::PI)));
        assert!(u > 1.5 && upness(&t) < UPSIDE_DOWN_BELOW, "{u} {}", upness(&t));
        assert!((u * upness(&t) - 1.0).abs() < 1e-4, "mirrored capture reads the reciprocal");
        let flat = s.subset(&[0, 0, 0]);
        assert_eq!(upness(&flat), 1.0);
        assert!(upness(&Splats::new(0)).is_nan());
    }

    #[test]
    fn bad_input_and_settings_are_refused() {
        let c = synth(&params()).unwrap();
        let e = prepare(&Splats::new(0), &PrepareConfig::default()).unwrap_err();
        assert!(e.to_string().contains("no splats"), "{e}");
        let mut s = c.splats.subset(&[0, 1]);
        assert!(prepare(&s, &PrepareConfig::default()).unwrap_err().to_string().contains("too few"));
        assert!(prepare(&s, &PrepareConfig { align: false, ..PrepareConfig::default() }).is_ok());
        s.push_decoded([f32::NAN, 0.0, 0.0], [0.01; 3], [1.0, 0.0, 0.0, 0.0], 0.5, [0.0; 3], &[]);
        assert!(prepare(&s, &PrepareConfig::default()).unwrap_err().to_string().contains("NaN"));
        for (cfg, word) in [
            (PrepareConfig { radius_pct: 0.0, ..PrepareConfig::default() }, "radius"),
            (PrepareConfig { max_extent_pct: 101.0, ..PrepareConfig::default() }, "extent"),
            (PrepareConfig { floater_std: -1.0, ..PrepareConfig::default() }, "floater"),
            (PrepareConfig { floater_std: f64::NAN, ..PrepareConfig::default() }, "floater"),
            (PrepareConfig { sh_degree: Some(4), ..PrepareConfig::default() }, "SH"),
            (PrepareConfig { up_hint: Some([0.0; 3]), ..PrepareConfig::default() }, "hint"),
            (PrepareConfig { band_pct: 60.0, ..PrepareConfig::default() }, "band"),
        ] {
            let e = prepare(&c.splats, &cfg).unwrap_err();
            assert!(e.to_string().contains(word), "{e}");
        }
    }

    #[test]
    fn sh_is_rotated_then_truncated_and_runs_are_deterministic() {
        let c = synth(&SynthParams { tilt_deg: 40.0, floaters: 60, ..params() }).unwrap();
        // Give the capture degree-1 SH to carry through.
        let mut s = Splats::new(1);
        for i in 0..c.splats.len() {
            let p = c.splats.positions()[i];
            s.push_raw(crate::model::RawSplat {
                position: p,
                log_scale: c.splats.log_scales()[i],
                rotation: c.splats.rotations_raw()[i],
                opacity_logit: c.splats.opacity_logits()[i],
                sh_dc: c.splats.sh_dc()[i],
                sh_rest: &[[0.1, 0.0, 0.0], [0.0, 0.2, 0.0], [0.0, 0.0, 0.3]],
            });
        }
        let a = prepare(&s, &PrepareConfig::default()).unwrap();
        assert_eq!(a.splats.sh_degree(), 1);
        assert_ne!(a.splats.sh_rest()[0][0], [0.1, 0.0, 0.0], "higher SH rotated with the capture");
        let b = prepare(&s, &PrepareConfig { sh_degree: Some(0), ..PrepareConfig::default() }).unwrap();
        assert_eq!((b.report.sh_degree_in, b.report.sh_degree_out), (1, 0));
        assert_eq!(b.splats.positions(), a.splats.positions());
        assert_eq!(prepare(&s, &PrepareConfig::default()).unwrap().splats, a.splats);
    }
}

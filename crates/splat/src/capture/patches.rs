//! Patch search (inventory §1.6): find square exemplar patches of ground in an aligned (z-up)
//! capture, score them, split them into two materials when asked, loosen the filters when too
//! few survive, and cache the result.
//!
//! # Search
//!
//! Candidate centres lie on a grid of step `size · stride` over the 2nd–98th percentile of the
//! ground-plane coordinates, from `lo + size/2` to `hi − size/2`. Each square of side `size`
//! (cut through a [`PlaneIndex`]) goes through these filters in order; the first that fails is
//! tallied in [`Rejections`]:
//!
//! 1. **sparse** — fewer than `min_splats` splats.
//! 2. **buried** — ground level `g` = centre of the tallest bin of a height histogram over
//!    p1–p99 (bins of `thickness/4`, at least 8); the *slab* keeps heights in
//!    `[g − t/4, g + t]` with `t = thickness · size`; more than `max_below` of the splats below
//!    the slab rejects.
//! 3. **tilt** — PCA plane of the slab; its normal more than `max_tilt` degrees off +z rejects.
//! 4. **score** — `cover · filled · flatness · ln(1 + density) / (1 + 20 · planarity) / landmark`
//!    with `cover` the fast coverage estimate, `filled` the occupied share of an 8 × 8 grid,
//!    `flatness = 1 / (1 + relief/size)` (relief = p95 − p5 of heights above the plane),
//!    `density` splats per unit², `landmark = 1 + max(0, salience − 4)/4`; a score ≤ 0 rejects.
//! 5. **holes** — the fast coverage (per 16 × 16 bin `1 − exp(−Σ π(2σ₁)(2σ₂)·opacity / bin
//!    area)`) below `min_cover − cover_margin`, or the rendered coverage (top-down alpha at
//!    80² by [`crate::raster`], on at most `screen_cap` splats with a per-pixel correction)
//!    below `min_cover`.
//! 6. **rim** — relief above the plane of the rim (the outer `edge_margin` of the half-size) above
//!    `edge_flat · size`: a rim that does not lie flat cannot meet a neighbouring tile.
//!
//! **Salience** (a stone, a marker, a footprint): per cell of a grid of about 12 splats per cell
//! (at most 16 × 16) with ≥ 6 splats, the mean luminance and the mean height above the plane;
//! robust z = |m − median| / (1.4826 · MAD); top = mean of the largest `max(2, round(3 %))` z;
//! share = fraction of z > 4; salience = `top · clamp((0.12 − share)/0.08, 0, 1)`, the larger of
//! the two. Plain texture measures 1–4, one spot tens; above 8 a candidate is flagged a
//! *landmark*. The score divides by `landmark`, so a landmark is rarely chosen and never
//! repeats as a lattice over the tiling.
//!
//! # Choice
//!
//! Survivors sorted by score (ties by position) are thinned greedily so chosen centres are at
//! least `min_separation · size` apart in x **or** y: the *pool*. With one class, `count`
//! patches are picked from the pool by [`select_similar`] (normalised score minus `similarity`
//! × appearance distance to the picks so far). Appearance is mean RGB, RGB spread and texture
//! energy (RMS difference of neighbouring cell luminances).
//!
//! **Class split** (two classes): the opacity-weighted mean colours of the cells of a 12 × 12
//! grid over every pool member are split by [`two_means`]; `separation` = distance between the
//! two colours / RMS distance of a cell to its colour (a unimodal colour distribution split in
//! two measures about 2.6, sand against scrub 12). Below `min_class_separation` the capture
//! holds one material and the split is refused ([`FailureKind::OneMaterial`]). Each candidate
//! joins the class most of its cells are nearer to, its **purity** being that share; the larger
//! class is class 0. Pool members below `min_purity` are dropped (tallied **impure**: patches
//! that straddle a boundary), then `count` per class are selected. (The original clusters whole
//! patches by appearance; patches that straddle a boundary sit between the two groups and blur
//! that split, while the cells of each patch stay clearly one material or the other.)
//!
//! # Loosening
//!
//! [`find_patches`] records each attempt in a trail: first the settings as given; if more
//! survived than could be chosen, `min_separation` 0.75 then 0.5 (re-choice only); then,
//! repeatedly, the filter with the largest tally is relaxed one step ([`RELAXATIONS`]: holes →
//! `min_cover`, tilt → `max_tilt`, buried → `max_below`, rim → `edge_flat`, impure →
//! `min_purity`) and the search re-run. It gives up after `max_steps` attempts or when nothing is
//! left to relax, saying the capture "is not a tiling exemplar".
//!
//! # Cache
//!
//! [`cache_key`] keys a result by a stamp of the capture's file (the caller's: `bozkir patches`
//! uses its size and modification time), a fingerprint of the splats and every setting (FNV-1a,
//! 16 hex digits); [`encode_entry`] and [`decode_entry`] turn a result into the text the caller
//! stores (`search_<key>.json` in a cache folder) and back. A corrupt entry decodes to nothing.
//! Numbers in a result are rounded to 7 significant digits so a recalled result equals the
//! computed one exactly.

use crate::capture::plane_index::{patch_indices, PlaneIndex};
use crate::capture::screen::{pca, percentiles};
use crate::model::Splats;
use crate::raster::{render_view, Shade, TopImage, View};
use serde::{Deserialize, Serialize};

/// Settings of a patch search. Lengths marked *(× size)* are fractions of the patch side.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SearchSettings {
    /// Patch side in scene units (metres).
    pub size: f64,
    /// Patches wanted per class.
    pub count: usize,
    /// 1, or 2 for a two-material split.
    pub classes: usize,
    /// Grid step between candidate centres *(× size)*.
    pub stride: f64,
    /// Slab thickness above the ground level *(× size)*.
    pub thickness: f64,
    /// Largest tilt of the patch plane, degrees.
    pub max_tilt: f64,
    /// Largest share of splats below the slab.
    pub max_below: f64,
    /// Fewest splats in a patch.
    pub min_splats: usize,
    /// Smallest rendered coverage.
    pub min_cover: f64,
    /// The fast coverage estimate may fall this far below `min_cover` before a render decides.
    pub cover_margin: f64,
    /// Largest rim relief *(× size)*.
    pub edge_flat: f64,
    /// Rim width as a share of the half-side.
    pub edge_margin: f64,
    /// Smallest distance between chosen centres in x or y *(× size)*.
    pub min_separation: f64,
    /// Weight of appearance similarity against score when choosing.
    pub similarity: f64,
    /// Smallest purity of a patch in a two-class split.
    pub min_purity: f64,
    /// Smallest class separation for a two-class split.
    pub min_class_separation: f64,
    /// Most splats rendered for the coverage check.
    pub screen_cap: usize,
    /// Most attempts of the loosening strategy.
    pub max_steps: usize,
}

impl Default for SearchSettings {
    fn default() -> Self {
        SearchSettings {
            size: 1.0,
            count: 4,
            classes: 1,
            stride: 0.5,
            thickness: 0.25,
            max_tilt: 12.0,
            max_below: 0.5,
            min_splats: 500,
            min_cover: 0.8,
            cover_margin: 0.1,
            edge_flat: 0.2,
            edge_margin: 0.22,
            min_separation: 1.0,
            similarity: 1.0,
            min_purity: 0.9,
            min_class_separation: 5.0,
            screen_cap: 4000,
            max_steps: 10,
        }
    }
}

impl SearchSettings {
    /// Problems with the settings, in words.
    pub fn check(&self) -> Result<(), String> {
        let pos = |n: &str, v: f64| {
            if v > 0.0 && v.is_finite() {
                Ok(())
            } else {
                Err(format!("{n} {v} must be a finite number above 0"))
            }
        };
        pos("size", self.size)?;
        pos("stride", self.stride)?;
        pos("thickness", self.thickness)?;
        pos("max_tilt", self.max_tilt)?;
        pos("edge_flat", self.edge_flat)?;
        for (n, v) in [
            ("max_below", self.max_below),
            ("min_cover", self.min_cover),
            ("edge_margin", self.edge_margin),
            ("min_purity", self.min_purity),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return Err(format!("{n} {v} must be in 0..1"));
            }
        }
        for (n, v) in [
            ("cover_margin", self.cover_margin),
            ("min_separation", self.min_separation),
            ("similarity", self.similarity),
            ("min_class_separation", self.min_class_separation),
        ] {
            if !(v >= 0.0 && v.is_finite()) {
                return Err(format!("{n} {v} must be a finite number ≥ 0"));
            }
        }
        if !(1..=2).contains(&self.classes) {
            return Err(format!("classes {}: the search splits into 1 or 2 materials", self.classes));
        }
        if self.count == 0 {
            return Err("count must be at least 1".into());
        }
        if self.max_steps == 0 || self.max_steps > 100 {
            return Err(format!("max_steps {} must be in 1..=100", self.max_steps));
        }
        if self.screen_cap < 100 {
            return Err(format!("screen_cap {} must be at least 100", self.screen_cap));
        }
        Ok(())
    }
}

/// How many candidate positions each filter rejected, and what became of the rest.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Rejections {
    /// Candidate positions examined.
    pub positions: usize,
    pub sparse: usize,
    pub buried: usize,
    pub tilt: usize,
    pub score: usize,
    pub holes: usize,
    pub rim: usize,
    /// Passed every filter.
    pub viable: usize,
    /// Viable and far enough apart.
    pub pool: usize,
    /// Pool members dropped for low purity (two classes).
    pub impure: usize,
    /// Chosen, all classes together.
    pub chosen: usize,
}

impl Rejections {
    /// The tally of a filter by name (0 for an unknown name).
    pub fn get(&self, filter: &str) -> usize {
        match filter {
            "sparse" => self.sparse,
            "buried" => self.buried,
            "tilt" => self.tilt,
            "score" => self.score,
            "holes" => self.holes,
            "rim" => self.rim,
            "impure" => self.impure,
            _ => 0,
        }
    }
}

/// One surviving candidate patch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// Centre on the ground plane.
    pub centre: [f64; 2],
    pub score: f64,
    /// Splats in the square / in the ground slab.
    pub splats: usize,
    pub slab: usize,
    /// Ground level (height of the tallest histogram bin).
    pub ground: f64,
    pub tilt_deg: f64,
    /// Share of splats below the slab.
    pub below: f64,
    pub planarity: f64,
    /// p95 − p5 of heights above the plane.
    pub relief: f64,
    /// The same over the rim.
    pub edge_relief: f64,
    pub filled: f64,
    /// Fast and rendered coverage.
    pub cover_estimate: f64,
    pub cover: f64,
    pub salience: f64,
    /// Salience above 8: a stone or a marker that would repeat visibly.
    pub landmark: bool,
    /// Mean RGB, RGB spread, texture energy.
    pub appearance: [f64; 7],
    /// Nearest class (two classes), for every candidate.
    pub class: Option<usize>,
    /// Purity against the class colours (pool members of a two-class split).
    pub purity: Option<f64>,
    pub chosen: bool,
}

/// One attempt of the loosening strategy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrailStep {
    /// "defaults", or the setting changed and the filter that asked for it.
    pub label: String,
    /// The setting changed and its new value (none for the first attempt).
    pub changed: Option<(String, f64)>,
    pub settings: SearchSettings,
    pub rejections: Rejections,
    /// Patches chosen at this attempt (all classes).
    pub chosen: usize,
}

/// A successful search.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PatchSearch {
    /// The settings that succeeded (the last of the trail).
    pub settings: SearchSettings,
    /// Every viable candidate, best score first.
    pub candidates: Vec<Candidate>,
    /// Indices into `candidates` per class.
    pub chosen: Vec<Vec<usize>>,
    /// Class separation (two classes).
    pub class_separation: Option<f64>,
    /// Mean colour per class (two classes).
    pub class_rgb: Vec<[f64; 3]>,
    pub rejections: Rejections,
    pub trail: Vec<TrailStep>,
}

/// Why a search failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// Settings out of range.
    BadSettings,
    /// Two classes asked of a capture that holds one material.
    OneMaterial,
    /// Too few patches even after loosening.
    NotATilingExemplar,
}

/// A failed search: the kind, a sentence and the attempts made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchFailure {
    pub kind: FailureKind,
    pub reason: String,
    pub trail: Vec<TrailStep>,
}

impl std::fmt::Display for SearchFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for SearchFailure {}

/// The loosening table: filter, setting, values in the order tried (looser each time).
pub const RELAXATIONS: &[(&str, &str, &[f64])] = &[
    ("holes", "min_cover", &[0.7, 0.6, 0.55]),
    ("tilt", "max_tilt", &[18.0, 25.0]),
    ("buried", "max_below", &[0.65, 0.8]),
    ("rim", "edge_flat", &[0.3, 0.45]),
    ("impure", "min_purity", &[0.8, 0.7]),
];

/// Separation values tried before any filter is loosened.
pub const SEPARATION_STEPS: &[f64] = &[0.75, 0.5];

/// Salience above which a candidate is a landmark.
pub const LANDMARK_SALIENCE: f64 = 8.0;

/// Round to 7 significant digits (see the module documentation, "Cache").
fn r7(v: f64) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return if v.is_finite() { 0.0 } else { v };
    }
    format!("{v:.6e}").parse().unwrap_or(v)
}

fn setting_mut<'a>(s: &'a mut SearchSettings, name: &str) -> &'a mut f64 {
    match name {
        "min_cover" => &mut s.min_cover,
        "max_tilt" => &mut s.max_tilt,
        "max_below" => &mut s.max_below,
        "edge_flat" => &mut s.edge_flat,
        "min_purity" => &mut s.min_purity,
        "min_separation" => &mut s.min_separation,
        _ => unreachable!("unknown setting {name}"),
    }
}

/// Whether `v` is looser than the current value of `setting`.
fn looser(setting: &str, current: f64, v: f64) -> bool {
    match setting {
        "max_tilt" | "max_below" | "edge_flat" => v > current,
        _ => v < current,
    }
}

// ---------------------------------------------------------------------------------------------
// Measurements.

/// Luminance weights (Rec. 601).
const LUMA: [f64; 3] = [0.299, 0.587, 0.114];

fn luma(c: [f32; 3]) -> f64 {
    LUMA[0] * f64::from(c[0]) + LUMA[1] * f64::from(c[1]) + LUMA[2] * f64::from(c[2])
}

/// Ground level: centre of the tallest bin of a histogram of heights over p1–p99, bins of
/// `thickness / 4` (at least 8).
pub fn ground_level(heights: &[f64], thickness: f64) -> f64 {
    if heights.is_empty() {
        return 0.0;
    }
    let mut h = heights.to_vec();
    let p = percentiles(&mut h, &[1.0, 99.0]);
    let (lo, hi) = (p[0], p[1]);
    if hi <= lo {
        return lo;
    }
    let bins = (((hi - lo) / (thickness / 4.0)) as usize).clamp(8, 100_000);
    let mut count = vec![0usize; bins];
    for &v in heights {
        if v >= lo && v <= hi {
            count[(((v - lo) / (hi - lo) * bins as f64) as usize).min(bins - 1)] += 1;
        }
    }
    let best = (0..bins).fold(0, |b, i| if count[i] > count[b] { i } else { b });
    lo + (best as f64 + 0.5) * (hi - lo) / bins as f64
}

/// Robust salience of per-cell values (see the module documentation); 0 with fewer than 16
/// cells.
fn robust_salience(vals: &[f64]) -> f64 {
    if vals.len() < 16 {
        return 0.0;
    }
    let mut v = vals.to_vec();
    let med = percentiles(&mut v, &[50.0])[0];
    let mut dev: Vec<f64> = vals.iter().map(|x| (x - med).abs()).collect();
    let mad = percentiles(&mut dev, &[50.0])[0].max(1e-4);
    let mut z: Vec<f64> = vals.iter().map(|x| (x - med).abs() / (1.4826 * mad)).collect();
    z.sort_by(|a, b| b.total_cmp(a));
    let k = ((0.03 * z.len() as f64).round() as usize).max(2);
    let top = z[..k].iter().sum::<f64>() / k as f64;
    let share = z.iter().filter(|&&x| x > 4.0).count() as f64 / z.len() as f64;
    top * ((0.12 - share) / 0.08).clamp(0.0, 1.0)
}

/// Per-cell sums over a `g × g` grid of the square `[c − h, c + h]²`.
struct CellGrid {
    g: usize,
    n: Vec<usize>,
    luma: Vec<f64>,
    height: Vec<f64>,
}

impl CellGrid {
    fn new(g: usize) -> CellGrid {
        CellGrid { g, n: vec![0; g * g], luma: vec![0.0; g * g], height: vec![0.0; g * g] }
    }
    fn cell(&self, d: [f64; 2], h: f64) -> usize {
        let f = |v: f64| (((v + h) / (2.0 * h) * self.g as f64).floor().max(0.0) as usize).min(self.g - 1);
        f(d[1]) * self.g + f(d[0])
    }
}

/// Measurements of one square, before the filters decide.
struct Cut {
    slab: Vec<usize>,
    ground: f64,
    below: f64,
}

/// The local frame of a patch: centre, plane (through `mean` with unit `normal`).
struct Plane {
    mean: [f64; 3],
    normal: [f64; 3],
    planarity: f64,
    tilt_deg: f64,
}

impl Plane {
    /// Height of `p` above the plane, measured along z.
    fn residual(&self, p: [f64; 3]) -> f64 {
        let n = self.normal;
        let nz = if n[2].abs() < 1e-6 { 1e-6 } else { n[2] };
        (p[2] - self.mean[2]) + (n[0] * (p[0] - self.mean[0]) + n[1] * (p[1] - self.mean[1])) / nz
    }
}

fn fit_plane(pts: &[[f64; 3]]) -> Plane {
    let (vals, vecs) = pca(pts);
    let mut normal = vecs[0];
    if normal[2] < 0.0 {
        normal = normal.map(|v| -v);
    }
    let n = pts.len().max(1) as f64;
    let mut mean = [0.0; 3];
    for p in pts {
        for a in 0..3 {
            mean[a] += p[a] / n;
        }
    }
    let planarity = if vals[2] > 0.0 { (vals[0] / vals[2]).max(0.0) } else { 0.0 };
    Plane { mean, normal, planarity, tilt_deg: normal[2].clamp(-1.0, 1.0).acos().to_degrees() }
}

/// p95 − p5 (0 for fewer than `min` values).
fn spread(v: &mut [f64], min: usize) -> f64 {
    if v.len() < min {
        return 0.0;
    }
    let p = percentiles(v, &[5.0, 95.0]);
    p[1] - p[0]
}

/// Fast coverage of the square by `idx`: per bin of a 16 × 16 grid,
/// `1 − exp(−Σ π(2σ₁)(2σ₂)·opacity / bin area)` over the splats whose centre is in the bin
/// (σ₁, σ₂ the two largest scales), averaged over bins.
pub fn coverage(s: &Splats, idx: &[usize], centre: [f64; 2], size: f64) -> f64 {
    const G: usize = 16;
    let h = size / 2.0;
    let grid = CellGrid::new(G);
    let mut area = vec![0.0f64; G * G];
    for &i in idx {
        let p = s.positions()[i];
        let d = [f64::from(p[0]) - centre[0], f64::from(p[1]) - centre[1]];
        if d[0].abs() > h || d[1].abs() > h {
            continue;
        }
        let mut sc = s.scales()[i].map(f64::from);
        sc.sort_by(|a, b| b.total_cmp(a));
        area[grid.cell(d, h)] += std::f64::consts::PI * (2.0 * sc[0]) * (2.0 * sc[1]) * f64::from(s.opacities()[i]);
    }
    let cell_area = (size / G as f64).powi(2);
    area.iter().map(|a| 1.0 - (-a / cell_area).exp()).sum::<f64>() / (G * G) as f64
}

/// Mean top-down alpha over the square at `res²` pixels, rendering at most `cap` splats (an
/// evenly strided subset, alpha corrected per pixel as `1 − (1 − min(α, 0.999))^(n/cap)`).
/// The render is [`crate::raster::render_view`] with [`Shade::AlphaOnly`].
pub fn rendered_coverage(s: &Splats, idx: &[usize], centre: [f64; 2], size: f64, res: usize, cap: usize) -> f64 {
    if idx.is_empty() {
        return 0.0;
    }
    let sub: Vec<usize> =
        if idx.len() > cap { (0..cap).map(|k| idx[k * idx.len() / cap]).collect() } else { idx.to_vec() };
    let img = render_view(s, &sub, &View::square(centre, size, res), Shade::AlphaOnly);
    let f = sub.len() as f64 / idx.len() as f64;
    img.alpha.iter().map(|&a| 1.0 - (1.0 - f64::from(a).min(0.999)).powf(1.0 / f)).sum::<f64>() / (res * res) as f64
}

/// Purity of a patch against class colours: share of the cells of a 12 × 12 grid (≥ 4 splats)
/// whose opacity-weighted mean colour is nearer `own` than every colour in `others`.
pub fn purity(s: &Splats, idx: &[usize], centre: [f64; 2], size: f64, own: [f64; 3], others: &[[f64; 3]]) -> f64 {
    let cells = cell_colours(s, idx, centre, size);
    if cells.is_empty() {
        return 0.0;
    }
    let good = cells.iter().filter(|m| others.iter().all(|o| dist(&m[..], &own) < dist(&m[..], o))).count();
    good as f64 / cells.len() as f64
}

enum Verdict {
    Reject(&'static str),
    Accept(Box<Candidate>),
}

fn measure(s: &Splats, idx: &[usize], centre: [f64; 2], st: &SearchSettings) -> Verdict {
    let size = st.size;
    let h = size / 2.0;
    if idx.len() < st.min_splats.max(3) {
        return Verdict::Reject("sparse");
    }
    let pos = s.positions();
    let t = st.thickness * size;
    let heights: Vec<f64> = idx.iter().map(|&i| f64::from(pos[i][2])).collect();
    let cut = {
        let g = ground_level(&heights, t);
        let below = heights.iter().filter(|&&z| z < g - 0.25 * t).count() as f64 / heights.len() as f64;
        let slab: Vec<usize> =
            idx.iter().zip(&heights).filter(|(_, &z)| z >= g - 0.25 * t && z <= g + t).map(|(&i, _)| i).collect();
        Cut { slab, ground: g, below }
    };
    if cut.below > st.max_below {
        return Verdict::Reject("buried");
    }
    if cut.slab.len() < 3 {
        return Verdict::Reject("sparse");
    }
    let local: Vec<[f64; 3]> = cut
        .slab
        .iter()
        .map(|&i| [f64::from(pos[i][0]) - centre[0], f64::from(pos[i][1]) - centre[1], f64::from(pos[i][2])])
        .collect();
    let plane = fit_plane(&local);
    if plane.tilt_deg > st.max_tilt {
        return Verdict::Reject("tilt");
    }
    let resid: Vec<f64> = local.iter().map(|p| plane.residual(*p)).collect();
    let relief = spread(&mut resid.clone(), 3);
    let rim_limit = h * (1.0 - st.edge_margin);
    let mut rim: Vec<f64> =
        local.iter().zip(&resid).filter(|(p, _)| p[0].abs().max(p[1].abs()) > rim_limit).map(|(_, &r)| r).collect();
    let edge_relief = spread(&mut rim, 50);

    // Cells: occupancy (8 × 8), luminance and height (16 × 16).
    let mut occ = [false; 64];
    // About 12 splats per cell or more, at most 16 × 16.
    let g = ((cut.slab.len() as f64 / 12.0).sqrt() as usize).clamp(4, 16);
    let mut cells = CellGrid::new(g);
    let (mut rgb_sum, mut rgb_sq) = ([0.0f64; 3], [0.0f64; 3]);
    for (k, &i) in cut.slab.iter().enumerate() {
        let d = [local[k][0], local[k][1]];
        let o = CellGrid::new(8).cell(d, h);
        occ[o] = true;
        let c = cells.cell(d, h);
        let rgb = s.base_rgb(i);
        cells.n[c] += 1;
        cells.luma[c] += luma(rgb);
        cells.height[c] += resid[k];
        for a in 0..3 {
            rgb_sum[a] += f64::from(rgb[a]);
            rgb_sq[a] += f64::from(rgb[a]).powi(2);
        }
    }
    let filled = occ.iter().filter(|&&o| o).count() as f64 / 64.0;
    let valid: Vec<usize> = (0..cells.n.len()).filter(|&c| cells.n[c] >= 6).collect();
    let lum: Vec<f64> = valid.iter().map(|&c| cells.luma[c] / cells.n[c] as f64).collect();
    let hgt: Vec<f64> = valid.iter().map(|&c| cells.height[c] / cells.n[c] as f64).collect();
    let salience = robust_salience(&lum).max(robust_salience(&hgt));
    // Texture energy: RMS luminance difference of horizontally and vertically adjacent cells.
    let (mut e, mut ne) = (0.0, 0usize);
    let mean_l = |c: usize| cells.luma[c] / cells.n[c] as f64;
    for y in 0..g {
        for x in 0..g {
            let c = y * g + x;
            if cells.n[c] < 6 {
                continue;
            }
            for nb in [(x + 1 < g).then(|| c + 1), (y + 1 < g).then(|| c + g)].into_iter().flatten() {
                if cells.n[nb] >= 6 {
                    e += (mean_l(c) - mean_l(nb)).powi(2);
                    ne += 1;
                }
            }
        }
    }
    let texture = if ne > 0 { (e / ne as f64).sqrt() } else { 0.0 };
    let n = cut.slab.len() as f64;
    let mean = rgb_sum.map(|v| v / n);
    let sd = [0, 1, 2].map(|a| (rgb_sq[a] / n - mean[a] * mean[a]).max(0.0).sqrt());

    let cover_estimate = coverage(s, &cut.slab, centre, size);
    let density = n / (size * size);
    let flatness = 1.0 / (1.0 + relief / size);
    let landmark = 1.0 + (salience - 4.0).max(0.0) / 4.0;
    let score = cover_estimate * filled * flatness * density.ln_1p() / (1.0 + 20.0 * plane.planarity) / landmark;
    if score.is_nan() || score <= 0.0 {
        return Verdict::Reject("score");
    }
    if cover_estimate < st.min_cover - st.cover_margin {
        return Verdict::Reject("holes");
    }
    let cover = rendered_coverage(s, &cut.slab, centre, size, 80, st.screen_cap);
    if cover < st.min_cover {
        return Verdict::Reject("holes");
    }
    if edge_relief > st.edge_flat * size {
        return Verdict::Reject("rim");
    }
    Verdict::Accept(Box::new(Candidate {
        centre: centre.map(r7),
        score: r7(score),
        splats: idx.len(),
        slab: cut.slab.len(),
        ground: r7(cut.ground),
        tilt_deg: r7(plane.tilt_deg),
        below: r7(cut.below),
        planarity: r7(plane.planarity),
        relief: r7(relief),
        edge_relief: r7(edge_relief),
        filled: r7(filled),
        cover_estimate: r7(cover_estimate),
        cover: r7(cover),
        salience: r7(salience),
        landmark: salience > LANDMARK_SALIENCE,
        appearance: [mean[0], mean[1], mean[2], sd[0], sd[1], sd[2], texture].map(r7),
        class: None,
        purity: None,
        chosen: false,
    }))
}

/// Candidate centres: a grid of step `size · stride` over the 2nd–98th percentile of x and y.
pub fn search_centres(s: &Splats, size: f64, stride: f64) -> Vec<[f64; 2]> {
    let mut axes = [Vec::new(), Vec::new()];
    for p in s.positions() {
        if p[0].is_finite() && p[1].is_finite() {
            axes[0].push(f64::from(p[0]));
            axes[1].push(f64::from(p[1]));
        }
    }
    if axes[0].is_empty() {
        return Vec::new();
    }
    let range = axes.map(|mut v| {
        let p = percentiles(&mut v, &[2.0, 98.0]);
        (p[0], p[1])
    });
    let step = size * stride;
    let ticks = |(lo, hi): (f64, f64)| -> Vec<f64> {
        let mut v = Vec::new();
        let mut k = 0usize;
        loop {
            let c = lo + size / 2.0 + k as f64 * step;
            if c > hi - size / 2.0 + 1e-6 || v.len() >= 4096 {
                break;
            }
            v.push(c);
            k += 1;
        }
        v
    };
    let (xs, ys) = (ticks(range[0]), ticks(range[1]));
    ys.iter().flat_map(|&y| xs.iter().map(move |&x| [x, y])).collect()
}

/// Every viable candidate (best score first; ties in grid order) and the rejection tallies.
fn scan(s: &Splats, index: &PlaneIndex, centres: &[[f64; 2]], st: &SearchSettings) -> (Vec<Candidate>, Rejections) {
    let mut rej = Rejections { positions: centres.len(), ..Rejections::default() };
    let mut out = Vec::new();
    for &c in centres {
        let idx = patch_indices(s, c, st.size, Some(index));
        match measure(s, &idx, c, st) {
            Verdict::Accept(cand) => out.push(*cand),
            Verdict::Reject(why) => match why {
                "sparse" => rej.sparse += 1,
                "buried" => rej.buried += 1,
                "tilt" => rej.tilt += 1,
                "score" => rej.score += 1,
                "holes" => rej.holes += 1,
                _ => rej.rim += 1,
            },
        }
    }
    // Stable sort: equal scores keep grid order.
    out.sort_by(|a, b| b.score.total_cmp(&a.score));
    rej.viable = out.len();
    (out, rej)
}

// ---------------------------------------------------------------------------------------------
// Choice.

fn dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum::<f64>().sqrt()
}

/// Greedy separation: candidates in order, each kept when its centre is at least `d` from every
/// kept one in x or y.
fn separated(cands: &[Candidate], d: f64) -> Vec<usize> {
    let mut kept: Vec<usize> = Vec::new();
    for (i, c) in cands.iter().enumerate() {
        let far = kept.iter().all(|&k| {
            let o = cands[k].centre;
            (c.centre[0] - o[0]).abs().max((c.centre[1] - o[1]).abs()) >= d - 1e-9
        });
        if far {
            kept.push(i);
        }
    }
    kept
}

/// Pick `k` of `members` (indices into `cands`): scores normalised by the largest; the seed
/// maximises `score − weight · |f − centroid|`, each next pick `score − weight · |f − mean of
/// the picks|`. Ties go to the earlier member. Returned in pick order.
pub fn select_similar(cands: &[Candidate], members: &[usize], k: usize, weight: f64) -> Vec<usize> {
    if members.is_empty() || k == 0 {
        return Vec::new();
    }
    let top = members.iter().map(|&i| cands[i].score).fold(f64::MIN, f64::max).max(1e-12);
    let f = |i: usize| cands[i].appearance;
    let mean_of = |set: &[usize]| {
        let mut m = [0.0; 7];
        for &i in set {
            for (a, v) in m.iter_mut().zip(f(i)) {
                *a += v / set.len() as f64;
            }
        }
        m
    };
    let mut left: Vec<usize> = members.to_vec();
    let mut picked: Vec<usize> = Vec::new();
    while picked.len() < k && !left.is_empty() {
        let target = if picked.is_empty() { mean_of(members) } else { mean_of(&picked) };
        let value = |i: usize| cands[i].score / top - weight * dist(&f(i), &target);
        let mut best = 0;
        for j in 1..left.len() {
            if value(left[j]) > value(left[best]) {
                best = j;
            }
        }
        picked.push(left.remove(best));
    }
    picked
}

/// Opacity-weighted mean colour of each cell of a 12 × 12 grid over the square holding at least
/// 4 splats.
pub fn cell_colours(s: &Splats, idx: &[usize], centre: [f64; 2], size: f64) -> Vec<[f64; 3]> {
    const G: usize = 12;
    let h = size / 2.0;
    let grid = CellGrid::new(G);
    let mut sum = vec![[0.0f64; 4]; G * G];
    let mut n = vec![0usize; G * G];
    for &i in idx {
        let p = s.positions()[i];
        let d = [f64::from(p[0]) - centre[0], f64::from(p[1]) - centre[1]];
        if d[0].abs() > h || d[1].abs() > h {
            continue;
        }
        let c = grid.cell(d, h);
        let w = f64::from(s.opacities()[i]).max(1e-6);
        let rgb = s.base_rgb(i);
        for k in 0..3 {
            sum[c][k] += w * f64::from(rgb[k]);
        }
        sum[c][3] += w;
        n[c] += 1;
    }
    (0..G * G)
        .filter(|&c| n[c] >= 4)
        .map(|c| [sum[c][0] / sum[c][3], sum[c][1] / sum[c][3], sum[c][2] / sum[c][3]])
        .collect()
}

/// Two-means of colours: seeds the colour farthest from the mean and the colour farthest from
/// that, at most 50 iterations (ties to the first centre). Returns the centres and the
/// separation `|c₀ − c₁| / RMS distance of a colour to its centre`.
pub fn two_means(cols: &[[f64; 3]]) -> ([[f64; 3]; 2], f64) {
    if cols.len() < 2 {
        return ([[0.0; 3]; 2], 0.0);
    }
    let n = cols.len() as f64;
    let mean = [0, 1, 2].map(|k| cols.iter().map(|c| c[k]).sum::<f64>() / n);
    let far = |from: [f64; 3]| {
        (0..cols.len()).fold(0, |b, i| if dist(&cols[i], &from) > dist(&cols[b], &from) { i } else { b })
    };
    let a = cols[far(mean)];
    let mut centres = [a, cols[far(a)]];
    let mut label = vec![usize::MAX; cols.len()];
    for _ in 0..50 {
        let new: Vec<usize> = cols.iter().map(|c| usize::from(dist(c, &centres[1]) < dist(c, &centres[0]))).collect();
        let mut m = [[0.0; 3]; 2];
        let mut k = [0usize; 2];
        for (c, &l) in cols.iter().zip(&new) {
            k[l] += 1;
            for a in 0..3 {
                m[l][a] += c[a];
            }
        }
        if k[0] == 0 || k[1] == 0 {
            break;
        }
        let changed = new != label;
        label = new;
        centres = [m[0].map(|v| v / k[0] as f64), m[1].map(|v| v / k[1] as f64)];
        if !changed {
            break;
        }
    }
    let ms = cols.iter().map(|c| dist(c, &centres[0]).min(dist(c, &centres[1])).powi(2)).sum::<f64>() / n;
    (centres, dist(&centres[0], &centres[1]) / ms.sqrt().max(1e-9))
}

/// Outcome of one choice over a scan.
struct Choice {
    chosen: Vec<Vec<usize>>,
    pool: usize,
    impure: usize,
    separation: Option<f64>,
    class_rgb: Vec<[f64; 3]>,
    /// Class and purity per candidate (two classes).
    labels: Vec<(Option<usize>, Option<f64>)>,
    /// A refusal that loosening cannot fix.
    refusal: Option<String>,
}

impl Choice {
    fn total(&self) -> usize {
        self.chosen.iter().map(Vec::len).sum()
    }
}

/// Fewest pool members for a class split to be judged.
const MIN_SPLIT_POOL: usize = 4;

fn choose(s: &Splats, index: &PlaneIndex, cands: &[Candidate], st: &SearchSettings) -> Choice {
    let pool = separated(cands, st.min_separation * st.size);
    let mut labels = vec![(None, None); cands.len()];
    if st.classes == 1 {
        let chosen = select_similar(cands, &pool, st.count, st.similarity);
        return Choice {
            chosen: vec![chosen],
            pool: pool.len(),
            impure: 0,
            separation: None,
            class_rgb: Vec::new(),
            labels,
            refusal: None,
        };
    }
    let empty = |pool: usize, labels| Choice {
        chosen: vec![Vec::new(), Vec::new()],
        pool,
        impure: 0,
        separation: None,
        class_rgb: Vec::new(),
        labels,
        refusal: None,
    };
    if pool.len() < MIN_SPLIT_POOL {
        return empty(pool.len(), labels);
    }
    // Colours of every cell of every pool member, split in two.
    let cuts: Vec<Vec<usize>> = cands.iter().map(|c| patch_indices(s, c.centre, st.size, Some(index))).collect();
    let cells: Vec<[f64; 3]> = pool.iter().flat_map(|&i| cell_colours(s, &cuts[i], cands[i].centre, st.size)).collect();
    let (mut centres, sep) = two_means(&cells);
    let separation = r7(sep);
    if sep < st.min_class_separation {
        let mut c = empty(pool.len(), labels);
        c.separation = Some(separation);
        c.refusal = Some(format!(
            "one material: the class separation of the {} candidates is {:.2}, below {} — the capture does not hold \
             two materials that look different; ask for one class",
            pool.len(),
            separation,
            st.min_class_separation
        ));
        return c;
    }
    // Each candidate joins the class most of its cells are nearer to; its purity is that share.
    let share0: Vec<f64> =
        cands.iter().zip(&cuts).map(|(c, idx)| purity(s, idx, c.centre, st.size, centres[0], &[centres[1]])).collect();
    let size0 = pool.iter().filter(|&&i| share0[i] >= 0.5).count();
    let flip = pool.len() - size0 > size0;
    if flip {
        centres.swap(0, 1);
    }
    for (i, &p0) in share0.iter().enumerate() {
        let (k, p) = if p0 >= 0.5 { (0, p0) } else { (1, 1.0 - p0) };
        let k = if flip { 1 - k } else { k };
        labels[i] = (Some(k), Some(r7(p)));
    }
    let class_rgb: Vec<[f64; 3]> = centres.iter().map(|c| c.map(r7)).collect();
    let mut impure = 0;
    let mut chosen = Vec::new();
    for k in 0..2 {
        let mut pure = Vec::new();
        for &i in &pool {
            if labels[i].0 != Some(k) {
                continue;
            }
            if labels[i].1.unwrap_or(0.0) >= st.min_purity {
                pure.push(i);
            } else {
                impure += 1;
            }
        }
        chosen.push(select_similar(cands, &pure, st.count, st.similarity));
    }
    Choice { chosen, pool: pool.len(), impure, separation: Some(separation), class_rgb, labels, refusal: None }
}

// ---------------------------------------------------------------------------------------------
// The loosening strategy.

fn step(
    label: String,
    changed: Option<(String, f64)>,
    st: &SearchSettings,
    rej: &Rejections,
    ch: &Choice,
) -> TrailStep {
    let mut r = rej.clone();
    r.pool = ch.pool;
    r.impure = ch.impure;
    r.chosen = ch.total();
    TrailStep { label, changed, settings: st.clone(), rejections: r, chosen: ch.total() }
}

fn worst(r: &Rejections) -> String {
    let mut v: Vec<(&str, usize)> =
        ["sparse", "buried", "tilt", "score", "holes", "rim", "impure"].iter().map(|&f| (f, r.get(f))).collect();
    v.retain(|x| x.1 > 0);
    v.sort_by_key(|x| std::cmp::Reverse(x.1));
    if v.is_empty() {
        return "no filter rejected anything; the capture is smaller than a few patches".into();
    }
    let parts: Vec<String> = v.iter().map(|(f, n)| format!("{f} {n}")).collect();
    format!("rejected: {}", parts.join(", "))
}

/// Search `s` (z-up) for patches with `settings`, loosening as described in the module
/// documentation. Deterministic.
pub fn find_patches(s: &Splats, settings: &SearchSettings) -> Result<PatchSearch, SearchFailure> {
    let fail = |kind, reason: String, trail: Vec<TrailStep>| Err(SearchFailure { kind, reason, trail });
    if let Err(e) = settings.check() {
        return fail(FailureKind::BadSettings, format!("bad settings: {e}"), Vec::new());
    }
    let index = PlaneIndex::new(s, settings.size / 2.0);
    let centres = search_centres(s, settings.size, settings.stride);
    let mut st = settings.clone();
    let mut relax: Vec<(&str, &str, Vec<f64>)> = RELAXATIONS.iter().map(|(f, k, v)| (*f, *k, v.to_vec())).collect();
    let mut sep_steps: Vec<f64> = SEPARATION_STEPS.to_vec();
    let (mut cands, mut rej) = scan(s, &index, &centres, &st);
    let mut trail: Vec<TrailStep> = Vec::new();
    let mut label = "defaults".to_string();
    let mut changed: Option<(String, f64)> = None;
    loop {
        let ch = choose(s, &index, &cands, &st);
        trail.push(step(label.clone(), changed.clone(), &st, &rej, &ch));
        if let Some(why) = ch.refusal {
            return fail(FailureKind::OneMaterial, why, trail);
        }
        let enough = ch.chosen.iter().all(|g| g.len() >= st.count);
        if enough {
            let mut candidates = cands;
            for (i, (class, purity)) in ch.labels.iter().enumerate() {
                candidates[i].class = *class;
                candidates[i].purity = *purity;
            }
            for g in &ch.chosen {
                for &i in g {
                    candidates[i].chosen = true;
                }
            }
            let rejections = trail.last().expect("one step at least").rejections.clone();
            return Ok(PatchSearch {
                settings: st,
                candidates,
                chosen: ch.chosen,
                class_separation: ch.separation,
                class_rgb: ch.class_rgb,
                rejections,
                trail,
            });
        }
        if trail.len() >= st.max_steps {
            return Err(give_up(trail, "the attempt limit was reached;", &st));
        }
        // 1. Closer patches, if more survived than could be chosen.
        if rej.viable > ch.total() {
            if let Some(pos) = sep_steps.iter().position(|&v| v < st.min_separation) {
                let v = sep_steps[pos];
                sep_steps.drain(..=pos);
                st.min_separation = v;
                label = format!("min_separation {v}");
                changed = Some(("min_separation".into(), v));
                continue;
            }
        }
        // 2. The filter that rejects most, one step looser.
        let tally = |f: &str| if f == "impure" { ch.impure } else { rej.get(f) };
        let mut pick: Option<usize> = None;
        for (k, (f, key, vals)) in relax.iter_mut().enumerate() {
            let cur = *setting_mut(&mut st, key);
            vals.retain(|&v| looser(key, cur, v));
            if vals.is_empty() || tally(f) == 0 {
                continue;
            }
            if pick.is_none_or(|p| tally(f) > tally(relax_name(p))) {
                pick = Some(k);
            }
        }
        let Some(k) = pick else {
            return Err(give_up(trail, "nothing left to loosen;", &st));
        };
        let (f, key, vals) = &mut relax[k];
        let v = vals.remove(0);
        *setting_mut(&mut st, key) = v;
        label = format!("{key} {v} ({f} rejected {})", tally(f));
        changed = Some(((*key).to_string(), v));
        if *f != "impure" {
            (cands, rej) = scan(s, &index, &centres, &st);
        }
    }
}

fn give_up(trail: Vec<TrailStep>, why: &str, st: &SearchSettings) -> SearchFailure {
    let last = trail.last().expect("one step at least");
    let reason = format!(
        "not a tiling exemplar: {why} after {} attempt(s) only {} of {} patch(es){} found ({} positions, {} viable; {})",
        trail.len(),
        last.chosen,
        st.count * st.classes,
        if st.classes == 2 { format!(" ({} per class)", st.count) } else { String::new() },
        last.rejections.positions,
        last.rejections.viable,
        worst(&last.rejections)
    );
    SearchFailure { kind: FailureKind::NotATilingExemplar, reason, trail }
}

fn relax_name(k: usize) -> &'static str {
    RELAXATIONS[k].0
}

/// The loosening trail as lines for people: each attempt with the flag to repeat it by hand.
pub fn describe_trail(trail: &[TrailStep]) -> Vec<String> {
    trail
        .iter()
        .enumerate()
        .map(|(k, t)| {
            let flag = t.changed.as_ref().map(|(n, v)| format!(" → --{} {v}", n.replace('_', "-"))).unwrap_or_default();
            format!(
                "{}. {}{flag}: {} viable of {}, {} chosen",
                k + 1,
                t.label,
                t.rejections.viable,
                t.rejections.positions,
                t.chosen
            )
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Cache.

/// Version of the cache entries; older entries miss.
pub const CACHE_VERSION: u32 = 1;

fn fnv1a(bytes: &[u8], mut h: u64) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

const FNV_OFFSET: u64 = 0xCBF2_9CE4_8422_2325;

/// Fingerprint of a splat set: its count and the centres of 4096 evenly spaced splats.
pub fn scene_fingerprint(s: &Splats) -> u64 {
    let n = s.len();
    let mut h = fnv1a(format!("{n}|").as_bytes(), FNV_OFFSET);
    let k = n.min(4096);
    for j in 0..k {
        let p = s.positions()[j * n / k];
        for v in p {
            h = fnv1a(&v.to_bits().to_le_bytes(), h);
        }
    }
    h
}

/// The cache key (16 hex digits) of a search of `s`, loaded from a file with `stamp`
/// ([`file_stamp`]; any string for splats not from a file), with `settings`.
pub fn cache_key(stamp: &str, s: &Splats, settings: &SearchSettings) -> String {
    let text = format!(
        "v={CACHE_VERSION}|{stamp}|scene={:016x}|{}",
        scene_fingerprint(s),
        serde_json::to_string(settings).expect("settings serialise")
    );
    format!("{:016x}", fnv1a(text.as_bytes(), FNV_OFFSET))
}

#[derive(Serialize, Deserialize)]
struct CacheEntry {
    version: u32,
    key: String,
    result: PatchSearch,
}

/// The text of a cache entry holding `r` under `key` (JSON; the caller stores it, by
/// convention as `search_<key>.json` in a cache folder).
pub fn encode_entry(key: &str, r: &PatchSearch) -> serde_json::Result<String> {
    let e = CacheEntry { version: CACHE_VERSION, key: key.to_string(), result: r.clone() };
    serde_json::to_string(&e)
}

/// The result held by a cache entry's text; `None` when it is corrupt, of another version or
/// of another key.
pub fn decode_entry(text: &str, key: &str) -> Option<PatchSearch> {
    let e: CacheEntry = serde_json::from_str(text).ok()?;
    (e.version == CACHE_VERSION && e.key == key).then_some(e.result)
}

// ---------------------------------------------------------------------------------------------
// The contact sheet (rendered with [`crate::raster`]).

/// An 8-bit RGB image, row-major from the top.
pub struct Sheet {
    pub w: usize,
    pub h: usize,
    pub rgb: Vec<[u8; 3]>,
}

impl Sheet {
    fn new(w: usize, h: usize, bg: [u8; 3]) -> Sheet {
        Sheet { w, h, rgb: vec![bg; w * h] }
    }
    fn put(&mut self, x: i64, y: i64, c: [u8; 3]) {
        if x >= 0 && y >= 0 && (x as usize) < self.w && (y as usize) < self.h {
            self.rgb[y as usize * self.w + x as usize] = c;
        }
    }
    fn rect(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, c: [u8; 3], width: i64) {
        for t in 0..width {
            for x in x0..=x1 {
                self.put(x, y0 + t, c);
                self.put(x, y1 - t, c);
            }
            for y in y0..=y1 {
                self.put(x0 + t, y, c);
                self.put(x1 - t, y, c);
            }
        }
    }
    fn fill(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, c: [u8; 3]) {
        for y in y0..=y1 {
            for x in x0..=x1 {
                self.put(x, y, c);
            }
        }
    }
    /// Digits in a 3 × 5 font scaled by `k`, on a black box.
    fn number(&mut self, x: i64, y: i64, n: usize, k: i64, c: [u8; 3]) {
        const FONT: [[u8; 5]; 10] = [
            [7, 5, 5, 5, 7],
            [2, 6, 2, 2, 7],
            [7, 1, 7, 4, 7],
            [7, 1, 7, 1, 7],
            [5, 5, 7, 1, 1],
            [7, 4, 7, 1, 7],
            [7, 4, 7, 5, 7],
            [7, 1, 1, 1, 1],
            [7, 5, 7, 5, 7],
            [7, 5, 7, 1, 7],
        ];
        let digits: Vec<usize> = n.to_string().bytes().map(|b| usize::from(b - b'0')).collect();
        let wd = digits.len() as i64 * 4 * k + k;
        self.fill(x, y, x + wd - 1, y + 7 * k - 1, [0, 0, 0]);
        for (j, &d) in digits.iter().enumerate() {
            for (row, bits) in FONT[d].iter().enumerate() {
                for col in 0..3 {
                    if bits & (4 >> col) != 0 {
                        let (gx, gy) = (x + k + (j as i64 * 4 + col) * k, y + k + row as i64 * k);
                        self.fill(gx, gy, gx + k - 1, gy + k - 1, c);
                    }
                }
            }
        }
    }
    fn blit(&mut self, img: &TopImage, x0: usize, y0: usize, bg: [f32; 3]) {
        let px = img.to_rgb8(bg);
        for y in 0..img.h {
            for x in 0..img.w {
                self.put((x0 + x) as i64, (y0 + y) as i64, px[y * img.w + x]);
            }
        }
    }
}

/// Colour of a class's frame (and of the overview boxes).
pub const CLASS_COLOURS: [[u8; 3]; 2] = [[255, 160, 0], [0, 200, 255]];
const GREY: [u8; 3] = [110, 110, 110];
const RED: [u8; 3] = [230, 30, 30];

/// A contact sheet: on the left the whole capture from above with every candidate's square
/// (chosen ones framed in their class colour, numbered), on the right a grid of the first
/// `max_tiles` candidates at `tile` px each, numbered by their index in `r.candidates`, framed
/// in the class colour when chosen (grey otherwise), with a red corner mark on landmarks.
pub fn contact_sheet(s: &Splats, r: &PatchSearch, tile: usize, max_tiles: usize) -> Sheet {
    let tile = tile.clamp(32, 512);
    let size = r.settings.size;
    let index = PlaneIndex::new(s, size / 2.0);
    let shown = r.candidates.len().min(max_tiles);
    let cols = (shown as f64).sqrt().ceil().max(1.0) as usize;
    let rows = shown.div_ceil(cols).max(1);
    let gap = 6;
    let over_px = (rows * (tile + gap)).max(2 * tile + gap).max(256);
    // Overview: the 1st–99th percentile square of the capture.
    let mut xs: Vec<f64> = s.positions().iter().filter(|p| p[0].is_finite()).map(|p| f64::from(p[0])).collect();
    let mut ys: Vec<f64> = s.positions().iter().filter(|p| p[1].is_finite()).map(|p| f64::from(p[1])).collect();
    let (bx, by) = if xs.is_empty() {
        ((0.0, 1.0), (0.0, 1.0))
    } else {
        let (px, py) = (percentiles(&mut xs, &[1.0, 99.0]), percentiles(&mut ys, &[1.0, 99.0]));
        ((px[0], px[1]), (py[0], py[1]))
    };
    let span = (bx.1 - bx.0).max(by.1 - by.0).max(size) * 1.05;
    let (cx, cy) = ((bx.0 + bx.1) / 2.0, (by.0 + by.1) / 2.0);
    let over = View { x0: cx - span / 2.0, y1: cy + span / 2.0, px: span / over_px as f64, w: over_px, h: over_px };
    let w = over_px + gap + cols * (tile + gap) + gap;
    let h = over_px.max(rows * (tile + gap)) + 2 * gap;
    let mut sheet = Sheet::new(w, h, [24, 24, 24]);
    let all: Vec<usize> = (0..s.len()).collect();
    let img = render_view(s, &all, &over, Shade::Colour);
    sheet.blit(&img, gap, gap, [0.1, 0.1, 0.1]);
    let to_px = |x: f64, y: f64| {
        (gap as i64 + ((x - over.x0) / over.px).round() as i64, gap as i64 + ((over.y1 - y) / over.px).round() as i64)
    };
    let frame = |c: &Candidate| match (c.chosen, c.class) {
        (true, Some(k)) => CLASS_COLOURS[k.min(1)],
        (true, None) => CLASS_COLOURS[0],
        _ => GREY,
    };
    // Unchosen first so chosen frames are drawn on top.
    for pass in [false, true] {
        for (i, c) in r.candidates.iter().enumerate().filter(|(_, c)| c.chosen == pass) {
            let (x0, y0) = to_px(c.centre[0] - size / 2.0, c.centre[1] + size / 2.0);
            let (x1, y1) = to_px(c.centre[0] + size / 2.0, c.centre[1] - size / 2.0);
            sheet.rect(x0, y0, x1, y1, frame(c), if pass { 2 } else { 1 });
            if pass {
                sheet.number(x0 + 3, y0 + 3, i, 2, [255, 255, 255]);
            }
            if c.landmark {
                sheet.fill(x1 - 6, y0 + 1, x1 - 1, y0 + 6, RED);
            }
        }
    }
    for (i, c) in r.candidates.iter().take(shown).enumerate() {
        let (col, row) = (i % cols, i / cols);
        let (x0, y0) = (over_px + 2 * gap + col * (tile + gap), gap + row * (tile + gap));
        let v = View::square(c.centre, size, tile);
        let idx = patch_indices(s, c.centre, size, Some(&index));
        sheet.blit(&render_view(s, &idx, &v, Shade::Colour), x0, y0, [0.1, 0.1, 0.1]);
        let (x0, y0, x1, y1) = (x0 as i64, y0 as i64, (x0 + tile - 1) as i64, (y0 + tile - 1) as i64);
        sheet.rect(x0, y0, x1, y1, frame(c), if c.chosen { 3 } else { 1 });
        sheet.number(x0 + 4, y0 + 4, i, 2, [255, 255, 255]);
        if c.landmark {
            for t in 0..12 {
                sheet.fill(x1 - 12 + t, y0 + 1, x1 - 1, y0 + 1 + (12 - t) / 2, RED);
            }
        }
    }
    sheet
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::{synth, Capture, Material, SynthParams};

    fn ground(materials: Vec<Material>, seed: u32) -> Capture {
        synth(&SynthParams { side_m: 4.0, density: 4000.0, materials, seed, ..SynthParams::default() }).unwrap()
    }

    fn settings() -> SearchSettings {
        SearchSettings { size: 0.5, ..SearchSettings::default() }
    }

    #[test]
    fn patches_clean_ground_found_without_loosening() {
        let c = ground(vec![Material::sand()], 1);
        let st = settings();
        let r = find_patches(&c.splats, &st).unwrap();
        assert_eq!(r.trail.len(), 1, "{:?}", describe_trail(&r.trail));
        assert_eq!(r.trail[0].label, "defaults");
        assert_eq!(r.settings, st);
        assert_eq!(r.chosen.len(), 1);
        assert_eq!(r.chosen[0].len(), 4);
        let ch: Vec<&Candidate> = r.chosen[0].iter().map(|&i| &r.candidates[i]).collect();
        for (a, x) in ch.iter().enumerate() {
            assert!(x.chosen && x.cover >= 0.8 && x.tilt_deg < 12.0 && !x.landmark, "{x:?}");
            for y in &ch[a + 1..] {
                let d = (x.centre[0] - y.centre[0]).abs().max((x.centre[1] - y.centre[1]).abs());
                assert!(d >= 0.5 - 1e-9, "separation {d}");
            }
        }
        let rj = &r.rejections;
        assert_eq!(rj.positions, 196);
        assert_eq!(rj.sparse + rj.buried + rj.tilt + rj.score + rj.holes + rj.rim + rj.viable, rj.positions);
        assert!(r.candidates.windows(2).all(|w| w[0].score >= w[1].score));
        // Plain texture is not salient.
        assert!(
            r.candidates.iter().all(|c| c.salience < 6.0),
            "{:?}",
            r.candidates.iter().map(|c| c.salience).fold(0.0, f64::max)
        );
    }

    /// Ground with `n` round holes of radius `r` punched at random.
    fn holed(n: usize, r: f64) -> Splats {
        let c = ground(vec![Material::sand()], 3);
        let mut rng = bozkir_core::rng::Rng::new(99);
        let holes: Vec<[f64; 2]> = (0..n).map(|_| [rng.range(-2.0, 2.0), rng.range(-2.0, 2.0)]).collect();
        let ix = PlaneIndex::new(&c.splats, 0.1);
        let mut keep = vec![true; c.splats.len()];
        for h in &holes {
            for i in ix.candidates(*h, 2.0 * r) {
                let p = c.splats.positions()[i];
                if (f64::from(p[0]) - h[0]).hypot(f64::from(p[1]) - h[1]) < r {
                    keep[i] = false;
                }
            }
        }
        c.splats.subset_mask(&keep)
    }

    #[test]
    fn patches_holed_ground_needs_looser_cover_and_says_why() {
        // Fewer splats per patch than the default minimum remain; the holes are what matters here.
        let r = find_patches(&holed(1500, 0.05), &SearchSettings { min_splats: 300, ..settings() }).unwrap();
        eprintln!("holed:\n  {}", describe_trail(&r.trail).join("\n  "));
        assert!(r.trail.len() > 1, "{:?}", describe_trail(&r.trail));
        let first = &r.trail[0].rejections;
        assert!(first.holes > 0 && first.holes >= first.rim.max(first.sparse).max(first.tilt), "{first:?}");
        assert!(r.settings.min_cover < 0.8, "{}", r.settings.min_cover);
        let step = r.trail.iter().find(|t| t.changed.as_ref().is_some_and(|c| c.0 == "min_cover")).unwrap();
        assert!(step.label.contains("holes rejected"), "{}", step.label);
        // The last step is the one that succeeded, with the settings returned.
        assert_eq!(r.trail.last().unwrap().settings, r.settings);
        assert_eq!(r.chosen[0].len(), 4);
        assert!(describe_trail(&r.trail).iter().any(|l| l.contains("--min-cover")));
    }

    #[test]
    fn patches_hopeless_scenes_give_up_with_the_reason() {
        // A noise cloud: splats anywhere in a 4 m cube.
        let mut rng = bozkir_core::rng::Rng::new(5);
        let mut noise = Splats::new(0);
        for _ in 0..60_000 {
            let p = [rng.range(-2.0, 2.0), rng.range(-2.0, 2.0), rng.range(-2.0, 2.0)].map(|v| v as f32);
            noise.push_decoded(p, [0.01; 3], [1.0, 0.0, 0.0, 0.0], 0.9, [0.1, 0.2, 0.3], &[]);
        }
        // A figurine-like blob: the shell of an upright ellipsoid.
        let mut blob = Splats::new(0);
        for _ in 0..40_000 {
            let (u, v) = (rng.range(-1.0, 1.0), rng.range(0.0, std::f64::consts::TAU));
            let r = (1.0 - u * u).sqrt();
            let p = [0.5 * r * v.cos(), 0.5 * r * v.sin(), 0.8 * u].map(|v| v as f32);
            blob.push_decoded(p, [0.01, 0.01, 0.004], [1.0, 0.0, 0.0, 0.0], 0.9, [0.3, 0.0, -0.2], &[]);
        }
        for (name, s) in [("noise", &noise), ("blob", &blob)] {
            let e = find_patches(s, &settings()).unwrap_err();
            eprintln!("{name}: {e}\n  {}", describe_trail(&e.trail).join("\n  "));
            assert_eq!(e.kind, FailureKind::NotATilingExemplar, "{name}: {e}");
            assert!(e.reason.contains("not a tiling exemplar"), "{name}: {e}");
            assert!(e.reason.contains("rejected:") || e.reason.contains("smaller"), "{name}: {e}");
            assert!(!e.trail.is_empty() && e.trail.len() < 12, "{name}: {}", e.trail.len());
        }
    }

    /// Share of a patch's splats from its majority material, and that material.
    fn label_purity(c: &Capture, centre: [f64; 2], size: f64) -> (f64, u8) {
        let idx = patch_indices(&c.splats, centre, size, None);
        let ones = idx.iter().filter(|&&i| c.material[i] == 1).count() as f64 / idx.len() as f64;
        if ones >= 0.5 {
            (ones, 1)
        } else {
            (1.0 - ones, 0)
        }
    }

    #[test]
    fn patches_class_split_two_materials_into_pure_groups() {
        let c = ground(vec![Material::sand(), Material::scrub()], 2);
        let st = SearchSettings { classes: 2, ..settings() };
        let r = find_patches(&c.splats, &st).unwrap();
        assert_eq!(r.chosen.len(), 2);
        let sep = r.class_separation.unwrap();
        assert!(sep > 5.0, "separation {sep}");
        let mut majority = Vec::new();
        for (k, g) in r.chosen.iter().enumerate() {
            assert_eq!(g.len(), 4, "class {k}");
            let mats: Vec<u8> = g
                .iter()
                .map(|&i| {
                    let x = &r.candidates[i];
                    assert_eq!(x.class, Some(k));
                    assert!(x.purity.unwrap() >= 0.9);
                    let (p, m) = label_purity(&c, x.centre, st.size);
                    assert!(p > 0.9, "class {k} candidate {i}: {p}");
                    m
                })
                .collect();
            assert!(mats.iter().all(|&m| m == mats[0]), "class {k} mixes materials {mats:?}");
            majority.push(mats[0]);
        }
        assert_ne!(majority[0], majority[1]);
        // One class is dark (scrub), the other pale (sand).
        let lum = |c: [f64; 3]| c.iter().sum::<f64>() / 3.0;
        let (a, b) = (lum(r.class_rgb[0]), lum(r.class_rgb[1]));
        assert!(a.min(b) < 0.3 && a.max(b) > 0.4, "{a} {b}");
    }

    #[test]
    fn patches_one_material_asked_for_two_is_refused() {
        let c = ground(vec![Material::sand()], 1);
        let e = find_patches(&c.splats, &SearchSettings { classes: 2, ..settings() }).unwrap_err();
        assert_eq!(e.kind, FailureKind::OneMaterial, "{e}");
        assert!(e.reason.contains("one material") && e.reason.contains("separation"), "{e}");
        assert_eq!(e.trail.len(), 1);
    }

    #[test]
    fn patches_settings_reproduce_the_candidate_list_exactly() {
        let c = ground(vec![Material::sand(), Material::scrub()], 4);
        let st = SearchSettings { classes: 2, ..settings() };
        let a = find_patches(&c.splats, &st).unwrap();
        let b = find_patches(&c.splats, &st).unwrap();
        assert_eq!(a, b);
        let d = find_patches(&c.splats, &SearchSettings { stride: 0.4, ..st }).unwrap();
        assert_ne!(a.candidates.len(), d.candidates.len());
    }

    #[test]
    fn patches_cache_entries_round_trip_and_keys_follow_their_inputs() {
        let c = ground(vec![Material::sand()], 1);
        let st = settings();
        let a = find_patches(&c.splats, &st).unwrap();
        let key = cache_key("bytes=1|mtime_ns=2", &c.splats, &st);
        let text = encode_entry(&key, &a).unwrap();
        assert_eq!(decode_entry(&text, &key).unwrap(), a, "a recalled result equals the computed one");
        assert!(decode_entry(&text, "0000000000000000").is_none());
        assert!(decode_entry("{\"version\": 1, \"key\": ", &key).is_none());
        // Changed settings, a touched file or other splats change the key.
        let looser = SearchSettings { min_cover: 0.7, ..st.clone() };
        assert_ne!(cache_key("bytes=1|mtime_ns=2", &c.splats, &looser), key);
        assert_ne!(cache_key("bytes=1|mtime_ns=3", &c.splats, &st), key);
        let other = ground(vec![Material::sand()], 2);
        assert_ne!(cache_key("x", &c.splats, &st), cache_key("x", &other.splats, &st));
    }

    #[test]
    fn patches_landmark_is_flagged_and_penalised() {
        let c = ground(vec![Material::sand()], 1);
        let st = settings();
        let centre = search_centres(&c.splats, st.size, st.stride)[100];
        let mut stone = c.splats.clone();
        let mut rng = bozkir_core::rng::Rng::new(3);
        for _ in 0..80 {
            let (r, a) = (0.03 * rng.next_f64().sqrt(), rng.range(0.0, std::f64::consts::TAU));
            let p = [centre[0] + 0.08 + r * a.cos(), centre[1] - 0.05 + r * a.sin(), 0.03].map(|v| v as f32);
            stone.push_decoded(
                p,
                [0.008, 0.008, 0.003],
                [1.0, 0.0, 0.0, 0.0],
                0.95,
                crate::capture::rgb_to_dc([0.95; 3]),
                &[],
            );
        }
        let cand = |s: &Splats| match measure(s, &patch_indices(s, centre, st.size, None), centre, &st) {
            Verdict::Accept(c) => *c,
            Verdict::Reject(w) => panic!("rejected: {w}"),
        };
        let (plain, marked) = (cand(&c.splats), cand(&stone));
        assert!(plain.salience < 4.0 && !plain.landmark, "{}", plain.salience);
        assert!(marked.salience > 20.0 && marked.landmark, "{}", marked.salience);
        assert!(marked.score < plain.score / 3.0, "{} vs {}", marked.score, plain.score);
    }

    #[test]
    fn patches_contact_sheet_frames_classes() {
        let c = ground(vec![Material::sand(), Material::scrub()], 2);
        let r = find_patches(&c.splats, &SearchSettings { classes: 2, ..settings() }).unwrap();
        let sheet = contact_sheet(&c.splats, &r, 64, 16);
        assert_eq!(sheet.rgb.len(), sheet.w * sheet.h);
        assert!(sheet.w > 256 + 4 * 64 && sheet.h >= 256);
        for colour in CLASS_COLOURS {
            assert!(sheet.rgb.iter().filter(|&&p| p == colour).count() > 100, "{colour:?}");
        }
        // The rendered ground is mostly opaque sand and scrub, not background.
        let bg = sheet.rgb.iter().filter(|&&p| p == [24, 24, 24]).count() as f64 / sheet.rgb.len() as f64;
        assert!(bg < 0.4, "{bg}");
    }
}

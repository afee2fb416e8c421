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

/// Smallest `stride` (× size) [`SearchSettings::check`] accepts: a finer grid only repeats
/// candidates, and a stride near 0 would make up to 4096² of them.
pub const MIN_STRIDE: f64 = 0.02;

/// Why [`SearchSettings::check`] rejected the settings; each message is the one the command
/// line prints.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SettingsError {
    /// A setting that must be a finite number above 0 is not.
    #[error("{name} {value} must be a finite number above 0")]
    NotPositive { name: &'static str, value: f64 },
    /// The stride is below [`MIN_STRIDE`].
    #[error("stride {0} must be at least 0.02 (× size)")]
    Stride(f64),
    /// A share that must lie in 0..=1 does not.
    #[error("{name} {value} must be in 0..1")]
    NotShare { name: &'static str, value: f64 },
    /// A setting that must be a finite number ≥ 0 is not.
    #[error("{name} {value} must be a finite number ≥ 0")]
    Negative { name: &'static str, value: f64 },
    /// The search splits into other than 1 or 2 materials.
    #[error("classes {0}: the search splits into 1 or 2 materials")]
    Classes(usize),
    /// Zero patches asked for.
    #[error("count must be at least 1")]
    Count,
    /// The step limit is outside 1..=100.
    #[error("max_steps {0} must be in 1..=100")]
    MaxSteps(usize),
    /// The screening cap is below 100.
    #[error("screen_cap {0} must be at least 100")]
    ScreenCap(usize),
}

impl SearchSettings {
    /// Problems with the settings, in words.
    pub fn check(&self) -> Result<(), SettingsError> {
        let pos = |name: &'static str, value: f64| {
            if value > 0.0 && value.is_finite() {
                Ok(())
            } else {
                Err(SettingsError::NotPositive { name, value })
            }
        };
        pos("size", self.size)?;
        pos("stride", self.stride)?;
        if self.stride < MIN_STRIDE {
            return Err(SettingsError::Stride(self.stride));
        }
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
                return Err(SettingsError::NotShare { name: n, value: v });
            }
        }
        for (n, v) in [
            ("cover_margin", self.cover_margin),
            ("min_separation", self.min_separation),
            ("similarity", self.similarity),
            ("min_class_separation", self.min_class_separation),
        ] {
            if !(v >= 0.0 && v.is_finite()) {
                return Err(SettingsError::Negative { name: n, value: v });
            }
        }
        if !(1..=2).contains(&self.classes) {
            return Err(SettingsError::Classes(self.classes));
        }
        if self.count == 0 {
            return Err(SettingsError::Count);
        }
        if self.max_steps == 0 || self.max_steps > 100 {
            return Err(SettingsError::MaxSteps(self.max_steps));
        }
        if self.screen_cap < 100 {
            return Err(SettingsError::ScreenCap(self.screen_cap));
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

/// A hand-picked candidate number beyond the list ([`PatchSearch::pick_by_hand`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("--patches {index}: there are {count} candidates, numbered 0 to {}", count.saturating_sub(1))]
pub struct PickError {
    /// The number asked for.
    pub index: usize,
    /// How many candidates there are.
    pub count: usize,
}

impl PatchSearch {
    /// Replace the automatic choice by the candidates numbered in `picks` (each in its class,
    /// one class when the search had one; repeats ignored).
    pub fn pick_by_hand(&mut self, picks: &[usize]) -> Result<(), PickError> {
        let n = self.candidates.len();
        if let Some(&bad) = picks.iter().find(|&&i| i >= n) {
            return Err(PickError { index: bad, count: n });
        }
        for c in &mut self.candidates {
            c.chosen = false;
        }
        let classes = self.settings.classes;
        let mut chosen = vec![Vec::new(); classes];
        for &i in picks {
            if self.candidates[i].chosen {
                continue;
            }
            self.candidates[i].chosen = true;
            chosen[self.candidates[i].class.unwrap_or(0).min(classes - 1)].push(i);
        }
        self.chosen = chosen;
        Ok(())
    }
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

pub mod cache;
pub mod classes;
mod loosen;
pub mod preset;
pub mod salience;
pub mod search;
pub mod sheet;
#[cfg(test)]
mod tests;

pub use loosen::{describe_trail, find_patches};
#[allow(unused_imports)]
use {cache::*, classes::*, loosen::*, salience::*, search::*, sheet::*};

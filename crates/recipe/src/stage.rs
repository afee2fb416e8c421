//! The stages a recipe can list: their parameters (TOML tables, unknown keys refused) and how
//! each one changes the [`State`].
//!
//! Units: heights and lengths in metres, frequencies in cycles across the field's extent unless
//! a name says otherwise. Every stage's seed is derived from the recipe seed and the stage's
//! position (or given explicitly with `seed`), so a recipe and a seed name the same ground.

use crate::detail::*;
use crate::erosion::*;
use crate::state::State;
use bozkir_core::noise::{fbm01, ridged, FbmParams, RidgedParams};
use bozkir_core::{hash_u32, Grid, Progress};
use bozkir_terrain::erosion::stream_power::{stream_power, StreamPowerParams};
use bozkir_terrain::hydrology::priority_flood::fill_epsilon;
use bozkir_terrain::profiles::{generate, profile};
use bozkir_terrain::sculpt::blur::{gaussian_blur, BlurParams};
use bozkir_terrain::sculpt::mask::smoothstep;
use bozkir_terrain::sculpt::sample::sample_grid;
use bozkir_terrain::sculpt::terrace::{terrace, TerraceParams};
use bozkir_terrain::sculpt::warp::{warp_grid, GridWarpParams};
use serde::de::DeserializeOwned;
use serde::Deserialize;

/// Stage names, for messages.
pub const OPS: [&str; 24] = [
    "profile",
    "noise",
    "terrace",
    "pow",
    "warp",
    "blur",
    "stream_power",
    "fill",
    "slab",
    "reverse",
    "rills",
    "crags",
    "plates",
    "polish",
    "upsample",
    "sediment_floor",
    "canyon",
    "fold",
    "droplets",
    "thermal",
    "shallow_water",
    "island",
    "rivers",
    "biomes",
];

/// A stage's operation and parameters.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Profile(ProfileStage),
    Noise(NoiseStage),
    Terrace(TerraceStage),
    Pow(PowStage),
    Warp(WarpStage),
    Blur(BlurStage),
    StreamPower(StreamPowerStage),
    Fill(FillStage),
    Slab(SlabStage),
    Reverse(ReverseStage),
    Rills(RillStage),
    Crags(CragStage),
    Plates(PlatesStage),
    Polish(PolishStage),
    Upsample(UpsampleStage),
    SedimentFloor(SedimentFloorStage),
    Canyon(CanyonStage),
    Fold(FoldStage),
    Droplets(DropletStage),
    Thermal(ThermalStage),
    ShallowWater(ShallowWaterStage),
    Island(IslandStage),
    Rivers(RiversStage),
    Biomes(BiomeStage),
}

impl Op {
    pub fn name(&self) -> &'static str {
        match self {
            Op::Profile(_) => "profile",
            Op::Noise(_) => "noise",
            Op::Terrace(_) => "terrace",
            Op::Pow(_) => "pow",
            Op::Warp(_) => "warp",
            Op::Blur(_) => "blur",
            Op::StreamPower(_) => "stream_power",
            Op::Fill(_) => "fill",
            Op::Slab(_) => "slab",
            Op::Reverse(_) => "reverse",
            Op::Rills(_) => "rills",
            Op::Crags(_) => "crags",
            Op::Plates(_) => "plates",
            Op::Polish(_) => "polish",
            Op::Upsample(_) => "upsample",
            Op::SedimentFloor(_) => "sediment_floor",
            Op::Canyon(_) => "canyon",
            Op::Fold(_) => "fold",
            Op::Droplets(_) => "droplets",
            Op::Thermal(_) => "thermal",
            Op::ShallowWater(_) => "shallow_water",
            Op::Island(_) => "island",
            Op::Rivers(_) => "rivers",
            Op::Biomes(_) => "biomes",
        }
    }
}

fn de<P: DeserializeOwned>(table: toml::Table) -> Result<P, String> {
    toml::Value::Table(table).try_into::<P>().map_err(|e| e.to_string().trim().replace('\n', " "))
}

fn finite(name: &str, v: f64, lo: f64, hi: f64) -> Result<(), String> {
    if !v.is_finite() || v < lo || v > hi {
        return Err(format!("{name} must be in {lo}..={hi}, got {v}"));
    }
    Ok(())
}

/// Parse the parameters of stage `op` from its table (without `op` and `resolution`).
pub fn parse_op(op: &str, table: toml::Table) -> Result<Op, String> {
    let op = match op {
        "profile" => Op::Profile(de::<ProfileStage>(table)?.validated()?),
        "noise" => Op::Noise(de::<NoiseStage>(table)?.validated()?),
        "terrace" => Op::Terrace(de::<TerraceStage>(table)?.validated()?),
        "pow" => Op::Pow(de::<PowStage>(table)?.validated()?),
        "warp" => Op::Warp(de::<WarpStage>(table)?.validated()?),
        "blur" => Op::Blur(de::<BlurStage>(table)?.validated()?),
        "stream_power" => Op::StreamPower(de::<StreamPowerStage>(table)?.validated()?),
        "fill" => Op::Fill(de::<FillStage>(table)?),
        "slab" => Op::Slab(de::<SlabStage>(table)?.validated()?),
        "reverse" => Op::Reverse(de::<ReverseStage>(table)?.validated()?),
        "rills" => Op::Rills(de::<RillStage>(table)?.validated()?),
        "crags" => Op::Crags(de::<CragStage>(table)?.validated()?),
        "plates" => Op::Plates(de::<PlatesStage>(table)?.validated()?),
        "polish" => Op::Polish(de::<PolishStage>(table)?.validated()?),
        "upsample" => Op::Upsample(de::<UpsampleStage>(table)?.validated()?),
        "sediment_floor" => Op::SedimentFloor(de::<SedimentFloorStage>(table)?.validated()?),
        "canyon" => Op::Canyon(de::<CanyonStage>(table)?.validated()?),
        "fold" => Op::Fold(de::<FoldStage>(table)?.validated()?),
        "droplets" => Op::Droplets(de::<DropletStage>(table)?.validated()?),
        "thermal" => Op::Thermal(de::<ThermalStage>(table)?.validated()?),
        "shallow_water" => Op::ShallowWater(de::<ShallowWaterStage>(table)?.validated()?),
        "island" => Op::Island(de::<IslandStage>(table)?.validated()?),
        "rivers" => Op::Rivers(de::<RiversStage>(table)?.validated()?),
        "biomes" => Op::Biomes(de::<BiomeStage>(table)?.validated()?),
        other => return Err(format!("unknown stage {other:?}; have {}", OPS.join(", "))),
    };
    Ok(op)
}

/// The seed of stage `index`: given explicitly, or hashed from the recipe seed and the index.
fn stage_seed(explicit: Option<u64>, recipe_seed: u64, index: usize) -> u32 {
    match explicit {
        Some(s) => s as u32,
        None => hash_u32(recipe_seed as u32, (recipe_seed >> 32) as u32 ^ index as u32, 0x5EED),
    }
}

/// Run stage `index` (1-based) on `state`. Errors are problems only the state can reveal (a
/// mask that was never recorded, a size past the cap); the caller names the stage.
pub fn apply(op: &Op, index: usize, state: &mut State, progress: &dyn Progress) -> Result<(), String> {
    apply_with(op, index, state, progress, &crate::kernels::Cpu)
}

/// [`apply`] with the erosion stages (stream power, droplets, thermal) offered to `kernels`
/// first; the CPU runs them when it declines.
pub fn apply_with(
    op: &Op,
    index: usize,
    state: &mut State,
    progress: &dyn Progress,
    kernels: &dyn crate::kernels::Kernels,
) -> Result<(), String> {
    let seed = |explicit: Option<u64>| stage_seed(explicit, state.seed, index);
    match op {
        Op::Profile(p) => p.apply(index, state, progress),
        Op::Noise(p) => p.apply(index, state),
        Op::Terrace(p) => p.apply(state),
        Op::Pow(p) => p.apply(state),
        Op::Warp(p) => p.apply(index, state),
        Op::Blur(p) => state.height = gaussian_blur(&state.height, &BlurParams { sigma: p.sigma }),
        Op::StreamPower(p) => p.apply(state, progress, kernels)?,
        Op::Fill(_) => {
            state.height = match kernels.fill(&state.height)? {
                Some(f) => f,
                None => fill_epsilon(&state.height),
            }
        }
        Op::Slab(p) => p.apply(state),
        Op::Reverse(p) => p.apply(seed(p.seed), state),
        Op::Rills(p) => p.apply(seed(None), state),
        Op::Crags(p) => p.apply(seed(None), state),
        Op::Plates(p) => p.apply(seed(None), state),
        Op::Polish(p) => p.apply(state),
        Op::Upsample(p) => p.apply(seed(None), state)?,
        Op::SedimentFloor(p) => p.apply(state)?,
        Op::Canyon(p) => p.apply(state),
        Op::Fold(p) => p.apply(seed(None), state),
        Op::Droplets(p) => p.apply(seed(p.seed), state, progress, kernels)?,
        Op::Thermal(p) => p.apply(state, progress, kernels)?,
        Op::ShallowWater(p) => p.apply(state, progress, kernels)?,
        Op::Island(p) => p.apply(seed(p.seed), state),
        Op::Rivers(p) => p.apply(state),
        Op::Biomes(p) => p.apply(state),
    }
    Ok(())
}

/// `profile`: the original bozkir generator for a named profile (replaces the height).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileStage {
    /// Profile name (see `bozkir profiles`).
    pub profile: String,
    /// Metres from lowest to highest point. Default 1000.
    #[serde(default = "default_range")]
    pub height_range: f64,
    /// Seed; default: the recipe seed itself (so `--recipe canyon --seed 3` equals `--profile canyon --seed 3`).
    pub seed: Option<u64>,
    /// Overrides of profile parameters by name (`ridge = 0.7`, …).
    #[serde(default)]
    pub set: std::collections::BTreeMap<String, f64>,
}

fn default_range() -> f64 {
    1000.0
}

impl ProfileStage {
    fn params(&self) -> Result<bozkir_terrain::profiles::ProfileParams, String> {
        let mut p = profile(&self.profile)?.params;
        for (k, v) in &self.set {
            p.set(k, *v)?;
        }
        Ok(p)
    }
    fn validated(self) -> Result<Self, String> {
        finite("height_range", self.height_range, 0.0, 1e6)?;
        self.params()?;
        Ok(self)
    }
    fn apply(&self, _index: usize, state: &mut State, progress: &dyn Progress) {
        let n = state.height.width().max(state.height.height());
        let p = self.params().expect("validated");
        let t = generate(n, self.seed.unwrap_or(state.seed), &p, progress);
        let (dx, dy) = (state.height.dx, state.height.dy);
        let r = self.height_range;
        state.height = t.height.map(|v| v * r).with_cell_size(dx, dy);
        state.masks.clear();
        state.masks.insert("sediment".into(), t.sediment.with_cell_size(dx, dy));
    }
}

/// `noise`: fBM or ridged noise, shaped by a power, combined with the height.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NoiseStage {
    /// `"fbm"` or `"ridged"`. Default fbm.
    pub kind: String,
    /// Cycles of the first octave across the field's extent. Default 4.
    pub frequency: f64,
    /// Octaves. Default 5.
    pub octaves: u32,
    /// Height of the noise in metres (noise 0..1 times this). Default 100.
    pub amplitude: f64,
    /// Power applied to the 0..1 noise before scaling (seed 001 §3.3). Default 1.
    pub exponent: f64,
    /// `"add"`, `"set"` or `"max"`. Default add.
    pub mode: String,
    /// Optional low-frequency mask (cycles across the extent): the noise is multiplied by
    /// smoothstep(mask_lo, mask_hi, fbm01). 0 disables. Default 0.
    pub mask_frequency: f64,
    pub mask_lo: f64,
    pub mask_hi: f64,
    pub seed: Option<u64>,
}

impl Default for NoiseStage {
    fn default() -> Self {
        Self {
            kind: "fbm".into(),
            frequency: 4.0,
            octaves: 5,
            amplitude: 100.0,
            exponent: 1.0,
            mode: "add".into(),
            mask_frequency: 0.0,
            mask_lo: 0.35,
            mask_hi: 0.65,
            seed: None,
        }
    }
}

impl NoiseStage {
    fn validated(self) -> Result<Self, String> {
        if !matches!(self.kind.as_str(), "fbm" | "ridged") {
            return Err(format!("kind must be \"fbm\" or \"ridged\", got {:?}", self.kind));
        }
        if !matches!(self.mode.as_str(), "add" | "set" | "max") {
            return Err(format!("mode must be \"add\", \"set\" or \"max\", got {:?}", self.mode));
        }
        finite("frequency", self.frequency, 1e-6, 1e5)?;
        finite("amplitude", self.amplitude, -1e6, 1e6)?;
        finite("exponent", self.exponent, 0.05, 20.0)?;
        finite("mask_frequency", self.mask_frequency, 0.0, 1e5)?;
        if !(1..=16).contains(&self.octaves) {
            return Err(format!("octaves must be 1..=16, got {}", self.octaves));
        }
        Ok(self)
    }
    fn apply(&self, index: usize, state: &mut State) {
        let seed = stage_seed(self.seed, state.seed, index);
        let (w, h) = (state.height.width(), state.height.height());
        let extent = (w as f64 * state.height.dx).max(h as f64 * state.height.dy);
        let f = self.frequency / extent;
        let fb = FbmParams { octaves: self.octaves, frequency: f, seed, ..FbmParams::default() };
        let rp = RidgedParams { octaves: self.octaves, frequency: f, seed, ..RidgedParams::default() };
        let mask = FbmParams {
            octaves: 3,
            frequency: self.mask_frequency / extent,
            seed: seed ^ 0x9E37,
            ..FbmParams::default()
        };
        let ridged_kind = self.kind == "ridged";
        let (a, e, mf, lo, hi) = (self.amplitude, self.exponent, self.mask_frequency, self.mask_lo, self.mask_hi);
        let n = sample_grid(w, h, state.height.dx, state.height.dy, |x, y| {
            let v = if ridged_kind { ridged(&rp, x, y) } else { fbm01(&fb, x, y) };
            let m = if mf > 0.0 { smoothstep(lo, hi, fbm01(&mask, x, y)) } else { 1.0 };
            libm::pow(v.clamp(0.0, 1.0), e) * a * m
        });
        let out = state.height.data_mut();
        match self.mode.as_str() {
            "set" => out.copy_from_slice(n.data()),
            "max" => out.iter_mut().zip(n.data()).for_each(|(o, v)| *o = o.max(*v)),
            _ => out.iter_mut().zip(n.data()).for_each(|(o, v)| *o += v),
        }
    }
}

/// Unit-normalised view of a height field: `(unit, lo, span)`.
fn unit(g: &Grid<f64>) -> (Grid<f64>, f64, f64) {
    use rayon::prelude::*;
    let (lo, hi) = g.min_max().unwrap_or((0.0, 0.0));
    let span = hi - lo;
    let s = if span > 0.0 { 1.0 / span } else { 0.0 };
    let data: Vec<f64> = g.data().par_iter().map(|v| (v - lo) * s).collect();
    (Grid::from_vec(g.width(), g.height(), data).with_cell_size(g.dx, g.dy), lo, span)
}

/// `terrace`: the original's terraces on the normalised height, blended (seed 001 §3.7).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TerraceStage {
    pub steps: u32,
    pub sharpness: f64,
    /// Fraction of the terraced surface mixed in. Default 1.
    pub blend: f64,
}

impl Default for TerraceStage {
    fn default() -> Self {
        Self { steps: 5, sharpness: 0.5, blend: 1.0 }
    }
}

impl TerraceStage {
    fn validated(self) -> Result<Self, String> {
        finite("sharpness", self.sharpness, 0.0, 1.0)?;
        finite("blend", self.blend, 0.0, 1.0)?;
        if !(1..=1000).contains(&self.steps) {
            return Err(format!("steps must be 1..=1000, got {}", self.steps));
        }
        Ok(self)
    }
    fn apply(&self, state: &mut State) {
        let (u, lo, span) = unit(&state.height);
        let p = TerraceParams { steps: self.steps, sharpness: self.sharpness, ..TerraceParams::default() };
        let t = terrace(&u, &p, None);
        let b = self.blend;
        state.height.data_mut().iter_mut().zip(u.data().iter().zip(t.data())).for_each(|(h, (a, t))| {
            *h = lo + span * (a + (t - a) * b);
        });
    }
}

/// `pow`: redistribution `h ← h^exponent` on the normalised height, same range (seed 001 §3.3).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PowStage {
    pub exponent: f64,
}

impl PowStage {
    fn validated(self) -> Result<Self, String> {
        finite("exponent", self.exponent, 0.05, 20.0)?;
        Ok(self)
    }
    fn apply(&self, state: &mut State) {
        let (u, lo, span) = unit(&state.height);
        let e = self.exponent;
        state.height.data_mut().iter_mut().zip(u.data()).for_each(|(h, a)| *h = lo + span * libm::pow(*a, e));
    }
}

/// `warp`: domain warp of the height field (seed 001 §3.4).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WarpStage {
    /// Largest displacement, metres. Default 20.
    pub strength: f64,
    /// Cycles of the displacement field across the extent. Default 4.
    pub frequency: f64,
    pub octaves: u32,
    pub seed: Option<u64>,
}

impl Default for WarpStage {
    fn default() -> Self {
        Self { strength: 20.0, frequency: 4.0, octaves: 4, seed: None }
    }
}

impl WarpStage {
    fn validated(self) -> Result<Self, String> {
        finite("strength", self.strength, 0.0, 1e6)?;
        finite("frequency", self.frequency, 1e-6, 1e5)?;
        if !(1..=16).contains(&self.octaves) {
            return Err(format!("octaves must be 1..=16, got {}", self.octaves));
        }
        Ok(self)
    }
    fn apply(&self, index: usize, state: &mut State) {
        let extent =
            (state.height.width() as f64 * state.height.dx).max(state.height.height() as f64 * state.height.dy);
        let p = GridWarpParams {
            strength: self.strength,
            frequency: self.frequency / extent,
            octaves: self.octaves,
            levels: 1,
            seed: stage_seed(self.seed, state.seed, index),
        };
        state.height = warp_grid(&state.height, &p);
    }
}

/// `blur`: Gaussian blur with σ in metres.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlurStage {
    pub sigma: f64,
}

impl BlurStage {
    fn validated(self) -> Result<Self, String> {
        finite("sigma", self.sigma, 0.0, 1e6)?;
        Ok(self)
    }
}

/// `stream_power`: Braun & Willett (2013) in metres and years (see `bozkir erode`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StreamPowerStage {
    pub steps: usize,
    pub k: f64,
    pub m: f64,
    pub dt: f64,
    /// Uplift rate, m/yr, times `uplift_map` (`"height"`: the normalised height; `"none"`: 1).
    pub uplift: f64,
    pub uplift_map: String,
    pub kappa: f64,
    /// Drainage-area cap in cells (detail passes), 0 = none.
    pub area_cap_cells: f64,
    /// Drainage-area floor in m², 0 = none: one cell at the size the parameters were tuned at,
    /// so a finer run's hilltops steepen no further than there (see `StreamPowerParams::area_floor`).
    pub area_floor_m2: f64,
}

impl Default for StreamPowerStage {
    fn default() -> Self {
        let d = StreamPowerParams::default();
        Self {
            steps: 20,
            k: d.k,
            m: d.m,
            dt: d.dt,
            uplift: 0.0,
            uplift_map: "height".into(),
            kappa: d.kappa,
            area_cap_cells: 0.0,
            area_floor_m2: 0.0,
        }
    }
}

impl StreamPowerStage {
    fn validated(self) -> Result<Self, String> {
        if !(1..=100_000).contains(&self.steps) {
            return Err(format!("steps must be 1..=100000, got {}", self.steps));
        }
        finite("k", self.k, 0.0, 1e6)?;
        finite("m", self.m, 0.0, 2.0)?;
        finite("dt", self.dt, 1e-9, 1e9)?;
        finite("uplift", self.uplift, 0.0, 1e6)?;
        finite("kappa", self.kappa, 0.0, 1e9)?;
        finite("area_cap_cells", self.area_cap_cells, 0.0, 1e12)?;
        finite("area_floor_m2", self.area_floor_m2, 0.0, 1e12)?;
        if !matches!(self.uplift_map.as_str(), "height" | "none") {
            return Err(format!("uplift_map must be \"height\" or \"none\", got {:?}", self.uplift_map));
        }
        Ok(self)
    }
    fn apply(
        &self,
        state: &mut State,
        progress: &dyn Progress,
        kernels: &dyn crate::kernels::Kernels,
    ) -> Result<(), String> {
        let umap = (self.uplift > 0.0 && self.uplift_map == "height").then(|| unit(&state.height).0);
        let cell = state.height.dx * state.height.dy;
        let p = StreamPowerParams {
            k: self.k,
            m: self.m,
            dt: self.dt,
            steps: self.steps,
            uplift: self.uplift,
            uplift_map: umap,
            kappa: self.kappa,
            area_cap: (self.area_cap_cells > 0.0).then_some(self.area_cap_cells * cell),
            area_floor: (self.area_floor_m2 > 0.0).then_some(self.area_floor_m2),
        };
        let out = match kernels.stream_power(&state.height, &p, progress)? {
            Some(o) => o,
            None => stream_power(&state.height, &p, progress),
        };
        state.height = out.height;
        state.accumulate_mask("wear", &out.eroded);
        state.accumulate_mask("sediment", &out.sediment);
        Ok(())
    }
}

/// `fill`: ε priority-flood depression filling (Barnes et al. 2014).
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct FillStage {}

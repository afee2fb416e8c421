//! Sculpting stages on the whole height field (seed 001 §3, §4.6): `terrace`, `pow`, `warp`,
//! `blur` and `reverse` sculpting.

use super::{StageCtx, StageOp};
use crate::error::{count, range, terrain, ParamError, StageError};
use crate::state::State;
use bozkir_core::Grid;
use bozkir_terrain::sculpt::blur::{gaussian_blur, BlurParams};
use bozkir_terrain::sculpt::reverse::{reverse_sculpt, ReverseParams};
use bozkir_terrain::sculpt::terrace::{terrace, TerraceParams};
use bozkir_terrain::sculpt::warp::{warp_grid, GridWarpParams};
use serde::Deserialize;

/// Unit-normalised view of a height field: `(unit, lo, span)`.
pub(crate) fn unit(g: &Grid<f64>) -> (Grid<f64>, f64, f64) {
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
    /// Terrace levels. Default 5.
    pub steps: u32,
    /// Edge sharpness 0..1. Default 0.5.
    pub sharpness: f64,
    /// Fraction of the terraced surface mixed in. Default 1.
    pub blend: f64,
}

impl Default for TerraceStage {
    fn default() -> Self {
        Self { steps: 5, sharpness: 0.5, blend: 1.0 }
    }
}

impl StageOp for TerraceStage {
    const NAME: &'static str = "terrace";
    fn validated(self) -> Result<Self, ParamError> {
        range("sharpness", self.sharpness, 0.0, 1.0)?;
        range("blend", self.blend, 0.0, 1.0)?;
        count("steps", self.steps, 1, 1000)?;
        Ok(self)
    }
    fn apply(&self, _ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
        let (u, lo, span) = unit(&state.height);
        let p = TerraceParams { steps: self.steps, sharpness: self.sharpness, ..TerraceParams::default() };
        let t = terrace(&u, &p, None);
        let b = self.blend;
        state.height.data_mut().iter_mut().zip(u.data().iter().zip(t.data())).for_each(|(h, (a, t))| {
            *h = lo + span * (a + (t - a) * b);
        });
        Ok(())
    }
}

/// `pow`: redistribution `h ← h^exponent` on the normalised height, same range (seed 001 §3.3).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PowStage {
    /// The exponent, 0.05..=20.
    pub exponent: f64,
}

impl StageOp for PowStage {
    const NAME: &'static str = "pow";
    fn validated(self) -> Result<Self, ParamError> {
        range("exponent", self.exponent, 0.05, 20.0)?;
        Ok(self)
    }
    fn apply(&self, _ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
        let (u, lo, span) = unit(&state.height);
        let e = self.exponent;
        state.height.data_mut().iter_mut().zip(u.data()).for_each(|(h, a)| *h = lo + span * libm::pow(*a, e));
        Ok(())
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
    /// Octaves of the displacement field. Default 4.
    pub octaves: u32,
    /// Seed (32 bits); default: derived from the recipe seed and the stage's position.
    pub seed: Option<u64>,
}

impl Default for WarpStage {
    fn default() -> Self {
        Self { strength: 20.0, frequency: 4.0, octaves: 4, seed: None }
    }
}

impl StageOp for WarpStage {
    const NAME: &'static str = "warp";
    fn validated(self) -> Result<Self, ParamError> {
        range("strength", self.strength, 0.0, 1e6)?;
        range("frequency", self.frequency, 1e-6, 1e5)?;
        count("octaves", self.octaves, 1, 16)?;
        Ok(self)
    }
    fn seed(&self) -> Option<u64> {
        self.seed
    }
    fn apply(&self, ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
        let extent =
            (state.height.width() as f64 * state.height.dx).max(state.height.height() as f64 * state.height.dy);
        let p = GridWarpParams {
            strength: self.strength,
            frequency: self.frequency / extent,
            octaves: self.octaves,
            levels: 1,
            seed: ctx.seed32(),
        };
        state.height = warp_grid(&state.height, &p);
        Ok(())
    }
}

/// `blur`: Gaussian blur with σ in metres.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlurStage {
    /// σ, metres.
    pub sigma: f64,
}

impl StageOp for BlurStage {
    const NAME: &'static str = "blur";
    fn validated(self) -> Result<Self, ParamError> {
        range("sigma", self.sigma, 0.0, 1e6)?;
        Ok(self)
    }
    fn apply(&self, _ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
        state.height = gaussian_blur(&state.height, &BlurParams { sigma: self.sigma });
        Ok(())
    }
}

/// `reverse`: result-first sculpting by Voronoi region drops (seed 001 §4.6).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReverseStage {
    /// Voronoi region size, metres (one feature point per `region_m × region_m`).
    pub region_m: f64,
    /// Fraction of regions dropped.
    pub drop_fraction: f64,
    /// Mean drop as a fraction of the region's relief above its lowest touched height.
    pub depth: f64,
    /// Relative noise on the drop amount.
    pub depth_variation: f64,
    /// Fraction of each region's removed volume put back as rubble.
    pub debris: f64,
    /// Slope (degrees) below which routed rubble comes to rest.
    pub toe_deg: f64,
    /// Rubble stops at its region's lower boundary (true) or runs on to the toe (false).
    pub debris_in_region: bool,
    /// Passes of 3×3 spreading of the rubble where it came to rest (0..=16).
    pub debris_spread: u32,
    /// Amplitude of the finishing noise, metres.
    pub noise_m: f64,
    /// Run the finish (noise and a noise-varied blur).
    pub finish: bool,
    /// Seed (32 bits); default: derived from the recipe seed and the stage's position.
    pub seed: Option<u64>,
}

impl Default for ReverseStage {
    fn default() -> Self {
        let d = ReverseParams::default();
        Self {
            region_m: d.region_m,
            drop_fraction: d.drop_fraction,
            depth: d.depth,
            depth_variation: d.depth_variation,
            debris: d.debris,
            toe_deg: d.toe_deg,
            debris_in_region: d.debris_in_region,
            debris_spread: d.debris_spread,
            noise_m: d.noise_m,
            finish: d.finish,
            seed: None,
        }
    }
}

impl ReverseStage {
    /// The terrain parameters with `seed` (the rest at their defaults).
    fn params(&self, seed: u32) -> ReverseParams {
        ReverseParams {
            region_m: self.region_m,
            drop_fraction: self.drop_fraction,
            depth: self.depth,
            depth_variation: self.depth_variation,
            debris: self.debris,
            toe_deg: self.toe_deg,
            debris_in_region: self.debris_in_region,
            debris_spread: self.debris_spread,
            noise_m: self.noise_m,
            finish: self.finish,
            seed,
            ..ReverseParams::default()
        }
    }
}

impl StageOp for ReverseStage {
    const NAME: &'static str = "reverse";
    fn validated(self) -> Result<Self, ParamError> {
        self.params(0).validate().map_err(terrain)?;
        Ok(self)
    }
    fn seed(&self) -> Option<u64> {
        self.seed
    }
    fn apply(&self, ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
        let p = self.params(ctx.seed32());
        state.height = reverse_sculpt(&state.height, &p).0;
        Ok(())
    }
}

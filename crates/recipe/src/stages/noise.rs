//! The stages that make ground from nothing: `profile` (the original generator) and `noise`.

use super::{StageCtx, StageOp};
use crate::error::{choice, count, range, terrain, ParamError, StageError};
use crate::state::State;
use bozkir_core::noise::{FbmParams, FbmRow, RidgedParams, RidgedRow};
use bozkir_terrain::profiles::{generate, profile};
use bozkir_terrain::sculpt::mask::smoothstep;
use rayon::prelude::*;
use serde::Deserialize;

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
    /// All 64 bits reach the generator.
    pub seed: Option<u64>,
    /// Overrides of profile parameters by name (`ridge = 0.7`, …).
    #[serde(default)]
    pub set: std::collections::BTreeMap<String, f64>,
}

fn default_range() -> f64 {
    1000.0
}

impl ProfileStage {
    fn params(&self) -> Result<bozkir_terrain::profiles::ProfileParams, ParamError> {
        let mut p = profile(&self.profile).map_err(terrain)?.params;
        for (k, v) in &self.set {
            p.set(k, *v).map_err(terrain)?;
        }
        Ok(p)
    }
}

impl StageOp for ProfileStage {
    const NAME: &'static str = "profile";
    fn validated(self) -> Result<Self, ParamError> {
        range("height_range", self.height_range, 0.0, 1e6)?;
        self.params()?;
        Ok(self)
    }
    fn apply(&self, ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
        let n = state.height.width().max(state.height.height());
        let p = self.params().expect("validated");
        let t = generate(n, self.seed.unwrap_or(ctx.recipe_seed), &p, ctx.progress);
        let (dx, dy) = (state.height.dx, state.height.dy);
        let r = self.height_range;
        state.height = t.height.map(|v| v * r).with_cell_size(dx, dy);
        state.masks.clear();
        state.masks.insert("sediment".into(), t.sediment.with_cell_size(dx, dy));
        Ok(())
    }
}

/// The rows a `noise` stage samples.
enum Rows {
    Fbm(FbmRow),
    Ridged(RidgedRow),
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
    /// Lower edge of the mask's smoothstep.
    pub mask_lo: f64,
    /// Upper edge of the mask's smoothstep.
    pub mask_hi: f64,
    /// Seed (32 bits); default: derived from the recipe seed and the stage's position.
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

impl StageOp for NoiseStage {
    const NAME: &'static str = "noise";
    fn validated(self) -> Result<Self, ParamError> {
        choice("kind", &self.kind, &["fbm", "ridged"], "\"fbm\" or \"ridged\"")?;
        choice("mode", &self.mode, &["add", "set", "max"], "\"add\", \"set\" or \"max\"")?;
        range("frequency", self.frequency, 1e-6, 1e5)?;
        range("amplitude", self.amplitude, -1e6, 1e6)?;
        range("exponent", self.exponent, 0.05, 20.0)?;
        range("mask_frequency", self.mask_frequency, 0.0, 1e5)?;
        count("octaves", self.octaves, 1, 16)?;
        Ok(self)
    }
    fn seed(&self) -> Option<u64> {
        self.seed
    }
    fn apply(&self, ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
        let seed = ctx.seed32();
        let w = state.height.width();
        let [ww, wh] = state.world_size();
        let extent = (ww as f64 * state.height.dx).max(wh as f64 * state.height.dy);
        let f = self.frequency / extent;
        let fb = FbmParams { octaves: self.octaves, frequency: f, seed, ..FbmParams::default() };
        let rp = RidgedParams { octaves: self.octaves, frequency: f, seed, ..RidgedParams::default() };
        let mask = FbmParams {
            octaves: 3,
            frequency: self.mask_frequency / extent,
            seed: seed ^ 0x9E37,
            ..FbmParams::default()
        };
        let (a, e, mf, lo, hi) = (self.amplitude, self.exponent, self.mask_frequency, self.mask_lo, self.mask_hi);
        if w == 0 {
            return Ok(());
        }
        // The noise a row at a time on the window's columns (the per-point functions' bits,
        // sampled at the cell origins as `sample_window` does), combined into the height as it
        // goes.
        let [ox, oy] = state.origin;
        let (dx, dy) = (state.height.dx, state.height.dy);
        let xs: Vec<f64> = (0..w).map(|i| (ox + i) as f64 * dx).collect();
        let source = if self.kind == "ridged" {
            Rows::Ridged(RidgedRow::new(&rp, &xs))
        } else {
            Rows::Fbm(FbmRow::new(&fb, &xs))
        };
        let mask_rows = (mf > 0.0).then(|| FbmRow::new(&mask, &xs));
        let combine: fn(f64, f64) -> f64 = match self.mode.as_str() {
            "set" => |_, n| n,
            "max" => f64::max,
            _ => |o, n| o + n,
        };
        state.height.data_mut().par_chunks_mut(w).enumerate().for_each_init(
            || (vec![0.0; w], vec![0.0; w]),
            |(v, m), (j, out)| {
                let y = (oy + j) as f64 * dy;
                match &source {
                    Rows::Fbm(r) => r.row01(y, v),
                    Rows::Ridged(r) => r.row(y, v),
                }
                if let Some(r) = &mask_rows {
                    r.row01(y, m);
                }
                for (i, o) in out.iter_mut().enumerate() {
                    let k = if mask_rows.is_some() { smoothstep(lo, hi, m[i]) } else { 1.0 };
                    *o = combine(*o, libm::pow(v[i].clamp(0.0, 1.0), e) * a * k);
                }
            },
        );
        Ok(())
    }
}

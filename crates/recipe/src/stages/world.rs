//! World stages of seed 003: the `island`, its `rivers` and the `biomes`. They record masks:
//! `moisture` (island), `rivers` (1 on river cells), `biome` (class ids) and the soft biome
//! weights `biome_soft_<id>`.

use super::{StageCtx, StageOp};
use crate::error::{choice, count, range, ParamError, StageError};
use crate::state::State;
use bozkir_core::Grid;
use bozkir_terrain::island::{island_height, moisture_with_cell_size, rivers, IslandParams};
use serde::Deserialize;
use std::collections::BTreeMap;

/// `island`: seed 003's island (domain-warped fBM, redistribution, falloff) in metres relative
/// to sea level; records `moisture`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IslandStage {
    pub octaves: u32,
    pub frequency: f64,
    pub warp_strength: f64,
    pub exponent: f64,
    /// "square_bump", "radial" or "euclidean".
    pub falloff: String,
    pub mix: f64,
    /// Fraction of land wanted (0 = whatever the noise gives).
    pub target_land: f64,
    pub height_scale: f64,
    pub seed: Option<u64>,
}

impl Default for IslandStage {
    fn default() -> Self {
        let d = IslandParams::default();
        Self {
            octaves: d.octaves,
            frequency: d.frequency,
            warp_strength: d.warp_strength,
            exponent: d.exponent,
            falloff: "square_bump".into(),
            mix: d.mix,
            target_land: 0.0,
            height_scale: d.height_scale,
            seed: None,
        }
    }
}

impl IslandStage {
    fn params(&self, seed: u32) -> IslandParams {
        use bozkir_terrain::island::Falloff;
        IslandParams {
            seed,
            octaves: self.octaves,
            frequency: self.frequency,
            warp_strength: self.warp_strength,
            exponent: self.exponent,
            falloff: match self.falloff.as_str() {
                "radial" => Falloff::Radial,
                "euclidean" => Falloff::Euclidean,
                _ => Falloff::SquareBump,
            },
            mix: self.mix,
            target_land: (self.target_land > 0.0).then_some(self.target_land),
            height_scale: self.height_scale,
            ..IslandParams::default()
        }
    }
}

impl StageOp for IslandStage {
    const NAME: &'static str = "island";
    fn validated(self) -> Result<Self, ParamError> {
        choice(
            "falloff",
            &self.falloff,
            &["square_bump", "radial", "euclidean"],
            "\"square_bump\", \"radial\" or \"euclidean\"",
        )?;
        count("octaves", self.octaves, 1, 16)?;
        range("frequency", self.frequency, 1e-3, 1e4)?;
        range("warp_strength", self.warp_strength, 0.0, 10.0)?;
        range("exponent", self.exponent, 0.05, 20.0)?;
        range("mix", self.mix, 0.0, 1.0)?;
        range("target_land", self.target_land, 0.0, 0.99)?;
        range("height_scale", self.height_scale, 1e-3, 1e5)?;
        Ok(self)
    }
    fn seed(&self) -> Option<u64> {
        self.seed
    }
    fn apply(&self, ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
        let (w, h, dx, dy) = (state.height.width(), state.height.height(), state.height.dx, state.height.dy);
        let p = self.params(ctx.seed32());
        state.height = island_height(w, h, dx, dy, &p);
        state.masks.clear();
        state.masks.insert("moisture".into(), moisture_with_cell_size(w, h, dx, dy, &p));
        Ok(())
    }
}

/// `rivers`: D8 rivers above a threshold on land (heights above `sea_level` metres), recorded
/// as the mask `rivers` (1 on river cells).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RiversStage {
    pub sea_level: f64,
    pub threshold_cells: u32,
}

impl Default for RiversStage {
    fn default() -> Self {
        Self { sea_level: 0.0, threshold_cells: 200 }
    }
}

impl StageOp for RiversStage {
    const NAME: &'static str = "rivers";
    fn validated(self) -> Result<Self, ParamError> {
        range("sea_level", self.sea_level, -1e5, 1e5)?;
        if self.threshold_cells == 0 {
            return Err(ParamError::Rule("threshold_cells must be at least 1"));
        }
        Ok(self)
    }
    fn apply(&self, _ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
        state.sea_level = Some(self.sea_level);
        let r = rivers(&state.height, self.sea_level, self.threshold_cells);
        let g: Grid<f64> = r.map(|&b| if b { 1.0 } else { 0.0 });
        state.masks.insert("rivers".into(), g);
        Ok(())
    }
}

/// Prefix of the soft biome weight masks the `biomes` stage records: `biome_soft_<id>`, one per
/// biome id that has a non-zero weight somewhere (ids of the default palette).
pub const SOFT_BIOME_PREFIX: &str = "biome_soft_";

/// The soft biome weight masks among `masks` (see [`SOFT_BIOME_PREFIX`]), by biome id ascending.
pub fn soft_biome_masks(masks: &BTreeMap<String, Grid<f64>>) -> Vec<(u8, &Grid<f64>)> {
    let mut v: Vec<(u8, &Grid<f64>)> = masks
        .iter()
        .filter_map(|(k, g)| k.strip_prefix(SOFT_BIOME_PREFIX).and_then(|id| id.parse::<u8>().ok()).map(|id| (id, g)))
        .collect();
    v.sort_by_key(|(id, _)| *id);
    v
}

/// `biomes`: Whittaker biomes from height (metres above `sea_level`), the `moisture` mask
/// (0.5 where none was recorded) and slope, with rock, beach and snow overrides; recorded as the
/// class mask `biome` (palette ids of `bozkir_material::biomes::Palette::default_biomes`) and
/// as soft per-biome weights `biome_soft_<id>` (`bozkir_material::biomes::soft_weights`: in
/// `[0, 1]`, summing to one per cell, argmax = the class; only biomes present somewhere). Later
/// resampling keeps the sum (bilinear weights are a convex combination).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BiomeStage {
    pub sea_level: f64,
    pub beach_height: f64,
    /// Snow above this height in metres; 0 = no snow line.
    pub snow_line: f64,
    /// Rock above this slope (rise over run); 0 = no rock override.
    pub rock_slope: f64,
}

impl Default for BiomeStage {
    fn default() -> Self {
        let d = bozkir_material::biomes::BiomeParams::default();
        Self {
            sea_level: d.sea_level,
            beach_height: d.beach_height,
            snow_line: 0.0,
            rock_slope: d.rock_slope.unwrap_or(0.0),
        }
    }
}

impl StageOp for BiomeStage {
    const NAME: &'static str = "biomes";
    fn validated(self) -> Result<Self, ParamError> {
        range("sea_level", self.sea_level, -1e5, 1e5)?;
        range("beach_height", self.beach_height, 0.0, 1e4)?;
        range("snow_line", self.snow_line, 0.0, 1e5)?;
        range("rock_slope", self.rock_slope, 0.0, 1e3)?;
        Ok(self)
    }
    fn apply(&self, _ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
        use bozkir_material::biomes::{classify, soft_weights, BiomeParams};
        state.sea_level = Some(self.sea_level);
        let h = &state.height;
        let moist = state.masks.get("moisture").cloned().unwrap_or_else(|| h.same_shape(0.5));
        let slope = bozkir_terrain::landform::slope::slope(h);
        let p = BiomeParams {
            sea_level: self.sea_level,
            beach_height: self.beach_height,
            snow_line: (self.snow_line > 0.0).then_some(self.snow_line),
            rock_slope: (self.rock_slope > 0.0).then_some(self.rock_slope),
            ..BiomeParams::default()
        };
        let ids = classify(h, &moist, &slope, &p);
        let soft = soft_weights(h, &moist, &slope, &p);
        let (dx, dy) = (h.dx, h.dy);
        state.masks.insert("biome".into(), ids.map(|&v| v as f64).with_cell_size(dx, dy));
        state.masks.retain(|k, _| !k.starts_with(SOFT_BIOME_PREFIX));
        for (id, g) in soft.into_iter().enumerate() {
            if g.data().iter().any(|&v| v > 0.0) {
                state.masks.insert(format!("{SOFT_BIOME_PREFIX}{id}"), g.with_cell_size(dx, dy));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::builtin;
    use crate::run::run;
    use bozkir_core::NoProgress;

    #[test]
    fn island_biomes_record_soft_weights_that_sum_to_one_and_agree_with_the_classes() {
        let r = builtin("island").unwrap();
        let s = run(&r, 64, 160.0, 1, &NoProgress, |_| {}).unwrap();
        let soft = soft_biome_masks(&s.masks);
        let hard = &s.masks["biome"];
        assert!(soft.len() >= 3, "{} soft layers", soft.len());
        let n = hard.len();
        let mut agree = 0;
        for i in 0..n {
            let sum: f64 = soft.iter().map(|(_, g)| g.data()[i]).sum();
            assert!((sum - 1.0).abs() < 1e-9, "cell {i} sums to {sum}");
            assert!(soft.iter().all(|(_, g)| (0.0..=1.0).contains(&g.data()[i])));
            let (best, _) =
                soft.iter().fold((0u8, -1.0), |b, (id, g)| if g.data()[i] > b.1 { (*id, g.data()[i]) } else { b });
            if best as f64 == hard.data()[i] {
                agree += 1;
            }
        }
        // Measured at 64²: 4093 of 4096 cells (99.93 %); the others are exact ties on region
        // boundaries (first largest wins here, the priority order in `classify`).
        assert!(agree as f64 >= 0.99 * n as f64, "argmax agrees on {agree} of {n} cells");
        // Every hard class present has a soft layer.
        for &v in hard.data() {
            assert!(soft.iter().any(|(id, _)| *id as f64 == v), "class {v} has no soft layer");
        }
    }
}

//! Detail stages of seed 001 (§6): rills, crags, plates, polish, upsampling, sediment floors,
//! canyons and the lateral fold. Each mirrors the terrain crate's parameters that a recipe may
//! set; the rest keep the terrain crate's documented defaults.

use super::{StageCtx, StageOp};
use crate::error::{choice, count, range, ParamError, StageError};
use crate::state::State;
use bozkir_terrain::sculpt::detail::canyon::{
    drainage_canyon, separator_canyon, DrainageCanyonParams, SeparatorCanyonParams,
};
use bozkir_terrain::sculpt::detail::crags::{crags, CragParams};
use bozkir_terrain::sculpt::detail::fold::{lateral_fold, FoldParams};
use bozkir_terrain::sculpt::detail::plates::{plates, PlatesParams};
use bozkir_terrain::sculpt::detail::polish::{polish, PolishParams};
use bozkir_terrain::sculpt::detail::rills::{rills, RillParams};
use bozkir_terrain::sculpt::detail::sediment_floor::{sediment_floor, FloorLevel, SedimentFloorParams};
use bozkir_terrain::sculpt::detail::upsample::{upsample, UpsampleKernel, UpsampleParams};
use bozkir_terrain::sculpt::masks::normalise_mask;
use serde::Deserialize;

fn gate(lo: f64, hi: f64) -> Result<(), ParamError> {
    range("gate_lo_deg", lo, 0.0, 90.0)?;
    range("gate_hi_deg", hi, 0.0, 90.0)
}

/// `rills`: anisotropic downslope striations (seed 001 §6.2).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RillStage {
    pub across_m: f64,
    pub along_m: f64,
    pub amplitude_m: f64,
    pub gate_lo_deg: f64,
    pub gate_hi_deg: f64,
    /// Stretched noise layers (1..=8); layer `k` is `lacunarityᵏ` times finer, `gainᵏ` as loud.
    pub layers: u32,
    pub lacunarity: f64,
    pub gain: f64,
}

impl Default for RillStage {
    fn default() -> Self {
        let d = RillParams::default();
        Self {
            across_m: d.across_m,
            along_m: d.along_m,
            amplitude_m: d.amplitude_m,
            gate_lo_deg: d.gate_lo_deg,
            gate_hi_deg: d.gate_hi_deg,
            layers: d.layers,
            lacunarity: d.lacunarity,
            gain: d.gain,
        }
    }
}

impl StageOp for RillStage {
    const NAME: &'static str = "rills";
    fn validated(self) -> Result<Self, ParamError> {
        range("across_m", self.across_m, 1e-3, 1e6)?;
        range("along_m", self.along_m, 1e-3, 1e6)?;
        range("amplitude_m", self.amplitude_m, -1e4, 1e4)?;
        gate(self.gate_lo_deg, self.gate_hi_deg)?;
        count("layers", self.layers, 1, 8)?;
        range("lacunarity", self.lacunarity, 1.0, 8.0)?;
        range("gain", self.gain, 0.0, 1.0)?;
        Ok(self)
    }
    fn apply(&self, ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
        let seed = ctx.seed32();
        let d = RillParams::default();
        let p = RillParams {
            across_m: self.across_m,
            along_m: self.along_m,
            amplitude_m: self.amplitude_m,
            gate_lo_deg: self.gate_lo_deg,
            gate_hi_deg: self.gate_hi_deg,
            layers: self.layers,
            lacunarity: self.lacunarity,
            gain: self.gain,
            noise: bozkir_core::noise::FbmParams { seed, ..d.noise },
            ..d
        };
        state.height = rills(&state.height, &p);
        Ok(())
    }
}

/// `crags`: ridged and Voronoi crags on steep ground (seed 001 §3.5, §6.4).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CragStage {
    pub ridged_m: f64,
    pub voronoi_m: f64,
    pub gate_lo_deg: f64,
    pub gate_hi_deg: f64,
}

impl Default for CragStage {
    fn default() -> Self {
        let d = CragParams::default();
        Self { ridged_m: d.ridged_m, voronoi_m: d.voronoi_m, gate_lo_deg: d.gate_lo_deg, gate_hi_deg: d.gate_hi_deg }
    }
}

impl StageOp for CragStage {
    const NAME: &'static str = "crags";
    fn validated(self) -> Result<Self, ParamError> {
        range("ridged_m", self.ridged_m, -1e4, 1e4)?;
        range("voronoi_m", self.voronoi_m, -1e4, 1e4)?;
        gate(self.gate_lo_deg, self.gate_hi_deg)?;
        Ok(self)
    }
    fn apply(&self, ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
        let seed = ctx.seed32();
        let d = CragParams::default();
        let p = CragParams {
            ridged_m: self.ridged_m,
            voronoi_m: self.voronoi_m,
            gate_lo_deg: self.gate_lo_deg,
            gate_hi_deg: self.gate_hi_deg,
            ridged: bozkir_core::noise::RidgedParams { seed, ..d.ridged },
            cells: bozkir_core::noise::CellularParams { seed: seed ^ 0x51, ..d.cells },
            origin: state.origin,
        };
        state.height = crags(&state.height, &p);
        Ok(())
    }
}

/// `plates`: Voronoi plates and cracks on steep ground (seed 001 §6.4).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PlatesStage {
    pub plate_m: f64,
    pub crack_m: f64,
    pub gate_lo_deg: f64,
    pub gate_hi_deg: f64,
}

impl Default for PlatesStage {
    fn default() -> Self {
        let d = PlatesParams::default();
        Self { plate_m: d.plate_m, crack_m: d.crack_m, gate_lo_deg: d.gate_lo_deg, gate_hi_deg: d.gate_hi_deg }
    }
}

impl StageOp for PlatesStage {
    const NAME: &'static str = "plates";
    fn validated(self) -> Result<Self, ParamError> {
        range("plate_m", self.plate_m, -1e4, 1e4)?;
        range("crack_m", self.crack_m, -1e4, 1e4)?;
        gate(self.gate_lo_deg, self.gate_hi_deg)?;
        Ok(self)
    }
    fn apply(&self, ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
        let seed = ctx.seed32();
        let d = PlatesParams::default();
        let p = PlatesParams {
            plate_m: self.plate_m,
            crack_m: self.crack_m,
            gate_lo_deg: self.gate_lo_deg,
            gate_hi_deg: self.gate_hi_deg,
            cells: bozkir_core::noise::CellularParams { seed, ..d.cells },
            origin: state.origin,
            ..d
        };
        state.height = plates(&state.height, &p);
        Ok(())
    }
}

/// `polish`: flatness-weighted blur with a noise-varied radius (seed 001 §6, §9), optionally
/// washed harder where a mask (e.g. `deposit`) says sediment settled.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PolishStage {
    pub strength: f64,
    pub flat_deg: f64,
    pub steep_deg: f64,
    pub wash_strength: f64,
    /// Name of a recorded mask used as the wash (normalised by blur + tanh); "" for none.
    pub wash_mask: String,
}

impl Default for PolishStage {
    fn default() -> Self {
        let d = PolishParams::default();
        Self {
            strength: d.strength,
            flat_deg: d.flat_deg,
            steep_deg: d.steep_deg,
            wash_strength: d.wash_strength,
            wash_mask: String::new(),
        }
    }
}

impl StageOp for PolishStage {
    const NAME: &'static str = "polish";
    fn validated(self) -> Result<Self, ParamError> {
        range("strength", self.strength, 0.0, 1.0)?;
        range("wash_strength", self.wash_strength, 0.0, 1.0)?;
        range("flat_deg", self.flat_deg, 0.0, 90.0)?;
        range("steep_deg", self.steep_deg, 0.0, 90.0)?;
        Ok(self)
    }
    fn apply(&self, _ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
        let p = PolishParams {
            strength: self.strength,
            flat_deg: self.flat_deg,
            steep_deg: self.steep_deg,
            wash_strength: self.wash_strength,
            ..PolishParams::default()
        };
        let sigma = 2.0 * state.height.dx.max(state.height.dy);
        let wash = state.masks.get(&self.wash_mask).map(|m| normalise_mask(m, sigma, 1.0));
        state.height = polish(&state.height, &p, wash.as_ref());
        Ok(())
    }
}

/// `upsample`: bicubic (or bilinear) upsampling by an integer factor with optional detail noise;
/// masks follow bilinearly.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct UpsampleStage {
    pub factor: usize,
    /// "bicubic" or "bilinear".
    pub kernel: String,
    pub detail_m: f64,
}

impl Default for UpsampleStage {
    fn default() -> Self {
        Self { factor: 2, kernel: "bicubic".into(), detail_m: 0.0 }
    }
}

impl UpsampleStage {
    /// The kernel's parameters, with the stage's 32-bit seed for the detail noise.
    pub fn params(&self, seed: u32) -> UpsampleParams {
        let d = UpsampleParams::default();
        UpsampleParams {
            factor: self.factor,
            kernel: if self.kernel == "bilinear" { UpsampleKernel::Bilinear } else { UpsampleKernel::Bicubic },
            detail_m: self.detail_m,
            detail_noise: bozkir_core::noise::FbmParams { seed, ..d.detail_noise },
        }
    }
}

impl StageOp for UpsampleStage {
    const NAME: &'static str = "upsample";
    fn validated(self) -> Result<Self, ParamError> {
        count("factor", self.factor as u64, 2, 8)?;
        choice("kernel", &self.kernel, &["bicubic", "bilinear"], "\"bicubic\" or \"bilinear\"")?;
        range("detail_m", self.detail_m, 0.0, 1e4)?;
        Ok(self)
    }
    fn apply(&self, ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
        let long = state.height.width().max(state.height.height());
        let out = (long - 1) * self.factor + 1;
        if out > crate::parse::MAX_RESOLUTION + 1 {
            return Err(StageError::TooLarge { long, factor: self.factor, out });
        }
        let h = upsample(&state.height, &self.params(ctx.seed32()));
        let (w, hh) = (h.width(), h.height());
        for m in state.masks.values_mut() {
            *m = crate::state::resample(m, w, hh);
        }
        state.height = h;
        Ok(())
    }
}

/// `sediment_floor`: flat floors where a recorded mask (default `sediment`) says sediment lies
/// (seed 001 §6.7).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SedimentFloorStage {
    pub mask: String,
    /// Mask value (after blur + tanh normalisation) above which a cell is floor.
    pub threshold: f64,
    /// Height quantile of each floor region taken as its level (0 = its lowest cell).
    pub quantile: f64,
}

impl Default for SedimentFloorStage {
    fn default() -> Self {
        Self { mask: "sediment".into(), threshold: 0.5, quantile: 0.2 }
    }
}

impl StageOp for SedimentFloorStage {
    const NAME: &'static str = "sediment_floor";
    fn validated(self) -> Result<Self, ParamError> {
        range("threshold", self.threshold, 0.0, 1.0)?;
        range("quantile", self.quantile, 0.0, 1.0)?;
        Ok(self)
    }
    fn apply(&self, _ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
        let m = state.masks.get(&self.mask).ok_or_else(|| StageError::MissingMask {
            mask: self.mask.clone(),
            have: state.masks.keys().cloned().collect::<Vec<_>>().join(", "),
        })?;
        let sigma = 2.0 * state.height.dx.max(state.height.dy);
        let norm = normalise_mask(m, sigma, 1.0);
        let t = self.threshold;
        let hard = norm.map(|&v| if v >= t { 1.0 } else { 0.0 });
        let p = SedimentFloorParams { level: FloorLevel::Quantile(self.quantile), threshold: 0.5 };
        state.height = sediment_floor(&state.height, &hard, &p);
        Ok(())
    }
}

/// `canyon`: an authored canyon stamp (seed 001 §6.6): `kind = "separator"` along `path`
/// (points as fractions of the extent, 0..1), or `kind = "drainage"` along the flow network.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CanyonStage {
    pub kind: String,
    pub path: Vec<[f64; 2]>,
    pub width_m: f64,
    pub depth_m: f64,
    /// Drainage only: strata modulation strength, 0 (off) to 1.
    pub hardness: f64,
    /// Drainage only: stratum thickness, metres of height.
    pub band_m: f64,
    /// Drainage only: hard fraction (the lowest part) of each stratum.
    pub hard_fraction: f64,
}

impl Default for CanyonStage {
    fn default() -> Self {
        let d = DrainageCanyonParams::default();
        Self {
            kind: "drainage".into(),
            path: Vec::new(),
            width_m: 16.0,
            depth_m: 12.0,
            hardness: d.hardness,
            band_m: d.band_m,
            hard_fraction: d.hard_fraction,
        }
    }
}

impl StageOp for CanyonStage {
    const NAME: &'static str = "canyon";
    fn validated(self) -> Result<Self, ParamError> {
        match self.kind.as_str() {
            "drainage" => {}
            "separator" => {
                if self.path.len() < 2 || self.path.iter().flatten().any(|v| !(0.0..=1.0).contains(v)) {
                    return Err(ParamError::Rule(
                        "a separator canyon needs a path of at least 2 points with coordinates in 0..1",
                    ));
                }
            }
            _ => choice("kind", &self.kind, &["separator", "drainage"], "\"separator\" or \"drainage\"")?,
        }
        range("width_m", self.width_m, 1e-3, 1e6)?;
        range("depth_m", self.depth_m, 0.0, 1e5)?;
        range("hardness", self.hardness, 0.0, 1.0)?;
        range("band_m", self.band_m, 1e-3, 1e5)?;
        range("hard_fraction", self.hard_fraction, 0.0, 1.0)?;
        if self.kind == "separator" && self.hardness > 0.0 {
            return Err(ParamError::Rule("hardness applies to kind = \"drainage\" only"));
        }
        Ok(self)
    }
    fn apply(&self, _ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
        let g = &state.height;
        if self.kind == "separator" {
            let (ex, ey) = ((g.width() - 1) as f64 * g.dx, (g.height() - 1) as f64 * g.dy);
            let p = SeparatorCanyonParams {
                path: self.path.iter().map(|[x, y]| [x * ex, y * ey]).collect(),
                width_m: self.width_m,
                depth_m: self.depth_m,
                ..SeparatorCanyonParams::default()
            };
            state.height = separator_canyon(g, &p);
        } else {
            let p = DrainageCanyonParams {
                width_m: self.width_m,
                depth_m: self.depth_m,
                hardness: self.hardness,
                band_m: self.band_m,
                hard_fraction: self.hard_fraction,
                ..DrainageCanyonParams::default()
            };
            state.height = drainage_canyon(g, &p);
        }
        Ok(())
    }
}

/// `fold`: lateral fold displacement for meshes (seed 001 §6.5), recorded as the masks
/// `fold_east` and `fold_south` (metres); heights are unchanged.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FoldStage {
    pub amplitude_m: f64,
    pub gate_lo_deg: f64,
    pub gate_hi_deg: f64,
}

impl Default for FoldStage {
    fn default() -> Self {
        let d = FoldParams::default();
        Self { amplitude_m: d.amplitude_m, gate_lo_deg: d.gate_lo_deg, gate_hi_deg: d.gate_hi_deg }
    }
}

impl StageOp for FoldStage {
    const NAME: &'static str = "fold";
    fn validated(self) -> Result<Self, ParamError> {
        range("amplitude_m", self.amplitude_m, 0.0, 1e4)?;
        gate(self.gate_lo_deg, self.gate_hi_deg)?;
        Ok(self)
    }
    fn apply(&self, ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
        let seed = ctx.seed32();
        let d = FoldParams::default();
        let p = FoldParams {
            amplitude_m: self.amplitude_m,
            gate_lo_deg: self.gate_lo_deg,
            gate_hi_deg: self.gate_hi_deg,
            noise: bozkir_core::noise::FbmParams { seed, ..d.noise },
            ..d
        };
        let f = lateral_fold(&state.height, &p);
        state.masks.insert("fold_east".into(), f.east);
        state.masks.insert("fold_south".into(), f.south);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::parse::parse;
    use crate::stages::Op;

    fn one(stage: &str) -> Result<Op, String> {
        let text = format!("size = 32\n[[stage]]\n{stage}\n");
        parse(&text, "t.toml").map(|r| r.stages[0].op.clone()).map_err(|e| e.to_string())
    }

    #[test]
    fn rill_layers_parse_and_are_range_checked() {
        match one("op = \"rills\"\nlayers = 4\nlacunarity = 2.5\ngain = 0.4").unwrap() {
            Op::Rills(r) => assert_eq!((r.layers, r.lacunarity, r.gain), (4, 2.5, 0.4)),
            o => panic!("{o:?}"),
        }
        match one("op = \"rills\"").unwrap() {
            Op::Rills(r) => assert_eq!((r.layers, r.lacunarity, r.gain), (3, 2.0, 0.5), "the terrain defaults"),
            o => panic!("{o:?}"),
        }
        for (bad, needle) in [
            ("layers = 0", "layers must be 1..=8, got 0"),
            ("layers = 9", "layers must be 1..=8, got 9"),
            ("lacunarity = 0.5", "lacunarity must be in 1..=8"),
            ("gain = 1.5", "gain must be in 0..=1"),
            ("octaves = 3", "octaves"),
        ] {
            let e = one(&format!("op = \"rills\"\n{bad}")).unwrap_err();
            assert!(e.contains(needle) && e.contains("line 2") && e.contains("rills"), "{bad}: {e}");
        }
    }

    #[test]
    fn reverse_debris_routing_parameters() {
        match one("op = \"reverse\"\ntoe_deg = 25.0\ndebris_in_region = false\ndebris_spread = 2").unwrap() {
            Op::Reverse(r) => assert_eq!((r.toe_deg, r.debris_in_region, r.debris_spread), (25.0, false, 2)),
            o => panic!("{o:?}"),
        }
        let e = one("op = \"reverse\"\ntoe_deg = 95.0").unwrap_err();
        assert!(e.contains("toe_deg must be in 0..=89.9, got 95"), "{e}");
        let e = one("op = \"reverse\"\ndebris_spread = 40").unwrap_err();
        assert!(e.contains("debris_spread must be 0..=16, got 40"), "{e}");
    }

    #[test]
    fn canyon_hardness_parameters() {
        match one("op = \"canyon\"\nhardness = 0.6\nband_m = 15.0\nhard_fraction = 0.3").unwrap() {
            Op::Canyon(c) => assert_eq!((c.hardness, c.band_m, c.hard_fraction), (0.6, 15.0, 0.3)),
            o => panic!("{o:?}"),
        }
        let e = one("op = \"canyon\"\nhardness = 2.0").unwrap_err();
        assert!(e.contains("hardness must be in 0..=1, got 2"), "{e}");
        let e = one("op = \"canyon\"\nband_m = 0.0").unwrap_err();
        assert!(e.contains("band_m must be in"), "{e}");
        let e =
            one("op = \"canyon\"\nkind = \"separator\"\npath = [[0.1, 0.1], [0.9, 0.9]]\nhardness = 0.5").unwrap_err();
        assert!(e.contains("hardness applies to kind = \"drainage\" only"), "{e}");
    }
}

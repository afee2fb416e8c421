//! Erosion stages (seed 001 §4.1–§4.5): `stream_power` (Braun & Willett 2013), the `fill`,
//! `slab`, `droplets`, `thermal` and `shallow_water`. Each records what it did as masks: `wear`
//! and `sediment` (stream power), `wear` and `deposit` (droplets, water), `water` (shallow
//! water). The heavy ones name their [`KernelKind`] and offer it to the run's kernels first.

use super::sculpt::unit;
use super::{StageCtx, StageOp};
use crate::error::{choice, count, range, terrain, ParamError, StageError};
use crate::state::State;
use bozkir_terrain::erosion::droplets::{erode_droplets, DropletCount, DropletMode, DropletParams};
use bozkir_terrain::erosion::shallow_water::{shallow_water, ShallowWaterParams};
use bozkir_terrain::erosion::slab::{slab_filter, SlabParams};
use bozkir_terrain::erosion::stream_power::{stream_power, StreamPowerParams};
use bozkir_terrain::erosion::thermal::{thermal, ThermalParams};
use bozkir_terrain::hydrology::priority_flood::fill_epsilon;
use bozkir_terrain::kernels::KernelKind;
use serde::Deserialize;

/// `stream_power`: Braun & Willett (2013) in metres and years (see `bozkir erode`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StreamPowerStage {
    /// Time steps. Default 20.
    pub steps: usize,
    /// Incision coefficient K.
    pub k: f64,
    /// Drainage-area exponent m (slope exponent n = 1).
    pub m: f64,
    /// Time step, years.
    pub dt: f64,
    /// Uplift rate, m/yr, times `uplift_map` (`"height"`: the normalised height; `"none"`: 1).
    pub uplift: f64,
    /// `"height"` or `"none"`.
    pub uplift_map: String,
    /// Hillslope diffusivity, m²/yr.
    pub kappa: f64,
    /// Drainage-area cap in cells (detail passes), 0 = none.
    pub area_cap_cells: f64,
    /// Drainage-area floor in m², 0 = none: one cell at the size the parameters were tuned at,
    /// so a finer run's hilltops steepen no further than there (see `StreamPowerParams::area_floor`).
    pub area_floor_m2: f64,
    /// Cells of margin around the grid, 0 = none. The stage runs on the grid grown by this many
    /// cells a side — each margin cell the height of the nearest edge cell less 1 % of its
    /// distance from the grid (flow leaves outward), its uplift that edge cell's — and keeps the
    /// middle. The fixed base level then sits on the margin's outer edge, and the steep band it
    /// forces (cells that drain only themselves next to the outlet) is cut away with the margin.
    pub margin_cells: usize,
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
            margin_cells: 0,
        }
    }
}

impl StreamPowerStage {
    /// The terrain parameters on cells of `cell` m² (the area cap is given in cells).
    fn params(&self, uplift_map: Option<bozkir_core::Grid<f64>>, cell: f64) -> StreamPowerParams {
        StreamPowerParams {
            k: self.k,
            m: self.m,
            dt: self.dt,
            steps: self.steps,
            uplift: self.uplift,
            uplift_map,
            kappa: self.kappa,
            area_cap: (self.area_cap_cells > 0.0).then_some(self.area_cap_cells * cell),
            area_floor: (self.area_floor_m2 > 0.0).then_some(self.area_floor_m2),
            guards: true,
        }
    }
}

impl StageOp for StreamPowerStage {
    const NAME: &'static str = "stream_power";
    fn validated(self) -> Result<Self, ParamError> {
        // The recipe's own caps, tighter than the rule's; `m`'s range is the rule's alone
        // (`StreamPowerParams::validate`, below).
        count("steps", self.steps as u64, 1, 100_000)?;
        range("k", self.k, 0.0, 1e6)?;
        range("dt", self.dt, 1e-9, 1e9)?;
        range("uplift", self.uplift, 0.0, 1e6)?;
        range("kappa", self.kappa, 0.0, 1e9)?;
        range("area_cap_cells", self.area_cap_cells, 0.0, 1e12)?;
        range("area_floor_m2", self.area_floor_m2, 0.0, 1e12)?;
        count("margin_cells", self.margin_cells as u64, 0, 1024)?;
        choice("uplift_map", &self.uplift_map, &["height", "none"], "\"height\" or \"none\"")?;
        self.params(None, 1.0).validate().map_err(terrain)?;
        Ok(self)
    }
    fn kernel(&self) -> Option<KernelKind> {
        Some(KernelKind::StreamPower)
    }
    fn apply(&self, ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
        let umap = (self.uplift > 0.0 && self.uplift_map == "height").then(|| unit(&state.height).0);
        let g = self.margin_cells;
        let h = &state.height;
        let (w, hh) = (h.width(), h.height());
        // The grid grown by the margin: nearest edge cell's height less 1 % of the distance.
        let grow = |src: &bozkir_core::Grid<f64>, drop: f64| {
            bozkir_core::Grid::from_fn(w + 2 * g, hh + 2 * g, |x, y| {
                let (cx, cy) = (x.clamp(g, g + w - 1) - g, y.clamp(g, g + hh - 1) - g);
                let d = (x.abs_diff(cx + g).max(y.abs_diff(cy + g))) as f64;
                src.get(cx, cy) - drop * d
            })
            .with_cell_size(src.dx, src.dy)
        };
        // Without a margin the height grid goes in as it is (no copy).
        let (input, umap) = if g > 0 {
            (std::borrow::Cow::Owned(grow(h, 0.01 * h.dx.min(h.dy))), umap.map(|u| grow(&u, 0.0)))
        } else {
            (std::borrow::Cow::Borrowed(h), umap)
        };
        let p = self.params(umap, h.dx * h.dy);
        let out = match ctx.kernels.stream_power(&input, &p, ctx.progress)? {
            Some(o) => o,
            None => stream_power(&input, &p, ctx.progress),
        };
        let cut = |m: bozkir_core::Grid<f64>| if g > 0 { m.crop(g, g, w, hh) } else { m };
        state.height = cut(out.height);
        state.accumulate_mask("wear", &cut(out.eroded));
        state.accumulate_mask("sediment", &cut(out.sediment));
        Ok(())
    }
}

/// `fill`: ε priority-flood depression filling (Barnes et al. 2014).
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct FillStage {}

impl StageOp for FillStage {
    const NAME: &'static str = "fill";
    fn kernel(&self) -> Option<KernelKind> {
        Some(KernelKind::Fill)
    }
    fn apply(&self, ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
        state.height = match ctx.kernels.fill(&state.height)? {
            Some(f) => f,
            None => fill_epsilon(&state.height),
        };
        Ok(())
    }
}

/// `slab`: cap slopes to a window's implied angle (seed 001 §4.5).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SlabStage {
    /// Largest slope, degrees.
    pub angle_deg: f64,
    /// Window radius, metres.
    pub window_m: f64,
    /// Passes (1..=64).
    pub passes: u32,
    /// Blend weight of each pass, 0..1.
    pub opacity: f64,
    /// Also cap along the diagonals.
    pub diagonals: bool,
}

impl Default for SlabStage {
    fn default() -> Self {
        let d = SlabParams::default();
        Self {
            angle_deg: d.angle_deg,
            window_m: d.window_m,
            passes: d.passes,
            opacity: d.opacity,
            diagonals: d.diagonals,
        }
    }
}

impl StageOp for SlabStage {
    const NAME: &'static str = "slab";
    fn validated(self) -> Result<Self, ParamError> {
        range("angle_deg", self.angle_deg, 0.1, 89.9)?;
        if self.window_m.is_nan() || self.window_m <= 0.0 {
            return Err(ParamError::Above { name: "window_m", value: self.window_m, lo: 0.0 });
        }
        range("opacity", self.opacity, 0.0, 1.0)?;
        count("passes", self.passes, 1, 64)?;
        Ok(self)
    }
    fn apply(&self, _ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
        let p = SlabParams {
            angle_deg: self.angle_deg,
            window_m: self.window_m,
            passes: self.passes,
            opacity: self.opacity,
            diagonals: self.diagonals,
        };
        state.height = slab_filter(&state.height, &p);
        Ok(())
    }
}

/// `droplets`: Beyer/Lague droplet erosion, batch-synchronous in fixed point (same bytes at
/// any thread count).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DropletStage {
    /// Droplets in total (0: `per_cell` instead).
    pub count: u32,
    /// Droplets per cell when `count` is 0.
    pub per_cell: f64,
    /// Maximum steps per droplet.
    pub lifetime: u32,
    /// Inertia, 0..1 (0 follows the gradient exactly).
    pub inertia: f64,
    /// Sediment capacity factor.
    pub capacity: f64,
    /// Capacity floor as a slope, m/m.
    pub min_slope: f64,
    /// Fraction of the free capacity eroded per step.
    pub erode: f64,
    /// Fraction of the surplus sediment deposited per step.
    pub deposit: f64,
    /// Fraction of the water evaporated per step.
    pub evaporation: f64,
    /// Gravity in the speed update.
    pub gravity: f64,
    /// Erosion brush radius, cells.
    pub radius: f64,
    /// Droplets per batch (when `batch_per_cell` is 0).
    pub batch_size: u32,
    /// Droplets per batch as a share of the cell count (0: `batch_size` instead). The batch's
    /// droplets do not see each other, so a fixed share keeps the same density of unseen
    /// neighbours per area at any resolution, where a fixed `batch_size` makes a fine grid's
    /// batches ever sparser and its run ever longer (1/256 is 1024 at 512², 262 144 at 8192²).
    pub batch_per_cell: f64,
    /// "batched" (default) or "sequential" (the classic single-threaded variant).
    pub mode: String,
    /// Sea level in metres: droplets do nothing under it and end on reaching it (their sediment
    /// lost to the sea), so the sea floor is not gullied. Default: no sea.
    pub sea_level: Option<f64>,
    /// Seed (32 bits); default: derived from the recipe seed and the stage's position.
    pub seed: Option<u64>,
}

impl Default for DropletStage {
    fn default() -> Self {
        let d = DropletParams::default();
        Self {
            count: 0,
            per_cell: 0.5,
            lifetime: d.lifetime,
            inertia: d.inertia,
            capacity: d.capacity,
            min_slope: d.min_slope,
            erode: d.erode,
            deposit: d.deposit,
            evaporation: d.evaporation,
            gravity: d.gravity,
            radius: d.radius,
            batch_size: d.batch_size,
            batch_per_cell: 0.0,
            mode: "batched".into(),
            sea_level: None,
            seed: None,
        }
    }
}

impl DropletStage {
    fn params(&self, seed: u32, cells: usize) -> DropletParams {
        DropletParams {
            droplets: if self.count > 0 {
                DropletCount::Total(self.count)
            } else {
                DropletCount::PerCell(self.per_cell)
            },
            lifetime: self.lifetime,
            inertia: self.inertia,
            capacity: self.capacity,
            min_slope: self.min_slope,
            erode: self.erode,
            deposit: self.deposit,
            evaporation: self.evaporation,
            gravity: self.gravity,
            radius: self.radius,
            batch_size: if self.batch_per_cell > 0.0 {
                (self.batch_per_cell * cells as f64).round().clamp(1.0, u32::MAX as f64) as u32
            } else {
                self.batch_size
            },
            mode: if self.mode == "sequential" { DropletMode::Sequential } else { DropletMode::Batched },
            seed,
            sea_level: self.sea_level,
            ..DropletParams::default()
        }
    }
}

impl StageOp for DropletStage {
    const NAME: &'static str = "droplets";
    fn validated(self) -> Result<Self, ParamError> {
        choice("mode", &self.mode, &["batched", "sequential"], "\"batched\" or \"sequential\"")?;
        // `batch_per_cell` is the stage's own (it sets `DropletParams::batch_size`); the rest
        // are `DropletParams::validate`'s ranges.
        range("batch_per_cell", self.batch_per_cell, 0.0, 1.0)?;
        // `per_cell` is checked even when `count` overrides it, as it always was.
        let p = DropletParams { droplets: DropletCount::PerCell(self.per_cell), ..self.params(0, 1) };
        p.validate().map_err(terrain)?;
        Ok(self)
    }
    fn seed(&self) -> Option<u64> {
        self.seed
    }
    fn kernel(&self) -> Option<KernelKind> {
        Some(KernelKind::Droplets)
    }
    fn apply(&self, ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
        let p = self.params(ctx.seed32(), state.height.len());
        if self.sea_level.is_some() {
            state.sea_level = self.sea_level;
        }
        let out = match ctx.kernels.droplets(&state.height, &p, ctx.progress)? {
            Some(o) => o,
            None => erode_droplets(&state.height, &p, ctx.progress),
        };
        state.height = out.height;
        state.accumulate_mask("wear", &out.wear);
        state.accumulate_mask("deposit", &out.deposit);
        Ok(())
    }
}

/// `thermal`: talus relaxation, as scree-maker (`preset = "scree"`) or spike guard
/// (`preset = "spike_guard"`), with any parameter overridden.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ThermalStage {
    /// `"scree"` or `"spike_guard"` (default).
    pub preset: String,
    /// Talus angle, degrees (default: the preset's).
    pub talus_deg: Option<f64>,
    /// Margin above the talus angle, degrees (default: the preset's).
    pub margin_deg: Option<f64>,
    /// Fraction of half the largest excess moved per iteration (default: the preset's).
    pub rate: Option<f64>,
    /// Iterations (default: the preset's).
    pub iterations: Option<usize>,
}

impl Default for ThermalStage {
    fn default() -> Self {
        Self { preset: "spike_guard".into(), talus_deg: None, margin_deg: None, rate: None, iterations: None }
    }
}

impl ThermalStage {
    /// The kernel's parameters: the preset's, with the overrides given.
    pub fn params(&self) -> ThermalParams {
        let mut p = if self.preset == "scree" { ThermalParams::scree_maker() } else { ThermalParams::spike_guard() };
        if let Some(v) = self.talus_deg {
            p.talus_deg = v;
        }
        if let Some(v) = self.margin_deg {
            p.margin_deg = v;
        }
        if let Some(v) = self.rate {
            p.rate = v;
        }
        if let Some(v) = self.iterations {
            p.iterations = v;
        }
        p
    }
}

impl StageOp for ThermalStage {
    const NAME: &'static str = "thermal";
    fn validated(self) -> Result<Self, ParamError> {
        choice("preset", &self.preset, &["scree", "spike_guard"], "\"scree\" or \"spike_guard\"")?;
        let p = self.params();
        p.validate().map_err(terrain)?;
        // The recipe's own budget (not a range of the rule; see `ThermalParams::validate`).
        if p.iterations > 100_000 {
            return Err(ParamError::AtMost { name: "iterations", value: p.iterations as u64, hi: 100_000 });
        }
        Ok(self)
    }
    fn kernel(&self) -> Option<KernelKind> {
        Some(KernelKind::Thermal)
    }
    fn apply(&self, ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
        let p = self.params();
        state.height = match ctx.kernels.thermal(&state.height, &p, ctx.progress)? {
            Some(h) => h,
            None => thermal(&state.height, &p, ctx.progress),
        };
        Ok(())
    }
}

/// `shallow_water`: virtual-pipe shallow water with hydraulic erosion (Mei et al. 2007).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ShallowWaterStage {
    /// Time steps (1..=1000000). Default 200.
    pub steps: usize,
    /// Rain, m/s.
    pub rain_rate: f64,
    /// Sediment capacity constant `Kc`, seconds.
    pub capacity: f64,
    /// Dissolving rate `Ks`, 1/s.
    pub dissolve: f64,
    /// Deposition rate `Kd`, 1/s.
    pub deposit: f64,
    /// Evaporation rate `Ke`, 1/s.
    pub evaporation: f64,
    /// MacCormack advection instead of semi-Lagrangian.
    pub maccormack: bool,
}

impl Default for ShallowWaterStage {
    fn default() -> Self {
        let d = ShallowWaterParams::default();
        Self {
            steps: 200,
            rain_rate: d.rain_rate,
            capacity: d.capacity,
            dissolve: d.dissolve,
            deposit: d.deposit,
            evaporation: d.evaporation,
            maccormack: d.maccormack,
        }
    }
}

impl ShallowWaterStage {
    /// The terrain parameters (the rest at their defaults).
    fn params(&self) -> ShallowWaterParams {
        ShallowWaterParams {
            steps: self.steps,
            rain_rate: self.rain_rate,
            capacity: self.capacity,
            dissolve: self.dissolve,
            deposit: self.deposit,
            evaporation: self.evaporation,
            maccormack: self.maccormack,
            ..ShallowWaterParams::default()
        }
    }
}

impl StageOp for ShallowWaterStage {
    const NAME: &'static str = "shallow_water";
    fn validated(self) -> Result<Self, ParamError> {
        // The recipe's own caps, tighter than the rule's (`ShallowWaterParams::validate`, below).
        count("steps", self.steps as u64, 1, 1_000_000)?;
        range("rain_rate", self.rain_rate, 0.0, 1.0)?;
        range("capacity", self.capacity, 0.0, 1e3)?;
        range("dissolve", self.dissolve, 0.0, 1e3)?;
        range("deposit", self.deposit, 0.0, 1e3)?;
        range("evaporation", self.evaporation, 0.0, 1.0)?;
        self.params().validate().map_err(terrain)?;
        Ok(self)
    }
    fn kernel(&self) -> Option<KernelKind> {
        Some(KernelKind::ShallowWater)
    }
    fn apply(&self, ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
        let p = self.params();
        let out = match ctx.kernels.shallow_water(&state.height, &p, ctx.progress)? {
            Some(o) => o,
            None => shallow_water(&state.height, &p, ctx.progress),
        };
        state.height = out.height;
        state.accumulate_mask("wear", &out.eroded);
        state.accumulate_mask("deposit", &out.deposited);
        state.masks.insert("water".into(), out.water);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::builtin;
    use crate::run::run;
    use bozkir_core::{Grid, NoProgress};

    /// ds2's droplet batch is a share of the cells: 1024 at its own 512², the same share at
    /// 8192²; a bad share is refused by name; without a share `batch_size` stands.
    #[test]
    fn batch_per_cell_scales_the_batch_with_the_grid() {
        use crate::parse::parse;
        use crate::stages::Op;
        let r = builtin("ds2").unwrap();
        let Some(Op::Droplets(d)) = r.stages.iter().map(|s| &s.op).find(|o| o.name() == "droplets") else {
            panic!("ds2 has a droplet stage")
        };
        assert_eq!(d.params(0, 512 * 512).batch_size, 1024, "ds2's own size keeps its batch");
        assert_eq!(d.params(0, 8192 * 8192).batch_size, 262_144);
        assert_eq!(d.params(0, 10).batch_size, 1, "at least one droplet a batch");
        let plain = DropletStage { batch_size: 77, ..DropletStage::default() };
        assert_eq!(plain.params(0, 8192 * 8192).batch_size, 77);
        for bad in ["-0.1", "1.5", "nan"] {
            let text = format!("size = 32\n[[stage]]\nop = \"droplets\"\nbatch_per_cell = {bad}\n");
            let e = parse(&text, "b.toml").unwrap_err().to_string();
            assert!(e.contains("batch_per_cell"), "{bad}: {e}");
        }
        let e = parse("size = 32\n[[stage]]\nop = \"stream_power\"\narea_floor_m2 = -1\n", "f.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("area_floor_m2"), "{e}");
    }

    /// The thermal stage's ranges are `ThermalParams::validate`'s: a talus plus margin at 90°
    /// or a rate of 0 (which the run itself would refuse) are refused when parsed, by name.
    #[test]
    fn thermal_ranges_are_the_rules() {
        use crate::parse::parse;
        for (bad, needle) in [
            ("talus_deg = 95.0", "talus_deg must be in [0, 90), got 95"),
            ("talus_deg = 60.0\nmargin_deg = 40.0", "margin_deg must be >= 0 with talus_deg + margin_deg < 90"),
            ("rate = 0.0", "rate must be in (0, 1], got 0"),
            ("iterations = 100001", "iterations must be at most 100000, got 100001"),
        ] {
            let text = format!("size = 32\n[[stage]]\nop = \"thermal\"\n{bad}\n");
            let e = parse(&text, "t.toml").unwrap_err().to_string();
            assert!(e.contains(needle) && e.contains("thermal"), "{bad}: {e}");
        }
        let ok = "size = 32\n[[stage]]\nop = \"thermal\"\ntalus_deg = 0.0\nrate = 1.0\n";
        assert!(parse(ok, "t.toml").is_ok());
        let e = parse("size = 32\n[[stage]]\nop = \"droplets\"\nper_cell = 1001\n", "d.toml").unwrap_err().to_string();
        assert!(e.contains("per_cell") && e.contains("1001") && e.contains("1000"), "{e}");
    }

    /// The area floor of ds2's stream power: no change on cells as large as the floor (the
    /// recipe's own size), a change on finer ones; and on the finer grid it keeps the
    /// hillslopes gentler than without it.
    #[test]
    fn ds2_area_floor_acts_only_below_its_cell_size() {
        let mut r = builtin("ds2").unwrap();
        r.stages.truncate(4);
        let without = |r: &crate::parse::Recipe| {
            let mut r = r.clone();
            if let crate::stages::Op::StreamPower(sp) = &mut r.stages[3].op {
                assert_eq!(sp.area_floor_m2, 2.734375 * 2.734375);
                sp.area_floor_m2 = 0.0;
            } else {
                panic!("ds2's fourth stage is the stream power");
            }
            r
        };
        let go = |r: &crate::parse::Recipe, size: usize, cell: f64| {
            run(r, size, cell, 0, &NoProgress, |_| {}).unwrap().height
        };
        // ds2's own 2.734375 m cells: every cell drains at least the floor, nothing changes.
        let coarse = without(&r);
        assert_eq!(go(&r, 48, 2.734375).data(), go(&coarse, 48, 2.734375).data());
        // 1 m cells, finer than the floor: the headwaters change and steepen less.
        let (a, b) = (go(&r, 64, 1.0), go(&coarse, 64, 1.0));
        assert_ne!(a.data(), b.data());
        let mean_drop = |g: &Grid<f64>| {
            let d = g.data();
            let w = g.width();
            (1..g.height()).map(|y| (0..w).map(|x| (d[y * w + x] - d[(y - 1) * w + x]).abs()).sum::<f64>()).sum::<f64>()
        };
        assert!(mean_drop(&a) < mean_drop(&b), "the floor should keep the slopes gentler");
    }
}

//! Stages of the world layer (issue 21): `landscape` and `composite` replace the field with that
//! `bozkir-world` generator's world on the recipe's grid; `roads` lays a road network over the
//! field as it stands and grades it. Their parameters are the generator's own (pyworldgen's
//! names, checked by the world crate, unknown ones refused) plus `seed` and `compat`; the grid's
//! size and cell size come from the recipe, so `domain_size` and `resolution` are refused.
//!
//! Masks recorded: `water_depth` (metres) by every stage; `road` and `bridge` (1 on the cells)
//! by `roads` and by `composite` with `add_roads`; `biome_<name>` (weights, a partition of
//! unity) and `dominant` (palette index) by `composite`; `material` (the landscape's classes,
//! water → upland) by `landscape`.

use super::{StageCtx, StageOp};
use crate::error::{ParamError, StageError};
use crate::state::State;
use bozkir_world::field::north_up;
use bozkir_world::product::{WorldProduct, WorldSpec};
use bozkir_world::{Compat, Seed, WorldGrid};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// What the three stages share: the generator's parameters, an explicit seed, the randomness.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct WorldStageParams {
    /// An explicit 32-bit seed (else derived from the recipe's).
    #[serde(default)]
    pub seed: Option<u64>,
    /// `"canonical"` (the default: our hash) or `"pyworldgen"` (the peer's randomness).
    #[serde(default = "canonical")]
    pub compat: String,
    /// The generator's parameters, pyworldgen's names.
    #[serde(flatten)]
    pub params: BTreeMap<String, toml::Value>,
}

fn canonical() -> String {
    "canonical".into()
}

impl WorldStageParams {
    fn compat(&self) -> Compat {
        if self.compat == "pyworldgen" {
            Compat::Pyworldgen
        } else {
            Compat::Canonical
        }
    }

    /// The parameters as the world crate takes them (a JSON object).
    fn overrides(&self) -> Result<Map<String, Value>, ParamError> {
        let mut m = Map::new();
        for (k, v) in &self.params {
            if k == "domain_size" || k == "resolution" {
                return Err(ParamError::World(format!(
                    "{k}: set by the recipe's grid (its size and cell size), not by the stage"
                )));
            }
            let v = serde_json::to_value(v).map_err(|e| ParamError::World(format!("{k}: {e}")))?;
            m.insert(k.clone(), v);
        }
        Ok(m)
    }

    /// Checks `compat` and the generator's parameters (on the generator's default grid).
    fn check(self, generator: &str) -> Result<Self, ParamError> {
        crate::error::choice("compat", &self.compat, &["canonical", "pyworldgen"], "\"canonical\" or \"pyworldgen\"")?;
        let o = self.overrides()?;
        let seed = Seed::Int(0);
        if generator == "roads" {
            WorldSpec::resolve_on(seed, self.compat(), &o, "recipe").map_err(world_param)?;
        } else {
            WorldSpec::resolve(generator, seed, self.compat(), &o).map_err(world_param)?;
        }
        Ok(self)
    }

    /// The spec of `generator` on the state's grid with the stage's seed.
    fn spec(&self, generator: &str, ctx: &StageCtx, state: &State) -> Result<WorldSpec, StageError> {
        let g = &state.height;
        let (w, h) = (g.width(), g.height());
        if (g.dx - g.dy).abs() > 1e-9 * g.dx.abs().max(g.dy.abs()) {
            return Err(StageError::World(format!(
                "{generator} needs square cells; the grid has {} × {} m",
                g.dx, g.dy
            )));
        }
        let mut o = self.overrides()?;
        o.insert("domain_size".into(), Value::from(vec![w as f64 * g.dx, h as f64 * g.dy]));
        o.insert("resolution".into(), Value::from(g.dx));
        let seed = Seed::Int(ctx.seed() as i64);
        let spec = WorldSpec::resolve(generator, seed, self.compat(), &o).map_err(world_stage)?;
        let shape = spec.shape().map_err(world_stage)?;
        if shape != (w, h) {
            return Err(StageError::World(format!(
                "{generator}: the world has {}×{} cells for the recipe's {w}×{h}",
                shape.0, shape.1
            )));
        }
        Ok(spec)
    }
}

fn world_param(e: bozkir_world::WorldError) -> ParamError {
    ParamError::World(e.to_string())
}

fn world_stage(e: bozkir_world::WorldError) -> StageError {
    StageError::World(e.to_string())
}

/// Puts a world product into the state: its heights, and its fields as masks.
fn store(p: &WorldProduct, state: &mut State) {
    let g = &p.grid;
    let up = |v: &[f64]| north_up(g.nx, g.ny, g.dx, g.dy, v);
    let flag = |m: &[bool]| up(&m.iter().map(|&b| f64::from(u8::from(b))).collect::<Vec<f64>>());
    state.height = g.height_grid();
    state.masks.insert("water_depth".into(), g.water_grid());
    state.water_ground = Some(state.height.clone());
    if let Some(m) = &p.road_mask {
        state.masks.insert("road".into(), flag(m));
    }
    if let Some(m) = &p.bridge_mask {
        state.masks.insert("bridge".into(), flag(m));
    }
    if let Some(b) = &p.biomes {
        for (name, f) in b.names.iter().zip(&b.fields) {
            let v: Vec<f64> = f.iter().map(|&x| f64::from(x)).collect();
            state.masks.insert(format!("biome_{name}"), up(&v));
        }
    }
    if let Some(d) = &p.dominant {
        state.masks.insert("dominant".into(), up(&d.iter().map(|&x| f64::from(x)).collect::<Vec<f64>>()));
    }
    if let Some(c) = &p.materials {
        state.masks.insert("material".into(), up(&c.cells.iter().map(|&x| f64::from(x)).collect::<Vec<f64>>()));
    }
}

/// A generator stage: the world replaces the field and its masks.
fn replace(generator: &str, s: &WorldStageParams, ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
    let spec = s.spec(generator, ctx, state)?;
    let p = spec.generate().map_err(world_stage)?;
    state.masks.clear();
    store(&p, state);
    Ok(())
}

macro_rules! world_stage {
    ($(#[$doc:meta])* $ty:ident, $name:literal, $apply:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Deserialize)]
        #[serde(transparent)]
        pub struct $ty(pub WorldStageParams);

        impl StageOp for $ty {
            const NAME: &'static str = $name;
            fn validated(self) -> Result<Self, ParamError> {
                self.0.check($name).map(Self)
            }
            fn seed(&self) -> Option<u64> {
                self.0.seed
            }
            fn apply(&self, ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
                let f: fn(&WorldStageParams, &StageCtx, &mut State) -> Result<(), StageError> = $apply;
                f(&self.0, ctx, state)
            }
        }
    };
}

world_stage!(
    /// `landscape`: pyworldgen's river-valley landscape on the recipe's grid (rivers with
    /// monotone beds, ponds, materials); records `water_depth` and `material`.
    LandscapeStage,
    "landscape",
    |s, ctx, state| replace("landscape", s, ctx, state)
);

world_stage!(
    /// `composite`: the multi-biome world on the recipe's grid (built-in palette); records
    /// `water_depth`, `biome_<name>`, `dominant` and, with `add_roads`, `road` and `bridge`.
    CompositeStage,
    "composite",
    |s, ctx, state| replace("composite", s, ctx, state)
);

world_stage!(
    /// `roads`: a least-cost road network (Galin et al.) over the field as it stands (its
    /// `water_depth` mask, if any, is the water: re-derived from the recorded water surface when
    /// stages since have moved the ground), the field graded along the roads; records `road`
    /// and `bridge`, and the water depth it routed over.
    RoadsStage,
    "roads",
    |s, ctx, state| {
        let seed = Seed::Int(ctx.seed() as i64);
        let spec = WorldSpec::resolve_on(seed, s.compat(), &s.overrides()?, "recipe").map_err(world_stage)?;
        let mut base = WorldGrid::from_grid(&state.height);
        // The water as it stands: a depth recorded before later stages moved the ground is
        // re-derived from its surface.
        let water = state.water_depth_now();
        if let Some(w) = &water {
            base.water_depth = WorldGrid::from_grid(w).height;
        }
        let ground = state.height.clone();
        let p = spec.generate_on(&base).map_err(world_stage)?;
        store(&p, state);
        match water {
            Some(w) => {
                state.masks.insert("water_depth".into(), w);
                state.water_ground = Some(ground);
            }
            None => {
                state.masks.remove("water_depth");
                state.water_ground = None;
            }
        }
        Ok(())
    }
);

#[cfg(test)]
mod tests {
    use crate::{parse, Recipe, State};
    use bozkir_core::{Grid, NoProgress};

    fn run(r: &Recipe) -> Result<State, crate::RecipeError> {
        crate::run(r, r.size, r.cell_size, r.seed, &NoProgress, |_| {})
    }

    fn recipe(stages: &str) -> String {
        format!("size = 48\ncell_size = 4.0\nseed = 9\n{stages}")
    }

    #[test]
    fn landscape_stage_is_the_generator_on_the_recipe_grid() {
        let r = parse(&recipe("[[stage]]\nop = \"landscape\"\nmain_river_count = 2\n"), "t.toml").unwrap();
        let out = run(&r).unwrap();
        let g = &out.height;
        assert_eq!((g.width(), g.height(), g.dx), (48, 48, 4.0));
        // The same world the library makes from the same spec (seed derived by the stage).
        let water = &out.masks["water_depth"];
        assert!(water.data().iter().any(|&d| d > 0.0), "rivers hold water");
        assert!(out.masks.contains_key("material"));
        let again = run(&r).unwrap();
        assert_eq!(again.height.data(), g.data(), "deterministic");
    }

    #[test]
    fn composite_stage_records_a_partition_of_unity() {
        let r = parse(&recipe("[[stage]]\nop = \"composite\"\n"), "t.toml").unwrap();
        let out = run(&r).unwrap();
        let w: Vec<&Grid<f64>> = out.masks.iter().filter(|(k, _)| k.starts_with("biome_")).map(|(_, g)| g).collect();
        assert_eq!(w.len(), 5, "built-in palette: {:?}", out.masks.keys().collect::<Vec<_>>());
        for k in 0..48 * 48 {
            let s: f64 = w.iter().map(|g| g.data()[k]).sum();
            assert!((s - 1.0).abs() < 1e-5, "cell {k}: weights sum to {s}");
        }
    }

    /// A water depth recorded by `composite` and then left stale by a stage that moves the
    /// ground: `roads` routes over (and records) the depth under the recorded water surface.
    #[test]
    fn roads_stage_takes_the_water_as_it_stands() {
        let stale =
            recipe("[[stage]]\nop = \"composite\"\nadd_roads = false\n[[stage]]\nop = \"noise\"\namplitude = 3.0\n");
        let a = run(&parse(&stale, "t.toml").unwrap()).unwrap();
        let b = run(&parse(&format!("{stale}[[stage]]\nop = \"roads\"\nnum_hubs = 3\n"), "t.toml").unwrap()).unwrap();
        let (w0, g0, h) = (&a.masks["water_depth"], a.water_ground.as_ref().unwrap(), &a.height);
        assert_ne!(g0.data(), h.data(), "the noise stage moved the ground");
        let want: Vec<f64> = (0..w0.data().len())
            .map(|k| if w0.data()[k] > 0.0 { (g0.data()[k] + w0.data()[k] - h.data()[k]).max(0.0) } else { 0.0 })
            .collect();
        assert_eq!(b.masks["water_depth"].data(), &want[..]);
        let moved = want.iter().zip(w0.data()).filter(|(a, b)| a != b).count();
        assert!(moved > 0, "the stale depth differs from the depth under the surface");
        assert!(want.iter().any(|&d| d > 0.0), "water remains");
    }

    #[test]
    fn roads_stage_grades_the_field_it_is_given() {
        let text = recipe("[[stage]]\nop = \"noise\"\namplitude = 20.0\n[[stage]]\nop = \"roads\"\nnum_hubs = 3\n");
        let r = parse(&text, "t.toml").unwrap();
        let out = run(&r).unwrap();
        let road = &out.masks["road"];
        let on = road.data().iter().filter(|&&v| v == 1.0).count();
        assert!(on > 48, "a 3-hub network covers more than one row of cells: {on}");
        let before = run(&parse(&recipe("[[stage]]\nop = \"noise\"\namplitude = 20.0\n"), "t.toml").unwrap()).unwrap();
        let changed = out.height.data().iter().zip(before.height.data()).filter(|(a, b)| a != b).count();
        assert!(changed > 0 && changed < 48 * 48, "grading changes the road's cells, not all: {changed}");
    }

    #[test]
    fn bad_world_parameters_are_refused_with_the_line() {
        for (table, want) in [
            ("op = \"landscape\"\nmain_river_cont = 2\n", "main_river_cont"),
            ("op = \"composite\"\nresolution_m = 2\n", "resolution_m"),
            ("op = \"roads\"\ndomain_size = [10.0, 10.0]\n", "set by the recipe's grid"),
            ("op = \"landscape\"\ncompat = \"numpy\"\n", "compat"),
        ] {
            let e = parse(&recipe(&format!("[[stage]]\n{table}")), "w.toml").unwrap_err().to_string();
            assert!(e.contains("w.toml line 4") && e.contains(want), "{table}: {e}");
        }
    }
}

//! Running a whole recipe.

use crate::error::RecipeError;
use crate::parse::Recipe;
use crate::stages::apply_with;
use crate::state::{check, StageReport, State};
use bozkir_core::Progress;
use bozkir_terrain::kernels::{Cpu, Kernels};

/// What [`run`] tells its observer: a stage starts, or finished with this report.
#[derive(Debug, Clone, PartialEq)]
pub enum StageEvent<'a> {
    /// Stage `index` (1-based), named `op`, starts.
    Start {
        /// 1-based position.
        index: usize,
        /// The stage's name.
        op: &'a str,
    },
    /// A stage finished; its range.
    Done(StageReport),
}

/// Run every stage of `recipe` on a `size × size` field of `cell_size` metres with `seed`.
///
/// Stage resolutions scale with `size / recipe.size`, so a recipe run smaller or larger keeps
/// its ratios ("simulate coarse, detail fine"). After each stage the state is checked; the first
/// non-finite stage stops the run with an error naming it. `observe` sees each stage start and
/// finish (the caller times them).
pub fn run(
    recipe: &Recipe,
    size: usize,
    cell_size: f64,
    seed: u64,
    progress: &dyn Progress,
    observe: impl FnMut(StageEvent),
) -> Result<State, RecipeError> {
    run_with(recipe, size, cell_size, seed, progress, &Cpu, observe)
}

/// [`run`] with the stages' kernels offered to `kernels` first (see [`Kernels`]); they are told
/// which kernels the recipe uses ([`Kernels::warm`]) before the first stage.
pub fn run_with(
    recipe: &Recipe,
    size: usize,
    cell_size: f64,
    seed: u64,
    progress: &dyn Progress,
    kernels: &dyn Kernels,
    mut observe: impl FnMut(StageEvent),
) -> Result<State, RecipeError> {
    let mut state = State::new(size, cell_size, seed);
    kernels.warm(&recipe.kernel_kinds());
    for (i, stage) in recipe.stages.iter().enumerate() {
        let index = i + 1;
        if let Some(res) = stage.resolution {
            let scaled = ((res * size) as f64 / recipe.size as f64).round().max(8.0) as usize;
            state.resample_to(scaled);
        }
        observe(StageEvent::Start { index, op: stage.op.name() });
        observe(StageEvent::Done(run_stage(recipe, index, &mut state, progress, kernels)?));
        if progress.cancelled() {
            break;
        }
    }
    Ok(state)
}

/// Stage `index` (1-based) of `recipe` on `state`, then the finiteness check: errors name the
/// recipe, the line and the stage. The one stage step of [`run_with`] and of tiled runs.
pub(crate) fn run_stage(
    recipe: &Recipe,
    index: usize,
    state: &mut State,
    progress: &dyn Progress,
    kernels: &dyn Kernels,
) -> Result<crate::state::StageReport, RecipeError> {
    let stage = &recipe.stages[index - 1];
    apply_with(&stage.op, index, state, progress, kernels).map_err(|problem| RecipeError::Stage {
        source_name: recipe.name.clone(),
        line: stage.line,
        index,
        op: stage.op.name().to_string(),
        problem,
    })?;
    check(state, index, stage.op.name(), stage.line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::{builtin, names};
    use bozkir_core::NoProgress;

    fn run_small(name: &str, threads: usize) -> State {
        let r = builtin(name).unwrap();
        let size = 32;
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| run(&r, size, r.cell_size * r.size as f64 / size as f64, 5, &NoProgress, |_| {}).unwrap())
    }

    #[test]
    fn every_builtin_runs_small_and_deterministically() {
        for name in names() {
            let a = run_small(&name, 1);
            let b = run_small(&name, 2);
            assert_eq!(a.height.data(), b.height.data(), "{name}: thread count changed the heights");
            assert_eq!(a.masks.keys().collect::<Vec<_>>(), b.masks.keys().collect::<Vec<_>>());
            for (k, m) in &a.masks {
                assert_eq!(m.data(), b.masks[k].data(), "{name}: mask {k}");
            }
            let (lo, hi) = a.height.min_max().unwrap();
            assert!(hi > lo, "{name}: flat result");
        }
    }

    #[test]
    fn a_profile_recipe_equals_the_profile() {
        use bozkir_terrain::profiles::{generate, profile};
        let r = builtin("mesa").unwrap();
        let s = run(&r, 48, 10.0, 7, &NoProgress, |_| {}).unwrap();
        let t = generate(48, 7, &profile("mesa").unwrap().params, &NoProgress);
        assert!(s.height.data().iter().zip(t.height.data()).all(|(a, b)| *a == b * 1000.0));
    }

    #[test]
    fn stages_report_in_order_and_resolutions_scale() {
        let r = builtin("ds2").unwrap();
        let mut seen = Vec::new();
        let s = run(&r, 64, 20.0, 1, &NoProgress, |e| {
            if let StageEvent::Done(rep) = e {
                seen.push((rep.index, rep.op, rep.width));
            }
        })
        .unwrap();
        assert_eq!(seen.len(), r.stages.len());
        assert_eq!(seen.first().unwrap().2, 64);
        assert_eq!(seen.last().unwrap().2, 127, "the detail stages of a 512² recipe run at 2× size: (64 − 1)·2 + 1");
        assert_eq!(s.height.width(), 127);
        assert!((s.height.dx * 126.0 - 20.0 * 63.0).abs() < 1e-9, "extent kept");
    }
}

#[cfg(test)]
mod detail_tests {
    use super::*;
    use crate::parse::parse;
    use bozkir_core::NoProgress;

    const ALL: &str = r#"
size = 48
cell_size = 5.0
[[stage]]
op = "profile"
profile = "badlands"
height_range = 300.0
[[stage]]
op = "slab"
angle_deg = 40.0
[[stage]]
op = "reverse"
region_m = 60.0
[[stage]]
op = "rills"
[[stage]]
op = "crags"
[[stage]]
op = "plates"
[[stage]]
op = "polish"
wash_mask = "sediment"
[[stage]]
op = "upsample"
factor = 2
[[stage]]
op = "sediment_floor"
[[stage]]
op = "canyon"
kind = "separator"
path = [[0.1, 0.1], [0.9, 0.8]]
[[stage]]
op = "canyon"
kind = "drainage"
[[stage]]
op = "fold"
"#;

    #[test]
    fn every_detail_stage_runs_and_is_deterministic() {
        let r = parse(ALL, "all.toml").unwrap();
        let go = |t: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap()
                .install(|| run(&r, 48, 5.0, 3, &NoProgress, |_| {}).unwrap())
        };
        let a = go(1);
        let b = go(2);
        assert_eq!(a.height.data(), b.height.data());
        assert_eq!(a.height.width(), 95, "upsampled (48 − 1)·2 + 1");
        assert!(a.masks.contains_key("fold_east") && a.masks.contains_key("sediment"));
    }

    #[test]
    fn a_stage_needing_a_missing_mask_names_itself() {
        let text = "size = 16\n[[stage]]\nop = \"noise\"\n[[stage]]\nop = \"sediment_floor\"\nmask = \"deposit\"\n";
        let r = parse(text, "m.toml").unwrap();
        let e = run(&r, 16, 1.0, 0, &NoProgress, |_| {}).unwrap_err().to_string();
        assert!(e.contains("line 4") && e.contains("sediment_floor") && e.contains("deposit"), "{e}");
    }
}

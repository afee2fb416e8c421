//! `bozkir terrain --recipe NAME|FILE` and `bozkir recipes`: run and list recipes.

use super::terrain::Args as TerrainArgs;
use super::{positive, MAX_TERRAIN_SIZE};
use crate::outputs::{commit, print_stats, Staging};
use crate::progress::Bar;
use anyhow::{bail, Context, Result};
use bozkir_pipeline::compute::{Backend, Compute};
use bozkir_pipeline::recipe::RecipeRequest;
use bozkir_recipe::{builtin, parse, Recipe, StageReport};
use std::path::Path;
use std::time::Duration;

/// Load a built-in recipe by name, or a TOML file.
pub fn load(spec: &str) -> Result<Recipe> {
    if let Some(_text) = builtin::source(spec) {
        return Ok(builtin::builtin(spec)?);
    }
    let path = Path::new(spec);
    if !path.exists() {
        bail!("recipe {spec:?}: neither a built-in recipe ({}) nor an existing file", builtin::names().join(", "));
    }
    let text = std::fs::read_to_string(path).with_context(|| format!("{}: cannot read the recipe", path.display()))?;
    Ok(parse(&text, &path.display().to_string())?)
}

pub fn run_recipe(spec: &str, a: &TerrainArgs, quiet: bool) -> Result<()> {
    let mut recipe = load(spec)?;
    if let Some(n) = a.until {
        let all = recipe.stages.len();
        if !(1..=all).contains(&n) {
            bail!("--until {n}: recipe {} has {all} stages (1..={all})", recipe.name);
        }
        recipe.stages.truncate(n);
    }
    let size = a.size.unwrap_or(recipe.size);
    if !(8..=MAX_TERRAIN_SIZE).contains(&size) {
        bail!("--size must be 8..={MAX_TERRAIN_SIZE}, got {size}");
    }
    // A recipe run at another size keeps its extent unless --cell-size says otherwise.
    let keep_extent = recipe.cell_size * recipe.size as f64 / size as f64;
    let cell_size = positive("cell-size", a.cell_size.unwrap_or(keep_extent))?;
    let seed = a.seed.unwrap_or(recipe.seed);
    let st = Staging::new(&a.out)?;
    let bar = Bar::new(quiet);
    let kernels = a.gpu.kernels()?;
    let req = RecipeRequest { recipe: &recipe, size, cell_size, seed, until: a.until };
    let report = || Backend { backend: kernels.backend(), stages: Some(kernels.stages()) };
    let out =
        bozkir_pipeline::recipe::run_recipe(&req, Compute { kernels: &kernels, report: &report }, st.path(), &bar)?;
    let steps = bar.timings();
    bar.finish();
    commit(st)?;
    // The first steps are the stages; the rest are the analysis's and the write.
    let (stages, rest) = steps.split_at(out.stages.len().min(steps.len()));
    let mut timings = vec![("recipe".to_string(), stages.iter().map(|(_, d)| *d).sum::<Duration>())];
    timings.extend(rest.iter().cloned());
    println!("recipe {} seed {seed}: {} stages", recipe.name, recipe.stages.len());
    print_stage_table(&out.stages, stages);
    print_stats(&out.stats, &timings);
    Ok(())
}

/// One row per stage: its size, height range and mean, and its seconds.
fn print_stage_table(reports: &[StageReport], steps: &[(String, Duration)]) {
    println!(
        "{:>3}  {:<14} {:>11} {:>11} {:>11} {:>11} {:>9}",
        "#", "stage", "size", "min m", "max m", "mean m", "seconds"
    );
    for (r, (_, d)) in reports.iter().zip(steps) {
        println!(
            "{:>3}  {:<14} {:>11} {:>11.2} {:>11.2} {:>11.2} {:>9.3}",
            r.index,
            r.op,
            format!("{}×{}", r.width, r.height),
            r.min,
            r.max,
            r.mean,
            d.as_secs_f64()
        );
    }
}

#[derive(clap::Args)]
pub struct ListArgs {
    /// Print the TOML of this built-in recipe.
    #[arg(long)]
    show: Option<String>,
}

/// `bozkir recipes`: list the built-in recipes, or print one.
pub fn list(a: ListArgs) -> Result<()> {
    if let Some(name) = a.show {
        let text = builtin::source(&name)
            .with_context(|| format!("no built-in recipe {name:?}; have {}", builtin::names().join(", ")))?;
        print!("{text}");
        return Ok(());
    }
    for name in builtin::names() {
        let r = builtin::builtin(&name)?;
        println!("{:<10} {:>5}²  {:>2} stages  {}", name, r.size, r.stages.len(), r.description);
    }
    println!("\nRun one: bozkir terrain --recipe ds2 --out DIR; see one: bozkir recipes --show ds2");
    Ok(())
}

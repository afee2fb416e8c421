//! `bozkir recipes`: list the built-in recipes, or print one (`bozkir terrain --recipe` runs one).

use anyhow::{Context, Result};
use bozkir_recipe::builtin;

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

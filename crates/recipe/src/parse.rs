//! Recipe text (TOML) → a validated [`Recipe`].
//!
//! ```toml
//! format = 1                  # recipe format version
//! name = "example"
//! size = 256                  # starting resolution, cells per side
//! cell_size = 10.0            # metres per cell at `size`
//! seed = 0                    # default seed; each stage derives its own from it
//!
//! [[stage]]
//! op = "profile"              # one of the stage names in `stages::OPS`
//! profile = "hills"
//! height_range = 400.0
//!
//! [[stage]]
//! op = "stream_power"
//! resolution = 512            # run this stage at 512² (resampled; the extent is kept)
//! steps = 20
//! ```

use crate::error::{ParamError, RecipeError, StageError};
use crate::stages::{parse_op, Op};
use bozkir_terrain::kernels::KernelKind;
use serde::Deserialize;

/// The recipe format this build reads.
pub const RECIPE_FORMAT: u32 = 1;
/// Largest resolution a recipe may ask for.
pub const MAX_RESOLUTION: usize = 8192;

/// A parsed recipe.
#[derive(Debug, Clone, PartialEq)]
pub struct Recipe {
    /// Its name (the file's or `builtin:NAME` when it has none).
    pub name: String,
    /// One line saying what it makes.
    pub description: String,
    /// Starting resolution (cells per side).
    pub size: usize,
    /// Metres per cell at `size`.
    pub cell_size: f64,
    /// Default seed; each stage derives its own from it.
    pub seed: u64,
    /// The stages, in order.
    pub stages: Vec<Stage>,
}

impl Recipe {
    /// The kernels its stages may offer to a [`bozkir_terrain::kernels::Kernels`]
    /// implementation, each once, in the order of their first stage.
    pub fn kernel_kinds(&self) -> Vec<KernelKind> {
        let mut kinds = Vec::new();
        for k in self.stages.iter().filter_map(|s| s.op.kernel()) {
            if !kinds.contains(&k) {
                kinds.push(k);
            }
        }
        kinds
    }
}

/// One stage: its operation, where it runs, and where it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Stage {
    /// 1-based line of the stage's `[[stage]]` header (0 for recipes built in code).
    pub line: usize,
    pub op: Op,
    /// Resolution (cells on the long side) the stage runs at; `None`: the current one.
    pub resolution: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRecipe {
    format: Option<u32>,
    name: Option<String>,
    #[serde(default)]
    description: String,
    #[serde(default = "default_size")]
    size: usize,
    #[serde(default = "default_cell")]
    cell_size: f64,
    #[serde(default)]
    seed: u64,
    #[serde(default)]
    stage: Vec<toml::Spanned<toml::Table>>,
}

fn default_size() -> usize {
    512
}
fn default_cell() -> f64 {
    10.0
}

fn line_of(text: &str, byte: usize) -> usize {
    text[..byte.min(text.len())].bytes().filter(|&b| b == b'\n').count() + 1
}

/// Parse and validate recipe `text`; `source_name` (a file name or `builtin:NAME`) is used in
/// messages.
pub fn parse(text: &str, source_name: &str) -> Result<Recipe, RecipeError> {
    let syntax = |message: String| RecipeError::Syntax { source_name: source_name.to_string(), message };
    let invalid = |message: String| RecipeError::Invalid { source_name: source_name.to_string(), message };
    let raw: RawRecipe = toml::from_str(text).map_err(|e| syntax(e.to_string().trim_end().replace('\n', " ")))?;
    match raw.format {
        Some(RECIPE_FORMAT) | None => {}
        Some(f) => return Err(invalid(format!("recipe format {f} (this build reads format {RECIPE_FORMAT})"))),
    }
    if raw.size < 8 || raw.size > MAX_RESOLUTION {
        return Err(invalid(format!("size must be 8..={MAX_RESOLUTION}, got {}", raw.size)));
    }
    if !raw.cell_size.is_finite() || raw.cell_size <= 0.0 {
        return Err(invalid(format!("cell_size must be a finite number above 0, got {}", raw.cell_size)));
    }
    if raw.stage.is_empty() {
        return Err(invalid("no [[stage]]: a recipe needs at least one stage".into()));
    }
    let mut stages = Vec::with_capacity(raw.stage.len());
    for (index, spanned) in raw.stage.into_iter().enumerate() {
        let line = line_of(text, spanned.span().start);
        let mut table = spanned.into_inner();
        let stage_err = |op: &str, problem: ParamError| RecipeError::Stage {
            source_name: source_name.to_string(),
            line,
            index: index + 1,
            op: op.to_string(),
            problem: StageError::Param(problem),
        };
        let op = match table.remove("op") {
            Some(toml::Value::String(s)) => s,
            Some(v) => return Err(stage_err("?", ParamError::OpType(v.to_string()))),
            None => return Err(stage_err("?", ParamError::MissingOp)),
        };
        let resolution = match table.remove("resolution") {
            None => None,
            Some(toml::Value::Integer(r)) if (8..=MAX_RESOLUTION as i64).contains(&r) => Some(r as usize),
            Some(v) => return Err(stage_err(&op, ParamError::Resolution(v.to_string()))),
        };
        let op_value = parse_op(&op, table).map_err(|m| stage_err(&op, m))?;
        stages.push(Stage { line, op: op_value, resolution });
    }
    Ok(Recipe {
        name: raw.name.unwrap_or_else(|| source_name.to_string()),
        description: raw.description,
        size: raw.size,
        cell_size: raw.cell_size,
        seed: raw.seed,
        stages,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_line_and_the_problem() {
        let text = "name = \"t\"\nsize = 32\n\n[[stage]]\nop = \"profile\"\nprofile = \"hills\"\n\n[[stage]]\nop = \"blur\"\nsigmaa = 3.0\n";
        let e = parse(text, "t.toml").unwrap_err().to_string();
        assert!(e.contains("t.toml line 8") && e.contains("blur") && e.contains("sigmaa"), "{e}");
        let e = parse("size = 32\n[[stage]]\nop = \"nope\"\n", "u.toml").unwrap_err().to_string();
        assert!(
            e.contains("u.toml line 2") && e.contains("unknown stage \"nope\"") && e.contains("stream_power"),
            "{e}"
        );
        let e = parse("size = 32\nbogus = 1\n[[stage]]\nop = \"fill\"\n", "v.toml").unwrap_err().to_string();
        assert!(e.contains("v.toml") && e.contains("bogus") && e.contains("line 2"), "{e}");
        let e = parse("size = 32\n[[stage]]\nop = \"fill\"\nresolution = 3\n", "w.toml").unwrap_err().to_string();
        assert!(e.contains("w.toml line 2") && e.contains("resolution"), "{e}");
        let e = parse("size = [1\n", "x.toml").unwrap_err().to_string();
        assert!(e.contains("x.toml") && e.contains("line 1"), "{e}");
        let e = parse("size = 32\n", "y.toml").unwrap_err().to_string();
        assert!(e.contains("no [[stage]]"), "{e}");
        let e = parse("format = 9\n[[stage]]\nop = \"fill\"\n", "z.toml").unwrap_err().to_string();
        assert!(e.contains("format 9"), "{e}");
        let e = parse("size = 32\n[[stage]]\nop = \"blur\"\nsigma = -1.0\n", "n.toml").unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("sigma"), "{e}");
    }

    #[test]
    fn a_valid_recipe_parses_with_lines() {
        let text = "name = \"ok\"\nsize = 64\ncell_size = 5.0\nseed = 9\n\n[[stage]]\nop = \"profile\"\nprofile = \"mesa\"\n\n[[stage]]\nop = \"fill\"\nresolution = 128\n";
        let r = parse(text, "ok.toml").unwrap();
        assert_eq!((r.name.as_str(), r.size, r.cell_size, r.seed), ("ok", 64, 5.0, 9));
        assert_eq!(r.stages.len(), 2);
        assert_eq!((r.stages[0].line, r.stages[1].line, r.stages[1].resolution), (6, 10, Some(128)));
    }
}

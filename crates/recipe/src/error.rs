//! The recipe crate's errors: [`RecipeError`] for a whole recipe (what the caller sees, naming
//! the recipe and the line), [`StageError`] for one stage's run, [`ParamError`] for one stage's
//! parameters.

use crate::parse::MAX_RESOLUTION;
use bozkir_terrain::kernels::KernelError;
use thiserror::Error;

/// What went wrong with a recipe; every message names the recipe and, where it applies, the line.
#[derive(Debug, Error)]
pub enum RecipeError {
    /// The text is not valid TOML, or has keys a recipe does not know.
    #[error("{source_name}: {message}")]
    Syntax {
        /// The recipe's file name or `builtin:NAME`.
        source_name: String,
        /// The TOML parser's message, on one line.
        message: String,
    },
    /// A stage was refused while parsing, or failed while running.
    #[error("{source_name} line {line}: stage {index} ({op}): {problem}")]
    Stage {
        /// The recipe's file name or `builtin:NAME` (its name once parsed).
        source_name: String,
        /// 1-based line of the stage's `[[stage]]` header (0 for recipes built in code).
        line: usize,
        /// 1-based position of the stage in the recipe.
        index: usize,
        /// The stage's name (`"?"` when it has none).
        op: String,
        /// What went wrong.
        problem: StageError,
    },
    /// A recipe-level value is out of range, or the recipe is not known.
    #[error("{source_name}: {message}")]
    Invalid {
        /// The recipe's file name, `builtin:NAME` or the name asked for.
        source_name: String,
        /// What is wrong.
        message: String,
    },
    /// A stage left non-finite heights or masks.
    #[error("stage {index} ({op}, line {line}) produced {bad} non-finite heights; nothing was written")]
    NonFinite {
        /// 1-based position of the stage.
        index: usize,
        /// The stage's name.
        op: String,
        /// Line of the stage's header.
        line: usize,
        /// How many values are not finite.
        bad: usize,
    },
}

/// Why one stage could not run: refused parameters, a state it cannot work on, or a kernel
/// implementation that stopped the run.
#[derive(Debug, Error)]
pub enum StageError {
    /// The stage's parameters are refused.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// The stage reads a mask no earlier stage recorded.
    #[error("no mask {mask:?} recorded yet (have: {have})")]
    MissingMask {
        /// The mask asked for.
        mask: String,
        /// The masks recorded, comma-separated.
        have: String,
    },
    /// Upsampling would pass the largest resolution a recipe may reach.
    #[error("upsampling {long} cells by {factor} gives {out}, above the cap")]
    TooLarge {
        /// Cells on the long side before.
        long: usize,
        /// The factor.
        factor: usize,
        /// Cells on the long side after.
        out: usize,
    },
    /// The world layer refused the stage's grid or failed (`landscape`, `composite`, `roads`).
    #[error("{0}")]
    World(String),
    /// A [`bozkir_terrain::kernels::Kernels`] implementation stopped the run.
    #[error(transparent)]
    Kernel(#[from] KernelError),
}

/// Why a stage's parameters (its TOML table) were refused.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ParamError {
    /// The table does not deserialise (an unknown key, a wrong type); the TOML message.
    #[error("{0}")]
    Toml(String),
    /// No stage has this name.
    #[error("unknown stage {op:?}; have {have}")]
    UnknownStage {
        /// The name given.
        op: String,
        /// The stage names, comma-separated.
        have: String,
    },
    /// `op` is not a string.
    #[error("op must be a string, got {0}")]
    OpType(String),
    /// The stage has no `op`.
    #[error("missing op")]
    MissingOp,
    /// `resolution` is not an integer in range.
    #[error("resolution must be an integer in 8..={MAX_RESOLUTION}, got {0}")]
    Resolution(String),
    /// A real parameter outside its closed range (or not finite).
    #[error("{name} must be in {lo}..={hi}, got {value}")]
    Range {
        /// The parameter.
        name: &'static str,
        /// The value given.
        value: f64,
        /// Lowest allowed.
        lo: f64,
        /// Highest allowed.
        hi: f64,
    },
    /// A real parameter that must be above a bound.
    #[error("{name} must be above {lo}, got {value}")]
    Above {
        /// The parameter.
        name: &'static str,
        /// The value given.
        value: f64,
        /// The bound (excluded).
        lo: f64,
    },
    /// A count outside its range.
    #[error("{name} must be {lo}..={hi}, got {value}")]
    Count {
        /// The parameter.
        name: &'static str,
        /// The value given.
        value: u64,
        /// Lowest allowed.
        lo: u64,
        /// Highest allowed.
        hi: u64,
    },
    /// A count above its largest value.
    #[error("{name} must be at most {hi}, got {value}")]
    AtMost {
        /// The parameter.
        name: &'static str,
        /// The value given.
        value: u64,
        /// Highest allowed.
        hi: u64,
    },
    /// A string parameter that is none of its choices.
    #[error("{name} must be {allowed}, got {value:?}")]
    Choice {
        /// The parameter.
        name: &'static str,
        /// The choices, as the message lists them (`"\"fbm\" or \"ridged\""`).
        allowed: &'static str,
        /// The value given.
        value: String,
    },
    /// A rule between parameters, stated in full.
    #[error("{0}")]
    Rule(&'static str),
    /// An explicit seed that does not fit the 32 bits the stage's noise takes.
    #[error("seed must be 0..={max} (32 bits), got {value}", max = u32::MAX)]
    Seed {
        /// The seed given.
        value: u64,
    },
    /// The terrain crate refused the parameters (a profile name, an override, droplet
    /// parameters); its message.
    #[error("{0}")]
    Terrain(String),
    /// The world layer refused the parameters (an unknown name, a value out of range); its
    /// message.
    #[error("{0}")]
    World(String),
}

/// `Ok` when `v` is finite and in `lo..=hi`, else [`ParamError::Range`] naming `name`.
pub(crate) fn range(name: &'static str, v: f64, lo: f64, hi: f64) -> Result<(), ParamError> {
    if !v.is_finite() || v < lo || v > hi {
        return Err(ParamError::Range { name, value: v, lo, hi });
    }
    Ok(())
}

/// `Ok` when `v` is in `lo..=hi`, else [`ParamError::Count`] naming `name`.
pub(crate) fn count(name: &'static str, v: impl Into<u64>, lo: u64, hi: u64) -> Result<(), ParamError> {
    let value = v.into();
    if !(lo..=hi).contains(&value) {
        return Err(ParamError::Count { name, value, lo, hi });
    }
    Ok(())
}

/// `Ok` when `v` is one of `choices`, else [`ParamError::Choice`] naming `name` (`allowed` is
/// the list as the message spells it).
pub(crate) fn choice(name: &'static str, v: &str, choices: &[&str], allowed: &'static str) -> Result<(), ParamError> {
    if !choices.contains(&v) {
        return Err(ParamError::Choice { name, allowed, value: v.to_string() });
    }
    Ok(())
}

/// [`ParamError::Terrain`] with the terrain crate's message.
pub(crate) fn terrain(e: impl std::fmt::Display) -> ParamError {
    ParamError::Terrain(e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The messages are the ones users saw when these were strings.
    #[test]
    fn messages_keep_their_wording() {
        assert_eq!(range("sigma", -1.0, 0.0, 1e6).unwrap_err().to_string(), "sigma must be in 0..=1000000, got -1");
        assert_eq!(count("steps", 0u64, 1, 100_000).unwrap_err().to_string(), "steps must be 1..=100000, got 0");
        assert_eq!(
            choice("kind", "x", &["fbm", "ridged"], "\"fbm\" or \"ridged\"").unwrap_err().to_string(),
            "kind must be \"fbm\" or \"ridged\", got \"x\""
        );
        assert_eq!(
            ParamError::Seed { value: 1 << 32 }.to_string(),
            "seed must be 0..=4294967295 (32 bits), got 4294967296"
        );
        assert_eq!(ParamError::Resolution("3".into()).to_string(), "resolution must be an integer in 8..=8192, got 3");
    }
}

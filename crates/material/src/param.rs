//! The one error type of a parameter outside its range.

/// A parameter outside its range: which one, and the message the user reads.
///
/// Each params struct of the crate checks its own ranges in a `validate()` method returning this
/// error, so the CLI, the recipe parser and the WebAssembly bindings do not repeat the ranges.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct ParamError {
    /// The parameter's field name in its struct (e.g. `"angle_deg"`).
    pub param: &'static str,
    /// What is wrong, naming the parameter as users know it.
    pub message: String,
}

impl ParamError {
    /// A parameter error for field `param` with `message`.
    pub fn new(param: &'static str, message: impl Into<String>) -> Self {
        ParamError { param, message: message.into() }
    }
}

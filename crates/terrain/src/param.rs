//! The one error type of a parameter outside its range.

/// A parameter outside its range: which one, and the message the user reads.
///
/// Each params struct checks its own ranges in a `validate()` method returning this error, so
/// the CLI, the recipe parser and the WebAssembly bindings do not repeat the ranges.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct ParamError {
    /// The parameter's name (its field, or the name a profile override uses).
    pub param: String,
    /// What is wrong, naming the parameter.
    pub message: String,
}

impl ParamError {
    /// A parameter error for `param` with `message`.
    pub fn new(param: impl Into<String>, message: impl Into<String>) -> Self {
        ParamError { param: param.into(), message: message.into() }
    }
}

//! The world layer's typed errors.

/// What can go wrong generating a world. Each variant names the problem and its numbers.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum WorldError {
    /// A parameter outside its valid range (name, value, what is allowed).
    #[error("parameter `{name}` = {value}: {allowed}")]
    Param { name: String, value: String, allowed: String },
    /// An unknown parameter or generator name, with the names that exist.
    #[error("unknown {what} `{name}`; known: {known}")]
    Unknown { what: &'static str, name: String, known: String },
    /// Two hubs that no road can join under the current thresholds.
    #[error("no road joins hub {from} {from_xy:?} and hub {to} {to_xy:?}: every route is blocked by {blocked_by}")]
    Unreachable { from: usize, from_xy: (f64, f64), to: usize, to_xy: (f64, f64), blocked_by: String },
    /// A malformed input (palette file, cost grid, height field), with where and why.
    #[error("{0}")]
    Invalid(String),
}

/// [`WorldError::Param`]: parameter `name` = `value` is refused; `allowed` says what is.
pub(crate) fn param(name: &str, value: impl std::fmt::Display, allowed: &str) -> WorldError {
    WorldError::Param { name: name.to_string(), value: value.to_string(), allowed: allowed.to_string() }
}

/// Result with a [`WorldError`].
pub type Result<T> = std::result::Result<T, WorldError>;

//! The crate's one error type: every refusal of bad input (non-finite coordinates, absurd
//! sizes, out-of-range parameters, unknown ids) names the structure and the problem.

/// Why a spatial structure refused its input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpatialError {
    /// A coordinate (or weight, or heuristic value) was NaN or infinite where a finite value is needed.
    #[error("{what}: non-finite value (NaN or infinite) at item {index}")]
    NonFinite {
        /// The structure or function that refused.
        what: &'static str,
        /// Index of the offending item in the input (0 for a single value).
        index: usize,
    },
    /// A query value was NaN.
    #[error("{what}: NaN in the query")]
    NanQuery {
        /// The structure or function that refused.
        what: &'static str,
    },
    /// More items than the structure's documented cap.
    #[error("{what}: {count} items exceed the cap of {cap}")]
    TooMany {
        /// The structure that refused.
        what: &'static str,
        /// How many were asked for.
        count: usize,
        /// The cap.
        cap: usize,
    },
    /// A parameter outside its documented range.
    #[error("{what}: parameter {name} = {value} is out of range ({range})")]
    Param {
        /// The structure that refused.
        what: &'static str,
        /// The parameter's name.
        name: &'static str,
        /// The value given.
        value: f64,
        /// The accepted range, in words.
        range: &'static str,
    },
    /// An id or node index the structure does not hold.
    #[error("{what}: unknown id {id}")]
    UnknownId {
        /// The structure that refused.
        what: &'static str,
        /// The id.
        id: u64,
    },
    /// An id the structure already holds.
    #[error("{what}: id {id} is already present")]
    DuplicateId {
        /// The structure that refused.
        what: &'static str,
        /// The id.
        id: u64,
    },
    /// A point outside the fixed bounds of a region tree.
    #[error("{what}: point {index} lies outside the tree's bounds")]
    OutOfBounds {
        /// The structure that refused.
        what: &'static str,
        /// Index (or id) of the point.
        index: u64,
    },
    /// A box whose minimum exceeds its maximum on some axis.
    #[error("{what}: box {index} has min > max on axis {axis}")]
    InvertedBox {
        /// The structure that refused.
        what: &'static str,
        /// Index of the box in the input.
        index: usize,
        /// The axis (0 = x, 1 = y, 2 = z).
        axis: usize,
    },
    /// A ray direction that is zero, NaN or infinite.
    #[error("ray: direction must be finite and non-zero")]
    BadDirection,
}

/// Result of this crate's fallible functions.
pub type Result<T> = std::result::Result<T, SpatialError>;

//! The crate's one error type: what was wrong with the input, named in the message.

use thiserror::Error;

/// Why a mesher or a check refused its input.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum MeshError {
    /// An axis is shorter than the algorithm needs.
    #[error("dims {dims:?}: every axis needs at least {min} samples ({why})")]
    DimsTooSmall {
        /// The dims given.
        dims: [usize; 3],
        /// The least length of an axis.
        min: usize,
        /// What the minimum is for.
        why: &'static str,
    },
    /// The volume is larger than the documented caps.
    #[error("dims {dims:?} exceed the caps: at most {max_axis} per axis and {max_total} in all")]
    TooLarge {
        /// The dims given.
        dims: [usize; 3],
        /// Cap on one axis.
        max_axis: usize,
        /// Cap on the product of the dims.
        max_total: usize,
    },
    /// The data slice does not hold `dims[0] * dims[1] * dims[2]` values.
    #[error("data holds {actual} values but dims {dims:?} need {expected}")]
    LengthMismatch {
        /// The dims given.
        dims: [usize; 3],
        /// Values the dims need.
        expected: usize,
        /// Values the slice holds.
        actual: usize,
    },
    /// A density sample is NaN or infinite.
    #[error("density sample {index} is not finite ({value})")]
    NonFinite {
        /// Index of the sample in the data slice.
        index: usize,
        /// Its value.
        value: f32,
    },
    /// A parameter is out of its documented range.
    #[error("parameter {name} = {value}: {why}")]
    Param {
        /// Name of the parameter.
        name: &'static str,
        /// Its value.
        value: f64,
        /// The documented range.
        why: &'static str,
    },
    /// A triangle index points past the vertex arrays.
    #[error("index {index} (entry {at} of the index list) is past the {vertices} vertices")]
    IndexOutOfRange {
        /// The index value.
        index: u32,
        /// Its position in the index list.
        at: usize,
        /// Number of vertices.
        vertices: usize,
    },
    /// The index list is not whole triangles.
    #[error("index list holds {0} entries, not a multiple of 3")]
    RaggedIndices(usize),
    /// A mesh's per-vertex arrays disagree in length.
    #[error("mesh arrays disagree: {positions} positions, {normals} normals, {blocks} block ids, {ao} ao values (ao may be empty)")]
    RaggedVertices {
        /// Number of positions.
        positions: usize,
        /// Number of normals.
        normals: usize,
        /// Number of block ids.
        blocks: usize,
        /// Number of ao values.
        ao: usize,
    },
    /// Merging would need more vertices than a `u32` index can address.
    #[error("{0} vertices do not fit u32 indices")]
    TooManyVertices(usize),
}

/// Result with [`MeshError`].
pub type Result<T> = std::result::Result<T, MeshError>;

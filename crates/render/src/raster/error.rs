//! The software renderer's error type: what was wrong with the view, the scene or the
//! parameters, named in the message. Every check runs before any pixel is drawn, so an error
//! means nothing was rendered.

use thiserror::Error;

/// Why [`render_mesh`](super::render_mesh), [`render_points`](super::render_points) or
/// [`render_splats`](super::render_splats) refused its input.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum RasterError {
    /// The image has no pixels.
    #[error("image {width}×{height} has no pixels")]
    EmptyImage {
        /// Width asked for.
        width: u32,
        /// Height asked for.
        height: u32,
    },
    /// The supersampled image is larger than the renderer's cap on either axis.
    #[error("image {width}×{height} at {supersample}×{supersample} samples exceeds {max} samples per axis")]
    ImageTooLarge {
        /// Width asked for.
        width: u32,
        /// Height asked for.
        height: u32,
        /// Samples per pixel per axis.
        supersample: u32,
        /// The cap on samples per axis.
        max: usize,
    },
    /// The view-projection matrix has a non-finite entry or cannot be inverted.
    #[error("view-projection matrix is {0}")]
    BadMatrix(&'static str),
    /// The mesh has no triangles or the cloud no points.
    #[error("the {0} is empty: nothing to render")]
    Empty(&'static str),
    /// The index list is not whole triangles.
    #[error("index list holds {0} entries, not a multiple of 3")]
    RaggedIndices(usize),
    /// More triangles or points than 32-bit ids can name.
    #[error("{count} {what} exceed the renderer's limit of {max}")]
    TooMany {
        /// "triangles" or "points".
        what: &'static str,
        /// How many were given.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// A triangle index points past the vertex array.
    #[error("index {index} (entry {at} of the index list) is past the {vertices} vertices")]
    IndexOutOfRange {
        /// The index value.
        index: u32,
        /// Its position in the index list.
        at: usize,
        /// Number of vertices.
        vertices: usize,
    },
    /// A position has a NaN or infinite coordinate.
    #[error("position {index} is not finite: {value:?}")]
    NonFinitePosition {
        /// Index of the vertex or point.
        index: usize,
        /// Its coordinates.
        value: [f64; 3],
    },
    /// A normal has a NaN or infinite component.
    #[error("normal {index} is not finite: {value:?}")]
    NonFiniteNormal {
        /// Index of the vertex or point.
        index: usize,
        /// Its components.
        value: [f32; 3],
    },
    /// A per-vertex (per-point) attribute array does not match the positions in length.
    #[error("{attribute} holds {len} entries for {positions} positions")]
    AttributeLength {
        /// "normals", "colours", "scales", "rotations" or "opacities".
        attribute: &'static str,
        /// Entries in the attribute array.
        len: usize,
        /// Number of positions.
        positions: usize,
    },
    /// A splat attribute (scale, rotation, colour or opacity) is out of its range.
    #[error("{attribute}[{index}] = {value}: {why}")]
    BadSplat {
        /// Which array: "scales", "rotations", "colours" or "opacities".
        attribute: &'static str,
        /// Index of the splat.
        index: usize,
        /// Its value, formatted.
        value: String,
        /// The documented range.
        why: &'static str,
    },
    /// Normal shading of points was asked for a cloud without normals.
    #[error("point shading \"normal\" needs per-point normals, and the cloud has none")]
    MissingNormals,
    /// A parameter is out of its documented range.
    #[error("parameter {name} = {value}: {why}")]
    Param {
        /// Name of the parameter.
        name: &'static str,
        /// Its value, formatted.
        value: String,
        /// The documented range.
        why: &'static str,
    },
}

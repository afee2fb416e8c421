//! The crate's one error type: every refusal of bad input names the function that refused, the
//! offending value and, where there is one, its position in the input.
//!
//! Nothing in this crate panics on bad input; every public function checks its input before it
//! allocates anything large or writes anything.

use std::path::PathBuf;

/// Why a point-cloud function refused its input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PointsError {
    /// The input holds nothing to work on (no triangles, no points).
    #[error("{what}: the input is empty ({detail})")]
    Empty {
        /// The function that refused.
        what: &'static str,
        /// What was empty.
        detail: &'static str,
    },
    /// Every triangle of the surface has zero area, so no point can be placed on it.
    #[error("{what}: all {triangles} triangles have zero area (total area {total_area})")]
    AllDegenerate {
        /// The function that refused.
        what: &'static str,
        /// Number of triangles.
        triangles: usize,
        /// The total area found (0).
        total_area: f64,
    },
    /// A coordinate, height or other input value is NaN or infinite.
    #[error("{what}: {item} {index} is not finite ({value})")]
    NonFinite {
        /// The function that refused.
        what: &'static str,
        /// What kind of item holds the value (`vertex`, `point`, `height`, …).
        item: &'static str,
        /// Its index in the input.
        index: usize,
        /// The offending value.
        value: f64,
    },
    /// A count or a size parameter is outside its documented range.
    #[error("{what}: {name} = {value} is out of range ({range})")]
    Param {
        /// The function that refused.
        what: &'static str,
        /// The parameter's name.
        name: &'static str,
        /// The value given.
        value: f64,
        /// The accepted range, in words.
        range: String,
    },
    /// A triangle index points past the vertex array.
    #[error("{what}: index {index} (entry {at} of the index list) is past the {vertices} vertices")]
    IndexOutOfRange {
        /// The function that refused.
        what: &'static str,
        /// The index value.
        index: u64,
        /// Its position in the index list.
        at: usize,
        /// Number of vertices.
        vertices: usize,
    },
    /// Two arrays that must agree in length do not (ragged vertex arrays, an index list that is
    /// not whole triangles, a height slice that is not `nx · ny` long).
    #[error("{what}: {detail}")]
    Shape {
        /// The function that refused.
        what: &'static str,
        /// What disagrees, with the lengths.
        detail: String,
    },
    /// Writing a file failed.
    #[error("{path}: {message}")]
    Io {
        /// The file being written.
        path: PathBuf,
        /// The operating system's message.
        message: String,
    },
}

/// `Result` with [`PointsError`].
pub type Result<T> = std::result::Result<T, PointsError>;

impl PointsError {
    /// A [`PointsError::Param`].
    pub(crate) fn param(what: &'static str, name: &'static str, value: f64, range: impl Into<String>) -> Self {
        PointsError::Param { what, name, value, range: range.into() }
    }
}

/// A refusal of the numpy generator ([`bozkir_core::numpy_rng`]) as this crate's error, worded
/// as before the generator moved to `bozkir-core`.
impl From<bozkir_core::numpy_rng::NumpyRngError> for PointsError {
    fn from(e: bozkir_core::numpy_rng::NumpyRngError) -> Self {
        use bozkir_core::numpy_rng::NumpyRngError as E;
        const CHOICE: &str = "Generator::choice_p";
        match e {
            E::EmptyProbabilities => {
                PointsError::Empty { what: CHOICE, detail: "no probabilities (a cannot be empty)" }
            }
            E::NanProbability { index, value } => {
                PointsError::NonFinite { what: CHOICE, item: "probability", index, value }
            }
            E::NegativeProbability { index, value } => {
                PointsError::param(CHOICE, "probability", value, format!("entry {index} must be non-negative"))
            }
            E::ProbabilitySum { sum, tolerance } => {
                PointsError::param(CHOICE, "sum of probabilities", sum, format!("within {tolerance:e} of 1"))
            }
            E::EmptyRange { low, high } => PointsError::param(
                "Generator::integers",
                "high",
                high as f64,
                format!("above low = {low} (numpy: low >= high)"),
            ),
        }
    }
}

/// Refuses the first non-finite coordinate of `points` (in index order).
pub(crate) fn check_finite_points(what: &'static str, points: &[[f64; 3]]) -> Result<()> {
    match points.iter().enumerate().find_map(|(i, p)| p.iter().find(|v| !v.is_finite()).map(|&v| (i, v))) {
        Some((index, value)) => Err(PointsError::NonFinite { what, item: "point", index, value }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numpy_rng::Generator;

    /// The numpy generator's refusals read as they did when it lived in this crate.
    #[test]
    fn numpy_refusals_keep_their_wording() {
        let mut g = Generator::default_rng(3);
        let msg = |e: bozkir_core::numpy_rng::NumpyRngError| PointsError::from(e).to_string();
        let e = msg(g.choice_p(&[0.5, 0.6], 3).unwrap_err());
        assert!(e.starts_with("Generator::choice_p: sum of probabilities = 1.1 is out of range (within"), "{e}");
        let e = msg(g.choice_p(&[0.5, f64::NAN], 3).unwrap_err());
        assert_eq!(e, "Generator::choice_p: probability 1 is not finite (NaN)");
        let e = msg(g.choice_p(&[1.5, -0.5], 3).unwrap_err());
        assert_eq!(e, "Generator::choice_p: probability = -0.5 is out of range (entry 1 must be non-negative)");
        let e = msg(g.choice_p(&[], 3).unwrap_err());
        assert_eq!(e, "Generator::choice_p: the input is empty (no probabilities (a cannot be empty))");
        let e = msg(g.integers(4, 4, 1).unwrap_err());
        assert_eq!(e, "Generator::integers: high = 4 is out of range (above low = 4 (numpy: low >= high))");
    }
}

//! The one error type of the pipelines.

use std::path::PathBuf;

/// Why a pipeline stopped. Every message names what is wrong (the file first where there is
/// one), worded for the user; the faces print it as it is.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// A file could not be read or written (the message starts with its path).
    #[error(transparent)]
    Io(#[from] bozkir_io::IoError),
    /// An input file named in the request does not exist.
    #[error("{}: no such file", .0.display())]
    NoSuchFile(PathBuf),
    /// The request or its inputs cannot be used: the message says why.
    #[error("{0}")]
    Invalid(String),
    /// The validation protocol refused its settings or inputs.
    #[error(transparent)]
    Validation(#[from] bozkir_material::validation::ValidationError),
    /// The material rule refused its inputs.
    #[error(transparent)]
    Classify(#[from] bozkir_material::ClassifyError),
    /// A step failed; `context` says which (e.g. `grid 16, truth colour`), `source` why.
    #[error("{context}")]
    Step {
        /// The step, as the user reads it.
        context: String,
        /// What went wrong in it.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl PipelineError {
    /// An [`PipelineError::Invalid`] with this message.
    pub fn invalid(msg: impl Into<String>) -> Self {
        PipelineError::Invalid(msg.into())
    }

    /// A [`PipelineError::Step`]: `context` in front of `source`.
    pub fn step(context: impl Into<String>, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        PipelineError::Step { context: context.into(), source: Box::new(source) }
    }
}

/// The result of a pipeline.
pub type Result<T> = std::result::Result<T, PipelineError>;

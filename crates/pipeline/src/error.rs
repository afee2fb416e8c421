//! The one error type of the pipelines.

use std::path::PathBuf;

/// Why a pipeline stopped. Every message names what is wrong (the file first where there is
/// one), worded for the user; a variant wrapping a library error prints that error unchanged
/// (`transparent`), so the faces print it as it is.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PipelineError {
    /// Reading or writing a file through `bozkir-io` (the message starts with the path).
    #[error(transparent)]
    Io(#[from] bozkir_io::IoError),
    /// Reading or writing a splat or tileset file through `bozkir-splat`.
    #[error(transparent)]
    Splat(#[from] bozkir_splat::SplatError),
    /// Writing a tileset folder (`bozkir_splat::formats::tileset::write_folder`).
    #[error(transparent)]
    TilesetWrite(#[from] bozkir_splat::formats::tileset::TilesetWriteError),
    /// A recipe that cannot be parsed or whose run stopped.
    #[error(transparent)]
    Recipe(#[from] bozkir_recipe::RecipeError),
    /// A kernel supplied by the caller (e.g. the GPU's) failed instead of declining.
    #[error(transparent)]
    Kernel(#[from] bozkir_terrain::kernels::KernelError),
    /// The validation protocol refused its settings or inputs.
    #[error(transparent)]
    Validation(#[from] bozkir_material::validation::ValidationError),
    /// The material rule refused its inputs.
    #[error(transparent)]
    Classify(#[from] bozkir_material::ClassifyError),
    /// A file the workflow reads could not be read (e.g. a terrain folder's `height.tif`).
    #[error("{path}: cannot read", path = .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the reader found wrong.
        #[source]
        source: bozkir_io::IoError,
    },
    /// The request implies more memory or work than the budget allows ([`crate::budget`]).
    #[error(transparent)]
    Budget(#[from] crate::budget::BudgetError),
    /// An input file named in the request does not exist.
    #[error("{}: no such file", .0.display())]
    NoSuchFile(PathBuf),
    /// The request or its inputs cannot be used (e.g. a height field with no finite value): the
    /// message says why.
    #[error("{0}")]
    Invalid(String),
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
    /// A [`PipelineError::Invalid`] with this message.
    pub fn invalid(msg: impl Into<String>) -> Self {
        PipelineError::Invalid(msg.into())
    }

    /// A [`PipelineError::Step`]: `context` in front of `source`.
    pub fn step(context: impl Into<String>, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        PipelineError::Step { context: context.into(), source: Box::new(source) }
    }
}

/// A pipeline's result.
pub type Result<T, E = PipelineError> = std::result::Result<T, E>;

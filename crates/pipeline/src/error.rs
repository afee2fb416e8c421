//! The one error type of the pipelines.

/// Everything a workflow of this crate can fail with.
///
/// Messages are the user's: a variant wrapping a library error prints that error unchanged
/// (`transparent`), so a face can print it as is.
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
    /// A file the workflow reads could not be read (e.g. a terrain folder's `height.tif`).
    #[error("{path}: cannot read", path = .path.display())]
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// What the reader found wrong.
        #[source]
        source: bozkir_io::IoError,
    },
    /// A kernel supplied by the caller (e.g. the GPU's) failed instead of declining.
    #[error(transparent)]
    Kernel(#[from] bozkir_terrain::kernels::KernelError),
    /// Input the workflow cannot use (e.g. a height field with no finite value); the message
    /// says what is wrong.
    #[error("{0}")]
    Input(String),
}

/// A pipeline's result.
pub type Result<T, E = PipelineError> = std::result::Result<T, E>;

//! The error type of `bozkir-io`: every variant names the file and what is wrong with it.

use std::path::{Path, PathBuf};

/// Everything that can go wrong reading or writing a file.
///
/// Each message starts with the file path, then says what is wrong, so a command-line tool can
/// print it as is.
#[derive(Debug, thiserror::Error)]
pub enum IoError {
    /// The operating system refused a read, write, rename or similar.
    ///
    /// The system's message is part of this message and is not also given as the error's
    /// `source()`, so a printer that follows the chain (`{:#}`) prints it once.
    #[error("{path}: {error}", path = .path.display())]
    Io { path: PathBuf, error: std::io::Error },
    /// The file is a zero-byte file, or holds a raster or point set with no cells or points.
    #[error("{path}: empty ({what})", path = .path.display())]
    Empty { path: PathBuf, what: String },
    /// The file ends before the data its header promises.
    #[error("{path}: truncated ({detail})", path = .path.display())]
    Truncated { path: PathBuf, detail: String },
    /// The first bytes are not those of the expected format.
    #[error("{path}: wrong magic bytes, not a {format} file", path = .path.display())]
    WrongMagic { path: PathBuf, format: &'static str },
    /// A valid file using a sample format, property, compression or version we do not read.
    #[error("{path}: unsupported {what}", path = .path.display())]
    Unsupported { path: PathBuf, what: String },
    /// A required property or entry is missing (e.g. PLY vertex x/y/z, NPZ elevation array).
    #[error("{path}: missing {what}", path = .path.display())]
    Missing { path: PathBuf, what: String },
    /// The file is structurally broken in a way not covered by the other variants.
    #[error("{path}: malformed {format} ({detail})", path = .path.display())]
    Malformed { path: PathBuf, format: &'static str, detail: String },
    /// Heights that must be finite are NaN or infinite (e.g. a grid handed to a quantising writer).
    #[error("{path}: {count} NaN or infinite heights (first at column {x}, row {y})", path = .path.display())]
    NanHeights { path: PathBuf, count: usize, x: usize, y: usize },
    /// Every cell of a DEM is nodata or invalid.
    #[error("{path}: all {cells} cells are nodata or invalid", path = .path.display())]
    AllNodata { path: PathBuf, cells: usize },
    /// The size in the header exceeds the limits of [`crate::limits`]; nothing was allocated.
    #[error(
        "{path}: too large ({width}×{height}; limits are {max_side} per side and {max_cells} cells)",
        path = .path.display(),
        max_side = crate::limits::MAX_SIDE,
        max_cells = crate::limits::MAX_CELLS
    )]
    TooLarge { path: PathBuf, width: u64, height: u64 },
    /// A count (points, array entries, bytes) exceeds its limit; nothing was allocated.
    #[error("{path}: too large ({what}: {count}, limit {limit})", path = .path.display())]
    TooMany { path: PathBuf, what: &'static str, count: u64, limit: u64 },
    /// The usable part of a raster is smaller than the caller needs.
    #[error("{path}: too small ({detail})", path = .path.display())]
    TooSmall { path: PathBuf, detail: String },
    /// The caller passed arguments that cannot produce a valid file (e.g. `lo >= hi`).
    #[error("{path}: invalid argument ({detail})", path = .path.display())]
    InvalidArgument { path: PathBuf, detail: String },
    /// A JSON file ([`crate::json::read_json`]) is not JSON, or not the shape asked for.
    ///
    /// The parser's message is part of this message (not also a `source()`).
    #[error("{path}: not JSON ({error})", path = .path.display())]
    NotJson { path: PathBuf, error: serde_json::Error },
    /// A sweep of PNG frames (a folder or a zip, [`crate::frames`]) or one of its frames that
    /// cannot be read; `detail` starts with the zip entry's name when the frame is one.
    #[error("{path}: {detail}", path = .path.display())]
    Frames {
        path: PathBuf,
        detail: String,
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// A JSON sidecar could not be parsed or written.
    ///
    /// The parser's message is part of this message (not also a `source()`).
    #[error("{path}: JSON sidecar: {error}", path = .path.display())]
    Json { path: PathBuf, error: serde_json::Error },
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, IoError>;

impl IoError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            IoError::Io { path, .. }
            | IoError::Empty { path, .. }
            | IoError::Truncated { path, .. }
            | IoError::WrongMagic { path, .. }
            | IoError::Unsupported { path, .. }
            | IoError::Missing { path, .. }
            | IoError::Malformed { path, .. }
            | IoError::NanHeights { path, .. }
            | IoError::AllNodata { path, .. }
            | IoError::TooLarge { path, .. }
            | IoError::TooMany { path, .. }
            | IoError::TooSmall { path, .. }
            | IoError::InvalidArgument { path, .. }
            | IoError::NotJson { path, .. }
            | IoError::Frames { path, .. }
            | IoError::Json { path, .. } => path,
        }
    }

    /// An operating-system error on `path`; an unexpected end of file becomes [`IoError::Truncated`].
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        if source.kind() == std::io::ErrorKind::UnexpectedEof {
            return IoError::Truncated { path: path.to_path_buf(), detail: "unexpected end of file".into() };
        }
        IoError::Io { path: path.to_path_buf(), error: source }
    }

    /// [`IoError::Malformed`] for `path`.
    pub fn malformed(path: &Path, format: &'static str, detail: impl Into<String>) -> Self {
        IoError::Malformed { path: path.to_path_buf(), format, detail: detail.into() }
    }

    /// [`IoError::Unsupported`] for `path`.
    pub fn unsupported(path: &Path, what: impl Into<String>) -> Self {
        IoError::Unsupported { path: path.to_path_buf(), what: what.into() }
    }

    /// [`IoError::Truncated`] for `path`.
    pub fn truncated(path: &Path, detail: impl Into<String>) -> Self {
        IoError::Truncated { path: path.to_path_buf(), detail: detail.into() }
    }

    /// [`IoError::InvalidArgument`] for `path`.
    pub fn invalid(path: &Path, detail: impl Into<String>) -> Self {
        IoError::InvalidArgument { path: path.to_path_buf(), detail: detail.into() }
    }

    /// [`IoError::Missing`] for `path`.
    pub fn missing(path: &Path, what: impl Into<String>) -> Self {
        IoError::Missing { path: path.to_path_buf(), what: what.into() }
    }
}

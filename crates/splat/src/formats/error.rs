//! The error type of `bozkir-splat`: every variant names the file and what is wrong with it.

use std::path::{Path, PathBuf};

/// Everything that can go wrong reading or writing a splat file, or making a tileset.
///
/// Each message starts with the file path, then says what is wrong, so a command-line tool can
/// print it as is.
#[derive(Debug, thiserror::Error)]
pub enum SplatError {
    /// The operating system refused a read, write, rename or similar.
    #[error("{path}: {source}", path = .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A zero-byte file, or a file that holds no splats.
    #[error("{path}: empty ({what})", path = .path.display())]
    Empty { path: PathBuf, what: String },
    /// The file ends before the data its header promises.
    #[error("{path}: truncated ({detail})", path = .path.display())]
    Truncated { path: PathBuf, detail: String },
    /// The first bytes are not those of the expected format.
    #[error("{path}: wrong magic bytes, not a {format} file", path = .path.display())]
    WrongMagic { path: PathBuf, format: &'static str },
    /// A valid file using a type, property layout, version or SH degree we do not read.
    #[error("{path}: unsupported {what}", path = .path.display())]
    Unsupported { path: PathBuf, what: String },
    /// A required property or entry is missing (e.g. PLY `opacity`).
    #[error("{path}: missing {what}", path = .path.display())]
    Missing { path: PathBuf, what: String },
    /// The file is structurally broken in a way not covered by the other variants.
    #[error("{path}: malformed {format} ({detail})", path = .path.display())]
    Malformed { path: PathBuf, format: &'static str, detail: String },
    /// A value that must be finite (a position) is NaN or infinite.
    #[error("{path}: {count} splats with a NaN or infinite {what} (first: splat {index})", path = .path.display())]
    NonFinite { path: PathBuf, what: &'static str, count: usize, index: usize },
    /// A count in the header exceeds its limit; nothing was allocated.
    #[error("{path}: too large ({what}: {count}, limit {limit})", path = .path.display())]
    TooMany { path: PathBuf, what: &'static str, count: u64, limit: u64 },
    /// The caller asked for something that cannot be written (e.g. an unknown extension).
    #[error("{path}: invalid argument ({detail})", path = .path.display())]
    Invalid { path: PathBuf, detail: String },
    /// No tileset could be made from a capture ([`crate::tiling::make_tileset`]).
    #[error(transparent)]
    Tileset(#[from] crate::tiling::TilesetError),
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, SplatError>;

impl SplatError {
    /// The file the error is about (`None` for an error not about a file).
    pub fn path(&self) -> Option<&Path> {
        Some(match self {
            SplatError::Io { path, .. }
            | SplatError::Empty { path, .. }
            | SplatError::Truncated { path, .. }
            | SplatError::WrongMagic { path, .. }
            | SplatError::Unsupported { path, .. }
            | SplatError::Missing { path, .. }
            | SplatError::Malformed { path, .. }
            | SplatError::NonFinite { path, .. }
            | SplatError::TooMany { path, .. }
            | SplatError::Invalid { path, .. } => path,
            SplatError::Tileset(_) => return None,
        })
    }

    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        if source.kind() == std::io::ErrorKind::UnexpectedEof {
            return SplatError::Truncated { path: path.to_path_buf(), detail: "unexpected end of file".into() };
        }
        SplatError::Io { path: path.to_path_buf(), source }
    }

    /// The same error from `bozkir-io`'s shared PLY container code (variant for variant, so the
    /// message is unchanged). The raster-only variants, which that code never returns, become
    /// [`SplatError::Invalid`].
    pub(crate) fn from_io_error(e: bozkir_io::IoError) -> Self {
        use bozkir_io::IoError as E;
        match e {
            E::Io { path, source } => SplatError::Io { path, source },
            E::Empty { path, what } => SplatError::Empty { path, what },
            E::Truncated { path, detail } => SplatError::Truncated { path, detail },
            E::WrongMagic { path, format } => SplatError::WrongMagic { path, format },
            E::Unsupported { path, what } => SplatError::Unsupported { path, what },
            E::Missing { path, what } => SplatError::Missing { path, what },
            E::Malformed { path, format, detail } => SplatError::Malformed { path, format, detail },
            E::TooMany { path, what, count, limit } => SplatError::TooMany { path, what, count, limit },
            E::InvalidArgument { path, detail } => SplatError::Invalid { path, detail },
            other => SplatError::Invalid { path: other.path().to_path_buf(), detail: other.to_string() },
        }
    }

    pub(crate) fn malformed(path: &Path, format: &'static str, detail: impl Into<String>) -> Self {
        SplatError::Malformed { path: path.to_path_buf(), format, detail: detail.into() }
    }

    pub(crate) fn unsupported(path: &Path, what: impl Into<String>) -> Self {
        SplatError::Unsupported { path: path.to_path_buf(), what: what.into() }
    }

    pub(crate) fn truncated(path: &Path, detail: impl Into<String>) -> Self {
        SplatError::Truncated { path: path.to_path_buf(), detail: detail.into() }
    }

    pub(crate) fn missing(path: &Path, what: impl Into<String>) -> Self {
        SplatError::Missing { path: path.to_path_buf(), what: what.into() }
    }

    pub(crate) fn empty(path: &Path, what: impl Into<String>) -> Self {
        SplatError::Empty { path: path.to_path_buf(), what: what.into() }
    }

    pub(crate) fn too_many(path: &Path, what: &'static str, count: u64) -> Self {
        SplatError::TooMany { path: path.to_path_buf(), what, count, limit: crate::formats::MAX_SPLATS }
    }
}

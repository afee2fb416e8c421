//! The error type of `bozkir-splat`: every variant names the file and what is wrong with it.
//!
//! The file-level problems a splat format shares with the raster and point formats (a refused
//! read, a truncated or empty file, wrong magic bytes, …) are `bozkir_io`'s [`IoError`], wrapped
//! unchanged, so both crates print them the same way.

use bozkir_io::IoError;
use std::path::{Path, PathBuf};

/// Everything that can go wrong reading or writing a splat file, or making a tileset.
///
/// Each message starts with the file path, then says what is wrong, so a command-line tool can
/// print it as is.
///
/// # Examples
///
/// ```
/// use bozkir_splat::SplatError;
/// let e = bozkir_splat::formats::load(std::path::Path::new("/no/such/file.splat")).unwrap_err();
/// assert!(matches!(e, SplatError::Io(_)));
/// assert_eq!(e.path(), Some(std::path::Path::new("/no/such/file.splat")));
/// ```
#[derive(Debug, thiserror::Error)]
pub enum SplatError {
    /// A file-level problem shared with the raster and point formats: a refused read or write, an
    /// empty or truncated file, wrong magic bytes, an unsupported or missing property, a
    /// malformed structure, a count over its limit, or an invalid argument (e.g. nothing to write).
    #[error(transparent)]
    Io(#[from] IoError),
    /// A value that must be finite (position, scale, rotation, opacity, colour) is NaN or
    /// infinite; `what` names the field of the first such splat, `index` its index (from 0) and
    /// `count` how many splats have any non-finite field.
    #[error("{path}: {count} splats with a NaN or infinite {what} (first: splat {index})", path = .path.display())]
    NonFinite { path: PathBuf, what: &'static str, count: usize, index: usize },
    /// No tileset could be made from a capture ([`crate::tiling::make_tileset`]).
    #[error(transparent)]
    Tileset(#[from] crate::tiling::TilesetError),
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, SplatError>;

impl SplatError {
    /// The file the error is about (`None` for an error not about a file).
    pub fn path(&self) -> Option<&Path> {
        match self {
            SplatError::Io(e) => Some(e.path()),
            SplatError::NonFinite { path, .. } => Some(path),
            SplatError::Tileset(_) => None,
        }
    }

    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        IoError::io(path, source).into()
    }

    pub(crate) fn malformed(path: &Path, format: &'static str, detail: impl Into<String>) -> Self {
        IoError::malformed(path, format, detail).into()
    }

    pub(crate) fn unsupported(path: &Path, what: impl Into<String>) -> Self {
        IoError::unsupported(path, what).into()
    }

    pub(crate) fn truncated(path: &Path, detail: impl Into<String>) -> Self {
        IoError::truncated(path, detail).into()
    }

    pub(crate) fn missing(path: &Path, what: impl Into<String>) -> Self {
        IoError::missing(path, what).into()
    }

    pub(crate) fn invalid(path: &Path, detail: impl Into<String>) -> Self {
        IoError::invalid(path, detail).into()
    }

    pub(crate) fn wrong_magic(path: &Path, format: &'static str) -> Self {
        IoError::WrongMagic { path: path.to_path_buf(), format }.into()
    }

    pub(crate) fn empty(path: &Path, what: impl Into<String>) -> Self {
        IoError::Empty { path: path.to_path_buf(), what: what.into() }.into()
    }

    pub(crate) fn too_many(path: &Path, what: &'static str, count: u64) -> Self {
        IoError::TooMany { path: path.to_path_buf(), what, count, limit: crate::formats::MAX_SPLATS }.into()
    }
}

//! The one error type of the viewer library.

use std::net::SocketAddr;
use std::path::PathBuf;

/// A result whose error is a [`ViewerError`].
pub type Result<T, E = ViewerError> = std::result::Result<T, E>;

/// Why reading a scene or starting the server failed. Every message names what is wrong (the
/// file or the address first), worded for the user; [`report`] gives it with its causes.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ViewerError {
    /// Reading a terrain folder through `bozkir_pipeline::folder` (printed unchanged).
    #[error(transparent)]
    Pipeline(#[from] bozkir_pipeline::PipelineError),
    /// A tileset file that cannot be read or parsed; the message is the reader's, without its
    /// causes.
    #[error("{0}")]
    Tileset(bozkir_splat::formats::tileset::TilesetFileError),
    /// A file or folder operation, or a name lookup, failed; `context` says which
    /// (`PATH: cannot read`), `source` why.
    #[error("{context}")]
    Io {
        /// What was being done, as the user reads it.
        context: String,
        /// What the system answered.
        #[source]
        source: std::io::Error,
    },
    /// A `.zip` given as the scene that is not a tileset.
    #[error("{path}: not a tileset", path = .path.display())]
    NotATileset {
        /// The file.
        path: PathBuf,
        /// Why it is not one.
        #[source]
        source: Box<ViewerError>,
    },
    /// The server cannot listen on the address.
    #[error("cannot listen on {addr}: {error} (is another server using the port? choose another with --port)")]
    Listen {
        /// The address asked for.
        addr: SocketAddr,
        /// What the system answered (part of the message).
        error: std::io::Error,
    },
    /// A scene file whose name resolves (through symbolic links) outside the served folder: it is
    /// never read or served (see `docs/reliability.md`).
    #[error(
        "{path}: links to {target}, outside the served folder {root} (links are followed only inside it)",
        path = .path.display(), target = .target.display(), root = .root.display()
    )]
    Outside {
        /// The name in the scene.
        path: PathBuf,
        /// What it resolves to.
        target: PathBuf,
        /// The served folder.
        root: PathBuf,
    },
    /// The input cannot be used: the message says why.
    #[error("{0}")]
    Invalid(String),
}

impl ViewerError {
    /// An [`ViewerError::Io`] with this context.
    pub(crate) fn io(context: String) -> impl FnOnce(std::io::Error) -> ViewerError {
        move |source| ViewerError::Io { context, source }
    }
}

/// An error with its causes, `error: cause: cause…` — the line a warning or a 500 reply shows.
///
/// # Examples
///
/// ```
/// use bozkir_viewer::{report, ViewerError};
///
/// let e = ViewerError::Io { context: "x.png: cannot read".into(), source: std::io::ErrorKind::NotFound.into() };
/// assert_eq!(report(&e), "x.png: cannot read: entity not found");
/// ```
pub fn report(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cause = c.source();
    }
    s
}

//! Atomic writing (through [`bozkir_io::write_atomic`]: a temporary sibling
//! `.<name>.<pid>.<n>.tmp`, flushed, synced and renamed over the target; on any error it is
//! removed and an existing target is left untouched) and checked opening.

use crate::formats::error::{Result, SplatError};
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

/// Write `path` atomically from a filled buffer-writer callback (1 MiB buffer).
pub(crate) fn atomic_write<F>(path: &Path, write: F) -> Result<()>
where
    F: FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
{
    bozkir_io::write_atomic(path, 1 << 20, write).map_err(|e| SplatError::io(path, e))
}

/// Open `path` for reading, refusing a zero-byte file; returns the file and its length.
pub(crate) fn open_nonempty(path: &Path) -> Result<(File, u64)> {
    let file = File::open(path).map_err(|e| SplatError::io(path, e))?;
    let len = file.metadata().map_err(|e| SplatError::io(path, e))?.len();
    if len == 0 {
        return Err(SplatError::empty(path, "zero-byte file"));
    }
    Ok((file, len))
}

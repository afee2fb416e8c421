//! Atomic writing: write a temporary sibling `.<name>.<pid>.<n>.tmp`, flush and sync it, then
//! rename it over the target. On any error the temporary file is removed and an existing
//! target is left untouched.

use crate::error::{Result, SplatError};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static COUNTER: AtomicU64 = AtomicU64::new(0);

fn temp_path(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = format!(".{name}.{}.{n}.tmp", std::process::id());
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.join(tmp),
        _ => PathBuf::from(tmp),
    }
}

/// Write `path` atomically from a filled buffer-writer callback.
pub(crate) fn atomic_write<F>(path: &Path, write: F) -> Result<()>
where
    F: FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
{
    let tmp = temp_path(path);
    let file = File::create(&tmp).map_err(|e| SplatError::io(path, e))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let result = write(&mut w).map_err(|e| SplatError::io(path, e)).and_then(|()| {
        w.flush().map_err(|e| SplatError::io(path, e))?;
        let file = w.into_inner().map_err(|e| SplatError::io(path, e.into_error()))?;
        file.sync_data().map_err(|e| SplatError::io(path, e))?;
        drop(file);
        std::fs::rename(&tmp, path).map_err(|e| SplatError::io(path, e))
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
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

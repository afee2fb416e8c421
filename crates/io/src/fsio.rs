//! File helpers shared by the formats: checked opening and atomic writing.
//!
//! Writers never leave a partial file behind: they write to a temporary file in the same
//! directory (`.<name>.<pid>.<n>.tmp`) and rename it over the target only when everything was
//! written, flushed and synced. On any error the temporary file is removed and an existing
//! target is left untouched. A folder whose files are synced together later (a command's staging
//! folder, synced as a whole when it is published) can waive the per-file sync
//! ([`defer_sync_under`]).

use crate::error::{IoError, Result};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Folders whose files [`write_atomic`] does not sync: see [`defer_sync_under`].
static DEFERRED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// From now on, files that [`write_atomic`] writes under `dir` are not synced one by one: their
/// writeback is started (Linux) and the caller promises to sync them all itself before it relies
/// on them (a staging folder synced as a whole when it is published, the syncs then in parallel
/// and the writeback mostly done). Until [`end_deferred_sync`] with the same `dir`.
pub fn defer_sync_under(dir: &Path) {
    DEFERRED.lock().unwrap_or_else(|e| e.into_inner()).push(dir.to_path_buf());
}

/// Ends one [`defer_sync_under`] of `dir`.
pub fn end_deferred_sync(dir: &Path) {
    let mut d = DEFERRED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(k) = d.iter().position(|x| x == dir) {
        d.remove(k);
    }
}

fn sync_deferred(path: &Path) -> bool {
    DEFERRED.lock().unwrap_or_else(|e| e.into_inner()).iter().any(|d| path.starts_with(d))
}

/// Starts writing `file`'s dirty pages back without waiting (a hint: errors are left to the
/// later sync, which reports them).
fn start_writeback(file: &File) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: a plain system call on an open descriptor; it reads no memory of ours.
        unsafe {
            libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}

/// The temporary sibling of `path` used while writing it.
fn temp_path(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
    let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = format!(".{name}.{}.{n}.tmp", std::process::id());
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.join(tmp),
        _ => PathBuf::from(tmp),
    }
}

/// Write `path` atomically: `write` fills a temporary sibling through a buffer of `capacity`
/// bytes, which is flushed, synced (unless under a folder of [`defer_sync_under`]) and renamed
/// over `path` when `write` succeeded. On any
/// failure the temporary file is removed, an existing `path` is left untouched, and the error
/// (of `write`, or of the create, flush, sync or rename) is returned as is.
///
/// With `BOZKIR_WRITE_TIMES` set, prints the file's write time (see [`crate::write_times`]).
///
/// The one atomic writer of the workspace: this crate's writers and `bozkir-splat`'s use it,
/// each wrapping the error in its own type.
pub fn write_atomic<F>(path: &Path, capacity: usize, write: F) -> std::io::Result<()>
where
    F: FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
{
    let opened = crate::write_times::enabled().then(std::time::Instant::now);
    let tmp = temp_path(path);
    let file = File::create(&tmp)?;
    let mut w = BufWriter::with_capacity(capacity, file);
    let result = write(&mut w).and_then(|()| {
        let file = w.into_inner().map_err(|e| e.into_error())?;
        if sync_deferred(path) {
            start_writeback(&file);
        } else {
            file.sync_data()?;
        }
        drop(file);
        std::fs::rename(&tmp, path)
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    } else if let Some(opened) = opened {
        let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
        crate::write_times::file_done(&name, opened);
    }
    result
}

/// [`write_atomic`] with this crate's error type: an error of `write` is returned as is, any
/// other is wrapped naming `path`.
pub(crate) fn atomic_write<F>(path: &Path, write: F) -> Result<()>
where
    F: FnOnce(&mut BufWriter<File>) -> Result<()>,
{
    let mut failed = None;
    let result = write_atomic(path, 1 << 16, |w| {
        write(w).map_err(|e| {
            failed = Some(e);
            std::io::Error::other("the writer failed")
        })
    });
    match failed {
        Some(e) => Err(e),
        None => result.map_err(|e| IoError::io(path, e)),
    }
}

/// Open `path` for reading, refusing a zero-byte file. Returns the reader and the file length.
pub(crate) fn open_nonempty(path: &Path) -> Result<(BufReader<File>, u64)> {
    let file = File::open(path).map_err(|e| IoError::io(path, e))?;
    let len = file.metadata().map_err(|e| IoError::io(path, e))?.len();
    if len == 0 {
        return Err(IoError::Empty { path: path.to_path_buf(), what: "zero-byte file".into() });
    }
    Ok((BufReader::with_capacity(1 << 16, file), len))
}

/// Open `path`, refuse a zero-byte file and check that it starts with `magic`; the returned
/// reader is positioned at the start of the file.
pub(crate) fn open_with_magic(path: &Path, magics: &[&[u8]], format: &'static str) -> Result<(File, u64)> {
    let mut file = File::open(path).map_err(|e| IoError::io(path, e))?;
    let len = file.metadata().map_err(|e| IoError::io(path, e))?.len();
    if len == 0 {
        return Err(IoError::Empty { path: path.to_path_buf(), what: "zero-byte file".into() });
    }
    let need = magics.iter().map(|m| m.len()).max().unwrap_or(0);
    let mut head = vec![0u8; need.min(len as usize)];
    file.read_exact(&mut head).map_err(|e| IoError::io(path, e))?;
    if !magics.iter().any(|m| head.len() >= m.len() && &head[..m.len()] == *m) {
        return Err(IoError::WrongMagic { path: path.to_path_buf(), format });
    }
    use std::io::Seek;
    file.seek(std::io::SeekFrom::Start(0)).map_err(|e| IoError::io(path, e))?;
    Ok((file, len))
}

/// Wrap a `std::io::Error` raised while writing through `w`.
pub(crate) fn write_all(path: &Path, w: &mut impl Write, bytes: &[u8]) -> Result<()> {
    w.write_all(bytes).map_err(|e| IoError::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deferred_folders_skip_the_sync_only_beneath_them_and_until_ended() {
        let dir = std::env::temp_dir().join(format!("bozkir-fsio-defer-{}", std::process::id()));
        let (a, b) = (dir.join("a"), dir.join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        defer_sync_under(&a);
        assert!(sync_deferred(&a.join("x.tif")) && sync_deferred(&a.join("sub/y.png")));
        assert!(!sync_deferred(&b.join("x.tif")) && !sync_deferred(&dir.join("a.tif")));
        // A deferred write is complete all the same.
        write_atomic(&a.join("x.bin"), 16, |w| w.write_all(&[7u8; 1000])).unwrap();
        assert_eq!(std::fs::read(a.join("x.bin")).unwrap(), vec![7u8; 1000]);
        end_deferred_sync(&a);
        assert!(!sync_deferred(&a.join("x.tif")));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn failed_write_leaves_no_file_and_keeps_the_old_target() {
        let dir = std::env::temp_dir().join(format!("bozkir-io-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("a.bin");
        std::fs::write(&target, b"old").unwrap();
        let err = atomic_write(&target, |w| {
            w.write_all(&[1u8; 100_000]).unwrap();
            Err(IoError::invalid(&target, "stop half way"))
        })
        .unwrap_err();
        assert!(err.to_string().contains("a.bin"));
        let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("a.bin")]);
        assert_eq!(std::fs::read(&target).unwrap(), b"old");
        atomic_write(&target, |w| write_all(&target, w, b"new")).unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

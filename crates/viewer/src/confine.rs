//! Every file the viewer reads from a scene stays inside the served folder.
//!
//! A scene's files are found by name in the folder given to `bozkir serve` / `bozkir site` (the
//! *served root*). A symbolic link is followed only when everything it resolves to lies inside
//! that root: a scene may link a tileset folder from a sibling folder of the same tree, but never
//! reach `/etc/passwd` or a file of another project. The check is made when the scene is read
//! (an entry with a file that leaves the root is skipped with a warning) and again on every
//! request, on the file actually opened (so a link swapped in after start-up is refused too).

use crate::error::{Result, ViewerError};
use std::fs::File;
use std::path::{Path, PathBuf};

/// `path` resolved through every link, when it lies inside `root` (itself canonical); a
/// [`ViewerError::Outside`] when it resolves elsewhere, an [`ViewerError::Io`] when it does not
/// resolve (a missing file, a dangling link, a link loop).
pub(crate) fn resolve_inside(root: &Path, path: &Path) -> Result<PathBuf> {
    let real = path.canonicalize().map_err(ViewerError::io(format!("{}: cannot resolve", path.display())))?;
    if !real.starts_with(root) {
        return Err(outside(root, path, &real));
    }
    Ok(real)
}

/// `Ok` when `path` does not exist as a name at all or resolves inside `root`.
pub(crate) fn check_inside(root: &Path, path: &Path) -> Result<()> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(());
    }
    resolve_inside(root, path).map(|_| ())
}

fn outside(root: &Path, path: &Path, real: &Path) -> ViewerError {
    ViewerError::Outside { path: path.to_path_buf(), target: real.to_path_buf(), root: root.to_path_buf() }
}

/// Open `path` for reading when it is a regular file inside `root`: the name is resolved and
/// checked, the file opened, and (on Linux) the path of the descriptor actually opened is checked
/// again, so a link swapped between the check and the open is refused as well. Returns the file
/// and its length.
pub(crate) fn open_inside(root: &Path, path: &Path) -> Result<(File, u64)> {
    let real = resolve_inside(root, path)?;
    let cannot = || format!("{}: cannot read", path.display());
    // Only regular files: a FIFO or a device would block or never end.
    let meta = std::fs::metadata(&real).map_err(ViewerError::io(cannot()))?;
    if !meta.is_file() {
        return Err(ViewerError::Invalid(format!("{}: not a regular file", path.display())));
    }
    let f = File::open(&real).map_err(ViewerError::io(cannot()))?;
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        if let Ok(opened) = std::fs::read_link(format!("/proc/self/fd/{}", f.as_raw_fd())) {
            if !opened.starts_with(root) {
                return Err(outside(root, path, &opened));
            }
        }
    }
    let meta = f.metadata().map_err(ViewerError::io(cannot()))?;
    if !meta.is_file() {
        return Err(ViewerError::Invalid(format!("{}: not a regular file", path.display())));
    }
    Ok((f, meta.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn links_are_followed_only_inside_the_root() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::fs::write(root.join("a/in.txt"), b"inside").unwrap();
        std::fs::write(tmp.path().join("secret.txt"), b"outside").unwrap();
        std::os::unix::fs::symlink(root.join("a/in.txt"), root.join("near")).unwrap();
        std::os::unix::fs::symlink(tmp.path().join("secret.txt"), root.join("far")).unwrap();
        std::os::unix::fs::symlink(tmp.path(), root.join("up")).unwrap();
        let root = root.canonicalize().unwrap();
        assert_eq!(open_inside(&root, &root.join("near")).unwrap().1, 6);
        for bad in ["far", "up/secret.txt"] {
            let e = open_inside(&root, &root.join(bad)).unwrap_err();
            assert!(matches!(e, ViewerError::Outside { .. }), "{bad}: {e}");
            assert!(e.to_string().contains("outside the served folder"), "{e}");
        }
        assert!(matches!(open_inside(&root, &root.join("none")), Err(ViewerError::Io { .. })));
        assert!(matches!(open_inside(&root, &root.join("a")), Err(ViewerError::Invalid(_))));
        assert!(check_inside(&root, &root.join("none")).is_ok());
        assert!(check_inside(&root, &root.join("far")).is_err());
    }
}

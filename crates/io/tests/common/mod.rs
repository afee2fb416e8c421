//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};

/// A fresh, empty directory for one test, removed when dropped.
pub struct TmpDir(PathBuf);

impl TmpDir {
    pub fn new(name: &str) -> Self {
        let d = std::env::temp_dir().join(format!("bozkir-io-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        TmpDir(d)
    }
}

impl std::ops::Deref for TmpDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TmpDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

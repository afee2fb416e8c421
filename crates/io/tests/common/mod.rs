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

/// An `.npy` file (version 1.0) with this header dict and data.
#[allow(dead_code)]
pub fn npy(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
    let mut h = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + h.len() + 1) % 64 != 0 {
        h.push(' ');
    }
    h.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(h.len() as u16).to_le_bytes());
    out.extend_from_slice(h.as_bytes());
    out.extend_from_slice(data);
    out
}

/// A zip of `(name, bytes)` entries, deflated or stored.
#[allow(dead_code)]
pub fn zip_of(entries: &[(&str, Vec<u8>)], deflate: bool) -> Vec<u8> {
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        use std::io::Write;
        let mut z = zip::ZipWriter::new(&mut buf);
        let m = if deflate { zip::CompressionMethod::Deflated } else { zip::CompressionMethod::Stored };
        let opt = zip::write::SimpleFileOptions::default().compression_method(m);
        for (n, b) in entries {
            z.start_file(*n, opt).unwrap();
            z.write_all(b).unwrap();
        }
        z.finish().unwrap();
    }
    buf.into_inner()
}

//! Plain JSON files (reports, settings): read whole and deserialised, at most
//! [`MAX_JSON_BYTES`]. The JSON sidecars of height fields have their own checked format
//! ([`crate::sidecar`]).

use crate::error::{IoError, Result};
use std::io::Read;
use std::path::Path;

/// The largest JSON file [`read_json`] reads, bytes (64 MiB).
pub const MAX_JSON_BYTES: u64 = 64 << 20;

/// Read the JSON file `path` into `T` (a [`serde_json::Value`] for any JSON).
///
/// Errors name `path`: [`IoError::Io`] when it cannot be read, [`IoError::TooMany`] above
/// [`MAX_JSON_BYTES`], [`IoError::NotJson`] when the text is not JSON or not the shape of `T`.
///
/// # Examples
///
/// ```
/// use bozkir_io::json::read_json;
///
/// let dir = std::env::temp_dir().join(format!("bozkir-json-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("report.json");
/// std::fs::write(&path, r#"{"kappa": 0.5}"#).unwrap();
/// let v: serde_json::Value = read_json(&path).unwrap();
/// assert_eq!(v["kappa"], 0.5);
/// std::fs::write(&path, "{oops").unwrap();
/// let e = read_json::<serde_json::Value>(&path).unwrap_err().to_string();
/// assert!(e.starts_with(&path.display().to_string()) && e.contains("not JSON"), "{e}");
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn read_json<T: serde::de::DeserializeOwned>(path: impl AsRef<Path>) -> Result<T> {
    let path = path.as_ref();
    let file = std::fs::File::open(path).map_err(|e| IoError::io(path, e))?;
    let len = file.metadata().map_err(|e| IoError::io(path, e))?.len();
    if len > MAX_JSON_BYTES {
        return Err(IoError::TooMany {
            path: path.to_path_buf(),
            what: "JSON bytes",
            count: len,
            limit: MAX_JSON_BYTES,
        });
    }
    let mut text = Vec::with_capacity(len as usize);
    file.take(MAX_JSON_BYTES + 1).read_to_end(&mut text).map_err(|e| IoError::io(path, e))?;
    serde_json::from_slice(&text).map_err(|error| IoError::NotJson { path: path.to_path_buf(), error })
}

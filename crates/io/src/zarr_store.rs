//! A Zarr v3 store for worlds written tile by tile ([`ZarrWriter`]).
//!
//! Layout (a group at the root, three arrays):
//! - `zarr.json`: the group, its `attributes` the caller's (recipe, seed, sizes, halo …);
//! - `height/`: `float32`, shape `[rows, columns]`, one chunk per tile (`chunk × chunk`, edge
//!   chunks padded with the fill value NaN as Zarr requires), codecs `bytes` (little-endian) then
//!   `zstd` (level 3, no checksum), chunk keys `c/ROW/COLUMN`, `dimension_names` `["y", "x"]`;
//! - `x/`, `y/`: `float64` coordinates of the columns and rows in metres, one chunk each:
//!   `x = i·dx`, `y = (rows − 1 − j)·dy` (row 0 is north), so xarray, and bozkir's own
//!   [`crate::dem::read_dem`], place the world north up with its cell size.
//!
//! Every file is written atomically (a temporary sibling renamed into place), so a writer killed
//! mid-chunk leaves either the old chunk or none, never a torn one; a chunk written twice from
//! the same heights has the same bytes (zstd at a fixed level is deterministic), which is what
//! makes a retried tile harmless. [`ZarrWriter::create`] reopens a store whose metadata is
//! byte-identical (a resumed or retried run) and refuses any other existing path.

use crate::error::{IoError, Result};
use crate::fsio::atomic_write;
use serde_json::{json, Map, Value};
use std::io::Write;
use std::path::{Path, PathBuf};

/// zstd level of the height chunks.
const LEVEL: i32 = 3;

/// A store being written tile by tile (see the module docs).
#[derive(Debug, Clone)]
pub struct ZarrWriter {
    dir: PathBuf,
    width: usize,
    height: usize,
    chunk: usize,
}

fn io(path: &Path, error: std::io::Error) -> IoError {
    IoError::Io { path: path.to_path_buf(), error }
}

fn pretty(v: &Value) -> Vec<u8> {
    let mut s = serde_json::to_vec_pretty(v).expect("JSON values serialise");
    s.push(b'\n');
    s
}

/// Metadata of a 1-D float64 coordinate array of `n` values in one chunk, and its bytes.
fn coordinate(n: usize, f: impl Fn(usize) -> f64, name: &str) -> (Value, Vec<u8>) {
    let meta = json!({
        "zarr_format": 3,
        "node_type": "array",
        "shape": [n],
        "data_type": "float64",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [n]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": "NaN",
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
        "attributes": {"units": "m", "long_name": if name == "x" { "easting" } else { "northing" }},
        "dimension_names": [name],
    });
    let bytes = (0..n).flat_map(|i| f(i).to_le_bytes()).collect();
    (meta, bytes)
}

impl ZarrWriter {
    /// Create the store `dir` for a `width × height` world of `chunk × chunk` tiles with cell
    /// size `(dx, dy)` metres and the group attributes `attrs`, or reopen it when it already
    /// holds exactly this metadata. Refused: sizes of 0 or past 2²⁰, a chunk of 0, non-positive or
    /// non-finite cell sizes, and an existing path that is not this store.
    pub fn create(
        dir: &Path,
        width: usize,
        height: usize,
        chunk: usize,
        (dx, dy): (f64, f64),
        attrs: Map<String, Value>,
    ) -> Result<Self> {
        let bad = |detail: String| IoError::InvalidArgument { path: dir.to_path_buf(), detail };
        if width == 0 || height == 0 || width > 1 << 20 || height > 1 << 20 {
            return Err(bad(format!("world of {width}×{height} cells (1..=2^20 per side)")));
        }
        if chunk == 0 || chunk > 1 << 16 {
            return Err(bad(format!("chunk of {chunk} cells (1..=65536)")));
        }
        if !(dx.is_finite() && dy.is_finite() && dx > 0.0 && dy > 0.0) {
            return Err(bad(format!("cell size {dx} × {dy} m")));
        }
        let group = json!({"zarr_format": 3, "node_type": "group", "attributes": attrs});
        let array = json!({
            "zarr_format": 3,
            "node_type": "array",
            "shape": [height, width],
            "data_type": "float32",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [chunk, chunk]}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": "NaN",
            "codecs": [
                {"name": "bytes", "configuration": {"endian": "little"}},
                {"name": "zstd", "configuration": {"level": LEVEL, "checksum": false}},
            ],
            "attributes": {"units": "m", "long_name": "height", "standard_name": "height"},
            "dimension_names": ["y", "x"],
        });
        let (xm, xb) = coordinate(width, |i| i as f64 * dx, "x");
        let (ym, yb) = coordinate(height, |j| (height - 1 - j) as f64 * dy, "y");
        let files: Vec<(PathBuf, Vec<u8>)> = vec![
            (dir.join("zarr.json"), pretty(&group)),
            (dir.join("height/zarr.json"), pretty(&array)),
            (dir.join("x/zarr.json"), pretty(&xm)),
            (dir.join("y/zarr.json"), pretty(&ym)),
            (dir.join("x/c/0"), xb),
            (dir.join("y/c/0"), yb),
        ];
        let w = Self { dir: dir.to_path_buf(), width, height, chunk };
        if dir.exists() {
            if !dir.is_dir() {
                return Err(bad("exists and is not a folder; nothing was written".into()));
            }
            let same = files[..4].iter().all(|(p, b)| std::fs::read(p).map(|got| got == *b).unwrap_or(false));
            if same {
                return Ok(w);
            }
            let empty = std::fs::read_dir(dir).map_err(|e| io(dir, e))?.next().is_none();
            if !empty {
                return Err(bad("exists and is not a store of this world (other metadata, or not a store); \
                     remove it or choose another path — nothing was written"
                    .into()));
            }
        }
        for (p, b) in &files {
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
            }
            atomic_write(p, |out| out.write_all(b).map_err(|e| io(p, e)))?;
        }
        Ok(w)
    }

    /// Chunks per side (columns, rows).
    pub fn chunks(&self) -> (usize, usize) {
        (self.width.div_ceil(self.chunk), self.height.div_ceil(self.chunk))
    }

    /// The file of chunk `(cx, cy)` (column, row).
    pub fn chunk_path(&self, cx: usize, cy: usize) -> PathBuf {
        self.dir.join(format!("height/c/{cy}/{cx}"))
    }

    /// Whether chunk `(cx, cy)` has been written.
    pub fn has_chunk(&self, cx: usize, cy: usize) -> bool {
        self.chunk_path(cx, cy).is_file()
    }

    /// Write chunk `(cx, cy)` from its `w × h` heights (row-major; the chunk's part inside the
    /// world: `w = min(chunk, width − cx·chunk)`), as float32, padded with NaN, zstd-compressed,
    /// atomically. Refused: a chunk outside the grid or heights of the wrong count.
    pub fn write_chunk(&self, cx: usize, cy: usize, heights: &[f64]) -> Result<()> {
        let (nx, ny) = self.chunks();
        let path = self.chunk_path(cx, cy);
        let bad = |detail: String| IoError::InvalidArgument { path: path.clone(), detail };
        if cx >= nx || cy >= ny {
            return Err(bad(format!("chunk ({cx}, {cy}) outside the {nx} × {ny} chunks")));
        }
        let c = self.chunk;
        let (w, h) = (c.min(self.width - cx * c), c.min(self.height - cy * c));
        if heights.len() != w * h {
            return Err(bad(format!("{} heights for a {w}×{h} chunk", heights.len())));
        }
        let mut raw = Vec::with_capacity(c * c * 4);
        for y in 0..c {
            for x in 0..c {
                let v = if x < w && y < h { heights[y * w + x] as f32 } else { f32::NAN };
                raw.extend_from_slice(&v.to_le_bytes());
            }
        }
        let packed = zstd::bulk::compress(&raw, LEVEL).map_err(|e| io(&path, e))?;
        let parent = path.parent().expect("chunk paths have a parent");
        std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
        atomic_write(&path, |out| out.write_all(&packed).map_err(|e| io(&path, e)))
    }
}

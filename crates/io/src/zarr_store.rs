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

    /// Remove the temporary files a writer killed mid-chunk left beside the chunks (`.NAME.PID.N.tmp`;
    /// a chunk itself is only ever renamed into place whole). Call it only while no other process
    /// writes this store (a resumed run does, before its first tile). Returns how many went.
    pub fn remove_temporaries(&self) -> Result<usize> {
        let root = self.dir.join("height/c");
        let mut removed = 0;
        let Ok(rows) = std::fs::read_dir(&root) else { return Ok(0) };
        for row in rows {
            let row = row.map_err(|e| io(&root, e))?.path();
            if !row.is_dir() {
                continue;
            }
            for entry in std::fs::read_dir(&row).map_err(|e| io(&row, e))? {
                let path = entry.map_err(|e| io(&row, e))?.path();
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                if name.starts_with('.') && name.ends_with(".tmp") && path.is_file() {
                    std::fs::remove_file(&path).map_err(|e| io(&path, e))?;
                    removed += 1;
                }
            }
        }
        Ok(removed)
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

/// A store written by [`ZarrWriter`], read one chunk at a time (the viewer streams it). Only
/// that layout is accepted: a 2-D float32 `height` array with square regular chunks, codecs
/// `bytes` (little-endian) then `zstd`, `/`-separated keys, and `x`/`y` coordinates.
#[derive(Debug, Clone)]
pub struct ZarrTiles {
    dir: PathBuf,
    /// Columns and rows of the world.
    pub width: usize,
    /// Rows of the world.
    pub height: usize,
    /// Chunk side in cells.
    pub chunk: usize,
    /// Cell size in metres, east and north.
    pub cell: (f64, f64),
    /// The group's attributes (`bozkir`: the world's recipe, seed, sizes …).
    pub attributes: Map<String, Value>,
}

impl ZarrTiles {
    /// Open the store `dir`, checking its metadata; the error names what is not this layout.
    pub fn open(dir: &Path) -> Result<Self> {
        let bad = |detail: String| IoError::InvalidArgument { path: dir.to_path_buf(), detail };
        let json = |rel: &str| -> Result<Value> {
            let p = dir.join(rel);
            let b = std::fs::read(&p).map_err(|e| io(&p, e))?;
            serde_json::from_slice(&b)
                .map_err(|e| IoError::InvalidArgument { path: p, detail: format!("not JSON: {e}") })
        };
        let group = json("zarr.json")?;
        if group["zarr_format"] != 3 || group["node_type"] != "group" {
            return Err(bad("zarr.json is not a Zarr v3 group".into()));
        }
        let a = json("height/zarr.json")?;
        let shape: Vec<usize> = a["shape"]
            .as_array()
            .map(|v| v.iter().filter_map(|x| x.as_u64().map(|x| x as usize)).collect())
            .unwrap_or_default();
        let chunk: Vec<usize> = a["chunk_grid"]["configuration"]["chunk_shape"]
            .as_array()
            .map(|v| v.iter().filter_map(|x| x.as_u64().map(|x| x as usize)).collect())
            .unwrap_or_default();
        let codecs: Vec<&str> =
            a["codecs"].as_array().map(|v| v.iter().filter_map(|c| c["name"].as_str()).collect()).unwrap_or_default();
        if shape.len() != 2 || shape.iter().any(|&n| !(2..=1 << 20).contains(&n)) {
            return Err(bad(format!("height: shape {:?} is not a 2-D world of 2..=2^20 cells a side", a["shape"])));
        }
        if chunk.len() != 2 || chunk[0] != chunk[1] || chunk[0] == 0 || chunk[0] > 65536 {
            return Err(bad(format!("height: chunks {:?} are not square (1..=65536)", a["chunk_grid"])));
        }
        if a["data_type"] != "float32"
            || codecs != ["bytes", "zstd"]
            || a["codecs"][0]["configuration"]["endian"] != "little"
            || a["chunk_key_encoding"]["configuration"]["separator"] != "/"
        {
            return Err(bad(
                "height: not the layout `bozkir tiled` writes (float32, bytes little-endian + zstd, `/` keys)".into(),
            ));
        }
        let coord = |name: &str| -> Result<f64> {
            let p = dir.join(format!("{name}/c/0"));
            let b = std::fs::read(&p).map_err(|e| io(&p, e))?;
            let v = |i: usize| b.get(i * 8..i * 8 + 8).map(|s| f64::from_le_bytes(s.try_into().expect("8 bytes")));
            match (v(0), v(1)) {
                (Some(a), Some(b)) if (b - a).is_finite() && b != a => Ok((b - a).abs()),
                _ => Err(IoError::InvalidArgument { path: p, detail: "fewer than two distinct coordinates".into() }),
            }
        };
        let cell = (coord("x")?, coord("y")?);
        let attributes = group["attributes"].as_object().cloned().unwrap_or_default();
        Ok(Self { dir: dir.to_path_buf(), width: shape[1], height: shape[0], chunk: chunk[0], cell, attributes })
    }

    /// Chunks per side (columns, rows).
    pub fn chunks(&self) -> (usize, usize) {
        (self.width.div_ceil(self.chunk), self.height.div_ceil(self.chunk))
    }

    /// The file of chunk `(cx, cy)` (column, row).
    pub fn chunk_path(&self, cx: usize, cy: usize) -> PathBuf {
        self.dir.join(format!("height/c/{cy}/{cx}"))
    }

    /// Chunk `(cx, cy)` as `chunk²` heights, row-major (NaN past the world's edge), or None when
    /// it has not been written (Zarr's fill value). A chunk that does not decompress to exactly
    /// its size is an error naming the file.
    pub fn read_chunk(&self, cx: usize, cy: usize) -> Result<Option<Vec<f32>>> {
        let (nx, ny) = self.chunks();
        let path = self.chunk_path(cx, cy);
        if cx >= nx || cy >= ny {
            return Err(IoError::InvalidArgument {
                path,
                detail: format!("chunk ({cx}, {cy}) outside the {nx} × {ny} chunks"),
            });
        }
        let packed = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(&path, e)),
        };
        let n = self.chunk * self.chunk * 4;
        let raw = zstd::bulk::decompress(&packed, n)
            .map_err(|e| IoError::InvalidArgument { path: path.clone(), detail: format!("not a zstd chunk: {e}") })?;
        if raw.len() != n {
            return Err(IoError::InvalidArgument {
                path,
                detail: format!("{} bytes after zstd, a chunk holds {n}", raw.len()),
            });
        }
        Ok(Some(raw.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes"))).collect()))
    }
}

//! Wavefront OBJ of a chunked mesh: one object (`o chunk_x<A>_y<B>`) per chunk.
//!
//! Lines: `v x y z`, `vt u v'`, `vn x y z` per vertex, then `f a/a/a b/b/b c/c/c` per triangle
//! with 1-based indices counted over the whole file (position, texture and normal indices are
//! the same). OBJ's texture origin is bottom-left, so `v' = 1 − v` of [`super::mesh`]. Numbers
//! are the shortest decimal form that reads back to the same `f32`.

use super::mesh::MeshChunk;
use crate::error::{IoError, Result};
use crate::fsio::atomic_write;
use std::io::Write;
use std::path::Path;

/// Write `chunks` as an OBJ (atomically).
pub fn write_obj(path: impl AsRef<Path>, chunks: &[MeshChunk]) -> Result<()> {
    let path = path.as_ref();
    for c in chunks {
        let n = c.positions.len();
        if c.normals.len() != n || c.uvs.len() != n || c.indices.iter().any(|&k| k as usize >= n) {
            return Err(IoError::invalid(path, format!("mesh chunk {} is inconsistent", c.name)));
        }
    }
    atomic_write(path, |w| {
        let io = |e| IoError::io(path, e);
        writeln!(w, "# bozkir {} terrain mesh, y up, metres", env!("CARGO_PKG_VERSION")).map_err(io)?;
        let mut base = 1u64;
        for c in chunks {
            writeln!(w, "o {}", c.name).map_err(io)?;
            for p in &c.positions {
                writeln!(w, "v {} {} {}", p[0], p[1], p[2]).map_err(io)?;
            }
            for t in &c.uvs {
                writeln!(w, "vt {} {}", t[0], 1.0 - t[1]).map_err(io)?;
            }
            for n in &c.normals {
                writeln!(w, "vn {} {} {}", n[0], n[1], n[2]).map_err(io)?;
            }
            for t in c.indices.chunks_exact(3) {
                let [a, b, d] = [base + u64::from(t[0]), base + u64::from(t[1]), base + u64::from(t[2])];
                writeln!(w, "f {a}/{a}/{a} {b}/{b}/{b} {d}/{d}/{d}").map_err(io)?;
            }
            base += c.positions.len() as u64;
        }
        Ok(())
    })
}

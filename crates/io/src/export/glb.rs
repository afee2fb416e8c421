//! glTF 2.0 binary (`.glb`) of a chunked mesh: one mesh and one node per chunk.
//!
//! Container (glTF 2.0 §4.4, little-endian): a 12-byte header (`glTF` magic `0x46546C67`,
//! version 2, total length), a JSON chunk (length, type `0x4E4F534A`, UTF-8 JSON padded with
//! spaces to 4 bytes) and a BIN chunk (length, type `0x004E4942`, data padded with zeros).
//!
//! JSON: one buffer (the BIN chunk); per chunk four buffer views — POSITION, NORMAL
//! (`VEC3`/`FLOAT`, target ARRAY_BUFFER 34962), TEXCOORD_0 (`VEC2`/`FLOAT`) and indices
//! (`SCALAR`/`UNSIGNED_INT` 5125, target ELEMENT_ARRAY_BUFFER 34963) — each with one accessor
//! (POSITION with `min`/`max`), a mesh of one triangle primitive (mode 4, no material), and a
//! node named after the chunk. The scene lists every node. Every view starts at a multiple of
//! 4 bytes.

use super::mesh::MeshChunk;
use crate::error::{IoError, Result};
use crate::fsio::{atomic_write, write_all};
use serde_json::{json, Value};
use std::path::Path;

const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
const FLOAT: u32 = 5126;
const UNSIGNED_INT: u32 = 5125;

fn push_f32s(bin: &mut Vec<u8>, values: impl Iterator<Item = f32>) {
    for v in values {
        bin.extend_from_slice(&v.to_le_bytes());
    }
}

/// The bytes of a GLB holding `chunks`; `path` names the file in errors (over 4 GiB).
pub fn encode_glb(path: &Path, chunks: &[MeshChunk], generator: &str) -> Result<Vec<u8>> {
    let mut bin = Vec::new();
    let (mut views, mut accessors, mut meshes, mut nodes) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut view = |bin: &mut Vec<u8>, start: usize, target: u32| -> usize {
        views.push(json!({ "buffer": 0, "byteOffset": start, "byteLength": bin.len() - start, "target": target }));
        views.len() - 1
    };
    for (i, c) in chunks.iter().enumerate() {
        let n = c.positions.len();
        if c.normals.len() != n || c.uvs.len() != n || c.indices.iter().any(|&k| k as usize >= n) {
            return Err(IoError::invalid(path, format!("mesh chunk {} is inconsistent", c.name)));
        }
        let start = bin.len();
        push_f32s(&mut bin, c.positions.iter().flatten().copied());
        let pv = view(&mut bin, start, ARRAY_BUFFER);
        let start = bin.len();
        push_f32s(&mut bin, c.normals.iter().flatten().copied());
        let nv = view(&mut bin, start, ARRAY_BUFFER);
        let start = bin.len();
        push_f32s(&mut bin, c.uvs.iter().flatten().copied());
        let tv = view(&mut bin, start, ARRAY_BUFFER);
        let start = bin.len();
        for k in &c.indices {
            bin.extend_from_slice(&k.to_le_bytes());
        }
        let iv = view(&mut bin, start, ELEMENT_ARRAY_BUFFER);
        let (lo, hi) = c.bounds();
        let a = accessors.len();
        accessors.push(json!({ "bufferView": pv, "componentType": FLOAT, "count": n, "type": "VEC3",
            "min": lo, "max": hi }));
        accessors.push(json!({ "bufferView": nv, "componentType": FLOAT, "count": n, "type": "VEC3" }));
        accessors.push(json!({ "bufferView": tv, "componentType": FLOAT, "count": n, "type": "VEC2" }));
        accessors.push(json!({ "bufferView": iv, "componentType": UNSIGNED_INT, "count": c.indices.len(),
            "type": "SCALAR" }));
        meshes.push(json!({ "name": c.name, "primitives": [{
            "attributes": { "POSITION": a, "NORMAL": a + 1, "TEXCOORD_0": a + 2 },
            "indices": a + 3,
            "mode": 4,
        }]}));
        nodes.push(json!({ "name": c.name, "mesh": i }));
    }
    let node_ids: Vec<usize> = (0..nodes.len()).collect();
    let mut doc = json!({
        "asset": { "version": "2.0", "generator": generator },
        "scene": 0,
        "scenes": [{ "name": "terrain", "nodes": node_ids }],
        "nodes": nodes,
        "meshes": meshes,
        "accessors": accessors,
        "bufferViews": views,
    });
    if !bin.is_empty() {
        doc["buffers"] = Value::Array(vec![json!({ "byteLength": bin.len() })]);
    }
    let mut text = serde_json::to_vec(&doc).map_err(|e| IoError::Json { path: path.to_path_buf(), error: e })?;
    while text.len() % 4 != 0 {
        text.push(b' ');
    }
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    let total = 12 + 8 + text.len() + if bin.is_empty() { 0 } else { 8 + bin.len() };
    let total32 = u32::try_from(total).map_err(|_| IoError::TooMany {
        path: path.to_path_buf(),
        what: "GLB bytes",
        count: total as u64,
        limit: u64::from(u32::MAX),
    })?;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&total32.to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    if !bin.is_empty() {
        out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin);
    }
    Ok(out)
}

/// Write `chunks` as a `.glb` (atomically).
pub fn write_glb(path: impl AsRef<Path>, chunks: &[MeshChunk]) -> Result<()> {
    let path = path.as_ref();
    let bytes = encode_glb(path, chunks, concat!("bozkir ", env!("CARGO_PKG_VERSION")))?;
    atomic_write(path, |w| write_all(path, w, &bytes))
}

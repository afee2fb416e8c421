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

use super::gltf::{encode_scene, Colours, Mesh, Node, Scene};
use super::mesh::MeshChunk;
use crate::error::{IoError, Result};
use crate::fsio::{atomic_write, write_all};
use std::path::Path;

/// The bytes of a GLB holding `chunks`; `path` names the file in errors (over 4 GiB). Encoded by
/// [`super::gltf::encode_scene`] with no colours and no instances.
pub fn encode_glb(path: &Path, chunks: &[MeshChunk], generator: &str) -> Result<Vec<u8>> {
    for c in chunks {
        let n = c.positions.len();
        if c.normals.len() != n || c.uvs.len() != n || c.indices.iter().any(|&k| k as usize >= n) {
            return Err(IoError::invalid(path, format!("mesh chunk {} is inconsistent", c.name)));
        }
    }
    let meshes: Vec<Mesh> = chunks
        .iter()
        .map(|c| Mesh {
            name: &c.name,
            positions: &c.positions,
            normals: &c.normals,
            uvs: &c.uvs,
            colours: Colours::None,
            indices: &c.indices,
        })
        .collect();
    let nodes: Vec<Node> =
        chunks.iter().enumerate().map(|(i, c)| Node { name: &c.name, mesh: i, instances: None }).collect();
    encode_scene(path, &Scene { name: "terrain", meshes: &meshes, nodes: &nodes }, generator)
}

/// Write `chunks` as a `.glb` (atomically).
pub fn write_glb(path: impl AsRef<Path>, chunks: &[MeshChunk]) -> Result<()> {
    let path = path.as_ref();
    let bytes = encode_glb(path, chunks, concat!("bozkir ", env!("CARGO_PKG_VERSION")))?;
    atomic_write(path, |w| write_all(path, w, &bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bozkir_core::Grid;

    /// FNV-1a 64 of bytes: a digest to pin encoder output.
    fn fnv(bytes: &[u8]) -> u64 {
        bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
    }

    #[test]
    fn terrain_glb_bytes_are_pinned() {
        // Digest of the encoder's output before the scene encoder (vertex colours, instancing)
        // took over: a terrain GLB must not change by a byte.
        let h = Grid::from_fn(7, 5, |x, y| (x as f64 * 0.7 - y as f64 * 1.3).sin() * 10.0).with_cell_size(2.0, 3.0);
        let chunks = super::super::mesh::height_mesh(&h, 4);
        let bytes = encode_glb(Path::new("t.glb"), &chunks, "bozkir test").unwrap();
        assert_eq!((bytes.len(), fnv(&bytes)), (3516, 17_485_563_214_596_320_997));
        let empty = encode_glb(Path::new("e.glb"), &[], "bozkir test").unwrap();
        assert_eq!((empty.len(), fnv(&empty)), (180, 12_492_447_094_867_332_984));
    }
}

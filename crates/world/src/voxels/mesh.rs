//! Meshes of generated chunks: each chunk with a one-block apron taken from its neighbours (air
//! where a neighbour is not loaded), so faces on chunk borders are decided by the real
//! neighbour and the chunk meshes join without gaps or doubled faces.
//!
//! The block kinds come from the registry: air is not drawn; every other block is drawn, and
//! hides its neighbours' faces only when it is not transparent (water, leaves and windows are
//! drawn but see-through).

use std::collections::BTreeMap;

use bozkir_mesh::{culled_mesh, greedy_mesh, BlockParams, KindFns, Mesh, Voxels};
use bozkir_voxel::block::{BlockId, BlockRegistry};
use bozkir_voxel::coords::ChunkPos;

use super::work::WorkChunk;
use crate::error::{Result, WorldError};

/// Which block mesher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mesher {
    /// One quad per visible face.
    Culled,
    /// Coplanar faces of one block kind and one occlusion merged into rectangles.
    Greedy,
}

/// The `(s + 2)³` ids of `coord`'s chunk and the one-block shell around it, layout
/// `x + n·(z + n·y)` with `n = s + 2`.
pub fn apron(chunks: &BTreeMap<ChunkPos, WorkChunk>, coord: ChunkPos) -> Option<Vec<u16>> {
    let c = chunks.get(&coord)?;
    let s = c.edge();
    let n = s + 2;
    let mut out = vec![0u16; n * n * n];
    let shift = c.size.shift();
    for (dx, dy, dz) in neighbours() {
        let Some(nb) = chunks.get(&ChunkPos::new(coord.x + dx, coord.y + dy, coord.z + dz)) else { continue };
        // The apron range on each axis: −1 → [0, 1) taking local s−1; 0 → [1, s+1); 1 → [s+1, s+2) taking local 0.
        let span = |d: i32| -> (usize, usize, usize) {
            match d {
                -1 => (0, 1, s - 1),
                0 => (1, s + 1, 0),
                _ => (s + 1, s + 2, 0),
            }
        };
        let ((x0, x1, lx0), (y0, y1, ly0), (z0, z1, lz0)) = (span(dx), span(dy), span(dz));
        for y in y0..y1 {
            let ly = if dy == 0 { y - 1 } else { ly0 };
            for z in z0..z1 {
                let lz = if dz == 0 { z - 1 } else { lz0 };
                let row = (ly << (2 * shift)) | (lz << shift);
                let dst = n * (z + n * y);
                if dx == 0 {
                    for (o, b) in out[dst + 1..dst + 1 + s].iter_mut().zip(&nb.blocks[row..row + s]) {
                        *o = b.0;
                    }
                } else {
                    out[dst + x0] = nb.blocks[row + lx0].0;
                    debug_assert_eq!(x1, x0 + 1);
                }
            }
        }
    }
    Some(out)
}

/// The 27 offsets of a chunk's 3 × 3 × 3 block (itself included), `dx` slowest, `dz` fastest.
pub(super) fn neighbours() -> impl Iterator<Item = (i32, i32, i32)> {
    (-1..=1).flat_map(|dx| (-1..=1).flat_map(move |dy| (-1..=1).map(move |dz| (dx, dy, dz))))
}

/// The mesh of `coord`'s chunk (positions in world blocks), its borders decided by the loaded
/// neighbours.
pub fn mesh_chunk(
    chunks: &BTreeMap<ChunkPos, WorkChunk>,
    coord: ChunkPos,
    registry: &BlockRegistry,
    mesher: Mesher,
) -> Result<Mesh> {
    let ids = apron(chunks, coord).ok_or_else(|| WorldError::Invalid(format!("chunk {coord} is not loaded")))?;
    let s = chunks[&coord].edge();
    let n = s + 2;
    let vox = Voxels::new([n, n, n], &ids).map_err(|e| WorldError::Invalid(format!("chunk {coord}: {e}")))?;
    let table = registry.transparent_table();
    let kinds = KindFns::new(
        |id: u16| id != BlockId::AIR.0,
        |id: u16| id != BlockId::AIR.0 && !table.get(usize::from(id)).copied().unwrap_or(true),
    );
    let e = f64::from(s as u32);
    // Interior voxel 1 of the apron volume is the chunk's local 0.
    let origin = [f64::from(coord.x) * e, f64::from(coord.y) * e, f64::from(coord.z) * e];
    let params = BlockParams { origin, ao: true };
    let m = match mesher {
        Mesher::Culled => culled_mesh(&vox, &kinds, &params),
        Mesher::Greedy => greedy_mesh(&vox, &kinds, &params),
    };
    m.map_err(|e| WorldError::Invalid(format!("chunk {coord}: {e}")))
}

//! World queries over a [`ChunkMap`] (pyworldgen 0.1.8's `world/queries.py`): the block at a
//! position, setting a block, the surface height of a column, and the first solid block along a
//! ray.
//!
//! Conventions: y up; a missing chunk reads as air ([`BlockId::AIR`]); "solid" is the
//! registry's solid flag by default (pyworldgen's `SOLID_BLOCKS`), or any predicate given to the
//! `_with` variants. The raycast walks cells with [`VoxelWalk`] (Amanatides & Woo) and reports
//! the first cell that stops it, the cell before it, the entry face normal and the distance.
//!
//! Costs: a block read is one `BTreeMap` lookup and a palette read; the raycast caches the
//! last chunk; the column height visits only loaded chunks of the column, top down, skipping
//! uniform non-solid layers whole.

use crate::block::{BlockId, BlockRegistry};
use crate::chunk::Chunk;
use crate::coords::{BlockPos, ChunkPos};
use crate::dda::VoxelWalk;
use crate::error::Result;
use crate::map::ChunkMap;

/// The block at `pos` (air where no chunk is loaded).
#[inline]
pub fn block_at(map: &ChunkMap, pos: BlockPos) -> BlockId {
    let (c, l) = pos.split(map.size());
    map.get(c).map_or(BlockId::AIR, |ch| ch.get(l))
}

/// Sets the block at `pos`, creating its chunk if absent, and marks the chunk's blocks, mesh,
/// lighting, collider and saved flags dirty (pyworldgen marks blocks, mesh and saved; a block
/// change also invalidates light and collider).
pub fn set_block(map: &mut ChunkMap, pos: BlockPos, block: BlockId) {
    let (c, l) = pos.split(map.size());
    // The chunk of an i32 block position is always in range.
    let chunk = map.get_or_create(c).expect("the chunk of an i32 block is in range");
    chunk.set(l, block);
    let d = &mut chunk.dirty;
    d.blocks = true;
    d.mesh = true;
    d.lighting = true;
    d.collider = true;
    d.saved = true;
}

/// The y of the highest solid block (registry's flag) of column `(x, z)` among loaded chunks,
/// or `None` if none is loaded or solid.
pub fn surface_height(map: &ChunkMap, registry: &BlockRegistry, x: i32, z: i32) -> Option<i32> {
    let solid = registry.solid_table();
    surface_height_with(map, x, z, |b| solid.get(b.0 as usize).copied().unwrap_or(false))
}

/// [`surface_height`] with any solidity predicate.
pub fn surface_height_with(map: &ChunkMap, x: i32, z: i32, solid: impl Fn(BlockId) -> bool) -> Option<i32> {
    let size = map.size();
    let probe = BlockPos::new(x, 0, z);
    let (c, l) = probe.split(size);
    let e = size.edge() as usize;
    let column = l.column(size);
    let area = size.area();
    let chunks = map
        .in_box(ChunkPos::new(c.x, i32::MIN, c.z), ChunkPos::new(c.x, i32::MAX, c.z))
        .map(|(_, ch)| ch)
        .collect::<Vec<&Chunk>>();
    for ch in chunks.into_iter().rev() {
        for y in (0..e).rev() {
            let hit = match ch.blocks().layer_uniform(y) {
                Some(b) => solid(b),
                None => solid(ch.get_index(column + y * area)),
            };
            if hit {
                return Some(ch.coord.y * e as i32 + y as i32);
            }
        }
    }
    None
}

/// What a ray hit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RayHit {
    /// The block that stopped the ray.
    pub block: BlockPos,
    /// Its id.
    pub id: BlockId,
    /// The cell the ray was in just before (the block itself if the ray starts inside it).
    pub previous: BlockPos,
    /// Outward normal of the face the ray entered through (`[0, 0, 0]` if it starts inside).
    pub normal: [i32; 3],
    /// Distance from the origin to the entry point, in blocks.
    pub distance: f64,
}

/// The first block solid in `registry` along the ray from `origin` in `direction` within
/// `max_distance` blocks; errors as [`VoxelWalk::new`].
pub fn raycast(
    map: &ChunkMap,
    registry: &BlockRegistry,
    origin: [f64; 3],
    direction: [f64; 3],
    max_distance: f64,
) -> Result<Option<RayHit>> {
    let solid = registry.solid_table();
    raycast_with(map, origin, direction, max_distance, |b| solid.get(b.0 as usize).copied().unwrap_or(false))
}

/// [`raycast`] stopping at any block for which `stops` is true.
pub fn raycast_with(
    map: &ChunkMap,
    origin: [f64; 3],
    direction: [f64; 3],
    max_distance: f64,
    stops: impl Fn(BlockId) -> bool,
) -> Result<Option<RayHit>> {
    let size = map.size();
    let mut cached: Option<(ChunkPos, Option<&Chunk>)> = None;
    let mut previous = None;
    for s in VoxelWalk::new(origin, direction, max_distance)? {
        let (c, l) = s.cell.split(size);
        let chunk = match cached {
            Some((p, ch)) if p == c => ch,
            _ => {
                let ch = map.get(c);
                cached = Some((c, ch));
                ch
            }
        };
        let id = chunk.map_or(BlockId::AIR, |ch| ch.get(l));
        if stops(id) {
            return Ok(Some(RayHit {
                block: s.cell,
                id,
                previous: previous.unwrap_or(s.cell),
                normal: s.normal,
                distance: s.distance,
            }));
        }
        previous = Some(s.cell);
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::ids;
    use crate::coords::ChunkSize;
    use proptest::prelude::*;

    #[test]
    fn get_set_height() {
        let r = BlockRegistry::pyworldgen();
        let mut m = ChunkMap::new(ChunkSize::S8);
        assert_eq!(block_at(&m, BlockPos::new(-5, -5, -5)), BlockId::AIR);
        assert_eq!(surface_height(&m, &r, 3, 3), None);
        set_block(&mut m, BlockPos::new(-5, -5, -5), ids::STONE);
        assert_eq!(block_at(&m, BlockPos::new(-5, -5, -5)), ids::STONE);
        assert!(m.get(ChunkPos::new(-1, -1, -1)).unwrap().dirty.mesh);
        assert_eq!(surface_height(&m, &r, -5, -5), Some(-5));
        set_block(&mut m, BlockPos::new(-5, 20, -5), ids::WATER);
        assert_eq!(surface_height(&m, &r, -5, -5), Some(-5));
        set_block(&mut m, BlockPos::new(-5, 19, -5), ids::LEAVES);
        assert_eq!(surface_height(&m, &r, -5, -5), Some(19));
        // a uniform solid chunk above
        m.get_or_create(ChunkPos::new(-1, 5, -1)).unwrap().fill(ids::STONE);
        assert_eq!(surface_height(&m, &r, -8, -1), Some(47));
        assert_eq!(surface_height(&m, &r, 0, -1), None);
    }

    #[test]
    fn raycast_hits_face() {
        let r = BlockRegistry::pyworldgen();
        let mut m = ChunkMap::new(ChunkSize::S16);
        for x in -20..20 {
            for z in -20..20 {
                set_block(&mut m, BlockPos::new(x, -1, z), ids::GRASS);
            }
        }
        set_block(&mut m, BlockPos::new(3, 0, 0), ids::WINDOW);
        let hit = raycast(&m, &r, [0.5, 4.5, 0.5], [0.0, -1.0, 0.0], 10.0).unwrap().unwrap();
        assert_eq!(hit.block, BlockPos::new(0, -1, 0));
        assert_eq!(hit.previous, BlockPos::new(0, 0, 0));
        assert_eq!(hit.normal, [0, 1, 0]);
        assert!((hit.distance - 4.5).abs() < 1e-12);
        assert_eq!(hit.id, ids::GRASS);
        assert!(raycast(&m, &r, [0.5, 4.5, 0.5], [0.0, -1.0, 0.0], 4.4).unwrap().is_none());
        // windows are not solid: the ray passes through and hits the ground beyond
        let hit = raycast(&m, &r, [0.5, 0.5, 0.5], [1.0, -0.1, 0.0], 40.0).unwrap().unwrap();
        assert_eq!(hit.block.y, -1);
        assert_eq!(hit.normal, [0, 1, 0]);
        let hit = raycast_with(&m, [0.5, 0.5, 0.5], [1.0, 0.0, 0.0], 40.0, |b| b == ids::WINDOW).unwrap().unwrap();
        assert_eq!((hit.block, hit.normal, hit.distance), (BlockPos::new(3, 0, 0), [-1, 0, 0], 2.5));
    }

    /// Hits of pyworldgen 0.1.8's `voxel_raycast` (30 blocks, `SOLID_BLOCKS`) in a world where
    /// block `(x, y, z)` of `[-8, 8)³` is `|x+y+z| mod 11 + 1` when `(3x + 5y + 7z) mod 11 = 0`,
    /// air elsewhere: block, previous block, normal, distance.
    #[test]
    fn raycast_equals_pyworldgen() {
        let r = BlockRegistry::pyworldgen();
        let mut m = ChunkMap::new(ChunkSize::S8);
        for x in -8..8 {
            for y in -8..8 {
                for z in -8..8 {
                    if (x * 3 + y * 5 + z * 7) % 11 == 0 {
                        set_block(&mut m, BlockPos::new(x, y, z), BlockId(((x + y + z).abs() % 11 + 1) as u16));
                    }
                }
            }
        }
        type Hit = Option<([i32; 3], [i32; 3], [i32; 3], f64)>;
        let cases: [([f64; 3], [f64; 3], Hit); 10] = [
            ([0.5, 0.5, 0.5], [1.0, 0.3, 0.2], Some(([0, 0, 0], [0, 0, 0], [0, 0, 0], 0.0))),
            ([-3.2, 4.1, 2.7], [-0.4, -1.0, 0.1], Some(([-4, 4, 2], [-4, 4, 2], [0, 0, 0], 0.0))),
            ([7.9, -7.9, 0.01], [-1.0, 1.0, 0.5], None),
            ([0.0, 0.0, 0.0], [1.0, 1.0, 1.0], Some(([0, 0, 0], [0, 0, 0], [0, 0, 0], 0.0))),
            ([2.5, 2.5, 2.5], [0.0, 0.0, -1.0], Some(([2, 2, -7], [2, 2, -6], [0, 0, 1], 8.5))),
            ([-5.5, 3.3, -1.25], [0.7, -0.2, 0.9], Some(([-5, 3, 0], [-5, 3, -1], [0, 0, -1], 1.607755125387531))),
            ([1.5, 7.5, 1.5], [0.1, -1.0, 0.05], Some(([2, -4, 2], [2, -3, 2], [0, 1, 0], 10.565421193686504))),
            ([-7.5, -7.5, -7.5], [1.0, 1.0, 1.0], Some(([-3, -2, -2], [-3, -3, -2], [0, -1, 0], 9.526279441628823))),
            ([3.25, -2.5, 6.75], [-1.0, 0.0, -1.0], Some(([2, -3, 6], [3, -3, 6], [1, 0, 0], 0.3535533905932738))),
            ([0.1, 0.2, 0.3], [-0.3, 0.9, -0.4], Some(([0, 0, 0], [0, 0, 0], [0, 0, 0], 0.0))),
        ];
        for (o, d, want) in cases {
            let got = raycast(&m, &r, o, d, 30.0).unwrap();
            match (got, want) {
                (None, None) => {}
                (Some(h), Some((b, p, n, t))) => {
                    assert_eq!([h.block.x, h.block.y, h.block.z], b, "{o:?} {d:?}");
                    assert_eq!([h.previous.x, h.previous.y, h.previous.z], p, "{o:?} {d:?}");
                    assert_eq!(h.normal, n, "{o:?} {d:?}");
                    assert!((h.distance - t).abs() < 1e-12, "{o:?} {d:?}: {} vs {t}", h.distance);
                }
                (g, w) => panic!("{o:?} {d:?}: got {g:?}, pyworldgen {w:?}"),
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Random sparse worlds: the raycast's hit is the first solid cell of the walk (checked
        /// cell by cell through block_at), and the surface height is the brute-force top.
        #[test]
        fn raycast_and_height_brute(blocks in proptest::collection::vec((-12i32..12, -12i32..12, -12i32..12, 0u16..12), 0..120),
                                    o in proptest::array::uniform3(-10.0f64..10.0), d in proptest::array::uniform3(-1.0f64..1.0)) {
            prop_assume!(d.iter().map(|v| v * v).sum::<f64>() > 1e-4);
            let r = BlockRegistry::pyworldgen();
            let mut m = ChunkMap::new(ChunkSize::S8);
            for &(x, y, z, b) in &blocks {
                set_block(&mut m, BlockPos::new(x, y, z), BlockId(b));
            }
            let hit = raycast(&m, &r, o, d, 30.0).unwrap();
            let first = VoxelWalk::new(o, d, 30.0).unwrap().find(|s| r.is_solid(block_at(&m, s.cell)));
            prop_assert_eq!(hit.map(|h| (h.block, h.distance)), first.map(|s| (s.cell, s.distance)));
            for x in -12..12 {
                for z in [-12, -3, 0, 7] {
                    let brute = (-16..16).rev().find(|&y| r.is_solid(block_at(&m, BlockPos::new(x, y, z))));
                    prop_assert_eq!(surface_height(&m, &r, x, z), brute);
                }
            }
        }
    }
}

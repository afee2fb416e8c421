//! Sky light: pyworldgen's per-chunk sunlight rule, and a flood fill over a box of chunks.
//!
//! Levels are 0–15 ([`MAX_LIGHT`]); "transparent" is the registry's flag (air, water, window,
//! leaves in pyworldgen's table).
//!
//! * [`simple_sunlight`] — pyworldgen 0.1.8's `SimpleSunlightPass` on one chunk, exactly: in each
//!   column, from the top local layer down, the running level starts at 15; each voxel stores
//!   the running level; after a non-transparent voxel the level drops by 2 (floor 0). Nothing
//!   outside the chunk is read. Sets the state to at least `LightingReady` and the lighting
//!   dirty flag (as pyworldgen does).
//! * [`sky_light_grid`] / [`sky_light_box`] — a proper sky-light flood fill (the scheme of
//!   Minecraft-like engines): light 15 enters through the top face of the box and falls straight
//!   down undiminished through transparent voxels (a voxel with only transparent voxels above it
//!   in the box is at 15); from there it spreads to the 6 face neighbours losing 1 per step
//!   (sideways, upward, and downward once below 15); opaque voxels hold 0 and stop it. The box's
//!   sides and bottom neither give nor take light. Algorithm: the sky voxels seed a FIFO queue,
//!   and a breadth-first search assigns each transparent voxel `15 - d` where `d` is its
//!   distance (in face steps through transparent voxels) to the nearest sky voxel — O(voxels),
//!   each voxel queued at most once, deterministic (fixed scan and neighbour order; the result
//!   does not depend on them anyway). Under an overhang the level may rise going down (a side
//!   opening lower down is nearer); in open air (below sky only) it never does.
//!
//! Grid layout of [`sky_light_grid`]: index `x + nx*(z + nz*y)`, y up (the chunk layout
//! extended to a box). Cap: [`MAX_BOX_VOXELS`] voxels per fill.

use crate::block::{BlockId, BlockRegistry};
use crate::chunk::{Chunk, ChunkState, MAX_LIGHT};
use crate::coords::ChunkPos;
use crate::error::{Result, VoxelError};
use crate::map::ChunkMap;

/// Largest box [`sky_light_box`] and [`sky_light_grid`] accept, in voxels (2^24: e.g. 8×8×8
/// chunks of 32³, or 4×4×4 of 64³). Memory is about 6 bytes per voxel.
pub const MAX_BOX_VOXELS: usize = 1 << 24;

/// pyworldgen's `SimpleSunlightPass` on `chunk` (see the module doc).
pub fn simple_sunlight(chunk: &mut Chunk, registry: &BlockRegistry) {
    let size = chunk.size();
    let blocks = chunk.blocks().to_dense_vec();
    let mut light = vec![0u8; size.volume()];
    simple_sunlight_dense(&blocks, &mut light, size.edge() as usize, registry);
    chunk.set_light_dense(&light).expect("light sized from the chunk");
    chunk.state = chunk.state.max(ChunkState::LightingReady);
    chunk.dirty.lighting = true;
}

/// pyworldgen's `SimpleSunlightPass` on dense arrays: `blocks` and `light` of a chunk of edge
/// `edge` in the chunk layout (`x + s*(z + s*y)`). Panics if the lengths are not `edge³`.
pub fn simple_sunlight_dense(blocks: &[BlockId], light: &mut [u8], edge: usize, registry: &BlockRegistry) {
    let area = edge * edge;
    assert!(blocks.len() == area * edge && light.len() == area * edge, "simple_sunlight_dense: buffers of {}³", edge);
    let transparent = registry.transparent_table();
    let mut running = vec![MAX_LIGHT; area];
    // Ids past the table are unknown: transparent, like air.
    let opaque = |b: BlockId| !transparent.get(usize::from(b.0)).copied().unwrap_or(true);
    for y in (0..edge).rev() {
        let layer = y * area;
        light[layer..layer + area].copy_from_slice(&running);
        let row = &blocks[layer..layer + area];
        let first = row[0];
        if row.iter().all(|&b| b == first) {
            // A layer of one kind (sky, rock): one decision for all its columns.
            if opaque(first) {
                running.iter_mut().for_each(|l| *l = l.saturating_sub(2));
            }
            continue;
        }
        for (l, &b) in running.iter_mut().zip(row) {
            if opaque(b) {
                *l = l.saturating_sub(2);
            }
        }
    }
}

/// Sky light of a box of `dims = [nx, ny, nz]` voxels whose transparency is `transparent`
/// (index `x + nx*(z + nz*y)`), written to `out` (same layout). Errors: a dimension of 0, more
/// than [`MAX_BOX_VOXELS`] voxels, buffer lengths that do not match.
pub fn sky_light_grid(dims: [usize; 3], transparent: &[bool], out: &mut [u8]) -> Result<()> {
    let [nx, ny, nz] = dims;
    let n = box_volume(dims)?;
    if transparent.len() != n {
        return Err(VoxelError::LengthMismatch { what: "transparency grid", expected: n, got: transparent.len() });
    }
    if out.len() != n {
        return Err(VoxelError::LengthMismatch { what: "light grid", expected: n, got: out.len() });
    }
    out.fill(0);
    let layer = nx * nz;
    let mut queue: Vec<u32> = Vec::with_capacity(n.min(1 << 20));
    // Sky columns: straight down from the top while transparent.
    for c in 0..layer {
        for y in (0..ny).rev() {
            let i = c + y * layer;
            if !transparent[i] {
                break;
            }
            out[i] = MAX_LIGHT;
            queue.push(i as u32);
        }
    }
    let mut head = 0;
    while head < queue.len() {
        let i = queue[head] as usize;
        head += 1;
        let l = out[i];
        if l <= 1 {
            continue;
        }
        let next = l - 1;
        let (x, rest) = (i % nx, i / nx);
        let (z, y) = (rest % nz, rest / nz);
        let mut visit = |j: usize| {
            if transparent[j] && out[j] < next {
                out[j] = next;
                queue.push(j as u32);
            }
        };
        if x > 0 {
            visit(i - 1);
        }
        if x + 1 < nx {
            visit(i + 1);
        }
        if z > 0 {
            visit(i - nx);
        }
        if z + 1 < nz {
            visit(i + nx);
        }
        if y > 0 {
            visit(i - layer);
        }
        if y + 1 < ny {
            visit(i + layer);
        }
    }
    Ok(())
}

fn box_volume(dims: [usize; 3]) -> Result<usize> {
    let n = dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    match n {
        Some(n) if n > 0 && n <= MAX_BOX_VOXELS => Ok(n),
        _ => Err(VoxelError::Param {
            name: "light box",
            value: format!("{dims:?}"),
            allowed: "every dimension >= 1 and at most 2^24 voxels in all",
        }),
    }
}

/// Sky light over the chunks in `[lo, hi]` (chunk coordinates, inclusive): gathers their
/// transparency (unloaded chunks read as air: light passes, nothing is written to them), runs
/// [`sky_light_grid`], and writes the light of every loaded chunk in the box, setting its state
/// to at least `LightingReady` and its lighting dirty flag. Errors: `lo > hi` on an axis, a box
/// over [`MAX_BOX_VOXELS`] voxels, chunk positions out of range.
pub fn sky_light_box(map: &mut ChunkMap, registry: &BlockRegistry, lo: ChunkPos, hi: ChunkPos) -> Result<()> {
    let size = map.size();
    lo.check_range(size)?;
    hi.check_range(size)?;
    if lo.x > hi.x || lo.y > hi.y || lo.z > hi.z {
        return Err(VoxelError::Param {
            name: "light box",
            value: format!("{lo} .. {hi}"),
            allowed: "lo <= hi on every axis",
        });
    }
    let e = size.edge() as usize;
    let span = |a: i32, b: i32| (b as i64 - a as i64 + 1) as u64;
    let cdims = [span(lo.x, hi.x), span(lo.y, hi.y), span(lo.z, hi.z)];
    if cdims.iter().any(|&d| d > (MAX_BOX_VOXELS / e) as u64) {
        return Err(VoxelError::Param {
            name: "light box",
            value: format!("{lo} .. {hi}"),
            allowed: "at most 2^24 voxels in all",
        });
    }
    let [cx, cy, cz] = cdims.map(|d| d as usize);
    let dims = [cx * e, cy * e, cz * e];
    let n = box_volume(dims)?;
    let table = registry.transparent_table();
    let mut transparent = vec![true; n];
    let area = size.area();
    let mut layer = vec![BlockId::AIR; area];
    let (nx, nz) = (dims[0], dims[2]);
    for (pos, chunk) in map.in_box(lo, hi) {
        let (ox, oy, oz) =
            (((pos.x - lo.x) as usize) * e, ((pos.y - lo.y) as usize) * e, ((pos.z - lo.z) as usize) * e);
        for y in 0..e {
            chunk.blocks().read_layer(y, &mut layer).expect("layer sized from the chunk");
            for z in 0..e {
                let row = ox + nx * (oz + z + nz * (oy + y));
                for x in 0..e {
                    let b = layer[x + e * z];
                    transparent[row + x] = table.get(b.0 as usize).copied().unwrap_or(true);
                }
            }
        }
    }
    let mut light = vec![0u8; n];
    sky_light_grid(dims, &transparent, &mut light)?;
    drop(transparent);
    let mut dense = vec![0u8; size.volume()];
    let positions: Vec<ChunkPos> = map.in_box(lo, hi).map(|(p, _)| *p).collect();
    for pos in positions {
        let (ox, oy, oz) =
            (((pos.x - lo.x) as usize) * e, ((pos.y - lo.y) as usize) * e, ((pos.z - lo.z) as usize) * e);
        for y in 0..e {
            for z in 0..e {
                let row = ox + nx * (oz + z + nz * (oy + y));
                dense[e * (z + e * y)..e * (z + e * y) + e].copy_from_slice(&light[row..row + e]);
            }
        }
        let chunk = map.get_mut(pos).expect("position taken from the map");
        chunk.set_light_dense(&dense)?;
        chunk.state = chunk.state.max(ChunkState::LightingReady);
        chunk.dirty.lighting = true;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::ids;
    use crate::coords::{BlockPos, ChunkSize, LocalPos};
    use crate::query::set_block;
    use proptest::prelude::*;

    #[test]
    fn simple_sunlight_column() {
        let r = BlockRegistry::pyworldgen();
        let s = ChunkSize::S8;
        let mut c = Chunk::new(ChunkPos::new(0, 0, 0), s).unwrap();
        // column (2, *, 5) from the top: y7 air, y6 stone, y5 leaves, y4 dirt, y3 water, y2..0 stone
        for (y, b) in [
            (6, ids::STONE),
            (5, ids::LEAVES),
            (4, ids::DIRT),
            (3, ids::WATER),
            (2, ids::STONE),
            (1, ids::STONE),
            (0, ids::STONE),
        ] {
            c.set(LocalPos::new(2, y, 5, s).unwrap(), b);
        }
        simple_sunlight(&mut c, &r);
        let got: Vec<u8> = (0..8).rev().map(|y| c.light_at(LocalPos::new(2, y, 5, s).unwrap().index(s))).collect();
        // stored before the drop: 15, 15 (stone), 13 (leaves: transparent), 13 (dirt), 11, 11, 9, 7
        assert_eq!(got, vec![15, 15, 13, 13, 11, 11, 9, 7]);
        assert_eq!(c.light_at(0), 15);
        assert!(c.state >= ChunkState::LightingReady && c.dirty.lighting);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]
        /// simple_sunlight: level = max(0, 15 - 2 * opaque voxels strictly above, in the chunk).
        #[test]
        fn simple_sunlight_formula(blocks in proptest::collection::vec((0u32..8, 0u32..8, 0u32..8, 0u16..12), 0..200)) {
            let r = BlockRegistry::pyworldgen();
            let s = ChunkSize::S8;
            let mut c = Chunk::new(ChunkPos::new(0, 0, 0), s).unwrap();
            for &(x, y, z, b) in &blocks { c.set(LocalPos::new(x, y, z, s).unwrap(), BlockId(b)); }
            simple_sunlight(&mut c, &r);
            for x in 0..8 { for z in 0..8 { for y in 0..8 {
                let above = (y + 1..8).filter(|&u| !r.is_transparent(c.get(LocalPos::new(x, u, z, s).unwrap()))).count() as i32;
                let want = (15 - 2 * above).max(0) as u8;
                prop_assert_eq!(c.light_at(LocalPos::new(x, y, z, s).unwrap().index(s)), want);
            }}}
        }

        /// The BFS equals a brute-force fixed-point iteration of
        /// `L = opaque ? 0 : max(sky ? 15 : 0, max over neighbours of L - 1)` from all zeros.
        #[test]
        fn flood_equals_fixed_point(nx in 1usize..7, ny in 1usize..9, nz in 1usize..7, density in 0.0f64..0.6, seed in any::<u64>()) {
            let n = nx * ny * nz;
            let mut st = seed | 1;
            let transparent: Vec<bool> = (0..n).map(|_| {
                st ^= st << 13; st ^= st >> 7; st ^= st << 17;
                (st % 1000) as f64 >= density * 1000.0
            }).collect();
            let mut out = vec![0u8; n];
            sky_light_grid([nx, ny, nz], &transparent, &mut out).unwrap();
            let idx = |x: usize, y: usize, z: usize| x + nx * (z + nz * y);
            let mut l = vec![0u8; n];
            loop {
                let mut changed = false;
                for y in 0..ny { for z in 0..nz { for x in 0..nx {
                    let i = idx(x, y, z);
                    if !transparent[i] { continue; }
                    let sky = (y..ny).all(|u| transparent[idx(x, u, z)]);
                    let mut v = if sky { 15 } else { 0 };
                    let mut nb = |j: usize| v = v.max(l[j].saturating_sub(1));
                    if x > 0 { nb(idx(x - 1, y, z)); }
                    if x + 1 < nx { nb(idx(x + 1, y, z)); }
                    if z > 0 { nb(idx(x, y, z - 1)); }
                    if z + 1 < nz { nb(idx(x, y, z + 1)); }
                    if y > 0 { nb(idx(x, y - 1, z)); }
                    if y + 1 < ny { nb(idx(x, y + 1, z)); }
                    if v != l[i] { l[i] = v; changed = true; }
                }}}
                if !changed { break; }
            }
            // open air: down a column, from the top to the first opaque voxel, light never rises
            // (it stays 15); no transparent voxel is brighter than 15 or an opaque one above 0
            for z in 0..nz { for x in 0..nx {
                let mut prev = 15u8;
                for y in (0..ny).rev() {
                    let i = idx(x, y, z);
                    if !transparent[i] { break; }
                    prop_assert!(out[i] <= prev);
                    prev = out[i];
                }
            }}
            let sane = out.iter().zip(&transparent).all(|(&v, &t)| if t { v <= 15 } else { v == 0 });
            prop_assert!(sane);
            prop_assert_eq!(out, l);
        }
    }

    #[test]
    fn open_air_and_overhang() {
        let r = BlockRegistry::pyworldgen();
        let s = ChunkSize::S8;
        let mut m = ChunkMap::new(s);
        for (x, y, z) in [(0, 0, 0), (0, 0, 1), (1, 0, 0), (1, 0, 1)] {
            m.get_or_create(ChunkPos::new(x, y, z)).unwrap();
        }
        // ground at y = -1 over 2x1x2 chunks, a 5x5 roof at y = 6 centred on (4, 4)
        for x in 0..16 {
            for z in 0..16 {
                set_block(&mut m, BlockPos::new(x, -1, z), ids::STONE);
            }
        }
        for x in 2..7 {
            for z in 2..7 {
                set_block(&mut m, BlockPos::new(x, 6, z), ids::WALL);
            }
        }
        // a leaves block (transparent) does not shade
        set_block(&mut m, BlockPos::new(12, 3, 12), ids::LEAVES);
        sky_light_box(&mut m, &r, ChunkPos::new(0, -1, 0), ChunkPos::new(1, 0, 1)).unwrap();
        let light = |x: i32, y: i32, z: i32| {
            let (c, l) = BlockPos::new(x, y, z).split(s);
            m.get(c).unwrap().light_at(l.index(s))
        };
        // open air columns: 15 all the way down to the ground, which holds 0
        for (x, z) in [(0, 0), (12, 12), (15, 3)] {
            for y in 0..8 {
                assert_eq!(light(x, y, z), 15, "({x}, {y}, {z})");
            }
            assert_eq!(light(x, -1, z), 0);
        }
        // under the roof: 15 minus the distance to the roof's edge (to the nearest sky column)
        for x in 2..7 {
            for z in 2..7 {
                let d = 1 + (x - 2).min(6 - x).min(z - 2).min(6 - z);
                for y in 0..6 {
                    assert_eq!(light(x, y, z) as i32, 15 - d, "({x}, {y}, {z})");
                }
            }
        }
        assert_eq!(light(4, 6, 4), 0);
        assert!(m.get(ChunkPos::new(0, 0, 0)).unwrap().state >= ChunkState::LightingReady);
        // the lit chunks store their light by sections: the open chunk (1, 0, 0) is uniform 15
        assert_eq!(m.get(ChunkPos::new(1, 0, 0)).unwrap().light().uniform_level(), Some(15));
        // errors
        assert!(sky_light_box(&mut m, &r, ChunkPos::new(1, 0, 0), ChunkPos::new(0, 0, 0)).is_err());
        assert!(sky_light_box(&mut m, &r, ChunkPos::new(0, 0, 0), ChunkPos::new(1000, 1000, 0)).is_err());
        assert!(sky_light_grid([0, 1, 1], &[], &mut []).is_err());
    }
}

//! The tree feature pass: pyworldgen's `SimpleTreeFeaturePass`, trees written through deferred
//! edits so they cross chunk borders.
//!
//! `attempts` times per chunk: a column `(lx, lz)` drawn by two `randrange(s)` of the pass's
//! stream; over its surface height `h` (the heightmap of `terrain`), a trunk of four wood blocks
//! at `h + 1 … h + 4` (priority 10) and leaves at offsets `(ox, oy, oz)`, `ox, oz ∈ −2..=2`,
//! `oy ∈ 3..=5`, where `|ox| + |oz| + max(0, oy − 4) ≤ 4` (priority 11, so leaves win over wood
//! where they meet), emitted in pyworldgen's order (trunk, then ox, oy, oz nested).
//!
//! One difference, on purpose: pyworldgen lets *every* chunk of a column plant its attempts on
//! the column's surface, so a world two chunks tall has twice the trees, and the trees of a
//! chunk far below the surface land many chunks away. Here a tree is planted only by the chunk
//! that holds its surface block (`owner_only`, the default), which bounds the edits to the
//! neighbouring chunks (reach 1) — the condition for generating chunks in any order. The draws
//! are pyworldgen's either way, so in the chunk holding the surface the trees are pyworldgen's
//! (`tests/voxels_golden.rs`).

use bozkir_voxel::block::ids::{LEAVES, WOOD};
use bozkir_voxel::coords::BlockPos;

use super::pass::{Pass, PassCtx};
use super::work::WorkChunk;
use crate::error::{param, Result};

/// The tree feature pass (`features`, after `terrain` and `biomes`).
#[derive(Debug, Clone, Copy)]
pub struct TreePass {
    /// Columns tried per chunk. pyworldgen: 2.
    pub attempts: u32,
    /// Plant only where the surface block lies in this chunk (see the module docs).
    pub owner_only: bool,
}

impl Default for TreePass {
    fn default() -> Self {
        TreePass { attempts: 2, owner_only: true }
    }
}

impl Pass for TreePass {
    fn name(&self) -> &str {
        "features"
    }
    fn dependencies(&self) -> Vec<String> {
        vec!["terrain".into(), "biomes".into()]
    }
    fn edit_reach(&self) -> i32 {
        if self.owner_only {
            1
        } else {
            4
        }
    }
    fn run(&self, ctx: &mut PassCtx<'_>, chunk: &mut WorkChunk) -> Result<()> {
        if self.attempts > 4096 {
            return Err(param("attempts", self.attempts, "at most 4096 per chunk"));
        }
        let s = chunk.edge();
        let [ox, oy, oz] = chunk.origin();
        for _ in 0..self.attempts {
            let lx = ctx.rng().below(s as u32) as usize;
            let lz = ctx.rng().below(s as u32) as usize;
            let h = i64::from(chunk.heightmap[chunk.column(lx, lz)]);
            if self.owner_only && !(oy..oy + s as i64).contains(&h) {
                continue;
            }
            let (wx, wz) = (ox + lx as i64, oz + lz as i64);
            let mut put = |x: i64, y: i64, z: i64, b, p| {
                // Trees never reach past i32: chunk origins are checked, offsets are ≤ 5.
                ctx.edit(BlockPos::new(x as i32, y as i32, z as i32), b, p);
            };
            for dy in 1..5 {
                put(wx, h + dy, wz, WOOD, 10);
            }
            for dx in -2i64..=2 {
                for dy in 3i64..6 {
                    for dz in -2i64..=2 {
                        if dx.abs() + dz.abs() + (dy - 4).max(0) <= 4 {
                            put(wx + dx, h + dy, wz + dz, LEAVES, 11);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

//! Cave passes: pyworldgen's `SimpleCavePass` (noise pockets carved out of stone) and the field
//! pass (a chunk filled from, or carved by, any [`SolidField3D`]).
//!
//! `SimpleCavePass`: a stone block at world `(x, y, z)` becomes air where
//! `sin(0.21·(x + seed))·cos(0.17·(y − seed))·sin(0.19·(z + 17)) > threshold` (0.82). Each factor
//! depends on one axis, so a chunk evaluates 3·s of them (not s³) and multiplies them in
//! pyworldgen's order: the same doubles, the same blocks.
//!
//! The field pass samples the field at block centres `((x, y, z) + ½)·block_size` metres
//! (pyworldgen's `fill_chunk_from_field` at `block_size = 1`).

use std::sync::Arc;

use bozkir_voxel::block::ids::{AIR, STONE};
use bozkir_voxel::block::BlockId;

use bozkir_voxel::chunk::ChunkState;

use super::pass::{Pass, PassCtx};
use super::work::WorkChunk;
use crate::error::{param, Result};
use crate::solid::SolidField3D;

/// pyworldgen's `SimpleCavePass` (`caves`, after `terrain`).
#[derive(Debug, Clone, Copy)]
pub struct SimpleCavePass {
    /// Carve where the product exceeds this. pyworldgen: 0.82.
    pub threshold: f64,
}

impl Default for SimpleCavePass {
    fn default() -> Self {
        SimpleCavePass { threshold: 0.82 }
    }
}

impl Pass for SimpleCavePass {
    fn name(&self) -> &str {
        "caves"
    }
    fn dependencies(&self) -> Vec<String> {
        vec!["terrain".into()]
    }
    fn run(&self, ctx: &mut PassCtx<'_>, chunk: &mut WorkChunk) -> Result<()> {
        let s = chunk.edge();
        let o = chunk.origin();
        let seed = i128::from(ctx.world.seed);
        let axis = |k: usize, f: &dyn Fn(i128) -> f64| -> Vec<f64> {
            (0..s).map(|i| f(i128::from(o[k] + i as i64))).collect()
        };
        let fx = axis(0, &|x| libm::sin((x + seed) as f64 * 0.21));
        let fy = axis(1, &|y| libm::cos((y - seed) as f64 * 0.17));
        let fz = axis(2, &|z| libm::sin((z + 17) as f64 * 0.19));
        for (y, &vy) in fy.iter().enumerate() {
            for (z, &vz) in fz.iter().enumerate() {
                let row = chunk.index(0, y, z);
                for (x, &vx) in fx.iter().enumerate() {
                    let b = &mut chunk.blocks[row + x];
                    if *b == STONE && vx * vy * vz > self.threshold {
                        *b = AIR;
                    }
                }
            }
        }
        chunk.reach(ChunkState::CavesGenerated);
        Ok(())
    }
}

/// What the field pass does with the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldMode {
    /// Every block becomes `solid` where the field is solid and `air` elsewhere (pyworldgen's
    /// `FieldSolidPass`).
    Fill {
        /// Block where solid. pyworldgen: stone.
        solid: BlockId,
        /// Block where not. pyworldgen: air.
        air: BlockId,
    },
    /// Blocks become air where the field is *not* solid (a cave field carving the terrain).
    Carve,
}

/// A chunk filled from or carved by a field.
pub struct FieldPass {
    name: String,
    deps: Vec<String>,
    field: Arc<dyn SolidField3D + Send>,
    mode: FieldMode,
    block_size: f64,
}

impl FieldPass {
    /// The pass `name` applying `field` by `mode` after `deps`, blocks of `block_size` metres.
    pub fn new(
        name: &str,
        deps: &[&str],
        field: Arc<dyn SolidField3D + Send>,
        mode: FieldMode,
        block_size: f64,
    ) -> Result<Self> {
        if !(block_size > 0.0 && block_size.is_finite()) {
            return Err(param("block_size", block_size, "must be positive and finite (metres per block)"));
        }
        Ok(FieldPass {
            name: name.to_string(),
            deps: deps.iter().map(|d| d.to_string()).collect(),
            field,
            mode,
            block_size,
        })
    }

    /// pyworldgen's `FieldSolidPass(field)`: named `field_solid`, no dependencies, stone and
    /// air, one metre per block.
    pub fn solid(field: Arc<dyn SolidField3D + Send>) -> Self {
        FieldPass {
            name: "field_solid".into(),
            deps: Vec::new(),
            field,
            mode: FieldMode::Fill { solid: STONE, air: AIR },
            block_size: 1.0,
        }
    }
}

impl Pass for FieldPass {
    fn name(&self) -> &str {
        &self.name
    }
    fn dependencies(&self) -> Vec<String> {
        self.deps.clone()
    }
    fn run(&self, _ctx: &mut PassCtx<'_>, chunk: &mut WorkChunk) -> Result<()> {
        let s = chunk.edge();
        let o = chunk.origin();
        let b = self.block_size;
        let at = |k: usize, i: usize| (o[k] as f64 + i as f64 + 0.5) * b;
        for y in 0..s {
            for z in 0..s {
                let row = chunk.index(0, y, z);
                for x in 0..s {
                    let solid = self.field.is_solid(at(0, x), at(1, y), at(2, z));
                    let cell = &mut chunk.blocks[row + x];
                    match self.mode {
                        FieldMode::Fill { solid: sb, air } => *cell = if solid { sb } else { air },
                        FieldMode::Carve => {
                            if !solid {
                                *cell = AIR;
                            }
                        }
                    }
                }
            }
        }
        chunk.reach(ChunkState::TerrainGenerated);
        Ok(())
    }
}

//! The edits barrier and the sunlight pass.
//!
//! * [`ApplyEditsPass`] (`apply_deferred_edits`, after `features`): the scheduler's barrier; the
//!   scheduler applies the edits ([`PassKind::ApplyEdits`]), the pass itself does nothing.
//! * [`SunlightPass`] (`lighting`, after `terrain`): pyworldgen's `SimpleSunlightPass` — in each
//!   column, from the chunk's top layer down, every voxel gets the current light (15 at the top)
//!   and after each non-transparent block the light drops by 2 (not below 0).

use bozkir_voxel::chunk::ChunkState;

use super::pass::{Pass, PassCtx, PassKind};
use super::work::WorkChunk;
use crate::error::Result;

/// The edits barrier.
#[derive(Debug, Clone, Copy, Default)]
pub struct ApplyEditsPass;

impl Pass for ApplyEditsPass {
    fn name(&self) -> &str {
        "apply_deferred_edits"
    }
    fn dependencies(&self) -> Vec<String> {
        vec!["features".into()]
    }
    fn kind(&self) -> PassKind {
        PassKind::ApplyEdits
    }
    fn run(&self, _ctx: &mut PassCtx<'_>, chunk: &mut WorkChunk) -> Result<()> {
        chunk.reach(ChunkState::StructuresPlaced);
        Ok(())
    }
}

/// pyworldgen's per-chunk sunlight.
#[derive(Debug, Clone, Copy, Default)]
pub struct SunlightPass;

/// The column rule on dense arrays (`bozkir_voxel::light::simple_sunlight_dense`).
pub use bozkir_voxel::light::simple_sunlight_dense as column_sunlight;

impl Pass for SunlightPass {
    fn name(&self) -> &str {
        "lighting"
    }
    fn dependencies(&self) -> Vec<String> {
        vec!["terrain".into()]
    }
    fn run(&self, ctx: &mut PassCtx<'_>, chunk: &mut WorkChunk) -> Result<()> {
        let s = chunk.edge();
        column_sunlight(&chunk.blocks, &mut chunk.light, s, &ctx.world.registry);
        chunk.reach(ChunkState::LightingReady);
        Ok(())
    }
}

//! Chunked voxel worlds (seed 002's `generation/`): generation passes with declared
//! dependencies, run by a [`Scheduler`] on chunks in parallel, deterministic in any chunk order
//! and at any thread count.
//!
//! * [`pass`] — the [`Pass`] interface, its context and random streams ([`PassRng`]:
//!   pyworldgen's `make_rng` through CPython's `random.Random`, or ours), deferred [`Edit`]s.
//! * [`scheduler`] — validation (missing, duplicate, cyclic dependencies), ordering, the edits
//!   barrier with neighbours' edits, batches in parallel.
//! * [`mesh`] — chunk meshes with their borders decided by the neighbours (culled or greedy).
//! * [`work`] — the dense chunk passes write ([`WorkChunk`]).
//! * Built-in passes, pyworldgen's: [`terrain`] (`SimpleTerrainPass`, or any height field),
//!   [`biomes`] (`SimpleBiomePass`), [`caves`] (`SimpleCavePass` and the field pass
//!   `FieldSolidPass`), [`trees`] (`SimpleTreeFeaturePass`), [`light`] (`ApplyDeferredEditsPass`,
//!   `SimpleSunlightPass`).
//!
//! Frame: blocks of the voxel frame of [`crate::solid`] (y up, z south), chunk layout
//! `x + s·(z + s·y)` as `bozkir-voxel`'s chunks.

pub mod biomes;
pub mod caves;
pub mod light;
pub mod mesh;
pub mod pass;
pub mod scheduler;
pub mod session;
pub mod terrain;
pub mod trees;
pub mod work;

pub use pass::{Edit, Pass, PassCtx, PassKind, PassRng, VoxelWorld};
pub use scheduler::Scheduler;
pub use session::{ChunkMesh, SessionParams, SessionUpdate, VoxelSession};
pub use work::WorkChunk;

/// pyworldgen's standard pass list, in its order: terrain, biomes, caves, features,
/// apply_deferred_edits, lighting.
pub fn pyworldgen_passes() -> Vec<Box<dyn Pass>> {
    vec![
        Box::new(terrain::TerrainPass::pyworldgen()),
        Box::new(biomes::BiomePass),
        Box::new(caves::SimpleCavePass::default()),
        Box::new(trees::TreePass::default()),
        Box::new(light::ApplyEditsPass),
        Box::new(light::SunlightPass),
    ]
}

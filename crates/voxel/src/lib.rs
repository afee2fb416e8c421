//! Voxel worlds of bozkir (issue 22): pyworldgen 0.1.8's chunked voxel world, as engine data
//! structures.
//!
//! * [`coords`] — block, chunk and local positions; [`ChunkSize`] (8, 16, 32 or 64, default 32);
//!   floor-div / positive-mod conversions; the index layout `x + s*(z + s*y)`.
//! * [`block`] — [`BlockId`], [`BlockDef`], [`BlockRegistry`] (pyworldgen's 12 kinds).
//! * [`palette`] — [`PalettedBlocks`]: palette-compressed blocks with uniform layers.
//! * [`chunk`] — [`Chunk`] (blocks, biomes, heights, light, state, dirty flags).
//! * [`map`] — [`ChunkMap`]: loaded chunks by position, sorted.
//! * [`edits`] — deferred cross-chunk edits: [`DeferredEdit`], [`EditBatch`],
//!   [`DeferredEditBuffer`] with pyworldgen's pop order and a canonical, generation-order-free one.
//! * [`dda`] — [`VoxelWalk`]: Amanatides–Woo traversal of a segment through unit cells.
//! * [`query`] — block get/set, column surface height and raycast over a [`ChunkMap`].
//! * [`light`] — pyworldgen's per-chunk sunlight rule and a sky-light flood fill over a box.
//! * [`codec`] — the chunk byte format (documented as a table), validating decoder.
//! * [`nav`] — grid A* (pyworldgen's) and a voxel walker's A* over a [`ChunkMap`].
//! * [`stream`] — chunk streaming around a moving viewer (nearest first, budget, hysteresis).
//!
//! Conventions: y is up; integer block coordinates in `i32`; chunk coordinate = block coordinate
//! floor-divided by the edge. Pure: no files, no clock, no printing; deterministic (sorted maps
//! only, no hash-order in any output).
#![warn(missing_docs)]

pub mod block;
pub mod chunk;
pub mod codec;
pub mod coords;
pub mod dda;
pub mod edits;
pub mod error;
pub mod light;
pub mod map;
pub mod nav;
pub mod palette;
pub mod query;
pub mod stream;

pub use block::{BlockDef, BlockId, BlockRegistry};
pub use chunk::{Chunk, ChunkState, DirtyFlags, LightStorage};
pub use coords::{BlockPos, ChunkPos, ChunkSize, LocalPos};
pub use dda::{VoxelStep, VoxelWalk};
pub use edits::{apply_edits, DeferredEdit, DeferredEditBuffer, EditBatch, EditSource, ShortName};
pub use error::VoxelError;
pub use map::ChunkMap;
pub use palette::PalettedBlocks;
pub use query::{block_at, raycast, raycast_with, set_block, surface_height, surface_height_with, RayHit};

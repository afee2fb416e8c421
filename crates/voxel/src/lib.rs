//! Voxel worlds of bozkir (issue 22): pyworldgen 0.1.8's chunked voxel world, as engine data
//! structures.
//!
//! * [`coords`] — block, chunk and local positions; [`ChunkSize`] (8, 16, 32 or 64, default 32);
//!   floor-div / positive-mod conversions; the index layout `x + s*(z + s*y)`.
//! * [`block`] — [`BlockId`], [`BlockDef`], [`BlockRegistry`] (pyworldgen's 12 kinds).
//! * [`palette`] — [`PalettedBlocks`]: chunk palette + 256-voxel sections, each uniform or
//!   bit-packed (1/2/4 bits through a local palette, inline in the section's descriptor when
//!   small; 8/16 direct); ≤ 1 bit/voxel on terrain.
//! * [`chunk`] — [`Chunk`] (blocks, biomes, heights, light, state, dirty flags).
//! * [`map`] — [`ChunkMap`]: loaded chunks by position, sorted.
//! * [`edits`] — deferred cross-chunk edits: [`DeferredEdit`], [`EditBatch`],
//!   [`DeferredEditBuffer`] with pyworldgen's pop order and a canonical, generation-order-free one.
//! * [`dda`] — [`VoxelWalk`]: Amanatides–Woo traversal of a segment through unit cells.
//! * [`query`] — block get/set, column surface height and raycast over a [`ChunkMap`].
//! * [`light`] — pyworldgen's per-chunk sunlight rule and a sky-light flood fill over a box.
//! * [`codec`] — the chunk byte format (version 2, documented as a table; version 1 still
//!   read), validating decoder.
//! * [`nav`] — grid A* (pyworldgen's) and a voxel walker's A* over a [`ChunkMap`].
//! * [`stream`] — chunk streaming around a moving viewer (nearest first, budget, hysteresis).
//! * [`walker`] — [`Walker`]: a first-person walker's swept-box collision with blocks (gravity,
//!   jumps, step-up onto 1-block ledges, fly mode) and [`settle`] for a free spawn spot.
//!
//! Conventions: y is up; integer block coordinates in `i32`; chunk coordinate = block coordinate
//! floor-divided by the edge; voxel index in a chunk `x + s*(z + s*y)`, column index `x + s*z`.
//! Pure: no files, no clock, no printing; deterministic (sorted maps only, no hash order in any
//! output). Errors are [`VoxelError`]s naming the offending value; nothing panics on input data
//! (index-taking accessors panic on out-of-range indices, like slice indexing, and say so).
//!
//! A generation step in a few lines (what a scheduler does per chunk):
//!
//! ```
//! use bozkir_voxel::block::ids;
//! use bozkir_voxel::*;
//!
//! let reg = BlockRegistry::pyworldgen();
//! let size = ChunkSize::S32;
//! let mut map = ChunkMap::new(size);
//! let mut edits = DeferredEditBuffer::new(size);
//! for pos in [ChunkPos::new(0, 0, 0), ChunkPos::new(1, 0, 0)] {
//!     let chunk = map.get_or_create(pos).unwrap();
//!     // terrain: stone below y = 10
//!     let dense: Vec<BlockId> = (0..size.volume())
//!         .map(|i| if LocalPos::from_index(i, size).y < 10 { ids::STONE } else { ids::AIR })
//!         .collect();
//!     chunk.set_dense(&dense).unwrap();
//!     chunk.state = ChunkState::TerrainGenerated;
//!     // a feature that pokes into the neighbour: emitted, not written
//!     let mut batch = EditBatch::new(pos);
//!     let o = pos.origin(size).unwrap();
//!     batch.push(BlockPos::new(o.x + 31, 10, 0), ids::WOOD, 10, EditSource::Tag(1)).unwrap();
//!     batch.push(BlockPos::new(o.x + 32, 10, 0), ids::LEAVES, 11, EditSource::Tag(1)).unwrap();
//!     edits.add_batch(batch);
//! }
//! for pos in map.positions().collect::<Vec<_>>() {
//!     let pending = edits.pop_for_chunk_canonical(pos);
//!     apply_edits(map.get_mut(pos).unwrap(), &pending);
//! }
//! assert_eq!(block_at(&map, BlockPos::new(32, 10, 0)), ids::LEAVES);
//! assert_eq!(surface_height(&map, &reg, 40, 3), Some(9));
//! light::sky_light_box(&mut map, &reg, ChunkPos::new(0, 0, 0), ChunkPos::new(1, 0, 0)).unwrap();
//! let bytes = codec::encode_chunk(map.get(ChunkPos::new(1, 0, 0)).unwrap());
//! assert_eq!(&codec::decode_chunk(&bytes).unwrap(), map.get(ChunkPos::new(1, 0, 0)).unwrap().clone().clean());
//! ```
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
pub mod walker;

pub use block::{BlockDef, BlockId, BlockRegistry};
pub use chunk::{Chunk, ChunkState, DirtyFlags, LightStorage};
pub use coords::{BlockPos, ChunkPos, ChunkSize, LocalPos};
pub use dda::{VoxelStep, VoxelWalk};
pub use edits::{apply_edits, DeferredEdit, DeferredEditBuffer, EditBatch, EditSource, ShortName};
pub use error::VoxelError;
pub use light::{simple_sunlight, sky_light_box, sky_light_grid};
pub use map::ChunkMap;
pub use nav::{grid_astar, voxel_path, WalkParams};
pub use palette::PalettedBlocks;
pub use query::{block_at, raycast, raycast_with, set_block, surface_height, surface_height_with, RayHit};
pub use stream::{ChunkStreamer, StreamParams, StreamPlan};
pub use walker::{overlaps_solid, settle, StepReport, WalkInput, Walker, WalkerParams};

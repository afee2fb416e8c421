//! The generation pass interface: a named step with declared dependencies that fills or edits
//! one chunk, drawing randomness from its own stream and writing outside its chunk only through
//! deferred edits.

use bozkir_core::rng::Rng;
use bozkir_voxel::block::{BlockId, BlockRegistry};
use bozkir_voxel::coords::{BlockPos, ChunkPos, ChunkSize};

use super::work::WorkChunk;
use crate::compat::py_random::{chunk_pass_rng, PyRandom};
use crate::error::Result;
use crate::Compat;

/// What a pass is to the scheduler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PassKind {
    /// Works on its chunk (and may emit deferred edits, within its [`Pass::edit_reach`]).
    Chunk,
    /// The barrier: applies the deferred edits that land in the chunk, from every chunk within
    /// reach, in a canonical order. At most one per scheduler; passes that emit edits run before
    /// it.
    ApplyEdits,
}

/// One stage of chunk generation.
pub trait Pass: Send + Sync {
    /// Its unique name (also the name of its random stream).
    fn name(&self) -> &str;
    /// Names of the passes that must run before it.
    fn dependencies(&self) -> Vec<String>;
    /// How far, in chunks on each axis, its deferred edits may land from the chunk that emits
    /// them (0: it emits none). The scheduler generates that many neighbours' early passes so a
    /// feature straddling a border is the same whichever chunk is asked for first.
    fn edit_reach(&self) -> i32 {
        0
    }
    /// Chunk pass or the edits barrier.
    fn kind(&self) -> PassKind {
        PassKind::Chunk
    }
    /// Runs the pass on `chunk`.
    fn run(&self, ctx: &mut PassCtx<'_>, chunk: &mut WorkChunk) -> Result<()>;
    /// Runs only the pass's per-column outputs (heightmap, biomes) on a chunk whose blocks no
    /// one will read — a neighbour generated for its deferred edits alone. Returns `false` when
    /// the pass has no such shortcut (the scheduler then calls [`Pass::run`]). A shortcut must
    /// leave the columns exactly as `run` would.
    fn run_columns(&self, _ctx: &mut PassCtx<'_>, _chunk: &mut WorkChunk) -> Result<bool> {
        Ok(false)
    }
}

/// A block written outside the pass's own voxels, applied by the edits barrier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edit {
    /// Where (world block).
    pub pos: BlockPos,
    /// What.
    pub block: BlockId,
    /// Edits are applied by ascending priority (a later one overwrites an earlier one).
    pub priority: i32,
}

/// The world a scheduler generates: seed, randomness, chunk edge and block kinds.
#[derive(Debug, Clone)]
pub struct VoxelWorld {
    /// The integer seed (pyworldgen's `seed_to_int` of the user's seed).
    pub seed: i64,
    /// Whose random streams the passes draw from.
    pub compat: Compat,
    /// Chunk edge.
    pub size: ChunkSize,
    /// Block kinds.
    pub registry: BlockRegistry,
}

/// A pass's random stream in one chunk.
#[derive(Debug, Clone)]
pub enum PassRng {
    /// pyworldgen's `make_rng(seed, (cx, cy, cz), name)`: CPython's `random.Random` (boxed:
    /// its state is 2.5 KB).
    Py(Box<PyRandom>),
    /// Ours: `core::rng::Rng` on the canonical hash of (seed, chunk, name).
    Canonical(Rng),
}

impl PassRng {
    /// The stream of pass `name` in chunk `coord` of `world`.
    pub fn new(world: &VoxelWorld, coord: ChunkPos, name: &str) -> Self {
        match world.compat {
            Compat::Pyworldgen => PassRng::Py(Box::new(chunk_pass_rng(
                world.seed,
                (coord.x.into(), coord.y.into(), coord.z.into()),
                name,
            ))),
            Compat::Canonical => {
                use bozkir_core::hash::hash3_u32;
                let s = world.seed as u64;
                let mut h = hash3_u32(coord.x as u32, coord.y as u32, coord.z as u32, (s ^ (s >> 32)) as u32);
                for b in name.bytes() {
                    h = hash3_u32(h, u32::from(b), 0x5EED_0022, h.rotate_left(7));
                }
                PassRng::Canonical(Rng::with_stream(h, (s >> 32) as u32 ^ s as u32))
            }
        }
    }

    /// Uniform integer in `0..n` (`randrange(n)`), `1 ≤ n ≤ 2³²`.
    pub fn below(&mut self, n: u32) -> u32 {
        match self {
            PassRng::Py(r) => r.randrange(u64::from(n)) as u32,
            PassRng::Canonical(r) => r.below(n),
        }
    }
}

/// What a pass sees while it runs on one chunk.
pub struct PassCtx<'a> {
    /// The world.
    pub world: &'a VoxelWorld,
    /// The pass's random stream, made on first use (seeding CPython's generator costs more than
    /// most passes).
    rng: Option<PassRng>,
    pub(crate) coord: ChunkPos,
    pub(crate) edits: Vec<Edit>,
    pub(crate) reach: i32,
    pub(crate) pass: &'a str,
}

impl<'a> PassCtx<'a> {
    /// A context for running the pass `name` by hand on the chunk at `coord` (outside a
    /// scheduler): its random stream, its edits kept for [`PassCtx::take_edits`].
    pub fn new(world: &'a VoxelWorld, coord: ChunkPos, name: &'a str) -> Self {
        PassCtx { world, rng: None, coord, edits: Vec::new(), reach: 0, pass: name }
    }

    /// The pass's own random stream in this chunk.
    pub fn rng(&mut self) -> &mut PassRng {
        let (world, coord, pass) = (self.world, self.coord, self.pass);
        self.rng.get_or_insert_with(|| PassRng::new(world, coord, pass))
    }

    /// The edits queued so far, in emission order (leaves none behind).
    pub fn take_edits(&mut self) -> Vec<Edit> {
        std::mem::take(&mut self.edits)
    }

    /// Queues a deferred edit.
    pub fn edit(&mut self, pos: BlockPos, block: BlockId, priority: i32) {
        self.edits.push(Edit { pos, block, priority });
    }
    /// The name of the running pass.
    pub fn pass_name(&self) -> &str {
        self.pass
    }
}

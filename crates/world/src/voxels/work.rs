//! The chunk a pass works on: dense arrays, one value per voxel and per column, indexed as the
//! voxel crate's chunks (`x + s·(z + s·y)`, columns `x + s·z`). Passes write here at memory speed;
//! the scheduler compresses the result into a palette [`Chunk`] once, at the end.

use bozkir_voxel::block::BlockId;
use bozkir_voxel::chunk::{Chunk, ChunkState, LightStorage};
use bozkir_voxel::coords::{ChunkPos, ChunkSize};
use bozkir_voxel::palette::PalettedBlocks;

use crate::error::{Result, WorldError};

/// A chunk under generation.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkChunk {
    /// Where it is.
    pub coord: ChunkPos,
    /// Its edge.
    pub size: ChunkSize,
    /// Blocks, `x + s·(z + s·y)`.
    pub blocks: Vec<BlockId>,
    /// Surface height per column (`x + s·z`), world blocks, as the terrain pass found it.
    pub heightmap: Vec<i16>,
    /// Biome per column.
    pub biomes: Vec<u8>,
    /// Light per voxel (0–15).
    pub light: Vec<u8>,
    /// How far generation took it (passes raise it, as pyworldgen's do).
    pub state: ChunkState,
}

impl WorkChunk {
    /// An all-air chunk at `coord`.
    pub fn new(coord: ChunkPos, size: ChunkSize) -> Self {
        WorkChunk {
            coord,
            size,
            blocks: vec![BlockId::AIR; size.volume()],
            heightmap: vec![0; size.area()],
            biomes: vec![0; size.area()],
            light: vec![0; size.volume()],
            state: ChunkState::Empty,
        }
    }

    /// Raises the state to `s` (never lowers it).
    pub fn reach(&mut self, s: ChunkState) {
        self.state = self.state.max(s);
    }

    /// The palette-compressed chunk (blocks compacted, light packed).
    pub fn into_chunk(self) -> Result<Chunk> {
        let WorkChunk { coord, size, blocks, heightmap, biomes, light, state } = self;
        let err = |e: bozkir_voxel::VoxelError| WorldError::Invalid(format!("chunk {coord}: {e}"));
        let blocks = PalettedBlocks::from_dense(size, &blocks).map_err(err)?;
        let light = LightStorage::from_dense(&light);
        // The column arrays move into the chunk: no copy.
        Chunk::from_parts(coord, state, blocks, biomes, heightmap, light).map_err(err)
    }

    /// The edge in blocks.
    #[inline]
    pub fn edge(&self) -> usize {
        self.size.edge() as usize
    }

    /// Index of local `(x, y, z)`.
    #[inline]
    pub fn index(&self, x: usize, y: usize, z: usize) -> usize {
        let s = self.size.shift();
        x | (z << s) | (y << (2 * s))
    }

    /// Column index of local `(x, z)`.
    #[inline]
    pub fn column(&self, x: usize, z: usize) -> usize {
        x | (z << self.size.shift())
    }

    /// World block coordinate of the chunk's local origin, as `i64` (never overflows).
    pub fn origin(&self) -> [i64; 3] {
        let e = i64::from(self.size.edge());
        [i64::from(self.coord.x) * e, i64::from(self.coord.y) * e, i64::from(self.coord.z) * e]
    }
}

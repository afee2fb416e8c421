//! The terrain pass: columns of stone, dirt and grass up to a surface height, air above.
//!
//! pyworldgen's `SimpleTerrainPass`: in each column the block at the surface height `h` is
//! grass, the three below it dirt, everything lower stone, everything higher air; the column's
//! `h` goes to the chunk's heightmap. The surface comes from a [`Surface`]:
//!
//! * [`NoiseSurface`] — pyworldgen's `surface_height(x, z, seed)`:
//!   `round(base + amplitude·(2·fbm2(0.05·x, 0.05·z, 4, seed + 101) − 1))` with Python's
//!   round-half-to-even, base 8, amplitude 7, the value noise of the world's compatibility path;
//! * [`GridSurface`] — any height field (every height-field world of `bozkir world`, a real
//!   DEM): the bilinear height at the column centre, in blocks of `block_size` metres above
//!   `datum`, floored.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use bozkir_core::Grid;
use bozkir_voxel::block::ids::{AIR, DIRT, GRASS, STONE};

use bozkir_voxel::chunk::ChunkState;

use super::pass::{Pass, PassCtx};
use super::work::WorkChunk;
use crate::error::{param, Result};
use crate::random::for_compat;
use crate::solid::{bilinear, HeightSolid};
use crate::Compat;

/// The surface height of a column, in world blocks.
pub trait Surface: Send + Sync {
    /// Surface block height of column `(x, z)` of a world with integer seed `seed`.
    fn height(&self, x: i64, z: i64, seed: i64, compat: Compat) -> i64;
}

/// pyworldgen's `surface_height`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NoiseSurface {
    /// Mean height, blocks. pyworldgen: 8.
    pub base: f64,
    /// Relief, blocks either side of `base`. pyworldgen: 7.
    pub amplitude: f64,
}

impl Default for NoiseSurface {
    fn default() -> Self {
        NoiseSurface { base: 8.0, amplitude: 7.0 }
    }
}

impl Surface for NoiseSurface {
    fn height(&self, x: i64, z: i64, seed: i64, compat: Compat) -> i64 {
        let n = for_compat(compat).noise().fbm2(x as f64 * 0.05, z as f64 * 0.05, 4, seed.wrapping_add(101));
        (self.base + self.amplitude * (n * 2.0 - 1.0)).round_ties_even() as i64
    }
}

/// A height field as a surface: column `(x, z)` samples the north-up grid at
/// `((x + ½)·block_size, (z + ½)·block_size)` metres (z south), `h = floor((height − datum) /
/// block_size)`.
#[derive(Debug, Clone)]
pub struct GridSurface {
    grid: Arc<Grid<f64>>,
    block_size: f64,
    datum: f64,
}

impl GridSurface {
    /// The surface of `grid` (metres) in blocks of `block_size` metres, `datum` metres at y = 0.
    pub fn new(grid: Arc<Grid<f64>>, block_size: f64, datum: f64) -> Result<Self> {
        HeightSolid::new(&grid, 0.0)?;
        if !(block_size > 0.0 && block_size.is_finite()) {
            return Err(param("block_size", block_size, "must be positive and finite (metres per block)"));
        }
        if !datum.is_finite() {
            return Err(param("datum", datum, "must be finite"));
        }
        Ok(GridSurface { grid, block_size, datum })
    }
}

impl Surface for GridSurface {
    fn height(&self, x: i64, z: i64, _seed: i64, _compat: Compat) -> i64 {
        let b = self.block_size;
        let h = bilinear(&self.grid, (x as f64 + 0.5) * b, (z as f64 + 0.5) * b);
        ((h - self.datum) / b).floor().clamp(-1e9, 1e9) as i64
    }
}

/// The terrain pass (`terrain`, no dependencies).
pub struct TerrainPass {
    surface: Box<dyn Surface>,
    /// Column heights of recent chunk columns: the chunks stacked in one column (and the
    /// neighbours generated for their edits) share them. A pure function's values, so the
    /// cache changes no output; it is cleared when it holds [`COLUMN_CACHE`] columns.
    cache: Mutex<HashMap<ColumnKey, Arc<Vec<i64>>>>,
}

/// Chunk columns the terrain pass remembers at most.
pub const COLUMN_CACHE: usize = 4096;

/// (seed, compat, chunk edge, chunk x, chunk z).
type ColumnKey = (i64, u8, u32, i32, i32);

impl TerrainPass {
    /// Terrain over `surface`.
    pub fn new(surface: impl Surface + 'static) -> Self {
        TerrainPass { surface: Box::new(surface), cache: Mutex::new(HashMap::new()) }
    }
    /// pyworldgen's terrain.
    pub fn pyworldgen() -> Self {
        Self::new(NoiseSurface::default())
    }
}

impl TerrainPass {
    /// The surface heights of the chunk's columns (index `x + s·z`) into its heightmap; returns
    /// them.
    fn columns(&self, ctx: &PassCtx<'_>, chunk: &mut WorkChunk) -> Arc<Vec<i64>> {
        let s = chunk.edge();
        let compat = match ctx.world.compat {
            Compat::Pyworldgen => 0,
            Compat::Canonical => 1,
        };
        let key = (ctx.world.seed, compat, s as u32, chunk.coord.x, chunk.coord.z);
        let cached = self.cache.lock().map(|c| c.get(&key).cloned()).unwrap_or(None);
        let hs = match cached {
            Some(h) => h,
            None => {
                let [ox, _, oz] = chunk.origin();
                let mut hs = Vec::with_capacity(s * s);
                for z in 0..s {
                    for x in 0..s {
                        hs.push(self.surface.height(ox + x as i64, oz + z as i64, ctx.world.seed, ctx.world.compat));
                    }
                }
                let hs = Arc::new(hs);
                if let Ok(mut c) = self.cache.lock() {
                    if c.len() >= COLUMN_CACHE {
                        c.clear();
                    }
                    c.insert(key, hs.clone());
                }
                hs
            }
        };
        for (m, &h) in chunk.heightmap.iter_mut().zip(hs.iter()) {
            *m = h.clamp(i64::from(i16::MIN), i64::from(i16::MAX)) as i16;
        }
        hs
    }
}

impl Pass for TerrainPass {
    fn name(&self) -> &str {
        "terrain"
    }
    fn dependencies(&self) -> Vec<String> {
        Vec::new()
    }
    fn run_columns(&self, ctx: &mut PassCtx<'_>, chunk: &mut WorkChunk) -> Result<bool> {
        self.columns(ctx, chunk);
        chunk.reach(ChunkState::TerrainGenerated);
        Ok(true)
    }
    fn run(&self, ctx: &mut PassCtx<'_>, chunk: &mut WorkChunk) -> Result<()> {
        let s = chunk.edge();
        let [_, oy, _] = chunk.origin();
        let hs = self.columns(ctx, chunk);
        // Layer by layer (the storage order), each column's block by its height.
        let area = s * s;
        for y in 0..s {
            let wy = oy + y as i64;
            let layer = &mut chunk.blocks[y * area..(y + 1) * area];
            for (b, &h) in layer.iter_mut().zip(hs.iter()) {
                *b = if wy > h {
                    AIR
                } else if wy == h {
                    GRASS
                } else if wy >= h - 3 {
                    DIRT
                } else {
                    STONE
                };
            }
        }
        chunk.reach(ChunkState::TerrainGenerated);
        Ok(())
    }
}

//! The biome pass: pyworldgen's `SimpleBiomePass`, a climate classification per column.
//!
//! `temperature = sin(0.015·(x + seed))`, `humidity = cos(0.015·(z − seed))` (the sums exact in
//! integers, then converted to doubles as Python does); snow below a temperature of −0.55,
//! else desert below a humidity of −0.45, forest above 0.35, plains otherwise. `sin`/`cos` are
//! the `libm` crate's (one implementation on every platform).

use bozkir_voxel::chunk::ChunkState;

use super::pass::{Pass, PassCtx};
use super::work::WorkChunk;
use crate::error::Result;

/// Biome ids written to the chunk's biome columns.
pub mod biome {
    /// Plains.
    pub const PLAINS: u8 = 1;
    /// Forest.
    pub const FOREST: u8 = 2;
    /// Desert.
    pub const DESERT: u8 = 3;
    /// Snow.
    pub const SNOW: u8 = 4;
}

/// The biome pass (`biomes`, after `terrain`).
#[derive(Debug, Clone, Copy, Default)]
pub struct BiomePass;

impl Pass for BiomePass {
    fn name(&self) -> &str {
        "biomes"
    }
    fn dependencies(&self) -> Vec<String> {
        vec!["terrain".into()]
    }
    fn run(&self, ctx: &mut PassCtx<'_>, chunk: &mut WorkChunk) -> Result<()> {
        let s = chunk.edge();
        let [ox, _, oz] = chunk.origin();
        let seed = i128::from(ctx.world.seed);
        let temp: Vec<f64> = (0..s).map(|x| libm::sin((i128::from(ox + x as i64) + seed) as f64 * 0.015)).collect();
        for z in 0..s {
            let humidity = libm::cos((i128::from(oz + z as i64) - seed) as f64 * 0.015);
            for (x, &t) in temp.iter().enumerate() {
                let b = if t < -0.55 {
                    biome::SNOW
                } else if humidity < -0.45 {
                    biome::DESERT
                } else if humidity > 0.35 {
                    biome::FOREST
                } else {
                    biome::PLAINS
                };
                let col = chunk.column(x, z);
                chunk.biomes[col] = b;
            }
        }
        chunk.reach(ChunkState::BiomesGenerated);
        Ok(())
    }
}

//! Multi-biome composition (pyworldgen `composite`): several biome terrains blended into one
//! world by a smooth partition of unity.
//!
//! Pipeline (pyworldgen 0.1.8's `compose/world.py`, reproduced in [`compose`]):
//! 1. Low-frequency (elevation, moisture) control fields ([`regions::ControlFields`]).
//! 2. Region centres by a seeded dart-throw with spacing `0.85·√(W·H/n)`
//!    ([`regions::place_region_seeds`]), each classified by the biome whose niche is nearest
//!    ([`regions::classify_seeds`]).
//! 3. A domain-warped Gaussian per region, summed per biome and normalised:
//!    `w_t(p) = Σ_{k∈t} g_k(p) / Σ_k g_k(p)`, so `Σ_t w_t = 1` ([`regions::region_weights`]).
//! 4. Height, water depth, tree density and colour blended with the same weights
//!    ([`blend::blend`]); the dominant biome is the argmax.
//! 5. Trees as instances gated by the blended density and draped on the composed surface
//!    ([`trees::scatter_trees`]); roads and rivers on the composed world ([`hooks`]).
//!
//! A biome's terrain h_T is one of pyworldgen's profile functions or any height grid (a named
//! profile or recipe output generated once by the face: [`palette::BiomeProfile::Grid`]).

pub mod blend;
pub mod hooks;
pub mod palette;
pub mod params;
pub mod regions;
pub mod rownoise;
pub mod trees;

pub use blend::WEIGHT_EPS;
pub use palette::{BiomeProfile, BiomeType, Palette, PaletteSpec, ProfileKind};
pub use params::CompositeParams;
pub use trees::{TreeInstance, TREE_WATER_CUTOFF};

use crate::error::{Result, WorldError};
use crate::field::WorldGrid;
use crate::random::for_compat;
use crate::seed::{Compat, Seed};
use regions::{ControlFields, Frame, WeightShape};

/// pyworldgen's seed offset of the region dart-throw's generator.
pub const REGION_SEED_OFFSET: i64 = 9001;
/// pyworldgen's seed offset of the forest (our tree scatter's generator).
pub const FOREST_SEED_OFFSET: i64 = 4242;
/// Largest |integer seed| accepted in the pyworldgen path (offsets and octave seeds stay exact).
pub const MAX_PWG_SEED: i64 = 1 << 62;

/// A region centre and its biome.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RegionSeed {
    /// x in metres.
    pub x: f64,
    /// y in metres.
    pub y: f64,
    /// Palette index of its biome.
    pub biome: usize,
}

/// A composed world: the blended terrain and everything blended with it.
#[derive(Debug, Clone)]
pub struct CompositeWorld {
    /// Height and water depth (pyworldgen's float32 values, widened to f64), cell size `res`.
    pub grid: WorldGrid,
    /// Biome names, palette order.
    pub biome_names: Vec<String>,
    /// Per biome, `ny·nx` weights in f64 (a partition of unity; pyworldgen stores them as
    /// float32: [`CompositeWorld::weight_f32`]).
    pub weights: Vec<Vec<f64>>,
    /// Palette index of the largest weight per cell.
    pub dominant: Vec<u16>,
    /// Blended sRGB colour per cell.
    pub color: Vec<[u8; 3]>,
    /// Blended tree density in [0, 1] per cell.
    pub tree_density: Vec<f32>,
    /// The region centres and their biomes.
    pub region_seeds: Vec<RegionSeed>,
    /// Tree instances (empty unless `add_forest`).
    pub trees: Vec<TreeInstance>,
    /// The integer seed the generators used (pyworldgen's `seed_to_int`, or our fold).
    pub seed_int: i64,
    /// Cells where every region Gaussian underflowed (see [`regions::region_weights`]).
    pub underflow_cells: usize,
}

impl CompositeWorld {
    /// Biome `t`'s weights as float32, pyworldgen's stored precision.
    pub fn weight_f32(&self, t: usize) -> Vec<f32> {
        self.weights[t].iter().map(|&v| v as f32).collect()
    }

    /// Mean weight of the biome named `name` (0 when absent): its share of the world.
    pub fn biome_fraction(&self, name: &str) -> f64 {
        match self.biome_names.iter().position(|n| n == name) {
            Some(t) => self.weights[t].iter().sum::<f64>() / self.weights[t].len() as f64,
            None => 0.0,
        }
    }
}

crate::field::terrain_via_grid!(CompositeWorld);

/// The integer seed the composition draws from: pyworldgen's `seed_to_int` in the
/// compatibility path; in the canonical path our 64-bit seed folded to 32 bits
/// (`s ⊕ (s ≫ 32)`, the word the canonical hash keys on), so every offset stays small.
pub fn world_seed(seed: &Seed, compat: Compat) -> Result<i64> {
    match compat {
        Compat::Pyworldgen => {
            let s = seed.pyworldgen_int();
            if !(-MAX_PWG_SEED..=MAX_PWG_SEED).contains(&s) || s + REGION_SEED_OFFSET < 0 {
                return Err(WorldError::Param {
                    name: "seed".into(),
                    value: s.to_string(),
                    allowed: format!(
                        "the pyworldgen path seeds numpy with seed + {REGION_SEED_OFFSET} (must be ≥ 0) and needs \
                         |seed| ≤ 2^62"
                    ),
                });
            }
            Ok(s)
        }
        Compat::Canonical => {
            let c = seed.canonical();
            Ok(((c ^ (c >> 32)) & 0xFFFF_FFFF) as i64)
        }
    }
}

/// The integer seed must keep every derived seed exact (|s| ≤ 2^62) and, in the pyworldgen
/// path, every numpy seed non-negative (numpy refuses negative seeds).
fn check_seed(s: i64, compat: Compat, params: &CompositeParams) -> Result<()> {
    let bad = |allowed: String| Err(WorldError::Param { name: "seed".into(), value: s.to_string(), allowed });
    if !(-MAX_PWG_SEED..=MAX_PWG_SEED).contains(&s) {
        return bad("the integer seed must satisfy |seed| ≤ 2^62".into());
    }
    if compat == Compat::Pyworldgen && params.add_forest && s + FOREST_SEED_OFFSET < 0 {
        return bad(format!("the tree scatter seeds numpy with seed + {FOREST_SEED_OFFSET} (must be ≥ 0)"));
    }
    Ok(())
}

fn check_inputs(params: &CompositeParams, palette: &Palette) -> Result<()> {
    params.validate()?;
    palette.validate()?;
    match palette.named_profiles().first() {
        Some(n) => Err(WorldError::Invalid(format!(
            "palette: profile `{n}` is not generated; resolve it to a grid first (Palette::resolve)"
        ))),
        None => Ok(()),
    }
}

/// Compose a world from `seed` under `params` with `palette` (see the module docs).
///
/// Errors: parameters out of range, an invalid palette or one with a named profile not yet
/// generated ([`Palette::resolve`]), a seed the pyworldgen path cannot feed to numpy.
pub fn compose(seed: &Seed, compat: Compat, params: &CompositeParams, palette: &Palette) -> Result<CompositeWorld> {
    check_inputs(params, palette)?;
    let s = world_seed(seed, compat)?;
    check_seed(s, compat, params)?;
    let rnd = for_compat(compat);
    let mut draws = rnd.draws(s + REGION_SEED_OFFSET);
    let n = params.num_regions as usize;
    let centres = regions::place_region_seeds(params.domain_size, &mut *draws, n, params.spacing());
    compose_from_centres(s, compat, params, palette, &centres)
}

/// Steps after the dart-throw: classify the given region centres, weigh, blend, scatter trees.
/// [`compose`] calls it with its own centres; tests and faces may pass theirs. `s` is the
/// integer seed ([`world_seed`]). Parameters and palette are validated again.
pub fn compose_from_centres(
    s: i64,
    compat: Compat,
    params: &CompositeParams,
    palette: &Palette,
    centres: &[(f64, f64)],
) -> Result<CompositeWorld> {
    check_inputs(params, palette)?;
    check_seed(s, compat, params)?;
    if centres.is_empty() || centres.iter().any(|&(x, y)| !x.is_finite() || !y.is_finite()) {
        return Err(WorldError::Invalid(format!(
            "composite: {} region centres, need at least one, all finite",
            centres.len()
        )));
    }
    let rnd = for_compat(compat);
    let noise = rnd.noise();
    let (nx, ny) = params.grid_size();
    let frame = Frame::new(nx, ny, params.resolution);
    let control = ControlFields::new(noise, &frame, s, params.control_scale);
    let types = regions::classify_seeds(centres, &control, noise, &frame, palette);
    let spacing = params.spacing();

    let shape = WeightShape {
        sigma: f64::max(params.blend_softness * spacing, params.resolution),
        warp_amp: params.boundary_warp * spacing,
        warp_scale: params.boundary_warp_scale,
        seed: s,
    };
    let t_n = palette.biomes.len();
    let w = regions::region_weights(noise, &frame, centres, &types, t_n, &shape);
    let input = blend::BlendInput { noise, frame: &frame, palette, seed: s, base: params.base_level };
    let b = blend::blend(&input, &w);

    let mut grid = WorldGrid::new(nx, ny, params.resolution, params.resolution, b.height);
    grid.water_depth = b.water;
    let trees = if params.add_forest {
        let mut d = rnd.draws(s + FOREST_SEED_OFFSET);
        trees::scatter_trees(&grid, &b.density, params.forest_target, params.forest_max_accept, &mut *d)
    } else {
        Vec::new()
    };
    Ok(CompositeWorld {
        grid,
        biome_names: palette.names(),
        weights: w.planes,
        dominant: b.dominant,
        color: b.color,
        tree_density: b.density,
        region_seeds: centres.iter().zip(&types).map(|(&(x, y), &biome)| RegionSeed { x, y, biome }).collect(),
        trees,
        seed_int: s,
        underflow_cells: w.underflow_cells,
    })
}

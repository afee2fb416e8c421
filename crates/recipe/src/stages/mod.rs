//! The stages a recipe can list: each one a parameter struct (its TOML table, unknown keys
//! refused) implementing [`StageOp`], named once by its [`StageOp::NAME`], and listed once in
//! the `stages!` list below, which makes [`Op`], [`OPS`] and [`parse_op`].
//!
//! Families, one file each: [`noise`] (the profile generator and noise), [`sculpt`] (terraces,
//! redistribution, warp, blur, reverse sculpting), [`erosion`] (stream power, the fill, slab,
//! droplets, thermal, shallow water), [`detail`] (rills, crags, plates, polish, upsampling,
//! sediment floors, canyons, the fold) [`world`] (island, rivers, biomes) and [`worlds`] (the world layer's landscape, composite and
//! roads).
//!
//! Units: heights and lengths in metres, frequencies in cycles across the field's extent unless
//! a name says otherwise. Every stage's seed is derived once, into its [`StageCtx`], from the
//! recipe seed and the stage's position (or given explicitly with `seed`), so a recipe and a
//! seed name the same ground.

pub mod detail;
pub mod erosion;
pub mod noise;
pub mod sculpt;
pub mod world;
pub mod worlds;

use crate::error::{ParamError, StageError};
use crate::state::State;
use bozkir_core::{hash_u32, Progress};
use bozkir_terrain::kernels::{Cpu, KernelKind, Kernels};
use serde::de::DeserializeOwned;

pub use detail::*;
pub use erosion::*;
pub use noise::*;
pub use sculpt::*;
pub use world::*;
pub use worlds::*;

/// One kind of stage: its parameters (the implementing struct, read from the stage's TOML
/// table), their checks, and what the stage does to the [`State`].
pub trait StageOp: DeserializeOwned + Sized {
    /// The stage's name: `op = "NAME"` in recipes, and in messages and sidecars.
    const NAME: &'static str;

    /// The checks beyond the parameters' types (ranges, choices); default: none.
    fn validated(self) -> Result<Self, ParamError> {
        Ok(self)
    }

    /// The explicit `seed` of a stage whose randomness takes 32 bits (checked to fit when
    /// parsed; `None`: the seed is derived from the recipe's).
    fn seed(&self) -> Option<u64> {
        None
    }

    /// The kernel a [`Kernels`] implementation may run for this stage, if any.
    fn kernel(&self) -> Option<KernelKind> {
        None
    }

    /// Runs the stage on `state`. Errors are problems only the state can reveal (a mask that
    /// was never recorded, a size past the cap) or a kernel implementation stopping the run.
    fn apply(&self, ctx: &StageCtx, state: &mut State) -> Result<(), StageError>;
}

/// What a stage runs with besides the state: its position, its seed (derived once), the
/// progress sink and the kernels.
pub struct StageCtx<'a> {
    /// 1-based position of the stage in the recipe.
    pub index: usize,
    /// The run's (recipe's) seed.
    pub recipe_seed: u64,
    seed: u64,
    /// Progress and cancellation.
    pub progress: &'a dyn Progress,
    /// Where the heavy kernels run.
    pub kernels: &'a dyn Kernels,
}

impl<'a> StageCtx<'a> {
    /// The context of stage `index` (1-based) of a run with `recipe_seed`: the stage's seed is
    /// its `explicit` one, refused when it does not fit 32 bits, or hashed from the recipe seed
    /// and the index.
    pub fn new(
        index: usize,
        recipe_seed: u64,
        explicit: Option<u64>,
        progress: &'a dyn Progress,
        kernels: &'a dyn Kernels,
    ) -> Result<Self, ParamError> {
        let seed = match explicit {
            Some(s) => {
                check_seed(s)?;
                s
            }
            None => hash_u32(recipe_seed as u32, (recipe_seed >> 32) as u32 ^ index as u32, 0x5EED) as u64,
        };
        Ok(Self { index, recipe_seed, seed, progress, kernels })
    }

    /// The stage's seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The stage's seed as the 32 bits the noise takes (lossless: [`StageCtx::new`] refuses
    /// wider seeds).
    pub fn seed32(&self) -> u32 {
        u32::try_from(self.seed).expect("StageCtx::new refuses seeds over 32 bits")
    }
}

/// `Ok` when an explicit stage seed fits 32 bits.
fn check_seed(seed: u64) -> Result<(), ParamError> {
    if seed > u32::MAX as u64 {
        return Err(ParamError::Seed { value: seed });
    }
    Ok(())
}

/// Deserialises and checks the parameters of stage `S` from its table.
fn parse_as<S: StageOp>(table: toml::Table) -> Result<S, ParamError> {
    let s: S = toml::Value::Table(table)
        .try_into()
        .map_err(|e: toml::de::Error| ParamError::Toml(e.to_string().trim().replace('\n', " ")))?;
    let s = s.validated()?;
    if let Some(seed) = s.seed() {
        check_seed(seed)?;
    }
    Ok(s)
}

/// The one list of stages: each entry `Variant(Struct)` makes a variant of [`Op`], an entry of
/// [`OPS`] and a branch of [`parse_op`] and of [`Op`]'s methods.
macro_rules! stages {
    ($($variant:ident($ty:ty)),* $(,)?) => {
        /// A stage's operation and parameters (one variant per stage; see each struct).
        #[derive(Debug, Clone, PartialEq)]
        pub enum Op {
            $(
                #[allow(missing_docs)]
                $variant($ty),
            )*
        }

        /// Stage names, in the list's order (for messages).
        pub const OPS: &[&str] = &[$(<$ty as StageOp>::NAME),*];

        impl Op {
            /// The stage's name.
            pub fn name(&self) -> &'static str {
                match self {
                    $(Op::$variant(_) => <$ty as StageOp>::NAME,)*
                }
            }

            /// The kernel a [`Kernels`] implementation may run for this stage, if any.
            pub fn kernel(&self) -> Option<KernelKind> {
                match self {
                    $(Op::$variant(s) => s.kernel(),)*
                }
            }

            /// The stage's explicit 32-bit seed, if it has one.
            pub fn seed(&self) -> Option<u64> {
                match self {
                    $(Op::$variant(s) => s.seed(),)*
                }
            }

            fn run(&self, ctx: &StageCtx, state: &mut State) -> Result<(), StageError> {
                match self {
                    $(Op::$variant(s) => s.apply(ctx, state),)*
                }
            }
        }

        /// Parses the parameters of the stage named `op` from its table (without `op` and
        /// `resolution`).
        pub fn parse_op(op: &str, table: toml::Table) -> Result<Op, ParamError> {
            $(
                if op == <$ty as StageOp>::NAME {
                    return parse_as::<$ty>(table).map(Op::$variant);
                }
            )*
            Err(ParamError::UnknownStage { op: op.to_string(), have: OPS.join(", ") })
        }
    };
}

stages! {
    Profile(ProfileStage),
    Noise(NoiseStage),
    Terrace(TerraceStage),
    Pow(PowStage),
    Warp(WarpStage),
    Blur(BlurStage),
    StreamPower(StreamPowerStage),
    Fill(FillStage),
    Slab(SlabStage),
    Reverse(ReverseStage),
    Rills(RillStage),
    Crags(CragStage),
    Plates(PlatesStage),
    Polish(PolishStage),
    Upsample(UpsampleStage),
    SedimentFloor(SedimentFloorStage),
    Canyon(CanyonStage),
    Fold(FoldStage),
    Droplets(DropletStage),
    Thermal(ThermalStage),
    ShallowWater(ShallowWaterStage),
    Island(IslandStage),
    Rivers(RiversStage),
    Biomes(BiomeStage),
    Landscape(LandscapeStage),
    Composite(CompositeStage),
    Roads(RoadsStage),
}

/// Runs stage `index` (1-based) on `state` on the CPU. Errors are problems only the state can
/// reveal (a mask that was never recorded, a size past the cap); the caller names the stage.
pub fn apply(op: &Op, index: usize, state: &mut State, progress: &dyn Progress) -> Result<(), StageError> {
    apply_with(op, index, state, progress, &Cpu)
}

/// [`apply`] with the stage's kernel (stream power, droplets, thermal, shallow water, the fill)
/// offered to `kernels` first; the CPU runs it when they decline.
pub fn apply_with(
    op: &Op,
    index: usize,
    state: &mut State,
    progress: &dyn Progress,
    kernels: &dyn Kernels,
) -> Result<(), StageError> {
    let ctx = StageCtx::new(index, state.seed, op.seed(), progress, kernels)?;
    op.run(&ctx, state)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    #[test]
    fn every_stage_is_named_once_and_parses_by_its_name() {
        let mut names = OPS.to_vec();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), OPS.len());
        for name in OPS {
            if let Ok(op) = parse_op(name, toml::Table::new()) {
                assert_eq!(op.name(), *name);
            }
        }
    }

    #[test]
    fn erosion_stages_name_their_kernels() {
        let kind = |op: &str| parse_op(op, toml::Table::new()).unwrap().kernel();
        assert_eq!(kind("stream_power"), Some(KernelKind::StreamPower));
        assert_eq!(kind("droplets"), Some(KernelKind::Droplets));
        assert_eq!(kind("shallow_water"), Some(KernelKind::ShallowWater));
        assert_eq!(kind("thermal"), Some(KernelKind::Thermal));
        assert_eq!(kind("fill"), Some(KernelKind::Fill));
        assert_eq!(kind("noise"), None);
    }

    /// An explicit seed over 32 bits was cut silently; it is refused naming the line, and an
    /// in-range seed gives the same stage seed as before (`s as u32`).
    #[test]
    fn explicit_seeds_must_fit_32_bits() {
        for op in ["noise", "warp", "reverse", "droplets", "island"] {
            let text = format!("size = 16\n[[stage]]\nop = \"{op}\"\nseed = 4294967296\n");
            let e = parse(&text, "s.toml").unwrap_err().to_string();
            assert!(e.contains("s.toml line 2") && e.contains(op) && e.contains("seed must be"), "{op}: {e}");
            let text = format!("size = 16\n[[stage]]\nop = \"{op}\"\nseed = 4294967295\n");
            assert!(parse(&text, "s.toml").is_ok(), "{op}");
        }
        // The profile generator takes 64-bit seeds: nothing to refuse.
        assert!(parse("size = 16\n[[stage]]\nop = \"profile\"\nprofile = \"hills\"\nseed = 4294967296\n", "p").is_ok());
        let ctx = StageCtx::new(3, 0, Some(0xFFFF_FFFF), &bozkir_core::NoProgress, &Cpu).unwrap();
        assert_eq!(ctx.seed32(), 0xFFFF_FFFF);
        assert!(StageCtx::new(3, 0, Some(1 << 32), &bozkir_core::NoProgress, &Cpu).is_err());
        // The derived seed: the recipe seed's halves and the index, hashed as before.
        let ctx = StageCtx::new(4, (7 << 32) | 9, None, &bozkir_core::NoProgress, &Cpu).unwrap();
        assert_eq!(ctx.seed32(), hash_u32(9, 7 ^ 4, 0x5EED));
    }
}

//! Material placement of bozkir: where each surface goes, decided from what the land says.
//!
//! Today this crate holds [`biomes`]: a Whittaker-style elevation × moisture table with slope,
//! beach and snow overrides, hard classification, smooth per-biome weights for blending and
//! weight-map export, and palettes. The bozkir placement rule (seed/DESIGN "material" layer) will
//! live here too.
//!
//! The crate is pure like `bozkir-terrain`: no filesystem, network, clock or terminal. Rule data
//! (tables, palettes) arrive as values; results are `Grid`s, and parallel loops run over
//! independent cells, so the output bits do not depend on the rayon thread count.

pub mod biomes;

pub use biomes::{classify, soft_weights, to_rgb, BiomeParams, Palette, PaletteEntry, WhittakerTable};

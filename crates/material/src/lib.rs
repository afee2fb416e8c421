//! Material placement of bozkir: where each surface goes, decided from what the land says.
//!
//! * [`rule`] — the bozkir rule as data (`rule.json`, shared with the viewer).
//! * [`cues`] — the rule's map operations (slope, TPI, D8 drainage, pooling, median, ranks) in a
//!   fixed floating-point order.
//! * [`classify()`] — the rule's hard decision per tile-grid cell: exact shares, strength, runner-up.
//! * [`select`] — Hybrid GSWT: α_c from the terrain, the per-splat survival test the viewer uses.
//! * [`tilegrid`] — the one mapping from a terrain to the tile grid (relief scale, mirroring,
//!   oversampling, detail relief), shared by the CLI and (compiled to WebAssembly) the viewer.
//! * [`biomes`] — a Whittaker elevation × moisture table with slope, beach and snow overrides,
//!   hard classification, soft per-biome weights, palettes.
//! * [`validate`] — scoring the rule against a truth map: Cohen's κ, torus-shift chance, caveats.
//! * [`validation`] — the validation protocol against real ground: window, truths, votes, scores
//!   per grid, caveats, figures (the reading of files is `bozkir_pipeline::validation`'s).
//!
//! The crate is pure like `bozkir-terrain`: no filesystem, network, clock or terminal. Rule data
//! (tables, palettes, rule files) arrive as values; results are plain vectors or `Grid`s, and the
//! output bits do not depend on the rayon thread count.

pub mod biomes;
pub mod classify;
pub mod cues;
pub mod param;
pub mod rule;
pub mod select;
pub mod tilegrid;
pub mod validate;
pub mod validation;

pub use biomes::{
    classify as classify_biomes, soft_weights, to_rgb, BiomeParams, Palette, PaletteEntry, WhittakerTable,
};
pub use classify::{classify, Balance, ClassifyError, ClassifyOptions, Decision, Source};
pub use param::ParamError;
pub use rule::{Rule, RuleError};

//! Tiling: from chosen patches to a seamless Wang tileset and its use in a scene.
//!
//! * [`graphcut`] — max-flow seams between overlapping patches.
//! * [`wang`] — Wang edge colours, tile sets and layouts.
//! * [`tiles`] — the tiles built from the patches of each class (graph-cut diagonals, levels
//!   of detail).
//! * [`tileset`] — a tileset in memory: manifest, splats, atlas (its files: `formats::tileset`).
//! * [`metrics`], [`assess`] — repetition, busyness, seam error and exact edges.
//! * [`make_tileset`] — the whole way from a ground capture to a tileset with its verdict.
//! * [`starter`] — the no-data two-material tileset.
//! * [`scene`] — the Wang layout of a tileset over a grid of decided classes, the per-splat
//!   survival hashes and the starter tileset as files (what the viewer and `bozkir figures`
//!   draw).

pub mod assess;
pub mod graphcut;
mod make;
pub mod metrics;
pub mod scene;
pub mod starter;
pub mod tiles;
pub mod tileset;
pub mod wang;

pub use make::{make_tileset, TilesetError, TilesetOutcome, TilesetRequest};

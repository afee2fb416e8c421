//! Tiling: from chosen patches to a seamless Wang tileset and its use in a scene.
//!
//! * [`scene`] — the Wang layout of a tileset over a grid of decided classes, the per-splat
//!   survival hashes and the starter tileset as files (what the viewer and `bozkir figures`
//!   draw).

pub mod scene;

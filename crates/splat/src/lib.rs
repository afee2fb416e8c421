//! Gaussian splats for bozkir: the splat model, its file formats, captures and tilesets.
//!
//! * [`model`] — [`Splats`], a struct of arrays of 3D Gaussians (raw and decoded attributes,
//!   SH up to degree 3 stored as truncatable planes), with `subset`, `truncate_sh`, `transform`;
//!   [`sh`] and [`quat`] its spherical harmonics and rotations; [`raster`] the one top-down
//!   rasteriser.
//! * [`formats`] — the file formats ([`formats::ply`], [`formats::dot_splat`],
//!   [`formats::glb`], [`formats::spz`], [`formats::load`] / [`formats::save`] by extension)
//!   and the tileset folder or zip ([`formats::tileset`]); errors are [`SplatError`].
//! * [`capture`] — captures to work on (synthetic, from points, from a texture), screening
//!   ([`capture::screen`], `bozkir inspect`), preparation ([`capture::prepare`]), the patch
//!   search ([`capture::patches`], [`capture::plane_index`]) and merged levels of detail
//!   ([`capture::lod`]).
//! * [`tiling`] — from patches to a seamless Wang tileset: graph-cut seams, the Wang sets, the
//!   tiles, the tileset, its measures and assessment, the starter tileset and the scene layout.

pub mod capture;
pub mod formats;
pub mod model;
pub mod quat;
pub mod raster;
pub mod sh;
pub mod tiling;

pub use formats::error::{Result, SplatError};
pub use model::{Bounds, RawSplat, Rigid, Splats};

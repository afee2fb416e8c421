//! Worlds of bozkir: height-field worlds you can walk and drive through, built on the terrain
//! engine (seed 002, pyworldgen's height-field half).
//!
//! * [`field`] — the [`Terrain`] interface every height-field world implements, and
//!   [`WorldGrid`], the plain implementation (also the adapter for any `Grid<f64>`).
//! * [`seed`] — seeds given as integers or strings ([`Seed`]), and which randomness a world
//!   draws from ([`Compat`]).
//! * [`random`] — the two sources of randomness behind one interface: pyworldgen's (its hash,
//!   numpy's PCG64 generator) and our canonical hash.
//! * [`compat`] — the pyworldgen 0.1.8 primitives reproduced: its integer hash and value noise,
//!   numpy's `default_rng`, scipy's `gaussian_filter`.
//! * [`flat`], [`landscape`] — the flat terrain and the river-valley landscape; `landscape` also
//!   carves rivers into any height field.
//! * [`roads`] — least-cost roads after Galin et al. (2010).
//! * [`compose`] — multi-biome composition with a partition of unity.
//! * [`cave`] — `implicit_cave`: a cave as a pure function of position, sampled into voxels.
//! * [`forest`] — `forest`'s sites, power-diagram crowns and canopy roof.
//! * [`solid`] — solids as pure functions of position ([`solid::SolidField3D`]): the cave, the
//!   ground under any height field, their combinations; `voxelize` and lattice sampling.
//! * [`validate`] — structural checks of the landscape, composite and cave worlds.
//! * [`volume`] — 3-D worlds for the faces (`implicit_cave`, `voxels`): blocks, chunks, smooth
//!   surface.
//! * [`voxels`] — chunked voxel worlds: generation passes and their scheduler.
//! * [`product`] — what every generator hands to the faces, `world.json` and the registry of
//!   generator names.
//!
//! Pure: values in, values out; no files, no clock, no terminal.

pub mod cave;
pub mod compat;
pub mod compose;
pub mod error;
pub mod field;
pub mod flat;
pub mod forest;
pub mod landscape;
pub mod product;
pub mod random;
pub mod roads;
pub mod seed;
pub mod solid;
pub mod validate;
pub mod volume;
pub mod voxels;

pub use error::WorldError;
pub use field::{Terrain, WorldGrid};
pub use seed::{Compat, Seed};

//! Meshing of bozkir (issue 22): block meshers (culled and greedy, with per-vertex ambient
//! occlusion), a dense-occupancy mesher for whole volumes, surface nets on signed density grids,
//! and mesh checks (welding, watertightness, Euler characteristic, volume, area).
//!
//! The crate depends on no other bozkir crate: inputs are plain slices with their dims.
//!
//! Conventions shared by every module:
//! * y is up; a block volume is `u16` ids laid out `x + nx * (z + nz * y)` (pyworldgen's chunk
//!   layout); id 0 is air.
//! * positions are in voxel units: voxel (x, y, z) occupies [x, x+1] × [y, y+1] × [z, z+1],
//!   plus the origin the caller gives;
//! * triangles are counter-clockwise seen from outside (glTF), normals point out;
//! * every function is deterministic: the same input gives the same bytes.
#![warn(missing_docs)]

pub mod check;
pub mod culled;
pub mod dense;
pub mod error;
pub mod greedy;
pub mod mesh;
pub mod surface_nets;
pub mod volume;

pub use culled::culled_mesh;
pub use dense::{dense_mesh, DenseLayout, DenseParams, Occupancy};
pub use error::{MeshError, Result};
pub use greedy::greedy_mesh;
pub use mesh::Mesh;
pub use surface_nets::{surface_nets, surface_nets_chunk, Density, SurfaceNetsParams};
pub use volume::{BlockKinds, BlockParams, KindFns, SeeThrough, SolidNonZero, Voxels};

//! Point clouds of bozkir (issue 23, item 1): any world as a cloud of points, thinned evenly,
//! voxelized, or written as Gaussian splats.
//!
//! | module | what | main entry points |
//! |---|---|---|
//! | [`sample`] | area-weighted random points on any triangle surface, with the triangle's normal | [`sample_surface`], [`Surface`] |
//! | [`heightfield`] | the same straight from a height field (the terrain mesher's triangulation, no mesh built) | [`heightfield_points`] |
//! | [`fps`] | exact farthest-point sampling, bucketed k-d tree (QuickFPS-style), identical to the O(n·k) greedy | [`fps_exact`], [`fps_naive`], [`min_spacing`] |
//! | [`mod@fps_approx`] | approximate FPS for very large clouds (one random point per voxel cell, then exact FPS), with a stated guarantee | [`fps_approx()`] |
//! | [`voxelize`] | points → dense occupancy voxels in the project's y-up volume layout | [`voxelize_points`] |
//! | [`compat`] | pyworldgen 0.1.8's point functions reproduced: same points, normals, FPS indices, grids and files for the same seed | [`compat::sample_mesh_surface`], [`compat::farthest_point_sampling`], [`compat::points_to_occupancy`], [`compat::write_ply`] |
//! | [`numpy_rng`] | re-export of [`bozkir_core::numpy_rng`]: numpy's `default_rng(seed)` bit for bit (`SeedSequence` → PCG64 → `Generator`: `random`, weighted `choice`, `integers`, normals) and its pairwise sum | [`numpy_rng::Generator`] |
//! | [`splat`] | one flat Gaussian per point (scale from the k-NN spacing, thin axis on the normal) and the standard 3DGS binary PLY | [`splats_from_cloud`], [`checked_splat_ply`] |
//!
//! Pure library: no files, no clock, no printing. Coordinates are
//! `f64` (normals and splat records `f32`). Randomness comes from the counter-based
//! [`bozkir_core::rng::Rng`] seeded by the caller's `u64` seed (low word the seed, high word the
//! stream), drawn per sample or per cell, so every result is deterministic and bit for bit the
//! same on any number of threads ([`compat`] draws numpy's `default_rng` instead, through
//! [`numpy_rng`], to match pyworldgen). Every function refuses bad input (empty or degenerate
//! surfaces, NaN coordinates, counts of 0 or past the documented caps) with a [`PointsError`]
//! naming the value, and never panics on it.
//!
//! ```
//! use bozkir_points::{fps_exact, heightfield_points, sample_surface, voxelize_points};
//!
//! // A 2 × 2 m square as two triangles, 1000 points on it.
//! let square = vec![
//!     [[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [2.0, 2.0, 0.0]],
//!     [[0.0, 0.0, 0.0], [2.0, 2.0, 0.0], [0.0, 2.0, 0.0]],
//! ];
//! let cloud = sample_surface(&square, 1000, 7)?;
//! assert_eq!(cloud.normals[0], [0.0, 0.0, 1.0]);
//! // The 4 farthest-spread of them, then their voxels.
//! let picks = fps_exact(&cloud.positions, 4, 0)?;
//! let occ = voxelize_points(&cloud.positions, 1.0, Some([0.0; 3]))?;
//! assert_eq!((picks.len(), occ.dims, occ.occupied()), (4, [2, 2, 1], 4));
//! // A 3 × 3 height field (y up), 100 points.
//! let h = [0.0, 1.0, 0.0, 1.0, 2.0, 1.0, 0.0, 1.0, 0.0];
//! assert_eq!(heightfield_points(&h, 3, 3, 1.0, 1.0, 100, 1)?.len(), 100);
//! # Ok::<(), bozkir_points::PointsError>(())
//! ```
#![warn(missing_docs)]

pub mod cloud;
pub mod compat;
pub mod error;
pub mod fps;
pub mod fps_approx;
pub mod heightfield;
/// numpy's `default_rng(seed)` bit for bit: the workspace's one port, in `bozkir-core`
/// ([`bozkir_core::numpy_rng`]), re-exported here for [`compat`] and its users.
pub use bozkir_core::numpy_rng;
pub mod sample;
pub mod splat;
pub mod voxelize;

pub use cloud::PointCloud;
pub use error::{PointsError, Result};
pub use fps::{cover_radius, fps_exact, fps_naive, min_spacing};
pub use fps_approx::{fps_approx, ApproxFps};
pub use heightfield::{heightfield_points, HeightField};
pub use sample::{sample_surface, triangle_area, IndexedTriangles, Surface, MAX_SAMPLES};
pub use splat::{
    checked_splat_ply, encode_splat_ply, normal_to_rotation, splats_from_cloud, splats_from_cloud_coloured,
    srgb_to_sh_dc, write_splat_ply_to, Splat, SplatStyle,
};
pub use voxelize::{voxelize_points, Occupancy};

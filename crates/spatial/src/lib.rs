//! Spatial structures of bozkir (issue 22, item 2): the one home of the vectors, boxes, rays,
//! trees, grids and graphs that the generators query, so that no algorithm crate depends on
//! another's private copy (the k-d tree moved here from `splat`'s capture screening).
//!
//! Pure: values in, values out; no IO, clock, threads or printing; no other bozkir crate.
//! Coordinates are `f64` (the k-d tree also indexes `f32` points, the splat layer's centres);
//! boxes are closed. Every structure refuses NaN coordinates and absurd sizes with a
//! [`SpatialError`] (caps in each module's doc) and breaks ties deterministically, by index or
//! id, whatever the insertion order (each module's doc says how).
//!
//! | module | structure | queries | used by / meant for |
//! |---|---|---|---|
//! | [`geom`] | `Vec3`, `Vec2`, `Aabb3`, `Aabb2`, `Ray`; slab and Möller–Trumbore tests | — | every module; meshing and ray picking |
//! | [`kdtree`] | balanced k-d tree over borrowed `[T; D]` points | nearest, k-nearest, radius | `splat` capture screening and preparation (k-NN spacing, floaters); point-cloud spacing; forest attractors |
//! | [`hash_grid`] | spatial hash grid of `u64` ids | radius, box | world entities bucketed by chunk (cell = chunk size); Poisson-disc and placement neighbour checks |
//! | [`bvh`] | binned-SAH BVH over boxes or triangles | closest hit, any hit, box overlap | ray casts against meshes (line of sight, picking, occlusion) |
//! | [`quadtree`] | PR quadtree of 2-D points | box range, nearest | scattering over uneven 2-D density (settlements, vegetation on the plan) |
//! | [`octree`] | PR octree of 3-D points | box range, nearest | sparse 3-D scenes (caves, floating islands) |
//! | [`graph`] | weighted digraph | Dijkstra (distances + paths), A* | road and navigation networks, forest tree graphs (paths from the root) |
//! | [`rtree`] | static R-tree of boxes, STR bulk load | box overlap, nearest, k-nearest | static footprints (buildings, plots, road segments' boxes) |
//!
//! [`region_tree`] holds the parameters shared by the quadtree and the octree. The voxel DDA
//! (ray through a voxel grid) lives in `bozkir-voxel`, not here. The world crate's roads
//! grading keeps its own pyworldgen-compatible 2-D tree (`world::roads::grade`), whose tie
//! order is pyworldgen's.
//!
//! ```
//! use bozkir_spatial::{vec3, Aabb3, Ray, TriangleBvh, BvhParams, HashGrid};
//!
//! // One triangle at z = 1 and a ray straight up through it.
//! let tri = [vec3(0.0, 0.0, 1.0), vec3(1.0, 0.0, 1.0), vec3(0.0, 1.0, 1.0)];
//! let bvh = TriangleBvh::build(&[tri], &BvhParams::default())?;
//! let ray = Ray::new(vec3(0.2, 0.2, 0.0), vec3(0.0, 0.0, 1.0))?;
//! assert_eq!(bvh.closest_hit(&ray, 0.0, f64::INFINITY).map(|h| (h.t, h.prim)), Some((1.0, 0)));
//!
//! // Points in a hash grid, found by radius (ids come back sorted).
//! let mut grid = HashGrid::new(2.0)?;
//! grid.insert(7, vec3(0.5, 0.0, 0.0))?;
//! grid.insert(3, vec3(-0.5, 0.0, 0.0))?;
//! grid.insert(9, vec3(5.0, 0.0, 0.0))?;
//! assert_eq!(grid.query_radius(vec3(0.0, 0.0, 0.0), 1.0)?, vec![3, 7]);
//! assert!(Aabb3::new(vec3(0.0, f64::NAN, 0.0), vec3(1.0, 1.0, 1.0)).is_err());
//! # Ok::<(), bozkir_spatial::SpatialError>(())
//! ```
#![warn(missing_docs)]

pub mod bvh;
pub mod error;
pub mod geom;
pub mod graph;
pub mod hash_grid;
pub mod kdtree;
pub mod octree;
pub mod quadtree;
pub mod region_tree;
pub mod rtree;

pub use bvh::{Bvh, BvhHit, BvhParams, TriangleBvh};
pub use error::{Result, SpatialError};
pub use geom::{ray_aabb, ray_triangle, vec2, vec3, Aabb2, Aabb3, Ray, TriHit, Vec2, Vec3};
pub use graph::{Graph, ShortestPaths};
pub use hash_grid::HashGrid;
pub use kdtree::KdTree;
pub use octree::Octree;
pub use quadtree::Quadtree;
pub use region_tree::RegionTreeParams;
pub use rtree::{RTree, RTreeParams};

//! Spatial structures of bozkir (issue 22): under construction.
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
pub use geom::{vec2, vec3, Aabb2, Aabb3, Ray, TriHit, Vec2, Vec3};
pub use graph::{Graph, ShortestPaths};
pub use hash_grid::HashGrid;
pub use kdtree::KdTree;
pub use octree::Octree;
pub use quadtree::Quadtree;
pub use region_tree::RegionTreeParams;
pub use rtree::{RTree, RTreeParams};

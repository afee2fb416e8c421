//! Points → occupancy voxels: a dense grid of cubes of side `voxel_size`, 1 where at least one
//! point falls, 0 elsewhere.
//!
//! # Conventions
//!
//! Voxel `(x, y, z)` is the half-open cube `origin + [x, x+1)·s × [y, y+1)·s × [z, z+1)·s`
//! (`s` = `voxel_size`); a point goes to `⌊(p − origin)/s⌋` per axis, so a point on a shared
//! face belongs to the voxel above it. The grid's `dims` are the smallest that hold every point:
//! `⌊(max − origin)/s⌋ + 1` per axis. Without an origin, the grid starts at
//! `⌊min/s⌋·s` per axis (a multiple of `s`, so clouds voxelized separately share one lattice).
//!
//! Layout: `cells[x + nx·(z + nz·y)]`, the project's volume layout (y up: x fastest, then z,
//! then y), so [`Occupancy::cells`] feeds `bozkir_mesh::dense::Occupancy::new(dims, cells,
//! DenseLayout::YUp)` directly.
//!
//! # Errors
//!
//! No points; a non-finite point (named); `voxel_size` not finite and positive; an origin that
//! is not finite or lies above a point on some axis (the point is named); a grid past
//! [`MAX_AXIS`] on an axis or [`MAX_VOXELS`] in all (the dims are named) — checked before
//! anything is allocated.

use crate::cloud::bounds;
use crate::error::{check_finite_points, PointsError, Result};
use rayon::prelude::*;

/// Most voxels along one axis.
pub const MAX_AXIS: usize = 1 << 14;

/// Most voxels in one grid (2²⁸: 256 MiB of cells).
pub const MAX_VOXELS: usize = 1 << 28;

/// A dense occupancy grid (see the module doc for the layout).
#[derive(Debug, Clone, PartialEq)]
pub struct Occupancy {
    /// Voxels along x, y, z.
    pub dims: [usize; 3],
    /// Corner of voxel `(0, 0, 0)`.
    pub origin: [f64; 3],
    /// Side of a voxel.
    pub voxel_size: f64,
    /// 1 for an occupied voxel, 0 for an empty one, at `x + nx·(z + nz·y)`.
    pub cells: Vec<u8>,
}

impl Occupancy {
    /// Linear index of voxel `(x, y, z)`.
    #[inline]
    pub fn index(&self, x: usize, y: usize, z: usize) -> usize {
        x + self.dims[0] * (z + self.dims[2] * y)
    }

    /// Whether voxel `(x, y, z)` is occupied (`false` outside the grid).
    pub fn get(&self, x: usize, y: usize, z: usize) -> bool {
        x < self.dims[0] && y < self.dims[1] && z < self.dims[2] && self.cells[self.index(x, y, z)] != 0
    }

    /// Number of occupied voxels.
    pub fn occupied(&self) -> usize {
        self.cells.iter().filter(|&&c| c != 0).count()
    }

    /// Centres of the occupied voxels, in layout order (y, then z, then x).
    pub fn centres(&self) -> Vec<[f64; 3]> {
        let [nx, _, nz] = self.dims;
        let s = self.voxel_size;
        self.cells
            .iter()
            .enumerate()
            .filter(|(_, &c)| c != 0)
            .map(|(i, _)| {
                let (x, z, y) = (i % nx, (i / nx) % nz, i / (nx * nz));
                [
                    self.origin[0] + (x as f64 + 0.5) * s,
                    self.origin[1] + (y as f64 + 0.5) * s,
                    self.origin[2] + (z as f64 + 0.5) * s,
                ]
            })
            .collect()
    }
}

/// The occupancy grid of `points` with voxels of side `voxel_size`, its corner at `origin`
/// (or on the lattice of multiples of `voxel_size` below the points when `None`); see the
/// module doc.
pub fn voxelize_points(points: &[[f64; 3]], voxel_size: f64, origin: Option<[f64; 3]>) -> Result<Occupancy> {
    const WHAT: &str = "voxelize_points";
    if points.is_empty() {
        return Err(PointsError::Empty { what: WHAT, detail: "no points" });
    }
    check_finite_points(WHAT, points)?;
    if !(voxel_size.is_finite() && voxel_size > 0.0) {
        return Err(PointsError::param(WHAT, "voxel_size", voxel_size, "finite and > 0"));
    }
    let (lo, hi) = bounds(points);
    let origin = match origin {
        Some(o) => {
            for a in 0..3 {
                if !o[a].is_finite() {
                    return Err(PointsError::param(WHAT, "origin", o[a], "finite"));
                }
                if lo[a] < o[a] {
                    let i = points.iter().position(|p| p[a] < o[a]).unwrap_or(0);
                    return Err(PointsError::param(
                        WHAT,
                        "point coordinate",
                        points[i][a],
                        format!("point {i} lies below the origin {} on axis {a}", o[a]),
                    ));
                }
            }
            o
        }
        None => lo.map(|v| (v / voxel_size).floor() * voxel_size),
    };
    let cell = |p: &[f64; 3], a: usize| ((p[a] - origin[a]) / voxel_size).floor();
    let mut dims = [0usize; 3];
    for a in 0..3 {
        let top = ((hi[a] - origin[a]) / voxel_size).floor();
        // `top` may exceed the cap by any amount (or, rounding, be −0 for a point just at the
        // origin); compare as f64 before converting.
        if top.partial_cmp(&(MAX_AXIS as f64)) != Some(std::cmp::Ordering::Less) {
            return Err(PointsError::param(
                WHAT,
                "voxels along an axis",
                top + 1.0,
                format!("at most {MAX_AXIS} (axis {a}: extent {} at voxel size {voxel_size})", hi[a] - origin[a]),
            ));
        }
        dims[a] = top.max(0.0) as usize + 1;
    }
    let total = dims[0] * dims[1] * dims[2];
    if total > MAX_VOXELS {
        return Err(PointsError::param(WHAT, "voxels", total as f64, format!("at most {MAX_VOXELS} (dims {dims:?})")));
    }
    let index: Vec<usize> = points
        .par_iter()
        .map(|p| {
            let c = [0, 1, 2].map(|a| (cell(p, a).max(0.0) as usize).min(dims[a] - 1));
            c[0] + dims[0] * (c[2] + dims[2] * c[1])
        })
        .collect();
    let mut cells = vec![0u8; total];
    for i in index {
        cells[i] = 1;
    }
    Ok(Occupancy { dims, origin, voxel_size, cells })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bozkir_core::rng::Rng;
    use bozkir_mesh::dense::{dense_mesh, DenseLayout, DenseParams, Occupancy as MeshOccupancy};

    #[test]
    fn round_trip_on_a_grid() {
        // A random occupancy, its centres, voxelized again on the same lattice: the same grid.
        let dims = [7usize, 5, 9];
        let mut r = Rng::new(4);
        let mut cells: Vec<u8> = (0..dims.iter().product()).map(|_| u8::from(r.chance(0.3))).collect();
        // Occupy two opposite corners so the dims are the whole box.
        cells[0] = 1;
        *cells.last_mut().unwrap() = 1;
        let g = Occupancy { dims, origin: [-2.0, 10.0, 0.5], voxel_size: 0.5, cells };
        let pts = g.centres();
        assert_eq!(pts.len(), g.occupied());
        let back = voxelize_points(&pts, 0.5, Some(g.origin)).unwrap();
        assert_eq!(back, g);
        // Without an origin: the lattice of multiples of 0.5 below the points is the same one.
        assert_eq!(voxelize_points(&pts, 0.5, None).unwrap(), g);
        // Points anywhere inside the voxels, not only at centres, land in the same voxels.
        let jittered: Vec<[f64; 3]> = pts.iter().map(|p| p.map(|v| v + r.range(-0.2499, 0.2499))).collect();
        assert_eq!(voxelize_points(&jittered, 0.5, Some(g.origin)).unwrap(), g);
    }

    #[test]
    fn faces_belong_to_the_voxel_above_and_layout_is_y_up() {
        let g = voxelize_points(&[[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]], 1.0, Some([0.0; 3])).unwrap();
        assert_eq!(g.dims, [2, 3, 4]);
        assert!(g.get(0, 0, 0) && g.get(1, 2, 3));
        assert_eq!(g.index(1, 2, 3), 1 + 2 * (3 + 4 * 2));
        assert_eq!(g.occupied(), 2);
        assert!(!g.get(2, 0, 0));
    }

    #[test]
    fn feeds_the_dense_mesher() {
        // A 2 × 1 × 1 bar of occupied voxels meshes to a closed box of 10 unit faces.
        let g = voxelize_points(&[[0.5, 0.5, 0.5], [1.5, 0.5, 0.5]], 1.0, Some([0.0; 3])).unwrap();
        let occ = MeshOccupancy::new(g.dims, &g.cells, DenseLayout::YUp).unwrap();
        let m = dense_mesh(&occ, &DenseParams::default()).unwrap();
        let area: f64 = m
            .indices
            .chunks_exact(3)
            .map(|t| {
                let c = [0, 1, 2].map(|k| m.positions[t[k] as usize].map(f64::from));
                crate::sample::triangle_area(&c)
            })
            .sum();
        assert!((area - 10.0).abs() < 1e-9, "area {area}");
    }

    #[test]
    fn bad_input_is_refused_with_the_value() {
        let err = |r: Result<Occupancy>| r.unwrap_err().to_string();
        let pts = [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]];
        assert!(err(voxelize_points(&[], 1.0, None)).contains("no points"));
        assert!(err(voxelize_points(&pts, 0.0, None)).contains("voxel_size = 0"));
        assert!(err(voxelize_points(&pts, -1.0, None)).contains("voxel_size = -1"));
        assert!(err(voxelize_points(&pts, f64::NAN, None)).contains("voxel_size = NaN"));
        assert!(err(voxelize_points(&[[0.0, f64::INFINITY, 0.0]], 1.0, None)).contains("point 0 is not finite (inf)"));
        let e = err(voxelize_points(&pts, 1.0, Some([0.5, 0.0, 0.0])));
        assert!(e.contains("point 0 lies below the origin 0.5 on axis 0"), "{e}");
        assert!(err(voxelize_points(&pts, 1.0, Some([f64::NAN, 0.0, 0.0]))).contains("origin = NaN"));
        let e = err(voxelize_points(&[[0.0; 3], [1e6, 0.0, 0.0]], 1.0, None));
        assert!(e.contains("voxels along an axis = 1000001"), "{e}");
        let e = err(voxelize_points(&[[0.0; 3], [1e3, 1e3, 1e3]], 1.0, None));
        assert!(e.contains("voxels = 1003003001") && e.contains("[1001, 1001, 1001]"), "{e}");
        let e = err(voxelize_points(&[[0.0; 3], [1.0, 0.0, 0.0]], 1e-300, None));
        assert!(e.contains("voxels along an axis"), "{e}");
    }
}

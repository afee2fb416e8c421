//! Voxel traversal of a segment: Amanatides & Woo (1987), "A fast voxel traversal algorithm for
//! ray tracing", Eurographics '87 (the algorithm of pyworldgen 0.1.8's `spatial/dda.py`).
//!
//! Given an origin, a direction and a length, [`VoxelWalk`] yields, in order, every unit cell the
//! segment passes through, each with the distance along the segment at which it is entered and
//! the outward normal of the face it is entered through.
//!
//! Conventions. Cell `(x, y, z)` is the cube `[x, x+1) × [y, y+1) × [z, z+1)` (block
//! coordinates; y up). The direction is normalised, so distances are in blocks. The first cell
//! is the one holding the origin (`floor` on each axis), entered at distance 0 with normal
//! `[0, 0, 0]`; every later cell shares a face with the one before (one axis changes by ±1)
//! and its normal is minus that step (it points back at the cell the walk came from). Cells are
//! yielded while their entry distance is `<= max_distance`.
//!
//! Ties. When the segment leaves a cell through an edge or a corner (two or three axes reach
//! their next boundary at the same distance), the walk steps one axis at a time, z first, then
//! y, then x (pyworldgen's rule), yielding the in-between cells with the same entry distance
//! (they are touched, not crossed). An origin exactly on a boundary belongs to the cell on the
//! positive side; with a negative direction along that axis, the next cell is entered at
//! distance 0. The walk ends early if a cell coordinate would leave `i32`.
//!
//! Determinism: plain `f64` arithmetic in a fixed order; same inputs, same cells.

use crate::coords::BlockPos;
use crate::error::{Result, VoxelError};

/// One cell of a walk.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VoxelStep {
    /// The cell.
    pub cell: BlockPos,
    /// Distance along the (normalised) direction at which the segment enters it.
    pub distance: f64,
    /// Outward normal of the entry face (`[0, 0, 0]` for the first cell).
    pub normal: [i32; 3],
}

/// The cells a segment crosses, in order (see the module doc). An iterator of [`VoxelStep`].
#[derive(Debug, Clone)]
pub struct VoxelWalk {
    cell: [i32; 3],
    step: [i32; 3],
    t_max: [f64; 3],
    t_delta: [f64; 3],
    max_distance: f64,
    next: Option<(f64, [i32; 3])>,
}

/// Largest magnitude accepted for an origin coordinate (so that its floor is an `i32`).
pub const MAX_COORD: f64 = 2_147_483_000.0;

impl VoxelWalk {
    /// The walk from `origin` along `direction` (any length but zero; it is normalised) for
    /// `max_distance` blocks. Errors: non-finite or out-of-range origin (|coordinate| <=
    /// [`MAX_COORD`]), zero or non-finite direction, negative or non-finite distance.
    pub fn new(origin: [f64; 3], direction: [f64; 3], max_distance: f64) -> Result<VoxelWalk> {
        if origin.iter().any(|v| !v.is_finite() || v.abs() > MAX_COORD) {
            return Err(VoxelError::Param {
                name: "origin",
                value: format!("{origin:?}"),
                allowed: "finite, each |coordinate| <= 2147483000",
            });
        }
        let len = (direction[0] * direction[0] + direction[1] * direction[1] + direction[2] * direction[2]).sqrt();
        if !len.is_finite() || len == 0.0 {
            return Err(VoxelError::Param {
                name: "direction",
                value: format!("{direction:?}"),
                allowed: "finite and not zero",
            });
        }
        if !max_distance.is_finite() || max_distance < 0.0 {
            return Err(VoxelError::Param {
                name: "max_distance",
                value: max_distance.to_string(),
                allowed: "finite and >= 0",
            });
        }
        let mut cell = [0i32; 3];
        let mut step = [0i32; 3];
        let mut t_max = [f64::INFINITY; 3];
        let mut t_delta = [f64::INFINITY; 3];
        for a in 0..3 {
            let (o, d) = (origin[a], direction[a] / len);
            let f = o.floor();
            cell[a] = f as i32;
            if d > 0.0 {
                step[a] = 1;
                t_max[a] = (f + 1.0 - o) / d;
                t_delta[a] = 1.0 / d;
            } else if d < 0.0 {
                step[a] = -1;
                t_max[a] = (o - f) / -d;
                t_delta[a] = -1.0 / d;
            }
        }
        Ok(VoxelWalk { cell, step, t_max, t_delta, max_distance, next: Some((0.0, [0; 3])) })
    }
}

impl Iterator for VoxelWalk {
    type Item = VoxelStep;

    fn next(&mut self) -> Option<VoxelStep> {
        let (distance, normal) = self.next.take()?;
        let out = VoxelStep { cell: BlockPos::new(self.cell[0], self.cell[1], self.cell[2]), distance, normal };
        // Axis of the next boundary: least t_max, ties to z, then y, then x.
        let [tx, ty, tz] = self.t_max;
        let a = if tx < ty {
            if tx < tz {
                0
            } else {
                2
            }
        } else if ty < tz {
            1
        } else {
            2
        };
        let t = self.t_max[a];
        if t <= self.max_distance {
            if let Some(c) = self.cell[a].checked_add(self.step[a]) {
                self.cell[a] = c;
                self.t_max[a] += self.t_delta[a];
                let mut n = [0; 3];
                n[a] = -self.step[a];
                self.next = Some((t, n));
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Exact interval `[t0, t1]` of the ray inside cell `c`, and the axis achieving `t0`.
    fn slab(o: [f64; 3], d: [f64; 3], c: [i32; 3]) -> (f64, f64, usize) {
        let (mut t0, mut t1, mut ax) = (f64::NEG_INFINITY, f64::INFINITY, 3);
        for a in 0..3 {
            let (lo, hi) = (c[a] as f64, c[a] as f64 + 1.0);
            if d[a] == 0.0 {
                if o[a] < lo || o[a] >= hi {
                    return (1.0, 0.0, 3);
                }
            } else {
                let (mut e, mut x) = ((lo - o[a]) / d[a], (hi - o[a]) / d[a]);
                if e > x {
                    std::mem::swap(&mut e, &mut x);
                }
                if e > t0 {
                    t0 = e;
                    ax = a;
                }
                t1 = t1.min(x);
            }
        }
        (t0, t1, ax)
    }

    fn norm(d: [f64; 3]) -> [f64; 3] {
        let l = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        [d[0] / l, d[1] / l, d[2] / l]
    }

    #[test]
    fn axis_and_negative_rays() {
        let w: Vec<VoxelStep> = VoxelWalk::new([0.5, 0.5, 0.5], [-1.0, 0.0, 0.0], 2.6).unwrap().collect();
        let cells: Vec<i32> = w.iter().map(|s| s.cell.x).collect();
        assert_eq!(cells, vec![0, -1, -2, -3]);
        assert_eq!(w[1].distance, 0.5);
        assert_eq!(w[1].normal, [1, 0, 0]);
        assert_eq!(w[3].distance, 2.5);
        // exact diagonal through a corner: z, then y, then x at the same distance
        let w: Vec<VoxelStep> = VoxelWalk::new([0.5, 0.5, 0.5], [1.0, 1.0, 1.0], 0.9).unwrap().collect();
        let cells: Vec<[i32; 3]> = w.iter().map(|s| [s.cell.x, s.cell.y, s.cell.z]).collect();
        assert_eq!(cells, vec![[0, 0, 0], [0, 0, 1], [0, 1, 1], [1, 1, 1]]);
        assert!(w[1..].iter().all(|s| (s.distance - 0.5 * 3f64.sqrt()).abs() < 1e-12));
        // origin on a boundary, negative direction: next cell at distance 0
        let w: Vec<VoxelStep> = VoxelWalk::new([3.0, 0.5, 0.5], [-1.0, 0.0, 0.0], 0.5).unwrap().collect();
        assert_eq!(w[0].cell.x, 3);
        assert_eq!((w[1].cell.x, w[1].distance), (2, 0.0));
        assert_eq!(w.len(), 2);
        assert!(VoxelWalk::new([0.0; 3], [0.0; 3], 1.0).is_err());
        assert!(VoxelWalk::new([f64::NAN, 0.0, 0.0], [1.0, 0.0, 0.0], 1.0).is_err());
        assert!(VoxelWalk::new([0.0; 3], [1.0, 0.0, 0.0], -1.0).is_err());
        assert!(VoxelWalk::new([0.0; 3], [1.0, 0.0, 0.0], f64::INFINITY).is_err());
        // stops at the i32 edge instead of wrapping
        let n = VoxelWalk::new([2147482999.5, 0.5, 0.5], [1.0, 0.0, 0.0], 1000.0).unwrap().count();
        assert_eq!(n, (i32::MAX as i64 - 2147482999 + 1) as usize);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// Against brute force: every cell whose exact slab interval overlaps the segment with
        /// positive length is visited, in order of entry, with the right entry distance and face;
        /// cells visited that the segment only touches (edge/corner ties) have a zero-length
        /// overlap. Fine stepping along the segment meets the cells in the same order.
        #[test]
        fn matches_brute_force(o in proptest::array::uniform3(-20.0f64..20.0), d in proptest::array::uniform3(-1.0f64..1.0), len in 0.0f64..12.0) {
            prop_assume!(d.iter().map(|v| v * v).sum::<f64>() > 1e-6);
            let walk: Vec<VoxelStep> = VoxelWalk::new(o, d, len).unwrap().collect();
            let dn = norm(d);
            let eps = 1e-9;
            // brute-force crossing set
            let lo: Vec<i32> = (0..3).map(|a| (o[a].min(o[a] + dn[a] * len)).floor() as i32 - 1).collect();
            let hi: Vec<i32> = (0..3).map(|a| (o[a].max(o[a] + dn[a] * len)).floor() as i32 + 1).collect();
            let mut crossed = Vec::new();
            for x in lo[0]..=hi[0] { for y in lo[1]..=hi[1] { for z in lo[2]..=hi[2] {
                let (t0, t1, _) = slab(o, dn, [x, y, z]);
                let (a, b) = (t0.max(0.0), t1.min(len));
                if b - a > eps { crossed.push(([x, y, z], a)); }
            }}}
            crossed.sort_by(|p, q| p.1.total_cmp(&q.1));
            let visited: Vec<[i32; 3]> = walk.iter().map(|s| [s.cell.x, s.cell.y, s.cell.z]).collect();
            // each crossed cell visited, in the same order
            let mut k = 0;
            for (c, t) in &crossed {
                let pos = visited[k..].iter().position(|v| v == c);
                prop_assert!(pos.is_some(), "cell {:?} (entry {}) missing from {:?}", c, t, visited);
                k += pos.unwrap() + 1;
            }
            for (i, s) in walk.iter().enumerate() {
                let c = [s.cell.x, s.cell.y, s.cell.z];
                let (t0, t1, ax) = slab(o, dn, c);
                prop_assert!(s.distance <= len + eps);
                if i == 0 {
                    prop_assert_eq!(s.normal, [0, 0, 0]);
                    continue;
                }
                // adjacent, entry distance exact, normal along the entering axis
                let p = walk[i - 1].cell;
                let dd = (c[0] - p.x).abs() + (c[1] - p.y).abs() + (c[2] - p.z).abs();
                prop_assert_eq!(dd, 1);
                prop_assert!((s.distance - t0.max(0.0)).abs() < 1e-7, "entry {} vs slab {}", s.distance, t0);
                prop_assert!(s.distance >= walk[i - 1].distance);
                let touched_only = t1.min(len) - s.distance <= 1e-7;
                if !touched_only {
                    prop_assert!(ax < 3);
                    let mut n = [0; 3];
                    n[ax] = if dn[ax] > 0.0 { -1 } else { 1 };
                    prop_assert_eq!(s.normal, n);
                }
            }
            // fine stepping: distinct cells met along the segment appear in the walk in order
            let steps = 2000;
            let mut k = 0;
            let mut last = None;
            for j in 0..=steps {
                let t = len * j as f64 / steps as f64;
                let c = [(o[0] + dn[0] * t).floor() as i32, (o[1] + dn[1] * t).floor() as i32, (o[2] + dn[2] * t).floor() as i32];
                if last != Some(c) {
                    last = Some(c);
                    let pos = visited[k..].iter().position(|v| *v == c);
                    prop_assert!(pos.is_some(), "fine step cell {:?} at {} not in order in {:?}", c, t, visited);
                    k += pos.unwrap();
                }
            }
        }
    }
}

//! Spatial hash grid over points (Teschner et al. 2003, "Optimized spatial hashing for
//! collision detection of deformable objects", without the fixed-size table): space is cut
//! into cubes of side `cell`; cell `(i, j, k) = (⌊x/cell⌋, ⌊y/cell⌋, ⌊z/cell⌋)` holds the ids
//! of the points inside it. Insert, move and remove are O(1); a query visits the cells its
//! box overlaps (or, when that is more cells than are occupied, scans the occupied cells).
//!
//! Conventions: 3-D `f64` points, caller-chosen `u64` ids (unique within a grid). Queries are
//! closed: a point at exactly the radius, or on the query box's face, is returned.
//! Determinism: every query result is sorted by id (the cell table is a `HashMap`, but its
//! order never reaches an output).
//!
//! Caps: at most [`MAX_POINTS`] points; a point's cell index must fit in ±2^52 (so
//! `|x| / cell < 2^52`), refused otherwise; `cell` finite and > 0.

use crate::error::{Result, SpatialError};
use crate::geom::{Aabb3, Vec3};
use std::collections::{BTreeMap, HashMap};

/// Most points one grid holds.
pub const MAX_POINTS: usize = 1 << 30;
const MAX_CELL_INDEX: f64 = (1u64 << 52) as f64;

/// A spatial hash grid of points keyed by `u64` ids.
#[derive(Debug, Clone)]
pub struct HashGrid {
    cell: f64,
    /// Each occupied cell's points, as (id, point), in no particular order.
    cells: HashMap<[i64; 3], Vec<(u64, Vec3)>>,
    points: BTreeMap<u64, Vec3>,
}

impl HashGrid {
    /// An empty grid with cubic cells of side `cell` (finite, > 0; same unit as the points).
    pub fn new(cell: f64) -> Result<HashGrid> {
        if !(cell.is_finite() && cell > 0.0) {
            return Err(SpatialError::Param { what: "HashGrid", name: "cell", value: cell, range: "finite, > 0" });
        }
        Ok(HashGrid { cell, cells: HashMap::new(), points: BTreeMap::new() })
    }

    /// The cell side.
    pub fn cell_size(&self) -> f64 {
        self.cell
    }

    /// Number of points held.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Whether the grid is empty.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// Number of occupied cells.
    pub fn occupied_cells(&self) -> usize {
        self.cells.len()
    }

    /// The point of `id`, if held.
    pub fn get(&self, id: u64) -> Option<Vec3> {
        self.points.get(&id).copied()
    }

    /// The cell holding `p`; refuses a non-finite point and one beyond the index range.
    pub fn cell_of(&self, p: Vec3) -> Result<[i64; 3]> {
        if !p.is_finite() {
            return Err(SpatialError::NonFinite { what: "HashGrid", index: 0 });
        }
        let mut c = [0i64; 3];
        for a in 0..3 {
            let f = (p[a] / self.cell).floor();
            if f.abs() >= MAX_CELL_INDEX {
                return Err(SpatialError::Param {
                    what: "HashGrid",
                    name: "coordinate / cell",
                    value: f,
                    range: "|x / cell| < 2^52",
                });
            }
            c[a] = f as i64;
        }
        Ok(c)
    }

    /// Add point `p` under `id`; refuses a duplicate id, a non-finite point and a full grid.
    pub fn insert(&mut self, id: u64, p: Vec3) -> Result<()> {
        if self.points.contains_key(&id) {
            return Err(SpatialError::DuplicateId { what: "HashGrid", id });
        }
        if self.points.len() >= MAX_POINTS {
            return Err(SpatialError::TooMany { what: "HashGrid", count: self.points.len() + 1, cap: MAX_POINTS });
        }
        let c = self.cell_of(p)?;
        self.cells.entry(c).or_default().push((id, p));
        self.points.insert(id, p);
        Ok(())
    }

    /// Remove `id`, returning its point; refuses an unknown id.
    pub fn remove(&mut self, id: u64) -> Result<Vec3> {
        let p = self.points.remove(&id).ok_or(SpatialError::UnknownId { what: "HashGrid", id })?;
        let c = self.cell_of(p).expect("stored points are valid");
        if let Some(v) = self.cells.get_mut(&c) {
            if let Some(at) = v.iter().position(|e| e.0 == id) {
                v.swap_remove(at);
            }
            if v.is_empty() {
                self.cells.remove(&c);
            }
        }
        Ok(p)
    }

    /// Move `id` to `p` (remove then insert; on error the grid is unchanged).
    pub fn update(&mut self, id: u64, p: Vec3) -> Result<()> {
        self.cell_of(p)?;
        self.remove(id)?;
        self.insert(id, p)
    }

    /// Ids of the points inside the closed box `b`, sorted. Refuses NaN bounds (infinite
    /// bounds are fine).
    pub fn query_aabb(&self, b: &Aabb3) -> Result<Vec<u64>> {
        if b.min.has_nan() || b.max.has_nan() {
            return Err(SpatialError::NanQuery { what: "HashGrid::query_aabb" });
        }
        Ok(self.collect(b, |p| b.contains(p)))
    }

    /// Ids of the points within distance `r` of `c` (closed ball), sorted. Refuses a NaN
    /// centre and a NaN or negative radius.
    pub fn query_radius(&self, c: Vec3, r: f64) -> Result<Vec<u64>> {
        if c.has_nan() || r.is_nan() || r < 0.0 {
            return Err(SpatialError::NanQuery { what: "HashGrid::query_radius" });
        }
        if !c.is_finite() {
            return Ok(Vec::new());
        }
        // The cell range is padded by a hair (1e-12 of the coordinates' scale) so that a point
        // that passes the rounded distance test is never in a cell outside it.
        let pad = r + (c.x.abs().max(c.y.abs()).max(c.z.abs()) + r) * 1e-12;
        let rv = Vec3::new(pad, pad, pad);
        let b = Aabb3 { min: c - rv, max: c + rv };
        let r2 = r * r;
        Ok(self.collect(&b, |p| p.distance_sq(c) <= r2))
    }

    /// Ids (sorted) of the points in the cells overlapping `b` that pass `keep`.
    fn collect(&self, b: &Aabb3, keep: impl Fn(Vec3) -> bool) -> Vec<u64> {
        if b.is_empty() || self.points.is_empty() {
            return Vec::new();
        }
        // Cell range, clamped to the index range (so infinite bounds are fine).
        let mut lo = [0i64; 3];
        let mut hi = [0i64; 3];
        let mut count = 1f64;
        for a in 0..3 {
            let l = (b.min[a] / self.cell).floor().clamp(-MAX_CELL_INDEX, MAX_CELL_INDEX);
            let h = (b.max[a] / self.cell).floor().clamp(-MAX_CELL_INDEX, MAX_CELL_INDEX);
            lo[a] = l as i64;
            hi[a] = h as i64;
            count *= h - l + 1.0;
        }
        let mut out = Vec::new();
        if count > self.cells.len() as f64 {
            for (&id, &p) in &self.points {
                if keep(p) {
                    out.push(id);
                }
            }
            return out; // BTreeMap order: already sorted.
        }
        for i in lo[0]..=hi[0] {
            for j in lo[1]..=hi[1] {
                for k in lo[2]..=hi[2] {
                    if let Some(v) = self.cells.get(&[i, j, k]) {
                        out.extend(v.iter().filter(|e| keep(e.1)).map(|e| e.0));
                    }
                }
            }
        }
        out.sort_unstable();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::vec3;
    use proptest::prelude::*;

    #[test]
    fn refusals() {
        assert!(HashGrid::new(0.0).is_err());
        assert!(HashGrid::new(f64::NAN).is_err());
        assert!(HashGrid::new(f64::INFINITY).is_err());
        let mut g = HashGrid::new(1.0).unwrap();
        assert!(matches!(g.insert(1, vec3(f64::NAN, 0.0, 0.0)), Err(SpatialError::NonFinite { .. })));
        assert!(g.insert(1, vec3(f64::INFINITY, 0.0, 0.0)).is_err());
        assert!(g.insert(1, vec3(1e300, 0.0, 0.0)).is_err());
        g.insert(1, vec3(0.5, 0.5, 0.5)).unwrap();
        assert_eq!(g.insert(1, vec3(0.0, 0.0, 0.0)), Err(SpatialError::DuplicateId { what: "HashGrid", id: 1 }));
        assert_eq!(g.remove(2), Err(SpatialError::UnknownId { what: "HashGrid", id: 2 }));
        assert!(g.update(1, vec3(f64::NAN, 0.0, 0.0)).is_err());
        assert_eq!(g.get(1), Some(vec3(0.5, 0.5, 0.5)), "a refused update leaves the point");
        assert!(g.query_radius(vec3(0.0, 0.0, 0.0), -1.0).is_err());
        assert!(g.query_radius(vec3(0.0, f64::NAN, 0.0), 1.0).is_err());
        let nan_box = Aabb3 { min: vec3(f64::NAN, 0.0, 0.0), max: vec3(1.0, 1.0, 1.0) };
        assert!(g.query_aabb(&nan_box).is_err());
        let all =
            Aabb3 { min: vec3(-f64::INFINITY, -1e308, f64::NEG_INFINITY), max: vec3(f64::INFINITY, 1e308, 1e308) };
        assert_eq!(g.query_aabb(&all).unwrap(), vec![1]);
        assert_eq!(g.query_radius(vec3(0.0, 0.0, 0.0), f64::INFINITY).unwrap(), vec![1]);
        assert_eq!(g.remove(1), Ok(vec3(0.5, 0.5, 0.5)));
        assert_eq!(g.occupied_cells(), 0);
    }

    #[derive(Debug, Clone)]
    enum Op {
        Insert(u64, [i16; 3]),
        Remove(u64),
        Move(u64, [i16; 3]),
        Radius([i16; 3], u8),
        Boxq([i16; 3], [u8; 3]),
    }

    fn op() -> impl Strategy<Value = Op> {
        let p = prop::array::uniform3(-200i16..200);
        prop_oneof![
            3 => (0u64..40, p.clone()).prop_map(|(i, p)| Op::Insert(i, p)),
            1 => (0u64..40).prop_map(Op::Remove),
            1 => (0u64..40, p.clone()).prop_map(|(i, p)| Op::Move(i, p)),
            2 => (p.clone(), 0u8..120).prop_map(|(p, r)| Op::Radius(p, r)),
            2 => (p, prop::array::uniform3(0u8..200)).prop_map(|(p, e)| Op::Boxq(p, e)),
        ]
    }

    fn pt(p: [i16; 3]) -> Vec3 {
        // Quarter units: lands exactly on cell faces now and then.
        vec3(f64::from(p[0]) * 0.25, f64::from(p[1]) * 0.25, f64::from(p[2]) * 0.25)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// A random sequence of edits and queries agrees with a plain map scanned in full.
        #[test]
        fn matches_brute_force(cell in 0.5f64..8.0, ops in prop::collection::vec(op(), 1..120)) {
            let mut g = HashGrid::new(cell).unwrap();
            let mut model: BTreeMap<u64, Vec3> = BTreeMap::new();
            for o in ops {
                match o {
                    Op::Insert(id, p) => {
                        let r = g.insert(id, pt(p));
                        prop_assert_eq!(r.is_ok(), !model.contains_key(&id));
                        model.entry(id).or_insert(pt(p));
                    }
                    Op::Remove(id) => prop_assert_eq!(g.remove(id).ok(), model.remove(&id)),
                    Op::Move(id, p) => {
                        prop_assert_eq!(g.update(id, pt(p)).is_ok(), model.contains_key(&id));
                        if let Some(v) = model.get_mut(&id) { *v = pt(p); }
                    }
                    Op::Radius(c, r) => {
                        let (c, r) = (pt(c), f64::from(r) * 0.25);
                        let want: Vec<u64> = model.iter().filter(|(_, p)| p.distance_sq(c) <= r * r).map(|(&i, _)| i).collect();
                        prop_assert_eq!(g.query_radius(c, r).unwrap(), want);
                    }
                    Op::Boxq(m, e) => {
                        let min = pt(m);
                        let b = Aabb3 { min, max: min + pt([e[0].into(), e[1].into(), e[2].into()]) };
                        let want: Vec<u64> = model.iter().filter(|(_, p)| b.contains(**p)).map(|(&i, _)| i).collect();
                        prop_assert_eq!(g.query_aabb(&b).unwrap(), want);
                    }
                }
                prop_assert_eq!(g.len(), model.len());
            }
        }
    }
}

//! Point octree over a fixed 3-D region: the PR octree of [`crate::region_tree`] in 3-D
//! (capacity and depth limits, closed range query, nearest neighbour; see that module for the
//! algorithm, the conventions and the tie-breaks). Child order: bit 0 = upper x half, bit 1 =
//! upper y half, bit 2 = upper z half.

use crate::error::Result;
use crate::geom::{Aabb3, Vec3};
use crate::region_tree::RegionTree;
pub use crate::region_tree::{RegionTreeParams, MAX_POINTS};

/// A PR octree of points with `u64` ids.
#[derive(Debug, Clone)]
pub struct Octree(RegionTree<3>);

impl Octree {
    /// An empty tree over `bounds` (finite, min ≤ max); refuses bad parameters.
    pub fn new(bounds: Aabb3, params: RegionTreeParams) -> Result<Octree> {
        RegionTree::new("Octree", bounds.min.to_array(), bounds.max.to_array(), params).map(Octree)
    }
    /// Add point `p` under `id` (ids need not be unique); refuses non-finite points and points
    /// outside the bounds.
    pub fn insert(&mut self, id: u64, p: Vec3) -> Result<()> {
        self.0.insert(id, p.to_array())
    }
    /// Number of points.
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// Whether the tree is empty.
    pub fn is_empty(&self) -> bool {
        self.0.len() == 0
    }
    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.0.node_count()
    }
    /// Deepest level in use (root = 0).
    pub fn depth(&self) -> usize {
        self.0.depth()
    }
    /// Ids of the points inside the closed box `b`, sorted; refuses NaN bounds.
    pub fn query(&self, b: &Aabb3) -> Result<Vec<u64>> {
        self.0.range(b.min.to_array(), b.max.to_array())
    }
    /// The nearest point's id and distance (ties: lowest id); `None` when empty. Refuses NaN.
    pub fn nearest(&self, q: Vec3) -> Result<Option<(u64, f64)>> {
        self.0.nearest(q.to_array())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::SpatialError;
    use crate::geom::vec3;
    use proptest::prelude::*;

    #[test]
    fn refusals_and_splitting() {
        let b = Aabb3::new(vec3(-1.0, -1.0, -1.0), vec3(1.0, 1.0, 1.0)).unwrap();
        let mut t = Octree::new(b, RegionTreeParams { capacity: 1, max_depth: 3 }).unwrap();
        assert!(matches!(t.insert(1, vec3(0.0, f64::NAN, 0.0)), Err(SpatialError::NonFinite { .. })));
        assert!(t.insert(1, vec3(0.0, 0.0, 1.5)).is_err());
        t.insert(1, vec3(-0.5, -0.5, -0.5)).unwrap();
        assert_eq!(t.node_count(), 1);
        t.insert(2, vec3(0.5, 0.5, 0.5)).unwrap();
        assert_eq!(t.node_count(), 9, "one split into eight");
        assert_eq!(t.nearest(vec3(0.0, 0.0, 0.0)).unwrap(), Some((1, 0.75f64.sqrt())), "equidistant: lowest id");
        assert!(t.query(&Aabb3 { min: vec3(0.0, 0.0, f64::NAN), max: Vec3::ZERO }).is_err());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn matches_brute_force(
            pts in prop::collection::vec((0u64..500, prop::array::uniform3(0i32..32)), 0..200),
            q in prop::array::uniform3(-6i32..38), e in prop::array::uniform3(0i32..16),
            cap in 1usize..6, depth in 0usize..7,
        ) {
            let b = Aabb3::new(vec3(0.0, 0.0, 0.0), vec3(8.0, 8.0, 8.0)).unwrap();
            let mut t = Octree::new(b, RegionTreeParams { capacity: cap, max_depth: depth }).unwrap();
            let pt = |p: [i32; 3]| vec3(f64::from(p[0]) * 0.25, f64::from(p[1]) * 0.25, f64::from(p[2]) * 0.25);
            for &(id, p) in &pts { t.insert(id, pt(p)).unwrap(); }
            let qp = pt(q);
            let qb = Aabb3 { min: qp, max: qp + pt(e) };
            let mut want: Vec<u64> = pts.iter().filter(|(_, p)| qb.contains(pt(*p))).map(|&(id, _)| id).collect();
            want.sort();
            prop_assert_eq!(t.query(&qb).unwrap(), want);
            let bn = pts.iter().map(|&(id, p)| (pt(p).distance_sq(qp), id)).min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            prop_assert_eq!(t.nearest(qp).unwrap(), bn.map(|(d, id)| (id, d.sqrt())));
        }
    }
}

//! Point quadtree over a fixed 2-D region: the PR quadtree of [`crate::region_tree`] in 2-D
//! (capacity and depth limits, closed range query, nearest neighbour; see that module for the
//! algorithm, the conventions and the tie-breaks). Child order: bit 0 = upper x half, bit 1 =
//! upper y half.

use crate::error::Result;
use crate::geom::{Aabb2, Vec2};
use crate::region_tree::RegionTree;
pub use crate::region_tree::{RegionTreeParams, MAX_POINTS};

/// A PR quadtree of points with `u64` ids.
#[derive(Debug, Clone)]
pub struct Quadtree(RegionTree<2>);

impl Quadtree {
    /// An empty tree over `bounds` (finite, min ≤ max); refuses bad parameters.
    pub fn new(bounds: Aabb2, params: RegionTreeParams) -> Result<Quadtree> {
        RegionTree::new("Quadtree", bounds.min.to_array(), bounds.max.to_array(), params).map(Quadtree)
    }
    /// Add point `p` under `id` (ids need not be unique); refuses non-finite points and points
    /// outside the bounds.
    pub fn insert(&mut self, id: u64, p: Vec2) -> Result<()> {
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
    pub fn query(&self, b: &Aabb2) -> Result<Vec<u64>> {
        self.0.range(b.min.to_array(), b.max.to_array())
    }
    /// The nearest point's id and distance (ties: lowest id); `None` when empty. Refuses NaN.
    pub fn nearest(&self, q: Vec2) -> Result<Option<(u64, f64)>> {
        self.0.nearest(q.to_array())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::SpatialError;
    use crate::geom::vec2;
    use proptest::prelude::*;

    #[test]
    fn refusals() {
        let b = Aabb2::new(vec2(0.0, 0.0), vec2(10.0, 10.0)).unwrap();
        assert!(Quadtree::new(b, RegionTreeParams { capacity: 0, max_depth: 4 }).is_err());
        assert!(Quadtree::new(b, RegionTreeParams { capacity: 4, max_depth: 41 }).is_err());
        assert!(Quadtree::new(
            Aabb2 { min: vec2(0.0, 0.0), max: vec2(f64::INFINITY, 1.0) },
            RegionTreeParams::default()
        )
        .is_err());
        let mut t = Quadtree::new(b, RegionTreeParams::default()).unwrap();
        assert!(matches!(t.insert(1, vec2(f64::NAN, 1.0)), Err(SpatialError::NonFinite { .. })));
        assert_eq!(t.insert(7, vec2(10.5, 1.0)), Err(SpatialError::OutOfBounds { what: "Quadtree", index: 7 }));
        assert_eq!(t.nearest(vec2(1.0, 1.0)), Ok(None));
        t.insert(1, vec2(10.0, 10.0)).unwrap();
        assert!(t.nearest(vec2(f64::NAN, 0.0)).is_err());
        assert!(t.query(&Aabb2 { min: vec2(f64::NAN, 0.0), max: vec2(1.0, 1.0) }).is_err());
        assert_eq!(t.nearest(vec2(-3.0, 10.0)), Ok(Some((1, 13.0))));
    }

    /// Many coincident points: the depth limit stops the splitting.
    #[test]
    fn depth_limit_holds_coincident_points() {
        let b = Aabb2::new(vec2(0.0, 0.0), vec2(1.0, 1.0)).unwrap();
        let mut t = Quadtree::new(b, RegionTreeParams { capacity: 2, max_depth: 6 }).unwrap();
        for id in (0..200).rev() {
            t.insert(id, vec2(0.3, 0.7)).unwrap();
        }
        assert_eq!(t.depth(), 6);
        assert_eq!(t.nearest(vec2(0.0, 0.0)).unwrap().unwrap().0, 0);
        assert_eq!(t.query(&b).unwrap(), (0..200).collect::<Vec<_>>());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn matches_brute_force(
            pts in prop::collection::vec((0u64..500, prop::array::uniform2(0i32..64)), 0..200),
            q in prop::array::uniform2(-10i32..74), e in prop::array::uniform2(0i32..30),
            cap in 1usize..6, depth in 0usize..8,
        ) {
            let b = Aabb2::new(vec2(0.0, 0.0), vec2(16.0, 16.0)).unwrap();
            let mut t = Quadtree::new(b, RegionTreeParams { capacity: cap, max_depth: depth }).unwrap();
            let pt = |p: [i32; 2]| vec2(f64::from(p[0]) * 0.25, f64::from(p[1]) * 0.25);
            for &(id, p) in &pts { t.insert(id, pt(p)).unwrap(); }
            prop_assert_eq!(t.len(), pts.len());
            let qp = pt(q);
            let qb = Aabb2 { min: qp, max: qp + pt(e) };
            let mut want: Vec<u64> = pts.iter().filter(|(_, p)| qb.contains(pt(*p))).map(|&(id, _)| id).collect();
            want.sort();
            prop_assert_eq!(t.query(&qb).unwrap(), want);
            let bn = pts.iter().map(|&(id, p)| (pt(p).distance_sq(qp), id)).min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            prop_assert_eq!(t.nearest(qp).unwrap(), bn.map(|(d, id)| (id, d.sqrt())));
        }
    }
}

//! Point quadtree over a fixed 2-D region: the PR quadtree of [`crate::region_tree`] in 2-D
//! (capacity and depth limits, closed range query, nearest neighbour; see that module for the
//! algorithm, the conventions and the tie-breaks). Child order: bit 0 = upper x half, bit 1 =
//! upper y half.

use crate::geom::{Aabb2, Vec2};
use crate::region_tree::region_tree_face;
pub use crate::region_tree::{RegionTreeParams, MAX_POINTS};

region_tree_face!(
    /// A PR quadtree of points with `u64` ids.
    Quadtree,
    2,
    Aabb2,
    Vec2
);

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

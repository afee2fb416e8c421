//! Point octree over a fixed 3-D region: the PR octree of [`crate::region_tree`] in 3-D
//! (capacity and depth limits, closed range query, nearest neighbour; see that module for the
//! algorithm, the conventions and the tie-breaks). Child order: bit 0 = upper x half, bit 1 =
//! upper y half, bit 2 = upper z half.

use crate::geom::{Aabb3, Vec3};
use crate::region_tree::region_tree_face;
pub use crate::region_tree::{RegionTreeParams, MAX_POINTS};

region_tree_face!(
    /// A PR octree of points with `u64` ids.
    Octree,
    3,
    Aabb3,
    Vec3
);

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

//! Static R-tree of 3-D boxes, bulk-loaded by Sort-Tile-Recursive (Leutenegger, Lopez &
//! Edgington 1997, "STR: a simple and efficient algorithm for R-tree packing"), with overlap,
//! nearest and k-nearest queries.
//!
//! Packing: with node capacity M and N entries, P = ⌈N/M⌉ nodes are wanted; along the first
//! of the k axes to tile, the entries (sorted by box centre) are cut into S = ⌈P^(1/k)⌉ slabs
//! of M·⌈P/S⌉ entries, each slab is tiled the same way on the remaining axes, and the last
//! axis is cut into runs of M. The level's nodes become the next level's entries until one
//! remains. Axes on which every centre is equal are left out of the tiling (so 2-D data with
//! z = 0 tiles as 2-D); S is an exact integer root (no floating-point `powf`). Sorts break
//! centre ties by entry index, so the tree is a pure function of the boxes and M.
//!
//! Queries: overlap (closed boxes) returns indices sorted; nearest and k-nearest rank boxes by
//! Euclidean distance from the query point to the box (0 inside), ties to the lowest index, by
//! best-first search (Hjaltason & Samet 1999).
//!
//! Not wrapped: `rstar` (its bulk load is OMT, not STR, and its nearest-neighbour order among
//! equal distances is unspecified) and `kiddo` (points only, its ties are unspecified too).
//! Neither clearly wins for the generators' sizes (≤ 10^6 boxes, built once, queried many
//! times), and this crate needs the index tie-breaks; so the STR tree here is our own.
//!
//! Caps: at most [`MAX_BOXES`] boxes; `node_capacity` in 2..=64; boxes finite, min ≤ max.

use crate::error::{Result, SpatialError};
use crate::geom::{Aabb3, Vec3};
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// Most boxes one R-tree holds.
pub const MAX_BOXES: usize = 1 << 28;

/// Build parameters of an [`RTree`].
#[derive(Debug, Clone, PartialEq)]
pub struct RTreeParams {
    /// Most children per node (2..=64; default 8).
    pub node_capacity: usize,
}

impl Default for RTreeParams {
    fn default() -> Self {
        RTreeParams { node_capacity: 8 }
    }
}

#[derive(Debug, Clone)]
struct Node {
    bounds: Aabb3,
    /// Whether the children are boxes (leaf) or nodes.
    leaf: bool,
    /// Range of this node's children in `kids`.
    start: u32,
    count: u32,
}

/// A static STR-packed R-tree.
#[derive(Debug, Clone)]
pub struct RTree {
    boxes: Vec<Aabb3>,
    nodes: Vec<Node>,
    kids: Vec<u32>,
    levels: usize,
}

/// Smallest `s` with `s^k ≥ p` (k ≥ 1, p ≥ 1).
fn int_root_ceil(p: usize, k: usize) -> usize {
    let mut s = 1usize;
    while (0..k).try_fold(1usize, |acc, _| acc.checked_mul(s)).is_some_and(|v| v < p) {
        s += 1;
    }
    s
}

/// Sort-Tile-Recursive: order `items` (entry index, box) in place and append the group sizes.
fn tile(items: &mut [(u32, Aabb3)], m: usize, axes: &[usize], groups: &mut Vec<usize>) {
    let n = items.len();
    if n == 0 {
        return;
    }
    let Some((&axis, rest)) = axes.split_first() else {
        // No axis to tell the entries apart: index order.
        items.sort_by_key(|e| e.0);
        groups.extend((0..n).step_by(m).map(|s| m.min(n - s)));
        return;
    };
    items.sort_by(|a, b| a.1.centre()[axis].total_cmp(&b.1.centre()[axis]).then(a.0.cmp(&b.0)));
    if rest.is_empty() {
        groups.extend((0..n).step_by(m).map(|s| m.min(n - s)));
        return;
    }
    let p = n.div_ceil(m);
    let s = int_root_ceil(p, axes.len());
    let slab = m * p.div_ceil(s);
    for chunk in items.chunks_mut(slab) {
        tile(chunk, m, rest, groups);
    }
}

/// Heap key for best-first search: (squared distance, node before box, index), ascending.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Key(f64, bool, u32);
impl Eq for Key {}
impl PartialOrd for Key {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Key {
    fn cmp(&self, o: &Self) -> Ordering {
        // `false` (a node) sorts before `true` (a box) at equal distance.
        self.0.total_cmp(&o.0).then(self.1.cmp(&o.1)).then(self.2.cmp(&o.2))
    }
}

impl RTree {
    /// Bulk-load `boxes` (finite, min ≤ max; at most [`MAX_BOXES`]).
    pub fn bulk_load(boxes: &[Aabb3], params: &RTreeParams) -> Result<RTree> {
        let m = params.node_capacity;
        if !(2..=64).contains(&m) {
            return Err(SpatialError::Param { what: "RTree", name: "node_capacity", value: m as f64, range: "2..=64" });
        }
        if boxes.len() > MAX_BOXES {
            return Err(SpatialError::TooMany { what: "RTree", count: boxes.len(), cap: MAX_BOXES });
        }
        for (i, b) in boxes.iter().enumerate() {
            if !b.is_finite() {
                return Err(SpatialError::NonFinite { what: "RTree", index: i });
            }
            if let Some(a) = (0..3).find(|&a| b.min[a] > b.max[a]) {
                return Err(SpatialError::InvertedBox { what: "RTree", index: i, axis: a });
            }
        }
        let mut t = RTree { boxes: boxes.to_vec(), nodes: Vec::new(), kids: Vec::new(), levels: 0 };
        if boxes.is_empty() {
            return Ok(t);
        }
        let mut entries: Vec<(u32, Aabb3)> = boxes.iter().enumerate().map(|(i, b)| (i as u32, *b)).collect();
        let mut leaf = true;
        loop {
            let cb = entries.iter().fold(Aabb3::EMPTY, |b, e| b.grow(e.1.centre()));
            let axes: Vec<usize> = (0..3).filter(|&a| cb.max[a] > cb.min[a]).collect();
            let mut groups = Vec::new();
            tile(&mut entries, m, &axes, &mut groups);
            let mut next = Vec::with_capacity(groups.len());
            let mut at = 0;
            for g in groups {
                let members = &entries[at..at + g];
                let bounds = members.iter().fold(Aabb3::EMPTY, |b, e| b.union(&e.1));
                let start = t.kids.len() as u32;
                t.kids.extend(members.iter().map(|e| e.0));
                next.push((t.nodes.len() as u32, bounds));
                t.nodes.push(Node { bounds, leaf, start, count: g as u32 });
                at += g;
            }
            t.levels += 1;
            leaf = false;
            if next.len() == 1 {
                break;
            }
            entries = next;
        }
        Ok(t)
    }

    /// Number of boxes.
    pub fn len(&self) -> usize {
        self.boxes.len()
    }

    /// Whether the tree holds no box.
    pub fn is_empty(&self) -> bool {
        self.boxes.is_empty()
    }

    /// Number of levels (0 when empty; 1 when the root is a leaf).
    pub fn levels(&self) -> usize {
        self.levels
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    fn root(&self) -> Option<usize> {
        self.nodes.len().checked_sub(1)
    }

    fn children(&self, n: &Node) -> &[u32] {
        &self.kids[n.start as usize..(n.start + n.count) as usize]
    }

    /// Indices of the boxes intersecting the closed box `q`, sorted. Refuses NaN bounds.
    pub fn overlapping(&self, q: &Aabb3) -> Result<Vec<usize>> {
        if q.min.has_nan() || q.max.has_nan() {
            return Err(SpatialError::NanQuery { what: "RTree::overlapping" });
        }
        let mut out = Vec::new();
        let mut stack: Vec<usize> = self.root().into_iter().collect();
        while let Some(ni) = stack.pop() {
            let n = &self.nodes[ni];
            if !n.bounds.intersects(q) {
                continue;
            }
            for &c in self.children(n) {
                if n.leaf {
                    if self.boxes[c as usize].intersects(q) {
                        out.push(c as usize);
                    }
                } else {
                    stack.push(c as usize);
                }
            }
        }
        out.sort_unstable();
        Ok(out)
    }

    /// The box nearest to `p` (distance to the box, 0 inside; ties: lowest index), or `None`
    /// when empty. Refuses a NaN point.
    pub fn nearest(&self, p: Vec3) -> Result<Option<(usize, f64)>> {
        Ok(self.nearest_k(p, 1)?.into_iter().next())
    }

    /// The `k` boxes nearest to `p` as `(index, distance)`, by distance then index; fewer when
    /// the tree holds fewer. Refuses a NaN point.
    pub fn nearest_k(&self, p: Vec3, k: usize) -> Result<Vec<(usize, f64)>> {
        if p.has_nan() {
            return Err(SpatialError::NanQuery { what: "RTree::nearest" });
        }
        let mut out = Vec::new();
        let mut heap = BinaryHeap::new();
        if let Some(r) = self.root() {
            heap.push(Reverse(Key(self.nodes[r].bounds.distance_sq(p), false, r as u32)));
        }
        while let Some(Reverse(Key(d, is_box, i))) = heap.pop() {
            if out.len() >= k {
                break;
            }
            if is_box {
                out.push((i as usize, d.sqrt()));
                continue;
            }
            let n = &self.nodes[i as usize];
            for &c in self.children(n) {
                let b = if n.leaf { &self.boxes[c as usize] } else { &self.nodes[c as usize].bounds };
                heap.push(Reverse(Key(b.distance_sq(p), n.leaf, c)));
            }
        }
        Ok(out)
    }

    /// Check the invariants (bounds hold children, fill ≤ capacity, leaves all on one level,
    /// every box in exactly one leaf); for tests.
    #[cfg(test)]
    fn check(&self, m: usize) -> usize {
        let mut seen = vec![0u8; self.boxes.len()];
        let mut leaf_depths = std::collections::BTreeSet::new();
        let mut leaves = 0;
        let mut stack: Vec<(usize, usize)> = self.root().into_iter().map(|r| (r, 1)).collect();
        while let Some((ni, d)) = stack.pop() {
            let n = &self.nodes[ni];
            assert!(n.count >= 1 && n.count as usize <= m);
            for &c in self.children(n) {
                if n.leaf {
                    assert!(n.bounds.contains_box(&self.boxes[c as usize]));
                    seen[c as usize] += 1;
                } else {
                    assert!(n.bounds.contains_box(&self.nodes[c as usize].bounds));
                    stack.push((c as usize, d + 1));
                }
            }
            if n.leaf {
                leaf_depths.insert(d);
                leaves += 1;
            }
        }
        assert!(seen.iter().all(|&s| s == 1));
        assert!(leaf_depths.len() <= 1);
        assert_eq!(leaf_depths.first().copied().unwrap_or(0), self.levels);
        leaves
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::vec3;
    use proptest::prelude::*;

    fn brute_knn(boxes: &[Aabb3], p: Vec3, k: usize) -> Vec<(usize, f64)> {
        let mut all: Vec<(f64, usize)> = boxes.iter().enumerate().map(|(i, b)| (b.distance_sq(p), i)).collect();
        all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        all.into_iter().take(k).map(|(d, i)| (i, d.sqrt())).collect()
    }

    #[test]
    fn integer_root() {
        assert_eq!(int_root_ceil(27, 3), 3);
        assert_eq!(int_root_ceil(28, 3), 4);
        assert_eq!(int_root_ceil(1, 2), 1);
        assert_eq!(int_root_ceil(17, 2), 5);
        assert_eq!(int_root_ceil(usize::MAX / 2, 2), 3037000500);
    }

    #[test]
    fn seeded_vs_brute_force_and_packing() {
        let mut s = 2024u64;
        let mut rnd = move || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 11) as f64) / (1u64 << 53) as f64
        };
        for (n, m, flat) in
            [(1usize, 4usize, false), (10, 2, false), (1000, 8, false), (2500, 16, true), (777, 5, false)]
        {
            let boxes: Vec<Aabb3> = (0..n)
                .map(|_| {
                    let c = vec3(rnd() * 100.0, rnd() * 100.0, if flat { 0.0 } else { rnd() * 20.0 });
                    let e = vec3(rnd() * 3.0, rnd() * 3.0, if flat { 0.0 } else { rnd() });
                    Aabb3 { min: c - e, max: c + e }
                })
                .collect();
            let t = RTree::bulk_load(&boxes, &RTreeParams { node_capacity: m }).unwrap();
            let leaves = t.check(m);
            assert!(leaves >= n.div_ceil(m));
            // STR packs nearly full: a partial node per run at most.
            assert!(leaves as f64 <= 1.35 * n.div_ceil(m) as f64 + 2.0, "n {n} m {m}: {leaves} leaves");
            for _ in 0..60 {
                let c = vec3(rnd() * 110.0 - 5.0, rnd() * 110.0 - 5.0, rnd() * 24.0 - 2.0);
                let e = vec3(rnd() * 10.0, rnd() * 10.0, rnd() * 3.0);
                let q = Aabb3 { min: c - e, max: c + e };
                let want: Vec<usize> = (0..n).filter(|&i| boxes[i].intersects(&q)).collect();
                assert_eq!(t.overlapping(&q).unwrap(), want);
                assert_eq!(t.nearest_k(c, 7).unwrap(), brute_knn(&boxes, c, 7));
                assert_eq!(t.nearest(c).unwrap(), brute_knn(&boxes, c, 1).first().copied());
            }
        }
    }

    #[test]
    fn refusals() {
        let ok = Aabb3::from_point(Vec3::ZERO);
        assert!(RTree::bulk_load(&[ok], &RTreeParams { node_capacity: 1 }).is_err());
        assert!(RTree::bulk_load(&[ok], &RTreeParams { node_capacity: 65 }).is_err());
        let nan = Aabb3 { min: vec3(0.0, f64::NAN, 0.0), max: Vec3::ZERO };
        assert_eq!(
            RTree::bulk_load(&[ok, nan], &RTreeParams::default()).err(),
            Some(SpatialError::NonFinite { what: "RTree", index: 1 })
        );
        assert!(RTree::bulk_load(&[Aabb3::EMPTY], &RTreeParams::default()).is_err());
        let t = RTree::bulk_load(&[ok], &RTreeParams::default()).unwrap();
        assert!(t.nearest(vec3(f64::NAN, 0.0, 0.0)).is_err());
        assert!(t.overlapping(&nan).is_err());
        let e = RTree::bulk_load(&[], &RTreeParams::default()).unwrap();
        assert_eq!(e.nearest(Vec3::ZERO).unwrap(), None);
        assert_eq!(e.levels(), 0);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Lattice boxes (shared faces, duplicates, equal distances) vs linear scans.
        #[test]
        fn matches_brute_force(
            raw in prop::collection::vec((prop::array::uniform3(-6i8..6), prop::array::uniform3(0i8..3)), 0..90),
            q in (prop::array::uniform3(-7i8..7), prop::array::uniform3(0i8..5)),
            m in 2usize..7, k in 0usize..10,
        ) {
            let mk = |(a, e): ([i8; 3], [i8; 3])| {
                let min = vec3(a[0].into(), a[1].into(), a[2].into());
                Aabb3 { min, max: min + vec3(e[0].into(), e[1].into(), e[2].into()) }
            };
            let boxes: Vec<Aabb3> = raw.into_iter().map(mk).collect();
            let t = RTree::bulk_load(&boxes, &RTreeParams { node_capacity: m }).unwrap();
            t.check(m);
            let q = mk(q);
            let want: Vec<usize> = (0..boxes.len()).filter(|&i| boxes[i].intersects(&q)).collect();
            prop_assert_eq!(t.overlapping(&q).unwrap(), want);
            prop_assert_eq!(t.nearest_k(q.min, k).unwrap(), brute_knn(&boxes, q.min, k));
        }
    }
}

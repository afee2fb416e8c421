//! The point region tree shared by [`crate::quadtree`] (D = 2) and [`crate::octree`] (D = 3):
//! a PR quadtree/octree (Finkel & Bentley 1974; Samet 1984, "The quadtree and related
//! hierarchical data structures") over fixed, closed root bounds.
//!
//! A leaf holds up to `capacity` points; inserting one more splits it into 2^D equal children
//! at its centre and hands its points down, unless the leaf is at `max_depth` (then it just
//! grows: this bounds the depth for coincident points). Child `c` of a node takes, on each axis
//! `a`, the upper half when bit `a` of `c` is set; a point exactly on a centre plane belongs to
//! the upper child. Nodes live in one array; the tree depends only on the sequence of inserts.
//!
//! Queries: range (closed box) returns ids sorted by id (equal ids keep insertion order);
//! nearest returns the smallest distance, ties to the lowest id, searching children nearest
//! box first and pruning boxes farther than the best so far.
//!
//! Caps: at most [`MAX_POINTS`] points; `capacity` in 1..=1024, `max_depth` in 0..=40; bounds
//! finite with min ≤ max. Nodes ≤ 1 + 2^D · max_depth · points.

use crate::error::{Result, SpatialError};

/// Most points one quadtree or octree holds.
pub const MAX_POINTS: usize = 1 << 28;

/// Shape limits of a [`crate::quadtree::Quadtree`] or [`crate::octree::Octree`].
#[derive(Debug, Clone, PartialEq)]
pub struct RegionTreeParams {
    /// Points a leaf holds before it splits (1..=1024; default 8).
    pub capacity: usize,
    /// Deepest level (the root is 0) at which leaves still split (0..=40; default 16).
    pub max_depth: usize,
}

impl Default for RegionTreeParams {
    fn default() -> Self {
        RegionTreeParams { capacity: 8, max_depth: 16 }
    }
}

impl RegionTreeParams {
    /// Check the ranges stated on the fields.
    pub fn validate(&self, what: &'static str) -> Result<()> {
        if !(1..=1024).contains(&self.capacity) {
            return Err(SpatialError::Param { what, name: "capacity", value: self.capacity as f64, range: "1..=1024" });
        }
        if self.max_depth > 40 {
            return Err(SpatialError::Param { what, name: "max_depth", value: self.max_depth as f64, range: "0..=40" });
        }
        Ok(())
    }
}

#[derive(Debug, Clone)]
struct Node<const D: usize> {
    min: [f64; D],
    max: [f64; D],
    depth: u32,
    items: Vec<(u64, [f64; D])>,
    /// Index of the first of the 2^D children; 0 for a leaf (the root is never a child).
    children: u32,
}

fn box_d2<const D: usize>(min: &[f64; D], max: &[f64; D], p: &[f64; D]) -> f64 {
    let mut s = 0.0;
    for a in 0..D {
        let d = (min[a] - p[a]).max(p[a] - max[a]).max(0.0);
        s += d * d;
    }
    s
}

fn d2<const D: usize>(p: &[f64; D], q: &[f64; D]) -> f64 {
    (0..D).map(|a| (p[a] - q[a]) * (p[a] - q[a])).sum()
}

fn inside<const D: usize>(min: &[f64; D], max: &[f64; D], p: &[f64; D]) -> bool {
    (0..D).all(|a| min[a] <= p[a] && p[a] <= max[a])
}

/// The generic point region tree (use the 2-D or 3-D wrapper).
#[derive(Debug, Clone)]
pub(crate) struct RegionTree<const D: usize> {
    what: &'static str,
    nodes: Vec<Node<D>>,
    params: RegionTreeParams,
    len: usize,
}

impl<const D: usize> RegionTree<D> {
    pub(crate) fn new(what: &'static str, min: [f64; D], max: [f64; D], params: RegionTreeParams) -> Result<Self> {
        params.validate(what)?;
        if min.iter().chain(&max).any(|c| !c.is_finite()) {
            return Err(SpatialError::NonFinite { what, index: 0 });
        }
        if let Some(a) = (0..D).find(|&a| min[a] > max[a]) {
            return Err(SpatialError::InvertedBox { what, index: 0, axis: a });
        }
        let root = Node { min, max, depth: 0, items: Vec::new(), children: 0 };
        Ok(RegionTree { what, nodes: vec![root], params, len: 0 })
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn node_count(&self) -> usize {
        self.nodes.len()
    }

    pub(crate) fn depth(&self) -> usize {
        self.nodes.iter().map(|n| n.depth as usize).max().unwrap_or(0)
    }

    fn child_of(n: &Node<D>, p: &[f64; D]) -> usize {
        let c = (0..D).filter(|&a| p[a] >= 0.5 * (n.min[a] + n.max[a])).fold(0, |c, a| c | (1 << a));
        n.children as usize + c
    }

    pub(crate) fn insert(&mut self, id: u64, p: [f64; D]) -> Result<()> {
        if p.iter().any(|c| !c.is_finite()) {
            return Err(SpatialError::NonFinite { what: self.what, index: 0 });
        }
        if !inside(&self.nodes[0].min, &self.nodes[0].max, &p) {
            return Err(SpatialError::OutOfBounds { what: self.what, index: id });
        }
        if self.len >= MAX_POINTS {
            return Err(SpatialError::TooMany { what: self.what, count: self.len + 1, cap: MAX_POINTS });
        }
        let mut ni = 0;
        loop {
            let n = &self.nodes[ni];
            if n.children != 0 {
                ni = Self::child_of(n, &p);
                continue;
            }
            if n.items.len() < self.params.capacity || n.depth as usize >= self.params.max_depth {
                self.nodes[ni].items.push((id, p));
                self.len += 1;
                return Ok(());
            }
            self.split(ni);
        }
    }

    fn split(&mut self, ni: usize) {
        let first = self.nodes.len();
        let (min, max, depth) = (self.nodes[ni].min, self.nodes[ni].max, self.nodes[ni].depth);
        for c in 0..(1usize << D) {
            let (mut lo, mut hi) = (min, max);
            for a in 0..D {
                let mid = 0.5 * (min[a] + max[a]);
                if c & (1 << a) != 0 {
                    lo[a] = mid;
                } else {
                    hi[a] = mid;
                }
            }
            self.nodes.push(Node { min: lo, max: hi, depth: depth + 1, items: Vec::new(), children: 0 });
        }
        self.nodes[ni].children = first as u32;
        let items = std::mem::take(&mut self.nodes[ni].items);
        for (id, p) in items {
            let c = Self::child_of(&self.nodes[ni], &p);
            self.nodes[c].items.push((id, p));
        }
    }

    pub(crate) fn range(&self, min: [f64; D], max: [f64; D]) -> Result<Vec<u64>> {
        if min.iter().chain(&max).any(|c| c.is_nan()) {
            return Err(SpatialError::NanQuery { what: self.what });
        }
        let mut out = Vec::new();
        let mut stack = vec![0usize];
        while let Some(ni) = stack.pop() {
            let n = &self.nodes[ni];
            if (0..D).any(|a| n.max[a] < min[a] || max[a] < n.min[a]) {
                continue;
            }
            out.extend(n.items.iter().filter(|(_, p)| inside(&min, &max, p)).map(|&(id, _)| id));
            if n.children != 0 {
                stack.extend((0..(1usize << D)).rev().map(|c| n.children as usize + c));
            }
        }
        out.sort(); // stable: equal ids keep traversal (insertion-determined) order
        Ok(out)
    }

    pub(crate) fn nearest(&self, q: [f64; D]) -> Result<Option<(u64, f64)>> {
        if q.iter().any(|c| c.is_nan()) {
            return Err(SpatialError::NanQuery { what: self.what });
        }
        let mut best: Option<(f64, u64)> = None;
        let mut stack = vec![(0usize, box_d2(&self.nodes[0].min, &self.nodes[0].max, &q))];
        while let Some((ni, bd)) = stack.pop() {
            if best.is_some_and(|(b, _)| bd > b) {
                continue;
            }
            let n = &self.nodes[ni];
            for &(id, p) in &n.items {
                let d = d2(&p, &q);
                if best.is_none_or(|(b, bid)| d < b || (d == b && id < bid)) {
                    best = Some((d, id));
                }
            }
            if n.children != 0 {
                let mut ch: Vec<(f64, usize)> = (0..(1usize << D))
                    .map(|c| {
                        let k = n.children as usize + c;
                        (box_d2(&self.nodes[k].min, &self.nodes[k].max, &q), k)
                    })
                    .collect();
                // Farthest pushed first, so the nearest child is searched next.
                ch.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)));
                stack.extend(ch.into_iter().map(|(d, k)| (k, d)));
            }
        }
        Ok(best.map(|(d, id)| (id, d.sqrt())))
    }
}

/// The public face of a [`RegionTree`] in `$d` dimensions over `$aabb`/`$vec` (the quadtree
/// and the octree are this face in 2-D and 3-D).
macro_rules! region_tree_face {
    ($(#[$doc:meta])* $name:ident, $d:literal, $aabb:ty, $vec:ty) => {
        $(#[$doc])*
        #[derive(Debug, Clone)]
        pub struct $name($crate::region_tree::RegionTree<$d>);

        impl $name {
            /// An empty tree over `bounds` (finite, min ≤ max); refuses bad parameters.
            pub fn new(bounds: $aabb, params: $crate::region_tree::RegionTreeParams) -> $crate::error::Result<$name> {
                $crate::region_tree::RegionTree::new(stringify!($name), bounds.min.to_array(), bounds.max.to_array(), params)
                    .map($name)
            }
            /// Add point `p` under `id` (ids need not be unique); refuses non-finite points and
            /// points outside the bounds.
            pub fn insert(&mut self, id: u64, p: $vec) -> $crate::error::Result<()> {
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
            pub fn query(&self, b: &$aabb) -> $crate::error::Result<Vec<u64>> {
                self.0.range(b.min.to_array(), b.max.to_array())
            }
            /// The nearest point's id and distance (ties: lowest id); `None` when empty.
            /// Refuses NaN.
            pub fn nearest(&self, q: $vec) -> $crate::error::Result<Option<(u64, f64)>> {
                self.0.nearest(q.to_array())
            }
        }
    };
}
pub(crate) use region_tree_face;

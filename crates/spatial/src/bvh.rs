//! Bounding volume hierarchy over axis-aligned boxes, built top-down by binned surface area
//! heuristic (Wald 2007, "On fast construction of SAH-based bounding volume hierarchies"),
//! with closest-hit and any-hit ray queries and a box-overlap query; [`TriangleBvh`] puts
//! triangles behind it with the Möller–Trumbore test of [`crate::geom`].
//!
//! Build: each node's primitives are binned by box centre into `bins` equal slots along each
//! axis whose centre extent is non-zero; the split minimising `1 + (A_L·N_L + A_R·N_R) / A`
//! (A: surface areas) wins (ties: lowest axis, then lowest plane). A node becomes a leaf when
//! it holds one primitive, or at most `max_leaf` and no split beats `N` (the cost of testing
//! them all). A node of more than `max_leaf` primitives whose centres all coincide is split in
//! half by index order. Primitives keep their input order inside each side, so the tree is a
//! pure function of the boxes and the parameters. The build uses an explicit stack (no
//! recursion depth limit); build O(N log N · bins).
//!
//! Queries: closest hit returns the smallest `t`, ties to the lowest primitive index (the box
//! tests are widened by 1e-9·(|t| + 1) so that the slab test's rounding, which differs from
//! the primitive test's, cannot hide a tied hit: found by the tests below); any hit
//! answers whether some primitive is hit in `[t_min, t_max]`; the overlap query returns the
//! indices of the boxes that intersect a closed query box, sorted.
//!
//! Caps: at most [`MAX_PRIMITIVES`] primitives; `max_leaf` in 1..=64, `bins` in 2..=256.
//! Boxes and triangles must be finite (NaN or infinite coordinates are refused).

use crate::error::{Result, SpatialError};
use crate::geom::{ray_aabb, ray_triangle, triangle_aabb, Aabb3, Ray, Vec3};

/// Most primitives one BVH holds.
pub const MAX_PRIMITIVES: usize = 1 << 28;

/// Build parameters of a [`Bvh`].
#[derive(Debug, Clone, PartialEq)]
pub struct BvhParams {
    /// Most primitives in a leaf (1..=64; default 4).
    pub max_leaf: usize,
    /// SAH bins per axis (2..=256; default 16).
    pub bins: usize,
}

impl Default for BvhParams {
    fn default() -> Self {
        BvhParams { max_leaf: 4, bins: 16 }
    }
}

impl BvhParams {
    /// Check the ranges stated on the fields.
    pub fn validate(&self) -> Result<()> {
        if !(1..=64).contains(&self.max_leaf) {
            return Err(SpatialError::Param {
                what: "Bvh",
                name: "max_leaf",
                value: self.max_leaf as f64,
                range: "1..=64",
            });
        }
        if !(2..=256).contains(&self.bins) {
            return Err(SpatialError::Param { what: "Bvh", name: "bins", value: self.bins as f64, range: "2..=256" });
        }
        Ok(())
    }
}

#[derive(Debug, Clone)]
struct Node {
    bounds: Aabb3,
    /// Leaf: first position in `order`; internal: index of the left child (right = left + 1).
    first: u32,
    /// Leaf: number of primitives (> 0); internal: 0.
    count: u32,
}

/// A BVH over boxes (primitive `i` is the input's box `i`).
#[derive(Debug, Clone)]
pub struct Bvh {
    nodes: Vec<Node>,
    order: Vec<u32>,
    boxes: Vec<Aabb3>,
}

/// Check that every box is finite and not inverted.
fn check_boxes(what: &'static str, boxes: &[Aabb3]) -> Result<()> {
    if boxes.len() > MAX_PRIMITIVES {
        return Err(SpatialError::TooMany { what, count: boxes.len(), cap: MAX_PRIMITIVES });
    }
    for (i, b) in boxes.iter().enumerate() {
        if !b.is_finite() {
            return Err(SpatialError::NonFinite { what, index: i });
        }
        for a in 0..3 {
            if b.min[a] > b.max[a] {
                return Err(SpatialError::InvertedBox { what, index: i, axis: a });
            }
        }
    }
    Ok(())
}

impl Bvh {
    /// Build over `boxes` (finite, min ≤ max; at most [`MAX_PRIMITIVES`]).
    pub fn build(boxes: &[Aabb3], p: &BvhParams) -> Result<Bvh> {
        p.validate()?;
        check_boxes("Bvh", boxes)?;
        let mut t = Bvh { nodes: Vec::new(), order: (0..boxes.len() as u32).collect(), boxes: boxes.to_vec() };
        if boxes.is_empty() {
            return Ok(t);
        }
        t.nodes.push(Node { bounds: Aabb3::EMPTY, first: 0, count: 0 });
        // (node, lo, hi) still to build.
        let mut stack = vec![(0usize, 0usize, boxes.len())];
        let mut left = Vec::new();
        let mut right = Vec::new();
        let cent: Vec<Vec3> = boxes.iter().map(Aabb3::centre).collect();
        let mut scratch = Bins::new(p.bins);
        while let Some((ni, lo, hi)) = stack.pop() {
            let n = hi - lo;
            let bounds = self_bounds(&t.boxes, &t.order[lo..hi]);
            let cb = t.order[lo..hi].iter().fold(Aabb3::EMPTY, |b, &i| b.grow(cent[i as usize]));
            let split = if n == 1 { None } else { scratch.best_split(&t.boxes, &cent, &t.order[lo..hi], &bounds, &cb) };
            let make_leaf = match split {
                _ if n == 1 => true,
                Some((cost, _, _)) => n <= p.max_leaf && cost >= n as f64,
                None => n <= p.max_leaf,
            };
            if make_leaf {
                t.nodes[ni] = Node { bounds, first: lo as u32, count: n as u32 };
                continue;
            }
            let mid = match split {
                Some((_, axis, plane)) => {
                    left.clear();
                    right.clear();
                    let ext = cb.max[axis] - cb.min[axis];
                    for &i in &t.order[lo..hi] {
                        let b = bin_of(cent[i as usize][axis], cb.min[axis], ext, p.bins);
                        if b < plane {
                            left.push(i)
                        } else {
                            right.push(i)
                        }
                    }
                    let m = lo + left.len();
                    t.order[lo..m].copy_from_slice(&left);
                    t.order[m..hi].copy_from_slice(&right);
                    m
                }
                None => lo + n / 2,
            };
            let l = t.nodes.len();
            t.nodes.push(Node { bounds: Aabb3::EMPTY, first: 0, count: 0 });
            t.nodes.push(Node { bounds: Aabb3::EMPTY, first: 0, count: 0 });
            t.nodes[ni] = Node { bounds, first: l as u32, count: 0 };
            stack.push((l + 1, mid, hi));
            stack.push((l, lo, mid));
        }
        Ok(t)
    }

    /// Number of primitives.
    pub fn len(&self) -> usize {
        self.boxes.len()
    }

    /// Whether the BVH holds no primitive.
    pub fn is_empty(&self) -> bool {
        self.boxes.is_empty()
    }

    /// Number of nodes (internal and leaves).
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Bounds of everything ([`Aabb3::EMPTY`] when empty).
    pub fn bounds(&self) -> Aabb3 {
        self.nodes.first().map_or(Aabb3::EMPTY, |n| n.bounds)
    }

    /// Indices of the boxes that intersect the closed box `q`, sorted. Refuses NaN bounds.
    pub fn overlapping(&self, q: &Aabb3) -> Result<Vec<usize>> {
        if q.min.has_nan() || q.max.has_nan() {
            return Err(SpatialError::NanQuery { what: "Bvh::overlapping" });
        }
        let mut out = Vec::new();
        if self.nodes.is_empty() {
            return Ok(out);
        }
        let mut stack = vec![0usize];
        while let Some(ni) = stack.pop() {
            let n = &self.nodes[ni];
            if !n.bounds.intersects(q) {
                continue;
            }
            if n.count > 0 {
                for &i in &self.order[n.first as usize..(n.first + n.count) as usize] {
                    if self.boxes[i as usize].intersects(q) {
                        out.push(i as usize);
                    }
                }
            } else {
                stack.push(n.first as usize + 1);
                stack.push(n.first as usize);
            }
        }
        out.sort_unstable();
        Ok(out)
    }

    /// Closest hit along `ray` in `[t_min, t_max]`: `hit(i, t_limit)` tests primitive `i` and
    /// returns its hit distance if it is hit within `[t_min, t_limit]` (`t_limit` is the best
    /// distance so far, inclusive). Returns `(t, i)` with the smallest `t`, ties to the lowest
    /// `i`; `None` when nothing is hit.
    pub fn closest_hit<F>(&self, ray: &Ray, t_min: f64, t_max: f64, mut hit: F) -> Option<(f64, usize)>
    where
        F: FnMut(usize, f64) -> Option<f64>,
    {
        let mut best: Option<(f64, usize)> = None;
        let mut limit = t_max;
        if self.nodes.is_empty() {
            return None;
        }
        let lo = widen_down(t_min);
        let (t0, _) = ray_aabb(ray, &self.nodes[0].bounds, lo, widen_up(limit))?;
        let mut stack = vec![(0usize, t0)];
        while let Some((ni, enter)) = stack.pop() {
            if enter > widen_up(limit) {
                continue;
            }
            let n = &self.nodes[ni];
            if n.count > 0 {
                for &i in &self.order[n.first as usize..(n.first + n.count) as usize] {
                    let i = i as usize;
                    if let Some(t) = hit(i, limit) {
                        if t <= limit && best.is_none_or(|(bt, bi)| t < bt || (t == bt && i < bi)) {
                            best = Some((t, i));
                            limit = t;
                        }
                    }
                }
                continue;
            }
            let (l, r) = (n.first as usize, n.first as usize + 1);
            let hl = ray_aabb(ray, &self.nodes[l].bounds, lo, widen_up(limit));
            let hr = ray_aabb(ray, &self.nodes[r].bounds, lo, widen_up(limit));
            match (hl, hr) {
                (Some((tl, _)), Some((tr, _))) => {
                    // Nearer child on top of the stack.
                    if tr < tl {
                        stack.push((l, tl));
                        stack.push((r, tr));
                    } else {
                        stack.push((r, tr));
                        stack.push((l, tl));
                    }
                }
                (Some((tl, _)), None) => stack.push((l, tl)),
                (None, Some((tr, _))) => stack.push((r, tr)),
                (None, None) => {}
            }
        }
        best
    }

    /// Whether `hit` reports a hit for some primitive whose box the ray crosses within
    /// `[t_min, t_max]` (`hit(i, t_max)` as in [`closest_hit`](Self::closest_hit)); stops at
    /// the first.
    pub fn any_hit<F>(&self, ray: &Ray, t_min: f64, t_max: f64, mut hit: F) -> bool
    where
        F: FnMut(usize, f64) -> Option<f64>,
    {
        let mut stack = vec![0usize];
        if self.nodes.is_empty() {
            return false;
        }
        while let Some(ni) = stack.pop() {
            let n = &self.nodes[ni];
            if ray_aabb(ray, &n.bounds, widen_down(t_min), widen_up(t_max)).is_none() {
                continue;
            }
            if n.count > 0 {
                for &i in &self.order[n.first as usize..(n.first + n.count) as usize] {
                    if hit(i as usize, t_max).is_some_and(|t| t >= t_min && t <= t_max) {
                        return true;
                    }
                }
            } else {
                stack.push(n.first as usize + 1);
                stack.push(n.first as usize);
            }
        }
        false
    }

    /// Check the tree's invariants (every node's bounds hold its children's or primitives',
    /// every primitive in exactly one leaf); for tests.
    #[cfg(test)]
    fn check(&self) -> Result<usize> {
        let mut seen = vec![0u8; self.boxes.len()];
        let mut depth_max = 0;
        if self.nodes.is_empty() {
            return Ok(0);
        }
        let mut stack = vec![(0usize, 1usize)];
        while let Some((ni, d)) = stack.pop() {
            depth_max = depth_max.max(d);
            let n = &self.nodes[ni];
            if n.count > 0 {
                for &i in &self.order[n.first as usize..(n.first + n.count) as usize] {
                    assert!(n.bounds.contains_box(&self.boxes[i as usize]));
                    seen[i as usize] += 1;
                }
            } else {
                for c in [n.first as usize, n.first as usize + 1] {
                    assert!(n.bounds.contains_box(&self.nodes[c].bounds));
                    stack.push((c, d + 1));
                }
            }
        }
        assert!(seen.iter().all(|&s| s == 1));
        Ok(depth_max)
    }
}

/// Box tests run on `[t_min, t_max]` widened by 1e-9·(|t| + 1) on each side: the slab test
/// and a primitive's own test round differently, and a box must never be skipped when its
/// primitive hits at (or a rounding below) the current best distance.
fn widen_up(t: f64) -> f64 {
    t + (t.abs() + 1.0) * 1e-9
}

fn widen_down(t: f64) -> f64 {
    t - (t.abs() + 1.0) * 1e-9
}

fn self_bounds(boxes: &[Aabb3], ids: &[u32]) -> Aabb3 {
    ids.iter().fold(Aabb3::EMPTY, |b, &i| b.union(&boxes[i as usize]))
}

fn bin_of(c: f64, lo: f64, ext: f64, bins: usize) -> usize {
    (((c - lo) / ext * bins as f64) as usize).min(bins - 1)
}

/// Scratch arrays of the binned SAH sweep, allocated once per build.
struct Bins {
    cnt: Vec<usize>,
    bb: Vec<Aabb3>,
    right_area: Vec<f64>,
    right_cnt: Vec<usize>,
}

impl Bins {
    fn new(bins: usize) -> Bins {
        Bins { cnt: vec![0; bins], bb: vec![Aabb3::EMPTY; bins], right_area: vec![0.0; bins], right_cnt: vec![0; bins] }
    }

    /// Best binned SAH split: `(cost, axis, plane)` where primitives in bins `< plane` go left.
    // `axis` picks a component of each centre, not an element of a slice.
    #[allow(clippy::needless_range_loop)]
    fn best_split(
        &mut self,
        boxes: &[Aabb3],
        cent: &[Vec3],
        ids: &[u32],
        bounds: &Aabb3,
        cb: &Aabb3,
    ) -> Option<(f64, usize, usize)> {
        let bins = self.cnt.len();
        let area = bounds.surface_area();
        let mut best: Option<(f64, usize, usize)> = None;
        for axis in 0..3 {
            let ext = cb.max[axis] - cb.min[axis];
            if ext <= 0.0 {
                continue;
            }
            self.cnt.fill(0);
            self.bb.fill(Aabb3::EMPTY);
            for &i in ids {
                let k = bin_of(cent[i as usize][axis], cb.min[axis], ext, bins);
                self.cnt[k] += 1;
                self.bb[k] = self.bb[k].union(&boxes[i as usize]);
            }
            // Sweep from the right: right_*[k] describes bins k..bins.
            let (mut acc, mut n) = (Aabb3::EMPTY, 0);
            for k in (1..bins).rev() {
                acc = acc.union(&self.bb[k]);
                n += self.cnt[k];
                self.right_area[k] = acc.surface_area();
                self.right_cnt[k] = n;
            }
            let (mut acc, mut n) = (Aabb3::EMPTY, 0);
            for plane in 1..bins {
                acc = acc.union(&self.bb[plane - 1]);
                n += self.cnt[plane - 1];
                let nr = self.right_cnt[plane];
                if n == 0 || nr == 0 {
                    continue;
                }
                // Flat nodes (zero area) fall back to counting primitives.
                let cost = if area > 0.0 {
                    1.0 + (acc.surface_area() * n as f64 + self.right_area[plane] * nr as f64) / area
                } else {
                    1.0 + 0.5 * (n + nr) as f64
                };
                if best.is_none_or(|(bc, _, _)| cost < bc) {
                    best = Some((cost, axis, plane));
                }
            }
        }
        best
    }
}

/// A hit on a triangle: distance, triangle index and barycentrics (see [`crate::geom::TriHit`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BvhHit {
    /// Distance along the ray.
    pub t: f64,
    /// Index of the triangle in the input.
    pub prim: usize,
    /// Barycentric weight of the triangle's second vertex.
    pub u: f64,
    /// Barycentric weight of the triangle's third vertex.
    pub v: f64,
}

/// A BVH over a triangle soup, with the ray tests built in.
#[derive(Debug, Clone)]
pub struct TriangleBvh {
    tris: Vec<[Vec3; 3]>,
    bvh: Bvh,
}

impl TriangleBvh {
    /// Build over `tris` (finite vertices; at most [`MAX_PRIMITIVES`]).
    pub fn build(tris: &[[Vec3; 3]], p: &BvhParams) -> Result<TriangleBvh> {
        if tris.len() > MAX_PRIMITIVES {
            return Err(SpatialError::TooMany { what: "TriangleBvh", count: tris.len(), cap: MAX_PRIMITIVES });
        }
        if let Some(i) = tris.iter().position(|t| t.iter().any(|v| !v.is_finite())) {
            return Err(SpatialError::NonFinite { what: "TriangleBvh", index: i });
        }
        let boxes: Vec<Aabb3> = tris.iter().map(triangle_aabb).collect();
        Ok(TriangleBvh { tris: tris.to_vec(), bvh: Bvh::build(&boxes, p)? })
    }

    /// The triangles.
    pub fn triangles(&self) -> &[[Vec3; 3]] {
        &self.tris
    }

    /// The underlying box hierarchy.
    pub fn bvh(&self) -> &Bvh {
        &self.bvh
    }

    /// Closest triangle hit in `[t_min, t_max]` (smallest `t`, ties to the lowest index).
    pub fn closest_hit(&self, ray: &Ray, t_min: f64, t_max: f64) -> Option<BvhHit> {
        let mut uv = Vec::new();
        let (t, prim) = self.bvh.closest_hit(ray, t_min, t_max, |i, lim| {
            let [a, b, c] = self.tris[i];
            ray_triangle(ray, a, b, c, t_min, lim).map(|h| {
                uv.push((i, h.u, h.v));
                h.t
            })
        })?;
        let &(_, u, v) = uv.iter().rev().find(|e| e.0 == prim)?;
        Some(BvhHit { t, prim, u, v })
    }

    /// Whether any triangle is hit in `[t_min, t_max]` (shadow rays, line of sight).
    pub fn any_hit(&self, ray: &Ray, t_min: f64, t_max: f64) -> bool {
        self.bvh.any_hit(ray, t_min, t_max, |i, lim| {
            let [a, b, c] = self.tris[i];
            ray_triangle(ray, a, b, c, t_min, lim).map(|h| h.t)
        })
    }

    /// Indices of the triangles whose bounding boxes intersect `q`, sorted.
    pub fn overlapping(&self, q: &Aabb3) -> Result<Vec<usize>> {
        self.bvh.overlapping(q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::vec3;
    use proptest::prelude::*;

    struct Lcg(u64);
    impl Lcg {
        fn f(&mut self) -> f64 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((self.0 >> 11) as f64) / (1u64 << 53) as f64
        }
        fn v(&mut self, s: f64) -> Vec3 {
            vec3(self.f() * s, self.f() * s, self.f() * s)
        }
    }

    fn soup(seed: u64, n: usize, size: f64) -> Vec<[Vec3; 3]> {
        let mut r = Lcg(seed);
        (0..n)
            .map(|_| {
                let c = r.v(10.0);
                [c + r.v(size), c + r.v(size), c + r.v(size)]
            })
            .collect()
    }

    fn brute_closest(tris: &[[Vec3; 3]], ray: &Ray, t0: f64, t1: f64) -> Option<(f64, usize)> {
        let mut best: Option<(f64, usize)> = None;
        for (i, t) in tris.iter().enumerate() {
            if let Some(h) = ray_triangle(ray, t[0], t[1], t[2], t0, t1) {
                if best.is_none_or(|(bt, _)| h.t < bt) {
                    best = Some((h.t, i));
                }
            }
        }
        best
    }

    #[test]
    fn rays_match_brute_force_on_soups() {
        for (seed, n, size, leaf) in
            [(1u64, 500usize, 1.5, 4usize), (2, 2000, 0.6, 1), (3, 300, 6.0, 8), (4, 37, 3.0, 2)]
        {
            let tris = soup(seed, n, size);
            let bvh = TriangleBvh::build(&tris, &BvhParams { max_leaf: leaf, bins: 12 }).unwrap();
            bvh.bvh.check().unwrap();
            let mut r = Lcg(seed * 77);
            let mut hits = 0;
            for k in 0..300 {
                let o = r.v(14.0) - vec3(2.0, 2.0, 2.0);
                let target = r.v(10.0);
                let ray = Ray::new(o, target - o).unwrap();
                let tmax = if k % 3 == 0 { 4.0 } else { f64::INFINITY };
                let got = bvh.closest_hit(&ray, 0.0, tmax);
                let want = brute_closest(&tris, &ray, 0.0, tmax);
                assert_eq!(got.map(|h| (h.t, h.prim)), want, "seed {seed} ray {k}");
                assert_eq!(bvh.any_hit(&ray, 0.0, tmax), want.is_some());
                if let Some(h) = got {
                    hits += 1;
                    let [a, b, c] = tris[h.prim];
                    let p = a * (1.0 - h.u - h.v) + b * h.u + c * h.v;
                    assert!(p.distance(ray.at(h.t)) < 1e-9);
                }
            }
            assert!(hits > 30, "seed {seed}: only {hits} hits");
            for _ in 0..100 {
                let c = r.v(10.0);
                let e = r.v(2.0);
                let q = Aabb3 { min: c - e, max: c + e };
                let want: Vec<usize> = (0..n).filter(|&i| triangle_aabb(&tris[i]).intersects(&q)).collect();
                assert_eq!(bvh.overlapping(&q).unwrap(), want);
            }
        }
    }

    /// Coplanar, duplicated triangles: equal `t`, so the lowest index must win.
    #[test]
    fn ties_go_to_the_lowest_index() {
        let t = [vec3(0.0, 0.0, 1.0), vec3(1.0, 0.0, 1.0), vec3(0.0, 1.0, 1.0)];
        let mut tris = vec![t; 50];
        tris.extend(soup(9, 50, 1.0));
        tris.rotate_left(7); // the copies now sit at 0..43 and 93..100
        let bvh = TriangleBvh::build(&tris, &BvhParams { max_leaf: 2, bins: 4 }).unwrap();
        let depth = bvh.bvh.check().unwrap();
        assert!(depth < 40, "identical centres are split in halves: depth {depth}");
        let ray = Ray::new(vec3(0.2, 0.2, -1.0), vec3(0.0, 0.0, 1.0)).unwrap();
        let h = bvh.closest_hit(&ray, 0.0, f64::INFINITY).unwrap();
        assert_eq!((h.t, h.prim), (2.0, 0));
        assert_eq!(Some((h.t, h.prim)), brute_closest(&tris, &ray, 0.0, f64::INFINITY));
    }

    /// Overlapping coplanar triangles of different sizes, shuffled: several hits at the same
    /// `t` in different subtrees, so a traversal that prunes nodes entered at exactly the best
    /// `t` would miss the lowest index.
    #[test]
    fn ties_across_subtrees() {
        for seed in 0..20u64 {
            let mut r = Lcg(seed + 100);
            let mut tris: Vec<[Vec3; 3]> = (0..60)
                .map(|_| {
                    // A right triangle whose legs reach past (0.2, 0.2), its corner at random.
                    let c = vec3(-r.f() * 3.0, -r.f() * 3.0, 1.0);
                    let l = 4.0 + r.f() * 4.0;
                    [c, c + vec3(l, 0.0, 0.0), c + vec3(0.0, l, 0.0)]
                })
                .collect();
            tris.extend(soup(seed, 60, 1.0));
            // Shuffle deterministically.
            for i in (1..tris.len()).rev() {
                let j = (r.f() * (i + 1) as f64) as usize;
                tris.swap(i, j);
            }
            let bvh = TriangleBvh::build(&tris, &BvhParams { max_leaf: 1, bins: 8 }).unwrap();
            for (o, d) in [(vec3(0.2, 0.2, -1.0), vec3(0.0, 0.0, 1.0)), (vec3(0.2, 0.2, 3.0), vec3(0.0, 0.0, -1.0))] {
                let ray = Ray::new(o, d).unwrap();
                let want = brute_closest(&tris, &ray, 0.0, f64::INFINITY);
                assert_eq!(bvh.closest_hit(&ray, 0.0, f64::INFINITY).map(|h| (h.t, h.prim)), want, "seed {seed}");
            }
        }
    }

    #[test]
    fn refusals_and_empty() {
        let nan = [[vec3(0.0, 0.0, 0.0), vec3(f64::NAN, 0.0, 0.0), vec3(0.0, 1.0, 0.0)]];
        assert_eq!(
            TriangleBvh::build(&nan, &BvhParams::default()).err(),
            Some(SpatialError::NonFinite { what: "TriangleBvh", index: 0 })
        );
        assert!(Bvh::build(&[Aabb3::EMPTY], &BvhParams::default()).is_err());
        assert!(Bvh::build(&[], &BvhParams { max_leaf: 0, bins: 16 }).is_err());
        assert!(Bvh::build(&[], &BvhParams { max_leaf: 4, bins: 1 }).is_err());
        let e = Bvh::build(&[], &BvhParams::default()).unwrap();
        let ray = Ray::new(Vec3::ZERO, vec3(1.0, 0.0, 0.0)).unwrap();
        assert_eq!(e.closest_hit(&ray, 0.0, f64::INFINITY, |_, _| Some(0.0)), None);
        assert!(!e.any_hit(&ray, 0.0, f64::INFINITY, |_, _| Some(0.0)));
        assert_eq!(e.overlapping(&Aabb3::from_point(Vec3::ZERO)).unwrap(), Vec::<usize>::new());
        let q = Aabb3 { min: vec3(f64::NAN, 0.0, 0.0), max: Vec3::ZERO };
        assert!(e.overlapping(&q).is_err());
    }

    #[test]
    fn build_is_deterministic() {
        let tris = soup(5, 400, 1.0);
        let a = TriangleBvh::build(&tris, &BvhParams::default()).unwrap();
        let b = TriangleBvh::build(&tris, &BvhParams::default()).unwrap();
        assert_eq!(a.bvh.order, b.bvh.order);
        assert_eq!(a.bvh.node_count(), b.bvh.node_count());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(40))]
        /// Small integer-lattice boxes (many shared faces and duplicates) vs a linear scan.
        #[test]
        fn boxes_match_brute_force(
            raw in prop::collection::vec((prop::array::uniform3(-6i8..6), prop::array::uniform3(0i8..4)), 0..60),
            q in (prop::array::uniform3(-7i8..7), prop::array::uniform3(0i8..6)),
            o in prop::array::uniform3(-8i8..8), d in prop::array::uniform3(-3i8..4),
            leaf in 1usize..6,
        ) {
            let mk = |(m, e): ([i8; 3], [i8; 3])| {
                let min = vec3(m[0].into(), m[1].into(), m[2].into());
                Aabb3 { min, max: min + vec3(e[0].into(), e[1].into(), e[2].into()) }
            };
            let boxes: Vec<Aabb3> = raw.into_iter().map(mk).collect();
            let bvh = Bvh::build(&boxes, &BvhParams { max_leaf: leaf, bins: 8 }).unwrap();
            bvh.check().unwrap();
            let q = mk(q);
            let want: Vec<usize> = (0..boxes.len()).filter(|&i| boxes[i].intersects(&q)).collect();
            prop_assert_eq!(bvh.overlapping(&q).unwrap(), want);
            // Ray against the boxes themselves: hit distance = slab entry.
            if let Ok(ray) = Ray::new(vec3(o[0].into(), o[1].into(), o[2].into()), vec3(d[0].into(), d[1].into(), d[2].into())) {
                let test = |i: usize, lim: f64| ray_aabb(&ray, &boxes[i], 0.0, lim).map(|h| h.0);
                let got = bvh.closest_hit(&ray, 0.0, 50.0, test);
                let mut want: Option<(f64, usize)> = None;
                for i in 0..boxes.len() {
                    if let Some(t) = test(i, 50.0) {
                        if want.is_none_or(|(bt, _)| t < bt) { want = Some((t, i)); }
                    }
                }
                prop_assert_eq!(got, want);
                prop_assert_eq!(bvh.any_hit(&ray, 0.0, 50.0, test), want.is_some());
            }
        }
    }
}

//! A balanced k-d tree over a borrowed slice of points for nearest, k-nearest and radius
//! queries (Bentley 1975), moved here from the splat layer's capture screening so that every
//! crate shares one.
//!
//! Built in place over an index array: each node is the median of its range (position
//! `(lo + hi) / 2`) along the axis of the range's largest extent (so flat, ground-like point
//! sets split well; ties between axes go to the lowest axis); ranges of at most 8 points are
//! leaves scanned linearly. Build O(N log N), query O(log N) on average.
//!
//! Generic over the coordinate type (`f32` or `f64`, see [`Coord`]) and the dimension `D`
//! (default: `f32` in 3-D, the splat layer's centres). Distances are computed and returned in
//! `f64`. Determinism: the median selection orders equal coordinates by point index, and every
//! query orders results by (distance, index), so equidistant points resolve to the lowest
//! index whatever the tree's shape.
//!
//! Non-finite points: [`KdTree::try_new`] refuses them; [`KdTree::new`] (kept for callers that
//! filter first, like the splat capture screening) does not check, never panics on them, but its
//! answers about NaN points are unspecified.
//!
//! ```
//! use bozkir_spatial::KdTree;
//! let pts: [[f64; 2]; 4] = [[0.0, 0.0], [2.0, 0.0], [0.0, 2.0], [5.0, 5.0]];
//! let tree = KdTree::try_new(&pts)?;
//! // (1, 1) is √2 from the first three points: ties go to the lowest index.
//! assert_eq!(tree.knn([1.0, 1.0], 2, usize::MAX), vec![(0, 2f64.sqrt()), (1, 2f64.sqrt())]);
//! assert_eq!(tree.within_radius([0.0, 0.0], 2.0, 0)?, vec![(1, 2.0), (2, 2.0)]);
//! # Ok::<(), bozkir_spatial::SpatialError>(())
//! ```

use crate::error::{Result, SpatialError};

const LEAF: usize = 8;

/// Most points a tree may hold (indices are `u32`).
pub const MAX_POINTS: usize = u32::MAX as usize - 1;

/// A coordinate type the tree can index: `f32` or `f64`, widened to `f64` for distances.
pub trait Coord: Copy + Into<f64> {
    /// Total order (IEEE `totalOrder`), used to pick medians deterministically.
    fn total_cmp(&self, other: &Self) -> std::cmp::Ordering;
}

impl Coord for f32 {
    fn total_cmp(&self, other: &Self) -> std::cmp::Ordering {
        f32::total_cmp(self, other)
    }
}

impl Coord for f64 {
    fn total_cmp(&self, other: &Self) -> std::cmp::Ordering {
        f64::total_cmp(self, other)
    }
}

/// The tree; it borrows the points it indexes.
pub struct KdTree<'a, T: Coord = f32, const D: usize = 3> {
    pts: &'a [[T; D]],
    idx: Vec<u32>,
    /// Split axis of the node stored at each position of `idx` (internal nodes only).
    axis: Vec<u8>,
}

fn d2<T: Coord, const D: usize>(a: [T; D], b: [T; D]) -> f64 {
    let mut s = 0.0;
    for k in 0..D {
        let d = a[k].into() - b[k].into();
        s += d * d;
    }
    s
}

impl<'a, T: Coord, const D: usize> KdTree<'a, T, D> {
    /// Build over `pts` without checking them (non-finite points must be filtered first; see
    /// the module doc).
    ///
    /// # Panics
    /// With more than [`MAX_POINTS`] points, or `D` = 0 or `D` > 255 (use [`try_new`](Self::try_new)
    /// for input that is not known to fit).
    pub fn new(pts: &'a [[T; D]]) -> KdTree<'a, T, D> {
        assert!(pts.len() <= MAX_POINTS, "KdTree: too many points");
        assert!(D > 0 && D <= 255, "KdTree: dimension out of 1..=255");
        let mut t = KdTree { pts, idx: (0..pts.len() as u32).collect(), axis: vec![0; pts.len()] };
        t.build(0, pts.len());
        t
    }

    /// Build over `pts`, refusing a non-finite coordinate, more than [`MAX_POINTS`] points and
    /// a dimension outside 1..=255.
    pub fn try_new(pts: &'a [[T; D]]) -> Result<KdTree<'a, T, D>> {
        if pts.len() > MAX_POINTS {
            return Err(SpatialError::TooMany { what: "KdTree", count: pts.len(), cap: MAX_POINTS });
        }
        if D == 0 || D > 255 {
            return Err(SpatialError::Param { what: "KdTree", name: "D", value: D as f64, range: "1..=255" });
        }
        if let Some(i) = pts.iter().position(|p| p.iter().any(|&c| !Into::<f64>::into(c).is_finite())) {
            return Err(SpatialError::NonFinite { what: "KdTree", index: i });
        }
        Ok(Self::new(pts))
    }

    /// Number of points indexed.
    pub fn len(&self) -> usize {
        self.idx.len()
    }

    /// Whether the tree is empty.
    pub fn is_empty(&self) -> bool {
        self.idx.is_empty()
    }

    /// The indexed points.
    pub fn points(&self) -> &'a [[T; D]] {
        self.pts
    }

    fn build(&mut self, lo: usize, hi: usize) {
        if hi - lo <= LEAF {
            return;
        }
        let (mut mn, mut mx) = ([f64::INFINITY; D], [f64::NEG_INFINITY; D]);
        for &i in &self.idx[lo..hi] {
            let p = self.pts[i as usize];
            for a in 0..D {
                mn[a] = mn[a].min(p[a].into());
                mx[a] = mx[a].max(p[a].into());
            }
        }
        let a = (0..D).fold(0, |b, a| if mx[a] - mn[a] > mx[b] - mn[b] { a } else { b });
        let mid = (lo + hi) / 2;
        let pts = self.pts;
        self.idx[lo..hi].select_nth_unstable_by(mid - lo, |&i, &j| {
            pts[i as usize][a].total_cmp(&pts[j as usize][a]).then(i.cmp(&j))
        });
        self.axis[mid] = a as u8;
        self.build(lo, mid);
        self.build(mid + 1, hi);
    }

    /// Index and distance of the point nearest to `q`, other than the point `skip` (pass
    /// `usize::MAX` to skip none). `None` when no other point exists. Ties: lowest index.
    pub fn nearest(&self, q: [T; D], skip: usize) -> Option<(usize, f64)> {
        let mut best = (usize::MAX, f64::INFINITY);
        self.search(0, self.idx.len(), q, skip, &mut best);
        (best.0 != usize::MAX).then(|| (best.0, best.1.sqrt()))
    }

    fn search(&self, lo: usize, hi: usize, q: [T; D], skip: usize, best: &mut (usize, f64)) {
        if hi - lo <= LEAF {
            for &i in &self.idx[lo..hi] {
                let i = i as usize;
                if i != skip {
                    let d = d2(q, self.pts[i]);
                    if d < best.1 || (d == best.1 && i < best.0) {
                        *best = (i, d);
                    }
                }
            }
            return;
        }
        let mid = (lo + hi) / 2;
        let i = self.idx[mid] as usize;
        if i != skip {
            let d = d2(q, self.pts[i]);
            if d < best.1 || (d == best.1 && i < best.0) {
                *best = (i, d);
            }
        }
        let a = self.axis[mid] as usize;
        let diff = q[a].into() - self.pts[i][a].into();
        let (first, second) = if diff < 0.0 { ((lo, mid), (mid + 1, hi)) } else { ((mid + 1, hi), (lo, mid)) };
        self.search(first.0, first.1, q, skip, best);
        if diff * diff <= best.1 {
            self.search(second.0, second.1, q, skip, best);
        }
    }

    /// The `k` points nearest to `q` other than `skip` (pass `usize::MAX` to skip none), as
    /// `(index, distance)` sorted by distance, ties by index; fewer when the tree holds fewer.
    pub fn knn(&self, q: [T; D], k: usize, skip: usize) -> Vec<(usize, f64)> {
        let k = k.min(self.idx.len());
        let mut best: Vec<(f64, usize)> = Vec::with_capacity(k + 1);
        if k > 0 {
            self.search_k(0, self.idx.len(), q, k, skip, &mut best);
        }
        best.into_iter().map(|(d, i)| (i, d.sqrt())).collect()
    }

    /// Insert `(d, i)` into the sorted list `best` of at most `k` entries.
    fn offer(best: &mut Vec<(f64, usize)>, k: usize, d: f64, i: usize) {
        if best.len() == k {
            let (wd, wi) = best[k - 1];
            if d > wd || (d == wd && i > wi) {
                return;
            }
            best.pop();
        }
        let at = best.partition_point(|&(bd, bi)| bd < d || (bd == d && bi < i));
        best.insert(at, (d, i));
    }

    fn search_k(&self, lo: usize, hi: usize, q: [T; D], k: usize, skip: usize, best: &mut Vec<(f64, usize)>) {
        if hi - lo <= LEAF {
            for &i in &self.idx[lo..hi] {
                let i = i as usize;
                if i != skip {
                    Self::offer(best, k, d2(q, self.pts[i]), i);
                }
            }
            return;
        }
        let mid = (lo + hi) / 2;
        let i = self.idx[mid] as usize;
        if i != skip {
            Self::offer(best, k, d2(q, self.pts[i]), i);
        }
        let a = self.axis[mid] as usize;
        let diff = q[a].into() - self.pts[i][a].into();
        let (first, second) = if diff < 0.0 { ((lo, mid), (mid + 1, hi)) } else { ((mid + 1, hi), (lo, mid)) };
        self.search_k(first.0, first.1, q, k, skip, best);
        if best.len() < k || diff * diff <= best[k - 1].0 {
            self.search_k(second.0, second.1, q, k, skip, best);
        }
    }

    /// Every point within distance `r` of `q` (closed ball: distance ≤ r) other than `skip`
    /// (`usize::MAX` for none), as `(index, distance)` sorted by distance, ties by index.
    /// Refuses a NaN or negative radius and a NaN query coordinate (an infinite radius returns
    /// every point).
    pub fn within_radius(&self, q: [T; D], r: f64, skip: usize) -> Result<Vec<(usize, f64)>> {
        if r.is_nan() || r < 0.0 {
            return Err(SpatialError::Param { what: "KdTree::within_radius", name: "r", value: r, range: "r ≥ 0" });
        }
        if q.iter().any(|&c| Into::<f64>::into(c).is_nan()) {
            return Err(SpatialError::NanQuery { what: "KdTree::within_radius" });
        }
        let mut out = Vec::new();
        self.search_r(0, self.idx.len(), q, r * r, skip, &mut out);
        out.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        Ok(out.into_iter().map(|(d, i)| (i, d.sqrt())).collect())
    }

    fn search_r(&self, lo: usize, hi: usize, q: [T; D], r2: f64, skip: usize, out: &mut Vec<(f64, usize)>) {
        let mut take = |i: usize| {
            if i != skip {
                let d = d2(q, self.pts[i]);
                if d <= r2 {
                    out.push((d, i));
                }
            }
        };
        if hi - lo <= LEAF {
            for &i in &self.idx[lo..hi] {
                take(i as usize);
            }
            return;
        }
        let mid = (lo + hi) / 2;
        let i = self.idx[mid] as usize;
        take(i);
        let a = self.axis[mid] as usize;
        let diff = q[a].into() - self.pts[i][a].into();
        if diff <= 0.0 || diff * diff <= r2 {
            self.search_r(lo, mid, q, r2, skip, out);
        }
        if diff >= 0.0 || diff * diff <= r2 {
            self.search_r(mid + 1, hi, q, r2, skip, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn lcg(seed: u64) -> impl FnMut() -> f32 {
        let mut s = seed;
        move || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 33) as f32) / (1u64 << 31) as f32
        }
    }

    #[test]
    fn nearest_equals_brute_force() {
        let mut rnd = lcg(12345);
        let pts: Vec<[f32; 3]> = (0..3000).map(|_| [rnd() * 10.0, rnd() * 10.0, rnd() * 0.2]).collect();
        let t = KdTree::new(&pts);
        for qi in (0..pts.len()).step_by(37) {
            let (j, d) = t.nearest(pts[qi], qi).unwrap();
            let bd = (0..pts.len()).filter(|&k| k != qi).map(|k| d2(pts[qi], pts[k])).fold(f64::INFINITY, f64::min);
            assert!((d * d - bd).abs() < 1e-12, "query {qi}: {d} vs {}", bd.sqrt());
            assert_ne!(j, qi);
        }
        assert!(KdTree::new(&pts[..1]).nearest(pts[0], 0).is_none());
        assert!(KdTree::new(&pts[..0]).nearest(pts[0], usize::MAX).is_none());
    }

    #[test]
    fn knn_equals_brute_force() {
        let mut rnd = lcg(777);
        // A coarse lattice makes many equal distances, exercising the tie order.
        let pts: Vec<[f32; 3]> =
            (0..2000).map(|_| [(rnd() * 20.0).floor(), (rnd() * 20.0).floor(), rnd() * 0.1]).collect();
        let t = KdTree::new(&pts);
        for qi in (0..pts.len()).step_by(23) {
            for k in [1, 8, 17] {
                let got = t.knn(pts[qi], k, qi);
                let mut all: Vec<(f64, usize)> =
                    (0..pts.len()).filter(|&j| j != qi).map(|j| (d2(pts[qi], pts[j]), j)).collect();
                all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                let want: Vec<(usize, f64)> = all[..k].iter().map(|&(d, j)| (j, d.sqrt())).collect();
                assert_eq!(got, want, "query {qi}, k {k}");
            }
        }
        assert_eq!(t.knn(pts[0], 0, usize::MAX), vec![]);
        assert_eq!(KdTree::new(&pts[..3]).knn(pts[0], 8, 0).len(), 2);
        assert_eq!(KdTree::new(&pts[..3]).knn(pts[0], usize::MAX, usize::MAX).len(), 3);
    }

    fn brute_radius<const D: usize>(pts: &[[f64; D]], q: [f64; D], r: f64, skip: usize) -> Vec<(usize, f64)> {
        let mut all: Vec<(f64, usize)> =
            (0..pts.len()).filter(|&j| j != skip).map(|j| (d2(q, pts[j]), j)).filter(|&(d, _)| d <= r * r).collect();
        all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        all.into_iter().map(|(d, j)| (j, d.sqrt())).collect()
    }

    #[test]
    fn radius_equals_brute_force_2d_f64() {
        let mut rnd = lcg(4242);
        let pts: Vec<[f64; 2]> =
            (0..1500).map(|_| [f64::from((rnd() * 30.0).floor()), f64::from(rnd() * 30.0)]).collect();
        let t = KdTree::try_new(&pts).unwrap();
        for qi in (0..pts.len()).step_by(29) {
            for r in [0.0, 0.5, 2.0, 7.5] {
                let got = t.within_radius(pts[qi], r, usize::MAX).unwrap();
                assert_eq!(got, brute_radius(&pts, pts[qi], r, usize::MAX), "query {qi}, r {r}");
                assert!(got.iter().any(|&(j, _)| j == qi));
            }
        }
        assert_eq!(t.within_radius([0.0, 0.0], f64::INFINITY, usize::MAX).unwrap().len(), pts.len());
        assert!(t.within_radius([0.0, 0.0], -1.0, 0).is_err());
        assert!(t.within_radius([0.0, 0.0], f64::NAN, 0).is_err());
        assert!(t.within_radius([f64::NAN, 0.0], 1.0, 0).is_err());
    }

    #[test]
    fn try_new_refuses_non_finite() {
        let pts = [[0.0f64, 1.0, 2.0], [1.0, f64::NAN, 0.0]];
        assert_eq!(KdTree::try_new(&pts).err(), Some(SpatialError::NonFinite { what: "KdTree", index: 1 }));
        let pts = [[0.0f32, f32::INFINITY, 2.0]];
        assert!(KdTree::try_new(&pts).is_err());
        // The unchecked constructor does not panic on NaN.
        let pts = [[f32::NAN, 0.0, 0.0]; 20];
        let t = KdTree::new(&pts);
        let _ = t.nearest([0.0, 0.0, 0.0], usize::MAX);
        assert_eq!(t.len(), 20);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn knn_and_radius_match_brute_force_small(
            pts in prop::collection::vec(prop::array::uniform3(-8i32..8), 0..120),
            q in prop::array::uniform3(-9i32..9),
            k in 0usize..12,
            r in 0.0f64..6.0,
        ) {
            let pts: Vec<[f64; 3]> = pts.iter().map(|p| p.map(f64::from)).collect();
            let q = q.map(f64::from);
            let t = KdTree::try_new(&pts).unwrap();
            let mut all: Vec<(f64, usize)> = (0..pts.len()).map(|j| (d2(q, pts[j]), j)).collect();
            all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let want: Vec<(usize, f64)> = all.iter().take(k).map(|&(d, j)| (j, d.sqrt())).collect();
            prop_assert_eq!(t.knn(q, k, usize::MAX), want);
            prop_assert_eq!(t.nearest(q, usize::MAX), all.first().map(|&(d, j)| (j, d.sqrt())));
            prop_assert_eq!(t.within_radius(q, r, usize::MAX).unwrap(), brute_radius(&pts, q, r, usize::MAX));
        }
    }
}

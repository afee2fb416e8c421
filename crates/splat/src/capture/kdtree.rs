//! A balanced 3-d tree over splat centres for nearest-neighbour and k-nearest-neighbour
//! queries (Bentley 1975).
//!
//! Built in place over an index array: each node is the median of its range along the axis of
//! the range's largest extent (so flat, ground-like captures split well); ranges of at most 8
//! points are leaves scanned linearly. Build O(N log N), query O(log N) on average. Ties and
//! selection are deterministic for a given input.

const LEAF: usize = 8;

/// The tree; it borrows the points it indexes.
pub struct KdTree<'a> {
    pts: &'a [[f32; 3]],
    idx: Vec<u32>,
    /// Split axis of the node stored at each position of `idx` (internal nodes only).
    axis: Vec<u8>,
}

fn d2(a: [f32; 3], b: [f32; 3]) -> f64 {
    let dx = f64::from(a[0]) - f64::from(b[0]);
    let dy = f64::from(a[1]) - f64::from(b[1]);
    let dz = f64::from(a[2]) - f64::from(b[2]);
    dx * dx + dy * dy + dz * dz
}

impl<'a> KdTree<'a> {
    /// Build over `pts` (at most 2^32 − 1 points; non-finite points must be filtered first).
    pub fn new(pts: &'a [[f32; 3]]) -> KdTree<'a> {
        assert!(pts.len() < u32::MAX as usize, "KdTree: too many points");
        let mut t = KdTree { pts, idx: (0..pts.len() as u32).collect(), axis: vec![0; pts.len()] };
        t.build(0, pts.len());
        t
    }

    fn build(&mut self, lo: usize, hi: usize) {
        if hi - lo <= LEAF {
            return;
        }
        let (mut mn, mut mx) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
        for &i in &self.idx[lo..hi] {
            let p = self.pts[i as usize];
            for a in 0..3 {
                mn[a] = mn[a].min(p[a]);
                mx[a] = mx[a].max(p[a]);
            }
        }
        let a = (0..3).fold(0, |b, a| if mx[a] - mn[a] > mx[b] - mn[b] { a } else { b });
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
    /// `usize::MAX` to skip none). `None` when no other point exists.
    pub fn nearest(&self, q: [f32; 3], skip: usize) -> Option<(usize, f64)> {
        let mut best = (usize::MAX, f64::INFINITY);
        self.search(0, self.idx.len(), q, skip, &mut best);
        (best.0 != usize::MAX).then(|| (best.0, best.1.sqrt()))
    }

    fn search(&self, lo: usize, hi: usize, q: [f32; 3], skip: usize, best: &mut (usize, f64)) {
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
        let diff = f64::from(q[a]) - f64::from(self.pts[i][a]);
        let (first, second) = if diff < 0.0 { ((lo, mid), (mid + 1, hi)) } else { ((mid + 1, hi), (lo, mid)) };
        self.search(first.0, first.1, q, skip, best);
        if diff * diff <= best.1 {
            self.search(second.0, second.1, q, skip, best);
        }
    }

    /// The `k` points nearest to `q` other than `skip` (pass `usize::MAX` to skip none), as
    /// `(index, distance)` sorted by distance, ties by index; fewer when the tree holds fewer.
    pub fn knn(&self, q: [f32; 3], k: usize, skip: usize) -> Vec<(usize, f64)> {
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

    fn search_k(&self, lo: usize, hi: usize, q: [f32; 3], k: usize, skip: usize, best: &mut Vec<(f64, usize)>) {
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
        let diff = f64::from(q[a]) - f64::from(self.pts[i][a]);
        let (first, second) = if diff < 0.0 { ((lo, mid), (mid + 1, hi)) } else { ((mid + 1, hi), (lo, mid)) };
        self.search_k(first.0, first.1, q, k, skip, best);
        if best.len() < k || diff * diff <= best[k - 1].0 {
            self.search_k(second.0, second.1, q, k, skip, best);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_equals_brute_force() {
        let mut s = 12345u64;
        let mut rnd = || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 33) as f32) / (1u64 << 31) as f32
        };
        let pts: Vec<[f32; 3]> = (0..3000).map(|_| [rnd() * 10.0, rnd() * 10.0, rnd() * 0.2]).collect();
        let t = KdTree::new(&pts);
        for qi in (0..pts.len()).step_by(37) {
            let (j, d) = t.nearest(pts[qi], qi).unwrap();
            let bd = (0..pts.len()).filter(|&k| k != qi).map(|k| d2(pts[qi], pts[k])).fold(f64::INFINITY, f64::min);
            assert!((d * d - bd).abs() < 1e-12, "query {qi}: {d} vs {}", bd.sqrt());
            assert_ne!(j, qi);
        }
        assert!(KdTree::new(&pts[..1]).nearest(pts[0], 0).is_none());
    }

    #[test]
    fn knn_equals_brute_force() {
        let mut s = 777u64;
        let mut rnd = || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 33) as f32) / (1u64 << 31) as f32
        };
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
    }
}

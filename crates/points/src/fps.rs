//! Exact farthest-point sampling (FPS), accelerated by a bucketed k-d tree (QuickFPS-style)
//! and still bit for bit the classic greedy algorithm.
//!
//! # The classic greedy ([`fps_naive`], the reference)
//!
//! Pick `start`; every point keeps `dᵢ`, its squared distance to the nearest pick so far. Each
//! following pick is the unpicked point with the largest `dᵢ`, ties to the **lowest index**;
//! then every `dᵢ ← min(dᵢ, |pᵢ − q|²)` for the new pick `q`. Picked points are never picked
//! again (so `k` may go up to the number of points even with duplicates: once every distinct
//! position is picked, the remaining duplicates follow in index order). Squared distances are
//! `(pₓ − qₓ)² + (p_y − q_y)² + (p_z − q_z)²` in `f64`, summed in that order, without fused
//! multiply-adds. O(n·k).
//!
//! # The accelerated version ([`fps_exact`])
//!
//! The points are bucketed by a k-d tree built once (median splits across the widest extent of
//! the node's region, the parent's region cut at the split; leaves of at most [`LEAF`] points;
//! large subtrees built in parallel, the same tree on any thread count). Every node keeps the
//! tight bounding box of its points and its **best**: the largest `dᵢ` among its unpicked
//! points with the lowest index on ties (a picked point counts as `dᵢ = −1`). The root's best
//! is the next pick. After a pick `q`, the update descends from the root and skips every node
//! whose box is at squared distance `lb ≥ best` from `q`: for each of its points
//! `|p − q|² ≥ lb ≥ best ≥ dᵢ`, so the `min` would leave `dᵢ` unchanged. (`lb` is computed
//! per axis from the box face, `lo − q` or `q − hi`, with the same `f64` operations as the
//! point distance; rounding is monotone, so the computed `lb` never exceeds a point's computed
//! distance and the skip is exact, not approximate.) Visited leaves update their points and
//! recompute their best; visited inner nodes recompute theirs from their children. The node
//! holding the new pick is always visited, so that its pick is marked. Only the region around
//! `q` that is farther from every earlier pick than from `q` — about `n/i` points at the
//! `i`-th pick — is touched, instead of all `n`.
//!
//! Because every `dᵢ` is the same `f64` as in the reference and the best is chosen by the same
//! rule, the result is **identical** to [`fps_naive`], duplicates and ties included
//! (Han et al., "QuickFPS", IEEE TCAD 2023, bucket the same way; the tie and duplicate rules
//! here are the reference's).
//!
//! # Errors
//!
//! No points; more than `u32::MAX − 1` points; a non-finite coordinate (named by point and
//! value); `k` = 0 or `k` > number of points; `start` not a point index.

use crate::cloud::bounds;
use crate::error::{check_finite_points, PointsError, Result};

/// Most points one leaf of the tree holds.
pub const LEAF: usize = 32;

/// Subtrees of at least this many points are built in parallel.
const PAR_BUILD: usize = 1 << 15;

/// `dᵢ` of a picked point: below every distance.
const PICKED: f64 = -1.0;

/// Squared distance with the fixed operation order of the module doc.
#[inline(always)]
pub(crate) fn dist2(p: &[f64; 3], q: &[f64; 3]) -> f64 {
    let dx = p[0] - q[0];
    let dy = p[1] - q[1];
    let dz = p[2] - q[2];
    dx * dx + dy * dy + dz * dz
}

pub(crate) fn check_fps(what: &'static str, points: &[[f64; 3]], k: usize, start: usize) -> Result<()> {
    if points.is_empty() {
        return Err(PointsError::Empty { what, detail: "no points" });
    }
    if points.len() >= u32::MAX as usize {
        return Err(PointsError::param(what, "points", points.len() as f64, format!("below {}", u32::MAX)));
    }
    check_finite_points(what, points)?;
    if k == 0 || k > points.len() {
        return Err(PointsError::param(what, "k", k as f64, format!("1..={} (the number of points)", points.len())));
    }
    if start >= points.len() {
        return Err(PointsError::param(what, "start", start as f64, format!("0..{} (a point index)", points.len())));
    }
    Ok(())
}

/// The classic O(n·k) greedy farthest-point sampling (see the module doc): `k` indices,
/// starting with `start`. The reference [`fps_exact`] is tested against.
pub fn fps_naive(points: &[[f64; 3]], k: usize, start: usize) -> Result<Vec<usize>> {
    check_fps("fps_naive", points, k, start)?;
    let mut d = vec![f64::INFINITY; points.len()];
    let mut out = Vec::with_capacity(k);
    let mut pick = start;
    loop {
        out.push(pick);
        d[pick] = PICKED;
        if out.len() == k {
            return Ok(out);
        }
        let q = points[pick];
        let mut best = (PICKED, 0);
        for (i, (p, di)) in points.iter().zip(d.iter_mut()).enumerate() {
            if *di != PICKED {
                let e = dist2(p, &q);
                if e < *di {
                    *di = e;
                }
                if *di > best.0 {
                    best = (*di, i);
                }
            }
        }
        pick = best.1;
    }
}

/// One node of the bucket tree.
#[derive(Clone, Copy, Debug)]
struct Node {
    lo: [f64; 3],
    hi: [f64; 3],
    /// Largest `dᵢ` of the node's points (−1 when all are picked).
    best_d: f64,
    /// Original index of that point (lowest on ties).
    best_i: u32,
    /// Slot (position in tree order) of that point.
    best_slot: u32,
    /// Slot range `[start, end)`.
    start: u32,
    end: u32,
    /// Right child (the left one is the next node); 0 for a leaf.
    right: u32,
}

/// `a` beats `b`: larger distance, or equal distance and lower index.
#[inline(always)]
fn beats(ad: f64, ai: u32, bd: f64, bi: u32) -> bool {
    ad > bd || (ad == bd && ai < bi)
}

/// The bucket tree and the per-point state of one FPS run.
struct Tree {
    nodes: Vec<Node>,
    /// Points in slot order.
    pts: Vec<[f64; 3]>,
    /// Original index of each slot.
    orig: Vec<u32>,
    /// `dᵢ` per slot.
    d: Vec<f64>,
}

impl Tree {
    fn build(points: &[[f64; 3]]) -> Tree {
        let n = points.len();
        // The tree is built over (point, index) pairs moved in place, so that every pass over a
        // node's range reads contiguous memory.
        let mut items: Vec<([f64; 3], u32)> = points.iter().enumerate().map(|(i, p)| (*p, i as u32)).collect();
        let (lo, hi) = bounds(points);
        let mut nodes = Vec::with_capacity(2 * n.div_ceil(LEAF) + 1);
        Self::build_node(&mut items, 0, &mut nodes, (lo, hi));
        let (pts, orig) = items.into_iter().unzip();
        Tree { nodes, pts, orig, d: vec![f64::INFINITY; n] }
    }

    /// Builds the subtree over `items` (slots from `base`), pushing its nodes in pre-order onto
    /// `nodes` (child indices relative to `nodes`). `loose` is a box holding the items (the
    /// parent's cut by the split); the split axis is its widest, the node's own box is the tight
    /// box of its items, formed bottom-up. Large subtrees are built in parallel.
    fn build_node(items: &mut [([f64; 3], u32)], base: usize, nodes: &mut Vec<Node>, loose: ([f64; 3], [f64; 3])) {
        let me = nodes.len();
        nodes.push(Node {
            lo: [f64::INFINITY; 3],
            hi: [f64::NEG_INFINITY; 3],
            best_d: f64::INFINITY,
            best_i: 0,
            best_slot: base as u32,
            start: base as u32,
            end: (base + items.len()) as u32,
            right: 0,
        });
        if items.len() <= LEAF {
            // Index order inside a leaf: the first of equal distances is the lowest index.
            items.sort_unstable_by_key(|it| it.1);
            let n = &mut nodes[me];
            (n.lo, n.hi) = bounds(items.iter().map(|it| &it.0));
            n.best_i = items[0].1;
            return;
        }
        let (lo, hi) = loose;
        let ext = [hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]];
        let axis = if ext[0] >= ext[1] && ext[0] >= ext[2] {
            0
        } else if ext[1] >= ext[2] {
            1
        } else {
            2
        };
        let mid = items.len() / 2;
        items.select_nth_unstable_by(mid, |a, b| a.0[axis].total_cmp(&b.0[axis]).then(a.1.cmp(&b.1)));
        let cut = items[mid].0[axis];
        let (mut lhi, mut rlo) = (hi, lo);
        lhi[axis] = cut;
        rlo[axis] = cut;
        let (left, right) = items.split_at_mut(mid);
        if left.len() + right.len() >= PAR_BUILD {
            let (mut ln, mut rn) = rayon::join(
                || {
                    let mut v = Vec::new();
                    Self::build_node(left, base, &mut v, (lo, lhi));
                    v
                },
                || {
                    let mut v = Vec::new();
                    Self::build_node(right, base + mid, &mut v, (rlo, hi));
                    v
                },
            );
            let left_nodes = ln.len();
            for (sub, off) in [(&mut ln, me + 1), (&mut rn, me + 1 + left_nodes)] {
                sub.iter_mut().filter(|n| n.right != 0).for_each(|n| n.right += off as u32);
            }
            nodes.extend(ln);
            nodes[me].right = nodes.len() as u32;
            nodes.extend(rn);
        } else {
            Self::build_node(left, base, nodes, (lo, lhi));
            nodes[me].right = nodes.len() as u32;
            Self::build_node(right, base + mid, nodes, (rlo, hi));
        }
        let (l, r) = (nodes[me + 1], nodes[nodes[me].right as usize]);
        let n = &mut nodes[me];
        n.lo = [0, 1, 2].map(|a| l.lo[a].min(r.lo[a]));
        n.hi = [0, 1, 2].map(|a| l.hi[a].max(r.hi[a]));
        n.best_i = l.best_i.min(r.best_i);
    }

    /// Squared distance from `q` to the box of `node`, never above the computed distance of a
    /// point inside it (see the module doc).
    #[inline(always)]
    fn box_dist2(node: &Node, q: &[f64; 3]) -> f64 {
        let mut g = [0.0f64; 3];
        for a in 0..3 {
            g[a] = if q[a] < node.lo[a] {
                node.lo[a] - q[a]
            } else if q[a] > node.hi[a] {
                q[a] - node.hi[a]
            } else {
                0.0
            };
        }
        g[0] * g[0] + g[1] * g[1] + g[2] * g[2]
    }

    /// The update after picking slot `mark` at `q` (see the module doc).
    fn update(&mut self, ni: usize, q: &[f64; 3], mark: u32) {
        let node = self.nodes[ni];
        let holds_mark = mark >= node.start && mark < node.end;
        if !holds_mark && Self::box_dist2(&node, q) >= node.best_d {
            return;
        }
        if node.right == 0 {
            let (s, e) = (node.start as usize, node.end as usize);
            if holds_mark {
                self.d[mark as usize] = PICKED;
            }
            // `min` keeps a picked point's −1 (distances are ≥ 0) and an unpicked point's
            // `min(dᵢ, e)`: the reference's update, without branches.
            for (p, d) in self.pts[s..e].iter().zip(self.d[s..e].iter_mut()) {
                *d = d.min(dist2(p, q));
            }
            let mut best_d = PICKED;
            let mut best_slot = s;
            for (slot, &d) in self.d[s..e].iter().enumerate() {
                if d > best_d {
                    best_d = d;
                    best_slot = s + slot;
                }
            }
            let n = &mut self.nodes[ni];
            n.best_d = best_d;
            n.best_slot = best_slot as u32;
            n.best_i = self.orig[best_slot];
            return;
        }
        let (l, r) = (ni + 1, node.right as usize);
        self.update(l, q, mark);
        self.update(r, q, mark);
        let (a, b) = (self.nodes[l], self.nodes[r]);
        let win = if beats(b.best_d, b.best_i, a.best_d, a.best_i) { b } else { a };
        let n = &mut self.nodes[ni];
        n.best_d = win.best_d;
        n.best_i = win.best_i;
        n.best_slot = win.best_slot;
    }
}

/// Exact farthest-point sampling: the same `k` indices as [`fps_naive`] (the classic greedy,
/// starting at `start`, ties to the lowest index), computed with the bucket tree of the module
/// doc.
pub fn fps_exact(points: &[[f64; 3]], k: usize, start: usize) -> Result<Vec<usize>> {
    check_fps("fps_exact", points, k, start)?;
    Ok(fps_unchecked(points, k, start))
}

/// [`fps_exact`] on input already checked by [`check_fps`].
pub(crate) fn fps_unchecked(points: &[[f64; 3]], k: usize, start: usize) -> Vec<usize> {
    fps_with_gaps(points, k, start).0
}

/// [`fps_unchecked`], with the squared distance `dᵢ` each pick after the first won with (its
/// squared distance to the nearest earlier pick): `k` picks and `k − 1` distances.
pub(crate) fn fps_with_gaps(points: &[[f64; 3]], k: usize, start: usize) -> (Vec<usize>, Vec<f64>) {
    let mut t = Tree::build(points);
    let slot_of_start = t.orig.iter().position(|&o| o as usize == start).unwrap_or(0) as u32;
    let mut out = Vec::with_capacity(k);
    let mut gaps = Vec::with_capacity(k.saturating_sub(1));
    let mut slot = slot_of_start;
    loop {
        out.push(t.orig[slot as usize] as usize);
        let q = t.pts[slot as usize];
        t.update(0, &q, slot);
        if out.len() == k {
            return (out, gaps);
        }
        gaps.push(t.nodes[0].best_d);
        slot = t.nodes[0].best_slot;
    }
}

/// The smallest distance between two of the points at `indices` (duplicated indices count as
/// distance 0); `f64::INFINITY` for fewer than two. By brute force over a sorted sweep along
/// x, O(m log m) for well-spread sets. Used to compare samplings.
pub fn min_spacing(points: &[[f64; 3]], indices: &[usize]) -> f64 {
    let mut sel: Vec<[f64; 3]> = indices.iter().filter_map(|&i| points.get(i).copied()).collect();
    sel.sort_by(|a, b| a[0].total_cmp(&b[0]));
    let mut best = f64::INFINITY;
    for i in 0..sel.len() {
        for j in i + 1..sel.len() {
            let dx = sel[j][0] - sel[i][0];
            if dx * dx >= best {
                break;
            }
            best = best.min(dist2(&sel[i], &sel[j]));
        }
    }
    best.sqrt()
}

/// The largest distance from any point to its nearest point among `indices` (the covering
/// radius of the selection); `f64::INFINITY` for an empty selection. O(n·m) brute force: for
/// tests and small sets.
pub fn cover_radius(points: &[[f64; 3]], indices: &[usize]) -> f64 {
    let sel: Vec<[f64; 3]> = indices.iter().filter_map(|&i| points.get(i).copied()).collect();
    points.iter().map(|p| sel.iter().map(|s| dist2(p, s)).fold(f64::INFINITY, f64::min)).fold(0.0f64, f64::max).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use bozkir_core::rng::Rng;

    fn random_points(n: usize, seed: u32, scale: f64) -> Vec<[f64; 3]> {
        let mut r = Rng::new(seed);
        (0..n).map(|_| [r.range(0.0, scale), r.range(0.0, scale), r.range(0.0, scale)]).collect()
    }

    #[test]
    fn line_picks_extremes_then_midpoints() {
        // 17 points on a line at 0..16, start at 0: 16, then 8, then 4 and 12, then 2 6 10 14.
        let pts: Vec<[f64; 3]> = (0..17).map(|i| [i as f64, 0.0, 0.0]).collect();
        let want = vec![0, 16, 8, 4, 12, 2, 6, 10, 14, 1, 3, 5, 7, 9, 11, 13, 15];
        assert_eq!(fps_exact(&pts, 17, 0).unwrap(), want);
        assert_eq!(fps_naive(&pts, 17, 0).unwrap(), want);
        // Starting in the middle, the far end with the lower index wins the tie (0, not 16).
        assert_eq!(fps_exact(&pts, 3, 8).unwrap(), vec![8, 0, 16]);
        // A shuffled line gives the same positions.
        let mut perm: Vec<usize> = (0..17).collect();
        Rng::new(3).shuffle(&mut perm);
        let shuffled: Vec<[f64; 3]> = perm.iter().map(|&i| pts[i]).collect();
        let start = perm.iter().position(|&i| i == 0).unwrap();
        let got: Vec<usize> = fps_exact(&shuffled, 3, start).unwrap().iter().map(|&j| perm[j]).collect();
        assert_eq!(got, vec![0, 16, 8]);
    }

    #[test]
    fn equals_brute_force_on_random_sets() {
        for (n, seed, scale) in [(1usize, 1u32, 1.0), (2, 2, 1.0), (33, 3, 1.0), (500, 4, 10.0), (3000, 5, 1e-3)] {
            let pts = random_points(n, seed, scale);
            for start in [0, n / 2, n - 1] {
                let k = n.min(400);
                assert_eq!(
                    fps_exact(&pts, k, start).unwrap(),
                    fps_naive(&pts, k, start).unwrap(),
                    "n {n} start {start}"
                );
            }
        }
    }

    #[test]
    fn equals_brute_force_with_duplicates_and_ties() {
        // Integer lattice points (many equal distances), each repeated, plus a flat sheet.
        let mut r = Rng::new(8);
        let mut pts: Vec<[f64; 3]> =
            (0..1500).map(|_| [r.below(9) as f64, r.below(9) as f64, r.below(3) as f64]).collect();
        pts.extend((0..500).map(|i| [(i % 25) as f64 * 0.5, (i / 25) as f64 * 0.5, 7.0]));
        let dup: Vec<[f64; 3]> = pts.iter().step_by(3).copied().collect();
        pts.extend(dup);
        let n = pts.len();
        // k = n: every point, duplicates last in index order of their distance ties.
        for start in [0, 17, n - 1] {
            assert_eq!(fps_exact(&pts, n, start).unwrap(), fps_naive(&pts, n, start).unwrap(), "start {start}");
        }
        let all_same = vec![[1.5, -2.0, 3.0]; 100];
        let got = fps_exact(&all_same, 100, 42).unwrap();
        assert_eq!(got, fps_naive(&all_same, 100, 42).unwrap());
        assert_eq!(got[..3], [42, 0, 1]);
        let mut sorted = got.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..100).collect::<Vec<_>>());
    }

    #[test]
    fn equals_brute_force_on_a_clustered_surface() {
        // Points on a sphere shell plus a dense cluster: uneven bucket sizes and distances.
        let mut r = Rng::new(21);
        let mut pts = Vec::new();
        for _ in 0..4000 {
            let (a, b) = r.normal_pair();
            let c = r.standard_normal();
            let l = (a * a + b * b + c * c).sqrt();
            pts.push([a / l * 5.0, b / l * 5.0, c / l * 5.0]);
        }
        for _ in 0..2000 {
            pts.push([r.range(0.0, 0.01), r.range(0.0, 0.01), 5.0 + r.range(0.0, 0.01)]);
        }
        assert_eq!(fps_exact(&pts, 1500, 4321).unwrap(), fps_naive(&pts, 1500, 4321).unwrap());
    }

    #[test]
    fn spreads_better_than_a_random_subset() {
        let pts = random_points(20_000, 11, 1.0);
        let k = 512;
        let fps = fps_exact(&pts, k, 0).unwrap();
        let mut idx: Vec<usize> = (0..pts.len()).collect();
        Rng::new(12).shuffle(&mut idx);
        let random = &idx[..k];
        let (a, b) = (min_spacing(&pts, &fps), min_spacing(&pts, random));
        assert!(a > 4.0 * b, "fps spacing {a} vs random {b}");
        // Greedy FPS is a 2-approximation of the covering radius and its k-th pick distance
        // is both the min spacing and at least the covering radius of the first k − 1 picks.
        let c = cover_radius(&pts, &fps[..k - 1]);
        assert!(a >= c * (1.0 - 1e-12), "spacing {a} vs cover radius of k − 1 picks {c}");
        assert!(cover_radius(&pts, &fps) < cover_radius(&pts, random));
    }

    #[test]
    fn min_spacing_matches_brute_force() {
        let pts = random_points(300, 31, 2.0);
        let idx: Vec<usize> = (0..300).step_by(2).collect();
        let mut brute = f64::INFINITY;
        for (a, &i) in idx.iter().enumerate() {
            for &j in &idx[a + 1..] {
                brute = brute.min(dist2(&pts[i], &pts[j]).sqrt());
            }
        }
        assert_eq!(min_spacing(&pts, &idx), brute);
        assert_eq!(min_spacing(&pts, &[3]), f64::INFINITY);
        assert_eq!(min_spacing(&pts, &[3, 3]), 0.0);
    }

    #[test]
    fn bad_input_is_refused_with_the_value() {
        let pts = random_points(10, 1, 1.0);
        let err = |r: Result<Vec<usize>>| r.unwrap_err().to_string();
        assert!(err(fps_exact(&pts, 0, 0)).contains("k = 0"));
        assert!(err(fps_exact(&pts, 11, 0)).contains("k = 11"));
        assert!(err(fps_exact(&pts, 3, 10)).contains("start = 10"));
        assert!(err(fps_exact(&[], 1, 0)).contains("no points"));
        let mut bad = pts.clone();
        bad[6][2] = f64::NAN;
        assert!(err(fps_exact(&bad, 3, 0)).contains("point 6 is not finite (NaN)"));
        assert!(err(fps_naive(&bad, 3, 0)).contains("point 6 is not finite (NaN)"));
    }
}

//! Grading (Galin et al. §6.2): cut and fill the terrain to the road within the asphalt
//! half-width r, blend back to the natural ground over the shoulder out to R, and leave the
//! ground under bridges alone.
//!
//! For every dry cell within R of the network's centrelines, the nearest road-surface
//! sample q (densified centrelines on land, at their cell's height z_q) at distance d gives
//! `h ← z_q` if d ≤ r, `h ← (1 − a)·z_q + a·h` with `a = smoothstep((d − r)/(R − r))` if
//! r < d < R, and leaves h otherwise. The nearest sample is found with a static k-d tree built
//! and searched exactly as pyworldgen's, so ties between equidistant samples resolve the same;
//! cells farther than R from every sample (found by stamping the samples' neighbourhoods) are
//! skipped without a search, as they stay unchanged.

use super::network::{cell_of, densify};

/// A static 2-D k-d tree (median split on a cycle of three axes, the third always zero, as
/// pyworldgen's 3-D tree over points with z = 0).
pub(crate) struct KdTree<'a> {
    pts: &'a [[f64; 2]],
    /// Nodes: (point index, axis, left, right), u32::MAX = none.
    nodes: Vec<(u32, u8, u32, u32)>,
    root: u32,
}

impl<'a> KdTree<'a> {
    pub(crate) fn new(pts: &'a [[f64; 2]]) -> Self {
        let mut t = Self { pts, nodes: Vec::with_capacity(pts.len()), root: u32::MAX };
        let mut idx: Vec<u32> = (0..pts.len() as u32).collect();
        t.root = t.build(&mut idx, 0);
        t
    }

    fn key(&self, i: u32, axis: u8) -> f64 {
        match axis {
            0 => self.pts[i as usize][0],
            1 => self.pts[i as usize][1],
            _ => 0.0,
        }
    }

    fn build(&mut self, idx: &mut [u32], depth: usize) -> u32 {
        if idx.is_empty() {
            return u32::MAX;
        }
        let axis = (depth % 3) as u8;
        if axis < 2 {
            // Stable, and equal keys (−0 = +0) keep their order, as Python's sort.
            idx.sort_by(|&a, &b| {
                self.key(a, axis).partial_cmp(&self.key(b, axis)).unwrap_or(std::cmp::Ordering::Equal)
            });
        }
        let mid = idx.len() / 2;
        let me = self.nodes.len() as u32;
        self.nodes.push((idx[mid], axis, u32::MAX, u32::MAX));
        let (lo, rest) = idx.split_at_mut(mid);
        let left = self.build(lo, depth + 1);
        let right = self.build(&mut rest[1..], depth + 1);
        self.nodes[me as usize].2 = left;
        self.nodes[me as usize].3 = right;
        me
    }

    /// (index, squared distance) of the nearest point; the first found wins ties.
    pub(crate) fn nearest(&self, q: [f64; 2]) -> (usize, f64) {
        let mut best = (usize::MAX, f64::INFINITY);
        self.visit(self.root, q, &mut best);
        best
    }

    fn visit(&self, node: u32, q: [f64; 2], best: &mut (usize, f64)) {
        if node == u32::MAX {
            return;
        }
        let (pi, axis, left, right) = self.nodes[node as usize];
        let p = self.pts[pi as usize];
        let (dx, dy) = (p[0] - q[0], p[1] - q[1]);
        let d2 = dx * dx + dy * dy;
        if best.0 == usize::MAX || d2 < best.1 {
            *best = (pi as usize, d2);
        }
        let diff = match axis {
            0 => q[0] - p[0],
            1 => q[1] - p[1],
            _ => 0.0,
        };
        let (near, far) = if diff < 0.0 { (left, right) } else { (right, left) };
        self.visit(near, q, best);
        if diff * diff < best.1 {
            self.visit(far, q, best);
        }
    }
}

/// Cells whose centre may lie within `reach` metres of one of `pts`: every cell within
/// `reach / res + 1` cells (Chebyshev) of a point's cell. A superset of the cells that grading
/// can change; the rest are skipped without a nearest-point search.
fn near_cells(pts: &[[f64; 2]], nx: usize, ny: usize, res: f64, reach: f64) -> Vec<bool> {
    let mut near = vec![false; nx * ny];
    let rad = (reach / res).ceil() as i64 + 1;
    let mut last = None;
    for p in pts {
        let (ix, iy) = cell_of(p[0], p[1], res, nx, ny);
        if last == Some((ix, iy)) {
            continue;
        }
        last = Some((ix, iy));
        let (x0, x1) = ((ix as i64 - rad).max(0) as usize, (ix as i64 + rad + 1).min(nx as i64) as usize);
        let (y0, y1) = ((iy as i64 - rad).max(0) as usize, (iy as i64 + rad + 1).min(ny as i64) as usize);
        for row in near[y0 * nx..y1 * nx].chunks_exact_mut(nx) {
            row[x0..x1].fill(true);
        }
    }
    near
}

/// The shoulder weight `a²(3 − 2a)` of `a` clamped to [0, 1].
fn smoothstep(a: f64) -> f64 {
    let a = a.clamp(0.0, 1.0);
    a * a * (3.0 - 2.0 * a)
}

/// The terrain graded along the given centrelines: see the module docs. `r` = asphalt
/// half-width, `big_r` = blend half-width; cells with water deeper than `water_threshold` are
/// bridge spans or water and stay as they are. Heights `ny × nx`, row 0 south.
#[allow(clippy::too_many_arguments)]
pub fn grade_terrain(
    height: &[f64],
    water: &[f64],
    nx: usize,
    ny: usize,
    res: f64,
    lines: &[&[[f64; 2]]],
    r: f64,
    big_r: f64,
    water_threshold: f64,
) -> Vec<f64> {
    let mut h = height.to_vec();
    let (mut pts, mut zs) = (Vec::new(), Vec::new());
    for line in lines.iter().filter(|l| l.len() >= 2) {
        for p in densify(line, res) {
            let (ix, iy) = cell_of(p[0], p[1], res, nx, ny);
            let c = iy * nx + ix;
            if water[c] <= water_threshold {
                pts.push(p);
                zs.push(height[c]);
            }
        }
    }
    if pts.is_empty() {
        return h;
    }
    let tree = KdTree::new(&pts);
    // Only cells whose centre lies within R of some sample can change: mark them by stamping
    // a disc of radius R (plus a cell, for safety) around each sample's cell, then search the
    // nearest sample exactly (as pyworldgen, ties included) for the marked dry cells alone.
    let near = near_cells(&pts, nx, ny, res, big_r.max(r));
    for (c, _) in near.iter().enumerate().filter(|(_, &n)| n) {
        if water[c] > water_threshold {
            continue;
        }
        let (ix, iy) = (c % nx, c / nx);
        let (cx, cy) = ((ix as f64 + 0.5) * res, (iy as f64 + 0.5) * res);
        let (k, d2) = tree.nearest([cx, cy]);
        let d = d2.sqrt();
        let z = zs[k];
        if d <= r {
            h[c] = z;
        } else if d < big_r {
            let a = smoothstep((d - r) / (big_r - r));
            h[c] = (1.0 - a) * z + a * h[c];
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kd_nearest_matches_brute_force() {
        let pts: Vec<[f64; 2]> =
            (0..200).map(|i| [((i * 37) % 101) as f64 * 0.7, ((i * 53) % 89) as f64 * 0.9]).collect();
        let t = KdTree::new(&pts);
        for q in 0..300 {
            let qp = [(q % 17) as f64 * 4.1, (q / 17) as f64 * 4.7];
            let (_, d2) = t.nearest(qp);
            let bf = pts.iter().map(|p| (p[0] - qp[0]).powi(2) + (p[1] - qp[1]).powi(2)).fold(f64::INFINITY, f64::min);
            assert_eq!(d2, bf);
        }
    }

    /// The skip of far cells changes nothing: every cell equals a brute-force grading (nearest
    /// sample by a linear scan over all samples, for every dry cell of the grid).
    #[test]
    fn grading_equals_brute_force_over_the_whole_grid() {
        let (nx, ny, res) = (90usize, 70usize, 1.5);
        let height: Vec<f64> =
            (0..nx * ny).map(|c| ((c % nx) as f64 * 0.37).sin() * 3.0 + (c / nx) as f64 * 0.05).collect();
        let water: Vec<f64> = (0..nx * ny).map(|c| if (c % nx) > 60 && (c / nx) < 20 { 1.0 } else { 0.0 }).collect();
        let a: Vec<[f64; 2]> =
            (0..40).map(|i| [3.1 + i as f64 * 2.9, 7.3 + (i as f64 * 0.31).sin() * 20.0 + i as f64]).collect();
        let b: Vec<[f64; 2]> = vec![[10.2, 90.7], [60.1, 40.3], [120.9, 20.2]];
        let (r, big_r, thr) = (1.5, 6.0, 0.3);
        let got = grade_terrain(&height, &water, nx, ny, res, &[&a, &b], r, big_r, thr);
        let (mut pts, mut zs) = (Vec::new(), Vec::new());
        for line in [&a, &b] {
            for p in densify(line, res) {
                let (ix, iy) = cell_of(p[0], p[1], res, nx, ny);
                if water[iy * nx + ix] <= thr {
                    pts.push(p);
                    zs.push(height[iy * nx + ix]);
                }
            }
        }
        let mut changed = 0;
        for c in 0..nx * ny {
            let mut want = height[c];
            if water[c] <= thr {
                let q = [((c % nx) as f64 + 0.5) * res, ((c / nx) as f64 + 0.5) * res];
                let (k, d2) = pts
                    .iter()
                    .enumerate()
                    .map(|(k, p)| (k, (p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2)))
                    .fold((usize::MAX, f64::INFINITY), |b, x| if x.1 < b.1 { x } else { b });
                let d = d2.sqrt();
                if d <= r {
                    want = zs[k];
                } else if d < big_r {
                    let a = smoothstep((d - r) / (big_r - r));
                    want = (1.0 - a) * zs[k] + a * height[c];
                }
            }
            if want != height[c] {
                changed += 1;
            }
            assert_eq!(got[c].to_bits(), want.to_bits(), "cell {c}");
        }
        assert!(changed > 200, "the lines grade a shoulder ({changed} cells)");
    }
}

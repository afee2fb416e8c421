//! The network around the routes: hubs, which hub pairs get a road, centreline smoothing, the
//! corridor cells of a route and the rasterised road mask (pyworldgen's `generate.py` and
//! `network.py`, same arithmetic).

use super::np::{ihypot, interp_index, linspace, pairwise_sum, round_even};
use super::RoadParams;
use crate::random::Draws;

/// A network node: a hub (or a tunnel portal) at world position `xy` in cell `grid`.
#[derive(Debug, Clone, PartialEq)]
pub struct RoadNode {
    /// Index in [`RoadNetwork::nodes`](super::RoadNetwork::nodes).
    pub id: usize,
    /// World position (x east, y north) in metres.
    pub xy: (f64, f64),
    /// Cell (ix, iy).
    pub grid: (usize, usize),
    /// `"hub"` or `"portal"`.
    pub kind: &'static str,
}

/// Per-cell grade magnitude `|∇h|` by numpy's `gradient` (central differences inside, one-sided
/// at the edges), `ny × nx` row-major.
pub fn slope_magnitude(height: &[f64], nx: usize, ny: usize, res: f64) -> Vec<f64> {
    let at = |i: usize, j: usize| height[j * nx + i];
    let grad = |n: usize, k: usize, f: &dyn Fn(usize) -> f64| -> f64 {
        if n < 2 {
            0.0
        } else if k == 0 {
            (f(1) - f(0)) / res
        } else if k == n - 1 {
            (f(n - 1) - f(n - 2)) / res
        } else {
            (f(k + 1) - f(k - 1)) / (2.0 * res)
        }
    };
    let mut out = vec![0.0; nx * ny];
    for j in 0..ny {
        for i in 0..nx {
            let gx = grad(nx, i, &|k| at(k, j));
            let gy = grad(ny, j, &|k| at(i, k));
            out[j * nx + i] = (gx * gx + gy * gy).sqrt();
        }
    }
    out
}

/// Place hubs by dart throwing (pyworldgen's `place_hubs`): draw x ~ U[0, W), y ~ U[0, H) from
/// `draws`; refuse wet cells (depth > 0.05 with `avoid_water`), steep cells
/// (`|∇h| > max_hub_slope`) and darts closer than the spacing to an earlier hub; stop at
/// `num_hubs` hubs or `400·num_hubs` darts.
#[allow(clippy::too_many_arguments)]
pub fn place_hubs(
    height: &[f64],
    water: &[f64],
    nx: usize,
    ny: usize,
    res: f64,
    domain: (f64, f64),
    p: &RoadParams,
    draws: &mut dyn Draws,
) -> Vec<RoadNode> {
    let (w, h) = domain;
    let slope = slope_magnitude(height, nx, ny, res);
    let nh = p.num_hubs.max(1) as f64;
    let spacing = p.min_hub_spacing.unwrap_or_else(|| 0.55 * (w * h / nh).sqrt());
    let mut hubs: Vec<RoadNode> = Vec::new();
    let max_attempts = 400 * p.num_hubs.max(1);
    let mut attempts = 0;
    while hubs.len() < p.num_hubs && attempts < max_attempts {
        attempts += 1;
        let x = draws.uniform(0.0, w);
        let y = draws.uniform(0.0, h);
        let ix = (x / res).clamp(0.0, (nx - 1) as f64) as usize;
        let iy = (y / res).clamp(0.0, (ny - 1) as f64) as usize;
        let c = iy * nx + ix;
        if p.avoid_water && water[c] > 0.05 {
            continue;
        }
        if slope[c] > p.max_hub_slope {
            continue;
        }
        if hubs.iter().any(|hb| (x - hb.xy.0) * (x - hb.xy.0) + (y - hb.xy.1) * (y - hb.xy.1) < spacing * spacing) {
            continue;
        }
        hubs.push(RoadNode { id: hubs.len(), xy: (x, y), grid: (ix, iy), kind: "hub" });
    }
    hubs
}

fn dist(a: (f64, f64), b: (f64, f64)) -> f64 {
    let (dx, dy) = (a.0 - b.0, a.1 - b.1);
    (dx * dx + dy * dy).sqrt()
}

/// Prim's minimum spanning tree over the hubs' Euclidean distances, from hub 0, ties to the
/// lowest index; edges `(parent, child)` in the order they join.
pub fn mst_edges(hubs: &[RoadNode]) -> Vec<(usize, usize)> {
    let n = hubs.len();
    if n < 2 {
        return Vec::new();
    }
    let mut in_tree = vec![false; n];
    let mut best = vec![f64::INFINITY; n];
    let mut parent = vec![usize::MAX; n];
    best[0] = 0.0;
    let mut edges = Vec::new();
    for _ in 0..n {
        let mut u = 0;
        let mut bu = f64::INFINITY;
        let mut found = false;
        for v in 0..n {
            let b = if in_tree[v] { f64::INFINITY } else { best[v] };
            if !found || b < bu {
                (u, bu, found) = (v, b, true);
            }
        }
        in_tree[u] = true;
        if parent[u] != usize::MAX {
            edges.push((parent[u], u));
        }
        for v in 0..n {
            let d = dist(hubs[v].xy, hubs[u].xy);
            if !in_tree[v] && d < best[v] {
                best[v] = d;
                parent[v] = u;
            }
        }
    }
    edges
}

/// The `round_half_even(fraction·|mst|)` shortest hub pairs not in the tree, as loop edges.
pub fn extra_edges(hubs: &[RoadNode], mst: &[(usize, usize)], fraction: f64) -> Vec<(usize, usize)> {
    let n = hubs.len();
    let k = round_even(fraction * mst.len() as f64);
    if n < 3 || k <= 0.0 {
        return Vec::new();
    }
    let have: Vec<(usize, usize)> = mst.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
    let mut cand = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            if !have.contains(&(i, j)) {
                cand.push((dist(hubs[i].xy, hubs[j].xy), i, j));
            }
        }
    }
    cand.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    cand.into_iter().take(k as usize).map(|(_, i, j)| (i, j)).collect()
}

/// Chaikin corner cutting, `iters` rounds: each edge (p, q) becomes ¾p + ¼q, ¼p + ¾q; the
/// endpoints stay. Polylines of fewer than three points are left as they are.
pub fn chaikin(points: &[[f64; 2]], iters: usize) -> Vec<[f64; 2]> {
    let mut pts = points.to_vec();
    for _ in 0..iters {
        if pts.len() < 3 {
            break;
        }
        let mut new = Vec::with_capacity(2 * pts.len());
        new.push(pts[0]);
        for w in pts.windows(2) {
            let (p, q) = (w[0], w[1]);
            new.push([0.75 * p[0] + 0.25 * q[0], 0.75 * p[1] + 0.25 * q[1]]);
            new.push([0.25 * p[0] + 0.75 * q[0], 0.25 * p[1] + 0.75 * q[1]]);
        }
        new.push(pts[pts.len() - 1]);
        pts = new;
    }
    pts
}

/// Every cell the straight segments between a path's waypoints pass through, sampled at
/// `max(2, ⌊2·len⌋ + 1)` points per segment and rounded half to even (the corridor that later
/// routes reuse). Unordered, may repeat.
pub fn cells_along(path: &[(usize, usize)], nx: usize, ny: usize, out: &mut Vec<usize>) {
    for w in path.windows(2) {
        let ((ax, ay), (bx, by)) = (w[0], w[1]);
        let (dx, dy) = (bx as i64 - ax as i64, by as i64 - ay as i64);
        let n = 2usize.max((ihypot(dx, dy) * 2.0) as usize + 1);
        for t in linspace(0.0, 1.0, n) {
            let ix = round_even(ax as f64 + dx as f64 * t).clamp(0.0, (nx - 1) as f64) as usize;
            let iy = round_even(ay as f64 + dy as f64 * t).clamp(0.0, (ny - 1) as f64) as usize;
            out.push(iy * nx + ix);
        }
    }
}

/// A polyline resampled at about half-cell spacing: `max(⌊L/(res/2)⌋ + 1, M)` points evenly in
/// the vertex parameter (pyworldgen's `_densify`).
pub fn densify(line: &[[f64; 2]], res: f64) -> Vec<[f64; 2]> {
    let seglen: Vec<f64> = line
        .windows(2)
        .map(|w| {
            let (dx, dy) = (w[1][0] - w[0][0], w[1][1] - w[0][1]);
            (dx * dx + dy * dy).sqrt()
        })
        .collect();
    let n = ((pairwise_sum(&seglen) / (res * 0.5)) as usize + 1).max(line.len());
    let xs: Vec<f64> = line.iter().map(|p| p[0]).collect();
    let ys: Vec<f64> = line.iter().map(|p| p[1]).collect();
    linspace(0.0, (line.len() - 1) as f64, n)
        .into_iter()
        .map(|t| [interp_index(t, &xs), interp_index(t, &ys)])
        .collect()
}

/// The cell containing world point (x, y), clamped to the grid.
#[inline]
pub fn cell_of(x: f64, y: f64, res: f64, nx: usize, ny: usize) -> (usize, usize) {
    let ix = ((x / res).floor() as i64).clamp(0, nx as i64 - 1) as usize;
    let iy = ((y / res).floor() as i64).clamp(0, ny as i64 - 1) as usize;
    (ix, iy)
}

/// Stamp each centreline into a road mask: discs of radius `max(width/2, res/2)` around the
/// cells of the densified centreline, a cell in when its centre is within the radius.
pub fn rasterize_roads(lines: &[&[[f64; 2]]], nx: usize, ny: usize, res: f64, width: f64) -> Vec<bool> {
    let mut mask = vec![false; nx * ny];
    let half = (width * 0.5).max(res * 0.5);
    let rad = (half / res).ceil() as i64;
    for line in lines {
        if line.len() < 2 {
            continue;
        }
        let mut last = None;
        for p in densify(line, res) {
            let (ix, iy) = cell_of(p[0], p[1], res, nx, ny);
            if last == Some((ix, iy)) {
                continue; // the same disc again
            }
            last = Some((ix, iy));
            let (cx, cy) = ((ix as f64 + 0.5) * res, (iy as f64 + 0.5) * res);
            let (x0, x1) = ((ix as i64 - rad).max(0), (ix as i64 + rad + 1).min(nx as i64));
            let (y0, y1) = ((iy as i64 - rad).max(0), (iy as i64 + rad + 1).min(ny as i64));
            for yy in y0..y1 {
                for xx in x0..x1 {
                    let d = ((xx as f64 + 0.5) * res - cx).hypot((yy as f64 + 0.5) * res - cy);
                    if d <= half {
                        mask[yy as usize * nx + xx as usize] = true;
                    }
                }
            }
        }
    }
    mask
}

//! Point cloud → height field (bozkır inventory §2.6, `height_from_points`).
//!
//! In the cloud's own frame with z up:
//!
//! 1. The square window spans the larger of the p1–p99 extents of x and of y (robust to
//!    stray points), centred on the midpoints of those ranges.
//! 2. A point at `(x, y)` falls in column `round(((x − cx) / span + 0.5) · (n − 1))` and row
//!    `n − 1 − round(((y − cy) / span + 0.5) · (n − 1))`, clamped to the grid (row 0 is the
//!    +y edge, as for north-up rasters). The original truncates instead of rounding; rounding
//!    puts grid nodes at `c − span/2 + k · span/(n − 1)`, which is the cell size we report.
//! 3. Each cell's height is the given percentile (15 by default: the ground under grass and
//!    stones) of its points' z, with linear interpolation between order statistics (NumPy's
//!    default `percentile`).
//! 4. With `fill`, empty cells take the global mean of the filled cells, then `max(8, n / 8)`
//!    Jacobi passes replace each empty cell by the mean of its in-grid 4-neighbours (filled
//!    cells never change). Without `fill` they stay NaN.
//!
//! Non-finite points are ignored; an empty cloud gives an all-NaN grid.

use bozkir_core::Grid;

/// Percentile `p` (0–100) of sorted `v` by linear interpolation; `v` must be non-empty.
fn percentile_sorted(v: &[f64], p: f64) -> f64 {
    let pos = p / 100.0 * (v.len() - 1) as f64;
    let i = pos.floor() as usize;
    let t = pos - i as f64;
    if i + 1 < v.len() {
        v[i] + (v[i + 1] - v[i]) * t
    } else {
        v[v.len() - 1]
    }
}

/// Percentile of unsorted values, using selection (O(n)).
fn percentile_select(v: &mut [f64], p: f64) -> f64 {
    let pos = p / 100.0 * (v.len() - 1) as f64;
    let i = pos.floor() as usize;
    let t = pos - i as f64;
    let (_, &mut a, rest) = v.select_nth_unstable_by(i, f64::total_cmp);
    if t > 0.0 && !rest.is_empty() {
        let b = rest.iter().copied().fold(f64::INFINITY, f64::min);
        a + (b - a) * t
    } else {
        a
    }
}

/// Height field of `n × n` cells from `points`; see the module documentation.
/// Cell size `span / (n − 1)` in the points' units (1 if `n < 2` or the span is zero).
pub fn height_from_points(points: &[[f64; 3]], n: usize, percentile: f64, fill: bool) -> Grid<f64> {
    let n = n.max(1);
    let pts: Vec<[f64; 3]> = points.iter().copied().filter(|p| p.iter().all(|v| v.is_finite())).collect();
    if pts.is_empty() {
        return Grid::new(n, n, f64::NAN);
    }
    let mut xs: Vec<f64> = pts.iter().map(|p| p[0]).collect();
    let mut ys: Vec<f64> = pts.iter().map(|p| p[1]).collect();
    let (x1, x99) = (percentile_select(&mut xs, 1.0), percentile_select(&mut xs, 99.0));
    let (y1, y99) = (percentile_select(&mut ys, 1.0), percentile_select(&mut ys, 99.0));
    let span = (x99 - x1).max(y99 - y1);
    let (cx, cy) = ((x1 + x99) / 2.0, (y1 + y99) / 2.0);
    let last = (n - 1) as f64;
    let cell = |u: f64, c: f64| -> usize {
        if span > 0.0 {
            (((u - c) / span + 0.5) * last).round().clamp(0.0, last) as usize
        } else {
            n / 2
        }
    };
    // Bucket the points by cell (counting sort), then take each bucket's percentile.
    let idx: Vec<usize> = pts.iter().map(|p| (n - 1 - cell(p[1], cy)) * n + cell(p[0], cx)).collect();
    let mut start = vec![0usize; n * n + 1];
    for &i in &idx {
        start[i + 1] += 1;
    }
    for i in 0..n * n {
        start[i + 1] += start[i];
    }
    let mut zs = vec![0.0; pts.len()];
    let mut next = start.clone();
    for (p, &i) in pts.iter().zip(&idx) {
        zs[next[i]] = p[2];
        next[i] += 1;
    }
    let mut h = vec![f64::NAN; n * n];
    let (mut sum, mut filled) = (0.0, 0usize);
    for (c, hc) in h.iter_mut().enumerate() {
        let bucket = &mut zs[start[c]..start[c + 1]];
        if !bucket.is_empty() {
            bucket.sort_unstable_by(f64::total_cmp);
            *hc = percentile_sorted(bucket, percentile);
            sum += *hc;
            filled += 1;
        }
    }
    if fill && filled < n * n {
        let mean = sum / filled as f64;
        let empty: Vec<usize> = (0..n * n).filter(|&c| h[c].is_nan()).collect();
        for &c in &empty {
            h[c] = mean;
        }
        let mut new = vec![0.0; empty.len()];
        for _ in 0..(n / 8).max(8) {
            for (k, &c) in empty.iter().enumerate() {
                let (x, y) = (c % n, c / n);
                let (mut s, mut m) = (0.0, 0.0);
                if x > 0 {
                    s += h[c - 1];
                    m += 1.0;
                }
                if x + 1 < n {
                    s += h[c + 1];
                    m += 1.0;
                }
                if y > 0 {
                    s += h[c - n];
                    m += 1.0;
                }
                if y + 1 < n {
                    s += h[c + n];
                    m += 1.0;
                }
                new[k] = if m > 0.0 { s / m } else { h[c] };
            }
            for (k, &c) in empty.iter().enumerate() {
                h[c] = new[k];
            }
        }
    }
    let d = if span > 0.0 && n > 1 { span / last } else { 1.0 };
    Grid::from_vec(n, n, h).with_cell_size(d, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_match_numpy_linear() {
        let v = [1.0, 2.0, 3.0, 4.0, 10.0];
        // numpy.percentile([1,2,3,4,10], 15) == 1.6 ; 99 -> 9.76
        assert!((percentile_sorted(&v, 15.0) - 1.6).abs() < 1e-12);
        let mut w = v.to_vec();
        assert!((percentile_select(&mut w, 99.0) - 9.76).abs() < 1e-12);
    }

    #[test]
    fn plane_with_hole_is_recovered_and_filled() {
        // z = 0.1 x + 0.2 y on a 0..10 square, with a hole in the middle and noise above.
        let mut pts = Vec::new();
        for i in 0..=200 {
            for j in 0..=200 {
                let (x, y) = (i as f64 * 0.05, j as f64 * 0.05);
                if (4.0..6.0).contains(&x) && (4.0..6.0).contains(&y) {
                    continue;
                }
                let z = 0.1 * x + 0.2 * y;
                pts.push([x, y, z]);
                if (i + j) % 7 == 0 {
                    pts.push([x, y, z + 1.0]); // vegetation above the ground
                }
            }
        }
        let g = height_from_points(&pts, 33, 15.0, true);
        assert_eq!((g.width(), g.height()), (33, 33));
        assert!(g.data().iter().all(|v| v.is_finite()));
        // Away from the hole, heights follow the plane (row 0 is +y).
        let span = 9.8; // p1–p99 of 0..10
        let (x, y) = (5usize, 27usize);
        let wx = 5.0 + (x as f64 / 32.0 - 0.5) * span;
        let wy = 5.0 + ((32 - y) as f64 / 32.0 - 0.5) * span;
        assert!((g.get(x, y) - (0.1 * wx + 0.2 * wy)).abs() < 0.05, "{} vs {}", g.get(x, y), 0.1 * wx + 0.2 * wy);
        let mid = *g.get(16, 16);
        assert!((mid - 1.5).abs() < 0.3, "filled centre {mid}");
        let open = height_from_points(&pts, 33, 15.0, false);
        assert!(open.get(16, 16).is_nan());
        assert!((g.dx - span / 32.0).abs() < 0.01);
    }
}

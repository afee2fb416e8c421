//! Point cloud → height field: the one gridding of the project (bozkır inventory §2.6,
//! `height_from_points`), used by `bozkir heightmap` and by the point-cloud mode of the rule's
//! validation.
//!
//! Each cell's height is a percentile of the z of the points that fall in it (15 by default: the
//! ground under grass and stones), NumPy's linear interpolation ([`bozkir_core::stats`]). Where
//! the raster lies over the points is a [`Frame`]; what empty cells become is a [`HoleFill`]:
//!
//! * [`Frame::Robust`] (inventory §2.6, in the cloud's own frame with z up): the square window
//!   spans the larger of the p1–p99 extents of x and of y (robust to stray points), centred on
//!   the midpoints of those ranges. A point at `(x, y)` falls in column
//!   `round(((x − cx) / span + 0.5) · (n − 1))` and row
//!   `n − 1 − round(((y − cy) / span + 0.5) · (n − 1))`, clamped to the grid (row 0 is the +y
//!   edge, as for north-up rasters). The original truncates instead of rounding; rounding puts
//!   grid nodes at `c − span/2 + k · span/(n − 1)`, which is the cell size reported
//!   (`span / (n − 1)`, 1 if `n < 2` or the span is zero).
//! * [`Frame::Square`]: a given square window cut into `n × n` cells; a point falls in the cell
//!   containing it ([`Square::cell`]), points outside are dropped. Cell size: the window's side
//!   over `n`.
//! * [`HoleFill::MeanThenRelax`]: empty cells take the mean of the filled cells, then
//!   `max(8, n / 8)` Jacobi passes replace each empty cell by the mean of its in-grid
//!   4-neighbours (filled cells never change).
//! * [`HoleFill::Neighbours`]: pass by pass, each empty cell with at least one filled
//!   4-neighbour takes their mean, until every cell is filled (or none can be).
//! * [`HoleFill::Keep`]: empty cells stay NaN.
//!
//! Non-finite points are ignored; a cloud without any gives an all-NaN grid.

use bozkir_core::stats::{percentile_select, percentile_sorted};
use bozkir_core::Grid;

/// A square window `[x_min, x_max) × (y_min, y_max]` in the points' units, cut into cells row by
/// row from the north-west corner (row 0 at `y_max`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Square {
    /// West edge.
    pub x_min: f64,
    /// South edge.
    pub y_min: f64,
    /// East edge.
    pub x_max: f64,
    /// North edge.
    pub y_max: f64,
}

impl Square {
    /// Index `row · n + col` of the cell of an `n × n` grid over the window that holds
    /// `(x, y)`, or `None` outside the window.
    ///
    /// # Examples
    ///
    /// ```
    /// use bozkir_terrain::points::Square;
    ///
    /// let w = Square { x_min: 0.0, y_min: 0.0, x_max: 4.0, y_max: 4.0 };
    /// assert_eq!(w.cell(0.5, 3.5, 4), Some(0)); // north-west
    /// assert_eq!(w.cell(3.5, 0.5, 4), Some(15)); // south-east
    /// assert_eq!(w.cell(4.0, 1.0, 4), None);
    /// assert_eq!(w.centre(0, 0, 4), (0.5, 3.5));
    /// ```
    pub fn cell(&self, x: f64, y: f64, n: usize) -> Option<usize> {
        let u = (x - self.x_min) / (self.x_max - self.x_min);
        let v = (self.y_max - y) / (self.y_max - self.y_min);
        if !(0.0..1.0).contains(&u) || !(0.0..1.0).contains(&v) {
            return None;
        }
        let (c, r) = (((u * n as f64) as usize).min(n - 1), ((v * n as f64) as usize).min(n - 1));
        Some(r * n + c)
    }

    /// Coordinates of the centre of cell `(r, c)` of an `m × m` grid over the window.
    pub fn centre(&self, r: usize, c: usize, m: usize) -> (f64, f64) {
        (
            self.x_min + (c as f64 + 0.5) / m as f64 * (self.x_max - self.x_min),
            self.y_max - (r as f64 + 0.5) / m as f64 * (self.y_max - self.y_min),
        )
    }
}

/// Where the raster lies over the points (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Frame {
    /// The square over the p1–p99 extents, grid nodes at its edges (inventory §2.6).
    Robust,
    /// A given window, cells of its side over `n`; points outside are dropped.
    Square(Square),
}

/// What empty cells become (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoleFill {
    /// Empty cells stay NaN.
    Keep,
    /// The mean of the filled cells, then `max(8, n / 8)` Jacobi passes over the empty ones.
    MeanThenRelax,
    /// Pass by pass from the already-filled 4-neighbours until none is left.
    Neighbours,
}

/// How to grid a point cloud: cells per side, the percentile, the frame and the hole fill.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gridding {
    /// Cells per side (at least 1).
    pub n: usize,
    /// Percentile (0–100) of the z of each cell's points.
    pub percentile: f64,
    /// Where the raster lies.
    pub frame: Frame,
    /// What empty cells become.
    pub fill: HoleFill,
}

impl Gridding {
    /// The inventory's gridding (§2.6): `n × n`, 15th percentile, [`Frame::Robust`], holes
    /// filled by [`HoleFill::MeanThenRelax`] — what `bozkir heightmap` does with a point cloud.
    pub fn inventory(n: usize) -> Self {
        Gridding { n, percentile: 15.0, frame: Frame::Robust, fill: HoleFill::MeanThenRelax }
    }
}

/// A gridded point cloud.
#[derive(Debug, Clone, PartialEq)]
pub struct PointHeights {
    /// The height field (`n × n`, row 0 at +y), NaN where a cell stayed empty.
    pub heights: Grid<f64>,
    /// Cells that held no point before the hole fill.
    pub empty: usize,
}

/// Height field of `g.n × g.n` cells from `points` (`[x, y, z]`); see the module documentation.
///
/// # Examples
///
/// ```
/// use bozkir_terrain::points::{height_from_points, Gridding};
///
/// // Ground on the plane z = 0.1·x with a taller point above every fifth one.
/// let mut pts = Vec::new();
/// for i in 0..=100 {
///     for j in 0..=100 {
///         let (x, y) = (i as f64 * 0.1, j as f64 * 0.1);
///         pts.push([x, y, 0.1 * x]);
///         if (i + j) % 5 == 0 {
///             pts.push([x, y, 0.1 * x + 2.0]);
///         }
///     }
/// }
/// let g = height_from_points(&pts, &Gridding::inventory(17));
/// assert_eq!(g.empty, 0);
/// assert_eq!((g.heights.width(), g.heights.height()), (17, 17));
/// // The 15th percentile ignores the taller points: the west edge is near z = 0.1·x ≈ 0.01.
/// assert!((g.heights.get(0, 8) - 0.01).abs() < 0.02);
/// ```
pub fn height_from_points(points: &[[f64; 3]], g: &Gridding) -> PointHeights {
    let n = g.n.max(1);
    let pts: Vec<[f64; 3]> = points.iter().copied().filter(|p| p.iter().all(|v| v.is_finite())).collect();
    let (idx, cell_size): (Vec<Option<usize>>, (f64, f64)) = match &g.frame {
        Frame::Robust => {
            if pts.is_empty() {
                return PointHeights { heights: Grid::new(n, n, f64::NAN), empty: n * n };
            }
            robust_cells(&pts, n)
        }
        Frame::Square(w) => {
            let idx = pts.iter().map(|p| w.cell(p[0], p[1], n)).collect();
            (idx, ((w.x_max - w.x_min) / n as f64, (w.y_max - w.y_min) / n as f64))
        }
    };
    let mut h = cell_percentiles(&pts, &idx, n, g.percentile);
    let empty = h.iter().filter(|v| v.is_nan()).count();
    match g.fill {
        HoleFill::Keep => {}
        HoleFill::MeanThenRelax => mean_then_relax(&mut h, n),
        HoleFill::Neighbours => neighbours(&mut h, n),
    }
    PointHeights { heights: Grid::from_vec(n, n, h).with_cell_size(cell_size.0, cell_size.1), empty }
}

/// The robust frame's cell of every point and the cell size.
fn robust_cells(pts: &[[f64; 3]], n: usize) -> (Vec<Option<usize>>, (f64, f64)) {
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
    let idx = pts.iter().map(|p| Some((n - 1 - cell(p[1], cy)) * n + cell(p[0], cx))).collect();
    let d = if span > 0.0 && n > 1 { span / last } else { 1.0 };
    (idx, (d, d))
}

/// Each cell's percentile of z (NaN where empty): points bucketed by cell (counting sort, in
/// point order), each bucket sorted.
fn cell_percentiles(pts: &[[f64; 3]], idx: &[Option<usize>], n: usize, percentile: f64) -> Vec<f64> {
    let mut start = vec![0usize; n * n + 1];
    for &i in idx.iter().flatten() {
        start[i + 1] += 1;
    }
    for i in 0..n * n {
        start[i + 1] += start[i];
    }
    let mut zs = vec![0.0; start[n * n]];
    let mut next = start.clone();
    for (p, &i) in pts.iter().zip(idx) {
        if let Some(i) = i {
            zs[next[i]] = p[2];
            next[i] += 1;
        }
    }
    (0..n * n)
        .map(|c| {
            let bucket = &mut zs[start[c]..start[c + 1]];
            if bucket.is_empty() {
                f64::NAN
            } else {
                bucket.sort_unstable_by(f64::total_cmp);
                percentile_sorted(bucket, percentile)
            }
        })
        .collect()
}

/// [`HoleFill::MeanThenRelax`] on the `n × n` heights `h`.
fn mean_then_relax(h: &mut [f64], n: usize) {
    let (mut sum, mut filled) = (0.0, 0usize);
    for v in h.iter().filter(|v| !v.is_nan()) {
        sum += *v;
        filled += 1;
    }
    if filled == n * n {
        return;
    }
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

/// [`HoleFill::Neighbours`] on the `n × n` heights `h`.
fn neighbours(h: &mut [f64], n: usize) {
    loop {
        let prev = h.to_vec();
        let mut left = 0;
        for r in 0..n {
            for c in 0..n {
                if prev[r * n + c].is_finite() {
                    continue;
                }
                let mut s = 0.0;
                let mut k = 0.0;
                for (dc, dr) in [(-1i64, 0i64), (1, 0), (0, -1), (0, 1)] {
                    let (cc, rr) = (c as i64 + dc, r as i64 + dr);
                    if cc >= 0 && rr >= 0 && (cc as usize) < n && (rr as usize) < n {
                        let v = prev[rr as usize * n + cc as usize];
                        if v.is_finite() {
                            s += v;
                            k += 1.0;
                        }
                    }
                }
                if k > 0.0 {
                    h[r * n + c] = s / k;
                } else {
                    left += 1;
                }
            }
        }
        if left == 0 || left == n * n {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let g = height_from_points(&pts, &Gridding::inventory(33)).heights;
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
        let open = height_from_points(&pts, &Gridding { fill: HoleFill::Keep, ..Gridding::inventory(33) });
        assert!(open.heights.get(16, 16).is_nan());
        assert!(open.empty > 0);
        assert!((g.dx - span / 32.0).abs() < 0.01);
    }

    #[test]
    fn holes_fill_from_neighbours() {
        let mut h = vec![1.0, f64::NAN, 3.0, f64::NAN, f64::NAN, f64::NAN, 5.0, f64::NAN, 7.0];
        neighbours(&mut h, 3);
        assert_eq!(h, [1.0, 2.0, 3.0, 3.0, 4.0, 5.0, 5.0, 6.0, 7.0]);
        let mut none = vec![f64::NAN; 4];
        neighbours(&mut none, 2);
        assert!(none.iter().all(|v| v.is_nan()));
    }

    #[test]
    fn a_square_frame_drops_outside_points_and_counts_empty_cells() {
        let w = Square { x_min: 0.0, y_min: 0.0, x_max: 2.0, y_max: 2.0 };
        // North-west cell: z 1, 2, 3, 10 → 15th percentile 1.45; south-east: 5; one point outside.
        let pts =
            [[0.5, 1.5, 1.0], [0.2, 1.9, 2.0], [0.9, 1.1, 3.0], [0.1, 1.2, 10.0], [1.5, 0.5, 5.0], [3.0, 1.0, 9.0]];
        let g = Gridding { n: 2, percentile: 15.0, frame: Frame::Square(w), fill: HoleFill::Keep };
        let out = height_from_points(&pts, &g);
        assert_eq!(out.empty, 2);
        assert!((out.heights.get(0, 0) - 1.45).abs() < 1e-12);
        assert_eq!(*out.heights.get(1, 1), 5.0);
        assert!(out.heights.get(1, 0).is_nan());
        let filled = height_from_points(&pts, &Gridding { fill: HoleFill::Neighbours, ..g });
        assert_eq!(filled.empty, 2);
        assert!(filled.heights.data().iter().all(|v| v.is_finite()));
        assert_eq!(filled.heights.dx, 1.0);
    }
}

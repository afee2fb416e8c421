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
//! * [`Frame::Cells`]: a rectangle of `cols × rows` square cells of a given side ([`Cells`]),
//!   usually [`Cells::cover`]ing the points' bounding box; the cell size comes from the points'
//!   density with [`cell_size_for`] (issue 24).
//! * [`HoleFill::Idw`]: each empty cell takes the inverse-distance-weighted mean of the
//!   [`IDW_K`] = 8 nearest filled cells and of every other filled cell as near as the 8th (grid
//!   distances tie often; taking them all keeps the fill symmetric instead of favouring low cell
//!   indices), `z = Σ wᵢ zᵢ / Σ wᵢ` with `wᵢ = dᵢ^−2` ([`IDW_POWER`] = 2), `dᵢ` the distance
//!   between cell centres; the neighbours are found by a k-d tree over the filled cells' centres
//!   ([`bozkir_spatial::KdTree`]) and only filled cells are neighbours, so the result does not
//!   depend on the order or the thread count the empty cells are filled in. Within the range of
//!   the heights it weighs; a constant stays constant, and a plane's single missing cells are
//!   exact (a symmetric ring), while inside a wide hole the fill leans to the nearest rim. It replaced the inventory's "mean of the filled cells, then Jacobi passes",
//!   which left sparse clouds a pattern of pits and bumps (issue 24).
//! * [`HoleFill::Neighbours`]: pass by pass, each empty cell with at least one filled
//!   4-neighbour takes their mean, until every cell is filled (or none can be) — the rule
//!   validation's fill.
//! * [`HoleFill::Keep`]: empty cells stay NaN.
//!
//! The density of a cloud ([`mean_spacing`]): `s = √(A / N)` for `N` points over an area `A`,
//! where `A` is the area of the coarse cells (side `8 · √(bounding box / N)`, about 64 points
//! each at an even density) holding at least one point, each clipped to the bounding box — so a
//! survey with holes or a ragged outline is not taken for a sparser one. [`cell_size_for`] turns
//! it into a cell size: [`CELL_PER_SPACING`]` · s` rounded up to a tidy value
//! ([`tidy_up`]: 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 × 10ᵏ): cells of 1.5 to 2 spacings hold
//! 2.25 to 4 points on average, so most hold one even where a real survey clusters its points
//! along scan lines (Autzen thinned to 0.18 points/m²: 49 % of the cells hold a point at one
//! spacing, 58 % at the default). [`occupied_share`] is the share of cells holding a point for a cell size.
//!
//! Non-finite points are ignored; a cloud without any gives an all-NaN grid.

use bozkir_core::stats::{percentile_select, percentile_sorted};
use bozkir_core::Grid;
use bozkir_spatial::KdTree;
use rayon::prelude::*;

/// Filled cells an empty cell's [`HoleFill::Idw`] height is weighted from.
pub const IDW_K: usize = 8;

/// Power of the inverse distance in [`HoleFill::Idw`]'s weights.
pub const IDW_POWER: f64 = 2.0;

/// Cell size over the mean point spacing before [`tidy_up`] ([`cell_size_for`]).
pub const CELL_PER_SPACING: f64 = 1.5;

/// Side of [`mean_spacing`]'s coarse cells, in bounding-box spacings.
pub const COARSE_CELLS: f64 = 8.0;

/// Tidy mantissas of [`tidy_up`], per decade.
const TIDY: [f64; 10] = [1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0];

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

/// A rectangle of `cols × rows` square cells of side `cell` from the north-west corner
/// `(x_min, y_max)`, row 0 the northern one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cells {
    /// West edge.
    pub x_min: f64,
    /// North edge.
    pub y_max: f64,
    /// Side of a cell.
    pub cell: f64,
    /// Cells west to east.
    pub cols: usize,
    /// Cells north to south.
    pub rows: usize,
}

impl Cells {
    /// The cells of side `cell` over the bounding box of the finite points, centred on it:
    /// `⌊extent / cell⌋ + 1` cells along each axis, so every point falls inside. `None` without
    /// a finite point or unless `cell` is finite and positive. The counts saturate for absurd
    /// cells (check them against a cap before gridding).
    ///
    /// # Examples
    ///
    /// ```
    /// use bozkir_terrain::points::Cells;
    ///
    /// let c = Cells::cover(&[[0.0, 0.0, 1.0], [10.0, 4.0, 2.0]], 2.0).unwrap();
    /// assert_eq!((c.cols, c.rows), (6, 3));
    /// assert_eq!((c.x_min, c.y_max), (-1.0, 5.0));
    /// assert_eq!(c.cell(0.0, 0.0), Some(2 * 6)); // south-west corner: row 2, column 0
    /// assert_eq!(c.cell(10.0, 4.0), Some(5));
    /// ```
    pub fn cover(points: &[[f64; 3]], cell: f64) -> Option<Cells> {
        if !(cell.is_finite() && cell > 0.0) {
            return None;
        }
        let [x0, y0, x1, y1] = bounds(points)?;
        let count = |extent: f64| ((extent / cell).floor() + 1.0).min(usize::MAX as f64) as usize;
        let (cols, rows) = (count(x1 - x0), count(y1 - y0));
        let x_min = (x0 + x1) / 2.0 - cols as f64 * cell / 2.0;
        let y_max = (y0 + y1) / 2.0 + rows as f64 * cell / 2.0;
        Some(Cells { x_min, y_max, cell, cols, rows })
    }

    /// Index `row · cols + col` of the cell holding `(x, y)`, or `None` outside (points within
    /// 10⁻⁹ cell of an edge are taken in).
    pub fn cell(&self, x: f64, y: f64) -> Option<usize> {
        let (u, v) = ((x - self.x_min) / self.cell, (self.y_max - y) / self.cell);
        let (c, r) = (self.index(u, self.cols)?, self.index(v, self.rows)?);
        Some(r * self.cols + c)
    }

    fn index(&self, u: f64, n: usize) -> Option<usize> {
        const SLACK: f64 = 1e-9;
        if !(u >= -SLACK && u < n as f64 + SLACK) {
            return None;
        }
        Some((u.max(0.0) as usize).min(n - 1))
    }

    /// `cols × rows` as a float (no overflow for absurd cells).
    pub fn count(&self) -> f64 {
        self.cols as f64 * self.rows as f64
    }
}

/// Bounding box `[x_min, y_min, x_max, y_max]` of the finite points, `None` without one.
pub fn bounds(points: &[[f64; 3]]) -> Option<[f64; 4]> {
    let mut b = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];
    for p in points.iter().filter(|p| p.iter().all(|v| v.is_finite())) {
        b = [b[0].min(p[0]), b[1].min(p[1]), b[2].max(p[0]), b[3].max(p[1])];
    }
    (b[0] <= b[2]).then_some(b)
}

/// Where the raster lies over the points (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Frame {
    /// The square over the p1–p99 extents, grid nodes at its edges (inventory §2.6).
    Robust,
    /// A given window, cells of its side over `n`; points outside are dropped.
    Square(Square),
    /// Given square cells (the gridding's `n` is not used); points outside are dropped.
    Cells(Cells),
}

/// What empty cells become (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoleFill {
    /// Empty cells stay NaN.
    Keep,
    /// Inverse-distance weighting (power [`IDW_POWER`]) of the [`IDW_K`] nearest filled cells.
    Idw,
    /// Pass by pass from the already-filled 4-neighbours until none is left.
    Neighbours,
}

/// How to grid a point cloud: cells per side, the percentile, the frame and the hole fill.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gridding {
    /// Cells per side (at least 1) of the square frames.
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
    /// filled by [`HoleFill::Idw`] — what `bozkir heightmap --size n` does with a point cloud.
    pub fn inventory(n: usize) -> Self {
        Gridding { n, percentile: 15.0, frame: Frame::Robust, fill: HoleFill::Idw }
    }

    /// The density gridding (issue 24): the given cells, 15th percentile, holes filled by
    /// [`HoleFill::Idw`] — what `bozkir heightmap` does with a point cloud by default.
    pub fn cells(cells: Cells) -> Self {
        Gridding { n: cells.cols.max(cells.rows), percentile: 15.0, frame: Frame::Cells(cells), fill: HoleFill::Idw }
    }

    /// Columns and rows of the raster.
    pub fn dims(&self) -> (usize, usize) {
        match &self.frame {
            Frame::Cells(c) => (c.cols.max(1), c.rows.max(1)),
            _ => (self.n.max(1), self.n.max(1)),
        }
    }
}

/// A gridded point cloud.
#[derive(Debug, Clone, PartialEq)]
pub struct PointHeights {
    /// The height field (row 0 at +y), NaN where a cell stayed empty.
    pub heights: Grid<f64>,
    /// Cells that held no point before the hole fill.
    pub empty: usize,
}

impl PointHeights {
    /// Share (0–1) of the cells that held at least one point.
    pub fn occupied_share(&self) -> f64 {
        let cells = self.heights.width() * self.heights.height();
        if cells == 0 {
            0.0
        } else {
            (cells - self.empty) as f64 / cells as f64
        }
    }
}

/// Height field of `g.dims()` cells from `points` (`[x, y, z]`); see the module documentation.
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
    let (w, h) = g.dims();
    let n = g.n.max(1);
    let pts: Vec<[f64; 3]> = points.iter().copied().filter(|p| p.iter().all(|v| v.is_finite())).collect();
    let (idx, cell_size): (Vec<Option<usize>>, (f64, f64)) = match &g.frame {
        Frame::Robust => {
            if pts.is_empty() {
                return PointHeights { heights: Grid::new(n, n, f64::NAN), empty: n * n };
            }
            robust_cells(&pts, n)
        }
        Frame::Square(s) => {
            let idx = pts.iter().map(|p| s.cell(p[0], p[1], n)).collect();
            (idx, ((s.x_max - s.x_min) / n as f64, (s.y_max - s.y_min) / n as f64))
        }
        Frame::Cells(c) => (pts.iter().map(|p| c.cell(p[0], p[1])).collect(), (c.cell, c.cell)),
    };
    let mut z = cell_percentiles(&pts, &idx, w * h, g.percentile);
    let empty = z.iter().filter(|v| v.is_nan()).count();
    match g.fill {
        HoleFill::Keep => {}
        HoleFill::Idw => idw(&mut z, w, cell_size),
        HoleFill::Neighbours => neighbours(&mut z, w, h),
    }
    PointHeights { heights: Grid::from_vec(w, h, z).with_cell_size(cell_size.0, cell_size.1), empty }
}

/// The mean spacing of a cloud (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spacing {
    /// Finite points counted.
    pub points: usize,
    /// Area they cover (occupied coarse cells, at most the bounding box), squared units.
    pub area: f64,
    /// `√(area / points)`.
    pub spacing: f64,
}

/// Mean point spacing `√(A / N)` over the area `A` of the occupied coarse cells (see the module
/// documentation). `None` with fewer than two finite points or when they span no area (all on
/// one line along x or y).
///
/// # Examples
///
/// ```
/// use bozkir_terrain::points::mean_spacing;
///
/// // 100 × 100 points 2 m apart: 198 m × 198 m over 10 000 points.
/// let pts: Vec<[f64; 3]> =
///     (0..100).flat_map(|i| (0..100).map(move |j| [2.0 * f64::from(i), 2.0 * f64::from(j), 0.0])).collect();
/// let s = mean_spacing(&pts).unwrap();
/// assert!((s.spacing - 1.98).abs() < 1e-9);
/// ```
pub fn mean_spacing(points: &[[f64; 3]]) -> Option<Spacing> {
    let [x0, y0, x1, y1] = bounds(points)?;
    let n = points.iter().filter(|p| p.iter().all(|v| v.is_finite())).count();
    let bbox = (x1 - x0) * (y1 - y0);
    if n < 2 || !(bbox > 0.0 && bbox.is_finite()) {
        return None;
    }
    let coarse = COARSE_CELLS * (bbox / n as f64).sqrt();
    let c = Cells::cover(points, coarse)?;
    // Each occupied coarse cell counts with its part inside the bounding box.
    let clip = |lo: f64, a: f64, b: f64| ((lo + coarse).min(b) - lo.max(a)).max(0.0);
    let area: f64 = occupied_keys(points, &c)
        .iter()
        .map(|&(u, v)| {
            let (x, y) = (c.x_min + u as f64 * coarse, c.y_max - (v as f64 + 1.0) * coarse);
            clip(x, x0, x1) * clip(y, y0, y1)
        })
        .sum();
    let area = area.min(bbox);
    Some(Spacing { points: n, area, spacing: (area / n as f64).sqrt() })
}

/// The cloud's [`Spacing`] and the cell size of its density gridding:
/// `tidy_up(CELL_PER_SPACING · spacing)`. `None` as for [`mean_spacing`].
pub fn cell_size_for(points: &[[f64; 3]]) -> Option<(Spacing, f64)> {
    let s = mean_spacing(points)?;
    Some((s, tidy_up(CELL_PER_SPACING * s.spacing)))
}

/// The smallest tidy value (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 × 10ᵏ) at least `x` (within
/// 10⁻⁹ relative); `x` itself unless finite and positive.
///
/// # Examples
///
/// ```
/// use bozkir_terrain::points::tidy_up;
///
/// assert_eq!(tidy_up(1.98), 2.0);
/// assert_eq!(tidy_up(2.0), 2.0);
/// assert_eq!(tidy_up(0.26), 0.3);
/// assert_eq!(tidy_up(8.5), 10.0);
/// assert_eq!(tidy_up(1234.0), 1500.0);
/// ```
pub fn tidy_up(x: f64) -> f64 {
    if !(x.is_finite() && x > 0.0) {
        return x;
    }
    let k = x.log10().floor() as i32;
    let scale = |t: f64, k: i32| if k >= 0 { t * 10f64.powi(k) } else { t / 10f64.powi(-k) };
    for k in [k - 1, k, k + 1] {
        for t in TIDY {
            let v = scale(t, k);
            if v >= x * (1.0 - 1e-9) {
                return v;
            }
        }
    }
    scale(1.0, k + 2)
}

/// Cells holding at least one finite point and all cells, for cells of side `cell` over the
/// points' bounding box ([`Cells::cover`]); memory grows with the points, never with the cells.
/// `None` as for [`Cells::cover`].
pub fn occupied_cells(points: &[[f64; 3]], cell: f64) -> Option<(usize, f64)> {
    let c = Cells::cover(points, cell)?;
    Some((occupied_keys(points, &c).len(), c.count()))
}

/// The distinct `(column, row)` of the cells of `c` holding a finite point, sorted.
fn occupied_keys(points: &[[f64; 3]], c: &Cells) -> Vec<(u64, u64)> {
    let mut keys: Vec<(u64, u64)> = points
        .iter()
        .filter(|p| p.iter().all(|v| v.is_finite()))
        .filter_map(|p| {
            let (u, v) = ((p[0] - c.x_min) / c.cell, (c.y_max - p[1]) / c.cell);
            (u >= -1e-9 && v >= -1e-9).then(|| (u.max(0.0) as u64, v.max(0.0) as u64))
        })
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// The smallest tidy cell size above `from` (at most 60 steps up the [`tidy_up`] ladder) whose
/// [`occupied_cells`] share reaches `share`; `None` if none does.
pub fn cell_size_for_share(points: &[[f64; 3]], from: f64, share: f64) -> Option<f64> {
    let mut c = tidy_up(from * (1.0 + 1e-6));
    for _ in 0..60 {
        let (occupied, cells) = occupied_cells(points, c)?;
        if occupied as f64 >= share * cells {
            return Some(c);
        }
        c = tidy_up(c * (1.0 + 1e-6));
    }
    None
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
fn cell_percentiles(pts: &[[f64; 3]], idx: &[Option<usize>], cells: usize, percentile: f64) -> Vec<f64> {
    let mut start = vec![0usize; cells + 1];
    for &i in idx.iter().flatten() {
        start[i + 1] += 1;
    }
    for i in 0..cells {
        start[i + 1] += start[i];
    }
    let mut zs = vec![0.0; start[cells]];
    let mut next = start.clone();
    for (p, &i) in pts.iter().zip(idx) {
        if let Some(i) = i {
            zs[next[i]] = p[2];
            next[i] += 1;
        }
    }
    (0..cells)
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

/// [`HoleFill::Idw`] on the heights `h`, `w` cells wide, cells `(dx, dy)` (square unless both
/// are finite and positive). Cell centres are taken in units of `dx`, so on square cells they
/// are integers and equal distances tie exactly.
fn idw(h: &mut [f64], w: usize, (dx, dy): (f64, f64)) {
    let aspect = if dx > 0.0 && dy > 0.0 && dx.is_finite() && dy.is_finite() { dy / dx } else { 1.0 };
    let centre = |c: usize| [(c % w) as f64, (c / w) as f64 * aspect];
    let filled: Vec<usize> = (0..h.len()).filter(|&c| !h[c].is_nan()).collect();
    if filled.is_empty() || filled.len() == h.len() {
        return;
    }
    let centres: Vec<[f64; 2]> = filled.iter().map(|&c| centre(c)).collect();
    let tree = KdTree::new(&centres);
    let empty: Vec<usize> = (0..h.len()).filter(|&c| h[c].is_nan()).collect();
    let known: &[f64] = h;
    let values: Vec<f64> = empty
        .par_iter()
        .map(|&c| {
            let q = centre(c);
            let mut near = tree.knn(q, IDW_K, usize::MAX);
            if tree.len() > IDW_K {
                // Every cell as near as the k-th too: ties are common on a grid.
                let far = near.last().map_or(0.0, |n| n.1);
                if let Ok(all) = tree.within_radius(q, far * (1.0 + 1e-9), usize::MAX) {
                    near = all;
                }
            }
            let (mut sum, mut weights) = (0.0, 0.0);
            for (i, d) in near {
                let wt = d.powf(-IDW_POWER);
                sum += wt * known[filled[i]];
                weights += wt;
            }
            sum / weights
        })
        .collect();
    for (&c, v) in empty.iter().zip(values) {
        h[c] = v;
    }
}

/// [`HoleFill::Neighbours`] on the `w × ht` heights `h`.
fn neighbours(h: &mut [f64], w: usize, ht: usize) {
    loop {
        let prev = h.to_vec();
        let mut left = 0;
        for r in 0..ht {
            for c in 0..w {
                if prev[r * w + c].is_finite() {
                    continue;
                }
                let mut s = 0.0;
                let mut k = 0.0;
                for (dc, dr) in [(-1i64, 0i64), (1, 0), (0, -1), (0, 1)] {
                    let (cc, rr) = (c as i64 + dc, r as i64 + dr);
                    if cc >= 0 && rr >= 0 && (cc as usize) < w && (rr as usize) < ht {
                        let v = prev[rr as usize * w + cc as usize];
                        if v.is_finite() {
                            s += v;
                            k += 1.0;
                        }
                    }
                }
                if k > 0.0 {
                    h[r * w + c] = s / k;
                } else {
                    left += 1;
                }
            }
        }
        if left == 0 || left == w * ht {
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
        neighbours(&mut h, 3, 3);
        assert_eq!(h, [1.0, 2.0, 3.0, 3.0, 4.0, 5.0, 5.0, 6.0, 7.0]);
        let mut none = vec![f64::NAN; 4];
        neighbours(&mut none, 2, 2);
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

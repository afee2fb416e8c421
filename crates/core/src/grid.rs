//! `Grid<T>`: a row-major 2-D array that carries its cell size in metres.

/// A `width × height` row-major raster with cell size `(dx, dy)` in metres.
///
/// Cell `(x, y)` is column `x`, row `y`; index `y * width + x`. Row 0 is the north (top) edge
/// when a grid comes from a georeferenced raster. `dx` is the spacing between columns and `dy`
/// between rows; they differ for DEMs in a geographic CRS.
///
/// # Examples
///
/// ```
/// use bozkir_core::Grid;
///
/// // 3 columns × 2 rows of 30 m × 20 m cells; cell (x, y) holds 10·y + x.
/// let g = Grid::from_fn(3, 2, |x, y| (10 * y + x) as f64).with_cell_size(30.0, 20.0);
/// assert_eq!((g.width(), g.height(), g.dx, g.dy), (3, 2, 30.0, 20.0));
/// assert_eq!(*g.get(2, 1), 12.0);
/// assert_eq!(g.index(2, 1), 5); // row-major: y·width + x
/// assert_eq!(g.row(1), &[10.0, 11.0, 12.0]);
/// assert_eq!(g.min_max(), Some((0.0, 12.0)));
/// let halves = g.map(|v| v / 2.0);
/// assert_eq!(halves.dx, 30.0); // the cell size travels with the values
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Grid<T> {
    width: usize,
    height: usize,
    /// Column spacing in metres.
    pub dx: f64,
    /// Row spacing in metres.
    pub dy: f64,
    data: Vec<T>,
}

impl<T: Clone> Grid<T> {
    /// A grid filled with `value`, unit cell size.
    pub fn new(width: usize, height: usize, value: T) -> Self {
        Self { width, height, dx: 1.0, dy: 1.0, data: vec![value; width * height] }
    }

    /// Same shape and cell size as `self`, filled with `value`.
    pub fn same_shape<U: Clone>(&self, value: U) -> Grid<U> {
        Grid { width: self.width, height: self.height, dx: self.dx, dy: self.dy, data: vec![value; self.len()] }
    }

    /// Copy of the window `[x0, x0+w) × [y0, y0+h)`. Panics if it leaves the grid.
    pub fn crop(&self, x0: usize, y0: usize, w: usize, h: usize) -> Self {
        assert!(x0 + w <= self.width && y0 + h <= self.height, "crop outside the grid");
        let mut data = Vec::with_capacity(w * h);
        for y in y0..y0 + h {
            data.extend_from_slice(&self.data[y * self.width + x0..y * self.width + x0 + w]);
        }
        Self { width: w, height: h, dx: self.dx, dy: self.dy, data }
    }
}

impl<T> Grid<T> {
    /// Wrap `data` (row-major, `width * height` values). Panics on a length mismatch.
    pub fn from_vec(width: usize, height: usize, data: Vec<T>) -> Self {
        assert_eq!(data.len(), width * height, "Grid::from_vec: data length does not match {width}x{height}");
        Self { width, height, dx: 1.0, dy: 1.0, data }
    }

    /// Builder: set the cell size in metres.
    pub fn with_cell_size(mut self, dx: f64, dy: f64) -> Self {
        self.dx = dx;
        self.dy = dy;
        self
    }

    /// A grid whose cell `(x, y)` is `f(x, y)`.
    pub fn from_fn(width: usize, height: usize, mut f: impl FnMut(usize, usize) -> T) -> Self {
        let mut data = Vec::with_capacity(width * height);
        for y in 0..height {
            for x in 0..width {
                data.push(f(x, y));
            }
        }
        Self::from_vec(width, height, data)
    }

    #[inline(always)]
    pub fn width(&self) -> usize {
        self.width
    }
    #[inline(always)]
    pub fn height(&self) -> usize {
        self.height
    }
    /// Number of cells.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.data.len()
    }
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
    /// Row-major index of `(x, y)`.
    #[inline(always)]
    pub fn index(&self, x: usize, y: usize) -> usize {
        y * self.width + x
    }
    #[inline(always)]
    pub fn get(&self, x: usize, y: usize) -> &T {
        &self.data[y * self.width + x]
    }
    #[inline(always)]
    pub fn get_mut(&mut self, x: usize, y: usize) -> &mut T {
        &mut self.data[y * self.width + x]
    }
    #[inline(always)]
    pub fn data(&self) -> &[T] {
        &self.data
    }
    #[inline(always)]
    pub fn data_mut(&mut self) -> &mut [T] {
        &mut self.data
    }
    pub fn into_vec(self) -> Vec<T> {
        self.data
    }
    /// Row `y` as a slice.
    pub fn row(&self, y: usize) -> &[T] {
        &self.data[y * self.width..(y + 1) * self.width]
    }
    /// True for cells on the outer ring.
    #[inline(always)]
    pub fn is_border(&self, x: usize, y: usize) -> bool {
        x == 0 || y == 0 || x + 1 == self.width || y + 1 == self.height
    }
    /// Apply `f` to every value, keeping shape and cell size.
    pub fn map<U>(&self, f: impl FnMut(&T) -> U) -> Grid<U> {
        Grid {
            width: self.width,
            height: self.height,
            dx: self.dx,
            dy: self.dy,
            data: self.data.iter().map(f).collect(),
        }
    }
    /// [`Grid::map`] on every core (`f` sees each value once, in no particular order; the
    /// result is the same as `map`'s for any thread count).
    ///
    /// ```
    /// use bozkir_core::Grid;
    ///
    /// let g = Grid::from_fn(300, 200, |x, y| (x * y) as f64).with_cell_size(2.0, 3.0);
    /// assert_eq!(g.par_map(|v| v * 0.5), g.map(|v| v * 0.5));
    /// ```
    pub fn par_map<U: Send>(&self, f: impl Fn(&T) -> U + Sync + Send) -> Grid<U>
    where
        T: Sync,
    {
        use rayon::prelude::*;
        Grid {
            width: self.width,
            height: self.height,
            dx: self.dx,
            dy: self.dy,
            data: self.data.par_iter().map(f).collect(),
        }
    }
}

impl Grid<f64> {
    /// (min, max) over finite values; `None` when no value is finite.
    /// (Parallel, the same result for any thread count: [`crate::stats::finite_range`].)
    pub fn min_max(&self) -> Option<(f64, f64)> {
        crate::stats::finite_range(&self.data, |_| false)
    }
}

impl Grid<f32> {
    /// (min, max) over finite values; `None` when no value is finite.
    pub fn min_max(&self) -> Option<(f32, f32)> {
        let mut it = self.data.iter().copied().filter(|v| v.is_finite());
        let first = it.next()?;
        Some(it.fold((first, first), |(lo, hi), v| (lo.min(v), hi.max(v))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexing_is_row_major_and_crop_keeps_cell_size() {
        let g = Grid::from_fn(4, 3, |x, y| (10 * y + x) as i32).with_cell_size(2.0, 3.0);
        assert_eq!(*g.get(3, 2), 23);
        assert_eq!(g.index(1, 2), 9);
        let c = g.crop(1, 1, 2, 2);
        assert_eq!(c.data(), &[11, 12, 21, 22]);
        assert_eq!((c.dx, c.dy), (2.0, 3.0));
        assert!(g.is_border(0, 1) && g.is_border(3, 1) && !g.is_border(1, 1));
    }

    #[test]
    fn min_max_skips_non_finite() {
        let g = Grid::from_vec(3, 1, vec![f64::NAN, 2.0, -1.0]);
        assert_eq!(g.min_max(), Some((-1.0, 2.0)));
        assert_eq!(Grid::from_vec(1, 1, vec![f64::NAN]).min_max(), None);
    }
}

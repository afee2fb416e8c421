//! The height-field interface every world implements, and its plain implementation.
//!
//! Layout (pyworldgen's): values are row-major, `ny` rows of `nx`; column `i` is the cell centre
//! x = (i + ½)·dx and row `j` the cell centre y = (j + ½)·dy, so **row 0 is the southern edge**
//! and y grows northward. `core::Grid` keeps row 0 at the top (north); [`WorldGrid::from_grid`]
//! and [`WorldGrid::height_grid`] flip between the two.

use bozkir_core::Grid;

/// A height-field world: ground heights and water depths on a regular grid of cells, in metres.
/// Roads, meshing, the viewer and exports consume only this.
pub trait Terrain {
    /// Number of columns (along x, eastward).
    fn nx(&self) -> usize;
    /// Number of rows (along y, northward; row 0 is the south edge).
    fn ny(&self) -> usize;
    /// Column spacing in metres.
    fn dx(&self) -> f64;
    /// Row spacing in metres.
    fn dy(&self) -> f64;
    /// Ground height in metres, `ny × nx` row-major (see the module docs for the layout).
    fn height(&self) -> &[f64];
    /// Water depth above the ground in metres (0 where dry), same layout as [`Terrain::height`].
    fn water_depth(&self) -> &[f64];

    /// x of column `i`'s cell centre in metres.
    fn x(&self, i: usize) -> f64 {
        (i as f64 + 0.5) * self.dx()
    }
    /// y of row `j`'s cell centre in metres.
    fn y(&self, j: usize) -> f64 {
        (j as f64 + 0.5) * self.dy()
    }
    /// The world's extent (width, depth) in metres.
    fn extent(&self) -> (f64, f64) {
        (self.nx() as f64 * self.dx(), self.ny() as f64 * self.dy())
    }
}

/// Heights and water depths on a grid: the plain [`Terrain`].
#[derive(Debug, Clone, PartialEq)]
pub struct WorldGrid {
    /// Columns.
    pub nx: usize,
    /// Rows (row 0 south).
    pub ny: usize,
    /// Column spacing in metres.
    pub dx: f64,
    /// Row spacing in metres.
    pub dy: f64,
    /// Ground heights, `ny × nx` row-major.
    pub height: Vec<f64>,
    /// Water depths, `ny × nx` row-major.
    pub water_depth: Vec<f64>,
}

impl WorldGrid {
    /// A dry world from heights in this module's layout. Panics on a length mismatch.
    pub fn new(nx: usize, ny: usize, dx: f64, dy: f64, height: Vec<f64>) -> Self {
        assert_eq!(height.len(), nx * ny, "WorldGrid::new: {} heights for {nx}x{ny}", height.len());
        Self { nx, ny, dx, dy, water_depth: vec![0.0; height.len()], height }
    }

    /// Any height grid (a profile, a recipe output, a DEM read by `io`) as a dry world: rows
    /// flipped so row 0 is the south edge, cell size kept.
    pub fn from_grid(grid: &Grid<f64>) -> Self {
        let (nx, ny) = (grid.width(), grid.height());
        let mut height = Vec::with_capacity(nx * ny);
        for j in (0..ny).rev() {
            height.extend_from_slice(grid.row(j));
        }
        Self::new(nx, ny, grid.dx, grid.dy, height)
    }

    /// Copy any [`Terrain`] into a `WorldGrid`.
    pub fn from_terrain(t: &dyn Terrain) -> Self {
        Self {
            nx: t.nx(),
            ny: t.ny(),
            dx: t.dx(),
            dy: t.dy(),
            height: t.height().to_vec(),
            water_depth: t.water_depth().to_vec(),
        }
    }

    /// Heights as a north-up `core::Grid` (row 0 north), the layout the rest of bozkir uses.
    pub fn height_grid(&self) -> Grid<f64> {
        north_up(self.nx, self.ny, self.dx, self.dy, &self.height)
    }

    /// Water depths as a north-up `core::Grid`.
    pub fn water_grid(&self) -> Grid<f64> {
        north_up(self.nx, self.ny, self.dx, self.dy, &self.water_depth)
    }
}

/// A south-first field (this module's layout) as a north-up `core::Grid`.
pub fn north_up<T: Clone>(nx: usize, ny: usize, dx: f64, dy: f64, values: &[T]) -> Grid<T> {
    assert_eq!(values.len(), nx * ny, "north_up: {} values for {nx}x{ny}", values.len());
    let mut data = Vec::with_capacity(nx * ny);
    for j in (0..ny).rev() {
        data.extend_from_slice(&values[j * nx..(j + 1) * nx]);
    }
    Grid::from_vec(nx, ny, data).with_cell_size(dx, dy)
}

impl Terrain for WorldGrid {
    fn nx(&self) -> usize {
        self.nx
    }
    fn ny(&self) -> usize {
        self.ny
    }
    fn dx(&self) -> f64 {
        self.dx
    }
    fn dy(&self) -> f64 {
        self.dy
    }
    fn height(&self) -> &[f64] {
        &self.height
    }
    fn water_depth(&self) -> &[f64] {
        &self.water_depth
    }
}

/// `impl Terrain` for a world type that holds its heights and depths in a `grid: WorldGrid`
/// field (the landscape, the composed and the carved worlds).
macro_rules! terrain_via_grid {
    ($t:ty) => {
        impl $crate::field::Terrain for $t {
            fn nx(&self) -> usize {
                self.grid.nx
            }
            fn ny(&self) -> usize {
                self.grid.ny
            }
            fn dx(&self) -> f64 {
                self.grid.dx
            }
            fn dy(&self) -> f64 {
                self.grid.dy
            }
            fn height(&self) -> &[f64] {
                &self.grid.height
            }
            fn water_depth(&self) -> &[f64] {
                &self.grid.water_depth
            }
        }
    };
}
pub(crate) use terrain_via_grid;

/// Cells of `res` metres along `extent` metres as pyworldgen counts them: Python's
/// `round(extent / res)` (half to even); 0 for a negative or NaN ratio, saturating when huge.
pub(crate) fn cells(extent: f64, res: f64) -> usize {
    (extent / res).round_ties_even().max(0.0) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_round_trip_flips_rows() {
        let g = Grid::from_fn(3, 2, |x, y| (10 * y + x) as f64).with_cell_size(2.0, 3.0);
        let w = WorldGrid::from_grid(&g);
        // Row 0 of the world is the grid's bottom (south) row.
        assert_eq!(&w.height[..3], &[10.0, 11.0, 12.0]);
        assert_eq!(w.y(0), 1.5);
        assert_eq!(w.extent(), (6.0, 6.0));
        assert_eq!(w.height_grid(), g);
        assert!(w.water_depth.iter().all(|&d| d == 0.0));
    }
}

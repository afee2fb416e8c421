//! Slope by Horn's 3×3 gradient.
//!
//! Source: B. K. P. Horn, "Hill shading and the reflectance map", *Proceedings of the IEEE*
//! 69(1), 1981 — the weighted (1, 2, 1) central differences used by most GIS slope tools.
//! Edges pad by replication (see the [module docs](super)).
//!
//! There are no parameters: heights are metres and the cell size comes from the grid.

use super::{horn, map_window3};
use bozkir_core::Grid;

/// The two components of the Horn gradient, in m/m.
#[derive(Debug, Clone, PartialEq)]
pub struct Gradient {
    /// `dz/d(east)`: positive where the ground rises towards increasing column.
    pub east: Grid<f64>,
    /// `dz/d(north)`: positive where the ground rises towards row 0.
    pub north: Grid<f64>,
}

/// Horn (1981) gradient of `z`, honouring `dx ≠ dy`.
pub fn gradient(z: &Grid<f64>) -> Gradient {
    let (dx, dy) = (z.dx, z.dy);
    let both = map_window3(z, (0.0, 0.0), |w| horn(w, dx, dy));
    Gradient { east: both.map(|g| g.0), north: both.map(|g| g.1) }
}

/// Slope magnitude as rise over run (m/m, `tan` of the slope angle): `hypot(dz/dx, dz/dy)`.
///
/// For the plane `z = a·x·dx + b·y·dy` every interior cell gets `sqrt(a² + b²)`.
///
/// # Examples
///
/// ```
/// use bozkir_core::Grid;
/// use bozkir_terrain::landform::{slope, slope_degrees};
///
/// // A plane rising 1 m per 10 m cell eastwards: rise over run 0.1 everywhere inside.
/// let z = Grid::from_fn(6, 6, |x, _| x as f64).with_cell_size(10.0, 10.0);
/// let s = slope(&z);
/// assert!((s.get(2, 3) - 0.1).abs() < 1e-12);
/// assert!((slope_degrees(&z).get(2, 3) - 0.1f64.atan().to_degrees()).abs() < 1e-9);
/// ```
pub fn slope(z: &Grid<f64>) -> Grid<f64> {
    let (dx, dy) = (z.dx, z.dy);
    map_window3(z, 0.0, |w| {
        let (e, n) = horn(w, dx, dy);
        libm::hypot(e, n)
    })
}

/// Slope angle in degrees from the horizontal, `atan(slope)`.
pub fn slope_degrees(z: &Grid<f64>) -> Grid<f64> {
    slope(z).map(|&s| slope_to_degrees(s))
}

/// Converts a rise-over-run slope to degrees (`atan`, via `libm` for portability).
#[inline]
pub fn slope_to_degrees(s: f64) -> f64 {
    libm::atan(s).to_degrees()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plane(w: usize, h: usize, dx: f64, dy: f64, a: f64, b: f64) -> Grid<f64> {
        Grid::from_fn(w, h, |x, y| a * x as f64 * dx + b * y as f64 * dy + 100.0).with_cell_size(dx, dy)
    }

    #[test]
    fn slope_of_a_plane_is_exact_in_the_interior() {
        for &(dx, dy) in &[(1.0, 1.0), (2.0, 0.5), (30.0, 18.5)] {
            let (a, b) = (0.3, -0.4);
            let z = plane(9, 7, dx, dy, a, b);
            let s = slope(&z);
            for y in 1..6 {
                for x in 1..8 {
                    assert!((s.get(x, y) - 0.5).abs() < 1e-12, "dx={dx} dy={dy} got {}", s.get(x, y));
                }
            }
            let g = gradient(&z);
            assert!((g.east.get(4, 3) - a).abs() < 1e-12);
            // Rows grow south, so a height rising with y falls towards the north.
            assert!((g.north.get(4, 3) + b).abs() < 1e-12);
            assert_eq!((s.dx, s.dy), (dx, dy));
        }
    }

    #[test]
    fn only_x_slope_uses_dx_and_edges_replicate() {
        // The same heights, twice the spacing across columns: half the slope.
        let z1 = Grid::from_fn(5, 5, |x, _| 0.3 * x as f64);
        let z2 = z1.clone().with_cell_size(2.0, 1.0);
        assert!((slope(&z1).get(2, 2) - 0.3).abs() < 1e-12);
        assert!((slope(&z2).get(2, 2) - 0.15).abs() < 1e-12);
        // Replicate padding halves the gradient across the border.
        assert!((slope(&z1).get(0, 2) - 0.15).abs() < 1e-12);
        assert!((slope_degrees(&z1).get(2, 2) - 0.3f64.atan().to_degrees()).abs() < 1e-9);
        assert_eq!(slope_to_degrees(1.0), 45.0);
    }

    #[test]
    fn empty_and_single_cell_grids() {
        assert!(slope(&Grid::from_vec(0, 0, vec![])).is_empty());
        assert_eq!(slope(&Grid::new(1, 1, 5.0)).data(), &[0.0]);
    }
}

//! Aspect: the compass direction a slope faces, from Horn's gradient.
//!
//! Source: Horn (1981) for the gradient (see [`mod@super::slope`]); aspect is the azimuth of the
//! downslope direction `−∇z`, measured in degrees clockwise from north, where north is row 0
//! (up). A slope falling towards row 0 faces north (0°), towards increasing column east (90°).
//! Edges pad by replication.

use super::{horn, map_window3};
use bozkir_core::Grid;

/// Parameters of [`aspect`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AspectParams {
    /// Cells whose slope (rise/run) is at or below this are flat and get `NaN` (no direction).
    /// Default `0.0`: only exactly level cells are flat.
    pub flat_slope: f64,
}

impl Default for AspectParams {
    fn default() -> Self {
        Self { flat_slope: 0.0 }
    }
}

/// Aspect in degrees clockwise from north, in `[0, 360)`; `NaN` on flat cells (the sentinel for
/// "no direction").
pub fn aspect(z: &Grid<f64>, p: &AspectParams) -> Grid<f64> {
    let (dx, dy, flat) = (z.dx, z.dy, p.flat_slope);
    map_window3(z, f64::NAN, |w| {
        let (e, n) = horn(w, dx, dy);
        if libm::hypot(e, n) <= flat {
            return f64::NAN;
        }
        // Downslope vector (east, north) = (−e, −n); azimuth from north, clockwise.
        let a = libm::atan2(-e, -n).to_degrees();
        if a < 0.0 {
            a + 360.0
        } else if a >= 360.0 {
            a - 360.0
        } else {
            a
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_centre(f: impl Fn(f64, f64) -> f64, dx: f64, dy: f64) -> f64 {
        let z = Grid::from_fn(5, 5, |x, y| f(x as f64 * dx, y as f64 * dy)).with_cell_size(dx, dy);
        *aspect(&z, &AspectParams::default()).get(2, 2)
    }

    #[test]
    fn planes_facing_the_four_directions() {
        for &(dx, dy) in &[(1.0, 1.0), (3.0, 0.5)] {
            // Rising southwards (with y) falls towards north: faces north.
            assert!(at_centre(|_, y| y, dx, dy).abs() < 1e-12);
            assert!((at_centre(|x, _| -x, dx, dy) - 90.0).abs() < 1e-12);
            assert!((at_centre(|_, y| -y, dx, dy) - 180.0).abs() < 1e-12);
            assert!((at_centre(|x, _| x, dx, dy) - 270.0).abs() < 1e-12);
            // Falling to the north-east, in metres (so dx ≠ dy must not skew it).
            assert!((at_centre(|x, y| y - x, dx, dy) - 45.0).abs() < 1e-9);
        }
    }

    #[test]
    fn flat_is_nan_and_threshold_applies() {
        assert!(at_centre(|_, _| 7.0, 1.0, 1.0).is_nan());
        let z = Grid::from_fn(5, 5, |x, _| 0.01 * x as f64);
        assert!(aspect(&z, &AspectParams { flat_slope: 0.02 }).get(2, 2).is_nan());
        assert!(!aspect(&z, &AspectParams::default()).get(2, 2).is_nan());
    }
}

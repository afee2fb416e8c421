//! Dome base shapes: raise the middle of a field against its border.
//!
//! The border of a simulation is base level, where water leaves; noise knows nothing of that,
//! and its broad low patches become closed basins that fill into dead-flat lakes. A gentle rise
//! toward the middle gives them somewhere to drain. Two shapes:
//!
//! * *Edge taper*, the original bozkır generator's (`_edge_taper`, inventory §2.1): per axis
//!   `d = min(k, n − 1 − k)/max(1, band·(n − 1))`, clamped to 1 and smoothstepped; the product
//!   of the two axes. 1 in the interior, easing to 0 over the outer `band` of each side. Its
//!   default band, `CROP_MARGIN/(1 + 2·CROP_MARGIN)`, puts the whole rise inside the margin
//!   that is cropped away, so the visible ground is not tilted toward its own middle.
//! * *Radial*: `1 − smoothstep(r/R)` with `r` the distance in metres from the centre and `R`
//!   `radius` times half the shorter side (in metres): a round hill.
//!
//! [`dome`] mixes the shape in as the original does, `unit(z·(1 − amount) + shape·amount)`.

use super::crop::CROP_MARGIN;
use super::mask::smoothstep;
use super::normalise::unit_normalise;
use bozkir_core::Grid;
use rayon::prelude::*;

/// Which dome [`dome`] mixes in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DomeShape {
    /// [`edge_taper`] over the outer `band` (fraction of each side, 0..0.5).
    EdgeTaper {
        /// Fraction of each side over which the taper rises.
        band: f64,
    },
    /// [`radial_dome`] reaching 0 at `radius` × half the shorter side.
    Radial {
        /// Radius as a fraction of half the shorter side.
        radius: f64,
    },
}

/// Parameters of [`dome`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DomeParams {
    /// Weight of the dome against the input, 0..1. Default 0.5.
    pub amount: f64,
    /// Shape. Default `EdgeTaper { band: CROP_MARGIN / (1 + 2·CROP_MARGIN) }` (≈ 0.115).
    pub shape: DomeShape,
}

impl Default for DomeParams {
    fn default() -> Self {
        Self { amount: 0.5, shape: DomeShape::EdgeTaper { band: CROP_MARGIN / (1.0 + 2.0 * CROP_MARGIN) } }
    }
}

/// One axis of the edge taper.
fn taper_axis(n: usize, band: f64) -> Vec<f64> {
    let span = band * (n as f64 - 1.0);
    let denom = if span > 1.0 { span } else { 1.0 };
    (0..n)
        .map(|k| {
            let k = k as f64;
            let d = (k.min((n as f64 - 1.0) - k) / denom).min(1.0);
            d * d * (3.0 - 2.0 * d)
        })
        .collect()
}

/// The original's edge taper of a `width × height` field (unit cell size).
pub fn edge_taper(width: usize, height: usize, band: f64) -> Grid<f64> {
    let ry = taper_axis(height, band);
    let rx = taper_axis(width, band);
    Grid::from_fn(width, height, |x, y| ry[y] * rx[x])
}

/// A radial dome over a `width × height` field of cell size `(dx, dy)` metres: 1 at the centre,
/// 0 from `radius` × half the shorter side outward.
pub fn radial_dome(width: usize, height: usize, dx: f64, dy: f64, radius: f64) -> Grid<f64> {
    let cx = (width as f64 - 1.0) * 0.5 * dx;
    let cy = (height as f64 - 1.0) * 0.5 * dy;
    let half = 0.5 * f64::min(width as f64 * dx, height as f64 * dy);
    let r_max = radius * half;
    Grid::from_fn(width, height, |x, y| {
        let ex = x as f64 * dx - cx;
        let ey = y as f64 * dy - cy;
        let r = (ex * ex + ey * ey).sqrt();
        1.0 - smoothstep(0.0, r_max, r)
    })
    .with_cell_size(dx, dy)
}

/// `unit(z·(1 − amount) + shape·amount)`.
pub fn dome(grid: &Grid<f64>, p: &DomeParams) -> Grid<f64> {
    let (w, h) = (grid.width(), grid.height());
    let shape = match p.shape {
        DomeShape::EdgeTaper { band } => edge_taper(w, h, band),
        DomeShape::Radial { radius } => radial_dome(w, h, grid.dx, grid.dy, radius),
    };
    let a = p.amount;
    let mut mixed = grid.clone();
    mixed.data_mut().par_iter_mut().zip(shape.data().par_iter()).for_each(|(z, &s)| *z = *z * (1.0 - a) + s * a);
    unit_normalise(&mixed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sculpt::test_support::{bumpy, bytes, with_threads};

    #[test]
    fn edge_taper_matches_the_original() {
        // numpy: _edge_taper(5, 9, frac=0.25).
        let t = edge_taper(9, 5, 0.25);
        // Columns: n = 9, band·(n−1) = 2: d = [0, .5, 1, 1, 1, 1, 1, .5, 0].
        // Rows: n = 5, band·(n−1) = 1: d = [0, 1, 1, 1, 0].
        let rx = [0.0, 0.5, 1.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.0];
        let ry = [0.0, 1.0, 1.0, 1.0, 0.0];
        for (y, fy) in ry.iter().enumerate() {
            for (x, fx) in rx.iter().enumerate() {
                assert_eq!(*t.get(x, y), fy * fx, "({x},{y})");
            }
        }
        // Small band: denominator max(1, ·).
        let s = edge_taper(4, 1, 0.1);
        assert_eq!(s.data(), &[0.0, 0.0, 0.0, 0.0]);
        let s = edge_taper(4, 3, 0.1);
        assert_eq!(s.row(1), &[0.0, 1.0, 1.0, 0.0]);
    }

    #[test]
    fn radial_dome_peaks_in_the_middle() {
        let d = radial_dome(21, 11, 1.0, 2.0, 1.0);
        assert_eq!(*d.get(10, 5), 1.0);
        assert_eq!(*d.get(0, 0), 0.0);
        // Round in metres: 6 m east equals 6 m south (3 rows).
        assert!((d.get(16, 5) - d.get(10, 8)).abs() < 1e-15);
        assert!(d.get(12, 5) > d.get(14, 5));
    }

    #[test]
    fn dome_raises_the_middle_and_normalises() {
        let g = crate::sculpt::normalise::unit_normalise(&bumpy(40, 40));
        let p = DomeParams { amount: 0.6, ..Default::default() };
        let d = dome(&g, &p);
        assert_eq!(d.min_max(), Some((0.0, 1.0)));
        let border: f64 = (0..40).map(|x| d.get(x, 0) + d.get(x, 39)).sum::<f64>() / 80.0;
        let centre: f64 = (15..25).map(|x| *d.get(x, 20)).sum::<f64>() / 10.0;
        assert!(centre > border + 0.3, "centre {centre} border {border}");
        let r = DomeParams { amount: 0.6, shape: DomeShape::Radial { radius: 1.0 } };
        let a = with_threads(1, || dome(&g, &r));
        let b = with_threads(4, || dome(&g, &r));
        assert_eq!(bytes(&a), bytes(&b));
        assert_eq!(dome(&g, &DomeParams { amount: 0.0, ..p }), g);
    }
}

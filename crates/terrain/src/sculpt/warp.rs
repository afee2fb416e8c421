//! Domain warp of an existing grid: resample it at noise-displaced coordinates (seed 001 §3.4).
//!
//! Quilez-style warping ([`bozkir_core::noise::warp_point`]) applied to a raster: cell `(x, y)`
//! at `p = (x·dx, y·dy)` metres takes the value of the input at the warped point `q(p)`, read by
//! bilinear interpolation with clamp-to-edge. Ridgelines meander and straight, grid-aligned
//! features disappear. The displacement is measured from `p` and converted to cells as
//! `x + (q.x − p.x)/dx`, so strength 0 is the identity bit for bit.

use bozkir_core::noise::{warp_point, FbmParams, WarpParams};
use bozkir_core::Grid;
use rayon::prelude::*;

/// Parameters of [`warp_grid`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridWarpParams {
    /// Largest displacement in metres. Default 4.0.
    pub strength: f64,
    /// Frequency of the displacement field's first octave, in cycles per metre. Default 1/64.
    pub frequency: f64,
    /// Octaves of the displacement field. Default 4.
    pub octaves: u32,
    /// Nested warp levels (see [`WarpParams::levels`]). Default 1.
    pub levels: u32,
    /// Seed of the displacement field. Default 0.
    pub seed: u32,
}

impl Default for GridWarpParams {
    fn default() -> Self {
        Self { strength: 4.0, frequency: 1.0 / 64.0, octaves: 4, levels: 1, seed: 0 }
    }
}

impl GridWarpParams {
    /// The point-warp parameters these stand for (Quilez's offsets, lacunarity 2, gain 0.5).
    pub fn to_warp(&self) -> WarpParams {
        WarpParams {
            strength: self.strength,
            fbm: FbmParams {
                octaves: self.octaves,
                frequency: self.frequency,
                seed: self.seed,
                ..FbmParams::default()
            },
            levels: self.levels,
            ..WarpParams::default()
        }
    }
}

/// Bilinear sample of `grid` at fractional cell coordinates `(fx, fy)` (cell `(x, y)` is at
/// `(x, y)`), clamped to the grid's extent. Panics on an empty grid.
#[inline]
pub fn sample_bilinear(grid: &Grid<f64>, fx: f64, fy: f64) -> f64 {
    let (w, h) = (grid.width(), grid.height());
    assert!(w > 0 && h > 0, "sample_bilinear: empty grid");
    let fx = fx.clamp(0.0, (w - 1) as f64);
    let fy = fy.clamp(0.0, (h - 1) as f64);
    let x0 = fx.floor();
    let y0 = fy.floor();
    let tx = fx - x0;
    let ty = fy - y0;
    let (x0, y0) = (x0 as usize, y0 as usize);
    let x1 = (x0 + 1).min(w - 1);
    let y1 = (y0 + 1).min(h - 1);
    let d = grid.data();
    let a = d[y0 * w + x0];
    let b = d[y0 * w + x1];
    let c = d[y1 * w + x0];
    let e = d[y1 * w + x1];
    let top = if tx == 0.0 { a } else { a + (b - a) * tx };
    let bot = if tx == 0.0 { c } else { c + (e - c) * tx };
    if ty == 0.0 {
        top
    } else {
        top + (bot - top) * ty
    }
}

/// `grid` resampled at domain-warped coordinates.
pub fn warp_grid(grid: &Grid<f64>, p: &GridWarpParams) -> Grid<f64> {
    let w = grid.width();
    let mut out = grid.clone();
    if w == 0 || grid.height() == 0 {
        return out;
    }
    let warp = p.to_warp();
    let (dx, dy) = (grid.dx, grid.dy);
    out.data_mut().par_chunks_mut(w).enumerate().for_each(|(y, row)| {
        let py = y as f64 * dy;
        for (x, v) in row.iter_mut().enumerate() {
            let px = x as f64 * dx;
            let (qx, qy) = warp_point(&warp, px, py);
            let fx = x as f64 + (qx - px) / dx;
            let fy = y as f64 + (qy - py) / dy;
            *v = sample_bilinear(grid, fx, fy);
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sculpt::test_support::{bumpy, bytes, with_threads};

    #[test]
    fn bilinear_reproduces_planes_and_clamps() {
        let g = Grid::from_fn(5, 4, |x, y| 2.0 * x as f64 - 3.0 * y as f64 + 1.0);
        assert!((sample_bilinear(&g, 1.25, 2.5) - (2.5 - 7.5 + 1.0)).abs() < 1e-12);
        assert_eq!(sample_bilinear(&g, 3.0, 1.0), *g.get(3, 1));
        assert_eq!(sample_bilinear(&g, -4.0, 99.0), *g.get(0, 3));
        assert_eq!(sample_bilinear(&g, 4.0, 3.0), *g.get(4, 3));
    }

    #[test]
    fn zero_strength_is_identity() {
        let g = bumpy(33, 21).with_cell_size(0.1, 0.3);
        let p = GridWarpParams { strength: 0.0, ..Default::default() };
        assert_eq!(bytes(&warp_grid(&g, &p)), bytes(&g));
    }

    #[test]
    fn displaces_within_strength_and_thread_independent() {
        // On a ramp z = x_m the warped value is the warped x coordinate (away from the edges).
        let g = Grid::from_fn(64, 64, |x, _| x as f64 * 2.0).with_cell_size(2.0, 2.0);
        let p = GridWarpParams { strength: 5.0, frequency: 1.0 / 20.0, seed: 4, ..Default::default() };
        let out = warp_grid(&g, &p);
        let warp = p.to_warp();
        let mut moved = 0;
        for y in 0..64 {
            for x in 4..60 {
                let (qx, _) = warp_point(&warp, x as f64 * 2.0, y as f64 * 2.0);
                let v = *out.get(x, y);
                assert!((v - qx).abs() < 1e-9, "{v} vs {qx}");
                assert!((v - x as f64 * 2.0).abs() <= 5.0);
                moved += ((v - x as f64 * 2.0).abs() > 0.5) as u32;
            }
        }
        assert!(moved > 500, "moved {moved}");
        let h = bumpy(50, 40);
        let a = with_threads(1, || warp_grid(&h, &p));
        let b = with_threads(3, || warp_grid(&h, &p));
        assert_eq!(bytes(&a), bytes(&b));
        assert_ne!(bytes(&a), bytes(&h));
    }
}

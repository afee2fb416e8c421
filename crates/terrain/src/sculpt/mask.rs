//! Masks: height and slope bands with smoothstep ramps, and their algebra (seed 001 §3.6).
//!
//! A mask is a `Grid<f64>` with values in `[0, 1]`. A *band* is 1 for values in `[lo, hi]`,
//! 0 beyond `lo − feather` and `hi + feather`, and eased between by the cubic smoothstep
//! `t²(3 − 2t)` (Perlin and Hoffert, "Hypertexture", SIGGRAPH 1989; the GLSL `smoothstep`).
//! Uniform smoothstep borders look airbrushed, so the thresholds can be *dithered*: both are
//! shifted per cell by `dither · fbm(x·dx, y·dy)`, which makes the border wander with
//! medium-frequency noise (seed 001 §3.6). Slopes are rise over run (`|∇z|`, dimensionless when
//! heights and cell sizes share a unit) from central differences, one-sided on the border.
//! Masks combine by minimum (intersection), maximum (union) or product, and invert as `1 − m`.

use bozkir_core::noise::{fbm, FbmParams};
use bozkir_core::Grid;
use rayon::prelude::*;

/// Cubic smoothstep: 0 for `x ≤ e0`, 1 for `x ≥ e1`, `t²(3 − 2t)` with `t = (x − e0)/(e1 − e0)`
/// between. With `e0 == e1` it is the step `x ≥ e0`. Requires `e0 ≤ e1`.
#[inline]
pub fn smoothstep(e0: f64, e1: f64, x: f64) -> f64 {
    if e1 <= e0 {
        return if x >= e0 { 1.0 } else { 0.0 };
    }
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Parameters of [`height_band`] and [`slope_band`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BandParams {
    /// Lower edge of the full-strength band, in the measured quantity's units (metres of
    /// height, or rise over run for slope). Default 0.0.
    pub lo: f64,
    /// Upper edge of the full-strength band, same units. Default 1.0.
    pub hi: f64,
    /// Width of the smoothstep ramp outside each edge, same units (0: hard edges). Default 0.1.
    pub feather: f64,
    /// Amplitude of the threshold dither, same units (0: none). Default 0.0.
    pub dither: f64,
    /// Noise for the dither, sampled in metres. Default: 3 octaves at 1/32 cycles per metre.
    pub dither_noise: FbmParams,
}

impl Default for BandParams {
    fn default() -> Self {
        Self {
            lo: 0.0,
            hi: 1.0,
            feather: 0.1,
            dither: 0.0,
            dither_noise: FbmParams { octaves: 3, frequency: 1.0 / 32.0, ..FbmParams::default() },
        }
    }
}

impl BandParams {
    /// The band's value at `v`, thresholds shifted by `shift`.
    #[inline]
    fn value(&self, v: f64, shift: f64) -> f64 {
        let lo = self.lo + shift;
        let hi = self.hi + shift;
        let f = self.feather.max(0.0);
        // The falling edge mirrored so that `v == hi` is inside the band even when f == 0.
        smoothstep(lo - f, lo, v) * smoothstep(-(hi + f), -hi, -v)
    }
}

/// Band mask of `values`: per cell `p`'s band at the cell's value, thresholds dithered.
fn band(values: &Grid<f64>, p: &BandParams) -> Grid<f64> {
    let mut out = values.clone();
    let w = values.width();
    if w == 0 {
        return out;
    }
    let (dx, dy) = (values.dx, values.dy);
    out.data_mut().par_chunks_mut(w).enumerate().for_each(|(y, row)| {
        for (x, v) in row.iter_mut().enumerate() {
            let shift =
                if p.dither != 0.0 { p.dither * fbm(&p.dither_noise, x as f64 * dx, y as f64 * dy) } else { 0.0 };
            *v = p.value(*v, shift);
        }
    });
    out
}

/// Mask of cells whose height lies in the band `[lo, hi]` (heights in the grid's units).
pub fn height_band(grid: &Grid<f64>, p: &BandParams) -> Grid<f64> {
    band(grid, p)
}

/// Mask of cells whose slope (rise over run, Horn's gradient from
/// [`crate::landform::slope::slope`]) lies in the band `[lo, hi]`.
pub fn slope_band(grid: &Grid<f64>, p: &BandParams) -> Grid<f64> {
    band(&crate::landform::slope::slope(grid), p)
}

/// How [`combine`] joins two masks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Combine {
    /// Intersection: `min(a, b)`.
    Min,
    /// Union: `max(a, b)`.
    Max,
    /// Product `a·b` (soft intersection).
    Multiply,
}

/// Cell-wise combination of two masks of the same shape (panics otherwise); keeps `a`'s cell
/// size.
pub fn combine(a: &Grid<f64>, b: &Grid<f64>, op: Combine) -> Grid<f64> {
    assert_eq!((a.width(), a.height()), (b.width(), b.height()), "combine: shapes differ");
    let mut out = a.clone();
    out.data_mut().par_iter_mut().zip(b.data().par_iter()).for_each(|(x, &y)| {
        *x = match op {
            Combine::Min => x.min(y),
            Combine::Max => x.max(y),
            Combine::Multiply => *x * y,
        }
    });
    out
}

/// `1 − m` per cell.
pub fn invert(mask: &Grid<f64>) -> Grid<f64> {
    let mut out = mask.clone();
    out.data_mut().par_iter_mut().for_each(|v| *v = 1.0 - *v);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sculpt::test_support::{bumpy, bytes, with_threads};

    #[test]
    fn smoothstep_shape() {
        assert_eq!(smoothstep(1.0, 3.0, 0.0), 0.0);
        assert_eq!(smoothstep(1.0, 3.0, 2.0), 0.5);
        assert_eq!(smoothstep(1.0, 3.0, 5.0), 1.0);
        assert_eq!(smoothstep(1.0, 3.0, 1.5), 0.15625);
        assert_eq!((smoothstep(2.0, 2.0, 1.9), smoothstep(2.0, 2.0, 2.0)), (0.0, 1.0));
    }

    #[test]
    fn height_band_levels() {
        let g = Grid::from_vec(7, 1, vec![0.0, 0.15, 0.2, 0.5, 0.8, 0.85, 1.0]);
        let p = BandParams { lo: 0.3, hi: 0.7, feather: 0.2, ..Default::default() };
        let m = height_band(&g, &p);
        assert_eq!(m.data()[0], 0.0);
        assert!((m.data()[1] - 0.15625).abs() < 1e-12);
        assert!((m.data()[2] - 0.5).abs() < 1e-12);
        assert_eq!(m.data()[3], 1.0);
        assert!((m.data()[4] - 0.5).abs() < 1e-12);
        assert_eq!(m.data()[6], 0.0);
        let hard = BandParams { lo: 0.2, hi: 0.8, feather: 0.0, ..Default::default() };
        assert_eq!(height_band(&g, &hard).data(), &[0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0]);
    }

    #[test]
    fn slope_of_a_plane_uses_cell_size() {
        // z = 0.5·x_m + 2·y_m with dx = 2 m, dy = 0.5 m: slope = sqrt(0.25 + 4) everywhere.
        let g = Grid::from_fn(6, 5, |x, y| 0.5 * (x as f64 * 2.0) + 2.0 * (y as f64 * 0.5)).with_cell_size(2.0, 0.5);
        let s = crate::landform::slope::slope(&g);
        for y in 1..4 {
            for x in 1..5 {
                let v = *s.get(x, y);
                assert!((v - 4.25f64.sqrt()).abs() < 1e-12, "{v}");
            }
        }
        let p = BandParams { lo: 2.0, hi: 2.1, feather: 0.0, ..Default::default() };
        let b = slope_band(&g, &p);
        assert!((1..4).all(|y| (1..5).all(|x| *b.get(x, y) == 1.0)));
    }

    #[test]
    fn dither_moves_the_border_and_stays_in_unit_range() {
        let g = Grid::from_fn(64, 64, |x, _| x as f64 / 63.0);
        let plain = BandParams { lo: 0.5, hi: 2.0, feather: 0.05, ..Default::default() };
        let dith = BandParams { dither: 0.1, ..plain };
        let a = height_band(&g, &plain);
        let b = height_band(&g, &dith);
        assert!(b.data().iter().all(|v| (0.0..=1.0).contains(v)));
        // Undithered, every row is the same; dithered, the border column varies by row.
        let border_col = |m: &Grid<f64>, y: usize| (0..64).find(|&x| *m.get(x, y) >= 0.5).unwrap();
        assert!((0..64).all(|y| border_col(&a, y) == border_col(&a, 0)));
        assert!((0..64).any(|y| border_col(&b, y) != border_col(&b, 0)));
        let t1 = with_threads(1, || height_band(&g, &dith));
        let t4 = with_threads(4, || height_band(&g, &dith));
        assert_eq!(bytes(&t1), bytes(&t4));
    }

    #[test]
    fn combine_and_invert() {
        let a = Grid::from_vec(3, 1, vec![0.2, 0.5, 1.0]);
        let b = Grid::from_vec(3, 1, vec![0.4, 0.5, 0.0]);
        assert_eq!(combine(&a, &b, Combine::Min).data(), &[0.2, 0.5, 0.0]);
        assert_eq!(combine(&a, &b, Combine::Max).data(), &[0.4, 0.5, 1.0]);
        assert_eq!(combine(&a, &b, Combine::Multiply).data(), &[0.2 * 0.4, 0.25, 0.0]);
        assert_eq!(invert(&a).data(), &[0.8, 0.5, 0.0]);
        let m = slope_band(&bumpy(30, 20), &BandParams::default());
        assert!(m.data().iter().all(|v| (0.0..=1.0).contains(v)));
    }
}

//! Separable Gaussian blur, for softening masks and heights.
//!
//! Convolution with a sampled, normalised Gaussian of standard deviation `sigma` metres, done
//! as a horizontal then a vertical 1-D pass (the 2-D Gaussian is separable; e.g. Gonzalez and
//! Woods, *Digital Image Processing*, §3.5). Taps reach `ceil(3σ/d)` cells each way along an
//! axis with spacing `d`, so anisotropic cells (`dx ≠ dy`) get a blur that is round in metres.
//! Weights are `libm::exp(−(k·d)²/(2σ²))` divided by their sum; outside the grid the edge value
//! is repeated (clamp-to-edge), so constants are preserved exactly up to rounding and a mask
//! stays in `[0, 1]`. Each output is a sum in fixed tap order: identical for any thread count.

use bozkir_core::Grid;
use rayon::prelude::*;

/// Parameters of [`gaussian_blur`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlurParams {
    /// Standard deviation of the Gaussian in metres; `≤ 0` copies the input. Default 2.0.
    pub sigma: f64,
}

impl Default for BlurParams {
    fn default() -> Self {
        Self { sigma: 2.0 }
    }
}

/// Normalised taps for offsets `−r..=r` cells of spacing `d` metres.
fn kernel(sigma: f64, d: f64) -> Vec<f64> {
    let r = (3.0 * sigma / d).ceil().max(0.0) as usize;
    let r = r.min(1 << 16);
    let taps: Vec<f64> = (0..=2 * r)
        .map(|i| {
            let t = (i as f64 - r as f64) * d;
            libm::exp(-(t * t) / (2.0 * sigma * sigma))
        })
        .collect();
    let sum: f64 = taps.iter().sum();
    taps.into_iter().map(|t| t / sum).collect()
}

/// `grid` blurred by a Gaussian of `p.sigma` metres.
pub fn gaussian_blur(grid: &Grid<f64>, p: &BlurParams) -> Grid<f64> {
    let (w, h) = (grid.width(), grid.height());
    if p.sigma.is_nan() || p.sigma <= 0.0 || w == 0 || h == 0 {
        return grid.clone();
    }
    let kx = kernel(p.sigma, grid.dx);
    let ky = kernel(p.sigma, grid.dy);
    let (rx, ry) = (kx.len() / 2, (ky.len() / 2) as isize);
    let src = grid.data();
    let mut tmp = vec![0.0; w * h];
    tmp.par_chunks_mut(w).enumerate().for_each_init(
        || vec![0.0; w + 2 * rx],
        |pad, (y, row)| {
            // The row with its edge values repeated `rx` times on each side; then each tap is
            // added to every output in turn, the same sums in the same order as tap by tap per
            // cell (vectorised over the row).
            let s = &src[y * w..(y + 1) * w];
            pad[..rx].fill(s[0]);
            pad[rx..rx + w].copy_from_slice(s);
            pad[rx + w..].fill(s[w - 1]);
            // The first tap is stored as `0 + w·p` (the bits of adding it to 0) without reading
            // the output first: reading fresh zeroed pages before writing them maps the shared
            // zero page and then copies it on the write, a second fault per page.
            for (v, &p) in row.iter_mut().zip(&pad[..w]) {
                *v = 0.0 + kx[0] * p;
            }
            for (i, &wt) in kx.iter().enumerate().skip(1) {
                for (v, &p) in row.iter_mut().zip(&pad[i..i + w]) {
                    *v += wt * p;
                }
            }
        },
    );
    let mut out = grid.same_shape(0.0);
    out.data_mut().par_chunks_mut(w).enumerate().for_each(|(y, row)| {
        for (i, wt) in ky.iter().enumerate() {
            let yy = (y as isize + i as isize - ry).clamp(0, h as isize - 1) as usize;
            let s = &tmp[yy * w..(yy + 1) * w];
            if i == 0 {
                // Written before it is read (see the horizontal pass).
                for (v, &t) in row.iter_mut().zip(s) {
                    *v = 0.0 + wt * t;
                }
            } else {
                for (v, &t) in row.iter_mut().zip(s) {
                    *v += wt * t;
                }
            }
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sculpt::test_support::{bumpy, bytes, with_threads};

    #[test]
    fn preserves_constants_and_mass_of_an_impulse() {
        let c = Grid::new(9, 7, 0.7);
        let b = gaussian_blur(&c, &BlurParams { sigma: 1.5 });
        assert!(b.data().iter().all(|v| (v - 0.7).abs() < 1e-14));
        let mut imp = Grid::new(41, 41, 0.0);
        *imp.get_mut(20, 20) = 1.0;
        let b = gaussian_blur(&imp, &BlurParams { sigma: 2.0 });
        let total: f64 = b.data().iter().sum();
        assert!((total - 1.0).abs() < 1e-12);
        // Symmetric and peaked at the centre, variance ≈ σ² along each axis.
        assert_eq!(b.get(18, 20), b.get(22, 20));
        assert_eq!(b.get(20, 17), b.get(20, 23));
        let var: f64 =
            (0..41).map(|x| (x as f64 - 20.0).powi(2) * b.row(20)[x]).sum::<f64>() / b.row(20).iter().sum::<f64>();
        assert!((var - 4.0).abs() < 0.05, "variance {var}");
    }

    /// The padded, row-vectorised horizontal pass gives the bits of the plain definition: per
    /// cell, taps in order with clamp-to-edge indices, then the vertical pass likewise.
    #[test]
    fn same_bits_as_the_tap_by_tap_definition() {
        let g = bumpy(37, 23).with_cell_size(1.0, 2.5);
        for sigma in [0.4, 2.0, 30.0] {
            let (kx, ky) = (kernel(sigma, g.dx), kernel(sigma, g.dy));
            let (rx, ry) = ((kx.len() / 2) as isize, (ky.len() / 2) as isize);
            let (w, h) = (g.width() as isize, g.height() as isize);
            let horiz = Grid::from_fn(g.width(), g.height(), |x, y| {
                let mut acc = 0.0;
                for (i, wt) in kx.iter().enumerate() {
                    acc += wt * g.get((x as isize + i as isize - rx).clamp(0, w - 1) as usize, y);
                }
                acc
            });
            let want = Grid::from_fn(g.width(), g.height(), |x, y| {
                let mut acc = 0.0;
                for (i, wt) in ky.iter().enumerate() {
                    acc += wt * horiz.get(x, (y as isize + i as isize - ry).clamp(0, h - 1) as usize);
                }
                acc
            });
            assert_eq!(bytes(&gaussian_blur(&g, &BlurParams { sigma })), bytes(&want), "sigma {sigma}");
        }
    }

    #[test]
    fn anisotropic_cells_blur_round_in_metres() {
        let mut imp = Grid::new(41, 41, 0.0).with_cell_size(1.0, 2.0);
        *imp.get_mut(20, 20) = 1.0;
        let b = gaussian_blur(&imp, &BlurParams { sigma: 2.0 });
        // 2 m east (2 cells) and 2 m south (1 cell) get the same weight.
        assert!((b.get(22, 20) - b.get(20, 21)).abs() < 1e-15);
    }

    #[test]
    fn smooths_and_is_thread_count_independent() {
        let g = bumpy(50, 40);
        let p = BlurParams { sigma: 3.0 };
        let a = with_threads(1, || gaussian_blur(&g, &p));
        let b = with_threads(3, || gaussian_blur(&g, &p));
        assert_eq!(bytes(&a), bytes(&b));
        let rough = |m: &Grid<f64>| m.data().windows(2).map(|w| (w[1] - w[0]).abs()).sum::<f64>();
        assert!(rough(&a) < 0.8 * rough(&g));
        assert_eq!(gaussian_blur(&g, &BlurParams { sigma: 0.0 }), g);
    }
}

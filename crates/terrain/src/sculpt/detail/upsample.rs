//! Upsampling by an integer factor, with optional detail noise in the new band
//! (seed 001 §6.1, §9 "sim / mesh / tex" resolutions 512² → 1024² → 2048²).
//!
//! The simulation runs coarse; the mesh and texture want more samples. A `w × h` grid becomes
//! `((w − 1)·f + 1) × ((h − 1)·f + 1)` with cell size `(dx/f, dy/f)`: coarse node `(x, y)` lands
//! exactly on fine node `(x·f, y·f)` and the grid spans the same extent in metres. Values between
//! nodes are bilinear, or Catmull-Rom bicubic (Catmull & Rom 1974; Keys 1981 with `a = −0.5`,
//! separable, edges clamped): bicubic is smoother but may overshoot the coarse range slightly.
//!
//! Detail noise fills the new octave so the upsampled surface is not glassy: `detail_m · fbm`
//! at `1/(2·coarse cell)` cycles per metre by default, with amplitude following the 1/f rule
//! (§6.1: about half a coarse octave's). It is multiplied by
//! `1 − (1 − 4tx(1 − tx))·(1 − 4ty(1 − ty))`, zero exactly at coarse nodes (`tx, ty ∈ {0, 1}`),
//! so coarse values are preserved bit-for-bit with or without detail.

use bozkir_core::noise::{fbm, FbmParams};
use bozkir_core::Grid;
use rayon::prelude::*;

/// Interpolation kernel of [`upsample`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UpsampleKernel {
    /// Bilinear: stays within the coarse range.
    Bilinear,
    /// Catmull-Rom bicubic: C¹, may overshoot slightly.
    #[default]
    Bicubic,
}

/// Parameters of [`upsample`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UpsampleParams {
    /// Integer factor (≥ 1). Default 2.
    pub factor: usize,
    /// Interpolation kernel. Default bicubic.
    pub kernel: UpsampleKernel,
    /// Amplitude of the detail noise in metres (0: none). Default 0.0.
    pub detail_m: f64,
    /// Detail noise sampled in metres; a `frequency` of 0 means `1/(2·max(dx, dy))` of the
    /// coarse grid. Default: 2 octaves, frequency 0 (automatic), seed 61.
    pub detail_noise: FbmParams,
}

impl Default for UpsampleParams {
    fn default() -> Self {
        Self {
            factor: 2,
            kernel: UpsampleKernel::Bicubic,
            detail_m: 0.0,
            detail_noise: FbmParams { octaves: 2, frequency: 0.0, seed: 61, ..FbmParams::default() },
        }
    }
}

/// Catmull-Rom weights for fraction `t`.
#[inline]
fn catmull_rom(t: f64) -> [f64; 4] {
    let t2 = t * t;
    let t3 = t2 * t;
    [0.5 * (-t3 + 2.0 * t2 - t), 0.5 * (3.0 * t3 - 5.0 * t2 + 2.0), 0.5 * (-3.0 * t3 + 4.0 * t2 + t), 0.5 * (t3 - t2)]
}

/// `z` upsampled by `p.factor` (see the module docs).
pub fn upsample(z: &Grid<f64>, p: &UpsampleParams) -> Grid<f64> {
    let f = p.factor.max(1);
    let (w, h) = (z.width(), z.height());
    if w == 0 || h == 0 || f == 1 && p.detail_m == 0.0 {
        return z.clone();
    }
    upsample_window(z, p, [0, 0], [(w - 1) * f + 1, (h - 1) * f + 1])
}

/// The `size[0] × size[1]` window of [`upsample`]'s output whose first cell is fine cell
/// `origin`: each fine cell depends only on its own index and `z`, so a window holds exactly the
/// whole output's bits there. The window must lie inside the output
/// (`origin + size ≤ ((w − 1)·f + 1, (h − 1)·f + 1)`), and `z` must not be empty.
pub fn upsample_window(z: &Grid<f64>, p: &UpsampleParams, origin: [usize; 2], size: [usize; 2]) -> Grid<f64> {
    let f = p.factor.max(1);
    let (w, h) = (z.width(), z.height());
    assert!(w > 0 && h > 0, "upsample_window of an empty grid");
    let [ox, oy] = origin;
    let [nw, nh] = size;
    assert!(
        ox + nw <= (w - 1) * f + 1 && oy + nh <= (h - 1) * f + 1,
        "window {origin:?} + {size:?} outside the {}×{} output",
        (w - 1) * f + 1,
        (h - 1) * f + 1
    );
    let (fdx, fdy) = (z.dx / f as f64, z.dy / f as f64);
    let mut noise = p.detail_noise;
    if noise.frequency <= 0.0 {
        noise.frequency = 1.0 / (2.0 * z.dx.max(z.dy));
    }
    let src = z.data();
    let at = |x: isize, y: isize| src[(y.clamp(0, h as isize - 1) as usize) * w + x.clamp(0, w as isize - 1) as usize];
    let mut out = vec![0.0; nw * nh];
    if nw == 0 {
        return Grid::from_vec(0, nh, out).with_cell_size(fdx, fdy);
    }
    out.par_chunks_mut(nw).enumerate().for_each(|(wy, row)| {
        let fy = oy + wy;
        let (y0, ry) = (fy / f, fy % f);
        let ty = ry as f64 / f as f64;
        for (wx, o) in row.iter_mut().enumerate() {
            let fx = ox + wx;
            let (x0, rx) = (fx / f, fx % f);
            let tx = rx as f64 / f as f64;
            let (xi, yi) = (x0 as isize, y0 as isize);
            let v = if rx == 0 && ry == 0 {
                src[y0 * w + x0]
            } else {
                match p.kernel {
                    UpsampleKernel::Bilinear => {
                        let a = at(xi, yi);
                        let b = at(xi + 1, yi);
                        let c = at(xi, yi + 1);
                        let d = at(xi + 1, yi + 1);
                        let top = a + (b - a) * tx;
                        let bot = c + (d - c) * tx;
                        top + (bot - top) * ty
                    }
                    UpsampleKernel::Bicubic => {
                        let wx = catmull_rom(tx);
                        let wy = catmull_rom(ty);
                        let mut acc = 0.0;
                        for (j, wyj) in wy.iter().enumerate() {
                            let mut r = 0.0;
                            for (i, wxi) in wx.iter().enumerate() {
                                r += wxi * at(xi + i as isize - 1, yi + j as isize - 1);
                            }
                            acc += wyj * r;
                        }
                        acc
                    }
                }
            };
            *o = if p.detail_m != 0.0 && (rx != 0 || ry != 0) {
                let bump = 1.0 - (1.0 - 4.0 * tx * (1.0 - tx)) * (1.0 - 4.0 * ty * (1.0 - ty));
                v + p.detail_m * bump * fbm(&noise, fx as f64 * fdx, fy as f64 * fdy)
            } else {
                v
            };
        }
    });
    Grid::from_vec(nw, nh, out).with_cell_size(fdx, fdy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sculpt::test_support::{bumpy, bytes, with_threads};

    #[test]
    fn any_window_holds_the_whole_outputs_bits() {
        let z = bumpy(13, 9).with_cell_size(4.0, 3.0);
        for &k in &[UpsampleKernel::Bilinear, UpsampleKernel::Bicubic] {
            let p = UpsampleParams { factor: 3, kernel: k, detail_m: 0.7, ..Default::default() };
            let all = upsample(&z, &p);
            let (nw, nh) = (all.width(), all.height());
            for (ox, oy, w, h) in [(0, 0, nw, nh), (5, 7, 11, 4), (nw - 3, nh - 2, 3, 2), (0, 10, 1, 1)] {
                let win = upsample_window(&z, &p, [ox, oy], [w, h]);
                assert_eq!((win.width(), win.height(), win.dx, win.dy), (w, h, all.dx, all.dy));
                for y in 0..h {
                    for x in 0..w {
                        assert_eq!(win.get(x, y).to_bits(), all.get(ox + x, oy + y).to_bits(), "({ox}+{x}, {oy}+{y})");
                    }
                }
            }
        }
    }

    #[test]
    fn keeps_coarse_nodes_cell_size_and_range() {
        let z = bumpy(21, 13).with_cell_size(4.0, 3.0);
        let (lo, hi) = z.min_max().unwrap();
        for &k in &[UpsampleKernel::Bilinear, UpsampleKernel::Bicubic] {
            for &f in &[2usize, 3, 4] {
                for &detail in &[0.0, 0.5] {
                    let u =
                        upsample(&z, &UpsampleParams { factor: f, kernel: k, detail_m: detail, ..Default::default() });
                    assert_eq!((u.width(), u.height()), (20 * f + 1, 12 * f + 1));
                    assert_eq!((u.dx, u.dy), (4.0 / f as f64, 3.0 / f as f64));
                    for y in 0..13 {
                        for x in 0..21 {
                            assert_eq!(u.get(x * f, y * f), z.get(x, y));
                        }
                    }
                    if k == UpsampleKernel::Bilinear && detail == 0.0 {
                        let (a, b) = u.min_max().unwrap();
                        assert!(a >= lo && b <= hi);
                    }
                }
            }
        }
        // A plane is reproduced exactly by both kernels (interior for bicubic).
        let plane = Grid::from_fn(9, 9, |x, y| 2.0 * x as f64 - y as f64);
        let u = upsample(&plane, &UpsampleParams { factor: 4, kernel: UpsampleKernel::Bicubic, ..Default::default() });
        for y in 4..29 {
            for x in 4..29 {
                assert!((u.get(x, y) - (0.5 * x as f64 - 0.25 * y as f64)).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn same_bits_for_any_thread_count() {
        let z = bumpy(30, 20);
        let p = UpsampleParams { detail_m: 0.3, ..Default::default() };
        let a = with_threads(1, || upsample(&z, &p));
        let b = with_threads(2, || upsample(&z, &p));
        assert_eq!(bytes(&a), bytes(&b));
    }
}

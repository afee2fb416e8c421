//! Top-down orthographic rendering of splats: the picture of a patch, a tile or a whole
//! capture seen from straight above, used for graph-cut costs, the patch search's coverage
//! check, contact sheets and the far-field atlas. This is the one top-down rasteriser.
//!
//! # Compositing
//!
//! A [`View`] is a `w × h` grid of square pixels of side `px`; pixel `(col, row)` has its centre
//! at world `(x0 + (col + ½)·px, y1 − (row + ½)·px)` (row 0 north, column 0 west).
//!
//! * **Footprint.** Each splat's footprint is its covariance projected on the ground plane (the
//!   top-left 2×2 of `R S² Rᵀ`) plus a 0.3 px² low-pass (as 3D Gaussian Splatting's rasteriser
//!   adds, so a splat never vanishes between pixels), cut at 3σ (`dᵀ Σ⁻¹ d > 9` draws nothing).
//!   Splats with a non-finite x or y, or a degenerate footprint, are skipped.
//! * **Alpha.** `α = min(0.99, opacity · exp(−½ dᵀ Σ⁻¹ d))` at each pixel centre; `α < 1/255`
//!   draws nothing.
//! * **Order.** Front to back from the highest splat down (the camera looks down −z), ties by
//!   splat index: `C += T·α·c`, `T *= 1 − α`. A pixel whose transmittance `T` has fallen below
//!   10⁻⁴ takes no more splats.
//! * **Colour.** The view-dependent colour seen along −z (the base colour at SH degree 0).
//! * **Result.** Coverage `1 − T` and un-premultiplied colour `C / (1 − T)` clamped to 0..1,
//!   black where nothing was drawn.
//!
//! [`Shade::AlphaOnly`] accumulates coverage only and skips the sort: the product of the
//! `1 − α` does not depend on the order (up to rounding, and the 10⁻⁴ cut-off, which moves
//! coverage by less than 10⁻⁴). The patch search's coverage check renders that way.

use crate::model::Splats;

/// An orthographic top-down view: pixel `(col, row)` covers world x from `x0 + col·px` and
/// world y down from `y1 − row·px` (row 0 is north, column 0 west).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// West edge (world x of column 0's left side).
    pub x0: f64,
    /// North edge (world y of row 0's top side).
    pub y1: f64,
    /// Pixel side in world units.
    pub px: f64,
    pub w: usize,
    pub h: usize,
}

impl View {
    /// The square `[cx − size/2, cx + size/2] × [cy − size/2, cy + size/2]` at `res × res`
    /// pixels (at least one).
    pub fn square(centre: [f64; 2], size: f64, res: usize) -> View {
        let res = res.max(1);
        View { x0: centre[0] - size / 2.0, y1: centre[1] + size / 2.0, px: size / res as f64, w: res, h: res }
    }
}

/// What a render accumulates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shade {
    /// Colour and coverage, composited front to back.
    Colour,
    /// Coverage only (colour left black), in splat order without sorting.
    AlphaOnly,
}

/// A rendered view: `w × h` pixels, row-major, row 0 north (+y), column 0 west (−x).
#[derive(Debug, Clone, PartialEq)]
pub struct TopImage {
    pub w: usize,
    pub h: usize,
    /// Un-premultiplied colour per pixel (0..1); black where nothing was drawn, and everywhere
    /// in an alpha-only render.
    pub rgb: Vec<[f32; 3]>,
    /// Coverage per pixel, 0..1.
    pub alpha: Vec<f32>,
}

impl TopImage {
    /// Mean coverage.
    pub fn coverage(&self) -> f64 {
        self.alpha.iter().map(|&a| f64::from(a)).sum::<f64>() / self.alpha.len().max(1) as f64
    }

    /// Colour composited over a background colour, 0..1.
    pub fn over(&self, background: [f32; 3]) -> Vec<[f32; 3]> {
        self.rgb
            .iter()
            .zip(&self.alpha)
            .map(|(c, &a)| std::array::from_fn(|k| c[k] * a + background[k] * (1.0 - a)))
            .collect()
    }

    /// Colour as 8-bit RGB over a background colour.
    pub fn to_rgb8(&self, background: [f32; 3]) -> Vec<[u8; 3]> {
        self.over(background).iter().map(|c| c.map(to_u8)).collect()
    }
}

/// A colour channel 0..1 as a byte (rounded, clamped).
pub fn to_u8(v: f32) -> u8 {
    (v * 255.0).round().clamp(0.0, 255.0) as u8
}

/// Render the square `[cx − size/2, cx + size/2] × [cy − size/2, cy + size/2]` at `res × res`
/// pixels, every splat, in colour.
pub fn render_top(s: &Splats, centre: [f64; 2], size: f64, res: usize) -> TopImage {
    let all: Vec<usize> = (0..s.len()).collect();
    render_view(s, &all, &View::square(centre, size, res), Shade::Colour)
}

/// Render the splats `idx` (indices into `s`) in view `v` (see the module documentation).
pub fn render_view(s: &Splats, idx: &[usize], v: &View, shade: Shade) -> TopImage {
    let colour = shade == Shade::Colour;
    let pos = s.positions();
    let mut order: Vec<usize> = idx.to_vec();
    if colour {
        order.sort_by(|&a, &b| pos[b][2].total_cmp(&pos[a][2]).then(a.cmp(&b)));
    }
    let n = v.w * v.h;
    let mut acc = vec![[0.0f32; 3]; n];
    let mut trans = vec![1.0f32; n];
    let opac = s.opacities();
    let dil = 0.3 * v.px * v.px;
    let down = [0.0, 0.0, -1.0];
    for &i in &order {
        let p = pos[i];
        if !(p[0].is_finite() && p[1].is_finite()) {
            continue;
        }
        let c = s.covariance(i);
        // Footprint in world units, with the anti-aliasing floor.
        let (a, b, d) = (c[0][0] + dil, c[0][1], c[1][1] + dil);
        let det = a * d - b * b;
        if !(det > 0.0 && det.is_finite()) {
            continue;
        }
        let (ia, ib, id) = (d / det, -b / det, a / det);
        let op = f64::from(opac[i]);
        // 3σ extents in pixels; the footprint's centre in pixel coordinates.
        let (rx, ry) = (3.0 * a.sqrt() / v.px, 3.0 * d.sqrt() / v.px);
        let (cx, cy) = ((f64::from(p[0]) - v.x0) / v.px - 0.5, (v.y1 - f64::from(p[1])) / v.px - 0.5);
        let (x_lo, x_hi) = ((cx - rx).ceil().max(0.0), (cx + rx).floor().min(v.w as f64 - 1.0));
        let (y_lo, y_hi) = ((cy - ry).ceil().max(0.0), (cy + ry).floor().min(v.h as f64 - 1.0));
        if !(x_lo <= x_hi && y_lo <= y_hi) {
            continue;
        }
        let col = match (colour, s.sh_degree()) {
            (false, _) => [0.0; 3],
            (true, 0) => s.base_rgb(i),
            (true, _) => s.rgb(i, down),
        };
        for row in y_lo as usize..=y_hi as usize {
            // World y grows north and rows grow south: dy is world-signed.
            let dy = (cy - row as f64) * v.px;
            for cc in x_lo as usize..=x_hi as usize {
                let dx = (cc as f64 - cx) * v.px;
                let q = ia * dx * dx + 2.0 * ib * dx * dy + id * dy * dy;
                if q.is_nan() || q > 9.0 {
                    continue;
                }
                let al = (op * (-0.5 * q).exp()).min(0.99) as f32;
                if al < 1.0 / 255.0 {
                    continue;
                }
                let k = row * v.w + cc;
                let t = trans[k];
                if t < 1e-4 {
                    continue;
                }
                if colour {
                    let wgt = t * al;
                    for ch in 0..3 {
                        acc[k][ch] += wgt * col[ch];
                    }
                }
                trans[k] = t * (1.0 - al);
            }
        }
    }
    let alpha: Vec<f32> = trans.iter().map(|t| 1.0 - t).collect();
    let rgb = acc
        .iter()
        .zip(&alpha)
        .map(|(c, &a)| if a > 1e-6 { c.map(|x| (x / a).clamp(0.0, 1.0)) } else { [0.0; 3] })
        .collect();
    TopImage { w: v.w, h: v.h, rgb, alpha }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_single_disc_lands_where_it_should() {
        let mut s = Splats::new(0);
        // Red disc σ = 0.05 at (0.25, 0.25) in a 1 m window: pixel (37.5, 12.5) of 50.
        s.push_decoded(
            [0.25, 0.25, 0.0],
            [0.05, 0.05, 0.01],
            [1.0, 0.0, 0.0, 0.0],
            0.99,
            crate::capture::rgb_to_dc([1.0, 0.0, 0.0]),
            &[],
        );
        let im = render_top(&s, [0.0, 0.0], 1.0, 50);
        let (mut best, mut at) = (0.0, 0);
        for (k, &a) in im.alpha.iter().enumerate() {
            if a > best {
                best = a;
                at = k;
            }
        }
        assert!(best > 0.9);
        let (r, c) = (at / 50, at % 50);
        assert!((37..=38).contains(&c) && (12..=13).contains(&r), "{r},{c}");
        assert!((im.rgb[at][0] - 1.0).abs() < 1e-3 && im.rgb[at][1].abs() < 1e-3);
        assert_eq!(im.alpha[0], 0.0);
    }

    #[test]
    fn the_highest_splat_wins_and_dense_ground_covers() {
        let mut s = Splats::new(0);
        s.push_decoded(
            [0.0, 0.0, 0.0],
            [0.2, 0.2, 0.01],
            [1.0, 0.0, 0.0, 0.0],
            0.99,
            crate::capture::rgb_to_dc([0.0, 0.0, 1.0]),
            &[],
        );
        s.push_decoded(
            [0.0, 0.0, 0.1],
            [0.2, 0.2, 0.01],
            [1.0, 0.0, 0.0, 0.0],
            0.99,
            crate::capture::rgb_to_dc([0.0, 1.0, 0.0]),
            &[],
        );
        let im = render_top(&s, [0.0, 0.0], 1.0, 20);
        let centre = im.rgb[10 * 20 + 10];
        assert!(centre[1] > 0.95 && centre[2] < 0.05, "{centre:?}");
        let g =
            crate::capture::synth(&crate::capture::SynthParams { side_m: 1.0, density: 4000.0, ..Default::default() })
                .unwrap();
        let im = render_top(&g.splats, [0.0, 0.0], 0.8, 64);
        assert!(im.coverage() > 0.95, "{}", im.coverage());
    }

    #[test]
    fn subsets_rectangles_and_alpha_only_agree_with_the_full_render() {
        let g =
            crate::capture::synth(&crate::capture::SynthParams { side_m: 1.0, density: 3000.0, ..Default::default() })
                .unwrap();
        let s = &g.splats;
        let all: Vec<usize> = (0..s.len()).collect();
        // The square wrapper is the view render of every splat.
        let sq = View::square([0.25, -0.25], 0.5, 40);
        assert_eq!(sq, View { x0: 0.0, y1: 0.0, px: 0.5 / 40.0, w: 40, h: 40 });
        let full = render_top(s, [0.25, -0.25], 0.5, 40);
        assert_eq!(full, render_view(s, &all, &sq, Shade::Colour));
        // A subset renders like the subset's own splats.
        let half: Vec<usize> = (0..s.len()).step_by(2).collect();
        assert_eq!(render_view(s, &half, &sq, Shade::Colour), render_top(&s.subset(&half), [0.25, -0.25], 0.5, 40));
        // A rectangle (60 × 20 px) is the matching part of a larger square render.
        let rect = View { x0: 0.0, y1: 0.0, px: 0.5 / 40.0, w: 60, h: 20 };
        let big = render_view(s, &all, &View { w: 60, h: 60, ..rect }, Shade::Colour);
        let r = render_view(s, &all, &rect, Shade::Colour);
        assert_eq!((r.w, r.h, r.rgb.len(), r.alpha.len()), (60, 20, 1200, 1200));
        assert_eq!(r.alpha[..], big.alpha[..1200]);
        assert_eq!(r.rgb[..], big.rgb[..1200]);
        // Alpha only: the same coverage (up to rounding and the 1e-4 cut-off), no colour.
        let a = render_view(s, &all, &sq, Shade::AlphaOnly);
        assert!(a.rgb.iter().all(|c| *c == [0.0; 3]));
        for (x, y) in a.alpha.iter().zip(&full.alpha) {
            assert!((x - y).abs() < 2e-4, "{x} {y}");
        }
        // Composited over a background.
        let px = full.to_rgb8([1.0, 0.0, 0.0]);
        assert_eq!(px.len(), 1600);
        assert_eq!(to_u8(1.2), 255);
        assert_eq!(to_u8(-0.1), 0);
    }
}

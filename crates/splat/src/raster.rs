//! Top-down orthographic rendering of splats: the picture of a patch or a tile seen from
//! straight above, used for graph-cut costs, contact sheets and the far-field atlas.
//!
//! Each splat's footprint is its covariance projected on the ground plane (the top-left 2×2 of
//! `R S² Rᵀ`) plus a 0.3 px² low-pass (as 3D Gaussian Splatting's rasteriser adds), cut at 3σ.
//! Splats are composited front to back from the highest down (the camera looks down −z):
//! `C += T·α·c`, `T *= 1 − α`, with `α = opacity · exp(−½ dᵀ Σ⁻¹ d)` clamped to 0.99, and the
//! view-dependent colour seen along −z. The result is un-premultiplied colour and coverage.

use crate::model::Splats;

/// A rendered square window: `res × res` pixels, row 0 north (+y), column 0 west (−x).
#[derive(Debug, Clone, PartialEq)]
pub struct TopImage {
    pub res: usize,
    /// Un-premultiplied colour per pixel (0..1); black where nothing was drawn.
    pub rgb: Vec<[f32; 3]>,
    /// Coverage per pixel, 0..1.
    pub alpha: Vec<f32>,
}

impl TopImage {
    /// Mean coverage.
    pub fn coverage(&self) -> f64 {
        self.alpha.iter().map(|&a| f64::from(a)).sum::<f64>() / self.alpha.len().max(1) as f64
    }

    /// Colour as 8-bit RGB over a background colour.
    pub fn to_rgb8(&self, background: [f32; 3]) -> Vec<[u8; 3]> {
        self.rgb
            .iter()
            .zip(&self.alpha)
            .map(|(c, &a)| {
                let m = |k: usize| ((c[k] * a + background[k] * (1.0 - a)) * 255.0).round().clamp(0.0, 255.0) as u8;
                [m(0), m(1), m(2)]
            })
            .collect()
    }
}

/// Render the square `[cx − size/2, cx + size/2] × [cy − size/2, cy + size/2]` at `res` pixels.
pub fn render_top(s: &Splats, centre: [f64; 2], size: f64, res: usize) -> TopImage {
    let res = res.max(1);
    let px = size / res as f64;
    let (x0, y1) = (centre[0] - size / 2.0, centre[1] + size / 2.0);
    let mut order: Vec<usize> = (0..s.len()).collect();
    let pos = s.positions();
    order.sort_by(|&a, &b| pos[b][2].total_cmp(&pos[a][2]).then(a.cmp(&b)));
    let mut acc = vec![[0.0f32; 3]; res * res];
    let mut trans = vec![1.0f32; res * res];
    let opac = s.opacities();
    let view = [0.0, 0.0, -1.0];
    for &i in &order {
        let c = s.covariance(i);
        // Footprint in pixel units, with the anti-aliasing floor.
        let (a, b, d) = (c[0][0] / (px * px) + 0.3, c[0][1] / (px * px), c[1][1] / (px * px) + 0.3);
        let det = a * d - b * b;
        if det <= 0.0 || !det.is_finite() {
            continue;
        }
        let (ia, ib, id) = (d / det, -b / det, a / det);
        let u = (f64::from(pos[i][0]) - x0) / px - 0.5;
        let v = (y1 - f64::from(pos[i][1])) / px - 0.5;
        let (rx, ry) = (3.0 * a.sqrt(), 3.0 * d.sqrt());
        let (c0, c1) = ((u - rx).floor().max(0.0), (u + rx).ceil().min(res as f64 - 1.0));
        let (r0, r1) = ((v - ry).floor().max(0.0), (v + ry).ceil().min(res as f64 - 1.0));
        if c0 > c1 || r0 > r1 {
            continue;
        }
        let col = if s.sh_degree() == 0 { s.base_rgb(i) } else { s.rgb(i, view) };
        let o = opac[i];
        for r in r0 as usize..=r1 as usize {
            let dy = r as f64 - v;
            for cc in c0 as usize..=c1 as usize {
                let dx = cc as f64 - u;
                let q = ia * dx * dx + 2.0 * ib * dx * dy + id * dy * dy;
                if q > 9.0 {
                    continue;
                }
                let al = (o * (-0.5 * q).exp() as f32).min(0.99);
                let k = r * res + cc;
                let t = trans[k];
                if t < 1e-4 {
                    continue;
                }
                for ch in 0..3 {
                    acc[k][ch] += t * al * col[ch];
                }
                trans[k] = t * (1.0 - al);
            }
        }
    }
    let alpha: Vec<f32> = trans.iter().map(|t| 1.0 - t).collect();
    let rgb = acc
        .iter()
        .zip(&alpha)
        .map(|(c, &a)| if a > 1e-6 { c.map(|v| (v / a).clamp(0.0, 1.0)) } else { [0.0; 3] })
        .collect();
    TopImage { res, rgb, alpha }
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
}

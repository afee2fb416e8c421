//! The point splatter: each point is projected, given a footprint radius in samples and drawn as
//! a screen-aligned square or disc at the constant depth of its centre.
//!
//! **Coverage** is exact and documented so counts can be checked: a square of radius `r` (in
//! samples) covers the samples whose centres lie in `[c − r, c + r)` on both axes (so `r = ½`
//! covers exactly one sample), a disc those within distance `r` of the centre. Radii are clamped
//! from below to ½ (square) and ¾ (disc), so every point on screen covers at least one sample,
//! and from above to [`MAX_RADIUS_PX`](super::MAX_RADIUS_PX) pixels.
//!
//! **Depth test without ordering.** A sample holds one `u64` key: the depth `d = 1 − z/w` as
//! `f32` bits (positive floats order like their bits) in the high 32 bits and the point's sRGB
//! colour in bits 8..32. Every fragment does an atomic `fetch_max`, so the sample ends with the
//! nearest point's key whatever the order or the number of threads (on an exact depth tie the
//! larger colour code wins): deterministic without binning or sorting. Points go straight from
//! the cloud to the buffer in parallel chunks; a relaxed load skips the atomic when the fragment
//! is already hidden. The resolve reads samples in order and recovers each sample's eye distance
//! by unprojecting its depth.

use super::pipeline::{ceil_i, floor_i, transform, transform4, Mat4, Target, CHUNK};
use super::shade::{dot, scale, sub, to_linear, to_srgb8, SkyShader};
use crate::image::Rgb8Image;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// How the footprint radius of a point is found, in samples.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Radius {
    /// A fixed radius in samples.
    Samples(f64),
    /// A world radius, times this factor over the clip `w` (`f_y · sh / 2`).
    World(f64),
}

/// The key of a fragment: depth bits, then sRGB colour.
#[inline]
fn key(d: f32, rgb: [u8; 3]) -> u64 {
    (d.to_bits() as u64) << 32 | (rgb[0] as u64) << 8 | (rgb[1] as u64) << 16 | (rgb[2] as u64) << 24
}

/// Depth and colour of a key; depth 0 means an empty sample.
#[inline]
fn unkey(k: u64) -> (f32, [u8; 3]) {
    (f32::from_bits((k >> 32) as u32), [(k >> 8) as u8, (k >> 16) as u8, (k >> 24) as u8])
}

/// Splats every point into a fresh key buffer; `colour(i)` gives point `i`'s sRGB colour.
#[allow(clippy::too_many_arguments)]
pub(crate) fn splat_points(
    n: usize,
    pos: impl Fn(usize) -> [f64; 3] + Sync,
    colour: impl Fn(usize) -> [u8; 3] + Sync,
    m: &Mat4,
    t: &Target,
    radius: Radius,
    disc: bool,
    max_r: f64,
) -> Vec<AtomicU64> {
    let buf: Vec<AtomicU64> = (0..t.sw * t.sh).into_par_iter().map(|_| AtomicU64::new(0)).collect();
    let min_r = if disc { 0.75 } else { 0.5 };
    let (sw, sh) = (t.sw as f64, t.sh as f64);
    (0..n.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
        for i in c * CHUNK..n.min((c + 1) * CHUNK) {
            let q = transform(m, pos(i));
            let w = q[3];
            // Strictly inside the far plane, so d > 0 and a key never reads as empty.
            if w.is_nan() || w <= 0.0 || q[2] < -w || q[2] >= w {
                continue;
            }
            let inv = 1.0 / w;
            let cx = (q[0] * inv + 1.0) * 0.5 * sw;
            let cy = (1.0 - q[1] * inv) * 0.5 * sh;
            let r = match radius {
                Radius::Samples(r) => r,
                Radius::World(k) => k * inv,
            }
            .clamp(min_r, max_r);
            // Far off screen (and inside the bounds the rounding helpers need).
            if !(cx > -r && cx < sw + r && cy > -r && cy < sh + r) {
                continue;
            }
            let x0 = ceil_i(cx - r - 0.5).max(0);
            let y0 = ceil_i(cy - r - 0.5).max(0);
            let (x1, y1) = if disc {
                (floor_i(cx + r - 0.5), floor_i(cy + r - 0.5))
            } else {
                (ceil_i(cx + r - 0.5) - 1, ceil_i(cy + r - 0.5) - 1)
            };
            let (x1, y1) = (x1.min(t.sw as i64 - 1), y1.min(t.sh as i64 - 1));
            if x0 > x1 || y0 > y1 {
                continue;
            }
            let k = key((1.0 - q[2] * inv) as f32, colour(i));
            for y in y0 as usize..=y1 as usize {
                // The disc's span on this row: centres within √(r² − dy²) of cx.
                let (a, b) = if disc {
                    let dy = y as f64 + 0.5 - cy;
                    let h = (r * r - dy * dy).max(0.0).sqrt();
                    (ceil_i(cx - h - 0.5).max(x0), floor_i(cx + h - 0.5).min(x1))
                } else {
                    (x0, x1)
                };
                if a > b {
                    continue;
                }
                for cell in &buf[y * t.sw + a as usize..=y * t.sw + b as usize] {
                    if k > cell.load(Relaxed) {
                        cell.fetch_max(k, Relaxed);
                    }
                }
            }
        }
    });
    buf
}

/// Eye distances of the drawn samples, recovered from their depths.
struct Unproject {
    inv: Mat4,
    eye: [f64; 3],
    sw: f64,
    sh: f64,
}

impl Unproject {
    #[inline]
    fn distance(&self, x: usize, y: usize, d: f32) -> f64 {
        let nx = (x as f64 + 0.5) / self.sw * 2.0 - 1.0;
        let ny = 1.0 - (y as f64 + 0.5) / self.sh * 2.0;
        let p = transform4(&self.inv, [nx, ny, 1.0 - d as f64, 1.0]);
        let v = sub([p[0] / p[3], p[1] / p[3], p[2] / p[3]], self.eye);
        dot(v, v).sqrt()
    }
}

/// Box-filters the key buffer into pixels: drawn samples give their colour (or, with
/// `grey_depth`, a grey from light near to dark far over the range of the pixels' distances),
/// the others the sky. Returns the image and each pixel's nearest drawn distance (+∞ for none).
pub(crate) fn resolve_points(
    buf: &[AtomicU64],
    t: &Target,
    s: usize,
    sky: &SkyShader,
    inv: Mat4,
    eye: [f64; 3],
    grey_depth: bool,
) -> (Rgb8Image, Vec<f32>) {
    let (w, h) = (t.sw / s, t.sh / s);
    let un = Unproject { inv, eye, sw: t.sw as f64, sh: t.sh as f64 };
    let mut dist = vec![f32::INFINITY; w * h];
    let mut img = Rgb8Image::new(w, h);
    if s == 1 && !grey_depth {
        // One pass, sRGB bytes straight through.
        img.data.par_chunks_mut(w * 3).zip(dist.par_chunks_mut(w)).enumerate().for_each(|(py, (row, drow))| {
            let cy = 1.0 - (py as f64 + 0.5) / h as f64 * 2.0;
            for (px, (out, dst)) in row.chunks_exact_mut(3).zip(drow.iter_mut()).enumerate() {
                let (d, rgb) = unkey(buf[py * t.sw + px].load(Relaxed));
                if d > 0.0 {
                    out.copy_from_slice(&rgb);
                    *dst = un.distance(px, py, d) as f32;
                } else {
                    out.copy_from_slice(&sky.srgb_at((px as f64 + 0.5) / w as f64 * 2.0 - 1.0, cy));
                }
            }
        });
        return (img, dist);
    }
    dist.par_chunks_mut(w).enumerate().for_each(|(py, drow)| {
        for (px, out) in drow.iter_mut().enumerate() {
            for j in 0..s {
                let y = py * s + j;
                for i in 0..s {
                    let x = px * s + i;
                    let (d, _) = unkey(buf[y * t.sw + x].load(Relaxed));
                    if d > 0.0 {
                        *out = out.min(un.distance(x, y, d) as f32);
                    }
                }
            }
        }
    });
    let range = if grey_depth {
        let (lo, hi) = dist
            .par_iter()
            .filter(|d| d.is_finite())
            .fold(|| (f32::INFINITY, f32::NEG_INFINITY), |a, &d| (a.0.min(d), a.1.max(d)))
            .reduce(|| (f32::INFINITY, f32::NEG_INFINITY), |a, b| (a.0.min(b.0), a.1.max(b.1)));
        (lo as f64, hi as f64)
    } else {
        (0.0, 1.0)
    };
    let grey = |dd: f64| {
        let f = if range.1 > range.0 { ((dd - range.0) / (range.1 - range.0)).clamp(0.0, 1.0) } else { 0.0 };
        (255.0 * (0.92 - 0.8 * f) + 0.5) as u8
    };
    let inv_n = 1.0 / (s * s) as f64;
    img.data.par_chunks_mut(w * 3).zip(dist.par_chunks(w)).enumerate().for_each(|(py, (row, drow))| {
        for px in 0..w {
            let (cx, cy) = ((px as f64 + 0.5) / w as f64 * 2.0 - 1.0, 1.0 - (py as f64 + 0.5) / h as f64 * 2.0);
            if s == 1 {
                // One sample: sRGB bytes straight through.
                let (d, rgb) = unkey(buf[py * t.sw + px].load(Relaxed));
                let c = if d <= 0.0 {
                    sky.srgb_at(cx, cy)
                } else if grey_depth {
                    [grey(drow[px] as f64); 3]
                } else {
                    rgb
                };
                row[px * 3..px * 3 + 3].copy_from_slice(&c);
                continue;
            }
            let mut acc = [0.0f64; 3];
            let mut sky_count = 0u32;
            for j in 0..s {
                let y = py * s + j;
                for i in 0..s {
                    let x = px * s + i;
                    let (d, rgb) = unkey(buf[y * t.sw + x].load(Relaxed));
                    if d <= 0.0 {
                        sky_count += 1;
                    } else {
                        let c = if grey_depth { [grey(un.distance(x, y, d)); 3] } else { rgb };
                        for k in 0..3 {
                            acc[k] += to_linear(c[k]);
                        }
                    }
                }
            }
            if sky_count > 0 {
                let c = scale(sky.colour_at(cx, cy), sky_count as f64);
                for k in 0..3 {
                    acc[k] += c[k];
                }
            }
            for k in 0..3 {
                row[px * 3 + k] = to_srgb8(acc[k] * inv_n);
            }
        }
    });
    (img, dist)
}

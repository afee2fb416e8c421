//! The point splatter: each point is projected, given a footprint radius in samples and drawn as
//! a screen-aligned square or disc at the constant depth of its centre, z-tested like triangles.
//!
//! Coverage is exact and documented so counts can be checked: a square of radius `r` (in
//! samples) covers the samples whose centres lie in `[c − r, c + r)` on both axes (so `r = ½`
//! covers exactly one sample), a disc those within distance `r` of the centre. Radii are clamped
//! from below to ½ (square) and √½ (disc), so every point on screen covers at least one sample,
//! and from above to [`MAX_RADIUS_PX`](super::MAX_RADIUS_PX) pixels.

use super::pipeline::{build_chunks, transform, Chunk, Mat4, Rows, Target, BAND_ROWS};
use rayon::prelude::*;

/// A projected point: centre and radius in samples, depth `1 − z/w`, id, sample rows.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Splat {
    cx: f32,
    cy: f32,
    r: f32,
    d: f32,
    id: u32,
    rows: [i32; 2],
}

impl Rows for Splat {
    #[inline]
    fn rows(&self) -> (i32, i32) {
        (self.rows[0], self.rows[1])
    }
}

/// How the footprint radius of a point is found, in samples.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Radius {
    /// A fixed radius in samples.
    Samples(f64),
    /// A world radius, times this factor over the clip `w` (`f_y · sh / 2`).
    World(f64),
}

/// Projects and bins every point.
pub(crate) fn bin_points(
    n: usize,
    pos: impl Fn(usize) -> [f64; 3] + Sync,
    m: &Mat4,
    t: &Target,
    radius: Radius,
    disc: bool,
    max_r: f64,
) -> Vec<Chunk<Splat>> {
    let min_r = if disc { std::f64::consts::FRAC_1_SQRT_2 + 1e-6 } else { 0.5 };
    build_chunks(n, t.bands(), |i, out| {
        let c = transform(m, pos(i));
        let w = c[3];
        if w.is_nan() || w <= 0.0 || c[2] < -w || c[2] > w {
            return;
        }
        let inv = 1.0 / w;
        let cx = (c[0] * inv + 1.0) * 0.5 * t.sw as f64;
        let cy = (1.0 - c[1] * inv) * 0.5 * t.sh as f64;
        let r = match radius {
            Radius::Samples(r) => r,
            Radius::World(k) => k * inv,
        }
        .clamp(min_r, max_r);
        // Reject before converting: far off-screen centres would not fit the f32 cast well.
        if cx + r < 0.0 || cy + r < 0.0 || cx - r > t.sw as f64 || cy - r > t.sh as f64 {
            return;
        }
        let (cx, cy, r) = (cx as f32, cy as f32, r as f32);
        let y0 = (cy - r - 0.5).ceil() as i32;
        let y1 = if disc { (cy + r - 0.5).floor() as i32 } else { (cy + r - 0.5).ceil() as i32 - 1 };
        let (y0, y1) = (y0.max(0), y1.min(t.sh as i32 - 1));
        if y0 > y1 {
            return;
        }
        out.push(Splat { cx, cy, r, d: (1.0 - c[2] * inv) as f32, id: i as u32, rows: [y0, y1] });
    })
}

/// Columns covered by `s` on sample row `y`, or `None`.
#[inline]
fn span(s: &Splat, y: i32, disc: bool, sw: i32) -> Option<(i32, i32)> {
    let (x0, x1) = if disc {
        let dy = y as f32 + 0.5 - s.cy;
        let h2 = s.r * s.r - dy * dy;
        if h2 < 0.0 {
            return None;
        }
        let h = h2.sqrt();
        ((s.cx - h - 0.5).ceil() as i32, (s.cx + h - 0.5).floor() as i32)
    } else {
        ((s.cx - s.r - 0.5).ceil() as i32, (s.cx + s.r - 0.5).ceil() as i32 - 1)
    };
    let (x0, x1) = (x0.max(0), x1.min(sw - 1));
    (x0 <= x1).then_some((x0, x1))
}

/// Splats binned points into depth and id buffers (nearer wins, earlier point on a tie).
pub(crate) fn raster_points(chunks: &[Chunk<Splat>], t: &Target, disc: bool, depth: &mut [f32], ids: &mut [u32]) {
    let sw = t.sw;
    let band = BAND_ROWS * sw;
    depth.par_chunks_mut(band).zip(ids.par_chunks_mut(band)).enumerate().for_each(|(b, (dband, iband))| {
        let y0 = (b * BAND_ROWS) as i32;
        let y1 = ((b * BAND_ROWS + BAND_ROWS).min(t.sh) - 1) as i32;
        for ch in chunks {
            for s in ch.band(b) {
                for y in s.rows[0].max(y0)..=s.rows[1].min(y1) {
                    let Some((x0, x1)) = span(s, y, disc, sw as i32) else { continue };
                    let base = (y - y0) as usize * sw;
                    for x in x0 as usize..=x1 as usize {
                        if s.d > dband[base + x] {
                            dband[base + x] = s.d;
                            iband[base + x] = s.id;
                        }
                    }
                }
            }
        }
    });
}

/// Smallest and largest `dist(id)` over the visible samples, or `None` when none is visible.
pub(crate) fn visible_range(ids: &[u32], sw: usize, dist: impl Fn(u32) -> f64 + Sync) -> Option<(f64, f64)> {
    let (lo, hi) = ids
        .par_chunks(sw)
        .map(|row| {
            let (mut lo, mut hi, mut last) = (f64::INFINITY, f64::NEG_INFINITY, u32::MAX);
            for &id in row {
                if id != u32::MAX && id != last {
                    let d = dist(id);
                    lo = lo.min(d);
                    hi = hi.max(d);
                    last = id;
                }
            }
            (lo, hi)
        })
        .reduce(|| (f64::INFINITY, f64::NEG_INFINITY), |a, b| (a.0.min(b.0), a.1.max(b.1)));
    (lo <= hi).then_some((lo, hi))
}

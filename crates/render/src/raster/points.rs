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
//! colour in bits 8..32, and keeps the maximum key drawn into it, so it ends with the nearest
//! point's key whatever the order or the number of threads (on an exact depth tie the larger
//! colour code wins): deterministic without sorting.
//!
//! **Binned by bands of rows.** Points are projected once, in parallel chunks of the cloud, and
//! each footprint is filed under the bands of sample rows it touches (about 48 Ki samples a
//! band). Each band is then drawn by one thread with plain (non-atomic) maxima into a buffer
//! that stays in its cache, and resolved into its pixel rows at once; bands run in parallel.
//! The resolve recovers each sample's eye distance by unprojecting its depth.

use super::pipeline::{ceil_i, floor_i, transform, Mat4, Target, CHUNK};
use super::shade::{dot, scale, to_linear, to_srgb8, SkyShader};
use crate::image::Rgb8Image;
use rayon::prelude::*;
use std::sync::Mutex;

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

/// Points projected per block.
const BLOCK: usize = 64;

/// Samples per band (about 384 KiB of keys: a band's buffer stays in one core's cache while its
/// points are drawn and its pixels resolved).
const BAND_SAMPLES: usize = 48 * 1024;

/// Sample rows per band: a whole number of pixel rows near [`BAND_SAMPLES`] samples.
fn band_rows(t: &Target, s: usize) -> usize {
    (BAND_SAMPLES / t.sw).max(1).div_ceil(s) * s
}

/// A point's coverage on the sample grid, clipped to the target, with its key.
trait Footprint: Copy + Send + Sync + 'static {
    /// Bins kept from the last frame (see [`BinPool`]).
    fn pool() -> &'static BinPool<Self>;
    /// Draws the covered samples of rows `by0..by0 + band.len() / sw` into `band`.
    fn draw(&self, band: &mut [u64], sw: usize, by0: usize);
}

/// The bins of the last frame, `[chunk][band]`, kept (emptied) so the next frame fills memory
/// that is already mapped: a frame's bins are megabytes, and fresh pages cost more to fault in
/// than the points cost to project. At most [`POOL_BYTES`] are kept.
type BinPool<F> = Mutex<Vec<Vec<Vec<F>>>>;

/// The most bin memory kept between frames.
const POOL_BYTES: usize = 64 << 20;

/// Takes the pooled bins for `chunks × bands`, emptied.
fn take_bins<F: Footprint>(chunks: usize, bands: usize) -> Vec<Vec<Vec<F>>> {
    let mut bins = std::mem::take(&mut *F::pool().lock().unwrap_or_else(|e| e.into_inner()));
    bins.resize_with(chunks, Vec::new);
    for chunk in &mut bins {
        chunk.resize_with(bands, Vec::new);
        chunk.iter_mut().for_each(Vec::clear);
    }
    bins
}

/// Gives the bins back to the pool, unless they hold more than [`POOL_BYTES`].
fn return_bins<F: Footprint>(bins: Vec<Vec<Vec<F>>>) {
    let bytes: usize = bins.iter().flatten().map(|b| b.capacity() * std::mem::size_of::<F>()).sum();
    if bytes <= POOL_BYTES {
        *F::pool().lock().unwrap_or_else(|e| e.into_inner()) = bins;
    }
}

/// Drops the pooled bins.
pub(crate) fn free_bins() {
    Square::pool().lock().unwrap_or_else(|e| e.into_inner()).clear();
    Disc::pool().lock().unwrap_or_else(|e| e.into_inner()).clear();
}

/// A square: every sample of its box.
#[derive(Clone, Copy)]
struct Square {
    key: u64,
    x0: u16,
    x1: u16,
    y0: u16,
    y1: u16,
}

impl Footprint for Square {
    fn pool() -> &'static BinPool<Self> {
        static POOL: BinPool<Square> = Mutex::new(Vec::new());
        &POOL
    }

    #[inline]
    fn draw(&self, band: &mut [u64], sw: usize, by0: usize) {
        let (x0, x1) = (self.x0 as usize, self.x1 as usize);
        let y1 = (self.y1 as usize).min(by0 + band.len() / sw - 1);
        for y in (self.y0 as usize).max(by0)..=y1 {
            for cell in &mut band[(y - by0) * sw + x0..=(y - by0) * sw + x1] {
                *cell = (*cell).max(self.key);
            }
        }
    }
}

/// A disc: per row, the samples whose centres lie within `r` of `(cx, cy)`.
#[derive(Clone, Copy)]
struct Disc {
    key: u64,
    cx: f64,
    cy: f64,
    r: f64,
    x0: u16,
    x1: u16,
    y0: u16,
    y1: u16,
}

impl Footprint for Disc {
    fn pool() -> &'static BinPool<Self> {
        static POOL: BinPool<Disc> = Mutex::new(Vec::new());
        &POOL
    }

    #[inline]
    fn draw(&self, band: &mut [u64], sw: usize, by0: usize) {
        let y1 = (self.y1 as usize).min(by0 + band.len() / sw - 1);
        let (x0, x1) = (self.x0 as usize, self.x1 as usize);
        if x1 - x0 < 8 {
            // Small: test each sample of the box, dx² + dy² ≤ r².
            let r2 = self.r * self.r;
            for y in (self.y0 as usize).max(by0)..=y1 {
                let dy = y as f64 + 0.5 - self.cy;
                let row = &mut band[(y - by0) * sw..];
                for (x, cell) in row[x0..=x1].iter_mut().enumerate() {
                    let dx = (x0 + x) as f64 + 0.5 - self.cx;
                    // Branch-free: the key where covered, else 0 (which never wins).
                    let covered = ((dx * dx + dy * dy <= r2) as u64).wrapping_neg();
                    *cell = (*cell).max(self.key & covered);
                }
            }
            return;
        }
        for y in (self.y0 as usize).max(by0)..=y1 {
            // The disc's span on this row: centres within √(r² − dy²) of cx.
            let dy = y as f64 + 0.5 - self.cy;
            let h = (self.r * self.r - dy * dy).max(0.0).sqrt();
            let a = ceil_i(self.cx - h - 0.5).max(self.x0 as i64);
            let b = floor_i(self.cx + h - 0.5).min(self.x1 as i64);
            if a > b {
                continue;
            }
            for cell in &mut band[(y - by0) * sw + a as usize..=(y - by0) * sw + b as usize] {
                *cell = (*cell).max(self.key);
            }
        }
    }
}

/// Projects every point and files its footprint under each band of `band_h` sample rows it
/// touches: `bins[chunk][band]`, chunks of the cloud in parallel.
#[allow(clippy::too_many_arguments)]
fn bin_points<F: Footprint>(
    n: usize,
    pos: &(impl Fn(usize) -> [f64; 3] + Sync),
    colour: &(impl Fn(usize) -> [u8; 3] + Sync),
    m: &Mat4,
    t: &Target,
    radius: Radius,
    min_r: f64,
    max_r: f64,
    band_h: usize,
    make: impl Fn(u64, [f64; 3], [i64; 4]) -> F + Sync,
    disc: bool,
) -> Vec<Vec<Vec<F>>> {
    let (sw, sh) = (t.sw as f64, t.sh as f64);
    let bands = t.sh.div_ceil(band_h);
    let chunk = n.div_ceil(4 * rayon::current_num_threads().max(1)).max(CHUNK);
    // ⌊y / band_h⌋ by a multiply: exact for y < 2¹⁶ (every sample row) and band_h < 2¹⁶.
    let magic = (1u64 << 32).div_ceil(band_h as u64);
    let band_of = |y: u64| ((y * magic) >> 32) as usize;
    take_bins(n.div_ceil(chunk), bands)
        .into_par_iter()
        .enumerate()
        .map(|(c, mut bins)| {
            // Blocks: a branch-free projection pass the compiler vectorises, then the filing.
            let (mut bx, mut by, mut br) = ([0.0f64; BLOCK], [0.0f64; BLOCK], [0.0f64; BLOCK]);
            let mut bd = [0.0f32; BLOCK];
            let mut ok = [false; BLOCK];
            let end = n.min((c + 1) * chunk);
            for start in (c * chunk..end).step_by(BLOCK) {
                let len = BLOCK.min(end - start);
                for j in 0..len {
                    let q = transform(m, pos(start + j));
                    let w = q[3];
                    let inv = 1.0 / w;
                    bx[j] = (q[0] * inv + 1.0) * 0.5 * sw;
                    by[j] = (1.0 - q[1] * inv) * 0.5 * sh;
                    bd[j] = (1.0 - q[2] * inv) as f32;
                    br[j] = match radius {
                        Radius::Samples(r) => r,
                        Radius::World(k) => k * inv,
                    };
                    // Strictly inside the far plane, so d > 0 and a key never reads as empty
                    // (false for NaN).
                    ok[j] = w > 0.0 && q[2] >= -w && q[2] < w;
                }
                for j in 0..len {
                    if !ok[j] {
                        continue;
                    }
                    let (cx, cy, r) = (bx[j], by[j], br[j].clamp(min_r, max_r));
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
                    let f = make(key(bd[j], colour(start + j)), [cx, cy, r], [x0, x1, y0, y1]);
                    for bin in &mut bins[band_of(y0 as u64)..=band_of(y1 as u64)] {
                        bin.push(f);
                    }
                }
            }
            bins
        })
        .collect()
}

/// Draws band `b`'s footprints from every chunk into `band` (zeroed, `sw` samples a row).
fn draw_band<F: Footprint>(bins: &[Vec<Vec<F>>], b: usize, band: &mut [u64], sw: usize, by0: usize) {
    for chunk in bins {
        for f in &chunk[b] {
            f.draw(band, sw, by0);
        }
    }
}

/// Splats every point and resolves the samples into pixels (see [`resolve_band`] and
/// [`resolve_grey`]); `colour(i)` gives point `i`'s sRGB colour. Returns the image and each
/// pixel's nearest drawn distance (+∞ for none).
///
/// Points are projected once, in parallel chunks, and filed by band of sample rows; then each
/// band is drawn with plain maxima into a buffer that stays in cache and resolved at once. The
/// maximum of the keys does not depend on the order of the points, the chunks or the bands.
#[allow(clippy::too_many_arguments)]
pub(crate) fn draw_points(
    n: usize,
    pos: impl Fn(usize) -> [f64; 3] + Sync,
    colour: impl Fn(usize) -> [u8; 3] + Sync,
    m: &Mat4,
    t: &Target,
    s: usize,
    radius: Radius,
    disc: bool,
    max_r: f64,
    sky: &SkyShader,
    inv: Mat4,
    eye: [f64; 3],
    grey_depth: bool,
) -> (Rgb8Image, Vec<f32>) {
    let band_h = band_rows(t, s);
    let un = Unproject::new(inv, eye, t);
    if disc {
        let make = |key, c: [f64; 3], b: [i64; 4]| Disc {
            key,
            cx: c[0],
            cy: c[1],
            r: c[2],
            x0: b[0] as u16,
            x1: b[1] as u16,
            y0: b[2] as u16,
            y1: b[3] as u16,
        };
        let bins = bin_points(n, &pos, &colour, m, t, radius, 0.75, max_r, band_h, make, true);
        let out = finish(&bins, t, s, band_h, sky, &un, grey_depth);
        return_bins(bins);
        out
    } else {
        let make = |key, _: [f64; 3], b: [i64; 4]| Square {
            key,
            x0: b[0] as u16,
            x1: b[1] as u16,
            y0: b[2] as u16,
            y1: b[3] as u16,
        };
        let bins = bin_points(n, &pos, &colour, m, t, radius, 0.5, max_r, band_h, make, false);
        let out = finish(&bins, t, s, band_h, sky, &un, grey_depth);
        return_bins(bins);
        out
    }
}

/// Draws the binned footprints band by band and resolves them.
fn finish<F: Footprint>(
    bins: &[Vec<Vec<F>>],
    t: &Target,
    s: usize,
    band_h: usize,
    sky: &SkyShader,
    un: &Unproject,
    grey_depth: bool,
) -> (Rgb8Image, Vec<f32>) {
    let (w, h) = (t.sw / s, t.sh / s);
    if grey_depth {
        // The grey ramp spans the whole image's distances: keep every key, resolve afterwards.
        let mut keys = vec![0u64; t.sw * t.sh];
        keys.par_chunks_mut(band_h * t.sw).enumerate().for_each(|(b, band)| draw_band(bins, b, band, t.sw, b * band_h));
        return resolve_grey(&keys, t, s, sky, un);
    }
    let mut img = Rgb8Image::new(w, h);
    // Zeroed pages, mapped lazily and first written by the bands in parallel; every distance
    // is set by `resolve_band`.
    let mut dist = vec![0.0f32; w * h];
    let band_px = band_h / s;
    img.data.par_chunks_mut(w * 3 * band_px).zip(dist.par_chunks_mut(w * band_px)).enumerate().for_each_init(
        Vec::new,
        |buf: &mut Vec<u64>, (b, (rows, drows))| {
            let by0 = b * band_h;
            buf.clear();
            buf.resize(band_h.min(t.sh - by0) * t.sw, 0);
            draw_band(bins, b, buf, t.sw, by0);
            resolve_band(buf, t, s, by0 / s, rows, drows, sky, un);
        },
    );
    (img, dist)
}

/// Eye distances of the drawn samples, recovered from their depths.
struct Unproject {
    inv: Mat4,
    eye: [f64; 3],
    /// NDC per sample: `x · kx − 1`, `1 − y · ky` at sample centres `x + ½`, `y + ½`.
    kx: f64,
    ky: f64,
}

impl Unproject {
    fn new(inv: Mat4, eye: [f64; 3], t: &Target) -> Self {
        Self { inv, eye, kx: 2.0 / t.sw as f64, ky: 2.0 / t.sh as f64 }
    }

    /// The part of the unprojection fixed by sample row `y`: `inv · (0, ny, 0, 1)`.
    #[inline]
    fn row(&self, y: usize) -> [f64; 4] {
        let ny = 1.0 - (y as f64 + 0.5) * self.ky;
        std::array::from_fn(|k| ny * self.inv[1][k] + self.inv[3][k])
    }

    /// Eye distance of the sample at column `x` of the row `r` ([`Self::row`]) with depth `d`.
    #[inline]
    fn distance_on(&self, r: &[f64; 4], x: usize, d: f32) -> f64 {
        let nx = (x as f64 + 0.5) * self.kx - 1.0;
        let z = 1.0 - d as f64;
        let p: [f64; 4] = std::array::from_fn(|k| nx * self.inv[0][k] + z * self.inv[2][k] + r[k]);
        let q = 1.0 / p[3];
        let v = [p[0] * q - self.eye[0], p[1] * q - self.eye[1], p[2] * q - self.eye[2]];
        dot(v, v).sqrt()
    }

    #[inline]
    fn distance(&self, x: usize, y: usize, d: f32) -> f64 {
        self.distance_on(&self.row(y), x, d)
    }
}

/// Resolves one band's keys (`band`, sample rows from `py0 · s`) into its pixel rows `rows`
/// (sRGB) and `drows` (distances): drawn samples give their colour, the others the sky,
/// box-filtered in linear light over `s × s` samples.
#[allow(clippy::too_many_arguments)]
fn resolve_band(
    band: &[u64],
    t: &Target,
    s: usize,
    py0: usize,
    rows: &mut [u8],
    drows: &mut [f32],
    sky: &SkyShader,
    un: &Unproject,
) {
    let (w, h) = (t.sw / s, t.sh / s);
    let inv_n = 1.0 / (s * s) as f64;
    let mut sky_row = vec![[0u8; 3]; if s == 1 { w } else { 0 }];
    let mut scratch = Vec::new();
    for (k, (row, drow)) in rows.chunks_exact_mut(w * 3).zip(drows.chunks_exact_mut(w)).enumerate() {
        let py = py0 + k;
        let cy = 1.0 - (py as f64 + 0.5) / h as f64 * 2.0;
        if s == 1 {
            // One sample: sRGB bytes straight through.
            sky.srgb_row(cy, &mut sky_row, &mut scratch);
            let keys = &band[k * t.sw..(k + 1) * t.sw];
            let ur = un.row(py);
            for (px, (((out, dst), &key), sky_px)) in
                row.chunks_exact_mut(3).zip(drow.iter_mut()).zip(keys).zip(&sky_row).enumerate()
            {
                let (d, rgb) = unkey(key);
                if d > 0.0 {
                    out.copy_from_slice(&rgb);
                    *dst = un.distance_on(&ur, px, d) as f32;
                } else {
                    out.copy_from_slice(sky_px);
                    *dst = f32::INFINITY;
                }
            }
            continue;
        }
        for (px, (out, dst)) in row.chunks_exact_mut(3).zip(drow.iter_mut()).enumerate() {
            *dst = f32::INFINITY;
            let mut acc = [0.0f64; 3];
            let mut sky_count = 0u32;
            for j in 0..s {
                for i in 0..s {
                    let x = px * s + i;
                    let (d, rgb) = unkey(band[(k * s + j) * t.sw + x]);
                    if d <= 0.0 {
                        sky_count += 1;
                    } else {
                        *dst = dst.min(un.distance(x, py * s + j, d) as f32);
                        for c in 0..3 {
                            acc[c] += to_linear(rgb[c]);
                        }
                    }
                }
            }
            if sky_count > 0 {
                let c = scale(sky.colour_at((px as f64 + 0.5) / w as f64 * 2.0 - 1.0, cy), sky_count as f64);
                for c3 in 0..3 {
                    acc[c3] += c[c3];
                }
            }
            for c in 0..3 {
                out[c] = to_srgb8(acc[c] * inv_n);
            }
        }
    }
}

/// Resolves the whole key buffer in grey-by-distance mode: each drawn sample a grey from light
/// near to dark far over the range of the pixels' nearest distances, the others the sky.
fn resolve_grey(keys: &[u64], t: &Target, s: usize, sky: &SkyShader, un: &Unproject) -> (Rgb8Image, Vec<f32>) {
    let (w, h) = (t.sw / s, t.sh / s);
    let mut dist = vec![f32::INFINITY; w * h];
    let mut img = Rgb8Image::new(w, h);
    dist.par_chunks_mut(w).enumerate().for_each(|(py, drow)| {
        for (px, out) in drow.iter_mut().enumerate() {
            for j in 0..s {
                let y = py * s + j;
                for i in 0..s {
                    let x = px * s + i;
                    let (d, _) = unkey(keys[y * t.sw + x]);
                    if d > 0.0 {
                        *out = out.min(un.distance(x, y, d) as f32);
                    }
                }
            }
        }
    });
    let (lo, hi) = dist
        .par_iter()
        .filter(|d| d.is_finite())
        .fold(|| (f32::INFINITY, f32::NEG_INFINITY), |a, &d| (a.0.min(d), a.1.max(d)))
        .reduce(|| (f32::INFINITY, f32::NEG_INFINITY), |a, b| (a.0.min(b.0), a.1.max(b.1)));
    let (lo, hi) = (lo as f64, hi as f64);
    let grey = |dd: f64| {
        let f = if hi > lo { ((dd - lo) / (hi - lo)).clamp(0.0, 1.0) } else { 0.0 };
        (255.0 * (0.92 - 0.8 * f) + 0.5) as u8
    };
    let inv_n = 1.0 / (s * s) as f64;
    img.data.par_chunks_mut(w * 3).zip(dist.par_chunks(w)).enumerate().for_each(|(py, (row, drow))| {
        for px in 0..w {
            let (cx, cy) = ((px as f64 + 0.5) / w as f64 * 2.0 - 1.0, 1.0 - (py as f64 + 0.5) / h as f64 * 2.0);
            if s == 1 {
                let (d, _) = unkey(keys[py * t.sw + px]);
                let c = if d <= 0.0 { sky.srgb_at(cx, cy) } else { [grey(drow[px] as f64); 3] };
                row[px * 3..px * 3 + 3].copy_from_slice(&c);
                continue;
            }
            let mut acc = [0.0f64; 3];
            let mut sky_count = 0u32;
            for j in 0..s {
                let y = py * s + j;
                for i in 0..s {
                    let x = px * s + i;
                    let (d, _) = unkey(keys[y * t.sw + x]);
                    if d <= 0.0 {
                        sky_count += 1;
                    } else {
                        let g = to_linear(grey(un.distance(x, y, d)));
                        for a in &mut acc {
                            *a += g;
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

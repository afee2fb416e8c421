//! Image metrics of a tileset, on grey images (`&[f32]`, row-major, `w × h`, row 0 north).
//!
//! The original's `scripts/repetition.py` measured a tileset on its atlas: Wang layouts of the
//! top-down tile renders, as one luminance mosaic. These are those measurements:
//!
//! * [`repetition`] — the lattice excess: the mean normalised circular autocorrelation of the
//!   image at whole-tile shifts `1, 2, 3` periods (the mean of the x and y lags) minus the same
//!   at the half-way shifts `1.5, 2.5, 3.5`. A periodic image scores ≈ 1, noise ≈ 0. Measured
//!   on brightness ("texture") and on a [`landmarks`] map (features that the eye notices
//!   repeating).
//! * [`busyness`] — η², the share of the variance explained by a labelling (the four triangles of
//!   a tile: [`triangle_labels`]): four flat blocks → 1, grain → 0, a constant tile → 0.
//!   [`mosaic_busyness`] is its mean and spread over the tiles of a mosaic.
//! * [`seam_error`] — the mean absolute difference across the tile boundaries of a mosaic,
//!   comparing the strips on either side of each shared edge pixel by pixel outward (mirrored),
//!   so tiles whose edge strips continue each other score 0.
//! * [`landmarks`] / [`salience_mask`] — local contrast: how far a pixel stands out of its
//!   (wrapping) box neighbourhood.
//!
//! All functions are pure and deterministic; sums run in `f64`.

use crate::tiling::wang::{triangle, Side};

/// Luminance `0.299 R + 0.587 G + 0.114 B` of interleaved RGB (or RGBA with `channels = 4`).
pub fn luminance(rgb: &[f32], channels: usize) -> Vec<f32> {
    assert!(channels >= 3, "need at least three channels");
    assert_eq!(rgb.len() % channels, 0, "length is not a multiple of channels");
    rgb.chunks_exact(channels).map(|p| 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2]).collect()
}

fn check(img: &[f32], w: usize, h: usize) {
    assert_eq!(img.len(), w * h, "image is not w × h");
}

fn mean(img: &[f32]) -> f64 {
    if img.is_empty() {
        return 0.0;
    }
    img.iter().map(|&v| v as f64).sum::<f64>() / img.len() as f64
}

/// Normalised circular autocorrelation at the shift `(dx, dy)` pixels:
/// `Σ (I(p) − μ)(I(p + d) − μ) / Σ (I(p) − μ)²`, indices wrapping. 0 for a constant image.
pub fn autocorrelation(img: &[f32], w: usize, h: usize, dx: usize, dy: usize) -> f64 {
    check(img, w, h);
    if w == 0 || h == 0 {
        return 0.0;
    }
    let mu = mean(img);
    let var: f64 = img.iter().map(|&v| (v as f64 - mu).powi(2)).sum();
    if var <= 1e-12 * img.len() as f64 {
        return 0.0;
    }
    let (dx, dy) = (dx % w, dy % h);
    let mut cov = 0.0;
    for y in 0..h {
        let row = &img[y * w..(y + 1) * w];
        let y2 = (y + dy) % h;
        let row2 = &img[y2 * w..(y2 + 1) * w];
        for x in 0..w {
            cov += (row[x] as f64 - mu) * (row2[(x + dx) % w] as f64 - mu);
        }
    }
    cov / var
}

/// Lattice excess with the original's lags: [`repetition_lags`] with `lags = 3`.
pub fn repetition(img: &[f32], w: usize, h: usize, period: usize) -> f64 {
    repetition_lags(img, w, h, period, 3)
}

/// Lattice excess of an image tiled with period `period` pixels: mean over `k = 1..=lags` of the
/// autocorrelation at `k·period` (x and y lags averaged) minus the mean at `k·period + period/2`
/// (rounded down for odd periods). Periodic → ≈ 1, noise → ≈ 0.
pub fn repetition_lags(img: &[f32], w: usize, h: usize, period: usize, lags: usize) -> f64 {
    check(img, w, h);
    assert!(period >= 2, "period must be at least 2 pixels");
    assert!(lags >= 1, "need one lag or more");
    let at = |s: usize| 0.5 * (autocorrelation(img, w, h, s, 0) + autocorrelation(img, w, h, 0, s));
    let mut whole = 0.0;
    let mut half = 0.0;
    for k in 1..=lags {
        whole += at(k * period);
        half += at(k * period + period / 2);
    }
    (whole - half) / lags as f64
}

/// Per-pixel triangle labels of a `w × h` tile image (row 0 north): 0 = N, 1 = E, 2 = S, 3 = W,
/// by [`crate::tiling::wang::triangle`] at the pixel centre.
pub fn triangle_labels(w: usize, h: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(w * h);
    for y in 0..h {
        let v = 1.0 - (y as f64 + 0.5) / h as f64;
        for x in 0..w {
            let u = (x as f64 + 0.5) / w as f64;
            out.push(triangle(u, v).index() as u8);
        }
    }
    out
}

/// η²: between-label variance over total variance of `img` under `labels` (any `u8` labels).
/// 1 when the image is constant within each label, ≈ 0 when the labels explain nothing, and 0
/// for a constant image.
pub fn busyness(img: &[f32], labels: &[u8]) -> f64 {
    assert_eq!(img.len(), labels.len(), "labels do not match the image");
    let mu = mean(img);
    let total: f64 = img.iter().map(|&v| (v as f64 - mu).powi(2)).sum();
    if total <= 1e-12 * img.len().max(1) as f64 {
        return 0.0;
    }
    let mut sum = [0.0f64; 256];
    let mut count = [0usize; 256];
    for (&v, &l) in img.iter().zip(labels) {
        sum[l as usize] += v as f64;
        count[l as usize] += 1;
    }
    let between: f64 =
        (0..256).filter(|&l| count[l] > 0).map(|l| count[l] as f64 * (sum[l] / count[l] as f64 - mu).powi(2)).sum();
    (between / total).clamp(0.0, 1.0)
}

/// Busyness of one square tile image of `res × res` pixels under its four triangles.
pub fn tile_busyness(tile: &[f32], res: usize) -> f64 {
    check(tile, res, res);
    busyness(tile, &triangle_labels(res, res))
}

/// Mean and standard deviation of [`tile_busyness`] over the whole `period × period` tiles of a
/// mosaic (tiles start at pixel 0; partial tiles at the right/bottom are ignored).
/// `(0, 0)` when no whole tile fits.
pub fn mosaic_busyness(img: &[f32], w: usize, h: usize, period: usize) -> (f64, f64) {
    check(img, w, h);
    assert!(period >= 1);
    let labels = triangle_labels(period, period);
    let mut values = Vec::new();
    let mut tile = vec![0.0f32; period * period];
    for ty in 0..h / period {
        for tx in 0..w / period {
            for y in 0..period {
                let src = (ty * period + y) * w + tx * period;
                tile[y * period..(y + 1) * period].copy_from_slice(&img[src..src + period]);
            }
            values.push(busyness(&tile, &labels));
        }
    }
    if values.is_empty() {
        return (0.0, 0.0);
    }
    let m = values.iter().sum::<f64>() / values.len() as f64;
    let var = values.iter().map(|v| (v - m).powi(2)).sum::<f64>() / values.len() as f64;
    (m, var.sqrt())
}

/// Mean absolute difference across the interior tile boundaries of a mosaic with tiles of
/// `period` pixels starting at pixel 0: for every boundary line (between column `k·period − 1`
/// and `k·period`, likewise for rows) and every pixel along it, the strips on the two sides are
/// compared outward, `|I(e − 1 − t) − I(e + t)|` for `t < strip`. Tiles whose edge strips
/// continue each other (identical edges) score 0; unrelated random tiles score the mean
/// difference of two random pixels. Returns 0 when the mosaic has no interior boundary.
pub fn seam_error(img: &[f32], w: usize, h: usize, period: usize, strip: usize) -> f64 {
    check(img, w, h);
    assert!(period >= 1 && strip >= 1 && strip <= period, "need 1 ≤ strip ≤ period");
    let mut sum = 0.0f64;
    let mut n = 0usize;
    let mut e = period;
    while e < w {
        if e + strip <= w {
            for y in 0..h {
                let row = &img[y * w..(y + 1) * w];
                for t in 0..strip {
                    sum += (row[e - 1 - t] as f64 - row[e + t] as f64).abs();
                    n += 1;
                }
            }
        }
        e += period;
    }
    let mut e = period;
    while e < h {
        if e + strip <= h {
            for t in 0..strip {
                let (a, b) = ((e - 1 - t) * w, (e + t) * w);
                for x in 0..w {
                    sum += (img[a + x] as f64 - img[b + x] as f64).abs();
                    n += 1;
                }
            }
        }
        e += period;
    }
    if n == 0 {
        0.0
    } else {
        sum / n as f64
    }
}

/// Wrapping box sums of `img` over `(2r+1)²` windows: returns (sum of values, sum of squares).
fn box_sums(img: &[f32], w: usize, h: usize, r: usize) -> (Vec<f64>, Vec<f64>) {
    let pass = |src: &[f64], len: usize, stride: usize, lines: usize, step: usize| -> Vec<f64> {
        let mut out = vec![0.0; src.len()];
        for l in 0..lines {
            let at = |i: usize| l * step + (i % len) * stride;
            // Window of x = 0: offsets −r..=r, wrapping.
            let mut s = 0.0;
            for k in 0..=2 * r {
                s += src[at(k + len * (r / len + 1) - r)];
            }
            for x in 0..len {
                out[at(x)] = s;
                let leave = x + len * (r / len + 1) - r;
                s += src[at(x + r + 1)] - src[at(leave)];
            }
        }
        out
    };
    let v: Vec<f64> = img.iter().map(|&x| x as f64).collect();
    let v2: Vec<f64> = img.iter().map(|&x| (x as f64) * (x as f64)).collect();
    let hs = pass(&v, w, 1, h, w);
    let hs2 = pass(&v2, w, 1, h, w);
    (pass(&hs, h, w, w, 1), pass(&hs2, h, w, w, 1))
}

/// The original's landmark map: `max(|I − boxmean| / boxsd − 2, 0)` over wrapping
/// `(2r+1)²` boxes (`repetition.py` used `r = max(2, res / 3)` for tiles of `res` pixels).
/// Plain texture is nearly all 0; a spot that stands out of its surroundings is positive.
pub fn landmarks(img: &[f32], w: usize, h: usize, radius: usize) -> Vec<f32> {
    check(img, w, h);
    if img.is_empty() {
        return Vec::new();
    }
    let (s, s2) = box_sums(img, w, h, radius);
    let area = ((2 * radius + 1) * (2 * radius + 1)) as f64;
    img.iter()
        .enumerate()
        .map(|(i, &v)| {
            let m = s[i] / area;
            let sd = (s2[i] / area - m * m).max(0.0).sqrt();
            if sd <= 1e-9 {
                return 0.0;
            }
            ((v as f64 - m).abs() / sd - 2.0).max(0.0) as f32
        })
        .collect()
}

/// Local contrast `|I − boxmean|` (wrapping `(2r+1)²` box), thresholded at its `percentile`
/// (0–100): `true` for the most salient pixels. At least the pixels strictly above the
/// threshold value are marked; ties at the threshold are marked too.
pub fn salience_mask(img: &[f32], w: usize, h: usize, radius: usize, percentile: f64) -> Vec<bool> {
    check(img, w, h);
    if img.is_empty() {
        return Vec::new();
    }
    let (s, _) = box_sums(img, w, h, radius);
    let area = ((2 * radius + 1) * (2 * radius + 1)) as f64;
    let contrast: Vec<f64> = img.iter().enumerate().map(|(i, &v)| (v as f64 - s[i] / area).abs()).collect();
    let mut sorted = contrast.clone();
    sorted.sort_by(|a, b| a.total_cmp(b));
    let q = (percentile.clamp(0.0, 100.0) / 100.0 * (sorted.len() - 1) as f64).round() as usize;
    let t = sorted[q];
    contrast.iter().map(|&c| c >= t && c > 0.0).collect()
}

/// Index of the triangle (`N, E, S, W`) a label of [`triangle_labels`] stands for.
pub fn label_side(label: u8) -> Side {
    Side::from_index(label as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bozkir_core::rng::Rng;

    fn noise(seed: u32, n: usize) -> Vec<f32> {
        let mut rng = Rng::new(seed);
        (0..n).map(|_| rng.next_f64() as f32).collect()
    }

    /// A `tiles × tiles` mosaic repeating one random `p × p` tile.
    fn periodic(p: usize, tiles: usize, seed: u32) -> (Vec<f32>, usize) {
        let tile = noise(seed, p * p);
        let w = p * tiles;
        let img = (0..w * w).map(|i| tile[(i / w % p) * p + i % w % p]).collect();
        (img, w)
    }

    #[test]
    fn periodic_image_repeats_noise_does_not() {
        for (p, seed) in [(16, 1), (24, 2), (15, 3)] {
            let (img, w) = periodic(p, 8, seed);
            let r = repetition(&img, w, w, p);
            assert!(r > 0.9, "periodic p={p}: {r}");
        }
        for seed in 0..4 {
            let img = noise(10 + seed, 192 * 192);
            let r = repetition(&img, 192, 192, 24);
            assert!(r.abs() < 0.05, "noise: {r}");
        }
        // Constant: 0, not NaN.
        assert_eq!(repetition(&[0.5; 64 * 64], 64, 64, 16), 0.0);
        // Autocorrelation at zero shift is 1.
        let img = noise(5, 40 * 30);
        assert!((autocorrelation(&img, 40, 30, 0, 0) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn landmark_lattice_is_seen_on_the_landmark_map() {
        // Non-repeating grain with one bright pixel at the same place in every tile.
        let (p, tiles) = (24, 12);
        let w = p * tiles;
        let mut img = noise(7, w * w);
        for ty in 0..tiles {
            for tx in 0..tiles {
                img[(ty * p + 7) * w + tx * p + 13] += 1.5;
            }
        }
        let texture = repetition(&img, w, w, p);
        assert!(texture < 0.1, "texture {texture}");
        let marks = landmarks(&img, w, w, (p / 3).max(2));
        let marked = repetition(&marks, w, w, p);
        assert!(marked > 0.8, "landmarks {marked}");
        // Plain uniform grain has no landmarks at all (|z| ≤ √3 < 2).
        let plain = landmarks(&noise(8, 96 * 96), 96, 96, 8);
        assert!(plain.iter().filter(|&&v| v > 0.0).count() < 10);
    }

    #[test]
    fn box_sums_match_brute_force() {
        let (w, h) = (9, 7);
        let img = noise(3, w * h);
        for r in [0, 1, 2, 4, 6, 11] {
            let (s, s2) = box_sums(&img, w, h, r);
            for y in 0..h {
                for x in 0..w {
                    let (mut a, mut b) = (0.0, 0.0);
                    for dy in -(r as i64)..=r as i64 {
                        for dx in -(r as i64)..=r as i64 {
                            let xx = (x as i64 + dx).rem_euclid(w as i64) as usize;
                            let yy = (y as i64 + dy).rem_euclid(h as i64) as usize;
                            let v = img[yy * w + xx] as f64;
                            a += v;
                            b += v * v;
                        }
                    }
                    assert!((s[y * w + x] - a).abs() < 1e-9, "r={r} ({x},{y})");
                    assert!((s2[y * w + x] - b).abs() < 1e-9);
                }
            }
        }
    }

    #[test]
    fn four_flat_blocks_are_busy_grain_is_not() {
        let res = 48;
        let labels = triangle_labels(res, res);
        // The north triangle is at the top rows (row 0 north).
        assert_eq!(label_side(labels[res / 2]), Side::North);
        assert_eq!(label_side(labels[(res - 1) * res + res / 2]), Side::South);
        assert_eq!(label_side(labels[(res / 2) * res]), Side::West);
        assert_eq!(label_side(labels[(res / 2) * res + res - 1]), Side::East);
        let blocks: Vec<f32> = labels.iter().map(|&l| [0.2, 0.9, 0.5, 0.1][l as usize]).collect();
        let b = tile_busyness(&blocks, res);
        assert!(b > 0.9, "blocks {b}");
        let grain = noise(4, res * res);
        let g = tile_busyness(&grain, res);
        assert!(g < 0.05, "grain {g}");
        assert_eq!(tile_busyness(&vec![0.3; res * res], res), 0.0);
        // Blocks with a little grain stay busy.
        let mixed: Vec<f32> = blocks.iter().zip(&grain).map(|(b, g)| b + 0.1 * g).collect();
        assert!(tile_busyness(&mixed, res) > 0.8);
        // Over a mosaic: mean and spread.
        let (w, tiles) = (res * 3, 3);
        let mosaic: Vec<f32> = (0..w * w).map(|i| blocks[(i / w % res) * res + i % w % res]).collect();
        let (m, sd) = mosaic_busyness(&mosaic, w, w, res);
        assert!(m > 0.9 && sd < 1e-9, "{m} ± {sd} over {} tiles", tiles * tiles);
    }

    #[test]
    fn identical_edges_have_no_seam_error() {
        let (p, tiles) = (20, 5);
        let w = p * tiles;
        let strip = 3;
        // Every tile random inside, with the same value profile in its border strips: constant
        // border rows/columns that mirror across each boundary.
        let mut img = noise(9, w * w);
        for y in 0..w {
            for x in 0..w {
                let (tx, ty) = (x % p, y % p);
                let dx = tx.min(p - 1 - tx);
                let dy = ty.min(p - 1 - ty);
                if dx < strip || dy < strip {
                    img[y * w + x] = 0.1 * dx.min(dy) as f32;
                }
            }
        }
        assert_eq!(seam_error(&img, w, w, p, strip), 0.0);
        // A periodic mosaic of one tile whose opposite edges match is seamless too.
        let (per, pw) = periodic(p, 1, 2);
        assert_eq!(seam_error(&per, pw, pw, p, 1), 0.0, "no interior boundary");
        // Unrelated random tiles: about E|U − V| = 1/3.
        let rnd = noise(11, w * w);
        let e = seam_error(&rnd, w, w, p, strip);
        assert!((e - 1.0 / 3.0).abs() < 0.03, "random seams {e}");
        // A seam shows up against the interior: shift every second tile column.
        let mut step = img.clone();
        for y in 0..w {
            for x in 0..w {
                if (x / p) % 2 == 1 {
                    step[y * w + x] += 0.25;
                }
            }
        }
        let e = seam_error(&step, w, w, p, strip);
        assert!(e > 0.1, "{e}");
    }

    #[test]
    fn salience_marks_the_spot() {
        let (w, h) = (64, 48);
        let mut img: Vec<f32> = noise(12, w * h).iter().map(|v| 0.5 + 0.05 * v).collect();
        img[20 * w + 30] = 3.0;
        let mask = salience_mask(&img, w, h, 4, 99.9);
        assert!(mask[20 * w + 30]);
        assert!(mask.iter().filter(|&&m| m).count() <= 10);
        let lm = landmarks(&img, w, h, 4);
        let (best, _) = lm.iter().enumerate().fold((0, 0.0f32), |a, (i, &v)| if v > a.1 { (i, v) } else { a });
        assert_eq!(best, 20 * w + 30);
        // Constant image: nothing salient.
        assert!(salience_mask(&[0.2; 100], 10, 10, 2, 50.0).iter().all(|&m| !m));
        let lum = luminance(&[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0], 3);
        assert!((lum[0] - 0.299).abs() < 1e-6 && (lum[1] - 0.587).abs() < 1e-6 && (lum[2] - 0.114).abs() < 1e-6);
    }
}

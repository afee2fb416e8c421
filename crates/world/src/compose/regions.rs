//! Region centres, their biome classification, and the smooth per-biome weights (a partition of
//! unity), as pyworldgen 0.1.8's `compose/regions.py` computes them.

use rayon::prelude::*;

use super::palette::Palette;
use super::rownoise::signed_fbm2_row;
use crate::random::{Draws, Noise};

/// The world's cell centres: `x_i = (i + ½)·res`, `y_j = (j + ½)·res`, row 0 south.
#[derive(Debug, Clone)]
pub struct Frame {
    /// Columns.
    pub nx: usize,
    /// Rows.
    pub ny: usize,
    /// Cell size in metres.
    pub res: f64,
    /// Cell-centre x of each column.
    pub xs: Vec<f64>,
    /// Cell-centre y of each row.
    pub ys: Vec<f64>,
}

impl Frame {
    /// The frame of an `nx × ny` grid of cell size `res`.
    pub fn new(nx: usize, ny: usize, res: f64) -> Self {
        let xs = (0..nx).map(|i| (i as f64 + 0.5) * res).collect();
        let ys = (0..ny).map(|j| (j as f64 + 0.5) * res).collect();
        Self { nx, ny, res, xs, ys }
    }
}

/// Elevation control value before normalisation: `signed_fbm2(x·s, y·s, 4, seed + 31)`.
#[inline]
fn elevation(noise: &dyn Noise, x: f64, y: f64, seed: i64, scale: f64) -> f64 {
    noise.signed_fbm2(x * scale, y * scale, 4, seed.wrapping_add(31))
}

/// Moisture control value before normalisation:
/// `signed_fbm2(x·s + 100, y·s − 50, 4, seed + 37)`.
#[inline]
fn moisture(noise: &dyn Noise, x: f64, y: f64, seed: i64, scale: f64) -> f64 {
    noise.signed_fbm2(x * scale + 100.0, y * scale - 50.0, 4, seed.wrapping_add(37))
}

/// The low-frequency (elevation, moisture) control fields, each normalised to [0, 1] by its
/// minimum and maximum over the grid (0.5 where the field is constant). Only the ranges are
/// kept: the classification reads the fields at the region centres alone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ControlFields {
    /// (min, max) of the raw elevation field over the grid.
    pub elevation: (f64, f64),
    /// (min, max) of the raw moisture field over the grid.
    pub moisture: (f64, f64),
    /// The noise frequency, 1/metres.
    pub scale: f64,
    /// The world's integer seed.
    pub seed: i64,
}

fn normalise(v: f64, (lo, hi): (f64, f64)) -> f64 {
    if hi > lo {
        (v - lo) / (hi - lo)
    } else {
        0.5
    }
}

impl ControlFields {
    /// Ranges of both fields over the frame (rows in parallel; min and max do not depend on
    /// the order).
    pub fn new(noise: &dyn Noise, frame: &Frame, seed: i64, scale: f64) -> Self {
        let fold = |a: [f64; 4], b: [f64; 4]| [a[0].min(b[0]), a[1].max(b[1]), a[2].min(b[2]), a[3].max(b[3])];
        let empty = [f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY];
        let nx = frame.nx;
        let r = frame
            .ys
            .par_iter()
            .map_init(
                || (vec![0.0; nx], vec![0.0; nx]),
                |(xin, out), &y| {
                    let mut acc = empty;
                    for (v, &x) in xin.iter_mut().zip(&frame.xs) {
                        *v = x * scale;
                    }
                    signed_fbm2_row(noise, xin, y * scale, 4, seed.wrapping_add(31), out);
                    for &e in out.iter() {
                        acc = fold(acc, [e, e, acc[2], acc[3]]);
                    }
                    for (v, &x) in xin.iter_mut().zip(&frame.xs) {
                        *v = x * scale + 100.0;
                    }
                    signed_fbm2_row(noise, xin, y * scale - 50.0, 4, seed.wrapping_add(37), out);
                    for &m in out.iter() {
                        acc = fold(acc, [acc[0], acc[1], m, m]);
                    }
                    acc
                },
            )
            .reduce(|| empty, fold);
        Self { elevation: (r[0], r[1]), moisture: (r[2], r[3]), scale, seed }
    }

    /// Normalised (elevation, moisture) at cell (i, j).
    pub fn at(&self, noise: &dyn Noise, frame: &Frame, i: usize, j: usize) -> (f64, f64) {
        let (x, y) = (frame.xs[i], frame.ys[j]);
        (
            normalise(elevation(noise, x, y, self.seed, self.scale), self.elevation),
            normalise(moisture(noise, x, y, self.seed, self.scale), self.moisture),
        )
    }
}

/// Dart-throw of up to `n` region centres in [0, W) × [0, H) with pairwise distance ≥
/// `spacing`: each attempt draws `x = uniform(0, W)` then `y = uniform(0, H)`; at most
/// `500·n` attempts, so it always ends (pyworldgen's `place_region_seeds`).
pub fn place_region_seeds(domain: (f64, f64), draws: &mut dyn Draws, n: usize, spacing: f64) -> Vec<(f64, f64)> {
    let (w, h) = domain;
    let mut seeds: Vec<(f64, f64)> = Vec::with_capacity(n);
    let s2 = spacing * spacing;
    let mut attempts = 0;
    while seeds.len() < n && attempts < 500 * n.max(1) {
        attempts += 1;
        let x = draws.uniform(0.0, w);
        let y = draws.uniform(0.0, h);
        if seeds.iter().all(|&(sx, sy)| (x - sx) * (x - sx) + (y - sy) * (y - sy) >= s2) {
            seeds.push((x, y));
        }
    }
    seeds
}

/// Each centre's biome: the palette index whose niche is nearest in squared distance to the
/// normalised control values at the centre's cell `(clip(x/res), clip(y/res))` (first index on
/// ties, as `argmin`).
pub fn classify_seeds(
    seeds: &[(f64, f64)],
    control: &ControlFields,
    noise: &dyn Noise,
    frame: &Frame,
    palette: &Palette,
) -> Vec<usize> {
    let cell = |v: f64, n: usize| (v / frame.res).clamp(0.0, (n - 1) as f64) as usize;
    seeds
        .iter()
        .map(|&(x, y)| {
            let (e, m) = control.at(noise, frame, cell(x, frame.nx), cell(y, frame.ny));
            let mut best = (0, f64::INFINITY);
            for (t, b) in palette.biomes.iter().enumerate() {
                let d = (b.niche.0 - e) * (b.niche.0 - e) + (b.niche.1 - m) * (b.niche.1 - m);
                if d < best.1 {
                    best = (t, d);
                }
            }
            best.0
        })
        .collect()
}

/// How the per-region Gaussians are shaped.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WeightShape {
    /// Gaussian σ in metres.
    pub sigma: f64,
    /// Domain-warp amplitude in metres.
    pub warp_amp: f64,
    /// Warp noise frequency, 1/metres.
    pub warp_scale: f64,
    /// The world's integer seed.
    pub seed: i64,
}

/// Per-biome weight planes and each biome's maximum.
#[derive(Debug, Clone)]
pub struct Weights {
    /// Number of biomes T.
    pub types: usize,
    /// T planes of `ny·nx` weights (`planes[t][j·nx + i]`).
    pub planes: Vec<Vec<f64>>,
    /// Largest weight of each biome over the grid.
    pub max: Vec<f64>,
    /// Cells where every Gaussian underflowed (Σ ≤ 1e-12) and the shifted form was used.
    pub underflow_cells: usize,
}

/// Per-row scratch of [`weights_row`].
struct RowScratch {
    xin: Vec<f64>,
    warp_x: Vec<f64>,
    warp_y: Vec<f64>,
    d2: Vec<f64>,
    cell: Vec<f64>,
}

/// The domain-warped positions of row j's cells into `scratch.warp_x`, `scratch.warp_y`.
fn warp_row(noise: &dyn Noise, frame: &Frame, j: usize, shape: &WeightShape, sc: &mut RowScratch) {
    let (y, s) = (frame.ys[j], shape.warp_scale);
    for (v, &x) in sc.xin.iter_mut().zip(&frame.xs) {
        *v = x * s + 11.0;
    }
    signed_fbm2_row(noise, &sc.xin, y * s - 7.0, 3, shape.seed.wrapping_add(141), &mut sc.warp_x);
    for (v, &x) in sc.xin.iter_mut().zip(&frame.xs) {
        *v = x * s - 5.0;
    }
    signed_fbm2_row(noise, &sc.xin, y * s + 23.0, 3, shape.seed.wrapping_add(143), &mut sc.warp_y);
    for (i, &x) in frame.xs.iter().enumerate() {
        sc.warp_x[i] = x + shape.warp_amp * sc.warp_x[i];
        sc.warp_y[i] = y + shape.warp_amp * sc.warp_y[i];
    }
}

/// Weights of one row: each cell's position is domain-warped,
/// `x' = x + A·signed_fbm2(x·s + 11, y·s − 7, 3, seed + 141)`,
/// `y' = y + A·signed_fbm2(x·s − 5, y·s + 23, 3, seed + 143)`, then region k gets
/// `g_k = exp(−((x' − x_k)² + (y' − y_k)²)·(1/(2σ²)))`; a biome's weight is
/// `Σ_{k of type t} g_k / Σ_k g_k`. Where `Σ_k g_k ≤ 1e-12` (all Gaussians underflow, far
/// from every centre) the same ratio is taken with every exponent shifted by the smallest
/// squared distance, which keeps the partition of unity (pyworldgen divides by 1 there and
/// its weights no longer sum to one). Returns the row's underflow count.
fn weights_row(
    noise: &dyn Noise,
    frame: &Frame,
    j: usize,
    regions: (&[(f64, f64)], &[usize]),
    shape: &WeightShape,
    out: &mut [&mut [f64]],
    sc: &mut RowScratch,
) -> usize {
    let (seeds, types) = regions;
    warp_row(noise, frame, j, shape, sc);
    let inv = 1.0 / (2.0 * shape.sigma * shape.sigma);
    let mut underflow = 0;
    for i in 0..frame.nx {
        let (xw, yw) = (sc.warp_x[i], sc.warp_y[i]);
        let w = &mut sc.cell;
        w.fill(0.0);
        let mut total = 0.0;
        for (k, &(sx, sy)) in seeds.iter().enumerate() {
            let d = (xw - sx) * (xw - sx) + (yw - sy) * (yw - sy);
            sc.d2[k] = d;
            let gk = libm::exp(-d * inv);
            w[types[k]] += gk;
            total += gk;
        }
        if total <= 1e-12 {
            underflow += 1;
            let dmin = sc.d2.iter().copied().fold(f64::INFINITY, f64::min);
            w.fill(0.0);
            total = 0.0;
            for (k, &d) in sc.d2.iter().enumerate() {
                let gk = libm::exp(-(d - dmin) * inv);
                w[types[k]] += gk;
                total += gk;
            }
        }
        for (plane, &v) in out.iter_mut().zip(w.iter()) {
            plane[i] = v / total;
        }
    }
    underflow
}

/// The smooth partition of unity over the frame (rows in parallel; each cell's value depends
/// on that cell alone, so the result does not depend on the thread count).
pub fn region_weights(
    noise: &dyn Noise,
    frame: &Frame,
    seeds: &[(f64, f64)],
    types: &[usize],
    n_types: usize,
    shape: &WeightShape,
) -> Weights {
    let (nx, ny) = (frame.nx, frame.ny);
    let mut planes = vec![vec![0.0; nx * ny]; n_types];
    let mut rows: Vec<Vec<&mut [f64]>> = (0..ny).map(|_| Vec::with_capacity(n_types)).collect();
    for plane in planes.iter_mut() {
        for (row, chunk) in rows.iter_mut().zip(plane.chunks_mut(nx)) {
            row.push(chunk);
        }
    }
    let per_row: Vec<(Vec<f64>, usize)> = rows
        .into_par_iter()
        .enumerate()
        .map_init(
            || RowScratch {
                xin: vec![0.0; nx],
                warp_x: vec![0.0; nx],
                warp_y: vec![0.0; nx],
                d2: vec![0.0; seeds.len()],
                cell: vec![0.0; n_types],
            },
            |sc, (j, mut row)| {
                let under = weights_row(noise, frame, j, (seeds, types), shape, &mut row, sc);
                let max = row.iter().map(|r| r.iter().copied().fold(f64::NEG_INFINITY, f64::max)).collect();
                (max, under)
            },
        )
        .collect();
    let mut max = vec![f64::NEG_INFINITY; n_types];
    let mut underflow_cells = 0;
    for (m, u) in per_row {
        underflow_cells += u;
        for (a, b) in max.iter_mut().zip(m) {
            *a = a.max(b);
        }
    }
    Weights { types: n_types, planes, max, underflow_cells }
}

//! Blending every field with the region weights: height, water depth, tree density and colour
//! are `Σ_t w_t·f_t` per cell, in palette order, in float64 (pyworldgen's order), then cast.

use rayon::prelude::*;

use super::palette::{sample_grid, BiomeProfile, Palette};
use super::regions::{Frame, Weights};
use crate::random::Noise;

/// Below this a biome's weight does not evaluate its profile at a cell; a biome whose weight
/// never exceeds it is skipped altogether (pyworldgen's whole-biome skip).
pub const WEIGHT_EPS: f64 = 1e-9;

/// The blended fields, pyworldgen's output precision.
#[derive(Debug, Clone)]
pub struct Blended {
    /// Height (float32 values, widened).
    pub height: Vec<f64>,
    /// Water depth (float32 values, widened).
    pub water: Vec<f64>,
    /// Tree density clipped to [0, 1], float32.
    pub density: Vec<f32>,
    /// Colour, each channel `Σ w_t·c_t` clipped to [0, 255] and truncated (numpy's `astype`).
    pub color: Vec<[u8; 3]>,
    /// Index of the largest weight (first on ties, numpy's `argmax`).
    pub dominant: Vec<u16>,
}

/// What the blend needs besides the weights.
pub struct BlendInput<'a> {
    /// The lattice noise of the compatibility choice.
    pub noise: &'a dyn Noise,
    /// Cell centres.
    pub frame: &'a Frame,
    /// The palette.
    pub palette: &'a Palette,
    /// The world's integer seed.
    pub seed: i64,
    /// The base level of the built-in profiles.
    pub base: f64,
}

/// Per-thread scratch: one row of each biome's profile (height, water) and the x inputs.
struct Scratch {
    xin: Vec<f64>,
    h: Vec<Vec<f64>>,
    wd: Vec<Vec<f64>>,
    cell: Vec<f64>,
}

/// Evaluate biome t's profile along row j into the scratch, for the cells `lo..hi` only.
fn profile_row(inp: &BlendInput, t: usize, j: usize, (lo, hi): (usize, usize), sc: &mut Scratch) {
    let f = inp.frame;
    let y = f.ys[j];
    let xs = &f.xs[lo..hi];
    let (h, wd) = (&mut sc.h[t][lo..hi], &mut sc.wd[t][lo..hi]);
    match &inp.palette.biomes[t].profile {
        BiomeProfile::Builtin(kind) => {
            kind.eval_row(inp.noise, xs, y, inp.seed, inp.base, &mut sc.xin[lo..hi], h, wd);
        }
        BiomeProfile::Grid(g) => {
            let (ex, ey) = (f.nx as f64 * f.res, f.ny as f64 * f.res);
            for (i, &x) in xs.iter().enumerate() {
                (h[i], wd[i]) = sample_grid(g, x, y, ex, ey);
            }
        }
        // compose() refuses unresolved names before blending.
        BiomeProfile::Named(_) => {
            h.fill(0.0);
            wd.fill(0.0);
        }
    }
}

struct RowOut<'a> {
    height: &'a mut [f64],
    water: &'a mut [f64],
    density: &'a mut [f32],
    color: &'a mut [[u8; 3]],
    dominant: &'a mut [u16],
}

fn blend_row(inp: &BlendInput, active: &[usize], j: usize, planes: &[Vec<f64>], out: RowOut, sc: &mut Scratch) {
    let nx = inp.frame.nx;
    let row = j * nx..(j + 1) * nx;
    for &t in active {
        // The span of the row where biome t's weight exceeds WEIGHT_EPS.
        let w = &planes[t][row.clone()];
        if let Some(lo) = w.iter().position(|&v| v > WEIGHT_EPS) {
            let hi = nx - w.iter().rev().position(|&v| v > WEIGHT_EPS).unwrap_or(0);
            profile_row(inp, t, j, (lo, hi), sc);
        }
    }
    let wc = &mut sc.cell;
    for i in 0..nx {
        for (v, plane) in wc.iter_mut().zip(planes) {
            *v = plane[j * nx + i];
        }
        let (mut h, mut wd, mut d, mut c) = (0.0, 0.0, 0.0, [0.0f64; 3]);
        for &t in active {
            let wt = wc[t];
            if wt > WEIGHT_EPS {
                h += wt * sc.h[t][i];
                wd += wt * sc.wd[t][i];
            }
            let b = &inp.palette.biomes[t];
            d += wt * b.tree_density;
            for (ck, &bk) in c.iter_mut().zip(&b.color) {
                *ck += wt * f64::from(bk);
            }
        }
        let mut best = 0;
        for t in 1..wc.len() {
            if wc[t] > wc[best] {
                best = t;
            }
        }
        out.height[i] = f64::from(h as f32);
        out.water[i] = f64::from(wd as f32);
        out.density[i] = d.clamp(0.0, 1.0) as f32;
        out.color[i] = c.map(|v| v.clamp(0.0, 255.0) as u8);
        out.dominant[i] = best as u16;
    }
}

/// Blend all fields (rows in parallel; each cell depends on that cell alone). Biomes whose
/// largest weight is ≤ [`WEIGHT_EPS`] are skipped; elsewhere a biome's profile is evaluated
/// only where its weight exceeds [`WEIGHT_EPS`] (the neglected term is below 1e-9·|h_T|).
pub fn blend(inp: &BlendInput, weights: &Weights) -> Blended {
    let (nx, ny) = (inp.frame.nx, inp.frame.ny);
    let n = nx * ny;
    let active: Vec<usize> = (0..weights.types).filter(|&t| weights.max[t] > WEIGHT_EPS).collect();
    let mut b = Blended {
        height: vec![0.0; n],
        water: vec![0.0; n],
        density: vec![0.0; n],
        color: vec![[0; 3]; n],
        dominant: vec![0; n],
    };
    b.height
        .par_chunks_mut(nx)
        .zip(b.water.par_chunks_mut(nx))
        .zip(b.density.par_chunks_mut(nx))
        .zip(b.color.par_chunks_mut(nx))
        .zip(b.dominant.par_chunks_mut(nx))
        .enumerate()
        .for_each_init(
            || {
                let t_n = weights.types;
                Scratch {
                    xin: vec![0.0; nx],
                    h: vec![vec![0.0; nx]; t_n],
                    wd: vec![vec![0.0; nx]; t_n],
                    cell: vec![0.0; t_n],
                }
            },
            |sc, (j, ((((height, water), density), color), dominant))| {
                let out = RowOut { height, water, density, color, dominant };
                blend_row(inp, &active, j, &weights.planes, out, sc);
            },
        );
    b
}

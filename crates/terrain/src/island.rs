//! An island from noise (seed 003): domain-warped fBM, power redistribution, radial falloff, a
//! moisture field, the coastline and D8 rivers.
//!
//! The recipe is Red Blob Games' "Making maps with noise" (A. Patel, 2015, revised 2022) as the
//! seed retells it (O. Sidorkin, Cinevva, "Building an open world in the browser", part 27,
//! spike 54). Each step removes one flaw of raw noise:
//!
//! 1. **Domain-warped fBM.** With `(u, v)` the cell position in units of the grid's longer side
//!    (so the island's shape does not depend on the resolution and is isotropic in metres),
//!    `n = fbm01(base, warp_point(warp, u, v))`, i.e. the sample point is displaced,
//!    `p' = p + noise(p)·s` (Quilez), before the fBM is read. Ridges bend instead of following
//!    the lattice.
//! 2. **Redistribution.** `n ← clamp(n, 0, 1)^k` with `k = `[`IslandParams::exponent`]. The seed's
//!    "raise the elevation to the power `e^k`" is Red Blob's `Math.pow(e, exponent)` with `e` the
//!    elevation: `k > 1` presses the middle values down, giving flat valleys and sharp peaks.
//! 3. **Falloff.** With `nx, ny ∈ [−1, 1]` the cell position relative to the grid centre (`±1` on
//!    the border rows and columns), a distance `d` and a shape `t(d)`:
//!    * [`Falloff::Euclidean`]: `d = min(1, √(nx² + ny²))`, `t = 1 − d` (the seed's formula);
//!    * [`Falloff::Radial`]: the same `d`, `t = 1 − smoothstep(d) = 1 − d²(3 − 2d)`, a rounder
//!      shoulder;
//!    * [`Falloff::SquareBump`]: `d = 1 − (1 − nx²)(1 − ny²)`, `t = 1 − d` (Red Blob's 2022
//!      recommendation, after KdotJPG): it fills the rectangle better than a disc.
//!
//!    The elevation is blended towards the shape, `e = lerp(n, t, mix) = n + mix·(t − n)`.
//! 4. **Border guarantee.** `e ← e · smoothstep(clamp((1 − d_edge)/edge_band, 0, 1))` with
//!    `d_edge = max(|nx|, |ny|)`: the outer `edge_band` of the half-size ramps to 0, so every
//!    border cell is sea for any `sea_level > 0`. `edge_band = 0` disables it.
//! 5. **Land fraction (optional).** With [`IslandParams::target_land`] = `Some(f)`, the
//!    `(1 − f)` quantile `q` of `e` is found (sorted copy, total order) and `e` is remapped by the
//!    monotone piecewise-linear map `[0, q] → [0, sea_level]`, `[q, 1] → [sea_level, 1]`, so that
//!    about a fraction `f` of the cells ends above sea level.
//! 6. **Metres.** `z = (e − sea_level) · height_scale`: **sea level is 0 m**, the sea floor is
//!    negative, the highest possible peak is `(1 − sea_level)·height_scale`.
//!
//! The seed's next step, droplet erosion, is not part of this module: [`generate_island`] takes
//! an erosion closure that is applied to the height in metres before the coast and the rivers are
//! traced; [`island_height`] returns the pre-erosion island.
//!
//! Moisture is a second, independent fBM (the seed: "a second independent noise field becomes a
//! moisture map that feeds the biome step"), optionally raised near water ([`moisture_near_water`]).
//!
//! Rivers follow the seed's drainage with the project's own tools: the seed fills pits with
//! Planchon–Darboux to `minNeighbour + ε`; here [`fill_epsilon`] (Priority-Flood, ε = one ulp)
//! gives the same guarantee (every cell has a strictly downhill path to the border), then D8
//! receivers and exact integer accumulation (every cell contributes one unit of rain), and every
//! *land* cell whose accumulation reaches the threshold is a river.
//!
//! Determinism: every field is a pure per-cell function evaluated in parallel over rows; the
//! quantile sorts with a total order; hydrology is sequential. Output bits do not depend on the
//! rayon thread count.

use bozkir_core::noise::{fbm, warp_point, FbmParams, WarpParams};
use bozkir_core::Grid;
use rayon::prelude::*;

use crate::hydrology::flow_graph::{accumulate_cells, d8_receivers};
use crate::hydrology::priority_flood::fill_epsilon;

/// Shape that pulls the edges of the map into the ocean. See the module docs for formulas.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Falloff {
    /// `t = 1 − min(1, √(nx² + ny²))` (seed 003).
    Euclidean,
    /// `t = 1 − smoothstep(min(1, √(nx² + ny²)))`.
    Radial,
    /// Red Blob's square bump: `t = (1 − nx²)(1 − ny²)`.
    #[default]
    SquareBump,
}

/// Parameters of the moisture field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MoistureParams {
    /// The fBM (frequency in cycles per longer side of the grid). Default: 4 octaves at 3.0,
    /// seed derived from the island seed (see [`IslandParams::moisture_fbm`]).
    pub fbm: FbmParams,
    /// Contrast: `m = clamp(0.5 + 0.5·contrast·fbm, 0, 1)`. fBM rarely leaves `[−0.5, 0.5]`, so the
    /// default 2.0 spreads the field over most of `[0, 1]`.
    pub contrast: f64,
    /// Added moisture at a water cell, for [`moisture_near_water`]. Default 0.3.
    pub water_boost: f64,
    /// e-folding distance of the boost in metres: `boost · exp(−dist/radius)`. Default: 0, which
    /// means 8 cells of the grid's smaller spacing.
    pub water_radius_m: f64,
}

impl Default for MoistureParams {
    fn default() -> Self {
        Self {
            fbm: FbmParams { octaves: 4, frequency: 3.0, ..FbmParams::default() },
            contrast: 2.0,
            water_boost: 0.3,
            water_radius_m: 0.0,
        }
    }
}

/// Parameters of the island recipe. Defaults make a single island covering roughly 30–55 % of the
/// map; every formula is in the module docs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IslandParams {
    /// Seed of the elevation fBM; the warp uses `seed + 101`, moisture `seed + 202` (wrapping).
    /// Default 1.
    pub seed: u32,
    /// fBM octaves. Default 6.
    pub octaves: u32,
    /// fBM frequency in cycles per longer side of the grid. Default 2.5.
    pub frequency: f64,
    /// Domain-warp displacement in units of the longer side. Default 0.15.
    pub warp_strength: f64,
    /// Frequency of the warp field (cycles per longer side). Default 1.5.
    pub warp_frequency: f64,
    /// Redistribution exponent `k` in `n ← n^k`. Default 1.4.
    pub exponent: f64,
    /// Falloff shape. Default [`Falloff::SquareBump`].
    pub falloff: Falloff,
    /// Blend weight of the falloff shape, `0..=1`. Default 0.65.
    pub mix: f64,
    /// Fraction of the half-size next to the border that ramps to zero (guarantees a sea
    /// border). Default 0.06.
    pub edge_band: f64,
    /// Sea level on the normalised `[0, 1]` elevation scale; 0 m in the output. Default 0.35.
    pub sea_level: f64,
    /// Optional land fraction to hit (see the module docs, step 5). Default `None`.
    pub target_land: Option<f64>,
    /// Metres per unit of normalised elevation. Default 1200.
    pub height_scale: f64,
    /// Moisture field.
    pub moisture: MoistureParams,
}

impl Default for IslandParams {
    fn default() -> Self {
        Self {
            seed: 1,
            octaves: 6,
            frequency: 2.5,
            warp_strength: 0.15,
            warp_frequency: 1.5,
            exponent: 1.4,
            falloff: Falloff::SquareBump,
            mix: 0.65,
            edge_band: 0.06,
            sea_level: 0.35,
            target_land: None,
            height_scale: 1200.0,
            moisture: MoistureParams::default(),
        }
    }
}

impl IslandParams {
    /// The elevation fBM.
    pub fn base_fbm(&self) -> FbmParams {
        FbmParams { octaves: self.octaves, frequency: self.frequency, seed: self.seed, ..FbmParams::default() }
    }

    /// The domain warp.
    pub fn warp(&self) -> WarpParams {
        WarpParams {
            strength: self.warp_strength,
            fbm: FbmParams {
                octaves: 4,
                frequency: self.warp_frequency,
                seed: self.seed.wrapping_add(101),
                ..FbmParams::default()
            },
            ..WarpParams::default()
        }
    }

    /// The moisture fBM: [`MoistureParams::fbm`] with seed `moisture.fbm.seed + seed + 202`.
    pub fn moisture_fbm(&self) -> FbmParams {
        FbmParams { seed: self.moisture.fbm.seed.wrapping_add(self.seed).wrapping_add(202), ..self.moisture.fbm }
    }
}

/// Cell classes of [`coastline`].
pub mod coast {
    /// Below or at sea level and connected (8-neighbour) to the map border.
    pub const SEA: u8 = 0;
    /// Land with at least one 8-neighbour that is [`SEA`].
    pub const COAST: u8 = 1;
    /// Land (above sea level) not next to the sea.
    pub const LAND: u8 = 2;
    /// Below or at sea level but enclosed by land (an inland lake or a depression).
    pub const LAKE: u8 = 3;
}

#[inline]
fn smoothstep(t: f64) -> f64 {
    let t = t.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// `(nx, ny)` in `[−1, 1]`, `±1` on the border.
#[inline]
fn centred(i: usize, n: usize) -> f64 {
    if n <= 1 {
        0.0
    } else {
        2.0 * i as f64 / (n - 1) as f64 - 1.0
    }
}

/// Noise coordinates: metres divided by the longer side, so `[0, 1]` spans the longer side.
fn noise_scale(w: usize, h: usize, dx: f64, dy: f64) -> f64 {
    let side = f64::max((w.saturating_sub(1)) as f64 * dx, (h.saturating_sub(1)) as f64 * dy);
    if side > 0.0 {
        1.0 / side
    } else {
        1.0
    }
}

/// The falloff shape `t` at `(nx, ny)`.
pub fn falloff_shape(kind: Falloff, nx: f64, ny: f64) -> f64 {
    match kind {
        Falloff::Euclidean => 1.0 - f64::min(1.0, (nx * nx + ny * ny).sqrt()),
        Falloff::Radial => 1.0 - smoothstep(f64::min(1.0, (nx * nx + ny * ny).sqrt())),
        Falloff::SquareBump => (1.0 - nx * nx) * (1.0 - ny * ny),
    }
}

/// Per-cell parallel fill, row by row (pure function of `(x, y)`, so thread-count independent).
fn par_fill(w: usize, h: usize, dx: f64, dy: f64, f: impl Fn(usize, usize) -> f64 + Sync) -> Grid<f64> {
    let mut data = vec![0.0; w * h];
    if w > 0 {
        data.par_chunks_mut(w).enumerate().for_each(|(y, row)| {
            for (x, v) in row.iter_mut().enumerate() {
                *v = f(x, y);
            }
        });
    }
    Grid::from_vec(w, h, data).with_cell_size(dx, dy)
}

/// Normalised elevation in `[0, 1]` (steps 1–5 of the module docs), before conversion to metres.
pub fn island_elevation01(w: usize, h: usize, dx: f64, dy: f64, p: &IslandParams) -> Grid<f64> {
    let base = p.base_fbm();
    let warp = p.warp();
    let s = noise_scale(w, h, dx, dy);
    let mix = p.mix.clamp(0.0, 1.0);
    let k = p.exponent;
    let band = p.edge_band.max(0.0);
    let mut g = par_fill(w, h, dx, dy, |x, y| {
        let (u, v) = (x as f64 * dx * s, y as f64 * dy * s);
        let (qu, qv) = warp_point(&warp, u, v);
        let n = (fbm(&base, qu, qv) * 0.5 + 0.5).clamp(0.0, 1.0);
        let n = libm::pow(n, k);
        let (nx, ny) = (centred(x, w), centred(y, h));
        let t = falloff_shape(p.falloff, nx, ny);
        let mut e = n + mix * (t - n);
        if band > 0.0 {
            let d_edge = f64::max(nx.abs(), ny.abs());
            e *= smoothstep((1.0 - d_edge) / band);
        }
        e.clamp(0.0, 1.0)
    });
    if let Some(f) = p.target_land {
        remap_to_land_fraction(&mut g, f.clamp(0.0, 1.0), p.sea_level);
    }
    g
}

/// Step 5: monotone piecewise-linear remap so that about `frac` of the cells exceed `sea`.
fn remap_to_land_fraction(g: &mut Grid<f64>, frac: f64, sea: f64) {
    let n = g.len();
    if n == 0 {
        return;
    }
    let mut sorted = g.data().to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    let land = ((frac * n as f64).round() as usize).min(n);
    // Cells strictly above `q` are land: `q` is the largest value of the lowest `n − land` cells.
    let q = if land == n { -f64::MIN_POSITIVE } else { sorted[n - land - 1] };
    let hi = sorted[n - 1];
    g.data_mut().par_iter_mut().for_each(|e| {
        *e = if *e <= q {
            if q > 0.0 {
                *e / q * sea
            } else {
                0.0
            }
        } else {
            let span = (hi - q).max(f64::MIN_POSITIVE);
            let t = ((*e - q) / span).clamp(0.0, 1.0);
            // Strictly above `sea` for every cell above `q`.
            f64::max(sea + t * (1.0 - sea), sea.next_up())
        };
    });
}

/// The island height in metres, sea level at 0 m: `(e − sea_level) · height_scale` with `e` from
/// [`island_elevation01`]. Cell size `(dx, dy)` metres. Pre-erosion.
pub fn island_height(w: usize, h: usize, dx: f64, dy: f64, p: &IslandParams) -> Grid<f64> {
    let mut g = island_elevation01(w, h, dx, dy, p);
    let (sea, scale) = (p.sea_level, p.height_scale);
    g.data_mut().par_iter_mut().for_each(|e| *e = (*e - sea) * scale);
    g
}

/// Moisture in `[0, 1]`: `clamp(0.5 + 0.5·contrast·fbm(u, v), 0, 1)` with the independent field
/// [`IslandParams::moisture_fbm`]. Unit cell size (only the shape matters for the noise
/// coordinates, which span the longer side).
pub fn moisture(w: usize, h: usize, p: &IslandParams) -> Grid<f64> {
    moisture_with_cell_size(w, h, 1.0, 1.0, p)
}

/// [`moisture`] on a grid with cell size `(dx, dy)` metres.
pub fn moisture_with_cell_size(w: usize, h: usize, dx: f64, dy: f64, p: &IslandParams) -> Grid<f64> {
    let f = p.moisture_fbm();
    let s = noise_scale(w, h, dx, dy);
    let c = p.moisture.contrast;
    par_fill(w, h, dx, dy, |x, y| (0.5 + 0.5 * c * fbm(&f, x as f64 * dx * s, y as f64 * dy * s)).clamp(0.0, 1.0))
}

/// Moisture raised near water: `m ← min(1, m + boost · exp(−dist/radius))` where `dist` is the
/// chamfer distance in metres (two-pass, 8-neighbour steps of `dx`, `dy`, `√(dx² + dy²)`) to the
/// nearest `true` cell of `water` (rivers, sea, lakes). See [`MoistureParams`].
pub fn moisture_near_water(m: &Grid<f64>, water: &Grid<bool>, p: &MoistureParams) -> Grid<f64> {
    assert_eq!((m.width(), m.height()), (water.width(), water.height()), "moisture_near_water: shapes differ");
    let dist = chamfer_distance(water, m.dx, m.dy);
    let radius = if p.water_radius_m > 0.0 { p.water_radius_m } else { 8.0 * f64::min(m.dx, m.dy) };
    let boost = p.water_boost;
    let mut out = m.clone();
    out.data_mut().par_iter_mut().zip(dist.par_iter()).for_each(|(v, &d)| {
        if d.is_finite() {
            *v = (*v + boost * libm::exp(-d / radius)).clamp(0.0, 1.0);
        }
    });
    out
}

/// Two-pass 8-neighbour chamfer distance (metres) to the nearest `true` cell; `∞` if none.
fn chamfer_distance(mask: &Grid<bool>, dx: f64, dy: f64) -> Vec<f64> {
    let (w, h) = (mask.width(), mask.height());
    let diag = (dx * dx + dy * dy).sqrt();
    let mut d: Vec<f64> = mask.data().iter().map(|&b| if b { 0.0 } else { f64::INFINITY }).collect();
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            let mut v = d[i];
            if x > 0 {
                v = v.min(d[i - 1] + dx);
            }
            if y > 0 {
                v = v.min(d[i - w] + dy);
                if x > 0 {
                    v = v.min(d[i - w - 1] + diag);
                }
                if x + 1 < w {
                    v = v.min(d[i - w + 1] + diag);
                }
            }
            d[i] = v;
        }
    }
    for y in (0..h).rev() {
        for x in (0..w).rev() {
            let i = y * w + x;
            let mut v = d[i];
            if x + 1 < w {
                v = v.min(d[i + 1] + dx);
            }
            if y + 1 < h {
                v = v.min(d[i + w] + dy);
                if x + 1 < w {
                    v = v.min(d[i + w + 1] + diag);
                }
                if x > 0 {
                    v = v.min(d[i + w - 1] + diag);
                }
            }
            d[i] = v;
        }
    }
    d
}

/// Land, sea, coast and lake cells ([`coast`] codes). A cell is land when `height > sea_level`
/// (NaN is water). Water cells reachable from the border through water (8-neighbour) are
/// [`coast::SEA`], the rest [`coast::LAKE`]; land cells with a sea 8-neighbour are
/// [`coast::COAST`].
pub fn coastline(height: &Grid<f64>, sea_level: f64) -> Grid<u8> {
    let (w, h) = (height.width(), height.height());
    let is_land: Vec<bool> = height.data().iter().map(|&z| z > sea_level).collect();
    let mut code = vec![coast::LAKE; w * h];
    let mut stack = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            if is_land[i] {
                code[i] = coast::LAND;
            } else if height.is_border(x, y) {
                code[i] = coast::SEA;
                stack.push(i);
            }
        }
    }
    while let Some(i) = stack.pop() {
        let (x, y) = ((i % w) as isize, (i / w) as isize);
        for (ox, oy) in NEIGHBOURS {
            let (nx, ny) = (x + ox, y + oy);
            if nx < 0 || ny < 0 || nx >= w as isize || ny >= h as isize {
                continue;
            }
            let j = ny as usize * w + nx as usize;
            if code[j] == coast::LAKE {
                code[j] = coast::SEA;
                stack.push(j);
            }
        }
    }
    let mut out = code.clone();
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            if code[i] != coast::LAND {
                continue;
            }
            let touches_sea = NEIGHBOURS.iter().any(|&(ox, oy)| {
                let (nx, ny) = (x as isize + ox, y as isize + oy);
                nx >= 0
                    && ny >= 0
                    && nx < w as isize
                    && ny < h as isize
                    && code[ny as usize * w + nx as usize] == coast::SEA
            });
            if touches_sea {
                out[i] = coast::COAST;
            }
        }
    }
    Grid::from_vec(w, h, out).with_cell_size(height.dx, height.dy)
}

const NEIGHBOURS: [(isize, isize); 8] = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)];

/// River cells: ε-fill ([`fill_epsilon`]), D8 receivers, cell-count accumulation; a cell is a river
/// when its accumulation (itself included) is at least `threshold_cells` and its *original* height
/// is above `sea_level`. Every river cell's D8 path (on the filled surface) descends strictly to
/// the border, so it reaches water.
pub fn rivers(height: &Grid<f64>, sea_level: f64, threshold_cells: u32) -> Grid<bool> {
    river_graph(height, sea_level, threshold_cells).0
}

/// [`rivers`] and the D8 receivers it used (row-major), for callers that trace the network.
pub fn river_graph(height: &Grid<f64>, sea_level: f64, threshold_cells: u32) -> (Grid<bool>, Vec<u32>) {
    let filled = fill_epsilon(height);
    let g = d8_receivers(&filled);
    let acc = accumulate_cells(&g);
    let mask: Vec<bool> =
        height.data().iter().zip(&acc).map(|(&z, &a)| z > sea_level && a >= threshold_cells.max(1)).collect();
    (Grid::from_vec(height.width(), height.height(), mask).with_cell_size(height.dx, height.dy), g.receivers)
}

/// Everything the island recipe makes.
#[derive(Debug, Clone, PartialEq)]
pub struct Island {
    /// Height in metres, sea level 0 m (after the erosion closure).
    pub height: Grid<f64>,
    /// Moisture in `[0, 1]`, boosted near rivers and the coast.
    pub moisture: Grid<f64>,
    /// [`coast`] codes of `height` at 0 m.
    pub coast: Grid<u8>,
    /// River cells of `height`.
    pub rivers: Grid<bool>,
}

/// The whole recipe: [`island_height`], then `erode` (e.g. droplet erosion; pass `|_| {}` for
/// none) on the height in metres, then [`coastline`] and [`rivers`] at 0 m with
/// `river_threshold_cells`, then moisture boosted near rivers and any water
/// ([`moisture_near_water`]).
pub fn generate_island(
    w: usize,
    h: usize,
    dx: f64,
    dy: f64,
    p: &IslandParams,
    river_threshold_cells: u32,
    erode: impl FnOnce(&mut Grid<f64>),
) -> Island {
    let mut height = island_height(w, h, dx, dy, p);
    erode(&mut height);
    let coast_map = coastline(&height, 0.0);
    let river_map = rivers(&height, 0.0, river_threshold_cells);
    let water = Grid::from_vec(
        w,
        h,
        coast_map
            .data()
            .iter()
            .zip(river_map.data())
            .map(|(&c, &r)| r || c == coast::SEA || c == coast::LAKE)
            .collect(),
    )
    .with_cell_size(dx, dy);
    let m = moisture_with_cell_size(w, h, dx, dy, p);
    let moisture = moisture_near_water(&m, &water, &p.moisture);
    Island { height, moisture, coast: coast_map, rivers: river_map }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn land_fraction(z: &Grid<f64>) -> f64 {
        z.data().iter().filter(|&&v| v > 0.0).count() as f64 / z.len() as f64
    }

    #[test]
    fn island_default_land_fraction_in_range() {
        for seed in [1u32, 2, 3, 7, 42] {
            let p = IslandParams { seed, ..Default::default() };
            let z = island_height(128, 128, 10.0, 10.0, &p);
            let f = land_fraction(&z);
            assert!((0.25..=0.65).contains(&f), "seed {seed}: land fraction {f}");
        }
    }

    #[test]
    fn island_target_land_is_hit() {
        for (seed, target) in [(1u32, 0.3), (5, 0.45), (9, 0.6)] {
            for falloff in [Falloff::Euclidean, Falloff::Radial, Falloff::SquareBump] {
                let p = IslandParams { seed, target_land: Some(target), falloff, ..Default::default() };
                let z = island_height(96, 80, 5.0, 5.0, &p);
                let f = land_fraction(&z);
                assert!((f - target).abs() < 0.01, "seed {seed} {falloff:?}: {f} vs {target}");
                assert!(z.data().iter().all(|v| v.is_finite()));
            }
        }
    }

    #[test]
    fn island_border_is_sea() {
        for seed in [1u32, 3, 11] {
            for falloff in [Falloff::Euclidean, Falloff::Radial, Falloff::SquareBump] {
                for target in [None, Some(0.6)] {
                    let p = IslandParams { seed, falloff, target_land: target, mix: 0.3, ..Default::default() };
                    let z = island_height(64, 48, 1.0, 1.0, &p);
                    let c = coastline(&z, 0.0);
                    for y in 0..48 {
                        for x in 0..64 {
                            if z.is_border(x, y) {
                                assert!(*z.get(x, y) < 0.0, "border ({x},{y}) above sea");
                                assert_eq!(*c.get(x, y), coast::SEA);
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn island_rivers_reach_the_sea() {
        for seed in [1u32, 4, 8] {
            let p = IslandParams { seed, ..Default::default() };
            let z = island_height(128, 128, 10.0, 10.0, &p);
            let (r, rcv) = river_graph(&z, 0.0, 40);
            let c = coastline(&z, 0.0);
            let n_river = r.data().iter().filter(|&&b| b).count();
            assert!(n_river > 20, "seed {seed}: only {n_river} river cells");
            for (i, &is_river) in r.data().iter().enumerate() {
                if !is_river {
                    continue;
                }
                assert!(z.data()[i] > 0.0, "river on water");
                let mut j = i;
                let mut steps = 0;
                while c.data()[j] != coast::SEA {
                    let next = rcv[j] as usize;
                    assert_ne!(next, j, "river path from {i} stops at {j} before the sea");
                    j = next;
                    steps += 1;
                    assert!(steps <= z.len());
                }
            }
        }
    }

    #[test]
    fn island_coastline_classes() {
        let z = Grid::from_fn(7, 7, |x, y| {
            if (2..=4).contains(&x) && (2..=4).contains(&y) {
                if x == 3 && y == 3 {
                    -1.0
                } else {
                    5.0
                }
            } else {
                -3.0
            }
        });
        let c = coastline(&z, 0.0);
        assert_eq!(*c.get(0, 0), coast::SEA);
        assert_eq!(*c.get(3, 3), coast::LAKE);
        assert_eq!(*c.get(2, 2), coast::COAST);
        let big = Grid::from_fn(9, 9, |x, y| if (1..=7).contains(&x) && (1..=7).contains(&y) { 5.0 } else { -1.0 });
        let cb = coastline(&big, 0.0);
        assert_eq!(*cb.get(4, 4), coast::LAND);
        assert_eq!(*cb.get(1, 4), coast::COAST);
    }

    #[test]
    fn island_moisture_in_unit_range_and_boosted() {
        let p = IslandParams::default();
        let m = moisture(100, 60, &p);
        assert!(m.data().iter().all(|v| (0.0..=1.0).contains(v)));
        let (lo, hi) = m.min_max().unwrap();
        assert!(hi - lo > 0.4, "moisture spread {lo}..{hi}");
        let water = Grid::from_fn(100, 60, |x, _| x == 0);
        let b = moisture_near_water(&m, &water, &p.moisture);
        for (a, c) in m.data().iter().zip(b.data()) {
            assert!(c >= a && (0.0..=1.0).contains(c));
        }
        // Boost decays with distance.
        let gain = |x: usize| b.get(x, 30) - m.get(x, 30);
        assert!(gain(0) >= gain(50) - 1e-12);
        assert!(*b.get(0, 30) >= (*m.get(0, 30) + 0.3).min(1.0) - 1e-12);
    }

    #[test]
    fn island_deterministic_across_thread_counts() {
        let run = |t: usize| {
            rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap().install(|| {
                let p = IslandParams { seed: 17, target_land: Some(0.4), ..Default::default() };
                generate_island(80, 70, 10.0, 10.0, &p, 30, |_| {})
            })
        };
        let (a, b) = (run(1), run(3));
        let bits = |g: &Grid<f64>| g.data().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&a.height), bits(&b.height));
        assert_eq!(bits(&a.moisture), bits(&b.moisture));
        assert_eq!(a.coast, b.coast);
        assert_eq!(a.rivers, b.rivers);
    }

    #[test]
    fn island_erosion_closure_is_applied() {
        let p = IslandParams::default();
        let plain = generate_island(40, 40, 1.0, 1.0, &p, 10, |_| {});
        let lowered = generate_island(40, 40, 1.0, 1.0, &p, 10, |z| z.data_mut().iter_mut().for_each(|v| *v -= 1e4));
        assert!(lowered.height.data().iter().all(|&v| v < 0.0));
        assert!(lowered.rivers.data().iter().all(|&r| !r));
        assert!(plain.height.data().iter().any(|&v| v > 0.0));
    }
}

//! Result-first "reverse" sculpting: Voronoi region drops, debris put-back and a noise-varied
//! blur (seed 001 §4.6).
//!
//! Source: C. Kempke, "Unity Terrain Generation: Implementing Erosion", as summarised in seed 001
//! §4.6. Instead of simulating shearing (drop a point, spread cracks, recurse ~10⁵ times) the end
//! state is built directly:
//!
//! 1. **Regions.** Every cell belongs to the Voronoi region of its nearest cellular feature point
//!    ([`cellular`] sampled at `(x·dx, y·dy)` metres, `1/region_m` cells per metre). Regions are
//!    keyed by their lattice cell, so hash collisions of ids cannot merge two regions.
//! 2. **Drops.** A region drops when `hash_unit(i, j, seed) < drop_fraction`. Its floor is
//!    `low + (1 − f)·(high − low)`, where `low` is the lowest height the region *touches* (its own
//!    cells and their 8-neighbours), `high` its highest cell and `f = depth·(1 + depth_variation ·
//!    fbm(feature point))` clamped to `[0, 1]`: the noise-driven drop amount. Every cell above
//!    the floor is cut down to it (`h ← min(h, floor)`), so a drop is flat-bottomed: a sheared
//!    cliff at its upper edge, a bench across it.
//! 3. **Debris put-back.** A fraction `debris` of each region's removed volume is put back on the
//!    region's cut cells as rubble: shared out with weights `max(0, 1 + debris_roughness ·
//!    fbm(x, y))`, so floors stop being machine-flat while the volume balance stays exact:
//!    `Σ(h_in − h_out)·dx·dy = (1 − debris)·removed` (before step 4).
//! 4. **Finish** (skipped with `finish = false`): `noise_m · fbm` is added and the result is
//!    blurred by [`perlin_gaussian`], a Gaussian whose radius wanders with a noise field between
//!    `sigma_min_m` and `sigma_max_m` — some edges stay knife-sharp, others weather soft.
//!
//! The region statistics are gathered sequentially in row-major order and every per-cell stage
//! runs in parallel over rows as a pure function: identical for any thread count.

use super::blur::{gaussian_blur, BlurParams};
use bozkir_core::hash::hash_unit;
use bozkir_core::noise::{cellular, fbm, fbm01, CellularParams, FbmParams};
use bozkir_core::Grid;
use rayon::prelude::*;
use std::collections::HashMap;

/// Parameters of [`perlin_gaussian`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PerlinGaussianParams {
    /// Smallest standard deviation in metres (where the noise is lowest). Default 0.5.
    pub sigma_min_m: f64,
    /// Largest standard deviation in metres (where the noise is highest). Default 3.0.
    pub sigma_max_m: f64,
    /// Noise choosing the radius, sampled in metres and mapped to `[0, 1]` by `fbm01`.
    /// Default: 3 octaves at 1/64 cycles per metre, seed 17.
    pub noise: FbmParams,
    /// Number of blur levels between the two radii (≥ 2); per cell the two levels around its
    /// radius are interpolated linearly. Default 5.
    pub levels: usize,
}

impl Default for PerlinGaussianParams {
    fn default() -> Self {
        Self {
            sigma_min_m: 0.5,
            sigma_max_m: 3.0,
            noise: FbmParams { octaves: 3, frequency: 1.0 / 64.0, seed: 17, ..FbmParams::default() },
            levels: 5,
        }
    }
}

/// A Gaussian blur whose radius varies across the surface with a noise field ("PerlinGaussian",
/// seed 001 §4.6). Implemented as a blend between `levels` uniform separable blurs
/// ([`gaussian_blur`]) at evenly spaced sigmas; a sigma of 0 is the unblurred input.
pub fn perlin_gaussian(grid: &Grid<f64>, p: &PerlinGaussianParams) -> Grid<f64> {
    let w = grid.width();
    if w == 0 || grid.height() == 0 {
        return grid.clone();
    }
    let levels = p.levels.max(2);
    let (s0, s1) = (p.sigma_min_m.max(0.0), p.sigma_max_m.max(p.sigma_min_m.max(0.0)));
    let blurs: Vec<Grid<f64>> = (0..levels)
        .map(|k| {
            let s = s0 + (s1 - s0) * k as f64 / (levels - 1) as f64;
            gaussian_blur(grid, &BlurParams { sigma: s })
        })
        .collect();
    let (dx, dy) = (grid.dx, grid.dy);
    let mut out = grid.same_shape(0.0);
    out.data_mut().par_chunks_mut(w).enumerate().for_each(|(y, row)| {
        for (x, o) in row.iter_mut().enumerate() {
            let u = fbm01(&p.noise, x as f64 * dx, y as f64 * dy).clamp(0.0, 1.0) * (levels - 1) as f64;
            let k = (u.floor() as usize).min(levels - 2);
            let t = u - k as f64;
            let i = y * w + x;
            let (a, b) = (blurs[k].data()[i], blurs[k + 1].data()[i]);
            *o = a + (b - a) * t;
        }
    });
    out
}

/// Parameters of [`reverse_sculpt`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReverseParams {
    /// Voronoi region size in metres (one feature point per `region_m × region_m`). Default 48.
    pub region_m: f64,
    /// Feature-point jitter, 0 (square regions) to 1. Default 1.0.
    pub jitter: f64,
    /// Fraction of regions that drop, `[0, 1]`. Default 0.4.
    pub drop_fraction: f64,
    /// Mean drop amount `f` as a fraction of the region's relief above its lowest touched
    /// height (1: the whole region flattens to that height). Default 0.8.
    pub depth: f64,
    /// Relative noise on the drop amount, `f = depth·(1 + depth_variation·fbm)`. Default 0.25.
    pub depth_variation: f64,
    /// Fraction of each region's removed volume put back as rubble, `[0, 1]`. Default 0.2.
    pub debris: f64,
    /// Roughness of the rubble layer (relative weight noise). Default 0.8.
    pub debris_roughness: f64,
    /// Noise for the drop amounts (at feature points) and the rubble weights, in metres.
    /// Default: 3 octaves at 1/24 cycles per metre.
    pub noise: FbmParams,
    /// Run the finish (noise + [`perlin_gaussian`]). Default true.
    pub finish: bool,
    /// Amplitude of the finishing noise in metres (sampled with `noise`, seed + 1). Default 0.3.
    pub noise_m: f64,
    /// The finishing noise-varied blur.
    pub blur: PerlinGaussianParams,
    /// Seed of the regions and of the drop choice. Default 0.
    pub seed: u32,
}

impl Default for ReverseParams {
    fn default() -> Self {
        Self {
            region_m: 48.0,
            jitter: 1.0,
            drop_fraction: 0.4,
            depth: 0.8,
            depth_variation: 0.25,
            debris: 0.2,
            debris_roughness: 0.8,
            noise: FbmParams { octaves: 3, frequency: 1.0 / 24.0, ..FbmParams::default() },
            finish: true,
            noise_m: 0.3,
            blur: PerlinGaussianParams { sigma_min_m: 0.0, sigma_max_m: 2.0, ..PerlinGaussianParams::default() },
            seed: 0,
        }
    }
}

/// What [`reverse_sculpt`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct ReverseReport {
    /// Region index of every cell (row-major, regions numbered in order of first appearance).
    pub region: Grid<u32>,
    /// Whether each region dropped.
    pub dropped: Vec<bool>,
    /// Floor height of each region (`NaN` for regions that did not drop).
    pub floor: Vec<f64>,
    /// Volume cut away, m³.
    pub removed_m3: f64,
    /// Volume put back as debris, m³.
    pub restored_m3: f64,
}

/// Reverse-sculpted `grid` (see the module docs) and a report of the drops.
pub fn reverse_sculpt(grid: &Grid<f64>, p: &ReverseParams) -> (Grid<f64>, ReverseReport) {
    let (w, h) = (grid.width(), grid.height());
    let (dx, dy) = (grid.dx, grid.dy);
    let cp = CellularParams { frequency: 1.0 / p.region_m.max(1e-9), jitter: p.jitter, seed: p.seed };
    // 1. Lattice cell of the nearest feature point per cell (parallel, pure).
    let mut key = vec![[0i64; 2]; w * h];
    let mut feat = vec![[0f64; 2]; w * h];
    key.par_chunks_mut(w.max(1)).zip(feat.par_chunks_mut(w.max(1))).enumerate().for_each(|(y, (kr, fr))| {
        for (x, (k, f)) in kr.iter_mut().zip(fr.iter_mut()).enumerate() {
            let s = cellular(&cp, x as f64 * dx, y as f64 * dy);
            *k = s.cell;
            *f = s.feature;
        }
    });
    // Number regions in row-major order of first appearance.
    let mut index: HashMap<[i64; 2], u32> = HashMap::new();
    let mut cells: Vec<[i64; 2]> = Vec::new();
    let mut feature: Vec<[f64; 2]> = Vec::new();
    let mut region = vec![0u32; w * h];
    for (i, k) in key.iter().enumerate() {
        let r = *index.entry(*k).or_insert_with(|| {
            cells.push(*k);
            feature.push(feat[i]);
            (cells.len() - 1) as u32
        });
        region[i] = r;
    }
    let nr = cells.len();
    // 2. Lowest touched and highest height per region (sequential, fixed order).
    let z = grid.data();
    let mut low = vec![f64::INFINITY; nr];
    let mut high = vec![f64::NEG_INFINITY; nr];
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            let r = region[i] as usize;
            high[r] = high[r].max(z[i]);
            for oy in y.saturating_sub(1)..=(y + 1).min(h - 1) {
                for ox in x.saturating_sub(1)..=(x + 1).min(w - 1) {
                    low[r] = low[r].min(z[oy * w + ox]);
                }
            }
        }
    }
    let dropped: Vec<bool> =
        cells.iter().map(|c| hash_unit(c[0] as u32, c[1] as u32, p.seed ^ 0x5EED_D12A) < p.drop_fraction).collect();
    let floor: Vec<f64> = (0..nr)
        .map(|r| {
            if !dropped[r] {
                return f64::NAN;
            }
            let [fx, fy] = feature[r];
            let f = (p.depth * (1.0 + p.depth_variation * fbm(&p.noise, fx, fy))).clamp(0.0, 1.0);
            low[r] + (1.0 - f) * (high[r] - low[r])
        })
        .collect();
    // Cut (parallel, pure per cell).
    let mut out = grid.clone();
    out.data_mut().par_iter_mut().zip(region.par_iter()).for_each(|(v, &r)| {
        let f = floor[r as usize];
        if f < *v {
            *v = f;
        }
    });
    // 3. Debris: removed volume and rubble weights per region (sequential sums, fixed order).
    let area = dx * dy;
    let debris = p.debris.clamp(0.0, 1.0);
    let mut removed = vec![0.0; nr];
    let mut wsum = vec![0.0; nr];
    let mut weight = vec![0.0; w * h];
    for i in 0..w * h {
        let cut = z[i] - out.data()[i];
        if cut > 0.0 {
            let r = region[i] as usize;
            removed[r] += cut * area;
            let (x, y) = ((i % w) as f64 * dx, (i / w) as f64 * dy);
            let wt = (1.0 + p.debris_roughness * fbm(&p.noise, x + 1013.0, y - 701.0)).max(0.0);
            weight[i] = wt;
            wsum[r] += wt;
        }
    }
    let scale: Vec<f64> =
        (0..nr).map(|r| if wsum[r] > 0.0 { debris * removed[r] / (wsum[r] * area) } else { 0.0 }).collect();
    out.data_mut().par_iter_mut().zip(weight.par_iter()).zip(region.par_iter()).for_each(|((v, &wt), &r)| {
        if wt > 0.0 {
            *v += wt * scale[r as usize];
        }
    });
    let removed_m3: f64 = removed.iter().sum();
    let restored_m3 = debris * removed_m3;
    // 4. Finish.
    if p.finish {
        let np = FbmParams { seed: p.noise.seed.wrapping_add(1), ..p.noise };
        let amp = p.noise_m;
        out.data_mut().par_chunks_mut(w.max(1)).enumerate().for_each(|(y, row)| {
            for (x, v) in row.iter_mut().enumerate() {
                *v += amp * fbm(&np, x as f64 * dx, y as f64 * dy);
            }
        });
        out = perlin_gaussian(&out, &p.blur);
    }
    let region = Grid::from_vec(w, h, region).with_cell_size(dx, dy);
    (out, ReverseReport { region, dropped, floor, removed_m3, restored_m3 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sculpt::test_support::{bytes, with_threads};

    fn slope_surface() -> Grid<f64> {
        let b = crate::sculpt::test_support::bumpy(96, 80);
        Grid::from_fn(96, 80, |x, y| 0.8 * x as f64 + 0.3 * y as f64 + 6.0 * b.get(x, y)).with_cell_size(1.0, 1.0)
    }

    #[test]
    fn dropped_regions_have_flat_floors_without_finish() {
        let z = slope_surface();
        let p = ReverseParams { debris: 0.0, finish: false, region_m: 20.0, ..Default::default() };
        let (out, rep) = reverse_sculpt(&z, &p);
        assert!(rep.dropped.iter().any(|&d| d) && rep.dropped.iter().any(|&d| !d));
        let mut cut_cells = 0;
        for i in 0..z.len() {
            let r = rep.region.data()[i] as usize;
            let (a, b) = (z.data()[i], out.data()[i]);
            if rep.dropped[r] {
                assert!(b <= a);
                if b < a {
                    cut_cells += 1;
                    assert_eq!(b, rep.floor[r], "cut cell not on the floor");
                }
            } else {
                assert_eq!(a, b, "undropped region changed");
            }
        }
        assert!(cut_cells > 100);
        // Full depth flattens whole regions.
        let p = ReverseParams { depth: 1.0, depth_variation: 0.0, ..p };
        let (out, rep) = reverse_sculpt(&z, &p);
        for i in 0..z.len() {
            let r = rep.region.data()[i] as usize;
            if rep.dropped[r] {
                assert_eq!(out.data()[i], rep.floor[r]);
            }
        }
    }

    #[test]
    fn volume_is_accounted_for() {
        let z = slope_surface().with_cell_size(2.0, 1.5);
        let p = ReverseParams { debris: 0.3, finish: false, region_m: 30.0, ..Default::default() };
        let (out, rep) = reverse_sculpt(&z, &p);
        let lost: f64 = z.data().iter().zip(out.data()).map(|(a, b)| (a - b) * 3.0).sum();
        assert!(rep.removed_m3 > 0.0);
        assert!((rep.restored_m3 - 0.3 * rep.removed_m3).abs() < 1e-9 * rep.removed_m3);
        assert!((lost - (rep.removed_m3 - rep.restored_m3)).abs() < 1e-7 * rep.removed_m3, "{lost} vs {rep:?}");
        // Debris is put back only inside dropped regions, and floors are no longer flat.
        for i in 0..z.len() {
            if !rep.dropped[rep.region.data()[i] as usize] {
                assert_eq!(z.data()[i], out.data()[i]);
            }
        }
    }

    #[test]
    fn perlin_gaussian_preserves_constants_and_lies_between_levels() {
        let c = Grid::new(30, 20, 4.25);
        let b = perlin_gaussian(&c, &PerlinGaussianParams::default());
        assert!(b.data().iter().all(|v| (v - 4.25).abs() < 1e-12));
        let z = slope_surface();
        let p = PerlinGaussianParams::default();
        let lo = gaussian_blur(&z, &BlurParams { sigma: p.sigma_min_m });
        let hi = gaussian_blur(&z, &BlurParams { sigma: p.sigma_max_m });
        let pg = perlin_gaussian(&z, &p);
        let (a, b2) = (crate::sculpt::test_support::bytes(&pg), bytes(&lo));
        assert_ne!(a, b2);
        assert_ne!(a, bytes(&hi));
    }

    #[test]
    fn same_bits_for_any_thread_count() {
        let z = slope_surface();
        let p = ReverseParams::default();
        let (a, _) = with_threads(1, || reverse_sculpt(&z, &p));
        let (b, _) = with_threads(2, || reverse_sculpt(&z, &p));
        assert_eq!(bytes(&a), bytes(&b));
    }
}

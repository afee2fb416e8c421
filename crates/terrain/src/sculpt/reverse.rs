//! Result-first "reverse" sculpting: Voronoi region drops, debris put-back and a noise-varied
//! blur (seed 001 §4.6).
//!
//! Source: C. Kempke, "Unity Terrain Generation: Implementing Erosion", as summarised in seed 001
//! §4.6. Instead of simulating shearing (drop a point, spread cracks, recurse ~10⁵ times) the end
//! state is built directly:
//!
//! 1. **Regions.** Every cell belongs to the Voronoi region of its nearest cellular feature point
//!    ([`cellular()`] sampled at `(x·dx, y·dy)` metres, `1/region_m` cells per metre). Regions are
//!    keyed by their lattice cell, so hash collisions of ids cannot merge two regions.
//! 2. **Drops.** A region drops when `hash_unit(i, j, seed) < drop_fraction`. Its floor is
//!    `low + (1 − f)·(high − low)`, where `low` is the lowest height the region *touches* (its own
//!    cells and their 8-neighbours), `high` its highest cell and `f = depth·(1 + depth_variation ·
//!    fbm(feature point))` clamped to `[0, 1]`: the noise-driven drop amount. Every cell above
//!    the floor is cut down to it (`h ← min(h, floor)`), so a drop is flat-bottomed: a sheared
//!    cliff at its upper edge, a bench across it.
//! 3. **Debris put-back, routed downslope.** A fraction `debris` of each region's removed volume
//!    comes back as rubble. Each cut cell sheds a parcel proportional to its cut depth times a
//!    rubble weight `max(0, 1 + debris_roughness · fbm(x, y))` (so the deepest cuts, against the
//!    sheared cliff, shed the most, and the rubble is uneven), scaled so that the region's parcels
//!    add up to exactly `debris · removed`. Parcels are routed by steepest descent over the
//!    *dropped* surface: the D8 receivers of [`crate::hydrology::flow_graph`]. A parcel stops at
//!    the first cell where
//!    * the slope to its receiver is below `toe_deg` (the foot or toe: a bench floor is flat, so
//!      rubble cut from a bench stays on it, while rubble on ground still steeper than `toe_deg`
//!      runs down to where the slope eases); a pit stops it too;
//!    * or, with `debris_in_region` (the default), its receiver lies in another Voronoi region:
//!      rubble piles up at its region's lower boundary and never leaves the region;
//!
//!    and it leaves the map when it reaches a border cell (an outlet of the router) whose
//!    steepest in-grid descent is still at least `toe_deg`. Routing is one pass over the flow
//!    graph in reverse stack order (donors before receivers), O(N). The stopped volume is then
//!    spread `debris_spread` times over each cell's 3×3 neighbourhood (weights 4 / 2 / 1,
//!    renormalised over in-grid cells, so no volume is lost) and added as thickness
//!    `volume/(dx·dy)`. Volume balance (before step 4), reported in [`ReverseReport`]:
//!    `debris_m3 = debris · removed_m3 = restored_m3 + lost_m3` and
//!    `Σ(h_in − h_out)·dx·dy = removed_m3 − restored_m3`.
//! 4. **Finish** (skipped with `finish = false`): `noise_m · fbm` is added and the result is
//!    blurred by [`perlin_gaussian`], a Gaussian whose radius wanders with a noise field between
//!    `sigma_min_m` and `sigma_max_m` — some edges stay knife-sharp, others weather soft.
//!
//! The region statistics and the debris routing are computed sequentially in a fixed order
//! (row-major; the flow graph's stack) and every per-cell stage runs in parallel over rows as a
//! pure function: identical for any thread count.

use super::blur::{gaussian_blur, BlurParams};
use crate::hydrology::flow_graph::d8_receivers;
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
    /// Slope angle (degrees) below which routed rubble comes to rest (the toe). Default 30.
    pub toe_deg: f64,
    /// Keep rubble inside its region: it stops at the region's lower boundary. Default true.
    pub debris_in_region: bool,
    /// Passes of volume-conserving 3×3 spreading of the rubble where it stopped. Default 1.
    pub debris_spread: u32,
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
            toe_deg: 30.0,
            debris_in_region: true,
            debris_spread: 1,
            noise: FbmParams { octaves: 3, frequency: 1.0 / 24.0, ..FbmParams::default() },
            finish: true,
            noise_m: 0.3,
            blur: PerlinGaussianParams { sigma_min_m: 0.0, sigma_max_m: 2.0, ..PerlinGaussianParams::default() },
            seed: 0,
        }
    }
}

impl ReverseParams {
    /// Checks the ranges every caller shares (the recipe's `reverse` stage checks through
    /// this); `Err` names the first bad parameter, its value and its range, in the order
    /// `region_m` (`1e-3..=1e7` m), `jitter`, `drop_fraction`, `depth`, `depth_variation`,
    /// `debris` (each `0..=1`), `debris_roughness` (`0..=1e3`), `toe_deg` (`0..=89.9`: a toe at
    /// 90° would never stop the rubble), `debris_spread` (`0..=16` passes) and `noise_m`
    /// (`0..=1e5` m). Non-finite values are refused.
    ///
    /// # Examples
    ///
    /// ```
    /// use bozkir_terrain::sculpt::reverse::ReverseParams;
    ///
    /// assert!(ReverseParams::default().validate().is_ok());
    /// let e = ReverseParams { toe_deg: 95.0, ..ReverseParams::default() }.validate().unwrap_err();
    /// assert_eq!(e.param, "toe_deg");
    /// assert_eq!(e.to_string(), "toe_deg must be in 0..=89.9, got 95");
    /// ```
    pub fn validate(&self) -> Result<(), crate::ParamError> {
        let range = |name: &'static str, v: f64, lo: f64, hi: f64| {
            if !v.is_finite() || v < lo || v > hi {
                return Err(crate::ParamError::new(name, format!("{name} must be in {lo}..={hi}, got {v}")));
            }
            Ok(())
        };
        range("region_m", self.region_m, 1e-3, 1e7)?;
        range("jitter", self.jitter, 0.0, 1.0)?;
        range("drop_fraction", self.drop_fraction, 0.0, 1.0)?;
        range("depth", self.depth, 0.0, 1.0)?;
        range("depth_variation", self.depth_variation, 0.0, 1.0)?;
        range("debris", self.debris, 0.0, 1.0)?;
        range("debris_roughness", self.debris_roughness, 0.0, 1e3)?;
        range("toe_deg", self.toe_deg, 0.0, 89.9)?;
        if self.debris_spread > 16 {
            let v = self.debris_spread;
            return Err(crate::ParamError::new("debris_spread", format!("debris_spread must be 0..=16, got {v}")));
        }
        range("noise_m", self.noise_m, 0.0, 1e5)
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
    /// Volume released as rubble, `debris · removed_m3`, m³.
    pub debris_m3: f64,
    /// Rubble that came to rest on the map, m³.
    pub restored_m3: f64,
    /// Rubble that ran off the map's edge, m³ (`debris_m3 − restored_m3`, up to rounding).
    pub lost_m3: f64,
    /// Rubble thickness added per cell (m), after spreading; zero where none came to rest.
    pub deposit: Grid<f64>,
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
    // 3. Debris: removed volume and rubble parcels per region (sequential sums, fixed order).
    let area = dx * dy;
    let debris = p.debris.clamp(0.0, 1.0);
    let mut removed = vec![0.0; nr];
    let mut wsum = vec![0.0; nr];
    let mut csum = vec![0.0; nr];
    let mut weight = vec![0.0; w * h];
    for i in 0..w * h {
        let cut = z[i] - out.data()[i];
        if cut > 0.0 {
            let r = region[i] as usize;
            removed[r] += cut * area;
            let (x, y) = ((i % w) as f64 * dx, (i / w) as f64 * dy);
            let wt = (1.0 + p.debris_roughness * fbm(&p.noise, x + 1013.0, y - 701.0)).max(0.0);
            weight[i] = wt * cut;
            wsum[r] += wt * cut;
            csum[r] += cut;
        }
    }
    let removed_m3: f64 = removed.iter().sum();
    let debris_m3: f64 = removed.iter().map(|v| debris * v).sum();
    let mut deposit = grid.same_shape(0.0);
    let (mut restored_m3, mut lost_m3) = (0.0, 0.0);
    if debris > 0.0 && removed_m3 > 0.0 {
        // Parcel volumes (m³): the region's share, by rubble weight (by cut alone if every
        // weight is 0).
        let parcel: Vec<f64> = (0..w * h)
            .map(|i| {
                let cut = z[i] - out.data()[i];
                if cut <= 0.0 {
                    return 0.0;
                }
                let r = region[i] as usize;
                let v = debris * removed[r];
                if wsum[r] > 0.0 {
                    v * weight[i] / wsum[r]
                } else {
                    v * cut / csum[r]
                }
            })
            .collect();
        let routed = route_debris(&out, &region, parcel, p);
        restored_m3 = routed.0.iter().sum();
        lost_m3 = routed.1;
        let same = if p.debris_in_region { Some(region.as_slice()) } else { None };
        let spread = spread_volume(routed.0, w, h, p.debris_spread, same);
        deposit.data_mut().par_iter_mut().zip(spread.par_iter()).for_each(|(d, &v)| *d = v / area);
        out.data_mut().par_iter_mut().zip(deposit.data().par_iter()).for_each(|(v, &d)| {
            if d != 0.0 {
                *v += d;
            }
        });
    }
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
    (out, ReverseReport { region, dropped, floor, removed_m3, debris_m3, restored_m3, lost_m3, deposit })
}

/// Route debris `parcel`s (m³ per cell) down the D8 receivers of the dropped surface `z` (module
/// docs, step 3). Returns the volume at rest per cell and the volume that left the map.
fn route_debris(z: &Grid<f64>, region: &[u32], mut carry: Vec<f64>, p: &ReverseParams) -> (Vec<f64>, f64) {
    let (w, h) = (z.width(), z.height());
    let g = d8_receivers(z);
    let zd = z.data();
    let toe = libm::tan(p.toe_deg.clamp(0.0, 90.0).to_radians());
    let (ddx, ddy) = (z.dx, z.dy);
    let ddiag = libm::hypot(ddx, ddy);
    // Steepest in-grid descent of a border cell (the router makes it an outlet).
    let border_slope = |i: usize| {
        let (x, y) = ((i % w) as isize, (i / w) as isize);
        let mut best: f64 = 0.0;
        for oy in -1..=1isize {
            for ox in -1..=1isize {
                let (xx, yy) = (x + ox, y + oy);
                if (ox, oy) == (0, 0) || xx < 0 || yy < 0 || xx >= w as isize || yy >= h as isize {
                    continue;
                }
                let j = yy as usize * w + xx as usize;
                let d = if ox != 0 && oy != 0 {
                    ddiag
                } else if ox != 0 {
                    ddx
                } else {
                    ddy
                };
                if zd[j] < zd[i] {
                    best = best.max((zd[i] - zd[j]) / d);
                }
            }
        }
        best
    };
    let mut rest = vec![0.0; w * h];
    let mut lost = 0.0;
    for &c in g.stack.iter().rev() {
        let c = c as usize;
        let v = carry[c];
        if v == 0.0 {
            continue;
        }
        let r = g.receivers[c] as usize;
        if r == c {
            let (x, y) = (c % w, c / w);
            let border = x == 0 || y == 0 || x + 1 == w || y + 1 == h;
            if border && border_slope(c) >= toe {
                lost += v;
            } else {
                rest[c] += v;
            }
            continue;
        }
        let slope = (zd[c] - zd[r]) / g.dist[c];
        if slope < toe || (p.debris_in_region && region[r] != region[c]) {
            rest[c] += v;
        } else {
            carry[r] += v;
        }
    }
    (rest, lost)
}

/// `passes` rounds of volume-conserving 3×3 spreading (weights 4 centre, 2 edge, 1 corner,
/// renormalised over each source cell's in-grid neighbours — those of its own region when
/// `region` is given). Pure per cell (gather form).
fn spread_volume(mut v: Vec<f64>, w: usize, h: usize, passes: u32, region: Option<&[u32]>) -> Vec<f64> {
    if w == 0 || h == 0 || passes == 0 {
        return v;
    }
    let linked = |i: usize, j: usize| region.is_none_or(|r| r[i] == r[j]);
    let kern = |ox: isize, oy: isize| ((2 - ox.abs()) * (2 - oy.abs())) as f64;
    let norm: Vec<f64> = (0..w * h)
        .map(|i| {
            let (x, y) = ((i % w) as isize, (i / w) as isize);
            let mut k = 0.0;
            for oy in -1..=1 {
                for ox in -1..=1 {
                    let (xx, yy) = (x + ox, y + oy);
                    if xx >= 0
                        && yy >= 0
                        && xx < w as isize
                        && yy < h as isize
                        && linked(i, yy as usize * w + xx as usize)
                    {
                        k += kern(ox, oy);
                    }
                }
            }
            k
        })
        .collect();
    for _ in 0..passes {
        let mut next = vec![0.0; w * h];
        next.par_chunks_mut(w).enumerate().for_each(|(y, row)| {
            for (x, o) in row.iter_mut().enumerate() {
                let mut acc = 0.0;
                for oy in -1..=1isize {
                    for ox in -1..=1isize {
                        let (xx, yy) = (x as isize + ox, y as isize + oy);
                        if xx < 0 || yy < 0 || xx >= w as isize || yy >= h as isize {
                            continue;
                        }
                        let j = yy as usize * w + xx as usize;
                        if v[j] != 0.0 && linked(y * w + x, j) {
                            acc += v[j] * kern(ox, oy) / norm[j];
                        }
                    }
                }
                *o = acc;
            }
        });
        v = next;
    }
    v
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
        assert!(rep.removed_m3 > 0.0 && rep.restored_m3 > 0.0);
        assert!((rep.debris_m3 - 0.3 * rep.removed_m3).abs() < 1e-9 * rep.removed_m3);
        assert!((rep.restored_m3 + rep.lost_m3 - rep.debris_m3).abs() < 1e-9 * rep.removed_m3, "{rep:?}");
        assert!((lost - (rep.removed_m3 - rep.restored_m3)).abs() < 1e-7 * rep.removed_m3, "{lost} vs {rep:?}");
        let put: f64 = rep.deposit.data().iter().map(|d| d * 3.0).sum();
        assert!((put - rep.restored_m3).abs() < 1e-9 * rep.removed_m3);
        // Rubble stays inside dropped regions (it is kept in its region, spreading included).
        for i in 0..z.len() {
            if !rep.dropped[rep.region.data()[i] as usize] {
                assert_eq!(z.data()[i], out.data()[i]);
                assert_eq!(rep.deposit.data()[i], 0.0);
            }
        }
    }

    /// A 45° face falling south onto a flat apron (rows 50 and below), 1 m cells.
    fn face_and_apron(w: usize, h: usize) -> Grid<f64> {
        let b = crate::sculpt::test_support::bumpy(w, h);
        Grid::from_fn(w, h, |x, y| (50.0 - y as f64).max(0.0) + 0.05 * b.get(x, y)).with_cell_size(1.0, 1.0)
    }

    /// The dropped surface (cut, no rubble) for the same regions and floors.
    fn cut_only(z: &Grid<f64>, p: &ReverseParams) -> Grid<f64> {
        reverse_sculpt(z, &ReverseParams { debris: 0.0, ..*p }).0
    }

    /// Checks the rest rule of every cell holding rubble (no spreading): on the dropped surface
    /// it is a pit, a gentle cell (slope to its receiver below the toe angle) or, when rubble is
    /// kept in its region, the last cell before the region's boundary. Returns the volume held
    /// on cells gentler than the toe angle.
    fn check_rest_rule(z: &Grid<f64>, p: &ReverseParams, out: &Grid<f64>, rep: &ReverseReport) {
        let cut = cut_only(z, p);
        let g = d8_receivers(&cut);
        let toe = p.toe_deg.to_radians().tan();
        for i in 0..z.len() {
            let d = rep.deposit.data()[i];
            assert!(d >= 0.0);
            assert!((out.data()[i] - cut.data()[i] - d).abs() < 1e-9);
            let r = g.receivers[i] as usize;
            if d > 0.0 && r != i {
                let s = (cut.data()[i] - cut.data()[r]) / g.dist[i];
                let edge = p.debris_in_region && rep.region.data()[r] != rep.region.data()[i];
                assert!(s < toe || edge, "rubble resting on a slope of {s} at cell {i}");
            }
        }
    }

    #[test]
    fn rubble_runs_downslope_and_comes_to_rest_at_the_toe() {
        // Regions as large as the map, all dropped halfway: a bench cut into the upper face, the
        // lower face left at 45°, the apron below.
        let z = face_and_apron(96, 80);
        let p = ReverseParams {
            debris: 0.5,
            depth: 0.5,
            depth_variation: 0.0,
            drop_fraction: 1.0,
            region_m: 400.0,
            finish: false,
            debris_in_region: false,
            debris_spread: 0,
            toe_deg: 30.0,
            ..Default::default()
        };
        let (out, rep) = reverse_sculpt(&z, &p);
        assert!(rep.removed_m3 > 1000.0, "{}", rep.removed_m3);
        assert!((rep.restored_m3 + rep.lost_m3 - rep.debris_m3).abs() < 1e-9 * rep.debris_m3);
        let total: f64 = z.data().iter().zip(out.data()).map(|(a, b)| a - b).sum();
        assert!((total - (rep.removed_m3 - rep.restored_m3)).abs() < 1e-8 * rep.removed_m3);
        check_rest_rule(&z, &p, &out, &rep);
        // The rule is not vacuous: some cut cells (the bench's lip) shed rubble on ground steeper
        // than the toe angle, and none of it stays there.
        let cut = cut_only(&z, &p);
        let g = d8_receivers(&cut);
        let toe = p.toe_deg.to_radians().tan();
        let steep_sources: Vec<usize> = (0..z.len())
            .filter(|&i| {
                let r = g.receivers[i] as usize;
                z.data()[i] > cut.data()[i] && r != i && (cut.data()[i] - cut.data()[r]) / g.dist[i] >= toe
            })
            .collect();
        assert!(steep_sources.len() > 20, "{} steep sources", steep_sources.len());
        assert!(steep_sources.iter().all(|&i| rep.deposit.data()[i] == 0.0));
        // Most rubble rests on the bench (flat: the scarp's foot), the deepest cut the most; what
        // the lip shed ran down the lower face and came to rest at its foot, the first apron rows.
        let row_sum = |y: usize| (y * 96..(y + 1) * 96).map(|i| rep.deposit.data()[i]).sum::<f64>();
        let foot: f64 = (49..=51).map(row_sum).sum();
        let face: f64 = (30..47).map(row_sum).sum();
        let beyond: f64 = (53..80).map(row_sum).sum();
        assert!(foot > 0.0, "nothing reached the foot");
        assert_eq!((face, beyond), (0.0, 0.0));
        assert!(row_sum(2) > row_sum(20), "more rubble against the scarp than near the lip");
        // Only lip rubble at the steep east and west map edges runs off.
        assert!(rep.lost_m3 < 1e-4 * rep.debris_m3, "{}", rep.lost_m3);
    }

    #[test]
    fn rubble_kept_in_its_region_stops_at_the_region_boundary() {
        let z = face_and_apron(96, 80);
        let p = ReverseParams {
            debris: 0.5,
            depth: 0.5,
            depth_variation: 0.0,
            region_m: 16.0,
            finish: false,
            debris_spread: 0,
            ..Default::default()
        };
        assert!(p.debris_in_region, "the default");
        let (out, rep) = reverse_sculpt(&z, &p);
        check_rest_rule(&z, &p, &out, &rep);
        let mut at_edge = 0;
        for i in 0..z.len() {
            if rep.deposit.data()[i] > 0.0 {
                assert!(rep.dropped[rep.region.data()[i] as usize]);
                let (x, y) = (i % 96, i / 96);
                if y + 1 < 80 && rep.region.data()[i] != *rep.region.get(x, y + 1) {
                    at_edge += 1;
                }
            }
        }
        assert!(at_edge > 0, "some rubble piles at regions' lower boundaries");
        assert!((rep.restored_m3 + rep.lost_m3 - rep.debris_m3).abs() < 1e-9 * rep.debris_m3);
    }

    #[test]
    fn rubble_running_off_the_map_is_reported_lost() {
        // The face runs into the southern edge: no toe on the map.
        let b = crate::sculpt::test_support::bumpy(64, 64);
        let z = Grid::from_fn(64, 64, |x, y| 80.0 - 1.2 * y as f64 + 0.05 * b.get(x, y));
        let p = ReverseParams {
            debris: 1.0,
            depth: 0.5,
            depth_variation: 0.0,
            region_m: 12.0,
            finish: false,
            debris_in_region: false,
            toe_deg: 30.0,
            ..Default::default()
        };
        let (out, rep) = reverse_sculpt(&z, &p);
        assert!(rep.lost_m3 > 0.0, "{rep:?}");
        assert!(rep.restored_m3 > 0.0);
        assert!((rep.restored_m3 + rep.lost_m3 - rep.removed_m3).abs() < 1e-9 * rep.removed_m3);
        // All that the map lost is what ran off it.
        let total: f64 = z.data().iter().zip(out.data()).map(|(a, b)| a - b).sum();
        assert!((total - rep.lost_m3).abs() < 1e-8 * rep.removed_m3, "{total} vs {}", rep.lost_m3);
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

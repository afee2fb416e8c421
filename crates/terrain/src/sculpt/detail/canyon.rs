//! Two kinds of canyon as authored stamps over stream-power output (seed 001 §6.6).
//!
//! Kempke's field taxonomy \[12\]:
//!
//! * **Separator canyons** run at roughly constant depth between features — the cuts that split
//!   a massif into ridges — and their depth loosely tracks their length. [`separator_canyon`]
//!   cuts along an authored polyline: `cut = depth·(1 − smoothstep(floor_half, half_width, d))`
//!   with `d` the distance to the polyline plus `wobble_m·fbm` (so the walls wander), and
//!   `depth = depth_m + depth_per_m·length`. The floor between `±floor_half` is cut evenly.
//! * **Drainage canyons** live on slopes: born shallow, deepening and widening downhill, then
//!   fading out at the bottom. [`drainage_canyon`] follows the D8 flow of the surface
//!   ([`d8_receivers`], [`accumulate_cells`]): every cell draining at least `area_min_m2` is a
//!   channel with size `s = min(1, (A/area_ref_m2)^exponent)`, depth `depth_m·s·fade` and
//!   half-width `max(half a cell, width_m·s/2)`, where `fade = smoothstep(z_min, z_min + fade_m,
//!   z)` dies out towards the lowest ground. Each cell is cut by the deepest parabolic
//!   cross-section `depth·(1 − (r/half)²)` of the channels within reach: a dendritic cut.
//!
//! **Hardness (strata).** §6.6: "material hardness beats slope" — soft rock is carved deepest,
//! hard rock stands in narrow, steep walls. With `hardness = k > 0` the drainage canyon reads a
//! strata map banded in height, the convention of the pipe model's `banded_hardness`
//! ([`crate::erosion::shallow_water`]): heights in bands of `band_m` metres, the lowest
//! `hard_fraction` of each band hard rock ([`strata_hard`]). A cell of hard rock (judged at its
//! own height before the cut) has `h = k`, soft rock `h = 0`, and is cut by the channels'
//! cross-sections with depth `× (1 − h/2)` and half-width `× (1 − 3h/4)`:
//! `depth·(1 − h/2)·(1 − (r/(half·(1 − 3h/4)))²)`. So in hard bands the cut is at most
//! `(1 − h/2)` of the unhardened cut at every cell, the canyon is narrower (by `1 − 3h/4`), and
//! its walls at the rim are steeper by `(1 − h/2)/(1 − 3h/4)` (twice as steep at `k = 1`); soft
//! bands are cut exactly as without hardness, so the walls step into ledges at the band edges.
//! `hardness = 0` (the default) is the plain stamp bit for bit.
//!
//! Both return the carved surface; heights only go down. Per-cell work is pure (parallel over
//! rows); flow routing is the deterministic router of [`crate::hydrology::flow_graph`].

use super::map_cells;
use crate::hydrology::flow_graph::{accumulate_cells, d8_receivers};
use crate::sculpt::mask::smoothstep;
use bozkir_core::noise::{fbm, FbmParams};
use bozkir_core::Grid;

/// Parameters of [`separator_canyon`].
#[derive(Debug, Clone, PartialEq)]
pub struct SeparatorCanyonParams {
    /// Polyline in metres, `[x·dx, y·dy]` (east, south) grid coordinates; at least one point.
    pub path: Vec<[f64; 2]>,
    /// Full width at the rim, metres. Default 40.
    pub width_m: f64,
    /// Width of the flat floor, metres. Default 8.
    pub floor_width_m: f64,
    /// Base depth, metres. Default 25.
    pub depth_m: f64,
    /// Extra depth per metre of path length (depth tracking length). Default 0.0.
    pub depth_per_m: f64,
    /// Wall wander, metres added to the distance. Default 4.
    pub wobble_m: f64,
    /// Wander noise, sampled in metres. Default: 3 octaves at 1/50 cycles per metre, seed 83.
    pub noise: FbmParams,
}

impl Default for SeparatorCanyonParams {
    fn default() -> Self {
        Self {
            path: Vec::new(),
            width_m: 40.0,
            floor_width_m: 8.0,
            depth_m: 25.0,
            depth_per_m: 0.0,
            wobble_m: 4.0,
            noise: FbmParams { octaves: 3, frequency: 1.0 / 50.0, seed: 83, ..FbmParams::default() },
        }
    }
}

/// Distance from `q` to segment `a–b`.
fn seg_dist(q: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let (vx, vy) = (b[0] - a[0], b[1] - a[1]);
    let l2 = vx * vx + vy * vy;
    let t = if l2 > 0.0 { (((q[0] - a[0]) * vx + (q[1] - a[1]) * vy) / l2).clamp(0.0, 1.0) } else { 0.0 };
    libm::hypot(q[0] - a[0] - t * vx, q[1] - a[1] - t * vy)
}

/// `z` cut by a separator canyon along `p.path` (see the module docs). An empty path is a no-op.
pub fn separator_canyon(z: &Grid<f64>, p: &SeparatorCanyonParams) -> Grid<f64> {
    if p.path.is_empty() {
        return z.clone();
    }
    let len: f64 = p.path.windows(2).map(|s| libm::hypot(s[1][0] - s[0][0], s[1][1] - s[0][1])).sum();
    let depth = p.depth_m + p.depth_per_m * len;
    let half = 0.5 * p.width_m.max(0.0);
    let floor_half = (0.5 * p.floor_width_m).clamp(0.0, half);
    let (dx, dy) = (z.dx, z.dy);
    map_cells(z, |x, y, v| {
        let q = [x as f64 * dx, y as f64 * dy];
        let mut d = if p.path.len() == 1 {
            libm::hypot(q[0] - p.path[0][0], q[1] - p.path[0][1])
        } else {
            p.path.windows(2).map(|s| seg_dist(q, s[0], s[1])).fold(f64::INFINITY, f64::min)
        };
        if p.wobble_m != 0.0 {
            d = (d + p.wobble_m * fbm(&p.noise, q[0], q[1])).max(0.0);
        }
        if d >= half {
            return v;
        }
        v - depth * (1.0 - smoothstep(floor_half, half, d))
    })
}

/// Parameters of [`drainage_canyon`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DrainageCanyonParams {
    /// Drainage area (m²) where a channel is born. Default 2000.
    pub area_min_m2: f64,
    /// Drainage area (m²) of a full-size canyon. Default 50 000.
    pub area_ref_m2: f64,
    /// Growth exponent of size with area. Default 0.5.
    pub exponent: f64,
    /// Full depth, metres. Default 12.
    pub depth_m: f64,
    /// Full width, metres. Default 16.
    pub width_m: f64,
    /// Height band above the lowest ground over which canyons fade out, metres. Default 10.
    pub fade_m: f64,
    /// Strength of the strata modulation, `[0, 1]`; 0 turns it off (see the module docs).
    /// Default 0.
    pub hardness: f64,
    /// Thickness of one stratum band, metres of height. Default 10.
    pub band_m: f64,
    /// Fraction of each band (its lowest part) that is hard rock, `[0, 1]`. Default 0.5.
    pub hard_fraction: f64,
}

impl Default for DrainageCanyonParams {
    fn default() -> Self {
        Self {
            area_min_m2: 2000.0,
            area_ref_m2: 50_000.0,
            exponent: 0.5,
            depth_m: 12.0,
            width_m: 16.0,
            fade_m: 10.0,
            hardness: 0.0,
            band_m: 10.0,
            hard_fraction: 0.5,
        }
    }
}

/// Whether height `z` (metres) lies in hard rock: bands of `band_m` metres whose lowest
/// `hard_fraction` is hard, as the pipe model's `banded_hardness`. `band_m ≤ 0`: never.
pub fn strata_hard(z: f64, band_m: f64, hard_fraction: f64) -> bool {
    if band_m.is_nan() || band_m <= 0.0 {
        return false;
    }
    let t = z / band_m;
    t - t.floor() < hard_fraction
}

/// `z` cut by dendritic drainage canyons following its D8 flow (see the module docs).
pub fn drainage_canyon(z: &Grid<f64>, p: &DrainageCanyonParams) -> Grid<f64> {
    let (w, h) = (z.width(), z.height());
    if w == 0 || h == 0 {
        return z.clone();
    }
    let (dx, dy) = (z.dx, z.dy);
    let g = d8_receivers(z);
    let cells = accumulate_cells(&g);
    let zmin = z.min_max().map_or(0.0, |m| m.0);
    let min_half = 0.5 * dx.min(dy);
    // Per channel cell: (depth, half-width); depth 0 elsewhere.
    let chan: Vec<(f64, f64)> = cells
        .iter()
        .zip(z.data())
        .map(|(&c, &v)| {
            let a = c as f64 * dx * dy;
            if a < p.area_min_m2 {
                return (0.0, 0.0);
            }
            let s = libm::pow(a / p.area_ref_m2.max(1e-12), p.exponent).min(1.0);
            let fade = if p.fade_m > 0.0 { smoothstep(zmin, zmin + p.fade_m, v) } else { 1.0 };
            (p.depth_m * s * fade, (0.5 * p.width_m * s).max(min_half))
        })
        .collect();
    let reach = (0.5 * p.width_m).max(min_half);
    let (rx, ry) = ((reach / dx).ceil() as isize, (reach / dy).ceil() as isize);
    let k = if p.hardness.is_finite() { p.hardness.clamp(0.0, 1.0) } else { 0.0 };
    map_cells(z, |x, y, v| {
        // Depth and width factors of this cell's rock (exactly 1 in soft rock or without hardness).
        let (kd, kw) = if k > 0.0 && strata_hard(v, p.band_m, p.hard_fraction) {
            (1.0 - 0.5 * k, 1.0 - 0.75 * k)
        } else {
            (1.0, 1.0)
        };
        let mut cut: f64 = 0.0;
        for oy in -ry..=ry {
            let yy = y as isize + oy;
            if yy < 0 || yy >= h as isize {
                continue;
            }
            for ox in -rx..=rx {
                let xx = x as isize + ox;
                if xx < 0 || xx >= w as isize {
                    continue;
                }
                let (d, half) = chan[yy as usize * w + xx as usize];
                if d <= 0.0 {
                    continue;
                }
                let (d, half) = (d * kd, half * kw);
                let r = libm::hypot(ox as f64 * dx, oy as f64 * dy);
                if r < half {
                    cut = cut.max(d * (1.0 - (r / half) * (r / half)));
                }
            }
        }
        v - cut
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sculpt::test_support::{bumpy, bytes, with_threads};

    #[test]
    fn separator_cuts_a_flat_floored_trench_of_constant_depth() {
        let z = Grid::new(80, 40, 100.0);
        let p = SeparatorCanyonParams { path: vec![[5.0, 20.0], [75.0, 20.0]], wobble_m: 0.0, ..Default::default() };
        let out = separator_canyon(&z, &p);
        for x in 5..=75 {
            assert_eq!(*out.get(x, 20), 100.0 - p.depth_m);
            assert_eq!(*out.get(x, 18), 100.0 - p.depth_m);
        }
        assert_eq!(*out.get(40, 0), 100.0);
        assert!(out.data().iter().all(|&v| v <= 100.0 && v >= 100.0 - p.depth_m));
        let longer = SeparatorCanyonParams { depth_per_m: 0.1, ..p };
        assert_eq!(*separator_canyon(&z, &longer).get(40, 20), 100.0 - 25.0 - 7.0);
    }

    #[test]
    fn drainage_canyon_deepens_downstream_and_fades_at_the_bottom() {
        // A V-shaped valley draining south: flow converges on the centre column.
        let z = Grid::from_fn(60, 80, |x, y| 200.0 - 2.0 * y as f64 + 3.0 * (x as f64 - 30.0).abs())
            .with_cell_size(5.0, 5.0);
        let p = DrainageCanyonParams::default();
        let out = drainage_canyon(&z, &p);
        let cut: Vec<f64> = z.data().iter().zip(out.data()).map(|(a, b)| a - b).collect();
        assert!(cut.iter().all(|&c| (0.0..=p.depth_m).contains(&c)));
        let row_max = |y: usize| (0..60).map(|x| cut[y * 60 + x]).fold(0.0, f64::max);
        assert_eq!(row_max(2), 0.0, "no canyon at the top");
        assert!(row_max(60) > row_max(20), "deepens downhill");
        assert!(row_max(79) < 0.25 * row_max(60), "fades at the bottom");
    }

    /// A valley draining south with a gentle cross-slope and a wide canyon, so that rows near
    /// the channel lie within one stratum band.
    fn wide_valley() -> (Grid<f64>, DrainageCanyonParams) {
        let z = Grid::from_fn(61, 90, |x, y| 400.0 - 2.0 * y as f64 + 1.5 * (x as f64 - 30.0).abs())
            .with_cell_size(5.0, 5.0);
        (z, DrainageCanyonParams { width_m: 40.0, depth_m: 12.0, fade_m: 0.0, ..Default::default() })
    }

    #[test]
    fn zero_hardness_is_the_plain_stamp_bit_for_bit() {
        let (z, p) = wide_valley();
        let plain = drainage_canyon(&z, &p);
        for (band_m, hard_fraction) in [(10.0, 0.5), (3.0, 1.0), (0.0, 0.2)] {
            let q = DrainageCanyonParams { hardness: 0.0, band_m, hard_fraction, ..p };
            assert_eq!(bytes(&drainage_canyon(&z, &q)), bytes(&plain));
        }
        // And the defaults carry no hardness.
        assert_eq!(DrainageCanyonParams::default().hardness, 0.0);
        assert!(strata_hard(12.0, 10.0, 0.5) && !strata_hard(17.0, 10.0, 0.5) && strata_hard(-8.0, 10.0, 0.5));
    }

    #[test]
    fn hard_bands_cut_less_narrower_and_steeper_soft_bands_unchanged() {
        let (z, p) = wide_valley();
        let k = 0.8;
        let q = DrainageCanyonParams { hardness: k, band_m: 40.0, hard_fraction: 0.5, ..p };
        let plain = drainage_canyon(&z, &p);
        let hard = drainage_canyon(&z, &q);
        let cut = |o: &Grid<f64>| -> Vec<f64> { z.data().iter().zip(o.data()).map(|(a, b)| a - b).collect() };
        let (c0, c1) = (cut(&plain), cut(&hard));
        let (mut vol_hard0, mut vol_hard1, mut vol_soft0, mut vol_soft1) = (0.0, 0.0, 0.0, 0.0);
        for i in 0..z.len() {
            if strata_hard(z.data()[i], q.band_m, q.hard_fraction) {
                assert!(c1[i] <= (1.0 - 0.5 * k) * c0[i] + 1e-12, "cell {i}: {} vs {}", c1[i], c0[i]);
                vol_hard0 += c0[i];
                vol_hard1 += c1[i];
            } else {
                assert_eq!(c1[i], c0[i], "soft cell {i} changed");
                vol_soft0 += c0[i];
                vol_soft1 += c1[i];
            }
        }
        assert!(vol_hard0 > 0.0 && vol_soft0 > 0.0, "both kinds of rock are cut");
        assert!(vol_hard1 <= (1.0 - 0.5 * k) * vol_hard0 * (1.0 + 1e-12), "hard bands: {vol_hard1} of {vol_hard0}");
        assert_eq!(vol_soft1, vol_soft0);
        // Cross-sections of rows wholly in one band: narrower and with a steeper wall in hard rock.
        let w = 61;
        let row_band = |y: usize| {
            let v: Vec<bool> = (24..=36).map(|x| strata_hard(*z.get(x, y), q.band_m, q.hard_fraction)).collect();
            if v.iter().all(|&b| b) {
                Some(true)
            } else if v.iter().all(|&b| !b) {
                Some(false)
            } else {
                None
            }
        };
        let width = |c: &[f64], y: usize| (0..w).filter(|&x| c[y * w + x] > 1e-9).count();
        let wall = |c: &[f64], y: usize| (1..w).map(|x| (c[y * w + x] - c[y * w + x - 1]).abs()).fold(0.0, f64::max);
        let (mut hard_rows, mut soft_rows) = (0, 0);
        for y in 30..88 {
            match row_band(y) {
                Some(true) if c0[y * w + 30] > 1.0 => {
                    hard_rows += 1;
                    assert!(width(&c1, y) < width(&c0, y), "row {y}: not narrower");
                    // Wall steepness relative to the depth: the profile is sharper.
                    let (d0, d1) = (c0[y * w + 30], c1[y * w + 30]);
                    assert!(wall(&c1, y) / d1 > 1.2 * wall(&c0, y) / d0, "row {y}: wall not steeper");
                }
                Some(false) => {
                    soft_rows += 1;
                    assert_eq!(width(&c1, y), width(&c0, y));
                }
                _ => {}
            }
        }
        assert!(hard_rows >= 3 && soft_rows >= 3, "rows: {hard_rows} hard, {soft_rows} soft");
    }

    #[test]
    fn same_bits_for_any_thread_count() {
        let z = bumpy(50, 60).map(|v| 50.0 * v).with_cell_size(5.0, 5.0);
        let p = DrainageCanyonParams::default();
        let a = with_threads(1, || drainage_canyon(&z, &p));
        let b = with_threads(2, || drainage_canyon(&z, &p));
        assert_eq!(bytes(&a), bytes(&b));
        let s = SeparatorCanyonParams { path: vec![[10.0, 10.0], [200.0, 250.0]], ..Default::default() };
        assert_eq!(
            bytes(&with_threads(1, || separator_canyon(&z, &s))),
            bytes(&with_threads(2, || separator_canyon(&z, &s)))
        );
    }
}

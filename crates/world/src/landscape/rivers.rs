//! The drainage graph of the landscape: main rivers from the north to the south, east or west
//! edge, tributaries joining them, each a meandering polyline with a bed that never rises from
//! spring to mouth.

use serde::{Deserialize, Serialize};

use super::params::LandscapeParams;
use crate::random::{Draws, Noise};

/// Whether a river reaches the edge of the world or joins another river.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RiverKind {
    /// Runs from a spring to the world's edge.
    Main,
    /// Runs from a spring into a main river.
    Tributary,
}

/// One river: a polyline from spring (first point) to mouth (last point) in metres, with the
/// bed height at each point, non-increasing along the list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct River {
    /// Index in the world's river list.
    pub id: usize,
    /// The main river a tributary joins (`None` for a main river).
    pub parent_id: Option<usize>,
    /// Main river or tributary.
    pub kind: RiverKind,
    /// Stream order (heuristic, as pyworldgen's: 3 or 4 for a main river, 1 or 2 for a
    /// tributary; from the drainage graph's Strahler order in [`carve_rivers`](super::carve_rivers)).
    pub order: u32,
    /// Relative discharge (pyworldgen's `flow`; contributing area in m² in `carve_rivers`).
    pub flow: f64,
    /// Channel half-width scale in metres: water where the distance to the centre line is below it.
    pub width: f64,
    /// Channel depth in metres.
    pub depth: f64,
    /// Centre line `(x, y)` in metres, spring first (single precision values, as pyworldgen
    /// stores them).
    pub points: Vec<[f64; 2]>,
    /// Bed height in metres at each point, non-increasing from spring to mouth.
    pub bed: Vec<f64>,
    /// For a tributary: the index of the parent's point it flows into.
    pub join_index: Option<usize>,
}

/// What the river builder reads: the parameters, the integer seed and the noise.
pub(crate) struct Ctx<'a> {
    pub p: &'a LandscapeParams,
    pub seed: i64,
    pub noise: &'a dyn Noise,
}

/// numpy's `linspace(0, 1, n)`: `i · (1 / (n − 1))`, the last value exactly 1.
pub(crate) fn linspace01(n: usize) -> Vec<f64> {
    if n < 2 {
        return vec![0.0; n];
    }
    let step = 1.0 / (n - 1) as f64;
    let mut t: Vec<f64> = (0..n).map(|i| i as f64 * step + 0.0).collect();
    t[n - 1] = 1.0;
    t
}

/// `np.clip(v, lo, hi)` = `min(max(v, lo), hi)` (so `hi` wins when `lo > hi`).
#[inline]
pub(crate) fn clip(v: f64, lo: f64, hi: f64) -> f64 {
    f64::min(f64::max(v, lo), hi)
}

/// `√(a² + b²)` as numpy's `norm` of a 2-vector computes it.
#[inline]
fn norm2(a: f64, b: f64) -> f64 {
    (a * a + b * b).sqrt()
}

impl Ctx<'_> {
    /// The unsmoothed base surface at one point, as the beds sample it: the slope plus the broad
    /// fBM with 4 octaves (the grid uses 5).
    pub fn base_elevation_at(&self, x: f64, y: f64) -> f64 {
        let p = self.p;
        let [w, h] = p.domain_size;
        let nx = x / w.max(1e-9);
        let ny = y / h.max(1e-9);
        let slope = p.base_elevation + p.north_south_drop * ny + p.east_west_tilt * (nx - 0.5);
        let s = p.broad_noise_scale;
        let broad = p.broad_noise_amp * self.noise.signed_fbm2(x * s, y * s, 4, self.seed.wrapping_add(10));
        slope + broad
    }

    /// A meandering path of `samples` points from `start` to `end`: the straight line displaced
    /// along its normal by `strength · sin(πt)^0.9 · (0.65 · sin(2π·f·t + φ) + 0.35 · n(t))`, with a
    /// random phase φ, frequency f and an fBM wiggle n; clamped to the domain.
    fn meander(
        &self,
        start: [f64; 2],
        end: [f64; 2],
        rng: &mut dyn Draws,
        samples: usize,
        strength: f64,
    ) -> Vec<[f64; 2]> {
        let p = self.p;
        let t = linspace01(samples);
        let d = [end[0] - start[0], end[1] - start[1]];
        let mut n = [-d[1], d[0]];
        let nn = norm2(n[0], n[1]);
        if nn > 1e-9 {
            n = [n[0] / nn, n[1] / nn];
        }
        let phase = rng.uniform(0.0, 2.0 * std::f64::consts::PI);
        let freq = p.meander_frequency * rng.uniform(0.8, 1.5);
        let nseed = self.seed.wrapping_add((phase * 1000.0) as i64);
        let [w, h] = p.domain_size;
        t.iter()
            .map(|&t| {
                let line = [start[0] * (1.0 - t) + end[0] * t, start[1] * (1.0 - t) + end[1] * t];
                let amp = strength * (std::f64::consts::PI * t).sin().powf(0.9);
                let wave = (t * freq * 2.0 * std::f64::consts::PI + phase).sin();
                let noise = self.noise.signed_fbm2(t * 4.0 + phase, phase * 0.37, 3, nseed);
                let off = amp * (0.65 * wave + 0.35 * noise);
                [clip(line[0] + off * n[0], 0.0, w), clip(line[1] + off * n[1], 0.0, h)]
            })
            .collect()
    }

    /// Bed heights along `pts`: a straight ramp from `base(spring) + source_extra` to the outlet
    /// (`outlet`, or `base(mouth) − 0.4·river_depth`), minus a `0.35·sin(πt)` sag, then its running
    /// minimum (enforced monotone), rounded to `f32`.
    fn monotone_bed(&self, pts: &[[f64; 2]], outlet: Option<f64>, source_extra: f64) -> Vec<f64> {
        let (first, last) = (pts[0], pts[pts.len() - 1]);
        let mut start = self.base_elevation_at(first[0], first[1]) + source_extra;
        let end = match outlet {
            Some(level) => level,
            None => self.base_elevation_at(last[0], last[1]) - self.p.river_depth * 0.4,
        };
        if start <= end + 0.5 {
            start = end + 0.5 + source_extra;
        }
        let mut run = f64::INFINITY;
        linspace01(pts.len())
            .iter()
            .map(|&t| {
                let b = start * (1.0 - t) + end * t - 0.35 * (std::f64::consts::PI * t).sin();
                run = run.min(b);
                run as f32 as f64
            })
            .collect()
    }

    /// The river network (pyworldgen's `generate_river_network`), drawing from `rng`
    /// (`default_rng(seed + 123)` in the compatibility path) in pyworldgen's order.
    pub fn river_network(&self, rng: &mut dyn Draws) -> Vec<River> {
        let p = self.p;
        let [w, h] = p.domain_size;
        let mut rivers = Vec::new();
        for _ in 0..p.main_river_count {
            let spring = [rng.uniform(0.12 * w, 0.88 * w), rng.uniform(0.78 * h, 0.98 * h)];
            let mouth = match rng.choice(3) {
                0 => [rng.uniform(0.08 * w, 0.92 * w), 0.0],
                1 => [w, rng.uniform(0.04 * h, 0.35 * h)],
                _ => [0.0, rng.uniform(0.04 * h, 0.35 * h)],
            };
            let pts = self.meander(spring, mouth, rng, p.river_samples as usize, p.meander_strength);
            let bed = self.monotone_bed(&pts, None, 5.0);
            let order = 3 + u32::from(p.tributaries_per_main >= 4);
            let flow = 18.0 + p.tributaries_per_main as f64 * 4.0 + rng.uniform(0.0, 4.0);
            let main_id = rivers.len();
            rivers.push(River {
                id: main_id,
                parent_id: None,
                kind: RiverKind::Main,
                order,
                flow,
                width: p.river_width * (flow / 10.0).sqrt(),
                depth: p.river_depth * (flow / 12.0).sqrt(),
                points: to_f32(&pts),
                bed: bed.clone(),
                join_index: None,
            });
            for _ in 0..p.tributaries_per_main {
                let trib = self.tributary(rng, &pts, &bed, main_id, rivers.len());
                rivers.push(trib);
            }
        }
        rivers
    }

    /// One tributary of the main river `pts`/`bed` (pyworldgen's draw order).
    fn tributary(&self, rng: &mut dyn Draws, pts: &[[f64; 2]], bed: &[f64], main_id: usize, id: usize) -> River {
        let p = self.p;
        let [w, h] = p.domain_size;
        let n = pts.len();
        let join_idx = (rng.uniform(0.25, 0.82) * (n - 1) as f64) as usize;
        let join = pts[join_idx];
        let s = [-1.0, 1.0][rng.choice(2)];
        let (a, b) = (pts[(join_idx + 1).min(n - 1)], pts[join_idx.saturating_sub(1)]);
        let tangent = [a[0] - b[0], a[1] - b[1]];
        let mut normal = [-tangent[1], tangent[0]];
        let nn = norm2(normal[0], normal[1]);
        if nn > 1e-9 {
            normal = [normal[0] / nn, normal[1] / nn];
        }
        let reach = rng.uniform(0.18 * w, 0.38 * w);
        let jitter = [rng.uniform(-0.06 * w, 0.06 * w), rng.uniform(0.12 * h, 0.32 * h)];
        let mut source = [join[0] + normal[0] * s * reach + jitter[0], join[1] + normal[1] * s * reach + jitter[1]];
        source[0] = clip(source[0], 0.02 * w, 0.98 * w);
        source[1] = clip(source[1], join[1] + 0.06 * h, 0.98 * h);
        let samples = (p.river_samples / 2).max(24) as usize;
        let tpts = self.meander(source, join, rng, samples, p.meander_strength * 0.55);
        // numpy 2 (NEP 50): float32 bed value + Python float is a float32 addition.
        let outlet = (bed[join_idx] as f32 + rng.uniform(0.05, 0.35) as f32) as f64;
        let extra = rng.uniform(1.0, 3.0);
        let tbed = self.monotone_bed(&tpts, Some(outlet), extra);
        let order = 1 + u32::from(rng.random() < 0.35);
        let flow = 2.5 + 2.5 * order as f64 + rng.uniform(0.0, 2.0);
        River {
            id,
            parent_id: Some(main_id),
            kind: RiverKind::Tributary,
            order,
            flow,
            width: p.river_width * 0.55 * (flow / 5.0).sqrt(),
            depth: p.river_depth * 0.55 * (flow / 5.0).sqrt(),
            points: to_f32(&tpts),
            bed: tbed,
            join_index: Some(join_idx),
        }
    }
}

/// Points rounded to `f32` (pyworldgen stores `points_xy` as float32).
fn to_f32(pts: &[[f64; 2]]) -> Vec<[f64; 2]> {
    pts.iter().map(|q| [q[0] as f32 as f64, q[1] as f32 as f64]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linspace_matches_numpy() {
        // np.linspace(0, 1, 7).tolist()
        assert_eq!(
            linspace01(7),
            vec![0.0, 0.16666666666666666, 0.3333333333333333, 0.5, 0.6666666666666666, 0.8333333333333333, 1.0]
        );
        assert_eq!(clip(5.0, 3.0, 2.0), 2.0);
    }
}

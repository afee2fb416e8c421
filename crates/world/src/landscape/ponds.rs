//! Ponds: elliptic hollows filled to a level just below the ground at their centre, most of them
//! beside a river point.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::carve::{quantile, Cells};
use super::params::LandscapeParams;
use super::rivers::{clip, River};
use crate::random::Draws;

/// One pond: an ellipse with semi-axes `radius` around `center`, dug `depth` deep at its centre
/// (`depth · (1 − q)²` where `q` is the ellipse's normalised squared radius) and filled to
/// `water_level`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pond {
    /// Index in the world's pond list.
    pub id: usize,
    /// Centre `(x, y)` in metres.
    pub center: [f64; 2],
    /// Semi-axes along x and y in metres.
    pub radius: [f64; 2],
    /// Water surface height in metres.
    pub water_level: f64,
    /// Depth dug at the centre in metres.
    pub depth: f64,
    /// The river whose point the pond was placed beside, if any.
    pub connected_river_id: Option<usize>,
}

/// Ponds placed on the carved `height` (pyworldgen's `_generate_ponds`, drawing from `rng` =
/// `default_rng(seed + 707)` in its order): with probability `pond_near_river_probability` beside
/// a random river point (offset by a normal vector times a draw in [3, 9) m), otherwise at a
/// random spot in the southern 65 % whose cell lies below the 55th height percentile (up to 100
/// redraws).
pub(crate) fn place(c: Cells, height: &[f64], rivers: &[River], p: &LandscapeParams, rng: &mut dyn Draws) -> Vec<Pond> {
    let [w, h] = p.domain_size;
    let all: Vec<([f64; 2], usize)> = rivers.iter().flat_map(|r| r.points.iter().map(move |&q| (q, r.id))).collect();
    let mut q55: Option<f64> = None;
    let cell = |ctr: [f64; 2]| {
        let ix = clip(ctr[0] / p.resolution, 0.0, (c.nx - 1) as f64) as usize;
        let iy = clip(ctr[1] / p.resolution, 0.0, (c.ny - 1) as f64) as usize;
        iy * c.nx + ix
    };
    let mut ponds = Vec::with_capacity(p.pond_count as usize);
    for id in 0..p.pond_count as usize {
        let mut connected = None;
        let mut center;
        if !all.is_empty() && rng.random() < p.pond_near_river_probability {
            let k = rng.integers(all.len() as i64) as usize;
            let nrm = [rng.normal(), rng.normal()];
            let r = rng.uniform(3.0, 9.0);
            center = [all[k].0[0] + nrm[0] * r, all[k].0[1] + nrm[1] * r];
            connected = Some(all[k].1);
        } else {
            center = [rng.uniform(0.08 * w, 0.92 * w), rng.uniform(0.05 * h, 0.65 * h)];
            for _ in 0..100 {
                let q = *q55.get_or_insert_with(|| quantile(height, 0.55));
                if height[cell(center)] < q {
                    break;
                }
                center = [rng.uniform(0.08 * w, 0.92 * w), rng.uniform(0.05 * h, 0.65 * h)];
            }
        }
        center = [clip(center[0], 0.02 * w, 0.98 * w), clip(center[1], 0.02 * h, 0.98 * h)];
        let rx = rng.uniform(p.pond_radius_min, p.pond_radius_max);
        let ry = rng.uniform(p.pond_radius_min, p.pond_radius_max) * rng.uniform(0.7, 1.35);
        let level = height[cell(center)] - rng.uniform(0.10, 0.45);
        ponds.push(Pond {
            id,
            center,
            radius: [rx, ry],
            water_level: level,
            depth: p.pond_depth,
            connected_river_id: connected,
        });
    }
    ponds
}

/// Digs `pond` into `height` and fills it: inside the ellipse (`q < 1`) the ground sinks by
/// `depth · (1 − q)²`, the water depth reaches `water_level − h`, the river influence `1 − q`.
pub(crate) fn dig(c: Cells, pond: &Pond, height: &mut [f64], water: &mut [f64], influence: &mut [f64]) {
    let [cx, cy] = pond.center;
    let (rx, ry) = (pond.radius[0].max(1e-6), pond.radius[1].max(1e-6));
    height
        .par_chunks_mut(c.nx)
        .zip(water.par_chunks_mut(c.nx))
        .zip(influence.par_chunks_mut(c.nx))
        .enumerate()
        .for_each(|(j, ((h, w), infl))| {
            let v = (c.y(j) - cy) / ry;
            let v2 = v * v;
            if v2 >= 1.0 {
                return;
            }
            for i in 0..c.nx {
                let u = (c.x(i) - cx) / rx;
                let q = u * u + v2;
                if q < 1.0 {
                    let one = 1.0 - clip(q, 0.0, 1.0);
                    h[i] -= pond.depth * (one * one);
                    w[i] = w[i].max(f64::max(0.0, pond.water_level - h[i]));
                    infl[i] = infl[i].max(one);
                }
            }
        });
}

//! Structural checks of generated worlds (seed 002's `validate_*`): each returns the list of
//! broken invariants, empty when the world is sound. pyworldgen has `validate_landscape` and
//! `validate_forest`; the cave and composite checks are ours, on the properties their docs
//! promise.
//!
//! * [`validate_landscape`] — shapes, finite heights, standing water, and the load-bearing one:
//!   every river bed is non-increasing from spring to mouth (rises above 1e-5 m reported).
//! * [`validate_composite`] — the biome weights are a partition of unity (each in [0, 1], their
//!   sum 1 within 1e-9), the dominant biome is the largest weight, heights are finite, tree
//!   densities lie in [0, 1].
//! * [`validate_cave`] — the corridor is open along its whole axis (density > 0 at every step of
//!   at most 1 cm over the streamed length) and the sampled voxels join the tunnel's two ends for
//!   a walker of the given diameter (a 6-connected flood fill over voxels with that clearance).
//!
//! The forest's check, `validate_forest`, lives with the forest.

use std::collections::VecDeque;

use crate::cave::{sample_cave, CaveField, CaveParams, CaveVolume};
use crate::compose::CompositeWorld;
use crate::error::Result;
use crate::field::Terrain;
use crate::landscape::LandscapeWorld;
use crate::{Compat, Seed};

/// pyworldgen's `validate_landscape`.
pub fn validate_landscape(world: &LandscapeWorld) -> Vec<String> {
    let mut errors = Vec::new();
    let n = world.grid.nx() * world.grid.ny();
    for (name, len) in [
        ("water_depth", world.grid.water_depth().len()),
        ("material", world.material.len()),
        ("moisture", world.moisture.len()),
    ] {
        if len != n {
            errors.push(format!("{name} holds {len} cells; the height field holds {n}"));
        }
    }
    if world.grid.height().iter().any(|v| !v.is_finite()) {
        errors.push("height has non-finite values".into());
    }
    if !world.grid.water_depth().iter().any(|&d| d > 1e-3) {
        errors.push("landscape has no standing water".into());
    }
    for r in &world.rivers {
        let rise = r.bed.windows(2).map(|w| w[1] - w[0]).fold(f64::NEG_INFINITY, f64::max);
        if rise > 1e-5 {
            errors.push(format!("river {} ({:?}) bed rises downstream by {rise:.4e} m", r.id, r.kind));
        }
    }
    errors
}

/// The composite world's partition of unity and ranges.
pub fn validate_composite(world: &CompositeWorld) -> Vec<String> {
    let mut errors = Vec::new();
    let n = world.grid.nx() * world.grid.ny();
    if world.weights.len() != world.biome_names.len() {
        errors.push(format!("{} weight maps for {} biomes", world.weights.len(), world.biome_names.len()));
        return errors;
    }
    if let Some((t, w)) = world.weights.iter().enumerate().find(|(_, w)| w.len() != n) {
        errors.push(format!("biome {t} has {} weights; the grid has {n} cells", w.len()));
        return errors;
    }
    if world.dominant.len() != n || world.tree_density.len() != n {
        errors.push(format!(
            "dominant/tree density hold {}/{} cells of {n}",
            world.dominant.len(),
            world.tree_density.len()
        ));
        return errors;
    }
    let (mut off_range, mut off_sum, mut not_dominant, mut worst) = (0usize, 0usize, 0usize, 0.0f64);
    for c in 0..n {
        let mut sum = 0.0;
        let mut best = (f64::NEG_INFINITY, 0usize);
        for (t, w) in world.weights.iter().enumerate() {
            let v = w[c];
            if !(0.0..=1.0).contains(&v) {
                off_range += 1;
            }
            sum += v;
            if v > best.0 {
                best = (v, t);
            }
        }
        if (sum - 1.0).abs() > 1e-9 {
            off_sum += 1;
            worst = worst.max((sum - 1.0).abs());
        }
        let d = world.dominant[c] as usize;
        if d >= world.weights.len() || world.weights[d][c] < best.0 {
            not_dominant += 1;
        }
    }
    if off_range > 0 {
        errors.push(format!("{off_range} weights outside [0, 1]"));
    }
    if off_sum > 0 {
        errors.push(format!("{off_sum} cells whose weights do not sum to 1 (worst off by {worst:.3e})"));
    }
    if not_dominant > 0 {
        errors.push(format!("{not_dominant} cells whose dominant biome is not the largest weight"));
    }
    if world.grid.height().iter().any(|v| !v.is_finite()) {
        errors.push("height has non-finite values".into());
    }
    if world.tree_density.iter().any(|d| !(0.0..=1.0).contains(d)) {
        errors.push("tree density outside [0, 1]".into());
    }
    errors
}

/// What [`validate_cave`] measured.
#[derive(Debug, Clone, PartialEq)]
pub struct CaveCheck {
    /// Broken invariants (empty: sound).
    pub errors: Vec<String>,
    /// Axis samples taken.
    pub axis_samples: usize,
    /// The least density met along the axis.
    pub min_axis_density: f64,
    /// Voxels the walker reached from the tunnel's start.
    pub reached: usize,
}

/// Checks the cave of `seed`: axis openness at steps of at most `step` metres (≤ 0.01) over the
/// tunnel's length, and a flood fill of the sampled voxels from the axis at the start to the
/// axis at the end for a walker `walker` metres across.
pub fn validate_cave(seed: &Seed, compat: Compat, p: &CaveParams, step: f64, walker: f64) -> Result<CaveCheck> {
    p.validate()?;
    let step = step.clamp(1e-4, 0.01);
    let field = CaveField::for_seed(p, seed, compat);
    let mut errors = Vec::new();
    let samples = (p.length / step).ceil() as usize + 1;
    let mut min = f64::INFINITY;
    let mut closed = Vec::new();
    for k in 0..samples {
        let z = (k as f64 * step).min(p.length);
        let d = field.density(field.corr_x(z), field.corr_y(z), z);
        min = min.min(d);
        if d <= 0.0 && closed.len() < 5 {
            closed.push(z);
        }
    }
    if min <= 0.0 {
        errors.push(format!("the corridor axis is closed (density {min:.4}) at tunnel distance {closed:?} m"));
    }
    let vol = sample_cave(seed, compat, p)?;
    let res = vol.resolution;
    let at = |z: f64| -> [usize; 3] {
        let ix = ((field.corr_x(z) + p.xb) / res).floor() as usize;
        let it = (z / res).floor() as usize;
        let iu = (field.corr_y(z) / res).floor() as usize;
        [ix.min(vol.nx - 1), it.min(vol.ny - 1), iu.min(vol.nz - 1)]
    };
    let start = at(0.5 * res);
    let end = at((vol.ny as f64 - 0.5) * res);
    let reached = walker_fill(&vol, walker, start);
    if !reached.1[index(&vol, end)] {
        errors.push(format!(
            "a {walker} m walker starting at voxel {start:?} does not reach the tunnel's end at voxel {end:?} ({} voxels reached)",
            reached.0
        ));
    }
    Ok(CaveCheck { errors, axis_samples: samples, min_axis_density: min, reached: reached.0 })
}

fn index(v: &CaveVolume, c: [usize; 3]) -> usize {
    (c[0] * v.ny + c[1]) * v.nz + c[2]
}

/// Flood fill (6-connected) over the voxels a walker of diameter `walker` fits in: air voxels
/// whose neighbours within `ceil(walker / 2 / res − ½)` voxels (a cube) are air too. Returns the
/// count reached and the reached flags (volume index).
fn walker_fill(v: &CaveVolume, walker: f64, start: [usize; 3]) -> (usize, Vec<bool>) {
    let r = ((walker / 2.0 / v.resolution) - 0.5).ceil().max(0.0) as isize;
    let (nx, ny, nz) = (v.nx as isize, v.ny as isize, v.nz as isize);
    let fits = |x: isize, y: isize, z: isize| -> bool {
        for dx in -r..=r {
            for dy in -r..=r {
                for dz in -r..=r {
                    let (a, b, c) = (x + dx, y + dy, z + dz);
                    if a < 0 || b < 0 || c < 0 || a >= nx || b >= ny || c >= nz {
                        // The tunnel's open ends continue past the volume.
                        if a < 0 || c < 0 || a >= nx || c >= nz {
                            return false;
                        }
                        continue;
                    }
                    if v.solid(a as usize, b as usize, c as usize) {
                        return false;
                    }
                }
            }
        }
        true
    };
    let mut seen = vec![false; v.occ.len()];
    let s = [start[0] as isize, start[1] as isize, start[2] as isize];
    if !fits(s[0], s[1], s[2]) {
        return (0, seen);
    }
    let mut queue = VecDeque::from([s]);
    seen[index(v, start)] = true;
    let mut count = 1;
    while let Some([x, y, z]) = queue.pop_front() {
        for (dx, dy, dz) in [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)] {
            let (a, b, c) = (x + dx, y + dy, z + dz);
            if a < 0 || b < 0 || c < 0 || a >= nx || b >= ny || c >= nz || !fits(a, b, c) {
                continue;
            }
            let i = index(v, [a as usize, b as usize, c as usize]);
            if !seen[i] {
                seen[i] = true;
                count += 1;
                queue.push_back([a, b, c]);
            }
        }
    }
    (count, seen)
}

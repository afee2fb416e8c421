//! The one resource budget: the memory and work a request implies, computed from its settings
//! and its input's shape *before* anything is allocated or looped over, against two caps.
//!
//! Every workflow whose cost a user's numbers drive calls one of the `*_cost` functions here and
//! [`Budget::check`]s it against [`limits`] (the caps the face set with [`set_limits`], else
//! [`Budget::default`]): the openness ray table of the analysis (samples per ray grow with the
//! cell aspect ratio `max(dx, dy) / min(dx, dy)`), the diffusion sub-steps of stream-power
//! erosion, smoothing passes, the candidate centres of a patch search, and splat counts. A
//! refusal is a [`BudgetError`] naming what was asked, the cap and the flag that raises it.
//!
//! The estimates count what a request's numbers can make unbounded (sample tables, sub-steps,
//! passes, splats); the grids themselves are bounded by each command's size caps.

use std::sync::atomic::{AtomicU64, Ordering};

/// Default memory cap, bytes (4 GiB): raise it with `--max-memory`.
pub const MAX_MEMORY_BYTES: u64 = 4 << 30;

/// Default work cap in cell-steps (or sample-, splat-steps): 10¹¹, minutes on one core. Raise
/// it with `--max-work`.
pub const MAX_WORK: f64 = 1e11;

/// Memory of one splat with no higher SH bands in `bozkir_splat::Splats` (raw and decoded
/// planes, 88 bytes) and its material tag, rounded up.
pub const SPLAT_BYTES: f64 = 96.0;

/// Memory of one precomputed openness ray sample (offsets, fractions, `1/d`).
pub const RAY_SAMPLE_BYTES: f64 = 48.0;

/// Directions of the analysis's sky view (`OpennessParams::default().directions`).
const SKY_DIRECTIONS: f64 = 16.0;

/// The caps a request is checked against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// Most bytes a request may allocate for what its numbers drive.
    pub max_memory: u64,
    /// Most elementary steps (cell-steps, sample-steps) a request may run.
    pub max_work: f64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget { max_memory: MAX_MEMORY_BYTES, max_work: MAX_WORK }
    }
}

/// What a request implies: `memory` bytes and `work` steps (`f64`, so that an absurd request is
/// a large number, never an overflow), and what for (e.g. `"sky view: 16 rays of 1e19 samples"`).
#[derive(Debug, Clone, PartialEq)]
pub struct Cost {
    /// What is being costed, as the user reads it.
    pub what: String,
    /// Bytes allocated.
    pub memory: f64,
    /// Elementary steps run.
    pub work: f64,
}

/// A request above a cap: the message names what, how much, the cap and the flag raising it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BudgetError {
    /// More memory than [`Budget::max_memory`].
    #[error("{what} needs {} of memory, above the cap of {} (raise it with --max-memory)", bytes(*.memory), bytes(*.cap as f64))]
    Memory {
        /// What was costed.
        what: String,
        /// Bytes asked.
        memory: f64,
        /// The cap.
        cap: u64,
    },
    /// More work than [`Budget::max_work`].
    #[error("{what} needs {work:.3e} steps, above the cap of {cap:.3e} (raise it with --max-work)")]
    Work {
        /// What was costed.
        what: String,
        /// Steps asked.
        work: f64,
        /// The cap.
        cap: f64,
    },
}

/// Bytes as the user reads them (`"12.0 GiB"`, `"1.0e15 B"` past a petabyte).
fn bytes(b: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    if !b.is_finite() || b >= 1024f64.powi(5) {
        return format!("{b:.1e} B");
    }
    let mut v = b;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    format!("{v:.1} {}", UNITS[u])
}

impl Budget {
    /// `cost` against the caps. A NaN cost counts as above them.
    ///
    /// # Examples
    ///
    /// ```
    /// use bozkir_pipeline::budget::{Budget, Cost};
    ///
    /// let b = Budget::default();
    /// assert!(b.check(&Cost { what: "a small job".into(), memory: 1e6, work: 1e6 }).is_ok());
    /// let e = b.check(&Cost { what: "sky view".into(), memory: 1e12, work: 1.0 }).unwrap_err();
    /// assert!(e.to_string().contains("--max-memory"));
    /// ```
    pub fn check(&self, cost: &Cost) -> Result<(), BudgetError> {
        if cost.memory.is_nan() || cost.memory > self.max_memory as f64 {
            return Err(BudgetError::Memory { what: cost.what.clone(), memory: cost.memory, cap: self.max_memory });
        }
        if cost.work.is_nan() || cost.work > self.max_work {
            return Err(BudgetError::Work { what: cost.what.clone(), work: cost.work, cap: self.max_work });
        }
        Ok(())
    }
}

static MEMORY: AtomicU64 = AtomicU64::new(MAX_MEMORY_BYTES);
static WORK: AtomicU64 = AtomicU64::new(0);

/// Set the process's caps (the CLI's `--max-memory` / `--max-work`); workflows check against
/// them through [`limits`].
pub fn set_limits(b: Budget) {
    MEMORY.store(b.max_memory, Ordering::Relaxed);
    WORK.store(b.max_work.to_bits(), Ordering::Relaxed);
}

/// The process's caps: those of [`set_limits`], else [`Budget::default`].
pub fn limits() -> Budget {
    let w = WORK.load(Ordering::Relaxed);
    Budget { max_memory: MEMORY.load(Ordering::Relaxed), max_work: if w == 0 { MAX_WORK } else { f64::from_bits(w) } }
}

/// Check `cost` against [`limits`], as a pipeline error.
pub fn check(cost: &Cost) -> crate::Result<()> {
    Ok(limits().check(cost)?)
}

/// The analysis bundle's sky view on a `w × h` grid of `dx × dy` cells with a radius of
/// `radius_cells` times the longer side: rays of `radius_cells · max/min` samples each.
pub fn analysis_cost(w: usize, h: usize, dx: f64, dy: f64, radius_cells: f64) -> Cost {
    let cells_ok = dx > 0.0 && dy > 0.0 && dx.is_finite() && dy.is_finite();
    let samples = (radius_cells * dx.max(dy) / dx.min(dy)).floor();
    // A cell size that is not a positive finite number has no bounded ray table.
    let samples = if cells_ok && !samples.is_nan() { samples } else { f64::INFINITY };
    let cells = w as f64 * h as f64;
    Cost {
        what: format!(
            "the sky view of {w}×{h} cells of {dx:?} × {dy:?} m ({SKY_DIRECTIONS} rays of {samples:.3e} samples per cell)"
        ),
        memory: SKY_DIRECTIONS * samples * RAY_SAMPLE_BYTES,
        work: cells * SKY_DIRECTIONS * samples,
    }
}

/// Diffusion sub-steps per step of stream-power erosion: `ceil(2κ·dt·(1/dx² + 1/dy²))`, at
/// least 1 (infinite when that overflows).
pub fn diffusion_substeps(kappa: f64, dt: f64, dx: f64, dy: f64) -> f64 {
    if kappa <= 0.0 {
        return 1.0;
    }
    let c = kappa * dt * (1.0 / (dx * dx) + 1.0 / (dy * dy));
    let s = (2.0 * c).ceil().max(1.0);
    if s.is_nan() {
        f64::INFINITY
    } else {
        s
    }
}

/// Stream-power erosion of a `w × h` grid of `dx × dy` cells: `steps` steps, each one routing
/// pass and its diffusion sub-steps.
pub fn erosion_cost(w: usize, h: usize, dx: f64, dy: f64, steps: usize, kappa: f64, dt: f64) -> Cost {
    let sub = diffusion_substeps(kappa, dt, dx, dy);
    let cells = w as f64 * h as f64;
    Cost {
        what: format!(
            "erosion of {w}×{h} cells of {dx:?} × {dy:?} m ({steps} steps of {sub:.3e} diffusion sub-steps: κ·dt = {:.3e})",
            kappa * dt
        ),
        memory: 0.0,
        work: cells * steps as f64 * (1.0 + sub),
    }
}

/// `passes` smoothing passes over `w × h` cells.
pub fn smoothing_cost(w: usize, h: usize, passes: usize) -> Cost {
    Cost {
        what: format!("{passes} smoothing passes over {w}×{h} cells"),
        memory: 0.0,
        work: w as f64 * h as f64 * passes as f64,
    }
}

/// `n` splats in memory (no higher SH bands).
pub fn splats_cost(what: &str, n: f64) -> Cost {
    Cost { what: format!("{what} ({n:.3e} splats)"), memory: n * SPLAT_BYTES, work: n }
}

/// A patch search over `splats` splats spread on `extent_x × extent_y` metres: candidate centres
/// every `size · stride` metres (at most 4096 per axis, the search's own cap), each measuring the
/// splats of its `size × size` window.
pub fn patch_search_cost(splats: usize, extent_x: f64, extent_y: f64, size: f64, stride: f64) -> Cost {
    let step = size * stride;
    let ticks = |e: f64| {
        let t = ((e - size).max(0.0) / step).floor() + 1.0;
        if t.is_nan() {
            4096.0
        } else {
            t.clamp(1.0, 4096.0)
        }
    };
    let centres = ticks(extent_x) * ticks(extent_y);
    let area = (extent_x * extent_y).max(size * size);
    let per = (splats as f64 * (size * size / area)).clamp(1.0, splats.max(1) as f64);
    Cost {
        what: format!("a patch search of {centres:.3e} candidate centres (step {step:.3e} m) over {splats} splats"),
        memory: centres * 64.0,
        work: centres * per,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extreme_aspect_ratio_is_refused_before_the_ray_table() {
        let c = analysis_cost(16, 16, 10.0, 1e-18, 16.0);
        let e = Budget::default().check(&c).unwrap_err().to_string();
        assert!(e.contains("--max-memory") && e.contains("sky view"), "{e}");
        assert!(Budget::default().check(&analysis_cost(8192, 8192, 30.0, 30.0, 16.0)).is_ok());
        let nan = analysis_cost(16, 16, f64::NAN, 1.0, 16.0);
        assert!(Budget::default().check(&nan).is_err());
    }

    #[test]
    fn unbounded_substeps_are_refused() {
        assert_eq!(diffusion_substeps(0.01, 1000.0, 30.0, 30.0), 1.0);
        let c = erosion_cost(64, 64, 1e-3, 1e-3, 100, 0.01, 1000.0);
        assert!(Budget::default().check(&c).unwrap_err().to_string().contains("--max-work"));
        let c = erosion_cost(64, 64, 30.0, 30.0, 100, 1e9, 1000.0);
        assert!(Budget::default().check(&c).is_err());
        assert!(Budget::default().check(&erosion_cost(1024, 1024, 30.0, 30.0, 100, 0.01, 1000.0)).is_ok());
    }

    #[test]
    fn limits_round_trip_and_bytes_read_well() {
        assert_eq!(bytes(4.0 * 1024.0 * 1024.0 * 1024.0), "4.0 GiB");
        assert_eq!(bytes(1e20), "1.0e20 B");
        assert_eq!(limits(), Budget::default());
    }
}

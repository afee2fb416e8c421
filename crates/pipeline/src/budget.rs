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

/// How much a tileset zip may inflate to under the process's memory cap ([`limits`]): an
/// eighth of it per file and a quarter of it in all. At the default 4 GiB these are
/// `MAX_ZIP_ENTRY_BYTES` (512 MiB) and `MAX_ZIP_TOTAL_BYTES` (1 GiB) of
/// `bozkir_splat::formats::tileset`, so `--max-memory` raises (or lowers) both.
pub fn zip_limits() -> bozkir_splat::formats::tileset::ZipLimits {
    let m = limits().max_memory;
    bozkir_splat::formats::tileset::ZipLimits { entry_bytes: m / 8, total_bytes: m / 4 }
}

/// Bytes per texel of a bake: the albedo and micro-normal textures (3 bytes each) and the PNG
/// encoder's copies (measured: 9.7 bytes per texel of max RSS between 257² texels and 1028²).
pub const BAKE_TEXEL_BYTES: f64 = 10.0;

/// Bytes per grid cell beside a bake's textures: the heights, the slope field and the three
/// optional masks (8 bytes each).
pub const BAKE_CELL_BYTES: f64 = 40.0;

/// A bake of a `w × h` grid at `scale` texels per cell along each side: two textures of
/// `(w·scale) × (h·scale)` texels, every texel computed once per texture.
pub fn bake_cost(w: usize, h: usize, scale: usize) -> Cost {
    let (tw, th) = (w as f64 * scale as f64, h as f64 * scale as f64);
    let texels = tw * th;
    Cost {
        what: format!("a bake of {w}×{h} cells at {scale}× ({tw}×{th} texels per texture)"),
        memory: texels * BAKE_TEXEL_BYTES + w as f64 * h as f64 * BAKE_CELL_BYTES,
        work: 2.0 * texels,
    }
}

/// Bytes per output sample of a height-map export (Unity, Unreal, Godot): the resampled
/// heights (8), the 16-bit or float samples and the encoder's copy (8, for Godot's EXR too).
/// With the weight maps below, measured: 21 bytes per sample (Unity, 4097², 9 layers) and 25
/// (Unreal, 4033², 10 layers) of max RSS.
pub const EXPORT_HEIGHT_SAMPLE_BYTES: f64 = 16.0;

/// Bytes per vertex of a mesh export (glTF, OBJ): position, normal and texture coordinates
/// (32), two triangles' indices (24) and the file's encoding of them. Measured with 9 weight
/// layers between 33² and 257² vertices: 188 bytes per vertex of max RSS for glTF, 62 for OBJ.
pub const EXPORT_MESH_VERTEX_BYTES: f64 = 192.0;

/// Bytes per output sample and weight layer of an export's weight maps (the 8-bit planes).
pub const EXPORT_WEIGHT_SAMPLE_BYTES: f64 = 1.0;

/// Bytes per output sample of the one weight layer resampled at a time (f64).
pub const EXPORT_RESAMPLE_BYTES: f64 = 8.0;

/// An export writing `out_w × out_h` samples (`mesh`: as mesh vertices, else as a height map)
/// and `layers` weight maps of the same size, from a `w × h` grid.
pub fn export_cost(engine: &str, w: usize, h: usize, out_w: usize, out_h: usize, mesh: bool, layers: usize) -> Cost {
    let samples = out_w as f64 * out_h as f64;
    let per = if mesh { EXPORT_MESH_VERTEX_BYTES } else { EXPORT_HEIGHT_SAMPLE_BYTES };
    Cost {
        what: format!("an export ({engine}) of {w}×{h} cells as {out_w}×{out_h} samples with {layers} weight layer(s)"),
        memory: samples
            * (per + layers as f64 * EXPORT_WEIGHT_SAMPLE_BYTES + (layers.min(1) as f64) * EXPORT_RESAMPLE_BYTES)
            + w as f64 * h as f64 * 8.0,
        work: samples * (1.0 + layers as f64),
    }
}

/// Bytes per sample of a classification on the tile grid: the sampled heights, the cue fields
/// (slope, TPI, drainage, pooling, ranks), the decision, its strength and the coverage planes
/// (measured: 41.6 bytes per sample of max RSS between 1024² and 2048² samples).
pub const CLASSIFY_SAMPLE_BYTES: f64 = 48.0;

/// Bytes per pixel of a classification's preview images, written one after another (measured:
/// 7.0 bytes per pixel of max RSS between 256² and 4096² pixels).
pub const CLASSIFY_PREVIEW_PIXEL_BYTES: f64 = 8.0;

/// A classification of an `n × n` tile grid at `over` samples per tile side, with preview
/// images of `px` pixels per tile (`(n·px)²` pixels each).
pub fn classify_cost(n: usize, over: usize, px: usize, classes: usize) -> Cost {
    let side = n as f64 * over as f64;
    let samples = side * side;
    let pixels = (n as f64 * px as f64).powi(2);
    Cost {
        what: format!(
            "a classification of a {n}×{n} tile grid at {over} samples per tile ({side}×{side} samples) with {px} px previews"
        ),
        memory: samples * CLASSIFY_SAMPLE_BYTES + pixels * CLASSIFY_PREVIEW_PIXEL_BYTES,
        work: samples * (classes as f64 + 8.0) + pixels * (classes as f64 + 3.0),
    }
}

/// Bytes per pixel of one tile's top-down render in an atlas (colour and weight accumulators,
/// f32).
pub const ATLAS_RENDER_PIXEL_BYTES: f64 = 16.0;

/// Bytes per pixel of the atlas image: its RGB pixels and the PNG encoder's copy (measured with
/// the render: 6.5 bytes per atlas pixel of max RSS between 192² and 1536² pixels).
pub const ATLAS_PIXEL_BYTES: f64 = 6.0;

/// A far-field atlas of `tiles` tiles at `res × res` pixels each (laid on a `⌈√tiles⌉`-column
/// grid), drawing `splats` splats: the atlas image and one tile's render at a time.
pub fn atlas_cost(tiles: usize, res: usize, splats: usize) -> Cost {
    let px = res as f64 * res as f64;
    let n = tiles.max(1) as f64;
    let cols = n.sqrt().ceil();
    let atlas = cols * (n / cols).ceil() * px;
    Cost {
        what: format!("an atlas of {tiles} tiles at {res}×{res} px ({atlas:.3e} pixels, {splats} splats)"),
        memory: atlas * ATLAS_PIXEL_BYTES + px * ATLAS_RENDER_PIXEL_BYTES,
        work: atlas + splats as f64,
    }
}

/// Reading a sweep of `frames` PNG frames into memory: `decoded` bytes of 8-bit samples and
/// `pixels` pixels held as f32 luma (4 bytes each) besides them.
pub fn frames_cost(label: &str, frames: usize, decoded: f64, pixels: f64) -> Cost {
    Cost {
        what: format!("the sweep {label} ({frames} frames, {pixels:.3e} pixels)"),
        memory: decoded + 4.0 * pixels,
        work: decoded,
    }
}

/// The popping metric over `pairs` consecutive pairs of `w × h` frames (`sweeps` sweeps held in
/// memory, `frames` frames in all): each block searches `(2·radius + 1)²` offsets over its
/// pixels, so a pair costs `w·h·(2r + 1)²` steps; frames are held as f32 luma, and the phase
/// correlation's padded complex planes (two of 16 bytes per padded pixel) come on top.
pub fn pop_metric_cost(frames: usize, pairs: usize, w: usize, h: usize, radius: usize) -> Cost {
    let px = w as f64 * h as f64;
    let padded = (w.max(1).next_power_of_two() as f64) * (h.max(1).next_power_of_two() as f64);
    let offsets = (2.0 * radius as f64 + 1.0).powi(2);
    Cost {
        what: format!(
            "the popping metric over {pairs} pairs of {w}×{h} frames (search radius {radius} px: {offsets} offsets per pixel)"
        ),
        memory: frames as f64 * px * 4.0 + 2.0 * padded * 16.0,
        work: pairs as f64 * (px * offsets + padded * 64.0),
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

    #[test]
    fn default_zip_limits_are_the_tileset_readers_defaults() {
        assert_eq!(zip_limits(), bozkir_splat::formats::tileset::ZipLimits::default());
    }

    #[test]
    fn command_costs_grow_with_their_numbers() {
        let b = Budget::default();
        // An 8192² grid baked at 2×: 268 million texels per texture, over 4 GiB.
        assert!(b.check(&bake_cost(8192, 8192, 2)).unwrap_err().to_string().contains("--max-memory"));
        assert!(b.check(&bake_cost(1024, 1024, 2)).is_ok());
        // 16385² Unreal samples with 8 weight layers.
        assert!(b.check(&export_cost("unreal", 64, 64, 16385, 16385, false, 8)).is_err());
        assert!(b.check(&export_cost("gltf", 1024, 1024, 1024, 1024, true, 4)).is_ok());
        // The largest classification grid (8192² samples) with 16384² px previews.
        assert!(b.check(&classify_cost(4096, 2, 4, 4)).is_err());
        assert!(b.check(&classify_cost(64, 4, 8, 4)).is_ok());
        // A million tiles at 512² px.
        assert!(b.check(&atlas_cost(1_000_000, 512, 0)).is_err());
        assert!(b.check(&atlas_cost(64, 64, 100_000)).is_ok());
        // 9999 pairs of 4K frames at the largest search radius: work, not memory.
        let c = pop_metric_cost(2, 9999, 3840, 2160, 256);
        assert!(b.check(&c).unwrap_err().to_string().contains("--max-work"));
        assert!(b.check(&pop_metric_cost(20, 19, 640, 360, 12)).is_ok());
        assert!(b.check(&frames_cost("s", 10_000, 1e12, 2.5e11)).is_err());
    }
}

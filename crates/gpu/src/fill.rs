//! ε depression filling on the GPU (`shaders/fill.wgsl`): the depression handling of the
//! stream-power runs.
//!
//! [`bozkir_terrain::hydrology::priority_flood::fill_epsilon`] is the unique solution of
//! `W = Z` on the seeds (border cells and cells beside nodata) and
//! `W(c) = max(Z(c), next_up(min_n W(n)))` elsewhere. The GPU reaches the same solution by
//! relaxation from above: every non-seed cell starts "not reached", and passes of 32×32 tiles,
//! each relaxed in workgroup memory until it stops moving, lower the surface until a pass moves
//! nothing. The equation has one solution, so the result equals the CPU's bit for bit
//! (`tests/fill.rs`).
//!
//! Only the depressions' catchments start "not reached": a cell whose chain of lowest strictly
//! lower neighbours ends at a seed keeps its height (W = Z along any strictly descending path
//! from a seed), and the chains' ends come from pointer jumping (`⌈log₂ L⌉` rounds). The waves
//! then start at the depressions' rims and cross about one tile per pass, so the passes grow with
//! the widest catchment of a pit (and its windings), not with the grid; and a pass runs only the
//! tiles next to one that moved in the previous pass (the others' values are already in both
//! buffers). The passes run in submissions of up to 40 with an early exit on the
//! device, one read-back of the counters per submission.

use bozkir_core::Grid;

use crate::context::{dispatch, dispatch_groups, Gpu, GpuError, GridUniform};
use crate::flow::{jump_rounds, MAX_ROUNDS};

pub(crate) const SRC: &str = concat!(
    include_str!("../shaders/fill.wgsl"),
    include_str!("../shaders/exact.wgsl"),
    include_str!("../shaders/rounds.wgsl"),
    include_str!("../shaders/tile_skip.wgsl")
);
pub(crate) const NAME: &str = "fill.wgsl";
/// Tile side of `relax` (cells).
const TILE: usize = 32;

/// [`bozkir_terrain::hydrology::priority_flood::fill_epsilon`] on the GPU, bit for bit.
///
/// NaN cells are nodata, as on the CPU. Infinite heights are refused
/// ([`GpuError::Unsupported`]): the relaxation uses the largest finite `f64` as "not reached".
pub fn fill_epsilon(gpu: &Gpu, h: &Grid<f64>) -> Result<Grid<f64>, GpuError> {
    fill_epsilon_passes(gpu, h).map(|(g, _)| g)
}

/// [`fill_epsilon`] and the number of relaxation passes it ran (for the benchmark).
pub fn fill_epsilon_passes(gpu: &Gpu, h: &Grid<f64>) -> Result<(Grid<f64>, usize), GpuError> {
    let (w, ht) = (h.width(), h.height());
    if w == 0 || ht == 0 {
        return Ok((h.clone(), 0));
    }
    let (buf, passes) = fill_epsilon_buffer(gpu, h)?;
    let out = gpu.read::<f64>(&buf, w * ht)?;
    Ok((Grid::from_vec(w, ht, out).with_cell_size(h.dx, h.dy), passes))
}

/// The profiles' fixed-step fill of `h` on the GPU, bit for bit
/// ([`bozkir_terrain::profiles::fill_fixed_step`]: a cell not above its lowest neighbour `m`
/// becomes `m + step`, the others keep their height; the border keeps its height).
///
/// Refused ([`GpuError::Unsupported`]): a `step` that is not finite and positive, non-finite
/// heights, and heights so far from zero that `v + step` rounds back to `v` (the equation then
/// has more than one solution and the relaxation could stop at another).
pub fn fill_fixed_step(gpu: &Gpu, h: &Grid<f64>, step: f64) -> Result<Grid<f64>, GpuError> {
    let (w, ht) = (h.width(), h.height());
    if w == 0 || ht == 0 {
        return Ok(h.clone());
    }
    if !(step.is_finite() && step > 0.0) {
        return Err(GpuError::Unsupported(format!(
            "fixed-step fill: the step must be finite and positive, got {step}"
        )));
    }
    if let Some(i) = h.data().iter().position(|v| !v.is_finite()) {
        return Err(GpuError::Unsupported(format!(
            "fixed-step fill: non-finite height at ({}, {}); the fixed-step fill needs finite heights",
            i % w,
            i / w
        )));
    }
    // The filled surface stays below the highest height plus one step per cell; the step must
    // not vanish against anything up to twice that (ulp grows with magnitude, so one check does).
    let top = h.data().iter().fold(0.0f64, |a, v| a.max(v.abs())) + step * (w * ht) as f64;
    let top = 2.0 * top;
    if !(top.is_finite() && top + step > top) {
        return Err(GpuError::Unsupported(format!(
            "fixed-step fill: the step {step} vanishes against heights near {top:e}; the CPU's flood handles it"
        )));
    }
    let (buf, _) = fill_buffer(gpu, h, step)?;
    let out = gpu.read::<f64>(&buf, w * ht)?;
    Ok(Grid::from_vec(w, ht, out).with_cell_size(h.dx, h.dy))
}

/// The ε fill of `h` in a device buffer of `w·h` `f64` (usable as a storage buffer and as a copy
/// source), and the relaxation passes it ran; the GPU stream power starts from it.
pub(crate) fn fill_epsilon_buffer(gpu: &Gpu, h: &Grid<f64>) -> Result<(wgpu::Buffer, usize), GpuError> {
    fill_buffer(gpu, h, 0.0)
}

/// The relaxation behind both fills: `step` 0 is the ε fill, a positive `step` the fixed-step
/// rule (fill.wgsl).
fn fill_buffer(gpu: &Gpu, h: &Grid<f64>, step: f64) -> Result<(wgpu::Buffer, usize), GpuError> {
    let (w, ht) = (h.width(), h.height());
    gpu.check_grid_split(w, ht, 8)?;
    if let Some(i) = h.data().iter().position(|v| v.is_infinite()) {
        return Err(GpuError::Unsupported(format!(
            "fill: infinite height at ({}, {}); the GPU fill needs finite heights or NaN (nodata)",
            i % w,
            i / w
        )));
    }
    let n = (w * ht).max(1);
    let z = gpu.buffer("fill z", h.data());
    let bufs = [gpu.zeroed("fill w0", 8 * n as u64), gpu.zeroed("fill w1", 8 * n as u64)];
    let live = gpu.zeroed("fill live", 4 * MAX_ROUNDS as u64);
    let dims: Vec<wgpu::Buffer> = (0..MAX_ROUNDS)
        .map(|r| {
            gpu.uniform(
                "fill dims",
                &GridUniform { w: w as u32, h: ht as u32, n: (w * ht) as u32, k: r as u32, x: step, zero: 0.0 },
            )
        })
        .collect();
    let init = gpu.pipeline(NAME, SRC, "init")?;
    let jump = gpu.pipeline(NAME, SRC, "root_jump")?;
    let start = gpu.pipeline(NAME, SRC, "start")?;
    let relax = gpu.pipeline(NAME, SRC, "relax")?;
    // The start (one submission, no wait): chains of strictly lower neighbours jumped to their
    // ends; W = Z where they end at a seed, "not reached" where they end in a pit.
    let ptr = [gpu.zeroed("fill p0", 4 * n as u64), gpu.zeroed("fill p1", 4 * n as u64)];
    let mut enc = gpu.encoder();
    enc.clear_buffer(&live, 0, None);
    {
        let cells = (w * ht) as u64;
        let mut pass = enc.begin_compute_pass(&Default::default());
        dispatch(&mut pass, &init, &gpu.bind(&init, &[(0, &dims[0]), (1, &z), (6, &ptr[0])]), cells);
        // One round more than the jumping needs, so that the last live one is followed by one
        // that changes nothing.
        for (r, d) in dims.iter().enumerate().take(jump_rounds(w * ht) + 1) {
            let bg = gpu.bind(&jump, &[(0, d), (4, &live), (5, &ptr[r % 2]), (6, &ptr[1 - r % 2])]);
            dispatch(&mut pass, &jump, &bg, cells);
        }
        // The round that changed nothing copied its input: both pointer buffers hold the ends.
        dispatch(&mut pass, &start, &gpu.bind(&start, &[(0, &dims[0]), (1, &z), (3, &bufs[0]), (5, &ptr[0])]), cells);
    }
    gpu.queue.submit([enc.finish()]);
    // Pass j reads bufs[j % 2] and writes the other; a submission always holds an even number of
    // passes, so every submission starts from bufs[0].
    let groups = (w.div_ceil(TILE) as u32, ht.div_ceil(TILE) as u32);
    let pbase = gpu.zeroed("fill pass base", 4);
    let chg = gpu.zeroed("fill tile moved", 8 * groups.0 as u64 * groups.1 as u64);
    let bgs: Vec<wgpu::BindGroup> = (0..MAX_ROUNDS)
        .map(|j| {
            gpu.bind(
                &relax,
                &[(0, &dims[j]), (1, &z), (2, &bufs[j % 2]), (3, &bufs[1 - j % 2]), (4, &live), (7, &pbase), (8, &chg)],
            )
        })
        .collect();
    // Usually a few passes: the waves start at the depressions' rims.
    let first = 8;
    let mut passes = 0usize;
    loop {
        let k = if passes == 0 { first } else { MAX_ROUNDS };
        gpu.queue.write_buffer(&pbase, 0, bytemuck::bytes_of(&(passes as u32)));
        let mut enc = gpu.encoder();
        enc.clear_buffer(&live, 0, None);
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            for bg in &bgs[..k] {
                dispatch_groups(&mut pass, &relax, bg, groups);
            }
        }
        let moved = gpu.submit_read::<u32>(enc, &live, k)?;
        if let Some(j) = moved.iter().position(|&c| c == 0) {
            // The pass that moved nothing wrote its input unchanged: both buffers hold the fill.
            let [b0, _] = bufs;
            return Ok((b0, passes + j + 1));
        }
        passes += k;
        // Every pass that moves settles at least one more cell for good.
        if passes > w * ht + 2 {
            return Err(GpuError::Device("fill: the relaxation did not converge".into()));
        }
    }
}

//! Batch-synchronous droplet erosion on the GPU (`shaders/droplets.wgsl`).
//!
//! The semantics are those of [`bozkir_terrain::erosion::droplets`] in
//! [`DropletMode::Batched`]: batches of [`effective_batch`] droplets run against a frozen
//! snapshot, each contribution quantised to `2⁻²⁰ m` units, summed with `i32` atomics per batch
//! and folded into the run totals between batches. The kernel repeats the CPU's `f64`
//! arithmetic operation for operation (products rounded on their own, division and square root
//! corrected to the correctly rounded result), so the output — heights, wear, deposit and the
//! stats — is **bit-identical** to the CPU's for grids whose heights have no `−0.0`
//! (`tests/droplets.rs` checks the hashes).
//!
//! Limits (outside them the call returns [`GpuError::Unsupported`] and the caller runs the
//! CPU): a cell's wear or deposit within one batch below `2³⁰` units (1024 m; the run totals
//! are 64-bit, as the CPU's), a single erosion below `2³⁰` units, the sequential mode is CPU
//! only.

use bozkir_core::Grid;
use bozkir_terrain::erosion::droplets::{
    effective_batch, DropletMode, DropletOutput, DropletParams, DropletStats, FIXED_UNIT,
};

use rayon::prelude::*;

use crate::context::{dispatch, dispatch_groups, dispatch_indirect, Gpu, GpuError};

pub(crate) const SRC: &str = concat!(
    include_str!("../shaders/droplets.wgsl"),
    include_str!("../shaders/exact.wgsl"),
    include_str!("../shaders/hash.wgsl")
);
pub(crate) const NAME: &str = "droplets.wgsl";
/// Batches recorded per submission.
const BATCHES_PER_SUBMIT: u32 = 256;

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    f: [f64; 18],
    w: u32,
    h: u32,
    n: u32,
    seed: u32,
    lifetime: u32,
    total: u32,
    batch: u32,
    nbrush: u32,
    rx: i32,
    ry: i32,
    cap: u32,
    dense: u32,
}

/// The brush of the CPU's `Ctx::new`: offsets and normalised weights, the centre last.
pub(crate) fn brush(dx: f64, dy: f64, radius: f64) -> (Vec<[i32; 2]>, Vec<f64>, i32, i32) {
    let step = dx.min(dy);
    let rx = (radius * step / dx).ceil() as i32;
    let ry = (radius * step / dy).ceil() as i32;
    let (mut off, mut wt) = (Vec::new(), Vec::new());
    for oy in -ry..=ry {
        for ox in -rx..=rx {
            if ox == 0 && oy == 0 {
                continue;
            }
            let d = ((ox as f64 * dx).powi(2) + (oy as f64 * dy).powi(2)).sqrt() / step;
            if d < radius {
                off.push([ox, oy]);
                wt.push(radius - d);
            }
        }
    }
    off.push([0, 0]);
    wt.push(radius);
    let total: f64 = wt.iter().sum();
    for v in &mut wt {
        *v /= total;
    }
    (off, wt, rx, ry)
}

/// Cells per droplet of a batch up to which [`Fold::Auto`] folds densely. Listing costs an
/// atomic on one shared counter per first touch of a cell; a dense fold reads every cell's two
/// batch sums (8 bytes). On the H200 the dense fold was the faster in every case measured
/// (`docs/benchmarks.md`), up to 65 536 cells per droplet (8192², batch 1024).
pub const DENSE_CELLS_PER_DROPLET: u64 = 65_536;

/// How the batch sums are folded into the run totals (the output is the same either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fold {
    /// Dense unless the grid has over [`DENSE_CELLS_PER_DROPLET`] cells per droplet of a batch.
    Auto,
    /// Each droplet lists the cells it touches first in a batch (an extra atomic per
    /// contribution); the fold visits the list.
    Listed,
    /// No list; the fold visits every cell (a pass over the grid per batch).
    Dense,
}

/// [`bozkir_terrain::erosion::droplets::erode_droplets`] on the GPU, bit-identical to it.
///
/// # Panics
/// When `params.validate()` fails (as the CPU function).
pub fn erode_droplets(gpu: &Gpu, initial: &Grid<f64>, params: &DropletParams) -> Result<DropletOutput, GpuError> {
    erode_droplets_with(gpu, initial, params, Fold::Auto)
}

/// [`erode_droplets`] with the fold chosen (for the benchmark and the tests).
///
/// # Panics
/// When `params.validate()` fails (as the CPU function).
pub fn erode_droplets_with(
    gpu: &Gpu,
    initial: &Grid<f64>,
    params: &DropletParams,
    fold: Fold,
) -> Result<DropletOutput, GpuError> {
    match prepare(gpu, initial, params, fold)? {
        None => Ok(bozkir_terrain::erosion::droplets::erode_droplets(initial, params, &bozkir_core::NoProgress)),
        Some(prep) => {
            let mut run = GpuDroplets::with(gpu, initial, prep)?;
            run.run()?;
            run.output()
        }
    }
}

/// The float part of the kernel's uniform (`Params` in droplets.wgsl, `keep` … `pad0`).
pub(crate) fn param_floats(params: &DropletParams, w: usize, h: usize, dx: f64, dy: f64) -> [f64; 18] {
    let step = dx.min(dy);
    [
        params.inertia,
        1.0 - params.inertia,
        params.capacity,
        params.min_slope * step,
        params.erode,
        params.deposit,
        1.0 - params.evaporation,
        params.gravity,
        params.initial_water,
        params.initial_speed,
        step,
        step / dx,
        step / dy,
        dx,
        dy,
        (w - 1) as f64,
        (h - 1) as f64,
        0.0,
    ]
}

/// What a run uploads besides the heights.
struct Prepared {
    p: Params,
    total: u32,
    batch: u32,
    off: Vec<[i32; 2]>,
    wt: Vec<f64>,
}

/// Checks a run and builds its uniform and brush; `None` for a grid under 2×2 or no droplets
/// (the CPU function's trivial cases).
fn prepare(gpu: &Gpu, initial: &Grid<f64>, params: &DropletParams, fold: Fold) -> Result<Option<Prepared>, GpuError> {
    if let Err(e) = params.validate() {
        panic!("{e}");
    }
    if params.mode == DropletMode::Sequential {
        return Err(GpuError::Unsupported(
            "sequential droplets (one droplet after another) run on the CPU only".into(),
        ));
    }
    if params.sea_level.is_some() {
        return Err(GpuError::Unsupported("droplets with a sea level run on the CPU only".into()));
    }
    let (w, h) = (initial.width(), initial.height());
    let n = w * h;
    let total = params.droplet_count(w, h);
    if w < 2 || h < 2 || total == 0 {
        return Ok(None);
    }
    gpu.check_grid(w, h, 8)?;
    let (dx, dy) = (initial.dx, initial.dy);
    let (off, wt, rx, ry) = brush(dx, dy, params.radius);
    let batch = effective_batch(params.batch_size, n);
    let cap = ((batch as u64) * params.lifetime as u64 * (wt.len().max(4) as u64)).min(n as u64).max(1);
    let p = Params {
        f: param_floats(params, w, h, dx, dy),
        w: w as u32,
        h: h as u32,
        n: n as u32,
        seed: params.seed,
        lifetime: params.lifetime,
        total,
        batch,
        nbrush: wt.len() as u32,
        rx,
        ry,
        cap: cap as u32,
        dense: match fold {
            Fold::Auto => (n as u64) <= batch as u64 * DENSE_CELLS_PER_DROPLET,
            Fold::Listed => false,
            Fold::Dense => true,
        } as u32,
    };
    Ok(Some(Prepared { p, total, batch, off, wt }))
}

/// A droplet run whose terrain stays on the device: [`GpuDroplets::new`] uploads it,
/// [`GpuDroplets::run_batches`] / [`GpuDroplets::run`] record the batches with no read-back,
/// [`GpuDroplets::output`] reads the result (heights, wear, deposit, stats). This is what the
/// benchmark times apart: the kernels with the state resident, and the uploads and read-backs.
pub struct GpuDroplets<'g> {
    gpu: &'g Gpu,
    w: usize,
    h: usize,
    dx: f64,
    dy: f64,
    total: u32,
    batch: u32,
    batches_done: u32,
    pipes: [std::sync::Arc<wgpu::ComputePipeline>; 3],
    /// Bind groups of `drop`, `next_batch`, `fold`.
    bgs: [wgpu::BindGroup; 3],
    args: wgpu::Buffer,
    st: wgpu::Buffer,
    hc: wgpu::Buffer,
    totw: wgpu::Buffer,
    totd: wgpu::Buffer,
}

impl<'g> GpuDroplets<'g> {
    /// Uploads `initial` and prepares the run of `params` (checks as [`erode_droplets_with`];
    /// a grid under 2×2 or a run of no droplets is `Unsupported`: the CPU function handles it).
    ///
    /// # Panics
    /// When `params.validate()` fails (as the CPU function).
    pub fn new(gpu: &'g Gpu, initial: &Grid<f64>, params: &DropletParams, fold: Fold) -> Result<Self, GpuError> {
        let prep = prepare(gpu, initial, params, fold)?
            .ok_or_else(|| GpuError::Unsupported("droplets: a grid under 2×2 or no droplets".into()))?;
        Self::with(gpu, initial, prep)
    }

    fn with(gpu: &'g Gpu, initial: &Grid<f64>, prep: Prepared) -> Result<Self, GpuError> {
        let Prepared { p, total, batch, off, wt } = prep;
        let n = p.n as u64;
        let ub = gpu.uniform("droplet params", &p);
        let h0 = gpu.buffer("h0", initial.data());
        let hc = gpu.buffer("hc", initial.data());
        let bacc = gpu.zeroed("bacc", 8 * n);
        let epoch = gpu.zeroed("epoch", 4 * n);
        let list = gpu.zeroed("list", 4 * p.cap as u64);
        let mut st0 = [0u32; 16];
        st0[1] = 1;
        let st = gpu.buffer("state", &st0);
        let bwb = gpu.buffer("brush w", &wt);
        let bob = gpu.buffer("brush o", &off);
        let totw = gpu.zeroed("wear totals", 8 * n);
        let totd = gpu.zeroed("deposit totals", 8 * n);
        let args = gpu.indirect("fold args", 16);
        let drop = gpu.pipeline(NAME, SRC, "drop")?;
        let next = gpu.pipeline(NAME, SRC, "next_batch")?;
        let fold = gpu.pipeline(NAME, SRC, "fold")?;
        let bgs = [
            gpu.bind(&drop, &[(0, &ub), (2, &hc), (3, &bacc), (4, &epoch), (5, &list), (6, &st), (7, &bwb), (8, &bob)]),
            gpu.bind(&next, &[(0, &ub), (6, &st), (10, &args)]),
            gpu.bind(&fold, &[(0, &ub), (1, &h0), (2, &hc), (3, &bacc), (5, &list), (6, &st), (9, &totw), (11, &totd)]),
        ];
        gpu.take_errors()?;
        Ok(Self {
            gpu,
            w: initial.width(),
            h: initial.height(),
            dx: initial.dx,
            dy: initial.dy,
            total,
            batch,
            batches_done: 0,
            pipes: [drop, next, fold],
            bgs,
            args,
            st,
            hc,
            totw,
            totd,
        })
    }

    /// Batches in the whole run.
    pub fn batches(&self) -> u32 {
        self.total.div_ceil(self.batch)
    }

    /// Batches run so far.
    pub fn batches_done(&self) -> u32 {
        self.batches_done
    }

    /// Runs up to `max` of the remaining batches (one submission, waited for); returns the
    /// number run (0 once the run is complete).
    pub fn run_batches(&mut self, max: u32) -> Result<u32, GpuError> {
        let k = max.min(self.batches() - self.batches_done);
        if k == 0 {
            return Ok(0);
        }
        let mut enc = self.gpu.encoder();
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            for _ in 0..k {
                dispatch(&mut pass, &self.pipes[0], &self.bgs[0], self.batch as u64);
                dispatch_groups(&mut pass, &self.pipes[1], &self.bgs[1], (1, 1));
                dispatch_indirect(&mut pass, &self.pipes[2], &self.bgs[2], &self.args);
            }
        }
        self.gpu.submit_wait(enc)?;
        self.batches_done += k;
        Ok(k)
    }

    /// Runs every remaining batch.
    pub fn run(&mut self) -> Result<(), GpuError> {
        while self.run_batches(BATCHES_PER_SUBMIT)? > 0 {}
        Ok(())
    }

    /// Reads the result back (of the batches run so far; the stats count their droplets).
    pub fn output(&self) -> Result<DropletOutput, GpuError> {
        let (gpu, n) = (self.gpu, self.w * self.h);
        let stv: Vec<u32> = gpu.read(&self.st, 16)?;
        if stv[12] & 1 != 0 {
            return Err(GpuError::Unsupported(
                "droplets: a cell's wear or deposit within one batch passed 1024 m (the i32 fixed-point range of \
                 the GPU path's batch sums)"
                    .into(),
            ));
        }
        if stv[12] & 2 != 0 {
            return Err(GpuError::Device("droplets: touched-cell list overflowed (internal error)".into()));
        }
        let height = gpu.read::<f64>(&self.hc, n)?;
        let wear = gpu.read::<i64>(&self.totw, n)?;
        let deposit = gpu.read::<i64>(&self.totd, n)?;
        let u64_at = |i: usize| stv[i] as u64 | (stv[i + 1] as u64) << 32;
        let (eroded, deposited, lost) = (u64_at(6) as i64, u64_at(8) as i64, u64_at(10) as i64);
        let stats = DropletStats {
            droplets: (self.batches_done as u64 * self.batch as u64).min(self.total as u64),
            steps_total: u64_at(4),
            eroded_total: eroded as f64 * FIXED_UNIT,
            deposited_total: deposited as f64 * FIXED_UNIT,
            carried_lost: lost as f64 * FIXED_UNIT,
            eroded_units: eroded,
            deposited_units: deposited,
            lost_units: lost,
        };
        let grid = |v: Vec<f64>| Grid::from_vec(self.w, self.h, v).with_cell_size(self.dx, self.dy);
        Ok(DropletOutput {
            height: grid(height),
            wear: grid(wear.par_iter().map(|&q| q as f64 * FIXED_UNIT).collect()),
            deposit: grid(deposit.par_iter().map(|&q| q as f64 * FIXED_UNIT).collect()),
            stats,
        })
    }
}

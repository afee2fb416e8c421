//! D8 receivers and drainage accumulation on the GPU (`shaders/flow.wgsl`).
//!
//! Receivers are a pure per-cell function of the heights and match
//! [`bozkir_terrain::hydrology::flow_graph::d8_receivers`] exactly (same slopes `(h_i − h_j)·(1/d)`
//! in `f64`, same tie-break). Accumulation is *iterated pointer jumping of partial sums*
//! (the FastFlow formulation, Jain et al. 2024): with `P_k(i)` the ancestor of `i` at distance
//! exactly `2^k` along the receivers and `S_k(i)` the number of cells at distance `< 2^k`
//! upstream of `i`,
//!
//! ```text
//! S_{k+1}(i) = S_k(i) + Σ_{m : P_k(m) = i} S_k(m),      P_{k+1}(m) = P_k(P_k(m)),
//! ```
//!
//! so `⌈log₂ L⌉` rounds (`L` the longest flow path) give the upstream cell counts, each round one
//! scatter with integer atomics. Integer sums are exact in any order: the counts equal
//! [`bozkir_terrain::hydrology::flow_graph::accumulate_cells`] bit for bit.

use bozkir_core::Grid;
use bozkir_terrain::kernels::D8Drainage;

use crate::context::{dispatch, dispatch_groups, dispatch_indirect, Gpu, GpuError};

pub(crate) const SRC: &str = concat!(
    include_str!("../shaders/flow.wgsl"),
    include_str!("../shaders/rounds.wgsl"),
    include_str!("../shaders/roots.wgsl")
);
pub(crate) const NAME: &str = "flow.wgsl";
/// Each cell's outlet by pointer jumping ([`d8_drainage`]).
pub(crate) const OUTLETS_SRC: &str = include_str!("../shaders/outlets.wgsl");
pub(crate) const OUTLETS_NAME: &str = "outlets.wgsl";
/// Rounds at most (`2^40` exceeds any grid's path length); `rounds.wgsl` reads this many
/// counters.
pub(crate) const MAX_ROUNDS: usize = 40;

/// The pointer-jumping rounds recorded for `n` cells: a path has fewer than `n` edges, and after
/// round `r` the pointers span `2^(r+1)` edges, so `⌊log₂ n⌋ + 1` rounds finish every pointer;
/// one more for margin (the surplus rounds return at once on the device).
pub(crate) fn jump_rounds(n: usize) -> usize {
    ((usize::BITS - n.leading_zeros()) as usize + 1).min(MAX_ROUNDS)
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct Dims {
    pub w: u32,
    pub h: u32,
    pub n: u32,
    pub round: u32,
}

/// Receivers and receiver distances of a D8 graph computed on the GPU (no stack: the GPU
/// passes never need one).
#[derive(Debug, Clone, PartialEq)]
pub struct GpuFlowGraph {
    pub width: usize,
    pub height: usize,
    pub receivers: Vec<u32>,
    pub dist: Vec<f64>,
}

/// The table `[1/d_k (8), d_k (8)]` of the D8 distances in the neighbour order of the CPU router.
pub(crate) fn d8_table(dx: f64, dy: f64) -> Vec<f64> {
    let dd = (dx * dx + dy * dy).sqrt();
    let d = [dd, dy, dd, dx, dx, dd, dy, dd];
    let mut t: Vec<f64> = d.iter().map(|v| 1.0 / v).collect();
    t.extend_from_slice(&d);
    t
}

/// GPU buffers of one routing: receivers, distances and the accumulated cell counts.
pub(crate) struct Routing {
    pub rcv: wgpu::Buffer,
    pub dist: wgpu::Buffer,
    pub count: wgpu::Buffer,
    /// Scratch of the pointer jumping: the other count buffer and two pointer buffers.
    count2: wgpu::Buffer,
    p0: wgpu::Buffer,
    p1: wgpu::Buffer,
    /// Each root's slot in the list of roots, by cell (the accumulation's, then the sediment's).
    pub slot: wgpu::Buffer,
    /// The accumulation rounds' first addition buffer (`acc_jump`; the second is `count`,
    /// free once `acc_link` has packed the in-tile counts).
    z0: wgpu::Buffer,
    live: wgpu::Buffer,
    /// The two-level accumulation: each cell's in-tile root, the list of in-tile roots, its
    /// length, and the indirect dispatch size of a pass over it (scratch, also used by the
    /// stream power's two-level jumps once the counts are made).
    pub xr: wgpu::Buffer,
    pub roots: wgpu::Buffer,
    pub nroots: wgpu::Buffer,
    pub ind: wgpu::Buffer,
    tab: wgpu::Buffer,
    dims: Vec<wgpu::Buffer>,
    /// The module's name and source: `flow.wgsl` (f64 heights) or its browser variant (f32).
    module: (&'static str, &'static str),
    w: usize,
    h: usize,
    n: usize,
    /// The accumulation's bind groups, built on first use.
    bgs: std::sync::OnceLock<AccBinds>,
}

/// Bind groups of the accumulation: the two tile passes, the list's dispatch size and links,
/// the (copy, jump) pair of every round, and the final copy.
struct AccBinds {
    local: wgpu::BindGroup,
    args: wgpu::BindGroup,
    link: wgpu::BindGroup,
    rounds: Vec<wgpu::BindGroup>,
    last: wgpu::BindGroup,
    fin: wgpu::BindGroup,
}

/// The accumulation's pipelines, in the order they run.
const ACC: [&str; 6] = ["acc_tile_local", "roots_args", "acc_link", "acc_jump", "acc_final", "acc_tile_final"];

impl Routing {
    pub fn new(gpu: &Gpu, w: usize, h: usize, dx: f64, dy: f64) -> Self {
        let tab = gpu.buffer("d8tab", &d8_table(dx, dy));
        Self::with_module(gpu, w, h, tab, (NAME, SRC))
    }

    /// The routing of the browser's `f32` module (heights, table and distances in `f32`).
    pub fn new_f32(gpu: &Gpu, w: usize, h: usize, dx: f64, dy: f64) -> Self {
        let tab: Vec<f32> = d8_table(dx, dy).iter().map(|&v| v as f32).collect();
        let tab = gpu.buffer("d8tab f32", &tab);
        Self::with_module(gpu, w, h, tab, ("flow.f32.wgsl", crate::browser::flow_wgsl_f32()))
    }

    fn with_module(gpu: &Gpu, w: usize, h: usize, tab: wgpu::Buffer, module: (&'static str, &'static str)) -> Self {
        let n = w * h;
        let dims = (0..MAX_ROUNDS)
            .map(|r| gpu.uniform("dims", &Dims { w: w as u32, h: h as u32, n: n as u32, round: r as u32 }))
            .collect();
        Self {
            rcv: gpu.zeroed("rcv", 4 * n as u64),
            dist: gpu.zeroed("dist", 8 * n as u64),
            count: gpu.zeroed("count", 4 * n as u64),
            count2: gpu.zeroed("count2", 4 * n as u64),
            p0: gpu.zeroed("p0", 4 * n as u64),
            p1: gpu.zeroed("p1", 4 * n as u64),
            slot: gpu.zeroed("root slots", 4 * n as u64),
            z0: gpu.zeroed("additions", 4 * n as u64),
            live: gpu.zeroed("live", 4 * MAX_ROUNDS as u64),
            xr: gpu.zeroed("in-tile roots", 4 * n as u64),
            roots: gpu.zeroed("root list", 4 * n as u64),
            nroots: gpu.zeroed("root count", 4),
            ind: gpu.indirect("root dispatch", 16),
            tab,
            dims,
            module,
            w,
            h,
            n,
            bgs: std::sync::OnceLock::new(),
        }
    }

    fn acc_binds(&self, gpu: &Gpu, pl: &[std::sync::Arc<wgpu::ComputePipeline>]) -> &AccBinds {
        self.bgs.get_or_init(|| {
            let (list, len, slot) = ((11, &self.roots), (12, &self.nroots), (14, &self.slot));
            let d0 = (0, &self.dims[0]);
            // By slot, in place in `count2`: round r adds into z[r mod 2] and folds in (and
            // clears) z[1 − r mod 2], not read at round 0; the pointers from `p0` (r even) or
            // `p1`.
            let (count, count2) = (&self.count, &self.count2);
            let z = [&self.z0, count];
            let rounds = (0..jump_rounds(self.n))
                .map(|r| {
                    let (a, b) = (r % 2, 1 - r % 2);
                    let (p, q) = if a == 0 { (&self.p0, &self.p1) } else { (&self.p1, &self.p0) };
                    let d = (0, &self.dims[r]);
                    gpu.bind(&pl[3], &[d, (6, z[a]), (7, p), (8, q), (9, &self.live), len, (15, count2), (16, z[b])])
                })
                .collect();
            AccBinds {
                local: gpu.bind(&pl[0], &[d0, (3, &self.rcv), (6, count), (10, &self.xr), list, len, slot]),
                args: gpu.bind(&pl[1], &[len, (13, &self.ind)]),
                link: gpu.bind(
                    &pl[2],
                    &[
                        (3, &self.rcv),
                        (5, count),
                        (8, &self.p0),
                        (10, &self.xr),
                        list,
                        len,
                        slot,
                        (15, count2),
                        (17, z[0]),
                    ],
                ),
                rounds,
                last: gpu.bind(&pl[4], &[(9, &self.live), len, (15, count2), (16, z[0]), (17, z[1])]),
                fin: gpu.bind(&pl[5], &[d0, (3, &self.rcv), (5, count2), (6, count), slot]),
            }
        })
    }

    /// Receivers and distances of the heights in `z`.
    pub fn route(&self, gpu: &Gpu, z: &wgpu::Buffer) -> Result<(), GpuError> {
        let pl = gpu.pipeline(self.module.0, self.module.1, "d8")?;
        let bg = gpu.bind(&pl, &[(0, &self.dims[0]), (1, z), (2, &self.tab), (3, &self.rcv), (4, &self.dist)]);
        let mut enc = gpu.encoder();
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            dispatch(&mut pass, &pl, &bg, self.n as u64);
        }
        gpu.queue.submit([enc.finish()]);
        Ok(())
    }

    /// Upstream cell counts of the receivers in `self.rcv` into `self.count`: in-tile sums, the
    /// roots' forest jumped over a list of the roots, in-tile sums again (see `flow.wgsl`).
    pub fn accumulate(&self, gpu: &Gpu) -> Result<(), GpuError> {
        let (name, src) = self.module;
        let pl = ACC.iter().map(|e| gpu.pipeline(name, src, e)).collect::<Result<Vec<_>, _>>()?;
        let b = self.acc_binds(gpu, &pl);
        let tiles = (self.w.div_ceil(32) as u32, self.h.div_ceil(32) as u32);
        let mut enc = gpu.encoder();
        enc.clear_buffer(&self.live, 0, None);
        enc.clear_buffer(&self.nroots, 0, None);
        {
            // One submission, no host wait: the passes over the roots are sized on the device
            // (indirect), and the rounds after the one in which the last pointer died return at
            // once.
            let mut pass = enc.begin_compute_pass(&Default::default());
            let ind = &self.ind;
            dispatch_groups(&mut pass, &pl[0], &b.local, tiles);
            dispatch_groups(&mut pass, &pl[1], &b.args, (1, 1));
            dispatch_indirect(&mut pass, &pl[2], &b.link, ind);
            for bj in &b.rounds {
                dispatch_indirect(&mut pass, &pl[3], bj, ind);
            }
            dispatch_indirect(&mut pass, &pl[4], &b.last, ind);
            dispatch_groups(&mut pass, &pl[5], &b.fin, tiles);
        }
        gpu.queue.submit([enc.finish()]);
        Ok(())
    }
}

/// D8 receivers and distances of `h` on the GPU; equal to the CPU router's.
pub fn d8_receivers(gpu: &Gpu, h: &Grid<f64>) -> Result<GpuFlowGraph, GpuError> {
    let (w, ht) = (h.width(), h.height());
    gpu.check_grid_split(w, ht, 8)?;
    let rt = Routing::new(gpu, w, ht, h.dx, h.dy);
    let z = gpu.buffer("z", h.data());
    rt.route(gpu, &z)?;
    let receivers = gpu.read::<u32>(&rt.rcv, w * ht)?;
    let dist = gpu.read::<f64>(&rt.dist, w * ht)?;
    Ok(GpuFlowGraph { width: w, height: ht, receivers, dist })
}

/// Upstream cell counts (itself included) of the D8 graph of `h`: equal to
/// `accumulate_cells(&d8_receivers(h))` on the CPU.
pub fn accumulate_cells(gpu: &Gpu, h: &Grid<f64>) -> Result<Vec<u32>, GpuError> {
    let (w, ht) = (h.width(), h.height());
    gpu.check_grid_split(w, ht, 8)?;
    let rt = Routing::new(gpu, w, ht, h.dx, h.dy);
    let z = gpu.buffer("z", h.data());
    rt.route(gpu, &z)?;
    rt.accumulate(gpu)?;
    gpu.read::<u32>(&rt.count, w * ht)
}

/// The analysis's D8 drainage of `h` on the GPU: receivers with the cells of `outlets` made
/// outlets (each its own receiver), upstream cell counts and each cell's outlet; equal to the
/// CPU's `d8_receivers` (with the same outlets set), `accumulate_cells` and `outlet_of`: all
/// integers, the routing a pure function of the heights. `NaN` heights must be among `outlets`
/// (the CPU leaves them their own receivers; WGSL need not keep `NaN`'s comparisons).
pub fn d8_drainage(gpu: &Gpu, h: &Grid<f64>, outlets: Option<&[bool]>) -> Result<D8Drainage, GpuError> {
    use rayon::prelude::*;
    let (w, ht) = (h.width(), h.height());
    let n = w * ht;
    if let Some(o) = outlets {
        assert_eq!(o.len(), n, "d8_drainage: outlets length");
    }
    if n == 0 {
        return Ok(D8Drainage { receivers: Vec::new(), acc: Vec::new(), outlet: Vec::new() });
    }
    gpu.check_grid_split(w, ht, 8)?;
    let mut rt = Routing::new(gpu, w, ht, h.dx, h.dy);
    {
        let z = gpu.buffer("z", h.data());
        rt.route(gpu, &z)?;
    }
    let mut receivers = gpu.read::<u32>(&rt.rcv, n)?;
    if let Some(o) = outlets {
        let changed: usize = receivers
            .par_iter_mut()
            .zip(o.par_iter())
            .enumerate()
            .map(|(i, (r, &out))| {
                let c = out && *r as usize != i;
                if c {
                    *r = i as u32;
                }
                c as usize
            })
            .sum();
        if changed > 0 {
            rt.rcv = gpu.buffer("rcv", &receivers);
        }
    }
    rt.accumulate(gpu)?;
    // Outlets: the pointers jumped from the receivers, ping-pong between the routing's two
    // pointer buffers (free once the accumulation is done).
    let pl = gpu.pipeline(OUTLETS_NAME, OUTLETS_SRC, "outlet_jump")?;
    let rounds = jump_rounds(n);
    let mut enc = gpu.encoder();
    enc.copy_buffer_to_buffer(&rt.rcv, 0, &rt.p0, 0, 4 * n as u64);
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        for r in 0..rounds {
            let (p, q) = if r % 2 == 0 { (&rt.p0, &rt.p1) } else { (&rt.p1, &rt.p0) };
            let bg = gpu.bind(&pl, &[(0, &rt.dims[0]), (1, p), (2, q)]);
            dispatch(&mut pass, &pl, &bg, n as u64);
        }
    }
    gpu.queue.submit([enc.finish()]);
    let acc = gpu.read::<u32>(&rt.count, n)?;
    let last = if rounds.is_multiple_of(2) { &rt.p0 } else { &rt.p1 };
    let outlet = gpu.read::<u32>(last, n)?;
    Ok(D8Drainage { receivers, acc, outlet })
}

/// Upstream cell counts of an arbitrary receiver forest (`receivers[i] == i` for roots), e.g. a
/// CPU [`bozkir_terrain::hydrology::flow_graph::FlowGraph`]'s.
pub fn accumulate_receivers(gpu: &Gpu, w: usize, h: usize, receivers: &[u32]) -> Result<Vec<u32>, GpuError> {
    assert_eq!(receivers.len(), w * h, "accumulate_receivers: length");
    gpu.check_grid_split(w, h, 8)?;
    let mut rt = Routing::new(gpu, w, h, 1.0, 1.0);
    rt.rcv = gpu.buffer("rcv", receivers);
    rt.accumulate(gpu)?;
    gpu.read::<u32>(&rt.count, w * h)
}

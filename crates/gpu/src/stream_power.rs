//! The implicit `n = 1` stream-power step on the GPU (`shaders/stream_power.wgsl`).
//!
//! Same model, parameters and output as [`bozkir_terrain::erosion::stream_power`]: routing
//! (GPU D8 receivers, exact, and drainage counts by pointer jumping, exact), uplift, implicit
//! incision, the sediment proxy, optional diffusion and the limiter, every step on the device.
//! The passes the CPU runs sequentially along the stack become pointer jumping:
//!
//! * incision: `h_i' = G_i·h_i + (1 − G_i)·h_r'` is affine in the receiver's new height; the maps
//!   are composed along the receivers in `⌈log₂ L⌉` rounds, then the CPU's clamps are applied
//!   (never above the uplifted height; strictly above the receiver, repeated until stable);
//! * the sediment proxy: weighted upstream sums by pointer jumping with path products of the
//!   pass-on factors `1 − settle`, summed in 64-bit fixed point (`2⁻⁴⁴ m`).
//!
//! Depressions are removed once at the start, as on the CPU, with the CPU's ε priority flood
//! (`priority_flood::fill_epsilon`, O(n log n)); no step creates a pit (see the CPU module's
//! proof, which the clamps preserve). The heights differ from the CPU's by round-off of the
//! other association (`tests/stream_power.rs` states the tolerance); the receivers and the
//! drainage counts of a given surface are exact.

use bozkir_core::Grid;
use bozkir_terrain::erosion::stream_power::{StreamPowerOutput, StreamPowerParams};
use bozkir_terrain::hydrology::priority_flood;

use crate::context::{dispatch, Gpu, GpuError};
use crate::flow::{Routing, MAX_ROUNDS};

const SRC: &str = include_str!("../shaders/stream_power.wgsl");
const NAME: &str = "stream_power.wgsl";
const PER_CHECK: usize = 4;

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Sp {
    w: u32,
    h: u32,
    n: u32,
    round: u32,
    use_map: u32,
    use_sqrt: u32,
    pad0: u32,
    pad1: u32,
    kdt: f64,
    udt: f64,
    cell: f64,
    cap: f64,
    m: f64,
    tx: f64,
    ty: f64,
    pad: f64,
}

/// [`bozkir_terrain::erosion::stream_power::stream_power`] on the GPU.
///
/// # Panics
/// If an uplift map does not have the shape of `initial` (as the CPU function).
pub fn stream_power(gpu: &Gpu, initial: &Grid<f64>, params: &StreamPowerParams) -> Result<StreamPowerOutput, GpuError> {
    let mut e = GpuStreamPower::new(gpu, initial, params)?;
    for _ in 0..params.steps {
        e.step()?;
    }
    e.output()
}

/// Step-by-step GPU stream power (the state stays on the device between steps).
pub struct GpuStreamPower<'g> {
    gpu: &'g Gpu,
    w: usize,
    ht: usize,
    dx: f64,
    dy: f64,
    p: StreamPowerParams,
    rt: Routing,
    hh: wgpu::Buffer,
    h2: wgpu::Buffer,
    before: wgpu::Buffer,
    umap: wgpu::Buffer,
    ab: [wgpu::Buffer; 2],
    bb: [wgpu::Buffer; 2],
    pp: [wgpu::Buffer; 2],
    ss: [wgpu::Buffer; 2],
    ff: [wgpu::Buffer; 2],
    live: wgpu::Buffer,
    eroded: wgpu::Buffer,
    sediment: wgpu::Buffer,
    settle: wgpu::Buffer,
    sp: Vec<wgpu::Buffer>,
    steps_run: usize,
    /// Submissions of Jacobi passes (refine and lift) recorded so far, for the benchmark.
    submissions: std::cell::Cell<usize>,
}

impl<'g> GpuStreamPower<'g> {
    /// Fills `initial` once (ε priority flood, on the CPU) and uploads the state.
    pub fn new(gpu: &'g Gpu, initial: &Grid<f64>, params: &StreamPowerParams) -> Result<Self, GpuError> {
        let (w, ht) = (initial.width(), initial.height());
        params.check_uplift_shape(w, ht);
        gpu.check_grid(w, ht, 8)?;
        let n = (w * ht).max(1);
        let filled = priority_flood::fill_epsilon(initial);
        let (dx, dy) = (initial.dx, initial.dy);
        let (tx, ty) = if params.kappa > 0.0 {
            let c = params.kappa * params.dt * (1.0 / (dx * dx) + 1.0 / (dy * dy));
            let sub = (2.0 * c).ceil().max(1.0);
            (params.kappa * params.dt / sub / (dx * dx), params.kappa * params.dt / sub / (dy * dy))
        } else {
            (0.0, 0.0)
        };
        let sp = (0..MAX_ROUNDS)
            .map(|r| {
                gpu.uniform(
                    "sp",
                    &Sp {
                        w: w as u32,
                        h: ht as u32,
                        n: (w * ht) as u32,
                        round: r as u32,
                        use_map: params.uplift_map.is_some() as u32,
                        use_sqrt: (params.m == 0.5) as u32,
                        pad0: 0,
                        pad1: 0,
                        kdt: params.k * params.dt,
                        udt: params.uplift * params.dt,
                        cell: dx * dy,
                        cap: params.area_cap.unwrap_or(f64::MAX),
                        m: params.m,
                        tx,
                        ty,
                        pad: 0.0,
                    },
                )
            })
            .collect();
        let z = |l: &str, b: u64| gpu.zeroed(l, b * n as u64);
        Ok(Self {
            gpu,
            w,
            ht,
            dx,
            dy,
            p: params.clone(),
            rt: Routing::new(gpu, w, ht, dx, dy),
            hh: gpu.buffer("h", filled.data()),
            h2: z("h2", 8),
            before: z("before", 8),
            umap: match &params.uplift_map {
                Some(u) => gpu.buffer("uplift map", u.data()),
                None => z("no map", 0),
            },
            ab: [z("a0", 8), z("a1", 8)],
            bb: [z("b0", 8), z("b1", 8)],
            pp: [z("p0", 4), z("p1", 4)],
            ss: [z("s0", 8), z("s1", 8)],
            ff: [z("f0", 8), z("f1", 8)],
            live: gpu.zeroed("live", 4 * MAX_ROUNDS as u64),
            eroded: z("eroded", 8),
            sediment: z("sediment", 8),
            settle: z("settle", 8),
            sp,
            steps_run: 0,
            submissions: std::cell::Cell::new(0),
        })
    }

    /// Records rounds `PER_CHECK` at a time until the live counter of the last is 0.
    fn rounds(&self, mut record: impl FnMut(&mut wgpu::ComputePass<'_>, usize)) -> Result<(), GpuError> {
        let gpu = self.gpu;
        let mut round = 0;
        loop {
            let mut enc = gpu.encoder();
            if round == 0 {
                enc.clear_buffer(&self.live, 0, None);
            }
            {
                let mut pass = enc.begin_compute_pass(&Default::default());
                for r in round..round + PER_CHECK {
                    record(&mut pass, r);
                }
            }
            gpu.submit_wait(enc)?;
            round += PER_CHECK;
            let live: Vec<u32> = gpu.read(&self.live, MAX_ROUNDS)?;
            if live[round - 1] == 0 {
                return Ok(());
            }
            if round + PER_CHECK > MAX_ROUNDS {
                return Err(GpuError::Device("stream power: pointer jumping did not converge".into()));
            }
        }
    }

    /// Records pairs of Jacobi passes of `pl` (`hh → h2 → hh`), pair `j` counting the cells it
    /// still moves into `live[j]` and returning at once when `live[j − 1]` is 0, up to
    /// `MAX_ROUNDS` pairs per submission; one read-back of the counters per submission.
    fn passes(&self, entry: &'static str, bind: &[(u32, &wgpu::Buffer)], what: &str) -> Result<(), GpuError> {
        let pl = self.gpu.pipeline(NAME, SRC, entry)?;
        let b = |j: usize, a: &wgpu::Buffer, c: &wgpu::Buffer| {
            let mut v: Vec<(u32, &wgpu::Buffer)> = vec![(0, &self.sp[j]), (4, a), (11, &self.live), (16, c)];
            v.extend_from_slice(bind);
            self.gpu.bind(&pl, &v)
        };
        let bgs: Vec<[wgpu::BindGroup; 2]> =
            (0..MAX_ROUNDS).map(|j| [b(j, &self.hh, &self.h2), b(j, &self.h2, &self.hh)]).collect();
        let n = (self.w * self.ht) as u64;
        let mut pairs = 0;
        loop {
            let mut enc = self.gpu.encoder();
            enc.clear_buffer(&self.live, 0, None);
            {
                let mut pass = enc.begin_compute_pass(&Default::default());
                for bg in &bgs {
                    dispatch(&mut pass, &pl, &bg[0], n);
                    dispatch(&mut pass, &pl, &bg[1], n);
                }
            }
            self.gpu.submit_wait(enc)?;
            self.submissions.set(self.submissions.get() + 1);
            if self.gpu.read::<u32>(&self.live, MAX_ROUNDS)?.contains(&0) {
                return Ok(());
            }
            pairs += MAX_ROUNDS;
            if pairs > self.w * self.ht {
                return Err(GpuError::Device(format!("stream power: {what} did not converge")));
            }
        }
    }

    /// Jacobi passes of the sequential incision with its clamps until no cell moves by more
    /// than round-off (the result in `hh`).
    fn refine(&self) -> Result<(), GpuError> {
        self.passes("refine", &[(1, &self.rt.rcv), (6, &self.before), (19, &self.settle)], "incision clamps")
    }

    /// Raises cells at or below their receiver until none is (Jacobi passes, the result in `hh`).
    fn lift(&self) -> Result<(), GpuError> {
        self.passes("lift", &[(1, &self.rt.rcv)], "limiter")
    }

    /// One step: routing, uplift, incision, sediment proxy, diffusion, limiter.
    pub fn step(&mut self) -> Result<(), GpuError> {
        let (gpu, n) = (self.gpu, (self.w * self.ht) as u64);
        if n == 0 {
            self.steps_run += 1;
            return Ok(());
        }
        self.rt.route(gpu, &self.hh)?;
        self.rt.accumulate(gpu)?;
        let prep = gpu.pipeline(NAME, SRC, "prep")?;
        let jump = gpu.pipeline(NAME, SRC, "ab_jump")?;
        let clamp = gpu.pipeline(NAME, SRC, "incise_clamp")?;
        let (rcv, dist, count) = (&self.rt.rcv, &self.rt.dist, &self.rt.count);
        let mut enc = gpu.encoder();
        {
            let bg = gpu.bind(
                &prep,
                &[
                    (0, &self.sp[0]),
                    (1, rcv),
                    (2, dist),
                    (3, count),
                    (4, &self.hh),
                    (5, &self.umap),
                    (6, &self.before),
                    (9, &self.ab[0]),
                    (10, &self.pp[0]),
                    (19, &self.settle),
                    (21, &self.bb[0]),
                ],
            );
            let mut pass = enc.begin_compute_pass(&Default::default());
            dispatch(&mut pass, &prep, &bg, n);
        }
        gpu.queue.submit([enc.finish()]);
        let jb: Vec<wgpu::BindGroup> = (0..MAX_ROUNDS)
            .map(|r| {
                let (a, b) = (r % 2, 1 - r % 2);
                gpu.bind(
                    &jump,
                    &[
                        (0, &self.sp[r]),
                        (7, &self.ab[a]),
                        (8, &self.pp[a]),
                        (9, &self.ab[b]),
                        (10, &self.pp[b]),
                        (11, &self.live),
                        (20, &self.bb[a]),
                        (21, &self.bb[b]),
                    ],
                )
            })
            .collect();
        self.rounds(|pass, r| dispatch(pass, &jump, &jb[r], n))?;
        let mut enc = gpu.encoder();
        {
            let bg =
                gpu.bind(&clamp, &[(0, &self.sp[0]), (1, rcv), (4, &self.hh), (6, &self.before), (7, &self.ab[0])]);
            let mut pass = enc.begin_compute_pass(&Default::default());
            dispatch(&mut pass, &clamp, &bg, n);
        }
        gpu.queue.submit([enc.finish()]);
        self.refine()?;
        self.lift()?;
        self.sediment()?;
        self.diffuse()?;
        self.steps_run += 1;
        Ok(())
    }

    fn sediment(&self) -> Result<(), GpuError> {
        let gpu = self.gpu;
        let n = (self.w * self.ht) as u64;
        let init = gpu.pipeline(NAME, SRC, "sed_init")?;
        let copy = gpu.pipeline(NAME, SRC, "sed_copy")?;
        let jump = gpu.pipeline(NAME, SRC, "sed_jump")?;
        let fin = gpu.pipeline(NAME, SRC, "sed_final")?;
        let mut enc = gpu.encoder();
        {
            let bg = gpu.bind(
                &init,
                &[
                    (0, &self.sp[0]),
                    (1, &self.rt.rcv),
                    (2, &self.rt.dist),
                    (4, &self.hh),
                    (6, &self.before),
                    (10, &self.pp[0]),
                    (13, &self.ss[0]),
                    (15, &self.ff[0]),
                    (17, &self.eroded),
                    (19, &self.settle),
                ],
            );
            let mut pass = enc.begin_compute_pass(&Default::default());
            dispatch(&mut pass, &init, &bg, n);
        }
        gpu.queue.submit([enc.finish()]);
        let bgs: Vec<(wgpu::BindGroup, wgpu::BindGroup)> = (0..MAX_ROUNDS)
            .map(|r| {
                let (a, b) = (r % 2, 1 - r % 2);
                let c = gpu.bind(&copy, &[(0, &self.sp[r]), (12, &self.ss[a]), (13, &self.ss[b])]);
                let j = gpu.bind(
                    &jump,
                    &[
                        (0, &self.sp[r]),
                        (8, &self.pp[a]),
                        (10, &self.pp[b]),
                        (11, &self.live),
                        (12, &self.ss[a]),
                        (13, &self.ss[b]),
                        (14, &self.ff[a]),
                        (15, &self.ff[b]),
                    ],
                );
                (c, j)
            })
            .collect();
        self.rounds(|pass, r| {
            dispatch(pass, &copy, &bgs[r].0, n);
            dispatch(pass, &jump, &bgs[r].1, n);
        })?;
        let mut enc = gpu.encoder();
        {
            let bg = gpu.bind(&fin, &[(0, &self.sp[0]), (12, &self.ss[0]), (18, &self.sediment), (19, &self.settle)]);
            let mut pass = enc.begin_compute_pass(&Default::default());
            dispatch(&mut pass, &fin, &bg, n);
        }
        gpu.queue.submit([enc.finish()]);
        Ok(())
    }

    fn diffuse(&self) -> Result<(), GpuError> {
        let p = &self.p;
        if p.kappa <= 0.0 || self.w <= 2 || self.ht <= 2 {
            return Ok(());
        }
        let gpu = self.gpu;
        let n = (self.w * self.ht) as u64;
        let (dx, dy) = (self.dx, self.dy);
        let c = p.kappa * p.dt * (1.0 / (dx * dx) + 1.0 / (dy * dy));
        let sub = (2.0 * c).ceil().max(1.0) as usize;
        let pl = gpu.pipeline(NAME, SRC, "diffuse")?;
        let bg = [
            gpu.bind(&pl, &[(0, &self.sp[0]), (4, &self.hh), (16, &self.h2)]),
            gpu.bind(&pl, &[(0, &self.sp[0]), (4, &self.h2), (16, &self.hh)]),
        ];
        let mut done = 0;
        while done < sub {
            let k = 256.min(sub - done);
            let mut enc = gpu.encoder();
            {
                let mut pass = enc.begin_compute_pass(&Default::default());
                for s in done..done + k {
                    dispatch(&mut pass, &pl, &bg[s % 2], n);
                }
            }
            if done + k == sub && sub % 2 == 1 {
                enc.copy_buffer_to_buffer(&self.h2, 0, &self.hh, 0, 8 * n);
            }
            gpu.submit_wait(enc)?;
            done += k;
        }
        self.lift()
    }

    /// Submissions of up to `MAX_ROUNDS` pairs of refine or lift passes so far (two or three per
    /// step when each converges within one).
    pub fn pass_submissions(&self) -> usize {
        self.submissions.get()
    }

    /// Steps run so far.
    pub fn steps_run(&self) -> usize {
        self.steps_run
    }

    /// Reads the state back.
    pub fn output(&self) -> Result<StreamPowerOutput, GpuError> {
        let n = self.w * self.ht;
        let grid = |v: Vec<f64>| Grid::from_vec(self.w, self.ht, v).with_cell_size(self.dx, self.dy);
        Ok(StreamPowerOutput {
            height: grid(self.gpu.read(&self.hh, n)?),
            eroded: grid(self.gpu.read(&self.eroded, n)?),
            sediment: grid(self.gpu.read(&self.sediment, n)?),
            steps_run: self.steps_run,
        })
    }
}

//! Pipe-model shallow water with hydraulic erosion on the GPU (`shaders/shallow_water.wgsl`).
//!
//! Same model, parameters and output as [`bozkir_terrain::erosion::shallow_water`] (Mei et al.
//! 2007, `f32` water state, `f64` terrain). **Formulation:** every step is three pure per-cell
//! passes over ping-pong buffers (flux; depth, velocity, erosion and evaporation; sediment
//! advection). That is the CPU's formulation too: its in-place band pass and fused (deferred)
//! advection are an implementation of the same Jacobi update and change no bit (see the CPU
//! module's "Determinism"), so the GPU is compared with the CPU's default run directly; no
//! separate reference is needed. The results are not bit-identical (Vulkan's `f32` division and
//! square root need not be correctly rounded); `tests/shallow_water.rs` states the tolerance.
//!
//! Not on the GPU (`GpuError::Unsupported`): the MacCormack correction.

use bozkir_core::Grid;
use bozkir_terrain::erosion::shallow_water::{stable_dt, Boundary, ShallowWaterOutput, ShallowWaterParams};

use crate::context::{dispatch, Gpu, GpuError};

pub(crate) const SRC: &str =
    concat!(include_str!("../shaders/shallow_water.wgsl"), include_str!("../shaders/exact.wgsl"));
pub(crate) const NAME: &str = "shallow_water.wgsl";
/// Steps recorded into one command encoder (one submission, no host wait inside).
const PER_SUBMIT: usize = 256;

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct Sw {
    pub(crate) dx: f64,
    pub(crate) dy: f64,
    pub(crate) w: u32,
    pub(crate) h: u32,
    pub(crate) n: u32,
    pub(crate) open: u32,
    pub(crate) ax: f32,
    pub(crate) ay: f32,
    pub(crate) damp: f32,
    pub(crate) area_dt: f32,
    pub(crate) dt_area: f32,
    pub(crate) hx: f32,
    pub(crate) hy: f32,
    pub(crate) min_depth: f32,
    pub(crate) inv_2dx: f32,
    pub(crate) inv_2dy: f32,
    pub(crate) kc: f32,
    pub(crate) min_sin2: f32,
    pub(crate) kd_dt: f32,
    pub(crate) evap: f32,
    pub(crate) sx: f32,
    pub(crate) sy: f32,
    pub(crate) xmax: f32,
    pub(crate) ymax: f32,
    pub(crate) zero: f32,
    /// 1 when every cell's (increment, Ks·hardness·Δt) is (`inc`, `ks`) and `maps` is not read.
    pub(crate) uni: u32,
    pub(crate) inc: f32,
    pub(crate) ks: f32,
    pub(crate) pad0: f32,
    pub(crate) pad1: f32,
}

/// The uniform and the per-cell (water increment, Ks·hardness·Δt) of a run of `params` on
/// `terrain`, as the CPU rounds them (the CPU constructor's checks and panics first).
pub(crate) fn prepare(terrain: &Grid<f64>, params: &ShallowWaterParams) -> (Sw, Vec<[f32; 2]>) {
    let (w, h) = (terrain.width(), terrain.height());
    // The CPU constructor validates the parameters (and panics as it does).
    drop(bozkir_terrain::erosion::shallow_water::ShallowWater::new(
        &Grid::new(1, 1, 0.0),
        &ShallowWaterParams {
            hardness: None,
            rain_map: None,
            sources: Vec::new(),
            // Checked below against the hardness map (the CPU's bound uses its maximum).
            dissolve: 0.0,
            dt: Some(params.dt.unwrap_or(0.5 * stable_dt(terrain.dx, terrain.dy, params.gravity, params.pipe_depth))),
            ..params.clone()
        },
    ));
    assert!(w > 0 && h > 0, "ShallowWater: empty terrain");
    let (dx, dy) = (terrain.dx, terrain.dy);
    let p = params;
    let dt = p.dt.unwrap_or(0.5 * stable_dt(dx, dy, p.gravity, p.pipe_depth));
    let n = w * h;
    let same = |g: &Grid<f64>| g.width() == w && g.height() == h;
    // Per-cell (water increment per step, Ks·hardness·Δt), exactly as the CPU rounds them.
    let mut rain: Option<Vec<f64>> = match &p.rain_map {
        Some(g) => {
            assert!(same(g), "ShallowWater: rain map shape differs from the terrain");
            Some(g.data().to_vec())
        }
        None if !p.sources.is_empty() => Some(vec![p.rain_rate; n]),
        None => None,
    };
    if let Some(v) = rain.as_mut() {
        for s in &p.sources {
            assert!(s.x < w && s.y < h, "ShallowWater: point source outside the grid");
            v[s.y * w + s.x] += s.rate / (dx * dy);
        }
    }
    let inc_u = (p.rain_rate * dt) as f32;
    let ks_u = (p.dissolve * dt) as f32;
    p.check_hardness(w, h, dt);
    let uni = rain.is_none() && p.hardness.is_none();
    // One pair when uniform (the kernels read the uniform's copy and never the buffer).
    let maps: Vec<[f32; 2]> = (0..if uni { 1 } else { n })
        .map(|i| {
            let inc = rain.as_ref().map_or(inc_u, |v| (v[i] * dt) as f32);
            let ks = p.hardness.as_ref().map_or(ks_u, |g| (p.dissolve * g.data()[i] * dt) as f32);
            [inc, ks]
        })
        .collect();
    let (g, hp) = (p.gravity, p.pipe_depth);
    let sw = Sw {
        dx,
        dy,
        w: w as u32,
        h: h as u32,
        n: n as u32,
        open: (p.boundary == Boundary::Open) as u32,
        ax: (dt * g * hp * dy / dx) as f32,
        ay: (dt * g * hp * dx / dy) as f32,
        damp: (1.0 / (1.0 + p.flux_damping * dt)) as f32,
        area_dt: (dx * dy / dt) as f32,
        dt_area: (dt / (dx * dy)) as f32,
        hx: (0.5 / dy) as f32,
        hy: (0.5 / dx) as f32,
        min_depth: p.min_depth as f32,
        inv_2dx: (0.5 / dx) as f32,
        inv_2dy: (0.5 / dy) as f32,
        kc: p.capacity as f32,
        min_sin2: (p.min_sin_tilt * p.min_sin_tilt) as f32,
        kd_dt: (p.deposit * dt) as f32,
        evap: (1.0 - p.evaporation * dt) as f32,
        sx: (dt / dx) as f32,
        sy: (dt / dy) as f32,
        xmax: (w - 1) as f32,
        ymax: (h - 1) as f32,
        zero: 0.0,
        uni: uni as u32,
        inc: inc_u,
        ks: ks_u,
        pad0: 0.0,
        pad1: 0.0,
    };
    (sw, maps)
}

/// The buffers one step binds besides the terrain (uniform, water, outflows, velocity, sediment
/// after and before advection, (eroded, deposited), maps).
pub(crate) struct StepBuffers<'a> {
    pub ub: &'a wgpu::Buffer,
    pub d: &'a wgpu::Buffer,
    pub flux: &'a wgpu::Buffer,
    pub vel: &'a wgpu::Buffer,
    pub s_adv: &'a wgpu::Buffer,
    pub s_src: &'a wgpu::Buffer,
    pub erdp: &'a wgpu::Buffer,
    pub maps: &'a wgpu::Buffer,
}

impl StepBuffers<'_> {
    /// The (flux, depth, advect) bind groups of a step reading the terrain `bi`, writing `bo`.
    pub(crate) fn groups(
        &self,
        gpu: &Gpu,
        pipes: &[std::sync::Arc<wgpu::ComputePipeline>; 3],
        bi: &wgpu::Buffer,
        bo: &wgpu::Buffer,
    ) -> [wgpu::BindGroup; 3] {
        let s = self;
        [
            gpu.bind(&pipes[0], &[(0, s.ub), (1, bi), (3, s.d), (4, s.flux), (9, s.maps)]),
            gpu.bind(
                &pipes[1],
                &[
                    (0, s.ub),
                    (1, bi),
                    (2, bo),
                    (3, s.d),
                    (4, s.flux),
                    (5, s.vel),
                    (6, s.s_adv),
                    (7, s.s_src),
                    (8, s.erdp),
                    (9, s.maps),
                ],
            ),
            gpu.bind(&pipes[2], &[(0, s.ub), (5, s.vel), (6, s.s_src), (7, s.s_adv)]),
        ]
    }
}

/// A pipe-model simulation whose state stays on the device between steps.
pub struct GpuShallowWater<'g> {
    gpu: &'g Gpu,
    w: usize,
    h: usize,
    dx: f64,
    dy: f64,
    dt: f64,
    /// Bind groups (flux, depth, advect) of even and odd steps (`b` ping-pongs).
    bgs: [[wgpu::BindGroup; 3]; 2],
    pipes: [std::sync::Arc<wgpu::ComputePipeline>; 3],
    b: [wgpu::Buffer; 2],
    d: wgpu::Buffer,
    vel: wgpu::Buffer,
    s_adv: wgpu::Buffer,
    erdp: wgpu::Buffer,
    steps_done: usize,
}

impl<'g> GpuShallowWater<'g> {
    /// As [`bozkir_terrain::erosion::shallow_water::ShallowWater::new`] (same checks, same panics).
    pub fn new(gpu: &'g Gpu, terrain: &Grid<f64>, params: &ShallowWaterParams) -> Result<Self, GpuError> {
        if params.maccormack {
            return Err(GpuError::Unsupported("shallow water: the MacCormack advection is CPU only".into()));
        }
        let (w, h) = (terrain.width(), terrain.height());
        assert!(w > 0 && h > 0, "ShallowWater: empty terrain");
        gpu.check_grid(w, h, 16)?;
        let (sw, maps) = prepare(terrain, params);
        let (dx, dy, n) = (terrain.dx, terrain.dy, w * h);
        let dt = params.dt.unwrap_or(0.5 * stable_dt(dx, dy, params.gravity, params.pipe_depth));
        let ub = gpu.uniform("sw", &sw);
        let z = |l: &str, b: u64| gpu.zeroed(l, b * n as u64);
        let b = [gpu.buffer("b0", terrain.data()), z("b1", 8)];
        let d = z("d", 4);
        let flux = z("flux", 16);
        let vel = z("vel", 8);
        let s_adv = z("s adv", 4);
        let s_src = z("s src", 4);
        let erdp = z("erdp", 8);
        let mapb = gpu.buffer("maps", &maps);
        let pipes = [
            gpu.pipeline(NAME, SRC, "sw_flux")?,
            gpu.pipeline(NAME, SRC, "sw_depth")?,
            gpu.pipeline(NAME, SRC, "sw_advect")?,
        ];
        let st = StepBuffers {
            ub: &ub,
            d: &d,
            flux: &flux,
            vel: &vel,
            s_adv: &s_adv,
            s_src: &s_src,
            erdp: &erdp,
            maps: &mapb,
        };
        let set = |bi: &wgpu::Buffer, bo: &wgpu::Buffer| st.groups(gpu, &pipes, bi, bo);
        let bgs = [set(&b[0], &b[1]), set(&b[1], &b[0])];
        gpu.take_errors()?;
        Ok(Self { gpu, w, h, dx, dy, dt, bgs, pipes, b, d, vel, s_adv, erdp, steps_done: 0 })
    }

    /// The time step in use, s.
    pub fn dt(&self) -> f64 {
        self.dt
    }

    /// Steps run so far.
    pub fn steps_done(&self) -> usize {
        self.steps_done
    }

    /// Records `steps` steps, 256 per submission, and waits for the last.
    pub fn run(&mut self, steps: usize) -> Result<(), GpuError> {
        let n = (self.w * self.h) as u64;
        let mut left = steps;
        while left > 0 {
            let k = left.min(PER_SUBMIT);
            let mut enc = self.gpu.encoder();
            {
                let mut pass = enc.begin_compute_pass(&Default::default());
                for s in 0..k {
                    let bg = &self.bgs[(self.steps_done + s) % 2];
                    for (pl, b) in self.pipes.iter().zip(bg) {
                        dispatch(&mut pass, pl, b, n);
                    }
                }
            }
            self.gpu.queue.submit([enc.finish()]);
            self.steps_done += k;
            left -= k;
        }
        self.gpu.submit_wait(self.gpu.encoder())
    }

    /// Reads the state back (the same grids as the CPU's `into_output`).
    pub fn output(&self) -> Result<ShallowWaterOutput, GpuError> {
        let n = self.w * self.h;
        let grid = |v: Vec<f64>| Grid::from_vec(self.w, self.h, v).with_cell_size(self.dx, self.dy);
        let f32s = |v: &[f32]| grid(v.iter().map(|&x| x as f64).collect());
        let vel: Vec<[f32; 2]> = self.gpu.read(&self.vel, n)?;
        let erdp: Vec<[f32; 2]> = self.gpu.read(&self.erdp, n)?;
        let pick = |v: &[[f32; 2]], k: usize| grid(v.iter().map(|p| p[k] as f64).collect());
        Ok(ShallowWaterOutput {
            height: grid(self.gpu.read(&self.b[self.steps_done % 2], n)?),
            water: f32s(&self.gpu.read::<f32>(&self.d, n)?),
            vx: pick(&vel, 0),
            vy: pick(&vel, 1),
            sediment: f32s(&self.gpu.read::<f32>(&self.s_adv, n)?),
            eroded: pick(&erdp, 0),
            deposited: pick(&erdp, 1),
        })
    }
}

/// [`bozkir_terrain::erosion::shallow_water::shallow_water`] on the GPU: `params.steps` steps on
/// a dry, sediment-free `terrain`.
pub fn shallow_water(
    gpu: &Gpu,
    terrain: &Grid<f64>,
    params: &ShallowWaterParams,
) -> Result<ShallowWaterOutput, GpuError> {
    let mut sim = GpuShallowWater::new(gpu, terrain, params)?;
    sim.run(params.steps)?;
    sim.output()
}

//! The implicit `n = 1` stream-power step on the GPU (`shaders/stream_power.wgsl`).
//!
//! Same model, parameters and output as [`bozkir_terrain::erosion::stream_power`]: routing
//! (GPU D8 receivers, exact, and drainage counts by pointer jumping, exact), uplift, implicit
//! incision, the sediment proxy, optional diffusion and the limiter, every step on the device.
//! The passes the CPU runs sequentially along the stack become pointer jumping:
//!
//! * incision: `h_i' = G_i·h_i + (1 − G_i)·h_r'` is affine in the receiver's new height; the maps
//!   are composed along the receivers in `⌈log₂ L⌉` rounds. The CPU's clamps (never above the
//!   uplifted height; at least `next_up(h_r')`) are not affine, and a Jacobi pass would carry a
//!   clamp one cell down a river per pass (hundreds of passes along ε-filled flats). A
//!   streaming check of the exact rule finds whether any cell would move by more than
//!   round-off; if so, the clamps can be *typed* from the current solution (a cell whose value
//!   would fall below `next_up(h_r')` takes the affine map `h_r' + (next_up(h_r) − h_r)`,
//!   exactly `next_up` when the solution is) and the maps jumped again, up to
//!   [`GpuStreamPower::set_typed_rounds`] times (none by default), then the passes of the exact
//!   rule run to the end. They work on 32×32 tiles relaxed in workgroup memory, so one pass
//!   carries a clamp up to 64 cells up a river, not one. A pass is dispatched indirectly over a
//!   list of the tiles it runs: after a check, the tiles next to one holding a cell the check
//!   found moving; then the tiles next to one that changed in the previous pass.
//!   [`GpuStreamPower::set_pass_typing`] can interleave typed solves with the passes (off by
//!   default);
//! * the limiter `h_i = max(h_i, next_up(h_r'))` along the stack: max-plus maps
//!   `x ↦ max(c, x ⊕ d)` (`⊕ d` being `d` steps of `next_up`) compose in closed form, so they
//!   are jumped the same way, exactly;
//! * the sediment proxy: weighted upstream sums by pointer jumping with path products of the
//!   pass-on factors `1 − settle`, summed in 64-bit fixed point (`2⁻⁴⁴ m`).
//!
//! Every jumping phase runs in two levels: 16×16 tiles solved in workgroup memory, the jumping
//! over the forest of the tiles' roots only, then every other cell from its in-tile root
//! (`docs/gpu.md`).
//!
//! Depressions are removed once at the start, as on the CPU, by the same ε fill computed on the
//! device ([`crate::fill`], bit-identical to `priority_flood::fill_epsilon`); no step creates a
//! pit (see the CPU module's proof, which the clamps preserve). The heights differ from the CPU's by round-off of the
//! other association (`tests/stream_power.rs` states the tolerance); the receivers and the
//! drainage counts of a given surface are exact.

use bozkir_core::Grid;
use bozkir_terrain::erosion::stream_power::{StreamPowerOutput, StreamPowerParams};

use crate::context::{dispatch, dispatch_groups, dispatch_indirect, dispatch_indirect_at, Gpu, GpuError};
use crate::flow::{jump_rounds, Routing, MAX_ROUNDS};

pub(crate) const SRC: &str = concat!(
    include_str!("../shaders/stream_power.wgsl"),
    include_str!("../shaders/exact.wgsl"),
    include_str!("../shaders/rounds.wgsl"),
    include_str!("../shaders/tile_skip.wgsl"),
    include_str!("../shaders/roots.wgsl")
);
pub(crate) const NAME: &str = "stream_power.wgsl";
/// Rounds of typing the clamps from the current solution and solving again, at most (the
/// default of [`GpuStreamPower::set_typed_rounds`]). None: with the checks, typing saves at
/// most one tile pass pair on the test terrains (the crater's lake passes its checks untyped),
/// and ds2's stage at 8192² is faster without it (timings in `docs/gpu.md`).
const TYPED: usize = 0;

/// Where the clamps' check fails: pass pairs before each typed solve, and rounds of both before
/// the passes run to the end (defaults of [`GpuStreamPower::set_pass_typing`]). No rounds: with
/// the tile passes over lists of active tiles, passes alone are the faster on a large GPU
/// (`docs/gpu.md`).
const PASS_PAIRS: usize = 3;
const PASS_ROUNDS: usize = 0;

/// The two Jacobi passes of the exact rule.
#[derive(Clone, Copy)]
enum Jacobi {
    /// The sequential incision with its clamps (`refine`).
    Refine = 0,
    /// The limiter (`lift`).
    Lift = 1,
}

/// The two kinds of map jumped along the receivers.
#[derive(Clone, Copy)]
enum Jump {
    /// `h = a + b·h_P` (`ab_jump_l` after `tm_local_ab`).
    Affine = 0,
    /// `h = max(c, h_P ⊕ d)`, `⊕ d` being `d` steps of `next_up` (`mp_jump_l` after `tm_local_mp`).
    MaxPlus = 1,
}

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
    /// 1: the incision clamps (and the limiter, run from the host); 0: the bare scheme.
    guards: u32,
    kdt: f64,
    udt: f64,
    cell: f64,
    cap: f64,
    m: f64,
    tx: f64,
    ty: f64,
    /// Zero (an addend the compiler cannot fold; see `mul_rounded` in the WGSL).
    pad: f64,
    floor: f64,
    pad2: f64,
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

/// The 32×32 tiles of the tile passes over a `w × ht` grid (`T` in the shader).
fn tile_count(w: usize, ht: usize) -> usize {
    w.div_ceil(32) * ht.div_ceil(32)
}

/// The bind groups of the tile passes of one rule: per pair, the two passes', their lists' and
/// (shared) the lists' arguments'.
struct JacobiBinds {
    passes: Vec<[wgpu::BindGroup; 2]>,
    lists: Vec<[wgpu::BindGroup; 2]>,
    args: [wgpu::BindGroup; 2],
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
    /// The roots' heights by slot in the maps' jumping (`tm_link`, the rounds, `tm_apply`).
    hs: wgpu::Buffer,
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
    /// Jacobi pass pairs that moved a cell, so far.
    moving_pairs: std::cell::Cell<usize>,
    /// Per jump kind: the (local, args, link, apply) bind groups and every round's.
    #[allow(clippy::type_complexity)]
    jump_bgs: [std::sync::OnceLock<([wgpu::BindGroup; 4], Vec<wgpu::BindGroup>)>; 2],
    jacobi_bgs: [std::sync::OnceLock<JacobiBinds>; 2],
    /// The sediment's (local, args, link, fix, final) bind groups and every round's (copy, jump).
    #[allow(clippy::type_complexity)]
    sed_bgs: std::sync::OnceLock<([wgpu::BindGroup; 5], Vec<wgpu::BindGroup>)>,
    typed_rounds: usize,
    /// Pass pairs before each typed solve, and the rounds of both ([`Self::set_pass_typing`]).
    pass_pairs: usize,
    pass_rounds: usize,
    /// Typed solves run by [`Self::settle_clamps`] so far.
    typed_solves: std::cell::Cell<usize>,
    /// The tile passes' change stamps (two per 32×32 tile, by pass parity), the number of a
    /// submission's first pass and whether it is its call's first (device copy), and the next
    /// pass number.
    chg: wgpu::Buffer,
    pbase: wgpu::Buffer,
    /// The tile passes' lists of tiles (one per pass parity), their lengths and their indirect
    /// arguments (`tile_list` in the shader).
    tlist: wgpu::Buffer,
    tcnt: wgpu::Buffer,
    targs: wgpu::Buffer,
    /// Per rule, the tiles where its last check found a moving cell (`seed` in the shader).
    seed: wgpu::Buffer,
    /// The counts of the checks recorded in one submission (`gate` in the shader).
    gate: wgpu::Buffer,
    next_pass: std::cell::Cell<u32>,
    /// Per pass pair that ran since the last [`Self::take_pair_tiles`], the tiles it moved.
    pair_tiles: std::cell::RefCell<Vec<u32>>,
}

impl<'g> GpuStreamPower<'g> {
    /// Uploads `initial` and fills it once on the device (the ε fill of [`crate::fill`]).
    pub fn new(gpu: &'g Gpu, initial: &Grid<f64>, params: &StreamPowerParams) -> Result<Self, GpuError> {
        let (w, ht) = (initial.width(), initial.height());
        params.check_uplift_shape(w, ht);
        gpu.check_grid_split(w, ht, 8)?;
        let n = (w * ht).max(1);
        let (filled, _) = crate::fill::fill_epsilon_buffer(gpu, initial)?;
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
                        guards: params.guards as u32,
                        kdt: params.k * params.dt,
                        udt: params.uplift * params.dt,
                        cell: dx * dy,
                        cap: params.area_cap.unwrap_or(f64::MAX),
                        m: params.m,
                        tx,
                        ty,
                        pad: 0.0,
                        floor: params.area_floor.unwrap_or(0.0),
                        pad2: 0.0,
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
            hh: filled,
            h2: z("h2", 8),
            hs: z("root heights", 8),
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
            moving_pairs: std::cell::Cell::new(0),
            jump_bgs: [std::sync::OnceLock::new(), std::sync::OnceLock::new()],
            jacobi_bgs: [std::sync::OnceLock::new(), std::sync::OnceLock::new()],
            sed_bgs: std::sync::OnceLock::new(),
            typed_rounds: TYPED,
            pass_pairs: PASS_PAIRS,
            pass_rounds: PASS_ROUNDS,
            typed_solves: std::cell::Cell::new(0),
            chg: gpu.zeroed("tile stamps", 8 * tile_count(w, ht).max(1) as u64),
            pbase: gpu.zeroed("pass base", 4),
            tlist: gpu.zeroed("tile lists", 8 * tile_count(w, ht).max(1) as u64),
            tcnt: gpu.zeroed("tile counts", 8),
            seed: gpu.zeroed("check seeds", 8 * tile_count(w, ht).max(1) as u64),
            targs: gpu.indirect("tile pass arguments", 24),
            gate: gpu.zeroed("check counts", 16),
            next_pass: std::cell::Cell::new(0),
            pair_tiles: std::cell::RefCell::new(Vec::new()),
        })
    }

    /// Records one dispatch of `entry` over every cell with `bind`.
    fn record_one(
        &self,
        enc: &mut wgpu::CommandEncoder,
        entry: &'static str,
        bind: &[(u32, &wgpu::Buffer)],
    ) -> Result<(), GpuError> {
        let pl = self.gpu.pipeline(NAME, SRC, entry)?;
        let bg = self.gpu.bind(&pl, bind);
        let mut pass = enc.begin_compute_pass(&Default::default());
        dispatch(&mut pass, &pl, &bg, (self.w * self.ht) as u64);
        Ok(())
    }

    /// Records the maps' jumping (maps in buffer 0 on entry), in two levels (`tm_local` in
    /// `stream_power.wgsl`): the new heights into `h2`.
    fn record_jumps(&self, enc: &mut wgpu::CommandEncoder, kind: Jump) -> Result<(), GpuError> {
        let names = match kind {
            Jump::Affine => ["tm_local_ab", "tm_link_ab", "ab_jump_l", "tm_apply_ab"],
            Jump::MaxPlus => ["tm_local_mp", "tm_link_mp", "mp_jump_l", "tm_apply_mp"],
        };
        let pl = names.iter().map(|e| self.gpu.pipeline(NAME, SRC, e)).collect::<Result<Vec<_>, _>>()?;
        let args = self.gpu.pipeline(NAME, SRC, "roots_args")?;
        let rt = &self.rt;
        let (da, db, list, len) = ((26, &self.ff[0]), (27, &self.ff[1]), (29, &rt.roots), (30, &rt.nroots));
        let (xr, slot, hs) = ((28, &rt.xr), (35, &rt.slot), (36, &self.hs));
        let jb = self.jump_bgs[kind as usize].get_or_init(|| {
            let d0 = (0, &self.sp[0]);
            let fixed = [
                self.gpu.bind(
                    &pl[0],
                    &[d0, (7, &self.ab[0]), (8, &self.pp[0]), (20, &self.bb[0]), da, db, xr, list, len, slot],
                ),
                self.gpu.bind(&args, &[len, (31, &rt.ind)]),
                // The roots' maps packed by slot from buffer 0 into buffer 1.
                self.gpu.bind(
                    &pl[1],
                    &[
                        d0,
                        (7, &self.ab[0]),
                        (8, &self.pp[0]),
                        (20, &self.bb[0]),
                        (9, &self.ab[1]),
                        (10, &self.pp[1]),
                        (21, &self.bb[1]),
                        hs,
                        da,
                        db,
                        xr,
                        list,
                        len,
                        slot,
                    ],
                ),
                self.gpu.bind(&pl[3], &[d0, (16, &self.h2), da, db, xr, slot, hs]),
            ];
            let rounds = (0..jump_rounds(self.w * self.ht))
                .map(|r| {
                    // Round r reads buffer 1 when r is even (the packed maps at round 0).
                    let (a, b) = (1 - r % 2, r % 2);
                    self.gpu.bind(
                        &pl[2],
                        &[
                            (0, &self.sp[r]),
                            (7, &self.ab[a]),
                            (8, &self.pp[a]),
                            (9, &self.ab[b]),
                            (10, &self.pp[b]),
                            (11, &self.live),
                            (20, &self.bb[a]),
                            (21, &self.bb[b]),
                            hs,
                            len,
                        ],
                    )
                })
                .collect();
            (fixed, rounds)
        });
        let (fixed, rounds) = jb;
        let n = (self.w * self.ht) as u64;
        enc.clear_buffer(&self.live, 0, None);
        enc.clear_buffer(&rt.nroots, 0, None);
        let mut pass = enc.begin_compute_pass(&Default::default());
        let ind = &rt.ind;
        dispatch_groups(&mut pass, &pl[0], &fixed[0], (self.w.div_ceil(16) as u32, self.ht.div_ceil(16) as u32));
        dispatch_groups(&mut pass, &args, &fixed[1], (1, 1));
        dispatch_indirect(&mut pass, &pl[1], &fixed[2], ind);
        for bg in rounds {
            dispatch_indirect(&mut pass, &pl[2], bg, ind);
        }
        dispatch(&mut pass, &pl[3], &fixed[3], n);
        Ok(())
    }

    /// Records pairs of Jacobi passes of `kind` (`hh → h2 → hh`), pair `j` counting the cells
    /// it still moves into `live[j]` and returning at once when `live[j − 1]` is 0: one pair in
    /// the first submission, up to `MAX_ROUNDS` in later ones, one read-back of the counters per
    /// submission, until a pair moves nothing.
    fn passes(&self, kind: Jacobi) -> Result<(), GpuError> {
        self.passes_upto(kind, usize::MAX).map(|_| ())
    }

    /// [`Self::passes`], stopping after `max_pairs` pairs; whether a pair moved nothing.
    fn passes_upto(&self, kind: Jacobi, max_pairs: usize) -> Result<bool, GpuError> {
        let (entries, what) = match kind {
            Jacobi::Refine => (["refine_a", "refine_b"], "incision clamps"),
            Jacobi::Lift => (["lift_a", "lift_b"], "limiter"),
        };
        let pls = [self.gpu.pipeline(NAME, SRC, entries[0])?, self.gpu.pipeline(NAME, SRC, entries[1])?];
        let lists = [self.gpu.pipeline(NAME, SRC, "tile_list_a")?, self.gpu.pipeline(NAME, SRC, "tile_list_b")?];
        let args = [self.gpu.pipeline(NAME, SRC, "tile_args_a")?, self.gpu.pipeline(NAME, SRC, "tile_args_b")?];
        // Bind groups built once per kind (the buffers never change).
        let bgs = self.jacobi_bgs[kind as usize].get_or_init(|| {
            // One shader function serves both rules, so both layouts hold all the buffers.
            let extra: Vec<(u32, &wgpu::Buffer)> = vec![
                (1, &self.rt.rcv),
                (6, &self.before),
                (19, &self.settle),
                (24, &self.chg),
                (25, &self.pbase),
                (44, &self.tlist),
                (45, &self.tcnt),
            ];
            let b = |half: usize, j: usize, a: &wgpu::Buffer, c: &wgpu::Buffer| {
                let mut v: Vec<(u32, &wgpu::Buffer)> = vec![(0, &self.sp[j]), (4, a), (11, &self.live), (16, c)];
                v.extend_from_slice(&extra);
                self.gpu.bind(&pls[half], &v)
            };
            let l = |half: usize, j: usize| {
                let v: [(u32, &wgpu::Buffer); 7] = [
                    (0, &self.sp[j]),
                    (11, &self.live),
                    (24, &self.chg),
                    (25, &self.pbase),
                    (44, &self.tlist),
                    (45, &self.tcnt),
                    (47, &self.seed),
                ];
                self.gpu.bind(&lists[half], &v)
            };
            let a = |half: usize| self.gpu.bind(&args[half], &[(45, &self.tcnt), (46, &self.targs)]);
            JacobiBinds {
                passes: (0..MAX_ROUNDS).map(|j| [b(0, j, &self.hh, &self.h2), b(1, j, &self.h2, &self.hh)]).collect(),
                lists: (0..MAX_ROUNDS).map(|j| [l(0, j), l(1, j)]).collect(),
                args: [a(0), a(1)],
            }
        });
        let nt = tile_count(self.w, self.ht) as u64;
        let (mut pairs, mut subs) = (0, 0);
        loop {
            // The first submission holds one pair (usually all there is to do), later ones more.
            let k = if subs == 0 { 1 } else { MAX_ROUNDS }.min(max_pairs - pairs);
            // Passes numbered on from the last submission's (the tiles' change stamps), from an
            // even base (a pass's parity is its half: the shader's lists).
            let g0 = self.next_pass.get();
            self.next_pass.set(g0.wrapping_add(2 * k as u32));
            self.gpu.queue.write_buffer(&self.pbase, 0, bytemuck::cast_slice(&[g0, (subs == 0) as u32, kind as u32]));
            let mut enc = self.gpu.encoder();
            enc.clear_buffer(&self.live, 0, None);
            enc.clear_buffer(&self.tcnt, 0, None);
            {
                // Per pass: its list of 32×32 tiles (see `tile_list` in the shader), the
                // list's indirect arguments, the pass over the list.
                let mut pass = enc.begin_compute_pass(&Default::default());
                for j in 0..k {
                    for half in 0..2 {
                        dispatch(&mut pass, &lists[half], &bgs.lists[j][half], nt);
                        dispatch_groups(&mut pass, &args[half], &bgs.args[half], (1, 1));
                        dispatch_indirect_at(
                            &mut pass,
                            &pls[half],
                            &bgs.passes[j][half],
                            &self.targs,
                            12 * half as u64,
                        );
                    }
                }
            }
            let live = self.gpu.submit_read::<u32>(enc, &self.live, k)?;
            self.submissions.set(self.submissions.get() + 1);
            subs += 1;
            let moved = live.iter().take_while(|&&c| c != 0).count();
            self.pair_tiles.borrow_mut().extend(live.iter().take((moved + 1).min(k)));
            self.moving_pairs.set(self.moving_pairs.get() + moved);
            if moved < k {
                return Ok(true);
            }
            pairs += k;
            if pairs >= max_pairs {
                return Ok(false);
            }
            if pairs > self.w * self.ht {
                return Err(GpuError::Device(format!("stream power: {what} did not converge")));
            }
        }
    }

    /// The bindings of a kernel that writes maps into buffer 0 from `hh` and the receivers, and
    /// `extra`.
    fn map_binds<'a>(&'a self, extra: &[(u32, &'a wgpu::Buffer)]) -> Vec<(u32, &'a wgpu::Buffer)> {
        let mut v = vec![
            (0, &self.sp[0]),
            (1, &self.rt.rcv),
            (4, &self.hh),
            (9, &self.ab[0]),
            (10, &self.pp[0]),
            (21, &self.bb[0]),
        ];
        v.extend_from_slice(extra);
        v
    }

    /// Records the jumping of the incision maps in buffer 0 and the new heights.
    fn record_solve(&self, enc: &mut wgpu::CommandEncoder) -> Result<(), GpuError> {
        self.record_jumps(enc, Jump::Affine)?;
        self.record_one(
            enc,
            "incise",
            &[
                (0, &self.sp[0]),
                (1, &self.rt.rcv),
                (4, &self.hh),
                (6, &self.before),
                (16, &self.h2),
                (19, &self.settle),
            ],
        )
    }

    /// Records one streaming pass of the exact rule of `kind` (`check_refine`, `check_lift`: would
    /// any cell move by more than round-off, or sit at or below its receiver?), counting the
    /// cells that fail into `live[0]` and marking their tiles in the rule's half of `seed` (where
    /// the rule's next passes start).
    fn record_check(&self, enc: &mut wgpu::CommandEncoder, kind: Jacobi) -> Result<(), GpuError> {
        enc.clear_buffer(&self.live, 0, None);
        let half = 4 * tile_count(self.w, self.ht) as u64;
        enc.clear_buffer(&self.seed, half * kind as u64, Some(half));
        let entry = match kind {
            Jacobi::Refine => "check_refine",
            Jacobi::Lift => "check_lift",
        };
        // One shader function serves both rules, so both layouts hold all the buffers.
        self.record_one(
            enc,
            entry,
            &[
                (0, &self.sp[0]),
                (1, &self.rt.rcv),
                (4, &self.hh),
                (6, &self.before),
                (11, &self.live),
                (19, &self.settle),
                (47, &self.seed),
            ],
        )
    }

    /// Whether the exact rule of `kind` already holds at every cell (within the passes'
    /// round-off threshold for the refine): one check and one read-back, instead of a probing
    /// pair of tile passes.
    fn rule_holds(&self, kind: Jacobi) -> Result<bool, GpuError> {
        let mut enc = self.gpu.encoder();
        self.record_check(&mut enc, kind)?;
        Ok(self.gpu.submit_read::<u32>(enc, &self.live, 1)?[0] == 0)
    }

    /// Records the limiter's max-plus jumping and its application to `hh` (applied only as
    /// `gate` says: the clamps held and the first lift check did not).
    fn record_lift(&self, enc: &mut wgpu::CommandEncoder) -> Result<(), GpuError> {
        self.record_one(enc, "lift_init", &self.map_binds(&[]))?;
        self.record_jumps(enc, Jump::MaxPlus)?;
        self.record_one(enc, "apply_lift", &[(0, &self.sp[0]), (4, &self.hh), (16, &self.h2), (37, &self.gate)])
    }

    /// The clamps and the limiter with one read-back in the usual case (untyped clamps): one
    /// submission records the refine check, the first lift check, the max-plus limiter (applied
    /// on the device only where the clamps held and the lift check failed) and the second lift
    /// check, and reads the three counts. The decisions, and so the results, are those of
    /// [`Self::refine`] then [`Self::lift`], which run instead where the clamps did not hold.
    ///
    /// The sediment's commands are recorded before the wait and submitted right after it when
    /// no pass has to run (the device then waits for the read-back only, not for the recording).
    fn clamps_and_limiter(&self, mark: &mut dyn FnMut(&'static str) -> Result<(), GpuError>) -> Result<(), GpuError> {
        let mut enc = self.gpu.encoder();
        for (k, kind) in [Jacobi::Refine, Jacobi::Lift].into_iter().enumerate() {
            self.record_check(&mut enc, kind)?;
            enc.copy_buffer_to_buffer(&self.live, 0, &self.gate, 4 * k as u64, 4);
        }
        self.record_lift(&mut enc)?;
        self.record_check(&mut enc, Jacobi::Lift)?;
        enc.copy_buffer_to_buffer(&self.live, 0, &self.gate, 8, 4);
        self.gpu.queue.submit([enc.finish()]);
        let sed = self.record_sediment()?;
        let g = self.gpu.submit_read::<u32>(self.gpu.encoder(), &self.gate, 3)?;
        if g[0] != 0 {
            // The clamps did not hold (nothing was lifted): passes, then the limiter as usual.
            self.settle_clamps()?;
            mark("incision (clamps)")?;
            self.lift()?;
            mark("limiter")?;
            return self.sediment();
        }
        mark("incision (clamps)")?;
        if g[1] != 0 && g[2] != 0 {
            // The jumped limiter is exact but where `⊕` crosses a binade: passes.
            self.passes(Jacobi::Lift)?;
            mark("limiter")?;
            return self.sediment();
        }
        mark("limiter")?;
        self.gpu.queue.submit([sed.finish()]);
        Ok(())
    }

    /// The CPU's clamps on the affine solution: while the exact rule does not hold (a cell would
    /// move by more than round-off), up to `typed_rounds` rounds of typing the clamps from the current
    /// solution (`classify_incise`) and solving again, then Jacobi passes until none moves (the
    /// result in `hh`).
    fn refine(&self) -> Result<(), GpuError> {
        for _ in 0..self.typed_rounds {
            if self.rule_holds(Jacobi::Refine)? {
                return Ok(());
            }
            self.typed_solve()?;
        }
        if self.rule_holds(Jacobi::Refine)? {
            return Ok(());
        }
        self.settle_clamps()
    }

    /// Types the clamps from the current solution (`classify_incise`) and jumps the maps again.
    fn typed_solve(&self) -> Result<(), GpuError> {
        let mut enc = self.gpu.encoder();
        self.record_one(&mut enc, "classify_incise", &self.map_binds(&[(6, &self.before), (19, &self.settle)]))?;
        self.record_solve(&mut enc)?;
        self.gpu.queue.submit([enc.finish()]);
        Ok(())
    }

    /// The clamps where the check failed: rounds of `pass_pairs` pairs of tile passes, which
    /// settle the clamps where they act (lakes whose uplift made donors sink below their
    /// receivers), then typing from that solution and jumping again, which carries the settled
    /// values up the rivers above them in one jump instead of one tile per pass; after
    /// `pass_rounds` such rounds, passes to the end.
    fn settle_clamps(&self) -> Result<(), GpuError> {
        for _ in 0..self.pass_rounds {
            if self.passes_upto(Jacobi::Refine, self.pass_pairs)? {
                return Ok(());
            }
            self.typed_solve()?;
            self.typed_solves.set(self.typed_solves.get() + 1);
            if self.rule_holds(Jacobi::Refine)? {
                return Ok(());
            }
        }
        self.passes(Jacobi::Refine)
    }

    /// Raises cells at or below their receiver until none is: the CPU's limiter along the
    /// stack as max-plus pointer jumping (`lift_init`, the jumps, `apply_lift`), then Jacobi
    /// passes of the exact rule until none moves (the result in `hh`).
    fn lift(&self) -> Result<(), GpuError> {
        // The usual case after the incision: the surface already descends everywhere.
        if self.rule_holds(Jacobi::Lift)? {
            return Ok(());
        }
        // Apply the limiter unconditionally (the gate of the fused path, `clamps_and_limiter`).
        self.gpu.queue.write_buffer(&self.gate, 0, bytemuck::cast_slice(&[0u32, 1, 0, 0]));
        let mut enc = self.gpu.encoder();
        self.record_lift(&mut enc)?;
        self.gpu.queue.submit([enc.finish()]);
        // The jumped limiter is exact but where `⊕` crosses a binade: passes only if needed.
        if self.rule_holds(Jacobi::Lift)? {
            return Ok(());
        }
        self.passes(Jacobi::Lift)
    }

    /// One step: routing, uplift, incision, sediment proxy, diffusion, limiter.
    pub fn step(&mut self) -> Result<(), GpuError> {
        self.step_marked(&mut |_| Ok(()))
    }

    /// [`Self::step`], waiting for the device after each phase and returning each phase's
    /// milliseconds (routing, accumulation, incision, refine, limiter, sediment, diffusion); for
    /// the benchmark: the waits cost a little.
    pub fn step_timed(&mut self) -> Result<Vec<(&'static str, f64)>, GpuError> {
        let gpu = self.gpu;
        gpu.submit_wait(gpu.encoder())?;
        let mut t = std::time::Instant::now();
        let mut out = Vec::new();
        self.step_marked(&mut |name| {
            gpu.submit_wait(gpu.encoder())?;
            out.push((name, t.elapsed().as_secs_f64() * 1e3));
            t = std::time::Instant::now();
            Ok(())
        })?;
        Ok(out)
    }

    fn step_marked(&mut self, mark: &mut dyn FnMut(&'static str) -> Result<(), GpuError>) -> Result<(), GpuError> {
        let (gpu, n) = (self.gpu, (self.w * self.ht) as u64);
        if n == 0 {
            self.steps_run += 1;
            return Ok(());
        }
        self.rt.route(gpu, &self.hh)?;
        mark("routing")?;
        self.rt.accumulate(gpu)?;
        mark("accumulation")?;
        let (rcv, dist, count) = (&self.rt.rcv, &self.rt.dist, &self.rt.count);
        let mut enc = gpu.encoder();
        self.record_one(
            &mut enc,
            "prep",
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
        )?;
        // The affine solution (one submission, no host wait); `refine` types the clamps.
        self.record_solve(&mut enc)?;
        gpu.queue.submit([enc.finish()]);
        mark("incision (affine jumping)")?;
        if !self.p.guards {
            // The bare scheme: no clamps (`incise` keeps the jumped heights), no limiter.
            self.sediment()?;
        } else if self.typed_rounds == 0 {
            // Also submits the sediment.
            self.clamps_and_limiter(mark)?;
        } else {
            self.refine()?;
            mark("incision (clamps)")?;
            self.lift()?;
            mark("limiter")?;
            self.sediment()?;
        }
        mark("sediment")?;
        self.diffuse()?;
        mark("diffusion")?;
        self.steps_run += 1;
        Ok(())
    }

    /// The sediment proxy in two levels (`sd_local` in `stream_power.wgsl`): the cells' own
    /// fluxes and factors (kept in the maps' buffers `ab[0]`, `bb[0]`, free by now), in-tile sums,
    /// the roots' accumulation, in-tile sums again into the sediment.
    fn sediment(&self) -> Result<(), GpuError> {
        let enc = self.record_sediment()?;
        self.gpu.queue.submit([enc.finish()]);
        Ok(())
    }

    /// [`Self::sediment`]'s commands, recorded but not submitted (a step records them while the
    /// device runs the incision, and submits them as soon as the checks allow).
    fn record_sediment(&self) -> Result<wgpu::CommandEncoder, GpuError> {
        let gpu = self.gpu;
        let names = ["sd_local", "roots_args", "sd_link", "sed_jump", "sd_fix", "sd_final"];
        let pl = names.iter().map(|e| gpu.pipeline(NAME, SRC, e)).collect::<Result<Vec<_>, _>>()?;
        let mut enc = gpu.encoder();
        let (q0, f0) = (&self.ab[0], &self.bb[0]);
        let rt = &self.rt;
        let (list, len, xr) = ((29, &rt.roots), (30, &rt.nroots), (28, &rt.xr));
        let (q0b, f0b, gg, slotof) = ((32, q0), (33, f0), (34, &self.ab[1]), (35, &rt.slot));
        // The rounds' values in place in ss[1] (by slot); their additions alternate between
        // z[0] (bb[1], free here) and z[1] (ss[0], free once sd_link has packed the sums).
        let z = [&self.bb[1], &self.ss[0]];
        let (fixed, rounds) = self.sed_bgs.get_or_init(|| {
            let d0 = (0, &self.sp[0]);
            let rcv = (1, &rt.rcv);
            let svals = (39, &self.ss[1]);
            let fixed = [
                // `sd_local` also does the cells' own part (`sed_init_cell`): q0, f0 written.
                gpu.bind(
                    &pl[0],
                    &[
                        d0,
                        rcv,
                        (2, &rt.dist),
                        (4, &self.hh),
                        (6, &self.before),
                        (13, &self.ss[0]),
                        (17, &self.eroded),
                        (19, &self.settle),
                        (42, q0),
                        (43, f0),
                        gg,
                        xr,
                        list,
                        len,
                        slotof,
                    ],
                ),
                gpu.bind(&pl[1], &[len, (31, &rt.ind)]),
                gpu.bind(
                    &pl[2],
                    &[
                        rcv,
                        (10, &self.pp[0]),
                        (12, &self.ss[0]),
                        (15, &self.ff[0]),
                        f0b,
                        gg,
                        xr,
                        list,
                        len,
                        slotof,
                        svals,
                        (41, z[0]),
                    ],
                ),
                gpu.bind(&pl[4], &[(11, &self.live), len, svals, (40, z[0]), (41, z[1])]),
                gpu.bind(
                    &pl[5],
                    &[d0, rcv, (12, &self.ss[1]), (18, &self.sediment), (19, &self.settle), q0b, f0b, slotof],
                ),
            ];
            let rounds: Vec<wgpu::BindGroup> = (0..jump_rounds(self.w * self.ht))
                .map(|r| {
                    // Round r: pointers and factors from buffer r mod 2, additions into
                    // z[r mod 2], folding in z[1 − r mod 2] (not read at round 0).
                    let (a, b) = (r % 2, 1 - r % 2);
                    gpu.bind(
                        &pl[3],
                        &[
                            (0, &self.sp[r]),
                            (8, &self.pp[a]),
                            (10, &self.pp[b]),
                            (11, &self.live),
                            (13, z[a]),
                            (14, &self.ff[a]),
                            (15, &self.ff[b]),
                            len,
                            svals,
                            (40, z[b]),
                        ],
                    )
                })
                .collect();
            (fixed, rounds)
        });
        enc.clear_buffer(&self.live, 0, None);
        enc.clear_buffer(&rt.nroots, 0, None);
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            let tiles = (self.w.div_ceil(16) as u32, self.ht.div_ceil(16) as u32);
            let ind = &rt.ind;
            dispatch_groups(&mut pass, &pl[0], &fixed[0], tiles);
            dispatch_groups(&mut pass, &pl[1], &fixed[1], (1, 1));
            dispatch_indirect(&mut pass, &pl[2], &fixed[2], ind);
            for j in rounds {
                dispatch_indirect(&mut pass, &pl[3], j, ind);
            }
            dispatch_indirect(&mut pass, &pl[4], &fixed[3], ind);
            dispatch_groups(&mut pass, &pl[5], &fixed[4], tiles);
        }
        Ok(enc)
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
        // The limiter after diffusion (none in the bare scheme).
        if self.p.guards {
            self.lift()?;
        }
        Ok(())
    }

    /// The tiles each refine or lift pass pair moved (by more than round-off), pair by pair,
    /// since the last call; for the benchmark.
    pub fn take_pair_tiles(&self) -> Vec<u32> {
        std::mem::take(&mut self.pair_tiles.borrow_mut())
    }

    /// Submissions of up to `MAX_ROUNDS` pairs of refine or lift passes so far (two per step
    /// without diffusion, three with, when each converges within one).
    pub fn pass_submissions(&self) -> usize {
        self.submissions.get()
    }

    /// Pairs of refine or lift Jacobi passes so far that still moved a cell: what the typed
    /// jumping left to the passes of the exact rule (0 when it got everything).
    pub fn moving_pass_pairs(&self) -> usize {
        self.moving_pairs.get()
    }

    /// Sets the most rounds of typing the incision clamps per step (default 0) before the
    /// Jacobi passes of the exact rule take over; the result depends on it only within
    /// round-off (the passes end when no cell moves by more than 1e-12 of its height), the
    /// time more.
    pub fn set_typed_rounds(&mut self, rounds: usize) {
        self.typed_rounds = rounds;
    }

    /// Where the clamps' check fails after the incision: up to `rounds` rounds of at most `pairs`
    /// pairs of tile passes followed by a typed solve (the clamps typed from the passes' solution
    /// and the maps jumped again), then passes until none moves. `rounds = 0` (the default) runs
    /// the passes only. Typing cuts the moving pairs, but each typed solve is a full affine jump
    /// and moves most tiles by round-off, so on a large GPU it is slower than passes over lists
    /// of active tiles (on lavapipe it is faster; `docs/gpu.md`). The result is the exact
    /// rule's fixed point either way, within the passes' round-off threshold.
    pub fn set_pass_typing(&mut self, pairs: usize, rounds: usize) {
        self.pass_pairs = pairs.max(1);
        self.pass_rounds = rounds;
    }

    /// Typed solves run where the clamps' check failed ([`Self::set_pass_typing`]), so far.
    pub fn typed_solves(&self) -> usize {
        self.typed_solves.get()
    }

    /// Waits until the device has finished the steps submitted so far.
    pub fn sync(&self) -> Result<(), GpuError> {
        self.gpu.submit_wait(self.gpu.encoder())
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

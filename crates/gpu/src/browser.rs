//! The kernels as a browser's WebGPU runs them: `f32` variants generated from the same WGSL
//! files, the CPU reference of each variant's exactness contract, and a native run of the
//! variant (wgpu) to hold all three to one another.
//!
//! WebGPU has no `f64`. A variant is the kernel's source with `alias R = f64;` rewritten to
//! `f32` and `exact.wgsl`'s `f64` constants (the ulp nudge, Veltkamp's splitter, the smallest
//! normal, the largest finite value, the smallest subnormal) rewritten to their `f32` values;
//! every rewrite is checked to hit, so a change of the sources that breaks one fails loudly.
//! A kernel may add rewrites of its own (the droplets': [`droplets_wgsl_f32`]). The viewer loads
//! the generated files from `web/src/gpu/` (the test `tests/browser.rs` keeps them equal to
//! [`thermal_wgsl_f32`] and [`droplets_wgsl_f32`]; `BOZKIR_REGEN=1` rewrites them).
//!
//! **Thermal, `f32` contract:** the same operations as the `f64` kernel in the same order, in
//! `f32`: sums and differences correctly rounded (WGSL), every product that feeds a sum rounded
//! on its own (`mulr`), the division corrected to the correctly rounded quotient (`div_rn`). So
//! the result is one function of the input, which [`thermal_f32_reference`] computes on the CPU
//! and the GPU reproduces bit for bit, natively ([`thermal_f32`]) and in the browser
//! (`web/src/gpu/thermal.js`). It is not the `f64` kernel's result: heights in `f32` carry about
//! 7 digits (a 1000 m relief resolves to about 0.1 mm).
//!
//! **Droplets, `f32` contract:** the native kernel's batch-synchronous scheme (batches against
//! frozen heights, contributions in `2^-20 m` units summed with `i32` atomics, the fold between
//! batches) with its operations in `f32`; the starts are drawn from 24 bits and every integer that
//! can pass `2^24` is converted in two exact halves, so the result (heights, wear, deposit,
//! stats) is one function of the input: [`droplets_f32_reference`] on the CPU, reproduced bit for
//! bit by [`droplets_f32`] and by `web/src/gpu/droplets.js`. Not the `f64` run's droplets.

use std::sync::OnceLock;

use bozkir_core::{hash_u32, Grid};
use bozkir_terrain::erosion::droplets::{effective_batch, DropletParams};
use bozkir_terrain::erosion::shallow_water::ShallowWaterParams;

use crate::context::{dispatch, Gpu, GpuError};

/// `(f64 text, f32 text, occurrences)` of every precision-specific piece of `exact.wgsl`.
const EXACT_F32: [(&str, &str, usize); 6] = [
    (
        "const NUDGE: f64 = 1.0 / 9007199254740992.0 + 1.0 / 40564819207303340847894502572032.0;",
        // 2^-24 + 2^-47: more than half and less than one and a half of an f32 ulp.
        "const NUDGE: f32 = 5.960465188081798e-8;",
        1,
    ),
    // Veltkamp's splitter for 24 bits: 2^12 + 1.
    ("mulr(134217729.0, a)", "mulr(4097.0, a)", 1),
    // The smallest normal.
    ("2.2250738585072014e-308", "1.1754943508222875e-38", 1),
    // The smallest subnormal (a device may flush f32 subnormals: next_up is not used by the
    // f32 variants).
    ("4.9406564584124654e-324", "1.401298464324817e-45", 1),
    // The largest finite value.
    ("1.7976931348623157e308", "3.4028234663852886e38", 2),
    ("alias R = f64", "alias R = f32", 0),
];

/// Corrections of the device's quotient and square root: WGSL allows `f32` division 2.5 ulp of
/// error (and the square root more), so the `f32` variants correct three times where the `f64`
/// kernels (devices within 2 ulp) correct twice; each correction only moves towards the
/// correctly rounded result.
const CORRECT_F32: [(&str, &str); 2] = [
    ("return div_fix(a, b, div_fix(a, b, q));", "return div_fix(a, b, div_fix(a, b, div_fix(a, b, q)));"),
    ("return sqrt_fix(a, sqrt_fix(a, s));", "return sqrt_fix(a, sqrt_fix(a, sqrt_fix(a, s)));"),
];

/// `src` with `from` replaced by `to`, which must occur exactly `times` times (`0`: any number
/// of times, at least once).
fn rewrite(src: &str, from: &str, to: &str, times: usize) -> String {
    let hits = src.matches(from).count();
    assert!(
        hits > 0 && (times == 0 || hits == times),
        "browser variant: {from:?} occurs {hits} times in the source, expected {}",
        if times == 0 { "at least one".to_string() } else { times.to_string() }
    );
    src.replace(from, to)
}

/// Whether `code` names `word` as a whole identifier (not inside another, as `next_f64`).
fn names(code: &str, word: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    code.match_indices(word).any(|(i, _)| {
        let before = code[..i].chars().next_back();
        let after = code[i + word.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// The `f32` variant of a kernel module composed as `kernel` (with its own `rewrites`), then
/// `exact.wgsl`, then `tail`.
fn f32_variant(kernel: &str, rewrites: &[(&str, &str, usize)], tail: &[&str]) -> String {
    f32_module(kernel, rewrites, true, tail)
}

/// [`f32_variant`], with `exact.wgsl` only when `exact` (a kernel without divisions or square
/// roots, such as the routing, has no use for it).
fn f32_module(kernel: &str, rewrites: &[(&str, &str, usize)], exact_wgsl: bool, tail: &[&str]) -> String {
    let mut src = rewrite(kernel, "alias R = f64;", "alias R = f32;", 1);
    for &(from, to, times) in rewrites {
        src = rewrite(&src, from, to, times);
    }
    let mut exact = include_str!("../shaders/exact.wgsl").to_string();
    for (from, to, times) in EXACT_F32 {
        if from.starts_with("alias") {
            continue;
        }
        exact = rewrite(&exact, from, to, times);
    }
    for (from, to) in CORRECT_F32 {
        exact = rewrite(&exact, from, to, 1);
    }
    if exact_wgsl {
        src.push_str(&exact);
    }
    for t in tail {
        src.push_str(t);
    }
    let code = src.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    assert!(!names(&code, "f64"), "browser variant: f64 left in the f32 source");
    src
}

/// The header of the generated file of `kernel`.
fn header(kernel: &str, from: &str) -> String {
    format!(
        "// GENERATED by bozkir-gpu (crates/gpu/src/browser.rs) from crates/gpu/shaders/{kernel}\n\
         // and {from}: the f32 variant for WebGPU (R = f32; the comments below still speak of the\n\
         // f64 original). Do not edit; regenerate with\n\
         // BOZKIR_REGEN=1 cargo test -p bozkir-gpu --test browser.\n"
    )
}

/// The thermal kernel's `f32` module as the browser compiles it (`web/src/gpu/thermal.wgsl`).
pub fn thermal_wgsl_f32() -> &'static str {
    static SRC: OnceLock<String> = OnceLock::new();
    SRC.get_or_init(|| {
        let body = f32_variant(include_str!("../shaders/thermal.wgsl"), &[], &[]);
        format!("{}{body}", header("thermal.wgsl", "exact.wgsl"))
    })
}

/// The droplet kernel's rewrites beyond `R` (see [`droplets_wgsl_f32`]).
const DROPLETS_F32: [(&str, &str, usize); 9] = [
    ("const UNIT: f64 = 1.0 / 1048576.0;", "const UNIT: f32 = 1.0 / 1048576.0;", 1),
    ("const SCALE: f64 = 1048576.0;", "const SCALE: f32 = 1048576.0;", 1),
    // A uniform in [0, 1) from the top 24 of the 27 bits (53 bits would round up to 1 in f32).
    ("    let b = hash(c + 1u, 0u, seed) >> 6u;\n", "", 1),
    (
        "    return (R(a) * 67108864.0 + R(b)) * (1.0 / 9007199254740992.0);",
        "    return R(a >> 3u) * (1.0 / 16777216.0);",
        1,
    ),
    ("!(len < 1.7976931348623157e308)", "!(len < 3.4028234663852886e38)", 1),
    // Integers past 2^24 convert to f32 with a rounding WGSL leaves to the device: the f32
    // variant converts them in two 16-bit halves, each exact (`to_r`, `to_ru` in DROPLETS_TAIL;
    // one rounding, the sum's), and its guards use limits exact in f32.
    ("let sed_m = R(sed) * UNIT;", "let sed_m = to_r(sed) * UNIT;", 1),
    ("let tf = R(total);", "let tf = to_r(total);", 1),
    (
        "R(sed) + ef >= 2147483647.0 || R(eroded) + ef >= 4294967295.0",
        "to_r(sed) + ef >= 2147483648.0 || to_ru(eroded) + ef >= 4294967296.0",
        1,
    ),
    // The low word in two 16-bit halves, each exact in f32: one rounding, the sum's.
    (
        "hc[i] = h0[i] + (R(i32(hi)) * 4294967296.0 + R(lo)) * UNIT;",
        "hc[i] = h0[i] + (R(i32(hi)) * 4294967296.0 + (R(lo >> 16u) * 65536.0 + R(lo & 0xffffu))) * UNIT;",
        1,
    ),
];

/// The integer-to-`f32` conversions of the droplet variant (appended).
const DROPLETS_TAIL: &str = "
// f32 variant only (bozkir-gpu, browser.rs): integers to f32 in two 16-bit halves, each exact, so
// the one rounding is the sum's (correctly rounded), whatever the device does with large ones.
fn to_r(v: i32) -> R {
    return R(v >> 16u) * 65536.0 + R(v & 0xffff);
}

fn to_ru(v: u32) -> R {
    return R(v >> 16u) * 65536.0 + R(v & 0xffffu);
}
";

/// The droplet kernel's `f32` module as the browser compiles it (`web/src/gpu/droplets.wgsl`).
pub fn droplets_wgsl_f32() -> &'static str {
    static SRC: OnceLock<String> = OnceLock::new();
    SRC.get_or_init(|| {
        let body = f32_variant(
            include_str!("../shaders/droplets.wgsl"),
            &DROPLETS_F32,
            &[include_str!("../shaders/hash.wgsl"), DROPLETS_TAIL],
        );
        format!("{}{body}", header("droplets.wgsl", "exact.wgsl, hash.wgsl"))
    })
}

/// The talus table of the thermal kernels: `tan(talus)·L_k` then `tan(talus + margin)·L_k` over
/// the neighbours NW, N, NE, W, E, SW, S, SE (`L` the step's length in metres).
pub fn thermal_table(talus_deg: f64, margin_deg: f64, dx: f64, dy: f64) -> [f64; 16] {
    let tan_deg = |d: f64| libm::tan(d.to_radians());
    let (t, ta) = (tan_deg(talus_deg), tan_deg(talus_deg + margin_deg));
    let dd = (dx * dx + dy * dy).sqrt();
    let dist = [dd, dy, dd, dx, dx, dd, dy, dd];
    let mut tab = [0.0; 16];
    for k in 0..8 {
        tab[k] = t * dist[k];
        tab[8 + k] = ta * dist[k];
    }
    tab
}

/// The inputs of the `f32` thermal kernel: heights (row-major, `width × height`), the talus
/// table ([`thermal_table`] rounded to `f32`), half the rate, and the iterations.
#[derive(Debug, Clone)]
pub struct ThermalF32 {
    pub width: usize,
    pub height: usize,
    pub z: Vec<f32>,
    pub table: [f32; 16],
    pub half_rate: f32,
    pub iterations: usize,
}

impl ThermalF32 {
    fn check(&self) {
        assert_eq!(self.z.len(), self.width * self.height, "thermal f32: heights do not match the grid");
        assert!(self.half_rate > 0.0 && self.half_rate <= 0.5, "thermal f32: half the rate must be in (0, 0.5]");
    }
}

/// Neighbour `k` (NW, N, NE, W, E, SW, S, SE) of `(x, y)`, or `None` outside the grid.
fn neighbour(x: usize, y: usize, k: usize, w: usize, h: usize) -> Option<usize> {
    const O: [(isize, isize); 8] = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)];
    let (nx, ny) = (x as isize + O[k].0, y as isize + O[k].1);
    (nx >= 0 && ny >= 0 && nx < w as isize && ny < h as isize).then(|| ny as usize * w + nx as usize)
}

/// The `f32` thermal kernel's result computed on the CPU, operation for operation as
/// `thermal.wgsl` in `f32` (the contract the GPU variants are held to bit for bit).
pub fn thermal_f32_reference(input: &ThermalF32) -> Vec<f32> {
    input.check();
    let (w, h, tab) = (input.width, input.height, &input.table);
    let mut z = input.z.clone();
    let mut wgt = vec![0.0f32; z.len()];
    let mut next = vec![0.0f32; z.len()];
    for _ in 0..input.iterations {
        for (i, wi) in wgt.iter_mut().enumerate() {
            let (x, y) = (i % w, i / w);
            let (mut total, mut emax, mut act) = (0.0f32, 0.0f32, false);
            for k in 0..8 {
                if let Some(j) = neighbour(x, y, k, w, h) {
                    let dr = z[i] - z[j];
                    let e = dr - tab[k];
                    if e > 0.0 {
                        total += e;
                        emax = emax.max(e);
                        act = act || dr > tab[8 + k];
                    }
                }
            }
            *wi = if act { input.half_rate * emax / total } else { 0.0 };
        }
        for (j, out_j) in next.iter_mut().enumerate() {
            let (x, y) = (j % w, j / w);
            let (zj, wj) = (z[j], wgt[j]);
            let (mut out, mut inn) = (0.0f32, 0.0f32);
            for k in 0..8 {
                if let Some(i) = neighbour(x, y, k, w, h) {
                    if wj > 0.0 {
                        let e = (zj - z[i]) - tab[k];
                        if e > 0.0 {
                            out += wj * e;
                        }
                    }
                    let wi = wgt[i];
                    if wi > 0.0 {
                        let e = (z[i] - zj) - tab[7 - k];
                        if e > 0.0 {
                            inn += wi * e;
                        }
                    }
                }
            }
            *out_j = zj - out + inn;
        }
        std::mem::swap(&mut z, &mut next);
    }
    z
}

/// The uniform of the `f32` thermal module (`Dims` with `R = f32`), padded to 32 bytes.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct DimsF32 {
    w: u32,
    h: u32,
    n: u32,
    it: u32,
    half_rate: f32,
    zero: f32,
    pad: [u32; 2],
}

/// The `f32` thermal variant run natively (wgpu): what the browser runs, on this machine's
/// adapter. Every iteration runs (no early stop: an iteration without active cells changes
/// nothing).
pub fn thermal_f32(gpu: &Gpu, input: &ThermalF32) -> Result<Vec<f32>, GpuError> {
    input.check();
    let (w, h) = (input.width, input.height);
    let n = w * h;
    if n == 0 || input.iterations == 0 {
        return Ok(input.z.clone());
    }
    gpu.check_grid(w, h, 4)?;
    const NAME: &str = "thermal.f32.wgsl";
    let src = thermal_wgsl_f32();
    let dims = gpu.uniform(
        "thermal f32 dims",
        &DimsF32 { w: w as u32, h: h as u32, n: n as u32, it: 0, half_rate: input.half_rate, zero: 0.0, pad: [0; 2] },
    );
    let tab = gpu.buffer("thermal f32 talus", &input.table);
    let za = gpu.buffer("thermal f32 z", &input.z);
    let zb = gpu.zeroed("thermal f32 z2", 4 * n as u64);
    let wgt = gpu.zeroed("thermal f32 w", 4 * n as u64);
    let busy = gpu.zeroed("thermal f32 busy", 4);
    let pw = gpu.pipeline(NAME, src, "weights")?;
    let pr = gpu.pipeline(NAME, src, "relax")?;
    let mut enc = gpu.encoder();
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        for it in 0..input.iterations {
            let (a, b) = if it % 2 == 0 { (&za, &zb) } else { (&zb, &za) };
            dispatch(&mut pass, &pw, &gpu.bind(&pw, &[(0, &dims), (1, a), (2, &wgt), (3, &tab), (4, &busy)]), n as u64);
            dispatch(&mut pass, &pr, &gpu.bind(&pr, &[(0, &dims), (1, a), (3, &tab), (5, &wgt), (6, b)]), n as u64);
        }
    }
    gpu.queue.submit([enc.finish()]);
    let out = if input.iterations % 2 == 1 { &zb } else { &za };
    gpu.read::<f32>(out, n)
}

/// The inputs of the `f32` droplet kernel, as its uniform and brush take them: heights
/// (row-major), the uniform's floats (`keep` … `pad0` of droplets.wgsl's `Params`, rounded to
/// `f32`), the run's integers, and the brush (weights normalised in `f64` then rounded, offsets,
/// the centre last). [`DropletsF32::new`] makes them from a grid and [`DropletParams`] as the
/// native kernel does.
#[derive(Debug, Clone)]
pub struct DropletsF32 {
    pub width: usize,
    pub height: usize,
    pub h0: Vec<f32>,
    pub f: [f32; 18],
    pub seed: u32,
    pub lifetime: u32,
    pub total: u32,
    pub batch: u32,
    pub brush_w: Vec<f32>,
    pub brush_o: Vec<[i32; 2]>,
    pub rx: i32,
    pub ry: i32,
}

impl DropletsF32 {
    /// The `f32` inputs of a batched droplet run of `params` on `initial`.
    ///
    /// # Panics
    /// When `params.validate()` fails, or the grid is under 2 × 2.
    pub fn new(initial: &Grid<f64>, params: &DropletParams) -> Self {
        if let Err(e) = params.validate() {
            panic!("{e}");
        }
        let (w, h) = (initial.width(), initial.height());
        assert!(w >= 2 && h >= 2, "droplets f32: the grid must be at least 2 × 2");
        let (off, wt, rx, ry) = crate::droplets::brush(initial.dx, initial.dy, params.radius);
        Self {
            width: w,
            height: h,
            h0: initial.data().iter().map(|&v| v as f32).collect(),
            f: crate::droplets::param_floats(params, w, h, initial.dx, initial.dy).map(|v| v as f32),
            seed: params.seed,
            lifetime: params.lifetime,
            total: params.droplet_count(w, h),
            batch: effective_batch(params.batch_size, w * h),
            brush_w: wt.iter().map(|&v| v as f32).collect(),
            brush_o: off,
            rx,
            ry,
        }
    }
}

/// What the `f32` droplet kernel gives: heights, the run's wear and deposit in `2^-20 m` units,
/// and the stats (steps, units eroded, deposited, and carried when the droplets ended).
#[derive(Debug, Clone, PartialEq)]
pub struct DropletsF32Output {
    pub height: Vec<f32>,
    pub wear: Vec<i64>,
    pub deposit: Vec<i64>,
    pub steps: u64,
    pub eroded: u64,
    pub deposited: u64,
    pub lost: u64,
}

/// One batch's sums, as the kernel's `i32` atomics hold them (wrapping).
struct BatchSums {
    wear: Vec<i32>,
    deposit: Vec<i32>,
}

impl BatchSums {
    fn add(&mut self, i: usize, k: usize, q: i32) {
        let a = if k == 0 { &mut self.wear[i] } else { &mut self.deposit[i] };
        *a = a.wrapping_add(q);
    }
}

/// The `f32` droplet kernel's result computed on the CPU, operation for operation as the
/// generated `droplets.wgsl` ([`droplets_wgsl_f32`]): batches against frozen heights, integer
/// sums (so the order of the droplets within a batch does not matter), the fold between batches.
/// Errors where the kernel raises its overflow flag (a batch sum near the `i32` range, a droplet
/// past 2048 m of sediment, one erosion past 1024 m).
pub fn droplets_f32_reference(inp: &DropletsF32) -> Result<DropletsF32Output, String> {
    let (w, h) = (inp.width, inp.height);
    let n = w * h;
    assert_eq!(inp.h0.len(), n, "droplets f32: heights do not match the grid");
    let f = &inp.f;
    let (keep, turn, capacity, min_drop, erode, deposit, dry, gravity) =
        (f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]);
    let (water0, speed0, step, sx, sy, dx, dy, xmax, ymax) =
        (f[8], f[9], f[10], f[11], f[12], f[13], f[14], f[15], f[16]);
    const UNIT: f32 = 1.0 / 1_048_576.0;
    const SCALE: f32 = 1_048_576.0;
    let mut hc = inp.h0.clone();
    let (mut totw, mut totd) = (vec![0i64; n], vec![0i64; n]);
    let (mut steps_all, mut eroded_all, mut deposited_all, mut lost_all) = (0u64, 0u64, 0u64, 0u64);
    let next = |seed: u32, c: u32| ((hash_u32(c, 0, seed) >> 5) >> 3) as f32 * (1.0 / 16_777_216.0);
    let mut first = 0u32;
    while first < inp.total {
        let mut sums = BatchSums { wear: vec![0; n], deposit: vec![0; n] };
        let hv = &hc;
        let height_grad = |x: f32, y: f32| -> (f32, f32, f32) {
            let (x0, y0) = (x as u32, y as u32);
            let (tx, ty) = (x - x0 as f32, y - y0 as f32);
            let i = (y0 as usize) * w + x0 as usize;
            let (a, b, c, e) = (hv[i], hv[i + 1], hv[i + w], hv[i + w + 1]);
            let gx = ((b - a) * (1.0 - ty) + (e - c) * ty) / dx;
            let gy = ((c - a) * (1.0 - tx) + (e - b) * tx) / dy;
            let top = a + (b - a) * tx;
            let bot = c + (e - c) * tx;
            (top + (bot - top) * ty, gx, gy)
        };
        for g in 0..inp.batch {
            let k = first.wrapping_add(g);
            if k >= inp.total {
                break;
            }
            let child = hash_u32(hash_u32(k, 0, inp.seed ^ 0x5EED_C41D), k, inp.seed);
            let mut x = (w - 1) as f32 * next(child, 0) + 0.0;
            let mut y = (h - 1) as f32 * next(child, 2) + 0.0;
            let (mut dirx, mut diry, mut speed, mut water) = (0.0f32, 0.0f32, speed0, water0);
            let (mut sed, mut steps, mut eroded, mut deposited) = (0i32, 0u32, 0u32, 0u32);
            let mut here = height_grad(x, y);
            for _ in 0..inp.lifetime {
                let h0v = here.0;
                dirx = dirx * keep - here.1 * turn;
                diry = diry * keep - here.2 * turn;
                let len = (dirx * dirx + diry * diry).sqrt();
                if len == 0.0 || len.is_nan() || len >= f32::MAX {
                    break;
                }
                dirx /= len;
                diry /= len;
                let (nx, ny) = (x + dirx * sx, y + diry * sy);
                if !(nx >= 0.0 && ny >= 0.0 && nx < xmax && ny < ymax) {
                    break;
                }
                let nxt = height_grad(nx, ny);
                let dh = nxt.0 - h0v;
                let sed_m = to_r(sed) * UNIT;
                let cap = (-dh).max(min_drop) * speed * water * capacity;
                if sed_m > cap || dh > 0.0 {
                    let d = if dh > 0.0 { dh.min(sed_m) } else { (sed_m - cap) * deposit };
                    let dq = ((d.max(0.0) * SCALE) as i32).min(sed);
                    if dq > 0 {
                        deposit_at(&mut sums, x, y, dq, w);
                        sed -= dq;
                        deposited = deposited.wrapping_add(dq as u32);
                    }
                } else {
                    let e = ((cap - sed_m) * erode).min(-dh);
                    let ef = e.max(0.0) * SCALE;
                    if ef >= 1_073_741_824.0
                        || to_r(sed) + ef >= 2_147_483_648.0
                        || to_ru(eroded) + ef >= 4_294_967_296.0
                    {
                        return Err(format!("droplet {k}: one erosion past 1024 m or a droplet past 2048 m of sediment or 4096 m eroded (the kernel's limits)"));
                    }
                    let eq = ef as i32;
                    if eq > 0 {
                        erode_at(&mut sums, inp, (x + 0.5) as i32, (y + 0.5) as i32, eq, ef.floor());
                        sed += eq;
                        eroded = eroded.wrapping_add(eq as u32);
                    }
                }
                speed = ((speed * speed) - (gravity * dh) / step).max(0.0).sqrt();
                water *= dry;
                x = nx;
                y = ny;
                steps += 1;
                here = nxt;
            }
            steps_all += u64::from(steps);
            eroded_all += u64::from(eroded);
            deposited_all += u64::from(deposited);
            lost_all += u64::from(sed as u32);
        }
        for i in 0..n {
            let (dw, dd) = (sums.wear[i], sums.deposit[i]);
            if dw == 0 && dd == 0 {
                continue;
            }
            if dw.unsigned_abs() > 1_073_741_823 || dd.unsigned_abs() > 1_073_741_823 {
                return Err(format!("cell {i}: a batch's wear or deposit passed 1024 m"));
            }
            totw[i] = totw[i].wrapping_add(i64::from(dw));
            totd[i] = totd[i].wrapping_add(i64::from(dd));
            let diff = totd[i].wrapping_sub(totw[i]) as u64;
            let (hi, lo) = ((diff >> 32) as u32 as i32, diff as u32);
            let v = hi as f32 * 4_294_967_296.0 + ((lo >> 16) as f32 * 65536.0 + (lo & 0xffff) as f32);
            hc[i] = inp.h0[i] + v * UNIT;
        }
        first = first.wrapping_add(inp.batch);
        if inp.batch == 0 {
            break;
        }
    }
    Ok(DropletsF32Output {
        height: hc,
        wear: totw,
        deposit: totd,
        steps: steps_all,
        eroded: eroded_all,
        deposited: deposited_all,
        lost: lost_all,
    })
}

/// `v` as `f32` in two 16-bit halves (the variant's `to_r`): one rounding, the sum's.
fn to_r(v: i32) -> f32 {
    (v >> 16) as f32 * 65536.0 + (v & 0xffff) as f32
}

/// `v` as `f32` in two 16-bit halves (the variant's `to_ru`).
fn to_ru(v: u32) -> f32 {
    (v >> 16) as f32 * 65536.0 + (v & 0xffff) as f32
}

/// The kernel's `erode_at` in `f32`: `total` units worn around `(cx, cy)` by the brush, the
/// remainder at the centre.
fn erode_at(sums: &mut BatchSums, inp: &DropletsF32, cx: i32, cy: i32, total: i32, tf: f32) {
    let (w, h) = (inp.width as i32, inp.height as i32);
    let c = (cy * w + cx) as usize;
    let nb = inp.brush_w.len() - 1;
    let mut sum = 0i32;
    let inside = |o: [i32; 2]| cx + o[0] >= 0 && cy + o[1] >= 0 && cx + o[0] < w && cy + o[1] < h;
    if cx >= inp.rx && cy >= inp.ry && cx + inp.rx < w && cy + inp.ry < h {
        for j in 0..nb {
            let q = (tf * inp.brush_w[j] + 0.5) as i32;
            if q != 0 {
                let o = inp.brush_o[j];
                sums.add(((cy + o[1]) * w + cx + o[0]) as usize, 0, q);
                sum = sum.wrapping_add(q);
            }
        }
    } else {
        let mut wsum = 0.0f32;
        for j in 0..inp.brush_w.len() {
            if inside(inp.brush_o[j]) {
                wsum += inp.brush_w[j];
            }
        }
        for j in 0..nb {
            let o = inp.brush_o[j];
            if inside(o) {
                let q = (tf * (inp.brush_w[j] / wsum) + 0.5) as i32;
                if q != 0 {
                    sums.add(((cy + o[1]) * w + cx + o[0]) as usize, 0, q);
                    sum = sum.wrapping_add(q);
                }
            }
        }
    }
    sums.add(c, 0, total.wrapping_sub(sum));
}

/// The kernel's `deposit_at` in `f32`: `total` units shared bilinearly, the remainder to the
/// largest weight.
fn deposit_at(sums: &mut BatchSums, x: f32, y: f32, total: i32, w: usize) {
    let (x0, y0) = (x as u32 as usize, y as u32 as usize);
    let (tx, ty) = (x - x0 as f32, y - y0 as f32);
    let i = y0 * w + x0;
    let wts = [(1.0 - tx) * (1.0 - ty), tx * (1.0 - ty), (1.0 - tx) * ty, tx * ty];
    let idx = [i, i + 1, i + w, i + w + 1];
    let tf = to_r(total);
    let mut q = [0i32; 4];
    let mut best = 0;
    for j in 0..4 {
        q[j] = (tf * wts[j] + 0.5) as i32;
        if wts[j] > wts[best] {
            best = j;
        }
    }
    q[best] = q[best].wrapping_add(total.wrapping_sub(q[0].wrapping_add(q[1]).wrapping_add(q[2]).wrapping_add(q[3])));
    for j in 0..4 {
        if q[j] != 0 {
            sums.add(idx[j], 1, q[j]);
        }
    }
}

/// The uniform of the `f32` droplet module (`Params` with `R = f32`), padded to 128 bytes.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct ParamsF32 {
    f: [f32; 18],
    u: [u32; 8],
    rx: i32,
    ry: i32,
    cap: u32,
    dense: u32,
    pad: [u32; 2],
}

/// The `f32` droplet variant run natively (wgpu), with the dense fold (every cell visited
/// between batches, as the browser host does).
pub fn droplets_f32(gpu: &Gpu, inp: &DropletsF32) -> Result<DropletsF32Output, GpuError> {
    let (w, h) = (inp.width, inp.height);
    let n = w * h;
    gpu.check_grid(w, h, 8)?;
    const NAME: &str = "droplets.f32.wgsl";
    let src = droplets_wgsl_f32();
    let p = ParamsF32 {
        f: inp.f,
        u: [w as u32, h as u32, n as u32, inp.seed, inp.lifetime, inp.total, inp.batch, inp.brush_w.len() as u32],
        rx: inp.rx,
        ry: inp.ry,
        cap: 1,
        dense: 1,
        pad: [0; 2],
    };
    let ub = gpu.uniform("droplets f32 params", &p);
    let h0 = gpu.buffer("droplets f32 h0", &inp.h0);
    let hc = gpu.buffer("droplets f32 hc", &inp.h0);
    let bacc = gpu.zeroed("droplets f32 bacc", 8 * n as u64);
    let epoch = gpu.zeroed("droplets f32 epoch", 4 * n as u64);
    let list = gpu.zeroed("droplets f32 list", 4);
    let mut st0 = [0u32; 16];
    st0[1] = 1;
    let st = gpu.buffer("droplets f32 state", &st0);
    let bwb = gpu.buffer("droplets f32 brush w", &inp.brush_w);
    let bob = gpu.buffer("droplets f32 brush o", &inp.brush_o);
    let totw = gpu.zeroed("droplets f32 wear", 8 * n as u64);
    let totd = gpu.zeroed("droplets f32 deposit", 8 * n as u64);
    let args = gpu.zeroed("droplets f32 args", 16);
    let drop = gpu.pipeline(NAME, src, "drop")?;
    let next = gpu.pipeline(NAME, src, "next_batch")?;
    let fold = gpu.pipeline(NAME, src, "fold")?;
    let bd =
        gpu.bind(&drop, &[(0, &ub), (2, &hc), (3, &bacc), (4, &epoch), (5, &list), (6, &st), (7, &bwb), (8, &bob)]);
    let bn = gpu.bind(&next, &[(0, &ub), (6, &st), (10, &args)]);
    let bf =
        gpu.bind(&fold, &[(0, &ub), (1, &h0), (2, &hc), (3, &bacc), (5, &list), (6, &st), (9, &totw), (11, &totd)]);
    let batches = if inp.batch == 0 { 0 } else { inp.total.div_ceil(inp.batch) };
    let mut enc = gpu.encoder();
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        for _ in 0..batches {
            dispatch(&mut pass, &drop, &bd, u64::from(inp.batch));
            crate::context::dispatch_groups(&mut pass, &next, &bn, (1, 1));
            dispatch(&mut pass, &fold, &bf, n as u64);
        }
    }
    gpu.queue.submit([enc.finish()]);
    let stv: Vec<u32> = gpu.read(&st, 16)?;
    if stv[12] != 0 {
        return Err(GpuError::Unsupported(format!("droplets f32: overflow flag {}", stv[12])));
    }
    let u64_at = |i: usize| u64::from(stv[i]) | u64::from(stv[i + 1]) << 32;
    Ok(DropletsF32Output {
        height: gpu.read::<f32>(&hc, n)?,
        wear: gpu.read::<i64>(&totw, n)?,
        deposit: gpu.read::<i64>(&totd, n)?,
        steps: u64_at(4),
        eroded: u64_at(6),
        deposited: u64_at(8),
        lost: u64_at(10),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_f32_variant_has_no_f64_left_and_keeps_the_entry_points() {
        let src = thermal_wgsl_f32();
        assert!(src.contains("alias R = f32;") && src.contains("const NUDGE: f32"));
        for entry in ["weights", "relax", "div_rn", "mulr"] {
            assert!(src.contains(&format!("fn {entry}(")), "{entry}");
        }
        // The nudge's literal is 2^-24 + 2^-47, exactly an f32.
        let lit = EXACT_F32[0].1.trim_start_matches("const NUDGE: f32 = ").trim_end_matches(';');
        let v: f64 = lit.parse().unwrap();
        assert_eq!(v, 2f64.powi(-24) + 2f64.powi(-47));
        assert_eq!((v as f32).to_bits(), 0x3380_0001);
        // The other constants are the f32 ones.
        let num = |i: usize| EXACT_F32[i].1.parse::<f64>().unwrap();
        assert_eq!(num(2), f64::from(f32::MIN_POSITIVE));
        assert_eq!(num(3), f64::from(f32::from_bits(1)));
        assert_eq!(num(4), f64::from(f32::MAX));
    }

    #[test]
    #[should_panic(expected = "occurs 0 times")]
    fn a_rewrite_that_misses_fails() {
        rewrite("alias R = f32;", "alias R = f64;", "x", 1);
    }
}

/// The pipe model's `f32` module as the browser compiles it (`web/src/gpu/pipe.wgsl`): the
/// terrain in `f32` too, the uniform's `dx`, `dy` with it ([`PipeUniformF32`]).
pub fn pipe_wgsl_f32() -> &'static str {
    static SRC: OnceLock<String> = OnceLock::new();
    SRC.get_or_init(|| {
        let body = f32_variant(include_str!("../shaders/shallow_water.wgsl"), &[], &[]);
        format!("{}{body}", header("shallow_water.wgsl", "exact.wgsl"))
    })
}

/// The erosion page's pipe-model parameters (`web/erode.html`, `bozkir lab`): the native
/// defaults with open borders (water leaves the map), evaporation 0.02 /s, dissolving and
/// deposition at 0.1 /s (the native 0.3 breaks `deposit·Δt ≤ 1` on the page's 80 m cells, where
/// the stable Δt is 6.4 s), and no rain but the brush's (per-cell increments in `maps`).
pub fn page_pipe_params() -> ShallowWaterParams {
    use bozkir_terrain::erosion::shallow_water::Boundary;
    ShallowWaterParams {
        evaporation: 0.02,
        dissolve: 0.1,
        deposit: 0.1,
        boundary: Boundary::Open,
        ..Default::default()
    }
}

/// The uniform of the `f32` pipe module (`Sw` with `R = f32`), 128 bytes. The fields are the
/// native kernel's, rounded to `f32` ([`PipeF32::new`]).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PipeUniformF32 {
    pub dx: f32,
    pub dy: f32,
    pub w: u32,
    pub h: u32,
    pub n: u32,
    pub open: u32,
    pub ax: f32,
    pub ay: f32,
    pub damp: f32,
    pub area_dt: f32,
    pub dt_area: f32,
    pub hx: f32,
    pub hy: f32,
    pub min_depth: f32,
    pub inv_2dx: f32,
    pub inv_2dy: f32,
    pub kc: f32,
    pub min_sin2: f32,
    pub kd_dt: f32,
    pub evap: f32,
    pub sx: f32,
    pub sy: f32,
    pub xmax: f32,
    pub ymax: f32,
    pub zero: f32,
    pub uni: u32,
    pub inc: f32,
    pub ks: f32,
    pub pad: [u32; 4],
}

/// The `f32` pipe model's state, as its buffers hold it: terrain `b`, water depth `d`, the four
/// outflows (left, right, top, bottom), velocity, sediment (after advection) and the run's
/// (eroded, deposited) per cell. The per-cell (water increment, Ks·hardness·Δt) `maps` are read
/// when `u.uni` is 0; they may change between steps (the page's rain brush).
#[derive(Debug, Clone, PartialEq)]
pub struct PipeF32 {
    pub u: PipeUniformF32,
    pub maps: Vec<[f32; 2]>,
    pub b: Vec<f32>,
    pub d: Vec<f32>,
    pub flux: Vec<[f32; 4]>,
    pub vel: Vec<[f32; 2]>,
    pub s: Vec<f32>,
    pub erdp: Vec<[f32; 2]>,
}

impl PipeF32 {
    /// A dry, sediment-free start on `terrain` with the native kernel's uniform for `params`
    /// rounded to `f32`; `maps` always holds one pair per cell (the uniform pair when uniform).
    ///
    /// # Panics
    /// As the native kernel on bad parameters.
    pub fn new(terrain: &Grid<f64>, params: &ShallowWaterParams) -> Self {
        let (sw, maps) = crate::shallow_water::prepare(terrain, params);
        let n = terrain.len();
        let maps = if maps.len() == n { maps } else { vec![maps[0]; n] };
        let u = PipeUniformF32 {
            dx: sw.dx as f32,
            dy: sw.dy as f32,
            w: sw.w,
            h: sw.h,
            n: sw.n,
            open: sw.open,
            ax: sw.ax,
            ay: sw.ay,
            damp: sw.damp,
            area_dt: sw.area_dt,
            dt_area: sw.dt_area,
            hx: sw.hx,
            hy: sw.hy,
            min_depth: sw.min_depth,
            inv_2dx: sw.inv_2dx,
            inv_2dy: sw.inv_2dy,
            kc: sw.kc,
            min_sin2: sw.min_sin2,
            kd_dt: sw.kd_dt,
            evap: sw.evap,
            sx: sw.sx,
            sy: sw.sy,
            xmax: sw.xmax,
            ymax: sw.ymax,
            zero: 0.0,
            uni: sw.uni,
            inc: sw.inc,
            ks: sw.ks,
            pad: [0; 4],
        };
        Self {
            u,
            maps,
            b: terrain.data().iter().map(|&v| v as f32).collect(),
            d: vec![0.0; n],
            flux: vec![[0.0; 4]; n],
            vel: vec![[0.0; 2]; n],
            s: vec![0.0; n],
            erdp: vec![[0.0; 2]; n],
        }
    }

    fn map_at(&self, i: usize) -> [f32; 2] {
        if self.u.uni != 0 {
            [self.u.inc, self.u.ks]
        } else {
            self.maps[i]
        }
    }

    /// `steps` steps on the CPU, operation for operation as the generated `pipe.wgsl`: the
    /// contract the browser's and the native `f32` runs are held to bit for bit.
    pub fn step_reference(&mut self, steps: usize) {
        for _ in 0..steps {
            self.flux_pass();
            let s_src = self.depth_pass();
            self.advect_pass(&s_src);
        }
    }

    fn flux_pass(&mut self) {
        let u = self.u;
        let (w, h) = (u.w as usize, u.h as usize);
        let pipe = |f: f32, a: f32, dh: f32| (f * u.damp + a * dh).max(0.0);
        for i in 0..w * h {
            let (x, y) = (i % w, i / w);
            let hb = self.b[i];
            let di = self.d[i] + self.map_at(i)[0];
            let f = self.flux[i];
            let one = |j: Option<usize>, f: f32, a: f32| match j {
                Some(j) => pipe(f, a, (hb - self.b[j]) + (di - (self.d[j] + self.map_at(j)[0]))),
                None if u.open != 0 => pipe(f, a, di),
                None => 0.0,
            };
            let fl = one((x > 0).then(|| i - 1), f[0], u.ax);
            let fr = one((x + 1 < w).then(|| i + 1), f[1], u.ax);
            let ft = one((y > 0).then(|| i - w), f[2], u.ay);
            let fb = one((y + 1 < h).then(|| i + w), f[3], u.ay);
            let sum = ((fl + fr) + ft) + fb;
            let k = if sum > 0.0 { ((di * u.area_dt) / sum).min(1.0) } else { 0.0 };
            self.flux[i] = [fl * k, fr * k, ft * k, fb * k];
        }
    }

    /// Depth, velocity, erosion; returns the sediment before advection.
    fn depth_pass(&mut self) -> Vec<f32> {
        let u = self.u;
        let (w, h) = (u.w as usize, u.h as usize);
        let b = self.b.clone();
        let mut s_src = vec![0.0f32; w * h];
        for i in 0..w * h {
            let (x, y) = (i % w, i / w);
            let (mut gx, mut gy) = (0.0f32, 0.0f32);
            if w >= 3 && x > 0 && x + 1 < w && y > 0 && y + 1 < h {
                gx = (b[i + 1] - b[i - 1]) * u.inv_2dx;
                gy = (b[i + w] - b[i - w]) * u.inv_2dy;
            } else {
                let (xl, xr) = (x.saturating_sub(1), (x + 1).min(w - 1));
                if xr > xl {
                    gx = (b[y * w + xr] - b[y * w + xl]) / ((xr - xl) as f32 * u.dx);
                }
                let (yu, yd) = (y.saturating_sub(1), (y + 1).min(h - 1));
                if yd > yu {
                    gy = (b[yd * w + x] - b[yu * w + x]) / ((yd - yu) as f32 * u.dy);
                }
            }
            let f = self.flux[i];
            let in_l = if x > 0 { self.flux[i - 1][1] } else { 0.0 };
            let in_r = if x + 1 < w { self.flux[i + 1][0] } else { 0.0 };
            let in_t = if y > 0 { self.flux[i - w][3] } else { 0.0 };
            let in_b = if y + 1 < h { self.flux[i + w][2] } else { 0.0 };
            let m = self.map_at(i);
            let d1 = self.d[i] + m[0];
            let s = self.s[i];
            let net = (((in_l + in_r) + in_t) + in_b) - (((f[0] + f[1]) + f[2]) + f[3]);
            let d2 = (d1 + net * u.dt_area).max(0.0);
            let dbar = 0.5 * (d1 + d2);
            let inv = if dbar > u.min_depth { 1.0 / dbar } else { 0.0 };
            let vx = (((in_l - f[0]) + (f[1] - in_r)) * u.hx) * inv;
            let vy = (((in_t - f[2]) + (f[3] - in_b)) * u.hy) * inv;
            let g2 = gx * gx + gy * gy;
            let sin2 = (g2 / (1.0 + g2)).max(u.min_sin2);
            let cap = u.kc * (sin2 * (vx * vx + vy * vy)).sqrt();
            let diff = cap - s;
            let (mut er, mut dp) = (0.0f32, 0.0f32);
            if diff > 0.0 {
                er = m[1] * diff;
            } else {
                dp = (-diff * u.kd_dt).min(s);
            }
            self.d[i] = d2 * u.evap;
            self.vel[i] = [vx, vy];
            s_src[i] = (s + er) - dp;
            self.b[i] = b[i] + (dp - er);
            self.erdp[i] = [self.erdp[i][0] + er, self.erdp[i][1] + dp];
        }
        s_src
    }

    fn advect_pass(&mut self, s_src: &[f32]) {
        let u = self.u;
        let (w, h) = (u.w as usize, u.h as usize);
        for i in 0..w * h {
            let (x, y) = (i % w, i / w);
            let v = self.vel[i];
            let fx = x as f32 + v[0] * -u.sx;
            let fy = y as f32 + v[1] * -u.sy;
            let fx = if fx >= 0.0 { fx.min(u.xmax) } else { 0.0 };
            let fy = if fy >= 0.0 { fy.min(u.ymax) } else { 0.0 };
            let x0 = (fx as usize).min(w - 1);
            let y0 = (fy as usize).min(h - 1);
            let (tx, ty) = (fx - x0 as f32, fy - y0 as f32);
            let (x1, y1) = ((x0 + 1).min(w - 1), (y0 + 1).min(h - 1));
            let (a, b) = (s_src[y0 * w + x0], s_src[y0 * w + x1]);
            let (c, e) = (s_src[y1 * w + x0], s_src[y1 * w + x1]);
            let top = a + (b - a) * tx;
            let bot = c + (e - c) * tx;
            self.s[i] = top + (bot - top) * ty;
        }
    }
}

/// `steps` steps of the `f32` pipe variant run natively (wgpu) from `start`: what the browser
/// runs, on this machine's adapter. Returns the state after them.
pub fn pipe_f32(gpu: &Gpu, start: &PipeF32, steps: usize) -> Result<PipeF32, GpuError> {
    let (w, h) = (start.u.w as usize, start.u.h as usize);
    let n = w * h;
    gpu.check_grid(w, h, 16)?;
    const NAME: &str = "pipe.f32.wgsl";
    let src = pipe_wgsl_f32();
    let ub = gpu.uniform("pipe f32", &start.u);
    let b = [gpu.buffer("pipe f32 b0", &start.b), gpu.buffer("pipe f32 b1", &start.b)];
    let d = gpu.buffer("pipe f32 d", &start.d);
    let flux = gpu.buffer("pipe f32 flux", &start.flux);
    let vel = gpu.buffer("pipe f32 vel", &start.vel);
    let s_adv = gpu.buffer("pipe f32 s", &start.s);
    let s_src = gpu.zeroed("pipe f32 s src", 4 * n as u64);
    let erdp = gpu.buffer("pipe f32 erdp", &start.erdp);
    let maps = gpu.buffer("pipe f32 maps", &start.maps);
    let pipes = [
        gpu.pipeline(NAME, src, "sw_flux")?,
        gpu.pipeline(NAME, src, "sw_depth")?,
        gpu.pipeline(NAME, src, "sw_advect")?,
    ];
    let st = crate::shallow_water::StepBuffers {
        ub: &ub,
        d: &d,
        flux: &flux,
        vel: &vel,
        s_adv: &s_adv,
        s_src: &s_src,
        erdp: &erdp,
        maps: &maps,
    };
    let set = |bi: &wgpu::Buffer, bo: &wgpu::Buffer| st.groups(gpu, &pipes, bi, bo);
    let bgs = [set(&b[0], &b[1]), set(&b[1], &b[0])];
    let mut enc = gpu.encoder();
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        for s in 0..steps {
            for (pl, bg) in pipes.iter().zip(&bgs[s % 2]) {
                dispatch(&mut pass, pl, bg, n as u64);
            }
        }
    }
    gpu.queue.submit([enc.finish()]);
    Ok(PipeF32 {
        u: start.u,
        maps: start.maps.clone(),
        b: gpu.read(&b[steps % 2], n)?,
        d: gpu.read(&d, n)?,
        flux: gpu.read(&flux, n)?,
        vel: gpu.read(&vel, n)?,
        s: gpu.read(&s_adv, n)?,
        erdp: gpu.read(&erdp, n)?,
    })
}

/// The D8 routing and accumulation module as the browser compiles it (`web/src/gpu/flow.wgsl`):
/// `flow.wgsl` + `rounds.wgsl` + `roots.wgsl` with the heights, the distance table and the
/// receiver distances in `f32`. Contract: receivers from `f32` slopes `(h_i − h_j)·(1/d_k)` with
/// the native tie-break ([`d8_f32_reference`]), then integer upstream counts (exact in any order:
/// [`accumulate_reference`]).
pub fn flow_wgsl_f32() -> &'static str {
    static SRC: OnceLock<String> = OnceLock::new();
    SRC.get_or_init(|| {
        let body = f32_module(
            include_str!("../shaders/flow.wgsl"),
            &[],
            false,
            &[include_str!("../shaders/rounds.wgsl"), include_str!("../shaders/roots.wgsl")],
        );
        format!("{}{body}", header("flow.wgsl", "rounds.wgsl, roots.wgsl"))
    })
}

/// D8 receivers (a border cell and a cell with no lower neighbour drain to themselves) and
/// receiver distances of `z` (`w × h`, row-major) in `f32`, operation for operation as the
/// generated `flow.wgsl`: slopes `(h_i − h_j)·(1/d_k)` over NW, N, NE, W, E, SW, S, SE, a
/// neighbour replacing the best only on a strictly larger slope.
pub fn d8_f32_reference(w: usize, h: usize, z: &[f32], dx: f64, dy: f64) -> (Vec<u32>, Vec<f32>) {
    assert_eq!(z.len(), w * h, "d8 f32: heights do not match the grid");
    let tab: Vec<f32> = crate::flow::d8_table(dx, dy).iter().map(|&v| v as f32).collect();
    const O: [(isize, isize); 8] = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)];
    let mut rcv = vec![0u32; w * h];
    let mut dist = vec![0.0f32; w * h];
    for i in 0..w * h {
        let (x, y) = (i % w, i / w);
        rcv[i] = i as u32;
        if x > 0 && y > 0 && x + 1 < w && y + 1 < h {
            let hi = z[i];
            let (mut best, mut bk) = (-1.0f32, 8usize);
            for (k, (ox, oy)) in O.iter().enumerate() {
                let j = (i as isize + oy * w as isize + ox) as usize;
                let s = (hi - z[j]) * tab[k];
                if z[j] < hi && s > best {
                    best = s;
                    bk = k;
                }
            }
            if bk < 8 {
                let (ox, oy) = O[bk];
                rcv[i] = (i as isize + oy * w as isize + ox) as u32;
                dist[i] = tab[8 + bk];
            }
        }
    }
    (rcv, dist)
}

/// Upstream cell counts (each cell counts itself) of a receiver forest (`rcv[i] == i` for
/// roots): integer sums, so every order gives them.
pub fn accumulate_reference(rcv: &[u32]) -> Vec<u32> {
    let n = rcv.len();
    let mut donors = vec![0u32; n];
    for (i, &r) in rcv.iter().enumerate() {
        if r as usize != i {
            donors[r as usize] += 1;
        }
    }
    let mut count = vec![1u32; n];
    let mut stack: Vec<usize> = (0..n).filter(|&i| donors[i] == 0).collect();
    while let Some(i) = stack.pop() {
        let r = rcv[i] as usize;
        if r != i {
            count[r] += count[i];
            donors[r] -= 1;
            if donors[r] == 0 {
                stack.push(r);
            }
        }
    }
    count
}

/// What the `f32` routing and accumulation give: receivers, receiver distances, upstream counts.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowF32Output {
    pub receivers: Vec<u32>,
    pub dist: Vec<f32>,
    pub count: Vec<u32>,
}

/// The `f32` routing and accumulation run natively (wgpu).
pub fn flow_f32(gpu: &Gpu, w: usize, h: usize, z: &[f32], dx: f64, dy: f64) -> Result<FlowF32Output, GpuError> {
    assert_eq!(z.len(), w * h, "flow f32: heights do not match the grid");
    gpu.check_grid(w, h, 8)?;
    let rt = crate::flow::Routing::new_f32(gpu, w, h, dx, dy);
    let zb = gpu.buffer("z f32", z);
    rt.route(gpu, &zb)?;
    rt.accumulate(gpu)?;
    Ok(FlowF32Output {
        receivers: gpu.read(&rt.rcv, w * h)?,
        dist: gpu.read(&rt.dist, w * h)?,
        count: gpu.read(&rt.count, w * h)?,
    })
}

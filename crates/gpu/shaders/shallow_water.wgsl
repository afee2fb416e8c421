// Pipe-model shallow water with hydraulic erosion (bozkir-gpu, shallow_water.rs).
//
// Mirrors crates/terrain/src/erosion/shallow_water.rs (Mei et al. 2007): per step three pure
// per-cell passes over ping-pong state, the formulation the CPU's in-place band pass reproduces
// bit for bit (each cell's new value is a function of the previous state only):
//   flux:   d1 = d + inc; f = max(0, f·damp + a·ΔH), ΔH = f32(b − b_n) + (d1 − d1_n); limiter.
//   depth:  depth, velocity, erosion/deposition, evaporation (b read from `b_in`, written to
//           `b_out`: the tilt reads the neighbours' old terrain); sediment before advection.
//   advect: semi-Lagrangian bilinear trace of the sediment (clamped coordinates).
// Water, fluxes, velocity and sediment are f32 as on the CPU; the terrain is `R` (f64).
// Products that feed an addition are rounded on their own (`fma(a, b, zero)`, `zero` from the
// uniform) so the compiler cannot contract them, and every division and square root is corrected
// to the correctly rounded value from its exact residual (`div_rn32` and `sqrt_rn32` over
// exact.wgsl's `div_rn` and `sqrt_rn`; Vulkan allows a few ulp), as in droplets.wgsl. The model
// is ill-conditioned where cells run dry (the velocity is a flux difference over a depth near
// `min_depth`), so any remaining difference (f32 denormals flushed by a driver, say) grows there:
// tests/shallow_water.rs states the tolerance.
// Bindings: 0 uniform Sw; 1 b_in; 2 b_out; 3 d; 4 flux (vec4 L R T B); 5 vel (vec2);
// 6 s_in (advected sediment); 7 s_out (sediment before advection); 8 erdp (vec2 eroded,
// deposited); 9 maps (vec2: per-step water increment, Ks·hardness·Δt), not read when both are
// uniform (`sw.uni`: the pair is `(sw.inc, sw.ks)`, 16 bytes a cell and step less to move).
alias R = f64;

struct Sw {
    dx: R, dy: R,
    w: u32, h: u32, n: u32, open: u32,
    ax: f32, ay: f32, damp: f32, area_dt: f32,
    dt_area: f32, hx: f32, hy: f32, min_depth: f32,
    inv_2dx: f32, inv_2dy: f32, kc: f32, min_sin2: f32,
    kd_dt: f32, evap: f32, sx: f32, sy: f32,
    xmax: f32, ymax: f32, zero: f32, uni: u32,
    inc: f32, ks: f32, pad0: f32, pad1: f32,
}

@group(0) @binding(0) var<uniform> sw: Sw;
@group(0) @binding(1) var<storage, read> b_in: array<R>;
@group(0) @binding(2) var<storage, read_write> b_out: array<R>;
@group(0) @binding(3) var<storage, read_write> d: array<f32>;
@group(0) @binding(4) var<storage, read_write> flux: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> vel: array<vec2<f32>>;
@group(0) @binding(6) var<storage, read> s_in: array<f32>;
@group(0) @binding(7) var<storage, read_write> s_out: array<f32>;
@group(0) @binding(8) var<storage, read_write> erdp: array<vec2<f32>>;
@group(0) @binding(9) var<storage, read> maps: array<vec2<f32>>;

fn index(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    return (wid.y * nwg.x + wid.x) * 256u + lid;
}

// a·b rounded on its own (no contraction with a following addition).
fn mul(a: f32, b: f32) -> f32 {
    return fma(a, b, sw.zero);
}

// a / b and sqrt(a) of f32 operands correctly rounded: in f64, corrected to the correctly rounded
// f64 from the exact residual (exact.wgsl: a driver need not fuse `fma`, in f32 or f64; lavapipe
// does not on some hosts), then rounded to f32 (double rounding is innocuous for a quotient or square root of f32
// operands: 53 ≥ 2·24 + 2).
fn div_rn32(a: f32, b: f32) -> f32 {
    return f32(div_rn(R(a), R(b)));
}

fn sqrt_rn32(a: f32) -> f32 {
    return f32(sqrt_rn(R(a)));
}

// The f64 product a·b rounded on its own (exact.wgsl's `mulr`).
fn mulr(a: R, b: R) -> R {
    return fma(a, b, R(sw.zero));
}

fn pipe(f: f32, a: f32, dh: f32) -> f32 {
    return max(mul(f, sw.damp) + mul(a, dh), 0.0);
}

// The per-cell (water increment, Ks·hardness·Δt).
fn map_at(i: u32) -> vec2<f32> {
    if (sw.uni != 0u) { return vec2<f32>(sw.inc, sw.ks); }
    return maps[i];
}

fn d1_of(i: u32) -> f32 {
    return d[i] + map_at(i).x;
}

// One pipe towards neighbour `j` (`has`: inside the grid).
fn one(i: u32, j: u32, has: bool, f: f32, a: f32, hb: R, di: f32) -> f32 {
    if (has) {
        return pipe(f, a, f32(hb - b_in[j]) + (di - d1_of(j)));
    }
    if (sw.open != 0u) {
        return pipe(f, a, di);
    }
    return 0.0;
}

@compute @workgroup_size(256)
fn sw_flux(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let i = index(wid, nwg, lid);
    if (i >= sw.n) { return; }
    let w = sw.w;
    let x = i % w;
    let y = i / w;
    let hb = b_in[i];
    let di = d1_of(i);
    let f = flux[i];
    let fl = one(i, i - 1u, x > 0u, f.x, sw.ax, hb, di);
    let fr = one(i, i + 1u, x + 1u < w, f.y, sw.ax, hb, di);
    let ft = one(i, i - w, y > 0u, f.z, sw.ay, hb, di);
    let fb = one(i, i + w, y + 1u < sw.h, f.w, sw.ay, hb, di);
    let sum = ((fl + fr) + ft) + fb;
    var k = 0.0;
    if (sum > 0.0) { k = min(div_rn32(mul(di, sw.area_dt), sum), 1.0); }
    flux[i] = vec4<f32>(mul(fl, k), mul(fr, k), mul(ft, k), mul(fb, k));
}

@compute @workgroup_size(256)
fn sw_depth(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let i = index(wid, nwg, lid);
    if (i >= sw.n) { return; }
    let w = sw.w;
    let h = sw.h;
    let x = i % w;
    let y = i / w;
    let bc = b_in[i];
    var gx = 0.0;
    var gy = 0.0;
    if (w >= 3u && x > 0u && x + 1u < w && y > 0u && y + 1u < h) {
        gx = mul(f32(b_in[i + 1u] - b_in[i - 1u]), sw.inv_2dx);
        gy = mul(f32(b_in[i + w] - b_in[i - w]), sw.inv_2dy);
    } else {
        // One-sided differences at the edges (the CPU's edge-cell code).
        let xl = select(x - 1u, 0u, x == 0u);
        let xr = min(x + 1u, w - 1u);
        if (xr > xl) {
            gx = f32(div_rn(b_in[y * w + xr] - b_in[y * w + xl], mulr(R(xr - xl), sw.dx)));
        }
        let yu = select(y - 1u, 0u, y == 0u);
        let yd = min(y + 1u, h - 1u);
        if (yd > yu) {
            gy = f32(div_rn(b_in[yd * w + x] - b_in[yu * w + x], mulr(R(yd - yu), sw.dy)));
        }
    }
    let f = flux[i];
    var in_l = 0.0;
    var in_r = 0.0;
    var in_t = 0.0;
    var in_b = 0.0;
    if (x > 0u) { in_l = flux[i - 1u].y; }
    if (x + 1u < w) { in_r = flux[i + 1u].x; }
    if (y > 0u) { in_t = flux[i - w].w; }
    if (y + 1u < h) { in_b = flux[i + w].z; }
    let m = map_at(i);
    let d1 = d[i] + m.x;
    let s = s_in[i];
    let net = (((in_l + in_r) + in_t) + in_b) - (((f.x + f.y) + f.z) + f.w);
    let d2 = max(d1 + mul(net, sw.dt_area), 0.0);
    let dbar = mul(0.5, d1 + d2);
    var inv = 0.0;
    if (dbar > sw.min_depth) { inv = div_rn32(1.0, dbar); }
    let vx = mul(mul((in_l - f.x) + (f.y - in_r), sw.hx), inv);
    let vy = mul(mul((in_t - f.z) + (f.w - in_b), sw.hy), inv);
    let g2 = mul(gx, gx) + mul(gy, gy);
    let sin2 = max(div_rn32(g2, 1.0 + g2), sw.min_sin2);
    let cap = mul(sw.kc, sqrt_rn32(mul(sin2, mul(vx, vx) + mul(vy, vy))));
    let diff = cap - s;
    var er = 0.0;
    var dp = 0.0;
    if (diff > 0.0) { er = mul(m.y, diff); } else { dp = min(mul(-diff, sw.kd_dt), s); }
    d[i] = mul(d2, sw.evap);
    vel[i] = vec2<f32>(vx, vy);
    s_out[i] = (s + er) - dp;
    b_out[i] = bc + R(dp - er);
    erdp[i] = erdp[i] + vec2<f32>(er, dp);
}

// The bilinear sample of `s_in` at (fx, fy) in [0, w−1] × [0, h−1].
fn bilinear(fx: f32, fy: f32) -> f32 {
    let w = sw.w;
    let x0 = min(u32(fx), w - 1u);
    let y0 = min(u32(fy), sw.h - 1u);
    let tx = fx - f32(x0);
    let ty = fy - f32(y0);
    let x1 = min(x0 + 1u, w - 1u);
    let y1 = min(y0 + 1u, sw.h - 1u);
    let a = s_in[y0 * w + x0];
    let b = s_in[y0 * w + x1];
    let c = s_in[y1 * w + x0];
    let e = s_in[y1 * w + x1];
    let top = a + mul(b - a, tx);
    let bot = c + mul(e - c, tx);
    return top + mul(bot - top, ty);
}

// Semi-Lagrangian advection: s_out(x) = s_in(x − v·Δt) (s_in: the sediment before advection).
@compute @workgroup_size(256)
fn sw_advect(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let i = index(wid, nwg, lid);
    if (i >= sw.n) { return; }
    let x = i % sw.w;
    let y = i / sw.w;
    let v = vel[i];
    var fx = f32(x) + mul(v.x, -sw.sx);
    var fy = f32(y) + mul(v.y, -sw.sy);
    // clamp(0, max) with a NaN going to 0, as the CPU's stencil code.
    if (fx >= 0.0) { fx = min(fx, sw.xmax); } else { fx = 0.0; }
    if (fy >= 0.0) { fy = min(fy, sw.ymax); } else { fy = 0.0; }
    s_out[i] = bilinear(fx, fy);
}

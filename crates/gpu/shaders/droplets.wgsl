// Batch-synchronous droplet erosion with fixed-point i32 atomics (bozkir-gpu, droplets.rs).
//
// Mirrors crates/terrain/src/erosion/droplets.rs (DropletMode::Batched) operation for operation
// in f64, so the integer contributions, and so the heights, equal the CPU's bit for bit:
// * every product that feeds an addition is rounded on its own (`mulr`, an fma with a zero
//   addend), so no compiler contraction into a fused multiply-add can change a bit;
// * division and square root are corrected to the correctly rounded result (`div_rn`,
//   `sqrt_rn`) from their fma residuals, whatever the precision of the device's own;
// * the droplet starts come from the canonical hash (`Rng::new(seed).split(k)`, two
//   `next_f64` each), the brush weights are the CPU's (uploaded table, normalised in f64).
// Per batch: `drop` runs one droplet per thread against the frozen heights `hc` and adds its
// fixed-point contributions to `bacc` with atomics, listing each cell it touches once;
// `args` sizes the `fold` dispatch and advances the batch; `fold` adds the batch sums to the
// run totals and recomputes `hc = h0 + (dep - wear) * 2^-20` for the touched cells. A dense
// fold (`p.dense`, for large batches) keeps no list and visits every cell instead, skipping
// those with nothing to add; the result is the same either way.
// Compiled with exact.wgsl appended (the correctly rounded division and square root). `R` is
// the float type (WebGPU has no f64: rewriting this line to f32 gives a variant that runs within
// a tolerance, not bit-identical).
alias R = f64;

struct Params {
    keep: R, turn: R, capacity: R, min_drop: R, erode: R, deposit: R, dry: R, gravity: R,
    water0: R, speed0: R, step: R, sx: R, sy: R, dx: R, dy: R, xmax: R, ymax: R, pad0: R,
    w: u32, h: u32, n: u32, seed: u32, lifetime: u32, total: u32, batch: u32, nbrush: u32,
    rx: i32, ry: i32, cap: u32, dense: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> h0: array<R>;
@group(0) @binding(2) var<storage, read_write> hc: array<R>;
// Batch sums: wear at 2i, deposit at 2i + 1.
@group(0) @binding(3) var<storage, read_write> bacc: array<atomic<i32>>;
@group(0) @binding(4) var<storage, read_write> epoch: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> list: array<u32>;
// State: [0] first droplet of the batch, [1] batch number (from 1), [2..4) touched-list
// counters by batch parity, [4..12) 64-bit stats (lo, hi): steps, eroded, deposited, lost,
// [12] overflow flags (1: a batch's sum near the i32 range, 2: the touched list overflowed).
@group(0) @binding(6) var<storage, read_write> st: array<atomic<u32>>;
@group(0) @binding(7) var<storage, read> bw: array<R>;
@group(0) @binding(8) var<storage, read> bo: array<vec2<i32>>;
// Run totals in 64 bits, as the CPU's i64 (lo, hi words at 2i, 2i + 1): wear and deposit.
@group(0) @binding(9) var<storage, read_write> totw: array<u32>;
@group(0) @binding(11) var<storage, read_write> totd: array<u32>;
@group(0) @binding(10) var<storage, read_write> args: array<u32>;

const UNIT: f64 = 1.0 / 1048576.0;
const SCALE: f64 = 1048576.0;
const SPLIT_SALT: u32 = 0x5EEDC41Du;

// `hash` is the canonical hash of `hash.wgsl` (appended).

// Draws `c, c + 1` of stream 0 of `seed` as a uniform f64 in [0, 1) (Rng::next_f64).
fn next_f64(seed: u32, c: u32) -> R {
    let a = hash(c, 0u, seed) >> 5u;
    let b = hash(c + 1u, 0u, seed) >> 6u;
    return (R(a) * 67108864.0 + R(b)) * (1.0 / 9007199254740992.0);
}

// The rounded product a·b, never fused with what it is added to.
fn mulr(a: R, b: R) -> R {
    // The addend is a zero the compiler cannot see (a uniform), so it can neither fold the fma
    // into a plain product nor fuse that product with the addition it feeds.
    return fma(a, b, p.pad0);
}

// Bilinear height and gradient (m/m) at (x, y) on the frozen heights.
fn height_grad(x: R, y: R) -> vec3<R> {
    let x0 = u32(x);
    let y0 = u32(y);
    let tx = x - R(x0);
    let ty = y - R(y0);
    let i = y0 * p.w + x0;
    let a = hc[i];
    let b = hc[i + 1u];
    let c = hc[i + p.w];
    let e = hc[i + p.w + 1u];
    let gx = div_rn(mulr(b - a, 1.0 - ty) + mulr(e - c, ty), p.dx);
    let gy = div_rn(mulr(c - a, 1.0 - tx) + mulr(e - b, tx), p.dy);
    let top = a + mulr(b - a, tx);
    let bot = c + mulr(e - c, tx);
    return vec3<R>(top + mulr(bot - top, ty), gx, gy);
}

fn add_stat(slot: u32, v: u32) {
    let old = atomicAdd(&st[slot], v);
    if (old + v < old) {
        atomicAdd(&st[slot + 1u], 1u);
    }
}

// Adds q units to cell i's batch wear (k = 0) or deposit (k = 1), listing i once per batch
// (unless the fold is dense: large batches fold every cell instead of keeping the list).
fn contribute(i: u32, k: u32, q: i32, batch: u32, par: u32) {
    atomicAdd(&bacc[2u * i + k], q);
    if (p.dense == 0u && atomicMax(&epoch[i], batch) < batch) {
        let s = atomicAdd(&st[2u + par], 1u);
        if (s < p.cap) {
            list[s] = i;
        } else {
            atomicOr(&st[12], 2u);
        }
    }
}

// `tf` is `total` as a float, passed in rather than converted here: lavapipe (Mesa 22.3.6 on an
// AMD EPYC host) folded `f64(i32(ef))` at the inlined call back into the untruncated `ef`, so
// the shares were computed from a total up to one unit too large.
fn erode_at(cx: i32, cy: i32, total: i32, tf: R, batch: u32, par: u32) {
    let w = i32(p.w);
    let h = i32(p.h);
    let c = u32(cy * w + cx);
    let nb = p.nbrush - 1u;
    var sum = 0;
    if (cx >= p.rx && cy >= p.ry && cx + p.rx < w && cy + p.ry < h) {
        for (var j = 0u; j < nb; j++) {
            let q = i32(mulr(tf, bw[j]) + 0.5);
            if (q != 0) {
                let o = bo[j];
                contribute(u32((cy + o.y) * w + cx + o.x), 0u, q, batch, par);
                sum += q;
            }
        }
    } else {
        // Renormalised over the brush cells inside the grid, summed in brush order.
        var wsum = R(0.0);
        for (var j = 0u; j < p.nbrush; j++) {
            let o = bo[j];
            if (cx + o.x >= 0 && cy + o.y >= 0 && cx + o.x < w && cy + o.y < h) {
                wsum += bw[j];
            }
        }
        for (var j = 0u; j < nb; j++) {
            let o = bo[j];
            if (cx + o.x >= 0 && cy + o.y >= 0 && cx + o.x < w && cy + o.y < h) {
                let q = i32(mulr(tf, div_rn(bw[j], wsum)) + 0.5);
                if (q != 0) {
                    contribute(u32((cy + o.y) * w + cx + o.x), 0u, q, batch, par);
                    sum += q;
                }
            }
        }
    }
    contribute(c, 0u, total - sum, batch, par);
}

fn deposit_at(x: R, y: R, total: i32, batch: u32, par: u32) {
    let x0 = u32(x);
    let y0 = u32(y);
    let tx = x - R(x0);
    let ty = y - R(y0);
    let i = y0 * p.w + x0;
    var wts = array<R, 4>(mulr(1.0 - tx, 1.0 - ty), mulr(tx, 1.0 - ty), mulr(1.0 - tx, ty), mulr(tx, ty));
    var idx = array<u32, 4>(i, i + 1u, i + p.w, i + p.w + 1u);
    let tf = R(total);
    var q = array<i32, 4>(0, 0, 0, 0);
    var best = 0u;
    for (var j = 0u; j < 4u; j++) {
        q[j] = i32(mulr(tf, wts[j]) + 0.5);
        if (wts[j] > wts[best]) { best = j; }
    }
    q[best] += total - (q[0] + q[1] + q[2] + q[3]);
    for (var j = 0u; j < 4u; j++) {
        if (q[j] != 0) { contribute(idx[j], 1u, q[j], batch, par); }
    }
}

@compute @workgroup_size(256)
fn drop(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let g = (wid.y * nwg.x + wid.x) * 256u + lid;
    let k = atomicLoad(&st[0]) + g;
    if (g >= p.batch || k >= p.total) { return; }
    let batch = atomicLoad(&st[1]);
    let par = batch % 2u;
    let child = hash(hash(k, 0u, p.seed ^ SPLIT_SALT), k, p.seed);
    var x = mulr(R(p.w - 1u), next_f64(child, 0u)) + 0.0;
    var y = mulr(R(p.h - 1u), next_f64(child, 2u)) + 0.0;
    var dirx = R(0.0);
    var diry = R(0.0);
    var speed = p.speed0;
    var water = p.water0;
    var sed = 0;
    var steps = 0u;
    var eroded = 0u;
    var deposited = 0u;
    var here = height_grad(x, y);
    for (var s = 0u; s < p.lifetime; s++) {
        let h0v = here.x;
        dirx = mulr(dirx, p.keep) - mulr(here.y, p.turn);
        diry = mulr(diry, p.keep) - mulr(here.z, p.turn);
        let len = sqrt_rn(mulr(dirx, dirx) + mulr(diry, diry));
        if (len == 0.0 || !(len < 1.7976931348623157e308)) { break; }
        dirx = div_rn(dirx, len);
        diry = div_rn(diry, len);
        let nx = x + mulr(dirx, p.sx);
        let ny = y + mulr(diry, p.sy);
        if (!(nx >= 0.0 && ny >= 0.0 && nx < p.xmax && ny < p.ymax)) { break; }
        let next = height_grad(nx, ny);
        let dh = next.x - h0v;
        let sed_m = R(sed) * UNIT;
        let cap = max(-dh, p.min_drop) * speed * water * p.capacity;
        if (sed_m > cap || dh > 0.0) {
            var d: R;
            if (dh > 0.0) { d = min(dh, sed_m); } else { d = (sed_m - cap) * p.deposit; }
            let dq = min(i32(max(d, 0.0) * SCALE), sed);
            if (dq > 0) {
                deposit_at(x, y, dq, batch, par);
                sed -= dq;
                deposited += u32(dq);
            }
        } else {
            let e = min((cap - sed_m) * p.erode, -dh);
            let ef = max(e, 0.0) * SCALE;
            if (ef >= 1073741824.0 || R(sed) + ef >= 2147483647.0 || R(eroded) + ef >= 4294967295.0) {
                atomicOr(&st[12], 1u);
                return;
            }
            let eq = i32(ef);
            if (eq > 0) {
                // floor(ef) is f64(eq) exactly (0 ≤ ef < 2³⁰), with no integer round trip.
                erode_at(i32(x + 0.5), i32(y + 0.5), eq, floor(ef), batch, par);
                sed += eq;
                eroded += u32(eq);
            }
        }
        speed = sqrt_rn(max(mulr(speed, speed) - div_rn(p.gravity * dh, p.step), 0.0));
        water *= p.dry;
        x = nx;
        y = ny;
        steps += 1u;
        here = next;
    }
    add_stat(4u, steps);
    add_stat(6u, eroded);
    add_stat(8u, deposited);
    add_stat(10u, u32(sed));
}

// Sizes the fold of the batch just run and moves on to the next batch.
@compute @workgroup_size(1)
fn next_batch() {
    let batch = atomicLoad(&st[1]);
    let par = batch % 2u;
    var cnt = min(atomicLoad(&st[2u + par]), p.cap);
    if (p.dense != 0u) { cnt = p.n; }
    args[0] = min((cnt + 255u) / 256u, 65535u);
    args[1] = 1u;
    args[2] = 1u;
    atomicStore(&st[2u + 1u - par], 0u);
    atomicAdd(&st[0], p.batch);
    atomicAdd(&st[1], 1u);
}

@compute @workgroup_size(256)
fn fold(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let batch = atomicLoad(&st[1]) - 1u;
    var cnt = min(atomicLoad(&st[2u + batch % 2u]), p.cap);
    if (p.dense != 0u) { cnt = p.n; }
    let stride = nwg.x * nwg.y * 256u;
    for (var t = (wid.y * nwg.x + wid.x) * 256u + lid; t < cnt; t += stride) {
        var i = t;
        if (p.dense == 0u) {
            i = list[t];
        } else if (atomicLoad(&bacc[2u * i]) == 0 && atomicLoad(&bacc[2u * i + 1u]) == 0) {
            // Untouched in this batch: its height and totals stand.
            continue;
        }
        let dw = atomicExchange(&bacc[2u * i], 0);
        let dd = atomicExchange(&bacc[2u * i + 1u], 0);
        // A brush centre's remainder can be negative, so can a batch sum; only the range counts:
        // a batch's i32 sums must stay clear of wrapping.
        if (abs(dw) > 1073741823 || abs(dd) > 1073741823) {
            atomicOr(&st[12], 1u);
        }
        let wv = add64(vec2<u32>(totw[2u * i], totw[2u * i + 1u]), dw);
        let dv = add64(vec2<u32>(totd[2u * i], totd[2u * i + 1u]), dd);
        totw[2u * i] = wv.x;
        totw[2u * i + 1u] = wv.y;
        totd[2u * i] = dv.x;
        totd[2u * i + 1u] = dv.y;
        // dep − wear in 64 bits, then to f64: exact below 2^53 units (8.6e9 m), as the CPU's.
        let lo = dv.x - wv.x;
        let hi = dv.y - wv.y - select(0u, 1u, dv.x < wv.x);
        hc[i] = h0[i] + (R(i32(hi)) * 4294967296.0 + R(lo)) * UNIT;
    }
}

// v + d in two's complement 64 bits, v as (lo, hi) words.
fn add64(v: vec2<u32>, d: i32) -> vec2<u32> {
    let lo = v.x + u32(d);
    let carry = select(0u, 1u, lo < v.x);
    return vec2<u32>(lo, v.y + select(0u, 0xffffffffu, d < 0) + carry);
}

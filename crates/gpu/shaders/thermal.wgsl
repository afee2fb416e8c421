// Thermal erosion by talus relaxation, Jacobi (bozkir-gpu, thermal.rs).
//
// Mirrors crates/terrain/src/erosion/thermal.rs: pass 1 (`weights`) computes from the heights the
// factor w_i = rate/2 · max_k e_ik / Σ_k e_ik of every active cell (excess e_ik = (h_i − h_k) −
// tan(talus)·L_ik over the 8 neighbours NW, N, NE, W, E, SW, S, SE), pass 2 (`relax`) gives each
// cell h_j − Σ_k w_j·e_jk + Σ_i w_i·e_ij, neighbours in the same order. The f64 operations are the
// CPU's one for one (products rounded on their own, division corrected to the correctly rounded
// quotient, from exact.wgsl, appended when compiled), so the result is bit-identical.
alias R = f64;

struct Dims { w: u32, h: u32, n: u32, it: u32, half_rate: R, pad: R }

@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, read> z: array<R>;
@group(0) @binding(2) var<storage, read_write> wgt: array<R>;
// [tan(talus)·L_k (8), tan(talus + margin)·L_k (8)].
@group(0) @binding(3) var<storage, read> tab: array<R>;
@group(0) @binding(4) var<storage, read_write> busy: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read> wr: array<R>;
@group(0) @binding(6) var<storage, read_write> next: array<R>;

fn mulr(a: R, b: R) -> R {
    // The addend is a zero the compiler cannot see (a uniform), so it can neither fold the fma
    // into a plain product nor fuse that product with the addition it feeds.
    return fma(a, b, dims.pad);
}

fn nb(k: u32) -> vec2<i32> {
    if (k < 3u) { return vec2<i32>(i32(k) - 1, -1); }
    if (k == 3u) { return vec2<i32>(-1, 0); }
    if (k == 4u) { return vec2<i32>(1, 0); }
    return vec2<i32>(i32(k) - 6, 1);
}

// Index of the neighbour k of (x, y), or -1 outside the grid.
fn at(x: i32, y: i32, k: u32) -> i32 {
    let o = nb(k);
    let nx = x + o.x;
    let ny = y + o.y;
    if (nx < 0 || ny < 0 || nx >= i32(dims.w) || ny >= i32(dims.h)) { return -1; }
    return ny * i32(dims.w) + nx;
}

@compute @workgroup_size(256)
fn weights(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let i = (wid.y * nwg.x + wid.x) * 256u + lid;
    if (i >= dims.n) { return; }
    let x = i32(i % dims.w);
    let y = i32(i / dims.w);
    let zi = z[i];
    var total = R(0.0);
    var emax = R(0.0);
    var act = false;
    for (var k = 0u; k < 8u; k++) {
        let j = at(x, y, k);
        if (j >= 0) {
            let dr = zi - z[j];
            let e = dr - tab[k];
            if (e > 0.0) {
                total += e;
                emax = max(emax, e);
                act = act || dr > tab[8u + k];
            }
        }
    }
    if (act) {
        wgt[i] = div_rn(dims.half_rate * emax, total);
        atomicOr(&busy[dims.it], 1u);
    } else {
        wgt[i] = 0.0;
    }
}

@compute @workgroup_size(256)
fn relax(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let j = (wid.y * nwg.x + wid.x) * 256u + lid;
    if (j >= dims.n) { return; }
    let x = i32(j % dims.w);
    let y = i32(j / dims.w);
    let zj = z[j];
    let wj = wr[j];
    var out = R(0.0);
    var inn = R(0.0);
    for (var k = 0u; k < 8u; k++) {
        let ii = at(x, y, k);
        if (ii >= 0) {
            let i = u32(ii);
            if (wj > 0.0) {
                let e = (zj - z[i]) - tab[k];
                if (e > 0.0) { out += mulr(wj, e); }
            }
            let wi = wr[i];
            if (wi > 0.0) {
                let e = (z[i] - zj) - tab[7u - k];
                if (e > 0.0) { inn += mulr(wi, e); }
            }
        }
    }
    next[j] = zj - out + inn;
}

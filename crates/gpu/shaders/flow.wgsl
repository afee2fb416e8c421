// D8 receivers and drainage accumulation by pointer jumping (bozkir-gpu, flow.rs).
//
// Mirrors crates/terrain/src/hydrology/flow_graph.rs: border cells are outlets, an interior cell
// drains to the neighbour of steepest strictly positive drop (h_i - h_j) * (1 / dist), neighbours
// tried NW, N, NE, W, E, SW, S, SE and replaced only on a strictly larger slope. Compiled
// with rounds.wgsl appended (the rounds' bookkeeping); `R` is the height type (f64 here; a WebGPU
// build without shader-f64 rewrites this one line to f32 and loses bit-identity).
alias R = f64;

const NONE: u32 = 0xffffffffu;

struct Dims { w: u32, h: u32, n: u32, round: u32 }

@group(0) @binding(0) var<uniform> dims: Dims;
// Heights, and the table [1/dist_k (8), dist_k (8)] in the neighbour order.
@group(0) @binding(1) var<storage, read> z: array<R>;
@group(0) @binding(2) var<storage, read> tab: array<R>;
@group(0) @binding(3) var<storage, read_write> rcv: array<u32>;
@group(0) @binding(4) var<storage, read_write> rdist: array<R>;
// Pointer jumping: partial sums S (read) and T (scattered into), pointers P (read) and Q (written),
// and a counter of pointers still live after the round.
@group(0) @binding(5) var<storage, read> s_in: array<u32>;
@group(0) @binding(6) var<storage, read_write> t_out: array<atomic<u32>>;
@group(0) @binding(7) var<storage, read> p_in: array<u32>;
@group(0) @binding(8) var<storage, read_write> q_out: array<u32>;
@group(0) @binding(9) var<storage, read_write> live: array<atomic<u32>>;

// Neighbour k (NW, N, NE, W, E, SW, S, SE) as (dx, dy).
fn nb(k: u32) -> vec2<i32> {
    if (k < 3u) { return vec2<i32>(i32(k) - 1, -1); }
    if (k == 3u) { return vec2<i32>(-1, 0); }
    if (k == 4u) { return vec2<i32>(1, 0); }
    return vec2<i32>(i32(k) - 6, 1);
}

fn index(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    return (wid.y * nwg.x + wid.x) * 256u + lid;
}

@compute @workgroup_size(256)
fn d8(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
      @builtin(local_invocation_index) lid: u32) {
    let i = index(wid, nwg, lid);
    if (i >= dims.n) { return; }
    let w = dims.w;
    let x = i % w;
    let y = i / w;
    var r = i;
    var d = R(0.0);
    if (x > 0u && y > 0u && x + 1u < w && y + 1u < dims.h) {
        let hi = z[i];
        var best = R(-1.0);
        var bk = 8u;
        for (var k = 0u; k < 8u; k++) {
            let o = nb(k);
            let j = u32(i32(i) + o.y * i32(w) + o.x);
            let hj = z[j];
            let s = (hi - hj) * tab[k];
            if (hj < hi && s > best) {
                best = s;
                bk = k;
            }
        }
        if (bk < 8u) {
            let o = nb(bk);
            r = u32(i32(i) + o.y * i32(w) + o.x);
            d = tab[8u + bk];
        }
    }
    rcv[i] = r;
    rdist[i] = d;
}

// S = 1 per cell (the cell itself), P = receiver (NONE at outlets and pits).
@compute @workgroup_size(256)
fn acc_init(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let i = index(wid, nwg, lid);
    if (i >= dims.n) { return; }
    let r = rcv[i];
    q_out[i] = select(r, NONE, r == i);
    atomicStore(&t_out[i], 1u);
}

// T = S before the scatter of a round (nothing after the last live round).
@compute @workgroup_size(256)
fn acc_copy(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    if (!round_open(lid, dims.round)) { return; }
    let i = index(wid, nwg, lid);
    if (i >= dims.n) { return; }
    atomicStore(&t_out[i], s_in[i]);
}

// One round: S_k holds, per cell, the cells at distance < 2^k upstream; P_k the ancestor at
// distance exactly 2^k (NONE if the path is shorter). T = S + sum of S_k(m) over m with
// P_k(m) = i; Q = P_k(P_k). Integer sums, so the order of the atomics does not matter. The
// rounds are recorded in one submission, up to the most a grid can need (rounds.wgsl), and the
// surplus ones return at once.
@compute @workgroup_size(256)
fn acc_jump(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    if (!round_open(lid, dims.round)) { return; }
    let i = index(wid, nwg, lid);
    if (i < dims.n) { acc_jump_cell(i); }
    round_close(lid, dims.round);
}

fn acc_jump_cell(i: u32) {
    let p = p_in[i];
    var q = NONE;
    if (p != NONE) {
        atomicAdd(&t_out[p], s_in[i]);
        q = p_in[p];
        if (q != NONE) { round_mark(); }
    }
    q_out[i] = q;
}

// The counts into `count` (binding 6) when the last live round wrote the other buffer (an even
// round reads `count` and writes `count2`, bound here as `s_in`).
@compute @workgroup_size(256)
fn acc_final(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    if (last_round_wg(lid, 40u) % 2u != 0u) { return; }
    let i = index(wid, nwg, lid);
    if (i >= dims.n) { return; }
    atomicStore(&t_out[i], s_in[i]);
}

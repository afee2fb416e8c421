// D8 receivers and drainage accumulation by pointer jumping (bozkir-gpu, flow.rs).
//
// Accumulation is two-level. Within a 32x32 tile the receivers form an in-tile forest whose roots
// are the outlets and the *exits* (cells draining out of the tile). Pass 1 (`acc_tile_local`)
// sums the in-tile forest in workgroup memory (pointer jumping there) and finds each cell's
// in-tile root. An exit y's final count is then its in-tile count plus the final counts of the
// exits z of other tiles whose receiver's in-tile root is y: the same accumulation on a forest of
// the roots only (z -> root(rcv(z))), a few per cent of the cells, jumped globally over a list
// of them, on arrays indexed by the roots' slots in the list (`acc_link` packs them, `acc_jump`,
// `acc_final`). Pass 2 (`acc_tile_final`) sums
// every tile again with weights 1 + (the final counts of the donors from outside the tile).
// Every count is an integer sum, so the result is exact and independent of the order.
//
// Mirrors crates/terrain/src/hydrology/flow_graph.rs: border cells are outlets, an interior cell
// drains to the neighbour of steepest strictly positive drop (h_i - h_j) * (1 / dist), neighbours
// tried NW, N, NE, W, E, SW, S, SE and replaced only on a strictly larger slope. Compiled
// with rounds.wgsl (the rounds' bookkeeping) and roots.wgsl (tiles and the list of roots)
// appended; `R` is the height type (f64 here; a WebGPU
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
// The two-level accumulation: each cell's in-tile root (global index), the list of in-tile roots
// and its length, and the indirect dispatch size of a pass over that list.
@group(0) @binding(10) var<storage, read_write> xr: array<u32>;
@group(0) @binding(11) var<storage, read_write> roots: array<u32>;
@group(0) @binding(12) var<storage, read_write> nroots: array<atomic<u32>>;
@group(0) @binding(13) var<storage, read_write> ind: array<u32>;
// Each root's slot in the list (a cell-indexed map): the rounds run on arrays indexed by slot
// (contiguous) instead of by cell (scattered over the grid).
@group(0) @binding(14) var<storage, read_write> slot_of: array<u32>;
// The rounds over the roots keep the values in place (`vals`) and scatter each round's
// additions into a zeroed buffer (`t_out`), which the next round folds in and clears (`zin`).
@group(0) @binding(15) var<storage, read_write> vals: array<u32>;
@group(0) @binding(16) var<storage, read_write> zin: array<u32>;
@group(0) @binding(17) var<storage, read_write> zin2: array<u32>;

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

// ---- Pass 1 and 2: in-tile sums in workgroup memory ----

const TS: u32 = 32u;
const LNONE: u32 = 0xffffffffu;
// In-tile pointers, partial sums and the sums being scattered (12 KiB with the flags).
var<workgroup> lp: array<u32, 1024>;
var<workgroup> ls: array<u32, 1024>;
var<workgroup> lt: array<atomic<u32>, 1024>;
var<workgroup> lflag: array<atomic<u32>, 2>;
var<workgroup> lgo: u32;
var<workgroup> lbase: u32;

// A cell of 32x32 tile `wid`, and a cell's index in it (roots.wgsl).
fn tile_cell(wid: vec3<u32>, k: u32) -> u32 {
    return tile_cell_in(wid, k, TS, dims.w, dims.h);
}

fn tile_local(wid: vec3<u32>, c: u32) -> u32 {
    return tile_local_in(wid, c, TS, dims.w);
}

// lp = the in-tile receivers (LNONE at in-tile roots and outside the grid).
fn tile_pointers(wid: vec3<u32>, li: u32) {
    for (var q = 0u; q < 4u; q++) {
        let k = li + 256u * q;
        let c = tile_cell(wid, k);
        var p = LNONE;
        if (c != NONE) {
            let r = rcv[c];
            if (r != c) { p = tile_local(wid, r); }
        }
        lp[k] = p;
    }
}

// On entry lp holds the in-tile receivers and ls the weights; on exit ls holds every cell's sum
// of the weights in-tile upstream of it (itself included), lp is spent. Pointer jumping of
// partial sums (as the global rounds): at most 10 rounds for 1024 cells, fewer when the in-tile
// paths are short.
fn tile_sums(li: u32) {
    if (li == 0u) { atomicStore(&lflag[0], 0u); }
    for (var r = 0u; r < 11u; r++) {
        for (var q = 0u; q < 4u; q++) {
            let k = li + 256u * q;
            atomicStore(&lt[k], ls[k]);
        }
        workgroupBarrier();
        var nq: array<u32, 4>;
        var alive = false;
        for (var q = 0u; q < 4u; q++) {
            let k = li + 256u * q;
            let p = lp[k];
            nq[q] = LNONE;
            if (p != LNONE) {
                atomicAdd(&lt[p], ls[k]);
                nq[q] = lp[p];
                alive = alive || nq[q] != LNONE;
            }
        }
        if (alive) { atomicStore(&lflag[r % 2u], 1u); }
        workgroupBarrier();
        for (var q = 0u; q < 4u; q++) {
            let k = li + 256u * q;
            lp[k] = nq[q];
            ls[k] = atomicLoad(&lt[k]);
        }
        if (li == 0u) {
            lgo = atomicLoad(&lflag[r % 2u]);
            atomicStore(&lflag[(r + 1u) % 2u], 0u);
        }
        if (workgroupUniformLoad(&lgo) == 0u) { break; }
    }
}

// Pass 1, one workgroup per tile: the in-tile counts into `t_out` (the count buffer), each cell's
// in-tile root into `xr`, and the in-tile roots appended to `roots`.
@compute @workgroup_size(256)
fn acc_tile_local(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    tile_pointers(wid, li);
    for (var q = 0u; q < 4u; q++) {
        let k = li + 256u * q;
        ls[k] = select(1u, 0u, tile_cell(wid, k) == NONE);
    }
    workgroupBarrier();
    tile_sums(li);
    for (var q = 0u; q < 4u; q++) {
        let k = li + 256u * q;
        let c = tile_cell(wid, k);
        if (c != NONE) { atomicStore(&t_out[c], ls[k]); }
    }
    workgroupBarrier();
    // The in-tile roots by pointer jumping (ls reused): a root points at itself.
    tile_pointers(wid, li);
    workgroupBarrier();
    for (var q = 0u; q < 4u; q++) {
        let k = li + 256u * q;
        ls[k] = select(lp[k], k, lp[k] == LNONE);
    }
    if (li == 0u) {
        atomicStore(&lflag[0], 0u);
        atomicStore(&lt[0], 0u);
    }
    workgroupBarrier();
    for (var r = 0u; r < 11u; r++) {
        var nq: array<u32, 4>;
        var moved = false;
        for (var q = 0u; q < 4u; q++) {
            let k = li + 256u * q;
            nq[q] = ls[ls[k]];
            moved = moved || nq[q] != ls[k];
        }
        if (moved) { atomicStore(&lflag[r % 2u], 1u); }
        workgroupBarrier();
        for (var q = 0u; q < 4u; q++) { ls[li + 256u * q] = nq[q]; }
        if (li == 0u) {
            lgo = atomicLoad(&lflag[r % 2u]);
            atomicStore(&lflag[(r + 1u) % 2u], 0u);
        }
        if (workgroupUniformLoad(&lgo) == 0u) { break; }
    }
    // Roots and their slots in the list (lt[0] counts this tile's roots).
    var slot: array<u32, 4>;
    for (var q = 0u; q < 4u; q++) {
        let k = li + 256u * q;
        let c = tile_cell(wid, k);
        slot[q] = NONE;
        if (c != NONE) {
            xr[c] = tile_cell(wid, ls[k]);
            if (ls[k] == k) { slot[q] = atomicAdd(&lt[0], 1u); }
        }
    }
    workgroupBarrier();
    if (li == 0u) { lbase = atomicAdd(&nroots[0], atomicLoad(&lt[0])); }
    let base = workgroupUniformLoad(&lbase);
    for (var q = 0u; q < 4u; q++) {
        if (slot[q] != NONE) {
            let c = tile_cell(wid, li + 256u * q);
            roots[base + slot[q]] = c;
            slot_of[c] = base + slot[q];
        }
    }
}

// The roots' forest, packed by slot: slot j (root c = roots[j]) takes c's in-tile count (from
// `s_in`, by cell, into `t_out`, by slot) and points at the slot of the in-tile root of c's
// receiver (an exit), or nowhere (an outlet).
@compute @workgroup_size(256)
fn acc_link(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let j = slot_in(wid, nwg, lid);
    if (j == NONE) { return; }
    let c = roots[j];
    vals[j] = s_in[c];
    // Round 0's addition buffer (round 0 does not read the other one, `s_in` here, and clears
    // it for round 1).
    zin2[j] = 0u;
    let r = rcv[c];
    q_out[j] = select(slot_of[xr[r]], NONE, r == c);
}

// One round over the roots: S_k holds, per root, the in-tile counts of the roots at distance
// < 2^k upstream in the roots' forest; P_k the root at distance exactly 2^k (NONE if the path is
// shorter); S_{k+1}(i) = S_k(i) + sum of S_k(m) over m with P_k(m) = i, P_{k+1} = P_k(P_k).
// In place, with no copy between rounds: round k first makes its own value S_k(i) = vals(i) +
// zin(i) (the additions of round k − 1; none at round 0) and clears zin(i), then adds S_k(i) into t_out(P_k(i)),
// a buffer round k − 1 cleared; the two addition buffers alternate. Each slot is written by its
// own thread only, but for the atomic additions. The rounds are recorded in one submission, up
// to the most a grid can need (rounds.wgsl); the surplus ones return at once.
@compute @workgroup_size(256)
fn acc_jump(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    if (!round_open(lid, dims.round)) { return; }
    let j = slot_in(wid, nwg, lid);
    if (j != NONE) { acc_jump_slot(j); }
    round_close(lid, dims.round);
}

// Slot i's round (pointers are slots).
fn acc_jump_slot(i: u32) {
    let v = vals[i] + select(zin[i], 0u, dims.round == 0u);
    vals[i] = v;
    zin[i] = 0u;
    let p = p_in[i];
    var q = NONE;
    if (p != NONE) {
        atomicAdd(&t_out[p], v);
        q = p_in[p];
        if (q != NONE) { round_mark(); }
    }
    q_out[i] = q;
}

// The last live round's additions into the values: from `zin` when that round was even (its
// additions went to the buffer bound here as `zin`), else from `zin2`. `acc_tile_final` then
// reads the roots' counts from `vals` by slot and writes every cell's count.
@compute @workgroup_size(256)
fn acc_final(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let last = last_round_wg(lid, 40u);
    let j = slot_in(wid, nwg, lid);
    if (j == NONE) { return; }
    vals[j] += select(zin2[j], zin[j], last % 2u == 0u);
}

// Pass 2, one workgroup per tile: weights 1 + the final counts of the donors outside the tile
// (roots of their tiles, final in `s_in` by slot by now), summed in-tile: every cell's final
// count, into `t_out`.
@compute @workgroup_size(256)
fn acc_tile_final(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    tile_pointers(wid, li);
    for (var q = 0u; q < 4u; q++) {
        let k = li + 256u * q;
        let c = tile_cell(wid, k);
        var wgt = 0u;
        if (c != NONE) {
            wgt = 1u;
            let tx = k % TS;
            let ty = k / TS;
            // Only a cell on the tile's rim has neighbours outside it.
            if (tx == 0u || ty == 0u || tx == TS - 1u || ty == TS - 1u) {
                let x = c % dims.w;
                let y = c / dims.w;
                for (var n = 0u; n < 8u; n++) {
                    let o = nb(n);
                    let nx = i32(x) + o.x;
                    let ny = i32(y) + o.y;
                    if (nx < 0 || ny < 0 || nx >= i32(dims.w) || ny >= i32(dims.h)) { continue; }
                    let d = u32(ny) * dims.w + u32(nx);
                    if (tile_local(wid, d) == LNONE && rcv[d] == c) { wgt += s_in[slot_of[d]]; }
                }
            }
        }
        ls[k] = wgt;
    }
    workgroupBarrier();
    tile_sums(li);
    workgroupBarrier();
    for (var q = 0u; q < 4u; q++) {
        let k = li + 256u * q;
        let c = tile_cell(wid, k);
        if (c != NONE) { atomicStore(&t_out[c], ls[k]); }
    }
}

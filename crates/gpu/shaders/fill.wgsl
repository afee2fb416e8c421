// ε depression filling on the GPU (bozkir-gpu, fill.rs).
//
// Solves the equation of crates/terrain/src/hydrology/priority_flood.rs (fill_epsilon): W = Z on
// the seeds (border cells, cells beside nodata), W = NaN on nodata, and elsewhere
//     W(c) = max(Z(c), next_up(min over the in-grid, non-NaN neighbours n of W(n))),
// or, with a step s > 0 in the uniform, the profiles' fixed-step fill (profiles/generator.rs):
//     W(c) = Z(c) where Z(c) > m, m + s elsewhere (m the same minimum).
// Both rules are non-decreasing in m and put each cell strictly above the neighbour it depends
// on (for the step, where m + s > m: fill.rs checks it), so the equation has one solution and
// any order of relaxation from above reaches it: the result equals the CPU's bit for bit.
//
// Start: a cell with a strictly descending path to a seed keeps its height (by induction along
// the path from the seed, W = Z there). `init` points every other cell at its lowest strictly
// lower neighbour (seeds and nodata at NONE, cells with no lower neighbour at themselves);
// `root_jump` jumps the pointers to the ends of the chains (pointer jumping, rounds returning at
// once after the round that changed nothing); `start` sets W = Z where the chain ends at a seed
// (NONE) and BIG ("not reached") where it ends in an interior pit. So only the depressions'
// catchments are relaxed, from their rims, not the whole grid from the border.
//
// `relax` is one global Jacobi pass of 32x32 tiles: a workgroup loads its tile and a one-cell
// halo (the previous pass's values) into workgroup memory, relaxes the tile there until it stops
// moving (up to ITERS sweeps), and writes it out; so a wave crosses a whole tile per pass instead
// of one cell. Pass j counts the tiles it moved in live[j] and returns at once when pass j - 1
// moved none; a pass that moves nothing leaves both buffers holding the result. A tile runs only
// when it or a neighbouring tile moved in the previous pass (chg), so the passes cost the
// waves' fronts, not the grid. Compiled with exact.wgsl (next_up), rounds.wgsl (the jumping
// rounds' bookkeeping) and tile_skip.wgsl (the skip decision) appended.
alias R = f64;

const BIG: f64 = 1.7976931348623157e308;
const T: u32 = 32u;      // tile side in cells
const S: u32 = 34u;      // tile side with the halo
const ITERS: u32 = 96u;  // relaxation sweeps of a tile per pass, at most
const NONE: u32 = 0xffffffffu;

struct Dims {
    w: u32, h: u32, n: u32, round: u32,
    // 0: the ε fill (next_up); > 0: the profiles' fixed-step rule with this step.
    step: R, zero: R,
}

@group(0) @binding(0) var<uniform> d: Dims;
@group(0) @binding(1) var<storage, read> z: array<R>;
@group(0) @binding(2) var<storage, read> w_in: array<R>;
@group(0) @binding(3) var<storage, read_write> w_out: array<R>;
@group(0) @binding(4) var<storage, read_write> live: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read> p_in: array<u32>;
@group(0) @binding(6) var<storage, read_write> p_out: array<u32>;
// The relaxation's passes: pbase[0] + d.round is the pass's number g over the whole fill;
// chg: g + 1 when the tile moved in pass g (tile_skip.wgsl).
@group(0) @binding(7) var<storage, read> pbase: array<u32>;
@group(0) @binding(8) var<storage, read_write> chg: array<atomic<u32>>;

var<workgroup> tile: array<R, 1156>;  // S * S
var<workgroup> moved: atomic<u32>;
var<workgroup> go: u32;

fn mulr(a: R, b: R) -> R {
    // The addend is a zero the compiler cannot see (a uniform).
    return fma(a, b, d.zero);
}

fn is_nan(v: R) -> bool {
    return !(v == v);
}

@compute @workgroup_size(256)
fn init(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = (wid.y * nwg.x + wid.x) * 256u + lid;
    if (i >= d.n) { return; }
    let x = i % d.w;
    let y = i / d.w;
    let zi = z[i];
    if (is_nan(zi) || x == 0u || y == 0u || x + 1u == d.w || y + 1u == d.h) {
        p_out[i] = NONE;
        return;
    }
    var low = zi;
    var to = i;
    for (var dy = 0u; dy < 3u; dy++) {
        for (var dx = 0u; dx < 3u; dx++) {
            let k = (y + dy - 1u) * d.w + x + dx - 1u;
            let zk = z[k];
            if (is_nan(zk)) {
                // Beside nodata: a seed.
                p_out[i] = NONE;
                return;
            }
            if (zk < low) {
                low = zk;
                to = k;
            }
        }
    }
    p_out[i] = to;
}

// One round of pointer jumping to the ends of the chains (NONE: a seed); the rounds after the
// one that changed nothing return at once (rounds.wgsl).
@compute @workgroup_size(256)
fn root_jump(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    if (!round_open(lid, d.round)) { return; }
    let i = (wid.y * nwg.x + wid.x) * 256u + lid;
    if (i < d.n) {
        let p = p_in[i];
        var q = p;
        if (p != NONE) { q = p_in[p]; }
        p_out[i] = q;
        if (q != p) { round_mark(); }
    }
    round_close(lid, d.round);
}

// W = Z where the chain ends at a seed (and on nodata), BIG where it ends in a pit.
@compute @workgroup_size(256)
fn start(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let i = (wid.y * nwg.x + wid.x) * 256u + lid;
    if (i >= d.n) { return; }
    w_out[i] = select(BIG, z[i], p_in[i] == NONE);
}

@compute @workgroup_size(16, 16)
fn relax(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
         @builtin(local_invocation_index) li: u32) {
    // A uniform decision: nothing to do when the previous pass moved nothing anywhere (the rest
    // of the submission is free), or when neither this tile nor a neighbouring one moved in it
    // (the tile's values and halo are as in the previous pass, which left them unchanged, so
    // both buffers hold them already). The first pass runs every tile.
    let g = pbase[0] + d.round;
    let ntx = (d.w + T - 1u) / T;
    let nty = (d.h + T - 1u) / T;
    if (!tile_runs(wid, li, ntx, nty, g, g == 0u, d.round)) { return; }
    let x0 = i32(wid.x * T) - 1;
    let y0 = i32(wid.y * T) - 1;
    // The tile and its halo; outside the grid: BIG (no neighbour there).
    for (var k = li; k < S * S; k += 256u) {
        let gx = x0 + i32(k % S);
        let gy = y0 + i32(k / S);
        var v = BIG;
        if (gx >= 0 && gy >= 0 && gx < i32(d.w) && gy < i32(d.h)) { v = w_in[u32(gy) * d.w + u32(gx)]; }
        tile[k] = v;
    }
    workgroupBarrier();
    // This thread's four cells (lid + 16·(a, b)): the ones that follow the equation, their
    // ground heights and their values on entry.
    var free: array<bool, 4>;
    var zc: array<R, 4>;
    var cur: array<R, 4>;
    for (var q = 0u; q < 4u; q++) {
        let tx = lid.x + 16u * (q % 2u);
        let ty = lid.y + 16u * (q / 2u);
        let gx = u32(x0 + 1) + tx;
        let gy = u32(y0 + 1) + ty;
        let k = (ty + 1u) * S + tx + 1u;
        cur[q] = tile[k];
        free[q] = false;
        if (gx > 0u && gy > 0u && gx + 1u < d.w && gy + 1u < d.h) {
            var nan_beside = false;
            for (var dy = 0u; dy < 3u; dy++) {
                for (var dx = 0u; dx < 3u; dx++) {
                    nan_beside = nan_beside || is_nan(tile[(ty + dy) * S + tx + dx]);
                }
            }
            free[q] = !nan_beside;
            zc[q] = z[gy * d.w + gx];
        }
    }
    let entry = cur;
    for (var it = 0u; it < ITERS; it++) {
        var nv = cur;
        var changed = false;
        for (var q = 0u; q < 4u; q++) {
            if (!free[q]) { continue; }
            let tx = lid.x + 16u * (q % 2u);
            let ty = lid.y + 16u * (q / 2u);
            var m = BIG;
            for (var dy = 0u; dy < 3u; dy++) {
                for (var dx = 0u; dx < 3u; dx++) {
                    if (dx == 1u && dy == 1u) { continue; }
                    m = min(m, tile[(ty + dy) * S + tx + dx]);
                }
            }
            if (m < BIG) {
                var v = max(zc[q], next_up(m));
                if (d.step > 0.0) { v = select(m + d.step, zc[q], zc[q] > m); }
                if (v < cur[q]) {
                    nv[q] = v;
                    changed = true;
                }
            }
        }
        workgroupBarrier();
        for (var q = 0u; q < 4u; q++) {
            let tx = lid.x + 16u * (q % 2u);
            let ty = lid.y + 16u * (q / 2u);
            tile[(ty + 1u) * S + tx + 1u] = nv[q];
        }
        cur = nv;
        if (changed) { atomicStore(&moved, 1u); }
        workgroupBarrier();
        if (li == 0u) {
            go = atomicLoad(&moved);
            atomicStore(&moved, 0u);
        }
        if (workgroupUniformLoad(&go) == 0u) { break; }
    }
    var any = false;
    for (var q = 0u; q < 4u; q++) {
        let gx = u32(x0 + 1) + lid.x + 16u * (q % 2u);
        let gy = u32(y0 + 1) + lid.y + 16u * (q / 2u);
        if (gx < d.w && gy < d.h) {
            w_out[gy * d.w + gx] = cur[q];
            any = any || (free[q] && cur[q] != entry[q]);
        }
    }
    // One count and one stamp per tile (`moved` is 0 again after the last sweep's reset).
    if (any) { atomicStore(&moved, 1u); }
    workgroupBarrier();
    if (li == 0u && atomicLoad(&moved) != 0u) {
        atomicAdd(&live[d.round], 1u);
        tile_changed(wid, ntx, nty, g);
    }
}

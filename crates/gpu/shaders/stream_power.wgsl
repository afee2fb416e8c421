// One implicit stream-power step (n = 1) on the GPU (bozkir-gpu, stream_power.rs).
//
// Mirrors crates/terrain/src/erosion/stream_power.rs with parallel formulations of its
// sequential passes along the stack:
// * incision: h_i' = G_i·h_i + (1 − G_i)·h_r' is an affine map of the receiver's new height;
//   composing the maps along the receivers by pointer jumping (`ab_jump_l`, in two levels)
//   gives every new height in ⌈log₂ L⌉ rounds (`incise`). The CPU's clamps (never above the uplifted height, at least
//   next_up(h_r')) are not affine, and a Jacobi pass carries them only one cell down a river; so
//   the clamps are *typed* instead (`classify_incise`): from the current solution, a cell whose
//   value would fall below next_up(h_r') takes the map h = h_r' + ulp(h_r') (affine too, and
//   exactly next_up when the solution is), the others keep theirs, and the maps are jumped
//   again while `check_refine` finds a cell that would move. A few such rounds leave the Jacobi
//   passes of the exact rule (`refine`) little to do;
// * limiter (h_i > h_r for every interior cell, the CPU's h_i = max(h_i, next_up(h_r')) along
//   the stack): max-plus maps x -> max(c, x ⊕ d), closed under composition, jumped the same way
//   (`lift_init`, `tm_*_mp` and `mp_jump_l`, `apply_lift`), checked (`check_lift`) and where
//   needed confirmed by Jacobi passes (`lift`);
// * sediment proxy: Q_i = qs_i + Σ_donors (1 − settle_d)·Q_d by pointer jumping of partial sums
//   with path products of the factors (`sd_local`, `sed_jump`, `sd_final`), the sums in 64-bit fixed point (2^-44 m) with
//   u32 atomics and carries, so their order does not matter;
// * diffusion: explicit FTCS sub-steps (`diffuse`), then `lift` as the limiter.
// Float results differ from the CPU's by round-off (another association); see docs/gpu.md for
// the tolerance. Compiled with exact.wgsl (next_up), rounds.wgsl (the rounds' bookkeeping),
// tile_skip.wgsl (the tile passes' change stamps) and roots.wgsl (tiles and the list of roots)
// appended.
alias R = f64;

const NONE: u32 = 0xffffffffu;
const S0: f64 = 0.02;
const FIX: f64 = 17592186044416.0;   // 2^44
const TWO32: f64 = 4294967296.0;

struct Sp {
    w: u32, h: u32, n: u32, round: u32, use_map: u32, use_sqrt: u32, pad0: u32, guards: u32,
    kdt: R, udt: R, cell: R, cap: R, m: R, tx: R, ty: R, pad: R, floor: R, pad2: R,
}

@group(0) @binding(0) var<uniform> sp: Sp;
@group(0) @binding(1) var<storage, read> rcv: array<u32>;
@group(0) @binding(2) var<storage, read> dist: array<R>;
@group(0) @binding(3) var<storage, read> count: array<u32>;
@group(0) @binding(4) var<storage, read_write> hh: array<R>;
@group(0) @binding(5) var<storage, read> umap: array<R>;
@group(0) @binding(6) var<storage, read_write> before: array<R>;
// The affine maps h = a + b·h_P, in two arrays (a 16-byte pair per cell would pass the 4 GiB
// binding limit at 16384²).
@group(0) @binding(7) var<storage, read> a_in: array<R>;
@group(0) @binding(20) var<storage, read> b_in: array<R>;
@group(0) @binding(8) var<storage, read> p_in: array<u32>;
@group(0) @binding(9) var<storage, read_write> a_out: array<R>;
@group(0) @binding(21) var<storage, read_write> b_out: array<R>;
@group(0) @binding(10) var<storage, read_write> p_out: array<u32>;
@group(0) @binding(11) var<storage, read_write> live: array<atomic<u32>>;
@group(0) @binding(12) var<storage, read> s_in: array<u32>;
@group(0) @binding(13) var<storage, read_write> t_out: array<atomic<u32>>;
@group(0) @binding(14) var<storage, read> f_in: array<R>;
@group(0) @binding(15) var<storage, read_write> f_out: array<R>;
@group(0) @binding(16) var<storage, read_write> h2: array<R>;
@group(0) @binding(17) var<storage, read_write> eroded: array<R>;
@group(0) @binding(18) var<storage, read_write> sediment: array<R>;
@group(0) @binding(19) var<storage, read_write> settle: array<R>;
// The tile passes' change stamps (two per 32x32 tile, by pass parity: the number of the pass
// after the one in which a value of the tile changed; tile_skip.wgsl), the number of a
// submission's first pass, and whether that submission is the first of its refine or lift call.
@group(0) @binding(24) var<storage, read_write> chg: array<atomic<u32>>;
@group(0) @binding(25) var<storage, read> pbase: array<u32>;
// The two-level jumping of the maps (see `tm_local`): each cell's composite map to its in-tile
// root (da, db), that root (xr), the list of the in-tile roots, its length, and the indirect
// dispatch size of a pass over it.
@group(0) @binding(26) var<storage, read_write> da: array<R>;
@group(0) @binding(27) var<storage, read_write> db: array<R>;
@group(0) @binding(28) var<storage, read_write> xr: array<u32>;
@group(0) @binding(29) var<storage, read_write> roots: array<u32>;
@group(0) @binding(30) var<storage, read_write> nroots: array<atomic<u32>>;
@group(0) @binding(31) var<storage, read_write> ind: array<u32>;
// The two-level sediment sums: each cell's own flux (fixed point, lo/hi) and factor 1 − settle,
// and the product of the factors from a cell to its in-tile root (the root's excluded).
@group(0) @binding(32) var<storage, read> q0: array<u32>;
@group(0) @binding(33) var<storage, read> f0: array<R>;
@group(0) @binding(34) var<storage, read_write> gg: array<R>;
// The sediment's roots: each root's slot in the list (a cell-indexed map), so that the rounds
// run on arrays indexed by slot (contiguous) instead of by cell (scattered over the grid).
@group(0) @binding(35) var<storage, read_write> slotof: array<u32>;
// The sediment rounds' values by slot, kept in place, and the two buffers of each round's
// additions (`sed_jump`: round k adds into `t_out` and folds in and clears `szin`).
@group(0) @binding(39) var<storage, read_write> svals: array<u32>;
@group(0) @binding(40) var<storage, read_write> szin: array<u32>;
@group(0) @binding(41) var<storage, read_write> szin2: array<u32>;
// The roots' final heights by slot (the maps' jumping), read back by `tm_apply`.
@group(0) @binding(36) var<storage, read_write> hs: array<R>;

fn index(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    return (wid.y * nwg.x + wid.x) * 256u + lid;
}

// The product a·b rounded on its own (for exact.wgsl, appended: next_up); sp.pad is 0.
fn mulr(a: R, b: R) -> R {
    return fma(a, b, sp.pad);
}

// The gap from x to the next f64 above it (exact).
fn gap_up(x: R) -> R {
    return next_up(x) - x;
}

// Uplift, the kept heights, G = dist / (dist + K dt A^m), and the affine maps (G·h, 1 − G).
@compute @workgroup_size(256)
fn prep(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = index(wid, nwg, lid);
    if (i >= sp.n) { return; }
    let x = i % sp.w;
    let y = i / sp.w;
    var hi = hh[i];
    if (x > 0u && y > 0u && x + 1u < sp.w && y + 1u < sp.h) {
        if (sp.use_map != 0u) { hi += sp.udt * umap[i]; } else { hi += sp.udt; }
    }
    hh[i] = hi;
    before[i] = hi;
    let r = rcv[i];
    if (r == i) {
        a_out[i] = hi;
        b_out[i] = 0.0;
        settle[i] = 0.0;
        p_out[i] = NONE;
    } else {
        let a = min(max(R(count[i]) * sp.cell, sp.floor), sp.cap);
        var am: R;
        if (sp.use_sqrt != 0u) {
            am = sqrt(a);
        } else {
            // No f64 pow in Vulkan shaders: f32 pow (relative error ~1e-7 in A^m).
            am = R(pow(f32(a), f32(sp.m)));
        }
        let d = dist[i];
        let g = d / (d + sp.kdt * am);
        a_out[i] = g * hi;
        b_out[i] = 1.0 - g;
        settle[i] = g;
        p_out[i] = r;
    }
}

// One jumping round of the maps along the pointers, affine (h_i = a_i + b_i·h_P, `ab_jump_l`) or
// max-plus (h_i = max(c_i, h_P ⊕ d_i) with (c, d) in the (a, b) buffers, `mp_jump_l`; ⊕ d is
// d steps of next_up, c ⊕ d = c + d·(next_up(c) − c), exact within c's binade). A cell whose
// pointer reaches a finished cell (an outlet, or one finished in an earlier round) writes its
// height to hs (where `tm_link` put the outlets' heights) and stops: later rounds touch only its
// dead pointer, and the cells pointing at it read hs. Indices are the roots' slots.
fn jump(i: u32, max_plus: bool) {
    let p = p_in[i];
    if (p == NONE) {
        // Finished in an earlier round (its height in hs): keep the pointer dead in both buffers.
        p_out[i] = NONE;
        return;
    }
    let a = a_in[i];
    let b = b_in[i];
    let q = p_in[p];
    if (q == NONE) {
        // The pointee is finished (or an outlet): this cell's height is final.
        hs[i] = apply_map(a, b, hs[p], max_plus);
        p_out[i] = NONE;
        return;
    }
    a_out[i] = apply_map(a, b, a_in[p], max_plus);
    b_out[i] = select(b * b_in[p], b + b_in[p], max_plus);
    p_out[i] = q;
    round_mark();
}

// The map (a, b) applied to x: a + b·x, or max(a, x ⊕ b).
fn apply_map(a: R, b: R, x: R, max_plus: bool) -> R {
    if (max_plus) { return max(a, x + b * gap_up(x)); }
    return a + b * x;
}

// ---- The maps' jumping in two levels ----
//
// Within a 16x16 tile the pointers form an in-tile forest whose roots are the cells pointing out
// of the tile or nowhere. `tm_local` composes, in workgroup memory, each cell's maps along its
// in-tile path up to (not including) its in-tile root X: D_c = M_c ∘ … (a map of h_X). A root y
// then depends on the root X(P_y) through M_y ∘ D_{P_y} (`tm_link`, which packs the roots' maps
// by their slots in the list): the same jumping, over the slots only (`ab_jump_l`, `mp_jump_l`,
// contiguous arrays), finishes every root's height in hs, and `tm_apply` gives every cell its
// height in h2 (D_c(h_X) off the roots).
const MT: u32 = 16u;
var<workgroup> mp: array<u32, 256>;
var<workgroup> ma: array<R, 256>;
var<workgroup> mb: array<R, 256>;
var<workgroup> mflag: array<atomic<u32>, 2>;
var<workgroup> mgo: u32;
var<workgroup> mcount: atomic<u32>;
var<workgroup> mbase: u32;

// A cell of 16x16 tile `wid`, and a cell's index in it (roots.wgsl).
fn mt_cell(wid: vec3<u32>, k: u32) -> u32 {
    return tile_cell_in(wid, k, MT, sp.w, sp.h);
}

fn mt_local(wid: vec3<u32>, c: u32) -> u32 {
    return tile_local_in(wid, c, MT, sp.w);
}

// The maps M = (a, b) and pointers in buffer 0 (a_in, b_in, p_in); out: da, db, xr, the roots.
fn tm_local(wid: vec3<u32>, k: u32, max_plus: bool) {
    let c = mt_cell(wid, k);
    // In-tile pointer: NONE at an in-tile root (and outside the grid).
    var lp = NONE;
    if (c != NONE) {
        let p = p_in[c];
        if (p != NONE) { lp = mt_local(wid, p); }
        ma[k] = a_in[c];
        mb[k] = b_in[c];
    }
    mp[k] = lp;
    if (k == 0u) {
        atomicStore(&mflag[0], 0u);
        atomicStore(&mcount, 0u);
    }
    workgroupBarrier();
    // Jump while the pointee is not a root: the pointer ends at X, the map is D_c.
    for (var r = 0u; r < 9u; r++) {
        let p = mp[k];
        var na = ma[k];
        var nb = mb[k];
        var np = p;
        if (p != NONE && mp[p] != NONE) {
            na = apply_map(na, nb, ma[p], max_plus);
            nb = select(nb * mb[p], nb + mb[p], max_plus);
            np = mp[p];
            atomicStore(&mflag[r % 2u], 1u);
        }
        workgroupBarrier();
        ma[k] = na;
        mb[k] = nb;
        mp[k] = np;
        if (k == 0u) {
            mgo = atomicLoad(&mflag[r % 2u]);
            atomicStore(&mflag[(r + 1u) % 2u], 0u);
        }
        if (workgroupUniformLoad(&mgo) == 0u) { break; }
    }
    var slot = NONE;
    if (c != NONE) {
        if (lp == NONE) {
            xr[c] = c;
            slot = atomicAdd(&mcount, 1u);
        } else {
            xr[c] = mt_cell(wid, mp[k]);
            da[c] = ma[k];
            db[c] = mb[k];
        }
    }
    append_roots(k, c, slot);
}

// Appends the tile's roots to the list with one atomic per tile: `slot` is cell c's place among
// the tile's roots (counted in mcount; NONE when c is not one); records each root's slot in
// `slotof`. From uniform control flow.
fn append_roots(k: u32, c: u32, slot: u32) {
    workgroupBarrier();
    if (k == 0u) { mbase = atomicAdd(&nroots[0], atomicLoad(&mcount)); }
    let base = workgroupUniformLoad(&mbase);
    if (slot != NONE) {
        roots[base + slot] = c;
        slotof[c] = base + slot;
    }
}

@compute @workgroup_size(256)
fn tm_local_ab(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) k: u32) {
    tm_local(wid, k, false);
}

@compute @workgroup_size(256)
fn tm_local_mp(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) k: u32) {
    tm_local(wid, k, true);
}

// A root's map on the roots' forest, packed into slot j of the root y = roots[j]: M_y ∘ D_{P_y}
// (from buffer 0, by cell, into buffer 1, by slot), pointing at the slot of X(P_y); an outlet's
// height (its map is the constant a) into hs, final from the start.
fn tm_link(wid: vec3<u32>, nwg: vec3<u32>, lid: u32, max_plus: bool) {
    let j = slot_in(wid, nwg, lid);
    if (j == NONE) { return; }
    let y = roots[j];
    let p = p_in[y];
    var a = a_in[y];
    var b = b_in[y];
    if (p == NONE) {
        hs[j] = a;
        p_out[j] = NONE;
        return;
    }
    let x = xr[p];
    if (x != p) {
        a = apply_map(a, b, da[p], max_plus);
        b = select(b * db[p], b + db[p], max_plus);
    }
    a_out[j] = a;
    b_out[j] = b;
    p_out[j] = slotof[x];
}

@compute @workgroup_size(256)
fn tm_link_ab(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    tm_link(wid, nwg, lid, false);
}

@compute @workgroup_size(256)
fn tm_link_mp(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    tm_link(wid, nwg, lid, true);
}

// Every cell's height into h2: a root's from hs, any other cell's D_c applied to its root's.
fn tm_apply(wid: vec3<u32>, nwg: vec3<u32>, lid: u32, max_plus: bool) {
    let i = index(wid, nwg, lid);
    if (i >= sp.n) { return; }
    let x = xr[i];
    let hx = hs[slotof[x]];
    if (x != i) {
        h2[i] = apply_map(da[i], db[i], hx, max_plus);
    } else {
        h2[i] = hx;
    }
}

@compute @workgroup_size(256)
fn tm_apply_ab(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    tm_apply(wid, nwg, lid, false);
}

@compute @workgroup_size(256)
fn tm_apply_mp(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    tm_apply(wid, nwg, lid, true);
}

// The jumping rounds over the roots' list.
@compute @workgroup_size(256)
fn ab_jump_l(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    if (!round_open(lid, sp.round)) { return; }
    let j = slot_in(wid, nwg, lid);
    if (j != NONE) { jump(j, false); }
    round_close(lid, sp.round);
}

@compute @workgroup_size(256)
fn mp_jump_l(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    if (!round_open(lid, sp.round)) { return; }
    let j = slot_in(wid, nwg, lid);
    if (j != NONE) { jump(j, true); }
    round_close(lid, sp.round);
}

// The jumped maps' heights (in h2): never above the uplifted height, except for cells typed as
// clamped (settle < 0), which sit at next_up of their receiver, and all cells with the guards off
// (`sp.guards == 0`: the bare scheme keeps them as they are).
@compute @workgroup_size(256)
fn incise(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let i = index(wid, nwg, lid);
    if (i >= sp.n) { return; }
    if (rcv[i] != i) {
        let a = h2[i];
        hh[i] = select(min(a, before[i]), a, settle[i] < 0.0 || sp.guards == 0u);
    }
}

// The incision maps typed from the current solution `hh`: a cell whose sequential value
// (clamped under its uplifted height) would fall below next_up(h_r) is clamped,
// h = h_r' + (next_up(h_r) − h_r), its G kept negated in `settle`; the others keep
// h = G·h_i + (1 − G)·h_r'.
@compute @workgroup_size(256)
fn classify_incise(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                   @builtin(local_invocation_index) lid: u32) {
    let i = index(wid, nwg, lid);
    if (i >= sp.n) { return; }
    let r = rcv[i];
    if (r == i) {
        a_out[i] = hh[i];
        b_out[i] = 0.0;
        p_out[i] = NONE;
        return;
    }
    let hr = hh[r];
    let b = before[i];
    let g = abs(settle[i]);
    let v = min(hr + (b - hr) * g, b);
    if (!(v >= next_up(hr))) {
        a_out[i] = gap_up(hr);
        b_out[i] = 1.0;
        settle[i] = -g;
    } else {
        a_out[i] = g * b;
        b_out[i] = 1.0 - g;
        settle[i] = g;
    }
    p_out[i] = r;
}

// The limiter h_i = max(h_i, next_up(h_r')) along the receivers, receivers first, is a max-plus
// map x -> max(c, x ⊕ d) (⊕ d: d steps of next_up), and such maps compose:
// max(c_i, max(c_p, x ⊕ d_p) ⊕ d_i) = max(c_i, c_p ⊕ d_i, x ⊕ (d_i + d_p)). Here c = h_i, d = 1
// (0 at outlets); the pairs (c, d) live in the (a, b) buffers.
@compute @workgroup_size(256)
fn lift_init(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let i = index(wid, nwg, lid);
    if (i >= sp.n) { return; }
    let r = rcv[i];
    a_out[i] = hh[i];
    b_out[i] = select(R(1.0), R(0.0), r == i);
    p_out[i] = select(r, NONE, r == i);
}

// The checks' counts of one submission: [0] the refine check's, [1] the first lift check's,
// [2] the second's. The jumped limiter is applied only where the clamps held and the first lift
// check did not (a step records both checks and the limiter at once, then reads the counts).
@group(0) @binding(37) var<storage, read> gate: array<u32>;

// The jumped limiter maps' heights (in h2); the limiter only raises.
@compute @workgroup_size(256)
fn apply_lift(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let i = index(wid, nwg, lid);
    if (i >= sp.n || gate[0] != 0u || gate[1] == 0u) { return; }
    hh[i] = max(hh[i], h2[i]);
}

// Passes of the exact rules over 32x32 tiles: a workgroup loads its tile and a one-cell halo of
// `hh` (every receiver of a tile cell is in it) into workgroup memory, applies the rule there until
// the tile stops moving (up to TILE_ITERS sweeps, so a clamp runs up to that many cells up a river
// in one pass instead of one), and writes the tile to `h2`. The rules have one fixed point on the
// receiver forest, so any order of sweeps reaches the sequential result. A tile counts into
// live[round] when a cell moved by more than round-off (refine: 1e-12 of its height; lift: any
// rise). A pass runs the tiles of its list (`tile_list` above: near a check's moving cells in a
// call's first pass, near a tile that changed in the previous pass after it, none once a pair
// moved nothing), dispatched indirectly; the numbering runs on across the call's submissions.
//  * refine (kind 0): the CPU's sequential update with its clamps, h_i' = max(min(h_r' +
//    (h_i − h_r')·G, h_i), next_up(h_r')) (G in `settle`), after the typed jumping;
//  * lift (kind 1): an interior cell at or below its receiver rises to next_up(h_r).
const T: u32 = 32u;
const S: u32 = 34u;
const TILE_ITERS: u32 = 64u;
var<workgroup> tile: array<R, 1156>;
var<workgroup> t_moved: atomic<u32>;
var<workgroup> t_go: u32;

// The tiles a pass runs (`tile_list_a`/`_b`, then `tile_args_a`/`_b`, then the pass dispatched
// indirectly over the list): in the first pass of a refine or lift call (pbase[1]: the state
// changed since), the tiles next to one where the check before it found a moving cell (`seed`);
// none when the submission's previous pair moved nothing; else the
// tiles with a tile of their 3x3 neighbourhood changed in the previous pass (the others' values
// and halo are as that pass left them, unchanged, so both ping-pong buffers hold them already).
// A list per pass parity (passes are numbered from an even base, so the parity is the half):
// `tlist[half·nt ..]`, its length in `tcnt[half]`, the indirect arguments in `targs[3·half ..]`
// (up to TL_X workgroups a row). Skipped tiles then cost nothing, not a workgroup each (a grid
// of workgroups that all return at once is not free: docs/gpu.md).
@group(0) @binding(44) var<storage, read_write> tlist: array<u32>;
@group(0) @binding(45) var<storage, read_write> tcnt: array<atomic<u32>>;
@group(0) @binding(46) var<storage, read_write> targs: array<u32>;
const TL_X: u32 = 32768u;
var<workgroup> tl_n: atomic<u32>;
var<workgroup> tl_base: u32;
var<workgroup> tl_t: u32;

fn tile_list(wid: vec3<u32>, nwg: vec3<u32>, lid: u32, half: u32) {
    let t = index(wid, nwg, lid);
    let ntx = (sp.w + T - 1u) / T;
    let nty = (sp.h + T - 1u) / T;
    let nt = ntx * nty;
    let k = 2u * sp.round + half;
    let g = pbase[0] + k;
    var run = false;
    if (t < nt && (sp.round == 0u || atomicLoad(&live[sp.round - 1u]) != 0u)) {
        // The first pass of a call: the tiles near the last check's moving cells (pbase[2]: the
        // rule); later ones: the tiles near one that changed in the previous pass.
        let first = k == 0u && pbase[1] != 0u;
        let tx = i32(t % ntx);
        let ty = i32(t / ntx);
        for (var q = 0u; q < 9u && !run; q++) {
            let nx = tx + i32(q % 3u) - 1;
            let ny = ty + i32(q / 3u) - 1;
            if (nx >= 0 && ny >= 0 && nx < i32(ntx) && ny < i32(nty)) {
                let nb = u32(ny) * ntx + u32(nx);
                if (first) {
                    run = seed[pbase[2] * nt + nb] != 0u;
                } else {
                    run = changed_before(nb, nt, g);
                }
            }
        }
    }
    // One global atomic per workgroup: slots within the workgroup, then its base.
    var slot = 0u;
    if (run) { slot = atomicAdd(&tl_n, 1u); }
    workgroupBarrier();
    if (lid == 0u) {
        let n = atomicLoad(&tl_n);
        if (n > 0u) { tl_base = atomicAdd(&tcnt[half], n); }
    }
    workgroupBarrier();
    if (run) { tlist[half * nt + tl_base + slot] = t; }
}

@compute @workgroup_size(256)
fn tile_list_a(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    tile_list(wid, nwg, lid, 0u);
}

@compute @workgroup_size(256)
fn tile_list_b(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    tile_list(wid, nwg, lid, 1u);
}

// The indirect arguments of the list of `half`; the other list's length starts again at 0 (its
// pass has run; the next list kernel fills it).
fn tile_args(half: u32) {
    let c = atomicLoad(&tcnt[half]);
    targs[3u * half] = min(c, TL_X);
    targs[3u * half + 1u] = (c + TL_X - 1u) / TL_X;
    targs[3u * half + 2u] = 1u;
    atomicStore(&tcnt[1u - half], 0u);
}

@compute @workgroup_size(1)
fn tile_args_a() {
    tile_args(0u);
}

@compute @workgroup_size(1)
fn tile_args_b() {
    tile_args(1u);
}

fn tile_pass(wid: vec3<u32>, lid: vec3<u32>, li: u32, kind: u32, half: u32) {
    // This pass's number: pairs of passes, `half` the pass within the pair.
    let k = 2u * sp.round + half;
    let g = pbase[0] + k;
    let ntx = (sp.w + T - 1u) / T;
    let nty = (sp.h + T - 1u) / T;
    // This workgroup's tile, from the pass's list.
    if (li == 0u) {
        let j = wid.y * TL_X + wid.x;
        tl_t = select(NONE, tlist[half * ntx * nty + j], j < atomicLoad(&tcnt[half]));
    }
    let t = workgroupUniformLoad(&tl_t);
    if (t == NONE) { return; }
    let tw = vec3<u32>(t % ntx, t / ntx, 0u);
    let x0 = tw.x * T;
    let y0 = tw.y * T;
    for (var k = li; k < S * S; k += 256u) {
        let gx = i32(x0 + k % S) - 1;
        let gy = i32(y0 + k / S) - 1;
        var v = R(0.0);
        if (gx >= 0 && gy >= 0 && gx < i32(sp.w) && gy < i32(sp.h)) { v = hh[u32(gy) * sp.w + u32(gx)]; }
        tile[k] = v;
    }
    workgroupBarrier();
    // This thread's four cells (lid + 16·(a, b)).
    var act: array<bool, 4>;
    var gi: array<u32, 4>;
    var rl: array<u32, 4>;
    var bf: array<R, 4>;
    var gs: array<R, 4>;
    var cur: array<R, 4>;
    for (var q = 0u; q < 4u; q++) {
        let tx = lid.x + 16u * (q % 2u);
        let ty = lid.y + 16u * (q / 2u);
        let gx = x0 + tx;
        let gy = y0 + ty;
        cur[q] = tile[(ty + 1u) * S + tx + 1u];
        act[q] = false;
        if (gx < sp.w && gy < sp.h) {
            let i = gy * sp.w + gx;
            gi[q] = i;
            let r = rcv[i];
            if (r != i) {
                act[q] = true;
                rl[q] = (r / sp.w + 1u - y0) * S + (r % sp.w + 1u - x0);
                if (kind == 0u) {
                    bf[q] = before[i];
                    gs[q] = abs(settle[i]);
                }
            }
        }
    }
    let entry = cur;
    for (var it = 0u; it < TILE_ITERS; it++) {
        var nv = cur;
        var changed = false;
        for (var q = 0u; q < 4u; q++) {
            if (!act[q]) { continue; }
            let hr = tile[rl[q]];
            var v: R;
            if (kind == 0u) {
                v = min(hr + (bf[q] - hr) * gs[q], bf[q]);
                let fl = next_up(hr);
                if (!(v >= fl)) { v = fl; }
            } else {
                v = select(next_up(hr), cur[q], cur[q] > hr);
            }
            if (v != cur[q]) {
                nv[q] = v;
                changed = true;
            }
        }
        workgroupBarrier();
        for (var q = 0u; q < 4u; q++) {
            tile[(lid.y + 16u * (q / 2u) + 1u) * S + lid.x + 16u * (q % 2u) + 1u] = nv[q];
        }
        cur = nv;
        if (changed) { atomicStore(&t_moved, 1u); }
        workgroupBarrier();
        if (li == 0u) {
            t_go = atomicLoad(&t_moved);
            atomicStore(&t_moved, 0u);
        }
        if (workgroupUniformLoad(&t_go) == 0u) { break; }
    }
    var moved = false;
    var changed = false;
    for (var q = 0u; q < 4u; q++) {
        let gx = x0 + lid.x + 16u * (q % 2u);
        let gy = y0 + lid.y + 16u * (q / 2u);
        if (gx < sp.w && gy < sp.h) {
            h2[gy * sp.w + gx] = cur[q];
            changed = changed || cur[q] != entry[q];
            if (kind == 0u) {
                moved = moved || abs(cur[q] - entry[q]) > 1e-12 * max(abs(cur[q]), 1.0);
            } else {
                moved = moved || cur[q] != entry[q];
            }
        }
    }
    // t_moved is free again (the last sweep's reset): bit 0 a move, bit 1 any change.
    if (moved || changed) { atomicOr(&t_moved, select(0u, 1u, moved) | select(0u, 2u, changed)); }
    workgroupBarrier();
    if (li == 0u) {
        let m = atomicLoad(&t_moved);
        if ((m & 1u) != 0u) { atomicAdd(&live[sp.round], 1u); }
        if ((m & 2u) != 0u) { tile_changed(tw, ntx, nty, g); }
    }
}

// Whether a tile pass of a rule would move a cell: the rule evaluated once per cell (one streaming
// pass instead of a probing pair of tile passes); a cell that would move counts its workgroup into
// live[0]. Refine: by more than the passes' round-off threshold; lift: at or below its receiver.
fn rule_moves(i: u32, kind: u32) -> bool {
    let r = rcv[i];
    if (r == i) { return false; }
    let hr = hh[r];
    let cur = hh[i];
    if (kind == 1u) { return !(cur > hr); }
    let bf = before[i];
    var v = min(hr + (bf - hr) * abs(settle[i]), bf);
    let fl = next_up(hr);
    if (!(v >= fl)) { v = fl; }
    return abs(v - cur) > 1e-12 * max(abs(v), 1.0);
}

// The 32x32 tiles holding a cell that a check found moving, per rule (`seed[kind·nt + tile]`,
// cleared before each check): the first pass of the rule's next passes runs only these tiles and
// their neighbours. The other tiles satisfy the rule within round-off, as the whole grid does
// when the check holds and no pass runs at all.
@group(0) @binding(47) var<storage, read_write> seed: array<u32>;

fn check_rule(wid: vec3<u32>, nwg: vec3<u32>, lid: u32, kind: u32) {
    if (!round_open(lid, 0u)) { return; }
    let i = index(wid, nwg, lid);
    if (i < sp.n && rule_moves(i, kind)) {
        round_mark();
        let ntx = (sp.w + T - 1u) / T;
        let nt = ntx * ((sp.h + T - 1u) / T);
        seed[kind * nt + (i / sp.w) / T * ntx + (i % sp.w) / T] = 1u;
    }
    round_close(lid, 0u);
}

@compute @workgroup_size(256)
fn check_refine(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    check_rule(wid, nwg, lid, 0u);
}

@compute @workgroup_size(256)
fn check_lift(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    check_rule(wid, nwg, lid, 1u);
}

// The two passes of a pair (hh -> h2, then h2 -> hh) of each rule.
@compute @workgroup_size(16, 16)
fn refine_a(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
            @builtin(local_invocation_index) li: u32) {
    tile_pass(wid, lid, li, 0u, 0u);
}

@compute @workgroup_size(16, 16)
fn refine_b(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
            @builtin(local_invocation_index) li: u32) {
    tile_pass(wid, lid, li, 0u, 1u);
}

@compute @workgroup_size(16, 16)
fn lift_a(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
          @builtin(local_invocation_index) li: u32) {
    tile_pass(wid, lid, li, 1u, 0u);
}

@compute @workgroup_size(16, 16)
fn lift_b(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
          @builtin(local_invocation_index) li: u32) {
    tile_pass(wid, lid, li, 1u, 1u);
}

fn to_fix(v: R) -> vec2<u32> {
    let x = floor(max(v, 0.0) * FIX);
    let hi = floor(x / TWO32);
    return vec2<u32>(u32(x - hi * TWO32), u32(hi));
}

fn from_fix(lo: u32, hi: u32) -> R {
    return (R(hi) * TWO32 + R(lo)) / FIX;
}

// ---- The sediment proxy in two levels ----
//
// Q_i = qs_i + Σ_donors (1 − settle_d)·Q_d, summed in 64-bit fixed point (2^-44 m, u32 pairs
// with carries) so that the order of the additions does not matter. Within a 16x16 tile
// (`sd_local`) the in-tile sums L and each cell's product G of the factors to its in-tile root
// are found in workgroup memory; a root y then receives (1 − settle_y)·G(P_y)·Q_y at the root
// X(P_y) of its receiver's tile (`sd_link`), an accumulation over the list of roots only
// (`sed_jump`, `sd_fix`) run on arrays indexed by the roots' slots in the list;
// `sd_final` sums every tile again with the inflows from outside it (read by slot) and adds
// Q·settle to the sediment.

// Incision depth (added to `eroded`), the settling share (into `settle`), and the cell's own
// flux (fixed point, into `q0w`) and factor (into `f0w`), which `sd_local` uses at once and
// `sd_link` and `sd_final` read back.
@group(0) @binding(42) var<storage, read_write> q0w: array<u32>;
@group(0) @binding(43) var<storage, read_write> f0w: array<R>;

fn sed_init_cell(i: u32) -> vec3<u32> {
    let hi = hh[i];
    let b = before[i];
    var e = R(0.0);
    if (b > hi) { e = b - hi; }
    eroded[i] += e;
    let r = rcv[i];
    var s = R(1.0);
    if (r != i) {
        let d = dist[i];
        s = 0.5 * S0 * d / (S0 * d + max(hi - hh[r], 0.0));
    }
    settle[i] = s;
    f0w[i] = 1.0 - s;
    let q = to_fix(e);
    q0w[2u * i] = q.x;
    q0w[2u * i + 1u] = q.y;
    return vec3<u32>(q.x, q.y, 0u);
}

var<workgroup> sdp: array<u32, 256>;
var<workgroup> slo: array<u32, 256>;
var<workgroup> shi: array<u32, 256>;
var<workgroup> tlo: array<atomic<u32>, 256>;
var<workgroup> thi: array<atomic<u32>, 256>;
var<workgroup> sfa: array<R, 256>;

// The in-tile pointer of cell c (NONE at an in-tile root and outside the grid).
fn sd_pointer(wid: vec3<u32>, c: u32) -> u32 {
    if (c == NONE) { return NONE; }
    let r = rcv[c];
    if (r == c) { return NONE; }
    return mt_local(wid, r);
}

// In-tile sums: on entry sdp, the pointers, (slo, shi) the weights and sfa the factors; on exit
// (slo, shi) the sums of the weights upstream in the tile, each carried down by the factors on
// its way (pointer jumping of partial sums with path products; sdp and sfa spent).
fn sd_sums(k: u32) {
    if (k == 0u) { atomicStore(&mflag[0], 0u); }
    for (var r = 0u; r < 9u; r++) {
        atomicStore(&tlo[k], slo[k]);
        atomicStore(&thi[k], shi[k]);
        workgroupBarrier();
        let p = sdp[k];
        var nf = sfa[k];
        var np = NONE;
        if (p != NONE) {
            let v = to_fix(from_fix(slo[k], shi[k]) * nf);
            if (v.x != 0u || v.y != 0u) {
                let old = atomicAdd(&tlo[p], v.x);
                let carry = select(0u, 1u, old + v.x < old);
                if (v.y + carry != 0u) { atomicAdd(&thi[p], v.y + carry); }
            }
            nf = nf * sfa[p];
            np = sdp[p];
            if (np != NONE) { atomicStore(&mflag[r % 2u], 1u); }
        }
        workgroupBarrier();
        slo[k] = atomicLoad(&tlo[k]);
        shi[k] = atomicLoad(&thi[k]);
        sfa[k] = nf;
        sdp[k] = np;
        if (k == 0u) {
            mgo = atomicLoad(&mflag[r % 2u]);
            atomicStore(&mflag[(r + 1u) % 2u], 0u);
        }
        if (workgroupUniformLoad(&mgo) == 0u) { break; }
    }
}

// Pass 1, one workgroup per 16x16 tile: the in-tile sums L into `t_out` (the reduced
// accumulation's buffer 0), the products G into gg, the roots into xr and the list.
@compute @workgroup_size(256)
fn sd_local(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) k: u32) {
    let c = mt_cell(wid, k);
    let lp = sd_pointer(wid, c);
    sdp[k] = lp;
    slo[k] = 0u;
    shi[k] = 0u;
    var own = R(0.0);
    if (c != NONE) {
        let q = sed_init_cell(c);
        slo[k] = q.x;
        shi[k] = q.y;
        own = f0w[c];
        sfa[k] = own;
    }
    if (k == 0u) { atomicStore(&mcount, 0u); }
    workgroupBarrier();
    sd_sums(k);
    if (c != NONE) {
        atomicStore(&t_out[2u * c], slo[k]);
        atomicStore(&t_out[2u * c + 1u], shi[k]);
    }
    // G by jumping the factors while the pointee is not a root (the pointer ends at the root).
    workgroupBarrier();
    sdp[k] = lp;
    if (c != NONE) { sfa[k] = own; }
    if (k == 0u) { atomicStore(&mflag[0], 0u); }
    workgroupBarrier();
    for (var r = 0u; r < 9u; r++) {
        let p = sdp[k];
        var nf = sfa[k];
        var np = p;
        if (p != NONE && sdp[p] != NONE) {
            nf = nf * sfa[p];
            np = sdp[p];
            atomicStore(&mflag[r % 2u], 1u);
        }
        workgroupBarrier();
        sfa[k] = nf;
        sdp[k] = np;
        if (k == 0u) {
            mgo = atomicLoad(&mflag[r % 2u]);
            atomicStore(&mflag[(r + 1u) % 2u], 0u);
        }
        if (workgroupUniformLoad(&mgo) == 0u) { break; }
    }
    var slot = NONE;
    if (c != NONE) {
        if (lp == NONE) {
            xr[c] = c;
            slot = atomicAdd(&mcount, 1u);
        } else {
            xr[c] = mt_cell(wid, sdp[k]);
            gg[c] = sfa[k];
        }
    }
    append_roots(k, c, slot);
}

// A root's edge on the roots' forest, packed into slot j of the root y = roots[j]: the in-tile
// sum L_y (from `s_in`, by cell, into `t_out`, by slot), the pointer to the slot of X(P_y) and
// the factor (1 − settle_y)·G(P_y).
@compute @workgroup_size(256)
fn sd_link(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let j = slot_in(wid, nwg, lid);
    if (j == NONE) { return; }
    let y = roots[j];
    svals[2u * j] = s_in[2u * y];
    svals[2u * j + 1u] = s_in[2u * y + 1u];
    // Round 0's addition buffer (round 0 does not read the other one, `s_in` here, and clears
    // it for round 1).
    szin2[2u * j] = 0u;
    szin2[2u * j + 1u] = 0u;
    let r = rcv[y];
    if (r == y) {
        p_out[j] = NONE;
        return;
    }
    let x = xr[r];
    var f = f0[y];
    if (x != r) { f = f * gg[r]; }
    f_out[j] = f;
    p_out[j] = slotof[x];
}

// The reduced accumulation's rounds over the roots, in place with no copy between rounds, as
// `acc_jump` in flow.wgsl: round k makes its own value from `svals` and the additions of round
// k − 1 (`szin`, cleared), then adds its share into `t_out` (cleared by round k − 1).
@compute @workgroup_size(256)
fn sed_jump(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    if (!round_open(lid, sp.round)) { return; }
    let j = slot_in(wid, nwg, lid);
    if (j != NONE) { sed_jump_slot(j); }
    round_close(lid, sp.round);
}

// Slot i's round (pointers are slots).
fn sed_jump_slot(i: u32) {
    let first = sp.round == 0u;
    let lo0 = svals[2u * i];
    let lo = lo0 + select(szin[2u * i], 0u, first);
    let hi = svals[2u * i + 1u] + select(szin[2u * i + 1u], 0u, first) + select(0u, 1u, lo < lo0);
    svals[2u * i] = lo;
    svals[2u * i + 1u] = hi;
    szin[2u * i] = 0u;
    szin[2u * i + 1u] = 0u;
    let p = p_in[i];
    let f = f_in[i];
    if (p == NONE) {
        p_out[i] = NONE;
        f_out[i] = f;
        return;
    }
    let v = to_fix(from_fix(lo, hi) * f);
    // Nothing to add (no incision upstream yet, or a share below 2^-44 m): no atomics.
    if (v.x != 0u || v.y != 0u) {
        let old = atomicAdd(&t_out[2u * p], v.x);
        let carry = select(0u, 1u, old + v.x < old);
        if (v.y + carry != 0u) { atomicAdd(&t_out[2u * p + 1u], v.y + carry); }
    }
    f_out[i] = f * f_in[p];
    let q = p_in[p];
    p_out[i] = q;
    if (q != NONE) { round_mark(); }
}

// The last live round's additions into the values (from `szin` when that round was even, its
// additions having gone to the buffer bound here as `szin`, else from `szin2`).
@compute @workgroup_size(256)
fn sd_fix(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let even = last_round_wg(lid, 40u) % 2u == 0u;
    let j = slot_in(wid, nwg, lid);
    if (j == NONE) { return; }
    let zl = select(szin2[2u * j], szin[2u * j], even);
    let zh = select(szin2[2u * j + 1u], szin[2u * j + 1u], even);
    let lo0 = svals[2u * j];
    let lo = lo0 + zl;
    svals[2u * j] = lo;
    svals[2u * j + 1u] = svals[2u * j + 1u] + zh + select(0u, 1u, lo < lo0);
}

// Pass 2, one workgroup per 16x16 tile: weights qs + the inflows (1 − settle_d)·Q_d of the
// donors outside the tile (roots of their tiles, final in `s_in` by now), summed in-tile; the
// sediment gains Q·settle.
@compute @workgroup_size(256)
fn sd_final(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) k: u32) {
    let c = mt_cell(wid, k);
    sdp[k] = sd_pointer(wid, c);
    var lo = 0u;
    var hi = 0u;
    if (c != NONE) {
        lo = q0[2u * c];
        hi = q0[2u * c + 1u];
        sfa[k] = f0[c];
        let tx = k % MT;
        let ty = k / MT;
        if (tx == 0u || ty == 0u || tx == MT - 1u || ty == MT - 1u) {
            let x = i32(c % sp.w);
            let y = i32(c / sp.w);
            for (var dy = -1; dy <= 1; dy++) {
                for (var dx = -1; dx <= 1; dx++) {
                    let nx = x + dx;
                    let ny = y + dy;
                    if ((dx == 0 && dy == 0) || nx < 0 || ny < 0 || nx >= i32(sp.w) || ny >= i32(sp.h)) { continue; }
                    let d = u32(ny) * sp.w + u32(nx);
                    if (mt_local(wid, d) != NONE || rcv[d] != c) { continue; }
                    let sd = slotof[d];
                    let v = to_fix(from_fix(s_in[2u * sd], s_in[2u * sd + 1u]) * f0[d]);
                    let nlo = lo + v.x;
                    hi = hi + v.y + select(0u, 1u, nlo < lo);
                    lo = nlo;
                }
            }
        }
    }
    slo[k] = lo;
    shi[k] = hi;
    workgroupBarrier();
    sd_sums(k);
    if (c != NONE) { sediment[c] += from_fix(slo[k], shi[k]) * settle[c]; }
}

// One FTCS diffusion sub-step from hh into h2; border cells copied.
@compute @workgroup_size(256)
fn diffuse(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let i = index(wid, nwg, lid);
    if (i >= sp.n) { return; }
    let x = i % sp.w;
    let y = i / sp.w;
    let c = hh[i];
    if (x == 0u || y == 0u || x + 1u == sp.w || y + 1u == sp.h) {
        h2[i] = c;
        return;
    }
    h2[i] = c + sp.tx * ((hh[i - 1u] + hh[i + 1u]) - 2.0 * c) + sp.ty * ((hh[i - sp.w] + hh[i + sp.w]) - 2.0 * c);
}

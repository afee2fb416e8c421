// Round bookkeeping of the pointer-jumping kernels, one decision per workgroup (bozkir-gpu).
//
// Appended to flow.wgsl, fill.wgsl and stream_power.wgsl, which declare
// `live: array<atomic<u32>>` (one counter per round). Every round of a phase is recorded into
// one submission, up to the most a grid can need; a round returns at once when the previous one
// left no live pointer. The counters are only ever compared with 0, so a workgroup adds 1 when
// any of its cells is still live: one global atomic per workgroup, not one per cell (the
// per-cell version hammered one address from every thread of every round).
//
// Use, from uniform control flow at the top of a kernel (no `return` before it):
//     if (!round_open(lid, round)) { return; }
//     ... per-cell work, calling round_mark() when the cell stays live ...
//     round_close(lid, round);
var<workgroup> rd_go: u32;
var<workgroup> rd_any: atomic<u32>;

// Whether round `round` has work: round 0 always, a later one when the previous left a live
// pointer. Also clears the workgroup's mark.
fn round_open(lid: u32, round: u32) -> bool {
    if (lid == 0u) {
        var go = 1u;
        if (round > 0u) { go = atomicLoad(&live[round - 1u]); }
        rd_go = go;
        atomicStore(&rd_any, 0u);
    }
    return workgroupUniformLoad(&rd_go) != 0u;
}

// This cell's pointer is still live after the round.
fn round_mark() {
    atomicStore(&rd_any, 1u);
}

// One count per workgroup with a live cell.
fn round_close(lid: u32, round: u32) {
    workgroupBarrier();
    if (lid == 0u && atomicLoad(&rd_any) != 0u) { atomicAdd(&live[round], 1u); }
}

// The first round after which no pointer was live, read once per workgroup: the rounds after
// it returned at once, so a ping-ponged result is in the output buffer of that round.
var<workgroup> rd_last: u32;

fn last_round_wg(lid: u32, rounds: u32) -> u32 {
    if (lid == 0u) {
        var r = 0u;
        while (r + 1u < rounds && atomicLoad(&live[r]) != 0u) { r++; }
        rd_last = r;
    }
    return workgroupUniformLoad(&rd_last);
}

// The two-level jumping's shared pieces (bozkir-gpu): a tile's cells, and the list of the
// tiles' roots with the indirect dispatch size of a pass over it. Appended to flow.wgsl and
// stream_power.wgsl, which declare `roots: array<u32>`, `nroots: array<atomic<u32>>`,
// `ind: array<u32>`, `nargs: array<atomic<u32>>` (a round's indirect arguments) and `index()` (a thread's number in a 2-D dispatch of 256-thread groups).

// The global index of cell k (row-major) of the ts x ts tile `wid` of a w x h grid, NONE
// (0xffffffff) outside the grid.
fn tile_cell_in(wid: vec3<u32>, k: u32, ts: u32, w: u32, h: u32) -> u32 {
    let x = wid.x * ts + k % ts;
    let y = wid.y * ts + k / ts;
    if (x >= w || y >= h) { return 0xffffffffu; }
    return y * w + x;
}

// The index in the ts x ts tile `wid` of global cell c of a grid w wide, NONE outside the tile.
fn tile_local_in(wid: vec3<u32>, c: u32, ts: u32, w: u32) -> u32 {
    let x = c % w;
    let y = c / w;
    if (x < wid.x * ts || y < wid.y * ts || x >= wid.x * ts + ts || y >= wid.y * ts + ts) { return 0xffffffffu; }
    return (y - wid.y * ts) * ts + (x - wid.x * ts);
}

// The indirect dispatch size of a pass over the list of roots: one thread per root, the
// workgroups laid out as `index` expects.
// Round 0 of the jumping is dispatched from its own arguments, `nargs` here (`round_close_list`).
@compute @workgroup_size(1)
fn roots_args() {
    let g = max((atomicLoad(&nroots[0]) + 255u) / 256u, 1u);
    let x = min(g, 32768u);
    ind[0] = x;
    ind[1] = (g + x - 1u) / x;
    ind[2] = 1u;
    atomicStore(&nargs[0], ind[0]);
    atomicStore(&nargs[1], ind[1]);
    atomicStore(&nargs[2], 1u);
}

// `round_close` (rounds.wgsl) of a jumping round over the list that also opens the next round:
// each round is dispatched from its own arguments buffer, zero at the start of the phase, and a
// workgroup with a live cell writes the list's size into the next round's (`nargs`; every writer
// stores the same values). A round after the last live one is a dispatch of no workgroups
// instead of one whose every workgroup reads the counter and returns.
fn round_close_list(lid: u32, round: u32) {
    workgroupBarrier();
    if (lid == 0u && atomicLoad(&rd_any) != 0u) {
        atomicAdd(&live[round], 1u);
        atomicStore(&nargs[0], ind[0]);
        atomicStore(&nargs[1], ind[1]);
        atomicStore(&nargs[2], 1u);
    }
}

// This thread's list slot `index(…)`, NONE past the list.
fn slot_in(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    let j = index(wid, nwg, lid);
    if (j >= atomicLoad(&nroots[0])) { return 0xffffffffu; }
    return j;
}

// The root in list slot `index(…)` of this thread, NONE past the list.
fn listed(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    let j = index(wid, nwg, lid);
    if (j >= atomicLoad(&nroots[0])) { return 0xffffffffu; }
    return roots[j];
}

// The two-level jumping's shared pieces (bozkir-gpu): a tile's cells, and the list of the
// tiles' roots with the indirect dispatch size of a pass over it. Appended to flow.wgsl and
// stream_power.wgsl, which declare `roots: array<u32>`, `nroots: array<atomic<u32>>`,
// `ind: array<u32>` and `index()` (a thread's number in a 2-D dispatch of 256-thread groups).

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
@compute @workgroup_size(1)
fn roots_args() {
    let g = max((atomicLoad(&nroots[0]) + 255u) / 256u, 1u);
    let x = min(g, 32768u);
    ind[0] = x;
    ind[1] = (g + x - 1u) / x;
    ind[2] = 1u;
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

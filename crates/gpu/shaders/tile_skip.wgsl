// The skip decision of the tile passes (bozkir-gpu): fill.wgsl's `relax` (`tile_runs`) and the
// change stamps of stream_power.wgsl's `tile_pass` too (`tile_changed`; its passes run over lists
// of tiles built from the stamps by its own `tile_list`), which declare `chg: array<atomic<u32>>` (two stamps per tile: g + 1 when the tile
// changed in pass g, written to the half of g's parity, so that a pass never reads a stamp being
// written in the same pass and the decisions do not depend on timing) and
// `live: array<atomic<u32>>` (per pass, the tiles that moved). Appended to those two modules. `ts_flags` starts at 0: wgpu zero-initialises workgroup
// memory (the pipelines' default compilation options).
var<workgroup> ts_flags: atomic<u32>;
var<workgroup> ts_go: u32;

// Whether tile `wid` runs in pass `g` (`round`: the pass's counter within its submission):
// never when the submission's previous pass moved nothing; always when `first`; else when a tile
// of its 3x3 neighbourhood changed in the previous pass (its values and halo are otherwise as
// that pass left them, unchanged, so both ping-pong buffers hold them already). Nine threads read
// the nine stamps at once; call from uniform control flow.
fn tile_runs(wid: vec3<u32>, li: u32, ntx: u32, nty: u32, g: u32, first: bool, round: u32) -> bool {
    if (li < 9u && !first) {
        let tx = i32(wid.x) + i32(li % 3u) - 1;
        let ty = i32(wid.y) + i32(li / 3u) - 1;
        if (tx >= 0 && ty >= 0 && tx < i32(ntx) && ty < i32(nty)) {
            if (changed_before(u32(ty) * ntx + u32(tx), ntx * nty, g)) { atomicOr(&ts_flags, 1u); }
        }
    }
    if (li == 9u && round > 0u) {
        if (atomicLoad(&live[round - 1u]) == 0u) { atomicOr(&ts_flags, 2u); }
    }
    workgroupBarrier();
    if (li == 0u) {
        let f = atomicLoad(&ts_flags);
        ts_go = select(0u, 1u, (f & 2u) == 0u && (first || (f & 1u) != 0u));
    }
    return workgroupUniformLoad(&ts_go) != 0u;
}

// Whether tile `t` (of `nt`) changed in the pass before pass `g`.
fn changed_before(t: u32, nt: u32, g: u32) -> bool {
    return atomicLoad(&chg[((g + 1u) % 2u) * nt + t]) == g;
}

// Tile `wid` changed in pass `g`.
fn tile_changed(wid: vec3<u32>, ntx: u32, nty: u32, g: u32) {
    atomicStore(&chg[(g % 2u) * ntx * nty + wid.y * ntx + wid.x], g + 1u);
}

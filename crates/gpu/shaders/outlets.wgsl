// Each cell's outlet: the root of its receiver tree, by pointer jumping (bozkir-gpu, flow.rs).
//
// Round r reads the pointers P (each cell's ancestor 2^r steps down, or its root when the path is
// shorter) and writes Q(i) = P(P(i)); `flow::jump_rounds(n)` rounds leave every pointer at its
// root (a root points to itself). Integer copies only: the result is exact.

struct Dims { w: u32, h: u32, n: u32, round: u32 }

@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, read> p_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> q_out: array<u32>;

@compute @workgroup_size(256)
fn outlet_jump(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let i = (wid.y * nwg.x + wid.x) * 256u + lid;
    if (i >= dims.n) { return; }
    q_out[i] = p_in[p_in[i]];
}

// Hashes of a batch of points on the device (`bozkir_gpu::hash`): the check that WGSL's hash is
// the CPU's, bit for bit. `pts` holds (x, y, z, s) per point; `out` one hash per point.
@group(0) @binding(0) var<storage, read> pts: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(256)
fn hash3_batch(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.y * nwg.x * 256u + gid.x;
    if (i >= arrayLength(&out)) {
        return;
    }
    let p = pts[i];
    out[i] = hash3(p.x, p.y, p.z, p.w);
}

// Sky-view factor (bozkir-gpu, sky_view.rs).
//
// Mirrors `cell` of crates/terrain/src/landform/openness.rs, one invocation per cell: for every
// ray (in ray order), the highest elevation tangent t = (z_s − z_0)/d over the ray's bilinear
// samples up to the first outside the rectangle of cell centres, then Σ (1 − t/√(1 + t²)) for
// t > 0 (1 for a ray whose horizon is at or below level, or that has no sample), over the
// number of rays. The f64 operations are the CPU's one for one (products rounded on their own,
// the division and square root corrected to the correctly rounded result, from exact.wgsl,
// appended when compiled), so the result is bit-identical.
alias R = f64;

// w, h: grid; rays, count: rays and samples per ray; nr: rays as f64; pad: a zero.
struct Dims { w: u32, h: u32, rays: u32, count: u32, nr: R, pad: R }

@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, read> z: array<R>;
// Per sample, ray-major: fx, fy, 1/d; and the corner's offset ox, oy.
@group(0) @binding(2) var<storage, read> tab: array<R>;
@group(0) @binding(3) var<storage, read> off: array<i32>;
@group(0) @binding(4) var<storage, read_write> sky: array<R>;

fn mulr(a: R, b: R) -> R {
    // The addend is a zero the compiler cannot see (a uniform), so it can neither fold the fma
    // into a plain product nor fuse that product with the addition it feeds.
    return fma(a, b, dims.pad);
}

@compute @workgroup_size(256)
fn sky_view(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let i = (wid.y * nwg.x + wid.x) * 256u + lid;
    if (i >= dims.w * dims.h) { return; }
    let w = i32(dims.w);
    let h = i32(dims.h);
    let x = i32(i % dims.w);
    let y = i32(i / dims.w);
    let z0 = z[i];
    var svf = R(0.0);
    for (var r = 0u; r < dims.rays; r++) {
        // `seen == false` stands for the CPU's hi = −∞: only a sample with t > −∞ (not NaN, not
        // −∞) replaces it, as `t > hi` does there.
        var hi = R(0.0);
        var seen = false;
        for (var k = 0u; k < dims.count; k++) {
            let j = r * dims.count + k;
            let s = j * 3u;
            let bx = x + off[2u * j];
            let by = y + off[2u * j + 1u];
            let fx = tab[s];
            let fy = tab[s + 1u];
            if (bx < 0 || by < 0 || bx >= w || by >= h || (bx == w - 1 && fx > 0.0) || (by == h - 1 && fy > 0.0)) {
                break;
            }
            let bx1 = min(bx + 1, w - 1);
            let by1 = min(by + 1, h - 1);
            let z00 = z[by * w + bx];
            let z10 = z[by * w + bx1];
            let z01 = z[by1 * w + bx];
            let z11 = z[by1 * w + bx1];
            let top = z00 + mulr(fx, z10 - z00);
            let bot = z01 + mulr(fx, z11 - z01);
            let zs = top + mulr(fy, bot - top);
            let t = mulr(zs - z0, tab[s + 2u]);
            let wins = select(t >= -1.7976931348623157e308, t > hi, seen);
            if (wins) {
                hi = t;
                seen = true;
            }
        }
        if (seen && hi > 0.0) {
            svf = svf + (1.0 - div_rn(hi, sqrt_rn(1.0 + mulr(hi, hi))));
        } else {
            svf = svf + 1.0;
        }
    }
    sky[i] = div_rn(svf, dims.nr);
}

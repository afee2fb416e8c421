// Slope and TPI of the analysis (bozkir-gpu, landform.rs), the parts of the Weiss classes.
//
// `slope` mirrors crates/terrain/src/landform/slope.rs: the Horn gradient of the 3×3 window
// (edges replicated, a void neighbour replaced by the centre, a void centre void) and its length
// by the algorithm of `libm::hypot` (each half squared exactly as a sum of two f64, the four
// parts summed smallest first, one correctly rounded square root; scaled by 2^±700 where a
// square would leave the f64 range).
// `sat_rows`, `sat_cols` and `tpi` mirror crates/terrain/src/landform/tpi.rs: the summed-area
// table of z − offset in double-double (TwoSum), row prefixes then each row added to the one
// above (the same additions as the CPU's), the void counts beside it, then each cell's window
// sum and mean. Every f64 operation is the CPU's, one for one (products rounded on their own,
// the division and square root corrected to the correctly rounded result by exact.wgsl), so
// both maps equal the CPU's bit for bit.
alias R = f64;

// w, h: grid; rx, ry: outer half-widths; ix, iy: the core removed (0: none); voids: 1 when the
// grid holds a void; dx, dy: cell sizes; offset: the table's offset; zero: 0; k: twelve 1s.
struct D { w: u32, h: u32, rx: u32, ry: u32, ix: u32, iy: u32, voids: u32, pad: u32, dx: R, dy: R, offset: R, zero: R, k: array<vec4<R>, 3> }

@group(0) @binding(0) var<uniform> d: D;
@group(0) @binding(1) var<storage, read> z: array<R>;
// The table, (w + 1) × (h + 1), row 0 and column 0 zero: high and low parts, void counts.
@group(0) @binding(2) var<storage, read_write> hi: array<R>;
@group(0) @binding(3) var<storage, read_write> lo: array<R>;
@group(0) @binding(4) var<storage, read_write> nv: array<u32>;
// The map: slope (rise over run) or TPI (metres).
@group(0) @binding(5) var<storage, read_write> out: array<R>;

fn mulr(a: R, b: R) -> R {
    // The addend is a zero the compiler cannot see (a uniform).
    return fma(a, b, d.zero);
}

fn is_nan(v: R) -> bool {
    return !(v == v);
}

fn cell(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    return (wid.y * nwg.x + wid.x) * 256u + lid;
}

// x·x as hi + lo exactly: Veltkamp's split (exact.wgsl's `split`, which gives libm's halves:
// c − (c − x) is −((x − c) + c) negated term by term), then Dekker's product.
fn square(x: R) -> vec2<R> {
    let xs = split(x);
    let h = mulr(x, x);
    let l = ((mulr(xs.x, xs.x) - h) + mulr(mulr(2.0, xs.x), xs.y)) + mulr(xs.y, xs.y);
    return vec2<R>(h, l);
}

const INF: f64 = 1.7976931348623157e308;
const P700: f64 = 5.260135901548374e210;
const M700: f64 = 1.90109156629516e-211;
const P511: f64 = 6.703903964971299e153;
const M450: f64 = 3.4395525670743494e-136;
const P66: f64 = 73786976294838206464.0;

// libm's hypot for the cases a gradient can take: infinities win over NaN, a zero or a far
// smaller half leaves the larger (x + y, which is x), else the exact squares summed.
fn hypot(a: R, b: R) -> R {
    var x = abs(a);
    var y = abs(b);
    if (x > INF) { return x; }
    if (y > INF) { return y; }
    if (is_nan(x) || is_nan(y)) { return x + y; }
    if (x < y) {
        let t = x;
        x = y;
        y = t;
    }
    // libm returns x + y when the exponents differ by more than 64; where they differ by 65
    // and x < y·2^66 the sum below gives x as well (y² is below the granularity of x²).
    if (y == 0.0 || x >= mulr(y, P66)) { return x + y; }
    var s = R(1.0);
    if (x >= P511) {
        s = P700;
        x = mulr(x, M700);
        y = mulr(y, M700);
    } else if (y < M450) {
        s = M700;
        x = mulr(x, P700);
        y = mulr(y, P700);
    }
    let sx = square(x);
    let sy = square(y);
    return mulr(s, sqrt_rn(((sy.y + sx.y) + sy.x) + sx.x));
}

// A void cell's map value is void: written here (true), and the caller returns.
fn void_centre(i: u32) -> bool {
    let c = z[i];
    if (is_nan(c)) {
        out[i] = c;
        return true;
    }
    return false;
}

@compute @workgroup_size(256)
fn slope(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let i = cell(wid, nwg, lid);
    if (i >= d.w * d.h || void_centre(i)) { return; }
    let x = i % d.w;
    let y = i / d.w;
    let c = z[i];
    let xw = max(x, 1u) - 1u;
    let xe = min(x + 1u, d.w - 1u);
    let rn = (max(y, 1u) - 1u) * d.w;
    let rc = y * d.w;
    let rs = min(y + 1u, d.h - 1u) * d.w;
    var v = array<R, 9>(z[rn + xw], z[rn + x], z[rn + xe], z[rc + xw], c, z[rc + xe], z[rs + xw], z[rs + x], z[rs + xe]);
    for (var k = 0u; k < 9u; k++) {
        if (is_nan(v[k])) { v[k] = c; }
    }
    // [nw, n, ne, w, c, e, sw, s, se]
    let east = div_rn((v[2] + mulr(2.0, v[5]) + v[8]) - (v[0] + mulr(2.0, v[3]) + v[6]), mulr(8.0, d.dx));
    let south = div_rn((v[6] + mulr(2.0, v[7]) + v[8]) - (v[0] + mulr(2.0, v[1]) + v[2]), mulr(8.0, d.dy));
    out[i] = hypot(east, -south);
}

// a + b rounded once, as the CPU's addition, where the compiler cannot see it: an optimiser that
// treats float arithmetic as associative (Mesa's and NVIDIA's do, for SPIR-V without
// NoContraction; docs/gpu.md) may rewrite TwoSum's (s − a) with s = a + b into b and so lose the
// error term. fma(a, k, b) with k a 1 from the uniform buffer rounds a + b once; a different k
// for each step, so that no two steps share a term it could cancel (a precaution: on the H100 the
// regrouping found was the final (z − offset) − mean, see `tpi`).
fn add(a: R, b: R, j: u32) -> R {
    return fma(a, d.k[j / 4u][j % 4u], b);
}

// (hi, lo) + (hi, lo) in double-double, as tpi.rs's dd_add (TwoSum, then the parts renormalised).
fn dd_add(a: vec2<R>, b: vec2<R>) -> vec2<R> {
    let s = add(a.x, b.x, 0u);
    let bb = add(s, -a.x, 1u);
    let e0 = add(add(a.x, -add(s, -bb, 2u), 3u), add(b.x, -bb, 4u), 5u);
    let e = add(e0, add(a.y, b.y, 6u), 7u);
    let h = add(s, e, 8u);
    return vec2<R>(h, add(e, -add(h, -s, 9u), 10u));
}

// One invocation per row: its prefix sums, in column order.
@compute @workgroup_size(256)
fn sat_rows(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let y = cell(wid, nwg, lid);
    if (y >= d.h) { return; }
    let stride = d.w + 1u;
    let row = (y + 1u) * stride + 1u;
    var acc = vec2<R>(0.0, 0.0);
    var count = 0u;
    for (var x = 0u; x < d.w; x++) {
        let v = z[y * d.w + x];
        let void_ = is_nan(v);
        acc = dd_add(acc, vec2<R>(select(v - d.offset, 0.0, void_), 0.0));
        hi[row + x] = acc.x;
        lo[row + x] = acc.y;
        if (d.voids != 0u) {
            count += u32(void_);
            nv[row + x] = count;
        }
    }
}

// One invocation per column: each row's entry added to the one above, top to bottom.
@compute @workgroup_size(256)
fn sat_cols(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let x = cell(wid, nwg, lid) + 1u;
    if (x > d.w) { return; }
    let stride = d.w + 1u;
    for (var y = 1u; y <= d.h; y++) {
        let j = y * stride + x;
        let s = dd_add(vec2<R>(hi[j - stride], lo[j - stride]), vec2<R>(hi[j], lo[j]));
        hi[j] = s.x;
        lo[j] = s.y;
        if (d.voids != 0u) {
            nv[j] = nv[j] + nv[j - stride];
        }
    }
}

fn at(x: u32, y: u32) -> vec2<R> {
    let j = y * (d.w + 1u) + x;
    return vec2<R>(hi[j], lo[j]);
}

fn rect(x0: u32, x1: u32, y0: u32, y1: u32) -> vec2<R> {
    let a = dd_add(at(x1, y1), -at(x1, y0));
    let b = dd_add(at(x0, y0), -at(x0, y1));
    return dd_add(a, b);
}

fn voids(x0: u32, x1: u32, y0: u32, y1: u32) -> u32 {
    if (d.voids == 0u) { return 0u; }
    let s = d.w + 1u;
    return (nv[y1 * s + x1] + nv[y0 * s + x0]) - nv[y0 * s + x1] - nv[y1 * s + x0];
}

@compute @workgroup_size(256)
fn tpi(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
       @builtin(local_invocation_index) lid: u32) {
    let i = cell(wid, nwg, lid);
    if (i >= d.w * d.h || void_centre(i)) { return; }
    let x = i % d.w;
    let y = i / d.w;
    let c = z[i];
    let x0 = x - min(x, d.rx);
    let x1 = min(x + d.rx + 1u, d.w);
    let y0 = y - min(y, d.ry);
    let y1 = min(y + d.ry + 1u, d.h);
    var s = rect(x0, x1, y0, y1);
    var count = (x1 - x0) * (y1 - y0) - voids(x0, x1, y0, y1);
    if (d.ix > 0u && d.iy > 0u) {
        let cx0 = x + 1u - min(d.ix, x + 1u);
        let cx1 = min(x + d.ix, d.w);
        let cy0 = y + 1u - min(d.iy, y + 1u);
        let cy1 = min(y + d.iy, d.h);
        s = dd_add(s, -rect(cx0, cx1, cy0, cy1));
        count -= (cx1 - cx0) * (cy1 - cy0) - voids(cx0, cx1, cy0, cy1);
    }
    if (count == 0u) {
        out[i] = 0.0;
    } else {
        // (z − offset) − mean, each operation rounded as written: NVIDIA's compiler regrouped the
        // plain form (an ulp off in 80 % of the cells on an H100); `add` it cannot.
        out[i] = add(add(c, -d.offset, 11u), -div_rn(add(s.x, s.y, 10u), R(count)), 11u);
    }
}

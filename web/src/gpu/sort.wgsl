// Stable radix sort of 16-bit keys, far to near (descending key, ascending index among equal
// keys): the order of the viewer's CPU counting sort (sort-worker.js), on the GPU, for the WebGPU
// splat path. Written for the browser (not generated: no native twin). Two LSD passes of 8 bits
// over digits taken as 255 − digit, so ascending digits give descending keys; each pass:
//   hist:    per block of 256 elements, the count of each digit (digit-major table: entry
//            d·nblocks + b, so one exclusive scan gives every (digit, block) its first slot);
//   scan:    one workgroup, exclusive prefix sum of the table in place;
//   scatter: each element to its slot + its rank among the block's earlier elements of the same
//            digit (counted in workgroup memory), so the pass is stable.
// Bindings: 0 uniform P {n, nblocks, shift, pad}; 1 keys in; 2 values in; 3 keys out;
// 4 values out; 5 the table.

struct P { n: u32, nblocks: u32, shift: u32, pad: u32 }

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> kin: array<u32>;
@group(0) @binding(2) var<storage, read> vin: array<u32>;
@group(0) @binding(3) var<storage, read_write> kout: array<u32>;
@group(0) @binding(4) var<storage, read_write> vout: array<u32>;
@group(0) @binding(5) var<storage, read_write> table: array<u32>;

var<workgroup> counts: array<atomic<u32>, 256>;
var<workgroup> digits: array<u32, 256>;
var<workgroup> partial: array<u32, 256>;

fn block_of(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.y * nwg.x + wid.x;
}

fn digit(k: u32) -> u32 {
    return 255u - ((k >> p.shift) & 255u);
}

@compute @workgroup_size(256)
fn hist(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) t: u32) {
    let b = block_of(wid, nwg);
    atomicStore(&counts[t], 0u);
    workgroupBarrier();
    let i = b * 256u + t;
    if (b < p.nblocks && i < p.n) {
        atomicAdd(&counts[digit(kin[i])], 1u);
    }
    workgroupBarrier();
    if (b < p.nblocks) {
        table[t * p.nblocks + b] = atomicLoad(&counts[t]);
    }
}

@compute @workgroup_size(256)
fn scan(@builtin(local_invocation_index) t: u32) {
    let total = p.nblocks * 256u;
    let chunk = (total + 255u) / 256u;
    let lo = min(t * chunk, total);
    let hi = min(lo + chunk, total);
    var s = 0u;
    for (var i = lo; i < hi; i++) { s += table[i]; }
    partial[t] = s;
    workgroupBarrier();
    if (t == 0u) {
        var run = 0u;
        for (var k = 0u; k < 256u; k++) {
            let v = partial[k];
            partial[k] = run;
            run += v;
        }
    }
    workgroupBarrier();
    var run = partial[t];
    for (var i = lo; i < hi; i++) {
        let v = table[i];
        table[i] = run;
        run += v;
    }
}

@compute @workgroup_size(256)
fn scatter(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) t: u32) {
    let b = block_of(wid, nwg);
    let i = b * 256u + t;
    let live = b < p.nblocks && i < p.n;
    var d = 0xffffffffu;
    if (live) { d = digit(kin[i]); }
    digits[t] = d;
    workgroupBarrier();
    if (!live) { return; }
    var rank = 0u;
    for (var j = 0u; j < t; j++) {
        if (digits[j] == d) { rank++; }
    }
    let slot = table[d * p.nblocks + b] + rank;
    kout[slot] = kin[i];
    vout[slot] = vin[i];
}

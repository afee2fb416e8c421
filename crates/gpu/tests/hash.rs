//! The WGSL hash against the CPU's: the pinned 3-D vectors and random points, bit for bit.
mod common;

use bozkir_core::hash::{hash3_u32, HASH3_VECTORS};

#[test]
fn wgsl_hash3_is_the_cpu_hash() {
    let Some(gpu) = common::gpu() else { return };
    let mut pts: Vec<[u32; 4]> = HASH3_VECTORS.iter().map(|v| v.0).collect();
    let mut rng = bozkir_core::rng::Rng::new(22);
    // More than one workgroup row, with extreme words and the plane z = 0.
    for i in 0..70_000u32 {
        let z = if i % 7 == 0 { 0 } else { rng.next_u32() };
        pts.push([rng.next_u32(), rng.next_u32() | (i & 1) << 31, z, rng.next_u32()]);
    }
    let got = bozkir_gpu::hash::hash3_batch(gpu, &pts).unwrap();
    assert_eq!(got.len(), pts.len());
    for (k, (p, h)) in pts.iter().zip(&got).enumerate() {
        assert_eq!(*h, hash3_u32(p[0], p[1], p[2], p[3]), "point {k}: {p:?}");
    }
    for (k, (_, want)) in HASH3_VECTORS.iter().enumerate() {
        assert_eq!(got[k], *want, "pinned vector {k}");
    }
}

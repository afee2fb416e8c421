//! Cross-checks with pyworldgen 0.1.8's meshers on volumes filled by a shared LCG (the figures
//! were computed by pyworldgen: `mesh_dense_occupancy` and `build_chunk_mesh_greedy`).

use bozkir_mesh::{
    check, dense_mesh, greedy_mesh, BlockParams, DenseLayout, DenseParams, Occupancy, SolidNonZero, Voxels,
};

/// Knuth's MMIX LCG; `(state >> 33) % 4` per value (0 = air, 1..3 blocks).
fn lcg(seed: u64, n: usize) -> Vec<u8> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 33) % 4) as u8
        })
        .collect()
}

#[test]
fn dense_matches_pyworldgen() {
    // numpy C-order (9, 7, 5), resolution 0.5: pyworldgen emits 534 unit quads, area 133.5,
    // signed volume −29.25 (its quads are wound clockwise seen from outside), 234 solid voxels.
    let v = lcg(7, 9 * 7 * 5);
    let occ = Occupancy::new([9, 7, 5], &v, DenseLayout::CArray).unwrap();
    let m = dense_mesh(&occ, &DenseParams { scale: 0.5, ..DenseParams::default() }).unwrap();
    assert_eq!(check::area(&m).unwrap().area, 133.5);
    assert_eq!(check::volume(&m).unwrap().signed_volume, 29.25);
    assert_eq!(v.iter().filter(|&&x| x != 0).count(), 234);
    assert!(m.quad_count() < 534);
}

#[test]
fn greedy_matches_pyworldgen() {
    // An 8³ chunk set (x fastest, then z, then y), outside counted as air: pyworldgen's greedy
    // mesher gives 618 quads, area 758, signed volume 395 (= the solid voxels).
    let v = lcg(11, 512);
    let mut d = vec![0u16; 10 * 10 * 10];
    let mut i = 0;
    for y in 0..8 {
        for z in 0..8 {
            for x in 0..8 {
                d[(x + 1) + 10 * ((z + 1) + 10 * (y + 1))] = v[i] as u16;
                i += 1;
            }
        }
    }
    let vox = Voxels::new([10, 10, 10], &d).unwrap();
    let m = greedy_mesh(&vox, &SolidNonZero, &BlockParams { ao: false, ..BlockParams::default() }).unwrap();
    assert_eq!(check::area(&m).unwrap().area, 758.0);
    assert_eq!(check::volume(&m).unwrap().signed_volume, 395.0);
    // Ours merges the faces of the negative directions along the other tangent first.
    assert_eq!(m.quad_count(), 616);
}

//! The dense-occupancy mesher: closed, volume = solid count, faces = brute-force exposed faces.

use bozkir_mesh::{check, dense_mesh, DenseLayout, DenseParams, MeshError, Occupancy};
use proptest::prelude::*;

fn exposed_faces(dims: [usize; 3], solid: &dyn Fn(i64, i64, i64) -> bool) -> usize {
    let mut n = 0;
    for i in 0..dims[0] as i64 {
        for j in 0..dims[1] as i64 {
            for k in 0..dims[2] as i64 {
                if !solid(i, j, k) {
                    continue;
                }
                for (di, dj, dk) in [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)] {
                    if !solid(i + di, j + dj, k + dk) {
                        n += 1;
                    }
                }
            }
        }
    }
    n
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn dense_is_closed_and_counts_voxels(
        dims in (1usize..=8, 1usize..=8, 1usize..=8),
        seed in prop::collection::vec(0u8..4, 512),
        scale in prop::sample::select(vec![1.0f64, 0.5, 0.25]),
    ) {
        let dims = [dims.0, dims.1, dims.2];
        let n = dims[0] * dims[1] * dims[2];
        // C-ordered values 0..4 (0 empty, 1..3 rock kinds).
        let c: Vec<u8> = seed[..n].to_vec();
        let solid = |i: i64, j: i64, k: i64| {
            let inside = (0..3).all(|a| [i, j, k][a] >= 0 && ([i, j, k][a] as usize) < dims[a]);
            inside && c[k as usize + dims[2] * (j as usize + dims[1] * i as usize)] != 0
        };
        let occ = Occupancy::new(dims, &c, DenseLayout::CArray).unwrap();
        let p = DenseParams { origin: [1.0, 2.0, -3.0], scale };
        let m = dense_mesh(&occ, &p).unwrap();
        m.validate().unwrap();
        prop_assert!(m.ao.is_empty());
        let cov = check::coverage(&m).unwrap();
        prop_assert!(cov.closed(), "{:?}", cov);
        let count = c.iter().filter(|&&v| v != 0).count() as f64;
        prop_assert_eq!(check::volume(&m).unwrap().signed_volume, count * scale * scale * scale);
        prop_assert_eq!(check::area(&m).unwrap().area, exposed_faces(dims, &solid) as f64 * scale * scale);
        // The same volume in the chunk layout gives the same mesh; as bools, the same surface.
        let mut y = vec![0u8; n];
        let mut b = vec![false; n];
        for i in 0..dims[0] {
            for j in 0..dims[1] {
                for k in 0..dims[2] {
                    let v = c[k + dims[2] * (j + dims[1] * i)];
                    y[i + dims[0] * (k + dims[2] * j)] = v;
                    b[i + dims[0] * (k + dims[2] * j)] = v != 0;
                }
            }
        }
        let my = dense_mesh(&Occupancy::new(dims, &y, DenseLayout::YUp).unwrap(), &p).unwrap();
        prop_assert_eq!(&my, &m);
        let mb = dense_mesh(&Occupancy::new(dims, &b, DenseLayout::YUp).unwrap(), &p).unwrap();
        prop_assert!(mb.quad_count() <= m.quad_count());
        prop_assert_eq!(check::volume(&mb).unwrap().signed_volume, count * scale * scale * scale);
        prop_assert!(mb.block.iter().all(|&id| id == 1));
    }
}

#[test]
fn refusals() {
    let d = [true; 8];
    assert!(matches!(Occupancy::new([0, 2, 4], &d, DenseLayout::YUp), Err(MeshError::DimsTooSmall { .. })));
    assert!(matches!(Occupancy::new([2, 2, 3], &d, DenseLayout::YUp), Err(MeshError::LengthMismatch { .. })));
    assert!(matches!(Occupancy::new([4095, 1, 1], &d, DenseLayout::YUp), Err(MeshError::TooLarge { .. })));
    assert!(matches!(Occupancy::new([usize::MAX, 1, 1], &d, DenseLayout::YUp), Err(MeshError::TooLarge { .. })));
    let occ = Occupancy::new([2, 2, 2], &d, DenseLayout::YUp).unwrap();
    for scale in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let e = dense_mesh(&occ, &DenseParams { scale, ..DenseParams::default() }).unwrap_err();
        assert!(e.to_string().contains("scale"), "{e}");
    }
    // A full 2×2×2 cube: six 2×2 quads.
    let m = dense_mesh(&occ, &DenseParams::default()).unwrap();
    assert_eq!(m.quad_count(), 6);
    assert!(check::edges(&m).unwrap().manifold());
    assert_eq!(check::euler(&m).unwrap().characteristic, 2);
}

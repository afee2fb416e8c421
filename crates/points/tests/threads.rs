//! Every function gives the same bits on one and on two threads (the parallel parts: the area
//! table and the samples, the FPS tree build, the approximate FPS codes and cells, the
//! voxel indices, the splat neighbour queries).

use bozkir_points::*;

fn on<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(f)
}

fn terrain(n: usize) -> Vec<f64> {
    (0..n * n)
        .map(|i| {
            let (x, y) = ((i % n) as f64, (i / n) as f64);
            9.0 * (0.05 * x).sin() * (0.07 * y).cos() + 0.5 * (0.9 * x + 0.4 * y).sin()
        })
        .collect()
}

#[test]
fn one_and_two_threads_agree() {
    let h = terrain(300);
    let run = |threads| {
        on(threads, || {
            let cloud = heightfield_points(&h, 300, 300, 1.0, 1.5, 300_000, 99).unwrap();
            let exact = fps_exact(&cloud.positions[..70_000], 2000, 5).unwrap();
            let approx = fps_approx(&cloud.positions, 3000, 4).unwrap();
            let occ = voxelize_points(&cloud.positions, 2.5, None).unwrap();
            let small = cloud.subset(&exact).unwrap();
            let splats = splats_from_cloud(&small, 6, &SplatStyle::default()).unwrap();
            (cloud, exact, approx, occ, encode_splat_ply(&splats))
        })
    };
    let (a, b) = (run(1), run(2));
    let bits = |c: &PointCloud| c.positions.iter().flat_map(|p| p.map(f64::to_bits)).collect::<Vec<_>>();
    assert_eq!(bits(&a.0), bits(&b.0));
    assert_eq!(a.0, b.0);
    assert_eq!(a.1, b.1);
    assert_eq!(a.2, b.2);
    assert_eq!(a.3, b.3);
    assert_eq!(a.4, b.4);
    // And the exact FPS on the large set (parallel tree build) is the reference greedy.
    assert_eq!(a.1, fps_naive(&a.0.positions[..70_000], 2000, 5).unwrap());
}

//! Wall-clock timings of the point-cloud functions (release build; not a test):
//! `cargo run --release -p bozkir-points --example points_timing [threads]`.
//! Each figure is the best of a few runs.

use bozkir_core::rng::Rng;
use bozkir_points::*;
use std::time::Instant;

fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut out = None;
    let mut t = f64::INFINITY;
    for _ in 0..runs {
        let s = Instant::now();
        let r = f();
        t = t.min(s.elapsed().as_secs_f64() * 1e3);
        out = Some(r);
    }
    (t, out.unwrap())
}

fn terrain(n: usize) -> Vec<f64> {
    (0..n * n)
        .map(|i| {
            let (x, y) = ((i % n) as f64, (i / n) as f64);
            40.0 * (0.013 * x).sin() * (0.017 * y).cos() + 5.0 * (0.11 * x + 0.07 * y).sin()
        })
        .collect()
}

fn main() {
    let threads: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(2);
    rayon::ThreadPoolBuilder::new().num_threads(threads).build_global().unwrap();
    println!("threads: {threads}");
    let h = terrain(1024);
    let (t, c) = best(3, || heightfield_points(&h, 1024, 1024, 1.0, 1.0, 1_000_000, 1).unwrap());
    println!("heightfield_points 1024² grid → 1 M points: {t:.1} ms ({} pts)", c.len());
    let h4 = terrain(4096);
    let (t, _) = best(1, || heightfield_points(&h4, 4096, 4096, 1.0, 1.0, 1_000_000, 1).unwrap());
    println!("heightfield_points 4096² grid (33.5 M triangles) → 1 M points: {t:.1} ms");
    drop(h4);

    let mut r = Rng::new(1);
    let cube: Vec<[f64; 3]> = (0..40_000).map(|_| [r.next_f64(), r.next_f64(), r.next_f64()]).collect();
    let surf = heightfield_points(&h, 1024, 1024, 1.0, 1.0, 40_000, 2).unwrap().positions;
    for (name, pts) in [("uniform cube", &cube), ("terrain surface", &surf)] {
        let (t, a) = best(5, || fps_exact(pts, 4096, 0).unwrap());
        let (tn, b) = best(1, || fps_naive(pts, 4096, 0).unwrap());
        assert_eq!(a, b);
        println!("fps_exact 40 000 → 4 096 ({name}): {t:.2} ms  (naive O(nk): {tn:.1} ms, identical)");
    }
    for n in [1_000_000usize, 10_000_000] {
        let big = heightfield_points(&terrain(2048), 2048, 2048, 1.0, 1.0, n, 3).unwrap().positions;
        let (t, a) = best(2, || fps_approx(&big, 100_000, 1).unwrap());
        println!(
            "fps_approx {} M → 100 k (terrain surface): {t:.0} ms (cell {:.3}, {} representatives, cover δ {:.3})",
            n / 1_000_000,
            a.cell_size,
            a.representatives,
            a.cover
        );
        if n == 1_000_000 {
            let (te, e) = best(1, || fps_exact(&big, 100_000, 0).unwrap());
            let (sa, se) = (min_spacing(&big, &a.indices), min_spacing(&big, &e));
            println!(
                "  exact on the same 1 M: {te:.0} ms; min spacing approx {sa:.4} vs exact {se:.4} (ratio {:.3})",
                sa / se
            );
        }
        let mut r = Rng::new(5);
        let vol: Vec<[f64; 3]> = (0..n).map(|_| [r.next_f64(), r.next_f64(), r.next_f64()]).collect();
        let (t, a) = best(2, || fps_approx(&vol, 100_000, 1).unwrap());
        println!(
            "fps_approx {} M → 100 k (uniform cube): {t:.0} ms ({} representatives, cover δ {:.4})",
            n / 1_000_000,
            a.representatives,
            a.cover
        );
    }
    let (t, o) = best(3, || voxelize_points(&c.positions, 4.0, None).unwrap());
    println!("voxelize_points 1 M points at 4 m: {t:.1} ms (dims {:?}, {} occupied)", o.dims, o.occupied());
    let small = heightfield_points(&h, 1024, 1024, 1.0, 1.0, 200_000, 4).unwrap();
    let (t, s) = best(2, || splats_from_cloud(&small, 8, &SplatStyle::default()).unwrap());
    let (tw, bytes) = best(2, || encode_splat_ply(&s));
    println!("splats_from_cloud 200 k points, k = 8: {t:.0} ms; encode PLY {tw:.1} ms ({} bytes)", bytes.len());
}

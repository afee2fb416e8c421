use bozkir_core::rng::Rng;
use bozkir_points::*;
use std::time::Instant;
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let a: Vec<usize> = args[1..].iter().map(|a| a.parse().unwrap()).collect();
    let (n, k, reps) = (a[0], a[1], a[2]);
    let pts = if args[0].starts_with("cube") {
        let mut r = Rng::new(5);
        (0..n).map(|_| [r.next_f64(), r.next_f64(), r.next_f64()]).collect()
    } else {
        let h: Vec<f64> = (0..2048 * 2048)
            .map(|i| {
                let (x, y) = ((i % 2048) as f64, (i / 2048) as f64);
                40.0 * (0.013 * x).sin() * (0.017 * y).cos()
            })
            .collect();
        let s = Instant::now();
        let p = heightfield_points(&h, 2048, 2048, 1.0, 1.0, n, 3).unwrap().positions;
        println!("sampling {n}: {:.1} ms", s.elapsed().as_secs_f64() * 1e3);
        p
    };
    for _ in 0..reps {
        let s = Instant::now();
        if args[0].ends_with("approx") {
            let r = fps_approx(&pts, k, 1).unwrap();
            println!("approx n {n} k {k}: {:.1} ms ({} reps)", s.elapsed().as_secs_f64() * 1e3, r.representatives);
        } else {
            let r = fps_exact(&pts, k, 0).unwrap();
            println!("exact n {n} k {k}: {:.1} ms ({})", s.elapsed().as_secs_f64() * 1e3, r.len());
        }
    }
}

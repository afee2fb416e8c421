//! Timing of `composite` at pyworldgen's default 110² and at 1024² (2048 m at 2 m cells,
//! default parameters, roads off): run with
//! `cargo test --release -p bozkir-world --test compose_speed -- --ignored --nocapture` and
//! `RAYON_NUM_THREADS=2` for the 2-core figure.

use std::time::Instant;

use bozkir_world::compose::{self, CompositeParams, Palette};
use bozkir_world::{Compat, Seed};

fn best_of(reps: usize, size: f64, compat: Compat) -> f64 {
    let p = CompositeParams { domain_size: (size, size), add_roads: false, ..Default::default() };
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let t = Instant::now();
        let w = compose::compose(&Seed::Str("atlas".into()), compat, &p, &Palette::builtin()).unwrap();
        best = best.min(t.elapsed().as_secs_f64());
        assert_eq!(w.grid.nx as f64, size / 2.0);
    }
    best
}

#[test]
#[ignore = "timing; run in release"]
fn composite_timing() {
    for compat in [Compat::Pyworldgen, Compat::Canonical] {
        let threads = rayon::current_num_threads();
        println!("composite 110² {compat:?}: best of 20 {:.4} s on {threads} threads", best_of(20, 220.0, compat));
        println!("composite 1024² {compat:?}: best of 3 {:.3} s on {threads} threads", best_of(3, 2048.0, compat));
    }
}

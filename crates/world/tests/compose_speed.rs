//! Timing of `composite` at 1024² (2048 m at 2 m cells, default parameters): run with
//! `cargo test --release -p bozkir-world --test compose_speed -- --ignored --nocapture` and
//! `RAYON_NUM_THREADS=2` for the 2-core figure.

use std::time::Instant;

use bozkir_world::compose::{self, CompositeParams, Palette};
use bozkir_world::{Compat, Seed};

#[test]
#[ignore = "timing; run in release"]
fn composite_1024() {
    let p = CompositeParams { domain_size: (2048.0, 2048.0), add_roads: false, ..Default::default() };
    for compat in [Compat::Pyworldgen, Compat::Canonical] {
        let mut best = f64::INFINITY;
        for _ in 0..3 {
            let t = Instant::now();
            let w = compose::compose(&Seed::Str("atlas".into()), compat, &p, &Palette::builtin()).unwrap();
            best = best.min(t.elapsed().as_secs_f64());
            assert_eq!(w.grid.nx, 1024);
        }
        println!("composite 1024² {compat:?}: best of 3 {best:.3} s on {} threads", rayon::current_num_threads());
    }
}

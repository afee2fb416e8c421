//! Timing of the network target (run by hand: `cargo test -p bozkir-world --release
//! --test roads_speed -- --ignored --nocapture`): 12 hubs, k = 5, 1024² cells.

use bozkir_world::roads::{generate_roads, RoadParams};
use bozkir_world::{Compat, Seed, WorldGrid};

#[test]
#[ignore = "timing; run by hand in release"]
fn network_12_hubs_k5_1024() {
    let n = 1024;
    let res = 2.0;
    let height = (0..n * n)
        .map(|c| {
            let (x, y) = ((c % n) as f64 * res, (c / n) as f64 * res);
            12.0 * (x * 0.004).sin() * (y * 0.003).cos()
                + 5.0 * (x * 0.011 + y * 0.007).sin()
                + 2.0 * (x * 0.05).cos() * (y * 0.043).sin()
        })
        .collect();
    let t = WorldGrid::new(n, n, res, res, height);
    let p = RoadParams { num_hubs: 12, mask_radius: 5, ..RoadParams::default() };
    let curved = RoadParams { curvature_weight: 1.0, curvature_corridor: 24.0, ..p.clone() };
    let t0 = std::time::Instant::now();
    let net = generate_roads(&t, &Seed::Str("atlas".into()), Compat::Pyworldgen, &curved).unwrap();
    eprintln!("curvature 1.0 in a 24 m corridor: {:.3} s, {} roads", t0.elapsed().as_secs_f64(), net.segments.len());
    for compat in [Compat::Pyworldgen, Compat::Canonical] {
        let t0 = std::time::Instant::now();
        let net = generate_roads(&t, &Seed::Str("atlas".into()), compat, &p).unwrap();
        let dt = t0.elapsed().as_secs_f64();
        let cells = net.road_mask.iter().filter(|&&m| m).count();
        eprintln!(
            "{compat:?}: {dt:.3} s, {} hubs, {} roads, {} unrouted, {:.0} m, {cells} road cells",
            net.nodes.len(),
            net.segments.len(),
            net.unrouted.len(),
            net.total_length()
        );
    }
}

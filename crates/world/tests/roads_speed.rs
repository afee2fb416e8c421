//! Timings of the road targets, run by hand:
//! `cargo test -p bozkir-world --release --test roads_speed -- --ignored --nocapture`.
//! A 1024² terrain of 2 m cells (hills up to ±19 m), 12 hubs, k = 5.

use bozkir_world::roads::{generate_roads, RoadParams};
use bozkir_world::{Compat, Seed, WorldGrid};

fn terrain() -> WorldGrid {
    let (n, res) = (1024, 2.0);
    let height = (0..n * n)
        .map(|c| {
            let (x, y) = ((c % n) as f64 * res, (c / n) as f64 * res);
            12.0 * (x * 0.004).sin() * (y * 0.003).cos()
                + 5.0 * (x * 0.011 + y * 0.007).sin()
                + 2.0 * (x * 0.05).cos() * (y * 0.043).sin()
        })
        .collect();
    WorldGrid::new(n, n, res, res, height)
}

fn run(label: &str, compat: Compat, p: &RoadParams) {
    let t = terrain();
    let t0 = std::time::Instant::now();
    let net = generate_roads(&t, &Seed::Str("atlas".into()), compat, p).unwrap();
    let dt = t0.elapsed().as_secs_f64();
    let cells = net.road_mask.iter().filter(|&&m| m).count();
    eprintln!(
        "{label}: {dt:.3} s, {} hubs, {} roads, {} unrouted, {:.0} m, {cells} road cells",
        net.nodes.len(),
        net.segments.len(),
        net.unrouted.len(),
        net.total_length()
    );
}

fn k5() -> RoadParams {
    RoadParams { num_hubs: 12, mask_radius: 5, ..RoadParams::default() }
}

#[test]
#[ignore = "timing; run by hand in release"]
fn network_12_hubs_k5_1024_pyworldgen() {
    run("pyworldgen", Compat::Pyworldgen, &k5());
}

#[test]
#[ignore = "timing; run by hand in release"]
fn network_12_hubs_k5_1024_canonical() {
    run("canonical", Compat::Canonical, &k5());
}

#[test]
#[ignore = "timing; run by hand in release"]
fn network_12_hubs_k5_1024_curvature_corridor() {
    run(
        "curvature 1.0, 24 m corridor",
        Compat::Pyworldgen,
        &RoadParams { curvature_weight: 1.0, curvature_corridor: 24.0, ..k5() },
    );
}

#[test]
#[ignore = "timing; run by hand in release"]
fn default_roads_generator_60() {
    // pyworldgen's `roads` at its defaults: flat 120 m × 120 m at 2 m, 8 hubs, k = 3.
    let t = WorldGrid::new(60, 60, 2.0, 2.0, vec![8.0; 3600]);
    let t0 = std::time::Instant::now();
    let runs = 50;
    for s in 0..runs {
        let net = generate_roads(&t, &Seed::Int(s), Compat::Pyworldgen, &RoadParams::default()).unwrap();
        assert!(!net.segments.is_empty());
    }
    eprintln!("default roads 60²: {:.3} ms per network", t0.elapsed().as_secs_f64() * 1e3 / runs as f64);
}

#[test]
#[ignore = "timing; run by hand in release"]
fn curvature_full_vs_corridor_256() {
    // The full oriented search (81 states per cell at k = 5) against the corridor, on 256².
    let (n, res) = (256, 2.0);
    let height = (0..n * n)
        .map(|c| {
            let (x, y) = ((c % n) as f64 * res, (c / n) as f64 * res);
            6.0 * (x * 0.016).sin() * (y * 0.012).cos() + 2.5 * (x * 0.044 + y * 0.028).sin()
        })
        .collect();
    let t = WorldGrid::new(n, n, res, res, height);
    let mut nets: Vec<Vec<bozkir_world::roads::RoadSegment>> = Vec::new();
    for corridor in [0.0, 24.0] {
        let p = RoadParams {
            num_hubs: 6,
            mask_radius: 5,
            curvature_weight: 1.0,
            curvature_corridor: corridor,
            ..RoadParams::default()
        };
        let t0 = std::time::Instant::now();
        let net = generate_roads(&t, &Seed::Int(5), Compat::Pyworldgen, &p).unwrap();
        let waypoints: usize = net.segments.iter().map(|s| s.grid_path.len()).sum();
        eprintln!(
            "256², 6 hubs, curvature 1.0, corridor {corridor} m: {:.3} s, {} roads, {waypoints} waypoints, {:.0} m",
            t0.elapsed().as_secs_f64(),
            net.segments.len(),
            net.total_length()
        );
        nets.push(net.segments);
    }
    eprintln!("same roads with and without the corridor: {}", nets[0] == nets[1]);
}

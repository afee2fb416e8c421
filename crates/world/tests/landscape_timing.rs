//! Timings (ignored by default): `cargo test -p bozkir-world --test landscape_timing -- --ignored --nocapture`.

use std::time::Instant;

use bozkir_world::landscape::{carve_rivers, generate, CarveParams, LandscapeParams};
use bozkir_world::{Compat, Seed};

#[test]
#[ignore = "timing"]
fn landscape_sizes() {
    for n in [64usize, 128, 256, 512, 1024] {
        let p = LandscapeParams { resolution: 120.0 / n as f64, ..Default::default() };
        for compat in [Compat::Pyworldgen, Compat::Canonical] {
            let t = Instant::now();
            let w = generate(&Seed::Str("rhine".into()), compat, &p).unwrap();
            eprintln!("landscape {n}² {}: {:.3} s", compat.name(), t.elapsed().as_secs_f64());
            let t = Instant::now();
            let c = carve_rivers(&w.grid, &CarveParams { threshold_cells: 200, ..Default::default() }).unwrap();
            eprintln!("carve_rivers on it: {:.3} s, {} rivers", t.elapsed().as_secs_f64(), c.rivers.len());
        }
    }
}

#[test]
#[ignore = "timing"]
fn carve_the_srtm_tile() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/dem/srtm_ref.tif");
    let dem = bozkir_io::read_dem(path).unwrap();
    let input = bozkir_world::WorldGrid::from_grid(&dem.heights);
    for threshold in [2000u32, 500] {
        let t = Instant::now();
        let c = carve_rivers(&input, &CarveParams { threshold_cells: threshold, ..Default::default() }).unwrap();
        let changed = c.grid.height.iter().zip(&input.height).filter(|(a, b)| a != b).count();
        eprintln!(
            "carve_rivers srtm_ref {}x{} threshold {threshold}: {:.3} s, {} rivers, {changed} cells changed",
            input.nx,
            input.ny,
            t.elapsed().as_secs_f64(),
            c.rivers.len()
        );
    }
}

//! Hydrology benchmarks: depression filling, D8 routing and accumulation at 1024².
//!
//! The DEM is a deterministic multi-octave value noise (hash-based, built here) with a small
//! white-noise roughness, so it has depressions of every size, like a real DEM. Figures, with the
//! peers measured on the same machine (`scripts/peer_hydrology.py --time`), go to
//! `docs/benchmarks.md`. Throughput is in cells (criterion "elements").

use bozkir_core::hash::hash_unit;
use bozkir_core::Grid;
use bozkir_terrain::hydrology::flow_graph::{accumulate_cells, d8_receivers};
use bozkir_terrain::hydrology::planchon_darboux::{planchon_darboux, PlanchonDarbouxParams, Step};
use bozkir_terrain::hydrology::priority_flood::{fill, fill_epsilon};
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

/// Value noise: bilinear interpolation of hashed lattice values, 6 octaves from `period` cells
/// down, amplitudes halving, heights in metres (about 0–1000 m) plus 0.5 m of roughness.
fn noise_dem(n: usize, seed: u32, period: usize) -> Grid<f64> {
    Grid::from_fn(n, n, |x, y| {
        let mut v = 0.0;
        let mut amp = 500.0;
        let mut p = period;
        for o in 0..6u32 {
            let (gx, gy) = (x / p, y / p);
            let (fx, fy) = ((x % p) as f64 / p as f64, (y % p) as f64 / p as f64);
            let s = seed.wrapping_add(o);
            let l = |i: usize, j: usize| hash_unit(i as u32, j as u32, s);
            let a = l(gx, gy) * (1.0 - fx) + l(gx + 1, gy) * fx;
            let b = l(gx, gy + 1) * (1.0 - fx) + l(gx + 1, gy + 1) * fx;
            v += amp * (a * (1.0 - fy) + b * fy);
            amp *= 0.5;
            p = (p / 2).max(1);
        }
        v + 0.5 * hash_unit(x as u32, y as u32, seed ^ 0xABCD)
    })
    .with_cell_size(30.0, 30.0)
}

fn bench_fill(c: &mut Criterion) {
    let n = 1024;
    let dem = noise_dem(n, 7, 128);
    let mut g = c.benchmark_group("hydrology_fill");
    g.sample_size(20);
    g.throughput(Throughput::Elements((n * n) as u64));
    g.bench_function(BenchmarkId::new("priority_flood_fill", n), |b| b.iter(|| fill(black_box(&dem))));
    g.bench_function(BenchmarkId::new("priority_flood_fill_epsilon", n), |b| b.iter(|| fill_epsilon(black_box(&dem))));
    // Same-valued 8000 m plateau-heavy DEM: ε filling at altitude, with huge flats.
    let high = dem.map(|&v| 8000.0 + (v / 50.0).round() * 50.0);
    g.bench_function(BenchmarkId::new("priority_flood_fill_epsilon_terraced_8000m", n), |b| {
        b.iter(|| fill_epsilon(black_box(&high)))
    });
    g.finish();

    // Planchon–Darboux is the option and cross-check; quadratic worst case, so a smaller grid.
    let m = 256;
    let small = noise_dem(m, 7, 32);
    let mut g = c.benchmark_group("hydrology_fill_small");
    g.sample_size(10);
    g.throughput(Throughput::Elements((m * m) as u64));
    g.bench_function(BenchmarkId::new("priority_flood_fill_epsilon", m), |b| {
        b.iter(|| fill_epsilon(black_box(&small)))
    });
    g.bench_function(BenchmarkId::new("planchon_darboux_next_up", m), |b| {
        b.iter(|| planchon_darboux(black_box(&small), &PlanchonDarbouxParams { step: Step::NextUp }))
    });
    g.finish();
}

fn bench_routing(c: &mut Criterion) {
    let n = 1024;
    let dem = noise_dem(n, 7, 128);
    let filled = fill_epsilon(&dem);
    let graph = d8_receivers(&filled);
    let mut g = c.benchmark_group("hydrology_routing");
    g.sample_size(20);
    g.throughput(Throughput::Elements((n * n) as u64));
    g.bench_function(BenchmarkId::new("d8_receivers_and_stack", n), |b| b.iter(|| d8_receivers(black_box(&filled))));
    g.bench_function(BenchmarkId::new("accumulate_cells", n), |b| b.iter(|| accumulate_cells(black_box(&graph))));
    g.bench_function(BenchmarkId::new("fill_epsilon_d8_accumulate", n), |b| {
        b.iter(|| accumulate_cells(&d8_receivers(&fill_epsilon(black_box(&dem)))))
    });
    g.finish();
}

criterion_group!(benches, bench_fill, bench_routing);
criterion_main!(benches);

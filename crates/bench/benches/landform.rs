//! Landform benchmarks at 1024²: Horn slope, TPI with a 33×33 box (r = 16) via the summed-area
//! table, and openness + sky-view factor (16 directions, 32 m rays on 1 m cells).
//!
//! The DEM is a deterministic hash-based value noise built here (5 octaves, about 0–900 m), so
//! the figures do not depend on any other generator. Figures go to `docs/benchmarks.md`.
//! Throughput is in cells (criterion "elements").

use bozkir_terrain::landform::{openness, slope, tpi, OpennessParams, TpiParams};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use std::time::Duration;

fn landform(c: &mut Criterion) {
    let n = 1024;
    let z = bozkir_bench::landform_dem(n);
    let mut g = c.benchmark_group("landform_1024");
    g.throughput(Throughput::Elements((n * n) as u64));
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    g.bench_function("slope_horn", |b| b.iter(|| slope(black_box(&z))));
    g.bench_function("tpi_r16_sat", |b| b.iter(|| tpi(black_box(&z), &TpiParams::box_cells(16))));
    let p = OpennessParams { directions: 16, radius: 32.0, step: None };
    g.bench_function("openness_16dir_32m", |b| b.iter(|| openness(black_box(&z), &p)));
    g.finish();
}

criterion_group!(benches, landform);
criterion_main!(benches);

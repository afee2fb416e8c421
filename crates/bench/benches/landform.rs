//! Landform benchmarks at 1024²: Horn slope, TPI with a 33×33 box (r = 16) via the summed-area
//! table, and openness + sky-view factor (16 directions, 32 m rays on 1 m cells).
//!
//! The DEM is a deterministic hash-based value noise built here (5 octaves, about 0–900 m), so
//! the figures do not depend on any other generator. Figures go to `docs/benchmarks.md`.
//! Throughput is in cells (criterion "elements").

use bozkir_core::hash::hash_unit;
use bozkir_core::Grid;
use bozkir_terrain::landform::{openness, slope, tpi, OpennessParams, TpiParams};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use std::time::Duration;

/// Value noise: smoothstep-interpolated hashed lattice values, 5 octaves from 128 cells down.
fn dem(n: usize) -> Grid<f64> {
    Grid::from_fn(n, n, |x, y| {
        let (mut v, mut amp, mut period) = (0.0, 450.0, 128usize);
        for o in 0..5u32 {
            let (gx, gy) = (x / period, y / period);
            let f = |t: usize| {
                let u = (t % period) as f64 / period as f64;
                u * u * (3.0 - 2.0 * u)
            };
            let (fx, fy) = (f(x), f(y));
            let l = |i: usize, j: usize| hash_unit(i as u32, j as u32, 77 + o);
            let a = l(gx, gy) + fx * (l(gx + 1, gy) - l(gx, gy));
            let b = l(gx, gy + 1) + fx * (l(gx + 1, gy + 1) - l(gx, gy + 1));
            v += amp * (a + fy * (b - a));
            amp *= 0.5;
            period /= 2;
        }
        v
    })
    .with_cell_size(1.0, 1.0)
}

fn landform(c: &mut Criterion) {
    let n = 1024;
    let z = dem(n);
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

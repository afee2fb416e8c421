//! Sky-view factor at 1024² with the analysis defaults (16 directions, radius 16 cells, step
//! = cell size, 1 m cells): the reference `openness_with_progress(...).sky_view` (issue 24's
//! baseline) against the sky-view-only row path `sky_view`. Both give the same bits.
//!
//! The DEM is the same deterministic hash-based value noise as `landform.rs` (5 octaves, about
//! 0–900 m). Figures go to `docs/benchmarks.md` ("Sky view (issue 24)").

use bozkir_core::hash::hash_unit;
use bozkir_core::{Grid, NoProgress};
use bozkir_terrain::landform::openness::{openness_with_progress, sky_view, OpennessParams};
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

fn sky(c: &mut Criterion) {
    let n = 1024;
    let z = dem(n);
    // The analysis defaults: radius = 16 cells · max(dx, dy), 16 directions, step min(dx, dy).
    let p = OpennessParams { radius: 16.0, ..OpennessParams::default() };
    assert!(sky_view(&z, &p)
        .data()
        .iter()
        .zip(openness_with_progress(&z, &p, &NoProgress).sky_view.data())
        .all(|(a, b)| a.to_bits() == b.to_bits()));
    let mut g = c.benchmark_group("sky_view_1024");
    g.throughput(Throughput::Elements((n * n) as u64));
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    g.bench_function("openness_sky_view_16dir_16m", |b| {
        b.iter(|| openness_with_progress(black_box(&z), &p, &NoProgress).sky_view)
    });
    g.bench_function("sky_view_16dir_16m", |b| b.iter(|| sky_view(black_box(&z), &p)));
    g.finish();
}

criterion_group!(benches, sky);
criterion_main!(benches);

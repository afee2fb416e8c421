//! Sky-view factor at 1024² with the analysis defaults (16 directions, radius 16 cells, step
//! = cell size, 1 m cells): the reference `openness_with_progress(...).sky_view` (issue 24's
//! baseline) against the sky-view-only row path `sky_view`. Both give the same bits.
//!
//! The DEM is the same deterministic hash-based value noise as `landform.rs` (5 octaves, about
//! 0–900 m). Figures go to `docs/benchmarks.md` ("Sky view (issue 24)").

use bozkir_core::NoProgress;
use bozkir_terrain::landform::openness::{openness_with_progress, sky_view, OpennessParams};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use std::time::Duration;

fn sky(c: &mut Criterion) {
    let n = 1024;
    let z = bozkir_bench::landform_dem(n);
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

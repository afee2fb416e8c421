//! Speed of the point-cloud functions on the issue-23 sizes (criterion; not tests):
//!
//! * `fps_exact/40k_to_4096/{cube,terrain}` — exact farthest-point sampling of 40,000 points
//!   (uniform cube; a rolling 1024² height field's surface) down to 4,096 (target < 50 ms).
//! * `fps_approx/10M_to_100k/terrain` — approximate FPS of 10 M surface points of a 2048²
//!   height field down to 100,000 (target < 2 s); ten samples.
//! * `sample_surface/1M_from_1M_triangles` — 1 M area-uniform points on the 999,698-triangle
//!   grid mesh the render bench draws.
//!
//! `cargo bench -p bozkir-points --bench points`; the inputs are those of
//! `benches/common/views.rs`, written for the peers by the `views_inputs` example.

use bozkir_points::{fps_approx, fps_exact, heightfield_points, sample_surface, IndexedTriangles};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use std::time::Duration;

#[path = "common/views.rs"]
mod views;

fn fps(c: &mut Criterion) {
    let cube = views::cube(40_000, 7);
    let surf = heightfield_points(&views::fps_terrain(1024), 1024, 1024, 1.0, 1.0, 40_000, 2).unwrap().positions;
    let mut g = c.benchmark_group("fps_exact");
    g.sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    g.throughput(Throughput::Elements(40_000));
    g.bench_function("40k_to_4096/cube", |b| b.iter(|| fps_exact(black_box(&cube), 4096, 0).unwrap()));
    g.bench_function("40k_to_4096/terrain", |b| b.iter(|| fps_exact(black_box(&surf), 4096, 0).unwrap()));
    g.finish();

    let big = heightfield_points(&views::fps_terrain(2048), 2048, 2048, 1.0, 1.0, 10_000_000, 3).unwrap().positions;
    let mut g = c.benchmark_group("fps_approx");
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(10));
    g.throughput(Throughput::Elements(10_000_000));
    g.bench_function("10M_to_100k/terrain", |b| b.iter(|| fps_approx(black_box(&big), 100_000, 1).unwrap()));
    g.finish();
}

fn sampling(c: &mut Criterion) {
    let (pos, _, idx) = views::grid_mesh(708);
    let pos64: Vec<[f64; 3]> = pos.iter().map(|p| p.map(f64::from)).collect();
    let mesh = IndexedTriangles { positions: &pos64, indices: &idx };
    let mut g = c.benchmark_group("sample_surface");
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    g.throughput(Throughput::Elements(1_000_000));
    g.bench_function("1M_from_1M_triangles", |b| b.iter(|| sample_surface(black_box(&mesh), 1_000_000, 1).unwrap()));
    g.finish();
}

criterion_group!(benches, fps, sampling);
criterion_main!(benches);

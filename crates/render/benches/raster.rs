//! Frame times of the software renderer on the issue-23 speed scenes at 1280 × 720 (criterion;
//! not tests), on rayon's global pool (all cores):
//!
//! * `render_points/1M/...` — 1 M points of a rolling height field (target < 30 ms on 2 cores):
//!   the defaults (1.5-pixel discs, colour), and the fastest sensible setting (half-pixel
//!   squares, one pixel each, colour) in random and in scan order.
//! * `render_mesh/1M_triangles/...` — a 708² vertex grid (999,698 triangles; target < 200 ms):
//!   smooth shading with no shadows and one sample, and the defaults (2048² shadow map, 2 × 2
//!   samples).
//!
//! `cargo bench -p bozkir-render --bench raster`; the scenes are those of
//! `crates/points/benches/common/views.rs` (shared with the peers' inputs).

use bozkir_render::raster::{
    render_mesh, render_points, MeshParams, MeshRef, PointParams, PointShape, PointSize, PointsRef, View,
};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use std::time::Duration;

#[path = "../../points/benches/common/views.rs"]
mod views;

fn view() -> View {
    View { view_proj: views::view_proj(), eye: views::EYE, width: views::WIDTH, height: views::HEIGHT }
}

fn points(c: &mut Criterion) {
    let v = view();
    let (pts, nrm, col) = views::render_cloud(1_000_000);
    let order = views::scan_order(&pts);
    let spts: Vec<[f32; 3]> = order.iter().map(|&i| pts[i]).collect();
    let snrm: Vec<[f32; 3]> = order.iter().map(|&i| nrm[i]).collect();
    let scol: Vec<[u8; 3]> = order.iter().map(|&i| col[i]).collect();
    let random = PointsRef::new(pts.as_slice()).with_normals(&nrm).with_colours(&col);
    let scan = PointsRef::new(spts.as_slice()).with_normals(&snrm).with_colours(&scol);
    let fast = PointParams { shape: PointShape::Square, size: PointSize::Pixels(0.5), ..PointParams::default() };
    let mut g = c.benchmark_group("render_points");
    g.sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    g.throughput(Throughput::Elements(1_000_000));
    g.bench_function("1M/fast_square_0.5px/random", |b| {
        b.iter(|| render_points(&v, black_box(&random), &fast).unwrap())
    });
    g.bench_function("1M/fast_square_0.5px/scan", |b| b.iter(|| render_points(&v, black_box(&scan), &fast).unwrap()));
    g.bench_function("1M/default/random", |b| {
        b.iter(|| render_points(&v, black_box(&random), &PointParams::default()).unwrap())
    });
    g.finish();
}

fn mesh(c: &mut Criterion) {
    let v = view();
    let (pos, nor, idx) = views::grid_mesh(708);
    let m = MeshRef::new(pos.as_slice(), &idx).with_normals(&nor);
    let plain = MeshParams { shadows: None, supersample: 1, ..MeshParams::default() };
    let mut g = c.benchmark_group("render_mesh");
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(5));
    g.throughput(Throughput::Elements((idx.len() / 3) as u64));
    g.bench_function("1M_triangles/no_shadows_1x1", |b| b.iter(|| render_mesh(&v, black_box(&m), &plain).unwrap()));
    g.bench_function("1M_triangles/default", |b| {
        b.iter(|| render_mesh(&v, black_box(&m), &MeshParams::default()).unwrap())
    });
    g.finish();
}

criterion_group!(benches, points, mesh);
criterion_main!(benches);

//! Raster IO throughput on a 1024² height field: 16-bit PNG (quantise + deflate) and float32
//! TIFF (uncompressed), writing (atomic: temporary file + rename) and reading.

use bozkir_core::Grid;
use bozkir_io::{read_png16, read_tiff_f32, write_png16, write_tiff_f32};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

const N: usize = 1024;

fn surface() -> Grid<f64> {
    Grid::from_fn(N, N, |x, y| {
        let (u, v) = (x as f64 / N as f64, y as f64 / N as f64);
        1500.0 + 900.0 * (7.0 * u).sin() * (5.0 * v).cos() + 60.0 * (41.0 * u + 23.0 * v).sin()
    })
    .with_cell_size(30.0, 30.0)
}

fn io(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("bozkir-bench-io-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let g = surface();
    let (lo, hi) = g.min_max().unwrap();
    let g32 = g.map(|&v| v as f32);
    let png = dir.join("h.png");
    let tif = dir.join("h.tif");

    let mut group = c.benchmark_group("io_1024");
    group.throughput(Throughput::Elements((N * N) as u64));
    group.sample_size(20);
    group.bench_function("write_png16", |b| b.iter(|| write_png16(&png, black_box(&g), lo, hi).unwrap()));
    group.bench_function("read_png16", |b| b.iter(|| black_box(read_png16(&png).unwrap())));
    group.bench_function("write_tiff_f32", |b| b.iter(|| write_tiff_f32(&tif, black_box(&g32)).unwrap()));
    group.bench_function("read_tiff_f32", |b| b.iter(|| black_box(read_tiff_f32(&tif).unwrap())));
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, io);
criterion_main!(benches);

//! Noise throughput over a 512² grid: fBM, ridged multifractal, domain-warped fBM and cellular,
//! single-threaded (`bozkir_core::noise::fill_grid`) and rows in parallel
//! (`bozkir_terrain::sculpt::sample_grid`, rayon).

use bozkir_core::noise::{
    cellular, fbm, fill_grid, ridged, warped_fbm, CellularParams, FbmParams, RidgedParams, WarpParams,
};
use bozkir_terrain::sculpt::sample_grid;
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

const N: usize = 512;

fn noise(c: &mut Criterion) {
    let f = FbmParams { octaves: 6, frequency: 4.0 / N as f64, seed: 1, ..Default::default() };
    let r = RidgedParams { octaves: 6, frequency: 4.0 / N as f64, seed: 1, ..Default::default() };
    let w = WarpParams {
        strength: 16.0,
        fbm: FbmParams { octaves: 4, frequency: 2.0 / N as f64, seed: 2, ..Default::default() },
        ..Default::default()
    };
    let cell = CellularParams { frequency: 16.0 / N as f64, seed: 1, ..Default::default() };

    let mut g = c.benchmark_group("noise_512");
    g.throughput(Throughput::Elements((N * N) as u64));
    g.sample_size(10);
    g.bench_function("fbm6/serial", |b| b.iter(|| fill_grid(N, N, 1.0, 1.0, |x, y| fbm(black_box(&f), x, y))));
    g.bench_function("fbm6/rayon", |b| b.iter(|| sample_grid(N, N, 1.0, 1.0, |x, y| fbm(black_box(&f), x, y))));
    g.bench_function("ridged6/serial", |b| b.iter(|| fill_grid(N, N, 1.0, 1.0, |x, y| ridged(black_box(&r), x, y))));
    g.bench_function("ridged6/rayon", |b| b.iter(|| sample_grid(N, N, 1.0, 1.0, |x, y| ridged(black_box(&r), x, y))));
    g.bench_function("warped_fbm6/serial", |b| {
        b.iter(|| fill_grid(N, N, 1.0, 1.0, |x, y| warped_fbm(black_box(&w), &f, x, y)))
    });
    g.bench_function("cellular_f2_f1/serial", |b| {
        b.iter(|| fill_grid(N, N, 1.0, 1.0, |x, y| cellular(black_box(&cell), x, y).border()))
    });
    g.bench_function("cellular_f2_f1/rayon", |b| {
        b.iter(|| sample_grid(N, N, 1.0, 1.0, |x, y| cellular(black_box(&cell), x, y).border()))
    });
    g.finish();
}

criterion_group!(benches, noise);
criterion_main!(benches);

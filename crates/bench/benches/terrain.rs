//! The original bozkir generator (profiles) end to end, at two sizes.
//! End-to-end CLI figures with peak memory come from `scripts/bench_terrain.sh`.

use bozkir_core::NoProgress;
use bozkir_terrain::profiles::{generate, profile};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn generator(c: &mut Criterion) {
    let mut g = c.benchmark_group("profile_generate");
    g.sample_size(10);
    for (name, size) in [("canyon", 128usize), ("canyon", 512), ("alpine", 256)] {
        let p = profile(name).unwrap().params;
        let big = size + 2 * (size as f64 * 0.15 + 0.5).floor() as usize;
        g.throughput(Throughput::Elements((big * big) as u64 * p.iterations as u64));
        g.bench_with_input(BenchmarkId::new(name, size), &size, |b, &n| b.iter(|| generate(n, 3, &p, &NoProgress)));
    }
    g.finish();
}

criterion_group!(benches, generator);
criterion_main!(benches);

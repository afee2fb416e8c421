//! Speed of the meshers: culled and greedy on a 32³ terrain-like chunk (34³ with its apron),
//! surface nets on a 64³ sphere. Throughput in voxels (samples for surface nets) per second.

use bozkir_mesh::{culled_mesh, greedy_mesh, surface_nets, BlockParams, Density, KindFns, SurfaceNetsParams, Voxels};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

#[path = "../tests/common/mod.rs"]
mod common;

fn blocks(c: &mut Criterion) {
    let d = common::terrain_chunk(5, -3, 11);
    let v = Voxels::new(common::DIMS, &d).unwrap();
    let kinds = KindFns::new(|id| id != 0, |id| id != 0 && id != 5);
    let p = BlockParams::default();
    let mut g = c.benchmark_group("terrain_chunk_32");
    g.throughput(Throughput::Elements(32 * 32 * 32));
    g.bench_function("culled", |b| b.iter(|| culled_mesh(black_box(&v), &kinds, &p).unwrap()));
    g.bench_function("greedy", |b| b.iter(|| greedy_mesh(black_box(&v), &kinds, &p).unwrap()));
    g.finish();
}

fn nets(c: &mut Criterion) {
    let n = 64;
    let mut f = Vec::with_capacity(n * n * n);
    for y in 0..n {
        for z in 0..n {
            for x in 0..n {
                let q = [x, y, z].map(|c| c as f32 - 31.7);
                f.push((q[0] * q[0] + q[1] * q[1] + q[2] * q[2]).sqrt() - 25.0);
            }
        }
    }
    let field = Density::new([n, n, n], &f).unwrap();
    let p = SurfaceNetsParams::default();
    let mut g = c.benchmark_group("sphere_64");
    g.throughput(Throughput::Elements((n * n * n) as u64));
    g.bench_function("surface_nets", |b| b.iter(|| surface_nets(black_box(&field), &p).unwrap()));
    g.finish();
}

criterion_group!(benches, blocks, nets);
criterion_main!(benches);

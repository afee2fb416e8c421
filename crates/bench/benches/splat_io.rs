//! Splat IO: loading a synthetic 1 M-splat 3DGS PLY (binary little-endian), at SH degree 0
//! (68 B per splat) and degree 3 (248 B per splat), and writing it. Target: load < 1 s.
//! The file is generated in a temporary directory inside the bench.

use bozkir_splat::formats::ply::{read_ply, write_ply};
use bozkir_splat::formats::PlyEncoding;
use bozkir_splat::{RawSplat, Splats};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

const N: usize = 1_000_000;

fn synthetic(degree: u8) -> Splats {
    let k = bozkir_splat::sh::rest_count(degree);
    let mut s = Splats::with_capacity(N, degree);
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut rnd = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    };
    let mut rest = vec![[0.0f32; 3]; k];
    for _ in 0..N {
        for r in rest.iter_mut() {
            *r = [rnd(), rnd(), rnd()];
        }
        s.push_raw(RawSplat {
            position: [10.0 * rnd(), 10.0 * rnd(), 0.2 * rnd()],
            log_scale: [rnd() - 4.0, rnd() - 4.0, rnd() - 6.0],
            rotation: [1.0 + rnd(), rnd(), rnd(), rnd()],
            opacity_logit: 4.0 * rnd(),
            sh_dc: [rnd(), rnd(), rnd()],
            sh_rest: &rest,
        });
    }
    s
}

fn splat_io(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("bozkir-bench-splat-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut group = c.benchmark_group("splat_ply_1m");
    group.throughput(Throughput::Elements(N as u64));
    group.sample_size(10);
    for degree in [0u8, 3] {
        let s = synthetic(degree);
        let path = dir.join(format!("sh{degree}.ply"));
        write_ply(&path, &s, PlyEncoding::BinaryLittleEndian).unwrap();
        group.bench_function(format!("read_sh{degree}"), |b| b.iter(|| black_box(read_ply(&path).unwrap())));
        if degree == 3 {
            let out = dir.join("out.ply");
            group.bench_function("write_sh3", |b| {
                b.iter(|| write_ply(&out, black_box(&s), PlyEncoding::BinaryLittleEndian).unwrap())
            });
        }
        let _ = std::fs::remove_file(&path);
    }
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, splat_io);
criterion_main!(benches);

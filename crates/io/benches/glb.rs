//! Speed of the terrain GLB export of a 4096² height field (criterion; not a test), the way
//! `bozkir export --engine gltf` does it (`pipeline::export`: [`height_mesh`] with the CLI's
//! default 64-quad chunks, then [`write_glb`], which writes a temporary file, fsyncs it and
//! renames it). Target of issue 23: under 2 s including the fsync.
//!
//! * `glb_4096/export_with_fsync` — mesh + encode + write + fsync (the whole export).
//! * `glb_4096/height_mesh`, `glb_4096/encode`, `glb_4096/write_fsync` — the same split.
//! * `glb_4096/export_quantised_with_fsync` — the `--quantise` export
//!   ([`write_glb_quantised`]: `KHR_mesh_quantization`, straight from the grid, same chunks);
//!   `glb_4096/encode_quantised` and `glb_4096/write_fsync_quantised` — its split.
//!
//! `cargo bench -p bozkir-io --bench glb`; prints the file sizes. The file goes to the system
//! temporary directory (`TMPDIR`), so the fsync hits that disk.

use bozkir_core::Grid;
use bozkir_io::export::glb::{encode_glb, write_glb};
use bozkir_io::export::glb_quantised::{encode_glb_quantised, write_glb_quantised};
use bozkir_io::export::mesh::height_mesh;
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use std::io::Write;
use std::path::Path;
use std::time::Duration;

const N: usize = 4096;
const CHUNK: usize = 64;

/// A rolling 4096² terrain, 2 m cells, about 0–1200 m.
fn terrain() -> Grid<f64> {
    Grid::from_fn(N, N, |x, y| {
        let (u, v) = (x as f64 / N as f64, y as f64 / N as f64);
        600.0 + 450.0 * (7.0 * u).sin() * (5.0 * v).cos() + 40.0 * (61.0 * u + 37.0 * v).sin()
    })
    .with_cell_size(2.0, 2.0)
}

fn glb(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("bozkir-bench-glb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("terrain.glb");
    let h = terrain();
    let chunks = height_mesh(&h, CHUNK);
    write_glb(&path, &chunks).unwrap();
    let size = std::fs::metadata(&path).unwrap().len();
    let tris: usize = chunks.iter().map(|c| c.triangle_count()).sum();
    println!(
        "GLB of {N}² ({} chunks of {CHUNK}² quads, {tris} triangles): {size} bytes ({:.1} MiB)",
        chunks.len(),
        size as f64 / (1 << 20) as f64
    );
    let bytes = encode_glb(&path, &chunks, "bench").unwrap();
    let qpath = dir.join("terrain_quantised.glb");
    let q = write_glb_quantised(&qpath, &h, CHUNK).unwrap();
    let qsize = std::fs::metadata(&qpath).unwrap().len();
    println!(
        "quantised GLB of {N}² ({} chunks, {} triangles): {qsize} bytes ({:.1} MiB), heights within {:.5} m",
        q.chunks,
        q.triangles,
        qsize as f64 / (1 << 20) as f64,
        q.max_height_error_m
    );
    let qbytes = encode_glb_quantised(&qpath, &h, CHUNK, "bench").unwrap().bytes;

    let mut g = c.benchmark_group("glb_4096");
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(20));
    g.bench_function("export_with_fsync", |b| {
        b.iter(|| {
            let chunks = height_mesh(black_box(&h), CHUNK);
            write_glb(&path, &chunks).unwrap();
        })
    });
    g.bench_function("export_quantised_with_fsync", |b| {
        b.iter(|| write_glb_quantised(&qpath, black_box(&h), CHUNK).unwrap())
    });
    g.bench_function("encode_quantised", |b| {
        b.iter(|| encode_glb_quantised(&qpath, black_box(&h), CHUNK, "bench").unwrap())
    });
    g.bench_function("height_mesh", |b| b.iter(|| height_mesh(black_box(&h), CHUNK)));
    g.bench_function("encode", |b| b.iter(|| encode_glb(&path, black_box(&chunks), "bench").unwrap()));
    let raw = dir.join("raw.bin");
    g.bench_function("write_fsync", |b| b.iter(|| write_synced(&raw, black_box(&bytes))));
    g.bench_function("write_fsync_quantised", |b| b.iter(|| write_synced(&raw, black_box(&qbytes))));
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Writes `bytes` to `path` in one call and fsyncs it (the disk's share of the export).
fn write_synced(path: &Path, bytes: &[u8]) {
    let mut f = std::fs::File::create(path).unwrap();
    f.write_all(bytes).unwrap();
    f.sync_data().unwrap();
}

criterion_group!(benches, glb);
criterion_main!(benches);

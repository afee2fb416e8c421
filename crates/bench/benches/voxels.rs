//! Benchmarks of the chunked voxel worlds (`bozkir_world::voxels`, issue 22) beside pyworldgen
//! 0.1.8 and scikit-image, whose side is `scripts/bench_voxels_peer.py`;
//! `scripts/bench_voxels.sh` runs both in one session and prints the side-by-side table.
//!
//! The region: seed 12345 (pyworldgen's `seed_to_int(12345)` is 12345), pyworldgen randomness
//! (`Compat::Pyworldgen`), 32³ chunks, x and z in −4 … 3, y in −1 … 1 (8 × 3 × 8 = 192 chunks;
//! pyworldgen's terrain lies between y = 1 and 15, so the surface, its trees and the caves
//! under it fall in this band). The cases count only the **mixed** chunks of the region — those
//! holding both air and a non-air block — found by generating the region once before timing:
//!
//! * `voxels/chunks_32_pyworldgen_passes`: `Scheduler::new(pyworldgen_passes()).generate(world,
//!   mixed)` — terrain, biomes, caves, features (trees), apply_deferred_edits, lighting, then
//!   palette compression — for the mixed chunks (the neighbours the edits barrier needs are
//!   generated inside, as always); throughput in chunks (elements) per second; rayon on every
//!   core.
//! * `voxels/greedy_32`, `voxels/culled_32`: `voxels::mesh::mesh_chunk` (a one-block apron from
//!   the loaded neighbours, then `greedy_mesh` / `culled_mesh` with ambient occlusion) of every
//!   mixed chunk, chunks in parallel with rayon; throughput in voxels (32³ per chunk).
//! * `voxels/surface_nets_cave`: `surface_nets` (default parameters: one projection step) of
//!   the implicit cave of seed `atlas` (`CaveSolid`, pyworldgen's cave parameters) sampled by
//!   `sample_lattice` at 1 m over its whole box: 116 × 54 × 110 samples from (0.5, 0.5, 0.5).
//!
//! Modes beyond criterion (environment variables; each exits before criterion runs):
//!
//! * `BOZKIR_VOXELS_EXPORT=DIR`: writes, for the peer script, `mixed.json` (the world seed, the
//!   chunk edge, the mixed chunks' coordinates in generation order, the region), `mixed_blocks.npy`
//!   (the mixed chunks' final blocks, uint16, `n × 32 × 32 × 32` as `[chunk][y][z][x]`),
//!   `cave_lattice.npy` (the cave lattice, float32, `ny × nz × nx`) and `stats.json`: the
//!   palette bits per voxel of the mixed chunks (min, median, max, mean), single-threaded and
//!   parallel meshing times (median of 5 passes over the mixed chunks), quad and triangle
//!   counts, the whole region's generation time (median of 3), the mixed chunks' dense generation
//!   time after each prefix of the pass list (where the time goes; median of 3) and the
//!   surface-nets mesh size, and the generation rate of the mixed band (y −1…0) requested as
//!   8², 16² and 24² columns of chunks (the edits barrier's neighbour ring weighs less per chunk
//!   on larger requests).
//! * `BOZKIR_VOXELS_PALETTE=1`: prints the palette statistics only.
//!
//! Not a test: figures go to `docs/benchmarks.md` ("Worlds III: voxels") with the machine.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use bozkir_mesh::{surface_nets, Density, SurfaceNetsParams};
use bozkir_voxel::block::{BlockId, BlockRegistry};
use bozkir_voxel::coords::{ChunkPos, ChunkSize};
use bozkir_world::cave::{CaveField, CaveParams};
use bozkir_world::solid::{sample_lattice, CaveSolid, Lattice};
use bozkir_world::voxels::mesh::{mesh_chunk, Mesher};
use bozkir_world::voxels::{pyworldgen_passes, Scheduler, VoxelWorld, WorkChunk};
use bozkir_world::{Compat, Seed};
use criterion::{Criterion, Throughput};
use rayon::prelude::*;
use serde_json::json;

/// The world seed (pyworldgen's `seed_to_int(12345)`).
const SEED: i64 = 12345;
/// Chunk edge.
const EDGE: u32 = 32;
/// The region's chunk ranges (half-open) along x, y, z.
const REGION: [(i32, i32); 3] = [(-4, 4), (-1, 2), (-4, 4)];
/// The cave lattice: samples per axis (x, y, z), origin and step (metres = voxels).
const CAVE_DIMS: [usize; 3] = [116, 54, 110];

fn world() -> VoxelWorld {
    VoxelWorld {
        seed: SEED,
        compat: Compat::Pyworldgen,
        size: ChunkSize::new(EDGE).expect("32 is a chunk edge"),
        registry: BlockRegistry::pyworldgen(),
    }
}

fn region() -> Vec<ChunkPos> {
    let [(x0, x1), (y0, y1), (z0, z1)] = REGION;
    let mut v = Vec::new();
    for x in x0..x1 {
        for y in y0..y1 {
            for z in z0..z1 {
                v.push(ChunkPos::new(x, y, z));
            }
        }
    }
    v
}

/// Everything the cases share, built once.
struct Setup {
    world: VoxelWorld,
    scheduler: Scheduler,
    /// The whole region, dense (the meshers' neighbours).
    dense: BTreeMap<ChunkPos, WorkChunk>,
    /// The mixed chunks, ascending.
    mixed: Vec<ChunkPos>,
}

fn setup() -> &'static Setup {
    static S: OnceLock<Setup> = OnceLock::new();
    S.get_or_init(|| {
        let world = world();
        let scheduler = Scheduler::new(pyworldgen_passes()).expect("pyworldgen's passes are valid");
        let chunks = scheduler.generate_dense(&world, &region()).expect("the region generates");
        let mixed = chunks
            .iter()
            .filter(|c| c.blocks.contains(&BlockId::AIR) && c.blocks.iter().any(|b| *b != BlockId::AIR))
            .map(|c| c.coord)
            .collect();
        let dense = chunks.into_iter().map(|c| (c.coord, c)).collect();
        Setup { world, scheduler, dense, mixed }
    })
}

fn cave_lattice() -> &'static Vec<f32> {
    static L: OnceLock<Vec<f32>> = OnceLock::new();
    L.get_or_init(|| {
        let p = CaveParams::default();
        let field = CaveSolid(CaveField::for_seed(&p, &Seed::parse("atlas"), Compat::Pyworldgen));
        let l = Lattice { dims: CAVE_DIMS, origin: [0.5; 3], step: 1.0 };
        sample_lattice(&field, &l).expect("the lattice samples")
    })
}

/// Meshes every mixed chunk (chunks in parallel when `par`): (quads, triangles).
fn mesh_all(s: &Setup, mesher: Mesher, par: bool) -> (usize, usize) {
    let one = |c: &ChunkPos| {
        let m = mesh_chunk(&s.dense, *c, &s.world.registry, mesher).expect("meshes");
        (m.quad_count(), m.triangle_count())
    };
    let add = |a: (usize, usize), b: (usize, usize)| (a.0 + b.0, a.1 + b.1);
    if par {
        s.mixed.par_iter().map(one).reduce(|| (0, 0), add)
    } else {
        s.mixed.iter().map(one).fold((0, 0), add)
    }
}

fn median_secs(reps: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let t0 = Instant::now();
            f();
            t0.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

/// Bits per voxel of the mixed chunks' palette storage, sorted ascending.
fn palette_bits(s: &Setup) -> Vec<f64> {
    let chunks = s.scheduler.generate(&s.world, &s.mixed).expect("generates");
    let mut bits: Vec<f64> = chunks.iter().map(|c| c.blocks().bits_per_voxel()).collect();
    bits.sort_by(f64::total_cmp);
    bits
}

fn palette_stats(bits: &[f64]) -> serde_json::Value {
    let n = bits.len();
    let median = if n % 2 == 1 { bits[n / 2] } else { 0.5 * (bits[n / 2 - 1] + bits[n / 2]) };
    json!({
        "chunks": n,
        "min": bits[0],
        "median": median,
        "max": bits[n - 1],
        "mean": bits.iter().sum::<f64>() / n as f64,
        "over_1_bit": bits.iter().filter(|b| **b > 1.0).count(),
    })
}

/// A little-endian `.npy` (format 1.0) of `shape` with element type `descr`.
fn write_npy(path: &std::path::Path, descr: &str, shape: &[usize], bytes: &[u8]) -> std::io::Result<()> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({},), }}", dims.join(", "));
    let total = 10 + header.len() + 1;
    header.push_str(&" ".repeat((64 - total % 64) % 64));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + bytes.len());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(bytes);
    std::fs::write(path, out)
}

/// `BOZKIR_VOXELS_EXPORT`: inputs for the peer script and the figures criterion does not give.
fn export(dir: &str) {
    let dir = std::path::Path::new(dir);
    std::fs::create_dir_all(dir).expect("export dir");
    let s = setup();
    let e = EDGE as usize;
    let mut blocks = Vec::with_capacity(s.mixed.len() * e * e * e * 2);
    for c in &s.mixed {
        for b in &s.dense[c].blocks {
            blocks.extend_from_slice(&b.0.to_le_bytes());
        }
    }
    write_npy(&dir.join("mixed_blocks.npy"), "<u2", &[s.mixed.len(), e, e, e], &blocks).expect("write blocks");
    let lat = cave_lattice();
    let bytes: Vec<u8> = lat.iter().flat_map(|v| v.to_le_bytes()).collect();
    let [nx, ny, nz] = CAVE_DIMS;
    write_npy(&dir.join("cave_lattice.npy"), "<f4", &[ny, nz, nx], &bytes).expect("write lattice");
    let coords: Vec<[i32; 3]> = s.mixed.iter().map(|c| [c.x, c.y, c.z]).collect();
    let doc = json!({"seed": SEED, "chunk_size": EDGE, "region": REGION, "mixed": coords});
    std::fs::write(dir.join("mixed.json"), serde_json::to_string(&doc).expect("json")).expect("write mixed");

    let bits = palette_bits(s);
    let all = region();
    let region_s = median_secs(3, || {
        black_box(s.scheduler.generate(&s.world, &all).expect("generates"));
    });
    let mixed_s = median_secs(3, || {
        black_box(s.scheduler.generate(&s.world, &s.mixed).expect("generates"));
    });
    // Where the generation time goes: the dense chunks after each prefix of the pass list.
    let mut prefixes = Vec::new();
    for k in 1..=pyworldgen_passes().len() {
        // A prefix ending at `features` is refused (its edits would be lost): skipped.
        let Ok(sched) = Scheduler::new(pyworldgen_passes().into_iter().take(k).collect()) else { continue };
        let last = sched.order().last().map(|n| n.to_string()).unwrap_or_default();
        let t = median_secs(3, || {
            black_box(sched.generate_dense(&s.world, &s.mixed).expect("generates"));
        });
        prefixes.push(json!({"through": last, "dense_s": t}));
    }
    // The neighbour ring the edits barrier generates shrinks per chunk on larger requests: the
    // y −1…0 layers (the mixed band) of 8², 16² and 24² chunks.
    let mut scale = Vec::new();
    for side in [8i32, 16, 24] {
        let coords: Vec<ChunkPos> = (-side / 2..side / 2)
            .flat_map(|x| (-1..1).flat_map(move |y| (-side / 2..side / 2).map(move |z| ChunkPos::new(x, y, z))))
            .collect();
        let dense = s.scheduler.generate_dense(&s.world, &coords).expect("generates");
        let mixed = dense
            .iter()
            .filter(|c| c.blocks.contains(&BlockId::AIR) && c.blocks.iter().any(|b| *b != BlockId::AIR))
            .count();
        drop(dense);
        let t = median_secs(3, || {
            black_box(s.scheduler.generate(&s.world, &coords).expect("generates"));
        });
        scale.push(json!({"chunks": coords.len(), "mixed": mixed, "generate_s": t,
                          "chunks_per_s": coords.len() as f64 / t}));
    }
    let mut meshing = serde_json::Map::new();
    for (name, mesher) in [("greedy", Mesher::Greedy), ("culled", Mesher::Culled)] {
        let (quads, tris) = mesh_all(s, mesher, false);
        let one = median_secs(5, || {
            black_box(mesh_all(s, mesher, false));
        });
        let par = median_secs(5, || {
            black_box(mesh_all(s, mesher, true));
        });
        meshing.insert(name.into(), json!({"quads": quads, "triangles": tris, "one_thread_s": one, "parallel_s": par}));
    }
    let density = Density::new(CAVE_DIMS, lat).expect("finite lattice");
    let sn = surface_nets(&density, &SurfaceNetsParams::default()).expect("meshes");
    let sn_s = median_secs(5, || {
        black_box(surface_nets(&density, &SurfaceNetsParams::default()).expect("meshes"));
    });
    let solid = lat.iter().filter(|v| **v <= 0.0).count();
    let stats = json!({
        "seed": SEED,
        "chunk_size": EDGE,
        "region_chunks": all.len(),
        "mixed_chunks": s.mixed.len(),
        "threads": rayon::current_num_threads(),
        "palette_bits_per_voxel": palette_stats(&bits),
        "generate_region_s": region_s,
        "generate_mixed_s": mixed_s,
        "generate_mixed_pass_prefixes": prefixes,
        "generate_band_by_request_size": scale,
        "meshing": meshing,
        "surface_nets": {"dims": CAVE_DIMS, "solid_fraction": solid as f64 / lat.len() as f64,
                          "vertices": sn.vertex_count(), "triangles": sn.triangle_count(), "median_s": sn_s},
    });
    let text = serde_json::to_string_pretty(&stats).expect("json");
    std::fs::write(dir.join("stats.json"), &text).expect("write stats");
    println!("{text}");
}

fn main() {
    if let Ok(dir) = std::env::var("BOZKIR_VOXELS_EXPORT") {
        export(&dir);
        return;
    }
    let s = setup();
    let bits = palette_bits(s);
    println!(
        "voxels: region {} chunks of {EDGE}³, {} mixed; palette bits/voxel over the mixed chunks: {}",
        region().len(),
        s.mixed.len(),
        palette_stats(&bits)
    );
    if std::env::var_os("BOZKIR_VOXELS_PALETTE").is_some() {
        return;
    }
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    let voxels_per_chunk = u64::from(EDGE).pow(3);
    let n = s.mixed.len() as u64;
    let mut g = c.benchmark_group("voxels");
    g.sample_size(10);
    g.throughput(Throughput::Elements(n));
    g.bench_function("chunks_32_pyworldgen_passes", |b| {
        b.iter(|| black_box(s.scheduler.generate(&s.world, &s.mixed).expect("generates").len()))
    });
    g.throughput(Throughput::Elements(n * voxels_per_chunk));
    g.bench_function("greedy_32", |b| b.iter(|| black_box(mesh_all(s, Mesher::Greedy, true))));
    g.bench_function("culled_32", |b| b.iter(|| black_box(mesh_all(s, Mesher::Culled, true))));
    let lat = cave_lattice();
    let density = Density::new(CAVE_DIMS, lat).expect("finite lattice");
    g.throughput(Throughput::Elements(lat.len() as u64));
    g.bench_function("surface_nets_cave", |b| {
        b.iter(|| black_box(surface_nets(&density, &SurfaceNetsParams::default()).expect("meshes").triangle_count()))
    });
    g.finish();
    c.final_summary();
}

//! Benchmarks of D8 routing, accumulation and stream-power erosion at 1024² (criterion), plus a
//! side-by-side run against fastscapelib 0.3 on the same input.
//!
//! The input is `/tmp/bozkir_sp_dem_1024.f64` when `scripts/bench_fastscapelib.py` has written it
//! (raw little-endian f64, row-major), else the same DEM synthesised here by [`synth_dem`]. The
//! side-by-side run uses the script's physics (K = 1e-5 /yr, m = 0.5, n = 1, dt = 1000 yr,
//! U = 1e-3 m/yr, no diffusion, fixed borders) for the same number of steps, prints
//! Mcell-steps/s, and, if the script's final heights are present, how far apart the two are.
//!
//! Not a test: figures go to `docs/benchmarks.md` with the machine and the peer's run.

use std::time::Instant;

use bozkir_core::{Grid, NoProgress};
use bozkir_terrain::erosion::stream_power::{stream_power, StreamPowerEroder, StreamPowerParams};
use bozkir_terrain::hydrology::flow_graph::{accumulate, accumulate_cells, d8_receivers};
use bozkir_terrain::hydrology::priority_flood::fill_epsilon;
use criterion::{Criterion, Throughput};
use std::hint::black_box;

const N: usize = 1024;
const DX: f64 = 30.0;
const SIDE_BY_SIDE_STEPS: usize = 10;

/// 6-octave value-noise fBm from the canonical hash, 0..1000 m; the same operations, in the same
/// order, as `synth_dem` in `scripts/bench_fastscapelib.py`.
fn synth_dem(n: usize) -> Grid<f64> {
    bozkir_bench::bench_dem(n, 1000.0, DX)
}

fn read_f64(path: &str, n: usize) -> Option<Vec<f64>> {
    let bytes = std::fs::read(path).ok()?;
    if bytes.len() != n * n * 8 {
        return None;
    }
    Some(bytes.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect())
}

fn input_dem() -> (Grid<f64>, &'static str) {
    match read_f64(&format!("/tmp/bozkir_sp_dem_{N}.f64"), N) {
        Some(v) => (
            Grid::from_vec(N, N, v).with_cell_size(DX, DX),
            "read from /tmp (written by scripts/bench_fastscapelib.py)",
        ),
        None => (synth_dem(N), "synthesised"),
    }
}

/// Steps of the side-by-side run: `BOZKIR_SP_STEPS`, else the default (match the script's --steps).
fn side_by_side_steps() -> usize {
    std::env::var("BOZKIR_SP_STEPS").ok().and_then(|s| s.parse().ok()).unwrap_or(SIDE_BY_SIDE_STEPS)
}

fn side_by_side_params() -> StreamPowerParams {
    StreamPowerParams {
        k: 1e-5,
        m: 0.5,
        dt: 1000.0,
        steps: side_by_side_steps(),
        uplift: 1e-3,
        kappa: 0.0,
        ..Default::default()
    }
}

/// The whole run as a user would call it (fill once + N steps), best of 3, printed as
/// Mcell-steps/s; compared with fastscapelib's final heights when the script left them.
fn side_by_side(dem: &Grid<f64>) {
    let p = side_by_side_params();
    let (mut best, mut best_cpu) = (f64::INFINITY, f64::INFINITY);
    let mut out = None;
    for _ in 0..3 {
        let c = cpu_seconds();
        let t = Instant::now();
        let o = stream_power(dem, &p, &NoProgress);
        best = best.min(t.elapsed().as_secs_f64());
        if let (Some(c0), Some(c1)) = (c, cpu_seconds()) {
            best_cpu = best_cpu.min(c1 - c0);
        }
        out = Some(o);
    }
    let out = out.expect("ran");
    let cells = (N * N * p.steps) as f64;
    println!(
        "bozkir stream_power {N}x{N}, {} steps (fill once + steps), {} rayon threads: {:.3} s wall \
         ({:.3} s CPU, all threads) -> {:.1} Mcell-steps/s wall, {:.1} per CPU-second",
        p.steps,
        rayon_threads(),
        best,
        best_cpu,
        cells / best / 1e6,
        cells / best_cpu / 1e6
    );
    let mean = out.height.data().iter().sum::<f64>() / (N * N) as f64;
    println!("  final mean height {mean:.4} m");
    if let Some(peer) = read_f64(&format!("/tmp/bozkir_sp_fastscapelib_{N}_{}.f64", p.steps), N) {
        let pm = peer.iter().sum::<f64>() / (N * N) as f64;
        let mut diffs: Vec<f64> = out.height.data().iter().zip(&peer).map(|(a, b)| (a - b).abs()).collect();
        diffs.sort_by(|a, b| a.total_cmp(b));
        println!(
            "  vs fastscapelib final heights: mean {pm:.4} m; |diff| median {:.3e}, p99 {:.3e}, max {:.3e} m",
            diffs[diffs.len() / 2],
            diffs[diffs.len() * 99 / 100],
            diffs[diffs.len() - 1]
        );
    }
}

/// CPU time of this process (user + system, all threads) from `/proc/self/stat`, in seconds
/// (clock-tick resolution, 10 ms at the usual 100 Hz); `None` off Linux.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Threads rayon will use (its own rule: `RAYON_NUM_THREADS`, else the available cores).
fn rayon_threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1))
}

fn benches(c: &mut Criterion, dem: &Grid<f64>) {
    let filled = fill_epsilon(dem).with_cell_size(dem.dx, dem.dy);
    let g = d8_receivers(&filled);
    let weights = vec![DX * DX; N * N];

    let mut grp = c.benchmark_group("stream_power_1024");
    grp.throughput(Throughput::Elements((N * N) as u64));
    grp.sample_size(20);
    grp.bench_function("d8_receivers_and_stack", |b| b.iter(|| black_box(d8_receivers(black_box(&filled)))));
    grp.bench_function("accumulate_cells", |b| b.iter(|| black_box(accumulate_cells(black_box(&g)))));
    grp.bench_function("accumulate_f64", |b| b.iter(|| black_box(accumulate(black_box(&g), &weights))));
    let mut e = StreamPowerEroder::new(dem, &side_by_side_params());
    grp.bench_function("erosion_step", |b| b.iter(|| e.step()));
    let with_diffusion = StreamPowerParams { kappa: 0.01, ..side_by_side_params() };
    let mut e = StreamPowerEroder::new(dem, &with_diffusion);
    grp.bench_function("erosion_step_with_diffusion", |b| b.iter(|| e.step()));
    grp.finish();
}

/// The machine's streaming bandwidth on all rayon threads: STREAM's copy and triad on three
/// 64 MiB arrays, far beyond the caches. The roof that a step's bytes per cell are set against in
/// docs/benchmarks.md. Bytes counted as STREAM counts them: 16 per element for copy, 24 for the
/// triad (the read a write-allocate adds is not counted).
fn memory_bandwidth(c: &mut Criterion) {
    use rayon::prelude::*;
    const M: usize = 8 << 20;
    const CHUNK: usize = 1 << 16;
    let b: Vec<f64> = (0..M).map(|i| i as f64).collect();
    let z = vec![0.5f64; M];
    let mut a = vec![0.0f64; M];
    let mut grp = c.benchmark_group("memory");
    grp.sample_size(20);
    grp.throughput(Throughput::Bytes(16 * M as u64));
    grp.bench_function("copy", |bn| {
        bn.iter(|| a.par_chunks_mut(CHUNK).zip(b.par_chunks(CHUNK)).for_each(|(x, y)| x.copy_from_slice(y)))
    });
    grp.throughput(Throughput::Bytes(24 * M as u64));
    grp.bench_function("triad", |bn| {
        bn.iter(|| {
            a.par_chunks_mut(CHUNK).zip(b.par_chunks(CHUNK)).zip(z.par_chunks(CHUNK)).for_each(|((x, y), z)| {
                for ((x, &y), &z) in x.iter_mut().zip(y).zip(z) {
                    *x = y + 3.0 * z;
                }
            })
        })
    });
    grp.finish();
    black_box(&a);
}

fn main() {
    let (dem, source) = input_dem();
    println!("input DEM {N}x{N} at {DX} m: {source}");
    side_by_side(&dem);
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c, &dem);
    memory_bandwidth(&mut c);
    c.final_summary();
}

//! Benchmarks of the pipe-model shallow water (with erosion) and thermal relaxation at 1024².
//!
//! Prints cell-updates per second (one cell-update = one cell through one whole step, all passes)
//! at 1 and 2 rayon threads, then runs criterion groups. The pipe model stores and updates water,
//! fluxes, velocity and sediment in f32 (terrain f64), with vectorised (AVX2 when available)
//! interior-row kernels; see `bozkir_terrain::erosion::shallow_water`.
//!
//! Not a test: figures go to `docs/benchmarks.md` with the machine.

use std::hint::black_box;
use std::time::Instant;

use bozkir_core::Grid;
use bozkir_terrain::erosion::shallow_water::{ShallowWater, ShallowWaterParams};
use bozkir_terrain::erosion::thermal::{thermal_in_place, ThermalParams};
use criterion::{Criterion, Throughput};

const N: usize = 1024;
const DX: f64 = 2.0;

/// 4-octave value-noise fBm from the canonical hash, 0..200 m.
fn synth_dem(n: usize) -> Grid<f64> {
    let (v, _) = bozkir_bench::value_noise_sum(n, 4, 64.0);
    Grid::from_vec(n, n, v.into_iter().map(|x| 100.0 * x).collect()).with_cell_size(DX, DX)
}

/// Threads rayon uses in this process (its rule: `RAYON_NUM_THREADS`, else the available cores).
fn rayon_threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1))
}

fn params() -> ShallowWaterParams {
    ShallowWaterParams { rain_rate: 1e-4, evaporation: 1e-3, ..Default::default() }
}

/// Best-of-3 cell-updates/s of `steps` pipe-model steps (after 20 warm-up steps with rain).
fn time_pipe(dem: &Grid<f64>, steps: usize, maccormack: bool) -> f64 {
    {
        let mut sim = ShallowWater::new(dem, &ShallowWaterParams { maccormack, ..params() });
        for _ in 0..20 {
            sim.step();
        }
        let mut best = f64::INFINITY;
        for _ in 0..3 {
            let t = Instant::now();
            for _ in 0..steps {
                sim.step();
            }
            best = best.min(t.elapsed().as_secs_f64());
        }
        black_box(sim.water_volume());
        (N * N * steps) as f64 / best
    }
}

/// Best-of-3 cell-updates/s of `iters` thermal iterations on a terrain that stays active.
fn time_thermal(dem: &Grid<f64>, iters: usize) -> f64 {
    {
        // Talus 20° on 0..200 m noise at 2 m cells: plenty of cells stay active.
        let p = ThermalParams { talus_deg: 20.0, iterations: iters, ..ThermalParams::scree_maker() };
        let mut best = f64::INFINITY;
        for _ in 0..3 {
            let mut z = dem.clone();
            let t = Instant::now();
            let ran = thermal_in_place(&mut z, &p, &bozkir_core::NoProgress);
            best = best.min(t.elapsed().as_secs_f64());
            assert_eq!(ran, iters, "terrain went stable early");
        }
        (N * N * iters) as f64 / best
    }
}

fn main() {
    let dem = synth_dem(N);
    let steps: usize = std::env::var("BOZKIR_SW_STEPS").ok().and_then(|s| s.parse().ok()).unwrap_or(20);
    // rayon's global pool is fixed per process, so the 1- and 2-thread figures come from two child
    // runs of this executable with RAYON_NUM_THREADS set; the child prints and exits.
    if std::env::var_os("BOZKIR_SW_CHILD").is_some() {
        let threads = rayon_threads();
        let r = time_pipe(&dem, steps, false);
        let m = time_pipe(&dem, steps, true);
        let th = time_thermal(&dem, steps);
        println!(
            "{N}x{N}, {threads} thread(s): pipe model {:.1} M cell-updates/s ({:.1} per thread), with MacCormack \
             {:.1} M; thermal {:.1} M cell-iterations/s",
            r / 1e6,
            r / 1e6 / threads as f64,
            m / 1e6,
            th / 1e6
        );
        return;
    }
    let exe = std::env::current_exe().expect("own path");
    for threads in [1, 2] {
        let status = std::process::Command::new(&exe)
            .env("BOZKIR_SW_CHILD", "1")
            .env("RAYON_NUM_THREADS", threads.to_string())
            .arg("--bench")
            .arg("no-criterion-in-child")
            .status()
            .expect("child run");
        assert!(status.success(), "child run failed");
    }

    let mut c = Criterion::default().configure_from_args();
    let mut grp = c.benchmark_group("shallow_water_1024");
    // One iteration = one step of every cell: the throughput is in cell-updates/s.
    grp.throughput(Throughput::Elements((N * N) as u64));
    grp.sample_size(10);
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
        let mut sim = ShallowWater::new(&dem, &params());
        pool.install(|| {
            for _ in 0..20 {
                sim.step();
            }
        });
        grp.bench_function(format!("pipe_step/{threads}_thread"), |b| b.iter(|| pool.install(|| sim.step())));
    }
    let mut z = dem.clone();
    let p = ThermalParams { talus_deg: 20.0, iterations: 1, ..ThermalParams::scree_maker() };
    grp.bench_function("thermal_iteration", |b| b.iter(|| thermal_in_place(&mut z, &p, &bozkir_core::NoProgress)));
    grp.finish();
    c.final_summary();
}

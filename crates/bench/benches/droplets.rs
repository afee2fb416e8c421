//! Droplet erosion throughput (droplet-steps per second) at 512² with 200k droplets, batched mode
//! on 1 and 2 rayon threads (the results are bit-identical; the bench checks it), the sequential
//! mode for comparison (median and best of `BOZKIR_DROPLET_REPS` runs, default 5), and a criterion
//! group with 20k droplets on 1 and 2 threads (throughput in droplet-steps).
//!
//! Not a test: figures go to `docs/benchmarks.md` with the machine.

use std::hint::black_box;
use std::time::Instant;

use bozkir_core::{Grid, NoProgress};
use bozkir_terrain::erosion::droplets::{erode_droplets, DropletCount, DropletMode, DropletOutput, DropletParams};
use criterion::{Criterion, Throughput};

const N: usize = 512;
const DX: f64 = 30.0;
const DROPLETS: u32 = 200_000;

/// 6-octave value-noise fBm from the canonical hash, 0..1000 m at 30 m cells.
fn synth_dem(n: usize) -> Grid<f64> {
    bozkir_bench::bench_dem(n, 1000.0, DX)
}

/// FNV-1a over the output's height, wear and deposit bits (to check that optimisations keep
/// the result bit-identical).
fn fnv(o: &DropletOutput) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for d in [o.height.data(), o.wear.data(), o.deposit.data()] {
        for v in d {
            for b in v.to_bits().to_le_bytes() {
                h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
    h
}

/// Median and best of `reps` wall times of a run on a pool of `threads` threads.
fn timed(dem: &Grid<f64>, p: &DropletParams, threads: usize, reps: usize) -> (f64, f64, DropletOutput) {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let mut times = Vec::new();
    let mut out = None;
    for _ in 0..reps.max(1) {
        let t = Instant::now();
        let o = pool.install(|| erode_droplets(dem, p, &NoProgress));
        times.push(t.elapsed().as_secs_f64());
        out = Some(o);
    }
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], times[0], out.expect("ran"))
}

fn main() {
    let dem = synth_dem(N);
    let reps = std::env::var("BOZKIR_DROPLET_REPS").ok().and_then(|s| s.parse().ok()).unwrap_or(5);
    let p = DropletParams { droplets: DropletCount::Total(DROPLETS), seed: 1, ..Default::default() };
    let mut first: Option<DropletOutput> = None;
    for threads in [1usize, 2] {
        let (t, best, o) = timed(&dem, &p, threads, reps);
        let s = o.stats;
        println!(
            "droplets batched {N}x{N}, {DROPLETS} droplets, batch {}, {threads} thread(s): median of {reps} {t:.3} s \
             (best {best:.3} s), {} steps -> {:.2} M droplet-steps/s (best {:.2}; {:.2} per thread); eroded {:.0} m, \
             deposited {:.0} m, lost {:.0} m",
            p.batch_size,
            s.steps_total,
            s.steps_total as f64 / t / 1e6,
            s.steps_total as f64 / best / 1e6,
            s.steps_total as f64 / t / 1e6 / threads as f64,
            s.eroded_total,
            s.deposited_total,
            s.carried_lost
        );
        match &first {
            None => first = Some(o),
            Some(f) => println!("  identical to 1 thread: {}", f == &o),
        }
        println!("  output fnv {:#018x}", fnv(first.as_ref().expect("set")));
    }
    let seq = DropletParams { mode: DropletMode::Sequential, ..p.clone() };
    let (t, best, o) = timed(&dem, &seq, 1, reps);
    println!(
        "droplets sequential {N}x{N}, {DROPLETS} droplets: median of {reps} {t:.3} s (best {best:.3} s) \
         -> {:.2} M droplet-steps/s (best {:.2})",
        o.stats.steps_total as f64 / t / 1e6,
        o.stats.steps_total as f64 / best / 1e6
    );
    println!("  output fnv {:#018x}", fnv(&o));

    let mut c = Criterion::default().configure_from_args();
    let small = DropletParams { droplets: DropletCount::Total(20_000), seed: 1, ..Default::default() };
    let steps = erode_droplets(&dem, &small, &NoProgress).stats.steps_total;
    let mut grp = c.benchmark_group("droplets_512");
    grp.throughput(Throughput::Elements(steps));
    grp.sample_size(10);
    for threads in [1usize, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        grp.bench_function(format!("batched_20k_{threads}t"), |b| {
            b.iter(|| pool.install(|| black_box(erode_droplets(black_box(&dem), &small, &NoProgress))))
        });
    }
    grp.finish();
    c.final_summary();
}

//! GPU kernels against their CPU reference, timed in the same run: per-kernel ms, cells/s and
//! the ratio. `gpu_bench [sizes…]` (default 1024 4096 8192 16384; `--cpu-max N` skips the CPU
//! counterparts above N; `--only flow,fill,stream,thermal,water,droplets` picks kernels). The ds2 recipe's erosion stages are timed by the CLI itself:
//! `bozkir terrain --recipe ds2 --size 8192 --until 6 --gpu=require` (`scripts/gpu_bench.sh`).
//! Not a test; `scripts/gpu_bench.sh` runs it.

use std::time::Instant;

use bozkir_core::{Grid, NoProgress};
use bozkir_gpu::droplets::Fold;
use bozkir_gpu::Gpu;
use bozkir_terrain::erosion::droplets::{erode_droplets, DropletCount, DropletParams};
use bozkir_terrain::erosion::shallow_water::{shallow_water, ShallowWaterParams};
use bozkir_terrain::erosion::stream_power::{StreamPowerEroder, StreamPowerParams};
use bozkir_terrain::erosion::thermal::{thermal, ThermalParams};
use bozkir_terrain::hydrology::{flow_graph, priority_flood};
use rayon::prelude::*;

fn terrain(n: usize, m: usize, cell: f64) -> Grid<f64> {
    // Ridged sum of hashed value noise, relief ~300 m (cheap to build at 16384², in parallel).
    let mut v = vec![0.0f64; n * m];
    v.par_chunks_mut(n).enumerate().for_each(|(y, row)| {
        for (x, o) in row.iter_mut().enumerate() {
            let mut s = 0.0;
            let mut amp = 150.0;
            let mut f = 4.0 / n as f64;
            for oct in 0..6u32 {
                let (fx, fy) = (x as f64 * f, y as f64 * f);
                let (ix, iy) = (fx.floor(), fy.floor());
                let (tx, ty) = (fx - ix, fy - iy);
                let (tx, ty) = (tx * tx * (3.0 - 2.0 * tx), ty * ty * (3.0 - 2.0 * ty));
                let hsh = |a: f64, b: f64| bozkir_core::hash::hash_unit(a as i64 as u32, b as i64 as u32, oct);
                let a = hsh(ix, iy) + (hsh(ix + 1.0, iy) - hsh(ix, iy)) * tx;
                let b = hsh(ix, iy + 1.0) + (hsh(ix + 1.0, iy + 1.0) - hsh(ix, iy + 1.0)) * tx;
                s += amp * (1.0 - (2.0 * (a + (b - a) * ty) - 1.0).abs());
                amp *= 0.5;
                f *= 2.0;
            }
            *o = s;
        }
    });
    Grid::from_vec(n, m, v).with_cell_size(cell, cell)
}

fn n_cells(g: &Grid<f64>) -> usize {
    g.width() * g.height()
}

fn time<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed().as_secs_f64() * 1e3)
}

fn row(kernel: &str, n: &str, work: f64, unit: &str, gpu_ms: f64, cpu_ms: Option<f64>) {
    let cpu = cpu_ms.map_or("—".to_string(), |c| format!("{c:.1}"));
    let ratio = cpu_ms.map_or("—".to_string(), |c| format!("{:.1}×", c / gpu_ms));
    let rate = |ms: f64| work / (ms * 1e-3);
    println!(
        "| {kernel} | {n} | {gpu_ms:.2} | {:.3e} | {cpu} | {} | {ratio} |",
        rate(gpu_ms),
        cpu_ms.map_or("—".to_string(), |c| format!("{:.3e}", rate(c))),
    );
    let _ = unit;
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut sizes = Vec::new();
    let mut cpu_max = 8192usize;
    let mut only: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--cpu-max" => cpu_max = it.next().and_then(|v| v.parse().ok()).unwrap_or(cpu_max),
            "--only" => only = it.next().map(|v| v.split(',').map(String::from).collect()).unwrap_or_default(),
            v => {
                let (a, b) = v.split_once('x').unwrap_or((v, v));
                sizes.push((a.parse::<usize>().expect("size"), b.parse::<usize>().expect("size")));
            }
        }
    }
    if sizes.is_empty() {
        sizes = [1024, 4096, 8192, 16384].map(|n| (n, n)).to_vec();
    }
    let gpu = match Gpu::new() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("no GPU: {e}");
            std::process::exit(2);
        }
    };
    let want = |k: &str| only.is_empty() || only.iter().any(|o| o == k);
    println!("device: {}; CPU threads: {}", gpu.adapter_name(), rayon::current_num_threads());
    println!("| kernel | grid | GPU ms | GPU rate | CPU ms | CPU rate | GPU/CPU |");
    println!("|---|---|---|---|---|---|---|");
    for &(n, m) in &sizes {
        let cells = (n * m) as f64;
        let g = terrain(n, m, 10.0);
        let cpu_ok = n <= cpu_max;
        let name = if n == m { format!("{n}²") } else { format!("{n}×{m}") };
        let n = name.as_str();
        if let Err(e) = gpu.check_grid(g.width(), g.height(), 8) {
            println!("| (all kernels) | {n} | {e} | | | | |");
            continue;
        }
        if want("flow") {
            // Flow routing + accumulation (receivers and upstream counts).
            let _ = bozkir_gpu::flow::accumulate_cells(&gpu, &g).unwrap(); // warm-up (pipelines)
            let (ga, gms) = time(|| bozkir_gpu::flow::accumulate_cells(&gpu, &g).unwrap());
            let (ca, cms) = time(|| flow_graph::accumulate_cells(&flow_graph::d8_receivers(&g)));
            assert_eq!(ga, ca, "accumulation differs");
            row("D8 routing + accumulation (cells/s)", n, cells, "cells", gms, Some(cms));
            drop((ga, ca));
        }
        if want("fill") || want("stream") {
            // One stream-power step (K=1e-5, m=0.5, uplift, no diffusion) on the filled surface.
            // The ε fill (once per stream-power run): GPU relaxation against the CPU's Priority-Flood.
            let _ = bozkir_gpu::fill::fill_epsilon(&gpu, &Grid::new(64, 64, 1.0)).unwrap(); // warm-up
            let ((filled, passes), gms) = time(|| bozkir_gpu::fill::fill_epsilon_passes(&gpu, &g).unwrap());
            println!("| (ε fill: {passes} relaxation passes of 32×32 tiles) | {n} | | | | | |");
            let cms = cpu_ok.then(|| {
                let (cf, ms) = time(|| priority_flood::fill_epsilon(&g));
                assert!(cf.data().iter().zip(filled.data()).all(|(a, b)| a.to_bits() == b.to_bits()), "fill differs");
                ms
            });
            if want("fill") {
                row("ε depression fill (cells/s)", n, cells, "cells", gms, cms);
            }
            if want("stream") {
                let p = StreamPowerParams { steps: 1, kappa: 0.0, ..Default::default() };
                let mut ge = bozkir_gpu::stream_power::GpuStreamPower::new(&gpu, &filled, &p).unwrap();
                ge.step().unwrap(); // warm-up step
                let (_, gms) = time(|| {
                    for _ in 0..3 {
                        ge.step().unwrap();
                    }
                    ge.sync().unwrap()
                });
                let gms = gms / 3.0;
                let (_, read_ms) = time(|| ge.output().unwrap());
                let phases = ge.step_timed().unwrap();
                // With BOZKIR_GPU_PROFILE=1: one more step, per kernel entry point.
                let _ = gpu.profile_dispatches();
                ge.step().unwrap();
                ge.sync().unwrap();
                if let Ok(Some(raw)) = gpu.profile_dispatches() {
                    let by = bozkir_gpu::by_kernel(&raw);
                    let total: f64 = by.iter().map(|r| r.2).sum();
                    println!(
                        "| (stream-power step, device time by kernel, total {total:.2} ms: {}) | {n} | | | | | |",
                        by.iter().map(|(k, c, ms)| format!("{k} ×{c} {ms:.3}")).collect::<Vec<_>>().join(", ")
                    );
                    for j in ["acc_jump", "ab_jump_l", "mp_jump_l", "sed_jump"] {
                        let us: Vec<String> =
                            raw.iter().filter(|r| r.0 == j).map(|r| format!("{:.0}", r.1 * 1e3)).collect();
                        println!("| ({j} by round, µs: {}) | {n} | | | | | |", us.join(" "));
                    }
                }
                println!(
                    "| (stream power: state on the device, read back once in {read_ms:.0} ms (not in the step time); \
             {} submissions of ≤ 40 refine/lift pass pairs in 5 steps, {} pairs moved a cell; \
             one step with a wait after each phase: {}) | {n} | | | | | |",
                    ge.pass_submissions(),
                    ge.moving_pass_pairs(),
                    phases.iter().map(|(k, ms)| format!("{k} {ms:.2} ms")).collect::<Vec<_>>().join(", ")
                );
                let cms = cpu_ok.then(|| {
                    let mut ce = StreamPowerEroder::new(&filled, &p);
                    ce.step();
                    time(|| ce.step()).1
                });
                row("stream-power step (cells/s)", n, cells, "cells", gms, cms);
                drop(ge);
            }
            drop(filled);
        }
        if want("thermal") {
            // Thermal: 20 Jacobi iterations at 5° (most cells active).
            let tp = ThermalParams { talus_deg: 5.0, margin_deg: 0.0, rate: 0.2, iterations: 20 };
            let _ = bozkir_gpu::thermal::thermal(&gpu, &g, &ThermalParams { iterations: 2, ..tp }).unwrap();
            let ((_, its), gms) = time(|| bozkir_gpu::thermal::thermal(&gpu, &g, &tp).unwrap());
            let cms = cpu_ok.then(|| time(|| thermal(&g, &tp, &NoProgress)).1);
            row(
                &format!("thermal, {its} iterations (cell-updates/s)"),
                n,
                cells * its as f64,
                "cell-updates",
                gms,
                cms,
            );
        }
        if !want("water") && !want("droplets") {
            continue;
        }
        // Pipe-model shallow water: rain on the terrain, 200 GPU steps; the CPU 20 steps (and the
        // GPU's 20-step state compared with it bit for bit).
        let swp = ShallowWaterParams { rain_rate: 1e-3, steps: 20, ..Default::default() };
        let mut gs = match bozkir_gpu::shallow_water::GpuShallowWater::new(&gpu, &g, &swp) {
            Ok(s) => s,
            Err(e) => {
                println!("| shallow water | {n} | GPU refused: {e} | | | | |");
                continue;
            }
        };
        gs.run(2).unwrap(); // warm-up
        let (_, gms) = time(|| gs.run(200).unwrap());
        drop(gs);
        let cms = (cpu_ok && n_cells(&g) <= 1 << 24).then(|| {
            let (co, cms) = time(|| shallow_water(&g, &swp, &NoProgress));
            let go = bozkir_gpu::shallow_water::shallow_water(&gpu, &g, &swp).unwrap();
            let same = co.height.data().iter().zip(go.height.data()).filter(|(a, b)| a.to_bits() == b.to_bits()).count();
            let wsame = co.water.data().iter().zip(go.water.data()).filter(|(a, b)| a.to_bits() == b.to_bits()).count();
            let werr = co.water.data().iter().zip(go.water.data()).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
            println!(
                "| (shallow water, 20 steps: {same} heights and {wsame} depths of {} bit-identical, max depth diff {werr:.2e} m) | {n} | | | | | |",
                co.height.len()
            );
            cms / 20.0 * 200.0
        });
        row("shallow water, 200 steps (cell-updates/s; CPU: 20 steps ×10)", n, cells * 200.0, "cell-updates", gms, cms);
        if !want("droplets") {
            continue;
        }
        // Droplets: 0.5 per cell up to 4M, batch 1024 (the default, part of the result).
        let count = ((cells * 0.5) as u32).min(4 << 20);
        let dp = DropletParams { droplets: DropletCount::Total(count), seed: 1, ..Default::default() };
        let (go, gms) = match time(|| bozkir_gpu::droplets::erode_droplets(&gpu, &g, &dp)) {
            (Ok(o), ms) => (o, ms),
            (Err(e), _) => {
                let co = erode_droplets(&g, &dp, &NoProgress);
                let max = co.wear.data().iter().chain(co.deposit.data()).cloned().fold(0.0, f64::max);
                println!("| droplets | {n} | GPU refused: {e}; CPU max wear/deposit {max:.1} m | | | | |");
                continue;
            }
        };
        let steps = go.stats.steps_total as f64;
        let cms = cpu_ok.then(|| {
            let (co, cms) = time(|| erode_droplets(&g, &dp, &NoProgress));
            let same =
                co.height.data().iter().zip(go.height.data()).filter(|(a, b)| a.to_bits() == b.to_bits()).count();
            println!(
                "| (droplets: stats equal {}, {} of {} heights bit-identical) | {n} | | | | | |",
                co.stats == go.stats,
                same,
                co.height.len()
            );
            cms
        });
        row(&format!("droplets ×{count}, batch 1024, auto fold (droplet-steps/s)"), n, steps, "steps", gms, cms);
        // The state resident (`GpuDroplets`): upload, the batches, read-back timed apart. Larger
        // batches are opt-in (the batch is part of the result).
        let cap = bozkir_terrain::erosion::droplets::effective_batch(u32::MAX, g.len());
        let mut done = Vec::new();
        for (batch, fold) in [(1024, Fold::Listed), (1024, Fold::Dense), (65536, Fold::Dense), (cap, Fold::Dense)] {
            let dp2 = DropletParams { batch_size: batch, ..dp.clone() };
            let eff = bozkir_terrain::erosion::droplets::effective_batch(batch, g.len());
            if done.contains(&(eff, fold)) {
                continue;
            }
            done.push((eff, fold));
            let (run, ums) = time(|| bozkir_gpu::droplets::GpuDroplets::new(&gpu, &g, &dp2, fold));
            let Ok(mut run) = run else { continue };
            let (r, gms) = time(|| run.run());
            let (o, rms) = time(|| run.output());
            if let (Ok(()), Ok(o)) = (r, o) {
                row(
                    &format!(
                        "droplets ×{count}, batch {eff}, {fold:?} fold, resident (droplet-steps/s; upload {ums:.0} ms, \
                         read-back {rms:.0} ms)"
                    ),
                    n,
                    o.stats.steps_total as f64,
                    "steps",
                    gms,
                    None,
                );
            }
        }
    }
}

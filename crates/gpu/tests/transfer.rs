//! Uploads and read-backs in many small chunks (their own process: the chunk size is a setting of
//! the shared `Gpu`), the resident droplet run (`GpuDroplets`) batch by batch, and the pipelines'
//! warm-up.
mod common;

use bozkir_core::{Grid, NoProgress};
use bozkir_gpu::droplets::{Fold, GpuDroplets};
use bozkir_terrain::erosion::droplets::{erode_droplets, DropletCount, DropletParams};

fn bits(v: &Grid<f64>) -> Vec<u64> {
    v.data().iter().map(|x| x.to_bits()).collect()
}

#[test]
fn chunked_transfers_and_partial_runs_match_the_cpu() {
    let Some(gpu) = common::gpu() else { return };
    // 61 × 47 cells of 8 bytes in chunks of 1000 bytes (rounded to 1000): 23 chunks, the last
    // one partial, through two staging buffers reused in turn.
    gpu.set_transfer_chunk(997);
    assert_eq!(gpu.transfer_chunk(), 1000);
    let g = common::hills(61, 47, 150.0, 5.0, 5.0);
    let p = DropletParams { droplets: DropletCount::Total(3000), seed: 4, batch_size: 40, ..Default::default() };
    let mut run = GpuDroplets::new(gpu, &g, &p, Fold::Dense).unwrap();
    let batch = 40u32.min((61 * 47 / 64) as u32);
    assert_eq!(run.batches(), 3000u32.div_ceil(batch));
    // After 7 batches the result is the CPU's run of those droplets only (droplet k's start
    // depends on k alone, the batches on the batch size alone).
    assert_eq!(run.run_batches(7).unwrap(), 7);
    assert_eq!(run.batches_done(), 7);
    let part = run.output().unwrap();
    let cpu7 =
        erode_droplets(&g, &DropletParams { droplets: DropletCount::Total(7 * batch), ..p.clone() }, &NoProgress);
    assert_eq!(part.stats, cpu7.stats);
    assert_eq!(bits(&part.height), bits(&cpu7.height));
    // The rest, then nothing more to run.
    run.run().unwrap();
    assert_eq!(run.run_batches(5).unwrap(), 0);
    let all = run.output().unwrap();
    let cpu = erode_droplets(&g, &p, &NoProgress);
    assert!(cpu.stats.eroded_units > 0);
    assert_eq!(all.stats, cpu.stats);
    assert_eq!(bits(&all.height), bits(&cpu.height));
    assert_eq!(bits(&all.wear), bits(&cpu.wear));
    assert_eq!(bits(&all.deposit), bits(&cpu.deposit));
}

/// Every `@compute` entry of every module compiles in the background warm-up, each once; the
/// kernels then run on the warmed pipelines and still match the CPU.
#[test]
fn warm_up_compiles_every_entry_point_once() {
    use bozkir_gpu::{entry_points, Gpu, Kernel, SHADERS};
    if common::gpu().is_none() {
        return;
    }
    let gpu = std::sync::Arc::new(Gpu::new().unwrap());
    let all = Kernel::ALL;
    let mut distinct: Vec<&str> = all.iter().flat_map(|k| k.modules().iter().map(|m| m.0)).collect();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), SHADERS.len(), "every module belongs to some kernel");
    let per_kernel: usize = all.iter().flat_map(|k| k.modules()).map(|m| entry_points(m.1).len()).sum();
    let unique: usize = SHADERS.iter().map(|m| entry_points(m.1).len()).sum();
    // The parser finds each entry's name as the source defines it.
    for (_, src) in SHADERS {
        for e in entry_points(src) {
            assert!(!e.is_empty() && src.contains(&format!("fn {e}(")), "{e:?}");
        }
    }
    assert!(unique >= 40, "only {unique} entry points found");
    assert_eq!(gpu.warm_in_background(&all).join().unwrap(), per_kernel, "an entry failed to compile");
    // Warm again: all cached, nothing fails.
    assert_eq!(gpu.warm(&[Kernel::Droplets]), entry_points(SHADERS[4].1).len());
    let g = common::hills(64, 48, 80.0, 2.0, 2.0);
    let p = DropletParams { droplets: DropletCount::Total(3000), batch_size: 256, ..Default::default() };
    let got = bozkir_gpu::droplets::erode_droplets(&gpu, &g, &p).unwrap();
    assert_eq!(bits(&got.height), bits(&erode_droplets(&g, &p, &NoProgress).height));
}

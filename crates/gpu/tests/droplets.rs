//! GPU droplets against the CPU reference: bit-identical heights, wear, deposit and stats.
mod common;

use bozkir_core::{Grid, NoProgress};
use bozkir_gpu::droplets::{erode_droplets as gpu_droplets, erode_droplets_with, Fold};
use bozkir_terrain::erosion::droplets::{erode_droplets, DropletCount, DropletMode, DropletOutput, DropletParams};

fn params(count: u32, seed: u32) -> DropletParams {
    DropletParams { droplets: DropletCount::Total(count), seed, batch_size: 256, ..Default::default() }
}

fn check(g: &Grid<f64>, p: &DropletParams) {
    let Some(gpu) = common::gpu() else { return };
    let cpu: DropletOutput = erode_droplets(g, p, &NoProgress);
    let max = |v: &Grid<f64>| v.data().iter().cloned().fold(0.0f64, f64::max);
    // Past the GPU path's i32 batch sums (1024 m in one cell within one batch) it must refuse,
    // never return a wrong result; that needs a cell past 1024 m over the run.
    if let Err(e) = gpu_droplets(gpu, g, p) {
        assert!(matches!(e, bozkir_gpu::GpuError::Unsupported(_)), "{e}");
        assert!(max(&cpu.wear).max(max(&cpu.deposit)) >= 1024.0, "refused below the range: {e}");
        return;
    }
    // Both folds (listed cells, every cell) give the CPU's bits.
    for fold in [Fold::Listed, Fold::Dense] {
        let got = erode_droplets_with(gpu, g, p, fold).unwrap();
        assert_eq!(got.stats, cpu.stats, "{p:?} {fold:?}");
        let bits = |v: &Grid<f64>| v.data().iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let diff = got.height.data().iter().zip(cpu.height.data()).filter(|(a, b)| a.to_bits() != b.to_bits()).count();
        assert_eq!(diff, 0, "{diff} heights differ, {p:?} {fold:?}");
        assert_eq!(bits(&got.wear), bits(&cpu.wear));
        assert_eq!(bits(&got.deposit), bits(&cpu.deposit));
    }
    assert!(cpu.stats.eroded_units > 0);
}

#[test]
fn droplets_bit_identical_square() {
    let g = common::hills(128, 128, 200.0, 10.0, 10.0);
    check(&g, &params(20_000, 1));
    check(&g, &DropletParams { radius: 1.0, inertia: 0.3, ..params(20_000, 2) });
    check(&g, &DropletParams { capacity: 2.0, erode: 0.2, gravity: 2.0, ..params(10_000, 5) });
    // Beyer's strong values dig runaway holes past 1024 m here: bit-identical (64-bit totals)
    // or refused (one batch past the i32 range), never wrong.
    check(&g, &DropletParams { capacity: 4.0, erode: 0.3, gravity: 4.0, ..params(10_000, 5) });
}

#[test]
fn droplets_bit_identical_rect_cells_and_edges() {
    let g = common::hills(96, 80, 200.0, 10.0, 20.0);
    check(&g, &DropletParams { radius: 2.5, batch_size: 1024, ..params(8_000, 3) });
    check(&g, &DropletParams { radius: 6.0, ..params(8_000, 4) });
    let g = common::hills(256, 256, 300.0, 2.0, 2.0);
    check(&g, &DropletParams { droplets: DropletCount::PerCell(0.5), seed: 9, ..Default::default() });
}

#[test]
fn sequential_mode_is_refused() {
    let Some(gpu) = common::gpu() else { return };
    let g = common::hills(32, 32, 100.0, 1.0, 1.0);
    let p = DropletParams { mode: DropletMode::Sequential, ..params(10, 1) };
    assert!(matches!(gpu_droplets(gpu, &g, &p), Err(bozkir_gpu::GpuError::Unsupported(_))));
}

/// Runaway digging (a radius-1.5 brush, 40 000 droplets on 7680 cells) passes 1024 m of wear or
/// deposit in a cell over the run while each batch of 32 stays in range: the 64-bit run totals
/// keep the CPU's bits where 32-bit ones overflowed.
#[test]
fn run_totals_past_1024_m_stay_bit_identical() {
    let g = common::hills(96, 80, 200.0, 10.0, 20.0);
    let p = DropletParams { radius: 1.5, batch_size: 32, ..params(40_000, 3) };
    let cpu = erode_droplets(&g, &p, &NoProgress);
    let max = |v: &Grid<f64>| v.data().iter().cloned().fold(0.0f64, f64::max);
    let top = max(&cpu.wear).max(max(&cpu.deposit));
    assert!(top > 1024.0, "the run should pass 1024 m in a cell ({top} m)");
    let Some(gpu) = common::gpu() else { return };
    assert!(gpu_droplets(gpu, &g, &p).is_ok(), "refused though every batch stays in range");
    check(&g, &p);
}

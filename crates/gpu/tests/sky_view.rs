//! The GPU's sky-view factor against the CPU reference (`landform::sky_view`): bit-identical,
//! voids, grid edges and anisotropic cells included, and with the grid split in two bindings.
mod common;

use bozkir_core::Grid;
use bozkir_gpu::Gpu;
use bozkir_terrain::landform::{openness, sky_view, OpennessParams};

fn bits(g: &Grid<f64>) -> Vec<u64> {
    g.data().iter().map(|v| v.to_bits()).collect()
}

fn assert_same(gpu: &Gpu, z: &Grid<f64>, p: &OpennessParams, what: &str) {
    let cpu = sky_view(z, p);
    let got = bozkir_gpu::sky_view::sky_view(gpu, z, p).unwrap();
    assert_eq!((got.width(), got.height(), got.dx, got.dy), (cpu.width(), cpu.height(), cpu.dx, cpu.dy));
    let differ = bits(&got).iter().zip(bits(&cpu)).filter(|(a, b)| **a != *b).count();
    assert_eq!(differ, 0, "{what}: {differ} of {} cells differ", z.len());
}

#[test]
fn sky_view_is_the_cpus_bit_for_bit() {
    let Some(gpu) = common::gpu() else { return };
    let rough = common::hills(97, 61, 900.0, 5.0, 5.0);
    // The analysis's rays (16 cells of the larger side), square and anisotropic cells.
    assert_same(gpu, &rough, &OpennessParams { radius: 80.0, ..Default::default() }, "square cells");
    let aniso = common::hills(70, 83, 400.0, 3.0, 7.5);
    assert_same(gpu, &aniso, &OpennessParams { radius: 120.0, ..Default::default() }, "3 × 7.5 m cells");
    // Other direction counts and a step between samples that is not the cell size.
    assert_same(gpu, &aniso, &OpennessParams { directions: 7, radius: 40.0, step: Some(2.3) }, "7 rays");
    // Rays longer than the grid: every ray leaves it; a row and a column grid.
    assert_same(
        gpu,
        &common::hills(12, 9, 50.0, 1.0, 1.0),
        &OpennessParams { radius: 30.0, ..Default::default() },
        "small",
    );
    assert_same(gpu, &common::hills(40, 1, 50.0, 1.0, 1.0), &OpennessParams::default(), "one row");
    assert_same(gpu, &common::hills(1, 33, 50.0, 1.0, 1.0), &OpennessParams::default(), "one column");
    // No samples at all (radius below one step): every ray is a level horizon, the sky is 1.
    let none =
        bozkir_gpu::sky_view::sky_view(gpu, &rough, &OpennessParams { radius: 1.0, ..Default::default() }).unwrap();
    assert!(none.data().iter().all(|&v| v == 1.0));
    // The CPU's sky view is openness's, so the GPU's is too.
    let p = OpennessParams { radius: 50.0, ..Default::default() };
    assert_eq!(bits(&bozkir_gpu::sky_view::sky_view(gpu, &rough, &p).unwrap()), bits(&openness(&rough, &p).sky_view));
}

#[test]
fn voids_and_huge_heights_read_as_on_the_cpu() {
    let Some(gpu) = common::gpu() else { return };
    let mut z = common::hills(64, 48, 300.0, 2.0, 2.0);
    // A void block, a lone void and a void on the border: rays through them see NaN samples.
    for y in 20..26 {
        for x in 30..37 {
            *z.get_mut(x, y) = f64::NAN;
        }
    }
    *z.get_mut(5, 5) = f64::NAN;
    *z.get_mut(63, 0) = f64::NAN;
    // Heights near the f64 limit: (z_s − z_0) overflows to ±∞ on some rays.
    *z.get_mut(10, 40) = 1.7e308;
    *z.get_mut(11, 40) = -1.7e308;
    assert_same(gpu, &z, &OpennessParams { radius: 24.0, ..Default::default() }, "voids");
}

#[test]
fn a_grid_past_the_binding_limit_gives_the_same_bits() {
    if common::gpu().is_none() {
        return;
    }
    // 96 × 80 f64 cells are 61 440 bytes: bound in two halves under a 32 KiB limit, the seam in
    // the middle of row 42, where rays read across it.
    let split = Gpu::with_binding_limit(32_768).expect("the test device again, with a lower limit");
    let z = common::hills(96, 80, 500.0, 4.0, 4.0);
    let p = OpennessParams { radius: 64.0, ..Default::default() };
    assert_same(&split, &z, &p, "split");
    assert!(split.split_active(), "the grid did not split");
}

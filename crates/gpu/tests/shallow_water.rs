//! GPU pipe-model shallow water against the CPU reference (the same Jacobi formulation; within a
//! tolerance: Vulkan's f32 division and square root need not be correctly rounded).
mod common;

use bozkir_core::{Grid, NoProgress};
use bozkir_terrain::erosion::shallow_water::{shallow_water, Boundary, PointSource, ShallowWaterParams};

/// Largest |a − b| over the field, relative to max(max |b|, floor).
fn rel_err(a: &Grid<f64>, b: &Grid<f64>, floor: f64) -> f64 {
    let scale = b.data().iter().fold(floor, |m, v| m.max(v.abs()));
    a.data().iter().zip(b.data()).fold(0.0f64, |m, (x, y)| m.max((x - y).abs())) / scale
}

#[test]
fn shallow_water_matches_cpu() {
    let Some(gpu) = common::gpu() else { return };
    let hills = common::hills(96, 80, 40.0, 5.0, 4.0);
    let cases = [
        (
            common::hills(128, 128, 60.0, 10.0, 10.0),
            ShallowWaterParams { steps: 60, rain_rate: 2e-3, flux_damping: 0.05, ..Default::default() },
        ),
        (
            hills.clone(),
            ShallowWaterParams {
                steps: 40,
                rain_map: Some(hills.map(|&h| 1e-3 * (1.0 + h / 40.0))),
                sources: vec![PointSource { x: 10, y: 20, rate: 50.0 }],
                hardness: Some(hills.map(|&h| if h > 20.0 { 0.2 } else { 1.0 })),
                boundary: Boundary::Open,
                evaporation: 1e-3,
                ..Default::default()
            },
        ),
        (common::hills(2, 37, 10.0, 1.0, 1.0), ShallowWaterParams { steps: 20, rain_rate: 1e-2, ..Default::default() }),
    ];
    for (g, p) in cases {
        let cpu = shallow_water(&g, &p, &NoProgress);
        let got = bozkir_gpu::shallow_water::shallow_water(gpu, &g, &p).unwrap();
        let relief =
            g.data().iter().fold(f64::MIN, |m, &v| m.max(v)) - g.data().iter().fold(f64::MAX, |m, &v| m.min(v));
        let errs = [
            ("height", rel_err(&got.height, &cpu.height, relief.max(1.0))),
            ("water", rel_err(&got.water, &cpu.water, 1e-6)),
            ("vx", rel_err(&got.vx, &cpu.vx, 1e-6)),
            ("vy", rel_err(&got.vy, &cpu.vy, 1e-6)),
            ("sediment", rel_err(&got.sediment, &cpu.sediment, 1e-9)),
            ("eroded", rel_err(&got.eroded, &cpu.eroded, 1e-9)),
            ("deposited", rel_err(&got.deposited, &cpu.deposited, 1e-9)),
        ];
        eprintln!("{}x{}: {errs:?}", g.width(), g.height());
        for (name, e) in errs {
            assert!(e <= 1e-3, "{name}: relative error {e:e} ({}x{})", g.width(), g.height());
        }
        // The cases exercise the whole model: water moved, the bed eroded.
        assert!(cpu.eroded.data().iter().any(|&v| v > 0.0) && cpu.vx.data().iter().any(|&v| v != 0.0));
        // Lavapipe (LLVM, no contraction past the fma(a, b, 0) guards) gives the CPU's bits.
        let same = got.height.data().iter().zip(cpu.height.data()).filter(|(a, b)| a == b).count();
        eprintln!("bit-equal heights: {same} of {}", g.data().len());
        let vol = |o: &Grid<f64>| o.data().iter().sum::<f64>();
        assert!((vol(&got.water) - vol(&cpu.water)).abs() <= 1e-4 * vol(&cpu.water).max(1e-9));
    }
}

#[test]
fn shallow_water_refuses_maccormack() {
    let Some(gpu) = common::gpu() else { return };
    let g = common::hills(16, 16, 10.0, 1.0, 1.0);
    let p = ShallowWaterParams { maccormack: true, steps: 1, ..Default::default() };
    assert!(matches!(bozkir_gpu::shallow_water::shallow_water(gpu, &g, &p), Err(bozkir_gpu::GpuError::Unsupported(_))));
}

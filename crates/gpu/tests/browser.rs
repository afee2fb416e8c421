//! The browser's `f32` kernels held to their contract: the generated WGSL the viewer loads is
//! the one this crate generates, the CPU reference of the contract is pinned in the fixture the
//! browser test reads (`web/tests/browser/fixtures/thermal-f32.json`), the native wgpu run of the
//! variant equals the reference bit for bit, and the `f32` result stays near the `f64` kernel's.
//! `BOZKIR_REGEN=1` rewrites the generated file and the fixture.
mod common;

use bozkir_gpu::browser::{thermal_f32, thermal_f32_reference, thermal_table, thermal_wgsl_f32, ThermalF32};
use std::path::PathBuf;

fn web(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../web").join(rel)
}

fn regen() -> bool {
    std::env::var("BOZKIR_REGEN").is_ok_and(|v| v == "1")
}

/// A steep 48 × 40 field of 2 m cells with 300 m of relief: most cells past a 35° talus.
fn input() -> ThermalF32 {
    let g = common::hills(48, 40, 300.0, 2.0, 2.0);
    let tab = thermal_table(35.0, 2.0, g.dx, g.dy);
    ThermalF32 {
        width: 48,
        height: 40,
        z: g.data().iter().map(|&v| v as f32).collect(),
        table: tab.map(|v| v as f32),
        half_rate: 0.1,
        iterations: 31,
    }
}

#[test]
fn the_viewer_loads_the_generated_wgsl() {
    let path = web("src/gpu/thermal.wgsl");
    if regen() {
        std::fs::write(&path, thermal_wgsl_f32()).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == thermal_wgsl_f32(),
        "{} is not the generated f32 variant; run BOZKIR_REGEN=1 cargo test -p bozkir-gpu --test browser",
        path.display()
    );
}

#[test]
fn the_browser_fixture_is_the_cpu_reference() {
    let inp = input();
    let want = thermal_f32_reference(&inp);
    // The reference moved material: the fixture tests something.
    let moved = inp.z.iter().zip(&want).filter(|(a, b)| a != b).count();
    assert!(moved > inp.z.len() / 2, "{moved}");
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
    let fixture = serde_json::json!({
        "what": "thermal f32: input and the CPU reference (crates/gpu/tests/browser.rs); values are f32 bit patterns",
        "width": inp.width,
        "height": inp.height,
        "iterations": inp.iterations,
        "half_rate": inp.half_rate.to_bits(),
        "table": bits(&inp.table),
        "z": bits(&inp.z),
        "expected": bits(&want),
    });
    let path = web("tests/browser/fixtures/thermal-f32.json");
    if regen() {
        std::fs::write(&path, serde_json::to_string(&fixture).unwrap() + "\n").unwrap();
    }
    let have: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_default()).unwrap_or_default();
    assert!(
        have == fixture,
        "{} is not the CPU reference; run BOZKIR_REGEN=1 cargo test -p bozkir-gpu --test browser",
        path.display()
    );
}

#[test]
fn the_native_f32_variant_is_the_reference_bit_for_bit() {
    let Some(gpu) = common::gpu() else { return };
    let inp = input();
    let want = thermal_f32_reference(&inp);
    let got = thermal_f32(gpu, &inp).unwrap();
    for (i, (a, b)) in got.iter().zip(&want).enumerate() {
        assert_eq!(a.to_bits(), b.to_bits(), "cell ({}, {}): GPU {a:e}, CPU {b:e}", i % inp.width, i / inp.width);
    }
    // Odd and even iteration counts end in different buffers.
    let even = ThermalF32 { iterations: 8, ..inp.clone() };
    assert_eq!(thermal_f32(gpu, &even).unwrap(), thermal_f32_reference(&even));
}

#[test]
fn the_f32_contract_stays_near_the_f64_kernel() {
    use bozkir_terrain::erosion::thermal::{thermal, ThermalParams};
    let inp = input();
    let g = common::hills(48, 40, 300.0, 2.0, 2.0);
    let p = ThermalParams { talus_deg: 35.0, margin_deg: 2.0, rate: 0.2, iterations: inp.iterations };
    let f64_run = thermal(&g, &p, &bozkir_core::NoProgress);
    let f32_run = thermal_f32_reference(&inp);
    let worst = f64_run.data().iter().zip(&f32_run).map(|(a, &b)| (a - f64::from(b)).abs()).fold(0.0, f64::max);
    // f32 heights of up to 300 m carry an ulp of 3e-5 m; 31 iterations of sums stay within a
    // few hundred ulp.
    assert!(worst < 1e-2, "f32 against f64: {worst} m");
    assert!(worst > 0.0, "the f32 run is not f64's");
}

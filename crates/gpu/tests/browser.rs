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

/// The committed generated file `rel` (under web/) is `want`; `BOZKIR_REGEN=1` writes it first.
fn check_generated(rel: &str, want: &str) {
    let path = web(rel);
    if regen() {
        std::fs::write(&path, want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(have == want, "{} is stale; run BOZKIR_REGEN=1 cargo test -p bozkir-gpu --test browser", path.display());
}

/// The committed fixture `rel` (under web/) is `want`; `BOZKIR_REGEN=1` writes it first.
fn check_fixture(rel: &str, want: &serde_json::Value) {
    let path = web(rel);
    if regen() {
        std::fs::write(&path, serde_json::to_string(want).unwrap() + "\n").unwrap();
    }
    let have: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_default()).unwrap_or_default();
    assert!(
        &have == want,
        "{} is not the CPU reference; run BOZKIR_REGEN=1 cargo test -p bozkir-gpu --test browser",
        path.display()
    );
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
    check_generated("src/gpu/thermal.wgsl", thermal_wgsl_f32());
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
    check_fixture("tests/browser/fixtures/thermal-f32.json", &fixture);
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

mod droplets {
    use super::{check_fixture, check_generated, common};
    use bozkir_gpu::browser::{droplets_f32, droplets_f32_reference, droplets_wgsl_f32, DropletsF32};
    use bozkir_terrain::erosion::droplets::{DropletCount, DropletParams};

    /// 64 × 48 hills of 2 m cells, 60 m of relief; 1500 droplets in batches of 48 (the grid's
    /// cells / 64), 40 steps each, brush radius 3 (borders renormalised).
    pub fn input() -> DropletsF32 {
        let g = common::hills(64, 48, 60.0, 2.0, 2.0);
        let p = DropletParams {
            droplets: DropletCount::Total(1500),
            lifetime: 40,
            seed: 11,
            batch_size: 256,
            ..Default::default()
        };
        DropletsF32::new(&g, &p)
    }

    #[test]
    fn the_viewer_loads_the_generated_wgsl() {
        check_generated("src/gpu/droplets.wgsl", droplets_wgsl_f32());
    }

    #[test]
    fn the_browser_fixture_is_the_cpu_reference() {
        let inp = input();
        let out = droplets_f32_reference(&inp).unwrap();
        // The run eroded and deposited: the fixture tests something.
        assert!(out.eroded > 1_000_000 && out.deposited > 100_000 && out.steps > 10_000, "{out:?}");
        let moved = inp.h0.iter().zip(&out.height).filter(|(a, b)| a != b).count();
        assert!(moved > inp.h0.len() / 4, "{moved}");
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
        let fixture = serde_json::json!({
            "what": "droplets f32: input and the CPU reference (crates/gpu/tests/browser.rs); floats are f32 bit patterns",
            "width": inp.width,
            "height": inp.height,
            "h0": bits(&inp.h0),
            "f": bits(&inp.f),
            "seed": inp.seed,
            "lifetime": inp.lifetime,
            "total": inp.total,
            "batch": inp.batch,
            "brush_w": bits(&inp.brush_w),
            "brush_o": inp.brush_o.iter().flatten().collect::<Vec<_>>(),
            "rx": inp.rx,
            "ry": inp.ry,
            "expected": {
                "height": bits(&out.height),
                "wear": out.wear,
                "deposit": out.deposit,
                "steps": out.steps,
                "eroded": out.eroded,
                "deposited": out.deposited,
                "lost": out.lost,
            },
        });
        check_fixture("tests/browser/fixtures/droplets-f32.json", &fixture);
    }

    #[test]
    fn the_native_f32_variant_is_the_reference_bit_for_bit() {
        let Some(gpu) = common::gpu() else { return };
        let inp = input();
        let want = droplets_f32_reference(&inp).unwrap();
        let got = droplets_f32(gpu, &inp).unwrap();
        for (i, (a, b)) in got.height.iter().zip(&want.height).enumerate() {
            assert_eq!(a.to_bits(), b.to_bits(), "cell ({}, {}): GPU {a:e}, CPU {b:e}", i % inp.width, i / inp.width);
        }
        assert_eq!(got, want);
    }

    #[test]
    fn the_f32_run_erodes_like_the_f64_kernel() {
        use bozkir_terrain::erosion::droplets::erode_droplets;
        // Not the same droplets (the f32 variant draws its starts from 24 bits), so compare the
        // amounts: eroded and deposited within 15 % of the f64 run's.
        let g = common::hills(64, 48, 60.0, 2.0, 2.0);
        let p = DropletParams {
            droplets: DropletCount::Total(1500),
            lifetime: 40,
            seed: 11,
            batch_size: 256,
            ..Default::default()
        };
        let f64_run = erode_droplets(&g, &p, &bozkir_core::NoProgress).stats;
        let f32_run = droplets_f32_reference(&input()).unwrap();
        let near = |a: f64, b: f64| (a - b).abs() <= 0.15 * a.abs().max(b.abs());
        assert!(near(f64_run.eroded_units as f64, f32_run.eroded as f64), "{f64_run:?} {f32_run:?}");
        assert!(near(f64_run.deposited_units as f64, f32_run.deposited as f64), "{f64_run:?} {f32_run:?}");
    }

    #[test]
    fn a_droplet_past_the_f32_limit_is_an_error() {
        let mut inp = input();
        // Hills 100 km high, capacity a million times larger, full erosion: one step erodes
        // more than 1024 m, past the kernel's fixed-point range.
        inp.h0.iter_mut().for_each(|v| *v *= 1e5);
        inp.f[2] *= 1e6;
        inp.f[4] = 1.0;
        let e = droplets_f32_reference(&inp).unwrap_err();
        assert!(e.contains("the kernel's limits"), "{e}");
        if let Some(gpu) = common::gpu() {
            assert!(droplets_f32(gpu, &inp).is_err());
        }
    }
}

/// The live erosion page (web/erode.html) builds its kernels' inputs in JavaScript
/// (`talusTable`, `dropletSetup`); `bozkir lab` builds them here. The fixture pins the native
/// values as f32 bits for every whole talus angle (and three others) at every size the page
/// offers, and
/// web/tests/unit/lab-setup.test.mjs holds the JavaScript to them bit for bit.
#[test]
fn the_page_setup_fixture_is_the_native_setup() {
    use bozkir_core::Grid;
    use bozkir_terrain::erosion::droplets::DropletParams;
    let talus: Vec<f64> = (0..90).map(f64::from).chain([12.5, 33.3, 47.75]).collect();
    // The page's sizes, each at 5120 m across.
    let setups: Vec<serde_json::Value> = [64usize, 128, 256, 512, 1024]
        .iter()
        .map(|&n| {
            let cell = 5120.0 / n as f64;
            let mut g = Grid::new(n, n, 0.0);
            g.dx = cell;
            g.dy = cell;
            let d = bozkir_gpu::browser::DropletsF32::new(&g, &DropletParams::default());
            let tables: Vec<serde_json::Value> = talus
                .iter()
                .map(|&t| serde_json::json!({"talus": t, "bits": thermal_table(t, 0.0, cell, cell).map(|v| (v as f32).to_bits())}))
                .collect();
            let pipe = bozkir_gpu::browser::PipeF32::new(&g, &bozkir_gpu::browser::page_pipe_params());
            serde_json::json!({
                "size": n, "cell": cell, "f": d.f.map(f32::to_bits),
                "pipe_uniform": bytemuck::cast_slice::<_, u32>(&[pipe.u]),
                "brush_w": d.brush_w.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                "brush_o": d.brush_o.iter().flatten().collect::<Vec<_>>(), "rx": d.rx, "ry": d.ry,
                "lifetime": d.lifetime, "batch": d.batch, "tables": tables,
            })
        })
        .collect();
    let want = serde_json::json!({
        "what": "the native inputs of the erosion page's kernels (crates/gpu/tests/browser.rs); floats are f32 bit patterns",
        "setups": setups,
    });
    check_fixture("tests/unit/fixtures/lab-setup.json", &want);
}

mod pipe {
    use super::{check_fixture, check_generated, common};
    use bozkir_gpu::browser::{pipe_f32, pipe_wgsl_f32, PipeF32};
    use bozkir_terrain::erosion::shallow_water::ShallowWaterParams;

    /// 40 × 32 hills of 20 m cells, 150 m of relief, open borders; rain on a disc (the page's
    /// brush) for the first steps, then none.
    pub fn input() -> (PipeF32, usize, usize) {
        let g = common::hills(40, 32, 150.0, 20.0, 20.0);
        let params = ShallowWaterParams { rain_rate: 0.0, dissolve: 0.5, ..Default::default() };
        let mut p = PipeF32::new(&g, &params);
        p.u.uni = 0;
        let (w, h) = (40usize, 32usize);
        for (i, m) in p.maps.iter_mut().enumerate() {
            let (x, y) = ((i % w) as f32 - 14.0, (i / w) as f32 - 12.0);
            if x * x + y * y < 36.0 {
                m[0] = 0.02;
            }
        }
        let _ = h;
        (p, 60, 40)
    }

    /// `rain` steps with the brush's maps, then `dry` steps with no rain.
    fn reference(p: &PipeF32, rain: usize, dry: usize) -> PipeF32 {
        let mut r = p.clone();
        r.step_reference(rain);
        for m in &mut r.maps {
            m[0] = 0.0;
        }
        r.step_reference(dry);
        r
    }

    fn bits(v: &[f32]) -> Vec<u32> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn the_viewer_loads_the_generated_wgsl() {
        check_generated("src/gpu/pipe.wgsl", pipe_wgsl_f32());
    }

    #[test]
    fn the_browser_fixture_is_the_cpu_reference() {
        let (p, rain, dry) = input();
        let r = reference(&p, rain, dry);
        // Water ran, carved and laid down: the fixture tests something.
        let moved = p.b.iter().zip(&r.b).filter(|(a, b)| a != b).count();
        assert!(moved > p.b.len() / 4, "{moved}");
        assert!(r.d.iter().any(|&v| v > 1e-4), "no water left");
        let flat = |v: &[[f32; 2]]| v.iter().flatten().copied().collect::<Vec<f32>>();
        let fixture = serde_json::json!({
            "what": "pipe model f32: input and the CPU reference (crates/gpu/tests/browser.rs); floats are f32 bit patterns",
            "uniform": bytemuck::cast_slice::<_, u32>(&[p.u]),
            "width": p.u.w, "height": p.u.h, "rain_steps": rain, "dry_steps": dry,
            "b": bits(&p.b), "maps": bits(&flat(&p.maps)),
            "expected": {
                "b": bits(&r.b), "d": bits(&r.d), "s": bits(&r.s), "erdp": bits(&flat(&r.erdp)),
            },
        });
        check_fixture("tests/browser/fixtures/pipe-f32.json", &fixture);
    }

    #[test]
    fn the_native_f32_variant_is_the_reference_bit_for_bit() {
        let Some(gpu) = common::gpu() else { return };
        let (p, rain, dry) = input();
        let mut got = pipe_f32(gpu, &p, rain).unwrap();
        for m in &mut got.maps {
            m[0] = 0.0;
        }
        let got = pipe_f32(gpu, &got, dry).unwrap();
        let want = reference(&p, rain, dry);
        let w = p.u.w as usize;
        for (name, a, b) in [("b", &got.b, &want.b), ("d", &got.d, &want.d), ("s", &got.s, &want.s)] {
            for (i, (x, y)) in a.iter().zip(b.iter()).enumerate() {
                assert_eq!(x.to_bits(), y.to_bits(), "{name} at ({}, {}): GPU {x:e}, CPU {y:e}", i % w, i / w);
            }
        }
        assert_eq!(got.erdp, want.erdp);
        assert_eq!(got.flux, want.flux);
    }

    /// Uniform rain on both models: `f32` terrain against the native `f64` terrain. The model
    /// amplifies small differences where cells run wet and dry (measured on this field: the
    /// largest height difference 1.3e-4 m after 1 step, 1.3e-3 m after 10, 3.7e-2 m after 20,
    /// 4.7 m after 50, water piling to 7 m); the contract is the f32 reference, not the f64 run,
    /// so this holds them close over the first steps only.
    #[test]
    fn the_f32_run_stays_near_the_native_model_at_first() {
        use bozkir_terrain::erosion::shallow_water::shallow_water;
        let g = common::hills(40, 32, 150.0, 20.0, 20.0);
        let params = ShallowWaterParams { rain_rate: 1e-3, dissolve: 0.5, steps: 10, ..Default::default() };
        let f64_run = shallow_water(&g, &params, &bozkir_core::NoProgress);
        let mut p = PipeF32::new(&g, &params);
        p.step_reference(10);
        let dh = f64_run.height.data().iter().zip(&p.b).map(|(a, &b)| (a - f64::from(b)).abs()).fold(0.0, f64::max);
        let dd = f64_run.water.data().iter().zip(&p.d).map(|(a, &b)| (a - f64::from(b)).abs()).fold(0.0, f64::max);
        assert!(dh < 5e-3 && dd < 1e-3, "terrain {dh} m, water {dd} m");
        assert!(dh > 0.0, "the f32 run is not f64's");
        assert!(f64_run.eroded.data().iter().any(|&v| v > 0.0));
    }
}

mod flow {
    use super::{check_fixture, check_generated, common};
    use bozkir_gpu::browser::{accumulate_reference, d8_f32_reference, flow_f32, flow_wgsl_f32};

    /// 70 × 45 hills of 20 m cells rounded to 0.5 m steps (flats and equal slopes: the tie-break
    /// is exercised), in f32.
    pub fn input() -> (usize, usize, Vec<f32>) {
        let g = common::hills(70, 45, 120.0, 20.0, 20.0);
        (70, 45, g.data().iter().map(|&v| ((v * 2.0).round() / 2.0) as f32).collect())
    }

    #[test]
    fn the_viewer_loads_the_generated_wgsl() {
        check_generated("src/gpu/flow.wgsl", flow_wgsl_f32());
    }

    #[test]
    fn the_browser_fixture_is_the_cpu_reference() {
        let (w, h, z) = input();
        let (rcv, dist) = d8_f32_reference(w, h, &z, 20.0, 20.0);
        let count = accumulate_reference(&rcv);
        // Long paths and many outlets: the fixture tests something.
        assert!(*count.iter().max().unwrap() > 100, "{:?}", count.iter().max());
        assert!(rcv.iter().enumerate().filter(|&(i, &r)| r as usize == i).count() > 2 * (w + h));
        let fixture = serde_json::json!({
            "what": "D8 routing and accumulation f32: input and the CPU reference (crates/gpu/tests/browser.rs); heights and distances are f32 bit patterns",
            "width": w, "height": h, "dx": 20.0, "dy": 20.0,
            "z": z.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            "expected": {"rcv": rcv, "dist": dist.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), "count": count},
        });
        check_fixture("tests/browser/fixtures/flow-f32.json", &fixture);
    }

    #[test]
    fn the_native_f32_variant_is_the_reference_bit_for_bit() {
        let Some(gpu) = common::gpu() else { return };
        // A grid of several 32 × 32 tiles and one path across many of them.
        for (w, h, z) in [input(), (100, 70, (0..7000).map(|i| (7000 - i) as f32 * 0.25).collect())] {
            let (rcv, dist) = d8_f32_reference(w, h, &z, 20.0, 20.0);
            let got = flow_f32(gpu, w, h, &z, 20.0, 20.0).unwrap();
            let (grcv, gdist, gcount) = (got.receivers, got.dist, got.count);
            assert_eq!(grcv, rcv);
            assert_eq!(
                gdist.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                dist.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            );
            assert_eq!(gcount, accumulate_reference(&rcv));
        }
    }

    #[test]
    fn the_reference_counts_are_the_native_cpu_counts() {
        use bozkir_terrain::hydrology::flow_graph::{accumulate_cells, d8_receivers};
        // On heights exact in f32 the f32 receivers are the f64 router's.
        let (w, h, z) = input();
        let g = bozkir_core::Grid::from_vec(w, h, z.iter().map(|&v| f64::from(v)).collect()).with_cell_size(20.0, 20.0);
        let fg = d8_receivers(&g);
        let (rcv, _) = d8_f32_reference(w, h, &z, 20.0, 20.0);
        let agree = fg.receivers.iter().zip(&rcv).filter(|(a, b)| **a == **b).count();
        assert!(agree as f64 >= 0.999 * rcv.len() as f64, "{agree} of {}", rcv.len());
        if agree == rcv.len() {
            assert_eq!(accumulate_reference(&rcv), accumulate_cells(&fg));
        }
    }
}

//! `terrain --profile … --gpu`: the profile generator's erosion walk as the GPU's stream power
//! with its guards off, against the CPU walk (the original's bits): height RMS within 1e-4 of
//! the relief and D8 receivers agreeing on at least 99 % of the cells (the contract; it
//! is not bit for bit).
mod common;

use bozkir_core::NoProgress;
use bozkir_terrain::hydrology::flow_graph::d8_receivers;
use bozkir_terrain::profiles::{generate, generate_with, profile};

#[test]
fn profiles_on_the_gpu_agree_with_the_walk() {
    let Some(gpu) = common::gpu() else { return };
    // Creep only (canyon), uplift and creep (alpine, foothills), few iterations (dunes).
    for (name, size, seed) in [("canyon", 96, 7), ("alpine", 64, 3), ("foothills", 80, 1), ("dunes", 72, 2)] {
        let p = profile(name).unwrap().params;
        let want = generate(size, seed, &p, &NoProgress);
        let got = generate_with(size, seed, &p, &common::StreamPowerOn(gpu), &NoProgress).unwrap();
        let n = (size * size) as f64;
        // Unit-normalised heights: the RMS is in units of the relief.
        let rms =
            (got.height.data().iter().zip(want.height.data()).map(|(a, b)| (a - b).powi(2)).sum::<f64>() / n).sqrt();
        let (a, b) = (d8_receivers(&got.height), d8_receivers(&want.height));
        let agree = a.receivers.iter().zip(&b.receivers).filter(|(x, y)| x == y).count() as f64 / n;
        println!("{name} {size}²: height RMS {rms:.2e} of the relief, D8 agreement {:.4} %", agree * 100.0);
        // The contract is 1e-4; lavapipe and the H200 give about 1e-15, so 1e-9 catches a
        // kernel that drifts long before a user would see it.
        assert!(rms <= 1e-9, "{name}: height RMS {rms:e} of the relief");
        assert!(agree >= 0.99, "{name}: D8 agreement {agree}");
        assert_eq!(got.base, want.base);
    }
}

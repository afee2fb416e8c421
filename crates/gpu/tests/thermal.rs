//! GPU thermal relaxation against the CPU reference: bit-identical.
mod common;

use bozkir_core::NoProgress;
use bozkir_terrain::erosion::thermal::{thermal, thermal_in_place, ThermalParams};

#[test]
fn thermal_bit_identical() {
    let Some(gpu) = common::gpu() else { return };
    let cases = [
        (common::hills(128, 128, 900.0, 5.0, 5.0), ThermalParams { iterations: 37, ..ThermalParams::scree_maker() }),
        (common::hills(97, 61, 1500.0, 4.0, 7.0), ThermalParams::spike_guard()),
        (common::hills(64, 64, 5.0, 10.0, 10.0), ThermalParams { iterations: 40, ..ThermalParams::scree_maker() }),
        (common::hills(64, 64, 400.0, 10.0, 10.0), ThermalParams { iterations: 300, ..ThermalParams::scree_maker() }),
    ];
    for (g, p) in cases {
        let cpu = thermal(&g, &p, &NoProgress);
        let mut c2 = g.clone();
        let its = thermal_in_place(&mut c2, &p, &NoProgress);
        let (got, run) = bozkir_gpu::thermal::thermal(gpu, &g, &p).unwrap();
        assert_eq!(run, its, "{p:?}");
        let diff = got.data().iter().zip(cpu.data()).filter(|(a, b)| a != b).count();
        assert_eq!(diff, 0, "{p:?}");
        // The gentle case has no slope over the talus: nothing moves, no iteration runs.
        assert_eq!(cpu.data() != g.data(), its > 0);
    }
}

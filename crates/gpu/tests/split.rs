//! Grids past the binding limit, bound in two halves (`src/split.rs`): with the limit lowered on
//! a second device, small grids take the split path, and every kernel written for it (the stream
//! power with its routing and sediment, both fills, D8 routing and accumulation, the profile
//! generator's walk) must give the unsplit device's bits.
mod common;

use bozkir_core::{Grid, NoProgress};
use bozkir_gpu::{Gpu, GpuError};
use bozkir_terrain::erosion::stream_power::{StreamPowerOutput, StreamPowerParams};
use bozkir_terrain::profiles::{generate_with, profile};

/// 96 × 80 cells: 61 440 bytes in an `f64` buffer, 30 720 in a `u32` one. A limit of 32 768
/// bytes splits the `f64` buffers (and the `u32` views of 8-byte ones) at cell 4096, in the
/// middle of row 42, so neighbour reads cross the seam.
const W: usize = 96;
const H: usize = 80;
const LIMIT: u64 = 32_768;

fn split_gpu() -> Option<Gpu> {
    common::gpu()?;
    Some(Gpu::with_binding_limit(LIMIT).expect("the test device again, with a lower limit"))
}

fn bits(g: &Grid<f64>) -> Vec<u64> {
    g.data().iter().map(|v| v.to_bits()).collect()
}

fn same(a: &StreamPowerOutput, b: &StreamPowerOutput, what: &str) {
    assert_eq!(a.steps_run, b.steps_run, "{what}: steps");
    assert!(bits(&a.height) == bits(&b.height), "{what}: heights differ");
    assert!(bits(&a.eroded) == bits(&b.eroded), "{what}: eroded differs");
    assert!(bits(&a.sediment) == bits(&b.sediment), "{what}: sediment differs");
}

#[test]
fn split_bindings_give_the_unsplit_bits() {
    let Some(split) = split_gpu() else { return };
    let plain = common::gpu().unwrap();
    assert!(!split.split_active());
    // Below the lowered limit nothing is split.
    let small = common::hills(64, 48, 200.0, 10.0, 10.0);
    let want = bozkir_gpu::fill::fill_epsilon(plain, &small).unwrap();
    assert!(bits(&bozkir_gpu::fill::fill_epsilon(&split, &small).unwrap()) == bits(&want));
    assert!(!split.split_active(), "a grid under the limit does not split");

    let g = common::hills(W, H, 300.0, 20.0, 30.0);
    // The fills first: this turns the split variants on.
    let (a, b) =
        (bozkir_gpu::fill::fill_epsilon(plain, &g).unwrap(), bozkir_gpu::fill::fill_epsilon(&split, &g).unwrap());
    assert!(split.split_active(), "{W}x{H} needs the split path under a {LIMIT}-byte limit");
    assert!(bits(&a) == bits(&b), "ε fill");
    let (a, b) = (
        bozkir_gpu::fill::fill_fixed_step(plain, &g, 0.01).unwrap(),
        bozkir_gpu::fill::fill_fixed_step(&split, &g, 0.01).unwrap(),
    );
    assert!(bits(&a) == bits(&b), "fixed-step fill");
    // A grid that was under the limit runs on the split variants too, with the same bits.
    assert!(bits(&bozkir_gpu::fill::fill_epsilon(&split, &small).unwrap()) == bits(&want), "small grid, split variant");

    let (a, b) =
        (bozkir_gpu::flow::d8_receivers(plain, &g).unwrap(), bozkir_gpu::flow::d8_receivers(&split, &g).unwrap());
    assert_eq!(a.receivers, b.receivers, "D8 receivers");
    assert!(a.dist.iter().zip(&b.dist).all(|(x, y)| x.to_bits() == y.to_bits()), "D8 distances");
    assert_eq!(
        bozkir_gpu::flow::accumulate_cells(plain, &g).unwrap(),
        bozkir_gpu::flow::accumulate_cells(&split, &g).unwrap(),
        "accumulation"
    );

    // Stream power: guards on and off, creep, an uplift map, several steps.
    let umap = Grid::from_fn(W, H, |x, y| (x + y) as f64 / (W + H) as f64).with_cell_size(20.0, 30.0);
    for (what, p) in [
        ("one step", StreamPowerParams { steps: 1, kappa: 0.0, ..Default::default() }),
        ("creep, 4 steps", StreamPowerParams { steps: 4, kappa: 0.05, ..Default::default() }),
        ("uplift map", StreamPowerParams { steps: 3, uplift_map: Some(umap.clone()), ..Default::default() }),
        ("guards off", StreamPowerParams { steps: 3, guards: false, kappa: 0.02, ..Default::default() }),
    ] {
        let a = bozkir_gpu::stream_power::stream_power(plain, &g, &p).unwrap();
        let b = bozkir_gpu::stream_power::stream_power(&split, &g, &p).unwrap();
        assert!(a.eroded.data().iter().any(|&v| v > 0.0), "{what}: something eroded");
        same(&a, &b, what);
    }
}

#[test]
fn the_profile_walk_splits_bit_for_bit() {
    // The fields of these sizes have margins: 124² cells at 96 (123 008 bytes of f64) and 104²
    // at 80; a limit of 65 536 bytes splits both, at cell 8192 (row 66 of 124, row 78 of 104).
    if common::gpu().is_none() {
        return;
    }
    let split = Gpu::with_binding_limit(65_536).unwrap();
    let plain = common::gpu().unwrap();
    for (name, size, seed) in [("canyon", 96, 7), ("alpine", 80, 3)] {
        let p = profile(name).unwrap().params;
        let a = generate_with(size, seed, &p, &common::StreamPowerOn(plain), &NoProgress).unwrap();
        let b = generate_with(size, seed, &p, &common::StreamPowerOn(&split), &NoProgress).unwrap();
        assert!(bits(&a.height) == bits(&b.height), "{name}: heights differ");
    }
    assert!(split.split_active(), "the profiles' fields took the split path");
}

#[test]
fn grids_past_two_halves_are_refused_with_the_sizes() {
    let Some(split) = split_gpu() else { return };
    let cap = split.split_capacity();
    assert!((2 * LIMIT - 256..=2 * LIMIT).contains(&cap), "two halves: {cap}");
    let side = ((cap / 8) as f64).sqrt() as usize + 2;
    match split.check_grid_split(side, side, 8) {
        Err(GpuError::GridTooLarge { width, bytes, max, .. }) => {
            assert_eq!((width, max), (side, cap));
            assert_eq!(bytes, (side * side * 8) as u64);
        }
        other => panic!("{side}² should be refused, got {other:?}"),
    }
    let g = common::hills(side, side, 100.0, 1.0, 1.0);
    let e = bozkir_gpu::stream_power::stream_power(&split, &g, &StreamPowerParams::default()).unwrap_err();
    assert!(e.to_string().contains("over the device's limit"), "{e}");
    assert!(Gpu::with_binding_limit(100).unwrap_err().to_string().contains("at least 1024"));
}

/// A binding limit that is not a multiple of the device's storage offset alignment (NVIDIA's
/// own, 2 GiB − 4 bytes, is not): the second half must still start on that alignment. The plan
/// once used the adapter's alignment (16 or 32 bytes) while the device checks the 256 bytes it
/// was created with, so every split bind group was refused on the H200 (canyon 16384², the first
/// fill: "a submission index that has not been returned by a successful submission").
#[test]
fn a_limit_off_the_offset_alignment_still_splits_bit_for_bit() {
    let Some(plain) = common::gpu() else { return };
    let odd = Gpu::with_binding_limit(LIMIT + 4 * 1024 - 4).expect("the test device, limit 4 bytes short of 36 KiB");
    let g = common::hills(W, H, 300.0, 20.0, 30.0);
    let (a, b) =
        (bozkir_gpu::fill::fill_epsilon(plain, &g).unwrap(), bozkir_gpu::fill::fill_epsilon(&odd, &g).unwrap());
    assert!(odd.split_active(), "{W}x{H} splits under a {}-byte limit", odd.binding_limit());
    assert!(bits(&a) == bits(&b), "ε fill");
    let p = StreamPowerParams { steps: 2, ..Default::default() };
    let (a, b) = (
        bozkir_gpu::stream_power::stream_power(plain, &g, &p).unwrap(),
        bozkir_gpu::stream_power::stream_power(&odd, &g, &p).unwrap(),
    );
    same(&a, &b, "stream power");
}

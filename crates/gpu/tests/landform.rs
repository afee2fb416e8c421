//! The GPU's slope and TPI against the CPU reference (`landform::slope`, `landform::tpi`):
//! bit-identical, voids, edges, anisotropic cells, windows of every shape, gradients at the ends
//! of the f64 range, and with the grid split in two bindings; the Weiss classes from the GPU's
//! parts equal the CPU's.
mod common;

use bozkir_core::Grid;
use bozkir_gpu::landform::landform_maps;
use bozkir_gpu::Gpu;
use bozkir_terrain::landform::{slope, tpi, weiss_landform, weiss_landform_parts, TpiParams, TpiWindow, WeissParams};

/// Bits per cell, every NaN as one value (a void's NaN payload is not part of the contract).
fn bits(g: &Grid<f64>) -> Vec<u64> {
    g.data().iter().map(|v| if v.is_nan() { u64::MAX } else { v.to_bits() }).collect()
}

fn differ(a: &Grid<f64>, b: &Grid<f64>) -> usize {
    assert_eq!((a.width(), a.height(), a.dx, a.dy), (b.width(), b.height(), b.dx, b.dy));
    bits(a).iter().zip(bits(b)).filter(|(x, y)| **x != *y).count()
}

fn windows() -> Vec<TpiParams> {
    [
        TpiWindow::Cells { outer: 8, inner: 0 },
        TpiWindow::Cells { outer: 1, inner: 0 },
        TpiWindow::Cells { outer: 5, inner: 2 },
        TpiWindow::Cells { outer: 3, inner: 1 },
        TpiWindow::Metres { outer: 40.0, inner: 12.0 },
        // Wider than any test grid: every window is the whole grid less its core.
        TpiWindow::Cells { outer: 1000, inner: 3 },
        TpiWindow::Cells { outer: usize::MAX / 4, inner: 0 },
    ]
    .into_iter()
    .map(|window| TpiParams { window })
    .collect()
}

fn assert_same(gpu: &Gpu, z: &Grid<f64>, what: &str) {
    let ws = windows();
    let got = landform_maps(gpu, z, true, &ws).unwrap();
    let s = got.slope.expect("the slope was asked for");
    let n = differ(&s, &slope(z));
    assert_eq!(n, 0, "{what}: slope differs in {n} of {} cells", z.len());
    assert_eq!(got.tpi.len(), ws.len());
    for (t, p) in got.tpi.iter().zip(&ws) {
        let n = differ(t, &tpi(z, p));
        assert_eq!(n, 0, "{what}: TPI {:?} differs in {n} of {} cells", p.window, z.len());
    }
}

#[test]
fn slope_and_tpi_are_the_cpus_bit_for_bit() {
    let Some(gpu) = common::gpu() else { return };
    assert_same(gpu, &common::hills(97, 61, 900.0, 5.0, 5.0), "square cells");
    assert_same(gpu, &common::hills(70, 83, 400.0, 3.0, 7.5), "3 × 7.5 m cells");
    // Heights far from zero: the table's offset and double-double parts matter.
    let high = common::hills(50, 40, 30.0, 1.0, 1.0).map(|v| v + 8848.0);
    assert_same(gpu, &high, "high ground");
    assert_same(gpu, &common::hills(40, 1, 50.0, 1.0, 1.0), "one row");
    assert_same(gpu, &common::hills(1, 33, 50.0, 1.0, 1.0), "one column");
    assert_same(gpu, &Grid::new(1, 1, 7.0), "one cell");
    // Only what was asked: no slope, no TPI.
    let z = common::hills(20, 20, 10.0, 1.0, 1.0);
    let none = landform_maps(gpu, &z, false, &[]).unwrap();
    assert!(none.slope.is_none() && none.tpi.is_empty());
}

#[test]
fn gradients_at_the_ends_of_the_range_take_libms_branches() {
    let Some(gpu) = common::gpu() else { return };
    let base = common::hills(24, 20, 1.0, 1.0, 1.0);
    // hypot's scaled branches: gradients past 2^511 and below 2^-450, a zero component, one
    // component 2^64–2^67 times the other (the shortcut and its neighbourhood), overflow to ∞.
    let cases: Vec<(&str, Grid<f64>)> = vec![
        ("huge", base.map(|v| v * 1e160)),
        ("tiny", base.map(|v| v * 1e-140)),
        ("subnormal", base.map(|v| v * 1e-310)),
        ("overflowing", base.map(|v| v * 1e308)),
        ("east only", Grid::from_fn(24, 20, |x, _| x as f64 * 3.0)),
        (
            "far apart",
            Grid::from_fn(24, 20, |x, y| {
                x as f64 + y as f64 * 2f64.powi(-64 - (x % 4) as i32) * (1.0 + y as f64 / 7.0)
            }),
        ),
        ("flat", Grid::new(24, 20, 5.0)),
    ];
    for (what, z) in cases {
        let got = landform_maps(gpu, &z, true, &[]).unwrap().slope.unwrap();
        assert_eq!(differ(&got, &slope(&z)), 0, "{what}");
    }
}

#[test]
fn voids_stay_voids_and_leave_every_window() {
    let Some(gpu) = common::gpu() else { return };
    let mut z = common::hills(64, 48, 300.0, 2.0, 3.0);
    for y in 20..26 {
        for x in 30..37 {
            *z.get_mut(x, y) = f64::NAN;
        }
    }
    *z.get_mut(5, 5) = f64::NAN;
    *z.get_mut(63, 0) = f64::NAN;
    *z.get_mut(0, 47) = f64::NAN;
    assert_same(gpu, &z, "voids");
    let got = landform_maps(gpu, &z, true, &windows()[..1]).unwrap();
    assert!(got.slope.unwrap().get(5, 5).is_nan() && got.tpi[0].get(31, 21).is_nan());
    // A grid of voids but one cell: the windows around it hold only itself.
    let mut lone = Grid::new(9, 7, f64::NAN);
    *lone.get_mut(4, 3) = 12.0;
    assert_same(gpu, &lone, "one valid cell");
}

#[test]
fn weiss_classes_from_the_gpus_parts_are_the_cpus() {
    let Some(gpu) = common::gpu() else { return };
    let z = common::hills(90, 70, 600.0, 10.0, 10.0);
    let p = WeissParams::default();
    let small = TpiParams { window: p.small };
    let large = TpiParams { window: p.large };
    let got = landform_maps(gpu, &z, true, &[small, large]).unwrap();
    let classes = weiss_landform_parts(got.slope.as_ref().unwrap(), &got.tpi[0], &got.tpi[1], &p);
    let cpu = weiss_landform(&z, &p);
    assert_eq!(classes.data(), cpu.data());
    // Several classes, or the comparison says little.
    let mut seen = [false; 11];
    for &c in cpu.data() {
        seen[c as usize] = true;
    }
    assert!(seen.iter().filter(|&&s| s).count() >= 5, "classes seen: {seen:?}");
}

#[test]
fn a_grid_past_the_binding_limit_gives_the_same_bits() {
    if common::gpu().is_none() {
        return;
    }
    // The table of 96 × 80 cells is 97 × 81 f64 (62 856 bytes): bound in two halves under a
    // 32 KiB limit, as are the heights (61 440 bytes) and the map.
    let split = Gpu::with_binding_limit(32_768).expect("the test device again, with a lower limit");
    let mut z = common::hills(96, 80, 500.0, 4.0, 4.0);
    *z.get_mut(50, 42) = f64::NAN;
    assert_same(&split, &z, "split");
    assert!(split.split_active(), "the grid did not split");
}

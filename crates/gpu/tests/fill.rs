//! GPU ε depression filling against the CPU's Priority-Flood: bit-identical.
mod common;

use bozkir_core::Grid;
use bozkir_gpu::GpuError;
use bozkir_terrain::hydrology::priority_flood::fill_epsilon;

/// The GPU fill of `g` equals the CPU's bit for bit (NaN where the input is NaN); returns the
/// number of cells the fill raised.
fn check(g: &Grid<f64>) -> usize {
    let gpu = common::gpu().expect("checked by the caller");
    same_bits(g, &fill_epsilon(g), &bozkir_gpu::fill::fill_epsilon(gpu, g).unwrap())
}

/// `got` (GPU) equals `cpu` bit for bit (NaN where both are NaN); returns the number of cells of
/// `g` raised.
fn same_bits(g: &Grid<f64>, cpu: &Grid<f64>, got: &Grid<f64>) -> usize {
    assert_eq!((got.width(), got.height()), (g.width(), g.height()));
    let mut raised = 0;
    for (i, ((a, b), z)) in got.data().iter().zip(cpu.data()).zip(g.data()).enumerate() {
        assert!(
            a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
            "{}x{}: cell ({}, {}): GPU {a:e}, CPU {b:e}, ground {z:e}",
            g.width(),
            g.height(),
            i % g.width(),
            i / g.width()
        );
        raised += (a > z) as usize;
    }
    raised
}

#[test]
fn noise_terrain_with_pits() {
    if common::gpu().is_none() {
        return;
    }
    // Value-noise hills have closed hollows: lakes several tiles wide.
    let g = common::hills(211, 157, 300.0, 10.0, 10.0);
    assert!(check(&g) > 100);
    // Integer heights: exact ties between lake cells and the spill, and flats.
    let g = common::hills(96, 130, 40.0, 5.0, 5.0).map(|v| v.round());
    assert!(check(&g) > 50);
}

#[test]
fn sea_at_zero_and_below() {
    if common::gpu().is_none() {
        return;
    }
    // A sea clamped to 0 reaching the border: raised cells start at the smallest subnormal
    // (next_up(0)), and every border cell of the sea is a seed at the same level.
    let g = common::hills(150, 120, 200.0, 30.0, 30.0).map(|v| (v - 120.0).max(0.0));
    assert!(check(&g) > 0);
    // Negative heights (the ulps shrink towards zero) and powers of two.
    let g = common::hills(100, 140, 64.0, 30.0, 30.0).map(|v| (v - 64.0).clamp(-8.0, -0.5));
    assert!(check(&g) > 0);
}

#[test]
fn one_flat_many_tiles() {
    if common::gpu().is_none() {
        return;
    }
    // Every interior cell is raised by its distance to the border (in ulps of 5): the wave
    // crosses several tiles, over several passes.
    let g = Grid::new(300, 170, 5.0);
    let raised = check(&g);
    assert_eq!(raised, 298 * 168);
}

#[test]
fn serpentine_lake_needs_many_passes() {
    if common::gpu().is_none() {
        return;
    }
    // Walls every other row with the gap at alternating ends: the lake is one winding channel
    // thousands of cells long, far past what one pass of the tiles carries, so the submission
    // loop runs more than once. Its outlet is a single cut in the border.
    let (w, h) = (130, 131);
    let g = Grid::from_fn(w, h, |x, y| {
        if x == 0 || y == 0 || x + 1 == w || y + 1 == h {
            if (x, y) == (1, 0) {
                return 1.0;
            }
            return 100.0;
        }
        if y % 2 == 0 {
            let gap = if (y / 2) % 2 == 0 { w - 2 } else { 1 };
            if x != gap {
                return 100.0;
            }
        }
        0.0
    });
    let raised = check(&g);
    assert!(raised > 60 * 128, "{raised}");
}

#[test]
fn nodata_holes_drain_like_the_border() {
    if common::gpu().is_none() {
        return;
    }
    let mut g = common::hills(120, 90, 250.0, 10.0, 10.0);
    for y in 30..40 {
        for x in 50..63 {
            *g.get_mut(x, y) = f64::NAN;
        }
    }
    *g.get_mut(5, 5) = f64::NAN;
    assert!(check(&g) > 0);
}

#[test]
fn tiny_grids() {
    if common::gpu().is_none() {
        return;
    }
    for (w, h) in [(1, 1), (1, 5), (2, 3), (3, 3), (33, 1), (33, 34)] {
        let g = Grid::from_fn(w, h, |x, y| if x == w / 2 && y == h / 2 { -1.0 } else { (x * 7 + y * 3) as f64 });
        check(&g);
    }
    // The centre pit of a 3×3 rises to one ulp above its lowest neighbour.
    let g = Grid::from_fn(3, 3, |x, y| if (x, y) == (1, 1) { 0.0 } else { 2.0 + x as f64 });
    check(&g);
    let gpu = common::gpu().unwrap();
    let f = bozkir_gpu::fill::fill_epsilon(gpu, &g).unwrap();
    assert_eq!(*f.get(1, 1), f64::next_up(2.0));
}

#[test]
fn infinite_heights_are_refused() {
    let Some(gpu) = common::gpu() else { return };
    let mut g = Grid::new(8, 8, 1.0);
    *g.get_mut(3, 4) = f64::INFINITY;
    match bozkir_gpu::fill::fill_epsilon(gpu, &g) {
        Err(GpuError::Unsupported(m)) => assert!(m.contains("(3, 4)"), "{m}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn drained_cells_start_final() {
    let Some(gpu) = common::gpu() else { return };
    // A dome: every cell has a strictly descending path to the border, so the start is already
    // the fill and the first pass moves nothing.
    let dome = Grid::from_fn(200, 150, |x, y| {
        let (dx, dy) = (x as f64 - 99.5, y as f64 - 74.5);
        1000.0 - (dx * dx + dy * dy).sqrt()
    });
    let (f, passes) = bozkir_gpu::fill::fill_epsilon_passes(gpu, &dome).unwrap();
    assert_eq!(passes, 1);
    assert_eq!(f.data(), dome.data());
    // One pit in the dome's flank: only its catchment is relaxed, from its rim, so a few passes
    // do (from the border it would take at least 75 / 32 tile widths).
    let mut pitted = dome.clone();
    *pitted.get_mut(60, 70) -= 50.0;
    let raised = check(&pitted);
    assert_eq!(raised, 1);
    let (_, passes) = bozkir_gpu::fill::fill_epsilon_passes(gpu, &pitted).unwrap();
    assert_eq!(passes, 2, "one pass raises the pit, the next moves nothing");
}

/// The profiles' fixed-step fill on the GPU equals the CPU's flood bit for bit; returns the
/// number of cells it raised.
fn check_fixed(g: &Grid<f64>) -> usize {
    use bozkir_terrain::profiles::{fill_fixed_step, fixed_step};
    let gpu = common::gpu().expect("checked by the caller");
    let got = bozkir_gpu::fill::fill_fixed_step(gpu, g, fixed_step(g)).unwrap();
    same_bits(g, &fill_fixed_step(g), &got)
}

#[test]
fn fixed_step_fill_is_the_cpu_flood_bit_for_bit() {
    if common::gpu().is_none() {
        return;
    }
    // Hollows several tiles wide, with slopes inside them between the step's ramps (cells above
    // their lowest neighbour but below it plus a step keep their height).
    let g = common::hills(211, 157, 300.0, 10.0, 10.0);
    assert!(check_fixed(&g) > 100);
    // Unit-range fields as the profiles fill them, integer-stepped (ties everywhere).
    let g = common::hills(96, 130, 1.0, 5.0, 5.0).map(|v| (v * 20.0).round() / 20.0);
    assert!(check_fixed(&g) > 50);
    // One flat: every interior cell raised by its distance to the border, in steps.
    let g = Grid::new(150, 97, 0.25);
    assert_eq!(check_fixed(&g), 148 * 95);
    // A real profile's base surface with its pits.
    let p = bozkir_terrain::profiles::profile("canyon").unwrap();
    let z = bozkir_terrain::profiles::base_surface(160, 3, &p.params);
    assert!(check_fixed(&Grid::from_vec(160, 160, z)) > 100);
}

#[test]
fn fixed_step_fill_refuses_what_it_cannot_solve() {
    let Some(gpu) = common::gpu() else { return };
    let g = Grid::new(8, 8, 1.0);
    for step in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let e = bozkir_gpu::fill::fill_fixed_step(gpu, &g, step).unwrap_err();
        assert!(matches!(e, GpuError::Unsupported(_)), "{e}");
    }
    let mut nan = g.clone();
    nan.data_mut()[10] = f64::NAN;
    assert!(matches!(bozkir_gpu::fill::fill_fixed_step(gpu, &nan, 0.1), Err(GpuError::Unsupported(_))));
    // A step that vanishes against the heights: more than one solution, left to the CPU.
    let far = Grid::new(8, 8, 1e12);
    let e = bozkir_gpu::fill::fill_fixed_step(gpu, &far, 1e-6).unwrap_err();
    assert!(e.to_string().contains("vanishes"), "{e}");
}

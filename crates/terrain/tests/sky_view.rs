//! The fast sky-view path (`landform::openness::sky_view`) against the reference
//! `openness(...).sky_view`: the contract is bit-identical results (NaN for NaN) on every grid,
//! including tiny grids, grids smaller than the ray radius, `dx ≠ dy`, odd direction counts,
//! explicit steps, and heights that force the per-cell fallback (NaN, ±∞, |z| > 1e300).

use bozkir_core::Grid;
use bozkir_core::Progress;
use bozkir_terrain::landform::openness::{openness, sky_view, sky_view_with_progress, OpennessParams};
use std::sync::atomic::{AtomicU64, Ordering};

/// Deterministic xorshift in [0, 1).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn same(a: &Grid<f64>, b: &Grid<f64>) -> Result<(), String> {
    assert_eq!((a.width(), a.height()), (b.width(), b.height()));
    for (i, (x, y)) in a.data().iter().zip(b.data()).enumerate() {
        if x.to_bits() != y.to_bits() && !(x.is_nan() && y.is_nan()) {
            return Err(format!("cell {i} ({}, {}): {x:e} vs {y:e}", i % a.width(), i / a.width()));
        }
    }
    Ok(())
}

fn check(z: &Grid<f64>, p: &OpennessParams, what: &str) {
    let fast = sky_view(z, p);
    let slow = openness(z, p).sky_view;
    if let Err(e) = same(&fast, &slow) {
        panic!("{what}: {}×{} dx {} dy {} {p:?}: {e}", z.width(), z.height(), z.dx, z.dy);
    }
}

fn params() -> Vec<OpennessParams> {
    let mut v = Vec::new();
    for directions in [1, 3, 4, 8, 16, 17, 32] {
        for radius in [0.0, 0.5, 1.0, 2.5, 6.0, 16.0] {
            v.push(OpennessParams { directions, radius, step: None });
        }
    }
    v.push(OpennessParams { directions: 16, radius: 9.0, step: Some(0.7) });
    v.push(OpennessParams { directions: 16, radius: 9.0, step: Some(3.0) });
    v.push(OpennessParams { directions: 12, radius: f64::INFINITY, step: None });
    v.push(OpennessParams { directions: 0, radius: 5.0, step: Some(-1.0) });
    v
}

#[test]
fn random_grids_bit_identical() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let sizes = [(1, 1), (1, 7), (7, 1), (2, 2), (3, 5), (6, 4), (13, 9), (24, 31)];
    let cells = [(1.0, 1.0), (2.0, 0.5), (0.3, 1.7), (30.0, 30.0)];
    for &(w, h) in &sizes {
        for &(dx, dy) in &cells {
            let z = Grid::from_fn(w, h, |_, _| 100.0 * rng.next() - 20.0).with_cell_size(dx, dy);
            for p in params() {
                let p = OpennessParams { radius: p.radius * dx.max(dy), step: p.step.map(|s| s * dx.min(dy)), ..p };
                check(&z, &p, "random");
            }
        }
    }
}

#[test]
fn structured_grids_bit_identical() {
    let (w, h) = (57, 43);
    let grids: Vec<(&str, Grid<f64>)> = vec![
        ("flat", Grid::new(w, h, 321.0)),
        ("zero", Grid::new(w, h, 0.0)),
        ("negative zero", Grid::new(w, h, -0.0)),
        ("tilted", Grid::from_fn(w, h, |x, y| 0.3 * x as f64 - 0.7 * y as f64)),
        ("waves", Grid::from_fn(w, h, |x, y| 40.0 * (x as f64 * 0.37).sin() * (y as f64 * 0.23).cos())),
        ("pit", Grid::from_fn(w, h, |x, y| if (x, y) == (20, 20) { -30.0 } else { 5.0 })),
        ("spike", Grid::from_fn(w, h, |x, y| if (x, y) == (3, 40) { 1e6 } else { 0.0 })),
        ("steps", Grid::from_fn(w, h, |x, y| ((x / 5 + y / 7) % 4) as f64 * 12.5)),
        ("big", Grid::from_fn(w, h, |x, y| 1e300 * (((x * 7 + y * 3) % 5) as f64 - 2.0) / 2.0)),
    ];
    for (name, g) in grids {
        for (dx, dy) in [(1.0, 1.0), (3.0, 2.0), (0.5, 4.0)] {
            let z = g.clone().with_cell_size(dx, dy);
            for p in [
                OpennessParams { radius: 16.0 * dx.max(dy), ..Default::default() },
                OpennessParams { directions: 7, radius: 30.0, step: None },
                OpennessParams { directions: 24, radius: 200.0, step: Some(1.3) },
            ] {
                check(&z, &p, name);
            }
        }
    }
}

/// Heights outside the fast path's domain take the per-cell path: still the reference bits,
/// NaN where the reference has NaN.
#[test]
fn non_finite_and_huge_heights_match_reference() {
    let mut rng = Rng(12345);
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e305, -f64::MAX] {
        let mut z = Grid::from_fn(23, 19, |_, _| 50.0 * rng.next()).with_cell_size(1.0, 2.0);
        *z.get_mut(11, 9) = bad;
        *z.get_mut(0, 18) = bad;
        for p in params().into_iter().step_by(5) {
            check(&z, &p, &format!("bad {bad:e}"));
        }
    }
}

/// The analysis defaults (16 directions, radius 16 cells, step min(dx, dy)) on a grid large enough
/// to have a wide interior, with anisotropic cells.
/// Voids (NaN) in a grid taller than the rays: rows far from them take the fast path, rows
/// near them the per-cell one; every cell keeps the reference bits.
#[test]
fn voids_mix_fast_and_per_cell_rows() {
    let mut rng = Rng(4242);
    let mut z = Grid::from_fn(40, 90, |_, _| 20.0 * rng.next()).with_cell_size(1.0, 1.25);
    for (x, y) in [(5, 0), (20, 44), (39, 45), (0, 89)] {
        *z.get_mut(x, y) = f64::NAN;
    }
    for p in [
        OpennessParams { radius: 8.0, ..Default::default() },
        OpennessParams { directions: 9, radius: 3.0, step: Some(0.6) },
    ] {
        check(&z, &p, "voids");
    }
}

#[test]
fn analysis_defaults_on_a_larger_grid() {
    let mut rng = Rng(777);
    let mut z = Grid::from_fn(150, 97, |x, y| 8.0 * (x as f64 * 0.11).sin() + 0.05 * (x * y) as f64);
    for v in z.data_mut() {
        *v += 3.0 * rng.next();
    }
    for (dx, dy) in [(1.0, 1.0), (10.0, 12.5)] {
        let z = z.clone().with_cell_size(dx, dy);
        check(&z, &OpennessParams { radius: 16.0 * dx.max(dy), ..Default::default() }, "defaults");
    }
}

/// Invariants independent of the reference: 1 on a plane, values in [0, 1].
#[test]
fn plane_is_one_and_values_are_in_range() {
    let z = Grid::new(9, 5, 17.0).with_cell_size(2.0, 3.0);
    assert!(sky_view(&z, &OpennessParams::default()).data().iter().all(|&v| v == 1.0));
    let mut rng = Rng(5);
    let z = Grid::from_fn(30, 30, |_, _| 100.0 * rng.next());
    let s = sky_view(&z, &OpennessParams { radius: 10.0, ..Default::default() });
    assert!(s.data().iter().all(|v| (0.0..=1.0).contains(v)));
    assert!(s.data().iter().any(|&v| v < 0.9));
}

/// Analytical: a one-cell pit `D` deep on 1 m cells, 4 axis rays of one sample at 1 m: every
/// horizon is at `atan(D)`, so SVF = 1 − D/√(1+D²).
#[test]
fn pit_with_axis_rays_is_analytical() {
    for depth in [0.5, 1.0, 3.0] {
        let mut z = Grid::new(5, 5, 10.0);
        *z.get_mut(2, 2) = 10.0 - depth;
        let s = sky_view(&z, &OpennessParams { directions: 4, radius: 1.0, step: None });
        let want = 1.0 - depth / (1.0f64 + depth * depth).sqrt();
        assert!((s.get(2, 2) - want).abs() < 1e-15, "{} vs {want}", s.get(2, 2));
        // The neighbours look down into the pit or level: fully open.
        assert_eq!(*s.get(1, 2), 1.0);
    }
}

#[test]
fn same_bits_for_any_thread_count() {
    let mut rng = Rng(99);
    let z = Grid::from_fn(70, 41, |_, _| 30.0 * rng.next()).with_cell_size(1.0, 1.5);
    let p = OpennessParams { radius: 12.0, ..Default::default() };
    let run = |n: usize| rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap().install(|| sky_view(&z, &p));
    let one = run(1);
    for n in [2, 3, 5] {
        same(&one, &run(n)).unwrap();
    }
}

struct Count(AtomicU64, u64);
impl Progress for Count {
    fn report(&self, stage: &str, _done: u64, total: u64) {
        assert_eq!((stage, total), ("sky view", self.1));
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn progress_reports_every_row() {
    let z = Grid::new(10, 13, 1.0);
    let c = Count(AtomicU64::new(0), 13);
    sky_view_with_progress(&z, &OpennessParams::default(), &c);
    assert_eq!(c.0.load(Ordering::Relaxed), 13);
}

//! Landform operators on DEMs with voids (NaN = no data): voids stay voids, their neighbours
//! are computed from the valid cells only, and grids without voids are unchanged.

use bozkir_core::Grid;
use bozkir_terrain::landform::{slope, tpi, weiss_landform, TpiParams, WeissParams};

fn rough(w: usize, h: usize) -> Grid<f64> {
    Grid::from_fn(w, h, |x, y| {
        let (x, y) = (x as f64, y as f64);
        (x * 0.43).sin() * 12.0 + (y * 0.29).cos() * 9.0 + 0.05 * x * y + 300.0
    })
    .with_cell_size(10.0, 7.5)
}

#[test]
fn tpi_leaves_voids_out_of_every_window() {
    let mut z = rough(40, 31);
    for (x, y) in [(5, 5), (6, 5), (20, 15), (0, 0), (39, 30), (21, 15), (21, 16)] {
        *z.get_mut(x, y) = f64::NAN;
    }
    let r = 3usize;
    let t = tpi(&z, &TpiParams::box_cells(r));
    for y in 0..z.height() {
        for x in 0..z.width() {
            let c = *z.get(x, y);
            let got = *t.get(x, y);
            if c.is_nan() {
                assert!(got.is_nan(), "void ({x}, {y}) got {got}");
                continue;
            }
            let (mut s, mut n) = (0.0, 0usize);
            for yy in y.saturating_sub(r)..(y + r + 1).min(z.height()) {
                for xx in x.saturating_sub(r)..(x + r + 1).min(z.width()) {
                    let v = *z.get(xx, yy);
                    if !v.is_nan() {
                        s += v;
                        n += 1;
                    }
                }
            }
            let want = c - s / n as f64;
            assert!((got - want).abs() < 1e-9, "({x}, {y}): {got} vs {want}");
        }
    }
}

#[test]
fn slope_reads_a_void_neighbour_as_the_centre_and_voids_stay_void() {
    // A plane rising east; a void at (5, 5).
    let plane = Grid::from_fn(11, 11, |x, _| x as f64 * 2.0).with_cell_size(1.0, 1.0);
    let mut z = plane.clone();
    *z.get_mut(5, 5) = f64::NAN;
    let s = slope(&z);
    assert!(s.get(5, 5).is_nan());
    // Far from the void: the plane's slope (2 m per m).
    assert!((s.get(2, 2) - 2.0).abs() < 1e-12);
    // Beside it: finite, the void read as the centre's height (a one-sided difference).
    for (x, y) in [(4, 5), (6, 5), (5, 4), (5, 6), (4, 4), (6, 6)] {
        let v = *s.get(x, y);
        assert!(v.is_finite() && v > 0.5 && v < 2.5, "({x}, {y}): {v}");
    }
    // Without voids nothing changed: the same bits as before on the full plane.
    let full = slope(&plane);
    assert!(full.data().iter().all(|&v| (v - 2.0).abs() < 1e-12 || v == 1.0));
    // Weiss classes: 0 (no data) only at the void.
    let lf = weiss_landform(&z, &WeissParams::default());
    for (i, &c) in lf.data().iter().enumerate() {
        assert_eq!(c == 0, i == 5 * 11 + 5, "cell {i} class {c}");
    }
}

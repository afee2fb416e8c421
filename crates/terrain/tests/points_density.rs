//! The density gridding of point clouds (issue 24): the mean spacing and the cell size it gives,
//! the occupied share, and the inverse-distance-weighted gap fill.

use bozkir_terrain::points::{
    cell_size_for, cell_size_for_share, height_from_points, mean_spacing, occupied_cells, tidy_up, Cells, Frame,
    Gridding, HoleFill, IDW_K,
};

/// A deterministic uniform draw in [0, 1) from a counter (SplitMix64).
fn unit(k: u64) -> f64 {
    let mut z = k.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
}

/// An `n × n` lattice `s` apart, each point moved by up to ±`jitter`·s along x and y, minus the
/// points for which `hole` holds.
fn lattice(n: usize, s: f64, jitter: f64, hole: impl Fn(f64, f64) -> bool) -> Vec<[f64; 3]> {
    let mut pts = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let k = (i * n + j) as u64;
            let x = i as f64 * s + (2.0 * unit(2 * k) - 1.0) * jitter * s;
            let y = j as f64 * s + (2.0 * unit(2 * k + 1) - 1.0) * jitter * s;
            if !hole(x, y) {
                pts.push([x, y, 0.0]);
            }
        }
    }
    pts
}

#[test]
fn a_jittered_lattice_gives_its_spacing_and_a_tidy_cell() {
    // Cells of 1.5 spacings, rounded up: 2.83 → 3, 0.67 → 0.8, 3.58 → 4, 10.9 → 12.
    for (s, want) in [(1.9, 3.0), (0.45, 0.8), (2.4, 4.0), (7.3, 12.0)] {
        let pts = lattice(150, s, 0.3, |_, _| false);
        let (sp, cell) = cell_size_for(&pts).unwrap();
        assert_eq!(sp.points, 150 * 150);
        // The bounding box is about 149 s wide: the estimate is s within about 1 %.
        assert!((sp.spacing / s - 1.0).abs() < 0.015, "{s}: {}", sp.spacing);
        assert_eq!(cell, want, "spacing {s}");
    }
}

#[test]
fn a_survey_with_a_hole_keeps_its_spacing() {
    // The north-east quarter is missing: over the bounding box the spacing would read
    // √(4/3) ≈ 1.155 times too large; over the occupied coarse cells it stays near s.
    let s = 1.9;
    let side = 150.0 * s;
    let pts = lattice(150, s, 0.3, |x, y| x > side / 2.0 && y > side / 2.0);
    let sp = mean_spacing(&pts).unwrap();
    assert!((sp.spacing / s - 1.0).abs() < 0.03, "{}", sp.spacing);
    assert_eq!(cell_size_for(&pts).unwrap().1, 3.0);
    // Degenerate clouds have no spacing.
    assert!(mean_spacing(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]]).is_none());
    assert!(mean_spacing(&[[0.0, 0.0, 0.0]]).is_none());
    assert!(mean_spacing(&[[f64::NAN, 0.0, 0.0], [1.0, 1.0, 0.0]]).is_none());
}

#[test]
fn tidy_values_climb_the_ladder() {
    let ladder = [1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0];
    for w in ladder.windows(2) {
        assert_eq!(tidy_up(w[0]), w[0]);
        assert_eq!(tidy_up((w[0] + w[1]) / 2.0), w[1]);
    }
    assert_eq!(tidy_up(0.031), 0.04);
    assert_eq!(tidy_up(0.3), 0.3);
    assert_eq!(tidy_up(2.0000001), 2.5);
}

#[test]
fn the_occupied_share_counts_cells_holding_a_point() {
    // 50 × 50 points 2 apart in cells of 1: every point in its own cell, (2·50 − 1)² cells.
    let pts = lattice(50, 2.0, 0.0, |_, _| false);
    let cells = Cells::cover(&pts, 1.0).unwrap();
    assert_eq!((cells.cols, cells.rows), (99, 99));
    let out = height_from_points(&pts, &Gridding { fill: HoleFill::Keep, ..Gridding::cells(cells) });
    assert_eq!(out.empty, 99 * 99 - 2500);
    assert_eq!(out.occupied_share(), 2500.0 / 9801.0);
    assert_eq!(occupied_cells(&pts, 1.0), Some((2500, 9801.0)));
    // Cells of 1.2: 82² cells (2500 / 6724 = 37 %); of 1.5: 66² (57 %) — the first tidy size to
    // reach half.
    assert_eq!(occupied_cells(&pts, 1.5), Some((2500, 66.0 * 66.0)));
    assert_eq!(cell_size_for_share(&pts, 1.0, 0.5), Some(1.5));
    assert_eq!(cell_size_for_share(&pts, 1.0, 0.3), Some(1.2));
    assert_eq!(cell_size_for_share(&pts, 1.1, 0.3), Some(1.2));
}

/// One point at the centre of each listed cell of a `cols × 1` row of cells of side 1.
fn row(cols: usize, known: &[(usize, f64)], fill: HoleFill) -> Vec<f64> {
    let cells = Cells { x_min: 0.0, y_max: 1.0, cell: 1.0, cols, rows: 1 };
    let pts: Vec<[f64; 3]> = known.iter().map(|&(c, z)| [c as f64 + 0.5, 0.5, z]).collect();
    height_from_points(&pts, &Gridding { fill, ..Gridding::cells(cells) }).heights.data().to_vec()
}

#[test]
fn idw_weighs_by_the_inverse_square_distance() {
    // Cells 0 and 3 known (0 and 3): cell 1 is 1 and 2 away, weights 1 and 1/4 → 0.6; cell 2 → 2.4.
    // (Power 1 would give 1.0 and 2.0, linear interpolation 1 and 2.)
    let h = row(4, &[(0, 0.0), (3, 3.0)], HoleFill::Idw);
    assert_eq!(h[0], 0.0);
    assert!((h[1] - 0.6).abs() < 1e-12 && (h[2] - 2.4).abs() < 1e-12, "{h:?}");
    assert_eq!(h[3], 3.0);
    // Only the 8 nearest count: cell 9's nearest are cells 8..=1 (all 0), not cell 0 (1000).
    assert_eq!(IDW_K, 8);
    let mut known: Vec<(usize, f64)> = (1..9).map(|c| (c, 0.0)).collect();
    known.push((0, 1000.0));
    assert_eq!(row(10, &known, HoleFill::Idw)[9], 0.0);
    known.push((11, 0.0)); // now cell 0 is the 10th nearest of cell 9; cell 10 too
    let h = row(12, &known, HoleFill::Idw);
    assert_eq!((h[9], h[10]), (0.0, 0.0));
    // Keep leaves the hole.
    assert!(row(4, &[(0, 0.0), (3, 3.0)], HoleFill::Keep)[1].is_nan());
}

/// Points on the cell centres of a 60 × 40 grid of cells of 0.5 on a plane, minus a disc.
fn plane_with_hole(z: impl Fn(f64, f64) -> f64) -> (Vec<[f64; 3]>, Cells) {
    let cells = Cells { x_min: 0.0, y_max: 20.0, cell: 0.5, cols: 60, rows: 40 };
    let mut pts = Vec::new();
    for r in 0..40 {
        for c in 0..60 {
            let (x, y) = (0.25 + c as f64 * 0.5, 20.0 - 0.25 - r as f64 * 0.5);
            if (x - 15.0).hypot(y - 10.0) > 2.2 && !(x > 26.0 && y < 3.0) {
                pts.push([x, y, z(x, y)]);
            }
        }
    }
    (pts, cells)
}

#[test]
fn idw_fills_a_plane_and_keeps_a_constant() {
    let plane = |x: f64, y: f64| 0.3 * x - 0.2 * y + 5.0;
    let (pts, cells) = plane_with_hole(plane);
    let out = height_from_points(&pts, &Gridding::cells(cells));
    assert_eq!(out.empty, 60 * 40 - pts.len());
    assert!(out.empty > 60, "a hole of {} cells", out.empty);
    let g = &out.heights;
    let (mut inside, mut corner): (f64, f64) = (0.0, 0.0);
    let (lo, hi) = pts.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p[2]), b.max(p[2])));
    for r in 0..40 {
        for c in 0..60 {
            let (x, y) = (0.25 + c as f64 * 0.5, 20.0 - 0.25 - r as f64 * 0.5);
            let (v, e) = (*g.get(c, r), (g.get(c, r) - plane(x, y)).abs());
            assert!((lo..=hi).contains(&v), "({c},{r}) {v} outside the known {lo}..{hi}");
            if x > 26.0 && y < 3.0 {
                corner = corner.max(e);
            } else {
                inside = inside.max(e);
            }
        }
    }
    // The disc (radius 2.2) is surrounded, but a cell off its centre sees the nearest part of
    // the rim: the error stays below the plane's rise over the radius (0.36 · 2.2 = 0.79). The
    // corner gap sees its neighbours on one side only: IDW does not extrapolate, it flattens
    // towards them (never beyond the known range, checked above).
    assert!(inside < 0.36 * 2.2, "inside {inside}");
    assert!(corner < 1.0, "corner {corner}");
    let (flat, cells) = plane_with_hole(|_, _| 7.25);
    let g = height_from_points(&flat, &Gridding::cells(cells)).heights;
    assert!(g.data().iter().all(|&v| (v - 7.25).abs() < 1e-12));
}

#[test]
fn idw_fills_single_missing_cells_of_a_plane_exactly() {
    // Every 5th cell of every 5th row missing: each sees the full ring of 4 + 4 neighbours, whose
    // weighted mean is the plane's value at the centre (up to rounding).
    let plane = |x: f64, y: f64| 0.3 * x - 0.2 * y + 5.0;
    let cells = Cells { x_min: 0.0, y_max: 20.0, cell: 0.5, cols: 40, rows: 40 };
    let mut pts = Vec::new();
    for r in 0..40 {
        for c in 0..40 {
            if !(r % 5 == 2 && c % 5 == 2) {
                let (x, y) = (0.25 + c as f64 * 0.5, 20.0 - 0.25 - r as f64 * 0.5);
                pts.push([x, y, plane(x, y)]);
            }
        }
    }
    let out = height_from_points(&pts, &Gridding::cells(cells));
    assert_eq!(out.empty, 64);
    for r in (2..40).step_by(5) {
        for c in (2..40).step_by(5) {
            let (x, y) = (0.25 + c as f64 * 0.5, 20.0 - 0.25 - r as f64 * 0.5);
            assert!((out.heights.get(c, r) - plane(x, y)).abs() < 1e-9, "({c},{r})");
        }
    }
}

#[test]
fn idw_is_the_same_on_any_number_of_threads() {
    let pts: Vec<[f64; 3]> = (0..3000u64)
        .map(|k| {
            let (x, y) = (unit(3 * k) * 300.0, unit(3 * k + 1) * 200.0);
            [x, y, (x * 0.05).sin() * 10.0 + y * 0.02 + unit(3 * k + 2)]
        })
        .collect();
    let g = Gridding::cells(Cells::cover(&pts, 2.0).unwrap());
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| height_from_points(&pts, &g))
    };
    let one = run(1);
    assert!(one.occupied_share() < 0.3, "mostly gaps: {}", one.occupied_share());
    let bits =
        |h: &bozkir_terrain::points::PointHeights| h.heights.data().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert!(one.heights.data().iter().all(|v| v.is_finite()));
    for t in [2, 4, 7] {
        assert_eq!(bits(&one), bits(&run(t)), "{t} threads");
    }
    // The robust frame fills the same way.
    let robust = Gridding { frame: Frame::Robust, ..Gridding::inventory(64) };
    let a =
        rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(|| height_from_points(&pts, &robust));
    assert_eq!(bits(&a), bits(&height_from_points(&pts, &robust)));
}

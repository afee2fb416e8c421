//! Capture screening: synthetic ground, a figurine, needles and a handful of splats.

mod common;

use bozkir_splat::capture::screen::{screen, ScreenParams, Verdict};
use bozkir_splat::formats::load;
use bozkir_splat::quat::{from_axis_angle, mat_vec, mul, to_matrix};
use bozkir_splat::Splats;
use common::{data, Lcg};

/// A 1.5 m × 1.5 m plot of flat discs on bumpy ground, tilted `tilt` degrees about x, with a
/// few stones: a ground capture.
fn ground(n_side: usize, tilt: f64, seed: u64) -> Splats {
    let mut r = Lcg(seed);
    let q = from_axis_angle([1.0, 0.0, 0.0], tilt.to_radians());
    let m = to_matrix(q);
    let step = 1.5 / n_side as f32;
    let mut s = Splats::with_capacity(n_side * n_side, 0);
    for i in 0..n_side {
        for j in 0..n_side {
            let (x, y) = (i as f32 * step + r.range(-0.3, 0.3) * step, j as f32 * step + r.range(-0.3, 0.3) * step);
            let z = 0.01 * (x * 7.0).sin() * (y * 5.0).cos() + r.range(-0.003, 0.003);
            let p = mat_vec(&m, [f64::from(x), f64::from(y), f64::from(z)]);
            let spin = from_axis_angle([0.0, 0.0, 1.0], f64::from(r.range(0.0, std::f32::consts::TAU)));
            let rot = mul(q, spin).map(|v| v as f32);
            let size = step * r.range(0.8, 1.6);
            s.push_decoded(
                p.map(|v| v as f32),
                [size, size * r.range(0.5, 1.0), size * 0.1],
                rot,
                r.range(0.3, 1.0),
                [r.range(-0.5, 0.5), r.range(-0.5, 0.2), r.range(-0.8, 0.0)],
                &[],
            );
        }
    }
    s
}

#[test]
fn flat_ground_looks_like_ground_and_its_tilt_is_found() {
    let s = ground(80, 12.0, 1);
    let r = screen(&s, &ScreenParams::default());
    assert_eq!(r.verdict, Verdict::LooksLikeGround, "{:?}", r.reasons);
    assert!(r.reasons.is_empty());
    assert_eq!(r.count, 6400);
    assert!(r.plane.planarity < 0.01, "{}", r.plane.planarity);
    assert_eq!(r.plane.up_axis, 2);
    assert!((r.plane.tilt_deg - 12.0).abs() < 0.5, "tilt {}", r.plane.tilt_deg);
    assert!(r.columns.occupied_share > 0.9, "{}", r.columns.occupied_share);
    assert!(r.columns.thickness < 0.03, "{}", r.columns.thickness);
    assert_eq!(r.size_spacing.duplicate_share, 0.0);
    // Discs of size 0.8–1.6 steps, spacing about one step.
    assert!((0.6..2.0).contains(&r.size_spacing.ratio), "{:?}", r.size_spacing);
    assert!((5.0..25.0).contains(&r.anisotropy.median), "{:?}", r.anisotropy);
    assert!((r.opacity.histogram.iter().sum::<u64>()) == 6400);
    assert!((r.opacity.below_0_1 + r.opacity.between + r.opacity.above_0_9 - 1.0).abs() < 1e-12);
    assert!(r.opacity.below_0_1 == 0.0 && (0.55..0.75).contains(&r.opacity.median));
}

#[test]
fn stand_up_ground_finds_the_other_axis() {
    let r = screen(&ground(60, 90.0, 2), &ScreenParams::default());
    assert_eq!(r.plane.up_axis, 1);
    assert!(r.plane.tilt_deg < 1.0);
    assert_eq!(r.verdict, Verdict::LooksLikeGround, "{:?}", r.reasons);
}

#[test]
fn the_figurine_is_probably_not_ground() {
    let s = load(&data("splat/luigi.ply")).unwrap();
    let r = screen(&s, &ScreenParams::default());
    assert_eq!(r.count, 14_526);
    assert_eq!(r.verdict, Verdict::ProbablyNotGround, "{:?}", r.reasons);
    // Its lowest band is a flat slice (planarity below 0.05), but its columns are deep.
    assert!(r.columns.thickness > 0.05, "{:?}", r.columns);
    assert!(r.reasons.iter().any(|m| m.contains("layers")), "{:?}", r.reasons);
    // Over half its splats sit exactly on another one.
    assert!(r.size_spacing.duplicate_share > 0.5, "{:?}", r.size_spacing);
}

#[test]
fn needles_are_probably_not_ground() {
    let mut s = ground(60, 0.0, 3);
    let mut t = Splats::new(0);
    for i in 0..s.len() {
        let sc = s.scales()[i];
        t.push_decoded(
            s.positions()[i],
            [sc[0] * 3.0, sc[0] / 400.0, sc[0] / 400.0],
            s.rotations()[i],
            0.8,
            [0.0; 3],
            &[],
        );
    }
    s = t;
    let r = screen(&s, &ScreenParams::default());
    assert_eq!(r.verdict, Verdict::ProbablyNotGround);
    assert!(r.anisotropy.median > 500.0 && r.anisotropy.share_over_1000 > 0.1, "{:?}", r.anisotropy);
}

#[test]
fn few_splats_or_holes_are_too_sparse() {
    let r = screen(&ground(30, 0.0, 4), &ScreenParams::default());
    assert_eq!(r.verdict, Verdict::TooSparse);
    assert!(r.reasons[0].contains("900 splats"), "{:?}", r.reasons);
    // Tiny splats far apart: holes.
    let g = ground(150, 0.0, 5);
    let mut t = Splats::new(0);
    for i in 0..g.len() {
        t.push_decoded(g.positions()[i], [0.001, 0.001, 0.0002], g.rotations()[i], 0.9, [0.0; 3], &[]);
    }
    let r = screen(&t, &ScreenParams::default());
    assert_eq!(r.verdict, Verdict::TooSparse);
    assert!(r.size_spacing.ratio < 0.2, "{:?}", r.size_spacing);
    // A ring of ground (most columns empty).
    let keep: Vec<usize> = (0..g.len())
        .filter(|&i| {
            let p = g.positions()[i];
            let d = ((p[0] - 0.75).powi(2) + (p[1] - 0.75).powi(2)).sqrt();
            (0.68..0.75).contains(&d)
        })
        .collect();
    let ring = g.subset(&keep);
    let r = screen(&ring, &ScreenParams::default());
    assert!(r.columns.occupied_share < 0.3, "{}", r.columns.occupied_share);
    assert_eq!(r.verdict, Verdict::TooSparse, "{:?}", r.reasons);
    assert!(r.reasons.iter().any(|m| m.contains("columns")), "{:?}", r.reasons);
    assert_eq!(screen(&Splats::new(0), &ScreenParams::default()).verdict, Verdict::TooSparse);
}

#[test]
fn screening_is_deterministic_and_serialises() {
    let s = ground(50, 5.0, 6);
    let a = serde_json::to_string(&screen(&s, &ScreenParams::default())).unwrap();
    let b = serde_json::to_string(&screen(&s, &ScreenParams::default())).unwrap();
    assert_eq!(a, b);
    let v: serde_json::Value = serde_json::from_str(&a).unwrap();
    assert_eq!(v["verdict"], "looks_like_ground");
    assert_eq!(v["count"], 2500);
}

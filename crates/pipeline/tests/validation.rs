//! The heightmap workflow: a PLY point cloud gridded into a height field (moved from
//! `bozkir-io`'s tests with `read_ply_height`; the file written by `bozkir_io::write_ply_points`), and
//! the validation workflow on a real LAZ file.

use bozkir_pipeline::heightmap::read_ply_height;
use std::path::Path;

/// Points on the plane z = 0.5 x − 0.25 y over a 10 m square, 0.1 m apart.
fn plane() -> Vec<[f64; 3]> {
    (0..=100)
        .flat_map(|i| (0..=100).map(move |j| (f64::from(i) * 0.1, f64::from(j) * 0.1)))
        .map(|(x, y)| [x, y, 0.5 * x - 0.25 * y])
        .collect()
}

#[test]
fn ply_height_field_follows_the_plane() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("plane.ply");
    bozkir_io::write_ply_points(&p, &plane(), bozkir_io::plyfmt::Format::Little).unwrap();
    let g = read_ply_height(&p, 65).unwrap();
    assert_eq!((g.width(), g.height()), (65, 65));
    // p1–p99 of 0..10 on a 0.1 m lattice is 0.1..9.9: span 9.8, centre 5.
    assert!((g.dx - 9.8 / 64.0).abs() < 1e-9, "{}", g.dx);
    for (x, y) in [(0usize, 0usize), (32, 32), (64, 10), (10, 64)] {
        let wx = 5.0 + (x as f64 / 64.0 - 0.5) * 9.8;
        let wy = 5.0 - (y as f64 / 64.0 - 0.5) * 9.8;
        let want = 0.5 * wx - 0.25 * wy;
        assert!((g.get(x, y) - want).abs() < 0.08, "({x},{y}) {} vs {want}", g.get(x, y));
    }
    // Rows run from +y (north) to −y: z rises going down the rows.
    assert!(g.get(32, 64) > g.get(32, 0));
}

#[test]
fn validation_of_a_real_laz_scores_every_grid() {
    use bozkir_material::validation::Settings;
    use bozkir_pipeline::validation::{validate_rule, ValidationInput, ValidationRequest};
    let las = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/lidar/autzen_trim.laz");
    let req = ValidationRequest {
        input: ValidationInput::Points { las },
        settings: Settings { grids: vec![16], ..Settings::default() },
        rule: bozkir_material::Rule::builtin(),
        rule_name: "built-in".into(),
    };
    let out = validate_rule(&req, &bozkir_core::NoProgress).unwrap();
    assert_eq!(out.figures.len(), 1);
    assert_eq!(out.report["window"]["units"], "metres (converted from the file's units)");
    let names: Vec<&str> = out.validation.grids[0].scored.iter().map(|s| s.truth.name).collect();
    assert_eq!(names, ["class", "height", "colour"]);
    assert!(out.summary().iter().any(|l| l.starts_with("κ columns")));
    let bad = ValidationRequest { settings: Settings { grids: vec![2], ..Settings::default() }, ..req };
    let e = validate_rule(&bad, &bozkir_core::NoProgress).unwrap_err().to_string();
    assert_eq!(e, "--grids: 2 cells per side is outside 4..=256");
}

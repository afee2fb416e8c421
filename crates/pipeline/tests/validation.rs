//! The heightmap workflow: a PLY point cloud gridded into a height field (moved from
//! `bozkir-io`'s tests with `read_ply_height`), and the validation workflow on a real LAZ file.

use bozkir_pipeline::heightmap::read_ply_height;
use std::path::Path;

/// Points on the plane z = 0.5 x − 0.25 y over a 10 m square, 0.1 m apart.
fn plane() -> Vec<[f64; 3]> {
    let mut v = Vec::new();
    for i in 0..=100 {
        for j in 0..=100 {
            let (x, y) = (i as f64 * 0.1, j as f64 * 0.1);
            v.push([x, y, 0.5 * x - 0.25 * y]);
        }
    }
    v
}

/// A PLY with a `camera` element before `vertex` (with a list), vertex properties
/// `nx, x, y, z, red` (double coordinates) and a `face` element after.
fn write_ply(path: &Path, format: &str, pts: &[[f64; 3]]) {
    let mut out = format!(
        "ply\r\nformat {format} 1.0\r\ncomment made by a test\r\nelement camera 1\r\nproperty list uchar int ids\r\n\
         element vertex {}\r\nproperty float nx\r\nproperty double x\r\nproperty double y\r\nproperty double z\r\n\
         property uchar red\r\nelement face 1\r\nproperty list uchar int vertex_indices\r\nend_header\r\n",
        pts.len()
    )
    .into_bytes();
    let big = format == "binary_big_endian";
    let f32b = |v: f32| {
        if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let f64b = |v: f64| {
        if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let i32b = |v: i32| {
        if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    if format == "ascii" {
        out.extend_from_slice(b"2 7 8\n");
        for p in pts {
            out.extend_from_slice(format!("0.5 {} {} {} 200\n", p[0], p[1], p[2]).as_bytes());
        }
        out.extend_from_slice(b"3 0 1 2\n");
    } else {
        out.push(2);
        out.extend_from_slice(&i32b(7));
        out.extend_from_slice(&i32b(8));
        for p in pts {
            out.extend_from_slice(&f32b(0.5));
            for v in p {
                out.extend_from_slice(&f64b(*v));
            }
            out.push(200);
        }
        out.push(3);
        for i in 0..3 {
            out.extend_from_slice(&i32b(i));
        }
    }
    std::fs::write(path, out).unwrap();
}

#[test]
fn ply_height_field_follows_the_plane() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("plane.ply");
    write_ply(&p, "binary_little_endian", &plane());
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

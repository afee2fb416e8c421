//! End-to-end tests of `bozkir inspect`: text and JSON reports, every format, bad input.

use bozkir_splat::formats::save;
use bozkir_splat::Splats;
use std::path::Path;
use std::process::{Command, Output};

fn bozkir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bozkir")).arg("--quiet").args(args).output().expect("run bozkir")
}

fn data(rel: &str) -> String {
    format!("{}/../../data/{rel}", env!("CARGO_MANIFEST_DIR"))
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// 80 × 80 flat discs on gently bumpy ground over 1.5 m: a ground capture.
fn ground() -> Splats {
    let mut s = Splats::new(1);
    let n = 80;
    let step = 1.5 / n as f32;
    for i in 0..n {
        for j in 0..n {
            let (x, y) = (i as f32 * step, j as f32 * step);
            let z = 0.01 * (x * 7.0).sin() * (y * 5.0).cos();
            let h = ((i * 31 + j * 17) % 13) as f32 / 13.0;
            s.push_decoded(
                [x, y, z],
                [step * (1.0 + 0.5 * h), step, step * 0.1],
                [1.0, 0.0, 0.0, 0.0],
                0.5 + 0.4 * h,
                [h - 0.5, 0.1, -0.2],
                &[[0.01, 0.0, 0.0], [0.0, 0.02, 0.0], [0.0, 0.0, 0.03]],
            );
        }
    }
    s
}

#[test]
fn luigi_report_explains_each_number_and_says_not_ground() {
    let o = bozkir(&["inspect", &data("splat/luigi.ply")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    assert!(t.contains("luigi.ply: 3DGS PLY, 14526 splats, SH degree 0"), "{t}");
    for key in ["bounds", "plane", "anisotropy", "size/spacing", "columns", "opacity"] {
        let at = t.find(&format!("  {key}")).unwrap_or_else(|| panic!("no {key} line in\n{t}"));
        // Each number line is followed by its explanation.
        let next = t[at..].lines().nth(1).unwrap();
        assert!(next.trim_start().starts_with('→'), "{key}: {next}");
    }
    assert!(t.contains("verdict: probably not ground"), "{t}");
}

#[test]
fn json_report_is_machine_readable() {
    let o = bozkir(&["inspect", "--json", &data("splat/luigi.ply")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["count"], 14526);
    assert_eq!(v["format"], "ply");
    assert_eq!(v["sh_degree"], 0);
    assert_eq!(v["verdict"], "probably_not_ground");
    assert!(v["file"].as_str().unwrap().ends_with("luigi.ply"));
    for key in ["planarity", "tilt_deg", "normal"] {
        assert!(!v["plane"][key].is_null(), "{key}");
    }
    assert!(v["anisotropy"]["median"].as_f64().unwrap() > 1.0);
    assert!(v["columns"]["occupied_share"].as_f64().unwrap() > 0.0);
    assert_eq!(v["opacity"]["histogram"].as_array().unwrap().iter().map(|h| h.as_u64().unwrap()).sum::<u64>(), 14526);
    assert!(!v["reasons"].as_array().unwrap().is_empty());
}

#[test]
fn ground_in_every_format_looks_like_ground() {
    let dir = tempfile::tempdir().unwrap();
    let g = ground();
    for ext in ["ply", "splat", "glb", "spz"] {
        let p = dir.path().join(format!("ground.{ext}"));
        save(&p, &g).unwrap();
        let o = bozkir(&["inspect", "--json", p.to_str().unwrap()]);
        assert!(o.status.success(), "{ext}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert_eq!(v["count"], 6400, "{ext}");
        assert_eq!(v["format"], ext);
        assert_eq!(v["verdict"], "looks_like_ground", "{ext}: {}", v["reasons"]);
        let degree = if ext == "splat" { 0 } else { 1 };
        assert_eq!(v["sh_degree"], degree, "{ext}");
    }
    let o = bozkir(&["inspect", dir.path().join("ground.ply").to_str().unwrap()]);
    assert!(stdout(&o).contains("verdict: looks like ground"), "{}", stdout(&o));
}

#[test]
fn a_handful_of_splats_is_too_sparse() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("few.ply");
    save(&p, &ground().subset(&(0..500).collect::<Vec<_>>())).unwrap();
    let o = bozkir(&["inspect", p.to_str().unwrap()]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("verdict: too sparse"), "{}", stdout(&o));
    assert!(stdout(&o).contains("500 splats, fewer than 2000"));
}

#[test]
fn bad_files_fail_with_the_file_named() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[u8], &str); 4] = [
        ("cut.ply", b"ply\nformat binary_little_endian 1.0\nelement vertex 5\n", "truncated"),
        ("cloud.ply", b"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nend_header\n1 2 3\n", "plain point cloud"),
        ("odd.splat", &[0u8; 33], "not a whole number of 32-byte rows"),
        ("mesh.obj", b"v 0 0 0\n", "unsupported file extension"),
    ];
    for (name, bytes, needle) in cases {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        let o = bozkir(&["inspect", p.to_str().unwrap()]);
        assert!(!o.status.success(), "{name} should fail");
        let e = stderr(&o);
        assert!(e.contains(name) && e.contains(needle), "{name}: {e}");
    }
    let o = bozkir(&["inspect", "/nonexistent/capture.ply"]);
    assert!(!o.status.success() && stderr(&o).contains("no such file"));
    assert!(Path::new(&data("splat/luigi.ply")).exists());
}

//! End-to-end tests of `bozkir capture` (synthetic, from points, from a texture) screened by
//! `bozkir inspect`.

use std::path::Path;
use std::process::{Command, Output};

fn bozkir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bozkir")).arg("--quiet").args(args).output().expect("run bozkir")
}

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn data(p: &str) -> String {
    format!("{}/../../data/{p}", env!("CARGO_MANIFEST_DIR"))
}

fn inspect(path: &Path) -> serde_json::Value {
    serde_json::from_str(&ok(&bozkir(&["inspect", path.to_str().unwrap(), "--json"]))).unwrap()
}

#[test]
fn synthetic_capture_is_ground_and_deterministic() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a.ply");
    let b = tmp.path().join("b.ply");
    for p in [&a, &b] {
        ok(&bozkir(&[
            "capture",
            "synth",
            "--side",
            "2",
            "--density",
            "3000",
            "--seed",
            "4",
            "--out",
            p.to_str().unwrap(),
        ]));
    }
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let r = inspect(&a);
    assert_eq!(r["verdict"], "looks_like_ground");
    let n = r["count"].as_u64().unwrap();
    assert!((11_500..=12_500).contains(&n), "{n}");
    // Other formats from the same generator.
    let s = tmp.path().join("a.splat");
    ok(&bozkir(&["capture", "synth", "--side", "2", "--density", "3000", "--seed", "4", "--out", s.to_str().unwrap()]));
    assert_eq!(std::fs::metadata(&s).unwrap().len(), n * 32);
}

#[test]
fn real_ground_becomes_splats() {
    let tmp = tempfile::tempdir().unwrap();
    let pts = tmp.path().join("autzen.ply");
    ok(&bozkir(&[
        "capture",
        "from-points",
        &data("lidar/autzen_trim.laz"),
        "--crop",
        "40",
        "--out",
        pts.to_str().unwrap(),
    ]));
    let r = inspect(&pts);
    assert!(r["count"].as_u64().unwrap() > 1000);
    let tex = tmp.path().join("gravel.ply");
    ok(&bozkir(&[
        "capture",
        "from-texture",
        &data("textures/gravel.png"),
        "--side",
        "1.5",
        "--out",
        tex.to_str().unwrap(),
    ]));
    let r = inspect(&tex);
    assert_eq!(r["count"].as_u64().unwrap(), 512 * 512);
    assert_eq!(r["verdict"], "looks_like_ground");
}

#[test]
fn capture_refuses_bad_input() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("x.ply");
    let o = out.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["capture", "synth", "--materials", "3", "--out", o], "--materials 3"),
        (vec!["capture", "synth", "--side=-1", "--out", o], "side"),
        (vec!["capture", "synth", "--out", "x.txt"], ".ply, .splat"),
        (vec!["capture", "from-points", "nope.laz", "--out", o], "no such file"),
    ];
    let las = data("lidar/file_with_both_wkt_and_geotiff_vlrs.las");
    let mut cases = cases;
    cases.push((vec!["capture", "from-points", &las, "--out", o], "no colours"));
    let photo = data("textures/gravel.png");
    cases.push((vec!["capture", "from-texture", &photo, "--tint", "#zz0000", "--out", o], "--tint \"#zz0000\""));
    cases.push((vec!["capture", "from-texture", &photo, "--tint", "10,20", "--out", o], "R,G,B"));
    cases.push((vec!["capture", "from-texture", &photo, "--tint", "10,20,300", "--out", o], "0..255"));
    cases.push((
        vec!["capture", "from-texture", &photo, "--height", "no-dem.tif", "--out", o],
        "no-dem.tif: no such file",
    ));
    for (args, want) in cases {
        let r = bozkir(&args);
        assert!(!r.status.success(), "{args:?}");
        let e = String::from_utf8_lossy(&r.stderr);
        assert!(e.contains(want), "{args:?}: {e}");
        assert!(!out.exists());
    }
}

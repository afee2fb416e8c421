//! End-to-end tests of `bozkir classify` on a small generated terrain.

use bozkir_material::tilegrid::{classify_on_grid, Field, GridMapping};
use bozkir_material::{Balance, ClassifyOptions, Rule};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bozkir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bozkir")).arg("--quiet").args(args).output().expect("run bozkir")
}

fn terrain(tmp: &Path) -> PathBuf {
    let t = tmp.join("t");
    let o = bozkir(&["terrain", "--profile", "canyon", "--size", "64", "--seed", "3", "--out", t.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    t
}

fn ok(o: &Output) {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn classify_writes_the_decision_and_agrees_with_the_library() {
    let tmp = tempfile::tempdir().unwrap();
    let t = terrain(tmp.path());
    let out = tmp.path().join("c");
    ok(&bozkir(&["classify", t.to_str().unwrap(), "--share", "0.3", "--grid", "16", "--out", out.to_str().unwrap()]));
    let classes = bozkir_io::read_png8(out.join("classes.png")).unwrap();
    assert_eq!((classes.width(), classes.height()), (16, 16));
    // Exact share: round(0.3·256) = 77 tiles collect.
    assert_eq!(classes.data().iter().filter(|&&c| c == 0).count(), 77);

    // The same decision through the library, from the files the terrain command wrote.
    let h = bozkir_io::read_tiff_f32(t.join("height.tif")).unwrap();
    let s = bozkir_io::read_tiff_f32(t.join("sediment.tif")).unwrap();
    let f = |g: &bozkir_core::Grid<f32>| {
        Field::new(g.width(), g.height(), &g.data().iter().map(|&v| f64::from(v)).collect::<Vec<_>>()).unwrap()
    };
    let map = GridMapping::new(16);
    let o = ClassifyOptions { balance: Balance::Share(0.3), ..ClassifyOptions::default() };
    let d = classify_on_grid(&f(&h), Some(&f(&s)), &map, &Rule::builtin(), &o).unwrap();
    assert_eq!(classes.data(), &d.class[..]);

    // Weight maps sum to 255 per pixel; the report names the source and the shares.
    let w0 = bozkir_io::read_png8(out.join("weights_collected.png")).unwrap();
    let w1 = bozkir_io::read_png8(out.join("weights_exposed.png")).unwrap();
    assert!(w0.data().iter().zip(w1.data()).all(|(a, b)| u16::from(*a) + u16::from(*b) == 255));
    let a0 = bozkir_io::read_png8(out.join("alpha_collected.png")).unwrap();
    let a1 = bozkir_io::read_png8(out.join("alpha_exposed.png")).unwrap();
    assert!(a0.data().iter().zip(a1.data()).all(|(a, b)| u16::from(*a) + u16::from(*b) == 255));
    let rep: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("classify.json")).unwrap()).unwrap();
    assert_eq!(rep["source"], "sediment");
    assert_eq!(rep["grid"], 16);
    assert!((rep["shares"][0].as_f64().unwrap() - 77.0 / 256.0).abs() < 1e-12);
    for f in rep["files"].as_array().unwrap() {
        assert!(out.join(f.as_str().unwrap()).exists(), "{f}");
    }
    let dec = bozkir_io::read_rgb8(out.join("decision.png")).unwrap();
    assert_eq!((dec.width(), dec.height()), (128, 128));
}

#[test]
fn classify_is_deterministic_across_threads_and_honours_no_sediment() {
    let tmp = tempfile::tempdir().unwrap();
    let t = terrain(tmp.path());
    let run = |threads: &str, name: &str, extra: &[&str]| {
        let out = tmp.path().join(name);
        let mut args =
            vec!["--threads", threads, "classify", t.to_str().unwrap(), "--classes", "3", "--share", "0.2,0.5,0.3"];
        args.extend_from_slice(&["--grid", "20", "--out", out.to_str().unwrap()]);
        args.extend_from_slice(extra);
        ok(&bozkir(&args));
        out
    };
    let a = run("1", "a", &[]);
    let b = run("2", "b", &[]);
    for f in ["classes.png", "strength.tif", "weights_bench.png", "decision.png"] {
        assert_eq!(std::fs::read(a.join(f)).unwrap(), std::fs::read(b.join(f)).unwrap(), "{f}");
    }
    let c = run("2", "c", &["--no-sediment"]);
    let rep: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(c.join("classify.json")).unwrap()).unwrap();
    assert_eq!(rep["source"], "drainage");
    assert_eq!(rep["classes"], serde_json::json!(["collected", "bench", "exposed"]));
}

#[test]
fn classify_refuses_bad_input_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let t = terrain(tmp.path());
    let out = tmp.path().join("bad");
    let o = out.to_str().unwrap();
    let ts = t.to_str().unwrap();
    let bad_rule = tmp.path().join("rule.json");
    std::fs::write(
        &bad_rule,
        r#"{"positions":{"a":{"terms":{"wetness":1},"height":"low"}},"classes":{"2":["a","a"]}}"#,
    )
    .unwrap();
    let nope = tmp.path().join("nope");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["classify", ts, "--share", "1.5", "--out", o], "share"),
        (vec!["classify", ts, "--classes", "3", "--share", "0.5,0.5", "--out", o], "2 values for 3 classes"),
        (vec!["classify", ts, "--classes", "5", "--out", o], "5 classes"),
        (vec!["classify", ts, "--grid", "1", "--out", o], "grid"),
        (vec!["classify", ts, "--angle", "90", "--out", o], "angle"),
        (vec!["classify", ts, "--rule", bad_rule.to_str().unwrap(), "--out", o], "wetness"),
        (vec!["classify", nope.to_str().unwrap(), "--out", o], "not a terrain directory"),
    ];
    for (args, want) in cases {
        let r = bozkir(&args);
        assert!(!r.status.success(), "{args:?} should fail");
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!out.exists(), "{args:?} left {}", out.display());
    }
}

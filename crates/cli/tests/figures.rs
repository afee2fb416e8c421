//! End-to-end tests of `bozkir figures` on small inputs: the files, their content, the rule's
//! classes in the picture, determinism, and refusals.

use std::path::Path;
use std::process::{Command, Output};

fn bozkir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bozkir")).arg("--quiet").args(args).output().expect("run bozkir")
}

fn ok(o: &Output) {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A validation.json of the shape `bozkir validate-rule` writes (one grid, one truth).
fn validation(path: &Path) {
    let c = |k: f64, m: f64, p95: f64, p: f64| serde_json::json!({"kappa": k, "null_mean": m, "null_p95": p95, "p": p});
    let v = serde_json::json!({"grids": {"12": {"truths": {"colour": {"share": 0.3, "comparisons": {
        "rule": c(0.42, 0.01, 0.18, 0.004),
        "rule, no altitude": c(0.30, 0.0, 0.17, 0.01),
        "rule, flipped": c(-0.35, -0.01, 0.16, 1.0),
        "low ground": c(0.12, 0.02, 0.2, 0.2),
    }}}}}});
    std::fs::write(path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

fn small(out: &Path, v: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "figures",
        "--out",
        out.to_str().unwrap(),
        "--size",
        "48",
        "--grid",
        "10",
        "--res",
        "12",
        "--validation",
        v.to_str().unwrap(),
        "--validation-grid",
        "12",
    ];
    args.extend_from_slice(extra);
    bozkir(&args)
}

fn luma(p: [u8; 3]) -> f64 {
    0.2126 * f64::from(p[0]) + 0.7152 * f64::from(p[1]) + 0.0722 * f64::from(p[2])
}

fn stats(g: &bozkir_core::Grid<[u8; 3]>) -> (f64, f64) {
    let v: Vec<f64> = g.data().iter().map(|&p| luma(p)).collect();
    let m = v.iter().sum::<f64>() / v.len() as f64;
    (m, (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / v.len() as f64).sqrt())
}

const FILES: [&str; 6] = [
    "rule-on.png",
    "rule-off.png",
    "rule-onoff.png",
    "rule-three-terrains.png",
    "validation-kappa.png",
    "figures.json",
];

#[test]
fn figures_are_written_non_blank_and_reproducible() {
    let tmp = tempfile::tempdir().unwrap();
    let v = tmp.path().join("validation.json");
    validation(&v);
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    ok(&small(&a, &v, &[]));
    ok(&small(&b, &v, &[]));
    for f in FILES {
        let (x, y) = (std::fs::read(a.join(f)).unwrap(), std::fs::read(b.join(f)).unwrap());
        assert!(x == y, "{f}: two runs differ");
    }
    let on = bozkir_io::read_rgb8(a.join("rule-on.png")).unwrap();
    let off = bozkir_io::read_rgb8(a.join("rule-off.png")).unwrap();
    assert_eq!((on.width(), on.height()), (120, 120));
    assert_ne!(on.data(), off.data(), "rule on and off draw different classes");
    for f in ["rule-on.png", "rule-off.png", "rule-onoff.png", "rule-three-terrains.png", "validation-kappa.png"] {
        let g = bozkir_io::read_rgb8(a.join(f)).unwrap();
        let (m, sd) = stats(&g);
        assert!(m > 20.0 && m < 245.0 && sd > 10.0, "{f}: mean {m} sd {sd}");
    }
    let three = bozkir_io::read_rgb8(a.join("rule-three-terrains.png")).unwrap();
    assert!(three.width() > 3 * 120, "three panels side by side");
    let j: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(a.join("figures.json")).unwrap()).unwrap();
    assert_eq!(j["grid"], 10);
    assert_eq!(j["tileset"]["source"], "starter");
    let figs = j["figures"].as_array().unwrap();
    let names: Vec<&str> = figs.iter().map(|f| f["file"].as_str().unwrap()).collect();
    assert_eq!(names, FILES[..5]);
    assert_eq!(figs[0]["terrain"]["profile"], "canyon");
    assert_eq!(figs[3]["panels"].as_array().unwrap().len(), 3);
    assert_eq!(figs[4]["bars"].as_array().unwrap().len(), 4);
    assert_eq!(figs[4]["bars"][0]["name"], "rule");
}

#[test]
fn rule_on_draws_each_cell_in_its_class() {
    // Nearly no shading: each cell shows its tile's own colour, pale sand (class 0) or dark
    // scrub (class 1) in the starter tileset.
    let tmp = tempfile::tempdir().unwrap();
    let v = tmp.path().join("validation.json");
    validation(&v);
    let out = tmp.path().join("o");
    ok(&small(&out, &v, &["--exaggeration", "0.0001"]));
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("figures.json")).unwrap()).unwrap();
    for (k, name) in [(0, "rule-on.png"), (1, "rule-off.png")] {
        let rows: Vec<String> = j["figures"][k]["tile_classes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap().to_string())
            .collect();
        assert_eq!(rows.len(), 10);
        let im = bozkir_io::read_rgb8(out.join(name)).unwrap();
        let (mut agree, mut ones) = (0, 0);
        for (cy, row) in rows.iter().enumerate() {
            for (cx, c) in row.chars().enumerate() {
                let mut sum = 0.0;
                for y in cy * 12..(cy + 1) * 12 {
                    for x in cx * 12..(cx + 1) * 12 {
                        sum += luma(*im.get(x, y));
                    }
                }
                let dark = sum / 144.0 < 105.0;
                agree += usize::from(dark == (c == '1'));
                ones += usize::from(c == '1');
            }
        }
        assert_eq!(agree, 100, "{name}: cells drawn in their class");
        assert!(ones > 5 && ones < 95, "{name}: both classes present ({ones} of 100)");
    }
    // The rule's decision follows its share (0.3 of the cells collect: class 0).
    let shares = j["figures"][0]["shares"].as_array().unwrap();
    assert!((shares[0].as_f64().unwrap() - 0.3).abs() < 0.02, "{shares:?}");
}

#[test]
fn bad_inputs_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    let v = tmp.path().join("validation.json");
    validation(&v);
    let err = |o: Output| {
        assert!(!o.status.success());
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let out = tmp.path().join("o");
    let missing = tmp.path().join("no-tileset");
    let e = err(small(&out, &v, &["--tileset", missing.to_str().unwrap()]));
    assert!(e.contains("no-tileset") && e.contains("no such tileset"), "{e}");
    let wrong = tmp.path().join("wrong.json");
    std::fs::write(&wrong, r#"{"window": {}, "grid": [1, 2]}"#).unwrap();
    let e = err(small(&out, &wrong, &[]));
    assert!(e.contains("wrong.json") && e.contains("\"grids\""), "{e}");
    let e = err(small(&out, &v, &["--profiles", "canyon,nowhere"]));
    assert!(e.contains("nowhere"), "{e}");
    let e = err(small(&out, &v, &["--terrain", tmp.path().join("no-terrain").to_str().unwrap()]));
    assert!(e.contains("no-terrain"), "{e}");
    assert!(!out.exists(), "nothing written on refusal");
}

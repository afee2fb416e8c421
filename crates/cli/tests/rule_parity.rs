//! `bozkir terrain` then `bozkir classify`, as a user runs them, decide exactly what the original
//! bozkır viewer 5.0 decides on the same terrain.
//!
//! `golden/rule_parity.json.gz` holds the original viewer's class, runner-up and strength maps,
//! computed by its own JavaScript (`web/landform.js`, `web/heightfield.js`, `web/rule.json` and
//! the height function of `web/viewer.js` at husmen8/bozkir e3238af, run in Node outside this
//! repository) on the `height.tif` and `sediment.tif` that `bozkir terrain` writes for each
//! case's profile, seed and size. The cases span profiles, seeds, sizes, grid sizes (samples per
//! tile 1, 2, 3 and 4), shares (none, one, one per class), two to four classes, no sediment,
//! grid angles, relief scales smaller than the grid (mirrored), tile sizes, relief, altitude,
//! sharpness, coherence and detail relief off and on. With `--compat original` (the default)
//! classes and runner-ups must be equal on every tile and strength within 1e-6.

use flate2::read::GzDecoder;
use serde_json::Value;
use std::io::Read;
use std::path::Path;
use std::process::Command;

fn bozkir(args: &[String]) {
    let o = Command::new(env!("CARGO_BIN_EXE_bozkir")).arg("--quiet").args(args).output().expect("run bozkir");
    assert!(o.status.success(), "bozkir {}: {}", args.join(" "), String::from_utf8_lossy(&o.stderr));
}

fn cases() -> Vec<Value> {
    let f = std::fs::File::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/rule_parity.json.gz")).unwrap();
    let mut s = String::new();
    GzDecoder::new(f).read_to_string(&mut s).unwrap();
    let v: Value = serde_json::from_str(&s).unwrap();
    v["cases"].as_array().unwrap().clone()
}

/// Standard base64 (with padding) to bytes.
fn base64(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let mut out = Vec::new();
    for chunk in s.as_bytes().chunks(4) {
        let digits: Vec<u8> = chunk.iter().filter(|&&c| c != b'=').map(|&c| val(c)).collect();
        let n = digits.iter().enumerate().fold(0u32, |acc, (i, &d)| acc | u32::from(d) << (18 - 6 * i));
        out.extend_from_slice(&n.to_be_bytes()[1..digits.len()]);
    }
    out
}

fn digits(s: &str) -> Vec<u8> {
    s.bytes().map(|b| b - b'0').collect()
}

/// The classify arguments of a case.
fn classify_args(c: &Value, terrain: &Path, out: &Path, compat: &str) -> Vec<String> {
    let mut a: Vec<String> =
        vec!["classify".into(), terrain.display().to_string(), "--out".into(), out.display().to_string()];
    let mut flag = |k: &str, v: String| a.extend([format!("--{k}"), v]);
    for (k, key) in [("classes", "classes"), ("grid", "grid"), ("coherence", "coherence")] {
        flag(k, c[key].as_u64().unwrap().to_string());
    }
    for k in ["tile", "relief", "angle", "detail", "altitude", "sharpness"] {
        flag(k, c[k].as_f64().unwrap().to_string());
    }
    match &c["share"] {
        Value::Null => {}
        Value::Array(v) => {
            flag("share", v.iter().map(|x| x.as_f64().unwrap().to_string()).collect::<Vec<_>>().join(","))
        }
        v => flag("share", v.as_f64().unwrap().to_string()),
    }
    if let Some(rs) = c["relief_scale"].as_f64() {
        flag("relief-scale", rs.to_string());
    }
    if let Some(o) = c["over"].as_u64() {
        flag("over", o.to_string());
    }
    flag("compat", compat.into());
    if c["no_sediment"].as_bool().unwrap() {
        a.push("--no-sediment".into());
    }
    a
}

/// Tiles whose class / runner-up differ from the original's, and the largest strength difference.
fn run_case(c: &Value, dir: &Path, compat: &str) -> (usize, usize, f64) {
    let t = &c["terrain"];
    let terrain = dir.join("terrain");
    if !terrain.join("height.tif").exists() {
        bozkir(&[
            "terrain".into(),
            "--profile".into(),
            t["profile"].as_str().unwrap().into(),
            "--seed".into(),
            t["seed"].to_string(),
            "--size".into(),
            t["size"].to_string(),
            "--out".into(),
            terrain.display().to_string(),
        ]);
    }
    let out = dir.join(compat);
    bozkir(&classify_args(c, &terrain, &out, compat));
    let class = bozkir_io::read_png8(out.join("classes.png")).unwrap();
    let runner = bozkir_io::read_png8(out.join("runner_up.png")).unwrap();
    let strength = bozkir_io::read_tiff_f32(out.join("strength.tif")).unwrap();
    let report: Value = serde_json::from_str(&std::fs::read_to_string(out.join("classify.json")).unwrap()).unwrap();
    assert_eq!(report["mapping"]["compat"], compat);
    assert_eq!(report["source"], c["source"], "{}", c["name"]);
    assert_eq!(report["mapping"]["over"], c["over_used"], "{}", c["name"]);
    let want_s: Vec<f32> = base64(c["strength"].as_str().unwrap())
        .chunks(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let (wc, wr) = (digits(c["class"].as_str().unwrap()), digits(c["runner_up"].as_str().unwrap()));
    assert_eq!((class.data().len(), want_s.len()), (wc.len(), wc.len()), "{}", c["name"]);
    let dc = class.data().iter().zip(&wc).filter(|(a, b)| a != b).count();
    let dr = runner.data().iter().zip(&wr).filter(|(a, b)| a != b).count();
    let ds = strength.data().iter().zip(&want_s).map(|(a, b)| f64::from((a - b).abs())).fold(0.0, f64::max);
    (dc, dr, ds)
}

#[test]
fn classify_equals_the_original_viewer_on_every_committed_case() {
    let cases = cases();
    assert!(cases.len() >= 20);
    let tmp = tempfile::tempdir().unwrap();
    let results: Vec<(String, (usize, usize, f64))> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..2)
            .map(|k| {
                let (cases, tmp) = (&cases, tmp.path());
                s.spawn(move || {
                    cases
                        .iter()
                        .skip(k)
                        .step_by(2)
                        .map(|c| {
                            let name = c["name"].as_str().unwrap().to_string();
                            let r = run_case(c, &tmp.join(&name), "original");
                            (name, r)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let bad: Vec<_> = results.iter().filter(|(_, (c, r, s))| *c > 0 || *r > 0 || *s > 1e-6).collect();
    assert!(bad.is_empty(), "cases differing from the original (class, runner-up, max |Δstrength|): {bad:?}");
}

#[test]
fn the_canonical_grain_is_a_different_surface() {
    // The same case with the project's own lattice hash: the grain moves, so tiles near the share
    // boundary (and strengths) change. This is what `--compat original` exists to avoid.
    let cases = cases();
    let c = cases.iter().find(|c| c["name"] == "crags_s10_80_g32_c4_d2.5").expect("case");
    let tmp = tempfile::tempdir().unwrap();
    let (dc, _, ds) = run_case(c, tmp.path(), "canonical");
    assert!(dc > 0 && ds > 1e-3, "canonical grain gave {dc} tiles, {ds} strength");
    assert_eq!(run_case(c, tmp.path(), "original"), (0, 0, 0.0));
}

#[test]
fn an_unknown_compat_mode_is_refused() {
    let o = Command::new(env!("CARGO_BIN_EXE_bozkir"))
        .args(["classify", "nowhere", "--compat", "pyworldgen"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("unknown compatibility mode") && e.contains("original, canonical"), "{e}");
}

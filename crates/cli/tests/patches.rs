//! End-to-end tests of `bozkir patches`: the search on synthetic captures, the class split and
//! its refusal, presets, the cache, picks by hand, and giving up on a scene that is not ground.

use std::path::Path;
use std::process::{Command, Output};

fn bozkir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bozkir")).arg("--quiet").args(args).output().expect("run bozkir")
}

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn synth(dir: &Path, name: &str, materials: &str, seed: &str) -> String {
    let p = dir.join(name);
    ok(&bozkir(&[
        "capture",
        "synth",
        "--out",
        p.to_str().unwrap(),
        "--materials",
        materials,
        "--side",
        "4",
        "--density",
        "4000",
        "--seed",
        seed,
    ]));
    p.to_str().unwrap().to_string()
}

fn json(p: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

#[test]
fn two_materials_split_into_two_groups_with_a_contact_sheet_and_a_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let cap = synth(tmp.path(), "two.ply", "2", "2");
    let out = tmp.path().join("out");
    let args = ["patches", &cap, "--size", "0.5", "--classes", "2", "--out", out.to_str().unwrap()];
    let text = ok(&bozkir(&args));
    assert!(text.contains("cache miss") && text.contains("class 1:"), "{text}");
    let v = json(&out.join("patches.json"));
    assert_eq!(v["verdict"], "ok");
    assert_eq!(v["picked_by"], "search");
    let chosen = v["chosen"].as_array().unwrap();
    assert_eq!(chosen.len(), 2);
    let cands = v["candidates"].as_array().unwrap();
    for (k, g) in chosen.iter().enumerate() {
        let g = g.as_array().unwrap();
        assert_eq!(g.len(), 4);
        for id in g {
            let c = &cands[id.as_u64().unwrap() as usize];
            assert_eq!(c["id"], *id);
            assert_eq!(c["class"], k);
            assert_eq!(c["chosen"], true);
            assert!(c["purity"].as_f64().unwrap() >= 0.9);
            assert_eq!(c["centre"].as_array().unwrap().len(), 2);
        }
    }
    assert!(v["class_separation"].as_f64().unwrap() > 5.0);
    assert_eq!(v["rejected"]["positions"], 196);
    assert_eq!(v["trail"].as_array().unwrap().len(), 1);
    let png = bozkir_io::read_rgb8(out.join("contact_sheet.png")).unwrap();
    assert!(png.width() > 400 && png.height() > 200, "{}×{}", png.width(), png.height());
    // Again: a cache hit with the same result.
    let text = ok(&bozkir(&args));
    assert!(text.contains("cache hit"), "{text}");
    let w = json(&out.join("patches.json"));
    assert_eq!(v["candidates"], w["candidates"]);
    assert_eq!(v["chosen"], w["chosen"]);
    // Changed settings miss.
    let text = ok(&bozkir(&[&args[..], &["--min-cover", "0.75"]].concat()));
    assert!(text.contains("cache miss"), "{text}");
    // A corrupt entry is ignored.
    for e in std::fs::read_dir(out.join("cache")).unwrap() {
        std::fs::write(e.unwrap().path(), b"not json").unwrap();
    }
    let text = ok(&bozkir(&args));
    assert!(text.contains("cache miss"), "{text}");
    assert_eq!(json(&out.join("patches.json"))["candidates"], v["candidates"]);
}

#[test]
fn one_material_asked_for_two_is_refused_with_the_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let cap = synth(tmp.path(), "one.ply", "1", "1");
    let out = tmp.path().join("out");
    let o = bozkir(&["patches", &cap, "--size", "0.5", "--classes", "2", "--out", out.to_str().unwrap()]);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("one material") && e.contains("separation"), "{e}");
    let v = json(&out.join("patches.json"));
    assert_eq!(v["verdict"], "one_material");
    assert!(v["reason"].as_str().unwrap().contains("one material"));
    // One class works.
    let text = ok(&bozkir(&["patches", &cap, "--size", "0.5", "--out", out.to_str().unwrap()]));
    assert!(text.contains("class 0:"), "{text}");
    assert_eq!(json(&out.join("patches.json"))["chosen"][0].as_array().unwrap().len(), 4);
}

#[test]
fn presets_save_and_apply_with_explicit_flags_winning() {
    let tmp = tempfile::tempdir().unwrap();
    let cap = synth(tmp.path(), "one.ply", "1", "1");
    let presets = tmp.path().join("cfg").join("presets.json");
    let out = tmp.path().join("out");
    let (p, o) = (presets.to_str().unwrap(), out.to_str().unwrap());
    let text = ok(&bozkir(&[
        "patches",
        &cap,
        "--size",
        "0.5",
        "--count",
        "3",
        "--stride",
        "0.4",
        "--save-preset",
        "small",
        "--presets",
        p,
        "--out",
        o,
        "--no-cache",
    ]));
    assert!(text.contains("saved preset"), "{text}");
    let saved = json(&presets);
    // Only what differs from the defaults.
    assert_eq!(saved["small"], serde_json::json!({"count": 3, "size": 0.5, "stride": 0.4}));
    ok(&bozkir(&["patches", &cap, "--preset", "small", "--count", "2", "--presets", p, "--out", o, "--no-cache"]));
    let v = json(&out.join("patches.json"));
    assert_eq!(v["settings"]["size"], 0.5);
    assert_eq!(v["settings"]["stride"], 0.4);
    assert_eq!(v["settings"]["count"], 2);
    assert_eq!(v["chosen"][0].as_array().unwrap().len(), 2);
    // Unknown keys are skipped and reported; unknown presets are refused naming the file.
    let mut all = saved.clone();
    all["odd"] = serde_json::json!({"size": 0.5, "colours": 3});
    std::fs::write(&presets, all.to_string()).unwrap();
    let r = bozkir(&["patches", &cap, "--preset", "odd", "--presets", p, "--out", o, "--no-cache"]);
    assert!(r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("unknown key \"colours\" skipped"));
    let r = bozkir(&["patches", &cap, "--preset", "nope", "--presets", p, "--out", o]);
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("no preset named \"nope\""));
}

#[test]
fn patches_can_be_picked_by_hand() {
    let tmp = tempfile::tempdir().unwrap();
    let cap = synth(tmp.path(), "one.ply", "1", "1");
    let out = tmp.path().join("out");
    let o = out.to_str().unwrap();
    ok(&bozkir(&["patches", &cap, "--size", "0.5", "--patches", "0,2,4,5", "--out", o]));
    let v = json(&out.join("patches.json"));
    assert_eq!(v["picked_by"], "hand");
    assert_eq!(v["chosen"], serde_json::json!([[0, 2, 4, 5]]));
    let n = v["candidates"].as_array().unwrap().iter().filter(|c| c["chosen"] == true).count();
    assert_eq!(n, 4);
    let r = bozkir(&["patches", &cap, "--size", "0.5", "--patches", "0,9999", "--out", o]);
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("--patches 9999"));
}

#[test]
fn a_noise_cloud_is_not_a_tiling_exemplar() {
    let tmp = tempfile::tempdir().unwrap();
    let mut s = bozkir_splat::Splats::new(0);
    let mut rng = bozkir_core::rng::Rng::new(5);
    for _ in 0..60_000 {
        let p = [rng.range(-2.0, 2.0), rng.range(-2.0, 2.0), rng.range(-2.0, 2.0)].map(|v| v as f32);
        s.push_decoded(p, [0.01; 3], [1.0, 0.0, 0.0, 0.0], 0.9, [0.1, 0.2, 0.3], &[]);
    }
    let cap = tmp.path().join("noise.ply");
    bozkir_splat::formats::save(&cap, &s).unwrap();
    let out = tmp.path().join("out");
    let o = bozkir(&["patches", cap.to_str().unwrap(), "--size", "0.5", "--out", out.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a tiling exemplar"));
    let v = json(&out.join("patches.json"));
    assert_eq!(v["verdict"], "not_a_tiling_exemplar");
    let trail = v["trail"].as_array().unwrap();
    assert!(!trail.is_empty() && trail.len() < 12, "{}", trail.len());
    assert!(!out.join("contact_sheet.png").exists());
}

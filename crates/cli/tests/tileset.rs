//! End-to-end tests of `bozkir tileset`, `atlas` and `metrics` on captures made by
//! `bozkir capture`, and the verdicts on captures that cannot be tiled.

use std::path::Path;
use std::process::{Command, Output};

fn bozkir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bozkir")).args(args).output().expect("run bozkir")
}

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}\n{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn synth(dir: &Path, name: &str, extra: &[&str]) -> String {
    let p = dir.join(name).to_str().unwrap().to_string();
    let mut args = vec!["capture", "synth", "--side", "4.5", "--density", "5000", "--out", &p];
    args.extend_from_slice(extra);
    ok(&bozkir(&args));
    p
}

#[test]
fn two_material_capture_gives_a_good_two_class_tileset() {
    let tmp = tempfile::tempdir().unwrap();
    let cap = synth(tmp.path(), "two.ply", &["--upside-down", "--tilt", "15"]);
    let out = tmp.path().join("ts");
    let stdout = ok(&bozkir(&["tileset", &cap, "--out", out.to_str().unwrap(), "--zip", "--lod", "3"]));
    assert!(stdout.contains("verdict: good"), "{stdout}");
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tileset.json")).unwrap()).unwrap();
    assert_eq!(m["classes"].as_array().unwrap().len(), 2);
    assert_eq!(m["tiles"].as_array().unwrap().len(), 16, "2 classes × 2·2² minimal tiles");
    assert_eq!(m["lod"], 3);
    let total = m["total"].as_u64().unwrap();
    assert_eq!(std::fs::metadata(out.join("tiles.splat")).unwrap().len(), 32 * total);
    // Both classes use the same codes, so any cell can take either class.
    let codes = |c: u64| {
        let mut v: Vec<String> =
            m["tiles"].as_array().unwrap().iter().filter(|t| t["class"] == c).map(|t| t["code"].to_string()).collect();
        v.sort();
        v
    };
    assert_eq!(codes(0), codes(1));
    let rep: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(rep["assessment"]["edge_mismatches"], 0);
    assert_eq!(rep["assessment"]["layout_mismatches"], 0);
    assert!(rep["prepare"]["align"]["turned_over"].as_bool().unwrap(), "the upside-down capture was turned over");
    // The single-file tileset measures the same as the directory.
    let z = out.join("ts.zip");
    let a = ok(&bozkir(&["metrics", out.to_str().unwrap(), "--json"]));
    let b = ok(&bozkir(&["metrics", z.to_str().unwrap(), "--json"]));
    assert_eq!(a, b);
    ok(&bozkir(&["atlas", out.to_str().unwrap(), "--res", "16"]));
    let png = bozkir_io::read_rgb8(out.join("atlas.png")).unwrap();
    assert_eq!((png.width(), png.height()), (4 * 16, 4 * 16));
}

#[test]
fn captures_that_cannot_be_tiled_get_no_with_the_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let one = synth(tmp.path(), "one.ply", &["--materials", "1"]);
    let out = tmp.path().join("x");
    let r = bozkir(&["tileset", &one, "--classes", "2", "--out", out.to_str().unwrap()]);
    assert!(!r.status.success());
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(text.contains("verdict: no") && text.contains("one material"), "{text}");
    assert!(!out.exists());
    // Auto falls back to one class on the same capture.
    let s = ok(&bozkir(&["tileset", &one, "--out", out.to_str().unwrap(), "--lod", "1"]));
    assert!(s.contains("one material") && s.contains("verdict:"), "{s}");
    // Too little ground.
    let tiny = tmp.path().join("tiny.ply");
    ok(&bozkir(&["capture", "synth", "--side", "1", "--density", "6000", "--out", tiny.to_str().unwrap()]));
    let out2 = tmp.path().join("y");
    let r = bozkir(&["tileset", tiny.to_str().unwrap(), "--out", out2.to_str().unwrap()]);
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stdout).contains("not a tiling exemplar"));
    assert!(!out2.exists());
    // A figurine is not ground.
    let luigi = format!("{}/../../data/splat/luigi.ply", env!("CARGO_MANIFEST_DIR"));
    let r = bozkir(&["tileset", &luigi, "--out", out2.to_str().unwrap()]);
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stdout).contains("not ground"), "{}", String::from_utf8_lossy(&r.stdout));
}

#[test]
fn rotations_stand_in_for_patches_a_small_capture_lacks() {
    let tmp = tempfile::tempdir().unwrap();
    let small = tmp.path().join("small.ply");
    let small = small.to_str().unwrap();
    ok(&bozkir(&["capture", "synth", "--side", "1.3", "--density", "5000", "--materials", "1", "--out", small]));
    // Four distinct patches (2 colours × 2 families) do not fit in 1.3 m of ground ...
    let out = tmp.path().join("plain");
    let r = bozkir(&["tileset", small, "--classes", "1", "--lod", "1", "--out", out.to_str().unwrap()]);
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stdout).contains("not a tiling exemplar"));
    assert!(!out.exists());
    // ... two do, each also serving turned by a quarter.
    let out = tmp.path().join("turned");
    let args = ["tileset", small, "--classes", "1", "--lod", "1", "--rotations", "2", "--out", out.to_str().unwrap()];
    let stdout = ok(&bozkir(&args));
    assert!(stdout.contains("2 per class chosen") && stdout.contains("× 2 quarter turns → 4 patches"), "{stdout}");
    let ts = bozkir_splat::formats::tileset::read(&out).expect("a valid tileset");
    assert_eq!(ts.manifest.tiles.len(), 8, "2·2² minimal tiles");
    assert_eq!(ts.manifest.colours, [2, 2]);
    assert_eq!(ts.manifest.settings["rotations"], 2);
    let rep: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(rep["assessment"]["edges_checked"].as_u64().map(|n| n > 0), Some(true));
    assert_eq!(rep["assessment"]["edge_mismatches"], 0);
    assert_eq!(rep["assessment"]["layout_mismatches"], 0);
    let p = &rep["patches"];
    assert_eq!(
        (p["rotations"].as_u64(), p["searched_per_class"].as_u64(), p["used_per_class"].as_u64()),
        (Some(2), Some(2), Some(4))
    );
    // h colours are the two real patches, v colours the same two turned once.
    let src: Vec<(u64, u64)> = p["sources"][0]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["candidate"].as_u64().unwrap(), x["quarter_turns"].as_u64().unwrap()))
        .collect();
    assert_eq!(src.len(), 4);
    assert_eq!(src[2..], [(src[0].0, 1), (src[1].0, 1)]);
    assert!(src[0].0 != src[1].0 && src[0].1 == 0 && src[1].1 == 0);
    // Out of range.
    let r = bozkir(&["tileset", small, "--rotations", "5", "--out", tmp.path().join("z").to_str().unwrap()]);
    assert!(!r.status.success() && String::from_utf8_lossy(&r.stderr).contains("--rotations 5"));
}

#[test]
fn search_controls_and_presets_reach_the_tileset() {
    let tmp = tempfile::tempdir().unwrap();
    let cap = synth(tmp.path(), "c.ply", &["--materials", "1"]);
    let presets = tmp.path().join("presets.json");
    let pdir = tmp.path().join("p");
    // Save a preset from `bozkir patches`, then build with it.
    ok(&bozkir(&[
        "patches",
        &cap,
        "--size",
        "0.5",
        "--stride",
        "0.75",
        "--save-preset",
        "wide",
        "--presets",
        presets.to_str().unwrap(),
        "--out",
        pdir.to_str().unwrap(),
    ]));
    let out = tmp.path().join("ts");
    ok(&bozkir(&[
        "tileset",
        &cap,
        "--classes",
        "1",
        "--lod",
        "1",
        "--preset",
        "wide",
        "--presets",
        presets.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]));
    let rep: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(rep["search"]["settings"]["stride"], 0.75);
    // An impossible filter with no room to loosen gives no tileset, naming the filter.
    let out2 = tmp.path().join("ts2");
    let r = bozkir(&[
        "tileset",
        &cap,
        "--classes",
        "1",
        "--min-splats",
        "100000000",
        "--max-steps",
        "1",
        "--out",
        out2.to_str().unwrap(),
    ]);
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stdout).contains("sparse"), "{}", String::from_utf8_lossy(&r.stdout));
    assert!(!out2.exists());
    let r = bozkir(&["tileset", &cap, "--stride", "-1", "--out", out2.to_str().unwrap()]);
    assert!(!r.status.success());
}

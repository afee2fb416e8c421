//! End-to-end tests of `bozkir prepare`: alignment of tilted and upside-down captures, cleaning,
//! the text and JSON reports, and refusals that write nothing.

use bozkir_splat::formats::save;
use bozkir_splat::Splats;
use std::path::Path;
use std::process::{Command, Output};

fn bozkir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bozkir")).arg("--quiet").args(args).output().expect("run bozkir")
}

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn fails(o: &Output) -> String {
    assert!(!o.status.success(), "expected a failure, got: {}", String::from_utf8_lossy(&o.stdout));
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn synth(out: &Path, extra: &[&str]) {
    let mut args = vec!["capture", "synth", "--side", "2", "--density", "2000", "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    ok(&bozkir(&args));
}

fn prepare_json(input: &Path, out: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["prepare", input.to_str().unwrap(), "--out", out.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    serde_json::from_str(&ok(&bozkir(&args))).unwrap()
}

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// Files in `dir` (names), sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn tilted_capture_is_levelled_with_z_up() {
    let tmp = tempfile::tempdir().unwrap();
    let (input, out) = (tmp.path().join("tilted.ply"), tmp.path().join("level.ply"));
    synth(&input, &["--tilt", "30", "--floaters", "400", "--seed", "2"]);
    let r = prepare_json(&input, &out, &[]);
    let al = &r["align"];
    assert!((f(&al["tilt_before_deg"]) - 30.0).abs() < 1.0, "{al}");
    assert!(f(&al["tilt_after_deg"]) < 1.0, "{al}");
    assert_eq!(al["turned_over"], false);
    assert!(f(&r["upness"]) > 1.5, "{r}");
    assert!(r["warnings"].as_array().unwrap().is_empty());
    assert_eq!(r["count_in"], r["count_out"]);
    // Screening the result agrees: level, +z up, right side up.
    let i: serde_json::Value =
        serde_json::from_str(&ok(&bozkir(&["inspect", out.to_str().unwrap(), "--json"]))).unwrap();
    assert!(f(&i["plane"]["tilt_deg"]) < 1.0 && i["plane"]["up_axis"] == 2, "{}", i["plane"]);
    let s = bozkir_splat::formats::load(&out).unwrap();
    let mut z: Vec<f32> = s.positions().iter().map(|p| p[2]).collect();
    z.sort_by(f32::total_cmp);
    assert!(z[z.len() / 20].abs() < 1e-4, "recentred: p5 z = {}", z[z.len() / 20]);
    assert!(z[z.len() - 1] > 0.3, "floaters above the ground");
    // Deterministic.
    let again = tmp.path().join("again.ply");
    prepare_json(&input, &again, &[]);
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());
}

#[test]
fn upside_down_capture_is_turned_over() {
    let tmp = tempfile::tempdir().unwrap();
    let (input, out) = (tmp.path().join("ud.splat"), tmp.path().join("up.spz"));
    synth(&input, &["--upside-down", "--floaters", "400"]);
    let r = prepare_json(&input, &out, &[]);
    assert!(f(&r["upness_before"]) < 0.7, "{r}");
    assert!(f(&r["upness"]) > 0.7, "{r}");
    assert_eq!(r["align"]["turned_over"], true);
    let text = ok(&bozkir(&["prepare", input.to_str().unwrap(), "--out", out.to_str().unwrap()]));
    assert!(text.contains("upside down: turned over"), "{text}");
    assert!(!text.contains("warning:"), "{text}");
    // --flip undoes the decision and the warning says so.
    let text = ok(&bozkir(&["prepare", input.to_str().unwrap(), "--out", out.to_str().unwrap(), "--flip"]));
    assert!(text.contains("turned over as asked") && text.contains("warning: upness"), "{text}");
    // Without alignment the input is measured as given.
    let text = ok(&bozkir(&["prepare", input.to_str().unwrap(), "--out", out.to_str().unwrap(), "--no-align"]));
    assert!(text.contains("align      skipped") && text.contains("may be upside down"), "{text}");
}

#[test]
fn clean_removes_floaters_and_background() {
    let tmp = tempfile::tempdir().unwrap();
    let (input, out) = (tmp.path().join("messy.ply"), tmp.path().join("clean.glb"));
    synth(&input, &["--floaters", "100", "--background", "2", "--tilt", "10"]);
    let r = prepare_json(&input, &out, &["--clean", "--sh", "0"]);
    let c = &r["clean"];
    let removed: u64 =
        ["removed_cylinder", "removed_large", "removed_floaters"].iter().map(|k| c[k].as_u64().unwrap()).sum();
    assert_eq!(r["count_in"].as_u64().unwrap() - removed, r["count_out"].as_u64().unwrap(), "{c}");
    assert!(c["removed_floaters"].as_u64().unwrap() > 0 && c["removed_cylinder"].as_u64().unwrap() > 0, "{c}");
    let s = bozkir_splat::formats::load(&out).unwrap();
    assert_eq!(s.len() as u64, r["count_out"].as_u64().unwrap());
    // Nothing left far from the ground or outside the cylinder.
    let radius = f(&c["cylinder_radius"]) as f32;
    for p in s.positions() {
        assert!(p[2] < 0.15, "a floater survived at {p:?}");
        assert!(p[0].hypot(p[1]) < radius + 0.01, "outside the cylinder: {p:?}");
    }
    let text = ok(&bozkir(&[
        "prepare",
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--clean",
        "--radius-pct",
        "80",
        "--floater-std",
        "0",
        "--max-extent-pct",
        "100",
    ]));
    assert!(text.contains("p80 of horizontal distance") && text.contains("floaters: off"), "{text}");
    assert!(text.contains("large splats") && text.contains("removed 0"), "{text}");
}

#[test]
fn bad_input_is_refused_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let good = dir.join("good.ply");
    synth(&good, &[]);
    let out = dir.join("out.ply");
    let o = out.to_str().unwrap();
    let g = good.to_str().unwrap();

    let e = fails(&bozkir(&["prepare", dir.join("missing.ply").to_str().unwrap(), "--out", o]));
    assert!(e.contains("no such file"), "{e}");
    let e = fails(&bozkir(&["prepare", g, "--out", dir.join("out.txt").to_str().unwrap()]));
    assert!(e.contains("must end in"), "{e}");
    for (flag, value, word) in
        [("--radius-pct", "0", "radius"), ("--max-extent-pct", "150", "extent"), ("--floater-std", "-1", "floater")]
    {
        let e = fails(&bozkir(&["prepare", g, "--out", o, "--clean", &format!("{flag}={value}")]));
        assert!(e.contains(word), "{flag}: {e}");
    }
    let e = fails(&bozkir(&["prepare", g, "--out", o, "--sh", "5"]));
    assert!(e.contains("SH degree"), "{e}");
    let e = fails(&bozkir(&["prepare", g, "--out", o, "--flip", "--no-align"]));
    assert!(e.contains("--no-align"), "{e}");

    let junk = dir.join("junk.ply");
    std::fs::write(&junk, b"not a ply file at all").unwrap();
    let e = fails(&bozkir(&["prepare", junk.to_str().unwrap(), "--out", o]));
    assert!(e.contains("junk.ply"), "{e}");

    let two = dir.join("two.ply");
    let mut s = Splats::new(0);
    s.push_decoded([0.0; 3], [0.01; 3], [1.0, 0.0, 0.0, 0.0], 0.5, [0.0; 3], &[]);
    s.push_decoded([1.0, 0.0, 0.0], [0.01; 3], [1.0, 0.0, 0.0, 0.0], 0.5, [0.0; 3], &[]);
    save(&two, &s).unwrap();
    let e = fails(&bozkir(&["prepare", two.to_str().unwrap(), "--out", o]));
    assert!(e.contains("two.ply") && e.contains("too few"), "{e}");

    assert_eq!(listing(dir), vec!["good.ply", "junk.ply", "two.ply"]);
}

//! `bozkir lab`: the erosion page's recipe line run natively. The page's export equals it code
//! for code (web/tests/browser/erode-page.test.mjs); here: determinism across thread counts,
//! that the ops change the heights, and clear errors with nothing written for bad ops.

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_bozkir");

fn lab(out: &Path, extra: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .args(["--quiet", "lab", "--profile", "canyon", "--seed", "3", "--size", "64", "--out"])
        .arg(out)
        .args(extra)
        .output()
        .expect("run bozkir")
}

#[test]
fn the_replay_is_deterministic_and_the_ops_erode() {
    let dir = tempfile::tempdir().unwrap();
    let ops = "steps:1:512:33:0.2:3:0x2,rain:30:34:5:0.05:12,steps:3:512:33:0.2:3:6x2";
    let (a, b, plain) = (dir.path().join("a"), dir.path().join("b"), dir.path().join("plain"));
    assert!(lab(&a, &["--ops", ops]).status.success());
    let o = Command::new(BIN)
        .args([
            "--quiet",
            "--threads",
            "1",
            "lab",
            "--profile",
            "canyon",
            "--seed",
            "3",
            "--size",
            "64",
            "--ops",
            ops,
            "--out",
        ])
        .arg(&b)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(lab(&plain, &[]).status.success());
    let read = |d: &Path| std::fs::read(d.join("height.tif")).unwrap();
    assert_eq!(read(&a), read(&b), "thread counts differ");
    assert_ne!(read(&a), read(&plain), "the ops changed nothing");
    let side: serde_json::Value = serde_json::from_slice(&std::fs::read(a.join("terrain.json")).unwrap()).unwrap();
    assert_eq!(side["generator"], "bozkir lab");
    assert_eq!(side["settings"]["ops"], ops);
    assert_eq!(side["dx_m"], 80.0);
}

#[test]
fn bad_ops_are_named_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    for (ops, says) in [
        ("rain:64:0:3:0.05:4", "outside the 64 × 64 grid"),
        ("drizzle:1:2", "unknown run \"drizzle\""),
        ("thermal:95:0.2:3", "TALUS_DEG"),
        ("steps:1:512:33:0.2:3", "expected steps"),
    ] {
        let out = dir.path().join("out");
        let o = lab(&out, &["--ops", ops]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains(says), "{ops}: {err}");
        assert!(!out.exists(), "{ops}: an output folder was left");
    }
    let o = lab(&dir.path().join("x"), &["--cell-size", "0"]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("--cell-size"));
    let o = Command::new(BIN).args(["lab", "--size", "100", "--out"]).arg(dir.path().join("y")).output().unwrap();
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("--size must be one of"));
}

#[test]
fn the_batch_is_capped_at_one_droplet_to_64_cells_and_changes_the_heights() {
    // At 64² the cap is 64 droplets a batch: `auto`, 64 and seed 001's 1024 are one run, 16 is
    // another (each batch runs against the heights the last one left).
    let dir = tempfile::tempdir().unwrap();
    let ops = ["--ops", "droplets:5:512x2"];
    let run = |name: &str, batch: &str| {
        let out = dir.path().join(name);
        let o = lab(&out, &[ops[0], ops[1], "--batch", batch]);
        assert!(o.status.success(), "--batch {batch}: {}", String::from_utf8_lossy(&o.stderr));
        let side: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("terrain.json")).unwrap()).unwrap();
        (std::fs::read(out.join("height.tif")).unwrap(), side["settings"]["batch"].as_u64().unwrap())
    };
    let (auto, n_auto) = run("auto", "auto");
    let (b64, n64) = run("b64", "64");
    let (b1024, n1024) = run("b1024", "1024");
    let (b16, n16) = run("b16", "16");
    assert_eq!((n_auto, n64, n1024, n16), (64, 64, 64, 16));
    assert_eq!(auto, b64);
    assert_eq!(auto, b1024);
    assert_ne!(auto, b16, "a smaller batch gave the same heights");
    let out = dir.path().join("plain");
    let o = lab(&out, ops.as_slice());
    assert!(o.status.success());
    assert_eq!(std::fs::read(out.join("height.tif")).unwrap(), auto, "the default is not auto");
    for bad in ["0", "auto2", "4194305", "-3", ""] {
        let out = dir.path().join("bad");
        let o = lab(&out, &[&format!("--batch={bad}")]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains("--batch must be auto or a whole number"), "{bad:?}: {err}");
        assert!(!out.exists(), "--batch {bad:?}: an output folder was left");
    }
}

//! `bozkir tiled` through the binary: the store it writes, refusals, and an interrupted run that
//! keeps its chunks and finishes with `--resume` into the same bytes as an uninterrupted run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_bozkir"));
    c.arg("--quiet");
    c
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A highlands world of 513² from a 129² coarse pass in tiles of 64 (81 tiles).
fn world_args(out: &Path) -> Vec<String> {
    [
        "tiled",
        "--recipe",
        "highlands",
        "--size",
        "513",
        "--coarse",
        "129",
        "--tile",
        "64",
        "--seed",
        "2",
        "--out",
        s(out),
    ]
    .iter()
    .map(|a| a.to_string())
    .collect()
}

fn run(args: &[String]) -> Output {
    bin().args(args).output().expect("run bozkir")
}

/// Every file under `dir`, relative path → bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.insert(p.strip_prefix(root).unwrap().to_path_buf(), std::fs::read(&p).unwrap());
            }
        }
    }
    let mut m = BTreeMap::new();
    walk(dir, dir, &mut m);
    m
}

fn chunks(store: &Path) -> usize {
    let c = store.join("height/c");
    if !c.is_dir() {
        return 0;
    }
    // Chunks only: a run killed mid-chunk leaves its temporary `.N.PID.K.tmp` beside them.
    let row = |d: PathBuf| {
        std::fs::read_dir(d)
            .unwrap()
            .filter(|e| !e.as_ref().unwrap().file_name().to_string_lossy().starts_with('.'))
            .count()
    };
    std::fs::read_dir(&c).unwrap().map(|r| row(r.unwrap().path())).sum()
}

#[cfg(unix)]
#[test]
fn an_interrupted_run_keeps_its_chunks_and_resume_finishes_the_same_store() {
    let tmp = tempfile::tempdir().unwrap();
    let full = tmp.path().join("full.zarr");
    let o = run(&world_args(&full));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("81 tiles (81 written, 0 kept)"), "{out}");
    assert_eq!(chunks(&full), 81);

    // Interrupt a second run once a few chunks are in.
    let cut = tmp.path().join("cut.zarr");
    let child = bin().args(world_args(&cut)).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let t0 = Instant::now();
    while chunks(&cut) < 3 {
        assert!(t0.elapsed() < Duration::from_secs(120), "no chunk appeared");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    if o.status.success() {
        // The run finished before the signal landed: nothing to resume, but the store is whole.
        assert_eq!(files(&cut), files(&full));
        return;
    }
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("tiles written so far are kept") && err.contains("--resume"), "{err}");
    let kept = chunks(&cut);
    assert!((3..81).contains(&kept), "{kept} chunks kept");

    let mut args = world_args(&cut);
    args.push("--resume".into());
    let o = run(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(&format!("({} written, {kept} kept)", 81 - kept)), "{out}");
    assert_eq!(files(&cut), files(&full), "the resumed store is the uninterrupted run's, byte for byte");
}

#[test]
fn another_world_in_the_same_store_and_bad_sizes_are_refused_without_writing() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("w.zarr");
    assert!(run(&world_args(&store)).status.success());
    let before = files(&store);
    // Another seed is another world: refused, nothing touched.
    let mut args = world_args(&store);
    let i = args.iter().position(|a| a == "--seed").unwrap();
    args[i + 1] = "3".into();
    let o = run(&args);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a store of this world"));
    assert_eq!(files(&store), before);
    // A size that is not (coarse − 1)·k + 1 names the nearest ones.
    let o = bin().args(["tiled", "--size", "4096", "--out", s(&tmp.path().join("x.zarr"))]).output().unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("nearest are 3073 and 4097"));
    assert!(!tmp.path().join("x.zarr").exists());
}

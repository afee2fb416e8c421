//! Output folders under signals, stale files and user files (issue 20, findings 4–6), through
//! the binary.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_bozkir"));
    c.arg("--quiet");
    c
}

fn bozkir(args: &[&str]) -> Output {
    bin().args(args).output().expect("run bozkir")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A small canyon terrain into `out`.
fn small_terrain(out: &Path, seed: &str) -> Output {
    bozkir(&["terrain", "--profile", "canyon", "--seed", seed, "--size", "24", "--out", s(out)])
}

/// Every entry under `dir` (relative path → bytes; folders as `None`).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Option<Vec<u8>>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(root).unwrap().to_path_buf();
            if p.is_dir() {
                out.insert(rel, None);
                walk(root, &p, out);
            } else {
                out.insert(rel, Some(std::fs::read(&p).unwrap()));
            }
        }
    }
    let mut m = BTreeMap::new();
    walk(dir, dir, &mut m);
    m
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

fn staging_left(dir: &Path) -> Vec<String> {
    names(dir).into_iter().filter(|n| n.starts_with(".bozkir-staging") || n.starts_with(".bozkir-journal")).collect()
}

/// Starts a terrain big enough to run for seconds into `out` and waits until its staging folder
/// exists.
#[cfg(unix)]
fn start_big(out: &Path) -> std::process::Child {
    let child = bin()
        .args(["terrain", "--profile", "canyon", "--seed", "3", "--size", "2048", "--out", s(out)])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let staging = out.join(format!(".bozkir-staging-{}", child.id()));
    let t0 = Instant::now();
    while !staging.is_dir() {
        assert!(t0.elapsed() < Duration::from_secs(20), "no staging folder appeared");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    child
}

#[cfg(unix)]
fn signal(child: &std::process::Child, sig: &str) {
    let st = Command::new("kill").args([sig, &child.id().to_string()]).status().unwrap();
    assert!(st.success());
}

#[cfg(unix)]
fn interrupted_cleanly(sig: &str, code: i32) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("made").join("by-the-run");
    let child = start_big(&out);
    signal(&child, sig);
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(code), "{sig}: {}", stderr(&o));
    assert!(!stderr(&o).contains("error"), "{}", stderr(&o));
    assert!(!tmp.path().join("made").exists(), "the folders the command created are removed");
    assert!(names(tmp.path()).is_empty());
}

#[cfg(unix)]
#[test]
fn sigint_removes_the_staging_folder_and_exits_130() {
    interrupted_cleanly("-INT", 130);
}

#[cfg(unix)]
#[test]
fn sigterm_removes_the_staging_folder_and_exits_143() {
    interrupted_cleanly("-TERM", 143);
}

#[cfg(unix)]
#[test]
fn a_signal_keeps_an_existing_folder_and_its_files() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("t");
    assert!(small_terrain(&out, "3").status.success());
    let before = snapshot(&out);
    let child = start_big(&out);
    signal(&child, "-INT");
    assert_eq!(child.wait_with_output().unwrap().status.code(), Some(130));
    assert_eq!(snapshot(&out), before, "the previous run's files are untouched");
}

#[cfg(unix)]
#[test]
fn kill_9_leaves_staging_that_the_next_run_removes() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("t");
    let mut child = start_big(&out);
    let pid = child.id();
    signal(&child, "-KILL");
    child.wait().unwrap();
    let stale = out.join(format!(".bozkir-staging-{pid}"));
    assert!(stale.is_dir(), "SIGKILL cannot be caught: its staging folder stays until the next run");
    let o = small_terrain(&out, "3");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stale.exists(), "the dead process's staging folder is removed");
    assert!(staging_left(&out).is_empty(), "{:?}", names(&out));
}

#[test]
fn a_directory_in_the_way_stops_the_publish_before_any_file_moves() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("t");
    assert!(small_terrain(&out, "3").status.success());
    std::fs::remove_file(out.join("slope.tif")).unwrap();
    std::fs::create_dir(out.join("slope.tif")).unwrap();
    let before = snapshot(&out);
    let o = small_terrain(&out, "4");
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("slope.tif") && e.contains("directory is in the way"), "{e}");
    assert_eq!(snapshot(&out), before, "no new file is visible, none of the old ones changed");
    // A fresh folder with a directory where a file goes gets nothing either.
    let fresh = tmp.path().join("fresh");
    std::fs::create_dir_all(fresh.join("terrain.json")).unwrap();
    assert!(!small_terrain(&fresh, "3").status.success());
    assert_eq!(names(&fresh), ["terrain.json"]);
}

#[test]
fn a_user_file_is_refused_without_force_and_replaced_with_it() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("t");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("preview.png"), b"my own picture").unwrap();
    std::fs::write(out.join("notes.txt"), b"mine too").unwrap();
    let o = small_terrain(&out, "3");
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("preview.png") && e.contains("not written by bozkir") && e.contains("--force"), "{e}");
    assert_eq!(names(&out), ["notes.txt", "preview.png"], "nothing was published");
    assert_eq!(std::fs::read(out.join("preview.png")).unwrap(), b"my own picture");
    // The same for a user's own terrain.json.
    let mine = tmp.path().join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("terrain.json"), b"{\"my\": \"notes\"}").unwrap();
    assert!(!small_terrain(&mine, "3").status.success());
    assert_eq!(std::fs::read(mine.join("terrain.json")).unwrap(), b"{\"my\": \"notes\"}");
    // --force replaces it; the file bozkir does not write stays.
    let o = bozkir(&["--force", "terrain", "--profile", "canyon", "--seed", "3", "--size", "24", "--out", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_ne!(std::fs::read(out.join("preview.png")).unwrap(), b"my own picture");
    assert_eq!(std::fs::read(out.join("notes.txt")).unwrap(), b"mine too");
    // A second run replaces bozkir's own files without --force.
    let o = small_terrain(&out, "4");
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_recipe_after_a_profile_leaves_only_its_own_files_and_readers_skip_stale_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("t");
    assert!(small_terrain(&out, "3").status.success());
    assert!(out.join("sediment.tif").is_file());
    let old_sediment = std::fs::read(out.join("sediment.tif")).unwrap();
    std::fs::write(out.join("notes.txt"), b"mine").unwrap();
    let o = bozkir(&["terrain", "--recipe", "island", "--size", "32", "--out", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let sc = bozkir_io::read_sidecar(out.join("terrain.json")).unwrap();
    let mut want: Vec<String> = sc.files.iter().map(|f| f.path.clone()).collect();
    want.extend(["notes.txt".to_string(), "terrain.json".to_string()]);
    want.sort();
    assert_eq!(names(&out), want, "the canyon's files are gone, the user's file stays");
    assert!(!out.join("sediment.tif").exists());
    // A stale layer put back by hand (or left by a failed removal) is not read: classify uses
    // the island's deposit record.
    std::fs::write(out.join("sediment.tif"), &old_sediment).unwrap();
    let classes = tmp.path().join("classes");
    let o = bozkir(&["classify", s(&out), "--grid", "8", "--out", s(&classes)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(classes.join("classify.json")).unwrap()).unwrap();
    assert_eq!(report["sediment_file"], "deposit.tif");
}

#[test]
fn a_publish_left_half_done_is_refused_by_readers_and_finished_by_the_next_run() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("t");
    assert!(small_terrain(&out, "3").status.success());
    // As a process killed mid-publish leaves it: some files moved, the rest staged, a journal.
    let dead = "4000000"; // above Linux's largest pid (2^22)
    let staging = out.join(format!(".bozkir-staging-{dead}"));
    std::fs::create_dir(&staging).unwrap();
    let files = names(&out).into_iter().filter(|n| !n.starts_with('.')).collect::<Vec<_>>();
    for f in files.iter().filter(|f| f.starts_with('t') || f.starts_with('s')) {
        std::fs::rename(out.join(f), staging.join(f)).unwrap();
    }
    let journal = serde_json::json!({"pid": 4_000_000u32, "staging": format!(".bozkir-staging-{dead}"),
        "files": files, "stale": [], "keep_previous": false});
    std::fs::write(out.join(".bozkir-journal.json"), journal.to_string()).unwrap();
    let o = bozkir(&["classify", s(&out), "--grid", "8", "--out", s(&tmp.path().join("c"))]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains(".bozkir-journal.json"), "{}", stderr(&o));
    // Another command into the folder rolls the publish forward first.
    let o = bozkir(&["bake", s(&out)]);
    assert!(!o.status.success(), "the bake reads the folder first and refuses too");
    let o = small_terrain(&out, "3");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(staging_left(&out).is_empty(), "{:?}", names(&out));
    assert_eq!(names(&out), files);
}

#[test]
fn a_bake_into_the_terrain_adds_and_a_bake_elsewhere_replaces() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("t");
    assert!(small_terrain(&out, "3").status.success());
    let before = names(&out);
    let o = bozkir(&["bake", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut want = before.clone();
    // The textures, and the rivers it found (water.tif, and as lines, rivers.png).
    want.extend(["albedo.png", "materials.png", "normal.png", "rivers.png", "water.tif"].map(String::from));
    want.sort();
    assert_eq!(names(&out), want, "the terrain's files stay");
    // A new terrain replaces the bake's textures too: they were outputs of the folder.
    assert!(small_terrain(&out, "4").status.success());
    assert_eq!(names(&out), before);
    // Baking twice into another folder needs no --force.
    let tex = tmp.path().join("tex");
    assert!(bozkir(&["bake", s(&out), "--out", s(&tex)]).status.success());
    let o = bozkir(&["bake", s(&out), "--out", s(&tex)]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_user_preview_stops_a_terrain_before_its_work() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("t");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("preview.png"), b"my own picture").unwrap();
    // A 2048² terrain runs for minutes here; the refusal comes before it starts.
    let t0 = Instant::now();
    let o = bozkir(&["terrain", "--profile", "canyon", "--seed", "3", "--size", "2048", "--out", s(&out)]);
    assert!(!o.status.success());
    assert!(t0.elapsed() < Duration::from_secs(10), "refused after {:?}", t0.elapsed());
    assert!(stderr(&o).contains("preview.png"), "{}", stderr(&o));
    assert_eq!(names(&out), ["preview.png"]);
}

#[test]
fn a_crafted_manifest_cannot_remove_files_outside_the_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let victim = tmp.path().join("victim.txt");
    std::fs::write(&victim, b"keep me").unwrap();
    let out = tmp.path().join("t");
    std::fs::create_dir(&out).unwrap();
    let m = serde_json::json!({"version": 1, "files": ["../victim.txt", "preview.png"]});
    std::fs::write(out.join(".bozkir-manifest.json"), m.to_string()).unwrap();
    let o = small_terrain(&out, "3");
    assert!(!o.status.success());
    assert!(stderr(&o).contains("not a path inside the folder"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&victim).unwrap(), b"keep me");
    // --force writes the outputs but still removes nothing the bad list names.
    let o = bozkir(&["--force", "terrain", "--profile", "canyon", "--seed", "3", "--size", "24", "--out", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(&victim).unwrap(), b"keep me");
    assert!(!out.join(".bozkir-manifest.json").exists(), "the sidecar is the manifest now");
}

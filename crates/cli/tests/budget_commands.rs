//! The resource budget on the commands that lacked it (issue 20): `bake`, `export`, `classify`,
//! `atlas` and `pop-metric` weigh the memory and work their request implies before any work,
//! refuse with the numbers and the flag that raises the cap, and leave no output; the tileset
//! zip caps follow `--max-memory`. Small inputs and tiny caps keep every case fast.

use std::path::Path;
use std::process::{Command, Output};

fn bozkir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bozkir")).arg("--quiet").args(args).output().expect("run bozkir")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Exit 1 without a panic, stderr holding every one of `words`.
fn refused(o: &Output, words: &[&str]) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    for w in words {
        assert!(err.contains(w), "{w:?} not in {err}");
    }
    err
}

/// Nothing under `dir` but what was there: no new folder, no staging folder.
/// The sorted names in `dir`.
fn names(dir: &Path) -> Vec<std::ffi::OsString> {
    let mut v: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    v.sort();
    v
}

fn no_staging(dir: &Path) {
    for e in std::fs::read_dir(dir).unwrap() {
        let n = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!n.starts_with(".bozkir-staging"), "{n} left behind");
    }
}

#[test]
fn bake_export_and_classify_weigh_their_request_before_a_folder_is_made() {
    let t = tempfile::tempdir().unwrap();
    let terrain = t.path().join("t");
    ok(&bozkir(&["terrain", "--size", "33", "--seed", "5", "--out", s(&terrain)]));
    let before = names(&terrain);
    let out = t.path().join("o");
    // 10.7 KB of memory: below every one of these small requests.
    let tiny = ["--max-memory", "1e-5"];

    let bake = |budget: &[&str], scale: &str| {
        let mut a = budget.to_vec();
        a.extend(["bake", s(&terrain), "--scale", scale, "--out", s(&out)]);
        bozkir(&a)
    };
    // 33×33 cells at 2×: two textures of 66×66 texels.
    let err = refused(&bake(&tiny, "2"), &["a bake of 33×33 cells at 2× (66×66 texels", "--max-memory", "KiB"]);
    assert!(err.contains("above the cap of 10.5 KiB"), "{err}");
    assert!(!out.exists());
    refused(&bake(&["--max-work", "100"], "2"), &["a bake of 33×33", "8.712e3 steps", "--max-work"]);
    assert!(!out.exists());
    // The same request within the default budget goes through.
    ok(&bake(&[], "2"));
    std::fs::remove_dir_all(&out).unwrap();

    for engine in ["gltf", "obj", "unity", "unreal", "godot"] {
        let mut a = tiny.to_vec();
        a.extend(["export", s(&terrain), "--engine", engine, "--out", s(&out)]);
        refused(&bozkir(&a), &[&format!("an export ({engine}) of 33×33 cells"), "--max-memory"]);
        assert!(!out.exists(), "{engine}");
    }
    // Unity's smallest resolution is 33; Unreal's smallest recommended landscape 127.
    let mut a = tiny.to_vec();
    a.extend(["export", s(&terrain), "--engine", "unreal", "--size", "505", "--out", s(&out)]);
    refused(&bozkir(&a), &["as 505×505 samples", "--max-memory"]);
    ok(&bozkir(&["export", s(&terrain), "--engine", "gltf", "--out", s(&out)]));
    std::fs::remove_dir_all(&out).unwrap();

    let mut a = tiny.to_vec();
    a.extend(["classify", s(&terrain), "--grid", "16", "--out", s(&out)]);
    refused(
        &bozkir(&a),
        &["a classification of a 16×16 tile grid at 4 samples per tile (64×64 samples)", "--max-memory"],
    );
    assert!(!out.exists());
    let a = ["--max-work", "1000", "classify", s(&terrain), "--grid", "16", "--out", s(&out)];
    refused(&bozkir(&a), &["a classification of a 16×16 tile grid", "--max-work"]);
    assert!(!out.exists());
    // The terrain folder itself is untouched by every refusal.
    let after = names(&terrain);
    assert_eq!(before, after);
    no_staging(t.path());
}

#[test]
fn atlas_weighs_its_tiles_and_tileset_zips_follow_the_memory_cap() {
    let t = tempfile::tempdir().unwrap();
    let cap = t.path().join("c.ply");
    ok(&bozkir(&["capture", "synth", "--side", "4.5", "--density", "5000", "--materials", "1", "--out", s(&cap)]));
    let ts = t.path().join("ts");
    ok(&bozkir(&["tileset", s(&cap), "--classes", "1", "--lod", "1", "--zip", "--out", s(&ts)]));
    let zip = ts.join("ts.zip");
    assert!(zip.exists());
    let before = names(&ts);

    // An atlas at 512² px per tile under a 100 KB cap: refused before rendering, nothing written.
    let a = ["--max-memory", "1e-4", "atlas", s(&ts), "--res", "512"];
    refused(&bozkir(&a), &["an atlas of", "at 512×512 px", "--max-memory"]);
    let after = names(&ts);
    assert_eq!(before, after, "the atlas refusal wrote into the tileset");
    let a = ["--max-work", "1000", "atlas", s(&ts), "--res", "64"];
    refused(&bozkir(&a), &["an atlas of", "--max-work"]);
    ok(&bozkir(&["atlas", s(&ts), "--res", "16"]));

    // The zip's inflation caps are a quarter (in all) and an eighth (per file) of --max-memory:
    // 1e-5 GiB allows 1.3 KiB per file, less than the zipped manifest and splats.
    let a = ["--max-memory", "1e-5", "metrics", s(&zip)];
    refused(&bozkir(&a), &["over the limit of 1342 bytes per file", "--max-memory"]);
    let png = t.path().join("a.png");
    let a = ["--max-memory", "1e-5", "atlas", s(&zip), "--out", s(&png)];
    refused(&bozkir(&a), &["--max-memory"]);
    assert!(!png.exists());
    ok(&bozkir(&["metrics", s(&zip)]));
}

/// PNG bytes of a `w × h` grey frame with a pattern shifted by `shift` pixels.
fn frame(w: usize, h: usize, shift: usize) -> Vec<u8> {
    let px: Vec<u8> = (0..w * h).map(|i| (((i % w + shift) * 7 + (i / w) * 13) % 251) as u8).collect();
    let mut out = Vec::new();
    {
        let mut e = png::Encoder::new(&mut out, w as u32, h as u32);
        e.set_color(png::ColorType::Grayscale);
        e.set_depth(png::BitDepth::Eight);
        e.write_header().unwrap().write_image_data(&px).unwrap();
    }
    out
}

#[test]
fn pop_metric_weighs_the_frames_before_decoding_and_the_search_before_scoring() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("sweep");
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..4 {
        std::fs::write(dir.join(format!("f{i:04}.png")), frame(96, 64, 2 * i)).unwrap();
    }
    let json = t.path().join("r.json");
    // Memory: 4 frames of 96×64 grey pixels decode to 24 KiB, plus 96 KiB of luma; 10.7 KB is
    // refused before any frame is decoded.
    let a = ["--max-memory", "1e-5", "pop-metric", s(&dir), "--json", s(&json)];
    refused(&bozkir(&a), &["the sweep", "4 frames", "--max-memory"]);
    assert!(!json.exists());
    // Work: 3 pairs × 6144 pixels × (2·256 + 1)² offsets at the largest search radius.
    let a = ["--max-work", "1e8", "pop-metric", s(&dir), "--search", "256", "--json", s(&json)];
    refused(&bozkir(&a), &["the popping metric over 3 pairs of 96×64 frames", "263169 offsets", "--max-work"]);
    assert!(!json.exists());
    // Within the default budget the small search runs.
    ok(&bozkir(&["pop-metric", s(&dir), "--json", s(&json)]));
    assert!(json.exists());
}

//! Regression tests of issue 20's numeric findings (1, 2, 7, 10, 11), each from its
//! reproduction: the hostile inputs are generated here, and each refusal must name the numbers
//! and the flag that raises the cap, exit non-zero without a panic, and leave no output.

use std::path::Path;
use std::process::{Command, Output};

fn bozkir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bozkir")).args(args).output().expect("run bozkir")
}

/// A non-zero exit without a panic whose stderr holds every one of `words`.
fn refused(o: &Output, words: &[&str]) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!o.status.success(), "exit 0: {}", String::from_utf8_lossy(&o.stdout));
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    for w in words {
        assert!(err.contains(w), "{w:?} not in {err}");
    }
    err
}

/// A `w × h` float TIFF DEM with cells of `dx × dy` metres.
fn dem(path: &Path, w: usize, h: usize, dx: f64, dy: f64) {
    let g = bozkir_core::Grid::from_fn(w, h, |x, y| (x * 3 + y * 5) as f32 * 0.5).with_cell_size(dx, dy);
    bozkir_io::write_tiff_f32(path, &g).unwrap();
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn extreme_cell_aspect_ratio_is_refused_before_the_ray_table() {
    // Finding 1: dx = 10, dy = 1e-18 asked the sky view for 16·10¹⁹ samples per ray.
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join("p.tif");
    dem(&p, 16, 16, 10.0, 1e-18);
    let out = t.path().join("o");
    let err = refused(&bozkir(&["analyze", s(&p), "--out", s(&out)]), &["sky view", "--max-memory", "GiB"]);
    assert!(err.contains("1e-18"), "{err}");
    assert!(!out.exists(), "output folder left behind");
    // The same DEM through erode, refused before eroding (its diffusion sub-steps first).
    refused(&bozkir(&["erode", s(&p), "--out", s(&out), "--steps", "1"]), &["1e-18", "--max-work"]);
    assert!(!out.exists());
}

#[test]
fn unbounded_loops_are_refused_with_their_numbers() {
    // Finding 2: erode's diffusion sub-steps, heightmap's passes, patches' stride.
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join("d.tif");
    dem(&p, 16, 16, 10.0, 10.0);
    let out = t.path().join("o");
    let err = refused(&bozkir(&["erode", s(&p), "--out", s(&out), "--diffusion", "1e9"]), &["--max-work", "sub-steps"]);
    assert!(err.contains("κ·dt = 1.000e12"), "{err}");
    refused(&bozkir(&["erode", s(&p), "--out", s(&out), "--cell-size", "0.001"]), &["--max-work", "0.001 × 0.001 m"]);
    refused(
        &bozkir(&["heightmap", s(&p), "--out", s(&out), "--smooth", "1000000000"]),
        &["1000000000 smoothing passes", "--max-work"],
    );
    assert!(!out.exists());
    // The cap is a flag: a larger budget lets the same request through.
    let ok = bozkir(&["--max-work", "1e13", "heightmap", s(&p), "--out", s(&out), "--smooth", "3"]);
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    let cap = t.path().join("c.ply");
    let made = bozkir(&["capture", "synth", "--side", "1", "--density", "2000", "--out", s(&cap)]);
    assert!(made.status.success());
    refused(&bozkir(&["patches", s(&cap), "--out", s(&t.path().join("pp")), "--stride", "1e-9"]), &["stride", "0.02"]);
}

#[test]
fn synth_refuses_absurd_floaters_walls_and_tilts() {
    // Findings 7 and 10: 1e12 floaters (12 TB), 1e8 floaters (a 6.8 GB file), a wall at 1e308 m,
    // a NaN tilt.
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("c.ply");
    for (flag, v, words) in [
        ("--floaters", "1000000000000", &["floaters", "exceeds 50000000"][..]),
        ("--floaters", "100000000", &["exceeds 50000000"][..]),
        ("--background", "1e308", &["background 1e308", "100000"][..]),
        ("--tilt", "nan", &["tilt NaN", "finite"][..]),
        ("--patch", "1e-308", &["patch size"][..]),
    ] {
        refused(&bozkir(&["capture", "synth", "--out", s(&out), flag, v]), words);
        assert!(!out.exists(), "{flag} {v} wrote a file");
    }
    // Under the splat cap but over the memory budget: the budget names --max-memory.
    refused(
        &bozkir(&["--max-memory", "0.5", "capture", "synth", "--out", s(&out), "--floaters", "10000000"]),
        &["--max-memory"],
    );
}

#[test]
fn shares_that_do_not_sum_to_one_are_refused_with_the_sum() {
    // Finding 10: `--share 0.9,0.9,0.9` was silently normalised.
    let t = tempfile::tempdir().unwrap();
    let terrain = t.path().join("t");
    assert!(bozkir(&["terrain", "--profile", "canyon", "--size", "32", "--out", s(&terrain), "-q"]).status.success());
    let out = t.path().join("c");
    let args = ["classify", s(&terrain), "--classes", "3", "--grid", "8", "--out", s(&out), "--share"];
    let mut bad = args.to_vec();
    bad.push("0.9,0.9,0.9");
    refused(&bozkir(&bad), &["sum to 2.7", "not 1"]);
    assert!(!out.exists());
    let mut good = args.to_vec();
    good.push("0.2,0.5,0.3");
    assert!(bozkir(&good).status.success());
}

#[test]
fn tiny_cells_are_not_printed_as_zero() {
    // Finding 11: "10.00 × 0.00 m".
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join("p.tif");
    dem(&p, 8, 8, 10.0, 0.004);
    let o = bozkir(&["analyze", s(&p), "--out", s(&t.path().join("o")), "--tpi-radius", "2"]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout.contains("cells of 10.00 × 4.00e-3 m"), "{stdout}");
}

#[test]
fn budget_flags_are_checked() {
    for args in [["--max-memory", "0", "profiles"], ["--max-work", "nan", "profiles"]] {
        let o = bozkir(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains(args[0]));
    }
    let o = bozkir(&["--threads", "4294967297", "profiles"]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
}

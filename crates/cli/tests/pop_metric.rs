//! End-to-end tests of `bozkir pop-metric` on synthetic sweeps: a folder of PNG frames, the
//! same frames in a zip (stored and deflate entries), `--against`, and refusals.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bozkir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bozkir")).arg("--quiet").args(args).output().expect("run bozkir")
}

fn noise(x: f64, y: f64, cell: f64, seed: u32) -> f64 {
    bozkir_core::noise::value_noise_at(x, y, cell, seed)
}

/// PNG bytes of a frame: the ground shifted by (dx, dy), optionally a swapped patch.
fn frame(w: usize, h: usize, dx: f64, dy: f64, swap: bool) -> Vec<u8> {
    let mut px = Vec::with_capacity(w * h * 3);
    for y in 0..h {
        for x in 0..w {
            let (gx, gy) = if swap && (60..100).contains(&x) && (40..80).contains(&y) {
                (x as f64 + 3000.0, y as f64 - 900.0)
            } else {
                (x as f64 - dx, y as f64 - dy)
            };
            let t = 0.5 * noise(gx, gy, 19.0, 1) + 0.3 * noise(gx, gy, 8.0, 2) + 0.2 * noise(gx, gy, 4.0, 3);
            let v = (t * 255.0).round() as u8;
            px.extend_from_slice(&[v, (v as f64 * 0.9) as u8, (v as f64 * 0.7) as u8]);
        }
    }
    let mut out = Vec::new();
    {
        let mut e = png::Encoder::new(&mut out, w as u32, h as u32);
        e.set_color(png::ColorType::Rgb);
        e.set_depth(png::BitDepth::Eight);
        e.write_header().unwrap().write_image_data(&px).unwrap();
    }
    out
}

/// Seven frames panning east and a little south; frame 4 carries a swapped patch when `bad`.
fn frames(bad: bool) -> Vec<(String, Vec<u8>)> {
    (0..7).map(|i| (format!("f{i:04}.png"), frame(192, 144, 3.0 * i as f64, 1.0 * i as f64, bad && i == 4))).collect()
}

fn write_dir(dir: &Path, f: &[(String, Vec<u8>)]) {
    std::fs::create_dir_all(dir).unwrap();
    for (n, b) in f {
        std::fs::write(dir.join(n), b).unwrap();
    }
}

fn write_zip(path: &Path, f: &[(String, Vec<u8>)]) {
    let mut z = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    for (k, (n, b)) in f.iter().enumerate() {
        let m = if k % 2 == 0 { zip::CompressionMethod::Stored } else { zip::CompressionMethod::Deflated };
        z.start_file(n.as_str(), zip::write::SimpleFileOptions::default().compression_method(m)).unwrap();
        z.write_all(b).unwrap();
    }
    z.finish().unwrap();
}

fn json(p: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_folder_and_a_zip_score_alike_and_find_the_swap() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("frames");
    let zip = tmp.path().join("sweep.zip");
    let bad = frames(true);
    write_dir(&dir, &bad);
    write_zip(&zip, &bad);
    let (j1, j2, figs) = (tmp.path().join("a.json"), tmp.path().join("b.json"), tmp.path().join("figs"));
    let out = ok(&bozkir(&["pop-metric", s(&dir), "--json", s(&j1), "--out", s(&figs)]));
    assert!(out.contains("peak") && out.contains("f0003.png→f0004.png"), "{out}");
    ok(&bozkir(&["pop-metric", s(&zip), "--json", s(&j2)]));
    let (a, b) = (json(&j1), json(&j2));
    assert_eq!(a["sweep"]["pairs"], b["sweep"]["pairs"], "zip and folder read the same frames");
    let sw = &a["sweep"];
    let worst = sw["worst"].as_u64().unwrap();
    assert!(worst == 3 || worst == 4, "worst pair {worst}");
    assert!(sw["peak"].as_f64().unwrap() > 3.0 * sw["mean"].as_f64().unwrap(), "{sw}");
    // The pan is recovered on a clean pair.
    let p0 = &sw["pairs"][0];
    assert!((p0["dx"].as_f64().unwrap() - 3.0).abs() < 1.0 && (p0["dy"].as_f64().unwrap() - 1.0).abs() < 1.0, "{p0}");
    for f in ["worst-residual.png", "worst-a.png", "worst-b.png"] {
        let im = bozkir_io::read_rgb8(figs.join(f)).unwrap();
        assert_eq!((im.width(), im.height()), (192, 144), "{f}");
    }
}

#[test]
fn against_compares_two_sweeps_pair_by_pair() {
    let tmp = tempfile::tempdir().unwrap();
    let (bad, clean) = (tmp.path().join("bad"), tmp.path().join("clean"));
    write_dir(&bad, &frames(true));
    write_dir(&clean, &frames(false));
    let j = tmp.path().join("c.json");
    let out = ok(&bozkir(&["pop-metric", s(&clean), "--against", s(&bad), "--json", s(&j)]));
    assert!(out.contains("comparison:"), "{out}");
    let v = json(&j);
    assert_eq!(v["against"]["pairs"].as_array().unwrap().len(), 6);
    assert!(v["against"]["mean_ratio"].as_f64().unwrap() < 0.5, "{}", v["against"]);
    assert!(v["sweep"]["popped_peak"].as_f64().unwrap() < 0.02, "clean sweep: {}", v["sweep"]);
}

#[test]
fn bad_sweeps_are_refused_with_their_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let err = |args: &[&str]| {
        let o = bozkir(args);
        assert!(!o.status.success(), "{args:?} should fail");
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let missing: PathBuf = tmp.path().join("nope");
    assert!(err(&["pop-metric", s(&missing)]).contains("no such folder or zip"));
    let mixed = tmp.path().join("mixed");
    let mut f = frames(false);
    f[2].1 = frame(100, 144, 0.0, 0.0, false);
    write_dir(&mixed, &f);
    let e = err(&["pop-metric", s(&mixed)]);
    assert!(e.contains("differ in size") && e.contains("frames 1 and 2"), "{e}");
    let one = tmp.path().join("one");
    write_dir(&one, &frames(false)[..1]);
    assert!(err(&["pop-metric", s(&one)]).contains("at least 2"));
    let small = tmp.path().join("small");
    write_dir(
        &small,
        &[("f0000.png".into(), frame(20, 20, 0.0, 0.0, false)), ("f0001.png".into(), frame(20, 20, 0.0, 0.0, false))],
    );
    assert!(err(&["pop-metric", s(&small)]).contains("smaller than one 32×32 block"));
    let notzip = tmp.path().join("x.zip");
    std::fs::write(&notzip, b"hello").unwrap();
    assert!(err(&["pop-metric", s(&notzip)]).contains("not a folder or a zip"));
    assert!(err(&["pop-metric", s(&one), "--threshold", "2"]).contains("--threshold"));
}

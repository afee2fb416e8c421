//! End-to-end tests of `bozkir bake` on a small generated terrain.

use std::path::Path;
use std::process::{Command, Output};

fn bozkir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bozkir")).arg("--quiet").args(args).output().expect("run bozkir")
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

fn png_size(path: &Path) -> (u32, u32) {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n", "{}", path.display());
    let be = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    assert_eq!(b[25], 2, "{}: RGB", path.display());
    (be(16), be(20))
}

fn terrain(tmp: &Path) -> std::path::PathBuf {
    let t = tmp.join("t");
    let o = bozkir(&["terrain", "--size", "33", "--seed", "5", "--out", t.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    t
}

#[test]
fn bake_writes_textures_and_lists_them() {
    let tmp = tempfile::tempdir().unwrap();
    let t = terrain(tmp.path());
    let o = bozkir(&["bake", t.to_str().unwrap(), "--scale", "2"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // scale·n texels per side, texel centres over the grid's extent.
    assert_eq!(png_size(&t.join("albedo.png")), (66, 66));
    assert_eq!(png_size(&t.join("normal.png")), (66, 66));
    assert!(!listing(&t).iter().any(|f| f.starts_with(".bozkir-staging")));
    let sc = bozkir_io::read_sidecar(t.join("terrain.json")).unwrap();
    assert!(sc.files.iter().any(|f| f.path == "albedo.png" && f.role == "albedo"));
    assert!(sc.files.iter().any(|f| f.path == "normal.png" && f.role == "micro_normal"));
    assert!(sc.files.iter().any(|f| f.path == "height.tif"), "earlier entries kept");

    // Baking again replaces the entries; a separate --out gets just the textures, identical.
    let o = bozkir(&["bake", t.to_str().unwrap(), "--scale", "2"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let sc = bozkir_io::read_sidecar(t.join("terrain.json")).unwrap();
    assert_eq!(sc.files.iter().filter(|f| f.path == "albedo.png").count(), 1);
    let out = tmp.path().join("tex");
    let o = bozkir(&["bake", t.to_str().unwrap(), "--scale", "1", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The textures and the manifest of what bozkir wrote there (issue 20: a folder without a
    // terrain.json sidecar lists its outputs in `.bozkir-manifest.json`).
    assert_eq!(listing(&out), [".bozkir-manifest.json", "albedo.png", "normal.png"]);
    assert_eq!(png_size(&out.join("albedo.png")), (33, 33));
}

#[test]
fn bake_refuses_bad_input_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let t = terrain(tmp.path());
    let before = listing(&t);

    let o = bozkir(&["bake", t.to_str().unwrap(), "--scale", "5"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--scale 5"));

    let out = tmp.path().join("out");
    std::fs::remove_file(t.join("height.tif")).unwrap();
    let o = bozkir(&["bake", t.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("height.tif") && err.contains("no such file"), "{err}");
    assert!(!out.exists(), "nothing written");

    std::fs::write(t.join("height.tif"), b"not a tiff").unwrap();
    let o = bozkir(&["bake", t.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("height.tif"));
    assert_eq!(listing(&t), before, "nothing written into the terrain directory");
}

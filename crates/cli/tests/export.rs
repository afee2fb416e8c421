//! End-to-end tests of `bozkir export` for every engine, from a small generated terrain.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

fn bozkir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bozkir")).arg("--quiet").args(args).output().expect("run bozkir")
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// A 33² terrain generated once for all tests.
fn terrain() -> &'static Path {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &DIR.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("t");
        let o = bozkir(&["terrain", "--size", "33", "--seed", "5", "--out", out.to_str().unwrap()]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        (tmp, out)
    })
    .1
}

fn export(engine: &str, extra: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join(engine);
    let mut args = vec!["export", terrain().to_str().unwrap(), "--engine", engine, "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = bozkir(&args);
    assert!(o.status.success(), "{engine}: {}", String::from_utf8_lossy(&o.stderr));
    (tmp, out)
}

fn weights_present(files: &[String]) {
    assert!(files.iter().any(|f| f == "weights.json"), "{files:?}");
    assert!(files.iter().any(|f| f == "weights_splat0.png"), "{files:?}");
    assert!(files.iter().any(|f| f.starts_with("weights_class")), "{files:?}");
    assert!(files.iter().any(|f| f == "export.json"), "{files:?}");
}

#[test]
fn export_unity() {
    let (_t, out) = export("unity", &[]);
    let files = listing(&out);
    weights_present(&files);
    assert_eq!(std::fs::metadata(out.join("height.r16")).unwrap().len(), 33 * 33 * 2);
    let note: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("height.unity.json")).unwrap()).unwrap();
    assert_eq!(note["resolution"], 33);
    let (_t2, out2) = export("unity", &["--size", "129"]);
    assert_eq!(std::fs::metadata(out2.join("height.r16")).unwrap().len(), 129 * 129 * 2);
    let class = listing(&out2).into_iter().find(|f| f.starts_with("weights_class")).unwrap();
    let w = bozkir_io::read_png8(out2.join(class)).unwrap();
    assert_eq!(w.width(), 129);
}

#[test]
fn export_unreal_tiled() {
    let (_t, out) = export("unreal", &["--tile", "17"]);
    let files = listing(&out);
    for name in ["height_x0_y0.png", "height_x1_y0.png", "height_x0_y1.png", "height_x1_y1.png", "height.unreal.json"] {
        assert!(files.contains(&name.to_string()), "{name} in {files:?}");
    }
    assert_eq!(bozkir_io::read_png16(out.join("height_x1_y1.png")).unwrap().width(), 17);
    let (_t2, out2) = export("unreal", &[]);
    assert_eq!(bozkir_io::read_png16(out2.join("height.png")).unwrap().width(), 127);
    weights_present(&listing(&out2));
}

#[test]
fn export_unreal_tiles_the_weight_maps_like_the_heights() {
    // 33 vertices in 17-vertex tiles: 2 × 2 tiles sharing their middle row and column.
    let (_t, out) = export("unreal", &["--tile", "17"]);
    let files = listing(&out);
    let (_t2, flat) = export("unreal", &["--size", "33"]);
    let flat_files = listing(&flat);
    let layers: Vec<String> = flat_files
        .iter()
        .filter_map(|f| f.strip_prefix("weights_").and_then(|f| f.strip_suffix(".png")))
        .filter(|n| !n.starts_with("splat"))
        .map(str::to_string)
        .collect();
    let splats = flat_files.iter().filter(|f| f.starts_with("weights_splat")).count();
    assert!(!layers.is_empty() && splats > 0, "{flat_files:?}");
    // No untiled weight map next to tiled heights; every layer and splat map in 4 tiles.
    assert!(!files.iter().any(|f| f.starts_with("weights_") && !f.contains("_x")), "{files:?}");
    let tiled: Vec<&String> = files.iter().filter(|f| f.starts_with("weights_") && f.ends_with(".png")).collect();
    assert_eq!(tiled.len(), 4 * (layers.len() + splats), "{tiled:?}");
    assert!(files.contains(&"weights.json".to_string()));
    for layer in &layers {
        let whole = bozkir_io::read_png8(flat.join(format!("weights_{layer}.png"))).unwrap();
        assert_eq!((whole.width(), whole.height()), (33, 33));
        for (tx, ty) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let tile = bozkir_io::read_png8(out.join(format!("weights_{layer}_x{tx}_y{ty}.png"))).unwrap();
            assert_eq!((tile.width(), tile.height()), (17, 17), "{layer} {tx},{ty}");
            // Reassembled, the tiles are the untiled map.
            for y in 0..17 {
                for x in 0..17 {
                    assert_eq!(
                        tile.get(x, y),
                        whole.get(16 * tx + x, 16 * ty + y),
                        "{layer} tile {tx},{ty} at {x},{y}"
                    );
                }
            }
        }
    }
    let splat = bozkir_io::export::weights::read_rgba8(out.join("weights_splat0_x1_y1.png")).unwrap();
    let whole = bozkir_io::export::weights::read_rgba8(flat.join("weights_splat0.png")).unwrap();
    assert_eq!((splat.width(), splat.get(16, 16)), (17, whole.get(32, 32)));
    let manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("export.json")).unwrap()).unwrap();
    let listed: Vec<&str> = manifest["files"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert!(listed.contains(&"weights_splat0_x1_y0.png"), "{listed:?}");
}

/// The island recipe at 64², generated once.
fn island() -> &'static Path {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &DIR.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("island");
        let o = bozkir(&["terrain", "--recipe", "island", "--size", "64", "--out", out.to_str().unwrap()]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        (tmp, out)
    })
    .1
}

/// Files `prefix*.png` of `dir` read as 8-bit maps, with their names.
fn maps(dir: &Path, prefix: &str) -> Vec<(String, bozkir_core::Grid<u8>)> {
    listing(dir)
        .into_iter()
        .filter(|f| f.starts_with(prefix) && f.ends_with(".png") && !f.contains("splat"))
        .map(|f| {
            let g = bozkir_io::read_png8(dir.join(&f)).unwrap();
            (f, g)
        })
        .collect()
}

#[test]
fn island_soft_biome_weights_sum_to_255_and_agree_with_the_biome_map() {
    let dir = island();
    let soft = maps(dir, "biome_weights_");
    assert!(soft.len() >= 3, "{:?}", listing(dir));
    let hard = bozkir_io::read_png8(dir.join("biomes.png")).unwrap();
    let pal = bozkir_material::biomes::Palette::default_biomes();
    let id_of = |file: &str| -> u8 {
        let name = file.strip_prefix("biome_weights_").unwrap().strip_suffix(".png").unwrap().replace('_', " ");
        pal.id_of(&name).unwrap_or_else(|| panic!("{file} is not a palette biome"))
    };
    let n = hard.len();
    let mut agree = 0;
    for p in 0..n {
        assert_eq!(soft.iter().map(|(_, g)| g.data()[p] as u32).sum::<u32>(), 255, "pixel {p}");
        let best =
            soft.iter().fold((0u8, 0u8), |b, (f, g)| if g.data()[p] > b.1 { (id_of(f), g.data()[p]) } else { b });
        if best.0 == hard.data()[p] {
            agree += 1;
        }
    }
    // Measured at 64²: 4081 of 4096 pixels (99.63 %); the rest are ties after rounding to bytes
    // (e.g. 128 / 127 splits on class boundaries; the first largest in file order wins here).
    assert!(agree as f64 >= 0.99 * n as f64, "argmax agrees on {agree} of {n}");
    // `bozkir export` writes them (not one-hot class layers) as the engine's weight maps.
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("unity");
    let o = bozkir(&["export", dir.to_str().unwrap(), "--engine", "unity", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let w = maps(&out, "weights_");
    assert_eq!(w.len(), soft.len());
    let mut partial = 0;
    for p in 0..w[0].1.len() {
        assert_eq!(w.iter().map(|(_, g)| g.data()[p] as u32).sum::<u32>(), 255, "exported pixel {p}");
        partial += w.iter().any(|(_, g)| g.data()[p] != 0 && g.data()[p] != 255) as usize;
    }
    assert!(partial > 0, "soft weights blend somewhere");
    let manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("export.json")).unwrap()).unwrap();
    assert_eq!(manifest["soft_weights"].as_array().unwrap().len(), soft.len());
    assert!(manifest["class_map"].is_null());
}

#[test]
fn export_godot() {
    let (_t, out) = export("godot", &[]);
    let files = listing(&out);
    weights_present(&files);
    let (g, ch) = bozkir_io::export::exr::read_exr_f32(out.join("height.exr")).unwrap();
    assert_eq!(ch, "R");
    let tif = bozkir_io::read_tiff_f32(terrain().join("height.tif")).unwrap();
    assert_eq!(g.data(), tif.data());
    assert_eq!(std::fs::metadata(out.join("height.r16")).unwrap().len(), 33 * 33 * 2);
}

#[test]
fn export_gltf_and_obj() {
    let (_t, out) = export("gltf", &["--chunk", "16"]);
    let b = std::fs::read(out.join("terrain.glb")).unwrap();
    assert_eq!(&b[..4], b"glTF");
    assert_eq!(u32::from_le_bytes(b[8..12].try_into().unwrap()) as usize, b.len());
    let jlen = u32::from_le_bytes(b[12..16].try_into().unwrap()) as usize;
    let doc: serde_json::Value = serde_json::from_slice(&b[20..20 + jlen]).unwrap();
    assert_eq!(doc["nodes"].as_array().unwrap().len(), 4);
    let (_t2, out2) = export("obj", &["--chunk", "16"]);
    let text = std::fs::read_to_string(out2.join("terrain.obj")).unwrap();
    assert_eq!(text.lines().filter(|l| l.starts_with("f ")).count(), 32 * 32 * 2);
    weights_present(&listing(&out2));
}

#[test]
fn export_refuses_bad_input_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("o");
    let fails = |args: &[&str], needle: &str| {
        let o = bozkir(args);
        assert!(!o.status.success(), "{args:?} should fail");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains(needle), "{args:?}: {e:?} should mention {needle:?}");
        assert!(!out.exists(), "{args:?} left {}", out.display());
    };
    let o = out.to_str().unwrap();
    let missing = tmp.path().join("empty");
    std::fs::create_dir(&missing).unwrap();
    fails(&["export", missing.to_str().unwrap(), "--engine", "unity", "--out", o], "terrain.json");
    let broken = tmp.path().join("broken");
    std::fs::create_dir(&broken).unwrap();
    std::fs::copy(terrain().join("terrain.json"), broken.join("terrain.json")).unwrap();
    std::fs::write(broken.join("height.tif"), b"II*\0garbage").unwrap();
    fails(&["export", broken.to_str().unwrap(), "--engine", "godot", "--out", o], "height.tif");
    std::fs::copy(terrain().join("height.tif"), broken.join("height.tif")).unwrap();
    std::fs::write(broken.join("terrain.json"), b"{ not json").unwrap();
    fails(&["export", broken.to_str().unwrap(), "--engine", "gltf", "--out", o], "terrain.json");
    let t = terrain().to_str().unwrap();
    fails(&["export", t, "--engine", "unity", "--size", "100", "--out", o], "--size");
    fails(&["export", t, "--engine", "unreal", "--size", "1000", "--tile", "505", "--out", o], "--tile");
    fails(&["export", t, "--engine", "godot", "--tile", "17", "--out", o], "--tile");
    fails(&["export", t, "--engine", "obj", "--chunk", "0", "--out", o], "--chunk");
}

//! The fuzz target bodies, one `pub fn` per target, shared by the libFuzzer targets in
//! `fuzz/fuzz_targets/` and the corpus replay test `crates/cli/tests/fuzz_replay.rs` (both include
//! this file with `#[path]`), so the two cannot drift apart.
//!
//! Each body feeds arbitrary bytes to one parser. A parser may refuse the input with an error;
//! it must never panic. Parsers that take a path get the bytes through a scratch file in the
//! temporary directory (removed afterwards); the others are called in memory.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A target body: arbitrary bytes in, nothing out; it must not panic.
pub type Body = fn(&[u8]);

/// Every target: its name (the corpus folder under `fuzz/corpus/`) and its body.
pub const TARGETS: &[(&str, Body)] = &[
    ("geotiff", geotiff),
    ("npz", npz),
    ("npy", npy),
    ("png", png),
    ("ply_points", ply_points),
    ("ply_splats", ply_splats),
    ("dot_splat", dot_splat),
    ("spz", spz),
    ("glb", glb),
    ("las", las),
    ("recipe_toml", recipe_toml),
    ("rule_json", rule_json),
    ("tileset_zip", tileset_zip),
    ("tileset_manifest", tileset_manifest),
];

/// Inflation limits for the zip target: small, so one input cannot make the fuzzer slow.
const FUZZ_ZIP_BYTES: u64 = 16 << 20;

/// Write `data` to a fresh scratch file named `*.ext`, call `f` on its path, remove the file.
fn with_file(ext: &str, data: &[u8], f: impl FnOnce(&Path)) {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let path: PathBuf = std::env::temp_dir().join(format!("bozkir-fuzz-{}-{n}.{ext}", std::process::id()));
    std::fs::write(&path, data).expect("write the fuzz scratch file");
    f(&path);
    let _ = std::fs::remove_file(&path);
}

/// GeoTIFF: the DEM reader, the RGB orthophoto reader and the f32 TIFF reader on one file.
pub fn geotiff(data: &[u8]) {
    with_file("tif", data, |p| {
        let _ = bozkir_io::read_geotiff(p);
        let _ = bozkir_io::read_geotiff_rgb(p);
        let _ = bozkir_io::read_tiff_f32(p);
    });
}

/// NPZ: the whole-archive reader and the DEM reader.
pub fn npz(data: &[u8]) {
    with_file("npz", data, |p| {
        let _ = bozkir_io::read_npz(p);
        let _ = bozkir_io::read_npz_dem(p);
    });
}

/// NPY: one array, in memory.
pub fn npy(data: &[u8]) {
    let _ = bozkir_io::npy::parse_npy(Path::new("fuzz.npy"), "fuzz", data);
}

/// PNG: the 16-bit, 8-bit grey, RGB, RG16 and height readers on one file.
pub fn png(data: &[u8]) {
    with_file("png", data, |p| {
        let _ = bozkir_io::read_png16(p);
        let _ = bozkir_io::read_png8(p);
        let _ = bozkir_io::read_rgb8(p);
        let _ = bozkir_io::read_rg16(p);
        let _ = bozkir_io::read_height_png(p);
    });
}

/// PLY point clouds (`bozkir_io::read_ply_points`).
pub fn ply_points(data: &[u8]) {
    with_file("ply", data, |p| {
        let _ = bozkir_io::read_ply_points(p);
    });
}

/// 3DGS PLY splats, in memory.
pub fn ply_splats(data: &[u8]) {
    let _ = bozkir_splat::formats::ply::parse_ply(data, Path::new("fuzz.ply"));
}

/// antimatter15 `.splat`, in memory.
pub fn dot_splat(data: &[u8]) {
    let _ = bozkir_splat::formats::dot_splat::parse_splat(data, Path::new("fuzz.splat"));
}

/// Niantic SPZ, in memory.
pub fn spz(data: &[u8]) {
    let _ = bozkir_splat::formats::spz::parse_spz(data, Path::new("fuzz.spz"));
}

/// glTF binary (`KHR_gaussian_splatting`), in memory.
pub fn glb(data: &[u8]) {
    let _ = bozkir_splat::formats::glb::parse_glb(data, Path::new("fuzz.glb"));
}

/// LAS and LAZ (one reader; LAZ is told by its LASzip VLR).
pub fn las(data: &[u8]) {
    with_file("las", data, |p| {
        let _ = bozkir_io::read_las(p);
    });
}

/// Recipe TOML text (parsed and checked; not run).
pub fn recipe_toml(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = bozkir_recipe::parse(text, "fuzz.toml");
    }
}

/// Classification rule JSON text.
pub fn rule_json(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = bozkir_material::rule::Rule::from_json(text);
    }
}

/// A tileset zip (`tileset.json` with `tiles.splat` or `tiles.ply`), inflation capped small.
pub fn tileset_zip(data: &[u8]) {
    use bozkir_splat::formats::tileset::{read_with, ZipLimits};
    with_file("zip", data, |p| {
        let _ = read_with(p, ZipLimits { entry_bytes: FUZZ_ZIP_BYTES, total_bytes: FUZZ_ZIP_BYTES });
    });
}

/// A tileset's manifest and splat bytes, as a folder holds them, in memory. The input is
/// a little-endian u32 length `n`, then `n` bytes of `tileset.json`, then the splat file.
pub fn tileset_manifest(data: &[u8]) {
    if data.len() < 4 {
        return;
    }
    let n = u32::from_le_bytes([data[0], data[1], data[2], data[3]]) as usize;
    let rest = &data[4..];
    let (manifest, splats) = rest.split_at(n.min(rest.len()));
    let _ = bozkir_splat::formats::tileset::parse_parts(manifest, splats, Path::new("fuzz-tileset"));
}

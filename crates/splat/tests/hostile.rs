//! Hostile inputs for every splat reader (issue 20, findings 7, 8 and 10): PLY, `.splat`, SPZ,
//! GLB and tileset folders and zips, generated here — truncated at every byte, with huge, zero,
//! NaN and wrong-typed fields. Each must give a typed error naming the file, never a panic, and
//! never an allocation sized from an unverified header.

mod common;

use bozkir_io::IoError;
use bozkir_splat::formats::dot_splat::{encode_splat, parse_splat};
use bozkir_splat::formats::glb::{encode_glb, parse_glb, split_glb};
use bozkir_splat::formats::ply::{encode_ply, parse_ply};
use bozkir_splat::formats::spz::{encode_spz, parse_spz};
use bozkir_splat::formats::tileset::{self, read, read_with, TilesetFileError, ZipLimits};
use bozkir_splat::formats::PlyEncoding;
use bozkir_splat::tiling::starter::{starter, StarterParams};
use bozkir_splat::SplatError;
use common::synthetic;
use serde_json::Value;
use std::io::Write;
use std::path::Path;

fn name(ext: &str) -> std::path::PathBuf {
    Path::new("hostile").with_extension(ext)
}

/// Replace every 4-byte word of `bytes` (every `step` bytes) in turn by each of `values`.
fn mutate_words(bytes: &[u8], values: &[u32], step: usize, mut f: impl FnMut(&[u8])) {
    let mut b = bytes.to_vec();
    let mut o = 0;
    while o + 4 <= bytes.len() {
        for v in values {
            b[o..o + 4].copy_from_slice(&v.to_le_bytes());
            f(&b);
        }
        b[o..o + 4].copy_from_slice(&bytes[o..o + 4]);
        o += step;
    }
}

/// Every error must name the file.
fn named(e: SplatError, file: &Path) -> SplatError {
    assert!(e.to_string().contains(&*file.to_string_lossy()), "{e}");
    e
}

// ------------------------------------------------------------------ PLY

#[test]
fn ply_truncated_at_every_byte_or_with_hostile_words_is_refused() {
    let s = synthetic(6, 1, 11);
    let n = name("ply");
    for enc in [PlyEncoding::BinaryLittleEndian, PlyEncoding::BinaryBigEndian, PlyEncoding::Ascii] {
        let good = encode_ply(&s, enc);
        let body = good.windows(11).position(|w| w == b"end_header\n").unwrap() + 11;
        for cut in 0..good.len() {
            // ASCII may end at a whole number early in the last value; binary never reads.
            if enc != PlyEncoding::Ascii || cut < good.len() - 40 {
                named(parse_ply(&good[..cut], &n).unwrap_err(), &n);
            }
        }
        mutate_words(&good[body..], &[0x7FC0_0000, 0xFFFF_FFFF], 4, |tail| {
            let mut b = good[..body].to_vec();
            b.extend_from_slice(tail);
            let _ = parse_ply(&b, &n);
        });
    }
    // Hostile vertex counts and property types in the header.
    let text = String::from_utf8_lossy(&encode_ply(&s, PlyEncoding::Ascii)).into_owned();
    for count in ["0", "-6", "268435457", "99999999999999999999999", "6e3", "nan"] {
        let b = text.replacen("element vertex 6", &format!("element vertex {count}"), 1);
        named(parse_ply(b.as_bytes(), &n).unwrap_err(), &n);
    }
    for ty in ["int128", "half", "list uchar float", ""] {
        let b = text.replacen("property float x", &format!("property {ty} x"), 1);
        named(parse_ply(b.as_bytes(), &n).unwrap_err(), &n);
    }
}

#[test]
fn ply_nan_in_any_field_is_refused_with_the_first_splat_index() {
    // Finding 10: NaN scales and opacities used to read (and draw as ground).
    let s = synthetic(8, 0, 5);
    let good = encode_ply(&s, PlyEncoding::BinaryLittleEndian);
    let body = good.windows(11).position(|w| w == b"end_header\n").unwrap() + 11;
    // Degree-0 record: x y z nx ny nz f_dc×3 opacity scale×3 rot×4 (17 floats).
    for (slot, what) in
        [(1, "position"), (6, "colour (SH coefficient)"), (9, "opacity"), (11, "scale"), (15, "rotation")]
    {
        for v in [f32::NAN, f32::INFINITY] {
            let mut b = good.clone();
            for i in [3usize, 6] {
                let o = body + i * 68 + slot * 4;
                b[o..o + 4].copy_from_slice(&v.to_le_bytes());
            }
            let e = parse_ply(&b, &name("ply")).unwrap_err();
            assert!(matches!(e, SplatError::NonFinite { what: w, index: 3, count: 2, .. } if w == what), "{slot}: {e}");
            assert!(e.to_string().contains("first: splat 3"), "{e}");
        }
    }
}

// ------------------------------------------------------------------ .splat

#[test]
fn dot_splat_nan_scale_bad_lengths_and_truncations_are_refused() {
    let s = synthetic(5, 0, 3);
    let good = encode_splat(&s);
    let n = name("splat");
    let mut b = good.clone();
    b[2 * 32 + 16..2 * 32 + 20].copy_from_slice(&f32::NAN.to_le_bytes());
    b[4 * 32 + 12..4 * 32 + 16].copy_from_slice(&f32::NAN.to_le_bytes());
    let e = parse_splat(&b, &n).unwrap_err();
    assert!(matches!(e, SplatError::NonFinite { what: "scale", index: 2, count: 2, .. }), "{e}");
    for cut in 0..good.len() {
        if cut % 32 != 0 || cut == 0 {
            named(parse_splat(&good[..cut], &n).unwrap_err(), &n);
        }
    }
    // Read from disk too: the streaming reader refuses the same.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("nan.splat");
    std::fs::write(&p, &b).unwrap();
    let e = bozkir_splat::formats::load(&p).unwrap_err();
    assert!(matches!(e, SplatError::NonFinite { what: "scale", index: 2, .. }), "{e}");
}

// ------------------------------------------------------------------ SPZ

/// A gzip stream of `bytes`.
fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

#[test]
fn spz_huge_counts_and_truncations_are_refused_without_allocating() {
    let n = name("spz");
    // Header claiming 2^28 points (the limit) over 16 bytes of body: about 5 GB were reserved
    // before; now what really inflates is read, then refused.
    for (count, degree) in [(1u32 << 28, 3u8), ((1 << 28) + 1, 0), (u32::MAX, 0), (0, 0), (1000, 9)] {
        let mut h = 0x5053_474eu32.to_le_bytes().to_vec();
        h.extend_from_slice(&2u32.to_le_bytes());
        h.extend_from_slice(&count.to_le_bytes());
        h.extend_from_slice(&[degree, 12, 0, 0]);
        h.extend_from_slice(&[0u8; 16]);
        named(parse_spz(&gz(&h), &n).unwrap_err(), &n);
    }
    let good = encode_spz(&synthetic(7, 2, 9));
    for cut in 0..good.len() {
        named(parse_spz(&good[..cut], &n).unwrap_err(), &n);
    }
    mutate_words(&good, &[0, 0xFFFF_FFFF], 1, |b| {
        let _ = parse_spz(b, &n);
    });
}

// ------------------------------------------------------------------ GLB

/// One change to a GLB's JSON document.
type Edit<'a> = Box<dyn Fn(&mut Value) + 'a>;

/// A GLB from a JSON document and a BIN chunk.
fn glb(doc: &Value, bin: &[u8]) -> Vec<u8> {
    let mut js = serde_json::to_vec(doc).unwrap();
    while !js.len().is_multiple_of(4) {
        js.push(b' ');
    }
    let total = 12 + 8 + js.len() + 8 + bin.len();
    let mut out = Vec::new();
    for v in [0x4654_6C67u32, 2, total as u32, js.len() as u32, 0x4E4F_534A] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&js);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(&0x004E_4942u32.to_le_bytes());
    out.extend_from_slice(bin);
    out
}

#[test]
fn glb_wrong_types_views_past_the_bin_chunk_and_huge_counts_are_refused() {
    let s = synthetic(4, 1, 2);
    let good = encode_glb(&s);
    let n = name("glb");
    let (doc, bin) = split_glb(&good, &n).unwrap();
    let bin = bin.to_vec();
    assert_eq!(parse_glb(&glb(&doc, &bin), &n).unwrap().len(), 4);
    let pos = doc["meshes"][0]["primitives"][0]["attributes"]["POSITION"].as_u64().unwrap() as usize;
    let view = doc["accessors"][pos]["bufferView"].as_u64().unwrap() as usize;
    let edit = |f: &dyn Fn(&mut Value)| {
        let mut d = doc.clone();
        f(&mut d);
        parse_glb(&glb(&d, &bin), &n)
    };
    // Finding 10: a MAT4 POSITION, and a bufferView past the BIN chunk, read as if fine.
    let e = edit(&|d| d["accessors"][pos]["type"] = "MAT4".into()).unwrap_err();
    assert!(matches!(e, SplatError::Io(IoError::Malformed { .. })) && e.to_string().contains("MAT4"), "{e}");
    let e = edit(&|d| {
        let len = d["bufferViews"][view]["byteLength"].as_u64().unwrap();
        d["bufferViews"][view]["byteLength"] = (len + 4096).into();
    })
    .unwrap_err();
    assert!(matches!(e, SplatError::Io(IoError::Truncated { .. })) && e.to_string().contains("BIN chunk"), "{e}");
    // Huge, zero, negative and wrong-typed fields.
    let cases: Vec<(&str, Edit)> = vec![
        ("count 2^40", Box::new(|d| d["accessors"][pos]["count"] = (1u64 << 40).into())),
        ("count MAX_SPLATS", Box::new(|d| d["accessors"][pos]["count"] = (1u64 << 28).into())),
        ("count 0", Box::new(|d| d["accessors"][pos]["count"] = 0.into())),
        ("count -1", Box::new(|d| d["accessors"][pos]["count"] = (-1).into())),
        ("count string", Box::new(|d| d["accessors"][pos]["count"] = "4".into())),
        ("type VEC2", Box::new(|d| d["accessors"][pos]["type"] = "VEC2".into())),
        ("componentType byte", Box::new(|d| d["accessors"][pos]["componentType"] = 5120.into())),
        ("stride 0", Box::new(|d| d["bufferViews"][view]["byteStride"] = 4.into())),
        ("stride huge", Box::new(|d| d["bufferViews"][view]["byteStride"] = (1u64 << 62).into())),
        ("offset huge", Box::new(|d| d["bufferViews"][view]["byteOffset"] = u64::MAX.into())),
        ("accessor offset", Box::new(|d| d["accessors"][pos]["byteOffset"] = (1u64 << 33).into())),
        ("no view", Box::new(|d| d["accessors"][pos]["bufferView"] = 999.into())),
        ("no accessor", Box::new(|d| d["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = 999.into())),
        ("buffer 1", Box::new(|d| d["bufferViews"][view]["buffer"] = 1.into())),
        ("no meshes", Box::new(|d| d["meshes"] = Value::Null)),
    ];
    for (what, f) in &cases {
        let e = edit(f.as_ref()).unwrap_err();
        assert!(e.to_string().contains("hostile.glb"), "{what}: {e}");
    }
    // Truncated at every byte; hostile words in the container and chunk headers.
    for cut in 0..good.len() {
        named(parse_glb(&good[..cut], &n).unwrap_err(), &n);
    }
    mutate_words(&good[..32], &[0, 0xFFFF_FFFF, 0x7FFF_FFFF], 4, |head| {
        let mut b = head.to_vec();
        b.extend_from_slice(&good[32..]);
        let _ = parse_glb(&b, &n);
    });
}

// ------------------------------------------------------------------ tilesets

/// A small tileset's files (manifest, `.splat`, `.ply`).
fn tileset_files() -> Vec<(String, Vec<u8>)> {
    let (ts, _, _, _) = starter(&StarterParams { per_side: 4, levels: 1, atlas_res: 0, ..StarterParams::default() });
    tileset::encode(&ts, None).unwrap()
}

/// A deflated zip of `files`.
fn zip_of(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    tileset::zip_bytes(files).unwrap()
}

#[test]
fn tileset_with_no_tiles_is_refused() {
    // Finding 10: a manifest listing 0 tiles gave exit 0.
    let mut files = tileset_files();
    let mut m: Value = serde_json::from_slice(&files[0].1).unwrap();
    m["tiles"] = Value::Array(vec![]);
    files[0].1 = serde_json::to_vec(&m).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (n, b) in &files {
        std::fs::write(dir.path().join(n), b).unwrap();
    }
    let e = read(dir.path()).unwrap_err();
    assert!(matches!(e, TilesetFileError::NoTiles { .. }) && e.to_string().contains("no tiles"), "{e}");
    let z = dir.path().join("t.zip");
    std::fs::write(&z, zip_of(&files)).unwrap();
    let e = read(&z).unwrap_err();
    assert!(matches!(e, TilesetFileError::NoTiles { .. }) && e.to_string().contains("t.zip"), "{e}");
}

#[test]
fn tileset_zip_inflation_is_capped_per_entry_and_in_total() {
    // Finding 8: a 1.1 MB zip inflating to 1 GiB was read whole. Here with small limits (the
    // defaults are 512 MiB per entry and 1 GiB in total) and 2 MiB of zeros per entry.
    let dir = tempfile::tempdir().unwrap();
    let files = tileset_files();
    let z = dir.path().join("bomb.zip");
    let mut bomb = files.clone();
    bomb[1].1 = vec![0u8; 2 << 20]; // tiles.splat: 65 536 zero rows
    std::fs::write(&z, zip_of(&bomb)).unwrap();
    assert!(std::fs::metadata(&z).unwrap().len() < 20_000);
    let small = ZipLimits { entry_bytes: 1 << 20, total_bytes: 4 << 20 };
    let e = read_with(&z, small).unwrap_err();
    assert!(matches!(e, TilesetFileError::EntryTooLarge { claimed: Some(2097152), .. }), "{e}");
    assert!(
        e.to_string().contains("tiles.splat inflates to 2097152 bytes") && e.to_string().contains("1048576"),
        "{e}"
    );
    // Headers that understate the size: the bounded reader stops at the limit all the same.
    let mut lying = std::fs::read(&z).unwrap();
    let mut at = 0;
    while let Some(p) = lying[at..].windows(4).position(|w| w == b"PK\x03\x04" || w == b"PK\x01\x02") {
        let o = at + p;
        let size_at = if &lying[o..o + 4] == b"PK\x03\x04" { o + 22 } else { o + 24 };
        let name_len_at = if &lying[o..o + 4] == b"PK\x03\x04" { o + 26 } else { o + 28 };
        let nl = u16::from_le_bytes([lying[name_len_at], lying[name_len_at + 1]]) as usize;
        let name_at = if &lying[o..o + 4] == b"PK\x03\x04" { o + 30 } else { o + 46 };
        if &lying[name_at..name_at + nl] == b"tiles.splat" {
            lying[size_at..size_at + 4].copy_from_slice(&1000u32.to_le_bytes());
        }
        at = o + 4;
    }
    let zl = dir.path().join("lying.zip");
    std::fs::write(&zl, &lying).unwrap();
    let e = read_with(&zl, small).unwrap_err();
    assert!(matches!(e, TilesetFileError::EntryTooLarge { claimed: None, .. } | TilesetFileError::Entry { .. }), "{e}");
    // Under the per-entry limit but over the total.
    let e = read_with(&z, ZipLimits { entry_bytes: 4 << 20, total_bytes: 2 << 20 }).unwrap_err();
    assert!(matches!(e, TilesetFileError::TotalTooLarge { .. }) && e.to_string().contains("2097152"), "{e}");
    // A header claiming more than the default 512 MiB is refused before reading.
    let mut claim = std::fs::read(&z).unwrap();
    let mut at = 0;
    while let Some(p) = claim[at..].windows(4).position(|w| w == b"PK\x03\x04" || w == b"PK\x01\x02") {
        let o = at + p;
        let size_at = if &claim[o..o + 4] == b"PK\x03\x04" { o + 22 } else { o + 24 };
        claim[size_at..size_at + 4].copy_from_slice(&0xF000_0000u32.to_le_bytes());
        at = o + 4;
    }
    let zc = dir.path().join("claim.zip");
    std::fs::write(&zc, &claim).unwrap();
    let e = read(&zc).unwrap_err();
    assert!(matches!(e, TilesetFileError::EntryTooLarge { claimed: Some(4026531840), .. }), "{e}");
    // Within the limits, the same tileset reads.
    std::fs::write(&z, zip_of(&files)).unwrap();
    assert!(read_with(&z, small).is_ok());
}

#[test]
fn tileset_zip_truncated_or_with_hostile_words_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let good = zip_of(&tileset_files());
    let z = dir.path().join("t.zip");
    for k in 0..60 {
        let cut = k * good.len() / 60;
        std::fs::write(&z, &good[..cut]).unwrap();
        assert!(read(&z).is_err(), "{cut}");
    }
    let tail = good.len().saturating_sub(200);
    mutate_words(&good[tail..], &[0, 0xFFFF_FFFF], 2, |end| {
        let mut b = good[..tail].to_vec();
        b.extend_from_slice(end);
        std::fs::write(&z, &b).unwrap();
        let _ = read(&z);
    });
}

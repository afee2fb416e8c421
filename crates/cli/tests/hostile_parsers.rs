//! Hostile files through the binary (issue 20, findings 7, 8, 10 and 11, the parsers' part):
//! each generated here, each refused with a non-zero exit, a message naming the problem and its
//! numbers, and no output folder left behind.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bozkir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bozkir")).arg("--quiet").args(args).output().expect("run bozkir")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Run `args`, expect a failure whose message holds every one of `want`; return the message.
fn refused(args: &[&str], want: &[&str]) -> String {
    let o = bozkir(args);
    let e = stderr(&o);
    assert!(!o.status.success(), "{args:?} exited 0: {e}");
    for w in want {
        assert!(e.contains(w), "{args:?}: {w:?} not in {e}");
    }
    assert!(!e.contains("panicked"), "{e}");
    e
}

fn put(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A one-strip little-endian TIFF `w × h`, `bits` per sample, sample format `fmt`, with
/// `claimed` bytes in its strip and `data` after the IFD.
fn tiff(w: u32, h: u32, bits: u16, fmt: u16, claimed: u32, data: &[u8]) -> Vec<u8> {
    let tags: [(u16, u16, u32); 10] = [
        (256, 4, w),
        (257, 4, h),
        (258, 3, u32::from(bits)),
        (259, 3, 1),
        (262, 3, 1),
        (273, 4, 8 + 2 + 12 * 10 + 4),
        (277, 3, 1),
        (278, 4, h),
        (279, 4, claimed),
        (339, 3, u32::from(fmt)),
    ];
    let mut out = b"II*\0".to_vec();
    out.extend_from_slice(&8u32.to_le_bytes());
    out.extend_from_slice(&(tags.len() as u16).to_le_bytes());
    for (tag, ty, v) in tags {
        out.extend_from_slice(&tag.to_le_bytes());
        out.extend_from_slice(&ty.to_le_bytes());
        out.extend_from_slice(&1u32.to_le_bytes());
        if ty == 3 {
            out.extend_from_slice(&(v as u16).to_le_bytes());
            out.extend_from_slice(&[0, 0]);
        } else {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(data);
    out
}

fn npy(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
    let mut h = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + h.len() + 1) % 64 != 0 {
        h.push(' ');
    }
    h.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(h.len() as u16).to_le_bytes());
    out.extend_from_slice(h.as_bytes());
    out.extend_from_slice(data);
    out
}

/// A stored zip written by hand (no zip crate here): local headers, central directory, end.
fn zip_stored(entries: &[(&str, Vec<u8>)]) -> Vec<u8> {
    fn crc32(bytes: &[u8]) -> u32 {
        let mut c = 0xFFFF_FFFFu32;
        for &b in bytes {
            c ^= u32::from(b);
            for _ in 0..8 {
                c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
            }
        }
        !c
    }
    let (mut out, mut cd) = (Vec::new(), Vec::new());
    for (name, data) in entries {
        let at = out.len() as u32;
        let crc = crc32(data);
        let common = |v: &mut Vec<u8>| {
            v.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // version, flags, method 0, time, date
            v.extend_from_slice(&crc.to_le_bytes());
            v.extend_from_slice(&(data.len() as u32).to_le_bytes());
            v.extend_from_slice(&(data.len() as u32).to_le_bytes());
            v.extend_from_slice(&(name.len() as u16).to_le_bytes());
            v.extend_from_slice(&[0, 0]);
        };
        out.extend_from_slice(b"PK\x03\x04");
        common(&mut out);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        cd.extend_from_slice(b"PK\x01\x02\x14\x00");
        common(&mut cd);
        cd.extend_from_slice(&[0; 8]); // comment length, disk, internal and external attributes
        cd.extend_from_slice(&[0; 2]);
        cd.extend_from_slice(&at.to_le_bytes());
        cd.extend_from_slice(name.as_bytes());
    }
    let cd_at = out.len() as u32;
    out.extend_from_slice(&cd);
    out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(cd.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd_at.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}

/// Set the uncompressed size of every entry of a zip (local and central headers) to `size`.
fn claim_size(zip: &mut [u8], size: u32) {
    let mut at = 0;
    while let Some(p) = zip[at..].windows(4).position(|w| w == b"PK\x03\x04" || w == b"PK\x01\x02") {
        let o = at + p;
        let field = if &zip[o..o + 4] == b"PK\x03\x04" { o + 22 } else { o + 24 };
        zip[field..field + 4].copy_from_slice(&size.to_le_bytes());
        at = o + 4;
    }
}

#[test]
fn finding_7_header_claims_are_refused_with_the_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    // A 262-byte TIFF claiming 32768² float64 (8 GiB).
    let mut t = tiff(32768, 32768, 64, 3, 40, &[0; 40]);
    t.resize(262, 0);
    let p = put(dir.path(), "claim.tif", &t);
    refused(&["analyze", s(&p), "--out", s(&out)], &["claim.tif", "truncated", "8589934592 bytes", "hold 40 bytes"]);
    assert!(!out.exists());
    // A 2 KB NPZ whose zip headers claim a 4 GiB entry.
    let elev: Vec<u8> = (0..200).flat_map(|i| f64::from(i).to_le_bytes()).collect();
    let mut z = zip_stored(&[("elevation.npy", npy("<f8", "(10, 20)", &elev))]);
    claim_size(&mut z, 0xF000_0000);
    assert!(z.len() < 2048);
    let p = put(dir.path(), "claim.npz", &z);
    refused(&["analyze", s(&p), "--out", s(&out)], &["claim.npz", "claims 4026531840 bytes", "at most"]);
    assert!(!out.exists());
}

#[test]
fn finding_8_tileset_zip_inflation_is_capped() {
    let dir = tempfile::tempdir().unwrap();
    // A tileset zip whose headers say its files inflate to 4 GB each (over 512 MiB per file).
    let mut z = zip_stored(&[("tileset.json", b"{}".to_vec()), ("tiles.splat", vec![0; 64])]);
    claim_size(&mut z, 0xF000_0000);
    let p = put(dir.path(), "bomb.zip", &z);
    for cmd in ["metrics", "atlas"] {
        let out = dir.path().join(format!("{cmd}.png"));
        let args: Vec<&str> = if cmd == "atlas" { vec![cmd, s(&p), "--out", s(&out)] } else { vec![cmd, s(&p)] };
        refused(&args, &["bomb.zip", "inflates to 4026531840 bytes", "limit of 536870912 bytes"]);
        assert!(!out.exists());
    }
}

#[test]
fn finding_10_garbage_is_refused_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    // TIFF BitsPerSample 7 and 0.
    let p = put(dir.path(), "b7.tif", &tiff(8, 8, 7, 1, 64, &[1; 64]));
    refused(&["analyze", s(&p), "--out", s(&out)], &["b7.tif", "unsupported", "7 bits per sample"]);
    let p = put(dir.path(), "b0.tif", &tiff(8, 8, 0, 1, 64, &[1; 64]));
    refused(&["analyze", s(&p), "--out", s(&out)], &["b0.tif", "BitsPerSample 0"]);
    // NPZ dx/dy of 0, negative, NaN, inf.
    let elev: Vec<u8> = (0..64).flat_map(|i| (100.0 + f64::from(i)).to_le_bytes()).collect();
    for (key, v) in [("dx", 0.0), ("dy", -1.0), ("dx", f64::NAN), ("dy", f64::INFINITY)] {
        let z = zip_stored(&[
            ("elevation.npy", npy("<f8", "(8, 8)", &elev)),
            (&format!("{key}.npy"), npy("<f8", "()", &v.to_le_bytes())),
        ]);
        let p = put(dir.path(), "dx.npz", &z);
        refused(&["analyze", s(&p), "--out", s(&out)], &["dx.npz", &format!("{key} = {v}"), "finite number above 0"]);
    }
    assert!(!out.exists());
    // A GLB with a MAT4 POSITION, and one with a bufferView past the BIN chunk.
    let splats = {
        let mut sp = bozkir_splat::Splats::new(0);
        for i in 0..4 {
            sp.push_decoded([i as f32, 0.0, 0.0], [0.1; 3], [1.0, 0.0, 0.0, 0.0], 0.5, [0.0; 3], &[]);
        }
        sp
    };
    let good = bozkir_splat::formats::glb::encode_glb(&splats);
    let (doc, bin) = bozkir_splat::formats::glb::split_glb(&good, Path::new("x.glb")).unwrap();
    let glb = |doc: &serde_json::Value| {
        let mut js = serde_json::to_vec(doc).unwrap();
        while !js.len().is_multiple_of(4) {
            js.push(b' ');
        }
        let total = 12 + 8 + js.len() + 8 + bin.len();
        let mut o = Vec::new();
        for v in [0x4654_6C67u32, 2, total as u32, js.len() as u32, 0x4E4F_534A] {
            o.extend_from_slice(&v.to_le_bytes());
        }
        o.extend_from_slice(&js);
        o.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        o.extend_from_slice(&0x004E_4942u32.to_le_bytes());
        o.extend_from_slice(bin);
        o
    };
    let pos = doc["meshes"][0]["primitives"][0]["attributes"]["POSITION"].as_u64().unwrap() as usize;
    let mut d = doc.clone();
    d["accessors"][pos]["type"] = "MAT4".into();
    let p = put(dir.path(), "mat4.glb", &glb(&d));
    refused(&["inspect", s(&p)], &["mat4.glb", "MAT4", "must be VEC3"]);
    let mut d = doc.clone();
    let view = d["accessors"][pos]["bufferView"].as_u64().unwrap() as usize;
    d["bufferViews"][view]["byteLength"] = 100_000.into();
    let p = put(dir.path(), "view.glb", &glb(&d));
    refused(&["inspect", s(&p)], &["view.glb", "past the", "BIN chunk"]);
    // NaN scale and opacity in a PLY: refused with the first bad splat's index.
    let mut nan = splats.clone();
    let mut b = bozkir_splat::formats::ply::encode_ply(&nan, bozkir_splat::formats::PlyEncoding::BinaryLittleEndian);
    let body = b.windows(11).position(|w| w == b"end_header\n").unwrap() + 11;
    for (i, slot) in [(2usize, 10usize), (3, 9)] {
        let o = body + i * 68 + slot * 4;
        b[o..o + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    }
    let p = put(dir.path(), "nan.ply", &b);
    refused(&["inspect", s(&p)], &["nan.ply", "2 splats with a NaN or infinite scale", "first: splat 2"]);
    // The same in a .splat (linear scales): first bad row named.
    nan.truncate_sh(0);
    let mut b = bozkir_splat::formats::dot_splat::encode_splat(&nan);
    b[32 + 12..32 + 16].copy_from_slice(&f32::NAN.to_le_bytes());
    let p = put(dir.path(), "nan.splat", &b);
    refused(&["inspect", s(&p)], &["nan.splat", "NaN or infinite scale", "first: splat 1"]);
    // A tileset listing 0 tiles.
    let ts = dir.path().join("ts");
    std::fs::create_dir(&ts).unwrap();
    let params =
        bozkir_splat::tiling::starter::StarterParams { per_side: 4, levels: 1, atlas_res: 0, ..Default::default() };
    let (t, w, h, px) = bozkir_splat::tiling::starter::starter(&params);
    bozkir_splat::formats::tileset::write_folder(&ts, &t, w.max(1), h.max(1), vec![[0; 3]; w.max(1) * h.max(1)])
        .unwrap();
    drop(px);
    let m = ts.join("tileset.json");
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&m).unwrap()).unwrap();
    v["tiles"] = serde_json::Value::Array(vec![]);
    std::fs::write(&m, serde_json::to_vec(&v).unwrap()).unwrap();
    refused(&["metrics", s(&ts)], &["tiles.splat", "lists no tiles"]);
}

#[test]
fn finding_11_messages_name_the_real_problem_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    // A 1-bit TIFF: "unsupported: 1 bit per sample", not "truncated".
    let p = put(dir.path(), "b1.tif", &tiff(8, 8, 1, 1, 8, &[0xAA; 8]));
    let e = refused(&["analyze", s(&p), "--out", s(&out)], &["b1.tif", "unsupported", "1 bit per sample"]);
    assert!(!e.contains("truncated"), "{e}");
    // An OS error printed once.
    let d = dir.path().join("d.tif");
    std::fs::create_dir(&d).unwrap();
    let e = refused(&["analyze", s(&d), "--out", s(&out)], &["d.tif", "Is a directory"]);
    assert_eq!(e.matches("Is a directory").count(), 1, "{e}");
    let d = dir.path().join("d.ply");
    std::fs::create_dir(&d).unwrap();
    let e = refused(&["inspect", s(&d)], &["d.ply", "Is a directory"]);
    assert_eq!(e.matches("Is a directory").count(), 1, "{e}");
    // A symlink loop: the OS's own words, not "no such file".
    #[cfg(unix)]
    for ext in ["tif", "ply"] {
        let a = dir.path().join(format!("a.{ext}"));
        let b = dir.path().join(format!("b.{ext}"));
        std::os::unix::fs::symlink(&b, &a).unwrap();
        std::os::unix::fs::symlink(&a, &b).unwrap();
        let args: Vec<&str> =
            if ext == "tif" { vec!["analyze", s(&a), "--out", s(&out)] } else { vec!["inspect", s(&a)] };
        let e = refused(&args, &["symbolic links"]);
        assert!(!e.contains("no such file"), "{e}");
    }
    assert!(!out.exists());
    let _ = std::io::stderr().flush();
}

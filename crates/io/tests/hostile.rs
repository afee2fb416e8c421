//! Hostile inputs for every reader of `bozkir-io` (issue 20, findings 7, 10 and 11): files
//! generated here, truncated at every byte, with huge, zero, negative and NaN fields and
//! wrong types. Each must give a typed [`IoError`] naming the file, never a panic, and never
//! an allocation sized from an unverified header (the cases below that claim gigabytes run in
//! milliseconds because nothing is allocated).

mod common;

use bozkir_core::Grid;
use bozkir_io::las::{read_las, write_las, LasLayout};
use bozkir_io::plyfmt::Format as PlyFormat;
use bozkir_io::{
    read_dem, read_geotiff, read_geotiff_rgb, read_height_png, read_npz_dem, read_ply_points, read_png16, read_png8,
    read_r16, read_rg16, read_rgb8, read_sidecar, read_tiff_f32, write_ply_points, write_png16, write_tiff_f32,
    IoError,
};
use common::{npy, zip_of, TmpDir};
use std::path::Path;

// ------------------------------------------------------------------ helpers

/// A classic little-endian TIFF: header, one IFD of `tags` `(tag, type, count, value)` (3 SHORT,
/// 4 LONG; one value, inline), then `data`. A value of `u32::MAX` for tag 273 (StripOffsets)
/// becomes the offset of `data`. Tags must be in ascending order.
fn tiff(tags: &[(u16, u16, u32, u32)], data: &[u8]) -> Vec<u8> {
    let ifd_len = 2 + 12 * tags.len() + 4;
    let data_at = (8 + ifd_len) as u32;
    let mut out = b"II*\0".to_vec();
    out.extend_from_slice(&8u32.to_le_bytes());
    out.extend_from_slice(&(tags.len() as u16).to_le_bytes());
    for &(tag, ty, count, value) in tags {
        let value = if tag == 273 && value == u32::MAX { data_at } else { value };
        out.extend_from_slice(&tag.to_le_bytes());
        out.extend_from_slice(&ty.to_le_bytes());
        out.extend_from_slice(&count.to_le_bytes());
        if ty == 3 {
            out.extend_from_slice(&(value as u16).to_le_bytes());
            out.extend_from_slice(&[0, 0]);
        } else {
            out.extend_from_slice(&value.to_le_bytes());
        }
    }
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(data);
    out
}

/// The tags of a one-strip greyscale image `w × h` with `bits` per sample, sample format
/// `fmt` (1 uint, 3 float), `compression`, and `bytes` bytes in its strip.
fn image_tags(w: u32, h: u32, bits: u16, fmt: u16, compression: u16, bytes: u32) -> Vec<(u16, u16, u32, u32)> {
    vec![
        (256, 4, 1, w),
        (257, 4, 1, h),
        (258, 3, 1, u32::from(bits)),
        (259, 3, 1, u32::from(compression)),
        (262, 3, 1, 1),
        (273, 4, 1, u32::MAX),
        (277, 3, 1, 1),
        (278, 4, 1, h),
        (279, 4, 1, bytes),
        (339, 3, 1, u32::from(fmt)),
    ]
}

/// Write `bytes` to `dir/name` and return the path.
fn put(dir: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// Every TIFF reader on `p`: each must fail (or succeed) without panicking; errors name the file.
fn all_tiff_readers(p: &Path) -> Vec<Result<(), IoError>> {
    let rs = vec![
        read_geotiff(p).map(|_| ()),
        read_tiff_f32(p).map(|_| ()),
        read_geotiff_rgb(p).map(|_| ()),
        read_dem(p).map(|_| ()),
    ];
    for e in rs.iter().filter_map(|r| r.as_ref().err()) {
        assert!(e.to_string().contains(&*p.to_string_lossy()), "{e}");
    }
    rs
}

/// zlib's CRC-32, for PNG chunks.
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

/// A 3 × 2 float64 elevation with extra scalar entries.
fn npz_with(extra: &[(&str, f64)]) -> Vec<u8> {
    let elev: Vec<u8> = (0..6).flat_map(|i| (100.0 + i as f64).to_le_bytes()).collect();
    let mut entries = vec![("elevation.npy", npy("<f8", "(2, 3)", &elev))];
    let names: Vec<String> = extra.iter().map(|(k, _)| format!("{k}.npy")).collect();
    for ((_, v), n) in extra.iter().zip(&names) {
        entries.push((n.as_str(), npy("<f8", "()", &v.to_le_bytes())));
    }
    zip_of(&entries, false)
}

/// Replace every 4-byte little-endian word of `bytes` in turn by each of `values` and call `f`
/// (nothing may panic).
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

// ------------------------------------------------------------------ TIFF

#[test]
fn tiff_claiming_8_gib_in_262_bytes_is_refused_before_allocating() {
    // Finding 7: 32768² float64 = 8 GiB claimed; the strip holds 40 bytes.
    let dir = TmpDir::new("hostile-tiff-claim");
    let mut bytes = tiff(&image_tags(32768, 32768, 64, 3, 1, 40), &[0u8; 40]);
    bytes.resize(262, 0);
    let p = put(&dir, "claim.tif", &bytes);
    for r in all_tiff_readers(&p) {
        let e = r.unwrap_err();
        assert!(matches!(e, IoError::Truncated { .. }), "{e}");
        assert!(e.to_string().contains("8589934592 bytes"), "{e}");
    }
    // The same claim, Deflate-compressed: 40 bytes inflate to at most 40 × 1032 (+1 KiB).
    let p = put(&dir, "deflate.tif", &tiff(&image_tags(32768, 32768, 64, 3, 8, 40), &[0u8; 40]));
    let e = read_geotiff(&p).unwrap_err();
    assert!(matches!(e, IoError::Truncated { .. }) && e.to_string().contains("at most 42304 decoded"), "{e}");
    // A strip that claims 4 GB past the end of the file.
    let p = put(&dir, "past.tif", &tiff(&image_tags(16, 16, 32, 3, 1, 4_000_000_000), &[0u8; 64]));
    let e = read_geotiff(&p).unwrap_err();
    assert!(matches!(e, IoError::Truncated { .. }) && e.to_string().contains("runs past the end"), "{e}");
}

#[test]
fn tiff_bits_per_sample_0_1_7_are_refused_by_name() {
    // Finding 10 (BitsPerSample 7 or 0 gave exit 0) and 11 (1 bit reported as "truncated").
    let dir = TmpDir::new("hostile-tiff-bits");
    for (bits, want) in [(0u16, "BitsPerSample 0"), (1, "1 bit per sample"), (7, "7 bits per sample"), (12, "12 bits")]
    {
        let p = put(&dir, &format!("b{bits}.tif"), &tiff(&image_tags(8, 8, bits, 1, 1, 64), &[7u8; 64]));
        for r in all_tiff_readers(&p) {
            let e = r.unwrap_err();
            assert!(e.to_string().contains(want), "{bits}: {e}");
            if bits == 0 {
                assert!(matches!(e, IoError::Malformed { .. }), "{e}");
            } else {
                assert!(matches!(e, IoError::Unsupported { .. }) && e.to_string().contains("unsupported"), "{e}");
            }
        }
    }
    // No BitsPerSample tag at all means 1 bit (the TIFF default): refused the same way.
    let tags: Vec<_> = image_tags(8, 8, 8, 1, 1, 64).into_iter().filter(|t| t.0 != 258).collect();
    let p = put(&dir, "nobits.tif", &tiff(&tags, &[7u8; 64]));
    let e = read_geotiff(&p).unwrap_err();
    assert!(e.to_string().contains("1 bit per sample"), "{e}");
    // The crafted layout itself is fine: 8 bits read.
    let p = put(&dir, "b8.tif", &tiff(&image_tags(8, 8, 8, 1, 1, 64), &[7u8; 64]));
    assert_eq!(*read_geotiff(&p).unwrap().heights.get(3, 3), 7.0);
}

#[test]
fn tiff_truncated_at_every_byte_and_with_hostile_words_never_panics() {
    let dir = TmpDir::new("hostile-tiff-trunc");
    let p = dir.join("h.tif");
    write_tiff_f32(&p, &Grid::from_fn(5, 3, |x, y| (x + 10 * y) as f32).with_cell_size(2.0, 3.0)).unwrap();
    let good = std::fs::read(&p).unwrap();
    let q = dir.join("t.tif");
    for n in 0..good.len() {
        std::fs::write(&q, &good[..n]).unwrap();
        for r in all_tiff_readers(&q) {
            assert!(r.is_err(), "{n} of {} bytes read", good.len());
        }
    }
    // Huge, zero and sign-flipped words everywhere (offsets, counts, sizes, tag types).
    mutate_words(&good, &[0, 0xFFFF_FFFF, 0x7FFF_FFFF, 0x0001_0000], 2, |b| {
        std::fs::write(&q, b).unwrap();
        let _ = all_tiff_readers(&q);
    });
}

// ------------------------------------------------------------------ PNG

/// `good` with its IHDR width and height replaced (and the chunk's CRC fixed).
fn png_claiming(good: &[u8], w: u32, h: u32) -> Vec<u8> {
    let mut b = good.to_vec();
    b[16..20].copy_from_slice(&w.to_be_bytes());
    b[20..24].copy_from_slice(&h.to_be_bytes());
    let crc = crc32(&b[12..29]);
    b[29..33].copy_from_slice(&crc.to_be_bytes());
    b
}

#[test]
fn png_claiming_gigabytes_is_refused_before_allocating() {
    let dir = TmpDir::new("hostile-png");
    let p = dir.join("h.png");
    write_png16(&p, &Grid::from_fn(4, 3, |x, y| (x * y) as f64), 0.0, 6.0).unwrap();
    let good = std::fs::read(&p).unwrap();
    // 65536 × 16384 16-bit samples = 2 GiB from a file of ~80 bytes.
    let q = put(&dir, "claim.png", &png_claiming(&good, 65536, 16384));
    let e = read_png16(&q).unwrap_err();
    assert!(matches!(e, IoError::Truncated { .. }) && e.to_string().contains("1032"), "{e}");
    // Zero and over-the-limit sides.
    for (w, h) in [(0, 3), (4, 0), (70_000, 1), (65536, 65536)] {
        let q = put(&dir, "side.png", &png_claiming(&good, w, h));
        assert!(read_png16(&q).is_err(), "{w}×{h}");
    }
    // Truncated at every byte; hostile words everywhere (the CRC catches most, nothing panics).
    let q = dir.join("t.png");
    // (Without only its 12-byte IEND chunk, the image is whole and reads.)
    for n in 0..good.len() - 12 {
        std::fs::write(&q, &good[..n]).unwrap();
        assert!(read_png16(&q).is_err(), "{n}");
        for r in [read_png8(&q).map(|_| ()), read_rgb8(&q).map(|_| ()), read_rg16(&q).map(|_| ())] {
            assert!(r.is_err(), "{n} of {}", good.len());
        }
        assert!(read_height_png(&q).is_err());
    }
    mutate_words(&good, &[0, 0xFFFF_FFFF, 0x7FFF_FFFF], 1, |b| {
        std::fs::write(&q, b).unwrap();
        let _ = read_png16(&q);
        let _ = read_height_png(&q);
    });
}

// ------------------------------------------------------------------ NPZ / NPY

#[test]
fn npz_claiming_4_gib_in_2_kb_is_refused_before_allocating() {
    // Finding 7: a small NPZ whose zip headers claim a 4 GiB entry.
    let dir = TmpDir::new("hostile-npz-claim");
    let elev: Vec<u8> = (0..200).flat_map(|i| f64::from(i).to_le_bytes()).collect();
    let mut bytes = zip_of(&[("elevation.npy", npy("<f8", "(10, 20)", &elev))], true);
    let claim = 0xF000_0000u32; // 4 026 531 840 bytes
                                // Local header: uncompressed size at 22; central directory entry (PK\1\2): at 24.
    bytes[22..26].copy_from_slice(&claim.to_le_bytes());
    let cd = bytes.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
    bytes[cd + 24..cd + 28].copy_from_slice(&claim.to_le_bytes());
    assert!(bytes.len() < 2048);
    let p = put(&dir, "claim.npz", &bytes);
    let e = read_npz_dem(&p).unwrap_err();
    assert!(matches!(e, IoError::Malformed { .. }) && e.to_string().contains("claims 4026531840 bytes"), "{e}");
    // An NPY header claiming a 100000² array with 8 bytes of data.
    let p = put(&dir, "shape.npz", &zip_of(&[("elevation.npy", npy("<f8", "(100000, 100000)", &[0; 8]))], false));
    assert!(matches!(read_npz_dem(&p).unwrap_err(), IoError::TooMany { .. }));
    let p = put(&dir, "shape2.npz", &zip_of(&[("elevation.npy", npy("<f8", "(1000, 1000)", &[0; 8]))], false));
    assert!(matches!(read_npz_dem(&p).unwrap_err(), IoError::Truncated { .. }));
}

#[test]
fn npz_claiming_4_gib_stored_bytes_in_a_small_file_is_refused_before_allocating() {
    // Found by the `npz` fuzz target (fuzz/artifacts/npz/oom-5a763e49...): the central directory
    // claims ~4 GiB stored and ~4 GiB inflated, so the inflation bound let a 4 GiB buffer through.
    let dir = TmpDir::new("hostile-npz-stored-claim");
    let elev: Vec<u8> = (0..200).flat_map(|i| f64::from(i).to_le_bytes()).collect();
    let mut bytes = zip_of(&[("elevation.npy", npy("<f8", "(10, 20)", &elev))], true);
    let cd = bytes.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
    // Central directory entry: compressed size at 20, uncompressed size at 24.
    bytes[cd + 20..cd + 24].copy_from_slice(&0xFFFF_FFA1u32.to_le_bytes());
    bytes[cd + 24..cd + 28].copy_from_slice(&0xFFFF_FF6Fu32.to_le_bytes());
    let p = put(&dir, "stored-claim.npz", &bytes);
    let e = read_npz_dem(&p).unwrap_err();
    assert!(matches!(e, IoError::Truncated { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(msg.contains("claims 4294967201 stored bytes") && msg.contains("stored-claim.npz"), "{msg}");
}

#[test]
fn npz_cell_spacing_of_0_negative_nan_or_inf_is_refused() {
    // Finding 10: these used to read silently as 1 m.
    let dir = TmpDir::new("hostile-npz-dx");
    let ok = read_npz_dem(put(&dir, "ok.npz", &npz_with(&[("dx", 2.0), ("dy", 3.0)]))).unwrap();
    assert_eq!((ok.heights.dx, ok.heights.dy), (2.0, 3.0));
    for key in ["dx", "dy"] {
        for v in [0.0, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let other = if key == "dx" { "dy" } else { "dx" };
            let p = put(&dir, "bad.npz", &npz_with(&[(key, v), (other, 1.0)]));
            let e = read_npz_dem(&p).unwrap_err();
            assert!(matches!(e, IoError::Malformed { .. }), "{key}={v}: {e}");
            assert!(e.to_string().contains(&format!("{key} = {v}")) && e.to_string().contains("bad.npz"), "{e}");
        }
    }
}

#[test]
fn npz_wrong_types_shapes_and_truncations_are_refused() {
    let dir = TmpDir::new("hostile-npz");
    let f8 = |n: usize| vec![0u8; 8 * n];
    for (descr, shape, data) in [
        (">f8", "(2, 3)", f8(6)),
        ("<c16", "(2, 3)", f8(12)),
        ("<f8", "(2, 3, 1)", f8(6)),
        ("<f8", "(-2, 3)", f8(6)),
        ("<f8", "(2, x)", f8(6)),
        ("<f8", "(0, 3)", f8(0)),
        ("<f8", "(18446744073709551615, 2)", f8(6)),
        ("<f8", "(4294967296, 4294967296)", f8(6)),
        ("<f8", "(2, 3", f8(6)),
    ] {
        let p = put(&dir, "w.npz", &zip_of(&[("elevation.npy", npy(descr, shape, &data))], false));
        let e = read_npz_dem(&p).unwrap_err();
        assert!(e.to_string().contains("w.npz"), "{descr} {shape}: {e}");
    }
    // A valid NPZ truncated at every byte, and with hostile words (deflated and stored).
    for deflate in [false, true] {
        let elev: Vec<u8> = (0..6).flat_map(|i| f64::from(i).to_le_bytes()).collect();
        let good = zip_of(&[("elevation.npy", npy("<f8", "(2, 3)", &elev))], deflate);
        let q = dir.join("t.npz");
        for n in 0..good.len() {
            std::fs::write(&q, &good[..n]).unwrap();
            assert!(read_npz_dem(&q).is_err(), "{n}");
        }
        mutate_words(&good, &[0, 0xFFFF_FFFF], 3, |b| {
            std::fs::write(&q, b).unwrap();
            let _ = read_npz_dem(&q);
        });
    }
}

// ------------------------------------------------------------------ point clouds

#[test]
fn ply_points_hostile_headers_and_truncations_are_refused() {
    let dir = TmpDir::new("hostile-ply");
    let pts: Vec<[f64; 3]> = (0..6).map(|i| [i as f64, 2.0 * i as f64, 0.5]).collect();
    for fmt in [PlyFormat::Ascii, PlyFormat::Little, PlyFormat::Big] {
        let p = dir.join("p.ply");
        write_ply_points(&p, &pts, fmt).unwrap();
        let good = std::fs::read(&p).unwrap();
        let q = dir.join("t.ply");
        for n in 0..good.len() {
            std::fs::write(&q, &good[..n]).unwrap();
            let _ = read_ply_points(&q); // ASCII may stop at a whole number; nothing panics
        }
        let text = String::from_utf8_lossy(&good).into_owned();
        let head_end = text.find("end_header").unwrap();
        for count in ["0", "-1", "99999999999999999999", "1000000000000", "268435457", "nan", "6 7"] {
            let mut b = text[..head_end].replace("element vertex 6", &format!("element vertex {count}")).into_bytes();
            b.extend_from_slice(&good[head_end..]);
            std::fs::write(&q, &b).unwrap();
            let e = read_ply_points(&q).unwrap_err();
            assert!(e.to_string().contains("t.ply"), "{count}: {e}");
        }
        for ty in ["int128", "float16", "list uchar", ""] {
            let b = text.replacen("property double x", &format!("property {ty} x"), 1);
            std::fs::write(&q, b.as_bytes()).unwrap();
            let _ = read_ply_points(&q);
        }
    }
}

#[test]
fn las_hostile_headers_and_truncations_are_refused() {
    let dir = TmpDir::new("hostile-las");
    let p = dir.join("p.las");
    let xyz: Vec<[f64; 3]> = (0..5).map(|i| [i as f64, 1.0, 2.0]).collect();
    write_las(&p, &xyz, &[2; 5], &LasLayout::default()).unwrap();
    let good = std::fs::read(&p).unwrap();
    let q = dir.join("t.las");
    for n in 0..good.len() {
        std::fs::write(&q, &good[..n]).unwrap();
        assert!(read_las(&q).is_err(), "{n}");
    }
    // The point count (offset 107) claiming 2^32 − 1 points in a 400-byte file.
    let mut b = good.clone();
    b[107..111].copy_from_slice(&u32::MAX.to_le_bytes());
    std::fs::write(&q, &b).unwrap();
    let e = read_las(&q).unwrap_err();
    assert!(matches!(e, IoError::TooMany { .. } | IoError::Truncated { .. }), "{e}");
    mutate_words(&good, &[0, 0xFFFF_FFFF, 0x7FC0_0000], 2, |b| {
        std::fs::write(&q, b).unwrap();
        let _ = read_las(&q);
    });
    // The real LAZ file cut at its structural boundaries (header, VLRs, first chunk, chunk
    // table at the end) and with hostile words in its header.
    let laz = std::fs::read(format!("{}/../../data/lidar/autzen_trim.laz", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let q = dir.join("t.laz");
    for n in [0, 4, 100, 226, 227, 375, 1000, 2000, 4096, laz.len() - 8] {
        std::fs::write(&q, &laz[..n]).unwrap();
        assert!(read_las(&q).is_err(), "{n}");
    }
    mutate_words(&laz[..400], &[0, 0xFFFF_FFFF], 8, |head| {
        let mut b = head.to_vec();
        b.extend_from_slice(&laz[400..4096]);
        std::fs::write(&q, &b).unwrap();
        let _ = read_las(&q);
    });
}

// ------------------------------------------------------------------ raw, JSON, OS errors

#[test]
fn r16_and_sidecar_garbage_is_refused() {
    let dir = TmpDir::new("hostile-misc");
    let p = put(&dir, "h.r16", &[1, 2, 3]);
    assert!(read_r16(&p, None).is_err());
    assert!(read_r16(&p, Some((usize::MAX, 2))).is_err());
    for text in ["", "{", "[]", "null", "{\"format_version\": 1e999}", "\u{0}"] {
        let p = put(&dir, "terrain.json", text.as_bytes());
        let e = read_sidecar(&p).unwrap_err();
        assert!(e.to_string().contains("terrain.json"), "{e}");
    }
}

#[test]
fn os_errors_are_printed_once_and_name_their_real_kind() {
    // Finding 11: "Is a directory (os error 21): Is a directory (os error 21)" — the message
    // holds the system's text, so the error must not also give it as its source.
    let dir = TmpDir::new("hostile-os");
    let d = dir.join("d.tif");
    std::fs::create_dir(&d).unwrap();
    let e = read_geotiff(&d).unwrap_err();
    assert!(matches!(e, IoError::Io { .. }), "{e}");
    assert!(std::error::Error::source(&e).is_none(), "{e}");
    let e = bozkir_io::json::read_json::<serde_json::Value>(put(&dir, "x.json", b"{oops")).unwrap_err();
    assert!(matches!(e, IoError::NotJson { .. }) && std::error::Error::source(&e).is_none(), "{e}");
    // A symlink loop is reported as the loop it is, not as a missing file.
    #[cfg(unix)]
    {
        let a = dir.join("a.tif");
        let b = dir.join("b.tif");
        std::os::unix::fs::symlink(&b, &a).unwrap();
        std::os::unix::fs::symlink(&a, &b).unwrap();
        let e = read_dem(&a).unwrap_err();
        match &e {
            IoError::Io { error, .. } => assert_eq!(error.raw_os_error(), Some(40), "{e}"), // ELOOP
            other => panic!("{other}"),
        }
        assert!(e.to_string().contains("symbolic links"), "{e}");
    }
}

/// Found by fuzzing (fuzz/artifacts/geotiff/oom-8ed2e083): a tag whose count claims far more
/// values than the file holds (here a ModelTiepointTag of 83,886,086 doubles in a small file) is
/// refused from the raw IFD, before the decoder reserves room for it (it asked for 2.68 GB).
#[test]
fn a_tag_claiming_more_values_than_the_file_holds_is_refused_before_allocating() {
    let dir = TmpDir::new("hostile-tag-count");
    let mut tags = image_tags(3, 2, 32, 3, 1, 24);
    tags.push((33922, 12, 83_886_086, 18_432));
    let p = put(&dir, "tag.tif", &tiff(&tags, &[0u8; 24]));
    for r in all_tiff_readers(&p) {
        let e = r.unwrap_err().to_string();
        assert!(e.contains("tag 33922 claims 83886086 values"), "{e}");
    }
    let crash = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/artifacts/geotiff/oom-8ed2e083");
    let e = read_geotiff(&crash).unwrap_err().to_string();
    assert!(e.contains("claims 83886086 values"), "{e}");
}

/// Fuzz finding (target `las`, 7 KB): corrupt LAZ data made the `laz` crate recurse once per
/// GPS-time "context switch" code until the stack overflowed and the process aborted. Built here
/// from the real LAZ file with its compressed points overwritten by 0xFF (200 KB of it needed
/// more than a 1 GiB stack before the fix): the reader now holds each point to a compressed-byte
/// budget on a thread of its own and refuses the file.
#[test]
fn laz_gps_context_switch_recursion_is_refused_not_a_stack_overflow() {
    let dir = TmpDir::new("hostile-laz-switch");
    let good = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/lidar/autzen_trim.laz")).unwrap();
    let offset = u32::from_le_bytes(good[96..100].try_into().unwrap()) as usize;
    for fill in [0xFFu8, 0x7F, 0x00] {
        let mut bad = good.clone();
        // Keep the chunk-table pointer, the first raw point and the chunk table at the end.
        let end = bad.len() - 4096;
        bad[offset + 8 + 64..end].fill(fill);
        let p = put(&dir, &format!("switch-{fill:02x}.laz"), &bad);
        match bozkir_io::read_las(&p) {
            // Zeros happen to decode as valid points; what matters is that nothing aborts.
            Ok(pts) => assert_eq!(fill, 0x00, "{} points from 0x{fill:02x} filler", pts.xyz.len()),
            Err(e) => {
                let msg = e.to_string();
                assert!(msg.contains("LAZ"), "{msg}");
            }
        }
    }
}

/// Fuzz finding (target `las`, 7,976 bytes, the 450 s device run): a LASzip VLR listing a Point10
/// item declared 8 bytes long made the `laz` crate split each record by the declared sizes and
/// then decode 20 bytes into 8 ("mid > len" panic). Built here from the real LAZ by turning its
/// GpsTime item (8 bytes) into a Point10 item: refused, naming the item.
#[test]
fn laz_item_declared_with_the_wrong_size_for_its_type_is_refused() {
    let dir = TmpDir::new("hostile-laz-items");
    let mut bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/lidar/autzen_trim.laz")).unwrap();
    let at = bytes.windows(14).position(|w| w == b"laszip encoded").expect("LASzip VLR");
    // The VLR body starts 54 bytes after the header's start (2 bytes before the user id).
    let body = at - 2 + 54;
    let n = u16::from_le_bytes([bytes[body + 32], bytes[body + 33]]) as usize;
    let items: Vec<(u16, u16)> = (0..n)
        .map(|i| {
            let o = body + 34 + 6 * i;
            (u16::from_le_bytes([bytes[o], bytes[o + 1]]), u16::from_le_bytes([bytes[o + 2], bytes[o + 3]]))
        })
        .collect();
    let gps = items.iter().position(|&(t, s)| t == 7 && s == 8).expect("a GpsTime item");
    bytes[body + 34 + 6 * gps] = 6; // Point10, still declared 8 bytes
    let p = put(&dir, "items.laz", &bytes);
    let msg = bozkir_io::read_las(&p).unwrap_err().to_string();
    assert!(msg.contains("declares 8 bytes") && msg.contains("Point10"), "{msg}");
}

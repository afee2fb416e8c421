//! Round trips of the raster formats we write, and refusal of broken files.

use bozkir_core::Grid;
use bozkir_io::*;
mod common;
use common::TmpDir;
use std::path::Path;

fn tmp_dir(name: &str) -> TmpDir {
    TmpDir::new(name)
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// A deterministic test surface in metres with cell size 30 m.
fn terrain(w: usize, h: usize) -> Grid<f64> {
    Grid::from_fn(w, h, |x, y| {
        let (u, v) = (x as f64 / w as f64, y as f64 / h as f64);
        1200.0 + 800.0 * (6.0 * u).sin() * (4.0 * v).cos() + 37.0 * ((x * 7919 + y * 104_729) % 97) as f64 / 97.0
    })
    .with_cell_size(30.0, 30.0)
}

fn assert_names_file(err: &IoError, path: &Path, what: &str) {
    let msg = err.to_string();
    assert!(msg.contains(&path.display().to_string()), "message {msg:?} does not name {}", path.display());
    assert!(msg.to_lowercase().contains(what), "message {msg:?} does not say {what:?}");
    assert_eq!(err.path(), path);
}

#[test]
fn png16_round_trip_is_exact() {
    let dir = tmp_dir("png16");
    // Every code once: 256 × 256.
    let codes = Grid::from_fn(256, 256, |x, y| (y * 256 + x) as u16);
    let p = dir.join("all.png");
    write_png16_codes(&p, &codes).unwrap();
    assert_eq!(read_png16(&p).unwrap(), codes);
    // Heights: codes are those of the quantiser, heights within half a step.
    let g = terrain(97, 61);
    let (lo, hi) = g.min_max().unwrap();
    let p = dir.join("t.png");
    write_png16(&p, &g, lo, hi).unwrap();
    let back = read_png16(&p).unwrap();
    assert_eq!((back.width(), back.height()), (97, 61));
    assert_eq!(back.data(), &quantise_u16(&p, &g, lo, hi).unwrap()[..]);
    let m = dequantise_u16(&back, lo, hi);
    let step = (hi - lo) / 65535.0;
    for (a, b) in m.data().iter().zip(g.data()) {
        assert!((a - b).abs() <= step / 2.0 + 1e-9, "{a} vs {b}");
    }
    assert_eq!(*back.data().iter().min().unwrap(), 0);
    assert_eq!(*back.data().iter().max().unwrap(), 65535);
    // Flat fields write code 0.
    write_png16(&p, &Grid::new(4, 4, 7.0), 7.0, 7.0).unwrap();
    assert!(read_png16(&p).unwrap().data().iter().all(|&q| q == 0));
    // Normalised reader agrees.
    write_png16_codes(&p, &codes).unwrap();
    let n = read_height_png(&p).unwrap();
    assert_eq!(*n.get(255, 255), 1.0);
    assert_eq!(*n.get(1, 0), 1.0 / 65535.0);
    assert_eq!(entries(&dir), vec!["all.png", "t.png"]);
}

#[test]
fn rg16_error_is_below_two_codes_and_codes_are_exact() {
    let dir = tmp_dir("rg16");
    let p = dir.join("h.png");
    let g = terrain(128, 128);
    let (lo, hi) = g.min_max().unwrap();
    write_rg16(&p, &g, lo, hi).unwrap();
    assert_eq!(read_rg16(&p).unwrap().data(), &quantise_u16(&p, &g, lo, hi).unwrap()[..]);
    let n = read_height_png(&p).unwrap();
    let mut worst = 0.0f64;
    for (a, b) in n.data().iter().zip(g.data()) {
        worst = worst.max((a - (b - lo) / (hi - lo)).abs());
    }
    assert!(worst < 2.0 / 65535.0, "max error {worst}");
    // A ramp keeps more than 10 000 distinct levels (inventory §2.3).
    let ramp = Grid::from_fn(20_000, 1, |x, _| x as f64);
    write_rg16(&p, &ramp, 0.0, 19_999.0).unwrap();
    let mut levels = read_rg16(&p).unwrap().into_vec();
    levels.dedup();
    assert!(levels.len() > 10_000, "{}", levels.len());
    // The pixels are R = q >> 8, G = q & 255, B = R.
    let rgb = read_rgb8(&p).unwrap();
    let q = quantise_u16(&p, &ramp, 0.0, 19_999.0).unwrap();
    for (px, q) in rgb.data().iter().zip(q).step_by(997) {
        assert_eq!(*px, [(q >> 8) as u8, (q & 255) as u8, (q >> 8) as u8]);
    }
}

#[test]
fn r16_round_trip_and_size_checks() {
    let dir = tmp_dir("r16");
    let p = dir.join("h.r16");
    let g = terrain(65, 65);
    let (lo, hi) = g.min_max().unwrap();
    write_r16(&p, &g, lo, hi).unwrap();
    assert_eq!(std::fs::metadata(&p).unwrap().len(), 65 * 65 * 2);
    let q = quantise_u16(&p, &g, lo, hi).unwrap();
    assert_eq!(read_r16(&p, None).unwrap().data(), &q[..]);
    // Little-endian, row-major, row 0 first.
    let bytes = std::fs::read(&p).unwrap();
    assert_eq!(u16::from_le_bytes([bytes[2], bytes[3]]), q[1]);
    let r = dir.join("rect.r16");
    let rect = terrain(40, 12);
    write_r16(&r, &rect, 0.0, 3000.0).unwrap();
    let back = read_r16(&r, Some((40, 12))).unwrap();
    assert_eq!(back.data(), &quantise_u16(&r, &rect, 0.0, 3000.0).unwrap()[..]);
    assert_names_file(&read_r16(&r, None).unwrap_err(), &r, "not a square");
    assert_names_file(&read_r16(&r, Some((40, 13))).unwrap_err(), &r, "truncated");
    assert_names_file(&read_r16(&r, Some((70_000, 70_000))).unwrap_err(), &r, "too large");
}

#[test]
fn tiff_f32_round_trip_is_bit_exact() {
    let dir = tmp_dir("tiff");
    let p = dir.join("h.tif");
    let special = [0.0f32, -0.0, f32::MIN_POSITIVE, 1e-45, f32::MAX, -8848.86, f32::NAN, 1.0 / 3.0];
    let g = Grid::from_fn(33, 17, |x, y| {
        let i = y * 33 + x;
        if i < special.len() {
            special[i]
        } else {
            (i as f32 * 0.731).sin() * 4000.0 + i as f32 * 1e-3
        }
    })
    .with_cell_size(12.5, 7.25);
    write_tiff_f32(&p, &g).unwrap();
    let back = read_tiff_f32(&p).unwrap();
    assert_eq!((back.width(), back.height(), back.dx, back.dy), (33, 17, 12.5, 7.25));
    for (a, b) in back.data().iter().zip(g.data()) {
        assert_eq!(a.to_bits(), b.to_bits());
    }
    // The GeoTIFF reader sees the same file as a DEM in an unknown (metric) frame.
    let dem = read_geotiff(&p).unwrap();
    assert_eq!(dem.crs_kind, CrsKind::Unknown);
    assert_eq!((dem.heights.dx, dem.heights.dy), (12.5, 7.25));
    assert!(dem.heights.get(6, 0).is_nan()); // NaN stays nodata
    assert!(dem.heights.get(4, 0).is_nan()); // f32::MAX is outside the physical range
    assert_eq!(*dem.heights.get(5, 0), f64::from(-8848.86f32));
    // A 16-bit PNG is not a TIFF; an int16 GeoTIFF is not a float32 TIFF.
    assert_names_file(
        &read_tiff_f32("../../data/dem/srtm_ref.tif").unwrap_err(),
        Path::new("../../data/dem/srtm_ref.tif"),
        "unsupported sample format int16",
    );
}

#[test]
fn png8_and_rgb8_round_trip() {
    let dir = tmp_dir("png8");
    let m = Grid::from_fn(31, 9, |x, y| (x * 8 + y) as u8);
    let p = dir.join("mask.png");
    write_png8(&p, &m).unwrap();
    assert_eq!(read_png8(&p).unwrap(), m);
    assert_eq!(*read_height_png(&p).unwrap().get(30, 8), f64::from(30 * 8 + 8u8) / 255.0);
    let c = Grid::from_fn(5, 7, |x, y| [x as u8, y as u8, (x * y) as u8]);
    let q = dir.join("preview.png");
    write_rgb8(&q, &c).unwrap();
    assert_eq!(read_rgb8(&q).unwrap(), c);
    assert_names_file(&read_png16(&q).unwrap_err(), &q, "unsupported png sample format");
    assert_names_file(&read_png8(dir.join("none.png")).unwrap_err(), &dir.join("none.png"), "no such file");
}

#[test]
fn broken_files_are_refused_naming_the_file() {
    let dir = tmp_dir("broken");
    // Zero-byte file, for every reader.
    let z = dir.join("zero.bin");
    std::fs::write(&z, b"").unwrap();
    let errs = [
        read_png16(&z).unwrap_err(),
        read_rg16(&z).unwrap_err(),
        read_r16(&z, None).unwrap_err(),
        read_tiff_f32(&z).unwrap_err(),
        read_geotiff(&z).unwrap_err(),
        read_npz_dem(&z).unwrap_err(),
        read_ply_points(&z).unwrap_err(),
        read_las(&z).unwrap_err(),
        read_sidecar(&z).unwrap_err(),
    ];
    for e in &errs {
        assert_names_file(e, &z, "empty");
    }
    // PNG with the wrong magic.
    let bad = dir.join("bad.png");
    std::fs::write(&bad, b"GIF89a\x01\x00\x01\x00 not a png at all").unwrap();
    assert_names_file(&read_png16(&bad).unwrap_err(), &bad, "wrong magic");
    assert_names_file(&read_geotiff(&bad).unwrap_err(), &bad, "wrong magic");
    assert_names_file(&read_npz_dem(&bad).unwrap_err(), &bad, "wrong magic");
    // Truncated PNG and TIFF.
    let good = dir.join("good.png");
    write_png16(&good, &terrain(64, 64), 0.0, 3000.0).unwrap();
    let bytes = std::fs::read(&good).unwrap();
    let cut = dir.join("cut.png");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    assert_names_file(&read_png16(&cut).unwrap_err(), &cut, "truncated");
    let srtm = std::fs::read("../../data/dem/srtm_ref.tif").unwrap();
    let cut = dir.join("cut.tif");
    std::fs::write(&cut, &srtm[..srtm.len() / 3]).unwrap();
    assert_names_file(&read_geotiff(&cut).unwrap_err(), &cut, "truncated");
    std::fs::write(&cut, &srtm[..6]).unwrap();
    assert!(read_geotiff(&cut).unwrap_err().to_string().contains("cut.tif"));
    // A PNG whose header claims more than the limits: refused before allocating.
    let big = dir.join("big.png");
    {
        let f = std::fs::File::create(&big).unwrap();
        let mut enc = png::Encoder::new(f, 70_000, 1);
        enc.set_color(png::ColorType::Grayscale);
        enc.set_depth(png::BitDepth::Eight);
        enc.write_header().unwrap().write_image_data(&vec![0u8; 70_000]).unwrap();
    }
    assert_names_file(&read_png8(&big).unwrap_err(), &big, "too large");
}

#[test]
fn failed_writes_leave_nothing_behind() {
    let dir = tmp_dir("atomic");
    let mut g = terrain(16, 16);
    *g.get_mut(3, 5) = f64::NAN;
    let p = dir.join("h.png");
    let e = write_png16(&p, &g, 0.0, 3000.0).unwrap_err();
    assert_names_file(&e, &p, "nan");
    assert!(e.to_string().contains("column 3, row 5"));
    assert!(write_rg16(&p, &g, 0.0, 3000.0).is_err());
    assert!(write_r16(dir.join("h.r16"), &g, 0.0, 3000.0).is_err());
    assert!(write_png16(&p, &terrain(4, 4), 5.0, 1.0).is_err());
    assert!(write_png8(&p, &Grid::new(0, 0, 0u8)).is_err());
    assert_eq!(entries(&dir), Vec::<String>::new());
    // A failure after the data was written (the rename onto a non-empty directory fails):
    // the temporary file is removed and nothing else changes.
    let blocker = dir.join("blocked.tif");
    std::fs::create_dir(&blocker).unwrap();
    std::fs::write(blocker.join("keep"), b"x").unwrap();
    let e = write_tiff_f32(&blocker, &terrain(8, 8).map(|&v| v as f32)).unwrap_err();
    assert!(e.to_string().contains("blocked.tif"), "{e}");
    assert_eq!(entries(&dir), vec!["blocked.tif"]);
    // An existing file survives a failed overwrite.
    let keep = dir.join("keep.png");
    write_png16(&keep, &terrain(8, 8), 0.0, 3000.0).unwrap();
    let before = std::fs::read(&keep).unwrap();
    assert!(write_png16(&keep, &g, 0.0, 3000.0).is_err());
    assert_eq!(std::fs::read(&keep).unwrap(), before);
    assert_eq!(entries(&dir), vec!["blocked.tif", "keep.png"]);
}

#[test]
fn sidecar_round_trip_and_version_check() {
    let dir = tmp_dir("sidecar");
    let p = dir.join("desert.height.json");
    let mut s = Sidecar::new(512, 256, (30.0, 30.0), (812.5, 2411.0), Encoding::Rg16);
    s.generator = "bozkir terrain".into();
    s.generator_version = "1".into();
    s.seed = Some(42);
    s.source = "generated desert seed 42".into();
    s.settings.insert("profile".into(), serde_json::json!("desert"));
    s.settings.insert("octaves".into(), serde_json::json!(6));
    s.files.push(SidecarFile { path: "desert.height.png".into(), role: "height".into(), encoding: Encoding::Rg16 });
    s.files.push(SidecarFile { path: "desert.slope.png".into(), role: "mask/slope".into(), encoding: Encoding::Png8 });
    write_sidecar(&p, &s).unwrap();
    assert_eq!(read_sidecar(&p).unwrap(), s);
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
    assert_eq!(v["format_version"], 1);
    assert_eq!(v["encoding"], "rg16");
    assert_eq!(v["backend"], "cpu");
    assert_eq!(v["files"][1]["encoding"], "png8");
    let mut v2 = v.clone();
    v2["format_version"] = serde_json::json!(2);
    std::fs::write(&p, serde_json::to_vec(&v2).unwrap()).unwrap();
    assert_names_file(&read_sidecar(&p).unwrap_err(), &p, "format_version 2");
    std::fs::write(&p, b"{\"width\": 3").unwrap();
    assert_names_file(&read_sidecar(&p).unwrap_err(), &p, "json");
    let mut bad = s.clone();
    bad.high_m = f64::NAN;
    assert!(write_sidecar(dir.join("x.json"), &bad).is_err());
    assert_eq!(entries(&dir), vec!["desert.height.json"]);
}

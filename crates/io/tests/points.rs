//! PLY and LAS point clouds (their gridding into height fields is tested in
//! `bozkir-terrain` and `bozkir-pipeline`).

use bozkir_io::*;
mod common;
use common::TmpDir;
use std::path::Path;

fn tmp_dir(name: &str) -> TmpDir {
    TmpDir::new(name)
}

/// Points on the plane z = 0.5 x − 0.25 y over a 10 m square, 0.1 m apart.
fn plane() -> Vec<[f64; 3]> {
    let mut v = Vec::new();
    for i in 0..=100 {
        for j in 0..=100 {
            let (x, y) = (i as f64 * 0.1, j as f64 * 0.1);
            v.push([x, y, 0.5 * x - 0.25 * y]);
        }
    }
    v
}

/// A PLY with a `camera` element before `vertex` (with a list), vertex properties
/// `nx, x, y, z, red` (double coordinates) and a `face` element after.
fn write_ply(path: &Path, format: &str, pts: &[[f64; 3]]) {
    let mut out = format!(
        "ply\r\nformat {format} 1.0\r\ncomment made by a test\r\nelement camera 1\r\nproperty list uchar int ids\r\n\
         element vertex {}\r\nproperty float nx\r\nproperty double x\r\nproperty double y\r\nproperty double z\r\n\
         property uchar red\r\nelement face 1\r\nproperty list uchar int vertex_indices\r\nend_header\r\n",
        pts.len()
    )
    .into_bytes();
    let big = format == "binary_big_endian";
    let f32b = |v: f32| {
        if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let f64b = |v: f64| {
        if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let i32b = |v: i32| {
        if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    if format == "ascii" {
        out.extend_from_slice(b"2 7 8\n");
        for p in pts {
            out.extend_from_slice(format!("0.5 {} {} {} 200\n", p[0], p[1], p[2]).as_bytes());
        }
        out.extend_from_slice(b"3 0 1 2\n");
    } else {
        out.push(2);
        out.extend_from_slice(&i32b(7));
        out.extend_from_slice(&i32b(8));
        for p in pts {
            out.extend_from_slice(&f32b(0.5));
            for v in p {
                out.extend_from_slice(&f64b(*v));
            }
            out.push(200);
        }
        out.push(3);
        for i in 0..3 {
            out.extend_from_slice(&i32b(i));
        }
    }
    std::fs::write(path, out).unwrap();
}

#[test]
fn ply_ascii_and_binary_read_the_same_points() {
    let dir = tmp_dir("ply");
    let pts = plane();
    for fmt in ["ascii", "binary_little_endian", "binary_big_endian"] {
        let p = dir.join(format!("{fmt}.ply"));
        write_ply(&p, fmt, &pts);
        let back = read_ply_points(&p).unwrap();
        assert_eq!(back.len(), pts.len(), "{fmt}");
        for (a, b) in back.iter().zip(&pts) {
            for k in 0..3 {
                assert!((a[k] - b[k]).abs() < 1e-12, "{fmt}: {a:?} vs {b:?}");
            }
        }
    }
}

#[test]
fn broken_plys_are_refused_naming_the_file() {
    let dir = tmp_dir("plybroken");
    let p = dir.join("noz.ply");
    std::fs::write(
        &p,
        "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nend_header\n1 2\n",
    )
    .unwrap();
    let e = read_ply_points(&p).unwrap_err().to_string();
    assert!(e.contains("noz.ply") && e.contains("missing") && e.contains("\"z\""), "{e}");
    let p = dir.join("novertex.ply");
    std::fs::write(&p, "ply\nformat ascii 1.0\nelement face 0\nproperty list uchar int vertex_indices\nend_header\n")
        .unwrap();
    assert!(read_ply_points(&p).unwrap_err().to_string().contains("missing PLY element \"vertex\""));
    let p = dir.join("short.ply");
    write_ply(&p, "binary_little_endian", &plane());
    let bytes = std::fs::read(&p).unwrap();
    std::fs::write(&p, &bytes[..bytes.len() - 500]).unwrap();
    let e = read_ply_points(&p).unwrap_err().to_string();
    assert!(e.contains("short.ply") && e.contains("truncated"), "{e}");
    let p = dir.join("huge.ply");
    std::fs::write(&p, "ply\nformat binary_little_endian 1.0\nelement vertex 4000000000\nproperty float x\nproperty float y\nproperty float z\nend_header\n").unwrap();
    let e = read_ply_points(&p).unwrap_err().to_string();
    assert!(e.contains("huge.ply") && e.contains("too large"), "{e}");
    let p = dir.join("magic.ply");
    std::fs::write(&p, "plx\nformat ascii 1.0\n").unwrap();
    assert!(read_ply_points(&p).unwrap_err().to_string().contains("wrong magic"));
    let p = dir.join("noheader.ply");
    std::fs::write(&p, "ply\nformat ascii 1.0\nelement vertex 3\n").unwrap();
    assert!(read_ply_points(&p).unwrap_err().to_string().contains("truncated"));
}

#[test]
fn las_points_are_scaled_and_classified() {
    let dir = tmp_dir("las");
    let p = dir.join("a.las");
    let layout = LasLayout { offset: [1000.0, 2000.0, 0.0], ..LasLayout::default() };
    // The synthetic flag bit (0x20) is not a class: the writer keeps the low 5 bits.
    write_las(&p, &[[1001.0, 2002.0, 123.45], [999.95, 2000.0, 0.07]], &[2, 5 | 0x20], &layout).unwrap();
    let las = read_las(&p).unwrap();
    assert_eq!((las.version, las.point_format), ((1, 2), 1));
    assert_eq!(las.xyz, vec![[1001.0, 2002.0, 123.45], [999.95, 2000.0, 0.07]]);
    assert_eq!(las.classification, vec![2, 5]);
    assert!(!las.compressed && las.rgb.is_none());
    // A LAZ bit without the LASzip VLR, and a cut-off record, are refused naming the file.
    let q = dir.join("c.laz");
    let mut bytes = std::fs::read(&p).unwrap();
    bytes[104] |= 0x80;
    std::fs::write(&q, &bytes).unwrap();
    let e = read_las(&q).unwrap_err().to_string();
    assert!(e.contains("c.laz") && e.contains("LAZ"), "{e}");
    bytes[104] &= 0x7f;
    bytes.truncate(bytes.len() - 3);
    std::fs::write(&q, bytes).unwrap();
    assert!(read_las(&q).unwrap_err().to_string().contains("truncated"));
}

#[test]
fn las_writer_round_trips_formats_0_and_1_and_refuses_what_it_cannot_store() {
    let dir = tmp_dir("las_rt");
    let pts: Vec<[f64; 3]> = plane().into_iter().step_by(97).map(|[x, y, z]| [x + 500.0, y - 300.0, z]).collect();
    let classes: Vec<u8> = (0..pts.len()).map(|i| (i % 32) as u8).collect();
    for point_format in [0u8, 1] {
        let layout = LasLayout { point_format, scale: [0.001; 3], offset: [500.0, -300.0, 0.0] };
        let p = dir.join(format!("f{point_format}.las"));
        write_las(&p, &pts, &classes, &layout).unwrap();
        let back = read_las(&p).unwrap();
        assert_eq!(back.point_format, point_format);
        assert_eq!(back.classification, classes);
        for (a, b) in pts.iter().zip(&back.xyz) {
            for k in 0..3 {
                assert!((a[k] - b[k]).abs() <= 0.0005 + 1e-9, "{a:?} vs {b:?}");
            }
        }
    }
    let p = dir.join("bad.las");
    let e = write_las(&p, &pts, &classes, &LasLayout { point_format: 3, ..LasLayout::default() }).unwrap_err();
    assert!(e.to_string().contains("bad.las") && e.to_string().contains("point format 3"), "{e}");
    let e = write_las(&p, &pts, &classes[1..], &LasLayout::default()).unwrap_err().to_string();
    assert!(e.contains("classification"), "{e}");
    let e = write_las(&p, &[[1e9, 0.0, 0.0]], &[2], &LasLayout::default()).unwrap_err().to_string();
    assert!(e.contains("does not fit"), "{e}");
    assert!(!p.exists());
}

#[test]
fn ply_writer_round_trips_in_every_encoding() {
    let dir = tmp_dir("ply_rt");
    let pts: Vec<[f64; 3]> = plane().into_iter().step_by(13).chain([[1e-7, -1e12, 0.1 + 0.2]]).collect();
    for format in [plyfmt::Format::Ascii, plyfmt::Format::Little, plyfmt::Format::Big] {
        let p = dir.join(format!("{format:?}.ply"));
        write_ply_points(&p, &pts, format).unwrap();
        assert_eq!(read_ply_points(&p).unwrap(), pts, "{format:?}");
    }
}

fn lidar(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/lidar").join(name)
}

#[test]
fn autzen_laz_decompresses_to_what_laspy_reads() {
    let las = read_las(lidar("autzen_trim.laz")).unwrap();
    assert!(las.compressed);
    assert_eq!((las.version, las.point_format), ((1, 2), 3));
    // Header point count.
    assert_eq!(las.xyz.len(), 110_000);
    assert_eq!(las.classification.len(), 110_000);
    let rgb = las.rgb.as_ref().expect("format 3 has RGB");
    // Values from laspy 2.7 + lazrs (integer X, Y, Z at scale 0.01, offset 0).
    let pinned: [(usize, [i64; 3], u8, [u16; 3]); 6] = [
        (0, [63717798, 84939395, 41119], 1, [84, 102, 93]),
        (1, [63717730, 84939695, 41125], 1, [82, 98, 90]),
        (4095, [63709182, 84904445, 41975], 1, [88, 116, 96]),
        (4096, [63709389, 84904029, 44006], 1, [82, 105, 88]),
        (50000, [63660186, 84901859, 42510], 1, [134, 134, 104]),
        (109999, [63603788, 84933694, 42320], 1, [64, 74, 70]),
    ];
    for (i, xyz, class, col) in pinned {
        let got = las.xyz[i].map(|v| (v * 100.0).round() as i64);
        assert_eq!(got, xyz, "point {i}");
        assert_eq!(las.classification[i], class, "point {i}");
        assert_eq!(rgb[i], col, "point {i}");
    }
    // Whole-file checksums from laspy: sums of the integer coordinates and of each colour.
    let sum = |k: usize| las.xyz.iter().map(|p| (p[k] * 100.0).round() as i64).sum::<i64>();
    assert_eq!([sum(0), sum(1), sum(2)], [7002010454461, 9340603643128, 4733712773]);
    let csum = |k: usize| rgb.iter().map(|c| i64::from(c[k])).sum::<i64>();
    assert_eq!([csum(0), csum(1), csum(2)], [12255922, 13168529, 10938029]);
    // Classes: 83 893 unclassified (1), 26 107 ground (2).
    assert_eq!(las.classification.iter().filter(|&&c| c == 2).count(), 26_107);
    // GeoKeys: ProjLinearUnits 9002 (international foot), no vertical unit key.
    assert_eq!((las.horizontal_unit_m, las.vertical_unit_m), (Some(0.3048), None));
}

#[test]
fn las14_units_and_no_rgb() {
    let las = read_las(lidar("file_with_both_wkt_and_geotiff_vlrs.las")).unwrap();
    assert!(!las.compressed && las.rgb.is_none());
    assert_eq!((las.version, las.point_format, las.xyz.len()), ((1, 4), 6, 25_408));
    assert_eq!(las.xyz[0].map(|v| (v * 1000.0).round() as i64), [2445180750, 604324040, 1354220]);
    assert_eq!(las.classification[0], 2);
    // GeoKeys 3076 and 4099 are 9003 (US survey foot).
    let ft = 1200.0 / 3937.0;
    assert_eq!((las.horizontal_unit_m, las.vertical_unit_m), (Some(ft), Some(ft)));
}

#[test]
fn laz_with_overstated_count_or_broken_data_fails_cleanly() {
    let dir = tmp_dir("laz");
    let src = std::fs::read(lidar("autzen_trim.laz")).unwrap();
    // A header that claims more points than the chunks can hold is refused before decoding.
    let mut big = src.clone();
    big[107..111].copy_from_slice(&200_000_000u32.to_le_bytes());
    let p = dir.join("big.laz");
    std::fs::write(&p, &big).unwrap();
    let e = read_las(&p).unwrap_err().to_string();
    assert!(e.contains("big.laz") && e.contains("chunks"), "{e}");
    // Cut in the middle of the compressed data.
    let p = dir.join("cut.laz");
    std::fs::write(&p, &src[..src.len() / 2]).unwrap();
    assert!(read_las(&p).is_err());
    // A LAZ flag without a LASzip VLR.
    let mut novlr = src.clone();
    novlr[100..104].copy_from_slice(&0u32.to_le_bytes());
    let p = dir.join("novlr.laz");
    std::fs::write(&p, &novlr).unwrap();
    let e = read_las(&p).unwrap_err().to_string();
    assert!(e.contains("LASzip VLR"), "{e}");
}

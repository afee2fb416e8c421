//! The splat formats: the real `luigi.ply`, synthetic files of every encoding and SH degree,
//! pinned `.splat` bytes, glTF parse-back, SPZ, and corrupted variants.

mod common;

use bozkir_io::IoError;
use bozkir_splat::formats::dot_splat::{encode_row, encode_splat, parse_splat};
use bozkir_splat::formats::glb::{encode_glb, parse_glb, split_glb};
use bozkir_splat::formats::ply::{encode_ply, parse_ply, read_ply, write_ply};
use bozkir_splat::formats::spz::{encode_spz, parse_spz};
use bozkir_splat::formats::{load, save, PlyEncoding};
use bozkir_splat::{RawSplat, SplatError, Splats};
use common::{assert_raw_bits_equal, data, synthetic};
use std::path::Path;

const ENCODINGS: [PlyEncoding; 3] = [PlyEncoding::BinaryLittleEndian, PlyEncoding::BinaryBigEndian, PlyEncoding::Ascii];

fn name() -> &'static Path {
    Path::new("capture.ply")
}

// ---------------------------------------------------------------- PLY: the real file

#[test]
fn luigi_loads_14526_splats_and_saves_back_bit_for_bit() {
    let path = data("splat/luigi.ply");
    let s = read_ply(&path).unwrap();
    assert_eq!(s.len(), 14_526);
    assert_eq!(s.sh_degree(), 0);
    // First record, as printed by an independent reader (Python `array('f')`, exact as f64).
    let f = |v: [f64; 4]| v.map(|x| x as f32);
    let p = s.positions()[0];
    assert_eq!([p[0], p[1], p[2], 0.0], f([-0.4851103127002716, 0.11111636459827423, 0.012831974774599075, 0.0]));
    let d = s.sh_dc()[0];
    assert_eq!([d[0], d[1], d[2], 0.0], f([0.5613278150558472, 0.6140957474708557, 0.6696770787239075, 0.0]));
    assert_eq!(s.opacity_logits()[0], -1.271289348602295f64 as f32);
    let l = s.log_scales()[0];
    assert_eq!([l[0], l[1], l[2], 0.0], f([-3.4525644779205322, -3.5433003902435303, -3.437136173248291, 0.0]));
    assert_eq!(
        s.rotations_raw()[0],
        f([1.1247646808624268, 0.08956994861364365, -0.08711782842874527, 0.11483055353164673])
    );
    // Decoded: sigmoid, exp, unit quaternion.
    assert!((s.opacities()[0] - 1.0 / (1.0 + 1.271_289_3_f32.exp())).abs() < 1e-6);
    assert!((s.scales()[0][0] - s.log_scales()[0][0].exp()).abs() < 1e-7);
    for q in s.rotations() {
        assert!((q.iter().map(|v| v * v).sum::<f32>() - 1.0).abs() < 1e-5);
    }
    // splat-anchors §5.2: quaternions unnormalised on disk, median length 1.13; object ~1.1 × 1.3 × 0.54.
    let mut lens: Vec<f32> = s.rotations_raw().iter().map(|q| q.iter().map(|v| v * v).sum::<f32>().sqrt()).collect();
    lens.sort_by(f32::total_cmp);
    assert!((1.08..1.18).contains(&lens[lens.len() / 2]), "median length {}", lens[lens.len() / 2]);
    let e = s.bounds().unwrap().extent();
    assert!((0.9..1.4).contains(&e[0]) && (0.9..1.6).contains(&e[1]) && (0.4..0.8).contains(&e[2]), "{e:?}");

    let original = std::fs::read(&path).unwrap();
    assert_eq!(encode_ply(&s, PlyEncoding::BinaryLittleEndian), original, "load → save must reproduce the file");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("luigi.ply");
    write_ply(&out, &s, PlyEncoding::BinaryLittleEndian).unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), original);
}

#[test]
fn luigi_survives_every_encoding() {
    let s = read_ply(&data("splat/luigi.ply")).unwrap();
    for enc in ENCODINGS {
        let bytes = encode_ply(&s, enc);
        let t = parse_ply(&bytes, name()).unwrap();
        assert_raw_bits_equal(&s, &t);
        assert_eq!(encode_ply(&t, enc), bytes, "{enc:?}");
    }
}

// ---------------------------------------------------------------- PLY: synthetic

#[test]
fn every_sh_degree_round_trips_bit_for_bit_in_every_encoding() {
    for degree in 0..=3u8 {
        let s = synthetic(257, degree, 7 + u64::from(degree));
        for enc in ENCODINGS {
            let bytes = encode_ply(&s, enc);
            let t = parse_ply(&bytes, name()).unwrap();
            assert_eq!(t.sh_degree(), degree);
            assert_raw_bits_equal(&s, &t);
            assert_eq!(encode_ply(&t, enc), bytes, "degree {degree}, {enc:?}");
        }
        // Through a file as well, with the expected record size.
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.ply");
        write_ply(&p, &s, PlyEncoding::BinaryBigEndian).unwrap();
        let bytes = std::fs::read(&p).unwrap();
        let header_end = bytes.windows(11).position(|w| w == b"end_header\n").unwrap() + 11;
        let floats = 17 + 3 * bozkir_splat::sh::rest_count(degree);
        assert_eq!(bytes.len() - header_end, 257 * 4 * floats);
        assert_raw_bits_equal(&s, &read_ply(&p).unwrap());
    }
}

#[test]
fn special_floats_survive_ascii() {
    let mut s = Splats::new(0);
    for (i, v) in [0.0f32, -0.0, 1e-38, 3.4e38, f32::MIN_POSITIVE / 8.0, 0.1, -123456.79].iter().enumerate() {
        s.push_raw(RawSplat {
            position: [*v, i as f32, 0.0],
            log_scale: [*v, -*v, 1.0],
            rotation: [*v, 1.0, 0.0, 0.0],
            opacity_logit: *v,
            sh_dc: [*v, *v, *v],
            sh_rest: &[],
        });
    }
    let bytes = encode_ply(&s, PlyEncoding::Ascii);
    assert_raw_bits_equal(&s, &parse_ply(&bytes, name()).unwrap());
}

/// Assemble a PLY from header lines and a body.
fn ply(format: &str, header: &[&str], body: &[u8]) -> Vec<u8> {
    let mut h = format!("ply\nformat {format} 1.0\ncomment made by hand\n");
    for l in header {
        h.push_str(l);
        h.push('\n');
    }
    h.push_str("end_header\n");
    let mut v = h.into_bytes();
    v.extend_from_slice(body);
    v
}

#[test]
fn f_rest_is_channel_major_and_sorted_by_number() {
    // Degree 1: K = 3 coefficients; f_rest_j = j, listed in text order (0, 1, 10?, …) shuffled.
    let mut props: Vec<String> = [
        "x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2", "opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1",
        "rot_2", "rot_3",
    ]
    .iter()
    .map(|n| format!("property float {n}"))
    .collect();
    let order = [8usize, 0, 5, 1, 7, 2, 6, 3, 4];
    for j in order {
        props.push(format!("property float f_rest_{j}"));
    }
    let head: Vec<&str> = std::iter::once("element vertex 1").chain(props.iter().map(|s| s.as_str())).collect();
    let mut vals: Vec<f32> = vec![1.0, 2.0, 3.0, 0.1, 0.2, 0.3, 0.0, -1.0, -2.0, -3.0, 1.0, 0.0, 0.0, 0.0];
    vals.extend(order.iter().map(|&j| 100.0 + j as f32));
    let body: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    let s = parse_ply(&ply("binary_little_endian", &head, &body), name()).unwrap();
    assert_eq!(s.sh_degree(), 1);
    for k in 0..3 {
        for c in 0..3 {
            assert_eq!(s.sh_rest()[k][0][c], 100.0 + (c * 3 + k) as f32, "coefficient {k}, channel {c}");
        }
    }
    // Ten coefficients: f_rest_10 sorts after f_rest_9 (numeric, not text).
    let mut props2: Vec<String> = props[..14].to_vec();
    for j in (0..24).rev() {
        props2.push(format!("property float f_rest_{j}"));
    }
    let head2: Vec<&str> = std::iter::once("element vertex 1").chain(props2.iter().map(|s| s.as_str())).collect();
    let mut vals2: Vec<f32> = vals[..14].to_vec();
    vals2.extend((0..24).rev().map(|j| j as f32));
    let body2: Vec<u8> = vals2.iter().flat_map(|v| v.to_le_bytes()).collect();
    let s2 = parse_ply(&ply("binary_little_endian", &head2, &body2), name()).unwrap();
    assert_eq!(s2.sh_degree(), 2);
    assert_eq!(s2.sh_rest()[7][0], [7.0, 15.0, 23.0]);
    assert_eq!(s2.sh_rest()[2][0], [2.0, 10.0, 18.0]);
}

/// A file with properties in an odd order, mixed types, extra properties and elements.
fn odd_file(format: &str) -> Vec<u8> {
    let header = [
        "element camera 2",
        "property float fx",
        "property list uchar int ids",
        "element vertex 2",
        "property uchar label",
        "property float rot_3",
        "property double x",
        "property double z",
        "property double y",
        "property float scale_2",
        "property float nx",
        "property float opacity",
        "property short f_dc_1",
        "property float f_dc_0",
        "property float f_dc_2",
        "property float scale_0",
        "property float scale_1",
        "property float rot_0",
        "property float rot_1",
        "property float rot_2",
        "element face 1",
        "property list uchar int vertex_indices",
    ];
    // Vertex values in header order.
    let v0: [f64; 16] = [7.0, 0.5, 1.25, -3.5, 2.0, -1.0, 9.0, 0.75, -2.0, 0.1, 0.2, -3.0, -4.0, 1.0, 0.25, 0.0];
    let v1: [f64; 16] = [1.0, 0.0, -0.5, 0.0, 1e3, -2.0, 0.0, -0.25, 3.0, 0.0, 0.0, -2.0, -2.0, 0.0, 1.0, 0.0];
    let types = ["u8", "f", "d", "d", "d", "f", "f", "f", "s", "f", "f", "f", "f", "f", "f", "f"];
    match format {
        "ascii" => {
            let mut t = String::from("1.5 2 3 4\n2.5 0\n");
            for v in [v0, v1] {
                let row: Vec<String> = v.iter().map(|x| format!("{x}")).collect();
                t.push_str(&row.join(" "));
                t.push('\n');
            }
            t.push_str("3 0 1 0\n");
            ply("ascii", &header, t.as_bytes())
        }
        _ => {
            let big = format == "binary_big_endian";
            let mut b: Vec<u8> = Vec::new();
            let mut put = |bytes: Vec<u8>| b.extend(bytes);
            let f = |x: f32| if big { x.to_be_bytes().to_vec() } else { x.to_le_bytes().to_vec() };
            let i = |x: i32| if big { x.to_be_bytes().to_vec() } else { x.to_le_bytes().to_vec() };
            put(f(1.5));
            put(vec![2]);
            put(i(3));
            put(i(4));
            put(f(2.5));
            put(vec![0]);
            for v in [v0, v1] {
                for (x, t) in v.iter().zip(types) {
                    put(match t {
                        "u8" => vec![*x as u8],
                        "d" => {
                            if big {
                                x.to_be_bytes().to_vec()
                            } else {
                                x.to_le_bytes().to_vec()
                            }
                        }
                        "s" => {
                            if big {
                                (*x as i16).to_be_bytes().to_vec()
                            } else {
                                (*x as i16).to_le_bytes().to_vec()
                            }
                        }
                        _ => f(*x as f32),
                    });
                }
            }
            put(vec![3]);
            for k in [0, 1, 0] {
                put(i(k));
            }
            ply(format, &header, &b)
        }
    }
}

#[test]
fn any_order_any_type_extra_properties_and_elements_in_every_encoding() {
    for format in ["binary_little_endian", "binary_big_endian", "ascii"] {
        let s = parse_ply(&odd_file(format), name()).unwrap_or_else(|e| panic!("{format}: {e}"));
        assert_eq!(s.len(), 2, "{format}");
        assert_eq!(s.positions()[0], [1.25, 2.0, -3.5], "{format}");
        assert_eq!(s.positions()[1], [-0.5, 1e3, 0.0], "{format}");
        assert_eq!(s.sh_dc()[0], [0.1, -2.0, 0.2], "{format}");
        assert_eq!(s.opacity_logits()[0], 0.75);
        assert_eq!(s.log_scales()[0], [-3.0, -4.0, -1.0]);
        assert_eq!(s.rotations_raw()[0], [1.0, 0.25, 0.0, 0.5]);
        assert_eq!(s.rotations_raw()[1], [0.0, 1.0, 0.0, 0.0]);
        assert_eq!(s.sh_degree(), 0);
    }
}

// ---------------------------------------------------------------- PLY: corrupted

fn err(bytes: &[u8]) -> SplatError {
    let e = parse_ply(bytes, Path::new("bad.ply")).expect_err("should be refused");
    assert!(e.to_string().starts_with("bad.ply: "), "message {e} should name the file");
    e
}

fn luigi_bytes() -> Vec<u8> {
    std::fs::read(data("splat/luigi.ply")).unwrap()
}

#[test]
fn truncated_and_oversized_files_are_refused_before_allocating() {
    let b = luigi_bytes();
    let e = err(&b[..b.len() - 10]);
    assert!(matches!(e, SplatError::Io(IoError::Truncated { .. })), "{e}");
    assert!(e.to_string().contains("14526 vertices of 68 bytes"), "{e}");
    // A count that would need 6.8 GB of records in a 1 MB file: refused from the header.
    let mut hb = luigi_bytes();
    let at = hb.windows(20).position(|w| w == b"element vertex 14526").unwrap();
    hb.splice(at..at + 20, b"element vertex 99999999".iter().copied());
    assert!(matches!(err(&hb), SplatError::Io(IoError::Truncated { .. })));
    let mut huge = luigi_bytes();
    huge.splice(at..at + 20, b"element vertex 4000000000".iter().copied());
    assert!(matches!(err(&huge), SplatError::Io(IoError::TooMany { .. })));
    // ASCII: a count the body cannot hold.
    let a = odd_file("ascii");
    let text = String::from_utf8(a).unwrap().replacen("element vertex 2", "element vertex 900", 1);
    assert!(matches!(err(text.as_bytes()), SplatError::Io(IoError::Truncated { .. })));
}

#[test]
fn malformed_headers_are_refused() {
    assert!(matches!(err(b"plx\nformat ascii 1.0\nend_header\n"), SplatError::Io(IoError::WrongMagic { .. })));
    assert!(matches!(
        err(b"ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\n"),
        SplatError::Io(IoError::Truncated { .. })
    ));
    assert!(matches!(
        err(b"ply\nformat binary_middle_endian 1.0\nend_header\n"),
        SplatError::Io(IoError::Unsupported { .. })
    ));
    assert!(matches!(err(b"ply\nelement vertex 1\nend_header\n"), SplatError::Io(IoError::Malformed { .. })));
    assert!(matches!(
        err(b"ply\nformat ascii 1.0\nelement vertex 1\nproperty float128 x\nend_header\n"),
        SplatError::Io(IoError::Unsupported { .. })
    ));
    assert!(matches!(
        err(b"ply\nformat ascii 1.0\nelement vertex x1\nend_header\n"),
        SplatError::Io(IoError::Malformed { .. })
    ));
    assert!(matches!(
        err(b"ply\nformat ascii 1.0\nelement face 1\nproperty float x\nend_header\n1\n"),
        SplatError::Io(IoError::Missing { .. })
    ));
    assert!(matches!(err(b""), SplatError::Io(IoError::Empty { .. })));
    // A header over 1 MiB.
    let mut long = b"ply\nformat ascii 1.0\n".to_vec();
    for _ in 0..60_000 {
        long.extend_from_slice(b"comment padding padding\n");
    }
    assert!(matches!(err(&long), SplatError::Io(IoError::TooMany { .. })));
}

#[test]
fn missing_and_inconsistent_properties_are_named() {
    let plain = b"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nend_header\n1 2 3\n";
    let e = err(plain);
    let m = e.to_string();
    assert!(matches!(e, SplatError::Io(IoError::Missing { .. })));
    assert!(
        m.contains("f_dc_0") && m.contains("opacity") && m.contains("rot_3") && m.contains("plain point cloud"),
        "{m}"
    );

    let base: Vec<String> = [
        "x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2", "opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1",
        "rot_2", "rot_3",
    ]
    .iter()
    .map(|n| format!("property float {n}"))
    .collect();
    let with = |extra: &[String], rows: &str| {
        let mut h = vec!["element vertex 1".to_string()];
        h.extend(base.iter().cloned());
        h.extend(extra.iter().cloned());
        let refs: Vec<&str> = h.iter().map(|s| s.as_str()).collect();
        ply("ascii", &refs, rows.as_bytes())
    };
    let row = |extra: usize| format!("{}\n", vec!["0"; 14 + extra].join(" "));
    // 10 f_rest: not a degree.
    let ten: Vec<String> = (0..10).map(|j| format!("property float f_rest_{j}")).collect();
    assert!(matches!(err(&with(&ten, &row(10))), SplatError::Io(IoError::Malformed { .. })));
    // A gap in the numbering.
    let gap: Vec<String> = (0..10).filter(|&j| j != 4).map(|j| format!("property float f_rest_{j}")).collect();
    assert!(matches!(err(&with(&gap, &row(9))), SplatError::Io(IoError::Malformed { .. })));
    // Degree 4 (Brush): 72 coefficients.
    let deg4: Vec<String> = (0..72).map(|j| format!("property float f_rest_{j}")).collect();
    let e = err(&with(&deg4, &row(72)));
    assert!(matches!(e, SplatError::Io(IoError::Unsupported { .. })) && e.to_string().contains("degree 4"), "{e}");
    // Duplicate property.
    assert!(matches!(err(&with(&["property float x".into()], &row(1))), SplatError::Io(IoError::Malformed { .. })));
    // List in the vertex element.
    let e = err(&with(&["property list uchar int idx".into()], "0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 5\n"));
    assert!(matches!(e, SplatError::Io(IoError::Unsupported { .. })), "{e}");
    // Not a number, and too few tokens.
    assert!(matches!(err(&with(&[], "0 0 0 0 0 0 0 zero 0 0 0 0 0 0\n")), SplatError::Io(IoError::Malformed { .. })));
    assert!(matches!(err(&with(&[], "0 0 0 0 0 0 0 0 0 0 0 0 0 \n")), SplatError::Io(IoError::Truncated { .. })));
    // Zero vertices.
    let mut h = vec!["element vertex 0".to_string()];
    h.extend(base.iter().cloned());
    let refs: Vec<&str> = h.iter().map(|s| s.as_str()).collect();
    assert!(matches!(err(&ply("ascii", &refs, b"")), SplatError::Io(IoError::Empty { .. })));
}

#[test]
fn nan_positions_are_refused_with_their_index() {
    let mut s = synthetic(10, 0, 3);
    let mut bytes = encode_ply(&s, PlyEncoding::BinaryLittleEndian);
    let header_end = bytes.windows(11).position(|w| w == b"end_header\n").unwrap() + 11;
    for (i, axis) in [(4usize, 1usize), (7, 2)] {
        let o = header_end + i * 68 + axis * 4;
        bytes[o..o + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    }
    let e = err(&bytes);
    assert!(matches!(e, SplatError::NonFinite { count: 2, index: 4, .. }), "{e}");
    // The writer keeps whatever it is given; the reader is the gate. A NaN opacity (or scale,
    // rotation, colour) is refused too (issue 20, finding 10: it used to read as ground).
    s = synthetic(3, 0, 4);
    let mut b2 = encode_ply(&s, PlyEncoding::BinaryLittleEndian);
    let header_end = b2.windows(11).position(|w| w == b"end_header\n").unwrap() + 11;
    let o = header_end + 9 * 4;
    b2[o..o + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    let e = parse_ply(&b2, name()).unwrap_err();
    assert!(matches!(e, SplatError::NonFinite { what: "opacity", index: 0, count: 1, .. }), "{e}");
}

#[test]
fn errors_name_the_file_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("empty.ply");
    std::fs::write(&p, b"").unwrap();
    let e = read_ply(&p).unwrap_err();
    assert!(matches!(e, SplatError::Io(IoError::Empty { .. })) && e.to_string().contains("empty.ply"), "{e}");
    let e = read_ply(&dir.path().join("absent.ply")).unwrap_err();
    assert!(matches!(e, SplatError::Io(IoError::Io { .. })) && e.to_string().contains("absent.ply"));
    // A failed write leaves nothing behind.
    let e = write_ply(&dir.path().join("none.ply"), &Splats::new(0), PlyEncoding::Ascii).unwrap_err();
    assert!(matches!(e, SplatError::Io(IoError::InvalidArgument { .. })));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

// ---------------------------------------------------------------- .splat

#[test]
fn splat_row_bytes_follow_the_documented_layout() {
    let mut s = Splats::new(0);
    let ln2 = std::f32::consts::LN_2;
    s.push_raw(RawSplat {
        position: [1.0, -2.0, 0.5],
        log_scale: [0.0, ln2, -ln2],
        rotation: [3.0, 0.0, 4.0, 0.0],
        opacity_logit: 3f32.ln(),
        sh_dc: [0.0, 10.0, -10.0],
        sh_rest: &[],
    });
    let expected: [u8; 32] = [
        0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0xc0, 0x00, 0x00, 0x00, 0x3f, // position 1, −2, 0.5
        0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x3f, // scale 1, 2, 0.5 (linear)
        0x80, 0xff, 0x00, 0xbf, // RGB 0.5 → 128, clipped 255 and 0; alpha 0.75 → 191
        0xcd, 0x80, 0xe6, 0x80, // (w, x, y, z) = (0.6, 0, 0.8, 0) → 205, 128, 230, 128
    ];
    assert_eq!(encode_row(&s, 0), expected);
    let back = parse_splat(&expected, Path::new("one.splat")).unwrap();
    assert_eq!(back.positions()[0], [1.0, -2.0, 0.5]);
    assert_eq!(back.scales()[0], [1.0, 2.0, 0.5]);
    assert!((back.opacities()[0] - 191.0 / 255.0).abs() < 1e-6);
    let q = back.rotations()[0];
    assert!((q[0] - 0.6).abs() < 0.01 && (q[2] - 0.8).abs() < 0.01 && q[1] == 0.0 && q[3] == 0.0);
}

#[test]
fn splat_round_trip_meets_the_originals_oracle() {
    // Inventory §5.1: positions and scales bit-exact, colour within 1.5/255, rotation within 1.5°.
    let s = synthetic(2000, 2, 11);
    let bytes = encode_splat(&s);
    assert_eq!(bytes.len(), 32 * 2000);
    let t = parse_splat(&bytes, Path::new("x.splat")).unwrap();
    assert_eq!(t.sh_degree(), 0);
    for i in 0..s.len() {
        assert_eq!(t.positions()[i], s.positions()[i]);
        assert_eq!(t.scales()[i], s.scales()[i]);
        let (a, b) = (s.base_rgb(i), t.base_rgb(i));
        for c in 0..3 {
            assert!((a[c] - b[c]).abs() <= 1.5 / 255.0);
        }
        assert!((s.opacities()[i] - t.opacities()[i]).abs() <= 1.5 / 255.0);
        let dot: f32 = (0..4).map(|k| s.rotations()[i][k] * t.rotations()[i][k]).sum();
        let angle = 2.0 * dot.abs().min(1.0).acos().to_degrees();
        assert!(angle < 1.5, "splat {i}: {angle}°");
    }
}

#[test]
fn corrupt_splat_files_are_refused() {
    let b = encode_splat(&synthetic(3, 0, 1));
    let e = parse_splat(&b[..95], Path::new("bad.splat")).unwrap_err();
    assert!(matches!(e, SplatError::Io(IoError::Malformed { .. })) && e.to_string().starts_with("bad.splat"), "{e}");
    assert!(matches!(parse_splat(&[], Path::new("e.splat")).unwrap_err(), SplatError::Io(IoError::Empty { .. })));
    let mut nan = b.clone();
    nan[32..36].copy_from_slice(&f32::INFINITY.to_le_bytes());
    assert!(matches!(parse_splat(&nan, Path::new("n.splat")).unwrap_err(), SplatError::NonFinite { index: 1, .. }));
}

// ---------------------------------------------------------------- glTF

#[test]
fn glb_has_a_valid_container_and_the_extensions_attributes() {
    let s = synthetic(321, 2, 5);
    let bytes = encode_glb(&s);
    // Header and chunks.
    assert_eq!(&bytes[0..4], b"glTF");
    assert_eq!(u32::from_le_bytes(bytes[4..8].try_into().unwrap()), 2);
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize, bytes.len());
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    assert_eq!(&bytes[16..20], b"JSON");
    assert_eq!(json_len % 4, 0);
    let bin_at = 20 + json_len;
    let bin_len = u32::from_le_bytes(bytes[bin_at..bin_at + 4].try_into().unwrap()) as usize;
    assert_eq!(&bytes[bin_at + 4..bin_at + 8], b"BIN\0");
    assert_eq!(bin_at + 8 + bin_len, bytes.len());
    let doc: serde_json::Value = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    let (doc2, bin) = split_glb(&bytes, Path::new("s.glb")).unwrap();
    assert_eq!(doc, doc2);
    assert_eq!(bin.len(), bin_len);

    assert_eq!(doc["asset"]["version"], "2.0");
    assert_eq!(doc["extensionsUsed"], serde_json::json!(["KHR_gaussian_splatting"]));
    assert_eq!(doc["buffers"][0]["byteLength"].as_u64().unwrap() as usize, bin_len);
    let prim = &doc["meshes"][0]["primitives"][0];
    assert_eq!(prim["mode"], 0);
    let ext = &prim["extensions"]["KHR_gaussian_splatting"];
    assert_eq!(ext["kernel"], "ellipse");
    assert_eq!(ext["colorSpace"], "srgb_rec709_display");
    let attrs = prim["attributes"].as_object().unwrap();
    // POSITION, COLOR_0, ROTATION, SCALE, OPACITY, SH degree 0, 3 + 5 for degrees 1 and 2.
    assert_eq!(attrs.len(), 6 + 3 + 5);
    for key in ["ROTATION", "SCALE", "OPACITY", "SH_DEGREE_0_COEF_0", "SH_DEGREE_1_COEF_2", "SH_DEGREE_2_COEF_4"] {
        assert!(attrs.contains_key(&format!("KHR_gaussian_splatting:{key}")), "{key}");
    }
    assert!(!attrs.contains_key("KHR_gaussian_splatting:SH_DEGREE_3_COEF_0"));
    let comps = |t: &str| match t {
        "SCALAR" => 1,
        "VEC3" => 3,
        "VEC4" => 4,
        other => panic!("{other}"),
    };
    for (name, idx) in attrs {
        let acc = &doc["accessors"][idx.as_u64().unwrap() as usize];
        assert_eq!(acc["count"].as_u64().unwrap() as usize, s.len(), "{name}");
        let view = &doc["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
        let size = if acc["componentType"] == 5121 { 1 } else { 4 };
        let expect = s.len() * size * comps(acc["type"].as_str().unwrap());
        assert_eq!(view["byteLength"].as_u64().unwrap() as usize, expect, "{name}");
        assert_eq!(view["byteOffset"].as_u64().unwrap() % 4, 0);
        assert!(view["byteOffset"].as_u64().unwrap() as usize + expect <= bin_len);
    }
    let pos = &doc["accessors"][attrs["POSITION"].as_u64().unwrap() as usize];
    let b = s.bounds().unwrap();
    for a in 0..3 {
        assert_eq!(pos["min"][a].as_f64().unwrap() as f32, b.min[a]);
        assert_eq!(pos["max"][a].as_f64().unwrap() as f32, b.max[a]);
    }

    // Read back.
    let t = parse_glb(&bytes, Path::new("s.glb")).unwrap();
    assert_eq!(t.len(), s.len());
    assert_eq!(t.sh_degree(), 2);
    assert_eq!(t.positions(), s.positions());
    assert_eq!(t.log_scales(), s.log_scales());
    assert_eq!(t.sh_dc(), s.sh_dc());
    assert_eq!(t.sh_rest(), s.sh_rest());
    for i in 0..s.len() {
        assert!((t.opacities()[i] - s.opacities()[i]).abs() < 1e-6);
        for k in 0..4 {
            assert!((t.rotations()[i][k] - s.rotations()[i][k]).abs() < 1e-6);
        }
    }
}

#[test]
fn corrupt_glb_is_refused() {
    let bytes = encode_glb(&synthetic(10, 0, 2));
    let p = Path::new("bad.glb");
    assert!(matches!(parse_glb(&bytes[..bytes.len() - 4], p).unwrap_err(), SplatError::Io(IoError::Truncated { .. })));
    let mut magic = bytes.clone();
    magic[0] = b'x';
    assert!(matches!(parse_glb(&magic, p).unwrap_err(), SplatError::Io(IoError::WrongMagic { .. })));
    let mut json = bytes.clone();
    json[20] = b'#';
    assert!(matches!(parse_glb(&json, p).unwrap_err(), SplatError::Io(IoError::Malformed { .. })));
}

// ---------------------------------------------------------------- SPZ

#[test]
fn spz_v3_round_trip_within_quantisation() {
    for degree in 0..=3u8 {
        let s = synthetic(500, degree, 21);
        let bytes = encode_spz(&s);
        assert_eq!(&bytes[..2], &[0x1f, 0x8b]);
        let t = parse_spz(&bytes, Path::new("s.spz")).unwrap();
        assert_eq!((t.len(), t.sh_degree()), (500, degree));
        for i in 0..s.len() {
            for a in 0..3 {
                // 12 fractional bits at ±50: 1/8192; log-scale steps of 1/16.
                assert!((t.positions()[i][a] - s.positions()[i][a]).abs() <= 0.5 / 4096.0 + 1e-6);
                assert!((t.log_scales()[i][a] - s.log_scales()[i][a]).abs() <= 1.0 / 32.0 + 1e-6);
                let dc_step = 1.0 / (255.0 * 0.15);
                let want = s.sh_dc()[i][a].clamp(-0.5 / 0.15, 0.5 / 0.15);
                assert!((t.sh_dc()[i][a] - want).abs() <= 0.5 * dc_step + 1e-5);
            }
            assert!((t.opacities()[i] - s.opacities()[i]).abs() <= 0.5 / 255.0 + 1e-6);
            let dot: f32 = (0..4).map(|k| s.rotations()[i][k] * t.rotations()[i][k]).sum();
            assert!(2.0 * dot.abs().min(1.0).acos().to_degrees() < 0.5);
            for (p, q) in s.sh_rest().iter().zip(t.sh_rest()) {
                for c in 0..3 {
                    assert!((p[i][c] - q[i][c]).abs() <= 0.5 / 128.0 + 1e-6);
                }
            }
        }
    }
}

/// A gzip SPZ from an uncompressed payload.
fn gz(payload: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(payload).unwrap();
    e.finish().unwrap()
}

fn spz_header(version: u32, n: u32, degree: u8, frac: u8) -> Vec<u8> {
    let mut h = 0x5053_474eu32.to_le_bytes().to_vec();
    h.extend_from_slice(&version.to_le_bytes());
    h.extend_from_slice(&n.to_le_bytes());
    h.extend_from_slice(&[degree, frac, 0, 0]);
    h
}

#[test]
fn spz_v2_bytes_decode_as_documented() {
    // One point, degree 1, 8 fractional bits.
    let mut p = spz_header(2, 1, 1, 8);
    p.extend_from_slice(&[0x80, 0x01, 0x00]); // x = 0x000180 / 256 = 1.5
    p.extend_from_slice(&[0x00, 0xff, 0xff]); // y = −256 / 256 = −1
    p.extend_from_slice(&[0x40, 0x00, 0x00]); // z = 0.25
    p.push(255); // alpha 1
    p.extend_from_slice(&[128, 255, 0]); // colours
    p.extend_from_slice(&[160, 0, 255]); // ln σ = 0, −10, 5.9375
    p.extend_from_slice(&[128, 128, 255]); // x ≈ 0.004, y ≈ 0.004, z = 1 → w = 0
    p.extend_from_slice(&[128, 192, 64, 0, 0, 0, 255, 255, 255]); // SH band 1, RGB fastest
    let s = parse_spz(&gz(&p), Path::new("v2.spz")).unwrap();
    assert_eq!(s.positions()[0], [1.5, -1.0, 0.25]);
    assert_eq!(s.log_scales()[0], [0.0, -10.0, 5.9375]);
    assert!((s.opacities()[0] - (1.0 - 1e-6)).abs() < 1e-6);
    let dc = s.sh_dc()[0];
    assert!((dc[0] - (128.0 / 255.0 - 0.5) / 0.15).abs() < 1e-6 && (dc[1] - 0.5 / 0.15).abs() < 1e-5);
    let q = s.rotations()[0];
    assert!(q[3] > 0.999 && q[0].abs() < 0.01);
    assert_eq!(s.sh_rest()[0][0], [0.0, 0.5, -0.5]);
    assert_eq!(s.sh_rest()[1][0], [-1.0, -1.0, -1.0]);
    assert_eq!(s.sh_rest()[2][0], [127.0 / 128.0; 3]);
}

#[test]
fn corrupt_and_unsupported_spz_are_refused() {
    let p = Path::new("bad.spz");
    let good = encode_spz(&synthetic(50, 1, 3));
    let e = parse_spz(&good[..good.len() / 2], p).unwrap_err();
    assert!(matches!(e, SplatError::Io(IoError::Truncated { .. })) && e.to_string().starts_with("bad.spz"), "{e}");
    // Version 4: a plaintext NGSP header.
    let e = parse_spz(&spz_header(4, 1, 0, 12), p).unwrap_err();
    assert!(matches!(e, SplatError::Io(IoError::Unsupported { .. })) && e.to_string().contains("ZSTD"), "{e}");
    assert!(matches!(parse_spz(b"PK\x03\x04", p).unwrap_err(), SplatError::Io(IoError::WrongMagic { .. })));
    assert!(matches!(
        parse_spz(&gz(b"NOPE and more bytes"), p).unwrap_err(),
        SplatError::Io(IoError::WrongMagic { .. })
    ));
    assert!(matches!(
        parse_spz(&gz(&spz_header(1, 1, 0, 12)), p).unwrap_err(),
        SplatError::Io(IoError::Unsupported { .. })
    ));
    assert!(matches!(
        parse_spz(&gz(&spz_header(3, 1, 4, 12)), p).unwrap_err(),
        SplatError::Io(IoError::Unsupported { .. })
    ));
    // A point count no compressed size can hold: refused before allocating.
    let e = parse_spz(&gz(&spz_header(3, 200_000_000, 3, 12)), p).unwrap_err();
    assert!(matches!(e, SplatError::Io(IoError::Truncated { .. })), "{e}");
    assert!(matches!(
        parse_spz(&gz(&spz_header(3, u32::MAX, 0, 12)), p).unwrap_err(),
        SplatError::Io(IoError::TooMany { .. })
    ));
    let mut flipped = good.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0xff;
    assert!(parse_spz(&flipped, p).is_err());
}

// ---------------------------------------------------------------- dispatch

#[test]
fn load_and_save_pick_the_format_from_the_extension() {
    let s = synthetic(64, 1, 9);
    let dir = tempfile::tempdir().unwrap();
    for ext in ["ply", "PLY", "splat", "glb", "spz"] {
        let p = dir.path().join(format!("c.{ext}"));
        save(&p, &s).unwrap();
        let t = load(&p).unwrap();
        assert_eq!(t.len(), 64, "{ext}");
        assert_eq!(
            t.positions()[10].map(|v| (v * 100.0).round()),
            s.positions()[10].map(|v| (v * 100.0).round()),
            "{ext}"
        );
    }
    assert_raw_bits_equal(&s, &load(&dir.path().join("c.ply")).unwrap());
    let e = load(&dir.path().join("c.obj")).unwrap_err();
    assert!(matches!(e, SplatError::Io(IoError::Unsupported { .. })) && e.to_string().contains("c.obj"));
    // luigi through every format.
    let l = load(&data("splat/luigi.ply")).unwrap();
    for ext in ["splat", "glb", "spz"] {
        let p = dir.path().join(format!("luigi.{ext}"));
        save(&p, &l).unwrap();
        assert_eq!(load(&p).unwrap().len(), 14_526, "{ext}");
    }
}

#[test]
fn empty_elements_with_huge_counts_are_skipped_at_once() {
    let props = [
        "x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2", "opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1",
        "rot_2", "rot_3",
    ];
    let mut head = vec!["element junk 18446744073709551615".to_string(), "element vertex 1".to_string()];
    head.extend(props.iter().map(|p| format!("property float {p}")));
    let refs: Vec<&str> = head.iter().map(|s| s.as_str()).collect();
    let row = "1 2 3 0 0 0 0 0 0 0 1 0 0 0\n";
    let s = parse_ply(&ply("ascii", &refs, row.as_bytes()), name()).unwrap();
    assert_eq!(s.positions()[0], [1.0, 2.0, 3.0]);
    let body: Vec<u8> = [1.0f32, 2.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let s = parse_ply(&ply("binary_little_endian", &refs, &body), name()).unwrap();
    assert_eq!(s.positions()[0], [1.0, 2.0, 3.0]);
}

//! The quantised terrain GLB (`KHR_mesh_quantization`) against the f32 mesh it stands for
//! ([`height_mesh`]): written to disk, decoded back with [`read_glb`] (which applies each node's
//! translation and scale to the positions and the inverse transpose to the normals, as a viewer
//! does) and, for what `read_glb` does not return (UVs, the raw layout), by hand from the BIN
//! chunk. Checked: positions within the stated height error (x and z exact to f32 rounding),
//! normals within 1/127 rad under a uniform node scale, UVs within half a 16-bit step, the same
//! triangles in the same order, the glTF alignment rules (every view and accessor offset and
//! every `byteStride` a multiple of 4, strides at least the element size), POSITION `min`/`max`
//! equal to the data, no primitive-restart index, the extension in `extensionsUsed` and
//! `extensionsRequired`, and the errors on bad input.

mod common;

use bozkir_core::Grid;
use bozkir_io::export::glb_quantised::{encode_glb_quantised, write_glb_quantised, QUANTIZATION, VERTEX_STRIDE};
use bozkir_io::export::mesh::{height_mesh, MeshChunk};
use bozkir_io::scene::read_glb;
use common::TmpDir;
use serde_json::Value;
use std::path::Path;

/// The JSON document and the BIN chunk of a GLB, checking the container.
fn split(b: &[u8]) -> (Value, &[u8]) {
    let u32at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap()) as usize;
    assert_eq!((&b[..4], u32at(4), u32at(8)), (&b"glTF"[..], 2, b.len()));
    let jlen = u32at(12);
    assert_eq!((&b[16..20], jlen % 4), (&b"JSON"[..], 0));
    let at = 20 + jlen;
    let blen = u32at(at);
    assert_eq!((&b[at + 4..at + 8], blen % 4, at + 8 + blen), (&b"BIN\0"[..], 0, b.len()));
    (serde_json::from_slice(&b[20..at]).unwrap(), &b[at + 8..])
}

fn uint(v: &Value) -> usize {
    v.as_u64().unwrap_or_else(|| panic!("{v} is not an unsigned integer")) as usize
}

/// Element `e` of accessor `a`: its components as raw integers (as i64), with the alignment
/// rules and bounds checked.
fn element(doc: &Value, bin: &[u8], a: usize, e: usize) -> Vec<i64> {
    let acc = &doc["accessors"][a];
    let view = &doc["bufferViews"][uint(&acc["bufferView"])];
    let comps = match acc["type"].as_str().unwrap() {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        t => panic!("type {t}"),
    };
    let csize = match uint(&acc["componentType"]) {
        5120 => 1,
        5123 => 2,
        5125 => 4,
        c => panic!("component type {c}"),
    };
    let stride = view.get("byteStride").map_or(comps * csize, uint);
    let at = uint(&view["byteOffset"]) + uint(&acc["byteOffset"]) + e * stride;
    assert!(e < uint(&acc["count"]));
    assert!(uint(&acc["byteOffset"]) + (uint(&acc["count"]) - 1) * stride + comps * csize <= uint(&view["byteLength"]));
    (0..comps)
        .map(|c| {
            let b = &bin[at + c * csize..];
            match csize {
                1 => i64::from(b[0] as i8),
                2 => i64::from(u16::from_le_bytes([b[0], b[1]])),
                _ => i64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            }
        })
        .collect()
}

/// The glTF layout rules and what the file promises; returns the chunks' node scales.
fn check_layout(doc: &Value, bin: &[u8], chunks: &[MeshChunk]) -> Vec<[f64; 3]> {
    assert_eq!(doc["extensionsUsed"], serde_json::json!([QUANTIZATION]));
    assert_eq!(doc["extensionsRequired"], serde_json::json!([QUANTIZATION]));
    assert!(uint(&doc["buffers"][0]["byteLength"]) <= bin.len());
    for v in doc["bufferViews"].as_array().unwrap() {
        assert_eq!(uint(&v["byteOffset"]) % 4, 0, "view {v}");
        assert!(uint(&v["byteOffset"]) + uint(&v["byteLength"]) <= uint(&doc["buffers"][0]["byteLength"]));
        if let Some(s) = v.get("byteStride") {
            assert_eq!((uint(s) % 4, uint(s)), (0, VERTEX_STRIDE), "view {v}");
        }
    }
    for a in doc["accessors"].as_array().unwrap() {
        assert_eq!(uint(&a["byteOffset"]) % 4, 0, "accessor {a}");
    }
    assert_eq!(doc["meshes"].as_array().unwrap().len(), chunks.len());
    let mut scales = Vec::new();
    for (i, c) in chunks.iter().enumerate() {
        let node = &doc["nodes"][i];
        assert_eq!((node["name"].as_str().unwrap(), uint(&node["mesh"])), (c.name.as_str(), i));
        scales.push(std::array::from_fn(|k| node["scale"][k].as_f64().unwrap()));
        let prim = &doc["meshes"][i]["primitives"][0];
        let n = c.positions.len();
        let (pa, na, ta, ia) = (
            uint(&prim["attributes"]["POSITION"]),
            uint(&prim["attributes"]["NORMAL"]),
            uint(&prim["attributes"]["TEXCOORD_0"]),
            uint(&prim["indices"]),
        );
        let acc = |a: usize| &doc["accessors"][a];
        assert_eq!((uint(&acc(pa)["componentType"]), acc(pa).get("normalized")), (5123, None));
        assert_eq!((uint(&acc(na)["componentType"]), &acc(na)["normalized"]), (5120, &Value::Bool(true)));
        assert_eq!((uint(&acc(ta)["componentType"]), &acc(ta)["normalized"]), (5123, &Value::Bool(true)));
        // Vertex attributes share one interleaved view; indices have their own.
        assert_eq!(acc(pa)["bufferView"], acc(na)["bufferView"]);
        assert_eq!(acc(pa)["bufferView"], acc(ta)["bufferView"]);
        let wide = n > 65_535;
        assert_eq!(uint(&acc(ia)["componentType"]), if wide { 5125 } else { 5123 });
        // POSITION min/max are those of the data; UVs within half a step of the f32 mesh's.
        let mut lo = [i64::MAX; 3];
        let mut hi = [i64::MIN; 3];
        for v in 0..n {
            let p = element(doc, bin, pa, v);
            for k in 0..3 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
            let uv = element(doc, bin, ta, v);
            for (k, &qk) in uv.iter().enumerate() {
                let got = qk as f64 / 65_535.0;
                assert!((got - f64::from(c.uvs[v][k])).abs() <= 0.5 / 65_535.0 + 1e-7, "{}: uv {v}", c.name);
            }
            let nb = element(doc, bin, na, v);
            assert!(nb.iter().all(|&b| b >= -127), "{}: normal byte -128", c.name);
        }
        let as_i64 = |v: &Value| -> Vec<i64> { v.as_array().unwrap().iter().map(|x| x.as_i64().unwrap()).collect() };
        assert_eq!((as_i64(&acc(pa)["min"]), as_i64(&acc(pa)["max"])), (lo.to_vec(), hi.to_vec()), "{}", c.name);
        let count = uint(&acc(ia)["count"]);
        assert_eq!(count, c.indices.len());
        for e in 0..count {
            let k = element(doc, bin, ia, e)[0];
            assert!(wide || k < 65_535, "{}: primitive-restart index", c.name);
        }
    }
    scales
}

/// Writes the quantised GLB of `h`, decodes it and compares with the f32 mesh; returns the
/// largest normal angle error (rad) and the scales' largest ratio.
fn round_trip(name: &str, h: &Grid<f64>, chunk: usize) -> (f64, f64) {
    let dir = TmpDir::new(name);
    let path = dir.join("t.glb");
    let q = write_glb_quantised(&path, h, chunk).unwrap();
    let chunks = height_mesh(h, chunk);
    assert_eq!(q.chunks, chunks.len());
    assert_eq!(q.triangles, chunks.iter().map(MeshChunk::triangle_count).sum::<usize>());
    let bytes = std::fs::read(&path).unwrap();
    let (doc, bin) = split(&bytes);
    let scales = check_layout(&doc, bin, &chunks);
    // Every chunk's height error bound is at most the stated one, which is one chunk's (JSON
    // numbers are read back to within a few ulps).
    let err = q.max_height_error_m;
    assert!(scales.iter().all(|s| s[1] / 2.0 <= err * (1.0 + 1e-12)));
    assert!(scales.iter().any(|s| s[1] / 2.0 >= err * (1.0 - 1e-12)));
    let ratio =
        scales.iter().map(|s| s.iter().fold(0.0, |m: f64, &v| m.max(v)) / s.iter().fold(f64::MAX, |m, &v| m.min(v)));
    let ratio = ratio.fold(1.0, f64::max);

    let m = read_glb(&path).unwrap();
    let want_pos: Vec<[f32; 3]> = chunks.iter().flat_map(|c| c.positions.iter().copied()).collect();
    let want_nrm: Vec<[f32; 3]> = chunks.iter().flat_map(|c| c.normals.iter().copied()).collect();
    let mut want_idx = Vec::new();
    let mut base = 0u32;
    for c in &chunks {
        want_idx.extend(c.indices.iter().map(|&k| k + base));
        base += c.positions.len() as u32;
    }
    assert_eq!(m.indices, want_idx, "same triangles, same order");
    assert_eq!(m.positions.len(), want_pos.len());
    let normals = m.normals.as_ref().expect("normals");
    let mut worst_angle = 0.0f64;
    for (v, (got, want)) in m.positions.iter().zip(&want_pos).enumerate() {
        for k in 0..3 {
            // f32 rounding of both sides, plus the quantisation step on y.
            let ulp = 2.0 * f64::from(want[k]).abs() * f64::from(f32::EPSILON) + 1e-9;
            let tol = if k == 1 { err + ulp } else { ulp };
            let d = (f64::from(got[k]) - f64::from(want[k])).abs();
            assert!(d <= tol, "vertex {v} axis {k}: {got:?} vs {want:?} (tolerance {tol})");
        }
        let (a, b) = (normals[v].map(f64::from), want_nrm[v].map(f64::from));
        let dot: f64 = (0..3).map(|k| a[k] * b[k]).sum();
        let cross = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
        let angle = (cross.iter().map(|c| c * c).sum::<f64>().sqrt()).atan2(dot);
        worst_angle = worst_angle.max(angle);
    }
    (worst_angle, ratio)
}

/// Ridges, a cliff and a flat plateau (a chunk of zero height range).
fn terrain(w: usize, h: usize, dx: f64, dy: f64, amp: f64) -> Grid<f64> {
    Grid::from_fn(w, h, |x, y| {
        if x <= 17 && y <= 17 {
            return 42.0;
        }
        let (u, v) = (x as f64 * 0.21, y as f64 * 0.17);
        let cliff = if x > 40 { 0.3 * amp } else { 0.0 };
        amp * (u.sin() * v.cos() + 0.3 * (3.1 * u + 1.7 * v).sin()) + cliff
    })
    .with_cell_size(dx, dy)
}

#[test]
fn square_cells_decode_within_the_stated_errors() {
    // 70 × 53 vertices in 16-quad chunks (ragged last row and column); heights over ±400 m.
    let h = terrain(70, 53, 1.5, 1.5, 300.0);
    let (angle, ratio) = round_trip("square", &h, 16);
    assert_eq!(ratio, 1.0, "square cells give a uniform node scale");
    assert!(angle <= 1.0 / 127.0, "normal angle error {angle} rad");
}

#[test]
fn oblong_cells_and_huge_ranges_keep_normals_close() {
    // 2 × 3 m cells: the node scale is not uniform, the stored normals are pre-scaled so the
    // viewer's inverse transpose restores them; the error grows at most with the scale ratio.
    let h = terrain(45, 38, 2.0, 3.0, 2_000.0);
    let (angle, ratio) = round_trip("oblong", &h, 20);
    assert!(ratio > 1.0 && ratio <= 1.6, "scale ratio {ratio}");
    assert!(angle <= ratio / 127.0, "normal angle error {angle} rad at scale ratio {ratio}");
}

#[test]
fn chunks_over_65535_vertices_use_32_bit_indices() {
    // One 300-quad chunk (301² = 90,601 vertices) and ragged neighbours; also above the
    // threading threshold.
    let h = terrain(302, 260, 1.0, 1.0, 50.0);
    let (angle, ratio) = round_trip("wide", &h, 300);
    assert_eq!(ratio, 1.0);
    assert!(angle <= 1.0 / 127.0, "normal angle error {angle} rad");
}

#[test]
fn height_error_is_half_the_step() {
    // One chunk of 65 × 65 vertices on 2 m cells with a 1000 m range: the step is
    // 2 m / floor(2 · 65535 / 1000) = 2/131 m, under range/65535 · (1 + 1/131).
    let h = Grid::from_fn(65, 65, |x, y| if (x, y) == (9, 30) { 1_000.0 } else { (x + y) as f64 * 0.01 })
        .with_cell_size(2.0, 2.0);
    let q = encode_glb_quantised(Path::new("e.glb"), &h, 64, "t").unwrap();
    assert_eq!(q.max_height_error_m, 2.0 / 131.0 / 2.0);
    assert!(q.max_height_error_m <= 1_000.0 / 65_535.0 / 2.0 * (1.0 + 1.0 / 131.0));
    // Flat terrain: the finest step the 16-bit x range allows (2 m / 1023).
    let flat = encode_glb_quantised(Path::new("f.glb"), &Grid::new(65, 65, 3.0).with_cell_size(2.0, 2.0), 64, "t");
    assert_eq!(flat.unwrap().max_height_error_m, 2.0 / 1023.0 / 2.0);
}

#[test]
fn bad_input_is_an_error_naming_the_value() {
    let p = Path::new("bad.glb");
    let err = |h: &Grid<f64>, chunk: usize| encode_glb_quantised(p, h, chunk, "t").unwrap_err().to_string();
    let ok = Grid::new(5, 5, 1.0).with_cell_size(1.0, 1.0);
    assert!(err(&Grid::new(1, 5, 1.0), 4).contains("1 × 5"));
    assert!(err(&ok, 0).contains("chunk size 0"));
    assert!(err(&ok, 70_000).contains("chunk size 70000"));
    let mut nan = ok.clone();
    *nan.get_mut(2, 3) = f64::NAN;
    assert!(err(&nan, 4).contains("bad.glb"));
    assert!(err(&ok.clone().with_cell_size(0.0, 1.0), 4).contains("cell size"));
}

//! Geometry readers (issue 23): every writer of ours read back through its reader, hand-written
//! files for each syntax variant, and hostile files (empty, truncated, NaN, indices past the
//! vertices, absurd counts, unsupported glTF features), each an [`IoError`] naming the file,
//! never a panic. Expected values are computed here independently of the readers (quaternion
//! rotation by the vector formula, the sRGB transfer function, fan triangulation by hand).

mod common;

use bozkir_core::Grid;
use bozkir_io::export::geometry::{write_obj_mesh, write_ply_cloud, write_ply_mesh, write_xyz, CloudRef, MeshRef};
use bozkir_io::export::gltf::{write_scene, Colours, Instances, Mesh, Node, Scene};
use bozkir_io::export::{glb::write_glb, mesh::height_mesh};
use bozkir_io::scene::{
    read_geometry, read_glb, read_obj, read_ply_geometry, read_xyz, Geometry, SceneCloud, SceneMesh,
};
use bozkir_io::IoError;
use common::TmpDir;
use serde_json::{json, Value};
use std::path::Path;

// ------------------------------------------------------------------ helpers

/// Positions, normals, colours, indices of a tetrahedron with awkward coordinates.
type Parts = (Vec<[f32; 3]>, Vec<[f32; 3]>, Vec<[u8; 3]>, Vec<u32>);

fn tetra() -> Parts {
    let p = vec![[0.1, -2.5e-7, 3.0], [1.0 / 3.0, 0.0, -1e6], [0.0, 7.25, 1.0e-3], [-4.0, 2.0, 0.5]];
    let n = vec![[0.0, 0.0, 1.0], [0.6, 0.8, 0.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]];
    let c = vec![[255, 0, 10], [1, 2, 3], [128, 64, 32], [0, 0, 0]];
    (p, n, c, vec![0, 1, 2, 0, 2, 3, 0, 3, 1, 1, 3, 2])
}

fn mesh(g: Geometry) -> SceneMesh {
    match g {
        Geometry::Mesh(m) => m,
        Geometry::Cloud(c) => panic!("expected a mesh, got a cloud of {}", c.positions.len()),
    }
}

fn cloud(g: Geometry) -> SceneCloud {
    match g {
        Geometry::Cloud(c) => c,
        Geometry::Mesh(m) => panic!("expected a cloud, got a mesh of {}", m.positions.len()),
    }
}

/// Linear 0..1 → sRGB byte.
fn srgb(c: f64) -> u8 {
    let s = if c <= 0.0031308 { c * 12.92 } else { 1.055 * c.powf(1.0 / 2.4) - 0.055 };
    (s * 255.0).round() as u8
}

/// `q · v · q⁻¹` for a unit quaternion (x, y, z, w): `v + 2w (u × v) + 2 u × (u × v)`.
fn rotate(q: [f32; 4], v: [f64; 3]) -> [f64; 3] {
    let u = [q[0] as f64, q[1] as f64, q[2] as f64];
    let w = q[3] as f64;
    let cross =
        |a: [f64; 3], b: [f64; 3]| [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
    let uv = cross(u, v);
    let uuv = cross(u, uv);
    std::array::from_fn(|k| v[k] + 2.0 * w * uv[k] + 2.0 * uuv[k])
}

fn unit(v: [f64; 3]) -> [f64; 3] {
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    v.map(|x| x / l)
}

fn close(a: [f32; 3], b: [f64; 3], tol: f64) -> bool {
    (0..3).all(|k| (a[k] as f64 - b[k]).abs() <= tol * (1.0 + b[k].abs()))
}

/// Standard base64 with padding (an encoder of the test's own, for `data:` URIs).
fn b64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in bytes.chunks(3) {
        let n = (c[0] as u32) << 16 | (*c.get(1).unwrap_or(&0) as u32) << 8 | *c.get(2).unwrap_or(&0) as u32;
        for k in 0..4 {
            if k <= c.len() {
                s.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

/// A GLB container built by hand: header, JSON chunk, BIN chunk (when not empty).
fn glb_bytes(doc: &Value, bin: &[u8]) -> Vec<u8> {
    let mut j = serde_json::to_vec(doc).unwrap();
    while !j.len().is_multiple_of(4) {
        j.push(b' ');
    }
    let mut b = bin.to_vec();
    while !b.len().is_multiple_of(4) {
        b.push(0);
    }
    let total = 12 + 8 + j.len() + if b.is_empty() { 0 } else { 8 + b.len() };
    let mut out = b"glTF".to_vec();
    out.extend(2u32.to_le_bytes());
    out.extend((total as u32).to_le_bytes());
    out.extend((j.len() as u32).to_le_bytes());
    out.extend(b"JSON");
    out.extend(j);
    if !b.is_empty() {
        out.extend((b.len() as u32).to_le_bytes());
        out.extend(b"BIN\0");
        out.extend(b);
    }
    out
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A one-triangle GLB: positions at 0, u32 indices at 36; `patch` edits the JSON first.
fn triangle_glb(patch: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut bin = f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    bin.extend([0u32, 1, 2].iter().flat_map(|i| i.to_le_bytes()));
    let mut doc = json!({
        "asset": { "version": "2.0" },
        "scene": 0,
        "scenes": [{ "nodes": [0] }],
        "nodes": [{ "mesh": 0 }],
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": 0 }, "indices": 1 }] }],
        "buffers": [{ "byteLength": 48 }],
        "bufferViews": [
            { "buffer": 0, "byteOffset": 0, "byteLength": 36 },
            { "buffer": 0, "byteOffset": 36, "byteLength": 12 }
        ],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3" },
            { "bufferView": 1, "componentType": 5125, "count": 3, "type": "SCALAR" }
        ]
    });
    patch(&mut doc);
    glb_bytes(&doc, &bin)
}

/// The error of reading `bytes` as file `name` with `read`; checks it names the file.
fn refused<T: std::fmt::Debug>(
    dir: &Path,
    name: &str,
    bytes: &[u8],
    read: impl Fn(&Path) -> Result<T, IoError>,
) -> (IoError, String) {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    let e = read(&path).unwrap_err();
    let m = e.to_string();
    assert!(m.starts_with(&path.display().to_string()), "{m}");
    (e, m)
}

// ------------------------------------------------------------------ our writers, read back

#[test]
fn obj_writer_reads_back_bit_for_bit() {
    let d = TmpDir::new("scene-obj");
    let (p, n, c, i) = tetra();
    for (normals, colours) in [(None, None), (Some(&n[..]), None), (None, Some(&c[..])), (Some(&n[..]), Some(&c[..]))] {
        let path = d.join("m.obj");
        write_obj_mesh(&path, &MeshRef { positions: &p, normals, colours, indices: &i }).unwrap();
        let m = read_obj(&path).unwrap();
        let want = SceneMesh {
            positions: p.clone(),
            normals: normals.map(<[_]>::to_vec),
            colours: colours.map(<[_]>::to_vec),
            indices: i.clone(),
        };
        assert_eq!(m, want);
        assert_eq!(mesh(read_geometry(&path).unwrap()), want);
    }
}

#[test]
fn ply_mesh_and_cloud_writers_read_back_bit_for_bit() {
    let d = TmpDir::new("scene-ply");
    let (p, n, c, i) = tetra();
    let p64: Vec<[f64; 3]> = vec![[6.5e5, 4.2e6 + 0.123_456_789, -12.0], [0.0, 0.0, 0.0], [1e-300, -1.0, 1.0 / 3.0]];
    for (normals, colours) in [(None, None), (Some(&n[..]), Some(&c[..]))] {
        let path = d.join("m.ply");
        write_ply_mesh(&path, &MeshRef { positions: &p, normals, colours, indices: &i }).unwrap();
        let want = SceneMesh {
            positions: p.clone(),
            normals: normals.map(<[_]>::to_vec),
            colours: colours.map(<[_]>::to_vec),
            indices: i.clone(),
        };
        assert_eq!(mesh(read_ply_geometry(&path).unwrap()), want);
        let path = d.join("c.ply");
        let (normals, colours) = (normals.map(|n| &n[..3]), colours.map(|c| &c[..3]));
        write_ply_cloud(&path, &CloudRef { positions: &p64, normals, colours }).unwrap();
        let want = SceneCloud {
            positions: p64.clone(),
            normals: normals.map(<[_]>::to_vec),
            colours: colours.map(<[_]>::to_vec),
        };
        assert_eq!(cloud(read_geometry(&path).unwrap()), want);
    }
}

#[test]
fn xyz_writer_reads_back_bit_for_bit() {
    let d = TmpDir::new("scene-xyz");
    let (_, n, c, _) = tetra();
    let p64: Vec<[f64; 3]> =
        vec![[6.5e5, 4.2e6 + 0.123_456_789, -12.0], [0.0, 0.0, 0.0], [1e-300, -1.0, 1.0 / 3.0], [-0.5, 2.0, 7.0]];
    for (normals, colours) in [(None, None), (Some(&n[..]), None), (None, Some(&c[..])), (Some(&n[..]), Some(&c[..]))] {
        let path = d.join("c.xyz");
        write_xyz(&path, &CloudRef { positions: &p64, normals, colours }).unwrap();
        let want = SceneCloud {
            positions: p64.clone(),
            normals: normals.map(<[_]>::to_vec),
            colours: colours.map(<[_]>::to_vec),
        };
        assert_eq!(read_xyz(&path).unwrap(), want);
        assert_eq!(cloud(read_geometry(&path).unwrap()), want);
    }
}

#[test]
fn gltf_scene_writer_reads_back_with_colours_and_expanded_instances() {
    let d = TmpDir::new("scene-gltf");
    let (p0, n0, _, i0) = tetra();
    let rgba: Vec<[u8; 4]> = vec![[255, 0, 10, 255], [1, 2, 3, 0], [128, 64, 32, 9], [0, 0, 0, 255]];
    let p1: Vec<[f32; 3]> = vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [1.0, 2.0, 1.0]];
    let n1: Vec<[f32; 3]> = vec![[0.0, 0.0, 1.0], [0.0, 0.6, 0.8], [1.0, 0.0, 0.0], [0.0, -1.0, 0.0]];
    let c1: Vec<[f32; 3]> = vec![[0.5, 0.25, 1.0], [0.0, 0.001, 0.2], [1.0, 1.0, 1.0], [0.75, 0.1, 0.0]];
    let i1 = vec![0, 1, 2, 1, 3, 2];
    let q = |v: [f32; 4]| {
        let l = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.map(|x| x / l)
    };
    let t = vec![[10.0, 0.0, 0.0], [0.0, -5.0, 2.5], [1.0, 2.0, 3.0]];
    let r = vec![q([0.1, 0.2, 0.3, 0.9]), q([0.0, 0.0, 0.0, 1.0]), q([-0.5, 0.5, 0.5, 0.5])];
    let s = vec![[1.0, 1.0, 1.0], [-1.0, 2.0, 0.5], [3.0, 3.0, 3.0]];
    let meshes = [
        Mesh { name: "tetra", positions: &p0, normals: &n0, uvs: &[], colours: Colours::Rgba8(&rgba), indices: &i0 },
        Mesh { name: "quad", positions: &p1, normals: &n1, uvs: &[], colours: Colours::RgbF32(&c1), indices: &i1 },
    ];
    let inst = Instances { translations: &t, rotations: &r, scales: &s };
    let nodes = [Node { name: "one", mesh: 0, instances: None }, Node { name: "many", mesh: 1, instances: Some(inst) }];
    let path = d.join("s.glb");
    write_scene(&path, &Scene { name: "s", meshes: &meshes, nodes: &nodes }).unwrap();
    let m = mesh(read_geometry(&path).unwrap());

    // Node 0 as is, then node 1's mesh once per instance: t + R(s ∘ p), normals R(n ⊘ s).
    let mut pos: Vec<[f64; 3]> = p0.iter().map(|p| p.map(f64::from)).collect();
    let mut nor: Vec<[f64; 3]> = n0.iter().map(|n| n.map(f64::from)).collect();
    let mut col: Vec<[u8; 3]> = rgba.iter().map(|c| std::array::from_fn(|k| srgb(c[k] as f64 / 255.0))).collect();
    let mut idx = i0.clone();
    for k in 0..3 {
        let base = pos.len() as u32;
        for (p, n) in p1.iter().zip(&n1) {
            let sp: [f64; 3] = std::array::from_fn(|a| p[a] as f64 * s[k][a] as f64);
            let rp = rotate(r[k], sp);
            pos.push(std::array::from_fn(|a| rp[a] + t[k][a] as f64));
            let sn: [f64; 3] = std::array::from_fn(|a| n[a] as f64 / s[k][a] as f64);
            nor.push(unit(rotate(r[k], sn)));
        }
        col.extend(c1.iter().map(|c| c.map(|v| srgb(v as f64))));
        let mirrored = s[k].iter().product::<f32>() < 0.0;
        for tri in i1.chunks(3) {
            let tri = if mirrored { [tri[0], tri[2], tri[1]] } else { [tri[0], tri[1], tri[2]] };
            idx.extend(tri.map(|i| i + base));
        }
    }
    assert_eq!(m.positions.len(), pos.len());
    for (k, (a, b)) in m.positions.iter().zip(&pos).enumerate() {
        assert!(close(*a, *b, 1e-6), "vertex {k}: {a:?} vs {b:?}");
    }
    let normals = m.normals.as_ref().expect("every primitive has normals");
    for (k, (a, b)) in normals.iter().zip(&nor).enumerate() {
        assert!(close(*a, *b, 1e-6), "normal {k}: {a:?} vs {b:?}");
    }
    assert_eq!(m.colours.as_ref().unwrap(), &col);
    assert_eq!(m.indices, idx);
    let quad = |k: usize| &m.indices[i0.len() + 6 * k..i0.len() + 6 * k + 6];
    let front_of = |tri: &[u32]| {
        let [a, b, c] = [0, 1, 2].map(|j| m.positions[tri[j] as usize].map(f64::from));
        let e1: [f64; 3] = std::array::from_fn(|j| b[j] - a[j]);
        let e2: [f64; 3] = std::array::from_fn(|j| c[j] - a[j]);
        [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]]
    };
    // Triangle (0, 1, 2) of the quad is counter-clockwise about +z. After each instance's
    // transform its front (the cross product of its edges, in the order read) must face the
    // transformed plane normal R(e_z ⊘ s): so the mirrored instance (scale −1, 2, 0.5) must
    // have had its winding reversed.
    for k in 0..3 {
        let front = front_of(&quad(k)[..3]);
        let want = rotate(r[k], [0.0, 0.0, 1.0 / s[k][2] as f64]);
        let dot: f64 = (0..3).map(|j| front[j] * want[j]).sum();
        assert!(dot > 0.0, "instance {k}: front {front:?}, plane normal {want:?}");
    }
}

#[test]
fn terrain_glb_writer_reads_back() {
    let d = TmpDir::new("scene-terrain");
    let h = Grid::from_fn(9, 6, |x, y| (x as f64 * 0.7 - y as f64 * 1.3).sin() * 10.0).with_cell_size(2.0, 3.0);
    let chunks = height_mesh(&h, 4);
    assert!(chunks.len() > 1);
    let path = d.join("t.glb");
    write_glb(&path, &chunks).unwrap();
    let m = read_glb(&path).unwrap();
    let mut pos = Vec::new();
    let mut nor = Vec::new();
    let mut idx = Vec::new();
    for c in &chunks {
        let base = pos.len() as u32;
        pos.extend_from_slice(&c.positions);
        nor.extend_from_slice(&c.normals);
        idx.extend(c.indices.iter().map(|i| i + base));
    }
    assert_eq!(m.positions, pos);
    assert_eq!(m.indices, idx);
    assert_eq!(m.colours, None);
    let normals = m.normals.unwrap();
    assert_eq!(normals.len(), nor.len());
    for (a, b) in normals.iter().zip(&nor) {
        assert!(close(*a, b.map(f64::from), 1e-6), "{a:?} vs {b:?}");
    }
}

// ------------------------------------------------------------------ hand-written syntax variants

#[test]
fn obj_quads_negative_indices_slashes_and_colour_scales() {
    let d = TmpDir::new("scene-obj-hand");
    let path = d.join("q.obj");
    let text = "# a quad and a pentagon\nmtllib x.mtl\no thing\nv 0 0 0 255 0 0\nv 1 0 0 0 255 0\n\
                v 1 1 0 0 0 255\nv 0 1 0 10 20 30\nvt 0 0\nvt 1 0\nvn 0 0 1\nvn 0 0 -1\ng a\ns off\nusemtl m\n\
                f -4/1/1 -3/2/1 -2/1/1 -1/2/1\nv 0.5 2 0 1 2 3\nf 1//1 2//1 3//1 5//1 4//1 # comment\nl 1 2\n";
    std::fs::write(&path, text).unwrap();
    let m = read_obj(&path).unwrap();
    assert_eq!(m.positions.len(), 5);
    assert_eq!(m.indices, vec![0, 1, 2, 0, 2, 3, 0, 1, 2, 0, 2, 4, 0, 4, 3]);
    // A colour value above 1 anywhere: the file's colours are 0..255.
    assert_eq!(m.colours.unwrap(), vec![[255, 0, 0], [0, 255, 0], [0, 0, 255], [10, 20, 30], [1, 2, 3]]);
    // Every corner names vn 1: per-vertex normals.
    assert_eq!(m.normals.unwrap(), vec![[0.0, 0.0, 1.0]; 5]);

    // One vertex paired with two normals: no normals. A vertex without colour: no colours.
    std::fs::write(
        &path,
        "v 0 0 0 0.5 0.5 0.5\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nvn 0 1 0\nf 1//1 2//1 3//1\nf 1//2 3//2 2//2\n",
    )
    .unwrap();
    let m = read_obj(&path).unwrap();
    assert_eq!((m.normals, m.colours), (None, None));
    // A corner without a normal: no normals either; 0..1 colours scaled to bytes.
    std::fs::write(&path, "v 0 0 0 1 0 0.5\nv 1 0 0 0 1 0\nv 0 1 0 0 0 1\nvn 0 0 1\nf 1//1 2 3//1\n").unwrap();
    let m = read_obj(&path).unwrap();
    assert_eq!(m.normals, None);
    assert_eq!(m.colours.unwrap(), vec![[255, 0, 128], [0, 255, 0], [0, 0, 255]]);
    // No face: read_obj refuses, read_geometry gives a cloud.
    std::fs::write(&path, "v 1 2 3\nv 4 5 6\n").unwrap();
    assert!(matches!(read_obj(&path), Err(IoError::Empty { .. })));
    assert_eq!(cloud(read_geometry(&path).unwrap()).positions, vec![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
}

#[test]
fn ply_ascii_with_polygons_other_properties_and_elements() {
    let d = TmpDir::new("scene-ply-ascii");
    let path = d.join("a.ply");
    let text = "ply\r\nformat ascii 1.0\r\ncomment hand\r\nelement material 1\r\nproperty list uchar float k\r\n\
                element vertex 5\r\nproperty float x\r\nproperty float y\r\nproperty double z\r\n\
                property uchar red\r\nproperty uchar green\r\nproperty uchar blue\r\nproperty int confidence\r\n\
                element face 2\r\nproperty list uchar int vertex_indices\r\nproperty uchar flags\r\nend_header\r\n\
                2 0.5 0.25\r\n0 0 0 255 0 0 7\r\n1 0 0 0 255 0 7\r\n1 1 0.5 0 0 255 7\r\n0 1 0 1 2 3 7\r\n\
                0.5 2 -1 9 9 9 7\r\n4 0 1 2 3 1\r\n3 2 3 4 0\r\n";
    std::fs::write(&path, text).unwrap();
    let m = mesh(read_geometry(&path).unwrap());
    assert_eq!(m.positions, vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.5], [0.0, 1.0, 0.0], [0.5, 2.0, -1.0]]);
    assert_eq!(m.indices, vec![0, 1, 2, 0, 2, 3, 2, 3, 4]);
    assert_eq!(m.colours.unwrap()[..2], [[255, 0, 0], [0, 255, 0]]);
    assert_eq!(m.normals, None);
    // Zero faces: a cloud.
    let text = "ply\nformat ascii 1.0\nelement vertex 2\nproperty double x\nproperty double y\nproperty double z\n\
                element face 0\nproperty list uchar int vertex_index\nend_header\n1 2 3\n4 5 6.25\n";
    std::fs::write(&path, text).unwrap();
    assert_eq!(cloud(read_geometry(&path).unwrap()).positions, vec![[1.0, 2.0, 3.0], [4.0, 5.0, 6.25]]);
}

#[test]
fn ply_big_endian_with_float_colours_and_ushort_indices() {
    let d = TmpDir::new("scene-ply-be");
    let path = d.join("b.ply");
    let mut bytes = b"ply\nformat binary_big_endian 1.0\nelement vertex 4\nproperty float x\nproperty float y\n\
        property float z\nproperty float nx\nproperty float ny\nproperty float nz\nproperty float red\n\
        property float green\nproperty float blue\nelement face 1\nproperty list int ushort vertex_index\nend_header\n"
        .to_vec();
    let verts: [[f32; 9]; 4] = [
        [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.5],
        [1.5, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0],
        [1.5, 1.0, 0.0, 0.0, 0.6, 0.8, 0.2, 0.2, 0.2],
        [0.0, 1.0, -3.0e5, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0],
    ];
    for v in &verts {
        bytes.extend(v.iter().flat_map(|x| x.to_be_bytes()));
    }
    bytes.extend(4i32.to_be_bytes());
    for i in [3u16, 2, 1, 0] {
        bytes.extend(i.to_be_bytes());
    }
    std::fs::write(&path, &bytes).unwrap();
    let m = mesh(read_ply_geometry(&path).unwrap());
    assert_eq!(m.positions, verts.iter().map(|v| [v[0], v[1], v[2]]).collect::<Vec<_>>());
    assert_eq!(m.normals.unwrap(), verts.iter().map(|v| [v[3], v[4], v[5]]).collect::<Vec<_>>());
    assert_eq!(m.colours.unwrap(), vec![[255, 0, 128], [0, 255, 0], [51, 51, 51], [255, 255, 255]]);
    assert_eq!(m.indices, vec![3, 2, 1, 3, 1, 0]);
}

#[test]
fn xyz_commas_comments_and_nine_columns() {
    let d = TmpDir::new("scene-xyz-hand");
    let path = d.join("p.txt");
    std::fs::write(&path, "// X,Y,Z,Nx,Ny,Nz,R,G,B\n1,2,3,0,0,1,255,128,0\n\n# gap\n4;5;6;1;0;0;0;0;0 # end\n")
        .unwrap();
    let c = read_xyz(&path).unwrap();
    assert_eq!(c.positions, vec![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
    assert_eq!(c.normals.unwrap(), vec![[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]);
    assert_eq!(c.colours.unwrap(), vec![[255, 128, 0], [0, 0, 0]]);
    // Six columns, fractional values at most 1 that are not unit vectors: 0..1 colours.
    std::fs::write(&path, "0 0 0 0.5 0 1\n1 1 1 0.2 0.2 0.2\n").unwrap();
    let c = read_xyz(&path).unwrap();
    assert_eq!((c.normals, c.colours.unwrap()), (None, vec![[128, 0, 255], [51, 51, 51]]));
}

#[test]
fn gltf_with_data_uri_hierarchy_stride_normalized_colours_and_material() {
    let d = TmpDir::new("scene-gltf-hand");
    // Interleaved position + normal (stride 24) for 4 vertices, u16 normalised RGBA colours,
    // u8 indices.
    let p = [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]];
    let n = [[0.0f32, 0.0, 1.0], [0.0, 0.6, 0.8], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
    let mut bin = Vec::new();
    for k in 0..4 {
        bin.extend(f32s(&p[k]));
        bin.extend(f32s(&n[k]));
    }
    let c16: [[u16; 4]; 4] = [[65535, 0, 0, 65535], [0, 32768, 0, 0], [0, 0, 13107, 1], [1000, 2000, 3000, 4000]];
    bin.extend(c16.iter().flatten().flat_map(|v| v.to_le_bytes()));
    bin.extend([0u8, 1, 2, 0, 2, 3, 0, 0]);
    assert_eq!(bin.len(), 136);
    let doc = json!({
        "asset": { "version": "2.0" },
        "scene": 0,
        "scenes": [{ "nodes": [0] }],
        "nodes": [
            { "translation": [10.0, 0.0, 0.0], "children": [1] },
            { "rotation": [0.0, 0.0, std::f64::consts::FRAC_1_SQRT_2, std::f64::consts::FRAC_1_SQRT_2],
              "scale": [2.0, 2.0, 2.0], "mesh": 0 }
        ],
        "meshes": [{ "primitives": [
            { "attributes": { "POSITION": 0, "NORMAL": 1, "COLOR_0": 2 }, "indices": 3, "mode": 4 },
            { "attributes": { "POSITION": 4, "NORMAL": 5 }, "material": 0 }
        ] }],
        "materials": [{ "pbrMetallicRoughness": { "baseColorFactor": [0.5, 0.25, 1.0, 1.0] } }],
        "buffers": [{ "byteLength": bin.len(), "uri": format!("data:application/octet-stream;base64,{}", b64(&bin)) }],
        "bufferViews": [
            { "buffer": 0, "byteOffset": 0, "byteLength": 96, "byteStride": 24 },
            { "buffer": 0, "byteOffset": 96, "byteLength": 32 },
            { "buffer": 0, "byteOffset": 128, "byteLength": 6 }
        ],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3" },
            { "bufferView": 0, "byteOffset": 12, "componentType": 5126, "count": 4, "type": "VEC3" },
            { "bufferView": 1, "componentType": 5123, "normalized": true, "count": 4, "type": "VEC4" },
            { "bufferView": 2, "componentType": 5121, "count": 6, "type": "SCALAR" },
            { "bufferView": 0, "byteOffset": 24, "componentType": 5126, "count": 3, "type": "VEC3" },
            { "bufferView": 0, "byteOffset": 36, "componentType": 5126, "count": 3, "type": "VEC3" }
        ]
    });
    let path = d.join("h.gltf");
    std::fs::write(&path, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let m = mesh(read_geometry(&path).unwrap());
    // World = T(10, 0, 0) · Rz(90°) · S(2): (x, y, z) → (10 − 2y, 2x, 2z); normals Rz(90°).
    let rz = |v: [f32; 3]| [-(v[1] as f64), v[0] as f64, v[2] as f64];
    let mut want_p: Vec<[f64; 3]> = p.iter().map(|v| [10.0 - 2.0 * v[1] as f64, 2.0 * v[0] as f64, 0.0]).collect();
    want_p.extend(p[1..].iter().map(|v| [10.0 - 2.0 * v[1] as f64, 2.0 * v[0] as f64, 0.0]));
    let mut want_n: Vec<[f64; 3]> = n.iter().map(|v| rz(*v)).collect();
    want_n.extend(n[1..].iter().map(|v| rz(*v)));
    assert_eq!(m.positions.len(), 7);
    for (a, b) in m.positions.iter().zip(&want_p) {
        assert!(close(*a, *b, 1e-6), "{a:?} vs {b:?}");
    }
    for (a, b) in m.normals.unwrap().iter().zip(&want_n) {
        assert!(close(*a, *b, 1e-6), "{a:?} vs {b:?}");
    }
    assert_eq!(m.indices, vec![0, 1, 2, 0, 2, 3, 4, 5, 6]);
    let mut want_c: Vec<[u8; 3]> = c16.iter().map(|c| std::array::from_fn(|k| srgb(c[k] as f64 / 65535.0))).collect();
    want_c.extend([[srgb(0.5), srgb(0.25), 255]; 3]);
    assert_eq!(m.colours.unwrap(), want_c);
    assert_eq!(want_c[4], [188, 137, 255]);
}

#[test]
fn glb_without_scene_draws_root_nodes_and_reads_quantised_positions() {
    let d = TmpDir::new("scene-glb-roots");
    // Positions as normalised i16 (KHR_mesh_quantization style), no indices, no scenes.
    let mut bin = Vec::new();
    for v in [[0i16, 0, 0], [32767, 0, 0], [0, -32767, 16384]] {
        bin.extend(v.iter().flat_map(|x| x.to_le_bytes()));
        bin.extend([0, 0]); // each element padded to 8 bytes
    }
    let doc = json!({
        "asset": { "version": "2.0" },
        "extensionsRequired": ["KHR_mesh_quantization"],
        "nodes": [{ "mesh": 0, "translation": [0, 0, 1] }, { "children": [0] }],
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": 0 } }] }],
        "buffers": [{ "byteLength": 24 }],
        "bufferViews": [{ "buffer": 0, "byteLength": 24, "byteStride": 8 }],
        "accessors": [{ "bufferView": 0, "componentType": 5122, "normalized": true, "count": 3, "type": "VEC3" }]
    });
    let path = d.join("r.glb");
    std::fs::write(&path, glb_bytes(&doc, &bin)).unwrap();
    let m = read_glb(&path).unwrap();
    // Node 1 is the only root; node 0 is drawn once, under it.
    assert_eq!(m.positions, vec![[0.0, 0.0, 1.0], [1.0, 0.0, 1.0], [0.0, -1.0, (1.0 + 16384.0f64 / 32767.0) as f32]]);
    assert_eq!(m.indices, vec![0, 1, 2]);
    assert_eq!((m.normals, m.colours), (None, None));
}

// ------------------------------------------------------------------ hostile files

#[test]
fn empty_files_and_unknown_extensions_are_refused() {
    let d = TmpDir::new("scene-empty");
    for name in ["e.obj", "e.ply", "e.xyz", "e.glb", "e.gltf"] {
        let (e, _) = refused(&d, name, b"", |p: &Path| read_geometry(p));
        assert!(matches!(e, IoError::Empty { .. }), "{name}: {e}");
    }
    // Comments only.
    let (e, _) = refused(&d, "c.xyz", b"# nothing\n\n", |p: &Path| read_xyz(p));
    assert!(matches!(e, IoError::Empty { .. }), "{e}");
    let (e, _) = refused(&d, "c.obj", b"# nothing\n", |p: &Path| read_obj(p));
    assert!(matches!(e, IoError::Empty { .. }), "{e}");
    let (_, m) = refused(&d, "s.stl", b"solid", |p: &Path| read_geometry(p));
    assert!(m.contains(".obj, .ply, .xyz, .txt, .glb, .gltf") && m.contains("\"stl\""), "{m}");
}

#[test]
fn nan_coordinates_and_bad_indices_are_refused() {
    let d = TmpDir::new("scene-nan");
    let (_, m) = refused(&d, "n.obj", b"v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n", |p: &Path| read_obj(p));
    assert!(m.contains("line 2") && m.contains("not finite"), "{m}");
    let (_, m) = refused(&d, "n.xyz", b"1 2 3\n1 NaN 3\n", |p: &Path| read_xyz(p));
    assert!(m.contains("line 2"), "{m}");
    let ply = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n\
               element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 inf\n0 1 0\n3 0 1 2\n";
    let (_, m) = refused(&d, "n.ply", ply.as_bytes(), |p: &Path| read_ply_geometry(p));
    assert!(m.contains("vertex 1"), "{m}");
    let mut glb = triangle_glb(|_| {});
    let at = glb.len() - 48 + 16; // the BIN chunk's y of vertex 1
    glb[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    let (_, m) = refused(&d, "n.glb", &glb, |p: &Path| read_glb(p));
    assert!(m.contains("accessors[0] element 1"), "{m}");

    let (_, m) = refused(&d, "i.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n", |p: &Path| read_obj(p));
    assert!(m.contains("vertex 8") && m.contains("3 vertices"), "{m}");
    let (_, m) = refused(&d, "z.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", |p: &Path| read_obj(p));
    assert!(m.contains("index 0"), "{m}");
    let (_, m) = refused(&d, "r.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -4\n", |p: &Path| read_obj(p));
    assert!(m.contains("index -4"), "{m}");
    let (_, m) = refused(&d, "t.obj", b"v 0 0 0\nv 1 0 0\nf 1 2\n", |p: &Path| read_obj(p));
    assert!(m.contains("2 corners"), "{m}");
    let (_, m) =
        refused(&d, "vn.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//1 3//2\n", |p: &Path| read_obj(p));
    assert!(m.contains("normal 2") && m.contains("1 normals"), "{m}");
    let ply = ply.replace("1 0 inf", "1 0 0").replace("3 0 1 2", "4 0 1 2 3");
    let (_, m) = refused(&d, "i.ply", ply.as_bytes(), |p: &Path| read_ply_geometry(p));
    assert!(m.contains("vertex 3") && m.contains("3 vertices"), "{m}");
    let mut glb2 = triangle_glb(|_| {});
    let at = glb2.len() - 4;
    glb2[at..].copy_from_slice(&3u32.to_le_bytes());
    let (_, m) = refused(&d, "i.glb", &glb2, |p: &Path| read_glb(p));
    assert!(m.contains("index 2 is 3") && m.contains("3 vertices"), "{m}");
}

#[test]
fn absurd_counts_are_refused_before_allocating() {
    let d = TmpDir::new("scene-huge");
    let head = |n: &str| {
        format!("ply\nformat binary_little_endian 1.0\nelement vertex {n}\nproperty float x\nproperty float y\nproperty float z\nend_header\n")
    };
    let (e, _) = refused(&d, "h.ply", head("4000000000000").as_bytes(), |p: &Path| read_ply_geometry(p));
    assert!(matches!(e, IoError::Truncated { .. } | IoError::TooMany { .. }), "{e}");
    let mut big = head("300000000").into_bytes();
    big.extend([0u8; 4096]);
    let (e, _) = refused(&d, "h2.ply", &big, |p: &Path| read_ply_geometry(p));
    assert!(matches!(e, IoError::Truncated { .. }), "{e}");
    let faces = "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\n\
                 element face 99999999999\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n";
    let (e, m) = refused(&d, "f.ply", faces.as_bytes(), |p: &Path| read_ply_geometry(p));
    assert!(matches!(e, IoError::Truncated { .. }) && m.contains("face"), "{m}");
    let list = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n\
                element face 1\nproperty list uint int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n4000000000 0 1 2\n";
    let (_, m) = refused(&d, "l.ply", list.as_bytes(), |p: &Path| read_ply_geometry(p));
    assert!(m.contains("list length"), "{m}");
    // glTF: an accessor claiming more elements than its view holds, or more than the limit.
    let (e, m) =
        refused(&d, "a.glb", &triangle_glb(|doc| doc["accessors"][0]["count"] = 100_000_000.into()), |p: &Path| {
            read_glb(p)
        });
    assert!(matches!(e, IoError::Truncated { .. }) && m.contains("accessors[0]"), "{m}");
    let (e, _) =
        refused(&d, "b.glb", &triangle_glb(|doc| doc["accessors"][0]["count"] = (1u64 << 40).into()), |p: &Path| {
            read_glb(p)
        });
    assert!(matches!(e, IoError::TooMany { .. }), "{e}");
    let (e, _) =
        refused(&d, "c.glb", &triangle_glb(|doc| doc["bufferViews"][0]["byteOffset"] = u64::MAX.into()), |p: &Path| {
            read_glb(p)
        });
    assert!(matches!(e, IoError::Truncated { .. }), "{e}");
    let (e, _) =
        refused(&d, "o.glb", &triangle_glb(|doc| doc["accessors"][0]["byteOffset"] = u64::MAX.into()), |p: &Path| {
            read_glb(p)
        });
    assert!(matches!(e, IoError::Truncated { .. }), "{e}");
    // A GLB header promising more bytes than the file has.
    let mut g = triangle_glb(|_| {});
    g[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
    let (e, _) = refused(&d, "len.glb", &g, |p: &Path| read_glb(p));
    assert!(matches!(e, IoError::Truncated { .. }), "{e}");
    // Instancing that would expand past MAX_POINTS: 65535 vertices × 2^13 instances, one
    // zero-filled 768 KiB buffer for both; refused before any vertex is expanded.
    let bin = vec![0u8; 12 << 16];
    let doc = json!({
        "asset": { "version": "2.0" },
        "nodes": [{ "mesh": 0, "extensions": { "EXT_mesh_gpu_instancing": { "attributes": { "TRANSLATION": 1 } } } }],
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": 0 } }] }],
        "buffers": [{ "byteLength": bin.len() }],
        "bufferViews": [{ "buffer": 0, "byteLength": bin.len() }],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "count": 65535, "type": "VEC3" },
            { "bufferView": 0, "componentType": 5126, "count": 1 << 13, "type": "VEC3" }
        ]
    });
    let (e, m) = refused(&d, "inst.glb", &glb_bytes(&doc, &bin), |p: &Path| read_glb(p));
    assert!(matches!(e, IoError::TooMany { .. }) && m.contains("instancing"), "{m}");
}

#[test]
fn unsupported_gltf_features_are_refused_by_name() {
    let d = TmpDir::new("scene-gltf-bad");
    type Patch = Box<dyn FnOnce(&mut Value)>;
    let cases: Vec<(&str, Patch, &str)> = vec![
        ("mode", Box::new(|doc| doc["meshes"][0]["primitives"][0]["mode"] = 1.into()), "mode 1 (LINES)"),
        ("strip", Box::new(|doc| doc["meshes"][0]["primitives"][0]["mode"] = 5.into()), "TRIANGLE_STRIP"),
        ("sparse", Box::new(|doc| doc["accessors"][0]["sparse"] = json!({ "count": 1 })), "sparse accessor 0"),
        (
            "noview",
            Box::new(|doc| doc["accessors"][0].as_object_mut().unwrap().remove("bufferView").map(drop).unwrap()),
            "no bufferView",
        ),
        (
            "draco",
            Box::new(|doc| doc["extensionsRequired"] = json!(["KHR_draco_mesh_compression"])),
            "KHR_draco_mesh_compression",
        ),
        ("v1", Box::new(|doc| doc["asset"]["version"] = "1.0".into()), "glTF version"),
        ("cycle", Box::new(|doc| doc["nodes"][0]["children"] = json!([0])), "reached twice"),
        ("external", Box::new(|doc| doc["buffers"][0]["uri"] = "x.bin".into()), "external file"),
        ("idxtype", Box::new(|doc| doc["accessors"][1]["componentType"] = 5126.into()), "index accessor 1"),
        ("normu32", Box::new(|doc| doc["accessors"][0]["normalized"] = true.into()), "normalized FLOAT"),
        ("type", Box::new(|doc| doc["accessors"][0]["type"] = "VEC2".into()), "\"VEC2\""),
        ("stride", Box::new(|doc| doc["bufferViews"][0]["byteStride"] = 4.into()), "byteStride 4"),
        ("node", Box::new(|doc| doc["scenes"][0]["nodes"] = json!([7])), "nodes[7] does not exist"),
        ("mesh", Box::new(|doc| doc["nodes"][0]["mesh"] = 3.into()), "meshes[3]"),
        ("whole", Box::new(|doc| doc["accessors"][1]["count"] = 2.into()), "not whole triangles"),
        ("matrix", Box::new(|doc| doc["nodes"][0]["matrix"] = json!([1, 2, 3])), "matrix is not 16"),
        ("noscene", Box::new(|doc| doc["scenes"][0]["nodes"] = json!([])), "no triangle"),
    ];
    for (name, patch, want) in cases {
        let (_, m) = refused(&d, &format!("{name}.glb"), &triangle_glb(patch), |p: &Path| read_glb(p));
        assert!(m.contains(want), "{name}: {m}");
    }
    let mut g = triangle_glb(|_| {});
    g[20] = b'!';
    let (e, _) = refused(&d, "json.glb", &g, |p: &Path| read_glb(p));
    assert!(matches!(e, IoError::NotJson { .. }), "{e}");
    let (e, _) = refused(&d, "text.gltf", b"{\"asset\": ", |p: &Path| read_glb(p));
    assert!(matches!(e, IoError::NotJson { .. }), "{e}");
    let mut g = triangle_glb(|_| {});
    g[4] = 1;
    let (_, m) = refused(&d, "ver.glb", &g, |p: &Path| read_glb(p));
    assert!(m.contains("version 1"), "{m}");
    let (_, m) =
        refused(&d, "uri.gltf", br#"{"buffers":[{"byteLength":3,"uri":"data:,abc"}]}"#, |p: &Path| read_glb(p));
    assert!(m.contains("no triangle"), "{m}"); // an unused unreadable buffer is not an error
}

#[test]
fn truncated_files_are_refused_at_every_length() {
    let d = TmpDir::new("scene-trunc");
    let (p, n, c, i) = tetra();
    let mref = MeshRef { positions: &p, normals: Some(&n), colours: Some(&c), indices: &i };
    let ply = d.join("w.ply");
    write_ply_mesh(&ply, &mref).unwrap();
    let glb = d.join("w.glb");
    let m = [Mesh { name: "t", positions: &p, normals: &n, uvs: &[], colours: Colours::None, indices: &i }];
    write_scene(&glb, &Scene { name: "s", meshes: &m, nodes: &[Node { name: "n", mesh: 0, instances: None }] })
        .unwrap();
    type Reader = fn(&Path) -> Result<Geometry, IoError>;
    let readers: [(&Path, Reader); 2] = [(&ply, |p| read_ply_geometry(p)), (&glb, |p| read_glb(p).map(Geometry::Mesh))];
    for (path, read) in readers {
        let bytes = std::fs::read(path).unwrap();
        let cut = d.join(path.file_name().unwrap().to_str().unwrap().replace('w', "cut"));
        for len in 0..bytes.len() {
            std::fs::write(&cut, &bytes[..len]).unwrap();
            let e = read(&cut).expect_err(&format!("{} cut to {len}", path.display()));
            assert!(e.to_string().starts_with(&cut.display().to_string()), "{e}");
        }
    }
}

// ------------------------------------------------------------------ mutated files never panic

mod mutated {
    use super::*;
    use proptest::prelude::*;

    /// Valid files of each format to mutate, written by our writers and by hand.
    fn seeds(d: &Path) -> Vec<(String, Vec<u8>)> {
        let (p, n, c, i) = tetra();
        let mref = MeshRef { positions: &p, normals: Some(&n), colours: Some(&c), indices: &i };
        write_ply_mesh(d.join("s.ply"), &mref).unwrap();
        write_obj_mesh(d.join("s.obj"), &mref).unwrap();
        let rgba = [[1u8, 2, 3, 4]; 4];
        let m = [Mesh { name: "t", positions: &p, normals: &n, uvs: &[], colours: Colours::Rgba8(&rgba), indices: &i }];
        let t = [[1.0f32, 2.0, 3.0], [0.0, 0.0, 0.0]];
        let inst = Instances { translations: &t, rotations: &[], scales: &[] };
        write_scene(
            d.join("s.glb"),
            &Scene { name: "s", meshes: &m, nodes: &[Node { name: "n", mesh: 0, instances: Some(inst) }] },
        )
        .unwrap();
        let ascii = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n\
                     element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";
        let mut out: Vec<(String, Vec<u8>)> =
            ["s.ply", "s.obj", "s.glb"].iter().map(|f| (f.to_string(), std::fs::read(d.join(f)).unwrap())).collect();
        out.push(("a.ply".into(), ascii.as_bytes().to_vec()));
        out.push(("x.xyz".into(), b"1 2 3 0 0 1 4 5 6\n7 8 9 1 0 0 1 2 3\n".to_vec()));
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        #[test]
        fn mutated_bytes_never_panic(
            which in 0usize..5,
            edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
            cut in any::<prop::sample::Index>(),
            truncate in any::<bool>(),
        ) {
            let d = TmpDir::new(&format!("scene-mut-{which}"));
            let (name, mut bytes) = seeds(&d).swap_remove(which);
            for (at, b) in edits {
                let k = at.index(bytes.len());
                bytes[k] = b;
            }
            if truncate {
                bytes.truncate(cut.index(bytes.len() + 1));
            }
            let path = d.join(format!("m-{name}"));
            std::fs::write(&path, &bytes).unwrap();
            match read_geometry(&path) {
                Ok(Geometry::Mesh(m)) => {
                    let n = m.positions.len();
                    prop_assert!(m.indices.len() % 3 == 0 && m.indices.iter().all(|&i| (i as usize) < n));
                    prop_assert!(m.positions.iter().flatten().all(|v| v.is_finite()));
                    prop_assert!(m.normals.as_ref().is_none_or(|v| v.len() == n));
                    prop_assert!(m.colours.as_ref().is_none_or(|v| v.len() == n));
                }
                Ok(Geometry::Cloud(c)) => {
                    prop_assert!(!c.positions.is_empty() && c.positions.iter().flatten().all(|v| v.is_finite()));
                }
                Err(e) => prop_assert!(e.to_string().starts_with(&path.display().to_string()), "{}", e),
            }
        }
    }
}

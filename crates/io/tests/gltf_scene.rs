//! The GLB scene encoder: vertex colours (COLOR_0) and instancing (EXT_mesh_gpu_instancing),
//! read back structurally. Set `BOZKIR_GLB_DUMP=DIR` to keep the files (for the Khronos glTF
//! validator, see docs/world.md).

use bozkir_io::export::gltf::{encode_scene, Colours, Instances, Mesh, Node, Scene, INSTANCING};
use serde_json::Value;
use std::path::Path;

/// The JSON document and the BIN chunk of a GLB, checking the container on the way.
fn split(b: &[u8]) -> (Value, Vec<u8>) {
    let u32at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap()) as usize;
    assert_eq!((&b[..4], u32at(4), u32at(8)), (&b"glTF"[..], 2, b.len()));
    let jlen = u32at(12);
    assert_eq!((&b[16..20], jlen % 4), (&b"JSON"[..], 0));
    let at = 20 + jlen;
    let blen = u32at(at);
    assert_eq!((&b[at + 4..at + 8], blen % 4, at + 8 + blen), (&b"BIN\0"[..], 0, b.len()));
    (serde_json::from_slice(&b[20..at]).unwrap(), b[at + 8..].to_vec())
}

/// The bytes of accessor `a`, checking its view's bounds and alignment.
fn accessor_bytes<'a>(doc: &'a Value, bin: &'a [u8], a: usize) -> (&'a [u8], &'a Value) {
    let acc = &doc["accessors"][a];
    let view = &doc["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
    let (off, len) = (view["byteOffset"].as_u64().unwrap() as usize, view["byteLength"].as_u64().unwrap() as usize);
    assert_eq!(off % 4, 0);
    assert!(off + len <= doc["buffers"][0]["byteLength"].as_u64().unwrap() as usize);
    let per = match (acc["type"].as_str().unwrap(), acc["componentType"].as_u64().unwrap()) {
        ("VEC4", 5121) => 4,
        ("VEC3", 5126) => 12,
        ("VEC4", 5126) => 16,
        ("VEC2", 5126) => 8,
        ("SCALAR", 5125) => 4,
        other => panic!("unexpected accessor {other:?}"),
    };
    assert_eq!(len, per * acc["count"].as_u64().unwrap() as usize);
    (&bin[off..off + len], acc)
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

const QUAD: [[f32; 3]; 4] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [1.0, 0.5, -1.0]];
const UP: [[f32; 3]; 4] = [[0.0, 1.0, 0.0]; 4];
const RGBA: [[u8; 4]; 4] = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [10, 20, 30, 255]];
const CROWN: [[f32; 3]; 4] = [[0.0, 2.0, 0.0], [-1.0, 0.0, 1.0], [1.0, 0.0, 1.0], [0.0, 0.0, -1.0]];
const GREEN: [[f32; 3]; 4] = [[0.1, 0.5, 0.1], [0.1, 0.4, 0.1], [0.1, 0.4, 0.1], [0.1, 0.3, 0.1]];

fn scene_bytes(translations: &[[f32; 3]], scales: &[[f32; 3]], rotations: &[[f32; 4]]) -> bozkir_io::Result<Vec<u8>> {
    let meshes = [
        Mesh {
            name: "ribbon",
            positions: &QUAD,
            normals: &UP,
            uvs: &[],
            colours: Colours::Rgba8(&RGBA),
            indices: &[0, 2, 1, 1, 2, 3],
        },
        Mesh {
            name: "crown",
            positions: &CROWN,
            normals: &[],
            uvs: &[],
            colours: Colours::RgbF32(&GREEN),
            indices: &[0, 1, 2, 0, 2, 3, 0, 3, 1, 1, 3, 2],
        },
    ];
    let nodes = [
        Node { name: "roads", mesh: 0, instances: None },
        Node { name: "trees", mesh: 1, instances: Some(Instances { translations, rotations, scales }) },
    ];
    encode_scene(Path::new("w.glb"), &Scene { name: "world", meshes: &meshes, nodes: &nodes }, "bozkir test")
}

#[test]
fn colours_and_instances_read_back() {
    let t = [[5.0, 1.0, -3.0], [7.5, 1.2, -9.0], [2.0, 0.8, -1.0]];
    let s = [[1.0, 2.0, 1.0], [0.5, 1.0, 0.5], [2.0, 3.0, 2.0]];
    let r = [[0.0, 0.0, 0.0, 1.0], [0.0, 0.70710677, 0.0, 0.70710677], [0.0, 1.0, 0.0, 0.0]];
    let b = scene_bytes(&t, &s, &r).unwrap();
    if let Ok(dir) = std::env::var("BOZKIR_GLB_DUMP") {
        std::fs::write(Path::new(&dir).join("scene.glb"), &b).unwrap();
    }
    let (doc, bin) = split(&b);
    assert_eq!(doc["extensionsUsed"], serde_json::json!([INSTANCING]));
    let prim = &doc["meshes"][0]["primitives"][0];
    let (c, acc) = accessor_bytes(&doc, &bin, prim["attributes"]["COLOR_0"].as_u64().unwrap() as usize);
    assert_eq!(acc["normalized"], true);
    assert_eq!(c, RGBA.concat());
    assert!(prim["attributes"].get("TEXCOORD_0").is_none());
    let prim = &doc["meshes"][1]["primitives"][0];
    let (c, _) = accessor_bytes(&doc, &bin, prim["attributes"]["COLOR_0"].as_u64().unwrap() as usize);
    assert_eq!(f32s(c), GREEN.concat());
    assert!(prim["attributes"].get("NORMAL").is_none());
    let (p, acc) = accessor_bytes(&doc, &bin, prim["attributes"]["POSITION"].as_u64().unwrap() as usize);
    assert_eq!(f32s(p), CROWN.concat());
    assert_eq!(acc["min"], serde_json::json!([-1.0, 0.0, -1.0]));
    assert!(doc["nodes"][0].get("extensions").is_none());
    let ext = &doc["nodes"][1]["extensions"][INSTANCING]["attributes"];
    for (name, want) in [("TRANSLATION", t.concat()), ("SCALE", s.concat()), ("ROTATION", r.concat())] {
        let a = ext[name].as_u64().unwrap() as usize;
        let (v, acc) = accessor_bytes(&doc, &bin, a);
        assert_eq!(f32s(v), want, "{name}");
        assert_eq!(acc["count"], 3);
        let view = &doc["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
        assert!(view.get("target").is_none(), "instance data is no vertex attribute");
    }
    // Without rotations and scales: identity, only TRANSLATION.
    let (doc, _) = split(&scene_bytes(&t, &[], &[]).unwrap());
    let ext = &doc["nodes"][1]["extensions"][INSTANCING]["attributes"];
    assert!(ext.get("ROTATION").is_none() && ext.get("SCALE").is_none() && ext.get("TRANSLATION").is_some());
}

#[test]
fn inconsistent_scenes_are_refused_naming_the_part() {
    let e = scene_bytes(&[[0.0; 3]; 2], &[[1.0; 3]], &[]).unwrap_err().to_string();
    assert!(e.contains("node trees") && e.contains("1 scales"), "{e}");
    let e = scene_bytes(&[], &[], &[]).unwrap_err().to_string();
    assert!(e.contains("at least one instance"), "{e}");
    let e = scene_bytes(&[[f32::NAN, 0.0, 0.0]], &[], &[]).unwrap_err().to_string();
    assert!(e.contains("non-finite"), "{e}");
    let bad = Mesh {
        name: "m",
        positions: &QUAD,
        normals: &[],
        uvs: &[],
        colours: Colours::Rgba8(&RGBA[..3]),
        indices: &[0, 1, 2],
    };
    let scene = Scene { name: "s", meshes: &[bad], nodes: &[Node { name: "n", mesh: 0, instances: None }] };
    let e = encode_scene(Path::new("x.glb"), &scene, "t").unwrap_err().to_string();
    assert!(e.contains("x.glb") && e.contains("3 colours"), "{e}");
    let ok = Mesh { colours: Colours::None, ..bad };
    let scene = Scene { name: "s", meshes: &[ok], nodes: &[Node { name: "n", mesh: 1, instances: None }] };
    assert!(encode_scene(Path::new("x.glb"), &scene, "t").unwrap_err().to_string().contains("draws mesh 1"));
    let idx = Mesh { indices: &[0, 1, 4], ..ok };
    let scene = Scene { name: "s", meshes: &[idx], nodes: &[] };
    assert!(encode_scene(Path::new("x.glb"), &scene, "t").unwrap_err().to_string().contains("index 4"));
}

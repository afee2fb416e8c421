//! The native side of the page's 3-D world determinism test (issue 22, item 11: voxel worlds and
//! the cave streamed and meshed in the page). For each case, `tests/golden/voxels.json` holds
//! the FNV-1a 64 of what the page receives when it streams around a fixed viewer until nothing
//! more loads, meshes every due chunk, and walks a scripted path; web/tests/unit/voxels-wasm.test.mjs
//! does the same with web/pkg and compares. Rewrite with
//! `BOZKIR_BLESS=1 cargo test -p bozkir-wasm --test voxels_golden` after rebuilding web/pkg.

use bozkir_wasm::voxels::try_open_voxel_world;
use bozkir_world::seed::fnv1a64;
use serde_json::{json, Value};

/// (generator, seed, paramsJson, viewer x y z in view-frame metres).
const CASES: [(&str, &str, &str, [f64; 3]); 3] = [
    ("voxels", "7", r#"{"chunk_size": 16, "radius": 1, "vradius": 1, "budget": 5}"#, [5.0, -5.0, 10.0]),
    (
        "voxels",
        "atlas",
        r#"{"chunk_size": 8, "radius": 2, "vradius": 1, "budget": 64, "compat": "canonical"}"#,
        [-3.0, 4.0, 9.0],
    ),
    ("implicit_cave", "cave", r#"{"length": 24.0, "radius": 3, "vradius": 3, "budget": 64}"#, [40.0, -10.0, 20.0]),
];

/// Steps of the scripted walk (dt 1/30 s): 40 forward (north-east), 20 jumping, 30 back west.
fn walk_script() -> Vec<(f64, f64, bool)> {
    let mut v = vec![(3.0, 3.0, false); 40];
    v.extend(vec![(0.0, 2.0, true); 20]);
    v.extend(vec![(-4.0, 0.0, false); 30]);
    v
}

/// Streams, meshes and walks a case; returns the bytes the checksum covers and counts.
pub fn run_case(generator: &str, seed: &str, params: &str, at: [f64; 3]) -> (Vec<u8>, usize, usize) {
    let mut w = try_open_voxel_world(generator, seed, params).unwrap();
    let mut bytes = Vec::new();
    let mut loaded = 0;
    loop {
        let u = w.try_update(at[0], at[1], at[2]).unwrap();
        bytes.extend(u.iter().flat_map(|v| v.to_le_bytes()));
        if u[0] == 0 {
            break;
        }
        loaded += u[0] as usize;
    }
    let pending = w.pending(100_000);
    let mut triangles = 0;
    for c in pending.chunks(3) {
        let m = w.try_mesh(c[0], c[1], c[2]).unwrap();
        bytes.extend(c.iter().flat_map(|v| v.to_le_bytes()));
        bytes.extend(m.positions().iter().chain(&m.normals()).flat_map(|v| v.to_le_bytes()));
        bytes.extend(m.colors());
        bytes.extend(m.indices().iter().flat_map(|v| v.to_le_bytes()));
        triangles += m.indices().len() / 3;
    }
    let s = w.start();
    let eye = w.try_place_walker(s[0], s[1], s[2]).unwrap();
    bytes.extend(eye.iter().flat_map(|v| v.to_le_bytes()));
    for (vx, vy, jump) in walk_script() {
        let eye = w.try_walk(1.0 / 30.0, vx, vy, 0.0, jump, false).unwrap();
        bytes.extend(eye.iter().flat_map(|v| v.to_le_bytes()));
    }
    (bytes, loaded, triangles)
}

#[test]
fn native_voxel_worlds_match_the_golden_file() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/voxels.json");
    let cases: Vec<Value> = CASES
        .iter()
        .map(|&(g, s, p, at)| {
            let (bytes, loaded, triangles) = run_case(g, s, p, at);
            assert!(loaded > 0 && triangles > 0, "{g} {s}: {loaded} chunks, {triangles} triangles");
            json!({"generator": g, "seed": s, "params": p, "at": at, "chunks": loaded, "triangles": triangles,
                   "bytes": bytes.len(), "checksum": format!("{:016x}", fnv1a64(&bytes))})
        })
        .collect();
    if std::env::var("BOZKIR_BLESS").is_ok_and(|v| v == "1") {
        let text = serde_json::to_string_pretty(&json!({"hash": "fnv1a64", "walk_dt": 1.0 / 30.0, "cases": cases}))
            .unwrap()
            + "\n";
        std::fs::write(&path, text).unwrap();
        return;
    }
    let text = std::fs::read_to_string(&path).expect("tests/golden/voxels.json (BOZKIR_BLESS=1 writes it)");
    let golden: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(golden["cases"].as_array().unwrap(), &cases);
}

#[test]
fn the_page_options_are_checked() {
    let e = |g: &str, p: &str| try_open_voxel_world(g, "1", p).err().unwrap();
    assert!(e("forest", "{}").contains("unknown 3-D world"));
    assert!(e("voxels", r#"{"radius": 40}"#).contains("radius"));
    assert!(e("voxels", r#"{"budget": 0}"#).contains("budget"));
    assert!(e("voxels", r#"{"size": 64}"#).contains("size"));
    assert!(e("voxels", r#"{"chunk_size": 12}"#).contains("chunk_size"));
    assert!(e("implicit_cave", r#"{"resolution": -1}"#).contains("resolution"));
    assert!(e("voxels", "[1]").contains("JSON object"));
    let mut w = try_open_voxel_world("voxels", "1", r#"{"chunk_size": 8, "radius": 1, "vradius": 1}"#).unwrap();
    assert!(w.try_update(f64::NAN, 0.0, 0.0).unwrap_err().contains("not finite"));
    assert!(w.try_mesh(100, 100, 100).unwrap_err().contains("not loaded"));
    assert!(w.try_walk(f64::NAN, 0.0, 0.0, 0.0, false, false).is_err());
}

//! The native side of the page's world determinism test (issue 21: the same world natively and
//! in WebAssembly for the same string seed). For each case below, `tests/golden/world.json` holds the FNV-1a 64 of the [`WorldView`]'s arrays as the native
//! build computes them; web/tests/unit/world-wasm.test.mjs asks web/pkg for the same worlds and
//! compares. This test fails when the native worlds drift from the file: rebuild web/pkg
//! (`scripts/build_wasm.sh --no-parity`) and rewrite it with
//! `BOZKIR_BLESS=1 cargo test -p bozkir-wasm --test world_golden`.

use bozkir_wasm::world::try_generate_world;
use serde_json::{json, Value};

/// (generator, seed, paramsJson): int and string seeds, both randomness paths, small sizes.
const CASES: [(&str, &str, &str); 14] = [
    ("flat", "atlas", r#"{"size": 40}"#),
    ("flat", "7", r#"{"size": 24, "slope_x": 0.05, "undulation_amp": 1.5}"#),
    ("flat", "rhine", r#"{"size": 32, "undulation_amp": 2.0, "compat": "canonical"}"#),
    ("landscape", "atlas", r#"{"size": 48}"#),
    ("landscape", "3", r#"{"size": 40, "compat": "canonical"}"#),
    ("roads", "atlas", r#"{"size": 48}"#),
    ("roads", "11", r#"{"size": 40}"#),
    ("roads", "rhine", r#"{"size": 40, "compat": "canonical"}"#),
    ("composite", "atlas", r#"{"size": 48}"#),
    ("composite", "5", r#"{"size": 40}"#),
    ("composite", "rhine", r#"{"size": 40, "compat": "canonical"}"#),
    ("composite", "-12", r#"{"size": 32}"#),
    ("forest", "atlas", r#"{"size": 48, "target_tree_count": 12}"#),
    ("forest", "7", r#"{"size": 40, "target_tree_count": 8, "compat": "canonical"}"#),
];

fn native() -> Vec<Value> {
    let mut out = Vec::new();
    for (generator, seed, params) in CASES {
        match try_generate_world(generator, seed, params) {
            Ok(v) => out.push(json!({
                "generator": generator, "seed": seed, "params": params, "nx": v.nx(), "ny": v.ny(),
                "height_head": v.height()[..4].iter().map(|&x| f64::from(x)).collect::<Vec<f64>>(),
                "branch_triangles": v.branch_indices().len() / 3,
                "checksum": v.checksum(),
            })),
            Err(e) => panic!("{generator} {seed} {params}: {e}"),
        }
    }
    out
}

#[test]
fn native_worlds_match_the_golden_file() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/world.json");
    let cases = native();
    if std::env::var("BOZKIR_BLESS").is_ok_and(|v| v == "1") {
        let text = serde_json::to_string_pretty(&json!({ "hash": "fnv1a64", "cases": cases })).unwrap() + "\n";
        std::fs::write(&path, text).unwrap();
        return;
    }
    let text = std::fs::read_to_string(&path).expect("tests/golden/world.json (BOZKIR_BLESS=1 writes it)");
    let golden: Value = serde_json::from_str(&text).unwrap();
    let want = golden["cases"].as_array().unwrap();
    assert_eq!(
        want.len(),
        cases.len(),
        "the build generates {} of the cases, the golden file holds {}: rebuild web/pkg and bless",
        cases.len(),
        want.len()
    );
    for (w, c) in want.iter().zip(&cases) {
        assert_eq!(w, c, "native world differs from the golden file: rebuild web/pkg and bless");
    }
}

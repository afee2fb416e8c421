//! `forest` (sites, crown ownership, border distance, terrain and canopy) against pyworldgen
//! 0.1.8 (golden outputs from `golden/make_forest.py`).

use bozkir_world::forest::{generate_forest, ForestParams};
use bozkir_world::{Compat, Seed};
mod common;

use common::{golden_gz, words4};

#[test]
fn forest_equals_pyworldgen() {
    let g = golden_gz("forest.json.gz");
    let cases = g["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 5);
    let (mut worst_canopy, mut cells, mut trees) = (0f32, 0, 0);
    for c in cases {
        let seed: Seed = serde_json::from_value(c["seed"].clone()).unwrap();
        let p = ForestParams::from_json(&c["params"]).unwrap();
        let f = generate_forest(&seed, Compat::Pyworldgen, &p).unwrap();
        assert_eq!(
            vec![f.ny, f.nx],
            vec![c["shape"][0].as_u64().unwrap() as usize, c["shape"][1].as_u64().unwrap() as usize]
        );
        // Sites: every number bit-equal.
        let want = c["sites"].as_array().unwrap();
        assert_eq!(f.sites.len(), want.len(), "seed {seed}: sites");
        for (s, w) in f.sites.iter().zip(want) {
            let w: Vec<f64> = w.as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
            let ours = [s.id as f64, s.xy.0, s.xy.1, s.height, s.crown_radius, s.weight, s.age, s.trunk_radius];
            for (k, (a, b)) in ours.iter().zip(&w).enumerate() {
                assert_eq!(a.to_bits(), b.to_bits(), "seed {seed}: site {} field {k}: {a} vs {b}", s.id);
            }
        }
        trees += want.len();
        // The owner grid equal on every cell; border and terrain bit-equal (f32).
        let owner: Vec<i32> = words4(c["owner"].as_str().unwrap()).into_iter().map(i32::from_le_bytes).collect();
        let diff = owner.iter().zip(&f.owner).filter(|(a, b)| a != b).count();
        assert_eq!(diff, 0, "seed {seed}: {diff} owner cells differ");
        for (key, ours) in [("border", &f.border), ("terrain", &f.terrain)] {
            let want: Vec<f32> = words4(c[key].as_str().unwrap()).into_iter().map(f32::from_le_bytes).collect();
            let d = want.iter().zip(ours.iter()).filter(|(a, b)| a.to_bits() != b.to_bits()).count();
            assert_eq!(d, 0, "seed {seed}: {d} {key} cells differ");
        }
        // Canopy within 1e-4 m (the bound); the largest difference is reported.
        let want: Vec<f32> = words4(c["canopy"].as_str().unwrap()).into_iter().map(f32::from_le_bytes).collect();
        for (k, (a, b)) in want.iter().zip(&f.canopy).enumerate() {
            let e = (a - b).abs();
            worst_canopy = worst_canopy.max(e);
            assert!(e <= 1e-4, "seed {seed}: canopy cell {k}: {a} vs {b}");
        }
        cells += want.len();
    }
    eprintln!("forest: {trees} sites, {cells} cells; largest canopy difference {worst_canopy:e} m");
    assert!(trees > 150 && cells > 10_000);
}

#[test]
fn forest_is_deterministic_and_refuses_bad_parameters() {
    let p = ForestParams { domain_size: (40.0, 30.0), ..ForestParams::default() };
    let a = generate_forest(&Seed::parse("oak"), Compat::Canonical, &p).unwrap();
    let b = generate_forest(&Seed::parse("oak"), Compat::Canonical, &p).unwrap();
    assert_eq!(a, b);
    assert!(a.owner.iter().all(|&o| o >= 0 && (o as usize) < a.sites.len()), "every cell owned by a site");
    let e = |v: serde_json::Value| ForestParams::from_json(&v).unwrap_err().to_string();
    assert!(e(serde_json::json!({"resolution": -1.0})).contains("resolution"));
    assert!(e(serde_json::json!({"min_crown_radius": 9.0})).contains("min_crown_radius"));
    assert!(e(serde_json::json!({"crown_dpeth": 9.0})).contains("crown_dpeth"));
    assert!(e(serde_json::json!({"domain_size": [1e9, 1e9]})).contains("resolution"));
}

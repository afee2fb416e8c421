//! `flat` against pyworldgen 0.1.8 (golden outputs from `golden/make_flat.py`).

use bozkir_world::flat::{generate, FlatParams};
use bozkir_world::{Compat, Seed};
mod common;

use common::golden_gz;

#[test]
fn flat_equals_pyworldgen_bit_for_bit() {
    let g = golden_gz("flat.json.gz");
    let cases = g["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 8);
    let mut cells = 0;
    for c in cases {
        let seed: Seed = serde_json::from_value(c["seed"].clone()).unwrap();
        let params = FlatParams::from_overrides(c["params"].as_object().unwrap()).unwrap();
        let w = generate(&seed, Compat::Pyworldgen, &params).unwrap();
        let shape = (c["shape"][0].as_u64().unwrap() as usize, c["shape"][1].as_u64().unwrap() as usize);
        assert_eq!((w.ny, w.nx), shape, "seed {seed}: shape");
        let want: Vec<f64> = c["height"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        for (k, (a, b)) in w.height.iter().zip(&want).enumerate() {
            // pyworldgen stores f32; serde_json's decimal parse may miss the double by an ulp, so
            // compare as f32 (our heights are f32 values widened to f64).
            assert_eq!(*a, (*a as f32) as f64);
            assert_eq!(
                (*a as f32).to_bits(),
                (*b as f32).to_bits(),
                "seed {seed}: cell {k} (col {}, row {})",
                k % w.nx,
                k / w.nx
            );
        }
        cells += want.len();
    }
    assert!(cells > 2000);
}

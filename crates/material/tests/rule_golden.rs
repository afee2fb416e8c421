//! The rule against the original implementation, cell for cell.
//!
//! `golden/rule_cases.json.gz` holds the output of the original bozkir rule (its Python
//! `classify`, which its own tests held equal to the viewer's JavaScript in every cell), run in
//! a scratch folder as a peer on 18 cases: three fields × four option sets (spacing 2.5,
//! share 0.3/0.5/none, coherence 1/2, altitude 0/0.4, sharpness 3, a random sediment record), a
//! flat field with and without a share, no oversampling at share 0.7, three classes free and
//! with shares 0.2/0.5/0.3, four classes at 0.25 each. Only its outputs are committed.
//!
//! The fields are built here and there from the canonical hash with only `+ − × ÷` (three
//! octaves of smoothstep value noise at periods 32, 16, 8), so both sides hold the same bits.

use bozkir_core::hash::hash_u32;
use bozkir_material::{classify, Balance, ClassifyOptions, Rule, Source};
use serde_json::Value;
use std::io::Read;

fn octave(m: usize, period: usize, seed: u32) -> Vec<f64> {
    let mut out = vec![0.0; m * m];
    let v = |x: usize, y: usize| f64::from(hash_u32(x as u32, y as u32, seed)) / 4294967296.0;
    for j in 0..m {
        for i in 0..m {
            let (ix, iy) = (i / period, j / period);
            let tx = (i % period) as f64 / period as f64;
            let ty = (j % period) as f64 / period as f64;
            let sx = tx * tx * (3.0 - 2.0 * tx);
            let sy = ty * ty * (3.0 - 2.0 * ty);
            let (a, b, c, d) = (v(ix, iy), v(ix + 1, iy), v(ix, iy + 1), v(ix + 1, iy + 1));
            let top = a + (b - a) * sx;
            let bot = c + (d - c) * sx;
            out[j * m + i] = top + (bot - top) * sy;
        }
    }
    out
}

fn field(m: usize, seed: u32) -> Vec<f64> {
    let (a, b, c) = (octave(m, 32, seed), octave(m, 16, seed + 1), octave(m, 8, seed + 2));
    (0..m * m).map(|i| a[i] + 0.5 * b[i] + 0.25 * c[i]).collect()
}

fn cases() -> Vec<Value> {
    let f = std::fs::File::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/rule_cases.json.gz")).unwrap();
    let mut s = String::new();
    flate2::read::GzDecoder::new(f).read_to_string(&mut s).unwrap();
    let v: Value = serde_json::from_str(&s).unwrap();
    v["cases"].as_array().unwrap().clone()
}

#[test]
fn rule_matches_the_original_in_every_cell() {
    let rule = Rule::builtin();
    let all = cases();
    assert_eq!(all.len(), 18);
    for c in &all {
        let name = format!("{} seed {}", c["name"].as_str().unwrap(), c["seed"]);
        let n = c["n"].as_u64().unwrap() as usize;
        let m = n * c["over"].as_u64().unwrap() as usize;
        let seed = c["seed"].as_u64().unwrap() as u32;
        let z = if c["kind"] == "fbm" { field(m, seed) } else { vec![0.0; m * m] };
        let probe: Vec<f64> = [0, z.len() / 3, z.len() / 2, z.len() - 1].iter().map(|&k| z[k]).collect();
        let want: Vec<f64> = c["z_check"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        assert_eq!(probe, want, "{name}: field differs");
        let sed: Option<Vec<f64>> = c["sediment"]
            .as_bool()
            .unwrap()
            .then(|| (0..m * m).map(|i| f64::from(hash_u32(i as u32, 0, seed + 99)) / 4294967296.0).collect());
        let classes = c["classes"].as_u64().unwrap() as usize;
        let balance = match &c["balance"] {
            Value::Null => Balance::Free,
            Value::Array(a) => Balance::Shares(a.iter().map(|v| v.as_f64().unwrap()).collect()),
            v => Balance::Share(v.as_f64().unwrap()),
        };
        let o = ClassifyOptions {
            classes,
            spacing: c["spacing"].as_f64().unwrap(),
            radius: None,
            sharpness: c["sharpness"].as_f64().unwrap(),
            altitude: c["altitude"].as_f64().unwrap(),
            coherence: c["coherence"].as_u64().unwrap() as usize,
            balance,
        };
        let d = classify(&z, n, sed.as_deref(), &rule, &o).unwrap();
        let want_cls: Vec<u8> = c["cls"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u8).collect();
        assert_eq!(d.class, want_cls, "{name}: classes differ");
        let want_ru: Vec<u8> = c["runner_up"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u8).collect();
        assert_eq!(d.runner_up, want_ru, "{name}: runner-up differs");
        for (i, w) in c["strength"].as_array().unwrap().iter().enumerate() {
            let w = w.as_f64().unwrap();
            assert!((d.strength[i] - w).abs() <= 1e-9, "{name}: strength at {i}: {} vs {w}", d.strength[i]);
        }
        if classes == 2 {
            for (i, w) in c["lead"].as_array().unwrap().iter().enumerate() {
                let w = w.as_f64().unwrap();
                assert!((d.lead[i] - w).abs() <= 1e-9, "{name}: lead at {i}: {} vs {w}", d.lead[i]);
            }
        }
        let want_src = if c["source"] == "sediment" { Source::Sediment } else { Source::Drainage };
        assert_eq!(d.source, want_src, "{name}");
    }
}

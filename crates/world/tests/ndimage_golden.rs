//! scipy's `gaussian_filter` reproduced: every case written by `golden/make_ndimage.py`
//! (shapes down to 1×7 and 3×5, σ up to 6 so the reflection repeats), float64 and float32.

use bozkir_world::compat::ndimage::{gaussian_filter, gaussian_filter_f32};
use std::io::Read;

fn golden() -> serde_json::Value {
    let gz = include_bytes!("golden/ndimage.json.gz");
    let mut s = String::new();
    flate2::read::GzDecoder::new(&gz[..]).read_to_string(&mut s).unwrap();
    serde_json::from_str(&s).unwrap()
}

fn words(hex: &str, digits: usize) -> Vec<u64> {
    (0..hex.len() / digits).map(|k| u64::from_str_radix(&hex[k * digits..][..digits], 16).unwrap()).collect()
}

/// σ whose kernel weights numpy's AVX-512 `exp` and libm's `exp` round alike (pyworldgen's
/// 0.75 and 0.35 among them): the float64 output must then be bit-equal too.
const EXP_AGREES: [f64; 4] = [0.35, 0.75, 1.0, 2.5];

#[test]
fn matches_scipy() {
    let doc = golden();
    let (mut worst64, mut equal64, mut cells64, mut equal32, mut cells32) = (0.0f64, 0, 0, 0, 0);
    for c in doc["cases"].as_array().unwrap() {
        let (nx, ny) = (c["nx"].as_u64().unwrap() as usize, c["ny"].as_u64().unwrap() as usize);
        let sigma = c["sigma"].as_f64().unwrap();
        let (inp, out) = (c["input"].as_str().unwrap(), c["output"].as_str().unwrap());
        if c["dtype"] == "float64" {
            let a: Vec<f64> = words(inp, 16).into_iter().map(f64::from_bits).collect();
            let want: Vec<f64> = words(out, 16).into_iter().map(f64::from_bits).collect();
            let got = gaussian_filter(&a, nx, ny, sigma).unwrap();
            if EXP_AGREES.contains(&sigma) {
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&want), "float64 {ny}×{nx} σ {sigma}");
            }
            for (g, w) in got.iter().zip(&want) {
                worst64 = worst64.max((g - w).abs());
                equal64 += (g.to_bits() == w.to_bits()) as usize;
                cells64 += 1;
            }
        } else {
            let a: Vec<f32> = words(inp, 8).into_iter().map(|b| f32::from_bits(b as u32)).collect();
            let want: Vec<u32> = words(out, 8).into_iter().map(|b| b as u32).collect();
            let got: Vec<u32> = gaussian_filter_f32(&a, nx, ny, sigma).unwrap().iter().map(|v| v.to_bits()).collect();
            equal32 += got.iter().zip(&want).filter(|(g, w)| g == w).count();
            cells32 += want.len();
            assert_eq!(got, want, "float32 {ny}×{nx} σ {sigma}");
        }
    }
    println!("float64: max |Δ| {worst64:e}, {equal64}/{cells64} bit-equal; float32: {equal32}/{cells32} equal");
    assert!(worst64 <= 1e-12, "float64 max |Δ| {worst64:e}");
}

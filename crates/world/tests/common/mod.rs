//! Helpers shared by the pyworldgen golden tests: reading a gzipped JSON golden, decoding the
//! base64 arrays the `golden/make_*.py` scripts write.
#![allow(dead_code)] // each test binary uses its own share

use std::io::Read;

/// `tests/golden/<name>` (gzipped JSON), parsed.
pub fn golden_gz(name: &str) -> serde_json::Value {
    let path = format!("{}/tests/golden/{name}", env!("CARGO_MANIFEST_DIR"));
    let gz = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut text = String::new();
    flate2::read::GzDecoder::new(&gz[..]).read_to_string(&mut text).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Standard base64 (with padding) to bytes.
pub fn base64(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let mut out = Vec::new();
    for chunk in s.as_bytes().chunks(4) {
        let digits: Vec<u8> = chunk.iter().filter(|&&c| c != b'=').map(|&c| val(c)).collect();
        let n = digits.iter().enumerate().fold(0u32, |acc, (i, &d)| acc | u32::from(d) << (18 - 6 * i));
        out.extend_from_slice(&n.to_be_bytes()[1..digits.len()]);
    }
    out
}

/// Little-endian 4-byte words in base64.
pub fn words4(s: &str) -> Vec<[u8; 4]> {
    base64(s).chunks_exact(4).map(|w| [w[0], w[1], w[2], w[3]]).collect()
}

/// Little-endian float32 values in base64, widened.
pub fn f32s(s: &str) -> Vec<f64> {
    words4(s).into_iter().map(|w| f32::from_le_bytes(w) as f64).collect()
}

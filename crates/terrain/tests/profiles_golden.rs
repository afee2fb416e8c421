//! The 19 profiles name the same ground as the original bozkir generator: normalised height and
//! sediment agree with the original's own outputs (tests/golden) to 1e-9.

use bozkir_core::NoProgress;
use bozkir_terrain::profiles::{generate, profile};
use std::io::Read;

struct Golden {
    size: usize,
    entries: Vec<(String, u64, Vec<f64>, Vec<f64>)>,
}

fn load(name: &str) -> Golden {
    let path = format!("{}/tests/golden/{name}", env!("CARGO_MANIFEST_DIR"));
    let f = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(f).read_to_end(&mut bytes).unwrap();
    let hlen = u32::from_le_bytes(bytes[..4].try_into().unwrap()) as usize;
    let header = std::str::from_utf8(&bytes[4..4 + hlen]).unwrap();
    let body = &bytes[4 + hlen..];
    let size: usize = field(header, "\"size\": ").parse().unwrap();
    let cells = size * size;
    let mut entries = Vec::new();
    // Entries are {"profile": "...", "seed": N, "offset": B}; parse them in order.
    for chunk in header.split("{\"profile\": \"").skip(1) {
        let prof = chunk[..chunk.find('"').unwrap()].to_string();
        let seed: u64 = field(chunk, "\"seed\": ").parse().unwrap();
        let off: usize = field(chunk, "\"offset\": ").parse().unwrap();
        let read = |o: usize| -> Vec<f64> {
            body[o..o + cells * 8].chunks_exact(8).map(|b| f64::from_le_bytes(b.try_into().unwrap())).collect()
        };
        entries.push((prof, seed, read(off), read(off + cells * 8)));
    }
    Golden { size, entries }
}

fn field<'a>(s: &'a str, key: &str) -> &'a str {
    let i = s.find(key).unwrap() + key.len();
    let rest = &s[i..];
    let end = rest.find([',', '}', ']']).unwrap();
    rest[..end].trim()
}

fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
}

fn check(g: &Golden) {
    assert!(!g.entries.is_empty());
    for (prof, seed, h, s) in &g.entries {
        let p = profile(prof).unwrap().params;
        let t = generate(g.size, *seed, &p, &NoProgress);
        let dh = max_abs_diff(t.height.data(), h);
        let ds = max_abs_diff(t.sediment.data(), s);
        assert!(
            dh <= 1e-9 && ds <= 1e-9,
            "{prof} seed {seed} size {}: height diff {dh:e}, sediment diff {ds:e}",
            g.size
        );
    }
}

#[test]
fn all_profiles_two_seeds_match_the_original() {
    let g = load("bozkir_profiles_s48.bin.gz");
    assert_eq!(g.entries.len(), 38);
    check(&g);
}

#[test]
fn canyon_128_matches_the_original() {
    check(&load("bozkir_canyon_s128_seed3.bin.gz"));
}

fn sha256_le(v: &[f64]) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for x in v {
        h.update(x.to_le_bytes());
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Larger fields, where the generator's per-level passes run in parallel: bit-for-bit equal to
/// the original (SHA-256 of the f64 little-endian bytes of the original's own output).
#[test]
fn larger_fields_are_bit_identical_to_the_original() {
    let cases = [
        (
            "canyon",
            512,
            3,
            "c856d6b66c422b3b91e64a71718c2ce96a1aabee9ca852c928f7031590b63f81",
            "0c78aa65e32ee85f49a7140482ab3d2790acfd6785b0860dabbf8e75e9dca318",
        ),
        (
            "alpine",
            384,
            1,
            "6b20b275c94b82af670095f0c745040d4e3f3f879fd855fb1f3379d3cd98b336",
            "a21cd6d88228cbbd7a6e7b1676310019616abeb2251faa221f98c647dcdac326",
        ),
    ];
    for (prof, size, seed, h, s) in cases {
        let t = generate(size, seed, &profile(prof).unwrap().params, &NoProgress);
        assert_eq!(sha256_le(t.height.data()), h, "{prof} {size} seed {seed}: height");
        assert_eq!(sha256_le(t.sediment.data()), s, "{prof} {size} seed {seed}: sediment");
    }
}

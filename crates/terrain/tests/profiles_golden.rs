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
        assert!(dh <= 1e-9 && ds <= 1e-9, "{prof} seed {seed} size {}: height diff {dh:e}, sediment diff {ds:e}", g.size);
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

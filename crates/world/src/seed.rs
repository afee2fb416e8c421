//! Seeds as integers or strings, and the randomness a world draws from.
//!
//! Two mappings, both pinned by tests:
//! * [`Compat::Pyworldgen`] — pyworldgen 0.1.8's: an integer is taken as is, a string goes
//!   through its FNV-1a (32-bit, over the characters' code points, then `% 100000`).
//! * [`Compat::Canonical`] — ours: an integer is taken as its two's-complement 64 bits, a string
//!   is FNV-1a 64 over its UTF-8 bytes; the 64-bit seed then feeds the canonical hash.

use serde::{Deserialize, Serialize};

/// A world seed as the user gave it: `--seed 42` or `--seed rhine`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Seed {
    /// An integer seed.
    Int(i64),
    /// A string seed (`"rhine"`, `"atlas"`).
    Str(String),
}

impl Seed {
    /// Parse a command-line seed: a decimal integer (optionally negative) is an integer seed,
    /// anything else a string seed.
    pub fn parse(text: &str) -> Self {
        match text.parse::<i64>() {
            Ok(v) => Seed::Int(v),
            Err(_) => Seed::Str(text.to_string()),
        }
    }

    /// pyworldgen's `seed_to_int`: integers as they are, strings through its FNV-1a.
    pub fn pyworldgen_int(&self) -> i64 {
        match self {
            Seed::Int(v) => *v,
            Seed::Str(s) => pyworldgen_fnv1a(s) as i64,
        }
    }

    /// Our canonical 64-bit seed.
    pub fn canonical(&self) -> u64 {
        match self {
            Seed::Int(v) => *v as u64,
            Seed::Str(s) => fnv1a64(s.as_bytes()),
        }
    }
}

impl std::fmt::Display for Seed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Seed::Int(v) => write!(f, "{v}"),
            Seed::Str(s) => write!(f, "{s}"),
        }
    }
}

/// pyworldgen's string-seed hash: FNV-1a 32 over the string's code points, `% 100000`.
pub fn pyworldgen_fnv1a(s: &str) -> u32 {
    let mut h: u32 = 2_166_136_261;
    for ch in s.chars() {
        h ^= ch as u32;
        h = h.wrapping_mul(16_777_619);
    }
    h % 100_000
}

/// FNV-1a 64 over bytes (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Which randomness a world draws from; recorded in `world.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Compat {
    /// pyworldgen 0.1.8's hash, seed mapping and numpy generator: the same world as the peer.
    #[default]
    Pyworldgen,
    /// bozkir's canonical hash and counter-based generator.
    Canonical,
}

impl Compat {
    /// The name used on the command line and in `world.json`.
    pub fn name(self) -> &'static str {
        match self {
            Compat::Pyworldgen => "pyworldgen",
            Compat::Canonical => "canonical",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_string_seeds() {
        // Values printed by pyworldgen 0.1.8's `seed_to_int`.
        assert_eq!(Seed::parse("42"), Seed::Int(42));
        assert_eq!(Seed::parse("-7").pyworldgen_int(), -7);
        assert_eq!(Seed::parse("composite").pyworldgen_int(), 91188);
        assert_eq!(Seed::parse("rhine").pyworldgen_int(), 41675);
        assert_eq!(Seed::parse("atlas").pyworldgen_int(), 28204);
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}

//! The cache key of a search and the text of a cache entry; the caller stores the text.

use super::*;

/// Version of the cache entries; older entries miss.
pub const CACHE_VERSION: u32 = 1;

pub(super) fn fnv1a(bytes: &[u8], mut h: u64) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

pub(super) const FNV_OFFSET: u64 = 0xCBF2_9CE4_8422_2325;

/// Fingerprint of a splat set: its count and the centres of 4096 evenly spaced splats.
pub fn scene_fingerprint(s: &Splats) -> u64 {
    let n = s.len();
    let mut h = fnv1a(format!("{n}|").as_bytes(), FNV_OFFSET);
    let k = n.min(4096);
    for j in 0..k {
        let p = s.positions()[j * n / k];
        for v in p {
            h = fnv1a(&v.to_bits().to_le_bytes(), h);
        }
    }
    h
}

/// The cache key (16 hex digits) of a search of `s`, loaded from a file with `stamp`
/// ([`file_stamp`]; any string for splats not from a file), with `settings`.
pub fn cache_key(stamp: &str, s: &Splats, settings: &SearchSettings) -> String {
    let text = format!(
        "v={CACHE_VERSION}|{stamp}|scene={:016x}|{}",
        scene_fingerprint(s),
        serde_json::to_string(settings).expect("settings serialise")
    );
    format!("{:016x}", fnv1a(text.as_bytes(), FNV_OFFSET))
}

#[derive(Serialize, Deserialize)]
pub(super) struct CacheEntry {
    pub(super) version: u32,
    pub(super) key: String,
    pub(super) result: PatchSearch,
}

/// The text of a cache entry holding `r` under `key` (JSON; the caller stores it, by
/// convention as `search_<key>.json` in a cache folder).
pub fn encode_entry(key: &str, r: &PatchSearch) -> serde_json::Result<String> {
    let e = CacheEntry { version: CACHE_VERSION, key: key.to_string(), result: r.clone() };
    serde_json::to_string(&e)
}

/// The result held by a cache entry's text; `None` when it is corrupt, of another version or
/// of another key.
pub fn decode_entry(text: &str, key: &str) -> Option<PatchSearch> {
    let e: CacheEntry = serde_json::from_str(text).ok()?;
    (e.version == CACHE_VERSION && e.key == key).then_some(e.result)
}


// The canonical integer hash (`bozkir_core::hash`), in u32 arithmetic that wraps as Rust's
// `wrapping_mul` and JavaScript's `Math.imul`: no overflow, no floats before the end.
fn hash(x: u32, y: u32, s: u32) -> u32 {
    var h = (x * 0x27D4EB2Du) ^ (y * 0x165667B1u) ^ (s * 0x9E3779B1u);
    h = (h ^ (h >> 15u)) * 0x85EBCA6Bu;
    h = (h ^ (h >> 13u)) * 0xC2B2AE35u;
    return h ^ (h >> 16u);
}

// The 3-D hash (`hash3_u32`): z mixed in by 0xC2B2AE3D; `hash3(x, y, 0, s) == hash(x, y, s)`.
fn hash3(x: u32, y: u32, z: u32, s: u32) -> u32 {
    var h = (x * 0x27D4EB2Du) ^ (y * 0x165667B1u) ^ (z * 0xC2B2AE3Du) ^ (s * 0x9E3779B1u);
    h = (h ^ (h >> 15u)) * 0x85EBCA6Bu;
    h = (h ^ (h >> 13u)) * 0xC2B2AE35u;
    return h ^ (h >> 16u);
}

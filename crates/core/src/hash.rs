//! The canonical integer hash (bozkir seed 000, pyworldgen seed 002).
//!
//! `h = imul(x,0x27D4EB2D) ^ imul(y,0x165667B1) ^ imul(s,0x9E3779B1)`, then two
//! xor-shift-multiply rounds (`0x85EBCA6B` after `>>15`, `0xC2B2AE35` after `>>13`) and a final
//! `h ^ (h >> 16)`. All arithmetic is on `u32` with wrap-around, which is exactly JavaScript's
//! `Math.imul` followed by `>>> 0`. Floats are derived only after hashing.

/// Low 32 bits of the product, as JavaScript's `Math.imul` (read as unsigned).
#[inline(always)]
pub const fn imul(a: u32, b: u32) -> u32 {
    a.wrapping_mul(b)
}

/// Hash of lattice point `(x, y)` under seed `s`. Coordinates and seed are taken modulo 2³².
///
/// # Examples
///
/// ```
/// use bozkir_core::hash::{hash_u32, hash_unit};
///
/// // A pinned vector: the same bits in Rust, WebAssembly, JavaScript and Python.
/// assert_eq!(hash_u32(12345, 67890, 42), 0xe259_7a2c);
/// // Floats only after hashing: `h / 2³²` in [0, 1).
/// assert_eq!(hash_unit(12345, 67890, 42), f64::from(0xe259_7a2cu32) / 4_294_967_296.0);
/// ```
#[inline(always)]
pub const fn hash_u32(x: u32, y: u32, s: u32) -> u32 {
    let mut h = imul(x, 0x27D4_EB2D) ^ imul(y, 0x1656_67B1) ^ imul(s, 0x9E37_79B1);
    h = imul(h ^ (h >> 15), 0x85EB_CA6B);
    h = imul(h ^ (h >> 13), 0xC2B2_AE35);
    h ^ (h >> 16)
}

/// Hash of signed lattice coordinates (two's complement, as `x | 0` in JavaScript).
#[inline(always)]
pub const fn hash_i32(x: i32, y: i32, s: u32) -> u32 {
    hash_u32(x as u32, y as u32, s)
}

/// The hash mapped to `[0, 1)` with 32 bits of resolution: `h / 2³²`.
#[inline(always)]
pub fn hash_unit(x: u32, y: u32, s: u32) -> f64 {
    hash_u32(x, y, s) as f64 * (1.0 / 4_294_967_296.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Vectors computed independently with Python big integers
    /// (`(a*b) & 0xFFFFFFFF` at every multiply), i.e. the original's numpy definition.
    #[test]
    fn pinned_vectors() {
        let cases: [(u32, u32, u32, u32); 6] = [
            (0, 0, 0, 0),
            (1, 0, 0, 0x80f5_75f2),
            (0, 1, 0, 0x0c5c_9f25),
            (0, 0, 1, 0x8acb_841f),
            (12345, 67890, 42, 0xe259_7a2c),
            (0xFFFF_FFFF, 0xFFFF_FFFF, 0xFFFF_FFFF, 0x016b_f667),
        ];
        for (x, y, s, want) in cases {
            assert_eq!(hash_u32(x, y, s), want, "hash_u32({x},{y},{s})");
        }
    }

    #[test]
    fn signed_coordinates_wrap() {
        assert_eq!(hash_i32(-1, -1, 0xFFFF_FFFF), hash_u32(u32::MAX, u32::MAX, u32::MAX));
    }

    #[test]
    fn seeds_and_coordinates_decorrelate() {
        // Neighbouring seeds differ in about half their bits on average.
        let mut bits = 0u32;
        for s in 0..1000u32 {
            bits += (hash_u32(7, 9, s) ^ hash_u32(7, 9, s + 1)).count_ones();
        }
        let mean = bits as f64 / 1000.0;
        assert!((mean - 16.0).abs() < 1.0, "mean differing bits {mean}");
        let u = hash_unit(3, 4, 5);
        assert!((0.0..1.0).contains(&u));
    }
}

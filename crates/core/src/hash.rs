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

/// The multiplier of the third coordinate in [`hash3_u32`] (xxHash's third 32-bit prime).
pub const Z_MUL: u32 = 0xC2B2_AE3D;

/// Hash of lattice point `(x, y, z)` under seed `s`: the construction of [`hash_u32`] with the
/// third coordinate mixed in as `imul(z, 0xC2B2AE3D)` before the finaliser,
///
/// `h = imul(x,0x27D4EB2D) ^ imul(y,0x165667B1) ^ imul(z,0xC2B2AE3D) ^ imul(s,0x9E3779B1)`,
///
/// then the same two xor-shift-multiply rounds and `h ^ (h >> 16)`. All on `u32` with
/// wrap-around (no overflow anywhere: `Math.imul` in JavaScript, `u32` products in WGSL). The
/// plane `z = 0` is the 2-D hash: `hash3_u32(x, y, 0, s) == hash_u32(x, y, s)`.
///
/// # Examples
///
/// ```
/// use bozkir_core::hash::{hash3_u32, hash_u32};
///
/// // Pinned: the same bits in Rust, WebAssembly (`hash3U32`) and WGSL (`hash3` in
/// // `crates/gpu/shaders/hash.wgsl`).
/// assert_eq!(hash3_u32(1, 2, 3, 4), 0xb3a3_8269);
/// assert_eq!(hash3_u32(12345, 67890, 0, 42), hash_u32(12345, 67890, 42));
/// ```
#[inline(always)]
pub const fn hash3_u32(x: u32, y: u32, z: u32, s: u32) -> u32 {
    let mut h = imul(x, 0x27D4_EB2D) ^ imul(y, 0x1656_67B1) ^ imul(z, Z_MUL) ^ imul(s, 0x9E37_79B1);
    h = imul(h ^ (h >> 15), 0x85EB_CA6B);
    h = imul(h ^ (h >> 13), 0xC2B2_AE35);
    h ^ (h >> 16)
}

/// [`hash3_u32`] of signed lattice coordinates (two's complement).
#[inline(always)]
pub const fn hash3_i32(x: i32, y: i32, z: i32, s: u32) -> u32 {
    hash3_u32(x as u32, y as u32, z as u32, s)
}

/// [`hash3_u32`] mapped to `[0, 1)`: `h / 2³²`.
#[inline(always)]
pub fn hash3_unit(x: u32, y: u32, z: u32, s: u32) -> f64 {
    hash3_u32(x, y, z, s) as f64 * (1.0 / 4_294_967_296.0)
}

/// The pinned vectors of [`hash3_u32`] `((x, y, z, s), h)`, computed independently with Python
/// big integers (`(a*b) & 0xFFFFFFFF` at every multiply). The WebAssembly and WGSL tests check
/// the same table.
pub const HASH3_VECTORS: [([u32; 4], u32); 8] = [
    ([0, 0, 0, 0], 0),
    ([0, 0, 1, 0], 0x30e6_db8a),
    ([1, 2, 3, 4], 0xb3a3_8269),
    ([12345, 67890, 0, 42], 0xe259_7a2c),
    ([12345, 67890, 1, 42], 0x09a1_3ced),
    ([0xFFFF_FFFF, 0xFFFF_FFFE, 0xFFFF_FFFD, 7], 0xa115_bae8),
    ([0xFFFF_FFFF, 0xFFFF_FFFF, 0xFFFF_FFFF, 0xFFFF_FFFF], 0xc988_e043),
    ([100, 0xFFFF_FFCE, 2000, 0x9E37_79B9], 0x193c_9305),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash3_pinned_vectors() {
        for ([x, y, z, s], want) in HASH3_VECTORS {
            assert_eq!(hash3_u32(x, y, z, s), want, "hash3_u32({x},{y},{z},{s})");
        }
        assert_eq!(hash3_i32(-1, -2, -3, 7), 0xa115_bae8);
        assert_eq!(hash3_unit(1, 2, 3, 4), f64::from(0xb3a3_8269u32) / 4_294_967_296.0);
    }

    #[test]
    fn hash3_plane_zero_is_the_2d_hash_and_z_decorrelates() {
        for (x, y, s) in [(0u32, 0u32, 0u32), (5, 9, 1), (u32::MAX, 3, 77), (12, u32::MAX, u32::MAX)] {
            assert_eq!(hash3_u32(x, y, 0, s), hash_u32(x, y, s));
        }
        let mut bits = 0u32;
        for z in 0..2000u32 {
            bits += (hash3_u32(7, 9, z, 1) ^ hash3_u32(7, 9, z + 1, 1)).count_ones();
        }
        let mean = f64::from(bits) / 2000.0;
        assert!((mean - 16.0).abs() < 0.5, "mean differing bits {mean}");
    }

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

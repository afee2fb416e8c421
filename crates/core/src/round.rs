//! Rounding to 8- and 16-bit codes without a call into the maths library.
//!
//! `x.round() as u8` (half away from zero, then a saturating cast) is a call to `round` on
//! x86-64 without SSE4.1, about 2 ns, and the preview, the masks and the 16-bit quantiser make
//! several a cell. [`round_u8`] and [`round_u16`] give the same codes for every `f64` (NaN and
//! the infinities included) with one addition and the cast: for `x ≥ 0`,
//! `round(x) = trunc(x + pred(0.5))`, where `pred(0.5) = 0.49999999999999994` is the largest
//! double below one half (the sum rounds up to the next integer exactly when the fraction is at
//! least one half; the constant 0.5 itself would round `0.49999999999999994` up). Below zero the
//! exact code is 0, and the sum stays below one half there, so the cast gives 0 too; above the
//! code range both saturate.

/// The largest `f64` below one half.
const PRED_HALF: f64 = 0.499_999_999_999_999_94;

/// `x.round() as u8`, for every `x`.
///
/// ```
/// use bozkir_core::round::round_u8;
///
/// assert_eq!(round_u8(2.5), 3);
/// assert_eq!(round_u8(0.499_999_999_999_999_94), 0);
/// assert_eq!((round_u8(-7.0), round_u8(300.0), round_u8(f64::NAN)), (0, 255, 0));
/// ```
#[inline(always)]
pub fn round_u8(x: f64) -> u8 {
    (x + PRED_HALF) as u8
}

/// `x.round() as u16`, for every `x`.
///
/// ```
/// use bozkir_core::round::round_u16;
///
/// assert_eq!(round_u16(65_534.5), 65_535);
/// assert_eq!((round_u16(-0.5), round_u16(1e300), round_u16(f64::NEG_INFINITY)), (0, 65_535, 0));
/// ```
#[inline(always)]
pub fn round_u16(x: f64) -> u16 {
    (x + PRED_HALF) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values around every half-integer of the code range and its ends, a few ulps either side,
    /// and the special values.
    fn edges(top: f64) -> Vec<f64> {
        let mut v = vec![
            0.0,
            -0.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            1e300,
            -1e300,
            4_503_599_627_370_495.5,
            4_503_599_627_370_497.0,
        ];
        let mut k = -2.0;
        while k <= top + 2.0 {
            for c in [k, k + 0.5] {
                let (mut up, mut down) = (c, c);
                for _ in 0..4 {
                    v.extend([up, down]);
                    up = up.next_up();
                    down = down.next_down();
                }
            }
            k += 1.0;
        }
        v
    }

    #[test]
    fn same_codes_as_round_then_cast_at_every_edge() {
        for x in edges(255.0) {
            assert_eq!(round_u8(x), x.round() as u8, "{x:e}");
        }
        for x in edges(65_535.0) {
            assert_eq!(round_u16(x), x.round() as u16, "{x:e}");
        }
    }

    #[test]
    fn same_codes_as_round_then_cast_on_random_values() {
        // Random bit patterns (every exponent) and random values across the code ranges.
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for _ in 0..200_000 {
            let bits = f64::from_bits(next());
            let u = (next() >> 11) as f64 / (1u64 << 53) as f64;
            for x in [bits, u * 300.0 - 20.0, u * 70_000.0 - 100.0, (u * 512.0).floor() / 2.0] {
                assert_eq!(round_u8(x), x.round() as u8, "{x:e}");
                assert_eq!(round_u16(x), x.round() as u16, "{x:e}");
            }
        }
    }
}

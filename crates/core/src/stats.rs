//! Order statistics: the one percentile of the project.
//!
//! Percentile `p` (0–100) of `n` values is NumPy's default (`method="linear"`): with the values
//! sorted ascending (by [`f64::total_cmp`]) and rank `r = p/100 · (n − 1)`, the result is
//! `v[⌊r⌋] + (v[⌈r⌉] − v[⌊r⌋]) · (r − ⌊r⌋)`. `p` is clamped to 0..=100; an empty input gives NaN.
//! The expression is evaluated the same way in every function here, so sorting
//! ([`percentiles`], [`percentile_sorted`]) and selection ([`percentile_select`]) give the same
//! bits.
//!
//! Users: point gridding (`bozkir_terrain::points`), capture screening and preparation
//! (`bozkir_splat`), and the validation protocol.

/// The rank `r` of percentile `p` among `n ≥ 1` values, split into `(⌊r⌋, ⌈r⌉, r − ⌊r⌋)`.
fn rank(n: usize, p: f64) -> (usize, usize, f64) {
    let r = (p / 100.0).clamp(0.0, 1.0) * (n - 1) as f64;
    let (lo, hi) = (r.floor() as usize, r.ceil() as usize);
    (lo, hi, r - lo as f64)
}

/// Percentile `p` (0–100) of values already sorted ascending; NaN when `sorted` is empty.
///
/// # Examples
///
/// ```
/// use bozkir_core::stats::percentile_sorted;
///
/// // numpy.percentile([1, 2, 3, 4, 10], 15) == 1.6
/// assert!((percentile_sorted(&[1.0, 2.0, 3.0, 4.0, 10.0], 15.0) - 1.6).abs() < 1e-12);
/// assert!(percentile_sorted(&[], 50.0).is_nan());
/// ```
pub fn percentile_sorted(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let (lo, hi, t) = rank(sorted.len(), p);
    sorted[lo] + (sorted[hi] - sorted[lo]) * t
}

/// Percentiles `ps` (each 0–100) of `v`, which is sorted here (ascending by
/// [`f64::total_cmp`]); NaN for each when `v` is empty.
///
/// # Examples
///
/// ```
/// use bozkir_core::stats::percentiles;
///
/// let mut v = vec![4.0, 1.0, 3.0, 2.0];
/// assert_eq!(percentiles(&mut v, &[0.0, 50.0, 25.0, 100.0]), vec![1.0, 2.5, 1.75, 4.0]);
/// assert_eq!(v, [1.0, 2.0, 3.0, 4.0]);
/// ```
pub fn percentiles(v: &mut [f64], ps: &[f64]) -> Vec<f64> {
    v.sort_unstable_by(f64::total_cmp);
    ps.iter().map(|&p| percentile_sorted(v, p)).collect()
}

/// Percentile `p` (0–100) of `v`, which is sorted here; NaN when `v` is empty.
pub fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_unstable_by(f64::total_cmp);
    percentile_sorted(v, p)
}

/// Percentile `p` (0–100) of `v` by selection in O(n) (`v` is reordered, not sorted): the same
/// bits as [`percentile`]. NaN when `v` is empty.
///
/// # Examples
///
/// ```
/// use bozkir_core::stats::{percentile, percentile_select};
///
/// let v = [1.0, 2.0, 3.0, 4.0, 10.0];
/// let p99 = percentile_select(&mut v.clone(), 99.0);
/// assert!((p99 - 9.76).abs() < 1e-12);
/// assert_eq!(p99, percentile(&mut v.clone(), 99.0));
/// ```
pub fn percentile_select(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let (lo, hi, t) = rank(v.len(), p);
    let (_, &mut a, rest) = v.select_nth_unstable_by(lo, f64::total_cmp);
    // The next order statistic is the smallest of those above the selected one.
    let b = if hi > lo { rest.iter().copied().min_by(f64::total_cmp).unwrap_or(a) } else { a };
    a + (b - a) * t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_match_numpy_linear() {
        let v = [1.0, 2.0, 3.0, 4.0, 10.0];
        // numpy.percentile([1,2,3,4,10], 15) == 1.6 ; 99 -> 9.76
        assert!((percentile_sorted(&v, 15.0) - 1.6).abs() < 1e-12);
        assert!((percentile_select(&mut v.to_vec(), 99.0) - 9.76).abs() < 1e-12);
        let mut w = vec![4.0, 1.0, 3.0, 2.0];
        assert_eq!(percentiles(&mut w, &[0.0, 50.0, 25.0, 100.0]), vec![1.0, 2.5, 1.75, 4.0]);
    }

    #[test]
    fn selection_and_sorting_give_the_same_bits() {
        let mut state = 12345u32;
        let v: Vec<f64> = (0..257)
            .map(|_| {
                state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                f64::from(state >> 8) / 1e3 - 8000.0
            })
            .collect();
        for len in [1, 2, 3, 17, 257] {
            for p in [0.0, 1.0, 15.0, 50.0, 99.0, 100.0] {
                let a = percentile(&mut v[..len].to_vec(), p);
                let b = percentile_select(&mut v[..len].to_vec(), p);
                assert_eq!(a.to_bits(), b.to_bits(), "len {len} p {p}");
            }
        }
    }

    #[test]
    fn out_of_range_and_empty() {
        assert_eq!(percentile(&mut [3.0, 1.0], 150.0), 3.0);
        assert_eq!(percentile(&mut [3.0, 1.0], -5.0), 1.0);
        assert!(percentile(&mut [], 15.0).is_nan());
        assert!(percentile_select(&mut [], 15.0).is_nan());
    }
}

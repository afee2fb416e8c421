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
//!
//! For whole grids there are parallel counterparts that read the data without copying or
//! reordering it: [`finite_range`] (least and greatest finite value) and [`select_finite`] (the
//! value of a given rank among the finite values). Both give the same value for any thread
//! count: the work is split into fixed blocks and the blocks' results are merged in order.

use rayon::prelude::*;

/// Cells per block of the parallel scans (a fixed size, so the merge order never depends on the
/// thread count).
const BLOCK: usize = 1 << 16;

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

/// The least and greatest finite value of `data`, skipping the indices `skip` names; `None`
/// when no such value is finite. A parallel scan in fixed blocks merged in order: the same
/// result for any thread count (and, but for the sign of a zero, the sequential fold's).
///
/// # Examples
///
/// ```
/// use bozkir_core::stats::finite_range;
///
/// let v = [3.0, f64::NAN, -1.5, f64::INFINITY, 7.25];
/// assert_eq!(finite_range(&v, |_| false), Some((-1.5, 7.25)));
/// assert_eq!(finite_range(&v, |i| i == 4), Some((-1.5, 3.0)));
/// assert_eq!(finite_range(&[f64::NAN], |_| false), None);
/// ```
pub fn finite_range(data: &[f64], skip: impl Fn(usize) -> bool + Sync) -> Option<(f64, f64)> {
    let merge =
        |acc: Option<(f64, f64)>, (lo, hi): (f64, f64)| Some(acc.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi))));
    let blocks: Vec<Option<(f64, f64)>> = data
        .par_chunks(BLOCK)
        .enumerate()
        .map(|(k, c)| {
            let base = k * BLOCK;
            c.iter()
                .enumerate()
                .filter(|&(i, v)| v.is_finite() && !skip(base + i))
                .fold(None, |acc, (_, &v)| merge(acc, (v, v)))
        })
        .collect();
    blocks.into_iter().flatten().fold(None, merge)
}

/// `v` as an integer in the order of [`f64::total_cmp`].
#[inline(always)]
fn order_key(v: f64) -> u64 {
    let b = v.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

/// The number of finite values in `data` (counted in parallel).
pub fn count_finite(data: &[f64]) -> usize {
    data.par_chunks(BLOCK).map(|c| c.iter().filter(|v| v.is_finite()).count()).sum()
}

/// Whether `data` holds a NaN (checked in parallel blocks, each a loop without early exit that
/// the compiler vectorises: a parallel `any` over single values was ten times slower).
///
/// ```
/// use bozkir_core::stats::any_nan;
///
/// assert!(!any_nan(&[1.0, f64::INFINITY, -0.0]));
/// assert!(any_nan(&[1.0, 2.0, f64::NAN]));
/// ```
pub fn any_nan(data: &[f64]) -> bool {
    data.par_chunks(BLOCK).any(|c| c.iter().fold(false, |a, v| a | v.is_nan()))
}

/// The value of rank `k` (from 0, ascending by [`f64::total_cmp`]) among the finite values of
/// `data`: what sorting the finite values and taking element `k` gives, found without copying
/// or reordering `data`. `None` when there are no more than `k` finite values.
///
/// Two parallel passes count the values by the top 16 and the next 16 bits of their order key,
/// which narrows the rank to the values sharing 32 bits of key; those few are then selected.
/// Counts are exact, so the result does not depend on the thread count.
///
/// # Examples
///
/// ```
/// use bozkir_core::stats::select_finite;
///
/// let v = [5.0, f64::NAN, -2.0, 9.0, f64::NEG_INFINITY, 5.0, 0.5];
/// // Finite values sorted: -2, 0.5, 5, 5, 9.
/// assert_eq!(select_finite(&v, 0), Some(-2.0));
/// assert_eq!(select_finite(&v, 2), Some(5.0));
/// assert_eq!(select_finite(&v, 4), Some(9.0));
/// assert_eq!(select_finite(&v, 5), None);
/// ```
pub fn select_finite(data: &[f64], k: usize) -> Option<f64> {
    const BINS: usize = 1 << 16;
    let mut k = k as u64;
    // The key bits fixed so far (`fixed` of them, from the top) and their value.
    let (mut prefix, mut fixed) = (0u64, 0u32);
    for _ in 0..2 {
        let shift = 64 - fixed - 16;
        let matches = |key: u64| fixed == 0 || key >> (64 - fixed) == prefix;
        let hist = data
            .par_chunks(BLOCK)
            .fold(
                || vec![0u64; BINS],
                |mut h, c| {
                    for &v in c {
                        if v.is_finite() {
                            let key = order_key(v);
                            if matches(key) {
                                h[((key >> shift) & 0xFFFF) as usize] += 1;
                            }
                        }
                    }
                    h
                },
            )
            .reduce(
                || vec![0u64; BINS],
                |mut a, b| {
                    a.iter_mut().zip(&b).for_each(|(a, b)| *a += b);
                    a
                },
            );
        let mut bin = None;
        for (b, &n) in hist.iter().enumerate() {
            if k < n {
                bin = Some(b as u64);
                break;
            }
            k -= n;
        }
        prefix = prefix << 16 | bin?;
        fixed += 16;
    }
    let mut rest: Vec<f64> = data
        .par_chunks(BLOCK)
        .flat_map_iter(|c| c.iter().copied().filter(|&v| v.is_finite() && order_key(v) >> 32 == prefix))
        .collect();
    let k = k as usize;
    (k < rest.len()).then(|| *rest.select_nth_unstable_by(k, f64::total_cmp).1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `select_finite` against a sort of the finite values, on values with ties, both zeros,
    /// negatives, NaN and infinities, for every rank; and the range against a plain fold.
    #[test]
    fn parallel_selection_and_range_equal_sorting() {
        let mut state = 99u32;
        let mut next = || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            state >> 8
        };
        for len in [0usize, 1, 5, 300, 70_000, 200_003] {
            let v: Vec<f64> = (0..len)
                .map(|_| match next() % 13 {
                    0 => f64::NAN,
                    1 => f64::INFINITY,
                    2 => f64::NEG_INFINITY,
                    3 => 0.0,
                    4 => -0.0,
                    5 => 1.0,
                    6 => f64::from(next() % 7) * 1e-300,
                    _ => (f64::from(next()) - 8e6) * 1.37e-3,
                })
                .collect();
            let mut sorted: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
            sorted.sort_by(f64::total_cmp);
            assert_eq!(count_finite(&v), sorted.len());
            let ranks: Vec<usize> = if sorted.len() < 400 {
                (0..=sorted.len()).collect()
            } else {
                let n = sorted.len();
                vec![0, 1, n / 3, n / 2, n / 2 + 1, n - 2, n - 1, n]
            };
            for k in ranks {
                let got = select_finite(&v, k);
                assert_eq!(got.map(f64::to_bits), sorted.get(k).map(|x| x.to_bits()), "len {len} rank {k}");
            }
            let want = sorted.first().zip(sorted.last()).map(|(&a, &b)| (a, b));
            // (`==` on f64: the two zeros compare equal, as the range may hold either.)
            assert_eq!(finite_range(&v, |_| false), want);
            // Every third index skipped.
            let kept: Vec<f64> =
                v.iter().enumerate().filter(|&(i, x)| i % 3 != 0 && x.is_finite()).map(|(_, &x)| x).collect();
            let want = kept
                .iter()
                .copied()
                .fold(None, |acc: Option<(f64, f64)>, x| Some(acc.map_or((x, x), |(a, b)| (a.min(x), b.max(x)))));
            assert_eq!(finite_range(&v, |i| i % 3 == 0), want);
        }
    }

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

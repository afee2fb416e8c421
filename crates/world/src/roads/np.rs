//! The few numpy operations whose exact rounding the road generator's output depends on,
//! reproduced so the pyworldgen-compatible path gives the same cells: `linspace`, `round`
//! (ties to even), `interp` on an integer abscissa and the pairwise `sum`.

/// `numpy.linspace(start, stop, n)`: `t_i = i·((stop − start)/(n − 1)) + start`, last = `stop`.
pub(crate) fn linspace(start: f64, stop: f64, n: usize) -> Vec<f64> {
    if n == 0 {
        return Vec::new();
    }
    if n == 1 {
        return vec![start];
    }
    let step = (stop - start) / (n - 1) as f64;
    let mut t: Vec<f64> = (0..n).map(|i| i as f64 * step + start).collect();
    t[n - 1] = stop;
    t
}

/// `numpy.round(x)`: nearest integer, ties to even.
#[inline]
pub(crate) fn round_even(x: f64) -> f64 {
    x.round_ties_even()
}

/// `numpy.interp(x, arange(len(fp)), fp)`: piecewise-linear on the abscissae 0, 1, …, m − 1,
/// `fp[j] + (fp[j+1] − fp[j])·(x − j)`, clamped to the end values.
pub(crate) fn interp_index(x: f64, fp: &[f64]) -> f64 {
    let m = fp.len();
    if x.is_nan() {
        return x;
    }
    if x <= 0.0 {
        return fp[0];
    }
    let last = (m - 1) as f64;
    if x >= last {
        return fp[m - 1];
    }
    let j = x.floor() as usize;
    if x == j as f64 {
        return fp[j];
    }
    let slope = (fp[j + 1] - fp[j]) / 1.0;
    slope * (x - j as f64) + fp[j]
}

/// numpy's pairwise summation (`np.sum` of a 1-D array): [`crate::compat::ndimage::pairwise_sum`].
pub(crate) use crate::compat::ndimage::pairwise_sum;

/// Exact `hypot` of two small integers: `√(i² + j²)` with the sum exact, so the one rounding is
/// the square root's (what Python's `math.hypot` returns for them).
#[inline]
pub(crate) fn ihypot(i: i64, j: i64) -> f64 {
    ((i * i + j * j) as f64).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numpy_semantics() {
        assert_eq!(linspace(0.0, 1.0, 3), vec![0.0, 0.5, 1.0]);
        assert_eq!(round_even(0.5), 0.0);
        assert_eq!(round_even(1.5), 2.0);
        assert_eq!(round_even(-0.5), 0.0);
        assert_eq!(interp_index(0.5, &[0.0, 2.0, 4.0]), 1.0);
        assert_eq!(interp_index(7.0, &[0.0, 2.0, 4.0]), 4.0);
        let a: Vec<f64> = (0..300).map(|i| 0.1 * i as f64).collect();
        let s = pairwise_sum(&a);
        assert!((s - 4485.0).abs() < 1e-9);
        assert_eq!(ihypot(3, 4), 5.0);
    }
}

use super::ziggurat::{FI, KI, WI};
use super::*;
use crate::random::Draws;

/// The tables re-derived in f64 from their definition: r = x₂₅₅, v = r·f(r) + ∫_r^∞ f (f(x) =
/// e^(−x²/2)), x_{i−1} = √(−2 ln(v/x_i + f(x_i))), w_i = x_i/2⁵², f_i = f(x_i),
/// k_i = ⌊2⁵²·x_{i−1}/x_i⌋, and for the base layer w₀ = v/f(r)/2⁵², k₀ = ⌊2⁵²·r·f(r)/v⌋.
/// numpy's values came from a more precise evaluation, so they agree to ~1e-12, not bitwise.
#[test]
fn tables_follow_their_definition() {
    let f = |x: f64| libm::exp(-0.5 * x * x);
    let r = ZIG_R;
    let v = r * f(r) + (std::f64::consts::PI / 2.0).sqrt() * libm::erfc(r / std::f64::consts::SQRT_2);
    let m = 2f64.powi(52);
    let mut x = [0.0f64; 256];
    x[255] = r;
    for i in (2..256).rev() {
        x[i - 1] = (-2.0 * libm::log(v / x[i] + f(x[i]))).sqrt();
    }
    let rel = |a: f64, b: f64| ((a - b) / b).abs();
    assert!(rel(v / f(r) / m, WI[0]) < 1e-12);
    assert!(rel(r * f(r) / v * m, KI[0] as f64) < 1e-12);
    assert_eq!((KI[1], FI[0]), (0, 1.0));
    for i in 1..256 {
        assert!(rel(x[i] / m, WI[i]) < 1e-12, "w[{i}]");
        assert!(rel(f(x[i]), FI[i]) < 1e-12, "f[{i}]");
        if i >= 2 {
            assert!(rel(x[i - 1] / x[i] * m, KI[i] as f64) < 1e-12, "k[{i}]");
        }
    }
    assert_eq!(WI[255], r / m);
    assert_eq!(1.0 / ZIG_R, ZIG_INV_R);
}

#[test]
fn seed_words_and_pool() {
    assert_eq!(entropy_words(0), vec![0]);
    assert_eq!(entropy_words((1 << 40) + 5), vec![5, 256]);
    // Extra entropy words beyond the pool change it.
    assert_ne!(seed_sequence_pool(&[1, 2, 3, 4]), seed_sequence_pool(&[1, 2, 3, 4, 5]));
}

#[test]
fn u32_buffer_persists_across_doubles() {
    let mut a = Generator::default_rng(5);
    let mut b = Generator::default_rng(5);
    let lo = a.next_u32();
    let d = a.next_f64();
    let hi = a.next_u32();
    let w = b.next_u64();
    assert_eq!((lo, hi), (w as u32, (w >> 32) as u32));
    assert_eq!(d, (b.next_u64() >> 11) as f64 / 9_007_199_254_740_992.0);
}

#[test]
fn negative_seed_is_twos_complement() {
    let mut a = Generator::default_rng(-1);
    let mut b = Generator::from_u64(u64::MAX);
    assert_eq!(a.next_u64(), b.next_u64());
}

#[test]
fn values_in_range_and_degenerate_bounds() {
    let mut g = Generator::default_rng(9);
    for n in [1i64, 2, 7, 1 << 31, (1 << 32) + 3, i64::MAX] {
        for _ in 0..200 {
            let k = g.integers(n);
            assert!((0..n).contains(&k), "integers({n}) = {k}");
        }
    }
    for _ in 0..1000 {
        let u = g.random();
        assert!((0.0..1.0).contains(&u));
        let v = g.uniform(-2.0, 3.0);
        assert!((-2.0..3.0).contains(&v));
        assert!(g.choice(3) < 3);
        assert!(g.normal().is_finite());
    }
    let before = g.clone().next_u64();
    assert_eq!((g.integers(0), g.integers(-4), g.choice(0), g.integers(1)), (0, 0, 0, 0));
    assert_eq!(g.next_u64(), before, "degenerate bounds draw nothing");
    assert!(g.integers_range(i64::MIN, i64::MAX) < i64::MAX);
}

#[test]
fn normal_moments_and_tail() {
    let mut g = Generator::default_rng(3);
    let n = 200_000;
    let (mut s, mut s2, mut tail) = (0.0, 0.0, 0);
    for _ in 0..n {
        let x = g.normal();
        s += x;
        s2 += x * x;
        tail += (x.abs() > ZIG_R) as usize;
    }
    let (mean, var) = (s / n as f64, s2 / n as f64);
    assert!(mean.abs() < 0.01 && (var - 1.0).abs() < 0.015, "{mean} {var}");
    // P(|x| > r) = erfc(r/√2) ≈ 2.58e-4: ~52 expected.
    assert!((20..100).contains(&tail), "{tail}");
}

/// Both sources of draws (canonical and numpy) keep every method in its documented range.
#[test]
fn both_draws_in_range() {
    for compat in [crate::Compat::Canonical, crate::Compat::Pyworldgen] {
        let mut d = crate::random::for_compat(compat).draws(12_345);
        for i in 0..2000 {
            let n = [1i64, 3, 1000, (1 << 32) + 7][i % 4];
            assert!((0..n).contains(&d.integers(n)), "{compat:?}");
            assert!((0.0..1.0).contains(&d.random()), "{compat:?}");
            assert!((5.0..7.5).contains(&d.uniform(5.0, 7.5)), "{compat:?}");
            assert!(d.choice(5) < 5, "{compat:?}");
            assert!(d.normal().abs() < 10.0, "{compat:?}");
        }
    }
}

use super::ziggurat::{FI, KI, WI};
use super::*;

/// The tables re-derived in f64 from their definition: r = x₂₅₅, v = r·f(r) + ∫_r^∞ f (f(x) =
/// e^(−x²/2)), x_{i−1} = √(−2 ln(v/x_i + f(x_i))), w_i = x_i/2⁵², f_i = f(x_i),
/// k_i = ⌊2⁵²·x_{i−1}/x_i⌋, and for the base layer w₀ = v/f(r)/2⁵², k₀ = ⌊2⁵²·r·f(r)/v⌋.
/// numpy's values came from a more precise evaluation, so they agree to ~1e-12, not bitwise.
#[test]
fn tables_follow_their_definition() {
    let f = |x: f64| libm::exp(-0.5 * x * x);
    let r = ZIGGURAT_R;
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
    assert_eq!(1.0 / ZIGGURAT_R, ZIGGURAT_INV_R);
}

#[test]
fn seed_words_split_low_first_and_extra_words_change_the_pool() {
    assert_eq!(seed_words(0), vec![0]);
    assert_eq!(seed_words(5), vec![5]);
    assert_eq!(seed_words((1 << 32) + 7), vec![7, 1]);
    assert_eq!(seed_words((1 << 40) + 5), vec![5, 256]);
    assert_eq!(seed_words(u128::MAX), vec![u32::MAX; 4]);
    // A seed is its words; extra entropy words beyond the pool change it.
    assert_eq!(SeedSequence::new((1 << 40) + 5), SeedSequence::from_words(&[5, 256]));
    assert_ne!(SeedSequence::from_words(&[1, 2, 3, 4]), SeedSequence::from_words(&[1, 2, 3, 4, 5]));
    // generate_state(n, uint64) pairs the uint32 state, low word first.
    let seq = SeedSequence::new(77);
    let w = seq.generate_state_u32(6);
    let d = seq.generate_state_u64(3);
    assert!((0..3).all(|i| d[i] == u64::from(w[2 * i]) | u64::from(w[2 * i + 1]) << 32));
}

#[test]
fn u32_buffer_persists_across_doubles() {
    let mut a = Generator::default_rng(5);
    let mut b = Generator::default_rng(5);
    let lo = a.bit_generator_mut().next_u32();
    let d = a.random();
    let hi = a.bit_generator_mut().next_u32();
    let w = b.bit_generator_mut().next_u64();
    assert_eq!((lo, hi), (w as u32, (w >> 32) as u32));
    assert_eq!(d, (b.bit_generator_mut().next_u64() >> 11) as f64 / 9_007_199_254_740_992.0);
    // A 32-bit-range integer takes the kept half too.
    let mut a = Generator::default_rng(8);
    let mut b = a.clone();
    let w = b.bit_generator_mut().next_u64();
    a.bit_generator_mut().next_u32();
    assert_eq!(a.bounded_u64(u64::from(u32::MAX)), w >> 32);
}

#[test]
fn normal_moments_and_tail() {
    let mut g = Generator::default_rng(3);
    let n = 200_000;
    let (mut s, mut s2, mut tail) = (0.0, 0.0, 0);
    for _ in 0..n {
        let x = g.standard_normal();
        s += x;
        s2 += x * x;
        tail += (x.abs() > ZIGGURAT_R) as usize;
    }
    let (mean, var) = (s / n as f64, s2 / n as f64);
    assert!(mean.abs() < 0.01 && (var - 1.0).abs() < 0.015, "{mean} {var}");
    // P(|x| > r) = erfc(r/√2) ≈ 2.58e-4: ~52 expected.
    assert!((20..100).contains(&tail), "{tail}");
}

#[test]
fn uniform_and_bounded_stay_in_range() {
    let mut g = Generator::default_rng(9);
    for range in [1u64, 2, 6, (1 << 31) - 1, u64::from(u32::MAX), (1 << 32) + 2, u64::MAX - 1, u64::MAX] {
        for _ in 0..200 {
            assert!(g.bounded_u64(range) <= range, "bounded({range})");
        }
    }
    let before = g.clone();
    assert_eq!(g.bounded_u64(0), 0);
    assert_eq!(g, before, "a zero range draws nothing");
    for _ in 0..1000 {
        let u = g.random();
        assert!((0.0..1.0).contains(&u));
        let v = g.uniform(-2.0, 3.0);
        assert!((-2.0..3.0).contains(&v));
    }
    // uniform is lo + (hi − lo)·random() on the same draw.
    let mut a = Generator::default_rng(4);
    let mut b = a.clone();
    assert_eq!(a.uniform(1.5, 4.0).to_bits(), (1.5 + 2.5 * b.random()).to_bits());
}

#[test]
fn pairwise_sum_equals_a_plain_sum_on_exact_values() {
    // Small integers add exactly in any order, so every blocking must give the plain sum.
    for n in [0usize, 1, 7, 8, 9, 127, 128, 129, 1000, 4099] {
        let a: Vec<f64> = (0..n).map(|i| ((i * 37) % 101) as f64).collect();
        let want: f64 = (0..n).map(|i| ((i * 37) % 101) as f64).sum();
        assert_eq!(pairwise_sum(&a), want, "n {n}");
    }
    // And it is not the sequential sum when rounding matters: 1 followed by 16 × 2⁻⁵³.
    let mut a = vec![1.0];
    a.extend([f64::EPSILON / 2.0; 16]);
    let seq: f64 = a.iter().fold(0.0, |s, v| s + v);
    assert_eq!(seq, 1.0);
    assert!(pairwise_sum(&a) > 1.0);
}

#[test]
fn kahan_and_choice_checks() {
    assert_eq!(kahan_sum(&[]), 0.0);
    assert_eq!(kahan_sum(&[0.1; 10]), 1.0);
    let mut g = Generator::default_rng(3);
    let before = g.clone();
    let e = g.choice_p(&[0.5, 0.6], 3).unwrap_err();
    assert!(matches!(e, NumpyRngError::ProbabilitySum { sum, .. } if sum == 1.1), "{e}");
    assert!(e.to_string().contains("sum of probabilities = 1.1"), "{e}");
    let e = g.choice_p(&[0.5, f64::NAN], 3).unwrap_err();
    assert!(matches!(e, NumpyRngError::NanProbability { index: 1, .. }), "{e}");
    assert!(e.to_string().contains("probability 1 is not finite"), "{e}");
    let e = g.choice_p(&[1.5, -0.5], 3).unwrap_err();
    assert_eq!(e, NumpyRngError::NegativeProbability { index: 1, value: -0.5 });
    assert!(e.to_string().contains("probability = -0.5") && e.to_string().contains("entry 1"), "{e}");
    assert_eq!(g.choice_p(&[], 3), Err(NumpyRngError::EmptyProbabilities));
    let e = g.integers(4, 4, 1).unwrap_err();
    assert_eq!(e, NumpyRngError::EmptyRange { low: 4, high: 4 });
    assert!(e.to_string().contains("high = 4"), "{e}");
    assert_eq!(g, before, "refusals draw nothing");
    // Zero-probability entries are never drawn, the last one included.
    let picks = g.choice_p(&[0.0, 0.25, 0.0, 0.75, 0.0], 10_000).unwrap();
    assert!(picks.iter().all(|&i| i == 1 || i == 3));
    let ones = picks.iter().filter(|&&i| i == 1).count();
    assert!((2_300..2_700).contains(&ones), "{ones}");
}

#[test]
fn integers_stay_in_range_and_the_half_word_is_kept() {
    let mut g = Generator::default_rng(11);
    for (lo, hi) in [(0i64, 1i64), (-3, 4), (0, 1 << 32), (5, (1 << 40) + 3), (i64::MIN, i64::MAX)] {
        for v in g.integers(lo, hi, 500).unwrap() {
            assert!((lo..hi).contains(&v), "{v} not in {lo}..{hi}");
        }
    }
    let mut a = Pcg64::from_seed_and_stream(1, 2);
    let mut b = a.clone();
    let w = b.next_u64();
    assert_eq!((a.next_u32(), a.next_u32()), (w as u32, (w >> 32) as u32));
}

use super::*;

#[test]
fn reflect_repeats_with_period_2n() {
    // a b c → … c b a | a b c | c b a | a b c …
    let got: Vec<usize> = (-7..10).map(|p| reflect_index(p, 3)).collect();
    assert_eq!(got, vec![0, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2]);
    assert!((-5..5).all(|p| reflect_index(p, 1) == 0));
}

#[test]
fn kernel_is_normalised_and_symmetric() {
    for sigma in [0.35, 1.0, 2.5, 7.3] {
        let w = gaussian_kernel_half(sigma, kernel_radius(sigma));
        let total = w[0] + 2.0 * w[1..].iter().sum::<f64>();
        assert!((total - 1.0).abs() < 1e-14, "{sigma}: {total}");
        assert!(w.windows(2).all(|p| p[0] > p[1]));
    }
    assert_eq!(kernel_radius(0.35), 1);
    assert_eq!(kernel_radius(2.5), 10);
    assert_eq!(kernel_radius(0.1), 0);
}

#[test]
fn pairwise_matches_plain_sum_closely() {
    let a: Vec<f64> = (0..1000).map(|i| ((i * 37) % 101) as f64 * 0.013).collect();
    for n in [0, 1, 7, 8, 9, 16, 129, 300, 1000] {
        let plain: f64 = a[..n].iter().sum();
        assert!((pairwise_sum(&a[..n]) - plain).abs() < 1e-10);
    }
}

#[test]
fn constants_and_mass_are_preserved() {
    let (nx, ny) = (9, 6);
    let flat = vec![3.25; nx * ny];
    let out = gaussian_filter(&flat, nx, ny, 1.7).unwrap();
    assert!(out.iter().all(|v| (v - 3.25).abs() < 1e-13));
    // Reflection keeps the mean of every line: the filter preserves the total.
    let data: Vec<f64> = (0..nx * ny).map(|i| ((i * 7919) % 97) as f64).collect();
    let out = gaussian_filter(&data, nx, ny, 2.5).unwrap();
    let (s0, s1): (f64, f64) = (data.iter().sum(), out.iter().sum());
    assert!((s0 - s1).abs() < 1e-9 * s0, "{s0} {s1}");
}

#[test]
fn separable_axis_order_and_transpose() {
    // Filtering the transpose gives the transpose up to rounding (the passes swap order).
    let (nx, ny) = (7, 4);
    let data: Vec<f64> = (0..nx * ny).map(|i| ((i * 31) % 17) as f64).collect();
    let t: Vec<f64> = (0..nx * ny).map(|k| data[(k % ny) * nx + k / ny]).collect();
    let a = gaussian_filter(&data, nx, ny, 1.3).unwrap();
    let b = gaussian_filter(&t, ny, nx, 1.3).unwrap();
    for j in 0..ny {
        for i in 0..nx {
            assert!((a[j * nx + i] - b[i * ny + j]).abs() < 1e-12);
        }
    }
}

#[test]
fn bad_input_is_an_error_and_tiny_sigma_copies() {
    assert!(gaussian_filter(&[1.0; 5], 2, 3, 1.0).is_err());
    assert!(gaussian_filter(&[1.0; 6], 2, 3, f64::NAN).is_err());
    assert!(gaussian_filter(&[1.0; 6], 2, 3, -1.0).is_err());
    assert!(gaussian_filter(&[1.0; 6], 2, 3, f64::INFINITY).is_err());
    assert!(gaussian_filter(&[1.0; 6], 2, 3, 1e9).is_err());
    let d = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    assert_eq!(gaussian_filter(&d, 2, 3, 1e-16).unwrap(), d.to_vec());
    assert_eq!(gaussian_filter(&[], 0, 3, 1.0).unwrap(), Vec::<f64>::new());
    // σ = 0.1 gives radius 0: the kernel is [1] and the data come back unchanged.
    assert_eq!(gaussian_filter(&d, 2, 3, 0.1).unwrap(), d.to_vec());
}

#[test]
fn f32_rounds_after_each_pass() {
    let (nx, ny) = (5, 4);
    let data: Vec<f32> = (0..nx * ny).map(|i| ((i * 13) % 11) as f32 * 0.37).collect();
    let got = gaussian_filter_f32(&data, nx, ny, 1.0).unwrap();
    let wide: Vec<f64> = data.iter().map(|&v| v as f64).collect();
    let w = gaussian_filter(&wide, nx, ny, 1.0).unwrap();
    for (g, w) in got.iter().zip(&w) {
        assert!((*g as f64 - w).abs() < 1e-5);
    }
}

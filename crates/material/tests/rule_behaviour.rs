//! What the rule's controls do, on terrain-like fields (the original viewer's behaviour tests).

use bozkir_core::noise::{fbm01, FbmParams};
use bozkir_material::tilegrid::{sample_grid, Field, GridMapping};
use bozkir_material::{classify, Balance, ClassifyOptions, Decision, Rule};

/// A rolling terrain from the project's fBM, laid under an `n`-tile grid.
fn terrain(n: usize, seed: u32) -> Vec<f64> {
    let s = 96;
    let p = FbmParams { octaves: 5, frequency: 4.0, seed, ..FbmParams::default() };
    let z: Vec<f64> = (0..s * s).map(|i| fbm01(&p, (i % s) as f64 / s as f64, (i / s) as f64 / s as f64)).collect();
    let f = Field::new(s, s, &z).unwrap();
    let mut map = GridMapping::new(n);
    map.detail = 0.0;
    sample_grid(&f, &map)
}

fn run(z: &[f64], n: usize, o: &ClassifyOptions) -> Decision {
    classify(z, n, None, &Rule::builtin(), o).unwrap()
}

fn share(b: f64) -> ClassifyOptions {
    ClassifyOptions { balance: Balance::Share(b), ..ClassifyOptions::default() }
}

#[test]
fn share_is_exact_and_monotone() {
    let n = 24;
    let z = terrain(n, 3);
    let mut prev: Option<Vec<u8>> = None;
    for b in [0.2, 0.3, 0.5, 0.6, 0.8] {
        let d = run(&z, n, &share(b));
        let got = d.shares()[0];
        assert!((got - b).abs() <= 1.0 / (n * n) as f64, "share {b}: {got}");
        // Cells collected at a smaller share stay collected at a larger one.
        if let Some(p) = &prev {
            assert!(p.iter().zip(&d.class).all(|(a, c)| *a != 0 || *c == 0), "not monotone at {b}");
        }
        prev = Some(d.class);
    }
}

#[test]
fn decisiveness_changes_the_band_not_the_classes() {
    let n = 24;
    let z = terrain(n, 5);
    let soft = run(&z, n, &ClassifyOptions { sharpness: 0.5, ..share(0.4) });
    let hard = run(&z, n, &ClassifyOptions { sharpness: 6.0, ..share(0.4) });
    assert_eq!(soft.class, hard.class);
    let band = |d: &Decision| d.strength.iter().filter(|&&s| s < 0.25).count();
    assert!(band(&soft) > 2 * band(&hard), "{} vs {}", band(&soft), band(&hard));
}

#[test]
fn coherence_merges_patches_and_keeps_the_share() {
    let n = 32;
    let z = terrain(n, 7);
    let edges = |d: &Decision| {
        let mut e = 0;
        for r in 0..n {
            for c in 0..n {
                if c + 1 < n && d.class[r * n + c] != d.class[r * n + c + 1] {
                    e += 1;
                }
                if r + 1 < n && d.class[r * n + c] != d.class[(r + 1) * n + c] {
                    e += 1;
                }
            }
        }
        e
    };
    let loose = run(&z, n, &ClassifyOptions { coherence: 0, ..share(0.3) });
    let tight = run(&z, n, &ClassifyOptions { coherence: 6, ..share(0.3) });
    assert!(edges(&tight) < edges(&loose), "{} vs {}", edges(&tight), edges(&loose));
    assert!((tight.shares()[0] - 0.3).abs() < 0.05);
}

#[test]
fn following_height_puts_the_collecting_class_low() {
    let n = 24;
    let z = terrain(n, 11);
    let d = run(&z, n, &ClassifyOptions { altitude: 0.6, ..ClassifyOptions::default() });
    let e = &d.maps.elevation;
    let low: Vec<usize> = (0..n * n).filter(|&i| e[i] < 0.2).collect();
    let high: Vec<usize> = (0..n * n).filter(|&i| e[i] > 0.8).collect();
    let frac = |s: &[usize]| s.iter().filter(|&&i| d.class[i] == 0).count() as f64 / s.len().max(1) as f64;
    assert!(frac(&low) > 0.85, "low ground collected {}", frac(&low));
    assert!(frac(&high) < 0.15, "high ground collected {}", frac(&high));
}

#[test]
fn a_sediment_record_drives_the_collecting_class() {
    let n = 16;
    let m = n * 4;
    let z = terrain(n, 2);
    // A stripe of sediment four tiles wide down the middle.
    let sed: Vec<f64> = (0..m * m).map(|i| if (24..40).contains(&(i % m)) { 1.0 } else { 0.0 }).collect();
    let o = ClassifyOptions { altitude: 0.0, coherence: 1, ..share(0.25) };
    let d = classify(&z, n, Some(&sed), &Rule::builtin(), &o).unwrap();
    assert_eq!(d.source.name(), "sediment");
    let stripe: Vec<usize> = (0..n * n).filter(|&i| (6..10).contains(&(i % n))).collect();
    let got = stripe.iter().filter(|&&i| d.class[i] == 0).count() as f64 / stripe.len() as f64;
    assert!(got > 0.9, "stripe collected {got}");
    let none = classify(&z, n, None, &Rule::builtin(), &o).unwrap();
    assert_eq!(none.source.name(), "drainage");
}

#[test]
fn three_and_four_classes_meet_their_quotas() {
    let n = 20;
    let z = terrain(n, 4);
    for shares in [vec![0.2, 0.5, 0.3], vec![0.25; 4]] {
        let k = shares.len();
        let d = run(
            &z,
            n,
            &ClassifyOptions { classes: k, balance: Balance::Shares(shares.clone()), ..ClassifyOptions::default() },
        );
        for (c, s) in d.shares().iter().enumerate() {
            assert!((s - shares[c]).abs() <= 2.0 / (n * n) as f64, "class {c}: {s}");
        }
        // Cells the quota moved have strength 0 and a runner-up that differs from their class.
        for i in 0..n * n {
            if d.margin[i] == 0.0 && d.strength[i] == 0.0 {
                assert_ne!(d.runner_up[i], d.class[i]);
            }
        }
    }
}

#[test]
fn flat_ground_is_undecided_and_finite() {
    let n = 12;
    let z = vec![3.0; (n * 4) * (n * 4)];
    let d = run(&z, n, &share(0.5));
    assert!(d.strength.iter().all(|v| v.is_finite()));
    let free = run(&z, n, &ClassifyOptions::default());
    let mean = free.strength.iter().sum::<f64>() / (n * n) as f64;
    assert!(mean < 0.05, "{mean}");
    // Blend weights sum to one per cell and follow the band.
    let w = d.blend_weights(0.35);
    assert!(w[0].iter().zip(&w[1]).all(|(a, b)| (a + b - 1.0).abs() < 1e-12));
}

#[test]
fn bad_options_are_named() {
    let z = terrain(8, 1);
    let r = Rule::builtin();
    let err = |o: ClassifyOptions| classify(&z, 8, None, &r, &o).unwrap_err().to_string();
    assert!(err(share(1.5)).contains("share"));
    assert!(err(ClassifyOptions { classes: 5, ..ClassifyOptions::default() }).contains("5 classes"));
    assert!(err(ClassifyOptions { sharpness: 9.0, ..ClassifyOptions::default() }).contains("sharpness"));
    assert!(err(ClassifyOptions {
        classes: 3,
        balance: Balance::Shares(vec![0.5, 0.5]),
        ..ClassifyOptions::default()
    })
    .contains("2 shares for 3 classes"));
    let mut nan = z.clone();
    nan[5] = f64::NAN;
    assert!(classify(&nan, 8, None, &r, &ClassifyOptions::default()).unwrap_err().to_string().contains("sample 5"));
    assert!(classify(&z[..100], 8, None, &r, &ClassifyOptions::default()).is_err());
}

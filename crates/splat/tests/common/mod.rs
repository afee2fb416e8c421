//! Shared helpers of the splat tests.
#![allow(dead_code)]

use bozkir_splat::{sh, RawSplat, Splats};

/// A small deterministic generator (64-bit LCG, top bits).
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self) -> f32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 40) as f32) / (1u64 << 24) as f32
    }
    /// Uniform in `[a, b)`.
    pub fn range(&mut self, a: f32, b: f32) -> f32 {
        a + (b - a) * self.next()
    }
}

/// `n` varied splats of SH degree `degree`, raw quaternions not normalised.
pub fn synthetic(n: usize, degree: u8, seed: u64) -> Splats {
    let mut r = Lcg(seed);
    let k = sh::rest_count(degree);
    let mut s = Splats::with_capacity(n, degree);
    for _ in 0..n {
        let rest: Vec<[f32; 3]> =
            (0..k).map(|_| [r.range(-0.9, 0.9), r.range(-0.9, 0.9), r.range(-0.9, 0.9)]).collect();
        s.push_raw(RawSplat {
            position: [r.range(-50.0, 50.0), r.range(-50.0, 50.0), r.range(-5.0, 5.0)],
            log_scale: [r.range(-6.0, -1.0), r.range(-6.0, -1.0), r.range(-6.0, -1.0)],
            rotation: [r.range(-1.5, 1.5), r.range(-1.5, 1.5), r.range(-1.5, 1.5), r.range(-1.5, 1.5)],
            opacity_logit: r.range(-6.0, 6.0),
            sh_dc: [r.range(-1.7, 1.7), r.range(-1.7, 1.7), r.range(-1.7, 1.7)],
            sh_rest: &rest,
        });
    }
    s
}

/// Raw attributes equal bit for bit (NaN-safe).
pub fn assert_raw_bits_equal(a: &Splats, b: &Splats) {
    fn bits<const N: usize>(v: &[[f32; N]]) -> Vec<[u32; N]> {
        v.iter().map(|x| x.map(f32::to_bits)).collect()
    }
    assert_eq!(a.len(), b.len());
    assert_eq!(a.sh_degree(), b.sh_degree());
    assert_eq!(bits(a.positions()), bits(b.positions()));
    assert_eq!(bits(a.log_scales()), bits(b.log_scales()));
    assert_eq!(bits(a.rotations_raw()), bits(b.rotations_raw()));
    assert_eq!(bits(a.sh_dc()), bits(b.sh_dc()));
    let ob: Vec<u32> = a.opacity_logits().iter().map(|v| v.to_bits()).collect();
    let ob2: Vec<u32> = b.opacity_logits().iter().map(|v| v.to_bits()).collect();
    assert_eq!(ob, ob2);
    for (p, q) in a.sh_rest().iter().zip(b.sh_rest()) {
        assert_eq!(bits(p), bits(q));
    }
}

pub fn data(rel: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(format!("{}/../../data/{rel}", env!("CARGO_MANIFEST_DIR")))
}

//! numpy's `default_rng(seed)`: `SeedSequence` → PCG64 → `Generator`. (Being written.)

/// numpy's `Generator` over PCG64.
#[derive(Debug, Clone)]
pub struct Generator;

impl Generator {
    /// `numpy.random.default_rng(seed)` for a non-negative integer seed.
    pub fn default_rng(_seed: i64) -> Self {
        unimplemented!("np_random: being written")
    }
}

impl crate::random::Draws for Generator {
    fn random(&mut self) -> f64 {
        unimplemented!()
    }
    fn uniform(&mut self, _lo: f64, _hi: f64) -> f64 {
        unimplemented!()
    }
    fn integers(&mut self, _n: i64) -> i64 {
        unimplemented!()
    }
    fn normal(&mut self) -> f64 {
        unimplemented!()
    }
    fn choice(&mut self, _n: usize) -> usize {
        unimplemented!()
    }
}

//! pyworldgen 0.1.8's primitives, reproduced so our generators give the peer's worlds:
//! * [`pwg_hash`] — its integer multiply-and-mix hash (`core/hash.py`).
//! * [`np_random`] — numpy's `default_rng(seed)` as a [`Draws`](crate::random::Draws), over
//!   [`bozkir_core::numpy_rng`] (`SeedSequence` → PCG64 → `Generator`).
//! * [`ndimage`] — scipy's `gaussian_filter` (reflect mode, truncate 4).
//! * [`py_random`] — CPython's `random.Random` (MT19937) and pyworldgen's `make_rng`, the
//!   streams of its chunk passes.
//!
//! [`Pyworldgen`] is the [`Randomness`](crate::random::Randomness) built from them.

pub mod ndimage;
pub mod np_random;
pub mod pwg_hash;
pub mod py_random;

/// pyworldgen's randomness: its hash for noise, numpy's PCG64 for draws.
#[derive(Debug, Clone, Copy, Default)]
pub struct Pyworldgen;

impl crate::random::Randomness for Pyworldgen {
    fn noise(&self) -> &dyn crate::random::Noise {
        self
    }
    fn draws(&self, seed: i64) -> Box<dyn crate::random::Draws> {
        Box::new(np_random::Generator::default_rng(seed))
    }
}

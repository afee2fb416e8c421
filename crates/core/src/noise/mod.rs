//! Noise functions on the canonical hash.

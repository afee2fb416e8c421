//! Deterministic core of bozkir.
//!
//! Everything random in bozkir flows from [`hash`]: a 32-bit multiply-and-mix hash with
//! `Math.imul` semantics, so the same seed names the same bits in Rust, WebAssembly,
//! JavaScript and Python. This crate is pure: no IO, no clock, no threads required.

pub mod geo;
pub mod grid;
pub mod hash;
pub mod memory;
pub mod progress;
pub mod round;
pub mod simd;

pub use grid::Grid;
pub use hash::hash_u32;
pub use progress::{NoProgress, Observer, Progress};
pub mod noise;
pub mod numpy_rng;
pub mod rng;
pub mod stats;

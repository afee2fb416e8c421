#![no_main]
//! Fuzz target `npy`: the body is `bodies::npy`, shared with the replay test.

#[path = "../bodies.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| bodies::npy(data));

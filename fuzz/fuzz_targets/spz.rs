#![no_main]
//! Fuzz target `spz`: the body is `bodies::spz`, shared with the replay test.

#[path = "../bodies.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| bodies::spz(data));

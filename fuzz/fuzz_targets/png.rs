#![no_main]
//! Fuzz target `png`: the body is `bodies::png`, shared with the replay test.

#[path = "../bodies.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| bodies::png(data));

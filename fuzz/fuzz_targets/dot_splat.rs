#![no_main]
//! Fuzz target `dot_splat`: the body is `bodies::dot_splat`, shared with the replay test.

#[path = "../bodies.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| bodies::dot_splat(data));

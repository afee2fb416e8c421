#![no_main]
//! Fuzz target `las`: the body is `bodies::las`, shared with the replay test.

#[path = "../bodies.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| bodies::las(data));

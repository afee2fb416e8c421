#![no_main]
//! Fuzz target `tileset_zip`: the body is `bodies::tileset_zip`, shared with the replay test.

#[path = "../bodies.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| bodies::tileset_zip(data));

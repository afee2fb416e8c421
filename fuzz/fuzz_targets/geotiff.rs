#![no_main]
//! Fuzz target `geotiff`: the body is `bodies::geotiff`, shared with the replay test.

#[path = "../bodies.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| bodies::geotiff(data));

#![no_main]
//! Fuzz target `tileset_manifest`: the body is `bodies::tileset_manifest`, shared with the replay test.

#[path = "../bodies.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| bodies::tileset_manifest(data));

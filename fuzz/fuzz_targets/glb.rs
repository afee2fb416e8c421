#![no_main]
//! Fuzz target `glb`: the body is `bodies::glb`, shared with the replay test.

#[path = "../bodies.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| bodies::glb(data));

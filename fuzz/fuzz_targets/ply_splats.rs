#![no_main]
//! Fuzz target `ply_splats`: the body is `bodies::ply_splats`, shared with the replay test.

#[path = "../bodies.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| bodies::ply_splats(data));

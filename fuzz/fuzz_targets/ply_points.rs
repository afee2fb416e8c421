#![no_main]
//! Fuzz target `ply_points`: the body is `bodies::ply_points`, shared with the replay test.

#[path = "../bodies.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| bodies::ply_points(data));

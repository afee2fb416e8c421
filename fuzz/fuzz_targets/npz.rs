#![no_main]
//! Fuzz target `npz`: the body is `bodies::npz`, shared with the replay test.

#[path = "../bodies.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| bodies::npz(data));

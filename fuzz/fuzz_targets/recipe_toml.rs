#![no_main]
//! Fuzz target `recipe_toml`: the body is `bodies::recipe_toml`, shared with the replay test.

#[path = "../bodies.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| bodies::recipe_toml(data));

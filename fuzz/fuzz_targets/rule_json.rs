#![no_main]
//! Fuzz target `rule_json`: the body is `bodies::rule_json`, shared with the replay test.

#[path = "../bodies.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| bodies::rule_json(data));

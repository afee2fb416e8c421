//! Helpers shared by the pipeline's integration tests.

use bozkir_core::{Observer, Progress};
use std::sync::Mutex;

/// Records the notes a workflow gives.
#[derive(Default)]
pub struct Notes(pub Mutex<Vec<String>>);

impl Progress for Notes {}

impl Observer for Notes {
    fn note(&self, text: &str) {
        self.0.lock().unwrap().push(text.to_string());
    }
}

//! Progress bars for long work, as a `bozkir_core::Progress` sink.

use bozkir_core::Progress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::Mutex;

/// Draws one bar per stage on stderr (hidden when stderr is not a terminal or `--quiet`).
pub struct Bar {
    bar: ProgressBar,
    stage: Mutex<String>,
}

impl Bar {
    pub fn new(quiet: bool) -> Self {
        let bar = ProgressBar::new(1);
        if quiet {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        bar.set_style(
            ProgressStyle::with_template("{msg:>14} [{bar:40}] {pos}/{len} {elapsed}").unwrap().progress_chars("=> "),
        );
        Self { bar, stage: Mutex::new(String::new()) }
    }

    /// Show a one-off stage with no count.
    pub fn stage(&self, name: &str) {
        self.report(name, 0, 1);
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Progress for Bar {
    fn report(&self, stage: &str, done: u64, total: u64) {
        let mut s = self.stage.lock().unwrap();
        if *s != stage {
            *s = stage.to_string();
            self.bar.set_message(stage.to_string());
            self.bar.reset();
        }
        self.bar.set_length(total.max(1));
        self.bar.set_position(done);
    }
}

//! Progress bars for long work, as a `bozkir_core::Observer`: the bar shows each step, and the
//! steps' start times give the timing table a command prints.

use bozkir_core::{Observer, Progress};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Draws one bar per stage on stderr (hidden when stderr is not a terminal or `--quiet`).
pub struct Bar {
    bar: ProgressBar,
    stage: Mutex<String>,
    /// The steps started so far, with their start times.
    steps: Mutex<Vec<(String, Instant)>>,
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
        Self { bar, stage: Mutex::new(String::new()), steps: Mutex::new(Vec::new()) }
    }

    /// Show a one-off stage with no count.
    pub fn stage(&self, name: &str) {
        self.report(name, 0, 1);
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }

    /// Every step so far with its wall time: until the next step, the last one until now.
    pub fn timings(&self) -> Vec<(String, Duration)> {
        let now = Instant::now();
        let steps = self.steps.lock().unwrap();
        let ends = steps.iter().skip(1).map(|(_, t)| *t).chain([now]);
        steps.iter().zip(ends).map(|((name, start), end)| (name.clone(), end - *start)).collect()
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

impl Observer for Bar {
    fn step(&self, name: &str) {
        self.steps.lock().unwrap().push((name.to_string(), Instant::now()));
        self.stage(name);
    }

    fn note(&self, text: &str) {
        self.bar.suspend(|| eprintln!("{text}"));
    }
}

//! The one contact algorithm crates have with the outside: a progress and cancellation sink.

/// Receives progress from long computations and may ask them to stop.
///
/// Algorithms call [`Progress::report`] at coarse intervals (never per cell) and check
/// [`Progress::cancelled`] between stages; a cancelled computation returns early with whatever
/// partial state its documentation names. The default methods do nothing.
pub trait Progress: Sync {
    /// `done` of `total` units of the stage `stage` are complete.
    fn report(&self, _stage: &str, _done: u64, _total: u64) {}
    /// True when the caller wants the computation to stop.
    fn cancelled(&self) -> bool {
        false
    }
}

/// A sink that ignores progress and never cancels.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoProgress;

impl Progress for NoProgress {}

/// What a workflow (a library pipeline: make a tileset, analyse a DEM, build the demo scene…)
/// tells the face that called it, beyond progress: the step it starts and notes for the user.
///
/// Faces time the steps (algorithm and pipeline crates never read the clock): a step lasts until
/// the next [`Observer::step`] or the end of the call. The default methods do nothing, so
/// [`NoProgress`] is also a silent observer.
pub trait Observer: Progress {
    /// The workflow starts the step `name` (e.g. `"fill"`, `"patch search"`).
    fn step(&self, _name: &str) {}
    /// A line the user should read: a warning, a fallback taken, a verdict.
    fn note(&self, _text: &str) {}
}

impl Observer for NoProgress {}

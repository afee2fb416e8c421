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

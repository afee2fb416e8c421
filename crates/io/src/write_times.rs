//! Per-file write times, for finding where a command's writing stage spends its time.
//!
//! Off unless the environment variable `BOZKIR_WRITE_TIMES` is set (to anything but `0` or the
//! empty string); then every file written through [`crate::write_atomic`] prints one line to
//! stderr when it is in place:
//!
//! ```text
//! write NAME: prepare X.XX s, encode+write Y.YY s
//! ```
//!
//! *prepare* runs from the start of the job writing the file ([`job`]; or from the end of the
//! job's previous file) until the encoder starts ([`encoding`], called by this crate's writers;
//! else when the file is opened); *encode+write* from there until the file is synced and renamed
//! into place. The times are wall times on the job's thread: a job that waits on a parallel loop
//! may run other jobs meanwhile (rayon's work stealing), which then count in its time too.

use std::cell::RefCell;
use std::sync::OnceLock;
use std::time::Instant;

/// Whether `BOZKIR_WRITE_TIMES` asks for the times (read once).
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("BOZKIR_WRITE_TIMES").is_some_and(|v| !v.is_empty() && v != "0"))
}

struct Frame {
    start: Instant,
    encode: Option<Instant>,
}

thread_local! {
    /// The jobs running on this thread, innermost last (a job waiting on a parallel loop may
    /// run another job on the same thread).
    static FRAMES: RefCell<Vec<Frame>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f`, a job that writes files, timing its files (see the module docs). When the times
/// are off this only calls `f`.
pub fn job<R>(f: impl FnOnce() -> R) -> R {
    if !enabled() {
        return f();
    }
    FRAMES.with(|s| s.borrow_mut().push(Frame { start: Instant::now(), encode: None }));
    // Popped also when `f` panics, so that an outer job's frame stays on top.
    struct Pop;
    impl Drop for Pop {
        fn drop(&mut self) {
            FRAMES.with(|s| s.borrow_mut().pop());
        }
    }
    let _pop = Pop;
    f()
}

/// Marks the start of encoding the current job's next file (its preparation ends here); later
/// calls before the file is written change nothing.
pub fn encoding() {
    if !enabled() {
        return;
    }
    FRAMES.with(|s| {
        if let Some(f) = s.borrow_mut().last_mut() {
            f.encode.get_or_insert_with(Instant::now);
        }
    });
}

/// Prints the line of the file `name`, opened at `opened` and now in place (see the module
/// docs), and starts the current job's next file now. Does nothing when the times are off.
pub(crate) fn file_done(name: &str, opened: Instant) {
    if !enabled() {
        return;
    }
    let end = Instant::now();
    let (start, encode) = FRAMES.with(|s| match s.borrow_mut().last_mut() {
        Some(f) => {
            let r = (f.start, f.encode.unwrap_or(opened).min(opened));
            *f = Frame { start: end, encode: None };
            r
        }
        None => (opened, opened),
    });
    let prep = encode.saturating_duration_since(start).as_secs_f64();
    let enc = end.saturating_duration_since(encode).as_secs_f64();
    eprintln!("write {name}: prepare {:.1} ms, encode+write {:.1} ms", prep * 1e3, enc * 1e3);
}

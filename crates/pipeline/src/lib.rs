//! bozkir's workflows as library functions ("pipelines below, faces on top").
//!
//! Each workflow a user runs is one function here taking a request struct and a
//! [`bozkir_core::Observer`] for progress, steps and notes. The faces — the `bozkir` binary, the
//! WebAssembly bindings, the Python bindings — parse their input, call one pipeline and present
//! its result; none of them holds an algorithm or calls another face's command.
//!
//! Pipelines read and write files only through `bozkir-io` and `bozkir-splat`'s formats, into the
//! folder the face hands them (the CLI hands a staging folder and commits it when the call
//! succeeds). They never read the clock or print: timing and presentation are the face's.

pub mod classify;
pub mod export;
pub mod pop_metric;

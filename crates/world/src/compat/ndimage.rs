//! (to be written: see compat/mod.rs)

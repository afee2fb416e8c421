//! Erosion processes.
pub mod stream_power;

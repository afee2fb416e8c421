//! Terrain algorithms of bozkir: pure functions over `Grid`s.
//!
//! No IO, no clock, no terminal: values in, values (and warnings) out. Long computations take a
//! [`bozkir_core::Progress`] sink.

pub mod erosion;
pub mod hydrology;
pub mod island;
pub mod kernels;
pub mod landform;
pub mod param;
pub mod points;
pub mod profiles;
pub mod sculpt;
pub mod voids;

pub use param::ParamError;

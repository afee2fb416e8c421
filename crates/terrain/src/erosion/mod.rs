//! Erosion processes.
pub mod droplets;
pub mod shallow_water;
pub mod slab;
pub mod stream_power;
pub mod thermal;

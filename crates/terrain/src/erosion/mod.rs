//! Erosion processes.
pub mod stream_power;
pub mod slab;
pub mod droplets;
pub mod shallow_water;
pub mod thermal;

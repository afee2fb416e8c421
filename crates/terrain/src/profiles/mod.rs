//! The 19 named profiles and the original bozkir generator they drive.
//!
//! [`table`] holds the profiles (five groups, the original's parameters); [`generator`] is a
//! port of the original generator (`bozkir/erosion.py`, noise → base surface → FastScape-style
//! stream power → crop) that reproduces its output to 1e-9 in f64 by keeping its operation and
//! tie-break order. The general-purpose, physically scaled erosion lives in
//! [`crate::erosion::stream_power`]; this module is the compatibility path.

pub mod generator;
pub mod table;

pub use generator::{
    base_surface, fill_fixed_step, fixed_step, generate, generate_with, BozkirTerrain, GENERATOR_VERSION,
};
pub use table::{profile, profile_names, ProfileParams, GROUPS, PROFILES};

//! Sculpting operators (seed 001 §3).

//! Least-cost roads after Galin et al. (2010) (pyworldgen `roads`).
pub mod annulus;
pub mod clothoid;

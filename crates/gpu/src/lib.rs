//! wgpu compute kernels mirroring bozkir's CPU erosion and hydrology reference.
//!
//! The CPU implementation in `bozkir-terrain` is the reference; every kernel here takes the same
//! parameter struct and returns the same output type as its CPU counterpart, and is tested
//! against it (`tests/`): exact where the result is integer or fixed point (flow accumulation,
//! D8 receivers, droplets), within a stated tolerance for the float kernels (thermal, the
//! stream-power step). `docs/gpu.md` lists the kernels, their semantics and tolerances.
//!
//! * [`Gpu`]: adapter selection, feature and limit checks, typed errors ([`GpuError`]).
//! * [`flow`]: D8 receivers and drainage accumulation by pointer jumping (O(log n) rounds).
//! * [`stream_power`]: the `n = 1` implicit stream-power step as pointer jumping of affine maps.
//! * [`thermal`]: Jacobi talus relaxation.
//! * [`shallow_water`]: the pipe model (ping-pong passes, f32 water state as on the CPU).
//! * [`droplets`]: batch-synchronous droplets with fixed-point `i32` atomics.
//!
//! The WGSL sources live in `crates/gpu/shaders/*.wgsl`, one kernel family per file, each
//! self-contained (no includes) so a browser can fetch the same files; see `docs/gpu.md`.

pub mod context;
pub mod droplets;
pub mod flow;
pub mod shallow_water;
pub mod stream_power;
pub mod thermal;

pub use context::{Backend, Gpu, GpuError, GpuMode};
pub use wgpu;

/// The WGSL sources, by file name, as compiled into this crate (the viewer loads the same files).
pub const SHADERS: [(&str, &str); 5] = [
    ("flow.wgsl", include_str!("../shaders/flow.wgsl")),
    ("stream_power.wgsl", include_str!("../shaders/stream_power.wgsl")),
    ("thermal.wgsl", include_str!("../shaders/thermal.wgsl")),
    ("droplets.wgsl", include_str!("../shaders/droplets.wgsl")),
    ("shallow_water.wgsl", include_str!("../shaders/shallow_water.wgsl")),
];

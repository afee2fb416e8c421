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
//! * [`fill`]: ε depression filling by tiled relaxation, bit-identical to the CPU's fill.
//! * [`stream_power`]: the `n = 1` implicit stream-power step as pointer jumping of affine maps.
//! * [`thermal`]: Jacobi talus relaxation.
//! * [`shallow_water`]: the pipe model (ping-pong passes, f32 water state as on the CPU).
//! * [`droplets`]: batch-synchronous droplets with fixed-point `i32` atomics.
//! * [`sky_view`]: the sky-view factor of the analysis, bit-identical to the CPU's.
//! * [`landform`]: slope and TPI of the analysis (the parts of its landform classes),
//!   bit-identical to the CPU's.
//! * [`browser`]: the kernels' `f32` variants for WebGPU (generated from the same WGSL), their
//!   CPU references and native runs.
//! * [`hash`]: the canonical 2-D and 3-D hash in WGSL (`hash.wgsl`, appended by the kernels that
//!   draw randomness) and a batch kernel that checks it against the CPU.
//! * [`GpuKernels`]: all of them behind `bozkir_terrain::kernels::Kernels`, with the
//!   `off`/`auto`/`require` choice of `--gpu` (the recipe runner, `erode` and `analyze` use it).
//!
//! The WGSL sources live in `crates/gpu/shaders/*.wgsl`, one kernel family per file; shared
//! pieces are appended where needed: `hash.wgsl` (the canonical hash: droplets, the hash check),
//! `exact.wgsl` (correctly rounded division and square root, `next_up`: droplets, thermal,
//! stream power, fill, shallow water, sky view), `rounds.wgsl` (the jumping rounds' early exit: flow,
//! fill, stream power), `tile_skip.wgsl` (which tiles a tile pass runs: fill, stream power) and
//! `roots.wgsl` (the tiles and the list of their roots of the two-level jumping: flow, stream
//! power).
//! [`SHADERS`] holds the composed modules a browser would compile; see `docs/gpu.md`.

pub mod browser;
pub mod context;
pub mod droplets;
pub mod fill;
pub mod flow;
pub mod hash;
pub mod kernels;
pub mod landform;
mod profile;
pub mod shallow_water;
pub mod sky_view;
pub mod split;
pub mod stream_power;
pub mod thermal;

pub use context::{entry_points, Backend, DispatchTime, Gpu, GpuError, GpuMode, Kernel};
pub use kernels::{GpuKernels, KernelFailed, Notes, RequireError};
pub use profile::by_kernel;
pub use wgpu;

/// The WGSL modules, by kernel file name, as compiled by this crate (the shared pieces appended
/// where needed; the viewer composes the same files the same way).
pub const SHADERS: [(&str, &str); 9] = [
    (flow::NAME, flow::SRC),
    (fill::NAME, fill::SRC),
    (stream_power::NAME, stream_power::SRC),
    (thermal::NAME, thermal::SRC),
    (droplets::NAME, droplets::SRC),
    (shallow_water::NAME, shallow_water::SRC),
    (sky_view::NAME, sky_view::SRC),
    (landform::NAME, landform::SRC),
    (flow::OUTLETS_NAME, flow::OUTLETS_SRC),
];

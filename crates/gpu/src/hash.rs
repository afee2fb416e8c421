//! The canonical hash on the device (`shaders/hash.wgsl`), and a batch kernel that checks it.
//!
//! `hash.wgsl` holds `hash(x, y, s)` and `hash3(x, y, z, s)`, the WGSL twins of
//! [`bozkir_core::hash::hash_u32`] and [`bozkir_core::hash::hash3_u32`]: `u32` products wrap in
//! WGSL as `wrapping_mul` does, so the bits are the CPU's. Kernels that draw randomness append
//! the file (droplets). [`hash3_batch`] runs `hash3` over a list of points; `tests/hash.rs`
//! compares it with the CPU on the pinned vectors and on random points.

use crate::context::{dispatch, Gpu, GpuError};

pub(crate) const SRC: &str = concat!(include_str!("../shaders/hash_batch.wgsl"), include_str!("../shaders/hash.wgsl"));
pub(crate) const NAME: &str = "hash_batch.wgsl";

/// `hash3(x, y, z, s)` of every point `[x, y, z, s]`, computed on the device.
pub fn hash3_batch(gpu: &Gpu, points: &[[u32; 4]]) -> Result<Vec<u32>, GpuError> {
    if points.is_empty() {
        return Ok(Vec::new());
    }
    let pts = gpu.buffer("hash points", points);
    let out = gpu.zeroed("hash out", 4 * points.len() as u64);
    let p = gpu.pipeline(NAME, SRC, "hash3_batch")?;
    let bind = gpu.bind(&p, &[(0, &pts), (1, &out)]);
    let mut enc = gpu.encoder();
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        dispatch(&mut pass, &p, &bind, points.len() as u64);
    }
    gpu.take_errors()?;
    gpu.submit_read(enc, &out, points.len())
}

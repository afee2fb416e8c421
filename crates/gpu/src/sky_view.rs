//! The sky-view factor on the GPU (`shaders/sky_view.wgsl`).
//!
//! One invocation per cell walks the rays of
//! [`bozkir_terrain::landform::openness::ray_samples`] with the CPU's `f64` operations one for
//! one (products rounded on their own, division and square root corrected to the correctly
//! rounded result by `exact.wgsl`), so the result equals
//! [`bozkir_terrain::landform::sky_view`] bit for bit (`tests/sky_view.rs`), voids (`NaN`)
//! included. Grids past the device's binding limit bind in two halves (`split`).

use bozkir_core::Grid;
use bozkir_terrain::landform::openness::{ray_samples, OpennessParams};

use crate::context::{dispatch, Gpu, GpuError, GridUniform};

pub(crate) const SRC: &str = concat!(include_str!("../shaders/sky_view.wgsl"), include_str!("../shaders/exact.wgsl"));
pub(crate) const NAME: &str = "sky_view.wgsl";

/// [`bozkir_terrain::landform::sky_view`] on the GPU, bit for bit.
pub fn sky_view(gpu: &Gpu, z: &Grid<f64>, p: &OpennessParams) -> Result<Grid<f64>, GpuError> {
    let (w, h) = (z.width(), z.height());
    let n = w * h;
    if n == 0 {
        return Ok(z.same_shape(f64::NAN));
    }
    // Two f64 grids: the heights and the result.
    gpu.check_grid_split(w, h, 8)?;
    let rays = ray_samples(z.dx, z.dy, p);
    let count = rays.first().map_or(0, Vec::len);
    let mut tab = Vec::with_capacity(3 * rays.len() * count + 3);
    let mut off = Vec::with_capacity(2 * rays.len() * count + 2);
    for s in rays.iter().flatten() {
        tab.extend_from_slice(&[s.fx, s.fy, s.inv_d]);
        // Offsets beyond ±2³¹ leave any grid a device can hold: the sample breaks there anyway.
        let clamp = |o: i64| o.clamp(i32::MIN as i64 / 2, i32::MAX as i64 / 2) as i32;
        off.extend_from_slice(&[clamp(s.ox), clamp(s.oy)]);
    }
    // A buffer is never empty (rays without samples still bind).
    if tab.is_empty() {
        tab.extend_from_slice(&[0.0; 3]);
        off.extend_from_slice(&[0; 2]);
    }
    let dims = gpu.uniform(
        "sky view dims",
        &GridUniform {
            w: w as u32,
            h: h as u32,
            n: rays.len() as u32,
            k: count as u32,
            x: rays.len() as f64,
            zero: 0.0,
        },
    );
    let zb = gpu.buffer("z", z.data());
    let tb = gpu.buffer("sky view samples", &tab);
    let ob = gpu.buffer("sky view offsets", &off);
    let out = gpu.zeroed("sky view", 8 * n as u64);
    let pipe = gpu.pipeline(NAME, SRC, "sky_view")?;
    let bind = gpu.bind(&pipe, &[(0, &dims), (1, &zb), (2, &tb), (3, &ob), (4, &out)]);
    let mut enc = gpu.encoder();
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        dispatch(&mut pass, &pipe, &bind, n as u64);
    }
    gpu.submit_wait(enc)?;
    let sky = gpu.read::<f64>(&out, n)?;
    Ok(Grid::from_vec(w, h, sky).with_cell_size(z.dx, z.dy))
}

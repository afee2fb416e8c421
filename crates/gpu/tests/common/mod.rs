//! Shared helpers of the GPU-vs-CPU tests.
#![allow(dead_code)]

use bozkir_core::Grid;
use bozkir_gpu::Gpu;
use std::sync::OnceLock;

/// The test GPU, or `None` (with a message) when there is none. Under `CI=true` a missing
/// adapter fails the test instead: CI installs lavapipe, so no adapter there is a broken setup.
pub fn gpu() -> Option<&'static Gpu> {
    static G: OnceLock<Result<Gpu, String>> = OnceLock::new();
    match G.get_or_init(|| Gpu::new().map_err(|e| e.to_string())) {
        Ok(g) => Some(g),
        Err(e) => {
            if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") {
                panic!("CI=true and no usable GPU adapter: {e} (apt-get install mesa-vulkan-drivers)");
            }
            eprintln!("skipping GPU test: {e}");
            None
        }
    }
}

/// Smooth value-noise hills, `relief` metres, with cells of `dx × dy` metres.
pub fn hills(w: usize, h: usize, relief: f64, dx: f64, dy: f64) -> Grid<f64> {
    let n = w.max(h);
    let (v, _) = bozkir_core::noise::value_noise_sum(n, 4, 16.0, relief);
    Grid::from_fn(w, h, |x, y| v[y * n + x]).with_cell_size(dx, dy)
}

/// A GPU's stream power behind the terrain crate's `Kernels` (every other kernel declines): what
/// `terrain --profile … --gpu` offers the profile generator.
pub struct StreamPowerOn<'a>(pub &'a Gpu);

impl bozkir_terrain::kernels::Kernels for StreamPowerOn<'_> {
    fn stream_power(
        &self,
        h: &Grid<f64>,
        p: &bozkir_terrain::erosion::stream_power::StreamPowerParams,
        _: &dyn bozkir_core::Progress,
    ) -> Result<Option<bozkir_terrain::erosion::stream_power::StreamPowerOutput>, bozkir_terrain::kernels::KernelError>
    {
        bozkir_gpu::stream_power::stream_power(self.0, h, p)
            .map(Some)
            .map_err(|e| bozkir_terrain::kernels::KernelError::new(bozkir_terrain::kernels::KernelKind::StreamPower, e))
    }
}

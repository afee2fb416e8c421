//! Shared inputs of the benchmarks in `benches/` (which are not tests).

/// Octave sum of a value-noise fBm from the canonical hash (`bozkir_core::noise::value`):
/// the raw sum (row-major `n × n`) and the total amplitude. `scripts/bench_fastscapelib.py`
/// repeats these operations in the same order, so both sides of the stream-power comparison
/// read the same DEM.
pub fn value_noise_sum(n: usize, octaves: u32, base_period: f64) -> (Vec<f64>, f64) {
    bozkir_core::noise::value_noise_sum(n, octaves, base_period, 1.0)
}

/// The 6-octave benchmark DEM: 0..`relief_m` metres at `dx` metres per cell.
pub fn bench_dem(n: usize, relief_m: f64, dx: f64) -> bozkir_core::Grid<f64> {
    let (v, tot) = value_noise_sum(n, 6, 128.0);
    bozkir_core::Grid::from_vec(n, n, v.into_iter().map(|x| relief_m * x / tot).collect()).with_cell_size(dx, dx)
}

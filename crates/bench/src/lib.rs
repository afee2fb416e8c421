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

/// The landform and sky-view benches' DEM: value noise, smoothstep-interpolated hashed lattice
/// values, 5 octaves from 128 cells down (about 0–900 m), 1 m cells.
pub fn landform_dem(n: usize) -> bozkir_core::Grid<f64> {
    bozkir_core::Grid::from_fn(n, n, |x, y| {
        let (mut v, mut amp, mut period) = (0.0, 450.0, 128usize);
        for o in 0..5u32 {
            let (gx, gy) = (x / period, y / period);
            let f = |t: usize| {
                let u = (t % period) as f64 / period as f64;
                u * u * (3.0 - 2.0 * u)
            };
            let (fx, fy) = (f(x), f(y));
            let l = |i: usize, j: usize| bozkir_core::hash::hash_unit(i as u32, j as u32, 77 + o);
            let a = l(gx, gy) + fx * (l(gx + 1, gy) - l(gx, gy));
            let b = l(gx, gy + 1) + fx * (l(gx + 1, gy + 1) - l(gx, gy + 1));
            v += amp * (a + fy * (b - a));
            amp *= 0.5;
            period /= 2;
        }
        v
    })
    .with_cell_size(1.0, 1.0)
}

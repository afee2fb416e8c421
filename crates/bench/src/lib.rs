//! Shared inputs of the benchmarks in `benches/` (which are not tests).

use bozkir_core::hash::hash_unit;

/// Octave sum of a value-noise fBm from the canonical hash: octave `o` has period
/// `base_period / 2^o` cells and amplitude `2^-o`; smoothstep interpolation. Returns the raw sum
/// (row-major `n × n`) and the total amplitude. `scripts/bench_fastscapelib.py` repeats these
/// operations in the same order, so both sides of the stream-power comparison read the same DEM.
pub fn value_noise_sum(n: usize, octaves: u32, base_period: f64) -> (Vec<f64>, f64) {
    let mut v = vec![0.0f64; n * n];
    let (mut amp, mut tot) = (1.0f64, 0.0f64);
    for o in 0..octaves {
        let period = base_period / (1u32 << o) as f64;
        for y in 0..n {
            for x in 0..n {
                let (fx, fy) = (x as f64 / period, y as f64 / period);
                let (ix, iy) = (fx.floor(), fy.floor());
                let (tx, ty) = (fx - ix, fy - iy);
                let (sx, sy) = (tx * tx * (3.0 - 2.0 * tx), ty * ty * (3.0 - 2.0 * ty));
                let (ix, iy) = (ix as u32, iy as u32);
                let (a, b) = (hash_unit(ix, iy, o), hash_unit(ix + 1, iy, o));
                let (c, d) = (hash_unit(ix, iy + 1, o), hash_unit(ix + 1, iy + 1, o));
                let top = a + (b - a) * sx;
                let bot = c + (d - c) * sx;
                v[y * n + x] += amp * (top + (bot - top) * sy);
            }
        }
        tot += amp;
        amp *= 0.5;
    }
    (v, tot)
}

/// The 6-octave benchmark DEM: 0..`relief_m` metres at `dx` metres per cell.
pub fn bench_dem(n: usize, relief_m: f64, dx: f64) -> bozkir_core::Grid<f64> {
    let (v, tot) = value_noise_sum(n, 6, 128.0);
    bozkir_core::Grid::from_vec(n, n, v.into_iter().map(|x| relief_m * x / tot).collect()).with_cell_size(dx, dx)
}

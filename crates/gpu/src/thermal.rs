//! Thermal erosion by talus relaxation on the GPU (`shaders/thermal.wgsl`).
//!
//! The Jacobi formulation of [`bozkir_terrain::erosion::thermal`] (two pure per-cell passes per
//! iteration) with the CPU's `f64` operations one for one: the result is bit-identical to
//! [`bozkir_terrain::erosion::thermal::thermal`] (`tests/thermal.rs`). Iterations after the
//! first with no active cell change nothing, as on the CPU, which stops there.

use bozkir_core::Grid;
use bozkir_terrain::erosion::thermal::ThermalParams;

use crate::context::{dispatch, Gpu, GpuError, GridUniform};

pub(crate) const SRC: &str = concat!(include_str!("../shaders/thermal.wgsl"), include_str!("../shaders/exact.wgsl"));
pub(crate) const NAME: &str = "thermal.wgsl";
/// Iterations recorded between two checks for a pass without active cells.
const PER_CHECK: usize = 16;

/// [`bozkir_terrain::erosion::thermal::thermal`] on the GPU; returns the relaxed heights and the
/// iterations run (as `thermal_in_place` counts them).
///
/// # Panics
/// On invalid parameters, as the CPU function.
pub fn thermal(gpu: &Gpu, terrain: &Grid<f64>, params: &ThermalParams) -> Result<(Grid<f64>, usize), GpuError> {
    assert!((0.0..90.0).contains(&params.talus_deg), "thermal: talus_deg must be in [0, 90)");
    assert!(
        params.margin_deg >= 0.0 && params.talus_deg + params.margin_deg < 90.0,
        "thermal: margin_deg must be >= 0 with talus + margin < 90"
    );
    assert!(params.rate > 0.0 && params.rate <= 1.0, "thermal: rate must be in (0, 1]");
    let (w, h) = (terrain.width(), terrain.height());
    let n = w * h;
    if n == 0 || params.iterations == 0 {
        return Ok((terrain.clone(), 0));
    }
    gpu.check_grid(w, h, 8)?;
    let (dx, dy) = (terrain.dx, terrain.dy);
    let tab = crate::browser::thermal_table(params.talus_deg, params.margin_deg, dx, dy);
    let iters = params.iterations;
    let dims: Vec<wgpu::Buffer> = (0..iters.min(PER_CHECK))
        .map(|it| {
            gpu.uniform(
                "thermal dims",
                &GridUniform { w: w as u32, h: h as u32, n: n as u32, k: it as u32, x: 0.5 * params.rate, zero: 0.0 },
            )
        })
        .collect();
    let tabb = gpu.buffer("talus", &tab);
    let za = gpu.buffer("z", terrain.data());
    let zb = gpu.zeroed("z2", 8 * n as u64);
    let wgt = gpu.zeroed("w", 8 * n as u64);
    let active = gpu.zeroed("active", 4 * PER_CHECK as u64);
    let pw = gpu.pipeline(NAME, SRC, "weights")?;
    let pr = gpu.pipeline(NAME, SRC, "relax")?;
    let mut bgs = Vec::new();
    for (k, d) in dims.iter().enumerate() {
        let (src, dst) = if k % 2 == 0 { (&za, &zb) } else { (&zb, &za) };
        let bw = gpu.bind(&pw, &[(0, d), (1, src), (2, &wgt), (3, &tabb), (4, &active)]);
        let br = gpu.bind(&pr, &[(0, d), (1, src), (3, &tabb), (5, &wgt), (6, dst)]);
        bgs.push((bw, br));
    }
    let mut done = 0;
    let mut run = iters;
    let mut last = 0;
    while done < iters {
        let k = PER_CHECK.min(iters - done);
        last = k;
        let mut enc = gpu.encoder();
        enc.clear_buffer(&active, 0, None);
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            for (bw, br) in &bgs[..k] {
                dispatch(&mut pass, &pw, bw, n as u64);
                dispatch(&mut pass, &pr, br, n as u64);
            }
        }
        // PER_CHECK is even, so after a full chunk the heights are back in `za`.
        let flags: Vec<u32> = gpu.submit_read(enc, &active, PER_CHECK)?;
        if let Some(idle) = flags[..k].iter().position(|&f| f == 0) {
            run = done + idle;
            break;
        }
        done += k;
    }
    // Each chunk starts from `za`; a chunk of odd length ends in `zb` (only the last can be).
    let out = if last % 2 == 1 { &zb } else { &za };
    let height = gpu.read::<f64>(out, n)?;
    Ok((Grid::from_vec(w, h, height).with_cell_size(dx, dy), run))
}

//! Slope and TPI on the GPU (`shaders/landform.wgsl`): the window maps of the analysis and the
//! parts of its Weiss landform classes.
//!
//! One invocation per cell for the slope (the Horn gradient and `libm::hypot`'s algorithm) and
//! for each TPI query; the TPI's summed-area table is built once for all the windows asked for,
//! one invocation per row and then one per column, with the CPU's additions in the CPU's order.
//! Every `f64` operation is the CPU's one for one, so both maps equal
//! [`bozkir_terrain::landform::slope`] and [`bozkir_terrain::landform::tpi`] bit for bit, voids
//! included (`tests/landform.rs`). Grids past the device's binding limit bind in two halves.

use bozkir_core::Grid;
use bozkir_terrain::kernels::LandformMaps;
use bozkir_terrain::landform::tpi::resolve_window;
use bozkir_terrain::landform::{tpi_offset, TpiParams};

use crate::context::{dispatch, Gpu, GpuError};

pub(crate) const SRC: &str = concat!(include_str!("../shaders/landform.wgsl"), include_str!("../shaders/exact.wgsl"));
pub(crate) const NAME: &str = "landform.wgsl";

/// The shader's `D`.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Dims {
    w: u32,
    h: u32,
    rx: u32,
    ry: u32,
    ix: u32,
    iy: u32,
    voids: u32,
    pad: u32,
    dx: f64,
    dy: f64,
    offset: f64,
    zero: f64,
    /// Twelve 1s (the shader's opaque multipliers of `add`).
    k: [f64; 12],
}

/// [`bozkir_terrain::landform::slope`] of `z` (when `slope`) and
/// [`bozkir_terrain::landform::tpi`] for each of `tpi`, on the GPU, bit for bit.
pub fn landform_maps(gpu: &Gpu, z: &Grid<f64>, slope: bool, tpi: &[TpiParams]) -> Result<LandformMaps, GpuError> {
    let (w, h) = (z.width(), z.height());
    let n = w * h;
    if n == 0 {
        return Ok(LandformMaps {
            slope: slope.then(|| z.same_shape(0.0)),
            tpi: tpi.iter().map(|_| z.same_shape(0.0)).collect(),
        });
    }
    // The largest buffers: the table's two f64 parts, (w + 1) × (h + 1).
    gpu.check_grid_split(w + 1, h + 1, 8)?;
    let has_voids = z.data().iter().any(|v| v.is_nan());
    let dims = |rx: usize, ry: usize, ix: usize, iy: usize, offset: f64| Dims {
        w: w as u32,
        h: h as u32,
        // Windows wider than the grid clamp to it (the same cells; no u32 overflow).
        rx: rx.min(w) as u32,
        ry: ry.min(h) as u32,
        ix: ix.min(w + 1) as u32,
        iy: iy.min(h + 1) as u32,
        voids: u32::from(has_voids),
        pad: 0,
        dx: z.dx,
        dy: z.dy,
        offset,
        zero: 0.0,
        k: [1.0; 12],
    };
    let zb = gpu.buffer("z", z.data());
    let out = gpu.zeroed("landform map", 8 * n as u64);
    let grid = |v: Vec<f64>| Grid::from_vec(w, h, v).with_cell_size(z.dx, z.dy);
    let slope_map = if slope {
        let d = gpu.uniform("landform dims", &dims(0, 0, 0, 0, 0.0));
        let p = gpu.pipeline(NAME, SRC, "slope")?;
        let b = gpu.bind(&p, &[(0, &d), (1, &zb), (5, &out)]);
        let mut enc = gpu.encoder();
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            dispatch(&mut pass, &p, &b, n as u64);
        }
        Some(grid(gpu.submit_read(enc, &out, n)?))
    } else {
        None
    };
    let mut tpis = Vec::with_capacity(tpi.len());
    if !tpi.is_empty() {
        // The offset is the grid's valid mean whatever the window: one table serves them all.
        let offset = tpi_offset(z);
        let cells = 8 * ((w + 1) * (h + 1)) as u64;
        let hi = gpu.zeroed("sat hi", cells);
        let lo = gpu.zeroed("sat lo", cells);
        let nv = gpu.zeroed("sat voids", if has_voids { cells / 2 } else { 16 });
        let d = gpu.uniform("landform dims", &dims(0, 0, 0, 0, offset));
        let rows = gpu.pipeline(NAME, SRC, "sat_rows")?;
        let cols = gpu.pipeline(NAME, SRC, "sat_cols")?;
        let br = gpu.bind(&rows, &[(0, &d), (1, &zb), (2, &hi), (3, &lo), (4, &nv)]);
        let bc = gpu.bind(&cols, &[(0, &d), (2, &hi), (3, &lo), (4, &nv)]);
        let mut enc = gpu.encoder();
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            dispatch(&mut pass, &rows, &br, h as u64);
            dispatch(&mut pass, &cols, &bc, w as u64);
        }
        gpu.submit_wait(enc)?;
        let query = gpu.pipeline(NAME, SRC, "tpi")?;
        for p in tpi {
            let r = resolve_window(p.window, z.dx, z.dy);
            let d = gpu.uniform("landform dims", &dims(r.rx, r.ry, r.ix, r.iy, offset));
            let b = gpu.bind(&query, &[(0, &d), (1, &zb), (2, &hi), (3, &lo), (4, &nv), (5, &out)]);
            let mut enc = gpu.encoder();
            {
                let mut pass = enc.begin_compute_pass(&Default::default());
                dispatch(&mut pass, &query, &b, n as u64);
            }
            tpis.push(grid(gpu.submit_read(enc, &out, n)?));
        }
    }
    Ok(LandformMaps { slope: slope_map, tpi: tpis })
}

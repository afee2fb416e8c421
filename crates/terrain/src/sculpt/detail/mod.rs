//! Detail operators (seed 001 §3, §6): the sharp, gated, last-run passes that make ground read as
//! weathered rock, washed floors and carved canyons.
//!
//! Order matters (§6.4): smoothing (slab filter, blur, thermal, [`polish`](mod@polish)) runs
//! first, sharp additive detail ([`rills`](mod@rills), [`crags`](mod@crags),
//! [`plates`](mod@plates)) last, gated to steep faces, and [`sediment_floor`](mod@sediment_floor)
//! is re-imposed after every erosion pass (§6.7). Every source of detail is a monotone function of
//! slope (§6.3: "the steepness ramp"), through [`slope_gate`].
//!
//! | file | operator | seed |
//! |---|---|---|
//! | [`rills`](mod@rills) | anisotropic downslope rills | §6.2 |
//! | [`crags`](mod@crags) | ridged + Voronoi `F2 − F1` crags, slope-gated | §3.5, §6.4 |
//! | [`plates`](mod@plates) | Voronoi plates and cracks, slope-gated | §3.5 |
//! | [`polish`](mod@polish) | flatness-weighted, noise-varied blur | §6.3, §4.6 |
//! | [`upsample`](mod@upsample) | bilinear / bicubic upsampling plus detail noise | §6.1 |
//! | [`sediment_floor`](mod@sediment_floor) | flat sediment floors under a mask | §6.7 |
//! | [`canyon`](mod@canyon) | separator and drainage canyon stamps | §6.6 |
//! | [`fold`](mod@fold) | lateral fold for pseudo-overhangs (mesh displacement) | §6.5 |
//!
//! Conventions as in [`crate::sculpt`]: grids by reference, a new grid out, noise sampled at
//! `(x·dx, y·dy)` metres, slopes rise over run from Horn's gradient
//! ([`crate::landform::slope()`]), angles in degrees. Per-cell work runs in parallel over rows
//! and is a pure function of the inputs: identical for any thread count.

pub mod canyon;
pub mod crags;
pub mod fold;
pub mod plates;
pub mod polish;
pub mod rills;
pub mod sediment_floor;
pub mod upsample;

pub use canyon::{drainage_canyon, separator_canyon, DrainageCanyonParams, SeparatorCanyonParams};
pub use crags::{crags, CragParams};
pub use fold::{lateral_fold, Fold, FoldParams};
pub use plates::{plates, PlatesParams};
pub use polish::{polish, PolishParams};
pub use rills::{rills, RillParams};
pub use sediment_floor::{floor_regions, sediment_floor, suppress_in_mask, FloorLevel, SedimentFloorParams};
pub use upsample::{upsample, upsample_window, UpsampleKernel, UpsampleParams};

use super::blur::{gaussian_blur, BlurParams};
use super::mask::smoothstep;
use crate::landform::slope::{gradient, slope};
use bozkir_core::Grid;
use rayon::prelude::*;

/// Slope gate in `[0, 1]`: `smoothstep(tan lo, tan hi, slope)` for `lo_deg ≤ hi_deg` (steep
/// faces); with `lo_deg > hi_deg` the ramp is reversed, `1 − smoothstep(tan hi, tan lo, slope)`
/// (flat ground, as the seed's polish weight `smooth(27°→7°)`).
pub fn slope_gate(z: &Grid<f64>, lo_deg: f64, hi_deg: f64) -> Grid<f64> {
    let s = slope(z);
    let (a, b) = (libm::tan(lo_deg.to_radians()), libm::tan(hi_deg.to_radians()));
    let mut out = s;
    out.data_mut().par_iter_mut().for_each(|v| {
        *v = if a <= b { smoothstep(a, b, *v) } else { 1.0 - smoothstep(b, a, *v) };
    });
    out
}

/// Unit horizontal downhill direction per cell as `(east, north)` components, from the Horn
/// gradient of `z` blurred by `blur_m` metres (0: none); `(0, 0)` where the ground is flat.
pub fn downhill(z: &Grid<f64>, blur_m: f64) -> (Grid<f64>, Grid<f64>) {
    let zb = if blur_m > 0.0 { gaussian_blur(z, &BlurParams { sigma: blur_m }) } else { z.clone() };
    let g = gradient(&zb);
    let mut e = g.east;
    let mut n = g.north;
    e.data_mut().par_iter_mut().zip(n.data_mut().par_iter_mut()).for_each(|(a, b)| {
        let m = libm::hypot(*a, *b);
        if m > 0.0 && m.is_finite() {
            *a = -*a / m;
            *b = -*b / m;
        } else {
            *a = 0.0;
            *b = 0.0;
        }
    });
    (e, n)
}

/// `z + gate·f(x_m, y_m)` where the slope gate (`lo_deg → hi_deg`, see [`slope_gate`]) is open;
/// cells with a closed gate keep their exact value. `f` gets the cell's position in metres.
pub(crate) fn add_gated(
    z: &Grid<f64>,
    lo_deg: f64,
    hi_deg: f64,
    origin: [usize; 2],
    f: impl Fn(f64, f64) -> f64 + Sync,
) -> Grid<f64> {
    let gate = slope_gate(z, lo_deg, hi_deg);
    let (dx, dy, w) = (z.dx, z.dy, z.width());
    let [ox, oy] = origin;
    map_cells(z, |x, y, v| {
        let g = gate.data()[y * w + x];
        if g <= 0.0 {
            return v;
        }
        v + g * f((ox + x) as f64 * dx, (oy + y) as f64 * dy)
    })
}

/// `out(x, y) = f(x, y, z(x, y))`, in parallel over rows.
pub(crate) fn map_cells(z: &Grid<f64>, f: impl Fn(usize, usize, f64) -> f64 + Sync) -> Grid<f64> {
    let w = z.width();
    let mut out = z.clone();
    if w == 0 {
        return out;
    }
    out.data_mut().par_chunks_mut(w).enumerate().for_each(|(y, row)| {
        for (x, v) in row.iter_mut().enumerate() {
            *v = f(x, y, *v);
        }
    });
    out
}

#[cfg(test)]
pub(crate) mod test_util {
    use bozkir_core::Grid;

    /// West half nearly flat, east half a steep ramp (slope 1.5 rising eastwards), same bumps.
    pub fn flat_and_steep(w: usize, h: usize) -> Grid<f64> {
        let b = crate::sculpt::test_support::bumpy(w, h);
        Grid::from_fn(w, h, |x, y| {
            let ramp = if x >= w / 2 { 1.5 * (x - w / 2) as f64 } else { 0.0 };
            ramp + 0.3 * b.get(x, y) + 0.02 * y as f64
        })
    }

    /// How many cells the slope `gate` opens that `out` changed from `z`; asserts that no cell
    /// it closes (gate 0) changed.
    pub fn changed_where_gated(z: &Grid<f64>, out: &Grid<f64>, gate: &Grid<f64>) -> usize {
        let mut changed = 0;
        for i in 0..z.len() {
            if gate.data()[i] == 0.0 {
                assert_eq!(z.data()[i], out.data()[i], "cell {i} changed where the gate is closed");
            } else if z.data()[i] != out.data()[i] {
                changed += 1;
            }
        }
        changed
    }
}

//! Sculpting operators (seed 001 §3): the cheap, pure operations that shape ground before any
//! erosion runs.
//!
//! Every operator takes grids by reference and returns a new grid with the input's shape and
//! cell size; none fails. Coordinates handed to noise are metres, `(x·dx, y·dy)` for cell
//! `(x, y)`. Masks are `Grid<f64>` with values in `[0, 1]`. Work is split over rows with rayon,
//! and every cell is computed from its inputs alone (or by a fixed-order sum), so the output is
//! bit-identical for any thread count.
//!
//! | file | operator |
//! |---|---|
//! | [`sample`] | a noise function sampled over a grid, in parallel |
//! | [`normalise`] | unit-normalise to `[0, 1]` |
//! | [`redistribute`] | `pow` shaping of the height distribution (seed 001 §3.3) |
//! | [`mask`] | height and slope bands, smoothstep ramps, combine, invert (§3.6) |
//! | [`blur`] | separable Gaussian blur (masks, wash) |
//! | [`terrace`](mod@terrace) | terracing with optional noise-varied levels (§3.7) |
//! | [`warp`] | domain warp of an existing grid, bilinear resampling (§3.4) |
//! | [`dome`](mod@dome) | radial dome and edge taper base shapes |
//! | [`tilt`](mod@tilt) | linear ramp in a direction |
//! | [`crop`] | simulation margins and cropping them away |

pub mod blur;
pub mod crop;
pub mod detail;
pub mod dome;
pub mod mask;
pub mod masks;
pub mod normalise;
pub mod redistribute;
pub mod reverse;
pub mod sample;
pub mod terrace;
pub mod tilt;
pub mod warp;

pub use blur::{gaussian_blur, BlurParams};
pub use crop::{crop_margin, margin_cells, padded_size, CROP_MARGIN};
pub use dome::{dome, edge_taper, radial_dome, DomeParams, DomeShape};
pub use mask::{combine, height_band, invert, slope_band, smoothstep, BandParams, Combine};
pub use normalise::unit_normalise;
pub use redistribute::{pow_shape, PowShapeParams};
pub use sample::{sample_grid, sample_window};
pub use terrace::{terrace, terrace_value, TerraceParams};
pub use tilt::{tilt, TiltParams};
pub use warp::{sample_bilinear, warp_grid, GridWarpParams};

#[cfg(test)]
pub(crate) mod test_support {
    use bozkir_core::Grid;

    /// Run `f` on a rayon pool of `threads` threads.
    pub fn with_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(f)
    }

    /// The grid's values as little-endian bytes, for bit-exact comparisons.
    pub fn bytes(g: &Grid<f64>) -> Vec<u8> {
        g.data().iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    /// A smooth, non-trivial test surface.
    pub fn bumpy(w: usize, h: usize) -> Grid<f64> {
        let p = bozkir_core::noise::FbmParams { frequency: 1.0 / 24.0, seed: 9, ..Default::default() };
        Grid::from_fn(w, h, |x, y| bozkir_core::noise::fbm(&p, x as f64, y as f64))
    }
}

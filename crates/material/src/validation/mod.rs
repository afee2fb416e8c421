//! The validation protocol of the rule against real ground (inventory §3.6), on values: the
//! workflow that reads the rasters or the point cloud is `bozkir_pipeline::validation`.
//!
//! * [`Window`] — the square (in the input's CRS and metres) where everything is measured.
//! * [`Site`] — the window and what the inputs give ([`Ground`]): a DTM over the window and
//!   either an orthophoto (and optionally a DSM) or classified points.
//! * Truths ([`Site::truths`]) — per cell of an `n × n` grid, the vegetation fraction:
//!   **colour** (samples nearer the vegetation colour than the bare one), **height** (DSM
//!   pixels, or the highest point of each `4 × 4` sub-cell without buildings, standing more than
//!   `veg_height` above the DTM), **class** (points classed vegetation, 3–5). Votes of samples
//!   ([`Votes`]) make a [`Truth`].
//! * The protocol ([`score`]) — for each grid `n`, heights sampled bilinearly at the centres of
//!   a `(4n)²` grid over the window, [`crate::validate::evaluate`] scores the rule, its variants
//!   and single cues against each truth with the torus-shift chance level; truths with no
//!   contrast are reported and skipped; [`crate::validate::caveats`] and notes say what limits
//!   the reading. [`figure`] draws one grid's truths and decisions.

mod protocol;
mod site;

pub use protocol::{figure, score, GridResult, Scored, Settings, Validation, ValidationError};
pub use site::{Ground, OrthoImage, Site, Truth, Votes, Window};

/// Scrub of the original's ground plot (inventory §3.6): the default vegetation colour.
pub const SCRUB_RGB: [f64; 3] = [0.19, 0.21, 0.15];
/// Sand of the original's ground plot (inventory §3.6): the default bare-ground colour.
pub const SAND_RGB: [f64; 3] = [0.52, 0.47, 0.43];
/// Height samples per grid cell side.
pub const OVER: usize = 4;
/// Significance level of the caveats.
pub const ALPHA: f64 = 0.05;

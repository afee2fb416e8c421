//! `heightmap`: a DTM or a point cloud → the project's height field (what `bozkir heightmap`
//! writes).
//!
//! Steps (reported through [`Observer::step`]): `read` — a point cloud (`.ply`, `.las`, `.laz`,
//! in its own frame with z up) is gridded by [`bozkir_terrain::points`] (15th percentile per
//! cell on a `size × size` raster, holes filled); any other file is read as a DEM
//! ([`bozkir_io::read_dem`]) and cropped to its largest all-valid rectangle. Then the optional
//! [`Rescale`]; `resample` — inputs longer than `size` cells are resampled bilinearly; finally
//! `smooth` passes of a light 3×3 smoothing.

use crate::error::{PipelineError, Result};
use bozkir_core::{Grid, Observer};
use bozkir_io::IoError;
use bozkir_terrain::points::{height_from_points, Gridding};
use bozkir_terrain::sculpt::warp::sample_bilinear;
use std::path::{Path, PathBuf};

/// Longest side (cells) a heightmap request may ask for.
pub const MAX_SIZE: usize = 16_384;

/// Replacements applied right after reading: a cell size and a height scale.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Rescale {
    /// Metres per cell, replacing the file's own spacing.
    pub cell_size: Option<f64>,
    /// Multiply heights by this many metres (for 0..1 height PNGs).
    pub height_range: Option<f64>,
}

/// What to import.
#[derive(Debug, Clone, PartialEq)]
pub struct HeightmapRequest {
    /// A DTM (`.tif`, `.npz`, `.png`) or a point cloud (`.ply`, `.las`, `.laz`).
    pub input: PathBuf,
    /// Longest side of the output in cells (8..=[`MAX_SIZE`]); point clouds are gridded at
    /// `size × size`, larger DEMs resampled.
    pub size: usize,
    /// Passes of the 3×3 smoothing `(N + S + W + E + 4·centre) / 8`.
    pub smooth: usize,
    /// Applied after reading.
    pub rescale: Rescale,
}

/// The imported height field.
#[derive(Debug, Clone, PartialEq)]
pub struct Heightmap {
    /// Heights in metres with their cell size.
    pub heights: Grid<f64>,
    /// `"DTM"` or `"point cloud (15th percentile per cell)"`.
    pub kind: &'static str,
}

const POINTS: &str = "point cloud (15th percentile per cell)";

/// Import `req.input` as a height field (see the module documentation).
///
/// # Examples
///
/// ```
/// use bozkir_pipeline::heightmap::{heightmap, HeightmapRequest, Rescale};
///
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("cloud.ply");
/// let pts: Vec<[f64; 3]> =
///     (0..20).flat_map(|i| (0..20).map(move |j| [f64::from(i), f64::from(j), 0.5 * f64::from(i)])).collect();
/// bozkir_io::write_ply_points(&path, &pts, bozkir_io::plyfmt::Format::Ascii).unwrap();
/// let req = HeightmapRequest { input: path, size: 8, smooth: 0, rescale: Rescale::default() };
/// let h = heightmap(&req, &bozkir_core::NoProgress).unwrap();
/// assert_eq!((h.heights.width(), h.heights.height()), (8, 8));
/// assert!(h.heights.get(7, 0) > h.heights.get(0, 0)); // z rises to the east
/// ```
pub fn heightmap(req: &HeightmapRequest, obs: &dyn Observer) -> Result<Heightmap> {
    if req.size < 8 || req.size > MAX_SIZE {
        return Err(PipelineError::invalid(format!("--size must be 8..={MAX_SIZE}, got {}", req.size)));
    }
    if !req.input.exists() {
        return Err(PipelineError::NoSuchFile(req.input.clone()));
    }
    obs.step("read");
    let ext = req.input.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    let (mut h, kind) = match ext.as_str() {
        "ply" => (read_ply_height(&req.input, req.size)?, POINTS),
        "las" | "laz" => {
            let pts = bozkir_io::read_las(&req.input)?;
            if pts.xyz.is_empty() {
                return Err(PipelineError::invalid(format!("{}: no points", req.input.display())));
            }
            (height_from_points(&pts.xyz, &Gridding::inventory(req.size)).heights, POINTS)
        }
        _ => (bozkir_io::read_dem(&req.input)?.crop_valid()?, "DTM"),
    };
    h = rescale(h, &req.rescale)?;
    let long = h.width().max(h.height());
    if long > req.size {
        let f = req.size as f64 / long as f64;
        let (w, hh) =
            (((h.width() as f64 * f).round() as usize).max(2), ((h.height() as f64 * f).round() as usize).max(2));
        obs.step("resample");
        h = resample(&h, w, hh);
    }
    crate::budget::check(&crate::budget::smoothing_cost(h.width(), h.height(), req.smooth))?;
    for _ in 0..req.smooth {
        h = smooth(&h);
    }
    Ok(Heightmap { heights: h, kind })
}

/// A PLY point cloud as an `n × n` height field in its own frame (z up): 15th percentile per
/// cell, holes filled ([`Gridding::inventory`]). Refuses a cloud without finite points.
pub fn read_ply_height(path: impl AsRef<Path>, n: usize) -> Result<Grid<f64>> {
    let path = path.as_ref();
    let max = bozkir_io::limits::MAX_SIDE;
    if !(2..=max as usize).contains(&n) {
        let detail = format!("height field size {n} must be 2..={max}");
        return Err(IoError::InvalidArgument { path: path.to_path_buf(), detail }.into());
    }
    let points = bozkir_io::read_ply_points(path)?;
    if !points.iter().any(|p| p.iter().all(|v| v.is_finite())) {
        let what = format!("no finite point among {}", points.len());
        return Err(IoError::Empty { path: path.to_path_buf(), what }.into());
    }
    Ok(height_from_points(&points, &Gridding::inventory(n)).heights)
}

/// Range of `--cell-size` (metres) and `--height-range` (metres per unit height): from a
/// micrometre to a thousand kilometres.
pub const SCALE_RANGE_M: (f64, f64) = (1e-6, 1e6);

/// A finite option value within [`SCALE_RANGE_M`], or an error naming the option.
pub fn scale_in_range(name: &str, v: f64) -> Result<f64> {
    let (lo, hi) = SCALE_RANGE_M;
    if !(lo..=hi).contains(&v) {
        return Err(PipelineError::invalid(format!("--{name} must be within {lo:e}..={hi:e} m, got {v}")));
    }
    Ok(v)
}

fn rescale(mut h: Grid<f64>, s: &Rescale) -> Result<Grid<f64>> {
    if let Some(c) = s.cell_size {
        let c = scale_in_range("cell-size", c)?;
        h = h.with_cell_size(c, c);
    }
    if let Some(r) = s.height_range {
        let r = scale_in_range("height-range", r)?;
        let (dx, dy) = (h.dx, h.dy);
        h = h.map(|&v| v * r).with_cell_size(dx, dy);
    }
    Ok(h)
}

/// Resample to `w × h` by bilinear interpolation (cell centres aligned at the corners).
pub fn resample(g: &Grid<f64>, w: usize, h: usize) -> Grid<f64> {
    let sx = if w > 1 { (g.width() - 1) as f64 / (w - 1) as f64 } else { 0.0 };
    let sy = if h > 1 { (g.height() - 1) as f64 / (h - 1) as f64 } else { 0.0 };
    Grid::from_fn(w, h, |x, y| sample_bilinear(g, x as f64 * sx, y as f64 * sy)).with_cell_size(g.dx * sx, g.dy * sy)
}

/// One pass of the light 3×3 smoothing `(N + S + W + E + 4·centre) / 8` (edges clamped).
pub fn smooth(g: &Grid<f64>) -> Grid<f64> {
    let (w, h) = (g.width(), g.height());
    let at = |x: isize, y: isize| *g.get(x.clamp(0, w as isize - 1) as usize, y.clamp(0, h as isize - 1) as usize);
    Grid::from_fn(w, h, |x, y| {
        let (x, y) = (x as isize, y as isize);
        (at(x, y - 1) + at(x, y + 1) + at(x - 1, y) + at(x + 1, y) + 4.0 * at(x, y)) / 8.0
    })
    .with_cell_size(g.dx, g.dy)
}

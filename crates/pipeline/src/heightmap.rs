//! `heightmap`: a DTM or a point cloud → the project's height field (what `bozkir heightmap`
//! writes).
//!
//! Steps (reported through [`Observer::step`]): `read` — a point cloud (`.ply`, `.las`, `.laz`,
//! in its own frame with z up; LAS coordinates in feet or another linear unit its GeoKeys name are
//! converted to metres first, with a note) is gridded by [`bozkir_terrain::points`] (15th
//! percentile per cell, empty cells filled by inverse-distance weighting of the 8 nearest filled
//! cells); any other file is read as a DEM ([`bozkir_io::read_dem`]) and cropped to its largest
//! all-valid rectangle. Then the optional [`Rescale`]; `resample` — inputs longer than `size`
//! cells are resampled bilinearly; finally `smooth` passes of a light 3×3 smoothing.
//!
//! A point cloud's cells (issue 24), first match wins:
//! 1. `size` and `rescale.cell_size` together are refused;
//! 2. `size = Some(n)`: `n × n` cells over the p1–p99 square ([`Gridding::inventory`]);
//! 3. `rescale.cell_size = Some(c)`: square cells of side `c` metres (the cloud's units for a PLY) over the points'
//!    bounding box ([`Cells::cover`]);
//! 4. neither: cells of [`cell_size_for`] — the mean spacing `√(area / points)` of the (kept)
//!    points over the area of their occupied coarse cells, times
//!    [`CELL_PER_SPACING`](bozkir_terrain::points::CELL_PER_SPACING), rounded up
//!    to a tidy value — raised up the tidy ladder while a side would exceed [`MAX_SIZE`] cells.
//!
//! The outcome reports the share of cells that held a point ([`CloudGridding`]); below
//! [`MIN_OCCUPIED_SHARE`] a note says so and names the smallest tidy cell size that reaches it.
//! `classes` keeps only the LAS points of those classes; it is refused for other inputs, for a
//! LAS file whose points are all unclassified (0 or 1) when a class above 1 is asked, and when no
//! point matches — each message lists the classes the file holds.

use crate::error::{PipelineError, Result};
use bozkir_core::{Grid, Observer};
use bozkir_io::IoError;
use bozkir_terrain::points::{cell_size_for, cell_size_for_share, height_from_points, tidy_up, Cells, Gridding};
use bozkir_terrain::sculpt::warp::sample_bilinear;
use std::path::{Path, PathBuf};

/// Longest side (cells) a heightmap request may ask for.
pub const MAX_SIZE: usize = 16_384;

/// Longest side of a DEM's output when `size` is not given (larger DEMs are resampled).
pub const DEFAULT_SIZE: usize = 512;

/// Share of a point cloud's cells that should hold a point; below it a note warns that most of
/// the height field is interpolated.
pub const MIN_OCCUPIED_SHARE: f64 = 0.5;

/// Replacements applied right after reading: a cell size and a height scale.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Rescale {
    /// DEMs: metres per cell, replacing the file's own spacing. Point clouds: the side of the
    /// gridding's cells in metres (a PLY's own units).
    pub cell_size: Option<f64>,
    /// Multiply heights by this many metres (for 0..1 height PNGs).
    pub height_range: Option<f64>,
}

/// What to import.
#[derive(Debug, Clone, PartialEq)]
pub struct HeightmapRequest {
    /// A DTM (`.tif`, `.npz`, `.png`) or a point cloud (`.ply`, `.las`, `.laz`).
    pub input: PathBuf,
    /// Longest side of the output in cells (8..=[`MAX_SIZE`]). DEMs longer than that are
    /// resampled (default [`DEFAULT_SIZE`]); point clouds are gridded `size × size` over their
    /// p1–p99 square instead of by their density (see the module documentation).
    pub size: Option<usize>,
    /// Passes of the 3×3 smoothing `(N + S + W + E + 4·centre) / 8`.
    pub smooth: usize,
    /// Applied after reading (a point cloud's `cell_size` is its gridding's cell).
    pub rescale: Rescale,
    /// LAS/LAZ only: the ASPRS classes to keep (e.g. `[2]`, ground); `None` keeps every point.
    pub classes: Option<Vec<u8>>,
}

/// How the cell size of a point cloud was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellChoice {
    /// From the points' mean spacing (the default).
    Spacing,
    /// Given (`--cell-size`).
    CellSize,
    /// `size × size` cells over the p1–p99 square (`--size`).
    Size,
}

/// What gridding a point cloud gave.
#[derive(Debug, Clone, PartialEq)]
pub struct CloudGridding {
    /// Points in the file.
    pub points: usize,
    /// Points gridded (after the class filter).
    pub kept: usize,
    /// Mean spacing of the kept points ([`bozkir_terrain::points::mean_spacing`]), `None` when
    /// they span no area.
    pub spacing: Option<f64>,
    /// Side of a cell (x), metres (a PLY's own units).
    pub cell_size: f64,
    /// How it was chosen.
    pub choice: CellChoice,
    /// Cells holding at least one point.
    pub occupied: usize,
    /// All cells.
    pub cells: usize,
    /// When the occupied share is below [`MIN_OCCUPIED_SHARE`]: the smallest tidy cell size
    /// over the bounding box that reaches it (`None` otherwise or if none does).
    pub suggested_cell_size: Option<f64>,
}

impl CloudGridding {
    /// Share (0–1) of the cells holding at least one point.
    pub fn occupied_share(&self) -> f64 {
        if self.cells == 0 {
            0.0
        } else {
            self.occupied as f64 / self.cells as f64
        }
    }
}

/// The imported height field.
#[derive(Debug, Clone, PartialEq)]
pub struct Heightmap {
    /// Heights in metres with their cell size.
    pub heights: Grid<f64>,
    /// `"DTM"` or `"point cloud (15th percentile per cell)"`.
    pub kind: &'static str,
    /// For a point cloud: its gridding.
    pub cloud: Option<CloudGridding>,
}

const POINTS: &str = "point cloud (15th percentile per cell)";

/// Import `req.input` as a height field (see the module documentation).
///
/// # Examples
///
/// ```
/// use bozkir_pipeline::heightmap::{heightmap, CellChoice, HeightmapRequest, Rescale};
///
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("cloud.ply");
/// let pts: Vec<[f64; 3]> =
///     (0..20).flat_map(|i| (0..20).map(move |j| [f64::from(i), f64::from(j), 0.5 * f64::from(i)])).collect();
/// bozkir_io::write_ply_points(&path, &pts, bozkir_io::plyfmt::Format::Ascii).unwrap();
/// let req = HeightmapRequest { input: path, size: None, smooth: 0, rescale: Rescale::default(), classes: None };
/// let h = heightmap(&req, &bozkir_core::NoProgress).unwrap();
/// // Points 1 apart over 19 × 19: spacing 0.95, cells of 1.5 (1.5 spacings, rounded up to a
/// // tidy value): 13 × 13, every one holding a point.
/// let cloud = h.cloud.unwrap();
/// assert_eq!((cloud.cell_size, cloud.choice, cloud.occupied_share()), (1.5, CellChoice::Spacing, 1.0));
/// assert_eq!((h.heights.width(), h.heights.height()), (13, 13));
/// assert!(h.heights.get(12, 0) > h.heights.get(0, 0)); // z rises to the east
/// ```
pub fn heightmap(req: &HeightmapRequest, obs: &dyn Observer) -> Result<Heightmap> {
    if let Some(n) = req.size {
        if !(8..=MAX_SIZE).contains(&n) {
            return Err(PipelineError::invalid(format!("--size must be 8..={MAX_SIZE}, got {n}")));
        }
    }
    if !req.input.exists() {
        return Err(PipelineError::NoSuchFile(req.input.clone()));
    }
    obs.step("read");
    let ext = req.input.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    if req.classes.is_some() && !matches!(ext.as_str(), "las" | "laz") {
        return Err(PipelineError::invalid(format!(
            "--classes picks LAS classes: it needs a .las or .laz point cloud, not {}",
            req.input.display()
        )));
    }
    let (mut h, kind, cloud) = match ext.as_str() {
        "ply" | "las" | "laz" => {
            let (pts, total) = read_cloud(&req.input, &ext, req.classes.as_deref(), obs)?;
            let (h, cloud) = grid_cloud(&req.input, &pts, total, req, obs)?;
            (h, POINTS, Some(cloud))
        }
        _ => (bozkir_io::read_dem(&req.input)?.crop_valid()?, "DTM", None),
    };
    let rescale = if cloud.is_some() { Rescale { cell_size: None, ..req.rescale } } else { req.rescale };
    h = self::rescale(h, &rescale)?;
    let long = h.width().max(h.height());
    let size = if cloud.is_some() { req.size.unwrap_or(MAX_SIZE) } else { req.size.unwrap_or(DEFAULT_SIZE) };
    if long > size {
        let f = size as f64 / long as f64;
        let (w, hh) =
            (((h.width() as f64 * f).round() as usize).max(2), ((h.height() as f64 * f).round() as usize).max(2));
        obs.step("resample");
        h = resample(&h, w, hh);
    }
    crate::budget::check(&crate::budget::smoothing_cost(h.width(), h.height(), req.smooth))?;
    for _ in 0..req.smooth {
        h = smooth(&h);
    }
    Ok(Heightmap { heights: h, kind, cloud })
}

/// The finite points of a cloud (after the class filter) and the number of points in the file.
fn read_cloud(path: &Path, ext: &str, classes: Option<&[u8]>, obs: &dyn Observer) -> Result<(Vec<[f64; 3]>, usize)> {
    let finite = |p: &[f64; 3]| p.iter().all(|v| v.is_finite());
    if ext == "ply" {
        let pts = bozkir_io::read_ply_points(path)?;
        let total = pts.len();
        let pts: Vec<[f64; 3]> = pts.into_iter().filter(finite).collect();
        if pts.is_empty() {
            let what = format!("no finite point among {total}");
            return Err(IoError::Empty { path: path.to_path_buf(), what }.into());
        }
        return Ok((pts, total));
    }
    let las = bozkir_io::read_las(path)?;
    let total = las.xyz.len();
    if total == 0 {
        return Err(PipelineError::invalid(format!("{}: no points", path.display())));
    }
    let mut count = [0usize; 256];
    for &c in &las.classification {
        count[usize::from(c)] += 1;
    }
    let found = (0..256).filter(|&c| count[c] > 0).map(|c| format!("{c} ({} points)", count[c])).collect::<Vec<_>>();
    let found = found.join(", ");
    let classified = (2..256).any(|c| count[c] > 0);
    let pts: Vec<[f64; 3]> = match classes {
        None => {
            if count[2] > 0 && count[2] < total {
                obs.note(&format!(
                    "note: {} is classified ({} of {total} points are ground, class 2): --classes 2 grids the ground only",
                    path.display(),
                    count[2]
                ));
            }
            las.xyz.into_iter().filter(finite).collect()
        }
        Some(want) => {
            let list = want.iter().map(u8::to_string).collect::<Vec<_>>().join(",");
            if !classified && want.iter().any(|&c| c > 1) {
                return Err(PipelineError::invalid(format!(
                    "{}: the points are not classified (classes found: {found}), so --classes {list} matches \
                     none; classify the cloud first or leave out --classes",
                    path.display()
                )));
            }
            let mut keep = [false; 256];
            for &c in want {
                keep[usize::from(c)] = true;
            }
            las.xyz
                .into_iter()
                .zip(&las.classification)
                .filter(|(p, &c)| keep[usize::from(c)] && finite(p))
                .map(|(p, _)| p)
                .collect()
        }
    };
    if pts.is_empty() {
        let why = match classes {
            Some(want) => {
                let list = want.iter().map(u8::to_string).collect::<Vec<_>>().join(",");
                format!("no finite point of class {list} (classes found: {found})")
            }
            None => format!("no finite point among {total}"),
        };
        return Err(PipelineError::invalid(format!("{}: {why}", path.display())));
    }
    // Cells and heights are metres: coordinates in feet (the GeoKeys' linear units; heights in
    // the vertical unit, else the horizontal one) are converted.
    let (hu, vu) = (las.horizontal_unit_m.unwrap_or(1.0), las.vertical_unit_m.or(las.horizontal_unit_m).unwrap_or(1.0));
    if hu != 1.0 || vu != 1.0 {
        obs.note(&format!(
            "note: {} gives its coordinates in units of {hu} m (heights {vu} m): converted to metres",
            path.display()
        ));
        let pts = pts.into_iter().map(|[x, y, z]| [x * hu, y * hu, z * vu]).collect();
        return Ok((pts, total));
    }
    Ok((pts, total))
}

/// Grid the finite points `pts` (see the module documentation).
fn grid_cloud(
    path: &Path,
    pts: &[[f64; 3]],
    total: usize,
    req: &HeightmapRequest,
    obs: &dyn Observer,
) -> Result<(Grid<f64>, CloudGridding)> {
    let spacing = cell_size_for(pts);
    let (gridding, choice) = match (req.size, req.rescale.cell_size) {
        (Some(_), Some(_)) => {
            return Err(PipelineError::invalid(
                "--size and --cell-size both given: a point cloud is gridded either N × N cells over its \
                 extent (--size) or in cells of a given side (--cell-size); give one",
            ))
        }
        (Some(n), None) => (Gridding::inventory(n), CellChoice::Size),
        (None, Some(c)) => {
            let c = scale_in_range("cell-size", c)?;
            (Gridding::cells(cover(path, pts, c, "--cell-size")?), CellChoice::CellSize)
        }
        (None, None) => {
            let Some((_, mut c)) = spacing else {
                return Err(PipelineError::invalid(format!(
                    "{}: the {} points span no area, so no cell size follows from their spacing; give --size",
                    path.display(),
                    pts.len()
                )));
            };
            while Cells::cover(pts, c).is_some_and(|k| k.cols > MAX_SIZE || k.rows > MAX_SIZE) {
                c = tidy_up(c * (1.0 + 1e-6));
            }
            if Some(c) != spacing.map(|s| s.1) {
                obs.note(&format!(
                    "note: cells of {} (not {}) keep the grid within {MAX_SIZE} cells per side",
                    num(c),
                    num(spacing.map_or(c, |s| s.1))
                ));
            }
            (Gridding::cells(cover(path, pts, c, "the cell size from the point spacing")?), CellChoice::Spacing)
        }
    };
    let (w, h) = gridding.dims();
    crate::budget::check(&gridding_cost(pts.len(), w, h))?;
    let out = height_from_points(pts, &gridding);
    let cells = w * h;
    let occupied = cells - out.empty;
    let mut cloud = CloudGridding {
        points: total,
        kept: pts.len(),
        spacing: spacing.map(|s| s.0.spacing),
        cell_size: out.heights.dx,
        choice,
        occupied,
        cells,
        suggested_cell_size: None,
    };
    if cloud.occupied_share() < MIN_OCCUPIED_SHARE {
        cloud.suggested_cell_size = cell_size_for_share(pts, cloud.cell_size, MIN_OCCUPIED_SHARE);
        let hint = match cloud.suggested_cell_size {
            Some(s) => format!("; --cell-size {} would reach {:.0} %", num(s), MIN_OCCUPIED_SHARE * 100.0),
            None => String::new(),
        };
        obs.note(&format!(
            "warning: only {:.1} % of the {w}×{h} cells hold a point (below {:.0} %): the rest of the height \
             field is interpolated{hint}",
            cloud.occupied_share() * 100.0,
            MIN_OCCUPIED_SHARE * 100.0
        ));
    }
    Ok((out.heights, cloud))
}

/// [`Cells::cover`] with cell `c`, refused unless it has 2..=[`MAX_SIZE`] cells per side.
fn cover(path: &Path, pts: &[[f64; 3]], c: f64, what: &str) -> Result<Cells> {
    let cells = Cells::cover(pts, c)
        .ok_or_else(|| PipelineError::invalid(format!("{what} {c}: no cells over {}", path.display())))?;
    if !(2..=MAX_SIZE).contains(&cells.cols) || !(2..=MAX_SIZE).contains(&cells.rows) {
        let (w, h) = (cells.cols as f64, cells.rows as f64);
        return Err(PipelineError::invalid(format!(
            "{what} {} gives {w:.0} × {h:.0} cells over {}: each side must be 2..={MAX_SIZE}",
            num(c),
            path.display()
        )));
    }
    Ok(cells)
}

/// Memory and work of gridding `points` points into `w × h` cells and filling them (bytes per
/// cell: height, bucket starts twice, IDW centres, indices and values; per point: the copy, its
/// cell and its z).
fn gridding_cost(points: usize, w: usize, h: usize) -> crate::budget::Cost {
    let cells = w as f64 * h as f64;
    crate::budget::Cost {
        what: format!("gridding {points} points into {w}×{h} cells"),
        memory: cells * 64.0 + points as f64 * 48.0,
        work: cells * bozkir_terrain::points::IDW_K as f64 * cells.max(2.0).log2() + points as f64,
    }
}

/// A number as written on a command line: up to six significant digits, no trailing zeros.
fn num(v: f64) -> String {
    let s = format!("{v:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.is_empty() || s == "-" {
        format!("{v:e}")
    } else {
        s.to_string()
    }
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

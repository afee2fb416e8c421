//! The `capture` workflows that start from a file: a coloured point cloud turned into splats
//! ([`points_capture`]) and a photo draped over a terrain folder's heights or flat ground
//! ([`texture_capture`]). The face saves the splats where it wants them.

use crate::PipelineError;
use bozkir_core::Observer;
use bozkir_splat::capture::{from_points, from_texture};
use bozkir_splat::Splats;
use std::path::{Path, PathBuf};

/// Flatness of the splats both workflows make (shortest axis over the others).
const FLATNESS: f64 = 0.15;

/// A coloured point cloud to splats, one per point.
#[derive(Debug, Clone, PartialEq)]
pub struct PointsRequest {
    /// LAS or LAZ with RGB.
    pub input: PathBuf,
    /// Keep the centred square of this side in metres (`None`: everything).
    pub crop: Option<f64>,
    /// Splat σ as a multiple of the local point spacing.
    pub size: f64,
}

/// A photo draped over heights, one splat per pixel.
#[derive(Debug, Clone, PartialEq)]
pub struct TextureRequest {
    /// 8-bit grey or RGB PNG.
    pub image: PathBuf,
    /// Side of the draped square in metres (long edge).
    pub side: f64,
    /// Terrain folder whose heights the photo is draped over (`None`: flat ground).
    pub height: Option<PathBuf>,
    /// Height range of the drape in metres when `height` is given (the terrain is rescaled).
    pub relief: f64,
    /// Splat σ as a multiple of the pixel spacing.
    pub size: f64,
}

fn step(path: &Path, e: impl std::error::Error + Send + Sync + 'static) -> PipelineError {
    PipelineError::Step { context: path.display().to_string(), source: Box::new(e) }
}

/// Points with their colours.
type Coloured = (Vec<[f64; 3]>, Vec<[f64; 3]>);

/// The points (in metres) and colours (0..1) of a LAS/LAZ cloud with RGB.
fn coloured_points(input: &Path) -> Result<Coloured, PipelineError> {
    let ext = input.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    if !matches!(ext.as_str(), "las" | "laz") {
        return Err(PipelineError::invalid(format!("{}: from-points reads LAS or LAZ with RGB", input.display())));
    }
    let p = bozkir_io::read_las(input)?;
    let Some(rgb) = p.rgb.clone() else {
        return Err(PipelineError::invalid(format!(
            "{}: the point cloud has no colours (point formats 2, 3, 5, 7, 8, 10 carry RGB)",
            input.display()
        )));
    };
    let scale = if rgb.iter().any(|c| c.iter().any(|&v| v > 255)) { 65535.0 } else { 255.0 };
    let rgb: Vec<[f64; 3]> = rgb.iter().map(|c| c.map(|v| f64::from(v) / scale)).collect();
    let (mh, mv) = (p.horizontal_unit_m.unwrap_or(1.0), p.vertical_unit_m.unwrap_or(1.0));
    let xyz: Vec<[f64; 3]> = p.xyz.iter().map(|q| [q[0] * mh, q[1] * mh, q[2] * mv]).collect();
    Ok((xyz, rgb))
}

/// Largest splat size factor (σ as a multiple of the spacing) a capture request accepts.
pub const MAX_SIZE_FACTOR: f64 = 100.0;

/// Smallest splat size factor a capture request accepts.
pub const MIN_SIZE_FACTOR: f64 = 1e-3;

/// Smallest side or crop of a capture request, metres.
pub const MIN_EXTENT_M: f64 = 1e-6;

/// Largest side, crop or relief of a capture request, metres.
pub const MAX_EXTENT_M: f64 = 1e6;

/// `v` within `lo..=hi` (`lo` excluded when `open`), or an error naming the flag.
fn in_range(name: &str, v: f64, lo: f64, hi: f64, open: bool) -> Result<(), PipelineError> {
    let ok = v <= hi && if open { v > lo } else { v >= lo };
    if ok {
        return Ok(());
    }
    let low = if open { "above" } else { "at least" };
    Err(PipelineError::invalid(format!("--{name} must be {low} {lo} and at most {hi:e}, got {v}")))
}

impl PointsRequest {
    /// Checks the numbers before any file is read: `size` in `[1e-3, 100]`, `crop` in `[1e-6, 1e6]` m.
    pub fn validate(&self) -> Result<(), PipelineError> {
        in_range("size", self.size, MIN_SIZE_FACTOR, MAX_SIZE_FACTOR, false)?;
        if let Some(c) = self.crop {
            in_range("crop", c, MIN_EXTENT_M, MAX_EXTENT_M, false)?;
        }
        Ok(())
    }
}

impl TextureRequest {
    /// Checks the numbers before any file is read: `size` in `[1e-3, 100]`, `side` in
    /// `[1e-6, 1e6]` m, `relief` in `[0, 1e6]` m.
    pub fn validate(&self) -> Result<(), PipelineError> {
        in_range("size", self.size, MIN_SIZE_FACTOR, MAX_SIZE_FACTOR, false)?;
        in_range("side", self.side, MIN_EXTENT_M, MAX_EXTENT_M, false)?;
        in_range("relief", self.relief, 0.0, MAX_EXTENT_M, false)
    }
}

/// The points inside a square of `side` metres around their mean (all of them for `None`).
fn crop((xyz, rgb): Coloured, side: Option<f64>) -> Result<Coloured, PipelineError> {
    let Some(side) = side else { return Ok((xyz, rgb)) };
    if side.is_nan() || side <= 0.0 {
        return Err(PipelineError::invalid(format!("--crop {side}: must be positive")));
    }
    let n = xyz.len() as f64;
    let cx = xyz.iter().map(|p| p[0]).sum::<f64>() / n;
    let cy = xyz.iter().map(|p| p[1]).sum::<f64>() / n;
    let keep: Vec<usize> = (0..xyz.len())
        .filter(|&i| (xyz[i][0] - cx).abs() <= side / 2.0 && (xyz[i][1] - cy).abs() <= side / 2.0)
        .collect();
    Ok((keep.iter().map(|&i| xyz[i]).collect(), keep.iter().map(|&i| rgb[i]).collect()))
}

/// A coloured LAS/LAZ cloud, optionally cropped, turned into splats, one per point.
///
/// # Examples
///
/// ```
/// use bozkir_pipeline::capture::{points_capture, PointsRequest};
/// let req = PointsRequest { input: "no-such-cloud.laz".into(), crop: None, size: 0.6 };
/// let e = points_capture(&req, &bozkir_core::NoProgress).unwrap_err();
/// assert_eq!(e.to_string(), "no-such-cloud.laz: no such file");
/// ```
pub fn points_capture(req: &PointsRequest, obs: &dyn Observer) -> Result<Splats, PipelineError> {
    req.validate()?;
    if !req.input.exists() {
        return Err(PipelineError::NoSuchFile(req.input.clone()));
    }
    obs.step("read");
    let (xyz, rgb) = crop(coloured_points(&req.input)?, req.crop)?;
    obs.step("splats");
    from_points(&xyz, &rgb, req.size, FLATNESS).map_err(|e| step(&req.input, e))
}

/// A photo draped over a terrain folder's heights (rescaled to `relief`) or flat ground.
///
/// # Examples
///
/// ```
/// use bozkir_pipeline::capture::{texture_capture, TextureRequest};
/// let dir = std::env::temp_dir().join(format!("bozkir-doc-drape-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let image = dir.join("photo.png");
/// let px = (0..64).map(|i| [(i * 4) as u8, 120, 60]).collect();
/// bozkir_io::write_rgb8(&image, &bozkir_core::Grid::from_vec(8, 8, px)).unwrap();
/// let req = TextureRequest { image, side: 2.0, height: None, relief: 0.1, size: 0.7 };
/// let s = texture_capture(&req, &bozkir_core::NoProgress).unwrap();
/// assert_eq!(s.len(), 64);
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn texture_capture(req: &TextureRequest, obs: &dyn Observer) -> Result<Splats, PipelineError> {
    req.validate()?;
    let image = &req.image;
    if !image.exists() {
        return Err(PipelineError::NoSuchFile(image.clone()));
    }
    obs.step("read");
    let (w, h, rgb): (usize, usize, Vec<[f64; 3]>) = match bozkir_io::read_rgb8(image) {
        Ok(g) => (g.width(), g.height(), g.data().iter().map(|c| c.map(|v| f64::from(v) / 255.0)).collect()),
        Err(_) => {
            let g = bozkir_io::read_png8(image).map_err(|source| PipelineError::Step {
                context: format!("{}: not an 8-bit grey or RGB PNG", image.display()),
                source: Box::new(source),
            })?;
            (g.width(), g.height(), g.data().iter().map(|&v| [f64::from(v) / 255.0; 3]).collect())
        }
    };
    let heights = match &req.height {
        Some(dir) => {
            let (_, hg) = crate::folder::read_terrain_folder(dir, "a drape")?;
            let (lo, hi) = hg.min_max().unwrap_or((0.0, 1.0));
            let r = if hi > lo { req.relief / (hi - lo) } else { 0.0 };
            Some((hg.data().iter().map(|v| (v - lo) * r).collect::<Vec<f64>>(), hg.width(), hg.height()))
        }
        None => None,
    };
    obs.step("splats");
    let heights = heights.as_ref().map(|(z, hw, hh)| (&z[..], *hw, *hh));
    from_texture(&rgb, w, h, heights, req.side, req.size, FLATNESS).map_err(|e| step(image, e))
}

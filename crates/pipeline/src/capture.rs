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
    /// A PNG (grey, grey+alpha, RGB or RGBA, 8 or 16 bits) or an RGB(A) GeoTIFF orthophoto.
    pub image: PathBuf,
    /// Side of the draped square in metres (long edge).
    pub side: f64,
    /// What the photo is draped over (`None`: flat ground): a terrain folder (its heights
    /// stretched over the photo), or a DEM file (GeoTIFF, NPZ, …). A georeferenced
    /// orthophoto over a georeferenced DEM in the same CRS is draped where they overlap: the
    /// largest rectangle of orthophoto pixels holding data over valid DEM cells, resampled to
    /// square pixels in metres, each pixel's height read from the DEM at its centre.
    pub height: Option<PathBuf>,
    /// Height range of the drape in metres when `height` is given (the terrain is rescaled).
    pub relief: f64,
    /// Splat σ as a multiple of the pixel spacing.
    pub size: f64,
    /// Colour the photo's mean takes (sRGB, 0..1): every pixel becomes `tint × luminance /
    /// mean luminance` (clamped to 1), for grey photos of ground that has a colour.
    pub tint: Option<[f64; 3]>,
    /// Shrink the photo (area average) so its long side has at most this many pixels before
    /// draping: fewer, larger splats (`None`: every pixel).
    pub pixels: Option<usize>,
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
    /// `[1e-6, 1e6]` m, `relief` in `[0, 1e6]` m, `tint` channels in `0..=1`, `pixels` at least 4.
    pub fn validate(&self) -> Result<(), PipelineError> {
        in_range("size", self.size, MIN_SIZE_FACTOR, MAX_SIZE_FACTOR, false)?;
        in_range("side", self.side, MIN_EXTENT_M, MAX_EXTENT_M, false)?;
        in_range("relief", self.relief, 0.0, MAX_EXTENT_M, false)?;
        if let Some(n) = self.pixels {
            if n < 4 {
                return Err(PipelineError::invalid(format!("--pixels {n}: at least 4")));
            }
        }
        if let Some(t) = self.tint {
            if !t.iter().all(|v| (0.0..=1.0).contains(v)) {
                return Err(PipelineError::invalid(format!("--tint {t:?}: each channel must lie in 0..1")));
            }
        }
        Ok(())
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

/// A photo draped over a terrain folder's heights or a DEM (rescaled to `relief`), or over flat
/// ground; grey photos take a colour with `tint`. Pixels without data (an orthophoto's NoData
/// or zero alpha) make no splat.
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
/// let req = TextureRequest { image, side: 2.0, height: None, relief: 0.1, size: 0.7, tint: None, pixels: None };
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
    if let Some(p) = &req.height {
        if !p.exists() {
            return Err(PipelineError::NoSuchFile(p.clone()));
        }
    }
    obs.step("read");
    let mut photo = read_image(image)?;
    let heights = match &req.height {
        Some(p) if p.is_dir() => {
            let (_, hg) = crate::folder::read_terrain_folder(p, "a drape")?;
            Some(Heights { z: hg.data().to_vec(), w: hg.width(), h: hg.height() })
        }
        Some(p) => {
            let dem = bozkir_io::read_dem(p)?;
            match (&photo.georef, &dem.georef) {
                (Some(og), Some(dg)) => {
                    if !crate::validation::same_crs(&photo.crs, &dem.crs_kind) {
                        return Err(PipelineError::invalid(format!(
                            "{} and {} are not in the same CRS",
                            image.display(),
                            p.display()
                        )));
                    }
                    let (cut, z) = overlap_drape(&photo, og, &dem, dg).ok_or_else(|| {
                        PipelineError::invalid(format!(
                            "{} and {}: no orthophoto pixel with data lies over a valid DEM cell",
                            image.display(),
                            p.display()
                        ))
                    })?;
                    obs.note(&format!("   draped where they overlap: {}×{} pixels of {:.1} m", cut.w, cut.h, cut.px.0));
                    photo = cut;
                    Some(z)
                }
                _ => {
                    if dem.valid_count() != dem.heights.len() {
                        return Err(PipelineError::invalid(format!(
                            "{}: the DEM has cells without data and no georeference to place the photo by",
                            p.display()
                        )));
                    }
                    let g = &dem.heights;
                    Some(Heights { z: g.data().to_vec(), w: g.width(), h: g.height() })
                }
            }
        }
        None => None,
    };
    if let Some(n) = req.pixels {
        photo = shrink(photo, n);
    }
    if let Some(tint) = req.tint {
        apply_tint(&mut photo.rgb, &photo.valid, tint);
    }
    let heights = heights.map(|mut hs| {
        let (lo, hi) = hs.z.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
        let r = if hi > lo { req.relief / (hi - lo) } else { 0.0 };
        hs.z.iter_mut().for_each(|v| *v = (*v - lo) * r);
        hs
    });
    obs.step("splats");
    let hs = heights.as_ref().map(|hs| (&hs.z[..], hs.w, hs.h));
    let s = from_texture(&photo.rgb, photo.w, photo.h, hs, req.side, req.size, FLATNESS).map_err(|e| step(image, e))?;
    if photo.valid.iter().all(|&v| v) {
        return Ok(s);
    }
    let kept = s.subset_mask(&photo.valid);
    if kept.is_empty() {
        return Err(PipelineError::invalid(format!("{}: no pixel holds data", image.display())));
    }
    Ok(kept)
}

/// A photo in memory: sRGB colours in 0..1, row-major, which pixels hold data, and where it
/// lies when it came from a GeoTIFF.
struct Photo {
    rgb: Vec<[f64; 3]>,
    valid: Vec<bool>,
    w: usize,
    h: usize,
    georef: Option<bozkir_io::GeoTransform>,
    crs: bozkir_io::CrsKind,
    /// Pixel size in metres (`dx`, `dy`).
    px: (f64, f64),
}

/// Heights over a `w × h` grid spanning the photo corner to corner.
struct Heights {
    z: Vec<f64>,
    w: usize,
    h: usize,
}

fn read_image(path: &Path) -> Result<Photo, PipelineError> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    if matches!(ext.as_str(), "tif" | "tiff") {
        let o = bozkir_io::read_geotiff_rgb(path)?;
        let (w, h) = (o.rgb.width(), o.rgb.height());
        return Ok(Photo {
            rgb: o.rgb.data().iter().map(|c| c.map(f64::from)).collect(),
            valid: o.valid.data().to_vec(),
            w,
            h,
            georef: o.georef,
            crs: o.crs_kind,
            px: (o.rgb.dx, o.rgb.dy),
        });
    }
    let g = bozkir_io::read_photo(path)?;
    Ok(Photo {
        rgb: g.data().to_vec(),
        valid: vec![true; g.len()],
        w: g.width(),
        h: g.height(),
        georef: None,
        crs: bozkir_io::CrsKind::Unknown,
        px: (1.0, 1.0),
    })
}

/// Bilinear read of a grid at fractional pixel `(c, r)` (centres at integers); `None` outside
/// or where a corner is not finite.
fn bilinear_at(w: usize, h: usize, c: f64, r: f64, at: impl Fn(usize, usize) -> Option<[f64; 3]>) -> Option<[f64; 3]> {
    if !(c >= 0.0 && r >= 0.0 && c <= (w - 1) as f64 && r <= (h - 1) as f64) {
        return None;
    }
    let (c0, r0) = (c.floor() as usize, r.floor() as usize);
    let (c1, r1) = ((c0 + 1).min(w - 1), (r0 + 1).min(h - 1));
    let (tx, ty) = (c - c0 as f64, r - r0 as f64);
    let (a, b, cc, d) = (at(c0, r0)?, at(c1, r0)?, at(c0, r1)?, at(c1, r1)?);
    Some(std::array::from_fn(|k| (a[k] * (1.0 - tx) + b[k] * tx) * (1.0 - ty) + (cc[k] * (1.0 - tx) + d[k] * tx) * ty))
}

/// The orthophoto cut to where it lies over valid DEM cells: the largest rectangle of pixels
/// with data and a DEM height at their centre, resampled to square pixels of the photo's
/// finer pixel side (bilinear), with the DEM's height at each new pixel's centre.
fn overlap_drape(
    photo: &Photo,
    og: &bozkir_io::GeoTransform,
    dem: &bozkir_io::Dem,
    dg: &bozkir_io::GeoTransform,
) -> Option<(Photo, Heights)> {
    let g = &dem.heights;
    let (dw, dh) = (g.width(), g.height());
    if dw < 2 || dh < 2 || photo.w < 2 || photo.h < 2 {
        return None;
    }
    let height_at = |x: f64, y: f64| {
        let (c, r) = dg.to_pixel(x, y);
        bilinear_at(dw, dh, c, r, |c, r| {
            let v = *g.get(c, r);
            v.is_finite().then_some([v; 3])
        })
        .map(|v| v[0])
    };
    // Pixels over valid DEM cells; inside the window, pixels without data (an orthophoto's
    // NoData of 255 also marks pure white snow) take the mean of their neighbours.
    let mask = bozkir_core::Grid::from_fn(photo.w, photo.h, |c, r| {
        let (x, y) = og.pixel_centre(c as f64, r as f64);
        height_at(x, y).map_or(f64::NAN, |_| 0.0)
    });
    let (c0, r0, cw, ch) = bozkir_io::crop_largest_valid(&mask)?;
    if cw < 4 || ch < 4 {
        return None;
    }
    let mut win: Vec<[f64; 3]> = (0..cw * ch).map(|i| photo.rgb[(r0 + i / cw) * photo.w + c0 + i % cw]).collect();
    let mut ok: Vec<bool> = (0..cw * ch).map(|i| photo.valid[(r0 + i / cw) * photo.w + c0 + i % cw]).collect();
    if !ok.iter().any(|&v| v) {
        return None;
    }
    fill_from_neighbours(&mut win, &mut ok, cw, ch);
    // Square pixels: the finer of the two sides; the window keeps its extent in metres.
    let (dx, dy) = photo.px;
    let s = dx.min(dy);
    let (nw, nh) = (((cw as f64 * dx) / s).round().max(4.0) as usize, ((ch as f64 * dy) / s).round().max(4.0) as usize);
    let (mut rgb, mut z) = (Vec::with_capacity(nw * nh), Vec::with_capacity(nw * nh));
    for r in 0..nh {
        for c in 0..nw {
            // The new pixel's centre in the window's pixel coordinates (centres at integers).
            let pc = c0 as f64 + ((c as f64 + 0.5) * cw as f64 / nw as f64 - 0.5).clamp(0.0, cw as f64 - 1.0);
            let pr = r0 as f64 + ((r as f64 + 0.5) * ch as f64 / nh as f64 - 0.5).clamp(0.0, ch as f64 - 1.0);
            let col = bilinear_at(cw, ch, pc - c0 as f64, pr - r0 as f64, |c, r| Some(win[r * cw + c]))?;
            let (x, y) = og.pixel_centre(pc, pr);
            rgb.push(col);
            z.push(height_at(x, y)?);
        }
    }
    let cut = Photo { rgb, valid: vec![true; nw * nh], w: nw, h: nh, georef: None, crs: photo.crs, px: (s, s) };
    Some((cut, Heights { z, w: nw, h: nh }))
}

/// Every pixel becomes `tint × luminance / mean luminance` (Rec. 709 weights on the sRGB
/// values), clamped to 1; pixels without data are left out of the mean.
fn apply_tint(rgb: &mut [[f64; 3]], valid: &[bool], tint: [f64; 3]) {
    let lum = |c: &[f64; 3]| 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    let (sum, n) = rgb.iter().zip(valid).filter(|(_, &v)| v).fold((0.0, 0usize), |(s, n), (c, _)| (s + lum(c), n + 1));
    let mean = if n > 0 { sum / n as f64 } else { 0.0 };
    for c in rgb.iter_mut() {
        let k = if mean > 0.0 { lum(c) / mean } else { 1.0 };
        *c = tint.map(|t| (t * k).clamp(0.0, 1.0));
    }
}

/// Pixels without data take the mean of their 8 neighbours that have it, ring by ring inwards,
/// until every pixel has a colour (at least one must).
fn fill_from_neighbours(rgb: &mut [[f64; 3]], ok: &mut [bool], w: usize, h: usize) {
    loop {
        let mut next: Vec<(usize, [f64; 3])> = Vec::new();
        for r in 0..h {
            for c in 0..w {
                if ok[r * w + c] {
                    continue;
                }
                let (mut sum, mut n) = ([0.0; 3], 0.0);
                for nr in r.saturating_sub(1)..(r + 2).min(h) {
                    for nc in c.saturating_sub(1)..(c + 2).min(w) {
                        if ok[nr * w + nc] {
                            let v = rgb[nr * w + nc];
                            (0..3).for_each(|k| sum[k] += v[k]);
                            n += 1.0;
                        }
                    }
                }
                if n > 0.0 {
                    next.push((r * w + c, sum.map(|v| v / n)));
                }
            }
        }
        if next.is_empty() {
            return;
        }
        for (i, v) in next {
            rgb[i] = v;
            ok[i] = true;
        }
    }
}

/// The photo shrunk (area average over the pixels with data) so its long side is at most `n`
/// pixels; unchanged when it already is. A new pixel has data when any pixel under it has.
fn shrink(p: Photo, n: usize) -> Photo {
    let long = p.w.max(p.h);
    if long <= n {
        return p;
    }
    let k = n as f64 / long as f64;
    let (nw, nh) = (((p.w as f64 * k).round() as usize).max(1), ((p.h as f64 * k).round() as usize).max(1));
    let (mut rgb, mut valid) = (vec![[0.0; 3]; nw * nh], vec![false; nw * nh]);
    for r in 0..nh {
        let (ra, rb) = (r * p.h / nh, ((r + 1) * p.h).div_ceil(nh).min(p.h));
        for c in 0..nw {
            let (ca, cb) = (c * p.w / nw, ((c + 1) * p.w).div_ceil(nw).min(p.w));
            let (mut sum, mut m) = ([0.0; 3], 0.0);
            for y in ra..rb {
                for x in ca..cb {
                    if p.valid[y * p.w + x] {
                        let v = p.rgb[y * p.w + x];
                        (0..3).for_each(|j| sum[j] += v[j]);
                        m += 1.0;
                    }
                }
            }
            if m > 0.0 {
                rgb[r * nw + c] = sum.map(|v| v / m);
                valid[r * nw + c] = true;
            }
        }
    }
    let px = (p.px.0 * p.w as f64 / nw as f64, p.px.1 * p.h as f64 / nh as f64);
    Photo { rgb, valid, w: nw, h: nh, georef: None, crs: p.crs, px }
}

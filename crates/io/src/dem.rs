//! Digital elevation models read from GeoTIFF or NPZ, and their conversion to metres.
//!
//! Cell sizes are always metres. A DEM in a geographic CRS (degrees) is converted at its
//! centre latitude φ with the WGS84 ellipsoid (a = 6 378 137 m, f = 1/298.257 223 563,
//! e² = f(2 − f)):
//!
//! * metres per degree of latitude  = (π/180) · a(1 − e²) / (1 − e² sin²φ)^{3/2}
//!   (the meridional radius of curvature M),
//! * metres per degree of longitude = (π/180) · a cos φ / (1 − e² sin²φ)^{1/2}
//!   (the prime-vertical radius N times cos φ).
//!
//! So `dx = scale_x · m_per_deg_lon(φ)` and `dy = scale_y · m_per_deg_lat(φ)`, and `dx ≠ dy`
//! is normal (at 39.6° N a 3″ SRTM cell is ≈ 71.6 m × 92.5 m). The conversion is exact at the
//! centre latitude; north and south edges differ by the cosine of their latitude.

use crate::crop::crop_largest_valid;
use crate::error::{IoError, Result};
use bozkir_core::Grid;
use std::path::{Path, PathBuf};

/// WGS84 semi-major axis, metres.
pub const WGS84_A: f64 = 6_378_137.0;
/// WGS84 inverse flattening.
pub const WGS84_INV_F: f64 = 298.257_223_563;

/// Heights outside this range (metres) are treated as invalid: Earth's surface spans the
/// Challenger Deep (−10 935 m) to Everest (8 849 m), so sentinels such as −32768, 32767,
/// 65535 or ±3.4e38 never pass even when a file lacks its nodata tag.
pub const VALID_HEIGHT_RANGE: (f64, f64) = (-11_000.0, 9_000.0);

/// Smallest usable all-valid window, per side (inventory §2.6 refuses < 8×8).
pub const MIN_VALID_SIDE: usize = 8;

/// Metres per degree of (longitude, latitude) at geodetic latitude `lat_deg` on WGS84.
pub fn metres_per_degree(lat_deg: f64) -> (f64, f64) {
    let f = 1.0 / WGS84_INV_F;
    let e2 = f * (2.0 - f);
    let phi = lat_deg.to_radians();
    let s = libm::sin(phi);
    let c = libm::cos(phi);
    let w = 1.0 - e2 * s * s;
    let n = WGS84_A / libm::sqrt(w);
    let m = WGS84_A * (1.0 - e2) / (w * libm::sqrt(w));
    let k = std::f64::consts::PI / 180.0;
    (k * n * c, k * m)
}

/// What the coordinate reference system of a DEM is, as far as the cell size is concerned.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CrsKind {
    /// Degrees of longitude/latitude; the cell size was converted at `centre_lat` (degrees).
    Geographic { epsg: Option<u16>, centre_lat: f64 },
    /// A projected CRS; the pixel scale was converted from its linear unit to metres.
    Projected { epsg: Option<u16> },
    /// No CRS information: the pixel scale (or spacing) is taken as metres, 1 m if absent.
    Unknown,
}

impl std::fmt::Display for CrsKind {
    /// `EPSG:4326 (geographic)`, `a projected CRS without an EPSG code`, `no CRS`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CrsKind::Geographic { epsg: Some(c), .. } => write!(f, "EPSG:{c} (geographic)"),
            CrsKind::Geographic { epsg: None, .. } => write!(f, "a geographic CRS without an EPSG code"),
            CrsKind::Projected { epsg: Some(c) } => write!(f, "EPSG:{c} (projected)"),
            CrsKind::Projected { epsg: None } => write!(f, "a projected CRS without an EPSG code (a local frame)"),
            CrsKind::Unknown => write!(f, "no CRS"),
        }
    }
}

use crate::georef::{Crs, GeoKeySet, GeoRef};
pub use bozkir_core::geo::GeoTransform;
use std::sync::Arc;

/// A DEM: heights in metres with NaN for nodata/invalid cells, cell size in metres.
#[derive(Debug, Clone, PartialEq)]
pub struct Dem {
    /// Heights (metres), NaN where the file has nodata or an invalid value; `dx, dy` metres.
    pub heights: Grid<f64>,
    pub crs_kind: CrsKind,
    /// Pixel-to-CRS transform (GeoTIFF only; `None` when the file has no georeference or a
    /// rotated one). Cell sizes in metres are in `heights.dx/dy`; this is in CRS units.
    pub georef: Option<GeoTransform>,
    /// The nodata value declared by the file, in its own units, if any.
    pub nodata: Option<f64>,
    /// The file the DEM came from.
    pub source: PathBuf,
    /// Every GeoKey of the file (GeoTIFF with a GeoKeyDirectory only): the CRS definition
    /// outputs carry when it has no EPSG code (see [`Dem::output_georef`]).
    pub geokeys: Option<Arc<GeoKeySet>>,
}

impl Dem {
    /// Number of valid (finite) cells.
    pub fn valid_count(&self) -> usize {
        self.heights.data().iter().filter(|v| v.is_finite()).count()
    }

    /// The largest all-valid axis-aligned window of the DEM (see [`crop_largest_valid`]).
    /// Refuses, naming the file, when it is smaller than 8×8.
    pub fn crop_valid(&self) -> Result<Grid<f64>> {
        self.crop_valid_at().map(|(g, _)| g)
    }

    /// [`Self::crop_valid`] and the window's offset: the `(column, row)` of the DEM that is the
    /// window's top-left cell.
    pub fn crop_valid_at(&self) -> Result<(Grid<f64>, (usize, usize))> {
        match crop_largest_valid(&self.heights) {
            Some((x0, y0, w, h)) if w >= MIN_VALID_SIDE && h >= MIN_VALID_SIDE => {
                Ok((self.heights.crop(x0, y0, w, h), (x0, y0)))
            }
            found => {
                Err(IoError::TooSmall {
                    path: self.source.clone(),
                    detail: match found {
                        Some((_, _, w, h)) => {
                            format!("largest all-valid rectangle is {w}×{h}, need at least {MIN_VALID_SIDE}×{MIN_VALID_SIDE}")
                        }
                        None => "no valid cell".into(),
                    },
                })
            }
        }
    }
}

impl Dem {
    /// The georeference outputs made from this DEM carry (see [`crate::georef`]): its transform
    /// and its CRS: [`Crs::Epsg`] when the file names one by EPSG code, else the file's own
    /// GeoKeys ([`Crs::from_keys`]: a user-defined CRS carried verbatim), else
    /// [`Crs::Unknown`]. `None` when the file has no north-up transform.
    pub fn output_georef(&self) -> Option<GeoRef> {
        let transform = self.georef?;
        let crs = match (self.crs_kind, &self.geokeys) {
            (CrsKind::Geographic { epsg: Some(code), .. }, _) => Crs::Epsg { code, geographic: true },
            (CrsKind::Projected { epsg: Some(code) }, _) => Crs::Epsg { code, geographic: false },
            (_, Some(keys)) => Crs::from_keys(keys),
            (_, None) => Crs::Unknown,
        };
        Some(GeoRef { crs, transform })
    }
}

/// Mark invalid cells NaN: non-finite, equal to `nodata` (compared by `is_nodata`), or outside
/// [`VALID_HEIGHT_RANGE`] after multiplying by `to_metres`. Refuses an all-invalid raster.
pub(crate) fn clean_heights(
    path: &Path,
    width: usize,
    height: usize,
    raw: impl Iterator<Item = (f64, bool)>,
    to_metres: f64,
) -> Result<Grid<f64>> {
    let mut valid = 0usize;
    let data: Vec<f64> = raw
        .map(|(v, is_nodata)| {
            let m = clean_value(v, is_nodata, to_metres);
            valid += usize::from(!m.is_nan());
            m
        })
        .collect();
    checked_grid(path, width, height, data, valid)
}

/// The height in metres of a raw sample, NaN where it is nodata, not finite or outside
/// [`VALID_HEIGHT_RANGE`].
#[inline(always)]
fn clean_value(v: f64, is_nodata: bool, to_metres: f64) -> f64 {
    let (lo, hi) = VALID_HEIGHT_RANGE;
    let m = v * to_metres;
    if is_nodata || !m.is_finite() || m < lo || m > hi {
        f64::NAN
    } else {
        m
    }
}

/// [`clean_heights`] of samples already decoded to `f64` (none of them nodata), cleaned in
/// place: no second buffer of the grid's size.
pub(crate) fn clean_heights_vec(
    path: &Path,
    width: usize,
    height: usize,
    mut data: Vec<f64>,
    to_metres: f64,
) -> Result<Grid<f64>> {
    let mut valid = 0usize;
    for v in &mut data {
        *v = clean_value(*v, false, to_metres);
        valid += usize::from(!v.is_nan());
    }
    checked_grid(path, width, height, data, valid)
}

/// `data` as a `width × height` grid, refused when it has another length or no valid cell.
fn checked_grid(path: &Path, width: usize, height: usize, data: Vec<f64>, valid: usize) -> Result<Grid<f64>> {
    if data.len() != width * height {
        return Err(IoError::truncated(path, format!("{} samples decoded, {width}×{height} expected", data.len())));
    }
    if valid == 0 {
        return Err(IoError::AllNodata { path: path.to_path_buf(), cells: data.len() });
    }
    Ok(Grid::from_vec(width, height, data))
}

/// Cell size in metres of a geographic grid with spacing `(sx, sy)` degrees at `lat` degrees.
pub(crate) fn geographic_cell_size(path: &Path, sx: f64, sy: f64, lat: f64) -> Result<(f64, f64)> {
    if !(lat.is_finite() && lat.abs() <= 90.0) {
        return Err(IoError::malformed(path, "DEM", format!("centre latitude {lat}° outside −90..90")));
    }
    let (mlon, mlat) = metres_per_degree(lat);
    let (dx, dy) = (sx.abs() * mlon, sy.abs() * mlat);
    if !(dx.is_finite() && dy.is_finite() && dx > 0.0 && dy > 0.0) {
        return Err(IoError::malformed(
            path,
            "DEM",
            format!("cell size {dx}×{dy} m at latitude {lat}° is not positive"),
        ));
    }
    Ok((dx, dy))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heights_cleaned_in_place_match_the_streamed_cleaning() {
        let p = Path::new("d.npz");
        let raw = [12.5, f64::NAN, f64::INFINITY, -11_000.0, 9_000.0, 9_000.5, -11_000.5, -0.0, 3e8, 700.0];
        for to_m in [1.0, 0.3048] {
            let a = clean_heights(p, 5, 2, raw.iter().map(|&v| (v, false)), to_m).unwrap();
            let b = clean_heights_vec(p, 5, 2, raw.to_vec(), to_m).unwrap();
            let bits = |g: &Grid<f64>| g.data().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&a), bits(&b), "to_metres {to_m}");
        }
        // NaN where out of range or not finite, the rest kept.
        let b = clean_heights_vec(p, 5, 2, raw.to_vec(), 1.0).unwrap();
        let kept: Vec<bool> = b.data().iter().map(|v| !v.is_nan()).collect();
        assert_eq!(kept, [true, false, false, true, true, false, false, true, false, true]);
        // Refused: the wrong length, and nothing valid.
        assert!(clean_heights_vec(p, 4, 2, raw.to_vec(), 1.0).is_err());
        let e = clean_heights_vec(p, 2, 1, vec![f64::NAN, 1e9], 1.0).unwrap_err();
        assert!(matches!(e, IoError::AllNodata { cells: 2, .. }), "{e}");
    }

    #[test]
    fn wgs84_metres_per_degree_matches_known_values() {
        // Equator: 111 319.49 m per degree of longitude, 110 574.28 m of latitude.
        let (lon, lat) = metres_per_degree(0.0);
        assert!((lon - 111_319.49).abs() < 0.01, "{lon}");
        assert!((lat - 110_574.28).abs() < 0.01, "{lat}");
        // 45°: 78 846.8 m and 111 131.7 m (standard tables).
        let (lon, lat) = metres_per_degree(45.0);
        assert!((lon - 78_846.8).abs() < 0.1, "{lon}");
        assert!((lat - 111_131.7).abs() < 0.1, "{lat}");
        // Pole: longitude degrees shrink to nothing, latitude ones grow to 111 694 m.
        let (lon, lat) = metres_per_degree(90.0);
        assert!(lon.abs() < 1e-6 && (lat - 111_693.98).abs() < 0.01, "{lon} {lat}");
    }
}

//! Where an output raster is: its coordinate reference system and pixel-to-CRS transform,
//! written into float32 GeoTIFFs as GeoTIFF 1.0 tags so GIS tools overlay it on its input.
//!
//! Tags written by [`write_geotiff_f32`] and [`crate::write_geotiff_f32_opts`] (the file is laid
//! out by [`crate::geotiff_write`]; the GeoKey directory is a plain list of SHORTs built here,
//! see the module docs of [`crate::read_geotiff`] for the keys):
//!
//! * 33550 `ModelPixelScaleTag` `(sx, sy, 0)` and 33922 `ModelTiepointTag`
//!   `(0, 0, 0, x0, y0, 0)`: the outer corner of the top-left pixel, CRS units;
//! * 34735 `GeoKeyDirectoryTag`: `GTModelTypeGeoKey` (1 projected, 2 geographic),
//!   `GTRasterTypeGeoKey` 1 (PixelIsArea), then `ProjectedCSTypeGeoKey` or
//!   `GeographicTypeGeoKey` with the EPSG code; for the local frame `ProjectedCSTypeGeoKey`
//!   32767 (user-defined), `ProjLinearUnitsGeoKey` 9001 (metre) and a `GTCitationGeoKey`
//!   (34737 `GeoAsciiParamsTag`) naming it;
//! * 42113 `GDAL_NODATA` `nan`: the outputs mark no data with NaN.

use crate::error::Result;
use crate::geotiff_write::{write_geotiff_f32_opts, TiffOptions};
use bozkir_core::geo::GeoTransform;
use bozkir_core::Grid;
use std::path::Path;

/// A coordinate reference system an output is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Crs {
    /// An EPSG code: geographic (degrees) or projected.
    Epsg { code: u16, geographic: bool },
    /// A local engineering frame in metres (generated terrains): a user-defined projected CRS
    /// with metre units.
    Local,
    /// No CRS is written (an input whose CRS has no EPSG code): the transform only.
    Unknown,
}

impl Crs {
    /// Parses `EPSG:n` (any case), `local`, or a bare EPSG number. Geographic EPSG codes are
    /// told apart by their range (4000–4999, the EPSG geographic 2-D block).
    pub fn parse(s: &str) -> std::result::Result<Crs, String> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("local") {
            return Ok(Crs::Local);
        }
        let digits = t.strip_prefix("EPSG:").or_else(|| t.strip_prefix("epsg:")).unwrap_or(t);
        match digits.parse::<u32>() {
            Ok(code) if (1024..32767).contains(&code) => {
                let code = code as u16;
                Ok(Crs::Epsg { code, geographic: (4000..5000).contains(&code) })
            }
            Ok(code) => Err(format!("EPSG code {code} is outside 1024..32766")),
            Err(_) => Err(format!("{s:?} is not a CRS: give EPSG:<code> (e.g. EPSG:32633) or local")),
        }
    }

    /// `EPSG:n`, `local` or `unknown`.
    pub fn name(&self) -> String {
        match self {
            Crs::Epsg { code, .. } => format!("EPSG:{code}"),
            Crs::Local => "local".into(),
            Crs::Unknown => "unknown".into(),
        }
    }

    /// Whether the CRS units are degrees.
    pub fn is_geographic(&self) -> bool {
        matches!(self, Crs::Epsg { geographic: true, .. })
    }
}

/// Where a raster is: its CRS and the transform of its pixels (in the CRS's units).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeoRef {
    pub crs: Crs,
    pub transform: GeoTransform,
}

impl GeoRef {
    /// The local metre frame of a generated terrain: the raster's south-west corner at
    /// `origin` (CRS metres), pixels `dx × dy` metres.
    pub fn local(origin: (f64, f64), height_cells: usize, dx: f64, dy: f64) -> GeoRef {
        GeoRef {
            crs: Crs::Local,
            transform: GeoTransform { x0: origin.0, y0: origin.1 + height_cells as f64 * dy, sx: dx, sy: dy },
        }
    }

    /// The same georeference for the window of `width × height` pixels whose top-left pixel is
    /// `(col, row)` of this one.
    pub fn window(&self, col: usize, row: usize) -> GeoRef {
        let t = self.transform;
        GeoRef {
            crs: self.crs,
            transform: GeoTransform { x0: t.x0 + col as f64 * t.sx, y0: t.y0 - row as f64 * t.sy, ..t },
        }
    }

    /// The GDAL geotransform `[x0, sx, 0, y0, 0, −sy]`.
    pub fn gdal_transform(&self) -> [f64; 6] {
        let t = self.transform;
        [t.x0, t.sx, 0.0, t.y0, 0.0, -t.sy]
    }
}

/// The GeoKey directory (SHORTs) and ASCII parameters of `crs`.
pub(crate) fn geokeys(crs: Crs) -> Option<(Vec<u16>, Option<&'static str>)> {
    const CITATION: &str = "bozkir local engineering frame (metres)|";
    let mut keys: Vec<[u16; 4]> = Vec::new();
    match crs {
        Crs::Unknown => return None,
        Crs::Epsg { code, geographic } => {
            keys.push([1024, 0, 1, if geographic { 2 } else { 1 }]);
            keys.push([1025, 0, 1, 1]);
            keys.push(if geographic { [2048, 0, 1, code] } else { [3072, 0, 1, code] });
        }
        Crs::Local => {
            keys.push([1024, 0, 1, 1]);
            keys.push([1025, 0, 1, 1]);
            keys.push([1026, 34737, CITATION.len() as u16, 0]);
            keys.push([3072, 0, 1, 32767]);
            keys.push([3076, 0, 1, 9001]);
        }
    }
    let mut dir = vec![1, 1, 0, keys.len() as u16];
    dir.extend(keys.iter().flatten());
    Some((dir, matches!(crs, Crs::Local).then_some(CITATION)))
}

/// Writes `grid` as a float32 GeoTIFF, bit for bit, georeferenced by `geo` with NaN as its
/// no-data value: uncompressed strips, IFD before the data ([`TiffOptions::strips`]; tags in
/// the module docs). Refuses a non-finite or non-positive pixel size or a non-finite origin,
/// writing nothing. [`crate::write_geotiff_f32_opts`] writes COGs and compressed files.
///
/// # Examples
///
/// ```
/// use bozkir_core::{geo::GeoTransform, Grid};
/// use bozkir_io::{read_geotiff, write_geotiff_f32, Crs, CrsKind, GeoRef};
///
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("utm.tif");
/// let g = Grid::from_fn(4, 3, |x, y| (x + 10 * y) as f32);
/// let geo = GeoRef {
///     crs: Crs::Epsg { code: 32613, geographic: false },
///     transform: GeoTransform { x0: 450_000.0, y0: 4_430_000.0, sx: 30.0, sy: 30.0 },
/// };
/// write_geotiff_f32(&path, &g, &geo).unwrap();
/// let dem = read_geotiff(&path).unwrap();
/// assert_eq!(dem.crs_kind, CrsKind::Projected { epsg: Some(32613) });
/// assert_eq!(dem.georef, Some(geo.transform));
/// assert_eq!((dem.heights.dx, dem.heights.dy), (30.0, 30.0));
/// assert!(dem.nodata.unwrap().is_nan());
/// ```
pub fn write_geotiff_f32(path: impl AsRef<Path>, grid: &Grid<f32>, geo: &GeoRef) -> Result<()> {
    write_geotiff_f32_opts(path, grid, geo, &TiffOptions::strips())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{read_geotiff, read_tiff_f32, CrsKind};

    fn grid() -> Grid<f32> {
        Grid::from_fn(5, 4, |x, y| x as f32 - 2.5 * y as f32).with_cell_size(3.0, 3.0)
    }

    #[test]
    fn geographic_stays_in_degrees_and_reads_back_in_metres() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("geo.tif");
        let t = GeoTransform { x0: 10.0, y0: 46.0, sx: 1.0 / 3600.0, sy: 1.0 / 3600.0 };
        write_geotiff_f32(&p, &grid(), &GeoRef { crs: Crs::Epsg { code: 4326, geographic: true }, transform: t })
            .unwrap();
        let dem = read_geotiff(&p).unwrap();
        assert!(matches!(dem.crs_kind, CrsKind::Geographic { epsg: Some(4326), .. }), "{:?}", dem.crs_kind);
        assert_eq!(dem.georef, Some(t));
        // One arc-second at 46° N: about 21.5 m east-west, 30.9 m north-south.
        assert!((dem.heights.dx - 21.5).abs() < 0.2 && (dem.heights.dy - 30.9).abs() < 0.2, "{dem:?}");
        // The samples are the grid's, bit for bit.
        assert_eq!(read_tiff_f32(&p).unwrap().data(), grid().data());
    }

    #[test]
    fn local_frame_reads_back_as_a_projected_metre_frame() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("local.tif");
        let g = GeoRef::local((100.0, 200.0), 4, 3.0, 3.0);
        assert_eq!(g.transform, GeoTransform { x0: 100.0, y0: 212.0, sx: 3.0, sy: 3.0 });
        write_geotiff_f32(&p, &grid(), &g).unwrap();
        let dem = read_geotiff(&p).unwrap();
        assert_eq!(dem.crs_kind, CrsKind::Projected { epsg: None });
        assert_eq!((dem.georef, dem.heights.dx), (Some(g.transform), 3.0));
        // A window of it: the corner moves by whole pixels.
        assert_eq!(g.window(2, 1).transform, GeoTransform { x0: 106.0, y0: 209.0, sx: 3.0, sy: 3.0 });
        assert_eq!(g.gdal_transform(), [100.0, 3.0, 0.0, 212.0, 0.0, -3.0]);
    }

    #[test]
    fn unknown_crs_writes_the_transform_only() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("u.tif");
        let t = GeoTransform { x0: -5.0, y0: 7.0, sx: 2.0, sy: 0.5 };
        write_geotiff_f32(&p, &grid(), &GeoRef { crs: Crs::Unknown, transform: t }).unwrap();
        let dem = read_geotiff(&p).unwrap();
        assert_eq!((dem.crs_kind, dem.georef), (CrsKind::Unknown, Some(t)));
    }

    #[test]
    fn crs_names_parse_and_bad_ones_are_refused() {
        assert_eq!(Crs::parse("EPSG:32633"), Ok(Crs::Epsg { code: 32633, geographic: false }));
        assert_eq!(Crs::parse("epsg:4326"), Ok(Crs::Epsg { code: 4326, geographic: true }));
        assert_eq!(Crs::parse(" 2056 "), Ok(Crs::Epsg { code: 2056, geographic: false }));
        assert_eq!(Crs::parse("LOCAL"), Ok(Crs::Local));
        for bad in ["", "EPSG:", "EPSG:0", "EPSG:40000", "utm33", "EPSG:-1"] {
            assert!(Crs::parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(Crs::Epsg { code: 32633, geographic: false }.name(), "EPSG:32633");
    }

    #[test]
    fn bad_transforms_are_refused_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bad.tif");
        for t in [
            GeoTransform { x0: 0.0, y0: 0.0, sx: 0.0, sy: 1.0 },
            GeoTransform { x0: 0.0, y0: 0.0, sx: 1.0, sy: -1.0 },
            GeoTransform { x0: f64::NAN, y0: 0.0, sx: 1.0, sy: 1.0 },
            GeoTransform { x0: 0.0, y0: f64::INFINITY, sx: 1.0, sy: 1.0 },
            GeoTransform { x0: 0.0, y0: 0.0, sx: f64::NAN, sy: 1.0 },
        ] {
            let e = write_geotiff_f32(&p, &grid(), &GeoRef { crs: Crs::Local, transform: t }).unwrap_err();
            assert!(e.to_string().contains("bad.tif"), "{e}");
            assert!(!p.exists());
        }
    }
}

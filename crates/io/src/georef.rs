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
//!   (34737 `GeoAsciiParamsTag`) naming it; for an input's own CRS without EPSG code
//!   ([`Crs::Keys`]) the input's keys verbatim (but the raster type, always PixelIsArea here,
//!   and the vertical keys), their values laid out afresh in the directory, 34736
//!   `GeoDoubleParamsTag` and 34737 `GeoAsciiParamsTag`;
//! * 42113 `GDAL_NODATA` `nan`: the outputs mark no data with NaN.

use crate::error::Result;
use crate::geotiff_write::{write_geotiff_f32_opts, TiffOptions};
use bozkir_core::geo::GeoTransform;
use bozkir_core::Grid;
use std::path::Path;
use std::sync::Arc;

/// A coordinate reference system an output is written in.
///
/// Cheap to clone: [`Crs::Keys`] shares its key set.
#[derive(Debug, Clone, PartialEq)]
pub enum Crs {
    /// An EPSG code: geographic (degrees) or projected.
    Epsg { code: u16, geographic: bool },
    /// A local engineering frame in metres (generated terrains): a user-defined projected CRS
    /// with metre units.
    Local,
    /// An input's own GeoTIFF CRS definition, without an EPSG code (a user-defined projection,
    /// datum or ellipsoid): its GeoKeys, written back verbatim (see [`GeoKeySet::horizontal`]).
    Keys(Arc<GeoKeySet>),
    /// No CRS is written (an input without GeoKeys): the transform only.
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

    /// The CRS an output carries for an input's GeoKeys `keys` (no EPSG code): their
    /// horizontal part ([`GeoKeySet::horizontal`]), or [`Crs::Local`] when they are exactly the
    /// keys bozkir writes for its local frame, or [`Crs::Unknown`] when there are none (only a
    /// raster type or a vertical CRS).
    pub fn from_keys(keys: &GeoKeySet) -> Crs {
        let h = keys.horizontal();
        if h.keys.is_empty() {
            Crs::Unknown
        } else if h == local_keys() {
            Crs::Local
        } else {
            Crs::Keys(Arc::new(h))
        }
    }

    /// `EPSG:n`, `local`, the carried keys' name ([`GeoKeySet::name`]) or `unknown`.
    pub fn name(&self) -> String {
        match self {
            Crs::Epsg { code, .. } => format!("EPSG:{code}"),
            Crs::Local => "local".into(),
            Crs::Keys(k) => k.name(),
            Crs::Unknown => "unknown".into(),
        }
    }

    /// Whether the CRS units are degrees.
    pub fn is_geographic(&self) -> bool {
        match self {
            Crs::Epsg { geographic, .. } => *geographic,
            Crs::Keys(k) => k.is_geographic(),
            Crs::Local | Crs::Unknown => false,
        }
    }
}
/// One GeoKey's value, whatever its storage in the file (inline SHORT, SHORTs in the directory,
/// `GeoDoubleParamsTag` or `GeoAsciiParamsTag`).
#[derive(Debug, Clone, PartialEq)]
pub enum GeoKeyValue {
    Short(Vec<u16>),
    Double(Vec<f64>),
    /// The text without its terminating `|`.
    Ascii(String),
}

/// A GeoTIFF CRS definition as an input file had it: its GeoKeys with their values, ascending
/// by key id, each once, and the directory's version numbers. Carried verbatim into the outputs
/// of an input whose CRS has no EPSG code ([`Crs::Keys`]).
#[derive(Debug, Clone, PartialEq)]
pub struct GeoKeySet {
    version: [u16; 3],
    keys: Vec<(u16, GeoKeyValue)>,
}

/// `GTRasterTypeGeoKey`: written by us (PixelIsArea), never carried.
const RASTER_TYPE_KEY: u16 = 1025;
/// The vertical CRS keys (`VerticalCSTypeGeoKey` … `VerticalUnitsGeoKey`): not carried.
const VERTICAL_KEYS: std::ops::RangeInclusive<u16> = 4096..=4099;
/// What the sidecar calls a key set without a usable citation.
pub const USER_DEFINED_KEYS: &str = "user-defined (GeoTIFF keys)";

impl GeoKeySet {
    /// The keys `keys` (any order) of a directory of version `version` (`KeyDirectoryVersion`,
    /// `KeyRevision`, `MinorRevision`). Refuses a key given twice, an empty value, and a set
    /// whose directory, doubles or text would not fit the SHORT offsets of a GeoKey directory.
    pub fn new(version: [u16; 3], mut keys: Vec<(u16, GeoKeyValue)>) -> std::result::Result<GeoKeySet, String> {
        keys.sort_by_key(|k| k.0);
        if let Some(w) = keys.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(format!("GeoKey {} given twice", w[0].0));
        }
        let (mut shorts, mut doubles, mut text) = (4 + 4 * (keys.len() + 1), 0usize, 0usize);
        for (id, v) in &keys {
            match v {
                GeoKeyValue::Short(s) if s.is_empty() => return Err(format!("GeoKey {id} has no value")),
                GeoKeyValue::Double(d) if d.is_empty() => return Err(format!("GeoKey {id} has no value")),
                GeoKeyValue::Short(s) if s.len() > 1 => shorts += s.len(),
                GeoKeyValue::Short(_) => {}
                GeoKeyValue::Double(d) => doubles += d.len(),
                GeoKeyValue::Ascii(a) => text += a.len() + 1,
            }
        }
        let max = usize::from(u16::MAX);
        if shorts > max || doubles > max || text > max {
            return Err(format!("GeoKeys too large ({shorts} SHORTs, {doubles} doubles, {text} bytes of text)"));
        }
        Ok(GeoKeySet { version, keys })
    }

    /// The keys, ascending by id.
    pub fn keys(&self) -> &[(u16, GeoKeyValue)] {
        &self.keys
    }

    /// `KeyDirectoryVersion`, `KeyRevision`, `MinorRevision` of the directory.
    pub fn version(&self) -> [u16; 3] {
        self.version
    }

    /// The value of key `id`.
    pub fn get(&self, id: u16) -> Option<&GeoKeyValue> {
        self.keys.binary_search_by_key(&id, |k| k.0).ok().map(|i| &self.keys[i].1)
    }

    /// The single SHORT value of key `id`.
    pub fn short(&self, id: u16) -> Option<u16> {
        match self.get(id) {
            Some(GeoKeyValue::Short(s)) if s.len() == 1 => Some(s[0]),
            _ => None,
        }
    }

    /// The keys an output carries: all but the raster type (outputs are PixelIsArea, their
    /// transform the pixels' outer corner) and the vertical CRS (the heights were converted to
    /// metres, and most outputs are not heights).
    pub fn horizontal(&self) -> GeoKeySet {
        let keys =
            self.keys.iter().filter(|(id, _)| *id != RASTER_TYPE_KEY && !VERTICAL_KEYS.contains(id)).cloned().collect();
        GeoKeySet { version: self.version, keys }
    }

    /// A readable name: the first usable citation (`GTCitationGeoKey`, `PCSCitationGeoKey`,
    /// then `GeogCitationGeoKey`), else [`USER_DEFINED_KEYS`]. GDAL's `GCS Name = …|Datum = …`
    /// and `ESRI PE String = PROJCS["name",…` forms give their name.
    pub fn name(&self) -> String {
        [1026, 3073, 2049]
            .iter()
            .filter_map(|&id| match self.get(id) {
                Some(GeoKeyValue::Ascii(a)) => citation_name(a),
                _ => None,
            })
            .next()
            .unwrap_or_else(|| USER_DEFINED_KEYS.to_string())
    }

    /// Whether the model type is geographic (`GTModelTypeGeoKey` 2).
    pub fn is_geographic(&self) -> bool {
        self.short(1024) == Some(2)
    }

    /// The GeoKey directory (SHORTs), the double parameters and the ASCII parameters (each text
    /// followed by `|`) of these keys, with `GTRasterTypeGeoKey` PixelIsArea added unless given.
    fn tags(&self) -> GeoKeyTags {
        let mut keys: Vec<(u16, &GeoKeyValue)> = self.keys.iter().map(|(id, v)| (*id, v)).collect();
        let area = GeoKeyValue::Short(vec![1]);
        if self.get(RASTER_TYPE_KEY).is_none() {
            let at = keys.partition_point(|k| k.0 < RASTER_TYPE_KEY);
            keys.insert(at, (RASTER_TYPE_KEY, &area));
        }
        let [v, r, m] = self.version;
        let mut dir = vec![v, r, m, keys.len() as u16];
        let mut extra: Vec<u16> = Vec::new();
        let (mut doubles, mut ascii) = (Vec::new(), String::new());
        let extra_at = 4 + 4 * keys.len();
        for (id, value) in keys {
            match value {
                GeoKeyValue::Short(s) if s.len() == 1 => dir.extend([id, 0, 1, s[0]]),
                GeoKeyValue::Short(s) => {
                    dir.extend([id, 34735, s.len() as u16, (extra_at + extra.len()) as u16]);
                    extra.extend(s);
                }
                GeoKeyValue::Double(d) => {
                    dir.extend([id, 34736, d.len() as u16, doubles.len() as u16]);
                    doubles.extend(d);
                }
                GeoKeyValue::Ascii(a) => {
                    dir.extend([id, 34737, a.len() as u16 + 1, ascii.len() as u16]);
                    ascii.push_str(a);
                    ascii.push('|');
                }
            }
        }
        dir.extend(extra);
        GeoKeyTags {
            dir,
            doubles: (!doubles.is_empty()).then_some(doubles),
            ascii: (!ascii.is_empty()).then_some(ascii),
        }
    }
}

/// The name a citation gives, if it is a usable one (not empty, `unknown` or `unnamed`).
fn citation_name(c: &str) -> Option<String> {
    let c = c.trim_matches(|ch: char| ch == '\0' || ch.is_whitespace());
    let name = if let Some(pe) = c.strip_prefix("ESRI PE String = ") {
        // PROJCS["name",… or GEOGCS["name",…
        pe.split('"').nth(1).unwrap_or(pe)
    } else if let Some(i) = c.find("PCS Name = ").or_else(|| c.find("GCS Name = ")) {
        c[i + 11..].split('|').next().unwrap_or("")
    } else {
        c.split('|').next().unwrap_or("")
    };
    let name = name.trim();
    let useless = name.is_empty() || name.eq_ignore_ascii_case("unknown") || name.eq_ignore_ascii_case("unnamed");
    (!useless).then(|| name.to_string())
}

/// The GeoTIFF tags of a CRS: 34735 (SHORTs), 34736 (doubles) and 34737 (text), the last two
/// when there is something to put in them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GeoKeyTags {
    pub dir: Vec<u16>,
    pub doubles: Option<Vec<f64>>,
    pub ascii: Option<String>,
}

/// Where a raster is: its CRS and the transform of its pixels (in the CRS's units).
#[derive(Debug, Clone, PartialEq)]
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
            crs: self.crs.clone(),
            transform: GeoTransform { x0: t.x0 + col as f64 * t.sx, y0: t.y0 - row as f64 * t.sy, ..t },
        }
    }

    /// The GDAL geotransform `[x0, sx, 0, y0, 0, −sy]`.
    pub fn gdal_transform(&self) -> [f64; 6] {
        let t = self.transform;
        [t.x0, t.sx, 0.0, t.y0, 0.0, -t.sy]
    }
}

/// The citation of the local frame, without its terminating `|`.
const LOCAL_CITATION: &str = "bozkir local engineering frame (metres)";

/// The keys of the local frame (without the raster type).
fn local_keys() -> GeoKeySet {
    let short = |v| GeoKeyValue::Short(vec![v]);
    let keys = vec![
        (1024, short(1)),
        (1026, GeoKeyValue::Ascii(LOCAL_CITATION.into())),
        (3072, short(32767)),
        (3076, short(9001)),
    ];
    GeoKeySet { version: [1, 1, 0], keys }
}

/// The GeoKey directory (SHORTs), double and ASCII parameters of `crs`; `None` for
/// [`Crs::Unknown`].
pub(crate) fn geokeys(crs: &Crs) -> Option<GeoKeyTags> {
    let short = |v| GeoKeyValue::Short(vec![v]);
    let set = match crs {
        Crs::Unknown => return None,
        Crs::Epsg { code, geographic } => GeoKeySet {
            version: [1, 1, 0],
            keys: vec![
                (1024, short(if *geographic { 2 } else { 1 })),
                (if *geographic { 2048 } else { 3072 }, short(*code)),
            ],
        },
        Crs::Local => local_keys(),
        Crs::Keys(k) => return Some(k.tags()),
    };
    Some(set.tags())
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
    fn key_sets_lay_out_their_values_and_name_themselves() {
        let k = GeoKeySet::new(
            [1, 1, 1],
            vec![
                (3078, GeoKeyValue::Double(vec![37.5])),
                (1026, GeoKeyValue::Ascii("A|B".into())),
                (1024, GeoKeyValue::Short(vec![1])),
                (3090, GeoKeyValue::Short(vec![7, 8])),
                (3073, GeoKeyValue::Ascii("PCS".into())),
                (3079, GeoKeyValue::Double(vec![41.0, 2.0])),
            ],
        )
        .unwrap();
        let t = k.tags();
        // Header (the version kept), 7 keys in ascending order with the raster type added, then
        // the two SHORTs of key 3090 at 4 + 7·4 = 32.
        #[rustfmt::skip]
        assert_eq!(t.dir, vec![
            1, 1, 1, 7,
            1024, 0, 1, 1,
            1025, 0, 1, 1,
            1026, 34737, 4, 0,
            3073, 34737, 4, 4,
            3078, 34736, 1, 0,
            3079, 34736, 2, 1,
            3090, 34735, 2, 32,
            7, 8,
        ]);
        assert_eq!(t.doubles, Some(vec![37.5, 41.0, 2.0]));
        assert_eq!(t.ascii.as_deref(), Some("A|B|PCS|"));
        assert_eq!(Crs::Keys(Arc::new(k.clone())).name(), "A");
        assert!(!Crs::Keys(Arc::new(k)).is_geographic());

        let named =
            |c: &str, id: u16| GeoKeySet::new([1, 1, 0], vec![(id, GeoKeyValue::Ascii(c.into()))]).unwrap().name();
        assert_eq!(named("GCS Name = Bessel custom|Datum = x|", 2049), "Bessel custom");
        assert_eq!(named("ESRI PE String = PROJCS[\"My LCC\",GEOGCS[…]]", 1026), "My LCC");
        assert_eq!(named("unknown", 1026), USER_DEFINED_KEYS);
        assert_eq!(named(" ", 3073), USER_DEFINED_KEYS);
        assert_eq!(GeoKeySet::new([1, 1, 0], vec![]).unwrap().name(), USER_DEFINED_KEYS);
        // The raster type and the vertical keys are not carried.
        let all = GeoKeySet::new(
            [1, 1, 0],
            [1024, 1025, 4096, 4099, 3072].iter().map(|&id| (id, GeoKeyValue::Short(vec![2]))).collect(),
        )
        .unwrap();
        assert_eq!(all.horizontal().keys().iter().map(|k| k.0).collect::<Vec<_>>(), [1024, 3072]);
        // Refused: a key twice, an empty value, more text than SHORT offsets reach.
        let s = |v: Vec<u16>| GeoKeyValue::Short(v);
        assert!(GeoKeySet::new([1, 1, 0], vec![(1024, s(vec![1])), (1024, s(vec![2]))]).is_err());
        assert!(GeoKeySet::new([1, 1, 0], vec![(1024, s(vec![]))]).is_err());
        assert!(GeoKeySet::new([1, 1, 0], vec![(1026, GeoKeyValue::Ascii("x".repeat(70_000)))]).is_err());
    }

    #[test]
    fn epsg_and_local_keys_keep_their_layout() {
        let utm = geokeys(&Crs::Epsg { code: 32633, geographic: false }).unwrap();
        assert_eq!(utm.dir, vec![1, 1, 0, 3, 1024, 0, 1, 1, 1025, 0, 1, 1, 3072, 0, 1, 32633]);
        assert_eq!((utm.doubles, utm.ascii), (None, None));
        let local = geokeys(&Crs::Local).unwrap();
        let n = LOCAL_CITATION.len() as u16 + 1;
        #[rustfmt::skip]
        assert_eq!(local.dir, vec![1, 1, 0, 5, 1024, 0, 1, 1, 1025, 0, 1, 1, 1026, 34737, n, 0, 3072, 0, 1, 32767, 3076, 0, 1, 9001]);
        assert_eq!(local.ascii, Some(format!("{LOCAL_CITATION}|")));
        assert_eq!(Crs::from_keys(&local_keys()), Crs::Local);
        let raster_type_only = GeoKeySet::new([1, 1, 0], vec![(1025, GeoKeyValue::Short(vec![2]))]).unwrap();
        assert_eq!(Crs::from_keys(&raster_type_only), Crs::Unknown);
        assert_eq!(geokeys(&Crs::Unknown), None);
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

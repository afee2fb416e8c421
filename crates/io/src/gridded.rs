//! DEMs in the gridded formats of the climate and Earth-observation tools: NetCDF (classic
//! CDF-1/2/5 and NetCDF-4 on HDF5, read by the pure-Rust `netcdf-reader`) and Zarr (v2 and v3
//! directory stores, read by [`crate::zarr`]; Blosc, zstd, gzip, zlib, LZ4 and uncompressed chunks).
//!
//! Both are read through one model: named arrays with named dimensions and attributes, as
//! xarray, GDAL and the CF conventions lay them out.
//!
//! * **Elevation**: the first array (of two or more dimensions, any leading ones of size 1,
//!   e.g. a single time step) named `elevation`, `elev`, `dem`, `height`, `heights`, `z`,
//!   `data`, `band1`, `Band1`, `topo`, `altitude` or `orog` (the NPZ names, GDAL's default band
//!   name and common model names), else the one whose CF `standard_name` is `height`,
//!   `altitude`, `surface_altitude` or `sea_floor_depth_below_geoid` (depths negated), else the
//!   only such array. Anything else is refused, listing the arrays.
//! * **Coordinates**: the 1-D arrays named after the elevation's last two dimensions (CF
//!   coordinate variables; a Zarr array's dimensions are its `dimension_names` (v3) or xarray's
//!   `_ARRAY_DIMENSIONS` attribute (v2)). They are checked like the NPZ's: the right length,
//!   finite, strictly monotone, evenly spaced; rows are reordered north first and columns west
//!   first. Degrees when the `units` attribute starts with `degree` (CF's `degrees_north`,
//!   `degrees_east`) or, without units, when the name is `lat`, `latitude`, `lon` or
//!   `longitude`; otherwise the linear units heights take (below: `m` or none, `km`, feet);
//!   any other unit is refused, naming it.
//! * **Values**: `_FillValue` and `missing_value` (as stored, before unpacking; for Zarr v2 also
//!   the array's `fill_value` when it is not null) are nodata, NaN is nodata; then
//!   `scale_factor` and `add_offset` are applied (CF packing) and the elevation's `units`
//!   converted to metres (`m` or none: as is; `km`: × 1000; `ft`, `foot`, `feet`: × 0.3048;
//!   `US_survey_foot`: × 1200/3937; anything else refused). Heights outside
//!   [`crate::dem::VALID_HEIGHT_RANGE`] become NaN, as for every DEM. A Zarr v3 array's
//!   `fill_value` is not nodata (it only fills chunks never written; v3 requires one, 0 for
//!   integers).
//! * **CRS**: the elevation's `grid_mapping` attribute names a variable whose `crs_wkt` or
//!   `spatial_ref` (GDAL, rioxarray) WKT ends with an EPSG authority, or whose `epsg_code` is
//!   `EPSG:n`; that code is the DEM's CRS. Without one, degrees mean WGS 84 (EPSG:4326) and
//!   metres mean no CRS. Outputs then carry the code and the coordinates' transform.
//!
//! Everything comes from the reading crates' own decoders, so every filter and codec they
//! support works; an unsupported one is refused with their message and the file's name.

use crate::coords::{check_axis, place};
use crate::dem::{clean_heights, Dem};
use crate::error::{IoError, Result};
use crate::limits::check_raster_size;
use std::collections::BTreeMap;
use std::path::Path;

/// One attribute value: numbers (any numeric type, as f64) or text.
#[derive(Debug, Clone, PartialEq)]
enum Attr {
    Num(Vec<f64>),
    Text(String),
}

impl Attr {
    fn num(&self) -> Option<f64> {
        match self {
            Attr::Num(v) if v.len() == 1 => Some(v[0]),
            _ => None,
        }
    }
    fn text(&self) -> Option<&str> {
        match self {
            Attr::Text(s) => Some(s.as_str()),
            _ => None,
        }
    }
}

/// An array of the file: its name, its dimensions' names and sizes, its attributes.
#[derive(Debug, Clone)]
struct Var {
    name: String,
    dims: Vec<String>,
    shape: Vec<usize>,
    attrs: BTreeMap<String, Attr>,
    /// Zarr v2's `fill_value` (when not null): nodata like `_FillValue`.
    fill: Option<f64>,
}

impl Var {
    fn attr_text(&self, key: &str) -> Option<&str> {
        self.attrs.get(key).and_then(Attr::text)
    }
}

/// A file seen as named arrays: their descriptions and a way to read one's values as f64.
trait Arrays {
    fn format(&self) -> &'static str;
    fn vars(&self) -> &[Var];
    /// Every value of the array, row-major, as stored (before masking or unpacking).
    fn read(&self, var: &Var) -> Result<Vec<f64>>;
}

const ELEVATION_NAMES: [&str; 12] =
    ["elevation", "elev", "dem", "height", "heights", "z", "data", "band1", "Band1", "topo", "altitude", "orog"];
const ELEVATION_STANDARD_NAMES: [&str; 4] = ["height", "altitude", "surface_altitude", "sea_floor_depth_below_geoid"];
const DEGREE_NAMES: [&str; 4] = ["lat", "latitude", "lon", "longitude"];

/// The elevation array (see the module docs) and whether its values are depths.
fn elevation<'a>(path: &Path, a: &'a dyn Arrays) -> Result<(&'a Var, bool)> {
    // Two or more dimensions, all but the last two of size 1.
    let grids: Vec<&Var> = a
        .vars()
        .iter()
        .filter(|v| v.shape.len() >= 2 && v.shape[..v.shape.len() - 2].iter().all(|&n| n == 1))
        .collect();
    let depth = |v: &Var| v.attr_text("standard_name") == Some("sea_floor_depth_below_geoid");
    if let Some(v) = ELEVATION_NAMES.iter().find_map(|n| grids.iter().find(|v| v.name == *n)) {
        return Ok((v, depth(v)));
    }
    if let Some(v) =
        grids.iter().find(|v| v.attr_text("standard_name").is_some_and(|s| ELEVATION_STANDARD_NAMES.contains(&s)))
    {
        return Ok((v, depth(v)));
    }
    if let [v] = grids.as_slice() {
        return Ok((v, depth(v)));
    }
    let names: Vec<String> = a.vars().iter().map(|v| format!("{} {:?}", v.name, v.shape)).collect();
    Err(IoError::missing(
        path,
        format!(
            "{} elevation array: none is named {} or has a height standard_name{} (arrays: {})",
            a.format(),
            ELEVATION_NAMES.join("/"),
            if grids.len() > 1 { ", and there is more than one grid" } else { "" },
            names.join(", ")
        ),
    ))
}

/// Metres per unit of `units` for heights (`None` for a unit we do not know).
fn height_unit(units: Option<&str>) -> Option<f64> {
    let u = units.map(str::trim).unwrap_or("");
    match u.to_ascii_lowercase().as_str() {
        "" | "m" | "metre" | "metres" | "meter" | "meters" => Some(1.0),
        "km" | "kilometre" | "kilometres" | "kilometer" | "kilometers" => Some(1000.0),
        "ft" | "foot" | "feet" | "international_foot" => Some(0.3048),
        "us_survey_foot" | "us survey foot" | "ftus" => Some(1200.0 / 3937.0),
        _ => None,
    }
}

/// The axis of coordinate array `v`: degrees or not, and the factor to the unit of its values
/// (1 for degrees and metres, else [`height_unit`]'s: 1000 for km, 0.3048 for feet); `None` for
/// a unit we do not know.
fn axis_unit(v: &Var) -> Option<(bool, f64)> {
    match v.attr_text("units").map(|u| u.trim().to_ascii_lowercase()) {
        Some(u) if u.starts_with("degree") => Some((true, 1.0)),
        // The linear units heights take (m, km, feet), so both axes and heights read one list.
        Some(u) if !u.is_empty() => height_unit(Some(&u)).map(|f| (false, f)),
        Some(_) => Some((false, 1.0)),
        None => Some((DEGREE_NAMES.contains(&v.name.to_ascii_lowercase().as_str()), 1.0)),
    }
}

/// The EPSG code at the end of a WKT string (WKT1's `AUTHORITY["EPSG","n"]` or WKT2's
/// `ID["EPSG",n]`, the last one being the CRS's own).
fn epsg_of_wkt(wkt: &str) -> Option<u16> {
    let at = wkt.rfind("\"EPSG\"")?;
    let rest = &wkt[at + 6..];
    let digits: String = rest
        .trim_start_matches([',', ' '])
        .trim_start_matches('"')
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    // The CRS's own ID closes the WKT: nothing but brackets may follow it.
    let tail = rest.find(']').map(|i| &rest[i..]).unwrap_or("");
    if !tail.chars().all(|c| c == ']' || c.is_whitespace()) {
        return None;
    }
    digits.parse::<u16>().ok().filter(|&c| c >= 1024)
}

/// The EPSG code of the elevation's grid mapping, if it declares one.
fn epsg_of(a: &dyn Arrays, elev: &Var) -> Option<u16> {
    let gm = elev.attr_text("grid_mapping")?;
    let var = a.vars().iter().find(|v| v.name == gm.trim())?;
    if let Some(code) = var.attr_text("epsg_code").and_then(|s| {
        let t = s.trim();
        t.strip_prefix("EPSG:").or_else(|| t.strip_prefix("epsg:")).unwrap_or(t).parse::<u16>().ok()
    }) {
        return Some(code);
    }
    ["crs_wkt", "spatial_ref"].iter().find_map(|k| var.attr_text(k).and_then(epsg_of_wkt))
}

/// The DEM of a file seen as [`Arrays`] (see the module docs).
fn dem_of(path: &Path, a: &dyn Arrays) -> Result<Dem> {
    let format = a.format();
    let (elev, depths) = elevation(path, a)?;
    let nd = elev.shape.len();
    let (h, w) = (elev.shape[nd - 2], elev.shape[nd - 1]);
    let (width, height) = check_raster_size(path, w as u64, h as u64)?;
    let to_metres = height_unit(elev.attr_text("units")).ok_or_else(|| {
        IoError::unsupported(
            path,
            format!(
                "{}: height units {:?} (use m, km, ft or US_survey_foot)",
                elev.name,
                elev.attr_text("units").unwrap_or("")
            ),
        )
    })?;
    // Coordinates: the arrays named after the last two dimensions.
    let coordinate = |dim: &str, what: &str| -> Result<&Var> {
        a.vars().iter().find(|v| v.name == dim && v.shape.len() == 1).ok_or_else(|| {
            IoError::missing(
                path,
                format!(
                    "{format} coordinate array {dim:?} for the elevation's {what} (dimensions {:?}): \
                     without it the grid cannot be placed",
                    elev.dims
                ),
            )
        })
    };
    let (yv, xv) = (coordinate(&elev.dims[nd - 2], "rows")?, coordinate(&elev.dims[nd - 1], "columns")?);
    let mut axes = Vec::with_capacity(2);
    for (v, n, what) in [(xv, width, "columns"), (yv, height, "rows")] {
        let (degrees, factor) = axis_unit(v).ok_or_else(|| {
            IoError::unsupported(
                path,
                format!(
                    "{}: coordinate units {:?} (use degrees_east/degrees_north, m or km)",
                    v.name,
                    v.attr_text("units").unwrap_or("")
                ),
            )
        })?;
        let values: Vec<f64> = a.read(v)?.into_iter().map(|x| x * factor).collect();
        axes.push(check_axis(path, format, &v.name, degrees, &values, n, what)?);
    }

    let nodata: Vec<f64> = ["_FillValue", "missing_value"]
        .iter()
        .filter_map(|k| elev.attrs.get(*k))
        .flat_map(|v| match v {
            Attr::Num(n) => n.clone(),
            Attr::Text(_) => Vec::new(),
        })
        .chain(elev.fill)
        .filter(|v| !v.is_nan())
        .collect();
    let scale = elev.attrs.get("scale_factor").and_then(Attr::num).unwrap_or(1.0);
    let offset = elev.attrs.get("add_offset").and_then(Attr::num).unwrap_or(0.0);
    if !(scale.is_finite() && scale != 0.0 && offset.is_finite()) {
        return Err(IoError::malformed(
            path,
            format,
            format!("{}: scale_factor {scale} and add_offset {offset} must be finite, the scale not 0", elev.name),
        ));
    }
    let sign = if depths { -1.0 } else { 1.0 };
    let raw = a.read(elev)?;
    let heights = clean_heights(
        path,
        width,
        height,
        raw.iter().map(|&v| (sign * (v * scale + offset), nodata.contains(&v))),
        to_metres,
    )?;
    let mut dem = place(path, format, heights, &axes[0], &axes[1], epsg_of(a, elev))?;
    dem.nodata = nodata.first().copied();
    Ok(dem)
}

// ---------------------------------------------------------------------------------------------
// NetCDF

struct NetCdf {
    file: netcdf_reader::NcFile,
    vars: Vec<Var>,
    path: std::path::PathBuf,
}

fn nc_attr(v: &netcdf_reader::NcAttrValue) -> Attr {
    match v.as_f64_vec() {
        Some(n) => Attr::Num(n),
        None => Attr::Text(v.as_string().unwrap_or_default()),
    }
}

fn nc_err(path: &Path, e: netcdf_reader::Error) -> IoError {
    match e {
        netcdf_reader::Error::Io(io) => IoError::io(path, io),
        netcdf_reader::Error::InvalidMagic => {
            IoError::malformed(path, "NetCDF", "not a NetCDF file (neither CDF nor HDF5 magic bytes)")
        }
        netcdf_reader::Error::UnsupportedFeature(f) => IoError::unsupported(path, format!("NetCDF feature: {f}")),
        other => IoError::malformed(path, "NetCDF", other.to_string()),
    }
}

impl Arrays for NetCdf {
    fn format(&self) -> &'static str {
        "NetCDF"
    }
    fn vars(&self) -> &[Var] {
        &self.vars
    }
    fn read(&self, var: &Var) -> Result<Vec<f64>> {
        let data = self.file.read_variable_as_f64(&var.name).map_err(|e| nc_err(&self.path, e))?;
        let n: usize = var.shape.iter().product();
        let v: Vec<f64> = data.iter().copied().collect();
        if v.len() != n {
            return Err(IoError::truncated(&self.path, format!("{}: {} values read, {n} declared", var.name, v.len())));
        }
        Ok(v)
    }
}

/// Read a DEM from a NetCDF file (classic or NetCDF-4; see the module docs).
pub fn read_netcdf_dem(path: impl AsRef<Path>) -> Result<Dem> {
    let path = path.as_ref();
    let file = netcdf_reader::NcFile::open(path).map_err(|e| nc_err(path, e))?;
    let vars = file
        .variables()
        .map_err(|e| nc_err(path, e))?
        .iter()
        .map(|v| Var {
            name: v.name().to_owned(),
            dims: v.dimensions().iter().map(|d| d.name.clone()).collect(),
            shape: v.shape().iter().map(|&n| n as usize).collect(),
            attrs: v.attributes().iter().map(|a| (a.name.clone(), nc_attr(&a.value))).collect(),
            fill: None,
        })
        .collect();
    dem_of(path, &NetCdf { file, vars, path: path.to_path_buf() })
}

// ---------------------------------------------------------------------------------------------
// Zarr

struct Zarr {
    arrays: Vec<crate::zarr::ZarrArray>,
    vars: Vec<Var>,
    path: std::path::PathBuf,
}

impl Arrays for Zarr {
    fn format(&self) -> &'static str {
        "Zarr"
    }
    fn vars(&self) -> &[Var] {
        &self.vars
    }
    fn read(&self, var: &Var) -> Result<Vec<f64>> {
        let i = self.vars.iter().position(|v| v.name == var.name).expect("a variable of this file");
        self.arrays[i].read(&self.path)
    }
}

fn json_attr(v: &serde_json::Value) -> Option<Attr> {
    match v {
        serde_json::Value::String(s) => {
            Some(crate::zarr::json_number(v).map_or_else(|| Attr::Text(s.clone()), |x| Attr::Num(vec![x])))
        }
        serde_json::Value::Array(a) => {
            let n: Option<Vec<f64>> = a.iter().map(serde_json::Value::as_f64).collect();
            n.map(Attr::Num)
        }
        other => crate::zarr::json_number(other).map(|x| Attr::Num(vec![x])),
    }
}

/// Read a DEM from a Zarr v2 or v3 directory store: a group of arrays, or one array (see the
/// module docs and [`crate::zarr`] for what is read).
pub fn read_zarr_dem(path: impl AsRef<Path>) -> Result<Dem> {
    let path = path.as_ref();
    let arrays = crate::zarr::open_store(path)?;
    let vars = arrays
        .iter()
        .map(|a| {
            let mut attrs: BTreeMap<String, Attr> =
                a.attrs.iter().filter_map(|(k, v)| json_attr(v).map(|x| (k.clone(), x))).collect();
            // xarray writes a float _FillValue of a v3 array as the base64 of its bytes; a
            // float's NaN is nodata anyway, so only numbers matter here.
            if matches!(attrs.get("_FillValue"), Some(Attr::Text(_))) {
                attrs.remove("_FillValue");
            }
            let name = if a.name.is_empty() { "data".to_string() } else { a.name.clone() };
            let dims =
                a.dims.clone().unwrap_or_else(|| (0..a.shape.len()).map(|i| format!("{name}_dim_{i}")).collect());
            Var { name, dims, shape: a.shape.clone(), attrs, fill: a.v2_fill }
        })
        .collect();
    dem_of(path, &Zarr { arrays, vars, path: path.to_path_buf() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epsg_is_the_wkt_crs_own_authority() {
        let wkt1 = r#"PROJCS["x",GEOGCS["WGS 84",AUTHORITY["EPSG","4326"]],UNIT["metre",1,AUTHORITY["EPSG","9001"]],AUTHORITY["EPSG","32616"]]"#;
        assert_eq!(epsg_of_wkt(wkt1), Some(32616));
        let wkt2 = r#"PROJCRS["x",BASEGEOGCRS["WGS 84",ID["EPSG",4326]],ID["EPSG",32633]]"#;
        assert_eq!(epsg_of_wkt(wkt2), Some(32633));
        // The last EPSG ID belongs to a unit, not to the CRS: no code.
        let inner = r#"PROJCS["x",UNIT["metre",1,AUTHORITY["EPSG","9001"]],PARAMETER["k",1]]"#;
        assert_eq!(epsg_of_wkt(inner), None);
        assert_eq!(epsg_of_wkt("LOCAL_CS[\"x\"]"), None);
    }

    #[test]
    fn units_are_known_or_refused() {
        assert_eq!(height_unit(None), Some(1.0));
        assert_eq!(height_unit(Some("metres")), Some(1.0));
        assert_eq!(height_unit(Some("ft")), Some(0.3048));
        assert_eq!(height_unit(Some("km")), Some(1000.0));
        assert_eq!(height_unit(Some("furlong")), None);
        let var = |name: &str, units: Option<&str>| Var {
            name: name.into(),
            dims: vec![name.into()],
            shape: vec![3],
            attrs: units.map(|u| ("units".to_string(), Attr::Text(u.into()))).into_iter().collect(),
            fill: None,
        };
        assert_eq!(axis_unit(&var("x", Some("degrees_east"))), Some((true, 1.0)));
        assert_eq!(axis_unit(&var("lat", None)), Some((true, 1.0)));
        assert_eq!(axis_unit(&var("x", None)), Some((false, 1.0)));
        assert_eq!(axis_unit(&var("x", Some("km"))), Some((false, 1000.0)));
        assert_eq!(axis_unit(&var("x", Some("radians"))), None);
    }
}

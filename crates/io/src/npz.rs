//! NumPy `.npz` DEMs (a zip of `.npy` arrays, stored or deflated).
//!
//! The elevation array is the first 2-D entry named `elevation`, `elev`, `dem`, `height`,
//! `heights`, `z` or `data`, else the only 2-D entry. Row 0 is taken as the top (north) edge.
//! Optional 0-d (or one-element) entries give the georeference:
//!
//! * `dx`, `dy`: column and row spacing (missing: 1 m each; 0, negative, NaN or infinite:
//!   refused);
//! * `xmin`, `xmax`, `ymin`, `ymax`: bounds. When all four are present, lie in
//!   longitude/latitude ranges, the spacings are below 1 and `|xmax − xmin|` matches `dx`
//!   times the number of columns (or columns − 1) within 1 %, the spacing is degrees and is
//!   converted to metres at the centre latitude `(ymin + ymax) / 2` (see [`crate::dem`]);
//!   otherwise the spacing is taken as metres.
//!
//!
//! Or, as xarray and netCDF tools export them, 1-D coordinate arrays of cell centres: `x`,
//! `lon` or `longitude` for the columns and `y`, `lat` or `latitude` for the rows (both axes
//! needed), ascending or descending. They must match the elevation's size, be finite, strictly
//! monotone and evenly spaced (each step within 0.1 % of the mean, or within 4 units in the last
//! place of the largest value at the precision the values are stored in: float32 coordinate
//! arrays, common in netCDF exports, round their steps by more than 0.1 % at fine spacings);
//! anything else is refused, naming the entry. `lon`/`lat` names mean degrees (taken as WGS 84, EPSG:4326; cells converted
//! to metres at the centre latitude), `x`/`y` metres. Rows are reordered north first and columns
//! west first, so a south-first array is not mirrored; the georeference is kept for the outputs.
//! `dx`/`dy` beside them must agree with their spacing within 1 %.
//!
//! Matplotlib's `jacksboro_fault_dem.npz` holds `elevation` (int16, 344×403), `dx`, `dy`
//! (1/1200°, i.e. 3″), `xmin`, `xmax`, `ymin`, `ymax` (degrees; its `ymin` is the larger
//! latitude, which does not matter here). Non-finite heights and heights outside
//! [`crate::dem::VALID_HEIGHT_RANGE`] become NaN.

use crate::coords::{check_axis, place, Axis};
use crate::dem::{clean_heights_vec, geographic_cell_size, CrsKind, Dem};
use crate::error::{IoError, Result};
use crate::fsio::open_with_magic;
use crate::limits::{check_raster_size, MAX_NPY_BYTES};
use crate::npy::{parse_npy, NpyArray};
use crate::png_common::DEFLATE_MAX_EXPANSION;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

const ZIP_MAGICS: [&[u8]; 2] = [b"PK\x03\x04", b"PK\x05\x06"];
const MAX_ENTRIES: usize = 4096;
const ELEVATION_NAMES: [&str; 7] = ["elevation", "elev", "dem", "height", "heights", "z", "data"];

fn map_zip(path: &Path, e: zip::result::ZipError) -> IoError {
    match e {
        zip::result::ZipError::Io(io) => IoError::io(path, io),
        zip::result::ZipError::UnsupportedArchive(what) => IoError::unsupported(path, format!("zip feature: {what}")),
        other => IoError::malformed(path, "NPZ (zip)", other.to_string()),
    }
}

/// Read every `.npy` entry of an NPZ archive, keyed by name without `.npy`.
pub fn read_npz(path: impl AsRef<Path>) -> Result<BTreeMap<String, NpyArray>> {
    read_entries(path.as_ref(), |_| true)
}

fn read_entries(path: &Path, want: impl Fn(&str) -> bool) -> Result<BTreeMap<String, NpyArray>> {
    let (file, len) = open_with_magic(path, &ZIP_MAGICS, "NPZ (zip)")?;
    let mut zip = zip::ZipArchive::new(std::io::BufReader::new(file)).map_err(|e| map_zip(path, e))?;
    if zip.len() > MAX_ENTRIES {
        return Err(IoError::TooMany {
            path: path.to_path_buf(),
            what: "NPZ entries",
            count: zip.len() as u64,
            limit: MAX_ENTRIES as u64,
        });
    }
    let mut out = BTreeMap::new();
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).map_err(|e| map_zip(path, e))?;
        let Some(key) = entry.name().strip_suffix(".npy").map(str::to_owned) else {
            continue;
        };
        if !want(&key) {
            continue;
        }
        let size = entry.size();
        let compressed = entry.compressed_size();
        // The claimed stored size is checked against the file's length before the inflated
        // size it bounds is trusted for an allocation (fuzz/artifacts/npz/oom-5a763e49...).
        if compressed > len {
            return Err(IoError::truncated(
                path,
                format!("entry {key}.npy claims {compressed} stored bytes, the file has {len}"),
            ));
        }
        let can = match entry.compression() {
            zip::CompressionMethod::Stored => compressed,
            _ => compressed.saturating_mul(DEFLATE_MAX_EXPANSION).saturating_add(1024),
        };
        if size > can {
            return Err(IoError::malformed(
                path,
                "NPZ (zip)",
                format!(
                    "entry {key}.npy claims {size} bytes from {compressed} stored bytes, \
                     which hold at most {can} ({:?})",
                    entry.compression()
                ),
            ));
        }
        if size > MAX_NPY_BYTES {
            return Err(IoError::TooMany {
                path: path.to_path_buf(),
                what: "NPZ entry bytes",
                count: size,
                limit: MAX_NPY_BYTES,
            });
        }
        let mut bytes = Vec::with_capacity(size as usize);
        (&mut entry).take(size).read_to_end(&mut bytes).map_err(|e| IoError::io(path, e))?;
        if (bytes.len() as u64) < size {
            return Err(IoError::truncated(path, format!("entry {key}.npy: {} of {size} bytes", bytes.len())));
        }
        let arr = parse_npy(path, &format!("{key}.npy"), &bytes)?;
        out.insert(key, arr);
    }
    Ok(out)
}

fn scalar(arrays: &BTreeMap<String, NpyArray>, key: &str) -> Option<f64> {
    arrays.get(key).filter(|a| a.data.len() == 1).map(|a| a.data[0]).filter(|v| v.is_finite())
}

/// The cell spacing `key` (`dx` or `dy`): `None` when absent (or not a single value, as
/// before); refused when it is one value that is not a finite number above 0.
fn spacing(path: &Path, arrays: &BTreeMap<String, NpyArray>, key: &str) -> Result<Option<f64>> {
    match arrays.get(key).filter(|a| a.data.len() == 1).map(|a| a.data[0]) {
        None => Ok(None),
        Some(v) if v.is_finite() && v > 0.0 => Ok(Some(v)),
        Some(v) => {
            Err(IoError::malformed(path, "NPZ", format!("{key} = {v}: a cell spacing must be a finite number above 0")))
        }
    }
}

/// 1-D coordinate arrays of the columns (`x`, `lon`, `longitude`) and of the rows (`y`, `lat`,
/// `latitude`), with whether the name means degrees.
const X_NAMES: [(&str, bool); 3] = [("x", false), ("lon", true), ("longitude", true)];
const Y_NAMES: [(&str, bool); 3] = [("y", false), ("lat", true), ("latitude", true)];

/// The first 1-D array among `names` for `n` cells, checked by [`check_axis`].
fn axis(
    path: &Path,
    arrays: &BTreeMap<String, NpyArray>,
    names: &[(&'static str, bool)],
    n: usize,
    what: &str,
) -> Result<Option<Axis>> {
    let Some(&(name, degrees)) = names.iter().find(|(k, _)| arrays.get(*k).is_some_and(|a| a.shape.len() == 1)) else {
        return Ok(None);
    };
    check_axis(path, "NPZ", name, degrees, &arrays[name].data, n, what).map(Some)
}

/// The 1-D coordinate arrays that place a `w × h` DEM (see the module docs), checked against
/// `dx`/`dy` when given, or `None` when there are none.
fn coordinates(
    path: &Path,
    arrays: &BTreeMap<String, NpyArray>,
    (w, h): (usize, usize),
    (dx, dy): (Option<f64>, Option<f64>),
) -> Result<Option<(Axis, Axis)>> {
    let (ax, ay) = (axis(path, arrays, &X_NAMES, w, "columns")?, axis(path, arrays, &Y_NAMES, h, "rows")?);
    let (ax, ay) = match (ax, ay) {
        (None, None) => return Ok(None),
        (Some(a), Some(b)) => (a, b),
        (Some(a), None) | (None, Some(a)) => {
            return Err(IoError::malformed(
                path,
                "NPZ",
                format!("{} without a coordinate array for the other axis", a.name),
            ))
        }
    };
    let (sx, sy) = (ax.step.abs(), ay.step.abs());
    for (key, given, got) in [("dx", dx, sx), ("dy", dy, sy)] {
        if let Some(g) = given {
            if (g - got).abs() > 0.01 * got {
                return Err(IoError::malformed(path, "NPZ", format!("{key} = {g} but the coordinates step by {got}")));
            }
        }
    }
    Ok(Some((ax, ay)))
}

/// Read a DEM from an NPZ archive (see the module documentation for the entries used).
pub fn read_npz_dem(path: impl AsRef<Path>) -> Result<Dem> {
    let path = path.as_ref();
    let mut arrays = read_npz(path)?;
    if arrays.is_empty() {
        return Err(IoError::Empty { path: path.to_path_buf(), what: "NPZ without .npy entries".into() });
    }
    let two_d: Vec<&String> = arrays.iter().filter(|(_, a)| a.shape.len() == 2).map(|(k, _)| k).collect();
    let key = ELEVATION_NAMES
        .iter()
        .find_map(|n| two_d.iter().find(|k| k.as_str() == *n))
        .copied()
        .or(if two_d.len() == 1 { Some(two_d[0]) } else { None })
        .ok_or_else(|| {
            let names: Vec<&str> = arrays.keys().map(String::as_str).collect();
            IoError::missing(path, format!("2-D elevation array (entries: {})", names.join(", ")))
        })?;
    let key = key.clone();
    let elev = arrays.get_mut(&key).expect("a key of the archive");
    let (h, w) = (elev.shape[0], elev.shape[1]);
    let (width, height) = check_raster_size(path, w as u64, h as u64)?;
    // The elevations are moved out (the coordinates and spacings are other entries).
    let heights = clean_heights_vec(path, width, height, std::mem::take(&mut elev.data), 1.0)?;

    let dx = spacing(path, &arrays, "dx")?;
    let dy = spacing(path, &arrays, "dy")?;
    if let Some((ax, ay)) = coordinates(path, &arrays, (width, height), (dx, dy))? {
        return place(path, "NPZ", heights, &ax, &ay, None);
    }
    let bounds = ["xmin", "xmax", "ymin", "ymax"].map(|k| scalar(&arrays, k));
    let (sx, sy) = (dx.unwrap_or(1.0), dy.or(dx).unwrap_or(1.0));
    let geographic = match bounds {
        [Some(x0), Some(x1), Some(y0), Some(y1)] => {
            let in_range = [x0, x1].iter().all(|x| x.abs() <= 180.0) && [y0, y1].iter().all(|y| y.abs() <= 90.0);
            let matches = |extent: f64, step: f64, n: usize| {
                [n as f64, n as f64 - 1.0]
                    .iter()
                    .any(|&m| (extent.abs() - step * m).abs() <= 0.01 * extent.abs().max(step))
            };
            (in_range && sx < 1.0 && sy < 1.0 && matches(x1 - x0, sx, width) && matches(y1 - y0, sy, height))
                .then_some((y0 + y1) / 2.0)
        }
        _ => None,
    };
    let (crs_kind, (cx, cy)) = match geographic {
        Some(lat) => (CrsKind::Geographic { epsg: None, centre_lat: lat }, geographic_cell_size(path, sx, sy, lat)?),
        None => (CrsKind::Unknown, (sx, sy)),
    };
    Ok(Dem {
        heights: heights.with_cell_size(cx, cy),
        crs_kind,
        georef: None,
        nodata: None,
        source: path.to_path_buf(),
        geokeys: None,
    })
}

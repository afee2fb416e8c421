//! Grids placed by 1-D coordinate arrays of cell centres (NPZ, NetCDF, Zarr): the checks every
//! such axis must pass and the north-up placement built from two of them.

use crate::dem::{geographic_cell_size, CrsKind, Dem, GeoTransform};
use crate::error::{IoError, Result};
use bozkir_core::Grid;
use std::path::Path;

/// An evenly spaced coordinate axis: first value, signed step, degrees or not, array name.
#[derive(Debug, Clone)]
pub(crate) struct Axis {
    pub first: f64,
    pub step: f64,
    pub degrees: bool,
    pub name: String,
}

/// Checks the 1-D coordinate array `v` named `name` for `n` cells along `what` (`"columns"` or
/// `"rows"`): the right length, finite, strictly monotone, evenly spaced (each step within
/// 0.1 % of the mean, or within 4 units in the last place of the largest value at the
/// precision the values are stored in), and within ±180°/±90° when `degrees`.
pub(crate) fn check_axis(
    path: &Path,
    format: &'static str,
    name: &str,
    degrees: bool,
    v: &[f64],
    n: usize,
    what: &str,
) -> Result<Axis> {
    let bad = |m: String| Err(IoError::malformed(path, format, format!("{name}: {m}")));
    if v.len() != n {
        return bad(format!("{} values, but the elevation has {n} {what}", v.len()));
    }
    if n < 2 {
        return bad(format!("one value gives no spacing for the {what}"));
    }
    if let Some(i) = v.iter().position(|x| !x.is_finite()) {
        return bad(format!("value {i} is {}", v[i]));
    }
    let step = (v[n - 1] - v[0]) / (n - 1) as f64;
    if step == 0.0 || !step.is_finite() {
        return bad("zero spacing (the first and last values are equal)".into());
    }
    // Coordinates stored as float32 (every value representable in it) carry that rounding: a
    // step may then be off by a few units in the last place of the largest value.
    let f32_stored = v.iter().all(|&x| f64::from(x as f32) == x);
    let ulp = if f32_stored { f64::from(f32::EPSILON) } else { f64::EPSILON };
    let largest = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let tolerance = (1e-3 * step.abs()).max(4.0 * ulp * largest);
    if let Some(i) = (1..n).find(|&i| ((v[i] - v[i - 1]) - step).abs() > tolerance) {
        return bad(format!(
            "not evenly spaced: step {} between values {} and {i}, the mean step is {step}",
            v[i] - v[i - 1],
            i - 1
        ));
    }
    let limit = if what == "columns" { 180.0 } else { 90.0 };
    if degrees && v.iter().any(|x| x.abs() > limit + step.abs()) {
        return bad(format!("values beyond ±{limit}° are not degrees"));
    }
    Ok(Axis { first: v[0], step, degrees, name: name.to_owned() })
}

/// The DEM of `heights` (row 0 = the array's first row) placed by the column axis `ax` and the
/// row axis `ay`: rows reordered north first and columns west first (so a south-first array is
/// not mirrored), the geotransform of the cell edges kept, cells in metres. Degrees are
/// converted at the centre latitude and the CRS is `epsg` or else WGS 84 (EPSG:4326); axes in
/// metres give a projected CRS when `epsg` is known, else no CRS.
pub(crate) fn place(
    path: &Path,
    format: &'static str,
    heights: Grid<f64>,
    ax: &Axis,
    ay: &Axis,
    epsg: Option<u16>,
) -> Result<Dem> {
    if ax.degrees != ay.degrees {
        return Err(IoError::malformed(
            path,
            format,
            format!("{} and {}: one is in degrees, the other not", ax.name, ay.name),
        ));
    }
    let (w, h) = (heights.width(), heights.height());
    let (sx, sy) = (ax.step.abs(), ay.step.abs());
    // Rows north first, columns west first: flip an ascending y (south-first rows) or a
    // descending x.
    let (flip_y, flip_x) = (ay.step > 0.0, ax.step < 0.0);
    let src = heights.data();
    let data: Vec<f64> = (0..h)
        .flat_map(|r| {
            let sr = if flip_y { h - 1 - r } else { r };
            (0..w).map(move |c| src[sr * w + if flip_x { w - 1 - c } else { c }])
        })
        .collect();
    let x_min = ax.first.min(ax.first + ax.step * (w - 1) as f64);
    let y_max = ay.first.max(ay.first + ay.step * (h - 1) as f64);
    let transform = GeoTransform { x0: x_min - sx / 2.0, y0: y_max + sy / 2.0, sx, sy };
    let (crs_kind, (cx, cy)) = if ax.degrees {
        let lat = y_max - sy * (h - 1) as f64 / 2.0;
        (
            CrsKind::Geographic { epsg: Some(epsg.unwrap_or(4326)), centre_lat: lat },
            geographic_cell_size(path, sx, sy, lat)?,
        )
    } else {
        (epsg.map_or(CrsKind::Unknown, |e| CrsKind::Projected { epsg: Some(e) }), (sx, sy))
    };
    Ok(Dem {
        heights: Grid::from_vec(w, h, data).with_cell_size(cx, cy),
        crs_kind,
        georef: Some(transform),
        nodata: None,
        source: path.to_path_buf(),
        geokeys: None,
    })
}

//! GeoTIFF DEMs.
//!
//! Reads the first image of a TIFF with one sample per pixel of type int8/16/32, uint8/16/32
//! or float32/64 (uncompressed, LZW, Deflate or PackBits, strips or tiles; what the `tiff`
//! crate decodes). GeoTIFF tags used:
//!
//! * 33550 `ModelPixelScaleTag` `(sx, sy, sz)` and 33922 `ModelTiepointTag`
//!   `(i, j, k, x, y, z)`, or 34264 `ModelTransformationTag` (4×4, row-major) instead;
//! * 34735 `GeoKeyDirectoryTag`, SHORT-valued keys: 1024 `GTModelTypeGeoKey` (1 projected,
//!   2 geographic), 1025 `GTRasterTypeGeoKey` (1 PixelIsArea, 2 PixelIsPoint), 2048
//!   `GeographicTypeGeoKey`, 2054 `GeogAngularUnitsGeoKey` (9102 degree, 9101 radian), 3072
//!   `ProjectedCSTypeGeoKey`, 3076 `ProjLinearUnitsGeoKey` (9001 m, 9002 ft, 9003 US ft,
//!   9030 nautical mile, 9036 km), 4099 `VerticalUnitsGeoKey` (same codes; heights converted);
//!   every key, whatever its type, is also kept with its value in [`Dem::geokeys`] (a user-defined
//!   CRS is carried into the outputs that way, see [`Dem::output_georef`]);
//! * 34736 `GeoDoubleParamsTag` and 34737 `GeoAsciiParamsTag`: the values of DOUBLE and ASCII
//!   keys (a key whose values lie outside its tag is refused, naming the key);
//! * 42113 `GDAL_NODATA` (ASCII number).
//!
//! Geographic (model type 2, or no model type but a geographic and no projected CRS key):
//! `dx, dy` in metres at the centre latitude, see [`crate::dem`]. Projected: pixel scale times
//! the linear unit. No GeoKeyDirectory: pixel scale taken as metres ([`CrsKind::Unknown`]),
//! 1 m when there is no scale either. Heights that are non-finite, equal to the nodata value, or
//! outside [`crate::dem::VALID_HEIGHT_RANGE`] become NaN.
//!
//! Where the pixels are is returned as a [`GeoTransform`] (pixel centres at
//! `x = x0 + (c + 0.5)·sx`, `y = y0 − (r + 0.5)·sy`, CRS units).

use crate::dem::{clean_heights, geographic_cell_size, CrsKind, Dem, GeoTransform};
use crate::error::{IoError, Result};
use crate::georef::{GeoKeySet, GeoKeyValue};
use crate::tiff_common::{f64_tag, map_tiff, open, read_image, TiffDecoder};
use std::path::Path;
use std::sync::Arc;
use tiff::decoder::DecodingResult;
use tiff::tags::Tag;

/// The SHORT-valued geokeys we use, and every key with its value.
#[derive(Debug, Default)]
struct GeoKeys {
    model_type: Option<u16>,
    raster_type: Option<u16>,
    geographic_type: Option<u16>,
    angular_units: Option<u16>,
    projected_type: Option<u16>,
    linear_units: Option<u16>,
    vertical_units: Option<u16>,
    all: Vec<(u16, GeoKeyValue)>,
    version: [u16; 3],
}

fn read_geokeys(path: &Path, dec: &mut TiffDecoder) -> Result<Option<GeoKeys>> {
    let dir = match dec.find_tag(Tag::GeoKeyDirectoryTag).map_err(|e| map_tiff(path, e))? {
        None => return Ok(None),
        Some(v) => v.into_u16_vec().map_err(|e| map_tiff(path, e))?,
    };
    if dir.len() < 4 {
        return Err(IoError::malformed(path, "GeoTIFF", "GeoKeyDirectory shorter than its header"));
    }
    let n = dir[3] as usize;
    if dir.len() < 4 + 4 * n {
        return Err(IoError::truncated(
            path,
            format!("GeoKeyDirectory declares {n} keys, holds {}", (dir.len() - 4) / 4),
        ));
    }
    let doubles = f64_tag(path, dec, Tag::GeoDoubleParamsTag)?.unwrap_or_default();
    let ascii = match dec.find_tag(Tag::GeoAsciiParamsTag).map_err(|e| map_tiff(path, e))? {
        None => String::new(),
        Some(v) => v.into_string().map_err(|e| map_tiff(path, e))?,
    };
    let mut keys = GeoKeys { version: [dir[0], dir[1], dir[2]], ..GeoKeys::default() };
    for k in dir[4..4 + 4 * n].chunks_exact(4) {
        let (id, loc, count, off) = (k[0], k[1], usize::from(k[2]), usize::from(k[3]));
        let bad = |what: &str, len: usize| {
            IoError::malformed(
                path,
                "GeoTIFF",
                format!("GeoKey {id}: {count} values at {off} of {what}, which holds {len}"),
            )
        };
        let value = match loc {
            // Stored inline: the SHORT value itself.
            0 => GeoKeyValue::Short(vec![k[3]]),
            34735 => GeoKeyValue::Short(
                dir.get(off..off + count).ok_or_else(|| bad("the GeoKeyDirectory", dir.len()))?.to_vec(),
            ),
            34736 => GeoKeyValue::Double(
                doubles.get(off..off + count).ok_or_else(|| bad("GeoDoubleParams", doubles.len()))?.to_vec(),
            ),
            34737 => {
                let b = ascii.as_bytes().get(off..off + count).ok_or_else(|| bad("GeoAsciiParams", ascii.len()))?;
                // The count includes the text's terminating `|`.
                let b = b.strip_suffix(b"|").unwrap_or(b);
                GeoKeyValue::Ascii(
                    String::from_utf8(b.to_vec()).map_err(|_| bad("GeoAsciiParams (not text there)", ascii.len()))?,
                )
            }
            other => {
                return Err(IoError::malformed(path, "GeoTIFF", format!("GeoKey {id} stored in tag {other}")));
            }
        };
        if loc == 0 {
            let v = Some(k[3]);
            match id {
                1024 => keys.model_type = v,
                1025 => keys.raster_type = v,
                2048 => keys.geographic_type = v,
                2054 => keys.angular_units = v,
                3072 => keys.projected_type = v,
                3076 => keys.linear_units = v,
                4099 => keys.vertical_units = v,
                _ => {}
            }
        }
        if count > 0 {
            keys.all.push((id, value));
        }
    }
    Ok(Some(keys))
}

/// Metres per unit of an EPSG linear unit code (also used for the GeoKeys of LAS files).
pub(crate) fn linear_unit_metres(path: &Path, code: Option<u16>, what: &str) -> Result<f64> {
    Ok(match code {
        None | Some(9001) | Some(32767) => 1.0,
        Some(9002) => 0.3048,
        Some(9003) => 1200.0 / 3937.0,
        Some(9030) => 1852.0,
        Some(9036) => 1000.0,
        Some(c) => return Err(IoError::unsupported(path, format!("{what} unit code {c}"))),
    })
}

/// `((sx, sy), (x, y), transform)`: pixel spacing, model coordinates of the raster centre (CRS
/// units), and the pixel-to-CRS transform when the raster is north-up.
type Georef = ((f64, f64), (f64, f64), Option<GeoTransform>);

/// Pixel spacing `(sx, sy)`, the model coordinates of the raster centre, and the transform.
fn georeference(path: &Path, dec: &mut TiffDecoder, w: usize, h: usize, point: bool) -> Result<Option<Georef>> {
    let scale = f64_tag(path, dec, Tag::ModelPixelScaleTag)?;
    let tie = f64_tag(path, dec, Tag::ModelTiepointTag)?;
    let transform = f64_tag(path, dec, Tag::ModelTransformationTag)?;
    // Centre of the raster in pixel coordinates (corner-based for PixelIsArea).
    let (ci, cj) =
        if point { ((w as f64 - 1.0) / 2.0, (h as f64 - 1.0) / 2.0) } else { (w as f64 / 2.0, h as f64 / 2.0) };
    // A PixelIsPoint tie point names a pixel centre: the pixel's outer corner is half a pixel off.
    let half = if point { 0.5 } else { 0.0 };
    if let Some(s) = scale {
        if s.len() < 2 || !(s[0].is_finite() && s[1].is_finite()) || s[0] <= 0.0 || s[1] <= 0.0 {
            return Err(IoError::malformed(path, "GeoTIFF", format!("ModelPixelScale {s:?} is not positive")));
        }
        let (x, y, gt) = match tie.as_deref() {
            Some([i, j, _, x, y, ..]) => {
                let gt = GeoTransform { x0: x - (i + half) * s[0], y0: y + (j + half) * s[1], sx: s[0], sy: s[1] };
                let ok = gt.x0.is_finite() && gt.y0.is_finite();
                (x + (ci - i) * s[0], y - (cj - j) * s[1], ok.then_some(gt))
            }
            _ => (f64::NAN, f64::NAN, None),
        };
        return Ok(Some(((s[0], s[1]), (x, y), gt)));
    }
    if let Some(m) = transform {
        if m.len() < 16 {
            return Err(IoError::malformed(path, "GeoTIFF", "ModelTransformation has fewer than 16 values"));
        }
        let sx = m[0].hypot(m[4]);
        let sy = m[1].hypot(m[5]);
        if !(sx > 0.0 && sy > 0.0) {
            return Err(IoError::malformed(path, "GeoTIFF", "ModelTransformation has a zero pixel size"));
        }
        let x = m[0] * ci + m[1] * cj + m[3];
        let y = m[4] * ci + m[5] * cj + m[7];
        // Only a north-up transform (no rotation, y decreasing down the rows) has a GeoTransform.
        let gt = (m[1] == 0.0 && m[4] == 0.0 && m[0] > 0.0 && m[5] < 0.0 && m[3].is_finite() && m[7].is_finite())
            .then(|| GeoTransform { x0: m[3] - half * m[0], y0: m[7] - half * m[5], sx: m[0], sy: -m[5] });
        return Ok(Some(((sx, sy), (x, y), gt)));
    }
    Ok(None)
}

/// What a GeoTIFF says about where it is: CRS kind, cell size in metres, the vertical unit in
/// metres, the pixel-to-CRS transform, and the nodata value.
pub(crate) struct GeoInfo {
    pub crs_kind: CrsKind,
    pub cell: (f64, f64),
    pub vertical: f64,
    pub transform: Option<GeoTransform>,
    pub nodata: Option<f64>,
    /// Every GeoKey of the file, when it has a GeoKeyDirectory.
    pub keys: Option<Arc<GeoKeySet>>,
}

/// Read the georeferencing tags of the first image (see the module documentation).
pub(crate) fn geo_info(path: &Path, dec: &mut TiffDecoder, w: usize, h: usize) -> Result<GeoInfo> {
    let keys = read_geokeys(path, dec)?;
    let nodata = nodata_of(path, dec)?;
    let point = keys.as_ref().and_then(|k| k.raster_type) == Some(2);
    let georef = georeference(path, dec, w, h, point)?;
    let transform = georef.and_then(|g| g.2);

    let (crs_kind, cell, vertical) = match (&keys, georef) {
        (Some(k), Some(((sx, sy), (_, cy), _))) => {
            let geographic = match k.model_type {
                Some(2) => true,
                Some(1) => false,
                Some(c) => {
                    return Err(IoError::unsupported(
                        path,
                        format!("GTModelTypeGeoKey {c} (geocentric or user-defined)"),
                    ))
                }
                None => k.geographic_type.is_some() && k.projected_type.is_none(),
            };
            let vertical = linear_unit_metres(path, k.vertical_units, "vertical")?;
            if geographic {
                let deg = match k.angular_units {
                    None | Some(9102) | Some(32767) => 1.0,
                    Some(9101) => 180.0 / std::f64::consts::PI,
                    Some(c) => return Err(IoError::unsupported(path, format!("angular unit code {c}"))),
                };
                if !cy.is_finite() {
                    return Err(IoError::missing(
                        path,
                        "ModelTiepointTag (needed for the latitude of a geographic DEM)",
                    ));
                }
                let lat = cy * deg;
                let cell = geographic_cell_size(path, sx * deg, sy * deg, lat)?;
                (
                    CrsKind::Geographic { epsg: k.geographic_type.filter(|&c| c != 32767), centre_lat: lat },
                    cell,
                    vertical,
                )
            } else {
                let unit = linear_unit_metres(path, k.linear_units, "projected linear")?;
                (
                    CrsKind::Projected { epsg: k.projected_type.filter(|&c| c != 32767) },
                    (sx * unit, sy * unit),
                    vertical,
                )
            }
        }
        (_, Some(((sx, sy), _, _))) => (CrsKind::Unknown, (sx, sy), 1.0),
        (_, None) => (CrsKind::Unknown, (1.0, 1.0), 1.0),
    };
    let keys = match keys {
        Some(k) => {
            Some(Arc::new(GeoKeySet::new(k.version, k.all).map_err(|e| IoError::malformed(path, "GeoTIFF", e))?))
        }
        None => None,
    };
    Ok(GeoInfo { crs_kind, cell, vertical, transform, nodata, keys })
}

fn nodata_of(path: &Path, dec: &mut TiffDecoder) -> Result<Option<f64>> {
    match dec.find_tag(Tag::GdalNodata).map_err(|e| map_tiff(path, e))? {
        None => Ok(None),
        Some(v) => {
            let s = v.into_string().map_err(|e| map_tiff(path, e))?;
            let t = s.trim_matches(|c: char| c == '\0' || c.is_whitespace());
            if t.eq_ignore_ascii_case("nan") {
                return Ok(Some(f64::NAN));
            }
            t.parse::<f64>()
                .map(Some)
                .map_err(|_| IoError::malformed(path, "GeoTIFF", format!("GDAL_NODATA {t:?} is not a number")))
        }
    }
}

/// Read a GeoTIFF DEM: heights in metres (NaN = nodata/invalid), cell size in metres.
pub fn read_geotiff(path: impl AsRef<Path>) -> Result<Dem> {
    let path = path.as_ref();
    let (mut dec, w, h) = open(path)?;
    let GeoInfo { crs_kind, cell: (dx, dy), vertical, transform, nodata, keys } = geo_info(path, &mut dec, w, h)?;

    let decoded = read_image(path, &mut dec)?;
    let nd = nodata.unwrap_or(f64::NAN);
    let is_nd = |v: f64| nodata.is_some() && v == nd;
    let heights = match decoded {
        DecodingResult::I8(v) => {
            clean_heights(path, w, h, v.iter().map(|&s| (f64::from(s), is_nd(f64::from(s)))), vertical)
        }
        DecodingResult::U8(v) => {
            clean_heights(path, w, h, v.iter().map(|&s| (f64::from(s), is_nd(f64::from(s)))), vertical)
        }
        DecodingResult::I16(v) => {
            clean_heights(path, w, h, v.iter().map(|&s| (f64::from(s), is_nd(f64::from(s)))), vertical)
        }
        DecodingResult::U16(v) => {
            clean_heights(path, w, h, v.iter().map(|&s| (f64::from(s), is_nd(f64::from(s)))), vertical)
        }
        DecodingResult::I32(v) => {
            clean_heights(path, w, h, v.iter().map(|&s| (f64::from(s), is_nd(f64::from(s)))), vertical)
        }
        DecodingResult::U32(v) => {
            clean_heights(path, w, h, v.iter().map(|&s| (f64::from(s), is_nd(f64::from(s)))), vertical)
        }
        DecodingResult::F32(v) => {
            // Compare in f32 so a nodata written with f64 digits still matches its f32 sample.
            let nd32 = nd as f32;
            clean_heights(path, w, h, v.iter().map(|&s| (f64::from(s), nodata.is_some() && s == nd32)), vertical)
        }
        DecodingResult::F64(v) => clean_heights(path, w, h, v.iter().map(|&s| (s, is_nd(s))), vertical),
        DecodingResult::I64(_) | DecodingResult::U64(_) => {
            return Err(IoError::unsupported(path, "64-bit integer samples for a DEM"));
        }
    }?;
    Ok(Dem {
        heights: heights.with_cell_size(dx, dy),
        crs_kind,
        georef: transform,
        nodata,
        source: path.to_path_buf(),
        geokeys: keys,
    })
}

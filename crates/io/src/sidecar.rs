//! The JSON sidecar written next to every height map (`<name>.height.json`).
//!
//! A serialised format, separate from internal types and versioned: `format_version` is 1.
//! Readers refuse any other version. Unknown fields are ignored, so later versions may add
//! optional fields without breaking version-1 readers. See `docs/formats.md` for an example.

use crate::error::{IoError, Result};
use crate::fsio::{atomic_write, open_nonempty, write_all};
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::path::Path;

/// The sidecar format version this crate reads and writes.
pub const SIDECAR_FORMAT_VERSION: u32 = 1;

/// How a raster file stores its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    /// 16-bit greyscale PNG, `q = round((v − low)/(high − low)·65535)`.
    Png16,
    /// 8-bit RGB PNG, `R = q >> 8, G = q & 255, B = q >> 8`.
    Rg16,
    /// Raw little-endian u16, no header.
    R16,
    /// Single-channel float32 TIFF, values in metres.
    TiffF32,
    /// 8-bit greyscale PNG (masks).
    Png8,
    /// 8-bit RGB PNG (previews).
    Rgb8,
    /// GeoJSON vectors (stream segments), in the folder's CRS.
    #[serde(rename = "geojson")]
    GeoJson,
}

/// One file written alongside the sidecar.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SidecarFile {
    /// File name, relative to the sidecar's directory.
    pub path: String,
    /// What it holds: `"height"`, `"sediment"`, `"mask/slope"`, `"preview"`, …
    pub role: String,
    pub encoding: Encoding,
}

/// The sidecar document (format version 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sidecar {
    /// Always [`SIDECAR_FORMAT_VERSION`].
    pub format_version: u32,
    /// Raster width and height in cells.
    pub width: usize,
    pub height: usize,
    /// Cell size in metres: column spacing `dx_m`, row spacing `dy_m`.
    pub dx_m: f64,
    pub dy_m: f64,
    /// Height range in metres: code 0 means `low_m`, code 65535 means `high_m`.
    pub low_m: f64,
    pub high_m: f64,
    /// Encoding of the main height file.
    pub encoding: Encoding,
    /// Generator name (e.g. `"bozkir terrain"`) and version (its `GENERATOR_VERSION`).
    pub generator: String,
    pub generator_version: String,
    /// Seed, when the data was generated (JSON readers in JavaScript are exact below 2^53).
    pub seed: Option<u64>,
    /// Which implementation produced the data: `"cpu"` (the reference) or e.g. `"gpu"`.
    pub backend: String,
    /// Generator settings as a free JSON object.
    #[serde(default)]
    pub settings: serde_json::Map<String, serde_json::Value>,
    /// Where the data came from: `"generated <profile> seed <s>"` or an input file name.
    pub source: String,
    /// Files written with this sidecar.
    #[serde(default)]
    pub files: Vec<SidecarFile>,
    /// Where the rasters are (absent in sidecars written before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub georef: Option<SidecarGeo>,
}

/// A sidecar's georeference: what the folder's GeoTIFFs carry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SidecarGeo {
    /// `EPSG:<code>`, `local` (a local metre frame), the name of an input's own CRS without
    /// EPSG code carried as its GeoKeys (its citation, or `user-defined (GeoTIFF keys)`), or
    /// `unknown` (an input without GeoKeys).
    pub crs: String,
    /// GDAL geotransform `[x0, sx, 0, y0, 0, −sy]` in CRS units (degrees for a geographic CRS;
    /// the cell size in metres is `dx_m`, `dy_m`).
    pub transform: [f64; 6],
    /// The `(column, row)` of the input that is these rasters' top-left cell, when the input
    /// was cropped (`--crop largest-valid`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crop_offset: Option<[usize; 2]>,
}

impl SidecarGeo {
    /// The sidecar form of `g`, with the crop offset if any.
    pub fn new(g: &crate::GeoRef, crop_offset: Option<(usize, usize)>) -> Self {
        SidecarGeo { crs: g.crs.name(), transform: g.gdal_transform(), crop_offset: crop_offset.map(|(c, r)| [c, r]) }
    }
}

impl Sidecar {
    /// A sidecar with backend `"cpu"`, no seed, empty settings, source and file list.
    pub fn new(width: usize, height: usize, cell_m: (f64, f64), range_m: (f64, f64), encoding: Encoding) -> Self {
        Sidecar {
            format_version: SIDECAR_FORMAT_VERSION,
            width,
            height,
            dx_m: cell_m.0,
            dy_m: cell_m.1,
            low_m: range_m.0,
            high_m: range_m.1,
            encoding,
            generator: "bozkir".into(),
            generator_version: String::new(),
            seed: None,
            backend: "cpu".into(),
            settings: serde_json::Map::new(),
            source: String::new(),
            files: Vec::new(),
            georef: None,
        }
    }

    fn check(&self, path: &Path) -> Result<()> {
        if self.format_version != SIDECAR_FORMAT_VERSION {
            return Err(IoError::unsupported(
                path,
                format!("sidecar format_version {} (this build reads {SIDECAR_FORMAT_VERSION})", self.format_version),
            ));
        }
        let nums = [self.dx_m, self.dy_m, self.low_m, self.high_m];
        if nums.iter().any(|v| !v.is_finite()) || self.dx_m <= 0.0 || self.dy_m <= 0.0 || self.high_m < self.low_m {
            return Err(IoError::malformed(
                path,
                "sidecar",
                format!(
                    "cell size ({}, {}) m must be positive and range [{}, {}] m ordered",
                    self.dx_m, self.dy_m, self.low_m, self.high_m
                ),
            ));
        }
        Ok(())
    }
}

/// Write a sidecar as pretty-printed JSON (atomically). Refuses non-finite or inconsistent values.
pub fn write_sidecar(path: impl AsRef<Path>, sidecar: &Sidecar) -> Result<()> {
    let path = path.as_ref();
    sidecar.check(path)?;
    let mut text =
        serde_json::to_vec_pretty(sidecar).map_err(|e| IoError::Json { path: path.to_path_buf(), error: e })?;
    text.push(b'\n');
    atomic_write(path, |w| write_all(path, w, &text))
}

/// Read and validate a sidecar (at most 16 MiB).
pub fn read_sidecar(path: impl AsRef<Path>) -> Result<Sidecar> {
    let path = path.as_ref();
    let (reader, len) = open_nonempty(path)?;
    if len > 16 << 20 {
        return Err(IoError::TooMany { path: path.to_path_buf(), what: "sidecar bytes", count: len, limit: 16 << 20 });
    }
    let mut text = Vec::with_capacity(len as usize);
    reader.take(len).read_to_end(&mut text).map_err(|e| IoError::io(path, e))?;
    let value: serde_json::Value =
        serde_json::from_slice(&text).map_err(|e| IoError::Json { path: path.to_path_buf(), error: e })?;
    match value.get("format_version").and_then(|v| v.as_u64()) {
        Some(v) if v == u64::from(SIDECAR_FORMAT_VERSION) => {}
        Some(v) => {
            return Err(IoError::unsupported(
                path,
                format!("sidecar format_version {v} (this build reads {SIDECAR_FORMAT_VERSION})"),
            ))
        }
        None => return Err(IoError::missing(path, "sidecar field \"format_version\"")),
    }
    let sidecar: Sidecar =
        serde_json::from_value(value).map_err(|e| IoError::Json { path: path.to_path_buf(), error: e })?;
    sidecar.check(path)?;
    Ok(sidecar)
}

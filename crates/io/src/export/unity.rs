//! Unity terrain: a `.r16` height map at a `2ⁿ + 1` resolution and a JSON note.
//!
//! Unity's terrain heightmap resolution is square and one of 33, 65, 129, 257, 513, 1025, 2049
//! or 4097 samples per side. The height field is resampled (bilinear, corners aligned) to that
//! resolution; the terrain keeps its extent, `(width − 1)·dx × (height − 1)·dy` metres.
//!
//! File `<stem>.r16`: no header, `resolution²` unsigned 16-bit little-endian samples (Unity's
//! "Byte Order: Windows", depth 16 bit), `q = round((v − low)/(high − low)·65535)`. Rows are
//! written **south first** (the grid's last row first): Unity's importer puts the file's first
//! row at terrain z = 0, so with "Flip Vertically" off north ends up at +z.
//!
//! File `<stem>.unity.json`: the import settings — resolution, byte order, terrain width and
//! length in metres, terrain height in metres (`high − low`, the value of Unity's "Terrain
//! Height"/`TerrainData.size.y`) and the y position (`low`) that puts code 0 at its true
//! elevation.

use super::{checked_range, resample_bilinear, write_json, write_u16_le};
use crate::error::{IoError, Result};
use crate::quantise::quantise_u16;
use bozkir_core::Grid;
use std::path::{Path, PathBuf};

/// Smallest heightmap resolution Unity accepts.
pub const UNITY_MIN_RESOLUTION: usize = 33;
/// Largest heightmap resolution Unity accepts.
pub const UNITY_MAX_RESOLUTION: usize = 4097;

/// Whether `n` is a Unity heightmap resolution: `2ᵏ + 1` within 33..=4097.
pub fn is_unity_resolution(n: usize) -> bool {
    (UNITY_MIN_RESOLUTION..=UNITY_MAX_RESOLUTION).contains(&n) && (n - 1).is_power_of_two()
}

/// The Unity resolution for a side of `n` samples: the smallest `2ᵏ + 1 ≥ n`, clamped to
/// 33..=4097 (larger inputs are downsampled to 4097).
pub fn unity_resolution(n: usize) -> usize {
    let up = n.saturating_sub(1).max(1).next_power_of_two() + 1;
    up.clamp(UNITY_MIN_RESOLUTION, UNITY_MAX_RESOLUTION)
}

/// What [`write_unity`] wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct UnityExport {
    /// The `.r16` height map.
    pub r16: PathBuf,
    /// The JSON note of the import settings.
    pub note: PathBuf,
    /// Samples per side of the `.r16`.
    pub resolution: usize,
    /// Terrain width (x) and length (z) in metres.
    pub size_m: (f64, f64),
    /// Terrain height in metres: `high − low` (Unity's `TerrainData.size.y`).
    pub height_m: f64,
    /// Elevation of code 0 in metres (the terrain's y position).
    pub low_m: f64,
}

/// Write `<dir>/<stem>.r16` and `<dir>/<stem>.unity.json` for `h` (heights in metres).
///
/// `resolution`: a Unity resolution (see [`is_unity_resolution`]), or `None` for
/// [`unity_resolution`] of the longer side.
pub fn write_unity(dir: &Path, stem: &str, h: &Grid<f64>, resolution: Option<usize>) -> Result<UnityExport> {
    let r16 = dir.join(format!("{stem}.r16"));
    let note = dir.join(format!("{stem}.unity.json"));
    let (low, high) = checked_range(&r16, h)?;
    let res = match resolution {
        Some(n) if is_unity_resolution(n) => n,
        Some(n) => {
            return Err(IoError::invalid(
                &r16,
                format!("Unity resolution {n} must be 2^k + 1 in {UNITY_MIN_RESOLUTION}..={UNITY_MAX_RESOLUTION}"),
            ))
        }
        None => unity_resolution(h.width().max(h.height())),
    };
    let size_m = ((h.width() - 1) as f64 * h.dx, (h.height() - 1) as f64 * h.dy);
    let r = resample_bilinear(h, res, res);
    let codes = quantise_u16(&r16, &r, low, high)?;
    let south_first: Vec<u16> = codes.chunks_exact(res).rev().flatten().copied().collect();
    write_u16_le(&r16, &south_first)?;
    let value = serde_json::json!({
        "engine": "unity",
        "file": format!("{stem}.r16"),
        "resolution": res,
        "depth_bits": 16,
        "byte_order": "Windows (little-endian)",
        "flip_vertically": false,
        "row_order": "south first (file row 0 is terrain z = 0)",
        "terrain_width_m": size_m.0,
        "terrain_length_m": size_m.1,
        "terrain_height_m": high - low,
        "position_y_m": low,
        "low_m": low,
        "high_m": high,
        "source_size": [h.width(), h.height()],
        "source_cell_m": [h.dx, h.dy],
    });
    write_json(&note, &value)?;
    Ok(UnityExport { r16, note, resolution: res, size_m, height_m: high - low, low_m: low })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolutions() {
        assert_eq!(unity_resolution(2), 33);
        assert_eq!(unity_resolution(33), 33);
        assert_eq!(unity_resolution(34), 65);
        assert_eq!(unity_resolution(512), 513);
        assert_eq!(unity_resolution(513), 513);
        assert_eq!(unity_resolution(514), 1025);
        assert_eq!(unity_resolution(10_000), 4097);
        assert!(is_unity_resolution(129) && is_unity_resolution(4097) && !is_unity_resolution(128));
        assert!(!is_unity_resolution(17) && !is_unity_resolution(8193));
    }
}

//! Godot: a raw `.r16` and a single-channel float32 OpenEXR in metres, with a JSON note.
//!
//! Godot has no built-in terrain; terrain add-ons (Terrain3D, HTerrain) and `HeightMapShape3D`
//! scripts import either file. Both keep the grid's size and orientation: row 0 (north) first,
//! which Godot maps to −Z.
//!
//! * `<stem>.r16`: `width × height` little-endian `u16`, `q = round((v − low)/(high − low)·65535)`;
//!   an importer's height scale is `high − low` and its offset `low`.
//! * `<stem>.exr`: channel `R`, float32 heights in metres, exactly (see [`super::exr`]).
//! * `<stem>.godot.json`: size, cell size, range and the scale/offset of the `.r16`.

use super::exr::write_exr_f32;
use super::{checked_range, write_json, write_u16_le};
use crate::error::Result;
use crate::limits::check_raster_size;
use crate::quantise::quantise_u16;
use bozkir_core::Grid;
use std::path::{Path, PathBuf};

/// What [`write_godot`] wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct GodotExport {
    pub r16: PathBuf,
    pub exr: PathBuf,
    pub note: PathBuf,
    /// Height range in metres of the `.r16` codes.
    pub low_m: f64,
    pub high_m: f64,
}

/// Write `<dir>/<stem>.r16`, `<stem>.exr` and `<stem>.godot.json` for `h` (heights in metres).
pub fn write_godot(dir: &Path, stem: &str, h: &Grid<f64>) -> Result<GodotExport> {
    let r16 = dir.join(format!("{stem}.r16"));
    let exr = dir.join(format!("{stem}.exr"));
    let note = dir.join(format!("{stem}.godot.json"));
    let (low, high) = checked_range(&r16, h)?;
    check_raster_size(&r16, h.width() as u64, h.height() as u64)?;
    write_u16_le(&r16, &quantise_u16(&r16, h, low, high)?)?;
    write_exr_f32(&exr, &h.map(|&v| v as f32), "R")?;
    let value = serde_json::json!({
        "engine": "godot",
        "files": { "r16": format!("{stem}.r16"), "exr": format!("{stem}.exr") },
        "width": h.width(),
        "height": h.height(),
        "cell_m": [h.dx, h.dy],
        "r16": { "byte_order": "little-endian", "height_scale_m": high - low, "height_offset_m": low },
        "exr": { "channel": "R", "type": "float32", "units": "metres", "compression": "none" },
        "row_order": "north first (row 0 at -Z)",
        "low_m": low,
        "high_m": high,
    });
    write_json(&note, &value)?;
    Ok(GodotExport { r16, exr, note, low_m: low, high_m: high })
}

//! Unreal Engine landscapes: 16-bit greyscale PNG height maps, optionally tiled, and a JSON note.
//!
//! A landscape is made of components, each of 1 or 2×2 sections of `q` quads (`q` = 7, 15, 31,
//! 63, 127 or 255), so its side has `components · quads_per_component + 1` vertices. Sizes
//! that fit exactly, as recommended by Epic ([`UNREAL_RECOMMENDED`]): 127, 253, 505, 1009,
//! 2017, 4033 and 8129. Without a requested size the height field is resampled (bilinear,
//! corners aligned) to the smallest recommended size per axis that is at least its own.
//!
//! Tiling (World Partition / tiled landscape import): tiles of `T × T` vertices named
//! `<stem>_x<A>_y<B>.png` (column `A`, row `B`, from 0 at the north-west corner). Adjacent
//! tiles share their edge row or column, so the whole grid is `k·(T − 1) + 1` vertices per
//! axis. Good tile sizes are the recommended sizes themselves, e.g. 505 or 1009.
//!
//! Heights: `q = round((v − low)/(high − low)·65535)` over the whole landscape (one range for
//! every tile). Unreal maps code 32768 to the actor's Z and spans 512 m at Z scale 100, so the
//! note gives Z scale `= (high − low)·100/512`, XY scale `= cell size in cm`, and location
//! Z `= (low + high)/2 · 100` cm.

use super::{checked_range, resample_bilinear, write_json};
use crate::error::{IoError, Result};
use crate::limits::MAX_SIDE;
use crate::png16::write_png16;
use bozkir_core::Grid;
use std::path::{Path, PathBuf};

/// One row of Epic's table of recommended landscape sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnrealLandscapeSize {
    /// Vertices per side.
    pub vertices: usize,
    /// Quads per section.
    pub quads_per_section: usize,
    /// Sections per component (1 or 4, i.e. 2×2).
    pub sections_per_component: usize,
    /// Components per side.
    pub components_per_side: usize,
}

impl UnrealLandscapeSize {
    /// Quads per component side.
    pub fn component_quads(&self) -> usize {
        self.quads_per_section * if self.sections_per_component == 4 { 2 } else { 1 }
    }
}

const fn row(vertices: usize, q: usize, s: usize, c: usize) -> UnrealLandscapeSize {
    UnrealLandscapeSize { vertices, quads_per_section: q, sections_per_component: s, components_per_side: c }
}

/// Epic's recommended landscape sizes (one preferred set of settings per size), smallest first.
pub const UNREAL_RECOMMENDED: [UnrealLandscapeSize; 7] = [
    row(127, 63, 4, 1),
    row(253, 63, 4, 2),
    row(505, 63, 4, 4),
    row(1009, 63, 4, 8),
    row(2017, 63, 4, 16),
    row(4033, 63, 4, 32),
    row(8129, 127, 4, 32),
];

/// The smallest recommended size `≥ n`, or 8129 for anything larger.
pub fn unreal_size(n: usize) -> usize {
    UNREAL_RECOMMENDED.iter().map(|r| r.vertices).find(|&v| v >= n).unwrap_or(8129)
}

/// The recommended settings for a side of `vertices`, if it is one of [`UNREAL_RECOMMENDED`].
pub fn unreal_settings(vertices: usize) -> Option<UnrealLandscapeSize> {
    UNREAL_RECOMMENDED.iter().copied().find(|r| r.vertices == vertices)
}

/// The file name of tile (`x`, `y`): `<stem>_x<x>_y<y>.png`.
pub fn unreal_tile_name(stem: &str, x: usize, y: usize) -> String {
    format!("{stem}_x{x}_y{y}.png")
}

/// The tiles of a `w × h` landscape cut into `t × t` tiles that share their edge rows and
/// columns: `(column, row, x0, y0)` of each, row by row from the north-west corner. Only whole
/// tiles: `(w − 1)/(t − 1)` columns and `(h − 1)/(t − 1)` rows (`t ≥ 2`).
pub fn unreal_tiles(w: usize, h: usize, t: usize) -> Vec<(usize, usize, usize, usize)> {
    assert!(t >= 2, "unreal_tiles: tile size {t} below 2");
    let step = t - 1;
    let (kx, ky) = (w.saturating_sub(1) / step, h.saturating_sub(1) / step);
    (0..ky).flat_map(|ty| (0..kx).map(move |tx| (tx, ty, tx * step, ty * step))).collect()
}

/// Options of [`write_unreal`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UnrealOptions {
    /// Vertices per side of the whole landscape (square). `None`: per axis, the smallest
    /// recommended size (untiled) or the smallest `k·(tile − 1) + 1` (tiled) that holds the input.
    pub size: Option<usize>,
    /// Vertices per side of each tile; `None` writes a single `<stem>.png`.
    pub tile: Option<usize>,
}

/// What [`write_unreal`] wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct UnrealExport {
    /// The PNGs, row by row of tiles (a single file when untiled).
    pub files: Vec<PathBuf>,
    /// The JSON note.
    pub note: PathBuf,
    /// Vertices of the whole landscape (width, height).
    pub size: (usize, usize),
    /// Tiles per axis (1 × 1 when untiled).
    pub tiles: (usize, usize),
    /// Landscape Z scale (percent): `(high − low)·100/512`.
    pub z_scale: f64,
    /// Landscape X and Y scale: cell size in centimetres after resampling.
    pub xy_scale_cm: (f64, f64),
    /// Actor location Z in centimetres that puts every height at its true elevation.
    pub location_z_cm: f64,
}

/// Write the PNG(s) and `<dir>/<stem>.unreal.json` for `h` (heights in metres).
pub fn write_unreal(dir: &Path, stem: &str, h: &Grid<f64>, opts: UnrealOptions) -> Result<UnrealExport> {
    let main = dir.join(format!("{stem}.png"));
    let note = dir.join(format!("{stem}.unreal.json"));
    let (low, high) = checked_range(&main, h)?;
    let max = MAX_SIDE as usize;
    if let Some(n) = opts.size {
        if !(2..=max).contains(&n) {
            return Err(IoError::invalid(&main, format!("Unreal landscape size {n} must be 2..={max}")));
        }
    }
    let (w, hh) = match opts.tile {
        None => match opts.size {
            Some(n) => (n, n),
            None => (unreal_size(h.width()), unreal_size(h.height())),
        },
        Some(t) => {
            if !(2..=max).contains(&t) {
                return Err(IoError::invalid(&main, format!("Unreal tile size {t} must be 2..={max}")));
            }
            let step = t - 1;
            match opts.size {
                Some(n) if (n - 1) % step == 0 => (n, n),
                Some(n) => {
                    return Err(IoError::invalid(
                        &main,
                        format!("landscape size {n} is not k·(tile − 1) + 1 for tile {t} (tiles share edges)"),
                    ))
                }
                None => {
                    let fit = |n: usize| (n - 1).div_ceil(step).max(1) * step + 1;
                    (fit(h.width()), fit(h.height()))
                }
            }
        }
    };
    if w > max || hh > max {
        return Err(IoError::invalid(&main, format!("landscape of {w}×{hh} vertices exceeds {max} per side")));
    }
    let r = resample_bilinear(h, w, hh);
    let mut files = Vec::new();
    let tiles = match opts.tile {
        None => {
            write_png16(&main, &r, low, high)?;
            files.push(main.clone());
            (1, 1)
        }
        Some(t) => {
            for (tx, ty, x0, y0) in unreal_tiles(w, hh, t) {
                let path = dir.join(unreal_tile_name(stem, tx, ty));
                write_png16(&path, &r.crop(x0, y0, t, t), low, high)?;
                files.push(path);
            }
            ((w - 1) / (t - 1), (hh - 1) / (t - 1))
        }
    };
    let z_scale = (high - low) * 100.0 / 512.0;
    let xy_scale_cm = (r.dx * 100.0, r.dy * 100.0);
    let location_z_cm = (low + high) / 2.0 * 100.0;
    let settings = |n: usize| match unreal_settings(opts.tile.unwrap_or(n)) {
        Some(s) => serde_json::json!({
            "quads_per_section": s.quads_per_section,
            "sections_per_component": if s.sections_per_component == 4 { "2x2" } else { "1x1" },
            "components_per_side": s.components_per_side,
        }),
        None => serde_json::Value::Null,
    };
    let names: Vec<String> =
        files.iter().map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()).collect();
    let value = serde_json::json!({
        "engine": "unreal",
        "files": names,
        "format": "PNG, 16-bit greyscale",
        "landscape_vertices": [w, hh],
        "tile_vertices": opts.tile,
        "tiles": [tiles.0, tiles.1],
        "tile_naming": format!("{stem}_x<column>_y<row>.png, from 0 at the north-west corner; tiles share edges"),
        "recommended_settings": settings(w),
        "scale_x_cm": xy_scale_cm.0,
        "scale_y_cm": xy_scale_cm.1,
        "scale_z_percent": z_scale,
        "location_z_cm": location_z_cm,
        "z_scale_formula": "(high_m - low_m) * 100 / 512 (Z scale 100 spans 512 m)",
        "low_m": low,
        "high_m": high,
    });
    write_json(&note, &value)?;
    Ok(UnrealExport { files, note, size: (w, hh), tiles, z_scale, xy_scale_cm, location_z_cm })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recommended_sizes_fit_their_components() {
        for r in UNREAL_RECOMMENDED {
            assert_eq!(r.components_per_side * r.component_quads() + 1, r.vertices, "{r:?}");
        }
        assert_eq!(unreal_size(33), 127);
        assert_eq!(unreal_size(1009), 1009);
        assert_eq!(unreal_size(1010), 2017);
        assert_eq!(unreal_size(9000), 8129);
        assert_eq!(unreal_tile_name("height", 2, 0), "height_x2_y0.png");
        assert_eq!(unreal_tiles(33, 17, 17), vec![(0, 0, 0, 0), (1, 0, 16, 0)]);
        assert_eq!(unreal_tiles(9, 9, 5).len(), 4);
    }
}

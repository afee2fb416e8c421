//! Engine exports: height maps, layer weights and meshes in the shapes game engines import.
//!
//! * [`unity`] — `.r16` at a `2ⁿ + 1` resolution with a JSON note of the terrain size and height.
//! * [`unreal`] — 16-bit greyscale PNG at a recommended landscape size, optionally tiled into
//!   `_xA_yB` tiles, with a JSON note of the XY/Z scales and location.
//! * [`godot`] — `.r16` and a single-channel float32 OpenEXR ([`exr`]) in metres.
//! * [`weights`] — per-layer 8-bit weight maps and RGBA splat maps that sum to 255 per pixel.
//! * [`mesh`], [`glb`], [`obj`] — chunked triangle meshes written as glTF 2.0 binary or OBJ;
//!   [`gltf`] — the GLB scene encoder under [`glb`], with vertex colours and instancing;
//!   [`glb_quantised`] — the same terrain mesh with 16/8-bit attributes (`KHR_mesh_quantization`).
//! * [`image`] — rendered frames as PNG, PPM, animated GIF or MP4 (through `ffmpeg`).
//! * [`vox`] — voxel volumes as MagicaVoxel `.vox`, split into ≤ 256³ models placed by the
//!   scene graph.
//!
//! Every writer writes each file atomically (see the crate documentation) and returns the paths
//! it wrote. Layouts are documented in `docs/formats.md`, section "Engine exports".

pub mod exr;
pub mod geometry;
pub mod glb;
pub mod glb_quantised;
pub mod gltf;
pub mod godot;
pub mod image;
pub mod mesh;
pub mod obj;
pub mod unity;
pub mod unreal;
pub mod vox;
pub mod weights;

use crate::error::{IoError, Result};
use crate::fsio::{atomic_write, write_all};
use crate::quantise::check_finite;
use bozkir_core::Grid;
use std::path::Path;

/// Resample `g` to `w × h` by bilinear interpolation with the corner cells aligned (the first
/// and last rows and columns keep their values). The cell size is scaled so that the extent
/// `(width − 1)·dx × (height − 1)·dy` is unchanged.
pub fn resample_bilinear(g: &Grid<f64>, w: usize, h: usize) -> Grid<f64> {
    assert!(w > 0 && h > 0 && !g.is_empty(), "resample_bilinear: empty grid");
    if w == g.width() && h == g.height() {
        return g.clone();
    }
    let (gw, gh) = (g.width(), g.height());
    let sx = if w > 1 { (gw - 1) as f64 / (w - 1) as f64 } else { 0.0 };
    let sy = if h > 1 { (gh - 1) as f64 / (h - 1) as f64 } else { 0.0 };
    let d = g.data();
    let out = Grid::from_fn(w, h, |x, y| {
        let fx = (x as f64 * sx).min((gw - 1) as f64);
        let fy = (y as f64 * sy).min((gh - 1) as f64);
        let (x0, y0) = (fx.floor() as usize, fy.floor() as usize);
        let (x1, y1) = ((x0 + 1).min(gw - 1), (y0 + 1).min(gh - 1));
        let (tx, ty) = (fx - x0 as f64, fy - y0 as f64);
        let top = d[y0 * gw + x0] * (1.0 - tx) + d[y0 * gw + x1] * tx;
        let bottom = d[y1 * gw + x0] * (1.0 - tx) + d[y1 * gw + x1] * tx;
        top * (1.0 - ty) + bottom * ty
    });
    let dx = if w > 1 { g.dx * sx } else { g.dx };
    let dy = if h > 1 { g.dy * sy } else { g.dy };
    out.with_cell_size(dx, dy)
}

/// Resample a categorical grid (class ids, weights) to `w × h` by nearest neighbour, with the
/// same corner alignment as [`resample_bilinear`].
pub fn resample_nearest<T: Clone>(g: &Grid<T>, w: usize, h: usize) -> Grid<T> {
    assert!(w > 0 && h > 0 && !g.is_empty(), "resample_nearest: empty grid");
    let (gw, gh) = (g.width(), g.height());
    let sx = if w > 1 { (gw - 1) as f64 / (w - 1) as f64 } else { 0.0 };
    let sy = if h > 1 { (gh - 1) as f64 / (h - 1) as f64 } else { 0.0 };
    let out = Grid::from_fn(w, h, |x, y| {
        let sxi = ((x as f64 * sx).round() as usize).min(gw - 1);
        let syi = ((y as f64 * sy).round() as usize).min(gh - 1);
        g.get(sxi, syi).clone()
    });
    let dx = if w > 1 { g.dx * sx } else { g.dx };
    let dy = if h > 1 { g.dy * sy } else { g.dy };
    out.with_cell_size(dx, dy)
}

/// The finite height range of `h`, refusing NaN/infinite heights and bad cell sizes (naming
/// `path`, the file about to be written).
pub(crate) fn checked_range(path: &Path, h: &Grid<f64>) -> Result<(f64, f64)> {
    if h.is_empty() {
        return Err(IoError::Empty { path: path.to_path_buf(), what: "empty height field".into() });
    }
    check_finite(path, h)?;
    if !(h.dx.is_finite() && h.dy.is_finite() && h.dx > 0.0 && h.dy > 0.0) {
        return Err(IoError::invalid(path, format!("cell size ({}, {}) m must be finite and positive", h.dx, h.dy)));
    }
    Ok(h.min_max().unwrap_or((0.0, 0.0)))
}

/// Write a pretty-printed JSON note (atomically), ending with a newline.
pub(crate) fn write_json(path: &Path, value: &serde_json::Value) -> Result<()> {
    let mut text =
        serde_json::to_vec_pretty(value).map_err(|e| IoError::Json { path: path.to_path_buf(), error: e })?;
    text.push(b'\n');
    atomic_write(path, |w| write_all(path, w, &text))
}

/// Write `values` as raw little-endian `u16`, row-major (atomically).
pub(crate) fn write_u16_le(path: &Path, values: &[u16]) -> Result<()> {
    let bytes: Vec<u8> = values.iter().flat_map(|q| q.to_le_bytes()).collect();
    atomic_write(path, |w| write_all(path, w, &bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bilinear_keeps_corners_and_extent() {
        let g = Grid::from_fn(3, 2, |x, y| (x + 10 * y) as f64).with_cell_size(2.0, 4.0);
        let r = resample_bilinear(&g, 5, 3);
        assert_eq!(*r.get(0, 0), 0.0);
        assert_eq!(*r.get(4, 2), 12.0);
        assert_eq!(*r.get(1, 1), 5.5);
        assert_eq!((r.dx, r.dy), (1.0, 2.0));
        let n = resample_nearest(&Grid::from_vec(2, 1, vec![1u8, 2]), 3, 1);
        assert_eq!(n.data(), &[1, 2, 2]);
    }
}

//! Per-layer 8-bit weight maps and RGBA splat maps.
//!
//! Input: a class map (`Grid<u8>` of class ids, one-hot: weight 255 for the pixel's class) or
//! soft per-layer weights (`&[Grid<f64>]`, any non-negative scale). Each pixel's weights are
//! turned into bytes that sum to exactly 255 by largest-remainder rounding
//! ([`largest_remainder_255`]).
//!
//! Files (see [`write_weight_maps`]): `<stem>_<name>.png` (8-bit greyscale, one per layer),
//! `<stem>_splat<k>.png` (8-bit RGBA, layers `4k … 4k + 3` in R, G, B, A; missing channels 0)
//! and `<stem>.json` (the layer → file and channel table).
//!
//! Tiled ([`write_weight_maps_tiled`], for Unreal's tiled landscapes): the same maps cut into the
//! height tiles' extents ([`unreal_tiles`]: `T × T`, sharing edges), named like the height tiles,
//! `<stem>_<name>_x<A>_y<B>.png` and `<stem>_splat<k>_x<A>_y<B>.png`.

use super::unreal::{unreal_tile_name, unreal_tiles};
use super::write_json;
use crate::error::{IoError, Result};
use crate::png8::write_png8;
use crate::png_common::{decode, describe, encode};
use bozkir_core::Grid;
use std::path::{Path, PathBuf};

/// Round `weights` (non-negative; NaN, infinite and negative count as 0) to bytes summing to
/// exactly 255: each gets `floor(255·wᵢ/Σw)`, and the units left go to the largest fractional
/// parts (ties to the lower index). All-zero weights are split equally the same way.
pub fn largest_remainder_255(weights: &[f64], out: &mut [u8]) {
    assert_eq!(weights.len(), out.len(), "largest_remainder_255: length mismatch");
    if weights.is_empty() {
        return;
    }
    let clean = |w: f64| if w.is_finite() && w > 0.0 { w } else { 0.0 };
    let mut sum: f64 = weights.iter().map(|&w| clean(w)).sum();
    let equal = !(sum.is_finite() && sum > 0.0);
    if equal {
        sum = weights.len() as f64;
    }
    let mut total = 0u32;
    let mut fracs: Vec<(f64, usize)> = Vec::with_capacity(weights.len());
    for (i, &w) in weights.iter().enumerate() {
        let w = if equal { 1.0 } else { clean(w) };
        let exact = (255.0 * w / sum).min(255.0);
        let floor = exact.floor();
        out[i] = floor as u8;
        total += floor as u32;
        fracs.push((exact - floor, i));
    }
    fracs.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let left = 255u32.saturating_sub(total) as usize;
    for &(_, i) in fracs.iter().cycle().take(left) {
        out[i] = out[i].saturating_add(1);
    }
}

/// The distinct class ids of a class map, ascending.
pub fn distinct_classes(classes: &Grid<u8>) -> Vec<u8> {
    let mut seen = [false; 256];
    for &c in classes.data() {
        seen[c as usize] = true;
    }
    (0..=255u8).filter(|&c| seen[c as usize]).collect()
}

/// One-hot layers of a class map: layer `i` is 255 where the class is `ids[i]`, else 0. A pixel
/// whose class is not in `ids` gets its 255 split equally over the layers (largest remainder).
pub fn class_layers(classes: &Grid<u8>, ids: &[u8]) -> Vec<Grid<u8>> {
    let mut layers: Vec<Grid<u8>> = ids.iter().map(|_| classes.same_shape(0u8)).collect();
    let mut index = [usize::MAX; 256];
    for (i, &id) in ids.iter().enumerate() {
        if index[id as usize] == usize::MAX {
            index[id as usize] = i;
        }
    }
    let mut fallback = vec![0u8; ids.len()];
    largest_remainder_255(&vec![0.0; ids.len()], &mut fallback);
    for (p, &c) in classes.data().iter().enumerate() {
        match index[c as usize] {
            usize::MAX => {
                for (layer, &v) in layers.iter_mut().zip(&fallback) {
                    layer.data_mut()[p] = v;
                }
            }
            i => layers[i].data_mut()[p] = 255,
        }
    }
    layers
}

/// Quantise soft weights (one grid per layer, all the same shape) to bytes summing to 255 per
/// pixel. Panics when the layers differ in shape.
pub fn soft_layers(weights: &[Grid<f64>]) -> Vec<Grid<u8>> {
    let Some(first) = weights.first() else { return Vec::new() };
    assert!(
        weights.iter().all(|g| g.width() == first.width() && g.height() == first.height()),
        "soft_layers: layers differ in shape"
    );
    let mut layers: Vec<Grid<u8>> = weights.iter().map(|g| g.same_shape(0u8)).collect();
    let mut w = vec![0.0; weights.len()];
    let mut b = vec![0u8; weights.len()];
    for p in 0..first.len() {
        for (wi, g) in w.iter_mut().zip(weights) {
            *wi = g.data()[p];
        }
        largest_remainder_255(&w, &mut b);
        for (layer, &v) in layers.iter_mut().zip(&b) {
            layer.data_mut()[p] = v;
        }
    }
    layers
}

/// Pack layers four at a time into RGBA pixels (R = layer 4k, …, A = layer 4k + 3; 0 where a
/// layer is missing).
pub fn pack_splats(layers: &[Grid<u8>]) -> Vec<Grid<[u8; 4]>> {
    layers
        .chunks(4)
        .map(|group| {
            let mut out = group[0].same_shape([0u8; 4]);
            for (c, layer) in group.iter().enumerate() {
                for (px, &v) in out.data_mut().iter_mut().zip(layer.data()) {
                    px[c] = v;
                }
            }
            out
        })
        .collect()
}

/// Write an 8-bit RGBA PNG (colour type 6).
pub fn write_rgba8(path: impl AsRef<Path>, grid: &Grid<[u8; 4]>) -> Result<()> {
    let path = path.as_ref();
    let bytes: Vec<u8> = grid.data().iter().flatten().copied().collect();
    encode(path, grid.width(), grid.height(), png::ColorType::Rgba, png::BitDepth::Eight, &bytes)
}

/// Read an 8-bit RGBA PNG; other types are refused as unsupported.
pub fn read_rgba8(path: impl AsRef<Path>) -> Result<Grid<[u8; 4]>> {
    let path = path.as_ref();
    let png = decode(path)?;
    if png.color != png::ColorType::Rgba || png.depth != png::BitDepth::Eight {
        return Err(IoError::unsupported(path, format!("{} (expected 8-bit RGBA)", describe(png.color, png.depth))));
    }
    let px = png.data.chunks_exact(4).map(|p| [p[0], p[1], p[2], p[3]]).collect();
    Ok(Grid::from_vec(png.width, png.height, px))
}

const CHANNELS: [&str; 4] = ["R", "G", "B", "A"];

/// What [`write_weight_maps`] wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct WeightExport {
    /// One greyscale PNG per layer, in layer order.
    pub layers: Vec<PathBuf>,
    /// One RGBA PNG per four layers.
    pub splats: Vec<PathBuf>,
    /// The JSON table of layers, files and channels.
    pub note: PathBuf,
}

/// Write weight layers (bytes summing to 255 per pixel, e.g. from [`class_layers`] or
/// [`soft_layers`]) as `<stem>_<names[i]>.png`, `<stem>_splat<k>.png` and `<stem>.json`.
/// `names` must match `layers` in length, be distinct, and use only `[A-Za-z0-9_-]`.
pub fn write_weight_maps(dir: &Path, stem: &str, layers: &[Grid<u8>], names: &[String]) -> Result<WeightExport> {
    write_maps(dir, stem, layers, names, None)
}

/// [`write_weight_maps`] cut into tiles of `tile × tile` pixels sharing their edges, with the
/// extents and names of Unreal's height tiles: `<stem>_<name>_x<A>_y<B>.png` and
/// `<stem>_splat<k>_x<A>_y<B>.png` (column `A`, row `B` from 0 at the north-west corner). The
/// layers must be `k·(tile − 1) + 1` pixels per axis. [`WeightExport::layers`] lists every layer's
/// tiles (layer by layer, tiles row by row), likewise `splats`.
pub fn write_weight_maps_tiled(
    dir: &Path,
    stem: &str,
    layers: &[Grid<u8>],
    names: &[String],
    tile: usize,
) -> Result<WeightExport> {
    write_maps(dir, stem, layers, names, Some(tile))
}

/// Writes the window `(x0, y0, width, height)` of one map to a path.
type PutWindow<'a> = dyn Fn(&Path, usize, usize, usize, usize) -> Result<()> + 'a;

fn write_maps(
    dir: &Path,
    stem: &str,
    layers: &[Grid<u8>],
    names: &[String],
    tile: Option<usize>,
) -> Result<WeightExport> {
    let note = dir.join(format!("{stem}.json"));
    if layers.is_empty() || layers.len() != names.len() {
        return Err(IoError::invalid(&note, format!("{} layers with {} names", layers.len(), names.len())));
    }
    let ok = |n: &String| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if let Some(bad) = names.iter().find(|n| !ok(n)) {
        return Err(IoError::invalid(&note, format!("layer name {bad:?} (use A-Z, a-z, 0-9, _ and -)")));
    }
    if (1..names.len()).any(|i| names[..i].contains(&names[i])) {
        return Err(IoError::invalid(&note, "layer names must be distinct"));
    }
    let (w, h) = (layers[0].width(), layers[0].height());
    if layers.iter().any(|l| l.width() != w || l.height() != h) {
        return Err(IoError::invalid(&note, "weight layers differ in size"));
    }
    let tiles = match tile {
        None => None,
        Some(t) => {
            if t < 2 || w < 2 || h < 2 || (w - 1) % (t - 1) != 0 || (h - 1) % (t - 1) != 0 {
                return Err(IoError::invalid(
                    &note,
                    format!("weight maps of {w}×{h} pixels are not k·(tile − 1) + 1 per axis for tile {t}"),
                ));
            }
            Some((t, unreal_tiles(w, h, t)))
        }
    };
    // One map (a layer or a splat) as a file or as tiles; returns the paths.
    let write = |name: &str, put: &PutWindow| -> Result<Vec<PathBuf>> {
        match &tiles {
            None => {
                let path = dir.join(format!("{name}.png"));
                put(&path, 0, 0, w, h)?;
                Ok(vec![path])
            }
            Some((t, list)) => list
                .iter()
                .map(|&(tx, ty, x0, y0)| {
                    let path = dir.join(unreal_tile_name(name, tx, ty));
                    put(&path, x0, y0, *t, *t)?;
                    Ok(path)
                })
                .collect(),
        }
    };
    let whole = |x0: usize, y0: usize, tw: usize, th: usize| (x0, y0, tw, th) == (0, 0, w, h);
    let mut out = WeightExport { layers: Vec::new(), splats: Vec::new(), note: note.clone() };
    let mut table = Vec::new();
    let pattern = |base: &str| match tile {
        None => format!("{base}.png"),
        Some(_) => format!("{base}_x<column>_y<row>.png"),
    };
    for (i, (layer, name)) in layers.iter().zip(names).enumerate() {
        let base = format!("{stem}_{name}");
        out.layers.extend(write(&base, &|path, x0, y0, tw, th| {
            if whole(x0, y0, tw, th) {
                write_png8(path, layer)
            } else {
                write_png8(path, &layer.crop(x0, y0, tw, th))
            }
        })?);
        table.push(serde_json::json!({
            "layer": name,
            "file": pattern(&base),
            "splat": pattern(&format!("{stem}_splat{}", i / 4)),
            "channel": CHANNELS[i % 4],
        }));
    }
    for (k, splat) in pack_splats(layers).iter().enumerate() {
        out.splats.extend(write(&format!("{stem}_splat{k}"), &|path, x0, y0, tw, th| {
            if whole(x0, y0, tw, th) {
                write_rgba8(path, splat)
            } else {
                write_rgba8(path, &splat.crop(x0, y0, tw, th))
            }
        })?);
    }
    let mut value = serde_json::json!({
        "width": w,
        "height": h,
        "sum_per_pixel": 255,
        "rounding": "largest remainder",
        "layers": table,
    });
    if let Some((t, list)) = &tiles {
        value["tile_pixels"] = (*t).into();
        value["tiles"] = serde_json::json!([(w - 1) / (t - 1), (h - 1) / (t - 1)]);
        value["tile_count"] = list.len().into();
        value["tile_naming"] =
            "<file>_x<column>_y<row>.png, from 0 at the north-west corner; tiles share edges (as the height tiles)"
                .into();
    }
    write_json(&note, &value)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remainders_sum_to_255() {
        let mut b = [0u8; 3];
        largest_remainder_255(&[1.0, 1.0, 1.0], &mut b);
        assert_eq!(b, [85, 85, 85]);
        largest_remainder_255(&[1.0, 1.0, 0.0], &mut b);
        assert_eq!(b, [128, 127, 0]);
        largest_remainder_255(&[0.0, f64::NAN, -1.0], &mut b);
        assert_eq!(b, [85, 85, 85]);
        let mut b7 = [0u8; 7];
        largest_remainder_255(&[0.1, 0.2, 0.3, 0.05, 0.15, 0.12, 0.08], &mut b7);
        assert_eq!(b7.iter().map(|&v| v as u32).sum::<u32>(), 255);
        let mut one = [0u8; 1];
        largest_remainder_255(&[1e-300], &mut one);
        assert_eq!(one, [255]);
    }
}

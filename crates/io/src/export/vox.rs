//! MagicaVoxel `.vox` of a voxel volume: palette-indexed voxels, split into models of at most
//! 256³ placed by the scene graph.
//!
//! Format: MagicaVoxel's `.vox` (version 150, the format published with MagicaVoxel, with the
//! scene-graph extension of 0.99): `VOX `, the version, then one `MAIN` chunk whose children are
//! a `SIZE` + `XYZI` pair per model, the scene graph, one layer (`LAYR`) and the `RGBA`
//! palette. Each chunk is its 4-byte id, the content size and the children size (`i32`,
//! little-endian), the content, the children. Layout and conventions in detail: `docs/formats.md`,
//! "MagicaVoxel `.vox`".
//!
//! Input (our frame, the one of the meshes: right-handed, y up, north = −z): dimensions
//! `(nx, ny, nz)` and one `u8` per voxel at linear index `x + nx·(z + nz·y)`, 0 = empty and
//! `k ≥ 1` = palette colour `palette[k − 1]` (RGBA, at most 255 colours).
//!
//! Axes: MagicaVoxel is right-handed with z up, so our voxel `(x, y, z)` goes to `.vox`
//! `(x, nz − 1 − z, y)`: `.vox` +x = our +x (east), +y = our −z (north), +z = our +y (up). This
//! is a rotation (+90° about x), not a mirror: the model stays right-handed and upright. (A plain
//! swap `(x, z, y)` would mirror it.)
//!
//! Placement, MagicaVoxel's own convention for a new model: centred on the ground, i.e. the
//! `.vox` volume `(nx, nz, ny)` is shifted by `c = (floor(nx/2), floor(nz/2), 0)`, so our voxel
//! `(x, y, z)` lands at the world position `(x − floor(nx/2), nz − 1 − z − floor(nz/2), y)`
//! ([`vox_position`]): x and y from `−floor(n/2)`, z from 0 (the ground; MagicaVoxel renders only
//! what is above it).
//!
//! Models: the `.vox` volume is cut into tiles of 256 per axis, ordered with `.vox` x fastest,
//! then y, then z; tile `(i, j, k)` covers `.vox` voxels from `o = 256·(i, j, k)` and has size
//! `s = min(256, extent − o)` per axis. Every tile is written, empty or not. The scene graph
//! (always written, one model or many): root transform (node 0, layer −1) → group (node 1) → per
//! model `m` a transform (node `2 + 2m`, named `tile_<i>_<j>_<k>`, layer 0) → a shape (node
//! `3 + 2m`) showing model `m`. MagicaVoxel puts a model's voxel `floor(s/2)` at the transform's
//! translation `_t`, so `_t = o + floor(s/2) − c` puts model voxel `v` at `o + v − c`. (A single
//! model thus gets `_t = (0, 0, floor(s_z/2))`, what MagicaVoxel writes for a new one.)
//!
//! Caps, checked before anything is allocated or written: MagicaVoxel's world, at most
//! [`MAX_VOX_SIDE`] (2048) voxels across (our x and z) and [`MAX_VOX_HEIGHT`] (1024) high (our
//! y), which centred fits its ±1024 editable range; [`MAX_VOX_CELLS`] voxels in all; a file of at
//! most `i32::MAX` bytes (the format's chunk sizes are `i32`). Deterministic: the same input
//! gives the same bytes.

use crate::error::{IoError, Result};
use crate::fsio::atomic_write;
use std::io::Write;
use std::path::Path;

/// The `.vox` version written.
pub const VOX_VERSION: u32 = 150;
/// Largest side of one MagicaVoxel model.
pub const VOX_MODEL_SIDE: usize = 256;
/// Largest horizontal side (our x and z) of a volume written, in voxels: MagicaVoxel's world is
/// 2048 across.
pub const MAX_VOX_SIDE: usize = 2048;
/// Largest height (our y) of a volume written, in voxels: MagicaVoxel's world is 1024 high.
pub const MAX_VOX_HEIGHT: usize = 1024;
/// Largest number of voxels (cells, empty or not) of a volume written: 2^30.
pub const MAX_VOX_CELLS: u64 = crate::limits::MAX_CELLS;
/// Largest palette: colours for indices 1..=255.
pub const MAX_VOX_COLOURS: usize = 255;

/// What [`write_vox`] wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VoxSummary {
    /// Models (tiles of at most 256³).
    pub models: usize,
    /// Non-empty voxels.
    pub voxels: u64,
    /// File size in bytes.
    pub bytes: u64,
}

/// The MagicaVoxel world position of our voxel `(x, y, z)` in a volume of `dims = (nx, ny, nz)`
/// written by [`write_vox`]: `(x − floor(nx/2), nz − 1 − z − floor(nz/2), y)`; `None` when the
/// voxel is outside the volume.
///
/// ```
/// use bozkir_io::export::vox::vox_position;
/// // East is MagicaVoxel's +x, north (our −z) its +y, up (our +y) its +z; centred on the ground.
/// assert_eq!(vox_position([4, 5, 6], [0, 0, 5]), Some([-2, -3, 0]));
/// assert_eq!(vox_position([4, 5, 6], [3, 4, 0]), Some([1, 2, 4]));
/// assert_eq!(vox_position([4, 5, 6], [1, 2, 6]), None);
/// ```
pub fn vox_position(dims: [usize; 3], xyz: [usize; 3]) -> Option<[i64; 3]> {
    if (0..3).any(|a| xyz[a] >= dims[a]) {
        return None;
    }
    let [nx, _, nz] = dims.map(|d| d as i64);
    let [x, y, z] = xyz.map(|d| d as i64);
    Some([x - nx / 2, nz - 1 - z - nz / 2, y])
}

/// The `.vox` extent `(nx, nz, ny)` of a volume of `dims = (nx, ny, nz)`.
pub fn vox_extent(dims: [usize; 3]) -> [usize; 3] {
    [dims[0], dims[2], dims[1]]
}

/// One model: its origin and size in `.vox` voxels and its tile index.
#[derive(Clone, Copy, Debug)]
struct Tile {
    origin: [usize; 3],
    size: [usize; 3],
    index: [usize; 3],
}

fn tiles(extent: [usize; 3]) -> (Vec<Tile>, [usize; 3]) {
    let counts = extent.map(|e| e.div_ceil(VOX_MODEL_SIDE));
    let mut out = Vec::with_capacity(counts.iter().product());
    for k in 0..counts[2] {
        for j in 0..counts[1] {
            for i in 0..counts[0] {
                let index = [i, j, k];
                let origin = index.map(|t| t * VOX_MODEL_SIDE);
                let size = [0, 1, 2].map(|a| (extent[a] - origin[a]).min(VOX_MODEL_SIDE));
                out.push(Tile { origin, size, index });
            }
        }
    }
    (out, counts)
}

fn chunk_header(id: &[u8; 4], content: usize, children: usize) -> [u8; 12] {
    let mut h = [0u8; 12];
    h[..4].copy_from_slice(id);
    h[4..8].copy_from_slice(&(content as u32).to_le_bytes());
    h[8..12].copy_from_slice(&(children as u32).to_le_bytes());
    h
}

fn push_chunk(out: &mut Vec<u8>, id: &[u8; 4], content: &[u8]) {
    out.extend_from_slice(&chunk_header(id, content.len(), 0));
    out.extend_from_slice(content);
}

fn push_i32(out: &mut Vec<u8>, v: i32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// A `.vox` DICT: pair count, then each key and value as length-prefixed bytes.
fn push_dict(out: &mut Vec<u8>, pairs: &[(&str, &str)]) {
    push_i32(out, pairs.len() as i32);
    for (k, v) in pairs {
        for s in [k, v] {
            push_i32(out, s.len() as i32);
            out.extend_from_slice(s.as_bytes());
        }
    }
}

/// The scene-graph chunks placing `tiles` of a `.vox` volume of `extent`, and the one layer.
fn scene_graph(tiles: &[Tile], extent: [usize; 3]) -> Vec<u8> {
    let mut out = Vec::new();
    let centre = [extent[0] / 2, extent[1] / 2, 0].map(|c| c as i64);
    let mut c = Vec::new();
    // Root transform: node 0, child 1 (the group), reserved -1, layer -1, one empty frame.
    push_i32(&mut c, 0);
    push_dict(&mut c, &[]);
    for v in [1, -1, -1, 1] {
        push_i32(&mut c, v);
    }
    push_dict(&mut c, &[]);
    push_chunk(&mut out, b"nTRN", &c);
    // Group: node 1, the model transforms as children.
    c.clear();
    push_i32(&mut c, 1);
    push_dict(&mut c, &[]);
    push_i32(&mut c, tiles.len() as i32);
    for m in 0..tiles.len() {
        push_i32(&mut c, 2 + 2 * m as i32);
    }
    push_chunk(&mut out, b"nGRP", &c);
    for (m, t) in tiles.iter().enumerate() {
        let name = format!("tile_{}_{}_{}", t.index[0], t.index[1], t.index[2]);
        let tr = [0, 1, 2].map(|a| (t.origin[a] + t.size[a] / 2) as i64 - centre[a]);
        let tr = format!("{} {} {}", tr[0], tr[1], tr[2]);
        c.clear();
        push_i32(&mut c, 2 + 2 * m as i32);
        push_dict(&mut c, &[("_name", &name)]);
        for v in [3 + 2 * m as i32, -1, 0, 1] {
            push_i32(&mut c, v);
        }
        push_dict(&mut c, &[("_t", &tr)]);
        push_chunk(&mut out, b"nTRN", &c);
        c.clear();
        push_i32(&mut c, 3 + 2 * m as i32);
        push_dict(&mut c, &[]);
        push_i32(&mut c, 1);
        push_i32(&mut c, m as i32);
        push_dict(&mut c, &[]);
        push_chunk(&mut out, b"nSHP", &c);
    }
    // Layer 0, which the model transforms name: its id, attributes, reserved id -1.
    c.clear();
    push_i32(&mut c, 0);
    push_dict(&mut c, &[("_name", "bozkir")]);
    push_i32(&mut c, -1);
    push_chunk(&mut out, b"LAYR", &c);
    out
}

/// Write a voxel volume as a MagicaVoxel `.vox` file (atomically).
///
/// `dims = (nx, ny, nz)` in our frame (y up), `voxels[x + nx·(z + nz·y)]` a palette index
/// (0 = empty, `k` = `palette[k − 1]`), `palette` at most 255 RGBA colours. See the module
/// documentation for the axes, the split into models and the placement.
///
/// Refused before anything is written, naming the file: a zero dimension ([`IoError::Empty`]),
/// more than [`MAX_VOX_SIDE`] across or [`MAX_VOX_HEIGHT`] high, more than [`MAX_VOX_CELLS`]
/// cells, a voxel slice of the wrong
/// length, more than 255 colours, a voxel whose index has no colour (naming the voxel and the
/// index), a file that would exceed the format's 2 GiB ([`IoError::TooMany`] or
/// [`IoError::InvalidArgument`]).
pub fn write_vox(path: impl AsRef<Path>, dims: [usize; 3], voxels: &[u8], palette: &[[u8; 4]]) -> Result<VoxSummary> {
    let path = path.as_ref();
    let [nx, ny, nz] = dims;
    if nx == 0 || ny == 0 || nz == 0 {
        return Err(IoError::Empty { path: path.to_path_buf(), what: format!("{nx}×{ny}×{nz} voxel volume") });
    }
    if nx > MAX_VOX_SIDE || nz > MAX_VOX_SIDE || ny > MAX_VOX_HEIGHT {
        return Err(IoError::invalid(
            path,
            format!(
                "{nx}×{ny}×{nz} voxel volume: MagicaVoxel's world holds at most {MAX_VOX_SIDE} across (x, z) and {MAX_VOX_HEIGHT} high (y)"
            ),
        ));
    }
    let cells = (nx as u64) * (ny as u64) * (nz as u64);
    if cells > MAX_VOX_CELLS {
        return Err(IoError::TooMany {
            path: path.to_path_buf(),
            what: "voxel volume cells",
            count: cells,
            limit: MAX_VOX_CELLS,
        });
    }
    if voxels.len() as u64 != cells {
        return Err(IoError::invalid(
            path,
            format!("{} voxels given for a {nx}×{ny}×{nz} volume ({cells} expected)", voxels.len()),
        ));
    }
    if palette.len() > MAX_VOX_COLOURS {
        return Err(IoError::invalid(
            path,
            format!("palette of {} colours; .vox holds at most {MAX_VOX_COLOURS} (indices 1..=255)", palette.len()),
        ));
    }

    // Validate the indices and count each model's voxels, in memory order.
    let extent = vox_extent(dims);
    let (tiles, counts) = tiles(extent);
    let mut per_tile = vec![0u64; tiles.len()];
    let max_index = palette.len();
    for y in 0..ny {
        let tk = y / VOX_MODEL_SIDE;
        for z in 0..nz {
            let row = (y * nz + z) * nx;
            let tj = (nz - 1 - z) / VOX_MODEL_SIDE;
            let base = (tk * counts[1] + tj) * counts[0];
            for (x, &v) in voxels[row..row + nx].iter().enumerate() {
                if v == 0 {
                    continue;
                }
                if usize::from(v) > max_index {
                    return Err(IoError::invalid(
                        path,
                        format!(
                            "voxel ({x}, {y}, {z}) has palette index {v} but the palette has {} colours",
                            palette.len()
                        ),
                    ));
                }
                per_tile[base + x / VOX_MODEL_SIDE] += 1;
            }
        }
    }

    let scene = scene_graph(&tiles, extent);
    let mut rgba = vec![0u8; 256 * 4];
    for (k, c) in palette.iter().enumerate() {
        rgba[4 * k..4 * k + 4].copy_from_slice(c);
    }
    let models_bytes: u64 = per_tile.iter().map(|&n| (12 + 12) + (12 + 4 + 4 * n)).sum();
    let children = models_bytes + scene.len() as u64 + (12 + 1024);
    let bytes = 8 + 12 + children;
    if children > i32::MAX as u64 {
        return Err(IoError::TooMany {
            path: path.to_path_buf(),
            what: ".vox MAIN chunk bytes (the format's sizes are i32)",
            count: children,
            limit: i32::MAX as u64,
        });
    }

    atomic_write(path, |w| {
        let io = |e| IoError::io(path, e);
        w.write_all(b"VOX ").map_err(io)?;
        w.write_all(&VOX_VERSION.to_le_bytes()).map_err(io)?;
        w.write_all(&chunk_header(b"MAIN", 0, children as usize)).map_err(io)?;
        let mut buf = Vec::new();
        for (t, &n) in tiles.iter().zip(&per_tile) {
            let size = t.size.map(|s| s as u32);
            w.write_all(&chunk_header(b"SIZE", 12, 0)).map_err(io)?;
            for s in size {
                w.write_all(&s.to_le_bytes()).map_err(io)?;
            }
            w.write_all(&chunk_header(b"XYZI", 4 + 4 * n as usize, 0)).map_err(io)?;
            w.write_all(&(n as u32).to_le_bytes()).map_err(io)?;
            // .vox (vx, vy, vz) = (x, nz − 1 − z, y): the tile's rows, our y (vz) outermost.
            let mut written = 0u64;
            for y in t.origin[2]..t.origin[2] + t.size[2] {
                let vz = (y - t.origin[2]) as u8;
                // vy from origin[1] up: z from nz − 1 − origin[1] down.
                for vy in 0..t.size[1] {
                    let z = nz - 1 - (t.origin[1] + vy);
                    let row = (y * nz + z) * nx;
                    buf.clear();
                    for x in t.origin[0]..t.origin[0] + t.size[0] {
                        let v = voxels[row + x];
                        if v != 0 {
                            buf.extend_from_slice(&[(x - t.origin[0]) as u8, vy as u8, vz, v]);
                        }
                    }
                    written += buf.len() as u64 / 4;
                    w.write_all(&buf).map_err(io)?;
                }
            }
            debug_assert_eq!(written, n);
        }
        w.write_all(&scene).map_err(io)?;
        w.write_all(&chunk_header(b"RGBA", 1024, 0)).map_err(io)?;
        w.write_all(&rgba).map_err(io)
    })?;
    Ok(VoxSummary { models: tiles.len(), voxels: per_tile.iter().sum(), bytes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_cover_the_extent_without_overlap() {
        let (t, counts) = tiles([300, 10, 513]);
        assert_eq!(counts, [2, 1, 3]);
        assert_eq!(t.len(), 6);
        assert_eq!(t[1].origin, [256, 0, 0]);
        assert_eq!(t[1].size, [44, 10, 256]);
        assert_eq!(t[5].origin, [256, 0, 512]);
        assert_eq!(t[5].size, [44, 10, 1]);
        let cells: usize = t.iter().map(|t| t.size.iter().product::<usize>()).sum();
        assert_eq!(cells, 300 * 10 * 513);
    }

    #[test]
    fn mapping_is_a_rotation() {
        // The images of our unit axes, taken as differences of mapped voxels.
        let d = [4, 5, 6];
        let o = vox_position(d, [1, 1, 1]).unwrap();
        let img = |p: [usize; 3]| {
            let q = vox_position(d, p).unwrap();
            [0, 1, 2].map(|a| q[a] - o[a])
        };
        let (ex, ey, ez) = (img([2, 1, 1]), img([1, 2, 1]), img([1, 1, 2]));
        let cross = [ex[1] * ey[2] - ex[2] * ey[1], ex[2] * ey[0] - ex[0] * ey[2], ex[0] * ey[1] - ex[1] * ey[0]];
        assert_eq!(cross, ez, "x × y must stay z: right-handed");
        assert_eq!(ey, [0, 0, 1], "our up is .vox up");
    }
}

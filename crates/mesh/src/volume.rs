//! The block meshers' input: a volume of `u16` block ids with a one-voxel apron, and the
//! [`BlockKinds`] that say which ids are drawn and which hide their neighbours.
//!
//! Layout: `data[x + nx * (z + nz * y)]` (y up; pyworldgen's chunk layout). The outermost layer
//! on every side is the apron: the meshers emit faces only for the interior voxels
//! `1..n-1` on each axis, and the apron only decides whether a border voxel's face is hidden
//! (and its occlusion). Interior voxel `(i, j, k)` (indices into `data`) is the local voxel
//! `(i − 1, j − 1, k − 1)` of the mesh; its cube is `[i−1, i] × …` plus the mesher's origin.
//!
//! Face rule (shared by the culled and greedy meshers): voxel `a` shows a face toward its
//! neighbour `b` when `visible(a) && !opaque(b) && a != b`. So a solid block next to water,
//! glass or leaves shows its face; water next to water, or leaves next to leaves, shows none
//! (one surface per body of one transparent kind); two different transparent kinds that meet
//! show a face each, back to back. pyworldgen 0.1.8's naive mesher differs: it draws every
//! non-air block and shows a face whenever the neighbour is transparent (air, water, window,
//! leaves), so water–water and leaves–leaves faces are emitted inside bodies; its greedy
//! mesher only separates air from non-air (water counts as solid there).
//!
//! Caps: each axis at most [`MAX_AXIS`] voxels, at most [`MAX_VOXELS`] in all (apron included),
//! checked before anything is allocated. With them the worst case (6 faces of 4 vertices per
//! interior voxel) stays below `u32` indices.

use crate::error::{MeshError, Result};

/// Cap on one axis of a block volume (apron included).
pub const MAX_AXIS: usize = 4096;
/// Cap on the voxels of a block volume (apron included): 2²⁶ = 67,108,864.
pub const MAX_VOXELS: usize = 1 << 26;

/// A validated view of a block volume with a one-voxel apron (see the module docs).
#[derive(Debug, Clone, Copy)]
pub struct Voxels<'a> {
    dims: [usize; 3],
    data: &'a [u16],
}

/// Checks dims against a minimum and the caps, and the data length.
pub(crate) fn check_dims(dims: [usize; 3], len: usize, min: usize, why: &'static str) -> Result<usize> {
    if dims.iter().any(|&d| d < min) {
        return Err(MeshError::DimsTooSmall { dims, min, why });
    }
    let too_large = MeshError::TooLarge { dims, max_axis: MAX_AXIS, max_total: MAX_VOXELS };
    if dims.iter().any(|&d| d > MAX_AXIS) {
        return Err(too_large);
    }
    let total = match dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d)) {
        Some(t) if t <= MAX_VOXELS => t,
        _ => return Err(too_large),
    };
    if len != total {
        return Err(MeshError::LengthMismatch { dims, expected: total, actual: len });
    }
    Ok(total)
}

impl<'a> Voxels<'a> {
    /// A view of `data` with `dims = [nx, ny, nz]` (apron included). Every axis needs at least 3
    /// voxels (apron, one interior voxel, apron), the data exactly `nx * ny * nz` ids, and the
    /// dims must be within [`MAX_AXIS`] and [`MAX_VOXELS`].
    pub fn new(dims: [usize; 3], data: &'a [u16]) -> Result<Self> {
        check_dims(dims, data.len(), 3, "a 1-voxel apron on both sides of at least one interior voxel")?;
        Ok(Self { dims, data })
    }

    /// `[nx, ny, nz]`, apron included.
    pub fn dims(&self) -> [usize; 3] {
        self.dims
    }

    /// The ids, `x + nx * (z + nz * y)`.
    pub fn data(&self) -> &'a [u16] {
        self.data
    }

    /// Index of `(x, y, z)` in [`Voxels::data`] (no bounds check beyond the slice's).
    pub fn index(&self, x: usize, y: usize, z: usize) -> usize {
        x + self.dims[0] * (z + self.dims[2] * y)
    }

    /// The id at `(x, y, z)`; `None` outside the volume.
    pub fn get(&self, x: usize, y: usize, z: usize) -> Option<u16> {
        if x < self.dims[0] && y < self.dims[1] && z < self.dims[2] {
            Some(self.data[self.index(x, y, z)])
        } else {
            None
        }
    }

    /// Index steps of +x, +y, +z.
    pub(crate) fn strides(&self) -> [isize; 3] {
        [1, (self.dims[0] * self.dims[2]) as isize, self.dims[0] as isize]
    }

    /// Per-voxel flags ([`VISIBLE`], [`OPAQUE`]) asked of `kinds` once per voxel.
    pub(crate) fn flags<K: BlockKinds + ?Sized>(&self, kinds: &K) -> Vec<u8> {
        self.data
            .iter()
            .map(|&id| ((kinds.visible(id) as u8) * VISIBLE) | ((kinds.opaque(id) as u8) * OPAQUE))
            .collect()
    }
}

/// Flag bit: the voxel's faces are drawn.
pub(crate) const VISIBLE: u8 = 1;
/// Flag bit: the voxel hides its neighbours' faces and occludes their corners.
pub(crate) const OPAQUE: u8 = 2;

/// What the meshers need to know about block ids.
pub trait BlockKinds {
    /// Whether faces of `id` are drawn (air: no).
    fn visible(&self, id: u16) -> bool;
    /// Whether `id` hides the faces of its neighbours and darkens their corners (ambient
    /// occlusion). Water, glass and leaves are visible but not opaque.
    fn opaque(&self, id: u16) -> bool;
}

/// The default kinds: every non-zero id is visible and opaque; 0 is air.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SolidNonZero;

impl BlockKinds for SolidNonZero {
    #[inline]
    fn visible(&self, id: u16) -> bool {
        id != 0
    }
    #[inline]
    fn opaque(&self, id: u16) -> bool {
        id != 0
    }
}

/// Every non-zero id is visible; the listed ids are see-through (not opaque), all others opaque.
///
/// ```
/// use bozkir_mesh::{volume::SeeThrough, BlockKinds};
/// // pyworldgen 0.1.8's transparent blocks besides air: water 5, leaves 7, window 9.
/// let kinds = SeeThrough(&[5, 7, 9]);
/// assert!(kinds.visible(7) && !kinds.opaque(7) && kinds.opaque(1) && !kinds.visible(0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeeThrough<'a>(pub &'a [u16]);

impl BlockKinds for SeeThrough<'_> {
    #[inline]
    fn visible(&self, id: u16) -> bool {
        id != 0
    }
    #[inline]
    fn opaque(&self, id: u16) -> bool {
        id != 0 && !self.0.contains(&id)
    }
}

/// Kinds given by two closures.
///
/// ```
/// use bozkir_mesh::KindFns;
/// // pyworldgen's block ids: 5 water, 7 leaves, 9 window are drawn but see-through.
/// let kinds = KindFns::new(|id| id != 0, |id| id != 0 && ![5, 7, 9].contains(&id));
/// # use bozkir_mesh::BlockKinds;
/// assert!(kinds.visible(5) && !kinds.opaque(5) && kinds.opaque(1));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct KindFns<V, O> {
    visible: V,
    opaque: O,
}

impl<V: Fn(u16) -> bool, O: Fn(u16) -> bool> KindFns<V, O> {
    /// Kinds from `visible` and `opaque`.
    pub fn new(visible: V, opaque: O) -> Self {
        Self { visible, opaque }
    }
}

impl<V: Fn(u16) -> bool, O: Fn(u16) -> bool> BlockKinds for KindFns<V, O> {
    fn visible(&self, id: u16) -> bool {
        (self.visible)(id)
    }
    fn opaque(&self, id: u16) -> bool {
        (self.opaque)(id)
    }
}

/// Face directions in the meshers' order: +x, −x, +y, −y, +z, −z. Each has its axis, its sign
/// and the tangent axes `(u, v)` with `e_u × e_v` = the outward normal, so corners
/// `p, p + e_u, p + e_u + e_v, p + e_v` run counter-clockwise seen from outside.
pub(crate) const DIRS: [(usize, i8, usize, usize); 6] =
    [(0, 1, 1, 2), (0, -1, 2, 1), (1, 1, 2, 0), (1, -1, 0, 2), (2, 1, 0, 1), (2, -1, 1, 0)];

/// Ambient occlusion of one corner: two side neighbours and the corner voxel in the layer in
/// front of the face; both sides → 0, else 3 − (number occluding).
#[inline]
pub(crate) fn corner_ao(side1: bool, side2: bool, corner: bool) -> u8 {
    if side1 && side2 {
        0
    } else {
        3 - side1 as u8 - side2 as u8 - corner as u8
    }
}

/// Occlusion of the four corners (in the corner order of [`DIRS`]) of the face whose front
/// neighbour is at `front`; `su`, `sv` are the index strides of the tangent axes.
#[inline]
pub(crate) fn face_ao(flags: &[u8], front: usize, su: isize, sv: isize) -> [u8; 4] {
    let o = |d: isize| flags[(front as isize + d) as usize] & OPAQUE != 0;
    let (um, up, vm, vp) = (o(-su), o(su), o(-sv), o(sv));
    [
        corner_ao(um, vm, o(-su - sv)),
        corner_ao(up, vm, o(su - sv)),
        corner_ao(up, vp, o(su + sv)),
        corner_ao(um, vp, o(-su + sv)),
    ]
}

/// The faces voxel `a` shows, bit k for direction `DIRS[k]` (`off[k]`: its index step), by the
/// face rule; computed without branches, as face presence is hard to predict.
#[inline]
pub(crate) fn face_bits(flags: &[u8], data: &[u16], a: usize, off: &[isize; 6]) -> u8 {
    if flags[a] & VISIBLE == 0 {
        return 0;
    }
    let id = data[a];
    let mut bits = 0u8;
    for (k, &o) in off.iter().enumerate() {
        let b = (a as isize + o) as usize;
        let shows = (flags[b] & OPAQUE == 0) & (data[b] != id);
        bits |= (shows as u8) << k;
    }
    bits
}

/// Unit normal of a direction of [`DIRS`].
pub(crate) fn dir_normal(axis: usize, sign: i8) -> [f32; 3] {
    let mut n = [0.0f32; 3];
    n[axis] = sign as f32;
    n
}

/// Checks an origin: finite.
pub(crate) fn check_origin(origin: [f64; 3]) -> Result<()> {
    for v in origin {
        if !v.is_finite() {
            return Err(MeshError::Param { name: "origin", value: v, why: "must be finite" });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation() {
        let d = vec![0u16; 27];
        assert!(Voxels::new([3, 3, 3], &d).is_ok());
        let e = Voxels::new([2, 3, 3], &d[..18]).unwrap_err();
        assert!(e.to_string().contains("at least 3"), "{e}");
        let e = Voxels::new([3, 3, 4], &d).unwrap_err();
        assert!(e.to_string().contains("need 36"), "{e}");
        let e = Voxels::new([5000, 3, 3], &d).unwrap_err();
        assert!(matches!(e, MeshError::TooLarge { .. }), "{e}");
        let e = Voxels::new([4096, 4096, 4096], &d).unwrap_err();
        assert!(matches!(e, MeshError::TooLarge { .. }), "{e}");
    }

    #[test]
    fn layout_and_directions() {
        let d: Vec<u16> = (0..60).collect();
        let v = Voxels::new([3, 5, 4], &d).unwrap();
        assert_eq!(v.get(1, 2, 3), Some((1 + 3 * (3 + 4 * 2)) as u16));
        assert_eq!(v.get(3, 0, 0), None);
        let s = v.strides();
        assert_eq!(v.index(1, 2, 3) as isize + s[1], v.index(1, 3, 3) as isize);
        for (axis, sign, u, w) in DIRS {
            // e_u × e_v = sign · e_axis.
            let (mut a, mut b) = ([0i32; 3], [0i32; 3]);
            a[u] = 1;
            b[w] = 1;
            let c = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
            let mut n = [0i32; 3];
            n[axis] = sign as i32;
            assert_eq!(c, n);
        }
        assert_eq!(corner_ao(true, true, false), 0);
        assert_eq!(corner_ao(true, false, true), 1);
        assert_eq!(corner_ao(false, false, false), 3);
    }
}

/// Parameters of the block meshers ([`crate::culled_mesh`], [`crate::greedy_mesh`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockParams {
    /// Added to every position, voxel units (default 0, 0, 0). Integer origins keep positions
    /// exact (f32 holds integers up to 2²⁴).
    pub origin: [f64; 3],
    /// Compute per-vertex ambient occlusion (default true); without it `Mesh::ao` is empty and
    /// the greedy mesher merges across occlusion changes.
    pub ao: bool,
}

impl Default for BlockParams {
    fn default() -> Self {
        Self { origin: [0.0; 3], ao: true }
    }
}

/// Corner positions of a rectangle on the face plane `plane` (local coordinate along `axis`)
/// spanning `[u0, u0 + w] × [v0, v0 + h]` on the tangent axes, counter-clockwise seen from
/// outside, scaled and moved to `origin` (computed in f64, rounded once to f32).
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn rect_corners(
    axis: usize,
    u: usize,
    v: usize,
    plane: usize,
    u0: usize,
    v0: usize,
    w: usize,
    h: usize,
    origin: [f64; 3],
    scale: f64,
) -> [[f32; 3]; 4] {
    let at = |du: usize, dv: usize| {
        let mut p = [0.0f64; 3];
        p[axis] = plane as f64;
        p[u] = (u0 + du) as f64;
        p[v] = (v0 + dv) as f64;
        [0, 1, 2].map(|k| (origin[k] + p[k] * scale) as f32)
    };
    [at(0, 0), at(w, 0), at(w, h), at(0, h)]
}

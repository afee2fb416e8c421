//! Dense-occupancy meshing: the closed boundary of the solid voxels of a whole volume, greedy-
//! merged, for volumes that are not chunks (caves: pyworldgen 0.1.8's `dense_mesher`, bozkir-
//! world's `CaveVolume`).
//!
//! Algorithm: the volume is copied into a block volume with a one-voxel apron of empty voxels
//! (outside the volume counts as empty, as in pyworldgen), and meshed by the greedy mesher of
//! [`crate::greedy`] with [`SolidNonZero`] and without ambient occlusion. A face separates a
//! solid voxel from an empty one; two solid voxels never share a face, whatever their values.
//! The mesh is therefore closed (T-junctions aside: [`crate::check::coverage`]) and encloses
//! exactly the solid voxels: its signed volume is their count × `scale³`.
//!
//! Values: any value that converts into `u16` (`bool`, `u8`, `u16`); non-zero is solid and
//! becomes the block id of its faces (`true` → 1).
//!
//! Conventions: positions `origin + (i, j, k) * scale` for the corner `(i, j, k)` of the volume's
//! own axes (axis 0, 1, 2 of `dims`), whatever the [`DenseLayout`]; counter-clockwise triangles
//! seen from outside in those axes (pyworldgen's dense mesher winds its quads the other way:
//! its `[0, 1, 2, 0, 2, 3]` corners turn clockwise seen from outside, as its cube faces do).
//! `Mesh::ao` is empty. Deterministic.
//!
//! Caps: `dims + 2` (the apron) within [`crate::volume::MAX_AXIS`] and
//! [`crate::volume::MAX_VOXELS`], checked before allocating.

use crate::error::{MeshError, Result};
use crate::greedy::greedy_core;
use crate::mesh::Mesh;
use crate::volume::{check_origin, SolidNonZero, Voxels, MAX_AXIS, MAX_VOXELS};

/// Index layout of a dense volume of dims `[n0, n1, n2]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DenseLayout {
    /// `i + n0 * (k + n2 * j)`: the chunk layout (x fastest, then z, then y up).
    #[default]
    YUp,
    /// `k + n2 * (j + n1 * i)`: a C-ordered `(n0, n1, n2)` array (numpy's default; pyworldgen's
    /// `DenseVoxelVolume.occ`, bozkir-world's `CaveVolume`, whose axes are lateral, tunnel, up).
    CArray,
}

/// A validated view of a dense volume (no apron).
#[derive(Debug, Clone, Copy)]
pub struct Occupancy<'a, T> {
    dims: [usize; 3],
    data: &'a [T],
    layout: DenseLayout,
}

impl<'a, T: Copy + Into<u16>> Occupancy<'a, T> {
    /// A view of `data` with `dims` (each at least 1) in `layout`.
    pub fn new(dims: [usize; 3], data: &'a [T], layout: DenseLayout) -> Result<Self> {
        if dims.contains(&0) {
            return Err(MeshError::DimsTooSmall { dims, min: 1, why: "a dense volume needs at least one voxel" });
        }
        // The caps apply to the volume with its apron.
        let padded = dims.map(|d| d.saturating_add(2));
        let total = padded.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
        if padded.iter().any(|&d| d > MAX_AXIS) || total.is_none_or(|t| t > MAX_VOXELS) {
            return Err(MeshError::TooLarge { dims, max_axis: MAX_AXIS - 2, max_total: MAX_VOXELS });
        }
        let expected = dims[0] * dims[1] * dims[2];
        if data.len() != expected {
            return Err(MeshError::LengthMismatch { dims, expected, actual: data.len() });
        }
        Ok(Self { dims, data, layout })
    }

    /// The dims.
    pub fn dims(&self) -> [usize; 3] {
        self.dims
    }

    /// Value at `(i, j, k)` (axes of `dims`).
    pub fn get(&self, i: usize, j: usize, k: usize) -> u16 {
        let [n0, n1, n2] = self.dims;
        let idx = match self.layout {
            DenseLayout::YUp => i + n0 * (k + n2 * j),
            DenseLayout::CArray => k + n2 * (j + n1 * i),
        };
        self.data[idx].into()
    }
}

/// Parameters of [`dense_mesh`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DenseParams {
    /// Position of the volume's corner (0, 0, 0) (default 0, 0, 0).
    pub origin: [f64; 3],
    /// Voxel edge (default 1; positive and finite; pyworldgen's `resolution`).
    pub scale: f64,
}

impl Default for DenseParams {
    fn default() -> Self {
        Self { origin: [0.0; 3], scale: 1.0 }
    }
}

/// The closed, greedy-merged boundary of the solid voxels of `occ` (see the module docs).
///
/// ```
/// use bozkir_mesh::{check, dense_mesh, DenseLayout, DenseParams, Occupancy};
/// let occ = Occupancy::new([2, 1, 1], &[true, true], DenseLayout::CArray)?;
/// let m = dense_mesh(&occ, &DenseParams { scale: 0.5, ..DenseParams::default() })?;
/// assert_eq!(m.quad_count(), 6);
/// assert_eq!(check::volume(&m)?.signed_volume, 0.25);
/// # Ok::<(), bozkir_mesh::MeshError>(())
/// ```
pub fn dense_mesh<T: Copy + Into<u16>>(occ: &Occupancy<T>, params: &DenseParams) -> Result<Mesh> {
    check_origin(params.origin)?;
    if !(params.scale.is_finite() && params.scale > 0.0) {
        return Err(MeshError::Param { name: "scale", value: params.scale, why: "must be positive and finite" });
    }
    let [n0, n1, n2] = occ.dims;
    let (p0, p1, p2) = (n0 + 2, n1 + 2, n2 + 2);
    let mut padded = vec![0u16; p0 * p1 * p2];
    for j in 0..n1 {
        for k in 0..n2 {
            let row = 1 + p0 * ((k + 1) + p2 * (j + 1));
            for i in 0..n0 {
                padded[row + i] = occ.get(i, j, k);
            }
        }
    }
    let vox = Voxels::new([p0, p1, p2], &padded)?;
    let flags = vox.flags(&SolidNonZero);
    Ok(greedy_core(&vox, &flags, false, params.origin, params.scale))
}

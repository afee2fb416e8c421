//! Culled ("naive") block meshing: one quad per visible face, with per-vertex ambient occlusion.
//!
//! Algorithm: the folklore culled mesher (no publication; pyworldgen 0.1.8's `naive_mesher`
//! is one): every interior voxel `a` and each of its six neighbours `b` give a unit quad when
//! the face rule of [`crate::volume`] holds (`visible(a) && !opaque(b) && a != b`). Ambient
//! occlusion follows Lysenko's "Ambient occlusion for Minecraft-like worlds" (0fps, 2013): a
//! corner looks at the two side voxels and the corner voxel in the layer in front of the face;
//! both sides opaque give 0, else 3 − the number of opaque ones. The quad is split along its
//! brighter diagonal ([`Mesh::push_quad`]) so the interpolated occlusion is not anisotropic.
//!
//! Conventions: see [`crate::volume`] (layout `x + nx * (z + nz * y)`, one-voxel apron, local
//! voxel `(i−1, j−1, k−1)` at index `(i, j, k)`). Quads come in voxel order (x fastest, then z,
//! then y) and, per voxel, in the face order +x, −x, +y, −y, +z, −z; corners counter-clockwise
//! seen from outside, four vertices per quad. Deterministic.
//!
//! pyworldgen 0.1.8 winds the other way here: its naive mesher's cube faces (and its dense
//! mesher's) are clockwise seen from outside (a unit cube has signed volume −1), while its greedy
//! mesher's are counter-clockwise (+1). Every mesher of this crate is counter-clockwise.

use crate::error::Result;
use crate::mesh::Mesh;
use crate::volume::{
    check_origin, dir_normal, face_ao, face_bits, rect_corners, BlockKinds, BlockParams, Voxels, DIRS,
};

/// One quad per visible face of the interior voxels of `vox` (see the module docs).
///
/// ```
/// use bozkir_mesh::{check, culled_mesh, volume::BlockParams, SolidNonZero, Voxels};
/// // One stone voxel inside an air apron: a unit cube of 6 quads.
/// let mut data = vec![0u16; 27];
/// data[13] = 1;
/// let m = culled_mesh(&Voxels::new([3, 3, 3], &data)?, &SolidNonZero, &BlockParams::default())?;
/// assert_eq!(m.quad_count(), 6);
/// assert_eq!(check::volume(&m)?.signed_volume, 1.0);
/// # Ok::<(), bozkir_mesh::MeshError>(())
/// ```
pub fn culled_mesh<K: BlockKinds + ?Sized>(vox: &Voxels, kinds: &K, params: &BlockParams) -> Result<Mesh> {
    check_origin(params.origin)?;
    let flags = vox.flags(kinds);
    let data = vox.data();
    let [nx, ny, nz] = vox.dims();
    let st = vox.strides();
    let off = DIRS.map(|(axis, sign, _, _)| sign as isize * st[axis]);
    // The faces of every voxel first, so that the mesh is allocated once.
    let mut bits = vec![0u8; data.len()];
    let mut count = 0;
    for y in 1..ny - 1 {
        for z in 1..nz - 1 {
            let row = vox.index(0, y, z);
            for (a, slot) in bits.iter_mut().enumerate().take(row + nx - 1).skip(row + 1) {
                *slot = face_bits(&flags, data, a, &off);
                count += slot.count_ones() as usize;
            }
        }
    }
    let mut mesh = Mesh::new();
    mesh.positions.reserve(4 * count);
    mesh.normals.reserve(4 * count);
    mesh.block.reserve(4 * count);
    if params.ao {
        mesh.ao.reserve(4 * count);
    }
    mesh.indices.reserve(6 * count);
    for y in 1..ny - 1 {
        for z in 1..nz - 1 {
            let row = vox.index(0, y, z);
            for x in 1..nx - 1 {
                let a = row + x;
                let mut f = bits[a];
                let local = [x - 1, y - 1, z - 1];
                while f != 0 {
                    let k = f.trailing_zeros() as usize;
                    f &= f - 1;
                    let (axis, sign, u, v) = DIRS[k];
                    let b = (a as isize + off[k]) as usize;
                    let ao = params.ao.then(|| face_ao(&flags, b, st[u], st[v]));
                    let plane = local[axis] + (sign > 0) as usize;
                    let c = rect_corners(axis, u, v, plane, local[u], local[v], 1, 1, params.origin, 1.0);
                    mesh.push_quad(c, dir_normal(axis, sign), data[a], ao);
                }
            }
        }
    }
    Ok(mesh)
}

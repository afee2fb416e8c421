//! Greedy block meshing: the culled mesher's faces merged into maximal-ish rectangles.
//!
//! Algorithm: Lysenko, "Meshing in a Minecraft game" (0fps, 2012), the greedy variant (as in
//! pyworldgen 0.1.8's `greedy_mesher`). For each of the six face directions and each slice
//! of interior voxels across its axis, a 2-D mask holds, per voxel, the face the culled mesher
//! would emit there (face rule of [`crate::volume`]) as a key: block id, the four corners'
//! ambient occlusion, present. The mask is swept row by row (u fastest): at each unvisited
//! face a rectangle grows along u while the key repeats, then along v while the whole row
//! repeats; it is emitted as one quad and cleared.
//!
//! Equal keys merge only faces with the same block id, normal and corner occlusion. Occlusion
//! is continuous across an edge shared by two faces of one plane (both corners see the same
//! voxels in front), so a run of faces with equal corner tuples along u has the tuple constant
//! along u, and likewise along v: the merged quad's corners carry the same values the culled
//! faces had there and the shading matches. The surface is the culled mesher's (same area, same
//! enclosed volume), with T-junctions where rectangles of different sizes meet; check it with
//! [`crate::check::coverage`], not with plain edge pairing.
//!
//! Conventions: see [`crate::volume`]. Quads come by direction (+x, −x, +y, −y, +z, −z), then
//! slice, then mask order; corners counter-clockwise seen from outside. Deterministic.

use crate::error::Result;
use crate::mesh::Mesh;
use crate::volume::{
    check_origin, dir_normal, face_ao, rect_corners, BlockKinds, BlockParams, Voxels, DIRS, OPAQUE, VISIBLE,
};

/// Greedy-merged faces of the interior voxels of `vox` (see the module docs).
///
/// ```
/// use bozkir_mesh::{check, culled_mesh, greedy_mesh, volume::BlockParams, SolidNonZero, Voxels};
/// // A 3×2×2 block of stone in an air apron: 6 rectangles instead of 32 unit faces.
/// let dims = [5, 4, 4];
/// let mut data = vec![0u16; 80];
/// for y in 1..3 { for z in 1..3 { for x in 1..4 { data[x + 5 * (z + 4 * y)] = 1; } } }
/// let v = Voxels::new(dims, &data)?;
/// let p = BlockParams::default();
/// let (g, c) = (greedy_mesh(&v, &SolidNonZero, &p)?, culled_mesh(&v, &SolidNonZero, &p)?);
/// assert_eq!((g.quad_count(), c.quad_count()), (6, 32));
/// assert_eq!(check::area(&g)?.area, check::area(&c)?.area);
/// # Ok::<(), bozkir_mesh::MeshError>(())
/// ```
pub fn greedy_mesh<K: BlockKinds + ?Sized>(vox: &Voxels, kinds: &K, params: &BlockParams) -> Result<Mesh> {
    check_origin(params.origin)?;
    let flags = vox.flags(kinds);
    Ok(greedy_core(vox, &flags, params.ao, params.origin, 1.0))
}

/// Mask key: bit 24 present, bits 16..24 corner occlusion (2 bits each), bits 0..16 block id.
const PRESENT: u32 = 1 << 24;

/// The greedy sweep over precomputed flags; positions `origin + local * scale`.
pub(crate) fn greedy_core(vox: &Voxels, flags: &[u8], ao: bool, origin: [f64; 3], scale: f64) -> Mesh {
    let data = vox.data();
    let dims = vox.dims();
    let st = vox.strides();
    let mut mesh = Mesh::new();
    let mut mask: Vec<u32> = Vec::new();
    for &(axis, sign, u, v) in &DIRS {
        let (nu, nv) = (dims[u] - 2, dims[v] - 2);
        mask.clear();
        mask.resize(nu * nv, 0);
        let step = sign as isize * st[axis];
        let normal = dir_normal(axis, sign);
        for s in 1..dims[axis] - 1 {
            // Fill the mask of slice s.
            let mut any = false;
            for j in 0..nv {
                let mut a = s as isize * st[axis] + st[u] + (j as isize + 1) * st[v];
                let row = &mut mask[j * nu..(j + 1) * nu];
                for m in row.iter_mut() {
                    let ai = a as usize;
                    a += st[u];
                    *m = 0;
                    if flags[ai] & VISIBLE == 0 {
                        continue;
                    }
                    let b = (ai as isize + step) as usize;
                    let id = data[ai];
                    if flags[b] & OPAQUE != 0 || data[b] == id {
                        continue;
                    }
                    let packed = if ao {
                        let q = face_ao(flags, b, st[u], st[v]);
                        (q[0] | q[1] << 2 | q[2] << 4 | q[3] << 6) as u32
                    } else {
                        0
                    };
                    *m = PRESENT | packed << 16 | id as u32;
                    any = true;
                }
            }
            if !any {
                continue;
            }
            let plane = s - 1 + (sign > 0) as usize;
            // Sweep.
            for j in 0..nv {
                let mut i = 0;
                while i < nu {
                    let key = mask[j * nu + i];
                    if key == 0 {
                        i += 1;
                        continue;
                    }
                    let mut w = 1;
                    while i + w < nu && mask[j * nu + i + w] == key {
                        w += 1;
                    }
                    let mut h = 1;
                    'grow: while j + h < nv {
                        let row = &mask[(j + h) * nu + i..(j + h) * nu + i + w];
                        if row.iter().any(|&k| k != key) {
                            break 'grow;
                        }
                        h += 1;
                    }
                    for r in 0..h {
                        mask[(j + r) * nu + i..(j + r) * nu + i + w].fill(0);
                    }
                    let c = rect_corners(axis, u, v, plane, i, j, w, h, origin, scale);
                    let q = (key >> 16) as u8;
                    let corner_ao = ao.then_some([q & 3, q >> 2 & 3, q >> 4 & 3, q >> 6 & 3]);
                    mesh.push_quad(c, normal, key as u16, corner_ao);
                    i += w;
                }
            }
        }
    }
    mesh
}

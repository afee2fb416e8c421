//! Greedy block meshing: the culled mesher's faces merged into maximal-ish rectangles.
//!
//! Algorithm: Lysenko, "Meshing in a Minecraft game" (0fps, 2012), the greedy variant (as in
//! pyworldgen 0.1.8's `greedy_mesher`). For each of the six face directions and each slice
//! of interior voxels across its axis, a 2-D mask holds, per voxel, the face the culled mesher
//! would emit there (face rule of [`crate::volume`]) as a key: block id, the four corners'
//! ambient occlusion, present. The mask is swept row by row (u fastest): at each unvisited
//! face a rectangle grows along u while the key repeats, then along v while the whole row
//! repeats; it is emitted as one quad and cleared. The sweep runs sparsely: the faces are
//! listed and sorted in sweep order, so the work grows with the voxels plus the faces, and the
//! quads are exactly those of the dense sweep (a test compares them with it).
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
    check_origin, dir_normal, face_ao, face_bits, rect_corners, BlockKinds, BlockParams, Voxels, DIRS,
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
///
/// Sparse form of the row sweep: the faces are listed in one pass over the voxels (memory
/// order), each with its key, and sorted by (direction, slice, v, u). Per slice, the keys are
/// written into a zeroed mask, and the faces are visited in that order: a face not yet covered
/// starts a rectangle exactly as the dense sweep would (it visits the same non-empty cells in
/// the same order), and the covered cells are cleared, which leaves the mask zeroed for the next
/// slice. Work is proportional to the voxels plus the faces, not to six full sweeps.
pub(crate) fn greedy_core(vox: &Voxels, flags: &[u8], ao: bool, origin: [f64; 3], scale: f64) -> Mesh {
    let data = vox.data();
    let dims = vox.dims();
    let st = vox.strides();
    let off = DIRS.map(|(axis, sign, _, _)| sign as isize * st[axis]);
    // (direction 3 bits | slice 12 | v 12 | u 12, key); dims ≤ 4096 keep every field in range.
    let mut faces: Vec<(u64, u32)> = Vec::new();
    for y in 1..dims[1] - 1 {
        for z in 1..dims[2] - 1 {
            let row = vox.index(0, y, z);
            for x in 1..dims[0] - 1 {
                let a = row + x;
                let mut bits = face_bits(flags, data, a, &off);
                let p = [x, y, z];
                while bits != 0 {
                    let k = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let (axis, _, u, v) = DIRS[k];
                    let packed = if ao {
                        let q = face_ao(flags, (a as isize + off[k]) as usize, st[u], st[v]);
                        (q[0] | q[1] << 2 | q[2] << 4 | q[3] << 6) as u32
                    } else {
                        0
                    };
                    let sort =
                        (k as u64) << 36 | (p[axis] as u64) << 24 | ((p[v] - 1) as u64) << 12 | (p[u] - 1) as u64;
                    faces.push((sort, PRESENT | packed << 16 | data[a] as u32));
                }
            }
        }
    }
    faces.sort_unstable_by_key(|f| f.0);
    let mut mesh = Mesh::new();
    let quads = faces.len();
    mesh.positions.reserve(4 * quads);
    mesh.normals.reserve(4 * quads);
    mesh.block.reserve(4 * quads);
    if ao {
        mesh.ao.reserve(4 * quads);
    }
    mesh.indices.reserve(6 * quads);
    let plane_cells = (0..3).map(|a| (dims[(a + 1) % 3] - 2) * (dims[(a + 2) % 3] - 2));
    let mut mask = vec![0u32; plane_cells.max().unwrap_or(0)];
    let field = |f: u64, shift: u32| ((f >> shift) & 0xfff) as usize;
    let mut g = 0;
    while g < faces.len() {
        // The faces of one (direction, slice).
        let group = faces[g].0 >> 24;
        let end = g + faces[g..].iter().take_while(|f| f.0 >> 24 == group).count();
        let k = (group >> 12) as usize;
        let s = (group & 0xfff) as usize;
        let (axis, sign, u, v) = DIRS[k];
        let (nu, nv) = (dims[u] - 2, dims[v] - 2);
        for &(f, key) in &faces[g..end] {
            mask[field(f, 12) * nu + field(f, 0)] = key;
        }
        let plane = s - 1 + (sign > 0) as usize;
        let normal = dir_normal(axis, sign);
        for &(f, key) in &faces[g..end] {
            let (j, i) = (field(f, 12), field(f, 0));
            if mask[j * nu + i] == 0 {
                continue;
            }
            let mut w = 1;
            while i + w < nu && mask[j * nu + i + w] == key {
                w += 1;
            }
            let mut h = 1;
            while j + h < nv && mask[(j + h) * nu + i..(j + h) * nu + i + w].iter().all(|&c| c == key) {
                h += 1;
            }
            for r in 0..h {
                mask[(j + r) * nu + i..(j + r) * nu + i + w].fill(0);
            }
            let c = rect_corners(axis, u, v, plane, i, j, w, h, origin, scale);
            let q = (key >> 16) as u8;
            let corner_ao = ao.then_some([q & 3, q >> 2 & 3, q >> 4 & 3, q >> 6 & 3]);
            mesh.push_quad(c, normal, key as u16, corner_ao);
        }
        g = end;
    }
    mesh
}

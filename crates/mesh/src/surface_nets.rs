//! Surface nets: a smooth, closed mesh of the zero set of a signed density sampled on a grid.
//!
//! Algorithm: naive surface nets (Gibson, "Constrained elastic surface nets", 1998, in the
//! form popularised by Lysenko's "Smooth voxel terrain" (0fps, 2012)). Samples sit on the
//! integer lattice; a cell is the unit cube between eight samples. Every cell whose corners
//! change sign gets one vertex: the mean of the points where its twelve edges cross zero
//! (linear interpolation along each edge). Every lattice edge that changes sign gets one quad
//! joining the vertices of the four cells around it, wound so that its normal points from the
//! inside sample to the outside one; the quad is split along its shorter diagonal. Optionally
//! the vertex then takes `projection_steps` Newton steps toward the zero set of the cell's
//! trilinear interpolant (`p ← p − f ∇f / |∇f|²`, kept inside the cell), and its normal is
//! the normalised gradient of that interpolant (pointing out).
//!
//! Conventions: **inside is `value < 0`**, outside `value >= 0` (a signed distance: negative in
//! the solid). Samples are laid out `x + nx * (z + nz * y)` (y up), sample `(i, j, k)` sits at
//! `origin + (i, j, k)` in voxel units. Triangles are counter-clockwise seen from outside.
//! `Mesh::ao` is empty; every vertex carries the block id of the parameters.
//!
//! Chunks ([`surface_nets_chunk`]): a chunk that owns the lattice points `o .. o + N` on each
//! axis is handed the samples `o − 1 ..= o + N` (dims `N + 2`, origin `o − 1`) and emits the
//! quads of the sign-changing edges that start at its owned points. Every lattice edge belongs
//! to one chunk, and a cell vertex shared by two chunks is computed from the same eight samples
//! by the same arithmetic (in `f64`, rounded once; the origin plus the cell index is exact for
//! integer origins), so the chunks' boundary vertices coincide bit for bit and the welded union
//! is the whole-grid mesh, without cracks. [`surface_nets`] instead meshes a whole grid: every
//! edge whose four cells exist.
//!
//! Vertices are created as quads first reference them, in sample order (x fastest, then z,
//! then y; per sample the edges along x, y, z). Deterministic.
//!
//! Known limits: one vertex per cell, so where two pieces of surface pass through one cell
//! (ambiguous corner patterns, features thinner than a cell) they pinch into one vertex or
//! share an edge with four quads: the mesh stays closed and consistently wound (every directed
//! edge paired, tested on random fields) but is not a 2-manifold there. Smooth fields sampled
//! finely enough (the sphere and torus of the tests) give 2-manifolds. Vertices of cells cut
//! only at a corner sample can coincide with a neighbour's after welding.
//!
//! Caps: dims within [`crate::volume::MAX_AXIS`] and [`crate::volume::MAX_VOXELS`], checked before
//! allocating; samples must be finite.

use crate::error::{MeshError, Result};
use crate::mesh::Mesh;
use crate::volume::{check_dims, check_origin};

/// A validated view of a density grid (see the module docs for layout and sign).
#[derive(Debug, Clone, Copy)]
pub struct Density<'a> {
    dims: [usize; 3],
    data: &'a [f32],
}

impl<'a> Density<'a> {
    /// A view of `data` with `dims = [nx, ny, nz]` (each at least 2, within the caps), all
    /// samples finite.
    pub fn new(dims: [usize; 3], data: &'a [f32]) -> Result<Self> {
        check_dims(dims, data.len(), 2, "one cell needs two samples per axis")?;
        if let Some((index, &value)) = data.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(MeshError::NonFinite { index, value });
        }
        Ok(Self { dims, data })
    }

    /// `[nx, ny, nz]`.
    pub fn dims(&self) -> [usize; 3] {
        self.dims
    }
}

/// Parameters of surface nets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SurfaceNetsParams {
    /// Position of sample (0, 0, 0), voxel units (default 0, 0, 0).
    pub origin: [f64; 3],
    /// Newton steps toward the trilinear zero set per vertex (default 1, at most
    /// [`MAX_PROJECTION_STEPS`]; 0 keeps the mean of the edge crossings).
    pub projection_steps: u32,
    /// Block id of every vertex (default 1).
    pub block: u16,
}

/// Cap on [`SurfaceNetsParams::projection_steps`].
pub const MAX_PROJECTION_STEPS: u32 = 8;

impl Default for SurfaceNetsParams {
    fn default() -> Self {
        Self { origin: [0.0; 3], projection_steps: 1, block: 1 }
    }
}

impl SurfaceNetsParams {
    fn validate(&self) -> Result<()> {
        check_origin(self.origin)?;
        if self.projection_steps > MAX_PROJECTION_STEPS {
            return Err(MeshError::Param {
                name: "projection_steps",
                value: self.projection_steps as f64,
                why: "at most 8",
            });
        }
        Ok(())
    }
}

/// Surface nets over a whole grid: the quads of every sign-changing edge whose four cells exist.
///
/// ```
/// use bozkir_mesh::{check, surface_nets, Density, SurfaceNetsParams};
/// // A ball of radius 2.5 around (3, 3, 3).
/// let n = 7;
/// let mut f = Vec::new();
/// for y in 0..n { for z in 0..n { for x in 0..n {
///     let d = [x, y, z].map(|c| c as f32 - 3.0);
///     f.push((d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt() - 2.5);
/// } } }
/// let m = surface_nets(&Density::new([n, n, n], &f)?, &SurfaceNetsParams::default())?;
/// assert!(check::edges(&m)?.manifold());
/// assert_eq!(check::euler(&m)?.characteristic, 2);
/// # Ok::<(), bozkir_mesh::MeshError>(())
/// ```
pub fn surface_nets(field: &Density, params: &SurfaceNetsParams) -> Result<Mesh> {
    params.validate()?;
    Ok(nets(field, params, 0))
}

/// Surface nets of one chunk with its apron: the quads of the sign-changing edges starting at
/// the samples `1 ..= n − 2` of every axis (see the module docs for the tiling). Every axis
/// needs at least 3 samples.
pub fn surface_nets_chunk(field: &Density, params: &SurfaceNetsParams) -> Result<Mesh> {
    params.validate()?;
    if field.dims.iter().any(|&d| d < 3) {
        return Err(MeshError::DimsTooSmall {
            dims: field.dims,
            min: 3,
            why: "a chunk needs a 1-sample apron below and its far samples above",
        });
    }
    Ok(nets(field, params, 1))
}

/// The twelve cell edges as corner pairs (corner bits: 1 = +x, 2 = +y, 4 = +z).
const EDGES: [(usize, usize); 12] =
    [(0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5), (2, 6), (3, 7)];

fn corner_offset(k: usize) -> [f64; 3] {
    [(k & 1) as f64, ((k >> 1) & 1) as f64, ((k >> 2) & 1) as f64]
}

/// Trilinear value and gradient of corner values `v` at local `p` in [0, 1]³.
fn trilinear(v: &[f64; 8], p: [f64; 3]) -> (f64, [f64; 3]) {
    let mut f = 0.0;
    let mut g = [0.0; 3];
    for (k, &vk) in v.iter().enumerate() {
        let b = corner_offset(k);
        let w = |a: usize| if b[a] == 1.0 { p[a] } else { 1.0 - p[a] };
        let dw = |a: usize| if b[a] == 1.0 { 1.0 } else { -1.0 };
        let (wx, wy, wz) = (w(0), w(1), w(2));
        f += vk * wx * wy * wz;
        g[0] += vk * dw(0) * wy * wz;
        g[1] += vk * wx * dw(1) * wz;
        g[2] += vk * wx * wy * dw(2);
    }
    (f, g)
}

/// The vertex of the cell with corner values `v`: local position and outward unit normal.
fn cell_vertex(v: &[f64; 8], steps: u32) -> ([f64; 3], [f32; 3]) {
    let mut sum = [0.0f64; 3];
    let mut n = 0u32;
    for &(a, b) in &EDGES {
        let (fa, fb) = (v[a], v[b]);
        if (fa < 0.0) != (fb < 0.0) {
            let t = fa / (fa - fb);
            let (pa, pb) = (corner_offset(a), corner_offset(b));
            for k in 0..3 {
                sum[k] += pa[k] + t * (pb[k] - pa[k]);
            }
            n += 1;
        }
    }
    let mut p = sum.map(|s| s / n.max(1) as f64);
    for _ in 0..steps {
        let (f, g) = trilinear(v, p);
        let g2 = g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
        if g2 < 1e-20 {
            break;
        }
        for k in 0..3 {
            p[k] = (p[k] - f * g[k] / g2).clamp(0.0, 1.0);
        }
    }
    let (_, g) = trilinear(v, p);
    let len = (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).sqrt();
    let normal = if len > 0.0 { g.map(|c| (c / len) as f32) } else { [0.0; 3] };
    (p, normal)
}

fn nets(field: &Density, params: &SurfaceNetsParams, along_lo: usize) -> Mesh {
    let [nx, ny, nz] = field.dims;
    let data = field.data;
    let st = [1usize, nx * nz, nx];
    let cd = [nx - 1, ny - 1, nz - 1];
    let mut vert = vec![u32::MAX; cd[0] * cd[1] * cd[2]];
    let mut mesh = Mesh::new();
    let mut vertex_of = |mesh: &mut Mesh, c: [usize; 3]| -> u32 {
        let ci = c[0] + cd[0] * (c[2] + cd[2] * c[1]);
        if vert[ci] != u32::MAX {
            return vert[ci];
        }
        let base = c[0] * st[0] + c[1] * st[1] + c[2] * st[2];
        let mut v = [0.0f64; 8];
        for (k, vk) in v.iter_mut().enumerate() {
            *vk = data[base + (k & 1) * st[0] + ((k >> 1) & 1) * st[1] + ((k >> 2) & 1) * st[2]] as f64;
        }
        let (p, normal) = cell_vertex(&v, params.projection_steps);
        let id = mesh.positions.len() as u32;
        mesh.positions.push([0, 1, 2].map(|k| ((params.origin[k] + c[k] as f64) + p[k]) as f32));
        mesh.normals.push(normal);
        mesh.block.push(params.block);
        vert[ci] = id;
        id
    };
    let dims = field.dims;
    // An edge's base sample is below the last one on every axis, so its three forward
    // neighbours exist; most samples change sign toward none of them and are skipped at once.
    for y in 0..ny - 1 {
        for z in 0..nz - 1 {
            for x in 0..nx - 1 {
                let p = [x, y, z];
                let i = x * st[0] + y * st[1] + z * st[2];
                let inside = data[i] < 0.0;
                if (data[i + st[0]] < 0.0) == inside
                    && (data[i + st[1]] < 0.0) == inside
                    && (data[i + st[2]] < 0.0) == inside
                {
                    continue;
                }
                for axis in 0..3 {
                    let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
                    if p[axis] < along_lo
                        || p[axis] + 2 > dims[axis]
                        || p[u] < 1
                        || p[u] + 2 > dims[u]
                        || p[v] < 1
                        || p[v] + 2 > dims[v]
                    {
                        continue;
                    }
                    if (data[i + st[axis]] < 0.0) == inside {
                        continue;
                    }
                    let mut q = [0u32; 4];
                    for (slot, (du, dv)) in [(1, 1), (0, 1), (0, 0), (1, 0)].into_iter().enumerate() {
                        let mut c = p;
                        c[u] -= du;
                        c[v] -= dv;
                        q[slot] = vertex_of(&mut mesh, c);
                    }
                    // Counter-clockwise around +axis; reversed when the outside is at p.
                    if !inside {
                        q.swap(1, 3);
                    }
                    let d2 = |a: u32, b: u32| {
                        let (pa, pb) = (mesh.positions[a as usize], mesh.positions[b as usize]);
                        (0..3).map(|k| (pa[k] - pb[k]) * (pa[k] - pb[k])).sum::<f32>()
                    };
                    let t = if d2(q[1], q[3]) < d2(q[0], q[2]) {
                        [q[1], q[2], q[3], q[1], q[3], q[0]]
                    } else {
                        [q[0], q[1], q[2], q[0], q[2], q[3]]
                    };
                    mesh.indices.extend_from_slice(&t);
                }
            }
        }
    }
    mesh
}

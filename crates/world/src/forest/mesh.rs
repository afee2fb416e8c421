//! Triangle meshes of the forest's tree graphs ([`TreeGraph`]): bark tubes along the edges and
//! a leaf cluster at every terminal, in one [`Mesh`] per tree or per forest.
//!
//! * **Bark.** Every edge (parent → child) is one closed piece: a polygonal frustum of
//!   `sides` faces from a ring of the parent's radius around the parent node to a ring of the
//!   child's radius around the child node, closed by a flat cap at each end. Each piece is a
//!   closed, consistently wound solid on its own (the pieces overlap at the joints; they are not
//!   welded into one surface), so a piece's enclosed volume is the polygonal frustum's
//!   `n/2·sin(2π/n)·h/3·(r₁² + r₁r₂ + r₂²)`. Ring vertex `k` sits at angle `2πk/n` in the
//!   edge's frame `(u, v, d)`: `d` the unit axis, `u` the unit part of the coordinate axis least
//!   aligned with `d` (x, then y, then z on ties) perpendicular to `d`, `v = d × u`. An edge
//!   shorter than [`MIN_EDGE_LENGTH`] is left out (its tube would be hidden in the joint).
//! * **Leaves.** Every terminal node gets an icosphere (an icosahedron subdivided
//!   `leaf_detail` times, midpoints pushed onto the sphere) centred on the node, closed and
//!   sharing its vertices. Its radius is one per tree: with `N` terminals whose horizontal
//!   positions have RMS distance `s` from their centroid, the crown scale is `R = √2·s` (the
//!   radius of a uniform disc with that spread) and the leaf radius is
//!   `clamp(leaf_radius_factor·R/√N, min_leaf_radius, max_leaf_radius)`: `R/√N` is the radius
//!   of a disc holding `1/N` of the crown's area. Terminals keep away from the crown's border,
//!   so the default factor is 2 (with radii in 0.5–4 m): on the default forest the clusters
//!   then cover about 80 % of the crown cells seen from above (radii 1.8–4 m, median 3.4 m).
//!
//! **Output.** A [`bozkir_mesh::Mesh`] (it fits as it is): positions in the forest's world
//! frame (x east, y north, z up, metres, f32), unit outward normals (the frustum's slanted
//! normal on the sides, `∓d` on the caps, radial on the leaves: flat caps, smooth sides), the
//! part id in `block` ([`BARK`] = 1, [`LEAVES`] = 2), no ambient occlusion, counter-clockwise
//! triangles seen from outside (glTF). Vertex layout of a tree: the bark pieces in edge order,
//! then the leaf clusters in node order. A bark piece of `n` sides has `4n + 2` vertices and
//! `4n` triangles: `[0, n)` the side ring at the parent, `[n, 2n)` the side ring at the child,
//! `[2n, 3n)` the parent cap's ring, `3n` its centre, `[3n + 1, 4n + 1)` the child cap's ring,
//! `4n + 1` its centre (each cap ring bit-equal to its side ring, so the piece welds closed);
//! triangles: the `2n` sides, the `n` parent-cap, the `n` child-cap ones. A leaf cluster of
//! detail `d` has `10·4ᵈ + 2` vertices and `20·4ᵈ` triangles. [`forest_mesh`] is the trees in
//! the forest's graph order (site order), one after another.
//!
//! All geometry is computed in f64 with `libm`'s trigonometry and rounded once to f32, so the
//! same graphs give the same bytes on every platform and thread count (trees are meshed in
//! parallel and joined in order).
//!
//! **Errors** ([`WorldError`]), before anything is built: parameters out of range name the
//! parameter (`sides` outside 3..=[`MAX_SIDES`], `leaf_detail` over [`MAX_LEAF_DETAIL`],
//! non-finite or negative leaf radii, `min_leaf_radius > max_leaf_radius`); a mesh of more
//! than [`MAX_VERTICES`] vertices is refused naming `sides` and the count; a malformed graph
//! (an edge naming a missing node, a non-finite position, a radius not finite and positive)
//! is refused naming the tree and the node.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use bozkir_mesh::Mesh;

use super::graph::{NodeKind, TreeGraph};
use super::Forest;
use crate::error::{param, Result, WorldError};

/// Part id of bark vertices (in [`Mesh::block`]).
pub const BARK: u16 = 1;
/// Part id of leaf-cluster vertices (in [`Mesh::block`]).
pub const LEAVES: u16 = 2;
/// Bark colour, sRGB (what `branches.glb` and the viewer draw).
pub const BARK_SRGB: [u8; 3] = [92, 64, 42];
/// Leaf colour, sRGB.
pub const LEAF_SRGB: [u8; 3] = [62, 112, 44];
/// Most sides of a bark tube.
pub const MAX_SIDES: u32 = 64;
/// Most subdivisions of a leaf cluster's icosahedron (5,120 triangles).
pub const MAX_LEAF_DETAIL: u32 = 5;
/// Most vertices of one mesh (2²⁶; 1.7 GiB of vertex data in a `Mesh`).
pub const MAX_VERTICES: usize = 1 << 26;
/// Edges shorter than this (metres) get no tube.
pub const MIN_EDGE_LENGTH: f64 = 1e-4;

/// How tree graphs are meshed (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ForestMeshParams {
    /// Faces around each bark tube, 3..=64. Default 6.
    pub sides: u32,
    /// Subdivisions of each leaf cluster's icosahedron, 0..=5 (0: 20 triangles, 1: 80).
    /// Default 1.
    pub leaf_detail: u32,
    /// Leaf radius over `R/√N` (crown scale over the root of the terminal count). Default 2.
    pub leaf_radius_factor: f64,
    /// Least leaf radius, metres (> 0). Default 0.5.
    pub min_leaf_radius: f64,
    /// Largest leaf radius, metres. Default 4.
    pub max_leaf_radius: f64,
}

impl Default for ForestMeshParams {
    fn default() -> Self {
        Self { sides: 6, leaf_detail: 1, leaf_radius_factor: 2.0, min_leaf_radius: 0.5, max_leaf_radius: 4.0 }
    }
}

impl ForestMeshParams {
    /// `sides` in 3..=[`MAX_SIDES`], `leaf_detail` ≤ [`MAX_LEAF_DETAIL`], the leaf numbers
    /// finite, the factor ≥ 0 and at most 1,000, `0 < min_leaf_radius ≤ max_leaf_radius ≤ 1,000`.
    pub fn validate(&self) -> Result<()> {
        if !(3..=MAX_SIDES).contains(&self.sides) {
            return Err(param("sides", self.sides, &format!("must be 3..={MAX_SIDES}")));
        }
        if self.leaf_detail > MAX_LEAF_DETAIL {
            return Err(param("leaf_detail", self.leaf_detail, &format!("must be ≤ {MAX_LEAF_DETAIL}")));
        }
        if !(self.leaf_radius_factor.is_finite() && (0.0..=1000.0).contains(&self.leaf_radius_factor)) {
            return Err(param("leaf_radius_factor", self.leaf_radius_factor, "must be a finite number in [0, 1000]"));
        }
        if !(self.min_leaf_radius.is_finite() && self.min_leaf_radius > 0.0) {
            return Err(param("min_leaf_radius", self.min_leaf_radius, "must be a finite number > 0"));
        }
        if !(self.max_leaf_radius.is_finite() && self.max_leaf_radius <= 1000.0) {
            return Err(param("max_leaf_radius", self.max_leaf_radius, "must be a finite number ≤ 1000"));
        }
        if self.min_leaf_radius > self.max_leaf_radius {
            return Err(param(
                "min_leaf_radius",
                self.min_leaf_radius,
                &format!("must not exceed max_leaf_radius = {}", self.max_leaf_radius),
            ));
        }
        Ok(())
    }

    /// (vertices, triangles) of one bark piece: `(4·sides + 2, 4·sides)`.
    pub fn bark_piece(&self) -> (usize, usize) {
        let n = self.sides as usize;
        (4 * n + 2, 4 * n)
    }

    /// (vertices, triangles) of one leaf cluster: `(10·4ᵈ + 2, 20·4ᵈ)`, d = `leaf_detail`.
    pub fn leaf_piece(&self) -> (usize, usize) {
        let f = 1usize << (2 * self.leaf_detail.min(MAX_LEAF_DETAIL));
        (10 * f + 2, 20 * f)
    }
}

/// The leaf-cluster radius of `graph` under `params` (module docs); `None` when the graph has
/// no terminal.
pub fn leaf_radius(graph: &TreeGraph, params: &ForestMeshParams) -> Option<f64> {
    let tips: Vec<[f64; 2]> =
        graph.nodes.iter().filter(|n| n.kind == NodeKind::Terminal).map(|n| [n.position[0], n.position[1]]).collect();
    if tips.is_empty() {
        return None;
    }
    let n = tips.len() as f64;
    let c = [0, 1].map(|k| tips.iter().map(|t| t[k]).sum::<f64>() / n);
    let ms = tips.iter().map(|t| (t[0] - c[0]).powi(2) + (t[1] - c[1]).powi(2)).sum::<f64>() / n;
    let crown = libm::sqrt(2.0 * ms);
    let r = params.leaf_radius_factor * crown / libm::sqrt(n);
    Some(r.max(params.min_leaf_radius).min(params.max_leaf_radius))
}

/// Whether `graph`'s edge `e` gets a tube: it exists, names existing nodes and is at least
/// [`MIN_EDGE_LENGTH`] long.
pub fn edge_meshed(graph: &TreeGraph, e: usize) -> bool {
    let Some(edge) = graph.edges.get(e) else { return false };
    match (graph.nodes.get(edge.parent as usize), graph.nodes.get(edge.child as usize)) {
        (Some(a), Some(b)) => len3(sub(b.position, a.position)) >= MIN_EDGE_LENGTH,
        _ => false,
    }
}

/// Checks `graph` for what meshing reads: finite positions, edges naming existing nodes, radii
/// finite and positive on every node an edge touches.
fn check_graph(graph: &TreeGraph) -> Result<()> {
    let t = graph.tree_id;
    let bad = |m: String| Err(WorldError::Invalid(format!("forest mesh: tree {t}: {m}")));
    let n = graph.nodes.len();
    for (k, node) in graph.nodes.iter().enumerate() {
        if node.position.iter().any(|v| !v.is_finite()) {
            return bad(format!("node {k} has a non-finite position {:?}", node.position));
        }
    }
    let radius_ok = |k: usize| {
        let r = graph.nodes[k].radius;
        r.is_finite() && r > 0.0
    };
    for (i, e) in graph.edges.iter().enumerate() {
        for id in [e.parent, e.child] {
            if id as usize >= n {
                return bad(format!("edge {i} names node {id}; the graph has {n} nodes"));
            }
            if !radius_ok(id as usize) {
                return bad(format!(
                    "node {id} has radius {}; it must be finite and > 0",
                    graph.nodes[id as usize].radius
                ));
            }
        }
    }
    Ok(())
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn len3(a: [f64; 3]) -> f64 {
    libm::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

fn to32(a: [f64; 3]) -> [f32; 3] {
    a.map(|v| v as f32)
}

/// The frame `(u, v, d)` of a unit axis `d` (module docs).
fn frame(d: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let mut k = 0;
    for j in 1..3 {
        if d[j].abs() < d[k].abs() {
            k = j;
        }
    }
    let mut e = [0.0; 3];
    e[k] = 1.0;
    let dot = d[k];
    let w = [e[0] - dot * d[0], e[1] - dot * d[1], e[2] - dot * d[2]];
    let l = len3(w);
    let u = w.map(|c| c / l);
    (u, cross(d, u))
}

/// The unit icosphere of `detail` subdivisions: vertices and outward triangles.
fn icosphere(detail: u32) -> (Vec<[f64; 3]>, Vec<[u32; 3]>) {
    let phi = (1.0 + libm::sqrt(5.0)) / 2.0;
    let mut v: Vec<[f64; 3]> = Vec::with_capacity(12);
    for a in [-1.0, 1.0] {
        for b in [-phi, phi] {
            v.push([0.0, a, b]);
            v.push([a, b, 0.0]);
            v.push([b, 0.0, a]);
        }
    }
    let edge2 = 4.0; // squared edge length of the (0, ±1, ±φ) icosahedron
    let d2 = |a: [f64; 3], b: [f64; 3]| {
        let s = sub(a, b);
        s[0] * s[0] + s[1] * s[1] + s[2] * s[2]
    };
    let mut faces: Vec<[u32; 3]> = Vec::with_capacity(20);
    for i in 0..12 {
        for j in i + 1..12 {
            for k in j + 1..12 {
                let (a, b, c) = (v[i], v[j], v[k]);
                let near = |x, y| (d2(x, y) - edge2).abs() < 1e-9;
                if near(a, b) && near(b, c) && near(a, c) {
                    let n = cross(sub(b, a), sub(c, a));
                    let out = n[0] * (a[0] + b[0] + c[0]) + n[1] * (a[1] + b[1] + c[1]) + n[2] * (a[2] + b[2] + c[2]);
                    let (i, j, k) = (i as u32, j as u32, k as u32);
                    faces.push(if out > 0.0 { [i, j, k] } else { [i, k, j] });
                }
            }
        }
    }
    let unit = |p: [f64; 3]| {
        let l = len3(p);
        p.map(|c| c / l)
    };
    let mut v: Vec<[f64; 3]> = v.into_iter().map(unit).collect();
    for _ in 0..detail {
        // Midpoints keyed by their (low, high) vertex pair; a sorted list keeps it deterministic.
        let mut mids: Vec<((u32, u32), u32)> = Vec::new();
        let mut next = Vec::with_capacity(faces.len() * 4);
        for f in &faces {
            let mut m = [0u32; 3];
            for (s, (a, b)) in [(f[0], f[1]), (f[1], f[2]), (f[2], f[0])].into_iter().enumerate() {
                let key = (a.min(b), a.max(b));
                m[s] = match mids.binary_search_by_key(&key, |x| x.0) {
                    Ok(at) => mids[at].1,
                    Err(at) => {
                        let (p, q) = (v[a as usize], v[b as usize]);
                        v.push(unit([p[0] + q[0], p[1] + q[1], p[2] + q[2]]));
                        let id = (v.len() - 1) as u32;
                        mids.insert(at, (key, id));
                        id
                    }
                };
            }
            next.push([f[0], m[0], m[2]]);
            next.push([m[0], f[1], m[1]]);
            next.push([m[2], m[1], f[2]]);
            next.push([m[0], m[1], m[2]]);
        }
        faces = next;
    }
    (v, faces)
}

/// Appends the closed bark piece of edge `a → b` with radii `ra`, `rb` and `n` sides.
fn push_tube(m: &mut Mesh, a: [f64; 3], b: [f64; 3], ra: f64, rb: f64, ring: &[[f64; 2]]) {
    let n = ring.len();
    let axis = sub(b, a);
    let h = len3(axis);
    let d = axis.map(|c| c / h);
    let (u, v) = frame(d);
    let dir: Vec<[f64; 3]> = ring.iter().map(|&[c, s]| [0, 1, 2].map(|k| c * u[k] + s * v[k])).collect();
    let at = |centre: [f64; 3], r: f64| -> Vec<[f32; 3]> {
        dir.iter().map(|w| to32([0, 1, 2].map(|k| centre[k] + r * w[k]))).collect()
    };
    let (pa, pb) = (at(a, ra), at(b, rb));
    // Outward side normal: (h·radial + (ra − rb)·d) normalised.
    let slant = libm::sqrt(h * h + (ra - rb) * (ra - rb));
    let side: Vec<[f32; 3]> =
        dir.iter().map(|w| to32([0, 1, 2].map(|k| (h * w[k] + (ra - rb) * d[k]) / slant))).collect();
    let base = m.positions.len() as u32;
    let n32 = n as u32;
    let down = to32(d.map(|c| -c));
    let up = to32(d);
    m.positions.extend_from_slice(&pa);
    m.positions.extend_from_slice(&pb);
    m.positions.extend_from_slice(&pa);
    m.positions.push(to32(a));
    m.positions.extend_from_slice(&pb);
    m.positions.push(to32(b));
    m.normals.extend_from_slice(&side);
    m.normals.extend_from_slice(&side);
    m.normals.extend(std::iter::repeat_n(down, n + 1));
    m.normals.extend(std::iter::repeat_n(up, n + 1));
    m.block.extend(std::iter::repeat_n(BARK, 4 * n + 2));
    let (ra_i, rb_i, ca_i, ca, cb_i, cb) =
        (base, base + n32, base + 2 * n32, base + 3 * n32, base + 3 * n32 + 1, base + 4 * n32 + 1);
    for k in 0..n32 {
        let k1 = (k + 1) % n32;
        m.indices.extend_from_slice(&[ra_i + k, ra_i + k1, rb_i + k1, ra_i + k, rb_i + k1, rb_i + k]);
    }
    for k in 0..n32 {
        let k1 = (k + 1) % n32;
        m.indices.extend_from_slice(&[ca, ca_i + k1, ca_i + k]);
    }
    for k in 0..n32 {
        let k1 = (k + 1) % n32;
        m.indices.extend_from_slice(&[cb, cb_i + k, cb_i + k1]);
    }
}

/// Vertex count of `graph`'s mesh (graph already checked).
fn vertex_count(graph: &TreeGraph, params: &ForestMeshParams) -> usize {
    let tubes = (0..graph.edges.len()).filter(|&e| edge_meshed(graph, e)).count();
    let tips = graph.terminal_count();
    tubes.saturating_mul(params.bark_piece().0).saturating_add(tips.saturating_mul(params.leaf_piece().0))
}

fn too_many(count: usize, params: &ForestMeshParams) -> WorldError {
    param(
        "sides",
        params.sides,
        &format!(
            "the mesh would have {count} vertices (tubes × (4·sides + 2) + terminals × leaf vertices); \
             at most {MAX_VERTICES}: lower sides or leaf_detail, or mesh fewer trees or terminals"
        ),
    )
}

/// Builds the mesh of a checked graph.
fn build(
    graph: &TreeGraph,
    params: &ForestMeshParams,
    ring: &[[f64; 2]],
    blob: &(Vec<[f64; 3]>, Vec<[u32; 3]>),
) -> Mesh {
    let count = vertex_count(graph, params);
    let mut m = Mesh {
        positions: Vec::with_capacity(count),
        normals: Vec::with_capacity(count),
        block: Vec::with_capacity(count),
        ao: Vec::new(),
        indices: Vec::new(),
    };
    for (e, edge) in graph.edges.iter().enumerate() {
        if !edge_meshed(graph, e) {
            continue;
        }
        let (p, c) = (&graph.nodes[edge.parent as usize], &graph.nodes[edge.child as usize]);
        push_tube(&mut m, p.position, c.position, p.radius, c.radius, ring);
    }
    if let Some(r) = leaf_radius(graph, params) {
        let (unit, faces) = blob;
        for node in graph.nodes.iter().filter(|n| n.kind == NodeKind::Terminal) {
            let base = m.positions.len() as u32;
            let c = node.position;
            for w in unit {
                m.positions.push(to32([0, 1, 2].map(|k| c[k] + r * w[k])));
                m.normals.push(to32(*w));
                m.block.push(LEAVES);
            }
            m.indices.extend(faces.iter().flat_map(|f| f.map(|i| base + i)));
        }
    }
    m
}

/// The unit ring of `sides` (cos, sin) pairs.
fn unit_ring(sides: u32) -> Vec<[f64; 2]> {
    (0..sides)
        .map(|k| {
            let t = std::f64::consts::TAU * k as f64 / sides as f64;
            [libm::cos(t), libm::sin(t)]
        })
        .collect()
}

/// The mesh of one tree: its bark pieces in edge order, then a leaf cluster per terminal in node
/// order (module docs). Errors on bad parameters, a malformed graph or more than
/// [`MAX_VERTICES`] vertices.
pub fn tree_mesh(graph: &TreeGraph, params: &ForestMeshParams) -> Result<Mesh> {
    graphs_mesh(std::slice::from_ref(graph), params)
}

/// The meshes of `graphs` joined in order into one (module docs); deterministic on any thread
/// count.
pub fn graphs_mesh(graphs: &[TreeGraph], params: &ForestMeshParams) -> Result<Mesh> {
    params.validate()?;
    for g in graphs {
        check_graph(g)?;
    }
    let total = graphs.iter().fold(0usize, |s, g| s.saturating_add(vertex_count(g, params)));
    if total > MAX_VERTICES {
        return Err(too_many(total, params));
    }
    let ring = unit_ring(params.sides);
    let blob = icosphere(params.leaf_detail);
    let parts: Vec<Mesh> = graphs.par_iter().map(|g| build(g, params, &ring, &blob)).collect();
    let mut out = Mesh {
        positions: Vec::with_capacity(total),
        normals: Vec::with_capacity(total),
        block: Vec::with_capacity(total),
        ao: Vec::new(),
        indices: Vec::with_capacity(parts.iter().map(|p| p.indices.len()).sum()),
    };
    for p in &parts {
        out.append(p).map_err(|e| WorldError::Invalid(format!("forest mesh: {e}")))?;
    }
    Ok(out)
}

/// The mesh of every tree of `forest`, in its graph (site) order: [`graphs_mesh`] of
/// `forest.graphs`.
pub fn forest_mesh(forest: &Forest, params: &ForestMeshParams) -> Result<Mesh> {
    graphs_mesh(&forest.graphs, params)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_right_handed_and_orthonormal() {
        for d in [[0.0, 0.0, 1.0], [0.0, 0.0, -1.0], [1.0, 0.0, 0.0], [0.6, 0.0, 0.8], [0.48, -0.6, 0.64]] {
            let (u, v) = frame(d);
            let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
            assert!(dot(u, d).abs() < 1e-15 && dot(v, d).abs() < 1e-15 && dot(u, v).abs() < 1e-15, "{d:?}");
            assert!((len3(u) - 1.0).abs() < 1e-15 && (len3(v) - 1.0).abs() < 1e-15);
            let w = cross(u, v);
            assert!(len3(sub(w, d)) < 1e-15, "u × v = d for {d:?}");
        }
    }

    #[test]
    fn icosphere_counts_and_unit_vertices() {
        for d in 0..=3 {
            let (v, f) = icosphere(d);
            let k = 1usize << (2 * d);
            assert_eq!((v.len(), f.len()), (10 * k + 2, 20 * k));
            assert!(v.iter().all(|p| (len3(*p) - 1.0).abs() < 1e-15));
        }
    }
}

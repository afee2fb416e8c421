//! Mesh checks used by the tests of this crate and of others: welding of identical positions,
//! edge pairing (watertight / manifold), a T-junction-aware closure test for axis-aligned
//! meshes, the Euler characteristic, the signed volume and the area.
//!
//! Algorithms: welding sorts the vertices by their position bits (−0.0 counts as 0.0), so
//! welded ids follow the sorted positions and are the same on every run. Edge checks sort the
//! directed edges of the welded triangles and count, per undirected edge, the uses in each
//! direction. The signed volume follows the divergence theorem: the sum over triangles of
//! `p0 · (p1 × p2) / 6` (positive for a closed, outward-wound surface, in voxel units³). All
//! sums run in `f64`, in triangle order.
//!
//! Every check validates the mesh first ([`Mesh::validate`]) and returns its error.

use crate::error::Result;
use crate::mesh::Mesh;

/// A mesh with identical positions merged.
#[derive(Debug, Clone, PartialEq)]
pub struct Welded {
    /// Distinct positions, sorted by their bit patterns.
    pub positions: Vec<[f32; 3]>,
    /// The triangles over the welded positions.
    pub indices: Vec<u32>,
    /// Welded id of each input vertex.
    pub map: Vec<u32>,
}

fn key(p: &[f32; 3]) -> [u32; 3] {
    // +0.0 for -0.0 so that the two zeros weld.
    p.map(|c| (c + 0.0).to_bits())
}

/// Merges bit-identical positions (−0.0 = 0.0); unused vertices are kept.
pub fn weld(mesh: &Mesh) -> Result<Welded> {
    mesh.validate()?;
    let mut order: Vec<u32> = (0..mesh.positions.len() as u32).collect();
    order.sort_by_key(|&i| (key(&mesh.positions[i as usize]), i));
    let mut map = vec![0u32; mesh.positions.len()];
    let mut positions: Vec<[f32; 3]> = Vec::new();
    let mut last: Option<[u32; 3]> = None;
    for &i in &order {
        let p = mesh.positions[i as usize];
        let k = key(&p);
        if last != Some(k) {
            positions.push(p);
            last = Some(k);
        }
        map[i as usize] = (positions.len() - 1) as u32;
    }
    let indices = mesh.indices.iter().map(|&i| map[i as usize]).collect();
    Ok(Welded { positions, indices, map })
}

/// Edge pairing of a welded mesh.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EdgeReport {
    /// Distinct undirected edges (of non-degenerate triangles).
    pub edges: usize,
    /// Edges used by one triangle only (holes).
    pub boundary: usize,
    /// Edges used by two triangles in the same direction (inconsistent winding, flipped faces).
    pub same_direction: usize,
    /// Edges used by more than two triangles.
    pub non_manifold: usize,
    /// Edges whose uses in one direction differ in number from those in the other.
    pub unbalanced: usize,
    /// Triangles with two corners at one welded position (skipped by the counts above).
    pub degenerate: usize,
}

impl EdgeReport {
    /// Every directed edge use is matched by a use in the opposite direction: the surface is
    /// closed and consistently wound (it may touch itself along edges).
    pub fn watertight(&self) -> bool {
        self.unbalanced == 0 && self.degenerate == 0
    }

    /// Every edge is used by exactly two triangles, in opposite directions: a closed,
    /// consistently oriented 2-manifold (up to vertices where sheets touch).
    pub fn manifold(&self) -> bool {
        self.watertight() && self.boundary == 0 && self.same_direction == 0 && self.non_manifold == 0
    }
}

/// Directed edges (a, b) of the welded triangles, degenerate triangles counted apart.
fn directed_edges(w: &Welded) -> (Vec<(u32, u32)>, usize) {
    let mut out = Vec::with_capacity(w.indices.len());
    let mut degenerate = 0;
    for t in w.indices.chunks_exact(3) {
        if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] {
            degenerate += 1;
            continue;
        }
        out.extend_from_slice(&[(t[0], t[1]), (t[1], t[2]), (t[2], t[0])]);
    }
    (out, degenerate)
}

/// Pairs the edges of `mesh` after welding.
pub fn edges(mesh: &Mesh) -> Result<EdgeReport> {
    let w = weld(mesh)?;
    let (directed, degenerate) = directed_edges(&w);
    // (low, high, forward?) sorted groups the uses of each undirected edge.
    let mut e: Vec<(u32, u32, bool)> = directed.iter().map(|&(a, b)| (a.min(b), a.max(b), a < b)).collect();
    e.sort_unstable();
    let mut r = EdgeReport { degenerate, ..EdgeReport::default() };
    let mut i = 0;
    while i < e.len() {
        let (lo, hi, _) = e[i];
        let mut fwd = 0usize;
        let mut back = 0usize;
        while i < e.len() && e[i].0 == lo && e[i].1 == hi {
            if e[i].2 {
                fwd += 1;
            } else {
                back += 1;
            }
            i += 1;
        }
        r.edges += 1;
        match fwd + back {
            1 => r.boundary += 1,
            2 if fwd != 1 => r.same_direction += 1,
            2 => {}
            _ => r.non_manifold += 1,
        }
        if fwd != back {
            r.unbalanced += 1;
        }
    }
    Ok(r)
}

/// Closure of a mesh whose edges may end in T-junctions (greedy meshes): each axis-aligned edge
/// is an interval on its line, counted +1 along the axis and −1 against it; the surface is
/// closed where that coverage sums to zero everywhere on every line. Edges that are not
/// axis-aligned (quad diagonals) must pair exactly, as in [`edges`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CoverageReport {
    /// Distinct axis-parallel lines carrying edges.
    pub lines: usize,
    /// Lines where the signed coverage is not zero somewhere.
    pub unbalanced_lines: usize,
    /// Distinct undirected edges that are not axis-aligned.
    pub other_edges: usize,
    /// Of those, the ones used unequally in the two directions.
    pub unbalanced_other: usize,
}

impl CoverageReport {
    /// Closed and consistently wound, allowing T-junctions on axis-aligned edges.
    pub fn closed(&self) -> bool {
        self.unbalanced_lines == 0 && self.unbalanced_other == 0
    }
}

/// The T-junction-aware closure test (see [`CoverageReport`]).
pub fn coverage(mesh: &Mesh) -> Result<CoverageReport> {
    let w = weld(mesh)?;
    let (directed, _) = directed_edges(&w);
    // Events (axis, the other two coordinates' bits, t bits ordered, delta).
    let mut events: Vec<(u8, [u32; 2], i64, i32)> = Vec::new();
    let mut other: Vec<(u32, u32, bool)> = Vec::new();
    let ord = |x: f32| -> i64 {
        // Monotone map of finite f32 onto integers.
        let b = (x + 0.0).to_bits() as i32;
        if b < 0 {
            -((b & 0x7fff_ffff) as i64)
        } else {
            b as i64
        }
    };
    for &(a, b) in &directed {
        let p = w.positions[a as usize];
        let q = w.positions[b as usize];
        let same: Vec<usize> = (0..3).filter(|&k| p[k] == q[k]).collect();
        if same.len() == 2 {
            let axis = (0..3).find(|k| !same.contains(k)).unwrap_or(0);
            let line = [key(&p)[same[0]], key(&p)[same[1]]];
            let (s, lo, hi) = if p[axis] < q[axis] { (1, p[axis], q[axis]) } else { (-1, q[axis], p[axis]) };
            events.push((axis as u8, line, ord(lo), s));
            events.push((axis as u8, line, ord(hi), -s));
        } else {
            other.push((a.min(b), a.max(b), a < b));
        }
    }
    events.sort_unstable();
    let mut r = CoverageReport::default();
    let mut i = 0;
    while i < events.len() {
        let (ax, line, _, _) = events[i];
        r.lines += 1;
        let mut sum = 0i64;
        let mut bad = false;
        while i < events.len() && events[i].0 == ax && events[i].1 == line {
            let t = events[i].2;
            while i < events.len() && events[i].0 == ax && events[i].1 == line && events[i].2 == t {
                sum += events[i].3 as i64;
                i += 1;
            }
            bad |= sum != 0;
        }
        if bad {
            r.unbalanced_lines += 1;
        }
    }
    other.sort_unstable();
    let mut i = 0;
    while i < other.len() {
        let (lo, hi, _) = other[i];
        let mut bal = 0i64;
        while i < other.len() && other[i].0 == lo && other[i].1 == hi {
            bal += if other[i].2 { 1 } else { -1 };
            i += 1;
        }
        r.other_edges += 1;
        if bal != 0 {
            r.unbalanced_other += 1;
        }
    }
    Ok(r)
}

/// V − E + F of the welded mesh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EulerReport {
    /// Welded vertices used by a non-degenerate triangle.
    pub vertices: usize,
    /// Distinct undirected edges.
    pub edges: usize,
    /// Non-degenerate triangles.
    pub faces: usize,
    /// V − E + F (2 for a sphere, 0 for a torus, 2 − 2g for a closed surface of genus g).
    pub characteristic: i64,
}

/// The Euler characteristic after welding.
pub fn euler(mesh: &Mesh) -> Result<EulerReport> {
    let w = weld(mesh)?;
    let (directed, _) = directed_edges(&w);
    let mut used = vec![false; w.positions.len()];
    for &(a, _) in &directed {
        used[a as usize] = true;
    }
    let vertices = used.iter().filter(|&&u| u).count();
    let mut e: Vec<(u32, u32)> = directed.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
    e.sort_unstable();
    e.dedup();
    let faces = directed.len() / 3;
    Ok(EulerReport { vertices, edges: e.len(), faces, characteristic: vertices as i64 - e.len() as i64 + faces as i64 })
}

/// Enclosed volume by the divergence theorem.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VolumeReport {
    /// Σ p0 · (p1 × p2) / 6 over the triangles, in voxel units³; equals the enclosed volume for
    /// a closed, outward-wound surface and its negative when wound inward.
    pub signed_volume: f64,
}

/// The signed volume of `mesh` (meaningful for closed meshes).
pub fn volume(mesh: &Mesh) -> Result<VolumeReport> {
    mesh.validate()?;
    let mut v = 0.0f64;
    for t in mesh.indices.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| mesh.positions[i as usize].map(f64::from));
        v += a[0] * (b[1] * c[2] - b[2] * c[1])
            + a[1] * (b[2] * c[0] - b[0] * c[2])
            + a[2] * (b[0] * c[1] - b[1] * c[0]);
    }
    Ok(VolumeReport { signed_volume: v / 6.0 })
}

/// Total surface area.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AreaReport {
    /// Σ |(p1 − p0) × (p2 − p0)| / 2 over the triangles, in voxel units².
    pub area: f64,
}

/// The surface area of `mesh`.
pub fn area(mesh: &Mesh) -> Result<AreaReport> {
    mesh.validate()?;
    let mut s = 0.0f64;
    for t in mesh.indices.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| mesh.positions[i as usize].map(f64::from));
        let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        let n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
        s += (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    }
    Ok(AreaReport { area: s / 2.0 })
}

/// A mesh of bare triangles (normals zero, block 0) for tests and callers holding raw arrays.
pub fn from_triangles(positions: Vec<[f32; 3]>, indices: Vec<u32>) -> Mesh {
    let n = positions.len();
    Mesh { positions, normals: vec![[0.0; 3]; n], block: vec![0; n], ao: Vec::new(), indices }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unit cube [0,1]³, 8 shared vertices, 12 outward triangles.
    fn cube() -> Mesh {
        let p: Vec<[f32; 3]> = (0..8).map(|i| [(i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32]).collect();
        // Quads counter-clockwise from outside.
        let quads = [
            [0, 2, 3, 1], // z = 0, normal -z
            [4, 5, 7, 6], // z = 1
            [0, 1, 5, 4], // y = 0
            [2, 6, 7, 3], // y = 1
            [0, 4, 6, 2], // x = 0
            [1, 3, 7, 5], // x = 1
        ];
        let mut idx = Vec::new();
        for q in quads {
            idx.extend_from_slice(&[q[0], q[1], q[2], q[0], q[2], q[3]]);
        }
        from_triangles(p, idx)
    }

    /// Unit cube with a separate vertex per quad corner (as the block meshers emit).
    fn cube_split() -> Mesh {
        let c = cube();
        let mut m = Mesh::new();
        for t in c.indices.chunks_exact(3) {
            for &i in t {
                m.positions.push(c.positions[i as usize]);
                m.normals.push([0.0; 3]);
                m.block.push(1);
                m.indices.push(m.indices.len() as u32);
            }
        }
        m
    }

    fn tetra() -> Mesh {
        from_triangles(
            vec![[0., 0., 0.], [1., 0., 0.], [0., 1., 0.], [0., 0., 1.]],
            vec![0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3],
        )
    }

    #[test]
    fn cube_and_tetrahedron_pass() {
        for m in [cube(), cube_split()] {
            let e = edges(&m).unwrap();
            assert!(e.manifold(), "{e:?}");
            assert_eq!(e.edges, 18);
            assert_eq!(euler(&m).unwrap().characteristic, 2);
            assert!((volume(&m).unwrap().signed_volume - 1.0).abs() < 1e-12);
            assert!((area(&m).unwrap().area - 6.0).abs() < 1e-12);
            assert!(coverage(&m).unwrap().closed());
        }
        assert_eq!(weld(&cube_split()).unwrap().positions.len(), 8);
        let t = tetra();
        assert!(edges(&t).unwrap().manifold());
        assert_eq!(euler(&t).unwrap().characteristic, 2);
        assert!((volume(&t).unwrap().signed_volume - 1.0 / 6.0).abs() < 1e-12);
        let area_t = 1.5 + 3f64.sqrt() / 2.0;
        assert!((area(&t).unwrap().area - area_t).abs() < 1e-9);
    }

    #[test]
    fn a_flipped_triangle_fails() {
        let mut m = cube();
        m.indices.swap(7, 8); // a triangle of z = 1 (those through the origin add no volume)
        let e = edges(&m).unwrap();
        assert!(!e.watertight() && !e.manifold());
        assert_eq!(e.same_direction, 3);
        assert!(!coverage(&m).unwrap().closed());
        assert!((volume(&m).unwrap().signed_volume - 1.0).abs() > 0.1);
        // Every triangle flipped: still paired, but the volume turns negative.
        let mut m = cube();
        for t in m.indices.chunks_exact_mut(3) {
            t.swap(1, 2);
        }
        assert!(edges(&m).unwrap().manifold());
        assert!((volume(&m).unwrap().signed_volume + 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_hole_fails() {
        let mut m = cube();
        m.indices.truncate(33);
        let e = edges(&m).unwrap();
        assert_eq!(e.boundary, 3);
        assert!(!e.watertight());
        assert_eq!(euler(&m).unwrap().characteristic, 1);
        assert!(!coverage(&m).unwrap().closed());
    }

    #[test]
    fn t_junctions_close_under_coverage_only() {
        // A 2×1×1 box: the top and bottom as single 2×1 quads, the front and back faces as two
        // unit quads each (T-junctions at x = 1).
        let mut m = Mesh::new();
        let q = |m: &mut Mesh, c: [[f32; 3]; 4]| m.push_quad(c, [0.0; 3], 1, None);
        q(&mut m, [[0., 1., 0.], [0., 1., 1.], [2., 1., 1.], [2., 1., 0.]]); // top +y
        q(&mut m, [[0., 0., 0.], [2., 0., 0.], [2., 0., 1.], [0., 0., 1.]]); // bottom -y
        for x in [0f32, 1.] {
            q(&mut m, [[x, 0., 1.], [x + 1., 0., 1.], [x + 1., 1., 1.], [x, 1., 1.]]); // +z
            q(&mut m, [[x, 0., 0.], [x, 1., 0.], [x + 1., 1., 0.], [x + 1., 0., 0.]]);
            // -z
        }
        q(&mut m, [[0., 0., 0.], [0., 0., 1.], [0., 1., 1.], [0., 1., 0.]]); // -x
        q(&mut m, [[2., 0., 0.], [2., 1., 0.], [2., 1., 1.], [2., 0., 1.]]); // +x
        assert!(!edges(&m).unwrap().watertight());
        let c = coverage(&m).unwrap();
        assert!(c.closed(), "{c:?}");
        assert!((volume(&m).unwrap().signed_volume - 2.0).abs() < 1e-12);
        // Drop one unit quad: open.
        m.indices.truncate(m.indices.len() - 6 * 3);
        assert!(!coverage(&m).unwrap().closed());
    }

    #[test]
    fn bad_indices_are_errors() {
        let m = from_triangles(vec![[0.0; 3]], vec![0, 0, 1]);
        assert!(edges(&m).is_err() && volume(&m).is_err() && area(&m).is_err());
    }
}

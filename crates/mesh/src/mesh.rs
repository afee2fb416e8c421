//! The triangle mesh every mesher returns: per-vertex positions, normals, block ids and ambient
//! occlusion, and a `u32` index list of counter-clockwise (seen from outside) triangles.
//!
//! Block meshers emit quads as four vertices and two triangles, so [`Mesh::quad_count`] is the
//! number of quads they emitted; smooth meshes (surface nets) share vertices between faces.

use crate::error::{MeshError, Result};

/// A triangle mesh (glTF conventions: counter-clockwise triangles seen from outside).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mesh {
    /// Vertex positions in voxel units (plus the mesher's origin).
    pub positions: Vec<[f32; 3]>,
    /// Unit outward normals, one per vertex.
    pub normals: Vec<[f32; 3]>,
    /// Block id (material) per vertex.
    pub block: Vec<u16>,
    /// Ambient occlusion per vertex, 0..=3 (3 = unoccluded); empty for smooth meshes and for
    /// block meshes made without occlusion.
    pub ao: Vec<u8>,
    /// Triangle corners, three per triangle.
    pub indices: Vec<u32>,
}

impl Mesh {
    /// An empty mesh.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// Number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    /// Number of quads, counting two triangles as one quad (exact for the block meshers).
    pub fn quad_count(&self) -> usize {
        self.indices.len() / 6
    }

    /// Whether the mesh has no triangles.
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    /// Checks that the per-vertex arrays agree in length (`ao` may be empty), that the index list
    /// is whole triangles and that every index points at a vertex.
    pub fn validate(&self) -> Result<()> {
        let n = self.positions.len();
        if self.normals.len() != n || self.block.len() != n || !(self.ao.is_empty() || self.ao.len() == n) {
            return Err(MeshError::RaggedVertices {
                positions: n,
                normals: self.normals.len(),
                blocks: self.block.len(),
                ao: self.ao.len(),
            });
        }
        if !self.indices.len().is_multiple_of(3) {
            return Err(MeshError::RaggedIndices(self.indices.len()));
        }
        if let Some((at, &index)) = self.indices.iter().enumerate().find(|(_, &i)| i as usize >= n) {
            return Err(MeshError::IndexOutOfRange { index, at, vertices: n });
        }
        Ok(())
    }

    /// Appends `other` to `self` (its indices shifted past `self`'s vertices). If exactly one of
    /// the two has ambient occlusion, the other's vertices get 3 (unoccluded). Refuses a sum of
    /// vertices that `u32` indices cannot address; `self` is unchanged then.
    pub fn append(&mut self, other: &Mesh) -> Result<()> {
        let base = self.positions.len();
        let total = base + other.positions.len();
        if total > u32::MAX as usize {
            return Err(MeshError::TooManyVertices(total));
        }
        if !self.ao.is_empty() || !other.ao.is_empty() {
            self.ao.resize(base, 3);
            if other.ao.is_empty() {
                self.ao.resize(total, 3);
            } else {
                self.ao.extend_from_slice(&other.ao);
            }
        }
        self.positions.extend_from_slice(&other.positions);
        self.normals.extend_from_slice(&other.normals);
        self.block.extend_from_slice(&other.block);
        let b = base as u32;
        self.indices.extend(other.indices.iter().map(|&i| i + b));
        Ok(())
    }

    /// One mesh holding `meshes` in order (see [`Mesh::append`]).
    pub fn merge<'a>(meshes: impl IntoIterator<Item = &'a Mesh>) -> Result<Mesh> {
        let mut out = Mesh::new();
        for m in meshes {
            out.append(m)?;
        }
        Ok(out)
    }

    /// Pushes a planar quad with corners `c` counter-clockwise seen from outside. With `ao`, the
    /// quad is split along the diagonal whose two corners have the larger occlusion sum (0–2 on a
    /// tie), so that a darker corner stays in one triangle instead of smearing along the
    /// diagonal; without, along 0–2. Occlusion stays per vertex: a quad without it gets 3s when
    /// the mesh has occlusion, and earlier vertices get 3s when the first quad with it comes.
    pub fn push_quad(&mut self, c: [[f32; 3]; 4], normal: [f32; 3], block: u16, ao: Option<[u8; 4]>) {
        let s = self.positions.len() as u32;
        if ao.is_some() {
            self.ao.resize(self.positions.len(), 3);
        } else if !self.ao.is_empty() {
            self.ao.extend_from_slice(&[3; 4]);
        }
        self.positions.extend_from_slice(&c);
        self.normals.extend_from_slice(&[normal; 4]);
        self.block.extend_from_slice(&[block; 4]);
        let flip = match ao {
            Some(a) => {
                self.ao.extend_from_slice(&a);
                (a[1] as u16 + a[3] as u16) > (a[0] as u16 + a[2] as u16)
            }
            None => false,
        };
        if flip {
            self.indices.extend_from_slice(&[s + 1, s + 2, s + 3, s + 1, s + 3, s]);
        } else {
            self.indices.extend_from_slice(&[s, s + 1, s + 2, s, s + 2, s + 3]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quad(ao: Option<[u8; 4]>) -> Mesh {
        let mut m = Mesh::new();
        m.push_quad([[0., 0., 0.], [1., 0., 0.], [1., 1., 0.], [0., 1., 0.]], [0., 0., 1.], 7, ao);
        m
    }

    #[test]
    fn counts_and_diagonal() {
        let m = quad(Some([3, 3, 3, 3]));
        assert_eq!((m.quad_count(), m.triangle_count(), m.vertex_count()), (1, 2, 4));
        assert_eq!(m.indices, vec![0, 1, 2, 0, 2, 3]);
        // corner 0 dark: the 1-3 diagonal is brighter, so the quad is flipped.
        let m = quad(Some([0, 3, 3, 3]));
        assert_eq!(m.indices, vec![1, 2, 3, 1, 3, 0]);
        m.validate().unwrap();
    }

    #[test]
    fn append_shifts_and_fills_ao() {
        let a = quad(None);
        let b = quad(Some([1, 2, 3, 0]));
        let m = Mesh::merge([&a, &b]).unwrap();
        m.validate().unwrap();
        assert_eq!(m.ao, vec![3, 3, 3, 3, 1, 2, 3, 0]);
        assert_eq!(&m.indices[6..], &[4, 5, 6, 4, 6, 7]);
        let m = Mesh::merge([&b, &a]).unwrap();
        assert_eq!(m.ao, vec![1, 2, 3, 0, 3, 3, 3, 3]);
        m.validate().unwrap();
        let none = Mesh::merge([&a, &a]).unwrap();
        assert!(none.ao.is_empty());
    }

    #[test]
    fn validate_catches_bad_meshes() {
        let mut m = quad(None);
        m.indices.push(9);
        assert!(matches!(m.validate(), Err(MeshError::RaggedIndices(7))));
        m.indices.extend([1, 2]);
        assert!(matches!(m.validate(), Err(MeshError::IndexOutOfRange { index: 9, .. })));
        let mut m = quad(None);
        m.block.pop();
        assert!(m.validate().is_err());
    }
}

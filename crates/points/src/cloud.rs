//! The point cloud every sampler returns: positions in `f64`, one unit normal per point and the
//! index of the triangle each point was drawn on.
//!
//! Conventions: positions are in the units and frame of the surface they were sampled from
//! (voxel units for block meshes, metres and the y-up mesh frame for height fields, see
//! [`crate::heightfield`]); a normal is the geometric normal of the point's triangle,
//! `normalize((b − a) × (c − a))` for corners `a b c`, so it points to the side from which the
//! corners turn counter-clockwise (outward for the project's meshes, up for height fields).
//! Clouds made by hand may leave `triangle` empty.

use crate::error::{check_finite_points, PointsError, Result};

/// A point cloud with per-point normals and source triangles.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PointCloud {
    /// Point positions.
    pub positions: Vec<[f64; 3]>,
    /// Unit normal of each point (its triangle's geometric normal).
    pub normals: Vec<[f32; 3]>,
    /// Index of the triangle each point lies on, in the surface's triangle order; empty for
    /// clouds that did not come from a surface.
    pub triangle: Vec<u32>,
}

impl PointCloud {
    /// Number of points.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether the cloud has no points.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Checks that `normals` has one entry per point, `triangle` one or none, every position is
    /// finite and every normal finite with length within `1e-3` of 1.
    pub fn validate(&self) -> Result<()> {
        const WHAT: &str = "PointCloud::validate";
        let n = self.positions.len();
        if self.normals.len() != n || !(self.triangle.is_empty() || self.triangle.len() == n) {
            return Err(PointsError::Shape {
                what: WHAT,
                detail: format!(
                    "{n} positions, {} normals and {} triangle indices (normals must match positions, \
                     triangle indices must match or be empty)",
                    self.normals.len(),
                    self.triangle.len()
                ),
            });
        }
        check_finite_points(WHAT, &self.positions)?;
        for (i, m) in self.normals.iter().enumerate() {
            let len = m.iter().map(|&v| f64::from(v) * f64::from(v)).sum::<f64>().sqrt();
            if !len.is_finite() || (len - 1.0).abs() > 1e-3 {
                return Err(PointsError::param(
                    WHAT,
                    "normal length",
                    len,
                    format!("normal {i} must be a unit vector"),
                ));
            }
        }
        Ok(())
    }

    /// The points at `indices` (in that order), with their normals and triangles. Refuses an
    /// index past the end.
    pub fn subset(&self, indices: &[usize]) -> Result<PointCloud> {
        if let Some(&bad) = indices.iter().find(|&&i| i >= self.len()) {
            return Err(PointsError::param(
                "PointCloud::subset",
                "index",
                bad as f64,
                format!("below the {} points", self.len()),
            ));
        }
        Ok(PointCloud {
            positions: indices.iter().map(|&i| self.positions[i]).collect(),
            normals: indices.iter().filter_map(|&i| self.normals.get(i).copied()).collect(),
            triangle: indices.iter().filter_map(|&i| self.triangle.get(i).copied()).collect(),
        })
    }
}

/// Component-wise minimum and maximum of `points` (`±∞` for none).
pub(crate) fn bounds<'a>(points: impl IntoIterator<Item = &'a [f64; 3]>) -> ([f64; 3], [f64; 3]) {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in points {
        lo = [lo[0].min(p[0]), lo[1].min(p[1]), lo[2].min(p[2])];
        hi = [hi[0].max(p[0]), hi[1].max(p[1]), hi[2].max(p[2])];
    }
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validate_and_subset() {
        let c = PointCloud {
            positions: vec![[0.0; 3], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]],
            normals: vec![[0.0, 0.0, 1.0]; 3],
            triangle: vec![4, 5, 6],
        };
        c.validate().unwrap();
        let s = c.subset(&[2, 0]).unwrap();
        assert_eq!(s.positions, vec![[2.0, 0.0, 0.0], [0.0; 3]]);
        assert_eq!(s.triangle, vec![6, 4]);
        let e = c.subset(&[3]).unwrap_err().to_string();
        assert!(e.contains("index = 3"), "{e}");

        let mut bad = c.clone();
        bad.normals[1] = [0.0, 0.0, 2.0];
        assert!(bad.validate().unwrap_err().to_string().contains("normal 1"));
        let mut bad = c.clone();
        bad.positions[2][1] = f64::NAN;
        assert!(bad.validate().unwrap_err().to_string().contains("point 2 is not finite (NaN)"));
        let mut bad = c;
        bad.triangle.pop();
        assert!(bad.validate().unwrap_err().to_string().contains("2 triangle indices"));
    }
}

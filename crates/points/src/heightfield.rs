//! Point clouds straight from a height field (a profile, a DEM), without building its mesh.
//!
//! # Surface
//!
//! The surface is the one the project's terrain mesher builds (`bozkir_io::export::mesh`,
//! glTF frame, y up): grid vertex `(col, row)` sits at `x = col·dx`, `y = height`,
//! `z = row·dy`, so north (row 0) is −z and east is +x. Cell `(col, row)` of the
//! `(nx − 1) × (ny − 1)` cells has corners `a = (col, row)`, `b = (col + 1, row)`,
//! `c = (col, row + 1)`, `d = (col + 1, row + 1)` and is split along its `b–c` diagonal into
//! triangle `2·cell` = `a c b` and triangle `2·cell + 1` = `b c d`, where
//! `cell = col + (nx − 1)·row`; both are counter-clockwise seen from above, so normals point
//! up (+y). The surface is piecewise planar: no bilinear patch, no smoothing.
//!
//! Heights are row-major (`heights[row·nx + col]`, [`bozkir_core::Grid`]'s order).
//!
//! # Sampling
//!
//! [`heightfield_points`] is [`crate::sample_surface`] on [`HeightField`] (which computes
//! corners on demand): the same area weighting, draws and determinism, and bit for bit the
//! same cloud as sampling the triangle soup of the mesh above in `f64` — only the mesh is never
//! built, so a 4096² DEM needs 1.5 bytes per triangle for the area table instead of the mesh's
//! ~90 bytes.
//!
//! # Errors
//!
//! `nx` or `ny` below 2; `heights.len() ≠ nx·ny`; more than `u32::MAX` triangles; `dx` or `dy`
//! not finite and positive; a non-finite height (named by its index and value); and the
//! errors of [`crate::sample_surface`] (`count`, a flat-zero total area cannot happen with
//! positive spacings).

use crate::cloud::PointCloud;
use crate::error::{PointsError, Result};
use crate::sample::{sample_impl, triangle_area, Surface};

/// A height field seen as a triangle surface (see the module doc for the frame and the
/// triangulation).
#[derive(Debug, Clone, Copy)]
pub struct HeightField<'a> {
    heights: &'a [f64],
    nx: usize,
    ny: usize,
    dx: f64,
    dy: f64,
}

impl<'a> HeightField<'a> {
    /// A checked view of `heights` (`nx` columns × `ny` rows, row-major) with column spacing
    /// `dx` and row spacing `dy`.
    pub fn new(heights: &'a [f64], nx: usize, ny: usize, dx: f64, dy: f64) -> Result<Self> {
        const WHAT: &str = "HeightField";
        if nx < 2 || ny < 2 {
            let (name, v) = if nx < 2 { ("nx", nx) } else { ("ny", ny) };
            return Err(PointsError::param(WHAT, name, v as f64, "at least 2 (one cell)"));
        }
        if nx.checked_mul(ny) != Some(heights.len()) {
            return Err(PointsError::Shape {
                what: WHAT,
                detail: format!("{} heights for a {nx} × {ny} grid", heights.len()),
            });
        }
        let triangles = 2 * (nx - 1) as u128 * (ny - 1) as u128;
        if triangles > u128::from(u32::MAX) {
            return Err(PointsError::param(WHAT, "triangles", triangles as f64, format!("at most {}", u32::MAX)));
        }
        for (name, v) in [("dx", dx), ("dy", dy)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(PointsError::param(WHAT, name, v, "finite and > 0"));
            }
        }
        if let Some((index, &value)) = heights.iter().enumerate().find(|(_, h)| !h.is_finite()) {
            return Err(PointsError::NonFinite { what: WHAT, item: "height", index, value });
        }
        Ok(HeightField { heights, nx, ny, dx, dy })
    }

    /// Position of grid vertex `(col, row)`: `[col·dx, height, row·dy]`.
    #[inline]
    pub fn vertex(&self, col: usize, row: usize) -> [f64; 3] {
        [col as f64 * self.dx, self.heights[row * self.nx + col], row as f64 * self.dy]
    }

    /// Grid size `(nx, ny)`.
    pub fn size(&self) -> (usize, usize) {
        (self.nx, self.ny)
    }
}

impl Surface for HeightField<'_> {
    fn triangle_count(&self) -> usize {
        2 * (self.nx - 1) * (self.ny - 1)
    }

    fn corners(&self, t: usize) -> [[f64; 3]; 3] {
        let cell = t / 2;
        let (col, row) = (cell % (self.nx - 1), cell / (self.nx - 1));
        let b = self.vertex(col + 1, row);
        let c = self.vertex(col, row + 1);
        if t.is_multiple_of(2) {
            [self.vertex(col, row), c, b]
        } else {
            [b, c, self.vertex(col + 1, row + 1)]
        }
    }

    fn check(&self) -> Result<()> {
        // Checked in `HeightField::new`.
        Ok(())
    }

    /// Walks the cells from `t0` without a division per triangle; the same corners, so the
    /// same bits as the default.
    fn areas(&self, t0: usize, out: &mut [f64]) {
        let w = self.nx - 1;
        let (mut col, mut row) = ((t0 / 2) % w, (t0 / 2) / w);
        let mut upper = t0 % 2 == 1;
        for a in out.iter_mut() {
            let b = self.vertex(col + 1, row);
            let c = self.vertex(col, row + 1);
            let corners = if upper { [b, c, self.vertex(col + 1, row + 1)] } else { [self.vertex(col, row), c, b] };
            *a = triangle_area(&corners);
            if upper {
                col += 1;
                if col == w {
                    col = 0;
                    row += 1;
                }
            }
            upper = !upper;
        }
    }
}

/// `count` points drawn uniformly by area over the triangulated height field (see the module
/// doc), each with its triangle's upward normal; `triangle` holds `2·cell` or `2·cell + 1`.
pub fn heightfield_points(
    heights: &[f64],
    nx: usize,
    ny: usize,
    dx: f64,
    dy: f64,
    count: usize,
    seed: u64,
) -> Result<PointCloud> {
    crate::sample::check_count("heightfield_points", count)?;
    let hf = HeightField::new(heights, nx, ny, dx, dy)?;
    sample_impl("heightfield_points", &hf, count, seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::sample_surface;

    fn terrain(nx: usize, ny: usize) -> Vec<f64> {
        (0..nx * ny)
            .map(|i| {
                let (x, y) = ((i % nx) as f64, (i / nx) as f64);
                3.0 * (0.31 * x).sin() * (0.17 * y).cos() + 0.05 * x * y + if (i * 31) % 7 == 0 { 2.0 } else { 0.0 }
            })
            .collect()
    }

    /// The height of the triangulated surface at `(x, z)`, computed independently: find the
    /// cell, the half (`u + v ≤ 1` is triangle a c b), and interpolate linearly on it.
    fn surface_height(h: &[f64], nx: usize, dx: f64, dy: f64, x: f64, z: f64) -> f64 {
        let (gx, gz) = (x / dx, z / dy);
        let (col, row) = ((gx.floor() as usize).min(nx - 2), gz.floor() as usize);
        let (u, v) = (gx - col as f64, gz - row as f64);
        let hh = |c: usize, r: usize| h[r * nx + c];
        let (ha, hb, hc, hd) = (hh(col, row), hh(col + 1, row), hh(col, row + 1), hh(col + 1, row + 1));
        if u + v <= 1.0 {
            ha + u * (hb - ha) + v * (hc - ha)
        } else {
            hd + (1.0 - u) * (hc - hd) + (1.0 - v) * (hb - hd)
        }
    }

    #[test]
    fn points_lie_on_the_triangulated_surface() {
        let (nx, ny, dx, dy) = (23, 17, 2.0, 3.5);
        let h = terrain(nx, ny);
        let cloud = heightfield_points(&h, nx, ny, dx, dy, 30_000, 5).unwrap();
        let mut worst: f64 = 0.0;
        for (i, p) in cloud.positions.iter().enumerate() {
            assert!(p[0] >= 0.0 && p[0] <= (nx - 1) as f64 * dx && p[2] >= 0.0 && p[2] <= (ny - 1) as f64 * dy);
            let want = surface_height(&h, nx, dx, dy, p[0], p[2]);
            worst = worst.max((p[1] - want).abs());
            // The triangle index names the cell and half the point is in.
            let t = cloud.triangle[i] as usize;
            let (col, row) = ((t / 2) % (nx - 1), (t / 2) / (nx - 1));
            let (u, v) = (p[0] / dx - col as f64, p[2] / dy - row as f64);
            assert!((-1e-9..=1.0 + 1e-9).contains(&u) && (-1e-9..=1.0 + 1e-9).contains(&v), "point {i}");
            assert!(if t.is_multiple_of(2) { u + v <= 1.0 + 1e-9 } else { u + v >= 1.0 - 1e-9 }, "point {i} half");
            assert!(cloud.normals[i][1] > 0.0, "normal {i} points down");
        }
        assert!(worst < 1e-9, "worst height error {worst}");
    }

    #[test]
    fn same_bits_as_sampling_the_mesh_soup() {
        let (nx, ny, dx, dy) = (9, 12, 1.5, 0.75);
        let h = terrain(nx, ny);
        let v = |c: usize, r: usize| [c as f64 * dx, h[r * nx + c], r as f64 * dy];
        // The mesher's triangles: a c b, b c d per cell, cells row by row.
        let mut soup = Vec::new();
        for r in 0..ny - 1 {
            for c in 0..nx - 1 {
                soup.push([v(c, r), v(c, r + 1), v(c + 1, r)]);
                soup.push([v(c + 1, r), v(c, r + 1), v(c + 1, r + 1)]);
            }
        }
        let a = heightfield_points(&h, nx, ny, dx, dy, 10_000, 77).unwrap();
        let b = sample_surface(&soup, 10_000, 77).unwrap();
        assert_eq!(a, b);
        let hf = HeightField::new(&h, nx, ny, dx, dy).unwrap();
        let total: f64 = (0..hf.triangle_count()).map(|t| triangle_area(&hf.corners(t))).sum();
        let flat = (nx - 1) as f64 * dx * (ny - 1) as f64 * dy;
        assert!(total > flat, "relief adds area: {total} vs {flat}");
    }

    #[test]
    fn cell_walk_areas_equal_corner_areas() {
        let (nx, ny) = (7, 5);
        let h = terrain(nx, ny);
        let hf = HeightField::new(&h, nx, ny, 0.7, 1.3).unwrap();
        let n = hf.triangle_count();
        let want: Vec<u64> = (0..n).map(|t| triangle_area(&hf.corners(t)).to_bits()).collect();
        for t0 in [0, 1, 5, 11, 12, 13, n - 3] {
            for len in [1, 2, 7, n - t0] {
                let len = len.min(n - t0);
                let mut out = vec![0.0; len];
                hf.areas(t0, &mut out);
                let got: Vec<u64> = out.iter().map(|a| a.to_bits()).collect();
                assert_eq!(got, want[t0..t0 + len], "t0 {t0} len {len}");
            }
        }
    }

    #[test]
    fn steep_cells_get_more_points() {
        // Two cells side by side: one flat, one rising 10 over 1: area ratio √101 ≈ 10.05.
        let h = [0.0, 0.0, 0.0, 0.0, 0.0, 10.0];
        let cloud = heightfield_points(&h, 3, 2, 1.0, 1.0, 100_000, 1).unwrap();
        let hf = HeightField::new(&h, 3, 2, 1.0, 1.0).unwrap();
        let areas: Vec<f64> = (0..4).map(|t| triangle_area(&hf.corners(t))).collect();
        let total: f64 = areas.iter().sum();
        let mut counts = [0f64; 4];
        cloud.triangle.iter().for_each(|&t| counts[t as usize] += 1.0);
        // χ²(3) 0.999 quantile 16.27.
        let chi2: f64 = counts.iter().zip(&areas).map(|(c, a)| (c - 1e5 * a / total).powi(2) / (1e5 * a / total)).sum();
        assert!(chi2 < 16.27, "chi2 {chi2} counts {counts:?}");
    }

    #[test]
    fn bad_input_is_refused_with_the_value() {
        let h = vec![0.0; 12];
        let err = |r: Result<PointCloud>| r.unwrap_err().to_string();
        assert!(err(heightfield_points(&h, 1, 12, 1.0, 1.0, 10, 0)).contains("nx = 1"));
        assert!(err(heightfield_points(&h, 4, 4, 1.0, 1.0, 10, 0)).contains("12 heights for a 4 × 4 grid"));
        assert!(err(heightfield_points(&h, 4, 3, 0.0, 1.0, 10, 0)).contains("dx = 0"));
        assert!(err(heightfield_points(&h, 4, 3, 1.0, f64::NAN, 10, 0)).contains("dy = NaN"));
        assert!(err(heightfield_points(&h, 4, 3, 1.0, 1.0, 0, 0)).contains("count = 0"));
        let mut bad = h.clone();
        bad[7] = f64::NEG_INFINITY;
        assert!(err(heightfield_points(&bad, 4, 3, 1.0, 1.0, 10, 0)).contains("height 7 is not finite (-inf)"));
        let e = err(HeightField::new(&[], 70_000, 70_000, 1.0, 1.0).map(|_| PointCloud::default()));
        assert!(e.contains("0 heights"), "{e}");
    }
}

//! pyworldgen 0.1.8's point-cloud functions, reproduced: the same points, normals, FPS indices,
//! occupancy grids and text files for the same input and seed (issue 23).
//!
//! | pyworldgen | here | agreement |
//! |---|---|---|
//! | `pointcloud.sample_mesh_surface((verts, faces), count, seed=s)` | [`sample_mesh_surface`] | bitwise |
//! | `spatial.farthest_point_sampling(points, k, start_idx=i)` (numpy backend) | [`farthest_point_sampling`] | index for index |
//! | `pointcloud.points_to_occupancy(points, resolution=r, origin=o, pad=p)` | [`points_to_occupancy`] | same shape, origin bits and cells |
//! | `io.write_ply(path, cloud)`, `io.write_xyz(path, cloud)` | [`write_ply`], [`write_xyz`] (bytes, no file) | byte for byte |
//!
//! # `sample_mesh_surface`
//!
//! numpy's operations, in numpy's order, on `f64` vertices (pyworldgen casts its `f32` meshes
//! to `f64` first; pass them cast):
//!
//! 1. per face, `cross = (v1 − v0) × (v2 − v0)` (components `a₁b₂ − a₂b₁`, `a₂b₀ − a₀b₂`,
//!    `a₀b₁ − a₁b₀`) and `twice_area = √((c₀² + c₁²) + c₂²)` (`np.linalg.norm(…, axis=1)`
//!    reduces a row left to right);
//! 2. `total = twice_area.sum()`, numpy's pairwise summation ([`pairwise_sum`]);
//! 3. `rng = default_rng(seed)` ([`Generator`]); if `total ≤ 0` (every face degenerate) the
//!    points are `verts[rng.integers(0, len(verts), count)]` with zero normals;
//! 4. otherwise `tri = rng.choice(len(faces), count, p=twice_area / total)`, then
//!    `r1 = rng.random(count)`, `r2 = rng.random(count)` (all `count` triangle draws first,
//!    then all `r1`, then all `r2`);
//! 5. point `i` is `(1 − √r1)·v0 + (√r1·(1 − r2))·v1 + (√r1·r2)·v2`, summed left to right
//!    ([`crate::sample::warp_to_triangle`], the same formula as [`crate::sample_surface`]);
//! 6. its normal is `cross[tri] / |cross[tri]|`, with a length below `1e-12` replaced by 1.
//!
//! Every step is an IEEE-754 operation with one correctly rounded result (no fused
//! multiply-adds, no reassociation), the reductions are reproduced in numpy's order and the
//! draws bit for bit, so points and normals are **bitwise** equal to pyworldgen's, not merely
//! close; the goldens compare IEEE bits.
//!
//! # `farthest_point_sampling`
//!
//! pyworldgen's numpy backend keeps `dist2 = Σ (p − q)²` (left to right, the same `f64`
//! operations as [`crate::fps`]), and takes `argmax(dist2)`, the **first** index of the
//! largest value, over all points (picked points have `dist2 = 0`). While some point is at a
//! positive distance from every pick that is the classic greedy with ties to the lowest index,
//! which is [`crate::fps_exact`], so the picks come from it. Once every point coincides with a
//! pick (only duplicates remain), `argmax` of all zeros is index 0, and pyworldgen repeats 0 to
//! the end; so does this. Its other rules: no points or `k = 0` → no indices; `k ≥ n` →
//! `0, 1, …, n − 1` (no sampling, `start` unchecked); otherwise `start ≥ n` is refused.
//! pyworldgen also takes 2-D points and an `fpsample` backend; neither is reproduced.
//!
//! # `points_to_occupancy`
//!
//! `origin` is the given one or `min(points) − pad·resolution` per axis; a point goes to
//! `⌊(p − origin)/resolution⌋`; the shape is the largest cell + 1 + `pad` per axis. Cells are
//! stored in numpy's C order, `occ[i, j, k]` at `(i·ny + j)·nz + k` (x slowest). No points → a
//! 1 × 1 × 1 empty grid at origin 0, as pyworldgen. The cells come from
//! [`crate::voxelize_points`] (the same floor of the same quotient), re-laid out.
//!
//! # `write_ply`, `write_xyz`
//!
//! pyworldgen writes ASCII through `np.savetxt` with `%.6f` (Python's correctly rounded,
//! round-half-even fixed notation, which Rust's `{:.6}` also is), one space between columns,
//! `\n` line ends: PLY header lines `ply`, `format ascii 1.0`, `comment …`,
//! `element vertex N`, `property float x|y|z`, then `nx ny nz` for normals and `uchar red
//! green blue` for colours, `end_header`. Colours are clipped to `[0, 255]` and truncated
//! (`%d`). XYZ is the rows alone (with normals when given). NaN and ±∞ print as `nan`,
//! `inf`, `-inf`, as Python does.
//!
//! # Errors (where pyworldgen would raise, misbehave or allocate without bound)
//!
//! A face index past the vertices; a non-finite vertex, point or resolution; a resolution
//! `≤ 0`; `count` above [`MAX_SAMPLES`]; a total area that overflows; an explicit origin above
//! a point (numpy would wrap the negative index); grids past the caps of
//! [`crate::voxelize`]; ragged normal or colour arrays; NaN colours; a PLY comment with a line
//! break. Each error names the value.

use crate::cloud::PointCloud;
use crate::error::{check_finite_points, PointsError, Result};
use crate::fps::{check_fps, fps_with_gaps};
use crate::numpy_rng::{pairwise_sum, Generator};
use crate::sample::{cross_edges, warp_to_triangle, MAX_SAMPLES};
use crate::voxelize::{voxelize_points, MAX_AXIS, MAX_VOXELS};
use std::fmt::Write as _;

/// A cloud as pyworldgen returns it: `f64` points and `f64` normals, plus the face each point
/// was drawn on.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompatCloud {
    /// Points (`cloud.points`).
    pub points: Vec<[f64; 3]>,
    /// Normals (`cloud.normals`): unit face normals, or zeros for pyworldgen's degenerate-mesh
    /// fallback.
    pub normals: Vec<[f64; 3]>,
    /// Face of each point; empty for the degenerate-mesh fallback (points are vertices).
    pub faces: Vec<u32>,
}

impl CompatCloud {
    /// Number of points.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Whether there are no points.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// The same cloud as the crate's [`PointCloud`] (normals rounded to `f32`).
    pub fn to_point_cloud(&self) -> PointCloud {
        PointCloud {
            positions: self.points.clone(),
            normals: self.normals.iter().map(|n| n.map(|v| v as f32)).collect(),
            triangle: self.faces.clone(),
        }
    }
}

/// pyworldgen's `sample_mesh_surface((vertices, faces), count, seed=seed)`, bitwise (see the
/// module doc). `count = 0` or no faces give an empty cloud, as pyworldgen.
pub fn sample_mesh_surface(vertices: &[[f64; 3]], faces: &[[u32; 3]], count: usize, seed: u128) -> Result<CompatCloud> {
    const WHAT: &str = "compat::sample_mesh_surface";
    if count == 0 || faces.is_empty() {
        return Ok(CompatCloud::default());
    }
    if count > MAX_SAMPLES {
        return Err(PointsError::param(WHAT, "count", count as f64, format!("1..={MAX_SAMPLES}")));
    }
    for (t, f) in faces.iter().enumerate() {
        if let Some(k) = (0..3).find(|&k| f[k] as usize >= vertices.len()) {
            return Err(PointsError::IndexOutOfRange {
                what: WHAT,
                index: u64::from(f[k]),
                at: 3 * t + k,
                vertices: vertices.len(),
            });
        }
    }
    if let Some((index, &value)) =
        vertices.iter().flatten().enumerate().find(|(_, v)| !v.is_finite()).map(|(i, v)| (i / 3, v))
    {
        return Err(PointsError::NonFinite { what: WHAT, item: "vertex", index, value });
    }
    let corners = |f: &[u32; 3]| [0, 1, 2].map(|k| vertices[f[k] as usize]);
    let cross: Vec<[f64; 3]> = faces.iter().map(|f| cross_edges(&corners(f))).collect();
    let twice_area: Vec<f64> = cross.iter().map(|c| (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt()).collect();
    let total = pairwise_sum(&twice_area);
    let mut rng = Generator::default_rng(seed);
    if total <= 0.0 {
        let picks = rng.integers(0, vertices.len() as i64, count)?;
        return Ok(CompatCloud {
            points: picks.iter().map(|&v| vertices[v as usize]).collect(),
            normals: vec![[0.0; 3]; count],
            faces: Vec::new(),
        });
    }
    if !total.is_finite() {
        return Err(PointsError::param(WHAT, "total area", total / 2.0, "finite (coordinates too large)"));
    }
    let prob: Vec<f64> = twice_area.iter().map(|a| a / total).collect();
    let tri = rng.choice_p(&prob, count)?;
    let r1 = rng.random_vec(count);
    let mut points = Vec::with_capacity(count);
    let mut normals = Vec::with_capacity(count);
    for (&t, &u1) in tri.iter().zip(&r1) {
        let u2 = rng.random();
        points.push(warp_to_triangle(&corners(&faces[t]), u1, u2));
        let len = if twice_area[t] < 1e-12 { 1.0 } else { twice_area[t] };
        normals.push(cross[t].map(|v| v / len));
    }
    Ok(CompatCloud { points, normals, faces: tri.iter().map(|&t| t as u32).collect() })
}

/// pyworldgen's `farthest_point_sampling(points, n_samples, start_idx=start)` with its numpy
/// backend, index for index (see the module doc for its rules).
pub fn farthest_point_sampling(points: &[[f64; 3]], n_samples: usize, start: usize) -> Result<Vec<usize>> {
    const WHAT: &str = "compat::farthest_point_sampling";
    let n = points.len();
    if n == 0 || n_samples == 0 {
        return Ok(Vec::new());
    }
    if n_samples >= n {
        return Ok((0..n).collect());
    }
    check_fps(WHAT, points, n_samples, start)?;
    let (mut picks, gaps) = fps_with_gaps(points, n_samples, start);
    // Pick j + 1 won with gaps[j]; from the first that won with 0, numpy's argmax is index 0.
    if let Some(j) = gaps.iter().position(|&d| d == 0.0) {
        picks[j + 1..].fill(0);
    }
    Ok(picks)
}

/// pyworldgen's voxel grid: `occ` and `origin` of `points_to_occupancy`.
#[derive(Debug, Clone, PartialEq)]
pub struct CompatOccupancy {
    /// `occ.shape`: cells along x, y, z.
    pub shape: [usize; 3],
    /// Corner of cell `(0, 0, 0)`.
    pub origin: [f64; 3],
    /// Side of a cell.
    pub resolution: f64,
    /// 1 for an occupied cell, in C order: `occ[i, j, k]` at `(i·ny + j)·nz + k`.
    pub cells: Vec<u8>,
}

impl CompatOccupancy {
    /// Linear index of cell `(i, j, k)`.
    #[inline]
    pub fn index(&self, i: usize, j: usize, k: usize) -> usize {
        (i * self.shape[1] + j) * self.shape[2] + k
    }

    /// Whether cell `(i, j, k)` is occupied (`false` outside the grid).
    pub fn get(&self, i: usize, j: usize, k: usize) -> bool {
        i < self.shape[0] && j < self.shape[1] && k < self.shape[2] && self.cells[self.index(i, j, k)] != 0
    }

    /// Number of occupied cells.
    pub fn occupied(&self) -> usize {
        self.cells.iter().filter(|&&c| c != 0).count()
    }
}

/// pyworldgen's `points_to_occupancy(points, resolution=resolution, origin=origin, pad=pad)`
/// (see the module doc).
pub fn points_to_occupancy(
    points: &[[f64; 3]],
    resolution: f64,
    origin: Option<[f64; 3]>,
    pad: u32,
) -> Result<CompatOccupancy> {
    const WHAT: &str = "compat::points_to_occupancy";
    if points.is_empty() {
        return Ok(CompatOccupancy { shape: [1; 3], origin: [0.0; 3], resolution, cells: vec![0] });
    }
    check_finite_points(WHAT, points)?;
    if !(resolution.is_finite() && resolution > 0.0) {
        return Err(PointsError::param(WHAT, "resolution", resolution, "finite and > 0"));
    }
    let origin = origin.unwrap_or_else(|| {
        let shift = f64::from(pad) * resolution;
        let (lo, _) = crate::cloud::bounds(points);
        lo.map(|v| v - shift)
    });
    let grid = voxelize_points(points, resolution, Some(origin))?;
    let pad = pad as usize;
    let shape = grid.dims.map(|d| d + pad);
    let total = shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    if shape.iter().any(|&d| d > MAX_AXIS) || total.is_none_or(|t| t > MAX_VOXELS) {
        return Err(PointsError::param(
            WHAT,
            "pad",
            pad as f64,
            format!("the padded grid {shape:?} must stay within {MAX_AXIS} per axis and {MAX_VOXELS} cells"),
        ));
    }
    let [nx, _, nz] = grid.dims;
    let mut cells = vec![0u8; total.unwrap_or(0)];
    for (v, _) in grid.cells.iter().enumerate().filter(|(_, &c)| c != 0) {
        let (x, z, y) = (v % nx, (v / nx) % nz, v / (nx * nz));
        cells[(x * shape[1] + y) * shape[2] + z] = 1;
    }
    Ok(CompatOccupancy { shape, origin, resolution, cells })
}

/// The comment pyworldgen's `write_ply` writes by default.
pub const DEFAULT_PLY_COMMENT: &str = "pyworldgen point cloud";

/// Python's `'%.6f' % v`.
fn push_f6(out: &mut String, v: f64) {
    if v.is_nan() {
        out.push_str("nan");
    } else if v.is_infinite() {
        out.push_str(if v > 0.0 { "inf" } else { "-inf" });
    } else {
        let _ = write!(out, "{v:.6}");
    }
}

fn check_columns(what: &'static str, name: &'static str, n: usize, cols: Option<&[[f64; 3]]>) -> Result<()> {
    match cols {
        Some(c) if c.len() != n => {
            Err(PointsError::Shape { what, detail: format!("{n} points but {} {name}", c.len()) })
        }
        _ => Ok(()),
    }
}

/// One `savetxt` row: the columns of every present array, `%.6f` or (colours) `%d`.
fn push_row(out: &mut String, i: usize, cols: [Option<&[[f64; 3]]>; 2], colors: Option<&[[f64; 3]]>) {
    let mut first = true;
    let mut sep = |out: &mut String| {
        if !first {
            out.push(' ');
        }
        first = false;
    };
    for col in cols.into_iter().flatten() {
        for &v in &col[i] {
            sep(out);
            push_f6(out, v);
        }
    }
    if let Some(c) = colors {
        for &v in &c[i] {
            sep(out);
            // np.clip to [0, 255], then astype(int): truncation toward zero.
            let _ = write!(out, "{}", v.clamp(0.0, 255.0) as i64);
        }
    }
    out.push('\n');
}

/// The bytes pyworldgen's `write_ply(path, cloud, comment=comment)` writes, for `points` with
/// optional `normals` and `colors` (0–255 per channel; see the module doc).
pub fn write_ply(
    points: &[[f64; 3]],
    normals: Option<&[[f64; 3]]>,
    colors: Option<&[[f64; 3]]>,
    comment: &str,
) -> Result<Vec<u8>> {
    const WHAT: &str = "compat::write_ply";
    let n = points.len();
    check_columns(WHAT, "normals", n, normals)?;
    check_columns(WHAT, "colours", n, colors)?;
    if let Some((index, &value)) = colors.into_iter().flatten().flatten().enumerate().find(|(_, v)| v.is_nan()) {
        return Err(PointsError::NonFinite { what: WHAT, item: "colour channel", index, value });
    }
    if let Some(at) = comment.find(['\n', '\r']) {
        return Err(PointsError::Shape {
            what: WHAT,
            detail: format!("the comment holds a line break at byte {at}, which would end the header line"),
        });
    }
    let mut out = format!("ply\nformat ascii 1.0\ncomment {comment}\nelement vertex {n}\n");
    out.push_str("property float x\nproperty float y\nproperty float z\n");
    if normals.is_some() {
        out.push_str("property float nx\nproperty float ny\nproperty float nz\n");
    }
    if colors.is_some() {
        out.push_str("property uchar red\nproperty uchar green\nproperty uchar blue\n");
    }
    out.push_str("end_header\n");
    for i in 0..n {
        push_row(&mut out, i, [Some(points), normals], colors);
    }
    Ok(out.into_bytes())
}

/// The bytes pyworldgen's `write_xyz(path, cloud)` writes: `x y z` per line, then `nx ny nz`
/// when `normals` are given (pyworldgen's `with_normals=False` is `None` here).
pub fn write_xyz(points: &[[f64; 3]], normals: Option<&[[f64; 3]]>) -> Result<Vec<u8>> {
    check_columns("compat::write_xyz", "normals", points.len(), normals)?;
    let mut out = String::new();
    for i in 0..points.len() {
        push_row(&mut out, i, [Some(points), normals], None);
    }
    Ok(out.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fps_rules_at_the_edges() {
        let pts = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [5.0, 0.0, 0.0]];
        assert_eq!(farthest_point_sampling(&[], 3, 9).unwrap(), Vec::<usize>::new());
        assert_eq!(farthest_point_sampling(&pts, 0, 9).unwrap(), Vec::<usize>::new());
        // k ≥ n: all indices, the start not even checked.
        assert_eq!(farthest_point_sampling(&pts, 5, 99).unwrap(), vec![0, 1, 2, 3, 4]);
        assert!(farthest_point_sampling(&pts, 4, 5).unwrap_err().to_string().contains("start = 5"));
        // Start 1: 4 (d 16), then 0 (d 1 beats 2 by index), then only duplicates: argmax → 0.
        assert_eq!(farthest_point_sampling(&pts, 4, 1).unwrap(), vec![1, 4, 0, 0]);
        // The brute-force numpy rule, transcribed: argmax over all points, first of the largest.
        let brute = |start: usize, k: usize| {
            let d2 = |a: &[f64; 3], b: &[f64; 3]| {
                (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2])
            };
            let mut d: Vec<f64> = pts.iter().map(|p| d2(p, &pts[start])).collect();
            let mut out = vec![start];
            while out.len() < k {
                let mut best = 0;
                for i in 0..d.len() {
                    if d[i] > d[best] {
                        best = i;
                    }
                }
                out.push(best);
                for i in 0..d.len() {
                    d[i] = d[i].min(d2(&pts[i], &pts[best]));
                }
            }
            out
        };
        for start in 0..5 {
            assert_eq!(farthest_point_sampling(&pts, 4, start).unwrap(), brute(start, 4), "start {start}");
        }
    }

    #[test]
    fn occupancy_layout_pad_and_empty() {
        let pts = [[0.0, 0.0, 0.0], [1.5, 2.5, 0.2]];
        let g = points_to_occupancy(&pts, 1.0, None, 0).unwrap();
        assert_eq!((g.shape, g.origin, g.occupied()), ([2, 3, 1], [0.0; 3], 2));
        assert!(g.get(0, 0, 0) && g.get(1, 2, 0));
        assert_eq!(g.index(1, 2, 0), 5);
        let p = points_to_occupancy(&pts, 1.0, None, 2).unwrap();
        assert_eq!((p.shape, p.origin), ([6, 7, 5], [-2.0; 3]));
        assert!(p.get(2, 2, 2) && p.get(3, 4, 2) && p.occupied() == 2);
        // An explicit origin is kept; pad then only grows the shape.
        let o = points_to_occupancy(&pts, 0.5, Some([-1.0, 0.0, 0.0]), 1).unwrap();
        assert_eq!((o.shape, o.origin), ([7, 7, 2], [-1.0, 0.0, 0.0]));
        assert!(o.get(2, 0, 0) && o.get(5, 5, 0));
        let e = points_to_occupancy(&[], 1.0, None, 3).unwrap();
        assert_eq!((e.shape, e.origin, e.occupied()), ([1; 3], [0.0; 3], 0));
        let err = points_to_occupancy(&pts, 0.0, None, 0).unwrap_err().to_string();
        assert!(err.contains("resolution = 0"), "{err}");
        let err = points_to_occupancy(&pts, 1.0, Some([0.5, 0.0, 0.0]), 0).unwrap_err().to_string();
        assert!(err.contains("point 0 lies below the origin 0.5"), "{err}");
        let err = points_to_occupancy(&pts, 1.0, Some([0.0; 3]), 20_000).unwrap_err().to_string();
        assert!(err.contains("pad = 20000"), "{err}");
    }

    #[test]
    fn sampling_edge_cases() {
        let v = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [2.0, 2.0, 2.0]];
        assert!(sample_mesh_surface(&v, &[[0, 1, 2]], 0, 1).unwrap().is_empty());
        assert!(sample_mesh_surface(&v, &[], 10, 1).unwrap().is_empty());
        let e = sample_mesh_surface(&v, &[[0, 1, 4]], 10, 1).unwrap_err().to_string();
        assert!(e.contains("index 4 (entry 2"), "{e}");
        let mut bad = v;
        bad[3][1] = f64::NAN;
        let e = sample_mesh_surface(&bad, &[[0, 1, 2]], 10, 1).unwrap_err().to_string();
        assert!(e.contains("vertex 3 is not finite"), "{e}");
        // All faces degenerate: vertices with zero normals, drawn by integers(0, 4).
        let flat = sample_mesh_surface(&v, &[[0, 0, 1], [3, 3, 3]], 50, 9).unwrap();
        assert!(flat.faces.is_empty() && flat.normals.iter().all(|n| *n == [0.0; 3]));
        assert!(flat.points.iter().all(|p| v.contains(p)));
        let c = sample_mesh_surface(&v, &[[0, 1, 2], [0, 1, 1]], 200, 2).unwrap();
        assert!(c.faces.iter().all(|&f| f == 0), "a zero-area face was drawn");
        assert!(c.normals.iter().all(|n| *n == [0.0, 0.0, 1.0]));
        assert!(c.points.iter().all(|p| p[2] == 0.0 && p[0] >= 0.0 && p[1] >= 0.0 && p[0] + p[1] <= 1.0));
        c.to_point_cloud().validate().unwrap();
    }

    #[test]
    fn text_formats() {
        let pts = [[0.0078125, -0.0, 1e-9], [-1e-9, 2.5, 123456789.0000005]];
        let nrm = [[0.0, 0.0, 1.0], [f64::NAN, f64::INFINITY, f64::NEG_INFINITY]];
        let xyz = String::from_utf8(write_xyz(&pts, Some(&nrm)).unwrap()).unwrap();
        assert_eq!(
            xyz,
            "0.007812 -0.000000 0.000000 0.000000 0.000000 1.000000\n\
             -0.000000 2.500000 123456789.000001 nan inf -inf\n"
        );
        let col = [[-3.0, 12.9, 300.0], [255.0, 0.5, f64::INFINITY]];
        let ply = String::from_utf8(write_ply(&pts, None, Some(&col), "c").unwrap()).unwrap();
        assert!(ply.starts_with("ply\nformat ascii 1.0\ncomment c\nelement vertex 2\nproperty float x\n"));
        assert!(ply.ends_with(
            "end_header\n0.007812 -0.000000 0.000000 0 12 255\n-0.000000 2.500000 123456789.000001 255 0 255\n"
        ));
        assert!(write_ply(&pts, Some(&nrm[..1]), None, "c")
            .unwrap_err()
            .to_string()
            .contains("2 points but 1 normals"));
        assert!(write_ply(&pts, None, None, "a\nb").is_err());
        let nan_col = [[f64::NAN, 0.0, 0.0]; 2];
        assert!(write_ply(&pts, None, Some(&nan_col), "c").unwrap_err().to_string().contains("colour channel 0"));
        assert_eq!(write_xyz(&[], None).unwrap(), b"");
    }
}

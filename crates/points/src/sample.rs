//! Area-weighted random sampling of a triangle surface: points spread uniformly over the area,
//! whatever the tessellation, each with its triangle's geometric normal.
//!
//! # Algorithm
//!
//! 1. **Areas.** Triangle `t` with corners `a b c` (in `f64`) has area `½·|(b − a) × (c − a)|`.
//!    The running sum `S_t = Σ_{j ≤ t} area_j` is taken in triangle order, one `f64` addition
//!    at a time; only every [`BLOCK`]-th value is stored (plus the last), so the table and its
//!    guide cost 1.5 bytes per triangle instead of eight (a 4096² height field has 33 M
//!    triangles). Areas are
//!    computed in parallel, the sum sequentially, so the table is the same on any thread count.
//! 2. **Triangle.** Sample `i` draws `u₀` and takes `τ = u₀·S_last` (capped just below
//!    `S_last`); its triangle is the first `t` with `S_t > τ`: the first block whose stored end
//!    exceeds `τ` (found from a guide table — Chen and Asau, "On generating random variates
//!    from an empirical distribution", AIIE Trans. 1974 — that gives the first candidate block
//!    of each of as many equal slices of `[0, S_last)` as there are blocks, then a short walk),
//!    then a replay of the running sum inside the block (the same additions in the same order,
//!    so the same bits as a full prefix table and a binary search). A triangle is chosen with
//!    probability `area_t / S_last`, and a zero-area triangle never (its `S_t` equals the one
//!    before it).
//! 3. **Point.** With `u₁, u₂` and `s = √u₁`, the point is `(1 − s)·a + s(1 − u₂)·b + s·u₂·c`
//!    (Osada, Funkhouser, Chazelle and Dobkin, "Shape distributions", ACM TOG 2002):
//!    uniform over the triangle, barycentric weights all in `[0, 1]`.
//! 4. **Normal.** `normalize((b − a) × (c − a))` as `f32`.
//!
//! # Randomness and determinism
//!
//! [`bozkir_core::rng::Rng`] is counter based, so sample `i` reads draws `6i … 6i + 5` of
//! stream `seed >> 32` under seed `seed & 0xFFFF_FFFF`: `u₀`, `u₁`, `u₂` are three
//! [`Rng::next_f64`](bozkir_core::rng::Rng::next_f64) (two 32-bit draws each). Samples are
//! computed in parallel, each from its own draws, so the cloud is bit for bit the same on any
//! number of threads, and sample `i` does not depend on `count` (a larger count extends a
//! smaller one). For speed, batches of 2²² samples are resolved in the order of their `u₀`
//! (so the tables and the surface are swept, not read at random; 5–7× faster on large height
//! fields) and written back to their places; that order does not change any value.
//!
//! # Surfaces
//!
//! Anything implementing [`Surface`]: a [`bozkir_mesh::Mesh`] (its `positions` and `indices`),
//! a triangle soup `[[[f64; 3]; 3]]` or `[[[f32; 3]; 3]]` (slice or `Vec`), an
//! [`IndexedTriangles`] view, or a height field ([`crate::heightfield::HeightField`]).
//!
//! # Errors
//!
//! `count` 0 or above [`MAX_SAMPLES`]; a surface with no triangles; more than `u32::MAX`
//! triangles; an index list that is not whole triangles or points past the vertices; a
//! non-finite coordinate (named by vertex or corner index and value); a surface whose total
//! area is zero (every triangle degenerate) or overflows to infinity.

use crate::cloud::PointCloud;
use crate::error::{PointsError, Result};
use bozkir_core::rng::Rng;
use bozkir_mesh::Mesh;
use rayon::prelude::*;

/// Most points one call may draw (2²⁸ ≈ 268 M): 6 draws per sample stay inside the 32-bit
/// counter of one [`Rng`] stream, and the cloud stays below 10 GiB.
pub const MAX_SAMPLES: usize = 1 << 28;

/// Triangles per stored running-sum value (see the module doc).
pub const BLOCK: usize = 8;

/// 32-bit draws per sample.
const DRAWS: u32 = 6;

/// Samples sorted by `u₀` at a time (see [`sample_surface`]).
const SORT_BATCH: usize = 1 << 22;

/// Triangles whose areas are computed per parallel batch while building the table.
const AREA_BATCH: usize = 1 << 16;

/// A surface made of triangles, read by index.
///
/// [`Surface::check`] is called once before anything else and must refuse every input on which
/// [`Surface::corners`] could panic or return a non-finite coordinate.
pub trait Surface: Sync {
    /// Number of triangles.
    fn triangle_count(&self) -> usize;
    /// Corners of triangle `t < triangle_count()`, in winding order.
    fn corners(&self, t: usize) -> [[f64; 3]; 3];
    /// Refuses malformed input (ragged arrays, indices out of range, non-finite coordinates).
    fn check(&self) -> Result<()>;
    /// Areas of triangles `t0 .. t0 + out.len()` into `out`. The default computes
    /// [`triangle_area`] of [`Surface::corners`]; an override (a height field walking its
    /// cells) must give the same bits.
    fn areas(&self, t0: usize, out: &mut [f64]) {
        for (j, a) in out.iter_mut().enumerate() {
            *a = triangle_area(&self.corners(t0 + j));
        }
    }
}

/// An indexed triangle list over `f64` vertices: triangle `t` is
/// `positions[indices[3t]], positions[indices[3t + 1]], positions[indices[3t + 2]]`.
#[derive(Debug, Clone, Copy)]
pub struct IndexedTriangles<'a> {
    /// Vertex positions.
    pub positions: &'a [[f64; 3]],
    /// Three indices per triangle.
    pub indices: &'a [u32],
}

fn check_indices(what: &'static str, indices: &[u32], vertices: usize) -> Result<()> {
    if !indices.len().is_multiple_of(3) {
        return Err(PointsError::Shape {
            what,
            detail: format!("the index list holds {} entries, not a multiple of 3", indices.len()),
        });
    }
    if let Some((at, &index)) = indices.iter().enumerate().find(|(_, &i)| i as usize >= vertices) {
        return Err(PointsError::IndexOutOfRange { what, index: u64::from(index), at, vertices });
    }
    Ok(())
}

fn check_vertices<T: Copy + Into<f64>>(what: &'static str, item: &'static str, v: &[[T; 3]]) -> Result<()> {
    for (index, p) in v.iter().enumerate() {
        if let Some(&c) = p.iter().find(|&&c| !c.into().is_finite()) {
            return Err(PointsError::NonFinite { what, item, index, value: c.into() });
        }
    }
    Ok(())
}

impl Surface for Mesh {
    fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }
    fn corners(&self, t: usize) -> [[f64; 3]; 3] {
        let i = &self.indices[3 * t..3 * t + 3];
        [0, 1, 2].map(|k| self.positions[i[k] as usize].map(f64::from))
    }
    fn check(&self) -> Result<()> {
        check_indices("sample_surface (Mesh)", &self.indices, self.positions.len())?;
        check_vertices("sample_surface (Mesh)", "vertex", &self.positions)
    }
}

impl Surface for IndexedTriangles<'_> {
    fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }
    fn corners(&self, t: usize) -> [[f64; 3]; 3] {
        let i = &self.indices[3 * t..3 * t + 3];
        [0, 1, 2].map(|k| self.positions[i[k] as usize])
    }
    fn check(&self) -> Result<()> {
        check_indices("sample_surface (IndexedTriangles)", self.indices, self.positions.len())?;
        check_vertices("sample_surface (IndexedTriangles)", "vertex", self.positions)
    }
}

impl Surface for [[[f64; 3]; 3]] {
    fn triangle_count(&self) -> usize {
        self.len()
    }
    fn corners(&self, t: usize) -> [[f64; 3]; 3] {
        self[t]
    }
    fn check(&self) -> Result<()> {
        check_vertices("sample_surface (triangles)", "corner", self.as_flattened())
    }
}

impl Surface for [[[f32; 3]; 3]] {
    fn triangle_count(&self) -> usize {
        self.len()
    }
    fn corners(&self, t: usize) -> [[f64; 3]; 3] {
        self[t].map(|c| c.map(f64::from))
    }
    fn check(&self) -> Result<()> {
        check_vertices("sample_surface (triangles)", "corner", self.as_flattened())
    }
}

impl<T: Surface + ?Sized> Surface for &T {
    fn triangle_count(&self) -> usize {
        (**self).triangle_count()
    }
    fn corners(&self, t: usize) -> [[f64; 3]; 3] {
        (**self).corners(t)
    }
    fn check(&self) -> Result<()> {
        (**self).check()
    }
    fn areas(&self, t0: usize, out: &mut [f64]) {
        (**self).areas(t0, out)
    }
}

impl<T> Surface for Vec<T>
where
    [T]: Surface,
    T: Sync,
{
    fn triangle_count(&self) -> usize {
        self.as_slice().triangle_count()
    }
    fn corners(&self, t: usize) -> [[f64; 3]; 3] {
        self.as_slice().corners(t)
    }
    fn check(&self) -> Result<()> {
        self.as_slice().check()
    }
    fn areas(&self, t0: usize, out: &mut [f64]) {
        self.as_slice().areas(t0, out)
    }
}

/// `(b − a) × (c − a)`.
#[inline]
pub(crate) fn cross_edges(c: &[[f64; 3]; 3]) -> [f64; 3] {
    let u = [c[1][0] - c[0][0], c[1][1] - c[0][1], c[1][2] - c[0][2]];
    let v = [c[2][0] - c[0][0], c[2][1] - c[0][1], c[2][2] - c[0][2]];
    [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
}

/// Area of the triangle with corners `c`: `½·|(b − a) × (c − a)|`.
#[inline]
pub fn triangle_area(c: &[[f64; 3]; 3]) -> f64 {
    let n = cross_edges(c);
    0.5 * (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt()
}

/// The running-sum table of step 1 (see the module doc).
struct AreaTable {
    /// Running sum after each block of [`BLOCK`] triangles (the last block may be shorter).
    block_end: Vec<f64>,
    /// Guide table: `guide[j]` is the first block whose end exceeds `j·total/G` (`G` = its
    /// length, the number of blocks), where the search for `τ` in bucket `⌊τ·G/total⌋` starts.
    guide: Vec<u32>,
    total: f64,
    n: usize,
}

impl AreaTable {
    fn build<S: Surface + ?Sized>(s: &S) -> AreaTable {
        let n = s.triangle_count();
        let mut block_end = Vec::with_capacity(n.div_ceil(BLOCK));
        let mut buf = vec![0.0f64; AREA_BATCH.min(n)];
        let mut run = 0.0f64;
        for c0 in (0..n).step_by(AREA_BATCH) {
            let len = AREA_BATCH.min(n - c0);
            buf[..len].par_chunks_mut(1024).enumerate().for_each(|(j, a)| s.areas(c0 + 1024 * j, a));
            for (j, &a) in buf[..len].iter().enumerate() {
                run += a;
                let t = c0 + j + 1;
                if t.is_multiple_of(BLOCK) || t == n {
                    block_end.push(run);
                }
            }
        }
        let g = block_end.len();
        let step = run / g as f64;
        let mut guide = Vec::with_capacity(g);
        let mut b = 0usize;
        for j in 0..g {
            let threshold = j as f64 * step;
            while b + 1 < g && block_end[b] <= threshold {
                b += 1;
            }
            guide.push(b as u32);
        }
        AreaTable { block_end, guide, total: run, n }
    }

    /// The first triangle whose running sum exceeds `tau` (`0 ≤ tau < total`).
    fn pick<S: Surface + ?Sized>(&self, s: &S, tau: f64) -> usize {
        // The first block whose end exceeds τ: start at the guide entry of τ's bucket and walk
        // (any rounding in the bucket is corrected by the walk; O(1) blocks on average).
        let g = self.guide.len();
        let j = ((tau / self.total * g as f64) as usize).min(g - 1);
        let mut b = self.guide[j] as usize;
        while b > 0 && self.block_end[b - 1] > tau {
            b -= 1;
        }
        while b + 1 < g && self.block_end[b] <= tau {
            b += 1;
        }
        let mut run = if b == 0 { 0.0 } else { self.block_end[b - 1] };
        let (lo, hi) = (b * BLOCK, ((b + 1) * BLOCK).min(self.n));
        // Areas two at a time (a height-field cell), stopping at the hit.
        let mut areas = [0.0f64; 2];
        let mut last_positive = lo;
        for t0 in (lo..hi).step_by(2) {
            let m = 2.min(hi - t0);
            s.areas(t0, &mut areas[..m]);
            for (t, &a) in (t0..t0 + m).zip(&areas) {
                run += a;
                if a > 0.0 {
                    last_positive = t;
                }
                if run > tau {
                    return t;
                }
            }
        }
        // Not reached: the replay repeats the additions that made `block_end[b] > tau`.
        last_positive
    }
}

/// The generator of sample `i` under `seed` (see the module doc).
#[inline]
pub(crate) fn sample_rng(seed: u64, i: usize, draws: u32) -> Rng {
    let mut r = Rng::with_stream(seed as u32, (seed >> 32) as u32);
    r.set_counter((i as u32).wrapping_mul(draws));
    r
}

/// The point with uniform variates `u1, u2` on the triangle `c` (step 3 of the module doc).
#[inline]
pub fn warp_to_triangle(c: &[[f64; 3]; 3], u1: f64, u2: f64) -> [f64; 3] {
    let s = u1.sqrt();
    let (w0, w1, w2) = (1.0 - s, s * (1.0 - u2), s * u2);
    [0, 1, 2].map(|k| w0 * c[0][k] + w1 * c[1][k] + w2 * c[2][k])
}

/// The unit geometric normal of `c` as `f32` (zero for a degenerate triangle).
#[inline]
pub fn triangle_normal(c: &[[f64; 3]; 3]) -> [f32; 3] {
    let n = cross_edges(c);
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    if len > 0.0 {
        n.map(|v| (v / len) as f32)
    } else {
        [0.0; 3]
    }
}

pub(crate) fn check_count(what: &'static str, count: usize) -> Result<()> {
    if count == 0 || count > MAX_SAMPLES {
        return Err(PointsError::param(what, "count", count as f64, format!("1..={MAX_SAMPLES}")));
    }
    Ok(())
}

/// `count` points drawn uniformly by area over `surface`, deterministic in `seed` (see the
/// module doc for the algorithm, the draws and the errors).
pub fn sample_surface<S: Surface + ?Sized>(surface: &S, count: usize, seed: u64) -> Result<PointCloud> {
    sample_impl("sample_surface", surface, count, seed)
}

pub(crate) fn sample_impl<S: Surface + ?Sized>(
    what: &'static str,
    surface: &S,
    count: usize,
    seed: u64,
) -> Result<PointCloud> {
    check_count(what, count)?;
    surface.check()?;
    let n = surface.triangle_count();
    if n == 0 {
        return Err(PointsError::Empty { what, detail: "no triangles" });
    }
    if n > u32::MAX as usize {
        return Err(PointsError::param(what, "triangles", n as f64, format!("at most {}", u32::MAX)));
    }
    let table = AreaTable::build(surface);
    if table.total == 0.0 {
        return Err(PointsError::AllDegenerate { what, triangles: n, total_area: table.total });
    }
    if !table.total.is_finite() {
        return Err(PointsError::param(what, "total area", table.total, "finite (coordinates too large)"));
    }
    let below_total = table.total.next_down();
    let sample = |i: usize| {
        let mut r = sample_rng(seed, i, DRAWS);
        let u0 = r.next_f64();
        let u1 = r.next_f64();
        let u2 = r.next_f64();
        let t = table.pick(surface, (u0 * table.total).min(below_total));
        let corners = surface.corners(t);
        (warp_to_triangle(&corners, u1, u2), triangle_normal(&corners), t as u32)
    };
    let mut positions = vec![[0.0f64; 3]; count];
    let mut normals = vec![[0.0f32; 3]; count];
    let mut triangle = vec![0u32; count];
    // Samples are resolved in the order of their `u₀` (a batch at a time), so that the table
    // and the surface are read as a sweep instead of at random; each sample still comes from
    // its own draws, so the order changes nothing in the result.
    let mut keys: Vec<u64> = Vec::with_capacity(SORT_BATCH.min(count));
    let mut done = Vec::with_capacity(SORT_BATCH.min(count));
    for b0 in (0..count).step_by(SORT_BATCH) {
        let b1 = (b0 + SORT_BATCH).min(count);
        keys.clear();
        keys.par_extend((b0..b1).into_par_iter().map(|i| {
            let u0 = sample_rng(seed, i, DRAWS).next_f64();
            (((u0 * 4_294_967_296.0) as u64) << 32) | (i - b0) as u64
        }));
        keys.par_sort_unstable();
        keys.par_iter().map(|&k| sample(b0 + (k & 0xFFFF_FFFF) as usize)).collect_into_vec(&mut done);
        for (&k, &(p, n, t)) in keys.iter().zip(&done) {
            let i = b0 + (k & 0xFFFF_FFFF) as usize;
            positions[i] = p;
            normals[i] = n;
            triangle[i] = t;
        }
    }
    Ok(PointCloud { positions, normals, triangle })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Barycentric coordinates of `p` in `c` (least squares in the triangle's plane) and the
    /// distance of `p` from that plane.
    fn barycentric(c: &[[f64; 3]; 3], p: [f64; 3]) -> ([f64; 3], f64) {
        let sub = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
        let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
        let (e1, e2, d) = (sub(c[1], c[0]), sub(c[2], c[0]), sub(p, c[0]));
        let (a11, a12, a22) = (dot(e1, e1), dot(e1, e2), dot(e2, e2));
        let (b1, b2) = (dot(d, e1), dot(d, e2));
        let det = a11 * a22 - a12 * a12;
        let v = (a22 * b1 - a12 * b2) / det;
        let w = (a11 * b2 - a12 * b1) / det;
        let proj = [0, 1, 2].map(|k| c[0][k] + v * e1[k] + w * e2[k]);
        let off = sub(p, proj);
        ([1.0 - v - w, v, w], dot(off, off).sqrt())
    }

    /// A soup of very unequal triangles in assorted orientations (areas from 1e-3 to 50),
    /// with two degenerate ones (a repeated corner, collinear corners).
    fn unequal_soup() -> Vec<[[f64; 3]; 3]> {
        vec![
            [[0.0, 0.0, 0.0], [10.0, 0.0, 0.0], [0.0, 10.0, 0.0]],  // 50
            [[1.0, 1.0, 1.0], [1.1, 1.0, 1.0], [1.0, 1.02, 1.0]],   // 0.001
            [[0.0, 0.0, 5.0], [0.0, 3.0, 5.0], [0.0, 0.0, 9.0]],    // 6
            [[2.0, 2.0, 2.0], [2.0, 2.0, 2.0], [3.0, 4.0, 5.0]],    // 0 (repeated corner)
            [[-1.0, 0.0, 0.0], [1.0, 2.0, 0.5], [-2.0, 1.0, 3.0]],  // ≈ 4.5
            [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [3.0, 3.0, 3.0]],    // 0 (collinear)
            [[5.0, 5.0, 5.0], [5.5, 5.0, 5.0], [5.0, 5.0, 5.2]],    // 0.05
            [[0.0, -4.0, 0.0], [2.0, -4.0, 0.0], [0.0, -4.0, 1.0]], // 1
            [[0.0, 0.0, 0.0], [0.0, 20.0, 0.0], [0.0, 0.0, 2.0]],   // 20
        ]
    }

    #[test]
    fn points_lie_on_their_triangles() {
        let soup = unequal_soup();
        let cloud = sample_surface(&soup, 20_000, 7).unwrap();
        assert_eq!(cloud.len(), 20_000);
        for i in 0..cloud.len() {
            let c = &soup[cloud.triangle[i] as usize];
            let (b, dist) = barycentric(c, cloud.positions[i]);
            assert!(dist < 1e-6, "point {i} is {dist} off its triangle");
            assert!(b.iter().all(|w| (-1e-9..=1.0 + 1e-9).contains(w)), "point {i} barycentric {b:?}");
            let n = triangle_normal(c);
            assert_eq!(cloud.normals[i], n);
            let len: f32 = n.iter().map(|v| v * v).sum::<f32>().sqrt();
            assert!((len - 1.0).abs() < 1e-6);
        }
        assert!(cloud.triangle.iter().all(|&t| t != 3 && t != 5), "a degenerate triangle got a point");
        // The normal of the first triangle is +z (counter-clockwise seen from +z).
        let i = cloud.triangle.iter().position(|&t| t == 0).unwrap();
        assert_eq!(cloud.normals[i], [0.0, 0.0, 1.0]);
    }

    /// χ² of the per-triangle counts against `count · area / total` over the triangles with
    /// positive area; degrees of freedom = that number − 1.
    fn chi_square(soup: &[[[f64; 3]; 3]], tri: &[u32]) -> (f64, usize, usize) {
        let areas: Vec<f64> = soup.iter().map(triangle_area).collect();
        let total: f64 = areas.iter().sum();
        let mut counts = vec![0usize; soup.len()];
        for &t in tri {
            counts[t as usize] += 1;
        }
        let mut chi2 = 0.0;
        let mut k = 0;
        for (c, a) in counts.iter().zip(&areas) {
            if *a > 0.0 {
                let e = tri.len() as f64 * a / total;
                chi2 += (*c as f64 - e).powi(2) / e;
                k += 1;
            }
        }
        (chi2, k - 1, counts[3] + counts[5])
    }

    #[test]
    fn counts_per_triangle_follow_area() {
        // 7 triangles with positive area → 6 degrees of freedom; 22.46 is the 0.999 quantile of
        // χ²(6). At the fixed seeds below the statistic is deterministic; a sampler that ignored
        // area (uniform over triangles) scores in the millions, one weighting by sqrt(area) in
        // the thousands.
        let soup = unequal_soup();
        for seed in [1u64, 2, 0xDEAD_BEEF_0000_0001] {
            let cloud = sample_surface(&soup, 200_000, seed).unwrap();
            let (chi2, dof, degenerate) = chi_square(&soup, &cloud.triangle);
            assert_eq!(dof, 6);
            assert_eq!(degenerate, 0);
            assert!(chi2 < 22.46, "seed {seed}: chi2 {chi2}");
        }
        // The same test does fail on a sample that is not area weighted.
        let uniform: Vec<u32> = (0..70_000u32).map(|i| [0, 1, 2, 4, 6, 7, 8][(i % 7) as usize]).collect();
        assert!(chi_square(&soup, &uniform).0 > 1e4);
    }

    #[test]
    fn uniform_within_a_triangle() {
        // Split the unit right triangle into 4 congruent sub-triangles by its edge midpoints:
        // each must get a quarter of the points (χ²(3) 0.999 quantile 16.27).
        let c = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let cloud = sample_surface(&vec![c], 100_000, 99).unwrap();
        let mut counts = [0f64; 4];
        for p in &cloud.positions {
            let (x, y) = (p[0], p[1]);
            let k = if x >= 0.5 {
                0
            } else if y >= 0.5 {
                1
            } else if x + y <= 0.5 {
                2
            } else {
                3
            };
            counts[k] += 1.0;
        }
        let e = 25_000.0;
        let chi2: f64 = counts.iter().map(|c| (c - e).powi(2) / e).sum();
        assert!(chi2 < 16.27, "chi2 {chi2} counts {counts:?}");
    }

    #[test]
    fn mesh_soup_and_indexed_agree_and_prefix_extends() {
        let mut m = Mesh::new();
        m.push_quad([[0., 0., 0.], [1., 0., 0.], [1., 1., 0.], [0., 1., 0.]], [0., 0., 1.], 1, None);
        m.push_quad([[0., 0., 0.], [0., 0., 3.], [0., 1., 3.], [0., 1., 0.]], [1., 0., 0.], 1, None);
        let pos64: Vec<[f64; 3]> = m.positions.iter().map(|p| p.map(f64::from)).collect();
        let soup: Vec<[[f64; 3]; 3]> =
            m.indices.chunks_exact(3).map(|t| [0, 1, 2].map(|k| pos64[t[k] as usize])).collect();
        let a = sample_surface(&m, 5000, 3).unwrap();
        let b = sample_surface(&soup, 5000, 3).unwrap();
        let c = sample_surface(&IndexedTriangles { positions: &pos64, indices: &m.indices }, 5000, 3).unwrap();
        assert_eq!(a, b);
        assert_eq!(a, c);
        let short = sample_surface(&m, 1234, 3).unwrap();
        assert_eq!(short.positions[..], a.positions[..1234]);
        let other = sample_surface(&m, 5000, 4).unwrap();
        assert_ne!(other.positions, a.positions);
    }

    #[test]
    fn same_bits_on_one_and_two_threads() {
        // Enough triangles (> one area batch) and samples (many chunks) to split work.
        let soup: Vec<[[f64; 3]; 3]> = (0..70_000)
            .map(|i| {
                let x = (i % 300) as f64;
                let y = (i / 300) as f64;
                let h = ((i * 7919) % 13) as f64 * 0.1;
                [[x, y, h], [x + 1.0, y, 0.0], [x, y + 1.0 + h, 0.5]]
            })
            .collect();
        let run = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| sample_surface(&soup, 50_000, 11).unwrap())
        };
        let (one, two) = (run(1), run(2));
        let bits = |c: &PointCloud| c.positions.iter().flat_map(|p| p.map(f64::to_bits)).collect::<Vec<_>>();
        assert_eq!(bits(&one), bits(&two));
        assert_eq!(one, two);
    }

    #[test]
    fn pick_matches_a_full_prefix_table() {
        // The blocked table with its guide and replay picks exactly what a full running-sum
        // table and a binary search pick: on the unequal soup repeated, and on a soup whose
        // guide buckets span hundreds of blocks (tiny triangles, runs of degenerate ones, one
        // huge triangle).
        let soup = unequal_soup();
        let many: Vec<[[f64; 3]; 3]> = (0..37).flat_map(|_| soup.iter().copied()).collect();
        let tiny = [[0.0, 0.0, 0.0], [1e-4, 0.0, 0.0], [0.0, 1e-5, 0.0]];
        let flat = [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [2.0, 2.0, 2.0]];
        let huge = [[0.0, 0.0, 0.0], [1e3, 0.0, 0.0], [0.0, 1e3, 0.0]];
        let mut skewed = vec![tiny; 3000];
        skewed.extend([flat; 500]);
        skewed.push(huge);
        skewed.extend([tiny; 77]);
        skewed.extend([flat; 9]);
        skewed.push(soup[0]);
        skewed.extend([flat; 20]);
        for tris in [many, skewed] {
            let table = AreaTable::build(&tris);
            let mut full = Vec::new();
            let mut run = 0.0;
            for c in &tris {
                run += triangle_area(c);
                full.push(run);
            }
            assert_eq!(table.total.to_bits(), run.to_bits());
            let mut r = Rng::new(5);
            let mut taus: Vec<f64> = (0..20_000).map(|_| (r.next_f64() * run).min(run.next_down())).collect();
            // The ends, and every stored block end and its neighbours.
            taus.extend([0.0, run.next_down()]);
            for &c in &table.block_end {
                taus.extend([c.next_down(), c, c.next_up()].into_iter().filter(|&t| t >= 0.0 && t < run));
            }
            for tau in taus {
                let want = full.partition_point(|&c| c <= tau);
                assert_eq!(table.pick(&tris, tau), want, "tau {tau}");
            }
        }
    }

    #[test]
    fn bad_input_is_refused_with_the_value() {
        let soup = unequal_soup();
        let e = sample_surface(&soup, 0, 1).unwrap_err().to_string();
        assert!(e.contains("count = 0"), "{e}");
        let e = sample_surface(&soup, MAX_SAMPLES + 1, 1).unwrap_err().to_string();
        assert!(e.contains(&format!("count = {}", MAX_SAMPLES + 1)), "{e}");
        let empty: Vec<[[f64; 3]; 3]> = Vec::new();
        assert!(matches!(sample_surface(&empty, 10, 1), Err(PointsError::Empty { .. })));
        assert!(matches!(sample_surface(&Mesh::new(), 10, 1), Err(PointsError::Empty { .. })));
        let flat = vec![[[0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]; 4];
        let e = sample_surface(&flat, 10, 1).unwrap_err();
        assert!(matches!(e, PointsError::AllDegenerate { triangles: 4, .. }), "{e}");
        let mut nan = soup.clone();
        nan[4][2][1] = f64::NAN;
        let e = sample_surface(&nan, 10, 1).unwrap_err().to_string();
        assert!(e.contains("corner 14 is not finite (NaN)"), "{e}");
        let mut m = Mesh::new();
        m.push_quad([[0., 0., 0.], [1., 0., 0.], [1., 1., 0.], [0., 1., 0.]], [0., 0., 1.], 1, None);
        m.positions[2][0] = f32::INFINITY;
        let e = sample_surface(&m, 10, 1).unwrap_err().to_string();
        assert!(e.contains("vertex 2 is not finite (inf)"), "{e}");
        m.positions[2][0] = 1.0;
        m.indices[4] = 9;
        let e = sample_surface(&m, 10, 1).unwrap_err().to_string();
        assert!(e.contains("index 9 (entry 4"), "{e}");
        m.indices.pop();
        let e = sample_surface(&m, 10, 1).unwrap_err().to_string();
        assert!(e.contains("5 entries"), "{e}");
        let huge = vec![[[0.0, 0.0, 0.0], [1e300, 0.0, 0.0], [0.0, 1e300, 0.0]]];
        let e = sample_surface(&huge, 10, 1).unwrap_err().to_string();
        assert!(e.contains("total area = inf"), "{e}");
    }
}

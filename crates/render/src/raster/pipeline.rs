//! The triangle pipeline shared by the colour pass and the shadow pass: transform, clip,
//! snap, and rasterise into a buffer of order-independent depth keys.
//!
//! * **Clipping** happens in homogeneous clip space against the near plane `z = −w`, the far
//!   plane `z = w` and a guard band `|x|, |y| ≤ 4w` (Sutherland–Hodgman, the polygon fanned back
//!   into triangles). The intersection on an edge is always computed from its inside end to its
//!   outside end, so two triangles sharing an edge get bit-identical new vertices.
//! * **Snapping**: after the perspective divide, vertices go to sample coordinates (x right,
//!   y down, sample `(i, j)` centred at `(i + ½, j + ½)`) in fixed point with
//!   [`SUB_BITS`] fractional bits. Edge functions are then exact `i64` integers, so the top-left
//!   rule is exact and meshes are watertight: a sample on an edge shared by two triangles belongs
//!   to exactly one of them. Every vertex is transformed, classified against the clip planes and
//!   snapped once; a triangle inside all planes (the common case) only reads its corners.
//! * **Depth** is `d = 1 − z/w` (0 at the far plane, 2 at the near plane; larger is nearer), an
//!   affine function of the sample position on each triangle. Storing `1 − z/w` rather than
//!   `z/w` keeps the precision of `f32` where `z/w` crowds towards 1, as reversed-z does.
//! * **Order-independent depth test.** Fragments go to a caller's sink, which keeps per sample
//!   the maximum of a key whose high bits are the depth's `f32` bits (positive floats order like
//!   their bits) with an atomic `fetch_max`. A maximum does not depend on the order fragments
//!   arrive in, so triangles are drawn in parallel chunks straight from the index list with no
//!   binning or sorting, and the result is the same for any thread count. Triangles whose
//!   bounding box exceeds [`BIG_SAMPLES`] are set aside and drawn afterwards in blocks of rows,
//!   so one huge triangle still spreads over the threads.

use super::scratch::Pool;
use rayon::prelude::*;

/// Fractional bits of snapped sample coordinates.
pub(crate) const SUB_BITS: u32 = 8;
const SUB: i64 = 1 << SUB_BITS;
const HALF: i64 = SUB / 2;
/// Primitives per unit of parallel work.
pub(crate) const CHUNK: usize = 8192;
/// Triangles covering a bounding box of more samples than this are drawn in row blocks.
pub(crate) const BIG_SAMPLES: i64 = 64 * 64;
/// Sample rows per block of a big triangle.
const BLOCK_ROWS: i32 = 32;
/// Guard band: clip x and y at ±`GUARD`·w.
const GUARD: f64 = 4.0;
/// Cap on samples per axis (keeps snapped coordinates and edge products far inside i32/i64).
pub(crate) const MAX_SAMPLES_PER_AXIS: usize = 16384;
/// Spans wider than this are found by solving the edge functions per row instead of testing
/// every sample; both give exactly the same samples.
const SPAN_SOLVE_WIDTH: i32 = 12;

/// A 4 × 4 matrix, column-major: `m[column][row]`.
pub(crate) type Mat4 = [[f64; 4]; 4];

/// 1.5 · 2⁵²: adding it rounds any `|x| < 2⁵¹` to an integer in the low mantissa bits.
const ROUND_MAGIC: f64 = 6_755_399_441_055_744.0;

/// `x` rounded to the nearest integer (ties to even) by the add-magic trick: a float add and a
/// bit cast, no libm call (baseline x86-64 has no rounding instruction) and no saturation
/// checks. Meaningful for `|x| < 2⁵¹`; callers bound their inputs (or discard the result).
#[inline]
fn round_i(x: f64) -> i64 {
    (x + ROUND_MAGIC).to_bits() as i64 - ROUND_MAGIC.to_bits() as i64
}

/// `⌊x⌋` for `|x| < 2⁵¹`.
#[inline]
pub(crate) fn floor_i(x: f64) -> i64 {
    let r = round_i(x);
    r - ((r as f64) > x) as i64
}

/// `⌈x⌉` for `|x| < 2⁵¹`.
#[inline]
pub(crate) fn ceil_i(x: f64) -> i64 {
    let r = round_i(x);
    r + ((r as f64) < x) as i64
}

/// `m · (p, 1)`.
#[inline]
pub(crate) fn transform(m: &Mat4, p: [f64; 3]) -> [f64; 4] {
    let mut c = [0.0; 4];
    for (r, cr) in c.iter_mut().enumerate() {
        *cr = m[0][r] * p[0] + m[1][r] * p[1] + m[2][r] * p[2] + m[3][r];
    }
    c
}

/// `m · v` for a homogeneous `v`.
#[inline]
pub(crate) fn transform4(m: &Mat4, v: [f64; 4]) -> [f64; 4] {
    let mut c = [0.0; 4];
    for (r, cr) in c.iter_mut().enumerate() {
        *cr = m[0][r] * v[0] + m[1][r] * v[1] + m[2][r] * v[2] + m[3][r] * v[3];
    }
    c
}

/// The inverse of `m` by Gauss–Jordan elimination with partial pivoting; `None` when a pivot is
/// below `1e-12` of the largest entry (numerically singular). Works on either storage order,
/// since the inverse of a transpose is the transpose of the inverse.
pub(crate) fn invert(m: &Mat4) -> Option<Mat4> {
    let scale = m.iter().flatten().fold(0.0f64, |a, &v| a.max(v.abs()));
    if scale.is_nan() || scale <= 0.0 || !scale.is_finite() {
        return None;
    }
    let mut a = *m;
    let mut inv = [[0.0; 4]; 4];
    for (i, row) in inv.iter_mut().enumerate() {
        row[i] = 1.0;
    }
    for col in 0..4 {
        let piv = (col..4).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs())).unwrap_or(col);
        if a[piv][col].abs() <= 1e-12 * scale {
            return None;
        }
        a.swap(col, piv);
        inv.swap(col, piv);
        let p = a[col][col];
        for k in 0..4 {
            a[col][k] /= p;
            inv[col][k] /= p;
        }
        for r in 0..4 {
            if r != col {
                let f = a[r][col];
                if f != 0.0 {
                    for k in 0..4 {
                        a[r][k] -= f * a[col][k];
                        inv[r][k] -= f * inv[col][k];
                    }
                }
            }
        }
    }
    Some(inv)
}

/// The sample grid: `sw × sh` samples (pixels times the supersampling factor).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Target {
    /// Samples per row.
    pub sw: usize,
    /// Sample rows.
    pub sh: usize,
}

impl Target {
    /// Normalised device coordinates of the centre of sample `(x, y)`.
    #[inline]
    pub fn ndc(&self, x: usize, y: usize) -> (f64, f64) {
        ((x as f64 + 0.5) / self.sw as f64 * 2.0 - 1.0, 1.0 - (y as f64 + 0.5) / self.sh as f64 * 2.0)
    }
}

/// A snapped screen triangle, positively oriented in sample space (y down), with its sample
/// bounding box and corner depths.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tri {
    /// Fixed-point sample coordinates of the corners.
    v: [[i32; 2]; 3],
    /// Inclusive sample bounding box `[x0, x1, y0, y1]`, clamped to the target.
    bbox: [u16; 4],
    /// Depth `1 − z/w` at the corners.
    d: [f64; 3],
    /// One over twice the area in fixed-point units (the sum of the three edge functions).
    inv_area: f64,
    /// The primitive's id (the source triangle index).
    id: u32,
}

/// Signed distances of `c` to the six clip planes (inside when `>= 0`).
#[inline]
fn plane_dist(p: usize, c: &[f64; 4]) -> f64 {
    match p {
        0 => c[3] + c[2],
        1 => c[3] - c[2],
        2 => GUARD * c[3] + c[0],
        3 => GUARD * c[3] - c[0],
        4 => GUARD * c[3] + c[1],
        _ => GUARD * c[3] - c[1],
    }
}

#[inline]
fn outcode(c: &[f64; 4]) -> u8 {
    let mut o = 0;
    for p in 0..6 {
        if plane_dist(p, c) < 0.0 {
            o |= 1 << p;
        }
    }
    o
}

/// A vertex's clip-plane outcode and, when it is inside all planes, its snapped sample position
/// and depth.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Screen {
    p: [i64; 2],
    d: f64,
    code: u8,
}

/// Perspective divide and snap: fixed-point sample position and depth `1 − z/w`, or `None`
/// when `w ≤ 0`. The one function every corner goes through, clipped or not, so a vertex
/// shared by two triangles snaps to the same point in both.
#[inline]
fn project(c: &[f64; 4], t: &Target) -> Option<([i64; 2], f64)> {
    let w = c[3];
    if w.is_nan() || w <= 0.0 {
        return None;
    }
    let inv = 1.0 / w;
    let scale = SUB as f64;
    let sx = (c[0] * inv + 1.0) * 0.5 * t.sw as f64;
    let sy = (1.0 - c[1] * inv) * 0.5 * t.sh as f64;
    Some(([floor_i(sx * scale + 0.5), floor_i(sy * scale + 0.5)], 1.0 - c[2] * inv))
}

/// Classifies and snaps one vertex.
#[inline]
pub(crate) fn screen(c: &[f64; 4], t: &Target) -> Screen {
    if !c.iter().all(|v| v.is_finite()) {
        // Only from positions so large that the transform overflowed: treated as degenerate.
        return Screen { code: 0xff, ..Screen::default() };
    }
    let code = outcode(c);
    match (code, project(c, t)) {
        (0, Some((p, d))) => Screen { p, d, code },
        // Inside every plane but w ≤ 0 only happens for a degenerate all-zero vertex.
        (0, None) => Screen { code: 0xff, ..Screen::default() },
        _ => Screen { code, ..Screen::default() },
    }
}

/// Sets up triangle `id` with corners `k`: trivially accepted, rejected, or clipped in
/// homogeneous space; hands its visible parts to `sink`. With `cull_back`, triangles
/// counter-clockwise on screen (y up, the glTF front face) are kept and the others dropped.
pub(crate) fn setup_triangle(
    clip: &[[f64; 4]],
    scr: &[Screen],
    k: [usize; 3],
    id: u32,
    t: &Target,
    cull_back: bool,
    sink: &mut impl FnMut(&Tri),
) {
    let s = [scr[k[0]], scr[k[1]], scr[k[2]]];
    if s[0].code & s[1].code & s[2].code != 0 {
        return;
    }
    let or = s[0].code | s[1].code | s[2].code;
    if or == 0 {
        emit([s[0].p, s[1].p, s[2].p], [s[0].d, s[1].d, s[2].d], id, t, cull_back, sink);
        return;
    }
    if or == 0xff {
        return;
    }
    let mut poly = [[0.0f64; 4]; 9];
    for (dst, &i) in poly.iter_mut().zip(&k) {
        *dst = clip[i];
    }
    let mut n = 3;
    for p in 0..6 {
        if or & (1 << p) == 0 {
            continue;
        }
        let mut next = [[0.0f64; 4]; 9];
        let mut m = 0;
        for i in 0..n {
            let a = poly[i];
            let b = poly[(i + 1) % n];
            let (da, db) = (plane_dist(p, &a), plane_dist(p, &b));
            if da >= 0.0 {
                next[m] = a;
                m += 1;
            }
            if (da >= 0.0) != (db >= 0.0) {
                // From the inside end towards the outside end, whichever way the edge runs.
                let (pin, din, pout, dout) = if da >= 0.0 { (a, da, b, db) } else { (b, db, a, da) };
                let f = din / (din - dout);
                let mut v = [0.0; 4];
                for c in 0..4 {
                    v[c] = pin[c] + f * (pout[c] - pin[c]);
                }
                next[m] = v;
                m += 1;
            }
        }
        poly = next;
        n = m;
        if n < 3 {
            return;
        }
    }
    let mut pr = [([0i64; 2], 0.0f64); 9];
    for i in 0..n {
        match project(&poly[i], t) {
            Some(q) => pr[i] = q,
            None => return,
        }
    }
    for i in 1..n - 1 {
        emit([pr[0].0, pr[i].0, pr[i + 1].0], [pr[0].1, pr[i].1, pr[i + 1].1], id, t, cull_back, sink);
    }
}

/// Sets up one snapped triangle: bounding box, orientation.
#[inline]
fn emit(mut v: [[i64; 2]; 3], mut d: [f64; 3], id: u32, t: &Target, cull_back: bool, sink: &mut impl FnMut(&Tri)) {
    // Most triangles of a dense mesh cover no sample centre: reject on the box first.
    let lo = |a: i64| (a - HALF + SUB - 1) >> SUB_BITS;
    let hi = |a: i64| (a - HALF) >> SUB_BITS;
    let x0 = lo(v[0][0].min(v[1][0]).min(v[2][0])).max(0);
    let x1 = hi(v[0][0].max(v[1][0]).max(v[2][0])).min(t.sw as i64 - 1);
    let y0 = lo(v[0][1].min(v[1][1]).min(v[2][1])).max(0);
    let y1 = hi(v[0][1].max(v[1][1]).max(v[2][1])).min(t.sh as i64 - 1);
    if x0 > x1 || y0 > y1 {
        return;
    }
    let area = (v[1][0] - v[0][0]) * (v[2][1] - v[0][1]) - (v[2][0] - v[0][0]) * (v[1][1] - v[0][1]);
    if area == 0 || (cull_back && area > 0) {
        return;
    }
    if area < 0 {
        v.swap(1, 2);
        d.swap(1, 2);
    }
    sink(&Tri {
        v: v.map(|p| [p[0] as i32, p[1] as i32]),
        bbox: [x0 as u16, x1 as u16, y0 as u16, y1 as u16],
        d,
        inv_area: 1.0 / area.abs() as f64,
        id,
    });
}

/// Rasterises `t` over sample rows `row0..=row1`, calling `frag(x, y, depth)` for every
/// covered sample (top-left fill rule), row by row, left to right.
#[inline]
pub(crate) fn raster_tri(t: &Tri, row0: i32, row1: i32, mut frag: impl FnMut(usize, usize, f32)) {
    let ylo = (t.bbox[2] as i32).max(row0);
    let yhi = (t.bbox[3] as i32).min(row1);
    if ylo > yhi {
        return;
    }
    let (xlo, xhi) = (t.bbox[0] as i32, t.bbox[1] as i32);
    let px = xlo as i64 * SUB + HALF;
    let py = ylo as i64 * SUB + HALF;
    let mut row = [0i64; 3];
    let mut step_x = [0i64; 3];
    let mut step_y = [0i64; 3];
    let mut bias = [0i64; 3];
    for e in 0..3 {
        let a = t.v[e];
        let b = t.v[(e + 1) % 3];
        let ex = (b[0] - a[0]) as i64;
        let ey = (b[1] - a[1]) as i64;
        let top_left = ey < 0 || (ey == 0 && ex > 0);
        bias[e] = if top_left { 0 } else { 1 };
        row[e] = ex * (py - a[1] as i64) - ey * (px - a[0] as i64) - bias[e];
        step_x[e] = -ey * SUB;
        step_y[e] = ex * SUB;
    }
    let [d0, d1, d2] = t.d;
    if xhi - xlo < SPAN_SOLVE_WIDTH {
        // Small: test every sample of the box; depth from the edge functions, which are the
        // barycentric weights times twice the area (edge e faces corner e + 2).
        for y in ylo..=yhi {
            let mut w = row;
            for x in xlo..=xhi {
                if (w[0] | w[1] | w[2]) >= 0 {
                    let [b0, b1, b2] = [w[1] + bias[1], w[2] + bias[2], w[0] + bias[0]].map(|v| v as f64);
                    frag(x as usize, y as usize, ((b0 * d0 + b1 * d1 + b2 * d2) * t.inv_area) as f32);
                }
                for e in 0..3 {
                    w[e] += step_x[e];
                }
            }
            for e in 0..3 {
                row[e] += step_y[e];
            }
        }
        return;
    }
    // Wide: the depth plane, d = d0 + ddx·(x − ox) + ddy·(y − oy) in sample units.
    let f = |k: usize, c: usize| (t.v[k][c] - t.v[0][c]) as f64;
    let (p, q) = (d1 - d0, d2 - d0);
    let k = SUB as f64 * t.inv_area;
    let ddx = (p * f(2, 1) - q * f(1, 1)) * k;
    let ddy = (f(1, 0) * q - f(2, 0) * p) * k;
    let ox = t.v[0][0] as f64 / SUB as f64;
    let oy = t.v[0][1] as f64 / SUB as f64;
    for y in ylo..=yhi {
        let drow = d0 + ddx * (xlo as f64 + 0.5 - ox) + ddy * (y as f64 + 0.5 - oy);
        {
            // Exact span: edge e is non-negative from column xlo + k where w + s·k >= 0.
            let (mut lo, mut hi) = (0i64, (xhi - xlo) as i64);
            for e in 0..3 {
                let (w, s) = (row[e], step_x[e]);
                if s > 0 {
                    if w < 0 {
                        lo = lo.max((-w + s - 1) / s);
                    }
                } else if s < 0 {
                    if w < 0 {
                        hi = -1;
                    } else {
                        hi = hi.min(w / -s);
                    }
                } else if w < 0 {
                    hi = -1;
                }
            }
            for k in lo..=hi {
                frag((xlo as i64 + k) as usize, y as usize, (drow + ddx * k as f64) as f32);
            }
        }
        for e in 0..3 {
            row[e] += step_y[e];
        }
    }
}

/// Clip coordinates of every vertex, in parallel.
pub(crate) fn transform_all(m: &Mat4, n: usize, pos: impl Fn(usize) -> [f64; 3] + Sync) -> Vec<[f64; 4]> {
    let mut clip = CLIP.take();
    (0..n).into_par_iter().map(|i| transform(m, pos(i))).collect_into_vec(&mut clip);
    clip
}

/// Clip coordinates, kept between frames (see [`scratch`](super::scratch)); give a
/// [`transform_all`] result back with `CLIP.give`.
pub(crate) static CLIP: Pool<[f64; 4]> = Pool::new();
/// Snapped vertices, kept between frames.
pub(crate) static SCREEN: Pool<Screen> = Pool::new();

/// Draws every triangle of `indices` over the clip coordinates `clip`, calling
/// `frag(x, y, depth, triangle)` for each covered sample, from any thread and in no fixed
/// order (the sink must be order-independent).
pub(crate) fn draw_triangles<F>(clip: &[[f64; 4]], indices: &[u32], t: &Target, cull_back: bool, frag: F)
where
    F: Fn(usize, usize, f32, u32) + Sync,
{
    let mut scr = SCREEN.take();
    clip.par_iter().map(|c| screen(c, t)).collect_into_vec(&mut scr);
    let n = indices.len() / 3;
    let last_row = t.sh as i32 - 1;
    let big: Vec<Vec<Tri>> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut big = Vec::new();
            let mut sink = |tri: &Tri| {
                let b = tri.bbox;
                if (b[1] - b[0] + 1) as i64 * (b[3] - b[2] + 1) as i64 > BIG_SAMPLES {
                    big.push(*tri);
                } else {
                    raster_tri(tri, 0, last_row, |x, y, d| frag(x, y, d, tri.id));
                }
            };
            for i in c * CHUNK..n.min((c + 1) * CHUNK) {
                let k = [indices[3 * i] as usize, indices[3 * i + 1] as usize, indices[3 * i + 2] as usize];
                setup_triangle(clip, &scr, k, i as u32, t, cull_back, &mut sink);
            }
            big
        })
        .collect();
    let big: Vec<Tri> = big.into_iter().flatten().collect();
    let jobs: Vec<(usize, i32)> = big
        .iter()
        .enumerate()
        .flat_map(|(k, tri)| {
            (tri.bbox[2] as i32..=tri.bbox[3] as i32).step_by(BLOCK_ROWS as usize).map(move |y| (k, y))
        })
        .collect();
    jobs.par_iter().for_each(|&(k, y0)| {
        let tri = &big[k];
        raster_tri(tri, y0, (y0 + BLOCK_ROWS - 1).min(last_row), |x, y, d| frag(x, y, d, tri.id));
    });
    SCREEN.give(scr);
}

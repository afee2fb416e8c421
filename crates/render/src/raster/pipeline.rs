//! The triangle pipeline shared by the colour pass and the shadow pass: transform, clip,
//! snap, bin into row bands, and rasterise one band at a time.
//!
//! * **Clipping** happens in homogeneous clip space against the near plane `z = −w`, the far
//!   plane `z = w` and a guard band `|x|, |y| ≤ 4w` (Sutherland–Hodgman, the polygon fanned back
//!   into triangles). The intersection on an edge is always computed from its inside end to its
//!   outside end, so two triangles sharing an edge get bit-identical new vertices.
//! * **Snapping**: after the perspective divide, vertices go to sample coordinates (x right,
//!   y down, sample `(i, j)` centred at `(i + ½, j + ½)`) in fixed point with
//!   [`SUB_BITS`] fractional bits. Edge functions are then exact `i64` integers, so the top-left
//!   rule is exact and meshes are watertight: a sample on an edge shared by two triangles belongs
//!   to exactly one of them.
//! * **Depth** is `d = 1 − z/w` (0 at the far plane, 2 at the near plane; larger is nearer), an
//!   affine function of the sample position on each triangle. Storing `1 − z/w` rather than
//!   `z/w` keeps the precision of `f32` where `z/w` crowds towards 1, as reversed-z does.
//! * **Binning**: primitives are processed in fixed chunks of [`CHUNK`] in parallel; each chunk
//!   lists its primitives per band of [`BAND_ROWS`] sample rows in primitive order. Bands are
//!   then rasterised in parallel, each visiting the chunks in order, so every sample sees its
//!   primitives in submission order whatever the thread count: the output is deterministic.

use rayon::prelude::*;

/// Fractional bits of snapped sample coordinates.
pub(crate) const SUB_BITS: u32 = 8;
const SUB: i64 = 1 << SUB_BITS;
const HALF: i64 = SUB / 2;
/// Sample rows per band (the unit of parallel work).
pub(crate) const BAND_ROWS: usize = 16;
/// Primitives per binning chunk.
pub(crate) const CHUNK: usize = 8192;
/// Guard band: clip x and y at ±`GUARD`·w.
const GUARD: f64 = 4.0;
/// Cap on samples per axis (keeps snapped coordinates and edge products far inside i32/i64).
pub(crate) const MAX_SAMPLES_PER_AXIS: usize = 16384;
/// Spans wider than this are found by solving the edge functions per row instead of testing
/// every sample; both give exactly the same samples.
const SPAN_SOLVE_WIDTH: i32 = 12;

/// A 4 × 4 matrix, column-major: `m[column][row]`.
pub(crate) type Mat4 = [[f64; 4]; 4];

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
    /// Number of bands.
    pub fn bands(&self) -> usize {
        self.sh.div_ceil(BAND_ROWS)
    }

    /// Normalised device coordinates of the centre of sample `(x, y)`.
    #[inline]
    pub fn ndc(&self, x: usize, y: usize) -> (f64, f64) {
        ((x as f64 + 0.5) / self.sw as f64 * 2.0 - 1.0, 1.0 - (y as f64 + 0.5) / self.sh as f64 * 2.0)
    }
}

/// Something binned into bands: its inclusive sample-row range, already clamped to the target.
pub(crate) trait Rows {
    /// First and last sample rows touched.
    fn rows(&self) -> (i32, i32);
}

/// One chunk's primitives and, per band, the indices of those touching it (in order).
pub(crate) struct Chunk<T> {
    pub items: Vec<T>,
    starts: Vec<u32>,
    order: Vec<u32>,
}

impl<T: Rows> Chunk<T> {
    fn new(items: Vec<T>, bands: usize) -> Self {
        let mut starts = vec![0u32; bands + 1];
        for it in &items {
            let (y0, y1) = it.rows();
            for b in (y0 as usize / BAND_ROWS)..=(y1 as usize / BAND_ROWS) {
                starts[b + 1] += 1;
            }
        }
        for b in 0..bands {
            starts[b + 1] += starts[b];
        }
        let mut fill: Vec<u32> = starts[..bands].to_vec();
        let mut order = vec![0u32; starts[bands] as usize];
        for (k, it) in items.iter().enumerate() {
            let (y0, y1) = it.rows();
            for b in (y0 as usize / BAND_ROWS)..=(y1 as usize / BAND_ROWS) {
                order[fill[b] as usize] = k as u32;
                fill[b] += 1;
            }
        }
        Self { items, starts, order }
    }

    /// The primitives touching band `b`, in submission order.
    #[inline]
    pub fn band(&self, b: usize) -> impl Iterator<Item = &T> {
        self.order[self.starts[b] as usize..self.starts[b + 1] as usize].iter().map(move |&k| &self.items[k as usize])
    }
}

/// Runs `make(i, &mut out)` for every primitive `i < n` in parallel chunks and bins the
/// results. Chunks come back in order.
pub(crate) fn build_chunks<T, F>(n: usize, bands: usize, make: F) -> Vec<Chunk<T>>
where
    T: Rows + Send,
    F: Fn(usize, &mut Vec<T>) + Sync,
{
    (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut items = Vec::with_capacity(CHUNK.min(n - c * CHUNK));
            for i in c * CHUNK..n.min((c + 1) * CHUNK) {
                make(i, &mut items);
            }
            Chunk::new(items, bands)
        })
        .collect()
}

/// A snapped screen triangle, positively oriented in sample space (y down), with its sample
/// bounding box and depth plane.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tri {
    /// Fixed-point sample coordinates of the corners.
    v: [[i32; 2]; 3],
    /// Inclusive sample bounding box `[x0, x1, y0, y1]`, clamped to the target.
    bbox: [i32; 4],
    /// Depth at corner 0 and its gradient per sample in x and y.
    plane: [f64; 3],
    /// The primitive's id (the source triangle index).
    pub id: u32,
}

impl Rows for Tri {
    #[inline]
    fn rows(&self) -> (i32, i32) {
        (self.bbox[2], self.bbox[3])
    }
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

/// Clips the clip-space triangle `c` and appends its visible parts to `out` as snapped
/// triangles. With `cull_back`, triangles counter-clockwise on screen (y up, the glTF front
/// face) are kept and the others dropped.
pub(crate) fn setup_triangle(c: [[f64; 4]; 3], id: u32, t: &Target, cull_back: bool, out: &mut Vec<Tri>) {
    let codes = [outcode(&c[0]), outcode(&c[1]), outcode(&c[2])];
    if codes[0] & codes[1] & codes[2] != 0 {
        return;
    }
    if codes[0] | codes[1] | codes[2] == 0 {
        emit(c, id, t, cull_back, out);
        return;
    }
    let or = codes[0] | codes[1] | codes[2];
    let mut poly = [[0.0f64; 4]; 9];
    poly[..3].copy_from_slice(&c);
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
                let s = din / (din - dout);
                let mut v = [0.0; 4];
                for k in 0..4 {
                    v[k] = pin[k] + s * (pout[k] - pin[k]);
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
    for k in 1..n - 1 {
        emit([poly[0], poly[k], poly[k + 1]], id, t, cull_back, out);
    }
}

/// Divides, snaps and sets up one clipped triangle.
fn emit(c: [[f64; 4]; 3], id: u32, t: &Target, cull_back: bool, out: &mut Vec<Tri>) {
    let scale = (1u32 << SUB_BITS) as f64;
    let mut v = [[0i64; 2]; 3];
    let mut d = [0.0f64; 3];
    for k in 0..3 {
        let w = c[k][3];
        if w.is_nan() || w <= 0.0 {
            return;
        }
        let inv = 1.0 / w;
        let sx = (c[k][0] * inv + 1.0) * 0.5 * t.sw as f64;
        let sy = (1.0 - c[k][1] * inv) * 0.5 * t.sh as f64;
        v[k] = [(sx * scale).round() as i64, (sy * scale).round() as i64];
        d[k] = 1.0 - c[k][2] * inv;
    }
    let area = (v[1][0] - v[0][0]) * (v[2][1] - v[0][1]) - (v[2][0] - v[0][0]) * (v[1][1] - v[0][1]);
    if area == 0 || (cull_back && area > 0) {
        return;
    }
    if area < 0 {
        v.swap(1, 2);
        d.swap(1, 2);
    }
    let lo = |a: i64| (a - HALF + SUB - 1).div_euclid(SUB);
    let hi = |a: i64| (a - HALF).div_euclid(SUB);
    let x0 = lo(v[0][0].min(v[1][0]).min(v[2][0])).max(0);
    let x1 = hi(v[0][0].max(v[1][0]).max(v[2][0])).min(t.sw as i64 - 1);
    let y0 = lo(v[0][1].min(v[1][1]).min(v[2][1])).max(0);
    let y1 = hi(v[0][1].max(v[1][1]).max(v[2][1])).min(t.sh as i64 - 1);
    if x0 > x1 || y0 > y1 {
        return;
    }
    let f = |a: i64| a as f64 / scale;
    let (a, b) = (f(v[1][0] - v[0][0]), f(v[1][1] - v[0][1]));
    let (cc, e) = (f(v[2][0] - v[0][0]), f(v[2][1] - v[0][1]));
    let (p, q) = (d[1] - d[0], d[2] - d[0]);
    let area_f = a * e - cc * b;
    let ddx = (p * e - q * b) / area_f;
    let ddy = (a * q - cc * p) / area_f;
    out.push(Tri {
        v: [[v[0][0] as i32, v[0][1] as i32], [v[1][0] as i32, v[1][1] as i32], [v[2][0] as i32, v[2][1] as i32]],
        bbox: [x0 as i32, x1 as i32, y0 as i32, y1 as i32],
        plane: [d[0], ddx, ddy],
        id,
    });
}

/// Rasterises `t` over sample rows `band_y0..=band_y1`, calling `frag(x, y, depth)` for every
/// covered sample (top-left fill rule), row by row, left to right.
#[inline]
pub(crate) fn raster_tri(t: &Tri, band_y0: i32, band_y1: i32, mut frag: impl FnMut(usize, usize, f32)) {
    let ylo = t.bbox[2].max(band_y0);
    let yhi = t.bbox[3].min(band_y1);
    if ylo > yhi {
        return;
    }
    let (xlo, xhi) = (t.bbox[0], t.bbox[1]);
    let px = xlo as i64 * SUB + HALF;
    let py = ylo as i64 * SUB + HALF;
    let mut row = [0i64; 3];
    let mut step_x = [0i64; 3];
    let mut step_y = [0i64; 3];
    for e in 0..3 {
        let a = t.v[e];
        let b = t.v[(e + 1) % 3];
        let ex = (b[0] - a[0]) as i64;
        let ey = (b[1] - a[1]) as i64;
        let top_left = ey < 0 || (ey == 0 && ex > 0);
        row[e] = ex * (py - a[1] as i64) - ey * (px - a[0] as i64) - if top_left { 0 } else { 1 };
        step_x[e] = -ey * SUB;
        step_y[e] = ex * SUB;
    }
    let scale = SUB as f64;
    let ox = t.v[0][0] as f64 / scale;
    let oy = t.v[0][1] as f64 / scale;
    let [d0, ddx, ddy] = t.plane;
    let solve = xhi - xlo >= SPAN_SOLVE_WIDTH;
    for y in ylo..=yhi {
        let drow = d0 + ddx * (xlo as f64 + 0.5 - ox) + ddy * (y as f64 + 0.5 - oy);
        if solve {
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
        } else {
            let mut w = row;
            for x in xlo..=xhi {
                if (w[0] | w[1] | w[2]) >= 0 {
                    frag(x as usize, y as usize, (drow + ddx * (x - xlo) as f64) as f32);
                }
                for e in 0..3 {
                    w[e] += step_x[e];
                }
            }
        }
        for e in 0..3 {
            row[e] += step_y[e];
        }
    }
}

/// Rasterises binned triangles into a depth buffer (`d`, larger nearer, cleared to −∞) and, when
/// `ids` is given, an id buffer (cleared to `u32::MAX`). Nearer wins; on a tie the earlier
/// triangle stays.
pub(crate) fn raster_depth_ids(chunks: &[Chunk<Tri>], t: &Target, depth: &mut [f32], ids: Option<&mut [u32]>) {
    let sw = t.sw;
    let band = BAND_ROWS * sw;
    let run = |b: usize, dband: &mut [f32], mut iband: Option<&mut [u32]>| {
        let y0 = b * BAND_ROWS;
        let y1 = (y0 + BAND_ROWS).min(t.sh) - 1;
        for ch in chunks {
            for tri in ch.band(b) {
                let id = tri.id;
                raster_tri(tri, y0 as i32, y1 as i32, |x, y, d| {
                    let k = (y - y0) * sw + x;
                    if d > dband[k] {
                        dband[k] = d;
                        if let Some(ib) = iband.as_deref_mut() {
                            ib[k] = id;
                        }
                    }
                });
            }
        }
    };
    match ids {
        Some(ids) => depth
            .par_chunks_mut(band)
            .zip(ids.par_chunks_mut(band))
            .enumerate()
            .for_each(|(b, (dband, iband))| run(b, dband, Some(iband))),
        None => depth.par_chunks_mut(band).enumerate().for_each(|(b, dband)| run(b, dband, None)),
    }
}

/// Clip coordinates of every vertex, in parallel.
pub(crate) fn transform_all(m: &Mat4, n: usize, pos: impl Fn(usize) -> [f64; 3] + Sync) -> Vec<[f64; 4]> {
    (0..n).into_par_iter().map(|i| transform(m, pos(i))).collect()
}

/// Sets up and bins every triangle of `indices` over the clip coordinates `clip`.
pub(crate) fn bin_triangles(clip: &[[f64; 4]], indices: &[u32], t: &Target, cull_back: bool) -> Vec<Chunk<Tri>> {
    build_chunks(indices.len() / 3, t.bands(), |i, out| {
        let c = [clip[indices[3 * i] as usize], clip[indices[3 * i + 1] as usize], clip[indices[3 * i + 2] as usize]];
        setup_triangle(c, i as u32, t, cull_back, out);
    })
}

/// Number of fragments each sample receives (no depth test): the watertightness check.
#[cfg(test)]
pub(crate) fn coverage_counts(chunks: &[Chunk<Tri>], t: &Target) -> Vec<u32> {
    let mut count = vec![0u32; t.sw * t.sh];
    for b in 0..t.bands() {
        let y0 = b * BAND_ROWS;
        let y1 = (y0 + BAND_ROWS).min(t.sh) - 1;
        for ch in chunks {
            for tri in ch.band(b) {
                raster_tri(tri, y0 as i32, y1 as i32, |x, y, _| count[y * t.sw + x] += 1);
            }
        }
    }
    count
}

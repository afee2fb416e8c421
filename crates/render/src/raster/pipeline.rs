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
//!   `z/w` keeps the precision of `f32` where `z/w` crowds towards 1, as reversed-z does. Buffers
//!   start at 0 (so they come zeroed from the allocator and are first touched by the thread
//!   that draws them): a sample is drawn when its `d > 0` beats the stored value, and ids are
//!   stored plus one, 0 meaning empty.
//! * Every vertex is transformed, classified against the clip planes and snapped once; a
//!   triangle inside all planes (the common case) only reads its corners' snapped coordinates.
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

/// `⌊x⌋` without a libm call (baseline x86-64 has no rounding instruction); saturates outside
/// the `i64` range, NaN gives 0.
#[inline]
pub(crate) fn floor_i(x: f64) -> i64 {
    let i = x as i64;
    i - ((i as f64) > x) as i64
}

/// `⌈x⌉`, as [`floor_i`].
#[inline]
pub(crate) fn ceil_i(x: f64) -> i64 {
    let i = x as i64;
    i + ((i as f64) < x) as i64
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

/// One chunk's primitives sorted by band (a primitive touching several bands is copied into
/// each), in submission order within a band, so a band reads its primitives sequentially.
pub(crate) struct Chunk<T> {
    items: Vec<T>,
    starts: Vec<u32>,
}

impl<T: Rows + Copy> Chunk<T> {
    fn new(src: &[T], bands: usize) -> Self {
        let mut starts = vec![0u32; bands + 1];
        for it in src {
            let (y0, y1) = it.rows();
            for b in (y0 as usize / BAND_ROWS)..=(y1 as usize / BAND_ROWS) {
                starts[b + 1] += 1;
            }
        }
        for b in 0..bands {
            starts[b + 1] += starts[b];
        }
        let Some(&first) = src.first() else {
            return Self { items: Vec::new(), starts };
        };
        let mut fill: Vec<u32> = starts[..bands].to_vec();
        let mut items = vec![first; starts[bands] as usize];
        for it in src {
            let (y0, y1) = it.rows();
            for b in (y0 as usize / BAND_ROWS)..=(y1 as usize / BAND_ROWS) {
                items[fill[b] as usize] = *it;
                fill[b] += 1;
            }
        }
        Self { items, starts }
    }
}

impl<T> Chunk<T> {
    /// The primitives touching band `b`, in submission order.
    #[inline]
    pub fn band(&self, b: usize) -> &[T] {
        &self.items[self.starts[b] as usize..self.starts[b + 1] as usize]
    }
}

/// Runs `make(i, &mut out)` for every primitive `i < n` in parallel chunks and bins the
/// results. Chunks come back in order. The unsorted primitives go to a scratch vector reused
/// by each worker.
pub(crate) fn build_chunks<T, F>(n: usize, bands: usize, make: F) -> Vec<Chunk<T>>
where
    T: Rows + Copy + Send,
    F: Fn(usize, &mut Vec<T>) + Sync,
{
    (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map_init(Vec::new, |items, c| {
            items.clear();
            for i in c * CHUNK..n.min((c + 1) * CHUNK) {
                make(i, items);
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
    bbox: [u16; 4],
    /// Depth at corner 0 and its gradient per sample in x and y.
    plane: [f64; 3],
    /// The primitive's id (the source triangle index).
    pub id: u32,
}

impl Rows for Tri {
    #[inline]
    fn rows(&self) -> (i32, i32) {
        (self.bbox[2] as i32, self.bbox[3] as i32)
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
    let code = outcode(c);
    match (code, project(c, t)) {
        (0, Some((p, d))) => Screen { p, d, code },
        // Inside every plane but w ≤ 0 only happens for a degenerate all-zero vertex.
        (0, None) => Screen { code: 0xff, ..Screen::default() },
        _ => Screen { code, ..Screen::default() },
    }
}

/// Sets up triangle `id` with corners `k`: trivially accepted, rejected, or clipped in
/// homogeneous space; appends its visible parts to `out`. With `cull_back`, triangles
/// counter-clockwise on screen (y up, the glTF front face) are kept and the others dropped.
pub(crate) fn setup_triangle(
    clip: &[[f64; 4]],
    scr: &[Screen],
    k: [usize; 3],
    id: u32,
    t: &Target,
    cull_back: bool,
    out: &mut Vec<Tri>,
) {
    let s = [scr[k[0]], scr[k[1]], scr[k[2]]];
    if s[0].code & s[1].code & s[2].code != 0 {
        return;
    }
    let or = s[0].code | s[1].code | s[2].code;
    if or == 0 {
        emit([s[0].p, s[1].p, s[2].p], [s[0].d, s[1].d, s[2].d], id, t, cull_back, out);
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
        emit([pr[0].0, pr[i].0, pr[i + 1].0], [pr[0].1, pr[i].1, pr[i + 1].1], id, t, cull_back, out);
    }
}

/// Sets up one snapped triangle: orientation, bounding box, depth plane.
#[inline]
fn emit(mut v: [[i64; 2]; 3], mut d: [f64; 3], id: u32, t: &Target, cull_back: bool, out: &mut Vec<Tri>) {
    let area = (v[1][0] - v[0][0]) * (v[2][1] - v[0][1]) - (v[2][0] - v[0][0]) * (v[1][1] - v[0][1]);
    if area == 0 || (cull_back && area > 0) {
        return;
    }
    if area < 0 {
        v.swap(1, 2);
        d.swap(1, 2);
    }
    let lo = |a: i64| (a - HALF + SUB - 1) >> SUB_BITS;
    let hi = |a: i64| (a - HALF) >> SUB_BITS;
    let x0 = lo(v[0][0].min(v[1][0]).min(v[2][0])).max(0);
    let x1 = hi(v[0][0].max(v[1][0]).max(v[2][0])).min(t.sw as i64 - 1);
    let y0 = lo(v[0][1].min(v[1][1]).min(v[2][1])).max(0);
    let y1 = hi(v[0][1].max(v[1][1]).max(v[2][1])).min(t.sh as i64 - 1);
    if x0 > x1 || y0 > y1 {
        return;
    }
    // Depth plane in sample units: d = d0 + ddx·(x − x0) + ddy·(y − y0).
    let (a, b) = ((v[1][0] - v[0][0]) as f64, (v[1][1] - v[0][1]) as f64);
    let (c, e) = ((v[2][0] - v[0][0]) as f64, (v[2][1] - v[0][1]) as f64);
    let (p, q) = (d[1] - d[0], d[2] - d[0]);
    let k = SUB as f64 / area.abs() as f64;
    out.push(Tri {
        v: v.map(|p| [p[0] as i32, p[1] as i32]),
        bbox: [x0 as u16, x1 as u16, y0 as u16, y1 as u16],
        plane: [d[0], (p * e - q * b) * k, (a * q - c * p) * k],
        id,
    });
}

/// Rasterises `t` over sample rows `band_y0..=band_y1`, calling `frag(x, y, depth)` for every
/// covered sample (top-left fill rule), row by row, left to right.
#[inline]
pub(crate) fn raster_tri(t: &Tri, band_y0: i32, band_y1: i32, mut frag: impl FnMut(usize, usize, f32)) {
    let ylo = (t.bbox[2] as i32).max(band_y0);
    let yhi = (t.bbox[3] as i32).min(band_y1);
    if ylo > yhi {
        return;
    }
    let (xlo, xhi) = (t.bbox[0] as i32, t.bbox[1] as i32);
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

/// Rasterises binned triangles into a depth buffer (`d`, larger nearer, cleared to 0) and, when
/// `ids` is given, an id buffer of `id + 1` (cleared to 0). Nearer wins; on a tie the earlier
/// triangle stays.
pub(crate) fn raster_depth_ids(chunks: &[Chunk<Tri>], t: &Target, depth: &mut [f32], ids: Option<&mut [u32]>) {
    let sw = t.sw;
    let band = BAND_ROWS * sw;
    let run = |b: usize, dband: &mut [f32], mut iband: Option<&mut [u32]>| {
        let y0 = b * BAND_ROWS;
        let y1 = (y0 + BAND_ROWS).min(t.sh) - 1;
        for ch in chunks {
            for tri in ch.band(b) {
                let id = tri.id + 1;
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
    let scr: Vec<Screen> = clip.par_iter().map(|c| screen(c, t)).collect();
    build_chunks(indices.len() / 3, t.bands(), |i, out| {
        let k = [indices[3 * i] as usize, indices[3 * i + 1] as usize, indices[3 * i + 2] as usize];
        setup_triangle(clip, &scr, k, i as u32, t, cull_back, out);
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

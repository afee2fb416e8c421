//! Gaussian splat clouds drawn as depth-sorted, alpha-blended projected 2-D Gaussians, with the
//! conventions of the browser viewer's WebGL2 splat path (`web/src/shaders.js` `SPLAT_VS` /
//! `SPLAT_FS`, `renderer.js`, `sort-worker.js`), so that the two pictures of the same splats from
//! the same camera agree (see `docs/world.md` for the measured agreement).
//!
//! **Splats** ([`SplatsRef`]). Each splat `i` is a 3-D Gaussian with centre `positions[i]`, linear
//! standard deviations `scales[i]` along its local axes, orientation `rotations[i]` (a quaternion
//! `w, x, y, z`, the order of the 3DGS PLY's `rot_0..3`; normalised here), colour `colours[i]` and
//! opacity `opacities[i]`. Colours are *display* values in `0..=1`, as the viewer uses them: the
//! `.splat` bytes over 255, i.e. `clip(0.5 + C0·f_dc, 0, 1)`, sRGB-encoded and blended as they are
//! (no conversion to linear light). Opacities are `sigmoid(opacity)` in `0..=1`.
//!
//! **Projection** (EWA splatting, Zwicker et al. 2001, as in 3DGS). The covariance is
//! `Σ = R·S·Sᵀ·Rᵀ` with `R` the rotation of the quaternion and `S = diag(scales)`. The centre is
//! transformed by [`View::view_proj`] and lands on the pixel grid with the rasteriser's NDC → pixel
//! mapping; a centre outside `−w ≤ z ≤ w` (before the near plane, beyond the far plane, behind the
//! eye) is not drawn. The 2 × 3 Jacobian `J` of the world → pixel mapping at the centre,
//! `∂px/∂p = (W/2)·(m₀ − x_ndc·m₃)/w`, `∂py/∂p = −(H/2)·(m₁ − y_ndc·m₃)/w` (`mₖ` the xyz part of row
//! `k` of the matrix), gives the screen covariance `Σ' = J·Σ·Jᵀ`, plus the low-pass term
//! [`SplatParams::dilation_px2`] on its diagonal (the viewer's `DILATION`, 0.3 px²). As in the
//! viewer and 3DGS, `x_ndc`, `y_ndc` are clamped to ±1.3 in the Jacobian only, so splats far off
//! screen do not blow up. For the viewer's camera this `J` is exactly its `J·uView`.
//!
//! **Footprint**, as the viewer's vertex shader builds its quad: with `Σ' = [[a, b], [b, c]]`,
//! `mid = (a + c)/2`, `rad = √max(mid² − (ac − b²), 0.1)`, `λ₁ = mid + rad`,
//! `λ₂ = max(mid − rad, 0.1)` (px²); a splat with `λ₁ < 0.15` is dropped; the major axis is
//! `(b, λ₁ − a)` normalised (or x / y when `|b| ≤ 1e-9`), and the half-axes are
//! `min(√(2λ), 1024)` px. A sample at offset `(u, v)` half-axes from the centre along the axes has
//! `r² = u² + v² = ½·d²` (`d` the Mahalanobis distance in σ), is covered when
//! `d ≤` [`SplatParams::cutoff_sigma`] (the viewer's quad: `r² ≤ 4`, `d ≤ 2√2`), and gets
//! `α = opacity · exp(−½ d²)`; `α <` [`SplatParams::min_alpha`] (the viewer's 0.004) is skipped.
//! (The floors `0.1` make a round footprint slightly elliptic, `λ₁ − λ₂ ≥ 2·√0.1` px², exactly as
//! the viewer draws it.) With supersampling, every constant in px or px² is scaled to samples.
//!
//! **Order and blending.** Splats are sorted by NDC depth `z/w` (which orders like the distance
//! along the view axis, the viewer's sort key `(p − eye)·forward`), ties by index, and composited
//! over the background with `C ← α·colour + (1 − α)·C`, far to near: the viewer's premultiplied
//! `ONE, ONE_MINUS_SRC_ALPHA` blend with no depth test; among splats of equal depth the one of
//! higher index is in front (the viewer's sort is stable by index, far first). It is evaluated
//! front to back (`C += T·α·colour`, `T ← T·(1 − α)`, then `C += T·background`), which is the same
//! sum, stopping once the transmittance `T` falls below 2⁻¹⁰ (what is left could move a byte by at
//! most a quarter of a level). Colours and background are clamped to `0..=1` (as the viewer's
//! colour grading does) and the result rounded to bytes. The viewer's 16-bit depth buckets and
//! 8-bit framebuffer round where this renderer does not; those and SwiftShader's arithmetic are
//! the remaining differences.
//!
//! **Samples and threads.** `s × s` samples per pixel (a box filter over display values). The
//! image is cut into bands of 8 pixel rows; splats are binned to bands in sorted order (in
//! parallel chunks, merged in chunk order) and each band is composited by one rayon task, every
//! sample in the fixed sorted order: the bytes are the same for any pool size.
//!
//! **Distances.** [`RasterFrame::distance`] holds, per pixel, the smallest over its samples of the
//! eye distance of the splat centre at which the sample's transmittance first falls to ½ or below
//! (the median of the opacity along the ray, rounded to a splat); `+∞` where it never does.
//!
//! **Errors** ([`RasterError`]), before anything is drawn: a zero-size or oversized image, a
//! non-finite or singular matrix, an empty cloud, attribute arrays whose lengths differ from the
//! positions' (naming the array), a NaN or infinite position, scale, rotation, colour or opacity,
//! a negative scale, a zero quaternion, an opacity outside `0..=1`, parameters out of range.
//! Splats whose screen covariance overflows are skipped, not errors. Nothing panics.

use super::{check_view, first_bad, param, RasterError, RasterFrame, View};
use crate::image::Rgb8Image;
use rayon::prelude::*;

/// The viewer's low-pass term added to the screen covariance, px² (`DILATION` in shaders.js).
pub const VIEWER_DILATION_PX2: f64 = 0.3;
/// The viewer's footprint cut-off in σ: its quad spans ±2 half-axes of `√(2λ)`, i.e. `2√2 σ`.
pub const VIEWER_CUTOFF_SIGMA: f64 = 2.0 * std::f64::consts::SQRT_2;
/// The viewer's smallest drawn alpha (its fragment shader discards `alpha < 0.004`).
pub const VIEWER_MIN_ALPHA: f64 = 0.004;
/// The viewer's default background (`renderer.js` `DEFAULTS.background`), display values.
pub const VIEWER_BACKGROUND: [f32; 3] = [0.62, 0.7, 0.8];

/// Floor of `mid² − det` in the viewer's eigenvalues, px⁴.
const DISC_FLOOR: f64 = 0.1;
/// Floor of the minor eigenvalue, px².
const MINOR_FLOOR: f64 = 0.1;
/// Splats whose major eigenvalue is below this are dropped, px².
const MAJOR_CULL: f64 = 0.15;
/// Cap of a half-axis `√(2λ)`, px.
const AXIS_CAP: f64 = 1024.0;
/// NDC bound of the centre used in the Jacobian.
const JACOBIAN_CLAMP: f64 = 1.3;
/// Transmittance below which a sample takes no more splats.
const T_STOP: f32 = 1.0 / 1024.0;
/// Pixel rows per band (one rayon task each).
const BAND_ROWS: usize = 8;
/// Splats per binning chunk.
const BIN_CHUNK: usize = 1 << 16;

/// A Gaussian splat cloud to draw, borrowed (see the [module docs](self) for the conventions).
/// All arrays have one entry per splat.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SplatsRef<'a> {
    /// Centres, world units.
    pub positions: &'a [[f32; 3]],
    /// Linear standard deviations σ along the splat's local x, y, z axes, world units (≥ 0; the
    /// `exp` of the 3DGS PLY's `scale_*`).
    pub scales: &'a [[f32; 3]],
    /// Orientations as quaternions `[w, x, y, z]` (the 3DGS PLY's `rot_0..3`), any non-zero
    /// length: they are normalised.
    pub rotations: &'a [[f32; 4]],
    /// Colours as the viewer uses them: display (sRGB-encoded) values `0..=1`, e.g.
    /// `clip(0.5 + C0·f_dc, 0, 1)` or the `.splat` bytes / 255; blended without linearisation.
    /// Values outside `0..=1` are clamped.
    pub colours: &'a [[f32; 3]],
    /// Opacities `0..=1` (after the sigmoid; the `.splat` alpha byte / 255).
    pub opacities: &'a [f32],
}

/// Parameters of [`render_splats`]; the defaults are the viewer's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SplatParams {
    /// Display colour (`0..=1`) behind the splats. Default [`VIEWER_BACKGROUND`].
    pub background: [f32; 3],
    /// Low-pass term added to both diagonal entries of the screen covariance, output px² (≥ 0).
    /// Default [`VIEWER_DILATION_PX2`].
    pub dilation_px2: f64,
    /// Footprint radius in σ (Mahalanobis distance, > 0). Default [`VIEWER_CUTOFF_SIGMA`].
    pub cutoff_sigma: f64,
    /// Samples with a smaller alpha are skipped, `0..1`. Default [`VIEWER_MIN_ALPHA`].
    pub min_alpha: f64,
    /// Samples per pixel per axis (ordered grid, box filter), 1..=4. Default 1 (as the viewer).
    pub supersample: u32,
}

impl Default for SplatParams {
    fn default() -> Self {
        Self {
            background: VIEWER_BACKGROUND,
            dilation_px2: VIEWER_DILATION_PX2,
            cutoff_sigma: VIEWER_CUTOFF_SIGMA,
            min_alpha: VIEWER_MIN_ALPHA,
            supersample: 1,
        }
    }
}

/// One splat on screen, in sample units.
#[derive(Debug, Clone, Copy, Default)]
struct Footprint {
    /// Centre.
    cx: f32,
    cy: f32,
    /// `r² = qa·dx² + 2·qb·dx·dy + qc·dy²` (half-axis units).
    qa: f32,
    qb: f32,
    qc: f32,
    /// Largest covered `r²`.
    r2max: f32,
    opacity: f32,
    colour: [f32; 3],
    /// Eye distance of the centre.
    dist: f32,
    /// Inclusive sample bounds.
    x0: u32,
    x1: u32,
    y0: u32,
    y1: u32,
}

/// Renders `splats` from `view` (see the [module docs](self)): a background-filled image with
/// the splats composited in depth order, and per pixel the distance where the splats become
/// half opaque.
///
/// # Errors
///
/// [`RasterError`] for a bad view, an empty cloud, mismatched or non-finite attributes, or
/// parameters out of range; see the [module docs](self).
pub fn render_splats(view: &View, splats: &SplatsRef<'_>, params: &SplatParams) -> Result<RasterFrame, RasterError> {
    let (t, s, _inv) = check_view(view, params.supersample)?;
    check_params(params)?;
    let n = check_splats(splats)?;
    let (sw, sh) = (t.sw, t.sh);
    let fs = s as f64;

    // 1. Project every splat (parallel, in index order).
    let k2 = fs * fs;
    let consts = Consts {
        m: view.view_proj,
        eye: view.eye,
        sw: sw as f64,
        sh: sh as f64,
        dilation: params.dilation_px2 * k2,
        disc_floor: DISC_FLOOR * k2 * k2,
        minor_floor: MINOR_FLOOR * k2,
        major_cull: MAJOR_CULL * k2,
        axis_cap: AXIS_CAP * fs,
        r2max: 0.5 * params.cutoff_sigma * params.cutoff_sigma,
        min_alpha: params.min_alpha,
    };
    let projected: Vec<Option<(f64, Footprint)>> = (0..n).into_par_iter().map(|i| consts.project(splats, i)).collect();

    // 2. Sort front to back: NDC depth ascending, ties by index descending (the reverse of the
    //    viewer's far-to-near order, stable by index). Keys: the depth's bits made monotonic,
    //    then the complemented index.
    let mut order: Vec<(u64, u32)> = projected
        .par_iter()
        .enumerate()
        .filter_map(|(i, p)| p.as_ref().map(|(z, _)| (monotonic(*z), !(i as u32))))
        .collect();
    order.par_sort_unstable();
    let fp: Vec<Footprint> = order
        .par_iter()
        .map(|&(_, i)| projected[!i as usize].as_ref().map_or_else(Footprint::default, |p| p.1))
        .collect();
    drop(projected);

    // 3. Bin into bands of sample rows, chunk by chunk (each chunk's lists in sorted order).
    let (w, h) = (view.width as usize, view.height as usize);
    let band_samples = BAND_ROWS * s;
    let bands = h.div_ceil(BAND_ROWS);
    let bins: Vec<Vec<Vec<u32>>> = fp
        .par_chunks(BIN_CHUNK)
        .enumerate()
        .map(|(c, chunk)| {
            let mut lists = vec![Vec::new(); bands];
            for (k, f) in chunk.iter().enumerate() {
                let id = (c * BIN_CHUNK + k) as u32;
                for list in &mut lists[f.y0 as usize / band_samples..=f.y1 as usize / band_samples] {
                    list.push(id);
                }
            }
            lists
        })
        .collect();

    // 4. Composite each band, then box-filter its samples into pixels.
    let bg = params.background;
    let mut image = Rgb8Image::new(w, h);
    let mut distance = vec![f32::INFINITY; w * h];
    let inv_n = 1.0 / (s * s) as f32;
    image.data.par_chunks_mut(w * 3 * BAND_ROWS).zip(distance.par_chunks_mut(w * BAND_ROWS)).enumerate().for_each(
        |(band, (rows, drows))| {
            let y_lo = band * band_samples;
            let y_hi = (y_lo + band_samples).min(sh);
            let ns = (y_hi - y_lo) * sw;
            let mut cells = vec![Sample { colour: [0.0; 3], trans: 1.0, half: f32::INFINITY }; ns];
            let min_alpha = consts.min_alpha as f32;
            for lists in &bins {
                for &id in &lists[band] {
                    let f = &fp[id as usize];
                    let (ya, yb) = ((f.y0 as usize).max(y_lo), (f.y1 as usize).min(y_hi - 1));
                    for y in ya..=yb {
                        let dy = y as f32 + 0.5 - f.cy;
                        // The ellipse's span on this row: qa·dx² + 2·qb·dy·dx + qc·dy² ≤ r2max
                        // (the test below repeats it per sample, so rounding here only matters
                        // at the very rim).
                        let (bq, cq) = (f.qb * dy, f.qc * dy * dy - f.r2max);
                        let disc = bq * bq - f.qa * cq;
                        if disc < 0.0 {
                            continue;
                        }
                        let root = disc.sqrt();
                        let (lo, hi) = ((-bq - root) / f.qa + f.cx - 0.5, (-bq + root) / f.qa + f.cx - 0.5);
                        let xa = (lo.ceil().max(f.x0 as f32)) as usize;
                        let xb = (hi.floor().min(f.x1 as f32)) as usize;
                        if xa > xb {
                            continue;
                        }
                        let row = (y - y_lo) * sw;
                        let (ry, cy2) = (2.0 * f.qb * dy, f.qc * dy * dy);
                        let mut dx = xa as f32 + 0.5 - f.cx;
                        for cell in &mut cells[row + xa..=row + xb] {
                            let (x, tr) = (dx, cell.trans);
                            dx += 1.0;
                            if tr < T_STOP {
                                continue;
                            }
                            let r2 = (f.qa * x + ry) * x + cy2;
                            if r2 > f.r2max {
                                continue;
                            }
                            let a = f.opacity * exp_neg(r2);
                            if a < min_alpha {
                                continue;
                            }
                            let wgt = tr * a;
                            for (c, v) in cell.colour.iter_mut().zip(f.colour) {
                                *c += wgt * v;
                            }
                            let tn = tr * (1.0 - a);
                            cell.trans = tn;
                            if tn <= 0.5 && tr > 0.5 {
                                cell.half = f.dist;
                            }
                        }
                    }
                }
            }
            let out_rows = rows.len() / (w * 3);
            for py in 0..out_rows {
                for px in 0..w {
                    let mut sum = [0.0f32; 3];
                    let mut d = f32::INFINITY;
                    for j in 0..s {
                        for i in 0..s {
                            let k = (py * s + j) * sw + px * s + i;
                            let cell = &cells[k];
                            for c in 0..3 {
                                sum[c] += cell.colour[c] + cell.trans * bg[c];
                            }
                            d = d.min(cell.half);
                        }
                    }
                    for c in 0..3 {
                        rows[(py * w + px) * 3 + c] = ((sum[c] * inv_n).clamp(0.0, 1.0) * 255.0).round() as u8;
                    }
                    drows[py * w + px] = d;
                }
            }
        },
    );
    Ok(RasterFrame { image, distance })
}

/// What a sample has gathered so far (front to back).
#[derive(Debug, Clone, Copy)]
struct Sample {
    /// `Σ T·α·colour`.
    colour: [f32; 3],
    /// Transmittance `T`.
    trans: f32,
    /// Eye distance of the splat that took `T` to ½ or below (+∞ until then).
    half: f32,
}

/// The projection constants of one frame, in sample units.
struct Consts {
    m: [[f64; 4]; 4],
    eye: [f64; 3],
    sw: f64,
    sh: f64,
    dilation: f64,
    disc_floor: f64,
    minor_floor: f64,
    major_cull: f64,
    axis_cap: f64,
    r2max: f64,
    min_alpha: f64,
}

impl Consts {
    /// Splat `i` on screen with its NDC depth, or `None` when it is not drawn.
    fn project(&self, sp: &SplatsRef<'_>, i: usize) -> Option<(f64, Footprint)> {
        let m = &self.m;
        let p = sp.positions[i].map(f64::from);
        let clip: [f64; 4] = std::array::from_fn(|r| m[0][r] * p[0] + m[1][r] * p[1] + m[2][r] * p[2] + m[3][r]);
        let w = clip[3];
        if !(w > 0.0 && clip[2] >= -w && clip[2] <= w) {
            return None;
        }
        let (xn, yn, zn) = (clip[0] / w, clip[1] / w, clip[2] / w);
        let cx = (xn + 1.0) * 0.5 * self.sw;
        let cy = (1.0 - yn) * 0.5 * self.sh;
        // Jacobian rows of the world → sample mapping, the centre clamped to ±1.3 NDC.
        let (tx, ty) = (xn.clamp(-JACOBIAN_CLAMP, JACOBIAN_CLAMP), yn.clamp(-JACOBIAN_CLAMP, JACOBIAN_CLAMP));
        let ja: [f64; 3] = std::array::from_fn(|c| 0.5 * self.sw * (m[c][0] - tx * m[c][3]) / w);
        let jb: [f64; 3] = std::array::from_fn(|c| -0.5 * self.sh * (m[c][1] - ty * m[c][3]) / w);
        // M = R·S; J·Σ·Jᵀ = (J·M)(J·M)ᵀ.
        let r = rotation(sp.rotations[i]);
        let sc = sp.scales[i].map(f64::from);
        let ma: [f64; 3] = std::array::from_fn(|k| (ja[0] * r[0][k] + ja[1] * r[1][k] + ja[2] * r[2][k]) * sc[k]);
        let mb: [f64; 3] = std::array::from_fn(|k| (jb[0] * r[0][k] + jb[1] * r[1][k] + jb[2] * r[2][k]) * sc[k]);
        let a = dot(ma, ma) + self.dilation;
        let b = dot(ma, mb);
        let c = dot(mb, mb) + self.dilation;
        if !(a.is_finite() && b.is_finite() && c.is_finite()) {
            return None;
        }
        // The viewer's eigen-decomposition, floors included.
        let mid = 0.5 * (a + c);
        let rad = (mid * mid - (a * c - b * b)).max(self.disc_floor).sqrt();
        let l1 = mid + rad;
        let l2 = (mid - rad).max(self.minor_floor);
        if l1 < self.major_cull {
            return None;
        }
        let dir = if b.abs() > 1e-9 {
            let (u, v) = (b, l1 - a);
            let len = (u * u + v * v).sqrt();
            [u / len, v / len]
        } else if a >= c {
            [1.0, 0.0]
        } else {
            [0.0, 1.0]
        };
        let ax = (2.0 * l1).sqrt().min(self.axis_cap);
        let bx = (2.0 * l2).sqrt().min(self.axis_cap);
        // r² = ((d·dir)/ax)² + ((d·perp)/bx)², perp = (−dir.y, dir.x).
        let (ia, ib) = (1.0 / (ax * ax), 1.0 / (bx * bx));
        let qa = dir[0] * dir[0] * ia + dir[1] * dir[1] * ib;
        let qb = dir[0] * dir[1] * (ia - ib);
        let qc = dir[1] * dir[1] * ia + dir[0] * dir[0] * ib;
        // Where r² ≤ r2max can still reach min_alpha.
        let opacity = f64::from(sp.opacities[i]);
        if opacity < self.min_alpha {
            return None;
        }
        let r2max = self.r2max.min((opacity / self.min_alpha).ln());
        let rr = r2max.sqrt();
        let ex = rr * (ax * ax * dir[0] * dir[0] + bx * bx * dir[1] * dir[1]).sqrt();
        let ey = rr * (ax * ax * dir[1] * dir[1] + bx * bx * dir[0] * dir[0]).sqrt();
        // Sample centres k + ½ inside [c − e, c + e].
        let x0 = (cx - ex - 0.5).ceil().max(0.0);
        let x1 = (cx + ex - 0.5).floor().min(self.sw - 1.0);
        let y0 = (cy - ey - 0.5).ceil().max(0.0);
        let y1 = (cy + ey - 0.5).floor().min(self.sh - 1.0);
        if !(x0 <= x1 && y0 <= y1) {
            return None;
        }
        let d = [p[0] - self.eye[0], p[1] - self.eye[1], p[2] - self.eye[2]];
        let fp = Footprint {
            cx: cx as f32,
            cy: cy as f32,
            qa: qa as f32,
            qb: qb as f32,
            qc: qc as f32,
            r2max: r2max as f32,
            opacity: opacity as f32,
            colour: sp.colours[i].map(|v| v.clamp(0.0, 1.0)),
            dist: dot(d, d).sqrt() as f32,
            x0: x0 as u32,
            x1: x1 as u32,
            y0: y0 as u32,
            y1: y1 as u32,
        };
        Some((zn, fp))
    }
}

/// `exp(−x)` for `x ≥ 0` in `f32`, as `2^(−x·log₂e)`: the nearest integer power in the exponent
/// bits, the remaining `2^f`, `|f| ≤ ½`, by its degree-6 Taylor polynomial (relative error about
/// 10⁻⁷, far under a byte's 1/255); 0 past `x = 87`.
#[inline]
fn exp_neg(x: f32) -> f32 {
    if x >= 87.0 {
        return 0.0;
    }
    let t = -x * std::f32::consts::LOG2_E;
    let i = (t + 0.5).floor();
    let f = t - i; // −½ ≤ f < ½
                   // 2^f, Taylor coefficients of e^(f·ln 2).
    let p = 1.0
        + f * (std::f32::consts::LN_2
            + f * (0.240_226_5 + f * (0.055_504_11 + f * (0.009_618_129 + f * (0.001_333_355 + f * 0.000_154_035_3)))));
    p * f32::from_bits(((i as i32 + 127) << 23) as u32)
}

/// The bits of `v` as an integer ordered like `v` (negative values complemented).
#[inline]
fn monotonic(v: f64) -> u64 {
    let b = v.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

#[inline]
fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Rotation matrix (`r[row][col]`) of a non-zero quaternion `[w, x, y, z]`, normalised.
fn rotation(q: [f32; 4]) -> [[f64; 3]; 3] {
    let q = q.map(f64::from);
    let l = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    let (w, x, y, z) = (q[0] / l, q[1] / l, q[2] / l, q[3] / l);
    [
        [1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y)],
        [2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x)],
        [2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y)],
    ]
}

fn check_params(p: &SplatParams) -> Result<(), RasterError> {
    if !p.background.iter().all(|c| c.is_finite() && (0.0..=1.0).contains(c)) {
        return Err(param("background", p.background, "must be display values in 0..=1"));
    }
    if !(p.dilation_px2.is_finite() && p.dilation_px2 >= 0.0) {
        return Err(param("dilation_px2", p.dilation_px2, "must be finite and ≥ 0"));
    }
    if !(p.cutoff_sigma.is_finite() && p.cutoff_sigma > 0.0) {
        return Err(param("cutoff_sigma", p.cutoff_sigma, "must be finite and > 0"));
    }
    if !(p.min_alpha.is_finite() && (0.0..1.0).contains(&p.min_alpha)) {
        return Err(param("min_alpha", p.min_alpha, "must be in 0..1"));
    }
    Ok(())
}

/// Lengths and values of the splat arrays; returns the count.
fn check_splats(sp: &SplatsRef<'_>) -> Result<usize, RasterError> {
    let n = sp.positions.len();
    if n == 0 {
        return Err(RasterError::Empty("splat cloud"));
    }
    if n >= u32::MAX as usize {
        return Err(RasterError::TooMany { what: "splats", count: n, max: u32::MAX as usize - 1 });
    }
    for (attribute, len) in [
        ("scales", sp.scales.len()),
        ("rotations", sp.rotations.len()),
        ("colours", sp.colours.len()),
        ("opacities", sp.opacities.len()),
    ] {
        if len != n {
            return Err(RasterError::AttributeLength { attribute, len, positions: n });
        }
    }
    let fin3 = |v: &[f32; 3]| v[0].is_finite() & v[1].is_finite() & v[2].is_finite();
    if let Some(i) = first_bad(sp.positions, fin3) {
        return Err(RasterError::NonFinitePosition { index: i, value: sp.positions[i].map(f64::from) });
    }
    let bad = |attribute: &'static str, index: usize, value: String, why: &'static str| RasterError::BadSplat {
        attribute,
        index,
        value,
        why,
    };
    if let Some(i) = first_bad(sp.scales, |v| fin3(v) & (v[0] >= 0.0) & (v[1] >= 0.0) & (v[2] >= 0.0)) {
        return Err(bad("scales", i, format!("{:?}", sp.scales[i]), "must be finite and ≥ 0"));
    }
    if let Some(i) = first_bad(sp.rotations, |q| {
        let l = q.iter().map(|&c| f64::from(c) * f64::from(c)).sum::<f64>();
        l.is_finite() & (l > 0.0)
    }) {
        return Err(bad("rotations", i, format!("{:?}", sp.rotations[i]), "must be a finite, non-zero quaternion"));
    }
    if let Some(i) = first_bad(sp.colours, fin3) {
        return Err(bad("colours", i, format!("{:?}", sp.colours[i]), "must be finite"));
    }
    if let Some(i) = first_bad(sp.opacities, |a| (0.0..=1.0).contains(a)) {
        return Err(bad("opacities", i, format!("{:?}", sp.opacities[i]), "must be in 0..=1"));
    }
    Ok(n)
}

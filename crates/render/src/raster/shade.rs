//! Shading and resolve: colour-space conversion, the sky, the sun's shadow map, Lambert
//! lighting of mesh samples, and the box-filtered resolve of samples into pixels.
//!
//! The resolve visits each pixel's `s × s` samples, groups them by primitive id, shades each
//! distinct primitive once (at its first sample, which lies inside it) and averages in linear
//! light with weights `count / s²`; samples that hit nothing take the sky colour of the pixel's
//! view ray. Output is sRGB-encoded through a 14-bit table.

use super::pipeline::{draw_triangles, transform, transform4, transform_all, Mat4, Target, CLIP};
use super::scratch::Pool;
use super::{Fog, Shadows, Sky};
use crate::image::Rgb8Image;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::OnceLock;

/// The sRGB decoding of a byte (IEC 61966-2-1).
fn decode(u: u8) -> f64 {
    srgb_decode(u as f64 / 255.0)
}

/// The sRGB decoding of an encoded value in `[0, 1]` (IEC 61966-2-1).
pub(crate) fn srgb_decode(c: f64) -> f64 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        libm::pow((c + 0.055) / 1.055, 2.4)
    }
}

fn encode(l: f64) -> f64 {
    if l <= 0.0031308 {
        12.92 * l
    } else {
        1.055 * libm::pow(l, 1.0 / 2.4) - 0.055
    }
}

const ENC_STEPS: usize = 16384;

fn decode_lut() -> &'static [f32; 256] {
    static LUT: OnceLock<[f32; 256]> = OnceLock::new();
    LUT.get_or_init(|| std::array::from_fn(|i| decode(i as u8) as f32))
}

fn encode_lut() -> &'static [u8] {
    static LUT: OnceLock<Vec<u8>> = OnceLock::new();
    LUT.get_or_init(|| {
        (0..=ENC_STEPS).map(|i| (encode(i as f64 / ENC_STEPS as f64) * 255.0).round().clamp(0.0, 255.0) as u8).collect()
    })
}

/// Linear value of an sRGB byte.
#[inline]
pub(crate) fn to_linear(u: u8) -> f64 {
    decode_lut()[u as usize] as f64
}

/// Linear colour of an sRGB triple.
#[inline]
pub(crate) fn rgb_to_linear(c: [u8; 3]) -> [f64; 3] {
    [to_linear(c[0]), to_linear(c[1]), to_linear(c[2])]
}

/// sRGB byte of a linear value (clamped to `[0, 1]`).
#[inline]
pub(crate) fn to_srgb8(l: f64) -> u8 {
    let i = (l.clamp(0.0, 1.0) * ENC_STEPS as f64 + 0.5) as usize;
    encode_lut()[i.min(ENC_STEPS)]
}

#[inline]
pub(crate) fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[inline]
pub(crate) fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[inline]
pub(crate) fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

#[inline]
pub(crate) fn scale(a: [f64; 3], s: f64) -> [f64; 3] {
    [a[0] * s, a[1] * s, a[2] * s]
}

/// `a` over its length, or `None` for a (near-)zero vector.
#[inline]
pub(crate) fn normalise(a: [f64; 3]) -> Option<[f64; 3]> {
    let l = dot(a, a).sqrt();
    (l > 1e-300 && l.is_finite()).then(|| scale(a, 1.0 / l))
}

#[inline]
fn mix(a: [f64; 3], b: [f64; 3], t: f64) -> [f64; 3] {
    [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t]
}

/// The sky gradient in linear light, and the view rays it is looked up with.
///
/// The world direction of the ray through NDC `(x, y)` is affine in `(x, y)` before
/// normalising: with `c = inv · (0, 0, 1, 0)` the centre of projection and
/// `q = inv · (x, y, 0, 1)`, it is `±(q.xyz · c.w − q.w · c.xyz)`, for perspective and
/// orthographic views alike. The three terms are found once per frame.
pub(crate) struct SkyShader {
    zenith: [f64; 3],
    horizon: [f64; 3],
    ground: [f64; 3],
    up: [f64; 3],
    /// Ray direction = `x · dx + y · dy + d0` (unnormalised).
    dx: [f64; 3],
    dy: [f64; 3],
    d0: [f64; 3],
    /// sRGB bytes by `t = √|sin elevation|` in [`SKY_STEPS`] steps: above the horizon, then below.
    srgb: Vec<[u8; 3]>,
}

/// Steps of the sky's sRGB table (a step changes the colour by under a quarter of a level).
const SKY_STEPS: usize = 1024;

impl SkyShader {
    pub fn new(sky: &Sky, up: [f64; 3], inv: Mat4) -> Self {
        let c = transform4(&inv, [0.0, 0.0, 1.0, 0.0]);
        let term = |q: [f64; 4]| [q[0] * c[3] - q[3] * c[0], q[1] * c[3] - q[3] * c[1], q[2] * c[3] - q[3] * c[2]];
        let o = transform4(&inv, [0.0, 0.0, 0.0, 1.0]);
        let (mut dx, mut dy, mut d0) =
            (term(transform4(&inv, [1.0, 0.0, 0.0, 0.0])), term(transform4(&inv, [0.0, 1.0, 0.0, 0.0])), term(o));
        if dot(d0, ray(&inv, 0.0, 0.0)) < 0.0 {
            (dx, dy, d0) = (scale(dx, -1.0), scale(dy, -1.0), scale(d0, -1.0));
        }
        let (zenith, horizon, ground) =
            (rgb_to_linear(sky.zenith), rgb_to_linear(sky.horizon), rgb_to_linear(sky.ground));
        let srgb = [zenith, ground]
            .iter()
            .flat_map(|&end| (0..=SKY_STEPS).map(move |i| mix(horizon, end, i as f64 / SKY_STEPS as f64).map(to_srgb8)))
            .collect();
        Self { zenith, horizon, ground, up, dx, dy, d0, srgb }
    }

    /// `(sin elevation)` of the view ray through NDC `(x, y)`.
    #[inline]
    pub(crate) fn sin_elevation(&self, x: f64, y: f64) -> f64 {
        let d: [f64; 3] = std::array::from_fn(|k| x * self.dx[k] + y * self.dy[k] + self.d0[k]);
        let l = dot(d, d).sqrt();
        if l > 0.0 {
            (dot(d, self.up) / l).clamp(-1.0, 1.0)
        } else {
            0.0
        }
    }

    /// Linear sky colour seen through NDC `(x, y)`: horizon to zenith above the horizon,
    /// horizon to ground below, blended by `√|sin elevation|`.
    #[inline]
    pub fn colour_at(&self, x: f64, y: f64) -> [f64; 3] {
        let e = self.sin_elevation(x, y);
        if e >= 0.0 {
            mix(self.horizon, self.zenith, e.sqrt())
        } else {
            mix(self.horizon, self.ground, (-e).sqrt())
        }
    }

    /// [`Self::srgb_at`] for every pixel of a row: `out[px]` for NDC `x = (px + ½)/w · 2 − 1`
    /// with `w = out.len()`, at NDC `y`. The same arithmetic, so the same bytes, in branch-free
    /// passes over `scratch` that the compiler vectorises.
    pub fn srgb_row(&self, y: f64, out: &mut [[u8; 3]], scratch: &mut Vec<f64>) {
        let w = out.len() as f64;
        let ydy = self.dy.map(|v| y * v);
        scratch.clear();
        scratch.extend((0..out.len()).map(|px| {
            let x = (px as f64 + 0.5) / w * 2.0 - 1.0;
            let d: [f64; 3] = std::array::from_fn(|k| x * self.dx[k] + ydy[k] + self.d0[k]);
            let l = dot(d, d).sqrt();
            let e = (dot(d, self.up) / l).clamp(-1.0, 1.0);
            // l = 0 gives NaN above: the zero elevation of [`Self::sin_elevation`].
            if l > 0.0 {
                e
            } else {
                0.0
            }
        }));
        for (o, &e) in out.iter_mut().zip(scratch.iter()) {
            let i = (e.abs().sqrt() * SKY_STEPS as f64 + 0.5) as usize;
            *o = self.srgb[i.min(SKY_STEPS) + if e < 0.0 { SKY_STEPS + 1 } else { 0 }];
        }
    }

    /// [`Self::colour_at`] as sRGB bytes, from the table.
    #[inline]
    pub fn srgb_at(&self, x: f64, y: f64) -> [u8; 3] {
        let e = self.sin_elevation(x, y);
        let i = (e.abs().sqrt() * SKY_STEPS as f64 + 0.5) as usize;
        self.srgb[i.min(SKY_STEPS) + if e < 0.0 { SKY_STEPS + 1 } else { 0 }]
    }
}

/// Unit direction of the view ray through NDC `(x, y)` (near plane to far plane), for the
/// inverse view-projection `inv`.
pub(crate) fn ray(inv: &Mat4, x: f64, y: f64) -> [f64; 3] {
    let a = transform4(inv, [x, y, -1.0, 1.0]);
    let b = transform4(inv, [x, y, 1.0, 1.0]);
    let pa = [a[0] / a[3], a[1] / a[3], a[2] / a[3]];
    let pb = [b[0] / b[3], b[1] / b[3], b[2] / b[3]];
    normalise(sub(pb, pa)).unwrap_or([0.0, 0.0, -1.0])
}

/// The direction from a world point back towards the viewer, from the centre of projection:
/// the homogeneous point `c = inv · (0, 0, 1, 0)` that every view ray passes through (the eye
/// for a perspective view, a point at infinity for an orthographic one). The direction at `p`
/// is `±(c.xyz − p·c.w)`, the sign fixed once so it points against the view rays.
pub(crate) struct EyeDir {
    c: [f64; 4],
}

impl EyeDir {
    pub fn new(inv: &Mat4) -> Self {
        let mut c = transform4(inv, [0.0, 0.0, 1.0, 0.0]);
        let m = transform4(inv, [0.0, 0.0, 0.0, 1.0]);
        let mid = [m[0] / m[3], m[1] / m[3], m[2] / m[3]];
        let back = [c[0] - mid[0] * c[3], c[1] - mid[1] * c[3], c[2] - mid[2] * c[3]];
        if dot(back, ray(inv, 0.0, 0.0)) > 0.0 {
            c = c.map(|v| -v);
        }
        Self { c }
    }

    /// Towards the viewer from `p` (not normalised).
    #[inline]
    pub fn at(&self, p: [f64; 3]) -> [f64; 3] {
        let c = &self.c;
        [c[0] - p[0] * c[3], c[1] - p[1] * c[3], c[2] - p[2] * c[3]]
    }
}

/// A depth map of the scene seen from the sun along an orthographic view fit to the scene's
/// bounds.
pub(crate) struct ShadowMap {
    m: Mat4,
    res: usize,
    /// Nearest-to-the-sun depth per texel as `f32` bits (0 = nothing).
    depth: Vec<AtomicU32>,
    /// Normal offset and depth bias in world units.
    bias: f64,
    /// `bias` in the map's depth units.
    bias_d: f64,
    pcf: i64,
}

impl ShadowMap {
    /// Renders the map; `sun` is the unit direction towards the sun.
    pub fn build(
        n: usize,
        pos: impl Fn(usize) -> [f64; 3] + Sync,
        indices: &[u32],
        sun: [f64; 3],
        p: &Shadows,
    ) -> Self {
        // An orthonormal frame (u, v, sun).
        let helper = if sun[0].abs() < 0.9 { [1.0, 0.0, 0.0] } else { [0.0, 1.0, 0.0] };
        let u = normalise(cross(helper, sun)).unwrap_or([1.0, 0.0, 0.0]);
        let v = cross(sun, u);
        let init = (f64::INFINITY, f64::NEG_INFINITY);
        let fold = |a: [(f64, f64); 3], q: [f64; 3]| {
            let (pu, pv, ps) = (dot(q, u), dot(q, v), dot(q, sun));
            [(a[0].0.min(pu), a[0].1.max(pu)), (a[1].0.min(pv), a[1].1.max(pv)), (a[2].0.min(ps), a[2].1.max(ps))]
        };
        let r = (0..n).into_par_iter().fold(|| [init; 3], |a, i| fold(a, pos(i))).reduce(
            || [init; 3],
            |a, b| {
                [
                    (a[0].0.min(b[0].0), a[0].1.max(b[0].1)),
                    (a[1].0.min(b[1].0), a[1].1.max(b[1].1)),
                    (a[2].0.min(b[2].0), a[2].1.max(b[2].1)),
                ]
            },
        );
        let ext = (r[0].1 - r[0].0).max(r[1].1 - r[1].0).max(r[2].1 - r[2].0);
        let pad = 0.01 * ext + 1e-9 * (1.0 + r[0].0.abs().max(r[1].0.abs()).max(r[2].0.abs()));
        let half = 0.5 * (r[0].1 - r[0].0).max(r[1].1 - r[1].0) + pad;
        let (cu, cv) = (0.5 * (r[0].0 + r[0].1), 0.5 * (r[1].0 + r[1].1));
        let (smin, smax) = (r[2].0 - pad, r[2].1 + pad);
        let srange = smax - smin;
        // x = (p·u − cu)/half, y = (p·v − cv)/half, z = −(2 p·s − smax − smin)/srange.
        let mut m = [[0.0; 4]; 4];
        for c in 0..3 {
            m[c][0] = u[c] / half;
            m[c][1] = v[c] / half;
            m[c][2] = -2.0 * sun[c] / srange;
        }
        m[3] = [-cu / half, -cv / half, (smax + smin) / srange, 1.0];
        let res = p.resolution as usize;
        let t = Target { sw: res, sh: res };
        let clip = transform_all(&m, n, pos);
        let mut depth = DEPTH.take();
        (0..res * res).into_par_iter().map(|_| AtomicU32::new(0)).collect_into_vec(&mut depth);
        draw_triangles(&clip, indices, &t, false, |x, y, d, _| {
            let cell = &depth[y * res + x];
            let k = d.to_bits();
            if k > cell.load(Relaxed) {
                cell.fetch_max(k, Relaxed);
            }
        });
        CLIP.give(clip);
        let texel = 2.0 * half / res as f64;
        let bias = texel * p.bias_texels;
        Self { m, res, depth, bias, bias_d: bias * 2.0 / srange, pcf: p.pcf_radius as i64 }
    }

    /// Fraction of the PCF taps around `p` (a surface point with unit normal `n` facing the
    /// viewer) that see the sun.
    pub fn lit(&self, p: [f64; 3], n: [f64; 3]) -> f64 {
        let q = [p[0] + n[0] * self.bias, p[1] + n[1] * self.bias, p[2] + n[2] * self.bias];
        let c = transform(&self.m, q);
        let res = self.res as f64;
        let tx = ((c[0] + 1.0) * 0.5 * res).floor();
        let ty = ((1.0 - c[1]) * 0.5 * res).floor();
        if !(tx.is_finite() && ty.is_finite()) {
            return 1.0;
        }
        let d = 1.0 - c[2] + self.bias_d;
        let (tx, ty) = (tx as i64, ty as i64);
        let (mut lit, mut taps) = (0u32, 0u32);
        for j in -self.pcf..=self.pcf {
            for i in -self.pcf..=self.pcf {
                let (x, y) = (tx + i, ty + j);
                taps += 1;
                let outside = x < 0 || y < 0 || x >= self.res as i64 || y >= self.res as i64;
                if outside || d >= f32::from_bits(self.depth[y as usize * self.res + x as usize].load(Relaxed)) as f64 {
                    lit += 1;
                }
            }
        }
        lit as f64 / taps as f64
    }
}

/// Everything the mesh shading needs, borrowed from the caller or built per frame.
pub(crate) struct MeshShader<'a, P: Fn(usize) -> [f64; 3] + Sync> {
    pub pos: P,
    pub normals: Option<&'a [[f32; 3]]>,
    pub colours: Option<&'a [[u8; 3]]>,
    pub indices: &'a [u32],
    pub clip: &'a [[f64; 4]],
    pub to_eye: EyeDir,
    pub smooth: bool,
    pub eye: [f64; 3],
    pub up: [f64; 3],
    pub sun: [f64; 3],
    pub sun_colour: [f64; 3],
    pub sky_light: [f64; 3],
    pub ground_light: [f64; 3],
    pub albedo: [f64; 3],
    pub shadow: Option<ShadowMap>,
    pub fog: Option<(Fog, [f64; 3])>,
}

impl<P: Fn(usize) -> [f64; 3] + Sync> MeshShader<'_, P> {
    /// Linear colour and eye distance of triangle `tri` at NDC `(x, y)`.
    pub fn shade(&self, tri: u32, x: f64, y: f64) -> ([f64; 3], f64) {
        let k = 3 * tri as usize;
        let idx = [self.indices[k] as usize, self.indices[k + 1] as usize, self.indices[k + 2] as usize];
        // Perspective-correct barycentrics from 2-D homogeneous coordinates (x, y, w): the
        // weights of the original (unclipped) triangle at the pixel's ray.
        let h = idx.map(|i| [self.clip[i][0], self.clip[i][1], self.clip[i][3]]);
        let p = [x, y, 1.0];
        let l = [dot(p, cross(h[1], h[2])), dot(p, cross(h[2], h[0])), dot(p, cross(h[0], h[1]))];
        let sum = l[0] + l[1] + l[2];
        let b = if sum != 0.0 && sum.is_finite() { [l[0] / sum, l[1] / sum, l[2] / sum] } else { [1.0 / 3.0; 3] };
        let v = idx.map(|i| (self.pos)(i));
        let mut world = [0.0; 3];
        for c in 0..3 {
            world[c] = b[0] * v[0][c] + b[1] * v[1][c] + b[2] * v[2][c];
        }
        let dist = dot(sub(world, self.eye), sub(world, self.eye)).sqrt();
        let mut ng = normalise(cross(sub(v[1], v[0]), sub(v[2], v[0]))).unwrap_or(self.up);
        if dot(ng, self.to_eye.at(world)) < 0.0 {
            ng = scale(ng, -1.0);
        }
        let n = match (self.smooth, self.normals) {
            (true, Some(nr)) => {
                let mut s = [0.0; 3];
                for (bi, &i) in b.iter().zip(&idx) {
                    for c in 0..3 {
                        s[c] += bi * nr[i][c] as f64;
                    }
                }
                match normalise(s) {
                    Some(s) if dot(s, ng) < 0.0 => scale(s, -1.0),
                    Some(s) => s,
                    None => ng,
                }
            }
            _ => ng,
        };
        let albedo = match self.colours {
            Some(cl) => {
                let mut a = [0.0; 3];
                for (bi, &i) in b.iter().zip(&idx) {
                    let lc = rgb_to_linear(cl[i]);
                    for c in 0..3 {
                        a[c] += bi * lc[c];
                    }
                }
                a
            }
            None => self.albedo,
        };
        let ndl = dot(n, self.sun).max(0.0);
        let lit = match &self.shadow {
            Some(sm) if ndl > 0.0 => sm.lit(world, ng),
            _ => 1.0,
        };
        let amb = mix(self.ground_light, self.sky_light, 0.5 + 0.5 * dot(n, self.up));
        let mut out = [0.0; 3];
        for c in 0..3 {
            out[c] = albedo[c] * (self.sun_colour[c] * ndl * lit + amb[c]);
        }
        if let Some((fog, fc)) = &self.fog {
            let f = 1.0 - libm::exp(-fog.density * (dist - fog.start).max(0.0));
            out = mix(out, *fc, f);
        }
        (out, dist)
    }
}

/// The sample key of a triangle fragment: depth bits, then the complement of the id (so on a
/// depth tie the earlier triangle wins, as in a sequential z-test). 0 means empty.
#[inline]
pub(crate) fn tri_key(d: f32, id: u32) -> u64 {
    (d.to_bits() as u64) << 32 | !id as u64
}

/// Resolves the key buffer (see [`tri_key`]; 0 = sky) into pixels: for each pixel, distinct ids among
/// its `s × s` samples are shaded once by `shade(id, ndc_x, ndc_y)` → (linear colour, eye
/// distance) and box-filtered with the sky. Returns the image and each pixel's nearest eye
/// distance (+∞ where every sample is sky).
pub(crate) fn resolve<F>(keys: &[AtomicU64], t: &Target, s: usize, sky: &SkyShader, shade: F) -> (Rgb8Image, Vec<f32>)
where
    F: Fn(u32, f64, f64) -> ([f64; 3], f64) + Sync,
{
    let (w, h) = (t.sw / s, t.sh / s);
    let mut img = Rgb8Image::new(w, h);
    // Zeroed pages, first written by the rows in parallel; every distance is set below.
    let mut dist = vec![0.0f32; w * h];
    let inv_n = 1.0 / (s * s) as f64;
    // Each worker keeps its sky row and scratch across rows.
    let rows = img.data.par_chunks_mut(w * 3).zip(dist.par_chunks_mut(w)).enumerate();
    rows.for_each_init(
        || (vec![[0u8; 3]; w], Vec::new()),
        |(sky_row, scratch), (py, (row, drow))| {
            let mut uniq = [(0u32, 0u32, 0usize, 0usize); 16];
            sky.srgb_row(1.0 - (py as f64 + 0.5) / h as f64 * 2.0, sky_row, scratch);
            for px in 0..w {
                let mut n = 0;
                let mut sky_count = 0u32;
                for j in 0..s {
                    let sy = py * s + j;
                    for i in 0..s {
                        let sx = px * s + i;
                        let key = keys[sy * t.sw + sx].load(Relaxed);
                        let id = !(key as u32);
                        if key == 0 {
                            sky_count += 1;
                        } else if let Some(u) = uniq[..n].iter_mut().find(|u| u.0 == id) {
                            u.1 += 1;
                        } else {
                            uniq[n] = (id, 1, sx, sy);
                            n += 1;
                        }
                    }
                }
                if n == 0 {
                    row[px * 3..px * 3 + 3].copy_from_slice(&sky_row[px]);
                    drow[px] = f32::INFINITY;
                    continue;
                }
                let mut acc = [0.0; 3];
                if sky_count > 0 {
                    let (cx, cy) = ((px as f64 + 0.5) / w as f64 * 2.0 - 1.0, 1.0 - (py as f64 + 0.5) / h as f64 * 2.0);
                    acc = scale(sky.colour_at(cx, cy), sky_count as f64);
                }
                let mut near = f64::INFINITY;
                for &(id, count, sx, sy) in &uniq[..n] {
                    let (x, y) = t.ndc(sx, sy);
                    let (c, d) = shade(id, x, y);
                    near = near.min(d);
                    for k in 0..3 {
                        acc[k] += c[k] * count as f64;
                    }
                }
                drow[px] = near as f32;
                for k in 0..3 {
                    row[px * 3 + k] = to_srgb8(acc[k] * inv_n);
                }
            }
        },
    );
    (img, dist)
}

/// A zeroed (empty) key buffer for a target, filled in parallel; give it back with
/// `KEYS.give`.
pub(crate) fn key_buffer(t: &Target) -> Vec<AtomicU64> {
    let mut keys = KEYS.take();
    (0..t.sw * t.sh).into_par_iter().map(|_| AtomicU64::new(0)).collect_into_vec(&mut keys);
    keys
}

/// Key buffers, kept between frames (see [`scratch`](super::scratch)).
pub(crate) static KEYS: Pool<AtomicU64> = Pool::new();
/// Shadow maps, kept between frames.
pub(crate) static DEPTH: Pool<AtomicU32> = Pool::new();

impl Drop for ShadowMap {
    fn drop(&mut self) {
        DEPTH.give(std::mem::take(&mut self.depth));
    }
}

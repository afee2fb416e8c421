//! The popping metric: how much of a frame changed in ways the camera's motion does not explain.
//!
//! Between two consecutive frames of an orbiting camera most pixels move coherently; splats that
//! appear, vanish or change order ("pop") do not. The metric undoes the motion and measures what
//! is left (the method of the original's `popping.py`, inventory §4.10):
//!
//! 1. **Luma.** Rec.709: `Y = 0.2126 R + 0.7152 G + 0.0722 B` on 0..1 values.
//! 2. **Global shift.** Phase correlation: both frames minus their means, times a separable Hann
//!    window, zero-padded to powers of two; the normalised cross-power spectrum's inverse
//!    transform peaks at the shift (refined to sub-pixel by a parabola through the peak and its
//!    neighbours). The shift `(dx, dy)` means `b(x, y) ≈ a(x − dx, y − dy)`.
//! 3. **Block motion.** Frame `b` is cut into `block × block` blocks (the last row and column of
//!    blocks take the remainder); each block searches integer offsets within a radius
//!    `max(4 + block/8, search)` of the rounded global shift for the least mean absolute
//!    difference (SAD over the pixels whose source lies inside `a`, at least half the block;
//!    ties go to the offset nearer the global shift, then to scan order).
//! 4. **Residual.** `|b(x, y) − a(x − u, y − v)|` per pixel with its block's offset `(u, v)`;
//!    **popped** where it exceeds `threshold`. A border of `|median offset| + radius` pixels
//!    (per axis) is left out, as are pixels whose source falls outside `a`.
//!
//! Scores: mean residual, its 99th percentile and the popped fraction over the measured pixels;
//! with a mask, the popped fraction inside and outside it. [`sweep`] scores every consecutive
//! pair of a sequence. Pure and deterministic: no IO, no threads.

use std::fmt;

/// A frame as Rec.709 luma, 0..1, row-major from the top-left.
#[derive(Debug, Clone, PartialEq)]
pub struct Luma {
    pub width: usize,
    pub height: usize,
    pub data: Vec<f32>,
}

impl Luma {
    /// From interleaved 8-bit pixels with `channels` bytes each (1 grey, 2 grey + alpha,
    /// 3 RGB, 4 RGBA; alpha is ignored). `None` when the length does not match.
    pub fn from_u8(width: usize, height: usize, channels: usize, px: &[u8]) -> Option<Luma> {
        if !(1..=4).contains(&channels) || px.len() != width * height * channels {
            return None;
        }
        let data = px
            .chunks_exact(channels)
            .map(|p| {
                let f = |v: u8| f32::from(v) / 255.0;
                if channels < 3 {
                    f(p[0])
                } else {
                    0.2126 * f(p[0]) + 0.7152 * f(p[1]) + 0.0722 * f(p[2])
                }
            })
            .collect();
        Some(Luma { width, height, data })
    }

    /// From a function of the pixel (column, row), for synthetic frames.
    pub fn from_fn(width: usize, height: usize, f: impl Fn(usize, usize) -> f32) -> Luma {
        let mut data = Vec::with_capacity(width * height);
        for y in 0..height {
            for x in 0..width {
                data.push(f(x, y));
            }
        }
        Luma { width, height, data }
    }

    #[inline]
    fn at(&self, x: usize, y: usize) -> f32 {
        self.data[y * self.width + x]
    }
}

/// Parameters of the metric.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PopParams {
    /// Block side in pixels (default 32).
    pub block: usize,
    /// Search radius around the global shift (default 12; at least `4 + block/8` is used).
    pub search: usize,
    /// Residual above which a pixel counts as popped, 0..1 luma (default 0.02).
    pub threshold: f64,
}

impl Default for PopParams {
    fn default() -> Self {
        PopParams { block: 32, search: 12, threshold: 0.02 }
    }
}

impl PopParams {
    /// The search radius actually used: `max(4 + block/8, search)`.
    pub fn radius(&self) -> usize {
        (4 + self.block / 8).max(self.search)
    }

    /// Checks the ranges: `block` in 4..=1024 pixels, `search` at most 256, `threshold` in
    /// (0, 1). The error ([`PopError::BadParam`]) names the parameter.
    ///
    /// # Examples
    ///
    /// ```
    /// use bozkir_render::popping::PopParams;
    ///
    /// assert!(PopParams::default().validate().is_ok());
    /// let e = PopParams { block: 2, ..PopParams::default() }.validate().unwrap_err();
    /// assert_eq!(e.to_string(), "block 2 outside 4..1024 pixels");
    /// ```
    pub fn validate(&self) -> Result<(), PopError> {
        if self.block < 4 || self.block > 1024 {
            return Err(PopError::BadParam(format!("block {} outside 4..1024 pixels", self.block)));
        }
        if self.search > 256 {
            return Err(PopError::BadParam(format!("search {} above 256 pixels", self.search)));
        }
        if !(self.threshold.is_finite() && self.threshold > 0.0 && self.threshold < 1.0) {
            return Err(PopError::BadParam(format!("threshold {} outside (0, 1)", self.threshold)));
        }
        Ok(())
    }
}

/// Why frames cannot be compared.
#[derive(Debug, Clone, PartialEq)]
pub enum PopError {
    /// The two frames differ in size.
    SizeMismatch { a: (usize, usize), b: (usize, usize), index: Option<usize> },
    /// A frame smaller than one block.
    TooSmall { size: (usize, usize), block: usize },
    /// A parameter out of range.
    BadParam(String),
    /// A mask whose length is not the frame's pixel count.
    MaskSize { len: usize, pixels: usize },
    /// Fewer than two frames in a sweep.
    TooFewFrames(usize),
    /// Every pixel fell in the border or outside the source frame.
    NothingMeasured { margin: (usize, usize) },
}

impl fmt::Display for PopError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PopError::SizeMismatch { a, b, index } => {
                let at = index.map(|i| format!(" (frames {i} and {})", i + 1)).unwrap_or_default();
                write!(f, "frames differ in size{at}: {}×{} and {}×{}", a.0, a.1, b.0, b.1)
            }
            PopError::TooSmall { size, block } => {
                write!(f, "frame {}×{} is smaller than one {block}×{block} block", size.0, size.1)
            }
            PopError::BadParam(m) => write!(f, "{m}"),
            PopError::MaskSize { len, pixels } => write!(f, "mask has {len} values for {pixels} pixels"),
            PopError::TooFewFrames(n) => write!(f, "a sweep needs at least 2 frames, got {n}"),
            PopError::NothingMeasured { margin } => write!(
                f,
                "nothing left to measure: the border of {}×{} px (motion + search) covers the frame",
                margin.0, margin.1
            ),
        }
    }
}

impl std::error::Error for PopError {}

/// One block's motion: the offset `(u, v)` with `b(x, y) ≈ a(x − u, y − v)` and its mean
/// absolute difference.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockMotion {
    /// Block column and row.
    pub bx: usize,
    pub by: usize,
    pub u: i32,
    pub v: i32,
    pub sad: f64,
}

/// The metric on one pair of frames.
#[derive(Debug, Clone, PartialEq)]
pub struct PopResult {
    /// Global shift from phase correlation (`b(x, y) ≈ a(x − dx, y − dy)`).
    pub dx: f64,
    pub dy: f64,
    /// Mean `|b − a|` with no compensation, over the measured pixels.
    pub raw_mean: f64,
    /// Mean residual after compensation, 0..1.
    pub mean: f64,
    /// 99th percentile of the residual.
    pub p99: f64,
    /// Share of measured pixels whose residual exceeds the threshold.
    pub popped: f64,
    /// Measured pixels.
    pub measured: usize,
    /// Border left out on each side, (x, y) pixels.
    pub margin: (usize, usize),
    pub width: usize,
    pub height: usize,
    /// Residual per pixel of frame `b` (0 where not measured).
    pub residual: Vec<f32>,
    /// Whether each pixel was measured.
    pub valid: Vec<bool>,
    /// Per-block motion, row-major over blocks.
    pub blocks: Vec<BlockMotion>,
    /// With a mask: popped share of the measured pixels inside and outside it.
    pub popped_inside: Option<f64>,
    pub popped_outside: Option<f64>,
}

// ------------------------------------------------------------------ FFT

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct C {
    re: f64,
    im: f64,
}

impl C {
    fn mul(self, o: C) -> C {
        C { re: self.re * o.re - self.im * o.im, im: self.re * o.im + self.im * o.re }
    }
    fn conj(self) -> C {
        C { re: self.re, im: -self.im }
    }
}

/// In-place iterative radix-2 FFT (`inverse` uses `e^{+i…}` and does not scale).
fn fft(buf: &mut [C], inverse: bool) {
    let n = buf.len();
    debug_assert!(n.is_power_of_two());
    let mut j = 0;
    for i in 1..n {
        let mut bit = n >> 1;
        while j & bit != 0 {
            j ^= bit;
            bit >>= 1;
        }
        j |= bit;
        if i < j {
            buf.swap(i, j);
        }
    }
    let sign = if inverse { 1.0 } else { -1.0 };
    let mut len = 2;
    while len <= n {
        let ang = sign * std::f64::consts::TAU / len as f64;
        let half = len / 2;
        // Twiddles computed directly (no accumulated rounding).
        let tw: Vec<C> = (0..half).map(|k| C { re: (ang * k as f64).cos(), im: (ang * k as f64).sin() }).collect();
        for start in (0..n).step_by(len) {
            for k in 0..half {
                let a = buf[start + k];
                let b = buf[start + k + half].mul(tw[k]);
                buf[start + k] = C { re: a.re + b.re, im: a.im + b.im };
                buf[start + k + half] = C { re: a.re - b.re, im: a.im - b.im };
            }
        }
        len <<= 1;
    }
}

/// 2-D FFT of a `w × h` row-major buffer (both powers of two).
fn fft2(buf: &mut [C], w: usize, h: usize, inverse: bool) {
    for row in buf.chunks_exact_mut(w) {
        fft(row, inverse);
    }
    let mut col = vec![C::default(); h];
    for x in 0..w {
        for y in 0..h {
            col[y] = buf[y * w + x];
        }
        fft(&mut col, inverse);
        for y in 0..h {
            buf[y * w + x] = col[y];
        }
    }
}

fn hann(n: usize) -> Vec<f64> {
    if n < 2 {
        return vec![1.0; n];
    }
    (0..n).map(|i| 0.5 - 0.5 * (std::f64::consts::TAU * i as f64 / (n - 1) as f64).cos()).collect()
}

/// Global shift of `b` against `a` by Hann-windowed phase correlation: `b(x) ≈ a(x − d)`.
pub fn phase_correlation(a: &Luma, b: &Luma) -> (f64, f64) {
    let (w, h) = (a.width, a.height);
    let (pw, ph) = (w.next_power_of_two(), h.next_power_of_two());
    let (wx, wy) = (hann(w), hann(h));
    let prep = |f: &Luma| {
        let mean = f.data.iter().map(|&v| f64::from(v)).sum::<f64>() / f.data.len().max(1) as f64;
        let mut buf = vec![C::default(); pw * ph];
        for y in 0..h {
            for x in 0..w {
                buf[y * pw + x].re = (f64::from(f.at(x, y)) - mean) * wx[x] * wy[y];
            }
        }
        fft2(&mut buf, pw, ph, false);
        buf
    };
    let fa = prep(a);
    let fb = prep(b);
    // conj(Fa)·Fb peaks at +d for b(x) = a(x − d).
    let mut r: Vec<C> = fa
        .iter()
        .zip(&fb)
        .map(|(&x, &y)| {
            let p = x.conj().mul(y);
            let m = (p.re * p.re + p.im * p.im).sqrt();
            if m > 1e-12 {
                C { re: p.re / m, im: p.im / m }
            } else {
                C::default()
            }
        })
        .collect();
    fft2(&mut r, pw, ph, true);
    let mut best = (0usize, f64::NEG_INFINITY);
    for (i, c) in r.iter().enumerate() {
        if c.re > best.1 {
            best = (i, c.re);
        }
    }
    let (px, py) = (best.0 % pw, best.0 / pw);
    let at = |x: usize, y: usize| r[(y % ph) * pw + (x % pw)].re;
    let refine = |m: f64, c: f64, p: f64| {
        let den = m - 2.0 * c + p;
        if den.abs() > 1e-12 {
            (0.5 * (m - p) / den).clamp(-0.5, 0.5)
        } else {
            0.0
        }
    };
    let c = best.1;
    let fx = refine(at(px + pw - 1, py), c, at(px + 1, py));
    let fy = refine(at(px, py + ph - 1), c, at(px, py + 1));
    let wrap = |p: usize, n: usize| if p > n / 2 { p as f64 - n as f64 } else { p as f64 };
    (wrap(px, pw) + fx, wrap(py, ph) + fy)
}

// ------------------------------------------------------------------ the metric

fn check_pair(a: &Luma, b: &Luma, p: &PopParams) -> Result<(), PopError> {
    p.validate()?;
    if (a.width, a.height) != (b.width, b.height) {
        return Err(PopError::SizeMismatch { a: (a.width, a.height), b: (b.width, b.height), index: None });
    }
    if a.width < p.block || a.height < p.block {
        return Err(PopError::TooSmall { size: (a.width, a.height), block: p.block });
    }
    Ok(())
}

/// Offset of one block by SAD search around `(gx, gy)`.
fn block_motion(a: &Luma, b: &Luma, rect: [usize; 4], g: (i32, i32), r: i32) -> (i32, i32, f64) {
    let [x0, y0, x1, y1] = rect;
    let (w, h) = (a.width as i32, a.height as i32);
    let need = ((x1 - x0) * (y1 - y0)).div_ceil(2);
    let mut best: Option<(f64, i64, i32, i32)> = None;
    for v in (g.1 - r)..=(g.1 + r) {
        for u in (g.0 - r)..=(g.0 + r) {
            // Source columns x − u and rows y − v must lie inside a.
            let xs = (x0 as i32).max(u);
            let xe = (x1 as i32).min(w + u);
            let ys = (y0 as i32).max(v);
            let ye = (y1 as i32).min(h + v);
            if xe <= xs || ye <= ys {
                continue;
            }
            let count = ((xe - xs) * (ye - ys)) as usize;
            if count < need {
                continue;
            }
            let mut sad = 0.0f64;
            for y in ys..ye {
                let rb = &b.data[y as usize * b.width..];
                let ra = &a.data[(y - v) as usize * a.width..];
                let mut s = 0.0f32;
                for x in xs..xe {
                    s += (rb[x as usize] - ra[(x - u) as usize]).abs();
                }
                sad += f64::from(s);
            }
            let sad = sad / count as f64;
            let dist = i64::from((u - g.0).abs() + (v - g.1).abs());
            let better = match best {
                None => true,
                Some((bs, bd, ..)) => sad < bs - 1e-12 || ((sad - bs).abs() <= 1e-12 && dist < bd),
            };
            if better {
                best = Some((sad, dist, u, v));
            }
        }
    }
    match best {
        Some((s, _, u, v)) => (u, v, s),
        None => (g.0, g.1, f64::INFINITY),
    }
}

fn median(mut v: Vec<i32>) -> i32 {
    v.sort_unstable();
    if v.is_empty() {
        0
    } else {
        v[v.len() / 2]
    }
}

/// Score frame `b` against the frame before it, `a` (see the module documentation). `mask`,
/// when given, is one flag per pixel of `b` (row-major): the popped share is also reported
/// inside and outside it.
pub fn compare(a: &Luma, b: &Luma, p: &PopParams, mask: Option<&[bool]>) -> Result<PopResult, PopError> {
    check_pair(a, b, p)?;
    let (w, h) = (a.width, a.height);
    if let Some(m) = mask {
        if m.len() != w * h {
            return Err(PopError::MaskSize { len: m.len(), pixels: w * h });
        }
    }
    let (dx, dy) = phase_correlation(a, b);
    let g = (dx.round() as i32, dy.round() as i32);
    let r = p.radius() as i32;
    let bs = p.block;
    let (nbx, nby) = (w / bs, h / bs);
    let mut blocks = Vec::with_capacity(nbx * nby);
    for by in 0..nby {
        for bx in 0..nbx {
            let x0 = bx * bs;
            let y0 = by * bs;
            let x1 = if bx + 1 == nbx { w } else { x0 + bs };
            let y1 = if by + 1 == nby { h } else { y0 + bs };
            let (u, v, sad) = block_motion(a, b, [x0, y0, x1, y1], g, r);
            blocks.push(BlockMotion { bx, by, u, v, sad });
        }
    }
    let mu = median(blocks.iter().map(|m| m.u).collect()).unsigned_abs() as usize;
    let mv = median(blocks.iter().map(|m| m.v).collect()).unsigned_abs() as usize;
    let margin = (mu + r as usize, mv + r as usize);
    let mut residual = vec![0.0f32; w * h];
    let mut valid = vec![false; w * h];
    let mut vals: Vec<f32> = Vec::new();
    let (mut raw, mut sum, mut popped) = (0.0f64, 0.0f64, 0usize);
    let (mut in_n, mut in_p, mut out_n, mut out_p) = (0usize, 0usize, 0usize, 0usize);
    for y in margin.1..h.saturating_sub(margin.1) {
        let by = (y / bs).min(nby - 1);
        for x in margin.0..w.saturating_sub(margin.0) {
            let bx = (x / bs).min(nbx - 1);
            let m = blocks[by * nbx + bx];
            let (sx, sy) = (x as i32 - m.u, y as i32 - m.v);
            if sx < 0 || sy < 0 || sx >= w as i32 || sy >= h as i32 {
                continue;
            }
            let i = y * w + x;
            let res = (b.data[i] - a.at(sx as usize, sy as usize)).abs();
            residual[i] = res;
            valid[i] = true;
            vals.push(res);
            raw += f64::from((b.data[i] - a.data[i]).abs());
            sum += f64::from(res);
            let pop = f64::from(res) > p.threshold;
            popped += usize::from(pop);
            if let Some(mk) = mask {
                if mk[i] {
                    in_n += 1;
                    in_p += usize::from(pop);
                } else {
                    out_n += 1;
                    out_p += usize::from(pop);
                }
            }
        }
    }
    let n = vals.len();
    if n == 0 {
        return Err(PopError::NothingMeasured { margin });
    }
    vals.sort_unstable_by(f32::total_cmp);
    let p99 = f64::from(vals[((0.99 * (n - 1) as f64).round() as usize).min(n - 1)]);
    let share = |k: usize, of: usize| if of == 0 { 0.0 } else { k as f64 / of as f64 };
    Ok(PopResult {
        dx,
        dy,
        raw_mean: raw / n as f64,
        mean: sum / n as f64,
        p99,
        popped: share(popped, n),
        measured: n,
        margin,
        width: w,
        height: h,
        residual,
        valid,
        blocks,
        popped_inside: mask.map(|_| share(in_p, in_n)),
        popped_outside: mask.map(|_| share(out_p, out_n)),
    })
}

/// Scores of one consecutive pair in a sweep (pair `i` compares frames `i` and `i + 1`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairScore {
    pub index: usize,
    pub dx: f64,
    pub dy: f64,
    pub raw_mean: f64,
    pub mean: f64,
    pub p99: f64,
    pub popped: f64,
}

/// A sequence scored pair by pair. The summary is over each pair's mean residual.
#[derive(Debug, Clone, PartialEq)]
pub struct Sweep {
    pub pairs: Vec<PairScore>,
    /// Mean over pairs of the mean residual.
    pub mean: f64,
    /// Largest mean residual of a pair.
    pub peak: f64,
    /// Index of that pair (the first, on ties).
    pub worst: usize,
    /// Mean over pairs of the popped share.
    pub popped_mean: f64,
    /// Largest popped share of a pair.
    pub popped_peak: f64,
}

/// Score every consecutive pair of `frames`.
pub fn sweep(frames: &[Luma], p: &PopParams) -> Result<Sweep, PopError> {
    if frames.len() < 2 {
        return Err(PopError::TooFewFrames(frames.len()));
    }
    let mut pairs = Vec::with_capacity(frames.len() - 1);
    for (i, ab) in frames.windows(2).enumerate() {
        let r = compare(&ab[0], &ab[1], p, None).map_err(|e| match e {
            PopError::SizeMismatch { a, b, .. } => PopError::SizeMismatch { a, b, index: Some(i) },
            e => e,
        })?;
        pairs.push(PairScore {
            index: i,
            dx: r.dx,
            dy: r.dy,
            raw_mean: r.raw_mean,
            mean: r.mean,
            p99: r.p99,
            popped: r.popped,
        });
    }
    let k = pairs.len() as f64;
    let mean = pairs.iter().map(|s| s.mean).sum::<f64>() / k;
    let mut worst = 0;
    for (i, s) in pairs.iter().enumerate() {
        if s.mean > pairs[worst].mean {
            worst = i;
        }
    }
    Ok(Sweep {
        mean,
        peak: pairs[worst].mean,
        worst,
        popped_mean: pairs.iter().map(|s| s.popped).sum::<f64>() / k,
        popped_peak: pairs.iter().map(|s| s.popped).fold(0.0, f64::max),
        pairs,
    })
}

// ------------------------------------------------------------------ figures

/// Residual heat map of a comparison: black → red → yellow → white over `0..4·threshold`; grey
/// where not measured.
///
/// # Examples
///
/// ```
/// use bozkir_render::popping::heat_map;
///
/// let im = heat_map(&[0.0, 1.0], &[true, false], 2, 1, 0.02);
/// assert_eq!(im.pixel(0, 0), [0, 0, 0]);
/// assert_eq!(im.pixel(1, 0), [64, 64, 64]);
/// ```
pub fn heat_map(res: &[f32], valid: &[bool], w: usize, h: usize, threshold: f64) -> crate::Rgb8Image {
    let mut im = crate::Rgb8Image::new(w, h);
    for (i, (&r, &v)) in res.iter().zip(valid).enumerate() {
        let rgb = if !v {
            [64, 64, 64]
        } else {
            let t = (f64::from(r) / (4.0 * threshold)).clamp(0.0, 1.0) * 3.0;
            let c = |x: f64| (x.clamp(0.0, 1.0) * 255.0).round() as u8;
            [c(t), c(t - 1.0), c(t - 2.0)]
        };
        im.set_pixel(i % w, i / w, rgb);
    }
    im
}

/// A luma frame as a grey image (0..1 → 0..255, rounded).
pub fn grey_image(l: &Luma) -> crate::Rgb8Image {
    let mut im = crate::Rgb8Image::new(l.width, l.height);
    for (i, &v) in l.data.iter().enumerate() {
        let g = (v * 255.0).round().clamp(0.0, 255.0) as u8;
        im.set_pixel(i % l.width, i / l.width, [g, g, g]);
    }
    im
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Smooth value noise at lattice spacing `cell`, 0..1.
    fn noise(x: f64, y: f64, cell: f64, seed: u32) -> f32 {
        bozkir_core::noise::value_noise_at(x, y, cell, seed) as f32
    }

    /// A textured ground at world position (x, y).
    fn texture(x: f64, y: f64) -> f32 {
        0.5 * noise(x, y, 23.0, 1) + 0.3 * noise(x, y, 9.0, 2) + 0.2 * noise(x, y, 4.0, 3)
    }

    /// Frame of the texture seen with the camera moved so that content shifts by (dx, dy),
    /// plus per-frame noise of amplitude `grain`.
    fn frame(w: usize, h: usize, dx: f64, dy: f64, grain: f32, seed: u32) -> Luma {
        Luma::from_fn(w, h, |x, y| {
            let g = if grain > 0.0 {
                grain * (2.0 * bozkir_core::hash::hash_unit(x as u32, y as u32, 100 + seed) as f32 - 1.0)
            } else {
                0.0
            };
            texture(x as f64 - dx, y as f64 - dy) + g
        })
    }

    /// Replace a `side²` patch at (px, py) with unrelated content.
    fn swap_patch(f: &mut Luma, px: usize, py: usize, side: usize) {
        for y in py..py + side {
            for x in px..px + side {
                f.data[y * f.width + x] = texture(x as f64 + 5000.0, y as f64 - 7000.0);
            }
        }
    }

    #[test]
    fn fft_round_trip_and_impulse() {
        let mut v: Vec<C> = (0..16).map(|i| C { re: (i * i % 7) as f64, im: 0.0 }).collect();
        let orig = v.clone();
        fft(&mut v, false);
        fft(&mut v, true);
        for (a, b) in v.iter().zip(&orig) {
            assert!((a.re / 16.0 - b.re).abs() < 1e-12 && (a.im / 16.0).abs() < 1e-12);
        }
        let mut imp = vec![C::default(); 8];
        imp[0].re = 1.0;
        fft(&mut imp, false);
        assert!(imp.iter().all(|c| (c.re - 1.0).abs() < 1e-12 && c.im.abs() < 1e-12));
    }

    #[test]
    fn known_translation_is_found() {
        let a = frame(200, 150, 0.0, 0.0, 0.0, 0);
        let b = frame(200, 150, 5.0, -3.0, 0.0, 0);
        let (dx, dy) = phase_correlation(&a, &b);
        assert!((dx - 5.0).abs() <= 1.5 && (dy + 3.0).abs() <= 1.5, "({dx}, {dy})");
        let r = compare(&a, &b, &PopParams::default(), None).unwrap();
        assert!((r.dx - 5.0).abs() <= 1.5 && (r.dy + 3.0).abs() <= 1.5);
        // Most blocks found the motion exactly.
        let exact = r.blocks.iter().filter(|m| (m.u, m.v) == (5, -3)).count();
        assert!(exact * 10 >= r.blocks.len() * 9, "{exact} of {}", r.blocks.len());
    }

    #[test]
    fn compensation_removes_the_motion() {
        let a = frame(256, 192, 0.0, 0.0, 0.003, 0);
        let b = frame(256, 192, 7.0, 4.0, 0.003, 1);
        let r = compare(&a, &b, &PopParams::default(), None).unwrap();
        assert!(r.mean < r.raw_mean / 10.0, "mean {} raw {}", r.mean, r.raw_mean);
        assert!(r.popped < 0.02, "popped {}", r.popped);
    }

    #[test]
    fn small_blocks_and_a_grid_of_settings_hold() {
        let a = frame(256, 192, 0.0, 0.0, 0.003, 0);
        let b = frame(256, 192, -6.0, 5.0, 0.003, 1);
        for block in [8, 16, 32, 48] {
            for search in [4, 8, 12, 20] {
                let p = PopParams { block, search, threshold: 0.02 };
                let r = compare(&a, &b, &p, None).unwrap();
                assert!(r.popped < 0.03, "block {block} search {search}: popped {}", r.popped);
            }
        }
    }

    #[test]
    fn big_shifts_are_compensated() {
        let (w, h) = (320, 256);
        let a = frame(w, h, 0.0, 0.0, 0.0, 0);
        let b = frame(w, h, 70.0, 0.0, 0.0, 0);
        let r = compare(&a, &b, &PopParams::default(), None).unwrap();
        assert!(r.popped < 0.03, "70 px: popped {} shift ({}, {})", r.popped, r.dx, r.dy);
        for (dy, dx) in [(60.0, 90.0), (-45.0, 30.0), (20.0, -80.0)] {
            let b = frame(w, h, dx, dy, 0.0, 0);
            let r = compare(&a, &b, &PopParams::default(), None).unwrap();
            assert!(r.popped < 0.05, "({dy}, {dx}): popped {} shift ({}, {})", r.popped, r.dx, r.dy);
        }
    }

    #[test]
    fn a_swapped_patch_is_caught() {
        let a = frame(256, 192, 0.0, 0.0, 0.0, 0);
        let mut b = frame(256, 192, 0.0, 0.0, 0.0, 0);
        let (px, py, side) = (100, 70, 40);
        swap_patch(&mut b, px, py, side);
        let mask: Vec<bool> = (0..256 * 192)
            .map(|i| (px..px + side).contains(&(i % 256)) && (py..py + side).contains(&(i / 256)))
            .collect();
        let r = compare(&a, &b, &PopParams::default(), Some(&mask)).unwrap();
        let area = (side * side) as f64;
        let popped_px = r.popped * r.measured as f64;
        assert!(popped_px > area / 2.0, "popped {popped_px} px of a {area} px patch");
        assert!(r.p99 > 0.1, "p99 {}", r.p99);
        assert!(r.popped_inside.unwrap() > 0.5, "inside {:?}", r.popped_inside);
        assert!(r.popped_outside.unwrap() < 0.05, "outside {:?}", r.popped_outside);
    }

    #[test]
    fn a_swap_during_motion_outscores_motion_alone() {
        let a = frame(256, 192, 0.0, 0.0, 0.002, 0);
        let b = frame(256, 192, 6.0, -2.0, 0.002, 1);
        let mut bs = b.clone();
        swap_patch(&mut bs, 120, 80, 48);
        let p = PopParams::default();
        let still = compare(&a, &b, &p, None).unwrap();
        let swapped = compare(&a, &bs, &p, None).unwrap();
        assert!(swapped.mean >= 5.0 * still.mean, "swap {} motion {}", swapped.mean, still.mean);
        assert!(swapped.popped >= 5.0 * still.popped.max(1e-3), "swap {} motion {}", swapped.popped, still.popped);
    }

    #[test]
    fn identical_frames_score_zero() {
        let a = frame(128, 96, 0.0, 0.0, 0.01, 4);
        let r = compare(&a, &a.clone(), &PopParams::default(), None).unwrap();
        assert_eq!((r.mean, r.p99, r.popped, r.raw_mean), (0.0, 0.0, 0.0, 0.0));
        assert_eq!((r.dx.round(), r.dy.round()), (0.0, 0.0));
    }

    #[test]
    fn bad_inputs_are_refused() {
        let a = frame(128, 96, 0.0, 0.0, 0.0, 0);
        let b = frame(120, 96, 0.0, 0.0, 0.0, 0);
        let e = compare(&a, &b, &PopParams::default(), None).unwrap_err();
        assert!(e.to_string().contains("differ in size: 128×96 and 120×96"), "{e}");
        let s = sweep(&[a.clone(), a.clone(), b], &PopParams::default()).unwrap_err();
        assert!(s.to_string().contains("frames 1 and 2"), "{s}");
        let tiny = frame(20, 40, 0.0, 0.0, 0.0, 0);
        let e = compare(&tiny, &tiny, &PopParams::default(), None).unwrap_err();
        assert!(e.to_string().contains("smaller than one 32×32 block"), "{e}");
        let e = compare(&a, &a, &PopParams { threshold: 0.0, ..Default::default() }, None).unwrap_err();
        assert!(e.to_string().contains("threshold"), "{e}");
        let e = compare(&a, &a, &PopParams::default(), Some(&[true; 5])).unwrap_err();
        assert!(e.to_string().contains("mask has 5 values"), "{e}");
        assert_eq!(sweep(&[a], &PopParams::default()).unwrap_err(), PopError::TooFewFrames(1));
    }

    #[test]
    fn a_sweep_finds_its_one_bad_pair() {
        let frames: Vec<Luma> = (0..10)
            .map(|i| {
                let mut f = frame(256, 192, 4.0 * i as f64, 1.0 * i as f64, 0.002, i);
                if i == 6 {
                    swap_patch(&mut f, 110, 70, 56);
                }
                f
            })
            .collect();
        let s = sweep(&frames, &PopParams::default()).unwrap();
        assert_eq!(s.pairs.len(), 9);
        assert!(s.peak > 3.0 * s.mean, "peak {} mean {}", s.peak, s.mean);
        assert!(s.worst == 5 || s.worst == 6, "worst pair {}", s.worst);
        assert!(s.popped_peak > 3.0 * s.popped_mean);
    }

    #[test]
    fn luma_from_bytes_is_rec709() {
        let l = Luma::from_u8(2, 1, 3, &[255, 0, 0, 0, 255, 0]).unwrap();
        assert!((l.data[0] - 0.2126).abs() < 1e-6 && (l.data[1] - 0.7152).abs() < 1e-6);
        let g = Luma::from_u8(1, 1, 2, &[51, 7]).unwrap();
        assert!((g.data[0] - 0.2).abs() < 1e-6);
        assert!(Luma::from_u8(2, 2, 3, &[0; 5]).is_none());
    }
}

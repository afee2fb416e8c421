//! Clothoid (Euler spiral) smoothing of road centrelines, as Galin et al. (2010, §6.1) ask: the
//! least-cost polyline becomes a G2 *clothoid spline*, pieces whose curvature is linear in arc
//! length, κ(s) = κ_j + σ_j·(s − s_j), continuous across pieces, with |κ| ≤ `max_curvature`
//! (1 / the least radius) and |dκ/ds| = |σ_j| ≤ `max_sharpness` everywhere, and the end points
//! pinned exactly.
//!
//! The fit (after McCrae and Singh's curvature-profile fitting, 2009, with hard bounds):
//! 1. cut the polyline's length into n = ⌈L / `knot_spacing`⌉ equal pieces of length Δ; the
//!    target curvature at the knots is each vertex's turn shared linearly between its two knots,
//!    per unit length (the profile's integral is the polyline's total turn);
//! 2. smooth that profile with the narrowest trapezoidal kernel (two moving averages) that meets
//!    the bounds: averaging keeps the local total turn, so headings stay right, and for a lone
//!    corner it yields the ideal clothoid–arc–clothoid;
//! 3. project it exactly onto the bounds: clamp to ±K, then take the midpoint of its greatest
//!    and least c-Lipschitz envelopes (c = sharpness·Δ), which is within ±K and c-Lipschitz;
//! 4. refine (Levenberg–Marquardt on the initial heading, a scale and a coarse basis of
//!    curvature corrections, minimising the normal distances of the input points to the curve),
//!    projecting onto the bounds after every step;
//! 5. pin the end: rotate and scale the curve about its start by the similarity that takes its
//!    end onto the polyline's. Scaling by λ divides κ by λ and dκ/ds by λ², so steps 2–4 run
//!    with the bounds tightened by a margin m (K·m, S·m²) until λ ≥ m.
//!
//! Pieces are integrated exactly: by Fresnel integrals, or, for pieces turning by at most 1 rad
//! (every road piece at the default spacing), by 10-point Gauss–Legendre, exact to rounding there.
//!
//! The Fresnel integrals C(x) = ∫₀ˣ cos(πt²/2) dt and S(x) = ∫₀ˣ sin(πt²/2) dt are our own:
//! their power series for |x| < 1.6, and beyond it C + iS = (1 + i)/2 · (1 − erfc z) with
//! z = (√π/2)(1 − i)x and erfc from its Laplace continued fraction (modified Lentz).

use crate::error::{param, Result, WorldError};
use std::f64::consts::PI;

/// The clothoid fit's bounds and resolution.
#[derive(Debug, Clone, PartialEq)]
pub struct ClothoidParams {
    /// Largest |κ| in 1/m (1 / the least radius); default 0.04 (a 25 m radius).
    pub max_curvature: f64,
    /// Largest |dκ/ds| in 1/m² (1 / A² for the clothoid parameter A); default 0.0016 (A = 25 m:
    /// curvature 0 → 1/25 m over 25 m).
    pub max_sharpness: f64,
    /// Length of one clothoid piece before the end-pinning scale, in metres; default 4.
    pub knot_spacing: f64,
    /// Gauss–Newton (Levenberg–Marquardt) steps that pull the smoothed curve onto the input
    /// within the bounds (0: the smoothed profile only); default 8.
    pub refine_iterations: u32,
}

impl Default for ClothoidParams {
    fn default() -> Self {
        Self { max_curvature: 0.04, max_sharpness: 0.0016, knot_spacing: 4.0, refine_iterations: 8 }
    }
}

impl ClothoidParams {
    /// Checks that every field is finite and > 0.
    pub fn validate(&self) -> Result<()> {
        for (name, v) in [
            ("max_curvature", self.max_curvature),
            ("max_sharpness", self.max_sharpness),
            ("knot_spacing", self.knot_spacing),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(param(name, v, "a finite value > 0"));
            }
        }
        if self.refine_iterations > 1000 {
            return Err(param("refine_iterations", self.refine_iterations, "at most 1000"));
        }
        Ok(())
    }
}

/// Most pieces (and most samples) one path may have.
const MAX_PIECES: usize = 10_000_000;

/// A fitted clothoid spline: `n` pieces of equal length, curvature linear on each and continuous
/// at the knots; heading and position at every knot.
#[derive(Debug, Clone, PartialEq)]
pub struct ClothoidPath {
    step: f64,
    kappa: Vec<f64>,
    theta: Vec<f64>,
    pos: Vec<[f64; 2]>,
    max_deviation: f64,
}

impl ClothoidPath {
    /// Arc length L = n·Δ in metres.
    pub fn length(&self) -> f64 {
        self.step * (self.kappa.len() - 1) as f64
    }

    /// Number of clothoid pieces.
    pub fn pieces(&self) -> usize {
        self.kappa.len() - 1
    }

    /// The largest distance between the fitted curve and the input polyline, both ways (input
    /// points to the curve, curve samples to the input polyline), in metres.
    pub fn max_deviation(&self) -> f64 {
        self.max_deviation
    }

    /// Piece index and local arc length for `s` clamped to [0, L].
    fn locate(&self, s: f64) -> (usize, f64) {
        let n = self.pieces();
        let s = if s.is_nan() { 0.0 } else { s.clamp(0.0, self.length()) };
        let j = ((s / self.step) as usize).min(n - 1);
        (j, s - j as f64 * self.step)
    }

    /// Sharpness σ_j = (κ_{j+1} − κ_j) / Δ of piece `j`.
    fn sharp(&self, j: usize) -> f64 {
        (self.kappa[j + 1] - self.kappa[j]) / self.step
    }

    /// Curvature κ(s) = κ_j + σ_j·(s − s_j) in 1/m (s clamped to [0, L]; positive turns left).
    pub fn curvature_at(&self, s: f64) -> f64 {
        let (j, t) = self.locate(s);
        self.kappa[j] + self.sharp(j) * t
    }

    /// Sharpness dκ/ds at `s` (constant on each piece) in 1/m².
    pub fn sharpness_at(&self, s: f64) -> f64 {
        self.sharp(self.locate(s).0)
    }

    /// Heading θ(s) = θ_j + κ_j·t + σ_j·t²/2 in radians from +x (t = s − s_j).
    pub fn heading_at(&self, s: f64) -> f64 {
        let (j, t) = self.locate(s);
        self.theta[j] + self.kappa[j] * t + 0.5 * self.sharp(j) * t * t
    }

    /// The point at arc length `s`: p_j + ∫₀ᵗ (cos θ, sin θ) du on piece j.
    pub fn point_at(&self, s: f64) -> [f64; 2] {
        let (j, t) = self.locate(s);
        let d = piece_delta(self.theta[j], self.kappa[j], self.sharp(j), t);
        [self.pos[j][0] + d[0], self.pos[j][1] + d[1]]
    }

    /// The curve as a dense polyline: ⌈L / spacing⌉ + 1 points evenly spaced in arc length (so
    /// no gap exceeds `spacing`), the first and last exactly the pinned end points.
    pub fn sample(&self, spacing: f64) -> Result<Vec<[f64; 2]>> {
        let len = self.length();
        if !(spacing.is_finite() && spacing > 0.0) || len / spacing > MAX_PIECES as f64 {
            return Err(param("spacing", spacing, &format!("finite, > 0 and ≥ L / 1e7 = {}", len / 1e7)));
        }
        let count = ((len / spacing).ceil() as usize).max(1);
        let h = len / count as f64;
        let mut out: Vec<[f64; 2]> = (0..count).map(|k| self.point_at(k as f64 * h)).collect();
        out[0] = self.pos[0];
        out.push(*self.pos.last().expect("at least two knots"));
        Ok(out)
    }
}

/// Fits a clothoid spline to a road polyline (points in metres, in order), end points pinned,
/// |κ| ≤ `max_curvature` and |dκ/ds| ≤ `max_sharpness` everywhere (see the module docs for the
/// method). Errors on bad parameters, fewer than two distinct points, non-finite coordinates,
/// coinciding end points, or a path the bounds cannot bend onto its end.
pub fn fit_clothoids(points: &[[f64; 2]], params: &ClothoidParams) -> Result<ClothoidPath> {
    params.validate()?;
    let pts = clean_points(points)?;
    let (start, end) = (pts[0], pts[pts.len() - 1]);
    let chord = [end[0] - start[0], end[1] - start[1]];
    let chord_len = chord[0].hypot(chord[1]);
    let total: f64 = pts.windows(2).map(|w| dist(w[0], w[1])).sum();
    if chord_len <= 1e-9 * total {
        return Err(WorldError::Invalid(format!(
            "clothoid fit: the end points {start:?} and {end:?} coincide (a closed path of length {total} m)"
        )));
    }
    let n_f = (total / params.knot_spacing).ceil();
    if n_f > MAX_PIECES as f64 {
        return Err(param("knot_spacing", params.knot_spacing, &format!("≥ L / 1e7 = {} m", total / 1e7)));
    }
    let n = (n_f as usize).max(1);
    let step = total / n as f64;
    let target = target_curvature(&pts, n, step);
    let phi0 = heading(pts[0], pts[1]);
    let w0 = 3.0 * f64::max(1.0, total / (pts.len() - 1) as f64 / step);
    let (k_max, s_max) = (params.max_curvature, params.max_sharpness);
    // Refined curves end within ~0.1 % of the target, so start just inside the bounds.
    let mut margin = if params.refine_iterations > 0 { 0.995 } else { 1.0 };
    for _ in 0..60 {
        let (km, dkm) = (k_max * margin, s_max * margin * margin * step);
        let mut kappa = shape_profile(&target, km, dkm, w0);
        let mut theta0 = phi0 - step * (3.0 * kappa[0] + kappa[1]) / 8.0;
        let mut step = step;
        if params.refine_iterations > 0 {
            let fit = Fit { pts: &pts, start, end, k_max: km, s_max: s_max * margin * margin };
            (kappa, theta0, step) = fit.refine(kappa, theta0, step, params.refine_iterations);
        }
        let (theta, pos) = integrate(start, theta0, &kappa, step);
        let e = [pos[n][0] - start[0], pos[n][1] - start[1]];
        let e_len = e[0].hypot(e[1]);
        if e_len <= 1e-12 * total {
            break;
        }
        let lambda = chord_len / e_len;
        if lambda >= margin * (1.0 - 1e-12) {
            let rot = chord[1].atan2(chord[0]) - e[1].atan2(e[0]);
            let mut path = similarity(start, end, rot, lambda, step, kappa, theta, pos);
            path.max_deviation = deviation(&path, &pts);
            return Ok(path);
        }
        margin = lambda.min(margin) * (1.0 - 1e-3);
    }
    Err(WorldError::Invalid(format!(
        "clothoid fit: no curve with |κ| ≤ {k_max} 1/m and |dκ/ds| ≤ {s_max} 1/m² joins {start:?} to {end:?} along \
         this path of length {total} m (raise max_curvature / max_sharpness)"
    )))
}

fn dist(a: [f64; 2], b: [f64; 2]) -> f64 {
    (b[0] - a[0]).hypot(b[1] - a[1])
}

fn heading(a: [f64; 2], b: [f64; 2]) -> f64 {
    (b[1] - a[1]).atan2(b[0] - a[0])
}

/// The input without repeated consecutive points; errors unless finite with two distinct points.
fn clean_points(points: &[[f64; 2]]) -> Result<Vec<[f64; 2]>> {
    if let Some(k) = points.iter().position(|p| !(p[0].is_finite() && p[1].is_finite())) {
        return Err(WorldError::Invalid(format!("clothoid fit: point {k} is {:?}, not finite", points[k])));
    }
    let mut out: Vec<[f64; 2]> = Vec::with_capacity(points.len());
    for &p in points {
        if out.last().is_none_or(|&q| dist(p, q) > 0.0) {
            out.push(p);
        }
    }
    if out.len() < 2 {
        return Err(WorldError::Invalid(format!(
            "clothoid fit: {} points, {} distinct; at least 2 needed",
            points.len(),
            out.len()
        )));
    }
    Ok(out)
}

/// Target curvature at the n + 1 knots: each input vertex's turn (wrapped to (−π, π]) is shared
/// between the two knots around its arc length, linearly, then divided by the length each knot
/// stands for (Δ), so that the profile integrates to the polyline's total turn; the two end
/// knots then copy their neighbours.
fn target_curvature(pts: &[[f64; 2]], n: usize, step: f64) -> Vec<f64> {
    let mut k = vec![0.0; n + 1];
    let mut s = dist(pts[0], pts[1]);
    for v in 1..pts.len() - 1 {
        let turn = heading(pts[v], pts[v + 1]) - heading(pts[v - 1], pts[v]);
        let turn = (turn + PI).rem_euclid(2.0 * PI) - PI;
        let x = (s / step).clamp(0.0, n as f64);
        let j = (x as usize).min(n - 1);
        let f = x - j as f64;
        k[j] += (1.0 - f) * turn;
        k[j + 1] += f * turn;
        s += dist(pts[v], pts[v + 1]);
    }
    for (j, v) in k.iter_mut().enumerate() {
        *v /= if j == 0 || j == n { 0.5 * step } else { step };
    }
    // The end knots see only half a window, with no vertex before the first chord: they take
    // their neighbours' curvature (the curve continues as it bends).
    if n >= 2 {
        k[0] = k[1];
        k[n] = k[n - 1];
    }
    k
}

/// Whether `k` meets |k_j| ≤ `k_max` and |k_{j+1} − k_j| ≤ `dk_max`.
fn meets(k: &[f64], k_max: f64, dk_max: f64) -> bool {
    k.iter().all(|v| v.abs() <= k_max) && k.windows(2).all(|w| (w[1] - w[0]).abs() <= dk_max)
}

/// Moving average over a window `width` knots wide (ends of the window weighted fractionally,
/// so the width is continuous), normalised by the weights inside the profile at its ends.
/// Weight of offset d: clamp(width/2 + ½ − |d|, 0, 1). O(n) by prefix sums.
fn box_smooth(k: &[f64], width: f64) -> Vec<f64> {
    let n = k.len();
    let half = 0.5 * width.max(1.0);
    let r = (half - 0.5).floor() as usize;
    let frac = half + 0.5 - (r + 1) as f64;
    let mut prefix = Vec::with_capacity(n + 1);
    prefix.push(0.0);
    for (j, v) in k.iter().enumerate() {
        prefix.push(prefix[j] + v);
    }
    (0..n)
        .map(|j| {
            let (lo, hi) = (j.saturating_sub(r), (j + r).min(n - 1));
            let mut num = prefix[hi + 1] - prefix[lo];
            let mut den = (hi + 1 - lo) as f64;
            if j > r {
                num += frac * k[j - r - 1];
                den += frac;
            }
            if j + r + 1 < n {
                num += frac * k[j + r + 1];
                den += frac;
            }
            num / den
        })
        .collect()
}

/// The target profile made feasible. It is averaged by two moving windows (together a
/// trapezoidal kernel): for a lone corner turning by T, widths T/K and K/S turn it into the
/// ideal clothoid–arc–clothoid (curvature K on the arc, ramps of sharpness S). Here the widths
/// are (w, clamp(K/S, w₀, w)) for the least w = w₀·1.15ⁱ that meets the bounds, w₀ = three knots
/// or three input segments (which also removes the aliasing between input vertices and knots);
/// then the exact projection [`bound_profile`].
fn shape_profile(target: &[f64], k_max: f64, dk_max: f64, w0: f64) -> Vec<f64> {
    let ramp = k_max / dk_max;
    let mut w = w0;
    let mut k = box_smooth(&box_smooth(target, w0), w0);
    while !meets(&k, k_max, dk_max) && w <= 2.0 * target.len() as f64 {
        w *= 1.15;
        k = box_smooth(&box_smooth(target, ramp.clamp(w0, w)), w);
    }

    bound_profile(&k, k_max, dk_max)
}

/// Clamp to ±`k_max`, then the midpoint of the greatest `dk_max`-Lipschitz minorant
/// g_j = min_i (k_i + dk_max·|i − j|) and the least majorant G_j = max_i (k_i − dk_max·|i − j|):
/// both are `dk_max`-Lipschitz and within ±`k_max`, so their mean is too (it is the best such
/// profile in the sup norm).
fn bound_profile(k: &[f64], k_max: f64, dk_max: f64) -> Vec<f64> {
    let c: Vec<f64> = k.iter().map(|v| v.clamp(-k_max, k_max)).collect();
    let (mut lo, mut hi) = (c.clone(), c);
    let n = lo.len();
    for j in 1..n {
        lo[j] = lo[j].min(lo[j - 1] + dk_max);
        hi[j] = hi[j].max(hi[j - 1] - dk_max);
    }
    for j in (0..n - 1).rev() {
        lo[j] = lo[j].min(lo[j + 1] + dk_max);
        hi[j] = hi[j].max(hi[j + 1] - dk_max);
    }
    lo.iter().zip(&hi).map(|(a, b)| (0.5 * (a + b)).clamp(-k_max, k_max)).collect()
}

/// Headings and positions at the knots of the spline with knot curvatures `kappa`, piece length
/// `step`, starting at `start` with heading `theta0`.
fn integrate(start: [f64; 2], theta0: f64, kappa: &[f64], step: f64) -> (Vec<f64>, Vec<[f64; 2]>) {
    let n = kappa.len() - 1;
    let mut theta = Vec::with_capacity(n + 1);
    let mut pos = Vec::with_capacity(n + 1);
    theta.push(theta0);
    pos.push(start);
    for j in 0..n {
        let sigma = (kappa[j + 1] - kappa[j]) / step;
        let d = piece_delta(theta[j], kappa[j], sigma, step);
        pos.push([pos[j][0] + d[0], pos[j][1] + d[1]]);
        theta.push(theta[j] + 0.5 * step * (kappa[j] + kappa[j + 1]));
    }
    (theta, pos)
}

/// The curve rotated by `rot` and scaled by `lambda` about `start`, its last knot set to `end`.
#[allow(clippy::too_many_arguments)]
fn similarity(
    start: [f64; 2],
    end: [f64; 2],
    rot: f64,
    lambda: f64,
    step: f64,
    kappa: Vec<f64>,
    theta: Vec<f64>,
    pos: Vec<[f64; 2]>,
) -> ClothoidPath {
    let (c, s) = (rot.cos() * lambda, rot.sin() * lambda);
    let mut pos: Vec<[f64; 2]> = pos
        .iter()
        .map(|p| {
            let (x, y) = (p[0] - start[0], p[1] - start[1]);
            [start[0] + c * x - s * y, start[1] + s * x + c * y]
        })
        .collect();
    *pos.last_mut().expect("at least two knots") = end;
    ClothoidPath {
        step: step * lambda,
        kappa: kappa.iter().map(|k| k / lambda).collect(),
        theta: theta.iter().map(|t| t + rot).collect(),
        pos,
        max_deviation: 0.0,
    }
}

/// Fine samples per piece for the refinement's curve.
const FINE: usize = 4;

/// The data of one fit, for the refinement.
struct Fit<'a> {
    pts: &'a [[f64; 2]],
    start: [f64; 2],
    end: [f64; 2],
    k_max: f64,
    /// Sharpness bound in 1/m².
    s_max: f64,
}

/// The spline sampled finely, its residuals against the input and where each input point's
/// foot lies on it.
struct Eval {
    step: f64,
    fine: Vec<[f64; 2]>,
    theta: Vec<f64>,
    /// Per input point 1..N−2: (fine segment m, fraction f, unit normal, signed residual).
    feet: Vec<(usize, f64, [f64; 2], f64)>,
    /// c(L) − end.
    end_res: [f64; 2],
    objective: f64,
}

/// Weight of the end point's residual against one input point's.
const END_WEIGHT: f64 = 10.0;

impl Fit<'_> {
    fn eval(&self, kappa: &[f64], theta0: f64, step: f64) -> Eval {
        let n = kappa.len() - 1;
        let (th, pos) = integrate(self.start, theta0, kappa, step);
        let h = step / FINE as f64;
        let mut fine = Vec::with_capacity(n * FINE + 1);
        let mut theta = Vec::with_capacity(n * FINE + 1);
        for j in 0..n {
            let sig = (kappa[j + 1] - kappa[j]) / step;
            for q in 0..FINE {
                let t = q as f64 * h;
                let d = piece_delta(th[j], kappa[j], sig, t);
                fine.push([pos[j][0] + d[0], pos[j][1] + d[1]]);
                theta.push(th[j] + kappa[j] * t + 0.5 * sig * t * t);
            }
        }
        fine.push(pos[n]);
        theta.push(th[n]);
        let feet = self.feet(&fine);
        let end_res = [pos[n][0] - self.end[0], pos[n][1] - self.end[1]];
        let objective = feet.iter().map(|f| f.3 * f.3).sum::<f64>()
            + END_WEIGHT * END_WEIGHT * (end_res[0].powi(2) + end_res[1].powi(2));
        Eval { step, fine, theta, feet, end_res, objective }
    }

    /// Nearest point of the fine polyline to each interior input point (see [`Nearest`]).
    fn feet(&self, fine: &[[f64; 2]]) -> Vec<(usize, f64, [f64; 2], f64)> {
        let near = Nearest::new(fine);
        let total: f64 = self.pts.windows(2).map(|w| dist(w[0], w[1])).sum();
        let mut s_in = 0.0;
        let mut out = Vec::with_capacity(self.pts.len().saturating_sub(2));
        for i in 1..self.pts.len() - 1 {
            s_in += dist(self.pts[i - 1], self.pts[i]);
            let q = self.pts[i];
            let (m, f, _) = near.find(q, s_in / total);
            let (a, b) = (fine[m], fine[m + 1]);
            let l = dist(a, b).max(1e-300);
            let nrm = [-(b[1] - a[1]) / l, (b[0] - a[0]) / l];
            let foot = lerp2(a, b, f);
            let r = nrm[0] * (foot[0] - q[0]) + nrm[1] * (foot[1] - q[1]);
            out.push((m, f, nrm, r));
        }
        out
    }

    /// Levenberg–Marquardt on the initial heading, a scale about the start point and a coarse
    /// hat basis of curvature corrections (spacing D = max(8Δ, L/48)); after each step the
    /// profile is projected back onto the bounds, and a step that does not lower Σ residual² is
    /// refused (damping × 10). Returns the knot curvatures, initial heading and piece length.
    fn refine(&self, mut kappa: Vec<f64>, mut theta0: f64, mut step: f64, iters: u32) -> (Vec<f64>, f64, f64) {
        let n = kappa.len() - 1;
        let len = step * n as f64;
        let d = (8.0 * step).max(len / 48.0);
        let nb = (len / d).ceil() as usize + 1;
        // Start from the rotation about the start point that aims the end at the target.
        let (_, pos) = integrate(self.start, theta0, &kappa, step);
        let e = [pos[n][0] - self.start[0], pos[n][1] - self.start[1]];
        theta0 += heading(self.start, self.end) - e[1].atan2(e[0]);
        let mut cur = self.eval(&kappa, theta0, step);
        let mut mu = 1e-3;
        for _ in 0..iters {
            let (a, g) = self.normal_equations(&cur, nb, d);
            let Some(mut delta) = solve_damped(&a, &g, nb + 2, mu) else { break };
            // Trust region: no heading change (or relative scale) above 0.1 per step.
            let big = delta.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
            if big > 0.1 {
                delta.iter_mut().for_each(|v| *v *= 0.1 / big);
            }
            let mut k2 = kappa.clone();
            for (j, k) in k2.iter_mut().enumerate() {
                let s = j as f64 * step;
                let b0 = (s / d) as usize;
                for b in b0.saturating_sub(1)..(b0 + 2).min(nb) {
                    *k += delta[2 + b] / d * (1.0 - (s - b as f64 * d).abs() / d).max(0.0);
                }
            }
            let scale = 1.0 + delta[1];
            let step2 = step * scale;
            k2.iter_mut().for_each(|k| *k /= scale);
            let k2 = bound_profile(&k2, self.k_max, self.s_max * step2);
            let next = self.eval(&k2, theta0 + delta[0], step2);
            if next.objective < cur.objective {
                (kappa, theta0, step, cur) = (k2, theta0 + delta[0], step2, next);
                mu = (mu / 3.0).max(1e-12);
            } else {
                mu *= 10.0;
                if mu > 1e8 {
                    break;
                }
            }
        }
        (kappa, theta0, step)
    }

    /// JᵀJ and Jᵀr for the parameters (δθ₀, δλ, a_0 … a_{nb−1}): a foot at arc length s moves
    /// by δλ·(c(s) − start) + ∫₀ˢ n(u) δθ(u) du, n the left normal, δθ(u) = δθ₀ + Σ a_b Φ_b(u)/D,
    /// Φ_b the integral of hat b; rows are the normal residuals and the weighted end residual.
    fn normal_equations(&self, ev: &Eval, nb: usize, d: f64) -> (Vec<f64>, Vec<f64>) {
        let np = nb + 2;
        let g_tab = self.basis_tables(ev, nb, d);
        let mut a = vec![0.0; np * np];
        let mut g = vec![0.0; np];
        let mut row = vec![[0.0; 2]; np];
        let add = |row: &[[f64; 2]], w: [f64; 2], r: f64, a: &mut [f64], g: &mut [f64]| {
            let jr: Vec<f64> = row.iter().map(|v| v[0] * w[0] + v[1] * w[1]).collect();
            for p in 0..np {
                g[p] += jr[p] * r;
                for q in p..np {
                    a[p * np + q] += jr[p] * jr[q];
                }
            }
        };
        for &(m, f, nrm, r) in &ev.feet {
            self.jacobian_at(ev, &g_tab, d, m, f, &mut row);
            add(&row, nrm, r, &mut a, &mut g);
        }
        let last = ev.fine.len() - 2;
        self.jacobian_at(ev, &g_tab, d, last, 1.0, &mut row);
        for (c, w) in [(0, [END_WEIGHT, 0.0]), (1, [0.0, END_WEIGHT])] {
            add(&row, w, END_WEIGHT * ev.end_res[c], &mut a, &mut g);
        }
        for p in 0..np {
            for q in 0..p {
                a[p * np + q] = a[q * np + p];
            }
        }
        (a, g)
    }

    /// For each hat b (support [(b−1)D, (b+1)D]), G_b(s) = ∫₀ˢ n(u) Φ_b(u) du on the fine
    /// samples of its support, by the trapezoid rule.
    fn basis_tables(&self, ev: &Eval, nb: usize, d: f64) -> Vec<(usize, Vec<[f64; 2]>)> {
        let h = ev.step / FINE as f64;
        let m_all = ev.fine.len() - 1;
        (0..nb)
            .map(|b| {
                let lo = ((((b as f64 - 1.0) * d) / h).floor().max(0.0) as usize).min(m_all);
                let hi = ((((b as f64 + 1.0) * d) / h).ceil() as usize).min(m_all);
                let mut tab = Vec::with_capacity(hi - lo + 1);
                tab.push([0.0, 0.0]);
                let val = |m: usize| {
                    let phi = hat_integral(m as f64 * h, b as f64 * d, d) / d;
                    [-ev.theta[m].sin() * phi, ev.theta[m].cos() * phi]
                };
                let mut prev = val(lo);
                for m in lo + 1..=hi {
                    let cur = val(m);
                    let last: [f64; 2] = tab[tab.len() - 1];
                    tab.push([last[0] + 0.5 * h * (prev[0] + cur[0]), last[1] + 0.5 * h * (prev[1] + cur[1])]);
                    prev = cur;
                }
                (lo, tab)
            })
            .collect()
    }

    /// The Jacobian row (one 2-vector per parameter) of the point at fine segment m, fraction f.
    fn jacobian_at(&self, ev: &Eval, tabs: &[(usize, Vec<[f64; 2]>)], d: f64, m: usize, f: f64, row: &mut [[f64; 2]]) {
        let c = lerp2(ev.fine[m], ev.fine[m + 1], f);
        row[0] = [-(c[1] - self.start[1]), c[0] - self.start[0]];
        row[1] = [c[0] - self.start[0], c[1] - self.start[1]];
        let h = ev.step / FINE as f64;
        for (b, (lo, tab)) in tabs.iter().enumerate() {
            let hi = lo + tab.len() - 1;
            row[2 + b] = if m < *lo {
                [0.0, 0.0]
            } else if m < hi {
                lerp2(tab[m - lo], tab[m - lo + 1], f)
            } else {
                // Beyond the support Φ_b is constant: G grows by Φ_b · (rotated displacement).
                let phi = hat_integral(hi as f64 * h, b as f64 * d, d) / d;
                let e = ev.fine[hi];
                let t = tab[tab.len() - 1];
                [t[0] - phi * (c[1] - e[1]), t[1] + phi * (c[0] - e[0])]
            };
        }
    }
}

fn lerp2(a: [f64; 2], b: [f64; 2], f: f64) -> [f64; 2] {
    [a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1])]
}

/// ∫_{−∞}^{s} of the hat max(0, 1 − |u − c|/D) du (0 before the hat, D after it).
fn hat_integral(s: f64, c: f64, d: f64) -> f64 {
    let x = ((s - c) / d).clamp(-1.0, 1.0);
    d * if x <= 0.0 { 0.5 * (1.0 + x).powi(2) } else { 1.0 - 0.5 * (1.0 - x).powi(2) }
}

/// Solves (A + μ·tr(A)/n·I) x = −g by Cholesky (isotropic Levenberg damping; the parameters
/// are all heading changes in radians); `None` if not positive definite.
fn solve_damped(a: &[f64], g: &[f64], n: usize, mu: f64) -> Option<Vec<f64>> {
    let tr = (0..n).map(|i| a[i * n + i]).sum::<f64>() / n as f64;
    let mut l = a.to_vec();
    for i in 0..n {
        l[i * n + i] += (mu + 1e-12) * tr.max(1e-300);
    }
    for j in 0..n {
        let mut dj = l[j * n + j];
        for k in 0..j {
            dj -= l[j * n + k] * l[j * n + k];
        }
        if dj.is_nan() || dj <= 0.0 {
            return None;
        }
        let dj = dj.sqrt();
        l[j * n + j] = dj;
        for i in j + 1..n {
            let mut v = l[i * n + j];
            for k in 0..j {
                v -= l[i * n + k] * l[j * n + k];
            }
            l[i * n + j] = v / dj;
        }
    }
    let mut x: Vec<f64> = g.iter().map(|v| -v).collect();
    for i in 0..n {
        for k in 0..i {
            x[i] -= l[i * n + k] * x[k];
        }
        x[i] /= l[i * n + i];
    }
    for i in (0..n).rev() {
        for k in i + 1..n {
            x[i] -= l[k * n + i] * x[k];
        }
        x[i] /= l[i * n + i];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

/// Distance from `p` to the segment a–b.
#[cfg(test)]
fn seg_dist(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    seg_foot2(p, a, b).1.sqrt()
}

/// Fraction along a–b of the point nearest `p`, and its squared distance.
#[inline]
fn seg_foot2(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> (f64, f64) {
    let (vx, vy) = (b[0] - a[0], b[1] - a[1]);
    let (wx, wy) = (p[0] - a[0], p[1] - a[1]);
    let l2 = vx * vx + vy * vy;
    let t = if l2 > 0.0 { ((wx * vx + wy * vy) / l2).clamp(0.0, 1.0) } else { 0.0 };
    let (dx, dy) = (wx - t * vx, wy - t * vy);
    (t, dx * dx + dy * dy)
}

/// Nearest-point queries on a polyline for points known to lie near a share u of its length:
/// only the segments within ±(L/20 + 50 m) of arc length u·L are searched. Where the true
/// nearest point is farther along, the answer over-estimates the distance (never under).
struct Nearest<'a> {
    poly: &'a [[f64; 2]],
    cum: Vec<f64>,
}

impl<'a> Nearest<'a> {
    fn new(poly: &'a [[f64; 2]]) -> Self {
        let mut cum = Vec::with_capacity(poly.len());
        cum.push(0.0);
        for w in poly.windows(2) {
            cum.push(cum[cum.len() - 1] + dist(w[0], w[1]));
        }
        Self { poly, cum }
    }

    /// (segment, fraction, distance) of the nearest point to `q` near share `u` of the length.
    fn find(&self, q: [f64; 2], u: f64) -> (usize, f64, f64) {
        let total = self.cum[self.cum.len() - 1];
        let (s, w) = (u.clamp(0.0, 1.0) * total, 0.05 * total + 50.0);
        let lo = self.cum.partition_point(|&c| c < s - w).saturating_sub(1);
        let hi = self.cum.partition_point(|&c| c <= s + w).min(self.poly.len() - 1).max(lo + 1);
        let mut best = (lo, 0.0, f64::INFINITY);
        for m in lo..hi {
            let (f, d2) = seg_foot2(q, self.poly[m], self.poly[m + 1]);
            if d2 < best.2 {
                best = (m, f, d2);
            }
        }
        (best.0, best.1, best.2.sqrt())
    }

    /// The largest nearest distance from the points of `other` (in order along their own
    /// length) to this polyline.
    fn max_dist_from(&self, other: &[[f64; 2]]) -> f64 {
        let own = Nearest::new(other);
        let total = own.cum[own.cum.len() - 1].max(1e-300);
        other.iter().zip(&own.cum).map(|(&q, &c)| self.find(q, c / total).2).fold(0.0, f64::max)
    }
}

/// Two-way largest distance between the fitted curve (sampled at a quarter piece) and `pts`,
/// with the windowed search of [`Nearest`] (so possibly over-estimated, never under).
fn deviation(path: &ClothoidPath, pts: &[[f64; 2]]) -> f64 {
    let curve = path.sample(path.step / 4.0).unwrap_or_else(|_| path.pos.clone());
    Nearest::new(&curve).max_dist_from(pts).max(Nearest::new(pts).max_dist_from(&curve))
}

// ---------------------------------------------------------------------------------------------
// Piece integration and the Fresnel integrals.

/// A complex number, just what the Fresnel evaluation needs.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Cx {
    re: f64,
    im: f64,
}

impl Cx {
    const fn new(re: f64, im: f64) -> Self {
        Self { re, im }
    }
    fn add(self, o: Cx) -> Cx {
        Cx::new(self.re + o.re, self.im + o.im)
    }
    fn mul(self, o: Cx) -> Cx {
        Cx::new(self.re * o.re - self.im * o.im, self.re * o.im + self.im * o.re)
    }
    fn scale(self, f: f64) -> Cx {
        Cx::new(self.re * f, self.im * f)
    }
    fn inv(self) -> Cx {
        let d = self.re * self.re + self.im * self.im;
        Cx::new(self.re / d, -self.im / d)
    }
    fn abs(self) -> f64 {
        self.re.hypot(self.im)
    }
    fn cis(phase: f64) -> Cx {
        Cx::new(phase.cos(), phase.sin())
    }
}

/// Where the power series stops and the continued fraction takes over.
const FRESNEL_SERIES_MAX: f64 = 1.6;

/// The Fresnel integrals (C(x), S(x)) = (∫₀ˣ cos(πt²/2) dt, ∫₀ˣ sin(πt²/2) dt), odd in x, both
/// → ½ as x → ∞. Power series for |x| < 1.6; beyond, C + iS = (1 + i)/2 · (1 − erfc z),
/// z = (√π/2)(1 − i)x, with erfc z = e^(−z²)/√π · 1/(z + ½/(z + 1/(z + (3/2)/(z + …)))).
/// Accurate to a few 1e-15 (tested against reference values); NaN for NaN.
pub fn fresnel(x: f64) -> (f64, f64) {
    if x.is_nan() {
        return (f64::NAN, f64::NAN);
    }
    let a = x.abs();
    let (c, s) = if a < FRESNEL_SERIES_MAX {
        fresnel_series(a)
    } else if a.is_infinite() {
        (0.5, 0.5)
    } else {
        fresnel_cf(a)
    };
    if x < 0.0 {
        (-c, -s)
    } else {
        (c, s)
    }
}

/// C(x) = Σ (−1)ⁿ (π/2)²ⁿ x⁴ⁿ⁺¹ / ((2n)! (4n + 1)), S(x) = Σ (−1)ⁿ (π/2)²ⁿ⁺¹ x⁴ⁿ⁺³ / ((2n + 1)! (4n + 3)).
fn fresnel_series(x: f64) -> (f64, f64) {
    let z = 0.5 * PI * x * x;
    // term_m = (−1)^⌊m/2⌋ z^m / m!, m even → C (divided by 2m + 1), m odd → S.
    let (mut c, mut s) = (0.0, 0.0);
    let mut term = 1.0;
    for m in 0..60 {
        let contrib = term / (2 * m + 1) as f64;
        if m % 2 == 0 {
            c += contrib;
        } else {
            s += contrib;
        }
        if contrib.abs() < 1e-17 * (c.abs() + s.abs()) && m > 2 {
            break;
        }
        term *= z / (m + 1) as f64;
        if m % 2 == 1 {
            term = -term;
        }
    }
    (c * x, s * x)
}

/// Large-argument branch: the continued fraction for erfc, phases reduced exactly mod 2π.
fn fresnel_cf(x: f64) -> (f64, f64) {
    let r = 0.5 * PI.sqrt() * x;
    let z = Cx::new(r, -r);
    // Modified Lentz for h = z + K_{k≥1} (k/2) / z.
    let tiny = 1e-300;
    let mut f = z;
    let (mut cc, mut dd) = (z, Cx::new(0.0, 0.0));
    for k in 1..1000 {
        let a = 0.5 * k as f64;
        dd = z.add(dd.scale(a));
        if dd.abs() < tiny {
            dd = Cx::new(tiny, 0.0);
        }
        cc = z.add(cc.inv().scale(a));
        if cc.abs() < tiny {
            cc = Cx::new(tiny, 0.0);
        }
        dd = dd.inv();
        let delta = cc.mul(dd);
        f = f.mul(delta);
        if (delta.re - 1.0).abs() + delta.im.abs() < 1e-16 {
            break;
        }
    }
    // e^(−z²) = e^(iπx²/2); x² = p + e exactly (fma), p mod 4 is exact.
    let p = x * x;
    let e = x.mul_add(x, -p);
    let phase = 0.5 * PI * ((p % 4.0) + e);
    let erfc = Cx::cis(phase).mul(f.inv()).scale(1.0 / PI.sqrt());
    let one_plus_i = Cx::new(0.5, 0.5);
    let v = one_plus_i.mul(Cx::new(1.0 - erfc.re, -erfc.im));
    (v.re, v.im)
}

/// Gauss–Legendre nodes and weights on [−1, 1], 10 points (positive half).
const GL10: [(f64, f64); 5] = [
    (0.148_874_338_981_631_22, 0.295_524_224_714_752_8),
    (0.433_395_394_129_247_2, 0.269_266_719_309_996_5),
    (0.679_409_568_299_024_4, 0.219_086_362_515_982),
    (0.865_063_366_688_984_5, 0.149_451_349_150_580_4),
    (0.973_906_528_517_171_7, 0.066_671_344_308_688_14),
];

/// ∫₀ᵗ e^(i(θ + κu + σu²/2)) du by 10-point Gauss–Legendre on sub-intervals turning ≤ 1 rad.
fn piece_quadrature(theta: f64, kappa: f64, sigma: f64, t: f64) -> [f64; 2] {
    let turn = (kappa.abs() + sigma.abs() * t) * t;
    let parts = (turn.ceil() as usize).clamp(1, 1_000_000);
    let h = t / parts as f64;
    let (mut x, mut y) = (0.0, 0.0);
    for p in 0..parts {
        let mid = (p as f64 + 0.5) * h;
        for &(node, w) in &GL10 {
            for u in [mid - 0.5 * h * node, mid + 0.5 * h * node] {
                let ph = theta + kappa * u + 0.5 * sigma * u * u;
                x += w * ph.cos();
                y += w * ph.sin();
            }
        }
    }
    [0.5 * h * x, 0.5 * h * y]
}

/// ∫₀ᵗ e^(i(θ + κu + σu²/2)) du, the displacement along a clothoid piece. For σ > 0, completing
/// the square gives e^(i(θ − κ²/2σ)) √(π/σ) [F(v₁) − F(v₀)], F = C + iS, v₀ = κ/√(πσ),
/// v₁ = (κ + σt)/√(πσ); σ < 0 is the mirror image (conjugate with θ, κ, σ negated). Pieces that
/// turn by at most 1 rad (every piece of a road at the default knot spacing) use 10-point
/// Gauss–Legendre instead, exact to rounding there and several times faster; so do pieces with
/// v₁ − v₀ < 0.1 (nearly circular, where the Fresnel difference would cancel).
fn piece_delta(theta: f64, kappa: f64, sigma: f64, t: f64) -> [f64; 2] {
    if t <= 0.0 {
        return [0.0, 0.0];
    }
    if (kappa.abs() + sigma.abs() * t) * t > 1.0 {
        if let Some(d) = piece_fresnel(theta, kappa, sigma, t) {
            return d;
        }
    }
    piece_quadrature(theta, kappa, sigma, t)
}

/// The Fresnel form of [`piece_delta`]; `None` where it would cancel (v₁ − v₀ < 0.1) or the
/// arguments pass 1e8.
fn piece_fresnel(theta: f64, kappa: f64, sigma: f64, t: f64) -> Option<[f64; 2]> {
    let a = sigma.abs();
    let span = t * (a / PI).sqrt();
    if span < 0.1 || !span.is_finite() {
        return None;
    }
    let sign = sigma.signum();
    let (th, ka) = (theta * sign, kappa * sign);
    let scale = (PI * a).sqrt();
    let (v0, v1) = (ka / scale, (ka + a * t) / scale);
    if v0.abs().max(v1.abs()) > 1e8 {
        return None;
    }
    let (c0, s0) = fresnel(v0);
    let (c1, s1) = fresnel(v1);
    let d = Cx::cis(th - ka * ka / (2.0 * a)).mul(Cx::new(c1 - c0, s1 - s0)).scale((PI / a).sqrt());
    Some([d.re, d.im * sign])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (x, C(x), S(x)) from scipy.special.fresnel (Cephes).
    const FRESNEL_REF: [(f64, f64, f64); 16] = [
        (0.1, 0.09999753262708506, 0.0005235895476122108),
        (0.5, 0.4923442258714464, 0.06473243285999929),
        (1.0, 0.779893400376823, 0.4382591473903547),
        (1.4, 0.5430957835462566, 0.7135250773634121),
        (1.5, 0.44526117603982157, 0.697504960082093),
        (1.6, 0.36546168344048763, 0.6388876835093806),
        (2.0, 0.48825340607534073, 0.34341567836369824),
        (2.5, 0.45741300964177706, 0.6191817558195929),
        (3.0, 0.6057207892976857, 0.496312998967375),
        (4.5, 0.5260259150535387, 0.4342729750487036),
        (5.0, 0.5636311887040122, 0.49919138191711687),
        (7.3, 0.5392680156584624, 0.5189473278581443),
        (10.0, 0.49989869420551575, 0.46816997858488224),
        (25.0, 0.5127323855397702, 0.4999935154694762),
        (100.0, 0.4999998986788179, 0.49681690114783755),
        (1000.5, 0.5001217509508101, 0.4997060669389542),
    ];

    #[test]
    fn fresnel_matches_reference_values() {
        let mut worst: f64 = 0.0;
        for &(x, c, s) in &FRESNEL_REF {
            let (fc, fs) = fresnel(x);
            worst = worst.max((fc - c).abs()).max((fs - s).abs());
            assert!((fc - c).abs() < 5e-15 && (fs - s).abs() < 5e-15, "x={x}: ({fc}, {fs}) vs ({c}, {s})");
            let (nc, ns) = fresnel(-x);
            assert_eq!((nc, ns), (-fc, -fs), "odd at {x}");
        }
        assert!(worst < 5e-15, "{worst}");
        assert_eq!(fresnel(0.0), (0.0, 0.0));
        assert_eq!(fresnel(f64::INFINITY), (0.5, 0.5));
        assert!(fresnel(f64::NAN).0.is_nan());
    }

    #[test]
    fn fresnel_branches_agree_where_they_meet() {
        // The series (exact in principle, but cancelling as x grows) and the continued fraction
        // (converging ever slower as x falls) agree to 1e-14 over [1.3, 2.0].
        for k in 0..=70 {
            let x = 1.3 + 0.01 * k as f64;
            let (a, b) = (fresnel_series(x), fresnel_cf(x));
            assert!((a.0 - b.0).abs() < 1e-14 && (a.1 - b.1).abs() < 1e-14, "x={x}: {a:?} vs {b:?}");
        }
    }

    #[test]
    fn fresnel_derivative_is_the_integrand() {
        // dC/dx = cos(πx²/2), dS/dx = sin(πx²/2), by a central difference, across both branches.
        for k in 1..200 {
            let x = 0.037 * k as f64;
            let h = 1e-5;
            let (c1, s1) = fresnel(x + h);
            let (c0, s0) = fresnel(x - h);
            let ph = 0.5 * PI * x * x;
            assert!(((c1 - c0) / (2.0 * h) - ph.cos()).abs() < 1e-8, "x={x}");
            assert!(((s1 - s0) / (2.0 * h) - ph.sin()).abs() < 1e-8, "x={x}");
        }
    }

    /// A small deterministic generator for test inputs.
    fn lcg(state: &mut u64) -> f64 {
        *state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (*state >> 11) as f64 / (1u64 << 53) as f64
    }

    #[test]
    fn piece_by_fresnel_matches_quadrature() {
        let mut st = 42u64;
        let (mut worst, mut compared): (f64, usize) = (0.0, 0);
        for _ in 0..500 {
            let theta = (lcg(&mut st) - 0.5) * 10.0;
            let kappa = (lcg(&mut st) - 0.5) * 0.2;
            let sigma = (lcg(&mut st) - 0.5) * 0.02;
            let t = 1.0 + lcg(&mut st) * 60.0;
            let Some(a) = piece_fresnel(theta, kappa, sigma, t) else { continue };
            let b = piece_quadrature(theta, kappa, sigma, t);
            let err = (a[0] - b[0]).hypot(a[1] - b[1]) / t;
            worst = worst.max(err);
            compared += 1;
        }
        assert!(compared > 400, "{compared}");
        assert!(worst < 1e-12, "largest relative difference {worst}");
        // A circle arc in closed form: radius 10, quarter turn from heading 0.
        let d = piece_delta(0.0, 0.1, 0.0, 5.0 * PI);
        assert!((d[0] - 10.0).abs() < 1e-12 && (d[1] - 10.0).abs() < 1e-12, "{d:?}");
    }

    fn assert_bounds(path: &ClothoidPath, p: &ClothoidParams) {
        let n = path.pieces();
        let len = path.length();
        for k in 0..=20 * n {
            let s = len * k as f64 / (20 * n) as f64;
            let (kap, sh) = (path.curvature_at(s), path.sharpness_at(s));
            assert!(kap.abs() <= p.max_curvature * (1.0 + 1e-9), "|κ({s})| = {kap}");
            assert!(sh.abs() <= p.max_sharpness * (1.0 + 1e-9), "|σ({s})| = {sh}");
        }
    }

    fn assert_pinned(path: &ClothoidPath, pts: &[[f64; 2]]) {
        let samples = path.sample(0.5).unwrap();
        assert_eq!(samples[0], pts[0]);
        assert_eq!(*samples.last().unwrap(), *pts.last().unwrap());
        // The integrated last piece lands on the pinned end too (not only the stored point).
        let end = path.point_at(path.length() * (1.0 - 1e-15));
        assert!(dist(end, *pts.last().unwrap()) < 1e-8, "{end:?}");
    }

    #[test]
    fn straight_input_stays_straight() {
        let pts: Vec<[f64; 2]> = (0..30).map(|k| [3.0 + 2.0 * k as f64, -1.0 + 1.0 * k as f64]).collect();
        let p = ClothoidParams::default();
        let path = fit_clothoids(&pts, &p).unwrap();
        assert_pinned(&path, &pts);
        assert!((path.length() - dist(pts[0], pts[29])).abs() < 1e-9);
        for q in path.sample(0.7).unwrap() {
            assert!(seg_dist(q, pts[0], pts[29]) < 1e-9, "{q:?}");
        }
        assert!((0..100).all(|k| path.curvature_at(k as f64).abs() < 1e-12));
        assert!(path.max_deviation() < 1e-9);
    }

    #[test]
    fn circle_gives_constant_curvature() {
        // A quarter circle of radius 80 m, given every 3 m.
        let r = 80.0;
        let m = (0.5 * PI * r / 3.0) as usize;
        let pts: Vec<[f64; 2]> =
            (0..=m).map(|k| k as f64 * 0.5 * PI / m as f64).map(|a| [r * a.cos(), r * a.sin()]).collect();
        let p = ClothoidParams::default();
        let path = fit_clothoids(&pts, &p).unwrap();
        assert_bounds(&path, &p);
        assert_pinned(&path, &pts);
        let len = path.length();
        for k in 0..=50 {
            let kap = path.curvature_at(len * k as f64 / 50.0);
            // Inside, within 1 %; the end pieces start from the end chords' headings, which are
            // half a vertex turn off the circle's tangents.
            let tol = if (5..=45).contains(&k) { 0.01 } else { 0.06 };
            assert!((kap * r - 1.0).abs() < tol, "κ·R = {} at {k}/50", kap * r);
        }
        assert!(path.max_deviation() < 0.1, "{}", path.max_deviation());
    }

    #[test]
    fn sharp_corner_is_rounded_within_bounds() {
        // An L: 100 m east, then 100 m north (a right angle the least radius cannot follow).
        let mut pts: Vec<[f64; 2]> = (0..=50).map(|k| [2.0 * k as f64, 0.0]).collect();
        pts.extend((1..=50).map(|k| [100.0, 2.0 * k as f64]));
        let p = ClothoidParams::default();
        let path = fit_clothoids(&pts, &p).unwrap();
        assert_bounds(&path, &p);
        assert_pinned(&path, &pts);
        // The bounds force a real curve: some curvature near the bound, then a straight run.
        let len = path.length();
        let peak = (0..1000).map(|k| path.curvature_at(len * k as f64 / 1000.0)).fold(0.0, f64::max);
        assert!(peak > 0.5 * p.max_curvature, "peak {peak}");
        // Heading turns by a right angle end to end.
        let turn = path.heading_at(len) - path.heading_at(0.0);
        assert!((turn - 0.5 * PI).abs() < 0.05, "turn {turn}");
        // Corner cut: a 25 m radius with transitions cuts ≲ 15 m off the corner.
        assert!(path.max_deviation() < 15.0, "{}", path.max_deviation());
    }

    #[test]
    fn sampled_curvature_is_continuous_and_matches() {
        // A gentle S from a grid path (staircases of (3, 1) and (2, 1) runs with 1 m cells).
        let mut pts = vec![[0.0, 0.0]];
        let runs = [(3, 1), (3, 1), (3, 1), (2, 1), (2, 1), (3, 1), (1, 0), (1, 0), (3, -1), (3, -1), (2, -1), (3, -1)];
        for _ in 0..3 {
            for &(dx, dy) in &runs {
                let last: [f64; 2] = *pts.last().unwrap();
                pts.push([last[0] + 4.0 * f64::from(dx), last[1] + 4.0 * f64::from(dy)]);
            }
        }
        let p = ClothoidParams { knot_spacing: 3.0, ..Default::default() };
        let path = fit_clothoids(&pts, &p).unwrap();
        assert_bounds(&path, &p);
        assert_pinned(&path, &pts);
        // Discrete curvature of consecutive sample triples (turn / spacing) follows κ(s) and has
        // no jump larger than the sharpness bound allows.
        let h = 0.25;
        let samples = path.sample(h).unwrap();
        let hh = path.length() / (samples.len() - 1) as f64;
        let mut prev: Option<f64> = None;
        for k in 1..samples.len() - 1 {
            let turn = heading(samples[k], samples[k + 1]) - heading(samples[k - 1], samples[k]);
            let kd = ((turn + PI).rem_euclid(2.0 * PI) - PI) / hh;
            let ka = path.curvature_at(k as f64 * hh);
            // The chord-turn estimate averages κ over ±h/2: off by ≤ a sharpness step there.
            assert!((kd - ka).abs() < p.max_sharpness * hh, "sample {k}: discrete {kd} vs κ {ka}");
            if let Some(q) = prev {
                assert!((kd - q).abs() <= p.max_sharpness * hh + 1e-6, "jump at {k}: {q} → {kd}");
            }
            prev = Some(kd);
        }
        assert!(path.max_deviation() < 6.0, "{}", path.max_deviation());
    }

    #[test]
    fn random_walks_meet_bounds_and_pins() {
        let mut st = 7u64;
        for case in 0..20 {
            let mut pts = vec![[0.0, 0.0]];
            let mut ang: f64 = 0.0;
            for _ in 0..40 {
                ang += (lcg(&mut st) - 0.5) * 1.2;
                let l = 2.0 + 6.0 * lcg(&mut st);
                let last: [f64; 2] = *pts.last().unwrap();
                pts.push([last[0] + l * ang.cos(), last[1] + l * ang.sin()]);
            }
            let p = ClothoidParams { max_curvature: 0.02 + 0.1 * lcg(&mut st), ..Default::default() };
            match fit_clothoids(&pts, &p) {
                Ok(path) => {
                    assert_bounds(&path, &p);
                    assert_pinned(&path, &pts);
                }
                Err(e) => panic!("case {case}: {e}"),
            }
        }
    }

    #[test]
    fn refinement_pulls_the_curve_onto_the_input() {
        // A staircase (1 m cells, 8-connected) along y = 50 sin(x / 300) over 1.5 km: the
        // smoothing alone drifts (the staircase's extra length is uneven), the Gauss–Newton
        // refinement brings it within a cell.
        let pts: Vec<[f64; 2]> = (0..1500).map(|i| [i as f64, (50.0 * (i as f64 / 300.0).sin()).round()]).collect();
        let mut corner: Vec<[f64; 2]> = (0..=50).map(|k| [2.0 * k as f64, 0.0]).collect();
        corner.extend((1..=50).map(|k| [100.0, 2.0 * k as f64]));
        let plain = ClothoidParams { refine_iterations: 0, ..Default::default() };
        let p = ClothoidParams::default();
        let (a, b) = (fit_clothoids(&pts, &plain).unwrap(), fit_clothoids(&pts, &p).unwrap());
        assert_bounds(&b, &p);
        assert_pinned(&b, &pts);
        assert!(
            b.max_deviation() < 1.2 && b.max_deviation() < 0.5 * a.max_deviation(),
            "{} {}",
            a.max_deviation(),
            b.max_deviation()
        );
        // The corner: smoothing alone gives the symmetric clothoid–arc–clothoid (external
        // distance ≈ 11.8 m for R = 25 m, 25 m spirals); refinement trims it.
        let (a, b) = (fit_clothoids(&corner, &plain).unwrap(), fit_clothoids(&corner, &p).unwrap());
        assert!((a.max_deviation() - 11.8).abs() < 0.6, "{}", a.max_deviation());
        assert!(b.max_deviation() < a.max_deviation(), "{} {}", a.max_deviation(), b.max_deviation());
        assert_bounds(&b, &p);
    }

    #[test]
    fn fit_is_equivariant_under_rigid_motions() {
        // Rotating and translating the input moves the fitted curve the same way (no hidden
        // dependence on absolute coordinates or on the axes).
        let mut pts = vec![[0.0, 0.0]];
        let mut st = 99u64;
        let mut ang: f64 = 0.3;
        for _ in 0..30 {
            ang += (lcg(&mut st) - 0.5) * 0.5;
            let last: [f64; 2] = *pts.last().unwrap();
            pts.push([last[0] + 5.0 * ang.cos(), last[1] + 5.0 * ang.sin()]);
        }
        let (rot, shift) = (0.7_f64, [1000.0, -500.0]);
        let (c, s) = (rot.cos(), rot.sin());
        let moved: Vec<[f64; 2]> =
            pts.iter().map(|p| [shift[0] + c * p[0] - s * p[1], shift[1] + s * p[0] + c * p[1]]).collect();
        let p = ClothoidParams::default();
        let (a, b) = (fit_clothoids(&pts, &p).unwrap(), fit_clothoids(&moved, &p).unwrap());
        assert!((a.length() - b.length()).abs() < 1e-6 * a.length());
        assert!((a.max_deviation() - b.max_deviation()).abs() < 1e-6);
        for (q, r) in a.sample(2.0).unwrap().iter().zip(b.sample(2.0).unwrap()) {
            let qm = [shift[0] + c * q[0] - s * q[1], shift[1] + s * q[0] + c * q[1]];
            assert!(dist(qm, r) < 1e-6, "{qm:?} vs {r:?}");
        }
    }

    #[test]
    fn bad_input_refused() {
        let p = ClothoidParams::default();
        assert!(fit_clothoids(&[], &p).is_err());
        assert!(fit_clothoids(&[[1.0, 1.0]], &p).is_err());
        assert!(fit_clothoids(&[[1.0, 1.0], [1.0, 1.0]], &p).is_err());
        assert!(fit_clothoids(&[[0.0, 0.0], [f64::NAN, 1.0]], &p).is_err());
        let closed = [[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 0.0]];
        let e = fit_clothoids(&closed, &p).unwrap_err();
        assert!(e.to_string().contains("coincide"), "{e}");
        for bad in [
            ClothoidParams { max_curvature: 0.0, ..p.clone() },
            ClothoidParams { max_sharpness: f64::NAN, ..p.clone() },
            ClothoidParams { knot_spacing: -1.0, ..p.clone() },
            ClothoidParams { knot_spacing: 1e-12, ..p.clone() },
            ClothoidParams { refine_iterations: 5000, ..p.clone() },
        ] {
            assert!(matches!(fit_clothoids(&[[0.0, 0.0], [10.0, 0.0]], &bad), Err(WorldError::Param { .. })));
        }
        let path = fit_clothoids(&[[0.0, 0.0], [10.0, 0.0]], &p).unwrap();
        for s in [0.0, -1.0, f64::NAN, 1e-12] {
            assert!(path.sample(s).is_err(), "spacing {s}");
        }
        // A hairpin far tighter than the least radius: an answer within the bounds, or an error.
        let hairpin = [[0.0, 0.0], [50.0, 0.0], [50.0, 1.0], [0.0, 1.0]];
        if let Ok(path) = fit_clothoids(&hairpin, &p) {
            assert_bounds(&path, &p);
        }
    }
}

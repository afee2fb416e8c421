//! Camera paths: orbits, turntables, keyframe fly-throughs and auto-framing of a bounding box.
//!
//! Conventions are those of [`crate::camera`] (x east, y north, z up, metres; up hint `+z`).
//!
//! # Orbits and turntables
//!
//! [`orbit`] places the eye at `radius` from the target in the direction
//! `(cos e·sin A, cos e·cos A, sin e)`: elevation `e` above the horizontal plane through the
//! target, in (−90°, 90°), and azimuth `A` in degrees clockwise from north seen from above (the
//! azimuth convention of the hillshade's sun: 0 puts the camera north of the target looking
//! south, 90 east of it looking west). [`turntable`] takes `n` orbit cameras at azimuths
//! `start + 360·i/n`, `i = 0..n` (the end is excluded so a looping GIF does not repeat a frame).
//!
//! # Fly-through
//!
//! [`FlyThrough`] interpolates keyframe cameras `(camera, time)` with a cubic **Catmull–Rom
//! spline whose knots are the keyframe times** (the non-uniform Catmull–Rom of Barry and
//! Goldman): on each interval it is the cubic Hermite curve between the two keyframes with the
//! tangent at keyframe `i` equal to the derivative at `tᵢ` of the parabola through keyframes
//! `i−1, i, i+1`,
//! `mᵢ = (Δ₋·s₊ + Δ₊·s₋)/(Δ₋ + Δ₊)` with `Δ± = |tᵢ±₁ − tᵢ|`, `s± ` the chord slopes after and
//! before `tᵢ`. At the first and last keyframe the tangent is that of the parabola through the
//! three end keyframes (with two keyframes, the chord slope: the path is then
//! [`Camera::interpolate`]). So the path passes exactly through every keyframe and its velocity
//! is continuous (C¹) in time at every interior keyframe. Centripetal parameterisation is a
//! choice of times: [`FlyThrough::centripetal`] spaces the keyframes by the square root of the
//! chord length of (eye, target), which avoids cusps and self-intersections for unevenly spaced
//! keyframes. The spline runs on the quantities of [`Camera::interpolate`]: eye, target, up hint,
//! `ln tan(fov/2)`, `ln near`, `ln far`.
//!
//! # Auto-framing
//!
//! [`frame_bounds`] looks at an axis-aligned box from a given azimuth and elevation and finds the
//! closest eye for which all eight corners project inside the image shrunk by `margin` (a
//! fraction of the width on the left and right, of the height at the top and bottom). With the
//! orientation fixed, a corner at `(x, y, z)` along (right, true up, forward) is, for an eye at
//! `(a, b, c)` in the same frame, inside when `|x − a| ≤ tx·(z − c)` and `|y − b| ≤ ty·(z − c)` (`tx, ty` the half-tangents of
//! the field of view times `1 − 2·margin`); maximising `c` is a tiny linear programme with a
//! closed form: with `A = max(x − tx·z)`, `B = min(x + tx·z)` (and `C`, `D` likewise for y),
//! `c = min((B − A)/(2tx), (D − C)/(2ty))`, `a = (A + B)/2`, `b = (C + D)/2`. The box then touches
//! both margins of the binding axis; along the other axis the eye takes the middle of its
//! feasible range (equal slack on both sides of the constraints, which is not exactly centred in
//! pixels as the extreme corners lie at different depths). No closer camera with this
//! orientation contains the box. The eye also keeps every corner at least [`MIN_DEPTH`] times
//! the box diagonal deep: a wide lens could otherwise put it on a corner of the box (from a
//! corner, a box fills less than a 120° view); when that bound binds the box is smaller than
//! the margins allow, in the middle of both feasible ranges. A box seen exactly along a segment
//! (zero extent across the view) is an error. Near and far are set to half the nearest and twice the farthest
//! corner depth. [`orbit_fit`] gives instead one orbit radius around the box centre that keeps the
//! whole box inside for every azimuth and elevation (its bounding sphere inside the cone of the
//! smaller field of view), the radius to use with [`turntable`].
//!
//! # Errors
//!
//! Everything validates and names the offending value ([`CameraError`]): non-finite inputs,
//! radius ≤ 0, elevation outside (−90°, 90°), zero frames, fps ≤ 0, fewer than two keyframes,
//! non-increasing keyframe times, keyframes of different image sizes, inverted or empty boxes,
//! margin outside [0, 0.5). At most [`MAX_FRAMES`] cameras are generated at once.

use crate::camera::{add, check_vec, cross, dot, norm, scale3, sub, Camera, CameraError, Lens, Vec3, STATE};

/// The most cameras [`turntable`] and [`FlyThrough::frames`] produce in one call.
pub const MAX_FRAMES: usize = 1_000_000;

/// [`frame_bounds`] keeps every corner at least this fraction of the box diagonal in front of
/// the eye.
pub const MIN_DEPTH: f64 = 0.1;

const UP: Vec3 = [0.0, 0.0, 1.0];

/// Unit vector from the target towards the eye for an elevation and azimuth (degrees).
pub fn orbit_direction(elevation_deg: f64, azimuth_deg: f64) -> Vec3 {
    let (e, a) = (elevation_deg.to_radians(), azimuth_deg.to_radians());
    [e.cos() * a.sin(), e.cos() * a.cos(), e.sin()]
}

fn check_angles(elevation_deg: f64, azimuth_deg: f64) -> Result<(), CameraError> {
    if !(elevation_deg.is_finite() && elevation_deg > -90.0 && elevation_deg < 90.0) {
        return Err(CameraError::BadParam(format!("elevation {elevation_deg}° outside (-90, 90)")));
    }
    if !azimuth_deg.is_finite() {
        return Err(CameraError::NotFinite { what: "azimuth", value: vec![azimuth_deg] });
    }
    Ok(())
}

/// The camera at `radius` from `target`, at `elevation_deg` above the horizon and azimuth
/// `azimuth_deg` (clockwise from north), looking at the target with up `+z`.
///
/// # Examples
///
/// ```
/// use bozkir_render::camera::Lens;
/// use bozkir_render::path::orbit;
///
/// let lens = Lens { fov_deg: 45.0, width: 320, height: 240 };
/// let cam = orbit([0.0, 0.0, 0.0], 100.0, 0.0, 90.0, lens).unwrap(); // east of the target
/// assert!((cam.eye()[0] - 100.0).abs() < 1e-9 && cam.eye()[1].abs() < 1e-9);
/// ```
pub fn orbit(
    target: Vec3,
    radius: f64,
    elevation_deg: f64,
    azimuth_deg: f64,
    lens: Lens,
) -> Result<Camera, CameraError> {
    check_vec("target", target)?;
    if !(radius.is_finite() && radius > 0.0) {
        return Err(CameraError::BadParam(format!("orbit radius {radius} is not a positive number")));
    }
    check_angles(elevation_deg, azimuth_deg)?;
    let eye = add(target, scale3(orbit_direction(elevation_deg, azimuth_deg), radius));
    Camera::with_lens(eye, target, UP, lens)
}

/// `n_frames` orbit cameras at constant radius and elevation, azimuths
/// `start_azimuth_deg + 360·i/n_frames` for `i = 0..n_frames` (360 excluded).
pub fn turntable(
    n_frames: usize,
    target: Vec3,
    radius: f64,
    elevation_deg: f64,
    start_azimuth_deg: f64,
    lens: Lens,
) -> Result<Vec<Camera>, CameraError> {
    if n_frames == 0 || n_frames > MAX_FRAMES {
        return Err(CameraError::BadParam(format!("turntable frame count {n_frames} outside 1..={MAX_FRAMES}")));
    }
    (0..n_frames)
        .map(|i| orbit(target, radius, elevation_deg, start_azimuth_deg + 360.0 * i as f64 / n_frames as f64, lens))
        .collect()
}

/// A fly-through keyframe: the camera to pass through and when.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Keyframe {
    /// The camera at this keyframe (its eye, target, up, fov and clip planes are interpolated).
    pub camera: Camera,
    /// Time, seconds (any origin); strictly increasing along the keyframes.
    pub time: f64,
}

/// A keyframe fly-through: a C¹ Catmull–Rom spline through keyframe cameras (module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct FlyThrough {
    times: Vec<f64>,
    states: Vec<[f64; STATE]>,
    tangents: Vec<[f64; STATE]>,
    width: usize,
    height: usize,
}

impl FlyThrough {
    /// The fly-through through `keyframes` at their times. Needs at least two keyframes with
    /// finite, strictly increasing times and one image size.
    pub fn new(keyframes: Vec<Keyframe>) -> Result<FlyThrough, CameraError> {
        if keyframes.len() < 2 {
            return Err(CameraError::TooFewKeyframes(keyframes.len()));
        }
        let (width, height) = (keyframes[0].camera.width(), keyframes[0].camera.height());
        for (i, k) in keyframes.iter().enumerate() {
            if !k.time.is_finite() {
                return Err(CameraError::NotFinite { what: "keyframe time", value: vec![k.time] });
            }
            if i > 0 && k.time <= keyframes[i - 1].time {
                return Err(CameraError::TimesNotIncreasing {
                    index: i,
                    previous: keyframes[i - 1].time,
                    time: k.time,
                });
            }
            if (k.camera.width(), k.camera.height()) != (width, height) {
                return Err(CameraError::BadParam(format!(
                    "keyframe {i} has image size {}×{}, keyframe 0 {width}×{height}",
                    k.camera.width(),
                    k.camera.height()
                )));
            }
        }
        let times: Vec<f64> = keyframes.iter().map(|k| k.time).collect();
        let states: Vec<[f64; STATE]> = keyframes.iter().map(|k| k.camera.state()).collect();
        let tangents = tangents(&times, &states);
        Ok(FlyThrough { times, states, tangents, width, height })
    }

    /// A fly-through of `cameras` lasting `duration` seconds from time 0, the keyframe times
    /// spaced by the square root of the distance between consecutive keyframes in (eye, target)
    /// space (centripetal parameterisation). Consecutive keyframes must differ in eye or target.
    pub fn centripetal(cameras: Vec<Camera>, duration: f64) -> Result<FlyThrough, CameraError> {
        if !(duration.is_finite() && duration > 0.0) {
            return Err(CameraError::BadParam(format!("fly-through duration {duration} is not a positive number")));
        }
        if cameras.len() < 2 {
            return Err(CameraError::TooFewKeyframes(cameras.len()));
        }
        let mut knots = vec![0.0];
        for (i, w) in cameras.windows(2).enumerate() {
            let de = norm(sub(w[1].eye(), w[0].eye()));
            let dt = norm(sub(w[1].target(), w[0].target()));
            let step = (de * de + dt * dt).sqrt().sqrt();
            if !step.is_finite() {
                return Err(CameraError::NotFinite { what: "keyframe chord length", value: vec![step] });
            }
            if step <= 0.0 {
                return Err(CameraError::BadParam(format!(
                    "keyframes {i} and {} have the same eye and target: no centripetal spacing (give times with FlyThrough::new)",
                    i + 1
                )));
            }
            knots.push(knots[i] + step);
        }
        let total = knots[knots.len() - 1];
        let keys = cameras.into_iter().zip(&knots).map(|(camera, k)| Keyframe { camera, time: duration * k / total });
        FlyThrough::new(keys.collect())
    }

    /// Time of the first keyframe.
    pub fn start(&self) -> f64 {
        self.times[0]
    }

    /// Time of the last keyframe.
    pub fn end(&self) -> f64 {
        self.times[self.times.len() - 1]
    }

    /// Keyframe times.
    pub fn times(&self) -> &[f64] {
        &self.times
    }

    /// The camera at time `t`, clamped to `[start, end]`. Fails on a non-finite `t` or where the
    /// interpolated camera is degenerate (eye on target, up along the view, near ≥ far).
    pub fn sample(&self, t: f64) -> Result<Camera, CameraError> {
        if !t.is_finite() {
            return Err(CameraError::NotFinite { what: "fly-through time", value: vec![t] });
        }
        let t = t.clamp(self.start(), self.end());
        let n = self.times.len();
        let i = (self.times.partition_point(|&x| x <= t).max(1) - 1).min(n - 2);
        let (t0, t1) = (self.times[i], self.times[i + 1]);
        let h = t1 - t0;
        let s = (t - t0) / h;
        let (s2, s3) = (s * s, s * s * s);
        let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
        let h10 = s3 - 2.0 * s2 + s;
        let h01 = -2.0 * s3 + 3.0 * s2;
        let h11 = s3 - s2;
        let (p0, p1, m0, m1) = (&self.states[i], &self.states[i + 1], &self.tangents[i], &self.tangents[i + 1]);
        let mut v = [0.0; STATE];
        for (k, out) in v.iter_mut().enumerate() {
            *out = h00 * p0[k] + h10 * h * m0[k] + h01 * p1[k] + h11 * h * m1[k];
        }
        Camera::from_state(&v, self.width, self.height)
    }

    /// Cameras at `fps` frames per second from `start`: times `start + k/fps` for
    /// `k = 0..=⌊(end − start)·fps⌋` (so the last frame is at `end` when the duration is a
    /// whole number of frames).
    pub fn frames(&self, fps: f64) -> Result<Vec<Camera>, CameraError> {
        if !(fps.is_finite() && fps > 0.0) {
            return Err(CameraError::BadParam(format!("fps {fps} is not a positive number")));
        }
        let count = ((self.end() - self.start()) * fps * (1.0 + 1e-12)).floor() + 1.0;
        if !count.is_finite() || count > MAX_FRAMES as f64 {
            return Err(CameraError::BadParam(format!(
                "{count} frames at fps {fps} over {} s exceed {MAX_FRAMES}",
                self.end() - self.start()
            )));
        }
        (0..count as usize).map(|k| self.sample(self.start() + k as f64 / fps)).collect()
    }
}

/// Catmull–Rom tangents with the times as knots (module docs).
fn tangents(times: &[f64], states: &[[f64; STATE]]) -> Vec<[f64; STATE]> {
    let n = times.len();
    let slope = |i: usize| -> [f64; STATE] {
        std::array::from_fn(|k| (states[i + 1][k] - states[i][k]) / (times[i + 1] - times[i]))
    };
    if n == 2 {
        return vec![slope(0); 2];
    }
    let mut out = Vec::with_capacity(n);
    // Ends: the derivative of the parabola through the three end keyframes.
    let (s0, s1) = (slope(0), slope(1));
    let w = (times[1] - times[0]) / (times[2] - times[0]);
    out.push(std::array::from_fn(|k| s0[k] - (s1[k] - s0[k]) * w));
    for i in 1..n - 1 {
        let (dm, dp) = (times[i] - times[i - 1], times[i + 1] - times[i]);
        let (before, after) = (slope(i - 1), slope(i));
        out.push(std::array::from_fn(|k| (dm * after[k] + dp * before[k]) / (dm + dp)));
    }
    let (a, b) = (slope(n - 3), slope(n - 2));
    let w = (times[n - 1] - times[n - 2]) / (times[n - 1] - times[n - 3]);
    out.push(std::array::from_fn(|k| b[k] + (b[k] - a[k]) * w));
    out
}

fn check_box(aabb_min: Vec3, aabb_max: Vec3) -> Result<f64, CameraError> {
    check_vec("box minimum", aabb_min)?;
    check_vec("box maximum", aabb_max)?;
    if (0..3).any(|i| aabb_min[i] > aabb_max[i]) {
        return Err(CameraError::BadParam(format!("box minimum {aabb_min:?} exceeds maximum {aabb_max:?}")));
    }
    let diag = norm(sub(aabb_max, aabb_min));
    if !(diag > 0.0 && diag.is_finite()) {
        return Err(CameraError::BadParam(format!("box {aabb_min:?}–{aabb_max:?} has no extent")));
    }
    Ok(diag)
}

fn check_margin(margin: f64) -> Result<(), CameraError> {
    if margin.is_finite() && (0.0..0.5).contains(&margin) {
        Ok(())
    } else {
        Err(CameraError::BadParam(format!("margin {margin} outside [0, 0.5)")))
    }
}

fn corners(aabb_min: Vec3, aabb_max: Vec3) -> [Vec3; 8] {
    let mut c = [[0.0; 3]; 8];
    for (i, p) in c.iter_mut().enumerate() {
        for (k, v) in p.iter_mut().enumerate() {
            *v = if i >> k & 1 == 0 { aabb_min[k] } else { aabb_max[k] };
        }
    }
    c
}

/// The closest camera looking from `azimuth_deg`, `elevation_deg` (as in [`orbit`]) for which
/// all eight corners of the box `aabb_min`–`aabb_max` project inside the image less `margin`
/// (a fraction in [0, 0.5) of the width at the sides, of the height at the top and bottom); up
/// `+z`. See the module docs for the construction.
///
/// # Examples
///
/// ```
/// use bozkir_render::camera::Lens;
/// use bozkir_render::path::frame_bounds;
///
/// let lens = Lens { fov_deg: 50.0, width: 400, height: 300 };
/// let cam = frame_bounds([0.0, 0.0, 0.0], [100.0, 80.0, 20.0], 30.0, 35.0, lens, 0.05).unwrap();
/// let p = cam.project([100.0, 80.0, 20.0]).unwrap();
/// assert!(p[0] >= 20.0 - 1e-6 && p[0] <= 380.0 + 1e-6 && p[1] >= 15.0 - 1e-6 && p[1] <= 285.0 + 1e-6);
/// ```
pub fn frame_bounds(
    aabb_min: Vec3,
    aabb_max: Vec3,
    azimuth_deg: f64,
    elevation_deg: f64,
    lens: Lens,
    margin: f64,
) -> Result<Camera, CameraError> {
    let diag = check_box(aabb_min, aabb_max)?;
    check_angles(elevation_deg, azimuth_deg)?;
    lens.validate()?;
    check_margin(margin)?;
    let forward = scale3(orbit_direction(elevation_deg, azimuth_deg), -1.0);
    let side = cross(forward, UP);
    let right = scale3(side, 1.0 / norm(side));
    let up = cross(right, forward);
    let centre = scale3(add(aabb_min, aabb_max), 0.5);
    let (tx, ty) = lens.half_tans();
    let (tx, ty) = (tx * (1.0 - 2.0 * margin), ty * (1.0 - 2.0 * margin));
    let (mut a, mut b, mut c, mut d) = (f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY);
    let cam_coords = corners(aabb_min, aabb_max).map(|p| {
        let q = sub(p, centre);
        [dot(q, right), dot(q, up), dot(q, forward)]
    });
    for &[x, y, z] in &cam_coords {
        a = a.max(x - tx * z);
        b = b.min(x + tx * z);
        c = c.max(y - ty * z);
        d = d.min(y + ty * z);
    }
    let spread = |k: usize| {
        let v = cam_coords.iter().map(|p| p[k]);
        v.clone().fold(f64::NEG_INFINITY, f64::max) - v.fold(f64::INFINITY, f64::min)
    };
    if spread(0).max(spread(1)) <= 1e-9 * diag {
        return Err(CameraError::BadParam(format!(
            "box {aabb_min:?}–{aabb_max:?} is a point in the image from azimuth {azimuth_deg}°, elevation {elevation_deg}°"
        )));
    }
    let nearest = cam_coords.iter().map(|p| p[2]).fold(f64::INFINITY, f64::min);
    let depth = ((b - a) / (2.0 * tx)).min((d - c) / (2.0 * ty)).min(nearest - MIN_DEPTH * diag);
    let (ex, ey) = (0.5 * (a + b), 0.5 * (c + d));
    let near_z = nearest - depth;
    let far_z = cam_coords.iter().map(|p| p[2] - depth).fold(f64::NEG_INFINITY, f64::max);
    let offset = add(scale3(right, ex), scale3(up, ey));
    let eye = add(centre, add(offset, scale3(forward, depth)));
    let target = add(centre, offset);
    Camera::with_lens(eye, target, UP, lens)?.with_clip(0.5 * near_z, 2.0 * far_z)
}

/// Centre and orbit radius that keep the box `aabb_min`–`aabb_max` inside the image less
/// `margin` (as in [`frame_bounds`]) for any azimuth and elevation: the radius at which the
/// box's bounding sphere fills the cone of the smaller half field of view (shrunk by the margin).
/// Feed them to [`orbit`] or [`turntable`].
pub fn orbit_fit(aabb_min: Vec3, aabb_max: Vec3, lens: Lens, margin: f64) -> Result<(Vec3, f64), CameraError> {
    let diag = check_box(aabb_min, aabb_max)?;
    lens.validate()?;
    check_margin(margin)?;
    let (tx, ty) = lens.half_tans();
    let half = (tx.min(ty) * (1.0 - 2.0 * margin)).atan();
    Ok((scale3(add(aabb_min, aabb_max), 0.5), 0.5 * diag / half.sin()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LENS: Lens = Lens { fov_deg: 50.0, width: 480, height: 270 };

    fn close(a: Vec3, b: Vec3, tol: f64) -> bool {
        (0..3).all(|i| (a[i] - b[i]).abs() <= tol)
    }

    #[test]
    fn orbit_radius_and_elevation_exact() {
        let target = [1200.0, -340.0, 85.0];
        for &(r, e, a) in
            &[(10.0, 0.0, 0.0), (250.0, 30.0, 45.0), (5000.0, -20.0, 200.0), (1.0, 89.0, 359.0), (77.0, 60.0, -30.0)]
        {
            let cam = orbit(target, r, e, a, LENS).unwrap();
            let v = sub(cam.eye(), target);
            assert!((norm(v) - r).abs() < 1e-12 * r.max(1.0) * 10.0, "radius {} vs {r}", norm(v));
            let elev = (v[2] / norm(v)).asin().to_degrees();
            assert!((elev - e).abs() < 1e-10, "elevation {elev} vs {e}");
            // Azimuth clockwise from north: atan2(east, north).
            if e.abs() < 89.0 {
                let az = v[0].atan2(v[1]).to_degrees().rem_euclid(360.0);
                let want = a.rem_euclid(360.0);
                let diff = (az - want).abs();
                assert!(diff < 1e-9 || (diff - 360.0).abs() < 1e-9, "azimuth {az} vs {want}");
            }
            assert!(close(cam.target(), target, 0.0));
            assert!(cam.true_up()[2] > 0.0, "image up points up in the world");
        }
        let north = orbit([0.0; 3], 10.0, 0.0, 0.0, LENS).unwrap();
        assert!(close(north.eye(), [0.0, 10.0, 0.0], 1e-12) && close(north.forward(), [0.0, -1.0, 0.0], 1e-15));
    }

    #[test]
    fn orbit_errors_name_values() {
        for (r, e, a, msg) in [
            (0.0, 10.0, 0.0, "orbit radius 0"),
            (-3.0, 10.0, 0.0, "orbit radius -3"),
            (f64::NAN, 10.0, 0.0, "orbit radius NaN"),
            (5.0, 90.0, 0.0, "elevation 90°"),
            (5.0, -95.0, 0.0, "elevation -95°"),
            (5.0, 10.0, f64::INFINITY, "azimuth [inf]"),
        ] {
            let e = orbit([0.0; 3], r, e, a, LENS).unwrap_err();
            assert!(e.to_string().contains(msg), "{e} lacks {msg}");
        }
        let bad = Lens { fov_deg: 0.0, ..LENS };
        assert_eq!(orbit([0.0; 3], 5.0, 10.0, 0.0, bad).unwrap_err(), CameraError::Fov(0.0));
        let e = orbit([0.0; 3], 5.0, 10.0, 0.0, Lens { width: 0, ..LENS }).unwrap_err();
        assert_eq!(e, CameraError::EmptyImage { width: 0, height: 270 });
    }

    #[test]
    fn turntable_evenly_spaced_and_distinct() {
        let target = [10.0, 20.0, 30.0];
        for n in [1usize, 2, 3, 7, 36, 120] {
            let cams = turntable(n, target, 400.0, 25.0, 15.0, LENS).unwrap();
            assert_eq!(cams.len(), n);
            let step = 360.0 / n as f64;
            let chord = 2.0 * 400.0 * 25f64.to_radians().cos() * (0.5 * step.to_radians()).sin();
            for (i, c) in cams.iter().enumerate() {
                let v = sub(c.eye(), target);
                assert!((norm(v) - 400.0).abs() < 1e-9);
                assert!(((v[2] / 400.0).asin().to_degrees() - 25.0).abs() < 1e-9);
                let az = v[0].atan2(v[1]).to_degrees();
                let want = 15.0 + step * i as f64;
                let d = (az - want).rem_euclid(360.0);
                assert!(d < 1e-9 || 360.0 - d < 1e-9, "frame {i}: azimuth {az} vs {want}");
                // Consecutive eyes (cyclically) are one equal chord apart: even, distinct, no repeat.
                if n > 1 {
                    let next = cams[(i + 1) % n].eye();
                    assert!((norm(sub(next, c.eye())) - chord).abs() < 1e-9, "uneven step at {i}");
                }
            }
            for i in 0..n {
                for j in 0..i {
                    assert!(norm(sub(cams[i].eye(), cams[j].eye())) > 1e-6, "frames {j} and {i} coincide");
                }
            }
        }
        assert!(turntable(0, target, 1.0, 0.0, 0.0, LENS).unwrap_err().to_string().contains("frame count 0"));
    }

    fn cam(eye: Vec3, target: Vec3, fov: f64) -> Camera {
        Camera::look_at(eye, target, [0.0, 0.0, 1.0], fov, 320, 200).unwrap()
    }

    fn zigzag() -> Vec<Keyframe> {
        vec![
            Keyframe { camera: cam([0.0, 0.0, 50.0], [0.0, 100.0, 0.0], 60.0), time: 0.0 },
            Keyframe {
                camera: cam([80.0, 40.0, 70.0], [20.0, 150.0, 5.0], 40.0).with_clip(0.5, 900.0).unwrap(),
                time: 1.5,
            },
            Keyframe { camera: cam([60.0, 200.0, 30.0], [200.0, 220.0, 0.0], 75.0), time: 2.0 },
            Keyframe { camera: cam([-50.0, 260.0, 120.0], [0.0, 0.0, 0.0], 30.0), time: 4.5 },
            Keyframe { camera: cam([-90.0, 100.0, 60.0], [50.0, 50.0, 10.0], 50.0), time: 5.0 },
        ]
    }

    #[test]
    fn fly_through_passes_through_keyframes() {
        let keys = zigzag();
        let fly = FlyThrough::new(keys.clone()).unwrap();
        for k in &keys {
            let c = fly.sample(k.time).unwrap();
            assert!(close(c.eye(), k.camera.eye(), 1e-12), "{:?} vs {:?}", c.eye(), k.camera.eye());
            assert!(close(c.target(), k.camera.target(), 1e-12));
            assert!((c.fov_deg() - k.camera.fov_deg()).abs() < 1e-12);
            assert!((c.near() - k.camera.near()).abs() < 1e-12 * k.camera.near());
            assert!((c.far() - k.camera.far()).abs() < 1e-12 * k.camera.far());
        }
        // Clamped outside the keyframe range.
        assert_eq!(fly.sample(-3.0).unwrap(), fly.sample(0.0).unwrap());
        assert_eq!(fly.sample(99.0).unwrap(), fly.sample(5.0).unwrap());
    }

    #[test]
    fn fly_through_is_c1_at_interior_keyframes() {
        let keys = zigzag();
        let fly = FlyThrough::new(keys.clone()).unwrap();
        let h = 1e-5;
        let pos = |t: f64| {
            let c = fly.sample(t).unwrap();
            let (e, g) = (c.eye(), c.target());
            [e[0], e[1], e[2], g[0], g[1], g[2], c.fov_deg()]
        };
        for i in 1..keys.len() - 1 {
            let t = keys[i].time;
            let (l, m, r) = (pos(t - h), pos(t), pos(t + h));
            // The chord slopes around the keyframe differ a lot: a polyline would fail.
            let (pl, pm, pr) = (keys[i - 1].camera.eye(), keys[i].camera.eye(), keys[i + 1].camera.eye());
            let kink: f64 = (0..3)
                .map(|k| (pm[k] - pl[k]) / (t - keys[i - 1].time) - (pr[k] - pm[k]) / (keys[i + 1].time - t))
                .map(f64::abs)
                .fold(0.0, f64::max);
            assert!(kink > 10.0, "test path too straight at {i}");
            for k in 0..7 {
                let left = (m[k] - l[k]) / h;
                let right = (r[k] - m[k]) / h;
                assert!(
                    (left - right).abs() < 1e-3 * (1.0 + left.abs()),
                    "keyframe {i} component {k}: {left} vs {right}"
                );
            }
        }
        // Within segments the path is smooth too and continuous everywhere.
        let mut prev = pos(0.0);
        for s in 1..=5000 {
            let p = pos(s as f64 * 1e-3);
            for k in 0..6 {
                assert!((p[k] - prev[k]).abs() < 1.0, "jump at step {s}");
            }
            prev = p;
        }
    }

    #[test]
    fn two_keyframes_are_interpolation() {
        let a = cam([0.0, -100.0, 40.0], [0.0; 3], 60.0);
        let b = cam([100.0, 0.0, 80.0], [10.0, 10.0, 0.0], 20.0);
        let fly = FlyThrough::new(vec![Keyframe { camera: a, time: 2.0 }, Keyframe { camera: b, time: 6.0 }]).unwrap();
        for s in [0.0, 0.1, 0.37, 0.5, 0.9, 1.0] {
            let f = fly.sample(2.0 + 4.0 * s).unwrap();
            let i = Camera::interpolate(&a, &b, s).unwrap();
            assert!(close(f.eye(), i.eye(), 1e-9) && close(f.target(), i.target(), 1e-9));
            assert!((f.fov_deg() - i.fov_deg()).abs() < 1e-9);
        }
    }

    #[test]
    fn frames_at_fps() {
        let fly = FlyThrough::new(zigzag()).unwrap();
        let frames = fly.frames(10.0).unwrap();
        assert_eq!(frames.len(), 51);
        assert!(close(frames[0].eye(), zigzag()[0].camera.eye(), 1e-12));
        assert!(close(frames[50].eye(), zigzag()[4].camera.eye(), 1e-9));
        assert!(close(frames[15].eye(), zigzag()[1].camera.eye(), 1e-9));
        assert_eq!(fly.frames(3.0).unwrap().len(), 16);
        for fps in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(matches!(fly.frames(fps), Err(CameraError::BadParam(_))), "fps {fps}");
        }
        assert!(fly.frames(1e9).unwrap_err().to_string().contains("exceed"));
    }

    #[test]
    fn fly_through_errors() {
        let keys = zigzag();
        assert_eq!(FlyThrough::new(vec![]).unwrap_err(), CameraError::TooFewKeyframes(0));
        assert_eq!(FlyThrough::new(keys[..1].to_vec()).unwrap_err(), CameraError::TooFewKeyframes(1));
        let mut same = keys.clone();
        same[2].time = same[1].time;
        let e = FlyThrough::new(same).unwrap_err();
        assert_eq!(e, CameraError::TimesNotIncreasing { index: 2, previous: 1.5, time: 1.5 });
        assert_eq!(e.to_string(), "keyframe 2 at time 1.5 does not come after keyframe 1 at time 1.5");
        let mut back = keys.clone();
        back[3].time = 1.0;
        assert!(matches!(FlyThrough::new(back).unwrap_err(), CameraError::TimesNotIncreasing { index: 3, .. }));
        let mut nan = keys.clone();
        nan[0].time = f64::NAN;
        assert!(matches!(FlyThrough::new(nan).unwrap_err(), CameraError::NotFinite { what: "keyframe time", .. }));
        let mut sizes = keys.clone();
        sizes[4].camera = Camera::look_at([0.0; 3], [1.0; 3], [0.0, 0.0, 1.0], 40.0, 64, 64).unwrap();
        assert!(FlyThrough::new(sizes).unwrap_err().to_string().contains("keyframe 4 has image size 64×64"));
        let fly = FlyThrough::new(keys).unwrap();
        assert!(matches!(fly.sample(f64::NAN), Err(CameraError::NotFinite { .. })));
        let c = cam([0.0; 3], [1.0, 0.0, 0.0], 40.0);
        assert!(FlyThrough::centripetal(vec![c, c], 1.0).unwrap_err().to_string().contains("same eye and target"));
        assert!(FlyThrough::centripetal(vec![c], 1.0).is_err());
        assert!(FlyThrough::centripetal(vec![c, c], 0.0).unwrap_err().to_string().contains("duration 0"));
    }

    #[test]
    fn centripetal_times() {
        let cams: Vec<Camera> = zigzag().into_iter().map(|k| k.camera).collect();
        let fly = FlyThrough::centripetal(cams.clone(), 8.0).unwrap();
        let t = fly.times();
        assert_eq!(t[0], 0.0);
        assert!((t[4] - 8.0).abs() < 1e-12);
        // Steps ∝ (chord length)^½.
        let chord = |i: usize| {
            let de = norm(sub(cams[i + 1].eye(), cams[i].eye()));
            let dt = norm(sub(cams[i + 1].target(), cams[i].target()));
            (de * de + dt * dt).sqrt()
        };
        let ratio = (t[1] - t[0]) / chord(0).sqrt();
        for i in 1..4 {
            assert!(((t[i + 1] - t[i]) / chord(i).sqrt() - ratio).abs() < 1e-12 * ratio);
        }
        for (i, c) in cams.iter().enumerate() {
            assert!(close(fly.sample(t[i]).unwrap().eye(), c.eye(), 1e-12));
        }
    }

    /// Pixel bounds of the box's corners.
    fn corner_bounds(cam: &Camera, lo: Vec3, hi: Vec3) -> Option<[f64; 4]> {
        let mut b = [f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY];
        for p in corners(lo, hi) {
            let q = cam.project(p)?;
            b = [b[0].min(q[0]), b[1].max(q[0]), b[2].min(q[1]), b[3].max(q[1])];
        }
        Some(b)
    }

    #[test]
    fn frame_bounds_contains_and_fills() {
        let boxes = [
            ([0.0, 0.0, 0.0], [100.0, 100.0, 100.0]),
            ([-500.0, 200.0, -10.0], [1500.0, 900.0, 300.0]),
            ([0.0, 0.0, 0.0], [4096.0, 4096.0, 0.0]), // flat terrain
            ([10.0, 10.0, 0.0], [12.0, 11.0, 400.0]), // a tower
        ];
        let lenses =
            [LENS, Lens { fov_deg: 20.0, width: 300, height: 900 }, Lens { fov_deg: 120.0, width: 64, height: 64 }];
        let (mut n, mut bound_by_depth) = (0, 0);
        for (lo, hi) in boxes {
            for lens in lenses {
                for (az, el) in [(0.0, 30.0), (45.0, 10.0), (200.0, 60.0), (310.0, -25.0), (90.0, 0.0), (13.0, 85.0)] {
                    for margin in [0.0, 0.05, 0.2] {
                        let cam = frame_bounds(lo, hi, az, el, lens, margin)
                            .unwrap_or_else(|e| panic!("{lo:?} {hi:?} az {az} el {el}: {e}"));
                        let (w, h) = (lens.width as f64, lens.height as f64);
                        let (mx, my) = (margin * w, margin * h);
                        let b = corner_bounds(&cam, lo, hi).expect("all corners in front of the near plane");
                        let tol = 1e-7 * w.max(h);
                        assert!(b[0] >= mx - tol && b[1] <= w - mx + tol, "x {b:?} in {w} margin {mx}");
                        assert!(b[2] >= my - tol && b[3] <= h - my + tol, "y {b:?} in {h} margin {my}");
                        // Tight: one axis touches both margins, or the depth bound binds.
                        let x_tight = (b[0] - mx).abs() < tol && (b[1] - (w - mx)).abs() < tol;
                        let y_tight = (b[2] - my).abs() < tol && (b[3] - (h - my)).abs() < tol;
                        let diag = norm(sub(hi, lo));
                        let nearest =
                            corners(lo, hi).map(|p| cam.to_camera(p)[2]).into_iter().fold(f64::INFINITY, f64::min);
                        assert!(nearest >= MIN_DEPTH * diag * (1.0 - 1e-9), "corner at depth {nearest}");
                        let depth_bound = (nearest - MIN_DEPTH * diag).abs() < 1e-9 * diag;
                        assert!(x_tight || y_tight || depth_bound, "not tight: {b:?} in {w}×{h} margin {margin}");
                        if depth_bound {
                            // Never for a moderate lens on a box that is not a thin tower.
                            assert!(lens.fov_deg > 100.0 || hi[2] > 10.0 * (hi[0] - lo[0]), "{lo:?} {hi:?} {az} {el}");
                            bound_by_depth += 1;
                        } else {
                            // Minimal: 1 % closer along the view axis, some corner leaves the frame.
                            let dist = norm(sub(cam.target(), cam.eye()));
                            let closer = add(cam.eye(), scale3(cam.forward(), 0.01 * dist));
                            let c2 = Camera::with_lens(closer, cam.target(), [0.0, 0.0, 1.0], lens).unwrap();
                            let out = match corner_bounds(&c2, lo, hi) {
                                None => true,
                                Some(b) => {
                                    b[0] < mx - tol || b[1] > w - mx + tol || b[2] < my - tol || b[3] > h - my + tol
                                }
                            };
                            assert!(out, "a closer camera also fits: {lo:?} {hi:?} {az} {el}");
                        }
                        // Clip planes enclose the box.
                        for p in corners(lo, hi) {
                            let d = cam.to_camera(p)[2];
                            assert!(d > cam.near() && d < cam.far());
                        }
                        n += 1;
                    }
                }
            }
        }
        assert_eq!(n, 4 * 3 * 6 * 3);
        // The depth bound binds for the wide lens and the tower seen from above, not in general.
        assert!(bound_by_depth > 0 && bound_by_depth < n / 3, "{bound_by_depth} of {n} bound by depth");
        eprintln!("{bound_by_depth} of {n} framings bound by depth");
    }

    #[test]
    fn frame_bounds_errors() {
        let e = frame_bounds([0.0; 3], [0.0; 3], 0.0, 30.0, LENS, 0.1).unwrap_err();
        assert!(e.to_string().contains("no extent"), "{e}");
        let e = frame_bounds([5.0, 0.0, 0.0], [1.0; 3], 0.0, 30.0, LENS, 0.1).unwrap_err();
        assert!(e.to_string().contains("exceeds maximum"), "{e}");
        let e = frame_bounds([0.0; 3], [1.0, f64::NAN, 1.0], 0.0, 30.0, LENS, 0.1).unwrap_err();
        assert!(e.to_string().contains("box maximum"), "{e}");
        for m in [-0.1, 0.5, f64::NAN] {
            assert!(frame_bounds([0.0; 3], [1.0; 3], 0.0, 30.0, LENS, m).unwrap_err().to_string().contains("margin"));
        }
        assert!(frame_bounds([0.0; 3], [1.0; 3], 0.0, 90.0, LENS, 0.1)
            .unwrap_err()
            .to_string()
            .contains("elevation 90"));
        // A vertical segment seen from above-ish is fine; seen exactly edge-on a flat box is a line.
        let e = frame_bounds([0.0; 3], [0.0, 0.0, 10.0], 0.0, 0.0, LENS, 0.1);
        assert!(e.is_ok());
        let e = frame_bounds([0.0; 3], [0.0, 10.0, 0.0], 0.0, 0.0, LENS, 0.1).unwrap_err();
        assert!(e.to_string().contains("is a point"), "{e}");
    }

    #[test]
    fn orbit_fit_keeps_box_in_every_turntable_frame() {
        let (lo, hi) = ([-300.0, 0.0, 0.0], [700.0, 400.0, 250.0]);
        for lens in [LENS, Lens { fov_deg: 30.0, width: 200, height: 500 }] {
            let (centre, radius) = orbit_fit(lo, hi, lens, 0.05).unwrap();
            for el in [-60.0, 0.0, 20.0, 45.0, 80.0] {
                for cam in turntable(24, centre, radius, el, 7.0, lens).unwrap() {
                    let (w, h) = (lens.width as f64, lens.height as f64);
                    let b = corner_bounds(&cam, lo, hi).unwrap();
                    assert!(b[0] >= 0.05 * w && b[1] <= 0.95 * w && b[2] >= 0.05 * h && b[3] <= 0.95 * h, "{b:?}");
                }
            }
            // The bounding sphere is tangent to the cone of the narrower half field of view.
            let (tx, ty) = lens.half_tans();
            let half = (tx.min(ty) * 0.9).atan();
            let r_sphere = 0.5 * norm(sub(hi, lo));
            assert!((radius * half.sin() - r_sphere).abs() < 1e-9 * r_sphere);
        }
    }

    #[test]
    fn paths_are_deterministic() {
        let a = FlyThrough::new(zigzag()).unwrap().frames(24.0).unwrap();
        let b = FlyThrough::new(zigzag()).unwrap().frames(24.0).unwrap();
        assert_eq!(a, b);
        let bits = |c: &Camera| c.eye().map(f64::to_bits);
        assert!(a.iter().zip(&b).all(|(x, y)| bits(x) == bits(y)));
        assert_eq!(
            turntable(12, [1.0; 3], 9.0, 20.0, 0.0, LENS).unwrap(),
            turntable(12, [1.0; 3], 9.0, 20.0, 0.0, LENS).unwrap()
        );
        let f1 = frame_bounds([0.0; 3], [3.0, 2.0, 1.0], 33.0, 21.0, LENS, 0.1).unwrap();
        let f2 = frame_bounds([0.0; 3], [3.0, 2.0, 1.0], 33.0, 21.0, LENS, 0.1).unwrap();
        assert_eq!(f1, f2);
    }
}

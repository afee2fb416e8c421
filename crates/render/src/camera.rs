//! Pinhole camera: placement by `look_at`, intrinsics from the field of view, projection of
//! world points to pixels, rays through pixels, OpenGL-style matrices and interpolation.
//!
//! # Conventions
//!
//! - **World frame**: right-handed, x east, y north, z up, metres (the terrain/world frame of the
//!   project). Everything is `f64`.
//! - **Camera basis**: forward `f = (target − eye)/|target − eye|`, right `r = (f × up)/|f × up|`,
//!   true up `u = r × f`. `(r, u, f)` is orthonormal; `(r, u, −f)` is right-handed (OpenGL's
//!   camera space, looking down −z). Looking north with `up = z`, right is east.
//! - **Pixels**: continuous coordinates, `(0, 0)` the top-left corner of the image, x to the
//!   right, y down; pixel `(i, j)` covers `[i, i+1) × [j, j+1)` and its centre is
//!   `(i + ½, j + ½)`. Pixels are square.
//! - **Intrinsics** (from the vertical field of view `fov`): `fy = (height/2)/tan(fov/2)`,
//!   `fx = fy`, `cx = width/2`, `cy = height/2`.
//! - **Projection**: a point `p` with camera coordinates `(x, y, d) = ((p−eye)·r, (p−eye)·u,
//!   (p−eye)·f)` lands on pixel `(cx + fx·x/d, cy − fy·y/d)` with depth `d`, the distance along
//!   the view axis (not along the ray). [`Camera::project`] gives `None` when `d < near`; points
//!   beyond `far` or outside the image still project (clipping them is the renderer's choice).
//! - **Rays**: [`Camera::ray`] is the inverse: the ray from the eye through a pixel, with a unit
//!   direction; the point at ray parameter `s` has depth `s·(dir·f)`.
//! - **Matrices**: [`Mat4`] is `[[f64; 4]; 4]`, **row-major** (`m[row][col]`), acting on column
//!   vectors: `clip = P·V·[x, y, z, 1]ᵀ`. Transpose it ([`transpose`]) for a column-major upload
//!   (WebGL, glTF). The view matrix maps the world to OpenGL camera space (x right, y up, the
//!   camera looking down −z); the projection is OpenGL's perspective (as `gluPerspective`):
//!   after the divide by `w`, NDC x, y, z all lie in `[−1, 1]` inside the frustum, x to the right,
//!   y up, z = −1 at `near` and +1 at `far`. NDC maps to pixels by
//!   `px = (x_ndc + 1)/2·width`, `py = (1 − y_ndc)/2·height`, which agrees with
//!   [`Camera::project`].
//! - **Clip planes**: [`Camera::look_at`] sets `near = d/1000`, `far = 1000·d` with `d` the
//!   eye–target distance; [`Camera::with_clip`] sets them explicitly (`0 < near < far`).
//!
//! # Interpolation
//!
//! [`Camera::interpolate`] blends two cameras of the same image size: eye and target linearly
//! (the camera slides along the chord and keeps looking at a point sliding along the other
//! chord); the up hint as a normalised linear blend; the zoom linearly in `ln tan(fov/2)` (log
//! focal length, so a zoom feels uniform and the fov stays inside (0°, 180°)); near and far
//! linearly in their logarithms. The fly-through spline of [`crate::path`] interpolates the same
//! quantities, so a two-keyframe fly-through is this interpolation.
//!
//! # Errors
//!
//! Constructors validate and name the offending value ([`CameraError`]): non-finite
//! coordinates, an empty image, a field of view outside (0°, 180°), the eye on the target (closer
//! than `1e-12` times the larger of 1 and the points' magnitudes), an up hint parallel to the view
//! direction (`|f × û| < 1e-9`), bad clip planes. A constructed [`Camera`] is always valid, so
//! its methods do not fail; nothing panics.

use std::fmt;

/// A point or vector of the world frame: `[x east, y north, z up]`, metres.
pub type Vec3 = [f64; 3];

/// A 4×4 matrix, row-major (`m[row][col]`), acting on column vectors.
pub type Mat4 = [[f64; 4]; 4];

/// Why a camera, path or framing cannot be built.
#[derive(Debug, Clone, PartialEq)]
pub enum CameraError {
    /// A value that must be finite is not (`what` names it, `value` holds it).
    NotFinite { what: &'static str, value: Vec<f64> },
    /// An image with no pixels.
    EmptyImage { width: usize, height: usize },
    /// A vertical field of view outside (0°, 180°), in degrees.
    Fov(f64),
    /// The eye on the target: no view direction.
    EyeAtTarget { eye: Vec3, target: Vec3 },
    /// The up hint is zero or parallel to the view direction.
    UpParallel { up: Vec3, forward: Vec3 },
    /// Clip planes not satisfying `0 < near < far`.
    Clip { near: f64, far: f64 },
    /// A fly-through with fewer than two keyframes.
    TooFewKeyframes(usize),
    /// Keyframe `index` does not come strictly after keyframe `index − 1`.
    TimesNotIncreasing { index: usize, previous: f64, time: f64 },
    /// Any other parameter out of range; the message names it and its value.
    BadParam(String),
}

impl fmt::Display for CameraError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CameraError::NotFinite { what, value } => write!(f, "{what} {value:?} is not finite"),
            CameraError::EmptyImage { width, height } => write!(f, "image size {width}×{height} has no pixels"),
            CameraError::Fov(v) => write!(f, "field of view {v}° outside (0, 180)"),
            CameraError::EyeAtTarget { eye, target } => {
                write!(f, "eye {eye:?} coincides with target {target:?}: no view direction")
            }
            CameraError::UpParallel { up, forward } => {
                write!(f, "up {up:?} is zero or parallel to the view direction {forward:?}")
            }
            CameraError::Clip { near, far } => write!(f, "clip planes near {near}, far {far}: need 0 < near < far"),
            CameraError::TooFewKeyframes(n) => write!(f, "a fly-through needs at least 2 keyframes, got {n}"),
            CameraError::TimesNotIncreasing { index, previous, time } => write!(
                f,
                "keyframe {index} at time {time} does not come after keyframe {} at time {previous}",
                index.saturating_sub(1)
            ),
            CameraError::BadParam(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for CameraError {}

/// Field of view and image size: what a camera keeps when it moves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lens {
    /// Vertical field of view, degrees, in (0, 180).
    pub fov_deg: f64,
    /// Image width, pixels (> 0).
    pub width: usize,
    /// Image height, pixels (> 0).
    pub height: usize,
}

impl Lens {
    /// Checks the field of view and the image size.
    pub fn validate(&self) -> Result<(), CameraError> {
        check_fov(self.fov_deg)?;
        check_size(self.width, self.height)
    }

    /// `tan` of half the vertical and half the horizontal field of view.
    pub(crate) fn half_tans(&self) -> (f64, f64) {
        let ty = (0.5 * self.fov_deg.to_radians()).tan();
        (ty * self.width as f64 / self.height as f64, ty)
    }
}

/// Pinhole intrinsics in pixels (see the module docs): `px = cx + fx·x/d`, `py = cy − fy·y/d`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Intrinsics {
    /// Focal length along x, pixels.
    pub fx: f64,
    /// Focal length along y, pixels (equal to `fx`: square pixels).
    pub fy: f64,
    /// Principal point x (`width/2`), pixels.
    pub cx: f64,
    /// Principal point y (`height/2`), pixels.
    pub cy: f64,
}

/// A validated pinhole camera (see the module docs for the conventions).
///
/// # Examples
///
/// ```
/// use bozkir_render::camera::Camera;
///
/// // 10 m south of the origin, looking north.
/// let cam = Camera::look_at([0.0, -10.0, 0.0], [0.0; 3], [0.0, 0.0, 1.0], 90.0, 200, 100).unwrap();
/// assert_eq!(cam.project([0.0, 0.0, 0.0]), Some([100.0, 50.0, 10.0]));
/// let p = cam.project([5.0, 0.0, 5.0]).unwrap(); // east and up: right of and above the centre
/// assert!((p[0] - 125.0).abs() < 1e-9 && (p[1] - 25.0).abs() < 1e-9);
/// assert!(cam.project([0.0, -20.0, 0.0]).is_none()); // behind the eye
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    eye: Vec3,
    target: Vec3,
    up: Vec3,
    fov_deg: f64,
    width: usize,
    height: usize,
    near: f64,
    far: f64,
    right: Vec3,
    true_up: Vec3,
    forward: Vec3,
    focal: f64,
}

impl Camera {
    /// A camera at `eye` looking at `target`, with `up` as the up hint (usually `[0, 0, 1]`; any
    /// length, not parallel to the view direction), vertical field of view `fov_deg` in (0, 180)
    /// and an image of `width × height` pixels. Clip planes: `near = d/1000`, `far = 1000·d` for
    /// the eye–target distance `d` (change them with [`Camera::with_clip`]).
    pub fn look_at(
        eye: Vec3,
        target: Vec3,
        up: Vec3,
        fov_deg: f64,
        width: usize,
        height: usize,
    ) -> Result<Camera, CameraError> {
        check_vec("eye", eye)?;
        check_vec("target", target)?;
        check_vec("up", up)?;
        check_fov(fov_deg)?;
        check_size(width, height)?;
        let d = sub(target, eye);
        let dist = norm(d);
        let scale = 1f64.max(norm(eye)).max(norm(target));
        if dist <= 1e-12 * scale {
            return Err(CameraError::EyeAtTarget { eye, target });
        }
        let forward = scale3(d, 1.0 / dist);
        let up_len = norm(up);
        if up_len == 0.0 || !up_len.is_finite() {
            return Err(CameraError::UpParallel { up, forward });
        }
        let up_unit = scale3(up, 1.0 / up_len);
        let side = cross(forward, up_unit);
        let side_len = norm(side);
        if side_len < 1e-9 {
            return Err(CameraError::UpParallel { up, forward });
        }
        let right = scale3(side, 1.0 / side_len);
        let true_up = cross(right, forward);
        let focal = 0.5 * height as f64 / (0.5 * fov_deg.to_radians()).tan();
        Ok(Camera {
            eye,
            target,
            up: up_unit,
            fov_deg,
            width,
            height,
            near: dist * 1e-3,
            far: dist * 1e3,
            right,
            true_up,
            forward,
            focal,
        })
    }

    /// [`Camera::look_at`] with a [`Lens`].
    pub fn with_lens(eye: Vec3, target: Vec3, up: Vec3, lens: Lens) -> Result<Camera, CameraError> {
        Camera::look_at(eye, target, up, lens.fov_deg, lens.width, lens.height)
    }

    /// The same camera with clip planes `near`, `far` (`0 < near < far`, both finite).
    pub fn with_clip(self, near: f64, far: f64) -> Result<Camera, CameraError> {
        if !(near.is_finite() && far.is_finite() && near > 0.0 && near < far) {
            return Err(CameraError::Clip { near, far });
        }
        Ok(Camera { near, far, ..self })
    }

    /// The same camera placement with another field of view and image size (clip planes kept).
    pub fn replace_lens(self, lens: Lens) -> Result<Camera, CameraError> {
        let c = Camera::with_lens(self.eye, self.target, self.up, lens)?;
        c.with_clip(self.near, self.far)
    }

    /// The eye (centre of projection).
    pub fn eye(&self) -> Vec3 {
        self.eye
    }

    /// The point looked at (on the optical axis, projecting to the image centre).
    pub fn target(&self) -> Vec3 {
        self.target
    }

    /// The up hint, normalised.
    pub fn up(&self) -> Vec3 {
        self.up
    }

    /// Unit view direction `f`.
    pub fn forward(&self) -> Vec3 {
        self.forward
    }

    /// Unit right vector `r` (image x direction).
    pub fn right(&self) -> Vec3 {
        self.right
    }

    /// Unit true up `u = r × f` (image −y direction).
    pub fn true_up(&self) -> Vec3 {
        self.true_up
    }

    /// Vertical field of view, degrees.
    pub fn fov_deg(&self) -> f64 {
        self.fov_deg
    }

    /// Image width, pixels.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Image height, pixels.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Field of view and image size.
    pub fn lens(&self) -> Lens {
        Lens { fov_deg: self.fov_deg, width: self.width, height: self.height }
    }

    /// Near clip distance (along the view axis).
    pub fn near(&self) -> f64 {
        self.near
    }

    /// Far clip distance (along the view axis).
    pub fn far(&self) -> f64 {
        self.far
    }

    /// Width over height.
    pub fn aspect(&self) -> f64 {
        self.width as f64 / self.height as f64
    }

    /// Pinhole intrinsics from the field of view.
    pub fn intrinsics(&self) -> Intrinsics {
        Intrinsics { fx: self.focal, fy: self.focal, cx: 0.5 * self.width as f64, cy: 0.5 * self.height as f64 }
    }

    /// Camera coordinates of a world point: `[x right, y up, depth along the view axis]`.
    pub fn to_camera(&self, p: Vec3) -> Vec3 {
        let d = sub(p, self.eye);
        [dot(d, self.right), dot(d, self.true_up), dot(d, self.forward)]
    }

    /// Pixel `[x right, y down, depth]` of a world point; `None` when its depth is below `near`
    /// (or not finite). Points beyond `far` or outside the image are returned as they fall.
    pub fn project(&self, p: Vec3) -> Option<[f64; 3]> {
        let [x, y, d] = self.to_camera(p);
        if !(d >= self.near && d.is_finite()) {
            return None;
        }
        let k = self.intrinsics();
        Some([k.cx + k.fx * x / d, k.cy - k.fy * y / d, d])
    }

    /// The ray through pixel `(px, py)` (continuous pixel coordinates, as [`Camera::project`]
    /// returns): origin at the eye, unit direction. `project(eye + s·dir)` gives back
    /// `(px, py)` for any `s` whose depth `s·(dir·forward)` is at least `near`.
    pub fn ray(&self, px: f64, py: f64) -> (Vec3, Vec3) {
        let k = self.intrinsics();
        let a = (px - k.cx) / k.fx;
        let b = (py - k.cy) / k.fy;
        let d = add(self.forward, sub(scale3(self.right, a), scale3(self.true_up, b)));
        (self.eye, scale3(d, 1.0 / norm(d)))
    }

    /// World → OpenGL camera space (x right, y up, looking down −z), row-major.
    pub fn view_matrix(&self) -> Mat4 {
        let (r, u, f, e) = (self.right, self.true_up, self.forward, self.eye);
        [
            [r[0], r[1], r[2], -dot(r, e)],
            [u[0], u[1], u[2], -dot(u, e)],
            [-f[0], -f[1], -f[2], dot(f, e)],
            [0.0, 0.0, 0.0, 1.0],
        ]
    }

    /// OpenGL perspective projection (camera space → clip space), row-major: NDC z = −1 at
    /// `near`, +1 at `far`.
    pub fn projection_matrix(&self) -> Mat4 {
        let t = 1.0 / (0.5 * self.fov_deg.to_radians()).tan();
        let (n, f) = (self.near, self.far);
        [
            [t / self.aspect(), 0.0, 0.0, 0.0],
            [0.0, t, 0.0, 0.0],
            [0.0, 0.0, (f + n) / (n - f), 2.0 * f * n / (n - f)],
            [0.0, 0.0, -1.0, 0.0],
        ]
    }

    /// `projection_matrix() · view_matrix()`, row-major: world → clip space.
    pub fn view_projection(&self) -> Mat4 {
        mat_mul(&self.projection_matrix(), &self.view_matrix())
    }

    /// Pixel `[x, y]` of a normalised-device-coordinate point (see the module docs).
    pub fn ndc_to_pixel(&self, x_ndc: f64, y_ndc: f64) -> [f64; 2] {
        [0.5 * (x_ndc + 1.0) * self.width as f64, 0.5 * (1.0 - y_ndc) * self.height as f64]
    }

    /// The camera a fraction `t` of the way from `a` (t = 0) to `b` (t = 1), as described in the
    /// module docs; `t` outside [0, 1] extrapolates. Fails when the image sizes differ, `t` is
    /// not finite, or the blend is degenerate (eye on target, up parallel to the view).
    pub fn interpolate(a: &Camera, b: &Camera, t: f64) -> Result<Camera, CameraError> {
        if !t.is_finite() {
            return Err(CameraError::NotFinite { what: "interpolation parameter", value: vec![t] });
        }
        if (a.width, a.height) != (b.width, b.height) {
            return Err(CameraError::BadParam(format!(
                "cannot interpolate cameras of image sizes {}×{} and {}×{}",
                a.width, a.height, b.width, b.height
            )));
        }
        let (sa, sb) = (a.state(), b.state());
        let mut s = [0.0; STATE];
        for i in 0..STATE {
            s[i] = sa[i] + t * (sb[i] - sa[i]);
        }
        Camera::from_state(&s, a.width, a.height)
    }

    /// The interpolated quantities: eye, target, up hint, `ln tan(fov/2)`, `ln near`, `ln far`.
    pub(crate) fn state(&self) -> [f64; STATE] {
        let z = (0.5 * self.fov_deg.to_radians()).tan().ln();
        let (e, g, u) = (self.eye, self.target, self.up);
        [e[0], e[1], e[2], g[0], g[1], g[2], u[0], u[1], u[2], z, self.near.ln(), self.far.ln()]
    }

    /// The camera of an interpolated state (inverse of [`Camera::state`]).
    pub(crate) fn from_state(s: &[f64; STATE], width: usize, height: usize) -> Result<Camera, CameraError> {
        let fov = 2.0 * s[9].exp().atan().to_degrees();
        let c = Camera::look_at([s[0], s[1], s[2]], [s[3], s[4], s[5]], [s[6], s[7], s[8]], fov, width, height)?;
        c.with_clip(s[10].exp(), s[11].exp())
    }
}

/// Number of interpolated camera quantities (see [`Camera::state`]).
pub(crate) const STATE: usize = 12;

/// Row-major product `a·b`.
pub fn mat_mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut m = [[0.0; 4]; 4];
    for (i, row) in m.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v = (0..4).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    m
}

/// The transpose (row-major ↔ column-major).
pub fn transpose(m: &Mat4) -> Mat4 {
    let mut t = [[0.0; 4]; 4];
    for (i, row) in m.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            t[j][i] = *v;
        }
    }
    t
}

/// `m·[p, 1]ᵀ`: a point in homogeneous coordinates through a row-major matrix.
pub fn transform_point(m: &Mat4, p: Vec3) -> [f64; 4] {
    let mut o = [0.0; 4];
    for (i, v) in o.iter_mut().enumerate() {
        *v = m[i][0] * p[0] + m[i][1] * p[1] + m[i][2] * p[2] + m[i][3];
    }
    o
}

pub(crate) fn check_vec(what: &'static str, v: Vec3) -> Result<(), CameraError> {
    if v.iter().all(|x| x.is_finite()) {
        Ok(())
    } else {
        Err(CameraError::NotFinite { what, value: v.to_vec() })
    }
}

pub(crate) fn check_fov(fov_deg: f64) -> Result<(), CameraError> {
    if fov_deg.is_finite() && fov_deg > 0.0 && fov_deg < 180.0 {
        Ok(())
    } else {
        Err(CameraError::Fov(fov_deg))
    }
}

pub(crate) fn check_size(width: usize, height: usize) -> Result<(), CameraError> {
    if width == 0 || height == 0 {
        Err(CameraError::EmptyImage { width, height })
    } else {
        Ok(())
    }
}

pub(crate) fn add(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

pub(crate) fn sub(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub(crate) fn scale3(a: Vec3, s: f64) -> Vec3 {
    [a[0] * s, a[1] * s, a[2] * s]
}

pub(crate) fn dot(a: Vec3, b: Vec3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub(crate) fn cross(a: Vec3, b: Vec3) -> Vec3 {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

pub(crate) fn norm(a: Vec3) -> f64 {
    dot(a, a).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    const Z: Vec3 = [0.0, 0.0, 1.0];

    /// A deterministic pseudo-random stream in [0, 1) (SplitMix64).
    struct Stream(u64);
    impl Stream {
        fn next(&mut self) -> f64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            (z >> 11) as f64 / (1u64 << 53) as f64
        }
        fn range(&mut self, lo: f64, hi: f64) -> f64 {
            lo + (hi - lo) * self.next()
        }
        fn vec(&mut self, r: f64) -> Vec3 {
            [self.range(-r, r), self.range(-r, r), self.range(-r, r)]
        }
    }

    fn oblique() -> Camera {
        Camera::look_at([120.0, -340.0, 95.0], [10.0, 20.0, 5.0], Z, 55.0, 640, 360).unwrap()
    }

    #[test]
    fn projection_axes() {
        let cam = oblique();
        let k = cam.intrinsics();
        let t = cam.project(cam.target()).unwrap();
        assert!((t[0] - k.cx).abs() < 1e-9 && (t[1] - k.cy).abs() < 1e-9, "target at {t:?}");
        let dist = norm(sub(cam.target(), cam.eye()));
        assert!((t[2] - dist).abs() < 1e-9);
        // Right of the view: x > cx; above: y < cy (pixel y grows downwards).
        let r = cam.project(add(cam.target(), scale3(cam.right(), 5.0))).unwrap();
        assert!(r[0] > k.cx + 1.0 && (r[1] - k.cy).abs() < 1e-9, "{r:?}");
        let u = cam.project(add(cam.target(), scale3(cam.true_up(), 5.0))).unwrap();
        assert!(u[1] < k.cy - 1.0 && (u[0] - k.cx).abs() < 1e-9, "{u:?}");
        // World up (z) also goes up in the image for a camera looking down at the target.
        let z = cam.project(add(cam.target(), [0.0, 0.0, 5.0])).unwrap();
        assert!(z[1] < k.cy - 1.0);
        // Depth is the distance along the axis, not along the ray: a sideways offset keeps it.
        assert!((r[2] - dist).abs() < 1e-9 && (u[2] - dist).abs() < 1e-9);
        let p = [60.0, 80.0, -30.0];
        let expected = dot(sub(p, cam.eye()), cam.forward());
        assert!((cam.project(p).unwrap()[2] - expected).abs() < 1e-9);
    }

    #[test]
    fn axis_aligned_view_is_east_right() {
        // Looking north with z up: east is right, up is up; exact pinhole values.
        let cam = Camera::look_at([0.0, -10.0, 0.0], [0.0; 3], Z, 90.0, 200, 100).unwrap();
        let k = cam.intrinsics();
        assert!((k.fy - 50.0).abs() < 1e-12 && k.fx == k.fy && k.cx == 100.0 && k.cy == 50.0);
        assert!((cam.right()[0] - 1.0).abs() < 1e-15 && (cam.true_up()[2] - 1.0).abs() < 1e-15);
        let p = cam.project([2.0, 0.0, -1.0]).unwrap();
        assert!((p[0] - 110.0).abs() < 1e-12 && (p[1] - 55.0).abs() < 1e-12 && p[2] == 10.0);
    }

    #[test]
    fn behind_and_at_near_plane() {
        let cam = oblique().with_clip(1.0, 1000.0).unwrap();
        let e = cam.eye();
        let f = cam.forward();
        assert!(cam.project(sub(e, f)).is_none());
        assert!(cam.project(add(e, scale3(f, 0.999))).is_none());
        assert!(cam.project(add(e, scale3(f, 1.0 + 1e-9))).is_some());
        assert!(cam.project([f64::NAN, 0.0, 0.0]).is_none());
    }

    #[test]
    fn project_ray_round_trip() {
        let mut s = Stream(7);
        for _ in 0..200 {
            let eye = s.vec(500.0);
            let target = add(eye, s.vec(100.0));
            let cam = Camera::look_at(
                eye,
                target,
                Z,
                s.range(5.0, 150.0),
                1 + (s.next() * 2000.0) as usize,
                1 + (s.next() * 2000.0) as usize,
            )
            .unwrap();
            // pixel → ray → point → pixel
            let (px, py) = (s.range(-50.0, cam.width() as f64 + 50.0), s.range(-50.0, cam.height() as f64 + 50.0));
            let (o, d) = cam.ray(px, py);
            assert!((norm(d) - 1.0).abs() < 1e-12);
            let dist = s.range(1.0, 1000.0);
            let q = cam.project(add(o, scale3(d, dist))).unwrap();
            let scale = 1.0 + px.abs().max(py.abs());
            assert!((q[0] - px).abs() < 1e-9 * scale && (q[1] - py).abs() < 1e-9 * scale, "{px} {py} → {q:?}");
            assert!((q[2] - dist * dot(d, cam.forward())).abs() < 1e-9 * dist);
            // point → pixel → ray passes through the point
            let p = add(cam.target(), s.vec(60.0));
            if let Some(q) = cam.project(p) {
                let (o, d) = cam.ray(q[0], q[1]);
                let v = sub(p, o);
                let off = norm(cross(v, d));
                assert!(off < 1e-9 * (1.0 + norm(v)), "point {p:?} off its ray by {off}");
                assert!(dot(v, d) > 0.0);
            }
        }
    }

    #[test]
    fn matrices_agree_with_project() {
        let mut s = Stream(11);
        let cam = oblique().with_clip(2.0, 3000.0).unwrap();
        let vp = cam.view_projection();
        // The view matrix is a rigid motion: eye → origin, forward → −z.
        let v = cam.view_matrix();
        let o = transform_point(&v, cam.eye());
        assert!(o[..3].iter().all(|x| x.abs() < 1e-9));
        let t = transform_point(&v, cam.target());
        let dist = norm(sub(cam.target(), cam.eye()));
        assert!(t[0].abs() < 1e-9 && t[1].abs() < 1e-9 && (t[2] + dist).abs() < 1e-9);
        for _ in 0..500 {
            let p = add(cam.target(), s.vec(300.0));
            let c = transform_point(&vp, p);
            match cam.project(p) {
                Some(q) => {
                    assert!((c[3] - q[2]).abs() < 1e-9, "clip w is the depth");
                    let px = cam.ndc_to_pixel(c[0] / c[3], c[1] / c[3]);
                    assert!((px[0] - q[0]).abs() < 1e-7 && (px[1] - q[1]).abs() < 1e-7, "{px:?} vs {q:?}");
                    let z = c[2] / c[3];
                    let n = cam.near();
                    let f = cam.far();
                    let expect = (f + n) / (f - n) - 2.0 * f * n / ((f - n) * q[2]);
                    assert!((z - expect).abs() < 1e-9);
                }
                None => assert!(c[3] < cam.near() + 1e-9),
            }
        }
        // NDC z is −1 on the near plane and +1 on the far plane.
        for (d, want) in [(cam.near(), -1.0), (cam.far(), 1.0)] {
            let c = transform_point(&vp, add(cam.eye(), scale3(cam.forward(), d)));
            assert!((c[2] / c[3] - want).abs() < 1e-9);
        }
        // transpose is an involution and turns the product around.
        let p = cam.projection_matrix();
        assert_eq!(transpose(&transpose(&vp)), vp);
        let tt = mat_mul(&transpose(&v), &transpose(&p));
        let t2 = transpose(&vp);
        for i in 0..4 {
            for j in 0..4 {
                assert!((tt[i][j] - t2[i][j]).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn fov_sets_focal_length() {
        let wide = Camera::look_at([0.0, -10.0, 0.0], [0.0; 3], Z, 120.0, 300, 300).unwrap();
        let narrow = Camera::look_at([0.0, -10.0, 0.0], [0.0; 3], Z, 30.0, 300, 300).unwrap();
        // A point on the top edge of the vertical field of view projects onto row 0.
        for cam in [wide, narrow] {
            let half = (0.5 * cam.fov_deg()).to_radians();
            let p = [0.0, 0.0, 10.0 * half.tan()];
            let q = cam.project(p).unwrap();
            assert!(q[1].abs() < 1e-9 && (q[0] - 150.0).abs() < 1e-9, "{q:?}");
        }
        assert!(wide.intrinsics().fy < narrow.intrinsics().fy);
    }

    #[test]
    fn interpolation_endpoints_and_midpoint() {
        let a = oblique().with_clip(0.5, 5000.0).unwrap();
        let b = Camera::look_at([-200.0, 100.0, 300.0], [0.0, 0.0, 0.0], [0.0, 0.2, 1.0], 20.0, 640, 360).unwrap();
        let a0 = Camera::interpolate(&a, &b, 0.0).unwrap();
        let b1 = Camera::interpolate(&a, &b, 1.0).unwrap();
        for (x, y) in [(a0, a), (b1, b)] {
            for i in 0..3 {
                assert!((x.eye()[i] - y.eye()[i]).abs() < 1e-12 && (x.target()[i] - y.target()[i]).abs() < 1e-12);
            }
            assert!((x.fov_deg() - y.fov_deg()).abs() < 1e-12);
            assert!((x.near() - y.near()).abs() < 1e-12 * y.near() && (x.far() - y.far()).abs() < 1e-9 * y.far());
        }
        let m = Camera::interpolate(&a, &b, 0.5).unwrap();
        for i in 0..3 {
            assert!((m.eye()[i] - 0.5 * (a.eye()[i] + b.eye()[i])).abs() < 1e-12);
            assert!((m.target()[i] - 0.5 * (a.target()[i] + b.target()[i])).abs() < 1e-12);
        }
        // Log focal length: the midpoint focal length is the geometric mean.
        let fm = m.intrinsics().fy;
        let g = (a.intrinsics().fy * b.intrinsics().fy).sqrt();
        assert!((fm - g).abs() < 1e-9 * g, "{fm} vs {g}");
        assert!(m.fov_deg() > 20.0 && m.fov_deg() < 55.0);
        assert!((m.near() - (a.near() * b.near()).sqrt()).abs() < 1e-12);
        let other = Camera::look_at([0.0, -10.0, 0.0], [0.0; 3], Z, 90.0, 10, 10).unwrap();
        assert!(matches!(Camera::interpolate(&a, &other, 0.5), Err(CameraError::BadParam(_))));
        assert!(matches!(Camera::interpolate(&a, &b, f64::NAN), Err(CameraError::NotFinite { .. })));
    }

    #[test]
    fn bad_inputs_are_named() {
        let e = Camera::look_at([f64::NAN, 0.0, 0.0], [1.0; 3], Z, 60.0, 10, 10).unwrap_err();
        assert!(e.to_string().contains("eye") && e.to_string().contains("NaN"), "{e}");
        let e = Camera::look_at([0.0; 3], [1.0, f64::INFINITY, 0.0], Z, 60.0, 10, 10).unwrap_err();
        assert!(e.to_string().contains("target"), "{e}");
        assert_eq!(
            Camera::look_at([0.0; 3], [1.0; 3], Z, 60.0, 0, 10).unwrap_err(),
            CameraError::EmptyImage { width: 0, height: 10 }
        );
        for fov in [0.0, 180.0, -5.0, 200.0, f64::NAN] {
            let e = Camera::look_at([0.0; 3], [1.0; 3], Z, fov, 10, 10).unwrap_err();
            assert!(matches!(e, CameraError::Fov(_)), "{fov}: {e}");
        }
        assert_eq!(
            Camera::look_at([0.0; 3], [1.0; 3], Z, 180.0, 10, 10).unwrap_err().to_string(),
            "field of view 180° outside (0, 180)"
        );
        let e = Camera::look_at([5.0; 3], [5.0; 3], Z, 60.0, 10, 10).unwrap_err();
        assert!(matches!(e, CameraError::EyeAtTarget { .. }), "{e}");
        let e = Camera::look_at([0.0, 0.0, 10.0], [0.0; 3], Z, 60.0, 10, 10).unwrap_err();
        assert!(matches!(e, CameraError::UpParallel { .. }) && e.to_string().contains("parallel"), "{e}");
        let e = Camera::look_at([0.0, -1.0, 0.0], [0.0; 3], [0.0; 3], 60.0, 10, 10).unwrap_err();
        assert!(matches!(e, CameraError::UpParallel { .. }), "{e}");
        let cam = oblique();
        for (n, f) in [(0.0, 1.0), (2.0, 1.0), (1.0, 1.0), (-1.0, 5.0), (1.0, f64::INFINITY), (f64::NAN, 1.0)] {
            let e = cam.with_clip(n, f).unwrap_err();
            assert!(matches!(e, CameraError::Clip { .. }), "{n} {f}: {e}");
            assert_eq!(e.to_string(), format!("clip planes near {n}, far {f}: need 0 < near < far"));
        }
    }

    #[test]
    fn replace_lens_keeps_placement() {
        let cam = oblique().with_clip(3.0, 400.0).unwrap();
        let wide = cam.replace_lens(Lens { fov_deg: 100.0, width: 64, height: 32 }).unwrap();
        assert_eq!((wide.eye(), wide.target(), wide.near(), wide.far()), (cam.eye(), cam.target(), 3.0, 400.0));
        assert_eq!((wide.fov_deg(), wide.width(), wide.height()), (100.0, 64, 32));
        assert!(cam.replace_lens(Lens { fov_deg: 100.0, width: 64, height: 0 }).is_err());
    }

    #[test]
    fn deterministic() {
        let a = oblique();
        let b = oblique();
        assert_eq!(a, b);
        let p = [3.0, 4.0, 5.0];
        assert_eq!(a.project(p).map(|q| q.map(f64::to_bits)), b.project(p).map(|q| q.map(f64::to_bits)));
        assert_eq!(a.view_projection(), b.view_projection());
    }
}

//! Vectors, axis-aligned boxes and rays in 3-D (and 2-D for the quadtree), with the two ray
//! tests every ray query rests on: the slab test against a box (Kay & Kajiya 1986, with the
//! cached reciprocal direction of Williams et al. 2005 and an explicit branch for axis-parallel
//! rays) and Möller & Trumbore's (1997) ray–triangle test.
//!
//! Conventions: `f64` coordinates, right-handed, no unit implied (the world uses metres).
//! Boxes are closed: a point on a face is inside, boxes that share a face intersect. The empty
//! box ([`Aabb3::EMPTY`]) has min = +∞ and max = −∞, so that `union` with it is the identity;
//! its surface area is 0. A [`Ray`] holds a unit direction; its constructor refuses zero,
//! NaN and infinite directions, and ray parameters `t` are therefore distances.
//! Everything here is a pure function of its arguments (no rounding-mode or thread effects).

use crate::error::{Result, SpatialError};
use std::ops::{Add, AddAssign, Div, Index, Mul, Neg, Sub, SubAssign};

/// A 3-D vector (or point) of `f64`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Vec3 {
    /// x component.
    pub x: f64,
    /// y component.
    pub y: f64,
    /// z component.
    pub z: f64,
}

/// Shorthand for [`Vec3::new`].
pub const fn vec3(x: f64, y: f64, z: f64) -> Vec3 {
    Vec3 { x, y, z }
}

impl Vec3 {
    /// The zero vector.
    pub const ZERO: Vec3 = vec3(0.0, 0.0, 0.0);

    /// A vector from its components.
    pub const fn new(x: f64, y: f64, z: f64) -> Vec3 {
        vec3(x, y, z)
    }
    /// From an array `[x, y, z]`.
    pub const fn from_array(a: [f64; 3]) -> Vec3 {
        vec3(a[0], a[1], a[2])
    }
    /// As an array `[x, y, z]`.
    pub const fn to_array(self) -> [f64; 3] {
        [self.x, self.y, self.z]
    }
    /// Dot product.
    pub fn dot(self, o: Vec3) -> f64 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
    /// Cross product (right-handed: x × y = z).
    pub fn cross(self, o: Vec3) -> Vec3 {
        vec3(self.y * o.z - self.z * o.y, self.z * o.x - self.x * o.z, self.x * o.y - self.y * o.x)
    }
    /// Squared Euclidean length.
    pub fn length_sq(self) -> f64 {
        self.dot(self)
    }
    /// Euclidean length.
    pub fn length(self) -> f64 {
        self.length_sq().sqrt()
    }
    /// The unit vector along `self`, or `None` when `self` is zero or not finite.
    pub fn normalise(self) -> Option<Vec3> {
        let l = self.length();
        (self.is_finite() && l > 0.0 && l.is_finite()).then(|| self / l)
    }
    /// Component-wise minimum.
    pub fn min(self, o: Vec3) -> Vec3 {
        vec3(self.x.min(o.x), self.y.min(o.y), self.z.min(o.z))
    }
    /// Component-wise maximum.
    pub fn max(self, o: Vec3) -> Vec3 {
        vec3(self.x.max(o.x), self.y.max(o.y), self.z.max(o.z))
    }
    /// Whether all components are finite.
    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite() && self.z.is_finite()
    }
    /// Whether any component is NaN.
    pub fn has_nan(self) -> bool {
        self.x.is_nan() || self.y.is_nan() || self.z.is_nan()
    }
    /// Squared distance to `o`.
    pub fn distance_sq(self, o: Vec3) -> f64 {
        (self - o).length_sq()
    }
    /// Distance to `o`.
    pub fn distance(self, o: Vec3) -> f64 {
        (self - o).length()
    }
}

impl Index<usize> for Vec3 {
    type Output = f64;
    /// Component by axis: 0 = x, 1 = y, 2 = z (panics on any other axis: a programming error).
    fn index(&self, axis: usize) -> &f64 {
        match axis {
            0 => &self.x,
            1 => &self.y,
            2 => &self.z,
            _ => panic!("Vec3 axis {axis} out of 0..3"),
        }
    }
}

macro_rules! vec_ops {
    ($t:ident, $($f:ident),+) => {
        impl Add for $t {
            type Output = $t;
            fn add(self, o: $t) -> $t { $t { $($f: self.$f + o.$f),+ } }
        }
        impl Sub for $t {
            type Output = $t;
            fn sub(self, o: $t) -> $t { $t { $($f: self.$f - o.$f),+ } }
        }
        impl AddAssign for $t {
            fn add_assign(&mut self, o: $t) { $(self.$f += o.$f;)+ }
        }
        impl SubAssign for $t {
            fn sub_assign(&mut self, o: $t) { $(self.$f -= o.$f;)+ }
        }
        impl Mul<f64> for $t {
            type Output = $t;
            fn mul(self, s: f64) -> $t { $t { $($f: self.$f * s),+ } }
        }
        impl Mul<$t> for f64 {
            type Output = $t;
            fn mul(self, v: $t) -> $t { $t { $($f: v.$f * self),+ } }
        }
        impl Div<f64> for $t {
            type Output = $t;
            fn div(self, s: f64) -> $t { $t { $($f: self.$f / s),+ } }
        }
        impl Neg for $t {
            type Output = $t;
            fn neg(self) -> $t { $t { $($f: -self.$f),+ } }
        }
    };
}
vec_ops!(Vec3, x, y, z);
vec_ops!(Vec2, x, y);

/// A 2-D vector (or point) of `f64`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Vec2 {
    /// x component.
    pub x: f64,
    /// y component.
    pub y: f64,
}

/// Shorthand for [`Vec2::new`].
pub const fn vec2(x: f64, y: f64) -> Vec2 {
    Vec2 { x, y }
}

impl Vec2 {
    /// The zero vector.
    pub const ZERO: Vec2 = vec2(0.0, 0.0);
    /// A vector from its components.
    pub const fn new(x: f64, y: f64) -> Vec2 {
        vec2(x, y)
    }
    /// As an array `[x, y]`.
    pub const fn to_array(self) -> [f64; 2] {
        [self.x, self.y]
    }
    /// Dot product.
    pub fn dot(self, o: Vec2) -> f64 {
        self.x * o.x + self.y * o.y
    }
    /// The z component of the 3-D cross product (positive when `o` is counter-clockwise of `self`).
    pub fn cross(self, o: Vec2) -> f64 {
        self.x * o.y - self.y * o.x
    }
    /// Squared length.
    pub fn length_sq(self) -> f64 {
        self.dot(self)
    }
    /// Length.
    pub fn length(self) -> f64 {
        self.length_sq().sqrt()
    }
    /// Unit vector along `self`, or `None` when zero or not finite.
    pub fn normalise(self) -> Option<Vec2> {
        let l = self.length();
        (self.is_finite() && l > 0.0 && l.is_finite()).then(|| self / l)
    }
    /// Component-wise minimum.
    pub fn min(self, o: Vec2) -> Vec2 {
        vec2(self.x.min(o.x), self.y.min(o.y))
    }
    /// Component-wise maximum.
    pub fn max(self, o: Vec2) -> Vec2 {
        vec2(self.x.max(o.x), self.y.max(o.y))
    }
    /// Whether both components are finite.
    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite()
    }
    /// Whether any component is NaN.
    pub fn has_nan(self) -> bool {
        self.x.is_nan() || self.y.is_nan()
    }
    /// Squared distance to `o`.
    pub fn distance_sq(self, o: Vec2) -> f64 {
        (self - o).length_sq()
    }
}

/// A closed axis-aligned box in 3-D.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb3 {
    /// Minimum corner.
    pub min: Vec3,
    /// Maximum corner.
    pub max: Vec3,
}

impl Default for Aabb3 {
    fn default() -> Self {
        Aabb3::EMPTY
    }
}

impl Aabb3 {
    /// The empty box: min = +∞, max = −∞; the identity of [`union`](Self::union).
    pub const EMPTY: Aabb3 = Aabb3 {
        min: vec3(f64::INFINITY, f64::INFINITY, f64::INFINITY),
        max: vec3(f64::NEG_INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY),
    };

    /// The box `[min, max]`; refuses NaN and `min > max` on any axis (infinite bounds are allowed).
    pub fn new(min: Vec3, max: Vec3) -> Result<Aabb3> {
        if min.has_nan() || max.has_nan() {
            return Err(SpatialError::NonFinite { what: "Aabb3", index: 0 });
        }
        for a in 0..3 {
            if min[a] > max[a] {
                return Err(SpatialError::InvertedBox { what: "Aabb3", index: 0, axis: a });
            }
        }
        Ok(Aabb3 { min, max })
    }
    /// The degenerate box holding one point.
    pub fn from_point(p: Vec3) -> Aabb3 {
        Aabb3 { min: p, max: p }
    }
    /// The smallest box holding all `pts` ([`EMPTY`](Self::EMPTY) for none).
    pub fn from_points(pts: &[Vec3]) -> Aabb3 {
        pts.iter().fold(Aabb3::EMPTY, |b, &p| b.grow(p))
    }
    /// Whether the box is empty (min > max on some axis).
    pub fn is_empty(&self) -> bool {
        !(self.min.x <= self.max.x && self.min.y <= self.max.y && self.min.z <= self.max.z)
    }
    /// The smallest box holding both.
    pub fn union(&self, o: &Aabb3) -> Aabb3 {
        Aabb3 { min: self.min.min(o.min), max: self.max.max(o.max) }
    }
    /// The smallest box holding `self` and `p`.
    pub fn grow(&self, p: Vec3) -> Aabb3 {
        Aabb3 { min: self.min.min(p), max: self.max.max(p) }
    }
    /// Whether `p` is inside (closed).
    pub fn contains(&self, p: Vec3) -> bool {
        self.min.x <= p.x
            && p.x <= self.max.x
            && self.min.y <= p.y
            && p.y <= self.max.y
            && self.min.z <= p.z
            && p.z <= self.max.z
    }
    /// Whether `o` lies wholly inside `self` (the empty box lies in every box).
    pub fn contains_box(&self, o: &Aabb3) -> bool {
        o.is_empty() || (self.contains(o.min) && self.contains(o.max))
    }
    /// Whether the closed boxes share a point (never for an empty box).
    pub fn intersects(&self, o: &Aabb3) -> bool {
        self.min.x <= o.max.x
            && o.min.x <= self.max.x
            && self.min.y <= o.max.y
            && o.min.y <= self.max.y
            && self.min.z <= o.max.z
            && o.min.z <= self.max.z
    }
    /// Surface area `2(xy + yz + zx)`; 0 for the empty box.
    pub fn surface_area(&self) -> f64 {
        if self.is_empty() {
            return 0.0;
        }
        let e = self.max - self.min;
        2.0 * (e.x * e.y + e.y * e.z + e.z * e.x)
    }
    /// Centre point.
    pub fn centre(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }
    /// Edge lengths (`max − min`).
    pub fn extent(&self) -> Vec3 {
        self.max - self.min
    }
    /// Squared distance from `p` to the nearest point of the box (0 inside).
    pub fn distance_sq(&self, p: Vec3) -> f64 {
        let d = (self.min - p).max(p - self.max).max(Vec3::ZERO);
        d.length_sq()
    }
    /// Whether every bound is finite.
    pub fn is_finite(&self) -> bool {
        self.min.is_finite() && self.max.is_finite()
    }
}

/// A closed axis-aligned box in 2-D.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb2 {
    /// Minimum corner.
    pub min: Vec2,
    /// Maximum corner.
    pub max: Vec2,
}

impl Default for Aabb2 {
    fn default() -> Self {
        Aabb2::EMPTY
    }
}

impl Aabb2 {
    /// The empty box (min = +∞, max = −∞).
    pub const EMPTY: Aabb2 =
        Aabb2 { min: vec2(f64::INFINITY, f64::INFINITY), max: vec2(f64::NEG_INFINITY, f64::NEG_INFINITY) };

    /// The box `[min, max]`; refuses NaN and `min > max` (infinite bounds are allowed).
    pub fn new(min: Vec2, max: Vec2) -> Result<Aabb2> {
        if min.has_nan() || max.has_nan() {
            return Err(SpatialError::NonFinite { what: "Aabb2", index: 0 });
        }
        if min.x > max.x {
            return Err(SpatialError::InvertedBox { what: "Aabb2", index: 0, axis: 0 });
        }
        if min.y > max.y {
            return Err(SpatialError::InvertedBox { what: "Aabb2", index: 0, axis: 1 });
        }
        Ok(Aabb2 { min, max })
    }
    /// Whether the box is empty.
    pub fn is_empty(&self) -> bool {
        !(self.min.x <= self.max.x && self.min.y <= self.max.y)
    }
    /// The smallest box holding both.
    pub fn union(&self, o: &Aabb2) -> Aabb2 {
        Aabb2 { min: self.min.min(o.min), max: self.max.max(o.max) }
    }
    /// The smallest box holding `self` and `p`.
    pub fn grow(&self, p: Vec2) -> Aabb2 {
        Aabb2 { min: self.min.min(p), max: self.max.max(p) }
    }
    /// Whether `p` is inside (closed).
    pub fn contains(&self, p: Vec2) -> bool {
        self.min.x <= p.x && p.x <= self.max.x && self.min.y <= p.y && p.y <= self.max.y
    }
    /// Whether the closed boxes share a point.
    pub fn intersects(&self, o: &Aabb2) -> bool {
        self.min.x <= o.max.x && o.min.x <= self.max.x && self.min.y <= o.max.y && o.min.y <= self.max.y
    }
    /// Area; 0 for the empty box.
    pub fn area(&self) -> f64 {
        if self.is_empty() {
            0.0
        } else {
            let e = self.max - self.min;
            e.x * e.y
        }
    }
    /// Centre point.
    pub fn centre(&self) -> Vec2 {
        (self.min + self.max) * 0.5
    }
    /// Squared distance from `p` to the box (0 inside).
    pub fn distance_sq(&self, p: Vec2) -> f64 {
        (self.min - p).max(p - self.max).max(Vec2::ZERO).length_sq()
    }
}

/// A ray: origin and unit direction, with the direction's reciprocal cached for slab tests.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ray {
    origin: Vec3,
    dir: Vec3,
    inv: Vec3,
}

impl Ray {
    /// A ray from `origin` along `direction` (normalised here). Refuses a non-finite origin and
    /// a zero, NaN or infinite direction.
    pub fn new(origin: Vec3, direction: Vec3) -> Result<Ray> {
        if !origin.is_finite() {
            return Err(SpatialError::NonFinite { what: "Ray origin", index: 0 });
        }
        let dir = direction.normalise().ok_or(SpatialError::BadDirection)?;
        Ok(Ray { origin, dir, inv: vec3(1.0 / dir.x, 1.0 / dir.y, 1.0 / dir.z) })
    }
    /// The origin.
    pub fn origin(&self) -> Vec3 {
        self.origin
    }
    /// The unit direction.
    pub fn direction(&self) -> Vec3 {
        self.dir
    }
    /// The point at distance `t` along the ray.
    pub fn at(&self, t: f64) -> Vec3 {
        self.origin + self.dir * t
    }
}

/// Slab test: the parameter interval `[t_enter, t_exit]` in which the ray is inside the closed
/// box, clipped to `[t_min, t_max]`; `None` when empty. A ray running inside a face's plane
/// (direction component 0, origin on the slab's boundary) counts as inside that slab.
pub fn ray_aabb(ray: &Ray, b: &Aabb3, t_min: f64, t_max: f64) -> Option<(f64, f64)> {
    let (mut lo, mut hi) = (t_min, t_max);
    for a in 0..3 {
        let (o, d, inv) = (ray.origin[a], ray.dir[a], ray.inv[a]);
        if d == 0.0 {
            if o < b.min[a] || o > b.max[a] {
                return None;
            }
            continue;
        }
        let t1 = (b.min[a] - o) * inv;
        let t2 = (b.max[a] - o) * inv;
        let (n, f) = if t1 <= t2 { (t1, t2) } else { (t2, t1) };
        // NaN only from 0 · ∞ (a subnormal direction component, origin on the face): not limiting.
        if n > lo {
            lo = n;
        }
        if f < hi {
            hi = f;
        }
        if lo > hi {
            return None;
        }
    }
    Some((lo, hi))
}

/// A ray–triangle hit: distance `t` and barycentrics `(u, v)` of vertices 1 and 2 (the hit
/// point is `(1 − u − v)·a + u·b + v·c`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TriHit {
    /// Distance along the ray.
    pub t: f64,
    /// Barycentric weight of the second vertex.
    pub u: f64,
    /// Barycentric weight of the third vertex.
    pub v: f64,
}

/// Möller–Trumbore ray–triangle intersection, two-sided, edges inclusive (`u, v ≥ 0`,
/// `u + v ≤ 1`), hits with `t` in `[t_min, t_max]`. A ray parallel to the triangle's plane
/// (|det| below 1e-12 of |e1|·|e2|) and a degenerate triangle miss.
pub fn ray_triangle(ray: &Ray, a: Vec3, b: Vec3, c: Vec3, t_min: f64, t_max: f64) -> Option<TriHit> {
    let e1 = b - a;
    let e2 = c - a;
    let p = ray.dir.cross(e2);
    let det = e1.dot(p);
    let scale = e1.length() * e2.length();
    if det.is_nan() || det.abs() <= 1e-12 * scale {
        return None;
    }
    let inv = 1.0 / det;
    let s = ray.origin - a;
    let u = s.dot(p) * inv;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = s.cross(e1);
    let v = ray.dir.dot(q) * inv;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let t = e2.dot(q) * inv;
    (t >= t_min && t <= t_max).then_some(TriHit { t, u, v })
}

/// The bounding box of a triangle.
pub fn triangle_aabb(t: &[Vec3; 3]) -> Aabb3 {
    Aabb3 { min: t[0].min(t[1]).min(t[2]), max: t[0].max(t[1]).max(t[2]) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_algebra() {
        let a = vec3(1.0, 2.0, 3.0);
        let b = vec3(-4.0, 0.5, 2.0);
        assert_eq!(a + b, vec3(-3.0, 2.5, 5.0));
        assert_eq!(a - b, vec3(5.0, 1.5, 1.0));
        assert_eq!(a.dot(b), -4.0 + 1.0 + 6.0);
        let c = a.cross(b);
        assert_eq!(c.dot(a), 0.0);
        assert_eq!(c.dot(b), 0.0);
        assert_eq!(vec3(1.0, 0.0, 0.0).cross(vec3(0.0, 1.0, 0.0)), vec3(0.0, 0.0, 1.0));
        assert_eq!(vec3(3.0, 4.0, 0.0).length(), 5.0);
        assert_eq!(vec3(3.0, 4.0, 0.0).normalise(), Some(vec3(0.6, 0.8, 0.0)));
        assert_eq!(Vec3::ZERO.normalise(), None);
        assert_eq!(vec3(f64::NAN, 0.0, 1.0).normalise(), None);
        assert_eq!(vec3(f64::INFINITY, 0.0, 1.0).normalise(), None);
        assert_eq!(-a * 2.0, vec3(-2.0, -4.0, -6.0));
        assert_eq!(vec2(1.0, 0.0).cross(vec2(0.0, 1.0)), 1.0);
    }

    #[test]
    fn boxes() {
        let a = Aabb3::new(vec3(0.0, 0.0, 0.0), vec3(1.0, 2.0, 3.0)).unwrap();
        assert_eq!(a.surface_area(), 2.0 * (2.0 + 6.0 + 3.0));
        assert_eq!(Aabb3::EMPTY.surface_area(), 0.0);
        assert!(Aabb3::EMPTY.is_empty());
        assert_eq!(Aabb3::EMPTY.union(&a), a);
        assert!(a.contains(vec3(1.0, 2.0, 3.0)));
        assert!(!a.contains(vec3(1.0, 2.0, 3.0 + 1e-12)));
        let b = Aabb3::new(vec3(1.0, 2.0, 3.0), vec3(4.0, 4.0, 4.0)).unwrap();
        assert!(a.intersects(&b), "touching closed boxes intersect");
        assert!(!a.intersects(&Aabb3::EMPTY));
        assert!(a.union(&b).contains_box(&a) && a.union(&b).contains_box(&b));
        assert_eq!(a.distance_sq(vec3(2.0, 2.0, 3.0)), 1.0);
        assert_eq!(a.distance_sq(vec3(0.5, 0.5, 0.5)), 0.0);
        assert!(matches!(
            Aabb3::new(vec3(1.0, 0.0, 0.0), vec3(0.0, 1.0, 1.0)),
            Err(SpatialError::InvertedBox { axis: 0, .. })
        ));
        assert!(matches!(
            Aabb3::new(vec3(f64::NAN, 0.0, 0.0), vec3(1.0, 1.0, 1.0)),
            Err(SpatialError::NonFinite { .. })
        ));
        let q = Aabb2::new(vec2(0.0, 0.0), vec2(2.0, 3.0)).unwrap();
        assert_eq!(q.area(), 6.0);
        assert_eq!(q.distance_sq(vec2(-1.0, 4.0)), 2.0);
        assert!(Aabb2::new(vec2(0.0, f64::NAN), vec2(1.0, 1.0)).is_err());
    }

    #[test]
    fn ray_refuses_bad_direction() {
        assert_eq!(Ray::new(Vec3::ZERO, Vec3::ZERO), Err(SpatialError::BadDirection));
        assert_eq!(Ray::new(Vec3::ZERO, vec3(f64::NAN, 1.0, 0.0)), Err(SpatialError::BadDirection));
        assert_eq!(Ray::new(Vec3::ZERO, vec3(f64::INFINITY, 1.0, 0.0)), Err(SpatialError::BadDirection));
        assert!(Ray::new(vec3(f64::NAN, 0.0, 0.0), vec3(1.0, 0.0, 0.0)).is_err());
        let r = Ray::new(Vec3::ZERO, vec3(0.0, 0.0, 5.0)).unwrap();
        assert_eq!(r.direction(), vec3(0.0, 0.0, 1.0));
        assert_eq!(r.at(2.0), vec3(0.0, 0.0, 2.0));
    }

    #[test]
    fn slab_test_cases() {
        let b = Aabb3::new(vec3(1.0, -1.0, -1.0), vec3(2.0, 1.0, 1.0)).unwrap();
        let r = Ray::new(Vec3::ZERO, vec3(1.0, 0.0, 0.0)).unwrap();
        assert_eq!(ray_aabb(&r, &b, 0.0, f64::INFINITY), Some((1.0, 2.0)));
        assert_eq!(ray_aabb(&r, &b, 0.0, 0.5), None);
        let back = Ray::new(Vec3::ZERO, vec3(-1.0, 0.0, 0.0)).unwrap();
        assert_eq!(ray_aabb(&back, &b, 0.0, f64::INFINITY), None);
        // Grazing along a face (y = 1 plane): inside, as the box is closed.
        let graze = Ray::new(vec3(0.0, 1.0, 0.0), vec3(1.0, 0.0, 0.0)).unwrap();
        assert_eq!(ray_aabb(&graze, &b, 0.0, f64::INFINITY), Some((1.0, 2.0)));
        let miss = Ray::new(vec3(0.0, 1.5, 0.0), vec3(1.0, 0.0, 0.0)).unwrap();
        assert_eq!(ray_aabb(&miss, &b, 0.0, f64::INFINITY), None);
        // From inside: enters at t_min.
        let inside = Ray::new(vec3(1.5, 0.0, 0.0), vec3(0.0, 1.0, 0.0)).unwrap();
        assert_eq!(ray_aabb(&inside, &b, 0.0, f64::INFINITY), Some((0.0, 1.0)));
    }

    /// The slab test agrees with sampling the ray densely.
    #[test]
    fn slab_test_vs_sampling() {
        let mut s = 99u64;
        let mut rnd = move || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 11) as f64) / (1u64 << 53) as f64 * 4.0 - 2.0
        };
        let mut hits = 0;
        for _ in 0..400 {
            let (p, q) = (vec3(rnd(), rnd(), rnd()), vec3(rnd(), rnd(), rnd()));
            let b = Aabb3 { min: p.min(q), max: p.max(q) };
            let r = Ray::new(vec3(rnd(), rnd(), rnd()), vec3(rnd(), rnd(), rnd())).unwrap();
            let got = ray_aabb(&r, &b, 0.0, 10.0);
            if let Some((t0, t1)) = got {
                hits += 1;
                assert!(t0 <= t1);
                let mid = r.at(0.5 * (t0 + t1));
                assert!(b.distance_sq(mid) < 1e-18);
            } else {
                for k in 0..=4000 {
                    let pt = r.at(k as f64 * 10.0 / 4000.0);
                    assert!(b.distance_sq(pt) > 0.0, "sample inside a missed box");
                }
            }
        }
        assert!(hits > 40, "{hits}");
    }

    #[test]
    fn triangle_hits() {
        let (a, b, c) = (vec3(0.0, 0.0, 1.0), vec3(1.0, 0.0, 1.0), vec3(0.0, 1.0, 1.0));
        let r = Ray::new(vec3(0.25, 0.25, 0.0), vec3(0.0, 0.0, 1.0)).unwrap();
        let h = ray_triangle(&r, a, b, c, 0.0, f64::INFINITY).unwrap();
        assert_eq!((h.t, h.u, h.v), (1.0, 0.25, 0.25));
        // Two-sided.
        let r2 = Ray::new(vec3(0.25, 0.25, 2.0), vec3(0.0, 0.0, -1.0)).unwrap();
        assert_eq!(ray_triangle(&r2, a, b, c, 0.0, f64::INFINITY).unwrap().t, 1.0);
        // Outside, behind, beyond t_max, parallel, degenerate.
        let out = Ray::new(vec3(0.75, 0.75, 0.0), vec3(0.0, 0.0, 1.0)).unwrap();
        assert!(ray_triangle(&out, a, b, c, 0.0, f64::INFINITY).is_none());
        assert!(ray_triangle(&r2, a, b, c, 0.0, 0.5).is_none());
        let par = Ray::new(vec3(0.0, 0.0, 1.0), vec3(1.0, 1.0, 0.0)).unwrap();
        assert!(ray_triangle(&par, a, b, c, 0.0, f64::INFINITY).is_none());
        assert!(ray_triangle(&r, a, b, b, 0.0, f64::INFINITY).is_none());
        // The hit point lies on the triangle's plane and matches the barycentrics.
        let r3 = Ray::new(vec3(-1.0, -2.0, -3.0), vec3(1.1, 2.3, 4.2)).unwrap();
        if let Some(h) = ray_triangle(&r3, a, b, c, 0.0, f64::INFINITY) {
            let p = a * (1.0 - h.u - h.v) + b * h.u + c * h.v;
            assert!(p.distance(r3.at(h.t)) < 1e-12);
        }
    }
}

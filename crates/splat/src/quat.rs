//! Small rotation maths: unit quaternions in `(w, x, y, z)` order (Hamilton convention) and
//! 3 × 3 matrices, in f64.

/// A quaternion `(w, x, y, z)`.
pub type Quat = [f64; 4];
/// A row-major 3 × 3 matrix.
pub type Mat3 = [[f64; 3]; 3];

/// The identity rotation.
pub const IDENTITY: Quat = [1.0, 0.0, 0.0, 0.0];

/// Hamilton product `a ⊗ b`: the rotation "apply `b`, then `a`".
pub fn mul(a: Quat, b: Quat) -> Quat {
    let [aw, ax, ay, az] = a;
    let [bw, bx, by, bz] = b;
    [
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    ]
}

/// `q / |q|`; a zero (or non-finite) quaternion becomes the identity, as in the original's loader.
pub fn normalize(q: Quat) -> Quat {
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    if n > 0.0 && n.is_finite() {
        [q[0] / n, q[1] / n, q[2] / n, q[3] / n]
    } else {
        IDENTITY
    }
}

/// Rotation of `angle` radians about `axis` (normalised here; a zero axis gives the identity).
pub fn from_axis_angle(axis: [f64; 3], angle: f64) -> Quat {
    let n = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]).sqrt();
    if n == 0.0 || !n.is_finite() {
        return IDENTITY;
    }
    let (s, c) = (0.5 * angle).sin_cos();
    [c, s * axis[0] / n, s * axis[1] / n, s * axis[2] / n]
}

/// The rotation matrix of a unit quaternion (standard `(w, x, y, z)` formula).
pub fn to_matrix(q: Quat) -> Mat3 {
    let [w, x, y, z] = q;
    [
        [1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y)],
        [2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x)],
        [2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y)],
    ]
}

/// `m · v`.
pub fn mat_vec(m: &Mat3, v: [f64; 3]) -> [f64; 3] {
    [
        m[0][0] * v[0] + m[0][1] * v[1] + m[0][2] * v[2],
        m[1][0] * v[0] + m[1][1] * v[1] + m[1][2] * v[2],
        m[2][0] * v[0] + m[2][1] * v[1] + m[2][2] * v[2],
    ]
}

/// `mᵀ`.
pub fn transpose(m: &Mat3) -> Mat3 {
    [[m[0][0], m[1][0], m[2][0]], [m[0][1], m[1][1], m[2][1]], [m[0][2], m[1][2], m[2][2]]]
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)]
mod tests {
    use super::*;

    #[test]
    fn product_composes_like_matrices_and_does_not_commute() {
        let a = from_axis_angle([0.0, 0.0, 1.0], 0.7);
        let b = from_axis_angle([1.0, 0.0, 0.0], -1.1);
        let ab = to_matrix(mul(a, b));
        let (ma, mb) = (to_matrix(a), to_matrix(b));
        for i in 0..3 {
            for j in 0..3 {
                let m: f64 = (0..3).map(|k| ma[i][k] * mb[k][j]).sum();
                assert!((m - ab[i][j]).abs() < 1e-12);
            }
        }
        let ba = to_matrix(mul(b, a));
        assert!((ba[0][1] - ab[0][1]).abs() > 0.1);
    }

    #[test]
    fn matrix_is_orthonormal_with_determinant_one() {
        let m = to_matrix(normalize([0.3, -0.5, 0.8, 0.1]));
        let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
        assert!((det - 1.0).abs() < 1e-12);
        let t = transpose(&m);
        for i in 0..3 {
            for j in 0..3 {
                let d: f64 = (0..3).map(|k| m[i][k] * t[k][j]).sum();
                assert!((d - if i == j { 1.0 } else { 0.0 }).abs() < 1e-12);
            }
        }
        assert_eq!(normalize([0.0; 4]), IDENTITY);
    }
}

//! The inputs of the issue-23 speed benches ("Views"), shared by the criterion benches of
//! `bozkir-points` and `bozkir-render` and by the `views_inputs` example, which writes them as
//! `.npy` files for the peers (`scripts/bench_views_peer.py`), so both sides run on the same
//! numbers.
//!
//! Everything is deterministic and uses only `std`: an xorshift64 stream for random numbers and
//! closed-form height functions. Inputs:
//!
//! * [`cube`]: `n` points uniform in the unit cube (FPS).
//! * [`fps_terrain`]: the rolling 1024² / 2048² height fields the FPS timings sample points on.
//! * [`render_cloud`]: 1 M jittered points on a 400 × 400 m rolling height field, with normals
//!   and colours, as `raster_speed` draws them.
//! * [`grid_mesh`]: a `g × g` vertex grid of the same height field (`g = 708` gives 999,698
//!   triangles), with vertex normals.
//! * [`view`]: the 1280 × 720 camera looking at both from `(0, 70, 260)`, 50° vertical field
//!   of view, y up (column-major `P·V`, OpenGL clip conventions, near 0.5, far 5000).

#![allow(dead_code)]

/// Frame width and height of the render benches.
pub const WIDTH: u32 = 1280;
/// Frame height.
pub const HEIGHT: u32 = 720;
/// Camera position.
pub const EYE: [f64; 3] = [0.0, 70.0, 260.0];
/// Camera target.
pub const TARGET: [f64; 3] = [0.0, 0.0, 0.0];
/// Vertical field of view, degrees.
pub const FOVY_DEG: f64 = 50.0;

/// An xorshift64 stream of uniform `f64` in `[0, 1)`.
pub struct XorShift(u64);

impl XorShift {
    /// A stream from a non-zero `seed`.
    pub fn new(seed: u64) -> Self {
        XorShift(seed.max(1))
    }
    /// The next uniform number in `[0, 1)` (53 bits).
    pub fn next_f64(&mut self) -> f64 {
        let mut s = self.0;
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        self.0 = s;
        (s >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `n` points uniform in the unit cube, from xorshift seed `seed`.
pub fn cube(n: usize, seed: u64) -> Vec<[f64; 3]> {
    let mut r = XorShift::new(seed);
    (0..n).map(|_| [r.next_f64(), r.next_f64(), r.next_f64()]).collect()
}

/// The `n × n` rolling height field of the FPS timings (1 m cells), row-major.
pub fn fps_terrain(n: usize) -> Vec<f64> {
    (0..n * n)
        .map(|i| {
            let (x, y) = ((i % n) as f64, (i / n) as f64);
            40.0 * (0.013 * x).sin() * (0.017 * y).cos() + 5.0 * (0.11 * x + 0.07 * y).sin()
        })
        .collect()
}

/// Height of the render scenes' terrain at (`x`, `z`) metres.
pub fn height(x: f64, z: f64) -> f64 {
    12.0 * (x * 0.021).sin() * (z * 0.017).cos() + 4.0 * (x * 0.07 + z * 0.05).sin()
}

/// An unnormalised upward normal of [`height`] at (`x`, `z`) by forward differences.
fn normal_at(x: f64, z: f64) -> [f32; 3] {
    let y = height(x, z);
    let (dx, dz) = (height(x + 0.1, z) - y, height(x, z + 0.1) - y);
    [-dx as f32 * 10.0, 1.0, -dz as f32 * 10.0]
}

/// Positions, normals and sRGB colours of a cloud.
pub type Cloud = (Vec<[f32; 3]>, Vec<[f32; 3]>, Vec<[u8; 3]>);

/// `n` points jittered over the 400 × 400 m square of [`height`] (xorshift seed 1), with
/// normals and colours.
pub fn render_cloud(n: usize) -> Cloud {
    let mut r = XorShift::new(1);
    let mut pts = Vec::with_capacity(n);
    let mut nrm = Vec::with_capacity(n);
    let mut col = Vec::with_capacity(n);
    for _ in 0..n {
        let (x, z) = (r.next_f64() * 400.0 - 200.0, r.next_f64() * 400.0 - 200.0);
        let y = height(x, z);
        pts.push([x as f32, y as f32, z as f32]);
        nrm.push(normal_at(x, z));
        col.push([(100.0 + y * 5.0) as u8, 140, 90]);
    }
    (pts, nrm, col)
}

/// The permutation that puts `pts` in scan order (rows of 2 m in z, then x), as a scan or a
/// sampled mesh would come.
pub fn scan_order(pts: &[[f32; 3]]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..pts.len()).collect();
    order.sort_by(|&a, &b| {
        let key = |i: usize| ((pts[i][2] / 2.0).floor() as i32, pts[i][0]);
        let (ka, kb) = (key(a), key(b));
        ka.0.cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
    });
    order
}

/// A `g × g` vertex grid over the 400 × 400 m square of [`height`]: positions, vertex normals
/// and `2·(g − 1)²` triangles (counter-clockwise from above).
pub fn grid_mesh(g: usize) -> (Vec<[f32; 3]>, Vec<[f32; 3]>, Vec<u32>) {
    let mut pos = Vec::with_capacity(g * g);
    let mut nor = Vec::with_capacity(g * g);
    for j in 0..g {
        for i in 0..g {
            let (x, z) = (i as f64 / (g - 1) as f64 * 400.0 - 200.0, j as f64 / (g - 1) as f64 * 400.0 - 200.0);
            pos.push([x as f32, height(x, z) as f32, z as f32]);
            nor.push(normal_at(x, z));
        }
    }
    let mut idx = Vec::with_capacity((g - 1) * (g - 1) * 6);
    for j in 0..g - 1 {
        for i in 0..g - 1 {
            let a = (j * g + i) as u32;
            let b = a + g as u32;
            idx.extend_from_slice(&[a, b, a + 1, a + 1, b, b + 1]);
        }
    }
    (pos, nor, idx)
}

/// Column-major `P·V` of a perspective camera at `eye` looking at `target`, y up.
pub fn perspective_look_at(eye: [f64; 3], target: [f64; 3], fovy_deg: f64, aspect: f64) -> [[f64; 4]; 4] {
    let norm = |v: [f64; 3]| {
        let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        [v[0] / l, v[1] / l, v[2] / l]
    };
    let cross =
        |a: [f64; 3], b: [f64; 3]| [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let f = norm([target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]]);
    let s = norm(cross(f, [0.0, 1.0, 0.0]));
    let u = cross(s, f);
    let (near, far) = (0.5, 5000.0);
    let g = 1.0 / (fovy_deg.to_radians() * 0.5).tan();
    let rows = [
        [g / aspect * s[0], g / aspect * s[1], g / aspect * s[2], -g / aspect * dot(s, eye)],
        [g * u[0], g * u[1], g * u[2], -g * dot(u, eye)],
        [
            -(far + near) / (near - far) * f[0],
            -(far + near) / (near - far) * f[1],
            -(far + near) / (near - far) * f[2],
            (far + near) / (near - far) * dot(f, eye) + 2.0 * far * near / (near - far),
        ],
        [f[0], f[1], f[2], -dot(f, eye)],
    ];
    let mut m = [[0.0; 4]; 4];
    for (r, row) in rows.iter().enumerate() {
        for c in 0..4 {
            m[c][r] = row[c];
        }
    }
    m
}

/// The bench camera's `P·V`.
pub fn view_proj() -> [[f64; 4]; 4] {
    perspective_look_at(EYE, TARGET, FOVY_DEG, WIDTH as f64 / HEIGHT as f64)
}

//! Tests of the software renderer: coverage against brute force, the fill rule, clipping,
//! shading, shadows, fog, anti-aliasing, determinism and bad input.

use super::pipeline::{draw_triangles, transform_all, Mat4, Target};
use super::shade::{dot, normalise, sub};
use super::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

// ---------------------------------------------------------------- helpers

/// `a · b` for column-major matrices.
fn mat_mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut m = [[0.0; 4]; 4];
    for c in 0..4 {
        for r in 0..4 {
            m[c][r] = (0..4).map(|k| a[k][r] * b[c][k]).sum();
        }
    }
    m
}

/// OpenGL perspective projection.
fn perspective(fovy_deg: f64, aspect: f64, near: f64, far: f64) -> Mat4 {
    let f = 1.0 / (fovy_deg.to_radians() * 0.5).tan();
    let mut m = [[0.0; 4]; 4];
    m[0][0] = f / aspect;
    m[1][1] = f;
    m[2][2] = (far + near) / (near - far);
    m[2][3] = -1.0;
    m[3][2] = 2.0 * far * near / (near - far);
    m
}

/// OpenGL look-at view matrix.
fn look_at(eye: [f64; 3], target: [f64; 3], up: [f64; 3]) -> Mat4 {
    let f = normalise(sub(target, eye)).unwrap();
    let s = normalise(shade::cross(f, up)).unwrap();
    let u = shade::cross(s, f);
    let mut m = [[0.0; 4]; 4];
    for c in 0..3 {
        m[c][0] = s[c];
        m[c][1] = u[c];
        m[c][2] = -f[c];
    }
    m[3] = [-dot(s, eye), -dot(u, eye), dot(f, eye), 1.0];
    m
}

fn camera(eye: [f64; 3], target: [f64; 3], up: [f64; 3], fovy: f64, w: u32, h: u32) -> View {
    let vp = mat_mul(&perspective(fovy, w as f64 / h as f64, 0.1, 1000.0), &look_at(eye, target, up));
    View { view_proj: vp, eye, width: w, height: h }
}

/// World `(x, y)` = pixel coordinates (y down), `z` in `[-100, 100]` with smaller `z` nearer.
fn pixel_view(w: u32, h: u32) -> View {
    let mut m = [[0.0; 4]; 4];
    m[0][0] = 2.0 / w as f64;
    m[3][0] = -1.0;
    m[1][1] = -2.0 / h as f64;
    m[3][1] = 1.0;
    m[2][2] = 0.01;
    m[3][3] = 1.0;
    View { view_proj: m, eye: [0.0, 0.0, -100.0], width: w, height: h }
}

/// Pixel position of world point `p`.
fn project(v: &View, p: [f64; 3]) -> (usize, usize) {
    let c = pipeline::transform(&v.view_proj, p);
    let (x, y) = (c[0] / c[3], c[1] / c[3]);
    (((x + 1.0) * 0.5 * v.width as f64) as usize, ((1.0 - y) * 0.5 * v.height as f64) as usize)
}

/// Lighting that returns the albedo unchanged.
fn albedo_only() -> MeshParams {
    MeshParams {
        light: Lighting { sun_colour: [0.0; 3], sky_light: [1.0; 3], ground_light: [1.0; 3], ..Lighting::default() },
        shadows: None,
        supersample: 1,
        ..MeshParams::default()
    }
}

fn close(a: [u8; 3], b: [u8; 3], tol: i32) -> bool {
    (0..3).all(|k| (a[k] as i32 - b[k] as i32).abs() <= tol)
}

/// Fragment counts per sample of triangles given in pixel coordinates.
fn counts(w: usize, h: usize, pos: &[[f64; 3]], idx: &[u32]) -> Vec<u32> {
    let v = pixel_view(w as u32, h as u32);
    let t = Target { sw: w, sh: h };
    let clip = transform_all(&v.view_proj, pos.len(), |i| pos[i]);
    let c: Vec<AtomicU32> = (0..w * h).map(|_| AtomicU32::new(0)).collect();
    draw_triangles(&clip, idx, &t, false, |x, y, _, _| {
        c[y * w + x].fetch_add(1, Relaxed);
    });
    c.into_iter().map(|a| a.into_inner()).collect()
}

/// Snaps to the rasteriser's 1/256 grid so brute force and raster see the same corners.
fn snap(x: f64) -> f64 {
    (x * 256.0).round() / 256.0
}

/// A small deterministic generator (SplitMix64).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A UV sphere of radius `r` at `c`: positions, unit normals, indices (counter-clockwise from
/// outside).
fn sphere(c: [f64; 3], r: f64, seg: usize, rings: usize) -> (Vec<[f64; 3]>, Vec<[f32; 3]>, Vec<u32>) {
    let (mut p, mut n, mut idx) = (Vec::new(), Vec::new(), Vec::new());
    for j in 0..=rings {
        let th = std::f64::consts::PI * j as f64 / rings as f64;
        for i in 0..=seg {
            let ph = 2.0 * std::f64::consts::PI * i as f64 / seg as f64;
            let d = [th.sin() * ph.cos(), th.cos(), -th.sin() * ph.sin()];
            p.push([c[0] + r * d[0], c[1] + r * d[1], c[2] + r * d[2]]);
            n.push([d[0] as f32, d[1] as f32, d[2] as f32]);
        }
    }
    for j in 0..rings {
        for i in 0..seg {
            let a = (j * (seg + 1) + i) as u32;
            let b = a + seg as u32 + 1;
            idx.extend_from_slice(&[a, b, a + 1, a + 1, b, b + 1]);
        }
    }
    (p, n, idx)
}

/// Two triangles: the quad with corners `a` and `b` in x and y at depth `z`, in the xy plane.
fn quad_xy(x0: f64, y0: f64, x1: f64, y1: f64, z: f64, base: u32) -> ([[f64; 3]; 4], [u32; 6]) {
    ([[x0, y0, z], [x1, y0, z], [x1, y1, z], [x0, y1, z]], [base, base + 1, base + 2, base, base + 2, base + 3])
}

/// A horizontal quad (y = `y`) spanning `[-e, e]` in x and z.
fn ground(y: f64, e: f64, base: u32) -> ([[f64; 3]; 4], [u32; 6]) {
    ([[-e, y, -e], [-e, y, e], [e, y, e], [e, y, -e]], [base, base + 1, base + 2, base, base + 2, base + 3])
}

// ---------------------------------------------------------------- coverage

#[test]
fn nearest_wins_in_either_submission_order() {
    let (fa, ia) = quad_xy(10.0, 10.0, 50.0, 50.0, 10.0, 0); // far, red
    let (fb, ib) = quad_xy(30.0, 30.0, 70.0, 70.0, -10.0, 4); // near, blue
    let pos: Vec<[f64; 3]> = fa.iter().chain(fb.iter()).copied().collect();
    let col: Vec<[u8; 3]> = [[200u8, 30, 30]; 4].into_iter().chain([[30u8, 30, 200]; 4]).collect();
    let far_first: Vec<u32> = ia.iter().chain(ib.iter()).copied().collect();
    let near_first: Vec<u32> = ib.iter().chain(ia.iter()).copied().collect();
    let v = pixel_view(80, 80);
    let p = albedo_only();
    let a = render_mesh(&v, &MeshRef::new(&pos, &far_first).with_colours(&col), &p).unwrap();
    let b = render_mesh(&v, &MeshRef::new(&pos, &near_first).with_colours(&col), &p).unwrap();
    assert_eq!(a, b);
    assert!(close(a.image.pixel(40, 40), [30, 30, 200], 1), "{:?}", a.image.pixel(40, 40));
    assert!(close(a.image.pixel(20, 20), [200, 30, 30], 1));
    assert!(close(a.image.pixel(60, 60), [30, 30, 200], 1));
    // Distances from the eye at (0, 0, −100) to the pixel centres on each quad.
    let dist = |p: [f64; 3]| dot(sub(p, v.eye), sub(p, v.eye)).sqrt() as f32;
    assert!((a.distance[40 * 80 + 40] - dist([40.5, 40.5, -10.0])).abs() < 1e-3);
    assert!((a.distance[20 * 80 + 20] - dist([20.5, 20.5, 10.0])).abs() < 1e-3);
    assert!(a.distance[5 * 80 + 5].is_infinite());
}

#[test]
fn triangle_coverage_matches_brute_force_and_area() {
    let mut rng = Rng(7);
    for _ in 0..200 {
        let pos: Vec<[f64; 3]> =
            (0..3).map(|_| [snap(rng.next() * 70.0 - 5.0), snap(rng.next() * 50.0 - 5.0), 0.0]).collect();
        let c = counts(64, 48, &pos, &[0, 1, 2]);
        let e = |a: [f64; 3], b: [f64; 3], x: f64, y: f64| (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]);
        let area2 = e(pos[0], pos[1], pos[2][0], pos[2][1]);
        let sgn = area2.signum();
        let (mut inside, mut on_edge, mut drawn) = (0, 0, 0);
        for y in 0..48 {
            for x in 0..64 {
                let (cx, cy) = (x as f64 + 0.5, y as f64 + 0.5);
                let w =
                    [e(pos[0], pos[1], cx, cy), e(pos[1], pos[2], cx, cy), e(pos[2], pos[0], cx, cy)].map(|w| w * sgn);
                let n = c[y * 64 + x];
                assert!(n <= 1, "a sample drawn twice by one triangle");
                drawn += n;
                if w.iter().all(|&w| w > 0.0) {
                    inside += 1;
                    assert_eq!(n, 1, "sample ({x}, {y}) inside {pos:?} not drawn");
                } else if w.iter().all(|&w| w >= 0.0) {
                    on_edge += 1;
                } else {
                    assert_eq!(n, 0, "sample ({x}, {y}) outside {pos:?} drawn");
                }
            }
        }
        assert!(drawn >= inside && drawn <= inside + on_edge);
        // Inside the image, the count approximates the area within the perimeter.
        if pos.iter().all(|p| p[0] >= 0.0 && p[0] <= 64.0 && p[1] >= 0.0 && p[1] <= 48.0) {
            let per: f64 =
                (0..3).map(|k| dot(sub(pos[k], pos[(k + 1) % 3]), sub(pos[k], pos[(k + 1) % 3])).sqrt()).sum();
            assert!((drawn as f64 - area2.abs() / 2.0).abs() <= per + 1.0, "{drawn} vs {}", area2.abs() / 2.0);
        }
    }
}

#[test]
fn shared_edges_are_drawn_exactly_once() {
    // A jittered grid tiling the rectangle [8, W − 8] × [4, H − 4]; inner vertices move, the
    // border stays straight. Both windings; small triangles, and big ones that are drawn in row
    // blocks. Every sample inside is drawn once, every sample outside never.
    let mut rng = Rng(11);
    for (w, h, nx, ny) in [(64usize, 48usize, 9usize, 7usize), (400, 300, 3, 2)] {
        let (x0, x1, y0, y1) = (8.0, (w - 8) as f64, 4.0, (h - 4) as f64);
        for flip in [false, true] {
            let mut pos = Vec::new();
            for j in 0..=ny {
                for i in 0..=nx {
                    let mut x = x0 + (x1 - x0) * i as f64 / nx as f64;
                    let mut y = y0 + (y1 - y0) * j as f64 / ny as f64;
                    let inner = i > 0 && i < nx && j > 0 && j < ny;
                    if inner && (i + j) % 3 == 0 {
                        // Some vertices exactly on sample centres, the worst case for the rule.
                        (x, y) = (x.floor() + 0.5, y.floor() + 0.5);
                    } else if inner {
                        x += (rng.next() - 0.5) * 2.4;
                        y += (rng.next() - 0.5) * 2.4;
                    }
                    pos.push([snap(x), snap(y), 0.0]);
                }
            }
            let mut idx = Vec::new();
            for j in 0..ny {
                for i in 0..nx {
                    let a = (j * (nx + 1) + i) as u32;
                    let b = a + nx as u32 + 1;
                    // Alternate the diagonal; straight diagonals run through sample centres.
                    let t =
                        if (i + j) % 2 == 0 { [a, b, a + 1, a + 1, b, b + 1] } else { [a, b, b + 1, a, b + 1, a + 1] };
                    for tri in t.chunks(3) {
                        if flip {
                            idx.extend_from_slice(&[tri[0], tri[2], tri[1]]);
                        } else {
                            idx.extend_from_slice(tri);
                        }
                    }
                }
            }
            let c = counts(w, h, &pos, &idx);
            for y in 0..h {
                for x in 0..w {
                    let inside = (8..w - 8).contains(&x) && (4..h - 4).contains(&y);
                    assert_eq!(c[y * w + x], inside as u32, "{w}×{h}: sample ({x}, {y}), flip {flip}");
                }
            }
        }
    }
    // A fan around a sample centre: eight triangles meet at (32.5, 24.5).
    let mut pos = vec![[32.5, 24.5, 0.0]];
    for k in 0..8 {
        let a = k as f64 * std::f64::consts::FRAC_PI_4 + 0.1;
        pos.push([snap(32.5 + 18.0 * a.cos()), snap(24.5 + 18.0 * a.sin()), 0.0]);
    }
    let idx: Vec<u32> = (0..8u32).flat_map(|k| [0, 1 + k, 1 + (k + 1) % 8]).collect();
    let c = counts(64, 48, &pos, &idx);
    assert_eq!(c[24 * 64 + 32], 1, "the shared vertex's sample is drawn once");
    assert!(c.iter().all(|&n| n <= 1));
    // The centre region (inside the inscribed circle) is fully covered.
    for y in 0..48 {
        for x in 0..64 {
            let (dx, dy) = (x as f64 + 0.5 - 32.5, y as f64 + 0.5 - 24.5);
            if dx * dx + dy * dy < 15.0 * 15.0 {
                assert_eq!(c[y * 64 + x], 1, "({x}, {y})");
            }
        }
    }
}

/// A grid of `n × n` cells over `[0, size]²` with depth `z(x, y)`, from vertex `base`.
fn depth_grid(n: usize, size: f64, z: impl Fn(f64, f64) -> f64, base: u32) -> (Vec<[f64; 3]>, Vec<u32>) {
    let mut p = Vec::new();
    for j in 0..=n {
        for i in 0..=n {
            let (x, y) = (size * i as f64 / n as f64, size * j as f64 / n as f64);
            p.push([x, y, z(x, y)]);
        }
    }
    let mut idx = Vec::new();
    for j in 0..n {
        for i in 0..n {
            let a = base + (j * (n + 1) + i) as u32;
            let b = a + n as u32 + 1;
            idx.extend_from_slice(&[a, b, a + 1, a + 1, b, b + 1]);
        }
    }
    (p, idx)
}

#[test]
fn depth_is_interpolated_across_triangles() {
    // A tilted surface z = 2 (x − 37.3) + (y − 50)/4 crossing the flat z = 0: the tilted one is
    // nearer (smaller z) left of the line z = 0. Each drawn once as fine triangles (the
    // per-sample path) and once as two big ones (the plane path), against the other.
    let tilt = |x: f64, y: f64| 2.0 * (x - 37.3) + (y - 50.0) / 4.0;
    let v = pixel_view(100, 100);
    for (n_tilt, n_flat) in [(12, 1), (1, 12)] {
        let (mut pos, mut idx) = depth_grid(n_tilt, 100.0, tilt, 0);
        let (pf, if_) = depth_grid(n_flat, 100.0, |_, _| 0.0, pos.len() as u32);
        let split = pos.len();
        pos.extend(pf);
        idx.extend(if_);
        let col: Vec<[u8; 3]> = (0..pos.len()).map(|i| if i < split { [220, 40, 40] } else { [40, 40, 220] }).collect();
        let f = render_mesh(&v, &MeshRef::new(&pos, &idx).with_colours(&col), &albedo_only()).unwrap();
        for y in 0..100 {
            for x in 0..100 {
                let z = tilt(x as f64 + 0.5, y as f64 + 0.5);
                if z.abs() < 0.3 {
                    continue;
                }
                let want = if z < 0.0 { [220, 40, 40] } else { [40, 40, 220] };
                assert!(close(f.image.pixel(x, y), want, 1), "({x}, {y}) z {z}, tilt grid {n_tilt}");
            }
        }
    }
}

/// Pixels whose view ray hits triangle `tri` between the near and far planes (brute force).
fn ray_cast_coverage(v: &View, tri: [[f64; 3]; 3]) -> Vec<bool> {
    let inv = pipeline::invert(&v.view_proj).unwrap();
    let un = |x: f64, y: f64, z: f64| {
        let c = pipeline::transform4(&inv, [x, y, z, 1.0]);
        [c[0] / c[3], c[1] / c[3], c[2] / c[3]]
    };
    let (w, h) = (v.width as usize, v.height as usize);
    let mut out = vec![false; w * h];
    for py in 0..h {
        for px in 0..w {
            let (x, y) = ((px as f64 + 0.5) / w as f64 * 2.0 - 1.0, 1.0 - (py as f64 + 0.5) / h as f64 * 2.0);
            let (o, f) = (un(x, y, -1.0), un(x, y, 1.0));
            let d = sub(f, o);
            // Möller–Trumbore; hit parameter in [0, 1] along near → far.
            let (e1, e2) = (sub(tri[1], tri[0]), sub(tri[2], tri[0]));
            let pv = shade::cross(d, e2);
            let det = dot(e1, pv);
            if det.abs() < 1e-12 {
                continue;
            }
            let tv = sub(o, tri[0]);
            let u = dot(tv, pv) / det;
            let qv = shade::cross(tv, e1);
            let vv = dot(d, qv) / det;
            let t = dot(e2, qv) / det;
            out[py * w + px] = u >= 0.0 && vv >= 0.0 && u + vv <= 1.0 && (0.0..=1.0).contains(&t);
        }
    }
    out
}

#[test]
fn triangles_crossing_the_near_plane_are_clipped_not_dropped() {
    let v = camera([0.0, 1.0, 0.0], [0.0, 0.6, -3.0], [0.0, 1.0, 0.0], 60.0, 96, 64);
    let cases = [
        // One corner behind the eye.
        [[0.0, 0.0, 10.0], [40.0, 0.0, -40.0], [-40.0, 0.0, -40.0]],
        // Two corners behind the eye.
        [[-40.0, 0.0, 10.0], [40.0, 0.0, 10.0], [0.0, 0.0, -60.0]],
        // A wall straddling the near plane sideways.
        [[-0.05, -5.0, 2.0], [-0.05, 5.0, 2.0], [-0.05, 0.0, -8.0]],
    ];
    for tri in cases {
        let pos = tri.to_vec();
        let f = render_mesh(&v, &MeshRef::new(&pos, &[0, 1, 2]), &albedo_only()).unwrap();
        let drawn: Vec<bool> = f.distance.iter().map(|d| d.is_finite()).collect();
        let truth = ray_cast_coverage(&v, tri);
        let n_truth = truth.iter().filter(|&&b| b).count();
        let mismatch = drawn.iter().zip(&truth).filter(|(a, b)| a != b).count();
        assert!(n_truth > 200, "the case should be visible: {n_truth} pixels");
        assert!(mismatch <= 2 * (96 + 64) / 4, "{mismatch} pixels differ from ray casting for {tri:?}");
    }
}

// ---------------------------------------------------------------- shading

#[test]
fn sky_rays_match_unprojection() {
    let persp = camera([1.0, 2.0, 3.0], [0.0, 0.5, -4.0], [0.0, 1.0, 0.0], 70.0, 64, 48);
    let mut ortho = pixel_view(64, 48);
    ortho.view_proj = mat_mul(&ortho.view_proj, &look_at([0.0; 3], [0.3, -0.5, 1.0], [0.0, 1.0, 0.0]));
    let mut rng = Rng(5);
    for v in [persp, ortho] {
        let inv = pipeline::invert(&v.view_proj).unwrap();
        let up = normalise([0.1, 1.0, 0.2]).unwrap();
        let sky = shade::SkyShader::new(&Sky::default(), up, inv);
        for _ in 0..100 {
            let (x, y) = (rng.next() * 2.0 - 1.0, rng.next() * 2.0 - 1.0);
            let want = dot(shade::ray(&inv, x, y), up);
            let e = sky.sin_elevation(x, y);
            assert!((e - want).abs() < 1e-9, "{e} vs {want}");
            // The table agrees with the exact blend to within a level.
            let exact = sky.colour_at(x, y).map(shade::to_srgb8);
            assert!(close(sky.srgb_at(x, y), exact, 1));
        }
        // The row form gives the same bytes as the per-pixel form.
        let (mut row, mut scratch) = (vec![[0u8; 3]; 64], Vec::new());
        for py in 0..48 {
            let y = 1.0 - (py as f64 + 0.5) / 48.0 * 2.0;
            sky.srgb_row(y, &mut row, &mut scratch);
            for (px, got) in row.iter().enumerate() {
                assert_eq!(*got, sky.srgb_at((px as f64 + 0.5) / 64.0 * 2.0 - 1.0, y));
            }
        }
    }
    // Looking up shows the zenith, down the ground, level the horizon.
    let s = Sky::default();
    for (target, want) in
        [([0.0, 100.0, -1.0], s.zenith), ([0.0, -100.0, -1.0], s.ground), ([0.0, 0.0, -1.0], s.horizon)]
    {
        let v = camera([0.0; 3], target, [0.0, 1.0, 0.0], 1.0, 8, 8);
        let sky = shade::SkyShader::new(&s, [0.0, 1.0, 0.0], pipeline::invert(&v.view_proj).unwrap());
        assert!(close(sky.srgb_at(0.0, 0.0), want, 8), "{:?} vs {want:?}", sky.srgb_at(0.0, 0.0));
    }
}

#[test]
fn srgb_round_trips_every_byte() {
    for u in 0..=255u8 {
        assert_eq!(shade::to_srgb8(shade::to_linear(u)), u);
    }
    assert_eq!(shade::to_srgb8(0.5), 188);
    assert_eq!(shade::to_srgb8(2.0), 255);
    assert_eq!(shade::to_srgb8(-1.0), 0);
}

#[test]
fn interpolation_is_perspective_correct() {
    // A strip on y = 0 receding from z = −2 to z = −40, black near and white far: linear light
    // is linear in world z, so each pixel shows (−2 − z)/38 at the z its ray hits; screen-space
    // (affine) interpolation would be far off in the middle.
    let pos = vec![[-1.0, 0.0, -2.0], [1.0, 0.0, -2.0], [1.0, 0.0, -40.0], [-1.0, 0.0, -40.0]];
    let col = vec![[0u8; 3], [0; 3], [255; 3], [255; 3]];
    let v = camera([0.0, 10.0, 0.0], [0.0, 0.0, -21.0], [0.0, 1.0, 0.0], 50.0, 256, 256);
    let f = render_mesh(&v, &MeshRef::new(&pos, &[0, 1, 2, 0, 2, 3]).with_colours(&col), &albedo_only()).unwrap();
    let inv = pipeline::invert(&v.view_proj).unwrap();
    let mut checked = 0;
    for y in 0..256 {
        let x = 128;
        if !f.distance[y * 256 + x].is_finite() {
            continue;
        }
        let ny = 1.0 - (y as f64 + 0.5) / 128.0;
        let q = pipeline::transform4(&inv, [(x as f64 + 0.5) / 128.0 - 1.0, ny, 1.0, 1.0]);
        let d = sub([q[0] / q[3], q[1] / q[3], q[2] / q[3]], v.eye);
        let z = v.eye[2] + d[2] * (-v.eye[1] / d[1]);
        let want = shade::to_srgb8(((-2.0 - z) / 38.0).clamp(0.0, 1.0)) as i32;
        let g = f.image.pixel(x, y)[0] as i32;
        assert!((g - want).abs() <= 1, "row {y}: grey {g}, want {want}");
        checked += 1;
    }
    assert!(checked > 40);
}

/// Analytic shade of a unit normal under `p`'s light, no shadow, grey albedo `a` (linear).
fn lambert(p: &MeshParams, n: [f64; 3], a: f64) -> [u8; 3] {
    let l = &p.light;
    let s = normalise(l.sun).unwrap();
    let up = normalise(p.up).unwrap();
    let h = 0.5 + 0.5 * dot(n, up);
    std::array::from_fn(|c| {
        let amb = l.ground_light[c] + (l.sky_light[c] - l.ground_light[c]) * h;
        shade::to_srgb8(a * (l.sun_colour[c] * dot(n, s).max(0.0) + amb))
    })
}

#[test]
fn flat_is_one_shade_per_triangle_and_smooth_follows_the_sphere() {
    let (p, n, idx) = sphere([0.0; 3], 1.0, 24, 16);
    let eye = [0.0, 0.0, 4.0];
    let v = camera(eye, [0.0; 3], [0.0, 1.0, 0.0], 40.0, 160, 160);
    let mut params = MeshParams { shadows: None, supersample: 1, ..MeshParams::default() };
    params.light.sun = [0.3, 0.4, 1.0];
    let mesh = MeshRef::new(&p, &idx).with_normals(&n);
    let flat = render_mesh(&v, &mesh, &MeshParams { normals: NormalMode::Flat, ..params }).unwrap();
    let smooth = render_mesh(&v, &mesh, &params).unwrap();
    // Triangle ids per pixel: unshared vertices with a unique colour per triangle.
    let mut up = Vec::new();
    let mut uc = Vec::new();
    for (t, tri) in idx.chunks(3).enumerate() {
        for &i in tri {
            up.push(p[i as usize]);
            uc.push([(t % 256) as u8, (t / 256) as u8, 77]);
        }
    }
    let ui: Vec<u32> = (0..up.len() as u32).collect();
    let ids = render_mesh(&v, &MeshRef::new(&up, &ui).with_colours(&uc), &albedo_only()).unwrap();
    let a = shade::to_linear(182); // the default albedo is grey-ish; use the red channel
    type Shades = (Vec<[u8; 3]>, Vec<[u8; 3]>);
    let mut per_tri: std::collections::BTreeMap<[u8; 2], Shades> = Default::default();
    let (mut err_flat, mut err_smooth, mut m) = (0.0, 0.0, 0);
    let inv = pipeline::invert(&v.view_proj).unwrap();
    for y in 0..160 {
        for x in 0..160 {
            let k = y * 160 + x;
            if !ids.distance[k].is_finite() {
                assert!(!flat.distance[k].is_finite() && !smooth.distance[k].is_finite());
                continue;
            }
            let id = ids.image.pixel(x, y);
            let e = per_tri.entry([id[0], id[1]]).or_default();
            e.0.push(flat.image.pixel(x, y));
            e.1.push(smooth.image.pixel(x, y));
            // The true sphere normal under this pixel (ray–sphere intersection).
            let (nx, ny) = ((x as f64 + 0.5) / 80.0 - 1.0, 1.0 - (y as f64 + 0.5) / 80.0);
            let q = pipeline::transform4(&inv, [nx, ny, 1.0, 1.0]);
            let d = normalise(sub([q[0] / q[3], q[1] / q[3], q[2] / q[3]], eye)).unwrap();
            let b = dot(eye, d);
            let disc = b * b - (dot(eye, eye) - 1.0);
            if disc < 0.05 {
                continue; // too close to the limb for a stable comparison
            }
            let t = -b - disc.sqrt();
            let normal = [eye[0] + t * d[0], eye[1] + t * d[1], eye[2] + t * d[2]];
            let truth = lambert(&params, normal, a)[0] as f64;
            err_flat += (flat.image.pixel(x, y)[0] as f64 - truth).abs();
            err_smooth += (smooth.image.pixel(x, y)[0] as f64 - truth).abs();
            m += 1;
        }
    }
    let (mut varied_flat, mut varied_smooth) = (0, 0);
    for (f, s) in per_tri.values() {
        varied_flat += f.iter().any(|c| c != &f[0]) as usize;
        varied_smooth += s.iter().any(|c| c != &s[0]) as usize;
    }
    assert_eq!(varied_flat, 0, "flat shading varies inside a triangle");
    assert!(varied_smooth * 2 > per_tri.len(), "smooth shading varies in only {varied_smooth}/{}", per_tri.len());
    let (ef, es) = (err_flat / m as f64, err_smooth / m as f64);
    assert!(es < 2.0 && es * 3.0 < ef, "mean error against the analytic sphere: smooth {es}, flat {ef}");
    // The centre of the sphere is 3 from the eye.
    assert!((smooth.distance[80 * 160 + 80] - 3.0).abs() < 0.01);
}

/// Ground, an occluder 2 above it, sun at 45° from +x: the occluder's shadow falls on x ∈ [−3, −1].
fn shadow_scene() -> (Vec<[f64; 3]>, Vec<u32>) {
    let (g, gi) = ground(0.0, 10.0, 0);
    let (o, oi) = ground(2.0, 1.0, 4);
    (g.iter().chain(o.iter()).copied().collect(), gi.iter().chain(oi.iter()).copied().collect())
}

#[test]
fn shadows_darken_points_the_sun_cannot_see() {
    let (pos, idx) = shadow_scene();
    let v = camera([0.0, 20.0, 0.0], [0.0; 3], [0.0, 0.0, -1.0], 60.0, 128, 128);
    let (shadowed, open) = (project(&v, [-2.0, 0.0, 0.0]), project(&v, [2.0, 0.0, 0.0]));
    let mesh = MeshRef::new(&pos, &idx);
    let lum = |c: [u8; 3]| c.iter().map(|&x| x as u32).sum::<u32>();
    let mut base = MeshParams { supersample: 1, ..MeshParams::default() };
    base.light.sun = [1.0, 1.0, 0.0];
    for pcf in [0, 1, 2] {
        let p = MeshParams { shadows: Some(Shadows { pcf_radius: pcf, ..Shadows::default() }), ..base };
        let f = render_mesh(&v, &mesh, &p).unwrap();
        let (s, o) = (f.image.pixel(shadowed.0, shadowed.1), f.image.pixel(open.0, open.1));
        assert!(lum(s) + 150 < lum(o), "pcf {pcf}: shadowed {s:?} vs open {o:?}");
        // No acne: open ground matches the unshadowed render.
        let off = render_mesh(&v, &mesh, &MeshParams { shadows: None, ..base }).unwrap();
        assert_eq!(o, off.image.pixel(open.0, open.1));
        assert_eq!(off.image.pixel(shadowed.0, shadowed.1), off.image.pixel(open.0, open.1));
    }
}

#[test]
fn fog_pulls_far_pixels_towards_the_fog_colour() {
    let (g, gi) = ground(0.0, 1000.0, 0);
    let pos = g.to_vec();
    let v = camera([0.0, 2.0, 0.0], [0.0, 0.0, -20.0], [0.0, 1.0, 0.0], 60.0, 128, 96);
    let mesh = MeshRef::new(&pos, &gi);
    let base = MeshParams { normals: NormalMode::Flat, shadows: None, supersample: 1, ..MeshParams::default() };
    let fog = Fog { colour: [90, 110, 250], start: 0.0, density: 0.02 };
    let clear = render_mesh(&v, &mesh, &base).unwrap();
    let foggy = render_mesh(&v, &mesh, &MeshParams { fog: Some(fog), ..base }).unwrap();
    let (near, far) = (project(&v, [0.0, 0.0, -4.0]), project(&v, [0.0, 0.0, -150.0]));
    let at = |f: &RasterFrame, p: (usize, usize)| f.image.pixel(p.0, p.1);
    let gap = |c: [u8; 3]| (0..3).map(|k| (c[k] as i32 - fog.colour[k] as i32).abs()).sum::<i32>();
    assert_eq!(at(&clear, near), at(&clear, far), "flat ground is uniform without fog");
    assert!(gap(at(&foggy, far)) * 3 < gap(at(&foggy, near)), "{:?} vs {:?}", at(&foggy, far), at(&foggy, near));
    assert!(gap(at(&foggy, far)) < gap(at(&clear, far)));
    assert!(foggy.distance[near.1 * 128 + near.0] < foggy.distance[far.1 * 128 + far.0]);
}

#[test]
fn supersampling_gives_intermediate_values_on_edges() {
    // A red triangle with an oblique edge in front of a blue backdrop.
    let (b, bi) = quad_xy(-10.0, -10.0, 110.0, 110.0, 50.0, 0);
    let mut pos = b.to_vec();
    pos.extend_from_slice(&[[10.0, 5.0, 0.0], [90.0, 30.0, 0.0], [20.0, 95.0, 0.0]]);
    let mut idx = bi.to_vec();
    idx.extend_from_slice(&[4, 5, 6]);
    let col: Vec<[u8; 3]> = vec![[20, 40, 220]; 4].into_iter().chain(vec![[230, 30, 20]; 3]).collect();
    let v = pixel_view(100, 100);
    let mesh = MeshRef::new(&pos, &idx).with_colours(&col);
    let between = |f: &RasterFrame| {
        (0..100 * 100)
            .filter(|&k| {
                !close(f.image.pixel(k % 100, k / 100), [20, 40, 220], 2)
                    && !close(f.image.pixel(k % 100, k / 100), [230, 30, 20], 2)
            })
            .count()
    };
    let one = render_mesh(&v, &mesh, &albedo_only()).unwrap();
    assert_eq!(between(&one), 0);
    for s in [2, 3, 4] {
        let aa = render_mesh(&v, &mesh, &MeshParams { supersample: s, ..albedo_only() }).unwrap();
        let n = between(&aa);
        assert!(n > 150, "{s}×{s}: only {n} edge pixels blend");
        // Blends stay on the segment between the two colours (linear-light box filter).
        let p = aa.image.pixel(50, 17);
        assert!(p[0] >= 20 && p[0] <= 230 && p[2] >= 20 && p[2] <= 220);
    }
}

// ---------------------------------------------------------------- determinism

fn pools() -> Vec<rayon::ThreadPool> {
    [1, 2, 4].iter().map(|&n| rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap()).collect()
}

#[test]
fn renders_are_identical_for_any_thread_count() {
    let (mut pos, mut n, mut idx) = sphere([0.0, 1.5, 0.0], 1.0, 128, 64); // > 2 binning chunks
    let (g, gi) = ground(0.0, 8.0, pos.len() as u32);
    pos.extend_from_slice(&g);
    n.extend_from_slice(&[[0.0, 1.0, 0.0]; 4]);
    idx.extend_from_slice(&gi);
    let col: Vec<[u8; 3]> = (0..pos.len()).map(|i| [(i * 7 % 256) as u8, (i * 13 % 256) as u8, 120]).collect();
    let v = camera([3.0, 3.0, 5.0], [0.0, 1.0, 0.0], [0.0, 1.0, 0.0], 45.0, 200, 150);
    let mesh = MeshRef::new(&pos, &idx).with_normals(&n).with_colours(&col);
    let p = MeshParams { fog: Some(Fog::default()), ..MeshParams::default() };
    let frames: Vec<RasterFrame> =
        pools().iter().map(|pool| pool.install(|| render_mesh(&v, &mesh, &p).unwrap())).collect();
    for f in &frames[1..] {
        assert_eq!(f.image, frames[0].image);
        assert!(f.distance.iter().zip(&frames[0].distance).all(|(a, b)| a.to_bits() == b.to_bits()));
    }
    let mut rng = Rng(3);
    let cloud: Vec<[f32; 3]> = (0..30_000)
        .map(|_| [(rng.next() * 4.0 - 2.0) as f32, (rng.next() * 3.0) as f32, (rng.next() * 4.0 - 2.0) as f32])
        .collect();
    let cn: Vec<[f32; 3]> = cloud.iter().map(|p| [p[0], 1.0, p[2]]).collect();
    for shading in [PointShading::Depth, PointShading::Normal, PointShading::Colour] {
        let pp = PointParams { shading, supersample: 2, size: PointSize::World(0.03), ..PointParams::default() };
        let pts = PointsRef::new(&cloud).with_normals(&cn);
        let frames: Vec<RasterFrame> =
            pools().iter().map(|pool| pool.install(|| render_points(&v, &pts, &pp).unwrap())).collect();
        assert!(frames.iter().all(|f| f == &frames[0]));
    }
}

// ---------------------------------------------------------------- points

#[test]
fn points_nearest_wins_and_footprints_are_exact() {
    let v = pixel_view(40, 40);
    let pos = [[20.0, 20.0, 5.0], [20.0, 20.0, -5.0]];
    let col = [[200u8, 0, 0], [0, 0, 200]];
    let sq = PointParams { shape: PointShape::Square, size: PointSize::Pixels(2.0), ..PointParams::default() };
    for order in [[0usize, 1], [1, 0]] {
        let p: Vec<[f64; 3]> = order.iter().map(|&i| pos[i]).collect();
        let c: Vec<[u8; 3]> = order.iter().map(|&i| col[i]).collect();
        let f = render_points(&v, &PointsRef::new(&p).with_colours(&c), &sq).unwrap();
        assert!(close(f.image.pixel(20, 20), [0, 0, 200], 1));
        // A square of radius 2 centred on a pixel corner covers 4 × 4 pixels.
        assert_eq!(f.distance.iter().filter(|d| d.is_finite()).count(), 16);
        // The distance is to the splat under the pixel centre (the splat lies at the point's depth).
        let d = dot(sub([20.5, 20.5, -5.0], v.eye), sub([20.5, 20.5, -5.0], v.eye)).sqrt() as f32;
        assert!((f.distance[20 * 40 + 20] - d).abs() < 1e-3, "{} vs {d}", f.distance[20 * 40 + 20]);
    }
    // A disc of radius 3.1 on a pixel centre covers the 29 pixels within distance 3 (√10 > 3.1).
    let one = vec![[20.5, 20.5, 0.0]];
    let disc = PointParams { shape: PointShape::Disc, size: PointSize::Pixels(3.1), ..PointParams::default() };
    let f = render_points(&v, &PointsRef::new(&one), &disc).unwrap();
    assert_eq!(f.distance.iter().filter(|d| d.is_finite()).count(), 29);
    // Tiny radii still draw one pixel.
    let tiny = PointParams { size: PointSize::Pixels(0.01), ..sq };
    let f = render_points(&v, &PointsRef::new(&one), &tiny).unwrap();
    assert_eq!(f.distance.iter().filter(|d| d.is_finite()).count(), 1);
}

/// Points drawn in bands of rows (6 bands here, the last one short) cover exactly the samples
/// their definition gives and keep the nearest point's colour, for squares and discs of every
/// size class, with footprints straddling band edges and the image borders.
#[test]
fn banded_points_match_brute_force_across_band_edges() {
    let (w, h) = (2048usize, 128usize); // 24-row bands
    let v = pixel_view(w as u32, h as u32);
    let mut rng = Rng(11);
    let q = |x: f64| (x * 64.0).round() / 64.0;
    let n = 3000;
    let pos: Vec<[f64; 3]> = (0..n)
        .map(|_| [q(rng.next() * 2060.0 - 6.0), q(rng.next() * 140.0 - 6.0), q(rng.next() * 180.0 - 90.0)])
        .collect();
    let col: Vec<[u8; 3]> = (0..n).map(|_| [(rng.next() * 256.0) as u8, (rng.next() * 256.0) as u8, 7]).collect();
    let code = |c: [u8; 3]| (c[0] as u32) | (c[1] as u32) << 8 | (c[2] as u32) << 16;
    for (shape, r) in
        [(PointShape::Square, 0.5), (PointShape::Square, 2.25), (PointShape::Disc, 1.5), (PointShape::Disc, 9.7)]
    {
        let pp = PointParams { shape, size: PointSize::Pixels(r), sky: Sky::default(), ..PointParams::default() };
        let f = render_points(&v, &PointsRef::new(&pos).with_colours(&col), &pp).unwrap();
        let mut best: Vec<Option<(u32, u32, usize)>> = vec![None; w * h];
        for (i, p) in pos.iter().enumerate() {
            let (cx, cy) = (p[0], p[1]);
            let d = (1.0 - p[2] * 0.01) as f32;
            let span =
                |c: f64, n: usize| ((c - r - 1.0).max(0.0) as usize, ((c + r + 1.0).max(0.0) as usize).min(n - 1));
            let ((x0, x1), (y0, y1)) = (span(cx, w), span(cy, h));
            for py in y0..=y1 {
                for px in x0..=x1 {
                    let (sx, sy) = (px as f64 + 0.5, py as f64 + 0.5);
                    let covered = match shape {
                        PointShape::Square => sx >= cx - r && sx < cx + r && sy >= cy - r && sy < cy + r,
                        PointShape::Disc => (sx - cx).powi(2) + (sy - cy).powi(2) <= r * r,
                    };
                    let k = (d.to_bits(), code(col[i]), i);
                    let b = &mut best[py * w + px];
                    if covered && b.is_none_or(|o| (k.0, k.1) > (o.0, o.1)) {
                        *b = Some(k);
                    }
                }
            }
        }
        let mut drawn = 0;
        for py in 0..h {
            for px in 0..w {
                let got = f.image.pixel(px, py);
                match best[py * w + px] {
                    Some((_, _, i)) => {
                        drawn += 1;
                        assert_eq!(got, col[i], "{shape:?} r {r}: pixel ({px}, {py})");
                        assert!(f.distance[py * w + px].is_finite());
                    }
                    None => {
                        assert!(f.distance[py * w + px].is_infinite(), "{shape:?} r {r}: pixel ({px}, {py}) drawn");
                    }
                }
            }
        }
        assert!(drawn > 2000, "{shape:?} r {r}: only {drawn} pixels drawn");
    }
}

/// Buffers kept from a larger frame do not leak into a smaller one.
#[test]
fn kept_frame_buffers_do_not_change_the_next_frame() {
    let (p, _, idx) = sphere([0.0, 0.0, 0.0], 1.0, 48, 24);
    let mesh = MeshRef::new(&p, &idx);
    let cloud: Vec<[f64; 3]> = p.iter().map(|v| [v[0] * 1.5, v[1] * 1.5, v[2] * 1.5]).collect();
    let small = camera([0.0, 0.5, 4.0], [0.0; 3], [0.0, 1.0, 0.0], 50.0, 64, 48);
    let big = camera([0.0, -1.0, 3.0], [0.0; 3], [0.0, 1.0, 0.0], 70.0, 320, 240);
    free_frame_buffers();
    let fresh_mesh = render_mesh(&small, &mesh, &MeshParams::default()).unwrap();
    let fresh_points = render_points(&small, &PointsRef::new(&cloud), &PointParams::default()).unwrap();
    render_mesh(&big, &mesh, &MeshParams { supersample: 3, ..MeshParams::default() }).unwrap();
    render_points(&big, &PointsRef::new(&cloud), &PointParams::default()).unwrap();
    assert!(render_mesh(&small, &mesh, &MeshParams::default()).unwrap() == fresh_mesh);
    assert!(render_points(&small, &PointsRef::new(&cloud), &PointParams::default()).unwrap() == fresh_points);
}

#[test]
fn point_shading_modes() {
    let v = camera([0.0, 0.0, 5.0], [0.0; 3], [0.0, 1.0, 0.0], 60.0, 64, 64);
    let pos = vec![[-1.0f32, 0.0, 0.0], [1.0, 0.0, -3.0], [0.0, 0.0, 9.0]]; // the last is behind the eye
    let nr = vec![[0.0f32, 0.0, 2.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let pts = PointsRef::new(&pos).with_normals(&nr);
    let px = |p: [f64; 3]| project(&v, p);
    let (a, b) = (px([-1.0, 0.0, 0.0]), px([1.0, 0.0, -3.0]));
    let base = PointParams { size: PointSize::Pixels(2.0), ..PointParams::default() };
    let f = render_points(&v, &pts, &PointParams { shading: PointShading::Normal, ..base }).unwrap();
    assert!(close(f.image.pixel(a.0, a.1), [128, 128, 255], 1), "{:?}", f.image.pixel(a.0, a.1));
    assert!(close(f.image.pixel(b.0, b.1), [255, 128, 128], 1));
    let f = render_points(&v, &pts, &PointParams { shading: PointShading::Depth, ..base }).unwrap();
    let (ga, gb) = (f.image.pixel(a.0, a.1)[0], f.image.pixel(b.0, b.1)[0]);
    assert!(ga > gb + 100, "near {ga} should be much lighter than far {gb}");
    let f = render_points(&v, &pts, &PointParams { default_colour: [10, 200, 30], ..base }).unwrap();
    assert!(close(f.image.pixel(a.0, a.1), [10, 200, 30], 1));
    // World radius: 0.5 at distance 5 with a 60° field of view over 64 px → 0.1·√3/5·32 ≈ 1.1 px.
    let w = render_points(
        &v,
        &PointsRef::new(&pos[..1]),
        &PointParams { size: PointSize::World(0.5), shape: PointShape::Square, ..base },
    )
    .unwrap();
    let r = 0.5 * 3f64.sqrt() / 5.0 * 32.0;
    let n = w.distance.iter().filter(|d| d.is_finite()).count() as f64;
    assert!((n.sqrt() - 2.0 * r).abs() <= 1.0, "{n} pixels for radius {r}");
}

// ---------------------------------------------------------------- bad input

#[test]
fn bad_input_is_refused_with_clear_errors() {
    let pos = vec![[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let v = pixel_view(8, 8);
    let p = MeshParams::default();
    let ok = MeshRef::new(&pos, &[0, 1, 2]);
    assert!(render_mesh(&v, &ok, &p).is_ok());
    let nan = vec![[0.0f32, 0.0, 0.0], [f32::NAN, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let e = render_mesh(&v, &MeshRef::new(&nan, &[0, 1, 2]), &p).unwrap_err();
    assert!(matches!(e, RasterError::NonFinitePosition { index: 1, .. }), "{e}");
    assert!(e.to_string().contains("position 1"));
    let e = render_mesh(&v, &MeshRef::new(&pos, &[0, 1, 3]), &p).unwrap_err();
    assert_eq!(e, RasterError::IndexOutOfRange { index: 3, at: 2, vertices: 3 });
    assert!(e.to_string().contains("index 3"));
    assert_eq!(render_mesh(&v, &MeshRef::new(&pos, &[0, 1]), &p).unwrap_err(), RasterError::RaggedIndices(2));
    assert_eq!(render_mesh(&v, &MeshRef::new(&pos, &[]), &p).unwrap_err(), RasterError::Empty("mesh"));
    let zero = View { width: 0, ..v };
    assert_eq!(render_mesh(&zero, &ok, &p).unwrap_err(), RasterError::EmptyImage { width: 0, height: 8 });
    let huge = View { width: 9000, ..v };
    assert!(matches!(render_mesh(&huge, &ok, &p).unwrap_err(), RasterError::ImageTooLarge { .. }));
    let singular = View { view_proj: [[0.0; 4]; 4], ..v };
    assert_eq!(render_mesh(&singular, &ok, &p).unwrap_err(), RasterError::BadMatrix("singular"));
    let mut inf = v;
    inf.view_proj[1][1] = f64::INFINITY;
    assert_eq!(render_mesh(&inf, &ok, &p).unwrap_err(), RasterError::BadMatrix("not finite"));
    let short = [[0.0f32, 0.0, 1.0]; 2];
    let e = render_mesh(&v, &ok.with_normals(&short), &p).unwrap_err();
    assert_eq!(e, RasterError::AttributeLength { attribute: "normals", len: 2, positions: 3 });
    let nn = [[0.0f32, 0.0, 1.0], [0.0, f32::INFINITY, 0.0], [0.0, 0.0, 1.0]];
    assert!(matches!(
        render_mesh(&v, &ok.with_normals(&nn), &p).unwrap_err(),
        RasterError::NonFiniteNormal { index: 1, .. }
    ));
    let e = render_mesh(&v, &ok.with_colours(&[[1, 2, 3]]), &p).unwrap_err();
    assert_eq!(e, RasterError::AttributeLength { attribute: "colours", len: 1, positions: 3 });
    for bad in [
        MeshParams { supersample: 0, ..p },
        MeshParams { supersample: 5, ..p },
        MeshParams { up: [0.0; 3], ..p },
        MeshParams { up: [f64::NAN, 1.0, 0.0], ..p },
        MeshParams { light: Lighting { sun: [0.0; 3], ..p.light }, ..p },
        MeshParams { light: Lighting { sky_light: [-1.0, 0.0, 0.0], ..p.light }, ..p },
        MeshParams { shadows: Some(Shadows { resolution: 4, ..Shadows::default() }), ..p },
        MeshParams { shadows: Some(Shadows { bias_texels: f64::NAN, ..Shadows::default() }), ..p },
        MeshParams { shadows: Some(Shadows { pcf_radius: 9, ..Shadows::default() }), ..p },
        MeshParams { fog: Some(Fog { density: -1.0, ..Fog::default() }), ..p },
        MeshParams { fog: Some(Fog { start: f64::INFINITY, ..Fog::default() }), ..p },
    ] {
        let e = render_mesh(&v, &ok, &bad).unwrap_err();
        assert!(matches!(e, RasterError::Param { .. }), "{e}");
    }
    // Degenerate triangles are not errors: they draw nothing.
    let f = render_mesh(&v, &MeshRef::new(&pos, &[0, 1, 1]), &p).unwrap();
    assert!(f.distance.iter().all(|d| d.is_infinite()));
    // Points.
    let pp = PointParams::default();
    let empty: [[f32; 3]; 0] = [];
    assert_eq!(render_points(&v, &PointsRef::new(&empty[..]), &pp).unwrap_err(), RasterError::Empty("point cloud"));
    let e = render_points(&v, &PointsRef::new(&nan), &pp).unwrap_err();
    assert!(matches!(e, RasterError::NonFinitePosition { index: 1, .. }));
    let e = render_points(&v, &PointsRef::new(&pos), &PointParams { shading: PointShading::Normal, ..pp }).unwrap_err();
    assert_eq!(e, RasterError::MissingNormals);
    for size in [PointSize::Pixels(0.0), PointSize::World(f64::NAN), PointSize::Pixels(-1.0)] {
        let e = render_points(&v, &PointsRef::new(&pos), &PointParams { size, ..pp }).unwrap_err();
        assert!(matches!(e, RasterError::Param { name: "size", .. }), "{e}");
    }
}

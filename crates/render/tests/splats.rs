//! Tests of the Gaussian splat renderer (`render_splats`): footprints against the analytical
//! Gaussian and a finite-difference Jacobian, orientation, depth order, blending, determinism
//! across thread counts, and the errors.

use bozkir_render::camera::Camera;
use bozkir_render::raster::{render_splats, RasterError, RasterFrame, SplatParams, SplatsRef, View};

/// Owned splat arrays.
#[derive(Default, Clone)]
struct Cloud {
    p: Vec<[f32; 3]>,
    s: Vec<[f32; 3]>,
    q: Vec<[f32; 4]>,
    c: Vec<[f32; 3]>,
    o: Vec<f32>,
}

impl Cloud {
    fn push(&mut self, p: [f32; 3], s: [f32; 3], q: [f32; 4], c: [f32; 3], o: f32) {
        self.p.push(p);
        self.s.push(s);
        self.q.push(q);
        self.c.push(c);
        self.o.push(o);
    }

    fn r(&self) -> SplatsRef<'_> {
        SplatsRef { positions: &self.p, scales: &self.s, rotations: &self.q, colours: &self.c, opacities: &self.o }
    }
}

const ID: [f32; 4] = [1.0, 0.0, 0.0, 0.0];

/// 10 m south of the origin looking north (z up): image x = east, image up = z.
fn camera(w: usize, h: usize) -> Camera {
    Camera::look_at([0.0, -10.0, 0.0], [0.0; 3], [0.0, 0.0, 1.0], 60.0, w, h).unwrap()
}

fn black() -> SplatParams {
    SplatParams { background: [0.0; 3], ..SplatParams::default() }
}

fn render(cam: &Camera, cloud: &Cloud, params: &SplatParams) -> RasterFrame {
    render_splats(&View::from_camera(cam), &cloud.r(), params).unwrap()
}

/// A round splat seen head-on: every pixel's alpha is `exp(−½ r²/σ²)` with
/// `σ² = (f·σ_world/z)² + dilation` (the viewer's low-pass term 0.3 px², and a large one that
/// must show), within the viewer's cut-offs.
#[test]
fn an_isotropic_splat_has_the_analytical_footprint() {
    for dilation in [0.3, 12.0] {
        isotropic_footprint(dilation);
    }
}

fn isotropic_footprint(dilation: f64) {
    let (w, h) = (201, 201);
    let cam = camera(w, h);
    let sigma_w = 0.3;
    let mut cloud = Cloud::default();
    cloud.push([0.0; 3], [sigma_w; 3], ID, [1.0; 3], 1.0);
    let frame = render(&cam, &cloud, &SplatParams { dilation_px2: dilation, ..black() });
    let f = cam.intrinsics().fy;
    let sigma2 = (f * sigma_w as f64 / 10.0).powi(2) + dilation;
    assert!(sigma2 > 20.0, "a footprint of several pixels ({sigma2} px²)");
    let (mut checked, mut lit) = (0, 0);
    for y in 0..h {
        for x in 0..w {
            let (dx, dy) = (x as f64 + 0.5 - 100.5, y as f64 + 0.5 - 100.5);
            let d2 = (dx * dx + dy * dy) / sigma2;
            let alpha = (-0.5 * d2).exp();
            let got = frame.image.pixel(x, y);
            assert_eq!(got[0], got[1]);
            // Away from the cut-offs (d² = 8, α = 0.004), where the viewer's floors could flip a pixel.
            if (d2 - 8.0).abs() < 0.4 || (alpha - 0.004).abs() < 0.002 {
                continue;
            }
            let want = if d2 <= 8.0 && alpha >= 0.004 { alpha * 255.0 } else { 0.0 };
            assert!((got[0] as f64 - want).abs() <= 2.0, "pixel ({x}, {y}) d²={d2:.3}: {} vs {want:.2}", got[0]);
            checked += 1;
            lit += (got[0] > 0) as usize;
        }
    }
    assert!(checked > 30_000 && lit > 500, "{checked} pixels checked, {lit} lit");
    // The distance where the splat becomes half opaque: the centre's, 10 m, at the centre pixel.
    assert!((frame.distance[100 * w + 100] - 10.0).abs() < 1e-4);
    assert!(frame.distance[0].is_infinite());
}

/// A point-like splat (σ = 0) shows the viewer's footprint of the low-pass term alone, with
/// its eigenvalue floors: `λ₁ = 0.3 + √0.1` along x, `λ₂ = 0.1` along y, cut at `d² = 8` — a
/// row of five pixels, as the viewer's shader draws it.
#[test]
fn a_point_splat_draws_the_viewers_low_pass_footprint() {
    let cam = camera(33, 33);
    let mut cloud = Cloud::default();
    cloud.push([0.0; 3], [0.0; 3], ID, [1.0; 3], 1.0);
    let img = render(&cam, &cloud, &black()).image;
    let (l1, l2) = (0.3 + 0.1f64.sqrt(), 0.1);
    let byte = |d2: f64| if d2 <= 8.0 { ((-0.5 * d2).exp() * 255.0).round() as u8 } else { 0 };
    for (dx, dy) in [(0i32, 0i32), (1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (2, 0), (0, 2)] {
        let want = byte((dx * dx) as f64 / l1 + (dy * dy) as f64 / l2);
        let want = if want as f64 / 255.0 < 0.004 { 0 } else { want };
        let got = img.pixel((16 + dx) as usize, (16 + dy) as usize)[0];
        assert!((got as i32 - want as i32).abs() <= 1, "offset ({dx}, {dy}): {got} vs {want}");
    }
    assert_eq!(img.pixel(17, 16)[0], 113);
    assert_eq!(img.pixel(18, 16)[0], 10);
    assert_eq!(img.pixel(16, 17)[0], 0);
    assert_eq!(img.image_lit(), 5);
}

trait Lit {
    /// Pixels that are not black.
    fn image_lit(&self) -> usize;
}

impl Lit for bozkir_render::Rgb8Image {
    fn image_lit(&self) -> usize {
        self.data.chunks(3).filter(|p| p != &[0, 0, 0]).count()
    }
}

/// Second moments of the image's red channel (as alpha over black): `[cxx, cxy, cyy]` and the
/// centroid.
fn moments(frame: &RasterFrame) -> ([f64; 3], [f64; 2]) {
    let img = &frame.image;
    let (mut m0, mut mx, mut my) = (0.0, 0.0, 0.0);
    for y in 0..img.height {
        for x in 0..img.width {
            let a = img.pixel(x, y)[0] as f64 / 255.0;
            m0 += a;
            mx += a * (x as f64 + 0.5);
            my += a * (y as f64 + 0.5);
        }
    }
    let (cx, cy) = (mx / m0, my / m0);
    let mut c = [0.0; 3];
    for y in 0..img.height {
        for x in 0..img.width {
            let a = img.pixel(x, y)[0] as f64 / 255.0;
            let (dx, dy) = (x as f64 + 0.5 - cx, y as f64 + 0.5 - cy);
            c[0] += a * dx * dx;
            c[1] += a * dx * dy;
            c[2] += a * dy * dy;
        }
    }
    (c.map(|v| v / m0), [cx, cy])
}

/// A long splat turned 30° about the view axis (its long axis towards east and down) shows its
/// major axis 30° below the image x axis (pixel y grows downwards), not above.
#[test]
fn an_anisotropic_rotated_splat_points_the_right_way() {
    let cam = camera(240, 240);
    let half = 15f32.to_radians();
    let mut cloud = Cloud::default();
    // About +y (the view direction): local x → (cos 30°, 0, −sin 30°), east and down.
    cloud.push([0.0; 3], [1.0, 0.2, 0.08], [half.cos(), 0.0, half.sin(), 0.0], [1.0; 3], 1.0);
    let (c, centre) = moments(&render(&cam, &cloud, &black()));
    let angle = 0.5 * (2.0 * c[1]).atan2(c[0] - c[2]);
    assert!((angle.to_degrees() - 30.0).abs() < 1.0, "major axis at {:.2}°", angle.to_degrees());
    let tr = c[0] + c[2];
    let det = c[0] * c[2] - c[1] * c[1];
    let l1 = 0.5 * tr + (0.25 * tr * tr - det).sqrt();
    let l2 = 0.5 * tr - (0.25 * tr * tr - det).sqrt();
    assert!(l1 > 8.0 * l2, "elongated: {l1} vs {l2}");
    assert!((centre[0] - 120.0).abs() < 0.05 && (centre[1] - 120.0).abs() < 0.05, "{centre:?}");
}

/// Off the optical axis, the footprint's covariance is `J·Σ·Jᵀ + 0.3` with `J` the derivative
/// of `Camera::project` (here by central differences), up to the cut-off's truncation.
#[test]
fn an_off_axis_footprint_follows_the_projection_jacobian() {
    let cam = camera(320, 240);
    let p = [-3.1, 1.5, 1.4];
    let half = 0.35f64;
    let axis = [0.48f64, 0.6, 0.64]; // unit
    let q = [half.cos(), axis[0] * half.sin(), axis[1] * half.sin(), axis[2] * half.sin()];
    let s = [0.25f64, 0.1, 0.04];
    let mut cloud = Cloud::default();
    cloud.push(p.map(|v| v as f32), s.map(|v| v as f32), q.map(|v| v as f32), [1.0; 3], 1.0);
    let (c, centre) = moments(&render(&cam, &cloud, &black()));
    // Σ = R·S²·Rᵀ.
    let (w, x, y, z) = (q[0], q[1], q[2], q[3]);
    let r = [
        [1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y)],
        [2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x)],
        [2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y)],
    ];
    let sigma = |i: usize, j: usize| (0..3).map(|k| r[i][k] * s[k] * s[k] * r[j][k]).sum::<f64>();
    let e = 1e-5;
    let jac: Vec<[f64; 2]> = (0..3)
        .map(|a| {
            let (mut lo, mut hi) = (p, p);
            lo[a] -= e;
            hi[a] += e;
            let (l, h) = (cam.project(lo).unwrap(), cam.project(hi).unwrap());
            [(h[0] - l[0]) / (2.0 * e), (h[1] - l[1]) / (2.0 * e)]
        })
        .collect();
    let cov = |u: usize, v: usize| {
        let mut t = 0.0;
        for i in 0..3 {
            for j in 0..3 {
                t += jac[i][u] * sigma(i, j) * jac[j][v];
            }
        }
        t
    };
    // A 2-D Gaussian cut at d² ≤ 8 keeps this fraction of its second moment.
    let trunc = (1.0 - 5.0 * (-4.0f64).exp()) / (1.0 - (-4.0f64).exp());
    let want = [(cov(0, 0) + 0.3) * trunc, cov(0, 1) * trunc, (cov(1, 1) + 0.3) * trunc];
    let scale = want[0].max(want[2]);
    assert!(scale > 10.0, "several pixels wide: {want:?}");
    for k in 0..3 {
        assert!((c[k] - want[k]).abs() < 0.04 * scale, "moment {k}: {:.3} vs {:.3} ({c:?} vs {want:?})", c[k], want[k]);
    }
    let at = cam.project(p).unwrap();
    assert!((centre[0] - at[0]).abs() < 0.1 && (centre[1] - at[1]).abs() < 0.1, "{centre:?} vs {at:?}");
}

/// Two opaque splats over one another: the nearer one shows, whatever the input order, and the
/// two orders give the same bytes.
#[test]
fn the_nearer_opaque_splat_wins_in_either_order() {
    let cam = camera(65, 65);
    let near = ([0.0f32, -2.0, 0.0], [1.0f32, 0.0, 0.0], 0.6f32);
    let far = ([0.0f32, 2.0, 0.0], [0.0f32, 0.0, 1.0], 1.5f32);
    let mut frames = Vec::new();
    for (a, b) in [(near, far), (far, near)] {
        let mut cloud = Cloud::default();
        for (p, c, s) in [a, b] {
            cloud.push(p, [s; 3], ID, c, 1.0);
        }
        frames.push(render(&cam, &cloud, &black()));
    }
    assert_eq!(frames[0], frames[1]);
    let centre = frames[0].image.pixel(32, 32);
    assert_eq!(centre, [255, 0, 0], "the near red splat covers the centre");
    assert!((frames[0].distance[32 * 65 + 32] - 8.0).abs() < 0.01);
    // The far blue one, larger on screen, shows around the red one's rim.
    assert!(frames[0].image.data.chunks(3).any(|p| p[2] > 30));
}

/// Equal depths: the splat of higher index is in front (the viewer's stable far-to-near sort).
#[test]
fn equal_depths_put_the_later_splat_in_front() {
    let cam = camera(33, 33);
    let mut cloud = Cloud::default();
    cloud.push([0.0; 3], [0.5; 3], ID, [1.0, 0.0, 0.0], 1.0);
    cloud.push([0.0; 3], [0.5; 3], ID, [0.0, 1.0, 0.0], 1.0);
    assert_eq!(render(&cam, &cloud, &black()).image.pixel(16, 16), [0, 255, 0]);
}

/// Two translucent splats and the background compose as `α₁c₁ + (1 − α₁)(α₂c₂ + (1 − α₂)bg)`.
#[test]
fn translucent_splats_blend_over_the_background() {
    let cam = camera(33, 33);
    let mut cloud = Cloud::default();
    cloud.push([0.0, 3.0, 0.0], [0.8; 3], ID, [0.2, 0.9, 0.4], 0.6); // far
    cloud.push([0.0, -1.0, 0.0], [0.5; 3], ID, [1.0, 0.1, 0.0], 0.5); // near
    let bg = [0.3f32, 0.5, 0.7];
    let params = SplatParams { background: bg, ..SplatParams::default() };
    let got = render(&cam, &cloud, &params).image.pixel(16, 16);
    // Pixel 16's centre is the image centre: both splats at their peak.
    for k in 0..3 {
        let far = 0.6 * [0.2, 0.9, 0.4][k] + 0.4 * bg[k] as f64;
        let want = 0.5 * [1.0, 0.1, 0.0][k] + 0.5 * far;
        assert!((got[k] as f64 - want * 255.0).abs() <= 0.51, "channel {k}: {} vs {}", got[k], want * 255.0);
    }
}

/// A pseudo-random cloud of `n` splats around the origin.
fn random_cloud(n: usize, seed: u64) -> Cloud {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 40) as f32) / (1u64 << 24) as f32
    };
    let mut c = Cloud::default();
    for _ in 0..n {
        let p = [next() * 8.0 - 4.0, next() * 8.0 - 4.0, next() * 6.0 - 3.0];
        let s = [0.02 + 0.3 * next(), 0.02 + 0.3 * next(), 0.01 + 0.1 * next()];
        let q = [next() - 0.5, next() - 0.5, next() - 0.5, next() - 0.5];
        let q = if q.iter().all(|v| *v == 0.0) { ID } else { q };
        c.push(p, s, q, [next(), next(), next()], next());
    }
    c
}

/// The bytes and distances are the same on pools of 1 and 4 threads (with supersampling).
#[test]
fn output_is_identical_for_one_and_four_threads() {
    let cam = camera(160, 120);
    let cloud = random_cloud(20_000, 7);
    let params = SplatParams { supersample: 2, ..SplatParams::default() };
    let frames: Vec<RasterFrame> = [1, 4]
        .iter()
        .map(|&t| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap();
            pool.install(|| render(&cam, &cloud, &params))
        })
        .collect();
    let bg = frames[0].image.pixel(0, 0);
    assert!(frames[0].image.data.chunks(3).filter(|p| p != &bg).count() > 10_000, "splats drawn");
    assert!(frames[0].image == frames[1].image, "images differ between 1 and 4 threads");
    let same = frames[0].distance.iter().zip(&frames[1].distance).all(|(a, b)| a.to_bits() == b.to_bits());
    assert!(same, "distances differ between 1 and 4 threads");
}

/// Every refusal names the offending value; nothing is drawn and nothing panics.
#[test]
fn bad_input_is_refused_with_the_field_named() {
    let cam = camera(16, 16);
    let view = View::from_camera(&cam);
    let good = random_cloud(5, 1);
    let p = SplatParams::default();
    let attr = |e: RasterError| match e {
        RasterError::BadSplat { attribute, index, .. } => (attribute, index),
        other => panic!("unexpected {other}"),
    };

    let mut c = good.clone();
    c.p[3][1] = f32::NAN;
    assert!(matches!(render_splats(&view, &c.r(), &p), Err(RasterError::NonFinitePosition { index: 3, .. })));
    let mut c = good.clone();
    c.s[2][0] = f32::NAN;
    assert_eq!(attr(render_splats(&view, &c.r(), &p).unwrap_err()), ("scales", 2));
    let mut c = good.clone();
    c.s[4][2] = -0.1;
    assert_eq!(attr(render_splats(&view, &c.r(), &p).unwrap_err()), ("scales", 4));
    let mut c = good.clone();
    c.q[1] = [0.0; 4];
    assert_eq!(attr(render_splats(&view, &c.r(), &p).unwrap_err()), ("rotations", 1));
    let mut c = good.clone();
    c.c[0][2] = f32::INFINITY;
    assert_eq!(attr(render_splats(&view, &c.r(), &p).unwrap_err()), ("colours", 0));
    let mut c = good.clone();
    c.o[3] = 1.5;
    assert_eq!(attr(render_splats(&view, &c.r(), &p).unwrap_err()), ("opacities", 3));
    let mut c = good.clone();
    c.o[2] = f32::NAN;
    assert_eq!(attr(render_splats(&view, &c.r(), &p).unwrap_err()), ("opacities", 2));

    let mut c = good.clone();
    c.o.pop();
    let e = render_splats(&view, &c.r(), &p).unwrap_err();
    assert_eq!(e, RasterError::AttributeLength { attribute: "opacities", len: 4, positions: 5 });
    assert!(e.to_string().contains("opacities"), "{e}");
    let mut c = good.clone();
    c.q.push(ID);
    let e = render_splats(&view, &c.r(), &p).unwrap_err();
    assert_eq!(e, RasterError::AttributeLength { attribute: "rotations", len: 6, positions: 5 });

    let empty = View { width: 0, ..view };
    assert_eq!(render_splats(&empty, &good.r(), &p), Err(RasterError::EmptyImage { width: 0, height: 16 }));
    let nan = View { view_proj: [[f64::NAN; 4]; 4], ..view };
    assert!(matches!(render_splats(&nan, &good.r(), &p), Err(RasterError::BadMatrix(_))));
    assert_eq!(render_splats(&view, &Cloud::default().r(), &p), Err(RasterError::Empty("splat cloud")));

    let param = |q: SplatParams| match render_splats(&view, &good.r(), &q) {
        Err(RasterError::Param { name, .. }) => name,
        other => panic!("unexpected {other:?}"),
    };
    assert_eq!(param(SplatParams { dilation_px2: -1.0, ..p }), "dilation_px2");
    assert_eq!(param(SplatParams { cutoff_sigma: 0.0, ..p }), "cutoff_sigma");
    assert_eq!(param(SplatParams { min_alpha: f64::NAN, ..p }), "min_alpha");
    assert_eq!(param(SplatParams { background: [0.0, 2.0, 0.0], ..p }), "background");
    assert_eq!(param(SplatParams { supersample: 5, ..p }), "supersample");

    // Huge but finite scales and splats behind the eye are drawn or skipped, not errors.
    let mut c = good.clone();
    c.s[0] = [1e30; 3];
    c.p[1] = [0.0, -50.0, 0.0];
    assert!(render_splats(&view, &c.r(), &p).is_ok());
}

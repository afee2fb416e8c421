//! Frame times of the software renderer on the speed scenes: 1 M points and 1 M triangles
//! of a rolling height field at 1280 × 720, on a rayon pool of `THREADS` threads (default 2).
//!
//! `cargo run --release -p bozkir-render --example raster_speed` prints, per setting, the best and
//! median wall time of `FRAMES` frames (default 9) and the CPU time per frame summed over all
//! threads (from /proc/self/stat; what a frame costs however busy the machine is). `ONLY=text`
//! runs the settings whose name contains `text`. A measurement, not a test.

use bozkir_render::raster::{
    render_mesh, render_points, MeshParams, MeshRef, NormalMode, PointParams, PointShading, PointShape, PointSize,
    PointsRef, Shadows, View,
};
use std::time::Instant;

fn perspective_look_at(eye: [f64; 3], target: [f64; 3], fovy_deg: f64, aspect: f64) -> [[f64; 4]; 4] {
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
    // P · V, column-major.
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

fn height(x: f64, z: f64) -> f64 {
    12.0 * (x * 0.021).sin() * (z * 0.017).cos() + 4.0 * (x * 0.07 + z * 0.05).sin()
}

/// CPU time of the whole process so far, in ms (utime + stime from /proc/self/stat, Linux, 100
/// ticks a second); `None` elsewhere.
fn cpu_ms() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks * 10.0)
}

/// Best and median wall time of `FRAMES` frames (default 9) (the best is the figure least disturbed by other
/// load), and the CPU time per frame over all threads (what the frame costs however busy the
/// machine is).
fn time_ms(mut f: impl FnMut()) -> (f64, f64, f64) {
    f();
    let c0 = cpu_ms().unwrap_or(f64::NAN);
    let frames: usize = std::env::var("FRAMES").ok().and_then(|s| s.parse().ok()).unwrap_or(9);
    let mut t: Vec<f64> = (0..frames)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    let cpu = (cpu_ms().unwrap_or(f64::NAN) - c0) / frames as f64;
    t.sort_by(f64::total_cmp);
    (t[0], t[frames / 2], cpu)
}

fn main() {
    let threads: usize = std::env::var("THREADS").ok().and_then(|s| s.parse().ok()).unwrap_or(2);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
    let (w, h) = (1280u32, 720u32);
    let eye = [0.0, 70.0, 260.0];
    let view = View {
        view_proj: perspective_look_at(eye, [0.0, 0.0, 0.0], 50.0, w as f64 / h as f64),
        eye,
        width: w,
        height: h,
    };
    println!("threads {threads}, {w}×{h}");
    let only = std::env::var("ONLY").unwrap_or_default();

    // 1 M points on the height field, a 400 × 400 square, jittered.
    let n = 1_000_000;
    let mut state = 1u64;
    let mut rnd = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut pts = Vec::with_capacity(n);
    let mut nrm = Vec::with_capacity(n);
    let mut col = Vec::with_capacity(n);
    for _ in 0..n {
        let (x, z) = (rnd() * 400.0 - 200.0, rnd() * 400.0 - 200.0);
        let y = height(x, z);
        pts.push([x as f32, y as f32, z as f32]);
        let (dx, dz) = (height(x + 0.1, z) - y, height(x, z + 0.1) - y);
        nrm.push([-dx as f32 * 10.0, 1.0, -dz as f32 * 10.0]);
        col.push([(100.0 + y * 5.0) as u8, 140, 90]);
    }
    // The same cloud in scan order (rows of 2 m in z, then x), as a sampled mesh or a scan
    // would come: neighbours in the array are neighbours on screen.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| {
        let key = |i: usize| ((pts[i][2] / 2.0).floor() as i32, pts[i][0]);
        let (ka, kb) = (key(a), key(b));
        ka.0.cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
    });
    let spts: Vec<[f32; 3]> = order.iter().map(|&i| pts[i]).collect();
    let snrm: Vec<[f32; 3]> = order.iter().map(|&i| nrm[i]).collect();
    let scol: Vec<[u8; 3]> = order.iter().map(|&i| col[i]).collect();
    let random = PointsRef::new(&pts).with_normals(&nrm).with_colours(&col);
    let sorted = PointsRef::new(&spts).with_normals(&snrm).with_colours(&scol);
    for (cname, cloud) in [("random order", random), ("scan order", sorted)] {
        println!("1 M points, {cname}");
        for (name, p) in [
            ("points colour, disc r1.5px, 1×1", PointParams::default()),
            (
                "points colour, square r0.5px, 1×1",
                PointParams { shape: PointShape::Square, size: PointSize::Pixels(0.5), ..PointParams::default() },
            ),
            ("points colour, disc r1px, 1×1", PointParams { size: PointSize::Pixels(1.0), ..PointParams::default() }),
            ("points depth, disc r1.5px, 1×1", PointParams { shading: PointShading::Depth, ..PointParams::default() }),
            (
                "points normal, world r0.3, 1×1",
                PointParams { shading: PointShading::Normal, size: PointSize::World(0.3), ..PointParams::default() },
            ),
            ("points colour, disc r1.5px, 2×2", PointParams { supersample: 2, ..PointParams::default() }),
        ] {
            if !name.contains(only.as_str()) {
                continue;
            }
            let (best, med, cpu) = time_ms(|| {
                pool.install(|| render_points(&view, &cloud, &p).expect("render"));
            });
            println!("{name:36} best {best:6.1} ms  median {med:6.1} ms  cpu {cpu:6.1} ms/frame");
        }
    }
    drop((pts, nrm, col, spts, snrm, scol));

    // A 708 × 708 vertex grid: 999 698 triangles.
    let g = 708usize;
    let mut pos = Vec::with_capacity(g * g);
    let mut nor = Vec::with_capacity(g * g);
    for j in 0..g {
        for i in 0..g {
            let (x, z) = (i as f64 / (g - 1) as f64 * 400.0 - 200.0, j as f64 / (g - 1) as f64 * 400.0 - 200.0);
            let y = height(x, z);
            pos.push([x as f32, y as f32, z as f32]);
            let (dx, dz) = (height(x + 0.1, z) - y, height(x, z + 0.1) - y);
            nor.push([-dx as f32 * 10.0, 1.0, -dz as f32 * 10.0]);
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
    let mesh = MeshRef::new(&pos, &idx).with_normals(&nor);
    println!("mesh: {} triangles", idx.len() / 3);
    let plain = MeshParams { shadows: None, supersample: 1, ..MeshParams::default() };
    for (name, p) in [
        ("mesh smooth, no shadows, 1×1", plain),
        ("mesh flat, no shadows, 1×1", MeshParams { normals: NormalMode::Flat, ..plain }),
        ("mesh smooth, no shadows, 2×2", MeshParams { supersample: 2, ..plain }),
        (
            "mesh smooth, shadows 1024, 1×1",
            MeshParams { shadows: Some(Shadows { resolution: 1024, ..Shadows::default() }), ..plain },
        ),
        ("mesh smooth, shadows 2048, 1×1", MeshParams { shadows: Some(Shadows::default()), ..plain }),
        ("mesh default (shadows 2048, 2×2)", MeshParams::default()),
    ] {
        if !name.contains(only.as_str()) {
            continue;
        }
        let (best, med, cpu) = time_ms(|| {
            pool.install(|| render_mesh(&view, &mesh, &p).expect("render"));
        });
        println!("{name:36} best {best:6.1} ms  median {med:6.1} ms  cpu {cpu:6.1} ms/frame");
    }
}

//! The software half of the splat comparison with the browser viewer, and a speed figure.
//!
//! `cargo run -p bozkir-render --example splat_compare -- [DIR]` writes, into `DIR` (default
//! `web/tests/browser/fixtures/splat-compare`):
//! - `tiles.splat`: a fixed pseudo-random cloud of [`COUNT`] splats in one 4 m tile, in the
//!   viewer's 32-byte `.splat` layout (position, linear σ, RGBA bytes, quaternion bytes);
//! - `view.json`: the viewer's orbit camera (`target`, `az`, `el`, `dist`, `fov`), the image size
//!   and the background;
//! - `software.png`: [`render_splats`] of the *decoded* splats (what the viewer reads back from
//!   the bytes) from the same camera, built as the viewer's `camera.js` builds it
//!   (`cameraBasis`, `viewProjection` with near 0.05 and far 50000).
//!
//! `web/tests/browser/splats.test.mjs` renders the same file with the viewer's WebGL2 renderer
//! and compares the pixels. `--speed` instead times 1 M random splats at 1280 × 720 on the
//! global rayon pool (build with `--release`).

use bozkir_render::raster::{render_splats, SplatParams, SplatsRef, View, VIEWER_BACKGROUND};
use std::io::Write;
use std::time::Instant;

/// Splats in the comparison cloud.
const COUNT: usize = 1500;
/// Side of the tile the cloud fills, metres.
const TILE: f32 = 4.0;
/// Image size of the comparison.
const WIDTH: u32 = 160;
const HEIGHT: u32 = 120;
/// The orbit camera (camera.js conventions: `az` the bearing looked towards, `el` the eye's
/// elevation above the target, degrees).
const TARGET: [f64; 3] = [0.0, 0.0, 0.4];
const AZ: f64 = 30.0;
const EL: f64 = 35.0;
const DIST: f64 = 4.0;
const FOV: f64 = 60.0;

/// A small deterministic generator (64-bit LCG, top 24 bits).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 40) as f32) / (1u64 << 24) as f32
    }
}

/// Splats as the viewer holds them after `unpackSplats`.
#[derive(Default)]
struct Cloud {
    p: Vec<[f32; 3]>,
    s: Vec<[f32; 3]>,
    q: Vec<[f32; 4]>,
    c: Vec<[f32; 3]>,
    o: Vec<f32>,
}

impl Cloud {
    fn r(&self) -> SplatsRef<'_> {
        SplatsRef { positions: &self.p, scales: &self.s, rotations: &self.q, colours: &self.c, opacities: &self.o }
    }
}

/// `n` random splats in the `.splat` layout, and the same decoded as the viewer decodes them.
fn make_cloud(n: usize, seed: u64, extent: f32, height: f32) -> (Vec<u8>, Cloud) {
    let mut g = Lcg(seed);
    let mut bytes = Vec::with_capacity(32 * n);
    let mut cloud = Cloud::default();
    for _ in 0..n {
        let p = [(g.next() - 0.5) * extent, (g.next() - 0.5) * extent, g.next() * height];
        // Mostly flat, some large: σ from 1 cm to 25 cm, log-uniform.
        let s: [f32; 3] = std::array::from_fn(|_| 0.01 * 25f32.powf(g.next()));
        let rgba: [u8; 4] = [
            (g.next() * 255.0).round() as u8,
            (g.next() * 255.0).round() as u8,
            (g.next() * 255.0).round() as u8,
            (40.0 + g.next() * 215.0).round() as u8,
        ];
        let q: [f32; 4] = std::array::from_fn(|_| g.next() * 2.0 - 1.0);
        let ql = q.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-6);
        let qb: [u8; 4] = q.map(|v| (v / ql * 128.0 + 128.0).round().clamp(0.0, 255.0) as u8);
        for v in p.iter().chain(&s) {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        bytes.extend_from_slice(&rgba);
        bytes.extend_from_slice(&qb);
        // unpackSplats: (b − 128)/128, normalised in f64, stored as f32.
        let d = qb.map(|b| (b as f64 - 128.0) / 128.0);
        let dl = d.iter().map(|v| v * v).sum::<f64>().sqrt();
        let qd = if dl > 0.0 { d.map(|v| (v / dl) as f32) } else { [1.0, 0.0, 0.0, 0.0] };
        cloud.p.push(p);
        cloud.s.push(s);
        cloud.q.push(qd);
        cloud.c.push([rgba[0], rgba[1], rgba[2]].map(|b| b as f32 / 255.0));
        cloud.o.push(rgba[3] as f32 / 255.0);
    }
    (bytes, cloud)
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The viewer's orbit camera as a [`View`] (camera.js `cameraBasis` and `viewProjection`).
fn viewer_view(target: [f64; 3], az: f64, el: f64, dist: f64, fov: f64, width: u32, height: u32) -> View {
    let (a, e) = (az.to_radians(), el.to_radians());
    let eye = [target[0] - dist * e.cos() * a.sin(), target[1] - dist * e.cos() * a.cos(), target[2] + dist * e.sin()];
    let f = [e.cos() * a.sin(), e.cos() * a.cos(), -e.sin()];
    let r = [a.cos(), -a.sin(), 0.0];
    let d = [f[1] * r[2] - f[2] * r[1], f[2] * r[0] - f[0] * r[2], f[0] * r[1] - f[1] * r[0]];
    let focal = 0.5 * height as f64 / (0.5 * fov.to_radians()).tan();
    let (sx, sy) = (2.0 * focal / width as f64, -2.0 * focal / height as f64);
    let (near, far) = (0.05, 50000.0);
    let (ca, cb) = ((far + near) / (far - near), -2.0 * far * near / (far - near));
    let rows = [
        [sx * r[0], sx * r[1], sx * r[2], -sx * dot(r, eye)],
        [sy * d[0], sy * d[1], sy * d[2], -sy * dot(d, eye)],
        [ca * f[0], ca * f[1], ca * f[2], -ca * dot(f, eye) + cb],
        [f[0], f[1], f[2], -dot(f, eye)],
    ];
    let mut m = [[0.0; 4]; 4];
    for (k, row) in rows.iter().enumerate() {
        for c in 0..4 {
            m[c][k] = row[c];
        }
    }
    View { view_proj: m, eye, width, height }
}

/// An 8-bit RGB PNG with stored (uncompressed) deflate blocks and filter 0 on every row.
fn png(width: u32, height: u32, rgb: &[u8]) -> Vec<u8> {
    fn crc(bytes: &[u8]) -> u32 {
        let mut c = 0xffff_ffffu32;
        for &b in bytes {
            c ^= b as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 { 0xedb8_8320 ^ (c >> 1) } else { c >> 1 };
            }
        }
        !c
    }
    fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let start = out.len();
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        let c = crc(&out[start..]);
        out.extend_from_slice(&c.to_be_bytes());
    }
    let mut raw = Vec::with_capacity((width as usize * 3 + 1) * height as usize);
    for row in rgb.chunks(width as usize * 3) {
        raw.push(0);
        raw.extend_from_slice(row);
    }
    let mut z = vec![0x78, 0x01];
    let blocks: Vec<&[u8]> = raw.chunks(65535).collect();
    for (k, b) in blocks.iter().enumerate() {
        z.push((k + 1 == blocks.len()) as u8);
        z.extend_from_slice(&(b.len() as u16).to_le_bytes());
        z.extend_from_slice(&(!(b.len() as u16)).to_le_bytes());
        z.extend_from_slice(b);
    }
    let (mut s1, mut s2) = (1u32, 0u32);
    for &b in &raw {
        s1 = (s1 + b as u32) % 65521;
        s2 = (s2 + s1) % 65521;
    }
    z.extend_from_slice(&((s2 << 16) | s1).to_be_bytes());
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    let mut out = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &z);
    chunk(&mut out, b"IEND", &[]);
    out
}

/// CPU time of the whole process so far, ms (utime + stime of /proc/self/stat, 100 ticks a
/// second); `None` off Linux.
fn cpu_ms() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some((f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?) * 10.0)
}

fn speed() {
    let (_, cloud) = make_cloud(1_000_000, 11, 60.0, 8.0);
    let view = viewer_view([0.0, 0.0, 2.0], 20.0, 30.0, 45.0, 60.0, 1280, 720);
    let params = SplatParams::default();
    let (mut times, mut cpu) = (Vec::new(), Vec::new());
    let mut covered = 0;
    for _ in 0..5 {
        let (t, c) = (Instant::now(), cpu_ms());
        let f = render_splats(&view, &cloud.r(), &params).expect("render");
        times.push(t.elapsed().as_secs_f64() * 1e3);
        if let (Some(a), Some(b)) = (c, cpu_ms()) {
            cpu.push(b - a);
        }
        covered = f.distance.iter().filter(|d| d.is_finite()).count();
    }
    times.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    println!(
        "1 M splats, 1280×720 ({:.0} % of the pixels half opaque), {} threads: wall best {:.0} ms, median {:.0} ms; \
         CPU per frame (all threads) best {:.0} ms, median {:.0} ms",
        100.0 * covered as f64 / (1280.0 * 720.0),
        rayon::current_num_threads(),
        times[0],
        times[2],
        cpu.first().copied().unwrap_or(f64::NAN),
        cpu.get(2).copied().unwrap_or(f64::NAN)
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--speed") {
        speed();
        return;
    }
    let dir = std::path::PathBuf::from(args.first().map_or("web/tests/browser/fixtures/splat-compare", |s| s.as_str()));
    std::fs::create_dir_all(&dir).expect("create the output folder");
    let (bytes, cloud) = make_cloud(COUNT, 2026, TILE * 0.9, 1.2);
    let view = viewer_view(TARGET, AZ, EL, DIST, FOV, WIDTH, HEIGHT);
    // MUTATE=no-dilation: the thresholds' check (the browser test must fail on this picture).
    let dilation_px2 = if std::env::var("MUTATE").as_deref() == Ok("no-dilation") { 0.0 } else { 0.3 };
    let frame =
        render_splats(&view, &cloud.r(), &SplatParams { dilation_px2, ..SplatParams::default() }).expect("render");
    std::fs::write(dir.join("tiles.splat"), &bytes).expect("write tiles.splat");
    std::fs::write(dir.join("software.png"), png(WIDTH, HEIGHT, &frame.image.data)).expect("write software.png");
    let mut j = std::fs::File::create(dir.join("view.json")).expect("write view.json");
    writeln!(
        j,
        "{{\"count\": {COUNT}, \"tile\": {TILE}, \"width\": {WIDTH}, \"height\": {HEIGHT}, \"camera\": {{\"target\": {TARGET:?}, \
         \"az\": {AZ}, \"el\": {EL}, \"dist\": {DIST}, \"fov\": {FOV}}}, \"background\": {:?}}}",
        VIEWER_BACKGROUND
    )
    .expect("write view.json");
    let covered = frame.distance.iter().filter(|d| d.is_finite()).count();
    println!("wrote {} ({} splats, {}×{}, {covered} pixels half opaque)", dir.display(), COUNT, WIDTH, HEIGHT);
}

//! The hostile-input suite for numeric flags (issue 20): every numeric flag of every command,
//! run with hostile values (0, -1, NaN, ±inf, 1e308, 1e-308, 1e20, 2⁶⁴, 2³²+1) under a 4 GiB
//! address-space limit and a timeout, in parallel. Each run must end by itself (no timeout),
//! without a panic (no "panicked", no exit 101) or a signal, and exit 0 only for a value that is
//! legitimately valid for that flag (then its output exists); no `.bozkir-staging-*` folder may be
//! left behind. `flag_table_matches_help` keeps the table equal to the `--help` output, so a new
//! flag must join it. Also the regression tests of findings 1, 2, 7, 10 and 11 of the issue.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_bozkir");

/// The hostile values every numeric flag gets.
const HOSTILE: [&str; 10] =
    ["0", "-1", "nan", "inf", "-inf", "1e308", "1e-308", "1e20", "18446744073709551616", "4294967297"];

/// Seconds a run may take (a hang never ends; the slowest legitimate run took 16 s on a loaded
/// 2-core machine, so the margin keeps the suite from flaking).
const TIMEOUT_S: u64 = 60;

/// The work cap (`--max-work`) of the suite's runs.
const SUITE_MAX_WORK: f64 = 2e8;

/// Address-space limit of every run, KiB (4 GiB).
const ADDRESS_SPACE_KIB: u64 = 4 << 20;

/// Files the runs read, generated once.
struct Fixtures {
    dem: String,
    terrain: String,
    capture: String,
    small_capture: String,
    tileset: String,
    frames: String,
    image: String,
    points: String,
    las: String,
}

fn run_ok(args: &[&str]) {
    let o = Command::new(BIN).args(args).output().expect("run bozkir");
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
}

fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

fn fixtures(dir: &Path) -> Fixtures {
    std::fs::create_dir_all(dir).unwrap();
    let dem = dir.join("dem.tif");
    let g = bozkir_core::Grid::from_fn(32, 32, |x, y| ((x * 7 + y * 3) % 11) as f32 + 0.1 * (x + y) as f32)
        .with_cell_size(10.0, 10.0);
    bozkir_io::write_tiff_f32(&dem, &g).unwrap();
    let terrain = dir.join("terrain");
    run_ok(&["terrain", "--profile", "canyon", "--size", "32", "--out", &s(&terrain), "-q"]);
    let capture = dir.join("cap.ply");
    run_ok(&["capture", "synth", "--side", "4.5", "--density", "5000", "--out", &s(&capture)]);
    let small_capture = dir.join("small.ply");
    run_ok(&["capture", "synth", "--side", "1.3", "--density", "3000", "--out", &s(&small_capture)]);
    let tileset = dir.join("ts");
    run_ok(&["tileset", &s(&capture), "--out", &s(&tileset), "-q"]);
    let frames = dir.join("frames");
    std::fs::create_dir_all(&frames).unwrap();
    for k in 0..3usize {
        let img = bozkir_core::Grid::from_fn(64, 64, |x, y| {
            let v = (((x + 2 * k) * 13 + y * 7) % 256) as u8;
            [v, v / 2, 255 - v]
        });
        bozkir_io::write_rgb8(frames.join(format!("f{k:03}.png")), &img).unwrap();
    }
    let image = dir.join("photo.png");
    let img = bozkir_core::Grid::from_fn(16, 16, |x, y| [(x * 16) as u8, (y * 16) as u8, 90]);
    bozkir_io::write_rgb8(&image, &img).unwrap();
    let points = dir.join("points.ply");
    let pts: Vec<[f64; 3]> =
        (0..40).flat_map(|i| (0..40).map(move |j| [f64::from(i) * 0.05, f64::from(j) * 0.05, 0.0])).collect();
    bozkir_io::write_ply_points(&points, &pts, bozkir_io::plyfmt::Format::Ascii).unwrap();
    let las = dir.join("ground.las");
    let xyz: Vec<[f64; 3]> = (0..80)
        .flat_map(|i| (0..80).map(move |j| [f64::from(i), f64::from(j), f64::from((i * j) % 7) * 0.3]))
        .collect();
    let class: Vec<u8> = (0..xyz.len()).map(|k| if (k / 7) % 3 == 0 { 5 } else { 2 }).collect();
    bozkir_io::write_las(&las, &xyz, &class, &bozkir_io::LasLayout::default()).unwrap();
    Fixtures {
        dem: s(&dem),
        terrain: s(&terrain),
        capture: s(&capture),
        small_capture: s(&small_capture),
        tileset: s(&tileset),
        frames: s(&frames),
        image: s(&image),
        points: s(&points),
        las: s(&las),
    }
}

/// One numeric flag: the command path, the flag, and the hostile values it legitimately accepts
/// (exit 0 for any other value is a failure).
struct Flag {
    cmd: &'static str,
    flag: &'static str,
    valid: &'static [&'static str],
}

const fn f(cmd: &'static str, flag: &'static str, valid: &'static [&'static str]) -> Flag {
    Flag { cmd, flag, valid }
}

/// Values that are legitimate for most flags.
const NONE: &[&str] = &[];
const ZERO: &[&str] = &["0"];
const TINY: &[&str] = &["1e-308"];
const ZERO_TINY: &[&str] = &["0", "1e-308"];
const SEED32: &[&str] = &["0"];
const SEED64: &[&str] = &["0", "4294967297"];
/// Thresholds where any large finite value only relaxes a filter.
const ZERO_TINY_BIG: &[&str] = &["0", "1e-308", "1e308", "1e20", "18446744073709551616", "4294967297"];
const TINY_BIG: &[&str] = &["1e-308", "1e308", "1e20", "18446744073709551616", "4294967297"];
/// Any finite value (an angle).
const FINITE: &[&str] = &["0", "-1", "1e-308", "1e308", "1e20", "18446744073709551616", "4294967297"];

/// Every numeric flag of every command. Keep in step with `--help` (see
/// [`flag_table_matches_help`]).
const FLAGS: &[Flag] = &[
    // Global flags, on `profiles`.
    f("profiles", "--threads", NONE),
    f("profiles", "--max-memory", &["1e-308", "4294967297"]),
    f("profiles", "--max-work", TINY_BIG),
    f("demo", "--size", NONE),
    f("demo", "--port", ZERO),
    f("terrain", "--seed", SEED64),
    f("terrain", "--size", NONE),
    f("terrain", "--cell-size", NONE),
    f("terrain", "--height-range", ZERO),
    f("terrain", "--tpi-radius", NONE),
    f("terrain", "--octaves", NONE),
    f("terrain", "--freq", NONE),
    f("terrain", "--ridge", ZERO_TINY),
    f("terrain", "--relief", ZERO_TINY),
    f("terrain", "--iterations", ZERO),
    f("terrain", "--incision", ZERO_TINY),
    f("terrain", "--diffusion", ZERO_TINY),
    f("terrain", "--uplift", ZERO_TINY),
    f("terrain", "--terraces", ZERO),
    f("terrain", "--dome", ZERO_TINY),
    f("terrain", "--tilt", ZERO_TINY),
    f("terrain", "--stretch", NONE),
    f("analyze", "--cell-size", NONE),
    f("analyze", "--height-range", NONE),
    f("analyze", "--tpi-radius", NONE),
    f("analyze", "--stream-threshold", &["0", "4294967297"]),
    f("analyze", "--sea-level", &["0", "-1", "1e-308"]),
    f("lab", "--seed", SEED32),
    f("lab", "--size", NONE),
    f("lab", "--cell-size", NONE),
    f("lab", "--batch", NONE),
    f("erode", "--steps", NONE),
    f("erode", "--k", ZERO_TINY),
    f("erode", "--m", ZERO_TINY),
    f("erode", "--uplift", ZERO_TINY),
    f("erode", "--diffusion", ZERO_TINY),
    f("erode", "--dt", TINY),
    f("erode", "--area-cap", TINY_BIG),
    f("erode", "--area-floor", TINY_BIG),
    f("erode", "--cell-size", NONE),
    f("erode", "--height-range", NONE),
    f("heightmap", "--size", NONE),
    f("heightmap", "--smooth", ZERO),
    f("heightmap", "--cell-size", NONE),
    f("heightmap", "--height-range", NONE),
    f("heightmap", "--classes", NONE),
    f("export", "--size", NONE),
    f("export", "--tile", NONE),
    f("export", "--chunk", NONE),
    f("bake", "--scale", NONE),
    f("bake", "--texture-scale", NONE),
    f("bake", "--texture-strength", ZERO_TINY),
    f("bake", "--hex-size", NONE),
    f("antitile", "--size", NONE),
    f("antitile", "--repeats", NONE),
    f("antitile", "--hex-size", NONE),
    f("antitile", "--seed", SEED32),
    f("classify", "--classes", NONE),
    f("classify", "--share", ZERO_TINY),
    f("classify", "--grid", NONE),
    f("classify", "--tile", TINY_BIG),
    f("classify", "--relief", ZERO_TINY),
    f("classify", "--relief-scale", TINY_BIG),
    f("classify", "--over", NONE),
    f("classify", "--angle", ZERO_TINY),
    f("classify", "--detail", ZERO_TINY),
    f("classify", "--altitude", ZERO_TINY),
    f("classify", "--coherence", ZERO),
    f("classify", "--sharpness", NONE),
    f("classify", "--blend", ZERO_TINY),
    f("classify", "--px", NONE),
    f("validate-rule", "--grids", NONE),
    f("validate-rule", "--veg-rgb", NONE),
    f("validate-rule", "--bare-rgb", NONE),
    f("validate-rule", "--veg-height", ZERO_TINY_BIG),
    f("validate-rule", "--altitude", ZERO_TINY),
    f("validate-rule", "--coherence", ZERO),
    f("validate-rule", "--sharpness", NONE),
    f("capture synth", "--materials", NONE),
    f("capture synth", "--side", NONE),
    f("capture synth", "--density", NONE),
    f("capture synth", "--patch", NONE),
    f("capture synth", "--floaters", ZERO),
    f("capture synth", "--background", ZERO_TINY),
    f("capture synth", "--tilt", FINITE),
    f("capture synth", "--seed", SEED32),
    f("capture from-points", "--crop", NONE),
    f("capture from-points", "--size", NONE),
    f("capture from-texture", "--side", NONE),
    f("capture from-texture", "--relief", ZERO_TINY),
    f("capture from-texture", "--size", NONE),
    // Larger than the photo: no shrinking.
    f("capture from-texture", "--pixels", &["4294967297"]),
    f("prepare", "--radius-pct", TINY),
    f("prepare", "--floater-std", ZERO_TINY_BIG),
    f("prepare", "--max-extent-pct", TINY),
    f("prepare", "--sh", ZERO),
    f("patches", "--size", NONE),
    f("patches", "--count", NONE),
    f("patches", "--classes", NONE),
    f("patches", "--patches", ZERO),
    f("patches", "--stride", NONE),
    f("patches", "--thickness", TINY_BIG),
    f("patches", "--max-tilt", TINY_BIG),
    f("patches", "--max-below", ZERO_TINY),
    f("patches", "--min-splats", ZERO),
    f("patches", "--min-cover", ZERO_TINY),
    f("patches", "--edge-flat", TINY_BIG),
    f("patches", "--min-separation", ZERO_TINY_BIG),
    f("patches", "--similarity", ZERO_TINY_BIG),
    f("patches", "--min-purity", ZERO_TINY),
    f("patches", "--min-class-separation", ZERO_TINY_BIG),
    f("patches", "--max-steps", NONE),
    f("patches", "--tile", NONE),
    f("tileset", "--size", NONE),
    f("tileset", "--classes", NONE),
    f("tileset", "--colours", NONE),
    f("tileset", "--rotations", NONE),
    f("tileset", "--lod", NONE),
    f("tileset", "--max-per-tile", &["4294967297"]),
    f("tileset", "--atlas-res", NONE),
    f("tileset", "--seed", SEED32),
    f("tileset", "--stride", NONE),
    f("tileset", "--thickness", TINY_BIG),
    f("tileset", "--max-tilt", TINY_BIG),
    f("tileset", "--max-below", ZERO_TINY),
    f("tileset", "--min-splats", ZERO),
    f("tileset", "--min-cover", ZERO_TINY),
    f("tileset", "--edge-flat", TINY_BIG),
    f("tileset", "--min-separation", ZERO_TINY_BIG),
    f("tileset", "--similarity", ZERO_TINY_BIG),
    f("tileset", "--min-purity", ZERO_TINY),
    f("tileset", "--min-class-separation", ZERO_TINY_BIG),
    f("tileset", "--max-steps", NONE),
    f("atlas", "--res", NONE),
    f("metrics", "--grid", NONE),
    f("metrics", "--res", NONE),
    f("metrics", "--seed", SEED32),
    f("serve", "--port", ZERO),
    f("site", "--size", NONE),
    f("bench-viewer", "--grids", NONE),
    f("bench-viewer", "--frames", NONE),
    f("bench-viewer", "--timeout", NONE),
    f("bench-viewer", "--size", NONE),
    f("bench-viewer", "--window", NONE),
    f("pop-metric", "--block", NONE),
    f("pop-metric", "--search", ZERO),
    f("pop-metric", "--threshold", ZERO_TINY),
    f("figures", "--seed", SEED32),
    f("figures", "--size", NONE),
    f("figures", "--grid", NONE),
    f("figures", "--res", NONE),
    f("figures", "--layout-seed", SEED32),
    f("figures", "--share", ZERO_TINY),
    f("figures", "--altitude", ZERO_TINY),
    f("figures", "--coherence", ZERO),
    f("figures", "--sharpness", NONE),
    f("figures", "--relief", ZERO_TINY),
    f("figures", "--detail", ZERO_TINY),
    f("figures", "--exaggeration", TINY_BIG),
    f("figures", "--validation-grid", NONE),
    // Worlds: a seed is an integer or a word, so every value is a valid seed.
    f("world flat", "--size", NONE),
    f("world flat", "--seed", &HOSTILE),
    f("world landscape", "--size", NONE),
    f("world landscape", "--seed", &HOSTILE),
    f("world roads", "--size", NONE),
    f("world roads", "--seed", &HOSTILE),
    f("world composite", "--size", NONE),
    f("world composite", "--seed", &HOSTILE),
    // Views: angles are any finite number; sizes, counts and rates have ranges.
    f("render", "--turntable", NONE),
    f("render", "--elevation", &["0", "-1", "1e-308"]),
    f("render", "--azimuth", &["0", "-1", "1e308", "1e-308", "1e20", "18446744073709551616", "4294967297"]),
    f("render", "--fps", TINY),
    f("render", "--size", NONE),
    f("render", "--fov", NONE),
    f("render", "--supersample", NONE),
    f("render", "--point-size", TINY),
    f("render", "--camera", NONE),
    f("points", "--count", NONE),
    f("points", "--fps", NONE),
    f("points", "--seed", SEED64),
    f("gallery", "--size", NONE),
    f("gallery", "--world-size", NONE),
    f("gallery", "--still", NONE),
];

/// Flags that take a value that is not a number (paths, names, lists of names).
const NOT_NUMERIC: &[&str] = &[
    "--out",
    "--crs",
    "--origin",
    "--views",
    "--fly",
    "--up",
    "--shading",
    "--only",
    "--turntable",
    "--profile",
    "--recipe",
    "--until",
    "--gpu",
    "--engine",
    "--compat",
    "--rule",
    "--dtm",
    "--ortho",
    "--dsm",
    "--las",
    "--height",
    "--preset",
    "--presets",
    "--save-preset",
    "--cache-dir",
    "--host",
    "--data",
    "--chromium",
    "--json",
    "--against",
    "--tileset",
    "--terrain",
    "--profiles",
    "--validation",
    "--show",
    "--param",
    "--palette",
    "--on",
    "--outputs",
    "--crop",
    "--ocean",
    "--ops",
    "--texture",
    "--tiling",
    "--albedo-from",
    "--modes",
    "--tint",
    "--page",
    "--cases",
    "--chromium-arg",
    "--renderer",
];

/// Every command path, for the help comparison.
const COMMANDS: &[&str] = &[
    "demo",
    "terrain",
    "analyze",
    "erode",
    "lab",
    "heightmap",
    "export",
    "bake",
    "antitile",
    "classify",
    "validate-rule",
    "inspect",
    "capture synth",
    "capture from-points",
    "capture from-texture",
    "prepare",
    "patches",
    "tileset",
    "atlas",
    "metrics",
    "serve",
    "site",
    "bench-viewer",
    "profiles",
    "recipes",
    "pop-metric",
    "figures",
    "world flat",
    "world landscape",
    "world roads",
    "world composite",
    "world regen",
    "render",
    "points",
    "mesh",
    "gallery",
];

/// The command line of one case: the command with the inputs it needs and an output in `out`
/// (`None` where the command writes none), then the flag and its value.
fn case_args(fx: &Fixtures, fl: &Flag, value: &str, out: &Path) -> (Vec<String>, Option<PathBuf>) {
    let o = s(out);
    let flag_value = format!("{}={value}", fl.flag);
    let mut out_path = Some(out.to_path_buf());
    let mut a: Vec<String> = match fl.cmd {
        "profiles" => {
            out_path = None;
            vec!["profiles".into()]
        }
        "demo" => {
            let mut v = vec!["demo", "--no-serve", "--out", &o];
            if fl.flag != "--size" {
                v.extend(["--size", "32"]);
            }
            v.into_iter().map(String::from).collect()
        }
        "terrain" => {
            let mut v = vec!["terrain", "--profile", "canyon", "--out", &o];
            if fl.flag != "--size" {
                v.extend(["--size", "32"]);
            }
            v.into_iter().map(String::from).collect()
        }
        "analyze" => vec!["analyze".into(), fx.dem.clone(), "--out".into(), o],
        "erode" => {
            let mut v = vec!["erode".to_string(), fx.dem.clone(), "--out".into(), o];
            if fl.flag != "--steps" {
                v.extend(["--steps".into(), "3".into()]);
            }
            v
        }
        "heightmap" => vec!["heightmap".into(), fx.dem.clone(), "--out".into(), o],
        "lab" => {
            let mut v = vec!["lab", "--ops", "droplets:1:64,rain:3:3:2:0.05:2,thermal:35:0.2:2", "--out", &o];
            if fl.flag != "--size" {
                v.extend(["--size", "64"]);
            }
            v.into_iter().map(String::from).collect()
        }
        "export" => {
            let engine = match fl.flag {
                "--tile" => "unreal",
                "--chunk" => "gltf",
                _ => "unity",
            };
            vec!["export".into(), fx.terrain.clone(), "--engine".into(), engine.into(), "--out".into(), o]
        }
        "bake" => vec!["bake".into(), fx.terrain.clone(), "--out".into(), o],
        "antitile" => {
            let mut v = vec!["antitile".to_string(), fx.image.clone(), "--out".into(), o];
            if fl.flag != "--size" {
                v.extend(["--size".into(), "64".into()]);
            }
            v
        }
        "classify" => {
            let mut v = vec!["classify".to_string(), fx.terrain.clone(), "--out".into(), o];
            if fl.flag != "--grid" {
                v.extend(["--grid".into(), "12".into()]);
            }
            v
        }
        "validate-rule" => {
            let mut v = vec!["validate-rule".to_string(), "--las".into(), fx.las.clone(), "--out".into(), o];
            if fl.flag != "--grids" {
                v.extend(["--grids".into(), "8".into()]);
            }
            v
        }
        "capture synth" => {
            out_path = Some(out.join("c.ply"));
            let mut v = vec!["capture", "synth"];
            if fl.flag != "--side" {
                v.extend(["--side", "1"]);
            }
            if fl.flag != "--density" {
                v.extend(["--density", "2000"]);
            }
            let mut v: Vec<String> = v.into_iter().map(String::from).collect();
            v.extend(["--out".into(), s(&out.join("c.ply"))]);
            v
        }
        "capture from-points" => {
            out_path = Some(out.join("c.ply"));
            vec!["capture".into(), "from-points".into(), fx.points.clone(), "--out".into(), s(&out.join("c.ply"))]
        }
        "capture from-texture" => {
            out_path = Some(out.join("c.ply"));
            let mut v = vec!["capture".into(), "from-texture".into(), fx.image.clone(), "--out".into()];
            v.push(s(&out.join("c.ply")));
            if fl.flag == "--relief" {
                v.extend(["--height".into(), fx.terrain.clone()]);
            }
            v
        }
        "prepare" => {
            out_path = Some(out.join("p.ply"));
            let mut v = vec!["prepare".to_string(), fx.small_capture.clone(), "--out".into(), s(&out.join("p.ply"))];
            if fl.flag != "--sh" {
                v.push("--clean".into());
            }
            v
        }
        "patches" => vec!["patches".into(), fx.capture.clone(), "--out".into(), o, "--no-cache".into()],
        "tileset" => vec!["tileset".into(), fx.capture.clone(), "--out".into(), o, "-q".into()],
        "atlas" => {
            out_path = Some(out.join("a.png"));
            vec!["atlas".into(), fx.tileset.clone(), "--out".into(), s(&out.join("a.png"))]
        }
        "metrics" => {
            out_path = None;
            vec!["metrics".into(), fx.tileset.clone()]
        }
        "serve" => {
            out_path = None;
            vec!["serve".into(), fx.tileset.clone()]
        }
        "site" => vec!["site".into(), "--out".into(), o],
        w if w.starts_with("world ") => {
            let mut v: Vec<String> = w.split(' ').map(String::from).collect();
            v.extend(["--out".into(), o]);
            if fl.flag != "--size" {
                v.extend(["--size".into(), "24".into()]);
            }
            v
        }
        "bench-viewer" => {
            out_path = None;
            vec!["bench-viewer".into(), "--chromium".into(), "/nonexistent/chromium".into()]
        }
        "pop-metric" => {
            out_path = None;
            vec!["pop-metric".into(), fx.frames.clone()]
        }
        "figures" => {
            let mut v = vec!["figures".to_string(), "--out".into(), o, "--no-validation".into()];
            v.extend(["--tileset".into(), fx.tileset.clone(), "--terrain".into(), fx.terrain.clone()]);
            if fl.flag != "--size" {
                v.extend(["--size".into(), "32".into()]);
            }
            if fl.flag != "--res" {
                v.extend(["--res".into(), "8".into()]);
            }
            if fl.flag != "--grid" {
                v.extend(["--grid".into(), "6".into()]);
            }
            v
        }
        "render" => {
            out_path = Some(out.with_extension("png"));
            let mut v = vec!["render".to_string(), fx.terrain.clone(), "--out".into(), s(&out.with_extension("png"))];
            if fl.flag != "--size" {
                v.extend(["--size".into(), "48x32".into()]);
            }
            v
        }
        "points" => {
            out_path = Some(out.with_extension("ply"));
            let mut v = vec!["points".to_string(), fx.terrain.clone(), "--out".into(), s(&out.with_extension("ply"))];
            if fl.flag != "--count" {
                v.extend(["--count".into(), "500".into()]);
            }
            v
        }
        "mesh" => vec!["mesh".into(), fx.terrain.clone(), "--out".into(), s(&out.with_extension("obj"))],
        "gallery" => {
            let mut v = vec!["gallery".to_string(), "--only".into(), "world-flat".into(), "--out".into(), o];
            if fl.flag != "--world-size" {
                v.extend(["--world-size".into(), "16".into()]);
            }
            if fl.flag != "--still" {
                v.extend(["--still".into(), "48x32".into()]);
            }
            v
        }
        other => panic!("no base command line for {other}"),
    };
    // Flags before the command for the global ones; `--flag=value` so that `-1` is a value.
    // Other cases run under a smaller work cap, so that what the budget admits ends within the
    // timeout in the test profile.
    if fl.cmd == "profiles" {
        a.insert(0, flag_value);
    } else {
        a.insert(0, format!("--max-work={SUITE_MAX_WORK}"));
        a.push(flag_value);
    }
    (a, out_path)
}

/// What happened to one run.
struct Ran {
    code: Option<i32>,
    timed_out: bool,
    stderr: String,
    secs: f64,
}

/// Run `bozkir args` under the address-space limit with a timeout of `timeout` seconds.
fn run_limited(args: &[String], dir: &Path, timeout: u64) -> Ran {
    let t0 = Instant::now();
    let (so, se) = (dir.join("stdout.txt"), dir.join("stderr.txt"));
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {ADDRESS_SPACE_KIB} && exec \"$0\" \"$@\""))
        .arg(BIN)
        .args(args)
        .env("HOME", dir)
        .env("BOZKIR_PRESETS", dir.join("no-presets.json"))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&so).unwrap())
        .stderr(std::fs::File::create(&se).unwrap())
        .spawn()
        .expect("spawn sh");
    let mut timed_out = false;
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if t0.elapsed() > Duration::from_secs(timeout) {
            timed_out = true;
            let _ = child.kill();
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(15));
    };
    Ran {
        code: status.code(),
        timed_out,
        stderr: std::fs::read_to_string(&se).unwrap_or_default(),
        secs: t0.elapsed().as_secs_f64(),
    }
}

/// Any `.bozkir-staging-*` entry under `dir` (recursively).
fn staging_left(dir: &Path) -> Option<PathBuf> {
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let p = e.path();
        if e.file_name().to_string_lossy().starts_with(".bozkir-staging") {
            return Some(p);
        }
        if p.is_dir() {
            if let Some(q) = staging_left(&p) {
                return Some(q);
            }
        }
    }
    None
}

#[test]
fn every_numeric_flag_survives_hostile_values() {
    let tmp = tempfile::tempdir().unwrap();
    let fx = fixtures(&tmp.path().join("fx"));
    let cases: Vec<(usize, &str)> = (0..FLAGS.len()).flat_map(|i| HOSTILE.iter().map(move |v| (i, *v))).collect();
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::<String>::new());
    let counts = Mutex::new([0usize; 4]); // runs, exit 0, refused, slowest (ms)
    std::thread::scope(|sc| {
        for _ in 0..4 {
            sc.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(i, value)) = cases.get(k) else { break };
                let fl = &FLAGS[i];
                let case_dir = tmp.path().join(format!("case{k}"));
                std::fs::create_dir_all(&case_dir).unwrap();
                let out = case_dir.join("out");
                let (args, out_path) = case_args(&fx, fl, value, &out);
                let serves = fl.cmd == "serve";
                let timeout = if serves { 3 } else { TIMEOUT_S };
                let r = run_limited(&args, &case_dir, timeout);
                let valid = fl.valid.contains(&value);
                let name = format!("{} {}={value}", fl.cmd, fl.flag);
                let mut bad = Vec::new();
                if r.stderr.contains("panicked") || r.code == Some(101) {
                    bad.push("panicked".to_string());
                }
                if r.timed_out && !(serves && valid) {
                    bad.push(format!("timed out after {TIMEOUT_S} s"));
                } else if r.code.is_none() && !r.timed_out {
                    bad.push("killed by a signal".to_string());
                }
                if r.code == Some(0) {
                    if !valid {
                        bad.push("exit 0 on a value it should refuse".to_string());
                    } else if let Some(p) = &out_path {
                        if !p.exists() {
                            bad.push(format!("exit 0 without its output {}", p.display()));
                        }
                    }
                }
                if let Some(p) = staging_left(&case_dir) {
                    bad.push(format!("left {}", p.display()));
                }
                {
                    let mut c = counts.lock().unwrap();
                    c[0] += 1;
                    c[1] += usize::from(r.code == Some(0));
                    c[2] += usize::from(r.code.is_some_and(|c| c != 0));
                    c[3] = c[3].max((r.secs * 1000.0) as usize);
                }
                if !bad.is_empty() {
                    let err: String = r.stderr.lines().take(3).collect::<Vec<_>>().join(" | ");
                    failures.lock().unwrap().push(format!("{name}: {} [exit {:?}; {err}]", bad.join(", "), r.code));
                }
                let _ = std::fs::remove_dir_all(&case_dir);
            });
        }
    });
    let c = counts.into_inner().unwrap();
    let failures = failures.into_inner().unwrap();
    eprintln!(
        "hostile flags: {} flags × {} values = {} runs, {} exit 0 (valid values), {} refused, slowest {} ms, {} failures",
        FLAGS.len(),
        HOSTILE.len(),
        c[0],
        c[1],
        c[2],
        c[3],
        failures.len()
    );
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// The value-taking flags `bozkir CMD --help` lists.
fn help_flags(cmd: &str) -> Vec<String> {
    let mut args: Vec<&str> = cmd.split(' ').collect();
    args.push("--help");
    let o = Command::new(BIN).args(&args).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    let mut v = Vec::new();
    for line in text.lines() {
        let t = line.trim_start();
        let t = t.strip_prefix("-q, ").or_else(|| t.strip_prefix("-h, ")).unwrap_or(t);
        if let Some(rest) = t.strip_prefix("--") {
            let mut parts = rest.splitn(2, ' ');
            let name = parts.next().unwrap_or("");
            let takes_value = parts.next().is_some_and(|r| r.starts_with('<') || r.starts_with("[<"));
            if takes_value {
                v.push(format!("--{name}"));
            }
        }
    }
    v
}

#[test]
fn flag_table_matches_help() {
    let mut missing = Vec::new();
    for &cmd in COMMANDS {
        for flag in help_flags(cmd) {
            let global = ["--threads", "--max-memory", "--max-work"].contains(&flag.as_str());
            let listed = FLAGS.iter().any(|f| f.cmd == cmd && f.flag == flag);
            if !(global || listed || NOT_NUMERIC.contains(&flag.as_str())) {
                missing.push(format!("{cmd} {flag}"));
            }
        }
    }
    for fl in FLAGS {
        if !help_flags(fl.cmd).contains(&fl.flag.to_string()) {
            missing.push(format!("{} {} is in the table but not in --help", fl.cmd, fl.flag));
        }
    }
    assert!(missing.is_empty(), "numeric flags missing from the hostile table: {missing:?}");
}

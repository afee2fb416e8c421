//! End-to-end tests of the `bozkir` binary: outputs, determinism, and bad input.

mod common;

use bozkir_io::{read_sidecar, read_tiff_f32};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bozkir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bozkir")).arg("--quiet").args(args).output().expect("run bozkir")
}

fn data(rel: &str) -> String {
    format!("{}/../../data/{rel}", env!("CARGO_MANIFEST_DIR"))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// The command fails, names `needle` in its message, and leaves `out` as it was (absent).
fn fails_cleanly(args: &[&str], out: &Path, needle: &str) {
    let o = bozkir(args);
    assert!(!o.status.success(), "{args:?} should fail");
    let e = stderr(&o);
    assert!(e.contains(needle), "{args:?}: message {e:?} should mention {needle:?}");
    assert!(!out.exists(), "{args:?} left {}", out.display());
}

const TERRAIN_FILES: [&str; 24] = [
    "accumulation.tif",
    "d8.png",
    "drainage.png",
    "height.png",
    "height.r16",
    "height.rg16.png",
    "height.tif",
    "landform.png",
    "landform_rgb.png",
    "preview.png",
    "sediment.png",
    "sediment.r16",
    "sediment.rg16.png",
    "sediment.tif",
    "sediment_mask.png",
    "sky_view.png",
    "slope.png",
    "slope.tif",
    "streams.png",
    "terrain.json",
    "tpi.png",
    "tpi.tif",
    "watersheds.png",
    "watersheds.tif",
];

#[test]
fn terrain_writes_every_output_and_a_true_sidecar() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("t");
    let o = bozkir(&[
        "terrain",
        "--profile",
        "canyon",
        "--seed",
        "3",
        "--size",
        "64",
        "--height-range",
        "500",
        "--cell-size",
        "5",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let want: Vec<&str> = TERRAIN_FILES.to_vec();
    assert_eq!(listing(&out), want);
    let sc = read_sidecar(out.join("terrain.json")).unwrap();
    assert_eq!((sc.width, sc.height, sc.seed), (64, 64, Some(3)));
    assert_eq!((sc.dx_m, sc.dy_m), (5.0, 5.0));
    assert_eq!((sc.low_m, sc.high_m), (0.0, 500.0));
    assert_eq!(sc.settings["profile"], "canyon");
    assert_eq!(sc.settings["iterations"], 90.0);
    assert_eq!(sc.files.len(), want.len() - 1, "every file but the sidecar is listed");
    let h = read_tiff_f32(out.join("height.tif")).unwrap();
    assert_eq!((h.width(), h.height(), h.dx), (64, 64, 5.0));
    let (lo, hi) = h.min_max().unwrap();
    assert_eq!((lo, hi), (0.0, 500.0));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("channel-network share") && stdout.contains("slope"), "{stdout}");
}

#[test]
fn terrain_is_the_same_at_any_thread_count_and_seed_matters() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |threads: &str, seed: &str, name: &str| -> PathBuf {
        let out = tmp.path().join(name);
        let o = bozkir(&[
            "--threads",
            threads,
            "terrain",
            "--profile",
            "alpine",
            "--seed",
            seed,
            "--size",
            "48",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        out
    };
    let a = run("1", "5", "a");
    let b = run("2", "5", "b");
    let c = run("2", "6", "c");
    for f in ["height.tif", "height.png", "sediment.tif", "accumulation.tif", "landform.png", "preview.png"] {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f} differs between 1 and 2 threads"
        );
    }
    assert_ne!(std::fs::read(a.join("height.tif")).unwrap(), std::fs::read(c.join("height.tif")).unwrap());
}

#[test]
fn overrides_change_the_ground_and_are_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("o");
    let o = bozkir(&[
        "terrain",
        "--profile",
        "hills",
        "--size",
        "32",
        "--ridge",
        "0.9",
        "--iterations",
        "10",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let sc = read_sidecar(out.join("terrain.json")).unwrap();
    assert_eq!(sc.settings["ridge"], 0.9);
    assert_eq!(sc.settings["iterations"], 10.0);
    assert_eq!(sc.settings["octaves"], 6.0, "untouched parameters keep the profile's value");
}

#[test]
fn bad_terrain_options_fail_before_writing_anything() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("never");
    let o = out.to_str().unwrap();
    fails_cleanly(&["terrain", "--profile", "canyonn", "--out", o], &out, "unknown profile \"canyonn\"");
    let e = stderr(&bozkir(&["terrain", "--profile", "nope", "--out", o]));
    for name in ["plains", "canyon", "scree", "dunes"] {
        assert!(e.contains(name), "the error lists the profiles: {e}");
    }
    fails_cleanly(&["terrain", "--size", "0", "--out", o], &out, "--size");
    fails_cleanly(&["terrain", "--size", "100000", "--out", o], &out, "--size");
    fails_cleanly(&["terrain", "--ridge", "NaN", "--out", o], &out, "ridge");
    fails_cleanly(&["terrain", "--octaves", "2.5", "--out", o], &out, "octaves");
    fails_cleanly(&["terrain", "--cell-size=-1", "--out", o], &out, "cell-size");
    fails_cleanly(&["terrain", "--height-range", "inf", "--out", o], &out, "height-range");
    fails_cleanly(&["terrain", "--bogus", "1", "--out", o], &out, "--bogus");
}

#[test]
fn analyze_a_real_dem() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("j");
    let o = bozkir(&["analyze", &data("dem/jacksboro_fault_dem.npz"), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    for f in [
        "filled.tif",
        "dem.tif",
        "lake_depth.tif",
        "d8.png",
        "accumulation.tif",
        "streams.png",
        "watersheds.tif",
        "slope.png",
        "tpi.png",
        "landform.png",
        "preview.png",
        "terrain.json",
    ] {
        assert!(out.join(f).exists(), "{f} missing");
    }
    let sc = read_sidecar(out.join("terrain.json")).unwrap();
    assert_eq!((sc.width, sc.height), (403, 344));
    assert!(
        sc.dx_m > 70.0 && sc.dx_m < 80.0 && sc.dy_m > 90.0 && sc.dy_m < 95.0,
        "metres per axis at the DEM's latitude: {} × {}",
        sc.dx_m,
        sc.dy_m
    );
    let dem = read_tiff_f32(out.join("dem.tif")).unwrap();
    let filled = read_tiff_f32(out.join("filled.tif")).unwrap();
    assert!(dem.data().iter().zip(filled.data()).all(|(d, f)| f >= d), "filled ≥ original");
    let acc = read_tiff_f32(out.join("accumulation.tif")).unwrap();
    assert!(acc.data().iter().all(|&a| a >= 1.0 && a <= (403 * 344) as f32));
}

/// `analyze --gpu=require` fills the depressions and computes the sky view, slope and TPI on the GPU (lavapipe
/// in CI) and writes the same bytes as the CPU run, every file but the sidecar, which names the
/// backend.
#[test]
fn analyze_on_the_gpu_writes_the_cpu_bytes() {
    if !common::gpu_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let run = |mode: &str| {
        let out = tmp.path().join(mode);
        let o = bozkir(&[
            "analyze",
            &data("dem/jacksboro_fault_dem.npz"),
            &format!("--gpu={mode}"),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "--gpu={mode}: {}", stderr(&o));
        out
    };
    let (cpu, gpu) = (run("off"), run("require"));
    let mut names: Vec<_> = std::fs::read_dir(&cpu).unwrap().map(|e| e.unwrap().file_name()).collect();
    names.sort();
    assert!(names.len() > 10);
    for n in &names {
        if n == "terrain.json" {
            continue;
        }
        let (a, b) = (std::fs::read(cpu.join(n)).unwrap(), std::fs::read(gpu.join(n)).unwrap());
        assert!(a == b, "{n:?} differs between the CPU and GPU fills");
    }
    let sc = read_sidecar(gpu.join("terrain.json")).unwrap();
    assert!(sc.backend.starts_with("gpu"), "{}", sc.backend);
    assert_eq!(
        sc.settings["backends"].to_string(),
        "[\"fill: gpu\",\"sky_view: gpu\",\"landform: gpu\",\"drainage: gpu\"]"
    );
    assert!(names.iter().any(|n| n == "sky_view.png"), "the sky view is among the compared files");
    assert_eq!(read_sidecar(cpu.join("terrain.json")).unwrap().backend, "cpu");
    // The DEM has depressions: the fill raised cells.
    let (dem, filled) = (read_tiff_f32(gpu.join("dem.tif")).unwrap(), read_tiff_f32(gpu.join("filled.tif")).unwrap());
    assert!(dem.data().iter().zip(filled.data()).any(|(d, f)| f > d));
}

/// `terrain --profile … --gpu=require` runs the erosion walk as the GPU's stream power (lavapipe
/// in CI): the heights within 1e-6 of the relief of the CPU's (the original's walk; about 1e-15
/// measured), the sidecar naming the GPU.
#[test]
fn a_profile_on_the_gpu_is_the_cpu_walk_to_rounding() {
    if !common::gpu_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let run = |mode: &str| {
        let out = tmp.path().join(mode);
        let o = bozkir(&[
            "terrain",
            "--profile",
            "alpine",
            "--size",
            "48",
            "--seed",
            "3",
            "--iterations",
            "12",
            &format!("--gpu={mode}"),
            "--outputs",
            "height",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "--gpu={mode}: {}", stderr(&o));
        out
    };
    let (cpu, gpu) = (run("off"), run("require"));
    let (a, b) = (read_tiff_f32(cpu.join("height.tif")).unwrap(), read_tiff_f32(gpu.join("height.tif")).unwrap());
    let (lo, hi) = a.data().iter().fold((f32::MAX, f32::MIN), |(l, h), &v| (l.min(v), h.max(v)));
    let worst = a.data().iter().zip(b.data()).map(|(x, y)| (x - y).abs()).fold(0.0f32, f32::max);
    assert!(worst <= 1e-6 * (hi - lo) + 1e-3, "heights differ by {worst} m of {} m", hi - lo);
    assert!(read_sidecar(gpu.join("terrain.json")).unwrap().backend.starts_with("gpu"));
    assert_eq!(read_sidecar(cpu.join("terrain.json")).unwrap().backend, "cpu");
}

/// A profile whose field passes the GPU's binding limit (lowered here with
/// `BOZKIR_GPU_BINDING_LIMIT`, as 16384² passes NVIDIA's 2 GiB) runs with its buffers bound in
/// two halves, says so, and writes the bytes of the unsplit run.
#[test]
fn a_profile_past_the_binding_limit_writes_the_same_bytes() {
    if !common::gpu_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let run = |name: &str, limit: Option<&str>| {
        let out = tmp.path().join(name);
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_bozkir"));
        cmd.args(["terrain", "--profile", "canyon", "--size", "64", "--seed", "5", "--gpu=require"]);
        cmd.args(["--outputs", "height,d8", "--out", out.to_str().unwrap()]);
        if let Some(l) = limit {
            cmd.env("BOZKIR_GPU_BINDING_LIMIT", l);
        }
        let o = cmd.output().unwrap();
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        (out, stderr(&o))
    };
    let (plain, note) = run("plain", None);
    assert!(!note.contains("two halves"), "{note}");
    // The 64² profile's field with its margin is 84² cells: 56 448 bytes of f64 per buffer.
    let (split, note) = run("split", Some("32768"));
    assert!(note.contains("binding limit and are bound in two halves"), "{note}");
    for f in ["height.tif", "sediment.tif", "d8.png"] {
        assert!(std::fs::read(plain.join(f)).unwrap() == std::fs::read(split.join(f)).unwrap(), "{f} differs");
    }
    // Too low a limit for two halves: refused by name under require, nothing written.
    let out = tmp.path().join("refused");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_bozkir"))
        .args(["terrain", "--profile", "canyon", "--size", "64", "--gpu=require", "--out", out.to_str().unwrap()])
        .env("BOZKIR_GPU_BINDING_LIMIT", "4096")
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(stderr(&o).contains("over the device's limit"), "{}", stderr(&o));
    assert!(!out.exists());
}

#[test]
fn erode_lowers_relief_of_a_real_dem() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("e");
    let o = bozkir(&[
        "erode",
        &data("dem/rmnp-dem.tif"),
        "--steps",
        "20",
        "--k",
        "5e-4",
        "--dt",
        "1000",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let sc = read_sidecar(out.join("terrain.json")).unwrap();
    assert_eq!(sc.settings["steps"], 20);
    let eroded = read_tiff_f32(out.join("eroded.tif")).unwrap();
    assert!(eroded.data().iter().all(|&e| e >= 0.0));
    assert!(eroded.data().iter().any(|&e| e > 1.0), "something was cut");
}

#[test]
fn bad_erode_options_fail_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("never");
    let o = out.to_str().unwrap();
    let dem = data("dem/rmnp-dem.tif");
    fails_cleanly(&["erode", &dem, "--steps", "0", "--out", o], &out, "--steps");
    fails_cleanly(&["erode", &dem, "--k", "NaN", "--out", o], &out, "--k");
    fails_cleanly(&["erode", &dem, "--dt", "0", "--out", o], &out, "--dt");
    // The ranges are StreamPowerParams::validate's; the messages keep the option's name.
    fails_cleanly(&["erode", &dem, "--m", "3", "--out", o], &out, "--m must be in 0..=2, got 3");
    fails_cleanly(&["erode", &dem, "--m=-1", "--out", o], &out, "--m must be a finite number ≥ 0, got -1");
    fails_cleanly(
        &["erode", &dem, "--diffusion=-1", "--out", o],
        &out,
        "--diffusion must be a finite number ≥ 0, got -1",
    );
    fails_cleanly(
        &["erode", &dem, "--area-cap", "0", "--out", o],
        &out,
        "--area-cap must be a finite number above 0, got 0",
    );
    fails_cleanly(
        &["erode", &dem, "--area-floor=-2", "--out", o],
        &out,
        "--area-floor must be a finite number above 0, got -2",
    );
}

#[test]
fn corrupt_and_empty_rasters_are_rejected_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("never");
    let o = out.to_str().unwrap();
    // Truncated GeoTIFF.
    let bytes = std::fs::read(data("dem/srtm_ref.tif")).unwrap();
    let cut = tmp.path().join("cut.tif");
    std::fs::write(&cut, &bytes[..bytes.len() / 3]).unwrap();
    fails_cleanly(&["analyze", cut.to_str().unwrap(), "--out", o], &out, "cut.tif");
    // Zero bytes.
    let empty = tmp.path().join("empty.tif");
    std::fs::write(&empty, b"").unwrap();
    fails_cleanly(&["analyze", empty.to_str().unwrap(), "--out", o], &out, "empty.tif");
    // Not a TIFF at all.
    let junk = tmp.path().join("junk.tif");
    std::fs::write(&junk, b"this is not a tiff file at all").unwrap();
    fails_cleanly(&["erode", junk.to_str().unwrap(), "--out", o], &out, "junk.tif");
    // All nodata.
    let nan = tmp.path().join("nan.tif");
    bozkir_io::write_tiff_f32(&nan, &bozkir_core::Grid::new(16, 16, f32::NAN)).unwrap();
    fails_cleanly(&["analyze", nan.to_str().unwrap(), "--out", o], &out, "nan.tif");
    // Missing file; unknown extension.
    fails_cleanly(&["analyze", "/no/such/dem.tif", "--out", o], &out, "no such file");
    let txt = tmp.path().join("dem.xyz");
    std::fs::write(&txt, b"1 2 3").unwrap();
    fails_cleanly(&["analyze", txt.to_str().unwrap(), "--out", o], &out, "dem.xyz");
    // A PLY without z.
    let ply = tmp.path().join("noz.ply");
    std::fs::write(
        &ply,
        b"ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nend_header\n0 0\n1 1\n",
    )
    .unwrap();
    fails_cleanly(&["heightmap", ply.to_str().unwrap(), "--out", o], &out, "noz.ply");
}

#[test]
fn a_failed_run_keeps_what_the_user_had() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("mine");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("keep.txt"), b"precious").unwrap();
    let bad = tmp.path().join("bad.tif");
    std::fs::write(&bad, b"II*\0garbage").unwrap();
    let o = bozkir(&["analyze", bad.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(!o.status.success());
    assert_eq!(listing(&out), vec!["keep.txt"]);
    assert_eq!(std::fs::read(out.join("keep.txt")).unwrap(), b"precious");
}

#[test]
fn heightmap_imports_a_point_cloud_and_a_dem() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("las");
    let o = bozkir(&[
        "heightmap",
        &data("lidar/file_with_both_wkt_and_geotiff_vlrs.las"),
        "--size",
        "64",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = read_tiff_f32(out.join("height.tif")).unwrap();
    assert_eq!((h.width(), h.height()), (64, 64));
    assert!(h.data().iter().all(|v| v.is_finite()), "gaps are filled");
    // A 3D ASCII PLY of a tilted plane: the height field is the plane.
    let ply = tmp.path().join("plane.ply");
    let mut s = String::from(
        "ply\nformat ascii 1.0\nelement vertex 400\nproperty float x\nproperty float y\nproperty float z\nend_header\n",
    );
    for i in 0..20 {
        for j in 0..20 {
            s += &format!("{} {} {}\n", i, j, 0.5 * i as f64);
        }
    }
    std::fs::write(&ply, s).unwrap();
    let out2 = tmp.path().join("plane");
    let o = bozkir(&["heightmap", ply.to_str().unwrap(), "--size", "20", "--out", out2.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = read_tiff_f32(out2.join("height.tif")).unwrap();
    let (lo, hi) = h.min_max().unwrap();
    assert!((hi - lo - 9.5).abs() < 0.6, "plane relief {lo}..{hi}");
    // A DEM is resampled to the requested size on its long edge.
    let out3 = tmp.path().join("srtm");
    let o = bozkir(&["heightmap", &data("dem/srtm_ref.tif"), "--size", "100", "--out", out3.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let sc = read_sidecar(out3.join("terrain.json")).unwrap();
    assert_eq!((sc.width, sc.height), (100, 100));
    assert!(sc.dx_m > 700.0 && sc.dx_m < 730.0, "10× coarser cells: {}", sc.dx_m);
}

#[test]
fn profiles_lists_all_nineteen() {
    let o = bozkir(&["profiles", "--json"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v.as_object().unwrap().len(), 19);
    assert_eq!(v["canyon"]["group"], "highlands");
    assert_eq!(v["dunes"]["stretch"], 0.3);
}

#[test]
fn tiny_terrain_works_and_laz_is_imported() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("tiny");
    let o = bozkir(&["terrain", "--profile", "dunes", "--size", "4", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(read_tiff_f32(out.join("height.tif")).unwrap().width(), 4);
    // A real LAZ file: the height field is what the library makes of the decompressed points
    // converted from feet to metres, and stays inside the header's z bounds (406.26..520.51 ft).
    let laz = data("lidar/autzen_trim.laz");
    let hm = tmp.path().join("laz");
    let o = bozkir(&["heightmap", &laz, "--size", "64", "--out", hm.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = read_tiff_f32(hm.join("height.tif")).unwrap();
    assert_eq!((h.width(), h.height()), (64, 64));
    let pts = bozkir_io::read_las(&laz).unwrap();
    assert_eq!(pts.xyz.len(), 110_000);
    let ft = pts.horizontal_unit_m.unwrap();
    assert_eq!(ft, 0.3048);
    let metres: Vec<[f64; 3]> = pts.xyz.iter().map(|p| p.map(|v| v * ft)).collect();
    let want =
        bozkir_terrain::points::height_from_points(&metres, &bozkir_terrain::points::Gridding::inventory(64)).heights;
    for (a, b) in h.data().iter().zip(want.data()) {
        assert_eq!(*a, *b as f32);
        assert!((406.26 * ft..=520.51 * ft).contains(&f64::from(*a)), "{a}");
    }
    // A file named .laz that is not one still fails cleanly.
    let bad = tmp.path().join("cloud.laz");
    std::fs::write(&bad, b"LASF").unwrap();
    let never = tmp.path().join("never");
    fails_cleanly(&["heightmap", bad.to_str().unwrap(), "--out", never.to_str().unwrap()], &never, "cloud.laz");
}

/// `bozkir terrain` writes exactly the folder `bozkir_pipeline::terrain::terrain` writes: the
/// same files with the same bytes (the CLI adds only staging and printing).
#[test]
fn the_terrain_command_writes_what_the_pipeline_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let cli = tmp.path().join("cli");
    let o = bozkir(&["terrain", "--profile", "canyon", "--seed", "3", "--size", "24", "--out", cli.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lib = tmp.path().join("lib");
    std::fs::create_dir(&lib).unwrap();
    let req = bozkir_pipeline::terrain::TerrainRequest::profile("canyon", 24, 3).unwrap();
    bozkir_pipeline::terrain::terrain(&req, &lib, &bozkir_core::NoProgress).unwrap();
    assert_eq!(listing(&cli), listing(&lib));
    for f in listing(&cli) {
        assert!(std::fs::read(cli.join(&f)).unwrap() == std::fs::read(lib.join(&f)).unwrap(), "{f} differs");
    }
}

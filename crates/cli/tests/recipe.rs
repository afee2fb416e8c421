//! `bozkir terrain --recipe` and `bozkir recipes` end to end.

mod common;

use bozkir_core::Grid;
use bozkir_io::{read_png8, read_sidecar, read_tiff_f32};
use std::path::Path;
use std::process::{Command, Output};

fn bozkir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bozkir")).arg("--quiet").args(args).output().expect("run bozkir")
}

/// `bozkir terrain --recipe RECIPE EXTRA… --out DIR/NAME`: the heights and the sidecar's
/// `backends` (where each erosion stage ran).
fn run_recipe(recipe: &Path, dir: &Path, name: &str, extra: &[&str]) -> (Grid<f32>, String) {
    let out = dir.join(name);
    let mut args = vec!["terrain", "--recipe", recipe.to_str().unwrap()];
    args.extend_from_slice(extra);
    args.extend(["--out", out.to_str().unwrap()]);
    let o = bozkir(&args);
    assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
    let sc = read_sidecar(out.join("terrain.json")).unwrap();
    let backends = sc.settings.get("backends").map(|v| v.to_string()).unwrap_or_default();
    (read_tiff_f32(out.join("height.tif")).unwrap(), backends)
}

#[test]
fn builtin_recipes_run_small_with_a_stage_table_and_masks() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("ds2");
    let o = bozkir(&["terrain", "--recipe", "ds2", "--size", "48", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    for stage in ["noise", "stream_power", "droplets", "thermal", "upsample", "rills", "crags", "polish", "fold"] {
        assert!(text.contains(stage), "stage table lists {stage}: {text}");
    }
    for f in [
        "height.tif",
        "wear_mask.png",
        "deposit_mask.png",
        "flow_mask.png",
        "sediment.tif",
        "fold_east.tif",
        "terrain.json",
    ] {
        assert!(out.join(f).exists(), "{f} missing");
    }
    let sc = read_sidecar(out.join("terrain.json")).unwrap();
    assert_eq!(sc.settings["recipe"], "ds2");
    assert_eq!(sc.width, 95, "detail stages run at 2× the simulation size: (48 − 1)·2 + 1");
    let island = tmp.path().join("island");
    let o = bozkir(&["terrain", "--recipe", "island", "--size", "64", "--out", island.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ids = read_png8(island.join("biomes.png")).unwrap();
    let pal = bozkir_material::biomes::Palette::default_biomes();
    assert!(ids.data().iter().all(|&i| (i as usize) < pal.entries.len()), "biome ids are palette entries");
    let h = read_tiff_f32(island.join("height.tif")).unwrap();
    assert!(h.data().iter().any(|&v| v < 0.0) && h.data().iter().any(|&v| v > 0.0), "sea and land");
}

#[test]
fn same_recipe_and_seed_give_the_same_bytes_at_any_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |t: &str, name: &str| {
        let out = tmp.path().join(name);
        let o = bozkir(&[
            "--threads",
            t,
            "terrain",
            "--recipe",
            "ds2",
            "--size",
            "40",
            "--seed",
            "4",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read(out.join("height.tif")).unwrap()
    };
    assert_eq!(run("1", "a"), run("2", "b"));
}

#[test]
fn malformed_recipes_are_rejected_with_the_line_and_nothing_written() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("never");
    let bad = tmp.path().join("bad.toml");
    std::fs::write(&bad, "size = 32\n\n[[stage]]\nop = \"noise\"\n\n[[stage]]\nop = \"droplets\"\ninertiaa = 0.1\n")
        .unwrap();
    let o = bozkir(&["terrain", "--recipe", bad.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("bad.toml line 6") && e.contains("droplets") && e.contains("inertiaa"), "{e}");
    assert!(!out.exists());
    std::fs::write(&bad, "size = 32\n[[stage]]\nop = \"erode_everything\"\n").unwrap();
    let e = String::from_utf8_lossy(
        &bozkir(&["terrain", "--recipe", bad.to_str().unwrap(), "--out", out.to_str().unwrap()]).stderr,
    )
    .into_owned();
    assert!(e.contains("line 2") && e.contains("unknown stage") && e.contains("droplets"), "{e}");
    let e =
        String::from_utf8_lossy(&bozkir(&["terrain", "--recipe", "nonesuch", "--out", out.to_str().unwrap()]).stderr)
            .into_owned();
    assert!(e.contains("nonesuch") && e.contains("ds2") && e.contains("island"), "{e}");
    assert!(!out.exists());
}

#[test]
fn recipes_lists_and_shows() {
    let o = bozkir(&["recipes"]);
    let t = String::from_utf8_lossy(&o.stdout);
    assert!(t.contains("ds2") && t.contains("island") && t.contains("canyon"), "{t}");
    let o = bozkir(&["recipes", "--show", "island"]);
    let t = String::from_utf8_lossy(&o.stdout);
    assert!(t.contains("op = \"island\"") && t.contains("op = \"droplets\""), "{t}");
}

/// `--until N` runs the first N stages: the full count gives the full run's bytes, a prefix
/// stops earlier (and says so in the sidecar), and a count past the end is refused.
#[test]
fn until_runs_a_prefix_of_the_stages() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |name: &str, extra: &[&str]| {
        let out = tmp.path().join(name);
        let mut args = vec!["terrain", "--recipe", "ds2", "--size", "40", "--out", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = bozkir(&args);
        (o, out)
    };
    let (o, full) = run("full", &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stages = read_sidecar(full.join("terrain.json")).unwrap().settings["stages"].as_array().unwrap().len();
    let (o, all) = run("all", &["--until", &stages.to_string()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(full.join("height.tif")).unwrap(), std::fs::read(all.join("height.tif")).unwrap());
    let (o, two) = run("two", &["--until", "2"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let sc = read_sidecar(two.join("terrain.json")).unwrap();
    assert_eq!(sc.settings["until"], 2);
    assert_eq!(sc.settings["stages"].as_array().unwrap().len(), 2);
    assert_ne!(std::fs::read(full.join("height.tif")).unwrap(), std::fs::read(two.join("height.tif")).unwrap());
    let (o, bad) = run("bad", &["--until", "99"]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains(&format!("has {stages} stages")),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!bad.exists(), "nothing written");
}

/// `--gpu=require` runs a recipe's fill and thermal stages on the GPU (lavapipe in CI) with the
/// CPU's bytes (both kernels are bit-identical), and the sidecar says where each stage ran.
#[test]
fn gpu_require_runs_fill_and_thermal_with_the_cpu_bytes() {
    if !common::gpu_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let recipe = tmp.path().join("gpu.toml");
    std::fs::write(
        &recipe,
        "format = 1\nname = \"gpu-check\"\nsize = 72\ncell_size = 10.0\nseed = 3\n\n\
         [[stage]]\nop = \"noise\"\nkind = \"fbm\"\nfrequency = 5.0\noctaves = 5\namplitude = 300.0\nmode = \"set\"\n\n\
         [[stage]]\nop = \"fill\"\n\n\
         [[stage]]\nop = \"thermal\"\npreset = \"scree\"\n",
    )
    .unwrap();
    let run = |mode: &str| run_recipe(&recipe, tmp.path(), mode, &[&format!("--gpu={mode}")]);
    let (cpu, cpu_backends) = run("off");
    let (gpu, gpu_backends) = run("require");
    assert!(cpu_backends.contains("fill: cpu") && cpu_backends.contains("thermal: cpu"), "{cpu_backends}");
    assert!(gpu_backends.contains("fill: gpu") && gpu_backends.contains("thermal: gpu"), "{gpu_backends}");
    assert_eq!(cpu.data(), gpu.data());
    // The fill did something: the noise has closed hollows.
    let text = std::fs::read_to_string(&recipe).unwrap();
    let prefix = |until: &str, name: &str| {
        let r = tmp.path().join(format!("{name}.toml"));
        std::fs::write(&r, &text[..text.find(until).unwrap()]).unwrap();
        run_recipe(&r, tmp.path(), name, &[]).0
    };
    let noise = prefix("[[stage]]\nop = \"fill\"", "noise");
    let filled = prefix("[[stage]]\nop = \"thermal\"", "filled");
    let raised = noise.data().iter().zip(filled.data()).filter(|(a, b)| b > a).count();
    assert!(raised > 0, "the fill raised no cell");
}

/// `--gpu=require` runs ds2's stream-power stage (its height uplift map, where the clamps act
/// along rivers) on the GPU; the heights agree with the CPU's within the multi-step tolerance
/// of docs/gpu.md (round-off of another association, which can flip a receiver on an ε-filled
/// flat), and the sidecar names the backend.
#[test]
fn gpu_require_runs_ds2_stream_power_within_tolerance() {
    if !common::gpu_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let ds2 = include_str!("../../recipe/recipes/ds2.toml");
    let text = ds2[..ds2.find("# Droplets").unwrap()].replace("steps = 55", "steps = 12");
    assert!(text.contains("op = \"stream_power\"") && text.contains("steps = 12"));
    let recipe = tmp.path().join("ds2_sp.toml");
    std::fs::write(&recipe, text).unwrap();
    let run = |mode: &str| run_recipe(&recipe, tmp.path(), mode, &["--size", "64", &format!("--gpu={mode}")]);
    let (cpu, _) = run("off");
    let (gpu, backends) = run("require");
    // The analysis's sky view, slope, TPI and D8 drainage ran on the GPU too (the CPU's values).
    assert_eq!(backends, "[\"stream_power: gpu\",\"sky_view: gpu\",\"landform: gpu\",\"drainage: gpu\"]");
    let (lo, hi) = cpu.data().iter().fold((f32::MAX, f32::MIN), |(a, b), &v| (a.min(v), b.max(v)));
    let tol = 1e-6 * (hi - lo);
    let diffs: Vec<f32> = cpu.data().iter().zip(gpu.data()).map(|(a, b)| (a - b).abs()).collect();
    let within = diffs.iter().filter(|&&d| d <= tol).count();
    let max = diffs.iter().cloned().fold(0.0f32, f32::max);
    eprintln!("ds2 stream power 64², 12 steps: {within} of {} within {tol:e} m, max {max:e} m", diffs.len());
    assert!(within as f64 >= 0.95 * diffs.len() as f64, "{within} of {} cells within {tol} m", diffs.len());
    let (sc, sg): (f64, f64) = (cpu.data().iter().map(|&v| v as f64).sum(), gpu.data().iter().map(|&v| v as f64).sum());
    assert!((sc - sg).abs() <= 1e-3 * sc.abs(), "mean heights {sc} and {sg}");
}

/// The share of the grid the largest outlet drains, from the run's summary line.
fn largest_outlet(stdout: &str) -> f64 {
    let line = stdout.lines().find(|l| l.starts_with("largest outlet drains")).expect("summary line");
    line.split_whitespace().nth(3).unwrap().parse().unwrap()
}

#[test]
fn ds2_rivers_drains_into_trunk_rivers_where_ds2_breaks_into_pits() {
    // At 256² (the recipes' 512² gives 0.9 % and 26.7 %): the fine fluvial stage run after the
    // polish carves through the pits the polish leaves in every channel floor.
    let tmp = tempfile::tempdir().unwrap();
    let mut share = Vec::new();
    for r in ["ds2", "ds2-rivers"] {
        let out = tmp.path().join(r);
        let o = bozkir(&["terrain", "--recipe", r, "--size", "256", "--out", out.to_str().unwrap()]);
        assert!(o.status.success(), "{r}: {}", String::from_utf8_lossy(&o.stderr));
        share.push(largest_outlet(&String::from_utf8_lossy(&o.stdout)));
    }
    assert!(share[0] < 5.0, "ds2: largest outlet {} %", share[0]);
    assert!(share[1] >= 10.0, "ds2-rivers: largest outlet {} % (the target is 10 % of land cells)", share[1]);
}

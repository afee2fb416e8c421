//! `bozkir world` end to end through the binary: the registry, a flat world with every view,
//! byte-identical regeneration from `world.json`, and bad input refused before any output.

use bozkir_world::flat::{generate, FlatParams};
use bozkir_world::{Compat, Seed};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

fn bozkir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bozkir")).arg("--quiet").args(args).output().expect("run bozkir")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Every file of a folder (not descending) with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect()
}

#[test]
fn list_names_every_pyworldgen_generator() {
    let o = bozkir(&["world", "list"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let names = ["composite", "flat", "forest", "implicit_cave", "landscape", "roads", "voxels"];
    for name in names {
        assert!(out.lines().any(|l| l.starts_with(name) && l.contains("available")), "{name}:\n{out}");
    }
    // Each with its parameters and defaults on the indented lines that follow it.
    for (name, param) in
        [("implicit_cave", "SPELEO_CLEAR=0.6"), ("voxels", "chunk_size=32"), ("forest", "radius_gamma=2.05")]
    {
        let at = out.lines().position(|l| l.starts_with(name)).unwrap();
        let own: Vec<&str> = out.lines().skip(at + 1).take_while(|l| l.starts_with(' ')).collect();
        assert!(own.iter().any(|l| l.contains(param)), "{name}: {own:?}");
    }
}

#[test]
fn flat_world_end_to_end_and_regenerated_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let o = bozkir(&[
        "world",
        "flat",
        "--seed",
        "rhine",
        "--size",
        "24",
        "--param",
        "undulation_amp=2.5",
        "--param",
        "slope_y=-0.03",
        "--out",
        s(&a),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("world flat seed rhine (pyworldgen): 24×24 cells"), "{}", text(&o.stdout));
    let fa = files(&a);
    for f in [
        "height.tif",
        "height.png",
        "water_depth.tif",
        "colour.png",
        "ground.glb",
        "preview.png",
        "world.json",
        "terrain.json",
    ] {
        assert!(fa.contains_key(f), "{f} missing: {:?}", fa.keys());
    }
    assert!(!fa.contains_key("roads.geojson") && !fa.contains_key("trees.glb"), "a flat world has no roads or trees");
    // Heights are the library's flat terrain, north-up in the files.
    let p = FlatParams { domain_size: [48.0, 48.0], undulation_amp: 2.5, slope_y: -0.03, ..FlatParams::default() };
    let w = generate(&Seed::parse("rhine"), Compat::Pyworldgen, &p).unwrap();
    let (sc, h) = bozkir_pipeline::folder::read_terrain_folder(&a, "a test").unwrap();
    assert_eq!((sc.width, sc.height, sc.dx_m), (24, 24, 2.0));
    assert_eq!(h, w.height_grid());
    assert_eq!(sc.settings["seed"], "rhine");
    assert_eq!(sc.settings["compat"], "pyworldgen");
    assert_eq!(sc.settings["crs"]["type"], "local");
    assert!(sc.settings["seed_mapping"].as_str().unwrap().ends_with(": 41675"));
    let glb = &fa["ground.glb"];
    assert_eq!(&glb[..4], b"glTF");
    assert!(text(glb).contains("COLOR_0"));
    // Regenerated from world.json into another folder: the same bytes, file for file.
    let o = bozkir(&["world", "regen", s(&a.join("world.json")), "--out", s(&b)]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(files(&b), fa);
    // Into the same folder again: unchanged.
    let o = bozkir(&["world", "regen", s(&a.join("world.json")), "--out", s(&a)]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(files(&a), fa);
    // One worker thread: the same bytes (the writers' rayon parts cannot depend on scheduling).
    let d = tmp.path().join("d");
    let o = bozkir(&["--threads", "1", "world", "regen", s(&a.join("world.json")), "--out", s(&d)]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(files(&d), fa);
    // The canonical randomness gives another world from the same seed.
    let c = tmp.path().join("c");
    let o = bozkir(&[
        "world",
        "flat",
        "--seed",
        "rhine",
        "--size",
        "24",
        "--compat",
        "canonical",
        "--param",
        "undulation_amp=2.5",
        "--param",
        "slope_y=-0.03",
        "--out",
        s(&c),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_ne!(files(&c)["height.tif"], fa["height.tif"]);
    assert!(text(&files(&c)["world.json"]).contains("\"compat\": \"canonical\""));
}

#[test]
fn bad_input_is_refused_before_any_output() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("never");
    let spec = tmp.path().join("world.json");
    std::fs::write(&spec, "{\"format\": 1, \"generator\": \"flat\"}").unwrap();
    let missing = tmp.path().join("missing.json");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["world", "desert", "--out", s(&out)], "desert"),
        (vec!["world", "flat", "--param", "tilt=3", "--out", s(&out)], "tilt"),
        (vec!["world", "flat", "--param", "slope_x=NaN", "--out", s(&out)], "slope_x=NaN: must be a finite number"),
        (vec!["world", "flat", "--param", "slope_x=steep", "--out", s(&out)], "slope_x"),
        (vec!["world", "flat", "--param", "resolution=0", "--out", s(&out)], "resolution"),
        (vec!["world", "flat", "--size", "1000000", "--out", s(&out)], "--size must be 2..=8192"),
        (vec!["world", "flat", "--param", "domain_size=[1e7,1e7]", "--out", s(&out)], "domain_size"),
        (vec!["world", "flat", "--size", "8000", "--max-memory", "1", "--out", s(&out)], "--max-memory"),
        (vec!["world", "flat", "--size", "8", "--param", "domain_size=[10,10]", "--out", s(&out)], "give one"),
        (vec!["world", "flat", "--param", "undulation_amp", "--out", s(&out)], "NAME=VALUE"),
        (vec!["world", "forest", "--param", "radius_gamma=-1", "--out", s(&out)], "radius_gamma"),
        (vec!["world", "voxels", "--size", "8", "--out", s(&out)], "--size does not apply"),
        (vec!["world", "voxels", "--param", "chunk_size=12", "--out", s(&out)], "8, 16, 32 or 64"),
        (vec!["world", "voxels", "--chunks", "0,0:1,1", "--out", s(&out)], "expected X0,Y0,Z0:X1,Y1,Z1"),
        (vec!["world", "voxels", "--chunks", "1,0,0:0,0,0", "--out", s(&out)], "chunks_to"),
        (
            vec!["world", "voxels", "--chunks", "0,0,0:1,1,1", "--param", "chunks_to=[2,2,2]", "--out", s(&out)],
            "give one",
        ),
        (vec!["world", "voxels", "--param", "chunks_to=[900,9,900]", "--out", s(&out)], "blocks"),
        (vec!["world", "implicit_cave", "--param", "CORR_R=3", "--out", s(&out)], "stays open"),
        (vec!["world", "implicit_cave", "--param", "resolution=0.001", "--out", s(&out)], "resolution"),
        (vec!["world", "regen", s(&spec), "--out", s(&out)], "world.json"),
        (vec!["world", "regen", s(&missing), "--out", s(&out)], "cannot read"),
    ];
    for (args, want) in cases {
        let o = bozkir(&args);
        let err = text(&o.stderr);
        assert!(!o.status.success(), "{args:?} succeeded");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!out.exists(), "{args:?} left {}", out.display());
    }
}

#[test]
fn landscape_composite_roads_and_roads_on_a_terrain_regenerate_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let runs: [(&str, Vec<&str>, &[&str]); 3] = [
        ("landscape", vec!["--seed", "rhine", "--size", "40"], &["materials.png", "rivers.geojson"]),
        (
            "composite",
            vec!["--seed", "atlas", "--size", "48"],
            &["biome_plains.png", "biome_splat0.png", "dominant.png", "trees.glb", "roads.glb", "road_mask.png"],
        ),
        (
            "roads",
            vec!["--seed", "7", "--size", "32", "--param", "undulation_amp=3"],
            &["roads.geojson", "roads.glb", "bridge_mask.png"],
        ),
    ];
    for (gen, extra, want) in runs {
        let (a, b) = (tmp.path().join(gen), tmp.path().join(format!("{gen}-again")));
        let mut args = vec!["world", gen];
        args.extend(extra);
        args.extend(["--out", s(&a)]);
        let o = bozkir(&args);
        assert!(o.status.success(), "{gen}: {}", text(&o.stderr));
        let fa = files(&a);
        for f in want {
            assert!(fa.contains_key(*f), "{gen}: {f} missing: {:?}", fa.keys());
        }
        let o = bozkir(&["world", "regen", s(&a.join("world.json")), "--out", s(&b)]);
        assert!(o.status.success(), "{gen}: {}", text(&o.stderr));
        assert_eq!(files(&b), fa, "{gen}: regenerated files differ");
    }
    // Roads over a terrain folder, regenerated from its world.json (which names the folder).
    let terr = tmp.path().join("terrain");
    let o = bozkir(&[
        "terrain",
        "--profile",
        "canyon",
        "--size",
        "40",
        "--seed",
        "3",
        "--cell-size",
        "5",
        "--height-range",
        "30",
        "--out",
        s(&terr),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let (a, b) = (tmp.path().join("on"), tmp.path().join("on-again"));
    let o = bozkir(&["world", "roads", "--on", s(&terr), "--seed", "rhine", "--param", "num_hubs=4", "--out", s(&a)]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let fa = files(&a);
    assert!(text(&fa["world.json"]).contains("\"on\""));
    let o = bozkir(&["world", "regen", s(&a.join("world.json")), "--out", s(&b)]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(files(&b), fa);
    let o =
        bozkir(&["world", "roads", "--on", s(&terr), "--param", "undulation_amp=1", "--out", s(&tmp.path().join("x"))]);
    assert!(!o.status.success() && text(&o.stderr).contains("undulation_amp"), "{}", text(&o.stderr));
}

#[test]
fn forest_writes_branches_glb_and_regenerates_byte_for_byte() {
    use bozkir_world::forest::{forest_mesh, generate_forest, ForestMeshParams, ForestParams};
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("forest"), tmp.path().join("forest-again"));
    let o = bozkir(&[
        "world",
        "forest",
        "--seed",
        "002",
        "--param",
        "domain_size=[45,39]",
        "--param",
        "target_tree_count=8",
        "--out",
        s(&a),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let fa = files(&a);
    for f in ["trees.glb", "branches.glb", "ground.glb", "world.json", "terrain.json"] {
        assert!(fa.contains_key(f), "{f} missing: {:?}", fa.keys());
    }
    // The library's forest of the run's world.json, meshed at the default parameters.
    let spec = bozkir_world::product::WorldSpec::from_json(&text(&fa["world.json"])).unwrap();
    let p = ForestParams::from_json(&serde_json::Value::Object(spec.parameters.clone())).unwrap();
    assert_eq!((p.domain_size, p.target_tree_count), ((45.0, 39.0), 8));
    let f = generate_forest(&spec.seed, spec.compat, &p).unwrap();
    assert!(!f.graphs.is_empty());
    let m = forest_mesh(&f, &ForestMeshParams::default()).unwrap();
    // branches.glb parses as glTF: one mesh with POSITION, NORMAL and COLOR_0 of that many vertices.
    let glb = &fa["branches.glb"];
    assert_eq!(&glb[..4], b"glTF");
    assert_eq!(u32::from_le_bytes(glb[8..12].try_into().unwrap()) as usize, glb.len());
    let jlen = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    assert_eq!(&glb[16..20], b"JSON");
    let doc: serde_json::Value = serde_json::from_slice(&glb[20..20 + jlen]).unwrap();
    assert_eq!(doc["asset"]["version"], "2.0");
    let prim = &doc["meshes"][0]["primitives"][0];
    for attr in ["POSITION", "NORMAL", "COLOR_0"] {
        let k = prim["attributes"][attr].as_u64().unwrap_or_else(|| panic!("{attr} missing")) as usize;
        assert_eq!(doc["accessors"][k]["count"], m.vertex_count(), "{attr}");
    }
    let k = prim["indices"].as_u64().unwrap() as usize;
    assert_eq!(doc["accessors"][k]["count"], 3 * m.triangle_count());
    // Listed in the sidecar with the other world files.
    let sc: serde_json::Value = serde_json::from_slice(&fa["terrain.json"]).unwrap();
    let listed = sc["settings"]["world_files"].as_array().unwrap();
    assert!(listed.iter().any(|f| f["path"] == "branches.glb" && f["format"] == "glb"), "{listed:?}");
    // Regenerated from world.json: the same bytes, file for file, on one thread too.
    let o = bozkir(&["world", "regen", s(&a.join("world.json")), "--out", s(&b)]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(files(&b), fa);
    let c = tmp.path().join("forest-one-thread");
    let o = bozkir(&["--threads", "1", "world", "regen", s(&a.join("world.json")), "--out", s(&c)]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(files(&c), fa);
}

#[test]
fn composite_with_a_palette_file_records_it_and_refuses_unknown_keys() {
    let tmp = tempfile::tempdir().unwrap();
    let pal = tmp.path().join("steppe.toml");
    std::fs::write(
        &pal,
        "[[biome]]\nname = \"steppe\"\nprofile = \"plains\"\ncolor = [190, 170, 110]\ntree_density = 0.02\nniche = [0.4, 0.2]\n\n\
         [[biome]]\nname = \"ridge\"\nprofile = \"profile:canyon\"\ncolor = [120, 100, 90]\ntree_density = 0.0\nniche = [0.8, 0.3]\n",
    )
    .unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let o = bozkir(&["world", "composite", "--seed", "atlas", "--size", "40", "--palette", s(&pal), "--out", s(&a)]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let fa = files(&a);
    let spec = text(&fa["world.json"]);
    assert!(spec.contains("\"steppe\"") && spec.contains("profile:canyon"), "{spec}");
    assert!(fa.contains_key("biome_steppe.png") && fa.contains_key("biome_ridge.png"), "{:?}", fa.keys());
    // The palette lives in world.json: regeneration needs no file.
    std::fs::remove_file(&pal).unwrap();
    let o = bozkir(&["world", "regen", s(&a.join("world.json")), "--out", s(&b)]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(files(&b), fa, "regenerated files differ");

    let bad = tmp.path().join("bad.toml");
    std::fs::write(
        &bad,
        "[[biome]]\nname = \"x\"\nprofile = \"plains\"\ncolor = [1, 2, 3]\ntree_density = 0.1\nniche = [0.5, 0.5]\nheight = 3\n",
    )
    .unwrap();
    let out = tmp.path().join("c");
    let o = bozkir(&["world", "composite", "--palette", s(&bad), "--out", s(&out)]);
    let e = text(&o.stderr);
    assert!(!o.status.success() && e.contains("bad.toml") && e.contains("height") && e.contains("line 7"), "{e}");
    assert!(!out.exists(), "nothing written on a refused palette");
    let o = bozkir(&["world", "flat", "--palette", s(&bad), "--out", s(&out)]);
    assert!(!o.status.success() && text(&o.stderr).contains("`composite` only"), "{}", text(&o.stderr));
}

/// Hostile numbers in the generators' own parameters (`--param NAME=VALUE`): never a panic, a
/// hang or a signal; exit 0 only with the world written; nothing left behind on a refusal.
#[test]
fn hostile_parameter_values_are_refused_or_generate() {
    const HOSTILE: [&str; 10] =
        ["0", "-1", "nan", "inf", "-inf", "1e308", "1e-308", "1e20", "18446744073709551616", "4294967297"];
    let params: [(&str, &[&str]); 4] = [
        ("flat", &["resolution", "undulation_amp", "undulation_scale", "slope_x"]),
        ("landscape", &["resolution", "main_river_count", "river_depth", "smoothing_sigma"]),
        ("roads", &["num_hubs", "mask_radius", "max_grade", "curvature_weight"]),
        ("composite", &["num_regions", "blend_softness", "forest_target", "river_threshold_cells"]),
    ];
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut runs = 0;
    for (gen, names) in params {
        for name in names {
            for v in HOSTILE {
                runs += 1;
                let out = tmp.path().join(format!("{gen}-{name}-{runs}"));
                let param = format!("{name}={v}");
                let mut child = Command::new(env!("CARGO_BIN_EXE_bozkir"))
                    .args(["--quiet", "world", gen, "--size", "20", "--param", &param, "--out", s(&out)])
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap();
                let t0 = std::time::Instant::now();
                let status = loop {
                    if let Some(st) = child.try_wait().unwrap() {
                        break Some(st);
                    }
                    if t0.elapsed().as_secs() > 60 {
                        child.kill().unwrap();
                        child.wait().unwrap();
                        break None;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(20));
                };
                let mut err = String::new();
                std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
                let case = format!("world {gen} --param {param}");
                match status {
                    None => failures.push(format!("{case}: hung")),
                    Some(st) if st.code().is_none() => failures.push(format!("{case}: killed by a signal")),
                    Some(st) if st.code() == Some(101) || err.contains("panicked") => {
                        failures.push(format!("{case}: panicked: {err}"))
                    }
                    Some(st) if st.success() => {
                        if !out.join("world.json").is_file() {
                            failures.push(format!("{case}: exit 0 without world.json"));
                        }
                    }
                    Some(_) => {
                        if out.exists() {
                            failures.push(format!("{case}: refused but left {}", out.display()));
                        }
                        if !err.contains(name) && !err.contains("budget") && !err.contains("cells") {
                            failures.push(format!("{case}: message does not name the parameter: {err}"));
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} of {runs} cases failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn voxels_and_implicit_cave_write_their_views_and_regenerate_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    for (gen, params) in [
        (
            "voxels",
            vec!["--param", "chunk_size=16", "--param", "chunks_from=[-1,-1,-1]", "--param", "chunks_to=[0,0,0]"],
        ),
        ("implicit_cave", vec!["--param", "length=24", "--param", "resolution=2"]),
    ] {
        let (a, b) = (tmp.path().join(format!("{gen}_a")), tmp.path().join(format!("{gen}_b")));
        let mut args = vec!["world", gen, "--seed", "12345", "--out", s(&a)];
        args.extend(params.iter().copied());
        let o = bozkir(&args);
        assert!(o.status.success(), "{gen}: {}", text(&o.stderr));
        let fa = files(&a);
        for f in ["blocks.glb", "world.vox", "region.bzr", "preview.png", "world.json", "volume.json"] {
            assert!(fa.get(f).is_some_and(|b| !b.is_empty()), "{gen}: {f} missing");
        }
        assert_eq!(fa.contains_key("smooth.glb"), gen == "implicit_cave");
        assert_eq!(&fa["blocks.glb"][..4], b"glTF");
        assert_eq!(&fa["world.vox"][..4], b"VOX ");
        // The region's chunks decode and hold the blocks of the volume.
        let mut r = bozkir_io::region::RegionReader::open(a.join("region.bzr")).unwrap();
        let coords: Vec<(i32, i32, i32)> = r.coords().collect();
        assert!(!coords.is_empty());
        for c in coords {
            let bytes = r.read(c).unwrap().unwrap();
            let chunk = bozkir_voxel::codec::decode_chunk(&bytes).unwrap();
            assert_eq!((chunk.coord.x, chunk.coord.y, chunk.coord.z), c);
        }
        let o = bozkir(&["--threads", "1", "world", "regen", s(&a.join("world.json")), "--out", s(&b)]);
        assert!(o.status.success(), "{gen} regen: {}", text(&o.stderr));
        assert_eq!(files(&b), fa, "{gen}: regenerated files differ");
        // A second run into the same folder replaces its own files.
        let o = bozkir(&args);
        assert!(o.status.success(), "{gen} again: {}", text(&o.stderr));
    }
}

#[test]
fn voxels_on_a_terrain_folder_follow_its_ground_and_regenerate() {
    let tmp = tempfile::tempdir().unwrap();
    let (ground, a, b) = (tmp.path().join("ground"), tmp.path().join("a"), tmp.path().join("b"));
    let o = bozkir(&[
        "world",
        "flat",
        "--seed",
        "3",
        "--size",
        "40",
        "--param",
        "resolution=2",
        "--param",
        "slope_x=0.25",
        "--param",
        "undulation_amp=3",
        "--out",
        s(&ground),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let args = [
        "world",
        "voxels",
        "--seed",
        "9",
        "--on",
        s(&ground),
        "--param",
        "block_size=2",
        "--param",
        "chunk_size=16",
        "--chunks",
        "0,0,0:2,1,2",
        "--out",
        s(&a),
    ];
    let o = bozkir(&args);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let spec = std::fs::read_to_string(a.join("world.json")).unwrap();
    assert!(spec.contains("\"on\"") && spec.contains("\"block_size\": 2.0"), "{spec}");
    // The ground rises eastward (slope 0.25 over 80 m: about 10 blocks of 2 m).
    let info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(a.join("volume.json")).unwrap()).unwrap();
    assert_eq!(info["dims"], serde_json::json!([48, 32, 48]));
    assert_eq!(info["block_size_m"], 2.0);
    let o = bozkir(&["world", "regen", s(&a.join("world.json")), "--out", s(&b)]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(files(&b), files(&a));
    // A real DEM (SRTM, 3″) in 30 m blocks; a bad block size is refused, nothing written.
    let dem = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/dem/srtm_ref.tif");
    let d = tmp.path().join("dem");
    let o = bozkir(&[
        "world",
        "voxels",
        "--on",
        dem,
        "--param",
        "block_size=30",
        "--chunks",
        "0,0,0:1,1,1",
        "--out",
        s(&d),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("64×64×64 blocks"), "{}", text(&o.stdout));
    let never = tmp.path().join("never");
    let o = bozkir(&["world", "voxels", "--on", dem, "--param", "block_size=0", "--out", s(&never)]);
    assert!(!o.status.success() && text(&o.stderr).contains("block_size"), "{}", text(&o.stderr));
    assert!(!never.exists());
}

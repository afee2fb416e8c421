//! End-to-end tests of `bozkir bake` on a small generated terrain.

use std::path::Path;
use std::process::{Command, Output};

fn bozkir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bozkir")).arg("--quiet").args(args).output().expect("run bozkir")
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

fn png_size(path: &Path) -> (u32, u32) {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n", "{}", path.display());
    let be = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    assert_eq!(b[25], 2, "{}: RGB", path.display());
    (be(16), be(20))
}

fn terrain(tmp: &Path) -> std::path::PathBuf {
    let t = tmp.join("t");
    let o = bozkir(&["terrain", "--size", "33", "--seed", "5", "--out", t.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    t
}

#[test]
fn bake_writes_textures_and_lists_them() {
    let tmp = tempfile::tempdir().unwrap();
    let t = terrain(tmp.path());
    let o = bozkir(&["bake", t.to_str().unwrap(), "--scale", "2"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // scale·n texels per side, texel centres over the grid's extent.
    assert_eq!(png_size(&t.join("albedo.png")), (66, 66));
    assert_eq!(png_size(&t.join("normal.png")), (66, 66));
    assert!(!listing(&t).iter().any(|f| f.starts_with(".bozkir-staging")));
    let sc = bozkir_io::read_sidecar(t.join("terrain.json")).unwrap();
    assert!(sc.files.iter().any(|f| f.path == "albedo.png" && f.role == "albedo"));
    assert!(sc.files.iter().any(|f| f.path == "normal.png" && f.role == "micro_normal"));
    assert!(sc.files.iter().any(|f| f.path == "height.tif"), "earlier entries kept");
    // Surface water: rivers where the accumulation reaches the river start (no lakes in a
    // generated, filled terrain), the depth rule of `river_depth`, dry elsewhere.
    assert!(sc.files.iter().any(|f| f.path == "water.tif" && f.role == "surface_water_depth_m"));
    let water = bozkir_io::read_tiff_f32(t.join("water.tif")).unwrap();
    let acc = bozkir_io::read_tiff_f32(t.join("accumulation.tif")).unwrap();
    let start = bozkir_pipeline::bake::river_start_cells(33 * 33);
    let mut rivers = 0;
    for (w, a) in water.data().iter().zip(acc.data()) {
        let want = bozkir_pipeline::bake::river_depth(f64::from(*a), start);
        assert!((f64::from(*w) - want).abs() < 1e-5, "depth {w} for {a} cells drained");
        rivers += usize::from(*w > 0.0);
    }
    assert!(rivers > 10, "{rivers} river cells");
    // The rivers as lines at the texture's size (rivers.png: red coverage, green depth / 3 m),
    // covering the river cells' centres; no lakes in a filled terrain, so no lakes.tif.
    assert!(sc.files.iter().any(|f| f.path == "rivers.png" && f.role == "river_lines"));
    assert_eq!(png_size(&t.join("rivers.png")), (66, 66));
    assert!(!t.join("lakes.tif").exists());
    let lines = bozkir_io::read_photo(t.join("rivers.png")).unwrap();
    let mut on = 0;
    for (i, w) in water.data().iter().enumerate() {
        if *w > 0.0 {
            // Texel (ox, oy) lies at cell ((ox + ½)·32/66, (oy + ½)·32/66): the texel nearest
            // the cell's centre.
            let (c, r) = (i % 33, i / 33);
            let (ox, oy) =
                ((c as f64 * 66.0 / 32.0 - 0.5).round() as usize, (r as f64 * 66.0 / 32.0 - 0.5).round() as usize);
            let px = lines.get(ox.min(65), oy.min(65));
            on += usize::from(px[0] > 0.3 && px[1] > 0.0);
        }
    }
    assert!(on * 10 >= rivers * 8, "{on} of {rivers} river cells under a line");

    // Baking again replaces the entries; a separate --out gets just the textures, identical.
    let o = bozkir(&["bake", t.to_str().unwrap(), "--scale", "2"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let sc = bozkir_io::read_sidecar(t.join("terrain.json")).unwrap();
    assert_eq!(sc.files.iter().filter(|f| f.path == "albedo.png").count(), 1);
    let out = tmp.path().join("tex");
    let o = bozkir(&["bake", t.to_str().unwrap(), "--scale", "1", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The textures and the manifest of what bozkir wrote there (issue 20: a folder without a
    // terrain.json sidecar lists its outputs in `.bozkir-manifest.json`).
    assert_eq!(
        listing(&out),
        [".bozkir-manifest.json", "albedo.png", "materials.png", "normal.png", "rivers.png", "water.tif"]
    );
    assert_eq!(png_size(&out.join("albedo.png")), (33, 33));
}

#[test]
fn bake_refuses_bad_input_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let t = terrain(tmp.path());
    let before = listing(&t);

    let o = bozkir(&["bake", t.to_str().unwrap(), "--scale", "5"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--scale 5"));

    let out = tmp.path().join("out");
    std::fs::remove_file(t.join("height.tif")).unwrap();
    let o = bozkir(&["bake", t.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("height.tif") && err.contains("no such file"), "{err}");
    assert!(!out.exists(), "nothing written");

    std::fs::write(t.join("height.tif"), b"not a tiff").unwrap();
    let o = bozkir(&["bake", t.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("height.tif"));
    assert_eq!(listing(&t), before, "nothing written into the terrain directory");
}

fn data(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/textures").join(name).to_str().unwrap().to_string()
}

#[test]
fn bake_lays_photos_over_materials_and_records_them() {
    let tmp = tempfile::tempdir().unwrap();
    let t = terrain(tmp.path());
    let (plain, photo) = (tmp.path().join("plain"), tmp.path().join("photo"));
    let o = bozkir(&["bake", t.to_str().unwrap(), "--out", plain.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let grass = format!("grass={}", data("grass.png"));
    let rock = format!("rock={}", data("gravel.png"));
    for out in [&photo, &t] {
        let o = bozkir(&[
            "bake",
            t.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--texture",
            &grass,
            "--texture",
            &rock,
            "--tiling",
            "two-sample",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let a = bozkir_io::read_rgb8(plain.join("albedo.png")).unwrap();
    let b = bozkir_io::read_rgb8(photo.join("albedo.png")).unwrap();
    let differ = a.data().iter().zip(b.data()).filter(|(x, y)| x != y).count();
    assert!(differ * 2 > a.data().len(), "the photos changed {differ} of {} texels", a.data().len());
    // Into the terrain folder: the sidecar records the photos and the mode.
    let sc: serde_json::Value = serde_json::from_slice(&std::fs::read(t.join("terrain.json")).unwrap()).unwrap();
    let bt = &sc["settings"]["bake_textures"];
    assert_eq!(bt["tiling"], "two-sample");
    assert!(bt["textures"]["grass"].as_str().unwrap().ends_with("grass.png"), "{bt}");
    assert!(bt["scale_m"].as_f64().unwrap() > 0.0);
}

#[test]
fn bake_refuses_bad_textures_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let t = terrain(tmp.path());
    let before = listing(&t);
    let palette = tmp.path().join("palette.png");
    {
        let f = std::fs::File::create(&palette).unwrap();
        let mut e = png::Encoder::new(f, 1, 1);
        e.set_color(png::ColorType::Indexed);
        e.set_palette(vec![1u8, 2, 3]);
        e.write_header().unwrap().write_image_data(&[0]).unwrap();
    }
    let grass = format!("grass={}", data("grass.png"));
    let cases: [(Vec<String>, &str); 7] = [
        (vec!["--texture".into(), "lava=x.png".into()], "no such material"),
        (vec!["--texture".into(), "grass".into()], "MATERIAL=PNG"),
        (vec!["--texture".into(), grass.clone(), "--texture".into(), grass.clone()], "two textures"),
        (vec!["--texture".into(), grass.clone(), "--tiling".into(), "hexagons".into()], "no such mode"),
        (vec!["--texture".into(), "grass=/no/such/photo.png".into()], "no such file"),
        (vec!["--texture".into(), format!("snow={}", palette.display())], "palette"),
        (vec!["--texture-strength".into(), "1.5".into()], "texture strength"),
    ];
    for (extra, want) in cases {
        let out = tmp.path().join("out");
        let mut args =
            vec!["bake".to_string(), t.to_str().unwrap().into(), "--out".into(), out.to_str().unwrap().into()];
        args.extend(extra.iter().cloned());
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = bozkir(&refs);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{extra:?} was accepted");
        assert!(err.contains(want), "{extra:?}: {err}");
        assert!(!out.exists() || listing(&out).is_empty(), "{extra:?}: wrote {:?}", listing(&out));
    }
    assert_eq!(listing(&t), before);
}

fn dem_data(p: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/dem").join(p)
}

#[test]
fn albedo_from_an_orthophoto_is_laid_by_its_georeference() {
    let tmp = tempfile::tempdir().unwrap();
    let r = tmp.path().join("rmnp");
    let (dem, rgb) = (dem_data("rmnp-dem.tif"), dem_data("rmnp-rgb.tif"));
    let o = bozkir(&["analyze", dem.to_str().unwrap(), "--out", r.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = bozkir(&["bake", r.to_str().unwrap(), "--scale", "1", "--albedo-from", rgb.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("% of the texels"), "{out}");
    let sc = bozkir_io::read_sidecar(r.join("terrain.json")).unwrap();
    let covered = sc.settings["bake_albedo_from"]["covered"].as_f64().unwrap();
    assert!(covered > 0.995, "covered {covered}");
    let albedo = bozkir_io::read_photo(r.join("albedo.png")).unwrap();
    assert_eq!((albedo.width(), albedo.height()), (152, 187));
    let ortho = bozkir_io::read_geotiff_rgb(&rgb).unwrap();
    // Both geotransforms as gdalinfo reports them (not bozkir's reader): texel → degrees →
    // image pixel, bilinear where the four corners hold data.
    let mut checked = 0;
    for k in 0..400usize {
        let (ox, oy) = ((k * 37) % 152, (k * 53) % 187);
        let gx = (ox as f64 + 0.5) * 151.0 / 152.0;
        let gy = (oy as f64 + 0.5) * 186.0 / 187.0;
        let lon = -105.9125 + (gx + 0.5) * 0.00275;
        let lat = 40.553678069620155 - (gy + 0.5) * 0.00211;
        let c = (lon + 106.056_600_560_355_6) / 0.0015 - 0.5;
        let r = (40.619_681_535_764_29 - lat) / 0.0015 - 0.5;
        let (c0, r0) = (c.floor() as usize, r.floor() as usize);
        let corners = [(c0, r0), (c0 + 1, r0), (c0, r0 + 1), (c0 + 1, r0 + 1)];
        if corners.iter().any(|&(a, b)| !*ortho.valid.get(a, b)) {
            continue;
        }
        let (tx, ty) = (c - c0 as f64, r - r0 as f64);
        let px = |a: usize, b: usize| ortho.rgb.get(a, b).map(f64::from);
        let want: [f64; 3] = std::array::from_fn(|q| {
            (px(c0, r0)[q] * (1.0 - tx) + px(c0 + 1, r0)[q] * tx) * (1.0 - ty)
                + (px(c0, r0 + 1)[q] * (1.0 - tx) + px(c0 + 1, r0 + 1)[q] * tx) * ty
        });
        let got = albedo.get(ox, oy);
        for q in 0..3 {
            assert!(
                (got[q] - want[q]).abs() <= 0.6 / 255.0,
                "texel ({ox}, {oy}) channel {q}: {} vs {}",
                got[q],
                want[q]
            );
        }
        checked += 1;
    }
    assert!(checked > 350, "{checked} texels checked");
}

#[test]
fn albedo_from_refuses_what_cannot_be_placed_and_keeps_the_old_albedo() {
    let tmp = tempfile::tempdir().unwrap();
    let t = terrain(tmp.path());
    let o = bozkir(&["bake", t.to_str().unwrap()]);
    assert!(o.status.success());
    let before = std::fs::read(t.join("albedo.png")).unwrap();
    let rgb = dem_data("rmnp-rgb.tif");
    let fails = |args: &[&str], want: &str| {
        let o = bozkir(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains(want), "{args:?}: {err}");
        assert_eq!(std::fs::read(t.join("albedo.png")).unwrap(), before, "{args:?}: the albedo is untouched");
    };
    let ts = t.to_str().unwrap();
    // A generated terrain stands in a local metre frame, the orthophoto in degrees.
    fails(
        &["bake", ts, "--albedo-from", rgb.to_str().unwrap()],
        "(EPSG:4326 (geographic)) is not the terrain's (a projected CRS without an EPSG code (a local frame))",
    );
    fails(&["bake", ts, "--albedo-from", "/no/such.tif"], "/no/such.tif: no such file");
    // A DEM is not an RGB image: named.
    let g = tmp.path().join("g");
    let o = bozkir(&[
        "terrain",
        "--size",
        "33",
        "--seed",
        "5",
        "--crs",
        "EPSG:32613",
        "--origin",
        "440000,4470000",
        "--out",
        g.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let srtm = dem_data("srtm_ref.tif");
    let o = bozkir(&["bake", g.to_str().unwrap(), "--albedo-from", srtm.to_str().unwrap()]);
    assert!(
        !o.status.success() && String::from_utf8_lossy(&o.stderr).contains("srtm_ref.tif"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // The orthophoto is in degrees, the terrain in UTM metres: refused, not misplaced.
    let o = bozkir(&["bake", g.to_str().unwrap(), "--albedo-from", rgb.to_str().unwrap()]);
    assert!(
        !o.status.success() && String::from_utf8_lossy(&o.stderr).contains("is not the terrain's"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

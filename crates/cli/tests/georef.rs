//! Georeferencing kept end to end (issue 24, scope 1): every GeoTIFF of a folder carries the
//! folder's CRS, transform and NaN no-data; inputs' georeferences survive `analyze`/`erode`,
//! crops move the transform and are recorded; generated terrains take `--crs`/`--origin`.
//! Checked with our own GeoTIFF reader and, where installed (always in CI), with GDAL.

use bozkir_io::{read_geotiff, read_sidecar, CrsKind, GeoTransform};
use std::path::Path;
use std::process::{Command, Output};
#[path = "../../io/tests/common/gdal.rs"]
mod gdal;
use gdal::gdalinfo;

fn bozkir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bozkir")).arg("--quiet").args(args).output().expect("run bozkir")
}

fn ok(o: &Output) {
    assert!(o.status.success(), "bozkir failed: {}", String::from_utf8_lossy(&o.stderr));
}

fn data(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data").join(rel)
}

/// Every `.tif` of `dir` with the georeference read back by our reader.
fn tiffs(dir: &Path) -> Vec<(String, bozkir_io::Dem)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tif"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), read_geotiff(&p).unwrap()))
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn generated_terrain_takes_crs_and_origin_in_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    ok(&bozkir(&[
        "terrain",
        "--size",
        "32",
        "--crs",
        "EPSG:32633",
        "--origin",
        "500000,4400000",
        "--out",
        out.to_str().unwrap(),
    ]));
    let want = GeoTransform { x0: 500_000.0, y0: 4_400_000.0 + 32.0 * 10.0, sx: 10.0, sy: 10.0 };
    let files = tiffs(&out);
    // height, sediment, slope, tpi, accumulation, watersheds: all of them, the same placement.
    assert!(files.len() >= 6, "{:?}", files.iter().map(|f| &f.0).collect::<Vec<_>>());
    for (name, dem) in &files {
        assert_eq!(dem.crs_kind, CrsKind::Projected { epsg: Some(32633) }, "{name}");
        assert_eq!(dem.georef, Some(want), "{name}");
        assert_eq!((dem.heights.dx, dem.heights.dy), (10.0, 10.0), "{name}");
        assert!(dem.nodata.is_some_and(f64::is_nan), "{name}");
    }
    let sc = read_sidecar(out.join("terrain.json")).unwrap();
    let g = sc.georef.expect("sidecar georef");
    assert_eq!(g.crs, "EPSG:32633");
    assert_eq!(g.transform, [500_000.0, 10.0, 0.0, 4_400_320.0, 0.0, -10.0]);
    assert_eq!(g.crop_offset, None);
    if let Some(j) = gdalinfo(&out.join("accumulation.tif")) {
        let gt: Vec<f64> = j["geoTransform"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        assert_eq!(gt, vec![500_000.0, 10.0, 0.0, 4_400_320.0, 0.0, -10.0]);
        let wkt = j["coordinateSystem"]["wkt"].as_str().unwrap();
        assert!(wkt.contains("UTM zone 33N") && wkt.contains("\"EPSG\",32633"), "{wkt}");
        assert!(
            j["bands"][0]["noDataValue"].as_str().is_some_and(|s| s.eq_ignore_ascii_case("nan")),
            "{}",
            j["bands"][0]
        );
        // A round trip through gdal_translate (tiled, DEFLATE with a float predictor) reads
        // back the same samples and placement.
        let copy = dir.path().join("copy.tif");
        let o = Command::new("gdal_translate")
            .args(["-q", "-co", "TILED=YES", "-co", "COMPRESS=DEFLATE", "-co", "PREDICTOR=3"])
            .arg(out.join("height.tif"))
            .arg(&copy)
            .output()
            .expect("gdal_translate");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let (a, b) = (read_geotiff(out.join("height.tif")).unwrap(), read_geotiff(&copy).unwrap());
        assert_eq!((a.crs_kind, a.georef), (b.crs_kind, b.georef));
        assert!(a.heights.data().iter().zip(b.heights.data()).all(|(x, y)| x.to_bits() == y.to_bits()));
    }
}

#[test]
fn default_terrain_is_in_a_local_metre_frame() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    ok(&bozkir(&["terrain", "--size", "16", "--cell-size", "2.5", "--out", out.to_str().unwrap()]));
    for (name, dem) in tiffs(&out) {
        assert_eq!(dem.crs_kind, CrsKind::Projected { epsg: None }, "{name}");
        assert_eq!(dem.georef, Some(GeoTransform { x0: 0.0, y0: 40.0, sx: 2.5, sy: 2.5 }), "{name}");
    }
    assert_eq!(read_sidecar(out.join("terrain.json")).unwrap().georef.unwrap().crs, "local");
    if let Some(j) = gdalinfo(&out.join("height.tif")) {
        let wkt = j["coordinateSystem"]["wkt"].as_str().unwrap_or("");
        assert!(wkt.contains("metre"), "{wkt}");
    }
}

#[test]
fn analyze_keeps_the_inputs_crs_and_moves_the_transform_to_the_crop() {
    let src = read_geotiff(data("dem/rmnp-dem.tif")).unwrap();
    let geo = src.output_georef().expect("the RMNP DEM is georeferenced");
    let dir = tempfile::tempdir().unwrap();
    // Whole: the outputs carry the input's CRS and transform.
    let whole = dir.path().join("whole");
    ok(&bozkir(&["analyze", data("dem/rmnp-dem.tif").to_str().unwrap(), "--out", whole.to_str().unwrap()]));
    for (name, dem) in tiffs(&whole) {
        assert_eq!(dem.crs_kind, src.crs_kind, "{name}");
        assert_eq!(dem.georef, Some(geo.transform), "{name}");
    }
    // A void in the top-left corner: the kept window starts below or right of it, and the
    // outputs' transform is the input's moved to that window.
    let (w, h) = (src.heights.width(), src.heights.height());
    let mut g = src.heights.map(|&v| v as f32);
    for y in 0..6 {
        for x in 0..w / 2 {
            *g.get_mut(x, y) = f32::NAN;
        }
    }
    let holed = dir.path().join("holed.tif");
    bozkir_io::write_geotiff_f32(&holed, &g, &geo).unwrap();
    let out = dir.path().join("holed_out");
    let o = bozkir(&["analyze", holed.to_str().unwrap(), "--out", out.to_str().unwrap(), "--crop", "largest-valid"]);
    ok(&o);
    let sc = read_sidecar(out.join("terrain.json")).unwrap();
    let crop = sc.georef.as_ref().unwrap().crop_offset.expect("crop offset recorded");
    assert!(crop == [0, 6] || crop[0] >= w / 2, "{crop:?} in {w}×{h}");
    let moved = geo.window(crop[0], crop[1]).transform;
    for (name, dem) in tiffs(&out) {
        assert_eq!(dem.georef, Some(moved), "{name}");
    }
    let t = sc.georef.unwrap().transform;
    assert!(close(t[0], moved.x0) && close(t[3], moved.y0), "{t:?} vs {moved:?}");
    if let Some(j) = gdalinfo(&out.join("dem.tif")) {
        let gt: Vec<f64> = j["geoTransform"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        assert!(close(gt[0], moved.x0) && close(gt[3], moved.y0) && close(gt[1], moved.sx), "{gt:?}");
    }
}

/// A geographic tile with voids (SRTM with a 20 × 20 hole and a no-data strip along its lowest
/// rows, as a Copernicus tile with voids): by default every output overlays the input to the
/// pixel, voids stay no data in place, and every valid cell is analysed; `--fill-voids` fills
/// them smoothly.
#[test]
fn voids_stay_in_place_and_every_valid_cell_is_analysed() {
    let src = read_geotiff(data("dem/srtm_ref.tif")).unwrap();
    let geo = src.output_georef().expect("the SRTM tile is georeferenced");
    let (w, h) = (src.heights.width(), src.heights.height());
    let mut g = src.heights.map(|&v| v as f32);
    for y in 30..50 {
        for x in 40..60 {
            *g.get_mut(x, y) = f32::NAN;
        }
    }
    for y in h - 5..h {
        for x in 0..w {
            *g.get_mut(x, y) = f32::NAN;
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let holed = dir.path().join("holed.tif");
    bozkir_io::write_geotiff_f32(&holed, &g, &geo).unwrap();
    let voids = g.data().iter().filter(|v| v.is_nan()).count();
    let out = dir.path().join("kept");
    let o = bozkir(&["analyze", holed.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    ok(&o);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains(&format!("kept {voids} void cells")), "{text}");
    let sc = read_sidecar(out.join("terrain.json")).unwrap();
    assert_eq!((sc.width, sc.height), (w, h), "no crop");
    assert_eq!(sc.georef.as_ref().unwrap().crop_offset, None);
    for (name, dem) in tiffs(&out) {
        assert_eq!(dem.crs_kind, src.crs_kind, "{name}");
        assert_eq!(dem.georef, Some(geo.transform), "{name}");
        assert_eq!((dem.heights.width(), dem.heights.height()), (w, h), "{name}");
        // Voids are no data in every raster; every valid cell has a value (read raw: the DEM
        // reader takes values outside Earth's heights, such as large accumulations, as invalid).
        let raw = bozkir_io::read_tiff_f32(out.join(&name)).unwrap();
        for (i, (v, o)) in raw.data().iter().zip(g.data()).enumerate() {
            assert_eq!(v.is_nan(), o.is_nan(), "{name}: cell {i} ({v} over {o})");
        }
    }
    if let Some(j) = gdalinfo(&out.join("slope.tif")) {
        let gt: Vec<f64> = j["geoTransform"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        let t = geo.transform;
        assert!(close(gt[0], t.x0) && close(gt[3], t.y0) && close(gt[1], t.sx) && close(gt[5], -t.sy), "{gt:?}");
        assert_eq!(j["size"], serde_json::json!([w, h]));
        assert!(
            j["bands"][0]["noDataValue"].as_str().is_some_and(|s| s.eq_ignore_ascii_case("nan")),
            "{}",
            j["bands"][0]
        );
    }
    // Filled: no void left, the valid cells unchanged, the fill within the surrounding heights.
    let filled = dir.path().join("filled");
    ok(&bozkir(&["analyze", holed.to_str().unwrap(), "--out", filled.to_str().unwrap(), "--fill-voids"]));
    let dem = read_geotiff(filled.join("dem.tif")).unwrap();
    let (lo, hi) = g.min_max().unwrap();
    for (v, o) in dem.heights.data().iter().zip(g.data()) {
        assert!(v.is_finite() && *v >= f64::from(lo) - 1e-3 && *v <= f64::from(hi) + 1e-3);
        if !o.is_nan() {
            assert_eq!(*v as f32, *o);
        }
    }
    // Both at once, or an unknown crop, are refused before anything is written.
    for bad in [&["--fill-voids", "--crop", "largest-valid"][..], &["--crop", "biggest"][..]] {
        let never = dir.path().join("never");
        let mut a = vec!["analyze", holed.to_str().unwrap(), "--out", never.to_str().unwrap()];
        a.extend_from_slice(bad);
        let o = bozkir(&a);
        assert!(!o.status.success() && !never.exists(), "{bad:?}");
    }
    // erode needs a complete surface: refused with the way out named.
    let never = dir.path().join("never");
    let o = bozkir(&["erode", holed.to_str().unwrap(), "--out", never.to_str().unwrap(), "--steps", "2"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("--fill-voids") && !never.exists(), "{err}");
}

/// `--outputs` with the hydrology extras and `--cog`: only the maps asked for are written, every
/// GeoTIFF is a tiled COG with the input's placement, and the stream vectors open in GDAL's
/// vector reader with the input's CRS and one feature per segment.
#[test]
fn outputs_lists_hydrology_extras_and_cogs() {
    let src = read_geotiff(data("dem/rmnp-dem.tif")).unwrap();
    let geo = src.output_georef().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("extras");
    let dem = data("dem/rmnp-dem.tif");
    let o = bozkir(&[
        "analyze",
        dem.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--outputs",
        "hand,twi,dinf,mfd,vectors",
        "--cog",
    ]);
    ok(&o);
    let mut names: Vec<String> = tiffs(&out).into_iter().map(|(n, _)| n).collect();
    names.sort();
    assert_eq!(names, ["dem.tif", "dinf_acc.tif", "dinf_angle.tif", "hand.tif", "mfd_acc.tif", "twi.tif"]);
    assert!(!out.join("slope.png").exists() && !out.join("sky_view.png").exists() && !out.join("preview.png").exists());
    for (name, d) in tiffs(&out) {
        assert_eq!(d.georef, Some(geo.transform), "{name}");
    }
    let text = std::fs::read_to_string(out.join("streams.geojson")).unwrap();
    let j: serde_json::Value = serde_json::from_str(&text).unwrap();
    let features = j["features"].as_array().unwrap();
    assert!(features.len() > 10, "{} segments", features.len());
    let orders: Vec<u64> = features.iter().map(|f| f["properties"]["order"].as_u64().unwrap()).collect();
    assert!(orders.contains(&1) && orders.iter().max().unwrap() >= &2);
    // Every vertex lies inside the DEM's footprint.
    let (w, h) = (src.heights.width() as f64, src.heights.height() as f64);
    let t = geo.transform;
    for f in features {
        for p in f["geometry"]["coordinates"].as_array().unwrap() {
            let (x, y) = (p[0].as_f64().unwrap(), p[1].as_f64().unwrap());
            assert!(x > t.x0 && x < t.x0 + w * t.sx && y < t.y0 && y > t.y0 - h * t.sy, "({x}, {y})");
        }
    }
    let sc = read_sidecar(out.join("terrain.json")).unwrap();
    assert!(sc.files.iter().any(|f| f.path == "streams.geojson"));
    if let Some(j) = gdalinfo(&out.join("hand.tif")) {
        assert_eq!(j["bands"][0]["block"], serde_json::json!([512, 512]), "{}", j["bands"][0]);
        assert_eq!(j["metadata"]["IMAGE_STRUCTURE"]["COMPRESSION"], "DEFLATE");
        let ov = j["bands"][0]["overviews"].as_array().map_or(0, |v| v.len());
        assert!(ov >= 1 || src.heights.width().max(src.heights.height()) <= 512, "overviews: {ov}");
        let o = Command::new("ogrinfo").args(["-so", "-al"]).arg(out.join("streams.geojson")).output().unwrap();
        let info = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "ogrinfo: {}", String::from_utf8_lossy(&o.stderr));
        assert!(info.contains(&format!("Feature Count: {}", features.len())), "{info}");
        let epsg = match geo.crs {
            bozkir_io::Crs::Epsg { code, .. } => code,
            other => panic!("RMNP CRS {other:?}"),
        };
        assert!(info.contains(&format!("\"EPSG\",{epsg}]]")) || info.contains(&format!("EPSG:{epsg}")), "{info}");
    }
    // Unknown or empty lists, and `filled` outside analyze, are refused before anything is written.
    for (cmd, list, want) in [
        ("analyze", "slope,hillshade", "hillshade"),
        ("analyze", ",", "empty"),
        ("erode", "filled", "only `bozkir analyze`"),
    ] {
        let never = dir.path().join("never");
        let o = bozkir(&[cmd, dem.to_str().unwrap(), "--out", never.to_str().unwrap(), "--outputs", list]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains(want) && !never.exists(), "{cmd} {list}: {err}");
    }
    // erode's default: the heights, its own layers and the preview, nothing more.
    let er = dir.path().join("eroded");
    ok(&bozkir(&["erode", dem.to_str().unwrap(), "--out", er.to_str().unwrap(), "--steps", "3"]));
    let mut files: Vec<String> =
        read_sidecar(er.join("terrain.json")).unwrap().files.into_iter().map(|f| f.path).collect();
    files.sort();
    assert_eq!(
        files,
        [
            "eroded.tif",
            "height.png",
            "height.r16",
            "height.rg16.png",
            "height.tif",
            "preview.png",
            "sediment.tif",
            "sediment_mask.png",
            "wear.png"
        ]
    );
}

#[test]
fn bad_placement_options_are_refused_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    for (args, want) in [
        (&["--crs", "EPSG:4326"][..], "geographic"),
        (&["--crs", "UTM33"][..], "not a CRS"),
        (&["--crs", "EPSG:99999"][..], "outside"),
        (&["--origin", "1,2,3"][..], "X,Y"),
        (&["--origin", "nan,0"][..], "finite"),
        (&["--origin", "0,-inf"][..], "finite"),
    ] {
        let out = dir.path().join("never");
        let mut a = vec!["terrain", "--size", "8", "--out", out.to_str().unwrap()];
        a.extend_from_slice(args);
        let o = bozkir(&a);
        assert!(!o.status.success(), "{args:?} accepted");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!out.exists(), "{args:?}: wrote {}", out.display());
    }
}

#[test]
fn export_takes_an_analyze_folder() {
    let dir = tempfile::tempdir().unwrap();
    let an = dir.path().join("an");
    ok(&bozkir(&["analyze", data("dem/rmnp-dem.tif").to_str().unwrap(), "--out", an.to_str().unwrap()]));
    let out = dir.path().join("unity");
    let o = bozkir(&["export", an.to_str().unwrap(), "--engine", "unity", "--out", out.to_str().unwrap()]);
    ok(&o);
    assert!(std::fs::read_dir(&out).unwrap().count() > 0);
    // A sidecar whose height file leaves the folder is refused, naming the sidecar.
    let side = an.join("terrain.json");
    let text = std::fs::read_to_string(&side).unwrap().replacen("\"dem.tif\"", "\"../dem.tif\"", 1);
    std::fs::write(&side, text).unwrap();
    let o = bozkir(&[
        "export",
        an.to_str().unwrap(),
        "--engine",
        "unity",
        "--out",
        dir.path().join("u2").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a plain path"), "{}", String::from_utf8_lossy(&o.stderr));
}

/// `--ocean auto` on a georeferenced DEM: the sea along the west border (below 0 m, touching
/// the border) is left unfilled and counted, a closed basin below 0 m inland is filled; the
/// flag needs an EPSG CRS, excludes `--sea-level`, and finding no ocean is a note.
#[test]
fn ocean_auto_takes_the_border_connected_sea_and_fills_inland_basins() {
    let (w, h) = (32usize, 24usize);
    let sea = |x: usize| x < 8;
    let basin = |x: usize, y: usize| (18..22).contains(&x) && (10..14).contains(&y);
    let g = bozkir_core::Grid::from_fn(w, h, |x, y| {
        if sea(x) {
            -30.0 + 2.0 * x as f32 - if (x, y) == (3, 12) { 5.0 } else { 0.0 }
        } else if basin(x, y) {
            -12.0
        } else {
            3.0 * (x as f32 - 7.0) + 0.5 * (y % 3) as f32
        }
    });
    let geo = bozkir_io::GeoRef {
        crs: bozkir_io::Crs::Epsg { code: 32633, geographic: false },
        transform: GeoTransform { x0: 500_000.0, y0: 4_400_240.0, sx: 10.0, sy: 10.0 },
    };
    let dir = tempfile::tempdir().unwrap();
    let coast = dir.path().join("coast.tif");
    bozkir_io::write_geotiff_f32(&coast, &g, &geo).unwrap();
    let out = dir.path().join("ocean");
    let o = bozkir(&["analyze", coast.to_str().unwrap(), "--out", out.to_str().unwrap(), "--ocean", "auto"]);
    ok(&o);
    let ocean = 8 * h;
    let text = String::from_utf8_lossy(&o.stdout);
    let share = 100.0 * ocean as f64 / (w * h) as f64;
    assert!(text.contains(&format!("ocean                  {share:.2} % of cells ({ocean} cells")), "{text}");
    let sc = read_sidecar(out.join("terrain.json")).unwrap();
    assert_eq!(sc.settings["ocean"], "auto");
    assert_eq!(sc.settings["ocean_cells"], ocean as u64);
    let filled = bozkir_io::read_tiff_f32(out.join("filled.tif")).unwrap();
    let lakes = bozkir_io::read_tiff_f32(out.join("lake_depth.tif")).unwrap();
    for y in 0..h {
        for x in 0..w {
            if sea(x) {
                assert_eq!(filled.get(x, y), g.get(x, y), "sea ({x}, {y}) unfilled");
                assert_eq!(*lakes.get(x, y), 0.0);
            } else if basin(x, y) {
                assert!(*filled.get(x, y) >= 0.0 && *lakes.get(x, y) >= 12.0, "basin ({x}, {y}) filled");
            }
        }
    }
    // `--sea-level` and `--ocean` exclude each other; without an EPSG CRS `--ocean auto` is
    // refused with the way out named; both before anything is written.
    let plain = dir.path().join("plain.tif");
    bozkir_io::write_tiff_f32(&plain, &g.clone().with_cell_size(10.0, 10.0)).unwrap();
    for (input, extra, want) in
        [(&coast, &["--sea-level", "0"][..], "cannot be used with"), (&plain, &[][..], "--sea-level H")]
    {
        let never = dir.path().join("never");
        let mut a = vec!["analyze", input.to_str().unwrap(), "--out", never.to_str().unwrap(), "--ocean", "auto"];
        a.extend_from_slice(extra);
        let o = bozkir(&a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains(want), "{extra:?}: {err}");
        assert!(!never.exists(), "{extra:?}");
    }
    // Land only (the basin inland): a note, and the run goes on.
    let land = dir.path().join("land.tif");
    bozkir_io::write_geotiff_f32(&land, &g.map(|&v| if v < -12.5 { 40.0 } else { v }), &geo).unwrap();
    let out = dir.path().join("land");
    let o = bozkir(&["analyze", land.to_str().unwrap(), "--out", out.to_str().unwrap(), "--ocean", "auto"]);
    ok(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--ocean auto: no ocean found (no cell below 0 m connected to the border)"), "{err}");
    assert_eq!(read_sidecar(out.join("terrain.json")).unwrap().settings["ocean_cells"], 0);
}

/// A DEM whose CRS has no EPSG code (GDAL-written, a user-defined Lambert Conformal Conic; a
/// geographic CRS on its own ellipsoid): `analyze` carries its GeoKeys into every GeoTIFF, GDAL
/// reads the input's CRS from the outputs, and the sidecar names it by its citation.
#[test]
fn analyze_carries_a_crs_without_epsg_code() {
    let dir = tempfile::tempdir().unwrap();
    for (file, name) in [
        ("lcc_custom_i16.tif", "Anatolia custom LCC"),
        ("geog_custom_ellps_i16_point.tif", "Custom ellipsoid geographic"),
    ] {
        let dem = Path::new(env!("CARGO_MANIFEST_DIR")).join("../io/tests/data/geotiff").join(file);
        let src = read_geotiff(&dem).unwrap();
        let geo = src.output_georef().unwrap();
        assert!(matches!(geo.crs, bozkir_io::Crs::Keys(_)), "{file}: {:?}", geo.crs);
        let out = dir.path().join(file);
        ok(&bozkir(&["analyze", dem.to_str().unwrap(), "--out", out.to_str().unwrap()]));
        let files = tiffs(&out);
        assert!(files.iter().any(|f| f.0 == "dem.tif") && files.iter().any(|f| f.0 == "slope.tif"), "{file}");
        for (n, d) in &files {
            assert_eq!(d.output_georef().as_ref(), Some(&geo), "{file}: {n}");
            assert_eq!(d.crs_kind, src.crs_kind, "{file}: {n}");
        }
        let sc = read_sidecar(out.join("terrain.json")).unwrap();
        assert_eq!(sc.georef.unwrap().crs, name, "{file}");
        let Some(wkt_in) = gdal::gdal_wkt(&dem) else { return };
        assert!(!wkt_in.is_empty() && !wkt_in.contains("\"EPSG\",32767"), "{wkt_in}");
        for n in ["dem.tif", "slope.tif"] {
            assert_eq!(gdal::gdal_wkt(&out.join(n)).unwrap(), wkt_in, "{file}: {n}");
            assert_eq!(gdal::gdal_transform(&out.join(n)), gdal::gdal_transform(&dem), "{file}: {n}");
        }
    }
}

#[test]
fn netcdf_and_zarr_inputs_overlay_their_source_in_gdal() {
    // NetCDF-4, classic and a packed projected grid with a void, and the two Zarr stores: every
    // GeoTIFF of `analyze` carries the transform and CRS GDAL reads from the NetCDF source, and
    // the same statistics over the valid cells (GDAL 3.6 reads Zarr v2 south-up and not v3, so
    // the Zarr folders are compared with the NetCDF one instead).
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str| {
        let out = dir.path().join(name);
        ok(&bozkir(&[
            "analyze",
            data(&format!("dem/gridded/{name}")).to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]));
        out
    };
    let nc4 = run("jacksboro_nc4.nc");
    for other in ["jacksboro_classic.nc", "jacksboro_v2.zarr", "jacksboro_v3.zarr"] {
        let out = run(other);
        // Every GeoTIFF the same to the byte (the sidecars differ by the source's name).
        let names: Vec<String> = tiffs(&nc4).into_iter().map(|(n, _)| n).collect();
        assert!(names.len() >= 6, "{names:?}");
        for n in &names {
            let same = std::fs::read(nc4.join(n)).unwrap() == std::fs::read(out.join(n)).unwrap();
            assert!(same, "{other}: {n} differs from the NetCDF-4 run's");
        }
    }
    let packed = run("packed_utm.nc");
    let expect = [(&nc4, "jacksboro_nc4.nc", 4326), (&packed, "packed_utm.nc", 32616)];
    for (out, name, epsg) in expect {
        for (n, d) in tiffs(out) {
            assert!(d.georef.is_some(), "{name}: {n}");
            let code = match d.crs_kind {
                CrsKind::Geographic { epsg, .. } | CrsKind::Projected { epsg } => epsg,
                CrsKind::Unknown => None,
            };
            assert_eq!(code, Some(epsg), "{name}: {n}");
        }
        // GDAL on a copy of the input (its statistics go into an .aux.xml beside the file).
        let src = dir.path().join(format!("copy-{name}"));
        std::fs::copy(data(&format!("dem/gridded/{name}")), &src).unwrap();
        let Some(_) = gdalinfo(&src) else { return };
        let stats = |p: &Path| -> (Vec<f64>, [f64; 3]) {
            let o = Command::new("gdalinfo").args(["-json", "-stats"]).arg(p).output().expect("gdalinfo");
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            let t = j["geoTransform"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
            let b = &j["bands"][0];
            // GDAL's statistics are of the stored values; a packed band carries its unpacking.
            let (k, o) = (b["scale"].as_f64().unwrap_or(1.0), b["offset"].as_f64().unwrap_or(0.0));
            let v = |key: &str| b[key].as_f64().unwrap() * k + o;
            (t, [v("minimum"), v("maximum"), v("mean")])
        };
        let (t_in, s_in) = stats(&src);
        let dem_copy = dir.path().join(format!("dem-of-{name}.tif"));
        std::fs::copy(out.join("dem.tif"), &dem_copy).unwrap();
        let (t_out, s_out) = stats(&dem_copy);
        assert_eq!(t_out, t_in, "{name}: the output's transform is the input's, to the bit");
        for k in 0..3 {
            assert!((s_out[k] - s_in[k]).abs() <= 1e-6 * s_in[k].abs().max(1.0), "{name}: {s_out:?} vs {s_in:?}");
        }
        let wkt = gdal::gdal_wkt(&dem_copy).unwrap();
        assert!(wkt.contains(&format!("ID[\"EPSG\",{epsg}]")), "{name}: {wkt}");
    }
}

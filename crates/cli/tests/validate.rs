//! `bozkir validate-rule` end to end: real rasters and point clouds, the report's shape, the
//! κ = 1 identity through the library, and bad input that must fail without writing anything.

use bozkir_material::validate::{evaluate, EvalOptions};
use bozkir_material::{classify, Balance, ClassifyOptions, Rule};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};
use tiff::encoder::{colortype, TiffEncoder};
use tiff::tags::Tag;

fn bozkir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bozkir")).arg("--quiet").args(args).output().expect("run bozkir")
}

fn data(rel: &str) -> String {
    format!("{}/../../data/{rel}", env!("CARGO_MANIFEST_DIR"))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Run, expect success, and return the parsed validation.json.
fn run_ok(args: &[&str], out: &Path) -> Value {
    let mut all: Vec<&str> = vec!["validate-rule"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--out", out.to_str().unwrap()]);
    let o = bozkir(&all);
    assert!(o.status.success(), "{all:?}: {}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("κ columns"), "{text}");
    serde_json::from_str(&std::fs::read_to_string(out.join("validation.json")).unwrap()).unwrap()
}

/// The shape every report has, and per scored truth: the rule's share and the truth labels'
/// share are the true share to within one cell (1/n²). Returns the scored truth names per grid.
fn check_report(v: &Value, grids: &[usize], out: &Path) -> Vec<Vec<String>> {
    for k in ["x_min", "y_min", "x_max", "y_max", "side_m", "plane_r2"] {
        assert!(v["window"][k].is_number(), "window.{k}: {}", v["window"]);
    }
    assert!(v["window"]["side_m"].as_f64().unwrap() > 0.0);
    assert!(v["caveats"].as_array().is_some_and(|c| !c.is_empty()));
    assert_eq!(v["settings"]["altitude"], 0.4);
    let mut scored = Vec::new();
    for &n in grids {
        assert!(out.join(format!("figure_{n}.png")).exists(), "figure_{n}.png");
        let g = &v["grids"][n.to_string()];
        assert!(g["caveats"].is_array(), "grid {n}");
        let mut names = Vec::new();
        for (name, t) in g["truths"].as_object().unwrap() {
            let share = t["share"].as_f64().unwrap();
            let cell = 1.0 / (n * n) as f64;
            if t["comparisons"].is_null() {
                continue;
            }
            names.push(name.clone());
            assert!((t["rule_share"].as_f64().unwrap() - share).abs() <= cell + 1e-12, "{name} grid {n}: {t}");
            assert!((t["label_share"].as_f64().unwrap() - share).abs() <= cell + 1e-12, "{name} grid {n}");
            let c = t["comparisons"].as_object().unwrap();
            for cmp in [
                "rule",
                "rule, no altitude",
                "rule, flipped",
                "low ground",
                "drainage",
                "hollows (low TPI)",
                "gentle slope",
            ] {
                let s = &c[cmp];
                for k in ["share", "accuracy", "kappa", "iou", "spearman", "null_mean", "null_p95", "p"] {
                    assert!(s[k].is_number(), "{name} grid {n} {cmp}.{k}");
                }
                assert_eq!(s["share"].as_f64().unwrap(), share);
                let (k, p) = (s["kappa"].as_f64().unwrap(), s["p"].as_f64().unwrap());
                assert!((-1.0..=1.0).contains(&k) && p > 0.0 && p <= 1.0, "{name} {cmp}: κ {k} p {p}");
            }
        }
        scored.push(names);
    }
    scored
}

#[test]
fn rmnp_dtm_and_orthophoto() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("rmnp");
    let v =
        run_ok(&["--dtm", &data("dem/rmnp-dem.tif"), "--ortho", &data("dem/rmnp-rgb.tif"), "--grids", "8,12"], &out);
    let scored = check_report(&v, &[8, 12], &out);
    assert_eq!(scored, vec![vec!["colour".to_string()]; 2]);
    // The window lies inside both rasters (degrees, EPSG:4326).
    let w = &v["window"];
    let (x0, x1) = (w["x_min"].as_f64().unwrap(), w["x_max"].as_f64().unwrap());
    let (y0, y1) = (w["y_min"].as_f64().unwrap(), w["y_max"].as_f64().unwrap());
    assert!(x0 >= -105.9125 - 1e-9 && x1 <= -105.4945 + 1e-9 && y0 >= 40.159 && y1 <= 40.5537, "{w}");
    assert_eq!(v["input"]["mode"], "rasters");
    // Overridden colours are recorded.
    let out2 = tmp.path().join("rmnp2");
    let v2 = run_ok(
        &[
            "--dtm",
            &data("dem/rmnp-dem.tif"),
            "--ortho",
            &data("dem/rmnp-rgb.tif"),
            "--grids",
            "8",
            "--veg-rgb",
            "0.2,0.3,0.2",
            "--bare-rgb",
            "0.6,0.6,0.6",
        ],
        &out2,
    );
    assert_eq!(v2["settings"]["veg_rgb"], serde_json::json!([0.2, 0.3, 0.2]));
}

#[test]
fn classified_las_and_laz() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("las");
    let v = run_ok(&["--las", &data("lidar/file_with_both_wkt_and_geotiff_vlrs.las"), "--grids", "8,16"], &out);
    let scored = check_report(&v, &[8, 16], &out);
    // No RGB in point format 6: class and height truths only.
    assert_eq!(scored[0], vec!["class".to_string(), "height".to_string()]);
    // US survey feet converted to metres: the plot is about 12 m across, not 40.
    let side = v["window"]["side_m"].as_f64().unwrap();
    assert!((10.0..14.0).contains(&side), "{side}");
    assert_eq!(v["input"]["units_from_file"], true);

    let out = tmp.path().join("laz");
    let v = run_ok(&["--las", &data("lidar/autzen_trim.laz"), "--grids", "8"], &out);
    let scored = check_report(&v, &[8], &out);
    // Autzen has ground (2) and unclassified (1) only: the class truth has no contrast.
    assert!(v["grids"]["8"]["truths"]["class"]["comparisons"].is_null());
    assert_eq!(v["grids"]["8"]["truths"]["class"]["share"], 0.0);
    assert_eq!(scored[0], vec!["colour".to_string(), "height".to_string()]);
    assert_eq!(v["input"]["compressed"], true);
    assert_eq!(v["input"]["points"], 110_000);
}

#[test]
fn a_truth_that_is_the_rules_own_decision_scores_kappa_one() {
    // Rolling ground on the (4n)² sample grid; the truth is the rule's decision at share 0.3.
    let n = 16;
    let m = 4 * n;
    let z: Vec<f64> = (0..m * m)
        .map(|i| {
            let (x, y) = ((i % m) as f64 / m as f64, (i / m) as f64 / m as f64);
            40.0 * ((x * 6.0).sin() * (y * 4.5).cos() + 0.5 * (x * 2.0 - y * 3.0).sin())
        })
        .collect();
    let rule = Rule::builtin();
    let o = EvalOptions { spacing: 50.0, ..EvalOptions::default() };
    let opts = ClassifyOptions {
        classes: 2,
        spacing: o.spacing,
        radius: None,
        sharpness: o.sharpness,
        altitude: o.altitude,
        coherence: o.coherence,
        balance: Balance::Share(0.3),
    };
    let d = classify(&z, n, None, &rule, &opts).unwrap();
    let frac: Vec<f64> = d.class.iter().map(|&c| if c == 0 { 1.0 } else { 0.0 }).collect();
    let res = evaluate(&z, n, &frac, &rule, &o).unwrap();
    let rule_score = &res[0].1;
    assert_eq!(res[0].0, "rule");
    assert_eq!(rule_score.kappa, 1.0);
    assert_eq!(rule_score.accuracy, 1.0);
    assert!(rule_score.p < 0.01 && rule_score.null_p95 < 1.0, "{rule_score:?}");
    // The flipped rule (the other class collecting) disagrees with it.
    assert!(res[2].1.kappa < 0.0, "{:?}", res[2].1);
}

/// An RGB GeoTIFF of `w × h` pixels of one colour at `(x0, y0)`, EPSG:4326, 0.01° pixels.
fn write_ortho(path: &Path, w: u32, h: u32, x0: f64, y0: f64, rgba: Option<u8>) {
    let mut enc = TiffEncoder::new(std::fs::File::create(path).unwrap()).unwrap();
    let keys: [u16; 12] = [1, 1, 0, 2, 1024, 0, 1, 2, 2048, 0, 1, 4326];
    macro_rules! tags {
        ($img:expr) => {
            $img.encoder().write_tag(Tag::ModelPixelScaleTag, &[0.01f64, 0.01, 0.0][..]).unwrap();
            $img.encoder().write_tag(Tag::ModelTiepointTag, &[0.0f64, 0.0, 0.0, x0, y0, 0.0][..]).unwrap();
            $img.encoder().write_tag(Tag::GeoKeyDirectoryTag, &keys[..]).unwrap();
        };
    }
    match rgba {
        None => {
            let mut img = enc.new_image::<colortype::RGB8>(w, h).unwrap();
            tags!(img);
            img.write_data(&vec![90u8; (w * h * 3) as usize]).unwrap();
        }
        Some(a) => {
            let mut img = enc.new_image::<colortype::RGBA8>(w, h).unwrap();
            tags!(img);
            let px: Vec<u8> = (0..w * h).flat_map(|_| [90u8, 90, 90, a]).collect();
            img.write_data(&px).unwrap();
        }
    }
}

#[test]
fn bad_input_fails_with_the_problem_named_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("never");
    let o_ = out.to_str().unwrap();
    let dtm = data("dem/rmnp-dem.tif");
    let rgb = data("dem/rmnp-rgb.tif");
    let srtm = data("dem/srtm_ref.tif");
    let laz = data("lidar/autzen_trim.laz");
    let far = tmp.path().join("far.tif");
    write_ortho(&far, 20, 20, 30.0, 10.0, None);
    let clear = tmp.path().join("clear.tif");
    write_ortho(&clear, 60, 60, -106.0, 40.6, Some(0));
    let missing = tmp.path().join("missing.tif");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--dtm", missing.to_str().unwrap(), "--ortho", &rgb], "no such file"),
        (vec!["--dtm", &dtm, "--ortho", far.to_str().unwrap()], "do not overlap"),
        // Another continent's DEM: overlapping nothing.
        (vec!["--dtm", &srtm, "--ortho", &rgb], "do not overlap"),
        // An orthophoto that is transparent everywhere has no valid pixel.
        (vec!["--dtm", &dtm, "--ortho", clear.to_str().unwrap()], "nodata or invalid"),
        (vec!["--dtm", &dtm, "--ortho", &rgb, "--grids", "100"], "smaller than the grid"),
        (vec!["--dtm", &dtm, "--ortho", &rgb, "--grids", "2"], "outside 4..=256"),
        (vec!["--dtm", &dtm], "needs both --dtm and --ortho"),
        (vec!["--dtm", &dtm, "--ortho", &rgb, "--las", &laz], "not both"),
        (vec![], "nothing to validate"),
        (vec!["--dtm", &dtm, "--ortho", &rgb, "--veg-rgb", "0.1,0.2"], "three numbers"),
        (vec!["--dtm", &dtm, "--ortho", &rgb, "--altitude", "1.5"], "altitude"),
        (vec!["--dtm", &dtm, "--ortho", &rgb, "--bogus"], "--bogus"),
        (vec!["--las", &dtm], "not a LAS"),
        (vec!["--las", &laz, "--grids", "200"], "smaller than the grid"),
    ];
    for (args, needle) in cases {
        let mut all = vec!["validate-rule"];
        all.extend_from_slice(&args);
        all.extend_from_slice(&["--out", o_]);
        let o = bozkir(&all);
        assert!(!o.status.success(), "{all:?} should fail");
        let e = stderr(&o);
        assert!(e.contains(needle), "{all:?}: message {e:?} should mention {needle:?}");
        assert!(!out.exists(), "{all:?} left {}", out.display());
    }
}

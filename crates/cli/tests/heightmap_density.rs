//! `bozkir heightmap` on a sparse real survey (issue 24): Autzen thinned to about 0.2 points per
//! square metre is gridded from its point spacing with most cells holding a point and no
//! warning; a forced too-fine `--cell-size` warns and names a cell size that would do; the new
//! flags refuse hostile values without a panic or a leftover folder.

use bozkir_io::{read_las, read_sidecar, read_tiff_f32, write_las, LasLayout};
use std::path::{Path, PathBuf};
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

/// Autzen (`data/lidar/autzen_trim.laz`, in feet) keeping every k-th point, k chosen for
/// about 0.2 points/m² over its bounding box; the thinned file and its density.
fn thinned(dir: &Path) -> (PathBuf, f64) {
    let src = format!("{}/../../data/lidar/autzen_trim.laz", env!("CARGO_MANIFEST_DIR"));
    let las = read_las(&src).unwrap();
    let unit = las.horizontal_unit_m.unwrap_or(1.0);
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for p in &las.xyz {
        for a in 0..2 {
            lo[a] = lo[a].min(p[a]);
            hi[a] = hi[a].max(p[a]);
        }
    }
    let area_m2 = (hi[0] - lo[0]) * (hi[1] - lo[1]) * unit * unit;
    let k = ((las.xyz.len() as f64 / area_m2) / 0.2).round().max(1.0) as usize;
    // Written in metres (no GeoKeys: read as metres).
    let xyz: Vec<[f64; 3]> = las.xyz.iter().step_by(k).map(|p| p.map(|v| v * unit)).collect();
    let class: Vec<u8> = las.classification.iter().step_by(k).copied().collect();
    let layout =
        LasLayout { point_format: 1, scale: [0.01; 3], offset: [(lo[0] * unit).floor(), (lo[1] * unit).floor(), 0.0] };
    let p = dir.join("autzen_thin.las");
    write_las(&p, &xyz, &class, &layout).unwrap();
    (p, xyz.len() as f64 / area_m2)
}

#[test]
fn a_thinned_survey_is_gridded_from_its_spacing_without_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let (las, density) = thinned(tmp.path());
    assert!((0.15..0.25).contains(&density), "{density} points/m²");
    let out = tmp.path().join("hm");
    let o = bozkir(&["heightmap", s(&las), "--out", s(&out)]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let (stdout, stderr) = (text(&o.stdout), text(&o.stderr));
    assert!(!stderr.contains("warning"), "{stderr}");
    assert!(stdout.contains("from the point spacing") && stdout.contains("hold a point"), "{stdout}");
    let sc = read_sidecar(out.join("terrain.json")).unwrap();
    let share = sc.settings["occupied_share"].as_f64().unwrap();
    assert!(share >= 0.5, "{share}");
    assert_eq!(sc.settings["cell_size_from"], "from the point spacing");
    let h = read_tiff_f32(out.join("height.tif")).unwrap();
    assert!(h.data().iter().all(|v| v.is_finite()));
    // Heights stay within the survey's z range (406.26..520.51 ft, 123.83..158.65 m): IDW
    // never overshoots.
    let (lo, hi) = h.min_max().unwrap();
    assert!(lo >= 123.82 && hi <= 158.66, "{lo}..{hi}");
    // The same survey at a quarter of the default cell: warned, with a cell size that reaches it.
    let cell = sc.dx_m / 4.0;
    let fine = tmp.path().join("fine");
    let o = bozkir(&["heightmap", s(&las), "--out", s(&fine), "--cell-size", &cell.to_string()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let stderr = text(&o.stderr);
    assert!(stderr.contains("warning: only") && stderr.contains("would reach 50 %"), "{stderr}");
    let share = read_sidecar(fine.join("terrain.json")).unwrap().settings["occupied_share"].as_f64().unwrap();
    assert!(share < 0.5, "{share}");
    // --size and --cell-size together are refused and leave nothing.
    let both = tmp.path().join("both");
    let o = bozkir(&["heightmap", s(&las), "--out", s(&both), "--size", "64", "--cell-size", "10"]);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("--size and --cell-size"), "{}", text(&o.stderr));
    assert!(!both.exists());
}

#[test]
fn classes_pick_the_ground_of_the_survey() {
    let tmp = tempfile::tempdir().unwrap();
    let (las, _) = thinned(tmp.path());
    let pts = read_las(&las).unwrap();
    let ground = pts.classification.iter().filter(|&&c| c == 2).count();
    let out = tmp.path().join("g");
    let o = bozkir(&["heightmap", s(&las), "--out", s(&out), "--classes", "2"]);
    if ground == 0 {
        assert!(!o.status.success());
        assert!(text(&o.stderr).contains("classes found"), "{}", text(&o.stderr));
        return;
    }
    assert!(o.status.success(), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    assert!(stdout.contains(&format!("{ground} of {} points", pts.xyz.len())), "{stdout}");
    assert_eq!(read_sidecar(out.join("terrain.json")).unwrap().settings["classes"], serde_json::json!([2]));
    // A class the file does not hold: refused, naming the classes it holds.
    let none = tmp.path().join("n");
    let o = bozkir(&["heightmap", s(&las), "--out", s(&none), "--classes", "17"]);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("classes found: "), "{}", text(&o.stderr));
    assert!(!none.exists());
}

#[test]
fn hostile_cell_sizes_and_classes_on_a_cloud_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (las, _) = thinned(tmp.path());
    let hostile = ["0", "-1", "nan", "inf", "-inf", "1e308", "1e-308", "1e20", "18446744073709551616", "4294967297"];
    for flag in ["--cell-size", "--classes"] {
        for v in hostile {
            let out = tmp.path().join("o");
            let o = bozkir(&["heightmap", s(&las), "--out", s(&out), &format!("{flag}={v}")]);
            let e = text(&o.stderr);
            assert!(!o.status.success(), "{flag}={v} accepted");
            assert!(o.status.code().is_some_and(|c| c != 101) && !e.contains("panicked"), "{flag}={v}: {e}");
            assert!(!out.exists(), "{flag}={v} left its folder");
        }
    }
}

/// Autzen's coordinates are feet (its GeoKeys say 0.3048 m): the cells and heights come out
/// in metres, with a note, not feet labelled metres.
#[test]
fn a_survey_in_feet_is_gridded_in_metres() {
    let tmp = tempfile::tempdir().unwrap();
    let src = format!("{}/../../data/lidar/autzen_trim.laz", env!("CARGO_MANIFEST_DIR"));
    let ft = read_las(&src).unwrap().horizontal_unit_m.unwrap();
    assert_eq!(ft, 0.3048);
    let out = tmp.path().join("hm");
    let o = bozkir(&["heightmap", &src, "--out", s(&out)]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("converted to metres"), "{}", text(&o.stderr));
    // Mean spacing 2.18 ft = 0.666 m; 1.5 spacings = 0.999 m, tidied up to 1 m cells.
    let sc = read_sidecar(out.join("terrain.json")).unwrap();
    assert_eq!((sc.dx_m, sc.dy_m), (1.0, 1.0));
    let spacing = sc.settings["point_spacing_m"].as_f64().unwrap();
    assert!((spacing - 2.184 * ft).abs() < 2e-3, "{spacing}");
    let h = read_tiff_f32(out.join("height.tif")).unwrap();
    let (lo, hi) = h.min_max().unwrap();
    assert!((123.8..130.0).contains(&lo) && (145.0..158.66).contains(&hi), "{lo}..{hi}");
    // --cell-size is metres too: 3 m cells over the same ground give about a ninth of the cells.
    let coarse = tmp.path().join("coarse");
    assert!(bozkir(&["heightmap", &src, "--out", s(&coarse), "--cell-size", "3"]).status.success());
    let c = read_tiff_f32(coarse.join("height.tif")).unwrap();
    let ratio = h.len() as f64 / c.len() as f64;
    assert!((8.0..10.0).contains(&ratio), "{ratio}");
}

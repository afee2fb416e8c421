//! `bozkir antitile` end to end on the bundled grass photo: the repetition each mode leaves,
//! the contrast each keeps, and hostile requests.

use std::path::Path;
use std::process::{Command, Output};

fn bozkir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bozkir")).arg("--quiet").args(args).output().expect("run bozkir")
}

fn grass() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/textures/grass.png").to_str().unwrap().to_string()
}

#[test]
fn every_mode_breaks_the_period_except_plain() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("a");
    let o = bozkir(&["antitile", &grass(), "--out", out.to_str().unwrap(), "--size", "256", "--repeats", "4"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("antitile.json")).unwrap()).unwrap();
    let modes = j["modes"].as_array().unwrap();
    let get = |name: &str, key: &str| {
        modes.iter().find(|m| m["mode"] == name).unwrap_or_else(|| panic!("{name} missing"))[key].as_f64().unwrap()
    };
    let plain = get("plain", "repetition");
    assert!(plain > 0.8, "plain repeats: {plain}");
    for m in ["hex-linear", "hex-vp", "hex-mikkelsen", "two-sample"] {
        let r = get(m, "repetition");
        assert!(r <= 0.5 * plain, "{m}: repetition {r} against plain {plain}");
        assert!(out.join(format!("{m}.png")).is_file());
    }
    // The variance-preserving blend keeps the photo's contrast; the linear one loses about
    // 1 − √½ of it (the mean of Σwᵢ² over a triangle is ½).
    let (vp, lin) = (get("hex-vp", "contrast"), get("hex-linear", "contrast"));
    assert!((0.93..1.07).contains(&vp), "hex-vp contrast {vp}");
    assert!((0.64..0.78).contains(&lin), "hex-linear contrast {lin}");
    assert_eq!(modes.iter().map(|m| m["fetches"].as_u64().unwrap()).collect::<Vec<_>>(), [1, 3, 3, 3, 2]);
    let sheet = bozkir_io::read_rgb8(out.join("sheet.png")).unwrap();
    assert!(sheet.width() > 5 * 256 && sheet.height() > 256);
    // Deterministic: the same request gives the same bytes.
    let again = tmp.path().join("b");
    let o = bozkir(&["antitile", &grass(), "--out", again.to_str().unwrap(), "--size", "256", "--repeats", "4"]);
    assert!(o.status.success());
    for f in ["hex-vp.png", "two-sample.png", "antitile.json"] {
        let (a, b) = (std::fs::read(out.join(f)).unwrap(), std::fs::read(again.join(f)).unwrap());
        if f.ends_with(".json") {
            let (a, b) = (String::from_utf8(a).unwrap(), String::from_utf8(b).unwrap());
            assert_eq!(a.replace(out.to_str().unwrap(), ""), b.replace(again.to_str().unwrap(), ""));
        } else {
            assert_eq!(a, b, "{f}");
        }
    }
}

#[test]
fn hostile_requests_are_refused_and_write_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("a");
    let o = out.to_str().unwrap();
    let g = grass();
    let cases: [(Vec<&str>, &str); 5] = [
        (vec!["antitile", &g, "--out", o, "--modes", "plain,hexagons"], "not a mode"),
        (vec!["antitile", &g, "--out", o, "--size", "100", "--repeats", "8"], "multiple of --repeats"),
        (vec!["antitile", "/no/such.png", "--out", o], "no such file"),
        (vec!["antitile", &g, "--out", o, "--hex-size", "nan"], "--hex-size"),
        (vec!["antitile", &g, "--out", o, "--repeats", "1"], "--repeats 1"),
    ];
    for (args, want) in cases {
        let r = bozkir(&args);
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(!r.status.success(), "{args:?} accepted");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!out.exists(), "{args:?} wrote {}", out.display());
    }
    // Not a PNG: the file is named.
    let bad = tmp.path().join("bad.png");
    std::fs::write(&bad, b"JFIF not a png").unwrap();
    let r = bozkir(&["antitile", bad.to_str().unwrap(), "--out", o]);
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("bad.png"));
    assert!(!out.exists() || std::fs::read_dir(&out).unwrap().next().is_none());
}

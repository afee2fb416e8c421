//! `bozkir render`, `bozkir points`, `bozkir world … --views` and `bozkir gallery` through the
//! binary: images decodable and the right size, turntables with their frames, clouds with their
//! counts, byte-identical output on any thread count, bad input refused with nothing written.

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

fn ok(o: &Output) {
    assert!(o.status.success(), "failed: {}{}", text(&o.stdout), text(&o.stderr));
}

/// A terrain folder of 32² cells.
fn terrain(dir: &Path) -> std::path::PathBuf {
    let t = dir.join("t");
    ok(&bozkir(&["terrain", "--profile", "alpine", "--seed", "2", "--size", "32", "--out", s(&t)]));
    t
}

fn png_size(p: &Path) -> (u32, u32) {
    let d = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(p).unwrap()));
    let r = d.read_info().unwrap();
    (r.info().width, r.info().height)
}

#[test]
fn stills_turntables_and_numbered_frames() {
    let dir = tempfile::tempdir().unwrap();
    let t = terrain(dir.path());
    let still = dir.path().join("still.png");
    ok(&bozkir(&["render", s(&t), "--out", s(&still), "--size", "200x120"]));
    assert_eq!(png_size(&still), (200, 120));
    // The same bytes on one thread and on three.
    let one = dir.path().join("one.png");
    ok(&bozkir(&["--threads", "1", "render", s(&t), "--out", s(&one), "--size", "200x120"]));
    let three = dir.path().join("three.png");
    ok(&bozkir(&["--threads", "3", "render", s(&t), "--out", s(&three), "--size", "200x120"]));
    assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&three).unwrap());
    assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&still).unwrap());
    // A turntable GIF with its frames and delay.
    let gif = dir.path().join("spin.gif");
    ok(&bozkir(&["render", s(&t), "--out", s(&gif), "--turntable", "5", "--size", "64x40", "--fps", "10"]));
    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::RGBA);
    let mut dec = opts.read_info(std::fs::File::open(&gif).unwrap()).unwrap();
    let mut n = 0;
    let mut firsts = Vec::new();
    while let Some(f) = dec.read_next_frame().unwrap() {
        assert_eq!((f.width, f.height, f.delay), (64, 40, 10));
        firsts.push(f.buffer.to_vec());
        n += 1;
    }
    assert_eq!(n, 5);
    assert_ne!(firsts[0], firsts[1], "the frames turn");
    // PPM frames are numbered beside the name.
    let ppm = dir.path().join("f.ppm");
    ok(&bozkir(&["render", s(&t), "--out", s(&ppm), "--turntable", "3", "--size", "16x8"]));
    for i in 0..3 {
        let b = std::fs::read(dir.path().join(format!("f_{i:04}.ppm"))).unwrap();
        assert!(b.starts_with(b"P6\n16 8\n255\n") && b.len() == 12 + 16 * 8 * 3);
    }
    assert!(!ppm.exists());
}

#[test]
fn points_from_a_terrain_and_from_a_cloud() {
    let dir = tempfile::tempdir().unwrap();
    let t = terrain(dir.path());
    let ply = dir.path().join("p.ply");
    ok(&bozkir(&["points", s(&t), "--count", "4000", "--fps", "500", "--out", s(&ply)]));
    let c = match bozkir_io::scene::read_geometry(&ply).unwrap() {
        bozkir_io::scene::Geometry::Cloud(c) => c,
        _ => panic!("not a cloud"),
    };
    assert_eq!(c.positions.len(), 500);
    assert!(c.normals.is_some() && c.colours.is_some());
    // The cloud is a scene too: 200 of its 500 points as text, and a picture of it.
    let xyz = dir.path().join("p.xyz");
    ok(&bozkir(&["points", s(&ply), "--count", "200", "--out", s(&xyz)]));
    assert_eq!(std::fs::read_to_string(&xyz).unwrap().lines().count(), 200);
    let img = dir.path().join("p.png");
    ok(&bozkir(&["render", s(&ply), "--out", s(&img), "--size", "96x64", "--shading", "normal"]));
    assert_eq!(png_size(&img), (96, 64));
}

#[test]
fn bad_input_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let t = terrain(dir.path());
    let out = |n: &str| dir.path().join(n);
    let cases: Vec<(Vec<String>, &str, std::path::PathBuf)> = vec![
        (
            vec!["render".into(), s(&t).into(), "--out".into(), s(&out("a.jpg")).into()],
            "unknown image extension",
            out("a.jpg"),
        ),
        (
            vec!["render".into(), s(&t).into(), "--out".into(), s(&out("b.png")).into(), "--size".into(), "0x5".into()],
            "image size",
            out("b.png"),
        ),
        (
            vec!["render".into(), s(&out("missing")).into(), "--out".into(), s(&out("c.png")).into()],
            "no such file",
            out("c.png"),
        ),
        (
            vec!["render".into(), s(&t).into(), "--out".into(), s(&out("d.gif")).into(), "--fps".into(), "0".into()],
            "--fps",
            out("d.gif"),
        ),
        (
            vec![
                "points".into(),
                s(&t).into(),
                "--count".into(),
                "10".into(),
                "--fps".into(),
                "20".into(),
                "--out".into(),
                s(&out("e.ply")).into(),
            ],
            "--fps",
            out("e.ply"),
        ),
        (
            vec!["points".into(), s(&t).into(), "--count".into(), "0".into(), "--out".into(), s(&out("f.ply")).into()],
            "--count",
            out("f.ply"),
        ),
        (vec!["points".into(), s(&t).into(), "--out".into(), s(&out("g.las")).into()], "extension", out("g.las")),
    ];
    for (args, needle, file) in cases {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = bozkir(&a);
        assert!(!o.status.success(), "{a:?} succeeded");
        assert!(text(&o.stderr).contains(needle), "{a:?}: {}", text(&o.stderr));
        assert!(!file.exists(), "{a:?} wrote {}", file.display());
    }
    // A mesh with a NaN vertex, an empty OBJ and a zero-byte PLY.
    std::fs::write(out("nan.obj"), "v 0 0 0\nv 1 0 nan\nv 0 1 0\nf 1 2 3\n").unwrap();
    std::fs::write(out("empty.obj"), "# nothing\n").unwrap();
    std::fs::write(out("zero.ply"), "").unwrap();
    for bad in ["nan.obj", "empty.obj", "zero.ply"] {
        let o = bozkir(&["render", s(&out(bad)), "--out", s(&out("x.png"))]);
        assert!(!o.status.success(), "{bad} rendered");
        assert!(text(&o.stderr).contains(bad), "{bad}: {}", text(&o.stderr));
        assert!(!out("x.png").exists());
    }
    // MP4 either works (ffmpeg present) or says why not, writing nothing.
    let mp4 = out("v.mp4");
    let o = bozkir(&["render", s(&t), "--out", s(&mp4), "--turntable", "2", "--size", "32x20"]);
    if bozkir_io::export::image::ffmpeg_available() {
        ok(&o);
        assert!(std::fs::metadata(&mp4).unwrap().len() > 100);
    } else {
        assert!(!o.status.success() && text(&o.stderr).contains("ffmpeg"), "{}", text(&o.stderr));
        assert!(!mp4.exists());
    }
}

#[test]
fn world_views_are_written_with_the_world() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path().join("w");
    ok(&bozkir(&[
        "world",
        "flat",
        "--param",
        "undulation_amp=2",
        "--size",
        "24",
        "--views",
        "still,points",
        "--out",
        s(&w),
    ]));
    assert!(w.join("views/still.png").is_file() && w.join("views/points.ply").is_file());
    assert!(!w.join("views/turntable.gif").exists());
    let bad = dir.path().join("bad");
    let o = bozkir(&["world", "flat", "--size", "24", "--views", "still,film", "--out", s(&bad)]);
    assert!(!o.status.success() && text(&o.stderr).contains("\"film\""), "{}", text(&o.stderr));
    assert!(!bad.exists(), "a refused --views writes no world");
}

#[test]
fn gallery_lays_out_a_contact_sheet() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g");
    ok(&bozkir(&[
        "gallery",
        "--size",
        "24",
        "--world-size",
        "24",
        "--only",
        "profile-can",
        "--only",
        "world-flat",
        "--turntable",
        "world-flat",
        "--out",
        s(&g),
    ]));
    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(g.join("gallery.json")).unwrap()).unwrap();
    let ids: Vec<&str> = index["items"].as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["profile-canyon", "world-flat"]);
    let (w, h) = png_size(&g.join("contact_sheet.png"));
    assert!(w > 2 * 320 && h > 200, "{w}×{h}");
    assert!(g.join("turntables/world-flat.gif").is_file() && !g.join("turntables/profile-canyon.gif").exists());
}

/// `bozkir mesh` writes the scene's one mesh: its GLB, rendered, is the folder's picture bit for
/// bit, and OBJ/PLY read back with every vertex; a cloud has no mesh to write.
#[test]
fn meshes_round_trip_through_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let t = terrain(dir.path());
    let direct = dir.path().join("direct.png");
    ok(&bozkir(&["render", s(&t), "--out", s(&direct), "--size", "120x80"]));
    for ext in ["glb", "obj", "ply"] {
        let m = dir.path().join(format!("t.{ext}"));
        ok(&bozkir(&["mesh", s(&t), "--out", s(&m)]));
        match bozkir_io::scene::read_geometry(&m).unwrap() {
            bozkir_io::scene::Geometry::Mesh(g) => {
                assert_eq!((g.positions.len(), g.indices.len()), (32 * 32, 31 * 31 * 6), "{ext}");
                assert!(g.colours.is_some() && g.normals.is_some(), "{ext}");
            }
            _ => panic!("{ext}: not a mesh"),
        }
        let img = dir.path().join(format!("{ext}.png"));
        ok(&bozkir(&[
            "render",
            s(&m),
            "--out",
            s(&img),
            "--size",
            "120x80",
            "--up",
            if ext == "glb" { "y" } else { "z" },
        ]));
        if ext == "glb" {
            assert_eq!(std::fs::read(&img).unwrap(), std::fs::read(&direct).unwrap(), "the GLB draws as the folder");
        }
    }
    let cloud = dir.path().join("c.ply");
    ok(&bozkir(&["points", s(&t), "--count", "100", "--out", s(&cloud)]));
    let o = bozkir(&["mesh", s(&cloud), "--out", s(&dir.path().join("c.obj"))]);
    assert!(!o.status.success() && text(&o.stderr).contains("no triangles"), "{}", text(&o.stderr));
    assert!(!dir.path().join("c.obj").exists());
}

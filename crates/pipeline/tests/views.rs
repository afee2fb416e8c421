//! Views of every generator: load, render, sample, voxelize; framing, orientation, determinism
//! and refusals.

use bozkir_core::{Grid, NoProgress};
use bozkir_pipeline::views::{
    cameras, load_scene, render_scene, scene_points, terrain_mesh, write_scene_views, write_views, RenderRequest,
    Scene, SceneGeometry, UpAxis, ViewKind, ViewsRequest, VIEW_SKY,
};
use std::path::Path;

/// A 40 × 30 grid of 5 m cells with one bump in the north-east (row 0 is north).
fn bump() -> Grid<f64> {
    let (w, h) = (40, 30);
    Grid::from_fn(w, h, |c, r| {
        let (dx, dy) = (c as f64 - 32.0, r as f64 - 6.0);
        60.0 * (-(dx * dx + dy * dy) / 20.0).exp()
    })
    .with_cell_size(5.0, 5.0)
}

fn mesh_of(s: &Scene) -> &bozkir_io::scene::SceneMesh {
    match &s.geometry {
        SceneGeometry::Mesh(m) => m,
        _ => panic!("{} is not a mesh", s.what),
    }
}

/// The world frame is x east, y north, z up: the north-east bump is the highest vertex, at
/// large x and large y, with an upward normal on the flat.
#[test]
fn terrain_mesh_is_in_the_world_frame() {
    let m = terrain_mesh(&bump(), None).unwrap();
    let top = (0..m.positions.len()).max_by(|&a, &b| m.positions[a][2].total_cmp(&m.positions[b][2])).unwrap();
    let p = m.positions[top];
    let (xs, ys): (Vec<f32>, Vec<f32>) = m.positions.iter().map(|p| (p[0], p[1])).unzip();
    let span = |v: &[f32]| {
        (v.iter().copied().fold(f32::INFINITY, f32::min), v.iter().copied().fold(f32::NEG_INFINITY, f32::max))
    };
    let (x0, x1) = span(&xs);
    let (y0, y1) = span(&ys);
    assert!((p[2] - 60.0).abs() < 1e-3, "peak height {}", p[2]);
    assert!((p[0] - (x0 + 32.0 * 5.0)).abs() < 1e-3, "peak x {} in {x0}..{x1}", p[0]);
    assert!((p[1] - (y1 - 6.0 * 5.0)).abs() < 1e-3, "peak y {} in {y0}..{y1} (north is +y)", p[1]);
    assert!(((x1 - x0) - 195.0).abs() < 1e-3 && ((y1 - y0) - 145.0).abs() < 1e-3);
    let n = m.normals.as_ref().unwrap()[0];
    assert!(n[2] > 0.999, "flat corner normal {n:?}");
    // Counter-clockwise seen from above: the first triangle's normal points up.
    let [a, b, c] = [0, 1, 2].map(|k| m.positions[m.indices[k] as usize]);
    let cross = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    assert!(cross > 0.0, "winding {cross}");
}

/// A bigger grid is drawn at most MAX_RENDER_SIDE a side, its extent kept.
#[test]
fn big_terrains_are_resampled_for_drawing() {
    let g = Grid::new(1500, 300, 1.0).with_cell_size(2.0, 2.0);
    let m = terrain_mesh(&g, None).unwrap();
    assert_eq!(m.positions.len(), 1024 * 205);
    let xs = m.positions.iter().map(|p| p[0]).fold(f32::NEG_INFINITY, f32::max)
        - m.positions.iter().map(|p| p[0]).fold(f32::INFINITY, f32::min);
    assert!((xs - 2998.0).abs() < 1.0, "extent {xs}");
    let mut nan = g.clone();
    *nan.get_mut(3, 3) = f64::NAN;
    assert!(terrain_mesh(&nan, None).unwrap_err().to_string().contains("NaN"));
}

/// Every corner of the scene's box projects inside every turntable frame, at one radius.
#[test]
fn turntables_keep_the_box_in_every_frame() {
    let b = ([0.0, 0.0, 0.0], [1000.0, 400.0, 120.0]);
    let req = RenderRequest { frames: 16, width: 320, height: 180, ..RenderRequest::default() };
    let cams = cameras(b, &req).unwrap();
    assert_eq!(cams.len(), 16);
    let centre = [500.0, 200.0, 60.0];
    let r0 = dist(cams[0].eye(), centre);
    for c in &cams {
        assert!((dist(c.eye(), centre) - r0).abs() < 1e-6 * r0, "one radius");
        for m in 0..8 {
            let p = [0, 1, 2].map(|k| if m >> k & 1 == 1 { b.1[k] } else { b.0[k] });
            let q = c.project(p).expect("in front");
            assert!((0.0..=320.0).contains(&q[0]) && (0.0..=180.0).contains(&q[1]), "{p:?} → {q:?}");
        }
    }
    // A still fills the frame more than the turntable's looser radius does.
    let still = cameras(b, &RenderRequest { width: 320, height: 180, ..RenderRequest::default() }).unwrap();
    assert!(dist(still[0].eye(), centre) < r0);
}

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    (0..3).map(|k| (a[k] - b[k]).powi(2)).sum::<f64>().sqrt()
}

#[test]
fn bad_requests_are_refused() {
    let b = ([0.0; 3], [1.0; 3]);
    for (req, needle) in [
        (RenderRequest { width: 0, ..RenderRequest::default() }, "image size"),
        (RenderRequest { frames: 0, ..RenderRequest::default() }, "frames"),
        (RenderRequest { fov_deg: f64::NAN, ..RenderRequest::default() }, "field of view"),
        (RenderRequest { elevation_deg: 95.0, ..RenderRequest::default() }, "elevation"),
        (RenderRequest { supersample: 9, ..RenderRequest::default() }, "supersample"),
        (RenderRequest { camera: Some(([0.0, 0.0, f64::INFINITY], [0.0; 3])), ..RenderRequest::default() }, "camera"),
    ] {
        let e = cameras(b, &req).unwrap_err().to_string();
        assert!(e.contains(needle), "{e}");
    }
    let dir = tempfile::tempdir().unwrap();
    let e = load_scene(&dir.path().join("nope.glb"), UpAxis::Auto).unwrap_err().to_string();
    assert!(e.contains("no such file"), "{e}");
    let scene = Scene { geometry: SceneGeometry::Mesh(terrain_mesh(&bump(), None).unwrap()), what: "bump".into() };
    assert!(scene_points(&scene, 0, None, 0).unwrap_err().to_string().contains("--count"));
    assert!(scene_points(&scene, 10, Some(11), 0).unwrap_err().to_string().contains("--fps"));
    assert!(ViewKind::parse_list("still,movie").unwrap_err().to_string().contains("\"movie\""));
    assert_eq!(ViewKind::parse_list("all").unwrap().len(), 5);
}

/// Points lie on the surface (a tilted plane here), are deterministic in the seed, and FPS
/// keeps a spread-out subset.
#[test]
fn points_lie_on_the_surface_and_fps_spreads_them() {
    let g = Grid::from_fn(20, 20, |c, r| 0.5 * c as f64 + 0.25 * r as f64).with_cell_size(1.0, 1.0);
    let scene = Scene { geometry: SceneGeometry::Mesh(terrain_mesh(&g, None).unwrap()), what: "plane".into() };
    let m = mesh_of(&scene);
    let y_top = m.positions.iter().map(|p| p[1]).fold(f32::NEG_INFINITY, f32::max) as f64;
    let a = scene_points(&scene, 5000, None, 7).unwrap();
    assert_eq!(a, scene_points(&scene, 5000, None, 7).unwrap());
    assert_ne!(a.positions, scene_points(&scene, 5000, None, 8).unwrap().positions);
    for p in &a.positions {
        // Column c = x, row r = (y_top − y): h = 0.5·c + 0.25·r.
        let want = 0.5 * p[0] + 0.25 * (y_top - p[1]);
        assert!((p[2] - want).abs() < 1e-4, "{p:?} off the plane ({want})");
    }
    assert_eq!(a.colours.as_ref().unwrap().len(), 5000);
    let f = scene_points(&scene, 5000, Some(64), 7).unwrap();
    assert_eq!(f.positions.len(), 64);
    let min_gap = |pts: &[[f64; 3]]| {
        let mut best = f64::INFINITY;
        for i in 0..pts.len() {
            for j in 0..i {
                best = best.min(dist(pts[i], pts[j]));
            }
        }
        best
    };
    assert!(min_gap(&f.positions) > 3.0 * min_gap(&a.positions[..64]), "FPS spreads better than a random 64");
}

/// The bounding box (width, height) of the pixels not coloured like the sky: every sky colour
/// has blue ≥ green ≥ red, the landscape's greens and browns do not.
fn ground_extent(im: &bozkir_render::Rgb8Image) -> (usize, usize) {
    for s in [VIEW_SKY.zenith, VIEW_SKY.horizon, VIEW_SKY.ground] {
        assert!(s[2] >= s[1] && s[1] >= s[0]);
    }
    let (mut x0, mut x1, mut y0, mut y1) = (usize::MAX, 0, usize::MAX, 0);
    for y in 0..im.height {
        for x in 0..im.width {
            let p = im.pixel(x, y);
            if !(p[2] >= p[1] && p[1] >= p[0]) {
                (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
            }
        }
    }
    if x0 > x1 {
        (0, 0)
    } else {
        (x1 - x0 + 1, y1 - y0 + 1)
    }
}

/// A world folder's views: every file written and decodable; the still is deterministic and
/// shows the world.
#[test]
fn a_world_folder_gets_every_view() {
    let dir = tempfile::tempdir().unwrap();
    let spec = bozkir_world::product::WorldSpec::resolve(
        "landscape",
        bozkir_world::Seed::Int(1),
        bozkir_world::Compat::Pyworldgen,
        &serde_json::from_str(r#"{"domain_size": [96, 96]}"#).unwrap(),
    )
    .unwrap();
    bozkir_pipeline::world::generate_world(
        &bozkir_pipeline::world::WorldRequest { spec, base: None },
        dir.path(),
        &NoProgress,
    )
    .unwrap();
    let req = ViewsRequest {
        still: RenderRequest { width: 160, height: 90, ..RenderRequest::default() },
        turntable_frames: 4,
        turntable_size: (80, 45),
        points: 3000,
        ..ViewsRequest::default()
    };
    let files = write_views(dir.path(), &req, &NoProgress).unwrap();
    assert_eq!(
        files,
        ["still.png", "turntable.gif", "points.ply", "splats.ply", "voxels.vox"].map(|f| format!("views/{f}"))
    );
    let v = dir.path().join("views");
    assert!(std::fs::read(v.join("still.png")).unwrap().starts_with(b"\x89PNG"));
    assert!(std::fs::read(v.join("turntable.gif")).unwrap().starts_with(b"GIF89a"));
    assert!(std::fs::read(v.join("voxels.vox")).unwrap().starts_with(b"VOX "));
    match bozkir_io::scene::read_ply_geometry(v.join("points.ply")).unwrap() {
        bozkir_io::scene::Geometry::Cloud(c) => {
            assert_eq!(c.positions.len(), 3000);
            assert!(c.normals.is_some() && c.colours.is_some());
        }
        _ => panic!("points.ply is not a cloud"),
    }
    let splats = bozkir_splat::formats::load(&v.join("splats.ply")).unwrap();
    assert_eq!(splats.len(), 3000);
    // The still again, in memory: same pixels, the world framed.
    let scene = load_scene(dir.path(), UpAxis::Auto).unwrap();
    let a = render_scene(&scene, &RenderRequest { width: 160, height: 90, ..RenderRequest::default() }, &NoProgress)
        .unwrap();
    let png = bozkir_io::read_rgb8(v.join("still.png")).unwrap();
    assert_eq!(png.data().iter().flatten().copied().collect::<Vec<u8>>(), a[0].data);
    // The folder sits in the world frame of its GeoJSON: cell centres from (dx/2, dy/2).
    let (lo, hi) = scene.bounds().unwrap();
    assert!((lo[0] - 1.0).abs() < 1e-4 && (lo[1] - 1.0).abs() < 1e-4, "{lo:?}");
    assert!((hi[0] - 95.0).abs() < 1e-4 && (hi[1] - 95.0).abs() < 1e-4, "{hi:?}");
    let (w, h) = ground_extent(&a[0]);
    assert!(w >= 100 && h >= 60 && w < 160 && h < 90, "the world fills the still, inside its margins: {w}×{h}");
}

/// Every generator × {mesh, point cloud, voxels}: each loads as a non-empty scene, samples into
/// points and voxelizes.
#[test]
fn every_generator_has_mesh_points_and_voxels() {
    let dir = tempfile::tempdir().unwrap();
    let mut seen = Vec::new();
    // Profiles and recipes: one of each family at a small size (all 19 profiles share the
    // generator; every world generator is covered).
    let t = dir.path().join("profile");
    std::fs::create_dir_all(&t).unwrap();
    let req = bozkir_pipeline::terrain::TerrainRequest::profile("alpine", 24, 3).unwrap();
    bozkir_pipeline::terrain::terrain(&req, &t, &NoProgress).unwrap();
    seen.push(t);
    let r = dir.path().join("recipe");
    std::fs::create_dir_all(&r).unwrap();
    let recipe = bozkir_recipe::builtin::builtin("hills").unwrap();
    let rr = bozkir_pipeline::recipe::RecipeRequest {
        recipe: &recipe,
        size: 24,
        cell_size: 10.0,
        seed: 1,
        until: None,
        placement: Default::default(),
        outputs: Default::default(),
    };
    bozkir_pipeline::recipe::run_recipe(&rr, bozkir_pipeline::compute::Compute::cpu(), &r, &NoProgress).unwrap();
    seen.push(r);
    for g in bozkir_world::product::GENERATORS.iter().filter(|g| g.available) {
        let d = dir.path().join(g.name);
        std::fs::create_dir_all(&d).unwrap();
        let overrides = match g.name {
            "implicit_cave" => r#"{"length": 24.0, "resolution": 1.0}"#,
            "voxels" => r#"{"chunks_from": [0, -1, 0], "chunks_to": [0, 0, 0], "chunk_size": 16}"#,
            "forest" => r#"{"domain_size": [40, 40]}"#,
            _ => r#"{"domain_size": [48, 48]}"#,
        };
        let spec = bozkir_world::product::WorldSpec::resolve(
            g.name,
            bozkir_world::Seed::Int(0),
            bozkir_world::Compat::Pyworldgen,
            &serde_json::from_str(overrides).unwrap(),
        )
        .unwrap_or_else(|e| panic!("{}: {e}", g.name));
        bozkir_pipeline::world::generate_world(
            &bozkir_pipeline::world::WorldRequest { spec, base: None },
            &d,
            &NoProgress,
        )
        .unwrap_or_else(|e| panic!("{}: {e}", g.name));
        seen.push(d);
    }
    assert!(seen.len() >= 9, "{} scenes", seen.len());
    for d in &seen {
        let name = d.file_name().unwrap().to_string_lossy().to_string();
        let scene = load_scene(d, UpAxis::Auto).unwrap_or_else(|e| panic!("{name}: {e}"));
        let m = mesh_of(&scene);
        assert!(m.indices.len() >= 3 && m.indices.iter().all(|&i| (i as usize) < m.positions.len()), "{name}");
        let req =
            ViewsRequest { kinds: vec![ViewKind::Points, ViewKind::Voxels], points: 2000, ..ViewsRequest::default() };
        let out = d.join("v");
        let files = write_scene_views(&scene, &out, &req, &NoProgress).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(files, ["points.ply", "voxels.vox"], "{name}");
        let vox = std::fs::read(out.join("voxels.vox")).unwrap();
        assert!(vox.starts_with(b"VOX ") && vox.len() > 200, "{name}: {} bytes", vox.len());
        check_scene_file(&out.join("points.ply"), 2000, &name);
    }
}

fn check_scene_file(p: &Path, n: usize, name: &str) {
    match bozkir_io::scene::read_geometry(p).unwrap() {
        bozkir_io::scene::Geometry::Cloud(c) => assert_eq!(c.positions.len(), n, "{name}"),
        _ => panic!("{name}: not a cloud"),
    }
}

/// A fly-through passes through its keyframes at their times, one frame per 1/fps.
#[test]
fn fly_throughs_pass_through_their_keyframes() {
    let keys = bozkir_pipeline::views::parse_fly(
        r#"[{"eye": [0, -100, 50], "target": [0, 0, 0], "time": 0},
            {"eye": [100, 0, 60], "target": [10, 0, 0], "time": 1.5},
            {"eye": [0, 100, 40], "target": [0, 10, 5], "time": 2}]"#,
    )
    .unwrap();
    let req =
        RenderRequest { width: 64, height: 48, fly: Some(keys.clone()), fly_fps: 4.0, ..RenderRequest::default() };
    let cams = cameras(([-10.0; 3], [10.0; 3]), &req).unwrap();
    assert_eq!(cams.len(), 9, "2 s at 4 fps, both ends");
    for (k, frame) in [(0, 0), (1, 6), (2, 8)] {
        assert!(dist(cams[frame].eye(), keys[k].eye) < 1e-9, "frame {frame} at keyframe {k}: {:?}", cams[frame].eye());
        assert!(dist(cams[frame].target(), keys[k].target) < 1e-9);
    }
    // Between keyframes the eye moves smoothly: no step longer than twice the mean.
    let steps: Vec<f64> = cams.windows(2).map(|w| dist(w[0].eye(), w[1].eye())).collect();
    let mean = steps.iter().sum::<f64>() / steps.len() as f64;
    assert!(steps.iter().all(|&d| d < 2.5 * mean), "{steps:?}");
    for bad in [r#"[{"eye": [0,0,1], "target": [0,0,0], "time": 0}]"#, r#"[{"eye": [0,0,1]}]"#, "not json"] {
        assert!(bozkir_pipeline::views::parse_fly(bad).is_err(), "{bad}");
    }
    let back = r#"[{"eye": [0,-9,1], "target": [0,0,0], "time": 1}, {"eye": [0,9,1], "target": [0,0,0], "time": 0}]"#;
    let r = RenderRequest { fly: Some(bozkir_pipeline::views::parse_fly(back).unwrap()), ..RenderRequest::default() };
    assert!(cameras(([-1.0; 3], [1.0; 3]), &r).unwrap_err().to_string().contains("does not come after"));
}

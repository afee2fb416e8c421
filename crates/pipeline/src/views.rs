//! Views of anything bozkir makes or reads (issue 23): a still or a turntable rendered headless,
//! a point cloud, Gaussian splats. `bozkir render`, `bozkir points` and `bozkir world … --views`
//! call these; any other front end can.
//!
//! Steps: [`load_scene`] reads a scene into one [`Scene`] in the world frame (metres, x east,
//! y north, z up), [`render_scene`] draws it with the software renderer (`bozkir-render`),
//! [`scene_points`] samples it into a cloud (`bozkir-points`), [`write_views`] writes a chosen
//! set of views into a folder.
//!
//! What a scene can be, and how it is read:
//!
//! | input | geometry |
//! |---|---|
//! | terrain folder (`terrain.json`; `bozkir terrain`, `analyze`, `erode`, `heightmap`, 2-D `world`) | the height mesh, at most [`MAX_RENDER_SIDE`] vertices a side (bilinear resampling above), coloured by the folder's `colour.png` (a world's ground colour) when it has one of the grid's size, else its `albedo.png` (`bozkir bake`), else the terrain ramp over the heights; plus a world folder's `roads.glb` and `branches.glb` (or `trees.glb`) |
//! | 3-D world folder (`volume.json`; `world implicit_cave`, `voxels`) | `smooth.glb` when present, else `blocks.glb` |
//! | `.glb` / `.gltf`, `.obj` | a triangle mesh, y up by default (`--up`) |
//! | `.ply` with 3DGS properties, `.splat`, `.spz` | Gaussian splats, z up by default |
//! | other `.ply`, `.xyz` | a mesh when the PLY has faces, else a point cloud; z up by default |
//!
//! glTF's frame (x east, y up, z south) becomes the world frame by `(x, y, z) → (x, −z, y)`, a
//! rotation; [`UpAxis`] applies the same to any input whose up is y. A terrain or world folder is
//! then moved so that its cell centres sit at `((col + ½)·dx, (ny − row − ½)·dy)`: x east from
//! the west edge, y north from the south edge, the frame of a world's GeoJSON.
//!
//! Cameras: a still looks at the scene's box from `azimuth` (clockwise from north) and
//! `elevation` with [`bozkir_render::path::frame_bounds`] (the box fills the frame less a
//! margin), or from an explicit eye and target. A turntable keeps one radius for all its frames:
//! the largest of the per-frame framing distances, grown until every corner of the box is inside
//! every frame.
//!
//! Errors: missing files, unknown extensions, empty geometry, NaN vertices, bad sizes or counts
//! are [`PipelineError`]s naming the input; nothing is written before everything is rendered.

use crate::{PipelineError, Result};
use bozkir_core::rng::Rng;
use bozkir_core::{Grid, Observer};
use bozkir_io::export::geometry::{write_ply_cloud, write_xyz, CloudRef};
use bozkir_io::export::image::{write_frames, ImageFormat, RgbFrame};
use bozkir_io::export::mesh as hmesh;
use bozkir_io::scene::{read_geometry, read_glb, Geometry, SceneCloud, SceneMesh};
use bozkir_points::{fps_exact, sample_surface, IndexedTriangles};
use bozkir_render::camera::{Camera, Lens};
use bozkir_render::path::{frame_bounds, orbit, FlyThrough, Keyframe};
use bozkir_render::raster::{
    render_mesh, render_points, render_splats, MeshParams, MeshRef, NormalMode, PointParams, PointShading, PointSize,
    PointsRef, Sky, SplatParams, SplatsRef, View,
};
use bozkir_render::{Ramp, Rgb8Image};
use std::path::{Path, PathBuf};

/// Largest side, in vertices, of the height mesh a terrain folder is drawn with.
pub const MAX_RENDER_SIDE: usize = 1024;
/// Largest image side.
pub const MAX_IMAGE_SIDE: usize = 8192;
/// Most frames of a turntable.
pub const MAX_TURNTABLE_FRAMES: usize = 3600;
/// Most points [`scene_points`] draws.
pub const MAX_POINTS: usize = 50_000_000;

/// The background of every view: the renderer's sky above the horizon, a light grey below it
/// (views look down at their scenes, so most of the background is below the horizon).
pub const VIEW_SKY: Sky = Sky { zenith: [112, 152, 206], horizon: [206, 218, 228], ground: [178, 184, 190] };

/// Which axis of an input file points up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpAxis {
    /// The file's default: y for glTF and OBJ, z for PLY, `.xyz` and splats.
    Auto,
    /// +y up (glTF, most modelling tools): `(x, y, z) → (x, −z, y)`.
    Y,
    /// +z up (GIS, LiDAR, our world frame): unchanged.
    Z,
}

/// A scene's geometry in the world frame.
#[derive(Debug, Clone)]
pub enum SceneGeometry {
    /// A triangle mesh.
    Mesh(SceneMesh),
    /// A point cloud.
    Cloud(SceneCloud),
    /// Gaussian splats.
    Splats(bozkir_splat::Splats),
}

/// A scene ready to draw.
#[derive(Debug, Clone)]
pub struct Scene {
    /// The geometry, world frame (z up).
    pub geometry: SceneGeometry,
    /// What it was read from, for messages (`terrain folder 512×512`, `mesh file`, …).
    pub what: String,
}

impl Scene {
    /// Component-wise minimum and maximum of the scene's positions.
    pub fn bounds(&self) -> Option<([f64; 3], [f64; 3])> {
        match &self.geometry {
            SceneGeometry::Mesh(m) => bozkir_render::views::bounds(m.positions.iter().map(|p| p.map(f64::from))),
            SceneGeometry::Cloud(c) => bozkir_render::views::bounds(c.positions.iter().copied()),
            SceneGeometry::Splats(s) => bozkir_render::views::bounds(s.positions().iter().map(|p| p.map(f64::from))),
        }
    }

    /// Vertices, points or splats.
    pub fn len(&self) -> usize {
        match &self.geometry {
            SceneGeometry::Mesh(m) => m.positions.len(),
            SceneGeometry::Cloud(c) => c.positions.len(),
            SceneGeometry::Splats(s) => s.len(),
        }
    }

    /// Whether the scene holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn invalid(msg: impl Into<String>) -> PipelineError {
    PipelineError::Invalid(msg.into())
}

fn y_up_to_z_up<T: Copy + std::ops::Neg<Output = T>>(p: [T; 3]) -> [T; 3] {
    [p[0], -p[2], p[1]]
}

/// Rotates a y-up mesh into the world frame.
fn mesh_y_up(mut m: SceneMesh) -> SceneMesh {
    m.positions.iter_mut().for_each(|p| *p = y_up_to_z_up(*p));
    if let Some(n) = m.normals.as_mut() {
        n.iter_mut().for_each(|p| *p = y_up_to_z_up(*p));
    }
    m
}

/// Appends `b` to `a` (indices shifted; normals and colours kept only when both have them,
/// else colours filled with `fill`).
fn append_mesh(a: &mut SceneMesh, b: SceneMesh, fill: [u8; 3]) {
    let base = a.positions.len() as u32;
    let (na, nb) = (a.positions.len(), b.positions.len());
    match (a.normals.as_mut(), b.normals) {
        (Some(x), Some(y)) => x.extend(y),
        _ => a.normals = None,
    }
    let ca = a.colours.take().unwrap_or_else(|| vec![fill; na]);
    let cb = b.colours.unwrap_or_else(|| vec![fill; nb]);
    a.colours = Some(ca.into_iter().chain(cb).collect());
    a.positions.extend(b.positions);
    a.indices.extend(b.indices.into_iter().map(|i| i + base));
}

fn is_splat_ply(path: &Path) -> Result<bool> {
    use std::io::Read;
    let mut head = vec![0u8; 4096];
    let mut f = std::fs::File::open(path).map_err(|e| bozkir_io::IoError::io(path, e))?;
    let n = f.read(&mut head).map_err(|e| bozkir_io::IoError::io(path, e))?;
    let text = String::from_utf8_lossy(&head[..n]);
    let header = text.split("end_header").next().unwrap_or("");
    Ok(header.contains("f_dc_0") && header.contains("scale_0") && header.contains("rot_0"))
}

/// The height mesh of `h` (resampled to at most [`MAX_RENDER_SIDE`] a side) in the world frame,
/// coloured by `colour` when it has the grid's size, else by the terrain ramp.
pub fn terrain_mesh(h: &Grid<f64>, colour: Option<&Grid<[u8; 3]>>) -> Result<SceneMesh> {
    if h.width() < 2 || h.height() < 2 {
        return Err(invalid(format!("a {}×{} height field has no surface to draw", h.width(), h.height())));
    }
    if h.data().iter().any(|v| !v.is_finite()) {
        return Err(invalid("the height field holds NaN or infinite heights"));
    }
    let side = h.width().max(h.height());
    let (g, colour) = if side > MAX_RENDER_SIDE {
        let s = MAX_RENDER_SIDE as f64 / side as f64;
        let (w, hh) =
            (((h.width() as f64 * s).round() as usize).max(2), ((h.height() as f64 * s).round() as usize).max(2));
        let c = colour.filter(|c| c.width() == h.width() && c.height() == h.height());
        (bozkir_io::export::resample_bilinear(h, w, hh), c.map(|c| bozkir_io::export::resample_nearest(c, w, hh)))
    } else {
        (h.clone(), colour.filter(|c| c.width() == h.width() && c.height() == h.height()).cloned())
    };
    let chunk = hmesh::height_mesh(&g, g.width().max(g.height()));
    let c = chunk.into_iter().next().ok_or_else(|| invalid("the height mesh is empty"))?;
    let colours = match colour {
        Some(cg) => cg.data().to_vec(),
        None => {
            let (lo, hi) = g.data().iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
            let ramp = Ramp::terrain();
            g.data().iter().map(|&v| ramp.sample(if hi > lo { (v - lo) / (hi - lo) } else { 0.5 })).collect()
        }
    };
    Ok(mesh_y_up(SceneMesh {
        positions: c.positions,
        normals: Some(c.normals),
        colours: Some(colours),
        indices: c.indices,
    }))
}

/// What puts the rotated glTF frame of a terrain folder's meshes (vertex `(col, row)` at
/// `(col·dx, −row·dy)`) on the world frame of its cell centres: `((col + ½)·dx, (ny − row − ½)·dy)`,
/// x east from the west edge, y north from the south edge (the frame of a world's GeoJSON).
fn cell_centre_shift(h: &Grid<f64>) -> [f32; 2] {
    [(0.5 * h.dx) as f32, ((h.height() as f64 - 0.5) * h.dy) as f32]
}

/// Reads a scene from a terrain or world folder or a geometry file (see the module docs).
pub fn load_scene(path: &Path, up: UpAxis) -> Result<Scene> {
    if matches!(path.try_exists(), Ok(false)) {
        return Err(PipelineError::NoSuchFile(path.to_path_buf()));
    }
    if path.is_dir() {
        return load_folder(path);
    }
    let ext = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    let splats = match ext.as_str() {
        "splat" | "spz" => true,
        "ply" => is_splat_ply(path)?,
        _ => false,
    };
    let rotate = |default_y: bool| match up {
        UpAxis::Auto => default_y,
        UpAxis::Y => true,
        UpAxis::Z => false,
    };
    if splats {
        let mut s = bozkir_splat::formats::load(path)?;
        if s.is_empty() {
            return Err(invalid(format!("{}: holds no splats", path.display())));
        }
        if rotate(false) {
            let h = std::f64::consts::FRAC_1_SQRT_2;
            s.transform(&bozkir_splat::Rigid::rotation([h, h, 0.0, 0.0]));
        }
        return Ok(Scene { geometry: SceneGeometry::Splats(s), what: format!("splat file {}", path.display()) });
    }
    let geometry = read_geometry(path)?;
    let default_y = matches!(ext.as_str(), "glb" | "gltf" | "obj");
    Ok(match geometry {
        Geometry::Mesh(m) => {
            if m.indices.is_empty() {
                return Err(invalid(format!("{}: holds no triangles", path.display())));
            }
            let m = if rotate(default_y) { mesh_y_up(m) } else { m };
            Scene { geometry: SceneGeometry::Mesh(m), what: format!("mesh {}", path.display()) }
        }
        Geometry::Cloud(mut c) => {
            if c.positions.is_empty() {
                return Err(invalid(format!("{}: holds no points", path.display())));
            }
            if rotate(default_y) {
                c.positions.iter_mut().for_each(|p| *p = y_up_to_z_up(*p));
                if let Some(n) = c.normals.as_mut() {
                    n.iter_mut().for_each(|p| *p = y_up_to_z_up(*p));
                }
            }
            Scene { geometry: SceneGeometry::Cloud(c), what: format!("point cloud {}", path.display()) }
        }
    })
}

fn load_folder(dir: &Path) -> Result<Scene> {
    if dir.join("volume.json").is_file() {
        let file = ["smooth.glb", "blocks.glb"].into_iter().map(|f| dir.join(f)).find(|p| p.is_file());
        let file = file.ok_or_else(|| invalid(format!("{}: a 3-D world folder without blocks.glb", dir.display())))?;
        let m = mesh_y_up(read_glb(&file)?);
        if m.indices.is_empty() {
            return Err(invalid(format!("{}: holds no triangles", file.display())));
        }
        return Ok(Scene { geometry: SceneGeometry::Mesh(m), what: format!("3-D world {}", dir.display()) });
    }
    let (_, h) = crate::folder::read_terrain_folder(dir, "render")?;
    // The world's ground colour, else the baked albedo (brought to the grid), else the ramp.
    let colour_file = dir.join("colour.png");
    let albedo_file = dir.join("albedo.png");
    let colour = if colour_file.is_file() {
        Some(bozkir_io::read_rgb8(&colour_file)?)
    } else if albedo_file.is_file() {
        let a = bozkir_io::read_rgb8(&albedo_file)?;
        Some(bozkir_io::export::resample_nearest(&a, h.width(), h.height()))
    } else {
        None
    };
    let mut mesh = terrain_mesh(&h, colour.as_ref())?;
    let shift = cell_centre_shift(&h);
    // A world folder's roads and trees, already in the ground mesh's glTF frame.
    let trees = if dir.join("branches.glb").is_file() { "branches.glb" } else { "trees.glb" };
    let mut extras = Vec::new();
    for name in ["roads.glb", trees] {
        let p = dir.join(name);
        if p.is_file() && h.width().max(h.height()) <= MAX_RENDER_SIDE {
            append_mesh(&mut mesh, mesh_y_up(read_glb(&p)?), [90, 90, 90]);
            extras.push(name);
        }
    }
    for p in mesh.positions.iter_mut() {
        p[0] += shift[0];
        p[1] += shift[1];
    }
    let with = if extras.is_empty() { String::new() } else { format!(" with {}", extras.join(", ")) };
    Ok(Scene {
        geometry: SceneGeometry::Mesh(mesh),
        what: format!("terrain folder {} ({}×{}){with}", dir.display(), h.width(), h.height()),
    })
}

/// A fly-through keyframe: where the eye is, what it looks at, when.
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlyKey {
    /// Eye, world frame.
    pub eye: [f64; 3],
    /// Target, world frame.
    pub target: [f64; 3],
    /// Seconds from any origin; strictly increasing along the keyframes.
    pub time: f64,
}

/// Keyframes from JSON: `[{"eye": [x, y, z], "target": [x, y, z], "time": s}, …]`.
pub fn parse_fly(text: &str) -> Result<Vec<FlyKey>> {
    let keys: Vec<FlyKey> = serde_json::from_str(text).map_err(|e| invalid(format!("fly-through keyframes: {e}")))?;
    if keys.len() < 2 {
        return Err(invalid(format!("a fly-through needs at least 2 keyframes, got {}", keys.len())));
    }
    Ok(keys)
}

/// How a scene is drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderRequest {
    /// Image width in pixels. Default 960.
    pub width: usize,
    /// Image height in pixels. Default 540.
    pub height: usize,
    /// Vertical field of view in degrees. Default 40.
    pub fov_deg: f64,
    /// Frames: 1 for a still, more for a turntable. Default 1.
    pub frames: usize,
    /// Camera elevation above the horizon in degrees. Default 35.
    pub elevation_deg: f64,
    /// Camera azimuth (clockwise from north, towards the eye) of the first frame. Default 210.
    pub azimuth_deg: f64,
    /// An explicit camera `(eye, target)` in the world frame instead of the framing (stills).
    pub camera: Option<([f64; 3], [f64; 3])>,
    /// A fly-through instead of the framing: keyframes (world frame, times in seconds) joined
    /// by a Catmull–Rom spline, sampled at `fly_fps`.
    pub fly: Option<Vec<FlyKey>>,
    /// Frames per second along `fly`. Default 12.
    pub fly_fps: f64,
    /// Flat shading (one normal per triangle). Default smooth.
    pub flat: bool,
    /// Sun shadows on meshes. Default on.
    pub shadows: bool,
    /// Distance fog. Default off.
    pub fog: bool,
    /// Samples per pixel per axis, 1..=4. Default 2.
    pub supersample: u32,
    /// Point radius in pixels for clouds. Default 1.5.
    pub point_size_px: f64,
    /// How clouds are coloured. Default their colours.
    pub point_shading: PointShading,
}

impl Default for RenderRequest {
    fn default() -> Self {
        Self {
            width: 960,
            height: 540,
            fov_deg: 40.0,
            frames: 1,
            elevation_deg: 35.0,
            azimuth_deg: 210.0,
            camera: None,
            fly: None,
            fly_fps: 12.0,
            flat: false,
            shadows: true,
            fog: false,
            supersample: 2,
            point_size_px: 1.5,
            point_shading: PointShading::Colour,
        }
    }
}

impl RenderRequest {
    /// Checks sizes, counts and angles.
    pub fn check(&self) -> Result<()> {
        if !(1..=MAX_IMAGE_SIDE).contains(&self.width) || !(1..=MAX_IMAGE_SIDE).contains(&self.height) {
            return Err(invalid(format!(
                "image size {}×{} outside 1..={MAX_IMAGE_SIDE} pixels a side",
                self.width, self.height
            )));
        }
        if !(1..=MAX_TURNTABLE_FRAMES).contains(&self.frames) {
            return Err(invalid(format!("{} frames outside 1..={MAX_TURNTABLE_FRAMES}", self.frames)));
        }
        if !(self.fov_deg.is_finite() && self.fov_deg > 1.0 && self.fov_deg < 170.0) {
            return Err(invalid(format!("field of view {}° outside (1, 170)", self.fov_deg)));
        }
        if !(self.elevation_deg.is_finite() && self.elevation_deg > -89.0 && self.elevation_deg < 89.5) {
            return Err(invalid(format!("elevation {}° outside (−89, 89.5)", self.elevation_deg)));
        }
        if !self.azimuth_deg.is_finite() {
            return Err(invalid(format!("azimuth {} is not a number", self.azimuth_deg)));
        }
        if !(1..=4).contains(&self.supersample) {
            return Err(invalid(format!("supersample {} outside 1..=4", self.supersample)));
        }
        if !(self.point_size_px.is_finite() && self.point_size_px > 0.0 && self.point_size_px <= 64.0) {
            return Err(invalid(format!("point size {} px outside (0, 64]", self.point_size_px)));
        }
        if let Some((eye, target)) = self.camera {
            if eye.iter().chain(&target).any(|v| !v.is_finite()) {
                return Err(invalid(format!("camera eye {eye:?} or target {target:?} is not finite")));
            }
            if self.frames > 1 {
                return Err(invalid("an explicit camera draws a still; a turntable frames the scene itself"));
            }
        }
        if let Some(keys) = &self.fly {
            if self.camera.is_some() || self.frames > 1 {
                return Err(invalid("a fly-through sets its own cameras: give it without a camera or a turntable"));
            }
            if keys.len() < 2 {
                return Err(invalid(format!("a fly-through needs at least 2 keyframes, got {}", keys.len())));
            }
            if !(self.fly_fps.is_finite() && self.fly_fps > 0.0 && self.fly_fps <= 120.0) {
                return Err(invalid(format!("fly-through rate {} outside (0, 120] frames per second", self.fly_fps)));
            }
        }
        Ok(())
    }

    fn lens(&self) -> Lens {
        Lens { fov_deg: self.fov_deg, width: self.width, height: self.height }
    }
}

fn cam_err(e: impl std::fmt::Display) -> PipelineError {
    invalid(format!("camera: {e}"))
}

/// The cameras of `req` around the box `b`.
pub fn cameras(b: ([f64; 3], [f64; 3]), req: &RenderRequest) -> Result<Vec<Camera>> {
    req.check()?;
    let lens = req.lens();
    let diag = (0..3).map(|k| (b.1[k] - b.0[k]).powi(2)).sum::<f64>().sqrt();
    // A flat or point-like scene still gets a box to frame.
    let pad = (diag * 1e-3).max(1e-3);
    let (lo, hi) = (b.0.map(|v| v - pad), b.1.map(|v| v + pad));
    if let Some(keys) = &req.fly {
        let frames: Vec<Keyframe> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| {
                Camera::with_lens(k.eye, k.target, [0.0, 0.0, 1.0], lens)
                    .map(|camera| Keyframe { camera, time: k.time })
                    .map_err(|e| invalid(format!("fly-through keyframe {i}: {e}")))
            })
            .collect::<Result<_>>()?;
        let fly = FlyThrough::new(frames).map_err(cam_err)?;
        let n = ((fly.end() - fly.start()) * req.fly_fps).floor() + 1.0;
        if n > MAX_TURNTABLE_FRAMES as f64 {
            return Err(invalid(format!("the fly-through makes {n} frames, more than {MAX_TURNTABLE_FRAMES}")));
        }
        return fly.frames(req.fly_fps).map_err(cam_err);
    }
    if let Some((eye, target)) = req.camera {
        let cam = Camera::with_lens(eye, target, [0.0, 0.0, 1.0], lens).map_err(cam_err)?;
        let d = (0..3).map(|k| (eye[k] - 0.5 * (lo[k] + hi[k])).powi(2)).sum::<f64>().sqrt();
        let far = d + diag + pad;
        return Ok(vec![cam.with_clip((far * 1e-5).max(1e-6), far * 2.0).map_err(cam_err)?]);
    }
    const MARGIN: f64 = 0.04;
    let az = |i: usize| req.azimuth_deg + 360.0 * i as f64 / req.frames as f64;
    if req.frames == 1 {
        return Ok(vec![frame_bounds(lo, hi, req.azimuth_deg, req.elevation_deg, lens, MARGIN).map_err(cam_err)?]);
    }
    let centre = [0, 1, 2].map(|k| 0.5 * (lo[k] + hi[k]));
    let dist = |c: &Camera| (0..3).map(|k| (c.eye()[k] - centre[k]).powi(2)).sum::<f64>().sqrt();
    let mut radius = 0.0f64;
    for i in 0..req.frames {
        radius = radius.max(dist(&frame_bounds(lo, hi, az(i), req.elevation_deg, lens, MARGIN).map_err(cam_err)?));
    }
    let corners: Vec<[f64; 3]> =
        (0..8).map(|m| [0, 1, 2].map(|k| if m >> k & 1 == 1 { hi[k] } else { lo[k] })).collect();
    for _ in 0..60 {
        let cams: Vec<Camera> = (0..req.frames)
            .map(|i| orbit(centre, radius, req.elevation_deg, az(i), lens))
            .collect::<std::result::Result<_, _>>()
            .map_err(cam_err)?;
        let inside = cams.iter().all(|c| {
            corners.iter().all(|&p| {
                c.project(p).is_some_and(|q| {
                    (0.0..=lens.width as f64).contains(&q[0]) && (0.0..=lens.height as f64).contains(&q[1])
                })
            })
        });
        if inside {
            return cams
                .into_iter()
                .map(|c| c.with_clip((radius - diag).max(radius * 1e-3), radius + 2.0 * diag).map_err(cam_err))
                .collect();
        }
        radius *= 1.05;
    }
    Err(invalid("camera: could not fit the scene in the frame"))
}

/// Renders `scene` as `req` asks: one image per frame.
pub fn render_scene(scene: &Scene, req: &RenderRequest, obs: &dyn Observer) -> Result<Vec<Rgb8Image>> {
    req.check()?;
    let b = scene.bounds().ok_or_else(|| invalid(format!("{}: empty or not finite", scene.what)))?;
    let cams = cameras(b, req)?;
    obs.step("render");
    let up = [0.0, 0.0, 1.0];
    let mut out = Vec::with_capacity(cams.len());
    let raster = |e: bozkir_render::raster::RasterError| invalid(format!("render {}: {e}", scene.what));
    for (i, cam) in cams.iter().enumerate() {
        let view = View::from_camera(cam);
        let img = match &scene.geometry {
            SceneGeometry::Mesh(m) => {
                let mut mr = MeshRef::new(&m.positions, &m.indices);
                mr.normals = if req.flat { None } else { m.normals.as_deref() };
                mr.colours = m.colours.as_deref();
                let mut p = MeshParams {
                    sky: VIEW_SKY,
                    normals: if req.flat { NormalMode::Flat } else { NormalMode::Smooth },
                    up,
                    supersample: req.supersample,
                    ..MeshParams::default()
                };
                if !req.shadows {
                    p.shadows = None;
                }
                if req.fog {
                    let r = (0..3).map(|k| (b.1[k] - b.0[k]).powi(2)).sum::<f64>().sqrt();
                    p.fog = Some(bozkir_render::raster::Fog { density: 1.5 / r.max(1e-9), ..Default::default() });
                }
                render_mesh(&view, &mr, &p).map_err(raster)?.image
            }
            SceneGeometry::Cloud(c) => {
                let mut pr = PointsRef::new(&c.positions);
                pr.normals = c.normals.as_deref();
                pr.colours = c.colours.as_deref();
                let shading = match req.point_shading {
                    PointShading::Normal if c.normals.is_none() => {
                        return Err(invalid(format!(
                            "{}: normal shading needs normals; the cloud has none",
                            scene.what
                        )))
                    }
                    s => s,
                };
                let p = PointParams {
                    sky: VIEW_SKY,
                    size: PointSize::Pixels(req.point_size_px),
                    shading,
                    up,
                    supersample: req.supersample,
                    ..PointParams::default()
                };
                render_points(&view, &pr, &p).map_err(raster)?.image
            }
            SceneGeometry::Splats(s) => render_splat_scene(&view, s, req).map_err(raster)?,
        };
        out.push(img);
        obs.report("render", i as u64 + 1, cams.len() as u64);
        if obs.cancelled() {
            return Err(invalid("render cancelled"));
        }
    }
    Ok(out)
}

/// Splats drawn as depth-sorted projected Gaussians (`render_splats`, the viewer's
/// conventions) over the views' horizon colour.
fn render_splat_scene(
    view: &View,
    s: &bozkir_splat::Splats,
    req: &RenderRequest,
) -> std::result::Result<Rgb8Image, bozkir_render::raster::RasterError> {
    let colours: Vec<[f32; 3]> = (0..s.len()).map(|i| s.base_rgb(i)).collect();
    let splats = SplatsRef {
        positions: s.positions(),
        scales: s.scales(),
        rotations: s.rotations(),
        colours: &colours,
        opacities: s.opacities(),
    };
    let p = SplatParams {
        background: VIEW_SKY.horizon.map(|c| f32::from(c) / 255.0),
        supersample: req.supersample,
        ..SplatParams::default()
    };
    Ok(render_splats(view, &splats, &p)?.image)
}

/// Splat `i`'s base colour as sRGB bytes.
fn splat_srgb(s: &bozkir_splat::Splats, i: usize) -> [u8; 3] {
    s.base_rgb(i).map(|v| (v * 255.0).round() as u8)
}

/// Writes `frames` to `out` in the format its extension names (PNG/PPM numbered when there are
/// several frames, GIF, MP4); returns the files written.
pub fn write_images(out: &Path, frames: &[Rgb8Image], fps: f64) -> Result<Vec<PathBuf>> {
    let f: Vec<RgbFrame<'_>> =
        frames.iter().map(|i| RgbFrame { width: i.width, height: i.height, rgb: &i.data }).collect();
    Ok(write_frames(out, &f, fps)?)
}

/// Whether `out` names a format that holds every frame in one file.
pub fn is_animation(out: &Path) -> Result<bool> {
    Ok(ImageFormat::from_path(out)?.is_animation())
}

/// A cloud drawn from a scene.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenePoints {
    /// Positions, world frame.
    pub positions: Vec<[f64; 3]>,
    /// Unit normals (the triangle's for a mesh; the cloud's own, when it has them).
    pub normals: Option<Vec<[f32; 3]>>,
    /// sRGB colours (a triangle's mean vertex colour for a mesh).
    pub colours: Option<Vec<[u8; 3]>>,
}

impl ScenePoints {
    fn select(&self, idx: &[usize]) -> ScenePoints {
        ScenePoints {
            positions: idx.iter().map(|&i| self.positions[i]).collect(),
            normals: self.normals.as_ref().map(|n| idx.iter().map(|&i| n[i]).collect()),
            colours: self.colours.as_ref().map(|c| idx.iter().map(|&i| c[i]).collect()),
        }
    }
}

/// `count` points from `scene` (area-weighted on a mesh; a seeded subset of a cloud's points or a
/// splat set's centres when it has more), then the `fps` farthest-spread of them when asked
/// (exact farthest-point sampling from point 0). Deterministic in `seed`.
pub fn scene_points(scene: &Scene, count: usize, fps: Option<usize>, seed: u64) -> Result<ScenePoints> {
    if count == 0 || count > MAX_POINTS {
        return Err(invalid(format!("--count {count} outside 1..={MAX_POINTS}")));
    }
    if let Some(m) = fps {
        if m == 0 || m > count {
            return Err(invalid(format!("--fps {m} outside 1..=count ({count})")));
        }
    }
    let cloud = match &scene.geometry {
        SceneGeometry::Mesh(m) => {
            let pos: Vec<[f64; 3]> = m.positions.iter().map(|p| p.map(f64::from)).collect();
            let surface = IndexedTriangles { positions: &pos, indices: &m.indices };
            let c = sample_surface(&surface, count, seed).map_err(|e| invalid(format!("{}: {e}", scene.what)))?;
            let colours = m.colours.as_ref().map(|col| {
                c.triangle
                    .iter()
                    .map(|&t| {
                        let t = t as usize * 3;
                        let v = [0, 1, 2].map(|k| col[m.indices[t + k] as usize]);
                        [0, 1, 2].map(|ch| ((v[0][ch] as u32 + v[1][ch] as u32 + v[2][ch] as u32 + 1) / 3) as u8)
                    })
                    .collect()
            });
            ScenePoints { positions: c.positions, normals: Some(c.normals), colours }
        }
        SceneGeometry::Cloud(c) => subset(
            &ScenePoints { positions: c.positions.clone(), normals: c.normals.clone(), colours: c.colours.clone() },
            count,
            seed,
        ),
        SceneGeometry::Splats(s) => {
            let all = ScenePoints {
                positions: s.positions().iter().map(|p| p.map(f64::from)).collect(),
                normals: None,
                colours: Some((0..s.len()).map(|i| splat_srgb(s, i)).collect()),
            };
            subset(&all, count, seed)
        }
    };
    match fps {
        None => Ok(cloud),
        Some(m) => {
            let idx = fps_exact(&cloud.positions, m.min(cloud.positions.len()), 0)
                .map_err(|e| invalid(format!("{}: {e}", scene.what)))?;
            Ok(cloud.select(&idx))
        }
    }
}

/// `count` of `all`'s points in their order, chosen by a seeded partial Fisher–Yates shuffle;
/// all of them when there are no more.
fn subset(all: &ScenePoints, count: usize, seed: u64) -> ScenePoints {
    let n = all.positions.len();
    if count >= n {
        return all.clone();
    }
    let mut rng = Rng::with_stream(seed as u32, (seed >> 32) as u32);
    let mut idx: Vec<usize> = (0..n).collect();
    for i in 0..count {
        let j = i + rng.below((n - i) as u32) as usize;
        idx.swap(i, j);
    }
    let mut pick = idx[..count].to_vec();
    pick.sort_unstable();
    all.select(&pick)
}

/// Writes `pts` as `.ply` (binary, with normals and colours when present) or `.xyz` (text).
pub fn write_points(out: &Path, pts: &ScenePoints) -> Result<()> {
    let ext = out.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    let cloud =
        CloudRef { positions: &pts.positions, normals: pts.normals.as_deref(), colours: pts.colours.as_deref() };
    match ext.as_str() {
        "ply" => Ok(write_ply_cloud(out, &cloud)?),
        "xyz" => Ok(write_xyz(out, &cloud)?),
        _ => Err(invalid(format!("{}: unknown point-cloud extension {ext:?}: use .ply or .xyz", out.display()))),
    }
}

/// One view [`write_views`] can write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewKind {
    /// `views/still.png`: one frame from the default camera.
    Still,
    /// `views/turntable.gif`: a turntable.
    Turntable,
    /// `views/points.ply`: an area-weighted cloud with normals and colours.
    Points,
    /// `views/splats.ply`: the cloud as Gaussian splats (3DGS binary PLY).
    Splats,
    /// `views/voxels.vox`: the surface voxelized (MagicaVoxel), at most 256 voxels across.
    Voxels,
}

impl ViewKind {
    /// Every view, in writing order.
    pub const ALL: [ViewKind; 5] =
        [ViewKind::Still, ViewKind::Turntable, ViewKind::Points, ViewKind::Splats, ViewKind::Voxels];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            ViewKind::Still => "still",
            ViewKind::Turntable => "turntable",
            ViewKind::Points => "points",
            ViewKind::Splats => "splats",
            ViewKind::Voxels => "voxels",
        }
    }

    /// `all` or a comma-separated list of names.
    pub fn parse_list(text: &str) -> Result<Vec<ViewKind>> {
        if text.trim() == "all" {
            return Ok(Self::ALL.to_vec());
        }
        let mut out = Vec::new();
        for t in text.split(',').map(str::trim) {
            let k = Self::ALL.into_iter().find(|k| k.name() == t).ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|k| k.name()).collect();
                invalid(format!("unknown view {t:?}: use all or a list of {}", names.join(", ")))
            })?;
            if !out.contains(&k) {
                out.push(k);
            }
        }
        Ok(out)
    }
}

/// What [`write_views`] writes.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewsRequest {
    /// The views.
    pub kinds: Vec<ViewKind>,
    /// Still size and camera (its `frames` is ignored). Default 960×540.
    pub still: RenderRequest,
    /// Turntable frames. Default 36.
    pub turntable_frames: usize,
    /// Turntable size. Default 480×270.
    pub turntable_size: (usize, usize),
    /// Turntable rate. Default 12 fps.
    pub fps: f64,
    /// Points of `points.ply` and `splats.ply`. Default 200 000.
    pub points: usize,
    /// Seed of the sampling. Default 0.
    pub seed: u64,
}

impl Default for ViewsRequest {
    fn default() -> Self {
        Self {
            kinds: ViewKind::ALL.to_vec(),
            still: RenderRequest::default(),
            turntable_frames: 36,
            turntable_size: (480, 270),
            fps: 12.0,
            points: 200_000,
            seed: 0,
        }
    }
}

/// Neighbours whose distances set a splat's scale.
const SPLAT_NEIGHBOURS: usize = 8;
/// Most voxels across a `voxels.vox`.
const VOX_ACROSS: f64 = 255.0;
/// Points per voxel column sampled for `voxels.vox`.
const VOX_POINTS_PER_COLUMN: usize = 8;

/// Writes the views `req` asks for of the scene in `folder` (a terrain or world folder) into
/// `folder/views/`; returns the files written relative to `folder`.
pub fn write_views(folder: &Path, req: &ViewsRequest, obs: &dyn Observer) -> Result<Vec<String>> {
    let scene = load_scene(folder, UpAxis::Auto)?;
    write_scene_views(&scene, &folder.join("views"), req, obs)
        .map(|v| v.into_iter().map(|f| format!("views/{f}")).collect())
}

/// Writes the views `req` asks for of `scene` into the folder `dir` (created); returns the
/// file names written.
pub fn write_scene_views(scene: &Scene, dir: &Path, req: &ViewsRequest, obs: &dyn Observer) -> Result<Vec<String>> {
    std::fs::create_dir_all(dir).map_err(|e| bozkir_io::IoError::io(dir, e))?;
    let mut files = Vec::new();
    let mut cloud: Option<ScenePoints> = None;
    for &k in &req.kinds {
        obs.step(k.name());
        match k {
            ViewKind::Still => {
                let frames = render_scene(scene, &RenderRequest { frames: 1, ..req.still.clone() }, obs)?;
                write_images(&dir.join("still.png"), &frames, 1.0)?;
                files.push("still.png".to_string());
            }
            ViewKind::Turntable => {
                let (width, height) = req.turntable_size;
                let r =
                    RenderRequest { frames: req.turntable_frames, width, height, camera: None, ..req.still.clone() };
                let frames = render_scene(scene, &r, obs)?;
                write_images(&dir.join("turntable.gif"), &frames, req.fps)?;
                files.push("turntable.gif".to_string());
            }
            ViewKind::Points | ViewKind::Splats => {
                if cloud.is_none() {
                    cloud = Some(scene_points(scene, req.points, None, req.seed)?);
                }
                let pts = cloud.as_ref().expect("set above");
                if k == ViewKind::Points {
                    write_points(&dir.join("points.ply"), pts)?;
                    files.push("points.ply".to_string());
                } else {
                    write_splats(&dir.join("splats.ply"), pts)?;
                    files.push("splats.ply".to_string());
                }
            }
            ViewKind::Voxels => {
                write_voxels(&dir.join("voxels.vox"), scene, req.seed)?;
                files.push("voxels.vox".to_string());
            }
        }
    }
    Ok(files)
}

/// `pts` as flat Gaussian splats (scale from the neighbour spacing, thin along the normal), a
/// 3DGS binary PLY.
pub fn write_splats(out: &Path, pts: &ScenePoints) -> Result<()> {
    let normals = pts
        .normals
        .clone()
        .ok_or_else(|| invalid(format!("{}: splats need normals; this cloud has none", out.display())))?;
    let cloud = bozkir_points::PointCloud { positions: pts.positions.clone(), normals, triangle: Vec::new() };
    let style = bozkir_points::SplatStyle::default();
    let grey = vec![[182u8, 176, 166]; cloud.len()];
    let colours = pts.colours.as_deref().unwrap_or(&grey);
    let splats = bozkir_points::splats_from_cloud_coloured(&cloud, colours, SPLAT_NEIGHBOURS, &style)
        .map_err(|e| invalid(format!("{}: {e}", out.display())))?;
    let bytes = bozkir_points::encode_splat_ply(&splats);
    bozkir_io::write_atomic(out, 1 << 16, |w| std::io::Write::write_all(w, &bytes))
        .map_err(|e| bozkir_io::IoError::io(out, e))?;
    Ok(())
}

/// The scene's surface voxelized at most [`VOX_ACROSS`] voxels across, coloured by height with
/// the terrain ramp, as MagicaVoxel `.vox`.
pub fn write_voxels(out: &Path, scene: &Scene, seed: u64) -> Result<()> {
    let (lo, hi) = scene.bounds().ok_or_else(|| invalid(format!("{}: empty", scene.what)))?;
    let across = (hi[0] - lo[0]).max(hi[1] - lo[1]).max(hi[2] - lo[2]);
    if across.is_nan() || across <= 0.0 {
        return Err(invalid(format!("{}: has no extent to voxelize", scene.what)));
    }
    let size = across / VOX_ACROSS;
    let columns = (((hi[0] - lo[0]) / size).ceil() + 1.0) * (((hi[1] - lo[1]) / size).ceil() + 1.0);
    let count = ((columns as usize) * VOX_POINTS_PER_COLUMN).clamp(1, MAX_POINTS);
    let pts = scene_points(scene, count, None, seed)?;
    // World (x east, y north, z up) → the volume frame (x, y up, z south).
    let yup: Vec<[f64; 3]> = pts.positions.iter().map(|p| [p[0], p[2], -p[1]]).collect();
    let occ =
        bozkir_points::voxelize_points(&yup, size, None).map_err(|e| invalid(format!("{}: {e}", out.display())))?;
    const BANDS: usize = 16;
    let ramp = Ramp::terrain();
    let palette: Vec<[u8; 4]> = (0..BANDS)
        .map(|k| {
            let c = ramp.sample(k as f64 / (BANDS - 1) as f64);
            [c[0], c[1], c[2], 255]
        })
        .collect();
    let ny = occ.dims[1];
    let (nx, nz) = (occ.dims[0], occ.dims[2]);
    let mut ids = vec![0u8; occ.cells.len()];
    for y in 0..ny {
        let band = 1 + (y * BANDS / ny.max(1)).min(BANDS - 1) as u8;
        for z in 0..nz {
            for x in 0..nx {
                let i = occ.index(x, y, z);
                if occ.cells[i] != 0 {
                    ids[i] = band;
                }
            }
        }
    }
    bozkir_io::export::vox::write_vox(out, occ.dims, &ids, &palette)?;
    Ok(())
}

/// Writes a mesh scene as `.obj`, `.ply` (binary, normals and colours when present) or `.glb`
/// (vertex colours; glTF's y-up frame, so `(x, y, z) → (x, z, −y)`). OBJ and PLY keep the world
/// frame (z up). Clouds and splats are refused (they have no triangles).
pub fn write_mesh(out: &Path, scene: &Scene) -> Result<()> {
    let SceneGeometry::Mesh(m) = &scene.geometry else {
        return Err(invalid(format!("{} has no triangles to write as a mesh (use `bozkir points`)", scene.what)));
    };
    let ext = out.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    let mr = bozkir_io::export::geometry::MeshRef {
        positions: &m.positions,
        normals: m.normals.as_deref(),
        colours: m.colours.as_deref(),
        indices: &m.indices,
    };
    match ext.as_str() {
        "obj" => Ok(bozkir_io::export::geometry::write_obj_mesh(out, &mr)?),
        "ply" => Ok(bozkir_io::export::geometry::write_ply_mesh(out, &mr)?),
        "glb" => {
            use bozkir_io::export::gltf;
            let to_gltf = |p: &[f32; 3]| [p[0], p[2], -p[1]];
            let positions: Vec<[f32; 3]> = m.positions.iter().map(to_gltf).collect();
            let normals: Vec<[f32; 3]> =
                m.normals.as_ref().map(|n| n.iter().map(to_gltf).collect()).unwrap_or_default();
            let colours: Vec<[f32; 3]> =
                m.colours.as_ref().map(|c| c.iter().map(|c| c.map(crate::world::linear)).collect()).unwrap_or_default();
            let mesh = gltf::Mesh {
                name: "mesh",
                positions: &positions,
                normals: &normals,
                uvs: &[],
                colours: if colours.is_empty() { gltf::Colours::None } else { gltf::Colours::RgbF32(&colours) },
                indices: &m.indices,
            };
            let node = gltf::Node { name: "mesh", mesh: 0, instances: None };
            let sc = gltf::Scene { name: "bozkir", meshes: &[mesh], nodes: &[node] };
            Ok(gltf::write_scene(out, &sc)?)
        }
        _ => Err(invalid(format!("{}: unknown mesh extension {ext:?}: use .obj, .ply or .glb", out.display()))),
    }
}

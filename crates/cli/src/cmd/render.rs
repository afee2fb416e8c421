//! `bozkir render`: a still or a turntable of any scene (terrain or world folder, mesh, point
//! cloud, splats) with the software renderer, written as PNG, PPM, GIF or MP4.

use crate::args::{parse_size, UpArg};
use crate::progress::Bar;
use anyhow::{bail, Context, Result};
use bozkir_pipeline::views::{is_animation, load_scene, parse_fly, render_scene, write_images, RenderRequest};
use bozkir_render::raster::PointShading;
use std::path::PathBuf;

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum ShadeArg {
    /// The points' colours.
    Colour,
    /// Grey by distance.
    Depth,
    /// Normals as colours.
    Normal,
}

#[derive(clap::Args)]
pub struct Args {
    /// What to draw: a terrain or world folder, a mesh (.glb .gltf .obj .ply), a point cloud
    /// (.ply .xyz) or splats (.ply .splat .spz).
    pub scene: PathBuf,
    /// Output image: .png or .ppm (numbered files for a turntable), .gif, .mp4 (needs ffmpeg).
    #[arg(long)]
    pub out: PathBuf,
    /// Frames of a turntable around the scene (1 = a still).
    #[arg(long, default_value_t = 1)]
    pub turntable: usize,
    /// Camera elevation above the horizon, degrees.
    #[arg(long, default_value_t = 35.0)]
    pub elevation: f64,
    /// Camera azimuth of the (first) view, degrees clockwise from north.
    #[arg(long, default_value_t = 210.0)]
    pub azimuth: f64,
    /// Frames per second of a GIF or MP4.
    #[arg(long, default_value_t = 20.0)]
    pub fps: f64,
    /// An explicit camera, world frame (x east, y north, z up, metres): EX,EY,EZ:TX,TY,TZ (eye:target).
    #[arg(long, value_name = "EX,EY,EZ:TX,TY,TZ")]
    pub camera: Option<String>,
    /// A fly-through: a JSON file of keyframes `[{"eye": [x,y,z], "target": [x,y,z], "time": s}, …]`
    /// (world frame, seconds), joined by a Catmull–Rom spline and sampled at --fps.
    #[arg(long, value_name = "KEYFRAMES.json")]
    pub fly: Option<PathBuf>,
    /// Image size, WIDTHxHEIGHT.
    #[arg(long, default_value = "960x540")]
    pub size: String,
    /// Vertical field of view, degrees.
    #[arg(long, default_value_t = 40.0)]
    pub fov: f64,
    /// Which axis of a file points up.
    #[arg(long, value_enum, default_value_t = UpArg::Auto)]
    pub up: UpArg,
    /// Flat shading (one shade per triangle).
    #[arg(long)]
    pub flat: bool,
    /// No sun shadows.
    #[arg(long)]
    pub no_shadows: bool,
    /// Distance fog.
    #[arg(long)]
    pub fog: bool,
    /// Samples per pixel per axis (anti-aliasing), 1..4.
    #[arg(long, default_value_t = 2)]
    pub supersample: u32,
    /// Point radius in pixels (point clouds).
    #[arg(long, default_value_t = 1.5)]
    pub point_size: f64,
    /// How point clouds are coloured.
    #[arg(long, value_enum, default_value_t = ShadeArg::Colour)]
    shading: ShadeArg,
}

fn parse_camera(text: &str) -> Result<([f64; 3], [f64; 3])> {
    let bad = || anyhow::anyhow!("--camera {text:?}: expected EX,EY,EZ:TX,TY,TZ (numbers)");
    let (a, b) = text.split_once(':').ok_or_else(bad)?;
    let three = |t: &str| -> Result<[f64; 3]> {
        let v: Vec<f64> =
            t.split(',').map(|x| x.trim().parse::<f64>()).collect::<std::result::Result<_, _>>().map_err(|_| bad())?;
        let v = <[f64; 3]>::try_from(v).map_err(|_| bad())?;
        if v.iter().any(|x| !x.is_finite()) {
            bail!("--camera {text:?}: coordinates must be finite");
        }
        Ok(v)
    };
    Ok((three(a)?, three(b)?))
}

pub fn run(a: Args, quiet: bool) -> Result<()> {
    let (width, height) = parse_size(&a.size)?;
    let req = RenderRequest {
        width,
        height,
        fov_deg: a.fov,
        frames: a.turntable,
        elevation_deg: a.elevation,
        azimuth_deg: a.azimuth,
        camera: a.camera.as_deref().map(parse_camera).transpose()?,
        fly: match &a.fly {
            Some(p) => Some(
                parse_fly(&std::fs::read_to_string(p).with_context(|| format!("{}: cannot read", p.display()))?)
                    .with_context(|| p.display().to_string())?,
            ),
            None => None,
        },
        fly_fps: a.fps,
        flat: a.flat,
        shadows: !a.no_shadows,
        fog: a.fog,
        supersample: a.supersample,
        point_size_px: a.point_size,
        point_shading: match a.shading {
            ShadeArg::Colour => PointShading::Colour,
            ShadeArg::Depth => PointShading::Depth,
            ShadeArg::Normal => PointShading::Normal,
        },
    };
    req.check()?;
    // Refuse a bad extension, or a turntable into a still format, before any work.
    let animated = is_animation(&a.out)?;
    if !(a.fps.is_finite() && a.fps > 0.0 && a.fps <= 120.0) {
        bail!("--fps must be in (0, 120], got {}", a.fps);
    }
    if animated
        && a.out.extension().is_some_and(|e| e.eq_ignore_ascii_case("mp4"))
        && !bozkir_io::export::image::ffmpeg_available()
    {
        bail!("{}: MP4 needs ffmpeg on the PATH and none was found: install it (Debian: apt-get install ffmpeg) or write a .gif", a.out.display());
    }
    if let Some(dir) = a.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        if !dir.is_dir() {
            bail!("{}: the folder does not exist", dir.display());
        }
    }
    let scene = load_scene(&a.scene, a.up.into())?;
    let bar = Bar::new(quiet);
    let frames = render_scene(&scene, &req, &bar)?;
    bar.finish();
    let files = write_images(&a.out, &frames, a.fps)?;
    let what = if files.len() == 1 {
        files[0].display().to_string()
    } else {
        format!("{} files ({} … {})", files.len(), files[0].display(), files[files.len() - 1].display())
    };
    if let Some((lo, hi)) = scene.bounds() {
        println!(
            "scene box (world frame, x east, y north, z up): x {:.2}..{:.2}, y {:.2}..{:.2}, z {:.2}..{:.2}",
            lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]
        );
    }
    println!(
        "rendered {} ({} {}) into {} frame(s) of {width}×{height}: {what}",
        scene.what,
        scene.len(),
        match scene.geometry {
            bozkir_pipeline::views::SceneGeometry::Mesh(_) => "vertices",
            bozkir_pipeline::views::SceneGeometry::Cloud(_) => "points",
            bozkir_pipeline::views::SceneGeometry::Splats(_) => "splats",
        },
        frames.len()
    );
    Ok(())
}

//! `bozkir points`: a point cloud from any scene (area-weighted on meshes), optionally thinned
//! by exact farthest-point sampling, written as PLY or `.xyz`.

use crate::args::UpArg;
use anyhow::Result;
use bozkir_pipeline::views::{load_scene, scene_points, write_points};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// A terrain or world folder, a mesh (.glb .gltf .obj .ply), a point cloud (.ply .xyz) or
    /// splats (.ply .splat .spz).
    pub scene: PathBuf,
    /// Points to draw (a cloud or splat set with more is subsampled; with fewer, all are kept).
    #[arg(long, default_value_t = 100_000)]
    pub count: usize,
    /// Keep only this many of them, the farthest-spread (exact farthest-point sampling).
    #[arg(long)]
    pub fps: Option<usize>,
    /// Seed of the sampling.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Which axis of a file points up.
    #[arg(long, value_enum, default_value_t = UpArg::Auto)]
    pub up: UpArg,
    /// Output: .ply (binary, with normals and colours) or .xyz (text).
    #[arg(long)]
    pub out: PathBuf,
}

pub fn run(a: Args) -> Result<()> {
    let ext = a.out.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    if ext != "ply" && ext != "xyz" {
        anyhow::bail!("{}: unknown point-cloud extension {ext:?}: use .ply or .xyz", a.out.display());
    }
    let scene = load_scene(&a.scene, a.up.into())?;
    let pts = scene_points(&scene, a.count, a.fps, a.seed)?;
    write_points(&a.out, &pts)?;
    println!(
        "{} points from {} (world frame: x east, y north, z up) → {}",
        pts.positions.len(),
        scene.what,
        a.out.display()
    );
    Ok(())
}

//! `bozkir mesh`: any scene with triangles (a terrain or world folder, GLB, glTF, OBJ, PLY mesh)
//! written as one OBJ, PLY or GLB mesh with its normals and colours.

use crate::args::UpArg;
use anyhow::{bail, Result};
use bozkir_pipeline::views::{load_scene, write_mesh};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// A terrain or world folder, or a mesh file (.glb .gltf .obj .ply).
    pub scene: PathBuf,
    /// Which axis of a file points up.
    #[arg(long, value_enum, default_value_t = UpArg::Auto)]
    pub up: UpArg,
    /// Output: .obj or .ply (world frame, z up) or .glb (glTF's y up), with normals and colours.
    #[arg(long)]
    pub out: PathBuf,
}

pub fn run(a: Args) -> Result<()> {
    let ext = a.out.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    if !matches!(ext.as_str(), "obj" | "ply" | "glb") {
        bail!("{}: unknown mesh extension {ext:?}: use .obj, .ply or .glb", a.out.display());
    }
    let scene = load_scene(&a.scene, a.up.into())?;
    write_mesh(&a.out, &scene)?;
    println!("{} ({} vertices) → {}", scene.what, scene.len(), a.out.display());
    Ok(())
}

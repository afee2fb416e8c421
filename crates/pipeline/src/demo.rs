//! The demo scene on built-in defaults (`bozkir demo`, and the scene `bozkir site` and
//! `bozkir bench-viewer` show when given none): the canyon terrain with every output and its
//! baked textures, and the procedural starter tileset with its atlas.
//!
//! Steps: the terrain's (see [`crate::terrain`]), `bake`, `starter tileset`.

use crate::bake::{bake, BakeInputs, BakeRequest};
use crate::terrain::{terrain, TerrainOutcome, TerrainRequest};
use crate::{PipelineError, Result};
use bozkir_core::Observer;
use bozkir_splat::tiling::starter::{starter, StarterParams};
use std::path::Path;

/// Folder of the demo's terrain inside the scene.
pub const TERRAIN_DIR: &str = "terrain-canyon";
/// Folder of the demo's tileset inside the scene.
pub const TILESET_DIR: &str = "tileset-starter";

/// The demo scene's one choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DemoRequest {
    /// Side of the terrain in cells (4..=8192: the face checks it).
    pub size: usize,
}

/// What the demo scene holds.
#[derive(Debug, Clone)]
pub struct DemoOutcome {
    /// The canyon terrain's request (seed 3, 10 m cells, 1000 m of relief).
    pub terrain: TerrainRequest,
    /// What the terrain run produced.
    pub terrain_outcome: TerrainOutcome,
    /// The baked textures' size in texels (2 per cell).
    pub texture_size: (usize, usize),
    /// The starter tileset's tile count, classes and splat count.
    pub tiles: usize,
    /// The starter tileset's classes.
    pub classes: Vec<String>,
    /// The starter tileset's splats.
    pub splats: u64,
}

/// Write the demo scene into `dir` (which must exist): `terrain-canyon/` (the canyon profile,
/// seed 3, `size`² cells of 10 m, 1000 m of relief, baked at 2 texels per cell, the textures
/// listed in its sidecar) and `tileset-starter/` (the built-in two-material starter tileset
/// with its atlas, as `bozkir tileset` writes a tileset).
///
/// # Examples
///
/// ```
/// use bozkir_core::NoProgress;
/// use bozkir_pipeline::demo::{build_scene, DemoRequest, TERRAIN_DIR, TILESET_DIR};
///
/// let dir = tempfile::tempdir().unwrap();
/// let out = build_scene(&DemoRequest { size: 16 }, dir.path(), &NoProgress).unwrap();
/// assert_eq!(out.texture_size, (32, 32));
/// assert!(dir.path().join(TERRAIN_DIR).join("albedo.png").is_file());
/// assert!(dir.path().join(TILESET_DIR).join("tileset.json").is_file());
/// ```
pub fn build_scene(req: &DemoRequest, dir: &Path, obs: &dyn Observer) -> Result<DemoOutcome> {
    let terrain_dir = dir.join(TERRAIN_DIR);
    create_dir(&terrain_dir)?;
    let treq = TerrainRequest::profile("canyon", req.size, 3)?;
    let terrain_outcome = terrain(&treq, &terrain_dir, obs)?;
    // The textures of the viewer's mesh mode (albedo.png, normal.png), as `bozkir bake` writes.
    let inputs = BakeInputs::read(&terrain_dir)?;
    let texture_size =
        bake(&BakeRequest { inputs: &inputs, scale: 2, into_terrain: true, detail: None }, &terrain_dir, obs)?;
    obs.step("starter tileset");
    let tileset_dir = dir.join(TILESET_DIR);
    create_dir(&tileset_dir)?;
    let (ts, w, h, px) = starter(&StarterParams::default());
    bozkir_splat::formats::tileset::write_folder(&tileset_dir, &ts, w, h, px)?;
    let m = &ts.manifest;
    Ok(DemoOutcome {
        terrain: treq,
        terrain_outcome,
        texture_size,
        tiles: m.tiles.len(),
        classes: m.classes.clone(),
        splats: m.total,
    })
}

fn create_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir)
        .map_err(|source| PipelineError::Io(bozkir_io::IoError::Io { path: dir.to_path_buf(), error: source }))
}

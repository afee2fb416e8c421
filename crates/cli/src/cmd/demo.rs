//! `bozkir demo`: a viewer scene on built-in defaults — the canyon terrain with every output and
//! its baked textures (`OUT/terrain-canyon/`) and the procedural starter tileset (`OUT/tileset-starter/`) — then
//! the viewer serving it, unless `--no-serve`.

use crate::outputs::Staging;
use anyhow::Result;
use bozkir_splat::tiling::starter::{starter, StarterParams};
use std::path::{Path, PathBuf};

/// Folder of the demo's terrain inside the scene.
pub const TERRAIN_DIR: &str = "terrain-canyon";
/// Folder of the demo's tileset inside the scene.
pub const TILESET_DIR: &str = "tileset-starter";

#[derive(clap::Args)]
pub struct Args {
    /// Output directory (the scene: terrain-canyon/ and tileset-starter/).
    #[arg(long, default_value = "bozkir-demo")]
    out: PathBuf,
    /// Side of the terrain in cells.
    #[arg(long, default_value_t = 512)]
    size: usize,
    /// Port of the viewer's server (on 127.0.0.1).
    #[arg(long, default_value_t = 8737)]
    port: u16,
    /// Write the scene and stop, without serving it.
    #[arg(long)]
    no_serve: bool,
}

/// Write the demo scene into `out`: the canyon terrain (seed 3, `size`² cells of 10 m, 1000 m of
/// relief) baked at 2 texels per cell (`bozkir bake`), and the starter tileset.
pub fn build_scene(out: &Path, size: usize, quiet: bool) -> Result<()> {
    let t = super::terrain::Args {
        profile: "canyon".into(),
        recipe: None,
        seed: Some(3),
        size: Some(size),
        out: out.join(TERRAIN_DIR),
        cell_size: Some(10.0),
        height_range: 1000.0,
        tpi_radius: None,
        octaves: None,
        freq: None,
        ridge: None,
        relief: None,
        iterations: None,
        incision: None,
        diffusion: None,
        uplift: None,
        terraces: None,
        dome: None,
        tilt: None,
        stretch: None,
        gpu: "off".into(),
        until: None,
    };
    super::terrain::run(t, quiet)?;
    // The textures of the viewer's mesh mode (albedo.png, normal.png), as `bozkir bake` writes.
    let bake = super::bake::Args { dir: out.join(TERRAIN_DIR), scale: 2, out: None };
    super::bake::run(bake, quiet)?;
    write_starter(&out.join(TILESET_DIR))
}

/// The built-in two-material starter tileset (`bozkir_splat::tiling::starter`) with its atlas, written
/// as `bozkir tileset` writes a tileset.
pub fn write_starter(dir: &Path) -> Result<()> {
    let (ts, w, h, px) = starter(&StarterParams::default());
    let st = Staging::new(dir)?;
    // The staging folder itself (`unlisted("")`): the tileset's files are not in a sidecar.
    bozkir_splat::formats::tileset::write_folder(&st.unlisted(""), &ts, w, h, px)?;
    let moved = st.commit()?;
    println!(
        "starter tileset: {} tiles ({}), {} splats; wrote {} files to {}",
        ts.manifest.tiles.len(),
        ts.manifest.classes.join(", "),
        ts.manifest.total,
        moved.len(),
        dir.display()
    );
    Ok(())
}

pub fn run(a: Args, quiet: bool) -> Result<()> {
    build_scene(&a.out, a.size, quiet)?;
    println!("open {} for the shaded relief", a.out.join(TERRAIN_DIR).join("preview.png").display());
    if a.no_serve {
        println!("scene written to {}; view it with `bozkir serve {}`", a.out.display(), a.out.display());
        return Ok(());
    }
    let scene = crate::web::load_scene(&a.out)?;
    crate::web::serve_forever(scene, "127.0.0.1", a.port, true)
}

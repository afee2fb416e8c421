//! `bozkir demo`: a viewer scene on built-in defaults — the canyon terrain with every output and
//! its baked textures (`OUT/terrain-canyon/`) and the procedural starter tileset
//! (`OUT/tileset-starter/`), written by `bozkir_pipeline::demo::build_scene` — then the viewer
//! serving it, unless `--no-serve`.

use crate::outputs::Staging;
use crate::progress::Bar;
use crate::web;
use anyhow::Result;
use bozkir_pipeline::demo::{build_scene, DemoRequest, TERRAIN_DIR};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Output directory (the scene: terrain-canyon/ and tileset-starter/).
    #[arg(long, default_value = "bozkir-demo")]
    out: PathBuf,
    /// Side of the terrain in cells (always 5.12 km across: 10 m cells at 512).
    #[arg(long, default_value_t = 512)]
    size: usize,
    /// Port of the viewer's server (on 127.0.0.1).
    #[arg(long, default_value_t = 8737)]
    port: u16,
    /// Write the scene and stop, without serving it.
    #[arg(long)]
    no_serve: bool,
}

pub fn run(a: Args, quiet: bool) -> Result<()> {
    web::check_demo_size(a.size)?;
    let st = Staging::new(&a.out)?;
    let bar = Bar::new(quiet);
    let out = build_scene(&DemoRequest { size: a.size }, st.path(), &bar)?;
    let timings = bar.timings();
    bar.finish();
    let moved = st.commit()?;
    web::print_demo(&out, &timings);
    println!("wrote {} files to {}", moved.len(), a.out.display());
    println!("open {} for the shaded relief", a.out.join(TERRAIN_DIR).join("preview.png").display());
    if a.no_serve {
        println!("scene written to {}; view it with `bozkir serve {}`", a.out.display(), a.out.display());
        return Ok(());
    }
    let scene = web::load_scene(&a.out)?;
    web::serve_forever(scene, "127.0.0.1", a.port, true)
}

//! `bozkir serve [DIR]`: the browser viewer on a local HTTP server, showing the tilesets and
//! terrains found in DIR (see `bozkir_viewer` for what counts and the routes).

use anyhow::Result;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// A folder of tilesets (folders with tileset.json, or .zip files) and terrain folders
    /// (written by `bozkir terrain`), or one tileset or terrain folder itself.
    #[arg(default_value = ".")]
    pub dir: PathBuf,
    /// Port (0: any free port; the one chosen is printed).
    #[arg(long, default_value_t = 8737)]
    pub port: u16,
    /// Address to listen on. Anything but a loopback address shares the files with the network.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
}

pub fn run(a: Args) -> Result<()> {
    let scene = crate::web::load_scene(&a.dir)?;
    crate::web::serve_forever(scene, &a.host, a.port, false)
}

//! `bozkir export`: a terrain directory → the files a game engine or DCC tool imports.

use crate::outputs::Staging;
use anyhow::Result;
use bozkir_pipeline::export::{export, Engine, ExportRequest, TerrainLayers};
use clap::builder::TypedValueParser;
use std::path::PathBuf;

/// `--engine`: the pipeline's engine names, each with its help line.
fn engine_parser() -> impl TypedValueParser<Value = Engine> {
    use clap::builder::{PossibleValue, PossibleValuesParser};
    let values = Engine::ALL.map(|e| PossibleValue::new(e.name()).help(e.description()));
    PossibleValuesParser::new(values).map(|s| s.parse::<Engine>().expect("a listed engine name"))
}

#[derive(clap::Args)]
pub struct Args {
    /// A folder with heights written by `bozkir terrain`, `erode`, `analyze`, `world` or
    /// `heightmap` (terrain.json and the height TIFF it lists: height.tif, or dem.tif of
    /// `analyze`; landform.png, when present, becomes the weight maps' class map).
    pub dir: PathBuf,
    /// Target engine or format.
    #[arg(long, value_parser = engine_parser())]
    pub engine: Engine,
    /// Samples per side: a Unity resolution (2ⁿ+1, 33…4097) or an Unreal landscape size
    /// (default: the smallest fitting one).
    #[arg(long)]
    pub size: Option<usize>,
    /// Unreal only: vertices per tile side (e.g. 505, 1009); tiles share edges.
    #[arg(long)]
    pub tile: Option<usize>,
    /// glTF/OBJ only: quads per chunk side.
    #[arg(long, default_value_t = 64)]
    pub chunk: usize,
    /// glTF only: quantised mesh (KHR_mesh_quantization, which viewers must support): 16-bit
    /// positions on each chunk's grid (the node's translation and scale give metres; heights
    /// within half a height step, stated in the summary), 8-bit normals, 16-bit UVs and
    /// indices — about half the file of the default float mesh.
    #[arg(long)]
    pub quantise: bool,
    /// Output directory (created if missing).
    #[arg(long)]
    pub out: PathBuf,
}

pub fn run(a: Args, _quiet: bool) -> Result<()> {
    let req = ExportRequest {
        terrain: a.dir.clone(),
        engine: a.engine,
        size: a.size,
        tile: a.tile,
        chunk: a.chunk,
        quantise: a.quantise,
    };
    req.validate()?;
    let (_, h) = super::read_terrain_folder(&a.dir, "an export")?;
    let layers = TerrainLayers::read(&a.dir, &h)?;
    // The budget before a folder is made.
    super::check_budget(&bozkir_pipeline::export::export_cost(&req, &h, &layers))?;
    let st = Staging::new(&a.out)?;
    let done = export(&req, &h, &layers, &st.unlisted(""), &bozkir_core::NoProgress)?;
    let moved = st.commit()?;
    println!("{}", done.summary);
    println!("wrote {} files to {}", moved.len(), a.out.display());
    Ok(())
}

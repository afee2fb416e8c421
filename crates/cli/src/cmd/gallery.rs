//! `bozkir gallery`: every generator (19 profiles, the recipes, the worlds) generated small,
//! rendered headless, laid out as a contact sheet with turntable GIFs (`docs/gallery.md`).

use crate::outputs::{commit, Staging};
use crate::progress::Bar;
use anyhow::Result;
use bozkir_pipeline::gallery::{gallery, GalleryRequest};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Cells per side of the profiles and recipes.
    #[arg(long, default_value_t = 192)]
    pub size: usize,
    /// Cells per side of the 2-D worlds.
    #[arg(long, default_value_t = 128)]
    pub world_size: usize,
    /// Size of each still, WIDTHxHEIGHT.
    #[arg(long, default_value = "320x200")]
    pub still: String,
    /// Only items whose id (`profile-canyon`, `recipe-ds2`, `world-forest`, …) contains this;
    /// repeatable.
    #[arg(long)]
    pub only: Vec<String>,
    /// Items that get a turntable GIF (default: a chosen six); repeatable.
    #[arg(long)]
    pub turntable: Vec<String>,
    /// Output directory (created if missing).
    #[arg(long)]
    pub out: PathBuf,
}

pub fn run(a: Args, quiet: bool) -> Result<()> {
    let still = crate::args::parse_size(&a.still)?;
    let mut req =
        GalleryRequest { size: a.size, world_size: a.world_size, still, only: a.only, ..GalleryRequest::default() };
    if !a.turntable.is_empty() {
        req.turntables = a.turntable;
    }
    let st = Staging::new(&a.out)?.expecting(&["contact_sheet.png", "gallery.json"])?;
    let bar = Bar::new(quiet);
    let items = gallery(&req, st.path(), &bar)?;
    bar.finish();
    commit(st)?;
    println!("gallery of {} items in {}: contact_sheet.png, gallery.json", items.len(), a.out.display());
    Ok(())
}

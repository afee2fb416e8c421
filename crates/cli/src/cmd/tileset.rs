//! `bozkir tileset CAPTURE --out DIR`: from a ground capture to a seamless Wang tileset in one
//! command — prepare, search patches (one material or two), build the tiles with graph-cut
//! diagonals and merged levels of detail, render the atlas, measure, and give a verdict. With
//! `--rotations r` quarter turns of fewer real patches stand in for the missing colours.
//! `bozkir atlas TILESET` and `bozkir metrics TILESET` redo the last two steps on any tileset.

use crate::outputs::Staging;
use anyhow::{bail, Result};
use bozkir_core::{Grid, Observer, Progress};
use bozkir_splat::capture::patches::SearchSettings;
use bozkir_splat::formats::tileset;
use bozkir_splat::tiling::assess::{assess, assessment_lines};
use bozkir_splat::tiling::tileset::Tileset;
use bozkir_splat::tiling::{make_tileset, TilesetRequest};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// A ground capture: .ply (3DGS), .splat, .glb or .spz.
    pub capture: PathBuf,
    /// Output directory (tileset.json, tiles.splat, tiles.ply, atlas.png, report.json).
    #[arg(long)]
    pub out: PathBuf,
    /// Tile side in metres (default: from the capture's splat scale, clamped to 0.5..2).
    #[arg(long)]
    pub size: Option<f64>,
    /// Materials: `auto` (two when the capture holds two, else one), 1 or 2.
    #[arg(long, default_value = "auto")]
    pub classes: String,
    /// Edge colours per family (2..4); the minimal set has 2·k² tiles per class.
    #[arg(long, default_value_t = 2)]
    pub colours: u8,
    /// Quarter turns used as extra colours (1..4): with r > 1 only ⌈2·colours / r⌉ patches per
    /// class are searched and each also serves turned by 90°, 180°, … about +z, for captures
    /// with too little ground for 2·colours distinct patches.
    #[arg(long, default_value_t = 1)]
    pub rotations: u8,
    /// The complete set (k⁴ tiles per class) instead of the minimal one.
    #[arg(long)]
    pub complete: bool,
    /// Plain diagonals instead of graph-cut seams.
    #[arg(long)]
    pub no_cut: bool,
    /// Levels of detail per tile (1..8).
    #[arg(long, default_value_t = 4)]
    pub lod: u32,
    /// Most splats per tile at level 0.
    #[arg(long, default_value_t = 60_000)]
    pub max_per_tile: usize,
    /// Also clean the capture (crop, large splats, floaters) before searching.
    #[arg(long)]
    pub clean: bool,
    /// Atlas pixels per tile.
    #[arg(long, default_value_t = 64)]
    pub atlas_res: usize,
    /// Also write the tileset as one zip file inside the directory (DIR/NAME.zip, NAME the
    /// directory's name), ready to drop on the viewer.
    #[arg(long)]
    pub zip: bool,
    /// Seed of the layouts used for measuring.
    #[arg(long, default_value_t = 1)]
    pub seed: u32,
    /// Every control of the patch search (the same flags and presets as `bozkir patches`).
    #[command(flatten)]
    pub search: crate::args::SearchArgs,
}

#[derive(clap::Args)]
pub struct AtlasArgs {
    /// A tileset directory or zip.
    pub tileset: PathBuf,
    /// Pixels per tile.
    #[arg(long, default_value_t = 64)]
    pub res: usize,
    /// Output PNG (default: TILESET/atlas.png for a directory).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct MetricsArgs {
    /// A tileset directory or zip.
    pub tileset: PathBuf,
    /// Layout size (tiles per side) measured.
    #[arg(long, default_value_t = 8)]
    pub grid: usize,
    /// Pixels per tile.
    #[arg(long, default_value_t = 48)]
    pub res: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u32,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

fn rgb_grid(w: usize, h: usize, px: Vec<[u8; 3]>) -> Grid<[u8; 3]> {
    Grid::from_vec(w, h, px)
}

/// The tileset workflow's notes, printed as they come.
struct Lines;

impl Progress for Lines {}

impl Observer for Lines {
    fn note(&self, text: &str) {
        println!("{text}");
    }
}

/// The checked flags as the library's request.
fn request(a: &Args) -> Result<TilesetRequest> {
    if !(2..=4).contains(&a.colours) {
        bail!("--colours {}: 2, 3 or 4", a.colours);
    }
    let classes: Option<usize> = match a.classes.as_str() {
        "auto" => None,
        "1" => Some(1),
        "2" => Some(2),
        other => bail!("--classes {other}: auto, 1 or 2"),
    };
    if !(1..=4).contains(&a.rotations) {
        bail!("--rotations {}: 1, 2, 3 or 4 (quarter turns used as extra colours)", a.rotations);
    }
    if !(1..=8).contains(&a.lod) {
        bail!("--lod {}: 1..8", a.lod);
    }
    if !(8..=512).contains(&a.atlas_res) {
        bail!("--atlas-res {}: 8..512", a.atlas_res);
    }
    Ok(TilesetRequest {
        capture: a.capture.display().to_string(),
        size: a.size,
        classes,
        colours: a.colours,
        rotations: a.rotations,
        complete: a.complete,
        cut: !a.no_cut,
        lod: a.lod,
        max_per_tile: a.max_per_tile,
        clean: a.clean,
        atlas_res: a.atlas_res,
        seed: a.seed,
        search: SearchSettings::default(),
        class_names: Vec::new(),
    })
}

pub fn run(a: Args, quiet: bool) -> Result<()> {
    let mut req = request(&a)?;
    if !a.capture.exists() {
        bail!("{}: no such file", a.capture.display());
    }
    req.search = crate::args::resolve_search(&a.search)?;
    let raw = bozkir_splat::formats::load(&a.capture)?;
    if let (Some(size), Some(b)) = (req.size, raw.bounds()) {
        let [ex, ey, _] = b.extent().map(f64::from);
        let st = &req.search;
        let mut cost = bozkir_pipeline::budget::patch_search_cost(raw.len(), ex, ey, size, st.stride);
        cost.work *= st.max_steps as f64;
        super::check_budget(&cost)?;
    }
    println!("1. loaded {} splats (SH degree {}) from {}", raw.len(), raw.sh_degree(), a.capture.display());
    let out = make_tileset(&raw, &req, &Lines)?;
    let ts = &out.tileset;

    let st = Staging::new(&a.out)?;
    // The staging folder itself (`unlisted("")`): the tileset's files are not in a sidecar.
    let all = tileset::write_folder(&st.unlisted(""), ts, out.atlas_width, out.atlas_height, out.atlas)?;
    std::fs::write(st.unlisted("report.json"), serde_json::to_string_pretty(&out.report)? + "\n")?;
    let mut zipped = None;
    if a.zip {
        let z = tileset::zip_bytes(&all).map_err(|e| anyhow::anyhow!("{e}"))?;
        let name =
            format!("{}.zip", a.out.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or("tileset".into()));
        std::fs::write(st.unlisted(&name), z)?;
        zipped = Some(a.out.join(name));
    }
    let moved = st.commit()?;
    let _ = quiet;
    println!("verdict: {} — {}", out.verdict, out.reasons.join("; "));
    println!(
        "wrote {} files to {}{}",
        moved.len(),
        a.out.display(),
        zipped.map(|z| format!(" (single file: {})", z.display())).unwrap_or_default()
    );
    Ok(())
}

fn read_tileset(p: &Path) -> Result<Tileset> {
    if !p.exists() {
        bail!("{}: no such tileset", p.display());
    }
    // The zip caps follow --max-memory (an eighth per file, a quarter in all).
    tileset::read_with(p, bozkir_pipeline::budget::zip_limits()).map_err(|e| match e {
        tileset::TilesetFileError::EntryTooLarge { .. } | tileset::TilesetFileError::TotalTooLarge { .. } => {
            anyhow::anyhow!("{e} (raise it with --max-memory: the zip may inflate to a quarter of it)")
        }
        e => anyhow::anyhow!("{e}"),
    })
}

pub fn atlas(a: AtlasArgs) -> Result<()> {
    if !(8..=512).contains(&a.res) {
        bail!("--res {}: 8..512", a.res);
    }
    let mut ts = read_tileset(&a.tileset)?;
    let out = match (&a.out, a.tileset.is_dir()) {
        (Some(o), _) => o.clone(),
        (None, true) => a.tileset.join("atlas.png"),
        (None, false) => bail!("{}: give --out for a zipped tileset", a.tileset.display()),
    };
    let tiles = ts.manifest.tiles.len();
    super::check_budget(&bozkir_pipeline::budget::atlas_cost(tiles, a.res, ts.splats.len()))?;
    let (w, h, px) = ts.render_atlas(a.res);
    let tmp = out.with_extension("png.part");
    bozkir_io::write_rgb8(&tmp, &rgb_grid(w, h, px))?;
    std::fs::rename(&tmp, &out)?;
    if a.tileset.is_dir() && a.out.is_none() {
        let json = serde_json::to_vec_pretty(&ts.manifest)?;
        let m = a.tileset.join("tileset.json");
        let part = a.tileset.join("tileset.json.part");
        std::fs::write(&part, json)?;
        std::fs::rename(&part, &m)?;
    }
    println!("atlas of {} tiles ({w}×{h} px) written to {}", ts.manifest.tiles.len(), out.display());
    Ok(())
}

pub fn metrics(a: MetricsArgs) -> Result<()> {
    let ts = read_tileset(&a.tileset)?;
    let r = assess(&ts, a.grid, a.res, a.seed).map_err(|e| anyhow::anyhow!("{e}"))?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        println!("{}: {} tiles, {:.2} m", a.tileset.display(), ts.manifest.tiles.len(), ts.manifest.size);
        for line in assessment_lines(&r) {
            println!("{line}");
        }
    }
    Ok(())
}

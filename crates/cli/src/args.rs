//! Argument groups that several commands share (flattened into each command's `Args`), so that
//! no command reaches into another's module.

use anyhow::{bail, Context, Result};
use bozkir_pipeline::analysis::{Output, Outputs};
use bozkir_splat::capture::patches::preset::{PresetError, Presets};
use bozkir_splat::capture::patches::SearchSettings;
use std::path::{Path, PathBuf};

/// Metric scale for inputs that carry none (height PNGs are 0..1 with unit cells).
#[derive(clap::Args, Clone, Copy)]
pub struct Scale {
    /// Metres per cell, replacing the file's own spacing.
    #[arg(long)]
    pub cell_size: Option<f64>,
    /// Multiply heights by this many metres (for 0..1 height PNGs).
    #[arg(long)]
    pub height_range: Option<f64>,
}

impl Scale {
    pub fn apply(&self, mut h: bozkir_core::Grid<f64>) -> Result<bozkir_core::Grid<f64>> {
        if let Some(c) = self.cell_size {
            let c = bozkir_pipeline::heightmap::scale_in_range("cell-size", c)?;
            h = h.with_cell_size(c, c);
        }
        if let Some(r) = self.height_range {
            let r = bozkir_pipeline::heightmap::scale_in_range("height-range", r)?;
            let (dx, dy) = (h.dx, h.dy);
            h = h.map(|&v| v * r).with_cell_size(dx, dy);
        }
        Ok(h)
    }
}

/// Where a generated terrain is placed: its CRS and the CRS coordinates of its south-west
/// corner (docs/formats.md, "Georeferencing").
#[derive(clap::Args, Clone, Debug, Default)]
pub struct PlaceArgs {
    /// CRS of the outputs: `EPSG:<code>` of a projected CRS in metres (e.g. EPSG:32633), or
    /// `local` (default: a local metre frame).
    #[arg(long)]
    pub crs: Option<String>,
    /// CRS coordinates X,Y of the terrain's south-west corner (default 0,0).
    #[arg(long, value_name = "X,Y", allow_hyphen_values = true)]
    pub origin: Option<String>,
}

impl PlaceArgs {
    /// The placement of a `size_y`-row terrain of `cell`-metre cells.
    pub fn placement(&self, size_y: usize, cell: f64) -> Result<bozkir_pipeline::folder::Placement> {
        let crs = match &self.crs {
            Some(c) => bozkir_io::Crs::parse(c).map_err(|e| anyhow::anyhow!("--crs {e}"))?,
            None => bozkir_io::Crs::Local,
        };
        let origin = match &self.origin {
            None => (0.0, 0.0),
            Some(o) => {
                let v: Vec<&str> = o.split(',').collect();
                let num = |t: &str| t.trim().parse::<f64>().ok().filter(|v| v.is_finite());
                match v.as_slice() {
                    [x, y] => match (num(x), num(y)) {
                        (Some(x), Some(y)) => (x, y),
                        _ => anyhow::bail!("--origin {o:?}: X and Y must be finite numbers"),
                    },
                    _ => anyhow::bail!("--origin {o:?}: give X,Y (two numbers separated by a comma)"),
                }
            }
        };
        Ok(bozkir_pipeline::folder::Placement::generated(crs, origin, size_y, cell, cell)?)
    }
}

/// `--outputs`: the maps a terrain workflow writes (`terrain`, a recipe, `analyze`, `erode`).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct OutputsArg {
    /// Maps to write, comma-separated: height, filled (analyze only), d8, acc, streams,
    /// watersheds, slope, tpi, landform, skyview, preview, hand, twi, dinf, mfd, vectors; or all. The heights are always
    /// written, and only the analysis stages the maps need are run. `hand`, `twi`, `dinf`,
    /// `mfd` and `vectors` (stream segments as GeoJSON) add hydrology maps. Default: every map
    /// but those five (erode: height,preview).
    #[arg(long, value_name = "LIST")]
    pub outputs: Option<String>,
    /// Write the GeoTIFFs as Cloud-Optimised GeoTIFFs: 512² tiles, overviews, DEFLATE with the
    /// floating-point predictor (docs/formats.md).
    #[arg(long)]
    pub cog: bool,
}

impl OutputsArg {
    /// The set asked for, or `default`; `filled` named on a command other than `analyze`
    /// (`analyze = false`) is refused.
    pub fn resolve(&self, default: Outputs, analyze: bool) -> Result<Outputs> {
        let Some(list) = &self.outputs else { return Ok(default.with_cog(self.cog)) };
        if !analyze && list.split(',').any(|t| t.trim() == "filled") {
            bail!("--outputs filled: only `bozkir analyze` writes a filled surface");
        }
        let o = Outputs::parse(list)?.with_cog(self.cog);
        Ok(if analyze { o } else { o.without(Output::Filled) })
    }
}

/// What to do with a DEM's no-data voids (`analyze`, `erode`).
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct VoidArgs {
    /// Fill no-data voids with a smooth surface (harmonic interpolation from their valid
    /// borders; docs/formats.md, "Voids") instead of keeping them as no data.
    #[arg(long, conflicts_with = "crop")]
    pub fill_voids: bool,
    /// Crop the DEM: `largest-valid` keeps its largest all-valid rectangle (the window's offset
    /// goes into the sidecar and the georeference).
    #[arg(long, value_enum, value_name = "HOW")]
    pub crop: Option<Crop>,
}

/// `--crop`'s values.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Crop {
    /// The largest axis-aligned rectangle of valid cells.
    LargestValid,
}

/// What becomes of a DEM's voids when it is loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Voids {
    /// Kept as `NaN` (analysed as no data).
    Keep,
    /// Filled by harmonic interpolation.
    Fill,
    /// Cropped away: the largest all-valid rectangle is kept.
    Crop,
}

impl VoidArgs {
    /// The policy asked for; `keep` when neither option is given.
    pub fn policy(&self) -> Voids {
        match (self.fill_voids, self.crop) {
            (true, _) => Voids::Fill,
            (false, Some(Crop::LargestValid)) => Voids::Crop,
            (false, None) => Voids::Keep,
        }
    }
}

/// The rule's three controls, shared by `classify` and `validate-rule`.
#[derive(clap::Args, Clone, Debug)]
pub struct RuleOpts {
    /// "Follows height": weight of the height term (0..1).
    #[arg(long, default_value_t = 0.4)]
    pub altitude: f64,
    /// Patch size: median radius on the decision, in grid cells (0..16).
    #[arg(long, default_value_t = 2)]
    pub coherence: usize,
    /// Decisiveness (0.5..6): sets the width of the undecided band, never the boundary.
    #[arg(long, default_value_t = 2.0)]
    pub sharpness: f64,
}

/// The patch-search controls shared by `bozkir patches` and `bozkir tileset`: every filter,
/// and named presets.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct SearchArgs {
    /// Grid step between candidate centres, × size [default 0.5].
    #[arg(long)]
    pub stride: Option<f64>,
    /// Ground slab thickness, × size [default 0.25].
    #[arg(long)]
    pub thickness: Option<f64>,
    /// Largest tilt of a patch plane in degrees [default 12].
    #[arg(long)]
    pub max_tilt: Option<f64>,
    /// Largest share of splats below the ground slab [default 0.5].
    #[arg(long)]
    pub max_below: Option<f64>,
    /// Fewest splats in a patch [default 500].
    #[arg(long)]
    pub min_splats: Option<usize>,
    /// Smallest rendered coverage seen from above [default 0.8].
    #[arg(long)]
    pub min_cover: Option<f64>,
    /// Largest relief of a patch's rim, × size [default 0.2].
    #[arg(long)]
    pub edge_flat: Option<f64>,
    /// Smallest distance between chosen centres in x or y, × size [default 1].
    #[arg(long)]
    pub min_separation: Option<f64>,
    /// Weight of looking alike against score when choosing [default 1].
    #[arg(long)]
    pub similarity: Option<f64>,
    /// Smallest purity of a patch in a two-material split [default 0.9].
    #[arg(long)]
    pub min_purity: Option<f64>,
    /// Smallest class separation for a two-material split [default 5].
    #[arg(long)]
    pub min_class_separation: Option<f64>,
    /// Most attempts while loosening the filters [default 10].
    #[arg(long)]
    pub max_steps: Option<usize>,
    /// Start from this named preset (explicit flags win).
    #[arg(long)]
    pub preset: Option<String>,
    /// The presets file [default $BOZKIR_PRESETS, else $XDG_CONFIG_HOME/bozkir/patch_presets.json, else ~/.config/bozkir/patch_presets.json].
    #[arg(long)]
    pub presets: Option<PathBuf>,
}

/// The presets file: `--presets`, `$BOZKIR_PRESETS`, `$XDG_CONFIG_HOME/bozkir/…`, `~/.config/bozkir/…`.
pub fn presets_path(a: &SearchArgs) -> Result<PathBuf> {
    if let Some(p) = &a.presets {
        return Ok(p.clone());
    }
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(p) = env("BOZKIR_PRESETS") {
        return Ok(p);
    }
    if let Some(d) = env("XDG_CONFIG_HOME") {
        return Ok(d.join("bozkir").join("patch_presets.json"));
    }
    match env("HOME") {
        Some(h) => Ok(h.join(".config").join("bozkir").join("patch_presets.json")),
        None => bail!("no presets file: pass --presets FILE (no HOME or XDG_CONFIG_HOME set)"),
    }
}

/// The presets in `path` (none when the file does not exist).
pub fn read_presets(path: &Path) -> Result<Presets> {
    if !path.exists() {
        return Ok(Presets::default());
    }
    let text = std::fs::read_to_string(path).with_context(|| format!("{}: cannot read", path.display()))?;
    Presets::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

/// Defaults, then the preset, then the explicit search flags (not yet checked: callers set size,
/// count and classes, then check).
pub fn resolve_search(a: &SearchArgs) -> Result<SearchSettings> {
    let mut st = match &a.preset {
        None => SearchSettings::default(),
        Some(name) => {
            let path = presets_path(a)?;
            let skipped = &mut |k: &str| eprintln!("preset {name}: unknown key {k:?} skipped");
            read_presets(&path)?.from_name(name, skipped).map_err(|e| match e {
                PresetError::WrongType { source, .. } => {
                    anyhow::Error::new(source).context(format!("preset {:?} holds a value of the wrong type", a.preset))
                }
                e => anyhow::anyhow!("{}: {e}", path.display()),
            })?
        }
    };
    macro_rules! flag {
        ($($f:ident),*) => {$(if let Some(x) = a.$f { st.$f = x; })*};
    }
    flag!(
        stride,
        thickness,
        max_tilt,
        max_below,
        min_splats,
        min_cover,
        edge_flat,
        min_separation,
        similarity,
        min_purity,
        min_class_separation,
        max_steps
    );
    Ok(st)
}

/// `--up`: which axis of a scene file points up (`render`, `points`, `mesh`).
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum UpArg {
    /// The format's convention: y for .glb/.gltf/.obj, z for .ply/.xyz/splats.
    Auto,
    /// +y up.
    Y,
    /// +z up.
    Z,
}

impl From<UpArg> for bozkir_pipeline::views::UpAxis {
    fn from(u: UpArg) -> bozkir_pipeline::views::UpAxis {
        match u {
            UpArg::Auto => bozkir_pipeline::views::UpAxis::Auto,
            UpArg::Y => bozkir_pipeline::views::UpAxis::Y,
            UpArg::Z => bozkir_pipeline::views::UpAxis::Z,
        }
    }
}

/// `WxH` as two numbers.
pub fn parse_size(text: &str) -> Result<(usize, usize)> {
    let bad = || anyhow::anyhow!("--size {text:?}: expected WIDTHxHEIGHT, e.g. 960x540");
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(bad)?;
    Ok((w.trim().parse().map_err(|_| bad())?, h.trim().parse().map_err(|_| bad())?))
}

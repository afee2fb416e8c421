//! `bozkir bake`: a terrain directory → `albedo.png` and `normal.png` textures at 1–4× the grid.

use crate::outputs::Staging;
use anyhow::{bail, Result};
use bozkir_core::NoProgress;
use bozkir_pipeline::bake::{bake, BakeInputs, BakeRequest, DetailRequest};
use bozkir_render::antitile::{Tiling, TilingParams};
use std::path::{Path, PathBuf};

/// Largest texture side `bozkir bake` writes.
pub const MAX_BAKE_SIZE: usize = 16_384;

#[derive(clap::Args)]
pub struct Args {
    /// A terrain directory (terrain.json and height.tif; wear.tif, deposit.tif or sediment.tif
    /// and accumulation.tif, when present, steer the materials).
    pub dir: PathBuf,
    /// Texels per grid cell along each side (1..=4): the textures are scale·width × scale·height.
    #[arg(long, default_value_t = 2)]
    pub scale: usize,
    /// Output directory (default: the terrain directory, whose terrain.json then lists the
    /// textures).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// A photo over one material, `MATERIAL=PNG` (material: rock, scree, grass, snow, sand, soil; PNG grey
    /// or colour, 8 or 16 bits); repeat for several. The palette keeps each material's mean colour,
    /// the photo gives its grain (and tint).
    #[arg(long = "texture", value_name = "MATERIAL=PNG")]
    pub textures: Vec<String>,
    /// How the photos are sampled: plain, hex-linear, hex-vp, hex-mikkelsen or two-sample
    /// (`iq-untiled`). Only with --texture.
    #[arg(long, default_value = "hex-vp")]
    pub tiling: String,
    /// Metres per texture repeat (default: 48 texels of the output).
    #[arg(long)]
    pub texture_scale: Option<f64>,
    /// Share of the photos' contrast kept, 0–1.
    #[arg(long, default_value_t = 0.7)]
    pub texture_strength: f64,
    /// Side of the hex lattice's triangles in texture repeats (the hex modes).
    #[arg(long, default_value_t = 0.5)]
    pub hex_size: f64,
    /// A georeferenced RGB(A) GeoTIFF (an orthophoto, in the terrain's CRS) laid as the albedo
    /// where it covers the terrain; elsewhere the baked albedo stays. The terrain must be
    /// georeferenced (`analyze` of a GeoTIFF, or `--crs/--origin`).
    #[arg(long, value_name = "TIFF")]
    pub albedo_from: Option<PathBuf>,
}

/// The `--texture`/`--tiling` options as a request (`None` without `--texture`).
fn detail(a: &Args) -> Result<Option<DetailRequest>> {
    let Some(mode) = Tiling::parse(&a.tiling) else {
        bail!("--tiling {}: no such mode (one of {})", a.tiling, Tiling::names());
    };
    let textures = a
        .textures
        .iter()
        .map(|t| match t.split_once('=') {
            Some((m, p)) if !m.is_empty() && !p.is_empty() => Ok((m.to_string(), PathBuf::from(p))),
            _ => bail!("--texture {t}: expected MATERIAL=PNG (e.g. grass=data/textures/grass.png)"),
        })
        .collect::<Result<Vec<_>>>()?;
    let d = DetailRequest {
        textures,
        tiling: TilingParams { mode, hex_size: a.hex_size, ..TilingParams::default() },
        scale_m: a.texture_scale,
        strength: a.texture_strength,
        ..DetailRequest::default()
    };
    // The values are checked with or without --texture, so a bad one is never silently ignored.
    d.validate()?;
    if d.textures.is_empty() {
        return Ok(None);
    }
    for (_, p) in &d.textures {
        if !p.is_file() {
            bail!("--texture: {}: no such file", p.display());
        }
    }
    Ok(Some(d))
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

pub fn run(a: Args, _quiet: bool) -> Result<()> {
    if !(1..=4).contains(&a.scale) {
        bail!("--scale {}: must be 1..=4 texels per cell", a.scale);
    }
    let detail = detail(&a)?;
    if let Some(p) = &a.albedo_from {
        if !p.is_file() {
            bail!("--albedo-from: {}: no such file", p.display());
        }
    }
    let inputs = BakeInputs::read(&a.dir)?;
    let (w, h) = (inputs.height.width(), inputs.height.height());
    let (out_w, out_h) = (w * a.scale, h * a.scale);
    if out_w > MAX_BAKE_SIZE || out_h > MAX_BAKE_SIZE {
        bail!("--scale {}: {out_w}×{out_h} texels exceeds the {MAX_BAKE_SIZE}-texel limit per side", a.scale);
    }
    // The budget before a folder is made.
    super::check_budget(&bozkir_pipeline::budget::bake_cost(w, h, a.scale))?;
    let out = a.out.clone().unwrap_or_else(|| a.dir.clone());
    let into_terrain = same_dir(&out, &a.dir);
    // A bake into the terrain folder adds its textures to the terrain's files; elsewhere its
    // outputs replace the previous run's.
    let st = if into_terrain { Staging::adding(&out)? } else { Staging::new(&out)? };
    let with = detail.as_ref().map(|d| d.textures.len()).unwrap_or(0);
    let req = BakeRequest { inputs: &inputs, scale: a.scale, into_terrain, detail, albedo_from: a.albedo_from.clone() };
    let baked = bake(&req, st.path(), &NoProgress)?;
    let moved = st.commit()?;
    println!("baked {out_w}×{out_h} albedo and micro-normal ({}× the {w}×{h} grid)", a.scale);
    if let (Some(d), Some(p)) = (baked.drape, &a.albedo_from) {
        println!(
            "albedo from {}: {:.1} % of the texels (the rest keeps the baked albedo)",
            p.display(),
            100.0 * d.covered
        );
    }
    if with > 0 {
        println!("{with} photo(s) over the materials, sampled {}", a.tiling);
    }
    println!("wrote {} files to {}", moved.len(), out.display());
    Ok(())
}

//! `bozkir capture`: ground captures to work on — synthetic, from a coloured point cloud, or a
//! photo draped over a height field (see `bozkir_splat::capture`, `bozkir_pipeline::capture`).

use anyhow::{bail, Context, Result};
use bozkir_pipeline::capture::{points_capture, texture_capture, PointsRequest, TextureRequest};
use bozkir_splat::capture::{synth, Material, SynthParams};
use bozkir_splat::Splats;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub what: What,
}

#[derive(clap::Subcommand)]
pub enum What {
    /// A synthetic ground capture: sand and scrub (or one material) on gently rolling ground.
    Synth(SynthArgs),
    /// A coloured point cloud (LAS/LAZ with RGB, or PLY points) turned into splats, one per point.
    FromPoints(PointsArgs),
    /// A photo or orthophoto draped over a terrain, a DEM or flat ground, one splat per pixel.
    FromTexture(TextureArgs),
}

#[derive(clap::Args)]
pub struct SynthArgs {
    /// Output splat file (.ply, .splat, .glb or .spz).
    #[arg(long)]
    pub out: PathBuf,
    /// Materials: 2 (sand and scrub) or 1 (sand only).
    #[arg(long, default_value_t = 2)]
    pub materials: usize,
    /// Side of the square of ground in metres.
    #[arg(long, default_value_t = 4.0)]
    pub side: f64,
    /// Splats per square metre.
    #[arg(long, default_value_t = 8000.0)]
    pub density: f64,
    /// Feature size of the material patches in metres.
    #[arg(long, default_value_t = 1.2)]
    pub patch: f64,
    /// Floaters above the ground (count).
    #[arg(long, default_value_t = 0)]
    pub floaters: usize,
    /// A background wall this many metres outside the ground (0 = none).
    #[arg(long, default_value_t = 0.0)]
    pub background: f64,
    /// Tilt of the capture about x in degrees (as a camera frame would hold it).
    #[arg(long, default_value_t = 0.0)]
    pub tilt: f64,
    /// Write the capture upside down.
    #[arg(long)]
    pub upside_down: bool,
    #[arg(long, default_value_t = 0)]
    pub seed: u32,
}

#[derive(clap::Args)]
pub struct PointsArgs {
    /// LAS, LAZ or PLY point cloud with RGB.
    pub input: PathBuf,
    #[arg(long)]
    pub out: PathBuf,
    /// Keep the centred square of this side in metres (default: everything).
    #[arg(long)]
    pub crop: Option<f64>,
    /// Splat σ as a multiple of the local point spacing.
    #[arg(long, default_value_t = 0.6)]
    pub size: f64,
}

#[derive(clap::Args)]
pub struct TextureArgs {
    /// Image: a PNG (grey, grey+alpha, RGB, RGBA; 8 or 16 bits) or an RGB(A) GeoTIFF
    /// orthophoto (pixels without data make no splat).
    pub image: PathBuf,
    #[arg(long)]
    pub out: PathBuf,
    /// Side of the draped square in metres (long edge).
    #[arg(long, default_value_t = 2.0)]
    pub side: f64,
    /// What the photo is draped over (default: flat ground): a terrain directory, or a DEM
    /// file (GeoTIFF, NPZ, …). A georeferenced orthophoto over a georeferenced DEM is draped
    /// where the two overlap, resampled to square pixels.
    #[arg(long)]
    pub height: Option<PathBuf>,
    /// Height range of the drape in metres when --height is given (the terrain is rescaled).
    #[arg(long, default_value_t = 0.1)]
    pub relief: f64,
    /// Splat σ as a multiple of the pixel spacing.
    #[arg(long, default_value_t = 0.7)]
    pub size: f64,
    /// Colour the photo's mean takes, `#RRGGBB` or `R,G,B` (0..255): each pixel becomes this
    /// colour times its luminance over the mean luminance — for grey photos of coloured ground.
    #[arg(long)]
    pub tint: Option<String>,
    /// Shrink the photo (area average) to at most this many pixels on its long side first:
    /// fewer, larger splats.
    #[arg(long)]
    pub pixels: Option<usize>,
}

/// `#RRGGBB` or `R,G,B` (0..255) → sRGB in 0..1.
fn parse_tint(t: &str) -> Result<[f64; 3]> {
    let bad = || anyhow::anyhow!("--tint {t:?}: give #RRGGBB or R,G,B with each value in 0..255");
    if let Some(hex) = t.strip_prefix('#') {
        if hex.len() != 6 || !hex.is_ascii() {
            return Err(bad());
        }
        let ch = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).map(|v| f64::from(v) / 255.0).map_err(|_| bad());
        return Ok([ch(0)?, ch(2)?, ch(4)?]);
    }
    let parts: Vec<&str> = t.split(',').map(str::trim).collect();
    if parts.len() != 3 {
        return Err(bad());
    }
    let mut out = [0.0; 3];
    for (o, p) in out.iter_mut().zip(&parts) {
        let v: u8 = p.parse().map_err(|_| bad())?;
        *o = f64::from(v) / 255.0;
    }
    Ok(out)
}

fn check_out(p: &Path) -> Result<()> {
    if bozkir_splat::formats::Format::from_path(p).is_none() {
        bail!("{}: the output must end in .ply, .splat, .glb or .spz", p.display());
    }
    Ok(())
}

fn save(path: &Path, s: &Splats) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    }
    bozkir_splat::formats::save(path, s)?;
    Ok(())
}

fn report(s: &Splats, path: &Path) {
    let b = s.bounds().expect("non-empty");
    let e = b.extent();
    let [x, y, z] = e.map(|v| super::num(f64::from(v), 2));
    println!("wrote {} splats ({x} × {y} × {z} m) to {}", s.len(), path.display());
}

pub fn run(a: Args) -> Result<()> {
    match a.what {
        What::Synth(a) => run_synth(a),
        What::FromPoints(a) => run_from_points(a),
        What::FromTexture(a) => run_from_texture(a),
    }
}

/// `capture synth`: the synthetic capture.
fn run_synth(a: SynthArgs) -> Result<()> {
    check_out(&a.out)?;
    let materials = match a.materials {
        1 => vec![Material::sand()],
        2 => vec![Material::sand(), Material::scrub()],
        n => bail!("--materials {n}: 1 or 2"),
    };
    let p = SynthParams {
        side_m: a.side,
        density: a.density,
        materials,
        patch_m: a.patch,
        floaters: a.floaters,
        background_m: a.background,
        tilt_deg: a.tilt,
        upside_down: a.upside_down,
        seed: a.seed,
        ..SynthParams::default()
    };
    bozkir_splat::capture::check_synth(&p).map_err(|e| anyhow::anyhow!("capture synth: {e}"))?;
    let n = bozkir_splat::capture::synth_splats(&p);
    super::check_budget(&bozkir_pipeline::budget::splats_cost("capture synth", n))?;
    let c = synth(&p).map_err(|e| anyhow::anyhow!("capture synth: {e}"))?;
    save(&a.out, &c.splats)?;
    report(&c.splats, &a.out);
    Ok(())
}

/// `capture from-points`: a coloured LAS/LAZ cloud, optionally cropped, one splat per point.
fn run_from_points(a: PointsArgs) -> Result<()> {
    check_out(&a.out)?;
    let req = PointsRequest { input: a.input, crop: a.crop, size: a.size };
    let s = points_capture(&req, &bozkir_core::NoProgress)?;
    save(&a.out, &s)?;
    report(&s, &a.out);
    Ok(())
}

/// `capture from-texture`: a photo draped over a terrain folder's heights or flat ground.
fn run_from_texture(a: TextureArgs) -> Result<()> {
    check_out(&a.out)?;
    let tint = a.tint.as_deref().map(parse_tint).transpose()?;
    let req = TextureRequest {
        image: a.image,
        side: a.side,
        height: a.height,
        relief: a.relief,
        size: a.size,
        tint,
        pixels: a.pixels,
    };
    let s = texture_capture(&req, &bozkir_core::NoProgress)?;
    save(&a.out, &s)?;
    report(&s, &a.out);
    Ok(())
}

//! `bozkir bake`: a terrain directory → `albedo.png` and `normal.png` textures at 1–4× the grid.

use crate::outputs::Staging;
use anyhow::{bail, Result};
use bozkir_core::Grid;
use bozkir_io::{Encoding, Sidecar, SidecarFile};
use bozkir_render::{bake_albedo, bake_micro_normal, BakeMasks, BakeParams};
use bozkir_terrain::sculpt::masks::{flow_mask, normalise_mask};
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
}

/// The inputs of a bake read from a terrain directory.
struct Inputs {
    sidecar: Sidecar,
    height: Grid<f64>,
    wear: Option<Grid<f64>>,
    deposit: Option<Grid<f64>>,
    flow: Option<Grid<f64>>,
}

/// An optional layer of the height grid's shape, non-finite values as 0.
fn read_layer(path: &Path, w: usize, h: usize) -> Result<Option<Grid<f64>>> {
    Ok(super::read_optional_layer(path, w, h)?.map(|g| g.map(|&v| if v.is_finite() { f64::from(v) } else { 0.0 })))
}

fn read_inputs(dir: &Path) -> Result<Inputs> {
    let (sidecar, height) = super::read_terrain_folder(dir, "a bake")?;
    let (w, h) = (height.width(), height.height());
    // Normalised as `bozkir terrain --recipe` does: blur 2 cells, knee at the mean (seed 001 §5).
    let sigma = 2.0 * sidecar.dx_m.max(sidecar.dy_m);
    let cells = |g: Grid<f64>| g.with_cell_size(sidecar.dx_m, sidecar.dy_m);
    let wear = read_layer(&dir.join("wear.tif"), w, h)?.map(|g| normalise_mask(&cells(g), sigma, 1.0));
    let deposit = match read_layer(&dir.join("deposit.tif"), w, h)? {
        Some(g) => Some(g),
        None => read_layer(&dir.join("sediment.tif"), w, h)?,
    }
    .map(|g| normalise_mask(&cells(g), sigma, 1.0));
    let flow = read_layer(&dir.join("accumulation.tif"), w, h)?.map(|g| flow_mask(&cells(g), sigma, 1.0));
    Ok(Inputs { sidecar, height, wear, deposit, flow })
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
    let inp = read_inputs(&a.dir)?;
    let (w, h) = (inp.height.width(), inp.height.height());
    let (out_w, out_h) = (w * a.scale, h * a.scale);
    if out_w > MAX_BAKE_SIZE || out_h > MAX_BAKE_SIZE {
        bail!("--scale {}: {out_w}×{out_h} texels exceeds the {MAX_BAKE_SIZE}-texel limit per side", a.scale);
    }
    let out = a.out.clone().unwrap_or_else(|| a.dir.clone());
    let into_terrain = same_dir(&out, &a.dir);
    let p = BakeParams { seed: inp.sidecar.seed.unwrap_or(0) as u32, ..BakeParams::default() };
    let masks = BakeMasks { wear: inp.wear.as_ref(), deposit: inp.deposit.as_ref(), flow: inp.flow.as_ref() };
    let albedo = bake_albedo(&inp.height, &masks, &p, out_w, out_h);
    let normal = bake_micro_normal(&inp.height, &p, out_w, out_h);

    let mut st = Staging::new(&out)?;
    bozkir_io::write_rgb8(st.file("albedo.png", "albedo", Encoding::Rgb8), &albedo)?;
    bozkir_io::write_rgb8(st.file("normal.png", "micro_normal", Encoding::Rgb8), &normal)?;
    if into_terrain {
        // List the textures in the terrain's sidecar, replacing entries of an earlier bake.
        let mut sc = inp.sidecar;
        let new: Vec<SidecarFile> = std::mem::take(&mut st.files);
        sc.files.retain(|f| !new.iter().any(|n| n.path == f.path));
        sc.files.extend(new);
        sc.settings.insert("bake_scale".into(), a.scale.into());
        bozkir_io::write_sidecar(st.unlisted("terrain.json"), &sc)?;
    }
    let moved = st.commit()?;
    println!("baked {out_w}×{out_h} albedo and micro-normal ({}× the {w}×{h} grid)", a.scale);
    println!("wrote {} files to {}", moved.len(), out.display());
    Ok(())
}

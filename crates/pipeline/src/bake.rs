//! Albedo and micro-normal textures of a terrain folder at 1–4× its grid (`bozkir bake`).

use crate::folder::{read_optional_layer, read_terrain_folder, Folder, SIDECAR};
use crate::Result;
use bozkir_core::{Grid, Observer};
use bozkir_io::{Encoding, Sidecar, SidecarFile};
use bozkir_render::{bake_albedo, bake_micro_normal, BakeMasks, BakeParams};
use bozkir_terrain::sculpt::masks::{flow_mask, normalise_mask};
use std::path::Path;

/// The inputs of a bake, read from a terrain folder.
#[derive(Debug, Clone)]
pub struct BakeInputs {
    /// The folder's sidecar.
    pub sidecar: Sidecar,
    /// Heights in metres.
    pub height: Grid<f64>,
    /// `wear.tif`, normalised (blur 2 cells, knee at the mean), when present.
    pub wear: Option<Grid<f64>>,
    /// `deposit.tif` (else `sediment.tif`), normalised, when present.
    pub deposit: Option<Grid<f64>>,
    /// The flow mask of `accumulation.tif`, when present.
    pub flow: Option<Grid<f64>>,
}

/// An optional layer of the height grid's shape, non-finite values as 0.
fn read_layer(path: &Path, w: usize, h: usize) -> Result<Option<Grid<f64>>> {
    Ok(read_optional_layer(path, w, h)?.map(|g| g.map(|&v| if v.is_finite() { f64::from(v) } else { 0.0 })))
}

impl BakeInputs {
    /// Read the terrain folder `dir` (terrain.json and height.tif; wear.tif, deposit.tif or
    /// sediment.tif and accumulation.tif when present).
    pub fn read(dir: &Path) -> Result<Self> {
        let (sidecar, height) = read_terrain_folder(dir, "a bake")?;
        let (w, h) = (height.width(), height.height());
        // Normalised as a recipe run does: blur 2 cells, knee at the mean (seed 001 §5).
        let sigma = 2.0 * sidecar.dx_m.max(sidecar.dy_m);
        let cells = |g: Grid<f64>| g.with_cell_size(sidecar.dx_m, sidecar.dy_m);
        let wear = read_layer(&dir.join("wear.tif"), w, h)?.map(|g| normalise_mask(&cells(g), sigma, 1.0));
        let deposit = match read_layer(&dir.join("deposit.tif"), w, h)? {
            Some(g) => Some(g),
            None => read_layer(&dir.join("sediment.tif"), w, h)?,
        }
        .map(|g| normalise_mask(&cells(g), sigma, 1.0));
        let flow = read_layer(&dir.join("accumulation.tif"), w, h)?.map(|g| flow_mask(&cells(g), sigma, 1.0));
        Ok(Self { sidecar, height, wear, deposit, flow })
    }
}

/// A bake.
#[derive(Debug, Clone)]
pub struct BakeRequest<'a> {
    /// What the terrain folder holds.
    pub inputs: &'a BakeInputs,
    /// Texels per grid cell along each side (1..=4).
    pub scale: usize,
    /// Also write the terrain's sidecar, listing the textures (replacing entries of an earlier
    /// bake): for a bake into the terrain folder itself.
    pub into_terrain: bool,
}

/// Bake `albedo.png` and `normal.png` at `scale` texels per cell into `dir` (and `terrain.json`
/// when `into_terrain`). Returns the textures' size in texels.
///
/// Step: `bake`.
pub fn bake(req: &BakeRequest, dir: &Path, obs: &dyn Observer) -> Result<(usize, usize)> {
    let inp = req.inputs;
    let (out_w, out_h) = (inp.height.width() * req.scale, inp.height.height() * req.scale);
    // The textures' memory and work against the budget before anything is allocated.
    crate::budget::check(&crate::budget::bake_cost(inp.height.width(), inp.height.height(), req.scale))?;
    obs.step("bake");
    let p = BakeParams { seed: inp.sidecar.seed.unwrap_or(0) as u32, ..BakeParams::default() };
    let masks = BakeMasks { wear: inp.wear.as_ref(), deposit: inp.deposit.as_ref(), flow: inp.flow.as_ref() };
    let albedo = bake_albedo(&inp.height, &masks, &p, out_w, out_h);
    let normal = bake_micro_normal(&inp.height, &p, out_w, out_h);
    let mut f = Folder::new(dir);
    bozkir_io::write_rgb8(f.file("albedo.png", "albedo", Encoding::Rgb8), &albedo)?;
    bozkir_io::write_rgb8(f.file("normal.png", "micro_normal", Encoding::Rgb8), &normal)?;
    if req.into_terrain {
        let mut sc = inp.sidecar.clone();
        let new: Vec<SidecarFile> = f.take_files();
        sc.files.retain(|f| !new.iter().any(|n| n.path == f.path));
        sc.files.extend(new);
        sc.settings.insert("bake_scale".into(), req.scale.into());
        bozkir_io::write_sidecar(f.unlisted(SIDECAR), &sc)?;
    }
    Ok((out_w, out_h))
}

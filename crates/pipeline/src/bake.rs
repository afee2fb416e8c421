//! Albedo and micro-normal textures of a terrain folder at 1–4× its grid (`bozkir bake`).

use crate::antitile::load_texture;
use crate::folder::{read_optional_layer, read_terrain_folder, Folder, SIDECAR};
use crate::PipelineError;
use crate::Result;
use bozkir_core::{Grid, Observer};
use bozkir_io::{Encoding, Sidecar, SidecarFile};
use bozkir_render::antitile::{DetailTexture, TilingParams};
use bozkir_render::{bake_albedo_with, bake_micro_normal, BakeDetail, BakeMasks, BakeParams};
use bozkir_terrain::sculpt::masks::{flow_mask, normalise_mask};
use std::path::{Path, PathBuf};

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
    /// Water depth (m): below the sidecar's `sea_level_m` setting, and `water_depth.tif` when
    /// present.
    pub water: Option<Grid<f64>>,
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
        let sea = sidecar.settings.get("sea_level_m").and_then(|v| v.as_f64()).filter(|v| v.is_finite());
        let lakes = read_layer(&dir.join("water_depth.tif"), w, h)?;
        let water = crate::analysis::water_depth(&height, sea, lakes.as_ref());
        Ok(Self { sidecar, height, wear, deposit, flow, water })
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
    /// Photos laid over materials (`bozkir bake --texture`); `None` keeps the palette.
    pub detail: Option<DetailRequest>,
}

/// Photos over the albedo's materials ([`bozkir_render::BakeDetail`]).
#[derive(Debug, Clone, PartialEq)]
pub struct DetailRequest {
    /// `(material, photo)`: material one of `rock`, `scree`, `grass`, `snow`, each at most once.
    pub textures: Vec<(String, PathBuf)>,
    /// Sampling mode, lattice size, seed.
    pub tiling: TilingParams,
    /// Metres per texture repeat; `None`: 48 texels of the output.
    pub scale_m: Option<f64>,
    /// How much of each photo's contrast reaches the albedo (0–1).
    pub strength: f64,
    /// Triplanar exponent (1–16).
    pub triplanar_k: f64,
}

impl Default for DetailRequest {
    fn default() -> Self {
        Self { textures: Vec::new(), tiling: TilingParams::default(), scale_m: None, strength: 0.7, triplanar_k: 6.0 }
    }
}

/// Output texels per texture repeat when no scale is given.
pub const DEFAULT_TEXELS_PER_REPEAT: f64 = 48.0;

impl DetailRequest {
    /// Check the request before anything is read: known materials, each once, values in range.
    pub fn validate(&self) -> Result<()> {
        let mut seen = [false; 4];
        for (m, _) in &self.textures {
            let Some(i) = BakeDetail::MATERIALS.iter().position(|n| n == m) else {
                return Err(PipelineError::invalid(format!(
                    "texture for \"{m}\": no such material (one of {})",
                    BakeDetail::MATERIALS.join(", ")
                )));
            };
            if std::mem::replace(&mut seen[i], true) {
                return Err(PipelineError::invalid(format!("two textures for \"{m}\"")));
            }
        }
        if let Some(s) = self.scale_m {
            if !(s.is_finite() && (1e-3..=1e6).contains(&s)) {
                return Err(PipelineError::invalid(format!(
                    "texture scale {s} m: must be in [0.001, 10⁶] metres per repeat"
                )));
            }
        }
        if !(0.0..=1.0).contains(&self.strength) {
            return Err(PipelineError::invalid(format!("texture strength {}: must be in [0, 1]", self.strength)));
        }
        if !(1.0..=16.0).contains(&self.triplanar_k) {
            return Err(PipelineError::invalid(format!("triplanar exponent {}: must be in [1, 16]", self.triplanar_k)));
        }
        let h = self.tiling.hex_size;
        if !(h.is_finite() && (0.05..=16.0).contains(&h)) {
            return Err(PipelineError::invalid(format!("hex size {h}: must be in [0.05, 16] texture repeats")));
        }
        Ok(())
    }
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
    let masks = BakeMasks {
        wear: inp.wear.as_ref(),
        deposit: inp.deposit.as_ref(),
        flow: inp.flow.as_ref(),
        water: inp.water.as_ref(),
    };
    let textures: Vec<(usize, DetailTexture)> = match &req.detail {
        None => Vec::new(),
        Some(d) => {
            d.validate()?;
            d.textures
                .iter()
                .map(|(m, path)| {
                    let i = BakeDetail::MATERIALS.iter().position(|n| n == m).expect("validated");
                    load_texture(path).map(|t| (i, t))
                })
                .collect::<Result<_>>()?
        }
    };
    let detail = req.detail.as_ref().map(|d| {
        let texel = (inp.sidecar.dx_m.abs() * inp.height.width().saturating_sub(1).max(1) as f64 / out_w as f64)
            .max(inp.sidecar.dy_m.abs() * inp.height.height().saturating_sub(1).max(1) as f64 / out_h as f64);
        let mut set = [None; 4];
        for (i, t) in &textures {
            set[*i] = Some(t);
        }
        BakeDetail {
            textures: set,
            tiling: TilingParams { seed: p.seed, ..d.tiling },
            scale_m: d.scale_m.unwrap_or(DEFAULT_TEXELS_PER_REPEAT * texel),
            triplanar_k: d.triplanar_k,
            strength: d.strength,
        }
    });
    let albedo = bake_albedo_with(&inp.height, &masks, &p, detail.as_ref(), out_w, out_h);
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
        match (&req.detail, &detail) {
            (Some(d), Some(bd)) => {
                let tex: serde_json::Map<String, serde_json::Value> =
                    d.textures.iter().map(|(m, p)| (m.clone(), p.display().to_string().into())).collect();
                sc.settings.insert(
                    "bake_textures".into(),
                    serde_json::json!({
                        "textures": tex,
                        "tiling": bd.tiling.mode.name(),
                        "hex_size": bd.tiling.hex_size,
                        "scale_m": bd.scale_m,
                        "strength": bd.strength,
                        "triplanar_k": bd.triplanar_k,
                    }),
                );
            }
            _ => {
                sc.settings.remove("bake_textures");
            }
        }
        bozkir_io::write_sidecar(f.unlisted(SIDECAR), &sc)?;
    }
    Ok((out_w, out_h))
}

//! Albedo and micro-normal textures of a terrain folder at 1–4× its grid (`bozkir bake`).

use crate::antitile::load_texture;
use crate::folder::{read_optional_layer, read_terrain_folder, Folder, SIDECAR};
use crate::PipelineError;
use crate::Result;
use bozkir_core::{Grid, Observer};
use bozkir_io::{Encoding, Sidecar, SidecarFile};
use bozkir_render::antitile::{DetailTexture, TilingParams};
use bozkir_render::{bake_micro_normal, BakeDetail, BakeMasks, BakeParams};
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
    /// Water depth (m) the albedo paints cell by cell: below the sidecar's `sea_level_m`
    /// setting, and the lakes (`lakes`) where deeper; the rivers are drawn as lines
    /// ([`crate::rivers`]).
    pub water: Option<Grid<f64>>,
    /// Surface water off the sea (m; 0 where dry), what `water.tif` holds: lakes (the
    /// depression fill at least [`crate::analyze::LAKE_MIN_DEPTH_M`] deep), rivers (from
    /// `accumulation.tif`, see [`river_depth`]) and `water_depth.tif` when a stage recorded one,
    /// the deepest of them per cell. `None` when no cell is wet.
    pub surface: Option<Grid<f64>>,
    /// `surface` without the rivers: lakes and the recorded water layer, off the sea (what
    /// `lakes.tif` holds; the mesh look stands its surface on them). `None` when no cell is wet.
    pub lakes: Option<Grid<f64>>,
    /// The epsilon-filled heights the rivers' lines are drawn on, when the folder has
    /// `accumulation.tif` (the bake draws rivers only then).
    pub rivers: Option<Grid<f64>>,
    /// The height GeoTIFF the grid came from (its georeference places an orthophoto).
    pub height_path: PathBuf,
}

/// Cells a river starts draining: 1/100 of the grid, at least 64 (channels of that size read
/// as rivers at the grids bozkir makes, 256² to 8192²).
pub fn river_start_cells(cells: usize) -> f64 {
    (cells as f64 / 100.0).max(64.0)
}

/// River depth (m) of a cell draining `acc` cells when rivers start at `start` cells: 0 below
/// it, `0.4 · (acc / start)^0.4` above, at most 3 m (depth growing as a power of discharge,
/// the hydraulic-geometry form with the usual exponent near 0.4).
pub fn river_depth(acc: f64, start: f64) -> f64 {
    if acc < start {
        0.0
    } else {
        (0.4 * (acc / start).powf(0.4)).min(3.0)
    }
}

/// Lakes, rivers and a recorded water layer over `height` (see [`BakeInputs::surface`]).
#[cfg(test)]
fn surface_water(height: &Grid<f64>, acc: Option<&Grid<f64>>, recorded: Option<&Grid<f64>>) -> Option<Grid<f64>> {
    let filled = bozkir_terrain::hydrology::priority_flood::fill_epsilon(height);
    let (lakes, rivers) = water_parts(height, &filled, acc, recorded);
    let depth: Vec<f64> = lakes.iter().zip(&rivers).map(|(l, r)| l.max(*r)).collect();
    wet_grid(height, depth)
}

/// Fewest cells (8-connected) a lake keeps: a lone filled pit of a cell or three along a valley
/// floor is the DEM's noise, not a lake.
pub const LAKE_MIN_CELLS: usize = 4;

/// Per cell: lakes (the fill depth where at least [`crate::analyze::LAKE_MIN_DEPTH_M`], in
/// 8-connected bodies of at least [`LAKE_MIN_CELLS`] cells) or the recorded water, and rivers
/// ([`river_depth`] of `acc`), in metres.
fn water_parts(
    height: &Grid<f64>,
    filled: &Grid<f64>,
    acc: Option<&Grid<f64>>,
    recorded: Option<&Grid<f64>>,
) -> (Vec<f64>, Vec<f64>) {
    let start = river_start_cells(height.len());
    let (w, h) = (height.width(), height.height());
    let mut lake: Vec<f64> = (0..w * h)
        .map(|i| {
            let d = filled.data()[i] - height.data()[i];
            if d >= crate::analyze::LAKE_MIN_DEPTH_M {
                d
            } else {
                0.0
            }
        })
        .collect();
    // Bodies smaller than LAKE_MIN_CELLS dry out (flood fill over 8 neighbours).
    let mut seen = vec![false; w * h];
    let mut body = Vec::new();
    for s in 0..w * h {
        if seen[s] || lake[s] <= 0.0 {
            continue;
        }
        body.clear();
        body.push(s);
        seen[s] = true;
        let mut k = 0;
        while k < body.len() {
            let (x, y) = ((body[k] % w) as i64, (body[k] / w) as i64);
            k += 1;
            for (ox, oy) in [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)] {
                let (nx, ny) = (x + ox, y + oy);
                if nx < 0 || ny < 0 || nx >= w as i64 || ny >= h as i64 {
                    continue;
                }
                let j = ny as usize * w + nx as usize;
                if !seen[j] && lake[j] > 0.0 {
                    seen[j] = true;
                    body.push(j);
                }
            }
        }
        if body.len() < LAKE_MIN_CELLS {
            body.iter().for_each(|&i| lake[i] = 0.0);
        }
    }
    (0..w * h)
        .map(|i| {
            let river = acc.map_or(0.0, |a| river_depth(a.data()[i], start));
            (lake[i].max(recorded.map_or(0.0, |g| g.data()[i].max(0.0))), river)
        })
        .unzip()
}

/// `depth` as a grid of `height`'s shape and cell size, `None` when no cell is wet.
fn wet_grid(height: &Grid<f64>, depth: Vec<f64>) -> Option<Grid<f64>> {
    depth
        .iter()
        .any(|&d| d > 0.0)
        .then(|| Grid::from_vec(height.width(), height.height(), depth).with_cell_size(height.dx, height.dy))
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
        let acc = read_layer(&dir.join("accumulation.tif"), w, h)?.map(cells);
        let flow = acc.as_ref().map(|g| flow_mask(g, sigma, 1.0));
        let sea = sidecar.settings.get("sea_level_m").and_then(|v| v.as_f64()).filter(|v| v.is_finite());
        let recorded = read_layer(&dir.join("water_depth.tif"), w, h)?;
        // Off the sea only: below the sea level the sea's own depth is what counts.
        let level = sea.unwrap_or(f64::NEG_INFINITY);
        let filled = bozkir_terrain::hydrology::priority_flood::fill_epsilon(&height);
        let (lakes, rivers) = water_parts(&height, &filled, acc.as_ref(), recorded.as_ref());
        let off_sea = |i: usize, d: f64| if height.data()[i] < level { 0.0 } else { d };
        let surface = wet_grid(&height, (0..w * h).map(|i| off_sea(i, lakes[i].max(rivers[i]))).collect());
        let lakes = wet_grid(&height, (0..w * h).map(|i| off_sea(i, lakes[i])).collect());
        // The albedo paints the sea and the lakes cell by cell; the rivers come as lines.
        let water = crate::analysis::water_depth(&height, sea, lakes.as_ref());
        // The rivers' lines follow the same filled heights (kept, not filled twice).
        let rivers = acc.is_some().then_some(filled);
        let height_path = dir.join(crate::folder::height_tiff_name(&sidecar).map_err(PipelineError::Invalid)?);
        Ok(Self { sidecar, height, wear, deposit, flow, water, surface, lakes, rivers, height_path })
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
    /// A georeferenced RGB(A) GeoTIFF (an orthophoto) that replaces the albedo where it covers
    /// the terrain (`bozkir bake --albedo-from`, [`drape_albedo`]).
    pub albedo_from: Option<PathBuf>,
}

/// What a [`bake`] wrote: the textures' size and, with `albedo_from`, what the image covered.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Baked {
    pub width: usize,
    pub height: usize,
    pub drape: Option<Drape>,
}

/// What [`drape_albedo`] laid: the share of the albedo's texels the image covered.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Drape {
    pub covered: f64,
}

/// Lay a georeferenced orthophoto over `albedo` (texels of the terrain's grid at the bake's
/// scale, as [`bozkir_render::bake_albedo_with`] lays them: texel `(ox, oy)` at grid cell
/// `((ox + ½)(w − 1)/out_w, (oy + ½)(h − 1)/out_h)`): each texel centre is carried to the CRS by
/// the terrain's geotransform and read bilinearly from the image, in sRGB as stored, over the
/// corners that hold data; texels the image does not cover, or where no corner holds data, keep
/// the baked albedo. The terrain and the
/// image must both be georeferenced, in the same CRS, and overlap.
pub fn drape_albedo(albedo: &mut Grid<[u8; 3]>, inp: &BakeInputs, image: &Path) -> Result<Drape> {
    let bad = |m: String| Err(PipelineError::Invalid(m));
    let dem = bozkir_io::read_dem(&inp.height_path)?;
    let Some(tg) = dem.georef else {
        return bad(format!(
            "--albedo-from {}: the terrain ({}) has no georeference to place the image by",
            image.display(),
            inp.height_path.display()
        ));
    };
    let photo = bozkir_io::read_geotiff_rgb(image)?;
    let Some(pg) = photo.georef else {
        return bad(format!("--albedo-from {}: the image has no (north-up) georeference", image.display()));
    };
    if !crate::validation::same_crs(&dem.crs_kind, &photo.crs_kind) {
        return bad(format!(
            "--albedo-from {}: the image's CRS ({}) is not the terrain's ({})",
            image.display(),
            photo.crs_kind,
            dem.crs_kind
        ));
    }
    let (w, h) = (inp.height.width(), inp.height.height());
    let (out_w, out_h) = (albedo.width(), albedo.height());
    let (pw, ph) = (photo.rgb.width(), photo.rgb.height());
    // Bilinear over the corners that hold data, their weights renormalised (a lone NoData pixel
    // — an orthophoto's 255 also marks pure snow — takes its neighbours' colour); None outside
    // the image or where no corner holds data.
    let read = |c: f64, r: f64| -> Option<[f64; 3]> {
        if !(c >= 0.0 && r >= 0.0 && c <= (pw - 1) as f64 && r <= (ph - 1) as f64) {
            return None;
        }
        let (c0, r0) = (c.floor() as usize, r.floor() as usize);
        let (c1, r1) = ((c0 + 1).min(pw - 1), (r0 + 1).min(ph - 1));
        let (tx, ty) = (c - c0 as f64, r - r0 as f64);
        let mut sum = [0.0; 3];
        let mut wsum = 0.0;
        for (cc, rr, wt) in
            [(c0, r0, (1.0 - tx) * (1.0 - ty)), (c1, r0, tx * (1.0 - ty)), (c0, r1, (1.0 - tx) * ty), (c1, r1, tx * ty)]
        {
            if *photo.valid.get(cc, rr) && wt > 0.0 {
                let v = photo.rgb.get(cc, rr);
                (0..3).for_each(|k| sum[k] += wt * f64::from(v[k]));
                wsum += wt;
            }
        }
        (wsum > 1e-9).then(|| sum.map(|v| v / wsum))
    };
    let mut covered = 0usize;
    for oy in 0..out_h {
        for ox in 0..out_w {
            let gx = (ox as f64 + 0.5) * (w - 1) as f64 / out_w as f64;
            let gy = (oy as f64 + 0.5) * (h - 1) as f64 / out_h as f64;
            let (x, y) = tg.pixel_centre(gx, gy);
            let (c, r) = pg.to_pixel(x, y);
            if let Some(rgb) = read(c, r) {
                *albedo.get_mut(ox, oy) = rgb.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8);
                covered += 1;
            }
        }
    }
    if covered == 0 {
        return bad(format!("--albedo-from {}: the image does not overlap the terrain", image.display()));
    }
    Ok(Drape { covered: covered as f64 / (out_w * out_h) as f64 })
}

/// Photos over the albedo's materials ([`bozkir_render::BakeDetail`]).
#[derive(Debug, Clone, PartialEq)]
pub struct DetailRequest {
    /// `(material, photo)`: material one of `rock`, `scree`, `grass`, `snow`, `sand`, `soil`
    /// ([`BakeDetail::MATERIALS`]), each at most once.
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
        let mut seen = [false; BakeDetail::MATERIALS.len()];
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
pub fn bake(req: &BakeRequest, dir: &Path, obs: &dyn Observer) -> Result<Baked> {
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
        let mut set = [None; BakeDetail::MATERIALS.len()];
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
    let (mut albedo, materials) =
        bozkir_render::bake_albedo_materials(&inp.height, &masks, &p, detail.as_ref(), out_w, out_h);
    // Rivers as lines of their own width (crate::rivers), painted over the albedo by coverage
    // in the water colour of their depth.
    let lines = inp
        .rivers
        .as_ref()
        .and_then(|f| crate::rivers::river_lines(f, river_start_cells(inp.height.len()), out_w, out_h));
    if let Some(l) = &lines {
        for (a, &[cover, depth]) in albedo.data_mut().iter_mut().zip(l.data()) {
            if cover > 0.0 {
                let wc = bozkir_render::water_colour(bozkir_render::WATER, f64::from(depth));
                *a = std::array::from_fn(|k| {
                    (f64::from(a[k]) + (f64::from(wc[k]) - f64::from(a[k])) * f64::from(cover)).round() as u8
                });
            }
        }
    }
    let drape = req.albedo_from.as_deref().map(|img| drape_albedo(&mut albedo, inp, img)).transpose()?;
    let normal = bake_micro_normal(&inp.height, &p, out_w, out_h);
    let mut f = Folder::new(dir);
    bozkir_io::write_rgb8(f.file("albedo.png", "albedo", Encoding::Rgb8), &albedo)?;
    bozkir_io::write_rgb8(f.file("normal.png", "micro_normal", Encoding::Rgb8), &normal)?;
    if let Some(sw) = &inp.surface {
        // At the terrain's grid (not the texture's): the viewer lifts its mesh by it.
        let g32 = sw.map(|&v| v as f32);
        bozkir_io::write_tiff_f32(f.file("water.tif", "surface_water_depth_m", Encoding::TiffF32), &g32)?;
    }
    // The material each texel took (the mesh look lays each one's detail set by it), as
    // BakeDetail::MATERIAL_CODES (rock 50, scree 100, grass 150, snow 200, sand 250, soil 25);
    // water 0.
    let coded =
        materials.map(|&m| if m == bozkir_render::WATER_TEXEL { 0 } else { BakeDetail::MATERIAL_CODES[m as usize] });
    bozkir_io::write_png8(f.file("materials.png", "materials", Encoding::Png8), &coded)?;
    if let Some(lk) = &inp.lakes {
        let g32 = lk.map(|&v| v as f32);
        bozkir_io::write_tiff_f32(f.file("lakes.tif", "lake_depth_m", Encoding::TiffF32), &g32)?;
    }
    if let Some(l) = &lines {
        // Red: coverage; green: depth over 3 m (the deepest river_depth gives); blue 0.
        let rg = l.map(|&[c, d]| {
            [(c.clamp(0.0, 1.0) * 255.0).round() as u8, ((d / 3.0).clamp(0.0, 1.0) * 255.0).round() as u8, 0]
        });
        bozkir_io::write_rgb8(f.file("rivers.png", "river_lines", Encoding::Rgb8), &rg)?;
    }
    if req.into_terrain {
        let mut sc = inp.sidecar.clone();
        let new: Vec<SidecarFile> = f.take_files();
        sc.files.retain(|f| !new.iter().any(|n| n.path == f.path));
        for (file, wrote) in
            [("water.tif", inp.surface.is_some()), ("lakes.tif", inp.lakes.is_some()), ("rivers.png", lines.is_some())]
        {
            if !wrote && sc.files.iter().any(|f| f.path == file) {
                // An earlier bake's water that this terrain no longer has.
                sc.files.retain(|f| f.path != file);
                let stale = dir.join(file);
                std::fs::remove_file(&stale).map_err(|e| PipelineError::Io(bozkir_io::IoError::io(&stale, e)))?;
            }
        }
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
        match (&req.albedo_from, &drape) {
            (Some(img), Some(d)) => {
                sc.settings.insert(
                    "bake_albedo_from".into(),
                    serde_json::json!({ "image": img.display().to_string(), "covered": d.covered }),
                );
            }
            _ => {
                sc.settings.remove("bake_albedo_from");
            }
        }
        bozkir_io::write_sidecar(f.unlisted(SIDECAR), &sc)?;
    }
    Ok(Baked { width: out_w, height: out_h, drape })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lakes_are_the_fill_depth_where_at_least_half_a_metre() {
        // A plane tilted east with a bowl 2 m deep in the middle and a dent of 0.3 m.
        let h = Grid::from_fn(16, 16, |x, y| {
            let plane = 10.0 - 0.1 * x as f64;
            let bowl = if (5..9).contains(&x) && (5..9).contains(&y) { 2.0 } else { 0.0 };
            let dent = if (x, y) == (12, 3) { 0.3 } else { 0.0 };
            // A lone pit 2 m deep: deep enough, but one cell is the DEM's noise, not a lake.
            let pit = if (x, y) == (3, 12) { 2.0 } else { 0.0 };
            plane - bowl - dent - pit
        })
        .with_cell_size(10.0, 10.0);
        let w = surface_water(&h, None, None).expect("a lake");
        let filled = bozkir_terrain::hydrology::priority_flood::fill_epsilon(&h);
        for y in 0..16 {
            for x in 0..16 {
                let fill = filled.get(x, y) - h.get(x, y);
                let want = if fill >= crate::analyze::LAKE_MIN_DEPTH_M && (x, y) != (3, 12) { fill } else { 0.0 };
                assert_eq!(*w.get(x, y), want, "({x}, {y})");
            }
        }
        // The bowl spills east, over the plane at x = 9 (9.1 m): its cell at x = 8 (10 - 0.8 - 2
        // = 7.2 m) holds 1.9 m; the 0.3 m dent is no lake.
        assert!((w.get(8, 6) - 1.9).abs() < 1e-6, "{}", w.get(8, 6));
        assert_eq!(*w.get(12, 3), 0.0);
        // No water at all: None.
        let flat = Grid::from_fn(8, 8, |x, _| x as f64).with_cell_size(1.0, 1.0);
        assert!(surface_water(&flat, None, None).is_none());
    }

    #[test]
    fn river_depth_grows_as_a_power_of_the_drained_area() {
        assert_eq!(river_start_cells(512 * 512), 2621.44);
        assert_eq!(river_start_cells(100), 64.0);
        assert_eq!(river_depth(63.9, 64.0), 0.0);
        assert!((river_depth(64.0, 64.0) - 0.4).abs() < 1e-12);
        assert!((river_depth(64.0 * 32.0, 64.0) - 0.4 * 32f64.powf(0.4)).abs() < 1e-12);
        assert_eq!(river_depth(1e12, 64.0), 3.0);
    }
}

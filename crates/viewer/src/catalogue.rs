//! The scene a folder holds for the viewer: its tilesets and terrains ([`Scene::scan`]), each
//! converted once to the layout the page reads, `catalogue.json` ([`Scene::catalogue`]) and every
//! data file ([`Scene::data_files`]); see `docs/formats.md` "Viewer catalogue and data".

use crate::confine::{check_inside, open_inside};
use crate::error::{report, Result, ViewerError};
use crate::store::StoreEntry;
use bozkir_pipeline::folder::{height_tiff_name, read_optional_layer, read_terrain_folder};
use bozkir_splat::formats::tileset;
use bozkir_splat::tiling::tileset::Tileset;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Version of `catalogue.json`.
pub const CATALOGUE_FORMAT_VERSION: u32 = 1;

/// Where a tileset's files are read from.
#[derive(Debug, Clone)]
pub enum TilesetSource {
    /// A folder written by `bozkir tileset` (`tileset.json`, `tiles.splat`, `atlas.png`).
    Dir(PathBuf),
    /// A single-file tileset, served as `tileset.zip`.
    Zip(PathBuf),
}

/// A tileset of the scene, validated when the scene was read.
#[derive(Debug, Clone)]
pub struct TilesetEntry {
    /// Its name in URLs (`data/tilesets/NAME/`) and in the catalogue.
    pub name: String,
    /// Where its files are read from.
    pub source: TilesetSource,
    /// Number of tiles.
    pub tiles: usize,
    /// Material classes, in the manifest's order.
    pub classes: Vec<String>,
    /// Splats in all tiles.
    pub splats: u64,
    /// Tile side in metres.
    pub size: f64,
    /// Whether it has a texture atlas the viewer can load.
    pub atlas: bool,
    /// The served folder (canonical) every file of it is read from.
    root: PathBuf,
}

impl TilesetEntry {
    /// This tileset's entry in `catalogue.json`.
    fn catalogue_entry(&self) -> serde_json::Value {
        serde_json::json!({
            "name": self.name,
            "path": format!("data/tilesets/{}/", self.name),
            "tiles": self.tiles,
            "classes": self.classes,
            "splats": self.splats,
            "size": self.size,
            "atlas": self.atlas,
            "zip": matches!(self.source, TilesetSource::Zip(_)),
        })
    }

    /// The files served under `data/tilesets/NAME/`.
    pub fn files(&self) -> Vec<&'static str> {
        match self.source {
            TilesetSource::Zip(_) => vec!["tileset.zip"],
            TilesetSource::Dir(_) if self.atlas => vec!["tileset.json", "tiles.splat", "atlas.png"],
            TilesetSource::Dir(_) => vec!["tileset.json", "tiles.splat"],
        }
    }

    /// `file`, one of [`TilesetEntry::files`] (`None` for any other name), opened now as a
    /// [`Body::File`] (streamed, never read whole): refused with [`ViewerError::Outside`] when its
    /// name now resolves outside the served folder.
    pub fn read(&self, file: &str) -> Option<Result<Body>> {
        if !self.files().contains(&file) {
            return None;
        }
        let path = match &self.source {
            TilesetSource::Zip(p) => p.clone(),
            TilesetSource::Dir(d) => d.join(file),
        };
        Some(open_inside(&self.root, &path).map(|(f, len)| Body::File { file: Arc::new(f), len }))
    }
}

/// A terrain of the scene, converted once to the viewer's layout.
#[derive(Debug, Clone)]
pub struct TerrainEntry {
    /// Its name in URLs (`data/terrains/NAME/`) and in the catalogue.
    pub name: String,
    /// Cells west to east.
    pub width: usize,
    /// Cells north to south.
    pub height: usize,
    /// Cell side (west to east) in metres.
    pub cell_size_m: f64,
    /// Lowest height in metres.
    pub low_m: f64,
    /// Highest height in metres.
    pub high_m: f64,
    /// `terrain.json` as served.
    pub json: Arc<[u8]>,
    /// `heights.f32`: little-endian f32 metres, row 0 north.
    pub heights: Arc<[u8]>,
    /// `sediment.f32`: little-endian f32 in 0..1, when the folder has `sediment.tif`.
    pub sediment: Option<Arc<[u8]>>,
    /// `water.f32`: little-endian f32 depth of surface water in metres (lakes, rivers; 0 where
    /// dry), when `bozkir bake` wrote `water.tif` into the folder.
    pub water: Option<Arc<[u8]>>,
    /// `lakes.f32`: the same without the rivers (lakes and recorded water, metres), when `bozkir
    /// bake` wrote `lakes.tif`: the mesh look stands its water surface on these.
    pub lakes: Option<Arc<[u8]>>,
    /// `fold.f32`: the lateral fold of a recipe's `fold` stage, little-endian f32 pairs (east,
    /// south) in metres per cell, when the folder has `fold_east.tif` and `fold_south.tif`: the
    /// mesh look moves its vertices by it.
    pub fold: Option<Arc<[u8]>>,
    /// `rivers.png` as `bozkir bake` wrote it (the rivers as lines: red coverage, green depth
    /// over 3 m), when present.
    pub rivers: Option<PathBuf>,
    /// `materials.png` as `bozkir bake` wrote it (the material of each albedo texel, grey
    /// 50·(index + 1), 0 water), when present.
    pub materials: Option<PathBuf>,
    /// `albedo.png` and `normal.png` as `bozkir bake` wrote them into the folder, when present
    /// (read from disk when asked for, like a tileset's files).
    pub albedo: Option<PathBuf>,
    /// See `albedo`.
    pub normal: Option<PathBuf>,
    /// The recipe the folder came from (its sidecar's `settings.recipe`), when it says.
    pub recipe: Option<String>,
    /// The sea level in metres (its sidecar's `settings.sea_level_m`), when it has a sea: the
    /// mesh look draws water up to it.
    pub sea_level_m: Option<f64>,
    /// The served folder (canonical) the baked textures are read from.
    root: PathBuf,
}

impl TerrainEntry {
    /// This terrain's entry in `catalogue.json`.
    fn catalogue_entry(&self) -> serde_json::Value {
        let mut e = serde_json::json!({
            "name": self.name,
            "path": format!("data/terrains/{}/", self.name),
            "width": self.width,
            "height": self.height,
            "cell_size_m": self.cell_size_m,
            "sediment": self.sediment.is_some(),
            "water": self.water.is_some(),
            "lakes": self.lakes.is_some(),
            "fold": self.fold.is_some(),
            "rivers": self.rivers.is_some(),
            "materials": self.materials.is_some(),
            "albedo": self.albedo.is_some(),
            "normal": self.normal.is_some(),
        });
        if let Some(r) = &self.recipe {
            e["recipe"] = r.clone().into();
        }
        if let Some(l) = self.sea_level_m {
            e["sea_level_m"] = l.into();
        }
        e
    }

    /// The files served under `data/terrains/NAME/`.
    pub fn files(&self) -> Vec<&'static str> {
        let mut v = vec!["terrain.json", "heights.f32"];
        if self.sediment.is_some() {
            v.push("sediment.f32");
        }
        if self.water.is_some() {
            v.push("water.f32");
        }
        if self.lakes.is_some() {
            v.push("lakes.f32");
        }
        if self.fold.is_some() {
            v.push("fold.f32");
        }
        if self.rivers.is_some() {
            v.push("rivers.png");
        }
        if self.materials.is_some() {
            v.push("materials.png");
        }
        if self.albedo.is_some() {
            v.push("albedo.png");
        }
        if self.normal.is_some() {
            v.push("normal.png");
        }
        v
    }

    /// The bytes of `file`, one of [`TerrainEntry::files`] (`None` for any other name): the
    /// converted layers as kept, the baked textures opened now as a [`Body::File`] (refused with
    /// [`ViewerError::Outside`] when the name now resolves outside the served folder).
    pub fn read(&self, file: &str) -> Option<Result<Body>> {
        let disk = |p: &Option<PathBuf>| {
            p.as_ref().map(|p| open_inside(&self.root, p).map(|(f, len)| Body::File { file: Arc::new(f), len }))
        };
        match file {
            "terrain.json" => Some(Ok(Body::Shared(self.json.clone()))),
            "heights.f32" => Some(Ok(Body::Shared(self.heights.clone()))),
            "sediment.f32" => self.sediment.clone().map(|b| Ok(Body::Shared(b))),
            "water.f32" => self.water.clone().map(|b| Ok(Body::Shared(b))),
            "lakes.f32" => self.lakes.clone().map(|b| Ok(Body::Shared(b))),
            "fold.f32" => self.fold.clone().map(|b| Ok(Body::Shared(b))),
            "rivers.png" => disk(&self.rivers),
            "materials.png" => disk(&self.materials),
            "albedo.png" => disk(&self.albedo),
            "normal.png" => disk(&self.normal),
            _ => None,
        }
    }
}

/// What a folder holds for the viewer.
#[derive(Debug, Clone, Default)]
pub struct Scene {
    /// Its tilesets, in the order found (the first is the page's default).
    pub tilesets: Vec<TilesetEntry>,
    /// Its terrains, in the order found (the first is the page's default).
    pub terrains: Vec<TerrainEntry>,
    /// Its tiled world stores (`bozkir tiled`), streamed by `store.html` (see [`crate::store`]).
    pub stores: Vec<Arc<StoreEntry>>,
}

/// A name safe in a URL and as a folder name: ASCII letters, digits, `-`, `_` and `.` (other
/// characters become `-`), never starting with a dot.
fn url_name(raw: &str) -> String {
    let s: String =
        raw.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '-' }).collect();
    let s = s.trim_start_matches('.').to_string();
    if s.is_empty() {
        "scene".into()
    } else {
        s
    }
}

fn folder_name(p: &Path) -> String {
    let p = p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    url_name(&p.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default())
}

fn tileset_entry(root: &Path, name: String, path: &Path, source: TilesetSource) -> Result<TilesetEntry> {
    // Every file the reader or the server would open stays inside the served folder.
    match &source {
        TilesetSource::Zip(p) => check_inside(root, p)?,
        TilesetSource::Dir(d) => {
            for f in ["", "tileset.json", "tiles.splat", "tiles.ply", "atlas.png"] {
                check_inside(root, &d.join(f))?;
            }
        }
    }
    // The zip caps follow the process budget (`--max-memory`): an eighth per file, a quarter in all.
    let ts: Tileset = tileset::read_with(path, bozkir_pipeline::budget::zip_limits()).map_err(ViewerError::Tileset)?;
    let m = &ts.manifest;
    let atlas = match &source {
        TilesetSource::Dir(d) => {
            if !d.join("tiles.splat").is_file() {
                return Err(ViewerError::Invalid(
                    "no tiles.splat (the viewer streams it; rewrite the tileset with `bozkir tileset`)".into(),
                ));
            }
            m.atlas.is_some() && d.join("atlas.png").is_file()
        }
        TilesetSource::Zip(_) => m.atlas.is_some(),
    };
    Ok(TilesetEntry {
        name,
        source,
        tiles: m.tiles.len(),
        classes: m.classes.clone(),
        splats: m.total,
        size: m.size,
        atlas,
        root: root.to_path_buf(),
    })
}

fn f32_bytes(v: impl Iterator<Item = f32>) -> Arc<[u8]> {
    v.flat_map(f32::to_le_bytes).collect::<Vec<u8>>().into()
}

/// A baked texture of a terrain folder (`bozkir bake`): `dir/file` when it is a PNG of exactly
/// `k·width × k·height` pixels for some `k` in 1..=4 (an older or foreign file is left out).
fn baked_texture(dir: &Path, file: &str, w: usize, h: usize) -> Option<PathBuf> {
    let p = dir.join(file);
    let f = std::fs::File::open(&p).ok()?;
    let mut head = [0u8; 24];
    std::io::Read::read_exact(&mut std::io::BufReader::new(f), &mut head).ok()?;
    if &head[..8] != b"\x89PNG\r\n\x1a\n" || &head[12..16] != b"IHDR" {
        return None;
    }
    let pw = u32::from_be_bytes(head[16..20].try_into().ok()?) as usize;
    let ph = u32::from_be_bytes(head[20..24].try_into().ok()?) as usize;
    (1..=4).any(|k| (pw, ph) == (k * w, k * h)).then_some(p)
}

/// A terrain folder (`height.tif` with its `terrain.json` sidecar, optional `sediment.tif`, and
/// `albedo.png` / `normal.png` from `bozkir bake`) converted to the viewer's layout.
///
/// Every file it reads or serves must resolve inside the folder itself (see [`Scene::scan`] for a
/// scene's own served folder).
pub fn terrain_entry(name: String, dir: &Path) -> Result<TerrainEntry> {
    let root = dir.canonicalize().map_err(ViewerError::io(format!("{}: cannot resolve", dir.display())))?;
    terrain_entry_in(&root, name, dir)
}

const TERRAIN_FILES: [&str; 12] = [
    "height.tif",
    "terrain.json",
    "sediment.tif",
    "water.tif",
    "lakes.tif",
    "fold_east.tif",
    "fold_south.tif",
    "albedo.png",
    "normal.png",
    "rivers.png",
    "materials.png",
    "",
];

/// The height GeoTIFF another name than `height.tif` that a folder's `terrain.json` lists (an
/// `analyze` folder's `dem.tif`), when it is a file.
fn sidecar_height(dir: &Path) -> Option<PathBuf> {
    let side = dir.join("terrain.json");
    if !side.is_file() {
        return None;
    }
    let sc = bozkir_io::read_sidecar(&side).ok()?;
    let p = dir.join(height_tiff_name(&sc).ok()?);
    p.is_file().then_some(p)
}

fn terrain_entry_in(root: &Path, name: String, dir: &Path) -> Result<TerrainEntry> {
    for f in TERRAIN_FILES {
        check_inside(root, &dir.join(f))?;
    }
    if let Some(p) = sidecar_height(dir) {
        check_inside(root, &p)?;
    }
    let (sc, h) = read_terrain_folder(dir, "the viewer")?;
    let (w, hh) = (sc.width, sc.height);
    let sed = read_optional_layer(&dir.join("sediment.tif"), w, hh)?;
    let depths = |p: &str| -> Result<Option<Arc<[u8]>>> {
        Ok(read_optional_layer(&dir.join(p), w, hh)?
            .map(|g| f32_bytes(g.data().iter().map(|&v| if v.is_finite() { v.max(0.0) } else { 0.0 }))))
    };
    let water = depths("water.tif")?;
    let lakes = depths("lakes.tif")?;
    // The lateral fold, both components or none (non-finite offsets are 0).
    let fold = match (
        read_optional_layer(&dir.join("fold_east.tif"), w, hh)?,
        read_optional_layer(&dir.join("fold_south.tif"), w, hh)?,
    ) {
        (Some(e), Some(s)) => {
            let fin = |v: f32| if v.is_finite() { v } else { 0.0 };
            Some(f32_bytes(e.data().iter().zip(s.data()).flat_map(|(&a, &b)| [fin(a), fin(b)])))
        }
        _ => None,
    };
    let (low_m, high_m) = h.min_max().ok_or_else(|| ViewerError::Invalid("height.tif has no finite value".into()))?;
    let heights = f32_bytes(h.data().iter().map(|&v| v as f32));
    let sediment = sed.map(|g| {
        // Scaled into 0..1 when the layer goes above 1; non-finite cells are 0.
        let hi = g.data().iter().copied().filter(|v| v.is_finite()).fold(0.0f32, f32::max);
        let s = if hi > 1.0 { 1.0 / hi } else { 1.0 };
        f32_bytes(g.data().iter().map(move |&v| if v.is_finite() { (v * s).clamp(0.0, 1.0) } else { 0.0 }))
    });
    let json = serde_json::json!({
        "width": w,
        "height": hh,
        "cell_size_m": sc.dx_m,
        "cell_size_xy_m": [sc.dx_m, sc.dy_m],
        "height_range_m": high_m - low_m,
        "min_height_m": low_m,
        "max_height_m": high_m,
        "source": sc.source,
    });
    let json: Arc<[u8]> = (serde_json::to_string_pretty(&json).expect("JSON") + "\n").into_bytes().into();
    let albedo = baked_texture(dir, "albedo.png", w, hh);
    let normal = baked_texture(dir, "normal.png", w, hh);
    let rivers = baked_texture(dir, "rivers.png", w, hh);
    let materials = baked_texture(dir, "materials.png", w, hh);
    let recipe = sc.settings.get("recipe").and_then(|v| v.as_str()).map(str::to_string);
    let sea_level_m = sc.settings.get("sea_level_m").and_then(|v| v.as_f64()).filter(|v| v.is_finite());
    Ok(TerrainEntry {
        name,
        width: w,
        height: hh,
        cell_size_m: sc.dx_m,
        low_m,
        high_m,
        json,
        heights,
        sediment,
        water,
        lakes,
        fold,
        rivers,
        materials,
        albedo,
        normal,
        recipe,
        sea_level_m,
        root: root.to_path_buf(),
    })
}

impl Scene {
    /// Read what `dir` holds, one level deep: subfolders with `tileset.json` (tilesets),
    /// `.zip` tilesets, and terrain folders (`height.tif`); `dir` itself may also be a tileset
    /// folder, a terrain folder or a tileset zip. Entries that cannot be read are skipped, each
    /// with a warning naming the folder and the reason.
    ///
    /// The *served folder* is `dir` (the folder holding it when `dir` is a zip), resolved. A
    /// symbolic link is followed only when it resolves inside the served folder: an entry with a
    /// file that leaves it is skipped with a warning, and every file is checked again when served
    /// (see [`ViewerError::Outside`]).
    pub fn scan(dir: &Path) -> Result<(Scene, Vec<String>)> {
        if !dir.exists() {
            return Err(ViewerError::Invalid(format!("{}: no such folder", dir.display())));
        }
        let mut sc = Scene::default();
        let mut warnings = Vec::new();
        if dir.is_file() {
            if !is_zip(dir) {
                return Err(ViewerError::Invalid(format!("{}: not a folder or a tileset .zip", dir.display())));
            }
            let name = url_name(&dir.file_stem().unwrap_or_default().to_string_lossy());
            let real = dir.canonicalize().map_err(ViewerError::io(format!("{}: cannot resolve", dir.display())))?;
            let root = real.parent().unwrap_or(Path::new("/")).to_path_buf();
            let e = tileset_entry(&root, name, &real, TilesetSource::Zip(real.clone()))
                .map_err(|e| ViewerError::NotATileset { path: dir.to_path_buf(), source: Box::new(e) })?;
            sc.tilesets.push(e);
            return Ok((sc, warnings));
        }
        let root = dir.canonicalize().map_err(ViewerError::io(format!("{}: cannot resolve", dir.display())))?;
        sc.consider(&root, dir, folder_name(dir), &mut warnings);
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .map_err(ViewerError::io(format!("{}: cannot list", dir.display())))?
            .filter_map(|e| e.ok())
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let raw = e.file_name().to_string_lossy().into_owned();
            if raw.starts_with('.') {
                continue;
            }
            let p = e.path();
            if let Err(err) = check_inside(&root, &p) {
                if p.is_dir() || is_zip(&p) {
                    warnings.push(format!("{}: skipped: {}", p.display(), report(&err)));
                }
                continue;
            }
            if p.is_dir() {
                sc.consider(&root, &p, url_name(&raw), &mut warnings);
            } else if is_zip(&p) {
                let name = url_name(&p.file_stem().unwrap_or_default().to_string_lossy());
                match tileset_entry(&root, name, &p, TilesetSource::Zip(p.clone())) {
                    Ok(t) => sc.push_tileset(t, &mut warnings),
                    Err(err) => warnings.push(format!("{}: skipped: {}", p.display(), report(&err))),
                }
            }
        }
        Ok((sc, warnings))
    }

    fn consider(&mut self, root: &Path, dir: &Path, name: String, warnings: &mut Vec<String>) {
        if dir.join("zarr.json").is_file() && dir.join("height/zarr.json").is_file() {
            match StoreEntry::open(root, name.clone(), dir) {
                Ok(t) if self.stores.iter().any(|x| x.name == t.name) => {
                    warnings.push(format!("{}: skipped: a store named {} is already listed", dir.display(), t.name))
                }
                Ok(t) => self.stores.push(Arc::new(t)),
                Err(err) => warnings.push(format!("{}: skipped the store: {}", dir.display(), report(&err))),
            }
            return;
        }
        if dir.join("tileset.json").is_file() {
            match tileset_entry(root, name.clone(), dir, TilesetSource::Dir(dir.to_path_buf())) {
                Ok(t) => self.push_tileset(t, warnings),
                Err(err) => warnings.push(format!("{}: skipped the tileset: {}", dir.display(), report(&err))),
            }
        }
        if dir.join("height.tif").is_file() || sidecar_height(dir).is_some() {
            match terrain_entry_in(root, name, dir) {
                Ok(t) => {
                    if self.terrains.iter().any(|x| x.name == t.name) {
                        warnings.push(format!(
                            "{}: skipped: a terrain named {} is already listed",
                            dir.display(),
                            t.name
                        ));
                    } else {
                        self.terrains.push(t);
                    }
                }
                Err(err) => warnings.push(format!("{}: skipped the terrain: {}", dir.display(), report(&err))),
            }
        }
    }

    fn push_tileset(&mut self, t: TilesetEntry, warnings: &mut Vec<String>) {
        if self.tilesets.iter().any(|x| x.name == t.name) {
            let p = match &t.source {
                TilesetSource::Dir(p) | TilesetSource::Zip(p) => p,
            };
            warnings.push(format!("{}: skipped: a tileset named {} is already listed", p.display(), t.name));
        } else {
            self.tilesets.push(t);
        }
    }

    /// Whether it holds no tileset, no terrain and no store.
    pub fn is_empty(&self) -> bool {
        self.tilesets.is_empty() && self.terrains.is_empty() && self.stores.is_empty()
    }

    /// `catalogue.json`.
    pub fn catalogue(&self) -> serde_json::Value {
        let tilesets: Vec<_> = self.tilesets.iter().map(TilesetEntry::catalogue_entry).collect();
        let terrains: Vec<_> = self.terrains.iter().map(TerrainEntry::catalogue_entry).collect();
        let stores: Vec<_> = self.stores.iter().map(|s| s.catalogue_entry()).collect();
        serde_json::json!({
            "format_version": CATALOGUE_FORMAT_VERSION,
            "tilesets": tilesets,
            "terrains": terrains,
            "stores": stores,
            "default": {
                "tileset": self.tilesets.first().map(|t| t.name.clone()),
                "terrain": self.terrains.first().map(|t| t.name.clone()),
            },
        })
    }

    /// A few lines describing the scene, for the terminal.
    pub fn describe(&self) -> Vec<String> {
        let mut v = Vec::new();
        for t in &self.tilesets {
            v.push(format!(
                "  tileset {}: {} tiles of {} m, {} splats, classes {}{}{}",
                t.name,
                t.tiles,
                t.size,
                t.splats,
                t.classes.join(", "),
                if t.atlas { ", atlas" } else { "" },
                if matches!(t.source, TilesetSource::Zip(_)) { ", zip" } else { "" }
            ));
        }
        for t in &self.terrains {
            v.push(format!(
                "  terrain {}: {}×{} cells of {} m, {:.0}..{:.0} m{}{}{}",
                t.name,
                t.width,
                t.height,
                t.cell_size_m,
                t.low_m,
                t.high_m,
                if t.sediment.is_some() { ", sediment" } else { "" },
                if t.albedo.is_some() && t.normal.is_some() { ", baked textures" } else { "" },
                t.recipe.as_ref().map(|r| format!(", recipe {r}")).unwrap_or_default()
            ));
        }
        for t in &self.stores {
            v.push(format!(
                "  tiled world {}: {}² cells of {} m, {} levels — store.html?store={}",
                t.name,
                t.size(),
                t.cell_m(),
                t.levels,
                t.name
            ));
        }
        if v.is_empty() {
            v.push("  (no tileset and no terrain)".into());
        }
        v
    }

    /// Every data file as `(path under the site root, bytes)`: what `bozkir site` writes. Files
    /// on disk come as [`Body::File`] (opened, checked inside the served folder, not read).
    /// Tiled world stores are not among them: their nodes are cut on request by the server.
    pub fn data_files(&self) -> Result<Vec<(String, Body)>> {
        let mut out = Vec::new();
        for t in &self.tilesets {
            for f in t.files() {
                out.push((format!("data/tilesets/{}/{f}", t.name), t.read(f).expect("listed")?));
            }
        }
        for t in &self.terrains {
            for f in t.files() {
                out.push((format!("data/terrains/{}/{f}", t.name), t.read(f).expect("listed")?));
            }
        }
        Ok(out)
    }
}

fn is_zip(p: &Path) -> bool {
    p.extension().is_some_and(|e| e.eq_ignore_ascii_case("zip"))
}

/// Read a scene as [`Scene::scan`] does; the warnings (one line each, without a `warning: `
/// prefix) are the skipped entries and, when nothing was found, a line saying so.
///
/// # Examples
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let (scene, warnings) = bozkir_viewer::load_scene(dir.path()).unwrap();
/// assert!(scene.is_empty());
/// assert!(warnings[0].ends_with("and no terrain (a folder with height.tif, or a terrain.json naming its height GeoTIFF) found"));
/// ```
pub fn load_scene(dir: &Path) -> Result<(Scene, Vec<String>)> {
    let (scene, mut warnings) = Scene::scan(dir)?;
    if scene.is_empty() {
        warnings.push(format!(
            "{}: no tileset (a folder with tileset.json, or a .zip) and no terrain (a folder with height.tif, or a terrain.json naming its height GeoTIFF) found",
            dir.display()
        ));
    }
    Ok((scene, warnings))
}

/// A response body, or a data file's bytes.
#[derive(Debug, Clone)]
pub enum Body {
    /// Bytes built into the program (an embedded asset, a fixed answer).
    Static(&'static [u8]),
    /// Bytes converted once and shared between requests (a terrain's layers, the catalogue).
    Shared(Arc<[u8]>),
    /// Bytes read or made for this one answer.
    Owned(Vec<u8>),
    /// A file opened for this one answer (checked inside the served folder), copied out in
    /// chunks of [`CHUNK`] bytes: an answer never holds a whole file in memory.
    File {
        /// The open file.
        file: Arc<std::fs::File>,
        /// Its length when opened (what `Content-Length` says).
        len: u64,
    },
}

/// Largest piece of a file held in memory while it is copied out (bytes).
pub const CHUNK: usize = 64 << 10;

impl Body {
    /// Length in bytes.
    pub fn len(&self) -> u64 {
        match self {
            Body::File { len, .. } => *len,
            b => b.bytes().map_or(0, |b| b.len() as u64),
        }
    }

    /// Whether it has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes, when held in memory (`None` for a [`Body::File`]).
    pub fn bytes(&self) -> Option<&[u8]> {
        match self {
            Body::Static(b) => Some(b),
            Body::Shared(b) => Some(b),
            Body::Owned(b) => Some(b),
            Body::File { .. } => None,
        }
    }

    /// Write bytes `start..start + len` to `w`; a file is read in chunks of [`CHUNK`] bytes.
    /// A file that ends early (shrunk since it was opened) is an `UnexpectedEof` error.
    pub fn write_range(&self, w: &mut dyn std::io::Write, start: u64, len: u64) -> std::io::Result<()> {
        use std::io::{Read, Seek, SeekFrom};
        let end = start.checked_add(len).filter(|&e| e <= self.len());
        let Some(end) = end else {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "range past the end of the body"));
        };
        match self {
            Body::File { file, .. } => {
                let mut f: &std::fs::File = file;
                f.seek(SeekFrom::Start(start))?;
                let mut buf = vec![0u8; CHUNK.min(len as usize)];
                let mut left = len;
                while left > 0 {
                    let n = (left as usize).min(buf.len());
                    f.read_exact(&mut buf[..n])?;
                    w.write_all(&buf[..n])?;
                    left -= n as u64;
                }
                Ok(())
            }
            b => w.write_all(&b.bytes().unwrap_or_default()[start as usize..end as usize]),
        }
    }
}

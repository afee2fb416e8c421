//! The `export` workflow: a terrain → the files a game engine or DCC tool imports.
//!
//! Heights go out in the engine's format (Unity `.r16`, Unreal 16-bit PNG tiles, Godot `.r16`
//! and EXR, glTF or OBJ meshes, all by [`bozkir_io::export`]); weight maps come from the soft
//! biome weights a recipe recorded, else from the terrain's class map; `export.json` lists what
//! was written.

use bozkir_core::{Grid, Observer};
use bozkir_io::export::{
    glb, glb_quantised, godot, mesh, obj, resample_bilinear, resample_nearest, unity, unreal, weights,
};
use bozkir_io::IoError;
use bozkir_material::biomes::{soft_biome_file, Palette};
use std::path::{Path, PathBuf};

/// Why an export could not run.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// A setting outside its range or one that does not apply to the engine.
    #[error("{0}")]
    Param(String),
    /// A layer of the terrain whose size differs from the heights'.
    #[error("{}: {}×{} cells, but height.tif is {}×{}", path.display(), got.0, got.1, want.0, want.1)]
    Size {
        /// The layer's file.
        path: PathBuf,
        /// Its size.
        got: (usize, usize),
        /// The heights' size.
        want: (usize, usize),
    },
    /// A file could not be read or written.
    #[error(transparent)]
    Io(#[from] IoError),
    /// The export implies more memory or work than the budget allows ([`crate::budget`]).
    #[error(transparent)]
    Budget(#[from] crate::budget::BudgetError),
    /// The manifest could not be written.
    #[error("{}: cannot write", path.display())]
    Manifest {
        /// The manifest's path.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: std::io::Error,
    },
}

/// Target of an export.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// `.r16` at 2ⁿ+1 with a note of the terrain size and height.
    Unity,
    /// 16-bit PNG at a recommended landscape size (optionally tiled) with the XY/Z scale note.
    Unreal,
    /// `.r16` and float32 OpenEXR in metres.
    Godot,
    /// glTF 2.0 binary mesh, one node per chunk.
    Gltf,
    /// Wavefront OBJ mesh, one object per chunk.
    Obj,
}

impl Engine {
    /// Every engine, in the order the CLI lists them.
    pub const ALL: [Engine; 5] = [Engine::Unity, Engine::Unreal, Engine::Godot, Engine::Gltf, Engine::Obj];

    /// The names [`Engine::from_str`](std::str::FromStr::from_str) accepts, in the order of [`Engine::ALL`].
    ///
    /// # Examples
    ///
    /// ```
    /// use bozkir_pipeline::export::Engine;
    /// assert_eq!(Engine::names(), ["unity", "unreal", "godot", "gltf", "obj"]);
    /// assert_eq!("gltf".parse::<Engine>(), Ok(Engine::Gltf));
    /// assert!("blender".parse::<Engine>().is_err());
    /// ```
    pub fn names() -> [&'static str; 5] {
        Engine::ALL.map(Engine::name)
    }

    /// One line on what the engine's export holds (the CLI's help for the value).
    pub fn description(self) -> &'static str {
        match self {
            Engine::Unity => "`.r16` at 2ⁿ+1 with a note of the terrain size and height",
            Engine::Unreal => "16-bit PNG at a recommended landscape size (optionally tiled) with the XY/Z scale note",
            Engine::Godot => "`.r16` and float32 OpenEXR in metres",
            Engine::Gltf => "glTF 2.0 binary mesh, one node per chunk",
            Engine::Obj => "Wavefront OBJ mesh, one object per chunk",
        }
    }

    /// The engine's name as the CLI spells it and `export.json` records it.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Unity => "unity",
            Engine::Unreal => "unreal",
            Engine::Godot => "godot",
            Engine::Gltf => "gltf",
            Engine::Obj => "obj",
        }
    }
}

/// A name that is not one of [`Engine::names`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown engine {0:?} (engines: {names})", names = Engine::names().join(", "))]
pub struct UnknownEngine(pub String);

impl std::str::FromStr for Engine {
    type Err = UnknownEngine;

    /// The engine named `s` exactly as [`Engine::name`] spells it.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Engine::ALL.into_iter().find(|e| e.name() == s).ok_or_else(|| UnknownEngine(s.to_string()))
    }
}

/// One export: the engine and its settings.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportRequest {
    /// The terrain directory (recorded in `export.json`; its class map and soft biome weights are
    /// read by [`TerrainLayers::read`]).
    pub terrain: PathBuf,
    /// Target engine or format.
    pub engine: Engine,
    /// Samples per side: a Unity resolution (2ⁿ+1, 33…4097) or an Unreal landscape size
    /// (`None`: the smallest fitting one).
    pub size: Option<usize>,
    /// Unreal only: vertices per tile side; tiles share edges.
    pub tile: Option<usize>,
    /// glTF/OBJ only: quads per chunk side (1..=4096).
    pub chunk: usize,
    /// glTF only: write 16-bit positions, 8-bit normals, 16-bit UVs and 16-bit indices under
    /// `KHR_mesh_quantization` ([`glb_quantised`]) instead of floats (about half the bytes).
    pub quantise: bool,
}

fn param(msg: String) -> ExportError {
    ExportError::Param(msg)
}

impl ExportRequest {
    /// Checks the settings against the engine before anything is read.
    pub fn validate(&self) -> Result<(), ExportError> {
        let e = self.engine;
        if self.size.is_some() && !matches!(e, Engine::Unity | Engine::Unreal) {
            return Err(param("--size applies to --engine unity and unreal only".into()));
        }
        if self.tile.is_some() && e != Engine::Unreal {
            return Err(param("--tile applies to --engine unreal only".into()));
        }
        if let Some(n) = self.size {
            if e == Engine::Unity && !unity::is_unity_resolution(n) {
                return Err(param(format!(
                    "--size {n}: Unity needs 2^k + 1 in 33..=4097 (33, 65, 129, 257, 513, 1025, 2049, 4097)"
                )));
            }
            if e == Engine::Unreal && !(2..=16_385).contains(&n) {
                return Err(param(format!(
                    "--size {n}: an Unreal landscape needs 2..=16385 vertices per side (recommended: 1009, 2017, 4033, 8129)"
                )));
            }
        }
        if let Some(t) = self.tile {
            if !(2..=8129).contains(&t) {
                return Err(param(format!("--tile {t}: must be 2..=8129 vertices (recommended: 505, 1009, 2017)")));
            }
            if let Some(n) = self.size {
                if (n - 1) % (t - 1) != 0 {
                    return Err(param(format!(
                        "--size {n} is not k·(tile − 1) + 1 for --tile {t} (tiles share their edges)"
                    )));
                }
            }
        }
        if self.quantise && e != Engine::Gltf {
            return Err(param("--quantise applies to --engine gltf only".into()));
        }
        if matches!(e, Engine::Gltf | Engine::Obj) && !(1..=4096).contains(&self.chunk) {
            return Err(param(format!("--chunk {}: must be 1..=4096 quads", self.chunk)));
        }
        Ok(())
    }
}

/// The layers of a terrain directory that become weight maps.
#[derive(Clone, Debug, Default)]
pub struct TerrainLayers {
    /// The class map and its file name: `biomes.png` when a recipe recorded biomes, else
    /// `landform.png`; `None` when neither exists.
    pub classes: Option<(Grid<u8>, String)>,
    /// Soft biome weights (layer name, 8-bit weights summing to 255 per pixel, file name) in
    /// palette order; empty when there are none.
    pub soft: Vec<(String, Grid<u8>, String)>,
}

fn same_size<T>(path: &Path, g: &Grid<T>, h: &Grid<f64>) -> Result<(), ExportError> {
    if (g.width(), g.height()) != (h.width(), h.height()) {
        return Err(ExportError::Size {
            path: path.to_path_buf(),
            got: (g.width(), g.height()),
            want: (h.width(), h.height()),
        });
    }
    Ok(())
}

impl TerrainLayers {
    /// Reads the class map and the soft biome weights of `dir`; each must have the size of `h`.
    pub fn read(dir: &Path, h: &Grid<f64>) -> Result<Self, ExportError> {
        // The class map for weight maps: biomes when a recipe recorded them, else landform classes.
        let lf = ["biomes.png", "landform.png"]
            .iter()
            .map(|n| dir.join(n))
            .find(|p| crate::folder::is_listed(p))
            .unwrap_or_else(|| dir.join("landform.png"));
        let classes = if crate::folder::is_listed(&lf) {
            let c = bozkir_io::read_png8(&lf)?;
            same_size(&lf, &c, h)?;
            Some(c)
        } else {
            None
        };
        let class_file = lf.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let mut soft = Vec::new();
        for e in &Palette::default_biomes().entries {
            let file = soft_biome_file(&e.name);
            let path = dir.join(&file);
            if !crate::folder::is_listed(&path) {
                continue;
            }
            let g = bozkir_io::read_png8(&path)?;
            same_size(&path, &g, h)?;
            soft.push((e.name.replace(' ', "_"), g, file));
        }
        Ok(TerrainLayers { classes: classes.map(|c| (c, class_file)), soft })
    }
}

/// What an export wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct Exported {
    /// One line saying what was written (sizes, scales, weight layers), for the user.
    pub summary: String,
    /// Every file written except `export.json`, in the manifest's order.
    pub files: Vec<PathBuf>,
}

fn name(p: &Path) -> String {
    p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// Writes the heights in the engine's format into `dir`; returns the summary, the files and the
/// size the weight maps take.
fn write_heights(
    req: &ExportRequest,
    h: &Grid<f64>,
    dir: &Path,
    files: &mut Vec<PathBuf>,
) -> Result<(String, (usize, usize)), ExportError> {
    let mut weight_size = (h.width(), h.height());
    let summary = match req.engine {
        Engine::Unity => {
            let e = unity::write_unity(dir, "height", h, req.size)?;
            weight_size = (e.resolution, e.resolution);
            files.extend([e.r16, e.note]);
            format!(
                "Unity: {0}×{0} .r16, terrain {1:.1} × {2:.1} m, height {3:.2} m at y {4:.2} m",
                e.resolution, e.size_m.0, e.size_m.1, e.height_m, e.low_m
            )
        }
        Engine::Unreal => {
            let e = unreal::write_unreal(dir, "height", h, unreal::UnrealOptions { size: req.size, tile: req.tile })?;
            weight_size = e.size;
            files.extend(e.files);
            files.push(e.note);
            format!(
                "Unreal: {}×{} vertices in {}×{} tile(s), scale {:.2} × {:.2} × {:.4}, location z {:.1} cm",
                e.size.0, e.size.1, e.tiles.0, e.tiles.1, e.xy_scale_cm.0, e.xy_scale_cm.1, e.z_scale, e.location_z_cm
            )
        }
        Engine::Godot => {
            let e = godot::write_godot(dir, "height", h)?;
            files.extend([e.r16, e.exr, e.note]);
            format!("Godot: {}×{} .r16 and EXR, {:.2}–{:.2} m", h.width(), h.height(), e.low_m, e.high_m)
        }
        Engine::Gltf if req.quantise => {
            let p = dir.join("terrain.glb");
            let q = glb_quantised::write_glb_quantised(&p, h, req.chunk)?;
            let s = format!(
                "{} (KHR_mesh_quantization): {} chunk(s), {} triangles, heights within {:.4} m",
                name(&p),
                q.chunks,
                q.triangles,
                q.max_height_error_m
            );
            files.push(p);
            s
        }
        Engine::Gltf | Engine::Obj => {
            let chunks = mesh::height_mesh(h, req.chunk);
            let tris: usize = chunks.iter().map(mesh::MeshChunk::triangle_count).sum();
            let path = if req.engine == Engine::Gltf {
                let p = dir.join("terrain.glb");
                glb::write_glb(&p, &chunks)?;
                p
            } else {
                let p = dir.join("terrain.obj");
                obj::write_obj(&p, &chunks)?;
                p
            };
            let s = format!("{}: {} chunk(s), {} triangles", name(&path), chunks.len(), tris);
            files.push(path);
            s
        }
    };
    Ok((summary, weight_size))
}

/// Samples per side an export of a `w × h` grid writes: the Unity resolution, the Unreal
/// landscape (tiled or not), else the grid itself (Godot, glTF, OBJ). Mirrors the choices of
/// [`unity::write_unity`] and [`unreal::write_unreal`] for a request that
/// [`ExportRequest::validate`] accepts.
pub fn output_size(req: &ExportRequest, w: usize, h: usize) -> (usize, usize) {
    match req.engine {
        Engine::Unity => {
            let n = req.size.unwrap_or_else(|| unity::unity_resolution(w.max(h)));
            (n, n)
        }
        Engine::Unreal => match (req.size, req.tile) {
            (Some(n), _) => (n, n),
            (None, None) => (unreal::unreal_size(w), unreal::unreal_size(h)),
            (None, Some(t)) => {
                let step = t.saturating_sub(1).max(1);
                let fit = |n: usize| n.saturating_sub(1).div_ceil(step).max(1) * step + 1;
                (fit(w), fit(h))
            }
        },
        Engine::Godot | Engine::Gltf | Engine::Obj => (w, h),
    }
}

/// What an export of `h` with `layers` implies ([`crate::budget::export_cost`]): its output
/// samples and as many weight maps as soft layers, else as classes in the class map.
pub fn export_cost(req: &ExportRequest, h: &Grid<f64>, layers: &TerrainLayers) -> crate::budget::Cost {
    let (w, hh) = (h.width(), h.height());
    let (ow, oh) = output_size(req, w, hh);
    let n_layers = if !layers.soft.is_empty() {
        layers.soft.len()
    } else {
        layers.classes.as_ref().map_or(0, |(c, _)| weights::distinct_classes(c).len())
    };
    let mesh = matches!(req.engine, Engine::Gltf | Engine::Obj);
    crate::budget::export_cost(req.engine.name(), w, hh, ow, oh, mesh, n_layers)
}

/// The weight layers at `size` and their names: soft biome weights when a recipe recorded them
/// (resampled bilinearly, then re-rounded to sum to 255), else one-hot layers of the class map
/// (nearest neighbour).
fn weight_layers(layers: &TerrainLayers, size: (usize, usize)) -> Option<(Vec<Grid<u8>>, Vec<String>)> {
    if !layers.soft.is_empty() {
        let grids: Vec<Grid<f64>> =
            layers.soft.iter().map(|(_, g, _)| resample_bilinear(&g.map(|&v| v as f64), size.0, size.1)).collect();
        Some((weights::soft_layers(&grids), layers.soft.iter().map(|(n, _, _)| n.clone()).collect()))
    } else if let Some((c, class_file)) = &layers.classes {
        let c = resample_nearest(c, size.0, size.1);
        let ids = weights::distinct_classes(&c);
        let grids = weights::class_layers(&c, &ids);
        // Biome layers are named after the palette; landform classes by their code.
        let pal = Palette::default_biomes();
        let names: Vec<String> = ids
            .iter()
            .map(|&id| match (class_file.as_str(), pal.entries.get(id as usize)) {
                ("biomes.png", Some(e)) => e.name.replace(' ', "_"),
                _ => format!("class{id}"),
            })
            .collect();
        Some((grids, names))
    } else {
        None
    }
}

/// Exports `h` (the terrain of [`ExportRequest::terrain`], metres, with its cell size) and the
/// weight maps of `layers` for the request's engine into the existing folder `dir`, with
/// `export.json` listing the files.
///
/// # Examples
///
/// ```
/// use bozkir_core::{Grid, NoProgress};
/// use bozkir_pipeline::export::{export, Engine, ExportRequest, TerrainLayers};
///
/// let out = tempfile::tempdir().unwrap();
/// let h = Grid::from_fn(17, 17, |x, y| (x * y) as f64).with_cell_size(5.0, 5.0);
/// let req = ExportRequest { terrain: "hill".into(), engine: Engine::Obj, size: None, tile: None, chunk: 8, quantise: false };
/// let done = export(&req, &h, &TerrainLayers::default(), out.path(), &NoProgress).unwrap();
/// assert_eq!(done.summary, "terrain.obj: 4 chunk(s), 512 triangles");
/// assert!(out.path().join("terrain.obj").exists() && out.path().join("export.json").exists());
/// // Settings that do not apply to the engine are refused before anything is written.
/// let bad = ExportRequest { tile: Some(505), ..req.clone() };
/// assert_eq!(bad.validate().unwrap_err().to_string(), "--tile applies to --engine unreal only");
/// let bad = ExportRequest { quantise: true, ..req.clone() };
/// assert_eq!(bad.validate().unwrap_err().to_string(), "--quantise applies to --engine gltf only");
/// let q = ExportRequest { engine: Engine::Gltf, quantise: true, ..req };
/// let done = export(&q, &h, &TerrainLayers::default(), out.path(), &NoProgress).unwrap();
/// assert!(done.summary.starts_with("terrain.glb (KHR_mesh_quantization): 4 chunk(s), 512 triangles"));
/// ```
pub fn export(
    req: &ExportRequest,
    h: &Grid<f64>,
    layers: &TerrainLayers,
    dir: &Path,
    obs: &dyn Observer,
) -> Result<Exported, ExportError> {
    req.validate()?;
    crate::budget::limits().check(&export_cost(req, h, layers))?;
    obs.step("heights");
    let mut files: Vec<PathBuf> = Vec::new();
    let (mut summary, weight_size) = write_heights(req, h, dir, &mut files)?;
    if let Some((grids, names)) = weight_layers(layers, weight_size) {
        obs.step("weights");
        // Unreal tiles: the weight maps are cut like the height tiles.
        let w = match (req.engine, req.tile) {
            (Engine::Unreal, Some(t)) => weights::write_weight_maps_tiled(dir, "weights", &grids, &names, t)?,
            _ => weights::write_weight_maps(dir, "weights", &grids, &names)?,
        };
        summary.push_str(&format!(
            "; {} {}weight layer(s) in {} file(s), {} splat file(s)",
            grids.len(),
            if layers.soft.is_empty() { "" } else { "soft " },
            w.layers.len(),
            w.splats.len()
        ));
        files.extend(w.layers);
        files.extend(w.splats);
        files.push(w.note);
    }
    let soft = &layers.soft;
    let mut manifest = serde_json::json!({
        "engine": req.engine.name(),
        "source": req.terrain.display().to_string(),
        "width": h.width(),
        "height": h.height(),
        "cell_m": [h.dx, h.dy],
        "class_map": if soft.is_empty() { layers.classes.as_ref().map(|(_, f)| f.clone()) } else { None },
        "soft_weights": soft.iter().map(|(_, _, f)| f.clone()).collect::<Vec<_>>(),
        "files": files.iter().map(|p| name(p)).collect::<Vec<_>>(),
        "generator": format!("bozkir export {}", env!("CARGO_PKG_VERSION")),
    });
    if req.quantise {
        manifest["quantised"] = true.into();
    }
    let mut text = serde_json::to_vec_pretty(&manifest).expect("a JSON value serialises");
    text.push(b'\n');
    let path = dir.join("export.json");
    std::fs::write(&path, text).map_err(|source| ExportError::Manifest { path, source })?;
    Ok(Exported { summary, files })
}

//! `bozkir export`: a terrain directory → the files a game engine or DCC tool imports.

use crate::outputs::Staging;
use anyhow::{bail, Context, Result};
use bozkir_core::Grid;
use bozkir_io::export::{glb, godot, mesh, obj, resample_bilinear, resample_nearest, unity, unreal, weights};
use std::path::{Path, PathBuf};

/// Target of an export.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
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
    fn name(self) -> &'static str {
        match self {
            Engine::Unity => "unity",
            Engine::Unreal => "unreal",
            Engine::Godot => "godot",
            Engine::Gltf => "gltf",
            Engine::Obj => "obj",
        }
    }
}

#[derive(clap::Args)]
pub struct Args {
    /// A terrain directory written by `bozkir terrain`, `erode` or `heightmap` (terrain.json and
    /// height.tif; landform.png, when present, becomes the weight maps' class map).
    pub dir: PathBuf,
    /// Target engine or format.
    #[arg(long, value_enum)]
    pub engine: Engine,
    /// Samples per side: a Unity resolution (2ⁿ+1, 33…4097) or an Unreal landscape size
    /// (default: the smallest fitting one).
    #[arg(long)]
    pub size: Option<usize>,
    /// Unreal only: vertices per tile side (e.g. 505, 1009); tiles share edges.
    #[arg(long)]
    pub tile: Option<usize>,
    /// glTF/OBJ only: quads per chunk side.
    #[arg(long, default_value_t = 64)]
    pub chunk: usize,
    /// Output directory (created if missing).
    #[arg(long)]
    pub out: PathBuf,
}

/// A class map and the file it came from.
type ClassMap = (Grid<u8>, String);

/// Soft weight maps (layer name, 8-bit weights summing to 255 per pixel, file name).
type SoftMaps = Vec<(String, Grid<u8>, String)>;

/// The soft biome weights of `dir` (`biome_weights_<name>.png`, written by a recipe's `biomes`
/// stage), in palette order; empty when there are none. Sizes must match the height field.
fn read_soft_biomes(dir: &Path, h: &Grid<f64>) -> Result<SoftMaps> {
    let pal = bozkir_material::biomes::Palette::default_biomes();
    let mut out = Vec::new();
    for e in &pal.entries {
        let file = super::recipe::soft_biome_file(&e.name);
        let path = dir.join(&file);
        if !path.exists() {
            continue;
        }
        let g = bozkir_io::read_png8(&path)?;
        if (g.width(), g.height()) != (h.width(), h.height()) {
            bail!(
                "{}: {}×{} cells, but height.tif is {}×{}",
                path.display(),
                g.width(),
                g.height(),
                h.width(),
                h.height()
            );
        }
        out.push((e.name.replace(' ', "_"), g, file));
    }
    Ok(out)
}

/// The terrain of `dir`: heights in metres with the sidecar's cell size, and the class map.
fn read_terrain(dir: &Path) -> Result<(Grid<f64>, Option<ClassMap>)> {
    let (_, h) = super::read_terrain_folder(dir, "an export")?;
    // The class map for weight maps: biomes when a recipe recorded them, else landform classes.
    let lf = ["biomes.png", "landform.png"]
        .iter()
        .map(|n| dir.join(n))
        .find(|p| p.exists())
        .unwrap_or_else(|| dir.join("landform.png"));
    let classes = if lf.exists() {
        let c = bozkir_io::read_png8(&lf)?;
        if (c.width(), c.height()) != (h.width(), h.height()) {
            bail!(
                "{}: {}×{} cells, but height.tif is {}×{}",
                lf.display(),
                c.width(),
                c.height(),
                h.width(),
                h.height()
            );
        }
        Some(c)
    } else {
        None
    };
    let class_file = lf.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    Ok((h, classes.map(|c| (c, class_file))))
}

fn check_args(a: &Args) -> Result<()> {
    if a.size.is_some() && !matches!(a.engine, Engine::Unity | Engine::Unreal) {
        bail!("--size applies to --engine unity and unreal only");
    }
    if a.tile.is_some() && a.engine != Engine::Unreal {
        bail!("--tile applies to --engine unreal only");
    }
    if let Some(n) = a.size {
        if a.engine == Engine::Unity && !unity::is_unity_resolution(n) {
            bail!("--size {n}: Unity needs 2^k + 1 in 33..=4097 (33, 65, 129, 257, 513, 1025, 2049, 4097)");
        }
        if a.engine == Engine::Unreal && !(2..=16_385).contains(&n) {
            bail!("--size {n}: an Unreal landscape needs 2..=16385 vertices per side (recommended: 1009, 2017, 4033, 8129)");
        }
    }
    if let Some(t) = a.tile {
        if !(2..=8129).contains(&t) {
            bail!("--tile {t}: must be 2..=8129 vertices (recommended: 505, 1009, 2017)");
        }
        if let Some(n) = a.size {
            if (n - 1) % (t - 1) != 0 {
                bail!("--size {n} is not k·(tile − 1) + 1 for --tile {t} (tiles share their edges)");
            }
        }
    }
    if matches!(a.engine, Engine::Gltf | Engine::Obj) && !(1..=4096).contains(&a.chunk) {
        bail!("--chunk {}: must be 1..=4096 quads", a.chunk);
    }
    Ok(())
}

fn name(p: &Path) -> String {
    p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

pub fn run(a: Args, _quiet: bool) -> Result<()> {
    check_args(&a)?;
    let (h, classes) = read_terrain(&a.dir)?;
    let soft = read_soft_biomes(&a.dir, &h)?;
    let st = Staging::new(&a.out)?;
    let staged = st.unlisted("export.json");
    let dir = staged.parent().context("staging directory")?.to_path_buf();
    let mut files: Vec<PathBuf> = Vec::new();
    let mut weight_size = (h.width(), h.height());
    let mut summary: String;
    match a.engine {
        Engine::Unity => {
            let e = unity::write_unity(&dir, "height", &h, a.size)?;
            summary = format!(
                "Unity: {0}×{0} .r16, terrain {1:.1} × {2:.1} m, height {3:.2} m at y {4:.2} m",
                e.resolution, e.size_m.0, e.size_m.1, e.height_m, e.low_m
            );
            weight_size = (e.resolution, e.resolution);
            files.extend([e.r16, e.note]);
        }
        Engine::Unreal => {
            let e = unreal::write_unreal(&dir, "height", &h, unreal::UnrealOptions { size: a.size, tile: a.tile })?;
            summary = format!(
                "Unreal: {}×{} vertices in {}×{} tile(s), scale {:.2} × {:.2} × {:.4}, location z {:.1} cm",
                e.size.0, e.size.1, e.tiles.0, e.tiles.1, e.xy_scale_cm.0, e.xy_scale_cm.1, e.z_scale, e.location_z_cm
            );
            weight_size = e.size;
            files.extend(e.files);
            files.push(e.note);
        }
        Engine::Godot => {
            let e = godot::write_godot(&dir, "height", &h)?;
            summary = format!("Godot: {}×{} .r16 and EXR, {:.2}–{:.2} m", h.width(), h.height(), e.low_m, e.high_m);
            files.extend([e.r16, e.exr, e.note]);
        }
        Engine::Gltf | Engine::Obj => {
            let chunks = mesh::height_mesh(&h, a.chunk);
            let tris: usize = chunks.iter().map(mesh::MeshChunk::triangle_count).sum();
            let path = if a.engine == Engine::Gltf {
                let p = dir.join("terrain.glb");
                glb::write_glb(&p, &chunks)?;
                p
            } else {
                let p = dir.join("terrain.obj");
                obj::write_obj(&p, &chunks)?;
                p
            };
            summary = format!("{}: {} chunk(s), {} triangles", name(&path), chunks.len(), tris);
            files.push(path);
        }
    }
    // Weight maps: soft biome weights when a recipe recorded them (resampled bilinearly, then
    // re-rounded to sum to 255), else one-hot layers of the class map (nearest neighbour).
    let layers_names: Option<(Vec<Grid<u8>>, Vec<String>)> = if !soft.is_empty() {
        let grids: Vec<Grid<f64>> = soft
            .iter()
            .map(|(_, g, _)| resample_bilinear(&g.map(|&v| v as f64), weight_size.0, weight_size.1))
            .collect();
        Some((weights::soft_layers(&grids), soft.iter().map(|(n, _, _)| n.clone()).collect()))
    } else if let Some((c, class_file)) = &classes {
        let c = resample_nearest(c, weight_size.0, weight_size.1);
        let ids = weights::distinct_classes(&c);
        let layers = weights::class_layers(&c, &ids);
        // Biome layers are named after the palette; landform classes by their code.
        let pal = bozkir_material::biomes::Palette::default_biomes();
        let names: Vec<String> = ids
            .iter()
            .map(|&id| match (class_file.as_str(), pal.entries.get(id as usize)) {
                ("biomes.png", Some(e)) => e.name.replace(' ', "_"),
                _ => format!("class{id}"),
            })
            .collect();
        Some((layers, names))
    } else {
        None
    };
    if let Some((layers, names)) = layers_names {
        // Unreal tiles: the weight maps are cut like the height tiles.
        let w = match (a.engine, a.tile) {
            (Engine::Unreal, Some(t)) => weights::write_weight_maps_tiled(&dir, "weights", &layers, &names, t)?,
            _ => weights::write_weight_maps(&dir, "weights", &layers, &names)?,
        };
        summary.push_str(&format!(
            "; {} {}weight layer(s) in {} file(s), {} splat file(s)",
            layers.len(),
            if soft.is_empty() { "" } else { "soft " },
            w.layers.len(),
            w.splats.len()
        ));
        files.extend(w.layers);
        files.extend(w.splats);
        files.push(w.note);
    }
    let manifest = serde_json::json!({
        "engine": a.engine.name(),
        "source": a.dir.display().to_string(),
        "width": h.width(),
        "height": h.height(),
        "cell_m": [h.dx, h.dy],
        "class_map": if soft.is_empty() { classes.as_ref().map(|(_, f)| f.clone()) } else { None },
        "soft_weights": soft.iter().map(|(_, _, f)| f.clone()).collect::<Vec<_>>(),
        "files": files.iter().map(|p| name(p)).collect::<Vec<_>>(),
        "generator": format!("bozkir export {}", env!("CARGO_PKG_VERSION")),
    });
    let mut text = serde_json::to_vec_pretty(&manifest)?;
    text.push(b'\n');
    std::fs::write(&staged, text).with_context(|| format!("{}: cannot write", staged.display()))?;
    let moved = st.commit()?;
    println!("{summary}");
    println!("wrote {} files to {}", moved.len(), a.out.display());
    Ok(())
}

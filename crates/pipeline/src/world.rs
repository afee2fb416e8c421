//! A world from its spec (`bozkir world`): generate with `bozkir-world` and write every view of it
//! into the folder the caller hands.
//!
//! Steps: `generate`, `write`. The folder is a terrain folder (its `terrain.json` sidecar lists the
//! rasters, so `bozkir export`, `bake` and the viewer read it) with the world's own files beside:
//!
//! | file | what |
//! | --- | --- |
//! | `height.tif` / `.png` / `.rg16.png` / `.r16` | heights (f32 metres; 16-bit over the range) |
//! | `water_depth.tif` | water depth above the ground, f32 metres |
//! | `colour.png` | ground colour (the generator's, else the terrain ramp over the heights) |
//! | `biome_<name>.png`, `biome_splat<k>.png`, `biome.json` | biome weights (8-bit, summing to 255) and RGBA splat maps |
//! | `dominant.png`, `materials.png` | class indices (names in the sidecar) |
//! | `road_mask.png`, `bridge_mask.png` | 255 under a road / a bridge deck |
//! | `roads.geojson`, `rivers.geojson` | 3-D centrelines in the local metric frame |
//! | `ground.glb` | the height mesh with vertex colours |
//! | `roads.glb` | the road ribbon with vertex colours |
//! | `trees.glb` | one crown mesh drawn per tree (`EXT_mesh_gpu_instancing`) |
//! | `branches.glb` | the trees' branch graphs meshed: bark tubes and leaf clusters, vertex colours |
//! | `preview.png` | hillshade tinted by colour, water and roads |
//! | `world.json` | the spec: regenerating from it gives these files byte for byte |
//!
//! Only the files a world has are written (a flat world has no roads). Frames: the world frame
//! is metres, x east from the west edge, y north from the south edge, z up (the GeoJSON
//! coordinates, declared in the sidecar's `crs`); the GLBs use the terrain mesh's glTF frame of
//! `bozkir export --engine gltf`: glTF x = x − dx/2, y = z, glTF z = (ny − ½)·dy − y, so cell
//! centre (i, j) sits on mesh vertex (i, ny − 1 − j).

use crate::budget::{self, Cost};
use crate::folder::{self, Folder};
use crate::{PipelineError, Result};
use bozkir_core::{Grid, Observer};
use bozkir_io::export::gltf::{self, Colours, Instances, Mesh, Node, Scene};
use bozkir_io::export::{mesh as hmesh, weights};
use bozkir_io::{Encoding, Sidecar};
use bozkir_render::{Ramp, Rgb8Image};
use bozkir_world::field::north_up;
use bozkir_world::product::{Polyline, WorldProduct, WorldSpec};
use bozkir_world::WorldError;
use serde_json::{json, Map, Value};
use std::path::Path;

/// File name of a world folder's spec.
pub const WORLD_JSON: &str = "world.json";

/// Quads per side of a `ground.glb` chunk.
const GROUND_CHUNK: usize = 128;

/// Bytes per cell a world run holds at its peak (heights, depths, colour, weights, masks, the
/// preview, the ground mesh's vertices), rounded up.
pub const WORLD_BYTES_PER_CELL: f64 = 320.0;

/// Elementary steps per cell of a world run (generation, every raster, mesh and PNG encoding).
pub const WORLD_STEPS_PER_CELL: f64 = 2000.0;

/// What to generate: a settled spec (see [`WorldSpec::resolve`], [`WorldSpec::from_json`]).
#[derive(Debug, Clone)]
pub struct WorldRequest {
    /// The world.
    pub spec: WorldSpec,
    /// The terrain an `on` spec lays its roads over (`bozkir world roads --on`).
    pub base: Option<bozkir_world::WorldGrid>,
}

/// What a world run produced besides its files.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldOutcome {
    /// Columns and rows.
    pub shape: (usize, usize),
    /// Lowest and highest ground height in metres.
    pub range_m: (f64, f64),
    /// Every file written, relative to the folder, in writing order.
    pub files: Vec<String>,
    /// Roads, rivers and trees in the world.
    pub counts: (usize, usize, usize),
    /// Hub pairs no road joins, each with what blocked it.
    pub unrouted: Vec<String>,
}

fn world_err(e: WorldError) -> PipelineError {
    PipelineError::Invalid(e.to_string())
}

/// The memory and work of a world of `nx × ny` cells.
pub fn world_cost(nx: usize, ny: usize) -> Cost {
    let cells = nx as f64 * ny as f64;
    Cost {
        what: format!("a world of {nx}×{ny} cells"),
        memory: cells * WORLD_BYTES_PER_CELL,
        work: cells * WORLD_STEPS_PER_CELL,
    }
}

/// Checks a request before anything is generated or written: its shape (at least 2×2 cells, for
/// the mesh) against the budget ([`budget::check`]). Returns the shape.
pub fn check_request(req: &WorldRequest) -> Result<(usize, usize)> {
    if bozkir_world::product::is_volume(&req.spec.generator) {
        let dims = req.spec.volume_dims().map_err(world_err)?;
        budget::check(&crate::volume::volume_cost(dims))?;
        return Ok((dims[0], dims[2]));
    }
    let (nx, ny) = match &req.base {
        Some(b) => (b.nx, b.ny),
        None => req.spec.shape().map_err(world_err)?,
    };
    if nx < 2 || ny < 2 {
        return Err(PipelineError::invalid(format!(
            "world {}: {nx}×{ny} cells; a world needs at least 2×2 (domain_size / resolution)",
            req.spec.generator
        )));
    }
    budget::check(&world_cost(nx, ny))?;
    Ok((nx, ny))
}

/// Generate the world of `req` and write every view of it into `dir` (which must exist); see
/// the module docs for the files.
///
/// # Examples
///
/// ```
/// use bozkir_core::NoProgress;
/// use bozkir_pipeline::world::{generate_world, WorldRequest};
/// use bozkir_world::product::WorldSpec;
/// use bozkir_world::{Compat, Seed};
///
/// let dir = tempfile::tempdir().unwrap();
/// let o = serde_json::json!({ "domain_size": [16.0, 12.0], "undulation_amp": 1.0 });
/// let spec = WorldSpec::resolve("flat", Seed::parse("rhine"), Compat::Pyworldgen, o.as_object().unwrap()).unwrap();
/// let out = generate_world(&WorldRequest { spec, base: None }, dir.path(), &NoProgress).unwrap();
/// assert_eq!(out.shape, (8, 6));
/// assert!(dir.path().join("world.json").is_file() && dir.path().join("ground.glb").is_file());
/// ```
pub fn generate_world(req: &WorldRequest, dir: &Path, obs: &dyn Observer) -> Result<WorldOutcome> {
    obs.step("generate");
    let (nx, ny) = check_request(req)?;
    if bozkir_world::product::is_volume(&req.spec.generator) {
        let v = match &req.base {
            Some(b) => req.spec.generate_volume_on(b),
            None => req.spec.generate_volume(),
        }
        .map_err(world_err)?;
        obs.step("write");
        return crate::volume::write_volume(&v, &req.spec, dir);
    }
    let product = match &req.base {
        Some(b) => req.spec.generate_on(b),
        None => {
            let seed = req.spec.seed.to_string();
            let res = req.spec.parameters.get("resolution").and_then(Value::as_f64).unwrap_or(1.0);
            req.spec.generate_with(&mut |name| palette_terrain(name, (nx, ny), res, &seed))
        }
    }
    .map_err(world_err)?;
    product.check().map_err(world_err)?;
    obs.step("write");
    write_product(&product, &req.spec, dir)
}

/// Most cells per side of a palette's profile or recipe terrain.
pub const MAX_PALETTE_TERRAIN: usize = 1024;

/// The biome terrain a palette names (`profile:NAME`, `recipe:NAME`) for a world of `shape`
/// cells of `res` metres: generated once on a square grid covering the world (its longest side,
/// at most [`MAX_PALETTE_TERRAIN`] cells), seeded by the world's seed text and the name. A
/// profile's relief is 100 × its cell size (the relief-to-extent ratio of `bozkir terrain` at
/// its defaults: 1000 m over 10 m cells); a built-in recipe's heights are its own metres.
pub fn palette_terrain(
    name: &str,
    shape: (usize, usize),
    res: f64,
    seed: &str,
) -> std::result::Result<bozkir_world::WorldGrid, WorldError> {
    let long = shape.0.max(shape.1);
    let size = long.clamp(8, MAX_PALETTE_TERRAIN);
    let cell = long as f64 * res / size as f64;
    let s = bozkir_world::seed::fnv1a64(format!("{seed}/{name}").as_bytes()) & 0xffff_ffff;
    let bad = |m: String| WorldError::Invalid(format!("palette profile `{name}`: {m}"));
    let grid = if let Some(p) = name.strip_prefix("profile:") {
        let prof = bozkir_terrain::profiles::profile(p).map_err(bad)?;
        let t = bozkir_terrain::profiles::generate(size, s, &prof.params, &bozkir_core::NoProgress);
        let relief = 100.0 * cell;
        t.height.map(|&v| v * relief).with_cell_size(cell, cell)
    } else if let Some(r) = name.strip_prefix("recipe:") {
        let recipe = bozkir_recipe::builtin::builtin(r).map_err(|e| bad(e.to_string()))?;
        let state = bozkir_recipe::run(&recipe, size, cell, s, &bozkir_core::NoProgress, |_| {})
            .map_err(|e| bad(e.to_string()))?;
        state.height
    } else {
        return Err(bad("expected profile:NAME or recipe:NAME".into()));
    };
    Ok(bozkir_world::WorldGrid::from_grid(&grid))
}

/// Write `product` (generated from `spec`) into `dir`: the files of the module docs.
pub fn write_product(p: &WorldProduct, spec: &WorldSpec, dir: &Path) -> Result<WorldOutcome> {
    let g = &p.grid;
    let (nx, ny) = (g.nx, g.ny);
    let mut f = Folder::new(dir);
    let mut extra: Vec<Value> = Vec::new();
    let h = g.height_grid();
    let range = folder::write_height(&mut f, "height", "height", &h)?;
    let water = g.water_grid();
    f.write_tiff("water_depth.tif", "water_depth", &water.map(|&v| v as f32))?;
    let colour = ground_colour(p, &h, range);
    bozkir_io::write_rgb8(f.file("colour.png", "colour", Encoding::Rgb8), &colour)?;
    write_classes(&mut f, p)?;
    write_masks(&mut f, p)?;
    if let Some(b) = &p.biomes {
        let soft: Vec<Grid<f64>> = b
            .fields
            .iter()
            .map(|w| north_up(nx, ny, g.dx, g.dy, &w.iter().map(|&v| f64::from(v)).collect::<Vec<_>>()))
            .collect();
        let names: Vec<String> = b.names.iter().map(|n| sanitise(n)).collect();
        let ex = weights::write_weight_maps(dir, "biome", &weights::soft_layers(&soft), &names)?;
        for path in ex.layers.iter().chain(&ex.splats).chain([&ex.note]) {
            extra.push(json!({ "path": file_name(path), "role": "biome_weights" }));
        }
    }
    for (name, lines, role) in [("roads.geojson", &p.roads, "roads"), ("rivers.geojson", &p.rivers, "rivers")] {
        if !lines.is_empty() {
            write_text(&dir.join(name), &geojson(lines, role))?;
            extra.push(json!({ "path": name, "role": role, "format": "geojson" }));
        }
    }
    write_glbs(dir, p, &h, &colour, &mut extra)?;
    let preview = preview(p, &h, &colour);
    bozkir_io::write_rgb8(f.file("preview.png", "preview", Encoding::Rgb8), &folder::rgb_grid(&preview))?;
    write_text(&dir.join(WORLD_JSON), &spec.to_json())?;
    extra.push(json!({ "path": WORLD_JSON, "role": "world_spec", "format": "json" }));
    let mut sc = sidecar(p, spec, range, extra.clone());
    sc.files = f.take_files();
    bozkir_io::write_sidecar(dir.join(folder::SIDECAR), &sc)?;
    let mut files: Vec<String> = sc.files.iter().map(|s| s.path.clone()).collect();
    files.push(folder::SIDECAR.to_string());
    files.extend(extra.iter().filter_map(|e| e["path"].as_str().map(str::to_string)));
    let counts = (p.roads.len(), p.rivers.len(), p.trees.len());
    Ok(WorldOutcome { shape: (nx, ny), range_m: range, files, counts, unrouted: p.unrouted.clone() })
}

fn file_name(p: &Path) -> String {
    p.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

/// A biome name usable in a file name (`[A-Za-z0-9_-]`, others as `_`).
fn sanitise(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect()
}

/// Writes `text` atomically, naming the file in an error.
pub(crate) fn write_text(path: &Path, text: &str) -> Result<()> {
    bozkir_io::write_atomic(path, 1 << 16, |w| std::io::Write::write_all(w, text.as_bytes()))
        .map_err(|e| PipelineError::step(format!("{}: cannot write", path.display()), e))
}

/// The ground colour, north-up: the generator's, else the terrain ramp over the height range.
fn ground_colour(p: &WorldProduct, h: &Grid<f64>, (lo, hi): (f64, f64)) -> Grid<[u8; 3]> {
    let g = &p.grid;
    match &p.colour {
        Some(c) => north_up(g.nx, g.ny, g.dx, g.dy, c),
        None => {
            let ramp = Ramp::terrain();
            let span = hi - lo;
            h.map(|&v| ramp.sample(if span > 0.0 { (v - lo) / span } else { 0.25 }))
        }
    }
}

/// `dominant.png` and `materials.png` (class indices as bytes).
fn write_classes(f: &mut Folder, p: &WorldProduct) -> Result<()> {
    let g = &p.grid;
    if let Some(d) = &p.dominant {
        bozkir_io::write_png8(
            f.file("dominant.png", "dominant", Encoding::Png8),
            &north_up(g.nx, g.ny, g.dx, g.dy, d),
        )?;
    }
    if let Some(m) = &p.materials {
        let grid = north_up(g.nx, g.ny, g.dx, g.dy, &m.cells);
        bozkir_io::write_png8(f.file("materials.png", "materials", Encoding::Png8), &grid)?;
    }
    Ok(())
}

/// `road_mask.png` and `bridge_mask.png`: 255 inside, 0 outside.
fn write_masks(f: &mut Folder, p: &WorldProduct) -> Result<()> {
    let g = &p.grid;
    for (name, role, mask) in
        [("road_mask.png", "mask/road", &p.road_mask), ("bridge_mask.png", "mask/bridge", &p.bridge_mask)]
    {
        if let Some(m) = mask {
            let bytes: Vec<u8> = m.iter().map(|&b| if b { 255 } else { 0 }).collect();
            bozkir_io::write_png8(f.file(name, role, Encoding::Png8), &north_up(g.nx, g.ny, g.dx, g.dy, &bytes))?;
        }
    }
    Ok(())
}

/// A GeoJSON FeatureCollection of 3-D LineStrings in the world frame (metres; a local frame, so
/// the collection carries a foreign `crs` member naming it; RFC 7946 readers ignore it).
fn geojson(lines: &[Polyline], role: &str) -> String {
    let features: Vec<Value> = lines
        .iter()
        .map(|l| {
            let mut props = l.properties.clone();
            props.insert("name".into(), l.name.clone().into());
            props.insert("kind".into(), role.into());
            json!({ "type": "Feature", "properties": props,
                "geometry": { "type": "LineString", "coordinates": l.points } })
        })
        .collect();
    let doc = json!({ "type": "FeatureCollection", "crs": crs(), "features": features });
    serde_json::to_string(&doc).expect("GeoJSON serialises") + "\n"
}

/// The world frame, as declared in the sidecar and the GeoJSON files.
fn crs() -> Value {
    json!({
        "type": "local",
        "units": "metre",
        "axes": ["x: east from the west edge", "y: north from the south edge", "z: height, up"],
    })
}

/// The glTF position of world point (x, y, z) (see the module docs): a rotation (x, y, z) →
/// (x, z, −y) and a shift, so triangles keep their winding.
fn gltf_point(p: &WorldProduct, x: f64, y: f64, z: f64) -> [f32; 3] {
    let g = &p.grid;
    [(x - 0.5 * g.dx) as f32, z as f32, ((g.ny as f64 - 0.5) * g.dy - y) as f32]
}

/// sRGB byte to linear (glTF vertex colours are linear).
pub(crate) fn linear(c: u8) -> f32 {
    let s = f64::from(c) / 255.0;
    let l = if s <= 0.04045 { s / 12.92 } else { libm::pow((s + 0.055) / 1.055, 2.4) };
    l as f32
}

/// `ground.glb`, `roads.glb`, `trees.glb`, `branches.glb`.
fn write_glbs(
    dir: &Path,
    p: &WorldProduct,
    h: &Grid<f64>,
    colour: &Grid<[u8; 3]>,
    extra: &mut Vec<Value>,
) -> Result<()> {
    let chunks = hmesh::height_mesh(h, GROUND_CHUNK);
    let colours: Vec<Vec<[f32; 3]>> = chunks
        .iter()
        .map(|c| {
            let (x0, y0) = c.origin;
            let (w, hh) = c.vertices;
            (0..w * hh).map(|k| (*colour.get(x0 + k % w, y0 + k / w)).map(linear)).collect()
        })
        .collect();
    let meshes: Vec<Mesh> = chunks
        .iter()
        .zip(&colours)
        .map(|(c, col)| Mesh {
            name: &c.name,
            positions: &c.positions,
            normals: &c.normals,
            uvs: &c.uvs,
            colours: Colours::RgbF32(col),
            indices: &c.indices,
        })
        .collect();
    let nodes: Vec<Node> =
        chunks.iter().enumerate().map(|(i, c)| Node { name: &c.name, mesh: i, instances: None }).collect();
    gltf::write_scene(dir.join("ground.glb"), &Scene { name: "ground", meshes: &meshes, nodes: &nodes })?;
    extra.push(json!({ "path": "ground.glb", "role": "ground_mesh", "format": "glb" }));
    if let Some(r) = p.ribbon.as_ref().filter(|r| !r.positions.is_empty()) {
        let pos: Vec<[f32; 3]> =
            r.positions.iter().map(|v| gltf_point(p, f64::from(v[0]), f64::from(v[1]), f64::from(v[2]))).collect();
        let nrm: Vec<[f32; 3]> = r.normals.iter().map(|n| [n[0], n[2], -n[1]]).collect();
        let colours = if r.colours.is_empty() { Colours::None } else { Colours::Rgba8(&r.colours) };
        let mesh = Mesh { name: "roads", positions: &pos, normals: &nrm, uvs: &[], colours, indices: &r.indices };
        let node = Node { name: "roads", mesh: 0, instances: None };
        gltf::write_scene(dir.join("roads.glb"), &Scene { name: "roads", meshes: &[mesh], nodes: &[node] })?;
        extra.push(json!({ "path": "roads.glb", "role": "road_ribbon", "format": "glb" }));
    }
    if !p.trees.is_empty() {
        write_trees(dir, p)?;
        extra.push(json!({ "path": "trees.glb", "role": "tree_instances", "format": "glb" }));
    }
    if !p.tree_graphs.is_empty() {
        write_branches(dir, p)?;
        extra.push(json!({ "path": "branches.glb", "role": "tree_meshes", "format": "glb" }));
    }
    Ok(())
}

/// `branches.glb`: the tree graphs meshed by `bozkir_world::forest::mesh` at its default
/// parameters (bark tubes, leaf clusters), in the glTF frame, coloured by part.
fn write_branches(dir: &Path, p: &WorldProduct) -> Result<()> {
    use bozkir_world::forest::mesh::{graphs_mesh, ForestMeshParams, BARK_SRGB, LEAF_SRGB, LEAVES};
    let m = graphs_mesh(&p.tree_graphs, &ForestMeshParams::default()).map_err(world_err)?;
    let pos: Vec<[f32; 3]> =
        m.positions.iter().map(|v| gltf_point(p, f64::from(v[0]), f64::from(v[1]), f64::from(v[2]))).collect();
    let nrm: Vec<[f32; 3]> = m.normals.iter().map(|n| [n[0], n[2], -n[1]]).collect();
    let (bark, leaf) = (BARK_SRGB.map(linear), LEAF_SRGB.map(linear));
    let col: Vec<[f32; 3]> = m.block.iter().map(|&b| if b == LEAVES { leaf } else { bark }).collect();
    let mesh = Mesh {
        name: "branches",
        positions: &pos,
        normals: &nrm,
        uvs: &[],
        colours: Colours::RgbF32(&col),
        indices: &m.indices,
    };
    let node = Node { name: "branches", mesh: 0, instances: None };
    gltf::write_scene(dir.join("branches.glb"), &Scene { name: "branches", meshes: &[mesh], nodes: &[node] })?;
    Ok(())
}

/// The unit crown: a cone of radius 1 from y = 0.3 to the apex at y = 1 over a flat base, 8 sides.
fn crown() -> (Vec<[f32; 3]>, Vec<u32>) {
    let mut pos = vec![[0.0, 1.0, 0.0], [0.0, 0.3, 0.0]];
    for k in 0..8 {
        let a = k as f64 * std::f64::consts::TAU / 8.0;
        pos.push([libm::cos(a) as f32, 0.3, -libm::sin(a) as f32]);
    }
    let mut idx = Vec::with_capacity(48);
    for k in 0..8u32 {
        let (a, b) = (2 + k, 2 + (k + 1) % 8);
        idx.extend_from_slice(&[0, a, b, 1, b, a]);
    }
    (pos, idx)
}

/// `trees.glb`: the unit crown drawn at every tree, scaled by (radius, height, radius).
fn write_trees(dir: &Path, p: &WorldProduct) -> Result<()> {
    let (pos, idx) = crown();
    let green: Vec<[f32; 3]> = pos.iter().map(|v| [0.05, 0.18 + 0.12 * v[1], 0.05]).collect();
    let t: Vec<[f32; 3]> = p.trees.iter().map(|t| gltf_point(p, t.position[0], t.position[1], t.position[2])).collect();
    let s: Vec<[f32; 3]> =
        p.trees.iter().map(|t| [t.crown_radius as f32, t.height as f32, t.crown_radius as f32]).collect();
    let mesh = Mesh {
        name: "crown",
        positions: &pos,
        normals: &[],
        uvs: &[],
        colours: Colours::RgbF32(&green),
        indices: &idx,
    };
    let node =
        Node { name: "trees", mesh: 0, instances: Some(Instances { translations: &t, rotations: &[], scales: &s }) };
    gltf::write_scene(dir.join("trees.glb"), &Scene { name: "trees", meshes: &[mesh], nodes: &[node] })?;
    Ok(())
}

/// Hillshade (four suns) of `h` times the ground colour, water tinted blue by depth, roads grey.
fn preview(p: &WorldProduct, h: &Grid<f64>, colour: &Grid<[u8; 3]>) -> Rgb8Image {
    let g = &p.grid;
    let shade = bozkir_render::multi_hillshade(h, &bozkir_render::MultiHillshadeParams::default());
    let water = g.water_grid();
    let road = p.road_mask.as_ref().map(|m| north_up(g.nx, g.ny, g.dx, g.dy, m));
    let level = libm::sin(45f64.to_radians());
    let mut im = Rgb8Image::new(g.nx, g.ny);
    for y in 0..g.ny {
        for x in 0..g.nx {
            let mut c = (*colour.get(x, y)).map(f64::from);
            let d = *water.get(x, y);
            if d > 0.0 {
                let t = (0.35 + d / 4.0).min(0.85);
                c = [0, 1, 2].map(|k| c[k] * (1.0 - t) + [40.0, 90.0, 160.0][k] * t);
            }
            if road.as_ref().is_some_and(|r| *r.get(x, y)) {
                c = [95.0, 92.0, 88.0];
            }
            let s = (0.25 + 0.75 * shade.get(x, y) / level).clamp(0.0, 1.15);
            im.set_pixel(x, y, c.map(|v| (v * s).round().clamp(0.0, 255.0) as u8));
        }
    }
    im
}

/// The sidecar: a terrain folder's, with the world's generator, seed as given, compat,
/// parameters, frame, classes and unlisted files in its settings.
fn sidecar(p: &WorldProduct, spec: &WorldSpec, range: (f64, f64), extra: Vec<Value>) -> Sidecar {
    let g = &p.grid;
    let mut sc = Sidecar::new(g.nx, g.ny, (g.dx, g.dy), range, Encoding::Png16);
    sc.generator = format!("bozkir world {}", spec.generator);
    sc.generator_version = spec.version.clone();
    sc.seed = match spec.seed {
        bozkir_world::Seed::Int(v) => u64::try_from(v).ok(),
        bozkir_world::Seed::Str(_) => None,
    };
    sc.source = format!("generated world {} seed {} ({})", spec.generator, spec.seed, spec.compat.name());
    let s: &mut Map<String, Value> = &mut sc.settings;
    s.insert("world_generator".into(), spec.generator.clone().into());
    s.insert("seed".into(), serde_json::to_value(&spec.seed).expect("seed serialises"));
    s.insert("compat".into(), spec.compat.name().into());
    s.insert("seed_mapping".into(), seed_mapping(spec).into());
    s.insert("parameters".into(), Value::Object(spec.parameters.clone()));
    if let Some(on) = &spec.on {
        s.insert("on".into(), on.clone().into());
    }
    s.insert("crs".into(), crs());
    if let Some(b) = &p.biomes {
        s.insert("biomes".into(), json!(b.names));
    }
    if let Some(m) = &p.materials {
        s.insert("materials".into(), json!(m.names));
    }
    s.insert("world_files".into(), Value::Array(extra));
    sc
}

/// How the seed became the generator's integer seed (the sidecar records which mapping).
fn seed_mapping(spec: &WorldSpec) -> String {
    match spec.compat {
        bozkir_world::Compat::Pyworldgen => {
            format!("pyworldgen seed_to_int (FNV-1a 32 of strings, % 100000): {}", spec.seed.pyworldgen_int())
        }
        bozkir_world::Compat::Canonical => {
            format!("canonical (integers as 64-bit, strings FNV-1a 64 of UTF-8): {}", spec.seed.canonical())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bozkir_world::product::{BiomeWeights, Classes, RibbonMesh, TreeInstance};
    use bozkir_world::{Compat, Seed, WorldGrid};

    /// A product with every optional part: two biomes, a pond, a road with a bridge, a river,
    /// a ribbon and trees.
    fn full_product() -> WorldProduct {
        let (nx, ny) = (12, 9);
        let mut grid = WorldGrid::new(nx, ny, 2.0, 3.0, (0..nx * ny).map(|k| (k % nx) as f64 * 0.5).collect());
        grid.water_depth[4 * nx + 2] = 1.5;
        let mut p = WorldProduct::from_grid("test", grid);
        let w: Vec<f32> = (0..nx * ny).map(|k| (k % nx) as f32 / (nx - 1) as f32).collect();
        p.biomes = Some(BiomeWeights {
            names: vec!["plains".into(), "high hills".into()],
            fields: vec![w.iter().map(|v| 1.0 - v).collect(), w.clone()],
        });
        p.dominant = Some(w.iter().map(|&v| u8::from(v > 0.5)).collect());
        p.colour = Some(w.iter().map(|&v| [(200.0 * v) as u8, 150, 90]).collect());
        p.road_mask = Some((0..nx * ny).map(|k| k / nx == 3).collect());
        p.bridge_mask = Some((0..nx * ny).map(|k| k == 3 * nx + 2).collect());
        p.materials =
            Some(Classes { names: vec!["water".into(), "upland".into()], cells: vec![1; nx * ny], colours: vec![] });
        let line = |name: &str, y: f64| Polyline {
            name: name.into(),
            points: (0..nx).map(|i| [(i as f64 + 0.5) * 2.0, y, (i as f64) * 0.5]).collect(),
            properties: Map::new(),
        };
        p.roads = vec![line("road 0-1", 10.5)];
        p.rivers = vec![line("river 0", 13.5)];
        p.ribbon = Some(RibbonMesh {
            positions: vec![[1.0, 10.0, 0.1], [23.0, 10.0, 5.6], [1.0, 11.0, 0.1], [23.0, 11.0, 5.6]],
            normals: vec![[0.0, 0.0, 1.0]; 4],
            colours: vec![[90, 90, 90, 255]; 4],
            indices: vec![0, 1, 2, 2, 1, 3],
        });
        p.trees = vec![
            TreeInstance { position: [5.0, 20.0, 2.0], crown_radius: 1.5, height: 6.0 },
            TreeInstance { position: [15.0, 22.0, 3.5], crown_radius: 2.0, height: 8.0 },
        ];
        p
    }

    #[test]
    fn every_view_of_a_full_world_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let p = full_product();
        p.check().unwrap();
        let spec = WorldSpec::resolve("flat", Seed::Int(5), Compat::Pyworldgen, &Map::new()).unwrap();
        let out = write_product(&p, &spec, dir.path()).unwrap();
        assert_eq!(out.counts, (1, 1, 2));
        for f in [
            "dominant.png",
            "materials.png",
            "road_mask.png",
            "bridge_mask.png",
            "roads.geojson",
            "rivers.geojson",
            "roads.glb",
            "trees.glb",
            "biome_plains.png",
            "biome_high_hills.png",
            "biome_splat0.png",
            "biome.json",
        ] {
            assert!(dir.path().join(f).is_file(), "{f} missing");
            assert!(out.files.iter().any(|g| g == f), "{f} not reported");
        }
        if let Ok(d) = std::env::var("BOZKIR_GLB_DUMP") {
            for f in ["ground.glb", "roads.glb", "trees.glb"] {
                std::fs::copy(dir.path().join(f), Path::new(&d).join(format!("full_{f}"))).unwrap();
            }
        }
        let gj: Value = serde_json::from_slice(&std::fs::read(dir.path().join("roads.geojson")).unwrap()).unwrap();
        let feat = &gj["features"][0];
        assert_eq!(feat["geometry"]["type"], "LineString");
        assert_eq!(feat["geometry"]["coordinates"][1], json!([3.0, 10.5, 0.5]));
        assert_eq!(feat["properties"]["name"], "road 0-1");
        // The dominant map is north-up: its top row is the world's last (northern) row.
        let dom = bozkir_io::read_png8(dir.path().join("dominant.png")).unwrap();
        assert_eq!(*dom.get(11, 0), 1);
        let road = bozkir_io::read_png8(dir.path().join("road_mask.png")).unwrap();
        assert_eq!((*road.get(0, 9 - 1 - 3), *road.get(0, 0)), (255, 0));
        let (sc, _) = folder::read_terrain_folder(dir.path(), "a test").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(sc.settings["biomes"], json!(["plains", "high hills"]));
        assert!(sc.settings["world_files"].as_array().unwrap().iter().any(|f| f["path"] == "trees.glb"));
        // Trees: the instances' translations are the bases in the glTF frame.
        let glb = std::fs::read(dir.path().join("trees.glb")).unwrap();
        let jlen = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
        let doc: Value = serde_json::from_slice(&glb[20..20 + jlen]).unwrap();
        assert!(doc["nodes"][0]["extensions"][gltf::INSTANCING]["attributes"]["SCALE"].is_u64());
        assert_eq!(gltf_point(&p, 5.0, 20.0, 2.0), [4.0, 2.0, (8.5 * 3.0 - 20.0) as f32]);
    }

    /// The JSON chunk and the BIN chunk of a GLB.
    fn glb_parts(glb: &[u8]) -> (Value, &[u8]) {
        let jlen = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
        let doc: Value = serde_json::from_slice(&glb[20..20 + jlen]).unwrap();
        (doc, &glb[20 + jlen + 8..])
    }

    #[test]
    fn tree_graphs_become_branches_glb_in_the_gltf_frame() {
        use bozkir_world::forest::mesh::{graphs_mesh, ForestMeshParams, BARK, BARK_SRGB, LEAF_SRGB};
        use bozkir_world::forest::{BranchEdge, NodeKind, TreeGraph, TreeNode};
        let dir = tempfile::tempdir().unwrap();
        let mut p = full_product();
        let node = |position: [f64; 3], parent: Option<u32>, kind, radius| TreeNode {
            position,
            parent,
            kind,
            order: 0,
            radius,
        };
        p.tree_graphs = vec![TreeGraph {
            tree_id: 0,
            species: 0,
            radius_gamma: 2.0,
            terminal_radius: 0.1,
            nodes: vec![
                node([5.0, 20.0, 2.0], None, NodeKind::Root, 0.3),
                node([5.2, 20.1, 6.0], Some(0), NodeKind::Trunk, 0.25),
                node([6.5, 21.0, 7.5], Some(1), NodeKind::Terminal, 0.1),
                node([4.0, 19.5, 7.0], Some(1), NodeKind::Terminal, 0.1),
            ],
            edges: vec![
                BranchEdge { parent: 0, child: 1 },
                BranchEdge { parent: 1, child: 2 },
                BranchEdge { parent: 1, child: 3 },
            ],
        }];
        let spec = WorldSpec::resolve("flat", Seed::Int(5), Compat::Pyworldgen, &Map::new()).unwrap();
        let out = write_product(&p, &spec, dir.path()).unwrap();
        assert!(out.files.iter().any(|f| f == "branches.glb"));
        let (sc, _) = folder::read_terrain_folder(dir.path(), "a test").unwrap_or_else(|e| panic!("{e}"));
        assert!(sc.settings["world_files"].as_array().unwrap().iter().any(|f| f["path"] == "branches.glb"));
        let glb = std::fs::read(dir.path().join("branches.glb")).unwrap();
        let (doc, bin) = glb_parts(&glb);
        let prim = &doc["meshes"][0]["primitives"][0];
        let acc = |name: &str| &doc["accessors"][prim["attributes"][name].as_u64().unwrap() as usize];
        // 3 tubes of 4·6 + 2 vertices, 2 leaf clusters of 42.
        let want = graphs_mesh(&p.tree_graphs, &ForestMeshParams::default()).unwrap();
        assert_eq!(want.vertex_count(), 3 * 26 + 2 * 42);
        assert_eq!(acc("POSITION")["count"], want.vertex_count());
        assert_eq!(acc("COLOR_0")["count"], want.vertex_count());
        assert_eq!(acc("COLOR_0")["type"], "VEC3");
        assert_eq!(doc["accessors"][prim["indices"].as_u64().unwrap() as usize]["count"], want.indices.len());
        // Every position is the world point moved into the glTF frame; colours follow the part.
        let view = &doc["bufferViews"][acc("POSITION")["bufferView"].as_u64().unwrap() as usize];
        let start = view["byteOffset"].as_u64().unwrap() as usize;
        let cview = &doc["bufferViews"][acc("COLOR_0")["bufferView"].as_u64().unwrap() as usize];
        let cstart = cview["byteOffset"].as_u64().unwrap() as usize;
        let f = |at: usize| f32::from_le_bytes(bin[at..at + 4].try_into().unwrap());
        for (k, v) in want.positions.iter().enumerate() {
            let got = [0, 1, 2].map(|c| f(start + 12 * k + 4 * c));
            let w = gltf_point(&p, f64::from(v[0]), f64::from(v[1]), f64::from(v[2]));
            assert_eq!(got, w, "vertex {k}");
            let colour = [0, 1, 2].map(|c| f(cstart + 12 * k + 4 * c));
            let part = if want.block[k] == BARK { BARK_SRGB } else { LEAF_SRGB };
            assert_eq!(colour, part.map(linear), "vertex {k}");
        }
        // The root's cap centre (vertex 3·6 of the first tube) sits on the world point.
        assert_eq!([0, 1, 2].map(|c| f(start + 12 * 18 + 4 * c)), gltf_point(&p, 5.0, 20.0, 2.0));
    }

    #[test]
    fn budget_and_tiny_worlds_are_refused() {
        let m: Map<String, Value> = serde_json::from_str(r#"{"domain_size": [2.0, 40.0]}"#).unwrap();
        let spec = WorldSpec::resolve("flat", Seed::Int(5), Compat::Pyworldgen, &m).unwrap();
        let e = check_request(&WorldRequest { spec, base: None }).unwrap_err().to_string();
        assert!(e.contains("1×20 cells"), "{e}");
        let c = world_cost(100_000, 100_000);
        assert!(budget::Budget::default().check(&c).unwrap_err().to_string().contains("--max-memory"));
    }
}

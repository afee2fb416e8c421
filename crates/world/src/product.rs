//! What every generator hands to the faces ([`WorldProduct`]), the recipe a world regenerates
//! from ([`WorldSpec`], the `world.json` of an output folder) and the generator registry.
//!
//! Frame of every product: metres, x east from the world's west edge, y north from its south
//! edge, z up (heights in metres); fields are south-first, row-major, `ny × nx`, as
//! [`crate::field`]. A product is plain data: the pipeline turns it into files.

use crate::cave::CaveParams;
use crate::compose::palette::PaletteSpec;
use crate::compose::{self, CompositeParams, CompositeWorld, Palette};
use crate::error::{Result, WorldError};
use crate::field::{Terrain, WorldGrid};
use crate::flat::{self, FlatParams};
use crate::forest::{generate_forest, Forest, ForestParams};
use crate::landscape::{self, LandscapeParams, LandscapeWorld, MATERIALS};
use crate::roads::{self, RoadNetwork, RoadParams};
use crate::seed::{Compat, Seed};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Version of the `world.json` format ([`WorldSpec::format`]).
pub const SPEC_FORMAT: u32 = 1;

/// The version of the world generators recorded in `world.json` (this crate's version).
pub const WORLD_VERSION: &str = env!("CARGO_PKG_VERSION");

/// One generator of the registry, named as pyworldgen names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GeneratorInfo {
    /// pyworldgen's generator name.
    pub name: &'static str,
    /// What it makes (pyworldgen's kind).
    pub kind: &'static str,
    /// Whether bozkir generates it yet.
    pub available: bool,
    /// One line about it (for an unavailable one: why and when).
    pub description: &'static str,
}

/// Every pyworldgen generator name, sorted as its `list_generators()`.
pub const GENERATORS: [GeneratorInfo; 7] = [
    GeneratorInfo {
        name: "composite",
        kind: "composite",
        available: true,
        description: "multi-biome world blended with a partition of unity, trees and roads",
    },
    GeneratorInfo {
        name: "flat",
        kind: "terrain",
        available: true,
        description: "flat terrain, optional tilt and undulation; a neutral base",
    },
    GeneratorInfo {
        name: "forest",
        kind: "forest",
        available: true,
        description: "power-diagram forest: tree sites, crowns owning the canopy, canopy roof",
    },
    GeneratorInfo {
        name: "implicit_cave",
        kind: "cave",
        available: true,
        description: "implicit cave sampled into blocks, with its smooth surface",
    },
    GeneratorInfo { name: "landscape", kind: "landscape", available: true, description: "plain with rivers and ponds" },
    GeneratorInfo {
        name: "roads",
        kind: "roads",
        available: true,
        description: "least-cost road network over a flat base",
    },
    GeneratorInfo {
        name: "voxels",
        kind: "voxels",
        available: true,
        description: "chunked voxel world: pyworldgen's terrain, biome, cave, tree and light passes",
    },
];

/// Whether generator `name` makes a 3-D world ([`crate::volume::VolumeProduct`]) rather than a
/// height field.
pub fn is_volume(name: &str) -> bool {
    matches!(name, "implicit_cave" | "voxels")
}

/// The registry entry named `name`, or [`WorldError::Unknown`] listing the names.
pub fn generator(name: &str) -> Result<&'static GeneratorInfo> {
    GENERATORS.iter().find(|g| g.name == name).ok_or_else(|| WorldError::Unknown {
        what: "generator",
        name: name.to_string(),
        known: GENERATORS.iter().map(|g| g.name).collect::<Vec<_>>().join(", "),
    })
}

/// `world.json`: everything a world regenerates from, byte for byte.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorldSpec {
    /// [`SPEC_FORMAT`].
    pub format: u32,
    /// Generator name (pyworldgen's).
    pub generator: String,
    /// The seed as given: an integer or a string.
    pub seed: Seed,
    /// Whose randomness: `"pyworldgen"` (the peer's worlds) or `"canonical"` (ours).
    pub compat: Compat,
    /// [`WORLD_VERSION`] of the build that wrote it.
    pub version: String,
    /// Every parameter of the generator (defaults filled in), pyworldgen's names.
    pub parameters: Map<String, Value>,
    /// For roads laid over an existing terrain (`bozkir world roads --on`): that terrain folder
    /// or DEM as given; regeneration reads it again. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<String>,
    /// A `composite` world's own palette (`bozkir world composite --palette FILE`), recorded in
    /// full so the world regenerates without the file. Absent: the built-in palette.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub palette: Option<PaletteSpec>,
}

impl WorldSpec {
    /// The spec of `generator` run with `seed`, `compat` and parameter `overrides`: the name must
    /// be an available generator and every override one of its parameters with a valid value;
    /// the parameters are then completed with their defaults and [settled](Self::settled).
    pub fn resolve(generator_name: &str, seed: Seed, compat: Compat, overrides: &Map<String, Value>) -> Result<Self> {
        let info = generator(generator_name)?;
        let parameters = resolve_params(info, overrides)?;
        let spec = WorldSpec {
            format: SPEC_FORMAT,
            generator: info.name.to_string(),
            seed,
            compat,
            version: WORLD_VERSION.to_string(),
            parameters,
            on: None,
            palette: None,
        };
        spec.settled()
    }

    /// The spec of roads laid over an existing terrain named `on` (a folder or DEM path, kept
    /// as given): `overrides` are road parameters only.
    pub fn resolve_on(seed: Seed, compat: Compat, overrides: &Map<String, Value>, on: &str) -> Result<Self> {
        let spec = WorldSpec {
            format: SPEC_FORMAT,
            generator: "roads".to_string(),
            seed,
            compat,
            version: WORLD_VERSION.to_string(),
            parameters: to_map(&RoadParams::from_json(&Value::Object(overrides.clone()))?),
            on: Some(on.to_string()),
            palette: None,
        };
        spec.settled()
    }

    /// The spec of a 3-D world built on an existing terrain named `on` (a folder or DEM path, kept
    /// as given): `voxels` only, its terrain pass reading the height field.
    pub fn resolve_volume_on(
        generator_name: &str,
        seed: Seed,
        compat: Compat,
        overrides: &Map<String, Value>,
        on: &str,
    ) -> Result<Self> {
        if generator_name != "voxels" {
            return Err(WorldError::Invalid(format!(
                "world {generator_name}: only `roads` and `voxels` take a base terrain (--on)"
            )));
        }
        let spec = WorldSpec {
            format: SPEC_FORMAT,
            generator: generator_name.to_string(),
            seed,
            compat,
            version: WORLD_VERSION.to_string(),
            parameters: to_map(&crate::volume::VoxelParams::from_overrides(overrides)?),
            on: Some(on.to_string()),
            palette: None,
        };
        spec.settled()
    }

    /// The 3-D world of an `on` spec built on `base` (the terrain it names).
    pub fn generate_volume_on(&self, base: &WorldGrid) -> Result<crate::volume::VolumeProduct> {
        if self.generator != "voxels" || self.on.is_none() {
            return Err(WorldError::Invalid(format!(
                "world {}: only `voxels --on` specs make a 3-D world on a base terrain",
                self.generator
            )));
        }
        let p = crate::volume::VoxelParams::from_overrides(&self.parameters)?;
        crate::volume::generate_voxels_on(&self.seed, self.compat, &p, base)
    }

    /// Roads of an `on` spec laid over `base` (the terrain it names); the product's grid is
    /// `base` graded along the roads.
    pub fn generate_on(&self, base: &WorldGrid) -> Result<WorldProduct> {
        if self.generator != "roads" || self.on.is_none() {
            return Err(WorldError::Invalid(format!(
                "world {}: only `roads --on` specs take a base terrain",
                self.generator
            )));
        }
        let rp = RoadParams::from_json(&Value::Object(self.parameters.clone()))?;
        let net = roads::generate_roads(base, &self.seed, self.compat, &rp)?;
        let mut grid = base.clone();
        grid.height = net.graded_height(None, None, 0.05);
        let mut product = WorldProduct::from_grid("roads", grid);
        product.add_roads(&net);
        Ok(product)
    }

    /// The spec with its own palette (`composite` only); the palette is checked (names,
    /// colours, densities, niches, profile names) and recorded in full.
    pub fn with_palette(mut self, palette: PaletteSpec) -> Result<Self> {
        if self.generator != "composite" {
            return Err(WorldError::Invalid(format!("world {}: only `composite` takes a palette", self.generator)));
        }
        Palette::from_spec(&palette)?;
        self.palette = Some(palette);
        self.settled()
    }

    /// The palette the world is composed with: its own, or the built-in one.
    pub fn palette(&self) -> Result<Palette> {
        match &self.palette {
            Some(p) => Palette::from_spec(p),
            None => Ok(Palette::builtin()),
        }
    }

    /// The spec as it reads back from its own JSON text: serialised and parsed until the value
    /// no longer changes (a decimal parse may land an ulp off the written double; a settled spec
    /// writes the text it parses from, so regeneration from `world.json` is byte-identical).
    pub fn settled(self) -> Result<Self> {
        let mut s = self;
        for _ in 0..4 {
            let text = s.to_json();
            let back = Self::from_json(&text)?;
            if back == s {
                return Ok(s);
            }
            s = back;
        }
        Err(WorldError::Invalid("world.json: parameters do not settle to a fixed decimal form".into()))
    }

    /// Pretty JSON text with a final newline (the bytes of `world.json`).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("WorldSpec serialises") + "\n"
    }

    /// Parse `world.json` text; refuses unknown fields, another format version, or a
    /// generator/parameter set that [`WorldSpec::resolve`] would refuse.
    pub fn from_json(text: &str) -> Result<Self> {
        let s: Self = serde_json::from_str(text).map_err(|e| WorldError::Invalid(format!("world.json: {e}")))?;
        if s.format != SPEC_FORMAT {
            return Err(WorldError::Invalid(format!(
                "world.json: format {} (this build reads {SPEC_FORMAT})",
                s.format
            )));
        }
        match &s.on {
            None => resolve_params(generator(&s.generator)?, &s.parameters).map(|_| ())?,
            Some(_) if s.generator == "roads" => {
                RoadParams::from_json(&Value::Object(s.parameters.clone())).map(|_| ())?
            }
            Some(_) if s.generator == "voxels" => {
                crate::volume::VoxelParams::from_overrides(&s.parameters).map(|_| ())?
            }
            Some(_) => return Err(WorldError::Invalid(format!("world.json: `on` with generator `{}`", s.generator))),
        }
        if let Some(p) = &s.palette {
            if s.generator != "composite" {
                return Err(WorldError::Invalid(format!("world.json: `palette` with generator `{}`", s.generator)));
            }
            Palette::from_spec(p)?;
        }
        Ok(s)
    }

    /// Generate the world this spec names. A palette naming a profile or recipe
    /// (`profile:NAME`, `recipe:NAME`) needs [`WorldSpec::generate_with`].
    pub fn generate(&self) -> Result<WorldProduct> {
        self.generate_with(&mut |name| {
            Err(WorldError::Invalid(format!(
                "palette profile `{name}`: generated by a face (bozkir world composite --palette), not by the library alone"
            )))
        })
    }

    /// [`WorldSpec::generate`], with `resolve` generating each `profile:NAME` / `recipe:NAME`
    /// biome terrain of the palette ([`Palette::resolve`]).
    pub fn generate_with(&self, resolve: &mut dyn FnMut(&str) -> Result<WorldGrid>) -> Result<WorldProduct> {
        let info = generator(&self.generator)?;
        if let Some(on) = &self.on {
            return Err(WorldError::Invalid(format!("world {}: needs its base terrain {on} (generate_on)", info.name)));
        }
        let (seed, compat, params) = (&self.seed, self.compat, &self.parameters);
        match info.name {
            "flat" => {
                let p = FlatParams::from_overrides(params)?;
                Ok(WorldProduct::from_grid("flat", flat::generate(seed, compat, &p)?))
            }
            "landscape" => {
                let p = LandscapeParams::from_overrides(params)?;
                Ok(WorldProduct::from(landscape::generate(seed, compat, &p)?))
            }
            "composite" => {
                let mut palette = self.palette()?;
                palette.resolve(|n| resolve(n))?;
                generate_composite(seed, compat, params, &palette)
            }
            "roads" => generate_roads_world(seed, compat, params),
            "forest" => {
                let p = ForestParams::from_json(&Value::Object(params.clone()))?;
                Ok(WorldProduct::from_forest(&generate_forest(seed, compat, &p)?))
            }
            "implicit_cave" | "voxels" => Err(WorldError::Invalid(format!(
                "world {}: a 3-D world; generate it with WorldSpec::generate_volume",
                info.name
            ))),
            _ => Err(not_available(info)),
        }
    }

    /// Generate the 3-D world this spec names (`implicit_cave`, `voxels`).
    pub fn generate_volume(&self) -> Result<crate::volume::VolumeProduct> {
        let (seed, compat, params) = (&self.seed, self.compat, &self.parameters);
        match self.generator.as_str() {
            "implicit_cave" => crate::volume::generate_cave_volume(
                seed,
                compat,
                &CaveParams::from_json(&Value::Object(params.clone()))?,
            ),
            "voxels" => {
                crate::volume::generate_voxels(seed, compat, &crate::volume::VoxelParams::from_overrides(params)?)
            }
            other => Err(WorldError::Invalid(format!(
                "world {other}: a height-field world; generate it with WorldSpec::generate"
            ))),
        }
    }

    /// Blocks (x, y, z) of a 3-D world, without generating it: what a face checks first.
    pub fn volume_dims(&self) -> Result<[usize; 3]> {
        match self.generator.as_str() {
            "implicit_cave" => {
                let p = CaveParams::from_json(&Value::Object(self.parameters.clone()))?;
                let (nx, nt, nu) = p.shape();
                Ok([nx, nu, nt])
            }
            "voxels" => Ok(crate::volume::VoxelParams::from_overrides(&self.parameters)?.dims()),
            other => Err(WorldError::Invalid(format!("world {other} is not a 3-D world"))),
        }
    }

    /// Cells the world will have (columns, rows), from `domain_size` and `resolution`, without
    /// generating it: what a face checks against its budget first. A 3-D world's are its
    /// (x, z) blocks.
    pub fn shape(&self) -> Result<(usize, usize)> {
        if is_volume(&self.generator) {
            let [nx, _, nz] = self.volume_dims()?;
            return Ok((nx, nz));
        }
        let p = FlatParams::from_overrides(&shape_params(&self.parameters))?;
        Ok(p.shape())
    }
}

/// The `domain_size` and `resolution` entries of a parameter set (every generator of the
/// registry has both, with the flat terrain's meaning).
fn shape_params(params: &Map<String, Value>) -> Map<String, Value> {
    params
        .iter()
        .filter(|(k, _)| *k == "domain_size" || *k == "resolution")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Smallest and largest cell size in metres a world may have.
pub const RESOLUTION_RANGE_M: (f64, f64) = (1e-3, 1e5);

/// Longest side in metres a world may have.
pub const MAX_EXTENT_M: f64 = 1e8;

/// Every parameter of generator `info` (defaults filled in) from `overrides`, validated; an
/// error names the parameter it is about (a value of the wrong type included).
fn resolve_params(info: &GeneratorInfo, overrides: &Map<String, Value>) -> Result<Map<String, Value>> {
    let all = match resolve_each(info, overrides) {
        Ok(m) => m,
        Err(e) => {
            // Find the parameter to blame: the first that fails alone.
            for (k, v) in overrides {
                let one: Map<String, Value> = [(k.clone(), v.clone())].into_iter().collect();
                if let Err(e1) = resolve_each(info, &one) {
                    return Err(name_the_parameter(k, v, e1));
                }
            }
            return Err(e);
        }
    };
    check_extent(&all)?;
    Ok(all)
}

/// `e` as an error about parameter `k` (unchanged when it names `k` already).
fn name_the_parameter(k: &str, v: &Value, e: WorldError) -> WorldError {
    let text = e.to_string();
    if text.contains(&format!("`{k}`")) || text.contains(&format!("{k} ")) || text.contains(&format!("{k}:")) {
        return e;
    }
    // serde's type message, without the position in the JSON text we built.
    let why = text.split_once(": ").map_or(text.as_str(), |(_, rest)| rest);
    let why = why.split(" at line ").next().unwrap_or(why);
    WorldError::Param { name: k.to_string(), value: v.to_string(), allowed: why.to_string() }
}

/// Cell size and extent within [`RESOLUTION_RANGE_M`] and [`MAX_EXTENT_M`].
fn check_extent(params: &Map<String, Value>) -> Result<()> {
    let (lo, hi) = RESOLUTION_RANGE_M;
    if let Some(r) = params.get("resolution").and_then(Value::as_f64) {
        if !(lo..=hi).contains(&r) {
            return Err(WorldError::Param {
                name: "resolution".into(),
                value: r.to_string(),
                allowed: format!("must be {lo}..={hi} metres per cell"),
            });
        }
    }
    if let Some(d) = params.get("domain_size").and_then(Value::as_array) {
        if d.iter().any(|x| !x.as_f64().is_some_and(|x| x.is_finite() && x <= MAX_EXTENT_M)) {
            return Err(WorldError::Param {
                name: "domain_size".into(),
                value: Value::Array(d.clone()).to_string(),
                allowed: format!("each side must be a finite number of metres up to {MAX_EXTENT_M:e}"),
            });
        }
    }
    Ok(())
}

/// [`resolve_params`] without the blame.
fn resolve_each(info: &GeneratorInfo, overrides: &Map<String, Value>) -> Result<Map<String, Value>> {
    Ok(match info.name {
        "flat" => to_map(&FlatParams::from_overrides(overrides)?),
        "landscape" => to_map(&LandscapeParams::from_overrides(overrides)?),
        "composite" => to_map(&CompositeParams::from_json(&Value::Object(overrides.clone()).to_string())?),
        "forest" => to_map(&ForestParams::from_json(&Value::Object(overrides.clone()))?),
        "implicit_cave" => to_map(&CaveParams::from_json(&Value::Object(overrides.clone()))?),
        "voxels" => to_map(&crate::volume::VoxelParams::from_overrides(overrides)?),
        "roads" => {
            let (terrain, roads) = RoadParams::split_generator_params(&Value::Object(overrides.clone()))?;
            let mut m = to_map(&FlatParams::from_overrides(terrain.as_object().expect("an object"))?);
            m.extend(to_map(&roads));
            m
        }
        _ => return Err(not_available(info)),
    })
}

/// pyworldgen's `composite`: the composed world, then (with `add_roads`) a road network routed on
/// its (height, water depth) with seed + 77, `num_hubs` and `mask_radius = road_mask_radius`.
fn generate_composite(
    seed: &Seed,
    compat: Compat,
    params: &Map<String, Value>,
    palette: &Palette,
) -> Result<WorldProduct> {
    let p = CompositeParams::from_json(&Value::Object(params.clone()).to_string())?;
    let mut world = compose::compose(seed, compat, &p, palette)?;
    let rivers = if p.carve_rivers {
        let cp = landscape::CarveParams { threshold_cells: p.river_threshold_cells, ..Default::default() };
        Some(compose::hooks::carve_composed_rivers(&mut world, &cp)?)
    } else {
        None
    };
    let roads = if p.add_roads {
        let rp = RoadParams {
            num_hubs: p.num_hubs as usize,
            mask_radius: p.road_mask_radius as usize,
            ..RoadParams::default()
        };
        let road_seed = Seed::Int(world.seed_int.wrapping_add(compose::hooks::ROAD_SEED_OFFSET));
        Some(roads::generate_roads(&world.grid, &road_seed, compat, &rp)?)
    } else {
        None
    };
    if let Some(net) = &roads {
        compose::hooks::clear_trees(&mut world, Some(&net.road_mask));
    }
    let mut product = WorldProduct::from_composite(world, roads.as_ref())?;
    if let Some(r) = rivers {
        product.rivers = river_polylines(&r);
    }
    Ok(product)
}

/// pyworldgen's `roads` generator: a flat base terrain from the flat keys, the network from the
/// rest; the product's grid is the graded terrain.
fn generate_roads_world(seed: &Seed, compat: Compat, params: &Map<String, Value>) -> Result<WorldProduct> {
    let (terrain, rp) = RoadParams::split_generator_params(&Value::Object(params.clone()))?;
    let fp = FlatParams::from_overrides(terrain.as_object().expect("an object"))?;
    let base = flat::generate(seed, compat, &fp)?;
    let domain = Some((fp.domain_size[0], fp.domain_size[1]));
    let net =
        roads::generate_roads_with(&base, seed, compat, &rp, &roads::RoadInputs { domain, ..Default::default() })?;
    let mut grid = base;
    grid.height = net.graded_height(None, None, 0.05);
    let mut product = WorldProduct::from_grid("roads", grid);
    product.add_roads(&net);
    Ok(product)
}

fn not_available(info: &GeneratorInfo) -> WorldError {
    WorldError::Invalid(format!("generator `{}` is not available yet: {}", info.name, info.description))
}

fn to_map(v: &impl Serialize) -> Map<String, Value> {
    match serde_json::to_value(v).expect("parameters serialise") {
        Value::Object(m) => m,
        _ => unreachable!("parameter structs serialise to objects"),
    }
}

/// Per-biome weights: `names[k]` and its field `fields[k]` (south-first, `ny × nx`), summing to
/// one per cell (a partition of unity).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BiomeWeights {
    /// Biome names, in palette order.
    pub names: Vec<String>,
    /// One weight field per name.
    pub fields: Vec<Vec<f32>>,
}

/// Classes per cell with their names (a landscape's materials, a composite's dominant biome).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Classes {
    /// Class names; a cell's value indexes this list.
    pub names: Vec<String>,
    /// Class index per cell, south-first.
    pub cells: Vec<u8>,
    /// Display colour of each class (sRGB), same order as `names`; may be empty.
    pub colours: Vec<[u8; 3]>,
}

/// A 3-D polyline in the world frame (metres, z = height), with a label.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Polyline {
    /// What it is (`"road 0-3"`, `"river 2"`).
    pub name: String,
    /// Vertices (x east, y north, z up) in metres.
    pub points: Vec<[f64; 3]>,
    /// Extra properties written with it (order, flow, bridge spans, the main river joined).
    pub properties: Map<String, Value>,
}

/// A triangle mesh in the world frame (a road ribbon): per-vertex positions, optional normals,
/// colours (linear RGBA 0..255) and a triangle list.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RibbonMesh {
    /// Vertices (x east, y north, z up) in metres.
    pub positions: Vec<[f32; 3]>,
    /// Unit normals, one per vertex, or empty.
    pub normals: Vec<[f32; 3]>,
    /// Colours, one per vertex, or empty.
    pub colours: Vec<[u8; 4]>,
    /// Three vertex indices per triangle, counter-clockwise seen from above.
    pub indices: Vec<u32>,
}

/// A tree as an instance: its base on the ground and the size of a simple crown.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TreeInstance {
    /// Base (x east, y north, z = ground height) in metres.
    pub position: [f64; 3],
    /// Crown radius in metres.
    pub crown_radius: f64,
    /// Height of the tree in metres.
    pub height: f64,
}

/// Everything a generator produced, in the world frame: the faces write it out as they like.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldProduct {
    /// Generator name.
    pub generator: String,
    /// Heights and water depths.
    pub grid: WorldGrid,
    /// Biome weights, when the world is composed of biomes.
    pub biomes: Option<BiomeWeights>,
    /// Dominant biome per cell (indexes `biomes.names`).
    pub dominant: Option<Vec<u8>>,
    /// Ground colour per cell (sRGB).
    pub colour: Option<Vec<[u8; 3]>>,
    /// Cells under a road.
    pub road_mask: Option<Vec<bool>>,
    /// Cells under a bridge deck.
    pub bridge_mask: Option<Vec<bool>>,
    /// Road centrelines.
    pub roads: Vec<Polyline>,
    /// River centrelines along their beds.
    pub rivers: Vec<Polyline>,
    /// The roads' ribbon mesh.
    pub ribbon: Option<RibbonMesh>,
    /// Trees as instances.
    pub trees: Vec<TreeInstance>,
    /// Branch graphs of the trees, in site order, when the generator grows them (the forest);
    /// [`crate::forest::mesh`] turns them into bark and leaf meshes.
    pub tree_graphs: Vec<crate::forest::TreeGraph>,
    /// Materials per cell (water → upland), when the generator classifies them.
    pub materials: Option<Classes>,
    /// Hub pairs the road network could not join, each with what blocked it (empty when every
    /// pair was routed).
    pub unrouted: Vec<String>,
}

impl WorldProduct {
    /// A forest as a height-field world: the terrain, a tree instance per site (its base on the
    /// terrain), the branch graphs, and a colour per cell showing the crowns that own the canopy (each crown its
    /// own green, darker towards its border and lower canopy).
    pub fn from_forest(f: &Forest) -> Self {
        let height: Vec<f64> = f.terrain.iter().map(|&v| f64::from(v)).collect();
        let grid = WorldGrid::new(f.nx, f.ny, f.resolution, f.resolution, height);
        let mut p = Self::from_grid("forest", grid);
        let at = |x: f64, y: f64| -> f64 {
            let i = ((x / f.resolution) as usize).min(f.nx - 1);
            let j = ((y / f.resolution) as usize).min(f.ny - 1);
            f64::from(f.terrain[j * f.nx + i])
        };
        p.trees = f
            .sites
            .iter()
            .map(|s| TreeInstance {
                position: [s.xy.0, s.xy.1, at(s.xy.0, s.xy.1)],
                crown_radius: s.crown_radius,
                height: s.height,
            })
            .collect();
        p.tree_graphs = f.graphs.clone();
        let (lo, hi) = f.canopy.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
        let span = f64::from((hi - lo).max(1e-6));
        p.colour = Some(
            f.owner
                .iter()
                .zip(&f.border)
                .zip(&f.canopy)
                .map(|((&o, &b), &c)| {
                    if o < 0 {
                        return [150, 140, 110];
                    }
                    let h = bozkir_core::hash::hash_u32(o as u32, 0, 0x0F0E_5700);
                    let tint = [(h & 0xff) as f64 / 255.0, ((h >> 8) & 0xff) as f64 / 255.0];
                    let edge = (f64::from(b) / 1.5).clamp(0.35, 1.0);
                    let lift = 0.7 + 0.3 * (f64::from(c - lo) / span);
                    let g = edge * lift;
                    [(40.0 + 50.0 * tint[0]) * g, (95.0 + 70.0 * tint[1]) * g, (35.0 + 25.0 * tint[0]) * g]
                        .map(|v| v.round().clamp(0.0, 255.0) as u8)
                })
                .collect(),
        );
        p
    }

    /// A product holding only a height field (a flat terrain, any existing grid).
    pub fn from_grid(generator: &str, grid: WorldGrid) -> Self {
        Self {
            generator: generator.to_string(),
            grid,
            biomes: None,
            dominant: None,
            colour: None,
            road_mask: None,
            bridge_mask: None,
            roads: Vec::new(),
            rivers: Vec::new(),
            ribbon: None,
            trees: Vec::new(),
            tree_graphs: Vec::new(),
            materials: None,
            unrouted: Vec::new(),
        }
    }

    /// Checks that every field has `nx × ny` cells, heights/depths/positions are finite, mesh
    /// indices are in range and biome weights and classes are consistent; names what is wrong.
    pub fn check(&self) -> Result<()> {
        let g = &self.grid;
        let n = g.nx * g.ny;
        let bad = |m: String| Err(WorldError::Invalid(format!("{} world: {m}", self.generator)));
        if g.height.len() != n || g.water_depth.len() != n {
            return bad(format!(
                "{}×{} grid with {} heights and {} depths",
                g.nx,
                g.ny,
                g.height.len(),
                g.water_depth.len()
            ));
        }
        if let Some(k) = g.height.iter().chain(&g.water_depth).position(|v| !v.is_finite()) {
            return bad(format!("non-finite height or depth at value {k}"));
        }
        let lens = [
            ("dominant", self.dominant.as_ref().map(Vec::len)),
            ("colour", self.colour.as_ref().map(Vec::len)),
            ("road mask", self.road_mask.as_ref().map(Vec::len)),
            ("bridge mask", self.bridge_mask.as_ref().map(Vec::len)),
            ("materials", self.materials.as_ref().map(|m| m.cells.len())),
        ];
        for (what, len) in lens {
            if let Some(len) = len.filter(|&l| l != n) {
                return bad(format!("{what} has {len} cells, the grid {n}"));
            }
        }
        if let Some(b) = &self.biomes {
            if b.names.len() != b.fields.len() || b.fields.iter().any(|f| f.len() != n) || b.names.len() > 256 {
                return bad(format!("{} biome names for {} weight fields of {n} cells", b.names.len(), b.fields.len()));
            }
        }
        for line in self.roads.iter().chain(&self.rivers) {
            if line.points.iter().flatten().any(|v| !v.is_finite()) {
                return bad(format!("polyline {} has a non-finite point", line.name));
            }
        }
        if let Some(r) = &self.ribbon {
            let v = r.positions.len();
            if (!r.normals.is_empty() && r.normals.len() != v) || (!r.colours.is_empty() && r.colours.len() != v) {
                return bad(format!("ribbon: {v} positions, {} normals, {} colours", r.normals.len(), r.colours.len()));
            }
            if r.indices.len() % 3 != 0 || r.indices.iter().any(|&i| i as usize >= v) {
                return bad("ribbon: indices not triangles of its vertices".into());
            }
        }
        if self.trees.iter().any(|t| t.position.iter().chain([&t.crown_radius, &t.height]).any(|v| !v.is_finite())) {
            return bad("a tree with a non-finite position or size".into());
        }
        Ok(())
    }

    /// Adds a road network's masks, centrelines (3-D, deck lifted 0.3 m as pyworldgen's
    /// `road_polylines_3d`) and ribbon (colours by vertex flag: asphalt, bridge deck, tunnel).
    pub fn add_roads(&mut self, net: &RoadNetwork) {
        self.road_mask = Some(net.road_mask.clone());
        self.unrouted = net.unrouted.iter().map(|u| u.error().to_string()).collect();
        self.bridge_mask = Some(net.bridge_mask(0.05));
        let lines = net.polylines_3d(0.3);
        let routed = net.segments.iter().filter(|s| s.polyline.len() >= 2);
        self.roads = routed
            .zip(lines)
            .map(|(s, points)| {
                let mut properties = Map::new();
                properties.insert("hubs".into(), serde_json::json!([s.a, s.b]));
                properties.insert("length_m".into(), s.length().into());
                Polyline { name: format!("road {}-{}", s.a, s.b), points, properties }
            })
            .collect();
        let m = net.ribbon_mesh(None, 0.3);
        let colour = |f: u8| match f {
            roads::geometry::FLAG_TUNNEL => [40, 38, 36, 255],
            roads::geometry::FLAG_BRIDGE => [150, 118, 84, 255],
            _ => [72, 72, 74, 255],
        };
        self.ribbon = Some(RibbonMesh {
            positions: m.vertices,
            normals: Vec::new(),
            colours: m.flags.iter().map(|&f| colour(f)).collect(),
            indices: m.triangles.iter().flatten().copied().collect(),
        });
    }

    /// A composed world: grid, biome weights (f32), dominant biome, colour, trees, and the roads
    /// of `roads` when given. Fails on more than 256 biomes.
    pub fn from_composite(w: CompositeWorld, roads: Option<&RoadNetwork>) -> Result<Self> {
        let n = w.grid.nx * w.grid.ny;
        let fields = (0..w.biome_names.len()).map(|t| w.weight_f32(t)).collect();
        let dominant = w
            .dominant
            .iter()
            .map(|&d| u8::try_from(d).map_err(|_| WorldError::Invalid(format!("composite: biome index {d} above 255"))))
            .collect::<Result<Vec<u8>>>()?;
        let mut p = Self::from_grid("composite", w.grid);
        p.biomes = Some(BiomeWeights { names: w.biome_names, fields });
        p.dominant = Some(dominant);
        p.colour = Some(w.color);
        p.trees = w
            .trees
            .iter()
            .map(|t| TreeInstance { position: [t.x, t.y, t.z], crown_radius: t.crown_radius, height: t.height })
            .collect();
        debug_assert_eq!(p.colour.as_ref().map(Vec::len), Some(n));
        if let Some(net) = roads {
            p.add_roads(net);
        }
        Ok(p)
    }

    /// The heights as a [`Terrain`].
    pub fn terrain(&self) -> &dyn Terrain {
        &self.grid
    }
}

/// Display colours of the landscape's materials, in [`MATERIALS`] order (water, sand shore,
/// grass plain, wetland, rocky slope, upland).
pub const MATERIAL_COLOURS: [[u8; 3]; 6] =
    [[58, 104, 160], [212, 196, 150], [118, 158, 82], [88, 124, 96], [128, 118, 108], [152, 148, 112]];

/// Rivers as 3-D polylines along their beds, with kind, order, flow, width, depth and the
/// river (and point) they join.
fn river_polylines(rivers: &[landscape::River]) -> Vec<Polyline> {
    rivers
        .iter()
        .map(|r| {
            let mut properties = Map::new();
            properties.insert("id".into(), r.id.into());
            properties.insert("kind".into(), format!("{:?}", r.kind).to_lowercase().into());
            properties.insert("order".into(), r.order.into());
            properties.insert("flow".into(), r.flow.into());
            properties.insert("width_m".into(), r.width.into());
            properties.insert("depth_m".into(), r.depth.into());
            properties.insert("joins".into(), r.parent_id.map_or(Value::Null, Value::from));
            properties.insert("join_index".into(), r.join_index.map_or(Value::Null, Value::from));
            let points = r.points.iter().zip(&r.bed).map(|(p, &z)| [p[0], p[1], z]).collect();
            Polyline { name: format!("river {}", r.id), points, properties }
        })
        .collect()
}

impl From<LandscapeWorld> for WorldProduct {
    /// Grid; materials with their names and colours (the ground colour); rivers as 3-D
    /// polylines along their beds, with kind, order, flow, width, depth and the joined river.
    fn from(w: LandscapeWorld) -> Self {
        let colour = w.material.iter().map(|&m| MATERIAL_COLOURS[(m as usize).min(5)]).collect();
        let rivers = river_polylines(&w.rivers);
        let mut p = Self::from_grid("landscape", w.grid);
        p.materials = Some(Classes {
            names: MATERIALS.iter().map(|s| s.to_string()).collect(),
            cells: w.material,
            colours: MATERIAL_COLOURS.to_vec(),
        });
        p.colour = Some(colour);
        p.rivers = rivers;
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overrides(pairs: &[(&str, Value)]) -> Map<String, Value> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
    }

    #[test]
    fn spec_round_trips_and_regenerates_identically() {
        let o = overrides(&[("domain_size", serde_json::json!([20.0, 12.0])), ("undulation_amp", 0.3.into())]);
        let spec = WorldSpec::resolve("flat", Seed::parse("rhine"), Compat::Pyworldgen, &o).unwrap();
        assert_eq!(spec.parameters.len(), flat::PARAM_NAMES.len());
        let text = spec.to_json();
        let back = WorldSpec::from_json(&text).unwrap();
        assert_eq!(back, spec);
        assert_eq!(back.to_json(), text);
        assert_eq!(back.generate().unwrap(), spec.generate().unwrap());
        assert_eq!(spec.shape().unwrap(), (10, 6));
        assert!(text.contains("\"seed\": \"rhine\"") && text.contains("\"compat\": \"pyworldgen\""), "{text}");
        let int = WorldSpec::resolve("flat", Seed::Int(-4), Compat::Canonical, &Map::new()).unwrap();
        assert!(int.to_json().contains("\"seed\": -4"));
        assert!(int.generate().unwrap().check().is_ok());
    }

    #[test]
    fn settling_fixes_an_awkward_double() {
        // 17 significant digits: the kind of value a decimal parse may miss by an ulp.
        let o = overrides(&[("slope_x", (0.1f64 + 0.2).into()), ("undulation_scale", (1.0f64 / 3.0).into())]);
        let spec = WorldSpec::resolve("flat", Seed::Int(1), Compat::Pyworldgen, &o).unwrap();
        assert_eq!(WorldSpec::from_json(&spec.to_json()).unwrap(), spec);
    }

    #[test]
    fn unknown_and_unavailable_are_refused() {
        let e = WorldSpec::resolve("desert", Seed::Int(1), Compat::Pyworldgen, &Map::new()).unwrap_err().to_string();
        assert!(
            e.contains("desert") && e.contains("composite, flat, forest, implicit_cave, landscape, roads, voxels"),
            "{e}"
        );
        let e =
            WorldSpec::resolve("voxels", Seed::Int(1), Compat::Pyworldgen, &overrides(&[("chunk_size", 12.into())]))
                .unwrap_err()
                .to_string();
        assert!(e.contains("chunk_size") && e.contains("8, 16, 32 or 64"), "{e}");
        let huge = overrides(&[
            ("chunks_from", serde_json::json!([-500, -10, -500])),
            ("chunks_to", serde_json::json!([500, 10, 500])),
        ]);
        let e = WorldSpec::resolve("voxels", Seed::Int(1), Compat::Pyworldgen, &huge).unwrap_err().to_string();
        assert!(e.contains("more than 268435456 blocks"), "{e}");
        let e = WorldSpec::resolve("flat", Seed::Int(1), Compat::Pyworldgen, &overrides(&[("tilt", 1.0.into())]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("tilt"), "{e}");
        let text = WorldSpec::resolve("flat", Seed::Int(1), Compat::Pyworldgen, &Map::new()).unwrap().to_json();
        assert!(WorldSpec::from_json(&text.replace("\"format\": 1", "\"format\": 9")).is_err());
        assert!(WorldSpec::from_json(&text.replace("\"format\"", "\"extra\": 0, \"format\"")).is_err());
        let names: Vec<&str> = GENERATORS.iter().map(|g| g.name).collect();
        assert_eq!(names, ["composite", "flat", "forest", "implicit_cave", "landscape", "roads", "voxels"]);
        assert!(GENERATORS.iter().all(|g| g.available));
    }

    #[test]
    fn check_names_inconsistent_fields() {
        let mut p = WorldProduct::from_grid("t", WorldGrid::new(2, 2, 1.0, 1.0, vec![0.0; 4]));
        assert!(p.check().is_ok());
        p.road_mask = Some(vec![false; 3]);
        assert!(p.check().unwrap_err().to_string().contains("road mask has 3 cells"));
        p.road_mask = None;
        p.ribbon = Some(RibbonMesh { positions: vec![[0.0; 3]; 3], indices: vec![0, 1, 3], ..Default::default() });
        assert!(p.check().unwrap_err().to_string().contains("ribbon"));
        p.ribbon = None;
        p.grid.height[1] = f64::NAN;
        assert!(p.check().is_err());
    }
}

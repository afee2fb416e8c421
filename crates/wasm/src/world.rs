//! Worlds (issue 21) for the viewer: [`generate_world`] (`generateWorld(name, seed, paramsJson)`)
//! runs a `bozkir-world` generator in the page and hands back a [`WorldView`] whose getters are
//! the typed arrays web/src/world.js draws:
//!
//! * `height`, `water` — `Float32Array` of `ny × nx`, metres, row 0 the SOUTH edge (the world
//!   crate's layout), each value the generator's f64 rounded to f32;
//! * `color` — `Uint8Array` of `ny × nx × 3`, sRGB ground colour (empty when the generator has
//!   none: the page then colours by height);
//! * `roadPositions` (xyz f32), `roadColors` (rgb u8), `roadIndices` (u32 triangles),
//!   `roadBridge`, `roadTunnel` (u8 per vertex) — the road ribbon; a vertex is on a bridge when
//!   its cell is in the bridge mask, in a tunnel when it lies more than [`TUNNEL_DEPTH_M`] below
//!   the ground (bilinear between cell centres) under it;
//! * `trees` — `Float32Array` of `[x, y, z, crownRadius, height]` per tree.
//!
//! Positions are in the world frame: metres, x east from the west edge, y north from the south
//! edge, z up. `paramsJson` is a JSON object of the generator's parameters (pyworldgen's names)
//! plus two of the page's: `compat` (`"pyworldgen"`, the default, or `"canonical"`) and `size`
//! (cells per side: `domain_size` becomes `size × resolution` on both axes, the cell size kept).
//! [`WorldView::checksum`] is FNV-1a 64 over every array's little-endian bytes; the native
//! golden (crates/wasm/tests/world_golden.rs) and the page's test compare it.

use bozkir_world::product::{WorldProduct, WorldSpec};
use bozkir_world::seed::fnv1a64;
use bozkir_world::{Compat, Seed, WorldGrid};
use serde_json::{Map, Value};
use wasm_bindgen::prelude::*;

/// How far below the ground under it a ribbon vertex must lie to count as inside a tunnel.
pub const TUNNEL_DEPTH_M: f64 = 1.5;

/// Most cells a world generated in the page may have (1024² as f64 fields fit a 32-bit memory
/// many times over; beyond it the page's meshes exceed their budget).
pub const MAX_WORLD_CELLS: usize = 1024 * 1024;

/// A road ribbon as the generators make it: positions (world frame), colours, triangles.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Ribbon {
    /// Vertices (x east, y north, z up) in metres.
    pub positions: Vec<[f32; 3]>,
    /// sRGB colour per vertex (alpha, when the generator has one, is dropped).
    pub colours: Vec<[u8; 3]>,
    /// Three vertex indices per triangle.
    pub indices: Vec<u32>,
}

/// What a generator produced that the viewer draws (the world crate's product, reduced).
#[derive(Debug, Clone, PartialEq)]
pub struct Parts {
    /// Generator name.
    pub generator: String,
    /// Heights and water depths.
    pub grid: WorldGrid,
    /// Ground colour per cell (sRGB), south-first.
    pub colour: Option<Vec<[u8; 3]>>,
    /// The roads' ribbon.
    pub ribbon: Option<Ribbon>,
    /// Cells under a bridge deck.
    pub bridge_mask: Option<Vec<bool>>,
    /// Trees: base x, y, z, crown radius, height (metres).
    pub trees: Vec<[f64; 5]>,
    /// The trees' branch graphs meshed (`forest::mesh` at its defaults), when the generator grows
    /// them.
    pub branches: Option<bozkir_mesh::Mesh>,
}

/// A generated world as typed arrays (see the module docs).
#[wasm_bindgen]
#[derive(Debug, Clone, PartialEq)]
pub struct WorldView {
    generator: String,
    seed: String,
    compat: String,
    nx: u32,
    ny: u32,
    dx: f64,
    dy: f64,
    height: Vec<f32>,
    water: Vec<f32>,
    color: Vec<u8>,
    has_roads: bool,
    road_positions: Vec<f32>,
    road_colors: Vec<u8>,
    road_indices: Vec<u32>,
    road_bridge: Vec<u8>,
    road_tunnel: Vec<u8>,
    trees: Vec<f32>,
    branch_positions: Vec<f32>,
    branch_normals: Vec<f32>,
    branch_colors: Vec<u8>,
    branch_indices: Vec<u32>,
}

macro_rules! getters {
    ($($(#[$doc:meta])* $name:ident $(as $js:ident)? : $t:ty;)*) => {
        #[wasm_bindgen]
        impl WorldView {
            $(
                $(#[$doc])*
                #[wasm_bindgen(getter $(, js_name = $js)?)]
                pub fn $name(&self) -> $t {
                    self.$name.clone()
                }
            )*
        }
    };
}

getters! {
    /// Generator name (pyworldgen's).
    generator: String;
    /// The seed as given (an integer or a word).
    seed: String;
    /// `"pyworldgen"` or `"canonical"`.
    compat: String;
    /// Columns (x east).
    nx: u32;
    /// Rows (y north; row 0 south).
    ny: u32;
    /// Column spacing in metres.
    dx: f64;
    /// Row spacing in metres.
    dy: f64;
    /// Ground heights in metres, `ny × nx`, a `Float32Array`.
    height: Vec<f32>;
    /// Water depths in metres, `ny × nx`, a `Float32Array`.
    water: Vec<f32>;
    /// sRGB ground colour, `ny × nx × 3`, a `Uint8Array` (empty: none).
    color: Vec<u8>;
    /// Whether the world has a road ribbon.
    has_roads as hasRoads: bool;
    /// Ribbon vertices, xyz, a `Float32Array`.
    road_positions as roadPositions: Vec<f32>;
    /// Ribbon colours, rgb, a `Uint8Array`.
    road_colors as roadColors: Vec<u8>;
    /// Ribbon triangles, a `Uint32Array`.
    road_indices as roadIndices: Vec<u32>;
    /// 1 where a ribbon vertex is on a bridge, a `Uint8Array`.
    road_bridge as roadBridge: Vec<u8>;
    /// 1 where a ribbon vertex is inside a tunnel, a `Uint8Array`.
    road_tunnel as roadTunnel: Vec<u8>;
    /// Trees, `[x, y, z, crownRadius, height]` each, a `Float32Array`.
    trees: Vec<f32>;
    /// Branch mesh vertices (bark tubes and leaf clusters), xyz, a `Float32Array` (empty: none).
    branch_positions as branchPositions: Vec<f32>;
    /// Branch mesh normals, xyz, a `Float32Array`.
    branch_normals as branchNormals: Vec<f32>;
    /// Branch mesh colours, sRGB, a `Uint8Array`.
    branch_colors as branchColors: Vec<u8>;
    /// Branch mesh triangles, a `Uint32Array`.
    branch_indices as branchIndices: Vec<u32>;
}

#[wasm_bindgen]
impl WorldView {
    /// FNV-1a 64 (hex) over nx, ny (u32), dx, dy (f64) and every array's little-endian bytes in
    /// the order of the getters: what native and WebAssembly must agree on bit for bit.
    pub fn checksum(&self) -> String {
        format!("{:016x}", fnv1a64(&self.bytes()))
    }
}

impl WorldView {
    /// The bytes [`WorldView::checksum`] hashes.
    pub fn bytes(&self) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend(self.nx.to_le_bytes());
        b.extend(self.ny.to_le_bytes());
        b.extend(self.dx.to_le_bytes());
        b.extend(self.dy.to_le_bytes());
        for v in [&self.height, &self.water, &self.road_positions, &self.trees] {
            b.extend(v.iter().flat_map(|x| x.to_le_bytes()));
        }
        b.extend(&self.color);
        b.extend(&self.road_colors);
        b.extend(self.road_indices.iter().flat_map(|x| x.to_le_bytes()));
        b.extend(&self.road_bridge);
        b.extend(&self.road_tunnel);
        // Worlds without branches add no bytes: their checksums are unchanged.
        for v in [&self.branch_positions, &self.branch_normals] {
            b.extend(v.iter().flat_map(|x| x.to_le_bytes()));
        }
        b.extend(&self.branch_colors);
        b.extend(self.branch_indices.iter().flat_map(|x| x.to_le_bytes()));
        b
    }

    /// The view of a generator's parts; `seed` and `compat` as recorded.
    pub fn from_parts(p: &Parts, seed: &Seed, compat: Compat) -> Result<WorldView, String> {
        let g = &p.grid;
        let n = g.nx * g.ny;
        if g.height.len() != n || g.water_depth.len() != n {
            return Err(format!(
                "world: {} heights, {} depths for {}×{}",
                g.height.len(),
                g.water_depth.len(),
                g.nx,
                g.ny
            ));
        }
        let f32s = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<f32>>();
        let color = match &p.colour {
            Some(c) if c.len() == n => c.iter().flatten().copied().collect(),
            Some(c) => return Err(format!("world: {} colours for {n} cells", c.len())),
            None => Vec::new(),
        };
        let mut v = WorldView {
            generator: p.generator.clone(),
            seed: seed.to_string(),
            compat: compat.name().to_string(),
            nx: g.nx as u32,
            ny: g.ny as u32,
            dx: g.dx,
            dy: g.dy,
            height: f32s(&g.height),
            water: f32s(&g.water_depth),
            color,
            has_roads: false,
            road_positions: Vec::new(),
            road_colors: Vec::new(),
            road_indices: Vec::new(),
            road_bridge: Vec::new(),
            road_tunnel: Vec::new(),
            trees: p.trees.iter().flatten().map(|&x| x as f32).collect(),
            branch_positions: Vec::new(),
            branch_normals: Vec::new(),
            branch_colors: Vec::new(),
            branch_indices: Vec::new(),
        };
        if let Some(m) = &p.branches {
            use bozkir_world::forest::mesh::{BARK, BARK_SRGB, LEAF_SRGB};
            m.validate().map_err(|e| format!("world branches: {e}"))?;
            v.branch_positions = m.positions.iter().flatten().copied().collect();
            v.branch_normals = m.normals.iter().flatten().copied().collect();
            v.branch_colors = m.block.iter().flat_map(|&b| if b == BARK { BARK_SRGB } else { LEAF_SRGB }).collect();
            v.branch_indices = m.indices.clone();
        }
        if let Some(r) = &p.ribbon {
            v.set_ribbon(r, g, p.bridge_mask.as_deref())?;
        }
        Ok(v)
    }

    fn set_ribbon(&mut self, r: &Ribbon, g: &WorldGrid, bridge_mask: Option<&[bool]>) -> Result<(), String> {
        let nv = r.positions.len();
        if r.colours.len() != nv && !r.colours.is_empty() {
            return Err(format!("world roads: {} colours for {nv} vertices", r.colours.len()));
        }
        if !r.indices.len().is_multiple_of(3) || r.indices.iter().any(|&i| i as usize >= nv) {
            return Err(format!("world roads: {} indices over {nv} vertices", r.indices.len()));
        }
        self.has_roads = true;
        self.road_positions = r.positions.iter().flatten().copied().collect();
        self.road_colors =
            if r.colours.is_empty() { vec![0; 3 * nv] } else { r.colours.iter().flatten().copied().collect() };
        self.road_indices = r.indices.clone();
        self.road_bridge = r
            .positions
            .iter()
            .map(|p| u8::from(bridge_mask.is_some_and(|m| m.get(cell_at(g, p[0].into(), p[1].into())) == Some(&true))))
            .collect();
        self.road_tunnel = r
            .positions
            .iter()
            .map(|p| u8::from(f64::from(p[2]) < ground_at(g, p[0].into(), p[1].into()) - TUNNEL_DEPTH_M))
            .collect();
        Ok(())
    }
}

/// The cell containing world point (x, y), clamped to the grid.
fn cell_at(g: &WorldGrid, x: f64, y: f64) -> usize {
    let i = ((x / g.dx).floor().max(0.0) as usize).min(g.nx - 1);
    let j = ((y / g.dy).floor().max(0.0) as usize).min(g.ny - 1);
    j * g.nx + i
}

/// The ground at world point (x, y): bilinear between the four nearest cell centres (clamped
/// at the edges).
pub fn ground_at(g: &WorldGrid, x: f64, y: f64) -> f64 {
    let fx = (x / g.dx - 0.5).clamp(0.0, (g.nx - 1) as f64);
    let fy = (y / g.dy - 0.5).clamp(0.0, (g.ny - 1) as f64);
    let (i, j) = ((fx as usize).min(g.nx.saturating_sub(2)), (fy as usize).min(g.ny.saturating_sub(2)));
    let (tx, ty) = (fx - i as f64, fy - j as f64);
    let h = |i: usize, j: usize| g.height[j.min(g.ny - 1) * g.nx + i.min(g.nx - 1)];
    let a = h(i, j) + (h(i + 1, j) - h(i, j)) * tx;
    let b = h(i, j + 1) + (h(i + 1, j + 1) - h(i, j + 1)) * tx;
    a + (b - a) * ty
}

/// The page's options taken out of `paramsJson`; the rest are the generator's parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct PageOptions {
    /// Whose randomness.
    pub compat: Compat,
    /// Cells per side, if given.
    pub size: Option<u32>,
    /// The generator's own parameters (pyworldgen's names).
    pub params: Map<String, Value>,
}

/// Parse `paramsJson`: an object (or empty text); `compat` and `size` are taken out.
pub fn page_options(params_json: &str) -> Result<PageOptions, String> {
    let mut params = if params_json.trim().is_empty() {
        Map::new()
    } else {
        match serde_json::from_str::<Value>(params_json) {
            Ok(Value::Object(m)) => m,
            Ok(other) => return Err(format!("world parameters must be a JSON object, not {other}")),
            Err(e) => return Err(format!("world parameters: {e}")),
        }
    };
    let compat = match params.remove("compat") {
        None => Compat::Pyworldgen,
        Some(Value::String(s)) if s == "pyworldgen" => Compat::Pyworldgen,
        Some(Value::String(s)) if s == "canonical" => Compat::Canonical,
        Some(v) => return Err(format!("compat {v}: must be \"pyworldgen\" or \"canonical\"")),
    };
    let max = (MAX_WORLD_CELLS as f64).sqrt() as u64;
    let size = match params.remove("size") {
        None => None,
        Some(v) => match v.as_u64() {
            Some(n) if (2..=max).contains(&n) => Some(n as u32),
            _ => return Err(format!("size {v}: must be a whole number of cells 2..={max}")),
        },
    };
    Ok(PageOptions { compat, size, params })
}

/// [`generate_world`] without the JavaScript error type.
pub fn try_generate_world(name: &str, seed: &str, params_json: &str) -> Result<WorldView, String> {
    let o = page_options(params_json)?;
    let seed = Seed::parse(seed);
    let parts = generate_parts(name, &seed, o.compat, o.size, &o.params)?;
    WorldView::from_parts(&parts, &seed, o.compat)
}

/// Run generator `name` through the world crate's registry ([`WorldSpec`]): the same spec, and
/// so the same world, as `bozkir world NAME` writes for these parameters. `size`, when given,
/// sets `domain_size` to `size × resolution` on both axes.
fn generate_parts(
    name: &str,
    seed: &Seed,
    compat: Compat,
    size: Option<u32>,
    params: &Map<String, Value>,
) -> Result<Parts, String> {
    const WORLDS: [&str; 5] = ["composite", "flat", "forest", "landscape", "roads"];
    if !WORLDS.contains(&name) {
        return Err(format!("unknown world `{name}`; worlds: {}", WORLDS.join(", ")));
    }
    let mut overrides = params.clone();
    if let Some(n) = size {
        let probe = WorldSpec::resolve(name, seed.clone(), compat, &overrides).map_err(|e| e.to_string())?;
        let r = probe.parameters.get("resolution").and_then(Value::as_f64).unwrap_or(1.0);
        let extent = f64::from(n) * r;
        overrides.insert("domain_size".into(), Value::from(vec![extent, extent]));
    }
    let spec = WorldSpec::resolve(name, seed.clone(), compat, &overrides).map_err(|e| e.to_string())?;
    let (nx, ny) = spec.shape().map_err(|e| e.to_string())?;
    if nx.saturating_mul(ny) > MAX_WORLD_CELLS {
        return Err(format!("world {name}: {nx}×{ny} cells is more than the page's {MAX_WORLD_CELLS}"));
    }
    let p = spec.generate().map_err(|e| e.to_string())?;
    parts_of(p)
}

/// The parts of a world product the page draws.
pub fn parts_of(p: WorldProduct) -> Result<Parts, String> {
    let ribbon = p.ribbon.map(|r| Ribbon {
        positions: r.positions,
        colours: r.colours.iter().map(|c| [c[0], c[1], c[2]]).collect(),
        indices: r.indices,
    });
    let trees =
        p.trees.iter().map(|t| [t.position[0], t.position[1], t.position[2], t.crown_radius, t.height]).collect();
    let branches = if p.tree_graphs.is_empty() {
        Ok(None)
    } else {
        use bozkir_world::forest::mesh::{graphs_mesh, ForestMeshParams};
        graphs_mesh(&p.tree_graphs, &ForestMeshParams::default()).map(Some).map_err(|e| e.to_string())
    };
    Ok(Parts {
        generator: p.generator,
        grid: p.grid,
        colour: p.colour,
        ribbon,
        bridge_mask: p.bridge_mask,
        trees,
        branches: branches?,
    })
}

/// Generate world `name` for `seed` (an integer or a word) with `paramsJson` (see the module
/// docs): the arrays the viewer draws.
#[wasm_bindgen(js_name = generateWorld)]
pub fn generate_world(name: &str, seed: &str, params_json: &str) -> Result<WorldView, JsError> {
    try_generate_world(name, seed, params_json).map_err(|e| JsError::new(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 6 × 4 world of 2 m × 3 m cells: a ramp east, water in column 0, a hill of 20 m in column 4.
    fn parts() -> Parts {
        let (nx, ny) = (6, 4);
        let height: Vec<f64> = (0..nx * ny).map(|k| if k % nx == 4 { 20.0 } else { (k % nx) as f64 }).collect();
        let mut grid = WorldGrid::new(nx, ny, 2.0, 3.0, height);
        for j in 0..ny {
            grid.water_depth[j * nx] = 1.25;
        }
        let ribbon = Ribbon {
            // across the water (x = 1), on open ground (x = 5), through the hill (x = 9)
            positions: vec![
                [1.0, 5.0, 2.0],
                [1.0, 7.0, 2.0],
                [5.0, 5.0, 2.0],
                [5.0, 7.0, 2.0],
                [9.0, 5.0, 4.0],
                [9.0, 7.0, 4.0],
            ],
            colours: vec![[60, 60, 60]; 6],
            indices: vec![0, 2, 1, 1, 2, 3, 2, 4, 3, 3, 4, 5],
        };
        let mut bridge = vec![false; nx * ny];
        bridge[nx] = true;
        bridge[2 * nx] = true;
        Parts {
            generator: "test".into(),
            grid,
            colour: Some(vec![[1, 2, 3]; nx * ny]),
            ribbon: Some(ribbon),
            bridge_mask: Some(bridge),
            trees: vec![[3.0, 4.0, 1.0, 2.0, 8.0]],
            branches: None,
        }
    }

    #[test]
    fn view_holds_the_parts_as_typed_arrays() {
        let v = WorldView::from_parts(&parts(), &Seed::parse("atlas"), Compat::Canonical).unwrap();
        assert_eq!((v.nx(), v.ny(), v.dx(), v.dy()), (6, 4, 2.0, 3.0));
        assert_eq!((v.seed(), v.compat()), ("atlas".to_string(), "canonical".to_string()));
        assert_eq!(v.height()[4], 20.0);
        assert_eq!(v.water()[6], 1.25);
        assert_eq!(v.color().len(), 72);
        assert_eq!(&v.color()[..3], &[1, 2, 3]);
        assert!(v.has_roads());
        assert_eq!(v.road_positions().len(), 18);
        assert_eq!(v.road_indices(), vec![0, 2, 1, 1, 2, 3, 2, 4, 3, 3, 4, 5]);
        // vertices at y = 5 and 7 over column 0 lie in rows 1 and 2: both in the bridge mask
        assert_eq!(v.road_bridge(), vec![1, 1, 0, 0, 0, 0]);
        // z = 4 under a 20 m hill (column 4, x 8..10): inside the tunnel; z = 2 on the ramp: not
        assert_eq!(v.road_tunnel(), vec![0, 0, 0, 0, 1, 1]);
        assert_eq!(v.trees(), vec![3.0, 4.0, 1.0, 2.0, 8.0]);
        let bytes = v.bytes();
        assert_eq!(bytes.len(), 4 + 4 + 8 + 8 + 4 * (24 + 24 + 18 + 5) + 72 + 18 + 4 * 12 + 6 + 6);
        assert_eq!(v.checksum(), format!("{:016x}", fnv1a64(&bytes)));
    }

    #[test]
    fn ground_is_bilinear_between_cell_centres() {
        let g = parts().grid;
        assert_eq!(ground_at(&g, 1.0, 1.5), 0.0);
        assert_eq!(ground_at(&g, 2.0, 1.5), 0.5);
        assert_eq!(ground_at(&g, 9.0, 4.0), 20.0);
        assert_eq!(ground_at(&g, -5.0, -5.0), 0.0);
        assert_eq!(ground_at(&g, 99.0, 99.0), 5.0);
    }

    #[test]
    fn bad_parts_and_options_are_refused() {
        let mut p = parts();
        p.colour = Some(vec![[0, 0, 0]; 5]);
        assert!(WorldView::from_parts(&p, &Seed::Int(1), Compat::Pyworldgen)
            .unwrap_err()
            .contains("5 colours for 24 cells"));
        let mut p = parts();
        p.ribbon.as_mut().unwrap().indices[0] = 6;
        assert!(WorldView::from_parts(&p, &Seed::Int(1), Compat::Pyworldgen)
            .unwrap_err()
            .contains("12 indices over 6 vertices"));
        let o = page_options(r#"{"size": 64, "compat": "canonical", "base_height": 3}"#).unwrap();
        assert_eq!((o.size, o.compat), (Some(64), Compat::Canonical));
        assert_eq!(o.params.len(), 1);
        assert_eq!(page_options("").unwrap().compat, Compat::Pyworldgen);
        assert!(page_options("[1]").unwrap_err().contains("must be a JSON object"));
        assert!(page_options(r#"{"size": 1}"#).unwrap_err().contains("2..=1024"));
        assert!(page_options(r#"{"size": 4096}"#).unwrap_err().contains("size 4096"));
        assert!(page_options(r#"{"compat": "numpy"}"#).unwrap_err().contains("compat \"numpy\""));
        assert!(try_generate_world("atlantis", "1", "").unwrap_err().contains("unknown world `atlantis`"));
    }
}

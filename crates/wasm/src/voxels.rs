//! 3-D worlds (issue 22) for the viewer: [`open_voxel_world`] (`openVoxelWorld(name, seed,
//! paramsJson)`) opens a `bozkir-world` [`VoxelSession`] on `voxels` or `implicit_cave` and
//! hands back a [`VoxelWorld`] the page drives once per frame:
//!
//! * `update(x, y, z)` — stream around the viewer: an `Int32Array`
//!   `[nLoaded, nUnloaded, loaded xyz…, unloaded xyz…]` of chunk positions;
//! * `pending(max)` — chunks whose mesh is due, nearest first (`Int32Array` of xyz);
//! * `mesh(cx, cy, cz)` — one chunk's [`ChunkMeshView`]: `positions`, `normals`
//!   (`Float32Array`), `colors` (sRGB + alpha, `Uint8Array`), `indices` (`Uint32Array`);
//! * `isSolid(x, y, z)` (blocks), `surface(x, z)`;
//! * the walker: `walk(dt, vx, vy, jump, fly)` moves it and returns its eye; `placeWalker`.
//!
//! **Frames.** The session works in the voxel frame (blocks; x east, y up, z south). The page
//! draws z up: every position and normal crossing this binding is in the **view frame**, metres,
//! `(x, y, z)_view = block_size · (x, −z, y)_voxel` — a rotation, so windings are kept. Chunk
//! and block coordinates (`update`, `pending`, `mesh`, `isSolid`) stay voxel-frame integers.
//!
//! `paramsJson` holds the generator's parameters plus the page's: `compat` (`"pyworldgen"` or
//! `"canonical"`), `radius` (stream radius across, chunks, 1..=12, default 5), `vradius` (up
//! and down, 1..=6, default 2) and `budget` (chunks generated per update, 1..=64, default 6).

use bozkir_voxel::coords::ChunkPos;
use bozkir_voxel::stream::StreamParams;
use bozkir_voxel::walker::{settle, WalkInput, Walker, WalkerParams};
use bozkir_world::product::WorldSpec;
use bozkir_world::voxels::{ChunkMesh, SessionParams, VoxelSession};
use bozkir_world::Seed;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::world::page_options;

/// A chunk's mesh in the view frame (see the module docs).
#[wasm_bindgen]
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChunkMeshView {
    positions: Vec<f32>,
    normals: Vec<f32>,
    colors: Vec<u8>,
    indices: Vec<u32>,
}

#[wasm_bindgen]
impl ChunkMeshView {
    /// Vertex positions, metres, view frame, a `Float32Array` of xyz.
    #[wasm_bindgen(getter)]
    pub fn positions(&self) -> Vec<f32> {
        self.positions.clone()
    }
    /// Unit normals, view frame, a `Float32Array` of xyz.
    #[wasm_bindgen(getter)]
    pub fn normals(&self) -> Vec<f32> {
        self.normals.clone()
    }
    /// sRGB colour and alpha per vertex, a `Uint8Array`.
    #[wasm_bindgen(getter)]
    pub fn colors(&self) -> Vec<u8> {
        self.colors.clone()
    }
    /// Triangles, a `Uint32Array`.
    #[wasm_bindgen(getter)]
    pub fn indices(&self) -> Vec<u32> {
        self.indices.clone()
    }
}

/// The view frame of a voxel-frame point in blocks: `s·(x, −z, y)`.
pub fn to_view(p: [f32; 3], s: f32) -> [f32; 3] {
    [p[0] * s, -p[2] * s, p[1] * s]
}

/// The voxel frame (blocks) of a view-frame point in metres.
pub fn to_voxel(p: [f64; 3], s: f64) -> [f64; 3] {
    [p[0] / s, p[2] / s, -p[1] / s]
}

impl ChunkMeshView {
    /// The view of a session's chunk mesh, positions scaled by `block_size` metres.
    pub fn from_mesh(m: &ChunkMesh, block_size: f64) -> Self {
        let s = block_size as f32;
        ChunkMeshView {
            positions: m.positions.iter().flat_map(|&p| to_view(p, s)).collect(),
            normals: m.normals.iter().flat_map(|&n| to_view(n, 1.0)).collect(),
            colors: m.colours.iter().flatten().copied().collect(),
            indices: m.indices.clone(),
        }
    }
}

/// A live 3-D world (see the module docs).
#[wasm_bindgen]
pub struct VoxelWorld {
    session: VoxelSession,
    seed: String,
    compat: String,
    walker: Walker,
    walker_params: WalkerParams,
}

/// Stream radii and budget out of the page's parameters (removed from `params`).
fn stream_params(params: &mut serde_json::Map<String, Value>) -> Result<StreamParams, String> {
    let mut take = |key: &str, lo: u64, hi: u64, default: u64| -> Result<u64, String> {
        match params.remove(key) {
            None => Ok(default),
            Some(v) => match v.as_u64() {
                Some(n) if (lo..=hi).contains(&n) => Ok(n),
                _ => Err(format!("{key} {v}: must be a whole number {lo}..={hi}")),
            },
        }
    };
    let d = SessionParams::default().stream;
    Ok(StreamParams {
        horizontal_radius: take("radius", 1, 12, d.horizontal_radius.into())? as u32,
        vertical_radius: take("vradius", 1, 6, d.vertical_radius.into())? as u32,
        budget: take("budget", 1, 64, d.budget as u64)? as usize,
    })
}

/// [`open_voxel_world`] without the JavaScript error type.
pub fn try_open_voxel_world(name: &str, seed: &str, params_json: &str) -> Result<VoxelWorld, String> {
    const WORLDS: [&str; 2] = ["implicit_cave", "voxels"];
    if !WORLDS.contains(&name) {
        return Err(format!("unknown 3-D world `{name}`; 3-D worlds: {}", WORLDS.join(", ")));
    }
    let mut o = page_options(params_json)?;
    if o.size.is_some() {
        return Err(format!("world {name}: `size` is for height-field worlds; a 3-D world streams around the viewer"));
    }
    let stream = stream_params(&mut o.params)?;
    let seed_v = Seed::parse(seed);
    let spec = WorldSpec::resolve(name, seed_v.clone(), o.compat, &o.params).map_err(|e| e.to_string())?;
    let session = VoxelSession::open(&spec, SessionParams { stream }).map_err(|e| e.to_string())?;
    let walker_params = walker_params(session.block_size());
    Ok(VoxelWorld {
        session,
        seed: seed_v.to_string(),
        compat: o.compat.name().to_string(),
        walker: Walker::new([0.0; 3]),
        walker_params,
    })
}

/// A person in blocks of `block_size` metres: 1.8 m tall, eyes at 1.62 m, 0.6 m wide, steps up
/// ledges of 1.05 m or one block (whichever is lower, at least half a metre), jumps 1.25 m.
pub fn walker_params(block_size: f64) -> WalkerParams {
    let m = |metres: f64| metres / block_size;
    let g = m(25.0);
    WalkerParams {
        half_width: m(0.3),
        height: m(1.8),
        eye: m(1.62),
        gravity: g,
        jump_speed: (2.0 * g * m(1.25)).sqrt(),
        step_height: m(1.05).min(1.0).max(m(0.5)),
        max_fall_speed: m(50.0),
        ..WalkerParams::default()
    }
}

/// Open a 3-D world: `name` `voxels` or `implicit_cave`, `seed` an integer or a word,
/// `paramsJson` a JSON object (see the module docs).
#[wasm_bindgen(js_name = openVoxelWorld)]
pub fn open_voxel_world(name: &str, seed: &str, params_json: &str) -> Result<VoxelWorld, JsError> {
    try_open_voxel_world(name, seed, params_json).map_err(|e| JsError::new(&e))
}

impl VoxelWorld {
    /// The session.
    pub fn session(&self) -> &VoxelSession {
        &self.session
    }

    /// [`VoxelWorld::update`] without the JavaScript error type.
    pub fn try_update(&mut self, x: f64, y: f64, z: f64) -> Result<Vec<i32>, String> {
        let p = to_voxel([x, y, z], self.session.block_size());
        let u = self.session.update(p).map_err(|e| e.to_string())?;
        let mut out = vec![u.loaded.len() as i32, u.unloaded.len() as i32];
        out.extend(u.loaded.iter().chain(&u.unloaded).flat_map(|c| [c.x, c.y, c.z]));
        Ok(out)
    }

    /// [`VoxelWorld::mesh`] without the JavaScript error type.
    pub fn try_mesh(&mut self, cx: i32, cy: i32, cz: i32) -> Result<ChunkMeshView, String> {
        let m = self.session.mesh(ChunkPos::new(cx, cy, cz)).map_err(|e| e.to_string())?;
        Ok(ChunkMeshView::from_mesh(&m, self.session.block_size()))
    }

    /// [`VoxelWorld::walk`] without the JavaScript error type.
    pub fn try_walk(&mut self, dt: f64, vx: f64, vy: f64, up: f64, jump: bool, fly: bool) -> Result<Vec<f64>, String> {
        let s = self.session.block_size();
        let p = WalkerParams { fly, ..self.walker_params };
        // View (east, north) metres per second → voxel (x, z) blocks per second.
        let input = WalkInput { velocity: [vx / s, -vy / s], up: up / s, jump };
        let session = &self.session;
        self.walker.step(&p, input, dt, |x, y, z| session.is_solid(x, y, z)).map_err(|e| e.to_string())?;
        Ok(self.eye())
    }

    /// [`VoxelWorld::place_walker`] without the JavaScript error type.
    pub fn try_place_walker(&mut self, x: f64, y: f64, z: f64) -> Result<Vec<f64>, String> {
        if ![x, y, z].iter().all(|v| v.is_finite()) {
            return Err(format!("walker position ({x}, {y}, {z}) is not finite"));
        }
        let s = self.session.block_size();
        let start = to_voxel([x, y, z], s);
        let session = &self.session;
        let at = settle(&self.walker_params, start, |a, b, c| session.is_solid(a, b, c), 24)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| "no free place to stand within 24 blocks".to_string())?;
        self.walker = Walker::new(at);
        Ok(self.eye())
    }

    fn eye(&self) -> Vec<f64> {
        let s = self.session.block_size();
        let f = self.walker.pos;
        let e = [f[0], f[1] + self.walker_params.eye, f[2]];
        vec![e[0] * s, -e[2] * s, e[1] * s]
    }
}

#[wasm_bindgen]
impl VoxelWorld {
    /// Generator name.
    #[wasm_bindgen(getter)]
    pub fn generator(&self) -> String {
        self.session.generator().to_string()
    }
    /// The seed as given.
    #[wasm_bindgen(getter)]
    pub fn seed(&self) -> String {
        self.seed.clone()
    }
    /// `"pyworldgen"` or `"canonical"`.
    #[wasm_bindgen(getter)]
    pub fn compat(&self) -> String {
        self.compat.clone()
    }
    /// Metres per block.
    #[wasm_bindgen(getter, js_name = blockSize)]
    pub fn block_size(&self) -> f64 {
        self.session.block_size()
    }
    /// Blocks per chunk edge.
    #[wasm_bindgen(getter, js_name = chunkSize)]
    pub fn chunk_size(&self) -> u32 {
        self.session.chunk_size().edge()
    }
    /// Stream radius across, chunks.
    #[wasm_bindgen(getter)]
    pub fn radius(&self) -> u32 {
        self.session.stream_params().horizontal_radius
    }
    /// The bounded world's box in the view frame (metres): `[x0, y0, z0, x1, y1, z1]`, or empty
    /// for an unbounded world.
    #[wasm_bindgen(getter)]
    pub fn bounds(&self) -> Vec<f64> {
        let s = self.session.block_size();
        match self.session.block_bounds() {
            None => Vec::new(),
            Some((lo, hi)) => {
                let (lo, hi) = (lo.map(|v| v as f64), hi.map(|v| v as f64));
                vec![lo[0] * s, -hi[2] * s, lo[1] * s, hi[0] * s, -lo[2] * s, hi[1] * s]
            }
        }
    }
    /// Where a visit starts, view frame metres `[x, y, z]`: on the cave's corridor axis three
    /// blocks in, or above the unbounded world's origin.
    #[wasm_bindgen(getter)]
    pub fn start(&self) -> Vec<f64> {
        let s = self.session.block_size();
        let v = self.session.start();
        vec![v[0] * s, -v[2] * s, v[1] * s]
    }
    /// Loaded chunks.
    #[wasm_bindgen(getter, js_name = loadedCount)]
    pub fn loaded_count(&self) -> u32 {
        self.session.loaded().count() as u32
    }
    /// Stream around a viewer at view-frame `(x, y, z)` metres (see the module docs).
    pub fn update(&mut self, x: f64, y: f64, z: f64) -> Result<Vec<i32>, JsError> {
        self.try_update(x, y, z).map_err(|e| JsError::new(&e))
    }
    /// Up to `max` chunks whose mesh is due, nearest first: xyz per chunk.
    pub fn pending(&self, max: u32) -> Vec<i32> {
        self.session.pending(max as usize).iter().flat_map(|c| [c.x, c.y, c.z]).collect()
    }
    /// Mesh chunk `(cx, cy, cz)` (loaded) over its loaded neighbours.
    pub fn mesh(&mut self, cx: i32, cy: i32, cz: i32) -> Result<ChunkMeshView, JsError> {
        self.try_mesh(cx, cy, cz).map_err(|e| JsError::new(&e))
    }
    /// Whether block `(x, y, z)` (voxel frame) stops a walker.
    #[wasm_bindgen(js_name = isSolid)]
    pub fn is_solid(&self, x: i32, y: i32, z: i32) -> bool {
        self.session.is_solid(x, y, z)
    }
    /// Height in metres (view frame z) of the ground under view-frame `(x, y)` among the loaded
    /// chunks, or NaN.
    pub fn surface(&self, x: f64, y: f64) -> f64 {
        let s = self.session.block_size();
        let v = to_voxel([x, y, 0.0], s);
        match self.session.surface(v[0].floor() as i32, v[2].floor() as i32) {
            Some(h) => f64::from(h) * s,
            None => f64::NAN,
        }
    }
    /// Put the walker at a free standing place near view-frame `(x, y, z)` metres (searching up
    /// then outward over the loaded blocks); returns its eye `[x, y, z]`, or an error when there
    /// is none within 24 blocks.
    #[wasm_bindgen(js_name = placeWalker)]
    pub fn place_walker(&mut self, x: f64, y: f64, z: f64) -> Result<Vec<f64>, JsError> {
        self.try_place_walker(x, y, z).map_err(|e| JsError::new(&e))
    }
    /// One walk step of `dt` seconds: `vx`, `vy` the wanted velocity east and north (m/s),
    /// `up` the vertical velocity when flying (m/s), `jump` from the ground; returns the eye
    /// `[x, y, z]` (view frame, metres).
    pub fn walk(&mut self, dt: f64, vx: f64, vy: f64, up: f64, jump: bool, fly: bool) -> Result<Vec<f64>, JsError> {
        self.try_walk(dt, vx, vy, up, jump, fly).map_err(|e| JsError::new(&e))
    }
    /// Whether the walker stands on the ground.
    #[wasm_bindgen(getter, js_name = onGround)]
    pub fn on_ground(&self) -> bool {
        self.walker.on_ground
    }
}

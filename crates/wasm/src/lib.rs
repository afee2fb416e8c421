//! WebAssembly bindings of bozkir for the viewer (`wasm-bindgen`).
//!
//! Thin glue only: every algorithm lives in the pure crates and runs here unchanged, so the page
//! and the CLI decide the same bits. Exposed:
//!
//! * [`generate`] — a named profile and a seed to terrain, exactly what `bozkir terrain
//!   --profile P --seed S --size N` writes to `height.tif` (metres at the default 1000 m range)
//!   and `sediment.tif` (unit range).
//! * [`classify_grid`] — the terrain laid under an `n × n` tile grid and classified with the
//!   built-in rule, through [`bozkir_material::tilegrid::classify_on_grid`], the function
//!   `bozkir classify` runs.
//! * [`splat_priority`], [`blend_mix`] — the per-splat survival hash and the blend band.
//! * [`rule_json`], [`profiles`], [`generator_version`].
//! * [`SceneField`] — a height field under the viewer's grid mapping: the normalised planes
//!   the shaders sample, the drawn height at a point, and the rule on any grid
//!   (`GridMapping` with relief scale, angle and detail).
//! * [`scene_cells_js`] (`sceneCells`) — the Wang layout of a tileset over the decided classes,
//!   with the runner-up tile and the blend thresholds per cell; [`splat_hashes_js`]
//!   (`splatHashes`) — the survival hash per splat index, compared with those thresholds.
//! * [`starter_tileset`] (`starterTileset`) — the no-data two-material tileset.
//! * [`world::generate_world`] (`generateWorld`) — a `bozkir-world` world (composite, flat,
//!   landscape, roads) as the typed arrays the viewer's world look draws ([`world::WorldView`]).
//!
//! Each binding has a plain Rust twin returning `Result<_, String>` (`try_…`), which the native
//! tests exercise: `JsError` itself only exists inside a JavaScript host. Errors reach
//! JavaScript as `Error` objects carrying the library's message.

use bozkir_core::{NoProgress, Progress};
use bozkir_material::tilegrid::{classify_on_grid, Compat, Field, GridMapping};
use bozkir_material::{Balance, ClassifyOptions, Rule};
use bozkir_terrain::profiles::{profile, profile_names, GENERATOR_VERSION};
use wasm_bindgen::prelude::*;

use bozkir_splat::tiling::scene::{self, MappingArgs, SceneFieldData};

pub mod voxels;
pub mod world;

/// Metres from the lowest to the highest point: `bozkir terrain`'s default `--height-range`.
pub const HEIGHT_RANGE_M: f64 = 1000.0;

/// Largest terrain side the page may ask for (a 32-bit WebAssembly memory holds at most 4 GiB;
/// the generator works on a field 1.3 times wider in f64).
pub const MAX_SIZE: u32 = 2048;

/// Generated terrain: `width × height` cells, row 0 north.
#[wasm_bindgen]
#[derive(Debug, Clone, PartialEq)]
pub struct Terrain {
    width: u32,
    height: u32,
    heights: Vec<f32>,
    unit: Vec<f32>,
    sediment: Vec<f32>,
}

#[wasm_bindgen]
impl Terrain {
    /// Cells per row.
    #[wasm_bindgen(getter)]
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Rows.
    #[wasm_bindgen(getter)]
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Heights in metres (the bytes of `bozkir terrain`'s `height.tif`), a `Float32Array`.
    #[wasm_bindgen(getter)]
    pub fn heights(&self) -> Vec<f32> {
        self.heights.clone()
    }

    /// Heights stretched to 0..1 in f64, then rounded to f32: what the original viewer's terrain
    /// worker hands its `HeightField`, so a `SceneField` made from them holds the original's plane
    /// bit for bit (from the metres it is within f32 rounding of it).
    #[wasm_bindgen(getter, js_name = unitHeights)]
    pub fn unit_heights(&self) -> Vec<f32> {
        self.unit.clone()
    }

    /// The erosion's sediment record, unit range (`sediment.tif`), a `Float32Array`.
    #[wasm_bindgen(getter)]
    pub fn sediment(&self) -> Vec<f32> {
        self.sediment.clone()
    }
}

/// The class decision on an `n × n` tile grid, row 0 north.
#[wasm_bindgen]
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    n: u32,
    classes: Vec<u8>,
    strength: Vec<f64>,
    runner_up: Vec<u8>,
    shares: Vec<f64>,
    source: String,
}

#[wasm_bindgen]
impl Decision {
    /// Tiles per side.
    #[wasm_bindgen(getter)]
    pub fn n(&self) -> u32 {
        self.n
    }

    /// Class per tile (0 = the rule's first position, "collected"), a `Uint8Array`.
    #[wasm_bindgen(getter)]
    pub fn classes(&self) -> Vec<u8> {
        self.classes.clone()
    }

    /// Confidence 0..1 per tile (the undecided band), a `Float64Array`.
    #[wasm_bindgen(getter)]
    pub fn strength(&self) -> Vec<f64> {
        self.strength.clone()
    }

    /// The class each tile would take instead, a `Uint8Array`.
    #[wasm_bindgen(getter, js_name = runnerUp)]
    pub fn runner_up(&self) -> Vec<u8> {
        self.runner_up.clone()
    }

    /// Share of tiles in each class.
    #[wasm_bindgen(getter)]
    pub fn shares(&self) -> Vec<f64> {
        self.shares.clone()
    }

    /// What drove the collecting class ("sediment" or "drainage").
    #[wasm_bindgen(getter)]
    pub fn source(&self) -> String {
        self.source.clone()
    }
}

/// The rule's controls and the mapping's, as `bozkir classify` takes them.
#[derive(Debug, Clone, PartialEq)]
pub struct GridOptions {
    pub grid: u32,
    /// Share of class 0; `None` = each tile takes its best class.
    pub share: Option<f64>,
    pub altitude: f64,
    pub coherence: u32,
    pub sharpness: f64,
    pub relief: f64,
    pub detail: f64,
}

/// [`generate`] without the JavaScript error type.
pub fn try_generate(profile_name: &str, seed: u32, size: u32) -> Result<Terrain, String> {
    try_generate_with(profile_name, seed, size, &NoProgress)
}

/// [`try_generate`] reporting the generator's stages to `progress` (the page's progress bar).
pub fn try_generate_with(profile_name: &str, seed: u32, size: u32, progress: &dyn Progress) -> Result<Terrain, String> {
    let prof = profile(profile_name)?;
    if !(4..=MAX_SIZE).contains(&size) {
        return Err(format!("terrain size {size} outside 4..={MAX_SIZE}"));
    }
    let t = bozkir_terrain::profiles::generate(size as usize, u64::from(seed), &prof.params, progress);
    Ok(Terrain {
        width: t.height.width() as u32,
        height: t.height.height() as u32,
        heights: t.height.data().iter().map(|&v| (v * HEIGHT_RANGE_M) as f32).collect(),
        unit: bozkir_material::cues::unit(t.height.data()).into_iter().map(|v| v as f32).collect(),
        sediment: t.sediment.data().iter().map(|&v| v as f32).collect(),
    })
}

impl From<bozkir_material::Decision> for Decision {
    fn from(d: bozkir_material::Decision) -> Decision {
        Decision {
            n: d.n as u32,
            shares: d.shares(),
            source: d.source.name().to_string(),
            classes: d.class,
            strength: d.strength,
            runner_up: d.runner_up,
        }
    }
}

/// [`classify_grid`] without the JavaScript error type.
pub fn try_classify_grid(
    heights: &[f32],
    w: u32,
    h: u32,
    sediment: Option<&[f32]>,
    o: &GridOptions,
) -> Result<Decision, String> {
    let (w, h) = (w as usize, h as usize);
    let widen = |v: &[f32]| v.iter().map(|&x| f64::from(x)).collect::<Vec<f64>>();
    let field = Field::new(w, h, &widen(heights)).map_err(|e| format!("heights: {e}"))?;
    let sed = match sediment {
        Some(s) => Some(Field::new(w, h, &widen(s)).map_err(|e| format!("sediment: {e}"))?),
        None => None,
    };
    let map = GridMapping { relief: o.relief, detail: o.detail, ..GridMapping::new(o.grid as usize) };
    let opts = ClassifyOptions {
        classes: 2,
        spacing: map.tile,
        radius: None,
        sharpness: o.sharpness,
        altitude: o.altitude,
        coherence: o.coherence as usize,
        balance: o.share.map_or(Balance::Free, Balance::Share),
    };
    let d = classify_on_grid(&field, sed.as_ref(), &map, &Rule::builtin(), &opts).map_err(|e| e.to_string())?;
    Ok(Decision::from(d))
}

fn js(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

thread_local! {
    /// The JavaScript function [`generate`] was given, while it runs.
    static ON_PROGRESS: std::cell::RefCell<Option<js_sys::Function>> = const { std::cell::RefCell::new(None) };
}

/// Progress forwarded to the function in [`ON_PROGRESS`] as `(stage, done, total)`. It holds no
/// JavaScript value itself (those are neither `Send` nor `Sync`), so it is a plain `Sync` sink;
/// the callback lives on the thread that called [`generate`], the only thread a WebAssembly
/// module without shared memory has. Errors thrown by the callback are ignored.
struct JsProgress;

impl Progress for JsProgress {
    fn report(&self, stage: &str, done: u64, total: u64) {
        ON_PROGRESS.with(|f| {
            if let Some(f) = f.borrow().as_ref() {
                let _ = f.call3(
                    &JsValue::NULL,
                    &JsValue::from_str(stage),
                    &JsValue::from_f64(done as f64),
                    &JsValue::from_f64(total as f64),
                );
            }
        });
    }
}

/// Terrain from a named profile and a seed: `bozkir terrain --profile P --seed S --size N`.
/// `onProgress(stage, done, total)`, when given, is called as the generator advances (the
/// erosion iterations: `stage` "erode", `done` of `total`), so a page can show how far it is.
#[wasm_bindgen]
pub fn generate(
    profile: &str,
    seed: u32,
    size: u32,
    on_progress: Option<js_sys::Function>,
) -> Result<Terrain, JsError> {
    let Some(f) = on_progress else {
        return try_generate(profile, seed, size).map_err(js);
    };
    ON_PROGRESS.with(|slot| *slot.borrow_mut() = Some(f));
    let r = try_generate_with(profile, seed, size, &JsProgress);
    ON_PROGRESS.with(|slot| *slot.borrow_mut() = None);
    r.map_err(js)
}

/// Classify a terrain under a `grid × grid` tile grid with two classes of the built-in rule, as
/// `bozkir classify --grid G [--share S] --altitude A --coherence C --sharpness K --relief R
/// --detail D` does (unit tiles, no rotation, the viewer's oversampling). `share` undefined = each
/// tile takes its best class.
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub fn classify_grid(
    heights: &[f32],
    w: u32,
    h: u32,
    sediment: Option<Vec<f32>>,
    grid: u32,
    share: Option<f64>,
    altitude: f64,
    coherence: u32,
    sharpness: f64,
    relief: f64,
    detail: f64,
) -> Result<Decision, JsError> {
    let o = GridOptions { grid, share, altitude, coherence, sharpness, relief, detail };
    try_classify_grid(heights, w, h, sediment.as_deref(), &o).map_err(js)
}

/// Per-splat priority in `[0, 1)`: a splat survives where it is `≤` its tile's threshold.
#[wasm_bindgen(js_name = splatPriority)]
pub fn splat_priority(index: u32) -> f64 {
    bozkir_material::select::splat_priority(index)
}

/// The blend mix of a tile of this strength for a blend band `width` (1 = its own class only).
#[wasm_bindgen(js_name = blendMix)]
pub fn blend_mix(strength: f64, width: f64) -> f64 {
    bozkir_material::classify::blend_mix(strength, width)
}

/// The built-in rule file (`crates/material/rule.json`), verbatim.
#[wasm_bindgen(js_name = ruleJson)]
pub fn rule_json() -> String {
    bozkir_material::rule::RULE_JSON.to_string()
}

/// Profile names in group order.
#[wasm_bindgen]
pub fn profiles() -> Vec<String> {
    profile_names().into_iter().map(String::from).collect()
}

/// The generator's output version (part of a browser cache key).
#[wasm_bindgen(js_name = generatorVersion)]
pub fn generator_version() -> u32 {
    GENERATOR_VERSION
}

/// A grid mapping (see `GridMapping`): `relief_scale ≤ 0` follows the grid.
#[wasm_bindgen]
#[derive(Debug, Clone)]
pub struct Mapping(MappingArgs);

#[wasm_bindgen]
impl Mapping {
    #[wasm_bindgen(constructor)]
    pub fn new(
        n: u32,
        tile: f64,
        relief: f64,
        relief_scale: f64,
        angle_deg: f64,
        detail: f64,
        compat: Option<String>,
    ) -> Result<Mapping, JsError> {
        let compat = match compat.as_deref() {
            None => Compat::Original,
            Some(name) => Compat::from_name(name).map_err(js)?,
        };
        let m = MappingArgs { n, tile, relief, relief_scale: Some(relief_scale), angle_deg, detail, compat };
        m.mapping().map_err(js)?;
        Ok(Mapping(m))
    }

    /// `relief·max(1, relief_scale/24)`: the drawn height of the field's top over its middle.
    #[wasm_bindgen(getter)]
    pub fn amplitude(&self) -> f64 {
        self.0.mapping().map(|m| m.amplitude()).unwrap_or(0.0)
    }

    /// Tiles the terrain spans across its long edge.
    #[wasm_bindgen(getter, js_name = reliefScale)]
    pub fn relief_scale(&self) -> f64 {
        self.0.mapping().map(|m| m.relief_scale()).unwrap_or(0.0)
    }

    /// Samples per tile side the rule uses.
    #[wasm_bindgen(getter)]
    pub fn over(&self) -> u32 {
        self.0.mapping().map(|m| m.over() as u32).unwrap_or(0)
    }

    /// The detail grain's lattice hash: `"original"` or `"canonical"`.
    #[wasm_bindgen(getter)]
    pub fn compat(&self) -> String {
        self.0.compat.name().to_string()
    }
}

/// A height field (and optional sediment record) for the viewer.
#[wasm_bindgen]
pub struct SceneField(SceneFieldData);

#[wasm_bindgen]
impl SceneField {
    #[wasm_bindgen(constructor)]
    pub fn new(heights: &[f32], w: u32, h: u32, sediment: Option<Vec<f32>>) -> Result<SceneField, JsError> {
        SceneFieldData::new(heights, w, h, sediment.as_deref()).map(SceneField).map_err(js)
    }

    #[wasm_bindgen(getter)]
    pub fn width(&self) -> u32 {
        self.0.field.width as u32
    }

    #[wasm_bindgen(getter)]
    pub fn height(&self) -> u32 {
        self.0.field.height as u32
    }

    /// Heights stretched to 0..1, row 0 north.
    #[wasm_bindgen(getter)]
    pub fn z(&self) -> Vec<f32> {
        self.0.field.z.clone()
    }

    /// Where detail relief applies, 0..1.
    #[wasm_bindgen(getter)]
    pub fn mask(&self) -> Vec<f32> {
        self.0.field.mask.clone()
    }

    /// Openness 0..1 (0.5 flat).
    #[wasm_bindgen(getter)]
    pub fn open(&self) -> Vec<f32> {
        self.0.field.open.clone()
    }

    /// The drawn height at world `(x, y)` under `m` (`Field::height_at`).
    #[wasm_bindgen(js_name = heightAt)]
    pub fn height_at(&self, m: &Mapping, x: f64, y: f64) -> Result<f64, JsError> {
        let map = m.0.mapping().map_err(js)?;
        Ok(self.0.field.height_at(&map, x, y))
    }

    /// The rule on the grid of `m` (`share` undefined = free balance).
    pub fn classify(
        &self,
        m: &Mapping,
        share: Option<f64>,
        altitude: f64,
        coherence: u32,
        sharpness: f64,
    ) -> Result<Decision, JsError> {
        let d = self.0.classify(&m.0, share, altitude, coherence, sharpness).map_err(js)?;
        Ok(Decision::from(d))
    }
}

/// Per-cell draw data of a layout (see `bozkir_splat::tiling::scene::Cells`).
#[wasm_bindgen]
pub struct SceneCells(scene::Cells);

#[wasm_bindgen]
impl SceneCells {
    #[wasm_bindgen(getter)]
    pub fn tile(&self) -> Vec<u32> {
        self.0.tile.clone()
    }
    #[wasm_bindgen(getter)]
    pub fn alt(&self) -> Vec<u32> {
        self.0.alt.clone()
    }
    #[wasm_bindgen(getter, js_name = ownThreshold)]
    pub fn own_t(&self) -> Vec<u32> {
        self.0.own_t.clone()
    }
    #[wasm_bindgen(getter, js_name = altThreshold)]
    pub fn alt_t(&self) -> Vec<u32> {
        self.0.alt_t.clone()
    }
    #[wasm_bindgen(getter)]
    pub fn mix(&self) -> Vec<f32> {
        self.0.mix.clone()
    }
    #[wasm_bindgen(getter)]
    pub fn unmatched(&self) -> u32 {
        self.0.unmatched
    }
}

/// The Wang layout of a tileset (its manifest JSON) over an `n × n` grid with the wanted
/// classes (undefined = the rule off: a hashed class per cell), the runner-up and strength of
/// the decision and the blend band width (0 = hard).
#[wasm_bindgen(js_name = sceneCells)]
#[allow(clippy::too_many_arguments)]
pub fn scene_cells_js(
    manifest_json: &str,
    n: u32,
    seed: u32,
    classes: Option<Vec<u8>>,
    runner_up: Option<Vec<u8>>,
    strength: Option<Vec<f64>>,
    blend_width: f64,
) -> Result<SceneCells, JsError> {
    let man: bozkir_splat::tiling::tileset::Manifest =
        serde_json::from_str(manifest_json).map_err(|e| JsError::new(&format!("tileset manifest: {e}")))?;
    scene::scene_cells(&man, n, seed, classes.as_deref(), runner_up.as_deref(), strength.as_deref(), blend_width)
        .map(SceneCells)
        .map_err(js)
}

/// The canonical 32-bit hash (`bozkir_core::hash::hash_u32`).
#[wasm_bindgen(js_name = hashU32)]
pub fn hash_u32_js(x: u32, y: u32, seed: u32) -> u32 {
    bozkir_core::hash::hash_u32(x, y, seed)
}

/// The canonical 3-D hash (`bozkir_core::hash::hash3_u32`).
#[wasm_bindgen(js_name = hash3U32)]
pub fn hash3_u32_js(x: u32, y: u32, z: u32, seed: u32) -> u32 {
    bozkir_core::hash::hash3_u32(x, y, z, seed)
}

/// 3-D gradient noise (`bozkir_core::noise::gradient3`) at `(x, y, z)` under `seed`.
#[wasm_bindgen(js_name = gradient3)]
pub fn gradient3_js(x: f64, y: f64, z: f64, seed: u32) -> f64 {
    bozkir_core::noise::gradient3(x, y, z, seed)
}

/// The rule on samples already taken: `z` is `(n·over)²` heights (north row first), as
/// `bozkir_material::classify` takes them. `shares` empty = free, one value = the share of
/// class 0, one per class = relative quotas.
#[wasm_bindgen(js_name = classifyCells)]
#[allow(clippy::too_many_arguments)]
pub fn classify_cells(
    z: &[f64],
    n: u32,
    classes: u32,
    spacing: f64,
    shares: &[f64],
    coherence: u32,
    altitude: f64,
    sharpness: f64,
    sediment: Option<Vec<f64>>,
) -> Result<Decision, JsError> {
    let balance = match shares {
        [] => Balance::Free,
        [s] => Balance::Share(*s),
        many => Balance::Shares(many.to_vec()),
    };
    let opts = ClassifyOptions {
        classes: classes as usize,
        spacing,
        radius: None,
        sharpness,
        altitude,
        coherence: coherence as usize,
        balance,
    };
    let d = bozkir_material::classify(z, n as usize, sediment.as_deref(), &Rule::builtin(), &opts)
        .map_err(|e| JsError::new(&e.to_string()))?;
    Ok(Decision::from(d))
}

/// The survival hash of splat indices `0..n` within a tile (`splat_priority·2³²`).
#[wasm_bindgen(js_name = splatHashes)]
pub fn splat_hashes_js(n: u32) -> Vec<u32> {
    scene::splat_hashes(n)
}

/// The starter tileset (no data needed).
#[wasm_bindgen]
pub struct StarterTileset(scene::StarterFiles);

#[wasm_bindgen]
impl StarterTileset {
    /// `tileset.json` text.
    #[wasm_bindgen(getter)]
    pub fn manifest(&self) -> String {
        self.0.manifest.clone()
    }
    /// `tiles.splat` bytes.
    #[wasm_bindgen(getter)]
    pub fn splats(&self) -> Vec<u8> {
        self.0.splats.clone()
    }
    /// Atlas RGBA pixels.
    #[wasm_bindgen(getter)]
    pub fn atlas(&self) -> Vec<u8> {
        self.0.atlas.clone()
    }
    #[wasm_bindgen(getter, js_name = atlasWidth)]
    pub fn atlas_width(&self) -> u32 {
        self.0.width
    }
    #[wasm_bindgen(getter, js_name = atlasHeight)]
    pub fn atlas_height(&self) -> u32 {
        self.0.height
    }
}

/// Build the starter tileset.
#[wasm_bindgen(js_name = starterTileset)]
pub fn starter_tileset() -> Result<StarterTileset, JsError> {
    scene::starter_files().map(StarterTileset).map_err(js)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults(grid: u32, share: Option<f64>) -> GridOptions {
        GridOptions { grid, share, altitude: 0.4, coherence: 2, sharpness: 2.0, relief: 1.2, detail: 1.0 }
    }

    #[test]
    fn generate_is_the_generator() {
        let t = generate("canyon", 3, 32, None).unwrap();
        let p = profile("canyon").unwrap();
        let g = bozkir_terrain::profiles::generate(32, 3, &p.params, &NoProgress);
        assert_eq!((t.width(), t.height()), (32, 32));
        let want: Vec<f32> = g.height.data().iter().map(|&v| (v * 1000.0) as f32).collect();
        assert_eq!(t.heights(), want);
        let want: Vec<f32> = g.sediment.data().iter().map(|&v| v as f32).collect();
        assert_eq!(t.sediment(), want);
    }

    /// The progress the page's bar reads: the erosion's iterations in order, ending at the total,
    /// and the same terrain as without a sink.
    #[test]
    fn generate_reports_progress_to_the_end() {
        struct Log(std::sync::Mutex<Vec<(String, u64, u64)>>);
        impl Progress for Log {
            fn report(&self, stage: &str, done: u64, total: u64) {
                self.0.lock().unwrap().push((stage.to_string(), done, total));
            }
        }
        let log = Log(std::sync::Mutex::new(Vec::new()));
        let t = try_generate_with("canyon", 3, 32, &log).unwrap();
        assert_eq!(t.heights(), try_generate("canyon", 3, 32).unwrap().heights());
        let erode: Vec<(u64, u64)> =
            log.0.lock().unwrap().iter().filter(|e| e.0 == "erode").map(|e| (e.1, e.2)).collect();
        let total = erode[0].1;
        assert!(total > 1, "{erode:?}");
        assert!(erode.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 == w[1].1), "{erode:?}");
        assert_eq!(*erode.last().unwrap(), (total, total));
    }

    #[test]
    fn generate_refuses_bad_input() {
        let e = try_generate("nope", 0, 32).unwrap_err();
        assert!(e.contains("unknown profile \"nope\""), "{e}");
        assert!(try_generate("canyon", 0, 3).unwrap_err().contains("outside 4..=2048"));
        assert!(try_generate("canyon", 0, MAX_SIZE + 1).is_err());
    }

    #[test]
    fn classify_grid_is_the_cli_glue() {
        let t = try_generate("canyon", 3, 48).unwrap();
        for (share, sed) in [(Some(0.3), true), (None, false)] {
            let o = defaults(12, share);
            let s = t.sediment();
            let got = try_classify_grid(&t.heights(), t.width(), t.height(), sed.then_some(s.as_slice()), &o).unwrap();
            // The CLI's path, spelled out from the library's parts (`bozkir classify`).
            let widen = |v: &[f32]| v.iter().map(|&x| f64::from(x)).collect::<Vec<f64>>();
            let f = Field::new(48, 48, &widen(&t.heights())).unwrap();
            let fs = Field::new(48, 48, &widen(&s)).unwrap();
            let map = GridMapping::new(12);
            let opts = ClassifyOptions { balance: share.map_or(Balance::Free, Balance::Share), ..Default::default() };
            let d = classify_on_grid(&f, sed.then_some(&fs), &map, &Rule::builtin(), &opts).unwrap();
            assert_eq!(got.classes(), d.class);
            assert_eq!(got.strength(), d.strength);
            assert_eq!(got.runner_up(), d.runner_up);
            assert_eq!(got.n(), 12);
            assert_eq!(got.source(), d.source.name());
            if let Some(s) = share {
                let c0 = got.shares()[0];
                assert!((c0 - s).abs() < 0.02, "{c0}");
            }
        }
    }

    #[test]
    fn classify_grid_refuses_bad_input() {
        let z = vec![0.0f32; 16];
        let e = try_classify_grid(&z, 4, 5, None, &defaults(8, None)).unwrap_err();
        assert!(e.starts_with("heights: height field 4×5 with 16 values"), "{e}");
        let e = try_classify_grid(&z, 4, 4, Some(&z[..8]), &defaults(8, None)).unwrap_err();
        assert!(e.starts_with("sediment:"), "{e}");
        let e = try_classify_grid(&z, 4, 4, None, &defaults(1, None)).unwrap_err();
        assert!(e.contains("at least 2"), "{e}");
        let mut bad = z.clone();
        bad[5] = f32::NAN;
        assert!(try_classify_grid(&bad, 4, 4, None, &defaults(8, None)).unwrap_err().contains("not finite"));
        let mut o = defaults(8, None);
        o.detail = 7.0;
        assert!(try_classify_grid(&z, 4, 4, None, &o).unwrap_err().contains("detail 7"));
    }

    #[test]
    fn small_bindings() {
        assert_eq!(splat_priority(7), bozkir_material::select::splat_priority(7));
        assert_eq!(blend_mix(0.1, 0.35), bozkir_material::classify::blend_mix(0.1, 0.35));
        assert!(Rule::from_json(&rule_json()).is_ok());
        let p = profiles();
        assert_eq!(p.len(), 19);
        assert!(p.iter().any(|n| n == "canyon"));
        assert_eq!(generator_version(), GENERATOR_VERSION);
    }
}

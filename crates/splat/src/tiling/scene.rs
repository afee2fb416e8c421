//! A tiled scene: the height field and its mapping under the tile grid, the rule on that grid,
//! the Wang layout of a tileset's tiles over the decided classes, the per-splat survival hashes
//! and the starter tileset as files. The viewer (`bozkir-wasm`) and `bozkir figures` both call
//! these functions, so the page and the CLI lay out the same tiles.
//!
//! ```
//! use bozkir_splat::tiling::starter::{starter, StarterParams};
//! use bozkir_splat::tiling::scene::scene_cells;
//!
//! let (ts, ..) = starter(&StarterParams { per_side: 6, levels: 1, atlas_res: 0, ..StarterParams::default() });
//! // The rule switched off: a hashed class per cell, layout seed 1.
//! let cells = scene_cells(&ts.manifest, 4, 1, None, None, None, 0.0).unwrap();
//! assert_eq!(cells.tile.len(), 16);
//! assert_eq!(cells.unmatched, 0);
//! ```

use crate::tiling::starter::{starter, StarterParams};
use crate::tiling::tileset::Manifest;
use crate::tiling::wang::{Code, Colours, WangError, WangSet};
use bozkir_core::hash::hash_u32;
use bozkir_material::classify::blend_mix;
use bozkir_material::tilegrid::{classify_on_grid, Compat, Field, GridMapping};
use bozkir_material::{Balance, ClassifyOptions, Rule};
use std::collections::HashMap;

/// What can go wrong building a scene; each message is the one the viewer and the CLI show.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// The grid mapping is out of range (`GridMapping::check`'s message).
    #[error("{0}")]
    Mapping(String),
    /// A height or sediment plane does not fit its size (`what` names the plane).
    #[error("{what}: {detail}")]
    Field {
        /// `"heights"` or `"sediment"`.
        what: &'static str,
        /// The field's own message.
        detail: String,
    },
    /// The rule refused the input (its own message).
    #[error("{0}")]
    Classify(String),
    /// A per-cell array has the wrong length for the grid.
    #[error("{name}: {len} values for a {n} × {n} grid")]
    Length {
        /// Which array.
        name: &'static str,
        /// Values given.
        len: usize,
        /// Tiles per side.
        n: usize,
    },
    /// The manifest lists no tiles.
    #[error("the tileset has no tiles")]
    NoTiles,
    /// The tiles' codes do not form a Wang set, or the layout failed.
    #[error(transparent)]
    Wang(#[from] WangError),
    /// No tile of any class has a code the layout needs.
    #[error("no tile has code {0:?}")]
    NoCode([u8; 4]),
    /// The starter tileset failed its own check (`Tileset::validate`'s message).
    #[error("{0}")]
    Invalid(String),
    /// The manifest could not be written as JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// The mapping of a terrain under an `n × n` grid of tiles (see `GridMapping`).
#[derive(Debug, Clone, PartialEq)]
pub struct MappingArgs {
    /// Tiles per side.
    pub n: u32,
    /// Tile side in world units.
    pub tile: f64,
    /// Relief of the drawn field (`GridMapping::relief`).
    pub relief: f64,
    /// `None` (or ≤ 0 from JavaScript) = follows the grid.
    pub relief_scale: Option<f64>,
    /// Rotation of the grid over the terrain, degrees.
    pub angle_deg: f64,
    /// Detail relief (`GridMapping::detail`).
    pub detail: f64,
    /// Which lattice hash the detail grain reads (`GridMapping::compat`).
    pub compat: Compat,
}

impl MappingArgs {
    /// The checked [`GridMapping`] (a `relief_scale ≤ 0` follows the grid).
    pub fn mapping(&self) -> Result<GridMapping, SceneError> {
        let m = GridMapping {
            n: self.n as usize,
            tile: self.tile,
            relief: self.relief,
            relief_scale: self.relief_scale.filter(|&v| v > 0.0),
            over: None,
            angle_deg: self.angle_deg,
            detail: self.detail,
            compat: self.compat,
        };
        m.check().map_err(|e| SceneError::Mapping(e.to_string()))?;
        Ok(m)
    }
}

/// A height field (and optional sediment record) ready for the viewer.
#[derive(Debug, Clone)]
pub struct SceneFieldData {
    /// The heights.
    pub field: Field,
    /// The erosion's sediment record, if any.
    pub sediment: Option<Field>,
}

impl SceneFieldData {
    /// A `w × h` field from `f32` heights (row 0 north) and an optional sediment plane.
    pub fn new(heights: &[f32], w: u32, h: u32, sediment: Option<&[f32]>) -> Result<Self, SceneError> {
        let widen = |v: &[f32]| v.iter().map(|&x| f64::from(x)).collect::<Vec<f64>>();
        let (w, h) = (w as usize, h as usize);
        let field = Field::new(w, h, &widen(heights))
            .map_err(|e| SceneError::Field { what: "heights", detail: e.to_string() })?;
        let sediment = match sediment {
            Some(s) => Some(
                Field::new(w, h, &widen(s))
                    .map_err(|e| SceneError::Field { what: "sediment", detail: e.to_string() })?,
            ),
            None => None,
        };
        Ok(SceneFieldData { field, sediment })
    }

    /// The rule on the grid of `m`: class, runner-up and strength per tile (row 0 north).
    pub fn classify(
        &self,
        m: &MappingArgs,
        share: Option<f64>,
        altitude: f64,
        coherence: u32,
        sharpness: f64,
    ) -> Result<bozkir_material::Decision, SceneError> {
        let map = m.mapping()?;
        let opts = ClassifyOptions {
            classes: 2,
            spacing: map.tile,
            radius: None,
            sharpness,
            altitude,
            coherence: coherence as usize,
            balance: share.map_or(Balance::Free, Balance::Share),
        };
        classify_on_grid(&self.field, self.sediment.as_ref(), &map, &Rule::builtin(), &opts)
            .map_err(|e| SceneError::Classify(e.to_string()))
    }
}

/// What the renderer draws in each cell (`c = j·n + i`, `i` east, `j` south).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Cells {
    /// Tile index drawn in the cell (its wanted class and its layout code).
    pub tile: Vec<u32>,
    /// Tile index of the runner-up class with the same code, `u32::MAX` = none (decided cell).
    pub alt: Vec<u32>,
    /// Own tile: splat `k` is drawn when `splat_hash(k) ≤ own_t`.
    pub own_t: Vec<u32>,
    /// Runner-up tile: splat `k` is drawn when `splat_hash(k) ≤ alt_t`.
    pub alt_t: Vec<u32>,
    /// The blend mix (fraction of the cell's splats from its own class).
    pub mix: Vec<f32>,
    /// Cells whose wanted class has no tile of the layout's code (should stay 0).
    pub unmatched: u32,
}

/// `⌊p·2³²⌋` as the inclusive bound of `h / 2³² ≤ p` over `u32` hashes; `None` when no hash
/// satisfies it (p < 0).
fn hash_threshold(p: f64) -> u32 {
    if p >= 1.0 {
        u32::MAX
    } else if p <= 0.0 {
        0
    } else {
        (p * 4_294_967_296.0).floor() as u32
    }
}

/// The Wang layout of the manifest's tiles over an `n × n` grid for the wanted classes
/// (`None` = a class per cell from the hash, for the rule switched off), with the runner-up
/// tile and the per-splat thresholds of the blend band (`blend_width ≤ 0` = hard).
#[allow(clippy::too_many_arguments)]
pub fn scene_cells(
    manifest: &Manifest,
    n: u32,
    seed: u32,
    classes: Option<&[u8]>,
    runner_up: Option<&[u8]>,
    strength: Option<&[f64]>,
    blend_width: f64,
) -> Result<Cells, SceneError> {
    let n = n as usize;
    let nn = n * n;
    for (name, len) in [
        ("classes", classes.map(<[u8]>::len)),
        ("runner-up", runner_up.map(<[u8]>::len)),
        ("strength", strength.map(<[f64]>::len)),
    ] {
        if let Some(l) = len {
            if l != nn {
                return Err(SceneError::Length { name, len: l, n });
            }
        }
    }
    if manifest.tiles.is_empty() {
        return Err(SceneError::NoTiles);
    }
    let colours = Colours::new(manifest.colours[0], manifest.colours[1])?;
    let k = manifest.classes.len().max(1);
    let mut by: HashMap<(u8, [u8; 4]), u32> = HashMap::new();
    let mut codes: Vec<Code> = Vec::new();
    for (i, t) in manifest.tiles.iter().enumerate() {
        by.entry((t.class, t.code)).or_insert(i as u32);
        let c = Code { n: t.code[0], e: t.code[1], s: t.code[2], w: t.code[3] };
        if !codes.contains(&c) {
            codes.push(c);
        }
    }
    let set = WangSet::from_codes(colours, codes)?;
    let layout = set.layout(n, n, seed)?;
    let mut out = Cells {
        tile: vec![0; nn],
        alt: vec![u32::MAX; nn],
        own_t: vec![u32::MAX; nn],
        alt_t: vec![0; nn],
        mix: vec![1.0; nn],
        unmatched: 0,
    };
    for j in 0..n {
        let y = n - 1 - j; // layout rows grow northward, decision rows southward
        for i in 0..n {
            let c = j * n + i;
            let code = layout.code(i, y);
            let key = [code.n, code.e, code.s, code.w];
            let want = match classes {
                Some(cl) => cl[c],
                None => (hash_u32(i as u32, y as u32, seed ^ 0xC1A5_5E5D) % k as u32) as u8,
            };
            let Some(&t) = by.get(&(want, key)).or_else(|| {
                out.unmatched += 1;
                (0..k as u8).find_map(|cl| by.get(&(cl, key)))
            }) else {
                return Err(SceneError::NoCode(key));
            };
            out.tile[c] = t;
            let (Some(ru), Some(st)) = (runner_up, strength) else { continue };
            let m = blend_mix(st[c], blend_width);
            if m >= 1.0 || ru[c] == want {
                continue;
            }
            if let Some(&a) = by.get(&(ru[c], key)) {
                out.alt[c] = a;
                out.mix[c] = m as f32;
                out.own_t[c] = hash_threshold(m);
                out.alt_t[c] = hash_threshold(1.0 - m);
            }
        }
    }
    Ok(out)
}

/// The per-splat survival hash of indices `0..n` within a tile: `splat_priority(k)·2³²`
/// exactly (`splat_priority` is that `u32` over 2³²).
pub fn splat_hashes(n: u32) -> Vec<u32> {
    (0..n).map(|k| (bozkir_material::select::splat_priority(k) * 4_294_967_296.0) as u32).collect()
}

/// The starter tileset as files.
#[derive(Debug, Clone)]
pub struct StarterFiles {
    /// `tileset.json` text.
    pub manifest: String,
    /// `tiles.splat` bytes.
    pub splats: Vec<u8>,
    /// Atlas RGBA pixels, `width × height`.
    pub atlas: Vec<u8>,
    /// Atlas width in pixels.
    pub width: u32,
    /// Atlas height in pixels.
    pub height: u32,
}

/// Build the starter tileset ([`starter`] with its defaults) as files.
pub fn starter_files() -> Result<StarterFiles, SceneError> {
    let (ts, w, h, px) = starter(&StarterParams::default());
    ts.validate().map_err(|e| SceneError::Invalid(e.to_string()))?;
    let manifest = serde_json::to_string(&ts.manifest)?;
    let splats = crate::formats::dot_splat::encode_splat(&ts.splats);
    let atlas = px.iter().flat_map(|p| [p[0], p[1], p[2], 255]).collect();
    Ok(StarterFiles { manifest, splats, atlas, width: w as u32, height: h as u32 })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest() -> Manifest {
        let (ts, ..) = starter(&StarterParams { per_side: 6, levels: 1, atlas_res: 0, ..StarterParams::default() });
        ts.manifest
    }

    #[test]
    fn cells_follow_the_wanted_classes_and_fit_their_neighbours() {
        let m = manifest();
        let n = 9;
        let classes: Vec<u8> = (0..n * n).map(|c| u8::from(c % 3 == 0)).collect();
        let cells = scene_cells(&m, n as u32, 1, Some(&classes), None, None, 0.0).unwrap();
        assert_eq!(cells.unmatched, 0);
        for j in 0..n {
            for i in 0..n {
                let t = &m.tiles[cells.tile[j * n + i] as usize];
                assert_eq!(t.class, classes[j * n + i]);
                if i + 1 < n {
                    let east = &m.tiles[cells.tile[j * n + i + 1] as usize];
                    assert_eq!(t.code[1], east.code[3], "east/west edges agree");
                }
                if j + 1 < n {
                    let south = &m.tiles[cells.tile[(j + 1) * n + i] as usize];
                    assert_eq!(t.code[2], south.code[0], "north/south edges agree");
                }
            }
        }
    }

    #[test]
    #[allow(clippy::needless_range_loop)]
    fn blend_thresholds_match_the_priority_rule() {
        let m = manifest();
        let n = 4;
        let classes = vec![0u8; 16];
        let runner = vec![1u8; 16];
        let strength: Vec<f64> = (0..16).map(|c| c as f64 / 30.0).collect();
        let cells = scene_cells(&m, n, 2, Some(&classes), Some(&runner), Some(&strength), 0.35).unwrap();
        let hashes = splat_hashes(4000);
        for c in 0..16 {
            let mix = blend_mix(strength[c], 0.35);
            if mix >= 1.0 {
                assert_eq!(cells.alt[c], u32::MAX);
                continue;
            }
            assert_eq!(m.tiles[cells.alt[c] as usize].class, 1);
            assert_eq!(m.tiles[cells.alt[c] as usize].code, m.tiles[cells.tile[c] as usize].code);
            for (k, &h) in hashes.iter().enumerate() {
                let p = bozkir_material::select::splat_priority(k as u32);
                assert_eq!(h <= cells.own_t[c], p <= mix, "own splat {k} cell {c}");
                assert_eq!(h <= cells.alt_t[c], p <= 1.0 - mix, "alt splat {k} cell {c}");
            }
        }
    }

    #[test]
    fn bad_lengths_are_named() {
        let m = manifest();
        let e = scene_cells(&m, 4, 0, Some(&[0; 3]), None, None, 0.0).unwrap_err().to_string();
        assert!(e.contains("classes: 3 values for a 4 × 4 grid"), "{e}");
    }

    #[test]
    fn starter_files_are_consistent() {
        let f = starter_files().unwrap();
        let man: Manifest = serde_json::from_str(&f.manifest).unwrap();
        assert_eq!(f.splats.len() as u64, 32 * man.total);
        assert_eq!(f.atlas.len() as u32, 4 * f.width * f.height);
    }
}
